"""A low-level FlatBuffers builder, byte-identical to the official runtimes.

:class:`Builder` mirrors the official ``flatbuffers.Builder`` (Python 25.12.19; C#/Java/Go
share its algorithm) operation by operation, in snake_case: the same call sequence gives the
same bytes. The buffer is built back to front; every handle returned (``create_string``,
``end_vector``, ``end_object``, :meth:`Builder.offset`) is the number of bytes written so far
when the object's first byte was placed, i.e. its distance from the end of the final buffer.

One documented divergence between the official runtimes exists (spec flatbuffers.md §2.5): for an
*empty* vector whose element alignment is greater than 4, the Python/C#/Java/Go builders still
pad to that alignment (and raise the buffer's minimum alignment), while the C++ builder, and so
``flatc -b``, does not. ``Builder()`` follows the official Python runtime;
``Builder(flatc_compatible=True)`` follows C++. Nothing else differs between the two modes.

Deviations from the official Python runtime, all on invalid call sequences only:
``finish`` while an object or vector is open raises :class:`IsNestedError` (C++ asserts; Python
writes a broken buffer); a slot, ``end_object`` or ``end_vector`` with the wrong kind of object
open raises :class:`IsNotNestedError` (Python fails with an unrelated ``TypeError``); values a
type cannot hold raise :class:`BuilderError` (Python: ``TypeError``/``struct.error``).

Speed: the buffer is a zero-filled ``bytearray`` whose capacity is always a multiple of 64 and
that grows at the front by doubling, so alignment padding is free (the bytes in front of the
head are always zero, aligning is ``head & -size``) and every scalar is one ``pack_into``.
A table records, per field, its distance from the table's end; at ``end_object`` the tuple
(object size, distances) is a canonical key of the vtable's bytes (equal keys <=> equal
vtables). Vtables are deduplicated through a dict on that key (the official builders search
every vtable written since construction or :meth:`Builder.clear`; only distinct vtables are
ever written, so both find the same one), and the serialized bytes of each key are cached
across builders. :meth:`Builder.create_vector_bytes` and
:meth:`Builder.prepend_raw` take pre-packed little-endian data in one call.
"""

from __future__ import annotations

import linecache
import struct
import textwrap
from collections.abc import Callable
from typing import Any, ClassVar, Final

from gameserde.errors import EncodeError

__all__ = [
    "Builder",
    "BuilderError",
    "BuilderNotFinishedError",
    "BuilderSizeError",
    "IsNestedError",
    "IsNotNestedError",
    "NumpyRequiredError",
    "OffsetArithmeticError",
    "StructIsNotInlineError",
]


class BuilderError(EncodeError):
    """Base class of the errors :class:`Builder` raises (an :class:`EncodeError`)."""

    def __init__(self, message: str, *, path: str = "$") -> None:
        super().__init__(message, path=path, format="flatbuffers")


class IsNestedError(BuilderError):
    """An object, vector or string was started while another object or vector is open."""


class IsNotNestedError(BuilderError):
    """A table field, ``end_object`` or ``end_vector`` with no matching object open."""


class StructIsNotInlineError(BuilderError):
    """A struct slot refers to a struct that was not written just now (structs are inline)."""


class OffsetArithmeticError(BuilderError):
    """A reference to an offset that has not been written yet."""


class BuilderSizeError(BuilderError):
    """The buffer would exceed the 2 GiB limit (:attr:`Builder.MAX_BUFFER_SIZE`)."""


class BuilderNotFinishedError(BuilderError):
    """``output()`` was called before ``finish()``."""


class NumpyRequiredError(BuilderError):
    """``create_numpy_vector`` was called but numpy is not installed."""


_pack_i8 = struct.Struct("<b").pack_into
_pack_i16 = struct.Struct("<h").pack_into
_pack_u16 = struct.Struct("<H").pack_into
_pack_i32 = struct.Struct("<i").pack_into
_pack_u32 = struct.Struct("<I").pack_into
_pack_i64 = struct.Struct("<q").pack_into
_pack_u64 = struct.Struct("<Q").pack_into
_pack_f32 = struct.Struct("<f").pack_into
_pack_f64 = struct.Struct("<d").pack_into

