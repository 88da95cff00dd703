"""Plans: a Zeze schema's beans compiled once into what the codecs need per field.

A :class:`TypePlan` says how one declared type is written and read (its wire type, its
elements, its bean or dynamic); a :class:`BeanPlan` lists a bean's layers (its own fields
first, then its ``base=`` chain), each layer's fields in id order. Plans are built on first
use and cached on the schema.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from typing import Any

from gameserde.errors import SchemaError
from gameserde.schema.model import Bool, Bytes, Float, Int, List, Map, Record, Ref, Set, String
from gameserde.schema.model import Type as ModelType
from gameserde.schema.model import Union as ModelUnion
from gameserde.zeze import bytebuffer as bb
from gameserde.zeze.schema import ZezeSchema
from gameserde.zeze.values import Dynamic

_VECTORS = {
    "zeze.vector2": ("vector", bb.VECTOR2, 2), "zeze.vector3": ("vector", bb.VECTOR3, 3),
    "zeze.vector4": ("vector", bb.VECTOR4, 4), "zeze.quaternion": ("vector", bb.VECTOR4, 4),
    "zeze.vector2int": ("vectorint", bb.VECTOR2INT, 2),
    "zeze.vector3int": ("vectorint", bb.VECTOR3INT, 3),
}


_ZERO_DECIMAL = decimal.Decimal(0)
_ZERO_VECTORS = {("vector", n): (0.0,) * n for n in (2, 3, 4)} | {
    ("vectorint", n): (0,) * n for n in (2, 3)}

IMMUTABLE_KINDS = frozenset({"bool", "int", "float", "double", "binary", "string", "decimal",
                             "vector", "vectorint"})
"""Kinds whose values are immutable (may be shared between decoded values)."""


@dataclass(eq=False)
class DynamicPlan:
    """A ``dynamic``: its name, and its beans by TypeId and TypeIds by bean."""

    name: str
    by_type_id: dict[int, str]
    by_bean: dict[str, int]


@dataclass(eq=False)
class TypePlan:
    """How a declared type is written and read.

    ``kind``: bool, int, float, double, binary, string, decimal, list, set, map, bean,
    dynamic, vector (float components) or vectorint; ``bits``: an int's width or a vector's
    component count.
    """

    kind: str
    wire: int
    name: str
    bits: int = 0
    element: TypePlan | None = None
    key: TypePlan | None = None
    value: TypePlan | None = None
    bean: str | None = None
    dynamic: DynamicPlan | None = None


@dataclass(eq=False)
class FieldPlan:
    id: int
    name: str
    type: TypePlan
    default: Any
    """The constructor's value (``default=``, else :meth:`Plans.initial`): what encoding uses
    for a field a dict leaves out. Decoding gives an absent field the zero value."""
    cost: int = 1
    """How many values decoding builds when the field is absent (a bean field: its bean's
    :meth:`~gameserde.zeze.schema.ZezeSchema.default_size`): what it charges to the
    ``max_expansion`` budget."""


@dataclass(eq=False)
class BeanPlan:
    name: str
    kind: str
    layers: list[list[FieldPlan]]
    """The bean's own fields first, then each ``base=`` layer's, every layer in id order."""
    keeps_unknown: bool
    """Java keeps unknown fields in beans without ``base=`` (in the root layer); an external
    bean or beankey keeps every field (the solution gives none of them)."""
    fields: dict[str, FieldPlan] = field(default_factory=dict)
    cls: type | None = None
    transient: frozenset[str] = frozenset()
    """The names of the transient fields of every layer: not serialized, and a value that
    holds them is encoded without them (Java's ``encode`` never reads them)."""


def _field_type(plans: Plans, t: ModelType) -> TypePlan:
    if isinstance(t, Bool):
        return TypePlan("bool", bb.INTEGER, "bool")
    if isinstance(t, Int):
        names = {8: "byte", 16: "short", 32: "int", 64: "long"}
        return TypePlan("int", bb.INTEGER, names[t.bits], bits=t.bits)
    if isinstance(t, Float):
        return (TypePlan("float", bb.FLOAT, "float") if t.bits == 32
                else TypePlan("double", bb.DOUBLE, "double"))
    if isinstance(t, String):
        return TypePlan("string", bb.BYTES, "string")
    if isinstance(t, Bytes):
        return TypePlan("binary", bb.BYTES, "binary")
    if isinstance(t, List):
        element = _field_type(plans, t.element)
        return TypePlan("list", bb.LIST, f"list[{element.name}]", element=element)
    if isinstance(t, Set):
        element = _field_type(plans, t.element)
        return TypePlan("set", bb.LIST, f"set[{element.name}]", element=element)
    if isinstance(t, Map):
        key, value = _field_type(plans, t.key), _field_type(plans, t.value)
        return TypePlan("map", bb.MAP, f"map[{key.name},{value.name}]", key=key, value=value)
    if isinstance(t, Ref):
        if t.name in _VECTORS:
            kind, wire, n = _VECTORS[t.name]
            return TypePlan(kind, wire, t.name.removeprefix("zeze."), bits=n)
        if t.name == "zeze.decimal":
            return TypePlan("decimal", bb.BYTES, "decimal")
        target = plans.schema.model.types[t.name]
        if isinstance(target, ModelUnion):
            return TypePlan("dynamic", bb.DYNAMIC, "dynamic", dynamic=plans.dynamic(target))
        if isinstance(target, Record):
            return TypePlan("bean", bb.BEAN, target.name, bean=target.name)
    raise SchemaError(f"Zeze cannot encode the type {t!r}")


class Plans:
    """The plans of one schema, built on first use."""

    def __init__(self, schema: ZezeSchema) -> None:
        self.schema = schema
        self._beans: dict[str, BeanPlan] = {}
        self._dynamics: dict[str, DynamicPlan] = {}
        self.codecs: dict[Any, Any] = {}
        """:func:`gameserde.zeze.codec.bean_codec`'s cache."""

    def dynamic(self, union: ModelUnion) -> DynamicPlan:
        plan = self._dynamics.get(union.name)
        if plan is None:
            by_bean = {bean: int(type_id) for bean, (type_id, _) in union.members.items()}
            plan = DynamicPlan(union.name, {v: k for k, v in by_bean.items()}, by_bean)
            self._dynamics[union.name] = plan
        return plan

    def bean(self, name: str) -> BeanPlan:
        plan = self._beans.get(name)
        if plan is not None:
            return plan
        record = self.schema.beans[name]
        layers: list[list[FieldPlan]] = []
        plan = BeanPlan(name, record.kind, layers,
                        keeps_unknown=record.kind == "bean" or bool(
                            record.attributes.get("external")),
                        cls=self.schema.classes.get(name))
        self._beans[name] = plan
        transient: set[str] = set()
        layer: Record | None = record
        while layer is not None:
            transient.update(f.name for f in layer.fields if f.attributes.get("transient"))
            fields = []
            for f in sorted((f for f in layer.fields if not f.attributes.get("transient")),
                            key=lambda f: int(f.id or 0)):
                t = _field_type(self, f.type)
                cost = self.schema.default_size(t.bean) if t.bean is not None else 1
                fields.append(FieldPlan(int(f.id or 0), f.name, t,
                                        self.initial(t) if f.default is None else f.default,
                                        cost))
                plan.fields.setdefault(f.name, fields[-1])
            layers.append(fields)
            layer = self.schema.beans[layer.base] if layer.base else None
        plan.transient = frozenset(transient - plan.fields.keys())
        return plan

    def initial(self, t: TypePlan) -> Any:
        """What Gen's constructor gives a field of ``t`` that has no ``default=``: the zero
        value, except for a bean: ``new Bean()``, whose fields hold their own constructor
        values (their ``default=`` included)."""
        if t.kind != "bean":
            return self.zero(t)
        assert t.bean is not None
        return {f.name: f.default for layer in self.bean(t.bean).layers for f in layer}

    def constructed(self, t: TypePlan) -> Any:
        """A new value of ``t`` as Java's constructor makes it: what an absent field decodes
        to. The zero value, except for a bean field: Java's decoder leaves it as ``new
        Bean()`` made it, so its fields hold their ``default=``. Values of immutable kinds
        are shared, containers and beans are new."""
        if t.kind != "bean":
            return self.zero(t)
        assert t.bean is not None
        return {f.name: f.default if f.type.kind in IMMUTABLE_KINDS else self.constructed(f.type)
                for layer in reversed(self.bean(t.bean).layers) for f in layer}

    def zero(self, t: TypePlan) -> Any:
        """The zero value of ``t``: shared for immutable kinds, a new one for containers,
        dynamics and beans."""
        kind = t.kind
        if kind == "bool":
            return False
        if kind == "int":
            return 0
        if kind in ("float", "double"):
            return 0.0
        if kind == "binary":
            return b""
        if kind == "string":
            return ""
        if kind == "decimal":
            return _ZERO_DECIMAL
        if kind in ("list", "set"):
            return []
        if kind == "map":
            return {}
        if kind in ("vector", "vectorint"):
            return _ZERO_VECTORS[kind, t.bits]
        if kind == "dynamic":
            return Dynamic(None, {}, 0)
        assert t.bean is not None
        return self.zero_bean(t.bean)

    def zero_bean(self, name: str) -> dict[str, Any]:
        plan = self.bean(name)
        return {f.name: self.zero(f.type) for layer in plan.layers for f in layer}


def plans_of(schema: ZezeSchema) -> Plans:
    """The schema's plans (built once per schema)."""
    plans: Plans | None = getattr(schema, "_plans", None)
    if plans is None:
        plans = Plans(schema)
        schema._plans = plans  # type: ignore[attr-defined]
    return plans
