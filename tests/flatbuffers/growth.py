"""Cost measures for the growth tests: how many Python and builtin calls a function makes
(``sys.setprofile``) and its peak traced memory (``tracemalloc``). Deterministic: nothing is
timed."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from gameserde.errors import GameserdeError
from gameserde.flatbuffers import _accel


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the gameserde error it raises."""
    try:
        return fn()
    except GameserdeError as e:
        return e


def calls(fn: Callable[[], Any], *, accelerated: bool = False) -> int:
    """The Python and builtin calls ``fn`` makes (after one warm-up run, which builds the
    cached plans)."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    saved = _accel.ENABLED
    _accel.ENABLED = accelerated
    try:
        attempt(fn)
        sys.setprofile(profile)
        try:
            attempt(fn)
        finally:
            sys.setprofile(None)
    finally:
        _accel.ENABLED = saved
    return count


def peak(fn: Callable[[], Any], *, accelerated: bool) -> int:
    """The peak traced memory of ``fn`` (after one warm-up run)."""
    saved = _accel.ENABLED
    _accel.ENABLED = accelerated
    try:
        attempt(fn)
        tracemalloc.start()
        try:
            attempt(fn)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        _accel.ENABLED = saved


def assert_linear(costs: list[tuple[int, int]], what: str, slack: float = 1.5,
                  base: int = 0) -> None:
    """``costs`` are (input size, cost) pairs for growing inputs: the cost grows at most
    ``slack`` times as fast as the input (plus ``base``, for constant parts)."""
    (n0, c0) = costs[0]
    for n, c in costs[1:]:
        assert c <= slack * c0 * n / n0 + base, (
            f"{what}: cost {c0} for {n0} input bytes but {c} for {n}")


def assert_flat(costs: list[int], what: str, slack: float = 1.2, base: int = 0) -> None:
    """The cost does not grow with what grows (a claimed length, an array length unused)."""
    for c in costs[1:]:
        assert c <= slack * costs[0] + base, f"{what}: costs {costs}"
