"""The lazy view classes of :mod:`~gameserde.flatbuffers.views` and the bounds-checked reads
behind them.

:class:`TableView`, :class:`StructView` (:class:`FlatStructView`, :class:`LazyStructView`) and
:class:`VectorView` are the bases of the classes :mod:`~gameserde.flatbuffers._view_plans`
generates per table and struct. Every read here checks its bounds and raises a
:class:`~gameserde.errors.DecodeError` naming the byte offset and the field path
(``$.weapons[1].name``).
"""

from __future__ import annotations

import itertools
import struct
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from gameserde.errors import DecodeError

if TYPE_CHECKING:
    from gameserde.flatbuffers._view_plans import _Elem, _StructPlan, _TablePlan

_np: Any
try:  # numpy is optional
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

__all__ = ["FlatStructView", "LazyStructView", "StructView", "TableView", "VectorView"]

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
        from gameserde.flatbuffers.decoder import _decode_table, _default_budget

        return (_decode_table(self, False, _default_budget(self._b))
                == _decode_table(other, False, _default_budget(other._b)))

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
        from gameserde.flatbuffers.decoder import _decode_struct

        return _decode_struct(self) == _decode_struct(other)

    __hash__ = None  # type: ignore[assignment]

    def astuple(self) -> tuple[Any, ...]:
        """All scalar leaves, flattened, in layout order."""
        out: list[Any] = []
        for fp in self._plan.fields:
            value = fp.get(self)
            if fp.kind == STRUCT:
                out += value.astuple()
            elif fp.kind == ARRAY:
                for x in value:
                    out += x.astuple() if isinstance(x, StructView) else (x,)
            else:
                out.append(value)
        return tuple(out)


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
        if isinstance(other, VectorView):  # each decoded within one expansion budget
            return self.tolist() == other.tolist()
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def tolist(self) -> list[Any]:
        """The elements, fully decoded (dicts for tables and structs), within the default
        expansion budget of :func:`~gameserde.flatbuffers.decoder.decode`."""
        from gameserde.flatbuffers.decoder import _decode_vector, _default_budget

        return _decode_vector(self, False, _default_budget(self._b))

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


def _root_offset(b: memoryview, start: int, par: Any, step: str | None) -> int:
    try:
        root: int = start + _U32(b, start)[0]
        return root
    except struct.error:
        raise _error("buffer too short for a root offset", start, par, step) from None


def _as_view(buf: Any) -> memoryview:
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv
