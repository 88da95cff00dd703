"""Zeze bean codec vs msgspec (msgpack with an equivalent ``msgspec.Struct``), same run.

Workload (issue 8): a bean of about 148 bytes -- ints of several widths, a string, a nested
bean, a list of ints, a map string->int, a float -- encoded and decoded ``--ops`` times
(default 1,000,000). gameserde uses a prepared :class:`gameserde.zeze.BeanCodec` (the C twin
when built), on dataclasses with ``__slots__`` (a schema made from them) and on plain dicts
(a schema read from solution XML); msgspec uses ``msgspec.msgpack.Encoder``/``Decoder`` on
the equivalent ``msgspec.Struct`` and on the same plain dicts. Sides take turns for
``--rounds`` rounds; the medians are printed with the ratios msgspec time / gameserde time
(>= 1.0: gameserde is at least as fast): typed (Struct vs dataclass), untyped (dict vs dict),
and msgspec's Struct vs gameserde's dicts. The pure-Python path is timed on a hundredth of
the operations in the first round.

    python benchmarks/zeze_bench.py [--ops N] [--rounds N]

msgspec is not a dependency of gameserde: ``pip install msgspec`` first.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from gameserde import zeze
from gameserde.zeze import _accel
from gameserde.zeze.python import float32, int8, int16, int32

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


def _id(n: int) -> Any:
    return {"id": n}


@dataclass(slots=True)
class BPos:
    x: int32 = field(default=0, metadata=_id(1))
    y: int32 = field(default=0, metadata=_id(2))
    zone: int16 = field(default=0, metadata=_id(3))


@dataclass(slots=True)
class BHero:
    id: int = field(default=0, metadata=_id(1))
    level: int16 = field(default=0, metadata=_id(2))
    flags: int8 = field(default=0, metadata=_id(3))
    exp: int32 = field(default=0, metadata=_id(4))
    name: str = field(default="", metadata=_id(5))
    pos: BPos = field(default_factory=BPos, metadata=_id(6))
    skills: list[int32] = field(default_factory=list, metadata=_id(7))
    items: dict[str, int32] = field(default_factory=dict, metadata=_id(8))
    speed: float32 = field(default=0.0, metadata=_id(9))


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
    typed = zeze.BeanCodec(zeze.load_schema(BHero, module="m", solution="bench"), "BHero")
    hero_obj = typed.decode(data)
    assert isinstance(hero_obj, BHero) and typed.encode(hero_obj) == data
    hero = msgspec.convert(hero_dict, Hero)
    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(Hero)
    plain_dec = msgspec.msgpack.Decoder()
    packed, packed_dict = enc.encode(hero), enc.encode(hero_dict)
    c_on = _accel.ENABLED and codec.encode != codec._encode and typed.encode != typed._encode
    print(f"bean: {len(data)} bytes (msgpack: {len(packed)}); C twin: {'on' if c_on else 'off'}")

    results: dict[str, list[float]] = {}
    for r in range(args.rounds):
        times = {
            "gameserde encode (dataclass)": timed(typed.encode, hero_obj, args.ops),
            "gameserde encode (dict)": timed(codec.encode, hero_dict, args.ops),
            "msgspec encode (Struct)": timed(enc.encode, hero, args.ops),
            "msgspec encode (dict)": timed(enc.encode, hero_dict, args.ops),
            "gameserde decode (dataclass)": timed(typed.decode, data, args.ops),
            "gameserde decode (dict)": timed(codec.decode, data, args.ops),
            "msgspec decode (Struct)": timed(dec.decode, packed, args.ops),
            "msgspec decode (dict)": timed(plain_dec.decode, packed_dict, args.ops),
        }
        if r == 0:
            _accel.ENABLED = False
            pure = zeze.BeanCodec(schema, "BHero")
            _accel.ENABLED = True
            few = max(args.ops // 100, 1)
            times["pure encode (dict)"] = timed(pure.encode, hero_dict, few) * (args.ops / few)
            times["pure decode (dict)"] = timed(pure.decode, data, few) * (args.ops / few)
        for name, seconds in times.items():
            results.setdefault(name, []).append(seconds)
        print(f"round {r + 1}: " + ", ".join(
            f"{name} {seconds / args.ops * 1e6:.3f} us" for name, seconds in times.items()))

    med = {name: statistics.median(v) for name, v in results.items()}
    print(f"\nmedians over {args.rounds} rounds, {args.ops:,} ops each (us per op):")
    for name, seconds in med.items():
        print(f"  {name:30} {seconds / args.ops * 1e6:8.3f}")
    def ratio(theirs: str, ours: str) -> str:
        return f"{med[theirs] / med[ours]:.2f}"

    for verb in ("encode", "decode"):
        print(f"ratio {verb} (msgspec time / gameserde time): Struct/dataclass "
              f"{ratio(f'msgspec {verb} (Struct)', f'gameserde {verb} (dataclass)')}, "
              f"dict/dict {ratio(f'msgspec {verb} (dict)', f'gameserde {verb} (dict)')}, "
              f"Struct/dict {ratio(f'msgspec {verb} (Struct)', f'gameserde {verb} (dict)')}, "
              f"Struct/pure dict {ratio(f'msgspec {verb} (Struct)', f'pure {verb} (dict)')}")

if __name__ == "__main__":
    main()
