"""Values to bytes, making every choice the engine's ``encode_variant`` makes.

* int: 32-bit unless outside the int32 range; float: 32-bit unless the value does not survive
  a round trip through float32 (so NaN is always 64-bit, -0.0 and infinities 32-bit).
* Math types are stored as ``real_t``: float32 components, or float64 with header bit 16 on a
  ``real_t=double`` build (``double_precision=True``, Godot 4 only); Color is always float32.
* PackedStringArray elements carry a NUL terminator inside their length; every pad byte is
  zero (the engine leaves NodePath pads uninitialised; zeros are one valid choice).
* Typed containers write their element types; with ``full_objects=False`` every class name and
  script path is written as ``"EncodedObjectAsID"``, as the engine does.
"""

from __future__ import annotations

import math
import numbers
import operator
import struct
from collections.abc import Callable as _Fn
from collections.abc import Mapping
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import EncodeError, UsageError, path_key
from gameserde.godot import _accel
from gameserde.godot import types as gt
from gameserde.godot.profiles import (
    ENCODED_OBJECT_AS_ID,
    FLAG_64,
    FLAG_OBJECT_AS_ID,
    KIND_BUILTIN,
    KIND_CLASS_NAME,
    KIND_NONE,
    KIND_SCRIPT,
    MAX_DEPTH,
    Profile,
    check_max_depth,
    get_profile,
)
from gameserde.godot.types import VariantType as T

_pack_I = struct.Struct("<I").pack
_pack_II = struct.Struct("<II").pack
_pack_Ii = struct.Struct("<Ii").pack
_pack_Iq = struct.Struct("<Iq").pack
_pack_IQ = struct.Struct("<IQ").pack
_pack_If = struct.Struct("<If").pack
_pack_Id = struct.Struct("<Id").pack
_pack_f = struct.Struct("<f").pack
_unpack_f = struct.Struct("<f").unpack
_pack_III = struct.Struct("<III").pack
_pack_Q = struct.Struct("<Q").pack
_PAD = (b"", b"\0\0\0", b"\0\0", b"\0")

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def is_float32(value: float) -> bool:
    """Whether ``float f = value; double(f) == value`` holds, the engine's 32-bit test."""
    try:
        return bool(_unpack_f(_pack_f(value))[0] == value)
    except OverflowError:
        return False


def _real32(x: float) -> float:
    """What ``float f = x`` stores: values past the float32 range become infinities."""
    try:
        _pack_f(x)
    except OverflowError:
        return math.copysign(math.inf, x)
    except struct.error:  # an int too large for a double
        if isinstance(x, int):
            return math.copysign(math.inf, x)
        raise
    return x


def _flatten_math(value: Any, row_major: bool) -> tuple[Any, ...]:
    """The components of a math value in wire order."""
    t = type(value)
    if t is gt.Basis or t is gt.Transform3D:
        basis = value if t is gt.Basis else value.basis
        x, y, z = basis
        if row_major:
            comps: tuple[Any, ...] = (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])
        else:
            comps = (*x, *y, *z)
        return comps if t is gt.Basis else comps + tuple(value.origin)
    if t is gt.Plane:
        return (*value.normal, value.d)
    if t in _NESTED:
        return tuple(c for part in value for c in part)
    return tuple(value)


_NESTED = {gt.Rect2, gt.Rect2i, gt.Transform2D, gt.AABB, gt.Projection}
_REAL_MATH = {
    gt.Vector2: T.VECTOR2, gt.Rect2: T.RECT2, gt.Vector3: T.VECTOR3,
    gt.Transform2D: T.TRANSFORM2D, gt.Vector4: T.VECTOR4, gt.Plane: T.PLANE,
    gt.Quaternion: T.QUATERNION, gt.AABB: T.AABB, gt.Basis: T.BASIS,
    gt.Transform3D: T.TRANSFORM3D, gt.Projection: T.PROJECTION,
}
_INT_MATH = {gt.Vector2i: T.VECTOR2I, gt.Rect2i: T.RECT2I, gt.Vector3i: T.VECTOR3I,
             gt.Vector4i: T.VECTOR4I}
