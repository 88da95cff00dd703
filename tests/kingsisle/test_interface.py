"""KingsIsle on the codec interface: every Codec method against the module functions, both
entry points (``KiSchema.codec`` and ``gameserde.codec``), convert between shallow, deep, XML
and BINd byte for byte with what encode writes, usage errors and refused combinations,
warnings (and --strict), path notation, and GameserdeErrors where Python would raise
TypeError."""

from __future__ import annotations

import json
import pickle
import warnings
import zlib
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde.cli import main
from gameserde.errors import DecodeError, EncodeError, GameserdeError, GameserdeWarning, UsageError
from gameserde.kingsisle import (
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    KiObject,
    KiSchema,
    Serializer,
    decode,
    from_json,
    load_schema,
    read_bind,
    stream_map,
    to_json,
    to_jsonable,
    to_xml,
    write_bind,
)
from gameserde.kingsisle.interface import KiByteMap, KiCodec
from tests.kingsisle.test_cli import ITEM as ITEM_PATH
from tests.kingsisle.test_cli import TYPES, run

ITEM = ITEM_PATH.read_bytes()
SCHEMA = load_schema(TYPES)
VALUE = Serializer(SCHEMA).decode(ITEM)


def codec(**options: Any) -> KiCodec:
    made = gameserde.codec("kingsisle", schema=TYPES, **options)
    assert isinstance(made, KiCodec)
    return made


# -- the methods --------------------------------------------------------------------------


def test_decode_and_encode_are_the_serializers() -> None:
    c = codec()
    assert c.decode(ITEM) == VALUE and c.decode(bytearray(ITEM)) == VALUE
    assert c.encode(VALUE) == ITEM
    deep = codec(deep=True, flags=WITH_COMPRESSION)
    data = Serializer(SCHEMA, shallow=False, flags=WITH_COMPRESSION).encode(VALUE)
    assert deep.encode(VALUE) == data and deep.decode(data) == VALUE


def test_json_methods_are_the_module_functions() -> None:
    c = codec(enum_names=True)
    doc = c.to_jsonable(VALUE)
    assert doc == to_jsonable(VALUE, schema=SCHEMA, enum_names=True)
    assert c.from_jsonable(doc) == VALUE
    assert c.to_json(ITEM) == to_json(VALUE, schema=SCHEMA, enum_names=True) + "\n"
    assert c.to_json(ITEM, pretty=True) == to_json(VALUE, schema=SCHEMA, enum_names=True,
                                                   pretty=True) + "\n"
    assert c.from_json(c.to_json(ITEM)) == ITEM
    assert c.from_json(c.to_json(ITEM).encode()) == ITEM
    assert c.from_json(to_xml(VALUE, SCHEMA)) == ITEM  # either form


def test_verify_says_what_it_read() -> None:
    assert codec().verify(ITEM) == ("ok: a sound stream of 152 bytes holding a class "
                                    "ItemTemplate")
    bind = write_bind(VALUE, SCHEMA)
    assert codec().verify(bind).startswith(f"ok: a sound BINd file of {len(bind)} bytes")
    xml = to_xml(VALUE, SCHEMA).encode()
    assert codec().verify(xml).startswith(f"ok: a sound XML file of {len(xml)} bytes")
    with pytest.raises(DecodeError) as e:
        codec().verify(ITEM[:100])
    assert str(e.value).startswith("kingsisle decode error at byte")


def test_inspect_gives_the_stream_map_rows() -> None:
    m = codec().inspect(ITEM)
    assert isinstance(m, KiByteMap) and m.error is None and m.format == "kingsisle"
    expected = stream_map(ITEM, Serializer(SCHEMA))
    def cells(rows: list[Any]) -> list[tuple[Any, ...]]:
        return [(r.offset, r.size, r.path, r.type, r.note, r.bit, r.bits) for r in rows]

    assert cells(m.rows) == cells(expected.rows)
    assert m.render() == expected.render().removeprefix("stream (152 bytes)\n")
    doc = m.to_jsonable()
    assert [(r["offset"], r["bit"], r["bits"], r["path"]) for r in doc["rows"]] == [
        (r.offset, r.bit, r.bits, r.path) for r in expected.rows]
    assert "$.m_effects[1].m_school" in {r["path"] for r in doc["rows"]}


def test_inspect_rows_of_inflated_data_name_their_section() -> None:
    c = codec(flags=WITH_COMPRESSION)
    data = c.encode(VALUE)
    doc = c.inspect(data).to_jsonable()
    outer = [r for r in doc["rows"] if "section" not in r]
    inner = [r for r in doc["rows"] if "section" in r]
    assert [r["type"] for r in outer] == ["compression marker", "inflated size", "zlib data"]
    assert inner and {r["section"] for r in inner} == {"inflated body"}
    inflated = zlib.decompress(data[5:])
    text = c.inspect(data).render()
    assert text.startswith("offset")
    assert f"\n\ninflated body ({len(inflated)} bytes)\noffset" in text
    assert all(r["bytes"] == inflated[r["offset"]:r["offset"] + r["length"]].hex()
               for r in inner)


