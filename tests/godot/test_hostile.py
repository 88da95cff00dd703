"""Hostile input: the decoders raise DecodeError and nothing else, fail fast, allocate in
proportion to the input (not to what it claims), never let RecursionError out, and say where
the problem is (byte offset and path).

The binary decoder runs with the C accelerator on and off (when it is built): the extension
must not crash or misbehave on anything the reference rejects.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import struct
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import (
    AABB,
    PROFILES,
    RID,
    Basis,
    Color,
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
    to_jsonable,
)
from gameserde.godot import Callable as GodotCallable
from gameserde.godot.profiles import MAX_DEPTH_LIMIT

from .strategies import PROFILE_NAMES, ProfileName, variants

try:
    from gameserde.godot import _accel
except ImportError:  # pragma: no cover - a library without the accelerator
    _accel = None  # type: ignore[assignment]

FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


ACCEL_MODES = [False]
if _accel is not None and _accel.AVAILABLE:
    ACCEL_MODES.insert(0, True)


@pytest.fixture(params=ACCEL_MODES, ids=lambda on: "accel" if on else "pure")
def accel(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Run the test with the C accelerator on, then off (when it is built)."""
    if _accel is None:
        yield False
        return
    saved = _accel.ENABLED
    _accel.ENABLED = bool(request.param)
    try:
        yield bool(request.param)
    finally:
        _accel.ENABLED = saved


def outcome(data: bytes, profile: str = "godot4", allow_objects: bool = True,
            **kw: Any) -> Any:
    """Decode; return the value, or the DecodeError. Any other exception fails the test."""
    try:
        return decode(data, profile=profile, allow_objects=allow_objects, **kw)
    except DecodeError as e:
        assert e.format == "godot"
        assert e.offset is None or 0 <= e.offset <= len(data) + 4, (e.offset, len(data))
        assert e.path.startswith("$")
        str(e)  # the message renders
        return e


# ---------------------------------------------------------------------------------------------
# Rich valid buffers


def rich_godot4() -> Any:
    return [
        None, True, -5, 2**40, 1.5, 0.1, math.nan, "héllo", "", Vector2(1, 2),
        Vector2i(3, -4), Rect2(Vector2(1, 2), Vector2(3, 4)),
        Rect2i(Vector2i(1, 2), Vector2i(3, 4)), Vector3(1, 2, 3), Vector3i(1, 2, 3),
        Transform2D(), Vector4(1, 2, 3, 4), Vector4i(1, 2, 3, 4), Plane(Vector3(0, 1, 0), 2),
        Quaternion(), AABB(), Basis(), Transform3D(), Projection(), Color(1, 0, 0, 1),
        StringName("sn"), NodePath.parse("/root/a:b"), RID(7), EncodedObjectAsID(9),
        Object("Node", {"name": "n", "hp": 3, "script": "res://n.gd"}), GodotCallable(),
        Signal("sig", 3),
        {"pos": Vector2(1, 2), "list": [1, [2, {"x": b"abc"}]], "np": NodePath.parse("a/b")},
        Dictionary([(1, "a"), (1.0, "b"), ([1], "c")]), TypedArray("int", [1, 2]),
        TypedArray("Node", [None, Object("Node", {})]), TypedArray("res://e.gd", []),
        TypedDictionary("String", "float", [("a", 1.0)]),
        b"\x01\x02\x03", PackedInt32Array([1, -2]), PackedInt64Array([2**40]),
        PackedFloat32Array([0.5]), PackedFloat64Array([0.1]), PackedStringArray(["a", "", "bc"]),
        PackedVector2Array([(1.0, 2.0)]), PackedVector3Array([(1.0, 2.0, 3.0)]),
        PackedColorArray([(1.0, 1.0, 1.0, 1.0)]), PackedVector4Array([(1.0, 2.0, 3.0, 4.0)]),
    ]


