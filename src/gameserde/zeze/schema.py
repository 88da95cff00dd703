"""Zeze schemas: :class:`ZezeSchema` wraps a shared-model :class:`Schema` with Zeze's facts.

:func:`load_schema` reads a solution XML file (:mod:`gameserde.zeze.solution`) or Python
dataclasses (:mod:`gameserde.zeze.python`). The lowering into :mod:`gameserde.schema`:

* ``<bean>``/``<beankey>`` → :class:`Record` named by its full name (``solution.module.Bean``),
  ``kind`` ``"bean"``/``"beankey"``, ``base`` the full name of ``base=``, attributes
  ``type_id`` (hash64 of the full name, or ``TypeId=``), ``module`` (the enclosing module's
  full name), ``file``, ``line`` and ``extendable`` (only when true);
* ``<external>``/``<externalkey>`` → :class:`Record` without fields (its fields decode as kept
  unknown fields), attributes ``external``, ``module``, ``file`` and ``line``, no ``type_id``;
* ``<variable>`` → :class:`Field` in declaration order with ``id``, ``default`` (``default=``
  read as the field's Python value, else None) and attributes ``line``, ``transient`` (only
  when true), ``default_text`` (the raw ``default=``, when given) and ``json``
  (``JSON_OBJECT``/``JSON_ARRAY``, a string's ``value=``);
* types: bool byte short int long → ``BOOL INT8 INT16 INT32 INT64``; float double →
  ``FLOAT32 FLOAT64``; binary string → ``BYTES STRING``; ``list[T]``/``array[T]`` → ``List``;
  ``set[T]`` → ``Set``; ``map[K,V]``/``sortedmap`` → ``Map``; a bean → ``Ref``; the vector
  types and decimal → ``Ref`` to the builtin records :data:`BUILTIN_RECORDS`; ``dynamic`` →
  ``Ref`` to a :class:`Union` named ``<bean>.<variable>`` (``kind="dynamic"``,
  ``discriminator=INT64``, members ``{bean: (typeId, Ref(bean))}``, attribute ``special``);
  ``gtable[R,C,V]`` → ``Map(R, Ref(<bean>.<variable>))``, a record (attribute ``gtable``)
  whose one field, id 1 ``Map1`` (``Map2`` when V is a bean), is ``Map(C, V)``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gameserde.errors import GameserdeWarning, SchemaError, UnknownNameError, UsageError
from gameserde.schema.model import FLOAT32, INT32, Field, Named, Record, Ref, Schema, Union

if TYPE_CHECKING:
    from gameserde.zeze.interface import ZezeCodec

__all__ = ["BUILTIN_RECORDS", "DEFAULT_SIZE_WARNING", "LargeDefaultWarning", "Protocol",
           "ZezeSchema", "bean_cycle", "load_schema"]

DEFAULT_SIZE_WARNING = 4096
"""A bean whose default value holds more values than this (see
:meth:`ZezeSchema.default_size`) makes :func:`load_schema` warn: decoding an empty one (one
byte, ``00``) would take the whole constant slack of the decoders' ``max_expansion``."""


class LargeDefaultWarning(GameserdeWarning):
    """:func:`load_schema` read a bean whose default value holds more than
    :data:`DEFAULT_SIZE_WARNING` values."""


def _builtin(name: str, kind: str, components: str, ftype: Any) -> Record:
    fields = tuple(Field(c, ftype, id=i) for i, c in enumerate(components, 1))
    return Record(f"zeze.{name}", fields, kind=kind)


BUILTIN_RECORDS: Mapping[str, Record] = {r.name: r for r in (
    _builtin("vector2", "vector", "xy", FLOAT32),
    _builtin("vector3", "vector", "xyz", FLOAT32),
    _builtin("vector4", "vector", "xyzw", FLOAT32),
    _builtin("quaternion", "vector", "xyzw", FLOAT32),
    _builtin("vector2int", "vector", "xy", INT32),
    _builtin("vector3int", "vector", "xyz", INT32),
    _builtin("decimal", "decimal", "", None),
)}
"""``zeze.vector2`` ... ``zeze.vector3int`` (``kind="vector"``) and ``zeze.decimal``
(``kind="decimal"``, no fields: a ``decimal.Decimal`` written as its Java text)."""


def _bean_fields(types: Mapping[str, Named], name: str) -> Iterator[str]:
    rec = types[name]
    if isinstance(rec, Record):
        for f in rec.fields:
            target = types.get(f.type.name) if isinstance(f.type, Ref) else None
            if isinstance(target, Record) and target.kind in ("bean", "beankey"):
                yield target.name


def bean_cycle(types: Mapping[str, Named]) -> list[str] | None:
    """A chain of beans ``[A, B, ..., A]`` in which each holds the next as a bean field (Gen's
    ``DetectCircle``: such a bean would have no finite zero value), or None. Iterative."""
    state: dict[str, int] = {}
    for start, rec in types.items():
        if state.get(start) or not isinstance(rec, Record) or rec.kind not in ("bean", "beankey"):
            continue
        path = [start]
        stack = [_bean_fields(types, start)]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(_bean_fields(types, nxt))
    return None


