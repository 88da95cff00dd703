"""Round trips of arbitrary Variants, the encoder's exact choices (spec §5) and the decoder's
leniency (spec §7).

Every property runs twice: with numpy (packed arrays are numpy views) and with numpy switched
off (``gameserde.godot.types.numpy = None``: packed arrays are :class:`array.array`); both paths
must give the same bytes and equal values.
"""

from __future__ import annotations

import array
import base64
import json
import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerType,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
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
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    base64_to_variant,
    decode,
    decode_prefix,
    encode,
    from_jsonable,
    get_var,
    iter_packets,
    iter_vars,
    put_packet,
    store_var,
    to_jsonable,
    variant_to_base64,
)
from gameserde.godot import types as gtypes

from .strategies import (
    PROFILE_NAMES,
    ProfileName,
    double_math_values,
    has_keys_python_cannot_compare,
    has_nan,
    numpy_off,
    rebuild,
    same,
    variants,
)

PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CASES: list[tuple[ProfileName, bool]] = [
    ("godot4", False), ("godot4", True), ("godot3", False), ("godot3", True),
    ("docs", False), ("docs", True),
]
CASE_IDS = [f"{p}{'-full' if f else ''}" for p, f in CASES]


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def dumps(obj: Any) -> str:
    """Strict JSON text (a bare NaN or Infinity would make it invalid)."""
    return json.dumps(obj, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def check_roundtrip(v: Any, profile: ProfileName, full: bool) -> bytes:
    """decode(encode(v)) == v and encode(decode(encode(v))) == encode(v), with and without
    numpy; returns the bytes."""
    raw = encode(v, profile=profile, full_objects=full)
    back, used = decode_prefix(raw, profile=profile, allow_objects=full)
    assert used == len(raw)
    assert same(back, v), (v, back)
    if not has_nan(v) and not has_keys_python_cannot_compare(v):
        assert back == v
    assert encode(back, profile=profile, full_objects=full) == raw

    with numpy_off():
        v_off = rebuild(v)
        assert encode(v_off, profile=profile, full_objects=full) == raw
        back_off = decode(raw, profile=profile, allow_objects=full)
        assert encode(back_off, profile=profile, full_objects=full) == raw
        json_off = dumps(to_jsonable(back_off))
    assert same(back_off, back)
    assert dumps(to_jsonable(back)) == json_off
    return raw


# ---------------------------------------------------------------------------------------------
# Property round trips


@pytest.mark.parametrize(("profile", "full"), CASES, ids=CASE_IDS)
@PROPERTY
@given(data=st.data())
def test_binary_roundtrip(profile: ProfileName, full: bool, data: st.DataObject) -> None:
    v = data.draw(variants(profile, full_objects=full))
    check_roundtrip(v, profile, full)


JSON_CASES: list[tuple[ProfileName, bool]] = [
    ("godot4", False), ("godot4", True), ("godot3", True), ("docs", True)]


@pytest.mark.parametrize("use_numpy", [True, False], ids=["numpy", "no-numpy"])
@pytest.mark.parametrize(("profile", "full"), JSON_CASES,
                         ids=[f"{p}{'-full' if f else ''}" for p, f in JSON_CASES])
@settings(PROPERTY, max_examples=75)
@given(data=st.data())
def test_json_roundtrip(profile: ProfileName, full: bool, use_numpy: bool,
                        data: st.DataObject) -> None:
    """to_json is plain JSON (no bare NaN/inf) and from_json gives the value and bytes back;
    without numpy the same JSON text comes out and reads back to the same bytes."""
    v = data.draw(variants(profile, full_objects=full, nan="canonical"))
    raw = encode(v, profile=profile, full_objects=full)
    text = dumps(to_jsonable(v))
    if use_numpy:
        back = from_jsonable(json.loads(text))
        assert same(back, v), (v, back)
        assert encode(back, profile=profile, full_objects=full) == raw
        assert dumps(to_jsonable(decode(raw, profile=profile, allow_objects=full))) == text
        return
    with numpy_off():
        v_off = rebuild(v)
        assert dumps(to_jsonable(v_off)) == text
        back_off = from_jsonable(json.loads(text))
        assert encode(back_off, profile=profile, full_objects=full) == raw
        assert dumps(to_jsonable(back_off)) == text
        assert dumps(to_jsonable(decode(raw, profile=profile, allow_objects=full))) == text
    assert same(back_off, v)


@FEW
@given(v=double_math_values())
def test_double_precision_roundtrip(v: Any) -> None:
    """A real_t=double Godot 4 build: any double survives, bit 16 marks the 64-bit layout."""
    raw = encode(v, double_precision=True)
    assert struct.unpack_from("<I", raw)[0] & 0xFFFF0000 == 1 << 16
    back = decode(raw)
    assert same(back, v)
    assert encode(back, double_precision=True) == raw
    with numpy_off():
        v_off = rebuild(v)
        assert encode(v_off, double_precision=True) == raw
        back_off = decode(raw)
        assert encode(back_off, double_precision=True) == raw
    assert same(back_off, v)


@FEW
@given(v=double_math_values(nan="canonical"))
def test_double_precision_json_roundtrip(v: Any) -> None:
    raw = encode(v, double_precision=True)
    back = from_jsonable(json.loads(dumps(to_jsonable(decode(raw)))))
    assert encode(back, double_precision=True) == raw


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@FEW
@given(data=st.data(), big_endian=st.booleans())
def test_store_var_roundtrip(profile: ProfileName, data: st.DataObject,
                             big_endian: bool) -> None:
    values = data.draw(st.lists(variants(profile, max_leaves=6), max_size=4))
    stream = b"".join(store_var(v, big_endian=big_endian, profile=profile) for v in values)
    back = list(iter_vars(stream, big_endian=big_endian, profile=profile))
    assert len(back) == len(values)
    assert all(same(a, b) for a, b in zip(back, values, strict=True))
    pos = 0
    for v in values:
        one, size = get_var(stream, offset=pos, big_endian=big_endian, profile=profile)
        body = encode(v, profile=profile)
        assert size == 4 + len(body)
        order = ">I" if big_endian else "<I"
        assert stream[pos:pos + 4] == struct.pack(order, len(body))
        assert stream[pos + 4:pos + size] == body
        assert same(one, v)
        pos += size
    with numpy_off():
        stream_off = b"".join(store_var(rebuild(v), big_endian=big_endian, profile=profile)
                              for v in values)
        back_off = list(iter_vars(stream, big_endian=big_endian, profile=profile))
    assert stream_off == stream
    assert all(same(a, b) for a, b in zip(back_off, values, strict=True))


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@FEW
@given(data=st.data())
def test_packet_and_base64_roundtrip(profile: ProfileName, data: st.DataObject) -> None:
    values = data.draw(st.lists(variants(profile, max_leaves=6), max_size=4))
    stream = b"".join(put_packet(v, profile=profile) for v in values)
    # PacketPeerStream's prefix is little-endian whatever the peer's endianness.
    assert stream == b"".join(store_var(v, profile=profile) for v in values)
    back = list(iter_packets(stream, profile=profile))
    assert all(same(a, b) for a, b in zip(back, values, strict=True))
    for v in values:
        text = variant_to_base64(v, profile=profile)
        assert base64.b64decode(text) == encode(v, profile=profile)
        assert same(base64_to_variant(text, profile=profile), v)
        assert same(base64_to_variant(text.encode() + b"\n", profile=profile), v)
        with numpy_off():
            assert variant_to_base64(rebuild(v), profile=profile) == text
            assert same(base64_to_variant(text, profile=profile), v)


def test_numpy_off_really_uses_array_module() -> None:
    raw = encode([PackedInt32Array([1, 2]), PackedVector3Array([(1.0, 2.0, 3.0)])])
    with numpy_off():
        a, b = decode(raw)
        assert isinstance(a.array, array.array) and isinstance(b.array, array.array)
        assert a.tolist() == [1, 2] and b.tolist() == [Vector3(1.0, 2.0, 3.0)]
        made = PackedVector4Array([(1.0, 2.0, 3.0, 4.0)])
        assert isinstance(made.array, array.array) and len(made) == 1
    a, b = decode(raw)
    assert isinstance(a.array, np.ndarray) and isinstance(b.array, np.ndarray)


def test_packet_size_limit() -> None:
    big = b"x" * 70000
    with pytest.raises(EncodeError):
        put_packet(big)
    assert put_packet(b"x" * 10, max_size=20)[:4] == struct.pack("<I", 20)
    with pytest.raises(EncodeError):
        put_packet(b"x" * 10, max_size=19)


def test_spec_framing_examples() -> None:
    """§8: the String "hello" from Godot 3.2.3's framings."""
    assert store_var("hello") == h("10000000 04000000 05000000 68656c6c 6f000000")
    assert store_var("hello", big_endian=True)[:8] == h("00000010 04000000")
    assert put_packet("hello") == store_var("hello")
    assert variant_to_base64("hello") == "BAAAAAUAAABoZWxsbwAAAA=="
    assert base64_to_variant("BAAAAAUAAABoZWxsbwAAAA==") == "hello"


# ---------------------------------------------------------------------------------------------
# Encoder choices (spec §5)


def f32(x: float) -> bytes:
    return struct.pack("<f", x)


def f64(x: float) -> bytes:
    return struct.pack("<d", x)


@pytest.mark.parametrize(("value", "wire"), [
    (0, "02000000 00000000"),
    (-1, "02000000 ffffffff"),
    (2**31 - 1, "02000000 ffffff7f"),
    (-(2**31), "02000000 00000080"),
    (2**31, "02000100 0000008000000000"),
    (-(2**31) - 1, "02000100 ffffff7fffffffff"),
    (2**63 - 1, "02000100 ffffffffffffff7f"),
    (-(2**63), "02000100 0000000000000080"),
])
def test_int_width(value: int, wire: str) -> None:
    assert encode(value) == h(wire)
    assert decode(h(wire)) == value


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 2**64])
def test_int_past_64_bits(value: int) -> None:
    with pytest.raises(EncodeError):
        encode(value)


