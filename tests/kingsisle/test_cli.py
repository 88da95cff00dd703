"""``gameserde VERB kingsisle``: JSON or XML out and in with a type list, BINd files, the bit
map, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gameserde.cli import main
from gameserde.kingsisle import Serializer, load_schema

ROOT = Path(__file__).resolve().parents[2]
TYPES = str(ROOT / "examples" / "kingsisle" / "types.json")
ITEM = ROOT / "examples" / "kingsisle" / "item.bin"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_decode_encode_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "decode", "kingsisle", "-t", TYPES, str(ITEM))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert next(iter(doc)) == "$__type" and doc["$__type"] == "class ItemTemplate"
    assert doc["m_objectName"] == "Staff_Storm_T3"
    (tmp_path / "item.json").write_text(out)
    again = tmp_path / "again.bin"
    assert run(capsys, "encode", "kingsisle", "-t", TYPES, str(tmp_path / "item.json"),
               "-o", str(again))[0] == 0
    assert again.read_bytes() == ITEM.read_bytes()
    code, out, _ = run(capsys, "verify", "kingsisle", "-t", TYPES, str(ITEM))
    assert code == 0 and "ok: a sound stream of 152 bytes holding a class ItemTemplate" in out


def test_enum_names_and_compact_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "kingsisle", "-t", TYPES, "--enum-names",
                       "--compact", str(ITEM))
    assert code == 0 and out.count("\n") == 1
    doc = json.loads(out)
    assert (doc["m_school"], doc["m_flags"]) == ("Storm", "FLAG_NoAuction|FLAG_CrownsOnly")


def test_xml_out_and_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = tmp_path / "item.xml"
    assert run(capsys, "decode", "kingsisle", "-t", TYPES, "--xml", str(ITEM), "-o",
               str(xml))[0] == 0
    assert '<Class Name="class ItemTemplate">' in xml.read_text()
    out = tmp_path / "item.bin"
    assert run(capsys, "encode", "kingsisle", "-t", TYPES, str(xml), "-o", str(out))[0] == 0
    assert out.read_bytes() == ITEM.read_bytes()


def test_bind_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    json_path, bind = tmp_path / "item.json", tmp_path / "item.bind"
    json_path.write_text(run(capsys, "decode", "kingsisle", "-t", TYPES, str(ITEM))[1])
    assert run(capsys, "encode", "kingsisle", "-t", TYPES, "--bind", str(json_path), "-o",
               str(bind))[0] == 0
    data = bind.read_bytes()
    assert data[:8] == b"BINd\x0b\x00\x00\x00"
    expected = Serializer(load_schema(Path(TYPES))).decode(ITEM.read_bytes())
    assert Serializer(load_schema(Path(TYPES)), shallow=False, flags=1).decode(data[4:]) == (
        expected)
    code, out, _ = run(capsys, "decode", "kingsisle", "-t", TYPES, str(bind))  # deep, own flags
    assert code == 0 and json.loads(out) == json.loads(json_path.read_text())
    code, out, _ = run(capsys, "inspect", "kingsisle", "-t", TYPES, str(bind))
    assert code == 0
    lines = out.splitlines()
    assert lines[2].startswith("0x00000000") and "magic" in lines[2] and "flags" in lines[3]
    bind.write_bytes(data[:-3])
    code, _, err = run(capsys, "decode", "kingsisle", "-t", TYPES, str(bind))
    assert code == 1 and err.startswith(f"gameserde: {bind}: kingsisle decode error at byte")


def test_inspect_prints_the_bit_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "inspect", "kingsisle", "-t", TYPES, str(ITEM))
    assert (code, err) == (0, "")
    assert "$.m_effects[1].m_school" in out and "bit  bits" in out
    cut = tmp_path / "cut.bin"
    cut.write_bytes(ITEM.read_bytes()[:100])
    code, out, err = run(capsys, "inspect", "kingsisle", "-t", TYPES, str(cut))
    assert code == 1 and "ERROR" in out and "in $.m_tags[1]" in err


@pytest.mark.parametrize(("args", "words"), [
    (("--flags", "64"), "serializer flags are bits of 0x1f, not 64"),
    (("--mask", "-1"), "not a whole number >= 0: -1"),
    (("--recursion-limit", "x"), "not a whole number >= 0: x"),
])
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str],
                                      args: tuple[str, ...], words: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["decode", "kingsisle", "-t", TYPES, *args, str(ITEM)])
    assert stop.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize(("args", "words", "status"), [
    (("-t", "missing.json"), "missing.json: No such file", 2),
    (("-t", TYPES, "--skip-unknown-types"), "--skip-unknown-types needs --deep", 2),
    (("-t", TYPES, "--deep"), "kingsisle decode error", 1),
])
def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                             words: str, status: int) -> None:
    code, _, err = run(capsys, "decode", "kingsisle", *args, str(ITEM))
    assert code == status and words in err and err.count("\n") == 1, err


def test_bad_type_lists_and_bad_json(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2, "classes": {"1": {"name": "class X"}}}')
    code, _, err = run(capsys, "decode", "kingsisle", "-t", str(bad), str(ITEM))
    assert code == 1 and err.count("\n") == 1
    doc = tmp_path / "doc.json"
    doc.write_text('{"$__type": "class ItemTemplate", "m_templateID": "x"}')
    code, _, err = run(capsys, "encode", "kingsisle", "-t", TYPES, str(doc), "-o",
                       str(tmp_path / "o.bin"))
    assert code == 1 and "m_templateID" in err and err.count("\n") == 1


def test_bind_errors_count_the_magic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bind = tmp_path / "short.bin"
    bind.write_bytes(b"BINd\x01\x00")
    code, _, err = run(capsys, "decode", "kingsisle", "-t", TYPES, str(bind))
    assert code == 1 and "decode error at byte 4 (0x4)" in err
    code, _, err = run(capsys, "decode", "kingsisle", "-t", TYPES, "--manual-compression",
                       str(bind))
    assert code == 2 and "--manual-compression does not apply to BINd files" in err
    code, out, err = run(capsys, "inspect", "kingsisle", "-t", TYPES, str(bind))
    assert code == 1 and "magic" in out and "ERROR" in out
