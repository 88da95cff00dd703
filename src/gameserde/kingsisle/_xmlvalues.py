"""Leaf values as the text of the XML debug form (libki's ``XmlSerializer`` conventions), both
ways: integers in decimal, bools ``1``/``0``, floats with ``max_digits10`` significant digits
(exact), enums as option names, leaf structs as their components separated by spaces, strings
as XML text or, where XML cannot hold them, as hexadecimal (see ``xmltext``'s documentation).

Writing raises :class:`EncodeError` for values the binary form could not hold either; reading
raises :class:`TextError`, which the reader turns into a DecodeError with a line and a path.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

from gameserde._float32 import float32_from_bits, float32_to_bits
from gameserde.errors import EncodeError
from gameserde.kingsisle.serializer import (
    _INTS,
    _STRUCTS,
    _enum_value,
    _float_in,
    _int_in,
    _show,
    _struct_parts,
    _utf8,
    option_value,
)
from gameserde.schema.model import Enum

__all__ = ["NOT_XML", "WHITESPACE", "TextError", "attribute", "enum_text", "leaf_text",
           "parse_enum", "parse_leaf", "parse_struct", "struct_text"]

_D = struct.Struct("<d")
_Q = struct.Struct("<Q")

NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character XML 1.0 cannot hold, not even as a character reference."""

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;",
                          '"': "&quot;", "\r": "&#13;"})
"""rapidxml's five entities (libki prints with rapidxml), and a carriage return kept."""

_ATTRIBUTE_ESCAPES = str.maketrans({**{chr(k): v for k, v in _ESCAPES.items()},
                                    "\n": "&#10;", "\t": "&#9;"})

_INT = re.compile(r"[+-]?[0-9]{1,40}\Z")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_NAN_BITS = re.compile(r"nan\(0x([0-9a-fA-F]{1,16})\)\Z")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*\Z")
_SEPARATORS = re.compile(r"[\s,]+")
WHITESPACE = " \t\r\n"
"""The blanks XML allows around values."""
_BOOLS = {"1": True, "0": False, "true": True, "false": False}
_INFINITIES = {"inf": 1, "+inf": 1, "infinity": 1, "+infinity": 1, "-inf": -1,
               "-infinity": -1}

# float type -> (bits, printf format of max_digits10 digits, the quiet NaN's bits, the
# exponent's bits, the fraction's bits)
_FLOATS = {"float": (32, "%.9g", 0x7FC00000, 0x7F800000, 0x7FFFFF),
           "double": (64, "%.17g", 0x7FF8000000000000, 0x7FF0000000000000, (1 << 52) - 1)}


class TextError(ValueError):
    """The text of a value does not read as its type."""


def attribute(text: str) -> str:
    """``text`` as an attribute value in double quotes (blanks kept as references)."""
    return text.translate(_ATTRIBUTE_ESCAPES)


# -- writing -------------------------------------------------------------------------------


def leaf_text(type_name: str, value: Any) -> tuple[str, bool]:
    """The text of a leaf value (not an enum or a struct) as XML character data, and whether
    it is the hexadecimal form of a string XML cannot hold."""
    if type_name == "bool":
        if not isinstance(value, bool):
            raise EncodeError(f"a bool must be True or False, not {_show(value)}",
                              format="kingsisle")
        return ("1" if value else "0"), False
    if type_name in _INTS:
        bits, signed, _ = _INTS[type_name]
        return str(_int_in(value, bits, signed, type_name)), False
    if type_name in _FLOATS:
        return _float_text(type_name, value), False
    if type_name == "std::string":
        data = _utf8(value, "a std::string") if isinstance(value, str) else value
        if not isinstance(data, bytes | bytearray):
            raise EncodeError(f"a std::string must be bytes or str, not {_show(value)}",
                              format="kingsisle")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data.hex(), True
        if NOT_XML.search(text):
            return data.hex(), True
        return text.translate(_ESCAPES), False
    if type_name == "std::wstring":
        if not isinstance(value, str):
            raise EncodeError(f"a std::wstring must be a str, not {_show(value)}",
                              format="kingsisle")
        if NOT_XML.search(value):  # lone surrogates, control characters
            return value.encode("utf-16-be", "surrogatepass").hex(), True
        return value.translate(_ESCAPES), False
    raise EncodeError(f"{type_name} is not a type the codec knows", format="kingsisle")


def _float_text(type_name: str, value: Any) -> str:
    bits, fmt, quiet, _, _ = _FLOATS[type_name]
    number = _float_in(value, type_name)
    if bits == 32:
        raw = float32_to_bits(number)
        number = float32_from_bits(raw)
    else:
        raw = _Q.unpack(_D.pack(number))[0]
    if number != number:
        sign = 1 << (bits - 1)
        if raw & ~sign == quiet:
            return "-nan" if raw & sign else "nan"
        return f"nan(0x{raw:0{bits // 4}x})"
    return fmt % number


def enum_text(enum: Enum, value: Any) -> str:
    """An enum value (an int or option names, as the serializer takes them) as option names:
    the option of that value, for bit flags else the options whose bits make it up
    (``A|B``); the decimal number where no names give the value back."""
    number = _enum_value(enum, value)
    for name, v in enum.values.items():
        if v == number:
            return name.translate(_ESCAPES) if _usable(name, enum.bit_flags) else str(number)
    if enum.bit_flags and number:
        names = [n for n, v in enum.values.items() if v and v & number == v]
        covered = 0
        for n in names:
            covered |= enum.values[n]
        if covered == number and all(_usable(n, True) for n in names):
            return "|".join(names).translate(_ESCAPES)
    return str(number)