def test_inspect_error_is_decodes() -> None:
    cut = ITEM[:100]
    with pytest.raises(DecodeError) as e:
        codec().decode(cut)
    m = codec().inspect(cut)
    assert m.error is not None and str(m.error) == str(e.value)
    assert m.rows[-1].type == "ERROR" and "in $.m_tags[1]" in str(e.value)
    assert m.to_jsonable()["error"]["path"] == "$.m_tags[1]"


def test_the_bind_file_map_starts_with_its_magic() -> None:
    m = codec().inspect(write_bind(VALUE, SCHEMA))
    assert [r.type for r in m.rows[:3]] == ["magic", "flags", "compression marker"]
    m = codec(bind=True).inspect(ITEM)  # a codec of BINd files, given a stream
    assert [r.type for r in m.rows] == ["ERROR"] and str(m.error) == (
        "kingsisle decode error at byte 0 (0x0): not a BINd file: it starts with "
        f"{ITEM[:4]!r}, not b'BINd'")


def test_an_xml_file_is_one_row() -> None:
    xml = codec(xml=True).encode(VALUE)
    m = codec().inspect(b"\xef\xbb\xbf" + xml)
    assert m.error is None and [(r.type, r.note) for r in m.rows] == [
        ("XML", "class ItemTemplate")]


# -- entry points ----------------------------------------------------------------------


def test_the_two_entry_points_make_the_same_codec() -> None:
    a = SCHEMA.codec(flags=7, deep=True, mask=0x18, max_depth=50)
    b = gameserde.codec("kingsisle", schema=TYPES, flags=7, deep=True, mask=0x18, max_depth=50)
    assert a.encode(VALUE) == b.encode(VALUE)
    assert (a.flags, a.deep, a.mask, a.max_depth) == (b.flags, b.deep, b.mask, b.max_depth)
    assert b.spec == ("kingsisle", {"schema": TYPES, "flags": 7, "deep": True, "mask": 0x18,
                                    "max_depth": 50})
    again = gameserde.codec(*pickle.loads(pickle.dumps(b.spec))[:1],
                            **pickle.loads(pickle.dumps(b.spec))[1])
    assert again.encode(VALUE) == b.encode(VALUE)
    assert gameserde.codec("kingsisle", schema=SCHEMA).encode(VALUE) == ITEM


def test_several_type_lists_are_merged() -> None:
    c = gameserde.codec("kingsisle", schema=[TYPES, TYPES])
    assert c.decode(ITEM) == VALUE


def test_today_functions_keep_working_and_take_max_depth() -> None:
    assert decode(ITEM, SCHEMA) == VALUE
    assert decode(ITEM, SCHEMA, max_depth=5) == decode(ITEM, SCHEMA, recursion_limit=5)
    with pytest.raises(DecodeError, match="nest deeper than max_depth 1"):
        decode(ITEM, SCHEMA, max_depth=1)
    with pytest.raises(DecodeError, match="nest deeper than max_depth 1"):
        decode(ITEM, SCHEMA, recursion_limit=1)  # the former name
    with pytest.raises(UsageError, match="not both"):
        Serializer(SCHEMA, max_depth=5, recursion_limit=5)
    with pytest.raises(UsageError, match="max_depth must be a whole number >= 0"):
        from_json(to_json(VALUE, schema=SCHEMA), SCHEMA, max_depth=-1)


# -- convert ---------------------------------------------------------------------------


FORMS: dict[str, dict[str, Any]] = {
    "shallow": {},
    "shallow 7": {"flags": 7},
    "deep": {"deep": True},
    "deep compressed": {"deep": True, "flags": STATEFUL_FLAGS | WITH_COMPRESSION},
    "manual": {"manual_compression": True, "deep": True},
    "BINd": {"bind": True},
    "BINd 1": {"bind": True, "flags": 1},
    "XML": {"xml": True},
}


@pytest.mark.parametrize("source", list(FORMS))
@pytest.mark.parametrize("target", list(FORMS))
def test_convert_writes_what_encode_writes(source: str, target: str) -> None:
    reader, writer = codec(**FORMS[source]), codec(**FORMS[target])
    data = reader.encode(VALUE)
    assert reader.convert(data, writer) == writer.encode(VALUE)
    assert writer.convert(reader.convert(data, writer), reader) == data  # and back


