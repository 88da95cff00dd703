"""Batches over a generated corpus of the five formats: every record a batch writes is what
the single-file codec gives.

``scripts/make_batch_corpus.py`` writes the corpus once per test session (10,000 small files
in nested folders, a large input of about 2 MiB per set and damaged files of known kinds),
with the schemas of the shared corpora (``../shared/corpus``; without them these tests are
skipped, or fail when ``CI=true``). Each set of the corpus (a format with one codec's options)
is checked on a process pool of two workers, shared by the tests so that each worker builds
its codecs once:

* decode to JSON Lines, a mirror tree and a Parquet dataset in one run: each valid file's line
  is exactly ``{"key": KEY, "value": TEXT}`` where TEXT is ``codec.to_json(data)`` (the compact
  form), and its mirrored file holds TEXT; each damaged file is a failure with its key, the
  byte offset, path and message of the single-file error, and has neither a file nor a row;
  the dataset read back with pyarrow holds each valid file's row as the table pyarrow builds
  from the single-file ``codec.to_row`` (same types, same values), and read with pyarrow and
  DuckDB, columns of each kind (uint64 above 2**63, float32, enums by name, unions as tagged
  structs, maps, bytes, Godot's JSON) hold what the single-file JSON says; the same batch on
  a Dask ``LocalCluster`` of two workers writes the same JSON Lines and Parquet files, byte
  for byte, with the same summary;
* verify: the counts (inputs, bytes, ok, failed) and the failures' keys;
* convert with the written side's other options (``to`` in the manifest) to a mirror tree:
  each file's bytes are those of the single-file convert, and that tree converted back
  (``back``) holds every valid file's bytes; convert with the read side's own options gives
  every valid file's bytes back (the corpus holds what the encoders write, for which a
  convert is an identity);
* the command line on one set: exit status 1, one line per failure and the summary, JSON Lines
  and a Parquet dataset, and the same with ``--dask local``.
"""

from __future__ import annotations

import base64
import fcntl
import functools
import importlib.util
import json
import logging
import math
import re
import struct
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster

import gameserde
from gameserde import batch
from gameserde.batch.parquet import table_name, table_of
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
    """``scripts/make_batch_corpus.py`` as a module."""
    spec = importlib.util.spec_from_file_location(
        "make_batch_corpus", ROOT / "scripts" / "make_batch_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
SETS = [name for name, _, _ in GENERATOR._SETS]


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

    def run(self, executor: ProcessPoolExecutor | Client, action: str,
            **kwargs: Any) -> batch.Summary:
        """``action`` as a batch over the set's folder, on ``executor``."""
        return batch.run(action, [self.dir], self.format, executor=executor, **self.options,
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


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A Dask cluster of two worker processes, started for these tests."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as made:
        yield made


def test_the_corpus_is_large_and_varied(corpus: dict[str, CorpusSet]) -> None:
    small = sum(len(s.files) - len(s.entry["large"]) for s in corpus.values())
    assert small >= 10_000
    assert {s.format for s in corpus.values()} == set(FORMATS)
    for s in corpus.values():
        found = sorted(p.relative_to(s.dir).as_posix() for p in s.dir.rglob("*") if p.is_file())
        assert found == sorted([*s.files, *s.corrupt]), s.name
        assert max(key.count("/") for key in s.files) >= 3  # nested folders
        assert {how["kind"] for how in s.corrupt.values()} == {"truncated", "bad bytes"}
    large = [s.dir / key for s in corpus.values() for key in s.entry["large"]]
    assert {s.format for s in corpus.values() if s.entry["large"]} == set(FORMATS)
    assert all(path.stat().st_size >= LARGE // 2 for path in large)


def counts(summary: batch.Summary) -> dict[str, Any]:
    """The summary without its time."""
    return {k: v for k, v in asdict(summary).items() if k != "seconds"}


@pytest.mark.parametrize("name", SETS)
def test_decode_to_json_lines_a_mirror_tree_and_parquet(name: str,
                                                       corpus: dict[str, CorpusSet],
                                                       pool: ProcessPoolExecutor,
                                                       client: Client, tmp_path: Path) -> None:
    s = corpus[name]
    jsonl, tree, dataset = tmp_path / "out.jsonl", tmp_path / "tree", tmp_path / "dataset"
    summary = s.run(pool, "decode", jsonl=jsonl, out_dir=tree, parquet=dataset)
    assert (summary.inputs, summary.ok, summary.failed, summary.noted) == (
        len(s.files) + len(s.corrupt), len(s.files), len(s.corrupt), 0)
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    assert len(lines) == summary.inputs
    keys = [json.loads(line[:line.index(',"')] + "}")["key"] for line in lines]
    assert sorted(keys) == sorted([*s.files, *s.corrupt])
    by_key = dict(zip(keys, lines, strict=True))
    values, texts = {}, {}
    for key in s.files:
        codec, data = s.codec(key), s.data(key)
        text = codec.to_json(data).rstrip("\n")
        assert by_key[key] == f'{{"key":{json.dumps(key)},"value":{text}}}', key
        assert (tree / (key + ".json")).read_text(encoding="utf-8") == text, key
        values[key], texts[key] = codec.decode(data), text
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

    tables = check_parquet(s, dataset, values)
    probe_parquet(s, dataset, tables, texts)

    # The same batch on a Dask cluster of two workers: the same lines, tables and summary.
    # (The chunks differ: a pool's first and last are smaller; so do the Parquet parts.)
    on_dask = s.run(client, "decode", jsonl=tmp_path / "dask.jsonl",
                    parquet=tmp_path / "dask")
    assert counts(on_dask) == counts(summary)
    assert (tmp_path / "dask.jsonl").read_bytes() == jsonl.read_bytes()
    assert table_rows(tmp_path / "dask") == table_rows(dataset)


def table_rows(root: Path) -> str:
    """Each table of a Parquet dataset, its schema and its rows in order, as text (where
    NaN equals NaN)."""
    return repr({folder.name: (table.schema.remove_metadata(), table.to_pylist())
                 for folder in sorted(root.iterdir()) for table in [pq.read_table(folder)]})


def same(a: Any, b: Any) -> bool:
    """Deep equality in which NaN equals NaN (FlatBuffers' nan_default columns hold it)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


def read_dataset(root: Path) -> dict[str, tuple[Any, dict[str, dict[str, Any]]]]:
    """Each table of a Parquet dataset, read with pyarrow: its schema, and its rows by key."""
    out = {}
    for folder in sorted(p for p in root.iterdir()):
        assert folder.is_dir() and not folder.name.startswith("."), folder
        assert all(re.fullmatch(r"part-\d{5}\.parquet", p.name) for p in folder.iterdir())
        table = pq.read_table(folder)
        rows = table.to_pylist()
        by_key = {row.pop("key"): row for row in rows}
        assert len(by_key) == len(rows)
        out[folder.name] = (table.schema.remove_metadata(), by_key)
    return out


def check_parquet(s: CorpusSet, dataset: Path, values: dict[str, Any]
                  ) -> dict[str, tuple[Any, dict[str, dict[str, Any]]]]:
    """The dataset holds a row per valid input, equal to the single-file row (the table
    pyarrow builds from ``codec.to_row`` in this process), with the same column types."""
    tables = read_dataset(dataset)
    grouped: dict[str, tuple[list[str], list[Any]]] = {}
    texts: dict[str, Any] = {}
    for key, value in values.items():
        row = s.codec(key).to_row(value)
        if row is None or row.type is None:  # no schema: the record's JSON (no header)
            assert row is not None
            texts[key] = row.value
            continue
        keys, rows = grouped.setdefault(table_name(row.name), ([], []))
        keys.append(key)
        rows.append(row)
    assert sorted(tables) == sorted([*grouped, *(["value"] if texts else [])])
    for name, (keys, rows) in grouped.items():
        expected = table_of(keys, rows)
        schema, found = tables[name]
        assert schema.equals(expected.schema), name
        rows_by_key = {row.pop("key"): row for row in expected.to_pylist()}
        assert found == rows_by_key or same(found, rows_by_key), name
    if texts:
        schema, found = tables["value"]
        assert schema.field("value").type == pa.json_(pa.string())
        assert {key: json.loads(row["value"]) for key, row in found.items()} == texts
    return tables


def _f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


@functools.cache
def _type_list(path: str) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _ki_names(s: CorpusSet, prop: str, value: int, flags: bool) -> str:
    """The name (or ``|``-joined names of bit flags) of an enum value of the type list."""
    types = _type_list(s.options["schema"])
    options = next(c["properties"][prop]["enum_options"] for c in types["classes"].values()
                   if prop in c["properties"])
    names = {int(v): n for n, v in options.items()}
    if not flags or value == 0:
        return names[value]
    return "|".join(n for v, n in sorted(names.items()) if v and value & v)


class Account:
    """What the single-file codec says of a valid input: ``t``, its JSON text parsed, and
    ``j``, its JSON values (``to_jsonable``: numbers exact where flatc's text rounds
    them)."""

    def __init__(self, s: CorpusSet, key: str, text: str) -> None:
        self.s, self.key, self.text = s, key, text

    @functools.cached_property
    def t(self) -> Any:
        return json.loads(self.text)

    @functools.cached_property
    def j(self) -> Any:
        codec = self.s.codec(self.key)
        return codec.to_jsonable(codec.decode(self.s.data(self.key)))


Probe = tuple[str, tuple[str, ...], Any, str, Callable[[Account], Any]]
"""A column the test reads back with pyarrow and DuckDB: its table, its path (struct fields),
its Arrow type, its DuckDB type, and its value from what the single-file codec says."""


def probes(s: CorpusSet) -> list[Probe]:
    """Columns whose types and values are checked against what the single-file codec's JSON
    says (an independent account of the decoded values): uint64, float32, enums by name,
    unions as tagged structs, maps, bytes; Godot's and untyped O3DE's JSON column."""
    dictionary = pa.dictionary(pa.int32(), pa.string())
    json_type = pa.json_(pa.string())
    if s.format == "godot":
        return [("value", ("value",), json_type, "JSON", lambda a: a.t["$records"])]
    if s.name == "o3de settings":
        return [("value", ("value",), json_type, "JSON", lambda a: a.t)]
    if s.format == "o3de":
        table = "AzToolsFramework_Prefab_Instance"
        return [(table, ("ContainerEntity", "Name"), pa.string(), "VARCHAR",
                 lambda a: a.t["ContainerEntity"]["Name"])]
    if s.format == "flatbuffers":
        table = "MyGame.Example.Monster"

        def union_color(a: Account) -> Any:
            if a.t.get("test_type") != "TestSimpleTableWithEnum":
                return None
            return a.t["test"].get("color", "Green")

        return [
            (table, ("testhashu64_fnv1",), pa.uint64(), "UBIGINT",
             lambda a: a.t.get("testhashu64_fnv1", 0)),
            (table, ("testhashs64_fnv1",), pa.int64(), "BIGINT",
             lambda a: a.t.get("testhashs64_fnv1", 0)),
            (table, ("testf",), pa.float32(), "FLOAT", lambda a: a.j.get("testf", PI32)),
            (table, ("pos", "x"), pa.float32(), "FLOAT",
             lambda a: a.j["pos"]["x"] if "pos" in a.j else None),
            (table, ("pos", "test1"), pa.float64(), "DOUBLE",
             lambda a: a.j["pos"]["test1"] if "pos" in a.j else None),
            (table, ("color",), dictionary, "VARCHAR",
             lambda a: a.t.get("color", "Blue").replace(" ", "|")),
            (table, ("signed_enum",), dictionary, "VARCHAR",
             lambda a: a.t.get("signed_enum", "None")),
            (table, ("test", "type"), dictionary, "VARCHAR", lambda a: a.t.get("test_type")),
            (table, ("test", "TestSimpleTableWithEnum", "color"), dictionary, "VARCHAR",
             union_color),
            (table, ("vector_of_longs",), pa.list_(pa.int64()), "BIGINT[]",
             lambda a: a.t.get("vector_of_longs")),
        ]
    if s.format == "zeze":
        table = "demo.Module1.Value"
        return [
            (table, ("long2",), pa.int64(), "BIGINT", lambda a: a.t["long2"]),
            (table, ("float6",), pa.float32(), "FLOAT", lambda a: _f32(a.t["float6"])),
            (table, ("double7",), pa.float64(), "DOUBLE", lambda a: a.t["double7"]),
            (table, ("bytes8",), pa.binary(), "BLOB",
             lambda a: base64.b64decode(a.t["bytes8"])),
            (table, ("map15",), pa.map_(pa.int64(), pa.int64()), "MAP(BIGINT, BIGINT)",
             lambda a: {int(k): v for k, v in a.t["map15"].items()}),
            (table, ("dynamic14", "type"), dictionary, "VARCHAR",
             lambda a: a.t["dynamic14"]["bean"]),
        ]
    assert s.format == "kingsisle"
    return [
        ("class_AllScalars", ("m_int64",), pa.uint64(), "UBIGINT", lambda a: a.t["m_int64"]),
        ("class_AllScalars", ("m_float",), pa.float32(), "FLOAT",
         lambda a: _f32(a.t["m_float"])),
        ("class_AllScalars", ("m_char",), pa.int8(), "TINYINT", lambda a: a.t["m_char"]),
        ("class_ScopedEnum", ("m_enum",), dictionary, "VARCHAR",
         lambda a: _ki_names(s, "m_enum", a.t["m_enum"], False)),
        ("class_Bitflags", ("m_flags",), dictionary, "VARCHAR",
         lambda a: _ki_names(s, "m_flags", a.t["m_flags"], True)),
    ]


PI32 = _f32(3.14159)


def _plain(value: Any) -> Any:
    """pyarrow's map (a list of pairs) as DuckDB gives it (a dict)."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        return dict(value)
    return {} if value == [] else value


def probe_parquet(s: CorpusSet, dataset: Path,
                  tables: dict[str, tuple[Any, dict[str, dict[str, Any]]]],
                  texts: dict[str, str]) -> None:
    """Each probe's column, read with pyarrow and with DuckDB, has its type and, for every
    valid input of its table, the value the input's JSON says; the key column names the
    input. uint64 columns hold values above 2**63."""
    accounts: dict[str, Account] = {}
    for table, path, arrow_type, duck_type, expect in probes(s):
        schema, rows = tables[table]
        found_type = schema.field(path[0]).type
        for step in path[1:]:
            found_type = found_type.field(step).type
        assert found_type == arrow_type, (table, path, found_type)
        expr = f'"{path[0]}"'
        for step in path[1:]:
            expr = f"struct_extract({expr}, '{step}')"
        result = duckdb.sql(f"select key, {expr} from read_parquet('{dataset / table}/*.parquet')")
        assert str(result.types[1]) == duck_type, (table, path, result.types)
        by_duck = dict(result.fetchall())
        assert sorted(by_duck) == sorted(rows)
        expected = {}
        for key in rows:
            if key not in accounts:
                accounts[key] = Account(s, key, texts[key])
            expected[key] = expect(accounts[key])
            found: Any = rows[key]
            for step in path:
                found = None if found is None else found[step]
            duck = by_duck[key]
            if arrow_type == pa.json_(pa.string()):
                found, duck = json.loads(found), json.loads(duck)
            assert _plain(found) == expected[key] == duck, (key, path)
        if arrow_type == pa.uint64():
            assert max(expected.values()) >= 1 << 63, path


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
        # and that tree converted back: every file's bytes again
        back = batch.run("convert", [tmp_path / "there"], s.format, executor=pool,
                         to=s.entry["back"], out_dir=tmp_path / "back", **{**s.options, **s.to})
        assert (back.ok, back.failed) == (len(s.files), 0)
        for key in s.files:
            assert (tmp_path / "back" / key).read_bytes() == s.data(key), key
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
    jsonl, dataset = tmp_path / "out.jsonl", tmp_path / "dataset"
    argv = ["decode", s.format, *_flags(s.options), "-r", str(s.dir)]
    status = main([*argv, "--jsonl", str(jsonl), "--parquet", str(dataset), "-j", "2"])
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
    tables = read_dataset(dataset)
    assert sorted(key for _, rows in tables.values() for key in rows) == sorted(s.files)

    # --dask local: a LocalCluster of two workers for the run, the same outputs and summary
    status = main([*argv, "--jsonl", str(tmp_path / "dask.jsonl"), "--parquet",
                   str(tmp_path / "dask"), "--dask", "local", "-j", "2"])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert err.splitlines()[-1].split(" bytes in ")[0] == summary.split(" bytes in ")[0]
    assert err.splitlines()[-1].split(" s: ")[1] == summary.split(" s: ")[1]
    assert (tmp_path / "dask.jsonl").read_bytes() == jsonl.read_bytes()
    assert table_rows(tmp_path / "dask") == table_rows(dataset)
