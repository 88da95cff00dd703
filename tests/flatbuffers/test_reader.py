"""The FlatBuffers reader (``gameserde.flatbuffers.views``, ``decoder`` and ``json_output``),
with flatc 25.12.19 as the oracle.

1. JSON -> ``flatc -b`` -> our :func:`to_json` must equal ``flatc --json [--strict-json]
   [--defaults-json]`` byte for byte, on hand-written schemas covering every type.
2. :func:`decode` must equal ``json.loads`` of flatc's strict JSON (flatc's bare nan/inf
   normalised, its lossy float text compared with its precision, enum names vs our ints).
3. :func:`view` attribute access and numpy views agree with :func:`decode`.
4. The seed Monster built with the official runtime (flatc-generated Python code) and read
   with ours, field by field.
5. Bad buffers: only :class:`DecodeError`, with byte offset and field path.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib.util
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import flatbuffers  # the official runtime from PyPI (ruff files it under tests/flatbuffers)
from gameserde.errors import DecodeError
from gameserde.flatbuffers import FbsSchema, load_schema
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.json_output import to_json
from gameserde.flatbuffers.views import (
    StructView,
    TableView,
    VectorView,
    enum_name,
    file_identifier,
    view,
)
from tests.flatbuffers.flatc_tool import flatc

# ------------------------------------------------------------------------------------------
# flatc


def flatc_build(tmp: Path, schema: str, doc: str, *, size_prefixed: bool = False) -> bytes:
    exe = flatc()
    (tmp / "s.fbs").write_text(schema, encoding="utf-8")
    (tmp / "d.json").write_text(doc, encoding="utf-8")
    args = [exe, "-b", "-o", str(tmp)]
    if size_prefixed:
        args.append("--size-prefixed")
    subprocess.run([*args, str(tmp / "s.fbs"), str(tmp / "d.json")], check=True,
                   capture_output=True)
    return (tmp / "d.bin").read_bytes()


def flatc_json(tmp: Path, data: bytes, *, strict: bool = True, defaults: bool = False,
               size_prefixed: bool = False) -> str:
    """What ``flatc --json`` prints for ``data`` (schema ``tmp/s.fbs``)."""
    exe = flatc()
    (tmp / "in.bin").write_bytes(data)
    out = tmp / "out"
    out.mkdir(exist_ok=True)
    args = [exe, "--json", "--raw-binary", "-o", str(out)]
    if strict:
        args.append("--strict-json")
    if defaults:
        args.append("--defaults-json")
    if size_prefixed:
        args.append("--size-prefixed")
    subprocess.run([*args, str(tmp / "s.fbs"), "--", str(tmp / "in.bin")], check=True,
                   capture_output=True)
    return (out / "in.json").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------
# Comparisons

_BARE = re.compile(r"(?<=[\s:\[])(-?(?:nan|inf))(?=\s*[,\n\]}])")


def load_flatc_json(text: str) -> Any:
    """flatc's strict JSON with bare nan/inf turned into the strings "nan", "-inf" ..."""
    return json.loads(_BARE.sub(r'"\1"', text))


# Deprecated fields of the schemas below: flatc --json prints them when present, decode()
# leaves them out (no verifier checks them, so they may hold anything).
DEPRECATED = {"dep", "old", "friendly"}


