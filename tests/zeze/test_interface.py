"""Zeze on the codec interface: ``ZezeSchema.codec`` and ``gameserde.codec("zeze", ...)``, each
method, convert between solutions (schema evolution, byte for byte as Java's load and save),
refused options, warnings, paths in messages, and GameserdeError for every failure."""

from __future__ import annotations

import json
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde import zeze
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
from gameserde.zeze.frames import Frame, encode_frame, encode_raw_frame
from gameserde.zeze.interface import ZezeCodec

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = str(ROOT / "examples" / "zeze" / "game.xml")
SCHEMA = zeze.load_schema(SCHEMA_FILE)
ROLE = json.loads((ROOT / "examples" / "zeze" / "role.json").read_text())
FRAMES = json.loads((ROOT / "examples" / "zeze" / "frames.json").read_text())

OLD = """<solution name="g"><module name="m" id="1">
  <bean name="BItem"><variable id="1" name="id" type="int"/></bean>
  <bean name="BRole">
    <variable id="1" name="name" type="string"/>
    <variable id="2" name="hp" type="int"/>
    <variable id="3" name="gold" type="long"/>
    <variable id="4" name="tags" type="list[string]"/>
    <variable id="5" name="item" type="BItem"/>
  </bean>
  <protocol name="PRole" id="3" argument="BRole"/>
</module></solution>
"""
NEW = """<solution name="g"><module name="m" id="1">
  <bean name="BItem">
    <variable id="1" name="id" type="int"/><variable id="2" name="count" type="int"/>
  </bean>
  <bean name="BRole">
    <variable id="1" name="name" type="string"/>
    <variable id="2" name="hp" type="short"/>
    <variable id="4" name="tags" type="set[string]"/>
    <variable id="5" name="item" type="BItem"/>
    <variable id="6" name="level" type="int"/>
  </bean>
  <protocol name="PRole" id="3" argument="BRole"/>
</module></solution>
"""
OLD_ROLE = {"name": "Ann", "hp": 70000, "gold": 5, "tags": ["a", "b", "a"], "item": {"id": 3}}
OLD_BYTES = bytes.fromhex("1303416e6e" "10611170" "1005" "1433016101620161" "16100300" "00")
NEW_BYTES = bytes.fromhex("1303416e6e" "105170" "1005" "142301610162" "16100300" "00")


