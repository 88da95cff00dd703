"""One command for five formats: the same scenario (decode, edit, encode, verify, inspect,
convert, bad input, bad options) through every format, from one parametrised test each, and
the same behaviour from the library's codec interface.

Each format contributes a :class:`Case`: the options that read its example, an edit to make in
the decoded JSON, a conversion to other options and back, and a JSON value of the wrong type
with the path the error must name.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import gameserde
from gameserde.cli import main
from gameserde.formats import FORMATS, VERBS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Case:
    format: str
    options: tuple[str, ...]
    """What reads the example (schema, type, framing ...)."""
    source: str
    """The example: binary data, or JSON to encode first (``.json``)."""
    edit: tuple[str, str]
    """A text in the decoded JSON, and what to write instead."""
    there: tuple[str, ...]
    """The ``--to-`` options of a conversion."""
    back: tuple[str, ...]
    """The options converting the result back (read side and ``--to-``)."""
    wrong: tuple[str, str]
    """A text in the JSON whose replacement makes a value of the wrong type..."""
    path: str
    """...and the path the encode error names."""


FB = str(EXAMPLES / "flatbuffers" / "monster.fbs")
ZEZE = str(EXAMPLES / "zeze" / "game.xml")
KI = str(EXAMPLES / "kingsisle" / "types.json")
CASES = {
    "godot": Case("godot", ("--framing", "store_var"), "godot/savegame.sav",
                  ("s:Aria", "s:Bria"), ("--to-framing", "packet_stream"),
                  ("--framing", "packet_stream", "--to-framing", "store_var"),
                  ('"i:12"', '"i:twelve"'), '$["$records"][0].args[3].args[5]'),
    "flatbuffers": Case("flatbuffers", ("-s", FB), "flatbuffers/monster.json",
                        ('"Orc"', '"Elf"'), ("--to-size-prefixed",),
                        ("--size-prefixed", "--to-no-size-prefixed"),
                        ('"hp":300', '"hp":"lots"'), "$.hp"),
    "zeze": Case("zeze", ("-s", ZEZE, "--type", "BRole"), "zeze/role.json",
                 ('"Knight"', '"Squire"'), ("--to-type", "BRole"), ("--to-type", "BRole"),
                 ('"level":57', '"level":"high"'), "$.level"),
    "kingsisle": Case("kingsisle", ("-s", KI), "kingsisle/item.bin",
                      ('"Stormcaller', '"Thundercaller'), ("--to-deep",),
                      ("--deep", "--to-no-deep"), ('"m_templateID":1205', '"m_templateID":"x"'),
                      "$.m_templateID"),
    "o3de": Case("o3de", ("--schema", "engine", "--type", "AzToolsFramework::Prefab::Instance"),
                 "o3de/courtyard.prefab", ('"Courtyard"', '"Garden"'), ("--to-keep-defaults",),
                 ("--keep-defaults", "--to-no-keep-defaults"),
                 ('"Id":"ContainerEntity"', '"Id":5'), "$/ContainerEntity"),
}


def test_every_format_has_a_case() -> None:
    assert set(CASES) == set(FORMATS)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str) -> str:
    """The one line a failure prints: no traceback, nothing else."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


