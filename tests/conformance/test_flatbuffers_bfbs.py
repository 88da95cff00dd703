"""Binary schemas (``.bfbs``) of the real-world FlatBuffers corpus, against flatc 25.12.19.

For every schema of the corpus (each case's, and the ``parse_only`` schemas flatc accepts):

* write: ``to_bfbs`` gives the bytes of ``flatc -b --schema`` with each combination of
  ``--bfbs-comments`` and ``--bfbs-builtins``, and with ``--bfbs-filenames``;
* read: ``load_schema`` of flatc's ``.bfbs`` gives the model of the ``.fbs`` (what a ``.bfbs``
  stores of it, :func:`tests.flatbuffers.bfbs_tool.stored`), which writes the same bytes back;
* use: every corpus buffer decodes, prints, re-encodes, verifies and annotates the same with
  the schema loaded from flatc's ``.bfbs --bfbs-builtins`` as with the ``.fbs``;
* the corpus's own ``.bfbs`` files load; the two flatc 25.12.19 made (Arrow, TFLite) and four
  of the five checked into the FlatBuffers repository (the fifth is an older flatc's) are
  written again byte for byte from their ``.fbs`` without flatc.

flatc runs once per folder and option set (all the folder's schemas in one run, named bare
from that folder, as flatc then writes no declaration files), about 130 runs in all.
"""

from __future__ import annotations

import functools
import gzip
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import FbsSchema, load_schema
from gameserde.flatbuffers.inspect import annotate
from tests.conformance.corpus import case_names, corpus_dir, require
from tests.flatbuffers.bfbs_tool import FLAGS, assert_same_model, flatc_bfbs
from tests.flatbuffers.flatc_tool import flatc

CORPUS = corpus_dir("flatbuffers-real")

Key = tuple[Path, tuple[Path, ...]]  # a schema file and its include paths


@pytest.fixture(autouse=True)
def _corpus_present() -> None:
    require(CORPUS, "FlatBuffers")


@functools.cache
def schemas() -> list[Key]:
    """Every distinct corpus schema flatc accepts, with its include paths (absolute)."""
    found: dict[Key, None] = {}
    for name in case_names(CORPUS):
        if name == "parse_only":
            continue
        meta = json.loads((CORPUS / name / "meta.json").read_text())
        found[(CORPUS / name / meta["schema"]).resolve(),
              tuple((CORPUS / name / p).resolve() for p in meta["include_paths"])] = None
    only = CORPUS / "parse_only"
    if (only / "meta.json").is_file():
        for entry in json.loads((only / "meta.json").read_text())["entries"]:
            if entry["flatc_b_rc"] == 0:
                found[(only / entry["file"]).resolve(),
                      tuple((only / p).resolve() for p in entry["include_paths"])] = None
    return list(found)


@functools.cache
def fbs(key: Key) -> FbsSchema:
    return load_schema(key[0], list(key[1]))


@functools.cache
def oracle(options: tuple[str, ...], filenames: bool = False) -> dict[Key, bytes]:
    """flatc's ``.bfbs`` of every schema, one flatc run per folder and include paths
    (``filenames``: ``--bfbs-filenames`` the schema's parent folder)."""
    exe = flatc()
    groups: dict[tuple[Path, tuple[Path, ...]], list[Path]] = defaultdict(list)
    for path, include in schemas():
        groups[path.parent, include].append(path)
    out: dict[Key, bytes] = {}
    for (folder, include), paths in groups.items():
        extra = ("--bfbs-filenames", str(folder.parent)) if filenames else ()
        with tempfile.TemporaryDirectory() as written:  # never into the corpus
            got = flatc_bfbs(exe, folder, [p.name for p in paths], (*options, *extra),
                             include, Path(written))
        out.update(((p, include), got[p.name]) for p in paths)
    return out


def _ids(flags: tuple[bool, bool]) -> str:
    return "+".join(o[7:] for o in FLAGS[flags]) or "plain"


@pytest.mark.parametrize("flags", FLAGS, ids=_ids)
def test_to_bfbs_is_flatcs(flags: tuple[bool, bool]) -> None:
    comments, builtins = flags
    want = oracle(FLAGS[flags])
    differ = [str(k[0]) for k in schemas()
              if fbs(k).to_bfbs(comments=comments, builtins=builtins) != want[k]]
    assert not differ
    assert len(want) == len(schemas()) > 90


@pytest.mark.parametrize("flags", [(False, False), (True, True)], ids=_ids)
def test_to_bfbs_with_filenames_is_flatcs(flags: tuple[bool, bool]) -> None:
    comments, builtins = flags
    want = oracle(FLAGS[flags], filenames=True)
    differ = [str(k[0]) for k in schemas()
              if fbs(k).to_bfbs(comments=comments, builtins=builtins,
                                filenames=k[0].parent.parent) != want[k]]
    assert not differ


