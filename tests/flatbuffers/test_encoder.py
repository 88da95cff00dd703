"""The schema-driven encoder (:mod:`gameserde.flatbuffers.encoder`) against ``flatc -b``.

Every JSON document below is encoded by ``flatc -b`` (25.12.19) at test time and by
:func:`from_json`; the bytes must be identical. A hypothesis-driven differential test does the
same with random schemas and values (:mod:`tests.flatbuffers.fbs_gen`), many JSON files per
flatc invocation. Without ``flatc`` on PATH these tests are skipped, or fail when ``CI=true``.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError, UnknownNameError
from gameserde.flatbuffers import load_schema
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.json_input import from_json
from gameserde.flatbuffers.json_output import to_json
from tests.flatbuffers import fbs_gen


def flatc_binaries(exe: str, directory: Path, fbs: str, jsons: list[str],
                   options: tuple[str, ...] = ()) -> list[bytes | None]:
    """``flatc -b`` on many JSON documents at once; None for a document flatc rejects."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "s.fbs").write_text(fbs, encoding="utf-8")
    names = []
    for i, text in enumerate(jsons):
        name = f"d{i}.json"
        (directory / name).write_text(text, encoding="utf-8")
        names.append(name)
    out = directory / "out"
    proc = subprocess.run([exe, "-b", *options, "-o", str(out), "s.fbs", *names],
                          cwd=directory, capture_output=True, check=False)
    if proc.returncode != 0:
        if len(jsons) == 1:
            return [None]
        # find the culprit(s) one by one
        return [flatc_binaries(exe, directory / f"one{i}", fbs, [j], options)[0]
                for i, j in enumerate(jsons)]
    ext = ".bin"
    return [(out / (n[:-5] + ext)).read_bytes() for n in names]


SEED_FBS = """namespace MyGame.Sample;
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
union Equipment { Weapon }
struct Vec3 { x:float; y:float; z:float; }
table Weapon { name:string; damage:short; }
table Monster { pos:Vec3; mana:short = 150; hp:short = 100; name:string;
  friendly:bool = false (deprecated); inventory:[ubyte]; color:Color = Blue;
  weapons:[Weapon]; equipped:Equipment (required); path:[Vec3]; }
root_type Monster;
"""
SEED_JSON = """{ pos: {x: 1, y: 2, z: 3}, hp: 300, name: "Orc",
  inventory: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], color: Red,
  weapons: [{name: "Sword", damage: 3}, {name: "Axe", damage: 5}],
  equipped_type: Weapon, equipped: {name: "Axe", damage: 5},
  path: [{x: 4, y: 5, z: 6}, {x: 1, y: 2, z: 3}] }"""

ALL_SCALARS = """
enum Color : short { Red = -1, Green = 4, Blue }
enum Flags : ubyte (bit_flags) { A, B, C = 5 }
table T {
  b:bool; i8:byte = -3; u8:ubyte = 200; i16:short; u16:ushort = 7; i32:int; u32:uint;
  i64:long = -1; u64:ulong = 18446744073709551615; f32:float = 0.1; f64:double = nan;
  c:Color = Green; fl:Flags; o8:byte = null; of:float = null; od:double = null;
}
root_type T;
"""

FEATURES = """
namespace N.M;
attribute "priority";
enum Kind : ubyte { Sword, Axe, Bow }
struct Inner { a:byte; b:long; }
struct Outer (force_align: 16) { i:Inner; arr:[short:3]; k:Kind; f:[Inner:2]; }
struct Keyed { x:int (key); y:short; }
table Item { name:string (key); weight:float = 1.5; }
table Num { v:long (key); }
union Thing { Item, P: Keyed, S: string, Num }
table Sub (original_order) { a:byte; b:long; c:string; d:short; }
table Root {
  outer:Outer; items:[Item]; nums:[Num]; keyed:[Keyed]; thing:Thing; sub:Sub;
  tags:[string]; tag:string (shared); tag2:string (shared); doubles:[double] (force_align: 16);
  bytes:[ubyte] (force_align: 8); nested:[ubyte] (nested_flatbuffer: "Item");
  kinds:[Kind]; dep:int (deprecated); bools:[bool]; req:string (required, priority: 1);
  empty_longs:[long];
}
root_type Root;
file_identifier "FEAT";
"""

