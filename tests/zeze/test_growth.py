"""What hostile Zeze inputs cost at n, 4n and 16n bytes: the calls the pure path makes grow
linearly, and so does the peak traced memory of both paths, which also stays under an
absolute bound proportional to the input (the decode succeeds within it, or raises the
DecodeError that names max_expansion).

Families: lists of empty beans whose defaults are large (a 10-level binary tree of beans,
3,070 values each; 200 vector4 fields) and of empty beans within the budget (16 ints), read
with the default ``max_expansion``; schema-less trees of beans nested n levels deep, read
and then compared, hashed, printed and made plain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gameserde import zeze
from gameserde.zeze.codec import EXPANSION_SLACK, MAX_EXPANSION
from gameserde.zeze.generic import decode_generic_bean, to_plain
from tests.fuzz.test_growth import MEMORY_SLACK, SLACK, calls, peak

from .test_expansion import SCHEMA, empty_beans

BYTES_PER_DEFAULT = 160
"""The peak traced memory a default value may take (measured: about 125 bytes in the
binary trees, where most values are small bean dicts; 50 in beans of vectors)."""

DEFAULTS_BOUND = (int(MAX_EXPANSION) * BYTES_PER_DEFAULT, EXPANSION_SLACK * BYTES_PER_DEFAULT
                  + (256 << 10))
"""Peak traced memory <= K x input bytes + C for a decode with the default max_expansion."""

TREE_BOUND = (1536, 64 << 10)
"""Peak traced memory <= K x input bytes + C for a schema-less tree and what is done with
it (measured: about 1,000 bytes an input byte, 2 bytes a level)."""


def decode(bean: str) -> Callable[[bytes], Any]:
    return lambda data: zeze.decode(SCHEMA, bean, data)


def every_operation(data: bytes) -> Any:
    tree, again = decode_generic_bean(data), decode_generic_bean(data)
    assert tree == again and hash(tree) == hash(again)
    return repr(tree), to_plain(tree)


def nested_beans(levels: int) -> bytes:
    return b"\x16" * levels + b"\x00" * (levels + 1)


FAMILIES: dict[str, tuple[Callable[[int], bytes], Callable[[bytes], Any], tuple[int, ...],
                          tuple[int, int]]] = {
    "binary trees of defaults": (empty_beans, decode("L"), (64, 256, 1024), DEFAULTS_BOUND),
    "beans of 200 vector4": (empty_beans, decode("LV"), (64, 256, 1024), DEFAULTS_BOUND),
    "beans of 16 ints": (empty_beans, decode("LW"), (64, 256, 1024), DEFAULTS_BOUND),
    "schema-less nesting": (nested_beans, every_operation, (60, 240, 960), TREE_BOUND),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_cost_grows_linearly_within_an_absolute_bound(family: str) -> None:
    make, run, sizes, (k, c) = FAMILIES[family]
    inputs = [make(n) for n in sizes]
    costs = [(calls(lambda d=d: run(d)), peak(lambda d=d: run(d))) for d in inputs]
    for data, (_, memory) in zip(inputs, costs, strict=True):
        assert memory <= k * len(data) + c, (len(data), memory)
    (d1, (c1, m1)), (d2, (c2, m2)) = (inputs[0], costs[0]), (inputs[-1], costs[-1])
    grow = len(d2) / len(d1)
    assert c2 <= SLACK * grow * c1 + 2000, f"calls grew from {c1} to {c2}"
    assert m2 <= MEMORY_SLACK * grow * m1 + (64 << 10), f"peak grew from {m1} to {m2}"
