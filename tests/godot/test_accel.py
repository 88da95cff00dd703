"""The C accelerator (``gameserde.godot._speedups``) against the pure-Python reference.

Every test runs the same input through the extension and through the reference
(``decoder.make_reader``/``encoder.make_writer``, forced with ``_accel.ENABLED = False``):
the bytes must be identical, the values equal and of identical types (floats bit for bit),
and the errors identical (class, message, offset, path). Where the extension is asked
directly (``_accel.decode_prefix``/``_accel.encode``) it must either agree with the reference
or give up (``None``); it must never succeed where the reference fails, and it must not give
up on well-formed input, so the fast path is what these tests exercise.
"""

from __future__ import annotations

import gc
import math
import os
import struct
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import _accel, decode_prefix, encode
from gameserde.godot import types as gt
from gameserde.godot.profiles import PROFILES, get_profile
from gameserde.godot.types import VariantType as T

from .strategies import double_math_values, numpy_off, rebuild, variants

PROFILE_NAMES = ("godot4", "godot3", "docs")

requires_ext = pytest.mark.skipif(not _accel.AVAILABLE,
                                  reason="the C accelerator is not built (no compiler?)")


def test_extension_built_in_ci() -> None:
    """CI must prove the fast path: the extension has to be there and switched on."""
    if os.environ.get("CI") != "true":
        pytest.skip("only enforced when CI=true")
    assert _accel.AVAILABLE, "gameserde.godot._speedups was not built by the install"
    assert _accel.ENABLED, "the accelerator is built but switched off (GAMESERDE_PURE?)"


# ---------------------------------------------------------------------------------------------
# Helpers


@contextmanager
def accel(enabled: bool) -> Iterator[None]:
    saved = _accel.ENABLED
    _accel.ENABLED = enabled and _accel.AVAILABLE
    try:
        yield
    finally:
        _accel.ENABLED = saved


def outcome(fn: Callable[[], Any]) -> tuple[Any, ...]:
    """The result of ``fn`` or a comparable description of what it raised."""
    try:
        return ("ok", fn())
    except DecodeError as e:
        return ("DecodeError", e.message, e.offset, e.path, e.format, str(e))
    except EncodeError as e:
        return ("EncodeError", e.message, e.path, e.format, str(e))
    except Exception as e:  # the reference may raise other errors (ValueError, KeyError ...)
        return (type(e).__name__, str(e))


def same(a: Any, b: Any) -> bool:
    """Equal and of identical types all the way down; floats compared bit for bit."""
    todo = [(a, b)]  # iterative: values may be nested thousands deep
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if struct.pack("<d", x) != struct.pack("<d", y):
                return False
        elif isinstance(x, list | tuple):
            if len(x) != len(y) or (isinstance(x, gt.TypedArray)
                                    and x.element_type != y.element_type):
                return False
            todo.extend(zip(x, y, strict=True))
        elif isinstance(x, dict | gt.Dictionary):
            if len(x) != len(y) or (isinstance(x, gt.Dictionary) and (
                    x.key_type, x.value_type) != (y.key_type, y.value_type)):
                return False
            for (kx, vx), (ky, vy) in zip(x.items(), y.items(), strict=True):
                todo += [(kx, ky), (vx, vy)]
        elif isinstance(x, gt.PackedArray):
            if x.element_size != y.element_size or x.tobytes() != y.tobytes():
                return False
        elif isinstance(x, gt.Object):
            if x.class_name != y.class_name:
                return False
            todo.append((x.properties, y.properties))
        elif x != y:
            return False
    return True


def same_outcome(fast: tuple[Any, ...], ref: tuple[Any, ...]) -> bool:
    if fast[0] == "ok" and ref[0] == "ok":
        return same(fast[1], ref[1])
    return fast == ref


def ref_decode(data: Any, **kw: Any) -> tuple[Any, ...]:
    with accel(False):
        return outcome(lambda: decode_prefix(data, **kw))


def api_decode(data: Any, **kw: Any) -> tuple[Any, ...]:
    with accel(True):
        return outcome(lambda: decode_prefix(data, **kw))


def direct_decode(data: Any, profile: str = "godot4", allow_objects: bool = False,
                  max_depth: int = 1024, offset: int = 0) -> Any:
    """The extension alone: ``(value, used)`` or ``None`` when it gives up."""
    buf = memoryview(data).cast("B")
    return _accel.decode_prefix(buf, get_profile(profile), allow_objects, max_depth, offset)


