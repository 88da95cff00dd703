"""Helpers of the engine's hand-written serializers: members read and written by exact name,
as ``ContinueLoadingFromJsonObjectField`` and ``ContinueStoringToJsonObjectField`` do."""

from __future__ import annotations

from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._classes import TYPE_FIELD
from gameserde.o3de._context import LoadContext, StoreContext, describe, members
from gameserde.o3de.registry import TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks

__all__ = ["expect", "find", "load_field", "not_object", "skip_others", "store_field"]


def find(value: Any, name: str) -> tuple[bool, Any]:
    """rapidjson's ``FindMember``: the first member of exactly that name."""
    for key, member in members(value):
        if key == name:
            return True, member
    return False, None


def load_field(ctx: LoadContext, value: Any, name: str, t: TypeExpr, current: Any
                ) -> tuple[Any, ResultCode]:
    """``ContinueLoadingFromJsonObjectField``: DefaultsUsed when the member is missing."""
    found, member = find(value, name)
    if not found:
        return current, ResultCode.of(Tasks.ReadField, Outcomes.DefaultsUsed)
    ctx.push(name)
    try:
        return ctx.load(t, current, member, False)
    finally:
        ctx.pop()


def skip_others(ctx: LoadContext, value: Any, names: tuple[str, ...]) -> ResultCode:
    """Members the engine's serializer never looks at, reported Skipped (the engine ignores
    them silently; gameserde reports them so that nothing goes unseen)."""
    result = ResultCode.task_only(Tasks.ReadField)
    for key, _ in members(value):
        if key not in names and key != TYPE_FIELD:
            ctx.push(key)
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.Skipped,
                "Skipping field as the engine's serializer does not read it."))
            ctx.pop()
    return result


def store_field(ctx: StoreContext, out: dict[str, Any], name: str, t: TypeExpr, value: Any,
                 default: Any) -> ResultCode:
    """``ContinueStoringToJsonObjectField``: the member is left out when it holds the
    default (unless defaults are kept) or storing it halted."""
    ctx.push(name)
    try:
        stored, code = ctx.store(t, value, default)
    finally:
        ctx.pop()
    if not code.halted and (ctx.keep_defaults or code.outcome is not Outcomes.DefaultsUsed):
        out[name] = stored
    return code


def expect(ctx: StoreContext, value: Any, cls: type) -> None:
    """A value of another Python type cannot be stored as this type (EncodeError)."""
    if not isinstance(value, cls):
        raise EncodeError(f"{describe(value)} is not a {cls.__name__}",
                          path="$." + ctx.path_text(), format="o3de")


def not_object(ctx: LoadContext, current: Any, what: str) -> tuple[Any, ResultCode]:
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               f"{what} can only be read from a JSON object.")
