"""Values and map keys as messages and paths show them: short, and never through Python's own
limits (``str`` of an integer of more than 4300 digits raises)."""

from __future__ import annotations

import math
import reprlib
from typing import Any

from gameserde.errors import path_key

KEY_STEP_LIMIT = 40
"""Longest text a map key's path step shows; longer keys are named by their entry's index."""

SHOWN_LIMIT = 40
"""Longest value a message shows; longer ones are cut and end with ``...``."""

_WIDE_INT = 128
"""Integers wider than this many bits are shown by their number of digits."""


def digits(value: int) -> int:
    """How many decimal digits ``abs(value)`` has (without ``str``, which refuses long ones)."""
    magnitude = abs(value)
    if magnitude < 10:
        return 1
    count = int(math.log10(magnitude)) + 1
    if 10 ** (count - 1) > magnitude:
        count -= 1
    elif 10 ** count <= magnitude:
        count += 1
    return count


class _Repr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _WIDE_INT:
            return f"<an integer of {digits(x)} digits>"
        return repr(x)


_REPR = _Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = SHOWN_LIMIT
_REPR.maxlevel = 2


def shown(value: Any) -> str:
    """``value`` as a message shows it: its repr, at most about :data:`SHOWN_LIMIT`
    characters (an integer too long to show by its number of digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and (
            value.bit_length() > _WIDE_INT):
        return f"an integer of {digits(value)} digits"
    text = _REPR.repr(value)
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT - 3] + "..."


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an" (``an int``, ``a short``)."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def map_value_step(key: object, index: int) -> str:
    """The path step of a map's value: its key when that is a bool, an integer or short text,
    else the entry's index (``[<value 3>]``)."""
    if isinstance(key, bool):
        return "[true]" if key else "[false]"
    if isinstance(key, int) and key.bit_length() <= _WIDE_INT:
        return f"[{key}]"
    if isinstance(key, str) and len(key) <= KEY_STEP_LIMIT:
        return path_key(key)
    return f"[<value {index}>]"


def map_key_step(index: int) -> str:
    """The path step of a map's key (of the entry ``index``)."""
    return f"[<key {index}>]"
