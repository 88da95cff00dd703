"""The O3DE codec (``gameserde.o3de.codec``, ``gameserde.codec("o3de", ...)``) and the command
line built on it: every method, the options and their refusals, warnings and ``--strict``,
paths and messages."""

from __future__ import annotations

import json
import pickle
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde import o3de
from gameserde._jsonio import compact_text
from gameserde.cli import main
from gameserde.codecs import ByteMap
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeError,
    GameserdeWarning,
    UnknownNameError,
    UsageError,
)
from gameserde.o3de.engine import MATERIAL, PREFAB, Prefab
from gameserde.o3de.interface import FORMAT, O3deCodec

DATA = Path(__file__).parent / "data"
COURTYARD = (DATA / "courtyard.prefab").read_bytes()
UNSAVED = (DATA / "courtyard-unsaved.prefab").read_bytes()
LAMP = "Entity_[4206068507913]"
LAMP_TRANSFORM = "Component_[2390451633512432787]"
TRANSLATE = f"/Entities/{LAMP}/Components/{LAMP_TRANSFORM}/Transform Data/Translate"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as e:  # argparse refusing an option's value
        code = e.code if isinstance(e.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def prefab_with(edit: Any) -> bytes:
    doc = o3de.parse(COURTYARD)
    edit(doc)
    return o3de.write(doc).encode()


def wrong_translate(doc: Any) -> None:
    doc["Entities"][LAMP]["Components"][LAMP_TRANSFORM]["Transform Data"]["Translate"] = "up"


def light_registry() -> o3de.Registry:
    reg = o3de.Registry()
    reg.add_class("Light", None, [("Intensity", "float", 1.0), ("Tags", "vector<string>", [])])
    return reg


# -- the library entry points ------------------------------------------------------------------


def test_both_entry_points_build_the_same_codec() -> None:
    one = o3de.codec(source="level.prefab")
    two = gameserde.codec("o3de", source="level.prefab")
    assert isinstance(one, O3deCodec) and isinstance(two, O3deCodec)
    assert (one.type_name, two.type_name) == (PREFAB, PREFAB)
    assert one.registry is two.registry  # the engine registry, built once
    again = gameserde.codec(*pickle.loads(pickle.dumps(one.spec))[:1], **one.spec[1])
    assert again.decode(COURTYARD) == one.decode(COURTYARD)
    reg = light_registry()
    typed = o3de.codec(registry=reg, type="Light")
    assert gameserde.codec("o3de", schema=reg, type="Light").registry is typed.registry is reg
    assert o3de.codec().registry is None and o3de.codec(source="a.json").registry is None
    assert o3de.codec(source=Path("b.material")).type_name == MATERIAL


def test_decode_gives_the_typed_value_or_the_document() -> None:
    prefab = o3de.codec(source="level.prefab").decode(COURTYARD)
    assert isinstance(prefab, Prefab) and LAMP in prefab.entities
    document = o3de.codec(registry="none", source="level.prefab").decode(COURTYARD)
    assert document == o3de.parse(COURTYARD)
    assert o3de.codec().decode('{"a": 1.0}') == {"a": 1.0}
    assert isinstance(o3de.codec().decode(b'{"a": 1, "a": 2}'), o3de.JsonObject)


def test_encode_and_the_jsonable_forms() -> None:
    c = o3de.codec(source="level.prefab")
    prefab = c.decode(UNSAVED)
    assert c.encode(prefab) == COURTYARD  # the editor's save of the unsaved file
    jsonable = c.to_jsonable(prefab)
    assert o3de.write(jsonable).encode() == COURTYARD
    assert c.encode(c.from_jsonable(jsonable)) == COURTYARD
    plain = o3de.codec()
    assert plain.to_jsonable({"a": [1]}) == {"a": [1]} == plain.from_jsonable({"a": [1]})
    assert plain.encode({"a": [1, 2.0]}) == b'{\n    "a": [\n        1,\n        2.0\n    ]\n}'
    with pytest.raises(EncodeError, match=r"^o3de encode error"):
        plain.encode({"a": float("nan")})


def test_a_halted_load_from_jsonable_is_an_encode_error() -> None:
    doc = o3de.parse(COURTYARD)
    del doc["Entities"][LAMP]["Id"]
    with pytest.raises(EncodeError) as e:
        o3de.codec(source="a.prefab").from_jsonable(doc)
    assert str(e.value).startswith(f"o3de encode error in $/Entities/{LAMP}: Invalid or missing "
                                   "entity ID")
    assert "\n" not in str(e.value)


def test_to_json_and_from_json_are_decode_and_encode_of_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = o3de.codec(source="level.prefab")
    pretty = c.to_json(UNSAVED, pretty=True)
    assert pretty == COURTYARD.decode() and not pretty.endswith("\n")
    assert c.to_json(UNSAVED) == compact_text(pretty) and "\n" not in c.to_json(UNSAVED)
    assert c.from_json(UNSAVED) == COURTYARD == c.from_json(UNSAVED.decode())
    with pytest.raises(DecodeError, match=r"^o3de encode error at byte 6 \(0x6\): Expecting"):
        c.from_json(b'{"a": ')
    halted = UNSAVED.replace(b'"Id": "ContainerEntity"', b'"Id": 5')
    with pytest.raises(DecodeError, match=r"^o3de encode error in \$/ContainerEntity: Invalid"):
        c.from_json(halted)
    with pytest.raises(DecodeError, match=r"^o3de decode error in \$/ContainerEntity: Invalid"):
        c.to_json(halted)
    path = tmp_path / "level.prefab"
    path.write_bytes(UNSAVED)
    for verb in (["decode", "--pretty"], ["encode"]):
        code, out, err = run(capsys, verb[0], "o3de", *verb[1:], str(path))
        assert (code, out, err) == (0, COURTYARD.decode(), "")


def test_decode_ends_with_a_newline_only_on_a_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": 1}')
    assert run(capsys, "decode", "o3de", "--pretty", str(path))[1] == '{\n    "a": 1\n}'
    assert run(capsys, "decode", "o3de", "--compact", str(path))[1] == '{"a":1}'
    assert run(capsys, "decode", "o3de", str(path))[1] == '{"a":1}'  # piped: compact
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert run(capsys, "decode", "o3de", str(path))[1] == '{\n    "a": 1\n}\n'


def test_bytes_that_are_not_utf8_come_back() -> None:
    data = b'{"a\xff": "\xc8b"}'
    c = o3de.codec()
    assert c.from_json(data) == b'{\n    "a\xff": "\xc8b"\n}'
    assert c.encode(c.decode(data)) == c.from_json(data)


# -- verify and inspect ------------------------------------------------------------------------


def test_verify() -> None:
    assert o3de.codec(source="a.prefab").verify(COURTYARD) == (
        f"ok: loads as {PREFAB} (PartialDefaults)")
    assert o3de.codec().verify(b"[1]") == "ok: sound O3DE JSON of 3 bytes"
    wrong = prefab_with(wrong_translate)
    with pytest.warns(GameserdeWarning,
                                                   match=f"^at {re.escape(TRANSLATE)}: Uns"), \
            pytest.raises(DecodeError) as e:
        o3de.codec(source="a.prefab").verify(wrong)
    assert str(e.value) == (f"o3de decode error: the document does not load cleanly as "
                            f"{PREFAB}: 1 issue(s), the first at {TRANSLATE}: Unsupported "
                            "type. Vector3 can only be read from arrays or objects. "
                            "[Unsupported]")
    with pytest.raises(DecodeError, match="ignores the 2 bytes from byte offset 3 on"):
        o3de.codec(source="a.setreg").verify(b"{} x\n")


def test_inspect_maps_the_text() -> None:
    c = o3de.codec(source="a.json")
    data = b'\xef\xbb\xbf{"k": [1, 2.5, {"x~y": null}], // note\n "s": "t\\"u",}'
    with pytest.raises(DecodeError):
        c.decode(data)
    byte_map = o3de.codec(trailing_commas=True).inspect(data)
    assert isinstance(byte_map, ByteMap) and byte_map.text and byte_map.error is None
    rows = [(r.offset, r.size, r.path, r.type, r.note) for r in byte_map.rows]
    at = data.index
    assert rows == [(3, len(data) - 3, "/", "object", "2 members"),
                    (at(b"["), at(b"]") + 1 - at(b"["), "/k", "array", "3 elements"),
                    (at(b"1"), 1, "/k/0", "integer", "1"), (at(b"2.5"), 3, "/k/1", "double",
                                                             "2.5"),
                    (at(b'{"x'), at(b"}") + 1 - at(b'{"x'), "/k/2", "object", "1 members"),
                    (at(b"null"), 4, "/k/2/x~0y", "null", "null"),
                    (at(b'"t'), 6, "/s", "string", '"t\\"u"')]
    assert data[at(b'"t'):at(b'"t') + 6] == b'"t\\"u"'
    table = byte_map.render()
    assert table.splitlines()[0].split() == ["offset", "bytes", "path", "type", "value"]
    assert byte_map.to_jsonable()["rows"][2] == {"offset": at(b"1"), "length": 1, "bytes": "31",
                                                 "path": "/k/0", "type": "integer",
                                                 "value": "1"}


def test_inspect_adds_the_load_s_issues_and_verify_s_error() -> None:
    wrong = prefab_with(wrong_translate)
    byte_map = o3de.codec(source="a.prefab").inspect(wrong)
    issue = [r for r in byte_map.rows if r.type == "issue Unsupported" and r.path == TRANSLATE]
    assert len(issue) == 1 and "Vector3 can only be read" in issue[0].note
    value = next(r for r in byte_map.rows if r.path == TRANSLATE and r.type == "string")
    assert (issue[0].offset, issue[0].size) == (value.offset, value.size) == (
        wrong.index(b'"up"'), 4)
    with warnings.catch_warnings(), pytest.raises(DecodeError) as e:
        warnings.simplefilter("ignore", GameserdeWarning)
        o3de.codec(source="a.prefab").verify(wrong)
    assert str(byte_map.error) == str(e.value)


@pytest.mark.parametrize(("data", "source", "decode_fails"), [
    (b"", None, True), (b'{"a": 1,}', "a.json", True), (b"[[[1]]]", None, True),
    (b"{} x", "a.setreg", False), (b'{"a": [1, 2], "a": {}}', "a.prefab", False)])
def test_decode_verify_and_inspect_give_the_same_message(data: bytes, source: str | None,
                                                          decode_fails: bool) -> None:
    """Bad text is the same error everywhere; what decode only notes (text the reader
    ignores, issues of the typed load) is verify's and inspect's error."""
    c = o3de.codec(source=source, max_depth=2)
    with pytest.raises(DecodeError) as verified, warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)
        c.verify(data)
    assert str(c.inspect(data).error) == str(verified.value)
    if decode_fails:
        with pytest.raises(DecodeError) as decoded:
            c.decode(data)
        assert str(decoded.value) == str(verified.value)
    else:
        with pytest.warns(GameserdeWarning):
            c.decode(data)