def check_decode(data: Any, *, must_accelerate: bool = False, **kw: Any) -> tuple[Any, ...]:
    """Both decoders agree on ``data``; return the reference outcome."""
    ref = ref_decode(data, **kw)
    api = api_decode(data, **kw)
    assert same_outcome(api, ref), (api, ref)
    if _accel.AVAILABLE:
        fast = direct_decode(data, **kw)
        if ref[0] != "ok":
            assert fast is None, f"the extension decoded {fast!r} where the reference raised {ref}"
        elif fast is not None:
            assert same(fast, ref[1]), (fast, ref[1])
        elif must_accelerate:
            pytest.fail(f"the extension gave up on well-formed input {bytes(data)[:64].hex()}")
    return ref


def check_encode(value: Any, *, must_accelerate: bool = False, **kw: Any) -> tuple[Any, ...]:
    """Both encoders agree on ``value``; return the reference outcome."""
    with accel(False):
        ref = outcome(lambda: encode(value, **kw))
    with accel(True):
        api = outcome(lambda: encode(value, **kw))
    assert api == ref, (api, ref)
    if _accel.AVAILABLE and ref[0] == "ok" and must_accelerate:
        prof = get_profile(kw.get("profile", "godot4"))
        fast = _accel.encode(value, prof, kw.get("full_objects", False),
                             kw.get("double_precision", False), kw.get("max_depth", 1024))
        assert fast == ref[1]
    return ref


# ---------------------------------------------------------------------------------------------
# Value strategies (one per profile; types the profile lacks only where errors are wanted)

F32 = st.floats(width=32)
ANY_FLOAT = st.one_of(
    st.floats(),  # NaN, infinities, -0.0, denormals
    F32,
    st.sampled_from([0.1, 16777217.0, 1e39, 5e-324, 3.4028234663852886e38, -0.0, math.nan,
                     struct.unpack("<d", b"\x01\x00\x00\x00\x00\x00\xf8\x7f")[0],
                     struct.unpack("<d", b"\x00\x00\x00\x00\x00\x00\xf8\xff")[0]]),
)
I32 = st.integers(-(1 << 31), (1 << 31) - 1)
I64 = st.integers(-(1 << 63), (1 << 63) - 1)
ANY_INT = st.one_of(I32, I64, st.sampled_from([(1 << 31) - 1, 1 << 31, -(1 << 31),
                                               -(1 << 31) - 1, (1 << 63) - 1, -(1 << 63)]))
# Components: mostly exact float32, sometimes doubles (rounded), ints (struct takes them)
REAL = st.one_of(F32, F32, st.floats(-1e30, 1e30), st.integers(-1000, 1000))
SPECIAL_TEXT = st.sampled_from(["", "a\0b", "\0", "\ufeffbom", "\ufeff\ufeffx", "é", "日本語",
                                "\U0001f600", "x" * 40, "key_" * 9])


def text_for(profile: str) -> st.SearchStrategy[str]:
    plain = st.text(max_size=12)
    if profile == "godot3":  # Godot 3 stores CESU surrogates: the profile keeps them
        surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
        plain = st.one_of(plain, st.text(st.one_of(surrogate, st.characters()), max_size=6))
    return st.one_of(plain, plain, SPECIAL_TEXT)


def math_for(profile: str) -> st.SearchStrategy[Any]:
    v2 = st.builds(gt.Vector2, REAL, REAL)
    v3 = st.builds(gt.Vector3, REAL, REAL, REAL)
    common = [
        v2, v3, st.builds(gt.Quaternion, REAL, REAL, REAL, REAL),
        st.builds(gt.Color, REAL, REAL, REAL, REAL),
        st.builds(gt.Rect2, v2, v2), st.builds(gt.Transform2D, v2, v2, v2),
        st.builds(gt.Plane, v3, REAL), st.builds(gt.AABB, v3, v3),
        st.builds(gt.Basis, v3, v3, v3), st.builds(gt.Transform3D, st.builds(gt.Basis, v3, v3, v3),
                                                   v3),
    ]
    if profile == "godot4":
        v2i = st.builds(gt.Vector2i, I32, I32)
        v4 = st.builds(gt.Vector4, REAL, REAL, REAL, REAL)
        common += [
            v2i, st.builds(gt.Vector3i, I32, I32, I32), st.builds(gt.Vector4i, I32, I32, I32, I32),
            v4, st.builds(gt.Rect2i, v2i, v2i), st.builds(gt.Projection, v4, v4, v4, v4),
        ]
    return st.one_of(*common)


