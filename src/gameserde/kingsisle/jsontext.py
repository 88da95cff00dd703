"""KingsIsle objects as JSON text, losing nothing the binary form holds.

=====================  ===================================================================
value                  JSON
=====================  ===================================================================
object                 ``{"$__type": "class Name", ...}``: the class name first, then the
                       properties in the class's order; a null object is ``null``
bool, integers         ``true``/``false``, numbers
float, double          numbers (with the schema, a ``float`` is written as the shortest text
                       that reads back to the same float32); ``"Infinity"``,
                       ``"-Infinity"``, ``"NaN"`` (the default quiet NaN) and
                       ``"NaN:0x7fc00001"`` for any other NaN: its bits, 8 hex digits for a
                       float32, 16 for a double
std::string            text when the bytes are UTF-8, else ``{"$bytes": "<hex>"}``
std::wstring           text; a lone surrogate is a ``\\udXXX`` escape
enum                   the integer; with ``enum_names``, the option name (bit flags:
                       ``"A|B"`` in the type list's order, ``""`` for 0), or the integer
                       where names cannot say the value exactly
leaf structs           objects with katsuba's keys: Color ``r g b a``, Vector3D ``x y z``,
                       Quaternion ``x y z w``, Euler ``pitch yaw roll``, Matrix3x3
                       ``{"i": [3], "j": [3], "k": [3]}``, Size ``width height``, Point
                       ``x y``, Rect ``left top right bottom``
lists                  arrays
=====================  ===================================================================

Reading takes the schema: it types every value, accepts enums as integers or names and
a class as its name or its type hash (katsuba's CLI writes the hash), and refuses unknown
classes and properties, wrong JSON types and integers out of range with a
:class:`DecodeError` whose path names the value (``$.m_items[3].m_name``). A text string is
always text: only an object is the ``$bytes`` escape, so no string can be mistaken for one.
``from_json(to_json(x), schema)`` equals ``x`` and encodes to the same bytes.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from typing import Any

from gameserde import _jsonio
from gameserde._float32 import float32_from_bits, float32_to_bits
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, UsageError, path_key
from gameserde.kingsisle._limits import MAX_DEPTH, depth_limit
from gameserde.kingsisle.objects import KiObject, property_step
from gameserde.kingsisle.serializer import _STRUCTS, option_value
from gameserde.kingsisle.typelist import LEAF_TYPES, KiSchema
from gameserde.schema.model import Bool, Bytes, Enum, Field, Float, Int, List, Record, Ref, String

__all__ = ["BYTES_KEY", "TYPE_KEY", "from_json", "from_jsonable", "to_json", "to_jsonable"]

FORMAT = "kingsisle"
TYPE_KEY = "$__type"
"""The key of an object's class name, always its first key."""
BYTES_KEY = "$bytes"
"""``{"$bytes": "<hex>"}`` is a std::string whose bytes are not UTF-8."""

_FRAMES_PER_LEVEL = 4
_JSON_ORDER = {"class Color": ("r", "g", "b", "a"), "class Quaternion": ("x", "y", "z", "w")}
"""Leaf structs whose keys katsuba's JSON writes in another order than the wire's."""

_D, _Q = struct.Struct("<d"), struct.Struct("<Q")
_QUIET_NAN32, _QUIET_NAN64 = 0x7FC00000, 0x7FF8000000000000
_SPECIAL = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def _a(name: str) -> str:
    """``name`` with its article: "an int", "a float"."""
    return ("an " if name[:1] in ("a", "e", "i", "o", "u") else "a ") + name


def _short(doc: Any) -> str:
    """A short description of a JSON value (without walking a nested one)."""
    if isinstance(doc, dict):
        return f"an object of {len(doc)} keys"
    if isinstance(doc, list):
        return f"an array of {len(doc)} values"
    if isinstance(doc, int) and not isinstance(doc, bool) and doc.bit_length() > 64:
        return f"an integer of {doc.bit_length()} bits"
    text = repr(doc[:60] if isinstance(doc, str | bytes) else doc)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad(message: str, doc: Any) -> DecodeError:
    return DecodeError(f"{message}, not {_short(doc)}", format=FORMAT)