def test_inspect_shows_the_text_the_reader_ignores() -> None:
    byte_map = o3de.codec(source="a.setreg").inspect(b'{"a": 1,} tail')
    assert [(r.offset, r.size, r.type) for r in byte_map.rows][-1] == (10, 4, "ignored")
    assert byte_map.error is not None and byte_map.error.offset == 10


# -- convert -------------------------------------------------------------------------------------


def test_convert_with_and_without_defaults(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    lean = o3de.codec(source="a.prefab")
    full = o3de.codec(source="a.prefab", keep_defaults=True)
    with_defaults = lean.convert(COURTYARD, full)
    assert len(with_defaults) > len(COURTYARD)
    assert full.convert(with_defaults, lean) == COURTYARD
    assert full.convert(with_defaults, full) == with_defaults
    path, out = tmp_path / "a.prefab", tmp_path / "full.prefab"
    path.write_bytes(COURTYARD)
    assert run(capsys, "convert", "o3de", "--to-keep-defaults", str(path), "-o", str(out)) == (
        0, "", "")
    assert out.read_bytes() == with_defaults
    back = tmp_path / "back.prefab"
    assert run(capsys, "convert", "o3de", "--keep-defaults", "--to-no-keep-defaults", str(out),
               "-o", str(back))[0] == 0
    assert back.read_bytes() == COURTYARD


def test_convert_keeps_what_the_load_could_not_take() -> None:
    wrong = prefab_with(wrong_translate)
    full = o3de.codec(source="a.prefab", keep_defaults=True)
    with pytest.warns(GameserdeWarning, match="kept as the file has it"):
        converted = o3de.codec(source="a.prefab").convert(wrong, full)
    assert b'"Translate": "up"' in converted


def test_convert_to_another_registry_goes_through_the_value() -> None:
    converted = o3de.codec(source="a.prefab").convert(COURTYARD, o3de.codec(registry="engine",
                                                                            type=PREFAB))
    assert converted == COURTYARD
    with pytest.raises(UsageError, match="convert writes the same format"):
        o3de.codec().convert(b"{}", gameserde.codec("godot"))


# -- options and their refusals ----------------------------------------------------------------


@pytest.mark.parametrize(("options", "words"), [
    ({"max_depth": -1}, "max_depth must be a whole number from 0 to 256, not -1"),
    ({"max_depth": 257}, "from 0 to 256"),
    ({"max_expansion": -1}, "max_expansion must be a number >= 0"),
    ({"trailing_commas": 1}, "trailing_commas must be True or False"),
    ({"keep_defaults": True, "schema": "none"}, "--keep-defaults writes the defaults a typed "
                                                "store leaves out, but --schema none types "
                                                "nothing"),
    ({"keep_defaults": True, "source": "a.json"}, "--keep-defaults writes the defaults a typed "
                                                  "store leaves out, but nothing types this "
                                                  "document (no --schema, and not a .prefab or "
                                                  ".material file): drop it, or give --schema "
                                                  "engine or MODULE:NAME"),
    ({"max_expansion": 8.0}, "--max-expansion bounds the default values a typed load builds"),
    ({"type": "Light", "schema": "none"}, "--type Light names a type of a registry, but "
                                          "--schema none types nothing: drop it, or give "
                                          "--schema engine or MODULE:NAME"),
    ({"source": "a.setreg", "trailing_commas": True}, "--trailing-commas does nothing for a "
                                                      ".setreg file"),
    ({"schema": "engine"}, f"--schema engine needs --type for a file not named .prefab or "
                           f".material, the document's type: {PREFAB}"),
    ({"schema": 5}, "schema must be engine, none, MODULE:NAME or a gameserde.o3de.Registry"),
    ({"schema": "nowhere"}, "--schema nowhere: give MODULE:NAME, engine or none"),
    ({"bogus": 1}, "o3de codecs take no option bogus"),
    ({"type": 3, "schema": "engine"}, "type must be a type's name"),
    ({"source": 3}, "source must be a file name or None"),
])
def test_bad_options_are_usage_errors(options: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError) as e:
        gameserde.codec("o3de", **options)
    assert words in str(e.value)


def test_a_type_the_registry_lacks() -> None:
    with pytest.raises(UnknownNameError) as e:
        o3de.codec(registry=light_registry(), type="Nope")
    assert isinstance(e.value, KeyError) and isinstance(e.value, GameserdeError)
    assert str(e.value) == ("--type Nope: unknown type: Nope in the registry of --schema (a "
                            "Registry); its types: one of Light")
    with pytest.raises(UsageError, match="needs --type, the document's type: one of Light"):
        o3de.codec(registry=light_registry())


def test_wrong_argument_types_are_usage_errors() -> None:
    for method in ("decode", "verify", "to_json", "inspect"):
        with pytest.raises(UsageError, match="o3de codecs read bytes or str, not int"):
            getattr(o3de.codec(), method)(5)


@pytest.mark.parametrize("argv", [
    ["decode", "--max-depth", "-1"], ["verify", "--max-depth", "x"],
    ["inspect", "--max-depth", "257"], ["encode", "--max-expansion", "abc"],
    ["decode", "--keep-defaults"],
    ["convert", "--to-keep-defaults"], ["verify", "--type", "X"],
    ["decode", "--schema", "engine"], ["inspect", "--registry", "json:dumps", "--type", "T"],
])
def test_usage_errors_exit_2_in_every_verb(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           argv: list[str]) -> None:
    path = tmp_path / "a.json"
    path.write_text("{}")
    code, out, err = run(capsys, argv[0], "o3de", *argv[1:], str(path), "-o",
                         str(tmp_path / "out"))
    assert (code, out) == (2, "") and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(("gameserde: ", "gameserde VERB o3de: error: "
                                            .replace("VERB", argv[0]))), err


def test_max_depth() -> None:
    c = o3de.codec(max_depth=2)
    assert c.decode("[[1]]") == [[1]]
    with pytest.raises(DecodeError) as e:
        c.decode('{"a": [\n  {"b": 1}]}')
    assert str(e.value) == ("o3de decode error at byte 10 (0xa): Arrays and objects nest deeper "
                            "than 2 levels (--max-depth 2) at line 2, column 3.")
    with pytest.raises(DecodeError, match=r"at byte 10 \(0xa\)"):
        c.decode(b'{"a": [\n  {"b": 1}]}')
    for text in ("\ufeff[[1]]", b"\xef\xbb\xbf[[1]]"):  # columns after the byte-order mark
        with pytest.raises(DecodeError, match=r"1 levels \(--max-depth 1\) at line 1, column 2"):
            o3de.codec(max_depth=1).decode(text)
    assert o3de.codec(max_depth=0).decode("1") == 1
    with pytest.raises(DecodeError, match="nest deeper than 256 levels"):
        o3de.codec().decode("[" * 257 + "]" * 257)


def test_a_trailing_comma_names_the_option(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2,\n]}')
    code, _, err = run(capsys, "verify", "o3de", str(path))
    assert code == 1 and err.count("\n") == 1
    assert err.endswith("A trailing comma: only the settings registry's reader (.setreg and "
                        ".setregpatch files) takes them; --trailing-commas accepts them in this "
                        "file too.\n")
    assert run(capsys, "verify", "o3de", "--trailing-commas", str(path))[0] == 0
    path.write_text('{"a": [1 2]}')
    assert "--trailing-commas" not in run(capsys, "verify", "o3de", str(path))[2]


