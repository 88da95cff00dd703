"""Zeze bean codec vs msgspec (msgpack with an equivalent ``msgspec.Struct``), same run.

Workload (issue 8): a bean of about 148 bytes -- ints of several widths, a string, a nested
bean, a list of ints, a map string->int, a float -- encoded and decoded ``--ops`` times
(default 1,000,000). gameserde uses a prepared :class:`gameserde.zeze.BeanCodec` on dicts
(the C twin when built); msgspec uses ``msgspec.msgpack.Encoder``/``Decoder(Struct)`` on
Structs, and also on the same plain dicts (no type), as a second reference. Sides take turns
for ``--rounds`` rounds; the medians are printed with the ratio msgspec time / gameserde time
(>= 1.0: gameserde is at least as fast). The pure-Python path (``GAMESERDE_PURE``) is timed
on a hundredth of the operations in the first round.

    python benchmarks/zeze_bench.py [--ops N] [--rounds N]

msgspec is not a dependency of gameserde: ``pip install msgspec`` first.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgspec

from gameserde import zeze
from gameserde.zeze import _accel

SCHEMA = """<solution name="bench"><module name="m" id="1">
  <bean name="BPos">
    <variable id="1" name="x" type="int"/>
    <variable id="2" name="y" type="int"/>
    <variable id="3" name="zone" type="short"/>
  </bean>
  <bean name="BHero">
    <variable id="1" name="id" type="long"/>
    <variable id="2" name="level" type="short"/>
    <variable id="3" name="flags" type="byte"/>
    <variable id="4" name="exp" type="int"/>
    <variable id="5" name="name" type="string"/>
    <variable id="6" name="pos" type="BPos"/>
    <variable id="7" name="skills" type="list[int]"/>
    <variable id="8" name="items" type="map[string,int]"/>
    <variable id="9" name="speed" type="float"/>
  </bean>
</module></solution>"""


class Pos(msgspec.Struct):
    x: int
    y: int
    zone: int


class Hero(msgspec.Struct):
    id: int
    level: int
    flags: int
    exp: int
    name: str
    pos: Pos
    skills: list[int]
    items: dict[str, int]
    speed: float


def value() -> dict[str, Any]:
    return {
        "id": 1234567890123, "level": 57, "flags": 5, "exp": 987654321,
        "name": "Knight of the Silver Lake",
        "pos": {"x": 10250, "y": -3500, "zone": 12},
        "skills": [1001, 1002, 1003, 2001, 2002, 3001, 3002, 3003, 4001, 5001],
        "items": {"potion": 12, "elixir": 3, "arrow": 250, "bomb": 7, "key": 1},
        "speed": 1.5,
    }


def timed(fn: Callable[[Any], Any], arg: Any, ops: int) -> float:
    gc.collect()
    start = time.perf_counter()
    for _ in range(ops):
        fn(arg)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    schema = zeze.load_schema(SCHEMA)
    codec = zeze.BeanCodec(schema, "BHero")
    hero_dict = value()
    data = codec.encode(hero_dict)
    assert codec.decode(data) == hero_dict
    hero = msgspec.convert(hero_dict, Hero)
    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(Hero)
    plain_dec = msgspec.msgpack.Decoder()
    packed, packed_dict = enc.encode(hero), enc.encode(hero_dict)
    print(f"bean: {len(data)} bytes (msgpack: {len(packed)}); C twin: "
          f"{'on' if _accel.ENABLED and codec.encode.__class__.__name__ != 'method' else 'off'}")

    results: dict[str, list[float]] = {}
    for r in range(args.rounds):
        times = {
            "gameserde encode": timed(codec.encode, hero_dict, args.ops),
            "msgspec encode (Struct)": timed(enc.encode, hero, args.ops),
            "msgspec encode (dict)": timed(enc.encode, hero_dict, args.ops),
            "gameserde decode": timed(codec.decode, data, args.ops),
            "msgspec decode (Struct)": timed(dec.decode, packed, args.ops),
            "msgspec decode (dict)": timed(plain_dec.decode, packed_dict, args.ops),
        }
        if r == 0:
            _accel.ENABLED = False
            pure = zeze.BeanCodec(schema, "BHero")
            _accel.ENABLED = True
            few = max(args.ops // 100, 1)
            times["pure encode"] = timed(pure.encode, hero_dict, few) * (args.ops / few)
            times["pure decode"] = timed(pure.decode, data, few) * (args.ops / few)
        for name, seconds in times.items():
            results.setdefault(name, []).append(seconds)
        print(f"round {r + 1}: " + ", ".join(
            f"{name} {seconds / args.ops * 1e6:.3f} us" for name, seconds in times.items()))

    med = {name: statistics.median(v) for name, v in results.items()}
    print(f"\nmedians over {args.rounds} rounds, {args.ops:,} ops each (us per op):")
    for name, seconds in med.items():
        print(f"  {name:28} {seconds / args.ops * 1e6:8.3f}")
    for verb in ("encode", "decode"):
        ours = med[f"gameserde {verb}"]
        print(f"ratio {verb}: msgspec Struct / gameserde = "
              f"{med[f'msgspec {verb} (Struct)'] / ours:.2f}, msgspec dict / gameserde = "
              f"{med[f'msgspec {verb} (dict)'] / ours:.2f}, msgspec Struct / pure = "
              f"{med[f'msgspec {verb} (Struct)'] / med[f'pure {verb}']:.3f}")


if __name__ == "__main__":
    main()