# ---------------------------------------------------------------------------------------------
# The API


def to_jsonable(obj: KiObject, *, schema: KiSchema | None = None, enum_names: bool = False,
                max_depth: int = MAX_DEPTH, recursion_limit: int | None = None
                ) -> dict[str, Any]:
    """``obj`` as JSON values (dicts, lists, text, numbers). Without ``schema`` the values
    are written by their Python types (floats as doubles); ``enum_names`` needs it.
    (``recursion_limit`` is the former name of ``max_depth``.)"""
    limit = depth_limit(max_depth, recursion_limit)
    if enum_names and schema is None:
        raise UsageError("enum_names needs the schema, which names the options")
    if obj is None:
        raise EncodeError("the root object must not be null", format=FORMAT)
    with recursion_room(_FRAMES_PER_LEVEL * limit + 100):
        out = _Out(schema, enum_names, limit).object(obj, 0)
    assert out is not None
    return out


def to_json(obj: KiObject, *, schema: KiSchema | None = None, enum_names: bool = False,
            pretty: bool = False, max_depth: int = MAX_DEPTH,
            recursion_limit: int | None = None) -> str:
    """``obj`` as JSON text (see the module's table): compact, or indented by 2 when
    ``pretty``."""
    doc = to_jsonable(obj, schema=schema, enum_names=enum_names, max_depth=max_depth,
                      recursion_limit=recursion_limit)
    return _jsonio.dumps(doc, pretty=pretty).decode("utf-8").rstrip("\n")


def from_jsonable(doc: Any, schema: KiSchema, *, max_depth: int = MAX_DEPTH,
                  recursion_limit: int | None = None) -> KiObject:
    """The object JSON values ``doc`` stand for, typed by ``schema``; raises
    :class:`DecodeError` with the JSON path of what does not fit it. (``recursion_limit`` is
    the former name of ``max_depth``.)"""
    limit = depth_limit(max_depth, recursion_limit)
    with recursion_room(_FRAMES_PER_LEVEL * limit + 100):
        obj = _In(schema, limit).object(doc, 0)
    if obj is None:
        raise DecodeError("the root object is null", format=FORMAT)
    return obj


def from_json(text: str | bytes, schema: KiSchema, *, max_depth: int = MAX_DEPTH,
              recursion_limit: int | None = None) -> KiObject:
    """The object of JSON text (see the module's table), typed by ``schema``."""
    return from_jsonable(_jsonio.loads(text), schema, max_depth=max_depth,
                         recursion_limit=recursion_limit)


# ---------------------------------------------------------------------------------------------
# Floats


def _special_float(bits: int, width: int) -> str:
    """The text of an infinity or NaN whose raw bits (``width`` 32 or 64) are ``bits``."""
    sign = bits >> (width - 1)
    mantissa = bits & ((1 << (23 if width == 32 else 52)) - 1)
    if not mantissa:
        return "-Infinity" if sign else "Infinity"
    if bits == (_QUIET_NAN32 if width == 32 else _QUIET_NAN64):
        return "NaN"
    return f"NaN:0x{bits:0{width // 4}x}"


def _float32_out(x: float) -> float | str:
    """The shortest number that reads back to the float32 of ``x`` (or the special text)."""
    bits = float32_to_bits(x)
    if bits & 0x7F800000 == 0x7F800000:
        return _special_float(bits, 32)
    exact = float32_from_bits(bits)
    # a normal float32 that a shorter text gives back rounds to that text at 6 digits
    for digits in range(1 if bits & 0x7F800000 == 0 else 6, 10):
        short = float(f"{exact:.{digits}g}")
        if float32_to_bits(short) == bits:
            return short
    return exact


