"""The binary resources of the real-world Godot corpus (``../shared/corpus/godot-real``):
every case of kind ``res`` or ``scn`` in its ``manifest.json``.

* Each file reads, and what it says of itself matches the corpus's ``meta.json`` (type,
  engine version, format, flags, UID, script class, external resources, number of internal
  resources, RSCC container layout).
* Written back, an ``RSRC`` file is identical byte for byte; an ``RSCC`` file has the same
  container layout (mode, block size, uncompressed size, block count) and the same
  decompressed stream (recompressed bytes depend on the zstd build, not on Godot).
* Godot 2's files (format 1) are compressed with FastLZ; they read too (their import
  metadata kept as bytes), and are written back with FastLZ literal runs: same layout, same
  stream.

Without the corpus these tests are skipped, or fail when ``CI=true``.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

import pytest

from gameserde.godot.resource import binary, compressed
from tests.conformance.corpus import corpus_dir, require

CORPUS = corpus_dir("godot-real")


def _binary_cases() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    cases = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if c["kind"] in ("res", "scn")]


CASES = _binary_cases()


def _data(case: dict[str, Any]) -> bytes:
    return (CORPUS / case["case"] / case["file"]).read_bytes()


def _fastlz(case: dict[str, Any]) -> bool:
    rscc = case["binary"].get("rscc")
    return rscc is not None and rscc["compression_mode"] == compressed.MODE_FASTLZ


def test_corpus_is_there() -> None:
    """The corpus is present (or the run is allowed to skip) and holds binary cases, Godot 2's
    FastLZ ones among them."""
    require(CORPUS, "godot-real")
    assert len(CASES) >= 90
    assert sum(_fastlz(c) for c in CASES) == 6


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_binary_case(case: dict[str, Any]) -> None:
    data = _data(case)
    meta = case["binary"]
    f = binary.read(data)
    assert f.form == "binary"
    assert f.type == meta["type"]
    assert f.engine == (meta["ver_major"], meta["ver_minor"])
    assert f.format == meta["ver_format"]
    assert len(f.kept["strings"]) == meta["string_table"]
    assert len(f.resources) == meta["internal_resources"]
    assert sorted({r.type for r in f.resources}) == sorted(meta["internal_types"])
    assert [(e.type, e.path) for e in f.external] == [
        (e["type"], e["path"]) for e in meta["ext_resources"]]
    assert [e.id for e in f.external] == [str(i + 1) for i in range(len(f.external))]
    if meta["ver_format"] >= 4:
        assert f.kept["flags"] == meta["flags"]
        assert f.script_class == meta.get("script_class")
        expected_uid = None if meta["uid"] == binary.NO_UID else binary.id_to_text(meta["uid"])
        assert f.uid == expected_uid
        assert [e.uid for e in f.external] == [
            None if e["uid"] == binary.NO_UID else binary.id_to_text(e["uid"])
            for e in meta["ext_resources"]]
    if _fastlz(case):
        assert f.format == 1
        assert len(f.kept["import_metadata"]) > 0
    if case["kind"] == "scn":
        assert isinstance(f.main.properties["_bundled"], dict)
        assert f.scene is None

    out = binary.write(f)
    rscc = meta.get("rscc")
    if rscc is None:
        assert out == data
        return
    stream, _ = compressed.decompress(data)
    again, layout = compressed.decompress(out)
    assert again == stream
    assert (layout.mode, layout.block_size, layout.size, len(layout.block_sizes)) == (
        rscc["compression_mode"], rscc["block_size"], rscc["uncompressed_size"],
        rscc["blocks"])
    assert binary.read(out).resources == f.resources


def test_uids_are_the_ones_text_files_give() -> None:
    """A binary file's UID, as text, is the ``uid="uid://..."`` that text files of the same
    project (and corpus source) give it in their ``[ext_resource]`` lines."""
    require(CORPUS, "godot-real")
    cases = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["cases"]

    def res_path(case: dict[str, Any]) -> tuple[str, str, str]:
        project = posixpath.dirname(case["project_godot"]["path"])
        return (case["case"].split("__")[0], project,
                "res://" + posixpath.relpath(case["source_path"], project or "."))

    by_path = {res_path(c): binary.read(_data(c)).uid for c in CASES
               if c.get("project_godot") and c["binary"].get("ver_format", 0) >= 4}
    checked = 0
    for case in cases:
        if case["kind"] not in ("tscn", "tres") or not case.get("project_godot"):
            continue
        source, project, _ = res_path(case)
        text = (CORPUS / case["case"] / case["file"]).read_text(encoding="utf-8")
        for uid, path in re.findall(r'\[ext_resource[^\]]* uid="(uid://\w+)" path="([^"]+)"',
                                    text):
            if (source, project, path) in by_path:
                assert by_path[(source, project, path)] == uid, (case["case"], path)
                checked += 1
    assert checked >= 4