def same_as_flatc(ours: Any, theirs: Any, path: str = "$") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), path
        theirs = {k: v for k, v in theirs.items() if k not in DEPRECATED}
        assert list(ours) == list(theirs), path
        for k in theirs:
            same_as_flatc(ours[k], theirs[k], f"{path}.{k}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            same_as_flatc(a, b, f"{path}[{i}]")
    elif isinstance(ours, float):
        if isinstance(theirs, str):  # nan / inf
            assert math.isnan(ours) or math.isinf(ours), path
            assert theirs.lstrip("-") == ("nan" if math.isnan(ours) else "inf"), path
            if math.isinf(ours):
                assert theirs.startswith("-") == (ours < 0), path
        else:  # flatc prints 6 or 12 decimals
            assert abs(ours - theirs) <= 1e-6 * max(1.0, abs(theirs)), path
    elif isinstance(theirs, str) and isinstance(ours, int) and not isinstance(ours, bool):
        assert theirs and not theirs.lstrip("-").isdigit(), path  # an enum name
    else:
        assert ours == theirs and type(ours) is type(theirs), path


def same_value(a: Any, b: Any, path: str = "$") -> None:
    """``a`` (read through a view) equals ``b`` (decoded), NaN equal to NaN."""
    if isinstance(a, TableView | StructView):
        assert isinstance(b, dict), path
        for k, v in b.items():
            same_value(getattr(a, k), v, f"{path}.{k}")
    elif isinstance(a, VectorView):
        assert isinstance(b, list) and len(a) == len(b), path
        items = list(a)
        for i, (x, y) in enumerate(zip(items, b, strict=True)):
            same_value(x, y, f"{path}[{i}]")
        if b:
            same_value(a[-1], b[-1], f"{path}[-1]")
            same_value(a[0], b[0], f"{path}[0]")
            assert len(a[1:]) == len(b) - 1
        with pytest.raises(IndexError):
            a[len(b)]
        if a._el.dtype is not None:
            arr = a.numpy()
            assert arr.shape == (len(b),) and not arr.flags.owndata
            same_numpy(arr, b, path)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_value(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), path
    else:
        assert a == b, path


def same_numpy(arr: Any, b: Any, path: str) -> None:
    if isinstance(b, dict):
        for k, v in b.items():
            same_numpy(arr[k], v, f"{path}.{k}")
    elif isinstance(b, list):
        assert len(arr) == len(b), path
        for i, y in enumerate(b):
            same_numpy(arr[i], y, f"{path}[{i}]")
    else:
        x = arr.item() if hasattr(arr, "item") else arr
        if isinstance(b, float) and math.isnan(b):
            assert math.isnan(x), path
        else:
            assert x == b, path


def check_all(tmp: Path, schema_text: str, doc: str, *, root: str | None = None,
              size_prefixed: bool = False) -> tuple[FbsSchema, bytes]:
    """Every comparison of the module docstring for one JSON document."""
    data = flatc_build(tmp, schema_text, doc, size_prefixed=size_prefixed)
    schema = load_schema(tmp / "s.fbs")
    for strict in (True, False):
        for defaults in (False, True):
            expected = flatc_json(tmp, data, strict=strict, defaults=defaults,
                                  size_prefixed=size_prefixed)
            got = to_json(schema, data, root, strict=strict, defaults=defaults,
                          size_prefixed=size_prefixed)
            assert got == expected, (strict, defaults)
            if strict:
                decoded = decode(schema, data, root, defaults=defaults,
                                 size_prefixed=size_prefixed)
                json.dumps(decoded)  # JSON-able: no bytes, no views
                same_as_flatc(decoded, load_flatc_json(expected))
    full = decode(schema, data, root, defaults=True, size_prefixed=size_prefixed)
    same_value(view(schema, data, root, size_prefixed=size_prefixed), full)
    return schema, data


# ------------------------------------------------------------------------------------------
# 1-3. Every type, against flatc

ALL_SCHEMA = r"""
namespace T;
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
enum Big : ulong { Zero = 0, Huge = 18446744073709551615 }
enum Flags : ubyte (bit_flags) { A, B, C }
enum FlagsZ : ushort (bit_flags) { None = 0, X = 3, Y }
struct Inner { a:byte; b:double; }
struct S { x:float; i:Inner; arr:[int:3]; cs:[Color:2]; }
struct Holder { ins:[Inner:2]; flag:bool; }
struct Tiny { v:ubyte; }
table W { name:string; d:short = 5; }
table E {}
union U { W, S, str:string, Tiny }
table M {
  b:bool; i8:byte = -1; u8:ubyte = 200; i16:short; u16:ushort; i32:int; u32:uint = 7;
  i64:long = -5; u64:ulong; f:float = nan; d:double = inf; dn:double = -inf;
  f2:float = 3.25; c:Color = Blue; fl:Flags; flz:FlagsZ = Y; big:Big;
  o:int = null; ob:bool = null; oc:Color = null; of:double = null;
  s:S; h:Holder; name:string; vs:[string]; vw:[W]; vst:[S]; vi:[int]; e:E; ev:[ubyte];
  vb:[bool]; vf:[float]; vd:[double]; vl:[long]; vul:[ulong]; vc:[Color]; vfl:[Flags];
  vin:[Inner]; vt:[Tiny];
  u:U; uv:[U]; dep:int (deprecated); nf:[ubyte] (nested_flatbuffer: "W"); w:W;
  i8m:byte; i16m:short; hex:uint;
}
root_type M;
file_identifier "TEST";
"""

ALL_DOCS = [
    "{}",
    r"""{ b: true, i8: -128, u8: 255, i16: -32768, u16: 65535, i32: -2147483648,
      u32: 4294967295, i64: -9223372036854775808, u64: 18446744073709551615,
      f: 1.5, d: -inf, dn: nan, f2: 1e-7, c: Green, fl: "A C", flz: "X Y", big: Huge,
      o: 0, ob: false, oc: Red, of: -0.0,
      s: {x: 0.1, i: {a: 1, b: 1e300}, arr: [1, -2, 3], cs: [Red, Blue]},
      h: {ins: [{a: -1, b: 0.5}, {a: 2, b: -1e-13}], flag: true},
      name: "h\u00e9\n\t\r\b\f\"\\\u0001\u007f\u0080\u07ff\uffff😀/<>&'",
      vs: ["a", "", "日本語", "\u0000x"], vw: [{name: "x"}, {d: 9}, {}],
      vst: [{x: 1, i: {a: 1, b: 2}, arr: [0, 0, 0], cs: [Green, 5]}], vi: [], e: {},
      ev: [], vb: [true, false, true], vf: [1.0, -2.5, 3.4028234e38, 1e-45, nan, -inf],
      vd: [0.1, 123456789.123456789, -1e-300, 1e22], vl: [-1, 9223372036854775807],
      vul: [18446744073709551615], vc: [Red, Blue, 7, -3], vfl: [1, 3, 0, 8, 255],
      vin: [{a: 1, b: 2.5}, {a: -2, b: -0.0}], vt: [{v: 1}, {v: 255}],
      u_type: S, u: {x: 1, i: {a: 1, b: 2}, arr: [4, 5, 6], cs: [Red, Red]},
      uv_type: [W, str, S, Tiny], uv: [{name: "q"}, "zz", {x: 2, i: {a: 0, b: 0},
      arr: [7, 8, 9], cs: [Blue, Green]}, {v: 3}],
      dep: 4, nf: {name: "nested", d: 1}, w: {name: "ww", d: 5}, i8m: 127, i16m: 32767,
      hex: 0xDEADBEEF }""",
    r"""{ f: 0.0, d: 1.0, f2: 3.25, fl: 0, flz: 0, c: 9, u_type: str, u: "only a string",
      vs: [], vw: [], vst: [], uv_type: [], uv: [], name: "" }""",
    r"""{ u_type: W, u: {name: "weapon", d: 0}, fl: 7, flz: 4, i8: -1, u8: 200,
      vf: [0.30000001192092896, 100.0, 1234567.875, -0.000001], f: 16777216.0,
      d: 0.000000000001, dn: 123.456, s: {x: -0.0, i: {a: 0, b: nan},
      arr: [0, 0, 0], cs: [Red, Red]}, w: {} }""",
    r"""{ u_type: Tiny, u: {v: 42}, vd: [1e300, 5e-324, 2.5e-7], vf: [1e38, 3e-8] }""",
]


@pytest.mark.parametrize("index", range(len(ALL_DOCS)))
def test_every_type_matches_flatc(tmp_path: Path, index: int) -> None:
    _, data = check_all(tmp_path, ALL_SCHEMA, ALL_DOCS[index])
    assert file_identifier(data) == "TEST"


def test_views_of_every_type(tmp_path: Path) -> None:
    schema, data = check_all(tmp_path, ALL_SCHEMA, ALL_DOCS[1])
    m = view(schema, data)
    assert m.name.startswith("hé\n")
    assert m.s.i.b == 1e300 and m.s.arr == [1, -2, 3]
    assert m.h.ins[1].a == 2 and m.h.flag is True
    assert m.c == 1 and enum_name(m, "c") == "Green"
    assert enum_name(m, "fl") == "A C" and enum_name(m, "big") == "Huge"
    assert enum_name(m, "u_type") == "S"
    assert isinstance(m.u, StructView) and m.u.arr == [4, 5, 6]
    assert m.uv[1] == "zz" and m.uv[0].name == "q" and m.uv[3].v == 3
    assert m.nf.name == "nested" and m.nf.d == 1
    assert m.dep == 4
    assert m.vin.numpy()["b"].tolist() == [2.5, -0.0]
    assert m.vst.numpy()["i"]["b"].tolist() == [2.0]
    assert m.vst.numpy()["arr"].tolist() == [[0, 0, 0]]
    assert m.vi.numpy().dtype == np.dtype("<i4")
    assert [w.d for w in m.vw] == [5, 9, 5]
    assert m.vs[1:] == ["", "日本語", "\x00x"]
    with pytest.raises(TypeError):
        m.vs.numpy()
    empty = view(schema, flatc_build(tmp_path, ALL_SCHEMA, "{}"))
    assert (empty.i8, empty.u8, empty.u32, empty.c, empty.flz) == (-1, 200, 7, 2, 16)
    assert math.isnan(empty.f) and empty.d == math.inf and empty.dn == -math.inf
    assert empty.o is None and empty.oc is None and empty.name is None
    assert empty.vs is None and empty.s is None and empty.u is None and empty.nf is None
    assert enum_name(empty, "u_type") == "NONE"


OPTIONAL_SCHEMA = """
enum E : int { A = 1, B = 2 }
table O { a:int = null; b:float = null; c:E = null; d:bool = null; e:long = 3; }
root_type O;
"""


@pytest.mark.parametrize("doc", ["{}", "{a: 0, b: 0, c: A, d: false, e: 3}",
                                 "{a: -1, b: nan, c: 7, d: true, e: 4}"])
def test_optional_scalars(tmp_path: Path, doc: str) -> None:
    check_all(tmp_path, OPTIONAL_SCHEMA, doc)


ID_SCHEMA = """
table P { c:int (id: 2); a:string (id: 0); b:short = 4 (id: 1);
  old:int (id: 3, deprecated); }
table R { p:P; ps:[P]; }
root_type R;
"""


@pytest.mark.parametrize("doc", ["{p: {c: 1, a: \"x\", b: 2, old: 9}, ps: [{}, {c: 5}]}",
                                 "{p: {}}"])
def test_id_order_and_deprecated(tmp_path: Path, doc: str) -> None:
    check_all(tmp_path, ID_SCHEMA, doc)


def test_size_prefixed(tmp_path: Path) -> None:
    schema, data = check_all(tmp_path, ALL_SCHEMA, ALL_DOCS[3], size_prefixed=True)
    assert int.from_bytes(data[:4], "little") == len(data) - 4
    assert file_identifier(data, size_prefixed=True) == "TEST"
    assert view(schema, data, size_prefixed=True).u.name == "weapon"


def test_nested_root_type_and_memoryview(tmp_path: Path) -> None:
    schema, data = check_all(tmp_path, ALL_SCHEMA, ALL_DOCS[1])
    m = view(schema, memoryview(bytearray(data)))
    assert m.w.name == "ww"
    assert to_json(schema, data, "M") == to_json(schema, data, "T.M")


# ------------------------------------------------------------------------------------------
# decode into dataclasses


@dataclasses.dataclass
class Weapon:
    name: str | None = None
    damage: int = 0


@dataclasses.dataclass
class Vec3:
    x: float
    y: float
    z: float


@dataclasses.dataclass
class Monster:
    pos: Vec3 | None = None
    mana: int = 150
    hp: int = 100
    name: str | None = None
    inventory: list[int] = dataclasses.field(default_factory=list)
    color: int = 2
    weapons: list[Weapon] = dataclasses.field(default_factory=list)
    equipped_type: int = 0
    equipped: Weapon | None = None
    path: list[Vec3] = dataclasses.field(default_factory=list)


def test_decode_into_dataclasses() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    m = decode(schema, base64.b64decode(SEED_BASE64), cls=Monster, defaults=True)
    assert m == Monster(Vec3(1, 2, 3), 150, 300, "Orc", list(range(10)), 0,
                        [Weapon("Sword", 3), Weapon("Axe", 5)], 1, Weapon("Axe", 5),
                        [Vec3(4, 5, 6), Vec3(1, 2, 3)])  # the seed's path order


# ------------------------------------------------------------------------------------------
# 4. The official runtime (flatc-generated Python code) writes, we read

SEED_SCHEMA = """namespace MyGame.Sample;
table Weapon { name:string; damage:short; }
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
union Equipment { Weapon }
struct Vec3 { x:float; y:float; z:float; }
table Monster { pos:Vec3; mana:short = 150; hp:short = 100; name:string;
  friendly:bool = false (deprecated); inventory:[ubyte]; color:Color = Blue;
  weapons:[Weapon]; equipped:Equipment (required); path:[Vec3]; }
root_type Monster;
"""

# The seed's blob (shared/seeds/flatbuffers-csharp-serialization.txt, after "Serialize:").
SEED_BASE64 = (
    "IAAAAAAAGgAwACQAAAAiABwAAAAYABYAEAAPAAgABAAaAAAALAAAAFAAAAAAAAABPAAAAAAAAAB0AAAAgAAAAAAA"
    "LAEAAIA/AAAAQAAAQEACAAAAAACAQAAAoEAAAMBAAACAPwAAAEAAAEBAAgAAACQAAAAEAAAA7P///wAABQAEAAAA"
    "AwAAAEF4ZQAIAAwACAAGAAgAAAAAAAMABAAAAAUAAABTd29yZAAAAAoAAAAAAQIDBAUGBwgJAAADAAAAT3JjAA=="
)


def generated(tmp: Path) -> Any:
    exe = flatc()
    (tmp / "seed.fbs").write_text(SEED_SCHEMA)
    subprocess.run([exe, "--python", "--gen-onefile", "-o", str(tmp), str(tmp / "seed.fbs")],
                   check=True, capture_output=True)
    path = next(tmp.glob("*_generated.py"))
    spec = importlib.util.spec_from_file_location("seed_generated_test", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["seed_generated_test"] = mod
    spec.loader.exec_module(mod)
    return mod


def official_fields(gen: Any, buf: bytes) -> dict[str, Any]:
    m = gen.Monster.GetRootAs(buf, 0)
    t = m.Equipped()
    eq = gen.Weapon()
    eq.Init(t.Bytes, t.Pos)
    return {
        "pos": (m.Pos().X(), m.Pos().Y(), m.Pos().Z()), "mana": m.Mana(), "hp": m.Hp(),
        "name": m.Name().decode(), "inventory": m.InventoryAsNumpy().tolist(),
        "color": m.Color(),
        "weapons": [(m.Weapons(i).Name().decode(), m.Weapons(i).Damage())
                    for i in range(m.WeaponsLength())],
        "equipped_type": m.EquippedType(), "equipped": (eq.Name().decode(), eq.Damage()),
        "path": [(m.Path(i).X(), m.Path(i).Y(), m.Path(i).Z()) for i in range(m.PathLength())],
    }


def our_fields(schema: FbsSchema, buf: bytes) -> dict[str, Any]:
    m = view(schema, buf)
    return {
        "pos": (m.pos.x, m.pos.y, m.pos.z), "mana": m.mana, "hp": m.hp, "name": m.name,
        "inventory": list(m.inventory), "color": m.color,
        "weapons": [(w.name, w.damage) for w in m.weapons],
        "equipped_type": m.equipped_type, "equipped": (m.equipped.name, m.equipped.damage),
        "path": [(p.x, p.y, p.z) for p in m.path],
    }


def official_build(gen: Any, rng: random.Random) -> tuple[bytes, dict[str, Any]]:
    b = flatbuffers.Builder(0)
    name = rng.choice(["Orc", "", "Ünïcödé 😀", "x" * 50])
    weapons = [(rng.choice(["Sword", "Axe", "Bow"]), rng.randint(-32768, 32767))
               for _ in range(rng.randint(0, 4))]
    inventory = [rng.randint(0, 255) for _ in range(rng.randint(0, 20))]
    path = [tuple(float(np.float32(rng.uniform(-1e6, 1e6))) for _ in range(3))
            for _ in range(rng.randint(0, 5))]
    pos = tuple(float(np.float32(rng.uniform(-10, 10))) for _ in range(3))
    mana, hp, color = rng.randint(-32768, 32767), rng.randint(-32768, 32767), rng.randint(0, 2)
    name_off = b.CreateString(name)
    inv = b.CreateNumpyVector(np.array(inventory, dtype=np.uint8))
    w_offs = []
    for wname, dmg in weapons:
        wn = b.CreateString(wname)
        gen.WeaponStart(b)
        gen.WeaponAddName(b, wn)
        gen.WeaponAddDamage(b, dmg)
        w_offs.append(gen.WeaponEnd(b))
    en = b.CreateString("Equipped")
    gen.WeaponStart(b)
    gen.WeaponAddName(b, en)
    gen.WeaponAddDamage(b, 77)
    eq = gen.WeaponEnd(b)
    gen.MonsterStartWeaponsVector(b, len(w_offs))
    for off in reversed(w_offs):
        b.PrependUOffsetTRelative(off)
    wv = b.EndVector()
    gen.MonsterStartPathVector(b, len(path))
    for x, y, z in reversed(path):
        gen.CreateVec3(b, x, y, z)
    pv = b.EndVector()
    gen.MonsterStart(b)
    gen.MonsterAddPos(b, gen.CreateVec3(b, *pos))
    gen.MonsterAddMana(b, mana)
    gen.MonsterAddHp(b, hp)
    gen.MonsterAddName(b, name_off)
    gen.MonsterAddInventory(b, inv)
    gen.MonsterAddColor(b, color)
    gen.MonsterAddWeapons(b, wv)
    gen.MonsterAddEquippedType(b, 1)
    gen.MonsterAddEquipped(b, eq)
    gen.MonsterAddPath(b, pv)
    b.Finish(gen.MonsterEnd(b))
    expected = {"pos": pos, "mana": mana, "hp": hp, "name": name, "inventory": inventory,
                "color": color, "weapons": weapons, "equipped_type": 1,
                "equipped": ("Equipped", 77), "path": path}
    return bytes(b.Output()), expected


def test_official_runtime_writes_we_read(tmp_path: Path) -> None:
    gen = generated(tmp_path)
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(SEED_BASE64)
    assert our_fields(schema, seed) == official_fields(gen, seed)
    assert our_fields(schema, seed)["weapons"] == [("Sword", 3), ("Axe", 5)]
    rng = random.Random(1234)
    for _ in range(50):
        buf, expected = official_build(gen, rng)
        ours = our_fields(schema, buf)
        assert ours == official_fields(gen, buf) == expected
        m = view(schema, buf)
        assert m.path.numpy().tolist() == expected["path"]
        assert m.inventory.numpy().tolist() == expected["inventory"]
        d = decode(schema, buf)
        assert d["weapons"] == [{"name": n, "damage": w} for n, w in expected["weapons"]]


def test_seed_json_matches_flatc(tmp_path: Path) -> None:
    flatc()
    (tmp_path / "s.fbs").write_text(SEED_SCHEMA)
    seed = base64.b64decode(SEED_BASE64)
    schema = load_schema(tmp_path / "s.fbs")
    for defaults in (False, True):
        assert to_json(schema, seed, defaults=defaults) == flatc_json(tmp_path, seed,
                                                                      defaults=defaults)


# ------------------------------------------------------------------------------------------
# 5. Bad input: DecodeError only, with offset and path


def test_error_names_offset_and_path() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    seed = bytearray(base64.b64decode(SEED_BASE64))
    m = view(schema, seed)
    w = m.weapons[1]
    # make the second weapon's name offset point far outside the buffer
    name_slot = w._t + int.from_bytes(seed[w._vt + 4:w._vt + 6], "little")
    seed[name_slot:name_slot + 4] = (10_000).to_bytes(4, "little")
    with pytest.raises(DecodeError) as info:
        decode(schema, bytes(seed))
    assert info.value.path == "$.weapons[1].name"
    assert info.value.offset is not None
    assert "$.weapons[1].name" in str(info.value)
    with pytest.raises(DecodeError):
        view(schema, bytes(seed)).weapons[1].name  # noqa: B018
    with pytest.raises(DecodeError):
        to_json(schema, bytes(seed))
    with pytest.raises(DecodeError):
        view(schema, b"\x01")
    with pytest.raises(DecodeError):
        view(schema, b"\xff\xff\x00\x00")
    with pytest.raises(DecodeError):
        view(schema, b"\x08\x00\x00\x00", size_prefixed=True)


def test_random_corruption_only_raises_decode_error(tmp_path: Path) -> None:
    data = flatc_build(tmp_path, ALL_SCHEMA, ALL_DOCS[1])
    schema = load_schema(tmp_path / "s.fbs")
    rng = random.Random(7)
    failures = 0
    for _ in range(1500):
        buf = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(buf))
            buf[i] = rng.randrange(256)
        if rng.random() < 0.1:
            buf = buf[:rng.randrange(len(buf))]
        try:
            to_json(schema, bytes(buf))
            decode(schema, bytes(buf), defaults=True)
        except DecodeError:
            failures += 1
    assert failures > 0


def test_deep_nesting_is_a_decode_error() -> None:
    schema = load_schema("table N { n:N; } root_type N;", filename="n.fbs")
    from gameserde.flatbuffers import Builder

    b = Builder()
    child = 0
    for _ in range(3000):
        b.start_object(1)
        if child:
            b.prepend_uoffset_relative_slot(0, child, 0)
        child = b.end_object()
    b.finish(child)
    data = bytes(b.output())
    with pytest.raises(DecodeError):
        decode(schema, data)
    with pytest.raises(DecodeError):
        to_json(schema, data)
    v = view(schema, data)
    for _ in range(2999):
        v = v.n
    assert v.n is None


def test_unknown_union_type(tmp_path: Path) -> None:
    data = bytearray(flatc_build(tmp_path, ALL_SCHEMA, ALL_DOCS[3]))
    schema = load_schema(tmp_path / "s.fbs")
    m = view(schema, data)
    slot = schema.table("M").field("u_type").attributes["flatbuffers.voffset"]
    at = m._t + int.from_bytes(data[m._vt + slot:m._vt + slot + 2], "little")
    assert data[at] == 1  # W
    data[at] = 99
    m = view(schema, bytes(data))
    assert m.u_type == 99 and m.u is None and enum_name(m, "u_type") is None
    assert decode(schema, bytes(data))["u"] is None
    with pytest.raises(DecodeError, match="unknown"):
        to_json(schema, bytes(data))


# ------------------------------------------------------------------------------------------
# Vectors of unions, hash fields and 64-bit offsets

UNION_VECTOR_SCHEMA = """
struct P { a:short; b:double; }
table X { v:int; s:string; }
table Y { w:short; }
union U { X, Y, P, Str: string }
table T { a:[U] (id: 1); b:[U] (id: 3); c:U (id: 5); n:int (id: 6); }
root_type T;
"""


@pytest.mark.parametrize("doc", [
    '{a_type: [X, Y, P, Str, 1], a: [{v: 1, s: "x"}, {w: 2}, {a: 3, b: 4.5}, "str", {}], '
    'b_type: [Str, Str], b: ["p", "q"], n: 7}',
    "{a_type: [], a: [], b_type: [Y], b: [{}], c_type: P, c: {a: 1, b: 2}}",
    "{a_type: [Y, X, X], a: [{w: 5}]}",
])
def test_union_vectors(tmp_path: Path, doc: str) -> None:
    schema, data = check_all(tmp_path, UNION_VECTOR_SCHEMA, doc)
    t = view(schema, data)
    if t.a is not None and len(t.a):
        assert len(t.a_type) >= len(t.a)
        assert all(x is not None for x in t.a)


def test_union_vector_longer_than_its_types(tmp_path: Path) -> None:
    # flatc -b takes a's tags from b_type (same union, higher id), so a_type ends up shorter
    # than a: flatc --json aborts on this file, the reader raises DecodeError
    data = flatc_build(tmp_path, UNION_VECTOR_SCHEMA,
                       "{b_type: [Y, P], a_type: [X], a: [{w: 1}, {a: 1, b: 2}], b: [{w: 3}]}")
    schema = load_schema(tmp_path / "s.fbs")
    t = view(schema, data)
    assert len(t.a_type) == 1 and len(t.a) == 2 and t.b[0].w == 3
    with pytest.raises(DecodeError, match="longer than its type vector") as exc:
        to_json(schema, data)
    assert exc.value.path == "$.a[1]"


HASH_SCHEMA = """
table H { a:uint (hash: "fnv1_32"); b:uint (hash: "fnv1a_32"); c:ulong (hash: "fnv1_64");
  d:long (hash: "fnv1a_64"); g:int (hash: "fnv1a_32"); v:[uint] (hash: "fnv1a_32"); }
root_type H;
"""


def test_hash_fields_print_numbers(tmp_path: Path) -> None:
    schema, data = check_all(tmp_path, HASH_SCHEMA,
                             '{a: "hello", b: "hello", c: "hello", d: "hello", g: "hello", '
                             'v: ["x", 3]}')
    assert decode(schema, data) == {"a": 3069866343, "b": 1335831723,
                                    "c": 5166396678891262055, "d": -7307811276060410197,
                                    "g": 1335831723, "v": [4245442695, 3]}


OFFSET64_SCHEMA = """
struct V { a:short; b:double; }
table Leaf { x:int; s:string (offset64); }
table T { n:int; s:string (offset64); bv:[ubyte] (offset64); name:string;
  sv:[V] (offset64); w:[ubyte]; leaf:Leaf; fv:[float] (offset64); ls:[Leaf]; }
root_type T;
file_identifier "SIXF";
"""


@pytest.mark.parametrize("doc", [
    '{n: 7, s: "hello", bv: [1, 2, 3], name: "nm", sv: [{a: 1, b: 2}], w: [9], '
    'leaf: {x: 1, s: "in"}, fv: [1.5, -2], ls: [{s: "a"}, {x: 2}]}',
    '{name: "first", s: "second64", w: [1], bv: [2]}',
    '{s: "", bv: [], sv: [], fv: []}',
])
def test_offset64_matches_flatc(tmp_path: Path, doc: str) -> None:
    schema, data = check_all(tmp_path, OFFSET64_SCHEMA, doc)
    t = view(schema, data)
    assert t.s is not None and t.bv is not None
    if len(t.bv):
        assert t.bv.numpy().tolist() == list(t.bv)


VECTOR64_SCHEMA = """
struct V { a:short; b:double; }
table T { lv:[long] (vector64); vv:[V] (vector64); dv:[double] (vector64); n:int;
  iv:[int] (vector64); }
root_type T;
"""


def test_vector64_reads_its_layout(tmp_path: Path) -> None:
    # flatc --json aborts on vector64 fields (JsonPrinter::PrintOffset asserts), so these
    # are checked against the values: 8-byte length, data at +8. Vectors of 8-byte elements
    # are what flatc -b writes correctly (see test_encoder for the 4-byte element quirk).
    doc = "{lv: [1, -2, 9223372036854775807], vv: [{a: 1, b: 2.5}], dv: [], n: 3}"
    data = flatc_build(tmp_path, VECTOR64_SCHEMA, doc)
    schema = load_schema(tmp_path / "s.fbs")
    assert decode(schema, data) == {"lv": [1, -2, 9223372036854775807],
                                    "vv": [{"a": 1, "b": 2.5}], "dv": [], "n": 3}
    t = view(schema, data)
    assert t.lv.numpy().tolist() == [1, -2, 9223372036854775807]
    assert t.vv[0].b == 2.5 and len(t.dv) == 0 and t.iv is None
    assert to_json(schema, data, strict=False) == (
        "{\n  lv: [\n    1,\n    -2,\n    9223372036854775807\n  ],\n"
        "  vv: [\n    {\n      a: 1,\n      b: 2.5\n    }\n  ],\n  dv: [\n\n  ],\n  n: 3\n}\n")
    # a bad 64-bit offset is a DecodeError naming the field
    m = view(schema, data)
    slot = schema.table("T").field("lv").attributes["flatbuffers.voffset"]
    at = m._t + int.from_bytes(data[m._vt + slot:m._vt + slot + 2], "little")
    bad = bytearray(data)
    bad[at:at + 8] = (1 << 40).to_bytes(8, "little")
    with pytest.raises(DecodeError, match="64-bit offset") as exc:
        decode(schema, bytes(bad))
    assert exc.value.path == "$.lv"
