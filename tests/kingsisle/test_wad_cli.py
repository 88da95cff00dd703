"""``gameserde wad list|extract|pack`` and archives as batch inputs (``gameserde decode
kingsisle Root.wad``: every member one input)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from gameserde.batch import run as batch_run
from gameserde.batch.inputs import items
from gameserde.cli import main
from gameserde.kingsisle import open_wad, write_wad
from tests.kingsisle.test_wad import archive
from tests.test_cli import imported_formats

ROOT = Path(__file__).resolve().parents[2]
TYPES = str(ROOT / "examples" / "kingsisle" / "types.json")
ITEM = (ROOT / "examples" / "kingsisle" / "item.bin").read_bytes()
TEST_WAD = ROOT.parent / "shared" / "corpus" / "kingsisle-real" / "wad" / "Test.wad"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def root_wad(tmp_path: Path) -> Path:
    path = tmp_path / "Root.wad"
    write_wad(path, {"items/a.bin": ITEM, "items/b.bin": ITEM, "notes/readme.txt": b"hi\n",
                     "music/theme.mp3": b"ID3" + bytes(50)})
    return path


def test_list(capsys: pytest.CaptureFixture[str], root_wad: Path) -> None:
    code, out, err = run(capsys, "wad", "list", str(root_wad))
    assert (code, err) == (0, "")
    assert out.splitlines() == ["items/a.bin", "items/b.bin", "music/theme.mp3",
                                "notes/readme.txt"]
    code, out, _ = run(capsys, "wad", "list", "-l", str(root_wad), "*.mp3", "**/readme.*")
    rows = [line.split() for line in out.splitlines()]
    assert code == 0 and [r[-1] for r in rows] == ["music/theme.mp3", "notes/readme.txt"]
    assert rows[0][:3] == ["53", "53", "stored"] and rows[1][2] == "zlib"


def test_extract_and_pack_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     root_wad: Path) -> None:
    out_dir = tmp_path / "out"
    assert run(capsys, "wad", "extract", str(root_wad), "-o", str(out_dir)) == (0, "", "")
    assert (out_dir / "items" / "a.bin").read_bytes() == ITEM
    again = tmp_path / "again.wad"
    assert run(capsys, "wad", "pack", str(out_dir), "-o", str(again))[0] == 0
    assert again.read_bytes() == root_wad.read_bytes()
    some = tmp_path / "some"
    assert run(capsys, "wad", "extract", str(root_wad), "-o", str(some), "notes/*")[0] == 0
    assert [p.name for p in some.rglob("*") if p.is_file()] == ["readme.txt"]


def test_pack_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_bytes(b"a" * 100)
    (src / "b.dds").write_bytes(b"b" * 100)
    (src / "c.ogg").write_bytes(b"c" * 100)
    cases = {(): {"a.txt", "b.dds"}, ("--store", ".dds"): {"a.txt", "c.ogg"},
             ("--store-all",): set(), ("--compress-all",): {"a.txt", "b.dds", "c.ogg"}}
    for options, compressed in cases.items():
        target = tmp_path / "x.wad"
        assert run(capsys, "wad", "pack", str(src), "-o", str(target), *options)[0] == 0
        with open_wad(target) as wad:
            assert {e.name for e in wad.entries() if e.compressed} == compressed
    assert run(capsys, "wad", "pack", str(src), "-o", str(target), "--wad-version", "1")[0] == 0
    assert target.read_bytes()[5:9] == struct.pack("<I", 1)
    for bad in (["--flags", "300"], ["--bogus"], ["extra"]):
        with pytest.raises(SystemExit) as e:
            main(["wad", "pack", str(src), "-o", str(target), *bad])
        assert e.value.code == 2
    assert "a byte (0 to 255" in capsys.readouterr().err


@pytest.mark.skipif(not TEST_WAD.is_file(), reason="the kingsisle-real corpus is missing")
def test_pack_gives_test_wad_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "wad", "extract", str(TEST_WAD), "-o", str(tmp_path / "t"))[0] == 0
    target = tmp_path / "Test.wad"
    assert run(capsys, "wad", "pack", str(tmp_path / "t"), "-o", str(target),
               "--wad-version", "1")[0] == 0
    assert target.read_bytes() == TEST_WAD.read_bytes()


def test_errors_are_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              root_wad: Path) -> None:
    evil = tmp_path / "evil.wad"
    evil.write_bytes(archive([(b"../../escape.txt", b"x", False)]))
    code, out, err = run(capsys, "wad", "extract", str(evil), "-o", str(tmp_path / "o"))
    assert code == 1 and out == ""
    assert err == (f"gameserde: {evil}: kiwad decode error at byte 52 (0x34) in "
                   '$["../../escape.txt"]: refusing to extract it: its name has a part '
                   "'..'\n")
    assert not (tmp_path / "escape.txt").exists()
    damaged = tmp_path / "damaged.wad"
    damaged.write_bytes(root_wad.read_bytes()[:-10])
    code, _, err = run(capsys, "wad", "list", str(damaged))
    assert code == 1 and "run past the end" in err and "Traceback" not in err
    code, _, err = run(capsys, "wad", "list", str(tmp_path / "missing.wad"))
    assert code == 2 and "No such file" in err
    code, _, err = run(capsys, "wad", "pack", str(tmp_path), "-o", str(tmp_path / "no" / "x.wad"))
    assert (code, err) == (2, f"gameserde: {tmp_path / 'no' / 'x.wad'}: No such file or "
                              "directory\n")
    code, _, err = run(capsys, "wad", "list", str(root_wad), "nothing*")
    assert code == 2 and err == "gameserde: no member matches nothing*\n"
    with pytest.raises(SystemExit) as e:
        main(["wad", "extract", str(root_wad)])
    assert e.value.code == 2 and "-o/--output" in capsys.readouterr().err


def test_crc_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(archive([(b"a.txt", b"hello", False)]))
    data[-1] ^= 1
    bad = tmp_path / "bad.wad"
    bad.write_bytes(bytes(data))
    code, _, err = run(capsys, "wad", "extract", str(bad), "-o", str(tmp_path / "o"))
    assert code == 1 and "CRC" in err
    code, _, err = run(capsys, "wad", "extract", str(bad), "-o", str(tmp_path / "o"),
                       "--no-check-crc")
    assert code == 0 and "CRC" in err and (tmp_path / "o" / "a.txt").read_bytes() == b"helln"


def test_help_is_complete_and_imports_no_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "wad       list, extract or pack KingsIsle KIWAD archives" in capsys.readouterr().out
    for command in ("list", "extract", "pack"):
        with pytest.raises(SystemExit):
            main(["wad", command, "--help"])
        assert "usage: gameserde wad " + command in capsys.readouterr().out
    assert imported_formats("wad", "--help") == set()
    assert imported_formats("wad", "list", "--help") == set()


def test_an_archive_is_a_batch_of_its_members(capsys: pytest.CaptureFixture[str],
                                              root_wad: Path) -> None:
    code, out, err = run(capsys, "decode", "kingsisle", "-s", TYPES, str(root_wad), "-j", "1")
    assert code == 1
    lines = {(d := json.loads(line))["key"]: d for line in out.splitlines()}
    key = f"{root_wad}/items/a.bin"
    assert list(lines) == [key, f"{root_wad}/items/b.bin", f"{root_wad}/music/theme.mp3",
                           f"{root_wad}/notes/readme.txt"]
    assert lines[key]["value"]["m_objectName"] == "Staff_Storm_T3"
    assert "error" in lines[f"{root_wad}/notes/readme.txt"]
    assert "4 inputs" in err and "2 ok, 2 failed" in err


def test_batch_members_in_a_folder(tmp_path: Path, root_wad: Path) -> None:
    (tmp_path / "loose.bin").write_bytes(ITEM)
    (tmp_path / "doom.wad").write_bytes(b"IWAD" + bytes(8))  # not KingsIsle's: a plain file
    keys = [item.key for item in items([tmp_path])]
    assert keys == ["Root.wad/items/a.bin", "Root.wad/items/b.bin", "Root.wad/music/theme.mp3",
                    "Root.wad/notes/readme.txt", "doom.wad", "loose.bin"]
    summary = batch_run("decode", [tmp_path], "kingsisle", schema=TYPES,
                        out_dir=tmp_path / "json")
    assert summary.ok == 3
    assert json.loads((tmp_path / "json" / "Root.wad" / "items" / "b.bin.json")
                      .read_text())["m_templateID"] == 1205


def test_batch_damaged_archives_and_members(tmp_path: Path) -> None:
    (tmp_path / "torn.wad").write_bytes(b"KIWAD\2\0\0\0\5\0\0\0\0")
    data = bytearray(archive([(b"ok.bin", ITEM, False), (b"../up.bin", ITEM, False),
                              (b"crc.bin", ITEM, False)]))
    data[-1] ^= 1  # crc.bin's data comes last
    (tmp_path / "some.wad").write_bytes(bytes(data))
    summary = batch_run("verify", [tmp_path], "kingsisle", schema=TYPES, executor=None)
    failed = {f.key: f.message for f in summary.failures}
    assert summary.ok == 1 and set(failed) == {"some.wad/../up.bin", "some.wad/crc.bin",
                                               "torn.wad"}
    assert "its name has a part '..'" in failed["some.wad/../up.bin"]
    assert "CRC" in failed["some.wad/crc.bin"] and "hold at most" in failed["torn.wad"]
