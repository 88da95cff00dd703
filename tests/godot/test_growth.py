"""Cost bounded by the input: families of growing hostile inputs, each measured at a size and
at four times that size, must cost at most about four times as much.

Two measures, both deterministic (no clock): the peak of memory traced by ``tracemalloc``
(which sees the C accelerator's allocations too), and the number of Python lines executed
(what the pure-Python paths do, and what the C path hands to Python: the Dictionary key
index, build_dictionary). Linear growth gives a ratio of about 4, quadratic 16; the tests
allow 6 plus a small constant. Run for ``decode`` (C and pure Python), ``from_json`` of the
decoded value's JSON text (both modes), and ``inspect`` (``regions`` and ``render``).
"""

from __future__ import annotations

import gc
import struct
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest

from gameserde.godot import decode, from_json, to_json
from gameserde.godot.inspect import regions, render
from gameserde.godot.jsonview import JsonMode

try:
    from gameserde.godot import _accel
except ImportError:  # pragma: no cover - a library without the accelerator
    _accel = None  # type: ignore[assignment]

MAX_DEPTH = 4000


def u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


NIL = u32(0)


def INT(i: int) -> bytes:
    return u32(2) + struct.pack("<i", i)


def FLOAT(x: float) -> bytes:
    return u32(3) + struct.pack("<f", x)


def STR(text: str) -> bytes:
    raw = text.encode()
    return u32(4, len(raw)) + raw + bytes(-len(raw) % 4)


def DICT(count: int) -> bytes:  # header and size; the entries follow
    return u32(27, count)


def ARRAY(count: int) -> bytes:
    return u32(28, count)


def nested_dictionary_keys(n: int) -> bytes:
    """{{{...: nil}: nil}: nil}: each level's only key is the level below."""
    return DICT(1) * n + NIL + NIL * n


def arrays_in_nested_keys(n: int) -> bytes:
    """{[{[...]: nil}]: nil}: each key an Array holding the Dictionary below."""
    return (DICT(1) + ARRAY(1)) * n + NIL + NIL * n


def keys_in_values_of_keys(n: int) -> bytes:
    """{{"a": {{"a": ...}: nil}}: nil}: a key's value holds a Dictionary keyed by the next."""
    return (DICT(1) + DICT(1) + STR("a")) * n + NIL + NIL * n


def deep_array_key(n: int) -> bytes:
    """{[[[...]]]: nil}: one key n Arrays deep."""
    return DICT(1) + ARRAY(1) * n + NIL + NIL


def deep_arrays(n: int) -> bytes:
    return ARRAY(1) * n + NIL


def array_keys(n: int) -> bytes:
    """n distinct one-element Array keys."""
    return DICT(n) + b"".join(ARRAY(1) + INT(i) + NIL for i in range(n))


def equal_array_keys(n: int) -> bytes:
    """n equal four-element Array keys (they become one entry)."""
    return DICT(n) + b"".join(ARRAY(4) + INT(0) * 4 + INT(i) for i in range(n))


def int_float_keys(n: int) -> bytes:
    """1 and 1.0 are different keys to Godot: a Dictionary, not a dict."""
    return DICT(2 * n) + b"".join(INT(i) + NIL + FLOAT(i) + NIL for i in range(n))


def string_keys(n: int) -> bytes:
    return DICT(n) + b"".join(STR(f"k{i}") + INT(i) for i in range(n))


def repeated_string_key(n: int) -> bytes:
    return DICT(n) + (STR("k") + INT(1)) * n


def long_string(n: int) -> bytes:
    return STR("x" * (16 * n))


def long_key_over_many_values(n: int) -> bytes:
    """One long String key whose value is an Array of n elements (paths repeat the key)."""
    return DICT(1) + STR("k" * (4 * n)) + ARRAY(n) + INT(7) * n


class Family(NamedTuple):
    make: Callable[[int], bytes]
    n: int
    deep: bool  # nested about n levels deep


FAMILIES = [
    Family(nested_dictionary_keys, 60, True),
    Family(arrays_in_nested_keys, 60, True),
    Family(keys_in_values_of_keys, 60, True),
    Family(deep_array_key, 100, True),
    Family(deep_arrays, 100, True),
    Family(array_keys, 150, False),
    Family(equal_array_keys, 100, False),
    Family(int_float_keys, 150, False),
    Family(string_keys, 150, False),
    Family(repeated_string_key, 150, False),
    Family(long_string, 1000, False),
    Family(long_key_over_many_values, 150, False),
]
IDS = [f.make.__name__ for f in FAMILIES]


# ---------------------------------------------------------------------------------------------
# Measures


def peak_memory(fn: Callable[[], Any]) -> int:
    """Peak traced memory of a call (after a warm-up call)."""
    fn()
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def lines_run(fn: Callable[[], Any]) -> int:
    """Python lines executed (and calls made) by a call (after a warm-up call)."""
    fn()
    count = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    saved = sys.gettrace()
    sys.settrace(trace)
    try:
        fn()
    finally:
        sys.settrace(saved)
    return count


