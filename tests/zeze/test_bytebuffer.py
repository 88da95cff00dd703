"""The ByteBuffer primitives over their whole ranges: each writer against the spec's formula,
each reader giving back what was written, the lenient forms Java accepts, and errors."""

from __future__ import annotations

import contextlib
import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.zeze.bytebuffer import (
    Reader,
    Writer,
    float32_from_bits,
    float32_to_bits,
    long_bytes,
    uint_bytes,
    ulong_bytes,
)

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)


def spec_long(v: int) -> bytes:
    """spec §2.1's WriteLong, written from the spec's own formula."""
    for n in range(1, 9):
        if -(1 << (7 * n - 1)) <= v < 1 << (7 * n - 1):
            mark = ((1 << (n - 1)) - 1) << (7 * n)
            return ((v + mark if v >= 0 else v - mark) & ((1 << 8 * n) - 1)).to_bytes(n, "big")
    return (b"\x7f" if v >= 0 else b"\x80") + ((v & (2**64 - 1)) ^ (1 << 63)).to_bytes(8, "big")


@given(INT64 | st.sampled_from([0, -1, 63, 64, -64, -65, (1 << 55), -(1 << 55) - 1,
                                (1 << 63) - 1, -(1 << 63)]))
def test_long_round_trip(v: int) -> None:
    data = long_bytes(v)
    assert data == spec_long(v)
    r = Reader(data + b"\xaa")
    assert r.read_long() == v and r.pos == len(data)
    r = Reader(data)
    r.skip_long()
    assert r.pos == len(data)


@given(st.integers(0, (1 << 32) - 1))
def test_uint_round_trip(v: int) -> None:
    data = uint_bytes(v)
    assert len(data) == (1 if v < 0x80 else 2 if v < 0x4000 else 3 if v < 0x200000
                         else 4 if v < 0x10000000 else 5)
    r = Reader(data)
    assert r.read_uint() & 0xFFFFFFFF == v and r.pos == len(data)
    assert ulong_bytes(v) == data  # the two writers coincide below 2^32


@given(st.integers(0, (1 << 64) - 1))
def test_ulong_round_trip(v: int) -> None:
    data = ulong_bytes(v)
    r = Reader(data)
    assert r.read_ulong() == v and r.pos == len(data)
    assert Reader(data).read_uint() == ((v & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


@given(st.integers(0, (1 << 32) - 1), st.integers(1, 8))
def test_non_canonical_long_forms_are_read(v: int, extra: int) -> None:
    # the positive n-byte form of a value that would fit fewer bytes (spec: 40 05 = 5)
    n = len(long_bytes(v)) + extra
    if n > 8:
        return
    mark = ((1 << (n - 1)) - 1) << (7 * n)
    assert Reader((v + mark).to_bytes(n, "big")).read_long() == v


@given(st.integers(0, (1 << 32) - 1))
def test_float32_bits_round_trip(bits: int) -> None:
    value = float32_from_bits(bits)
    assert float32_to_bits(value) == bits
    if not math.isnan(value):
        assert struct.unpack("<f", struct.pack("<I", bits))[0] == value


@given(st.floats(allow_nan=False))
def test_float32_rounds_like_a_java_cast(value: float) -> None:
    bits = float32_to_bits(value)
    try:
        expected = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:  # Java's (float) cast overflows to infinity
        expected = 0x7F800000 if value > 0 else 0xFF800000
    assert bits == expected


@given(st.binary(max_size=64))
def test_readers_raise_only_decode_errors(data: bytes) -> None:
    for read in (Reader.read_long, Reader.read_uint, Reader.read_ulong, Reader.read_bool,
                 Reader.read_string, Reader.read_bytes, Reader.skip_bean, Reader.skip_uint):
        with contextlib.suppress(DecodeError):
            read(Reader(data))


@pytest.mark.parametrize(("write", "value"), [
    (Writer.write_long, 1 << 63), (Writer.write_int, 1 << 31), (Writer.write_uint, 1 << 32),
    (Writer.write_uint, -(1 << 31) - 1), (Writer.write_ulong, 1 << 64),
])
def test_writers_refuse_values_out_of_range(write: object, value: int) -> None:
    with pytest.raises(EncodeError):
        write(Writer(), value)  # type: ignore[operator]


def test_a_truncated_long_names_its_offset() -> None:
    # as Java's ensureRead: the position after the first byte, which said 7 more follow
    with pytest.raises(DecodeError) as e:
        Reader(b"\x00\x7f\x80\x00", 1).read_long()
    assert e.value.offset == 2 and "a long needs 7 bytes but only 2 remain" in str(e.value)