FLOAT32 = [0.0, -0.0, 1.0, 0.15625, math.inf, -math.inf, 3.4028234663852886e38,
           1.1754943508222875e-38, 2.0**-149, 16777216.0]
FLOAT64 = [0.1, 16777217.0, 1e39, 5e-324, 0.33333333333333333, -1e300]


@pytest.mark.parametrize("value", FLOAT32)
def test_float_32bit(value: float) -> None:
    raw = encode(value)
    assert raw == h("03000000") + f32(value)
    back = decode(raw)
    assert back == value and math.copysign(1, back) == math.copysign(1, value)


def test_negative_zero_bytes() -> None:
    assert encode(-0.0) == h("03000000 00000080")


@pytest.mark.parametrize("value", FLOAT64)
def test_float_64bit(value: float) -> None:
    raw = encode(value)
    assert raw == h("03000100") + f64(value)
    assert decode(raw) == value


@pytest.mark.parametrize("bits", [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                                  0x7FF8DEADBEEF0001, 0xFFFFFFFFFFFFFFFF])
def test_nan_is_64bit_with_payload_and_sign(bits: int) -> None:
    nan = struct.unpack("<d", struct.pack("<Q", bits))[0]
    raw = encode(nan)
    assert raw == h("03000100") + struct.pack("<Q", bits)
    back = decode(raw)
    assert struct.pack("<d", back) == struct.pack("<Q", bits)