@dataclass(frozen=True)
class Protocol:
    """A ``<protocol>`` or ``<rpc>``: ``type_id`` is ``module_id << 32 | id`` (spec §2.7);
    ``argument``/``result`` are full bean names, None for Zeze's ``EmptyBean``."""

    name: str
    module_id: int
    id: int
    type_id: int
    kind: str
    argument: str | None
    result: str | None = None
    file: str = ""
    line: int = 0


class ZezeSchema:
    """A Zeze schema: the shared model (``model``) plus modules, protocols and lookups."""

    def __init__(self, model: Schema, *, protocols: Mapping[str, Protocol] | None = None,
                 modules: Mapping[str, int] | None = None,
                 classes: Mapping[str, type] | None = None) -> None:
        self.model = model
        self.classes: Mapping[str, type] = dict(classes or {})
        """For a schema made from dataclasses: each bean's class, by the bean's full name."""
        self.protocols: Mapping[str, Protocol] = dict(protocols or {})
        """Protocols and rpcs by full name, in declaration order."""
        self.modules: Mapping[str, int] = dict(modules or {})
        """Module ids by the module's full name (``solution.module``)."""
        self.beans: Mapping[str, Record] = {
            name: t for name, t in model.types.items()
            if isinstance(t, Record) and t.kind in ("bean", "beankey")}
        """Beans and beankeys by full name."""
        self._by_type_id = {p.type_id: p for p in self.protocols.values()}
        self._default_sizes: dict[str, int] = {}
        self._bean_tails = _tails(self.beans)
        self._protocol_tails = _tails(self.protocols)

    def __repr__(self) -> str:
        return f"ZezeSchema(beans={len(self.beans)}, protocols={len(self.protocols)})"

    @property
    def enums(self) -> Mapping[str, int | str]:
        """``<enum>`` constants by full name (``module.NAME`` or ``module.Bean.NAME``)."""
        value: Mapping[str, int | str] = self.model.attributes.get("enums", {})
        return value

    @property
    def tables(self) -> Mapping[str, Mapping[str, str]]:
        """``<table>`` declarations by full name: their XML attributes (``key``, ``value``
        ...) as written; tables do not affect the wire format."""
        value: Mapping[str, Mapping[str, str]] = self.model.attributes.get("tables", {})
        return value

    def encode(self, bean: str | None, value: Any, **options: Any) -> bytes:
        """:func:`gameserde.zeze.encode` with this schema."""
        from gameserde.zeze.codec import encode

        return encode(self, bean, value, **options)

    def decode(self, bean: str | None, data: bytes | bytearray | memoryview,
               **options: Any) -> Any:
        """:func:`gameserde.zeze.decode` with this schema."""
        from gameserde.zeze.codec import decode

        return decode(self, bean, data, **options)

    def verify(self, bean: str | None, data: bytes | bytearray | memoryview,
               **options: Any) -> str:
        """:func:`gameserde.zeze.verify` with this schema."""
        from gameserde.zeze.codec import verify

        return verify(self, bean, data, **options)

    def codec(self, type: str | None = None, **options: Any) -> ZezeCodec:
        """The :class:`~gameserde.codecs.Codec` of the bean ``type`` (a name :meth:`bean`
        takes) with this schema; ``options`` are those of ``gameserde.codec("zeze", ...)``
        but ``schema``: ``frame=True`` for a stream of this schema's protocol and rpc frames
        (each names its protocol, so ``type`` is then refused), ``max_depth`` and
        ``max_expansion`` as for :func:`gameserde.zeze.decode`. Raises
        :class:`~gameserde.errors.UnknownNameError` for a bean the schema lacks and
        :class:`~gameserde.errors.UsageError` for options that cannot go together."""
        from gameserde.zeze.interface import make

        if "schema" in options:
            raise UsageError("ZezeSchema.codec takes no schema: the codec uses this one")
        return make(schema=self, type=type, **options)

    def to_json(self, bean: str, value: Any, **options: Any) -> str:
        """:func:`gameserde.zeze.to_json` with this schema."""
        from gameserde.zeze.jsonview import to_json

        return to_json(self, bean, value, **options)

    def from_json(self, bean: str, text: str | bytes, **options: Any) -> Any:
        """:func:`gameserde.zeze.from_json` with this schema."""
        from gameserde.zeze.jsonview import from_json

        return from_json(self, bean, text, **options)

    def default_size(self, bean: str) -> int:
        """How many values the default value of the bean (a name :meth:`bean` takes) holds,
        as decoding builds it for an absent bean field: one for the bean, plus one for each
        field of every layer (transient ones left out), a bean field counted as its own
        default size. Computed once per bean (iteratively: bean chains may be long)."""
        sizes = self._default_sizes
        full = self.bean(bean).name
        stack = [full]
        while stack:
            name = stack[-1]
            if name in sizes:
                stack.pop()
                continue
            fields = [f for layer in self._layers(name) for f in layer.fields
                      if not f.attributes.get("transient")]
            nested = [f.type.name for f in fields
                      if isinstance(f.type, Ref) and f.type.name in self.beans]
            missing = [n for n in nested if n not in sizes]
            if missing:
                stack += missing
                continue
            sizes[name] = 1 + len(fields) - len(nested) + sum(sizes[n] for n in nested)
            stack.pop()
        return sizes[full]

    def _layers(self, name: str) -> Iterator[Record]:
        layer: Record | None = self.beans[name]
        while layer is not None:
            yield layer
            layer = self.beans[layer.base] if layer.base else None

    def bean(self, name: str) -> Record:
        """The bean ``name``: its full name, or any dotted tail of it (``BItem``,
        ``m.BItem``) that names exactly one bean."""
        return self.beans[_lookup(self._bean_tails, name, "bean")]

    def union(self, name: str) -> Union:
        """The dynamic union ``name`` (``<bean full name>.<variable>``)."""
        t = self.model.types.get(name)
        if not isinstance(t, Union):
            raise UnknownNameError(f"{name} is not a dynamic union")
        return t

    def protocol(self, name: str) -> Protocol:
        """The protocol or rpc ``name``: its full name or a dotted tail naming only it."""
        return self.protocols[_lookup(self._protocol_tails, name, "protocol")]

    def protocol_by_type_id(self, type_id: int) -> Protocol | None:
        """The protocol whose TypeId is ``type_id``, or None."""
        return self._by_type_id.get(type_id)

    def bean_by_type_id(self, type_id: int) -> Record | None:
        """The bean whose own TypeId (``type_id`` attribute) is ``type_id``, or None."""
        for rec in self.beans.values():
            if rec.attributes.get("type_id") == type_id:
                return rec
        return None


