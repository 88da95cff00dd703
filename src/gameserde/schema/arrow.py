"""The shared type model as Apache Arrow types, for tables (Parquet datasets).

:func:`plan` compiles a type of a :class:`~gameserde.schema.model.Schema` once into its Arrow
type and a converter from the row form (see :class:`gameserde.codecs.Row`) to the values
``pyarrow.array`` takes. The rules:

=========================  ====================================================================
model                      Arrow
=========================  ====================================================================
``Int(bits, signed)``      the smallest of ``int8`` … ``int64`` / ``uint8`` … ``uint64`` that
                           holds it (``uint64`` keeps all 64 bits)
``Float(32)``, ``(64)``    ``float32``, ``float64``; ``Float(16)`` is ``float32`` (exact)
``Bool``                   ``bool``
``String``, ``Bytes``      ``string``, ``binary``
``List``, ``Set``          ``list`` (a fixed length too: Parquet has no fixed-size list, and
                           pyarrow cannot read back a null one)
``Map``                    ``map`` when the key is a number, text, bytes or enum; otherwise a
                           ``list`` of ``struct<key, value>``
``Optional``               the inner type (nullable)
``Enum``                   ``dictionary<int32, string>`` of names (``enums="name"``; bit flags
                           joined by ``|``, a value without a name as its number), or the
                           underlying integer (``enums="int"``)
``Record``                 ``struct`` of its fields, inherited ones first; a record without
                           fields is ``struct<present: bool>`` (Parquet writes no empty
                           struct)
``Union``                  a tagged ``struct``: ``type`` (the member's name, a dictionary)
                           and one field per member, only the chosen one set
=========================  ====================================================================

What Arrow cannot nest is kept as JSON text (Arrow's ``json`` type): a named type inside
itself (recursion), a union of more than :data:`MAX_UNION` members, and anything past
:data:`MAX_FIELDS` Arrow fields in one table. In that JSON a union is ``{"type", "value"}``,
bytes are base64, a map is a list of ``[key, value]`` and a float that is not finite is the
text ``"nan"``, ``"inf"`` or ``"-inf"``.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gameserde._extras import require
from gameserde.errors import UsageError
from gameserde.schema.model import (
    Bool,
    Bytes,
    Enum,
    Float,
    Int,
    List,
    Map,
    Optional,
    Record,
    Ref,
    Schema,
    Set,
    String,
    Type,
    Union,
)

__all__ = ["ENUM_FORMS", "MAX_FIELDS", "MAX_UNION", "Plan", "plan"]

MAX_UNION = 64
"""A union with more members than this is a JSON column, not a struct of them all."""

MAX_FIELDS = 10_000
"""The Arrow fields one table's type may have; deeper parts become JSON columns."""

ENUM_FORMS = ("name", "int")
"""How enums are stored: their names (a dictionary column) or the integers."""

Convert = Callable[[Any], Any]


@dataclass(frozen=True)
class Plan:
    """A type compiled for Arrow: ``arrow`` its Arrow type, ``convert`` the function from the
    row form to what ``pyarrow.array(..., type=storage)`` takes (None: the row form is it);
    ``storage`` is ``arrow`` with JSON as plain strings (pyarrow builds no extension type
    inside another from Python values: the array is built so, then cast to ``arrow``)."""

    arrow: Any
    convert: Convert | None
    storage: Any = None


def plan(schema: Schema, t: Type, *, enums: str = "name") -> Plan:
    """``t`` of ``schema`` compiled for Arrow (see the module's rules)."""
    if enums not in ENUM_FORMS:
        raise UsageError(f"enums are stored as {' or '.join(ENUM_FORMS)}, not {enums!r}")
    compiler = _Compiler(schema, enums)
    planned = compiler.plan(t)
    return Plan(planned.arrow, planned.convert, _storage(compiler.pa, planned.arrow))


