"""A corpus over the five formats for the batch tests and benchmarks: thousands of small files
in nested folders, a few large ones and some corrupt ones, the same bytes for the same seed.

    python scripts/make_batch_corpus.py OUT                  # 10,000 small files in all
    python scripts/make_batch_corpus.py OUT --per-format 200 --large 0 --corrupt 3 --seed 7

Every valid file is written by gameserde's own encoders from generated values: JSON values
through ``codec.from_jsonable`` and ``codec.encode`` (Godot: its Python values, as a game's
``store_var`` calls make them), with the schemas of the shared corpora beside the project
(``../shared/corpus``): FlatBuffers' own ``monster_test.fbs`` (uint64, float32, enums, bit
flags, unions, vectors, structs), the Zeze solution of Zeze's unit tests (every field kind in
one bean: maps, sets, dynamics, beankeys, vectors), katsuba's KingsIsle type list (every
scalar, bit integers, enums, nested objects, lists), and for O3DE the engine registry's
prefabs. The corpus is split in sets, each read with one codec's options: Godot has one set
per engine generation (``godot/godot4``, ``godot/godot3``), the other formats one each.

Corrupt files are valid ones cut short (``truncated``) or with bytes a reader must refuse
(``bad bytes``), kept under ``bad/`` folders of each set; the manifest says, for each, how it
was damaged. ``manifest.json`` at the root (also what :func:`make_corpus` returns) lists every
set: its format, folder, codec options, the written side's options of a conversion
(``to``) and those that convert its output back (``back``), and its valid, large and corrupt
files by key (the path below the set's folder).
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gameserde
from gameserde import godot as g

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
FB_SCHEMA = SHARED / "flatbuffers-real" / "fb_json_monsterdata_test" / "schema"
ZEZE_SOLUTION = SHARED / "zeze-real" / "old_unittest" / "schema" / "UnitTest" / "solution.xml"
KI_TYPES = SHARED / "kingsisle-real" / "types" / "fixtures_types.json"

Manifest = dict[str, Any]


def make_corpus(root: str | Path, *, per_format: int = 2000, large: int = 3 << 20,
                corrupt: int = 10, seed: int = 0) -> Manifest:
    """Write the corpus under ``root``: ``per_format`` small valid files per format on
    average (five times as many in all, shared between the sets as :data:`_SETS` says), one
    large input of about ``large`` bytes per set (none when 0) and ``corrupt`` damaged files
    per set; return the manifest (also written to ``root/manifest.json``)."""
    root = Path(root)
    sets = []
    for name, share, maker in _SETS:
        rng = random.Random(f"{seed}:{name}")
        sets.append(maker(root, rng, max(1, round(per_format * share)), large, corrupt))
    manifest = {"seed": seed, "sets": sets}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


class _Writer:
    """Writes one set's files and keeps its manifest entry."""

    def __init__(self, root: Path, name: str, format: str, folder: str,
                 options: dict[str, Any], to: dict[str, Any], back: dict[str, Any]) -> None:
        self.dir = root / folder
        self.codec = gameserde.codec(format, **options)
        self.entry: dict[str, Any] = {"name": name, "format": format, "dir": folder,
                                      "options": options, "to": to, "back": back,
                                      "files": [], "large": [], "corrupt": {}}
        self.made: set[Path] = set()

    def put(self, key: str, data: bytes, *, large: bool = False) -> None:
        path = self.dir / key
        if path.parent not in self.made:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(path.parent)
        path.write_bytes(data)
        self.entry["files"].append(key)
        if large:
            self.entry["large"].append(key)

    def damage(self, rng: random.Random, count: int, valid: list[bytes],
               bad_bytes: Callable[[bytes], tuple[bytes, int]], suffix: str) -> None:
        """``count`` corrupt files from the ``valid`` ones: every other one cut short at a
        random point, the others with ``bad_bytes`` (which returns the data and where it
        damaged it)."""
        for i in range(count):
            data = rng.choice(valid)
            if i % 2 == 0:
                cut = rng.randrange(1, len(data))
                bad, how = data[:cut], {"kind": "truncated", "size": cut}
            else:
                bad, at = bad_bytes(data)
                how = {"kind": "bad bytes", "at": at}
            key = f"bad/{i % 3}/broken{i:03}{suffix}"
            path = self.dir / key
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(bad)
            self.entry["corrupt"][key] = how


