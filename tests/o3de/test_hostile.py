"""Hostile input: wrong JSON types everywhere, deep nesting, huge and long numbers, malformed
uuids and colours. Loads end in a Result or a DecodeError, never another exception."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de import JsonPairs, Outcomes, Registry, load, load_direct, load_type_id, store

TYPES = ["bool", "char", "unsigned char", "short", "int", "AZ::u64", "AZ::s64", "float",
         "double", "string", "Uuid", "Vector2", "Vector3", "Vector4", "Quaternion", "Color",
         "Matrix3x3", "Matrix3x4", "Matrix4x4", "Transform", "E", "Node", "vector<Node>",
         "set<int>", "fixed_vector<int,2>", "array<float,3>", "pair<int,string>",
         "tuple<bool,Color,E>", "map<string,int>", "unordered_map<int,Node*>",
         "unordered_multimap<string,Vector3>", "shared_ptr<Node>", "any", "signed char",
         "optional<int>", "unordered_set<double>"]


def registry() -> Registry:
    reg = Registry()
    reg.add_enum("E", [("A", 1), ("B", 6), ("C", -8)], underlying="short")
    reg.add_class("Node", "{00000000-0000-0000-0000-0000000000AA}",
                  [("value", "int"), ("next", "Node*"), ("tags", "vector<string>"),
                   ("color", "Color")])
    reg.add_class("Leaf", None, [("weight", "float")], bases=["Node"])
    return reg


REG = registry()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
    | st.sampled_from(["0x1F", "{8651B6DA-9792-407C-A46D-A6E2E39CA900}", "$type", "{}", "RGB",
                       "HEXA", "Leaf", "nan", "inf", "-0", "1e400", "A", "Key", "Value"]),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.sampled_from(["$type", "value", "next", "Key", "Value", "RGB", "RGBA8",
                                       "HEX", "X", "y", "Translation", "Scale", "{}", "a", "tags",
                                       "Rotation", "yaw", "pitch", "roll", "w"]),
                      inner, max_size=5)
    | st.lists(st.tuples(st.sampled_from(["$type", "value", "Value", "x"]), inner),
               max_size=4).map(JsonPairs),
    max_leaves=20)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(TYPES), json_values, st.booleans(), st.booleans())
def test_any_json_into_any_type(type_name: str, value: Any, direct: bool, clear: bool) -> None:
    loader = load_direct if direct else load
    _, result = loader(type_name, value, registry=REG, clear_containers=clear)
    assert isinstance(result.outcome, Outcomes)
    load_type_id(value, registry=REG, base_type="Node")


def test_deep_nesting_is_a_decode_error() -> None:
    doc: Any = {"value": 1}
    for _ in range(100_000):
        doc = {"next": doc}
    with pytest.raises(DecodeError) as caught:
        load("Node", doc, registry=REG)
    assert "nest" in str(caught.value) and caught.value.path.startswith("$/next/next")


def test_deep_and_cyclic_values_are_an_encode_error() -> None:
    node = REG.create(REG.resolve("Node"))
    node.next = node
    with pytest.raises(EncodeError):
        store(node, registry=REG)


def test_long_and_huge_numbers() -> None:
    digits = "9" * 100_000
    for type_name in ("int", "AZ::u64", "double", "float", "bool", "E", "string", "Uuid"):
        for value in (digits, "-" + digits, "0x" + "f" * 100_000, "0." + digits, 10**100_000,
                      -(10**100_000), 1e308, digits + "e-99999"):
            _, result = load(type_name, value, registry=REG)
            assert isinstance(result.outcome, Outcomes)
    assert load("int", digits, registry=REG)[1].outcome is Outcomes.Unsupported
    assert load("double", "0." + digits, registry=REG)[0] == 1.0
    assert load("string", 10**100_000, registry=REG)[0] == "inf"


@pytest.mark.parametrize("text", ["{8651B6DA-9792-407C-A46D-A6E2E39CA90}",
                                  "{8651B6DA-9792407C-A46D-A6E2E39CA900}", "8651B6DA-9792-407C-"
                                  "A46D-A6E2E39CA900", "{" * 10_000, "{" + "0" * 10_000 + "}",
                                  "{00000000-0000-0000-0000-000000000000} x"])
def test_malformed_uuids_leave_the_value(text: str) -> None:
    value, result = load("Uuid", text, registry=REG)
    assert result.outcome is Outcomes.Unsupported and value.int == 0


@pytest.mark.parametrize("colour", [{"HEX": "GG0000"}, {"HEXA": "FF00"}, {"RGB8": [1, 2]},
                                    {"RGBA": [1.0, 1.0, 1.0, "x"]}, {"RGB": "red"},
                                    {"rgba8": [1, 2, 3, 2**64]}, [1, 2, 3], {"nothing": 1}])
def test_malformed_colours_are_unsupported(colour: Any) -> None:
    _, result = load("Color", colour, registry=REG)
    assert result.outcome is Outcomes.Unsupported


def test_time_grows_linearly() -> None:
    def seconds(count: int) -> float:
        doc = {"tags": ["x"] * count, "value": "0x10"}
        start = time.perf_counter()
        load("Node", doc, registry=REG)
        return time.perf_counter() - start

    small, large = seconds(2_000), seconds(20_000)
    assert large < small * 10 * 4 + 0.05


def test_member_names_must_be_strings() -> None:
    with pytest.raises(DecodeError):
        load("Node", {1: 2}, registry=REG)


@pytest.mark.parametrize(("value", "type_name"), [(10**5000, "int"), ([10**5000], "int"),
                                                  (10**5000, "E"), ([1] * 10**5, "string"),
                                                  (10**5000, None)],
                         ids=["int", "list", "enum", "long list", "no type"])
def test_store_of_a_wrong_value_is_an_encode_error(value: Any, type_name: str | None) -> None:
    with pytest.raises(EncodeError) as caught:
        store(value, type_name, registry=REG)
    assert len(str(caught.value)) < 300
