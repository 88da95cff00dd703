"""``gameserde VERB kingsisle``: JSON or XML out and in with a type list, BINd files, the bit
map, convert, and one-line errors."""

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
    code, out, err = run(capsys, "decode", "kingsisle", "-s", TYPES, str(ITEM))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert next(iter(doc)) == "$__type" and doc["$__type"] == "class ItemTemplate"
    assert doc["m_objectName"] == "Staff_Storm_T3"
    (tmp_path / "item.json").write_text(out)
    again = tmp_path / "again.bin"
    assert run(capsys, "encode", "kingsisle", "--schema", TYPES, str(tmp_path / "item.json"),
               "-o", str(again))[0] == 0
    assert again.read_bytes() == ITEM.read_bytes()
    code, out, _ = run(capsys, "verify", "kingsisle", "-s", TYPES, str(ITEM))
    assert code == 0 and "ok: a sound stream of 152 bytes holding a class ItemTemplate" in out


def test_max_depth_and_its_former_name(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--max-depth", "--recursion-limit"):
        code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, flag, "1", str(ITEM))
        assert code == 1 and "in $.m_tags: lists nest deeper than max_depth 1" in err
        assert run(capsys, "decode", "kingsisle", "-s", TYPES, flag, "3", str(ITEM))[0] == 0


@pytest.mark.parametrize("flag", ["-s", "--schema", "--types", "-t"])
def test_the_type_list_options(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    """``--schema/-s``, and katsuba's ``-t`` (its ``--type-lists``) and the old ``--types``."""
    code, out, _ = run(capsys, "decode", "kingsisle", flag, TYPES, str(ITEM))
    assert code == 0 and json.loads(out)["m_templateID"] == 1205


def test_type_lists_given_several_times_are_merged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    classes = json.loads(Path(TYPES).read_text())["classes"]
    root = next(k for k, c in classes.items() if c["name"] == "class ItemTemplate")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, keys in ((a, [root]), (b, [k for k in classes if k != root])):
        path.write_text(json.dumps({"version": 2, "classes": {k: classes[k] for k in keys}}))
    code, out, _ = run(capsys, "decode", "kingsisle", "-s", str(a), "--types", str(b), str(ITEM))
    assert code == 0 and json.loads(out)["m_templateID"] == 1205
    code, _, err = run(capsys, "decode", "kingsisle", "-s", str(a), str(ITEM))
    assert code == 1 and "no class of the type list has the type hash" in err


def test_enum_names_and_compact_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "kingsisle", "-s", TYPES, "--enum-names",
                       "--compact", str(ITEM))
    assert code == 0 and out.count("\n") == 1
    doc = json.loads(out)
    assert (doc["m_school"], doc["m_flags"]) == ("Storm", "FLAG_NoAuction|FLAG_CrownsOnly")
    code, pretty, _ = run(capsys, "decode", "kingsisle", "-s", TYPES, "--pretty", str(ITEM))
    code, out, _ = run(capsys, "decode", "kingsisle", "-s", TYPES, str(ITEM))  # piped: compact
    assert code == 0 and pretty.count("\n") > 10 and out.count("\n") == 1
    assert json.loads(pretty) == json.loads(out) == doc | {"m_school": 2, "m_flags": 5} | {
        "m_effects": json.loads(out)["m_effects"]}


def test_xml_out_and_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = tmp_path / "item.xml"
    assert run(capsys, "decode", "kingsisle", "-s", TYPES, "--xml", str(ITEM), "-o",
               str(xml))[0] == 0
    assert '<Class Name="class ItemTemplate">' in xml.read_text()
    out = tmp_path / "item.bin"
    assert run(capsys, "encode", "kingsisle", "-s", TYPES, str(xml), "-o", str(out))[0] == 0
    assert out.read_bytes() == ITEM.read_bytes()
    again = tmp_path / "again.xml"
    assert run(capsys, "encode", "kingsisle", "-s", TYPES, "--xml", str(xml), "-o",
               str(again))[0] == 0
    assert again.read_bytes() == xml.read_bytes()
    code, out, _ = run(capsys, "decode", "kingsisle", "-s", TYPES, str(xml))  # XML in
    assert code == 0 and json.loads(out)["m_templateID"] == 1205
    code, out, _ = run(capsys, "verify", "kingsisle", "-s", TYPES, str(xml))
    assert code == 0 and "ok: a sound XML file" in out


def test_bind_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    json_path, bind = tmp_path / "item.json", tmp_path / "item.bind"
    json_path.write_text(run(capsys, "decode", "kingsisle", "-s", TYPES, str(ITEM))[1])
    assert run(capsys, "encode", "kingsisle", "-s", TYPES, "--bind", str(json_path), "-o",
               str(bind))[0] == 0
    data = bind.read_bytes()
    assert data[:8] == b"BINd\x0b\x00\x00\x00"
    expected = Serializer(load_schema(Path(TYPES))).decode(ITEM.read_bytes())
    assert Serializer(load_schema(Path(TYPES)), shallow=False, flags=1).decode(data[4:]) == (
        expected)
    code, out, _ = run(capsys, "decode", "kingsisle", "-s", TYPES, str(bind))  # deep, own flags
    assert code == 0 and json.loads(out) == json.loads(json_path.read_text())
    code, out, _ = run(capsys, "inspect", "kingsisle", "-s", TYPES, str(bind))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("offset") and "flags" in lines[2] and "inflated body" in out
    assert lines[1].startswith("0x00000000") and "magic" in lines[1]
    bind.write_bytes(data[:-3])
    code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, str(bind))
    assert code == 1 and err.startswith(f"gameserde: {bind}: kingsisle decode error at byte")


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect"])
def test_bind_is_an_encode_option(capsys: pytest.CaptureFixture[str], verb: str) -> None:
    """Reading recognises a BINd file by itself: ``--bind`` is encode's (and convert's
    ``--to-bind``), and the help says so."""
    with pytest.raises(SystemExit) as stop:
        main([verb, "kingsisle", "-s", TYPES, "--bind", str(ITEM)])
    assert stop.value.code == 2 and "unrecognized arguments: --bind" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([verb, "kingsisle", "--help"])
    assert "--bind" not in capsys.readouterr().out.split("The input of")[0]
    with pytest.raises(SystemExit):
        main(["encode", "kingsisle", "--help"])
    assert "--bind " in capsys.readouterr().out