def _folder(rng: random.Random, i: int) -> str:
    """A nested folder for the ``i``th file: two or three levels, some of them shared."""
    depth = 2 + i % 2
    return "/".join(f"{'abcdefgh'[rng.randrange(8)]}{rng.randrange(4)}" for _ in range(depth))


def _f32(x: float) -> float:
    """``x`` rounded to a float32."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def _word(rng: random.Random) -> str:
    syllables = ("ka", "ri", "to", "mé", "su", "lo", "än", "x", "zu", "中", "dr", "ae")
    return "".join(rng.choice(syllables) for _ in range(rng.randrange(1, 5)))


# ---------------------------------------------------------------------------------------------
# Godot: store_var saves of many Variant types, for each engine generation


def _godot_value(rng: random.Random, profile: str, depth: int = 0) -> Any:
    """A Variant the profile has: scalars, math types, strings, paths, packed arrays,
    containers (typed ones on Godot 4)."""
    four = profile == "godot4"

    def real() -> float:
        return _f32(rng.uniform(-1e4, 1e4))

    def v3() -> Any:
        return g.Vector3(real(), real(), real())

    def v4() -> Any:
        return g.Vector4(real(), real(), real(), real())

    def small() -> int:
        return rng.randrange(-(1 << 31), 1 << 31)

    makers: list[Callable[[], Any]] = [
        lambda: None, lambda: rng.random() < 0.5, small,
        lambda: rng.randrange(-(1 << 63), 1 << 63),
        lambda: rng.choice([rng.uniform(-1e9, 1e9), real(), float(rng.randrange(100))]),
        lambda: _word(rng),
        lambda: g.Vector2(real(), real()), v3,
        lambda: g.Rect2(g.Vector2(real(), real()), g.Vector2(real(), real())),
        lambda: g.Transform2D(g.Vector2(real(), real()), g.Vector2(real(), real()),
                              g.Vector2(real(), real())),
        lambda: g.Plane(v3(), real()), lambda: g.Quaternion(real(), real(), real(), real()),
        lambda: g.AABB(v3(), v3()), lambda: g.Basis(v3(), v3(), v3()),
        lambda: g.Transform3D(g.Basis(v3(), v3(), v3()), v3()),
        lambda: g.Color(_f32(rng.random()), _f32(rng.random()), _f32(rng.random()), 1.0),
        lambda: g.NodePath.parse(rng.choice(["/root/Main/Player:position", "Enemy",
                                             "../HUD/Label:text", "/root/World"])),
        lambda: g.RID(rng.randrange(1, 1 << 40) if four else 0),
        lambda: g.EncodedObjectAsID(rng.randrange(1, 1 << 63)),
        lambda: bytes(rng.randrange(256) for _ in range(rng.randrange(12))),
        lambda: g.PackedInt32Array([small() for _ in range(rng.randrange(6))]),
        lambda: g.PackedFloat32Array([real() for _ in range(rng.randrange(6))]),
        lambda: g.PackedStringArray([_word(rng) for _ in range(rng.randrange(4))]),
        lambda: g.PackedVector2Array([(real(), real()) for _ in range(rng.randrange(4))]),
        lambda: g.PackedVector3Array([tuple(v3()) for _ in range(rng.randrange(4))]),
        lambda: g.PackedColorArray([(0.5, 0.25, 1.0, 1.0)] * rng.randrange(3)),
    ]
    if four:
        makers += [
            lambda: g.Vector2i(small(), small()), lambda: g.Vector3i(small(), small(), small()),
            lambda: g.Vector4i(small(), small(), small(), small()), v4,
            lambda: g.Rect2i(g.Vector2i(small(), small()), g.Vector2i(small(), small())),
            lambda: g.Projection(v4(), v4(), v4(), v4()),
            lambda: g.StringName(_word(rng)), lambda: g.Signal(_word(rng), rng.randrange(1, 999)),
            lambda: g.Callable(),
            lambda: g.PackedInt64Array([rng.randrange(-(1 << 63), 1 << 63) for _ in range(3)]),
            lambda: g.PackedFloat64Array([rng.uniform(-1, 1) for _ in range(rng.randrange(4))]),
            lambda: g.PackedVector4Array([tuple(v4()) for _ in range(rng.randrange(3))]),
            lambda: g.TypedArray("int", [small() for _ in range(rng.randrange(4))]),
            lambda: g.TypedArray("Vector3", [v3() for _ in range(rng.randrange(3))]),
            lambda: g.TypedDictionary("String", "float",
                                      [(_word(rng), real()) for _ in range(rng.randrange(3))]),
        ]
    if depth < 2:
        makers += [
            lambda: [_godot_value(rng, profile, depth + 1) for _ in range(rng.randrange(4))],
            lambda: {_word(rng) + str(i): _godot_value(rng, profile, depth + 1)
                     for i in range(rng.randrange(4))},
        ] * 3
    return rng.choice(makers)()


def _godot_save(rng: random.Random, profile: str, i: int) -> list[Any]:
    """A save: a player record, then zero to two more records of any Variants."""
    player = {"version": 3, "slot": i, "name": _word(rng),
              "gold": rng.randrange(-1000, 1 << 40),
              "hp": _f32(rng.uniform(0, 100)), "position": g.Vector3(
                  _f32(rng.uniform(-50, 50)), 0.0, _f32(rng.uniform(-50, 50))),
              "extra": _godot_value(rng, profile)}
    return [player] + [_godot_value(rng, profile) for _ in range(rng.randrange(3))]


def _godot_set(profile: str) -> Callable[..., dict[str, Any]]:
    def make(root: Path, rng: random.Random, count: int, large: int,
             corrupt: int) -> dict[str, Any]:
        options = {"profile": profile, "framing": "store_var"}
        if profile == "godot3":  # a Godot 3 corpus moved to Godot 4
            to, back = {"profile": "godot4"}, {"profile": "godot3"}
        else:
            to, back = {"big_endian": True}, {"big_endian": False}
        w = _Writer(root, profile, "godot", f"godot/{profile}", options, to, back)
        valid = []
        for i in range(count):
            data = w.codec.encode(_godot_save(rng, profile, i))
            valid.append(data)
            w.put(f"{_folder(rng, i)}/save{i:05}.sav", data)
        if large:
            floats = g.PackedFloat32Array([(i * 7919 % 4001 - 2000) / 8
                                           for i in range(large // 32)])
            chunks = [rng.randbytes(4096).hex() for _ in range(large // 8192)]
            w.put("large/world.sav", w.codec.encode([{"heightmap": floats}, chunks]), large=True)

        def bad(data: bytes) -> tuple[bytes, int]:  # the first record's type: no such type
            return data[:4] + b"\xff\x00\x00\x00" + data[8:], 4

        w.damage(rng, corrupt, valid, bad, ".sav")
        return w.entry

    return make


# ---------------------------------------------------------------------------------------------
# FlatBuffers: monsters of FlatBuffers' own test schema


_FB_COLORS = ("Red", "Green", "Blue")


def _fb_vec3(rng: random.Random) -> dict[str, Any]:
    return {"x": _f32(rng.uniform(-100, 100)), "y": _f32(rng.uniform(-100, 100)),
            "z": _f32(rng.uniform(-100, 100)), "test1": rng.uniform(-1e6, 1e6),
            "test2": rng.choice(_FB_COLORS),
            "test3": {"a": rng.randrange(-32768, 32768), "b": rng.randrange(-128, 128)}}


def _fb_monster(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """A Monster with a random choice of its fields (``name`` is required)."""
    m: dict[str, Any] = {"name": _word(rng)}

    def maybe(p: float = 0.5) -> bool:
        return rng.random() < p

    if maybe(0.8):
        m["pos"] = _fb_vec3(rng)
    if maybe():
        m["mana"] = rng.randrange(-32768, 32768)
    if maybe():
        m["hp"] = rng.randrange(-32768, 32768)
    if maybe():
        m["inventory"] = [rng.randrange(256) for _ in range(rng.randrange(10))]
    if maybe():
        m["color"] = " ".join(sorted(rng.sample(_FB_COLORS, rng.randrange(1, 3))))
    if maybe(0.6):
        kind = rng.choice(["Monster", "TestSimpleTableWithEnum", "MyGame_Example2_Monster"])
        m["test_type"] = kind
        m["test"] = ({"name": _word(rng)} if kind == "Monster" else
                     {"color": rng.choice(_FB_COLORS)} if kind == "TestSimpleTableWithEnum"
                     else {})
    if maybe():
        m["test4"] = [{"a": rng.randrange(-100, 100), "b": rng.randrange(-100, 100)}
                      for _ in range(rng.randrange(4))]
    if maybe():
        m["testarrayofstring"] = [_word(rng) for _ in range(rng.randrange(4))]
    if depth == 0 and maybe(0.3):  # a vector sorted by its key, the name: distinct names
        # (flatc -b sorts it, and would swap tables of the same name on every rebuild)
        m["testarrayoftables"] = [{**_fb_monster(rng, 1), "name": f"{_word(rng)} {i}"}
                                  for i in range(rng.randrange(3))]
    if depth == 0 and maybe(0.3):
        m["enemy"] = _fb_monster(rng, 1)
    if maybe():
        m["testempty"] = {"id": _word(rng), "val": rng.randrange(-(1 << 63), 1 << 63),
                          "count": rng.randrange(65536)}
    if maybe():
        m["testbool"] = maybe()
    for bits in (32, 64):
        if maybe():
            m[f"testhashs{bits}_fnv1"] = rng.randrange(-(1 << bits - 1), 1 << bits - 1)
        if maybe(0.7):  # often above 2**63 for 64 bits
            m[f"testhashu{bits}_fnv1a"] = rng.randrange(1 << bits)
    if maybe(0.7):
        m["testhashu64_fnv1"] = rng.randrange(1 << 63, 1 << 64)
    if maybe():
        m["testarrayofbools"] = [maybe() for _ in range(rng.randrange(5))]
    for name in ("testf", "testf2", "testf3"):
        if maybe():
            m[name] = _f32(rng.uniform(-1e3, 1e3))
    if maybe():
        m["testarrayofsortedstruct"] = [{"id": i, "distance": rng.randrange(1000)}
                                        for i in sorted(rng.sample(range(100), 3))]
    if maybe():
        m["vector_of_longs"] = [rng.randrange(-(1 << 63), 1 << 63) for _ in range(3)]
    if maybe():
        m["vector_of_doubles"] = [rng.uniform(-1e300, 1e300) for _ in range(rng.randrange(4))]
    if maybe(0.3):
        m["vector_of_referrables"] = [{"id": rng.randrange(1 << 64)} for _ in range(2)]
    if maybe(0.3):
        m["vector_of_weak_references"] = [rng.randrange(1 << 64) for _ in range(3)]
    if maybe(0.4):
        kind = rng.choice(["M", "TS", "M2"])
        m["any_unique_type"] = kind
        m["any_unique"] = ({"name": _word(rng)} if kind == "M" else
                           {"color": "Red"} if kind == "TS" else {})
    if maybe(0.3):
        m["any_ambiguous_type"] = rng.choice(["M1", "M2", "M3"])
        m["any_ambiguous"] = {"name": _word(rng)}
    if maybe():
        m["vector_of_enums"] = [rng.choice(_FB_COLORS) for _ in range(rng.randrange(4))]
    if maybe():
        m["signed_enum"] = rng.choice(["None", "Human", "Dwarf", "Elf"])
    if maybe():
        m["native_inline"] = {"a": rng.randrange(-100, 100), "b": rng.randrange(-100, 100)}
    if maybe():
        m["long_enum_normal_default"] = rng.choice(["LongOne", "LongTwo", "LongBig",
                                                    "LongOne LongBig"])
    return m


def _flatbuffers(root: Path, rng: random.Random, count: int, large: int,
                 corrupt: int) -> dict[str, Any]:
    options = {"schema": str(FB_SCHEMA / "monster_test.fbs"),
               "include": [str(FB_SCHEMA / "include_test")], "type": "MyGame.Example.Monster"}
    w = _Writer(root, "flatbuffers", "flatbuffers", "flatbuffers", options,
                {"size_prefixed": True}, {"size_prefixed": False})
    c = w.codec

    def canonical(doc: dict[str, Any]) -> bytes:
        # convert writes what flatc -b makes of flatc's JSON: the canonical layout, which an
        # encode of fields in another order need not have. The corpus holds canonical buffers.
        return c.convert(c.encode(c.from_jsonable(doc)), c)

    valid = []
    for i in range(count):
        data = canonical(_fb_monster(rng))
        valid.append(data)
        w.put(f"{_folder(rng, i)}/monster{i:05}.mon", data)
    if large:
        doc = {"name": "telemetry", "inventory": list(rng.randbytes(large // 16)),
               "testarrayofstring": ["".join(rng.choice("abcdefgh ") for _ in range(1024))
                                     * (large // 2 ** 15) for _ in range(32)],
               "testhashu64_fnv1": (1 << 64) - 1, "testf": 0.5}
        w.put("large/telemetry.mon", canonical(doc), large=True)

    def bad(data: bytes) -> tuple[bytes, int]:  # the root offset points past the end
        return struct.pack("<I", len(data) + 64) + data[4:], 0

    w.damage(rng, corrupt, valid, bad, ".mon")
    return w.entry


# ---------------------------------------------------------------------------------------------
# Zeze: beans of the solution of Zeze's unit tests


def _zeze_simple(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    return {"int_1": rng.randrange(-(1 << 31), 1 << 31),
            "long2": rng.randrange(-(1 << 63), 1 << 63), "string3": _word(rng),
            "removed": {"int_1": rng.randrange(1000)},
            "AllowCircle": [] if depth else [_zeze_simple(rng, 1)
                                             for _ in range(rng.randrange(2))]}


def _zeze_dynamic(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.5:
        return {"bean": "demo.Bean1", "value": _zeze_bean1(rng)}
    return {"bean": "demo.Module1.Simple", "value": _zeze_simple(rng, 1)}


def _zeze_bean1(rng: random.Random) -> dict[str, Any]:
    return {"V1": rng.randrange(-1000, 1000),
            "V2": {str(rng.randrange(-99, 99)): rng.randrange(1 << 20)
                   for _ in range(rng.randrange(3))}}


def _zeze_value(rng: random.Random, blob: int = 0) -> dict[str, Any]:
    """A demo.Module1.Value: every field kind of Zeze in one bean."""

    def f() -> float:
        return _f32(rng.uniform(-1e3, 1e3))

    def i() -> int:
        return rng.randrange(-(1 << 31), 1 << 31)

    size = blob or rng.randrange(16)
    return {
        "int_1": i(), "long2": rng.randrange(-(1 << 63), 1 << 63), "string3": _word(rng),
        "bool4": rng.random() < 0.5, "short5": rng.randrange(-32768, 32768), "float6": f(),
        "double7": rng.uniform(-1e12, 1e12),
        "bytes8": base64.b64encode(rng.randbytes(size)).decode(),
        "list9": [_zeze_bean1(rng) for _ in range(rng.randrange(3))],
        "set10": sorted({rng.randrange(-50, 50) for _ in range(rng.randrange(4))}),
        "map11": {str(rng.randrange(1 << 40)): {"s": rng.randrange(100)}
                  for _ in range(rng.randrange(3))},
        "bean12": _zeze_simple(rng), "byte13": rng.randrange(-128, 128),
        "dynamic14": _zeze_dynamic(rng),
        "map15": {str(rng.randrange(-(1 << 40), 1 << 40)): rng.randrange(1 << 50)
                  for _ in range(rng.randrange(3))},
        "map16": [[{"s": k}, _zeze_simple(rng, 1)] for k in range(rng.randrange(3))],
        "vector2": [f(), f()], "vector2Int": [i(), i()], "vector3": [f(), f(), f()],
        "vector3Int": [i(), i(), i()], "vector4": [f(), f(), f(), f()],
        "quaternion": [f(), f(), f(), f()],
        "listVector2Int": [[i(), i()] for _ in range(rng.randrange(3))],
        "map24": [[{"s": k + 1}, _zeze_simple(rng, 1)] for k in range(rng.randrange(2))],
        "map25": [[{"s": k + 5}, {"bean": "demo.Module1.Simple", "value": _zeze_simple(rng, 1)}]
                  for k in range(rng.randrange(2))],
        "dynamic26": {"bean": "demo.Module1.Simple", "value": _zeze_simple(rng, 1)},
        "version": rng.randrange(1 << 20),
    }


def _zeze(root: Path, rng: random.Random, count: int, large: int,
          corrupt: int) -> dict[str, Any]:
    options = {"schema": str(ZEZE_SOLUTION), "type": "demo.Module1.Value"}
    # The written side of a Zeze convert has no options but the schema and the bean: a
    # convert to the same bean is the only one.
    w = _Writer(root, "zeze", "zeze", "zeze", options, {}, {})
    c = w.codec
    valid = []
    for i in range(count):
        data = c.encode(c.from_jsonable(_zeze_value(rng)))
        valid.append(data)
        w.put(f"{_folder(rng, i)}/row{i:05}.bean", data)
    if large:
        w.put("large/export.bean", c.encode(c.from_jsonable(_zeze_value(rng, large))),
              large=True)

    def bad(data: bytes) -> tuple[bytes, int]:  # a field whose tag says a nonsense length
        return data[:1] + b"\xff\xff\xff\xff\xff" + data[1:], 1

    w.damage(rng, corrupt, valid, bad, ".bean")
    return w.entry


# ---------------------------------------------------------------------------------------------
# KingsIsle: objects of katsuba's type list


_KI_INTS = {"bool": None, "char": (-128, 127), "unsigned char": (0, 255),
            "short": (-32768, 32767), "unsigned short": (0, 65535),
            "int": (-(1 << 31), (1 << 31) - 1), "unsigned int": (0, (1 << 32) - 1),
            "unsigned __int64": (0, (1 << 64) - 1), "s24": (-(1 << 23), (1 << 23) - 1),
            "u24": (0, (1 << 24) - 1)}


class _KingsIsle:
    """Values of any class of a wiztype type list, by its properties' types."""

    def __init__(self, types: dict[str, Any]) -> None:
        self.classes = {c["name"]: c for c in types["classes"].values()}

    def roots(self) -> list[str]:
        """The classes with properties, in the list's order."""
        return [n for n, c in self.classes.items() if c["properties"]]

    def value(self, rng: random.Random, name: str) -> dict[str, Any]:
        obj: dict[str, Any] = {"$__type": name}
        for prop, p in self.classes[name]["properties"].items():
            if p["container"] == "Static":
                obj[prop] = self.one(rng, p)
            else:
                obj[prop] = [self.one(rng, p) for _ in range(rng.randrange(4))]
        return obj

    def one(self, rng: random.Random, p: dict[str, Any]) -> Any:
        t = p["type"]
        if p["enum_options"]:
            values = [int(v) for v in p["enum_options"].values()]
            if p["flags"] & (1 << 20):  # bit flags: any combination
                return sum(v for v in values if rng.random() < 0.5)
            return rng.choice(values)
        if t == "bool":
            return rng.random() < 0.5
        if t in _KI_INTS:
            low, high = _KI_INTS[t]
            return rng.randint(low, high)
        if t[:3] in ("bi2", "bi3", "bi4", "bi5", "bi6", "bi7"):
            bits = int(t[2])
            return rng.randrange(-(1 << bits - 1), 1 << bits - 1)
        if t[:3] == "bui":
            return rng.randrange(1 << int(t[3]))
        if t == "float":
            return _f32(rng.uniform(-1e6, 1e6))
        if t == "double":
            return rng.uniform(-1e100, 1e100)
        if t in ("std::string", "std::wstring"):
            return _word(rng)
        if t.startswith("class "):
            return self.value(rng, t)
        raise ValueError(f"the generator has no values of the KingsIsle type {t!r}")


