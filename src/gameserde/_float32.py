"""float32 values as Python floats, bit for bit: the conversions every codec with float32
fields shares (a NaN's payload, signalling bit included, survives a round trip, which
``struct``'s ``"f"`` format does not promise)."""

from __future__ import annotations

import struct

__all__ = ["float32_from_bits", "float32_to_bits"]

_F = struct.Struct("<f")
_D = struct.Struct("<d")
_I = struct.Struct("<I")
_Q = struct.Struct("<Q")


def float32_to_bits(value: float) -> int:
    """The raw bits a C/Java/Rust ``(float)`` cast gives ``value`` (round to nearest,
    overflow to infinity); a NaN keeps the top 23 bits of its payload (so NaNs read by
    :func:`float32_from_bits` are written back bit for bit)."""
    if value != value:
        bits = int(_Q.unpack(_D.pack(value))[0])
        payload = (bits >> 29) & 0x7FFFFF
        return (bits >> 32 & 0x80000000) | 0x7F800000 | (payload or 0x400000)
    try:
        return int(_I.unpack(_F.pack(value))[0])
    except OverflowError:
        return 0x7F800000 if value > 0 else 0xFF800000


def float32_from_bits(bits: int) -> float:
    """The float32 with raw bits ``bits`` as a Python float; a NaN keeps its payload (and its
    signalling bit) exactly, so :func:`float32_to_bits` gives ``bits`` back."""
    value: float = _F.unpack(_I.pack(bits))[0]
    if value != value:
        double = (bits & 0x80000000) << 32 | 0x7FF << 52 | (bits & 0x7FFFFF) << 29
        value = _D.unpack(_Q.pack(double))[0]
    return value
