"""Dictionary keys as Godot compares them: ``godot_key`` and :class:`Dictionary`'s index."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gameserde.godot import (
    Dictionary,
    PackedInt32Array,
    PackedStringArray,
    StringName,
    TypedArray,
    TypedDictionary,
    Vector2,
    Vector2i,
    decode,
    encode,
)
from gameserde.godot.types import godot_key


def deep_list(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


EQUAL_PAIRS = [
    ([1, [2, {"a": 3}]], [1, [2, {"a": 3}]]),
    ({"a": [1]}, Dictionary([("a", [1])])),
    (Dictionary([([1], 2)]), TypedDictionary("Array", "int", [([1], 2)])),
    ([math.nan], [float("nan")]),
    ("a", StringName("a")),
    ([Vector2(1, math.nan)], [Vector2(1, math.nan)]),
    (TypedArray("int", [1]), [1]),
    (deep_list(5_000), deep_list(5_000)),
]

DIFFERENT_PAIRS = [
    ([1], [1.0]),
    ([1], [True]),
    ([1.0], [True]),
    (["a"], PackedStringArray(["a"])),
    ([Vector2(1, 2)], [Vector2i(1, 2)]),
    ({"a": 1}, {"a": 2}),
    ([b"\x01"], [PackedInt32Array([1])]),
    ([[1], [2]], [[1], [3]]),
    (deep_list(5_000, 0), deep_list(5_000, 1)),
    ([[]], [{}]),
]


@pytest.mark.parametrize(("a", "b"), EQUAL_PAIRS, ids=range(len(EQUAL_PAIRS)))
def test_equal_keys(a: Any, b: Any) -> None:
    ka, kb = godot_key(a), godot_key(b)
    assert ka == kb and hash(ka) == hash(kb)
    assert (ka != kb) is False


@pytest.mark.parametrize(("a", "b"), DIFFERENT_PAIRS, ids=range(len(DIFFERENT_PAIRS)))
def test_different_keys(a: Any, b: Any) -> None:
    assert godot_key(a) != godot_key(b)


def test_index_of_composite_keys() -> None:
    d = Dictionary([([1, {"x": [2]}], "first"), (deep_list(3), "deep")])
    d[[1, {"x": [2]}]] = "again"  # an equal key: same entry, same position
    d[[1.0, {"x": [2]}]] = "float"  # 1.0 is not 1: a new entry
    assert d.values() == ["again", "deep", "float"]
    assert d[deep_list(3)] == "deep" and deep_list(2) not in d
    nested = Dictionary([(d, "d")])
    assert nested[Dictionary(d.items())] == "d"


def test_key_containing_itself_is_refused() -> None:
    loop: list[Any] = [1]
    loop.append([loop])
    with pytest.raises(ValueError, match="contains itself"):
        godot_key(loop)


def test_shared_child_is_not_a_cycle() -> None:
    child = [1]
    assert godot_key([child, child]) == godot_key([[1], [1]])


def test_equal_composite_keys_decode_to_one_entry() -> None:
    key = Dictionary([([1, 2], {"a": [3]})])
    data = bytearray(encode(Dictionary([(key, 1)])))
    data[4] = 2  # the same entry twice: the second wins, as in the engine
    data += data[8:]
    value = decode(bytes(data))
    assert isinstance(value, Dictionary) and len(value) == 1
    assert value[key] == 1