def packed_for(profile: str) -> st.SearchStrategy[Any]:
    ints32 = st.lists(I32, max_size=5)
    reals = st.lists(F32, max_size=5)
    out = [
        st.builds(gt.PackedStringArray, st.lists(text_for("godot4"), max_size=4)),
        st.builds(gt.PackedInt32Array, ints32),
        st.builds(gt.PackedFloat32Array, reals),
        st.builds(gt.PackedVector2Array, st.lists(st.builds(gt.Vector2, F32, F32), max_size=3)),
        st.builds(gt.PackedVector3Array,
                  st.lists(st.builds(gt.Vector3, F32, F32, F32), max_size=3)),
        st.builds(gt.PackedColorArray,
                  st.lists(st.builds(gt.Color, F32, F32, F32, F32), max_size=3)),
        st.binary(max_size=9), st.binary(max_size=9).map(bytearray),
    ]
    if profile != "godot3":
        out += [st.builds(gt.PackedInt64Array, st.lists(I64, max_size=4)),
                st.builds(gt.PackedFloat64Array, st.lists(st.floats(), max_size=4))]
    if profile == "godot4":
        out.append(st.builds(gt.PackedVector4Array,
                             st.lists(st.builds(gt.Vector4, F32, F32, F32, F32), max_size=3)))
    return st.one_of(*out)


def handles_for(profile: str) -> st.SearchStrategy[Any]:
    names = st.lists(st.text(max_size=5), max_size=3).map(tuple)
    out = [
        st.builds(gt.NodePath, names, names, st.booleans()),
        st.builds(gt.RID, st.integers(0, (1 << 64) - 1) if profile == "godot4" else st.just(0)),
        st.builds(gt.EncodedObjectAsID, st.integers(1, (1 << 64) - 1)),
    ]
    if profile == "godot4":
        out += [st.builds(gt.StringName, st.text(max_size=6)), st.just(gt.Callable()),
                st.builds(gt.Signal, st.text(max_size=6), st.integers(0, (1 << 64) - 1))]
    return st.one_of(*out)


def leaves_for(profile: str) -> st.SearchStrategy[Any]:
    hot = st.one_of(st.none(), st.booleans(), ANY_INT, ANY_FLOAT, text_for(profile))
    return st.one_of(hot, hot, hot, math_for(profile), packed_for(profile), handles_for(profile))


def keys_for(profile: str) -> st.SearchStrategy[Any]:
    return st.one_of(text_for(profile), text_for(profile), I32, st.booleans(), st.none(),
                     st.floats(allow_nan=True), math_for(profile))


def values_for(profile: str) -> st.SearchStrategy[Any]:
    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        out = [
            st.lists(children, max_size=5),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(keys_for(profile), children, max_size=5),
            # keys Python merges but Godot keeps apart, and unhashable keys
            st.lists(st.tuples(st.one_of(st.sampled_from([1, 1.0, True, 0, 0.0, False, "1"]),
                                         st.lists(children, max_size=2)), children),
                     max_size=4).map(gt.Dictionary),
            st.builds(gt.Object, st.sampled_from(["Node", "Resource", ""]),
                      st.dictionaries(st.sampled_from(["a", "b", "name"]), children,
                                      max_size=3)),
        ]
        if profile == "godot4":
            out += [
                st.builds(gt.TypedArray, st.sampled_from([T.INT, "String", "Node"]),
                          st.lists(children, max_size=3)),
                st.builds(gt.TypedDictionary, st.sampled_from([T.STRING, "Node"]),
                          st.sampled_from([T.INT, T.NIL]),
                          st.lists(st.tuples(text_for("godot4"), children), max_size=3)),
            ]
        return st.one_of(*out)

    return st.recursive(leaves_for(profile), extend, max_leaves=25)


def options_for(profile: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "profile": st.just(profile),
        "full_objects": st.booleans(),
        "double_precision": st.booleans() if profile == "godot4" else st.just(False),
    })


DIFF = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------------------------
# Differential: encode and decode generated values


def _roundtrip(value: Any, opts: dict[str, Any]) -> None:
    ref = check_encode(value, **opts)
    event(f"reference encode: {ref[0]}")
    if ref[0] != "ok":
        return
    wire = ref[1]
    for allow_objects in (False, True):
        check_decode(wire, profile=opts["profile"], allow_objects=allow_objects,
                     must_accelerate=allow_objects)
    # trailing bytes are ignored, and an offset is honoured
    check_decode(b"\x00" * 3 + wire + b"junk", profile=opts["profile"], offset=3,
                 allow_objects=True, must_accelerate=True)


@requires_ext
@DIFF
@given(value=values_for("godot4"), opts=options_for("godot4"))
def test_roundtrip_godot4(value: Any, opts: dict[str, Any]) -> None:
    _roundtrip(value, opts)


@requires_ext
@DIFF
@given(value=values_for("godot3"), opts=options_for("godot3"))
def test_roundtrip_godot3(value: Any, opts: dict[str, Any]) -> None:
    _roundtrip(value, opts)