IDS = """
union U { X }
table T { a:int (id: 3); u:U (id: 2); s:string (id: 0); c:short (id: 4); }
table X { v:int; }
root_type T;
"""

IDS_TWO_UNIONS = """
union U { X, Y }
table T { a:U (id: 1); b:U (id: 3); }
table X { v:int; }
table Y { w:short; }
root_type T;
"""

UNION_VECTORS = """
struct P { a:short; b:double; }
table X { v:int; s:string; }
table Y { w:short; }
union U { X, Y, P, Str: string }
table T { a:[U] (id: 1); b:[U] (id: 3); c:U (id: 5); n:int (id: 6); }
root_type T;
file_identifier "UVEC";
"""

HASHES = """
struct HS { a:uint (hash: "fnv1a_32"); b:long (hash: "fnv1_64"); }
table H { hs:HS; vhs:[HS];
  a:uint (hash: "fnv1_32"); b:uint (hash: "fnv1a_32"); c:ulong (hash: "fnv1_64");
  d:long (hash: "fnv1a_64"); g:int (hash: "fnv1a_32"); v:[uint] (hash: "fnv1a_32");
  lv:[long] (hash: "fnv1_64"); e:short (hash: "fnv1_16"); }
root_type H;
"""

SIXTY_FOUR = """
struct V { a:short; b:double; }
struct K { k:int (key); y:short; }
table Leaf { x:int; s:string (offset64); }
table T { n:int; s:string (offset64); bv:[ubyte] (offset64); big:[int] (vector64);
  name:string; sv:[V] (offset64); lv:[long] (vector64); w:[ubyte]; leaf:Leaf;
  vv:[V] (vector64); fv:[float] (offset64, force_align: 16); kv:[K] (vector64); }
root_type T;
file_identifier "SIXF";
"""

CASES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("seed", SEED_FBS, SEED_JSON, ()),
    ("seed-type-after", SEED_FBS,
     '{equipped: {damage: 5, name: "Axe"}, equipped_type: "Weapon", name: "Orc"}', ()),
    ("scalars-defaults", ALL_SCALARS, "{}", ()),
    ("scalars", ALL_SCALARS,
     """{b: true, i8: -128, u8: 0xff, i16: "0x7fff", u16: 007, i32: -2147483648,
         u32: "Color.Blue", i64: 9223372036854775807, u64: 0, f32: 3.5e38, f64: -inf,
         c: Blue, fl: "A C", o8: 0, of: nan, od: null,}""", ()),
    ("scalars-default-values", ALL_SCALARS,
     "{i8: -3, u8: 200, f32: 0.1, f64: nan, c: Green, fl: 0, b: false, o8: null}", ()),
    ("scalars-force-defaults", ALL_SCALARS,
     "{i8: -3, u8: 200, f32: 0.1, c: Green, fl: 0, b: false, i64: -1}", ("--force-defaults",)),
    ("scalars-numbers", ALL_SCALARS,
     '{b: 2, i8: "-5", i16: +5, f32: "1e-3", f64: 0x1p3, c: 4, fl: "B", u64: "0"}', ()),
    ("bool-number", ALL_SCALARS, '{b: "true", f32: .5, f64: -nan, i32: -0x10}', ()),
    ("floats", ALL_SCALARS, "{f32: infinity, f64: +inf, i8: 0}", ()),
    ("size-prefixed", SEED_FBS, SEED_JSON, ("--size-prefixed",)),
    ("features", FEATURES, """{
      req: "r", tag: "t", tags: ["t", "u", "t", "u"], tag2: "t",
      outer: {i: {a: 1, b: 2}, arr: [1, 2, 3], k: Bow, f: [{a: 3, b: 4}, {a: 5, b: 6}]},
      items: [{name: "b"}, {name: "a", weight: 2}, {name: "c"}, {name: "a"}, {name: "b"}],
      nums: [{v: 3}, {}, {v: -1}, {v: 3}, {v: 0}, {v: 2}],
      keyed: [{x: 2, y: 1}, {x: 1, y: 2}, {x: 2, y: 3}, {x: 0, y: 4}, {x: 1, y: 5}],
      thing_type: P, thing: {x: 7, y: 8},
      sub: {a: 1, b: 2, c: "c", d: 3},
      doubles: [1.5, 2.5, 3.5], bytes: [1, 2, 3],
      nested: {name: "inner", weight: 3},
      kinds: [Axe, 2, "Sword"], dep: 12, bools: [true, false, true], empty_longs: [],
    }""", ()),
    ("features-string-union", FEATURES,
     '{req: "x", thing: "hello", thing_type: S}', ()),
    ("features-table-union", FEATURES,
     '{req: "x", thing_type: Item, thing: {name: "i"}, sub: {}, items: []}', ()),
    ("features-num-union", FEATURES, '{req: "x", thing_type: 4, thing: {v: 1}}', ()),
    ("features-size-prefixed-ident", FEATURES, '{req: "x", bools: [true]}', ("--size-prefixed",)),
    ("features-force-defaults", FEATURES,
     '{req: "x", sub: {a: 0, b: 0, d: 0}, items: [{name: "n", weight: 1.5}]}',
     ("--force-defaults",)),
    ("union-type-of-other-field", IDS_TWO_UNIONS,
     '{b_type: Y, a_type: X, a: {w: 1}}', ()),
    ("union-type-after-value", IDS_TWO_UNIONS, '{a: {v: 2}, a_type: X, b_type: Y, b: {w: 3}}', ()),
    ("ids", IDS, '{a: 1, s: "s", c: 2, u_type: X, u: {v: 3}}', ()),
    ("unicode", SEED_FBS,
     r'{name: "h\u00e9llo \ud83d\ude00 \x41\n\t\"\\/", equipped_type: 1, '
     r'equipped: {name: "\u4e2d"}}', ()),
    ("comments", SEED_FBS,
     '// comment\n{ /* c */ "name": "x", "equipped_type": "Weapon", "equipped": {} }', ()),
    # vectors of unions: tables, structs (written standalone) and strings
    ("union-vector", UNION_VECTORS,
     '{a_type: [X, Y, P, Str, 1], a: [{v: 1, s: "x"}, {w: 2}, {a: 3, b: 4.5}, "str", {}], '
     'n: 7}', ()),
    ("union-vector-empty", UNION_VECTORS, "{a_type: [], a: [], b: []}", ()),
    ("union-vector-types-only", UNION_VECTORS, '{b_type: ["Y", 4], c_type: Y, c: {w: 1}}', ()),
    ("union-vector-longer-types", UNION_VECTORS, "{a_type: [Y, X, X], a: [{w: 5}]}", ()),
    # the type vector of the same union with the highest id parsed before the value wins
    ("union-vector-other-types", UNION_VECTORS,
     "{b_type: [Y, P], a_type: [X], a: [{w: 1}, {a: 1, b: 2}], b: [{w: 3}]}", ()),
    ("union-vector-size-prefixed", UNION_VECTORS,
     '{a_type: [P, P], a: [{a: 1, b: 2}, {a: 3, b: 4}], c_type: Str, c: "s"}',
     ("--size-prefixed",)),
    ("union-vector-force-defaults", UNION_VECTORS,
     "{n: 0, a_type: [Y], a: [{w: 0}]}", ("--force-defaults",)),
    # hash fields: strings and bare identifiers hashed, numbers kept
    ("hash", HASHES,
     '{a: "hello", b: "hello", c: "hello", d: "hello", g: "hello", v: ["x", "y", 3], '
     'lv: ["", "é"]}', ()),
    ("hash-identifiers", HASHES, '{a: hello, b: true, c: _x, d: nan, g: "5"}', ()),
    ("hash-numbers", HASHES, '{a: 5, b: "0x10", c: 18446744073709551615, d: -1, g: -7}', ()),
    ("hash-nul", HASHES, r'{a: "a\u0000b", b: "", d: "a longer string, ünïcode"}', ()),
    ("hash-16-bit-is-a-number", HASHES, "{e: 12}", ()),
    ("hash-struct-fields", HASHES, '{hs: {a: "x", b: y}, vhs: [{a: 1, b: "z"}, {b: 2, a: "w"}]}',
     ()),
    # 64-bit offsets: 8-byte slots (size class 4 for offset64, 8 for vector64), data in
    # document order, vector64 lengths as flatc's 32-bit builder writes them
    ("offset64", SIXTY_FOUR,
     '{n: 7, s: "hello", bv: [1, 2, 3], big: [10, 20, 30], name: "nm", '
     'sv: [{a: 1, b: 2}], lv: [5], w: [9]}', ()),
    ("offset64-after-32", SIXTY_FOUR, '{name: "first", s: "second64", w: [1], bv: [2]}', ()),
    ("offset64-empty", SIXTY_FOUR, "{lv: [], big: [], bv: [], sv: [], vv: [], fv: []}", ()),
    ("vector64-odd", SIXTY_FOUR, "{big: [7], lv: [1, 2], vv: [{a: 1, b: 2}]}", ()),
    ("offset64-nested", SIXTY_FOUR,
     '{leaf: {x: 1, s: "in"}, fv: [1.5, 2.5], big: [1, 2], s: ""}', ()),
    # flatc sorts a keyed vector64 of structs as if it were 32-bit (4 bytes off)
    ("vector64-keyed-structs", SIXTY_FOUR,
     "{n: 1, kv: [{k: 3, y: 1}, {k: 1, y: 2}, {k: 2, y: 3}, {k: 0, y: 4}]}", ()),
    ("offset64-size-prefixed", SIXTY_FOUR, '{s: "x", lv: [3], n: 1}', ("--size-prefixed",)),
]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_handwritten_cases_match_flatc(flatc: str, tmp_path: Path, name: str) -> None:
    _, fbs, text, options = next(c for c in CASES if c[0] == name)
    expected = flatc_binaries(flatc, tmp_path, fbs, [text], options)[0]
    assert expected is not None, "flatc rejected the test document"
    schema = load_schema(fbs)
    ours = from_json(schema, text, size_prefixed="--size-prefixed" in options,
                     force_defaults="--force-defaults" in options)
    assert ours == expected


