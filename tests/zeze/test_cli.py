"""``gameserde VERB zeze``: JSON out and in with a solution XML schema, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gameserde.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "examples" / "zeze" / "game.xml")
ROLE = ROOT / "examples" / "zeze" / "role.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_encode_decode_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary, again = tmp_path / "role.bin", tmp_path / "again.bin"
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--type", "BRole", str(ROLE), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "decode", "zeze", "-s", SCHEMA, "--type", "BRole", str(binary))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["pet"] == {"bean": "game.role.BDog", "typeId": 2,
                          "value": {"tricks": ["sit", "roll"]}}
    (tmp_path / "role.json").write_text(out)
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--type", "game.role.BRole",
               str(tmp_path / "role.json"), "-o", str(again))[0] == 0
    assert again.read_bytes() == binary.read_bytes()
    code, out, _ = run(capsys, "verify", "zeze", "-s", SCHEMA, "--bean", "BRole", str(binary))
    assert code == 0 and "ok: a sound game.role.BRole bean of" in out


@pytest.mark.parametrize(("args", "words"), [
    (("-s", "missing.xml", "--type", "BRole"), "gameserde: missing.xml: No such file"),
    (("-s", SCHEMA, "--type", "BRol"),
     f"gameserde: {SCHEMA}: --type BRol: no bean named 'BRol' in the schema (did you mean "
     "BRole or BRoleId?)"),
    (("-s", SCHEMA), f"gameserde: {SCHEMA}: name the bean with --type"),
])
def test_usage_errors_are_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   args: tuple[str, ...], words: str) -> None:
    data = tmp_path / "x.bin"
    data.write_bytes(b"\x00")
    code, _, err = run(capsys, "decode", "zeze", *args, str(data))
    assert code == 2 and err.startswith(words) and err.count("\n") == 1, err


@pytest.mark.parametrize("verb", ["decode", "encode", "verify", "inspect", "convert"])
@pytest.mark.parametrize("depth", ["x", "-1", "100001"])
def test_bad_max_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str], verb: str,
                                        depth: str) -> None:
    with pytest.raises(SystemExit) as e:
        main([verb, "zeze", "-s", SCHEMA, "--type", "BRole", "--max-depth", depth, "f"])
    assert e.value.code == 2
    assert (f"--max-depth takes a whole number from 0 to 100000, not '{depth}'"
            in capsys.readouterr().err)


def test_bad_schema_names_file_and_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<solution name="s">\n<module name="m" id="1">\n'
                   '<bean name="B"><variable id="1" name="x" type="nope"/></bean>'
                   '</module></solution>\n')
    data = tmp_path / "x.bin"
    data.write_bytes(b"\x00")
    code, _, err = run(capsys, "decode", "zeze", "-s", str(bad), "--type", "B", str(data))
    assert code == 1 and f"{bad}:3:" in err and err.count("\n") == 1


@pytest.mark.parametrize(("verb", "content", "words"), [
    ("decode", b"\x5a\x00", "zeze decode error at byte 1 (0x1) in $.pos: a vector needs 12 "),
    ("decode", b"\x00\x00", "zeze decode error at byte 1 (0x1): 1 bytes follow the bean"),
    ("verify", b"\x23\x05ab", "zeze decode error at byte 2 (0x2) in $.name: the string needs 5 "),
    ("inspect", b"\x23\x05ab", "zeze decode error at byte 2 (0x2) in $.name: the string needs 5 "),
    ("encode", b'{"level": "high"}', "zeze encode error in $.level: short is an integer, not "
                                     "'high'"),
    ("encode", b'{"level": 4294967296}', "zeze encode error in $.level: 4294967296 does not "
                                         "fit a short (16-bit signed)"),
    ("encode", b'{"attrs": {"str": "x"}}', 'zeze encode error in $.attrs["str"]: '),
    ("encode", b'{"items": [{"id": 1}, {"id": []}]}', "zeze encode error in $.items[1].id: "),
    ("encode", b'{"nope": 1}', "zeze encode error in $.nope: game.role.BRole has no field "
                               "'nope'"),
    ("encode", b"{", "zeze encode error at byte 1 (0x1): not valid JSON"),
    ("encode", b'{"level": ' + b"7" * 5000 + b"}", "zeze encode error at byte 10 (0xa): an "
                                                   "integer of 5000 digits"),
    ("convert", b"\x23\x05ab", "zeze decode error at byte 2 (0x2) in $.name: the string needs 5 "),
])
def test_bad_input_is_one_line_and_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            verb: str, content: bytes, words: str) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    code, _, err = run(capsys, verb, "zeze", "-s", SCHEMA, "--type", "BRole", str(path),
                       "-o", str(tmp_path / "out"))
    assert code == 1 and err.startswith(f"gameserde: {path}: {words}"), err
    assert err.count("\n") == 1 and "sys." not in err, err


FRAMES = [
    {"protocol": "SEnterWorld", "value": {"name": "Ann", "level": 3}},
    {"protocol": "RGetRole", "family": "request", "sessionId": 1, "value": {"roleId": 42}},
    {"protocol": "RGetRole", "family": "response", "sessionId": 1, "resultCode": 5,
     "value": {"name": "Bob"}},
]


def test_frames_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, binary = tmp_path / "frames.json", tmp_path / "frames.bin"
    source.write_text(json.dumps(FRAMES))
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
               str(binary))[0] == 0
    code, out, _ = run(capsys, "decode", "zeze", "-s", SCHEMA, "--frame", str(binary))
    frames = json.loads(out)
    assert code == 0 and [f["protocol"] for f in frames] == [
        "game.role.SEnterWorld", "game.role.RGetRole", "game.role.RGetRole"]
    assert frames[2]["family"] == "response" and frames[2]["resultCode"] == 5
    assert frames[2]["sessionId"] == 1 and frames[2]["value"]["name"] == "Bob"
    source.write_text(out)
    again = tmp_path / "again.bin"
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
               str(again))[0] == 0
    assert again.read_bytes() == binary.read_bytes()
    code, out, _ = run(capsys, "verify", "zeze", "-s", SCHEMA, "--frame", str(binary))
    assert code == 0 and "ok: 3 sound frames" in out
    binary.write_bytes(binary.read_bytes()[:-1])
    code, _, err = run(capsys, "decode", "zeze", "-s", SCHEMA, "--frame", str(binary))
    assert code == 1 and "the last frame is cut short" in err


@pytest.mark.parametrize(("doc", "words"), [
    ([{"protocol": "Nope"}], "$[0].protocol: no protocol named 'Nope'"),
    ([{}, {"protocol": "RGetRole", "sessionId": 1, "value": {"roleId": "x"}}],
     "$[0]: a frame is an object"),
    ([{"protocol": "RGetRole", "sessionId": 1, "value": {"roleId": "x"}}],
     "$[0].value.roleId: long is an integer"),
    ({"protocol": "RGetRole", "sessionId": "a", "value": {}}, "$[0]: the session id must be"),
    ({"protocol": "RGetRole", "value": {}}, "$[0]: rpc game.role.RGetRole needs a session id"),
    ({"protocol": "RGetRole", "family": {}, "sessionId": 1}, "$[0].family: a family is"),
    ({"protocol": "RGetRole", "protocolId": 3, "sessionId": 1}, "$[0].protocolId: "),
    ({"protocol": "RGetRole", "sessionId": 1, "extra": 1}, "$[0]: a frame has no key 'extra'"),
    ([7], "$[0]: a frame is an object"),
])
def test_bad_frames_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object,
                         words: str) -> None:
    source = tmp_path / "frames.json"
    source.write_text(json.dumps(doc))
    code, _, err = run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
                       str(tmp_path / "out"))
    assert code == 1 and f"zeze encode error in {words}" in err and err.count("\n") == 1, err


def test_inspect_with_and_without_a_schema(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "role.bin"
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--type", "BRole", str(ROLE), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "inspect", "zeze", str(binary))
    assert (code, err) == (0, "") and "$.#2" in out and "'Knight'" in out
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "--type", "BRole",
                         str(binary))
    assert (code, err) == (0, "") and "$.name" in out and "$.pet" in out
    assert '$.attrs["str"]' in out and "$.items[1].count" in out
    binary.write_bytes(binary.read_bytes()[:20])
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "--type", "BRole",
                         str(binary))
    assert code == 1 and "ERROR" in out and err.count("\n") == 1


def test_inspect_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, binary = tmp_path / "frames.json", tmp_path / "frames.bin"
    source.write_text(json.dumps(FRAMES))
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "--frame", str(binary))
    assert (code, err) == (0, "")
    assert "module 7, protocol 2 (game.role.RGetRole)" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["$[2].family", "family", "rpc", "response,", "a", "result", "code",
            "follows"] in [r[-8:] for r in rows]
    assert ["$[2].resultCode", "long", "5"] in [r[-3:] for r in rows]
    assert ["$[2].sessionId", "long", "1"] in [r[-3:] for r in rows]
    assert "$[1].value.roleId" in out
    binary.write_bytes(binary.read_bytes()[:30])
    code, out, err = run(capsys, "inspect", "zeze", "--frame", str(binary))
    assert code == 1 and "ERROR" in out and "$[1]" in out
    assert ("zeze decode error at byte 21 (0x15) in $[1]: the last frame is cut short: 9 "
            "bytes of it remain") in err