_COUNTS = {gt.Vector2: 2, gt.Rect2: 4, gt.Vector3: 3, gt.Transform2D: 6, gt.Vector4: 4,
           gt.Plane: 4, gt.Quaternion: 4, gt.AABB: 6, gt.Basis: 9, gt.Transform3D: 12,
           gt.Projection: 16, gt.Color: 4, gt.Vector2i: 2, gt.Rect2i: 4, gt.Vector3i: 3,
           gt.Vector4i: 4}


def make_writer(out: bytearray, profile: Profile, full_objects: bool, double_precision: bool,
                max_depth: int) -> _Fn[[Any, int], None]:
    """Build ``write(value, depth)`` that appends the encoding of ``value`` to ``out``."""
    ids = profile.wire_id
    row_major = profile.basis_row_major
    psa_nul = 1 if profile.string_array_nul else 0
    math_flag = FLAG_64 if double_precision else 0
    comp = "d" if double_precision else "f"
    packers = {cls: struct.Struct(f"<I{n}{'i' if cls in _INT_MATH else comp}").pack
               for cls, n in _COUNTS.items()}
    packers[gt.Color] = struct.Struct("<I4f").pack

    def wire(vtype: T) -> int:
        wid = ids.get(vtype)
        if wid is None:
            raise EncodeError(f"{gt.TYPE_NAMES[vtype]} does not exist in profile "
                              f"{profile.name}", format="godot")
        return wid

    utf8_errors = "surrogatepass" if profile.allow_surrogates else "strict"

    def utf8(s: str) -> bytes:
        try:
            return s.encode("utf-8", utf8_errors)
        except UnicodeEncodeError as e:
            raise EncodeError(f"string cannot be encoded as UTF-8 ({e.reason})",
                              format="godot") from None

    def put_string(s: str) -> None:
        raw = utf8(s)
        n = len(raw)
        out.extend(_pack_I(n))
        out.extend(raw)
        out.extend(_PAD[n & 3])

    def w_none(v: Any, depth: int) -> None:
        out.extend(_pack_I(ids[T.NIL]))

    def w_bool(v: Any, depth: int) -> None:
        out.extend(_pack_II(ids[T.BOOL], 1 if v else 0))

    def w_int(v: Any, depth: int) -> None:
        if _INT32_MIN <= v <= _INT32_MAX:
            out.extend(_pack_Ii(ids[T.INT], v))
        elif _INT64_MIN <= v <= _INT64_MAX:
            out.extend(_pack_Iq(ids[T.INT] | FLAG_64, v))
        else:
            raise EncodeError(f"int {v} does not fit in 64 bits", format="godot")

    def w_float(v: Any, depth: int) -> None:
        if is_float32(v):
            out.extend(_pack_If(ids[T.FLOAT], v))
        else:
            out.extend(_pack_Id(ids[T.FLOAT] | FLAG_64, v))

    def w_str(v: Any, depth: int) -> None:
        out.extend(_pack_I(ids[T.STRING]))
        put_string(v)

    def w_string_name(v: Any, depth: int) -> None:
        out.extend(_pack_I(wire(T.STRING_NAME)))
        put_string(v)

    def w_math(v: Any, depth: int) -> None:
        cls = type(v)
        if cls in _INT_MATH:
            header = wire(_INT_MATH[cls])
        elif cls is gt.Color:
            header = ids[T.COLOR]
        else:
            header = wire(_REAL_MATH[cls]) | math_flag
        comps = _flatten_math(v, row_major)
        try:
            if cls is gt.Color or (cls not in _INT_MATH and not double_precision):
                comps = tuple(_real32(c) for c in comps)
            out.extend(packers[cls](header, *comps))
        except (struct.error, OverflowError, TypeError) as e:
            raise EncodeError(f"{cls.__name__} has a component the engine cannot store ({e})",
                              format="godot") from None

    def w_node_path(v: gt.NodePath, depth: int) -> None:
        out.extend(_pack_I(wire(T.NODE_PATH)))
        out.extend(_pack_III(len(v.names) | 0x80000000, len(v.subnames), 1 if v.absolute else 0))
        for s in v.names:
            put_string(s)
        for s in v.subnames:
            put_string(s)

    def w_rid(v: gt.RID, depth: int) -> None:
        if profile.rid_payload:
            out.extend(_pack_IQ(wire(T.RID), v.id))
        else:
            out.extend(_pack_I(wire(T.RID)))

    def w_object(v: gt.Object, depth: int) -> None:
        if not full_objects:
            raise EncodeError(f"a full Object ({v.class_name}) can only be written with "
                              "full_objects=True", format="godot")
        out.extend(_pack_I(wire(T.OBJECT)))
        put_string(v.class_name)
        out.extend(_pack_I(len(v.properties)))
        for name, value in v.properties.items():
            put_string(name)
            try:
                write(value, depth + 1)
            except EncodeError as e:
                e.add_parent("." + name)
                raise

    def w_object_id(v: gt.EncodedObjectAsID, depth: int) -> None:
        out.extend(_pack_IQ(wire(T.OBJECT) | FLAG_OBJECT_AS_ID, v.object_id))

    def w_callable(v: Any, depth: int) -> None:
        out.extend(_pack_I(wire(T.CALLABLE)))

    def w_signal(v: gt.Signal, depth: int) -> None:
        out.extend(_pack_I(wire(T.SIGNAL)))
        put_string(v.name)
        out.extend(_pack_Q(v.object_id))

    def container_kind(ct: gt.ContainerType) -> int:
        if not ct.is_typed:
            return KIND_NONE
        if ct.script:
            return KIND_SCRIPT if full_objects else KIND_CLASS_NAME
        return KIND_CLASS_NAME if ct.class_name else KIND_BUILTIN

    def put_container_type(ct: gt.ContainerType) -> None:
        kind = container_kind(ct)
        if kind == KIND_BUILTIN:
            out.extend(_pack_I(int(ct.builtin)))
        elif kind != KIND_NONE:
            put_string((ct.script or ct.class_name) if full_objects else ENCODED_OBJECT_AS_ID)

    def check_typed(what: str) -> None:
        if not profile.typed_containers:
            raise EncodeError(f"typed {what} does not exist in profile {profile.name}",
                              format="godot")

    def w_list(v: Any, depth: int) -> None:
        header = ids[T.ARRAY]
        etype = getattr(v, "element_type", gt.UNTYPED)
        if etype.is_typed:
            check_typed("Array")
            header |= container_kind(etype) << 16
        out.extend(_pack_I(header))
        put_container_type(etype)
        out.extend(_pack_I(len(v)))
        child = depth + 1
        for i, item in enumerate(v):
            try:
                write(item, child)
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise

    def w_dict(v: Any, depth: int) -> None:
        header = ids[T.DICTIONARY]
        ktype = getattr(v, "key_type", gt.UNTYPED)
        vtype = getattr(v, "value_type", gt.UNTYPED)
        if ktype.is_typed or vtype.is_typed:
            check_typed("Dictionary")
            header |= container_kind(ktype) << 16 | container_kind(vtype) << 18
        out.extend(_pack_I(header))
        put_container_type(ktype)
        put_container_type(vtype)
        out.extend(_pack_I(len(v)))
        child = depth + 1
        for i, (key, value) in enumerate(v.items()):
            try:
                write(key, child)
            except EncodeError as e:
                e.add_parent(f"[<key {i}>]")
                raise
            try:
                write(value, child)
            except EncodeError as e:
                e.add_parent(path_key(key))
                raise

    def w_bytes(v: Any, depth: int) -> None:
        raw = bytes(v)
        n = len(raw)
        out.extend(_pack_II(ids[T.PACKED_BYTE_ARRAY], n))
        out.extend(raw)
        out.extend(_PAD[n & 3])

    def w_strings(v: gt.PackedStringArray, depth: int) -> None:
        out.extend(_pack_II(wire(T.PACKED_STRING_ARRAY), len(v)))
        for i, s in enumerate(v):
            if not isinstance(s, str):
                raise EncodeError(f"PackedStringArray holds a {type(s).__name__}, not a str",
                                  path=f"$[{i}]", format="godot")
            try:
                raw = utf8(s)
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise
            n = len(raw) + psa_nul
            out.extend(_pack_I(n))
            out.extend(raw)
            if psa_nul:
                out.append(0)
            out.extend(_PAD[n & 3])

    def w_packed(v: gt.PackedArray, depth: int) -> None:
        cls = type(v)
        vtype = _PACKED_TYPES[cls]
        header = wire(vtype)
        itemsize = cls.itemsize
        if cls.width > 1 and cls is not gt.PackedColorArray and double_precision:
            header |= FLAG_64
            itemsize = 8
        out.extend(_pack_II(header, len(v)))
        out.extend(v.tobytes(itemsize))

    writers: dict[type, _Fn[[Any, int], None]] = {
        type(None): w_none, bool: w_bool, int: w_int, float: w_float, str: w_str,
        gt.StringName: w_string_name, gt.NodePath: w_node_path, gt.RID: w_rid,
        gt.Object: w_object, gt.EncodedObjectAsID: w_object_id, gt.Callable: w_callable,
        gt.Signal: w_signal, list: w_list, tuple: w_list, gt.TypedArray: w_list,
        dict: w_dict, gt.Dictionary: w_dict, gt.TypedDictionary: w_dict,
        bytes: w_bytes, bytearray: w_bytes, memoryview: w_bytes,
        gt.PackedStringArray: w_strings,
    }
    for cls in _COUNTS:
        writers[cls] = w_math
    for cls in _PACKED_TYPES:
        writers[cls] = w_packed

    def write(v: Any, depth: int) -> None:
        if depth > max_depth:
            raise EncodeError(f"values are nested deeper than {max_depth} levels (is a "
                              "container inside itself?)", format="godot")
        w = writers.get(type(v))
        if w is None:
            w, v = _fallback(v)
        try:
            w(v, depth)
        except EncodeError:
            raise
        except (struct.error, TypeError, AttributeError, IndexError, ValueError,
                OverflowError) as e:
            raise EncodeError(f"{type(v).__name__} value cannot be encoded ({e})",
                              format="godot") from None

    def _fallback(v: Any) -> tuple[_Fn[[Any, int], None], Any]:
        """Subclasses of the natives and numbers from other libraries (numpy scalars)."""
        if isinstance(v, bool):
            return w_bool, bool(v)
        if isinstance(v, str):
            return w_str, str(v)
        if isinstance(v, Mapping):
            return w_dict, v
        if isinstance(v, list | tuple):
            return w_list, v
        if isinstance(v, numbers.Integral) or hasattr(v, "__index__"):
            try:
                return w_int, operator.index(v)
            except TypeError:
                pass
        if isinstance(v, numbers.Real):
            return w_float, float(v)
        raise EncodeError(f"{type(v).__name__} values have no Godot Variant type",
                          format="godot")

    return write


_PACKED_TYPES: dict[type[gt.PackedArray], T] = {
    cls: vt for vt, cls in gt.PACKED_CLASSES.items()}


def encode(value: Any, *, profile: str | Profile = "godot4", full_objects: bool = False,
           double_precision: bool = False, max_depth: int = MAX_DEPTH) -> bytes:
    """Encode ``value`` as ``var_to_bytes`` (``var2bytes`` in Godot 3) would."""
    prof = get_profile(profile)
    check_max_depth(max_depth)
    if double_precision and not prof.math_flag64:
        raise UsageError(f"double_precision is a Godot 4 setting; profile {prof.name} has no "
                         "64-bit math types")
    if _accel.ENABLED:  # the C twin of make_writer, when it was built (see _accel)
        fast = _accel.encode(value, prof, full_objects, double_precision, max_depth)
        if fast is not None:
            return fast
    out = bytearray()
    write = make_writer(out, prof, full_objects, double_precision, max_depth)
    with recursion_room(2 * max_depth + 64):
        try:
            write(value, 0)
        except RecursionError:
            raise EncodeError("values are nested too deeply for this Python stack",
                              format="godot") from None
    return bytes(out)

