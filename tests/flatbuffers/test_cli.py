"""``gameserde decode|encode|verify flatbuffers``: flatc's JSON in and out, flatc's bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gameserde.cli import main
from tests.flatbuffers.flatc_tool import flatc

SCHEMA = """namespace Game;
enum Color : byte { Red = 0, Green, Blue = 2 }
struct Vec3 { x:float; y:float; z:float; }
table Weapon { name:string; damage:short; }
union Equipment { Weapon }
table Monster { pos:Vec3; hp:short = 100; name:string; color:Color = Blue;
                weapons:[Weapon]; equipped:Equipment; path:[Vec3]; }
root_type Monster;
file_identifier "MONS";
"""
DOC = """{ pos: {x: 1, y: 2, z: 3}, hp: 300, name: "Orc", color: Red,
  weapons: [{name: "Sword", damage: 3}, {name: "Axe", damage: 5},],
  equipped_type: Weapon, equipped: {name: "Axe", damage: 5},
  path: [{x: 1, y: 2, z: 3}, {x: 4, y: 5, z: 6}] }"""


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "m.fbs").write_text(SCHEMA)
    (tmp_path / "m.json").write_text(DOC)
    return tmp_path


def test_encode_writes_flatc_bytes(files: Path) -> None:
    exe = flatc()
    out = files / "ours.bin"
    assert main(["encode", "flatbuffers", "--schema", str(files / "m.fbs"),
                 str(files / "m.json"), "-o", str(out)]) == 0
    subprocess.run([exe, "-b", "-o", str(files / "flatc"), str(files / "m.fbs"),
                    str(files / "m.json")], check=True, capture_output=True)
    assert out.read_bytes() == (files / "flatc" / "m.bin").read_bytes()


def test_decode_prints_flatc_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exe = flatc()
    subprocess.run([exe, "-b", "-o", str(files), str(files / "m.fbs"), str(files / "m.json")],
                   check=True, capture_output=True)
    assert main(["decode", "flatbuffers", "--pretty", "-s", str(files / "m.fbs"),
                 str(files / "m.bin")]) == 0
    ours = capsys.readouterr().out
    subprocess.run([exe, "--json", "--strict-json", "-o", str(files / "j"),
                    str(files / "m.fbs"), "--", str(files / "m.bin")], check=True,
                   capture_output=True)
    assert ours == (files / "j" / "m.json").read_text()


def test_verify_reports_soundness(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bin_path = files / "m.bin"
    assert main(["encode", "flatbuffers", "-s", str(files / "m.fbs"), str(files / "m.json"),
                 "-o", str(bin_path)]) == 0
    assert main(["verify", "flatbuffers", "-s", str(files / "m.fbs"), str(bin_path)]) == 0
    assert "ok: a sound Game.Monster buffer" in capsys.readouterr().out
    (files / "cut.bin").write_bytes(bin_path.read_bytes()[:60])
    assert main(["verify", "flatbuffers", "-s", str(files / "m.fbs"),
                 str(files / "cut.bin")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gameserde: {files / 'cut.bin'}: flatbuffers decode error at byte")
    assert "Traceback" not in err


def test_bad_schema_prints_flatc_message(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "bad.fbs").write_text("enum Color : byte { Red, Blu }\n"
                                   "table T { c:Color = Blue; }\nroot_type T;\n")
    assert main(["decode", "flatbuffers", "-s", str(files / "bad.fbs"),
                 str(files / "m.json")]) == 1
    # the same line and column flatc prints for this schema
    assert "bad.fbs:2: 24: error: unknown enum value: Blue" in capsys.readouterr().err


def test_help_lists_the_flatbuffers_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "flatbuffers", "--help"])
    text = capsys.readouterr().out
    assert "--schema" in text and "--type" in text and "--size-prefixed" in text
    usage = text.split("\n\n")[0]
    assert "[--max-depth N]" in usage and "--defaults-json" not in usage


# ---------------------------------------------------------------------------------------------
# Schema problems: one line naming the schema file, never a traceback


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return code, err


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect", "encode"])
def test_schema_without_root_type_asks_for_root_type(
        files: Path, capsys: pytest.CaptureFixture[str], verb: str) -> None:
    schema = files / "noroot.fbs"
    schema.write_text(SCHEMA.replace("root_type Monster;", ""))
    data = files / ("m.json" if verb == "encode" else "m.bin")
    if verb != "encode":
        assert main(["encode", "flatbuffers", "-s", str(files / "m.fbs"), str(files / "m.json"),
                     "-o", str(data)]) == 0
    out = ["-o", str(files / "out.bin")] if verb == "encode" else []
    code, err = run_cli(capsys, verb, "flatbuffers", "-s", str(schema), str(data), *out)
    assert code == 2
    assert err == (f"gameserde: {schema}: the schema declares no root_type; name the root "
                   "table with --type\n")
    assert main([verb, "flatbuffers", "-s", str(schema), "--type", "Monster", str(data),
                 *out]) == 0


@pytest.mark.parametrize("verb", ["decode", "verify", "inspect", "encode"])
@pytest.mark.parametrize(("root", "reason"), [
    ("Monstr", "no type named 'Monstr' in the schema (did you mean Monster?)"),
    ("Vec3", "Game.Vec3 is not a table"),
    ("Game.Nothing", "no type named 'Game.Nothing' in the schema"),
])
def test_unknown_root_type(files: Path, capsys: pytest.CaptureFixture[str], verb: str,
                           root: str, reason: str) -> None:
    schema = files / "m.fbs"
    data = files / "m.json"  # the data is not looked at
    code, err = run_cli(capsys, verb, "flatbuffers", "-s", str(schema), "--root-type", root,
                        str(data), "-o", str(files / "out"))
    assert code == 2
    assert err == f"gameserde: {schema}: --type {root}: {reason}\n"


def test_schema_errors_name_the_schema_file(files: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = files / "m.json"
    bad = files / "bad.fbs"
    bad.write_text("table T { a:Foo; }\nroot_type T;\n")
    for verb in ("decode", "encode", "verify", "inspect"):
        code, err = run_cli(capsys, verb, "flatbuffers", "-s", str(bad), str(data),
                            "-o", str(files / "out"))
        assert code == 1
        assert err.startswith(f"gameserde: {bad}:") and str(data) not in err


@pytest.mark.parametrize("name", ["missing.fbs", "missing.schema", "a;b{c}"])
def test_missing_schema_file(files: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, err = run_cli(capsys, "decode", "flatbuffers", "-s", str(files / name),
                        str(files / "m.json"))
    assert code == 2
    assert err == f"gameserde: {files / name}: No such file or directory\n"


def test_schema_without_root_type_as_a_program(files: Path) -> None:
    """The case that printed a traceback, run as a user runs it."""
    schema = files / "noroot.fbs"
    schema.write_text(SCHEMA.replace("root_type Monster;", ""))
    proc = subprocess.run([sys.executable, "-m", "gameserde", "verify", "flatbuffers", "-s",
                           str(schema), str(files / "m.json")], capture_output=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (f"gameserde: {schema}: the schema declares no root_type; "
                                    "name the root table with --type\n")