def test_nan_bytes_from_spec() -> None:
    assert encode(math.nan) == h("03000100 000000000000f87f")
    assert encode(-math.nan) == h("03000100 000000000000f8ff")


def test_nil_bool_string() -> None:
    assert encode(None) == h("00000000")
    assert encode(True) == h("01000000 01000000")
    assert encode(False) == h("01000000 00000000")
    assert encode("abc") == h("04000000 03000000 61626300")
    assert encode("") == h("04000000 00000000")
    assert encode("abcd") == h("04000000 04000000 61626364")
    assert encode("é") == h("04000000 02000000 c3a90000")
    assert encode(StringName("ab")) == h("15000000 02000000 61620000")


def test_packed_string_array_nul() -> None:
    assert encode(PackedStringArray(["abc"])) == h("22000000 01000000 04000000 61626300")
    assert encode(PackedStringArray([""])) == h("22000000 01000000 01000000 00000000")
    assert encode(PackedStringArray(["abcd"])) == h(
        "22000000 01000000 05000000 61626364 00000000")
    assert encode(PackedStringArray(["abc"]), profile="godot3") == h(
        "17000000 01000000 04000000 61626300")


def test_packed_string_array_docs_profile_no_nul() -> None:
    raw = encode(PackedStringArray(["abc", ""]), profile="docs")
    assert raw == h("19000000 02000000 03000000 61626300 00000000")
    assert decode(raw, profile="docs") == PackedStringArray(["abc", ""])


