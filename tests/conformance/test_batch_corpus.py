"""Batches over a generated corpus of the five formats: every record a batch writes is what
the single-file codec gives.

``scripts/make_batch_corpus.py`` writes the corpus once per test session (over 10,000 small
files in nested folders, a large input of 2 MiB per set and damaged files of known kinds),
with the schemas of the shared corpora (``../shared/corpus``; without them these tests are
skipped, or fail when ``CI=true``). Each set of the corpus (a format with one codec's options)
is checked on a process pool of two workers, shared by the tests so that each worker builds
its codecs once:

* decode to JSON Lines and to a mirror tree in one run: each valid file's line is exactly
  ``{"key": KEY, "value": TEXT}`` where TEXT is ``codec.to_json(data)`` (the compact form),
  and its mirrored file holds TEXT; each damaged file is a failure with its key, the byte
  offset, path and message of the single-file error, and has no mirrored file;
* verify: the counts (inputs, bytes, ok, failed) and the failures' keys;
* convert with the written side's other options (``to`` in the manifest) to a mirror tree:
  each file's bytes are those of the single-file convert; convert with the read side's own
  options gives every valid file's bytes back (the corpus holds what the encoders write, for
  which a convert is an identity);
* the command line on one set: exit status 1, one line per failure and the summary.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde import batch
from gameserde.cli import main
from gameserde.errors import GameserdeError
from gameserde.formats import FORMATS, format_info
from tests.conformance.corpus import corpus_dir, require

ROOT = Path(__file__).resolve().parents[2]
PER_FORMAT = 2000
LARGE = 2 << 20
CORRUPT = 6
SEED = 20


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "make_batch_corpus", ROOT / "scripts" / "make_batch_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class CorpusSet:
    """One set of the corpus: its manifest entry, its folder, and the single-file codecs."""

    def __init__(self, root: Path, entry: dict[str, Any]) -> None:
        self.entry = entry
        self.name: str = entry["name"]
        self.format: str = entry["format"]
        self.dir = root / entry["dir"]
        self.options: dict[str, Any] = entry["options"]
        self.to: dict[str, Any] = entry["to"]
        self.files: list[str] = entry["files"]
        self.corrupt: dict[str, dict[str, Any]] = entry["corrupt"]
        self._codecs: dict[tuple[str, bool], gameserde.Codec] = {}

    def codec(self, key: str, *, written: bool = False) -> gameserde.Codec:
        """The single-file codec of ``key`` (the written side's with ``written``); a format
        that reads by file kind gets the key's extension, as the command line gives it."""
        suffix = Path(key).suffix if format_info(self.format).takes_source else ""
        made = self._codecs.get((suffix, written))
        if made is None:
            options = {**self.options, **(self.to if written else {})}
            if suffix:
                options["source"] = "input" + suffix
            made = self._codecs[(suffix, written)] = gameserde.codec(self.format, **options)
        return made

    def data(self, key: str) -> bytes:
        return (self.dir / key).read_bytes()

    def run(self, pool: ProcessPoolExecutor, action: str, **kwargs: Any) -> batch.Summary:
        return batch.run(action, [self.dir], self.format, executor=pool, **self.options,
                         **kwargs)

    def single_failure(self, key: str) -> dict[str, Any]:
        """What the single-file decode says of the damaged file ``key``."""
        try:
            self.codec(key).to_json(self.data(key))
        except GameserdeError as e:
            return {"error": str(e), "offset": getattr(e, "offset", None),
                    "path": getattr(e, "path", None)}
        raise AssertionError(f"{self.name}: {key} ({self.corrupt[key]}) decoded")


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CorpusSet]:
    """The corpus, made once for the whole session (pytest-xdist's workers share it: the
    first makes it under a lock, the others wait and read its manifest)."""
    for name in ("flatbuffers-real", "zeze-real", "kingsisle-real"):
        require(corpus_dir(name), name)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if re.fullmatch(r"popen-gw\d+", base.name) else base
    root = shared / f"batch-corpus-{SEED}"
    root.mkdir(exist_ok=True)
    with open(shared / f"batch-corpus-{SEED}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest_path = root / "manifest.json"
        if manifest_path.exists():
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        else:
            manifest = GENERATOR.make_corpus(root, per_format=PER_FORMAT, large=LARGE,
                                                corrupt=CORRUPT, seed=SEED)
    return {entry["name"]: CorpusSet(root, entry) for entry in manifest["sets"]}


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    """Two worker processes for every batch of this module (they keep the codecs they
    build)."""
    with ProcessPoolExecutor(max_workers=2) as executor:
        yield executor


GENERATOR = _generator()
SETS = [name for name, _, _ in GENERATOR._SETS]


def test_the_corpus_is_large_and_varied(corpus: dict[str, CorpusSet]) -> None:
    files = sum(len(s.files) for s in corpus.values())
    assert files >= 10_000
    assert {s.format for s in corpus.values()} == set(FORMATS)
    for s in corpus.values():
        found = sorted(p.relative_to(s.dir).as_posix() for p in s.dir.rglob("*") if p.is_file())
        assert found == sorted([*s.files, *s.corrupt]), s.name
        assert max(key.count("/") for key in s.files) >= 3  # nested folders
        assert {how["kind"] for how in s.corrupt.values()} == {"truncated", "bad bytes"}
    large = [s.dir / key for s in corpus.values() for key in s.entry["large"]]
    assert {s.format for s in corpus.values() if s.entry["large"]} == set(FORMATS)
    assert all(path.stat().st_size >= LARGE // 2 for path in large)


@pytest.mark.parametrize("name", SETS)
def test_decode_to_json_lines_and_a_mirror_tree(name: str, corpus: dict[str, CorpusSet],
                                                pool: ProcessPoolExecutor,
                                                tmp_path: Path) -> None:
    s = corpus[name]
    jsonl, tree = tmp_path / "out.jsonl", tmp_path / "tree"
    summary = s.run(pool, "decode", jsonl=jsonl, out_dir=tree)
    assert (summary.inputs, summary.ok, summary.failed, summary.noted) == (
        len(s.files) + len(s.corrupt), len(s.files), len(s.corrupt), 0)
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    assert len(lines) == summary.inputs
    keys = [json.loads(line[:line.index(',"')] + "}")["key"] for line in lines]
    assert sorted(keys) == sorted([*s.files, *s.corrupt])
    by_key = dict(zip(keys, lines, strict=True))
    for key in s.files:
        text = s.codec(key).to_json(s.data(key)).rstrip("\n")
        assert by_key[key] == f'{{"key":{json.dumps(key)},"value":{text}}}', key
        assert (tree / (key + ".json")).read_text(encoding="utf-8") == text, key
    failures = {f.key: f for f in summary.failures}
    assert sorted(failures) == sorted(s.corrupt)
    for key, how in s.corrupt.items():
        expected = s.single_failure(key)
        assert json.loads(by_key[key]) == {"key": key, **expected}
        failure = failures[key]
        assert (failure.message, failure.offset, failure.path) == (
            expected["error"], expected["offset"], expected["path"])
        assert failure.message.startswith(f"{s.format} decode error at byte ")
        assert failure.offset is not None and 0 <= failure.offset <= len(s.data(key)), how
        assert not (tree / (key + ".json")).exists()
    written = [p for p in tree.rglob("*") if p.is_file()]
    assert len(written) == len(s.files)


@pytest.mark.parametrize("name", SETS)
def test_verify_counts(name: str, corpus: dict[str, CorpusSet],
                       pool: ProcessPoolExecutor) -> None:
    s = corpus[name]
    summary = s.run(pool, "verify")
    sizes = [len(s.data(key)) for key in [*s.files, *s.corrupt]]
    assert (summary.inputs, summary.bytes, summary.ok, summary.failed) == (
        len(sizes), sum(sizes), len(s.files), len(s.corrupt))
    assert sorted(f.key for f in summary.failures) == sorted(s.corrupt)
    assert not summary.stopped


@pytest.mark.parametrize("name", SETS)
def test_convert_mirror_trees(name: str, corpus: dict[str, CorpusSet],
                              pool: ProcessPoolExecutor, tmp_path: Path) -> None:
    s = corpus[name]
    if s.to:  # the written side's other options: the single-file convert's bytes
        there = s.run(pool, "convert", to=s.to, out_dir=tmp_path / "there")
        assert (there.ok, there.failed) == (len(s.files), len(s.corrupt))
        for key in s.files:
            expected = s.codec(key).convert(s.data(key), s.codec(key, written=True))
            assert (tmp_path / "there" / key).read_bytes() == expected, key
    # The read side's own options: every valid file as it is. The corpus holds what the
    # encoders write (FlatBuffers: the layout flatc -b gives its JSON, which its convert
    # writes), so this convert is an identity and the single-file convert need not be run.
    same = s.run(pool, "convert", out_dir=tmp_path / "same")
    assert (same.ok, same.failed) == (len(s.files), len(s.corrupt))
    for key in s.files:
        assert (tmp_path / "same" / key).read_bytes() == s.data(key), key
    for key in s.corrupt:
        assert not (tmp_path / "same" / key).exists()
    written = [p for p in (tmp_path / "same").rglob("*") if p.is_file()]
    assert len(written) == len(s.files)


def _flags(options: dict[str, Any]) -> list[str]:
    """The command line's flags for codec ``options``."""
    out = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            out.append(flag)
        else:
            for item in value if isinstance(value, list) else [value]:
                out += [flag, str(item)]
    return out


def test_the_command_line_reports_failures_and_sums_up(corpus: dict[str, CorpusSet],
                                                       tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    s = corpus["kingsisle"]
    jsonl = tmp_path / "out.jsonl"
    status = main(["decode", s.format, *_flags(s.options), "-r", str(s.dir), "--jsonl",
                   str(jsonl), "-j", "2"])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    *failed, summary = err.splitlines()
    total = len(s.files) + len(s.corrupt)
    size = sum(len(s.data(key)) for key in [*s.files, *s.corrupt])
    assert re.fullmatch(rf"gameserde: {total} inputs, {size} bytes in \d+\.\d\d s: "
                        rf"{len(s.files)} ok, {len(s.corrupt)} failed, 0 with notes", summary)
    assert sorted(failed) == sorted(f"gameserde: {key}: {s.single_failure(key)['error']}"
                                    for key in s.corrupt)
    lines = {json.loads(line)["key"]: line for line in jsonl.read_text().splitlines()}
    assert len(lines) == total
    for key in s.files:
        text = s.codec(key).to_json(s.data(key)).rstrip("\n")
        assert lines[key] == f'{{"key":{json.dumps(key)},"value":{text}}}'