def _storage(pa: Any, t: Any) -> Any:
    """``t`` with every extension type replaced by its storage type."""
    if isinstance(t, pa.BaseExtensionType):
        return t.storage_type
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_storage(pa, f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_storage(pa, t.key_type), _storage(pa, t.item_type))
    if pa.types.is_list(t):
        return pa.list_(_storage(pa, t.value_type))
    return t


class _Compiler:
    def __init__(self, schema: Schema, enums: str) -> None:
        self.pa = require("pyarrow", "a table (Parquet)")
        self.schema = schema
        self.enums = enums
        self.budget = MAX_FIELDS
        self.expanding: list[str] = []
        self.jsonable: dict[str, Convert] = {}

    def plan(self, t: Type) -> Plan:
        pa = self.pa
        self.budget -= 1
        if isinstance(t, Int):
            return Plan(_int_type(pa, t), None)
        if isinstance(t, Float):
            return Plan(pa.float64() if t.bits == 64 else pa.float32(), None)
        if isinstance(t, Bool):
            return Plan(pa.bool_(), None)
        if isinstance(t, String):
            return Plan(pa.string(), None)
        if isinstance(t, Bytes):
            return Plan(pa.binary(), None)
        if isinstance(t, Optional):
            return self.plan(t.inner)
        if isinstance(t, List | Set):
            element = self.plan(t.element)
            return Plan(pa.list_(element.arrow), _each(element.convert))
        if isinstance(t, Map):
            return self._map(t)
        return self._named(t)

    def _named(self, ref: Ref) -> Plan:
        named = self.schema.resolve(ref)
        if isinstance(named, Enum):
            if self.enums == "int":
                return Plan(_int_type(self.pa, named.underlying), None)
            return Plan(self.pa.dictionary(self.pa.int32(), self.pa.string()),
                        _enum_name(named))
        if (ref.name in self.expanding or self.budget <= 0
                or (isinstance(named, Union) and len(named.members) > MAX_UNION)):
            return self._json(ref)
        self.expanding.append(ref.name)
        try:
            if isinstance(named, Record):
                return self._record(named)
            assert isinstance(named, Union)
            return self._union(named)
        finally:
            self.expanding.pop()

    def _record(self, record: Record) -> Plan:
        if not self.schema.fields_of(record):  # Parquet writes no struct without fields
            return Plan(self.pa.struct([self.pa.field("present", self.pa.bool_())]),
                        lambda value: None if value is None else {"present": True})
        fields, converts = [], []
        for f in self.schema.fields_of(record):
            inner = self.plan(f.type)
            fields.append(self.pa.field(f.name, inner.arrow))
            if inner.convert is not None:
                converts.append((f.name, inner.convert))
        return Plan(self.pa.struct(fields), _record(converts) if converts else None)

    def _union(self, union: Union) -> Plan:
        tag = "type" if "type" not in union.members else "type_"
        fields = [self.pa.field(tag, self.pa.dictionary(self.pa.int32(), self.pa.string()))]
        converts: dict[str, Convert | None] = {}
        for name, (_, member) in union.members.items():
            inner = self.plan(member)
            fields.append(self.pa.field(name, inner.arrow))
            converts[name] = inner.convert

        def convert(value: Any) -> Any:
            if value is None:
                return None
            name, inner = value
            conv = converts.get(name)
            return {tag: name, name: inner if conv is None or inner is None else conv(inner)}

        return Plan(self.pa.struct(fields), convert)

    def _map(self, t: Map) -> Plan:
        pa = self.pa
        key = t.key
        named = self.schema.resolve(key) if isinstance(key, Ref) else None
        value = self.plan(t.value)
        if isinstance(named, Enum) or isinstance(key, Int | Float | Bool | String | Bytes):
            if isinstance(named, Enum):
                key_plan = (Plan(_int_type(pa, named.underlying), None) if self.enums == "int"
                            else Plan(pa.string(), _enum_name(named)))
            else:
                key_plan = self.plan(key)
            arrow = pa.map_(key_plan.arrow, value.arrow)
            return Plan(arrow, _pairs(key_plan.convert, value.convert, struct=False))
        key_plan = self.plan(key)
        arrow = pa.list_(pa.struct([pa.field("key", key_plan.arrow),
                                    pa.field("value", value.arrow)]))
        return Plan(arrow, _pairs(key_plan.convert, value.convert, struct=True))

    def _json(self, t: Type) -> Plan:
        to_jsonable = self._jsonable(t)
        return Plan(self.pa.json_(self.pa.string()),
                    lambda value: None if value is None else json.dumps(
                        to_jsonable(value), ensure_ascii=False, separators=(",", ":")))

    def _jsonable(self, t: Type) -> Convert:
        """The converter of ``t``'s row form to JSON values (recursive types resolved
        lazily, so a type inside itself converts without end only as deep as the value)."""
        if isinstance(t, Int | Bool | String):
            return _same
        if isinstance(t, Float):
            return _float_json
        if isinstance(t, Bytes):
            return lambda v: base64.b64encode(v).decode("ascii")
        if isinstance(t, Optional):
            inner = self._jsonable(t.inner)
            return lambda v: None if v is None else inner(v)
        if isinstance(t, List | Set):
            element = self._jsonable(t.element)
            return lambda v: [element(x) for x in v]
        if isinstance(t, Map):
            k, w = self._jsonable(t.key), self._jsonable(t.value)
            return lambda v: [[k(a), w(b)] for a, b in v]
        name = t.name
        if name not in self.jsonable:
            cell: list[Convert] = []
            self.jsonable[name] = lambda v: cell[0](v)
            cell.append(self._jsonable_named(self.schema.resolve(t)))
        return self.jsonable[name]

    def _jsonable_named(self, named: Any) -> Convert:
        if isinstance(named, Enum):
            if self.enums == "int":
                return _same
            return _enum_name(named)
        if isinstance(named, Record):
            fields = [(f.name, self._jsonable(f.type)) for f in self.schema.fields_of(named)]

            def record(v: Any) -> Any:
                if v is None:
                    return None
                return {name: None if v.get(name) is None else conv(v[name])
                        for name, conv in fields if name in v}

            return record
        members = {name: self._jsonable(member) for name, (_, member) in named.members.items()}

        def union(v: Any) -> Any:
            if v is None:
                return None
            name, inner = v
            return {"type": name, "value": None if inner is None else members[name](inner)}

        return union


