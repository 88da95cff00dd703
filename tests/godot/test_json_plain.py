"""The plain JSON view (``mode="plain"``): JSON's own values as themselves, other engine types
tagged, identical bytes after a round trip; and the text API (``to_json``/``from_json``) of
both modes."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import (
    RID,
    Callable,
    Color,
    ContainerType,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
    PackedColorArray,
    PackedFloat32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    Signal,
    StringName,
    Transform2D,
    TypedArray,
    TypedDictionary,
    Vector2,
    Vector2i,
    Vector3,
    decode,
    encode,
    from_json,
    from_jsonable,
    to_json,
    to_jsonable,
)

from .strategies import ProfileName, numpy_off, rebuild, same, variants

PROPERTY = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CASES: list[tuple[ProfileName, bool]] = [
    ("godot4", False), ("godot4", True), ("godot3", True), ("docs", False)]


def plain(value: Any) -> Any:
    return to_jsonable(value, mode="plain")


def back(doc: Any) -> Any:
    return from_jsonable(doc, mode="plain")


# ---------------------------------------------------------------------------------------------
# Round trips


@pytest.mark.parametrize(("profile", "full"), CASES,
                         ids=[f"{p}{'-full' if f else ''}" for p, f in CASES])
@PROPERTY
@given(data=st.data())
def test_plain_roundtrip_identical_bytes(profile: ProfileName, full: bool,
                                         data: st.DataObject) -> None:
    """Any value, NaN payloads included: text, back to a value, the same bytes; and the text is
    the same from the decoded value and without numpy."""
    v = data.draw(variants(profile, full_objects=full, nan="any"))
    raw = encode(v, profile=profile, full_objects=full)
    text = to_json(v, mode="plain")
    json.loads(text, parse_constant=pytest.fail)  # strict JSON: no bare NaN or Infinity
    again = from_json(text, mode="plain")
    assert encode(again, profile=profile, full_objects=full) == raw
    assert to_json(decode(raw, profile=profile, allow_objects=full), mode="plain") == text
    assert same(again, v)
    with numpy_off():
        assert to_json(rebuild(v), mode="plain") == text
        assert encode(from_json(text, mode="plain"), profile=profile, full_objects=full) == raw


@PROPERTY
@given(v=variants("godot4", full_objects=True, nan="canonical"))
def test_native_text_roundtrip(v: Any) -> None:
    raw = encode(v, full_objects=True)
    text = to_json(v)
    assert text == json.dumps(to_jsonable(v), ensure_ascii=False, separators=(",", ":"))
    assert encode(from_json(text), full_objects=True) == raw
    assert encode(from_json(text.encode("utf-8")), full_objects=True) == raw


# ---------------------------------------------------------------------------------------------
# What plain JSON looks like


def test_json_values_stay_themselves() -> None:
    value = {"hp": 87.5, "level": 12, "name": "Aria", "alive": True, "pet": None,
             "bag": ["bow", 3, 0.5], "stats": {"str": 7}}
    assert plain(value) == value
    assert to_json(value, mode="plain") == (
        '{"hp":87.5,"level":12,"name":"Aria","alive":true,"pet":null,"bag":["bow",3,0.5],'
        '"stats":{"str":7}}')


def test_engine_types_carry_one_tag() -> None:
    value = [StringName("idle"), NodePath.parse("/root/a:b"), Vector3(1, 2, 3),
             Vector2i(4, -2), Color(1, 0.5, 0.25, 1), Transform2D(), b"\x00\xff",
             PackedStringArray(["a"]), PackedInt64Array([2**40]),
             PackedVector2Array([(0.0, 0.0), (10.5, 2.0)]),
             PackedColorArray([(1.0, 1.0, 1.0, 1.0)]), TypedArray("int", [1, 4]),
             TypedArray("Node", []), TypedArray("res://enemy.gd", []),
             Object("Node", {"name": "n", "$x": 1}), EncodedObjectAsID(12), RID(7), Callable(),
             Signal("hit", 5), float("inf"), float("-inf"), float("nan")]
    assert plain(value) == [
        {"$StringName": "idle"}, {"$NodePath": "/root/a:b"}, {"$Vector3": [1.0, 2.0, 3.0]},
        {"$Vector2i": [4, -2]}, {"$Color": [1.0, 0.5, 0.25, 1.0]},
        {"$Transform2D": [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]}, {"$PackedByteArray": [0, 255]},
        {"$PackedStringArray": ["a"]}, {"$PackedInt64Array": [2**40]},
        {"$PackedVector2Array": [[0.0, 0.0], [10.5, 2.0]]},
        {"$PackedColorArray": [[1.0, 1.0, 1.0, 1.0]]}, {"$Array[int]": [1, 4]},
        {"$Array[Node]": []}, {"$Array[res://enemy.gd]": []},
        {"$Object(Node)": {"name": "n", "$$x": 1}}, {"$EncodedObjectAsID": 12}, {"$RID": 7},
        {"$Callable": None}, {"$Signal": ["hit", 5]}, {"$float": "inf"}, {"$float": "-inf"},
        {"$float": "nan"}]
    assert encode(back(plain(value)), full_objects=True) == encode(value, full_objects=True)


def test_dictionaries() -> None:
    """String keys make an object; other keys [key, value] pairs; typed ones a tag."""
    assert plain({"a": 1, "$b": 2, "$": 3}) == {"a": 1, "$$b": 2, "$$": 3}
    assert back({"a": 1, "$$b": 2, "$$": 3}) == {"a": 1, "$b": 2, "$": 3}
    assert plain({1: "one", StringName("k"): 2}) == {
        "$Dictionary": [[1, "one"], [{"$StringName": "k"}, 2]]}
    mixed = Dictionary([(1, "int"), (1.0, "float"), (True, "bool"), ([1], "list")])
    assert plain(mixed) == {"$Dictionary": [[1, "int"], [1.0, "float"], [True, "bool"],
                                            [[1], "list"]]}
    assert encode(back(plain(mixed))) == encode(mixed)
    typed = TypedDictionary("String", "float", [("a", 1.5)])
    assert plain(typed) == {"$Dictionary[String, float]": {"a": 1.5}}
    half = TypedDictionary("int", ContainerType(), [(1, "x")])
    assert plain(half) == {"$Dictionary[int, Variant]": [[1, "x"]]}
    for d in (typed, half):
        assert encode(back(plain(d))) == encode(d)
    assert plain({}) == {} and back({}) == {}
    assert back({"$Dictionary": {"a": 1}}) == {"a": 1}


def test_int_and_float_keep_their_type_through_the_text() -> None:
    assert encode(from_json('{"hp": 87}', mode="plain")) == encode({"hp": 87})
    assert encode(from_json('{"hp": 87.0}', mode="plain")) == encode({"hp": 87.0})
    assert encode({"hp": 87}) != encode({"hp": 87.0})
    assert to_json({"x": 87.0, "y": 1e16, "z": -0.0}, mode="plain") in (
        '{"x":87.0,"y":1e+16,"z":-0.0}', '{"x":87.0,"y":1e16,"z":-0.0}')
    assert math.copysign(1, from_json('{"z": -0.0}', mode="plain")["z"]) == -1


def test_savegame_reads_as_a_modder_expects() -> None:
    value = {"player": {"name": "Aria", "class": StringName("ranger"), "hp": 87.5,
                        "position": Vector3(12.5, 0.0, -3.25)}}
    text = to_json(value, mode="plain", pretty=True)
    assert text == """{
  "player": {
    "name": "Aria",
    "class": {"$StringName": "ranger"},
    "hp": 87.5,
    "position": {"$Vector3": [12.5, 0.0, -3.25]}
  }
}"""
    edited = text.replace("87.5", "100.0").replace("12.5", "20.0")
    assert from_json(edited, mode="plain") == {"player": {
        "name": "Aria", "class": "ranger", "hp": 100.0, "position": Vector3(20.0, 0.0, -3.25)}}


def test_vector_arrays_accept_double_precision_components() -> None:
    v = PackedVector3Array([(0.1, 0.2, 0.3)], itemsize=8)
    assert encode(back(plain(v)), double_precision=True) == encode(v, double_precision=True)
    f = PackedFloat32Array([0.5, float("nan")])
    assert plain(f) == {"$PackedFloat32Array": [0.5, "nan"]}
    assert encode(back(plain(f))) == encode(f)


# ---------------------------------------------------------------------------------------------
# Where plain JSON cannot say it, and malformed input


@pytest.mark.parametrize("value", [
    TypedArray("Variant", []),  # a class named like the untyped side
    TypedDictionary("a, b", "int", []),
])
def test_plain_refuses_what_it_cannot_write(value: Any) -> None:
    with pytest.raises(EncodeError, match="native JSON view"):
        plain(value)


@pytest.mark.parametrize(("doc", "message"), [
    ({"$Vectr3": [1, 2, 3]}, r"unknown type tag \$Vectr3\. Did you mean \$Vector3"),
    ({"$Vector3": [1, 2]}, r"\$Vector3 needs 3 components but has 2"),
    ({"$Vector3": "1,2,3"}, r"\$Vector3 holds an array"),
    ({"a": 1, "$b": 2}, r"key '\$b' starts with \$.*write a key that starts with \$ as \$\$b"),
    ({"$price": 5}, r"unknown type tag \$price\..*one more \$"),
    ({"$StringName": 5}, r"\$StringName holds a string"),
    ({"$PackedByteArray": [256]}, "0 to 255"),
    ({"$PackedStringArray": [1]}, "only strings"),
    ({"$PackedVector2Array": [[1.0]]}, r"list of 2 numbers"),
    ({"$Dictionary": [[1]]}, r"\[key, value\] pair"),
    ({"$Dictionary[int]": []}, "names two types"),
    ({"$Object(Node)": [1]}, "property names"),
    ({"$Callable": 1}, "holds null"),
    ({"$Signal": ["a"]}, r"\[name, object_id\]"),
    ({"$RID": -1}, "an id must be"),
    ({"$float": "fast"}, r"\$float holds"),
    ({"$Array[]": []}, "names a type name"),
    ({"x": {"y": [{"$Vector2": [1, "a"]}]}}, r"a number is expected here, not 'a'"),
])
def test_plain_errors(doc: Any, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        back(doc)


def test_plain_error_paths() -> None:
    with pytest.raises(DecodeError) as e:
        back({"x": {"y": [{"$Vector2": [1, "a"]}]}})
    assert e.value.path == '$["x"]["y"][0][1]'


def test_native_misspelled_type_suggests_the_closest() -> None:
    with pytest.raises(DecodeError, match=r"unknown type 'Vectr3'\. Did you mean Vector3"):
        from_jsonable({"type": "Vectr3", "args": [1, 2, 3]})
    with pytest.raises(DecodeError, match=r"unknown type 'Dictionnary'\. Did you mean "
                                          r"Dictionary\?"):
        from_json('{"type": "Dictionnary", "args": []}')
    assert from_jsonable({"type": "Vectr3", "props": []}) == Object("Vectr3", {})


def test_deepest_engine_value() -> None:
    """1025 nested Arrays (the engine's limit) go through the plain view; deeper JSON is
    refused with a DecodeError, however deep."""
    raw = bytes.fromhex("1c000000 01000000") * 1024 + bytes.fromhex("1c000000 00000000")
    assert encode(from_json(to_json(decode(raw), mode="plain"), mode="plain")) == raw
    deep: Any = []
    for i in range(5000):
        deep = {"$Array[int]": [deep]} if i % 2 else [deep]
    with pytest.raises(DecodeError, match="nested deeper than 1024"):
        back(deep)


def test_text_api_errors() -> None:
    with pytest.raises(DecodeError, match=r"not valid JSON.*line 1"):
        from_json('{"hp": ', mode="plain")
    with pytest.raises(ValueError, match="unknown JSON mode"):
        to_json(1, mode="fancy")  # type: ignore[arg-type]
    assert to_json(Vector2(1, 2)) == '{"type":"Vector2","args":[1.0,2.0]}'
    assert to_json([1, [2]], pretty=True) == '["i:1", ["i:2"]]'


def test_resource_file_references() -> None:
    from gameserde.godot.types import ExtRef, SubRef

    value = {"mesh": ExtRef("2_abcde"), "shape": SubRef("1")}
    doc = to_jsonable(value, mode="plain")
    assert doc == {"mesh": {"$ExtResource": "2_abcde"}, "shape": {"$SubResource": "1"}}
    assert from_jsonable(doc, mode="plain") == value
    with pytest.raises(DecodeError, match=r"\$SubResource holds the id"):
        from_jsonable({"$SubResource": 3}, mode="plain")
