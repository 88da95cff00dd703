"""Batches on a Dask LocalCluster started by the test (two worker processes): the same
summary and the same outputs as the process pool; the command line's --dask; the bag of
gameserde.dask.read equal to single-file decodes; a one-line message without the extra."""

from __future__ import annotations

import json
import logging
import struct
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import dask
import pytest
from distributed import Client, LocalCluster

import gameserde
import gameserde.dask
from gameserde import batch
from gameserde.batch import cluster
from gameserde.cli import main
from gameserde.errors import UsageError
from tests.batch.test_batch import godot_corpus

ROOT = Path(__file__).resolve().parents[2]
MONSTER = str(ROOT / "examples" / "flatbuffers" / "monster.fbs")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as made:
        yield made


def flatbuffers_corpus(root: Path, n: int = 200) -> dict[str, bytes]:
    """``n`` monsters (some size-prefixed by mistake) and a few cut ones, by key."""
    codec = gameserde.codec("flatbuffers", schema=MONSTER)
    monster = json.loads((ROOT / "examples" / "flatbuffers" / "monster.json").read_text())
    files = {}
    for i in range(n):
        value = {**monster, "hp": i, "name": f"orc {i}", "pos": {"x": i / 10, "y": 0, "z": -i}}
        files[f"m{i % 4}/{i:03}.mon"] = codec.from_json(json.dumps(value))
    for i in range(3):
        files[f"bad/{i}.mon"] = files[f"m{i}/{i:03}.mon"][:20 + i]
    for key, data in files.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_bytes(data)
    return files


def counts(summary: batch.Summary) -> dict[str, Any]:
    """The summary without its time."""
    return {k: v for k, v in asdict(summary).items() if k != "seconds"}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file()}


CASES = {
    "godot": (godot_corpus, {}),
    "flatbuffers": (flatbuffers_corpus, {"schema": MONSTER}),
}


@pytest.mark.parametrize("format", CASES)
def test_a_cluster_gives_what_the_process_pool_gives(format: str, client: Client,
                                                     tmp_path: Path) -> None:
    make, options = CASES[format]
    files = make(tmp_path / "corpus")
    runs = {}
    for engine, executor in (("pool", None), ("dask", client)):
        out = tmp_path / engine
        decoded = batch.run("decode", [tmp_path / "corpus"], format, executor=executor,
                            jsonl=tmp_path / f"{engine}.jsonl", out_dir=out / "tree",
                            **options)
        verified = batch.run("verify", [tmp_path / "corpus"], format, executor=executor,
                             jsonl=out / "verify.jsonl", **options)
        runs[engine] = (counts(decoded), counts(verified), tree(out),
                        (tmp_path / f"{engine}.jsonl").read_bytes())
    assert runs["dask"] == runs["pool"]
    decoded_counts = runs["dask"][0]
    assert decoded_counts["inputs"] == len(files) and decoded_counts["failed"] == 3 + 2 * (
        format == "godot")
    assert all(f["offset"] is not None for f in decoded_counts["failures"])


def test_a_convert_on_the_cluster_round_trips(client: Client, tmp_path: Path) -> None:
    files = godot_corpus(tmp_path / "corpus", n=60, corrupt=0)
    there = batch.run("convert", [tmp_path / "corpus"], "godot", executor=client,
                      to={"framing": "store_var"}, out_dir=tmp_path / "framed")
    back = batch.run("convert", [tmp_path / "framed"], "godot", executor=client,
                     framing="store_var", to={"framing": "raw"}, out_dir=tmp_path / "back")
    assert (there.ok, back.ok, back.failed) == (60, 60, 0)
    assert tree(tmp_path / "back") == files


def test_a_cluster_started_for_a_run_is_quiet() -> None:
    """Its workers do not profile themselves: about 6% of each core, idle or not."""
    with cluster.client(cluster.LOCAL, 1) as local:
        assert list(local.run(dask.config.get, "distributed.worker.profile.enabled").values()) \
            == [False]
        assert dask.config.get("distributed.admin.tick.interval") == "1s"
    assert dask.config.get("distributed.worker.profile.enabled") is True  # only while it runs


def test_fail_fast_on_the_cluster_stops_the_batch(client: Client, tmp_path: Path) -> None:
    godot_corpus(tmp_path / "corpus", n=2000, corrupt=0)
    (tmp_path / "corpus" / "0" / "0" / "0cut.bin").write_bytes(b"\x1b")  # the first input
    summary = batch.run("decode", [tmp_path / "corpus"], "godot", executor=client,
                        fail_fast=True)
    assert summary.stopped and summary.failed == 1 and summary.inputs < 2001


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err.splitlines()


