"""The CI sample of the fuzz targets (``targets.py``; the offline campaign is
``scripts/fuzz.py``): a few hundred inputs per target, mutations of the seeds drawn by
hypothesis (derandomized, so every run tries the same inputs), plus every saved reproducer.

A finding fails the test unless ``known_issues.KNOWN`` lists it; an entry there whose
reproducers no longer reproduce it fails too, so the list is emptied as the fixes land.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import hostile
from tests.fuzz.harness import Finding
from tests.fuzz.known_issues import KNOWN, known
from tests.fuzz.mutate import KINDS, apply
from tests.fuzz.seeds import seeds
from tests.fuzz.targets import TARGETS

CORPUS = Path(__file__).parent / "corpus"

EXAMPLES = {"cli": 60, "cli.convert": 80, "cli.batch": 30, "rows": 100, "fb.load_schema": 100,
            "godot.inspect": 100}
"""Inputs per target in CI (default 200), so the whole sample takes about half a minute."""

CRAFTED = [
    ("fb.decode", bytes([5]) + hostile.fb_dag(14)),
    ("fb.to_json", bytes([5]) + hostile.fb_dag(14)),
    ("cli", bytes([4, 5]) + hostile.fb_dag(14)),
]
"""Hostile inputs a fuzzer is unlikely to build, checked as the saved reproducers are."""


def saved() -> list[tuple[str, bytes]]:
    """Every saved reproducer, as (target, input)."""
    return [(folder.name, path.read_bytes())
            for folder in sorted(p for p in CORPUS.glob("*") if p.is_dir())
            for path in sorted(folder.iterdir())]


def check(target: str, data: bytes) -> None:
    try:
        TARGETS[target](data)
    except Finding as f:
        if known(target, f) is None:
            raise AssertionError(f"{target}: {f}\nreproducer: {data!r}") from None


@st.composite
def inputs(draw: st.DrawFn, target: str) -> bytes:
    pool = seeds(target)
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=512))
    ops = draw(st.lists(st.tuples(st.integers(0, KINDS - 1), st.integers(0, 0xFFFF),
                                  st.integers(0, 0xFFFF)), max_size=8))
    return apply(draw(st.sampled_from(pool)), ops, draw(st.sampled_from(pool)))


@pytest.mark.parametrize("target", list(TARGETS))
def test_seeds_pass(target: str) -> None:
    """The seeds (valid inputs, and CLI calls naming the known CLI defects)."""
    for data in seeds(target):
        check(target, data)


def _finding(target: str, data: bytes) -> Finding | None:
    try:
        TARGETS[target](data)
    except Finding as f:
        return f
    return None


@pytest.mark.parametrize("target", list(TARGETS))
def test_fuzz_sample(target: str) -> None:
    @settings(max_examples=EXAMPLES.get(target, 200), deadline=None, derandomize=True,
              database=None, suppress_health_check=list(HealthCheck))
    @given(inputs(target))
    def run(data: bytes) -> None:
        check(target, data)

    run()


@pytest.mark.parametrize(("target", "data"), saved() + CRAFTED,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(saved() + CRAFTED)])
def test_reproducers(target: str, data: bytes) -> None:
    check(target, data)


def test_known_issues_still_reproduce() -> None:
    """Each known issue is still found by some reproducer; when one is not, it was fixed:
    delete its entry from ``known_issues.KNOWN``."""
    found = set()
    for target, data in saved() + CRAFTED:
        f = _finding(target, data)
        if f is not None and (k := known(target, f)) is not None:
            found.add(k)
    stale = [k.summary for k in KNOWN if k not in found and k.kind not in ("slow", "memory")]
    assert not stale, f"fixed? delete these entries from tests/fuzz/known_issues.py: {stale}"
