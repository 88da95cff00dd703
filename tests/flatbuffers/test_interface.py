"""The FlatBuffers codec (``gameserde.flatbuffers.interface``): every Codec method, the library
entry points, convert between option sets, usage errors, warnings, paths in messages, and
gameserde errors where Python used to raise KeyError or ValueError."""

from __future__ import annotations

import pickle
import subprocess
import warnings
from pathlib import Path

import pytest

import gameserde
from gameserde._jsonio import compact_text
from gameserde.cli import main
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeError,
    GameserdeWarning,
    SchemaError,
    UnknownNameError,
    UsageError,
)
from gameserde.flatbuffers import FbsSchemaError, FlatBuffersCodec, load_schema
from gameserde.flatbuffers.interface import FORMAT
from tests.flatbuffers import hostile_buffers as hb

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "flatbuffers"
MONSTER_FBS = EXAMPLES / "monster.fbs"
MONSTER_JSON = (EXAMPLES / "monster.json").read_text()
SCHEMA = load_schema(MONSTER_FBS)
DATA = SCHEMA.from_json(MONSTER_JSON)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "m.bin").write_bytes(DATA)
    (tmp_path / "m.json").write_text(MONSTER_JSON)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Entry points and methods


def test_the_three_entry_points_make_the_same_codec() -> None:
    by_schema = SCHEMA.codec("Monster")
    by_name = gameserde.codec("flatbuffers", schema=str(MONSTER_FBS), type="Monster")
    by_text = gameserde.codec("flatbuffers", schema=MONSTER_FBS.read_bytes(),
                              include=[str(EXAMPLES)])
    for codec in (by_schema, by_name, by_text):
        assert isinstance(codec, FlatBuffersCodec) and codec.format == "flatbuffers"
        assert codec.root == "MyGame.Sample.Monster"
        assert codec.to_json(DATA, pretty=True) == SCHEMA.to_json(DATA)
    assert by_schema.options["schema"] is SCHEMA


def test_methods_are_the_module_functions() -> None:
    codec = SCHEMA.codec()
    value = codec.decode(DATA)
    assert value == SCHEMA.decode(DATA)
    assert codec.encode(value) == SCHEMA.encode(value)
    assert codec.to_json(DATA, pretty=True) == SCHEMA.to_json(DATA)
    assert codec.to_json(DATA) == compact_text(SCHEMA.to_json(DATA)) + "\n"
    assert "\n" not in codec.to_json(DATA)[:-1]
    assert codec.from_json(MONSTER_JSON) == codec.from_json(MONSTER_JSON.encode()) == DATA
    assert codec.verify(DATA) == f"ok: a sound MyGame.Sample.Monster buffer of {len(DATA)} bytes"
    assert codec.encode(codec.from_jsonable(codec.to_jsonable(value))) == codec.encode(value)


def test_to_jsonable_turns_flexbuffer_blobs_into_numbers() -> None:
    schema = load_schema("table T { x:[ubyte] (flexbuffer); } root_type T;")
    codec = schema.codec()
    value = codec.decode(schema.encode({"x": {"blob": b"\x01\x02"}}))
    assert value == {"x": {"blob": b"\x01\x02"}}
    assert codec.to_jsonable(value) == {"x": {"blob": [1, 2]}}


def test_from_jsonable_wants_an_object() -> None:
    with pytest.raises(EncodeError) as info:
        SCHEMA.codec().from_jsonable([1, 2])
    assert str(info.value) == ("flatbuffers encode error: the root table is a JSON object, not "
                               "an array")


def test_options_and_defaults() -> None:
    codec = SCHEMA.codec(defaults_json=True)
    assert '"mana":150' in codec.to_json(DATA) and codec.decode(DATA)["mana"] == 150
    forced = SCHEMA.codec(force_defaults=True).from_json('{"hp": 100}')
    assert len(forced) > len(SCHEMA.from_json('{"hp": 100}'))
    with pytest.raises(DecodeError, match="1:2: expecting: string constant"):
        SCHEMA.codec(strict_json=True).from_json("{hp: 1}")
    deep = load_schema("table N { n:N; } root_type N;")
    nested = deep.encode({"n": {"n": {"n": {}}}})
    assert deep.codec(max_depth=4).verify(nested).startswith("ok")
    with pytest.raises(DecodeError, match="depth"):
        deep.codec(max_depth=2).verify(nested)