@pytest.fixture
def solutions(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(OLD)
    new.write_text(NEW)
    return str(old), str(new)


def role() -> ZezeCodec:
    return SCHEMA.codec("BRole")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def noted(call: Any, *args: Any) -> tuple[Any, list[str]]:
    """``call(*args)`` and the GameserdeWarnings it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call(*args)
    return result, [str(w.message) for w in seen if issubclass(w.category, GameserdeWarning)]


# -- the codec's methods ----------------------------------------------------------------


def test_the_methods_agree_with_the_module_functions() -> None:
    c = role()
    data = zeze.encode(SCHEMA, "BRole", zeze.from_jsonable(SCHEMA, "BRole", ROLE))
    value = c.decode(data)
    assert value == zeze.decode(SCHEMA, "BRole", data) and value["name"] == "Knight"
    assert c.encode(value) == data
    assert c.to_jsonable(value) == zeze.to_jsonable(SCHEMA, "BRole", value)
    assert c.from_jsonable(c.to_jsonable(value)) == value
    for pretty in (False, True):
        assert c.to_json(data, pretty=pretty) == zeze.to_json(SCHEMA, "BRole", value,
                                                               pretty=pretty) + "\n"
    assert c.from_json(c.to_json(data)) == c.from_json(c.to_json(data).encode()) == data
    assert c.verify(data) == f"ok: a sound game.role.BRole bean of {len(data)} bytes"
    assert zeze.verify(SCHEMA, "BRole", data) == SCHEMA.verify("BRole", data) == c.verify(data)
    byte_map = c.inspect(data)
    assert byte_map.error is None and byte_map.format == "zeze"
    assert sum(r.size for r in byte_map.rows) == len(data)
    assert "$.items[1].expire" in [r.path for r in byte_map.rows]
    assert byte_map.to_jsonable()["rows"][0] == {
        "offset": 0, "length": 1, "bytes": "10", "path": "$.roleId", "type": "tag",
        "value": "field 1, INTEGER"}


def test_gameserde_codec_takes_the_command_line_options() -> None:
    c = gameserde.codec("zeze", schema=SCHEMA_FILE, type="role.BRole", max_depth=3,
                        max_expansion=None)
    assert isinstance(c, ZezeCodec) and c.bean == "game.role.BRole"
    assert (c.max_depth, c.max_expansion) == (3, None)
    again = pickle.loads(pickle.dumps(c.spec))
    assert again == ("zeze", {"schema": SCHEMA_FILE, "type": "role.BRole", "max_depth": 3,
                              "max_expansion": None})
    data = role().encode({"name": "x"})
    assert gameserde.codec(again[0], **again[1]).decode(data) == c.decode(data)
    assert gameserde.codec("zeze", schema=SCHEMA, type="BRole").decode(data) == c.decode(data)
    deep = {"items": [{"id": 1}]}
    assert gameserde.codec("zeze", schema=SCHEMA, type="BRole", max_depth=1).encode(deep)
    with pytest.raises(EncodeError, match="nested more than 0 deep"):
        gameserde.codec("zeze", schema=SCHEMA, type="BRole", max_depth=0).encode(deep)


def test_frames() -> None:
    c = SCHEMA.codec(frame=True)
    data = c.from_json(json.dumps(FRAMES))
    frames = c.decode(data)
    assert [type(f) for f in frames] == [Frame] * 3
    assert frames[1] == Frame("game.role.RGetRole", 7, 2, "request", {"roleId": 42}, 0, 1)
    assert c.encode(frames) == data
    assert data == b"".join(encode_frame(SCHEMA, f["protocol"], f["value"],
                                         family=f.get("family"),
                                         result_code=f.get("resultCode", 0),
                                         session_id=f.get("sessionId")) for f in FRAMES)
    doc = c.to_jsonable(frames)
    assert doc[2]["family"] == "response" and doc[2]["resultCode"] == 5
    assert doc[1] == {"protocol": "game.role.RGetRole", "moduleId": 7, "protocolId": 2,
                      "family": "request", "resultCode": 0, "sessionId": 1,
                      "value": {"roleId": 42}}
    assert c.from_jsonable(doc) == frames and c.from_json(c.to_json(data)) == data
    assert c.from_json(json.dumps(FRAMES[1])) == encode_frame(SCHEMA, "RGetRole",
                                                              {"roleId": 42}, session_id=1)
    assert c.verify(data) == f"ok: 3 sound frames of {len(data)} bytes"
    assert c.verify(b"") == "ok: 0 sound frames of 0 bytes"
    rows = c.inspect(data).rows
    assert [r.path for r in rows if r.type == "frame header"] == ["$[0]", "$[1]", "$[2]"]
    assert sum(r.size for r in rows) == len(data)


def test_inspect_without_a_schema_shows_ids() -> None:
    c = gameserde.codec("zeze")
    data = role().encode({"name": "Ann", "attrs": {"str": 4}})
    byte_map = c.inspect(data)
    assert byte_map.error is None
    assert [r.path for r in byte_map.rows][:3] == ["$.#2", "$.#2", "$.#7"]
    assert '$.#7["str"]' in [r.path for r in byte_map.rows]
    error = c.inspect(data + b"\x00").error
    assert error is not None and "1 byte follows the bean's end tag" in str(error)
    for method, verb in (("decode", "decode"), ("encode", "encode"), ("verify", "verify"),
                         ("to_json", "decode"), ("from_json", "encode")):
        with pytest.raises(UsageError, match=f"zeze {verb} needs the solution"):
            getattr(c, method)(b"{}" if method != "encode" else {})


# -- paths and one message for one fault --------------------------------------------------

GOOD = bytes.fromhex("6426100110010010021003001530010373747204" "00")


@pytest.mark.parametrize(("data", "message"), [
    (GOOD.replace(bytes.fromhex("1002100300"), bytes.fromhex("100213016100")),
     "zeze decode error at byte 10 (0xa) in $.items[1].count: int cannot be read from wire "
     "type BYTES"),
    (GOOD.replace(bytes.fromhex("300103737472" "04"), bytes.fromhex("330103737472" "0161")),
     'zeze decode error at byte 19 (0x13) in $.attrs["str"]: long cannot be read from wire '
     "type BYTES"),
    (GOOD[:-3], "zeze decode error at byte 16 (0x10) in $.attrs[<key 0>]: the string needs 3 "
                "bytes but only 2 remain"),
    (GOOD + b"\x00", "zeze decode error at byte 21 (0x15): 1 bytes follow the bean"),
])
def test_one_fault_one_message_in_decode_verify_inspect(data: bytes, message: str) -> None:
    c = role()
    assert c.decode(GOOD)["items"][1]["count"] == 3
    with pytest.raises(DecodeError) as decoded:
        c.decode(data)
    with pytest.raises(DecodeError) as verified:
        c.verify(data)
    inspected = c.inspect(data).error
    assert str(decoded.value).startswith(message)
    assert str(decoded.value) == str(verified.value) == str(inspected)


def test_a_frame_error_has_its_stream_offset_and_path() -> None:
    c = SCHEMA.codec(frame=True)
    good = encode_frame(SCHEMA, "SEnterWorld", {"name": "Ann"})
    bad = encode_raw_frame(7, 2, bytes.fromhex("01" "01" "13016100"))  # roleId as BYTES
    data = good + bad
    message = (f"zeze decode error at byte {len(good) + 15} (0x{len(good) + 15:x}) in "
               "$[1].value.roleId: long cannot be read from wire type BYTES")
    for call in (c.decode, c.verify, c.to_json):
        with pytest.raises(DecodeError) as info:
            call(data)
        assert str(info.value) == message
    byte_map = c.inspect(data)
    assert str(byte_map.error) == message
    assert "$[1].value.roleId" in [r.path for r in byte_map.rows]
    with pytest.raises(DecodeError, match=r"at byte 0 \(0x0\) in \$\[0\]: the last frame is "
                                          "cut short: 7 bytes of it remain"):
        c.decode(data[:7])


@pytest.mark.parametrize(("doc", "path", "words"), [
    ({"level": 10 ** 5000}, "$.level", "an integer of 5001 digits does not fit a short"),
    ({"items": 10 ** 5000}, "$.items", "a list is a JSON array, not an integer of 5001"),
    ({"pos": [1, 2, -10 ** 5000]}, "$.pos", "the number is too large for a float, not an "
                                            "integer of 5001 digits"),
    ({"attrs": {"a": 10 ** 5000}}, '$.attrs["a"]', "an integer of 5001 digits does not fit"),
    ({"items": [{"id": 1}, {"id": "x"}]}, "$.items[1].id", "int is an integer, not 'x'"),
    ({"items": [{}, {"expire": 1 << 64}]}, "$.items[1].expire",
     "18446744073709551616 does not fit a long"),
    ({"level": "x" * 5000}, "$.level", "short is an integer, not 'xxxxxxxxxxxx"),
])
def test_json_that_does_not_fit_is_a_zeze_encode_error(doc: dict[str, Any], path: str,
                                                       words: str) -> None:
    with pytest.raises(EncodeError) as info:
        role().encode(role().from_jsonable(doc))
    message = str(info.value)
    assert message.startswith(f"zeze encode error in {path}: {words}"), message
    assert "sys." not in message and len(message) < 160 and "7777" not in message


def test_huge_numbers_in_json_text_and_python_values() -> None:
    with pytest.raises(DecodeError) as info:
        role().from_json('{"roleId": ' + "7" * 5000 + "}")
    assert str(info.value).startswith("zeze encode error at byte 11 (0xb): an integer of 5000")
    with pytest.raises(EncodeError) as encoded:
        zeze.encode(SCHEMA, "BRole", {"roleId": -(10 ** 5000)})
    assert str(encoded.value) == ("zeze encode error in $.roleId: an integer of 5001 digits "
                                  "does not fit a long (64-bit signed)")
    int_keys = zeze.load_schema('<solution name="s"><module name="m" id="1"><bean name="B">'
                                '<variable id="1" name="m" type="map[int,int]"/></bean>'
                                "</module></solution>").codec("B")
    with pytest.raises(EncodeError) as keyed:
        int_keys.from_jsonable({"m": {"9" * 5000: 1}})
    assert str(keyed.value) == ("zeze encode error in $.m[<key 0>]: an integer of 5000 digits "
                                "does not fit an int key")
    frames = SCHEMA.codec(frame=True)
    with pytest.raises(EncodeError) as framed:
        frames.from_json(json.dumps([{"protocol": "SEnterWorld", "resultCode": 10 ** 4000}]))
    assert str(framed.value) == ("zeze encode error in $[0]: the result code must be a signed "
                                 "64-bit integer, not an integer of 4001 digits")


# -- names, arguments and options -------------------------------------------------------


def test_a_bean_the_schema_lacks_is_an_unknown_name_error() -> None:
    for call in (lambda: zeze.decode(SCHEMA, "BRol", b"\x00"),
                 lambda: zeze.encode(SCHEMA, "BRol", {}),
                 lambda: SCHEMA.codec("BRol")):
        with pytest.raises(UnknownNameError) as info:
            call()
        assert isinstance(info.value, KeyError) and isinstance(info.value, GameserdeError)
        assert str(info.value) == ("no bean named 'BRol' in the schema (did you mean BRole or "
                                   "BRoleId?)")
    with pytest.raises(UnknownNameError) as named:
        gameserde.codec("zeze", schema=SCHEMA_FILE, type="BNope")
    assert str(named.value) == (f"{SCHEMA_FILE}: --type BNope: no bean named 'BNope' in the "
                                "schema (did you mean BRole?)")
    with pytest.raises(UnknownNameError, match="no protocol named 'Nope'"):
        SCHEMA.protocol("Nope")


@pytest.mark.parametrize(("options", "words"), [
    ({"type": "BRole", "frame": True}, "with --frame each frame names its protocol"),
    ({"max_depth": -1}, "max_depth must be a whole number from 0 to 100000"),
    ({"max_depth": "3"}, "max_depth must be a whole number"),
    ({"max_depth": True}, "max_depth must be a whole number"),
    ({"max_expansion": -1}, "max_expansion must be a number >= 0"),
    ({"max_expansion": "a"}, "max_expansion must be a number >= 0"),
    ({"frame": "yes"}, "frame must be True or False"),
    ({"type": 3}, "type is a bean's name, not int"),
    ({"colour": 1}, "zeze codecs take no option colour"),
    ({"schema": None}, "name the bean with --type"),
])
def test_bad_options_are_usage_errors(options: dict[str, Any], words: str) -> None:
    given = {"schema": SCHEMA, "type": "BRole", **options}
    if given["schema"] is None:
        given.update(schema=SCHEMA, type=None)
    with pytest.raises(UsageError, match=words):
        gameserde.codec("zeze", **given)


@pytest.mark.parametrize(("options", "words"), [
    ({"type": "BRole"}, "--type names a bean of a solution: give --schema too"),
    ({"max_depth": 5}, "--max-depth limits decoding with a solution"),
    ({"max_expansion": 1.0}, "--max-expansion limits decoding with a solution"),
    ({"schema": 7}, "schema is the path of a solution XML file or a ZezeSchema, not int"),
])
def test_options_that_do_nothing_without_a_schema_are_refused(options: dict[str, Any],
                                                              words: str) -> None:
    with pytest.raises(UsageError, match=words):
        gameserde.codec("zeze", **options)


def test_schema_files_that_do_not_load(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        gameserde.codec("zeze", schema=tmp_path / "missing.xml", type="B")
    bad = tmp_path / "bad.xml"
    bad.write_text('<solution name="s"><module name="m" id="1">\n'
                   '<bean name="B"><variable id="1" name="x" type="nope"/></bean>'
                   "</module></solution>")
    with pytest.raises(SchemaError, match=re.escape(f"{bad}:2:")):
        gameserde.codec("zeze", schema=str(bad), type="B")
    with pytest.raises(UsageError, match=r"ZezeSchema\.codec takes no schema"):
        SCHEMA.codec("BRole", schema=SCHEMA_FILE)


@pytest.mark.parametrize("value", ["00", 0, None, [0]])
def test_data_that_is_not_bytes_is_a_usage_error(value: Any) -> None:
    for c in (role(), SCHEMA.codec(frame=True)):
        for call in (c.decode, c.verify, c.inspect, c.to_json):
            with pytest.raises(UsageError, match="reads bytes"):
                call(value)
    if not isinstance(value, str):
        with pytest.raises(UsageError, match="reads JSON text"):
            role().from_json(value)


@pytest.mark.parametrize(("args", "words"), [
    (("inspect", "zeze", "--type", "BRole"), "--type names a bean of a solution"),
    (("inspect", "zeze", "--bean", "BRole"), "--type names a bean of a solution"),
    (("decode", "zeze", "-s", SCHEMA_FILE, "--frame", "--type", "BRole"),
     "with --frame each frame names its protocol"),
    (("inspect", "zeze", "--max-depth", "9"), "--max-depth limits decoding with a solution"),
    (("decode", "zeze"), "zeze decode needs the solution: give --schema"),
    (("convert", "zeze", "-s", SCHEMA_FILE, "--frame", "--to-type", "BRole"),
     "with --frame each frame names its protocol"),
    (("verify", "zeze", "-s", SCHEMA_FILE, "--type", "BRole", "--max-expansion", "-2"),
     "--max-expansion takes a number >= 0"),
])
def test_refused_combinations_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     args: tuple[str, ...], words: str) -> None:
    data = tmp_path / "x.bin"
    data.write_bytes(b"\x00")
    try:
        code, _, err = run(capsys, *args, str(data), "-o", str(tmp_path / "out"))
    except SystemExit as e:  # argparse refuses a value it cannot read
        code, err = int(str(e.code)), capsys.readouterr().err
    assert code == 2 and words in err, err


def test_b_is_not_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["decode", "zeze", "-s", SCHEMA_FILE, "-b", "BRole", "x.bin"])
    assert e.value.code == 2 and "unrecognized arguments: -b" in capsys.readouterr().err


# -- convert: schema evolution ----------------------------------------------------------


def test_convert_writes_what_java_writes_after_a_load_with_the_new_bean(
        solutions: tuple[str, str]) -> None:
    old_file, new_file = solutions
    old, new = zeze.load_schema(old_file), zeze.load_schema(new_file)
    assert zeze.encode(old, "BRole", OLD_ROLE) == OLD_BYTES
    reader = gameserde.codec("zeze", schema=old_file, type="BRole")
    writer = gameserde.codec("zeze", schema=new_file, type="BRole")
    out, notes = noted(reader.convert, OLD_BYTES, writer)
    # Java's load with the new bean, then its encode: hp wraps to a short, the set drops the
    # second "a", gold (gone from the bean) is kept as an unknown field and written back
    assert out == NEW_BYTES == zeze.encode(new, "BRole", zeze.decode(new, "BRole", OLD_BYTES))
    assert zeze.decode(new, "BRole", out)[zeze.UNKNOWN_KEY] == [zeze.UnknownField(3, 0, b"\x05")]
    assert notes == [
        "$.hp: 70000 is written as 4464: the written bean converts or drops it, as Java's "
        "decode does",
        "$.tags: ['a', 'b', 'a'] is written as ['a', 'b']: the written bean converts or drops "
        "it, as Java's decode does"]
    back, none = noted(writer.convert, out, reader)
    assert back == out and none == []  # nothing of the new data is lost in the old bean


def test_convert_within_a_solution_and_to_the_same_options() -> None:
    role_id = SCHEMA.codec("BRoleId")
    data = bytes.fromhex("102a00")  # roleId 42
    as_role, notes = noted(role_id.convert, data, role())
    assert as_role == data and role().decode(as_role)["roleId"] == 42 and notes == []
    item = SCHEMA.codec("BItem")
    long_form = bytes.fromhex("10 40 07 00")  # id 7 in a long form Java reads and never writes
    same, notes = noted(item.convert, long_form, item)
    assert same == bytes.fromhex("1007 00") and notes == []


def test_what_a_load_drops_is_reported(tmp_path: Path) -> None:
    base = tmp_path / "layers.xml"
    base.write_text('<solution name="s"><module name="m" id="1">'
                    '<bean name="BBase"><variable id="1" name="a" type="int"/>'
                    '<variable id="2" name="b" type="int"/></bean>'
                    '<bean name="BDerived" base="BBase"><variable id="1" name="c" type="int"/>'
                    '<variable id="3" name="d" type="int"/></bean>'
                    '<bean name="BLess" base="BBase"><variable id="1" name="c" type="int"/>'
                    "</bean></module></solution>")
    derived = gameserde.codec("zeze", schema=str(base), type="BDerived")
    less = gameserde.codec("zeze", schema=str(base), type="BLess")
    data = derived.encode({"a": 1, "b": 2, "c": 3, "d": 4})
    out, notes = noted(derived.convert, data, less)
    assert out == less.encode({"a": 1, "b": 2, "c": 3})
    assert notes == [
        "field 3 (INTEGER), which s.m.BLess does not declare in that layer and does not keep: "
        "1 byte at byte 3 (0x3) skipped, as Java's decode skips them (not written back)",
        "$.d: 4 is written as 0: the written bean converts or drops it, as Java's decode does"]


def test_convert_frames_between_solutions(solutions: tuple[str, str]) -> None:
    old_file, new_file = solutions
    old = zeze.load_schema(old_file)
    stream = encode_frame(old, "PRole", OLD_ROLE) * 2
    reader = gameserde.codec("zeze", schema=old_file, frame=True)
    writer = gameserde.codec("zeze", schema=new_file, frame=True)
    out, notes = noted(reader.convert, stream, writer)
    assert out == encode_raw_frame(1, 3, b"\x02" + NEW_BYTES) * 2
    assert [n.split(":")[0] for n in notes] == ["$[0].value.hp", "$[0].value.tags",
                                                "$[1].value.hp", "$[1].value.tags"]


def test_convert_keeps_the_form_and_the_format(solutions: tuple[str, str]) -> None:
    bean = gameserde.codec("zeze", schema=SCHEMA_FILE, type="BRole")
    frames = gameserde.codec("zeze", schema=SCHEMA_FILE, frame=True)
    with pytest.raises(UsageError, match="convert writes the form it reads"):
        bean.convert(b"\x00", frames)
    with pytest.raises(UsageError, match="a zeze codec cannot write godot"):
        bean.convert(b"\x00", gameserde.codec("godot"))
    with pytest.raises(UsageError, match="zeze convert needs the solution"):
        gameserde.codec("zeze").convert(b"\x00", bean)


def test_convert_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     solutions: tuple[str, str]) -> None:
    old_file, new_file = solutions
    source, target = tmp_path / "old.bin", tmp_path / "new.bin"
    source.write_bytes(OLD_BYTES)
    args = ["convert", "zeze", "-s", old_file, "--type", "BRole", "--to-schema", new_file,
            str(source), "-o", str(target)]
    code, _, err = run(capsys, *args)
    assert code == 0 and target.read_bytes() == NEW_BYTES
    assert err.splitlines() == [
        f"gameserde: {source}: $.hp: 70000 is written as 4464: the written bean converts or "
        "drops it, as Java's decode does",
        f"gameserde: {source}: $.tags: ['a', 'b', 'a'] is written as ['a', 'b']: the written "
        "bean converts or drops it, as Java's decode does"]
    code, _, err = run(capsys, *args, "--strict")
    assert code == 1 and err.endswith("as Java's decode does (--strict)\n")
    code, _, err = run(capsys, "convert", "zeze", "-s", new_file, "--type", "BRole",
                       "--to-schema", old_file, "--to-type", "g.m.BRole", str(target), "-o",
                       str(tmp_path / "back.bin"), "--strict")
    assert (code, err) == (0, "") and (tmp_path / "back.bin").read_bytes() == NEW_BYTES
    code, _, err = run(capsys, "convert", "zeze", "-s", old_file, "--type", "BRole",
                       "--to-bean", "BItem", str(source), "-o", str(tmp_path / "x.bin"))
    assert code == 1 and "zeze decode error at byte 1 (0x1) in $.id: int cannot be read" in err


# -- warnings: what Java's decode skips, kept nowhere -----------------------------------


@pytest.mark.parametrize(("data", "words"), [
    (bytes.fromhex("1005" "01" "1009" "00"), "what follows a layer end (01) in "
                                             "game.role.BItem, which has no further layer: "
                                             "2 bytes at byte 3 (0x3) skipped"),
])
def test_decode_reports_the_bytes_java_skips(data: bytes, words: str) -> None:
    c = SCHEMA.codec("BItem")
    value, notes = noted(c.decode, data)
    assert value["id"] == 5 and len(notes) == 1 and notes[0].startswith(words)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GameserdeWarning)
        with pytest.raises(GameserdeWarning):
            c.verify(data)


def test_a_dynamic_holding_the_empty_bean_with_a_body() -> None:
    data = bytes.fromhex("87" "00" "100500" "00")  # pet: TypeId 0, then a body
    value, notes = noted(role().decode, data)
    assert value["pet"] == zeze.Dynamic(None, {}, 0)
    assert notes == ["the body of TypeId 0 (the EmptyBean) read as the dynamic "
                     "game.role.BRole.pet: 3 bytes at byte 2 (0x2) skipped, as Java's decode "
                     "skips them (not written back)"]


def test_bytes_after_a_frames_bean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = encode_raw_frame(7, 2, bytes.fromhex("01" "01" "102a00" "ffff"))
    frames, notes = noted(SCHEMA.codec(frame=True).decode, frame)
    assert frames[0].value == {"roleId": 42}
    assert notes == ["2 bytes at byte 17 (0x11) follow the frame's bean: ignored, as Java's "
                     "Protocol.decode ignores them (not written back)"]
    path = tmp_path / "f.bin"
    path.write_bytes(frame)
    for verb in ("decode", "verify", "inspect"):
        code, _, err = run(capsys, verb, "zeze", "-s", SCHEMA_FILE, "--frame", str(path))
        assert (code, err) == (0, f"gameserde: {path}: {notes[0]}\n"), verb
        code, _, err = run(capsys, verb, "zeze", "-s", SCHEMA_FILE, "--frame", str(path),
                           "--strict")
        assert code == 1 and err.endswith("(not written back) (--strict)\n"), verb


def test_a_large_default_is_a_gameserde_warning() -> None:
    beans = "".join(f'<bean name="B{i}"><variable id="1" name="a" type="B{i - 1}"/>'
                    f'<variable id="2" name="b" type="B{i - 1}"/></bean>' for i in range(1, 12))
    text = (f'<solution name="s"><module name="m" id="1"><bean name="B0">'
            f'<variable id="1" name="x" type="int"/></bean>{beans}</module></solution>')
    with pytest.warns(GameserdeWarning, match="the default value of bean s.m.B11 holds 6143"):
        zeze.load_schema(text)
    assert issubclass(zeze.schema.LargeDefaultWarning, GameserdeWarning)