def _double_out(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return _special_float(_Q.unpack(_D.pack(x))[0], 64)


def _nan_in(text: str) -> float:
    """The NaN of ``NaN:0x<bits>`` (8 hex digits: a float32, 16: a double)."""
    digits = text[6:]
    if text.startswith("NaN:0x") and len(digits) in (8, 16) and all(
            c in "0123456789abcdefABCDEF" for c in digits):
        bits = int(digits, 16)
        if len(digits) == 8 and bits & 0x7F800000 == 0x7F800000 and bits & 0x7FFFFF:
            return float32_from_bits(bits)
        if len(digits) == 16 and bits >> 52 & 0x7FF == 0x7FF and bits & ((1 << 52) - 1):
            value: float = _D.unpack(_Q.pack(bits))[0]
            return value
    raise _bad('a float is a number, "Infinity", "-Infinity", "NaN" or "NaN:0x" and the '
               "bits of a NaN", text)


def _float_in(doc: Any, bits: int) -> float:
    """A float or double leaf: a finite number the type holds (rounded to float32 for a
    float), or the text of an infinity or NaN. A number too large for the type is refused,
    also one too large for a double, which Python's JSON reader makes infinite (as it makes
    the bare ``Infinity`` and ``NaN`` that JSON lacks)."""
    kind = "float" if bits == 32 else "double"
    if isinstance(doc, float):
        if not math.isfinite(doc):
            raise _bad(f"the number is too large for a {kind} (infinities and NaN are written "
                       '"Infinity", "-Infinity" and "NaN")', doc)
        value = doc
    elif isinstance(doc, int) and not isinstance(doc, bool):
        try:
            value = float(doc)
        except OverflowError:
            raise _bad(f"the number is too large for a {kind}", doc) from None
    elif isinstance(doc, str):
        value = _SPECIAL[doc] if doc in _SPECIAL else _nan_in(doc)
    else:
        raise _bad('a float is a number, "Infinity", "-Infinity" or "NaN"', doc)
    if bits == 64:
        return value
    raw = float32_to_bits(value)
    if raw & 0x7FFFFFFF == 0x7F800000 and math.isfinite(value):
        raise _bad("the number is too large for a float", doc)
    return float32_from_bits(raw)


# ---------------------------------------------------------------------------------------------
# Objects to JSON


def _struct_keys(type_name: str) -> tuple[str, ...]:
    return _JSON_ORDER.get(type_name, _STRUCTS[type_name][1])


class _Out:
    def __init__(self, schema: KiSchema | None, enum_names: bool, limit: int) -> None:
        self.schema = schema
        self.enum_names = enum_names
        self.limit = limit

    def object(self, obj: Any, depth: int) -> dict[str, Any] | None:
        if depth >= self.limit:
            raise EncodeError(f"objects nest deeper than max_depth {self.limit}",
                              format=FORMAT)
        if obj is None:
            return None
        if not isinstance(obj, KiObject):
            raise EncodeError(f"an object must be a KiObject, not {type(obj).__name__}",
                              format=FORMAT)
        if self.schema is None:
            if TYPE_KEY in obj:
                raise EncodeError(f"{obj.type_name} has no property {TYPE_KEY!r}",
                                  format=FORMAT)
            out: dict[str, Any] = {TYPE_KEY: obj.type_name}
            for name, value in obj.items():
                try:
                    out[name] = self.untyped(value, depth)
                except EncodeError as e:
                    e.add_parent(property_step(name))
                    raise
            return out
        cls = self.schema.class_by_hash(obj.type_hash)
        if cls is None:
            raise EncodeError(f"no class of the type list has the type hash {obj.type_hash} "
                              f"({obj.type_name})", format=FORMAT)
        out = {TYPE_KEY: cls.name}
        for f in cls.fields:
            if f.name in obj:
                try:
                    out[f.name] = self.property(f, obj[f.name], depth)
                except EncodeError as e:
                    e.add_parent(property_step(f.name))
                    raise
        if len(out) - 1 != len(obj):
            extra = next(k for k in obj if k not in out or k == TYPE_KEY)
            raise EncodeError(f"{cls.name} has no property {extra!r}", format=FORMAT)
        return out

    def untyped(self, value: Any, depth: int) -> Any:
        """A value without the schema: by its Python type."""
        if value is None or isinstance(value, KiObject):  # None is a null object
            return self.object(value, depth + 1)
        if isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return _double_out(value)
        if isinstance(value, bytes | bytearray):
            return _bytes_out(bytes(value))
        if isinstance(value, dict):
            return {k: self.untyped(v, depth) for k, v in value.items()}
        if isinstance(value, list | tuple):
            if depth + 1 >= self.limit:
                raise EncodeError(f"lists nest deeper than max_depth {self.limit}", format=FORMAT)
            return [self.element(self.untyped, i, v, depth + 1) for i, v in enumerate(value)]
        raise EncodeError(f"{type(value).__name__} values are not ObjectProperty values",
                          format=FORMAT)

    @staticmethod
    def element(convert: Any, i: int, value: Any, *args: Any) -> Any:
        try:
            return convert(value, *args)
        except EncodeError as e:
            e.add_parent(f"[{i}]")
            raise

    def property(self, f: Field, value: Any, depth: int) -> Any:
        type_name = str(f.attributes["type_name"])
        if isinstance(f.type, List):
            if not isinstance(value, list | tuple):
                raise EncodeError(f"a list, not {type(value).__name__}", format=FORMAT)
            if depth + 1 >= self.limit:
                raise EncodeError(f"lists nest deeper than max_depth {self.limit}", format=FORMAT)
            element = f.type.element
            return [self.element(self.value, i, v, element, type_name, depth + 1)
                    for i, v in enumerate(value)]
        return self.value(value, f.type, type_name, depth)

    def value(self, value: Any, t: Any, type_name: str, depth: int) -> Any:
        if isinstance(t, Ref):
            assert self.schema is not None
            target = self.schema.model.types[t.name]
            if isinstance(target, Enum):
                return self.enum(target, value)
            if isinstance(target, Record) and target.kind == "leaf":
                return self.struct(type_name, value)
            return self.object(value, depth + 1)
        return _leaf_out(t, value, type_name)

    def enum(self, enum: Enum, value: Any) -> Any:
        if isinstance(value, str):  # option names, as the serializer takes them too
            named, bad = option_value(enum, value)
            if bad is not None:
                raise EncodeError(f"{_short(value)} is not an option of {enum.name}",
                                  format=FORMAT)
            value = named
        number = _int_out(value, enum.underlying, enum.name)
        if not self.enum_names:
            return number
        if not enum.bit_flags:
            name = enum.name_of(number)
            return number if name is None else name
        names = enum.flag_names(number)
        if names is None:
            return number
        text = "|".join(names)
        return text if option_value(enum, text) == (number, None) else number

    def struct(self, type_name: str, value: Any) -> dict[str, Any]:
        kind, keys = _STRUCTS[type_name]
        if not isinstance(value, Mapping) or set(value) != set(keys):
            raise EncodeError(f"{_a(type_name)} is a dict of {', '.join(keys)}, not "
                              f"{_short(value)}", format=FORMAT)
        t = LEAF_TYPES[kind]
        out: dict[str, Any] = {}
        for key in _struct_keys(type_name):
            part = value[key]
            try:
                if type_name == "class Matrix3x3":
                    if not isinstance(part, list | tuple) or len(part) != 3:
                        raise EncodeError(f"a row of {_a(type_name)} is three numbers",
                                          format=FORMAT)
                    out[key] = [_leaf_out(t, c, kind) for c in part]
                else:
                    out[key] = _leaf_out(t, part, kind)
            except EncodeError as e:
                e.add_parent("." + key)
                raise
        return out


def _int_out(value: Any, t: Int, type_name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise EncodeError(f"{_a(type_name)} is an int, not {_short(value)}", format=FORMAT)
    if not t.min <= value <= t.max:
        raise EncodeError(f"{_short(value)} does not fit {_a(type_name)}", format=FORMAT)
    return value


def _bytes_out(data: bytes) -> str | dict[str, str]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {BYTES_KEY: data.hex()}


def _leaf_out(t: Any, value: Any, type_name: str) -> Any:
    """A value of a leaf type (not a struct) as JSON."""
    if isinstance(t, Int):
        return _int_out(value, t, type_name)
    if isinstance(t, Bool):
        if not isinstance(value, bool):
            raise EncodeError(f"a bool is True or False, not {_short(value)}", format=FORMAT)
        return value
    if isinstance(t, Float):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise EncodeError(f"{_a(type_name)} is a number, not {_short(value)}",
                              format=FORMAT)
        try:
            as_float = float(value)
        except OverflowError:
            raise EncodeError(f"{_short(value)} is too large for {_a(type_name)}",
                              format=FORMAT) from None
        return _float32_out(as_float) if t.bits == 32 else _double_out(as_float)
    if isinstance(t, Bytes):
        if isinstance(value, str):
            return value
        if not isinstance(value, bytes | bytearray):
            raise EncodeError(f"a std::string is bytes or str, not {_short(value)}",
                              format=FORMAT)
        return _bytes_out(bytes(value))
    assert isinstance(t, String)
    if not isinstance(value, str):
        raise EncodeError(f"a std::wstring is a str, not {_short(value)}", format=FORMAT)
    return value


# ---------------------------------------------------------------------------------------------
# JSON to objects


class _In:
    def __init__(self, schema: KiSchema, limit: int) -> None:
        self.schema = schema
        self.limit = limit
        self.fields: dict[str, dict[str, Field]] = {}

    def cls(self, name: Any) -> Record:
        if isinstance(name, str):
            found = self.schema.classes.get(name)
        elif isinstance(name, int) and not isinstance(name, bool):
            found = self.schema.class_by_hash(name)
        else:
            raise _bad(f'"{TYPE_KEY}" is a class name (or a type hash)', name)
        if found is None:
            raise _bad("no class of the type list has this name or hash", name)
        return found

    def object(self, doc: Any, depth: int) -> KiObject | None:
        if depth >= self.limit:
            raise DecodeError(f"objects nest deeper than max_depth {self.limit}",
                              format=FORMAT)
        if doc is None:
            return None
        if not isinstance(doc, dict) or TYPE_KEY not in doc:
            raise _bad(f'an object is a JSON object with its class under "{TYPE_KEY}", or '
                       "null", doc)
        try:
            cls = self.cls(doc[TYPE_KEY])
        except DecodeError as e:
            e.add_parent(path_key(TYPE_KEY))
            raise
        fields = self.fields.get(cls.name)
        if fields is None:
            fields = self.fields[cls.name] = {f.name: f for f in cls.fields}
        values: dict[str, Any] = {}
        for key, item in doc.items():
            if key == TYPE_KEY:
                continue
            try:
                f = fields.get(key)
                if f is None:
                    raise DecodeError(f"{cls.name} has no property {key!r}", format=FORMAT)
                values[key] = self.property(f, item, depth)
            except DecodeError as e:
                e.add_parent(property_step(key))
                raise
        ordered = ((f.name, values[f.name]) for f in cls.fields if f.name in values)
        return KiObject(cls.name, int(cls.attributes["hash"]), ordered)

    def property(self, f: Field, doc: Any, depth: int) -> Any:
        type_name = str(f.attributes["type_name"])
        if not isinstance(f.type, List):
            return self.value(f.type, type_name, doc, depth)
        if not isinstance(doc, list):
            raise _bad(f"{f.name} is a list: a JSON array", doc)
        if depth + 1 >= self.limit:
            raise DecodeError(f"lists nest deeper than max_depth {self.limit}", format=FORMAT)
        element = f.type.element
        out = []
        for i, item in enumerate(doc):
            try:
                out.append(self.value(element, type_name, item, depth + 1))
            except DecodeError as e:
                e.add_parent(f"[{i}]")
                raise
        return out

    def value(self, t: Any, type_name: str, doc: Any, depth: int) -> Any:
        if isinstance(t, Ref):
            target = self.schema.model.types[t.name]
            if isinstance(target, Enum):
                return _enum_in(target, doc)
            if isinstance(target, Record) and target.kind == "leaf":
                return _struct_in(type_name, doc)
            return self.object(doc, depth + 1)
        return _leaf_in(t, type_name, doc)


def _int_in(t: Int, type_name: str, doc: Any) -> int:
    if not isinstance(doc, int) or isinstance(doc, bool):
        raise _bad(f"{_a(type_name)} is an integer", doc)
    if not t.min <= doc <= t.max:
        raise DecodeError(f"{_short(doc)} does not fit {_a(type_name)} ({t.min} to {t.max})",
                          format=FORMAT)
    return doc


def _leaf_in(t: Any, type_name: str, doc: Any) -> Any:
    if isinstance(t, Int):
        return _int_in(t, type_name, doc)
    if isinstance(t, Float):
        return _float_in(doc, t.bits)
    if isinstance(t, Bool):
        if not isinstance(doc, bool):
            raise _bad("a bool is true or false", doc)
        return doc
    if isinstance(t, Bytes):
        if isinstance(doc, str):
            try:
                return doc.encode("utf-8")
            except UnicodeEncodeError:
                raise _bad(f"a std::string's text must be UTF-8 (bytes that are not are "
                           f'{{"{BYTES_KEY}": "<hex>"}})', doc) from None
        if isinstance(doc, dict) and len(doc) == 1 and isinstance(doc.get(BYTES_KEY), str):
            try:
                return bytes.fromhex(doc[BYTES_KEY])
            except ValueError:
                raise _bad(f"{BYTES_KEY} holds hex digits", doc[BYTES_KEY]) from None
        raise _bad(f'a std::string is text or {{"{BYTES_KEY}": "<hex>"}}', doc)
    assert isinstance(t, String)
    if not isinstance(doc, str):
        raise _bad("a std::wstring is text", doc)
    return doc


def _enum_in(enum: Enum, doc: Any) -> int:
    if isinstance(doc, str):
        value, bad = option_value(enum, doc)
        if bad is not None:
            raise _bad(f"not an option of {enum.name}", doc)
        return value
    if not isinstance(doc, int) or isinstance(doc, bool):
        raise _bad(f"{_a(enum.name)} is an integer or an option name", doc)
    return _int_in(enum.underlying, enum.name, doc)


def _struct_in(type_name: str, doc: Any) -> dict[str, Any]:
    kind, keys = _STRUCTS[type_name]
    if not isinstance(doc, dict) or set(doc) != set(keys):
        raise _bad(f"{_a(type_name)} is an object of {', '.join(_struct_keys(type_name))}", doc)
    t = LEAF_TYPES[kind]
    out: dict[str, Any] = {}
    for key in keys:  # the wire's order, as the decoder gives it
        part = doc[key]
        try:
            if type_name == "class Matrix3x3":
                if not isinstance(part, list) or len(part) != 3:
                    raise _bad(f"a row of {_a(type_name)} is an array of three numbers", part)
                out[key] = [_component_in(t, kind, c, i) for i, c in enumerate(part)]
            else:
                out[key] = _leaf_in(t, kind, part)
        except DecodeError as e:
            e.add_parent("." + key)
            raise
    return out


def _component_in(t: Any, kind: str, doc: Any, index: int) -> Any:
    """Component ``index`` of a Matrix3x3 row, its index in the path of an error."""
    try:
        return _leaf_in(t, kind, doc)
    except DecodeError as e:
        e.add_parent(f"[{index}]")
        raise
