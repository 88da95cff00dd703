"""What the compiled load and store plans share: giving up, packed result codes, the cache.

A plan is :func:`~gameserde.o3de.load` or :func:`~gameserde.o3de.store` specialised once per
registry and type (:mod:`gameserde.o3de._loadplan`, :mod:`gameserde.o3de._storeplan`). The
reference -- ``load.py``, ``store.py`` and the per-type modules -- stays the definition: a plan
covers the shapes documents usually have and raises :class:`Slow` on anything else (a report
that is not Success, DefaultsUsed or PartialDefaults, a JSON or Python value of an unusual
kind, nesting near the limit); the public functions then run the reference over the whole
input, which gives the exact value, result, issues and errors. Plans run only where the
reference's output depends on nothing but the input (no reporter; on load no target and no
``clear_containers``), so giving up part way leaves nothing behind.

Result codes travel as packed integers (``ResultCode.packed``). Inside a plan every code is
Success, DefaultsUsed or PartialDefaults (or has no outcome yet), so :func:`combine` needs
only the one special merge those can meet.

``ENABLED`` switches plans off (tests compare both ways).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks

__all__ = ["ENABLED", "FINE", "Slow", "accepted", "cached", "combine", "packed"]

ENABLED = True
"""Whether load and store try their compiled plans first."""

FINE = frozenset((0, 1, 4, 5))
"""Outcomes a plan carries on with: none yet, Success, DefaultsUsed, PartialDefaults."""


class Slow(Exception):
    """A plan met something it leaves to the reference."""


def packed(task: Tasks, outcome: Outcomes) -> int:
    """The packed code ``ResultCode.of(task, outcome)``."""
    return ResultCode.of(task, outcome).packed


def accepted(code: ResultCode, reported: bool) -> int:
    """The packed code of a value the reference read or wrote for a plan, which the plan
    carries on with; :class:`Slow` when an issue was reported or the outcome is not one a
    plan carries."""
    if reported or code.packed >> 16 not in FINE:
        raise Slow
    return code.packed


def combine(a: int, b: int) -> int:
    """``ResultCode.combine`` for codes whose outcomes are in :data:`FINE` (and whose
    processing is therefore Completed or unset): the larger code, and Success with
    DefaultsUsed makes PartialDefaults."""
    result = a if a >= b else b
    if (a >> 16) * (b >> 16) == 4:
        result = (result & 0xFFFF) | 0x50000
    return result


P = TypeVar("P")

_SETS: weakref.WeakKeyDictionary[Registry, tuple[tuple[int, int, int], dict[Any, Any]]] = (
    weakref.WeakKeyDictionary())


def cached(registry: Registry, key: tuple[str, TypeExpr, bool],
           build: Callable[[], P]) -> P:
    """The plan of ``key`` for ``registry``, built on first use; a registry that gained types
    since gets new plans."""
    stamp = (len(registry.classes), len(registry.enums), len(registry.serializers))
    held = _SETS.get(registry)
    if held is None or held[0] != stamp:
        held = (stamp, {})
        _SETS[registry] = held
    plans = held[1]
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = build()
    return plan
