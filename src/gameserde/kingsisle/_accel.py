"""Glue to the optional C twin of the ObjectProperty serializer (``_speedups``, built at
install).

The pure-Python :class:`~gameserde.kingsisle.serializer.Serializer` is the reference. The C
twin reads and writes the body of a stream (the root object; the framing -- stateful flags,
compression, manual compression -- stays in Python) by running a program compiled once per
(schema, mode, property mask) and cached on the serializer: per class, the properties the
mode and mask include, in id order, with their leaf kinds. It serves serializers whose
reference methods are not overridden (a subclass that hooks them gets them called), and
skips unknown types and properties as the reference does under ``skip_unknown_types``, and
keeps the padding bits an object was read with as the reference does.
Whenever it meets anything else -- an enum given by name, or read as a name that is no option
(or, for bit flags, not ASCII), a value of an unexpected Python type or out of range, an
unknown type or property hash it is not to skip, sizes that do not add up, truncated input, a
null root, nesting at max_depth -- it gives up (:func:`decode` and :func:`encode`
return None), and the reference runs over the whole input, which gives the result or raises
the exact error. So the public API gives the same bytes, values and errors with or without
it.

``ENABLED`` is true when the extension is importable and ``GAMESERDE_PURE`` is not set to a
non-empty value other than ``0``; tests switch it off to force the reference.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from gameserde._extensions import load_extension, pure_requested
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.typelist import FLAGS, KiSchema
from gameserde.schema.model import Enum, List, Record, Ref

if TYPE_CHECKING:
    from gameserde.kingsisle.serializer import Serializer

API_VERSION = 4

speedups: Any = load_extension("gameserde.kingsisle._speedups", API_VERSION)

ENABLED = speedups is not None and not pure_requested()

_BOOL, _INT, _FLOAT, _DOUBLE, _STRING, _WSTRING, _ENUM, _STRUCT, _OBJECT, _OTHER = range(10)

_DECODING = ("_included", "_object", "_properties", "_skip", "_property", "_length", "_value",
             "_leaf", "_enum_from_text", "_struct")
_ENCODING = ("_included", "_write_object", "_write_properties", "_write_property",
             "_write_struct", "_write_length", "_write_value", "_write_leaf")
"""The reference's methods each direction runs: a subclass overriding one keeps the
reference."""

_DELTA = FLAGS["DELTA_ENCODE"]

_PROGRAMS: weakref.WeakKeyDictionary[KiSchema, dict[tuple[bool, int], Any]] = (
    weakref.WeakKeyDictionary())
"""Each schema's programs by (shallow, property mask): one-off serializers share them."""


def decode(ser: Serializer, body: bytes, flags: int) -> tuple[KiObject, int] | None:
    """The root object of a stream body read with the stream's ``flags`` and the byte it
    ends before, or None when the reference must read it."""
    program = _program(ser, decoding=True)
    if program is None:
        return None
    skipped: list[tuple[int, str, int]] | None = [] if ser.skip_unknown_types else None
    decoded: tuple[KiObject, int] | None = speedups.decode(program, body, flags, _limit(ser),
                                                           skipped)
    if decoded is not None and skipped:
        ser.skipped.extend(skipped)
    return decoded


def encode(ser: Serializer, obj: Any) -> bytes | None:
    """The body of the stream of the root object ``obj``, or None when the reference must
    write it."""
    program = _program(ser, decoding=False)
    if program is None:
        return None
    body: bytes | None = speedups.encode(program, obj, ser.flags, _limit(ser))
    return body


def _limit(ser: Serializer) -> int:
    """The C twin's depth limit: the serializer's max_depth, within what the C stack takes
    (deeper data is the reference's)."""
    return max(0, min(ser.max_depth, int(speedups.MAX_C_DEPTH)))


def _program(ser: Serializer, decoding: bool) -> Any:
    """The serializer's compiled program, or None when the C twin cannot serve it."""
    if not ENABLED:
        return None
    key = (type(ser), ser.schema, ser.shallow, ser.property_mask)
    cached = ser._program
    if cached is None or cached[0] != key:
        serves = (_reference(ser, _DECODING), _reference(ser, _ENCODING))
        program = None
        if any(serves):  # then _included is the reference's: the program is the schema's
            programs = _PROGRAMS.setdefault(ser.schema, {})
            mode = (ser.shallow, ser.property_mask)
            if mode not in programs:
                programs[mode] = _compile(ser)
            program = programs[mode]
        cached = ser._program = (key, program, *serves)
    return cached[1] if cached[2 if decoding else 3] else None


