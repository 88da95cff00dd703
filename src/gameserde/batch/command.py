"""The command line's batch mode: ``gameserde VERB FORMAT`` with several inputs, a directory,
a glob, ``--jsonl``, ``-j`` or ``-r`` (``gameserde.cli`` decides, without importing this).
The action runs through :func:`gameserde.batch.run`; each note and failure is one line on
standard error (``gameserde: KEY: MESSAGE``), then a summary line; the exit status is 1 when
any input failed."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from gameserde.batch import Summary, run
from gameserde.errors import UsageError

__all__ = ["run_command"]

def run_command(args: argparse.Namespace, read: dict[str, Any],
                written: dict[str, Any]) -> int:
    """Run the batch the arguments name; print failures and the summary on standard error."""
    verb = args.verb
    if "-" in args.inputs:
        raise UsageError("standard input (-) is one input: it cannot be part of a batch")
    if verb == "encode":
        raise UsageError("encode takes one JSON file; batches decode, verify, inspect and "
                         "convert")
    if verb == "convert" and args.output is None:
        raise UsageError("a batch convert writes its files under -o DIR")
    if verb == "verify" and args.output is not None:
        raise UsageError("a batch verify writes no files: its reports go to --jsonl FILE or "
                         "--parquet DIR")
    jsonl = getattr(args, "jsonl", None)
    parquet = getattr(args, "parquet", None)
    enums = getattr(args, "parquet_enums", None)
    if enums is not None and parquet is None:
        raise UsageError("--parquet-enums applies to a Parquet dataset: add --parquet DIR")
    if (verb in ("decode", "inspect") and args.output is None and jsonl is None
            and parquet is None):
        jsonl = "-"  # JSON Lines on standard output
    to = {k: v for k, v in written.items() if read.get(k, object()) != v}
    bar = _progress_bar()
    try:
        with _executor(args) as pool:
            summary = run(verb, args.inputs, args.format, to=to if verb == "convert" else None,
                          executor=pool, jsonl=None if jsonl == "-" else jsonl,
                          stdout=jsonl == "-", out_dir=args.output, parquet=parquet,
                          parquet_enums=enums or "name",
                          recursive=args.recursive,
                          fail_fast=args.fail_fast, strict=args.strict,
                          progress=None if bar is None else
                          lambda outcome: bar.update(outcome.size), **read)
    finally:
        if bar is not None:
            bar.close()
    return report(summary)


@contextmanager
def _executor(args: argparse.Namespace) -> Iterator[Any]:
    """The pool of ``-j N`` processes (default: one per core), or with ``--dask`` a client of
    the cluster (``local``: one started for the run, of ``-j N`` workers)."""
    if args.dask is not None:
        from gameserde.batch import cluster

        with cluster.client(args.dask, args.jobs) as client:
            yield client
        return
    with ProcessPoolExecutor(max_workers=args.jobs or os.cpu_count() or 1) as pool:
        yield pool


def _progress_bar() -> Any:
    """A tqdm bar of bytes on standard error when it is a terminal (files and bytes done, the
    rate, the time left is unknown: the inputs are read as they go); None otherwise, or
    without the ``progress`` extra, which a line then names."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        print("gameserde: no progress bar: pip install 'gameserde[progress]' adds one (tqdm)",
              file=sys.stderr)
        return None
    return tqdm(unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                desc="gameserde", leave=False)


def report(summary: Summary) -> int:
    """Each note and failure, then the summary, on standard error; 1 when any input
    failed."""
    for key, note in summary.notes:
        print(f"gameserde: {key}: {note}", file=sys.stderr)
    for failure in summary.failures:
        print(f"gameserde: {failure.key}: {failure.message}", file=sys.stderr)
    stopped = " (stopped at the first failure: --fail-fast)" if summary.stopped else ""
    print(f"gameserde: {summary}{stopped}", file=sys.stderr)
    return 1 if summary.failed else 0
