"""The Godot codec (``gameserde.godot.codec``, ``gameserde.codec("godot", ...)``): every
method, the options and the combinations refused, convert between profiles and framings byte
for byte, warnings, messages and their paths, and the same through the command line."""

from __future__ import annotations

import base64
import io
import json
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde import GameserdeError, GameserdeWarning, UsageError
from gameserde.cli import main
from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import (
    GodotCodec,
    Object,
    PackedStringArray,
    StringName,
    Vector3,
    codec,
    encode,
    put_packet,
    store_var,
    variant_to_base64,
)
from gameserde.godot.interface import FORMAT

ROOT = Path(__file__).resolve().parents[2]
SAVEGAME = ROOT / "examples" / "godot" / "savegame.sav"
VALUE = {"hp": 87.5, "pos": Vector3(1, 2, 3), "name": StringName("Aria"),
         "tags": PackedStringArray(["a"])}
RECORDS = [VALUE, [1, "two"], "three"]


def deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``cli(*argv, stdin=b"")`` runs ``gameserde.cli.main``: (status, stdout, stderr)."""

    def run(*argv: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = int(e.code or 0)
        out = capsysbinary.readouterr()
        return code, out.out, out.err.decode("utf-8", "replace")

    return run


# ---------------------------------------------------------------------------------------------
# Entry points and options


def test_entry_points_build_the_same_codec() -> None:
    a = codec(profile="godot3", framing="store_var", big_endian=True)
    b = gameserde.codec("godot", profile="godot3", framing="store_var", big_endian=True)
    assert isinstance(a, GodotCodec) and isinstance(b, GodotCodec)
    data = store_var([1, 2], profile="godot3", big_endian=True)
    assert a.decode(data) == b.decode(data) == [[1, 2]]
    fmt, options = pickle.loads(pickle.dumps(a.spec))
    again = gameserde.codec(fmt, **options)
    assert again.encode([[1, 2]]) == data


def test_options_are_declared_with_their_flags() -> None:
    flags = {o.name: o.flag for o in FORMAT.options}
    assert flags == {"profile": "--profile", "framing": "--framing",
                     "big_endian": "--big-endian", "max_depth": "--max-depth",
                     "json": "--json", "allow_trailing": "--allow-trailing",
                     "full_objects": "--full-objects",
                     "double_precision": "--double-precision"}
    output = {o.name for o in FORMAT.options if o.output}
    assert output == {"profile", "framing", "big_endian", "full_objects", "double_precision"}


@pytest.mark.parametrize(("options", "message"), [
    ({"profile": "godot2"}, "--profile takes godot4, godot3 or docs, not 'godot2'"),
    ({"framing": "zip"}, "--framing takes raw, store_var, packet_stream or base64"),
    ({"json": "yaml"}, "--json takes native or plain"),
    ({"full_objects": "maybe"}, "--full-objects takes auto, yes or no"),
    ({"big_endian": "yes"}, "big_endian is true or false"),
    ({"max_depth": -1}, "max_depth must be a whole number from 0 to 100000"),
    ({"max_depth": 100_001}, "max_depth must be a whole number from 0 to 100000"),
    ({"max_depth": "9"}, "max_depth must be a whole number"),
    ({"big_endian": True}, "--big-endian applies to --framing store_var only; add --framing "
                           "store_var"),
    ({"big_endian": True, "framing": "packet_stream"}, "not --framing packet_stream"),
    ({"double_precision": True, "profile": "godot3"}, "--double-precision is a Godot 4 "
                                                      "setting; --profile godot3"),
    ({"colour": "red"}, "godot codecs take no option colour"),
])
def test_bad_options_are_usage_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as e:
        gameserde.codec("godot", **options)
    assert message in str(e.value)


@pytest.mark.parametrize("framing", ["store_var", "packet_stream"])
def test_allow_trailing_is_refused_with_framed_data(framing: str) -> None:
    c = codec(framing=framing, allow_trailing=True)
    with pytest.raises(UsageError, match=f"--allow-trailing applies to --framing raw and "
                                         f"base64: {framing} records run to the end"):
        c.decode(store_var(1))


@pytest.mark.parametrize("data", ["text", 12, None, [1, 2]])
def test_data_that_is_not_bytes_is_a_usage_error(data: Any) -> None:
    with pytest.raises(UsageError, match="godot codecs read bytes"):
        codec().decode(data)
    with pytest.raises(GameserdeError):
        codec().verify(data)


def test_base64_text_may_be_a_str() -> None:
    c = codec(framing="base64")
    assert c.decode(variant_to_base64(VALUE)) == VALUE


# ---------------------------------------------------------------------------------------------
# Every method


@pytest.mark.parametrize("framing", ["raw", "store_var", "packet_stream", "base64"])
@pytest.mark.parametrize("profile", ["godot4", "godot3"])
def test_methods_round_trip(framing: str, profile: str) -> None:
    value: Any = RECORDS if framing in ("store_var", "packet_stream") else VALUE
    if profile == "godot3":  # Godot 3 has no StringName: a StringName decodes as a String
        plain = {"hp": 87.5, "pos": Vector3(1, 2, 3)}
        value = [plain, [1, "two"]] if framing in ("store_var", "packet_stream") else plain
    c = codec(profile=profile, framing=framing)
    data = c.encode(value)
    assert c.decode(data) == value
    assert c.from_jsonable(c.to_jsonable(value)) == value
    assert c.from_json(c.to_json(data)) == data
    assert c.from_json(c.to_json(data, pretty=True).encode()) == data
    assert c.verify(data).startswith("ok: ")
    byte_map = c.inspect(data)
    assert byte_map.error is None and byte_map.rows


def test_encode_framed_takes_the_list_of_records() -> None:
    c = codec(framing="store_var")
    assert c.encode(RECORDS) == b"".join(store_var(v) for v in RECORDS)
    with pytest.raises(EncodeError, match="with framing store_var the value is the list of "
                                          "records, not Dictionary"):
        c.encode(VALUE)
    assert codec(framing="packet_stream").encode([1]) == put_packet(1)
    assert codec(framing="base64").encode(1) == (variant_to_base64(1) + "\n").encode()


def test_to_json_is_the_header_document() -> None:
    assert codec().to_jsonable(1) == "i:1"  # the defaults: the bare view
    doc = codec(framing="store_var", json="plain").to_jsonable([{"hp": 1}])
    assert doc == {"$godot": {"profile": "godot4", "framing": "store_var", "json": "plain",
                              "big_endian": False}, "$records": [{"hp": 1}]}
    assert codec(profile="godot3").to_jsonable(1) == {
        "$godot": {"profile": "godot3", "framing": "raw", "json": "native"}, "$value": "i:1"}


def test_from_json_follows_the_header_and_from_jsonable_refuses_another() -> None:
    text = codec(framing="store_var", json="plain").to_json(store_var({"hp": 1}))
    assert codec().from_json(text) == store_var({"hp": 1})  # as gameserde encode does
    with pytest.raises(UsageError, match=r'the JSON was decoded with --framing store_var \(its '
                                         r'"\$godot" header says so\) and this codec writes '
                                         r"--framing raw; make the codec with "
                                         r"framing='store_var'"):
        codec().from_jsonable(json.loads(text))
    assert codec(framing="store_var").from_jsonable(json.loads(text)) == [{"hp": 1}]
    with pytest.raises(UsageError, match="but --framing raw was given"):
        codec(framing="raw").from_json(text)


def test_json_input_errors_read_godot_encode_error() -> None:
    with pytest.raises(DecodeError) as e:
        codec().from_json('{"type": "Vector2", "args": [1.0]}')
    assert str(e.value).startswith("godot encode error")
    with pytest.raises(DecodeError) as e:
        codec().from_json('["i:1", ')
    assert str(e.value).startswith("godot encode error at byte")
    with pytest.raises(DecodeError, match=r'godot encode error in \$\["\$records"\]\[1\]'):
        codec().from_json('{"$godot": {"framing": "store_var"}, "$records": ["i:1", "x"]}')


def test_encode_errors_name_the_record() -> None:
    with pytest.raises(EncodeError) as e:
        codec(framing="store_var").encode([1, {"big": 2**70}])
    assert str(e.value) == ('godot encode error in $[1]["big"]: int 1180591620717411303424 '
                            "does not fit in 64 bits")


def test_full_objects_and_double_precision() -> None:
    obj = Object("Node", {"script": None})
    assert codec().encode(obj) == encode(obj, full_objects=True)  # auto
    with pytest.raises(EncodeError, match="full_objects"):
        codec(full_objects="no").encode(obj)
    assert codec(full_objects=True).encode(1) == encode(1, full_objects=True)
    assert codec(double_precision=True).encode(Vector3(0.1, 0, 0)) == encode(
        Vector3(0.1, 0, 0), double_precision=True)
    text = codec(profile="godot3").to_json(encode(1.5, profile="godot3"))
    with pytest.raises(UsageError, match='--double-precision is a Godot 4 setting, and the '
                                         'JSON\'s "\\$godot" header says --profile godot3'):
        codec(double_precision=True).from_json(text)


# ---------------------------------------------------------------------------------------------
# convert


@pytest.mark.parametrize(("source", "target"), [
    ({"profile": "godot3"}, {"profile": "godot4"}),
    ({"profile": "godot4"}, {"profile": "godot3"}),
    ({"profile": "godot3"}, {"profile": "docs"}),
    ({"framing": "raw"}, {"framing": "base64"}),
    ({"framing": "base64"}, {"framing": "raw"}),
    ({"framing": "raw"}, {"framing": "store_var", "big_endian": True}),
])
def test_convert_one_variant(source: dict[str, Any], target: dict[str, Any]) -> None:
    value = {"pos": Vector3(1, 2, 3), "list": [1, 2.5, "s"], "bytes": b"\x01"}
    src, dst = codec(**source), codec(**target)
    data = src.encode(value if src.settings.framing != "store_var" else [value])
    expected = dst.encode([value] if dst.settings.framing == "store_var" else value)
    assert src.convert(data, dst) == expected


def test_convert_godot3_to_godot4_is_the_godot4_encoding() -> None:
    value = {"a": Vector3(1, 2, 3), "r": [1, 2.5, "s"], "p": PackedStringArray(["x"])}
    old = encode(value, profile="godot3")
    assert codec(profile="godot3").convert(old, codec(profile="godot4")) == encode(value)


def test_convert_between_framings() -> None:
    data = SAVEGAME.read_bytes()
    store = codec(framing="store_var")
    packets = store.convert(data, codec(framing="packet_stream"))
    assert codec(framing="packet_stream").convert(packets, store) == data
    big = store.convert(data, codec(framing="store_var", big_endian=True))
    assert big != data
    assert codec(framing="store_var", big_endian=True).convert(big, store) == data
    one = store_var(VALUE)
    assert store.convert(one, codec()) == encode(VALUE)
    assert codec().convert(encode(VALUE), store) == one
    with pytest.raises(EncodeError, match="the data holds 2 store_var records and --to-framing "
                                          "raw writes one Variant"):
        store.convert(data, codec())


def test_convert_refuses_json_and_other_formats() -> None:
    with pytest.raises(UsageError, match="convert writes no JSON"):
        codec(json="plain").convert(encode(1), codec())


def test_convert_on_the_command_line(cli: Any, tmp_path: Path) -> None:
    value = {"a": Vector3(1, 2, 3), "b": [1, "x"]}
    old = tmp_path / "old.bin"
    old.write_bytes(encode(value, profile="godot3"))
    new = tmp_path / "new.bin"
    code, _, err = cli("convert", "godot", "--profile", "godot3", "--to-profile", "godot4",
                       str(old), "-o", str(new))
    assert code == 0 and err == ""
    assert new.read_bytes() == encode(value, profile="godot4")
    code, out, _ = cli("convert", "godot", "--framing", "store_var", "--to-framing",
                       "packet_stream", str(SAVEGAME))
    assert code == 0 and out == codec(framing="store_var").convert(
        SAVEGAME.read_bytes(), codec(framing="packet_stream"))
    code, out, _ = cli("convert", "godot", "--to-framing", "store_var", "--to-big-endian",
                       str(new))
    assert code == 0 and out == store_var(value, big_endian=True)
    code, out, err = cli("convert", "godot", "--framing", "store_var", "--big-endian",
                         "--to-framing", "raw", "--to-no-big-endian", "-", stdin=out)
    assert code == 0 and out == encode(value), err
    code, _, err = cli("convert", "godot", "--framing", "store_var", "--big-endian",
                       "--to-framing", "raw", str(new))
    assert code == 2 and "--to-no-big-endian" in err
    code, _, err = cli("convert", "godot", "--json", "plain", str(new))  # convert writes no JSON
    assert code == 2 and "error: unrecognized arguments: --json" in err


# ---------------------------------------------------------------------------------------------
# Bytes after the value


def test_trailing_bytes_warn_in_decode_and_fail_verify() -> None:
    data = encode(VALUE) + b"x" * 44
    end = len(encode(VALUE))
    with pytest.warns(GameserdeWarning, match=f"^44 bytes after the value at byte {end} are not "
                                              "part of it; the engine ignores them and so does "
                                              "the decoded value$"):
        assert codec().decode(data) == VALUE
    with pytest.warns(GameserdeWarning, match="and so does this JSON$"):
        codec().to_json(data)
    with pytest.warns(GameserdeWarning, match="and so does the converted data$"):
        assert codec().convert(data, codec(framing="base64")) == (
            variant_to_base64(VALUE) + "\n").encode()
    with pytest.raises(DecodeError) as e:
        codec().verify(data)
    assert e.value.offset == end
    message = (f"godot decode error at byte {end} (0x{end:x}): 44 bytes after the value are not "
               "part of it (the engine ignores them; --allow-trailing accepts them)")
    assert str(e.value) == message
    byte_map = codec().inspect(data)
    assert str(byte_map.error) == message
    assert byte_map.rows[-1].type == "trailing bytes" and byte_map.rows[-1].offset == end
    lenient = codec(allow_trailing=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lenient.decode(data) == VALUE
        assert lenient.verify(data).endswith("the 44 bytes after it are ignored, as the engine "
                                             "ignores them")
        assert lenient.inspect(data).error is None


def test_trailing_bytes_of_base64_count_decoded_bytes() -> None:
    data = base64.b64encode(encode(1) + b"junk")
    with pytest.warns(GameserdeWarning, match=r"4 bytes after the value at byte 8 \(in the bytes "
                                              "the base64 text stands for\\)"):
        codec(framing="base64").decode(data)
    byte_map = codec(framing="base64").inspect(data)
    assert byte_map.notes == [f"base64 text of {len(data)} bytes; offsets count the 12 bytes it "
                              "stands for"]
    assert byte_map.error is not None and byte_map.error.offset == 8
    with pytest.raises(DecodeError, match="4 bytes after the value"):
        codec(framing="base64").verify(data.decode())  # base64 text may be a str


def test_trailing_bytes_on_the_command_line(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "t.bin"
    path.write_bytes(encode(1) + b"junk")
    code, out, err = cli("inspect", "godot", str(path))
    assert code == 1 and b"trailing bytes" in out
    assert err == (f"gameserde: {path}: godot decode error at byte 8 (0x8): 4 bytes after the "
                   "value are not part of it (the engine ignores them; --allow-trailing "
                   "accepts them)\n")
    assert cli("inspect", "godot", "--allow-trailing", str(path))[0] == 0
    code, out, err = cli("convert", "godot", "--strict", str(path))
    assert code == 1 and out == b"" and err.endswith("so does the converted data (--strict)\n")
    code, out, err = cli("encode", "godot", "--allow-trailing", str(path))
    assert code == 2 and "--allow-trailing" in err  # encode reads JSON: not an encode option


# ---------------------------------------------------------------------------------------------
# Messages: the same for decode, verify and inspect; paths; hints


def test_one_message_for_decode_verify_inspect() -> None:
    first = store_var([1, 2])
    data = first + store_var({"a": [1, "xyz"]})[:-3]
    c = codec(framing="store_var")
    messages = []
    for call in (c.decode, c.verify, lambda d: c.to_json(d)):
        with pytest.raises(DecodeError) as e:
            call(data)
        messages.append(str(e.value))
    byte_map = c.inspect(data)
    messages.append(str(byte_map.error))
    assert len(set(messages)) == 1, messages
    assert messages[0].startswith(f"godot decode error at byte {len(first)} "
                                  f"(0x{len(first):x}) in $[1]: record length 48 exceeds the "
                                  "45 bytes left: the data ends 3 bytes before the record "
                                  "does"), messages[0]
    assert byte_map.rows[-1].type == "ERROR" and byte_map.rows[-1].path == "$[1]"


def test_paths_name_records_keys_elements_and_properties() -> None:
    body = bytearray(encode({"a": [1, "xyz"]}))
    assert body[40:48] == b"\x03\0\0\0xyz\0"  # the length of "xyz", then its bytes
    body[40:44] = (0x7FFFFFFF).to_bytes(4, "little")
    cut = store_var(1) + len(body).to_bytes(4, "little") + body
    with pytest.raises(DecodeError) as e:
        codec(framing="store_var").decode(cut)
    assert e.value.path == '$[1]["a"][1]' and e.value.offset == 12 + 4 + 40
    obj = encode(Object("Node", {"name": "n"}), full_objects=True)
    with pytest.raises(DecodeError) as e:
        codec().decode(obj[:-2])
    assert e.value.path == "$.name"
    rows = codec(framing="store_var").inspect(cut).rows
    assert rows[-1].path == '$[1]["a"][1]' and rows[-1].type == "ERROR"


def test_framed_inspect_is_one_map_with_length_prefixes() -> None:
    data = SAVEGAME.read_bytes()
    byte_map = codec(framing="store_var").inspect(data)
    prefixes = [r for r in byte_map.rows if r.type == "length prefix"]
    assert [(r.offset, r.path) for r in prefixes] == [(0, "$[0]"), (648, "$[1]")]
    assert byte_map.notes == []
    doc = byte_map.to_jsonable()
    assert doc["rows"][0] == {"offset": 0, "length": 4, "bytes": "84020000", "path": "$[0]",
                              "type": "length prefix", "value": "644 bytes"}
    offsets = [r["offset"] for r in doc["rows"]]
    assert offsets == sorted(offsets) and doc["error"] is None


DEEP_STORE_VAR = store_var(deep(1100), max_depth=2000)


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect"])
def test_depth_limit_names_max_depth_and_no_other_reading(cli: Any, tmp_path: Path,
                                                          verb: str) -> None:
    path = tmp_path / "deep.sav"
    path.write_bytes(DEEP_STORE_VAR)
    code, _, err = cli(verb, "godot", "--framing", "store_var", str(path))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "values are nested deeper than 1024 levels. Godot 4 and 3.5 refuse it too (Godot " \
        "3.2.3 has no limit): use --max-depth N, up to 100000, to read deeper values" in err
    assert "--framing" not in err and "--profile" not in err
    code, _, err = cli(verb, "godot", "--framing", "store_var", "--max-depth", "2000", str(path))
    assert code == 0, err
    code, _, err = cli(verb, "godot", "--framing", "store_var", "--max-depth", "50", str(path))
    assert code == 1 and "Use a --max-depth above 50 (at most 100000) to read it" in err


def test_a_reading_that_leaves_bytes_inside_a_record_is_not_suggested() -> None:
    data = encode({"a": 1}) + b"xyz"  # its first word, 27, reads as a record length that fits
    with pytest.raises(DecodeError) as e:
        codec().verify(data)
    assert "The whole file" not in str(e.value)


def test_usage_errors_exit_2_in_every_verb(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "v.bin"
    path.write_bytes(encode(1))
    for verb in ("decode", "encode", "verify", "inspect", "convert"):
        code, out, err = cli(verb, "godot", "--max-depth", "-1", str(path))
        assert code == 2 and out == b"" and "--max-depth takes a whole number from 0 to " \
            "100000, not '-1'" in err
        code, _, err = cli(verb, "godot", "--framing", "store_var", "--big-endian",
                           "--profile", "nope", str(path))
        assert code == 2
    code, _, err = cli("verify", "godot", "--framing", "packet_stream", "--allow-trailing",
                       str(path))
    assert code == 2 and err.startswith("gameserde: --allow-trailing applies to --framing raw")
    doc = tmp_path / "v.json"
    doc.write_text('{"$godot": {"profile": "godot3"}, "$value": "f:1.5"}')
    code, _, err = cli("encode", "godot", "--double-precision", str(doc))
    assert code == 2 and "--double-precision is a Godot 4 setting" in err
