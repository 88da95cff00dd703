"""bool, the integers, float/double, strings and Uuid: O3DE's primitive serializers; and the
leaf serializers registered as built-in custom types (``AZ::IO::Path`` and
``AZ::IO::FixedMaxPath``, ``JsonByteStream``, ``PointerObject``).

Every loader takes the current value and the JSON value and returns the new value and the
result; a value that cannot be read is left as it was (Unsupported). ``{}`` handed to these
serializers resets the value (O3DE's ``InitializeNewInstance`` types), except strings.
"""

from __future__ import annotations

import binascii
import math
import re
import struct
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any
from uuid import UUID

from gameserde.errors import EncodeError
from gameserde.o3de._context import (
    NO_DEFAULT,
    LoadContext,
    StoreContext,
    describe,
    is_object,
    members,
)
from gameserde.o3de._cparse import format_f, strtod, strtoll, strtoull
from gameserde.o3de.registry import Serializer, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.typeid import NULL_UUID, parse_uuid, search_uuid, uuid_text

__all__ = ["FLT_EPSILON", "MAX_PATH_LENGTH", "ByteStreamSerializer", "PathSerializer",
           "PointerObject", "PointerObjectSerializer", "as_float32", "base64_decode",
           "lexically_normal", "load_leaf", "number_kind", "store_leaf"]

FLT_MAX = 3.4028234663852886e38
FLT_EPSILON = 1.1920928955078125e-07
DBL_EPSILON = 2.220446049250313e-16
_F32 = struct.Struct("<f")
_ZERO_UUIDS = ("{00000000-0000-0000-0000-000000000000}", "{00000000000000000000000000000000}")


def as_float32(value: float) -> float:
    """``(float)value``: round to float32 (overflow to infinity)."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def number_kind(value: Any) -> str:
    """The rapidjson view of a JSON value: ``int`` (fits int64 or uint64), ``double``,
    ``bool``, ``string``, ``array``, ``object``, ``null``; Python ints beyond 64 bits read as
    doubles, as rapidjson parses them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if -(1 << 63) <= value < (1 << 64) else "double"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if is_object(value):
        return "object"
    return "unknown"


def _as_double(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _limits(t: TypeExpr) -> tuple[int, int]:
    if t.signed:
        return -(1 << (t.size - 1)), (1 << (t.size - 1)) - 1
    return 0, (1 << t.size) - 1


def numeric_cast(ctx: LoadContext, value: int | float, t: TypeExpr) -> tuple[Any, ResultCode]:
    """``JsonNumericCast``: the value converted to ``t`` (an integer or float type), or
    None and Unsupported when it is out of range."""
    if t.kind == "float":
        number = _as_double(value)
        limit = FLT_MAX if t.size == 32 else 1.7976931348623157e308
        if not math.isnan(number) and abs(number) > limit:
            return None, ctx.report(Tasks.Convert, Outcomes.Unsupported,
                                    f"The value {number!r} does not fit in a {t.name}.")
        return (as_float32(number) if t.size == 32 else number,
                ResultCode.of(Tasks.Convert, Outcomes.Success))
    low, high = _limits(t)
    if isinstance(value, float):
        if math.isnan(value) or not low <= value <= high or not low <= int(value) <= high:
            return None, ctx.report(Tasks.Convert, Outcomes.Unsupported,
                                    f"The value {value!r} does not fit in a {t.name}.")
        value = int(value)
    if not low <= value <= high:
        return None, ctx.report(Tasks.Convert, Outcomes.Unsupported,
                                f"The value {value} does not fit in a {t.name} ({low} to {high}).")
    return value, ResultCode.of(Tasks.Convert, Outcomes.Success)


def text_to_int(ctx: LoadContext, text: str, t: TypeExpr) -> tuple[Any, ResultCode]:
    """``SerializerInternal::TextToValue``: ``strtoll``/``strtoull`` with base detection,
    trailing text ignored, then the range check."""
    if not t.signed and strtoll(text)[0] < 0:
        return None, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                "Unable to read negative integer as only positive numbers can be "
                                "stored.")
    parsed, used, erange = strtoll(text) if t.signed else strtoull(text)
    if erange:
        return None, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                "Integer is too big or too small to fit in the target.")
    if not used:
        message = ("Unable to read integer value from provided string." if text
                   else "String used to read integer from was empty.")
        return None, ctx.report(Tasks.ReadField, Outcomes.Unsupported, message)
    value, code = numeric_cast(ctx, parsed, t)
    return value, ctx.report_code(code, "Successfully read integer from string."
                                  if value is not None else "Unable to read integer from string.")