def test_seed_monster_is_208_bytes(flatc: str, tmp_path: Path) -> None:
    schema = load_schema(SEED_FBS)
    ours = from_json(schema, SEED_JSON)
    assert len(ours) == 208
    assert ours == flatc_binaries(flatc, tmp_path, SEED_FBS, [SEED_JSON])[0]


def test_dict_and_dataclass_values() -> None:
    schema = load_schema(SEED_FBS)
    value: dict[str, Any] = {
        "pos": {"x": 1.0, "y": 2.0, "z": 3.0}, "hp": 300, "name": "Orc",
        "inventory": bytes(range(10)), "color": 0,
        "weapons": [{"name": "Sword", "damage": 3}, {"name": "Axe", "damage": 5}],
        "equipped_type": "Weapon", "equipped": {"name": "Axe", "damage": 5},
        "path": [(4, 5, 6), {"x": 1, "y": 2, "z": 3}]}
    assert encode(schema, value) == from_json(schema, SEED_JSON)

    @dataclasses.dataclass
    class Weapon:
        name: str | None = None
        damage: int | None = None

    @dataclasses.dataclass
    class Monster:
        pos: Any = None
        hp: int | None = None
        name: str | None = None
        inventory: list[int] | None = None
        color: str | None = None
        weapons: list[Weapon] | None = None
        equipped_type: str | None = None
        equipped: Weapon | None = None
        path: list[Any] | None = None

    m = Monster({"x": 1, "y": 2, "z": 3}, 300, "Orc", list(range(10)), "Red",
                [Weapon("Sword", 3), Weapon("Axe", 5)], "Weapon", Weapon("Axe", 5),
                [{"x": 4, "y": 5, "z": 6}, {"x": 1, "y": 2, "z": 3}])
    assert encode(schema, m) == from_json(schema, SEED_JSON)


