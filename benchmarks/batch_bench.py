"""Batch throughput and memory: gameserde.batch decoding a corpus of Godot saves to JSON Lines,
in one process, on the process pool over every core and on a 2-worker Dask LocalCluster.

Corpus (made in a temporary folder): Godot 4 ``store_var`` saves, each a player's record
(name, stats, a position, an inventory of items), in folders of 100 files: ``--small`` files
of about 1 KB and ``--large`` files of about ``--large-mb`` MB (the same record with a longer
inventory). Each engine decodes every file of a corpus to one JSON Lines file
(``batch.run("decode", ..., jsonl=...)``); ``--runs`` runs each, the median is kept:

- one process: the same batch with each chunk run in the calling process (no pool);
- pool: ``batch.run``'s default, a process pool of one worker per core (and a pool of one
  worker, the same machinery on one core);
- dask: a LocalCluster of 2 worker processes of one thread, as ``--dask local -j 2`` starts
  (before the timing).

The engines take turns, run after run: the pool beside one process first, then (with the
cluster started) Dask beside one process again, since a pool forks the process it starts
from, a cluster's threads and all. The throughput ratios against one process are printed with
their goals on a 2-core machine (pool >= 1.8x, Dask >= 1.5x), and the CPU time of all the
engine's processes, with the ratio that CPU time allows on two idle cores ("bound"): on a
machine busy with other work the wall-time ratio falls below it. A ratio is the median of
the runs' ratios, each run against the one-process run of its turn. Then peak memory against
corpus size: for each of ``--memory`` file counts (small files), a fresh process runs the pool
batch and reports its own peak resident size and its largest worker's (``VmHWM``, and
``getrusage`` maxrss of its children), which should not grow with the number of files.

    python3 benchmarks/batch_bench.py [--small N] [--large N] [--large-mb MB] [--runs N]
                                      [--memory N,N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from gameserde import batch, godot
from gameserde.batch import cluster

GOALS = {"pool": 1.8, "dask": 1.5}


def save(i: int, items: int) -> bytes:
    """A player's save as ``store_var`` writes it: about 1 KB with 12 items (80 bytes per
    item more)."""
    value = {
        "version": 4,
        "player": {
            "name": f"player {i}",
            "level": i % 60,
            "hp": 87.5 + i % 10,
            "position": godot.Vector3(i * 0.5, -1.25, 3.0),
            "flags": [i % 2 == 0, i % 3 == 0, True],
        },
        "inventory": [{"id": i * 31 + k, "count": k % 5 + 1, "name": f"item {k % 97}"}
                      for k in range(items)],
    }
    return godot.store_var(value)


def make_corpus(root: Path, count: int, size: int) -> int:
    """``count`` saves of about ``size`` bytes under ``root``, 100 to a folder; their bytes."""
    items = max(0, (size - save(0, 0).__len__()) // 80)
    total = 0
    template = [save(i, items) for i in range(min(count, 100))]
    for i in range(count):
        folder = root / f"p{i // 100:05}"
        if i % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        data = template[i % len(template)]
        (folder / f"s{i:07}.sav").write_bytes(data)
        total += len(data)
    return total


def spin(n: int) -> float:
    """Count to ``n``: CPU work alone, no memory or I/O."""
    started = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return time.perf_counter() - started


def parallel_room(n: int = 10_000_000) -> float:
    """How much faster two processes counting at once finish two counts than one process
    finishing one twice: 2.0 on two idle cores, less when other work takes CPU time."""
    one = spin(n)
    with ProcessPoolExecutor(2) as pool:
        pool.submit(abs, 0).result()  # the workers started
        started = time.perf_counter()
        list(pool.map(spin, [n, n]))
        two = time.perf_counter() - started
    return 2 * one / two


class InProcess(Executor):
    """Runs each task when it is submitted, in the calling process: one process's speed."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def cpu_seconds(engine: Any) -> float:
    """The CPU time this process and the engine's workers have used so far: a pool's workers
    once it has shut them down (``RUSAGE_CHILDREN``), a cluster's as they say themselves. The
    scheduler of a LocalCluster runs in this process."""
    used = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    used += children.ru_utime + children.ru_stime
    if engine is not None and cluster.is_client(engine):
        used += sum(engine.run(time.process_time).values())
    return used


