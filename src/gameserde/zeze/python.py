"""Zeze schemas declared as Python dataclasses.

Annotations follow :mod:`gameserde.schema.python` (``int32``, ``float32`` ... from there or
from here), with Zeze's own types added::

    from dataclasses import dataclass, field
    from gameserde.zeze.python import int32, vector3, schema_from_dataclasses

    @dataclass
    class BItem:
        id: int32 = field(default=0, metadata={"id": 1})
        count: int32 = field(default=0, metadata={"id": 2})

    @dataclass
    class BRole:
        name: str = field(default="", metadata={"id": 2})
        pos: vector3 = field(default=(0.0, 0.0, 0.0), metadata={"id": 6})
        items: list[BItem] = field(default_factory=list, metadata={"id": 7})

    schema = schema_from_dataclasses(BRole, module="m", solution="app")

=========================  ====================================================================
annotation                 Zeze type
=========================  ====================================================================
``bool`` ``int8/16/32``    bool byte short int; ``int`` (and ``int64``) is long
``float32`` ``float``      float, double
``bytes`` ``str``          binary, string
``decimal.Decimal``        decimal
``vector2`` ... ``quaternion``, ``vector2int``, ``vector3int``: the aliases of this module
``list[T]`` ``set[T]``     list, set; ``dict[K, V]``: map
a dataclass                a bean (``__gameserde__ = {"kind": "beankey"}`` for a beankey;
                           ``{"type_id": N}`` sets its TypeId; a dataclass base is ``base=``)
``A | B``                  dynamic over the beans A, B with TypeIds hash64(full name); special
                           ids with ``Annotated[A | B, dynamic({A: 1, B: 2})]``; one bean:
                           ``Annotated[A, dynamic()]``; also as list elements and map values
=========================  ====================================================================

Field ids come from ``field(metadata={"id": n})``; a class that gives no id at all numbers its
fields 1, 2, ... in declaration order (mixing the two is an error). ``metadata={"transient":
True}`` marks a transient field. Beans are named ``solution.module.ClassName``, or
``namespace.ClassName`` with ``__gameserde__ = {"namespace": "sol.mod"}``.
"""

from __future__ import annotations

import dataclasses
import decimal
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from gameserde.errors import SchemaError
from gameserde.schema import model as m
from gameserde.schema.python import (
    _Lowering,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
)
from gameserde.zeze.names import hash64
from gameserde.zeze.schema import BUILTIN_RECORDS, ZezeSchema, bean_cycle

__all__ = [
    "dynamic", "float32", "float64", "int8", "int16", "int32", "int64", "quaternion",
    "schema_from_dataclasses", "vector2", "vector2int", "vector3", "vector3int", "vector4",
]


@dataclass(frozen=True)
class _Builtin:
    name: str


vector2 = Annotated[tuple[float, float], _Builtin("zeze.vector2")]
vector3 = Annotated[tuple[float, float, float], _Builtin("zeze.vector3")]
vector4 = Annotated[tuple[float, float, float, float], _Builtin("zeze.vector4")]
quaternion = Annotated[tuple[float, float, float, float], _Builtin("zeze.quaternion")]
vector2int = Annotated[tuple[int, int], _Builtin("zeze.vector2int")]
vector3int = Annotated[tuple[int, int, int], _Builtin("zeze.vector3int")]


@dataclass(frozen=True)
class dynamic:
    """Marks ``Annotated[A | B, dynamic({A: 1, B: 2})]``: a dynamic with special TypeIds
    (all or none), or ``Annotated[A, dynamic()]``: a dynamic of one bean."""

    ids: Mapping[type, int] = dataclasses.field(default_factory=dict)