def _load_bool(ctx: LoadContext, current: Any, value: Any) -> tuple[Any, ResultCode]:
    kind = number_kind(value)
    if kind == "bool":
        return value, ctx.report(Tasks.ReadField, Outcomes.Success, "Successfully read boolean.")
    if kind in ("int", "double"):
        return value != 0, ctx.report(Tasks.ReadField, Outcomes.Success,
                                      "Successfully read boolean from number.")
    if kind == "string":
        if value.lower() in ("true", "false") and value.isascii():
            return value.lower() == "true", ctx.report(Tasks.ReadField, Outcomes.Success,
                                                       "Successfully read boolean from string.")
        parsed, used, _ = strtoll(value)
        if used:
            return parsed != 0, ctx.report(Tasks.ReadField, Outcomes.Success,
                                           "Successfully read boolean from string with number.")
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unable to read boolean from the string.")
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               "Unsupported type. Booleans can only be read from booleans, "
                               "numbers or strings.")


def _load_int(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    kind = number_kind(value)
    if kind == "bool":
        return int(value), ctx.report(Tasks.ReadField, Outcomes.Success,
                                      "Successfully converted boolean to integer.")
    if kind in ("int", "double"):
        number = value if kind == "int" else _as_double(value)
        result, code = numeric_cast(ctx, number, t)
        message = "Successfully read integer." if result is not None else "Failed to read integer."
        return (current if result is None else result), ctx.report_code(code, message)
    if kind == "string":
        result, code = text_to_int(ctx, value, t)
        return (current if result is None else result), code
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               "Unsupported type. Integers can only be read from numbers, "
                               "booleans or strings.")


def _load_float(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    kind = number_kind(value)
    if kind == "bool":
        return 1.0 if value else 0.0, ctx.report(Tasks.ReadField, Outcomes.Success,
                                                 "Successfully converted boolean to float.")
    if kind in ("int", "double"):
        result, code = numeric_cast(ctx, value, t)
        message = "Successfully read floating point number." if result is not None \
            else "Floating point number is out of range."
        return (current if result is None else result), ctx.report_code(code, message)
    if kind == "string":
        parsed, used, erange = strtod(value)
        if not used:
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Unable to read a floating point number from the string.")
        if erange:
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Floating point number in the string is out of range.")
        result, code = numeric_cast(ctx, parsed, t)
        message = "Successfully read floating point number from string." \
            if result is not None else "Floating point number is out of range."
        return (current if result is None else result), ctx.report_code(code, message)
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               "Unsupported type. Floating point numbers can only be read from "
                               "numbers, booleans or strings.")


def _load_string(ctx: LoadContext, current: Any, value: Any) -> tuple[Any, ResultCode]:
    kind = number_kind(value)
    if kind == "string":
        return value, ctx.report(Tasks.ReadField, Outcomes.Success, "Successfully read string.")
    if kind == "bool":
        return ("True" if value else "False"), ctx.report(
            Tasks.ReadField, Outcomes.Success, "Successfully read string from boolean.")
    if kind == "int":
        return str(value), ctx.report(Tasks.ReadField, Outcomes.Success,
                                      "Successfully read string from integer.")
    if kind == "double":
        return format_f(_as_double(value)), ctx.report(
            Tasks.ReadField, Outcomes.Success, "Successfully read string from floating point.")
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               "Unsupported type. String values can't be read from arrays, "
                               "objects or null.")


def _load_uuid(ctx: LoadContext, current: Any, value: Any) -> tuple[Any, ResultCode]:
    if isinstance(value, str) and value in _ZERO_UUIDS:
        return NULL_UUID, ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                     "Uuid value set to default of null.")
    if not isinstance(value, str):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Uuids can only be read from strings.")
    found = search_uuid(value)
    if found is None or found == NULL_UUID:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "No valid uuid was found in the string.")
    return found, ctx.report(Tasks.ReadField, Outcomes.Success, "Successfully read uuid.")


