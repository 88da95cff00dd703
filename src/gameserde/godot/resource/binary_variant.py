"""The Variant encoding of binary resource files (``resource_format_binary.cpp``), which is
not the one of ``var_to_bytes`` (``marshalls.cpp``, :mod:`gameserde.godot.decoder`).

How it differs from ``marshalls.cpp``:

* Type ids are the saver's own ``VARIANT_*`` numbers (NIL 1, BOOL 2, INT 3, FLOAT 4,
  STRING 5, VECTOR2 10 ... PACKED_VECTOR4_ARRAY 53; see :data:`TYPE_NAMES`), the same in
  Godot 2, 3 and 4, with no flag bits in the type word. 64-bit numbers have their own ids:
  INT64 40 and DOUBLE 41.
* Strings are a u32 length that counts a closing NUL, the UTF-8 bytes and that NUL, with no
  padding (only PackedByteArray pads to 4 bytes). Property names and NodePath parts are
  indices into the file's string table, or (bit 31 set) a string given in place.
* Objects are references only: OBJECT_EMPTY (0, a null Object), OBJECT_EXTERNAL_RESOURCE
  (1, Godot 2's type and path in place: refused here), OBJECT_INTERNAL_RESOURCE (2; Godot 3:
  the ``local://N`` number, Godot 4 with named scene ids: the index in the file's internal
  resources) and OBJECT_EXTERNAL_RESOURCE_INDEX (3, an index into the external resources).
  They become :class:`~gameserde.godot.resource.model.SubRef` and
  :class:`~gameserde.godot.resource.model.ExtRef`.
* Math types are ``real_t``: float32, or float64 when a Godot 4 file sets
  ``FORMAT_FLAG_REAL_T_IS_DOUBLE`` (FLOAT then takes 8 bytes too); Color and
  PackedColorArray are always float32. Basis (and a Transform3D's basis) is stored by rows.
* NodePath is u16 name count, u16 subname count with bit 15 for "absolute", then the parts;
  before format 3 a property name follows the subnames (it becomes the last subname when
  not empty).
* Arrays and Dictionaries carry no element types, even in Godot 4 (the engine takes them
  from the property on load); a count's bit 31 ("shared") is ignored. Callable and Signal
  are their ids alone.
* Godot 2 (format 1) stored Images in place (IMAGE, 21): u32 encoding, then for a raw image
  u32 width, height, mipmaps, format and data length, for a lossless or lossy one u32 data
  length, and the data padded to 4 bytes. It becomes an inline
  :class:`~gameserde.godot.types.Object` of class ``Image`` with the properties
  ``encoding`` (``"empty"``, ``"raw"``, ``"lossless"``, ``"lossy"``), ``data`` and, when
  raw, ``width``, ``height``, ``mipmaps`` and ``format`` (Godot 2's format number).

Where the engine chooses, the writer chooses as the saver does: INT unless the value needs
64 bits (Godot 3.0 and 3.1 wrote every int as INT64: ``Context.always_int64``), FLOAT unless
float32 does not hold the value exactly (so NaN is DOUBLE), NIL for ``None``. Where a file
chose otherwise (an INT64 holding a small value, an INT where the version writes INT64, a
DOUBLE holding a float32 value, a NaN as FLOAT, a null Object as OBJECT_EMPTY, a format 1/2
NodePath whose property is its last subname) the reader notes it in ``overrides``: the number
of the choice (the count of ints, floats, ``None`` and old NodePaths read before it, in file
order) mapped to a tag (:data:`INT64`, :data:`INT32`, :data:`DOUBLE`, :data:`FLOAT`,
:data:`OBJECT`, :data:`PROPERTY`). The writer counts the same way and follows a tag only where
it loses nothing, so a file read and written back unchanged is identical, and an edited one
is still correct.
"""

from __future__ import annotations

import array
import struct
import warnings
from collections.abc import Callable as _Fn
from dataclasses import dataclass, field
from typing import Any

from gameserde.errors import DecodeError, EncodeError, GameserdeWarning, path_key
from gameserde.godot import types as gt
from gameserde.godot.decoder import build_dictionary
from gameserde.godot.resource import _accel
from gameserde.godot.resource.model import ExtRef, SubRef

__all__ = ["DOUBLE", "FLOAT", "INT32", "INT64", "MAX_DEPTH", "OBJECT", "PROPERTY", "TYPE_NAMES",
           "Context", "VariantReader", "VariantWriter"]

MAX_DEPTH = 1024
"""How deeply Arrays and Dictionaries may nest inside a property value."""

