"""Each engine reader's rapidjson flags: ``JsonSerializationUtils::ReadJsonString``
(``kParseCommentsFlag``, prefabs, materials and the other documents) and the settings
registry (``kParseStopWhenDoneFlag | kParseCommentsFlag | kParseTrailingCommasFlag``, parsed
in place); neither validates the encoding, so bytes that are not UTF-8 stay in strings and
come back on write. The command line reads each file kind with its reader and reports the
text a reader ignores. Both paths (C twin and reference) are compared throughout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gameserde import o3de
from gameserde.cli import main
from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de.settings import read_settings_text
from gameserde.o3de.text import parse, parse_root, write
from tests.fuzz.harness import agreeing
from tests.o3de.test_text_accel import outcome

SETTINGS = {"trailing_commas": True, "stop_when_done": True, "skip_bom": False}
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "o3de-real"
LAYOUTS = CORPUS / "o3de_setreg_layouts_materialcanvas" / "layouts.materialcanvas.setreg"


def both(text: str | bytes, **options: bool) -> Any:
    """``parse_root``'s outcome, the same with the C twin and without."""
    return agreeing(lambda: parse_root(text, **options), outcome)


def value_and_ignored(text: str | bytes, **options: bool) -> tuple[Any, int | None]:
    result = both(text, **options)
    assert result[0] == "ok", result
    return parse_root(text, **options)


def refused(text: str | bytes, **options: bool) -> tuple[str, int | None]:
    result = both(text, **options)
    assert result[0] == "error", result
    return result[2], result[3]


# --- the settings registry: text after the root value ignored -------------------------------

@pytest.mark.parametrize(("text", "value", "ignored"), [
    (b'{"a": 1}', {"a": 1}, None),
    (b'{"a": 1}\n', {"a": 1}, None),
    (b'{"a": 1} garbage', {"a": 1}, 9),
    (b'{"a": 1}{"b": 2}', {"a": 1}, 8),
    (b'{"a": 1} // note\n/* more */ ', {"a": 1}, None),
    (b'{"a": 1} /* open', {"a": 1}, 9),
    (b'{"a": 1}\x00{"b": 2}', {"a": 1}, 8),
    (b'[1, 2,] ]]', [1, 2], 8),
    (b'1.5.2', 1.5, 3),
    (b'1e5e', 100000.0, 3),
    (b'0123', 0, 1),
    (b'truex', True, 4),
    (b'"a" "b"', "a", 4),
    (b'{"a": "\xff"} \xfe', {"a": "\udcff"}, 11),
    ('{"é": 1} é'.encode(), {"é": 1}, 10),
    ('{"é": 1} é', {"é": 1}, 9),
])
def test_settings_registry_ignores_what_follows_the_root(text: str | bytes, value: Any,
                                                          ignored: int | None) -> None:
    assert value_and_ignored(text, **SETTINGS) == (value, ignored)
    assert read_settings_text(text) == value


@pytest.mark.parametrize(("text", "message"), [
    (b"1.", "misses the digits of its fraction"),
    (b"1.e5", "misses the digits of its fraction"),
    (b"-3e", "misses the digits of its exponent"),
    (b"2.5E+x", "misses the digits of its exponent"),
    (b"\xef\xbb\xbf{}", "Expecting value"),
    (b"  ", "empty"),
    (b'{"a": 1', "Expecting"),
])
def test_settings_registry_refuses(text: bytes, message: str) -> None:
    """A number cut short is rapidjson's error even with kParseStopWhenDoneFlag; a
    byte-order mark is refused (ParseInsitu reads no encoded stream that would skip it)."""
    assert message in refused(text, **SETTINGS)[0]


def test_the_default_reader_refuses_text_after_the_root() -> None:
    assert "Extra data" in refused(b'{"a": 1} garbage')[0]
    assert "Extra data" in refused(b"1.5.2")[0]
    assert value_and_ignored(b"\xef\xbb\xbf[1]") == ([1], None)
    assert value_and_ignored(b"[1]\n\x00 anything \xff") == ([1], 4)
    assert value_and_ignored("\ufeff[1] /* c */\x00x") == ([1], 12)


def test_comments_where_whitespace_may_stand() -> None:
    text = b'// head\n{/* a */"a" /* b */: // c\n [1, /**/ 2 /* d */, ] /* e */ , }// end'
    assert value_and_ignored(text, **SETTINGS) == ({"a": [1, 2]}, None)
    assert value_and_ignored(text.replace(b", ]", b"]").replace(b", }", b"}")) == (
        {"a": [1, 2]}, None)
    assert "Expecting" in refused(b"[1 /* open ]")[0]


