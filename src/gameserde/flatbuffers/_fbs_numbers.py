"""flatc's number conversions (``StringToNumber``, ``atot``, ``NumToString``), bit for bit.

flatc converts schema constants with ``strtoll``/``strtoull``/``strtod`` and a few rules of its
own (hex detection, clamping of out-of-range values). Whether a constant is accepted, and
which error text is printed, depends on those details, so they are reproduced here.
"""

from __future__ import annotations

import math
import re
import struct

__all__ = [
    "BASE_TYPE_NAMES",
    "INT_RANGES",
    "atoi",
    "float_to_string",
    "interval_string",
    "round_float32",
    "string_to_float",
    "string_to_integer",
    "string_to_number",
    "to_int64",
    "to_uint64",
]

# flatc BaseType values
NONE, UTYPE, BOOL, CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE = range(13)
STRING, VECTOR, STRUCT, UNION, ARRAY, VECTOR64 = 13, 14, 15, 16, 17, 18

BASE_TYPE_NAMES = {
    NONE: "", UTYPE: "", BOOL: "bool", CHAR: "byte", UCHAR: "ubyte", SHORT: "short",
    USHORT: "ushort", INT: "int", UINT: "uint", LONG: "long", ULONG: "ulong", FLOAT: "float",
    DOUBLE: "double", STRING: "string", VECTOR: "", VECTOR64: "", STRUCT: "", UNION: "",
    ARRAY: "",
}

# The C type of each integer base type: (bits, signed)
INT_RANGES: dict[int, tuple[int, bool]] = {
    NONE: (8, False), UTYPE: (8, False), BOOL: (8, False), CHAR: (8, True), UCHAR: (8, False),
    SHORT: (16, True), USHORT: (16, False), INT: (32, True), UINT: (32, False),
    LONG: (64, True), ULONG: (64, False),
}

_U64 = (1 << 64) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_SPACE = " \t\n\v\f\r"
_DECIMAL = re.compile(r"[+-]?[0-9]{1,18}\Z")


def to_int64(v: int) -> int:
    v &= _U64
    return v - (1 << 64) if v >> 63 else v


def to_uint64(v: int) -> int:
    return v & _U64


def _limits(bits: int, signed: bool) -> tuple[int, int]:
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def interval_string(base_type: int) -> str:
    """``TypeToIntervalString<T>()`` for an integer base type."""
    lo, hi = _limits(*INT_RANGES[base_type])
    return f"[{lo}; {hi}]"


def _strtoint(s: str, base: int, unsigned: bool) -> tuple[int, int, bool]:
    """C ``strtoll``/``strtoull``: (value, end index, range error)."""
    i, n = 0, len(s)
    while i < n and s[i] in _SPACE:
        i += 1
    neg = False
    if i < n and s[i] in "+-":
        neg = s[i] == "-"
        i += 1
    digits = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
    if base == 16 and s[i:i + 2] in ("0x", "0X") and i + 2 < n and s[i + 2] in digits:
        i += 2
    start = i
    while i < n and s[i] in digits:
        i += 1
    if i == start:
        # glibc: "0x" without digits parses the "0"
        if base == 16 and s[start - 2:start] in ("0x", "0X") and start >= 2:
            return 0, start - 1, False
        return 0, 0, False
    mag = int(s[start:i], base)
    if unsigned:
        if mag > _U64:
            return _U64, i, True
        return ((-mag) & _U64) if neg else mag, i, False
    value = -mag if neg else mag
    if value > _I64_MAX:
        return _I64_MAX, i, True
    if value < _I64_MIN:
        return _I64_MIN, i, True
    return value, i, False


def string_to_integer(s: str, *, unsigned: bool = False, base: int = 0,
                      check_errno: bool = True) -> tuple[bool, int]:
    """``StringToIntegerImpl<int64_t or uint64_t>``: (success, value)."""
    if base <= 0:
        k = 0
        while k < len(s) and not "0" <= s[k] <= "9":
            k += 1
        if s[k:k + 1] == "0" and s[k + 1:k + 2] in ("x", "X"):
            return string_to_integer(s, unsigned=unsigned, base=16, check_errno=check_errno)
        return string_to_integer(s, unsigned=unsigned, base=10, check_errno=check_errno)
    value, end, erange = _strtoint(s, base, unsigned)
    if end != len(s) or end == 0:
        return False, 0
    if check_errno and erange:
        return False, value
    return True, value


_FLOAT_RE = re.compile(
    r"[ \t\n\v\f\r]*([+-]?)(?:"
    r"(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    r"|(?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    r"|(?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?)"
    r")\Z")


def round_float32(x: float) -> float:
    """``static_cast<float>(double)``: round to the nearest float32."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return float(struct.unpack("<f", struct.pack("<f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def string_to_float(s: str, bits: int = 64) -> tuple[bool, float]:
    """``StringToFloatImpl``: the whole string must be a C ``strtod`` number."""
    m = _FLOAT_RE.match(s)
    if m is None:
        return False, 0.0
    sign = -1.0 if m.group(1) == "-" else 1.0
    if m.group("dec") is not None:
        value = float(m.group("dec"))
    elif m.group("hex") is not None:
        text = m.group("hex")
        if "p" not in text and "P" not in text:
            text += "p0"
        value = float.fromhex(text)
    elif m.group("inf") is not None:
        value = math.inf
    else:
        return True, math.nan
    value *= sign
    if bits == 32:
        value = round_float32(value)
    return True, value


def string_to_number(s: str, base_type: int) -> tuple[bool, int | float]:
    """``StringToNumber<CTYPE>`` for a scalar base type: (success, value).

    On failure the value is 0 when nothing could be converted, else the clamped value
    (flatc uses this to choose between its two ``invalid number`` messages).
    """
    if base_type in (FLOAT, DOUBLE):
        return string_to_float(s, 32 if base_type == FLOAT else 64)
    bits, signed = INT_RANGES[base_type]
    if _DECIMAL.match(s):  # the common case: a decimal number in the type's range
        value = int(s)
        lo, hi = _limits(bits, signed)
        if lo <= value <= hi:
            return True, value
    if bits == 64:
        if signed:
            return string_to_integer(s)
        ok, u = string_to_integer(s, unsigned=True)
        if not ok:
            return False, u
        if u:
            k = 0
            while k < len(s) and not "0" <= s[k] <= "9":
                k += 1
            k = k - 1 if k > 0 else k
            if s[k:k + 1] == "-":
                return False, _U64
        return True, u
    lo, hi = _limits(bits, signed)
    ok, i64 = string_to_integer(s, check_errno=False)
    if not ok:
        return False, 0
    if i64 > hi:
        return False, hi
    if i64 < lo:
        return False, hi if not signed else lo
    return True, i64


def atoi(s: str) -> int:
    """C ``atoi`` (clamped to int32 where C would overflow)."""
    value, _, _ = _strtoint(s, 10, False)
    return max(-(1 << 31), min((1 << 31) - 1, value))


def float_to_string(x: float, precision: int) -> str:
    """flatc ``FloatToString``: ``std::fixed`` then trailing zeros stripped (``1.0`` kept)."""
    if math.isnan(x):
        s = "-nan" if math.copysign(1.0, x) < 0 else "nan"
    elif math.isinf(x):
        s = "-inf" if x < 0 else "inf"
    else:
        s = f"{x:.{precision}f}"
    p = len(s.rstrip("0")) - 1
    if p >= 0:
        s = s[:p + (2 if s[p] == "." else 1)]
    return s
