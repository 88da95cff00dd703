"""Hypothesis strategies for O3DE JSON values (``gameserde.o3de.text``)."""

from __future__ import annotations

import struct
from typing import Any

from hypothesis import strategies as st

from gameserde.o3de.text import JsonObject

INT64 = st.integers(-(1 << 63), (1 << 64) - 1)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
NAMES = st.text("ab~/\"\\\u00e9\U0001f600", max_size=3)
FLOAT32 = st.floats(width=32, allow_nan=False, allow_infinity=False).map(float)
EXACT = st.builds(lambda n, k: n / 10 ** k, st.integers(-10 ** 14, 10 ** 14),
                  st.integers(0, 14))
"""Doubles rapidjson reads back exactly: at most 15 digits over a small power of ten."""
ANY_DOUBLE = st.floats(allow_nan=False, allow_infinity=False)


def bits(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects, some with repeated names (then a :class:`JsonObject`)."""
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        return JsonObject(pairs) if len(value) != len(pairs) else value
    return st.lists(st.tuples(NAMES, children), max_size=4).map(build)


def documents(doubles: st.SearchStrategy[float] = EXACT) -> st.SearchStrategy[Any]:
    leaves = st.none() | st.booleans() | INT64 | doubles | TEXT
    return st.recursive(leaves, lambda c: st.lists(c, max_size=4) | objects(c), max_leaves=20)