def test_convert_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seven, deep, back = (tmp_path / name for name in ("seven.bin", "deep.bin", "back.bin"))
    seven.write_bytes(codec(flags=7).encode(VALUE))
    assert run(capsys, "convert", "kingsisle", "-s", TYPES, "--flags", "7", str(seven),
               "--to-flags", "0", "--to-deep", "-o", str(deep))[0] == 0
    assert deep.read_bytes() == codec(deep=True).encode(VALUE)
    for options, expected in ((["--to-bind", "--to-no-deep"], write_bind(VALUE, SCHEMA)),
                              (["--to-xml", "--to-no-deep"], to_xml(VALUE, SCHEMA).encode()),
                              (["--to-no-deep"], ITEM)):
        code, _, err = run(capsys, "convert", "kingsisle", "-s", TYPES, "--deep", str(deep),
                           *options, "-o", str(back))
        assert (code, err) == (0, "") and back.read_bytes() == expected, options
    code, _, err = run(capsys, "convert", "kingsisle", "-s", TYPES, "--deep",
                       "--skip-unknown-types", str(deep), "--to-no-deep", "-o", str(back))
    assert (code, err) == (0, "") and back.read_bytes() == ITEM  # a read-side option
    code, _, err = run(capsys, "convert", "kingsisle", "-s", TYPES, "--to-xml", str(deep),
                       "--to-bind", "-o", str(back))
    assert code == 2 and "--bind writes a binary BINd file and --xml the XML form" in err


# -- usage errors and refused combinations ------------------------------------------------


@pytest.mark.parametrize(("options", "words"), [
    ({"flags": 64}, "flags must be serializer flags, bits of 0x1f (--flags), not 64"),
    ({"flags": "7"}, "flags must be serializer flags"),
    ({"mask": -1}, "mask must be a u32 (--mask), not -1"),
    ({"max_depth": -1}, "max_depth must be a whole number from 0 to 100000, not -1"),
    ({"max_depth": True}, "max_depth must be a whole number"),
    ({"max_expansion": -2}, "max_expansion must be a number >= 0 or None (--max-expansion"),
    ({"deep": "yes"}, "deep must be True or False"),
    ({"version": 2}, "kingsisle codecs take no option version"),
    ({"type": "class X"}, "kingsisle codecs take no option type"),
    ({"xml": True, "enum_names": True}, "--enum-names does nothing with --xml"),
    ({"bind": True, "manual_compression": True}, "--manual-compression does not apply to "
                                                 "BINd files (--bind)"),
    ({"bind": True, "xml": True}, "--bind writes a binary BINd file and --xml the XML form"),
])
def test_bad_options_are_usage_errors(options: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError) as e:
        codec(**options)
    assert words in str(e.value)


def test_what_the_schema_must_be() -> None:
    with pytest.raises(UsageError, match=r"need a type list: schema= \(--schema/-s"):
        gameserde.codec("kingsisle")
    with pytest.raises(UsageError, match="schema must be a type list's path"):
        gameserde.codec("kingsisle", schema=3)
    with pytest.raises(FileNotFoundError):
        gameserde.codec("kingsisle", schema="no/such/types.json")


def test_options_that_do_nothing_are_refused() -> None:
    with pytest.raises(UsageError, match="--enum-names does nothing in convert"):
        codec(enum_names=True).convert(ITEM, codec(deep=True))
    with pytest.raises(UsageError, match="--manual-compression does not apply to BINd"):
        codec(manual_compression=True).decode(write_bind(VALUE, SCHEMA))
    with pytest.raises(UsageError, match="--skip-unknown-types needs --deep for a stream"):
        codec(skip_unknown_types=True).decode(ITEM)
    assert codec(skip_unknown_types=True).decode(write_bind(VALUE, SCHEMA)) == VALUE
    assert codec(xml=True).json_output is False and codec().json_output is True
    assert codec(deep=True, bind=True, skip_unknown_types=True).decode(
        write_bind(VALUE, SCHEMA)) == VALUE  # a BINd file is deep


