"""KIWAD archives: gameserde vs katsuba 0.6.0, same run, same archive.

The archive (``--megabytes``, default 200) is written by ``write_wad`` as the game lays one
out: half of its bytes ObjectProperty streams (``ObjectData/NNNNNN.bin``, each a root of 50
to 800 ``class Item`` objects of ``kingsisle_bench.py``'s type list, shallow, flags 0), the
rest textures (``Textures/*.dds``, zlib, deflating about 2 to 1) and sound
(``Sound/*.mp3``, stored).
Two workloads, each side in its own process (katsuba in ``.venv-katsuba``, or ``--katsuba
PYTHON``, timing itself):

* ``extract``: open the archive memory-mapped, list its members, write every member to a
  fresh folder (katsuba: ``Archive.mmap``, which also checks every CRC when it opens;
  gameserde: ``open_wad`` then ``extract``, which checks each CRC as it reads);
* ``decode``: open the archive and deserialize every ObjectProperty member.

Before timing, katsuba must read the same names and the same bytes (a digest of every
member) and decode a sample of streams to the same values. Sides take turns for ``--rounds``
rounds, who goes first alternating, and each extraction starts after ``os.sync()`` (so that
the file system is not still writing the other side's files back); the medians are printed
with the ratio katsuba time / gameserde time (>= 1.0: gameserde is at least as fast).

    python benchmarks/kingsisle_wad_bench.py [--megabytes N] [--rounds N] [--katsuba PYTHON]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from kingsisle_bench import bag, digest, type_list

from gameserde.kingsisle import _accel, load_schema, open_wad, write_wad
from gameserde.kingsisle.serializer import Serializer

ROOT = Path(__file__).resolve().parents[1]
OBJECTS = "ObjectData/*.bin"

KATSUBA = r"""
import gc, hashlib, json, os, shutil, sys, time
from katsuba.op import Object, Serializer, SerializerOptions, TypeList
from katsuba.wad import Archive

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
path, out_dir = request["path"], request["out"]
ser = Serializer(SerializerOptions(flags=0, shallow=True), TypeList(request["types"]))
answer = {}
if request["check"]:
    wad = Archive.mmap(path)
    answer["members"] = {n: hashlib.sha256(bytes(wad[n])).hexdigest() for n in wad}
    answer["sample"] = {n: hashlib.sha256(json.dumps(canonical(ser.deserialize(wad[n])),
                                                     sort_keys=True).encode()).hexdigest()
                        for n in request["sample"]}
    del wad

gc.collect()
os.sync()
start = time.perf_counter()
wad = Archive.mmap(path)
names = list(wad)
made = set()
for name in names:
    target = os.path.join(out_dir, name)
    folder = os.path.dirname(target)
    if folder not in made:
        os.makedirs(folder, exist_ok=True)
        made.add(folder)
    with open(target, "wb") as f:
        f.write(wad[name])
answer["extract"] = time.perf_counter() - start
del wad
shutil.rmtree(out_dir)

gc.collect()
start = time.perf_counter()
wad = Archive.mmap(path)
for name in wad.iter_glob(request["objects"]):
    ser.deserialize(wad[name])
