"""KIWAD archives against katsuba 0.6.0 (``katsuba.wad.Archive``), the KingsIsle oracle.

* The corpus's two archives (``../shared/corpus/kingsisle-real/wad/``, from katsuba's own
  tests): ``Test.wad`` reads as katsuba reads it (names, bytes), and rewriting its members
  with its version gives its bytes; ``oob.wad`` is refused by both.
* Archives ``write_wad`` makes of every shape (empty, one member, thousands of small ones, a
  member of a few MB, stored and compressed, nested paths, versions 1 and 2, and random
  ones) read in katsuba, memory-mapped and from the heap, with the same names, the same
  bytes and the same glob matches.
* The hostile archives of ``tests/kingsisle/test_wad.py`` that katsuba can be shown safely
  (not the bombs and the huge count: katsuba allocates what they declare) are refused by
  katsuba too.

katsuba runs once for the whole module (one process, every archive in one batch), in the
environment of ``tests/kingsisle/katsuba_oracle.py``; without it the tests are skipped, or
fail when ``CI=true``.
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError
from gameserde.kingsisle import open_wad, write_wad
from tests.conformance.corpus import corpus_dir, require
from tests.kingsisle.katsuba_oracle import katsuba_python
from tests.kingsisle.test_wad import hostile

WADS = corpus_dir("kingsisle-real") / "wad"

SCRIPT = r"""
import hashlib, json, sys
from katsuba.wad import Archive

def read(path, mode, globs):
    try:
        wad = getattr(Archive, mode)(path)
        names = list(wad)
        members = {n: hashlib.sha256(bytes(wad[n])).hexdigest() for n in names}
        return {"names": names, "members": members, "len": len(wad),
                "globs": {g: list(wad.iter_glob(g)) for g in globs}}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}