_ZEROS: dict[str, Any] = {"bool": False, "int": 0, "float": 0.0, "uuid": NULL_UUID}


def load_leaf(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """The serializer of a primitive type ``t`` reading ``value`` over ``current``."""
    if is_object(value) and len(value) == 0 and t.kind in _ZEROS:
        return _ZEROS[t.kind], ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                          f"{t.name} value set to its default.")
    if t.kind == "bool":
        return _load_bool(ctx, current, value)
    if t.kind == "int":
        return _load_int(ctx, t, current, value)
    if t.kind == "float":
        return _load_float(ctx, t, current, value)
    if t.kind == "string":
        return _load_string(ctx, current, value)
    return _load_uuid(ctx, current, value)


def _store_value(t: TypeExpr, value: Any, path: str) -> Any:
    """The Python value checked and converted to what the C++ type holds."""
    kind = t.kind
    if kind == "bool" and isinstance(value, bool | int):
        return bool(value)
    if kind == "int" and isinstance(value, int):
        low, high = _limits(t)
        if low <= int(value) <= high:
            return int(value)
    if kind == "float" and isinstance(value, float | int) and not isinstance(value, bool):
        return as_float32(float(value)) if t.size == 32 else float(value)
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "uuid":
        if isinstance(value, UUID):
            return value
        parsed = parse_uuid(value) if isinstance(value, str) else None
        if parsed is not None:
            return parsed
    raise EncodeError(f"{describe(value)} is not a value of type {t.name}", path=path,
                      format="o3de")


def _same(t: TypeExpr, a: Any, b: Any) -> bool:
    if t.kind == "float":
        eps = FLT_EPSILON if t.size == 32 else DBL_EPSILON
        return bool(abs(a - b) <= eps)
    return bool(a == b)


def store_leaf(ctx: StoreContext, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
    """The serializer of a primitive type writing ``value``; DefaultsUsed and ``{}`` when it
    equals ``default`` (and defaults are not kept)."""
    where = "$." + ctx.path_text()
    current = _store_value(t, value, where)
    if (default is not NO_DEFAULT and not ctx.keep_defaults
            and _same(t, current, _store_value(t, default, where))):
        return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed, f"Default {t.name} used.")
    out = uuid_text(current) if t.kind == "uuid" else current
    return out, ctx.report(Tasks.WriteValue, Outcomes.Success, f"Successfully stored {t.name}.")


# ---------------------------------------------------------------------------------------------
# AZ::IO::Path and AZ::IO::FixedMaxPath (JsonPathSerializer)

MAX_PATH_LENGTH = 1024
"""``AZ::IO::MaxPathLength``: the capacity of a ``FixedMaxPath``, in bytes of UTF-8."""
_SEPARATORS = re.compile(r"[/\\]+")


def lexically_normal(path: str) -> str:
    """``AZ::IO::PathView::LexicallyNormal`` with ``/`` as the preferred separator (the
    engine's POSIX builds): ``/`` and ``\\`` both separate; a leading run of separators is
    the root directory; ``.`` parts are dropped; ``..`` removes the part before it, is
    dropped right after the root and kept at the start of a relative path; the parts are
    joined with ``/``, without a trailing separator (``"."`` and ``"a/.."`` give ``""``)."""
    if not path:
        return ""
    rooted = path[0] in "/\\"
    parts: list[str] = []
    for part in _SEPARATORS.split(path):
        if not part or part == ".":
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append(part)
            continue
        parts.append(part)
    return ("/" if rooted else "") + "/".join(parts)


def _path_key(path: str) -> tuple[bool, list[str]]:
    """What ``AZ::IO::Path``'s ``operator==`` compares (POSIX mode): whether the path has a
    root directory, then its parts except ``.``, case-sensitively."""
    return (path[:1] in ("/", "\\") and path != "",
            [p for p in _SEPARATORS.split(path) if p and p != "."])


