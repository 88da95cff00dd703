"""``annotate`` / ``gameserde inspect flatbuffers``: byte-identical to ``flatc --annotate``.

Each case is a schema and a JSON document; ``flatc -b`` makes the binary, ``flatc --annotate``
the expected ``.afb`` text, which :func:`annotate` must reproduce exactly, for the valid
buffer and for broken ones (truncations, mutated bytes): flatc marks those with its own
``ERROR:``/``WARN:`` rows, which are reproduced too. Tests that need flatc fail when CI=true
and flatc is missing, and are skipped otherwise.
"""

from __future__ import annotations

import random
import re
import struct
import subprocess
from pathlib import Path

import pytest

from gameserde.cli import main
from gameserde.errors import DecodeError
from gameserde.flatbuffers import load_schema
from gameserde.flatbuffers.inspect import annotate
from tests.flatbuffers.flatc_tool import flatc

MONSTER = ("""namespace Game;
enum Color : byte { Red = 0, Green, Blue = 2 }
struct Vec3 { x:float; y:float; z:float; }
table Weapon { name:string; damage:short; }
union Equip { Weapon }
table Monster {
  pos:Vec3;
  mana:short = 150;
  hp:short = 100;
  name:string;
  friendly:bool = false (deprecated);
  inventory:[ubyte];
  color:Color = Blue;
  weapons:[Weapon];
  equipped:Equip;
  path:[Vec3];
  names:[string];
}
root_type Monster;
file_identifier "MONS";
""", """{pos:{x:1,y:2,z:3}, hp:300, name:"Orc", inventory:[0,1,2,3,4], color:"Red",
 weapons:[{name:"Sword",damage:3},{name:"Axe",damage:5}],
 equipped_type:"Weapon", equipped:{name:"Axe",damage:5},
 path:[{x:1,y:2,z:3},{x:4,y:5,z:6}], names:["a","bc"]}""")

# Every scalar type, nan/inf defaults, optional scalars, enums and bit flags, nested structs
# with arrays and padding, required/empty/non-ASCII strings, vectors of every kind, unions of
# tables, structs and strings, vectors of unions, nested_flatbuffer, deprecated fields.
EVERYTHING = ("""namespace T.All;
enum Kind : ubyte { Z, A, B, C }
enum Flags : ushort (bit_flags) { X, Y, Z }
struct Inner { a:byte; b:long; }
struct Outer { i:Inner; arr:[short:3]; k:Kind; f:[float:2]; ins:[Inner:2]; }
table Leaf { v:int; s:string; }
table Nest { q:uint = 7; }
union Any { Leaf, Outer, Str:string, Nest }
table Root {
  b:byte = -3; ub:ubyte; bo:bool = true; sh:short; ush:ushort = 9; i:int = -1; ui:uint;
  l:long; ul:ulong = 18446744073709551615; f:float = 1.5; d:double = 3.25;
  fn:float = nan; fi:double = inf; fm:float = -inf;
  o:int = null; ob:bool = null;
  kind:Kind = B; flags:Flags = "X Z";
  outer:Outer; name:string (required); empty:string; uni:string;
  vb:[bool]; vd:[double]; vl:[long]; vk:[Kind]; vs:[string]; vo:[Outer]; vt:[Leaf];
  any:Any; many:[Any];
  nested:[ubyte] (nested_flatbuffer: "Nest");
  old:short (deprecated);
  after:short = 4;
}
root_type Root;
""", """{b:5, ub:200, bo:false, sh:-2, ush:3, i:70000, ui:4000000000, l:-5, ul:5, f:0.1,
 d:1e300, o:0, ob:true, kind:"C", flags:"Y",
 outer:{i:{a:-1,b:12345678901},arr:[1,2,3],k:"A",f:[0.5,1e-7],ins:[{a:1,b:2},{a:3,b:4}]},
 name:"a fairly long name that spans lines", empty:"", uni:"héllo wörld ünïcode",
 vb:[true,false,true], vd:[1.5,-2.25], vl:[1,-1], vk:["A","C"], vs:["x","yy","zzz"],
 vo:[{i:{a:1,b:1},arr:[4,5,6],k:"B",f:[1,2],ins:[{a:5,b:6},{a:7,b:8}]}],
 vt:[{v:1,s:"l1"},{v:2},{s:"l3"}],
 any_type:"Outer", any:{i:{a:9,b:9},arr:[7,8,9],k:"C",f:[3,4],ins:[{a:1,b:1},{a:2,b:2}]},
 many_type:["Leaf","Str","Nest","Outer"],
 many:[{v:10,s:"m"},"strmember",{q:1},
       {i:{a:9,b:9},arr:[7,8,9],k:"C",f:[3,4],ins:[{a:1,b:1},{a:2,b:2}]}],
 nested:{q:5}, after:6}""")