def test_inspect_prints_the_bit_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "inspect", "kingsisle", "-s", TYPES, str(ITEM))
    assert (code, err) == (0, "")
    assert "$.m_effects[1].m_school" in out and "bit  bits" in out
    cut = tmp_path / "cut.bin"
    cut.write_bytes(ITEM.read_bytes()[:100])
    code, out, err = run(capsys, "inspect", "kingsisle", "-s", TYPES, str(cut))
    assert code == 1 and "ERROR" in out and "in $.m_tags[1]" in err
    code, decoded, derr = run(capsys, "decode", "kingsisle", "-s", TYPES, str(cut))
    assert (code, decoded, derr) == (1, "", err)  # the same message


def test_inspect_as_json_keeps_the_bits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "inspect", "kingsisle", "-s", TYPES, "--as", "json", str(ITEM))
    doc = json.loads(out)
    assert code == 0 and doc["error"] is None and doc["size"] == 152
    school = next(r for r in doc["rows"] if r["path"] == "$.m_effects[1].m_school")
    assert {"offset", "length", "bytes", "type", "value", "bit", "bits"} <= set(school)
    assert all(r["bits"] <= 8 * r["length"] for r in doc["rows"])


@pytest.mark.parametrize(("args", "words"), [
    (("--flags", "64"), "--flags takes serializer flags, bits of 0x1f (decimal or 0x..), "
                        "not '64'"),
    (("--mask", "-1"), "--mask takes a u32 (decimal or 0x..), not '-1'"),
    (("--max-depth", "x"), "--max-depth takes a whole number from 0 to 100000, not 'x'"),
    (("--max-depth", "-1"), "--max-depth takes a whole number from 0 to 100000, not '-1'"),
    (("--recursion-limit", "-5"), "--max-depth takes a whole number from 0 to 100000, not "
                                  "'-5'"),
    (("--max-expansion", "abc"), "--max-expansion takes a number >= 0 (inf: no limit), not "
                                 "'abc'"),
])
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str],
                                      args: tuple[str, ...], words: str) -> None:
    for verb in ("decode", "verify", "inspect"):
        with pytest.raises(SystemExit) as stop:
            main([verb, "kingsisle", "-s", TYPES, *args, str(ITEM)])
        assert stop.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize(("args", "words", "status"), [
    (("-s", "missing.json"), "missing.json: No such file", 2),
    (("-s", TYPES, "--skip-unknown-types"), "--skip-unknown-types needs --deep", 2),
    (("-s", TYPES, "--xml", "--enum-names"), "--enum-names does nothing with --xml", 2),
    (("-s", TYPES, "--xml", "--compact"), "--compact applies to JSON output", 2),
    (("-s", TYPES, "--xml", "--pretty"), "--pretty applies to JSON output", 2),
    (("-s", TYPES, "--deep"), "kingsisle decode error", 1),
    ((), "kingsisle codecs need a type list: schema= (--schema/-s", 2),
])
def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                             words: str, status: int) -> None:
    code, _, err = run(capsys, "decode", "kingsisle", *args, str(ITEM))
    assert code == status and words in err and err.count("\n") == 1, err


def test_bad_type_lists_and_bad_json(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2, "classes": {"1": {"name": "class X"}}}')
    code, _, err = run(capsys, "decode", "kingsisle", "-s", str(bad), str(ITEM))
    assert code == 1 and err.count("\n") == 1
    doc = tmp_path / "doc.json"
    doc.write_text('{"$__type": "class ItemTemplate", "m_templateID": "x"}')
    code, _, err = run(capsys, "encode", "kingsisle", "-s", TYPES, str(doc), "-o",
                       str(tmp_path / "o.bin"))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"gameserde: {doc}: kingsisle encode error in $.m_templateID: ")
    doc.write_text('{"$__type": ')
    code, _, err = run(capsys, "encode", "kingsisle", "-s", TYPES, str(doc), "-o",
                       str(tmp_path / "o.bin"))
    assert code == 1 and err.startswith(f"gameserde: {doc}: kingsisle encode error at byte 12 "
                                        "(0xc): not valid JSON")


def test_bind_errors_count_the_magic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bind = tmp_path / "short.bin"
    bind.write_bytes(b"BINd\x01\x00")
    code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, str(bind))
    assert code == 1 and "decode error at byte 4 (0x4)" in err
    code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, "--manual-compression",
                       str(bind))
    assert code == 2 and "--manual-compression does not apply to BINd files" in err
    code, out, err = run(capsys, "inspect", "kingsisle", "-s", TYPES, str(bind))
    assert code == 1 and "magic" in out and "ERROR" in out
