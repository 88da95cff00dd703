"""Hypothesis strategies for Godot Variant values, one family per wire profile.

``variants(profile)`` draws arbitrary nested values holding exactly the types the profile has:

* ``godot4``: every Godot 4.4 type, including the ``*i`` math types, Vector4, Projection,
  StringName, Callable, Signal, RID with its id, PackedInt64/Float64/Vector4Array, typed Arrays
  and typed Dictionaries, and (with ``full_objects=True``) full Objects and class/script-typed
  containers;
* ``godot3``: only the Godot 3 types (no ``*i`` types, no StringName/Callable/Signal, RID has no
  id, pool arrays are 32-bit);
* ``docs``: the docs table (Godot 3's ids 0-21, then PackedInt64/Float64Array).

Math components are float32-representable (``real_t`` is ``float`` on the engine's default
build) and int components fit int32, so every drawn value survives an encode/decode round trip.
Strings hold no NUL and do not start with a BOM (the decoder cuts at the first NUL and strips a
leading BOM, as the engine does).

``nan`` picks the NaNs drawn: ``"any"`` (every sign and payload), ``"canonical"`` (only
``float("nan")``, which survives the JSON view) or ``"none"``.

This module also holds the comparison helpers the tests share: :func:`same` (deep, strict
equality that tells ``1``/``1.0``/``True`` and ``0.0``/``-0.0`` apart and takes NaN == NaN),
:func:`has_nan`, :func:`numpy_off` (switch the packed arrays to :mod:`array`) and
:func:`rebuild` (re-create every packed array under the current numpy setting).
"""

from __future__ import annotations

import math
import string
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from hypothesis import strategies as st