(NIL, BOOL, INT, FLOAT_ID, STRING) = (1, 2, 3, 4, 5)
(VECTOR2, RECT2, VECTOR3, PLANE, QUATERNION, AABB, BASIS, TRANSFORM3D, TRANSFORM2D) = range(10, 19)
(COLOR, IMAGE, NODE_PATH, RID, OBJECT_ID, INPUT_EVENT, DICTIONARY) = range(20, 27)
(ARRAY, PACKED_BYTE, PACKED_INT32, PACKED_FLOAT32, PACKED_STRING, PACKED_VECTOR3,
 PACKED_COLOR, PACKED_VECTOR2) = range(30, 38)
(INT64_ID, DOUBLE_ID, CALLABLE, SIGNAL, STRING_NAME, VECTOR2I, RECT2I, VECTOR3I, PACKED_INT64,
 PACKED_FLOAT64, VECTOR4, VECTOR4I, PROJECTION, PACKED_VECTOR4) = range(40, 54)

OBJECT_EMPTY, OBJECT_EXTERNAL, OBJECT_INTERNAL, OBJECT_EXTERNAL_INDEX = 0, 1, 2, 3
IMAGE_ENCODINGS = ("empty", "raw", "lossless", "lossy")
"""Godot 2's in-place Image encodings, by number."""

TYPE_NAMES = {
    NIL: "Nil", BOOL: "bool", INT: "int", FLOAT_ID: "float", STRING: "String",
    VECTOR2: "Vector2", RECT2: "Rect2", VECTOR3: "Vector3", PLANE: "Plane",
    QUATERNION: "Quaternion", AABB: "AABB", BASIS: "Basis", TRANSFORM3D: "Transform3D",
    TRANSFORM2D: "Transform2D", COLOR: "Color", IMAGE: "Image (Godot 2)",
    NODE_PATH: "NodePath", RID: "RID", OBJECT_ID: "Object",
    INPUT_EVENT: "InputEvent (Godot 2)", DICTIONARY: "Dictionary", ARRAY: "Array",
    PACKED_BYTE: "PackedByteArray", PACKED_INT32: "PackedInt32Array",
    PACKED_FLOAT32: "PackedFloat32Array", PACKED_STRING: "PackedStringArray",
    PACKED_VECTOR3: "PackedVector3Array", PACKED_COLOR: "PackedColorArray",
    PACKED_VECTOR2: "PackedVector2Array", INT64_ID: "int (64-bit)",
    DOUBLE_ID: "float (64-bit)", CALLABLE: "Callable", SIGNAL: "Signal",
    STRING_NAME: "StringName", VECTOR2I: "Vector2i", RECT2I: "Rect2i", VECTOR3I: "Vector3i",
    PACKED_INT64: "PackedInt64Array", PACKED_FLOAT64: "PackedFloat64Array",
    VECTOR4: "Vector4", VECTOR4I: "Vector4i", PROJECTION: "Projection",
    PACKED_VECTOR4: "PackedVector4Array",
}
"""The saver's ``VARIANT_*`` ids and what each holds."""

INT64 = "int64"
"""Override tag: an int in the int32 range stored as INT64."""
INT32 = "int32"
"""Override tag: an int stored as INT where the file's version writes INT64."""
DOUBLE = "double"
"""Override tag: a float that float32 holds exactly, stored as DOUBLE."""
FLOAT = "float"
"""Override tag: a NaN stored as (32-bit or real_t) FLOAT."""
OBJECT = "object"
"""Override tag: ``None`` stored as a null Object (OBJECT_EMPTY) rather than NIL."""
PROPERTY = "property"
"""Override tag: a NodePath of format 1 or 2 whose last subname is its property field."""

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_GODOT4_ONLY = frozenset({STRING_NAME, VECTOR2I, RECT2I, VECTOR3I, PACKED_INT64, PACKED_FLOAT64,
                          VECTOR4, VECTOR4I, PROJECTION, CALLABLE, SIGNAL, PACKED_VECTOR4})

_V2, _V3, _V4 = gt.Vector2, gt.Vector3, gt.Vector4


def _basis(t: tuple[float, ...]) -> gt.Basis:
    """A Basis from its rows, as the saver stores it."""
    return gt.Basis(_V3(t[0], t[3], t[6]), _V3(t[1], t[4], t[7]), _V3(t[2], t[5], t[8]))


def _basis_rows(b: gt.Basis) -> tuple[float, ...]:
    x, y, z = b
    return (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])