class PathSerializer(Serializer):
    """``JsonPathSerializer`` for ``AZ::IO::Path`` (``fixed=False``) and
    ``AZ::IO::FixedMaxPath``: a ``str`` stored with ``/`` separators (``AsPosix``), loaded
    from a string through :func:`lexically_normal`."""

    def __init__(self, name: str, fixed: bool) -> None:
        self.name = name
        self.fixed = fixed

    def create(self) -> str:
        return ""

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not isinstance(value, str):
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Unsupported type. String values can't be read from "
                                       "arrays, objects or null.")
        if self.fixed and len(value.encode("utf-8", "surrogatepass")) > MAX_PATH_LENGTH:
            return current, ctx.report(
                Tasks.ReadField, Outcomes.Invalid,
                f"Json string value is too large to fit within path type {self.name}. It needs "
                f"to be less than {MAX_PATH_LENGTH} code points")
        return lexically_normal(value), ctx.report(Tasks.ReadField, Outcomes.Success,
                                                   "Successfully read path.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        where = "$." + ctx.path_text()
        text = self._text(value, where)
        if (ctx.keep_defaults or default is NO_DEFAULT
                or _path_key(text) != _path_key(self._text(default, where))):
            return text.replace("\\", "/"), ctx.report(Tasks.WriteValue, Outcomes.Success,
                                                       "Path successfully stored.")
        return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed, "Default Path used.")

    def _text(self, value: Any, where: str) -> str:
        if isinstance(value, PurePath):
            value = value.as_posix()
        if not isinstance(value, str) or (
                self.fixed and len(value.encode("utf-8", "surrogatepass")) > MAX_PATH_LENGTH):
            raise EncodeError(f"{describe(value)} is not a value of type {self.name}",
                              path=where, format="o3de")
        return value


# ---------------------------------------------------------------------------------------------
# JsonByteStream (AZStd::vector<AZ::u8>, JsonByteStreamSerializer)

_BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_PADDED = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
"""Text the engine and ``binascii`` read alike (the common case, read without a loop)."""


