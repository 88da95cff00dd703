"""Declare a schema in Python: dataclasses, ``IntEnum`` and ``IntFlag`` lower into the model.

Field types are ordinary annotations; the widths Python lacks come from the aliases here::

    from dataclasses import dataclass, field
    from gameserde.schema.python import float32, int16, schema_of

    @dataclass
    class Vec3:
        __gameserde__ = {"kind": "struct"}
        x: float32
        y: float32
        z: float32

    @dataclass
    class Monster:
        pos: Vec3 | None = None
        hp: int16 = 100
        name: str | None = field(default=None, metadata={"required": True})

    schema = schema_of(Monster)        # Monster, Vec3 and everything they use

=========================  ====================================================================
annotation                 model type
=========================  ====================================================================
``bool`` ``str`` ``bytes`` ``Bool``, ``String``, ``Bytes``
``int`` ``float``          ``Int(64)``, ``Float(64)``; use ``int8`` ... ``uint64``,
                           ``float32`` for other widths (any ``Annotated[T, <model type>]``)
``list[T]``                ``List(T)``; ``Annotated[list[T], fixed(n)]`` for an array of n
``set[T]`` ``dict[K, V]``  ``Set(T)``, ``Map(K, V)``
``T | None``               ``Optional(T)``
``A | B`` (``| None``)     ``Ref`` to a ``Union`` of the dataclasses (and ``str``) A, B, with
                           discriminators 1, 2 ... in declaration order, named ``AOrB`` in
                           the members' namespace (``Optional`` of it with ``None``); name it,
                           or make a union of one member, with ``Annotated[A | B,
                           union("Name")]``; an unnamed union reuses one of the same members;
                           members are named like their classes (a ``str`` one ``String``)
a dataclass                ``Ref`` to a ``Record`` (``kind`` from ``__gameserde__``, default
                           ``"table"``; a dataclass base class becomes ``base``)
an ``IntEnum``/``IntFlag``  ``Ref`` to an ``Enum`` (``IntFlag``: bit flags); the underlying
                           type from ``__gameserde__ = {"underlying": uint8}``, default int32
=========================  ====================================================================

``field(metadata={...})`` carries ``id``, ``deprecated``, ``required``, ``key`` and any other
attribute (kept in ``Field.attributes``); ``__gameserde__`` on a class may also give
``namespace`` and further attributes.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

from gameserde.errors import SchemaError
from gameserde.schema import model as m

int8 = Annotated[int, m.INT8]
int16 = Annotated[int, m.INT16]
int32 = Annotated[int, m.INT32]
int64 = Annotated[int, m.INT64]
uint8 = Annotated[int, m.UINT8]
uint16 = Annotated[int, m.UINT16]
uint32 = Annotated[int, m.UINT32]
uint64 = Annotated[int, m.UINT64]
float32 = Annotated[float, m.FLOAT32]
float64 = Annotated[float, m.FLOAT64]


@dataclass(frozen=True)
class fixed:
    """Marks ``list[T]`` as an array of exactly ``length`` elements."""

    length: int


@dataclass(frozen=True)
class union:
    """Names the union of ``Annotated[A | B, union("Name")]`` (``"Ns.Name"`` for a namespace);
    it also makes a union of one member: ``Annotated[A, union("Name")]``."""

    name: str


_FIELD_FLAGS = ("id", "deprecated", "required", "key")
_MODEL_TYPES = (m.Int, m.Float, m.Bool, m.String, m.Bytes, m.List, m.Set, m.Map, m.Optional)


def _options(cls: type) -> dict[str, Any]:
    opts = cls.__dict__.get("__gameserde__", {})
    if not isinstance(opts, dict):
        raise SchemaError(f"{cls.__name__}.__gameserde__ must be a dict")
    return dict(opts)


def _qualified(cls: type) -> str:
    namespace = _options(cls).get("namespace")
    return f"{namespace}.{cls.__name__}" if namespace else cls.__name__


class _Lowering:
    def __init__(self) -> None:
        self.types: dict[str, m.Named] = {}
        self.origin: dict[str, type] = {}
        self.union_members: dict[str, frozenset[Any]] = {}  # union name -> its member set
        self.union_names: dict[frozenset[Any], str] = {}  # member set -> first union of it

    def named(self, cls: type) -> m.Ref:
        name = _qualified(cls)
        if name in self.union_members:
            raise SchemaError(f"{name} names both a class and a union")
        if name in self.origin:
            if self.origin[name] is not cls:
                raise SchemaError(f"two Python classes are both named {name}")
            return m.Ref(name)
        self.origin[name] = cls
        if isinstance(cls, type) and issubclass(cls, enum.IntEnum | enum.IntFlag):
            self.types[name] = self.enum(cls, name)
        elif dataclasses.is_dataclass(cls):
            self.types[name] = self.record(cls, name)
        else:
            raise SchemaError(f"{cls.__name__} is neither a dataclass nor an IntEnum/IntFlag")
        return m.Ref(name)

    def enum(self, cls: type[enum.IntEnum] | type[enum.IntFlag], name: str) -> m.Enum:
        opts = _options(cls)
        opts.pop("namespace", None)
        underlying = self.lower(opts.pop("underlying", m.INT32), f"{name} underlying type")
        if not isinstance(underlying, m.Int):
            raise SchemaError(f"enum {name}: the underlying type must be an integer type")
        values = {member.name or str(member.value): int(member.value)
                  for member in cls.__members__.values()}
        return m.Enum(name, underlying, values, bit_flags=issubclass(cls, enum.IntFlag),
                      attributes=opts, doc=(cls.__doc__ or "").strip())

    def record(self, cls: type, name: str) -> m.Record:
        opts = _options(cls)
        kind = opts.pop("kind", "table")
        opts.pop("namespace", None)
        hints = typing.get_type_hints(cls, include_extras=True)
        bases = [b for b in cls.__bases__ if dataclasses.is_dataclass(b)]
        if len(bases) > 1:
            raise SchemaError(f"{name}: a record has at most one dataclass base")
        base = self.named(bases[0]).name if bases else None
        inherited = {f.name for f in dataclasses.fields(bases[0])} if bases else set()
        fields = []
        for f in dataclasses.fields(cls):
            if f.name in inherited:
                continue
            meta = dict(f.metadata)
            flags = {k: meta.pop(k) for k in _FIELD_FLAGS if k in meta}
            doc = meta.pop("doc", "")
            default = None if f.default is dataclasses.MISSING else f.default
            if isinstance(default, enum.Enum):
                default = default.value
            fields.append(m.Field(
                f.name, self.lower(hints[f.name], f"{name}.{f.name}"), id=flags.get("id"),
                default=default, deprecated=bool(flags.get("deprecated", False)),
                required=bool(flags.get("required", False)), key=bool(flags.get("key", False)),
                attributes=meta, doc=doc))
        return m.Record(name, tuple(fields), kind=kind, base=base, attributes=opts,
                        doc=(cls.__doc__ or "").strip() if cls.__doc__ and
                        not cls.__doc__.startswith(cls.__name__ + "(") else "")

    def lower(self, hint: Any, where: str) -> m.Type:
        if isinstance(hint, (*_MODEL_TYPES, m.Ref)):
            return hint
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin is Annotated:
            inner, *extras = args
            for extra in extras:
                if isinstance(extra, _MODEL_TYPES):
                    return extra
            names = [extra.name for extra in extras if isinstance(extra, union)]
            if names:
                return self.union_of(inner, where, names[-1])
            lowered = self.lower(inner, where)
            for extra in extras:
                if isinstance(extra, fixed):
                    if not isinstance(lowered, m.List):
                        raise SchemaError(f"{where}: fixed() applies to list[...] only")
                    return m.List(lowered.element, extra.length)
            return lowered
        if origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1 and len(args) == 2:
                return m.Optional(self.lower(rest[0], where))
            return self.union_of(hint, where, None)
        if origin in (list, tuple):
            if origin is tuple and (len(args) != 2 or args[1] is not Ellipsis):
                raise SchemaError(f"{where}: use tuple[T, ...] or list[T]")
            return m.List(self.lower(args[0], where))
        if origin in (set, frozenset):
            return m.Set(self.lower(args[0], where))
        if origin is dict:
            return m.Map(self.lower(args[0], where), self.lower(args[1], where))
        simple: dict[Any, m.Type] = {bool: m.BOOL, int: m.INT64, float: m.FLOAT64,
                                     str: m.STRING, bytes: m.BYTES}
        if hint in simple:
            return simple[hint]
        if isinstance(hint, type):
            return self.named(hint)
        raise SchemaError(f"{where}: cannot use {hint!r} as a field type")

    def union_of(self, hint: Any, where: str, name: str | None) -> m.Type:
        """``A | B`` (``| None``: optional), or ``A`` alone under a ``union()`` marker."""
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            args = typing.get_args(hint)
            members = [a for a in args if a is not type(None)]
            optional = len(members) < len(args)
        else:
            members, optional = [hint], False
        ref = self.union(members, where, name)
        return m.Optional(ref) if optional else ref

    def union(self, members: list[Any], where: str, name: str | None) -> m.Ref:
        """The :class:`model.Union` of ``members`` (dataclasses or ``str``), numbered 1..n in
        declaration order; an unnamed union reuses a union of the same members."""
        for a in members:
            if a is not str and not (isinstance(a, type) and dataclasses.is_dataclass(a)):
                raise SchemaError(f"{where}: the members of a union are dataclasses (tables "
                                  f"or structs) or str, not {getattr(a, '__name__', a)!r}")
        key = frozenset(members)
        if name is None and key in self.union_names:
            return m.Ref(self.union_names[key])
        namespaces = {_options(a).get("namespace") or "" for a in members if a is not str}
        namespace = namespaces.pop() if len(namespaces) == 1 else ""
        if name is None:
            name = "Or".join("String" if a is str else a.__name__ for a in members)
        if "." not in name and namespace:
            name = f"{namespace}.{name}"
        if name in self.union_members:
            if self.union_members[name] != key:
                raise SchemaError(f"{where}: two different unions are both named {name}")
            return m.Ref(name)
        if name in self.origin:
            raise SchemaError(f"{where}: the union {name} would have the name of a class; "
                              "name it with Annotated[..., union(\"Name\")]")
        self.union_members[name] = key
        self.union_names.setdefault(key, name)
        alternatives: dict[str, tuple[int, m.Type]] = {}
        for value, a in enumerate(members, 1):
            member: m.Type = m.STRING if a is str else self.named(a)
            label = "String" if a is str else a.__name__
            if label in alternatives:  # two classes of the same name in other namespaces
                label = _qualified(a).replace(".", "_")
            alternatives[label] = (value, member)
        self.types[name] = m.Union(name, alternatives)
        return m.Ref(name)


def schema_of(*classes: type, root: type | None = None) -> m.Schema:
    """The schema of ``classes`` and every type they reach; ``root`` defaults to the first."""
    if not classes and root is None:
        raise SchemaError("schema_of needs at least one class")
    lowering = _Lowering()
    for cls in (root, *classes) if root is not None else classes:
        lowering.named(cls)
    first = root or classes[0]
    root_name = _qualified(first) if dataclasses.is_dataclass(first) else None
    return m.Schema(lowering.types, root=root_name)
