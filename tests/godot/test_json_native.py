"""The JSON view against Godot's own vectors (``tests/core/io/test_json_native.h``,
godotengine/godot, 4.4+), and the view's lossless extensions.

The engine's test checks ``JSON.stringify(JSON.from_native(v, full_objects), "", false)`` (compact,
no escaping of non-ASCII) against a string and parses the string back with ``to_native``. Here:
``json.dumps(to_jsonable(v), separators=(",", ":"), ensure_ascii=False)`` must be that string, and
``from_jsonable`` of the parsed string must give ``v`` back; ``to_json``/``from_json`` do the
same with text.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest

from gameserde.godot import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerType,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    TypedDictionary,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    decode,
    encode,
    from_json,
    from_jsonable,
    to_json,
    to_jsonable,
)

from .strategies import numpy_off, same


def stringify(value: Any) -> str:
    return json.dumps(to_jsonable(value), separators=(",", ":"), ensure_ascii=False)


def v2(x: float, y: float) -> Vector2:
    return Vector2(float(x), float(y))


def v3(x: float, y: float, z: float) -> Vector3:
    return Vector3(float(x), float(y), float(z))


def v4(x: float, y: float, z: float, w: float) -> Vector4:
    return Vector4(float(x), float(y), float(z), float(w))


# Ref<Resource> res; res.instantiate(): the stored properties in get_property_list order.
RES = Object("Resource", {"resource_local_to_scene": False, "resource_name": "",
                          "editor_description": "", "script": None})
RES_REPR = ('{"type":"Resource","props":["resource_local_to_scene",false,"resource_name","s:",'
            '"editor_description","s:","script",null]}')
# The same test before Resource gained editor_description (4.4/4.5).
RES_OLD = Object("Resource", {"resource_local_to_scene": False, "resource_name": "",
                              "script": None})
RES_OLD_REPR = ('{"type":"Resource","props":["resource_local_to_scene",false,"resource_name",'
                '"s:","script",null]}')

ENGINE_VECTORS: list[tuple[str, Any, str]] = [
    # Nil and bool: JSON keyword literals.
    ("null", None, "null"),
    ("false", False, "false"),
    ("true", True, "true"),
    # Numbers and strings: prefixed JSON strings.
    ("int", 1, '"i:1"'),
    ("float", 1.0, '"f:1.0"'),
    ("inf", math.inf, '"f:inf"'),
    ("-inf", -math.inf, '"f:-inf"'),
    ("nan", math.nan, '"f:nan"'),
    ("String", "abc", '"s:abc"'),
    ("StringName", StringName("abc"), '"sn:abc"'),
    ("NodePath", NodePath.parse("abc"), '"np:abc"'),
    # Non-serializable types.
    ("RID", RID(), '{"type":"RID"}'),
    ("Callable", Callable(), '{"type":"Callable"}'),
    ("Signal", Signal(), '{"type":"Signal"}'),
    # Math types.
    ("Vector2", v2(1, 2), '{"type":"Vector2","args":[1.0,2.0]}'),
    ("Vector2i", Vector2i(1, 2), '{"type":"Vector2i","args":[1,2]}'),
    ("Rect2", Rect2(v2(1, 2), v2(3, 4)), '{"type":"Rect2","args":[1.0,2.0,3.0,4.0]}'),
    ("Rect2i", Rect2i(Vector2i(1, 2), Vector2i(3, 4)), '{"type":"Rect2i","args":[1,2,3,4]}'),
    ("Vector3", v3(1, 2, 3), '{"type":"Vector3","args":[1.0,2.0,3.0]}'),
    ("Vector3i", Vector3i(1, 2, 3), '{"type":"Vector3i","args":[1,2,3]}'),
    ("Transform2D", Transform2D(v2(1, 2), v2(3, 4), v2(5, 6)),
     '{"type":"Transform2D","args":[1.0,2.0,3.0,4.0,5.0,6.0]}'),
    ("Vector4", v4(1, 2, 3, 4), '{"type":"Vector4","args":[1.0,2.0,3.0,4.0]}'),
    ("Vector4i", Vector4i(1, 2, 3, 4), '{"type":"Vector4i","args":[1,2,3,4]}'),
    ("Plane", Plane(v3(1, 2, 3), 4.0), '{"type":"Plane","args":[1.0,2.0,3.0,4.0]}'),
    ("Quaternion", Quaternion(1.0, 2.0, 3.0, 4.0),
     '{"type":"Quaternion","args":[1.0,2.0,3.0,4.0]}'),
    ("AABB", AABB(v3(1, 2, 3), v3(4, 5, 6)), '{"type":"AABB","args":[1.0,2.0,3.0,4.0,5.0,6.0]}'),
    ("Basis", Basis(v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 9)),
     '{"type":"Basis","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0]}'),
    ("Transform3D", Transform3D(Basis(v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 9)), v3(10, 11, 12)),
     '{"type":"Transform3D","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0,11.0,12.0]}'),
    ("Projection", Projection(v4(1, 2, 3, 4), v4(5, 6, 7, 8), v4(9, 10, 11, 12),
                              v4(13, 14, 15, 16)),
     '{"type":"Projection","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0,11.0,12.0,13.0,'
     '14.0,15.0,16.0]}'),
    ("Color", Color(1.0, 2.0, 3.0, 4.0), '{"type":"Color","args":[1.0,2.0,3.0,4.0]}'),
    # Object.
    ("Resource", RES, RES_REPR),
    ("Resource (4.4)", RES_OLD, RES_OLD_REPR),
    # Dictionary: keys and values alternate in args, in insertion order.
    ("Dictionary", Dictionary([(False, True), (0, 1), (0.0, 1.0)]),
     '{"type":"Dictionary","args":[false,true,"i:0","i:1","f:0.0","f:1.0"]}'),
    ("Dictionary[int, int]", TypedDictionary("int", "int", [(1, 2), (3, 4)]),
     '{"type":"Dictionary","key_type":"int","value_type":"int","args":["i:1","i:2","i:3",'
     '"i:4"]}'),
    ("Dictionary[int, Variant]", TypedDictionary("int", ContainerType(), [(1, "2"), (3, "4")]),
     '{"type":"Dictionary","key_type":"int","args":["i:1","s:2","i:3","s:4"]}'),
    ("Dictionary[Variant, int]", TypedDictionary(ContainerType(), "int", [("1", 2), ("3", 4)]),
     '{"type":"Dictionary","value_type":"int","args":["s:1","i:2","s:3","i:4"]}'),
    ("Dictionary with object", {"x": RES},
     '{"type":"Dictionary","args":["s:x",' + RES_REPR + "]}"),
    ("Dictionary[String, Resource]", TypedDictionary("String", "Resource", [("x", RES)]),
     '{"type":"Dictionary","key_type":"String","value_type":"Resource","args":["s:x",'
     + RES_REPR + "]}"),
    # Array.
    ("Array", [True, 1, "abc"], '[true,"i:1","s:abc"]'),
    ("Array[int]", TypedArray("int", [1, 2, 3]),
     '{"type":"Array","elem_type":"int","args":["i:1","i:2","i:3"]}'),
    ("Array with object", [1, RES, 9], '["i:1",' + RES_REPR + ',"i:9"]'),
    ("Array[Resource]", TypedArray("Resource", [RES]),
     '{"type":"Array","elem_type":"Resource","args":[' + RES_REPR + "]}"),
    # Packed arrays (vector and color arrays flattened).
    ("PackedByteArray", b"\x01\x02\x03", '{"type":"PackedByteArray","args":[1,2,3]}'),
    ("PackedInt32Array", PackedInt32Array([1, 2, 3]),
     '{"type":"PackedInt32Array","args":[1,2,3]}'),
    ("PackedInt64Array", PackedInt64Array([1, 2, 3]),
     '{"type":"PackedInt64Array","args":[1,2,3]}'),
    ("PackedFloat32Array", PackedFloat32Array([1, 2, 3]),
     '{"type":"PackedFloat32Array","args":[1.0,2.0,3.0]}'),
    ("PackedFloat64Array", PackedFloat64Array([1, 2, 3]),
     '{"type":"PackedFloat64Array","args":[1.0,2.0,3.0]}'),
    ("PackedStringArray", PackedStringArray(["a", "b", "c"]),
     '{"type":"PackedStringArray","args":["a","b","c"]}'),
    ("PackedVector2Array", PackedVector2Array([v2(1, 2), v2(3, 4), v2(5, 6)]),
     '{"type":"PackedVector2Array","args":[1.0,2.0,3.0,4.0,5.0,6.0]}'),
    ("PackedVector3Array", PackedVector3Array([v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 9)]),
     '{"type":"PackedVector3Array","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0]}'),
    ("PackedColorArray", PackedColorArray([Color(1.0, 2.0, 3.0, 4.0), Color(5.0, 6.0, 7.0, 8.0),
                                           Color(9.0, 10.0, 11.0, 12.0)]),
     '{"type":"PackedColorArray","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0,11.0,12.0]}'),
    ("PackedVector4Array", PackedVector4Array([v4(1, 2, 3, 4), v4(5, 6, 7, 8),
                                              v4(9, 10, 11, 12)]),
     '{"type":"PackedVector4Array","args":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0,10.0,11.0,'
     '12.0]}'),
]
IDS = [name for name, _, _ in ENGINE_VECTORS]


@pytest.mark.parametrize(("name", "value", "text"), ENGINE_VECTORS, ids=IDS)
def test_engine_vector_to_json(name: str, value: Any, text: str) -> None:
    assert stringify(value) == text
    assert json.loads(to_json(value)) == json.loads(text)


@pytest.mark.parametrize(("name", "value", "text"), ENGINE_VECTORS, ids=IDS)
def test_engine_vector_from_json(name: str, value: Any, text: str) -> None:
    back = from_jsonable(json.loads(text))
    assert same(back, value), (back, value)
    assert stringify(back) == text
    assert same(from_json(text), value)


@pytest.mark.parametrize(("name", "value", "text"), ENGINE_VECTORS, ids=IDS)
def test_engine_vector_through_binary(name: str, value: Any, text: str) -> None:
    """The JSON of the decoded bytes is the engine's string, and it encodes back."""
    raw = encode(value, full_objects=True)
    decoded = decode(raw, allow_objects=True)
    assert stringify(decoded) == text
    assert encode(from_jsonable(json.loads(text)), full_objects=True) == raw


