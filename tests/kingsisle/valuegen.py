"""Hypothesis strategies for objects of the synthetic type list (``typelists.py``), drawn
from its schema: every leaf type over its whole range (float32 and double from raw bits, so
NaN payloads, infinities and subnormals too), std::strings of any bytes, wide strings of any
UTF-16 units (lone surrogates included), enums as options and as any u32, leaf structs,
lists, nested and null objects."""

from __future__ import annotations

import struct
from typing import Any

from hypothesis import strategies as st

from gameserde._float32 import float32_from_bits
from gameserde.kingsisle import load_schema
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import _STRUCTS
from gameserde.kingsisle.typelist import LEAF_TYPES, KiSchema
from gameserde.schema.model import (
    Bool,
    Bytes,
    Enum,
    Field,
    Float,
    Int,
    List,
    Record,
    Ref,
    String,
)
from tests.kingsisle.typelists import DELTA, DEPRECATED, type_list

SCHEMA = load_schema(type_list())

_DOUBLE, _BITS = struct.Struct("<d"), struct.Struct("<Q")


def doubles() -> st.SearchStrategy[float]:
    """Every double, from its bits."""
    return st.integers(0, (1 << 64) - 1).map(lambda b: _DOUBLE.unpack(_BITS.pack(b))[0])


def float32s() -> st.SearchStrategy[float]:
    """Every float32, from its bits (NaN payloads kept)."""
    return st.integers(0, (1 << 32) - 1).map(float32_from_bits)


def wide_strings() -> st.SearchStrategy[str]:
    """Any UTF-16 code units, lone surrogates included."""
    return st.lists(st.integers(0, 0xFFFF), max_size=12).map(
        lambda units: struct.pack(f"<{len(units)}H", *units).decode("utf-16-le",
                                                                     "surrogatepass"))


def byte_strings() -> st.SearchStrategy[bytes]:
    """std::string values: text, and bytes that are not UTF-8."""
    return st.one_of(st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")),
                     st.binary(max_size=12))


def _leaf(t: Any) -> st.SearchStrategy[Any]:
    if isinstance(t, Int):
        return st.integers(t.min, t.max)
    if isinstance(t, Float):
        return float32s() if t.bits == 32 else doubles()
    if isinstance(t, Bool):
        return st.booleans()
    if isinstance(t, Bytes):
        return byte_strings()
    assert isinstance(t, String)
    return wide_strings()


def _enum(enum: Enum, named: bool) -> st.SearchStrategy[int]:
    options = list(enum.values.values())
    if enum.bit_flags:
        flags = st.lists(st.sampled_from(options)).map(lambda fs: sum(set(fs)))
        return flags if named else st.one_of(flags, st.integers(0, (1 << 32) - 1))
    values = st.sampled_from(options)
    return values if named else st.one_of(values, st.integers(0, (1 << 32) - 1))


def _struct(type_name: str) -> st.SearchStrategy[dict[str, Any]]:
    kind, keys = _STRUCTS[type_name]
    part = _leaf(LEAF_TYPES[kind])
    if type_name == "class Matrix3x3":
        return st.fixed_dictionaries({k: st.lists(part, min_size=3, max_size=3) for k in keys})
    return st.fixed_dictionaries({k: part for k in keys})


def _value(schema: KiSchema, t: Any, type_name: str, depth: int,
           named: bool) -> st.SearchStrategy[Any]:
    if isinstance(t, Ref):
        target = schema.model.types[t.name]
        if isinstance(target, Enum):
            return _enum(target, named)
        if isinstance(target, Record) and target.kind == "leaf":
            return _struct(type_name)
        if depth > 2:
            return st.none()
        return st.none() | st.deferred(lambda: objects(schema, "class Item", depth=depth + 1,
                                                       named_enums=named))
    return _leaf(t)


def _property(schema: KiSchema, f: Field, depth: int, named: bool) -> st.SearchStrategy[Any]:
    type_name = str(f.attributes["type_name"])
    if isinstance(f.type, List):
        return st.lists(_value(schema, f.type.element, type_name, depth + 1, named), max_size=4)
    return _value(schema, f.type, type_name, depth, named)


def objects(schema: KiSchema = SCHEMA, name: str = "class Root", *, shallow: bool = True,
            named_enums: bool = False, depth: int = 0) -> st.SearchStrategy[KiObject]:
    """Objects of class ``name`` that a serializer with mask 7 writes: every property the
    mask takes (not the deprecated ones in deep mode), delta properties present or not;
    with ``named_enums`` only enum values that options name (HUMAN_READABLE_ENUMS)."""
    cls = schema.classes[name]
    required: dict[str, Any] = {}
    optional: dict[str, Any] = {}
    for f in cls.fields:
        flags = int(f.attributes["flags"])
        if flags & 7 != 7 or (not shallow and flags & DEPRECATED):
            continue
        target = optional if flags & DELTA else required
        target[f.name] = _property(schema, f, depth, named_enums)
    type_hash = int(cls.attributes["hash"])
    return st.fixed_dictionaries(required, optional=optional).map(
        lambda props: KiObject(name, type_hash, props))