# Explicit ids (vtable order differs from declaration order), a huge ulong default (flatc
# shows 0: reflection keeps an int64), every field absent, a table of more than 255 bytes.
IDS = ("""table Big { c:string (id: 2); a:ulong = 18446744073709551615 (id: 0);
  b:[int] (id: 1); d:double = 0.5 (id: 3); e:short (id: 5); f:bool (id: 4); }
root_type Big;
""", """{c:"%s", b:[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}""" % ("x" * 300))

EMPTY = ("""table E { a:int = 5; s:string; v:[E]; }
root_type E;
""", "{}")

# Explicit union values: flatc indexes the union's values by position, so `B = 7` is flagged
# "Invalid union type value" and not followed (reproduced as it is).
UNION_VALUES = ("""table A { x:int; }
table B { s:string; }
struct P { a:short; b:double; }
union U { A = 3, B = 7, P = 9 }
table R { u:U; us:[U]; }
root_type R;
""", """{u_type:"B", u:{s:"hi"}, us_type:["A","P","B"], us:[{x:1},{a:1,b:2},{s:"x"}]}""")

# 64-bit offsets and vectors.
OFFSET64 = ("""table R { a:int; big:[ubyte] (vector64); s:string (offset64);
  v:[int] (offset64); n:string; }
root_type R;
""", """{a:1, big:[1,2,3], s:"far", v:[7,8], n:"near"}""")

CASES = {"monster": MONSTER, "everything": EVERYTHING, "ids": IDS, "empty": EMPTY,
         "union_values": UNION_VALUES, "offset64": OFFSET64}


def _build(tmp_path: Path, name: str) -> tuple[Path, bytes]:
    """Write the case's schema and JSON, run ``flatc -b``; return the directory and binary."""
    fbs, doc = CASES[name]
    (tmp_path / "s.fbs").write_text(fbs, encoding="utf-8")
    (tmp_path / "d.json").write_text(doc, encoding="utf-8")
    subprocess.run([flatc(), "-b", "s.fbs", "d.json"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    return tmp_path, (tmp_path / "d.bin").read_bytes()


def _flatc_annotate(directory: Path, data: bytes, name: str = "case.bin") -> bytes:
    (directory / name).write_bytes(data)
    afb = directory / (name.rsplit(".", 1)[0] + ".afb")
    if afb.exists():
        afb.unlink()
    subprocess.run([flatc(), "--annotate", "s.fbs", "--", name], cwd=directory, check=True,
                   capture_output=True, timeout=60)
    return afb.read_bytes()


def _ours(directory: Path, data: bytes, name: str = "case.bin", *,
          include_vector_contents: bool = True, verify: bool = True) -> bytes:
    schema = load_schema(directory / "s.fbs")
    text = annotate(schema, data, schema_file="s.fbs", binary_file=name,
                    include_vector_contents=include_vector_contents, verify=verify)
    return text.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("name", sorted(CASES))
def test_identical_to_flatc(tmp_path: Path, name: str) -> None:
    directory, data = _build(tmp_path, name)
    want = _flatc_annotate(directory, data)
    assert _ours(directory, data) == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_vectors_identical_to_flatc(tmp_path: Path, name: str) -> None:
    directory, data = _build(tmp_path, name)
    (directory / "case.bin").write_bytes(data)
    subprocess.run([flatc(), "--annotate", "s.fbs", "--annotate-sparse-vectors", "--",
                    "case.bin"], cwd=directory, check=True, capture_output=True, timeout=60)
    want = (directory / "case.afb").read_bytes()
    assert _ours(directory, data, include_vector_contents=False) == want


def test_everything_covers_every_kind(tmp_path: Path) -> None:
    directory, data = _build(tmp_path, "everything")
    text = _ours(directory, data).decode("utf-8", "surrogateescape")
    for needle in ("root_table (T.All.Root):",
                   "<defaults to nan> (Float)", "<defaults to inf> (Double)",
                   "<defaults to -inf> (Float)", "`old` (id: 34) <defaults to 0> (Short)",
                   "array field `outer.arr`[2] of 'T.All.Outer' (Short)",
                   "struct field `outer.ins.b` of 'T.All.Inner' (Long)",
                   "union of type `Outer`", "offset to union[1] (`Str`)",
                   "union (T.All.Outer.any):", "vector (T.All.Root.nested):",
                   "offset to table[2]", "offset to string[2]", "value[1]",
                   "WARN: nothing refers to this section.", "string terminator"):
        assert needle in text, needle
    assert "// verifier:" not in text


# -- broken buffers ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_truncations_identical_to_flatc(tmp_path: Path, name: str) -> None:
    directory, data = _build(tmp_path, name)
    schema = load_schema(directory / "s.fbs")
    step = max(1, (len(data) - 12) // 40)
    for n in range(12, len(data), step):
        cut = data[:n]
        assert _ours(directory, cut, verify=False) == _flatc_annotate(directory, cut), n
        text = annotate(schema, cut)
        try:
            schema.verify(cut)
        except DecodeError as e:
            assert f"// verifier: {e}\n// +0x" in text
        else:  # only padding or unreferenced bytes were cut off
            assert "// verifier" not in text


@pytest.mark.parametrize("name", ["monster", "everything"])
def test_mutations_identical_to_flatc(tmp_path: Path, name: str) -> None:
    directory, data = _build(tmp_path, name)
    rnd = random.Random(name)
    for _ in range(60):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(len(b))
            b[i] = rnd.choice([0, 0xFF, rnd.randrange(256), b[i] ^ (1 << rnd.randrange(8))])
        mutated = bytes(b)
        assert _ours(directory, mutated, verify=False) == _flatc_annotate(directory, mutated)


def test_bad_offsets_are_marked() -> None:
    schema = load_schema(MONSTER[0])
    data = bytearray(schema.from_json(MONSTER[1]))
    root = struct.unpack_from("<I", data, 0)[0]
    vt = root - struct.unpack_from("<i", data, root)[0]
    name_slot = root + struct.unpack_from("<H", data, vt + 4 + 2 * 3)[0]
    struct.pack_into("<I", data, name_slot, 0x7FFFFFF0)
    text = annotate(schema, bytes(data))
    assert ("offset to field `name`. Invalid offset, points outside the binary." in text)
    assert "// verifier: flatbuffers decode error at byte" in text
    # the root offset itself out of the binary
    bad_root = struct.pack("<I", 0xFFFFFF00) + bytes(data[4:])
    text = annotate(schema, bad_root)
    assert "ERROR: offset to root table `Game.Monster`. Invalid offset" in text


def test_garbage_raises_only_decode_error() -> None:
    schema = load_schema(EVERYTHING[0])
    rnd = random.Random(7)
    for _ in range(400):
        data = bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 120)))
        for size_prefixed in (False, True):
            try:
                text = annotate(schema, data, size_prefixed=size_prefixed)
            except DecodeError as e:
                assert len(data) < 12, e
            else:
                assert text.startswith("// Annotated Flatbuffer Binary")


def test_short_buffer_is_a_decode_error() -> None:
    """The verifier's message, as decode and verify say it."""
    schema = load_schema(MONSTER[0])
    with pytest.raises(DecodeError) as info:
        annotate(schema, b"\x0c\x00\x00\x00")
    with pytest.raises(DecodeError) as verified:
        schema.verify(b"\x0c\x00\x00\x00")
    assert str(info.value) == str(verified.value) == (
        "flatbuffers decode error at byte 0 (0x0): the 4-byte buffer is shorter than the 12 "
        "bytes of the smallest flatbuffer")