def rich_godot3() -> Any:
    return [
        None, False, 7, -(2**40), 0.25, 1e300, "wörld", Vector2(1, 2),
        Rect2(Vector2(1, 2), Vector2(3, 4)), Vector3(1, 2, 3), Transform2D(),
        Plane(Vector3(0, 1, 0), 2), Quaternion(), AABB(), Basis(), Transform3D(),
        Color(0, 1, 0, 1), NodePath.parse("/root/x"), RID(), EncodedObjectAsID(5),
        Object("Reference", {"script": None, "n": [1, 2]}),
        {"pos": Vector3(1, 2, 3), "nested": {"k": [b"\x00\x01", "s"]}},
        b"\xff", PackedInt32Array([3]), PackedFloat32Array([1.5, 2.5]),
        PackedStringArray(["x", "yz"]), PackedVector2Array([(1.0, 2.0)]),
        PackedVector3Array([]), PackedColorArray([(0.0, 0.0, 0.0, 1.0)]),
    ]


def rich_docs() -> Any:
    return [*rich_godot3()[:-6], PackedInt64Array([1, 2]), PackedFloat64Array([0.5]),
            PackedStringArray(["p", "qr"])]


RICH: dict[str, tuple[str, bytes]] = {
    "godot4": ("godot4", encode(rich_godot4(), full_objects=True)),
    "godot4-double": ("godot4", encode(rich_godot4(), full_objects=True,
                                       double_precision=True)),
    "godot3": ("godot3", encode(rich_godot3(), profile="godot3", full_objects=True)),
    "docs": ("docs", encode(rich_docs(), profile="docs", full_objects=True)),
}


def test_rich_buffers_decode() -> None:
    for name, (profile, buf) in RICH.items():
        value = decode(buf, profile=profile, allow_objects=True)
        assert isinstance(value, list), name
        double = name.endswith("-double")
        assert encode(value, profile=profile, full_objects=True,
                      double_precision=double) == buf, name


@pytest.mark.parametrize("name", list(RICH))
def test_every_truncation(name: str, accel: bool) -> None:
    profile, buf = RICH[name]
    for n in range(len(buf)):
        result = outcome(buf[:n], profile)
        # Nothing shorter than the whole list decodes: its last element is incomplete.
        assert isinstance(result, DecodeError), n
        # At most the end of the input plus the pad of a PackedByteArray cut at its end.
        assert result.offset is not None and result.offset <= n + 3
    assert not isinstance(outcome(buf, profile), DecodeError)


def test_truncated_error_paths() -> None:
    """A truncation inside a nested value names that value."""
    buf = encode([1, 2, 3, {"pos": Vector3(1, 2, 3)}])
    err = outcome(buf[:-4])
    assert isinstance(err, DecodeError)
    assert err.path == '$[3]["pos"]'
    assert err.offset == len(buf) - 12  # the payload of the Vector3


def _mutations(buf: bytes) -> Iterator[tuple[int, int]]:
    for i, b in enumerate(buf):
        for v in {0x00, 0xFF, 0x7F, 0x80, 0x01, b ^ 0x01, b ^ 0x10, b ^ 0x80, (b + 1) & 0xFF}:
            if v != b:
                yield i, v


@pytest.mark.parametrize("name", ["godot4", "godot3"])
def test_every_single_byte_mutation(name: str, accel: bool) -> None:
    """Each byte of the rich buffer set to 9 telling values (flipped bits, 0, 0xff, ...)."""
    profile, buf = RICH[name]
    decoded = 0
    for i, v in _mutations(buf):
        mutated = bytearray(buf)
        mutated[i] = v
        if not isinstance(outcome(bytes(mutated), profile), DecodeError):
            decoded += 1
    assert decoded > 0  # payload bytes change values, they do not break the structure