def time_batch(corpus: Path, executor: Any) -> tuple[float, float]:
    """The wall time and the CPU time (all processes) of one batch; an ``int`` executor is a
    new pool of that many workers, as ``None`` (the default pool) is."""
    cpu = cpu_seconds(executor)
    started = time.perf_counter()
    with ProcessPoolExecutor(executor) if isinstance(executor, int) else nullcontext(
            executor) as engine:
        summary = batch.run("decode", [corpus], "godot", framing="store_var",
                            jsonl=corpus.with_suffix(".jsonl"), executor=engine)
    seconds = time.perf_counter() - started
    if summary.failed or not summary.ok:
        sys.exit(f"the benchmark's batch failed: {summary}")
    return seconds, cpu_seconds(executor) - cpu


Times = dict[str, list[tuple[float, float]]]
"""Each engine's runs: wall and CPU seconds."""


def compare(corpus: Path, engines: dict[str, Any], runs: int) -> Times:
    """The wall and CPU times of each engine's runs, the engines taking turns run after run
    (so that a change in the machine's load shows in all of them)."""
    times: Times = {name: [] for name in engines}
    for _ in range(runs):
        for name, executor in engines.items():
            times[name].append(time_batch(corpus, executor))
    return times


def report(label: str, corpus: Path, size: int,
           phases: list[Times], runs: int) -> None:
    """Each engine's median wall time, throughput and CPU time (all its processes), and its
    ratio against one process: the median of the ratios of the runs, each against the one-
    process run of its turn (on a machine whose load changes, steadier than the ratio of
    the medians). "bound" is the ratio the CPU time allows on two idle cores (2 x one
    process's CPU / the engine's, at most 2)."""
    files = sum(1 for _ in corpus.rglob("*.sav"))
    lines = corpus.with_suffix(".jsonl").stat().st_size
    print(f"{label}: {files} files of {size // files:,} bytes ({size / 1e6:.1f} MB; JSON Lines "
          f"{lines / 1e6:.1f} MB), medians of {runs} runs")
    print(f"  {'':<14}{'wall':>9} {'MB/s':>7} {'files/s':>9} {'ratio':>6} {'cpu':>8} "
          f"{'bound':>6}")
    for times in phases:
        base = times["one process"]
        base_cpu = statistics.median(c for _, c in base)
        for name, runs_of in times.items():
            seconds = statistics.median(w for w, _ in runs_of)
            cpu = statistics.median(c for _, c in runs_of)
            ratio = statistics.median(b / w for (b, _), (w, _) in zip(base, runs_of,
                                                                      strict=True))
            bound = 1.0 if name == "one process" else min(2.0, 2 * base_cpu / cpu)
            goal = GOALS.get(name)
            verdict = "" if goal is None else (f"  goal >= {goal}x: "
                                               f"{'met' if ratio >= goal else 'NOT MET'}")
            if name == "pool" and "1-worker pool" in times:
                single = statistics.median(b / w for (b, _), (w, _) in zip(
                    times["1-worker pool"], runs_of, strict=True))
                verdict += f" ({single:.2f}x a 1-worker pool)"
            print(f"  {name:<14}{seconds:8.3f}s {size / seconds / 1e6:7.1f} "
                  f"{files / seconds:9.0f} {ratio:5.2f}x {cpu:7.3f}s {bound:5.2f}x{verdict}")