def _kingsisle(root: Path, rng: random.Random, count: int, large: int,
               corrupt: int) -> dict[str, Any]:
    options = {"schema": str(KI_TYPES)}
    # Converted to every serializer flag and zlib compression (not to deep mode, which leaves
    # out deprecated properties: DeprecatedTest could not come back).
    w = _Writer(root, "kingsisle", "kingsisle", "kingsisle", options,
                {"flags": 15, "manual_compression": True},
                {"flags": 0, "manual_compression": False})
    c = w.codec
    types = _KingsIsle(json.loads(KI_TYPES.read_text(encoding="utf-8")))
    roots = types.roots()
    valid = []
    for i in range(count):
        name = roots[i % len(roots)]
        data = c.encode(c.from_jsonable(types.value(rng, name)))
        valid.append(data)
        w.put(f"{_folder(rng, i)}/{name.split()[-1].lower()}{i:05}.bin", data)
    if large:
        elements = [{"$__type": "class ListElement", "m_id": i,
                     "m_name": rng.randbytes(1 << 14).hex()} for i in range(large >> 15)]
        doc = {"$__type": "class NestedLists", "m_elements": elements, "m_depth": 1}
        w.put("large/lists.bin", c.encode(c.from_jsonable(doc)), large=True)

    def bad(data: bytes) -> tuple[bytes, int]:  # the root's type hash: no such class
        return b"\x00\x00\x00\x00" + data[4:] if data[:4] != b"\0\0\0\0" else b"\1" + data[1:], 0

    w.damage(rng, corrupt, valid, bad, ".bin")
    return w.entry


