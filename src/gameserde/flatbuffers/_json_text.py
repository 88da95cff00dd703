"""flatc-style JSON text (``flatc --json [--strict-json]``, spec flatbuffers.md §5).

Formats values already read from a buffer: floats as C++ ``std::fixed`` with precision 6
(32-bit) or 12 (64-bit) with trailing zeros stripped (``.0`` kept), NaN/infinity bare
(``nan``, ``-nan``, ``inf``, ``-inf``), strings with flatc's escapes (``\\uXXXX`` in upper case,
surrogate pairs above U+FFFF), enums by name.
"""

from __future__ import annotations

import math
import re

from gameserde.errors import DecodeError
from gameserde.schema.model import Enum

__all__ = ["enum_text", "format_float", "quote_string"]

_SIMPLE = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f", '"': '\\"',
           "\\": "\\\\"}
_NEEDS_ESCAPE = re.compile(r'[^\x20\x21\x23-\x5b\x5d-\x7e]')
_BAD_BYTES = re.compile('[\udc80-\udcff]')


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    simple = _SIMPLE.get(c)
    if simple is not None:
        return simple
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


def quote_string(s: str) -> str:
    """``s`` in double quotes, escaped as flatc escapes it (without ``--natural-utf8``).

    A string read from invalid UTF-8 (its bad bytes kept as U+DC80..U+DCFF) is refused, as
    flatc refuses it without ``--allow-non-utf8``.
    """
    if _BAD_BYTES.search(s):
        raise DecodeError("a string is not valid UTF-8 (flatc prints such strings only with "
                          "--allow-non-utf8)", format="flatbuffers")
    return '"' + _NEEDS_ESCAPE.sub(_escape, s) + '"'


def format_float(value: float, bits: int) -> str:
    """A float as flatc prints it: ``std::fixed``, 6 or 12 digits, trailing zeros stripped."""
    if value != value:
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if value in (math.inf, -math.inf):
        return "inf" if value > 0 else "-inf"
    s = f"{value:.{6 if bits == 32 else 12}f}"
    p = len(s.rstrip("0")) - 1
    return s[:p + (2 if s[p] == "." else 1)]


def enum_text(enum: Enum, value: int) -> str:
    """An enum value as flatc prints it: ``"Name"``, ``"A B"`` for bit flags, else the number."""
    name = enum.name_of(value)
    if name is not None:
        return f'"{name}"'
    if enum.bit_flags and value:
        names = enum.flag_names(value)
        if names:
            return '"' + " ".join(names) + '"'
    return str(value)