@requires_ext
@DIFF
@given(value=values_for("docs"), opts=options_for("docs"))
def test_roundtrip_docs(value: Any, opts: dict[str, Any]) -> None:
    _roundtrip(value, opts)


@requires_ext
@DIFF
@given(data=st.data(), profile=st.sampled_from(PROFILE_NAMES), full_objects=st.booleans())
def test_roundtrip_shared_variants(data: st.DataObject, profile: str, full_objects: bool) -> None:
    """The project's shared strategy (every type of each profile, valid values only)."""
    value = data.draw(variants(profile, full_objects=full_objects))  # type: ignore[arg-type]
    opts = {"profile": profile, "full_objects": full_objects, "double_precision": False}
    if profile == "godot4":
        opts["double_precision"] = data.draw(st.booleans())
    ref = check_encode(value, must_accelerate=True, **opts)
    assert ref[0] == "ok", ref
    check_decode(ref[1], profile=profile, allow_objects=True, must_accelerate=True)
    with numpy_off():  # packed arrays as array.array: same bytes, same values
        check_encode(rebuild(value), must_accelerate=True, **opts)
        check_decode(ref[1], profile=profile, allow_objects=True, must_accelerate=True)


@requires_ext
@DIFF
@given(value=st.lists(double_math_values(), max_size=4))
def test_double_math_values(value: list[Any]) -> None:
    for dp in (False, True):
        ref = check_encode(value, profile="godot4", double_precision=dp, must_accelerate=True)
        check_decode(ref[1], profile="godot4", must_accelerate=True)


class UserTuple(NamedTuple):
    a: Any
    b: Any


EXOTIC: list[Any] = [
    T.INT,                                  # an IntEnum: int subclass -> INT
    gt.StringName("sn"),                    # str subclass with its own type
    UserTuple(1, "x"),                      # a tuple subclass -> Array
    types.MappingProxyType({"a": 1}),       # a Mapping -> Dictionary
    memoryview(b"abcde"),                   # -> PackedByteArray
    gt.Vector3(True, 1, 2),                 # bool and int components
    gt.Vector2i(True, False),
    tuple.__new__(gt.Vector3, (1.0, 2.0)),  # wrong arity: the engine cannot store it
    gt.Vector2i(1 << 31, 0),                # out of int32
    gt.Vector2(1e39, 0.0),                  # past float32: stored as an infinity
    gt.Vector4(-1e39, 3.4028235677973366e38, 1 << 200, 0.0),
    gt.Color(1e300, 0.0, 0.0, 1.0),
    gt.Quaternion(math.nan, -math.inf, 1e-46, -0.0),
    gt.Vector2(1 << 2000, 0),               # int too large for a double
    gt.PackedStringArray(["a", gt.StringName("b"), "c"]),
    gt.PackedStringArray(["a", 3]),  # type: ignore[list-item]  # not a string
    gt.PackedStringArray(["\ud800"]),       # surrogates: godot3 only
    "\ud800x",                              # surrogates: godot3 only
    1 << 63, -(1 << 63) - 1, 1 << 64,       # past int64
    dict([(1, "a"), (1.0, "b")]),           # one key for Python
    {float("nan"): 1, float("nan"): 2},     # two keys for Python, one for Godot
    {gt.Vector2(float("nan"), 0): 1, gt.Vector2(float("nan"), 0): 2},
    {"a": 1, gt.StringName("a"): 2},        # equal text: one key for Godot
    {1: "int", 2: "keys", None: 0, 0.5: "f", gt.Vector2(): "v", "s": True},
    [set()], {"k": object()}, [1, [2, [3, complex(1, 2)]]],
    gt.Vector4(1, 2, 3, 4), gt.Projection(), gt.Signal("s", 1),  # not in every profile
    gt.TypedArray(T.INT, [1, 2]), gt.Object("Node", {"script": 5}),
]


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("value", EXOTIC, ids=lambda v: type(v).__name__)
def test_exotic_values(profile: str, value: Any) -> None:
    for full_objects in (False, True):
        for wrap in (lambda v: v, lambda v: [v], lambda v: {"k": [0, v]}):
            ref = check_encode(wrap(value), profile=profile, full_objects=full_objects)
            if ref[0] == "ok":
                check_decode(ref[1], profile=profile, allow_objects=True, must_accelerate=True)


