"""Godot Variant codec vs the real engine (Debian's godot3-server 3.2.3), timed in the same run.

Workload (spec godot.md §12): an Array of 20,000 Dictionaries of 8 keys (int, String,
Vector3, Array of 3 Strings, two floats, bool, 5-byte PoolByteArray). The engine times
``var2bytes`` and ``bytes2var`` in GDScript; gameserde times ``encode`` and ``decode`` with
the godot3 profile on the same value, after checking both produce identical bytes. The two
sides take turns (``--rounds``: an engine process timing ``--runs`` runs, then gameserde
timing as many), so that a change in the machine's load between them shows in one round
instead of the whole result. Each round's ratios are printed, then the medians over all runs;
the ratio is engine time / gameserde time (>= 1.0 means gameserde is at least as fast as the
engine). The pure-Python path is timed in the first round only.

    python3 benchmarks/godot_bench.py [--records N] [--runs N] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gameserde import godot
from gameserde.godot import _accel

GDSCRIPT = """extends SceneTree

func make_data(n):
    var out = []
    for i in range(n):
        out.append({
            "id": i,
            "name": "unit_%d" % i,
            "pos": Vector3(i * 0.5, -i * 0.25, 1.5),
            "tags": ["red", "fast", "tag%d" % (i % 10)],
            "speed": i * 0.125,
            "ratio": i / 3.0,
            "alive": i % 2 == 0,
            "blob": PoolByteArray([i % 256, 1, 2, 3, 4]),
        })
    return out

func _init():
    var data = make_data(RECORDS)
    var enc = []
    var dec = []
    var bytes
    for r in range(RUNS):
        var t0 = OS.get_ticks_usec()
        bytes = var2bytes(data)
        var t1 = OS.get_ticks_usec()
        var back = bytes2var(bytes)
        var t2 = OS.get_ticks_usec()
        enc.append(t1 - t0)
        dec.append(t2 - t1)
    var f = File.new()
    f.open("OUT", File.WRITE)
    f.store_buffer(bytes)
    f.close()
    print("ENC ", enc)
    print("DEC ", dec)
    quit()
"""


def make_data(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "name": f"unit_{i}",
            "pos": godot.Vector3(i * 0.5, -i * 0.25, 1.5),
            "tags": ["red", "fast", f"tag{i % 10}"],
            "speed": i * 0.125,
            "ratio": i / 3.0,
            "alive": i % 2 == 0,
            "blob": bytes([i % 256, 1, 2, 3, 4]),
        }
        for i in range(n)
    ]


def run_engine(records: int, runs: int) -> tuple[list[float], list[float], bytes]:
    exe = shutil.which("godot3-server")
    if exe is None:
        sys.exit("godot3-server is not installed (apt-get install godot3-server)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "engine.bin"
        script = Path(tmp) / "bench.gd"
        script.write_text(GDSCRIPT.replace("RECORDS", str(records)).replace("RUNS", str(runs))
                          .replace("OUT", str(out)))
        proc = subprocess.run([exe, "--no-window", "-s", str(script)], cwd=tmp,
                              env={**os.environ, "HOME": tmp}, capture_output=True, text=True,
                              timeout=600, check=False)
        times: dict[str, list[float]] = {}
        for line in proc.stdout.splitlines():
            if line[:4] in ("ENC ", "DEC "):
                times[line[:3]] = [int(x) / 1e6 for x in line[4:].strip(" []").split(",")]
        if set(times) != {"ENC", "DEC"}:
            sys.exit(f"the engine run failed:\n{proc.stdout}\n{proc.stderr}")
        return times["ENC"], times["DEC"], out.read_bytes()


def time_ours(data: Any, wire: bytes, runs: int) -> tuple[list[float], list[float]]:
    enc, dec = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        godot.encode(data, profile="godot3")
        t1 = time.perf_counter()
        godot.decode(wire, profile="godot3")
        t2 = time.perf_counter()
        enc.append(t1 - t0)
        dec.append(t2 - t1)
    return enc, dec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    data = make_data(args.records)
    gc.collect()  # the workload is long-lived data: not young objects for every collection
    ours = godot.encode(data, profile="godot3")
    paths = {"gameserde": _accel.ENABLED}
    if _accel.ENABLED:
        paths["pure Python"] = False
    engine: tuple[list[float], list[float]] = ([], [])
    results: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in paths}
    rounds = []
    for r in range(args.rounds):
        engine_enc, engine_dec, engine_bytes = run_engine(args.records, args.runs)
        if r == 0:
            check(data, ours, engine_bytes)
        engine[0].extend(engine_enc)
        engine[1].extend(engine_dec)
        for label, accelerated in paths.items():
            if r and not accelerated:
                continue
            _accel.ENABLED = accelerated
            enc, dec = time_ours(data, engine_bytes, args.runs)
            results[label][0].extend(enc)
            results[label][1].extend(dec)
            if label == "gameserde":
                rounds.append((statistics.median(engine_enc) / statistics.median(enc),
                               statistics.median(engine_dec) / statistics.median(dec)))
        _accel.ENABLED = paths["gameserde"]

    print(f"workload: {args.records} dictionaries, {len(ours)} bytes, identical bytes on both "
          "sides")
    if not paths["gameserde"]:
        print("(the C accelerator is not built: timing the pure-Python codec)")
    for r, (enc_ratio, dec_ratio) in enumerate(rounds):
        print(f"round {r + 1}: ratio encode {enc_ratio:.2f}, decode {dec_ratio:.2f}")
    print(f"{'':10}{'path':<14}{'engine (s)':>12}{'ours (s)':>10}{'ratio':>8}")
    for i, name in enumerate(("encode", "decode")):
        theirs = statistics.median(engine[i])
        for label, timings in results.items():
            mine = statistics.median(timings[i])
            print(f"{name:10}{label:<14}{theirs:12.3f}{mine:10.3f}{theirs / mine:8.2f}")
    print("ratio = engine time / our time (median of each); >= 1.0: as fast as the engine or "
          "faster")


def check(data: Any, ours: bytes, engine_bytes: bytes) -> None:
    if ours != engine_bytes:
        sys.exit("gameserde's bytes differ from the engine's: "
                 f"{hashlib.sha256(ours).hexdigest()} vs "
                 f"{hashlib.sha256(engine_bytes).hexdigest()}")
    if godot.decode(engine_bytes, profile="godot3") != data:
        sys.exit("gameserde decodes the engine's bytes to a different value")


if __name__ == "__main__":
    main()