def test_null_object_is_nil() -> None:
    assert encode(None) == h("00000000")
    assert encode([None]) == h("1c000000 01000000 00000000")
    # An object id of 0 (a null or freed object) decodes to null.
    assert decode(h("18000100 0000000000000000")) is None


def test_object_as_id() -> None:
    assert encode(EncodedObjectAsID(0x1122334455667788)) == h("18000100 8877665544332211")
    assert encode(EncodedObjectAsID(5), profile="godot3") == h("11000100 0500000000000000")
    with pytest.raises(EncodeError):
        encode(Object("Node", {}))  # full objects need full_objects=True


def test_full_object_godot3_example() -> None:
    """§4: Godot 3.2.3's ``var2bytes(Reference.new(), true)``."""
    raw = h("11000000 09000000 5265666572656e63 65000000 01000000 06000000 736372697074 0000"
            "00000000")
    value = Object("Reference", {"script": None})
    assert encode(value, profile="godot3", full_objects=True) == raw
    assert decode(raw, profile="godot3", allow_objects=True) == value
    with pytest.raises(DecodeError):
        decode(raw, profile="godot3")  # full objects need allow_objects


BASIS = Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))


def floats32(*xs: float) -> bytes:
    return struct.pack(f"<{len(xs)}f", *xs)


def test_basis_row_major() -> None:
    assert encode(BASIS) == h("11000000") + floats32(1, 4, 7, 2, 5, 8, 3, 6, 9)
    assert encode(BASIS, profile="godot3") == h("0c000000") + floats32(1, 4, 7, 2, 5, 8, 3, 6, 9)
    t = Transform3D(BASIS, Vector3(10, 11, 12))
    assert encode(t) == h("12000000") + floats32(1, 4, 7, 2, 5, 8, 3, 6, 9, 10, 11, 12)
    assert decode(encode(t)) == t


def test_docs_profile_column_major() -> None:
    assert encode(BASIS, profile="docs") == h("0c000000") + floats32(*range(1, 10))
    t = Transform3D(BASIS, Vector3(10, 11, 12))
    assert encode(t, profile="docs") == h("0d000000") + floats32(*range(1, 13))
    assert decode(encode(t, profile="docs"), profile="docs") == t


def test_math_layouts() -> None:
    assert encode(Vector2(0.1, 2)) == h("05000000 cdcccc3d 00000040")
    assert encode(Rect2(Vector2(1, 2), Vector2(3, 4))) == h("07000000") + floats32(1, 2, 3, 4)
    assert encode(Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))) == (
        h("0b000000") + floats32(1, 2, 3, 4, 5, 6))
    assert encode(Plane(Vector3(1, 2, 3), 4)) == h("0e000000") + floats32(1, 2, 3, 4)
    assert encode(Quaternion(1, 2, 3, 4)) == h("0f000000") + floats32(1, 2, 3, 4)
    assert encode(AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))) == (
        h("10000000") + floats32(1, 2, 3, 4, 5, 6))
    proj = Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12),
                      Vector4(13, 14, 15, 16))
    assert encode(proj) == h("13000000") + floats32(*range(1, 17))
    assert encode(Color(1, 0.5, 0.25, 1)) == h("14000000") + floats32(1, 0.5, 0.25, 1)
    assert encode(Vector2i(-1, 2)) == h("06000000 ffffffff 02000000")
    assert encode(Rect2i(Vector2i(1, 2), Vector2i(3, 4))) == h(
        "08000000 01000000 02000000 03000000 04000000")
    assert encode(Vector3i(1, 2, 3)) == h("0a000000 01000000 02000000 03000000")
    assert encode(Vector4i(1, 2, 3, 4)) == h("0d000000 01000000 02000000 03000000 04000000")