def test_the_command_line_on_a_cluster(client: Client, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    godot_corpus(tmp_path / "corpus", n=80, corrupt=1)
    argv = ("decode", "godot", "-r", str(tmp_path / "corpus"))
    pool = run_cli(capsys, *argv, "-j", "2")
    local = run_cli(capsys, *argv, "--dask", "local", "-j", "2")
    running = run_cli(capsys, *argv, "--dask", client.scheduler.address)
    assert pool[0] == local[0] == running[0] == 1
    assert pool[1] == local[1] == running[1] and len(pool[1].splitlines()) == 81
    assert pool[2][:-1] == local[2][:-1] == running[2][:-1]  # apart from the time
    assert "81 inputs" in local[2][-1] and "80 ok, 1 failed" in local[2][-1]
    status, _, err = run_cli(capsys, *argv, "--dask", client.scheduler.address, "-j", "2")
    assert status == 2 and err == [f"gameserde: -j sets the number of local workers: a Dask "
                                   f"scheduler ({client.scheduler.address}) has its own"]


def test_one_file_with_dask_is_a_batch(client: Client, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    files = godot_corpus(tmp_path, n=1, corrupt=0)
    [key] = files
    status, out, err = run_cli(capsys, "decode", "godot", str(tmp_path / key), "--dask",
                               client.scheduler.address)
    assert status == 0 and json.loads(out)["key"] == str(tmp_path / key)
    assert "1 inputs" in err[-1]


@pytest.mark.parametrize("format", CASES)
def test_read_gives_a_bag_of_single_file_decodes(format: str, client: Client,
                                                 tmp_path: Path) -> None:
    make, options = CASES[format]
    files = make(tmp_path)
    single = gameserde.codec(format, **options)
    bag = gameserde.dask.read(str(tmp_path / "**" / "*"), format, **options)
    records = bag.compute()
    assert [r["key"] for r in records] == sorted(str(tmp_path / key) for key in files)
    for record in records:
        data = files[Path(record["key"]).relative_to(tmp_path).as_posix()]
        if "error" in record:
            with pytest.raises(gameserde.DecodeError) as e:
                single.decode(data)
            assert (record["error"], record["offset"], record["path"]) == (
                str(e.value), e.value.offset, e.value.path)
        else:
            assert record == {"key": record["key"],
                              "value": single.to_jsonable(single.decode(data))}
    assert sum("error" in r for r in records) == 3 + 2 * (format == "godot")
    assert bag.npartitions == 1
    big = gameserde.dask.read([(str(i), files[min(files)]) for i in range(1500)], format,
                              **options)
    assert big.npartitions == 3 and big.count().compute() == 1500  # a partition per chunk


def test_read_refuses_bad_options_before_the_cluster_runs() -> None:
    with pytest.raises(UsageError, match="max_depth"):
        gameserde.dask.read("nothing/*.bin", "godot", max_depth=-1)
    assert gameserde.dask.read("nothing/*.bin", "godot").compute() == []


def test_without_the_extra_a_line_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    godot_corpus(tmp_path, n=2, corrupt=0)
    for module in ("distributed", "dask", "dask.bag"):
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    status, out, err = run_cli(capsys, "verify", "godot", "-r", str(tmp_path), "--dask",
                               "local")
    assert (status, out) == (2, "")
    assert err == ["gameserde: a batch on a Dask cluster needs distributed: "
                   "pip install 'gameserde[dask]'"]
    with pytest.raises(UsageError, match=r"needs dask: pip install 'gameserde\[dask\]'"):
        gameserde.dask.read(str(tmp_path), "godot")


EXACT = "table Reading { sensor:ulong; level:float; label:string; }\nroot_type Reading;\n"


def test_read_frame_keeps_uint64_and_float32_exact(client: Client, tmp_path: Path) -> None:
    (tmp_path / "reading.fbs").write_text(EXACT)
    schema = str(tmp_path / "reading.fbs")
    codec = gameserde.codec("flatbuffers", schema=schema)
    values = [{"sensor": 2**64 - 1 - i, "level": i / 10, "label": f"r{i}"} for i in range(700)]
    for i, value in enumerate(values):
        (tmp_path / "in" / f"{i // 100}").mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / f"{i // 100}" / f"{i:03}.bin").write_bytes(
            codec.from_json(json.dumps(value)))
    frame = gameserde.dask.read_frame(tmp_path / "in", "flatbuffers", schema=schema)
    assert frame.npartitions == 2  # a partition per chunk of 512 inputs
    assert [str(t) for t in frame.dtypes] == ["string[pyarrow]", "uint64[pyarrow]",
                                              "float[pyarrow]", "string[pyarrow]"]
    got = frame.compute()
    assert list(got["key"]) == [f"{i // 100}/{i:03}.bin" for i in range(700)]
    assert list(got["sensor"]) == [v["sensor"] for v in values]  # all 64 bits
    float32 = [struct.unpack("<f", struct.pack("<f", v["level"]))[0] for v in values]
    assert list(got["level"]) == float32 != [v["level"] for v in values]
    assert frame[frame.level >= 60].key.count().compute() == 100
    (tmp_path / "in" / "3" / "355.bin").write_bytes(b"\x08\x00")
    with pytest.raises(gameserde.DecodeError, match=r"\(input 3/355\.bin\)$") as e:
        gameserde.dask.read_frame(tmp_path / "in", "flatbuffers", schema=schema).compute()
    assert e.value.offset == 0


def test_read_frame_needs_a_schema(client: Client, tmp_path: Path) -> None:
    godot_corpus(tmp_path, n=3, corrupt=0)
    with pytest.raises(UsageError, match="godot values have no schema"):
        gameserde.dask.read_frame(tmp_path, "godot")


def test_an_executor_that_is_neither_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"executor= takes a concurrent\.futures\.Executor "
                                         r"or a distributed\.Client"):
        batch.run("decode", [("a", b"")], "godot", executor=object(), jsonl=tmp_path / "o")
    assert list(tmp_path.iterdir()) == []
