"""The byte map of binary resource files (gameserde.godot.resource.inspect): every byte of
every binary file of the real-world corpus in exactly one row, in order; mutated and cut
files mapped up to their error, which is the reader's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde.cli import main
from gameserde.errors import DecodeError
from gameserde.godot.resource import binary, compressed, files
from gameserde.godot.resource.inspect import regions
from tests.conformance.corpus import corpus_dir, require

CORPUS = corpus_dir("godot-real")


def _cases() -> list[Path]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    cases = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return [CORPUS / c["case"] / c["file"] for c in cases if c["kind"] in ("res", "scn")]


CASES = _cases()


def _tiles(mapped: Any) -> None:
    """The rows cover the bytes whole, in order, with no overlap."""
    at = 0
    for row in mapped.rows:
        assert row.offset == at, (row, at)
        assert row.size > 0 or row.type == "Nil", row
        at = row.offset + row.size
    assert at == len(mapped.data)


def test_the_corpus_is_there() -> None:
    require(CORPUS, "the godot-real corpus")
    assert len(CASES) >= 90


@pytest.mark.parametrize("path", CASES, ids=[p.parent.name for p in CASES])
def test_every_corpus_file_is_mapped_whole(path: Path) -> None:
    data = path.read_bytes()
    mapped = regions(data)
    assert mapped.error is None, mapped.error
    _tiles(mapped)
    if compressed.is_compressed(data):
        assert mapped.data == compressed.decompress(data)[0]
        assert mapped.notes and "uncompressed stream" in mapped.notes[0]
    paths = {r.path for r in mapped.rows}
    file = files.read(data)
    assert {"$.type", "$.strings", "$.internal", "$.tail"} <= paths
    for i, res in enumerate(binary.read(data).resources):
        assert {f"$[{i}].{name}" for name in res.properties} <= paths
    assert file.type in {r.note.strip("'") for r in mapped.rows if r.path == "$.type"}


def _sample() -> bytes:
    return files.write(files.read(
        b'[gd_resource type="Resource" format=3]\n\n[resource]\n'
        b'units = [{"id": 1, "pos": Vector2(1, 2)}, "two", [3.5, null]]\nname = "x"\n'),
        "binary")


def test_nested_values_have_their_own_rows() -> None:
    mapped = regions(_sample())
    _tiles(mapped)
    rows = {(r.path, r.type): r.note for r in mapped.rows}
    assert rows[("$[0].units", "Array")] in ("header", "3 elements")
    assert rows[('$[0].units[0]["pos"]', "Vector2")] == "Vector2(x=1.0, y=2.0)"
    assert rows[("$[0].units[2][1]", "Nil")] == "None"
    assert rows[("$[0].name", "String")] == "'x'"


def test_damaged_files_are_mapped_up_to_the_readers_error() -> None:
    data = _sample()
    for cut in range(0, len(data), 7):
        damaged = data[:cut]
        mapped = regions(damaged)
        with pytest.raises(DecodeError) as caught:
            binary.read(damaged)
        assert mapped.error is not None and mapped.error.message == caught.value.message
        assert mapped.rows[-1].type == "ERROR"
        assert mapped.rows[-1].offset == min(caught.value.offset or 0, len(damaged))
    flipped = bytearray(data)
    for i in range(len(flipped)):
        flipped[i] ^= 0xFF
        mapped = regions(bytes(flipped))
        try:
            binary.read(bytes(flipped))
        except DecodeError as e:
            assert mapped.error is not None and mapped.error.message == e.message
        else:
            assert mapped.error is None
        flipped[i] ^= 0xFF


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "save.res").write_bytes(_sample())
    assert main(["inspect", "godot", str(tmp_path / "save.res")]) == 0
    out = capsys.readouterr().out
    assert "$.strings" in out and '$[0].units[0]["pos"]' in out
    assert main(["inspect", "godot", "--as", "json", str(tmp_path / "save.res")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"] is None and doc["size"] == len(_sample())
    (tmp_path / "bad.res").write_bytes(_sample()[:60])
    assert main(["inspect", "godot", str(tmp_path / "bad.res")]) == 1
    captured = capsys.readouterr()
    assert "ERROR" in captured.out and "Traceback" not in captured.err
    assert gameserde.codec("godot").inspect(_sample()).render().startswith("offset")
