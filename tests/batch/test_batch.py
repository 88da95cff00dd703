"""gameserde.batch: one action over many inputs, on a process pool or any executor, with
every record equal to the single-file result, failures listed and the rest still done."""

from __future__ import annotations

import json
import pickle
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde import batch, godot
from gameserde.batch.inputs import Item, chunks
from gameserde.batch.work import Outcome
from gameserde.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
ZEZE_SCHEMA = str(ROOT / "examples" / "zeze" / "game.xml")


def godot_corpus(root: Path, n: int = 300, corrupt: int = 5) -> dict[str, bytes]:
    """``n`` small Godot 4 files in nested folders and ``corrupt`` truncated ones, by key."""
    files = {}
    for i in range(n):
        value = {"id": i, "name": f"player {i}", "pos": godot.Vector3(i, -i, 0.5),
                 "tags": ["a"] * (i % 4)}
        files[f"{i % 7}/{i % 3}/save{i}.bin"] = godot.encode(value)
    for i in range(corrupt):
        files[f"bad/save{i}.bin"] = godot.encode({"id": i, "name": "cut"})[:-3]
    for key, data in files.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_bytes(data)
    return files


def test_decode_to_json_lines_on_the_process_pool(tmp_path: Path) -> None:
    files = godot_corpus(tmp_path / "corpus")
    out = tmp_path / "out.jsonl"
    summary = batch.run("decode", [tmp_path / "corpus"], "godot", jsonl=out)
    assert (summary.inputs, summary.ok, summary.failed) == (len(files), len(files) - 5, 5)
    assert summary.bytes == sum(map(len, files.values()))
    single = gameserde.codec("godot")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["key"] for line in lines] == sorted(files)  # input order: the sorted walk
    for line in lines:
        data = files[line["key"]]
        if line["key"].startswith("bad/"):
            with pytest.raises(gameserde.DecodeError) as e:
                single.decode(data)
            assert (line["error"], line["offset"]) == (str(e.value), e.value.offset)
        else:
            assert line["value"] == json.loads(single.to_json(data))
    assert sorted(f.key for f in summary.failures) == [f"bad/save{i}.bin" for i in range(5)]
    assert all(f.offset is not None and f.message.startswith("godot decode error at byte")
               for f in summary.failures)


def test_convert_mirror_tree_round_trips_to_identical_bytes(tmp_path: Path) -> None:
    files = godot_corpus(tmp_path / "corpus", n=120, corrupt=0)
    there = batch.run("convert", [tmp_path / "corpus"], "godot",
                      to={"framing": "store_var"}, out_dir=tmp_path / "framed")
    assert (there.ok, there.failed) == (120, 0)
    back = batch.run("convert", [tmp_path / "framed"], "godot", framing="store_var",
                     to={"framing": "raw"}, out_dir=tmp_path / "back")
    assert (back.ok, back.failed) == (120, 0)
    for key, data in files.items():
        assert (tmp_path / "back" / key).read_bytes() == data
        assert (tmp_path / "framed" / key).read_bytes() == godot.store_var(godot.decode(data))


def test_records_on_a_thread_pool_and_a_schema_format(tmp_path: Path) -> None:
    role = gameserde.codec("zeze", schema=ZEZE_SCHEMA, type="BRole")
    good = role.from_json((ROOT / "examples" / "zeze" / "role.json").read_text())
    records = [(f"row {i}", good) for i in range(50)] + [("row bad", good[:10])]
    with ThreadPoolExecutor(2) as pool:
        summary = batch.run("verify", records, "zeze", executor=pool, schema=ZEZE_SCHEMA,
                            type="BRole", jsonl=tmp_path / "v.jsonl")
    assert (summary.ok, summary.failed) == (50, 1)
    [failure] = summary.failures
    assert failure.key == "row bad" and failure.message.startswith("zeze decode error at byte")
    lines = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert lines[0] == {"key": "row 0", "report": role.verify(good)}


