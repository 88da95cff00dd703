"""Zeze values as rows of the shared type model, for tables (Parquet datasets).

:func:`rows_of` builds, once per :class:`~gameserde.zeze.schema.ZezeSchema`, the *row model*
(a :class:`~gameserde.schema.model.Schema` derived from the solution's) and a converter per
bean from the decoded value (:func:`gameserde.zeze.decode`'s) to the row form of
:class:`gameserde.codecs.Row`. The row model is the solution's model with these changes:

* every bean without ``base=`` (and every external beankey) has one more field,
  :data:`UNKNOWN_COLUMN` (``"$unknown"``): a list of records :data:`UNKNOWN_FIELD` (``id``,
  ``wire_type``, ``data``), the unknown fields the bean keeps (an external bean's are all of
  them); null when it keeps none. A bean with ``base=`` inherits it. So nothing the decoder
  keeps is left out of the row, and a bean without variables still has a column (Parquet
  has no empty structs: a beankey without variables has the field too, always null);
* transient fields are left out (they are never on the wire);
* ``decimal`` is a string, Java's ``BigDecimal.toString()`` (exact at any precision);
* for frames (``frame=True``), the records :data:`FRAMES` and :data:`FRAME`, the enum
  :data:`FAMILY` and the union :data:`FRAME_VALUE` (every bean a protocol or rpc carries).

The rest is the solution's model as :mod:`gameserde.zeze.schema` lowers it: vectors are
records of ``x``, ``y`` (``z``, ``w``) float32 (int32 for ``vector2int``/``vector3int``),
a dynamic is a union of its beans (the EmptyBean is null), a map is pairs (a beankey key a
record), a set a list. Zeze's ``<enum>`` declares integer constants, not types: such fields
are integers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gameserde.codecs import Row
from gameserde.schema.model import (
    BYTES,
    INT32,
    INT64,
    STRING,
    UINT8,
    Enum,
    Field,
    Int,
    List,
    Map,
    Named,
    Optional,
    Record,
    Ref,
    Schema,
    Set,
    Type,
    Union,
)
from gameserde.zeze._plan import Plans, TypePlan, plans_of
from gameserde.zeze.frames import Frame
from gameserde.zeze.schema import BUILTIN_RECORDS, ZezeSchema
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic

__all__ = ["FAMILY", "FRAME", "FRAMES", "FRAME_VALUE", "UNKNOWN_COLUMN", "UNKNOWN_FIELD",
           "Rows", "rows_of"]

UNKNOWN_COLUMN = UNKNOWN_KEY
"""The field of a bean's row holding its kept unknown fields."""

UNKNOWN_FIELD = "zeze.unknown_field"
"""The record of one kept unknown field: ``id`` (int32), ``wire_type`` (uint8) and ``data``
(its bytes, as :class:`~gameserde.zeze.values.UnknownField` has them)."""

FRAMES = "zeze.frames"
"""The root record of a stream of frames: one field, ``frames``, a list of :data:`FRAME`."""

FRAME = "zeze.frame"
"""A frame: ``protocol`` (its full name), ``moduleId``, ``protocolId`` (int32), ``family``
(:data:`FAMILY`), ``resultCode`` (int64), ``sessionId`` (int64, null for a protocol) and
``value`` (:data:`FRAME_VALUE`), as the codec's JSON names them."""

FAMILY = "zeze.family"
"""The enum of a frame's family: ``response`` 0, ``request`` 1, ``protocol`` 2 (the family
class on the wire)."""

FRAME_VALUE = "zeze.frame.value"
"""The union of the beans frames carry (each protocol's argument, each rpc's argument and
result), by full name; the EmptyBean is null."""

_FAMILIES = {"response": 0, "request": 1, "protocol": 2}
_DECIMAL = "zeze.decimal"

Convert = Callable[[Any], Any]


def rows_of(schema: ZezeSchema) -> Rows:
    """The row model and converters of ``schema`` (built once per schema)."""
    rows: Rows | None = getattr(schema, "_rows", None)
    if rows is None:
        rows = Rows(schema)
        schema._rows = rows  # type: ignore[attr-defined]
    return rows