def test_godot3_and_docs_ids() -> None:
    assert encode(Vector2(1, 2), profile="godot3")[:4] == h("05000000")
    assert encode(Rect2(), profile="godot3")[:4] == h("06000000")
    assert encode(Color(), profile="godot3")[:4] == h("0e000000")
    assert encode(NodePath(("a",)), profile="godot3")[:4] == h("0f000000")
    assert encode(RID(), profile="godot3") == h("10000000")
    assert encode({}, profile="godot3") == h("12000000 00000000")
    assert encode([], profile="godot3") == h("13000000 00000000")
    assert encode(b"", profile="godot3") == h("14000000 00000000")
    assert encode(PackedFloat32Array([1.0]), profile="godot3") == h("16000000 01000000 0000803f")
    assert encode(PackedColorArray([]), profile="godot3") == h("1a000000 00000000")
    assert encode(PackedInt64Array([1]), profile="docs") == h("16000000 01000000 01000000"
                                                              "00000000")
    assert encode(PackedColorArray([]), profile="docs") == h("1c000000 00000000")
    for value in (Vector2i(), StringName("a"), Signal(), Callable(), PackedInt64Array([]),
                  PackedVector4Array([]), TypedArray("int", [])):
        with pytest.raises(EncodeError):
            encode(value, profile="godot3")
    with pytest.raises(EncodeError):
        encode(Vector4(), profile="docs")


def test_node_path_bytes() -> None:
    raw = encode(NodePath(("a",)))
    assert raw == h("16000000 01000080 00000000 00000000 01000000 61000000")
    raw = encode(NodePath.parse("/root/b:c"))
    assert raw == h("16000000 02000080 01000000 01000000 04000000 726f6f74 01000000 62000000"
                    "01000000 63000000")


def test_rid_callable_signal_bytes() -> None:
    assert encode(RID(7)) == h("17000000 0700000000000000")
    assert encode(Callable()) == h("19000000")
    assert encode(Signal("hit", 9)) == h("1a000000 03000000 68697400 0900000000000000")


def test_typed_container_bytes() -> None:
    """§3/§11: Array[int], Dictionary[int, int] and class-typed containers."""
    x = 0x0F123456789ABCDEF - (1 << 64)
    assert encode(TypedArray("int", [x])) == h(
        "1c 00 01 00  02 00 00 00  01 00 00 00  02 00 01 00 ef cd ab 89 67 45 23 f1")
    assert encode(TypedDictionary("int", "int", [(x, x)])) == h(
        "1b 00 05 00  02 00 00 00  02 00 00 00  01 00 00 00  02 00 01 00 ef cd ab 89 67 45 23 f1"
        "  02 00 01 00 ef cd ab 89 67 45 23 f1")
    # A class name is written as "EncodedObjectAsID" unless full_objects.
    node_arr = TypedArray("Node", [])
    assert encode(node_arr) == h("1c000200 11000000") + b"EncodedObjectAsID" + h(
        "000000 00000000")
    assert encode(node_arr, full_objects=True) == h("1c000200 04000000") + b"Node" + h(
        "00000000")
    script_arr = TypedArray("res://a.gd", [])
    assert encode(script_arr, full_objects=True) == h("1c000300 0a000000") + b"res://a.gd" + h(
        "0000 00000000")
    assert encode(script_arr)[:4] == h("1c000200")
    assert encode(TypedArray("Object", []), full_objects=True)[:4] == h("1c000200")
    assert decode(encode(node_arr, full_objects=True)) == node_arr
    vdict = TypedDictionary(ContainerType(), "float", [("a", 1.5)])
    assert encode(vdict)[:12] == h("1b000400 03000000 01000000")


def test_double_precision_flags() -> None:
    """§6: bit 16 and f64 on real math types and vector arrays, never on Color, PackedColorArray,
    the ``*i`` types, PackedFloat32Array, ints or floats."""
    flagged = [Vector2(), Rect2(), Vector3(), Transform2D(), Vector4(), Plane(), Quaternion(),
               AABB(), Basis(), Transform3D(), Projection(),
               PackedVector2Array([(1.0, 2.0)]), PackedVector3Array([]),
               PackedVector4Array([(1.0, 2.0, 3.0, 4.0)])]
    for v in flagged:
        single, double = encode(v), encode(v, double_precision=True)
        assert struct.unpack_from("<I", double)[0] == struct.unpack_from("<I", single)[0] | 1 << 16
        if not isinstance(v, gtypes.PackedArray):
            assert len(double) - 4 == 2 * (len(single) - 4)
        assert decode(double) == v
    assert encode(Vector2(0.1, 0.5), double_precision=True) == h("05000100") + f64(0.1) + f64(0.5)
    assert len(encode(Transform3D(), double_precision=True)) == 4 + 96
    assert len(encode(PackedVector3Array([(1.0, 2.0, 3.0)]), double_precision=True)) == 8 + 24
    unflagged: list[Any] = [
        Color(0.1, 1, 1, 1), PackedColorArray([(0.1, 1.0, 1.0, 1.0)]), Vector2i(1, 2), Rect2i(),
        Vector3i(), Vector4i(), PackedFloat32Array([0.5]), PackedInt32Array([1]),
        PackedInt64Array([1]), PackedFloat64Array([0.1]), 1, 0.5, 0.1, "s"]
    for v in unflagged:
        assert encode(v, double_precision=True) == encode(v), v
    with pytest.raises(ValueError):
        encode(Vector2(), profile="godot3", double_precision=True)