BOUNDARY_SCALARS: list[Any] = [
    0, 1, -1, (1 << 31) - 1, 1 << 31, -(1 << 31), -(1 << 31) - 1, (1 << 63) - 1, -(1 << 63),
    0.0, -0.0, 0.5, 0.1, 1e39, 5e-324, 2.0 ** -149, 3.4028234663852886e38,
    3.4028235677973366e38, 16777216.0, 16777217.0, math.inf, -math.inf, math.nan,
    struct.unpack("<d", b"\x01\x00\x00\x00\x00\x00\xf8\x7f")[0],
    struct.unpack("<d", b"\x00\x00\x00\x00\x00\x00\xf8\xff")[0],
    True, False, None, "", "a", "\ufeff", "\0",
]


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_boundary_scalars(profile: str) -> None:
    for value in BOUNDARY_SCALARS:
        ref = check_encode(value, profile=profile, must_accelerate=True)
        check_decode(ref[1], profile=profile, must_accelerate=True)
        for make in (gt.Vector2, gt.Color, gt.Vector2i):  # as components too
            comp = value if value is not None else 0
            check_encode(make(comp, comp) if make is not gt.Color else make(comp, 0, 0, comp),
                         profile=profile)
    ref = check_encode(BOUNDARY_SCALARS, profile=profile, must_accelerate=True)
    check_decode(ref[1], profile=profile, must_accelerate=True)


@requires_ext
def test_numpy_scalars() -> None:
    np = pytest.importorskip("numpy")
    for value in (np.int64(5), np.int32(-7), np.float32(0.1), np.float64(1e39), np.bool_(True),
                  [np.int8(3), {"x": np.float16(1.5)}]):
        for profile in PROFILE_NAMES:
            check_encode(value, profile=profile)


@requires_ext
def test_double_precision_and_math_flag() -> None:
    value = [gt.Vector2(0.1, 2), gt.Vector3(1, 2, 3), gt.Vector4(1, 2, 3, 4),
             gt.Quaternion(0.1, 0.2, 0.3, 0.4), gt.Color(0.1, 0.2, 0.3, 0.4), gt.Vector2i(1, 2)]
    for dp in (False, True):
        ref = check_encode(value, profile="godot4", double_precision=dp, must_accelerate=True)
        for profile in ("godot4", "godot3", "docs"):  # 3.x and docs ignore the flag
            check_decode(ref[1], profile=profile)
    check_encode(value, profile="godot3", double_precision=True)  # ValueError, same


# ---------------------------------------------------------------------------------------------
# Differential: hostile input


def rich_value(profile: str) -> list[Any]:
    """A value with every type the profile has, plus hot containers around them."""
    items: list[Any] = [
        None, True, False, 0, -1, 1 << 40, 0.5, 0.1, math.nan, -0.0, "", "text", "é\0cut",
        "\ufeffbom", b"", b"abcde", bytearray(b"xy"),
        gt.Vector2(1, 2), gt.Vector3(1, 2, 3), gt.Quaternion(1, 2, 3, 4), gt.Color(1, 0, 0, 1),
        gt.Rect2(gt.Vector2(1, 2), gt.Vector2(3, 4)), gt.Transform2D(), gt.Plane(), gt.AABB(),
        gt.Basis(), gt.Transform3D(), gt.NodePath(("a", "b"), ("c",), True), gt.RID(),
        gt.EncodedObjectAsID(7), gt.PackedStringArray(["x", "", "yz"]),
        gt.PackedInt32Array([1, -2]), gt.PackedFloat32Array([0.5]),
        gt.PackedVector2Array([gt.Vector2(1, 2)]), gt.PackedVector3Array([gt.Vector3(1, 2, 3)]),
        gt.PackedColorArray([gt.Color()]),
        {"id": 1, "name": "n", "pos": gt.Vector3(1, 2, 3), "tags": ["a", "b"], "blob": b"xyz"},
        gt.Dictionary([(1, "int"), (1.0, "float"), (True, "bool"), ([1], "list")]),
        gt.Object("Node", {"name": "n", "child": [1, 2]}),
    ]
    if profile != "godot3":
        items += [gt.PackedInt64Array([1 << 40]), gt.PackedFloat64Array([0.1])]
    if profile == "godot4":
        items += [gt.Vector2i(1, 2), gt.Vector3i(1, 2, 3), gt.Vector4i(1, 2, 3, 4),
                  gt.Vector4(1, 2, 3, 4), gt.Rect2i(), gt.Projection(), gt.StringName("sn"),
                  gt.Callable(), gt.Signal("s", 3), gt.RID(5),
                  gt.PackedVector4Array([gt.Vector4()]), gt.TypedArray(T.INT, [1, 2]),
                  gt.TypedArray("Node", []), gt.TypedDictionary(T.STRING, T.INT, [("a", 1)])]
    return [items, {"nested": items[:8], 3: items[8:20]}]


RICH = {p: encode(rich_value(p), profile=p, full_objects=True) for p in PROFILE_NAMES}
RICH[
    "godot4-double"] = encode(rich_value("godot4"), profile="godot4", full_objects=True,
                              double_precision=True)