def test_random_mutations_mid_size(accel: bool) -> None:
    """A fixed-seed sample of 1- to 4-byte mutations of a mid-size buffer."""
    buf = encode({"player": {"name": "Aria", "pos": Vector3(1, 2, 3), "inv": ["bow", 3],
                             "tags": PackedStringArray(["a", "b"]), "raw": b"\x01\x02\x03"},
                  "grid": PackedInt32Array(range(8)), "map": TypedDictionary(
                      "Vector2i", "int", [(Vector2i(1, 2), 3)]), "np": NodePath.parse("/a:b")})
    assert 200 < len(buf) < 600
    rng = random.Random(20261121)
    for _ in range(4000):
        mutated = bytearray(buf)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(buf))] = rng.randrange(256)
        outcome(bytes(mutated))


@pytest.mark.parametrize("word", [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x00010000])
@pytest.mark.parametrize("name", ["godot4", "godot3", "docs"])
def test_every_word_overwritten(name: str, word: int, accel: bool) -> None:
    """Every aligned 32-bit word (headers, lengths, counts) set to a huge or odd value."""
    profile, buf = RICH[name]
    for i in range(0, len(buf) - 3, 4):
        mutated = buf[:i] + struct.pack("<I", word) + buf[i + 4:]
        start = time.thread_time()
        outcome(mutated, profile)
        assert time.thread_time() - start < 0.5, i


# ---------------------------------------------------------------------------------------------
# Type ids and lengths


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_bad_type_ids(profile: str, accel: bool) -> None:
    n = len(PROFILES[profile].by_id)
    for tid in range(n, 256):
        err = outcome(bytes([tid, 0, 0, 0]) + bytes(16), profile)
        assert isinstance(err, DecodeError) and err.offset == 0, tid
    err = outcome(encode([1, 2]) [:-8] + bytes([0xEE, 0, 0, 0]) + bytes(4))
    assert isinstance(err, DecodeError) and err.path == "$[1]" and err.offset == 16


def test_headers_shorter_than_4_bytes(accel: bool) -> None:
    for data in (b"", b"\x00", b"\x02\x00", b"\x02\x00\x00"):
        err = outcome(data)
        assert isinstance(err, DecodeError) and err.offset == 0


@pytest.mark.parametrize("data", [
    h("04000000 64000000 61626364"),             # String of 100 bytes, 4 there
    h("04000000 04000000 616263"),               # no room for the last byte
    h("04000000 05000000 61626364 65"),          # the pad is required
    h("1d000000 10000000 0102"),                 # PackedByteArray
    h("1e000000 03000000 01000000 02000000"),    # PackedInt32Array
    h("21000000 02000000 0000000000000000"),     # PackedFloat64Array
    h("23000100 01000000 0000000000000000"),     # 64-bit PackedVector2Array
    h("22000000 02000000 02000000 61000000"),    # PackedStringArray: second string missing
    h("1c000000 03000000 00000000 00000000"),    # Array: third element missing
    h("1b000000 01000000 00000000"),             # Dictionary: value missing
    h("16000000 02000080 00000000 00000000 01000000 61000000"),  # NodePath: name missing
    h("05000000 0000803f"),                      # Vector2: one component
    h("05000100 0000803f 0000803f"),             # 64-bit Vector2: 8 of 16 bytes
    h("17000000 01000000"),                      # RID: 4 of 8 bytes
    h("18000100 01000000"),                      # object id: 4 of 8 bytes
    h("1a000000 01000000 61000000 0100"),        # Signal: id cut
    h("1c000200 05000000 4e6f6465"),             # Array[class]: class name cut
    h("1c000100 02000000"),                      # Array[int]: count missing
    h("02000100 01000000"),                      # 64-bit int cut
    h("03000100 01000000"),                      # 64-bit float cut
])
def test_lengths_past_the_end(data: bytes, accel: bool) -> None:
    assert isinstance(outcome(data), DecodeError)


HUGE = [0xFFFFFFFF, 0x7FFFFFFF]
PAD = bytes(100)