def test_max_expansion_applies_to_decode_and_to_json() -> None:
    with pytest.raises(DecodeError, match="max_expansion=0"):
        SCHEMA.codec(max_expansion=0).decode(DATA)
    node = load_schema(hb.NODE_SCHEMA)
    dag = hb.dag(8)
    with pytest.raises(DecodeError, match="max_expansion=64 times"):  # to_json's default
        node.codec().to_json(dag)
    with pytest.raises(DecodeError, match="max_expansion=16"):  # decode's default
        node.codec().decode(dag)
    with pytest.raises(DecodeError, match="max_expansion=16"):  # convert decodes
        node.codec().convert(dag, node.codec())
    unlimited = node.codec(max_expansion=None)
    assert unlimited.to_json(dag, pretty=True) == node.to_json(dag, max_expansion=None)
    assert unlimited.decode(dag) == node.decode(dag, max_expansion=None)


def test_spec_builds_the_codec_again_and_pickles() -> None:
    codec = gameserde.codec("flatbuffers", schema=str(MONSTER_FBS), size_prefixed=True)
    fmt, options = pickle.loads(pickle.dumps(codec.spec))
    again = gameserde.codec(fmt, **options)
    assert again.encode({"hp": 5}) == codec.encode({"hp": 5})


# ---------------------------------------------------------------------------------------------
# inspect


def test_inspect_rows_have_value_paths() -> None:
    byte_map = SCHEMA.codec().inspect(DATA)
    assert byte_map.error is None and byte_map.native is None
    rows = {(r.path, r.type): r for r in byte_map.rows}
    assert rows["$.hp", "int16_t"].note == "300 (table field `hp` (Short))"
    assert rows["$.name", "char[3]"].note == "'Orc' (string literal)"
    assert ("$.inventory[3]", "uint8_t") in rows
    assert ("$.weapons[1].name", "char[3]") in rows
    assert ("$.equipped<Weapon>.damage", "int16_t") in rows
    assert rows["$.pos.y", "float"].note.startswith("2 ")
    covered = sum(r.size for r in byte_map.rows)
    assert covered == len(DATA)  # every byte, padding included
    as_json = byte_map.to_jsonable()
    assert as_json["format"] == "flatbuffers" and as_json["error"] is None
    assert {"offset": 0, "length": 4, "bytes": DATA[:4].hex(), "path": "$",
            "type": "UOffset32"}.items() <= as_json["rows"][0].items()


def test_inspect_of_broken_data_keeps_the_map_and_says_why() -> None:
    byte_map = SCHEMA.codec().inspect(DATA[:60])
    assert byte_map.rows and isinstance(byte_map.error, DecodeError)
    with pytest.raises(DecodeError) as info:
        SCHEMA.codec().verify(DATA[:60])
    assert str(byte_map.error) == str(info.value)


def test_annotate_gives_flatc_text() -> None:
    from gameserde.flatbuffers.inspect import annotate

    byte_map = SCHEMA.codec(annotate=True).inspect(DATA)
    want = annotate(SCHEMA, DATA, binary_file="<stdin>")
    assert byte_map.native == want.removesuffix("\n") and byte_map.render() == byte_map.native
    sparse = SCHEMA.codec(annotate=True, annotate_sparse_vectors=True).inspect(DATA).render()
    assert "regions omitted" in sparse


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect"])
def test_an_empty_file_gets_one_message(files: Path, capsys: pytest.CaptureFixture[str],
                                        verb: str) -> None:
    (files / "empty.bin").write_bytes(b"")
    code, _, err = run(capsys, verb, "flatbuffers", "-s", str(MONSTER_FBS),
                       str(files / "empty.bin"))
    assert code == 1
    assert err == (f"gameserde: {files / 'empty.bin'}: flatbuffers decode error at byte 0 (0x0): "
                   "the 0-byte buffer is shorter than the 12 bytes of the smallest flatbuffer\n")


