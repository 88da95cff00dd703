"""Materialising FlatBuffers: a whole buffer as plain dicts and lists, or dataclasses.

:func:`decode` materialises plain dicts/lists (JSON-able; enum fields as ints, unions as
``x_type`` + ``x``, nested flatbuffers as dicts, ``flexbuffer`` fields as the value they hold,
see :mod:`~gameserde.flatbuffers.flexbuffers`), the fields flatc's JSON would print except
deprecated ones (``defaults=True``: plus absent non-deprecated scalars, as
``--defaults-json``); with ``cls=`` a dataclass is filled by field name. Deprecated fields are
left out because no verifier checks them: every buffer that passes
:func:`~gameserde.flatbuffers.verifier.verify` decodes without error. For the same reason
strings that are not valid UTF-8 (which verifiers do not check either) keep their bad bytes as
U+DC80..U+DCFF (``surrogateescape``); ``to_json`` refuses them as flatc does.

Offsets may be shared (a 380-byte buffer can stand for a tree of 2^19 tables), and a shared
part is copied at every reference: :func:`decode` stops at an expansion budget,
``max_expansion`` times the buffer's size (see :mod:`~gameserde.flatbuffers._budget`), with a
:class:`~gameserde.errors.DecodeError`.

It walks the lazy views of :mod:`~gameserde.flatbuffers.views` (whose module doc says what is
and is not checked); the C decoder (``_accel``, driven by
:mod:`~gameserde.flatbuffers._reader_program`) does the same in one pass when it is built.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Sequence
from typing import Any, TypeVar

from gameserde.errors import DecodeError
from gameserde.flatbuffers import _accel, flexbuffers
from gameserde.flatbuffers._budget import DEFAULT_MAX_EXPANSION, Budget
from gameserde.flatbuffers._view_classes import (
    _NATIVE_LE,
    _U16,
    ARRAY,
    NESTED,
    SCALAR,
    STRING,
    STRUCT,
    TABLE,
    UNION,
    VECTOR,
    StructView,
    TableView,
    VectorView,
    _error,
    _path_of,
)
from gameserde.flatbuffers._view_plans import _CACHE_ATTR, _Compiled
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.flatbuffers.views import view
from gameserde.schema.model import List, Optional, Record, Ref, Union
from gameserde.schema.model import Type as ModelType

__all__ = ["decode"]

T = TypeVar("T")


def _decode_struct(v: StructView) -> dict[str, Any]:
    plan = v._plan
    if plan.flat:
        return dict(zip(plan.names, v, strict=True))  # type: ignore[call-overload]
    out: dict[str, Any] = {}
    for fp in plan.fields:
        value = fp.get(v)
        if fp.kind == STRUCT:
            value = _decode_struct(value)
        elif fp.kind == ARRAY and fp.elem is not None and fp.elem.kind == STRUCT:
            value = [_decode_struct(x) for x in value]
        out[fp.name] = value
    return out


def _default_budget(b: memoryview) -> Budget:
    return Budget(b.nbytes, DEFAULT_MAX_EXPANSION)


def _spend(budget: Budget, cost: int, offset: int, owner: Any, step: str | int | None) -> None:
    """Take ``cost`` bytes from the expansion ``budget``, or raise its error at ``offset``
    (in ``owner``'s ``step``) when it runs out."""
    budget.left -= cost
    if budget.left < 0:
        raise _error(budget.message(), offset, owner, step)


def _decode_vector(vec: VectorView, defaults: bool, budget: Budget) -> list[Any]:
    el = vec._el
    kind = el.kind
    n = vec._n
    _spend(budget, 4 + n * el.size, vec._d - 4, vec._par, vec._step)
    if kind == SCALAR and _NATIVE_LE:
        body: Any = vec._b[vec._d:vec._d + n * el.size]
        values: list[Any] = body.cast(el.fmt).tolist()
        return values
    if kind == SCALAR:
        return list(vec)
    if kind == STRUCT:
        return [_decode_struct(x) for x in vec]
    if kind == TABLE:
        return [_decode_table(x, defaults, budget) for x in vec]
    get = el.get
    if kind == STRING:
        out = []
        for i in range(n):
            value = get(vec, i)
            budget.left -= 4 + len(value)
            if budget.left < 0:
                raise _error(budget.message(), vec._d + 4 * i, vec, i)
            out.append(value)
        return out
    return [_decode_member(get(vec, i), defaults, budget, vec._d + 4 * i, vec, i)
            for i in range(n)]


def _flex_bytes(vec: VectorView) -> bytes:
    return bytes(vec._b[vec._d:vec._d + vec._n])


def _flex_decode(vec: VectorView) -> Any:
    """A ``flexbuffer`` field's value (offsets in errors from the start of the buffer)."""
    return flexbuffers._loads(_flex_bytes(vec), vec._d, _path_of(vec), "flatbuffers")


def _member_cost(value: Any) -> int:
    """What a union member that is not a table reproduces: a struct's size, a string's
    length field and characters."""
    if isinstance(value, StructView):
        size: int = value._plan.size
        return size
    return 0 if value is None else 4 + len(value)


def _decode_member(value: Any, defaults: bool, budget: Budget, at: int, owner: Any,
                   step: str | int) -> Any:
    """A union member (``at``: where its offset was read)."""
    if isinstance(value, TableView):
        return _decode_table(value, defaults, budget)
    _spend(budget, _member_cost(value), at, owner, step)
    if isinstance(value, StructView):
        return _decode_struct(value)
    return value


def _decode_table(v: TableView, defaults: bool, budget: Budget) -> dict[str, Any]:
    out: dict[str, Any] = {}
    vs = v._vs
    b = v._b
    vt = v._vt
    cost = 4  # its vtable offset, then its scalars: taken with the next field that is not
    for fp in v._plan.fields:
        slot = fp.slot
        if fp.deprecated:  # not part of the schema's data (and no verifier checks them)
            continue
        if slot < vs and _U16(b, vt + slot)[0]:
            value = fp.get(v)
            kind = fp.kind
            cost += fp.wire
            if kind != SCALAR:
                if kind == STRING:
                    cost += 4 + len(value)
                elif kind == NESTED:
                    cost += 8  # its length and root offset
                elif fp.flex:
                    cost += 4 + value._n
                budget.left -= cost
                cost = 0
                if budget.left < 0:
                    raise _error(budget.message(), v._t + _U16(b, vt + slot)[0], v, fp.name)
                if kind == VECTOR:
                    value = (_flex_decode(value) if fp.flex
                             else _decode_vector(value, defaults, budget))
                elif kind == UNION:
                    value = _decode_member(value, defaults, budget,
                                           v._t + _U16(b, vt + slot)[0], v, fp.name)
                elif kind == STRUCT:
                    value = _decode_struct(value)
                elif kind != STRING:  # TABLE, NESTED
                    value = _decode_table(value, defaults, budget)
            out[fp.name] = value
        elif (defaults or fp.always) and fp.scalar and not fp.deprecated:
            out[fp.name] = fp.default
    _spend(budget, cost, v._t, v, None)
    return out


def decode(schema: FbsSchema, buf: Any, root_type: str | None = None, *,
           size_prefixed: bool = False, defaults: bool = False, cls: type[T] | None = None,
           max_expansion: float | None = DEFAULT_MAX_EXPANSION) -> Any:
    """The whole buffer as plain dicts and lists (or ``cls``, a dataclass, filled by field
    name). Fields are those ``flatc --json`` prints but deprecated ones: present ones, plus
    (``defaults=True``) absent non-deprecated scalars with their defaults (None for optional
    scalars). Enum fields
    are ints; unions give ``x_type`` (int) and ``x``; nested flatbuffers give dicts;
    ``flexbuffer`` fields give the FlexBuffer's value (dicts, lists, str, int, float, bool,
    None, bytes for blobs: :func:`gameserde.flatbuffers.flexbuffers.loads`), not its bytes
    (:func:`~gameserde.flatbuffers.views.view` keeps the raw ``[ubyte]`` vector).

    Offsets may be shared, and a shared part is copied at every reference: the value may
    reproduce at most ``max_expansion`` times the buffer's size (bytes of tables, strings and
    vectors, counted at every reference; a buffer without shared offsets needs 1, see
    :mod:`~gameserde.flatbuffers._budget`), else :class:`DecodeError`; None: no limit."""
    budget = Budget(len(buf) if type(buf) is bytes else memoryview(buf).nbytes, max_expansion)
    data = None
    if _accel.reader is not None and _accel.ENABLED:  # the C decoder, None when it gives up
        c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
        prog = None if c is None else c.accel.get(root_type)
        if prog is None:
            from gameserde.flatbuffers._reader_program import program

            prog = program(schema, root_type)
        if prog is not False:
            data = _accel.reader.decode(prog, buf, size_prefixed, defaults, budget.limit)
    if data is None:
        root = view(schema, buf, root_type, size_prefixed=size_prefixed)
        try:
            data = _decode_table(root, defaults, budget)
        except RecursionError:
            raise DecodeError("tables nested too deeply", offset=root._t,
                              format="flatbuffers") from None
    if cls is None:
        return data
    return _to_dataclass(cls, data, schema,
                         schema.root if root_type is None else _qualified(schema, root_type))


def _qualified(schema: FbsSchema, name: str) -> str | None:
    try:
        return schema.qualify(name)
    except KeyError:
        return None


def _to_dataclass(cls: Any, data: Any, schema: FbsSchema | None = None,
                  table: str | None = None) -> Any:
    """``data`` (decoded dicts) as the dataclass ``cls``, filled by field name and converted
    by the annotations. With ``schema`` and the ``table``'s name, a union value becomes the
    member class its ``_type`` names (the class named like the member, or like the member's
    type), and an absent scalar whose dataclass field has no default takes the schema's."""
    if isinstance(data, list):
        return [_to_dataclass(cls, x, schema, table) for x in data]
    if not (dataclasses.is_dataclass(cls) and isinstance(data, dict)):
        return data
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # unresolvable annotations: fill values as they are
        hints = {}
    rec = schema.types.get(table) if schema is not None and table is not None else None
    model = {f.name: f for f in rec.fields} if isinstance(rec, Record) else {}
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        mf = model.get(f.name)
        if f.name not in data:
            if (mf is not None and isinstance(mf.default, int | float)
                    and f.default is dataclasses.MISSING
                    and f.default_factory is dataclasses.MISSING):
                kwargs[f.name] = _convert(hints.get(f.name), mf.default)
            continue
        tag = None
        if mf is not None and "flatbuffers.union_type_field" in mf.attributes:
            tag = data.get(mf.attributes["flatbuffers.union_type_field"])
        kwargs[f.name] = _convert(hints.get(f.name), data[f.name], schema,
                                  None if mf is None else mf.type, tag)
    return cls(**kwargs)  # type: ignore[operator]


def _convert(hint: Any, value: Any, schema: FbsSchema | None = None,
             mtype: ModelType | None = None, tag: Any = None) -> Any:
    """``value`` converted for the annotation ``hint``; ``mtype`` is its model type (when
    known) and ``tag`` the union tag (or tags, for a vector of unions)."""
    if hint is None or value is None:
        return value
    if isinstance(mtype, Optional):
        mtype = mtype.inner
    named = schema.types.get(mtype.name) if schema is not None and isinstance(mtype, Ref) \
        else None
    options = [a for a in typing.get_args(hint) if a is not type(None)] \
        if typing.get_origin(hint) in (typing.Union, types.UnionType) else [hint]
    classes: list[Any] = [a for a in options if dataclasses.is_dataclass(a)]
    if isinstance(value, dict) and classes:
        table = mtype.name if isinstance(named, Record) and isinstance(mtype, Ref) else None
        chosen = classes[0]
        if isinstance(named, Union) and type(tag) is int:
            member = named.member_of(tag)
            if member is not None and isinstance(member[1], Ref):
                table = member[1].name
                short = table.rsplit(".", 1)[-1]
                chosen = next((c for c in classes if c.__name__ == member[0]),
                              next((c for c in classes if c.__name__ == short), chosen))
        elif table is not None:
            short = table.rsplit(".", 1)[-1]
            chosen = next((c for c in classes if c.__name__ == short), chosen)
        return _to_dataclass(chosen, value, schema, table)
    if isinstance(value, list):
        element = mtype.element if isinstance(mtype, List) else None
        tags = tag if isinstance(tag, list) else None
        for a in options:
            origin = typing.get_origin(a)
            args = typing.get_args(a)
            if origin in (list, Sequence, tuple) and args:
                out = [_convert(args[0], x, schema, element,
                                tags[i] if tags is not None and i < len(tags) else None)
                       for i, x in enumerate(value)]
                return tuple(out) if origin is tuple else out
        if classes:
            return [_convert(classes[0], x, schema, element) for x in value]
        if bytes in options and all(type(x) is int and 0 <= x < 256 for x in value):
            return bytes(value)
        return value
    if type(value) is int:
        for a in options:
            if isinstance(a, type) and issubclass(a, enum.IntEnum | enum.IntFlag):
                try:
                    return a(value)
                except ValueError:
                    pass
    return value