_MATH: dict[int, tuple[int, _Fn[[tuple[Any, ...]], Any], type[Any]]] = {
    VECTOR2: (2, _V2._make, gt.Vector2),
    RECT2: (4, lambda t: gt.Rect2(_V2(t[0], t[1]), _V2(t[2], t[3])), gt.Rect2),
    VECTOR3: (3, _V3._make, gt.Vector3),
    PLANE: (4, lambda t: gt.Plane(_V3(t[0], t[1], t[2]), t[3]), gt.Plane),
    QUATERNION: (4, gt.Quaternion._make, gt.Quaternion),
    AABB: (6, lambda t: gt.AABB(_V3(*t[0:3]), _V3(*t[3:6])), gt.AABB),
    BASIS: (9, _basis, gt.Basis),
    TRANSFORM3D: (12, lambda t: gt.Transform3D(_basis(t), _V3(*t[9:12])), gt.Transform3D),
    TRANSFORM2D: (6, lambda t: gt.Transform2D(_V2(t[0], t[1]), _V2(t[2], t[3]),
                                              _V2(t[4], t[5])), gt.Transform2D),
    VECTOR4: (4, _V4._make, gt.Vector4),
    PROJECTION: (16, lambda t: gt.Projection(_V4(*t[0:4]), _V4(*t[4:8]), _V4(*t[8:12]),
                                             _V4(*t[12:16])), gt.Projection),
}
_INT_MATH: dict[int, tuple[int, _Fn[[tuple[Any, ...]], Any], type[Any]]] = {
    VECTOR2I: (2, gt.Vector2i._make, gt.Vector2i),
    RECT2I: (4, lambda t: gt.Rect2i(gt.Vector2i(t[0], t[1]), gt.Vector2i(t[2], t[3])),
             gt.Rect2i),
    VECTOR3I: (3, gt.Vector3i._make, gt.Vector3i),
    VECTOR4I: (4, gt.Vector4i._make, gt.Vector4i),
}
_MATH_IDS = {cls: (vid, n) for vid, (n, _, cls) in _MATH.items()}
_INT_MATH_IDS = {cls: (vid, n) for vid, (n, _, cls) in _INT_MATH.items()}

# packed id -> (class, scalar kind: "real" follows real_t, else bytes per scalar)
_PACKED: dict[int, tuple[type[gt.PackedArray], str | int]] = {
    PACKED_INT32: (gt.PackedInt32Array, 4), PACKED_FLOAT32: (gt.PackedFloat32Array, 4),
    PACKED_VECTOR3: (gt.PackedVector3Array, "real"), PACKED_COLOR: (gt.PackedColorArray, 4),
    PACKED_VECTOR2: (gt.PackedVector2Array, "real"), PACKED_INT64: (gt.PackedInt64Array, 8),
    PACKED_FLOAT64: (gt.PackedFloat64Array, 8), PACKED_VECTOR4: (gt.PackedVector4Array, "real"),
}
_PACKED_IDS = {cls: vid for vid, (cls, _) in _PACKED.items()}
_SWAP_CODES = {2: "H", 4: "I", 8: "Q"}
_COUNT_MASK = 0x7FFFFFFF  # an Array's or Dictionary's count; bit 31 once meant "shared"


def _swapped(data: bytes | memoryview, size: int) -> bytes:
    """``data`` with each ``size``-byte scalar's byte order reversed."""
    a = array.array(_SWAP_CODES[size])
    a.frombytes(data)
    a.byteswap()
    return a.tobytes()


def _fits_float32(value: float) -> bool:
    """The saver's test: ``float f = value; double(f) == value`` (False for NaN)."""
    try:
        return bool(struct.unpack("<f", struct.pack("<f", value))[0] == value)
    except OverflowError:
        return False


@dataclass
class Context:
    """What the Variant encoding of one file depends on: byte order, ``real_t`` size, the
    header's format number, whether internal references are indices (Godot 4's named scene
    ids), whether the saver wrote every int as INT64 (Godot 3.0 and 3.1), the string table,
    the number of external resources and the ids of the internal ones (by index)."""

    big_endian: bool = False
    real_size: int = 4
    format: int = 3
    named_ids: bool = False
    strings: list[str] = field(default_factory=list)
    ext_count: int = 0
    always_int64: bool = False
    internal_ids: list[str] = field(default_factory=list)
    id_set: frozenset[str] = frozenset()

    def set_internal_ids(self, ids: list[str]) -> None:
        """Record the ids of the internal resources, by index."""
        self.internal_ids = ids
        self.id_set = frozenset(ids)

    def struct(self, fmt: str) -> struct.Struct:
        """A precompiled Struct for ``fmt`` in the file's byte order."""
        return struct.Struct((">" if self.big_endian else "<") + fmt)


