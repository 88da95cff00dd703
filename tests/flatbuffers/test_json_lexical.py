"""Every lexical form of flatc's JSON reader, against ``flatc -b`` (25.12.19).

flatc reads JSON with the tokenizer of its schema parser (``idl_parser.cpp``, ``Next``,
``ParseSingleValue``, ``ParseTableDelimiters``): strings in double or single quotes with JSON's
escapes plus ``\\'`` and ``\\xNN``, ``\\u`` surrogate pairs, no raw control characters;
identifiers as keys and as values (enum names, ``true``, ``nan``, ``inf``); decimal, hex and
hex-float numbers with a leading ``+`` or ``-``; scalars in quotes; conversion functions
(``rad(180)``); tables and structs as arrays of their fields in order; ``//``, ``/* */`` and
``///`` comments; trailing commas (not with ``--strict-json``); a ``"$schema"`` key. Each
document below goes through ``flatc -b`` at test time and through ``from_json``: where flatc
writes bytes we must write the same bytes, where it refuses the document we must raise
``DecodeError`` or ``EncodeError``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import load_schema

SCHEMA = """
enum Color : short { Red = -1, Green = 4, Blue }
enum Flags : ubyte (bit_flags) { A, B, C = 5 }
struct Vec3 { x:float; y:float; z:float; }
table Sub { n:int; s:string; }
union U { Sub, V: Vec3, S: string }
struct Outer { v:Vec3; h:uint (hash: "fnv1a_32"); }
table T {
  s:string; b:bool; i8:byte; u8:ubyte; i16:short; u16:ushort; i32:int; u32:uint;
  i64:long; u64:ulong; f32:float; f64:double; c:Color = Green; fl:Flags; o8:byte = null;
  v:Vec3; vs:[string]; vi:[int]; t:Sub; u:U; ts:[Sub]; vf:[float]; vv:[Vec3];
  h:uint (hash: "fnv1a_32"); h16:short (hash: "fnv1_16"); vh:[uint] (hash: "fnv1a_32");
  fx:[ubyte] (flexbuffer); nest:[ubyte] (nested_flatbuffer: "Sub"); out:Outer;
}
root_type T;
"""

STRINGS = [
    # quotes
    "{s: 'text'}", "{s: 'it\\'s'}", "{s: \"a'b\"}", "{s: 'a\"b'}", "{'s': 'x'}",
    "{\"s\": 'x'}", "{s: ''}", "{s: 'a\" + \"b'}", "{s: 'unterminated}", "{s: \"x'}",
    # escapes
    "{s: \"\\n\\t\\r\\b\\f\\\"\\'\\\\\\/\"}", "{s: '\\n\\t\\'\\\"'}",
    "{s: \"\\x41\\x7f\\x00z\"}", "{s: \"\\xff\"}", "{s: \"\\xc3\\xa9\"}", "{s: \"\\x4\"}",
    "{s: \"\\x4g\"}", "{s: \"\\X41\"}", "{s: \"\\u00e9\\u00E9\"}", "{s: \"\\ud83d\\ude00\"}",
    "{s: \"\\ud83d\"}", "{s: \"\\ude00\"}", "{s: \"\\ud83dx\"}", "{s: \"\\ud83d\\ud83d\\ude00\"}",
    "{s: \"\\ud83d\\n\"}", "{s: \"\\ud83d\\u0041\"}", "{s: \"\\u0000a\"}", "{s: \"\\a\"}",
    "{s: \"\\U0001F600\"}", "{s: \"\\u12\"}", "{s: \"\\u12g4\"}", "{s: \"\\\"}",
    # raw characters
    "{s: \"a\tb\"}", "{s: \"a\nb\"}", "{s: \"a\rb\"}", "{s: \"a\x7fb\"}", "{s: \"a\x01b\"}",
    "{s: 'a\x1fb'}", "{s: \"h\u00e9llo \u4e2d \U0001f600\"}",
    # other tokens where a string is expected
    "{s: text}", "{s: 5}", "{s: null}", "{s: true}", "{s: [\"x\"]}", "{vs: ['a', \"b\", '']}",
    "{vs: [null]}", "{vs: [a]}",
]

KEYS_AND_STRUCTURE = [
    "{\"n\\u0061me\": 1}", "{\"s\\u0000\": \"x\"}", "{'s': 'x', \"i8\": 1, u8: 2}", "{a1: 1}",
    "{1: 2}", "{_s: 1}", "{s : \"x\" , }", "{s: \"x\",}", "{,s: \"x\"}", "{s: \"x\",,}",
    "{s: \"x\" b: true}", "{s \"x\"}", "{vi: [1,2,],}", "{vi: [,1]}", "{vi: [1 2]}",
    "{vi: [1,,2]}", "{vi: []}", "{vi: [ ]}", "{}", "{ }", "{s: \"x\", s: \"y\"}", "{zz: 1}",
    "{S: \"x\"}", "{\"$schema\": \"x\"}", "{\"$schema\": 'x', s: \"y\"}", "{$schema: \"x\"}",
    "{\"$schema\": 5}", "{\"$schema\": \"x\", \"$schema\": \"y\"}", "{'$schema': \"x\"}",
    "{\"$other\": \"x\"}",
    # comments and white space
    "{}//x", "{}/*x*/", "{}/*x", "/*x*/{}", "{/*x*/}", "{s: /* a */ \"x\" /* b */}",
    "{s: \"x\" // doc\n}", "{\n/// doc\ns: \"x\"}", "{s: \"x\" /// doc\n}", "/// doc\n{}",
    "{} /// doc", "{s: \"x\"}\n/// doc\n", "# c\n{}", "{s: \"x\"} # c",
    "{\fs: \"x\"}", "{\vs: \"x\"}", "{\u00a0s: \"x\"}", "{\rs:\r\"x\"\r}", "{\ts:\t\"x\"}",
    # the document as a whole
    "{}\n{}", "{} x", "{} ;", "{} }", "[]", "", " ", "// only a comment", "\ufeff{}",
    "{\ufeff}", "\ufeff\ufeff{}", "{s: \"x\"}\x00garbage", "{s: \"x\"\x00}", "{s: \"x\"",
    "{s: \"x\"}}",
]

NUMBERS = [
    # integers
    "{i32: 0x1F}", "{i32: 0X1f}", "{i32: -0x10}", "{i32: +0x10}", "{i32: 0x}", "{i32: 0xg}",
    "{i32: 007}", "{i32: 0o7}", "{i32: 0b101}", "{i32: +5}", "{i32: + 5}", "{i32: --5}",
    "{i32: -}", "{i32: +}", "{i32: 1_000}", "{i32: 1.0}", "{i32: 1e3}", "{i32: \"1.5\"}",
    "{i32: \"5 \"}", "{i32: \" 5\"}", "{i32: \"+5\"}", "{i32: \"0x10\"}", "{i32: '0x10'}",
    "{i32: \"\"}", "{i32: \"5x\"}", "{i32: '-7'}", "{i32: 2147483648}", "{i32: -2147483649}",
    "{i8: 128}", "{i8: -129}", "{u8: 256}", "{u8: -1}", "{u32: -1}", "{u64: -1}",
    "{u64: 18446744073709551615}", "{u64: 18446744073709551616}",
    "{i64: -9223372036854775808}", "{i64: 9223372036854775808}",
    "{u64: 0xffffffffffffffff}", "{i64: 0xffffffffffffffff}", "{i64: -0x8000000000000000}",
    "{i16: 0x8000}", "{u16: 0xffff}", "{vi: [\"1\", 0x2, +3, '-4']}",
    # floats
    "{f32: 0x1.8p1}", "{f32: 0X1P3}", "{f32: 0x1p-2}", "{f32: 0x10}", "{f32: \"0x10\"}",
    "{f32: \"0x1p4\"}", "{f32: 0x.8p1}", "{f32: 0x1.}", "{f32: .5}", "{f32: 5.}",
    "{f32: 5.e3}", "{f32: 5.5.5}", "{f32: 1e5.5}", "{f32: 1e}", "{f32: 1e+}", "{f32: 1E-2}",
    "{f32: +.5}", "{f32: -.5}", "{f32: .}", "{f32: -.}", "{f32: .e1}", "{f32: +inf}",
    "{f32: -inf}", "{f32: inf}", "{f32: infinity}", "{f32: -infinity}", "{f32: Infinity}",
    "{f32: INF}", "{f32: nan}", "{f32: NaN}", "{f32: -nan}", "{f32: +nan}", "{f32: NAN}",
    "{f32: \"nan\"}", "{f32: '-inf'}", "{f32: \"nan(1)\"}", "{f32: nan(1)}", "{f32: \"1.5 \"}",
    "{f32: \" 1.5\"}", "{f32: \"1.5x\"}", "{f32: 1e400}", "{f32: 1e39}", "{f64: 1e400}",
    "{f32: 1e-400}", "{f64: 1e-400}", "{f32: 3.4028235e38}", "{f32: 3.4028236e38}",
    "{f32: 1}", "{f32: true}", "{f32: pi}", "{f64: -0.0}", "{f64: 0.1e-0}", "{f64: 1e0001}",
    "{vf: [nan, -inf, '1.5', .5, 0x1p1]}",
    # conversion functions (flatc computes them in double precision)
    "{f32: rad(180)}", "{f32: deg(3.14159)}", "{f32: sin(0)}", "{f32: cos(0)}",
    "{f32: tan(1)}", "{f32: asin(1)}", "{f32: acos(1)}", "{f32: atan(1)}", "{f32: -cos(0)}",
    "{f32: +rad(1)}", "{f32: rad(deg(1))}", "{f32: rad(-inf)}", "{f32: rad(nan)}",
    "{f32: rad (1)}", "{f32: rad( 1 )}", "{f32: sqrt(4)}", "{f32: Rad(1)}", "{f64: rad(1)}",
    "{i32: rad(1)}", "{f32: rad(\"1\")}", "{f32: rad('2')}", "{f32: rad(1}", "{f32: rad()}",
    "{f32: rad(1, 2)}", "{f32: rad(0x1p1)}", "{f32: rad(0x10)}", "{f32: rad(Blue)}",
    "{f32: rad(true)}", "{f32: \"rad(1)\"}", "{f64: asin(2)}", "{f32: rad(1e400)}",
    "{v: {x: rad(90), y: 1, z: 2}}", "{vi: [rad(1)]}", "{vf: [rad(1), deg(1)]}",
    "{b: rad(1)}", "{c: rad(1)}", "{o8: rad(1)}",
]

SCALARS = [
    # bools
    "{b: 1}", "{b: 2}", "{b: -1}", "{b: true}", "{b: \"true\"}", "{b: 'false'}", "{b: True}",
    "{b: \"True\"}", "{b: null}", "{b: 1.0}", "{b: \"1\"}", "{b: 0x1}",
    # enums and flags
    "{c: Blue}", "{c: \"Blue\"}", "{c: 'Blue'}", "{c: Color.Blue}", "{c: \"Color.Blue\"}",
    "{c: 5}", "{c: 100}", "{c: \"Red Green\"}", "{c: \"Red  Green\"}", "{c: \" Red\"}",
    "{c: \"Red \"}", "{c: Purple}", "{c: -Red}", "{c: \"-1\"}", "{c: '4'}", "{fl: A}",
    "{fl: \"A B\"}", "{fl: \"A C\"}", "{fl: 'A B'}", "{fl: 255}", "{fl: Flags.A}", "{fl: \"\"}",
    "{fl: \"Flags.A\"}", "{i32: Color.Blue}", "{i32: \"Color.Blue\"}", "{i32: 'Color.Red'}",
    "{i32: Blue}", "{i32: \"Color.Nope\"}", "{i32: \"Nope.Blue\"}",
    "{i32: \"Color.Red Color.Blue\"}", "{i32: \"Flags.A Flags.C\"}", "{f32: \"Color.Blue\"}",
    "{s: Color.Blue}",
    # null
    "{i32: null}", "{o8: null}", "{o8: 'null'}", "{o8: \"null\"}", "{i32: \"null\"}",
    "{o8: 0}", "{o8: NULL}", "{v: null}", "{t: null}", "{vs: null}", "{vi: [null]}",
    "{u: null}", "{u_type: Sub, u: null}", "{u: null, u_type: Sub}", "{i32: nil}",
    # escapes in scalars given as strings
    "{i32: \"\\u0035\"}", "{c: \"Bl\\x75e\"}", "{b: \"tru\\u0065\"}",
]

AGGREGATES = [
    # structs and tables as arrays of their fields in declaration order
    "{v: [1, 2, 3]}", "{v: [1, 2]}", "{v: [1, 2, 3, 4]}", "{v: [1, 2, 3,]}", "{v: []}",
    "{v: {x: 1, y: 2}}", "{v: {x: 1, y: 2, z: 3, w: 4}}", "{vv: [[1, 2, 3], {x: 4, y: 5, z: 6}]}",
    "{t: [5, \"x\"]}", "{t: [5]}", "{t: []}", "{t: [5, \"x\", 6]}", "{t: [null, \"x\"]}",
    "{t: [5, null]}", "{ts: [[1, \"a\"], {n: 2}]}", "{t: [[1], \"x\"]}",
    # unions
    "{u_type: Sub, u: {n: 1}}", "{u_type: 'Sub', u: {n: 1}}", "{u_type: \"Sub\", u: [1, \"x\"]}",
    "{u: {n: 1}, u_type: Sub}", "{u: {n: 1}, 'u_type': Sub}", "{u: {n: 1}, \"u_type\": 'Sub'}",
    "{u: {n: 'x'}, u_type: Sub}", "{u: [1, 'x'], u_type: Sub}", "{u_type: NONE}", "{u_type: 0}",
    "{u_type: Sub}", "{u_type: V, u: [1, 2, 3]}", "{u: [1, 2, 3], u_type: V}",
    "{u_type: S, u: 'str'}", "{u: 'str', u_type: S}", "{u_type: 3, u: \"x\"}",
    "{u: rad(1), u_type: S}", "{u: {n: rad(1)}, u_type: Sub}", "{u: {n: 0x10}, u_type: Sub}",
    "{u: {s: \"\\x41\"}, u_type: Sub}", "{u: {s: '\\ud83d'}, u_type: Sub}",
    "{u: {n: 1} /* c */, u_type: Sub}", "{u: {n: 1}, /// doc\n u_type: Sub}",
    "{u: {n: 1},\n /// doc\n u_type: Sub}", "{u: {n: nan}, u_type: Sub}",
    "{u: {n: -inf}, u_type: Sub}", "{u: {n: -Blue}, u_type: Sub}", "{u: {n: .5}, u_type: Sub}",
    "{u: {n: Blue}, u_type: Sub}", "{u: {n: 1}, u_type: Sub, u_type: Sub}",
    "{u: {n: 1}, s: \"x\", u_type: Sub}",
    "{s: 'x', t: {n: 1,}, }", "{i32: 1, vi: [1, 2], t: {n: 1, s: 'z'}, v: [1, 2, 3],}",
]

NULLS_AND_REPEATS = [
    # a null for a field that is no scalar is ignored, so such a field may come twice
    "{s: \"x\", s: null}", "{s: null, s: \"x\"}", "{s: null, s: null}", "{i32: 1, i32: null}",
    "{o8: null, o8: 1}", "{t: null, t: {n: 1}}", "{u: null, u: null}", "{t: {n: 1}, t: null}",
    "{s: \"null\", s: null}", "{o8: \"null\", o8: 1}", "{v: {x: 1, y: 2, z: 3, x: null}}",
    "{u_type: Sub, u: {n: 1, n: null}}", "{ts: [{s: null, s: 'a'}, {n: 1, n: null}]}",
    "{s: null, t: {n: 1}, s: 'x', vi: [1]}",
    # "null" in quotes is null for a scalar, a string for a string
    "{s: 'null'}", "{i32: 'null'}", "{t: {n: null}}", "{t: {n: 'null'}}", "{vi: ['null']}",
    "{v: {x: 'null', y: 2, z: 3}}", "{b: 'null'}", "{c: \"null\"}",
    # hash fields hash the word null
    "{h: null}", "{h: \"null\"}", "{h: 'null'}", "{h: nul}", "{h16: null}", "{h16: 'null'}",
    "{vh: ['null', 'x', 5]}", "{out: {v: [1, 2, 3], h: 'null'}}", "{out: {v: [1, 2, 3], h: null}}",
    "{out: {v: null, h: 1}}", "{h: null, h: null}",
    # "$schema": a string, ignored by tables (structs too), a key like any in FlexBuffers
    "{\"$schema\": null}", "{\"$schema\": \"a\", \"$schema\": 'b'}", "{\"$schema\": x}",
    "{t: {\"$schema\": \"x\", n: 1}}", "{v: {\"$schema\": \"x\", x: 1, y: 2, z: 3}}",
    "{u: {n: 1}, \"$schema\": 'x', u_type: Sub}", "{\"$schema\": 'x', u: {n: 1}, u_type: Sub}",
    "{fx: {\"$schema\": 5}}", "{fx: {\"$schema\": 'a', \"$schema\": 'b'}}",
    # FlexBuffers and nested flatbuffers
    "{fx: {a: 1, a: null}}", "{fx: {a: null, a: null}}", "{fx: rad(1)}", "{fx: [nan(1)]}",
    "{fx: 'null'}", "{fx: {a: 'x', b: [1, 'y', null, -inf, +nan, 0x10]}}", "{fx: [\"\\u00e9\"]}",
    "{fx: {'k': 'v'}}", "{nest: {n: 1, s: 'x'}}", "{nest: {n: Blue}}", "{nest: {n: 0x10}}",
    "{nest: [1, 'x']}", "{nest: {n: rad(1)}}", "{nest: {\"$schema\": 'x'}}",
    "{nest: {s: null, s: 'y'}}", "{nest: {n: 'null'}}", "{nest: {s: '\\x41'}}",
]

STRICT = [
    "{\"s\": \"x\"}", "{s: \"x\"}", "{'s': 'x'}", "{\"s\": 'x'}", "{\"s\": \"x\",}", "{}",
    "{\"vi\": [1, 2,]}", "{\"vi\": []}", "{\"vi\": [,]}", "{\"c\": Blue}", "{\"f32\": nan}",
    "{\"v\": [1, 2, 3]}", "{\"t\": [1, \"x\",]}", "{\"$schema\": \"x\"}", "{\"s\": \"x\"} // c",
    "{\"f32\": rad(1)}", "{\"i32\": 0x10}", "{\"i32\": +1}",
]


def flatc_outputs(flatc: str, work: Path, docs: list[str],
                  options: tuple[str, ...] = ()) -> list[bytes | None]:
    """``flatc -b`` of each document (one process for all; one each when any fails), None
    where flatc refuses it."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "s.fbs").write_text(SCHEMA, encoding="utf-8")
    names = []
    for i, doc in enumerate(docs):
        (work / f"d{i}.json").write_bytes(doc.encode("utf-8"))
        names.append(f"d{i}.json")

    def run(batch: list[str]) -> bool:
        proc = subprocess.run([flatc, "-b", *options, "-o", "out", "s.fbs", *batch], cwd=work,
                              capture_output=True, check=False)
        return proc.returncode == 0

    if not run(names):
        for name in names:
            run([name])
    return [(work / "out" / (n[:-5] + ".bin")).read_bytes()
            if (work / "out" / (n[:-5] + ".bin")).exists() else None for n in names]


