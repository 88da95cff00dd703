"""Bytes to values, accepting exactly what the engine's ``decode_variant`` accepts.

Every check the engine makes is made here, in the same order, and reported as a
:class:`~gameserde.errors.DecodeError` carrying the byte offset and the path of the value.
On top of the engine's checks: lengths are compared with the bytes left before anything is
allocated (the engine does this too, except for Arrays and Dictionaries, whose elements are
read one at a time, so memory stays bounded by the input), recursion is bounded by
``max_depth``, and full Objects are returned as data (:class:`Object`), never instantiated.
"""

from __future__ import annotations

import struct
from collections.abc import Callable as _Fn
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, path_key
from gameserde.godot import _accel
from gameserde.godot import types as gt
from gameserde.godot.profiles import (
    FLAG_64,
    FLAG_OBJECT_AS_ID,
    KIND_BUILTIN,
    KIND_CLASS_NAME,
    KIND_NONE,
    MAX_DEPTH,
    Profile,
    check_max_depth,
    get_profile,
)
from gameserde.godot.types import VariantType as T

_u32 = struct.Struct("<I").unpack_from
_i32 = struct.Struct("<i").unpack_from
_u64 = struct.Struct("<Q").unpack_from
_i64 = struct.Struct("<q").unpack_from
_f32 = struct.Struct("<f").unpack_from
_f64 = struct.Struct("<d").unpack_from
_i32x3 = struct.Struct("<iii").unpack_from

_FLOATS32 = {n: struct.Struct(f"<{n}f").unpack_from for n in (2, 3, 4, 6, 9, 12, 16)}
_FLOATS64 = {n: struct.Struct(f"<{n}d").unpack_from for n in (2, 3, 4, 6, 9, 12, 16)}
_INTS32 = {n: struct.Struct(f"<{n}i").unpack_from for n in (2, 3, 4)}

_V2, _V3, _V4 = gt.Vector2, gt.Vector3, gt.Vector4


def _basis(t: tuple[float, ...], row_major: bool) -> gt.Basis:
    if row_major:
        return gt.Basis(_V3(t[0], t[3], t[6]), _V3(t[1], t[4], t[7]), _V3(t[2], t[5], t[8]))
    return gt.Basis(_V3(*t[0:3]), _V3(*t[3:6]), _V3(*t[6:9]))


def _math_builders(row_major: bool) -> dict[T, tuple[int, _Fn[[Any], Any]]]:
    """Component count and constructor of each real-valued math type."""
    return {
        T.VECTOR2: (2, _V2._make),
        T.RECT2: (4, lambda t: gt.Rect2(_V2(t[0], t[1]), _V2(t[2], t[3]))),
        T.VECTOR3: (3, _V3._make),
        T.TRANSFORM2D: (6, lambda t: gt.Transform2D(_V2(t[0], t[1]), _V2(t[2], t[3]),
                                                    _V2(t[4], t[5]))),
        T.VECTOR4: (4, _V4._make),
        T.PLANE: (4, lambda t: gt.Plane(_V3(t[0], t[1], t[2]), t[3])),
        T.QUATERNION: (4, gt.Quaternion._make),
        T.AABB: (6, lambda t: gt.AABB(_V3(t[0], t[1], t[2]), _V3(t[3], t[4], t[5]))),
        T.BASIS: (9, lambda t: _basis(t, row_major)),
        T.TRANSFORM3D: (12, lambda t: gt.Transform3D(_basis(t, row_major), _V3(*t[9:12]))),
        T.PROJECTION: (16, lambda t: gt.Projection(_V4(*t[0:4]), _V4(*t[4:8]), _V4(*t[8:12]),
                                                   _V4(*t[12:16]))),
    }


_INT_MATH: dict[T, tuple[int, _Fn[[Any], Any]]] = {
    T.VECTOR2I: (2, gt.Vector2i._make),
    T.RECT2I: (4, lambda t: gt.Rect2i(gt.Vector2i(t[0], t[1]), gt.Vector2i(t[2], t[3]))),
    T.VECTOR3I: (3, gt.Vector3i._make),
    T.VECTOR4I: (4, gt.Vector4i._make),
}


class NestingError(DecodeError):
    """The data nests values deeper than ``max_depth`` allows (a :class:`DecodeError`)."""


def _fail(message: str, offset: int) -> DecodeError:
    return DecodeError(message, offset=offset, format="godot")