@pytest.mark.parametrize("flags", FLAGS, ids=_ids)
def test_flatcs_bfbs_loads_as_the_fbs(flags: tuple[bool, bool]) -> None:
    comments, builtins = flags
    for key, data in oracle(FLAGS[flags]).items():
        loaded = load_schema(data)
        assert_same_model(fbs(key), loaded, comments=comments, builtins=builtins)
        assert loaded.to_bfbs(comments=comments, builtins=builtins) == data, key[0]


def _cases_with_buffers() -> list[str]:
    names = []
    for name in case_names(CORPUS):
        meta = json.loads((CORPUS / name / "meta.json").read_text()) if name != "parse_only" \
            else {}
        if meta.get("buf"):
            names.append(name)
    return names or ["(no corpus)"]


def _run(schema: FbsSchema, what: str, buf: bytes, opts: dict[str, Any]) -> Any:
    try:
        if what == "json":
            return schema.to_json(buf, **opts)
        if what == "decode":
            return repr(schema.decode(buf, defaults=True, **opts))
        if what == "verify":
            return schema.verify(buf, **opts)
        if what == "annotate":
            return annotate(schema, buf, schema_file="", **opts)
        return schema.encode(schema.decode(buf, **opts), opts["root_type"])
    except (DecodeError, EncodeError) as exc:
        return (type(exc).__name__, str(exc))


def test_corpus_buffers_read_the_same_with_the_bfbs() -> None:
    builtins = oracle(FLAGS[False, True])
    checked = 0
    for name in _cases_with_buffers():
        meta = json.loads((CORPUS / name / "meta.json").read_text())
        key = ((CORPUS / name / meta["schema"]).resolve(),
               tuple((CORPUS / name / p).resolve() for p in meta["include_paths"]))
        stored = (CORPUS / name / meta["buf"]).read_bytes()
        buf = gzip.decompress(stored) if meta["buf"].endswith(".gz") else stored
        if len(buf) > 1 << 20:  # the 2.4 MB model: the same code paths, 10 s of JSON
            continue
        from_bfbs = _loaded(builtins[key])
        opts = {"root_type": meta["root_type"], "size_prefixed": meta["size_prefixed"]}
        small = len(buf) < 1 << 15  # annotating is slow: the small ones cover its paths
        for what in ("json", "decode", "encode", "verify", *(("annotate",) if small else ())):
            assert _run(from_bfbs, what, buf, opts) == _run(fbs(key), what, buf, opts), \
                (name, what)
            checked += 1
    assert checked > 400


@functools.cache
def _loaded(data: bytes) -> FbsSchema:
    return load_schema(data)


@pytest.mark.parametrize(("case", "fbs_path"), [
    ("bfbs_arrow_message", "parse_only/arrow/format/Message.fbs"),
    ("bfbs_tflite_schema", "parse_only/tflite-micro/tensorflow/compiler/mlir/lite/schema/"
                           "schema.fbs"),
])
def test_the_corpus_bfbs_is_written_again(case: str, fbs_path: str) -> None:
    data = (CORPUS / case / "buf.bin").read_bytes()
    assert load_schema(CORPUS / fbs_path).to_bfbs(comments=True, builtins=True) == data
    assert load_schema(data).to_bfbs(comments=True, builtins=True) == data


@pytest.mark.parametrize("case", [n for n in case_names(CORPUS)
                                  if n.startswith("fb_bfbs_") and "_trunc_" not in n]
                         or ["(no corpus)"])
def test_checked_in_bfbs_load(case: str) -> None:
    data = (CORPUS / case / "buf.bin").read_bytes()
    schema = load_schema(data)
    assert schema.root is not None and schema.types
    schema.to_bfbs(comments=True, builtins=True)


@pytest.mark.parametrize(("case", "fbs_case", "comments", "builtins"), [
    ("fb_bfbs_monster_test", "fb_monsterdata_test", True, True),
    ("fb_bfbs_arrays_test", "fb_json_arrays_test", False, False),
    ("fb_bfbs_samples_monster", "fb_json_samples_monster", False, True),
    ("fb_bfbs_test_64bit", "fb_64bit", False, False),
])
def test_checked_in_bfbs_are_written_again(case: str, fbs_case: str, comments: bool,
                                           builtins: bool) -> None:
    """The FlatBuffers repository's own .bfbs files (flatc run with the schema's folder:
    declaration files named from it), but for annotated_binary.bfbs, which an older flatc
    wrote (it marks struct fields optional)."""
    data = (CORPUS / case / "buf.bin").read_bytes()
    meta = json.loads((CORPUS / fbs_case / "meta.json").read_text())
    path = CORPUS / fbs_case / meta["schema"]
    schema = load_schema(path, [CORPUS / fbs_case / p for p in meta["include_paths"]])
    assert schema.to_bfbs(comments=comments, builtins=builtins, filenames=path.parent) == data
    # declaration files already named //PATH are kept as they are
    assert load_schema(data).to_bfbs(comments=comments, builtins=builtins,
                                     filenames=path.parent) == data
