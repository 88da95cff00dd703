"""The ``gameserde`` command for the godot format: in process (``gameserde.cli.main``) and,
for a few cases, as ``python3 -m gameserde``."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gameserde import __version__
from gameserde.cli import main
from gameserde.godot import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    TypedDictionary,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    encode,
    iter_vars,
    put_packet,
    store_var,
    variant_to_base64,
)

ROOT = Path(__file__).resolve().parents[2]
SAVEGAME = ROOT / "examples" / "godot" / "savegame.sav"


class Run:
    """Outcome of one in-process run."""

    def __init__(self, code: int, out: bytes, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``cli(*argv, stdin=b"", tty=False)`` runs ``gameserde.cli.main`` and captures it."""

    def run(*argv: str, stdin: bytes = b"", tty: bool = False) -> Run:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse: --help, --version, usage errors
            code = int(e.code or 0)
        captured = capsysbinary.readouterr()
        return Run(code, captured.out, captured.err.decode("utf-8", "replace"))

    return run


# ---------------------------------------------------------------------------------------------
# Fixtures: small binary files made here


def godot4_values() -> list[Any]:
    return [
        {"version": 3, "name": "Aria", "pos": Vector3(12.5, 0.0, -3.25),
         "tags": PackedStringArray(["a", "b"]), "cell": Vector2i(4, -2),
         "skills": TypedArray("int", [1, 4, 9]), "spawn": NodePath.parse("/root/World/Spawn")},
        [None, True, -7, 2**40, 0.1, 1.5, -0.0, float("inf"), "héllo", StringName("sn"),
         Vector2(0.5, 2), Rect2(Vector2(1, 2), Vector2(3, 4)), Rect2i(), Vector3i(1, 2, 3),
         Transform2D(), Vector4(1, 2, 3, 4), Vector4i(), Plane(), Quaternion(), AABB(),
         Basis(), Transform3D(), Projection(), Color(1, 0.5, 0.25, 1), RID(77), Callable(),
         Signal("hit", 5), EncodedObjectAsID(12), b"\x00\x01\x02",
         PackedInt32Array([1, -1]), PackedInt64Array([2**40]), PackedFloat32Array([0.5]),
         PackedFloat64Array([0.1]), PackedVector2Array([(1.0, 2.0)]),
         PackedVector3Array([(1.0, 2.0, 3.0)]), PackedColorArray([(1.0, 1.0, 1.0, 1.0)]),
         PackedVector4Array([(1.0, 2.0, 3.0, 4.0)]),
         Dictionary([(1, "int"), (1.0, "float"), ([1], "list")]),
         TypedDictionary("String", "float", [("a", 1.5)])],
        "just a string",
    ]


def godot4_full_values() -> list[Any]:
    return [Object("Node", {"name": "n", "script": "res://n.gd"}),
            TypedArray("Resource", [Object("Resource", {"script": None})]),
            TypedArray("res://enemy.gd", [])]


def godot3_values() -> list[Any]:
    return [{"pos": Vector3(1, 2, 3), "t": Transform3D(), "c": Color(0, 1, 0, 1)},
            [RID(), NodePath.parse("a/b:c"), b"\xff", PackedInt32Array([3]),
             PackedFloat32Array([1.5]), PackedStringArray(["x"]), PackedVector2Array([]),
             PackedColorArray([(0.0, 0.0, 0.0, 1.0)]), EncodedObjectAsID(4)],
            Object("Reference", {"script": None})]


def docs_values() -> list[Any]:
    return [[Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
             PackedInt64Array([1]), PackedFloat64Array([0.5]), PackedStringArray(["p"])],
            {"k": Rect2()}]


VALUES = {"godot4": godot4_values() + godot4_full_values(), "godot3": godot3_values(),
          "docs": docs_values()}
FRAMINGS = ["raw", "store_var", "store_var-be", "packet_stream", "base64"]