def test_inspect_as_json_on_the_command_line(files: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, _ = run(capsys, "inspect", "flatbuffers", "-s", str(MONSTER_FBS), "--as", "json",
                       str(files / "m.bin"))
    assert code == 0
    paths = {row["path"] for row in json.loads(out)["rows"]}
    assert {"$", "$.hp", "$.weapons[0].name", "$.path[1].z"} <= paths


# ---------------------------------------------------------------------------------------------
# convert


def test_convert_to_size_prefixed_and_back_is_byte_exact(files: Path, flatc: str) -> None:
    fbs, src = str(MONSTER_FBS), str(files / "m.bin")
    assert main(["convert", "flatbuffers", "-s", fbs, "--to-size-prefixed", src,
                 "-o", str(files / "m.sp.bin")]) == 0
    subprocess.run([flatc, "-b", "--size-prefixed", "-o", str(files / "flatc"), fbs,
                    str(files / "m.json")], check=True, capture_output=True, timeout=60)
    prefixed = (files / "m.sp.bin").read_bytes()
    assert prefixed == (files / "flatc" / "m.bin").read_bytes()
    assert main(["convert", "flatbuffers", "-s", fbs, "--size-prefixed", "--to-no-size-prefixed",
                 str(files / "m.sp.bin"), "-o", str(files / "back.bin")]) == 0
    assert (files / "back.bin").read_bytes() == DATA


def test_convert_with_forced_defaults() -> None:
    plain = SCHEMA.codec()
    every = SCHEMA.codec(defaults_json=True).convert(DATA, SCHEMA.codec(force_defaults=True))
    assert SCHEMA.decode(every, defaults=True) == SCHEMA.decode(DATA, defaults=True)
    assert SCHEMA.codec(defaults_json=True).to_json(every) == SCHEMA.codec(
        defaults_json=True).to_json(DATA)
    assert len(every) > len(DATA)  # mana, the default, is written now
    assert plain.convert(every, plain) == DATA


def test_convert_keeps_the_values_flatc_json_rounds() -> None:
    schema = load_schema("table T { f:float; d:double; v:[float]; } root_type T;")
    data = schema.encode({"f": 1.2345678, "d": 0.1234567890123456789, "v": [1e-7]})
    codec, prefixed = schema.codec(), schema.codec(size_prefixed=True)
    through_json = codec.from_json(codec.to_json(data))
    assert schema.decode(through_json) != schema.decode(data)  # flatc's text rounds them
    assert codec.convert(prefixed.convert(codec.convert(data, prefixed), codec), codec) == data
    assert schema.decode(codec.convert(data, prefixed), size_prefixed=True) == (
        schema.decode(data))


def test_convert_refuses_options_that_change_nothing(files: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="--to-force-defaults"):
        SCHEMA.codec(defaults_json=True).convert(DATA, SCHEMA.codec())
    with pytest.raises(SystemExit) as exit_status:  # convert writes no JSON
        main(["convert", "flatbuffers", "-s", str(MONSTER_FBS), "--defaults-json",
              str(files / "m.bin"), "-o", str(files / "x.bin")])
    assert exit_status.value.code == 2
    assert "unrecognized arguments: --defaults-json" in capsys.readouterr().err
    with pytest.raises(UsageError, match="same format"):
        SCHEMA.codec().convert(DATA, gameserde.codec("godot"))


# ---------------------------------------------------------------------------------------------
# Usage errors


@pytest.mark.parametrize(("options", "message"), [
    ({"max_depth": -1}, "max_depth must be a whole number from 0 to 1000000"),
    ({"max_depth": True}, "max_depth must be a whole number"),
    ({"max_expansion": "2"}, "max_expansion (--max-expansion) is a number >= 0"),
    ({"max_expansion": -1.0}, "max_expansion (--max-expansion) is a number >= 0"),
    ({"size_prefixed": "yes"}, "size_prefixed is true or false"),
    ({"annotate_sparse_vectors": True}, "applies with --annotate only"),
    ({"verbose": True}, "flatbuffers codecs take no option verbose"),
    ({"type": 3}, "type (--type) is the name of the root table"),
    ({"include": 3}, "include (-I) is a directory or a list of directories"),
    ({"source": 3}, "source is the input's file name"),
])
def test_bad_options_are_usage_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError) as info:
        gameserde.codec("flatbuffers", schema=SCHEMA, **options)
    assert message in str(info.value)


def test_schema_arguments() -> None:
    with pytest.raises(UsageError, match=r"flatbuffers needs a schema: --schema S\.fbs"):
        gameserde.codec("flatbuffers")
    with pytest.raises(UsageError, match="not int"):
        gameserde.codec("flatbuffers", schema=3)
    with pytest.raises(UsageError, match="does not apply to a schema already loaded"):
        gameserde.codec("flatbuffers", schema=SCHEMA, include=["x"])
    with pytest.raises(UsageError) as info:
        gameserde.codec("flatbuffers", schema="missing.fbs")
    assert str(info.value) == "missing.fbs: No such file or directory"