def _claims(n: int) -> list[tuple[str, str, bytes]]:
    """(name, profile, buffer) with a length or count field claiming ``n``."""
    c = struct.pack("<I", n)
    c31 = struct.pack("<I", n | 0x80000000)
    out = [
        ("String length", "godot4", h("04000000") + c),
        ("StringName length", "godot4", h("15000000") + c),
        ("PackedByteArray", "godot4", h("1d000000") + c),
        ("PackedInt32Array", "godot4", h("1e000000") + c),
        ("PackedInt64Array", "godot4", h("1f000000") + c),
        ("PackedFloat32Array", "godot4", h("20000000") + c),
        ("PackedFloat64Array", "godot4", h("21000000") + c),
        ("PackedVector2Array", "godot4", h("23000000") + c),
        ("PackedVector3Array 64-bit", "godot4", h("24000100") + c),
        ("PackedColorArray", "godot4", h("25000000") + c),
        ("PackedVector4Array 64-bit", "godot4", h("26000100") + c),
        ("PackedStringArray count", "godot4", h("22000000") + c),
        ("PackedStringArray element", "godot4", h("22000000 01000000") + c),
        ("Array count", "godot4", h("1c000000") + c),
        ("typed Array count", "godot4", h("1c000100 02000000") + c),
        ("Array class name", "godot4", h("1c000200") + c),
        ("Array element type", "godot4", h("1c000100") + c),
        ("Dictionary count", "godot4", h("1b000000") + c),
        ("typed Dictionary key class", "godot4", h("1b000a00") + c),
        ("NodePath names", "godot4", h("16000000") + c31 + h("00000000 00000000")),
        ("NodePath subnames", "godot4", h("16000000 01000080") + c + h("00000000")),
        ("NodePath name length", "godot4", h("16000000 01000080 00000000 00000000") + c),
        ("Object class name", "godot4", h("18000000") + c),
        ("Object property count", "godot4", h("18000000 04000000 4e6f6465") + c),
        ("Object property name", "godot4", h("18000000 04000000 4e6f6465 01000000") + c),
        ("Signal name", "godot4", h("1a000000") + c),
        ("godot3 String", "godot3", h("04000000") + c),
        ("godot3 PoolByteArray", "godot3", h("14000000") + c),
        ("godot3 PoolVector3Array", "godot3", h("19000000") + c),
        ("godot3 PoolStringArray", "godot3", h("17000000") + c),
        ("godot3 Dictionary", "godot3", h("12000000") + c),
        ("godot3 Object properties", "godot3", h("11000000 04000000 4e6f6465") + c),
        ("docs PackedFloat64Array", "docs", h("18000000") + c),
        ("docs PackedStringArray", "docs", h("19000000") + c),
    ]
    return [(name, profile, buf + PAD) for name, profile, buf in out]


# Negative counts the engine accepts (it reads nothing).
ACCEPTED = {("PackedStringArray count", 0xFFFFFFFF), ("Object property count", 0xFFFFFFFF),
            ("godot3 PoolStringArray", 0xFFFFFFFF), ("godot3 Object properties", 0xFFFFFFFF),
            ("docs PackedStringArray", 0xFFFFFFFF)}


def _bounded(fn: Callable[[], Any], input_size: int) -> Any:
    """Run ``fn`` and check it is quick and allocates little relative to ``input_size``."""
    fn()  # warm-up: imports, caches, lazily built tables
    tracemalloc.start()
    try:
        start = time.thread_time()
        result = fn()
        elapsed = time.thread_time() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 0.25, f"took {elapsed:.3f} s"
    assert peak < max(1 << 20, 200 * input_size), f"peak {peak} bytes for {input_size} of input"
    return result


@pytest.mark.parametrize("n", HUGE, ids=["0xFFFFFFFF", "0x7FFFFFFF"])
@pytest.mark.parametrize("name", [name for name, _, _ in _claims(0)])
def test_claimed_4gb_lengths_fail_fast(name: str, n: int, accel: bool) -> None:
    """A 4 GB (or 2 GB) claim in a ~110-byte input: an answer in well under a second and
    memory bounded by the input, not by the claim."""
    profile, data = next((p, b) for a, p, b in _claims(n) if a == name)
    assert len(data) < 130
    result = _bounded(lambda: outcome(data, profile), len(data))
    if (name, n) in ACCEPTED:
        assert not isinstance(result, DecodeError)
    else:
        assert isinstance(result, DecodeError), result


