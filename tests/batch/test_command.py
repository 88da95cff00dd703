"""The command line's batch mode: several inputs, directories, globs; failures one line each
and a summary; exit status 1 when any input failed; outputs as single files would give."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gameserde import godot
from gameserde.cli import main

SAVE = godot.store_var({"gold": 5}) + godot.store_var("end")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "saves"
    for i in range(30):
        (root / f"p{i % 3}").mkdir(parents=True, exist_ok=True)
        (root / f"p{i % 3}" / f"s{i:02}.sav").write_bytes(SAVE)
    (root / "top.sav").write_bytes(SAVE)
    (root / "p1" / "cut.sav").write_bytes(SAVE[:-2])
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err.splitlines()


def test_verify_a_folder_lists_failures_and_sums_up(corpus: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "verify", "godot", "--framing", "store_var", "-r",
                           str(corpus), "-j", "2")
    assert (status, out) == (1, "")
    assert err[0].startswith("gameserde: p1/cut.sav: godot decode error at byte ")
    assert err[-1].startswith("gameserde: 32 inputs, ") and "31 ok, 1 failed" in err[-1]
    status, _, err = run(capsys, "verify", "godot", "--framing", "store_var", str(corpus))
    assert status == 0 and "1 inputs" in err[-1]  # without -r: the folder's own files


def test_decode_writes_json_lines_equal_to_single_files(corpus: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "decode", "godot", "--framing", "store_var", "-r",
                         str(corpus))
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and len(lines) == 32
    _, single, _ = run(capsys, "decode", "godot", "--framing", "store_var", "--compact",
                       str(corpus / "top.sav"))
    assert [line["value"] for line in lines if line["key"] == "top.sav"] == [json.loads(single)]
    [bad] = [line for line in lines if "error" in line]
    assert bad["key"] == "p1/cut.sav" and isinstance(bad["offset"], int)
    jsonl = tmp_path / "all.jsonl"
    run(capsys, "decode", "godot", "--framing", "store_var", str(corpus / "p0" / "*.sav"),
        "--jsonl", str(jsonl))
    assert len(jsonl.read_text().splitlines()) == 10


def test_convert_a_tree_and_back(corpus: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    (corpus / "p1" / "cut.sav").unlink()
    there, back = tmp_path / "packets", tmp_path / "back"
    assert run(capsys, "convert", "godot", "--framing", "store_var", "--to-framing",
               "packet_stream", "-r", str(corpus), "-o", str(there))[0] == 0
    assert run(capsys, "convert", "godot", "--framing", "packet_stream", "--to-framing",
               "store_var", "-r", str(there), "-o", str(back))[0] == 0
    for path in corpus.rglob("*.sav"):
        assert (back / path.relative_to(corpus)).read_bytes() == path.read_bytes()


def test_fail_fast_and_strict(corpus: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "verify", "godot", "--framing", "store_var", "-r",
                         "--fail-fast", "-j", "1", str(corpus))
    assert status == 1 and err[-1].endswith("(stopped at the first failure: --fail-fast)")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.bin").write_bytes(godot.encode(1) + b"xx")
    (raw / "b.bin").write_bytes(godot.encode(2))
    status, _, err = run(capsys, "decode", "godot", str(raw))
    assert status == 0 and err[0].startswith("gameserde: a.bin: 2 bytes after the value")
    status, _, err = run(capsys, "decode", "godot", "--strict", str(raw))
    assert status == 1 and err[0].endswith("(strict)") and "1 ok, 1 failed" in err[-1]


@pytest.mark.parametrize("argv", [
    ["verify", "godot", "-j", "0", "x"],
    ["verify", "godot", "-", "x"],
    ["verify", "godot", "x", "y", "-o", "out"],
    ["convert", "godot", "x", "y"],
    ["convert", "godot", "--jsonl", "f", "x"],
])
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(argv)
    except SystemExit as e:
        status = int(e.code or 0)
    assert status == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_progress_bar_on_a_terminal_only(corpus: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["verify", "godot", "--framing", "store_var", "-r", "-j", "1", str(corpus)]
    main(argv)
    assert "B/s" not in capsys.readouterr().err  # not a terminal: the summary only
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    main(argv)
    drawn = capsys.readouterr().err
    assert "gameserde: " in drawn and "B/s" in drawn and "\r" in drawn  # tqdm's bar
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the progress extra not installed
    main(argv)
    assert "no progress bar: pip install 'gameserde[progress]' adds one (tqdm)" in \
        capsys.readouterr().err


def test_progress_is_told_of_every_input(corpus: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from gameserde import batch

    seen: list[int] = []
    with ThreadPoolExecutor(1) as pool:
        summary = batch.run("verify", [corpus], "godot", framing="store_var", executor=pool,
                            progress=lambda outcome: seen.append(outcome.size))
    assert len(seen) == summary.inputs == 32 and sum(seen) == summary.bytes


def test_a_format_read_by_file_kind_gets_its_codec_per_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prefab = Path(__file__).resolve().parents[2] / "examples" / "o3de" / "courtyard.prefab"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "courtyard.prefab").write_bytes(prefab.read_bytes())
    there, back = tmp_path / "full", tmp_path / "lean"
    assert run(capsys, "convert", "o3de", "--to-keep-defaults", str(tmp_path / "in"), "-o",
               str(there))[0] == 0
    assert run(capsys, "convert", "o3de", "--keep-defaults", "--to-no-keep-defaults",
               str(there), "-o", str(back))[0] == 0
    assert (back / "courtyard.prefab").read_bytes() == prefab.read_bytes()