MEASURES: dict[str, tuple[Callable[[Callable[[], Any]], int], int]] = {
    # measure, and the constant allowed on top of 6 times the small input's cost
    "memory": (peak_memory, 64 << 10),
    "lines": (lines_run, 400),
}


def assert_linear(family: Family, run: Callable[[bytes], Any], measure: str) -> None:
    how, slack = MEASURES[measure]
    small, large = family.make(family.n), family.make(4 * family.n)
    cost_small = how(lambda: run(small))
    cost_large = how(lambda: run(large))
    assert cost_large <= 6 * cost_small + slack, (
        f"{measure}: {cost_small} for {len(small)} bytes, {cost_large} for {len(large)} bytes "
        f"({cost_large / max(cost_small, 1):.1f} times)")


ACCEL_MODES = [False]
if _accel is not None and _accel.AVAILABLE:
    ACCEL_MODES.insert(0, True)


@pytest.fixture(params=ACCEL_MODES, ids=lambda on: "accel" if on else "pure")
def accel(request: pytest.FixtureRequest) -> Iterator[bool]:
    if _accel is None:
        yield False
        return
    saved = _accel.ENABLED
    _accel.ENABLED = bool(request.param)
    try:
        yield bool(request.param)
    finally:
        _accel.ENABLED = saved


# ---------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_decode_is_linear(family: Family, measure: str, accel: bool) -> None:
    assert_linear(family, lambda data: decode(data, max_depth=MAX_DEPTH), measure)


def _from_json_of(data: bytes, mode: JsonMode) -> Callable[[], Any]:
    text = to_json(decode(data, max_depth=MAX_DEPTH), mode=mode, max_depth=MAX_DEPTH)
    return lambda: from_json(text, mode=mode, max_depth=MAX_DEPTH)


# from_json builds the path text of every value before it is needed: at depth d that is d*d
# characters held at once. Deep families are counted in lines only until it does not.
FROM_JSON_CASES = [pytest.param(f, m, id=f"{f.make.__name__}-{m}")
                   for f in FAMILIES for m in MEASURES if not (f.deep and m == "memory")]


@pytest.mark.parametrize("mode", ["native", "plain"])
@pytest.mark.parametrize(("family", "measure"), FROM_JSON_CASES)
def test_from_json_is_linear(family: Family, measure: str, mode: JsonMode) -> None:
    docs: dict[bytes, Callable[[], Any]] = {}
    assert_linear(family, lambda data: docs.setdefault(data, _from_json_of(data, mode))(),
                  measure)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_inspect_is_linear(family: Family, measure: str) -> None:
    assert_linear(family, lambda data: render(data, regions(data, max_depth=MAX_DEPTH)),
                  measure)


# ---------------------------------------------------------------------------------------------
# The absolute bound: Godot shares nothing, so a value costs what its own bytes spell out. The
# cheapest bytes to decode into the most memory are these (4 or 8 bytes each); peak traced
# memory stays within the per-byte constants of docs/godot.md ("Cost") at n, 4n and 16n.

BYTES_PER_INPUT_BYTE = {"decode": 32, "to_json": 96, "inspect": 160}
"""docs/godot.md's K: peak traced memory per input byte, beyond ``BOUND_SLACK``."""

BOUND_SLACK = 64 << 10


def cheap_values(make: Callable[[int], bytes]) -> Callable[[int], bytes]:
    return lambda n: ARRAY(n) + make(n)


EXPENSIVE = {
    "nils": cheap_values(lambda n: NIL * n),
    "empty_arrays": cheap_values(lambda n: ARRAY(0) * n),
    "empty_dictionaries": cheap_values(lambda n: DICT(0) * n),
    "vector4s": cheap_values(lambda n: (u32(12) + struct.pack("<4f", 1, 2, 3, 4)) * n),
    "int_keys_to_empty_arrays": lambda n: DICT(n) + b"".join(INT(i) + ARRAY(0)
                                                               for i in range(n)),
}
RUNS: dict[str, Callable[[bytes], Any]] = {
    "decode": lambda data: decode(data),
    "to_json": lambda data: to_json(decode(data)),
    "inspect": lambda data: render(data, regions(data)),
}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("family", EXPENSIVE)
def test_memory_is_within_k_times_the_input(family: str, run: str, accel: bool) -> None:
    for n in (100, 400, 1600):
        data = EXPENSIVE[family](n)
        cost = peak_memory(lambda data=data: RUNS[run](data))  # type: ignore[misc]
        bound = BYTES_PER_INPUT_BYTE[run] * len(data) + BOUND_SLACK
        assert cost <= bound, f"{run}: {cost} bytes traced for {len(data)} bytes of input"