@pytest.mark.parametrize(("name", "value", "text"),
                         [v for v in ENGINE_VECTORS if "Packed" in v[0]],
                         ids=[n for n in IDS if "Packed" in n])
def test_engine_vector_without_numpy(name: str, value: Any, text: str) -> None:
    """Packed arrays on the array.array path give the same JSON and read it back."""
    with numpy_off():
        rebuilt = from_jsonable(json.loads(text))
        assert stringify(rebuilt) == text
        assert encode(rebuilt) == encode(value)


def test_int_components_of_real_types_are_written_as_floats() -> None:
    """Vector2(1, 2) holds real_t components, whatever Python number built it: the engine's
    JSON writes 1.0, not 1 (``Vector2(1, 2) == Vector2(1.0, 2.0)`` here too)."""
    assert Vector2(1, 2) == Vector2(1.0, 2.0)
    assert stringify(Vector2(1, 2)) == '{"type":"Vector2","args":[1.0,2.0]}'
    assert stringify(Color(1, 2, 3, 4)) == '{"type":"Color","args":[1.0,2.0,3.0,4.0]}'


def test_dictionary_keys_python_conflates() -> None:
    """{false: true, 0: 1, 0.0: 1.0} has three keys in Godot, one in a Python dict."""
    d = Dictionary([(False, True), (0, 1), (0.0, 1.0)])
    assert len(d) == 3
    back = from_jsonable(json.loads(stringify(d)))
    assert type(back) is Dictionary
    assert [(type(k), k) for k in back] == [(bool, False), (int, 0), (float, 0.0)]


