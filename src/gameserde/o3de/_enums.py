"""Enums as O3DE stores and loads them (``JsonSerializer::StoreEnum``, ``LoadEnum``).

Storing walks the registered values in registration order: an exact match is written as its
name; otherwise every non-zero registered value whose bits are all set is collected, ordered by
descending *unsigned* value (equal values keep the first registered), and written as an array
of names followed by the leftover bits as one integer. Loading reads a number (integers only,
range-checked), a string (first as a C integer, then a name, case-insensitively) or an array
of those OR'ed together.
"""

from __future__ import annotations

from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._context import NO_DEFAULT, LoadContext, StoreContext, describe
from gameserde.o3de._primitives import number_kind, numeric_cast, text_to_int
from gameserde.o3de.registry import EnumInfo, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks

__all__ = ["load_enum", "store_enum"]

_U64 = (1 << 64) - 1


def _wrap(value: int, t: TypeExpr) -> int:
    """``static_cast`` of an integer to the underlying type."""
    value &= (1 << t.size) - 1
    if t.signed and value >= 1 << (t.size - 1):
        value -= 1 << t.size
    return value


def _usable(info: EnumInfo) -> bool:
    t = info.underlying
    return t.size in (16, 32, 64) if t.signed else t.size in (8, 16, 32, 64)


def _options(info: EnumInfo, message: str) -> str:
    t = info.underlying
    listed = ", ".join(f'"{name}" ({value if t.signed else value & _U64})'
                       for name, value in info.values)
    return f"{message} Available options are: {listed}"


def _python(info: EnumInfo, value: int) -> Any:
    if info.python_type is not None:
        try:
            return info.python_type(value)
        except ValueError:
            return value
    return value


def _from_number(ctx: LoadContext, info: EnumInfo, value: Any) -> tuple[int | None, ResultCode]:
    if number_kind(value) != "int":
        return None, ctx.report(Tasks.ReadField, Outcomes.Unsupported, _options(
            info, "Failed to read enum value from number field."))
    result, code = numeric_cast(ctx, value, info.underlying)
    if result is not None:
        return result, ctx.report_code(code, "Successfully read enum value from number field.")
    return None, ctx.report_code(code, _options(info, "Failed to read enum value from number "
                                                      "field."))


def _from_string(ctx: LoadContext, info: EnumInfo, text: str) -> tuple[int | None, ResultCode]:
    if not text:
        return None, ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                "Input string is empty, no enumeration can be parsed from it.")
    ctx.reporters.append(lambda _message, code, _path: code)
    try:
        parsed, code = text_to_int(ctx, text, info.underlying)
    finally:
        ctx.reporters.pop()
    if parsed is not None and code.outcome is Outcomes.Success:
        return parsed, code
    folded = text.lower() if text.isascii() else None
    for name, value in info.values:
        if folded is not None and len(name) == len(text) and name.lower() == folded:
            return _wrap(value, info.underlying), ctx.report(
                Tasks.ReadField, Outcomes.Success, "Successfully loaded enum value from string")
    return None, ctx.report(Tasks.ReadField, Outcomes.Unsupported, _options(
        info, "Unsupported value for string. Enum value could not read."))


def load_enum(ctx: LoadContext, info: EnumInfo, current: Any, value: Any
              ) -> tuple[Any, ResultCode]:
    """``LoadEnum`` into ``current`` (an integer)."""
    if not _usable(info):
        return current, ctx.report(Tasks.Convert, Outcomes.Unknown, (
            f"{'Signed' if info.underlying.signed else 'Unsigned'} underlying type with size="
            f"{info.underlying.size // 8} is not supported by the enum serializer."))
    kind = number_kind(value)
    if kind == "array":
        if not value:
            return current, ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                       "Input array is empty, no enumeration can be parsed from "
                                       "it.")
        final = 0
        result = ResultCode.task_only(Tasks.ReadField)
        for index, element in enumerate(value):
            ctx.push(index)
            try:
                element_kind = number_kind(element)
                constant: int | None = None
                if element_kind == "string":
                    constant, code = _from_string(ctx, info, element)
                elif element_kind in ("int", "double"):
                    constant, code = _from_number(ctx, info, element)
                else:
                    code = ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                      "Unsupported type. Enum values within an array must either "
                                      "be a string or a number.")
                result = result.combine(code)
                if result.halted:
                    return current, ctx.report_code(result,
                                                    "Enum value could not be parsed from array")
            finally:
                ctx.pop()
            final |= constant or 0
        return _python(info, _wrap(final, info.underlying)), ctx.report_code(
            result, "Enum value has been parsed from array")
    if kind == "string":
        parsed, code = _from_string(ctx, info, value)
    elif kind in ("int", "double"):
        parsed, code = _from_number(ctx, info, value)
    else:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. Enums must be read from an array, string or "
                                   "number")
    return (current if parsed is None else _python(info, parsed)), code


def store_enum(ctx: StoreContext, info: EnumInfo, value: Any, default: Any
               ) -> tuple[Any, ResultCode]:
    """``StoreEnum``: a name, an integer, or an array of names and leftover bits."""
    t = info.underlying
    if not _usable(info):
        return {}, ctx.report(Tasks.Convert, Outcomes.Unknown, (
            f"{'Signed' if t.signed else 'Unsigned'} underlying type with size={t.size // 8} is "
            "not supported by the enum serializer."))
    if (not isinstance(value, int) or isinstance(value, bool)
            or not -(1 << (t.size - 1)) <= value < 1 << t.size):
        raise EncodeError(f"{describe(value)} is not a value of the enum {info.name}",
                          path="$." + ctx.path_text(), format="o3de")
    current = _wrap(int(value), t)
    has_default = default is not NO_DEFAULT and default is not None
    default_value = _wrap(int(default), t) if has_default else 0
    collected: dict[int, str] = {}
    for name, registered in info.values:
        constant = _wrap(registered, t)
        if current == constant:
            if ctx.keep_defaults or not has_default or current != default_value:
                return name, ctx.report(Tasks.WriteValue, Outcomes.Success,
                                        "Successfully stored Enum value as string")
            return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed,
                                  "Enum value defaulted as string")
        if constant == 0:
            continue
        if constant & current == constant:
            collected.setdefault(registered & _U64, name)
    if not ctx.keep_defaults and has_default and current == default_value:
        return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed,
                              "Enum value defaulted as array" if collected
                              else "Enum value defaulted as int")
    if not collected:
        return current, ctx.report(Tasks.WriteValue, Outcomes.Success,
                                   "Successfully stored Enum value as int")
    out: list[Any] = []
    bits = current
    for unsigned in sorted(collected, reverse=True):
        bits = _wrap((bits & _U64) & ~unsigned, t)
        out.append(collected[unsigned])
    if bits != 0:
        out.append(bits)
    return out, ctx.report(Tasks.WriteValue, Outcomes.Success, "Enum value stored as array")
