"""Scalar conversion for the encoder: Python values and flatc's JSON scalar tokens (numbers,
enum names, conversion functions such as ``rad(180)``, strings for ``hash`` fields) to the
value a field stores, range-checked as flatc checks them.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any

from gameserde.errors import EncodeError
from gameserde.flatbuffers._json_parse import Bare, Call, Escaped
from gameserde.flatbuffers._json_text import format_float
from gameserde.flatbuffers.builder import Builder
from gameserde.schema.model import Enum

_FMT_INT = {(8, True): "b", (8, False): "B", (16, True): "h", (16, False): "H",
            (32, True): "i", (32, False): "I", (64, True): "q", (64, False): "Q"}
_SLOT_METHOD = {"b": Builder.prepend_int8_slot, "B": Builder.prepend_uint8_slot,
                "h": Builder.prepend_int16_slot, "H": Builder.prepend_uint16_slot,
                "i": Builder.prepend_int32_slot, "I": Builder.prepend_uint32_slot,
                "q": Builder.prepend_int64_slot, "Q": Builder.prepend_uint64_slot,
                "f": Builder.prepend_float32_slot, "d": Builder.prepend_float64_slot}
_LIMITS = {"b": (-128, 127), "B": (0, 255), "h": (-32768, 32767), "H": (0, 65535),
           "i": (-2**31, 2**31 - 1), "I": (0, 2**32 - 1), "q": (-2**63, 2**63 - 1),
           "Q": (0, 2**64 - 1), "?": (0, 255)}
_F32 = struct.Struct("<f")

_HEX_INT = re.compile(r"[+-]?0[xX][0-9a-fA-F]+\Z")
_DEC_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX_FLOAT = re.compile(r"[+-]?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?[0-9]+)?\Z")
_SPECIAL = {"nan": math.nan, "+nan": math.nan, "-nan": math.nan, "inf": math.inf,
            "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf}


def f32(x: float) -> float:
    """``x`` rounded to a float32 (overflow gives an infinity, as a C cast does)."""
    try:
        r: float = _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    return r


SHOWN = 40
"""The longest value an error message repeats whole."""


def short(text: str) -> str:
    """``text`` as an error message shows it: whole up to :data:`SHOWN` characters, else its
    start and end and its length (a 5,000-digit number is not repeated)."""
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN // 2]}...{text[-SHOWN // 2:]} ({len(text)} characters)"


def _err(message: str, step: str = "") -> EncodeError:
    return EncodeError(message, path="$" + step, format="flatbuffers")


def _add(exc: EncodeError, step: str) -> EncodeError:
    exc.add_parent(step)
    return exc


# ---------------------------------------------------------------------------------------------
# Scalar conversion


def _parse_int_text(s: str, enum: Enum | None,
                    lookup: Callable[[str], Enum | None] | None, is_bool: bool) -> int:
    t = s.strip()
    if is_bool and t in ("true", "false"):
        return 1 if t == "true" else 0
    if _DEC_INT.match(t):
        return int(t, 10)
    if _HEX_INT.match(t):
        return int(t, 16)
    if _FLOAT.match(t) or t.lower() in _SPECIAL:
        raise _err(f"invalid number: \"{short(s)}\"")
    total = 0
    for w in s.split(" "):
        if enum is not None:
            if w not in enum.values:
                raise _err(f"unknown enum value: {short(w)}")
            total |= enum.values[w]
            continue
        prefix, dot, name = w.rpartition(".")
        if not dot:
            raise _err("enum values need to be qualified by an enum type")
        found = lookup(prefix) if lookup is not None else None
        if found is None:
            raise _err(f"unknown enum: {short(prefix)}")
        if name not in found.values:
            raise _err(f"unknown enum value: {short(name)}")
        total |= found.values[name]
    return total


def _parse_float_text(s: str) -> float:
    t = s.strip()
    low = t.lower()
    if low in _SPECIAL:
        return _SPECIAL[low]
    if _FLOAT.match(t):
        return float(t)
    if _HEX_FLOAT.match(t) and "p" in low:
        try:
            return float.fromhex(t)
        except ValueError:
            pass
    raise _err(f"invalid number: \"{short(s)}\"")


_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "deg": lambda x: x / math.pi * 180, "rad": lambda x: x * math.pi / 180, "sin": math.sin,
    "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan}


def _not_a_number(v: str) -> EncodeError:
    if type(v) is Call:
        return _err(f"{v.name}: type of argument mismatch, expecting: double")
    return _err("type mismatch or invalid value, an initializer of non-string field must be "
                f"trivial ASCII string: {short(v)}")


def _call_value(v: Call) -> float:
    """flatc's conversion function ``v`` (``rad(180)``) of a float field: computed in double
    precision and printed with 12 decimals, which the field then reads."""
    arg = v.arg
    if type(arg) is Call:
        x = _call_value(arg)
    elif isinstance(arg, str) and type(arg) is not Escaped:
        x = _parse_float_text(arg)
    else:
        raise _err(f"cannot parse {short(str(v))} (the argument is not a number)")
    function = _FUNCTIONS.get(v.name)
    if function is None:
        raise _err(f"Unknown conversion function: {v.name}")
    try:
        y = function(x)
    except ValueError:  # C gives a NaN (outside the domain, or infinite)
        y = math.nan
    return _parse_float_text(format_float(y, 64))


def _int_converter(fmt: str, enum: Enum | None,
                   lookup: Callable[[str], Enum | None] | None = None
                   ) -> Callable[[Any], int]:
    lo, hi = _LIMITS[fmt]
    is_bool = fmt == "?"
    if is_bool:
        fmt = "B"

    names = dict(enum.values) if enum is not None else {}

    def conv(v: Any) -> int:
        if type(v) is int:
            x = v
        elif isinstance(v, int):  # bool, IntEnum ...
            x = int(v)
        elif isinstance(v, str):
            if type(v) is Escaped or type(v) is Call:
                raise _not_a_number(v)
            found = names.get(v)
            try:
                x = found if found is not None else _parse_int_text(v, enum, lookup, is_bool)
            except EncodeError:
                raise
            except ValueError:  # more digits than Python converts: no type holds them
                raise _err(f"invalid number: \"{short(v.strip())}\", constant does not fit "
                           f"[{lo}; {hi}]") from None
        else:
            raise _err(f"expected an integer, got {type(v).__name__}")
        if not lo <= x <= hi:
            raise _err(f"invalid number: \"{_int_text(x)}\", constant does not fit "
                       f"[{lo}; {hi}]")
        return x
    return conv


def _int_text(x: int) -> str:
    """``x`` in decimal, or how long it is when Python will not convert it."""
    try:
        return short(str(x))
    except ValueError:
        return f"{'-' if x < 0 else ''}<an integer of {x.bit_length()} bits>"


def _fnv(data: bytes, bits: int, alternate: bool) -> int:
    """FNV-1 (``alternate``: FNV-1a) of ``data``, as flatbuffers' ``hash.h``."""
    if bits == 32:
        h, prime, mask = 2166136261, 16777619, 0xFFFFFFFF
    else:
        # flatbuffers' hash.h has this offset basis (FNV's own is ...2325)
        h, prime, mask = 0xCBF29CE484222645, 1099511628211, 0xFFFFFFFFFFFFFFFF
    if alternate:
        for c in data:
            h = ((h ^ c) * prime) & mask
    else:
        for c in data:
            h = ((h * prime) & mask) ^ c
    return h


