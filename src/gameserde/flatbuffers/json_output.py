"""FlatBuffers as flatc's JSON text: :func:`to_json` prints exactly what
``flatc --json [--strict-json] [--defaults-json]`` prints.

It walks the lazy views of :mod:`~gameserde.flatbuffers.views` (whose module doc says what is
and is not checked) and formats values with :mod:`~gameserde.flatbuffers._json_text`. Strings
that are not valid UTF-8 and union tags the schema does not know are a
:class:`~gameserde.errors.DecodeError`, as flatc fails on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gameserde.errors import DecodeError
from gameserde.flatbuffers import flexbuffers
from gameserde.flatbuffers._fbs_numbers import round_float32
from gameserde.flatbuffers._json_text import enum_text, format_float, quote_string
from gameserde.flatbuffers._view_classes import (
    _U16,
    _U32,
    ARRAY,
    NESTED,
    SCALAR,
    STRING,
    STRUCT,
    TABLE,
    UNION,
    StructView,
    TableView,
    VectorView,
    _error,
    _path_of,
)
from gameserde.flatbuffers._view_plans import _Elem, _FieldPlan
from gameserde.flatbuffers.decoder import _flex_bytes
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.flatbuffers.views import view
from gameserde.schema.model import Enum, Float, Ref, Union

__all__ = ["to_json"]


def _flex_text(vec: VectorView, strict: bool) -> str:
    """A ``flexbuffer`` field as flatc prints it: the FlexBuffer on one line."""
    return flexbuffers._to_json(_flex_bytes(vec), strict, vec._d, _path_of(vec), "flatbuffers")


# ---------------------------------------------------------------------------------------------
# flatc-style JSON


class _Json:
    def __init__(self, strict: bool, defaults: bool) -> None:
        self.strict = strict
        self.defaults = defaults

    def key(self, name: str) -> str:
        return f'"{name}": ' if self.strict else f"{name}: "

    def obj(self, items: list[str], ind: str) -> str:
        if not items:
            return "{\n" + ind + "}"
        return "{\n" + ",\n".join(items) + "\n" + ind + "}"

    def arr(self, items: list[str], ind: str) -> str:
        inner = ind + "  "
        return "[\n" + ",\n".join(inner + x for x in items) + "\n" + ind + "]"

    def scalar(self, fp: _FieldPlan, value: Any) -> str:
        if value is None:
            return "null"
        if fp.union_type_of is not None and fp.union is not None:
            return self.union_tag(fp.union, value)
        if fp.enum is not None:
            return enum_text(fp.enum, value)
        if fp.bits:
            return format_float(value, fp.bits)
        if value is True or value is False:
            return "true" if value else "false"
        return str(value)

    def elem_scalar(self, el: _Elem, value: Any, schema: FbsSchema) -> str:
        t = el.type
        if isinstance(t, Ref):
            e = schema.types[t.name]
            assert isinstance(e, Enum)
            return enum_text(e, value)
        if isinstance(t, Float):
            return format_float(value, t.bits)
        if value is True or value is False:
            return "true" if value else "false"
        return str(value)

    def union_tag(self, u: Union, value: int) -> str:
        if value == 0:
            return f'"{u.attributes.get("flatbuffers.none", "NONE")}"'
        m = u.member_of(value)
        if m is None:
            raise DecodeError(f"unknown enum value: {value} for union {u.name}",
                              format="flatbuffers")
        return f'"{m[0]}"'

    def struct(self, v: StructView, ind: str, schema: FbsSchema) -> str:
        inner = ind + "  "
        items = []
        for fp in v._plan.fields:
            value = fp.get(v)
            if fp.kind == STRUCT:
                text = self.struct(value, inner, schema)
            elif fp.kind == ARRAY:
                el = fp.elem
                assert el is not None
                if el.kind == STRUCT:
                    text = self.arr([self.struct(x, inner + "  ", schema) for x in value],
                                    inner)
                else:
                    text = self.arr([self.elem_scalar(el, x, schema) for x in value], inner)
            else:
                text = self.scalar(fp, value)
            items.append(inner + self.key(fp.name) + text)
        return self.obj(items, ind)

    def member(self, value: Any, ind: str, schema: FbsSchema, owner: Any,
               step: str | int) -> str:
        if isinstance(value, TableView):
            return self.table(value, ind, schema)
        if isinstance(value, StructView):
            return self.struct(value, ind, schema)
        if isinstance(value, str):
            if isinstance(step, int):  # in a vector of unions
                return self.located(owner, step, quote_string, value)
            return quote_string(value)
        raise _error("unknown union type", 0, owner, step)

    @staticmethod
    def located(vec: VectorView, i: int, fn: Callable[..., str], *args: Any) -> str:
        """``fn(*args)`` for element ``i`` of ``vec``; a DecodeError without a position (a
        string or a union tag flatc does not print) gets the element's."""
        try:
            return fn(*args)
        except DecodeError as e:
            if e.offset is not None:
                raise
            p = vec._d + i * vec._el.size
            if vec._el.kind != SCALAR:
                p += _U32(vec._b, p)[0]
            raise _error(e.message, p, vec, i) from None

    def table(self, v: TableView, ind: str, schema: FbsSchema) -> str:
        inner = ind + "  "
        items = []
        for fp in v._plan.fields:
            if v._present(fp.slot):
                value = fp.get(v)
                kind = fp.kind
                try:
                    if kind == SCALAR:
                        text = self.scalar(fp, value)
                    elif kind == STRING:
                        text = quote_string(value)
                    elif kind == STRUCT:
                        text = self.struct(value, inner, schema)
                    elif kind in (TABLE, NESTED):
                        text = self.table(value, inner, schema)
                    elif kind == UNION:
                        text = self.member(value, inner, schema, v, fp.name)
                    elif fp.flex:
                        text = _flex_text(value, self.strict)
                    else:
                        text = self.vector(fp, value, inner, schema)
                except DecodeError as e:
                    if e.offset is not None:
                        raise
                    # a string or a union tag flatc does not print: where it is
                    p = v._t + _U16(v._b, v._vt + fp.slot)[0]
                    if kind != SCALAR:
                        p += _U32(v._b, p)[0]
                    raise _error(e.message, p, v, fp.name) from None
            elif (self.defaults or fp.always) and fp.scalar and not fp.deprecated:
                default = fp.default
                if fp.bits == 32 and default is not None:  # flatc reads it as a float
                    default = round_float32(default)
                text = self.scalar(fp, default)
            else:
                continue
            items.append(inner + self.key(fp.name) + text)
        return self.obj(items, ind)

    def vector(self, fp: _FieldPlan, vec: VectorView, ind: str, schema: FbsSchema) -> str:
        el = vec._el
        inner = ind + "  "
        kind = el.kind
        if kind == SCALAR:
            if fp.union_type_of is not None and fp.union is not None:
                u = fp.union
                items = [self.located(vec, i, self.union_tag, u, x) for i, x in enumerate(vec)]
            else:
                items = [self.elem_scalar(el, x, schema) for x in vec]
        elif kind == STRING:
            items = [self.located(vec, i, quote_string, x) for i, x in enumerate(vec)]
        elif kind == STRUCT:
            items = [self.struct(x, inner, schema) for x in vec]
        elif kind == TABLE:
            items = [self.table(x, inner, schema) for x in vec]
        else:
            items = [self.member(x, inner, schema, vec, i) for i, x in enumerate(vec)]
        return self.arr(items, ind)


def to_json(schema: FbsSchema, buf: Any, root_type: str | None = None, *, strict: bool = True,
            defaults: bool = False, size_prefixed: bool = False) -> str:
    """The text ``flatc --json [--strict-json] [--defaults-json]`` prints for ``buf``
    (``strict=False``: keys unquoted, as without ``--strict-json``). The file identifier is not
    checked (as with ``--raw-binary``). Not verified input: see
    :mod:`~gameserde.flatbuffers.views`. Raises :class:`DecodeError` where flatc fails (invalid
    UTF-8, unknown union types)."""
    root = view(schema, buf, root_type, size_prefixed=size_prefixed)
    try:
        return _Json(strict, defaults).table(root, "", schema) + "\n"
    except RecursionError:
        raise DecodeError("tables nested too deeply", offset=root._t,
                          format="flatbuffers") from None