class VariantReader:
    """Reads the Variants of one file's ``buf`` (a resource stream) and the strings of its
    header; records the file's :attr:`overrides` as it goes."""

    def __init__(self, buf: memoryview, ctx: Context) -> None:
        self.buf = buf
        self.end = len(buf)
        self.ctx = ctx
        self.overrides: dict[int, str] = {}
        self.choice = 0
        s = ctx.struct
        self._u16x2 = s("HH").unpack_from
        self._u32 = s("I").unpack_from
        self._i32 = s("i").unpack_from
        self._u64 = s("Q").unpack_from
        self._i64 = s("q").unpack_from
        self._f32 = s("f").unpack_from
        self._f64 = s("d").unpack_from
        self._real: dict[int, Any] = {}
        self.refresh()
        self._float4 = s("4f").unpack_from
        self._ints = {n: s(f"{n}i").unpack_from for n in (2, 3, 4)}

    def refresh(self) -> None:
        """Follow the context's ``real_t`` size (known only once the header's flags are
        read)."""
        real = "d" if self.ctx.real_size == 8 else "f"
        s = self.ctx.struct
        self._real = {n: s(f"{n}{real}").unpack_from for n in (2, 3, 4, 6, 9, 12, 16)}

    # -- primitives -----------------------------------------------------------------------

    def fail(self, message: str, pos: int) -> DecodeError:
        return DecodeError(message, offset=pos, format="godot")

    def need(self, pos: int, size: int, what: str) -> None:
        if self.end - pos < size:
            raise self.fail(f"{what} needs {size} bytes but only {max(self.end - pos, 0)} "
                            "are left", pos)

    def u32(self, pos: int, what: str) -> int:
        self.need(pos, 4, what)
        value: int = self._u32(self.buf, pos)[0]
        return value

    def u64(self, pos: int, what: str) -> int:
        self.need(pos, 8, what)
        value: int = self._u64(self.buf, pos)[0]
        return value

    def count(self, pos: int, what: str, item_size: int, mask: int = 0xFFFFFFFF) -> int:
        """A u32 count at ``pos`` (its bits in ``mask``) of items taking at least
        ``item_size`` bytes each, checked against the bytes left after it."""
        n = self.u32(pos, f"the count of {what}") & mask
        left = self.end - pos - 4
        if n * item_size > left:
            raise self.fail(f"{n} {what} cannot fit in the {left} bytes left", pos)
        return n

    def text(self, pos: int, n: int) -> str:
        """``n`` bytes at ``pos`` as a string ending at its first NUL, as the engine does."""
        raw = bytes(self.buf[pos:pos + n])
        cut = raw.find(b"\0")
        if cut >= 0:
            raw = raw[:cut]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"a string is not valid UTF-8 ({e.reason})", pos + e.start) from None

    def string(self, pos: int, what: str = "a string") -> tuple[str, int]:
        """A u32-length string at ``pos`` and the position after it."""
        n = self.u32(pos, f"the length of {what}")
        pos += 4
        if n > self.end - pos:
            raise self.fail(f"{what} of {n} bytes exceeds the {self.end - pos} bytes left",
                            pos - 4)
        return self.text(pos, n), pos + n

    def name(self, pos: int, what: str) -> tuple[str, int]:
        """A string-table index, or a string in place when bit 31 is set."""
        ref = self.u32(pos, what)
        pos += 4
        if ref & 0x80000000:
            n = ref & 0x7FFFFFFF
            if n > self.end - pos:
                raise self.fail(f"{what} of {n} bytes exceeds the {self.end - pos} bytes left",
                                pos - 4)
            return self.text(pos, n), pos + n
        strings = self.ctx.strings
        if ref >= len(strings):
            raise self.fail(f"{what} is string {ref} but the string table has "
                            f"{len(strings)}", pos - 4)
        return strings[ref], pos

    def note(self, tag: str) -> None:
        self.overrides[self.choice - 1] = tag

    # -- values ---------------------------------------------------------------------------

    def value(self, pos: int, depth: int = 0) -> tuple[Any, int]:
        """The Variant at ``pos`` and the position after it (a top-level one through the C
        twin when it is enabled: :mod:`._accel`)."""
        if depth == 0 and _accel.ENABLED and not self.ctx.big_endian:
            fast = _accel.read_value(self, pos)
            if fast is not None:
                return fast
        return self.reference_value(pos, depth)

    def reference_value(self, pos: int, depth: int) -> tuple[Any, int]:
        """:meth:`value` in Python, the reference."""
        tid = 0
        try:
            return self._value(pos, depth)
        except struct.error:
            if self.end - pos >= 4:
                tid = self._u32(self.buf, pos)[0]
            what = TYPE_NAMES.get(tid, "Variant type")
            raise self.fail(f"the data ends inside a {what} (at byte {self.end})",
                            pos) from None

    def _value(self, pos: int, depth: int) -> tuple[Any, int]:
        """:meth:`value`, where the fixed-size reads raise ``struct.error`` when the data ends
        too soon."""
        buf = self.buf
        tid = self._u32(buf, pos)[0]
        pos += 4
        if tid == INT:
            self.choice += 1
            if self.ctx.always_int64:
                self.note(INT32)
            return self._i32(buf, pos)[0], pos + 4
        if tid == FLOAT_ID:
            self.choice += 1
            size = self.ctx.real_size
            v = (self._f64 if size == 8 else self._f32)(buf, pos)[0]
            if v != v:
                self.note(FLOAT)
            return v, pos + size
        if tid == STRING:
            return self.string(pos)
        if tid in _MATH:
            n, make, _ = _MATH[tid]
            return make(self._real[n](buf, pos)), pos + n * self.ctx.real_size
        if tid == NIL:
            self.choice += 1
            return None, pos
        if tid == BOOL:
            return self._u32(buf, pos)[0] != 0, pos + 4
        if tid == COLOR:
            return gt.Color._make(self._float4(buf, pos)), pos + 16
        if tid in _INT_MATH:
            n, make, _ = _INT_MATH[tid]
            return make(self._ints[n](buf, pos)), pos + 4 * n
        if tid == OBJECT_ID:
            return self.object(pos)
        if tid in (ARRAY, DICTIONARY):
            if depth >= MAX_DEPTH:
                raise self.fail(f"values are nested deeper than {MAX_DEPTH} levels", pos - 4)
            return (self.array if tid == ARRAY else self.dictionary)(pos, depth + 1)
        if tid in _PACKED:
            return self.packed(tid, pos)
        if tid == PACKED_BYTE:
            n = self.count(pos, "bytes of a PackedByteArray", 1)
            pos += 4
            return bytes(buf[pos:pos + n]), min(pos + ((n + 3) & ~3), self.end)
        if tid == PACKED_STRING:
            n = self.count(pos, "strings of a PackedStringArray", 4)
            pos += 4
            items = gt.PackedStringArray()
            append = items.append
            for _ in range(n):
                s, pos = self.string(pos)
                append(s)
            return items, pos
        if tid == NODE_PATH:
            return self.node_path(pos)
        if tid == INT64_ID:
            self.choice += 1
            v = self._i64(buf, pos)[0]
            if _INT32_MIN <= v <= _INT32_MAX and not self.ctx.always_int64:
                self.note(INT64)
            return v, pos + 8
        if tid == DOUBLE_ID:
            self.choice += 1
            v = self._f64(buf, pos)[0]
            if _fits_float32(v):
                self.note(DOUBLE)
            return v, pos + 8
        if tid == STRING_NAME:
            s, pos = self.string(pos)
            return gt.StringName(s), pos
        if tid == RID:
            return gt.RID(self._u32(buf, pos)[0]), pos + 4
        if tid == CALLABLE:
            return gt.Callable(), pos
        if tid == SIGNAL:
            return gt.Signal(), pos
        if tid == IMAGE and self.ctx.format < 2:
            return self.image(pos)
        if tid in TYPE_NAMES:
            raise self.fail(f"{TYPE_NAMES[tid]} values are not supported", pos - 4)
        raise self.fail(f"unknown Variant type {tid} in a resource file", pos - 4)

    def object(self, pos: int) -> tuple[Any, int]:
        kind = self.u32(pos, "an Object reference")
        pos += 4
        if kind == OBJECT_EMPTY:
            self.choice += 1
            self.note(OBJECT)
            return None, pos
        if kind == OBJECT_EXTERNAL_INDEX:
            index = self.u32(pos, "an external resource index")
            if index >= self.ctx.ext_count:
                raise self.fail(f"external resource {index} does not exist (the file has "
                                f"{self.ctx.ext_count})", pos)
            return ExtRef(str(index + 1)), pos + 4
        if kind == OBJECT_INTERNAL:
            index = self.u32(pos, "an internal resource index")
            ids = self.ctx.internal_ids
            if self.ctx.named_ids:
                if index >= len(ids):
                    raise self.fail(f"internal resource {index} does not exist (the file has "
                                    f"{len(ids)})", pos)
                return SubRef(ids[index]), pos + 4
            if str(index) not in self.ctx.id_set:
                raise self.fail(f"internal resource local://{index} does not exist", pos)
            return SubRef(str(index)), pos + 4
        if kind == OBJECT_EXTERNAL:
            raise self.fail("an external resource given by type and path in place (Godot 2's "
                            "OBJECT_EXTERNAL_RESOURCE) is not supported", pos - 4)
        raise self.fail(f"unknown Object reference kind {kind}", pos - 4)

    def array(self, pos: int, depth: int) -> tuple[Any, int]:
        n = self.count(pos, "elements of an Array", 4, _COUNT_MASK)
        pos += 4
        items: list[Any] = []
        append = items.append
        read = self.reference_value
        for i in range(n):
            try:
                v, pos = read(pos, depth)
            except DecodeError as e:
                e.add_parent(f"[{i}]")
                raise
            append(v)
        return items, pos

    def dictionary(self, pos: int, depth: int) -> tuple[Any, int]:
        n = self.count(pos, "entries of a Dictionary", 8, _COUNT_MASK)
        pos += 4
        pairs: list[tuple[Any, Any]] = []
        read = self.reference_value
        for i in range(n):
            try:
                k, pos = read(pos, depth)
            except DecodeError as e:
                e.add_parent(f"[<key {i}>]")
                raise
            try:
                v, pos = read(pos, depth)
            except DecodeError as e:
                e.add_parent(path_key(k))
                raise
            pairs.append((k, v))
        return build_dictionary(pairs), pos

    def packed(self, tid: int, pos: int) -> tuple[Any, int]:
        cls, scalar = _PACKED[tid]
        size = self.ctx.real_size if scalar == "real" else int(scalar)
        width = cls.width * size
        n = self.count(pos, f"elements of a {TYPE_NAMES[tid]}", width)
        pos += 4
        nbytes = n * width
        if self.ctx.big_endian:
            data: Any = _swapped(self.buf[pos:pos + nbytes], size)
            return cls.from_buffer(data, 0, n, size), pos + nbytes
        return cls.from_buffer(bytes(self.buf[pos:pos + nbytes]), 0, n, size), pos + nbytes

    def image(self, pos: int) -> tuple[Any, int]:
        """Godot 2's Image stored in place."""
        encoding = self.u32(pos, "an Image encoding")
        if encoding >= len(IMAGE_ENCODINGS):
            raise self.fail(f"unknown Image encoding {encoding}", pos)
        pos += 4
        props: dict[str, Any] = {"encoding": IMAGE_ENCODINGS[encoding]}
        if encoding == 0:
            return gt.Object("Image", props), pos
        if encoding == 1:
            self.need(pos, 16, "a raw Image header")
            names = ("width", "height", "mipmaps", "format")
            props.update(zip(names, self.ctx.struct("4I").unpack_from(self.buf, pos),
                             strict=True))
            pos += 16
        n = self.count(pos, "bytes of Image data", 1)
        pos += 4
        props["data"] = bytes(self.buf[pos:pos + n])
        return gt.Object("Image", props), min(pos + ((n + 3) & ~3), self.end)

    def node_path(self, pos: int) -> tuple[Any, int]:
        self.need(pos, 4, "a NodePath header")
        n_names, n_subs = self._u16x2(self.buf, pos)
        absolute = bool(n_subs & 0x8000)
        n_subs &= 0x7FFF
        old = self.ctx.format < 3
        total = n_names + n_subs + old
        if total * 4 > self.end - pos - 4:
            raise self.fail(f"a NodePath of {total} parts cannot fit in the "
                            f"{self.end - pos - 4} bytes left", pos)
        pos += 4
        parts: list[str] = []
        for _ in range(total):
            s, pos = self.name(pos, "a NodePath part")
            parts.append(s)
        if old:
            self.choice += 1
            if parts[-1]:
                self.note(PROPERTY)
            else:
                parts.pop()
        return gt.NodePath(tuple(parts[:n_names]), tuple(parts[n_names:]), absolute), pos


