"""Compare, JSON Patch, JSON Merge Patch and CreatePatch as O3DE runs them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde import o3de
from gameserde.errors import DecodeError
from gameserde.o3de.patch import LIMIT
from gameserde.o3de.text import JsonObject, parse
from tests.o3de.strategies import INT64, NAMES, TEXT

LEAVES = st.none() | st.booleans() | INT64 | st.floats(allow_nan=False,
                                                        allow_infinity=False) | TEXT
UNIQUE = st.recursive(LEAVES, lambda c: st.lists(c, max_size=4)
                      | st.dictionaries(NAMES, c, max_size=4), max_leaves=20)
"""Documents without repeated names (a patch cannot tell repeated members apart)."""
NO_NULLS = st.recursive(LEAVES.filter(lambda v: v is not None),
                        lambda c: st.lists(c, max_size=4) | st.dictionaries(NAMES, c,
                                                                             max_size=4),
                        max_leaves=20)


@given(UNIQUE, UNIQUE)
def test_json_patch_turns_source_into_target(source: Any, target: Any) -> None:
    created = o3de.create_patch(source, target, "JsonPatch")
    assert created.result.processing.name == "Completed"
    applied = o3de.apply_patch(source, created.value, "JsonPatch")
    assert applied.result.outcome.name == "Success", applied
    assert o3de.json_equal(applied.value, target)
    assert (created.value == []) == o3de.json_equal(source, target)


@given(UNIQUE, NO_NULLS)
def test_merge_patch_turns_source_into_target(source: Any, target: Any) -> None:
    created = o3de.create_patch(source, target, "JsonMergePatch")
    if created.result.outcome.name == "DefaultsUsed":
        assert o3de.json_equal(source, target)
        # CreateMergePatchInternal writes the (empty) object for an object target only
        assert created.value == ({} if isinstance(target, dict) else None)
        return
    assert created.result.outcome.name in ("Success", "PartialDefaults"), created
    applied = o3de.apply_patch(source, created.value, "JsonMergePatch")
    assert o3de.json_equal(applied.value, target)


@given(UNIQUE, UNIQUE)
def test_compare_is_an_order(a: Any, b: Any) -> None:
    forward, backward = o3de.compare(a, b), o3de.compare(b, a)
    assert {forward, backward} in ({"Equal"}, {"Less", "Greater"})
    assert o3de.compare(a, a) == "Equal"


@given(UNIQUE)
def test_patching_leaves_its_inputs_alone(document: Any) -> None:
    before = o3de.write(document)
    patch = [{"op": "add", "path": "", "value": document}]
    result = o3de.apply_patch(document, patch)
    o3de.apply_patch(document, {"x": document}, "JsonMergePatch")
    assert o3de.write(document) == before and o3de.write(result.value) == before


def test_compare_rules() -> None:
    assert o3de.compare(False, True) == "Less"
    assert o3de.compare({}, []) == "Less" and o3de.compare("z", 0) == "Less"
    assert o3de.compare([1, 2], [3]) == "Greater"
    assert o3de.compare({"b": 1, "a": 2}, {"a": 2, "b": 1}) == "Equal"
    assert o3de.compare(1 << 53, float(1 << 53) + 1) == "Equal"  # as doubles
    assert o3de.compare("é", "z") == "Greater"


def test_equality_is_rapidjsons() -> None:
    assert o3de.json_equal(-1, (1 << 64) - 1)
    assert not o3de.json_equal(True, 1) and o3de.json_equal(42, 42.0)
    assert o3de.json_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})


def apply(target: Any, *ops: dict[str, Any]) -> o3de.PatchResult:
    return o3de.apply_patch(target, list(ops))


def test_add_replaces_the_first_of_repeated_names() -> None:
    target = parse('{"a": 1, "b": 2, "a": 3}')
    result = apply(target, {"op": "add", "path": "/a", "value": 9})
    assert isinstance(result.value, JsonObject)
    assert result.value.pairs == [("a", 9), ("b", 2), ("a", 3)]
    removed = apply(target, {"op": "remove", "path": "/a"})
    assert removed.value == {"b": 2, "a": 3}


def test_merge_null_moves_the_last_member() -> None:
    result = o3de.apply_patch({"a": 1, "b": 2, "c": 3, "d": 4}, {"b": None}, "JsonMergePatch")
    assert list(result.value) == ["a", "d", "c"]
    remove = apply({"a": 1, "b": 2, "c": 3}, {"op": "remove", "path": "/a"})
    assert list(remove.value) == ["b", "c"]


@pytest.mark.parametrize(("ops", "outcome"), [
    ([{"op": "move", "from": "/a", "path": "/a/b"}], "Invalid"),
    ([{"op": "add", "path": "/x/y", "value": 1}], "Invalid"),
    ([{"op": "add", "path": "/n/5", "value": 1}], "Invalid"),
    ([{"op": "add", "path": "/n/01", "value": 1}], "Invalid"),
    ([{"op": "add", "path": "/s/0", "value": 1}], "TypeMismatch"),
    ([{"op": "remove", "path": "/n/-"}], "Invalid"),
    ([{"op": "replace", "path": "/zz", "value": 1}], "Invalid"),
    ([{"op": "copy", "path": "/c"}], "Missing"),
    ([{"op": "copy", "from": 3, "path": "/c"}], "TypeMismatch"),
    ([{"op": "add", "path": "/~2", "value": 1}], "Invalid"),
    ([{"op": "test", "path": "/n", "value": [1, 2.0]}], "Success"),
    ([{"op": "test", "path": "/n", "value": [1]}], "TestFailed"),
    ([{"op": 5, "path": ""}], "TypeMismatch"),
    ([{"op": "add", "path": 1, "value": 1}], "TypeMismatch"),
])
def test_json_patch_outcomes(ops: list[Any], outcome: str) -> None:
    result = o3de.apply_patch({"a": {"b": 1}, "n": [1, 2], "s": "x"}, ops)
    assert result.result.outcome.name == outcome, result
    if outcome != "Success":
        assert result.result.processing.name == "Halted" and result.value == {}


def test_pointers() -> None:
    target = {"a b": {"~/": [10, 20]}}
    def outcome(path: str, value: int) -> str:
        return apply(target, {"op": "test", "path": path, "value": value}).result.outcome.name
    assert outcome("/a b/~0~1/1", 20) == "Success"
    assert outcome("#/a%20b/~0~1/0", 10) == "Success"
    assert outcome("#/a b", 1) == "Invalid"
    appended = apply(target, {"op": "add", "path": "/a b/~0~1/-", "value": 30})
    assert appended.value == {"a b": {"~/": [10, 20, 30]}}
    first = apply(target, {"op": "add", "path": "/a b/~0~1/0", "value": 5}).value
    assert first == {"a b": {"~/": [5, 10, 20]}}


def test_repeated_names_in_an_entry_take_the_first() -> None:
    entry = parse('{"op": "add", "path": "/x", "value": 1, "op": "remove", "value": 2}')
    assert apply({}, entry).value == {"x": 1}


def test_create_patch_shapes() -> None:
    ops = o3de.create_patch({"a": [1, 2, 3], "b": 1}, {"c": 1, "a": [1]}).value
    assert ops == [{"op": "add", "path": "/c", "value": 1},
                   {"op": "remove", "path": "/a/2"}, {"op": "remove", "path": "/a/1"},
                   {"op": "remove", "path": "/b"}]
    merge = o3de.create_patch({"a": {"x": 1}, "b": 2}, {"a": {"x": 1}, "c": 3},
                              "JsonMergePatch")
    # CreateMergePatchInternal adds a member only when its own result is Success or
    # PartialDefaults: the unchanged object "a" (DefaultsUsed) is left out
    assert merge.value == {"c": 3, "b": None}
    assert merge.result.outcome.name == "PartialDefaults"
    empty = o3de.create_patch({}, {"a": {"bb": {}}}, "JsonMergePatch")  # TestCases_Patching
    assert empty.value == {"a": {"bb": {}}} and empty.result.outcome.name == "Success"
    refused = o3de.create_patch({"a": 1}, {"a": None}, "JsonMergePatch")
    assert refused.value is None and refused.result.outcome.name == "Unsupported"
    assert refused.result.processing.name == "Altered"
    same = o3de.create_patch([1, {"a": 2}], [1, {"a": 2}])
    assert (same.value, same.result.outcome.name) == ([], "DefaultsUsed")
    mixed = o3de.create_patch([1, 2], [1, 3])
    assert mixed.result.outcome.name == "PartialDefaults"


def test_refuses_what_is_not_json() -> None:
    with pytest.raises(DecodeError):
        o3de.apply_patch({1, 2}, [])
    with pytest.raises(DecodeError):
        o3de.compare({"a": object()}, {"a": 1})
    with pytest.raises(DecodeError):
        o3de.apply_patch({}, [], "RFC6902")
    deep: Any = 0
    for _ in range(LIMIT + 1):
        deep = [deep]
    with pytest.raises(DecodeError):
        o3de.compare(deep, deep)
    with pytest.raises(DecodeError):
        o3de.create_patch(deep, [deep])


def test_copy_bombs_stop_at_the_allowance() -> None:
    bomb = [{"op": "copy", "from": "", "path": f"/{n}"} for n in range(60)]
    with pytest.raises(DecodeError, match="allowance"):
        o3de.apply_patch({"x": list(range(10))}, bomb)
    fine = o3de.apply_patch({"x": [1]}, bomb[:10])
    assert fine.result.outcome.name == "Success" and len(fine.value) == 11


def test_json_pairs_from_store_are_objects() -> None:
    pairs = o3de.JsonPairs([("a", 1), ("a", 2)])
    assert o3de.write(pairs) == '{\n    "a": 1,\n    "a": 2\n}'
    assert o3de.compare(pairs, o3de.parse('{"a": 1, "a": 2}')) == "Equal"
    patched = o3de.apply_patch(pairs, [{"op": "remove", "path": "/a"}])
    assert patched.value == {"a": 2}
    parsed = o3de.parse('{"a": 1, "a": 2}')
    assert list(parsed.items()) == [("a", 1), ("a", 2)] and parsed["a"] == 1


def test_the_stopping_issue_names_the_entry() -> None:
    result = apply({}, {"op": "add", "path": "/a", "value": 1}, {"op": "copy", "path": "/b"})
    assert [(i.path, i.code.outcome) for i in result.result.issues] == [
        ("/1/from", o3de.Outcomes.Missing)]
    assert result.result.code.task == o3de.Tasks.Merge and not result.result.ok
    assert o3de.create_patch({}, {}).result.code.has_done_work is False