@pytest.mark.parametrize("verb", ["decode", "encode", "verify", "inspect", "convert"])
def test_usage_errors_exit_2_in_every_verb(capsys: pytest.CaptureFixture[str],
                                           verb: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main([verb, "kingsisle", "-s", TYPES, "--max-depth", "-1", str(ITEM_PATH)])
    assert stop.value.code == 2
    assert "--max-depth takes a whole number from 0 to 100000" in capsys.readouterr().err


# -- warnings ----------------------------------------------------------------------------


def lacking(*names: str) -> KiSchema:
    """The example type list without the classes ``names``."""
    doc = json.loads(Path(TYPES).read_text())
    doc["classes"] = {k: c for k, c in doc["classes"].items() if c["name"] not in names}
    return load_schema(doc)


def test_skipped_objects_are_reported_with_their_hash_and_offset() -> None:
    data = codec(deep=True).encode(VALUE)
    partial = lacking("class DamageEffect")
    skipped = SCHEMA.classes["class DamageEffect"].attributes["hash"]
    for c in (partial.codec(deep=True, skip_unknown_types=True),):
        with pytest.warns(GameserdeWarning) as noted:
            value = c.decode(data)
        assert value["m_effects"][1] is None
        [message] = [str(w.message) for w in noted]
        at = data.index(skipped.to_bytes(4, "little"))
        assert message == (f"skipped an object of a class the type list lacks (type hash "
                           f"{skipped}), read as null at byte {at} (0x{at:x})")
    bind = write_bind(VALUE, SCHEMA, flags=STATEFUL_FLAGS)
    with pytest.warns(GameserdeWarning, match=f"type hash {skipped}.*at byte "
                                              f"{bind.index(skipped.to_bytes(4, 'little'))} "):
        read_bind(bind, partial, skip_unknown_types=True)


def test_many_skipped_objects_end_in_one_count() -> None:
    many = KiObject(VALUE.type_name, VALUE.type_hash, VALUE)
    many["m_effects"] = [VALUE["m_effects"][1]] * 25
    data = codec(deep=True).encode(many)
    with pytest.warns(GameserdeWarning) as noted:
        lacking("class DamageEffect").codec(deep=True, skip_unknown_types=True).decode(data)
    assert len(noted) == 11 and str(noted[-1].message).startswith(
        "skipped 15 more objects of classes the type list lacks and 0 more properties")


def test_skipped_objects_fail_with_strict(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    types = tmp_path / "types.json"
    doc = json.loads(Path(TYPES).read_text())
    doc["classes"] = {k: c for k, c in doc["classes"].items()
                      if c["name"] != "class DamageEffect"}
    types.write_text(json.dumps(doc))
    path = tmp_path / "deep.bin"
    path.write_bytes(codec(deep=True).encode(VALUE))
    args = ["-s", str(types), "--deep", "--skip-unknown-types", str(path)]
    code, out, err = run(capsys, "decode", "kingsisle", *args)
    assert code == 0 and json.loads(out)["m_effects"][1] is None
    assert err.startswith(f"gameserde: {path}: skipped an object of a class the type list "
                          "lacks (type hash ")
    code, out, err = run(capsys, "verify", "kingsisle", "--strict", *args)
    assert (code, out) == (1, "") and err.endswith("(--strict)\n") and err.count("\n") == 1


def test_trailing_bytes_are_noted_where_they_are_left_out() -> None:
    data = ITEM + b"xyz"
    with warnings.catch_warnings():
        warnings.simplefilter("error", GameserdeWarning)
        value = codec().decode(data)  # kept in the value: nothing to say
        assert codec(deep=True).encode(value)[-3:] == b"xyz"
    for call, words in ((lambda: codec().to_json(data), "not in the JSON"),
                        (lambda: codec().verify(data), "readers ignore them"),
                        (lambda: codec(xml=True).encode(value), "left out of the XML")):
        with pytest.warns(GameserdeWarning, match="3 bytes at byte 152 .* after the root "
                                                  f"object, are not part of it; .*{words}"):
            call()


# -- one voice for errors --------------------------------------------------------------


def test_python_errors_are_gameserde_errors() -> None:
    with pytest.raises(UsageError, match=r"data must be bytes, not str \(a path was given"):
        decode(str(ITEM_PATH), SCHEMA)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="data must be bytes, not str"):
        codec().decode(str(ITEM_PATH))
    with pytest.raises(UsageError, match="data must be bytes, not int"):
        read_bind(5, SCHEMA)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="the schema must be a KiSchema"):
        decode(ITEM, TYPES)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="serializer flags are bits of 0x1f"):
        Serializer(SCHEMA, flags=64)
    with pytest.raises(GameserdeError):
        to_jsonable(VALUE, enum_names=True)


def test_errors_name_the_path_and_the_format() -> None:
    bad = to_jsonable(VALUE, schema=SCHEMA)
    bad["m_effects"][1]["m_school"] = "x"
    with pytest.raises(DecodeError) as e:
        codec().from_jsonable(bad)
    assert str(e.value).startswith("kingsisle encode error in $.m_effects[1].m_school: ")
    with pytest.raises(DecodeError) as e:
        codec().from_json(json.dumps(bad))
    assert str(e.value).startswith("kingsisle encode error in $.m_effects[1].m_school: ")
    value = codec().decode(ITEM)
    value["m_effects"][1]["m_amount"] = 1 << 40
    with pytest.raises(EncodeError) as f:
        codec().encode(value)
    assert str(f.value).startswith("kingsisle encode error in $.m_effects[1].m_amount: ")
    with pytest.raises(DecodeError) as e:
        codec().from_json(b"<Objects><Class Name='class Nope'/></Objects>")
    assert str(e.value).startswith("kingsisle encode error at byte ")