def test_root_type_option_and_nested_dataclass_values() -> None:
    schema = load_schema(SEED_FBS)
    weapon = encode(schema, {"name": "Axe", "damage": 5}, "Weapon")
    assert weapon == encode(schema, {"name": "Axe", "damage": 5}, "MyGame.Sample.Weapon")
    with pytest.raises(UnknownNameError, match="no type named 'Nope' in the schema"):
        encode(schema, {}, "Nope")


def test_file_identifier_option() -> None:
    schema = load_schema(FEATURES)
    with_id = encode(schema, {"req": "x"})
    assert with_id[4:8] == b"FEAT"
    without = encode(schema, {"req": "x"}, file_identifier=None)
    assert b"FEAT" not in without
    other = encode(schema, {"req": "x"}, file_identifier="ABCD")
    assert other[4:8] == b"ABCD"


def test_errors_carry_paths() -> None:
    schema = load_schema(SEED_FBS)
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"name": "x"})
    assert exc.value.message == "required field is missing: equipped in Monster"
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"equipped_type": 1, "equipped": {},
                        "weapons": [{"name": "a"}, {"nam": "b"}]})
    assert exc.value.path == "$.weapons[1].nam"
    assert "unknown field: nam" in str(exc.value)
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"equipped_type": 1, "equipped": {}, "hp": 70000})
    assert exc.value.path == "$.hp"
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"equipped": {}})
    assert "missing type field for this union value: equipped" in exc.value.message
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"equipped_type": 1, "equipped": {}, "pos": {"x": 1, "y": 2}})
    assert "wrong number of initializers: Vec3" in exc.value.message
    with pytest.raises(EncodeError) as exc:
        encode(schema, {"equipped_type": 1, "equipped": {}, "color": "Purple"})
    assert exc.value.path == "$.color"
    with pytest.raises(EncodeError):
        encode(schema, {"equipped_type": 1, "equipped": {}, "hp": None})


def test_json_parse_errors() -> None:
    schema = load_schema(SEED_FBS)
    with pytest.raises(DecodeError) as exc:
        from_json(schema, '{\n  name: "x",\n  hp: }')
    assert exc.value.message.startswith("3:7:")
    with pytest.raises(DecodeError):
        from_json(schema, '{name: "x", name: "y"}')
    with pytest.raises(DecodeError):
        from_json(schema, '{name: "x"}', strict=True)
    with pytest.raises(DecodeError):
        from_json(schema, '{"name": "x",}', strict=True)
    # flatc takes a union's type from the same-union _type field with the highest id
    two = load_schema(IDS_TWO_UNIONS)
    with pytest.raises(EncodeError, match="unknown field: v"):
        from_json(two, "{b_type: Y, b: {w: 1}, a_type: X, a: {v: 2}}")
    with pytest.raises(EncodeError, match="missing type field"):
        from_json(two, "{a: {v: 2}, b_type: Y, a_type: X}")
    with pytest.raises(EncodeError, match="cannot parse value starting with: nan"):
        from_json(load_schema(ALL_SCALARS.replace("root_type T;", "union U { T } "
                                                  "table R { u:U; } root_type R;")),
                  "{u: {f32: nan}, u_type: T}")
    ok = from_json(schema, '{"name": "x", "equipped_type": 1, "equipped": {}}', strict=True)
    assert ok == from_json(schema, b'{name: "x", equipped_type: 1, equipped: {},}')