def test_math_components_are_real_t() -> None:
    """On a float build a component is stored as float32 and is never promoted."""
    raw = encode(Vector2(0.1, 1e39))
    assert raw == h("05000000 cdcccc3d 0000807f")


def test_packed_arrays_bytes() -> None:
    assert encode(b"\x01\x02\x03") == h("1d000000 03000000 01020300")
    assert encode(PackedInt32Array([1, -1])) == h("1e000000 02000000 01000000 ffffffff")
    assert encode(PackedInt64Array([-2])) == h("1f000000 01000000 feffffffffffffff")
    assert encode(PackedFloat32Array([0.5])) == h("20000000 01000000 0000003f")
    assert encode(PackedFloat64Array([0.1])) == h("21000000 01000000") + f64(0.1)
    assert encode(PackedVector2Array([(1.0, 2.0)])) == h("23000000 01000000") + floats32(1, 2)
    assert encode(PackedColorArray([(1.0, 0.0, 0.0, 1.0)])) == (
        h("25000000 01000000") + floats32(1, 0, 0, 1))
    assert encode(PackedVector4Array([(1.0, 2.0, 3.0, 4.0)])) == (
        h("26000000 01000000") + floats32(1, 2, 3, 4))


def test_dictionary_insertion_order() -> None:
    raw = encode({"b": 1, "a": 2})
    assert raw == h("1b000000 02000000 04000000 01000000 62000000 02000000 01000000"
                    "04000000 01000000 61000000 02000000 02000000")
    assert list(decode(raw)) == ["b", "a"]


def test_encode_depth_limit() -> None:
    deep: list[Any] = []
    for _ in range(1024):
        deep = [deep]
    assert len(encode(deep)) == 8 * 1024 + 8
    with pytest.raises(EncodeError):
        encode([deep])


# ---------------------------------------------------------------------------------------------
# Decoder leniency (spec §7)


def test_trailing_bytes_ignored() -> None:
    raw = encode([1, "a"])
    assert decode(raw + b"\xff" * 7) == [1, "a"]
    assert decode_prefix(raw + b"junk") == ([1, "a"], len(raw))


def test_header_byte_1_ignored() -> None:
    assert decode(h("02ff0000 05000000")) == 5
    assert decode(h("04ab0000 01000000 61000000")) == "a"
    assert decode(h("02ff0000 05000000"), profile="godot3") == 5


def test_docs_profile_reads_16_bit_type() -> None:
    with pytest.raises(DecodeError):
        decode(h("02ff0000 05000000"), profile="docs")


def test_unused_flags_ignored() -> None:
    assert decode(h("01000100 01000000")) is True  # 64-bit flag on bool
    assert decode(h("04000100 01000000 61000000")) == "a"
    assert decode(h("1400 0100") + floats32(1, 0, 0, 1)) == Color(1, 0, 0, 1)  # never 64-bit
    # Godot 3 ignores bit 16 on math types and containers.
    assert decode(h("05000100") + floats32(1, 2), profile="godot3") == Vector2(1, 2)
    assert decode(h("13000100 00000000"), profile="godot3") == []


def test_bool_nonzero_is_true() -> None:
    assert decode(h("01000000 02000000")) is True
    assert decode(h("01000000 00000080")) is True
    assert decode(h("01000000 00000000")) is False


def test_64bit_small_ints_and_floats() -> None:
    assert decode(h("02000100 0500000000000000")) == 5
    assert decode(h("02000100 ffffffffffffffff")) == -1
    assert decode(h("03000100") + f64(1.5)) == 1.5
    assert encode(decode(h("02000100 0500000000000000"))) == h("02000000 05000000")