_PACK_ERRORS: Final = (struct.error, OverflowError, TypeError)
_BOOL_BYTE: Final[dict[object, int]] = {False: 0, True: 1}
# The "no table is open" vtable: empty, so any slot index fails (IndexError) and it never changes.
_NOT_IN_TABLE: Final[list[int]] = []
_FILE_IDENTIFIER_LENGTH: Final = 4
_MAX_ALIGNMENT: Final = 32  # FLATBUFFERS_MAX_ALIGNMENT (C++), checked by force_vector_alignment


class _StructCache(dict[int, Any]):
    """``cache[n]``: a method of ``struct.Struct(fmt.format(n))``, made on first use.

    Writing ``n`` bytes with ``pack_into`` and an ``s`` format is much faster than a bytearray
    slice assignment; the byte caches are only used for ``n <= _SMALL``."""

    def __init__(self, fmt: str, method: str) -> None:
        super().__init__()
        self.fmt = fmt
        self.method = method

    def __missing__(self, n: int) -> Any:
        func = getattr(struct.Struct(self.fmt.format(n)), self.method)
        self[n] = func
        return func


_SMALL: Final = 512
_VT_PACKERS: Final = _StructCache("<{}H", "pack")  # (*uint16s) -> bytes
_PACK_BYTES: Final = _StructCache("{}s", "pack_into")  # (buf, pos, data)
_PACK_SIZED_BYTES: Final = _StructCache("<I{}s", "pack_into")  # (buf, pos, n, data)
_PACK_VTABLE: Final = _StructCache("<{}si", "pack_into")  # (buf, pos, vtable, soffset)
_UNPACK_BYTES: Final = _StructCache("{}s", "unpack_from")  # (buf, pos) -> (bytes,)

# Serialized vtables by their canonical key, shared by all builders (a vtable's bytes depend
# only on the key). Cleared when it reaches _VT_CACHE_MAX entries.
_VT_CACHE: Final[dict[tuple[int, ...], bytes]] = {}
_VT_CACHE_MAX: Final = 4096


def _vtable_bytes(key: tuple[int, ...]) -> bytes:
    """The vtable for ``key`` = (object size, then per field: the field's distance from the
    object's end, or -1 when unset) as little-endian uint16s: vtable size, object size, then
    per field its offset from the table start (object size - distance), 0 when unset."""
    size = key[0]
    n = len(key) - 1
    try:
        data: bytes = _VT_PACKERS[n + 2](2 * n + 4, size,
                                         *[size - t if t >= 0 else 0 for t in key[1:]])
    except struct.error:
        raise BuilderError(f"table too large for 16-bit vtable offsets ({size} bytes)") from None
    if len(_VT_CACHE) >= _VT_CACHE_MAX:
        _VT_CACHE.clear()
    _VT_CACHE[key] = data
    return data


def _bad_value(x: object, type_name: str) -> BuilderError:
    return BuilderError(f"{x!r} cannot be written as {type_name}")