def make_file(tmp_path: Path, profile: str, framing: str) -> tuple[Path, list[str]]:
    """A file of ``profile``'s values in ``framing``; returns it and the CLI options."""
    values = VALUES[profile]
    opts = ["--profile", profile]
    if framing == "raw":
        data = encode(values, profile=profile, full_objects=True)
    elif framing.startswith("store_var"):
        be = framing.endswith("-be")
        data = b"".join(store_var(v, big_endian=be, profile=profile, full_objects=True)
                        for v in values)
        opts += ["--framing", "store_var"] + (["--big-endian"] if be else [])
    elif framing == "packet_stream":
        data = b"".join(put_packet(v, profile=profile, full_objects=True) for v in values)
        opts += ["--framing", "packet_stream"]
    else:
        data = (variant_to_base64(values, profile=profile, full_objects=True) + "\n").encode()
        opts += ["--framing", "base64"]
    path = tmp_path / f"{profile}-{framing}.bin"
    path.write_bytes(data)
    return path, opts


# ---------------------------------------------------------------------------------------------
# decode


def test_decode_savegame_compact_when_piped(cli: Any) -> None:
    r = cli("decode", "godot", "--framing", "store_var", str(SAVEGAME))
    assert r.code == 0 and r.err == ""
    assert r.out.endswith(b"\n") and r.out.count(b"\n") == 1  # one line
    assert r.json["$godot"] == {"profile": "godot4", "framing": "store_var", "json": "native",
                                "big_endian": False}
    doc = r.json["$records"]
    assert isinstance(doc, list) and len(doc) == 2
    save, settings_ = doc
    assert save["type"] == "Dictionary"
    args = save["args"]
    assert args[:2] == ["s:version", "i:3"]
    player = args[args.index("s:player") + 1]["args"]
    assert player[player.index("s:class") + 1] == "sn:ranger"
    assert player[player.index("s:position") + 1] == {"type": "Vector3",
                                                     "args": [12.5, 0.0, -3.25]}
    assert player[player.index("s:skills") + 1] == {
        "type": "Array", "elem_type": "int", "args": ["i:1", "i:4", "i:9"]}
    assert player[player.index("s:spawn") + 1] == "np:/root/World/Spawn"
    assert settings_[0] == "s:settings"


def test_decode_pretty(cli: Any) -> None:
    r = cli("decode", "godot", "--framing", "store_var", "--pretty", str(SAVEGAME))
    assert r.code == 0
    assert b'\n  "$records": [\n    {\n      "type": "Dictionary"' in r.out
    assert b'{"type": "Vector3", "args": [12.5, 0.0, -3.25]}' in r.out  # short ones on a line
    compact = cli("decode", "godot", "--framing", "store_var", str(SAVEGAME))
    assert r.json == compact.json


def test_decode_pretty_on_a_terminal_compact_option(cli: Any) -> None:
    tty = cli("decode", "godot", "--framing", "store_var", str(SAVEGAME), tty=True)
    assert tty.code == 0 and tty.out.count(b"\n") > 10
    forced = cli("decode", "godot", "--framing", "store_var", "--compact", str(SAVEGAME),
                 tty=True)
    assert forced.code == 0 and forced.out.count(b"\n") == 1


