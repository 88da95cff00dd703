"""FlatBuffers as flatc's JSON text: :func:`to_json` prints exactly what
``flatc --json [--strict-json] [--defaults-json]`` prints.

It walks the lazy views of :mod:`~gameserde.flatbuffers.views` (whose module doc says what is
and is not checked) and formats values with :mod:`~gameserde.flatbuffers._json_text`. Strings
that are not valid UTF-8 and union tags the schema does not know are a
:class:`~gameserde.errors.DecodeError`, as flatc fails on them.

Offsets may be shared, and a shared part is printed at every reference: :func:`to_json` stops
at an expansion budget, ``max_expansion`` times the buffer's size plus 4096 characters of text
(see :mod:`~gameserde.flatbuffers._budget`), with a :class:`~gameserde.errors.DecodeError`.
The text is written into one list of pieces, joined once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from gameserde.errors import DecodeError
from gameserde.flatbuffers import flexbuffers
from gameserde.flatbuffers._budget import DEFAULT_JSON_EXPANSION, JSON_SLACK, Budget
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

T = TypeVar("T")


def _flex_text(vec: VectorView, strict: bool) -> str:
    """A ``flexbuffer`` field as flatc prints it: the FlexBuffer on one line."""
    return flexbuffers._to_json(_flex_bytes(vec), strict, vec._d, _path_of(vec), "flatbuffers")


def _target(b: memoryview, p: int) -> int:
    """Where the uoffset at ``p`` leads (``p`` itself when either is past the end)."""
    if p + 4 > len(b):
        return p
    target: int = p + _U32(b, p)[0]
    return target if target < len(b) else p


# ---------------------------------------------------------------------------------------------
# flatc-style JSON


class _Keys(dict[str, str]):
    """A field name as a JSON key (``"name": `` or ``name: ``), made once."""

    def __init__(self, strict: bool) -> None:
        super().__init__()
        self.strict = strict

    def __missing__(self, name: str) -> str:
        key = self[name] = f'"{name}": ' if self.strict else f"{name}: "
        return key


class _Json:
    """Writes flatc's JSON text into ``out`` (pieces joined at the end), refusing to write
    more than ``limit`` characters (the expansion budget of :func:`to_json`)."""

    def __init__(self, strict: bool, defaults: bool, limit: int, factor: float | None,
                 size: int) -> None:
        self.strict = strict
        self.defaults = defaults
        self.out: list[str] = []
        self.limit = limit
        self.factor = factor
        self.size = size
        self.written = 0  # the characters of out[:self.mark]
        self.mark = 0
        self.keys = _Keys(strict)

    def check(self, ahead: int = 0) -> None:
        """Raise (without a position: the caller adds it) when the text written, plus
        ``ahead`` characters about to be, is over the limit."""
        out = self.out
        if len(out) > self.mark:
            self.written += sum(map(len, out[self.mark:]))
            self.mark = len(out)
        if self.written + ahead > self.limit:
            raise DecodeError(
                f"the text would have more than {self.limit} characters (max_expansion="
                f"{self.factor:g} times the {self.size}-byte buffer, and 4096): shared offsets "
                "print their data at every reference, deep nesting indents every line; a "
                "larger max_expansion allows more (None or inf: no limit)",
                format="flatbuffers")


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

    def struct(self, v: StructView, ind: str, schema: FbsSchema) -> None:
        self.check()
        w = self.out.append
        inner = ind + "  "
        keys = self.keys
        w("{\n")
        sep = ""
        for fp in v._plan.fields:
            w(f"{sep}{inner}{keys[fp.name]}")
            sep = ",\n"
            value = fp.get(v)
            if fp.kind == STRUCT:
                self.struct(value, inner, schema)
            elif fp.kind == ARRAY:
                el = fp.elem
                assert el is not None
                if el.kind == STRUCT:
                    self.items(value, inner, self.struct, schema)
                else:
                    self.leaves([self.elem_scalar(el, x, schema) for x in value], inner)
            else:
                w(self.scalar(fp, value))
        w("\n" if sep else "")
        w(ind)
        w("}")

    def leaves(self, texts: list[str], ind: str) -> None:
        """An array of ``texts``, one a line."""
        inner = ind + "  "
        self.out.append(f"[\n{inner}{(',' + chr(10) + inner).join(texts)}\n{ind}]" if texts
                        else f"[\n\n{ind}]")

    def items(self, values: Any, ind: str, write: Callable[..., None], *args: Any) -> None:
        """An array of ``values``, each written by ``write(value, indentation, *args)``."""
        w = self.out.append
        inner = ind + "  "
        w("[\n")
        sep = ""
        for x in values:
            w(sep)
            sep = ",\n"
            w(inner)
            write(x, inner, *args)
        w("\n")
        w(ind)
        w("]")

    def member(self, value: Any, ind: str, schema: FbsSchema) -> None:
        if isinstance(value, TableView):
            self.table(value, ind, schema)
        elif isinstance(value, StructView):
            self.struct(value, ind, schema)
        elif isinstance(value, str):
            self.string(value)
        else:
            raise DecodeError("unknown union type", format="flatbuffers")

    def string(self, value: str) -> None:
        if len(value) > 64:  # shorter ones: counted at the next table or vector
            self.check(len(value))
        self.out.append(quote_string(value))

    @staticmethod
    def located(vec: VectorView, i: int, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` for element ``i`` of ``vec``; a DecodeError without a position (a
        string or a union tag flatc does not print, the budget running out) gets the
        element's."""
        try:
            return fn(*args)
        except DecodeError as e:
            if e.offset is not None:
                raise
            p = vec._d + i * vec._el.size
            if vec._el.kind != SCALAR:
                p = _target(vec._b, p)
            raise _error(e.message, p, vec, i) from None

    def table(self, v: TableView, ind: str, schema: FbsSchema) -> None:
        try:
            self.check()
        except DecodeError as e:
            raise _error(e.message, v._t, v, None) from None
        w = self.out.append
        inner = ind + "  "
        keys = self.keys
        b = v._b
        vt = v._vt
        vs = v._vs
        w("{\n")
        sep = ""
        for fp in v._plan.fields:
            slot = fp.slot
            if slot < vs and _U16(b, vt + slot)[0]:
                value = fp.get(v)
                kind = fp.kind
                w(f"{sep}{inner}{keys[fp.name]}")
                sep = ",\n"
                try:
                    if kind == SCALAR:
                        w(self.scalar(fp, value))
                    elif kind == STRING:
                        self.string(value)
                    elif kind == STRUCT:
                        self.struct(value, inner, schema)
                    elif kind in (TABLE, NESTED):
                        self.table(value, inner, schema)
                    elif kind == UNION:
                        self.member(value, inner, schema)
                    elif fp.flex:
                        self.check(value._n)
                        w(_flex_text(value, self.strict))
                    else:
                        self.vector(fp, value, inner, schema)
                except DecodeError as e:
                    if e.offset is not None:
                        raise
                    # a string or union tag flatc does not print, the budget running out:
                    # where the value is (or, past the end, its vtable entry)
                    at = v._vt + fp.slot
                    p = v._t + _U16(b, at)[0]
                    if kind != SCALAR and kind != STRUCT:
                        p = _target(b, p)
                    raise _error(e.message, p if p < len(b) else at, v, fp.name) from None
            elif (self.defaults or fp.always) and fp.scalar and not fp.deprecated:
                default = fp.default
                if fp.bits == 32 and default is not None:  # flatc reads it as a float
                    default = round_float32(default)
                w(f"{sep}{inner}{keys[fp.name]}{self.scalar(fp, default)}")
                sep = ",\n"
        w("\n" if sep else "")
        w(ind)
        w("}")

    def vector(self, fp: _FieldPlan, vec: VectorView, ind: str, schema: FbsSchema) -> None:
        el = vec._el
        kind = el.kind
        self.check(vec._n * (len(ind) + 4))  # at least the indentation of each element
        if kind == SCALAR:
            if fp.union_type_of is not None and fp.union is not None:
                u = fp.union
                texts = [self.located(vec, i, self.union_tag, u, x)
                         for i, x in enumerate(vec)]
            else:
                texts = [self.elem_scalar(el, x, schema) for x in vec]
            self.leaves(texts, ind)
        elif kind == STRUCT:
            self.items(vec, ind, self.struct, schema)
        elif kind == TABLE:
            self.items(vec, ind, self.table, schema)
        else:  # strings, union members: each counted before the next is read
            w = self.out.append
            inner = ind + "  "
            get = el.get
            w("[\n")
            for i in range(vec._n):
                if i:
                    w(",\n")
                w(inner)
                value = get(vec, i)
                if kind == STRING:
                    self.located(vec, i, self.string, value)
                else:
                    self.located(vec, i, self.member, value, inner, schema)
            w("\n")
            w(ind)
            w("]")