def test_union_vectors_hashes_and_offset64_from_values() -> None:
    uv = load_schema(UNION_VECTORS)
    text = ('{a_type: [X, Y, P, Str], a: [{v: 1, s: "x"}, {w: 2}, {a: 3, b: 4.5}, "str"], '
            "n: 7}")
    value = {"a_type": ["X", 2, "P", "Str"],
             "a": [{"v": 1, "s": "x"}, {"w": 2}, {"a": 3, "b": 4.5}, "str"], "n": 7}
    assert encode(uv, value) == from_json(uv, text)
    assert encode(uv, {**value, "a_type": bytes([1, 2, 3, 4])}) == from_json(uv, text)
    # encode() takes the tags from the value's own _type vector, wherever it is (the bytes
    # then follow that order: the type vector is written after the values)
    swapped = {"a": value["a"], "a_type": value["a_type"], "n": 7}
    assert decode(uv, encode(uv, swapped)) == decode(uv, from_json(uv, text))
    # no values and no types: flatc writes the empty values alone, which its verifier
    # rejects; encode() writes an empty type vector beside them
    empty = encode(uv, {"a": [], "n": 1})
    uv.verify(empty)
    assert decode(uv, empty) == {"a_type": [], "a": [], "n": 1}
    with pytest.raises(DecodeError, match="has values but no types"):
        uv.verify(from_json(uv, "{a: [], n: 1}"))
    with pytest.raises(EncodeError, match="missing type field for this union value: a"):
        encode(uv, {"a": [{"v": 1}]})
    # encode() wants one type per value, and never a _type vector without its values: the
    # C++ verifier rejects both
    with pytest.raises(EncodeError, match="a_type has 1 types but a has 2 values") as exc:
        encode(uv, {"a_type": ["X"], "a": [{"v": 1}, {"v": 2}]})
    assert exc.value.path == "$.a"
    with pytest.raises(EncodeError, match="a_type has 2 types but a has 1 values"):
        encode(uv, {"a_type": ["X", "Y"], "a": [{"v": 1}]})
    with pytest.raises(EncodeError, match="a_type has 1 types but a has 0 values"):
        encode(uv, {"a_type": ["X"], "a": []})
    for tags in (["X"], []):
        with pytest.raises(EncodeError, match="a_type is given without a") as exc:
            encode(uv, {"a_type": tags, "n": 1})
        assert exc.value.path == "$.a_type"
    # from_json writes what flatc -b writes: a longer type vector, or one without values,
    # which verify then rejects as the C++ verifier does
    for text in ("{a_type: [X, Y], a: [{v: 1}]}", "{a_type: [X]}"):
        with pytest.raises(DecodeError, match=r"type vector|has types but no values"):
            uv.verify(from_json(uv, text))
    with pytest.raises(EncodeError, match="union types vector smaller") as exc:
        from_json(uv, "{a_type: [X], a: [{v: 1}, {v: 2}]}")
    assert exc.value.path == "$.a"
    with pytest.raises(EncodeError, match="illegal type id for: a") as exc:
        encode(uv, {"a_type": ["X", 0], "a": [{"v": 1}, {}]})
    assert exc.value.path == "$.a[1]"
    # flatc does not look ahead for a type vector (it does for a single union's _type)
    with pytest.raises(EncodeError, match="missing type field"):
        from_json(uv, "{a: [{v: 1}], a_type: [X]}")
    with pytest.raises(EncodeError, match=r"expecting: \{ instead got: null"):
        from_json(uv, "{a_type: [X], a: [null]}")

    h = load_schema(HASHES)
    assert (encode(h, {"a": "hello", "d": "hello", "v": ["x", 3]})
            == from_json(h, '{a: "hello", d: "hello", v: ["x", 3]}'))
    assert decode(h, encode(h, {"a": "hello", "b": "hello", "c": "hello", "d": "hello"})) == {
        "a": 3069866343, "b": 1335831723, "c": 5166396678891262055,
        "d": -7307811276060410197}

    sf = load_schema(SIXTY_FOUR)
    text = '{n: 7, s: "hello", bv: [1, 2, 3], sv: [{a: 1, b: 2}], lv: [5, -6]}'
    value64: dict[str, Any] = {"n": 7, "s": "hello", "bv": b"\x01\x02\x03",
                               "sv": [(1, 2)], "lv": [5, -6]}
    assert encode(sf, value64) == from_json(sf, text)
    assert decode(sf, from_json(sf, text)) == {**value64, "bv": [1, 2, 3],
                                               "sv": [{"a": 1, "b": 2.0}]}
    # flatc's 32-bit builder writes a vector64 as StartVector (4-byte aligned data), then
    # Align(8) and the 8-byte length: when the data does not end 8-aligned, 4 padding bytes
    # land between length and data, and every reader (ours, C++'s Vector64) is off by one
    # element. encode() writes the same bytes, on purpose.
    odd = encode(sf, {"big": [7]})
    assert odd == from_json(sf, "{big: [7]}")
    assert odd[-16:] == (1).to_bytes(8, "little") + bytes(4) + (7).to_bytes(4, "little")
    assert decode(sf, odd) == {"big": [0]}