def example(case: Case, tmp: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The example as binary data (JSON examples are encoded first)."""
    source = EXAMPLES / case.source
    if source.suffix != ".json":
        return source
    out = tmp / "example.bin"
    assert run(capsys, "encode", case.format, *case.options, str(source), "-o", str(out))[0] == 0
    return out


@pytest.mark.parametrize("fmt", list(CASES))
def test_the_same_scenario_in_every_format(fmt: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES[fmt]
    data_path = example(case, tmp_path, capsys)
    data = data_path.read_bytes()
    opts = case.options
    doc = tmp_path / "doc.json"

    # decode, then encode gives the bytes back
    assert run(capsys, "decode", fmt, *opts, str(data_path), "-o", str(doc)) == (0, "", "")
    text = doc.read_text(encoding="utf-8")
    back = tmp_path / f"back{data_path.suffix}"
    assert run(capsys, "encode", fmt, *opts, str(doc), "-o", str(back)) == (0, "", "")
    assert back.read_bytes() == data

    # an edit in the JSON is in the data encoded from it
    old, new = case.edit
    compact = re.sub(r'":\s+', '":', text)
    assert old in text or old in compact, (old, text[:400])
    edited = tmp_path / "edited.json"
    edited.write_text(text.replace(old, new), encoding="utf-8")
    out = tmp_path / f"edited{data_path.suffix}"
    assert run(capsys, "encode", fmt, *opts, str(edited), "-o", str(out)) == (0, "", "")
    status, shown, _ = run(capsys, "decode", fmt, *opts, "--compact", str(out))
    assert status == 0 and new in re.sub(r'":\s+', '":', shown)

    # verify: the report on standard output, or in -o FILE
    status, shown, err = run(capsys, "verify", fmt, *opts, str(data_path))
    assert (status, err) == (0, "") and shown.startswith(f"{data_path}: ok")
    report = tmp_path / "report.txt"
    assert run(capsys, "verify", fmt, *opts, str(data_path), "-o", str(report)) == (0, "", "")
    assert report.read_text().startswith(f"{data_path}: ok")

    # inspect: the table's columns, and the same rows as JSON
    status, shown, err = run(capsys, "inspect", fmt, *opts, str(data_path))
    assert (status, err) == (0, "")
    header = shown.splitlines()[0].split()
    assert header[0] == "offset" and {"bytes", "path", "type", "value"} <= set(header)
    status, shown, _ = run(capsys, "inspect", fmt, *opts, "--as", "json", str(data_path))
    found = json.loads(shown)
    assert status == 0 and found["error"] is None and found["size"] == len(data)
    assert found["rows"] and {"offset", "length", "bytes", "path", "type", "value"} <= set(
        found["rows"][0])
    for row in found["rows"]:
        assert bytes.fromhex(row["bytes"]) == data[row["offset"]:row["offset"] + row["length"]]

    # convert to other options and back: the same bytes
    there, again = (tmp_path / f"{n}{data_path.suffix}" for n in ("there", "again"))
    assert run(capsys, "convert", fmt, *opts, *case.there, str(data_path), "-o",
               str(there)) == (0, "", "")
    assert run(capsys, "convert", fmt, *opts, *case.back, str(there), "-o",
               str(again)) == (0, "", "")
    assert again.read_bytes() == data

    # a value of the wrong type: an encode error naming its path
    wrong_old, wrong_new = case.wrong
    compact_doc = re.sub(r'":\s+', '":', text) if '":' in wrong_old else text
    assert wrong_old in compact_doc, wrong_old
    wrong = tmp_path / "wrong.json"
    wrong.write_text(compact_doc.replace(wrong_old, wrong_new, 1), encoding="utf-8")
    status, _, err = run(capsys, "encode", fmt, *opts, str(wrong), "-o", str(tmp_path / "w"))
    line = one_line(err)
    assert status == 1 and line.startswith(f"gameserde: {wrong}: {fmt} encode error")
    assert case.path in line, line


BAD_INPUTS = {
    "empty": b"",
    "truncated": None,  # the example's first half
    "garbage": bytes(range(256)) * 3,
}


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect", "convert"])
@pytest.mark.parametrize("bad", list(BAD_INPUTS))
@pytest.mark.parametrize("fmt", list(CASES))
def test_bad_input_is_one_line_with_status_1(fmt: str, bad: str, verb: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES[fmt]
    data = example(case, tmp_path, capsys).read_bytes()
    given = BAD_INPUTS[bad]
    path = tmp_path / f"{bad}.bin"
    path.write_bytes(data[:len(data) // 2] if given is None else given)
    out = tmp_path / "out"
    status, _, err = run(capsys, verb, fmt, *case.options, str(path), "-o", str(out))
    if (fmt, bad) == ("godot", "empty"):  # a file of no store_var records: a sound empty save
        assert (status, err) == (0, "")
        return
    line = one_line(err)
    assert status == 1, line
    assert line.startswith(f"gameserde: {path}: {fmt} decode error"), line
    assert re.search(r"\bat byte \d+|\bin [$/]", line) or fmt == "o3de", line


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.parametrize("fmt", list(CASES))
@pytest.mark.parametrize("option", [("--max-depth", "-1"), ("--max-depth", "x"),
                                    ("--no-such-option",)])
def test_bad_option_values_are_usage_errors(fmt: str, verb: str, option: tuple[str, ...],
                                            tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "any.bin"
    path.write_bytes(b"\0")
    with pytest.raises(SystemExit) as e:
        main([verb, fmt, *CASES[fmt].options, *option, str(path)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith(
        f"gameserde {verb} {fmt}: error: ")


@pytest.mark.parametrize("fmt", list(CASES))
def test_the_library_codec_does_what_the_command_does(fmt: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES[fmt]
    data_path = example(case, tmp_path, capsys)
    data = data_path.read_bytes()
    status, printed, _ = run(capsys, "decode", fmt, *case.options, "--compact", str(data_path))
    assert status == 0
    options = library_options(case.options)
    codec = gameserde.codec(fmt, **options)
    assert codec.format == fmt
    assert codec.to_json(data) == printed
    assert codec.from_json(printed) == data
    value = codec.decode(data)
    assert codec.encode(value) == data
    assert codec.encode(codec.from_jsonable(codec.to_jsonable(value))) == data
    assert codec.verify(data).startswith("ok")
    byte_map = codec.inspect(data)
    assert byte_map.error is None and byte_map.rows
    assert byte_map.render().startswith("offset")
    rebuilt = gameserde.codec(*codec.spec[:1], **codec.spec[1])
    assert rebuilt.encode(value) == data
    with pytest.raises(gameserde.DecodeError) as e:
        codec.verify(data[:len(data) // 2])
    assert str(e.value).startswith(f"{fmt} decode error")
    assert codec.inspect(data[:len(data) // 2]).error is not None
    with pytest.raises(gameserde.UsageError):
        gameserde.codec(fmt, **options, max_depth=-1)
    with pytest.raises(gameserde.UsageError):
        gameserde.codec(fmt, **options, no_such_option=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert codec.decode(data) == value  # a clean example warns of nothing


def library_options(argv: tuple[str, ...]) -> dict[str, object]:
    """The command line's options as keyword arguments of ``gameserde.codec``."""
    names = {"-s": "schema"}
    options: dict[str, object] = {}
    items = list(argv)
    while items:
        flag = items.pop(0)
        name = names.get(flag, flag.lstrip("-").replace("-", "_"))
        options[name] = items.pop(0) if items and not items[0].startswith("-") else True
    return options


def test_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(gameserde.UsageError, match="the formats are godot, flatbuffers"):
        gameserde.codec("protobuf")