@pytest.mark.parametrize("n", HUGE, ids=["0xFFFFFFFF", "0x7FFFFFFF"])
def test_framing_claimed_4gb_lengths(n: int) -> None:
    data = struct.pack("<I", n) + encode("x") + PAD
    for fn in (lambda: get_var(data), lambda: list(iter_vars(data)),
               lambda: list(iter_packets(data)),
               lambda: get_var(struct.pack(">I", n) + PAD, big_endian=True)):
        err = _bounded(lambda fn=fn: _catch(fn), len(data))  # type: ignore[misc]
        assert isinstance(err, DecodeError) and err.offset == 0


def _catch(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except DecodeError as e:
        return e


# ---------------------------------------------------------------------------------------------
# Nesting

LEVEL = h("1c000000 01000000")  # an Array holding one element: the next level


def test_million_levels_fail_fast_with_path(accel: bool) -> None:
    buf = LEVEL * 1_000_000
    start = time.thread_time()
    err = outcome(buf)
    assert time.thread_time() - start < 2.0
    assert isinstance(err, DecodeError)
    assert err.path == "$" + "[0]" * 1025
    assert err.offset == 8 * 1025
    assert "1024" in err.message


def test_deep_nesting_with_raised_max_depth_in_process(accel: bool) -> None:
    """Past the Python stack's default depth: DecodeError or a value, never RecursionError."""
    buf = LEVEL * 50_000
    err = outcome(buf, max_depth=MAX_DEPTH_LIMIT)
    assert isinstance(err, DecodeError) and err.offset == len(buf)
    value = outcome(buf + h("1c000000 00000000"), max_depth=MAX_DEPTH_LIMIT)
    assert isinstance(value, list)
    depth = 0
    while value:
        (value,) = value
        depth += 1
    assert depth == 50_000


_DEEP_SCRIPT = """
import sys, time
from gameserde.errors import DecodeError
from gameserde.godot import decode
buf = bytes.fromhex("1c00000001000000") * 1_000_000
start = time.perf_counter()
try:
    decode(buf, max_depth=100_000)
except DecodeError as e:
    print("DecodeError", e.offset, len(e.path))
print(round(time.perf_counter() - start, 2))
"""


def test_million_levels_with_raised_max_depth_subprocess() -> None:
    """max_depth raised to its limit: the interpreter survives and answers in time.

    Run apart, so a crash (C stack overflow) or a runaway cannot take the test session down.
    """
    try:
        proc = subprocess.run([sys.executable, "-c", _DEEP_SCRIPT], capture_output=True,
                              text=True, timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("decoding 10^6 nested Arrays with max_depth=100000 took over 10 s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("DecodeError 800008 "), proc.stdout


@pytest.mark.parametrize("max_depth", [-1, MAX_DEPTH_LIMIT + 1])
def test_max_depth_out_of_range_is_refused(max_depth: int) -> None:
    with pytest.raises(ValueError, match="max_depth"):
        decode(LEVEL, max_depth=max_depth)
    with pytest.raises(ValueError, match="max_depth"):
        encode([], max_depth=max_depth)


def test_deep_dictionary_nesting(accel: bool) -> None:
    level = h("1b000000 01000000 04000000 01000000 6b000000")  # {"k": <next>}
    err = outcome(level * 2000)
    assert isinstance(err, DecodeError)
    # The Dictionary at depth 1024 fails on its first key (depth 1025), as in the engine.
    assert err.path == "$" + '["k"]' * 1024 + "[<key 0>]"


def test_deep_object_nesting(accel: bool) -> None:
    level = h("18000000 01000000 4e000000 01000000 01000000 70000000")  # Object N, prop "p"
    err = outcome(level * 2000)
    assert isinstance(err, DecodeError)
    assert err.path == "$" + ".p" * 1025


def test_to_json_of_deepest_decodable_value() -> None:
    """decode accepts 1025 levels (the engine's limit); the JSON view must handle them."""
    raw = LEVEL * 1024 + h("1c000000 00000000")
    doc = to_jsonable(decode(raw))
    assert encode(from_jsonable(doc)) == raw


def test_from_json_deep_python_value_no_recursion_error() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    with contextlib.suppress(DecodeError):
        from_jsonable(deep)


def test_encode_deep_no_recursion_error() -> None:
    deep: list[Any] = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(EncodeError):
        encode(deep)
    assert len(encode(deep, max_depth=MAX_DEPTH_LIMIT)) == 8 * 50_000 + 8


# ---------------------------------------------------------------------------------------------
# Random bytes


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@FUZZ
@given(data=st.binary(max_size=300), allow_objects=st.booleans())
def test_random_bytes(profile: str, data: bytes, allow_objects: bool) -> None:
    outcome(data, profile, allow_objects)


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@FUZZ
@given(data=st.data())
def test_random_payload_after_valid_header(profile: str, data: st.DataObject) -> None:
    tid = data.draw(st.integers(0, len(PROFILES[profile].by_id) - 1))
    flags = data.draw(st.sampled_from([0, 1, 2, 3, 5, 0xA, 0xF, 0x8000]))
    body = data.draw(st.binary(max_size=120))
    buf = struct.pack("<I", tid | flags << 16) + body
    result = outcome(buf, profile)
    if not isinstance(result, DecodeError):
        # Whatever decodes can be written again and shown as JSON.
        encode(result, profile=profile, full_objects=True)
        json.dumps(to_jsonable(result), allow_nan=False)


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_mutated_valid_encodings(profile: ProfileName, data: st.DataObject) -> None:
    value = data.draw(variants(profile, full_objects=True, max_leaves=8))
    buf = bytearray(encode(value, profile=profile, full_objects=True))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(buf)))
    result = outcome(bytes(buf[:cut]), profile)
    if not isinstance(result, DecodeError):
        encode(result, profile=profile, full_objects=True)
        json.dumps(to_jsonable(result), allow_nan=False)


# ---------------------------------------------------------------------------------------------
# Offsets and paths


def test_error_path_in_dictionary_in_array() -> None:
    good = encode([0, 1, 2, {"pos": 1.5}])
    bad = good[:-8] + h("ee000000") + good[-4:]  # the value of "pos" gets type 0xee
    err = outcome(bad)
    assert isinstance(err, DecodeError)
    assert err.path == '$[3]["pos"]'
    assert err.offset == len(good) - 8
    assert f"at byte {err.offset}" in str(err) and '$[3]["pos"]' in str(err)


def test_error_path_object_property_and_key() -> None:
    good = encode([Object("Node", {"hp": "x"})], full_objects=True)
    err = outcome(good[:-2])
    assert isinstance(err, DecodeError) and err.path == "$[0].hp"
    err = outcome(encode({"a": 1})[:12])
    assert isinstance(err, DecodeError) and err.path == "$[<key 0>]"
    psa = encode({"list": PackedStringArray(["a", "b"])})
    err = outcome(psa[:-4])
    assert isinstance(err, DecodeError) and err.path == '$["list"][1]'


def test_error_without_allow_objects() -> None:
    buf = encode([1, Object("Node", {})], full_objects=True)
    err = outcome(buf, allow_objects=False)
    assert isinstance(err, DecodeError)
    assert err.path == "$[1]" and err.offset == 16


def test_decode_error_is_value_error() -> None:
    with pytest.raises(ValueError):
        decode(b"\xff\x00\x00\x00")


# ---------------------------------------------------------------------------------------------
# Framing readers


def test_framing_truncated_prefixes() -> None:
    record = encode("hello")
    stream = struct.pack("<I", len(record)) + record
    for n in range(1, len(stream)):
        with pytest.raises(DecodeError):
            list(iter_vars(stream[:n]))
        with pytest.raises(DecodeError):
            list(iter_packets(stream[:n]))
    with pytest.raises(DecodeError):
        get_var(stream[:3])
    with pytest.raises(DecodeError):
        get_var(stream, offset=len(stream))
    assert list(iter_vars(b"")) == []


def test_framing_error_offsets() -> None:
    record = encode([1, 2])
    stream = struct.pack("<I", len(record)) + record
    bad = stream + struct.pack("<I", len(record)) + record[:-8] + h("ee000000 00000000")
    with pytest.raises(DecodeError) as info:
        list(iter_vars(bad))
    assert info.value.offset == len(stream) + 4 + 16 and info.value.path == "$[1]"


def test_packet_over_limit() -> None:
    data = struct.pack("<I", 70000) + bytes(70000)
    with pytest.raises(DecodeError) as info:
        list(iter_packets(data))
    assert info.value.offset == 0
    assert list(iter_vars(struct.pack("<I", 8) + encode(1)))  # store_var has no such limit


@pytest.mark.parametrize("text", ["not base64!", "QQ=", "////", "\u00e9AAA", b"\xff\xfe"])
def test_bad_base64(text: str | bytes) -> None:
    with pytest.raises(DecodeError):
        base64_to_variant(text)


# ---------------------------------------------------------------------------------------------
# The JSON view


BAD_JSON: list[tuple[Any, str]] = [
    ("abc", "$"),
    ("x:1", "$"),
    ("i:1.5", "$"),
    ("f:one", "$"),
    ([1, "i:x"], "$[1]"),
    ({"args": []}, "$"),
    ({"type": 5}, "$"),
    ({"type": "Vector2", "args": [1.0]}, "$"),
    ({"type": "Vector2", "args": "12"}, "$"),
    ({"type": "Vector2", "args": [1.0, "a"]}, "$.args[1]"),
    ({"type": "Vector2", "args": [1.0, True]}, "$.args[1]"),
    ({"type": "Vector2i", "args": [1, 1.5]}, "$.args[1]"),
    ({"type": "Array", "args": [{"type": "Color"}]}, "$[0]"),
    ({"type": "Array", "elem_type": 3, "args": []}, "$"),
    ({"type": "Array", "elem_type": "", "args": []}, "$"),
    ({"type": "Dictionary", "args": ["s:a"]}, "$"),
    ({"type": "Dictionary", "args": ["s:a", "bad"]}, "$.args[1]"),
    ({"type": "Dictionary", "args": ["nope", 1]}, "$[<key 0>]"),
    ({"type": "PackedByteArray", "args": [256]}, "$"),
    ({"type": "PackedByteArray", "args": [-1]}, "$"),
    ({"type": "PackedInt32Array", "args": [2**31]}, "$"),
    ({"type": "PackedInt64Array", "args": [2**63]}, "$"),
    ({"type": "PackedVector2Array", "args": [1.0]}, "$"),
    ({"type": "PackedStringArray", "args": [1]}, "$"),
    ({"type": "PackedColorArray", "args": [1, 2, 3, "x"]}, "$.args[3]"),
    ({"type": "Node", "props": ["a"]}, "$"),
    ({"type": "Node", "props": [1, 2]}, "$.props[0]"),
    ({"type": "Node", "props": ["hp", "zz"]}, "$.hp"),
    ({"type": "Node"}, "$"),
    ({"type": "int", "args": [1]}, "$"),
    ({"type": "EncodedObjectAsID", "props": ["object_id", "s:x"]}, "$.object_id"),
    ({"type": "Signal", "args": ["a"]}, "$"),
    ({"type": "Signal", "args": [1, 2]}, "$"),
    ([[{"type": "Array", "args": [[["nope"]]]}]], "$[0][0][0][0][0]"),
    ({1, 2}, "$"),
    (b"bytes", "$"),
]


@pytest.mark.parametrize(("obj", "path"), BAD_JSON, ids=[repr(o)[:40] for o, _ in BAD_JSON])
def test_from_json_malformed(obj: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        from_jsonable(obj)
    assert info.value.path == path
    assert info.value.format == "godot" and info.value.verb == "encode"


# Malformed JSON the view does not turn into DecodeError (library bugs: other exceptions).
BAD_JSON_ESCAPING: list[Any] = [
    {"type": "RID", "args": 5},
    {"type": "RID", "args": ["i:5"]},
    {"type": "Signal", "args": 5},
    {"type": "Signal", "args": {"a": 1, "b": 2}},
    {"type": "Vector2i", "args": [math.inf, 0]},
    {"type": "Vector2i", "args": [math.nan, 0]},
    {"type": "Vector2", "args": [10**400, 0]},
    {"type": "PackedFloat32Array", "args": [10**400]},
    {"type": "PackedByteArray", "args": [math.inf]},
]


@pytest.mark.parametrize("obj", BAD_JSON_ESCAPING, ids=[repr(o)[:40] for o in BAD_JSON_ESCAPING])
def test_from_json_malformed_only_decode_error(obj: Any) -> None:
    try:
        from_jsonable(obj)
    except DecodeError as e:
        assert e.path.startswith("$")


@FUZZ
@given(obj=st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6),
              st.sampled_from(["i:1", "f:1.5", "s:", "sn:a", "np:/a:b", "i:", "f:", "q:1"])),
    lambda kids: st.one_of(
        st.lists(kids, max_size=4),
        st.dictionaries(st.sampled_from(["type", "args", "props", "elem_type", "key_type",
                                         "value_type", "x"]), kids, max_size=4),
        st.fixed_dictionaries({"type": st.sampled_from(
            ["Vector2", "Vector2i", "Rect2", "Color", "Array", "Dictionary", "RID", "Signal",
             "Callable", "PackedByteArray", "PackedInt32Array", "PackedVector3Array",
             "PackedStringArray", "EncodedObjectAsID", "Node", "Projection", "Basis"]),
            "args": st.lists(kids, max_size=6)}),
    ), max_leaves=15))