class CountingPool(ThreadPoolExecutor):
    """A thread pool that records the most futures it held at once."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.outstanding = 0
        self.most = 0
        self.lock = threading.Lock()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self.lock:
            self.outstanding += 1
            self.most = max(self.most, self.outstanding)
        return super().submit(self._run, fn, *args, **kwargs)

    def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:  # before its future is done
            with self.lock:
                self.outstanding -= 1


def test_work_in_flight_is_bounded_whatever_the_corpus_size() -> None:
    data = godot.encode(1)
    consumed = 0

    def records() -> Any:
        nonlocal consumed
        for i in range(20_000):
            consumed += 1
            yield (str(i), data)

    with CountingPool() as pool:
        summary = batch.run("verify", records(), "godot", executor=pool)
    assert (summary.inputs, summary.ok, consumed) == (20_000, 20_000, 20_000)
    assert pool.most <= 4  # two chunks per worker: memory does not grow with the corpus


def test_a_slow_chunk_does_not_leave_the_other_workers_idle() -> None:
    """The first chunk waits until five others have finished: with only the chunks in
    flight that the head's result lets in, they could not."""
    finished = threading.Semaphore(0)

    class SlowHead(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            if args[2] == 0:
                return super().submit(self.slow, fn, *args, **kwargs)
            future = super().submit(fn, *args, **kwargs)
            future.add_done_callback(lambda _: finished.release())
            return future

        @staticmethod
        def slow(fn: Any, *args: Any, **kwargs: Any) -> Any:
            assert all(finished.acquire(timeout=10) for _ in range(5))
            return fn(*args, **kwargs)

    records = [(str(i), godot.encode(i)) for i in range(4000)]
    with SlowHead(2) as pool:
        summary = batch.run("verify", records, "godot", executor=pool)
    assert (summary.inputs, summary.ok) == (4000, 4000)


@pytest.mark.parametrize(("count", "workers"), [(4000, 2), (20000, 8), (100, 2), (1, 4)])
def test_chunks_start_and_end_small_on_a_pool(count: int, workers: int) -> None:
    """Every worker starts at once and all finish together: the first round of chunks is
    small, the sizes double up to 512, and the rest shrinks at the end; the inputs are
    looked ahead of by a bounded number, in order."""
    pulled = 0

    def found() -> Any:
        nonlocal pulled
        for i in range(count):
            pulled += 1
            yield Item(str(i), data=b"x")

    sizes, given = [], 0
    for chunk in chunks(found(), workers=workers):
        assert [item.key for item in chunk] == [str(i) for i in range(given, given + len(chunk))]
        given += len(chunk)
        sizes.append(len(chunk))
        assert pulled - given <= (workers + 1) * 512
    assert given == count and max(sizes) <= 512
    assert sizes[:workers] == [min(32, count)] * min(workers, len(sizes))
    if count >= 4000:
        assert 512 in sizes and sizes[-1] <= 32 and sizes[-3 * workers] < 512
    assert list(map(len, chunks(Item(str(i), data=b"x") for i in range(count)))) == \
        [512] * (count // 512) + [count % 512] * (count % 512 > 0)  # the bag's: fixed


def test_a_chunk_holds_4_mib_at_most_but_a_larger_input_alone() -> None:
    sizes = [1 << 20] * 9 + [5 << 20] + [1 << 20] * 3
    made = [[len(item.data or b"") for item in chunk] for chunk in
            chunks((Item(str(i), data=bytes(n)) for i, n in enumerate(sizes)), workers=2)]
    assert [n for chunk in made for n in chunk] == sizes
    assert all(sum(chunk) <= 4 << 20 or len(chunk) == 1 for chunk in made)


def test_a_run_that_stops_leaves_no_half_written_json_lines(tmp_path: Path) -> None:
    class Broken(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            raise RuntimeError("the cluster went away")

    with Broken(1) as pool, pytest.raises(RuntimeError):
        batch.run("decode", [("a", godot.encode(1))], "godot", executor=pool,
                  jsonl=tmp_path / "out.jsonl")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("pool", [ThreadPoolExecutor, None])
def test_fail_fast_json_lines_end_at_the_failure(pool: Any, tmp_path: Path) -> None:
    records = [(f"{i:03}", godot.encode(i)) for i in range(700)]
    records[600] = ("600", b"\x1b")  # in the second chunk of 512
    out = tmp_path / "out.jsonl"
    with (pool or ThreadPoolExecutor)(2) as executor:
        summary = batch.run("decode", records, "godot", jsonl=out, fail_fast=True,
                            executor=executor if pool else None)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.stopped and (summary.inputs, summary.failed) == (601, 1)
    assert [line["key"] for line in lines] == [key for key, _ in records[:601]]
    single = gameserde.codec("godot")
    assert "error" in lines[-1] and all(line["value"] == json.loads(single.to_json(data))
                                        for line, (_, data) in zip(lines[:-1], records[:600],
                                                                   strict=True))


def test_outcomes_pickle_whole() -> None:
    made = [Outcome("k", 3), Outcome("k", 3, "1"), Outcome("k", 0, None, "bad", 5, "a.b"),
            Outcome("k", 3, "", notes=("kept verbatim",)), Outcome("k", 3, b"")]
    assert [pickle.loads(pickle.dumps(o)) for o in made] == made


def test_mirrored_keys_stay_inside_the_output_folder(tmp_path: Path) -> None:
    data = godot.encode([1, 2])
    with ThreadPoolExecutor(1) as pool:
        batch.run("decode", [("../../evil.bin", data), ("/abs/x.bin", data)], "godot",
                  executor=pool, out_dir=tmp_path / "out")
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json"))
    assert written == ["out/abs/x.bin.json", "out/evil.bin.json"]


@pytest.mark.parametrize(("call", "message"), [
    (dict(action="decompile"), "no batch action 'decompile'"),
    (dict(action="decode", to={"profile": "godot3"}), "to= applies to convert only"),
    (dict(action="decode", max_depth=-1), "max_depth"),
    (dict(action="convert", out_dir=None, jsonl="x.jsonl"), "convert writes files"),
    (dict(action="verify", out_dir="out"), "verify writes no files"),
])
def test_usage_errors(call: dict[str, Any], message: str, tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    action = call.pop("action")
    with pytest.raises(UsageError, match=message):
        batch.run(action, [("a", godot.encode(1))], "godot", **call)
    assert not (tmp_path / "x.jsonl").exists()


def test_globs_directories_and_files(tmp_path: Path) -> None:
    godot_corpus(tmp_path, n=12, corrupt=0)
    names = [str(tmp_path / "0" / "0" / "save0.bin"), str(tmp_path / "1" / "**" / "*.bin"),
             str(tmp_path / "2")]
    with ThreadPoolExecutor(1) as pool:
        summary = batch.run("verify", names, "godot", executor=pool)
        flat = batch.run("verify", [tmp_path / "2"], "godot", executor=pool, recursive=False)
    assert summary.inputs == 1 + 2 + 2 and summary.ok == summary.inputs  # i = 0; 1, 8; 2, 9
    assert flat.inputs == 0  # the files are a level down