def make_reader(buf: memoryview, profile: Profile, allow_objects: bool,
                max_depth: int) -> _Fn[[int, int], tuple[Any, int]]:
    """Build ``read(pos, depth) -> (value, next_pos)`` over ``buf`` for one profile."""
    end = len(buf)
    mask = profile.type_mask
    math64 = profile.math_flag64
    typed = profile.typed_containers
    errors = "surrogatepass" if profile.allow_surrogates else "strict"
    n_types = len(profile.by_id)

    def need(pos: int, size: int, what: str) -> None:
        if end - pos < size:
            left = max(end - pos, 0)
            raise _fail(f"{what} needs {size} bytes but only {left} are left", pos)

    def read_string(pos: int) -> tuple[str, int]:
        need(pos, 4, "a string length")
        n = _i32(buf, pos)[0]
        start = pos + 4
        padded = (n + 3) & ~3
        if n < 0 or padded > end - start:
            left = max(end - start, 0)
            if 0 <= n <= left:
                raise _fail(f"string of {n} bytes needs {padded} with its padding but only "
                            f"{left} are left", pos)
            raise _fail(f"string length {n & 0xFFFFFFFF} exceeds the {left} bytes left", pos)
        raw = buf[start:start + n]
        try:
            s = str(raw, "utf-8", errors)
        except UnicodeDecodeError as e:
            cut = bytes(raw).find(b"\0")
            if cut < 0 or cut > e.start:
                raise _fail(f"string is not valid UTF-8 ({e.reason})", start + e.start) from None
            s = str(raw[:cut], "utf-8", errors)
        if "\0" in s:
            s = s[:s.index("\0")]
        if s[:1] == "\ufeff":
            s = s[1:]
        return s, start + padded

    def read_value(pos: int, depth: int) -> tuple[Any, int]:
        if depth > max_depth:
            raise NestingError(f"values are nested deeper than {max_depth} levels",
                               offset=pos, format="godot")
        if end - pos < 4:
            raise _fail(f"a Variant header needs 4 bytes but only {max(end - pos, 0)} are left",
                        pos)
        header = _u32(buf, pos)[0]
        tid = header & mask
        if tid >= n_types:
            raise _fail(f"unknown Variant type id {tid} (profile {profile.name} has 0 to "
                        f"{n_types - 1})", pos)
        result: tuple[Any, int] = table[tid](header, pos + 4, depth)
        return result

    def r_nil(h: int, pos: int, depth: int) -> tuple[Any, int]:
        return None, pos

    def r_bool(h: int, pos: int, depth: int) -> tuple[Any, int]:
        need(pos, 4, "a bool")
        return _u32(buf, pos)[0] != 0, pos + 4

    def r_int(h: int, pos: int, depth: int) -> tuple[Any, int]:
        if h & FLAG_64:
            need(pos, 8, "a 64-bit int")
            return _i64(buf, pos)[0], pos + 8
        need(pos, 4, "a 32-bit int")
        return _i32(buf, pos)[0], pos + 4

    def r_float(h: int, pos: int, depth: int) -> tuple[Any, int]:
        if h & FLAG_64:
            need(pos, 8, "a 64-bit float")
            return _f64(buf, pos)[0], pos + 8
        need(pos, 4, "a 32-bit float")
        return _f32(buf, pos)[0], pos + 4

    def r_string(h: int, pos: int, depth: int) -> tuple[Any, int]:
        return read_string(pos)

    def r_string_name(h: int, pos: int, depth: int) -> tuple[Any, int]:
        s, pos = read_string(pos)
        return gt.StringName(s), pos

    def math_reader(vtype: T, count: int, make: _Fn[[Any], Any],
                    honour64: bool) -> _Fn[[int, int, int], tuple[Any, int]]:
        unpack32 = (_INTS32 if vtype in _INT_MATH else _FLOATS32)[count]
        unpack64 = _FLOATS64[count]
        size32, size64 = 4 * count, 8 * count
        name = gt.TYPE_NAMES[vtype]

        def read(h: int, pos: int, depth: int) -> tuple[Any, int]:
            if honour64 and h & FLAG_64:
                need(pos, size64, f"a 64-bit {name}")
                return make(unpack64(buf, pos)), pos + size64
            need(pos, size32, f"a {name}")
            return make(unpack32(buf, pos)), pos + size32

        return read

    def r_node_path(h: int, pos: int, depth: int) -> tuple[Any, int]:
        need(pos, 4, "a NodePath")
        first = _u32(buf, pos)[0]
        if not first & 0x80000000:
            raise _fail("NodePath in the old string format (bit 31 of its first word clear) "
                        "is not accepted by the engine", pos)
        need(pos, 12, "a NodePath header")
        name_count = first & 0x7FFFFFFF
        sub_count, flags = _u32(buf, pos + 4)[0], _u32(buf, pos + 8)[0]
        if flags & 2:
            sub_count += 1
        pos += 12
        parts: list[str] = []
        for _ in range(name_count + sub_count):
            s, pos = read_string(pos)
            parts.append(s)
        if not parts:  # the engine's NodePath constructor drops "absolute" on an empty path
            return gt.NodePath(), pos
        return gt.NodePath(tuple(parts[:name_count]), tuple(parts[name_count:]),
                           bool(flags & 1)), pos

    def r_rid(h: int, pos: int, depth: int) -> tuple[Any, int]:
        if not profile.rid_payload:
            return gt.RID(), pos
        need(pos, 8, "a RID")
        return gt.RID(_u64(buf, pos)[0]), pos + 8

    def r_object(h: int, pos: int, depth: int) -> tuple[Any, int]:
        if h & FLAG_OBJECT_AS_ID:
            need(pos, 8, "an object id")
            oid = _u64(buf, pos)[0]
            return (gt.EncodedObjectAsID(oid) if oid else None), pos + 8
        if not allow_objects:
            raise _fail("a full Object is encoded here; pass allow_objects=True to decode it "
                        "(gameserde returns it as data and never instantiates it)", pos - 4)
        class_name, pos = read_string(pos)
        if not class_name:
            return None, pos
        need(pos, 4, "an Object property count")
        count = _i32(buf, pos)[0]
        pos += 4
        props: dict[str, Any] = {}
        for _ in range(count):
            name, pos = read_string(pos)
            try:
                value, pos = read_value(pos, depth + 1)
            except DecodeError as e:
                e.add_parent("." + name)
                raise
            if (name == "script" and value is not None and profile.script_must_be_path
                    and (not isinstance(value, str) or not value.startswith("res://"))):
                raise _fail('the "script" property of an Object must be a res:// path String',
                            pos)
            props[name] = value
        return gt.Object(class_name, props), pos

    def r_callable(h: int, pos: int, depth: int) -> tuple[Any, int]:
        return gt.Callable(), pos

    def r_signal(h: int, pos: int, depth: int) -> tuple[Any, int]:
        name, pos = read_string(pos)
        need(pos, 8, "a Signal's object id")
        return gt.Signal(name, _u64(buf, pos)[0]), pos + 8

    def read_container_type(kind: int, pos: int) -> tuple[gt.ContainerType, int]:
        if kind == KIND_NONE:
            return gt.UNTYPED, pos
        if kind == KIND_BUILTIN:
            need(pos, 4, "a container element type")
            bt = _i32(buf, pos)[0]
            if not 0 <= bt < n_types:
                raise _fail(f"container element type {bt} is not a Variant type", pos)
            return gt.ContainerType(T(bt)), pos + 4
        name, pos = read_string(pos)
        if kind == KIND_CLASS_NAME:
            return gt.ContainerType(T.OBJECT, class_name=name), pos
        return gt.ContainerType(T.OBJECT, script=name), pos

    def r_array(h: int, pos: int, depth: int) -> tuple[Any, int]:
        etype = gt.UNTYPED
        if typed:
            etype, pos = read_container_type((h >> 16) & 3, pos)
        need(pos, 4, "an Array size")
        count = _u32(buf, pos)[0] & 0x7FFFFFFF
        pos += 4
        items: list[Any] = []
        append = items.append
        child = depth + 1
        for i in range(count):
            try:
                value, pos = read_value(pos, child)
            except DecodeError as e:
                e.add_parent(f"[{i}]")
                raise
            append(value)
        if etype.is_typed:
            return gt.TypedArray(etype, items), pos
        return items, pos

    def r_dictionary(h: int, pos: int, depth: int) -> tuple[Any, int]:
        ktype = vtype = gt.UNTYPED
        if typed:
            ktype, pos = read_container_type((h >> 16) & 3, pos)
            vtype, pos = read_container_type((h >> 18) & 3, pos)
        need(pos, 4, "a Dictionary size")
        count = _u32(buf, pos)[0] & 0x7FFFFFFF
        pos += 4
        pairs: list[tuple[Any, Any]] = []
        child = depth + 1
        for i in range(count):
            try:
                key, pos = read_value(pos, child)
            except DecodeError as e:
                e.add_parent(f"[<key {i}>]")
                raise
            try:
                value, pos = read_value(pos, child)
            except DecodeError as e:
                e.add_parent(path_key(key))
                raise
            pairs.append((key, value))
        return build_dictionary(pairs, ktype, vtype), pos

    def r_bytes(h: int, pos: int, depth: int) -> tuple[Any, int]:
        need(pos, 4, "a PackedByteArray size")
        count = _i32(buf, pos)[0]
        pos += 4
        if count < 0 or count > end - pos:
            raise _fail(f"PackedByteArray of {count & 0xFFFFFFFF} bytes exceeds the "
                        f"{end - pos} bytes left", pos - 4)
        return bytes(buf[pos:pos + count]), pos + ((count + 3) & ~3)

    def packed_reader(cls: type[gt.PackedArray], honour64: bool
                      ) -> _Fn[[int, int, int], tuple[Any, int]]:
        name = cls.__name__

        def read(h: int, pos: int, depth: int) -> tuple[Any, int]:
            need(pos, 4, f"a {name} size")
            count = _i32(buf, pos)[0]
            pos += 4
            itemsize = 8 if honour64 and h & FLAG_64 else cls.itemsize
            size = count * itemsize * cls.width
            if count < 0 or size > 0x7FFFFFFF or size > end - pos:
                raise _fail(f"{name} of {count & 0xFFFFFFFF} elements ({size} bytes) exceeds "
                            f"the {max(end - pos, 0)} bytes left", pos - 4)
            return cls.from_buffer(buf, pos, count, itemsize), pos + size

        return read

    def r_strings(h: int, pos: int, depth: int) -> tuple[Any, int]:
        need(pos, 4, "a PackedStringArray size")
        count = _i32(buf, pos)[0]
        pos += 4
        out = gt.PackedStringArray()
        for i in range(count):
            try:
                s, pos = read_string(pos)
            except DecodeError as e:
                e.add_parent(f"[{i}]")
                raise
            out.append(s)
        return out, pos

    handlers: dict[T, _Fn[[int, int, int], tuple[Any, int]]] = {
        T.NIL: r_nil, T.BOOL: r_bool, T.INT: r_int, T.FLOAT: r_float, T.STRING: r_string,
        T.STRING_NAME: r_string_name, T.NODE_PATH: r_node_path, T.RID: r_rid,
        T.OBJECT: r_object, T.CALLABLE: r_callable, T.SIGNAL: r_signal,
        T.DICTIONARY: r_dictionary, T.ARRAY: r_array, T.PACKED_BYTE_ARRAY: r_bytes,
        T.PACKED_STRING_ARRAY: r_strings,
        T.COLOR: math_reader(T.COLOR, 4, gt.Color._make, False),
    }
    for vt, (count, make) in _math_builders(profile.basis_row_major).items():
        handlers[vt] = math_reader(vt, count, make, math64)
    for vt, (count, make) in _INT_MATH.items():
        handlers[vt] = math_reader(vt, count, make, False)
    for vt, cls in gt.PACKED_CLASSES.items():
        vector = cls.width > 1 and cls is not gt.PackedColorArray
        handlers[vt] = packed_reader(cls, math64 and vector)
    table = [handlers[t] for t in profile.by_id]
    return read_value


