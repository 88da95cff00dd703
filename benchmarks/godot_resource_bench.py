"""Godot resource files vs the real engine (Debian's godot3-server 3.2.3), timed in the same run.

Workload: a save game as Godot's save-game guide recommends it, a scripted ``Resource``
saved with ``ResourceSaver``: an Array of Dictionaries (one per unit: int, String, Vector3,
Array of Strings, two floats, bool, Array of ints), a PoolVector3Array and a PoolStringArray
(not a PoolByteArray per unit: the engine's memory pool allows 65,536 of them in all),
as a binary ``.res`` and as a text ``.tres`` of about ``--megabytes`` each. The engine
builds it, then times ``ResourceSaver.save`` and ``ResourceLoader.load`` (uncached) of each
form in GDScript; gameserde times ``resource.read`` of the file's bytes and ``resource.write``
of what it read (file reading and writing included on both sides), after checking that what
it writes is the engine's file byte for byte. The two sides take turns (``--rounds``: an
engine process timing ``--runs`` runs, then gameserde timing as many); each round's ratios
are printed, then the medians over all runs. The ratio is engine time / gameserde time
(>= 1.0 means gameserde is at least as fast as the engine).

    python3 benchmarks/godot_resource_bench.py [--megabytes N] [--runs N] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gameserde.godot import resource

SAVE_SCRIPT = """extends Resource
export var units = []
export var trail = PoolVector3Array()
export var names = PoolStringArray()
"""

GDSCRIPT = """extends SceneTree

func make_save(n):
    var save = load("res://save.gd").new()
    var units = []
    var trail = PoolVector3Array()
    var names = PoolStringArray()
    for i in range(n):
        units.append({
            "id": i,
            "name": "unit_%d" % i,
            "pos": Vector3(i * 0.5, -i * 0.25, 1.5),
            "tags": ["red", "fast", "tag%d" % (i % 10)],
            "speed": i * 0.125,
            "ratio": i / 3.0,
            "alive": i % 2 == 0,
            "inventory": [i % 256, 1, 2, 3, 4],
        })
        trail.append(Vector3(i, i * 2, i * 3))
        names.append("name_%d" % i)
    save.units = units
    save.trail = trail
    save.names = names
    return save

func time_form(save, path, runs):
    var saves = []
    var loads = []
    for r in range(runs):
        var t0 = OS.get_ticks_usec()
        ResourceSaver.save(path, save)
        var t1 = OS.get_ticks_usec()
        var back = ResourceLoader.load(path, "", true)
        var t2 = OS.get_ticks_usec()
        saves.append(t1 - t0)
        loads.append(t2 - t1)
    return [saves, loads]

func _init():
    var res = time_form(make_save(BINARY_UNITS), "res://bench.res", RUNS)
    print("RES_SAVE ", res[0])
    print("RES_LOAD ", res[1])
    var tres = time_form(make_save(TEXT_UNITS), "res://bench.tres", RUNS)
    print("TRES_SAVE ", tres[0])
    print("TRES_LOAD ", tres[1])
    quit()
"""

BINARY_BYTES_PER_UNIT = 307
TEXT_BYTES_PER_UNIT = 232
"""About what a unit takes in each form (measured), to size the files."""


def run_engine(work: Path, units: dict[str, int], runs: int) -> dict[str, list[float]]:
    exe = shutil.which("godot3-server")
    if exe is None:
        sys.exit("godot3-server is not installed (apt-get install godot3-server)")
    script = work / "bench.gd"
    script.write_text(GDSCRIPT.replace("BINARY_UNITS", str(units["res"]))
                      .replace("TEXT_UNITS", str(units["tres"])).replace("RUNS", str(runs)))
    proc = subprocess.run([exe, "--no-window", "--path", str(work), "-s", str(script)],
                          cwd=work, env={**os.environ, "HOME": str(work)}, capture_output=True,
                          text=True, timeout=1800, check=False)
    times: dict[str, list[float]] = {}
    for line in proc.stdout.splitlines():
        key, _, rest = line.partition(" ")
        if key in ("RES_SAVE", "RES_LOAD", "TRES_SAVE", "TRES_LOAD"):
            times[key] = [int(x) / 1e6 for x in rest.strip(" []").split(",")]
    if len(times) != 4:
        sys.exit(f"the engine run failed:\n{proc.stdout}\n{proc.stderr}")
    return times


def time_ours(path: Path, out: Path, runs: int) -> tuple[list[float], list[float]]:
    reads, writes = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        file = resource.read(path.read_bytes())
        t1 = time.perf_counter()
        out.write_bytes(resource.write(file))
        t2 = time.perf_counter()
        reads.append(t1 - t0)
        writes.append(t2 - t1)
        del file
    return reads, writes


def check(path: Path) -> None:
    data = path.read_bytes()
    if resource.write(resource.read(data)) != data:
        sys.exit(f"gameserde does not write {path.name} back as the engine wrote it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    size = args.megabytes * 1e6
    units = {"res": int(size / BINARY_BYTES_PER_UNIT), "tres": int(size / TEXT_BYTES_PER_UNIT)}
    forms = {"res": ("binary .res", "RES"), "tres": ("text .tres", "TRES")}
    engine: dict[str, list[float]] = {}
    ours: dict[str, list[float]] = {}
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "project.godot").write_text("config_version=4\n")
        (work / "save.gd").write_text(SAVE_SCRIPT)
        for r in range(args.rounds):
            theirs = run_engine(work, units, args.runs)
            ratios = []
            for form, (_, key) in forms.items():
                path = work / f"bench.{form}"
                if r == 0:
                    check(path)
                gc.collect()
                reads, writes = time_ours(path, work / f"ours.{form}", args.runs)
                for name, mine in ((f"{key}_LOAD", reads), (f"{key}_SAVE", writes)):
                    engine.setdefault(name, []).extend(theirs[name])
                    ours.setdefault(name, []).extend(mine)
                    ratios.append(statistics.median(theirs[name]) / statistics.median(mine))
            rounds.append(ratios)
        sizes = {form: (work / f"bench.{form}").stat().st_size for form in forms}
    for form, (label, _) in forms.items():
        print(f"{label}: {units[form]} units, {sizes[form] / 1e6:.1f} MB; gameserde writes the "
              "engine's bytes back")
    for r, ratios in enumerate(rounds):
        print(f"round {r + 1}: ratio " + ", ".join(
            f"{name} {ratio:.2f}" for name, ratio in zip(
                ("res read", "res write", "tres read", "tres write"), ratios, strict=True)))
    print(f"{'':22}{'engine (s)':>12}{'ours (s)':>10}{'ratio':>8}")
    for label, key in forms.values():
        for verb, name in (("read (load)", f"{key}_LOAD"), ("write (save)", f"{key}_SAVE")):
            theirs = statistics.median(engine[name])
            mine = statistics.median(ours[name])
            print(f"{label + ' ' + verb:22}{theirs:12.3f}{mine:10.3f}{theirs / mine:8.2f}")
    print("ratio = engine time / our time (median of each); >= 1.0: as fast as the engine or "
          "faster. Goal: >= 1.0 for the binary form.")


if __name__ == "__main__":
    main()