def _int_type(pa: Any, t: Int) -> Any:
    for bits in (8, 16, 32, 64):
        if t.bits <= bits:
            return getattr(pa, f"{'' if t.signed else 'u'}int{bits}")()
    raise AssertionError(t)


def _same(value: Any) -> Any:
    return value


def _float_json(value: Any) -> Any:
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _enum_name(enum: Enum) -> Convert:
    names: dict[int, str] = {}
    for name, value in enum.values.items():
        names.setdefault(value, name)

    def convert(value: Any) -> Any:
        if value is None:
            return None
        name = names.get(value)
        if name is not None:
            return name
        if enum.bit_flags:
            flags = enum.flag_names(value)
            if flags:
                return "|".join(flags)
        return str(value)

    return convert


def _each(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda values: None if values is None else [convert(v) for v in values]


def _record(converts: list[tuple[str, Convert]]) -> Convert:
    def convert(value: Any) -> Any:
        if value is None:
            return None
        out = dict(value)
        for name, conv in converts:
            inner = value.get(name)
            if inner is not None:
                out[name] = conv(inner)
        return out

    return convert


def _pairs(key: Convert | None, value: Convert | None, *, struct: bool) -> Convert | None:
    """The converter of a map's pairs: to pairs (an Arrow map) or to ``{key, value}``
    structs."""
    if key is None and value is None and not struct:
        return None
    k = key or _same
    w = value or _same

    def convert(pairs: Any) -> Any:
        if pairs is None:
            return None
        converted = ((k(a), None if b is None else w(b)) for a, b in pairs)
        if struct:
            return [{"key": a, "value": b} for a, b in converted]
        return list(converted)

    return convert