def _members(hint: Any) -> list[Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


class _ZezeLowering(_Lowering):
    """The shared lowering with Zeze's types: builtin records and dynamic unions."""

    def lower(self, hint: Any, where: str) -> m.Type:
        if hint is decimal.Decimal:
            return m.Ref("zeze.decimal")
        origin = typing.get_origin(hint)
        if origin is Annotated:
            inner, *extras = typing.get_args(hint)
            for extra in extras:
                if isinstance(extra, _Builtin):
                    return m.Ref(extra.name)
                if isinstance(extra, dynamic):
                    return self.dynamic(_members(inner), extra.ids, where)
        if origin in (typing.Union, types.UnionType):
            return self.dynamic(_members(hint), {}, where)
        return super().lower(hint, where)

    def dynamic(self, members: list[Any], ids: Mapping[type, int], where: str) -> m.Ref:
        if type(None) in members:
            raise SchemaError(f"{where}: Zeze has no optional values (drop the None)")
        for cls in members:
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise SchemaError(f"{where}: a dynamic holds beans (dataclasses), not "
                                  f"{getattr(cls, '__name__', cls)!r}")
        if ids and set(ids) != set(members):
            raise SchemaError(f"{where}: give special TypeIds to every bean or to none")
        alternatives: dict[str, tuple[int, m.Type]] = {}
        for cls in members:
            ref = self.named(cls)
            alternatives[ref.name] = (ids.get(cls, 0), ref)
        self.types[where] = m.Union(where, alternatives, discriminator=m.INT64,
                                    kind="dynamic", attributes={"special": bool(ids)})
        return m.Ref(where)


class _Renamer:
    """Pass two: Zeze names, ids, TypeIds and checks on the lowered model."""

    def __init__(self, types: Mapping[str, m.Named], names: Mapping[str, str]) -> None:
        self.source = types
        self.names = dict(names)  # record name in the lowering -> Zeze full name
        self.kinds = {new: types[old].attributes["kind"] for old, new in names.items()}

    def name(self, old: str) -> str:
        if old in self.names:
            return self.names[old]
        record, _, variable = old.rpartition(".")
        return f"{self.names[record]}.{variable}"

    def type(self, t: m.Type, where: str, element: bool = False) -> m.Type:
        if isinstance(t, m.List | m.Set):
            if element:
                raise SchemaError(f"{where}: Zeze collections do not nest")
            if isinstance(t, m.List) and t.length is not None:
                raise SchemaError(f"{where}: Zeze has no fixed-length arrays")
            inner = self.type(t.element, where, True)
            if isinstance(t, m.Set) and not self.keyable(inner):
                raise SchemaError(f"{where}: the elements of a set must be keyable")
            return m.Set(inner) if isinstance(t, m.Set) else m.List(inner)
        if isinstance(t, m.Map):
            if element:
                raise SchemaError(f"{where}: Zeze collections do not nest")
            key = self.type(t.key, where, True)
            if not self.keyable(key):
                raise SchemaError(f"{where}: the keys of a map must be keyable")
            return m.Map(key, self.type(t.value, where, True))
        if isinstance(t, m.Ref):
            if t.name in BUILTIN_RECORDS:
                return t
            if isinstance(self.source.get(t.name), m.Enum):
                raise SchemaError(f"{where}: Zeze has no enum types; use int32")
            return m.Ref(self.name(t.name))
        if t in (m.INT8, m.INT16, m.INT32, m.INT64, m.FLOAT32, m.FLOAT64, m.BOOL, m.STRING,
                 m.BYTES):
            return t
        raise SchemaError(f"{where}: Zeze has no type for {t}")

    def keyable(self, t: m.Type) -> bool:
        if isinstance(t, m.Ref):
            if t.name in BUILTIN_RECORDS:
                return True
            return self.kinds.get(t.name) == "beankey"
        return not isinstance(t, m.Float)

    def record(self, rec: m.Record) -> m.Record:
        full = self.names[rec.name]
        kind = rec.attributes.get("kind", "bean")
        given = [f.id for f in rec.fields if f.id is not None]
        if given and len(given) != len(rec.fields):
            raise SchemaError(f"{full}: give every field an id or none")
        fields, seen = [], set()
        for n, f in enumerate(rec.fields, 1):
            fid = f.id if f.id is not None else n
            if not 1 <= fid <= 4095 or fid in seen:
                raise SchemaError(f"{full}.{f.name}: the id {fid} is outside 1..4095 or "
                                  "used twice")
            seen.add(fid)
            ftype = self.type(f.type, f"{full}.{f.name}")
            attrs = {k: v for k, v in f.attributes.items() if k == "transient" and v}
            fields.append(m.Field(f.name, ftype, id=fid, default=f.default, attributes=attrs))
        attrs = {k: v for k, v in rec.attributes.items() if k not in ("kind", "type_id")}
        attrs["type_id"] = rec.attributes.get("type_id", hash64(full))
        attrs["module"] = full.rpartition(".")[0]
        return m.Record(full, tuple(fields), kind=kind,
                        base=self.names[rec.base] if rec.base else None, attributes=attrs)

    def union(self, u: m.Union) -> m.Union:
        members: dict[str, tuple[int, m.Type]] = {}
        for old, (type_id, _) in u.members.items():
            full = self.names[old]
            rec = self.source[old]
            if isinstance(rec, m.Record) and rec.attributes.get("kind") == "beankey":
                raise SchemaError(f"{self.name(u.name)}: a dynamic holds beans, not the "
                                  f"beankey {full}")
            default_id = rec.attributes.get("type_id", hash64(full)) if isinstance(
                rec, m.Record) else 0
            members[full] = (type_id or default_id, m.Ref(full))
        return m.Union(self.name(u.name), members, discriminator=m.INT64, kind="dynamic",
                       attributes=u.attributes)


def schema_from_dataclasses(*classes: type, module: str = "m", solution: str = "app",
                            module_id: int = 1) -> ZezeSchema:
    """The Zeze schema of ``classes`` and every dataclass they reach (module docstring)."""
    if not classes:
        raise SchemaError("schema_from_dataclasses needs at least one dataclass")
    lowering = _ZezeLowering()
    for cls in classes:
        lowering.named(cls)
    names = {}
    for old, rec in lowering.types.items():
        if isinstance(rec, m.Record):
            kind = rec.kind
            if kind == "table":
                rec = dataclasses.replace(rec, attributes={**rec.attributes, "kind": "bean"})
                lowering.types[old] = rec
            elif kind not in ("bean", "beankey"):
                raise SchemaError(f"{old}: a Zeze bean has kind bean or beankey, not {kind}")
            else:
                lowering.types[old] = dataclasses.replace(
                    rec, attributes={**rec.attributes, "kind": kind})
            names[old] = old if "." in old else f"{solution}.{module}.{old}"
    renamer = _Renamer(lowering.types, names)
    out: dict[str, m.Named] = dict(BUILTIN_RECORDS)
    for old, t in lowering.types.items():
        if isinstance(t, m.Record):
            out[names[old]] = renamer.record(t)
        elif isinstance(t, m.Union):
            out[renamer.name(old)] = renamer.union(t)
    cycle = bean_cycle(out)
    if cycle is not None:
        raise SchemaError(f"bean {cycle[0]} contains itself through its bean fields "
                          f"({' -> '.join(cycle)})")
    model = m.Schema(out, attributes={"solutions": (solution,), "files": (), "enums": {},
                                      "tables": {}})
    by_bean = {names[old]: cls for old, cls in lowering.origin.items() if old in names}
    return ZezeSchema(model, modules={f"{solution}.{module}": module_id}, classes=by_bean)