def base64_decode(text: str) -> bytes | None:
    """``AZ::StringFunc::Base64::Decode``: ``None`` when the engine refuses the text. The
    length (in bytes) must be a multiple of 4; in each group of four the first two
    characters must be of the standard alphabet, and a ``=`` in the third or fourth place
    **ends the decoding** (whatever follows is not read); no check of the unused bits."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) % 4:
        return None
    if _PADDED.fullmatch(data):
        return binascii.a2b_base64(data)
    valid = _BASE64
    for at in range(0, len(data), 4):
        group = data[at:at + 4]
        if group[0] not in valid or group[1] not in valid:
            return None
        if group[2] == 61:  # '='
            return binascii.a2b_base64(data[:at] + group[:2] + b"==")
        if group[2] not in valid:
            return None
        if group[3] == 61:
            return binascii.a2b_base64(data[:at] + group[:3] + b"=")
        if group[3] not in valid:
            return None
    return binascii.a2b_base64(data)


class ByteStreamSerializer(Serializer):
    """``JsonByteStreamSerializer``: ``bytes`` as a base64 string (standard alphabet,
    ``=`` padding)."""

    def create(self) -> bytes:
        return b""

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not isinstance(value, str):
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Unsupported type. ByteStream values cannot be read from "
                                       "arrays, objects, nulls, booleans or numbers.")
        decoded = base64_decode(value)
        if decoded is None:
            return current, ctx.report(Tasks.ReadField, Outcomes.Invalid,
                                       "Decode of Base64 encoded ByteStream failed.")
        return decoded, ctx.report(Tasks.ReadField, Outcomes.Success,
                                   "Successfully read ByteStream.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        where = "$." + ctx.path_text()
        data = _bytes(value, where)
        if ctx.keep_defaults or default is NO_DEFAULT or data != _bytes(default, where):
            return binascii.b2a_base64(data, newline=False).decode("ascii"), ctx.report(
                Tasks.WriteValue, Outcomes.Success, "ByteStream successfully stored.")
        return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed,
                              "Default ByteStream used.")


def _bytes(value: Any, where: str) -> bytes:
    if not isinstance(value, bytes | bytearray | memoryview):
        raise EncodeError(f"{describe(value)} is not a value of type JsonByteStream",
                          path=where, format="o3de")
    return bytes(value)


# ---------------------------------------------------------------------------------------------
# PointerObject (PointerJsonSerializer)

@dataclass(frozen=True, slots=True)
class PointerObject:
    """``AZ::PointerObject``: an address and the type id of what it points at (an in-memory
    form for tools: the address means nothing in a file)."""

    address: int = 0
    type_id: UUID = NULL_UUID


_UINTPTR = TypeExpr("int", "unsigned long", size=64, flavor="unsigned long")
_TYPE_ID = TypeExpr("uuid", "AZ::Uuid", flavor="AZ::Uuid")
_STRING = TypeExpr("string", "AZStd::string", flavor="AZStd::string")


class PointerObjectSerializer(Serializer):
    """``PointerJsonSerializer``: ``{"$address": uintptr, "$type": uuid}``, both required."""

    def create(self) -> PointerObject:
        return PointerObject()

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not is_object(value):
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Unsupported type. PointerObject can only be read from an "
                                       "object.")
        found = dict(reversed(members(value)))
        result = ResultCode.task_only(Tasks.ReadField)
        address, type_id = 0, NULL_UUID
        if "$address" in found:
            address, code = self._address(ctx, found["$address"])
            result = result.combine(code)
            if not result.completed:
                result = result.combine(ctx.report_code(
                    result, "Failed to read pointer address for PointerObject."))
        else:
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.Missing,
                'Field "$address" is required for reading a PointerObject.'))
        if "$type" in found:
            type_id, code = ctx.load(_TYPE_ID, NULL_UUID, found["$type"], False)
            result = result.combine(code)
            if not result.completed:
                result = result.combine(ctx.report_code(
                    result, "Failed to read type id for PointerObject."))
        else:
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.Missing,
                'Field "$type" is required for reading a PointerObject.'))
        loaded = PointerObject(address, type_id) if result.completed else current
        message = ("Successfully loaded data into PointerObject."
                   if result.outcome <= Outcomes.PartialSkip
                   else "Failed to load data into PointerObject.")
        return loaded, ctx.report_code(result, message)

    @staticmethod
    def _address(ctx: Any, value: Any) -> tuple[int, ResultCode]:
        """The address as a ``uintptr_t`` (the integer rules), else from a string through
        ``from_chars`` (decimal, or hexadecimal after ``0x``/``0X``)."""
        address, code = ctx.load(_UINTPTR, 0, value, False)
        if code.completed:
            return address, code
        text, code = ctx.load(_STRING, "", value, False)
        if not code.completed:
            return 0, code
        number = _from_chars(text)
        if number is None:
            return 0, code.combine(ctx.report(
                Tasks.ReadField, Outcomes.Invalid,
                f"Cannot convert string {text[:64]} to a memory address"))
        return number, code

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        where = "$." + ctx.path_text()
        if not isinstance(value, PointerObject) or not 0 <= value.address < 1 << 64 \
                or not isinstance(value.type_id, UUID):
            raise EncodeError(f"{describe(value)} is not a value of type PointerObject",
                              path=where, format="o3de")
        out: dict[str, Any] = {}
        result = ResultCode.task_only(Tasks.WriteValue)
        for name, t, member in (("$address", _UINTPTR, value.address),
                                ("$type", _TYPE_ID, value.type_id)):
            ctx.push(name)
            stored, code = ctx.store(t, member, NO_DEFAULT)
            ctx.pop()
            if not code.halted:
                out[name] = stored
            result = result.combine(code)
        message = ("PointerObject stored successfully." if result.completed
                   else "Failed to store PointerObject.")
        return out, ctx.report_code(result, message)


def _from_chars(text: str) -> int | None:
    """``AZStd::from_chars`` into a ``uintptr_t``: the longest run of digits at the start
    (no sign, no blanks); ``None`` without one or when it does not fit in 64 bits."""
    base = 10
    if text[:2].lower() == "0x":
        text, base = text[2:], 16
    digits = _HEX_DIGITS.match(text) if base == 16 else _DEC_DIGITS.match(text)
    if digits is None:
        return None
    number = int(digits.group(), base)
    return number if number < 1 << 64 else None


_DEC_DIGITS = re.compile(r"[0-9]+")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
