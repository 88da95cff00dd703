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
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "-b", "BRole", str(ROLE), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "decode", "zeze", "-s", SCHEMA, "-b", "BRole", str(binary))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["pet"] == {"bean": "game.role.BDog", "typeId": 2,
                          "value": {"tricks": ["sit", "roll"]}}
    (tmp_path / "role.json").write_text(out)
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "-b", "game.role.BRole",
               str(tmp_path / "role.json"), "-o", str(again))[0] == 0
    assert again.read_bytes() == binary.read_bytes()
    code, out, _ = run(capsys, "verify", "zeze", "-s", SCHEMA, "-b", "BRole", str(binary))
    assert code == 0 and "ok: a sound game.role.BRole bean of" in out


@pytest.mark.parametrize(("args", "words"), [
    (("-s", "missing.xml", "-b", "BRole"), "missing.xml: No such file"),
    (("-s", SCHEMA, "-b", "BRol"), "did you mean BRole"),
])
def test_usage_errors_are_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   args: tuple[str, ...], words: str) -> None:
    data = tmp_path / "x.bin"
    data.write_bytes(b"\x00")
    code, _, err = run(capsys, "decode", "zeze", *args, str(data))
    assert code == 2 and words in err and err.count("\n") == 1


def test_bad_max_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["decode", "zeze", "-s", SCHEMA, "-b", "BRole", "--max-depth", "x", "f"])
    assert e.value.code == 2
    assert "not a depth from 0 to 100000: x" in capsys.readouterr().err


def test_bad_schema_names_file_and_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<solution name="s">\n<module name="m" id="1">\n'
                   '<bean name="B"><variable id="1" name="x" type="nope"/></bean>'
                   '</module></solution>\n')
    data = tmp_path / "x.bin"
    data.write_bytes(b"\x00")
    code, _, err = run(capsys, "decode", "zeze", "-s", str(bad), "-b", "B", str(data))
    assert code == 1 and f"{bad}:3:" in err and err.count("\n") == 1


@pytest.mark.parametrize(("verb", "content", "words"), [
    ("decode", b"\x5a\x00", "vector needs 12 bytes"),
    ("decode", b"\x00\x00", "1 bytes follow the bean"),
    ("verify", b"\x23\x05ab", "needs 5 bytes"),
    ("encode", b'{"level": "high"}', 'in $["level"]'),
    ("encode", b'{"nope": 1}', "has no field 'nope'"),
    ("encode", b"{", "JSON"),
])
def test_bad_input_is_one_line_and_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            verb: str, content: bytes, words: str) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    code, _, err = run(capsys, verb, "zeze", "-s", SCHEMA, "-b", "BRole", str(path),
                       "-o", str(tmp_path / "out"))
    assert code == 1 and words in err and err.count("\n") == 1, err


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
    ([{"protocol": "Nope"}], "$[0]: no protocol named 'Nope'"),
    ([{"protocol": "RGetRole", "sessionId": 1, "value": {"roleId": "x"}}],
     '$[0]["value"]["roleId"]'),
    ({"protocol": "RGetRole", "sessionId": "a", "value": {}}, "session id must be"),
    ({"protocol": "RGetRole", "value": {}}, "needs a session id"),
    ([7], "a frame is an object"),
])
def test_bad_frames_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: object,
                         words: str) -> None:
    source = tmp_path / "frames.json"
    source.write_text(json.dumps(doc))
    code, _, err = run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
                       str(tmp_path / "out"))
    assert code == 1 and words in err and err.count("\n") == 1, err


def test_inspect_with_and_without_a_schema(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "role.bin"
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "-b", "BRole", str(ROLE), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "inspect", "zeze", str(binary))
    assert (code, err) == (0, "") and "$.#2" in out and "'Knight'" in out
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "-b", "BRole", str(binary))
    assert (code, err) == (0, "") and "$.name" in out and "$.pet" in out
    binary.write_bytes(binary.read_bytes()[:20])
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "-b", "BRole", str(binary))
    assert code == 1 and "ERROR" in out and err.count("\n") == 1


def test_inspect_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, binary = tmp_path / "frames.json", tmp_path / "frames.bin"
    source.write_text(json.dumps(FRAMES))
    assert run(capsys, "encode", "zeze", "-s", SCHEMA, "--frame", str(source), "-o",
               str(binary))[0] == 0
    code, out, err = run(capsys, "inspect", "zeze", "-s", SCHEMA, "--frame", str(binary))
    assert (code, err) == (0, "")
    assert "module 7, protocol 2 (game.role.RGetRole)" in out
    assert "rpc response, result code 5, session id 1" in out and "$.roleId" in out
    binary.write_bytes(binary.read_bytes()[:30])
    code, out, err = run(capsys, "inspect", "zeze", "--frame", str(binary))
    assert code == 1 and "trailing bytes: no frame header" in out
    assert "a frame header needs 12 bytes" in err