# ---------------------------------------------------------------------------------------------
# O3DE: prefabs of the engine registry

_O3DE_EDITOR = ("EditorDisabledCompositionComponent", "EditorEntityIconComponent",
                "EditorEntitySortComponent", "EditorInspectorComponent", "EditorLockComponent",
                "EditorOnlyEntityComponent", "EditorPendingCompositionComponent",
                "EditorVisibilityComponent")
_TRANSFORM = "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0} TransformComponent"


def _o3de_components(rng: random.Random, parent: str | None) -> dict[str, Any]:
    """An entity's components: the editor's own, and a transform under ``parent``."""
    out: dict[str, Any] = {}
    for kind in _O3DE_EDITOR:
        cid = rng.randrange(1, 1 << 64)
        comp: dict[str, Any] = {"$type": kind, "Id": cid}
        if kind == "EditorVisibilityComponent" and rng.random() < 0.2:
            comp["VisibilityFlag"] = False
        if kind == "EditorLockComponent" and rng.random() < 0.2:
            comp["Locked"] = True
        out[f"Component_[{cid}]" if parent else kind] = comp
    cid = rng.randrange(1, 1 << 64)
    data: dict[str, Any] = {"Translate": [round(rng.uniform(-100, 100), 2) for _ in range(3)]}
    if rng.random() < 0.5:
        data["Rotate"] = [0.0, 0.0, float(rng.randrange(0, 360, 15))]
    if rng.random() < 0.3:
        data["UniformScale"] = rng.choice([0.5, 2.0, 1.25])
    transform = {"$type": _TRANSFORM, "Id": cid, "Parent Entity": parent or "",
                 "Transform Data": data}
    if parent is None:
        del transform["Transform Data"]
    out[f"Component_[{cid}]" if parent else "TransformComponent"] = transform
    return out