def _usable(name: str, bit_flags: bool) -> bool:
    """Whether ``name`` reads back as itself: not a number, no blanks at its ends, no ``|``
    in a bit-flag enum, no character XML cannot hold."""
    return (bool(name) and name.strip(WHITESPACE) == name and not _INT.match(name)
            and not (bit_flags and "|" in name) and not NOT_XML.search(name))


def struct_text(type_name: str, value: Any) -> str:
    """A leaf struct's components in wire order, separated by spaces."""
    kind, parts = _struct_parts(type_name, value)
    return " ".join(leaf_text(kind, part)[0] for part in parts)


# -- reading -------------------------------------------------------------------------------


def parse_leaf(type_name: str, text: str, hexed: bool) -> Any:
    """The value of a leaf type (not an enum or a struct) written as ``text``."""
    if type_name == "std::string":
        if hexed:
            return _unhex(text, 2, "a std::string")
        return text.encode("utf-8")
    if type_name == "std::wstring":
        if hexed:
            data = _unhex(text, 4, "a std::wstring")
            return data.decode("utf-16-be", "surrogatepass")
        return text
    word = text.strip(WHITESPACE)
    if type_name == "bool":
        if word not in _BOOLS:
            raise TextError(f"{_show(word)} is not a bool (1, 0, true or false)")
        return _BOOLS[word]
    if type_name in _INTS:
        bits, signed, _ = _INTS[type_name]
        return _parse_int(word, bits, signed, type_name)
    if type_name in _FLOATS:
        return _parse_float(type_name, word)
    raise TextError(f"{type_name} is not a type the codec knows")


def _unhex(text: str, width: int, what: str) -> bytes:
    word = text.strip(WHITESPACE)
    if not _HEX.match(word) or len(word) % width:
        raise TextError(f"the hexadecimal form of {what} has {width} hex digits per unit, "
                        f"not {_show(word)}")
    return bytes.fromhex(word)


def _parse_int(word: str, bits: int, signed: bool, type_name: str) -> int:
    if not _INT.match(word):
        raise TextError(f"{_show(word)} is not a decimal integer (the type is {type_name})")
    value = int(word)
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if not low <= value < high:
        raise TextError(f"{value} does not fit the type {type_name}")
    return value


def _parse_float(type_name: str, word: str) -> float:
    bits, _, quiet, exponent, fraction = _FLOATS[type_name]
    lower = word.lower()
    if _DECIMAL.match(word):
        number = float(word)
        if math.isinf(number) or (bits == 32 and math.isinf(
                float32_from_bits(float32_to_bits(number)))):
            raise TextError(f"{_show(word)} is too large for a {type_name} (infinities are "
                            "written inf and -inf)")
    elif lower in _INFINITIES:
        number = _INFINITIES[lower] * float("inf")
    elif lower in ("nan", "+nan", "-nan"):
        return _float_from_bits(bits, quiet | (1 << (bits - 1) if lower[0] == "-" else 0))
    else:
        match = _NAN_BITS.match(lower)
        if match is None:
            raise TextError(f"{_show(word)} is not a decimal number, inf or nan (the type "
                            f"is {type_name})")
        raw = int(match.group(1), 16)
        if raw >> bits or raw & exponent != exponent or not raw & fraction:
            raise TextError(f"{_show(word)} is not the bits of a {type_name} NaN")
        return _float_from_bits(bits, raw)
    if bits == 32:  # rounded as the binary form rounds it
        return float32_from_bits(float32_to_bits(number))
    return number


def _float_from_bits(bits: int, raw: int) -> float:
    if bits == 32:
        return float32_from_bits(raw)
    value: float = _D.unpack(_Q.pack(raw))[0]
    return value


def parse_enum(enum: Enum, text: str) -> int:
    """An enum written as a decimal number or option names (``A|B`` for bit flags; empty is
    0 there, as in the binary form's human-readable enums)."""
    word = text.strip(WHITESPACE)
    if _INT.match(word):
        return _parse_int(word, 32, False, enum.name)
    value, bad = option_value(enum, word, WHITESPACE)
    if bad is not None:
        raise TextError(f"{_show(bad)} is not an option of {enum.name}")
    return value


def parse_struct(type_name: str, text: str) -> dict[str, Any]:
    """A leaf struct from its components in wire order, separated by blanks or commas."""
    kind, keys = _STRUCTS[type_name]
    words = [w for w in _SEPARATORS.split(text.strip(WHITESPACE)) if w]
    count = 9 if type_name == "class Matrix3x3" else len(keys)
    if len(words) != count:
        raise TextError(f"a {type_name} has {count} numbers ({', '.join(keys)}), not "
                        f"{len(words)}")
    values = [parse_leaf(kind, w, False) for w in words]
    if type_name == "class Matrix3x3":
        return {k: values[3 * n:3 * n + 3] for n, k in enumerate(keys)}
    return dict(zip(keys, values, strict=True))