def test_non_zero_string_padding() -> None:
    assert decode(h("04000000 01000000 61ffffff")) == "a"
    assert decode(h("15000000 01000000 61abcdef")) == StringName("a")


def test_leading_bom_stripped() -> None:
    raw = encode("\ufeffabc")
    assert raw == h("04000000 06000000 efbbbf61 62630000")  # the encoder writes it
    assert decode(raw) == "abc"  # the decoder drops it
    assert decode(encode("a\ufeff")) == "a\ufeff"  # only a leading one


def test_string_ends_at_first_nul() -> None:
    assert decode(h("04000000 05000000 61620063 64000000")) == "ab"
    # Bytes after the NUL are not even checked for UTF-8.
    assert decode(h("04000000 04000000 6100fffe")) == "a"
    assert decode(h("22000000 01000000 05000000 61620063 64000000")) == PackedStringArray(
        ["ab"])


def test_invalid_utf8_rejected() -> None:
    for payload in ("ff000000", "c0800000", "e2820000", "eda08000"):
        with pytest.raises(DecodeError):
            decode(h("04000000 03000000") + h(payload))
    # Godot 3 accepts CESU-8 surrogates, Godot 4 does not.
    assert decode(h("04000000 03000000 eda08000"), profile="godot3") == "\ud800"
    assert encode("\ud800", profile="godot3") == h("04000000 03000000 eda08000")
    with pytest.raises(EncodeError):
        encode("\ud800")


def test_string_pad_required() -> None:
    with pytest.raises(DecodeError):
        decode(h("04000000 01000000 61"))


def test_packed_byte_array_at_end_without_pad() -> None:
    assert decode(h("1d000000 03000000 010203")) == b"\x01\x02\x03"
    assert decode_prefix(h("1d000000 03000000 010203")) == (b"\x01\x02\x03", 12)
    assert decode(h("1d000000 01000000 ff")) == b"\xff"
    assert decode(h("14000000 01000000 ff"), profile="godot3") == b"\xff"


def test_count_bit_31_masked() -> None:
    assert decode(h("1c000000 01000080 02000000 07000000")) == [7]
    assert decode(h("1b000000 01000080 02000000 01000000 02000000 02000000")) == {1: 2}
    assert decode(h("13000000 00000080"), profile="godot3") == []


def test_duplicate_keys_later_value_first_position() -> None:
    raw = (h("1b000000 03000000") + encode("a") + encode(1) + encode("b") + encode(2)
           + encode("a") + encode(3))
    d = decode(raw)
    assert d == {"a": 3, "b": 2} and list(d) == ["a", "b"]
    assert list(d.values()) == [3, 2]


def test_conflated_keys_decode_to_dictionary() -> None:
    """Python's dict takes 1, 1.0 and True for one key; Godot keeps three."""
    raw = (h("1b000000 03000000") + encode(1) + encode("int") + encode(1.0) + encode("float")
           + encode(True) + encode("bool"))
    d = decode(raw)
    assert type(d) is Dictionary
    assert [(type(k), k, v) for k, v in d.items()] == [
        (int, 1, "int"), (float, 1.0, "float"), (bool, True, "bool")]
    assert encode(d) == raw
    # And duplicates among them: later value, first position.
    raw2 = (h("1b000000 03000000") + encode(1) + encode("a") + encode(1.0) + encode("b")
            + encode(1) + encode("c"))
    d2 = decode(raw2)
    assert type(d2) is Dictionary
    assert list(d2.items()) == [(1, "c"), (1.0, "b")]


def test_unhashable_keys_decode_to_dictionary() -> None:
    value = Dictionary([([1, 2], "list"), ({"k": 1}, "dict"), (PackedStringArray(["x"]), 3)])
    raw = encode(value)
    d = decode(raw)
    assert type(d) is Dictionary
    assert d[[1, 2]] == "list" and d[{"k": 1}] == "dict"
    assert encode(d) == raw


