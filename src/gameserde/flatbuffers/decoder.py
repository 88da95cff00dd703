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


def _decode_value(fp_kind: int, value: Any, defaults: bool) -> Any:
    if fp_kind == STRUCT:
        return _decode_struct(value)
    if fp_kind in (TABLE, NESTED):
        return _decode_table(value, defaults)
    return value


def _decode_vector(vec: VectorView, defaults: bool) -> list[Any]:
    el = vec._el
    kind = el.kind
    if kind == SCALAR and _NATIVE_LE:
        body: Any = vec._b[vec._d:vec._d + vec._n * el.size]
        values: list[Any] = body.cast(el.fmt).tolist()
        return values
    if kind in (SCALAR, STRING):
        return list(vec)
    if kind == STRUCT:
        return [_decode_struct(x) for x in vec]
    if kind == TABLE:
        return [_decode_table(x, defaults) for x in vec]
    return [_decode_member(x, defaults) for x in vec]


def _flex_bytes(vec: VectorView) -> bytes:
    return bytes(vec._b[vec._d:vec._d + vec._n])


def _flex_decode(vec: VectorView) -> Any:
    """A ``flexbuffer`` field's value (offsets in errors from the start of the buffer)."""
    return flexbuffers._loads(_flex_bytes(vec), vec._d, _path_of(vec), "flatbuffers")


def _decode_member(value: Any, defaults: bool) -> Any:
    if isinstance(value, TableView):
        return _decode_table(value, defaults)
    if isinstance(value, StructView):
        return _decode_struct(value)
    return value


def _decode_table(v: TableView, defaults: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    vs = v._vs
    b = v._b
    vt = v._vt
    for fp in v._plan.fields:
        slot = fp.slot
        if fp.deprecated:  # not part of the schema's data (and no verifier checks them)
            continue
        if slot < vs and _U16(b, vt + slot)[0]:
            value = fp.get(v)
            kind = fp.kind
            if kind == VECTOR:
                value = _flex_decode(value) if fp.flex else _decode_vector(value, defaults)
            elif kind == UNION:
                value = _decode_member(value, defaults)
            elif kind != SCALAR and kind != STRING:
                value = _decode_value(kind, value, defaults)
            out[fp.name] = value
        elif (defaults or fp.always) and fp.scalar and not fp.deprecated:
            out[fp.name] = fp.default
    return out


def decode(schema: FbsSchema, buf: Any, root_type: str | None = None, *,
           size_prefixed: bool = False, defaults: bool = False,
           cls: type[T] | None = None) -> Any:
    """The whole buffer as plain dicts and lists (or ``cls``, a dataclass, filled by field
    name). Fields are those ``flatc --json`` prints but deprecated ones: present ones, plus
    (``defaults=True``) absent non-deprecated scalars with their defaults (None for optional
    scalars). Enum fields
    are ints; unions give ``x_type`` (int) and ``x``; nested flatbuffers give dicts;
    ``flexbuffer`` fields give the FlexBuffer's value (dicts, lists, str, int, float, bool,
    None, bytes for blobs: :func:`gameserde.flatbuffers.flexbuffers.loads`), not its bytes
    (:func:`~gameserde.flatbuffers.views.view` keeps the raw ``[ubyte]`` vector)."""
    data = None
    if _accel.reader is not None and _accel.ENABLED:  # the C decoder, None when it gives up
        c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
        prog = None if c is None else c.accel.get(root_type)
        if prog is None:
            from gameserde.flatbuffers._reader_program import program

            prog = program(schema, root_type)
        if prog is not False:
            data = _accel.reader.decode(prog, buf, size_prefixed, defaults)
    if data is None:
        root = view(schema, buf, root_type, size_prefixed=size_prefixed)
        try:
            data = _decode_table(root, defaults)
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