def test_decode_to_file(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "save.json"
    r = cli("decode", "godot", "--framing", "store_var", str(SAVEGAME), "-o", str(out))
    assert r.code == 0 and r.out == b"" and r.err == ""
    text = out.read_bytes()
    assert text.count(b"\n") == 1  # compact in a file
    assert json.loads(text)["$records"][0]["type"] == "Dictionary"


def test_decode_stdin(cli: Any) -> None:
    r = cli("decode", "godot", "--framing", "store_var", "-", stdin=SAVEGAME.read_bytes())
    assert r.code == 0
    assert r.json == cli("decode", "godot", "--framing", "store_var", str(SAVEGAME)).json


def test_decode_raw_notes_trailing_bytes(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "v.bin"
    path.write_bytes(encode([1, "a"]) + b"trailing")
    r = cli("decode", "godot", str(path))
    assert r.code == 0 and r.json == ["i:1", "s:a"]
    assert r.err == (f"gameserde: {path}: 8 bytes after the value at byte 28 are not part of "
                     "it; the engine ignores them and so does this JSON\n")
    r = cli("decode", "godot", "--strict", str(path))
    assert r.code == 1 and r.out == b"" and r.err.endswith("so does this JSON (--strict)\n")
    r = cli("decode", "godot", "--allow-trailing", "--strict", str(path))
    assert r.code == 0 and r.err == "" and r.json == ["i:1", "s:a"]


# ---------------------------------------------------------------------------------------------
# decode -> encode gives the same bytes


@pytest.mark.parametrize("mode", ["native", "plain"])
@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("profile", ["godot4", "godot3", "docs"])
def test_decode_encode_roundtrip(cli: Any, tmp_path: Path, profile: str, framing: str,
                                 mode: str) -> None:
    src, opts = make_file(tmp_path, profile, framing)
    doc = tmp_path / "doc.json"
    r = cli("decode", "godot", *opts, "--json", mode, str(src), "-o", str(doc))
    assert r.code == 0, r.err
    out = tmp_path / "out.bin"
    r = cli("encode", "godot", *opts, "--json", mode, str(doc), "-o", str(out))
    assert r.code == 0, r.err
    assert out.read_bytes() == src.read_bytes()
    # The header recorded every option: encode needs none of them.
    bare = (profile, framing, mode) == ("godot4", "raw", "native")
    written = json.loads(doc.read_bytes())
    assert (isinstance(written, dict) and "$godot" in written) is not bare
    r = cli("encode", "godot", str(doc), "-o", str(out))
    assert r.code == 0, r.err
    assert out.read_bytes() == src.read_bytes()
    # And through the pipes: JSON on stdin, binary on stdout.
    r = cli("encode", "godot", *opts, "-", stdin=doc.read_bytes())
    assert r.code == 0 and r.out == src.read_bytes()


def test_header_is_followed_and_contradictions_refused(cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "save.json"
    r = cli("decode", "godot", "--framing", "store_var", "--json", "plain", str(SAVEGAME),
            "-o", str(doc))
    assert r.code == 0
    head = json.loads(doc.read_text())["$godot"]
    assert head == {"profile": "godot4", "framing": "store_var", "json": "plain",
                    "big_endian": False}
    assert cli("encode", "godot", str(doc)).out == SAVEGAME.read_bytes()
    assert cli("encode", "godot", "--framing", "store_var", "--json", "plain",
               str(doc)).out == SAVEGAME.read_bytes()
    for opts, said in [(["--framing", "raw"], "--framing store_var"),
                       (["--json", "native"], "--json plain"),
                       (["--profile", "godot3"], "--profile godot4"),
                       (["--framing", "store_var", "--big-endian"], "little-endian lengths")]:
        r = cli("encode", "godot", *opts, str(doc))
        assert r.code == 2 and r.out == b"" and len(r.err.strip().splitlines()) == 1
        assert r.err.startswith(f"gameserde: the JSON was decoded with {said} (its "
                                '"$godot" header says so) but '), r.err
        assert "drop the option" in r.err


@pytest.mark.parametrize(("doc", "message"), [
    ({"$godot": [], "$value": 1}, r'the "\$godot" header must be an object, not \[\]'),
    ({"$godot": {"framing": "zip"}, "$value": 1}, "framing must be one of raw, store_var"),
    ({"$godot": {"big_endian": 1}, "$value": 1}, "big_endian must be one of True, False"),
    ({"$godot": {"colour": "red"}, "$value": 1}, "has no key 'colour'"),
    ({"$godot": {"framing": "store_var"}, "$value": []}, r'must hold "\$records" only'),
    ({"$godot": {}, "$value": 1, "x": 2}, r"found 'x'"),
    ({"$godot": {"framing": "store_var"}, "$records": {}}, "an array of records"),
    ({"$godot": {"json": "plain"}, "$value": {"$Vectr3": [1, 2, 3]}},
     r'in \$\["\$value"\]: unknown type tag \$Vectr3\. Did you mean \$Vector3'),
    ({"$godot": {"framing": "store_var"}, "$records": ["i:1", "x"]},
     r'in \$\["\$records"\]\[1\]: string'),
])
def test_bad_header(cli: Any, tmp_path: Path, doc: Any, message: str) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps(doc))
    r = cli("encode", "godot", str(path))
    assert r.code == 1 and "Traceback" not in r.err and len(r.err.strip().splitlines()) == 1
    assert re.search(message, r.err), r.err


def test_bare_documents(cli: Any, tmp_path: Path) -> None:
    """Without a header the options say everything (as JSON from older versions needs)."""
    records = tmp_path / "records.json"
    records.write_text('["s:a", ["i:1"]]')
    r = cli("encode", "godot", "--framing", "store_var", str(records))
    assert r.code == 0 and r.out == store_var("a") + store_var([1])
    assert cli("encode", "godot", str(records)).out == encode(["a", [1]])
    plain_doc = tmp_path / "plain.json"
    plain_doc.write_text('{"hp": 87.5, "pos": {"$Vector3": [1, 2, 3]}}')
    r = cli("encode", "godot", "--json", "plain", str(plain_doc))
    assert r.code == 0 and r.out == encode({"hp": 87.5, "pos": Vector3(1, 2, 3)})
    r = cli("encode", "godot", str(plain_doc))
    assert r.code == 1
    assert r.err.rstrip().endswith("The document reads as plain JSON: add --json plain."), r.err


def test_full_objects_auto_and_no(cli: Any, tmp_path: Path) -> None:
    """auto writes Objects in full when the JSON holds any; no refuses them."""
    doc = tmp_path / "o.json"
    doc.write_text(json.dumps({"type": "Node", "props": ["script", None]}))
    r = cli("encode", "godot", str(doc))
    assert r.code == 0 and r.out == encode(Object("Node", {"script": None}), full_objects=True)
    r = cli("encode", "godot", "--full-objects", "no", str(doc))
    assert r.code == 1 and "Traceback" not in r.err
    arr = tmp_path / "a.json"
    arr.write_text(json.dumps({"type": "Array", "elem_type": "Node", "args": []}))
    assert cli("encode", "godot", str(arr)).out == encode(TypedArray("Node", []),
                                                          full_objects=True)
    assert cli("encode", "godot", "--full-objects", "no", str(arr)).out == encode(
        TypedArray("Node", []))


def test_double_precision_roundtrip(cli: Any, tmp_path: Path) -> None:
    value = [Vector3(0.1, 0.2, 0.3), Transform3D(), Color(0.1, 0.2, 0.3, 1),
             PackedVector2Array([(0.1, 0.2)], itemsize=8)]
    src = tmp_path / "d.bin"
    src.write_bytes(encode(value, double_precision=True))
    doc = tmp_path / "d.json"
    assert cli("decode", "godot", str(src), "-o", str(doc)).code == 0
    r = cli("encode", "godot", "--double-precision", str(doc))
    assert r.code == 0 and r.out == src.read_bytes()


def test_encode_refuses_terminal(cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "n.json"
    doc.write_text("null")
    r = cli("encode", "godot", str(doc), tty=True)
    assert r.code == 2 and r.out == b"" and "terminal" in r.err


def test_encode_base64_output(cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "s.json"
    doc.write_text('"s:hello"')
    r = cli("encode", "godot", "--framing", "base64", str(doc))
    assert r.code == 0 and r.out == b"BAAAAAUAAABoZWxsbwAAAA==\n"
    assert base64.b64decode(r.out) == encode("hello")


# ---------------------------------------------------------------------------------------------
# inspect


def test_inspect_columns(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "i.bin"
    path.write_bytes(encode([1, {"pos": Vector3(1, 2, 3), "name": "x"}, PackedInt32Array([5])]))
    r = cli("inspect", "godot", str(path))
    assert r.code == 0
    text = r.out.decode()
    assert text.splitlines()[0].split()[:5] == ["offset", "bytes", "path", "type", "value"]
    assert re.search(r"^0x00000000 1c 00 00 00 +\$ +Array +header", text, re.M)
    assert re.search(r"^0x00000008 02 00 00 00 01 00 00 00 +\$\[0\] +int +1$", text, re.M)
    assert re.search(r'\$\[1\]\["pos"\] +Vector3 +Vector3\(x=1\.0', text)
    assert re.search(r"\$\[1\]\[<key 0>\] +String +'pos'", text)
    assert re.search(r"\$\[2\] +PackedInt32Array", text)


def test_inspect_store_var_and_error(cli: Any, tmp_path: Path) -> None:
    r = cli("inspect", "godot", "--framing", "store_var", str(SAVEGAME))
    assert r.code == 0
    text = r.out.decode()
    assert re.search(r"^0x00000000 84 02 00 00 +\$\[0\] +length prefix +644 bytes$", text, re.M)
    assert re.search(r"^0x00000288 [0-9a-f ]+ +\$\[1\] +length prefix +\d+ bytes$", text, re.M)
    assert re.search(r'^0x000000b0 .*\$\[0\]\["player"\]\["position"\] +Vector3', text, re.M)
    assert "record" not in text  # one table: no lines between its rows
    bad = tmp_path / "bad.bin"
    bad.write_bytes(encode([1, {"a": [2, "xyz"]}])[:-3])
    r = cli("inspect", "godot", str(bad))
    assert r.code == 1  # the map goes up to the failure and marks it; the reason on stderr
    assert r.err.startswith(f"gameserde: {bad}: godot decode error at byte 56 (0x38) in "
                            '$[1]["a"][1]: string length 3')
    assert len(r.err.strip().splitlines()) == 1
    rows = r.out.decode().splitlines()
    assert re.match(r'0x0000002c .* \$\[1\]\["a"\]\[0\] +int +2$', rows[-2])
    # The failing value is the string $[1]["a"][1], whose length field sits at 0x38.
    last = rows[-1]
    assert re.match(r'0x00000038 .* \$\[1\]\["a"\]\[1\] +ERROR +string length 3', last), last


# ---------------------------------------------------------------------------------------------
# errors


def test_corrupt_input_one_line_error(cli: Any, tmp_path: Path) -> None:
    good = encode([0, 1, 2, {"pos": 1.5}])
    bad = tmp_path / "corrupt.bin"
    bad.write_bytes(good[:-8] + bytes.fromhex("ee000000") + good[-4:])
    r = cli("decode", "godot", str(bad))
    assert r.code == 1 and r.out == b""
    assert "Traceback" not in r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith(f"gameserde: {bad}: ")
    assert f"at byte {len(good) - 8} " in line and '$[3]["pos"]' in line


@pytest.mark.parametrize("framing", ["store_var", "packet_stream"])
def test_corrupt_framed_input(cli: Any, tmp_path: Path, framing: str) -> None:
    data = store_var([1, 2]) + store_var({"a": [1]})[:-3]
    path = tmp_path / "cut.bin"
    path.write_bytes(data)
    r = cli("decode", "godot", "--framing", framing, str(path))
    assert r.code == 1 and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1 and str(path) in r.err


def test_corrupt_stdin_names_stdin(cli: Any) -> None:
    r = cli("decode", "godot", "-", stdin=b"\xff\x00\x00\x00")
    assert r.code == 1 and r.err.startswith("gameserde: <stdin>: ") and "at byte 0" in r.err


def test_bad_json_input(cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "bad.json"
    doc.write_text('{"type": "Vector2", "args": [1.0,')
    r = cli("encode", "godot", str(doc), "-o", str(tmp_path / "x.bin"))
    assert r.code == 1 and "Traceback" not in r.err and "line 1" in r.err
    doc.write_text('{"type": "Vector2", "args": [1.0]}')
    r = cli("encode", "godot", str(doc), "-o", str(tmp_path / "x.bin"))
    assert r.code == 1 and "Vector2" in r.err and len(r.err.strip().splitlines()) == 1
    doc.write_text('["s:a", "nope"]')
    r = cli("encode", "godot", "--framing", "store_var", str(doc), "-o", str(tmp_path / "y"))
    assert r.code == 1 and "$[1]" in r.err


@pytest.mark.parametrize(("data", "opts", "advice"), [
    (SAVEGAME.read_bytes(), [], "The whole file decodes as store_var records (a 4-byte length "
     "before each Variant): use --framing store_var."),
    (b"".join(store_var(v, big_endian=True) for v in (1, "two")), ["--framing", "store_var"],
     "The whole file decodes as store_var records with big-endian lengths: use --framing "
     "store_var --big-endian."),
    (encode([1, 2]), ["--framing", "store_var"],
     "The whole file decodes as one Variant: use --framing raw."),
    (variant_to_base64({"a": 1}).encode(), [],
     "The whole file decodes as the base64 text of a Variant: use --framing base64."),
    (encode({"a": Vector3(1, 2, 3)}, profile="godot3"), [],
     "The whole file decodes as one Variant of profile godot3: use --framing raw "
     "--profile godot3."),
    (store_var(1), ["--framing", "store_var", "--big-endian"],
     "use --framing store_var without --big-endian."),
])
@pytest.mark.parametrize("verb", ["decode", "verify", "inspect"])
def test_failed_reading_names_the_one_that_works(cli: Any, tmp_path: Path, data: bytes,
                                                 opts: list[str], advice: str,
                                                 verb: str) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    r = cli(verb, "godot", *opts, str(path))
    assert r.code == 1 and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert r.err.startswith(f"gameserde: {path}: godot decode error at byte ")
    assert r.err.rstrip().endswith(advice), r.err
    if verb == "inspect":
        assert r.out.startswith((b"offset", b"record 0"))


def test_savegame_without_framing(cli: Any) -> None:
    r = cli("decode", "godot", str(SAVEGAME))
    assert r.err == (f"gameserde: {SAVEGAME}: godot decode error at byte 0 (0x0): unknown "
                     "Variant type id 132 (profile godot4 has 0 to 38). The whole file decodes "
                     "as store_var records (a 4-byte length before each Variant): use --framing "
                     "store_var.\n")


def test_cut_store_var_file(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "cut.sav"
    data = SAVEGAME.read_bytes()
    path.write_bytes(data[:-10])
    for verb in ("decode", "verify", "inspect"):
        r = cli(verb, "godot", "--framing", "store_var", str(path))
        assert r.code == 1
        assert "the data ends 10 bytes before the record does, as in a file that was cut " \
            "short" in r.err
        assert "endian" not in r.err and "The whole file" not in r.err
    text = cli("inspect", "godot", "--framing", "store_var", str(path)).out.decode()
    prefix, error = text.splitlines()[-2:]
    assert re.search(r"^0x00000288 .* \$\[1\] +length prefix +\d+ bytes, more than the \d+ "
                     r"bytes left$", prefix), prefix
    assert re.search(r"^0x00000288 .* \$\[1\] +ERROR +record length \d+ exceeds", error), error


def test_misspelled_type_name(cli: Any, tmp_path: Path) -> None:
    doc = tmp_path / "typo.json"
    doc.write_text('{"type": "Dictionary", "args": ["s:pos", {"type": "Vectr3", '
                   '"args": [1, 2, 3]}]}')
    r = cli("encode", "godot", str(doc))
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert "in $.args[1]: unknown type 'Vectr3'. Did you mean Vector3, Vector3i or " \
        "Vector4?" in r.err
    assert "plain" not in r.err


def test_verify(cli: Any, tmp_path: Path) -> None:
    r = cli("verify", "godot", "--framing", "store_var", str(SAVEGAME))
    assert r.code == 0 and r.out.decode() == (
        f"{SAVEGAME}: ok: 2 store_var records in {SAVEGAME.stat().st_size} bytes "
        "(profile godot4)\n")
    path = tmp_path / "v.bin"
    path.write_bytes(encode({"a": 1}) + b"xyz")
    r = cli("verify", "godot", str(path))
    assert r.code == 1 and r.out == b"" and r.err == (
        f"gameserde: {path}: godot decode error at byte 28 (0x1c): 3 bytes after the value are "
        "not part of it (the engine ignores them; --allow-trailing accepts them)\n")
    r = cli("verify", "godot", "--allow-trailing", str(path))
    assert r.code == 0 and r.out.decode() == (
        f"{path}: ok: one Dictionary of 28 bytes (profile godot4); the 3 bytes after it are "
        "ignored, as the engine ignores them\n")
    path.write_bytes(put_packet(1))
    r = cli("verify", "godot", "--framing", "packet_stream", str(path))
    assert r.code == 0 and "ok: 1 packet in 12 bytes" in r.out.decode()
    path.write_bytes(encode({"a": 1})[:-2])
    r = cli("verify", "godot", str(path))
    assert r.code == 1 and r.out == b"" and "godot decode error at byte 24" in r.err


def test_inspect_exit_status(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "i.bin"
    path.write_bytes(encode([1, "abc"]))
    assert cli("inspect", "godot", str(path)).code == 0
    path.write_bytes(encode([1, "abc"])[:-1])
    r = cli("inspect", "godot", str(path))
    assert r.code == 1 and "ERROR" in r.out.decode()
    assert r.err.startswith(f"gameserde: {path}: godot decode error at byte 20")


@pytest.mark.parametrize("verb", ["decode", "encode", "verify", "inspect", "convert"])
def test_big_endian_needs_store_var(cli: Any, verb: str) -> None:
    r = cli(verb, "godot", "--big-endian", str(SAVEGAME))
    assert r.code == 2 and r.out == b""
    assert r.err == ("gameserde: --big-endian applies to --framing store_var only; add "
                     "--framing store_var\n")
    r = cli(verb, "godot", "--framing", "raw", "--big-endian", str(SAVEGAME))
    assert r.code == 2 and r.err.startswith("gameserde: --big-endian applies to --framing "
                                            "store_var only, not --framing raw")


def test_missing_file(cli: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nope.sav"
    r = cli("decode", "godot", str(missing))
    assert r.code == 2 and str(missing) in r.err and "Traceback" not in r.err


def test_usage_errors(cli: Any) -> None:
    assert cli("decode", "godot", "--framing", "zip", str(SAVEGAME)).code == 2
    assert cli("decode", "godot", "--profile", "godot2", str(SAVEGAME)).code == 2
    assert cli("decode", "nope", str(SAVEGAME)).code == 2
    assert cli().code == 2


def test_godot3_surrogates_do_not_crash(cli: Any, tmp_path: Path) -> None:
    """Godot 3 strings may hold CESU-8 surrogates; the CLI must not die on them."""
    path = tmp_path / "cesu.bin"
    path.write_bytes(bytes.fromhex("04000000 03000000 eda08000"))
    r = cli("decode", "godot", "--profile", "godot3", str(path))
    assert "Traceback" not in r.err
    assert r.code in (0, 1)


DEEPEST = bytes.fromhex("1c000000 01000000") * 1024 + bytes.fromhex("1c000000 00000000")
"""1025 nested Arrays: the engine's limit, which the decoder accepts."""


@pytest.mark.parametrize("verb", ["decode", "inspect"])
def test_deepest_engine_value_does_not_crash(cli: Any, tmp_path: Path, verb: str) -> None:
    path = tmp_path / "deep.bin"
    path.write_bytes(DEEPEST)
    r = cli(verb, "godot", str(path))
    assert r.code in (0, 1) and "Traceback" not in r.err


@pytest.mark.parametrize("mode", ["native", "plain"])
def test_deep_json_does_not_crash(cli: Any, tmp_path: Path, mode: str) -> None:
    doc = tmp_path / "deep.json"
    doc.write_text("[" * 100_000 + "]" * 100_000)
    r = cli("encode", "godot", "--json", mode, str(doc), "-o", str(tmp_path / "deep.bin"))
    assert r.code == 1 and "Traceback" not in r.err
    doc.write_text('{"$Array[int]": [' * 3000 + "]}" * 3000)
    r = cli("encode", "godot", "--json", mode, str(doc), "-o", str(tmp_path / "deep.bin"))
    assert r.code == 1 and "Traceback" not in r.err
    assert ("deeper than 1024" in r.err) is (mode == "plain")


# ---------------------------------------------------------------------------------------------
# help and version


def test_help(cli: Any) -> None:
    r = cli("--help")
    assert r.code == 0
    text = r.out.decode()
    for word in ("decode", "encode", "inspect", "--version", "gameserde decode godot"):
        assert word in text


def test_decode_help_lists_options(cli: Any) -> None:
    r = cli("decode", "godot", "--help")
    assert r.code == 0
    text = r.out.decode()
    for word in ("--profile", "--framing", "--big-endian", "--max-depth", "--pretty",
                 "--compact", "--json", "-o OUT", "raw", "store_var", "packet_stream", "base64",
                 "godot4", "godot3", "docs", "FILE"):
        assert word in text, word


def test_encode_help_lists_options(cli: Any) -> None:
    text = cli("encode", "godot", "--help").out.decode()
    for word in ("--full-objects", "--double-precision", "--framing", "--profile", "--json",
                 "native", "plain", '"$godot" header'):
        assert word in text, word


@pytest.mark.parametrize("verb", ["verify", "inspect"])
def test_verify_and_inspect_help(cli: Any, verb: str) -> None:
    r = cli(verb, "godot", "--help")
    assert r.code == 0
    text = r.out.decode()
    for word in ("--profile", "--framing", "--big-endian", "--max-depth", "exit status 1"):
        assert word in text, word
    assert "--json {native,plain}" not in text  # the JSON mode is for decode and encode


def test_version(cli: Any) -> None:
    r = cli("--version")
    assert r.code == 0 and r.out.decode().startswith(f"gameserde {__version__} (")


# ---------------------------------------------------------------------------------------------
# As a program


def run_module(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "gameserde", *args], input=stdin,
                          capture_output=True, timeout=60)


def test_module_decode_piped() -> None:
    proc = run_module("decode", "godot", "--framing", "store_var", str(SAVEGAME))
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout.count(b"\n") == 1
    assert len(json.loads(proc.stdout)) == len(list(iter_vars(SAVEGAME.read_bytes())))


def test_module_roundtrip_through_pipes() -> None:
    doc = run_module("decode", "godot", "--framing", "store_var", "-",
                     stdin=SAVEGAME.read_bytes())
    assert doc.returncode == 0
    back = run_module("encode", "godot", "--framing", "store_var", "-", stdin=doc.stdout)
    assert back.returncode == 0 and back.stdout == SAVEGAME.read_bytes()


def test_module_error_and_version(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(encode([1, "abc"])[:-3])
    proc = run_module("decode", "godot", str(bad))
    assert proc.returncode == 1 and proc.stdout == b""
    err = proc.stderr.decode()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert str(bad) in err and "at byte 20" in err and "$[1]" in err  # the length field
    proc = run_module("decode", "godot", str(tmp_path / "missing"))
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    proc = run_module("--version")
    assert proc.returncode == 0 and proc.stdout.decode().startswith(f"gameserde {__version__} (")
