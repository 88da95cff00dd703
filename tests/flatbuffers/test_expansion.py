"""Buffers whose offsets share data (DAGs, the families of :mod:`hostile_buffers`): ``decode``
and ``to_json`` are bounded by the expansion budget (``max_expansion``), in the C decoder and
the pure-Python reference alike (``verify`` and ``inspect``: ``test_verify_shared.py``).

1. Each family exceeds the default budgets: ``decode`` and ``to_json`` raise the same
   :class:`DecodeError` with the accelerator on and off, naming the budget and how to raise
   it; within it they give the full value.
2. What the budgets count: ``decode`` the bytes of the buffer the value reproduces (a buffer
   without shared offsets needs ``max_expansion=1``; the C and Python paths agree on every
   threshold), ``to_json`` the characters of its text.
3. Growth: calls (pure Python) and peak memory (both paths) grow linearly with the buffer,
   where without the budget they grew exponentially.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.cli import main
from gameserde.errors import DecodeError
from gameserde.flatbuffers import _accel, load_schema
from tests.flatbuffers import hostile_buffers as hb
from tests.flatbuffers.growth import assert_linear, attempt, calls, peak
from tests.flatbuffers.mutation import random_schema_buffers, valid_buffers
from tests.flatbuffers.test_reader import SEED_BASE64, SEED_SCHEMA

NODE = load_schema(hb.NODE_SCHEMA)

FAMILIES = hb.FAMILIES


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def outcome(fn: Callable[[], Any], accelerated: bool) -> Any:
    _accel.ENABLED = accelerated
    result = attempt(fn)
    return str(result) if isinstance(result, DecodeError) else result


def both(fn: Callable[[], Any]) -> Any:
    """``fn()`` (or its error's text) with the accelerator on and off: the same (NaN too)."""
    fast, slow = outcome(fn, True), outcome(fn, False)
    assert repr(fast) == repr(slow)
    return slow


# ---------------------------------------------------------------------------------------------
# 1. The default budget


@pytest.mark.parametrize("family", list(FAMILIES))
def test_families_exceed_the_default_budget(family: str) -> None:
    buf = FAMILIES[family](240)
    NODE.verify(buf, max_tables=2**62)  # sound: C++ only counts too many tables
    for fn in (lambda: NODE.decode(buf), lambda: NODE.decode(buf, defaults=True),
               lambda: NODE.to_json(buf), lambda: NODE.to_json(buf, strict=False)):
        text = both(fn)
        assert isinstance(text, str) and text.startswith("flatbuffers decode error")
        assert "max_expansion=" in text and f"{len(buf)}-byte buffer" in text, text


def test_errors_name_the_budget_and_how_to_raise_it() -> None:
    buf = hb.dag(30)
    for accelerated in (True, False):
        _accel.ENABLED = accelerated
        with pytest.raises(DecodeError) as info:
            NODE.decode(buf, max_expansion=2)
        e = info.value
        assert e.message == (
            f"decoding would reproduce more than {2 * len(buf)} bytes of the {len(buf)}-byte "
            "buffer (max_expansion=2): its offsets share data, copied at every reference; "
            "a larger max_expansion allows more (None or inf: no limit)")
        assert e.path.startswith("$.kids[0]") and e.offset is not None and e.offset < len(buf)
        with pytest.raises(DecodeError) as info:
            NODE.to_json(buf, max_expansion=2.5)
        e = info.value
        assert e.message == (
            f"the text would have more than {int(2.5 * len(buf)) + 4096} characters "
            f"(max_expansion=2.5 times the {len(buf)}-byte buffer, and 4096): shared offsets "
            "print their data at every reference, deep nesting indents every line; a larger "
            "max_expansion allows more (None or inf: no limit)")
        assert e.path.startswith("$.kids[0]") and e.offset is not None and e.offset < len(buf)
    for bad in (-1, math.nan, "2", True):
        with pytest.raises(ValueError, match="max_expansion must be a number"):
            NODE.decode(buf, max_expansion=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="max_expansion must be a number"):
            NODE.to_json(buf, max_expansion=bad)  # type: ignore[arg-type]


def test_small_dags_decode_in_full() -> None:
    buf = hb.dag(6)

    def tree(levels: int) -> dict[str, Any]:
        return {"kids": [tree(levels - 1)] * 2} if levels else {}

    assert both(lambda: NODE.decode(buf, max_expansion=None)) == tree(6)
    assert both(lambda: NODE.decode(buf, max_expansion=1000)) == tree(6)
    text = both(lambda: NODE.to_json(buf, max_expansion=None))
    assert text.count("{") == 2**7 - 1
    view = NODE.view(buf)
    with pytest.raises(DecodeError, match="max_expansion"):
        NODE.view(hb.dag(40)).kids.tolist()
    assert view.kids.tolist() == tree(6)["kids"]
    assert view.kids == view.kids and view == NODE.view(buf)


def test_view_equality_within_the_budget() -> None:
    """Comparing views decodes them within the default budget: a vector of tables that share
    a string costs one budget, not one per element."""
    buf = hb.shared_string(2000, 4096)
    kids = NODE.view(buf).kids
    for fn in (lambda: kids == kids, lambda: NODE.view(buf) == NODE.view(buf)):
        with pytest.raises(DecodeError, match="max_expansion"):
            fn()
    assert kids[0] == kids[1]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_c_and_python_agree_on_every_threshold(family: str) -> None:
    """The budget's boundary is the same in the C decoder and the reference: for factors
    around the value's cost, the same value or the same error."""
    buf = FAMILIES[family](16)
    need = needed_factor(buf)
    assert need > 1
    for k in range(-8, 9):
        factor = need * (1 + k / 64)
        decoded = both(lambda f=factor: NODE.decode(buf, max_expansion=f))
        assert isinstance(decoded, dict) == (factor >= need), (factor, need)
        decoded = both(lambda f=factor: NODE.decode(buf, max_expansion=f, defaults=True))
        assert isinstance(decoded, dict) == (factor >= need), (factor, need)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_json_budget_counts_characters(family: str) -> None:
    """``to_json`` prints at most ``max_expansion`` times the buffer's size and 4096
    characters."""
    buf = FAMILIES[family](64)
    for strict in (True, False):
        text = both(lambda s=strict: NODE.to_json(buf, strict=s, max_expansion=None))
        over = len(text) - 4096
        assert over > 0
        for extra in (-0.5, 0.5):
            factor = (over + extra) / len(buf)
            out = both(lambda f=factor, s=strict: NODE.to_json(buf, strict=s, max_expansion=f))
            assert (out == text) == (extra > 0), (factor, over)


def needed_factor(buf: bytes) -> float:
    """The least ``max_expansion`` with which ``buf`` decodes (bisection on the reference)."""
    _accel.ENABLED = False

    def fails(factor: float) -> bool:
        return isinstance(attempt(lambda: NODE.decode(buf, max_expansion=factor)), DecodeError)

    lo, hi = 0.0, 1.0
    while fails(hi):
        lo, hi = hi, hi * 2
    for _ in range(40):
        mid = (lo + hi) / 2
        if fails(mid):
            lo = mid
        else:
            hi = mid
    _accel.ENABLED = True
    return hi


# ---------------------------------------------------------------------------------------------
# 2. What the budget counts


def test_buffers_without_shared_offsets_need_no_expansion() -> None:
    """Every byte of a tree-shaped buffer is reproduced at most once: ``max_expansion=1`` is
    enough (vtables, which every table of a kind shares, are not counted)."""
    cases = [(schema, buf) for schema, buf in valid_buffers(load_schema)]
    cases += [(schema, buf) for _, schema, buf in random_schema_buffers(load_schema)]
    seed = load_schema(SEED_SCHEMA)
    cases.append((seed, base64.b64decode(SEED_BASE64)))
    for schema, buf in cases:
        for defaults in (False, True):
            value = both(lambda s=schema, b=buf, d=defaults: s.decode(
                b, defaults=d, max_expansion=1))
            assert not isinstance(value, str) or "max_expansion" not in value, value


def test_wide_trees_need_no_expansion() -> None:
    buf = hb.shared_string(1, 1 << 16)
    assert both(lambda: NODE.decode(buf, max_expansion=1))["kids"][0]["name"] == "x" * 65536


# ---------------------------------------------------------------------------------------------
# 3. Growth


def read(buf: bytes) -> Any:
    return (attempt(lambda: NODE.decode(buf, defaults=True)),
            attempt(lambda: NODE.to_json(buf, strict=False, defaults=True)))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_decode_and_json_grow_linearly(family: str) -> None:
    """At sizes where the full expansion is over the budgets (below them the cost follows
    the expansion)."""
    bufs = [FAMILIES[family](n) for n in (64, 256)]
    assert_linear([(len(b), calls(lambda b=b: read(b))) for b in bufs], f"{family} calls",
                  base=20000)
    bufs = [FAMILIES[family](n) for n in (96, 384)]
    for accelerated in (True, False):
        assert_linear([(len(b), peak(lambda b=b: read(b), accelerated=accelerated))
                       for b in bufs], f"{family} memory", base=256 << 10)


PEAK_PER_INPUT_BYTE = 512
"""docs/flatbuffers.md's K: what ``decode`` and ``to_json`` trace at most per buffer byte
under their default budgets, beyond 256 KiB."""


@pytest.mark.parametrize("family", list(FAMILIES))
def test_memory_is_within_k_times_the_buffer(family: str) -> None:
    for n in (24, 96, 384):
        buf = FAMILIES[family](n)
        for accelerated in (True, False):
            cost = peak(lambda buf=buf: read(buf), accelerated=accelerated)
            assert cost <= PEAK_PER_INPUT_BYTE * len(buf) + (256 << 10), (
                f"{cost} bytes traced for a {len(buf)}-byte buffer")


def test_cli_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "n.fbs").write_text(hb.NODE_SCHEMA)
    (tmp_path / "dag.bin").write_bytes(hb.dag(8))
    args = ["decode", "flatbuffers", "--pretty", "--schema", str(tmp_path / "n.fbs"), "-o",
            str(tmp_path / "out.json"), str(tmp_path / "dag.bin")]
    assert main(args) == 1
    assert "max_expansion=64 times the 180-byte buffer" in capsys.readouterr().err
    assert main([*args, "--max-expansion", "inf"]) == 0
    assert (tmp_path / "out.json").read_text() == NODE.to_json(hb.dag(8), max_expansion=None)
    with pytest.raises(SystemExit):
        main([*args, "--max-expansion", "-1"])