def _o3de_prefab(rng: random.Random, entities: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"ContainerEntity": {"Id": "ContainerEntity", "Name": _word(rng),
                                               "Components": _o3de_components(rng, None)},
                           "Entities": {}}
    for _ in range(entities):
        eid = f"Entity_[{rng.randrange(1 << 40)}]"
        doc["Entities"][eid] = {"Id": eid, "Name": _word(rng),
                                "Components": _o3de_components(rng, "ContainerEntity")}
    return doc


def _o3de_colon(data: bytes) -> tuple[bytes, int]:
    """``data`` with its first colon made a semicolon: text a JSON reader must refuse."""
    at = data.index(b":")
    return data[:at] + b";" + data[at + 1:], at


def _o3de_prefabs(root: Path, rng: random.Random, count: int, large: int,
                  corrupt: int) -> dict[str, Any]:
    # Typed by the engine registry (picked by the .prefab extension): a load and a store per
    # file, some 4 ms each, so this set is the smaller part of the O3DE corpus, and its large
    # input is a settings file.
    w = _Writer(root, "o3de prefabs", "o3de", "o3de/prefabs", {}, {"keep_defaults": True},
                {"keep_defaults": False})
    c = gameserde.codec("o3de", source="level.prefab")
    valid = []
    for i in range(count):
        data = c.encode(c.from_jsonable(_o3de_prefab(rng, rng.randrange(3))))
        valid.append(data)
        w.put(f"{_folder(rng, i)}/level{i:05}.prefab", data)
    w.damage(rng, corrupt, valid, _o3de_colon, ".prefab")
    return w.entry