def to_json(schema: FbsSchema, buf: Any, root_type: str | None = None, *, strict: bool = True,
            defaults: bool = False, size_prefixed: bool = False,
            max_expansion: float | None = DEFAULT_JSON_EXPANSION) -> str:
    """The text ``flatc --json [--strict-json] [--defaults-json]`` prints for ``buf``
    (``strict=False``: keys unquoted, as without ``--strict-json``). The file identifier is not
    checked (as with ``--raw-binary``). Not verified input: see the module doc. Raises
    :class:`DecodeError` where flatc fails (invalid UTF-8, unknown union types), and when the
    text would be longer than ``max_expansion`` times the buffer's size plus 4096 characters
    (flatc's text is typically 5 to 25 times the binary; offsets may be shared, and a shared
    part is printed at every reference; None: no limit)."""
    size = len(buf) if type(buf) is bytes else memoryview(buf).nbytes
    limit = Budget(size, max_expansion).limit + JSON_SLACK
    root = view(schema, buf, root_type, size_prefixed=size_prefixed)
    writer = _Json(strict, defaults, limit, max_expansion, size)
    try:
        writer.table(root, "", schema)
    except RecursionError:
        raise DecodeError("tables nested too deeply", offset=root._t,
                          format="flatbuffers") from None
    writer.out.append("\n")
    writer.check()
    return "".join(writer.out)