def test_packed_array_keys_compare_by_content() -> None:
    """Godot compares packed-array keys by content (Variant::hash_compare): equal arrays are
    one key, so a repeated one keeps the later value in the first position."""
    a = Dictionary([(PackedInt32Array([1]), 1)])
    assert a == Dictionary([(PackedInt32Array([1]), 1)])
    raw = encode(Dictionary([(PackedInt32Array([1]), 1), (PackedInt32Array([2]), 2)]))
    raw_dup = raw.replace(h("1e000000 01000000 02000000"), h("1e000000 01000000 01000000"))
    d = decode(raw_dup)
    assert len(d) == 1 and d[PackedInt32Array([1])] == 2


def test_typed_array_keeps_mismatching_elements() -> None:
    """§7: the engine drops an element whose type does not match a typed Array (printing an
    error). gameserde keeps it, so nothing in the data is lost (docs/godot.md, "Choices")."""
    raw = h("1c000100 02000000 02000000 04000000 01000000 61000000 02000000 05000000")
    assert decode(raw) == TypedArray("int", ["a", 5])
    assert encode(decode(raw)) == raw


def test_string_and_stringname_keys() -> None:
    d = decode(encode(Dictionary([("a", 1), (StringName("b"), 2)])))
    assert list(d) == ["a", "b"] and type(list(d)[1]) is StringName


def test_packed_string_array_negative_count_is_empty() -> None:
    assert decode(h("22000000 ffffffff")) == PackedStringArray()


def test_packed_string_array_without_nul() -> None:
    assert decode(h("22000000 01000000 02000000 61620000")) == PackedStringArray(["ab"])


def test_node_path_subname_flag_and_old_format() -> None:
    # flags bit 1 (obsolete "property") adds one subname
    raw = h("16000000 01000080 00000000 02000000 01000000 61000000 01000000 62000000")
    assert decode(raw) == NodePath(("a",), ("b",))
    with pytest.raises(DecodeError):
        decode(h("16000000 01000000 61000000"))  # old string format
    assert decode(h("16000000 01000080 00000000 01000000 01000000 61ffffff")) == NodePath(
        ("a",), (), True)  # pad bytes are don't-care


def test_rid_godot3_has_no_payload() -> None:
    assert decode(h("10000000 02000000 05000000"), profile="godot3") == RID()
    assert decode_prefix(h("10000000"), profile="godot3") == (RID(), 4)


def test_empty_class_name_is_null_object() -> None:
    assert decode(h("18000000 00000000"), allow_objects=True) is None


def test_script_must_be_path_in_godot4() -> None:
    good = encode(Object("Node", {"script": "res://a.gd"}), full_objects=True)
    assert decode(good, allow_objects=True) == Object("Node", {"script": "res://a.gd"})
    bad = encode(Object("Node", {"script": 5}), full_objects=True)
    with pytest.raises(DecodeError):
        decode(bad, allow_objects=True)
    bad3 = encode(Object("Node", {"script": 5}), profile="godot3", full_objects=True)
    assert decode(bad3, profile="godot3", allow_objects=True) == Object("Node", {"script": 5})


def test_typed_container_decoding() -> None:
    arr = decode(encode(TypedArray(VariantType.FLOAT, [1.5])))
    assert type(arr) is TypedArray and arr.element_type == ContainerType(VariantType.FLOAT)
    with pytest.raises(DecodeError):
        decode(h("1c000100 27000000 00000000"))  # element type 39 = VARIANT_MAX
    assert decode(h("1c000100 26000000 00000000")) == TypedArray(
        VariantType.PACKED_VECTOR4_ARRAY, [])


def test_decode_depth_limit() -> None:
    ok = h("1c000000 01000000") * 1024 + h("1c000000 00000000")  # 1025 Arrays: root at 0
    assert decode_prefix(ok)[1] == len(ok)
    with pytest.raises(DecodeError):
        decode(h("1c000000 01000000") * 1025 + h("1c000000 00000000"))
    assert decode(h("1c000000 01000000") * 5 + h("00000000"), max_depth=5) == [[[[[None]]]]]
    with pytest.raises(DecodeError):
        decode(h("1c000000 01000000") * 5 + h("00000000"), max_depth=4)


def test_engine_decode_vectors() -> None:
    """§11 vectors 19-20: a 1-byte buffer and type 0xff fail."""
    for bad in (h("00"), h("ff000000")):
        with pytest.raises(DecodeError):
            decode(bad)


def test_profile_names_rejected() -> None:
    with pytest.raises(ValueError):
        encode(1, profile="godot5")
    with pytest.raises(ValueError):
        decode(h("00000000"), profile="godot2")