class Builder:
    """Builds one FlatBuffer back to front; see the module docstring.

    ``initial_size`` is only a capacity hint (the buffer grows by doubling; the output never
    depends on it). ``flatc_compatible=True`` selects the C++ (``flatc``) behaviour for empty
    vectors with an element alignment greater than 4; the default is the official Python
    runtime's.
    """

    __slots__ = (
        "_base",
        "_buf",
        "_cap",
        "_finished",
        "_flatc_compatible",
        "_force_defaults",
        "_head",
        "_minalign",
        "_nested",
        "_shared",
        "_vector_len",
        "_vtable",
        "_vtables",
    )

    MAX_BUFFER_SIZE: ClassVar[int] = 2**31
    """The buffer never grows beyond this many bytes (:class:`BuilderSizeError`)."""

    _buf: bytearray
    _cap: int
    _head: int
    _minalign: int
    _nested: bool
    _vtable: list[int]
    _base: int
    _vector_len: int
    _vtables: dict[tuple[int, ...], int]
    _shared: dict[str | bytes, int] | None
    _force_defaults: bool
    _finished: bool
    _flatc_compatible: bool

    def __init__(self, initial_size: int = 1024, *, flatc_compatible: bool = False) -> None:
        if initial_size < 0 or initial_size > self.MAX_BUFFER_SIZE:
            raise BuilderSizeError(
                f"cannot create a builder of {initial_size} bytes (limit "
                f"{self.MAX_BUFFER_SIZE})")
        # The capacity is a multiple of 64 so that aligning is a mask on the absolute position.
        cap = (initial_size + 63) & -64
        if cap < 64:
            cap = 64
        self._buf = bytearray(cap)
        self._cap = cap
        self._head = cap
        self._flatc_compatible = flatc_compatible
        self._minalign = 1
        self._nested = False
        self._vtable = _NOT_IN_TABLE
        self._base = 0
        self._vector_len = -1
        self._vtables = {}
        self._shared = None
        self._force_defaults = False
        self._finished = False

    def clear(self) -> None:
        """Forget everything written (keeps the allocated buffer), as a new builder would."""
        head = self._head
        if head < self._cap:
            self._buf[head:] = bytes(self._cap - head)
            self._head = self._cap
        self._minalign = 1
        self._nested = False
        self._vtable = _NOT_IN_TABLE
        self._base = 0
        self._vector_len = -1
        self._vtables = {}
        self._shared = None
        self._force_defaults = False
        self._finished = False

    # ----------------------------------------------------------------------------- state

    @property
    def flatc_compatible(self) -> bool:
        """Whether empty vectors follow the C++ builder (``flatc``) instead of Python."""
        return self._flatc_compatible

    @property
    def minalign(self) -> int:
        """The largest alignment used so far (the finished buffer's length is a multiple)."""
        return self._minalign

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` (or :meth:`finish_size_prefixed`) has been called."""
        return self._finished

    def offset(self) -> int:
        """Bytes written so far: the handle of whatever was written last."""
        return self._cap - self._head

    def force_defaults(self, force_defaults: bool) -> None:
        """Write scalar fields even when they equal their default (and zero offsets, as the
        official Python runtime does)."""
        self._force_defaults = bool(force_defaults)

    def output(self) -> bytes:
        """The finished buffer."""
        if not self._finished:
            raise BuilderNotFinishedError("output() called before finish()")
        head = self._head
        n = self._cap - head
        if n <= _SMALL:
            return _UNPACK_BYTES[n](self._buf, head)[0]  # type: ignore[no-any-return]
        return bytes(memoryview(self._buf)[head:])  # one copy (a bytearray slice is another)

    def written(self) -> bytes:
        """The bytes written so far, finished or not (the official ``Bytes[Head():]``)."""
        return bytes(memoryview(self._buf)[self._head:])

    # ------------------------------------------------------------------- raw operations

    def _reserve(self, n: int) -> int:
        """Grow (doubling, data kept at the end) until ``n`` bytes fit in front of the head.

        Returns the new head. The capacity stays a multiple of 64, so positions keep their
        alignment."""
        cap = self._cap
        used = cap - self._head
        new_cap = cap * 2
        while new_cap - used < n:
            new_cap *= 2
        limit = self.MAX_BUFFER_SIZE & -64
        if new_cap > limit:
            if used + n > limit:
                raise BuilderSizeError(
                    f"the buffer cannot grow beyond {self.MAX_BUFFER_SIZE} bytes")
            new_cap = limit
        buf = bytearray(new_cap)
        buf[new_cap - used:] = memoryview(self._buf)[cap - used:]
        self._buf = buf
        self._cap = new_cap
        self._base += new_cap - cap
        self._head = head = new_cap - used
        return head

    def prep(self, size: int, additional_bytes: int) -> None:
        """Pad with zeros so that a ``size``-aligned value can follow ``additional_bytes``
        more bytes; record ``size`` in :attr:`minalign`. (The official ``Prep``.)"""
        if size <= 1:
            return
        if size > self._minalign:
            self._minalign = size
        head = self._head
        pad = (head - self._cap - additional_bytes) & (size - 1)
        if head < pad + size + additional_bytes:
            head = self._reserve(pad + size + additional_bytes)
        self._head = head - pad

    def pad(self, n: int) -> None:
        """Write ``n`` zero bytes."""
        if n > 0:
            head = self._head - n
            if head < 0:
                head = self._reserve(n) - n
            self._head = head

    def prepend_raw(self, data: bytes | bytearray | memoryview, alignment: int) -> int:
        """Prepend pre-packed bytes (e.g. a little-endian struct) aligned to ``alignment``:
        ``prep(alignment, len(data))`` then the bytes. Returns the new :meth:`offset`, the
        handle to pass to :meth:`prepend_struct_slot`."""
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        n = len(data)
        head = self._head
        if alignment > 1:
            if alignment > self._minalign:
                self._minalign = alignment
            pad = (head - self._cap - n) & (alignment - 1)
        else:
            pad = 0
        if head < pad + n:
            head = self._reserve(pad + n)
        head -= pad + n
        if n <= _SMALL:
            _PACK_BYTES[n](self._buf, head, data)
        else:
            self._buf[head:head + n] = data
        self._head = head
        return self._cap - head

    # ----------------------------------------------------------------------- scalars
    # prepend_<type>(x) and prepend_<type>_slot(slot, x, default) for every scalar type are
    # generated once from _SCALARS (below the class): same code for each type but its size,
    # alignment and packer.

    prepend_bool: Callable[[bool], None]
    prepend_int8: Callable[[int], None]
    prepend_uint8: Callable[[int], None]
    prepend_int16: Callable[[int], None]
    prepend_uint16: Callable[[int], None]
    prepend_int32: Callable[[int], None]
    prepend_uint32: Callable[[int], None]
    prepend_int64: Callable[[int], None]
    prepend_uint64: Callable[[int], None]
    prepend_float32: Callable[[float], None]
    prepend_float64: Callable[[float], None]
    prepend_byte: Callable[[int], None]
    prepend_bool_slot: Callable[[int, bool | None, bool | None], None]
    prepend_int8_slot: Callable[[int, int | None, int | None], None]
    prepend_uint8_slot: Callable[[int, int | None, int | None], None]
    prepend_int16_slot: Callable[[int, int | None, int | None], None]
    prepend_uint16_slot: Callable[[int, int | None, int | None], None]
    prepend_int32_slot: Callable[[int, int | None, int | None], None]
    prepend_uint32_slot: Callable[[int, int | None, int | None], None]
    prepend_int64_slot: Callable[[int, int | None, int | None], None]
    prepend_uint64_slot: Callable[[int, int | None, int | None], None]
    prepend_float32_slot: Callable[[int, float | None, float | None], None]
    prepend_float64_slot: Callable[[int, float | None, float | None], None]
    prepend_byte_slot: Callable[[int, int | None, int | None], None]

    # -------------------------------------------------------------------- references

    def prepend_uoffset_relative(self, off: int) -> None:
        """Prepend a uoffset (aligned to 4) referring to the object with handle ``off``."""
        head = (self._head & -4) - 4
        if head < 0:
            head = (self._reserve(8) & -4) - 4
        rel = self._cap - head - off
        if rel < 4:
            raise OffsetArithmeticError(
                f"offset {off} has not been written yet (builder offset {rel + off - 4})")
        try:
            _pack_u32(self._buf, head, rel)
        except _PACK_ERRORS:
            raise _bad_value(off, "uoffset") from None
        if self._minalign < 4:
            self._minalign = 4
        self._head = head

    def prepend_uoffset_relative_slot(self, slot: int, off: int, default: int) -> None:
        """Prepend a reference to ``off`` as field ``slot`` unless ``off == default`` (the
        generated code passes 0). With :meth:`force_defaults` even ``off == default`` is
        written, as the official Python runtime does."""
        if off != default or self._force_defaults:
            self.prepend_uoffset_relative(off)
            try:
                self._vtable[slot] = self._base - self._head
            except IndexError:
                raise self._slot_error(slot) from None

    def prepend_struct_slot(self, slot: int, off: int, default: int) -> None:
        """Record the struct just written (handle ``off``, which must be the current
        :meth:`offset`) as field ``slot`` unless ``off == default`` (generated code: 0)."""
        if off != default:
            current = self._cap - self._head
            if off != current:
                raise StructIsNotInlineError(
                    f"struct at offset {off} is not inline: structs must be written just "
                    f"before their slot is set (builder offset {current})")
            try:
                self._vtable[slot] = self._base - self._head
            except IndexError:
                raise self._slot_error(slot) from None

    def _slot_error(self, slot: int) -> BuilderError:
        if self._vtable is _NOT_IN_TABLE:
            return IsNotNestedError("a table field was added but no table is open")
        return BuilderError(f"slot {slot} out of range for a table of "
                            f"{len(self._vtable)} fields")

    # ------------------------------------------------------------------------ tables

    def start_object(self, numfields: int) -> None:
        """Open a table with ``numfields`` field slots (vtable entries)."""
        if self._nested:
            raise IsNestedError("start_object while an object or vector is open")
        self._vtable = [-1] * numfields
        self._base = self._head
        self._nested = True

    def end_object(self) -> int:
        """Close the open table: write its soffset and (unless an identical one was written
        before) its vtable. Returns the table's handle."""
        vt = self._vtable
        if vt is _NOT_IN_TABLE:
            raise IsNotNestedError("end_object without start_object")
        n = len(vt)
        head = (self._head & -4) - 4
        if head < 2 * n + 4:
            head = (self._reserve(2 * n + 12) & -4) - 4
        if n and vt[-1] < 0:  # trailing unset fields are trimmed
            n -= 1
            while n and vt[n - 1] < 0:
                n -= 1
            del vt[n:]
        key = (self._base - head, *vt)
        found = self._vtables.get(key)
        obj = self._cap - head
        if found is None:
            data = _VT_CACHE.get(key)
            if data is None:
                data = _vtable_bytes(key)
            size = 2 * n + 4
            vhead = head - size
            _PACK_VTABLE[size](self._buf, vhead, data, size)  # the vtable, then the soffset
            self._vtables[key] = obj + size
            self._head = vhead
        else:
            _pack_i32(self._buf, head, found - obj)
            self._head = head
        if self._minalign < 4:
            self._minalign = 4
        self._vtable = _NOT_IN_TABLE
        self._nested = False
        return obj

    # ------------------------------------------------------------------ vectors, strings

    def _start_vector(self, elem_size: int, num_elems: int, alignment: int) -> None:
        """The two preps of start_vector: ``prep(4, n * elem_size)``, then, for an
        alignment > 4, ``prep(alignment, n * elem_size)`` (skipped in flatc-compatible mode
        for an empty vector, as C++ does)."""
        if num_elems < 0 or elem_size < 0:
            raise BuilderError(f"invalid vector of {num_elems} elements of {elem_size} bytes")
        total = elem_size * num_elems
        head = self._head
        pad = (head - total) & 3
        if head < pad + total + 4 + alignment:
            head = self._reserve(pad + total + 4 + alignment)
        head -= pad
        if self._minalign < 4:
            self._minalign = 4
        if alignment > 4 and (total or not self._flatc_compatible):
            if alignment > self._minalign:
                self._minalign = alignment
            pad = (head - self._cap - total) & (alignment - 1)
            if head < pad + total + 4:
                head = self._reserve(pad + total + 4)
            head -= pad
        self._head = head

    def start_vector(self, elem_size: int, num_elems: int, alignment: int) -> int:
        """Open a vector of ``num_elems`` elements of ``elem_size`` bytes, aligned to
        ``alignment``; then prepend the elements last to first and call :meth:`end_vector`.
        Returns the current offset."""
        if self._nested:
            raise IsNestedError("start_vector while an object or vector is open")
        if alignment > 4 or num_elems < 0 or elem_size < 0:
            self._start_vector(elem_size, num_elems, alignment)
        else:
            total = elem_size * num_elems
            head = self._head
            pad = (head - total) & 3
            if head < pad + total + 4:
                head = self._reserve(pad + total + 8)
            self._head = head = head - pad
            if self._minalign < 4:
                self._minalign = 4
        self._vector_len = num_elems
        self._nested = True
        return self._cap - self._head

    def end_vector(self) -> int:
        """Close the open vector (writes its length). Returns the vector's handle."""
        n = self._vector_len
        if n < 0:
            raise IsNotNestedError("end_vector without start_vector")
        head = self._head - 4
        if head < 0:
            head = self._reserve(4) - 4
        _pack_u32(self._buf, head, n)
        self._head = head
        self._vector_len = -1
        self._nested = False
        return self._cap - head

    def force_vector_alignment(self, num_elems: int, elem_size: int, alignment: int) -> None:
        """C++ ``ForceVectorAlignment`` (flatc's ``force_align`` on vector fields), to call
        right before :meth:`start_vector`: ``prep(alignment, num_elems * elem_size)``,
        skipped when the vector is empty. ``alignment`` must be a power of two <= 32."""
        if num_elems == 0:
            return
        if alignment < 1 or alignment > _MAX_ALIGNMENT or alignment & (alignment - 1):
            raise BuilderError(f"force_align {alignment} is not a power of two <= "
                               f"{_MAX_ALIGNMENT}")
        total = num_elems * elem_size
        if total:
            self.prep(alignment, total)

    def create_vector_bytes(self, raw: bytes | bytearray | memoryview, elem_size: int,
                            num_elems: int, alignment: int) -> int:
        """A whole vector from its pre-packed little-endian body (``num_elems`` elements of
        ``elem_size`` bytes: scalars or structs): ``start_vector`` + the bytes +
        ``end_vector`` in one call. Returns the vector's handle."""
        if self._nested:
            raise IsNestedError("create_vector_bytes while an object or vector is open")
        if not isinstance(raw, (bytes, bytearray)):
            raw = memoryview(raw).cast("B")  # copied once, into the buffer
        total = len(raw)
        if total != elem_size * num_elems:
            raise BuilderError(f"{total} bytes given for {num_elems} elements of "
                               f"{elem_size} bytes")
        self._start_vector(elem_size, num_elems, alignment)
        head = self._head
        start = head - total - 4
        if total <= _SMALL:
            _PACK_SIZED_BYTES[total](self._buf, start, num_elems, bytes(raw))
        else:
            buf = self._buf
            buf[start + 4:head] = raw
            _pack_u32(buf, start, num_elems)
        self._head = start
        return self._cap - start

    def create_byte_vector(self, data: bytes | bytearray | memoryview) -> int:
        """A ``[ubyte]``/``[byte]`` vector holding ``data``. Returns its handle."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"create_byte_vector needs bytes, not {type(data).__name__}")
        if self._nested:
            raise IsNestedError("create_byte_vector while an object or vector is open")
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        n = len(data)
        head = self._head
        start = head - ((head - n) & 3) - n - 4
        if start < 0:
            head = self._reserve(n + 8)
            start = head - ((head - n) & 3) - n - 4
        if n <= _SMALL:
            _PACK_SIZED_BYTES[n](self._buf, start, n, data)
        else:
            buf = self._buf
            buf[start + 4:start + 4 + n] = data
            _pack_u32(buf, start, n)
        if self._minalign < 4:
            self._minalign = 4
        self._head = start
        return self._cap - start

    def create_numpy_vector(self, array: Any) -> int:
        """A vector holding a one-dimensional numpy array of bools, integers or floats
        (``start_vector(itemsize, size, dtype.alignment)`` + its little-endian bytes).
        Raises :class:`NumpyRequiredError` when numpy is not installed."""
        try:
            import numpy as np
        except ImportError:
            raise NumpyRequiredError("create_numpy_vector needs numpy "
                                     "(pip install numpy)") from None
        if not isinstance(array, np.ndarray):
            raise TypeError(f"create_numpy_vector needs a numpy.ndarray, not "
                            f"{type(array).__name__}")
        dtype = array.dtype
        if dtype.kind not in ("b", "i", "u", "f"):
            raise TypeError(f"create_numpy_vector cannot store dtype {dtype}")
        if array.ndim > 1:
            raise TypeError("create_numpy_vector needs a one-dimensional array")
        raw = array.astype(dtype.newbyteorder("<"), copy=False).tobytes(order="C")
        return self.create_vector_bytes(raw, dtype.itemsize, array.size, dtype.alignment)

    def create_string(self, s: str | bytes | bytearray) -> int:
        """A string: UTF-8 (``str``) or raw bytes, NUL-terminated. Returns its handle."""
        if self._nested:
            raise IsNestedError("create_string while an object or vector is open")
        data: bytes | bytearray
        if isinstance(s, str):
            try:
                data = s.encode()
            except UnicodeEncodeError as exc:
                raise BuilderError(f"string is not encodable as UTF-8: {exc}") from None
        elif isinstance(s, (bytes, bytearray)):
            data = s
        elif isinstance(s, memoryview):
            data = s.tobytes()
        else:
            raise TypeError(f"create_string needs str or bytes, not {type(s).__name__}")
        n = len(data)
        head = self._head
        start = head - ((head - n - 1) & 3) - n - 5
        if start < 0:
            head = self._reserve(n + 9)
            start = head - ((head - n - 1) & 3) - n - 5
        if n <= _SMALL:
            _PACK_SIZED_BYTES[n](self._buf, start, n, data)
        else:
            buf = self._buf
            buf[start + 4:start + 4 + n] = data
            _pack_u32(buf, start, n)
        if self._minalign < 4:
            self._minalign = 4
        self._head = start
        return self._cap - start

    def create_shared_string(self, s: str | bytes) -> int:
        """Like :meth:`create_string`, but a string already created by this method (equal
        Python object: ``"a"`` and ``b"a"`` differ) is not written again."""
        shared = self._shared
        if shared is None:
            shared = self._shared = {}
        else:
            found = shared.get(s)
            if found is not None:
                return found
        off = self.create_string(s)
        shared[s] = off
        return off

    # ------------------------------------------------------------------------ finish

    def _finish(self, root: int, file_identifier: bytes | str | None,
                size_prefix: bool) -> None:
        if self._nested:
            raise IsNestedError("finish while an object or vector is open")
        ident: bytes | None = None
        prep_size = 4
        if file_identifier is not None:
            ident = (file_identifier.encode() if isinstance(file_identifier, str)
                     else bytes(file_identifier))
            if len(ident) != _FILE_IDENTIFIER_LENGTH:
                raise BuilderError(f"file_identifier must be exactly 4 bytes, got {ident!r}")
            prep_size += 4
        if size_prefix:
            prep_size += 4
        self.prep(self._minalign, prep_size)
        if ident is not None:
            self.prep(4, 4)
            head = self._head - 4
            self._buf[head:head + 4] = ident
            self._head = head
        self.prepend_uoffset_relative(root)
        if size_prefix:
            self.prepend_int32(self._cap - self._head)
        self._finished = True

    def finish(self, root: int, file_identifier: bytes | str | None = None) -> None:
        """Finish the buffer with ``root`` as its root table, and the 4-byte
        ``file_identifier`` if given. Then :meth:`output` returns the bytes."""
        if file_identifier is not None or self._nested or self._minalign < 4:
            self._finish(root, file_identifier, False)
            return
        # prep(minalign, 4), then the root uoffset (prep(4, 0) + uint32)
        head = self._head
        cap = self._cap
        pad = (head - cap - 4) & (self._minalign - 1)
        if head < pad + 8:
            head = self._reserve(pad + 8)
            cap = self._cap
        head = ((head - pad) & -4) - 4
        rel = cap - head - root
        if rel < 4:
            raise OffsetArithmeticError(
                f"offset {root} has not been written yet (builder offset {rel + root - 4})")
        try:
            _pack_u32(self._buf, head, rel)
        except _PACK_ERRORS:
            raise _bad_value(root, "uoffset") from None
        self._head = head
        self._finished = True

    def finish_size_prefixed(self, root: int,
                             file_identifier: bytes | str | None = None) -> None:
        """Like :meth:`finish`, with a uint32 length prefix (the size of the rest)."""
        self._finish(root, file_identifier, True)


# ---------------------------------------------------------------------------------------------
# The scalar methods, generated once: (type, size = alignment, statement that stores x at head,
# the exceptions that mean x does not fit the type).

_SCALARS: Final = (
    ("bool", 1, "self._buf[head] = _BOOL_BYTE[x]", "(KeyError, TypeError)"),
    ("int8", 1, "_pack_i8(self._buf, head, x)", "_PACK_ERRORS"),
    ("uint8", 1, "self._buf[head] = x", "(ValueError, TypeError)"),
    ("int16", 2, "_pack_i16(self._buf, head, x)", "_PACK_ERRORS"),
    ("uint16", 2, "_pack_u16(self._buf, head, x)", "_PACK_ERRORS"),
    ("int32", 4, "_pack_i32(self._buf, head, x)", "_PACK_ERRORS"),
    ("uint32", 4, "_pack_u32(self._buf, head, x)", "_PACK_ERRORS"),
    ("int64", 8, "_pack_i64(self._buf, head, x)", "_PACK_ERRORS"),
    ("uint64", 8, "_pack_u64(self._buf, head, x)", "_PACK_ERRORS"),
    ("float32", 4, "_pack_f32(self._buf, head, x)", "_PACK_ERRORS"),
    ("float64", 8, "_pack_f64(self._buf, head, x)", "_PACK_ERRORS"),
)


def _scalar_methods_source() -> str:
    """Source of prepend_<type> and prepend_<type>_slot for every scalar type."""
    parts = []
    for name, size, store, errors in _SCALARS:
        if size == 1:
            locate = "head = self._head - 1\nif head < 0:\n    head = self._reserve(1) - 1\n"
            align = ""
        else:
            locate = (f"head = (self._head & -{size}) - {size}\nif head < 0:\n"
                      f"    head = (self._reserve({2 * size}) & -{size}) - {size}\n")
            align = f"if self._minalign < {size}:\n    self._minalign = {size}\n"
        write = (f"{locate}try:\n    {store}\nexcept {errors}:\n"
                 f"    raise _bad_value(x, {name!r}) from None\n{align}self._head = head\n")
        record = ("try:\n    self._vtable[slot] = self._base - head\nexcept IndexError:\n"
                  "    raise self._slot_error(slot) from None\n")
        parts.append(f"def prepend_{name}(self, x):\n" + textwrap.indent(write, "    "))
        parts.append(f"def prepend_{name}_slot(self, slot, x, default):\n"
                     "    if x != default or (self._force_defaults and default is not None):\n"
                     + textwrap.indent(write + record, "        "))
    return "\n".join(parts)


def _install_scalar_methods() -> None:
    source = _scalar_methods_source()
    filename = "<gameserde.flatbuffers.builder: scalar methods>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), globals(), namespace)
    for name, size, _, _ in _SCALARS:
        article = "an" if name[0] in "aeiou" else "a"
        aligned = f", aligned to {size} bytes" if size > 1 else ""
        plain = namespace[f"prepend_{name}"]
        plain.__doc__ = f"Prepend {article} ``{name}``{aligned}."
        slot = namespace[f"prepend_{name}_slot"]
        slot.__doc__ = (f"Prepend {article} ``{name}`` as field ``slot`` of the open table "
                        "unless it equals ``default`` (see :meth:`force_defaults`; "
                        "``default=None`` = optional scalar).")
        for func in (plain, slot):
            func.__qualname__ = f"Builder.{func.__name__}"
            setattr(Builder, func.__name__, func)
    Builder.prepend_byte = Builder.prepend_uint8
    Builder.prepend_byte_slot = Builder.prepend_uint8_slot


_install_scalar_methods()