def _profile_of(key: str) -> str:
    return key.split("-")[0]


@requires_ext
@pytest.mark.parametrize("key", sorted(RICH))
def test_rich_buffers_accelerate(key: str) -> None:
    profile = _profile_of(key)
    ref = check_decode(RICH[key], profile=profile, allow_objects=True, must_accelerate=True)
    assert ref[0] == "ok"
    check_decode(RICH[key], profile=profile, allow_objects=False)  # objects refused: an error


@requires_ext
@pytest.mark.parametrize("key", sorted(RICH))
def test_every_truncation(key: str) -> None:
    profile = _profile_of(key)
    data = RICH[key]
    for n in range(len(data)):
        check_decode(data[:n], profile=profile, allow_objects=True)
        check_decode(bytearray(data[:n]), profile=profile, allow_objects=True)


@requires_ext
@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(RICH)),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1,
                      max_size=4),
       allow_objects=st.booleans())
def test_random_mutations(key: str, edits: list[tuple[int, int]], allow_objects: bool) -> None:
    data = bytearray(RICH[key])
    for index, byte in edits:
        data[index % len(data)] = byte
    check_decode(bytes(data), profile=_profile_of(key), allow_objects=allow_objects)


@requires_ext
@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(RICH)), start=st.integers(0, 10**6),
       word=st.sampled_from([0, 1, 3, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                             0x40000000, 0x10000, 0x30000, 0xF0000]))
def test_word_mutations(key: str, start: int, word: int) -> None:
    """Overwrite one aligned word (a header, a count, a length) with a boundary value."""
    data = bytearray(RICH[key])
    at = (start % (len(data) // 4)) * 4
    data[at:at + 4] = struct.pack("<I", word)
    check_decode(bytes(data), profile=_profile_of(key), allow_objects=True)


@requires_ext
@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=64), profile=st.sampled_from(PROFILE_NAMES))
@example(data=b"", profile="godot4")
@example(data=b"\x04\x00\x00\x00\x03\x00\x00\x00abc", profile="godot4")  # missing pad
@example(data=b"\x04\x00\x00\x00\x03\x00\x00\x00ab\xff\x00", profile="godot4")
@example(data=b"\x04\x00\x00\x00\x03\x00\x00\x00\xed\xa0\x80\x00", profile="godot3")
@example(data=b"\x04\x00\x00\x00\x03\x00\x00\x00\xed\xa0\x80\x00", profile="godot4")
@example(data=b"\x04\x00\x00\x00\x04\x00\x00\x00a\x00\xff\xfe", profile="godot4")
@example(data=b"\x04\x00\x00\x00\x04\x00\x00\x00\xff\x00ab", profile="godot4")
@example(data=b"\x1d\x00\x00\x00\x03\x00\x00\x00abc", profile="godot4")  # pad-less bytes
@example(data=b"\x02\xff\x00\x00\x05\x00\x00\x00", profile="godot3")  # byte 1 ignored
def test_random_bytes(data: bytes, profile: str) -> None:
    for allow_objects in (False, True):
        check_decode(data, profile=profile, allow_objects=allow_objects)


HEADER_FLAGS = (0, 0xFF00, 0x10000, 0x20000, 0x30000, 0x40000, 0x80000, 0xC0000, 0xF0000,
                0xFFFF0000, 0x80000000)


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_header_flags_on_every_type(profile: str) -> None:
    """Every wire id (and a few past the end) with every flag pattern, over a few payloads."""
    rich = RICH[profile]
    payloads = [bytes(range(64)), b"\x01\x00\x00\x00" * 16,
                b"\x02\x00\x00\x00" + b"\x01\x00\x00\x00" * 8 + b"\x00\x00\x80\x3f" * 8,
                b"\x01\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00k\x00\x00\x00" * 4,
                rich[4:200]]
    n_types = len(PROFILES[profile].by_id)
    for tid in range(n_types + 2):
        for flags in HEADER_FLAGS:
            for payload in payloads:
                for allow_objects in (False, True):
                    check_decode(_hdr(tid, flags) + payload, profile=profile,
                                 allow_objects=allow_objects)


def _hdr(tid: int, flags: int = 0) -> bytes:
    return struct.pack("<I", tid | flags)