def build_dictionary(pairs: list[tuple[Any, Any]], ktype: gt.ContainerType = gt.UNTYPED,
                     vtype: gt.ContainerType = gt.UNTYPED) -> Any:
    """A ``dict`` when Python can hold the keys as Godot does, else a :class:`Dictionary`."""
    if ktype.is_typed or vtype.is_typed:
        return gt.TypedDictionary(ktype, vtype, pairs)
    try:
        d = dict(pairs)
    except TypeError:
        return gt.Dictionary(pairs)
    if len(d) == len(pairs) and all(type(k) is str for k in d):
        return d
    if len({gt.godot_key(k) for k, _ in pairs}) != len(d):
        return gt.Dictionary(pairs)
    return d


def decode_prefix(data: Any, *, profile: str | Profile = "godot4", allow_objects: bool = False,
                  max_depth: int = MAX_DEPTH, offset: int = 0) -> tuple[Any, int]:
    """Decode one Variant at ``offset``; return it and the number of bytes it took.

    The count is the engine's ``r_len``: a PackedByteArray at the very end of the buffer
    counts its padding even when the padding bytes are absent.
    """
    prof = get_profile(profile)
    check_max_depth(max_depth)
    buf = memoryview(data).cast("B")
    if _accel.ENABLED:  # the C twin of this module, when it was built (see _accel)
        fast = _accel.decode_prefix(buf, prof, allow_objects, max_depth, offset)
        if fast is not None:
            return fast
    read = make_reader(buf, prof, allow_objects, max_depth)
    with recursion_room(2 * max_depth + 64):
        try:
            value, end = read(offset, 0)
        except RecursionError:
            raise _fail("values are nested too deeply for this Python stack", offset) from None
    return value, end - offset


def decode(data: Any, *, profile: str | Profile = "godot4", allow_objects: bool = False,
           max_depth: int = MAX_DEPTH) -> Any:
    """Decode one Variant from the start of ``data``; trailing bytes are ignored."""
    return decode_prefix(data, profile=profile, allow_objects=allow_objects,
                         max_depth=max_depth)[0]
