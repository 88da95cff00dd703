"""Reading FlatBuffers with a run-time schema: lazy views, full decoding and flatc-style JSON.

* :func:`view` gives a zero-copy, lazy :class:`TableView` over a ``memoryview`` of the buffer:
  ``monster.hp``, ``monster.name`` (a ``str``, decoded when read), ``monster.pos.x``. Absent
  fields read as their schema default (None for absent non-scalars and optional scalars).
  Vectors are :class:`VectorView` sequences (``len``, indexing, slicing, iteration); vectors of
  scalars and structs also offer ``.numpy()``, an ``np.frombuffer`` view with the right dtype
  (a structured dtype for structs), without copying. A struct of scalars only (``Vec3``) is
  read whole in one ``unpack_from`` into a :class:`FlatStructView` (a tuple subclass with named
  fields); other structs are lazy :class:`LazyStructView` s; both are :class:`StructView`.
  Unions give the member's view (or ``str``), ``x_type`` the integer tag;
  ``nested_flatbuffer`` fields read as the nested root's view. Enum fields are ints;
  :func:`enum_name` names them; :func:`file_identifier` reads the identifier.
* :func:`decode` materialises plain dicts/lists (JSON-able; enum fields as ints, unions as
  ``x_type`` + ``x``, nested flatbuffers as dicts, ``flexbuffer`` fields as the value
  they hold, see :mod:`~gameserde.flatbuffers.flexbuffers`), the fields flatc's JSON would
  print except deprecated ones (``defaults=True``: plus absent non-deprecated scalars, as
  ``--defaults-json``); with ``cls=`` a dataclass is filled by field name. Deprecated fields
  are left out because no verifier checks them: every buffer that passes
  :func:`~gameserde.flatbuffers.verifier.verify` decodes without error. For the same reason
  strings that are not valid UTF-8 (which verifiers do not check either) keep their bad bytes
  as U+DC80..U+DCFF (``surrogateescape``); :func:`to_json` refuses them as flatc does.
* :func:`to_json` prints exactly what ``flatc --json [--strict-json] [--defaults-json]`` prints.

Accessor plans (vtable slot, ``struct.Struct``, kind) are compiled once per (schema, table)
into a generated view class and cached. With the C reader (``_accel``), classes built while
``_accel.ENABLED`` is true get C descriptors for most fields (see :func:`_view_accel`); they
fall back to the ``property`` getters here, the reference, per access.

The reader does **not verify** the buffer: run the verifier first on untrusted input. Every
read is still bounds-checked, so a bad offset raises :class:`~gameserde.errors.DecodeError`
(naming the byte offset and the field path, e.g. ``$.weapons[1].name``), never another
exception. Union tags the schema does not know read as None (``view``/``decode``) and are an
error for :func:`to_json`, as for flatc. Tables nested deeper than Python's recursion limit
are a :class:`DecodeError` for :func:`decode`/:func:`to_json` (a view reads them fine). An
error's offset is a byte of the buffer: where the bad offset, vtable entry or length was read
(the message says where it leads: ``the offset at 0 points to a table at 2844268027, past the
end of the 16-byte buffer``), from the start of ``buf`` (a nested flatbuffer's: from the start
of the nested buffer).

Vectors of unions read element by element with their ``_type`` vector (a value vector longer
than its type vector is a :class:`DecodeError` for the missing tags; flatc --json aborts on
such files). ``hash`` fields are plain integers. 64-bit offsets: ``offset64`` strings and
vectors are referenced by an 8-byte offset and keep their 32-bit length; ``vector64`` vectors
have an 8-byte length with the data at +8 (the format's layout; flatc -b sometimes writes 4
padding bytes there instead, see :mod:`~gameserde.flatbuffers.encoder`, and such vectors read
shifted, as in C++). ``flatc --json`` aborts on any ``vector64`` field; :func:`to_json` prints
it like any other vector.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import itertools
import operator
import struct
import sys
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

from gameserde.errors import DecodeError
from gameserde.flatbuffers import _accel, flexbuffers
from gameserde.flatbuffers._fbs_numbers import round_float32
from gameserde.flatbuffers._json_text import enum_text, format_float, quote_string
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import (
    Bool,
    Enum,
    Float,
    Int,
    List,
    Optional,
    Record,
    Ref,
    String,
    Union,
)
from gameserde.schema.model import Type as ModelType

# the C descriptor namedtuple fields use: much faster than property(itemgetter)
_tuplegetter: Any = getattr(collections, "_tuplegetter", None)


def _field_getter(index: int, doc: str) -> Any:
    if _tuplegetter is not None:
        return _tuplegetter(index, doc)
    return property(operator.itemgetter(index), doc=doc)  # pragma: no cover


_np: Any
try:  # numpy is optional
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

__all__ = [
    "FlatStructView",
    "LazyStructView",
    "StructView",
    "TableView",
    "VectorView",
    "decode",
    "enum_name",
    "file_identifier",
    "to_json",
    "view",
]

T = TypeVar("T")

_NATIVE_LE = sys.byteorder == "little"
_U16 = struct.Struct("<H").unpack_from
_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from
_FMT = {(8, True): "b", (8, False): "B", (16, True): "h", (16, False): "H", (32, True): "i",
        (32, False): "I", (64, True): "q", (64, False): "Q"}
_FFMT = {16: "e", 32: "f", 64: "d"}

# element / field kinds
SCALAR, STRUCT, STRING, TABLE, VECTOR, UNION, NESTED, ARRAY = range(8)


# ---------------------------------------------------------------------------------------------
# Errors and paths


def _path_of(obj: Any) -> str:
    steps: list[str] = []
    while obj is not None:
        step = getattr(obj, "_step", None)
        if step is not None:
            steps.append(f"[{step}]" if isinstance(step, int) else f".{step}")
        obj = getattr(obj, "_par", None)
    return "$" + "".join(reversed(steps))


def _error(message: str, offset: int, owner: Any, step: str | int | None) -> DecodeError:
    path = _path_of(owner)
    if step is not None:
        path += f"[{step}]" if isinstance(step, int) else f".{step}"
    return DecodeError(message, offset=offset, path=path, format="flatbuffers")


def _past_end(b: memoryview, src: int, what: str, target: int, owner: Any,
              step: str | int | None) -> DecodeError:
    """The uoffset read at ``src`` leads to ``what`` at ``target``, which is not there."""
    return _error(f"the offset at {src} points to {what} at {target}, past the end of the "
                  f"{len(b)}-byte buffer", src, owner, step)


def _field_past_end(v: TableView, slot: int, name: str, p: int, size: int) -> DecodeError:
    """Field ``name`` of ``v`` (``size`` bytes at ``p``) lies past the end: the error is
    where its vtable entry was read."""
    at = v._vt + slot
    return _error(f"field {name} at {p} ({size} bytes, placed by the vtable entry at {at}) "
                  f"runs past the end of the {len(v._b)}-byte buffer", at, v, name)


def _deref(b: memoryview, p: int, what: str, owner: Any, step: str | int | None) -> int:
    """The target of the uoffset at ``p`` (inside ``b``), which must leave room for 4 bytes
    (a table's vtable offset, a string's or a vector's length)."""
    target: int = p + _U32(b, p)[0]
    if target + 4 > len(b):
        raise _past_end(b, p, what, target, owner, step)
    return target


def _read_str(b: memoryview, p: int, owner: Any, step: str | int | None) -> str:
    """The string referenced from ``p`` (inside ``b``)."""
    s = _deref(b, p, "a string", owner, step)
    n = _U32(b, s)[0]
    e = s + 4 + n
    if e > len(b):
        raise _error(f"the string at {s} has {n} bytes, past the end of the {len(b)}-byte "
                     "buffer", s, owner, step)
    # invalid UTF-8 (which no verifier checks) keeps its bytes as U+DC80..U+DCFF
    return b[s + 4:e].tobytes().decode("utf-8", "surrogateescape")


def _vec_header(b: memoryview, p: int, esize: int, owner: Any,
                step: str | int | None) -> tuple[int, int]:
    """(data start, length) of the vector referenced from ``p`` (inside ``b``)."""
    s = _deref(b, p, "a vector", owner, step)
    n = _U32(b, s)[0]
    if s + 4 + n * esize > len(b):
        raise _error(f"the vector at {s} has {n} elements of {esize} bytes, past the end of "
                     f"the {len(b)}-byte buffer", s, owner, step)
    return s + 4, n


# ---------------------------------------------------------------------------------------------
# Views

_new = object.__new__


def _table_error(b: memoryview, t: int, src: int | None, par: Any,
                 step: str | int | None) -> DecodeError:
    """Why the table at ``t`` (referenced from the uoffset at ``src``) cannot be read."""
    n = len(b)
    if t + 4 > n:
        if src is None:
            return _error(f"the table at {t} lies past the end of the {n}-byte buffer", t,
                          par, step)
        return _past_end(b, src, "a table", t, par, step)
    vt = t - _I32(b, t)[0]
    if vt < 0 or vt + 2 > n:
        return _error(f"the table at {t} has its vtable at {vt}, outside the {n}-byte "
                      "buffer", t, par, step)
    vs = _U16(b, vt)[0]
    return _error(f"the vtable at {vt} has {vs} bytes, past the end of the {n}-byte buffer",
                  vt, par, step)


def _mk_table(cls: type[TableView], b: memoryview, t: int, par: Any,
              step: str | int | None, src: int | None) -> Any:
    """``cls(b, t, par, step)`` without the cost of ``type.__call__``; ``src`` is where the
    uoffset to ``t`` was read (for errors)."""
    try:  # t >= 0: it is always a position plus an unsigned offset
        vt = t - _I32(b, t)[0]
        if vt < 0:
            raise struct.error
        vs = _U16(b, vt)[0]
    except struct.error:
        raise _table_error(b, t, src, par, step) from None
    if vt + vs + (vs & 1) > len(b):
        raise _table_error(b, t, src, par, step)
    v = _new(cls)
    v._b = b
    v._t = t
    v._vt = vt
    v._vs = vs
    v._par = par
    v._step = step
    return v


def _mk_struct(cls: type[LazyStructView], b: memoryview, p: int) -> Any:
    v = _new(cls)
    v._b = b
    v._p = p
    return v


def _mk_vec(b: memoryview, d: int, n: int, el: _Elem, par: Any, step: str | int | None,
            aux: Any = None) -> Any:
    v = _new(VectorView)
    v._b = b
    v._d = d
    v._n = n
    v._el = el
    v._par = par
    v._step = step
    v._aux = aux
    return v


class TableView:
    """A lazy view of one table: fields are attributes (generated per table)."""

    __slots__ = ("_b", "_par", "_step", "_t", "_vs", "_vt")
    _plan: _TablePlan

    def __init__(self, b: memoryview, t: int, par: Any = None,
                 step: str | int | None = None) -> None:
        self._b = b
        self._t = t
        self._par = par
        self._step = step
        try:  # t >= 0: it is always a position plus an unsigned offset
            vt = t - _I32(b, t)[0]
            if vt < 0:
                raise struct.error
            vs = _U16(b, vt)[0]
        except struct.error:
            raise _table_error(b, t, None, par, step) from None
        if vt + vs + (vs & 1) > len(b):
            raise _table_error(b, t, None, par, step)
        self._vt = vt
        self._vs = vs

    def _present(self, slot: int) -> bool:
        present: bool = slot < self._vs and _U16(self._b, self._vt + slot)[0] != 0
        return present

    def __repr__(self) -> str:
        return f"<{self._plan.name} view at {self._t}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableView):
            return NotImplemented
        return _decode_table(self, False) == _decode_table(other, False)

    __hash__ = None  # type: ignore[assignment]


class StructView:
    """A struct read from a buffer: fields are attributes.

    Structs of scalars only (``Vec3``) are read whole, in one ``unpack_from``, into a small
    tuple subclass (:class:`FlatStructView`: fields by name or index); structs holding other
    structs or arrays are lazy views over the buffer (:class:`LazyStructView`)."""

    __slots__ = ()
    _plan: _StructPlan

    def astuple(self) -> tuple[Any, ...]:
        """All scalar leaves, flattened, in layout order."""
        raise NotImplementedError


class FlatStructView(tuple[Any, ...], StructView):
    """A struct of scalars, read whole (a tuple of its fields in declaration order)."""

    __slots__ = ()

    def astuple(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.name}={v!r}" for f, v in zip(self._plan.fields, self,
                                                                strict=True))
        return f"{self._plan.name}({fields})"