def test_deep_chain_is_bounded() -> None:
    schema = load_schema("table Node { next:Node; }\nroot_type Node;\n")
    data = bytearray(struct.pack("<I", 12) + bytes([6, 0, 8, 0, 4, 0, 0, 0]))
    for k in range(3000):
        data += struct.pack("<iI", 12 + 8 * k - 4, 4)
    text = annotate(schema, bytes(data))
    assert text.count("offset to field `next` (table)") == 2999
    assert "offset to field `next`. Invalid offset, points outside the binary." in text
    assert "more than max_depth=64" in text


# -- size prefix ------------------------------------------------------------------------------

_ROW = re.compile(r"^  \+0x([0-9A-F]+) \| ([0-9A-F ]+?) *\| (\S+) *\| .*?\| (.*)$")


def _rows(text: str, shift: int = 0) -> list[tuple[int, str, str, str]]:
    out = []
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            out.append((int(m[1], 16) + shift, m[2], m[3], m[4]))
    return out


@pytest.mark.parametrize("name", ["monster", "everything"])
def test_size_prefixed_matches_flatc_region_by_region(tmp_path: Path, name: str) -> None:
    """flatc 25.12.19 writes nothing but the comment lines for ``--size-prefixed`` (fixed
    upstream later); compare with flatc's annotation of the same buffer without its prefix."""
    directory, _ = _build(tmp_path, name)
    subprocess.run([flatc(), "-b", "--size-prefixed", "-o", "sp", "s.fbs", "d.json"],
                   cwd=directory, check=True, capture_output=True, timeout=60)
    data = (directory / "sp" / "d.bin").read_bytes()
    schema = load_schema(directory / "s.fbs")
    ours = annotate(schema, data, size_prefixed=True, verify=False)
    rows = _rows(ours)
    assert rows[0][:3] == (0, " ".join(f"{b:02X}" for b in data[:4]), "uint32_t")
    assert rows[0][3] == "size prefix"
    want = _rows(_flatc_annotate(directory, data[4:]).decode("utf-8", "surrogateescape"), 4)
    assert rows[1:] == want


# -- CLI --------------------------------------------------------------------------------------


def test_cli_inspect_prints_flatc_text(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    directory, data = _build(tmp_path, "monster")
    want = _flatc_annotate(directory, data)
    monkeypatch.chdir(directory)
    assert main(["inspect", "flatbuffers", "-s", "s.fbs", "--annotate", "case.bin"]) == 0
    assert capsysbinary.readouterr().out == want
    assert main(["inspect", "flatbuffers", "-s", "s.fbs", "--annotate",
                 "--annotate-sparse-vectors", "case.bin", "-o", "out.afb"]) == 0
    sparse = (directory / "out.afb").read_bytes()
    assert sparse.startswith(b"// Annotated Flatbuffer Binary") and b"regions omitted" in sparse


def test_cli_inspect_broken_and_short(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    schema = load_schema(MONSTER[0])
    data = schema.from_json(MONSTER[1])
    (tmp_path / "s.fbs").write_text(MONSTER[0], encoding="utf-8")
    (tmp_path / "cut.bin").write_bytes(data[:40])
    (tmp_path / "tiny.bin").write_bytes(data[:8])
    monkeypatch.chdir(tmp_path)
    assert main(["inspect", "flatbuffers", "-s", "s.fbs", "--annotate",
                 "cut.bin"]) == 1  # the map, then why
    captured = capsysbinary.readouterr()
    out = captured.out.decode()
    assert "ERROR:" in out and "// verifier: flatbuffers decode error" in out
    assert captured.err.decode().startswith("gameserde: cut.bin: flatbuffers decode error at")
    assert main(["inspect", "flatbuffers", "-s", "s.fbs", "--annotate", "tiny.bin"]) == 1
    captured = capsysbinary.readouterr()
    assert b"shorter than the 12 bytes" in captured.err
    assert captured.out == b"// Annotated Flatbuffer Binary\n//\n// Schema file: s.fbs\n" \
                           b"// Binary file: tiny.bin\n"