def _tails(names: Mapping[str, object]) -> dict[str, list[str]]:
    """The names by their last dotted component (``a.b.C`` under ``C``)."""
    out: dict[str, list[str]] = {}
    for full in names:
        out.setdefault(full.rpartition(".")[2], []).append(full)
    return out


def _lookup(tails: Mapping[str, list[str]], name: str, what: str) -> str:
    """The full name that is ``name`` or ends with ``.name``, if exactly one does."""
    candidates = tails.get(name.rpartition(".")[2], [])
    if name in candidates:
        return name
    hits = [full for full in candidates if full.endswith("." + name)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        import difflib

        close = difflib.get_close_matches(name.rpartition(".")[2], list(tails), n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownNameError(f"no {what} named {name!r} in the schema{hint}")
    raise UnknownNameError(f"{name!r} is ambiguous: {', '.join(sorted(hits))}")


def load_schema(source: str | bytes | os.PathLike[str] | type, *classes: type,
                filename: str | None = None, max_default_size: int | None = None,
                **options: Any) -> ZezeSchema:
    """A :class:`ZezeSchema` from a solution XML file or text, or from dataclasses.

    ``source`` is XML text when it is ``bytes`` or a ``str`` holding a newline or ``<`` (every
    solution does); any other ``str`` and any ``os.PathLike`` is a path. Nothing in the file
    system changes the answer. ``filename`` names in-memory text in messages, and relative
    ``<import file=...>`` paths are resolved from its folder (else the working directory).
    A dataclass (and further ``classes``) goes to :func:`gameserde.zeze.python.
    schema_from_dataclasses`, which takes ``module``, ``solution`` and ``module_id``.

    A bean whose default value (what decoding builds for an absent bean field, and an empty
    bean's fields) holds more than ``max_default_size`` values (:meth:`ZezeSchema.
    default_size`) raises :class:`SchemaError`; without ``max_default_size``, one holding
    more than :data:`DEFAULT_SIZE_WARNING` gives a :class:`LargeDefaultWarning`.

    Raises :class:`SchemaError` whose message starts ``FILE:LINE:``.
    """
    if isinstance(source, type):
        from gameserde.zeze.python import schema_from_dataclasses

        schema = schema_from_dataclasses(source, *classes, **options)
    elif classes or options:
        raise SchemaError("extra classes and options are only for dataclass schemas")
    else:
        from gameserde.zeze.solution import load_solution

        schema = load_solution(source, filename=filename)
    _check_default_sizes(schema, max_default_size)
    return schema


def _check_default_sizes(schema: ZezeSchema, most: int | None) -> None:
    """Refuse (``most`` given) or warn about the beans whose default value is too large."""
    limit = DEFAULT_SIZE_WARNING if most is None else most
    for name, record in schema.beans.items():
        size = schema.default_size(name)
        if size <= limit:
            continue
        file = record.attributes.get("file")
        where = f"{file}:{record.attributes.get('line', 0)}: " if file else ""
        text = (f"{where}the default value of bean {name} holds {size} values (more than "
                f"{limit}); decoding builds it for every absent field of its type")
        if most is not None:
            raise SchemaError(f"{text} (max_default_size={most})")
        warnings.warn(f"{text}: decoding such input needs a larger max_expansion",
                      LargeDefaultWarning, stacklevel=3)
