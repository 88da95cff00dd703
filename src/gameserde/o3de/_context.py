"""The state a store or load carries: settings, the reporter, the path and the depth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.result import Issue, Outcomes, Reporter, ResultCode, Tasks

__all__ = ["MAX_DEPTH", "NO_DEFAULT", "Context", "LoadContext", "StoreContext", "describe",
           "is_object", "members"]

MAX_DEPTH = 200
"""How deeply values may nest (JSON and Python); deeper input raises an error."""


class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()
"""A store with no default object (O3DE's ``nullptr`` default)."""


def describe(value: Any) -> str:
    """A short text naming a value for a message (never Python's ValueError for an integer
    too long to print, nor a repr as long as the value)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def is_object(value: Any) -> bool:
    """Whether a JSON value is an object (any mapping; its ``items()`` may repeat keys)."""
    return isinstance(value, Mapping)


def members(value: Any) -> list[tuple[str, Any]]:
    """An object's members in document order, duplicates included (an object that repeats
    names keeps every member in a ``pairs`` list, as :class:`~gameserde.o3de.JsonPairs` and
    the text layer's objects do); a name that is not a string (no JSON object has one) is a
    :class:`~gameserde.errors.DecodeError`."""
    held = getattr(value, "pairs", None)
    pairs = list(held) if isinstance(held, list) else list(value.items())
    for name, _ in pairs:
        if not isinstance(name, str):
            raise DecodeError(f"an object member name must be a string, not {name!r:.40}",
                              format="o3de")
    return pairs


_FINE = frozenset((0, int(Outcomes.Success), int(Outcomes.DefaultsUsed),
                   int(Outcomes.PartialDefaults)))


def _escape(step: str) -> str:
    return step.replace("~", "~0").replace("/", "~1")


class Context:
    """Reporting and paths shared by loads and stores."""

    NO_DEFAULT = NO_DEFAULT

    def __init__(self, registry: Registry, reporter: Reporter | None) -> None:
        self.registry = registry
        self.reporters: list[Reporter | None] = [reporter]
        self.path: list[str] = []
        self.issues: list[Issue] = []
        self.depth = 0

    def path_text(self) -> str:
        raise NotImplementedError

    def report(self, task: Tasks, outcome: Outcomes, message: str) -> ResultCode:
        """Report an issue at the current path; returns the code the reporter chose."""
        return self.report_code(ResultCode.of(task, outcome), message)

    def report_code(self, code: ResultCode, message: str) -> ResultCode:
        """Report a given code (``context.Report(result, message)``): the reporter sees every
        report; the issue list keeps those that are not Success, DefaultsUsed or
        PartialDefaults (what O3DE's ``LoadObjectFrom*`` helpers treat as failures)."""
        reporter = self.reporters[-1]
        if reporter is None and code.packed >> 16 in _FINE:
            return code
        path = self.path_text()
        if reporter is not None:
            code = reporter(message, code, path)
            if not isinstance(code, ResultCode):
                raise TypeError("a reporter must return a ResultCode")
        if len(self.reporters) == 1 and code.packed >> 16 not in _FINE:
            self.issues.append(Issue(path, code, message))
        return code

    def push(self, step: str | int) -> None:
        self.path.append(str(step))

    def pop(self) -> None:
        self.path.pop()

    def enter(self) -> None:
        """One level deeper; an error past :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.too_deep()

    def leave(self) -> None:
        self.depth -= 1

    def too_deep(self) -> Exception:
        raise NotImplementedError


class LoadContext(Context):
    """A load: ``clear_containers`` and JSON Pointer paths."""

    def __init__(self, registry: Registry, reporter: Reporter | None,
                 clear_containers: bool) -> None:
        super().__init__(registry, reporter)
        self.clear_containers = clear_containers

    def path_text(self) -> str:
        return "".join("/" + _escape(s) for s in self.path)

    def too_deep(self) -> Exception:
        return DecodeError(f"values nest more than {MAX_DEPTH} levels deep",
                           path="$" + self.path_text(), format="o3de")

    def load(self, t: TypeExpr, current: Any, value: Any, new_instance: bool
             ) -> tuple[Any, ResultCode]:
        """``ContinueLoading``: load ``value`` into a value of type ``t``."""
        raise NotImplementedError

    def load_pointer(self, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
        """``LoadToPointer``: ``t`` is the pointee type, ``current`` the pointee or None."""
        raise NotImplementedError


class StoreContext(Context):
    """A store: ``keep_defaults`` and dotted paths."""

    def __init__(self, registry: Registry, reporter: Reporter | None, keep_defaults: bool) -> None:
        super().__init__(registry, reporter)
        self.keep_defaults = keep_defaults
        self.unwritten = 0
        """How many containers were reported as written as nothing (so that only the
        innermost container losing elements is reported)."""

    def path_text(self) -> str:
        return ".".join(self.path) if self.path else "<root>"

    def too_deep(self) -> Exception:
        return EncodeError(f"values nest more than {MAX_DEPTH} levels deep",
                           path="$." + self.path_text(), format="o3de")

    def store(self, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
        """``JsonSerializer::Store``: write ``value`` of type ``t``."""
        raise NotImplementedError

    def store_pointer(self, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
        """``StoreFromPointer``: ``t`` is the pointee type."""
        raise NotImplementedError

    def store_new_default(self, t: TypeExpr, value: Any, pointer: bool) -> tuple[Any, ResultCode]:
        """``ContinueStoring`` with ``ReplaceDefault``: against a fresh default instance."""
        raise NotImplementedError

    def store_with_class_data(self, t: TypeExpr, value: Any, default: Any, store_type_id: bool
                              ) -> tuple[Any, ResultCode]:
        """``StoreWithClassData``: no default instance is made; ``store_type_id`` puts
        ``$type`` first."""
        raise NotImplementedError
