"""The official Python runtime, with flatc-generated code, reads what gameserde builds.

(The other direction, gameserde reading what the official runtime builds, is in
test_reader.py.)
"""

from __future__ import annotations

import importlib.util
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from gameserde.flatbuffers import load_schema
from tests.flatbuffers.flatc_tool import flatc

SCHEMA = """namespace Game.Check;
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
enum Perm : ubyte (bit_flags) { Read, Write, Exec }
struct Vec3 { x:float; y:float; z:float; }
struct Segment { a:Vec3; b:Vec3; tag:short; }
table Weapon { name:string; damage:short; }
union Equipment { Weapon }
table Monster {
  pos:Vec3; mana:short = 150; hp:short = 100; name:string;
  friendly:bool = false (deprecated); inventory:[ubyte]; color:Color = Blue;
  weapons:[Weapon]; equipped:Equipment; path:[Vec3];
  i8:byte; u8:ubyte; i16:short; u16:ushort; i32:int; u32:uint = 7; i64:long; u64:ulong;
  f32:float = 1.5; f64:double; flag:bool = true; perm:Perm; tags:[string];
  segments:[Segment]; maybe:int = null; scores:[double];
}
root_type Monster;
"""


def generated(tmp: Path) -> Any:
    exe = flatc()
    (tmp / "check.fbs").write_text(SCHEMA)
    subprocess.run([exe, "--python", "--gen-onefile", "-o", str(tmp), str(tmp / "check.fbs")],
                   check=True, capture_output=True)
    path = next(tmp.glob("*_generated.py"))
    spec = importlib.util.spec_from_file_location("check_generated", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_generated"] = module
    spec.loader.exec_module(module)
    return module


def f32(x: float) -> float:
    return float(np.float32(x))


def random_monster(rng: random.Random) -> dict[str, Any]:
    def vec() -> dict[str, float]:
        return {"x": f32(rng.uniform(-1e3, 1e3)), "y": f32(rng.uniform(-1, 1)),
                "z": f32(rng.uniform(-1e-3, 1e-3))}

    value: dict[str, Any] = {
        "pos": vec(), "mana": rng.randint(-32768, 32767), "hp": rng.randint(-32768, 32767),
        "name": rng.choice(["Orc", "", "Ünïcödé 😀", "x" * 40]),
        "inventory": [rng.randint(0, 255) for _ in range(rng.randint(0, 12))],
        "color": rng.choice(["Red", "Green", "Blue", 1]),
        "weapons": [{"name": rng.choice(["Sword", "Axe"]), "damage": rng.randint(-5, 500)}
                    for _ in range(rng.randint(0, 3))],
        "path": [vec() for _ in range(rng.randint(0, 4))],
        "i8": rng.randint(-128, 127), "u8": rng.randint(0, 255),
        "i16": rng.randint(-32768, 32767), "u16": rng.randint(0, 65535),
        "i32": rng.randint(-(1 << 31), (1 << 31) - 1), "u32": rng.randint(0, (1 << 32) - 1),
        "i64": rng.randint(-(1 << 63), (1 << 63) - 1), "u64": rng.randint(0, (1 << 64) - 1),
        "f32": f32(rng.uniform(-1e6, 1e6)), "f64": rng.uniform(-1e300, 1e300),
        "flag": rng.random() < 0.5, "perm": rng.choice(["Read Exec", "Write", 0, 7]),
        "tags": [rng.choice(["a", "bb", "ccc"]) for _ in range(rng.randint(0, 4))],
        "segments": [{"a": vec(), "b": vec(), "tag": rng.randint(-9, 9)}
                     for _ in range(rng.randint(0, 3))],
        "scores": [rng.uniform(-1, 1) for _ in range(rng.randint(0, 5))],
    }
    if rng.random() < 0.5:
        value["maybe"] = rng.randint(-100, 100)
    if rng.random() < 0.7:
        value["equipped_type"] = "Weapon"
        value["equipped"] = {"name": "Held", "damage": rng.randint(0, 9)}
    return value


COLORS = {"Red": 0, "Green": 1, "Blue": 2}


def perm_bits(perm: str | int) -> int:
    if isinstance(perm, int):
        return perm
    masks = {"Read": 1, "Write": 2, "Exec": 4}
    return sum(masks[p] for p in perm.split())


def read_official(gen: Any, buf: bytes) -> dict[str, Any]:
    m = gen.Monster.GetRootAs(buf, 0)

    def vec(v: Any) -> dict[str, float]:
        return {"x": v.X(), "y": v.Y(), "z": v.Z()}

    out: dict[str, Any] = {
        "pos": vec(m.Pos()), "mana": m.Mana(), "hp": m.Hp(), "name": m.Name().decode(),
        "inventory": [m.Inventory(i) for i in range(m.InventoryLength())],
        "color": m.Color(),
        "weapons": [{"name": m.Weapons(i).Name().decode(), "damage": m.Weapons(i).Damage()}
                    for i in range(m.WeaponsLength())],
        "path": [vec(m.Path(i)) for i in range(m.PathLength())],
        "i8": m.I8(), "u8": m.U8(), "i16": m.I16(), "u16": m.U16(), "i32": m.I32(),
        "u32": m.U32(), "i64": m.I64(), "u64": m.U64(), "f32": m.F32(), "f64": m.F64(),
        "flag": m.Flag(), "perm": m.Perm(),
        "tags": [m.Tags(i).decode() for i in range(m.TagsLength())],
        "segments": [{"a": vec(m.Segments(i).A(gen.Vec3())),
                      "b": vec(m.Segments(i).B(gen.Vec3())), "tag": m.Segments(i).Tag()}
                     for i in range(m.SegmentsLength())],
        "scores": [m.Scores(i) for i in range(m.ScoresLength())],
        "maybe": m.Maybe(),
    }
    if m.EquippedType() == gen.Equipment.Weapon:
        table = m.Equipped()
        held = gen.Weapon()
        held.Init(table.Bytes, table.Pos)
        out["equipped"] = {"name": held.Name().decode(), "damage": held.Damage()}
    return out


def expected(value: dict[str, Any]) -> dict[str, Any]:
    want = {k: v for k, v in value.items() if k != "equipped_type"}
    want["color"] = COLORS.get(want["color"], want["color"])
    want["perm"] = perm_bits(want["perm"])
    want.setdefault("maybe", None)
    return want


def test_official_generated_code_reads_our_buffers(tmp_path: Path) -> None:
    gen = generated(tmp_path)
    schema = load_schema(SCHEMA, filename="check.fbs")
    rng = random.Random(2026)
    for _ in range(200):
        value = random_monster(rng)
        buf = schema.encode(value)
        schema.verify(buf)
        got = read_official(gen, buf)
        want = expected(value)
        for key, item in want.items():
            if isinstance(item, float) and math.isnan(item):
                assert math.isnan(got[key])
            else:
                assert got[key] == item, key
        assert got["f32"] == value["f32"]


def test_official_generated_code_reads_the_seed_build(tmp_path: Path) -> None:
    gen = generated(tmp_path)
    schema = load_schema(SCHEMA, filename="check.fbs")
    buf = schema.from_json("""{ pos: {x: 1, y: 2, z: 3}, hp: 300, name: "Orc",
        inventory: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], color: Red,
        weapons: [{name: "Sword", damage: 3}, {name: "Axe", damage: 5}],
        equipped_type: Weapon, equipped: {name: "Axe", damage: 5},
        path: [{x: 1, y: 2, z: 3}, {x: 4, y: 5, z: 6}] }""")
    got = read_official(gen, buf)
    assert got["hp"] == 300 and got["name"] == "Orc" and got["mana"] == 150
    assert got["weapons"] == [{"name": "Sword", "damage": 3}, {"name": "Axe", "damage": 5}]
    assert got["equipped"] == {"name": "Axe", "damage": 5}
    assert got["path"] == [{"x": 1.0, "y": 2.0, "z": 3.0}, {"x": 4.0, "y": 5.0, "z": 6.0}]
