"""KingsIsle ObjectProperty serializer vs katsuba 0.6.0, same run, same bytes.

Workloads (issue 9, spec kiobj.md §13): a root object holding ``--items`` (default 100,000)
``class Item*`` pointers in a dynamic list, each item of 7 properties (int, unsigned int,
float, bool, a 12-byte std::string, a Vector3D and a list of 4 unsigned char), in shallow and
in deep mode (flags 0); and a root holding a flat ``list<unsigned int>`` of ``--values``
(default 1,000,000) values (shallow). gameserde's :class:`Serializer` (its C twin when built)
deserializes and serializes each in this process; katsuba does the same in its own Python 3.12
process (``.venv-katsuba``, or ``--katsuba PYTHON``) on the same bytes. Before timing, katsuba
must decode gameserde's bytes to the same values (a digest of a canonical JSON form of them)
and serialize them back to exactly those bytes.

Sides take turns for ``--rounds`` rounds (a katsuba process per round); the medians are
printed with the ratios katsuba time / gameserde time (>= 1.0: gameserde is at least as fast).
The pure-Python path is timed on a hundredth of the workload in the first round.

    python benchmarks/kingsisle_bench.py [--items N] [--values N] [--rounds N] [--katsuba PYTHON]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gameserde.kingsisle import _accel, load_schema, property_hash, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer

ROOT = Path(__file__).resolve().parents[1]

ITEM, BAG, NUMBERS = "class Item", "class Bag", "class Numbers"
PROPERTIES = {  # class -> [(name, type, dynamic, pointer)]
    ITEM: [("m_int", "int", False, False), ("m_u32", "unsigned int", False, False),
           ("m_float", "float", False, False), ("m_bool", "bool", False, False),
           ("m_name", "std::string", False, False), ("m_pos", "class Vector3D", False, False),
           ("m_bytes", "unsigned char", True, False)],
    BAG: [("m_items", "class Item*", True, True)],
    NUMBERS: [("m_values", "unsigned int", True, False)],
}

KATSUBA = r"""
import gc, hashlib, json, sys, time
from katsuba.op import Object, Serializer, SerializerOptions, TypeList

def canonical(v):
    if isinstance(v, Object):
        return {"$type": v.type_hash, **{k: canonical(x) for k, x in v.items()}}
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, list):
        return [canonical(x) for x in v]
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    return v

request = json.load(sys.stdin)
types = TypeList(request["types"])
out = {}
for case in request["cases"]:
    ser = Serializer(SerializerOptions(flags=0, shallow=case["shallow"]), types)
    with open(case["path"], "rb") as f:
        data = f.read()
    answer = {}
    if request["check"]:
        value = ser.deserialize(data)
        answer["digest"] = hashlib.sha256(
            json.dumps(canonical(value), sort_keys=True).encode()).hexdigest()
        answer["same_bytes"] = bytes(ser.serialize(value)) == data
        del value
    gc.collect()
    start = time.perf_counter()
    value = ser.deserialize(data)
    answer["deserialize"] = time.perf_counter() - start
    gc.collect()
    start = time.perf_counter()
    ser.serialize(value)
    answer["serialize"] = time.perf_counter() - start
    del value
    out[case["name"]] = answer
json.dump(out, sys.stdout)
"""


def type_list() -> str:
    classes = {}
    for cls, props in PROPERTIES.items():
        h = string_id(cls)
        classes[str(h)] = {"name": cls, "bases": [], "hash": h, "singleton": False,
                           "properties": {
            name: {"type": t, "id": i, "offset": 0, "flags": 31,
                   "container": "List" if dyn else "Static", "dynamic": dyn, "pointer": ptr,
                   "hash": property_hash(t, name)}
            for i, (name, t, dyn, ptr) in enumerate(props)}}
    return json.dumps({"version": 2, "classes": classes})


def bag(n: int) -> KiObject:
    item_hash = string_id(ITEM)
    items = [KiObject(ITEM, item_hash, {
        "m_int": i - n // 2, "m_u32": 3_000_000_000 + i, "m_float": i * 0.25,
        "m_bool": i % 3 == 0, "m_name": b"item-%07d" % i,
        "m_pos": {"x": i * 0.5, "y": -1.5, "z": i * 0.125},
        "m_bytes": [i % 256, 1, 2, 3]}) for i in range(n)]
    return KiObject(BAG, string_id(BAG), {"m_items": items})


def numbers(n: int) -> KiObject:
    return KiObject(NUMBERS, string_id(NUMBERS),
                    {"m_values": [(i * 2654435761) & 0xFFFFFFFF for i in range(n)]})


def canonical(v: Any) -> Any:
    """The form katsuba's side hashes (its ``canonical``, on our values)."""
    if isinstance(v, KiObject):
        return {"$type": v.type_hash, **{k: canonical(x) for k, x in v.items()}}
    if isinstance(v, bytes):
        return {"$bytes": v.hex()}
    if isinstance(v, list):
        return [canonical(x) for x in v]
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    return v


