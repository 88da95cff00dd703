"""Every file of the real-world Godot corpus (``../shared/corpus/godot-real``: 276 resources
and scenes, binary and text, Godot 2.0 to 4.7) through ``gameserde.godot.resource``'s one
read and write, whichever its form:

* read, then written back: the same bytes (an ``RSCC`` file: the same decompressed stream);
* a scene's tree is the same whether it comes from a binary ``_bundled`` or text sections
  (the tests of :mod:`.scene` check it in depth);
* as JSON (both Variant views) and back: the same bytes;
* converted to the other form and back (in memory, each form's kept data travelling
  along): the same bytes again, text to binary to text and binary to text to binary. Two
  save games hold inline ``Object(...)`` values, which the binary form cannot hold (the
  engine writes null in their place): converting them is an EncodeError that says so.

Without the corpus these tests are skipped, or fail when ``CI=true``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gameserde.errors import EncodeError
from gameserde.godot import resource
from gameserde.godot.resource import compressed, jsonview
from tests.conformance.corpus import corpus_dir, require

CORPUS = corpus_dir("godot-real")
INLINE_OBJECTS = {"save-drawtile3d__save_tres", "save-material-painter__save_tres"}


def _cases() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    cases: list[dict[str, Any]] = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return cases


CASES = _cases()


def _stream(data: bytes) -> bytes:
    return compressed.decompress(data)[0] if compressed.is_compressed(data) else data


def test_corpus_is_there() -> None:
    require(CORPUS, "godot-real")
    assert len(CASES) == 276
    assert {c["case"] for c in CASES} >= INLINE_OBJECTS


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_read_write_and_convert_back(case: dict[str, Any]) -> None:
    data = (CORPUS / case["case"] / case["file"]).read_bytes()
    file = resource.read(data)
    assert file.form == ("binary" if case["kind"] in ("res", "scn") else "text")
    assert (file.scene is not None) == (file.type == "PackedScene")
    assert _stream(resource.write(file)) == _stream(data)
    for mode in ("native", "plain"):
        doc = json.loads(json.dumps(jsonview.to_jsonable(file, mode=mode), ensure_ascii=False))
        assert _stream(resource.write(jsonview.from_jsonable(doc))) == _stream(data), mode
    other = "text" if file.form == "binary" else "binary"
    if case["case"] in INLINE_OBJECTS:
        with pytest.raises(EncodeError, match="inline Object"):
            resource.write(resource.convert(file, other))
        return
    there = resource.convert(file, other)
    assert there.form == other and resource.read(resource.write(there)).type == file.type
    assert _stream(resource.write(resource.convert(there, file.form))) == _stream(data)
