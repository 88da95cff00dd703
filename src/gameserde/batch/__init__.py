"""Batches: one action (``decode``, ``verify``, ``inspect``, ``convert``) over many inputs
with one codec, on a process pool over all cores by default, or on any
:class:`concurrent.futures.Executor` the caller passes.

    summary = gameserde.batch.run("verify", ["saves/"], "godot", framing="store_var")
    print(summary.ok, summary.failed, summary.failures[:3])

Inputs are paths, globs and directories (walked recursively), or ``(key, bytes)`` records.
The codec travels as its spec (format and options, plain data), and each worker builds it
once. Work goes out in chunks of up to 4 MiB or 512 inputs (on a pool, smaller at the start
and at the end, so that the workers start and finish together), with a bounded number in
flight, so memory stays flat however large the corpus; results come back in input order,
each chunk's JSON Lines made by its worker. A failure
does not stop the batch: it is counted and listed with its input's key, byte offset and
message. Outputs: JSON Lines (``jsonl=``), a mirror tree of files (``out_dir=``) and a
Parquet dataset (``parquet=``, :mod:`gameserde.batch.parquet`).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from gameserde.batch import cluster
from gameserde.batch.inputs import MAX_ITEMS, Item, Source, chunks, items
from gameserde.batch.outputs import JsonLines, Mirror
from gameserde.batch.parquet import Dataset
from gameserde.batch.work import ACTIONS, Done, Outcome, Spec, Task, run_chunk
from gameserde.errors import UsageError
from gameserde.formats import format_info

__all__ = ["Failure", "Summary", "run"]


@dataclass(frozen=True)
class Failure:
    """An input the action failed on: its key, the byte offset and path of the fault (when
    known) and the message."""

    key: str
    message: str
    offset: int | None = None
    path: str | None = None


@dataclass
class Summary:
    """What a batch did: inputs, bytes read, how many succeeded and failed, the failures,
    how many inputs gave notes, and the time it took."""

    inputs: int = 0
    bytes: int = 0
    ok: int = 0
    failed: int = 0
    noted: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    """``(key, note)`` for each note an input gave."""
    stopped: bool = False
    """True when ``fail_fast`` stopped the batch at a failure (the rest was not read)."""

    @property
    def throughput(self) -> float:
        """Bytes per second."""
        return self.bytes / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        return (f"{self.inputs} inputs, {self.bytes} bytes in {self.seconds:.2f} s: "
                f"{self.ok} ok, {self.failed} failed, {self.noted} with notes")


def run(action: str, inputs: Iterable[Source], format: str, *, to: dict[str, Any] | None = None,
        executor: Executor | Any = None, jsonl: str | os.PathLike[str] | None = None,
        stdout: bool = False, out_dir: str | os.PathLike[str] | None = None,
        parquet: str | os.PathLike[str] | None = None, parquet_enums: str = "name",
        recursive: bool = True, fail_fast: bool = False, strict: bool = False,
        progress: Callable[[Outcome], None] | None = None, **options: Any) -> Summary:
    """Run ``action`` over ``inputs`` with the codec ``gameserde.codec(format, **options)``;
    for ``convert``, ``to`` holds the written side's options that differ. ``executor`` runs
    the chunks: any :class:`~concurrent.futures.Executor`, or a :class:`distributed.Client`
    (through its executor; workers read inputs by path). Writes JSON Lines to ``jsonl``
    (or, with ``stdout``, to standard output), files under ``out_dir`` and a Parquet
    dataset in ``parquet`` (:mod:`gameserde.batch.parquet`; ``parquet_enums``: ``"name"`` or
    ``"int"``) when given; ``fail_fast`` stops at the first failure, ``strict`` makes a
    note a failure; ``progress`` is called with each input's outcome as it is taken (its
    ``output`` is set only when files are written). Returns the :class:`Summary`."""
    if action not in ACTIONS:
        raise UsageError(f"no batch action {action!r}; the actions are {', '.join(ACTIONS)}")
    info = format_info(format)
    spec: Spec = (format, dict(options))
    written: Spec | None = None
    if action == "convert":
        written = (format, {**options, **(to or {})})
    elif to:
        raise UsageError("to= applies to convert only")
    if not info.takes_source:  # options that do not go together fail here, once (a codec
        for checked in (spec, written):  # that reads by file kind is checked per input)
            if checked is not None:
                info.make(**checked[1])
    if not (executor is None or isinstance(executor, Executor) or cluster.is_client(executor)):
        raise UsageError("executor= takes a concurrent.futures.Executor or a "
                         "distributed.Client")
    if parquet is not None and action == "convert":
        raise UsageError("convert writes files (-o DIR), not a Parquet dataset")
    if stdout and jsonl is not None:
        raise UsageError("JSON Lines go to one place: a file (jsonl=) or standard output")
    dataset = Dataset(parquet, parquet_enums, spec) if parquet is not None else None
    jsonl_sink = JsonLines(jsonl, action) if jsonl is not None or stdout else None
    sinks: list[Sink] = []
    if out_dir is not None:
        sinks.append(Mirror(out_dir, action))
    output = bool(sinks)
    if progress is not None:
        sinks.append(_Progress(progress))
    task = Task(action, spec, written, strict, output, jsonl_sink is not None,
                None if dataset is None else dataset.target)
    own = executor is None
    pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1) if own else executor
    workers = getattr(pool, "_max_workers", None) or os.cpu_count() or 1
    # The first and last chunks are smaller, so that all workers start and finish together,
    # on a pool, where a task costs a fraction of a millisecond; not on a cluster, where it
    # costs milliseconds of scheduling.
    least = 32
    if cluster.is_client(executor):
        pool, workers = cluster.executor(executor), cluster.workers(executor)
        least = MAX_ITEMS
    summary = Summary()
    started = time.perf_counter()
    done = False
    try:
        _drive(pool, workers, least, task, items(inputs, recursive=recursive),
               _Sinks(jsonl_sink, sinks), summary, fail_fast)
        done = True
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
        if jsonl_sink is not None:
            jsonl_sink.close(keep=done)
        if dataset is not None:
            dataset.close(keep=done and not summary.stopped)
        summary.seconds = time.perf_counter() - started
    return summary


def _drive(pool: Executor, workers: int, least: int, task: Task, found: Iterable[Item],
           sinks: _Sinks, summary: Summary, fail_fast: bool) -> None:
    """Submit chunks (of at least ``least`` inputs but at the end) and take their results
    in input order. Each worker has two chunks unfinished at most, and results wait to be
    taken up to four chunks per worker in all: a chunk slower than the ones after it does
    not leave the other workers idle, and finished results do not pile up behind it."""
    running, held = 2 * workers, 4 * workers
    pending: deque[Future[Done]] = deque()
    for index, chunk in enumerate(chunks(found, workers=workers, least=least)):
        pending.append(pool.submit(run_chunk, task, chunk, index))
        while pending:
            if pending[0].done() or len(pending) >= held:
                if not _take(pending.popleft().result(), sinks, summary, fail_fast):
                    _stop(pending, summary)
                    return
                continue
            unfinished = [future for future in pending if not future.done()]
            if len(unfinished) < running:
                break
            wait(unfinished, return_when=FIRST_COMPLETED)
    while pending:
        if not _take(pending.popleft().result(), sinks, summary, fail_fast):
            _stop(pending, summary)
            return


class _Progress:
    """A sink that tells ``report`` of each outcome (a progress bar's update)."""

    def __init__(self, report: Callable[[Outcome], None]) -> None:
        self.report = report

    def write(self, outcome: Outcome) -> None:
        self.report(outcome)


Sink = Mirror | _Progress


@dataclass
class _Sinks:
    """Where results go: the JSON Lines (a chunk's text at once) and the sinks that take
    each outcome."""

    lines: JsonLines | None
    each: list[Sink]



def _stop(pending: deque[Future[Done]], summary: Summary) -> None:
    """Cancel what has not started and wait for what has (so that no worker writes after
    the batch ends)."""
    summary.stopped = True
    for future in pending:
        future.cancel()
    wait(pending)


def _take(done: Done, sinks: _Sinks, summary: Summary, fail_fast: bool = False) -> bool:
    """Count and write a chunk's outcomes; False when ``fail_fast`` must stop the batch
    here (after the failure's line)."""
    for count, outcome in enumerate(done.outcomes, 1):
        summary.inputs += 1
        summary.bytes += outcome.size
        if outcome.error is None:
            summary.ok += 1
        else:
            summary.failed += 1
            summary.failures.append(Failure(outcome.key, outcome.error, outcome.offset,
                                            outcome.path))
        if outcome.notes:
            summary.noted += 1
            summary.notes.extend((outcome.key, note) for note in outcome.notes)
        for sink in sinks.each:
            sink.write(outcome)
        if fail_fast and outcome.error is not None:
            if sinks.lines is not None:
                sinks.lines.write(done.lines_to(count))
            return False
    if sinks.lines is not None:
        sinks.lines.write(done.lines)
    return True