def huge_claims(profile: str) -> list[bytes]:
    """Length and count fields claiming up to 4 GiB, over a few bytes of input."""
    ids = PROFILES[profile].wire_id
    out = []
    for n in (0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFC, 0x40000000, 0x3FFFFFFF):
        count = struct.pack("<I", n)
        for vt in (T.STRING, T.ARRAY, T.DICTIONARY, T.PACKED_BYTE_ARRAY,
                   T.PACKED_STRING_ARRAY, T.PACKED_INT32_ARRAY, T.PACKED_FLOAT32_ARRAY,
                   T.PACKED_VECTOR3_ARRAY, T.PACKED_COLOR_ARRAY, T.PACKED_INT64_ARRAY):
            if vt in ids:
                out.append(_hdr(ids[vt]) + count + b"\x00" * 12)
                out.append(_hdr(ids[T.ARRAY]) + b"\x01\x00\x00\x00" + _hdr(ids[vt]) + count)
        out.append(_hdr(ids[T.NODE_PATH]) + struct.pack("<III", n | 0x80000000, n, 0))
        out.append(_hdr(ids[T.OBJECT]) + b"\x01\x00\x00\x00A\x00\x00\x00" + count)
    return out


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_huge_claimed_lengths(profile: str) -> None:
    for data in huge_claims(profile):
        for allow_objects in (False, True):
            check_decode(data, profile=profile, allow_objects=allow_objects)


def nested(profile: str, depth: int, container: T = T.ARRAY) -> bytes:
    ids = PROFILES[profile].wire_id
    if container == T.ARRAY:
        level = _hdr(ids[T.ARRAY]) + b"\x01\x00\x00\x00"
    else:  # {"k": ...}
        level = _hdr(ids[T.DICTIONARY]) + b"\x01\x00\x00\x00" + _hdr(ids[T.STRING]) + \
            b"\x01\x00\x00\x00k\x00\x00\x00"
    return level * depth + _hdr(ids[T.NIL])


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, list | dict):
        value = value[0] if isinstance(value, list) else value["k"]
        depth += 1
    return depth


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("container", [T.ARRAY, T.DICTIONARY])
def test_deep_nesting(profile: str, container: T) -> None:
    # 10**6 levels: both stop at the depth limit with the same error
    ref = check_decode(nested(profile, 10**6, container), profile=profile)
    assert ref[0] == "DecodeError"
    # exactly at and just past the default limit
    assert check_decode(nested(profile, 1024, container), profile=profile,
                        must_accelerate=True)[0] == "ok"
    assert check_decode(nested(profile, 1025, container), profile=profile)[0] == "DecodeError"
    # deeper than the C recursion cap (1500): the extension hands the rest to Python
    data = nested(profile, 2500, container)
    with accel(False):
        ref_value, ref_used = decode_prefix(data, profile=profile, max_depth=3000)
    fast = direct_decode(data, profile=profile, max_depth=3000)
    assert fast is not None and fast[1] == ref_used == len(data)
    assert depth_of(fast[0]) == depth_of(ref_value) == 2500


@requires_ext
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_deep_values_encode(profile: str) -> None:
    value: Any = None
    for _ in range(10**6):
        value = [value]
    assert check_encode(value, profile=profile)[0] == "EncodeError"
    value = None
    for _ in range(2500):
        value = {"k": value}
    ref = check_encode(value, profile=profile, max_depth=3000, must_accelerate=True)
    assert ref[0] == "ok"
    check_decode(ref[1], profile=profile, max_depth=3000, must_accelerate=True)
    check_encode(value, profile=profile, max_depth=2499)


@requires_ext
def test_offsets_and_buffers() -> None:
    data = RICH["godot4"]
    for offset in (-4, -1, 0, 1, 4, len(data) - 4, len(data), len(data) + 1):
        check_decode(data, profile="godot4", allow_objects=True, offset=offset)
    for buf in (bytearray(data), memoryview(data), memoryview(bytearray(data)).toreadonly()):
        check_decode(buf, profile="godot4", allow_objects=True, must_accelerate=True)
    for max_depth in (-1, 0, 1, 2, 3):
        check_decode(data, profile="godot4", allow_objects=True, max_depth=max_depth)
        check_encode(rich_value("godot4"), profile="godot4", full_objects=True,
                     max_depth=max_depth)


# ---------------------------------------------------------------------------------------------
# Details of the fast path


@requires_ext
def test_key_cache_is_exact() -> None:
    """Repeated short keys are shared objects; equal text is all they have in common."""
    rows = [{"id": i, "name": f"n{i}", "x" * 32: 1, "y" * 33: 2, "a\0b": 3, "é": 4}
            for i in range(50)]
    rows.append({"id\0junk": 0, "\ufeffid": 1})  # cut at NUL, BOM dropped: both read "id"
    # many keys of one length: they share cache slots, and must never be mistaken
    rows += [{f"k{i:04d}": i, f"{i:04d}k": -i} for i in range(3000)]
    rows.append({f"k{i:04d}": i for i in range(3000)})
    for profile in PROFILE_NAMES:
        wire = encode(rows, profile=profile)
        ref = check_decode(wire, profile=profile, must_accelerate=True)
        decoded = ref[1][0]
        assert list(decoded[7]) == ["id", "name", "x" * 32, "y" * 33, "a", "é"]
        assert decoded[50] == {"id": 1}  # two keys Godot reads as one: the later value wins


