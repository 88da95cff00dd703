"""Offline fuzzing of every decoder, schema loader and the CLI (the targets of
``tests/fuzz/targets.py``), C and pure-Python paths, coverage-guided with atheris.

    .venv/bin/python -m pip install -e '.[fuzz]'         # atheris, into the test environment
    .venv/bin/python scripts/fuzz.py                     # every target, 10^6 inputs each
    .venv/bin/python scripts/fuzz.py fb.decode cli --runs 100000 --jobs 2
    .venv/bin/python scripts/fuzz.py --replay            # the saved reproducers only

Each target runs in a process of its own, seeded with ``tests/fuzz/seeds.py`` and the saved
reproducers (``tests/fuzz/corpus/TARGET/``); its work folder (``build/fuzz/TARGET/``) keeps
the corpus atheris grows, the log, and one file per distinct finding. A finding is anything
``tests/fuzz/harness.py`` rejects (a non-gameserde exception, C and Python disagreeing, output
or CPU time or memory beyond a bound linear in the input); findings listed in
``tests/fuzz/known_issues.py`` are counted apart. At the end the new findings are minimized
(``--save`` copies them into ``tests/fuzz/corpus/``, which CI replays) and a table gives the
inputs run and the findings per target. Without atheris (``--engine random``) inputs are random
mutations of the seeds, without coverage feedback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]


# ---------------------------------------------------------------------------------------------
# The worker: one target, in its own process


def worker(target: str, args: argparse.Namespace) -> None:
    work = Path(args.work) / target
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    (work / "findings").mkdir(exist_ok=True)
    if args.engine == "atheris":
        import atheris

        with atheris.instrument_imports(include=["gameserde"]):
            from tests.fuzz import targets
    else:
        from tests.fuzz import targets
    from tests.fuzz.harness import LIMITS, Finding, run_limited
    from tests.fuzz.known_issues import known
    from tests.fuzz.seeds import seeds

    LIMITS.time = not args.no_time
    LIMITS.memory = args.memory
    fn = targets.TARGETS[target]
    log = work / "findings.jsonl"
    seen = set()
    if log.exists():
        seen = {json.loads(line)["signature"] for line in log.read_text().splitlines()}
    stats: dict[str, Any] = {"runs": 0, "known": {}, "new": 0, "started": time.time()}

    def record(data: bytes, f: Finding) -> None:
        k = known(target, f)
        if k is not None:
            stats["known"][k.summary] = stats["known"].get(k.summary, 0) + 1
        else:
            stats["new"] += 1
        if f.signature in seen:
            return
        seen.add(f.signature)
        path = work / "findings" / f"{f.kind}-{_digest(data)}"
        path.write_bytes(data)
        with log.open("a") as out:
            out.write(json.dumps({"signature": f.signature, "kind": f.kind, "detail": f.detail,
                                  "known": k.summary if k else None, "file": str(path),
                                  "size": len(data)}) + "\n")

    def one(data: bytes) -> None:
        try:
            run_limited(target, fn, data)
        except Finding as f:
            record(data, f)
        stats["runs"] += 1
        if stats["runs"] % 1000 == 0:
            (work / "stats.json").write_text(json.dumps(stats))

    initial = [*seeds(target), *(p.read_bytes() for p in sorted((CORPUS / target).glob("*")))]
    for data in initial:
        (work / "corpus" / _digest(data)).write_bytes(data)
    if args.engine == "atheris":
        atheris.Setup([sys.argv[0], f"-runs={args.runs}", f"-max_len={args.max_len}",
                       "-timeout=300", "-rss_limit_mb=8192", "-print_final_stats=1",
                       f"-artifact_prefix={work}/", str(work / "corpus")], one)
        atheris.Fuzz()  # exits the process when the runs are done
    from tests.fuzz.mutate import apply, random_ops

    rng = random.Random(args.seed)
    for data in initial:
        one(data)
    while stats["runs"] < args.runs:
        data = apply(rng.choice(initial), random_ops(rng), rng.choice(initial))
        one(data[:args.max_len])
    (work / "stats.json").write_text(json.dumps(stats))


# ---------------------------------------------------------------------------------------------
# The driver


def minimize(target: str, data: bytes, signature: str, tries: int = 3000) -> bytes:
    """A smaller input with the same finding signature (chunks removed, then bytes zeroed)."""
    from tests.fuzz.harness import Finding
    from tests.fuzz.targets import TARGETS

    fn = TARGETS[target]

    def same(candidate: bytes) -> bool:
        try:
            fn(candidate)
        except Finding as f:
            return f.signature == signature
        return False

    if not same(data):
        return data
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and tries > 0:
        i = 0
        while i < len(data) and tries > 0:
            candidate = data[:i] + data[i + chunk:]
            tries -= 1
            if candidate != data and same(candidate):
                data = candidate
            else:
                i += chunk
        chunk //= 2
    for i in range(len(data)):
        if tries <= 0:
            break
        if data[i]:
            candidate = data[:i] + b"\0" + data[i + 1:]
            tries -= 1
            if same(candidate):
                data = candidate
    return data


def replay() -> int:
    """Run every saved reproducer; print what each one finds now."""
    from tests.fuzz.harness import Finding
    from tests.fuzz.known_issues import known
    from tests.fuzz.targets import TARGETS

    bad = 0
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        for path in sorted(folder.iterdir()):
            try:
                TARGETS[folder.name](path.read_bytes())
                print(f"{folder.name}/{path.name}: passes")
            except Finding as f:
                k = known(folder.name, f)
                bad += k is None
                print(f"{folder.name}/{path.name}: {'KNOWN ' if k else ''}{f}")
    return 1 if bad else 0


def main() -> int:
    if "--worker" in sys.argv:  # nothing of gameserde imported yet: atheris instruments it
        parser = argparse.ArgumentParser()
        for flag, kind in (("--runs", int), ("--max-len", int), ("--seed", int),
                           ("--work", str), ("--engine", str), ("--worker", str),
                           ("--jobs", int)):
            parser.add_argument(flag, type=kind)
        for flag in ("--no-time", "--memory", "--save"):
            parser.add_argument(flag, action="store_true")
        args = parser.parse_args()
        worker(args.worker, args)
        return 0
    from tests.fuzz.targets import TARGETS

    try:
        import atheris  # noqa: F401
        default_engine = "atheris"
    except ImportError:
        default_engine = "random"
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help=f"targets to run (default: all): {', '.join(TARGETS)}")
    parser.add_argument("--runs", type=int, default=1_000_000, help="inputs per target")
    parser.add_argument("--max-len", type=int, default=4096, help="longest input")
    parser.add_argument("--jobs", type=int, default=1, help="targets run at once")
    parser.add_argument("--engine", choices=["atheris", "random"], default=default_engine)
    parser.add_argument("--seed", type=int, default=0, help="random engine seed")
    parser.add_argument("--work", default=str(ROOT / "build" / "fuzz"), help="work folder")
    parser.add_argument("--no-time", action="store_true", help="no CPU-time bound per input")
    parser.add_argument("--memory", action="store_true",
                        help="bound the traced memory per input (tracemalloc; slower)")
    parser.add_argument("--save", action="store_true",
                        help="copy minimized new findings into tests/fuzz/corpus/")
    parser.add_argument("--replay", action="store_true", help="run the saved reproducers")
    args = parser.parse_args()
    if args.replay:
        return replay()
    names = args.targets or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        parser.error(f"unknown targets: {', '.join(unknown)}")
    passed = [f"--runs={args.runs}", f"--max-len={args.max_len}", f"--seed={args.seed}",
              f"--work={args.work}", f"--engine={args.engine}"]
    passed += [flag for flag, on in (("--no-time", args.no_time), ("--memory", args.memory))
               if on]
    running: list[tuple[str, subprocess.Popen[bytes], float]] = []
    results = {}
    queue = list(names)
    while queue or running:
        while queue and len(running) < args.jobs:
            name = queue.pop(0)
            work = Path(args.work) / name
            work.mkdir(parents=True, exist_ok=True)
            for stale in ("stats.json", "findings.jsonl"):
                (work / stale).unlink(missing_ok=True)
            with (work / "log.txt").open("wb") as log:
                proc = subprocess.Popen([sys.executable, __file__, "--worker", name, *passed],
                                        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
            running.append((name, proc, time.time()))
            print(f"{name}: started (log: {work / 'log.txt'})", flush=True)
        time.sleep(1)
        for item in list(running):
            name, proc, start = item
            if proc.poll() is None:
                continue
            running.remove(item)
            results[name] = _summary(name, Path(args.work) / name, proc.returncode,
                                     time.time() - start, args.save)
    print(f"\n{'target':<16} {'inputs':>9} {'seconds':>8} {'new':>5} {'known':>6}  status")
    for name in names:
        r = results[name]
        print(f"{name:<16} {r['runs']:>9} {r['seconds']:>8.0f} {r['new']:>5} {r['known']:>6}  "
              f"{r['status']}")
    return 1 if any(r["new"] or r["status"] != "ok" for r in results.values()) else 0


def _summary(name: str, work: Path, code: int, seconds: float, save: bool) -> dict[str, Any]:
    stats = json.loads((work / "stats.json").read_text()) if (work / "stats.json").exists() \
        else {"runs": 0}
    log = (work / "log.txt").read_text(errors="replace")
    done = re.findall(r"Done (\d+) runs", log)
    runs = int(done[-1]) if done else stats["runs"]
    status = "ok"
    crashes = re.findall(r"^(?:==\d+== ?ERROR: libFuzzer: .*|.*Test unit written to .*)$", log,
                         re.MULTILINE)
    if code != 0 or crashes:
        status = f"exit {code}: {'; '.join(crashes)[:200]}"
    findings = []
    if (work / "findings.jsonl").exists():
        findings = [json.loads(line) for line in (work / "findings.jsonl").read_text()
                    .splitlines()]
    new = [f for f in findings if f["known"] is None]
    print(f"\n== {name}: {runs} inputs in {seconds:.0f} s; {len(new)} new, "
          f"{len(findings) - len(new)} known distinct findings; {status}", flush=True)
    for f in findings:
        data = Path(f["file"]).read_bytes()
        if f["known"] is None and f["kind"] not in ("slow", "memory"):
            data = minimize(name, data, f["signature"])
        label = "KNOWN " if f["known"] else ""
        print(f"  {label}{f['detail']}\n    reproducer ({len(data)} bytes): {data[:120]!r}")
        if save and f["known"] is None:
            (CORPUS / name).mkdir(parents=True, exist_ok=True)
            (CORPUS / name / f"{f['kind']}-{_digest(data)}").write_bytes(data)
    return {"runs": runs, "seconds": seconds, "new": len(new),
            "known": len(findings) - len(new), "status": status}


if __name__ == "__main__":
    sys.exit(main())