def _reference(ser: Serializer, methods: tuple[str, ...]) -> bool:
    """Whether the serializer runs the reference's own ``methods`` (no subclass hooks)."""
    from gameserde.kingsisle.serializer import Serializer

    return all(getattr(type(ser), name) is getattr(Serializer, name) for name in methods)


def _compile(ser: Serializer) -> Any:
    schema = ser.schema
    kinds: dict[tuple[str, str, str], tuple[Any, Any]] = {}
    classes = []
    for cls in schema.classes.values():
        type_hash = int(cls.attributes["hash"])
        if type_hash == 0 or schema.class_by_hash(type_hash) is not cls:
            continue  # a null pointer's hash; a class another one of the same hash hides
        fields = ser._included(cls)
        by_hash = {int(f.attributes["hash"]): f for f in fields}  # what deep records find
        props = []
        for f in fields:
            prop_hash = int(f.attributes["hash"])
            t = f.type.element if isinstance(f.type, List) else f.type
            key = (str(f.attributes["type_name"]), _category(schema, t),
                   t.name if isinstance(t, Ref) else "")
            kind = kinds.get(key)
            if kind is None:
                kind = kinds[key] = _kind(schema, *key)
            props.append((f.name, prop_hash, bool(int(f.attributes["flags"]) & _DELTA),
                          isinstance(f.type, List), by_hash[prop_hash] is f, *kind))
        classes.append((type_hash, cls.name, frozenset(f.name for f in cls.fields), props))
    return speedups.Program(ser.shallow, classes, KiObject, KiObject.__dict__["type_name"],
                            KiObject.__dict__["type_hash"], KiObject.__dict__["padding"],
                            KiObject.__dict__["zlib_data"], KiObject.__dict__["trailing"])


def _category(schema: KiSchema, t: Any) -> str:
    """What the reference reads a value of model type ``t`` as."""
    if not isinstance(t, Ref):
        return "leaf"
    target = schema.model.types[t.name]
    if isinstance(target, Enum):
        return "enum"
    if isinstance(target, Record) and target.kind == "leaf":
        return "struct"
    return "object"


def _kind(schema: KiSchema, type_name: str, category: str,
          ref: str) -> tuple[tuple[int, int, int, int], Any]:
    """A property's leaf (kind, bits, signed, aligned) and, for a leaf struct, (component
    leaf, keys in wire order, whether it is a Matrix3x3), for an enum its options."""
    from gameserde.kingsisle.serializer import _STRUCTS

    if category == "leaf":
        return _leaf(type_name), None
    if category == "enum":
        enum = schema.model.types[ref]
        assert isinstance(enum, Enum)
        return (_ENUM, 32, 0, 1), _options(enum)
    if category == "object":
        return (_OBJECT, 32, 0, 1), None
    if type_name not in _STRUCTS:
        return (_OTHER, 0, 0, 0), None
    kind, keys = _STRUCTS[type_name]
    return (_STRUCT, 0, 0, 1), (_leaf(kind), keys, type_name == "class Matrix3x3")


def _options(enum: Enum) -> tuple[bool, dict[bytes, int], dict[int, bytes | None],
                                  tuple[tuple[int, bytes | None], ...]]:
    """An enum's options for HUMAN_READABLE_ENUMS: values by UTF-8 name, the first name of
    each value, every (value, name) in type-list order; a name that is not UTF-8 is None
    there (the reference decides)."""
    options = tuple((value, _utf8(name)) for name, value in enum.values.items())
    by_value: dict[int, bytes | None] = {}
    for value, name in options:
        by_value.setdefault(value, name)
    return (enum.bit_flags, {name: value for value, name in options if name is not None},
            by_value, options)


def _utf8(name: str) -> bytes | None:
    try:
        return name.encode()
    except UnicodeEncodeError:
        return None


def _leaf(type_name: str) -> tuple[int, int, int, int]:
    from gameserde.kingsisle.serializer import _FLOATS, _INTS

    if type_name == "bool":
        return _BOOL, 1, 0, 0
    if type_name in _INTS:
        bits, signed, aligned = _INTS[type_name]
        return _INT, bits, int(signed), int(aligned)
    if type_name in _FLOATS:
        return (_FLOAT, 32, 0, 1) if _FLOATS[type_name][0] == 32 else (_DOUBLE, 64, 0, 1)
    if type_name in ("std::string", "std::wstring"):
        return (_STRING if type_name == "std::string" else _WSTRING), 0, 0, 0
    return _OTHER, 0, 0, 0