@pytest.mark.parametrize("argv", [
    ["verify", "--max-depth", "-1"],
    ["inspect", "--max-depth", "x"],
    ["decode", "--max-expansion", "abc"],
    ["decode", "--strict-json"],
    ["encode", "--defaults-json"],
    ["inspect", "--annotate-sparse-vectors"],
    ["verify", "--annotate"],
])
def test_usage_errors_exit_2(files: Path, capsys: pytest.CaptureFixture[str],
                             argv: list[str]) -> None:
    verb, *options = argv
    data = files / ("m.json" if verb == "encode" else "m.bin")
    with pytest.raises(SystemExit) as info:  # argparse's errors
        code = main([verb, "flatbuffers", "-s", str(MONSTER_FBS), *options, str(data),
                     "-o", str(files / "out")])
        raise SystemExit(code)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "_factor" not in err


def test_max_expansion_text_names_the_option(files: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["decode", "flatbuffers", "-s", str(MONSTER_FBS), "--max-expansion", "abc",
              str(files / "m.bin")])
    assert ("--max-expansion takes a number >= 0 (inf: no limit), not 'abc'"
            in capsys.readouterr().err)


# ---------------------------------------------------------------------------------------------
# Warnings


def test_bytes_after_a_size_prefixed_buffer_are_a_warning(files: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    codec = SCHEMA.codec(size_prefixed=True)
    data = codec.encode({"hp": 7}) + b"\0" * 8
    for method in (codec.decode, codec.to_json, codec.verify):
        with pytest.warns(GameserdeWarning, match="the 8 bytes after them"):
            method(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GameserdeWarning)
        codec.verify(data[:-8])
    (files / "extra.bin").write_bytes(data)
    argv = ["decode", "flatbuffers", "-s", str(MONSTER_FBS), "--size-prefixed",
            str(files / "extra.bin")]
    code, out, err = run(capsys, *argv)
    assert code == 0 and '"hp":7' in out
    assert err.startswith(f"gameserde: {files / 'extra.bin'}: the size prefix gives")
    code, out, err = run(capsys, *argv, "--strict")
    assert code == 1 and "(--strict)" in err


# ---------------------------------------------------------------------------------------------
# Errors: one voice, paths, gameserde errors only


def test_encode_errors_name_the_format_and_the_path() -> None:
    with pytest.raises(EncodeError) as info:
        SCHEMA.codec().from_json('{weapons: [{damage: 99999}]}')
    assert str(info.value) == ('flatbuffers encode error in $.weapons[0].damage: invalid number: '
                               '"99999", constant does not fit [-32768; 32767]')
    with pytest.raises(EncodeError, match=r"^flatbuffers encode error in \$\.name: "):
        SCHEMA.codec().encode({"name": 5})
    with pytest.raises(EncodeError, match=r"^flatbuffers encode error in \$\.x: "):
        load_schema("table T { x:[ubyte] (flexbuffer); } root_type T;").encode(
            {"x": {1: 2}})


def test_json_syntax_errors_are_encode_errors() -> None:
    with pytest.raises(DecodeError) as info:
        SCHEMA.codec().from_json("{hp: 1")
    assert str(info.value) == ("flatbuffers encode error at byte 6 (0x6): 1:7: expecting: } "
                               "instead got: end of file")


def test_a_long_number_is_not_repeated() -> None:
    digits = "9" * 5000
    with pytest.raises(EncodeError) as info:
        SCHEMA.codec().from_json(f"{{hp: {digits}}}")
    message = str(info.value)
    assert len(message) < 200 and "(5000 characters)" in message
    assert message.startswith('flatbuffers encode error in $.hp: invalid number: "99999')


def test_verify_errors_give_the_path() -> None:
    broken = bytearray(DATA)
    name = broken.index(b"Sword")
    broken[name - 4:name] = (1000).to_bytes(4, "little")  # the length of weapons[0].name
    with pytest.raises(DecodeError) as info:
        SCHEMA.codec().verify(bytes(broken))
    assert info.value.path == "$.weapons[0].name"
    assert "in $.weapons[0].name:" in str(info.value)


@pytest.mark.parametrize("call", ["decode", "to_json", "verify", "view", "encode", "codec"])
def test_an_unknown_root_type_is_an_unknown_name_error(call: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        if call == "encode":
            SCHEMA.encode({}, "Monstr")
        elif call == "codec":
            SCHEMA.codec("Monstr")
        else:
            getattr(SCHEMA, call)(DATA, "Monstr")
    assert isinstance(info.value, KeyError) and isinstance(info.value, GameserdeError)
    assert str(info.value).startswith(str(MONSTER_FBS.resolve()))
    assert "no type named 'Monstr' in the schema (did you mean Monster?)" in str(info.value)


def test_no_root_type_is_a_usage_error() -> None:
    schema = load_schema("table A { x:int; }")
    for call in (lambda: schema.decode(b"\0" * 12), lambda: schema.verify(b"\0" * 12),
                 lambda: schema.encode({})):
        with pytest.raises(UsageError, match="the schema declares no root_type"):
            call()
    with pytest.raises(UsageError, match="name the root table with --type"):
        schema.codec()
    with pytest.raises(UnknownNameError, match="A is not a table"):
        load_schema("struct A { x:int; } table T { a:A; }").codec("A")
    with pytest.raises(UsageError, match="a type name is a str, not int"):
        schema.table(3)  # type: ignore[arg-type]


def test_a_schema_that_does_not_load(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = files / "bad.fbs"
    bad.write_text("table T { a:Foo; }\nroot_type T;\n")
    with pytest.raises(FbsSchemaError) as info:
        gameserde.codec("flatbuffers", schema=str(bad))
    assert isinstance(info.value, SchemaError)
    assert str(info.value).startswith(f"{bad}:3: 0: error: type referenced but not defined")
    code, _, err = run(capsys, "decode", "flatbuffers", "-s", str(bad), str(files / "m.bin"))
    assert code == 1 and err == f"gameserde: {info.value}\n"


def test_flatc_schema_warnings_are_notes(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = files / "odd.fbs"
    odd.write_text("table T { BadName:int; }\nroot_type T;\n")
    with pytest.warns(GameserdeWarning, match="field names should be lowercase snake_case"):
        gameserde.codec("flatbuffers", schema=str(odd))
    data = load_schema(odd).encode({"BadName": 1})
    (files / "t.bin").write_bytes(data)
    code, out, err = run(capsys, "verify", "flatbuffers", "-s", str(odd), str(files / "t.bin"))
    assert code == 0 and out.startswith(f"{files / 't.bin'}: ok")
    assert err.startswith(f"gameserde: {files / 't.bin'}: {odd}:1: ") and "warning:" in err
    code, _, err = run(capsys, "verify", "flatbuffers", "-s", str(odd), "--strict",
                       str(files / "t.bin"))
    assert code == 1 and "snake_case, got: BadName (--strict)" in err


def test_the_cli_reads_a_schema_path_whatever_its_characters(
        files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = files / "odd;name{1}.fbs"
    odd.write_bytes(MONSTER_FBS.read_bytes().replace(b'include "weapon.fbs";', b""))
    (files / "odd.fbs").write_text("")
    code, out, _ = run(capsys, "decode", "flatbuffers", "-s", str(odd), "-I", str(EXAMPLES),
                       str(files / "m.bin"))
    assert code == 1  # read as a file: Weapon is not declared there (the include is gone)
    code, out, _ = run(capsys, "verify", "flatbuffers", "-s", str(MONSTER_FBS), "-I",
                       f"{files}:{EXAMPLES}", str(files / "m.bin"))
    assert code == 0 and "ok: a sound" in out


def test_the_declared_options() -> None:
    flags = {o.name: o.flags for o in FORMAT.options}
    assert flags["schema"] == ("--schema", "-s") and flags["type"] == ("--type", "--root-type")
    assert flags["include"] == ("-I", "--include")
    assert not any(f in ("-b", "-t") for fs in flags.values() for f in fs)
    output = {o.name for o in FORMAT.options if o.output}
    assert output == {"size_prefixed", "force_defaults"}


@pytest.mark.parametrize("method", ["decode", "to_json", "verify", "inspect", "from_json"])
@pytest.mark.parametrize("argument", [None, 123, 1.5])
def test_wrong_argument_types_are_usage_errors(method: str, argument: object) -> None:
    with pytest.raises(UsageError, match="flatbuffers data is bytes, bytearray or memoryview"):
        getattr(SCHEMA.codec(), method)(argument)


def test_text_is_not_binary_data() -> None:
    with pytest.raises(UsageError, match="not str"):
        SCHEMA.codec().decode("abc")  # type: ignore[arg-type]
    assert SCHEMA.codec().verify(memoryview(DATA)).startswith("ok")
    assert SCHEMA.codec().inspect(bytearray(DATA)).error is None