# ---------------------------------------------------------------------------------------------
# Differential: random schemas and values


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_schemas_match_flatc(flatc: str, tmp_path_factory: pytest.TempPathFactory,
                                    seed: int) -> None:
    rnd = random.Random(seed)
    fbs, root = fbs_gen.random_schema(rnd)
    schema = load_schema(fbs)
    docs = [fbs_gen.to_json(rnd, fbs_gen.random_value(rnd, schema, root)) for _ in range(6)]
    directory = tmp_path_factory.mktemp("rand")
    expected = flatc_binaries(flatc, directory, fbs, docs)
    for text, want in zip(docs, expected, strict=True):
        if want is None:
            with pytest.raises((EncodeError, DecodeError)):
                from_json(schema, text)
            continue
        got = from_json(schema, text)
        assert got == want, f"schema:\n{fbs}\njson:\n{text}"


def test_nested_vector64_object_is_written_as_flatc_writes_it(flatc: str,
                                                              tmp_path: Path) -> None:
    # flatc builds a nested_flatbuffer given as an object with its 32-bit CreateVector even
    # when the field is vector64: a 4-byte length behind the 64-bit offset. Same bytes here.
    fbs = ('table Inner { a:int; s:string; }\n'
           'table T { x:short; nested:[ubyte] (vector64, nested_flatbuffer: "Inner"); }\n'
           'root_type T;\n')
    values: list[dict[str, Any]] = [{"nested": {"a": 1}},
                                    {"x": 3, "nested": {"a": -5, "s": "hi"}}, {"nested": {}}]
    docs = ['{nested: {a: 1}}', '{x: 3, nested: {a: -5, s: "hi"}}', '{nested: {}}']
    expected = flatc_binaries(flatc, tmp_path, fbs, docs)
    schema = load_schema(fbs)
    for text, value, want in zip(docs, values, expected, strict=True):
        assert want is not None
        assert from_json(schema, text) == want
        assert encode(schema, value) == want
    want = expected[0]
    assert want is not None
    assert int.from_bytes(want[24:28], "little") == len(want) - 28  # the 32-bit length


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_flatc_reads_our_random_buffers_as_we_print_them(
        flatc: str, tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    # encode() of random values (C encoder where it applies): flatc --json --strict-json on
    # our bytes prints exactly what our to_json prints (flatc aborts on vector64 fields)
    rnd = random.Random(seed)
    fbs, root = fbs_gen.random_schema(rnd)
    if "vector64" in fbs:
        return
    schema = load_schema(fbs)
    buffers = []
    for _ in range(4):
        try:
            buffers.append(encode(schema, fbs_gen.random_value(rnd, schema, root)))
        except EncodeError:
            continue
    directory = tmp_path_factory.mktemp("back")
    (directory / "s.fbs").write_text(fbs, encoding="utf-8")
    names = []
    for i, data in enumerate(buffers):
        (directory / f"b{i}.bin").write_bytes(data)
        names.append(f"b{i}.bin")
    out = directory / "out"
    subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "-o", str(out), "s.fbs",
                    "--", *names], cwd=directory, check=True, capture_output=True)
    for i, data in enumerate(buffers):
        printed = (out / f"b{i}.json").read_text(encoding="utf-8")
        assert to_json(schema, data) == printed, f"schema:\n{fbs}"
