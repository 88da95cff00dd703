"""The default values a load builds, bounded by ``max_expansion``.

Loading a class makes its default instance first, as the engine does, and a field of a class
type holds a whole default instance of its own: ``{}`` (two characters) for a class whose
every level holds two instances of the level below, ten levels deep, stands for 2,047
objects. So a load counts what the default values it builds hold: a default instance of a
class nested in another (one, plus its fields), a fixed-size array (its length), and each
other container, ``any`` and custom value made for a field (one). Immutable defaults
(numbers, strings, ids, enums, math values) are shared and cost nothing; the instance a JSON
value is loaded into costs nothing either, since that value stands for it in the input.

The budget is ``max_expansion`` times the size of the input (the length of its compact JSON
text, measured only once the slack is spent) plus :data:`EXPANSION_SLACK`; past it the load
raises :class:`~gameserde.errors.DecodeError` naming the option.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from gameserde._expansion import check_factor, exceeded, expansion_limit
from gameserde.errors import DecodeError

DEFAULT_MAX_EXPANSION = 64.0
"""Default values a load may build per character of its input."""

EXPANSION_SLACK = 4096
"""Default values a load may build beyond the factor (room for a small document)."""


class BudgetExceeded(DecodeError):
    """The default values of a load passed its budget (the loader sets the path)."""


class LoadBudget:
    """What one load may still build; the input is measured when the slack runs out."""

    __slots__ = ("document", "factor", "limit", "size", "spent")

    def __init__(self, document: Any, factor: float | None) -> None:
        self.document = document
        self.factor = check_factor(factor)
        self.spent = 0
        self.size: int | None = None
        self.limit = EXPANSION_SLACK

    def charge(self, amount: int) -> None:
        self.spent += amount
        if self.spent <= self.limit:
            return
        if self.size is None:
            self.size = len(json.dumps(self.document, ensure_ascii=False, separators=(",", ":"),
                                       default=repr))
            self.limit = expansion_limit(self.size, self.factor, EXPANSION_SLACK)
            self.document = None
            if self.spent <= self.limit:
                return
        raise BudgetExceeded(exceeded("loading would build more default values than the budget "
                                   f"allows ({self.spent} so far)", self.limit, self.size,
                                   self.factor), format="o3de")


_ACTIVE: ContextVar[LoadBudget | None] = ContextVar("gameserde_o3de_load_budget", default=None)


def charge(amount: int) -> None:
    """Count ``amount`` default values against the budget of the load under way, if any."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.charge(amount)


@contextmanager
def loading(document: Any, max_expansion: float | None) -> Iterator[None]:
    """A budget for the default values a load of ``document`` builds."""
    token = _ACTIVE.set(LoadBudget(document, max_expansion))
    try:
        yield
    finally:
        _ACTIVE.reset(token)