def digest(value: KiObject) -> str:
    return hashlib.sha256(json.dumps(canonical(value), sort_keys=True).encode()).hexdigest()


def run_katsuba(python: str, types: str, cases: list[dict[str, Any]],
                check: bool) -> dict[str, Any]:
    request = json.dumps({"types": types, "cases": cases, "check": check})
    done = subprocess.run([python, "-c", KATSUBA], input=request, capture_output=True,
                          text=True, timeout=1800, check=False)
    if done.returncode != 0:
        sys.exit(f"the katsuba run failed: {done.stderr.strip()[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def timed(fn: Any, arg: Any) -> float:
    gc.collect()
    start = time.perf_counter()
    result = fn(arg)
    seconds = time.perf_counter() - start
    del result
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--katsuba", default=os.environ.get(
        "GAMESERDE_KATSUBA_PYTHON", str(ROOT / ".venv-katsuba" / "bin" / "python")))
    args = parser.parse_args()
    if not Path(args.katsuba).is_file():
        sys.exit(f"no katsuba interpreter at {args.katsuba} (scripts/test.sh makes "
                 ".venv-katsuba; or pass --katsuba)")

    types = type_list()
    schema = load_schema(types)
    workloads = {  # name -> (serializer, value)
        "shallow": (Serializer(schema), bag(args.items)),
        "deep": (Serializer(schema, shallow=False), bag(args.items)),
        "u32 list": (Serializer(schema), numbers(args.values)),
    }
    few = {name: (ser, bag(args.items // 100) if name != "u32 list"
                  else numbers(args.values // 100)) for name, (ser, _) in workloads.items()}
    print(f"C twin: {'on' if _accel.ENABLED else 'off (pure Python)'}")
    with tempfile.TemporaryDirectory() as tmp:
        cases, blobs = [], {}
        for name, (ser, value) in workloads.items():
            data = ser.encode(value)
            assert ser.decode(data) == value and ser.encode(ser.decode(data)) == data, name
            blobs[name] = data
            path = Path(tmp) / f"{name.replace(' ', '_')}.bin"
            path.write_bytes(data)
            cases.append({"name": name, "path": str(path), "shallow": ser.shallow})
            print(f"{name}: {len(data):,} bytes")
        results: dict[str, list[float]] = {}
        for r in range(args.rounds):
            theirs = run_katsuba(args.katsuba, types, cases, check=r == 0)
            times: dict[str, float] = {}
            for name, (ser, value) in workloads.items():
                if r == 0:
                    if not theirs[name]["same_bytes"]:
                        sys.exit(f"{name}: katsuba does not write back the bytes it read")
                    if theirs[name]["digest"] != digest(ser.decode(blobs[name])):
                        sys.exit(f"{name}: katsuba decodes other values than gameserde")
                times[f"katsuba deserialize {name}"] = theirs[name]["deserialize"]
                times[f"katsuba serialize {name}"] = theirs[name]["serialize"]
                times[f"gameserde deserialize {name}"] = timed(ser.decode, blobs[name])
                times[f"gameserde serialize {name}"] = timed(ser.encode, value)
                if r == 0:
                    small_ser, small = few[name]
                    small_data = small_ser.encode(small)
                    saved, _accel.ENABLED = _accel.ENABLED, False
                    times[f"pure deserialize {name}"] = 100 * timed(small_ser.decode,
                                                                    small_data)
                    times[f"pure serialize {name}"] = 100 * timed(small_ser.encode, small)
                    _accel.ENABLED = saved
            for key, seconds in times.items():
                results.setdefault(key, []).append(seconds)
            print(f"round {r + 1}: " + ", ".join(
                f"{name} {seconds:.3f} s" for name, seconds in times.items()
                if not name.startswith("pure")))

    med = {name: statistics.median(v) for name, v in results.items()}
    print(f"\nmedians over {args.rounds} rounds ({args.items:,} items, {args.values:,} u32), "
          "seconds; ratio = katsuba time / gameserde time:")
    print(f"  {'':28}{'katsuba':>9}{'gameserde':>11}{'ratio':>7}{'pure (est.)':>13}")
    for name in workloads:
        for verb in ("deserialize", "serialize"):
            theirs_s = med[f"katsuba {verb} {name}"]
            ours_s = med[f"gameserde {verb} {name}"]
            print(f"  {verb + ' ' + name:28}{theirs_s:9.3f}{ours_s:11.3f}"
                  f"{theirs_s / ours_s:7.2f}{med[f'pure {verb} {name}']:13.2f}")


if __name__ == "__main__":
    main()