answer["decode"] = time.perf_counter() - start
json.dump(answer, sys.stdout)
"""


def make_archive(path: Path, megabytes: int, ser: Serializer) -> tuple[int, int]:
    """Write the archive (about ``megabytes`` MiB: the members' bytes as stored); its member
    count and size."""
    rng = random.Random(22)
    nibbles = bytes(range(16)) * 16  # textures: 4 bits of entropy a byte, deflating 2 to 1
    pools = {
        "bin": [ser.encode(bag(n)) for n in (50, 200, 800)],
        "dds": [rng.randbytes(rng.randrange(20_000, 400_000)).translate(nibbles)
                for _ in range(8)],
        "mp3": [rng.randbytes(rng.randrange(50_000, 300_000)) for _ in range(8)],
    }
    stored = {kind: [len(zlib.compress(d, 1)) if kind != "mp3" else len(d) for d in pool]
              for kind, pool in pools.items()}
    budget = megabytes << 20
    members: dict[str, bytes] = {}
    objects = others = 0
    while objects + others < budget:
        n = len(members)
        kind = "bin" if objects <= others else "mp3" if n % 5 == 0 else "dds"
        pick = rng.randrange(len(pools[kind]))
        folder = {"bin": "ObjectData", "dds": f"Textures/{n % 37:02}", "mp3": "Sound"}[kind]
        members[f"{folder}/{n:06}.{kind}"] = pools[kind][pick]
        if kind == "bin":
            objects += stored[kind][pick]
        else:
            others += stored[kind][pick]
    write_wad(path, members)
    return len(members), path.stat().st_size


def run_katsuba(python: str, request: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([python, "-c", KATSUBA], input=json.dumps(request),
                          capture_output=True, text=True, timeout=3600, check=False)
    if done.returncode != 0:
        sys.exit(f"the katsuba run failed: {done.stderr.strip()[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def ours(path: Path, out_dir: Path, ser: Serializer) -> dict[str, float]:
    gc.collect()
    os.sync()
    start = time.perf_counter()
    with open_wad(path) as wad:
        wad.names()
        wad.extract(out_dir)
    extract = time.perf_counter() - start
    shutil.rmtree(out_dir)
    gc.collect()
    start = time.perf_counter()
    with open_wad(path) as wad:
        for name in wad.glob(OBJECTS):
            ser.decode(wad[name])
    decode = time.perf_counter() - start
    return {"extract": extract, "decode": decode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--katsuba", default=os.environ.get(
        "GAMESERDE_KATSUBA_PYTHON", str(ROOT / ".venv-katsuba" / "bin" / "python")))
    args = parser.parse_args()
    if not Path(args.katsuba).is_file():
        sys.exit(f"no katsuba interpreter at {args.katsuba} (scripts/test.sh makes "
                 ".venv-katsuba; or pass --katsuba)")
    types = type_list()
    ser = Serializer(load_schema(types))
    print(f"C twin: {'on' if _accel.ENABLED else 'off (pure Python)'}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Bench.wad"
        count, size = make_archive(path, args.megabytes, ser)
        with open_wad(path) as wad:
            streams = wad.glob(OBJECTS)
            members = {n: hashlib.sha256(wad[n]).hexdigest() for n in wad}
            sample = streams[:3]
            want = {n: digest(ser.decode(wad[n])) for n in sample}
        print(f"archive: {count:,} members ({len(streams):,} ObjectProperty), {size:,} bytes")
        request = {"path": str(path), "out": str(Path(tmp) / "katsuba"), "types": types,
                   "objects": OBJECTS, "sample": sample}
        results: dict[str, list[float]] = {}
        for r in range(args.rounds):
            if r % 2:  # who goes first alternates
                mine = ours(path, Path(tmp) / "gameserde", ser)
            theirs = run_katsuba(args.katsuba, {**request, "check": r == 0})
            if r == 0:
                if theirs["members"] != members:
                    sys.exit("katsuba reads other members (names or bytes) than gameserde")
                if theirs["sample"] != want:
                    sys.exit("katsuba decodes other values than gameserde")
            if r % 2 == 0:
                mine = ours(path, Path(tmp) / "gameserde", ser)
            times = {f"katsuba {k}": theirs[k] for k in ("extract", "decode")}
            times.update({f"gameserde {k}": v for k, v in mine.items()})
            for key, seconds in times.items():
                results.setdefault(key, []).append(seconds)
            print(f"round {r + 1}: " + ", ".join(f"{k} {v:.3f} s" for k, v in times.items()))
    med = {name: statistics.median(v) for name, v in results.items()}
    print(f"\nmedians over {args.rounds} rounds ({size / (1 << 20):.0f} MiB archive), "
          "seconds; ratio = katsuba time / gameserde time:")
    print(f"  {'':36}{'katsuba':>9}{'gameserde':>11}{'ratio':>7}")
    labels = {"extract": "open + list + extract all", "decode": "decode every ObjectProperty"}
    for key, label in labels.items():
        theirs_s, ours_s = med[f"katsuba {key}"], med[f"gameserde {key}"]
        print(f"  {label:36}{theirs_s:9.3f}{ours_s:11.3f}{theirs_s / ours_s:7.2f}")
    theirs_s = statistics.median(map(sum, zip(results["katsuba extract"],
                                              results["katsuba decode"], strict=True)))
    ours_s = statistics.median(map(sum, zip(results["gameserde extract"],
                                            results["gameserde decode"], strict=True)))
    print(f"  {'both (the issue workload)':36}{theirs_s:9.3f}{ours_s:11.3f}"
          f"{theirs_s / ours_s:7.2f}")


if __name__ == "__main__":
    main()