_HASHES = {"fnv1_32": (32, False), "fnv1a_32": (32, True),
           "fnv1_64": (64, False), "fnv1a_64": (64, True)}


def _hash_converter(sc: _Scalar, function: str) -> _Scalar:
    """``sc`` for a field with ``(hash: function)``: a string (or a bare identifier in
    flatc's JSON) is stored as its hash, cut at the first NUL as flatc's C string is and
    wrapped to the field's type; numbers convert as usual. flatc only hashes 32- and 64-bit
    fields with a function of their width (others parse as plain integers)."""
    spec = _HASHES.get(function)
    if spec is None or spec[0] != sc.size * 8 or sc.fmt not in "iIqQ":
        return sc
    bits, alternate = spec
    signed = sc.fmt in "iq"
    base = sc.conv

    def conv(v: Any) -> Any:
        if isinstance(v, str) and type(v) is not Call and (
                not isinstance(v, Bare) or v[:1].isalpha() or v[:1] == "_"):
            data = v.encode("utf-8", "surrogatepass").split(b"\0", 1)[0]
            h = _fnv(data, bits, alternate)
            if signed and h >= 1 << (bits - 1):
                h -= 1 << bits
            return h
        return base(v)
    return _Scalar(conv, sc.fmt, sc.size, hashed=True)


def _float_converter(bits: int) -> Callable[[Any], float]:
    def conv(v: Any) -> float:
        if isinstance(v, (int, float)):
            try:
                x = float(v)
            except OverflowError:  # an int past the doubles: infinite, as flatc's strtod
                x = math.inf if v > 0 else -math.inf
        elif isinstance(v, str):
            if type(v) is Call:
                x = _call_value(v)
            elif type(v) is Escaped:
                raise _not_a_number(v)
            else:
                x = _parse_float_text(v)
        else:
            raise _err(f"expected a number, got {type(v).__name__}")
        return f32(x) if bits == 32 else x
    return conv


class _Scalar:
    """How one scalar type is converted and packed."""

    __slots__ = ("conv", "fmt", "hashed", "size")

    def __init__(self, conv: Callable[[Any], Any], fmt: str, size: int,
                 hashed: bool = False) -> None:
        self.conv = conv
        self.fmt = fmt
        self.size = size
        self.hashed = hashed  # a hash field taking strings (flatc hashes JSON's null too)