GROUPS = {"strings": STRINGS, "keys-and-structure": KEYS_AND_STRUCTURE, "numbers": NUMBERS,
          "scalars": SCALARS, "aggregates": AGGREGATES, "nulls-and-repeats": NULLS_AND_REPEATS}


@pytest.mark.parametrize("group", [*GROUPS, "strict"])
def test_json_lexical_forms_as_flatc(flatc: str, tmp_path: Path, group: str) -> None:
    strict = group == "strict"
    docs = STRICT if strict else GROUPS[group]
    expected = flatc_outputs(flatc, tmp_path, docs, ("--strict-json",) if strict else ())
    schema = load_schema(SCHEMA)
    wrong = []
    for doc, want in zip(docs, expected, strict=True):
        try:
            got: bytes | str = schema.from_json(doc, strict=strict)
        except (DecodeError, EncodeError) as exc:
            got = f"{type(exc).__name__}: {exc}"
        if want is None and isinstance(got, bytes):
            wrong.append(f"{doc!r}: flatc refuses it, from_json accepts it")
        elif want is not None and got != want:
            wrong.append(f"{doc!r}: flatc writes {want.hex()}, from_json gives {got!r}")
    assert not wrong, "\n".join(wrong)


def test_flatc_accepts_most_of_these(flatc: str, tmp_path: Path) -> None:
    # guard against a broken oracle run silently turning every case into "both refuse"
    docs = STRINGS[:5] + NUMBERS[:4]
    assert all(b is not None for b in flatc_outputs(flatc, tmp_path, docs))