def _entries(*pairs: tuple[Any, Any]) -> bytes:
    """A Dictionary's bytes with exactly these entries, repeated keys included."""
    body = b"".join(encode(k) + encode(v) for k, v in pairs)
    return struct.pack("<II", 27, len(pairs)) + body


def _raw_string(raw: bytes) -> bytes:
    return struct.pack("<Ii", 4, len(raw)) + raw + bytes(-len(raw) % 4)


@requires_ext
def test_short_strings_every_length_and_cut() -> None:
    """Strings read a word at a time: every length around the word and cache limits, NULs
    all through them, non-ASCII bytes, as keys and values, read twice (the cache is shared by
    later calls), and at the very end of the buffer."""
    raws = []
    for n in range(41):
        text = bytes(0x61 + i % 26 for i in range(n))
        raws += [text, text[:-1] + "é".encode()]
        raws += [text[:i] + b"\0" + text[i + 1:] for i in range(0, n, 3)]
    raws += ["\ufeffbom".encode(), b"ab\0\xff", b"\x7f" * 9]
    values = b"".join(_raw_string(r) for r in raws)
    array = struct.pack("<II", 28, len(raws)) + values
    keys = struct.pack("<II", 27, len(raws)) + b"".join(
        _raw_string(r) + encode(i) for i, r in enumerate(raws))
    for data in (array, keys, array, keys):
        check_decode(data, must_accelerate=True)
    for r in [*raws, b"\xff", b"a\xc3", b"\x80" + b"a" * 15]:  # bad UTF-8: an error
        check_decode(_raw_string(r))
        check_decode(_raw_string(r)[:-1])  # the pad is cut short: an error


@requires_ext
@pytest.mark.parametrize("pairs", [
    [("a", 1), ("b", 2), ("a", 3)],                       # a repeated key: first place, last value
    [("a", 1), ("b", 2), (7, 3)],                         # str keys, then another type
    [("a", 1), ("a", 2), (1, 3), (1.0, 4), (True, 5)],    # ... with Godot-distinct numbers
    [("a", 1), ("a", 2), ([1], 3), ("a", 4)],             # ... with an Array key
    [("a", 1), (gt.StringName("a"), 2)],                  # String and StringName: one key
    [(gt.StringName("a"), 1), ("a", 2), ("b", 3)],
    [(1, "x"), ("a", "y")],
    [("x" * 40, 1), ("x" * 40, 2), ("y", 3)],             # long (uncached) keys
    [("é", 1), ("é", 2)],
    [],
], ids=lambda pairs: repr(pairs)[:40])
def test_dictionary_keys_match_the_reference(pairs: list[tuple[Any, Any]]) -> None:
    data = _entries(*pairs)
    for _ in range(2):
        check_decode(data, must_accelerate=True)
        check_decode(struct.pack("<II", 28, 3) + data * 3, must_accelerate=True)


@requires_ext
def test_gc_state_restored() -> None:
    data = RICH["godot4"]
    assert gc.isenabled()
    direct_decode(data, allow_objects=True)
    assert gc.isenabled()
    direct_decode(data[:-3], allow_objects=True)  # an error on the way
    assert gc.isenabled()
    gc.disable()
    try:
        direct_decode(data, allow_objects=True)
        assert not gc.isenabled()
    finally:
        gc.enable()


@requires_ext
def test_vectors_are_proper_instances() -> None:
    wire = encode([gt.Vector3(1, 2, 3), gt.Color(), gt.Vector2i(4, 5)])
    fast = direct_decode(wire)
    assert fast is not None
    v3, color, v2i = fast[0]
    assert type(v3) is gt.Vector3 and v3 == gt.Vector3(1.0, 2.0, 3.0) and v3.z == 3.0
    assert hash(v3) == hash(gt.Vector3(1.0, 2.0, 3.0)) and v3 != (1.0, 2.0, 3.0)
    assert type(color) is gt.Color and color.a == 1.0
    assert type(v2i) is gt.Vector2i and v2i == gt.Vector2i(4, 5)


def test_pure_switch() -> None:
    """``GAMESERDE_PURE=1`` turns the extension off; the codec still works."""
    code = ("from gameserde.godot import _accel, decode, encode\n"
            "assert decode(encode({'a': [1, 2.5]})) == {'a': [1, 2.5]}\n"
            "print(_accel.ENABLED)")
    env = {**os.environ, "GAMESERDE_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"
    env["GAMESERDE_PURE"] = "0"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == str(_accel.AVAILABLE)