class Rows:
    """The row model of one solution (:attr:`model`) and its converters, compiled per bean
    on first use."""

    def __init__(self, schema: ZezeSchema) -> None:
        self.schema = schema
        self.plans: Plans = plans_of(schema)
        self.model = _row_model(schema)
        """The row model: the rows' :attr:`Row.schema`."""
        self._beans: dict[str, Convert] = {}

    def bean(self, name: str, value: Any) -> Row:
        """The row of ``value``, a decoded bean ``name`` (full name)."""
        return Row(name, self.model, Ref(name), self.converter(name)(value))

    def frames(self, frames: list[Frame]) -> Row:
        """The row of a decoded stream of frames: a :data:`FRAMES` record."""
        schema = self.schema
        out = []
        for f in frames:
            proto = schema.protocol(f.name)
            bean = proto.result if f.family == "response" else proto.argument
            out.append({"protocol": f.name, "moduleId": f.module_id,
                        "protocolId": f.protocol_id, "family": _FAMILIES[f.family],
                        "resultCode": f.result_code, "sessionId": f.session_id,
                        "value": None if bean is None else (bean,
                                                            self.converter(bean)(f.value))})
        return Row(FRAMES, self.model, Ref(FRAMES), {"frames": out})

    def converter(self, name: str) -> Convert:
        """The converter of the bean ``name``'s values to its row form."""
        convert = self._beans.get(name)
        if convert is None:
            cell: list[Convert] = []
            self._beans[name] = lambda value: cell[0](value)  # while its fields are built
            cell.append(self._bean(name))
            convert = self._beans[name] = cell[0]
        return convert

    def _bean(self, name: str) -> Convert:
        plan = self.plans.bean(name)
        names = [f.name for layer in plan.layers for f in layer]
        converts = [(f.name, c) for layer in plan.layers for f in layer
                    if (c := self._type(f.type)) is not None]

        def convert(value: Any) -> Any:
            if isinstance(value, dict):
                if not converts and UNKNOWN_KEY not in value:
                    return value
                out = dict(value)
            elif isinstance(value, Mapping):  # a beankey as a key or element: FrozenBean
                out = dict(value)
            else:  # a dataclass
                out = {n: getattr(value, n) for n in names}
            for n, c in converts:
                inner = out.get(n)
                if inner is not None:
                    out[n] = c(inner)
            unknown = out.get(UNKNOWN_KEY)
            if unknown is not None:
                out[UNKNOWN_KEY] = [{"id": u.id, "wire_type": u.wire_type,
                                     "data": bytes(u.data)} for u in unknown]
            return out

        return convert

    def _type(self, t: TypePlan) -> Convert | None:
        """The converter of a value of ``t`` (None: the value is its row form)."""
        kind = t.kind
        if kind in ("bool", "int", "float", "double", "binary", "string"):
            return None
        if kind == "decimal":
            return str  # BigDecimal.toString(), as the encoder writes it
        if kind in ("vector", "vectorint"):
            record = BUILTIN_RECORDS[f"zeze.{t.name}"]
            components = tuple(f.name for f in record.fields)
            return lambda value: dict(zip(components, value, strict=False))  # decoded: exact
        if kind in ("list", "set"):
            assert t.element is not None
            element = self._type(t.element)
            if element is None:
                return None if kind == "list" else list  # a dataclass's set is a set
            return lambda values: [element(v) for v in values]
        if kind == "map":
            assert t.key is not None and t.value is not None
            key = self._type(t.key) or _same
            value = self._type(t.value) or _same
            return lambda pairs: [(key(k), value(v)) for k, v in pairs.items()]
        if kind == "bean":
            assert t.bean is not None
            return self.converter(t.bean)
        assert kind == "dynamic"
        return self._dynamic

    def _dynamic(self, value: Dynamic) -> Any:
        if value.bean is None:
            return None
        return value.bean, self.converter(value.bean)(value.value)


def _same(value: Any) -> Any:
    return value


def _row_model(schema: ZezeSchema) -> Schema:
    """The solution's model changed as the module's documentation says."""
    types: dict[str, Named] = {}
    for name, t in schema.model.types.items():
        if name == _DECIMAL:
            continue
        if isinstance(t, Record):
            fields = [replace(f, type=_typed(f.type)) for f in t.fields
                      if not f.attributes.get("transient")]
            if name in schema.beans and t.base is None and (
                    t.kind == "bean" or t.attributes.get("external") or not fields):
                fields.append(Field(UNKNOWN_COLUMN, Optional(List(Ref(UNKNOWN_FIELD)))))
            t = replace(t, fields=tuple(fields))
        types[name] = t
    types[UNKNOWN_FIELD] = Record(UNKNOWN_FIELD, (
        Field("id", INT32, id=1), Field("wire_type", UINT8, id=2), Field("data", BYTES, id=3)),
        kind="unknown")
    carried = dict.fromkeys(bean for p in schema.protocols.values()
                            for bean in (p.argument, p.result) if bean is not None)
    types[FRAME_VALUE] = Union(FRAME_VALUE, {
        bean: (i, Ref(bean)) for i, bean in enumerate(carried, 1)}, discriminator=INT32,
        kind="frame")
    types[FAMILY] = Enum(FAMILY, Int(8), _FAMILIES)
    types[FRAME] = Record(FRAME, (
        Field("protocol", STRING, id=1), Field("moduleId", INT32, id=2),
        Field("protocolId", INT32, id=3), Field("family", Ref(FAMILY), id=4),
        Field("resultCode", INT64, id=5), Field("sessionId", Optional(INT64), id=6),
        Field("value", Ref(FRAME_VALUE), id=7)), kind="frame")
    types[FRAMES] = Record(FRAMES, (Field("frames", List(Ref(FRAME)), id=1),), kind="frames")
    return Schema(types, attributes=schema.model.attributes)


def _typed(t: Type) -> Type:
    """``t`` with ``decimal`` as a string."""
    if isinstance(t, Ref):
        return STRING if t.name == _DECIMAL else t
    if isinstance(t, List):
        return List(_typed(t.element), t.length)
    if isinstance(t, Set):
        return Set(_typed(t.element))
    if isinstance(t, Map):
        return Map(_typed(t.key), _typed(t.value))
    if isinstance(t, Optional):
        return Optional(_typed(t.inner))
    return t