# --- bytes that are not UTF-8 ------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    b"\xff", b"\x80", b"\xc3", b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"\xc0\xaf", b"ok\xfe\xff\xc3\xa9", b"\xe2\x82\xac\xe2\x82",
])
def test_bytes_that_are_not_utf8_come_back(raw: bytes) -> None:
    data = (b'{\n    "k' + raw + b'": [\n        "' + raw + b'",\n        "\xc3\xa9' + raw
            + b'"\n    ]\n}')
    for options in ({}, SETTINGS):
        value, _ = value_and_ignored(data, **options)
        name = raw.decode("utf-8", "surrogateescape")
        assert value == {"k" + name: [name, "é" + name]}
        text = agreeing(lambda v=value: write(v), outcome)
        assert text[0] == "ok"
        assert text[1].encode("utf-8", "surrogateescape") == data


def test_non_utf8_in_comments_and_after_a_nul_is_read_over() -> None:
    assert value_and_ignored(b"// \xff\n[1 /* \xc3 */]") == ([1], None)
    assert value_and_ignored(b"[1]\x00\xff") == ([1], 3)


def test_escapes_of_half_a_pair_are_still_refused_beside_such_bytes() -> None:
    """The code points that stand for bytes cannot be confused with escapes: a ``\\u``
    escape of a lone surrogate is refused as before, wherever such bytes are."""
    message, offset = refused(b'["\xff", "\xfe\\udcff"]')
    assert "half a surrogate pair" in message and offset == 6
    assert value_and_ignored(b'["\xff\\ud83d\\ude00"]') == (["\udcff\U0001f600"], None)


def test_a_str_still_may_not_hold_surrogates() -> None:
    assert "surrogate" in refused('["\udcff"]')[0]


@pytest.mark.parametrize(("value", "error"), [
    (["\udcc3\udca9"], "would read back as other text"),  # the bytes of "é"
    (["\udce2\udc82", "\udcac"], None),                    # apart: no UTF-8 sequence forms
    (["\ud800"], "lone surrogate"),
    (["\udc7f"], "lone surrogate"),                         # below the range of bytes
    ({"\udcff": 1}, None),
])
def test_write_takes_only_bytes_that_read_back(value: Any, error: str | None) -> None:
    result = agreeing(lambda: write(value), outcome)
    if error is None:
        assert result[0] == "ok"
        assert parse(result[1].encode("utf-8", "surrogateescape")) == value
    else:
        assert result[0] == "error" and error in result[2]
        with pytest.raises(EncodeError):
            write(value)


def test_the_editor_s_layouts_file_round_trips() -> None:
    """``layouts.materialcanvas.setreg`` (o3de/o3de, written by the editor): a Qt layout
    saved as raw bytes in a string; the engine reads it, so do we, and it writes back as it
    was."""
    data = LAYOUTS.read_bytes()
    value, ignored = value_and_ignored(data, **SETTINGS)
    assert ignored is None
    assert write(value).encode("utf-8", "surrogateescape") == data


# --- the command line: each kind with its reader --------------------------------------------

def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("a.setreg", b'{"a": [1,],} trailing', b'{\n    "a": [\n        1\n    ]\n}'),
    ("a.setregpatch", b'[{"op": "remove", "path": "/a"},]\x00', None),
    ("a.json", b'{"a": 1}\x00junk', b'{\n    "a": 1\n}'),
])
def test_decode_reports_what_the_reader_ignores(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str], name: str,
                                                data: bytes, expected: bytes | None) -> None:
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_bytes(data)
    ignored = parse_root(data, **(SETTINGS if "setreg" in name else {}))[1]
    assert ignored is not None
    code, err = run(capsys, "decode", "o3de", "--pretty", str(path), "-o", str(out))
    assert code == 0
    assert err.count("\n") == 1 and f"from byte offset {ignored} on" in err
    if expected is not None:
        assert out.read_bytes() == expected
    for verb, *options in (["verify"], ["decode", "--strict"]):
        code, err = run(capsys, verb, "o3de", *options, str(path))
        assert code == 1 and f"from byte offset {ignored} on" in err


def test_decode_of_the_layouts_file_gives_its_bytes(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.setreg"
    code, err = run(capsys, "decode", "o3de", "--pretty", str(LAYOUTS), "-o", str(out))
    assert (code, err) == (0, "")
    assert out.read_bytes() == LAYOUTS.read_bytes()
    code, _ = run(capsys, "verify", "o3de", str(LAYOUTS))
    assert code == 0


def test_readers_by_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A byte-order mark: skipped for a prefab (ReadJsonString's stream), refused for a
    settings file (read in place); trailing commas: a settings file's reader only."""
    for name, data, code in [
        ("a.prefab", b"\xef\xbb\xbf{}", 0), ("a.setreg", b"\xef\xbb\xbf{}", 1),
        ("b.setreg", b'{"a": 1,}', 0), ("b.material", b'{"a": 1,}', 1),
        ("c.pass", b'{"a": 1,}', 1), ("c.azasset", b'// c\n{"a": "\xff"}', 0),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        assert run(capsys, "verify", "o3de", "--registry", "none", str(path))[0] == code, name


def test_parse_is_parse_root_s_value() -> None:
    assert parse(b'{"a": 1} x', **SETTINGS) == {"a": 1}
    with pytest.raises(DecodeError):
        parse(b'{"a": 1} x')
    assert o3de.parse is parse