# -- warnings and --strict ---------------------------------------------------------------------


def test_issues_are_warnings() -> None:
    wrong = prefab_with(wrong_translate)
    c = o3de.codec(source="a.prefab")
    with pytest.warns(GameserdeWarning) as noted:
        text = c.to_json(wrong, pretty=True)
    assert [str(w.message) for w in noted] == [
        f"at {TRANSLATE}: Unsupported type. Vector3 can only be read from arrays or objects. "
        "[Unsupported]; kept as the file has it"]
    assert text.encode() == wrong
    with pytest.warns(GameserdeWarning, match="; left out of the decoded value$"):
        c.decode(wrong)
    with pytest.warns(GameserdeWarning, match="they are left out$"):
        assert o3de.codec(source="a.setreg").decode(b"[1] x") == [1]


def test_strict_makes_a_warning_an_error(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.prefab"
    path.write_bytes(prefab_with(wrong_translate))
    code, out, err = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert code == 0 and err.endswith("; kept as the file has it\n")
    code, out, err = run(capsys, "decode", "o3de", "--pretty", "--strict", str(path))
    assert (code, out) == (1, "")
    assert err == (f"gameserde: {path}: at {TRANSLATE}: Unsupported type. Vector3 can only be "
                   "read from arrays or objects. [Unsupported]; kept as the file has it "
                   "(--strict)\n")


# -- the command line's help -------------------------------------------------------------------


def test_help_names_the_options_and_says_what_decode_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["decode", "o3de", "--pretty", "--help"])
    out = capsys.readouterr().out
    assert "read data in the format and write it as JSON" in out
    assert "decode binary data" not in out
    for flag in ("--schema", "-s", "--registry", "--type", "--trailing-commas",
                 "--keep-defaults", "--max-depth", "--max-expansion", "--strict", "-o"):
        assert flag in out, flag
    with pytest.raises(SystemExit):
        main(["convert", "o3de", "--help"])
    out = capsys.readouterr().out
    assert "--to-keep-defaults" in out and "--to-no-keep-defaults" in out
    assert FORMAT.takes_source


def test_inspect_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.prefab"
    path.write_bytes(COURTYARD)
    code, out, err = run(capsys, "inspect", "o3de", "--as", "json", str(path))
    assert (code, err) == (0, "")
    found = json.loads(out)
    assert found["format"] == "o3de" and found["error"] is None
    assert found["rows"][0] == {"offset": 0, "length": len(COURTYARD),
                                "bytes": COURTYARD[:len(COURTYARD)].hex(), "path": "/",
                                "type": "object", "value": "3 members"}