def test_from_json_fuzz(obj: Any) -> None:
    """Arbitrary JSON-shaped data: a value or DecodeError, and what comes back encodes."""
    try:
        value = from_jsonable(obj)
    except DecodeError:
        return
    with contextlib.suppress(EncodeError):
        encode(value, full_objects=True)


# ---------------------------------------------------------------------------------------------
# The encoder on values it cannot write


BAD_VALUES: list[Any] = [
    set(), 1j, object(), 2**64, [1, {"k": [set()]}], "\ud800",
    Vector2i(2**40, 0), Vector2i(1.5, 2),  # type: ignore[arg-type]
    PackedStringArray([1]),  # type: ignore[list-item]
    RID(-1), RID(2**64), EncodedObjectAsID(-1), EncodedObjectAsID(2**64), Signal("s", -1),
    Signal(5, 1),  # type: ignore[arg-type]
    NodePath((1,)),  # type: ignore[arg-type]
    Object("X", {1: 2}),  # type: ignore[dict-item]
    Vector2("a", 1),  # type: ignore[arg-type]
    Color("r"),  # type: ignore[arg-type]
    Basis((1, 2), (3,), ()),  # type: ignore[arg-type]
    Rect2(1, 2),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("value", BAD_VALUES,
                         ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(BAD_VALUES)])
def test_encode_only_encode_error(value: Any) -> None:
    with pytest.raises(EncodeError):
        encode(value, full_objects=True)


def test_encode_error_path() -> None:
    with pytest.raises(EncodeError) as info:
        encode([1, {"k": [2, set()]}])
    assert info.value.path == '$[1]["k"][1]'
    with pytest.raises(EncodeError) as info:
        encode(StringName("x"), profile="godot3")
    with pytest.raises(EncodeError):
        encode([Vector4()], profile="docs")


def test_decoded_values_always_encode() -> None:
    """Godot 3 keeps CESU-8 surrogates; the value encodes back to the same bytes."""
    raw = h("04000000 03000000 eda08000")
    assert encode(decode(raw, profile="godot3"), profile="godot3") == raw
    _ = (RID, StringName, Transform3D, Rect2i, Vector3i, Vector4, Vector4i, decode_prefix)