def _o3de_setting(rng: random.Random, depth: int = 0) -> Any:
    """A settings-registry value: objects, arrays, strings, numbers (uint64 ones too),
    booleans and null."""
    makers: list[Callable[[], Any]] = [
        lambda: _word(rng), lambda: rng.randrange(-(1 << 31), 1 << 31),
        lambda: rng.randrange(1 << 63, 1 << 64), lambda: round(rng.uniform(-1e3, 1e3), 3),
        lambda: rng.random() < 0.5, lambda: None]
    if depth < 3:
        makers += [lambda: [_o3de_setting(rng, depth + 1) for _ in range(rng.randrange(4))],
                   lambda: {_word(rng): _o3de_setting(rng, depth + 1)
                            for _ in range(rng.randrange(1, 5))}] * 2
    return rng.choice(makers)()


def _o3de_settings(root: Path, rng: random.Random, count: int, large: int,
                   corrupt: int) -> dict[str, Any]:
    # Settings-registry files: no type, so a convert has no other options to write with.
    w = _Writer(root, "o3de settings", "o3de", "o3de/settings", {}, {}, {})
    c = gameserde.codec("o3de", source="game.setreg")
    valid = []
    for i in range(count):
        doc = {"O3DE": {_word(rng): _o3de_setting(rng) for _ in range(rng.randrange(1, 4))}}
        data = c.encode(c.from_jsonable(doc))
        valid.append(data)
        w.put(f"{_folder(rng, i)}/s{i:05}.setreg", data)
    if large:  # the large O3DE input: a typed prefab of megabytes would take seconds a pass
        sizes = [len(c.encode(c.from_jsonable({"O3DE": {"Levels": [_o3de_setting(rng, 1)
                                                                     for _ in range(n)]}})))
                 for n in (0, 100)]
        levels = [_o3de_setting(rng, 1) for _ in range(large * 100 // (sizes[1] - sizes[0]))]
        w.put("large/levels.setreg", c.encode(c.from_jsonable({"O3DE": {"Levels": levels}})),
              large=True)
    w.damage(rng, corrupt, valid, _o3de_colon, ".setreg")
    return w.entry


_SETS: list[tuple[str, float, Callable[..., dict[str, Any]]]] = [
    ("godot4", 0.5, _godot_set("godot4")), ("godot3", 0.5, _godot_set("godot3")),
    ("flatbuffers", 0.75, _flatbuffers), ("zeze", 0.75, _zeze), ("kingsisle", 1.25, _kingsisle),
    ("o3de prefabs", 0.075, _o3de_prefabs), ("o3de settings", 1.175, _o3de_settings),
]
"""Each set: its name, its share of ``per_format`` small files, and its writer. Formats whose
files cost less to read (KingsIsle, O3DE settings files) get more of them than the costly ones
(FlatBuffers' and Zeze's JSON, O3DE's typed prefabs), so that the tests of the whole corpus
stay fast; the shares add up to one ``per_format`` per format."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="the folder to write the corpus in")
    parser.add_argument("--per-format", type=int, default=2000,
                        help="small valid files per format, on average (default 2000)")
    parser.add_argument("--large", type=int, default=3 << 20,
                        help="the size in bytes of each set's large input (0: none)")
    parser.add_argument("--corrupt", type=int, default=10, help="corrupt files per set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    manifest = make_corpus(args.root, per_format=args.per_format, large=args.large,
                           corrupt=args.corrupt, seed=args.seed)
    for s in manifest["sets"]:
        print(f"{s['dir']}: {len(s['files'])} valid ({len(s['large'])} large), "
              f"{len(s['corrupt'])} corrupt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
