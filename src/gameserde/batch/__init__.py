"""Batches: one action (``decode``, ``verify``, ``inspect``, ``convert``) over many inputs
with one codec, on a process pool over all cores by default, or on any
:class:`concurrent.futures.Executor` the caller passes.

    summary = gameserde.batch.run("verify", ["saves/"], "godot", framing="store_var")
    print(summary.ok, summary.failed, summary.failures[:3])

Inputs are paths, globs and directories (walked recursively), or ``(key, bytes)`` records.
The codec travels as its spec (format and options, plain data), and each worker builds it
once. Work goes out in chunks of up to 4 MiB or 512 inputs, with a bounded number in flight,
so memory stays flat however large the corpus; results come back in input order. A failure
does not stop the batch: it is counted and listed with its input's key, byte offset and
message. Outputs: JSON Lines (``jsonl=``), a mirror tree of files (``out_dir=``) and a
Parquet dataset (``parquet=``, :mod:`gameserde.batch.parquet`).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from gameserde.batch import cluster
from gameserde.batch.inputs import Item, Source, chunks, items
from gameserde.batch.outputs import JsonLines, Mirror
from gameserde.batch.parquet import Dataset
from gameserde.batch.work import ACTIONS, Outcome, Spec, Task, run_chunk
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
    ``output`` is set only when JSON Lines or files are written). Returns the
    :class:`Summary`."""
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
    sinks: list[Sink] = []
    jsonl_sink = JsonLines(jsonl, action) if jsonl is not None or stdout else None
    if jsonl_sink is not None:
        sinks.append(jsonl_sink)
    if out_dir is not None:
        sinks.append(Mirror(out_dir, action))
    output = bool(sinks)
    if progress is not None:
        sinks.append(_Progress(progress))
    task = Task(action, spec, written, strict, output,
                None if dataset is None else dataset.target)
    own = executor is None
    pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1) if own else executor
    workers = getattr(pool, "_max_workers", None) or os.cpu_count() or 1
    if cluster.is_client(executor):
        pool, workers = cluster.executor(executor), cluster.workers(executor)
    summary = Summary()
    started = time.perf_counter()
    done = False
    try:
        _drive(pool, workers, task, items(inputs, recursive=recursive), sinks, summary,
               fail_fast)
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


def _drive(pool: Executor, workers: int, task: Task, found: Iterable[Item],
           sinks: list[Sink], summary: Summary, fail_fast: bool) -> None:
    """Submit chunks with at most two in flight per worker, and take results in order."""
    limit = 2 * workers
    pending: deque[Future[list[Outcome]]] = deque()
    for index, chunk in enumerate(chunks(found)):
        pending.append(pool.submit(run_chunk, task, chunk, index))
        while len(pending) >= limit:
            if not _take(pending.popleft().result(), sinks, summary, fail_fast):
                _stop(pending, summary)
                return
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


Sink = JsonLines | Mirror | _Progress


def _stop(pending: deque[Future[list[Outcome]]], summary: Summary) -> None:
    """Cancel what has not started and wait for what has (so that no worker writes after
    the batch ends)."""
    summary.stopped = True
    for future in pending:
        future.cancel()
    wait(pending)


def _take(outcomes: list[Outcome], sinks: list[Sink], summary: Summary,
          fail_fast: bool = False) -> bool:
    """Count and write ``outcomes``; False when ``fail_fast`` must stop the batch here."""
    for outcome in outcomes:
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
        for sink in sinks:
            sink.write(outcome)
        if fail_fast and outcome.error is not None:
            return False
    return True