class VariantWriter:
    """Writes Variants of one file into ``out``: ``strings`` maps each string-table entry to
    its index, ``internal`` each internal resource's id to what an OBJECT_INTERNAL_RESOURCE
    stores for it, ``overrides`` is what :class:`VariantReader` recorded."""

    def __init__(self, out: bytearray, ctx: Context, strings: dict[str, int],
                 internal: dict[str, int], overrides: dict[int, str]) -> None:
        self.out = out
        self.ctx = ctx
        self.strings = strings
        self.internal = internal
        self.overrides = overrides
        self.choice = 0
        s = ctx.struct
        self._u32 = s("I").pack
        self._ii = s("Ii").pack
        self._iq = s("Iq").pack
        self._if = s("If").pack
        self._id = s("Id").pack
        self._hh = s("HH").pack
        real = "d" if ctx.real_size == 8 else "f"
        self._real = {n: s(f"I{n}{real}").pack for n in (2, 3, 4, 6, 9, 12, 16)}
        self._float4 = s("I4f").pack
        self._ints = {n: s(f"I{n}i").pack for n in (2, 3, 4)}
        self._godot4 = ctx.format >= 4

    def fail(self, message: str) -> EncodeError:
        return EncodeError(message, format="godot")

    def string(self, s: str) -> None:
        """A u32-length string with its closing NUL, as the saver writes every string."""
        raw = s.encode("utf-8", "surrogatepass") + b"\0"
        self.out += self._u32(len(raw))
        self.out += raw

    def name(self, s: str) -> None:
        """A string-table index, or the string in place (bit 31 on its length)."""
        index = self.strings.get(s)
        if index is not None:
            self.out += self._u32(index)
            return
        raw = s.encode("utf-8", "surrogatepass") + b"\0"
        self.out += self._u32(len(raw) | 0x80000000)
        self.out += raw

    def check(self, tid: int) -> None:
        if tid in _GODOT4_ONLY and not self._godot4:
            raise self.fail(f"{TYPE_NAMES[tid]} has no encoding in a resource of format "
                            f"{self.ctx.format} (Godot 2 or 3)")
        if tid == PACKED_VECTOR4 and self.ctx.format < 6:
            raise self.fail("PackedVector4Array needs a resource of format 6 (Godot 4.3+)")

    def value(self, v: Any, depth: int = 0) -> None:
        """Append ``v``'s encoding (a top-level value through the C twin when it is
        enabled: :mod:`._accel`)."""
        if depth == 0 and _accel.ENABLED and not self.ctx.big_endian and _accel.write_value(
                self, v):
            return
        self.reference_value(v, depth)

    def reference_value(self, v: Any, depth: int) -> None:
        """:meth:`value` in Python, the reference."""
        out = self.out
        t = type(v)
        if t is bool:
            out += self._ii(BOOL, v)
        elif t is int:
            self.choice += 1
            tag = self.overrides.get(self.choice - 1)
            wide = tag != INT32 if self.ctx.always_int64 else tag == INT64
            if _INT32_MIN <= v <= _INT32_MAX and not wide:
                out += self._ii(INT, v)
            elif _INT64_MIN <= v <= _INT64_MAX:
                out += self._iq(INT64_ID, v)
            else:
                raise self.fail(f"int {v} does not fit in 64 bits")
        elif t is float:
            self.float(v)
        elif v is None:
            self.choice += 1
            if self.overrides.get(self.choice - 1) == OBJECT:
                out += self._ii(OBJECT_ID, OBJECT_EMPTY)
            else:
                out += self._u32(NIL)
        elif isinstance(v, str):
            if isinstance(v, gt.StringName):
                self.check(STRING_NAME)
                out += self._u32(STRING_NAME)
            else:
                out += self._u32(STRING)
            self.string(v)
        elif t in _MATH_IDS:
            tid, n = _MATH_IDS[t]
            self.check(tid)
            out += self._real[n](tid, *self.flat(v, tid))
        elif t is gt.Color:
            out += self._float4(COLOR, *v)
        elif t in _INT_MATH_IDS:
            tid, n = _INT_MATH_IDS[t]
            self.check(tid)
            out += self._ints[n](tid, *self.flat(v, tid))
        elif t is ExtRef or t is SubRef:
            self.reference(v)
        elif isinstance(v, list | dict | gt.Dictionary) and not isinstance(
                v, gt.PackedStringArray):
            self.container(v, depth)
        else:
            self.other(v)

    def float(self, v: float) -> None:
        self.choice += 1
        tag = self.overrides.get(self.choice - 1)
        if (_fits_float32(v) and tag != DOUBLE) or (v != v and tag == FLOAT):
            if self.ctx.real_size == 8:
                self.out += self._id(FLOAT_ID, v)
            else:
                self.out += self._if(FLOAT_ID, v)
        else:
            self.out += self._id(DOUBLE_ID, v)

    @staticmethod
    def flat(v: Any, tid: int) -> tuple[Any, ...]:
        if tid == BASIS:
            return _basis_rows(v)
        if tid == TRANSFORM3D:
            return (*_basis_rows(v.basis), *v.origin)
        if tid in (RECT2, AABB, TRANSFORM2D, PLANE, PROJECTION, RECT2I):
            return tuple(c for part in v for c in (part if isinstance(part, tuple) else (part,)))
        return tuple(v)

    def reference(self, v: ExtRef | SubRef) -> None:
        if isinstance(v, ExtRef):
            try:
                index = int(v.id) - 1
            except ValueError:
                index = -1
            if not 0 <= index < self.ctx.ext_count:
                raise self.fail(f"ExtRef({v.id!r}) names no external resource (ids are 1 to "
                                f"{self.ctx.ext_count})")
            self.out += self._ii(OBJECT_ID, OBJECT_EXTERNAL_INDEX)
            self.out += self._u32(index)
            return
        slot = self.internal.get(v.id)
        if slot is None:
            raise self.fail(f"SubRef({v.id!r}) names no resource of the file")
        self.out += self._ii(OBJECT_ID, OBJECT_INTERNAL)
        self.out += self._u32(slot)

    def container(self, v: Any, depth: int) -> None:
        if depth >= MAX_DEPTH:
            raise self.fail(f"values are nested deeper than {MAX_DEPTH} levels")
        write = self.reference_value
        if _typed(v):
            warnings.warn(f"the binary form keeps no element types: {_type_text(v)} is written "
                          f"as an untyped {'Array' if isinstance(v, list) else 'Dictionary'} "
                          "(the engine takes the type from the script's property when it "
                          "loads the file)", GameserdeWarning, stacklevel=2)
        if isinstance(v, list):
            self.out += self._ii(ARRAY, len(v))
            for i, item in enumerate(v):
                try:
                    write(item, depth + 1)
                except EncodeError as e:
                    e.add_parent(f"[{i}]")
                    raise
            return
        self.out += self._ii(DICTIONARY, len(v))
        for key, item in v.items():
            try:
                write(key, depth + 1)
                write(item, depth + 1)
            except EncodeError as e:
                e.add_parent(path_key(key))
                raise

    def other(self, v: Any) -> None:
        out = self.out
        t = type(v)
        if t is bytes or t is bytearray:
            out += self._ii(PACKED_BYTE, len(v))
            out += v
            out += b"\0" * (-len(v) & 3)
        elif t is gt.PackedStringArray:
            out += self._ii(PACKED_STRING, len(v))
            for s in v:
                self.string(s)
        elif t in _PACKED_IDS:
            self.packed(_PACKED_IDS[t], v)
        elif t is gt.NodePath:
            self.node_path(v)
        elif t is gt.RID:
            out += self._ii(RID, v.id & 0xFFFFFFFF)
        elif t is gt.Callable:
            self.check(CALLABLE)
            out += self._u32(CALLABLE)
        elif t is gt.Signal:
            self.check(SIGNAL)
            out += self._u32(SIGNAL)
        elif t is gt.Object and v.class_name == "Image" and self.ctx.format < 2:
            self.image(v)
        elif t is gt.Object:
            raise self.fail(f"an inline Object ({v.class_name}) has no encoding in a binary "
                            "resource: make it a resource of the file and refer to it with "
                            "a SubRef")
        else:
            raise self.fail(f"a {t.__name__} has no encoding in a binary resource")

    def image(self, v: gt.Object) -> None:
        props = v.properties
        try:
            encoding = IMAGE_ENCODINGS.index(props.get("encoding", "empty"))
            self.out += self._ii(IMAGE, encoding)
            if encoding == 0:
                return
            if encoding == 1:
                self.out += self.ctx.struct("4I").pack(
                    props["width"], props["height"], props["mipmaps"], props["format"])
            data = bytes(props["data"])
        except (ValueError, KeyError, TypeError, struct.error) as e:
            raise self.fail(f"an Image needs encoding, data and (raw) width, height, mipmaps "
                            f"and format as Godot 2 stores them ({e})") from None
        self.out += self._u32(len(data))
        self.out += data
        self.out += b"\0" * (-len(data) & 3)

    def packed(self, tid: int, v: gt.PackedArray) -> None:
        self.check(tid)
        _, scalar = _PACKED[tid]
        size = self.ctx.real_size if scalar == "real" else int(scalar)
        data = v.tobytes(size)
        if self.ctx.big_endian:
            data = _swapped(data, size)
        self.out += self._ii(tid, len(v))
        self.out += data

    def node_path(self, v: gt.NodePath) -> None:
        subs = list(v.subnames)
        prop = ""
        if self.ctx.format < 3:
            self.choice += 1
            if subs and self.overrides.get(self.choice - 1) == PROPERTY:
                prop = subs.pop()
        if len(v.names) > 0xFFFF or len(subs) > 0x7FFF:
            raise self.fail("a NodePath has more parts than the format can count")
        self.out += self._u32(NODE_PATH)
        self.out += self._hh(len(v.names), len(subs) | (0x8000 if v.absolute else 0))
        for part in (*v.names, *subs):
            self.name(part)
        if self.ctx.format < 3:
            self.name(prop)


def _typed(v: Any) -> bool:
    """Whether ``v`` is an Array or Dictionary with element types (which the format drops)."""
    if isinstance(v, gt.TypedArray):
        return v.element_type.is_typed
    return isinstance(v, gt.TypedDictionary) and (v.key_type.is_typed or v.value_type.is_typed)


def _type_text(v: Any) -> str:
    if isinstance(v, gt.TypedArray):
        return f"Array[{v.element_type.name}]"
    return f"Dictionary[{v.key_type.name}, {v.value_type.name}]"