requests = json.load(sys.stdin)
json.dump([read(r["path"], r["mode"], r["globs"]) for r in requests], sys.stdout)
"""

GLOBS = ["*", "*.txt", "a/*", "**/*.bin", "[a-c]*", "?", "a/**", "**", "{a,top}*", "[!a]*",
         "a/**/c1*", "*/b?/*", "p[0-2]/**/*.mp3"]


def shapes(root: Path) -> dict[str, Path]:
    """Archives of every shape, written by ``write_wad`` under ``root``."""
    rng = random.Random(22)
    nested = {f"a/b{i % 3}/c{i}.txt": f"text {i}\n".encode() * (i + 1) for i in range(12)}
    nested["a/sound.mp3"] = bytes(rng.randrange(256) for _ in range(500))
    nested["top.bin"] = b"\0" * 3000
    big = b"".join(rng.randrange(4).to_bytes(1, "little") * rng.randrange(1, 40)
                   for _ in range(200_000))
    cases: dict[str, tuple[Any, dict[str, Any]]] = {
        "empty": ({}, {}),
        "empty-v1": ({}, {"version": 1, "flags": None}),
        "one": ({"only.txt": b"one member\n"}, {}),
        "one-empty-member": ({"zero.bin": b""}, {}),
        "one-stored": ({"only.txt": b"one member\n"}, {"compress": False}),
        "thousands": ({f"d{i % 17}/f{i:05}.bin": i.to_bytes(4, "little") * (i % 9)
                       for i in range(3000)}, {}),
        "large-compressed": ({"big.bin": big, "small.txt": b"x"}, {}),
        "large-stored": ({"big.bin": big[:2_000_000]}, {"compress": False}),
        "nested": (nested, {}),
        "nested-v1": (nested, {"version": 1, "flags": None}),
        "nested-flags": (nested, {"flags": 0x5A}),
        "unicode": ({"dossier/été.txt": "é".encode() * 9, "日本/語.xml": b"<a/>"}, {}),
    }
    for n in range(12):
        members = {"/".join(f"p{rng.randrange(4)}" for _ in range(rng.randrange(1, 4)))
                   + f"-{k}.{rng.choice(['txt', 'mp3', 'xml', 'ogg'])}":
                   bytes(rng.randrange(3) for _ in range(rng.randrange(0, 600)))
                   for k in range(rng.randrange(0, 20))}
        cases[f"random-{n}"] = (members, {"compress": rng.choice([None, True, False])})
    paths = {}
    for name, (members, options) in cases.items():
        path = root / f"{name}.wad"
        write_wad(path, members, **options)
        paths[name] = path
    return paths


@pytest.fixture(scope="module")
def katsuba(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What katsuba reads in every archive of the module: ``{label: answer}`` (labels:
    ``corpus/NAME``, ``shape/NAME`` with ``:mmap`` or ``:heap``, ``hostile/CASE``)."""
    python = katsuba_python()
    root = tmp_path_factory.mktemp("wads")
    requests: dict[str, dict[str, Any]] = {}
    if WADS.is_dir():
        for path in sorted(WADS.glob("*.wad")):
            requests[f"corpus/{path.name}"] = {"path": str(path), "mode": "mmap",
                                               "globs": GLOBS}
    for name, path in shapes(root).items():
        for mode in ("mmap", "heap"):
            requests[f"shape/{name}:{mode}"] = {"path": str(path), "mode": mode,
                                                "globs": GLOBS}
    for case, (data, _) in hostile().items():
        if "bomb" in case or case == "count too large":  # katsuba would allocate what
            continue  # the member or the count declares (gigabytes)
        path = root / f"hostile-{len(requests)}.wad"
        path.write_bytes(data)
        requests[f"hostile/{case}"] = {"path": str(path), "mode": "heap", "globs": []}
    done = subprocess.run([python, "-c", SCRIPT], input=json.dumps(list(requests.values())),
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise AssertionError(f"the katsuba oracle failed: {done.stderr.strip()[-2000:]}")
    answers = json.loads(done.stdout)
    return {label: (request, answer)
            for (label, request), answer in zip(requests.items(), answers, strict=True)}


def ours(path: str, globs: list[str]) -> dict[str, Any]:
    with open_wad(path) as wad:
        names = wad.names()
        return {"names": names, "len": len(wad),
                "members": {n: hashlib.sha256(wad[n]).hexdigest() for n in names},
                "globs": {g: wad.glob(g) for g in globs}}


def test_corpus_archives_read_as_katsuba_reads_them(katsuba: dict[str, Any]) -> None:
    require(WADS, "kingsisle-real")
    request, answer = katsuba["corpus/Test.wad"]
    assert ours(request["path"], GLOBS) == answer
    assert answer["names"] == ["subdir/subdir_text1.txt", "text1.txt", "text2.txt",
                               "uncompressed.mp3"]
    with open_wad(request["path"]) as wad:
        assert wad["subdir/subdir_text1.txt"] == b"this is subdir text1\n"
        assert wad["uncompressed.mp3"] == b"uncompressed data\n"
        rewritten = write_wad(None, wad.items(), version=wad.version, flags=wad.flags)
    assert rewritten == Path(request["path"]).read_bytes()


def test_oob_archive_refused_by_both(katsuba: dict[str, Any]) -> None:
    require(WADS, "kingsisle-real")
    request, answer = katsuba["corpus/oob.wad"]
    assert answer == {"error": "KatsubaError: corrupted journal detected"}
    with pytest.raises(DecodeError, match="run past the end") as e:
        open_wad(request["path"])
    assert e.value.offset == 14 and e.value.path == '$["a"]'


def test_every_shape_reads_the_same_in_katsuba(katsuba: dict[str, Any]) -> None:
    labels = [label for label in katsuba if label.startswith("shape/")]
    assert len(labels) == 2 * 24
    for label in labels:
        request, answer = katsuba[label]
        assert "error" not in answer, (label, answer)
        assert ours(request["path"], GLOBS) == answer, label
    assert katsuba["shape/thousands:mmap"][1]["len"] == 3000


def test_hostile_archives_refused_by_katsuba_too(katsuba: dict[str, Any]) -> None:
    refused = {label: answer for label, (_, answer) in katsuba.items()
               if label.startswith("hostile/")}
    assert len(refused) >= 15
    accepted = {label for label, answer in refused.items() if "error" not in answer}
    assert accepted == set(), accepted
