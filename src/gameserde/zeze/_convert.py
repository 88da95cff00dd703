"""Java's numeric conversions, as Zeze's readers apply them between wire and declared types
(spec §3.1): narrowing casts that wrap, float-to-int casts that truncate and saturate (NaN to
0), and rounding to float32."""

from __future__ import annotations

from gameserde.zeze.bytebuffer import float32_from_bits, float32_to_bits


def wrap(value: int, bits: int) -> int:
    """Java's narrowing of an integer to ``bits`` (two's complement wrap)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def float_to_int(value: float, bits: int) -> int:
    """Java's ``(byte|short|int|long) x`` for a float or double ``x``: to int (or long, for
    64 bits) truncating toward zero, NaN to 0, saturating; then narrowed to ``bits``."""
    if value != value:
        return 0
    wide = 64 if bits == 64 else 32
    limit = 1 << (wide - 1)
    if value >= limit:
        result = limit - 1
    elif value <= -limit:
        result = -limit
    else:
        result = int(value)
    return result if bits >= 32 else wrap(result, bits)


def to_float32(value: float) -> float:
    """Java's ``(float) x`` for a double ``x``: round to nearest even, overflow to infinity."""
    return float32_from_bits(float32_to_bits(value))


def int_to_float32(value: int) -> float:
    """Java's ``(float) n`` for an integer ``n``, rounded once (half to even)."""
    magnitude = abs(value)
    shift = magnitude.bit_length() - 24
    if shift > 0:
        quotient, rest = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and quotient & 1):
            quotient += 1
        magnitude = quotient << shift
    return float(-magnitude if value < 0 else magnitude)