# ---------------------------------------------------------------------------------------------
# The lossless extensions: decode -> to_json -> from_json -> encode gives the same bytes


def nan_bits(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


def f32_nan(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


EXTENSIONS: list[tuple[str, Any, Any]] = [
    ("RID with id", RID(5), {"type": "RID", "args": [5]}),
    ("RID max id", RID(2**64 - 1), {"type": "RID", "args": [2**64 - 1]}),
    ("Signal", Signal("hit", 7), {"type": "Signal", "args": ["hit", 7]}),
    ("Signal name only", Signal("hit", 0), {"type": "Signal", "args": ["hit", 0]}),
    ("EncodedObjectAsID", EncodedObjectAsID(9),
     {"type": "EncodedObjectAsID", "props": ["object_id", "i:9"]}),
    ("Vector2 inf nan", Vector2(math.inf, math.nan),
     {"type": "Vector2", "args": ["inf", "nan"]}),
    ("Color -inf", Color(-math.inf, 0.0, 1.0, 1.0),
     {"type": "Color", "args": ["-inf", 0.0, 1.0, 1.0]}),
    ("Basis inf", Basis(v3(math.inf, 0, 0), v3(0, 1, 0), v3(0, 0, 1)), None),
    ("Projection nan", Projection(v4(math.nan, 0, 0, 0)), None),
    ("PackedFloat32Array non-finite", PackedFloat32Array([math.inf, -math.inf, math.nan]),
     {"type": "PackedFloat32Array", "args": ["inf", "-inf", "nan"]}),
    ("PackedFloat64Array non-finite", PackedFloat64Array([math.inf, math.nan, 1e300]), None),
    ("PackedVector3Array inf", PackedVector3Array([v3(math.inf, 1, 2)]), None),
    ("PackedColorArray nan", PackedColorArray([Color(math.nan, 1.0, 1.0, 1.0)]), None),
    ("-0.0", -0.0, "f:-0.0"),
    ("Vector2 -0.0", v2(-0.0, 0.0), {"type": "Vector2", "args": [-0.0, 0.0]}),
    ("float 64-bit", 0.1, "f:0.1"),
    ("float shortest repr", 16777217.0, "f:16777217.0"),
    ("int64", -(2**63), f"i:{-(2**63)}"),
    ("typed Array[Node] by id", TypedArray("EncodedObjectAsID", [EncodedObjectAsID(3), None]),
     None),
    ("Array[Object]", TypedArray("Object", []), None),
    ("NodePath absolute with subnames", NodePath(("root", "a"), ("b", "c"), True),
     "np:/root/a:b:c"),
    ("NodePath subnames only", NodePath((), ("x",)), "np::x"),
    ("empty NodePath", NodePath(), "np:"),
    ("nested keys", Dictionary([([1, 2], {"a": Vector2i(1, 2)}), (None, b"")]), None),
]


@pytest.mark.parametrize(("name", "value", "doc"), EXTENSIONS, ids=[e[0] for e in EXTENSIONS])
def test_lossless_extension(name: str, value: Any, doc: Any) -> None:
    raw = encode(value, full_objects=True)
    decoded = decode(raw, allow_objects=True)
    text = json.dumps(to_jsonable(decoded), allow_nan=False)  # plain JSON: no bare NaN/Infinity
    if doc is not None:
        assert json.loads(text) == doc
    assert encode(from_jsonable(json.loads(text)), full_objects=True) == raw


@pytest.mark.parametrize("bits", [0xFFF8000000000000, 0x7FF8000000000001, 0xFFF0000000000001,
                                  0x7FF4000000000000])
def test_nan_sign_and_payload_survive_json(bits: int) -> None:
    """A FLOAT NaN is written as 64 bits with its sign and payload (spec §5); the JSON view
    promises identical bytes after decode -> JSON -> encode."""
    raw = encode(nan_bits(bits))
    assert raw[4:] == struct.pack("<Q", bits)
    back = encode(from_jsonable(json.loads(json.dumps(to_jsonable(decode(raw)), allow_nan=False))))
    assert back.hex() == raw.hex()


def test_f32_nan_payload_in_math_type_survives_json() -> None:
    raw = b"\x05\x00\x00\x00" + struct.pack("<II", 0xFFC00000, 0x7FC00001)  # Vector2(-nan, nan)
    back = encode(from_jsonable(json.loads(json.dumps(to_jsonable(decode(raw)), allow_nan=False))))
    assert back.hex() == raw.hex()


def test_object_of_class_object_survives_json() -> None:
    """``Object.new()`` written in full has class name "Object"; its JSON must read back."""
    value = Object("Object", {"script": None})
    raw = encode(value, full_objects=True)
    doc = json.loads(json.dumps(to_jsonable(decode(raw, allow_objects=True))))
    assert doc == {"type": "Object", "props": ["script", None]}
    assert encode(from_jsonable(doc), full_objects=True) == raw


def test_double_precision_vector_arrays_survive_json() -> None:
    """real_t=double data: decode -> JSON -> encode --double-precision gives the same bytes."""
    value = PackedVector2Array([(0.1, 16777217.0)], itemsize=8)
    raw = encode(value, double_precision=True)
    back = from_jsonable(json.loads(json.dumps(to_jsonable(decode(raw)))))
    assert encode(back, double_precision=True) == raw


def test_double_precision_math_types_survive_json() -> None:
    value = [Vector3(0.1, 0.2, 0.3), Transform3D(Basis(v3(0.1, 0, 0)), v3(1e300, 0, 0)),
             Projection(v4(0.1, 0.2, 0.3, 0.4))]
    raw = encode(value, double_precision=True)
    back = from_jsonable(json.loads(json.dumps(to_jsonable(decode(raw)))))
    assert encode(back, double_precision=True) == raw


def test_godot3_values_survive_json() -> None:
    value = [RID(), Object("Reference", {"script": [1, 2]}), PackedFloat32Array([0.5]),
             Transform3D(Basis(v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 9)), v3(0, 0, 1))]
    raw = encode(value, profile="godot3", full_objects=True)
    doc = json.loads(json.dumps(to_jsonable(decode(raw, profile="godot3", allow_objects=True))))
    assert encode(from_jsonable(doc), profile="godot3", full_objects=True) == raw


def test_from_json_accepts_engine_forms() -> None:
    """What the engine itself writes (no ids) reads as empty handles; bare JSON numbers read
    as float/int as in JSON.to_native."""
    assert from_jsonable({"type": "RID"}) == RID()
    assert from_jsonable({"type": "Signal"}) == Signal()
    assert from_jsonable({"type": "Vector2", "args": [1, 2]}) == Vector2(1.0, 2.0)
    assert from_jsonable({"type": "Vector2i", "args": [1.0, 2.0]}) == Vector2i(1, 2)
    assert type(from_jsonable({"type": "Vector2i", "args": [1.0, 2.0]}).x) is int
    assert from_jsonable("np:/root/a:b") == NodePath(("root", "a"), ("b",), True)
    assert from_jsonable("s:") == "" and from_jsonable("s:a:b") == "a:b"
    assert from_jsonable("f:1e+16") == 1e16


def test_resource_file_references() -> None:
    """A resource file's ExtResource/SubResource references, by their ids."""
    from gameserde.errors import DecodeError
    from gameserde.godot.types import ExtRef, SubRef

    value = [ExtRef("1"), {"tex": SubRef("StyleBoxFlat_x2")}]
    doc = to_jsonable(value)
    assert doc == [{"type": "ExtResource", "args": ["1"]},
                   {"type": "Dictionary", "args": ["s:tex", {"type": "SubResource",
                                                             "args": ["StyleBoxFlat_x2"]}]}]
    assert from_jsonable(doc) == value
    with pytest.raises(DecodeError, match=r"ExtResource args are \[id\]"):
        from_jsonable({"type": "ExtResource", "args": [1]})