import gameserde.godot.types as gtypes
from gameserde.godot import (
    AABB,
    RID,
    Basis,
    Color,
    ContainerType,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
    PackedArray,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    TypedDictionary,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from gameserde.godot import Callable as GodotCallable
from gameserde.godot.types import VariantType as T

ProfileName = Literal["godot4", "godot3", "docs"]
NanMode = Literal["any", "canonical", "none"]
PROFILE_NAMES: tuple[ProfileName, ...] = ("godot4", "godot3", "docs")

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1

S = st.SearchStrategy

# ---------------------------------------------------------------------------------------------
# Numbers


def _fix_nan(strategy: S[float], nan: NanMode) -> S[float]:
    if nan == "canonical":
        return strategy.map(lambda x: math.nan if x != x else x)
    return strategy


def doubles(nan: NanMode = "any") -> S[float]:
    """Any double (the FLOAT scalar, PackedFloat64Array, double-precision components)."""
    return _fix_nan(st.floats(allow_nan=nan != "none"), nan)


def reals(nan: NanMode = "any") -> S[float]:
    """A float32-representable double: a ``real_t`` component of a float build."""
    return _fix_nan(st.floats(width=32, allow_nan=nan != "none"), nan)


int32s = st.integers(INT32_MIN, INT32_MAX)
int64s = st.integers(INT64_MIN, INT64_MAX)
uint64s = st.integers(0, UINT64_MAX)
object_ids = st.integers(1, UINT64_MAX)  # id 0 decodes to null, not to an EncodedObjectAsID

# ---------------------------------------------------------------------------------------------
# Strings

_NO_NUL = st.characters(blacklist_characters="\0", blacklist_categories=["Cs"])


def texts(max_size: int = 12) -> S[str]:
    """Strings the decoder gives back unchanged: no NUL, no leading BOM, no surrogates."""
    return st.text(_NO_NUL, max_size=max_size).filter(lambda s: not s.startswith("\ufeff"))


_IDENT = string.ascii_letters + string.digits + "_-.%@ é"
path_parts = st.text(st.sampled_from(_IDENT), min_size=1, max_size=6)
"""NodePath names and subnames: non-empty and free of ``/`` and ``:``, as real paths are."""



def _node_path(names: list[str], subnames: list[str], absolute: bool) -> NodePath:
    # An empty path is never absolute: the engine's NodePath constructor drops the flag.
    return NodePath(tuple(names), tuple(subnames), absolute and bool(names or subnames))


node_paths = st.builds(_node_path, st.lists(path_parts, max_size=3),
                       st.lists(path_parts, max_size=2), st.booleans())

# Class names that are not Godot type names (the JSON view reads those as built-in types).
# "Object" types containers (Array[Object]); a full Object of class Object has its own test,
# as the JSON view cannot read it back.
CLASS_NAMES = ("Resource", "Node", "Node2D", "Sprite3D", "RefCounted", "MyEnemy", "Object")
OBJECT_CLASSES = CLASS_NAMES[:-1]
SCRIPTS = ("res://enemy.gd", "res://scripts/player.gd", "res://a b/ü.gd")

# ---------------------------------------------------------------------------------------------
# Math types


def _math(cls: Callable[..., Any], comp: S[Any], n: int) -> S[Any]:
    return st.tuples(*([comp] * n)).map(lambda t: cls(*t))


def math_strategies(comp: S[float], ints: S[int] = int32s) -> dict[T, S[Any]]:
    """One strategy per math type, components drawn from ``comp`` (reals) or ``ints``."""
    v2 = _math(Vector2, comp, 2)
    v3 = _math(Vector3, comp, 3)
    v4 = _math(Vector4, comp, 4)
    v2i = _math(Vector2i, ints, 2)
    basis = st.builds(Basis, v3, v3, v3)
    return {
        T.VECTOR2: v2,
        T.VECTOR2I: v2i,
        T.RECT2: st.builds(Rect2, v2, v2),
        T.RECT2I: st.builds(Rect2i, v2i, v2i),
        T.VECTOR3: v3,
        T.VECTOR3I: _math(Vector3i, ints, 3),
        T.TRANSFORM2D: st.builds(Transform2D, v2, v2, v2),
        T.VECTOR4: v4,
        T.VECTOR4I: _math(Vector4i, ints, 4),
        T.PLANE: st.builds(Plane, v3, comp),
        T.QUATERNION: _math(Quaternion, comp, 4),
        T.AABB: st.builds(AABB, v3, v3),
        T.BASIS: basis,
        T.TRANSFORM3D: st.builds(Transform3D, basis, v3),
        T.PROJECTION: st.builds(Projection, v4, v4, v4, v4),
    }


REAL_MATH = (T.VECTOR2, T.RECT2, T.VECTOR3, T.TRANSFORM2D, T.VECTOR4, T.PLANE, T.QUATERNION,
             T.AABB, T.BASIS, T.TRANSFORM3D, T.PROJECTION)
"""The math types that take header bit 16 (64-bit components) on a real_t=double build."""


def colors(nan: NanMode = "any") -> S[Color]:
    return _math(Color, reals(nan), 4)


# ---------------------------------------------------------------------------------------------
# Packed arrays


def _packed(cls: type[PackedArray], element: S[Any], max_size: int = 5,
            itemsize: int | None = None) -> S[PackedArray]:
    return st.lists(element, max_size=max_size).map(lambda xs: cls(xs, itemsize=itemsize))


def packed_strategies(nan: NanMode = "any") -> dict[T, S[Any]]:
    m = math_strategies(reals(nan))
    return {
        T.PACKED_BYTE_ARRAY: st.binary(max_size=9),
        T.PACKED_INT32_ARRAY: _packed(PackedInt32Array, int32s),
        T.PACKED_INT64_ARRAY: _packed(PackedInt64Array, int64s),
        T.PACKED_FLOAT32_ARRAY: _packed(PackedFloat32Array, reals(nan)),
        T.PACKED_FLOAT64_ARRAY: _packed(PackedFloat64Array, doubles(nan)),
        T.PACKED_STRING_ARRAY: st.lists(texts(6), max_size=4).map(PackedStringArray),
        T.PACKED_VECTOR2_ARRAY: _packed(PackedVector2Array, m[T.VECTOR2]),
        T.PACKED_VECTOR3_ARRAY: _packed(PackedVector3Array, m[T.VECTOR3]),
        T.PACKED_COLOR_ARRAY: _packed(PackedColorArray, colors(nan)),
        T.PACKED_VECTOR4_ARRAY: _packed(PackedVector4Array, m[T.VECTOR4]),
    }


# ---------------------------------------------------------------------------------------------
# Leaves per profile

GODOT4_ONLY = {T.VECTOR2I, T.RECT2I, T.VECTOR3I, T.VECTOR4, T.VECTOR4I, T.PROJECTION,
               T.STRING_NAME, T.CALLABLE, T.SIGNAL, T.PACKED_VECTOR4_ARRAY}
GODOT3_TYPES = frozenset({
    T.NIL, T.BOOL, T.INT, T.FLOAT, T.STRING, T.VECTOR2, T.RECT2, T.VECTOR3, T.TRANSFORM2D,
    T.PLANE, T.QUATERNION, T.AABB, T.BASIS, T.TRANSFORM3D, T.COLOR, T.NODE_PATH, T.RID,
    T.OBJECT, T.DICTIONARY, T.ARRAY, T.PACKED_BYTE_ARRAY, T.PACKED_INT32_ARRAY,
    T.PACKED_FLOAT32_ARRAY, T.PACKED_STRING_ARRAY, T.PACKED_VECTOR2_ARRAY,
    T.PACKED_VECTOR3_ARRAY, T.PACKED_COLOR_ARRAY,
})
PROFILE_TYPES: dict[ProfileName, frozenset[T]] = {
    "godot4": frozenset(T),
    "godot3": GODOT3_TYPES,
    "docs": GODOT3_TYPES | {T.PACKED_INT64_ARRAY, T.PACKED_FLOAT64_ARRAY},
}


def leaf_strategies(profile: ProfileName = "godot4", nan: NanMode = "any",
                    full_objects: bool = False) -> dict[T, S[Any]]:
    """A strategy for every non-container type of ``profile`` (Object only when full)."""
    types = PROFILE_TYPES[profile]
    out: dict[T, S[Any]] = {
        T.NIL: st.none(),
        T.BOOL: st.booleans(),
        T.INT: int64s,
        T.FLOAT: doubles(nan),
        T.STRING: texts(),
        T.COLOR: colors(nan),
        T.STRING_NAME: texts().map(StringName),
        T.NODE_PATH: node_paths,
        T.RID: (st.builds(RID, uint64s) if profile == "godot4" else st.just(RID())),
        T.CALLABLE: st.just(GodotCallable()),
        T.SIGNAL: st.builds(Signal, texts(8), uint64s),
        T.OBJECT: st.builds(EncodedObjectAsID, object_ids),
    }
    out.update(math_strategies(reals(nan)))
    out.update(packed_strategies(nan))
    return {t: s for t, s in out.items() if t in types}


def hashable_keys(profile: ProfileName = "godot4") -> S[Any]:
    """Keys a Python ``dict`` holds as Godot does (no NaN: NaN keys never compare equal)."""
    leaves = leaf_strategies(profile, nan="none")
    kinds = [T.NIL, T.BOOL, T.INT, T.FLOAT, T.STRING, T.STRING_NAME, T.VECTOR2, T.VECTOR3I,
             T.COLOR, T.NODE_PATH, T.RID, T.SIGNAL, T.OBJECT]
    return st.one_of(*(leaves[k] for k in kinds if k in leaves))


# ---------------------------------------------------------------------------------------------
# Objects and typed containers


def _objects(children: S[Any], profile: ProfileName) -> S[Object]:
    names = texts(8).filter(lambda s: s != "script")
    props = st.dictionaries(names, children, max_size=3)
    if profile == "godot4":  # 4.x: `script` is a res:// path String or Nil
        script: S[Any] = st.sampled_from([None, *SCRIPTS])
    else:  # 3.x and the docs: any value
        script = children

    def build(class_name: str, p: dict[str, Any], with_script: bool, s: Any) -> Object:
        if with_script:
            p = {**p, "script": s}
        return Object(class_name, p)

    return st.builds(build, st.sampled_from(OBJECT_CLASSES), props, st.booleans(), script)


def container_types(profile: ProfileName, full_objects: bool) -> S[ContainerType]:
    """Element/key/value types for typed containers (never NIL: that means untyped).

    Without ``full_objects`` the engine writes every class name and script as the class name
    ``EncodedObjectAsID``, so only that one round-trips; Object itself is always typed by class
    name (``Array[Object]``), as in the engine.
    """
    builtins = sorted(PROFILE_TYPES[profile] - {T.NIL, T.OBJECT})
    choices: list[S[ContainerType]] = [st.sampled_from([ContainerType(t) for t in builtins])]
    if full_objects:
        choices.append(st.sampled_from([ContainerType(T.OBJECT, class_name=c)
                                        for c in CLASS_NAMES]))
        choices.append(st.sampled_from([ContainerType(T.OBJECT, script=s) for s in SCRIPTS]))
    else:
        choices.append(st.just(ContainerType(T.OBJECT, class_name="EncodedObjectAsID")))
    return st.one_of(*choices)


def _typed_element(ct: ContainerType, leaves: dict[T, S[Any]], children: S[Any],
                   objects: S[Any] | None) -> S[Any]:
    """Values of the element type ``ct`` (a typed container holds only those)."""
    if ct.builtin == T.OBJECT:
        options: list[S[Any]] = [st.none(), leaves[T.OBJECT]]
        if objects is not None:
            options.append(objects)
        return st.one_of(*options)
    if ct.builtin == T.ARRAY:
        return st.lists(children, max_size=2)
    if ct.builtin == T.DICTIONARY:
        return st.dictionaries(texts(3), children, max_size=2)
    return leaves[ct.builtin]


KEY_TYPES = (T.BOOL, T.INT, T.FLOAT, T.STRING, T.STRING_NAME, T.VECTOR2, T.VECTOR2I,
             T.VECTOR3, T.COLOR, T.NODE_PATH, T.RID)
"""Builtin key types of the typed Dictionaries drawn (the ones a Python dict keys by value)."""


def key_container_types(profile: ProfileName, full_objects: bool) -> S[ContainerType]:
    """Key types of typed Dictionaries: hashable builtins, or an Object class."""
    builtins = [ContainerType(t) for t in KEY_TYPES if t in PROFILE_TYPES[profile]]
    cls = CLASS_NAMES if full_objects else ("EncodedObjectAsID",)
    return st.one_of(st.sampled_from(builtins),
                     st.sampled_from([ContainerType(T.OBJECT, class_name=c) for c in cls]))


# ---------------------------------------------------------------------------------------------
# Whole values


def variants(profile: ProfileName = "godot4", *, full_objects: bool = False,
             nan: NanMode = "any", max_leaves: int = 12) -> S[Any]:
    """Arbitrary (nested) values of ``profile``.

    With ``full_objects`` the values may hold full :class:`Object` s and class- or
    script-typed containers; encode them with ``full_objects=True`` and decode with
    ``allow_objects=True``.
    """
    leaves = leaf_strategies(profile, nan, full_objects)
    leaf = st.one_of(*leaves.values())
    keys = hashable_keys(profile)

    def extend(children: S[Any]) -> S[Any]:
        objects = _objects(children, profile) if full_objects else None
        options: list[S[Any]] = [
            st.lists(children, max_size=4),
            st.dictionaries(keys, children, max_size=4),
            # Dictionaries Python cannot hold as a dict: keys 1 / 1.0 / true side by side,
            # and Array or Dictionary keys.
            st.lists(st.tuples(st.one_of(keys, st.sampled_from([1, 1.0, True, 0, 0.0, False]),
                                         st.lists(leaves[T.INT], max_size=2),
                                         st.dictionaries(texts(3), leaves[T.INT], max_size=1)),
                               children), max_size=4).map(Dictionary),
        ]
        if objects is not None:
            options.append(objects)
        if profile == "godot4":
            ctypes = container_types(profile, full_objects)
            options.append(ctypes.flatmap(lambda ct: st.lists(
                _typed_element(ct, leaves, children, objects), max_size=3).map(
                    lambda xs: TypedArray(ct, xs))))
            ktypes = key_container_types(profile, full_objects)
            key_leaves = leaf_strategies(profile, "none", full_objects)
            untyped = st.just(ContainerType())
            kv = st.one_of(st.tuples(ktypes, ctypes), st.tuples(ktypes, untyped),
                           st.tuples(untyped, ctypes))

            def typed_dicts(kt_vt: tuple[ContainerType, ContainerType]) -> S[Any]:
                kt, vt = kt_vt
                key = _typed_element(kt, key_leaves, children, None) if kt.is_typed else keys
                value = (_typed_element(vt, leaves, children, objects) if vt.is_typed
                         else children)
                return st.lists(st.tuples(key, value), max_size=3).map(
                    lambda pairs: TypedDictionary(kt, vt, pairs))

            options.append(kv.flatmap(typed_dicts))
        return st.one_of(*options)

    return st.recursive(leaf, extend, max_leaves=max_leaves)


def double_math_values(nan: NanMode = "any") -> S[Any]:
    """Godot 4 math values of a real_t=double build: any double as a component.

    Includes vector arrays holding 64-bit data (``itemsize=8``).
    """
    m = math_strategies(doubles(nan))
    packed = [
        _packed(PackedVector2Array, m[T.VECTOR2], itemsize=8),
        _packed(PackedVector3Array, m[T.VECTOR3], itemsize=8),
        _packed(PackedVector4Array, m[T.VECTOR4], itemsize=8),
    ]
    return st.one_of(*(m[t] for t in REAL_MATH), *packed)


# ---------------------------------------------------------------------------------------------
# Comparison helpers


def _float_same(a: float, b: float) -> bool:
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _pairs(d: Any) -> list[tuple[Any, Any]]:
    return list(d.items())


def same(a: Any, b: Any) -> bool:
    """Deep equality as Godot sees it, strict about types, with NaN equal to NaN.

    A ``dict`` and a plain :class:`Dictionary` with the same items in the same order count as
    the same (the decoder returns whichever can hold the keys).
    """
    ta, tb = type(a), type(b)
    plain = (dict, Dictionary)
    if ta in plain and tb in plain:
        pa, pb = _pairs(a), _pairs(b)
        return len(pa) == len(pb) and all(
            same(ka, kb) and same(va, vb) for (ka, va), (kb, vb) in zip(pa, pb, strict=True))
    if ta is not tb:
        return False
    if ta is float:
        return _float_same(a, b)
    if ta is TypedDictionary:
        return (a.key_type == b.key_type and a.value_type == b.value_type
                and same(Dictionary(a.items()), Dictionary(b.items())))
    if isinstance(a, list):
        if isinstance(a, TypedArray) and a.element_type != b.element_type:
            return False
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple):  # math types
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, PackedArray):
        return same(a.tolist(), b.tolist())
    if ta is Object:
        return a.class_name == b.class_name and same(list(a.properties.items()),
                                                     list(b.properties.items()))
    return bool(a == b)


def has_nan(v: Any) -> bool:
    """Whether a NaN sits anywhere in ``v`` (then ``==`` cannot compare it)."""
    if isinstance(v, float):
        return v != v
    if isinstance(v, str | bytes | int) or v is None:
        return False
    if isinstance(v, PackedArray):
        return has_nan(v.tolist())
    if isinstance(v, dict | Dictionary):
        return any(has_nan(k) or has_nan(x) for k, x in v.items())
    if isinstance(v, Object):
        return has_nan(list(v.properties.values()))
    if isinstance(v, list | tuple):
        return any(has_nan(x) for x in v)
    return False


def has_keys_python_cannot_compare(v: Any) -> bool:
    """Whether ``v`` holds a Dictionary keyed by something ``==`` cannot see through."""
    if isinstance(v, dict | Dictionary):
        return any(isinstance(k, PackedArray | Object | list | dict | Dictionary)
                   or has_keys_python_cannot_compare(k) or has_keys_python_cannot_compare(x)
                   for k, x in v.items())
    if isinstance(v, Object):
        return has_keys_python_cannot_compare(list(v.properties.values()))
    if isinstance(v, list):
        return any(has_keys_python_cannot_compare(x) for x in v)
    return False


@contextmanager
def numpy_off() -> Iterator[None]:
    """Packed arrays use :class:`array.array` for the duration, as without numpy."""
    saved = gtypes.numpy
    gtypes.numpy = None
    try:
        yield
    finally:
        gtypes.numpy = saved


def rebuild(v: Any) -> Any:
    """A copy of ``v`` whose packed arrays are built under the current numpy setting."""
    if isinstance(v, PackedArray):
        return type(v)(v.tolist(), itemsize=v.element_size)
    if isinstance(v, TypedArray):
        return TypedArray(v.element_type, [rebuild(x) for x in v])
    if type(v) is PackedStringArray:
        return PackedStringArray(v)
    if isinstance(v, list):
        return [rebuild(x) for x in v]
    if isinstance(v, TypedDictionary):
        return TypedDictionary(v.key_type, v.value_type,
                               [(rebuild(k), rebuild(x)) for k, x in v.items()])
    if isinstance(v, Dictionary):
        return Dictionary([(rebuild(k), rebuild(x)) for k, x in v.items()])
    if isinstance(v, dict):
        return {k: rebuild(x) for k, x in v.items()}
    if isinstance(v, Object):
        return Object(v.class_name, {k: rebuild(x) for k, x in v.properties.items()})
    return v


def f32_bits(x: float) -> bytes:
    return struct.pack("<f", x)
