"""Zeze wire bytes built by hand, from the spec (§2), not with gameserde's writer: the
tests' unknown-field payloads and hostile inputs."""

from __future__ import annotations

INTEGER, FLOAT, DOUBLE, BYTES, LIST, MAP, BEAN, DYNAMIC = range(8)
VECTOR2, VECTOR2INT, VECTOR3, VECTOR3INT, VECTOR4 = range(8, 13)


def wlong(v: int) -> bytes:
    """``WriteLong(v)`` (spec §2.1)."""
    for n in range(1, 9):
        if -(1 << (7 * n - 1)) <= v < 1 << (7 * n - 1):
            mark = ((1 << (n - 1)) - 1) << (7 * n)
            return ((v + mark if v >= 0 else v - mark) & ((1 << 8 * n) - 1)).to_bytes(n, "big")
    return (b"\x7f" if v >= 0 else b"\x80") + ((v & (2**64 - 1)) ^ (1 << 63)).to_bytes(8, "big")


def wuint(v: int) -> bytes:
    """``WriteUInt(v)``, ``v`` an unsigned 32-bit value (spec §2.2)."""
    for n, lead, limit in ((1, 0, 0x80), (2, 0x80, 0x4000), (3, 0xC0, 0x200000),
                           (4, 0xE0, 0x10000000)):
        if v < limit:
            return (v | lead << 8 * (n - 1)).to_bytes(n, "big")
    return b"\xf0" + v.to_bytes(4, "big")


def tag(delta: int, wire: int) -> bytes:
    """A field tag: the id delta from the previous field, and the wire type."""
    return bytes([delta << 4 | wire]) if delta < 15 else bytes([0xF0 | wire]) + wuint(delta - 15)


def list_header(count: int, wire: int) -> bytes:
    return bytes([count << 4 | wire]) if count < 15 else bytes([0xF0 | wire]) + wuint(count - 15)


def map_header(count: int, key_wire: int, value_wire: int) -> bytes:
    return bytes([key_wire << 4 | value_wire]) + wuint(count)


def blob(data: bytes) -> bytes:
    """A binary or string value: its length, then the bytes."""
    return wuint(len(data)) + data