def memory(tmp: Path, counts: list[int]) -> None:
    corpus = tmp / "memory"
    made = 0
    print("peak memory, pool batch decode to JSON Lines (a fresh process per size):")
    for count in sorted(counts):
        if count > made:  # the larger corpus holds the smaller one: add the files missing
            more = tmp / "more"
            make_corpus(more, count - made, 1024)
            for i, path in enumerate(sorted(more.rglob("*.sav"))):
                n = made + i
                target = corpus / f"p{n // 100:05}" / f"s{n:07}.sav"
                target.parent.mkdir(parents=True, exist_ok=True)
                path.rename(target)
            made = count
        child = subprocess.run([sys.executable, __file__, "--memory-child", str(corpus),
                                str(count), str(tmp / "memory.jsonl")],
                               capture_output=True, text=True, check=True)
        driver, workers, seconds = child.stdout.split()
        print(f"  {count:>8} files: driver {int(driver) / 1024:7.1f} MiB, largest worker "
              f"{int(workers) / 1024:7.1f} MiB ({float(seconds):.1f} s)")


def memory_child(corpus: str, count: int, out: str) -> None:
    """In a fresh process: the first ``count`` files of ``corpus``, then print the peak
    resident sizes (KiB) of this process and of its largest worker, and the time."""
    folders = sorted(os.listdir(corpus))[:(count + 99) // 100]
    started = time.perf_counter()
    summary = batch.run("decode", [os.path.join(corpus, f) for f in folders], "godot",
                        framing="store_var", jsonl=out)
    seconds = time.perf_counter() - started
    if summary.inputs != count or summary.failed:
        sys.exit(f"the memory batch read {summary}")
    print(peak_kib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, seconds)


def peak_kib() -> int:
    """This process's peak resident size in KiB: Linux's ``VmHWM``, counted from the start
    of its program (``getrusage``'s maxrss keeps the peak of the process that started it);
    elsewhere, that maxrss."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=4000, help="small files (1 KB)")
    parser.add_argument("--large", type=int, default=8, help="large files")
    parser.add_argument("--large-mb", type=float, default=10.0, help="a large file's size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memory", default="10000,100000",
                        help="file counts of the memory measure (comma-separated; 0: none)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run in seconds: 1,100 small files and 2 large of "
                             "2.5 MB (a few chunks each: 512 inputs or 4 MiB), 1 run, memory "
                             "at 200 and 1,000 files")
    parser.add_argument("--memory-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        corpus, count, out = args.memory_child
        memory_child(corpus, int(count), out)
        return
    if args.quick:
        args.small, args.large, args.large_mb, args.runs = 1100, 2, 2.5, 1
        args.memory = "200,1000"
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}; two processes "
          f"counting run {parallel_room():.2f}x one (2.0 on two idle cores: the ceiling of "
          f"the ratios below)")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        corpora = {}
        if args.small:
            corpora["small"] = (tmp / "small", make_corpus(tmp / "small", args.small, 1024))
        if args.large:
            corpora["large"] = (tmp / "large", make_corpus(tmp / "large", args.large,
                                                           int(args.large_mb * 1e6)))
        # The pool first, with no cluster in this process (a pool forks it, threads and all);
        # then the cluster, one process timed again beside it.
        engines = {"one process": InProcess(), "1-worker pool": 1, "pool": None}
        pool = {label: compare(corpus, engines, args.runs) for label, (corpus, _) in
                corpora.items()}
        with cluster.client(cluster.LOCAL, 2) as client:
            dask = {label: compare(corpus, {"one process": InProcess(), "dask": client},
                                   args.runs) for label, (corpus, _) in corpora.items()}
        for label, (corpus, size) in corpora.items():
            report(label, corpus, size, [pool[label], dask[label]], args.runs)
        counts = [int(c) for c in args.memory.split(",") if int(c)]
        if counts:
            memory(tmp, counts)
    print(f"load average {os.getloadavg()[0]:.1f}; two processes counting run "
          f"{parallel_room():.2f}x one")

if __name__ == "__main__":
    main()