class LazyStructView(StructView):
    """A lazy view of one struct (inline, fixed layout)."""

    __slots__ = ("_b", "_p")

    def __init__(self, b: memoryview, p: int) -> None:
        # the caller checked that the struct lies inside the buffer
        self._b = b
        self._p = p

    def __repr__(self) -> str:
        return f"<{self._plan.name} view at {self._p}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StructView):
            return NotImplemented
        return _decode_struct(self) == _decode_struct(other)

    __hash__ = None  # type: ignore[assignment]

    def astuple(self) -> tuple[Any, ...]:
        """All scalar leaves, flattened, in layout order."""
        return self._plan.whole.unpack_from(self._b, self._p)


class VectorView(Sequence[Any]):
    """A lazy vector: ``len``, indexing, slicing (a list), iteration; ``numpy()`` for vectors of
    scalars and structs."""

    __slots__ = ("_aux", "_b", "_d", "_el", "_n", "_par", "_step")

    def __init__(self, b: memoryview, d: int, n: int, el: _Elem, par: Any,
                 step: str | int | None, aux: Any = None) -> None:
        self._b = b
        self._d = d
        self._n = n
        self._el = el
        self._par = par
        self._step = step
        self._aux = aux

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self._el.get(self, k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("vector index out of range")
        return self._el.get(self, i)

    def __iter__(self) -> Iterator[Any]:
        el = self._el
        kind = el.kind
        b = self._b
        d = self._d
        n = self._n
        if kind == SCALAR:
            body: Any = b[d:d + n * el.size]
            if _NATIVE_LE:
                return iter(body.cast(el.fmt))
            return (v[0] for v in struct.iter_unpack("<" + el.fmt, body))
        if kind == STRUCT:
            plan = el.plan
            scls = plan.cls
            size = el.size
            if plan.flat:  # no Python code per element
                return map(tuple.__new__, itertools.repeat(scls, n),
                           plan.whole.iter_unpack(b[d:d + n * size]))
            out = []
            for p in range(d, d + n * size, size):
                v = _new(scls)
                v._b = b
                v._p = p
                out.append(v)
            return iter(out)
        if kind == TABLE:
            return iter(self._tables())
        get = el.get
        return (get(self, k) for k in range(n))

    def __repr__(self) -> str:
        return f"<vector of {self._n} at {self._d}>"

    def _tables(self) -> list[Any]:
        """Every element of a vector of tables (``_mk_table`` inlined)."""
        tcls = self._el.plan.cls
        b = self._b
        d = self._d
        nb = len(b)
        out = []
        for i, off in enumerate(struct.unpack_from(f"<{self._n}I", b, d)):
            t = d + 4 * i + off
            vt = t - _I32(b, t)[0] if t + 4 <= nb else -1
            if vt < 0 or vt + 4 > nb:
                _mk_table(tcls, b, t, self, i, d + 4 * i)  # raises the error
            vs = _U16(b, vt)[0]
            if vt + vs + (vs & 1) > nb:
                _mk_table(tcls, b, t, self, i, d + 4 * i)
            v = _new(tcls)
            v._b = b
            v._t = t
            v._vt = vt
            v._vs = vs
            v._par = self
            v._step = i
            out.append(v)
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, VectorView | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def tolist(self) -> list[Any]:
        """The elements, fully decoded (dicts for tables and structs)."""
        return _decode_vector(self, False)

    def numpy(self) -> Any:
        """A zero-copy ``numpy`` view (read-only) of a vector of scalars or structs."""
        if _np is None:  # pragma: no cover
            raise ImportError("numpy is not installed")
        dtype = self._el.dtype
        if dtype is None:
            raise TypeError("only vectors of scalars and structs have a numpy view")
        return _np.frombuffer(self._b, dtype=dtype, count=self._n, offset=self._d)

    @property
    def nbytes(self) -> int:
        return self._n * self._el.size


# ---------------------------------------------------------------------------------------------
# Plans


class _Elem:
    """How to read one vector element (or array element)."""

    __slots__ = ("dtype", "fast", "fmt", "get", "kind", "plan", "size", "type", "unpack")

    def __init__(self, kind: int, size: int, get: Callable[[VectorView, int], Any],
                 type: ModelType, unpack: struct.Struct | None = None, plan: Any = None,
                 dtype: Any = None) -> None:
        self.kind = kind
        self.size = size
        self.get = get
        self.type = type
        self.unpack = unpack
        self.plan = plan
        self.dtype = dtype
        self.fmt = unpack.format[1:] if unpack is not None else ""
        self.fast: Any = None  # the C vector methods' ElemInfo (see _view_accel)


class _FieldPlan:
    __slots__ = ("always", "bits", "default", "deprecated", "elem", "enum", "flex", "get", "kind",
                 "name", "plan", "scalar", "slot", "type", "union", "union_type_of")

    def __init__(self, name: str, slot: int, kind: int, type: ModelType) -> None:
        self.name = name
        self.slot = slot
        self.kind = kind
        self.type = type
        self.default: Any = None
        self.deprecated = False
        self.scalar = False
        self.always = False  # printed even when absent (a scalar key, as flatc does)
        self.get: Callable[[Any], Any] = _none
        self.elem: _Elem | None = None
        self.plan: Any = None
        self.enum: Enum | None = None
        self.union: Union | None = None
        self.union_type_of: str | None = None
        self.bits = 0
        self.flex = False  # a flexbuffer field (kind VECTOR): decoded/printed as a FlexBuffer


def _none(_: Any) -> None:
    return None


def _none2(_: Any, __: Any) -> None:
    return None


class _TablePlan:
    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: list[_FieldPlan] = []
        self.cls: type[TableView] = TableView


class _StructPlan:
    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.fields: list[_FieldPlan] = []  # slot = offset in the struct
        self.cls: type[StructView] = StructView
        self.whole = struct.Struct("<")
        self.dtype: Any = None
        self.flat = False
        self.names: tuple[str, ...] = ()
        self.make: Callable[[memoryview, int], Any] = _none2


class _Compiled:
    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self.tables: dict[str, _TablePlan] = {}
        self.structs: dict[str, _StructPlan] = {}
        self.roots: dict[str | None, type[TableView]] = {}
        # the C decoder's programs by root type (False: none), see _reader_program
        self.accel: dict[str | None, Any] = {}


_CACHE_ATTR = "_gameserde_reader_plans"


def _compiled(schema: FbsSchema) -> _Compiled:
    """The plans compiled for ``schema``, kept on the schema object itself (so they live and
    die with it)."""
    c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
    if c is None:
        c = _Compiled(schema)
        setattr(schema, _CACHE_ATTR, c)
    return c


def _scalar_parts(schema: FbsSchema, t: ModelType) -> tuple[str, Enum | None, int]:
    """(struct format char, enum or None, float bits or 0) of a scalar type."""
    if isinstance(t, Optional):
        t = t.inner
    if isinstance(t, Ref):
        e = schema.types[t.name]
        assert isinstance(e, Enum)
        return _FMT[e.underlying.bits, e.underlying.signed], e, 0
    if isinstance(t, Bool):
        return "?", None, 0
    if isinstance(t, Float):
        return _FFMT[t.bits], None, t.bits
    assert isinstance(t, Int)
    return _FMT[t.bits, t.signed], None, 0


def _is_scalar(schema: FbsSchema, t: ModelType) -> bool:
    if isinstance(t, Optional | Int | Float | Bool):
        return True
    return isinstance(t, Ref) and isinstance(schema.types[t.name], Enum)


def _struct_plan(c: _Compiled, name: str) -> _StructPlan:
    plan = c.structs.get(name)
    if plan is not None:
        return plan
    schema = c.schema
    layout = schema.struct_layout(name)
    plan = c.structs[name] = _StructPlan(name, layout.size)
    ns: dict[str, Any] = {"__slots__": (), "_plan": plan}
    whole = ["<"]
    np_names: list[str] = []
    np_formats: list[Any] = []
    np_offsets: list[int] = []
    for fl in layout.fields:
        t = fl.type
        off = fl.offset
        fp = _FieldPlan(fl.name, off, SCALAR, t)
        if isinstance(t, List):
            fp.kind = ARRAY
            assert t.length is not None
            fp.elem = _array_elem(c, t.element)
            fp.get = _make_array_getter(off, t.length, fp.elem, fl.name)
            if fp.elem.kind == SCALAR:
                whole.append(f"{t.length}{fp.elem.unpack.format[1:]}")  # type: ignore[union-attr]
            else:
                sub = fp.elem.plan
                whole.append(sub.whole.format[1:] * t.length)
            if fp.elem.dtype is not None and _np is not None:
                np_formats.append((fp.elem.dtype, (t.length,)))
        elif _is_scalar(schema, t):
            fmt, fp.enum, fp.bits = _scalar_parts(schema, t)
            fp.scalar = True
            fp.get = _make_struct_scalar(off, struct.Struct("<" + fmt))
            whole.append(fmt)
            if _np is not None:
                np_formats.append(_np.dtype("<" + fmt))
        else:
            assert isinstance(t, Ref)
            fp.kind = STRUCT
            sub = fp.plan = _struct_plan(c, t.name)
            fp.get = _make_struct_struct(off, sub.make)
            whole.append(sub.whole.format[1:])
            if _np is not None:
                np_formats.append(sub.dtype)
        if fl.padding:
            whole.append(f"{fl.padding}x")
        np_names.append(fl.name)
        np_offsets.append(off)
        plan.fields.append(fp)
        ns[fl.name] = property(fp.get)
    plan.whole = struct.Struct("".join(whole))
    if _np is not None:
        plan.dtype = _np.dtype({"names": np_names, "formats": np_formats,
                                "offsets": np_offsets, "itemsize": layout.size})
    short = name.rsplit(".", 1)[-1]
    if (all(fp.kind == SCALAR for fp in plan.fields) and plan.fields
            and plan.whole.size == layout.size):
        plan.flat = True
        plan.names = tuple(fp.name for fp in plan.fields)
        for i, fp in enumerate(plan.fields):
            fp.get = operator.itemgetter(i)
            ns[fp.name] = _field_getter(i, fp.name)
        flat_cls = plan.cls = type(short + "View", (FlatStructView,), ns)
        unpack = plan.whole.unpack_from
        new = tuple.__new__

        def make_flat(b: memoryview, p: int) -> Any:
            return new(flat_cls, unpack(b, p))
        plan.make = make_flat
    else:
        lazy_cls = plan.cls = type(short + "View", (LazyStructView,), ns)

        def make_lazy(b: memoryview, p: int) -> Any:
            return _mk_struct(lazy_cls, b, p)
        plan.make = make_lazy
    return plan


def _make_struct_scalar(off: int, st: struct.Struct) -> Callable[[LazyStructView], Any]:
    unpack = st.unpack_from

    def get(self: LazyStructView) -> Any:
        return unpack(self._b, self._p + off)[0]
    return get


def _make_struct_struct(off: int, make: Callable[[memoryview, int], Any]
                        ) -> Callable[[Any], Any]:
    def get(self: Any) -> Any:
        return make(self._b, self._p + off)
    return get


def _make_array_getter(off: int, length: int, el: _Elem,
                       name: str) -> Callable[[LazyStructView], Any]:
    if el.kind == SCALAR:
        st = struct.Struct(f"<{length}{el.unpack.format[1:]}")  # type: ignore[union-attr]
        unpack = st.unpack_from

        def get_scalars(self: LazyStructView) -> Any:
            return list(unpack(self._b, self._p + off))
        return get_scalars

    def get(self: LazyStructView) -> Any:
        vec = VectorView(self._b, self._p + off, length, el, None, name)
        return [el.get(vec, i) for i in range(length)]
    return get


def _array_elem(c: _Compiled, t: ModelType) -> _Elem:
    """Element of a fixed array inside a struct (scalars, enums or structs)."""
    return _vector_elem(c, t)


def _vector_elem(c: _Compiled, t: ModelType) -> _Elem:
    el = _vector_elem_plan(c, t)
    fast = _view_accel()
    if fast is not None and el.kind != UNION:
        code = _C_CODES.index(el.fmt) if el.kind == SCALAR else 0
        extra: Any = None
        if el.kind == STRUCT:
            extra = _c_shape(c, el.plan)
        elif el.kind == TABLE:
            extra = _class_of(el.plan)
        with contextlib.suppress(ValueError):  # malformed: the reference reads it
            el.fast = fast.elem(el.kind, el.size, code, extra)
    return el


def _vector_elem_plan(c: _Compiled, t: ModelType) -> _Elem:
    schema = c.schema
    if _is_scalar(schema, t):
        fmt = _scalar_parts(schema, t)[0]
        st = struct.Struct("<" + fmt)
        unpack = st.unpack_from
        size = st.size

        def get_scalar(v: VectorView, i: int) -> Any:
            return unpack(v._b, v._d + i * size)[0]
        dtype = _np.dtype("<" + fmt) if _np is not None else None
        return _Elem(SCALAR, size, get_scalar, t, st, dtype=dtype)
    if isinstance(t, String):
        def get_str(v: VectorView, i: int) -> Any:
            return _read_str(v._b, v._d + 4 * i, v, i)
        return _Elem(STRING, 4, get_str, t)
    assert isinstance(t, Ref)
    target = schema.types[t.name]
    if isinstance(target, Record) and target.kind == "struct":
        sp = _struct_plan(c, t.name)
        smake = sp.make
        ssize = sp.size

        def get_struct(v: VectorView, i: int) -> Any:
            return smake(v._b, v._d + i * ssize)
        return _Elem(STRUCT, ssize, get_struct, t, plan=sp, dtype=sp.dtype)
    if isinstance(target, Record):
        tp = _table_plan(c, t.name)

        def get_table(v: VectorView, i: int) -> Any:
            p = v._d + 4 * i
            return _mk_table(tp.cls, v._b, p + _U32(v._b, p)[0], v, i, p)
        return _Elem(TABLE, 4, get_table, t, plan=tp)
    assert isinstance(target, Union)
    members = _union_members(c, target)

    def get_union(v: VectorView, i: int) -> Any:
        types = v._aux
        if types is None or i >= len(types):
            raise _error("union vector is longer than its type vector", v._d, v, i)
        return _read_member(members, types[i], v._b, v._d + 4 * i, v, i)
    return _Elem(UNION, 4, get_union, t, plan=members)


def _union_members(c: _Compiled, u: Union) -> dict[int, tuple[int, Any]]:
    out: dict[int, tuple[int, Any]] = {}
    for _, (tag, mt) in u.members.items():
        if isinstance(mt, String):
            out[tag] = (STRING, None)
        else:
            assert isinstance(mt, Ref)
            rec = c.schema.types[mt.name]
            assert isinstance(rec, Record)
            if rec.kind == "struct":
                out[tag] = (STRUCT, _struct_plan(c, mt.name))
            else:
                out[tag] = (TABLE, None)
    # tables resolved lazily (recursive schemas)
    for _, (tag, mt) in u.members.items():
        if out[tag][0] == TABLE:
            assert isinstance(mt, Ref)
            out[tag] = (TABLE, _table_plan(c, mt.name))
    return out


def _read_member(members: dict[int, tuple[int, Any]], tag: int, b: memoryview, p: int,
                 owner: Any, step: str | int) -> Any:
    m = members.get(tag)
    if m is None:
        return None
    kind, plan = m
    if kind == STRING:
        return _read_str(b, p, owner, step)
    target = p + _U32(b, p)[0]
    if kind == TABLE:
        return _mk_table(plan.cls, b, target, owner, step, p)
    if target + plan.size > len(b):
        raise _past_end(b, p, f"a {plan.size}-byte struct", target, owner, step)
    return plan.make(b, target)


def _table_plan(c: _Compiled, name: str) -> _TablePlan:
    plan = c.tables.get(name)
    if plan is not None:
        return plan
    schema = c.schema
    rec = schema.table(name)
    plan = c.tables[name] = _TablePlan(name)
    ns: dict[str, Any] = {"__slots__": (), "_plan": plan}
    by_name: dict[str, _FieldPlan] = {}
    wide: set[str] = set()  # 64-bit offsets: the reference getters only
    for f in rec.fields:
        fp = _FieldPlan(f.name, f.attributes["flatbuffers.voffset"], SCALAR, f.type)
        fp.deprecated = f.deprecated
        fp.default = f.default
        t = f.type
        if f.attributes.get("flatbuffers.offset64"):
            wide.add(f.name)
            # a 64-bit offset in the slot; a string or a vector of scalars/structs, whose
            # length is 32-bit (``offset64``) or 64-bit (``vector64``)
            if isinstance(t, String):
                fp.kind = STRING
                fp.get = _make_offset64(fp.slot, None, 4, f.name, f.default)
            else:
                assert isinstance(t, List)
                fp.kind = VECTOR
                fp.elem = _vector_elem(c, t.element)
                fp.get = _make_offset64(fp.slot, fp.elem, 8 if f.attributes.get("vector64")
                                        else 4, f.name, f.default)
        elif _is_scalar(schema, t):
            fmt, fp.enum, fp.bits = _scalar_parts(schema, t)
            fp.scalar = True
            fp.always = f.key
            fp.get = _make_scalar(fp.slot, struct.Struct("<" + fmt), f.default, f.name)
        elif isinstance(t, String):
            fp.kind = STRING
            fp.get = _make_string(fp.slot, f.name, f.default)
        elif isinstance(t, List):
            nested = f.attributes.get("flatbuffers.nested_root")
            if nested is not None:
                fp.kind = NESTED
                fp.plan = nested
                fp.get = _make_nested(c, fp.slot, nested, f.name)
            else:
                fp.kind = VECTOR
                fp.elem = _vector_elem(c, t.element)
                fp.get = _make_vector(fp.slot, fp.elem, f.name, f.default)
                fp.flex = bool(f.attributes.get("flexbuffer"))
        else:
            assert isinstance(t, Ref)
            target = schema.types[t.name]
            if isinstance(target, Union):
                fp.kind = UNION
                fp.union = target
                fp.plan = _union_members(c, target)
            elif target.kind == "struct":  # type: ignore[union-attr]
                fp.kind = STRUCT
                fp.plan = _struct_plan(c, t.name)
                fp.get = _make_table_struct(fp.slot, fp.plan, f.name)
            else:
                fp.kind = TABLE
                fp.plan = t.name
                fp.get = _make_table_table(c, fp.slot, t.name, f.name)
        fp.union_type_of = f.attributes.get("flatbuffers.union_type_of")
        if fp.union_type_of is not None:
            fp.union = schema.union(f.attributes["flatbuffers.union"])
        by_name[f.name] = fp
        plan.fields.append(fp)
    fast = _view_accel()
    for fp in plan.fields:
        type_slot = 0
        if fp.kind == UNION:
            tf = by_name[rec.field(fp.name).attributes["flatbuffers.union_type_field"]]
            fp.get = _make_union(fp.slot, tf.slot, tf.get, fp.plan, fp.name)
            type_slot = tf.slot
        elif fp.kind == VECTOR and fp.elem is not None and fp.elem.kind == UNION:
            tf = by_name[rec.field(fp.name).attributes["flatbuffers.union_type_field"]]
            fp.get = _make_union_vector(fp.slot, tf.get, fp.elem, fp.name)
        ns[fp.name] = prop = property(fp.get)
        if fast is not None and fp.name not in wide:
            ns[fp.name] = _c_getter(fast, c, fp, prop, type_slot)
    plan.cls = type(name.rsplit(".", 1)[-1] + "View", (TableView,), ns)
    return plan


# ---------------------------------------------------------------------------------------------
# The C view getters (``_reader_speedups``; see _view_accel)

_C_CODES = "?bBhHiIqQefd"  # the C scalar codes, by struct format character
G_SCALAR, G_STRING, G_STRUCT, G_TABLE, G_VECTOR, G_UNION = range(6)  # the C getter kinds

_view_c: Any = None  # the set-up C reader, False: its view part is unusable


def _view_accel() -> Any:
    """The C reader when the view classes and vector plans built now get its getters, or None
    (the accelerator is not built, or ``_accel.ENABLED`` is false now). The first call sets it
    up and puts its ``__iter__``/``__len__``/``__getitem__`` on :class:`VectorView`. They all
    read ``_accel.ENABLED`` again on each call and run the reference when it is false."""
    global _view_c
    r = _accel.reader
    if r is None or not _accel.ENABLED or _view_c is False:
        return None
    if _view_c is None:
        refs = (VectorView.__iter__, VectorView.__len__, VectorView.__getitem__)
        try:
            methods = r.setup_views(_accel.__dict__, TableView, LazyStructView, VectorView,
                                    _Elem, *refs)
        except Exception:  # pragma: no cover - a build that does not fit: pure Python
            _view_c = False
            return None
        for name, method in zip(("__iter__", "__len__", "__getitem__"), methods, strict=True):
            setattr(VectorView, name, method)
        _view_c = r
    return _view_c


def _c_shape(c: _Compiled, plan: _StructPlan) -> tuple[Any, ...]:
    """How the C getters make a struct: (cls, size, flat, ((offset, scalar code), ...))."""
    fields = tuple((fp.slot, _C_CODES.index(_scalar_parts(c.schema, fp.type)[0]))
                   for fp in plan.fields) if plan.flat else ()
    return plan.cls, plan.size, plan.flat, fields


def _class_of(plan: _TablePlan) -> Callable[[], type[TableView]]:
    return lambda: plan.cls


def _lazy_class(c: _Compiled, name: str) -> Callable[[], type[TableView]]:
    return lambda: _table_plan(c, name).cls


def _c_getter(fast: Any, c: _Compiled, fp: _FieldPlan, prop: property, type_slot: int) -> Any:
    """The C descriptor for field ``fp`` (``prop``: the reference), or ``prop`` for kinds it
    does not read (nested flatbuffers, vectors of unions)."""
    kind = fp.kind
    a: Any = 0
    b = 0
    default = None
    if kind == SCALAR:
        g = G_SCALAR
        a = _C_CODES.index(_scalar_parts(c.schema, fp.type)[0])
        default = fp.default
    elif kind == STRING:
        g = G_STRING
        default = fp.default
    elif kind == STRUCT:
        g = G_STRUCT
        a = _c_shape(c, fp.plan)
    elif kind == TABLE:
        g = G_TABLE
        a = _lazy_class(c, fp.plan)
    elif kind == VECTOR and fp.elem is not None and fp.elem.kind != UNION:
        g = G_VECTOR
        a = fp.elem
        b = fp.elem.size
        default = fp.default
    elif kind == UNION:
        g = G_UNION
        a = {tag: plan if k == TABLE else None for tag, (k, plan) in fp.plan.items()}
        b = type_slot
    else:
        return prop
    try:
        return fast.getter(prop, g, fp.slot, fp.name, default, a, b)
    except ValueError:  # pragma: no cover - the reference reads it
        return prop


_U64 = struct.Struct("<Q").unpack_from


def _make_offset64(slot: int, el: _Elem | None, len_size: int, name: str,
                   default: Any) -> Callable[[TableView], Any]:
    """A field referenced by a 64-bit offset: a string (``el`` None) or a vector whose
    length field has ``len_size`` bytes (4 for ``offset64`` and strings, 8 for
    ``vector64``)."""
    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + 8 > len(b):
                    raise _field_past_end(self, slot, name, p, 8)
                s = p + _U64(b, p)[0]
                if s + len_size > len(b):
                    raise _error(f"the 64-bit offset at {p} points to {s}, past the end of "
                                 f"the {len(b)}-byte buffer", p, self, name)
                n = (_U64 if len_size == 8 else _U32)(b, s)[0]
                d = s + len_size
                size = 1 if el is None else el.size
                if d + n * size > len(b):
                    raise _error(f"the {'string' if el is None else 'vector'} at {s} has {n} "
                                 f"elements of {size} bytes, past the end of the {len(b)}-byte "
                                 "buffer", s, self, name)
                if el is None:
                    return b[d:d + n].tobytes().decode("utf-8", "surrogateescape")
                return _mk_vec(b, d, n, el, self, name)
        if el is None:
            return default
        return None if default is None else []
    return get


def _make_scalar(slot: int, st: struct.Struct, default: Any,
                 name: str) -> Callable[[TableView], Any]:
    unpack = st.unpack_from

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                try:
                    return unpack(self._b, self._t + o)[0]
                except struct.error:
                    raise _field_past_end(self, slot, name, self._t + o, st.size) from None
        return default
    return get


def _make_string(slot: int, name: str, default: Any) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                try:
                    s = p + _U32(b, p)[0] + 4
                    e = s + _U32(b, s - 4)[0]
                    if e <= len(b):
                        return b[s:e].tobytes().decode("utf-8", "surrogateescape")
                except struct.error:
                    pass
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                return _read_str(b, p, self, name)  # raises the precise error
        return default
    return get


def _make_table_struct(slot: int, plan: _StructPlan,
                       name: str) -> Callable[[TableView], Any]:
    size = plan.size
    make = plan.make
    if plan.flat:
        new: Any = tuple.__new__
        cls = plan.cls
        unpack = plan.whole.unpack_from

        def get_flat(self: TableView) -> Any:
            if slot < self._vs:
                b = self._b
                o = _U16(b, self._vt + slot)[0]
                if o:
                    p = self._t + o
                    if p + size > len(b):
                        raise _field_past_end(self, slot, name, p, size)
                    return new(cls, unpack(b, p))
            return None
        return get_flat

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + size > len(self._b):
                    raise _field_past_end(self, slot, name, p, size)
                return make(self._b, p)
        return None
    return get


def _make_table_table(c: _Compiled, slot: int, tname: str,
                      name: str) -> Callable[[TableView], Any]:
    cell: list[type[TableView]] = []

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                if not cell:
                    cell.append(_table_plan(c, tname).cls)
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                return _mk_table(cell[0], b, p + _U32(b, p)[0], self, name, p)
        return None
    return get


def _make_vector(slot: int, el: _Elem, name: str, default: Any) -> Callable[[TableView], Any]:
    size = el.size

    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                s = _deref(b, p, "a vector", self, name)
                n = _U32(b, s)[0]
                if s + 4 + n * size > len(b):
                    raise _error(f"the vector at {s} has {n} elements of {size} bytes, past "
                                 f"the end of the {len(b)}-byte buffer", s, self, name)
                v = _new(VectorView)
                v._b = b
                v._d = s + 4
                v._n = n
                v._el = el
                v._par = self
                v._step = name
                v._aux = None
                return v
        return None if default is None else []
    return get


def _make_union(slot: int, type_slot: int, type_get: Callable[[Any], Any],
                members: dict[int, tuple[int, Any]], name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        vs = self._vs
        if slot < vs:
            b = self._b
            vt = self._vt
            o = _U16(b, vt + slot)[0]
            if o:
                to = _U16(b, vt + type_slot)[0] if type_slot < vs else 0
                try:
                    tag = b[self._t + to] if to else 0
                except IndexError:
                    tag = type_get(self)  # raises the error
                m = members.get(tag)
                if m is None:
                    return None
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                if m[0] == TABLE:
                    return _mk_table(m[1].cls, b, p + _U32(b, p)[0], self, name, p)
                return _read_member(members, type_get(self), b, p, self, name)
        return None
    return get


def _make_union_vector(slot: int, type_get: Callable[[Any], Any], el: _Elem,
                       name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                d, n = _vec_header(b, p, 4, self, name)
                types = type_get(self)
                aux = None if types is None else bytes(types._b[types._d:types._d + types._n])
                return _mk_vec(b, d, n, el, self, name, aux)
        return None
    return get


def _make_nested(c: _Compiled, slot: int, root: str, name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                d, n = _vec_header(b, p, 1, self, name)
                inner = b[d:d + n]
                return _mk_table(_table_plan(c, root).cls, inner,
                                 _root_offset(inner, 0, self, name), self, name, 0)
        return None
    return get


def _root_offset(b: memoryview, start: int, par: Any, step: str | None) -> int:
    try:
        root: int = start + _U32(b, start)[0]
        return root
    except struct.error:
        raise _error("buffer too short for a root offset", start, par, step) from None


# ---------------------------------------------------------------------------------------------
# Public API


def _as_view(buf: Any) -> memoryview:
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def view(schema: FbsSchema, buf: Any, root_type: str | None = None, *,
         size_prefixed: bool = False) -> Any:
    """A lazy :class:`TableView` of the root table of ``buf`` (bytes-like, not copied).

    ``root_type`` defaults to the schema's ``root_type``. Not verified: see the module doc.
    """
    c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
    cls = None if c is None else c.roots.get(root_type)
    if cls is None:
        name = root_type if root_type is not None else schema.root
        if name is None:
            raise ValueError("the schema has no root_type; pass root_type=")
        c = _compiled(schema)
        cls = c.roots[root_type] = _table_plan(c, schema.qualify(name)).cls
    if _view_c:  # the C view getters are set up: None when they give up
        v = _view_c.root(cls, buf, size_prefixed)
        if v is not None:
            return v
    b = buf if type(buf) is memoryview and buf.format == "B" else _as_view(buf)
    if not size_prefixed:
        try:
            return _mk_table(cls, b, _U32(b, 0)[0], None, None, 0)
        except struct.error:
            raise DecodeError("buffer too short for a root offset", offset=0,
                              format="flatbuffers") from None
    start = 0
    if size_prefixed:
        if len(b) < 4:
            raise DecodeError("buffer too short for a size prefix", offset=0,
                              format="flatbuffers")
        size = _U32(b, 0)[0]
        if size + 4 > len(b):
            raise DecodeError(f"size prefix {size} exceeds the buffer", offset=0,
                              format="flatbuffers")
        start = 4
    return _mk_table(cls, b, _root_offset(b, start, None, None), None, None, start)


def struct_dtype(schema: FbsSchema, name: str) -> Any:
    """The numpy structured dtype of struct ``name`` (as ``VectorView.numpy()`` gives a vector
    of it: field names, little-endian formats, offsets and the padded size)."""
    if _np is None:
        raise ImportError("numpy is not installed")
    return _struct_plan(_compiled(schema), schema.struct(name).name).dtype


def file_identifier(buf: Any, *, size_prefixed: bool = False) -> str | None:
    """The 4-character file identifier (bytes 4..7, or 8..11 after a size prefix), or None
    when the buffer is too short."""
    b = bytes(_as_view(buf)[8 if size_prefixed else 4:][:4])
    if len(b) < 4:
        return None
    return b.decode("latin-1")


def enum_name(obj: TableView | StructView, field: str) -> str | None:
    """The enum name of field ``field`` of a view (``"Red"``), space-joined flag names for
    ``bit_flags``, or None when the value has no name (or the field is not an enum)."""
    fp = next((f for f in obj._plan.fields if f.name == field), None)
    if fp is None:
        raise AttributeError(field)
    value = getattr(obj, field)
    if value is None:
        return None
    if fp.union_type_of is not None and fp.union is not None:
        if value == 0:
            return str(fp.union.attributes.get("flatbuffers.none", "NONE"))
        m = fp.union.member_of(value)
        return None if m is None else m[0]
    if fp.enum is None:
        return None
    text = enum_text(fp.enum, value)
    return text[1:-1] if text.startswith('"') else None


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


def _flex_text(vec: VectorView, strict: bool) -> str:
    """A ``flexbuffer`` field as flatc prints it: the FlexBuffer on one line."""
    return flexbuffers._to_json(_flex_bytes(vec), strict, vec._d, _path_of(vec), "flatbuffers")


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
    (:func:`view` keeps the raw ``[ubyte]`` vector)."""
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
    checked (as with ``--raw-binary``). Not verified input: see the module doc. Raises
    :class:`DecodeError` where flatc fails (invalid UTF-8, unknown union types)."""
    root = view(schema, buf, root_type, size_prefixed=size_prefixed)
    try:
        return _Json(strict, defaults).table(root, "", schema) + "\n"
    except RecursionError:
        raise DecodeError("tables nested too deeply", offset=root._t,
                          format="flatbuffers") from None
