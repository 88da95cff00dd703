"""Text resources and scenes (``.tres``/``.tscn``): the Variant text syntax of Godot 3 and
Godot 4 both ways, whole files read into the model and written back, edits printed as the
engine prints them, and hostile text refused with a byte offset."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import types as gt
from gameserde.godot.resource import text
from gameserde.godot.resource.model import (
    Connection,
    ExtRef,
    ExtResource,
    Resource,
    ResourceFile,
    Scene,
    SceneNode,
    SubRef,
)
from gameserde.godot.resource.text_variant import (
    ResourcePath,
    f32,
    format_float,
    format_value,
    parse_value,
)

V2, V3 = gt.Vector2, gt.Vector3

# (value, Godot 4 text, Godot 3 text)
SYNTAX = [
    (None, "null", "null"),
    (True, "true", "true"),
    (-(1 << 63), "-9223372036854775808", "-9223372036854775808"),
    (1.0, "1.0", "1.0"),
    (0.5, "0.5", "0.5"),
    ("a\"b\\c\nd", '"a\\"b\\\\c\nd"', '"a\\"b\\\\c\nd"'),
    (V2(1, f32(2.5)), "Vector2(1, 2.5)", "Vector2( 1, 2.5 )"),
    (gt.Vector2i(1, -2), "Vector2i(1, -2)", "Vector2i( 1, -2 )"),
    (gt.Rect2(V2(0, 0), V2(4, 2)), "Rect2(0, 0, 4, 2)", "Rect2( 0, 0, 4, 2 )"),
    (V3(1, 2, 3), "Vector3(1, 2, 3)", "Vector3( 1, 2, 3 )"),
    (gt.Vector4(1, 2, 3, 4), "Vector4(1, 2, 3, 4)", "Vector4( 1, 2, 3, 4 )"),
    (gt.Transform2D(V2(1, 0), V2(0, 1), V2(5, 6)), "Transform2D(1, 0, 0, 1, 5, 6)",
     "Transform2D( 1, 0, 0, 1, 5, 6 )"),
    (gt.Plane(V3(0, 1, 0), 2), "Plane(0, 1, 0, 2)", "Plane( 0, 1, 0, 2 )"),
    (gt.Quaternion(0, 0, 0, 1), "Quaternion(0, 0, 0, 1)", "Quat( 0, 0, 0, 1 )"),
    (gt.AABB(V3(0, 0, 0), V3(1, 1, 1)), "AABB(0, 0, 0, 1, 1, 1)", "AABB( 0, 0, 0, 1, 1, 1 )"),
    (gt.Basis(V3(1, 2, 3), V3(4, 5, 6), V3(7, 8, 9)), "Basis(1, 4, 7, 2, 5, 8, 3, 6, 9)",
     "Basis( 1, 4, 7, 2, 5, 8, 3, 6, 9 )"),
    (gt.Transform3D(gt.Basis(), V3(1, 2, 3)), "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3)",
     "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3 )"),
    (gt.Projection(), "Projection(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)",
     "Projection( 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 )"),
    (gt.Color(1, f32(0.5), 0, 1), "Color(1, 0.5, 0, 1)", "Color( 1, 0.5, 0, 1 )"),
    (gt.NodePath.parse("../a:b"), 'NodePath("../a:b")', 'NodePath("../a:b")'),
    (gt.RID(), "RID()", "RID()"),
    (ExtRef("1"), 'ExtResource("1")', "ExtResource( 1 )"),
    (SubRef("2"), 'SubResource("2")', "SubResource( 2 )"),
    (ResourcePath("res://a.gd"), 'Resource("res://a.gd")', 'Resource( "res://a.gd")'),
    ([1, "x"], '[1, "x"]', '[ 1, "x" ]'),
    ([], "[]", "[  ]"),
    ({"b": 1, "a": 2}, '{\n"a": 2,\n"b": 1\n}', '{\n"a": 2,\n"b": 1\n}'),
    ({}, "{}", "{\n}"),
    (b"\x00\xff", "PackedByteArray(0, 255)", "PoolByteArray( 0, 255 )"),
    (gt.PackedInt32Array([1, 2]), "PackedInt32Array(1, 2)", "PoolIntArray( 1, 2 )"),
    (gt.PackedFloat32Array([0.5]), "PackedFloat32Array(0.5)", "PoolRealArray( 0.5 )"),
    (gt.PackedStringArray(["a", "b\n"]), 'PackedStringArray("a", "b\\n")',
     'PoolStringArray( "a", "b\\n" )'),
    (gt.PackedVector2Array([V2(1, 2)]), "PackedVector2Array(1, 2)", "PoolVector2Array( 1, 2 )"),
    (gt.PackedVector3Array([V3(1, 2, 3)]), "PackedVector3Array(1, 2, 3)",
     "PoolVector3Array( 1, 2, 3 )"),
    (gt.PackedColorArray([gt.Color(1, 1, 1, 1)]), "PackedColorArray(1, 1, 1, 1)",
     "PoolColorArray( 1, 1, 1, 1 )"),
    (gt.PackedInt32Array([]), "PackedInt32Array()", "PoolIntArray(  )"),
]

GODOT4_ONLY = [
    (gt.StringName("a?b"), '&"a\\?b"'),
    (gt.TypedArray("int", [1, 2]), "Array[int]([1, 2])"),
    (gt.TypedArray("Node", []), "Array[Node]([])"),
    (gt.TypedDictionary("String", gt.VariantType.NIL, [("k", 1)]),
     'Dictionary[String, Variant]({\n"k": 1\n})'),
    (gt.PackedInt64Array([1 << 40]), "PackedInt64Array(1099511627776)"),
    (gt.PackedFloat64Array([0.1]), "PackedFloat64Array(0.1)"),
    (gt.PackedVector4Array([gt.Vector4(1, 2, 3, 4)]), "PackedVector4Array(1, 2, 3, 4)"),
    (gt.Object("RefCounted", {"a": 1, "b": "x"}), 'Object(RefCounted,"a":1,"b":"x")\n'),
    (gt.Callable(), "Callable()"),
    (gt.Signal(), "Signal()"),
]


@pytest.mark.parametrize(("value", "godot4", "godot3"), SYNTAX)
def test_syntax_both_versions(value: object, godot4: str, godot3: str) -> None:
    assert format_value(value, 4) == godot4
    assert format_value(value, 3) == godot3
    assert parse_value(godot4) == value
    assert parse_value(godot3) == value


@pytest.mark.parametrize(("value", "godot4"), GODOT4_ONLY)
def test_godot4_syntax(value: object, godot4: str) -> None:
    assert format_value(value, 4) == godot4
    assert parse_value(godot4) == value


@pytest.mark.parametrize(("source", "value"), [
    ('^"a/b:c"', gt.NodePath.parse("a/b:c")),
    ('@"old"', gt.StringName("old")),
    ("Matrix32( 1, 0, 0, 1, 0, 0 )", gt.Transform2D()),
    ("#ff000080", gt.Color(1, 0, 0, f32(128 / 255))),
    ('PackedByteArray("AAH/")', b"\x00\x01\xff"),
    ('Resource("uid://abc", "res://x.tres")', ResourcePath("res://x.tres", "uid://abc")),
    ("[1, 2, ]", [1, 2]),
    ("[ 1 ; a comment\n, 2 ]", [1, 2]),
    ('"\\u00e9\\U01F600\\ud83d\\ude00\\q"', "\u00e9\U0001f600\U0001f600q"),
    ("Vector2(inf, inf_neg)", V2(math.inf, -math.inf)),
    ("[ inf, -inf.0 ]", [math.inf, -math.inf]),
    ("1e-05", 1e-05),
    ("-3", -3),
    ("Array[ExtResource(\"1_a\")]([])", gt.TypedArray(gt.ContainerType(
        gt.VariantType.OBJECT, script='ExtResource("1_a")'))),
])
def test_parse_other_spellings(source: str, value: object) -> None:
    assert parse_value(source) == value


@pytest.mark.parametrize(("x", "shortest", "g6"), [
    (f32(0.9333333), "0.9333333", "0.933333"),
    (f32(-4.3711346e-08), "-4.3711346e-08", "-4.37113e-08"),
    (1e-05, "1e-05", "1e-05"),
    (0.0001, "0.0001", "0.0001"),
    (1e20, "1e+20", "1e+20"),
    (123456789.0, "123456789", "1.23457e+08"),
    (1e15, "1e+15", "1e+15"),
    (-0.0, "0", "0"),
    (0.1, "0.1", "0.1"),
])
def test_float_text(x: float, shortest: str, g6: str) -> None:
    assert format_float(x, 4) == shortest
    assert format_float(x, 4, "g6") == g6
    assert format_float(x, 3) == g6


def test_special_floats() -> None:
    assert format_value(math.inf) == "inf"
    assert format_value(-math.inf) == "inf_neg"  # format=3 keeps the old spelling
    assert format_value(-math.inf, 4, compat=False) == "-inf"
    assert format_value(-math.inf, 3) == "inf_neg"
    # Godot 3.0 to 3.2 printed these unreadable texts, and an empty dictionary on 3 lines
    assert format_value([math.inf, -math.inf, math.nan], 3, legacy=True) == (
        "[ inf, -inf.0, nan ]")
    assert format_value(gt.Vector2(-math.inf, 0), 3, legacy=True) == "Vector2( -inf, 0 )"
    assert format_value({}, 3, legacy=True) == "{\n\n}"
    assert format_value(math.nan) == "nan"
    assert math.isnan(parse_value("nan"))
    assert format_value(b"\x01\x02", 4, compat=False) == 'PackedByteArray("AQI=")'


@given(st.floats(width=32, allow_nan=False))
def test_float32_values_read_back(x: float) -> None:
    """A double that a float32 holds exactly is printed as that float32 (the engine's way
    of not printing a float32's garbage digits): it reads back as the same float32."""
    assert f32(parse_value(format_value(x, 4, compat=False))) == x


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 63) - 1)
    | st.floats(allow_nan=False).filter(lambda x: f32(x) != x) | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20))
def test_round_trip_godot4(value: object) -> None:
    assert parse_value(format_value(value, 4, compat=False)) == value


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 63) - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20))
def test_round_trip_godot3(value: object) -> None:
    assert parse_value(format_value(value, 3)) == value


# ---------------------------------------------------------------------------------------------
# Files

SCENE4 = """[gd_scene load_steps=3 format=3 uid="uid://abc"]

[ext_resource type="Script" uid="uid://s1" path="res://a.gd" id="1_x"]
[ext_resource type="PackedScene" path="res://b.tscn" id="2_y"]

[sub_resource type="RectangleShape2D" id="Rect_1"]
size = Vector2(2, 3)

[node name="Root" type="Node2D" groups=["a", "b"]]
script = ExtResource("1_x")
"quoted name" = 1
metadata/_edit_ = true

[node name="Child" parent="." index="0" unique_id=42 instance=ExtResource("2_y")]
position = Vector2(1, 0.5)

[connection signal="s" from="Child" to="." method="m" flags=3 binds= [1, "x"]]
[connection signal="t" from="Child" to="." method="n"]

[editable path="Child"]
"""

RESOURCE3 = """[gd_resource type="Resource" load_steps=2 format=2]

; a comment the user added
[ext_resource path="res://save.gd" type="Script" id=1]

[resource]
script = ExtResource( 1 )
items = [ 1, 2 ]    ; spacing and a comment
data = {
"k": Vector2( 1, 2 )
}
"""


def test_scene_model() -> None:
    file = text.read(SCENE4.encode())
    assert (file.form, file.type, file.format, file.uid) == ("text", "PackedScene", 3, "uid://abc")
    assert file.engine[0] == 4
    assert file.external == [ExtResource("Script", "res://a.gd", "1_x", "uid://s1"),
                             ExtResource("PackedScene", "res://b.tscn", "2_y")]
    assert file.resources[0] == Resource("RectangleShape2D", "Rect_1", {"size": V2(2, 3)})
    assert file.main == Resource("PackedScene", "", {})
    scene = file.scene
    assert scene is not None
    root, child = scene.nodes
    assert root == SceneNode("Root", "Node2D", None, None, ["a", "b"], {
        "script": ExtRef("1_x"), "quoted name": 1, "metadata/_edit_": True}, {})
    assert child == SceneNode("Child", None, ".", ExtRef("2_y"), [], {
        "position": V2(1, 0.5)}, {"index": 0, "unique_id": 42})
    assert scene.connections == [Connection("Child", "s", ".", "m", 3, [1, "x"]),
                                 Connection("Child", "t", ".", "n", 2)]
    assert scene.editable == ["Child"]
    assert text.write(file) == SCENE4


def test_godot3_resource_keeps_comments_and_spacing() -> None:
    file = text.read(RESOURCE3)
    assert file.type == "Resource" and file.format == 2 and file.engine[0] == 3
    assert file.external == [ExtResource("Script", "res://save.gd", "1")]
    assert file.main.properties == {"script": ExtRef("1"), "items": [1, 2],
                                    "data": {"k": V2(1, 2)}}
    assert text.write(file) == RESOURCE3
    file.main.properties["items"] = [1, 2, 3]
    assert text.write(file) == RESOURCE3.replace("items = [ 1, 2 ]", "items = [ 1, 2, 3 ]")


def test_hand_written_values_are_kept_until_changed() -> None:
    source = ('[gd_resource type="R" format=3]\n\n[resource]\n'
              'a = [1,2]\nb = {"y": 1, "x": Vector2( 1,2 )}\nc = 1.50\n')
    file = text.read(source)
    assert text.write(file) == source
    file.main.properties["a"] = [1, 2, 3]
    file.main.properties["c"] = 1.25
    assert text.write(file) == source.replace("[1,2]", "[1, 2, 3]").replace("1.50", "1.25")


def test_odd_but_valid_files_round_trip() -> None:
    long_index = "1" * 5000
    for source in [
        f'[gd_scene format=3]\n\n[node name="a" index="{long_index}"]\n',
        '[gd_resource type="R" format=3]\n[resource]\nx = 1\nx = 2\ny = 3\n',
        '\ufeff[gd_resource type="R" format=3]\n\n[resource]\n',
        '[gd_resource type="R" format=3]\n\n[resource]\n; trailing comment\n\n',
        '[gd_resource type="R" format=3]\n\n[resource]\na =2\n"b=c"=  3 ; c\nd=\n4\n',
        SCENE4.replace("\n", "\r\n"), SCENE4.rstrip("\n"),
        '[gd_resource type="R" format=3]\n[resource]\n' + "x = 1\n" * 20_000,
        '[gd_scene format=3]\n\n[node name="R" type="Node" unique_id=5]\n\n[node name="A" '
        'type="Node" parent="." owner="." owner_uid_path=PackedInt32Array(5) unique_id=6]\n\n'
        '[connection signal="s" from="A" to="." method="m" from_uid_path=PackedInt32Array(6) '
        'to_uid_path=PackedInt32Array(5)]\n[connection signal="s" from="A" to="." method="m"]\n',
    ]:
        file = text.read(source.encode())
        assert text.write(file) == source
    assert text.read('[gd_resource type="R" format=3]\n[resource]\nx = 1\nx = 2\n'
                     ).main.properties == {"x": 2}


def test_connection_id_paths_are_kept() -> None:
    source = ('[gd_scene format=3]\n\n[node name="R" type="Node"]\n\n[connection signal="s" '
              'from="A" to="." method="m" from_uid_path=PackedInt32Array(6)]\n')
    file = text.read(source)
    assert file.scene is not None
    file.scene.connections[0].flags = 3
    assert text.write(file) == source.replace('method="m"', 'method="m" flags=3')


def test_edits_follow_the_engine() -> None:
    file = text.read(SCENE4)
    scene = file.scene
    assert scene is not None
    file.external.append(ExtResource("Texture2D", "res://t.png", "3_z"))
    scene.nodes[1].properties["visible"] = False
    del scene.nodes[0].properties["quoted name"]
    scene.connections.pop()
    out = text.write(file)
    assert out.startswith('[gd_scene load_steps=4 format=3 uid="uid://abc"]\n\n')
    assert '[ext_resource type="Texture2D" path="res://t.png" id="3_z"]\n\n[sub' in out
    assert "position = Vector2(1, 0.5)\nvisible = false\n\n[connection" in out
    assert '"quoted name"' not in out
    assert out.endswith('binds= [1, "x"]]\n\n[editable path="Child"]\n')
    assert text.read(out).external[-1].id == "3_z"


def test_fresh_file_is_written_as_the_engine_does() -> None:
    scene = Scene(nodes=[SceneNode("Root", "Node"), SceneNode("A", "Sprite2D", ".", groups=[
        "g"], properties={"scale": V2(2, 2)}, extra={"index": 1})],
        connections=[Connection("A", "ready", ".", "_on", flags=2)])
    file = ResourceFile("text", "PackedScene", (4, 6), 3, scene=scene,
                        resources=[Resource("PackedScene", "", {})])
    assert text.write(file) == (
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n"
        "[node name=\"A\" type=\"Sprite2D\" parent=\".\" index=\"1\" groups=[\"g\"]]\n"
        "scale = Vector2(2, 2)\n\n[connection signal=\"ready\" from=\"A\" to=\".\" "
        "method=\"_on\"]\n")
    res = ResourceFile("text", "Theme", (3, 5), 2, resources=[
        Resource("StyleBoxFlat", "1", {"bg_color": gt.Color(1, 0, 0, 1)}),
        Resource("Theme", "", {"Panel/styles/panel": SubRef("1")})])
    assert text.write(res) == (
        '[gd_resource type="Theme" load_steps=2 format=2]\n\n'
        '[sub_resource type="StyleBoxFlat" id=1]\nbg_color = Color( 1, 0, 0, 1 )\n\n'
        "[resource]\nPanel/styles/panel = SubResource( 1 )\n")


def test_format_follows_the_values() -> None:
    file = text.read('[gd_resource type="R" format=4]\n\n[resource]\na = PackedByteArray(1)\n')
    file.main.properties["a"] = bytes(65)
    out = text.write(file)
    assert f'a = PackedByteArray("{"A" * 87}=")' in out
    assert text.read(out).main.properties["a"] == bytes(65)
    file.format = 3  # as Godot 4.0 to 4.2 wrote it
    assert "a = PackedByteArray(0, 0, 0, " in text.write(file)
    binary = ResourceFile("binary", "Resource", (3, 5), 3, resources=[Resource("Resource", "1", {
        "v": V2(1, 2)})])
    assert text.write(binary) == ('[gd_resource type="Resource" format=2]\n\n[resource]\n'
                                  "v = Vector2( 1, 2 )\n")
    binary.engine = (4, 3)
    binary.main.properties["w"] = gt.PackedVector4Array([gt.Vector4(1, 2, 3, 4)])
    assert text.write(binary).startswith('[gd_resource type="Resource" format=4]\n')


def test_write_refuses_values_it_cannot_hold() -> None:
    file = text.read(RESOURCE3)
    file.main.properties["bad"] = object()
    with pytest.raises(EncodeError, match="cannot be written"):
        text.write(file)
    file.main.properties["bad"] = 1 << 64
    with pytest.raises(EncodeError) as info:
        text.write(file)
    assert info.value.path == '$["resource"]["bad"]'
    del file.main.properties["bad"]
    file.main.properties[3] = 1  # type: ignore[index]
    with pytest.raises(EncodeError, match="name must be a string"):
        text.write(file)


# ---------------------------------------------------------------------------------------------
# Hostile text


@pytest.mark.parametrize("source", [
    "[" * 5000, "{" * 5000, '"unterminated', '"bad \\u12"', '"\\ud800"', '"\\udc00"',
    "Vector2(1)", "Vector2(1, x)", "Vector2(1 2)", "Nope(1)", "9223372036854775808",
    'PackedByteArray("!!")', "PackedByteArray(256)", "PackedInt32Array(4294967296)",
    "[1 2]", '{"a" 1}', '{"a": 1 "b": 2}', "Object(Node, 1)", "Array[int](1)",
    "Dictionary[int]({})", "#12345", "", "1 2", '"\\U110000"', "ExtResource(x)",
    "Resource()", "RID(1.5)", "&x", "PackedInt32Array(inf)", "PackedInt64Array(1e400)",
    "1" * 5000,
])
def test_hostile_values(source: str) -> None:
    with pytest.raises(DecodeError) as info:
        parse_value(source)
    assert info.value.offset is not None and 0 <= info.value.offset <= len(source.encode())


@pytest.mark.parametrize(("source", "offset", "path"), [
    (b"[gd_resource type=\"R\" format=3]\n\n[resource]\na = [1, Vector2(]\n", 60,
     '$.resource["a"][1]'),
    (b"[gd_resource type=\"R\" format=3]\n\xff", 32, "$"),
    (b"x = 1\n", 0, "$"),
    (b"[gd_resource type=\"R\" format=3]\n[what]\n", 32, "$"),
    (b"[gd_resource type=\"R\" format=3\n", 31, "$"),
])
def test_hostile_files_point_at_the_byte(source: bytes, offset: int, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        text.read(source)
    assert info.value.offset == offset
    assert info.value.path == path
    assert info.value.format == "godot"


@pytest.mark.parametrize("source", [
    "[gd_resource type=\"R\"]\n[resource]\n",
    "[gd_resource type=\"R\" format=9]\n[resource]\n",
    "[gd_resource format=3]\n[resource]\n",
    "[gd_resource type=\"R\" format=3]\n",
    "[gd_scene format=3]\n[resource]\n",
    "[gd_resource type=\"R\" format=3]\n[node name=\"a\"]\n[resource]\n",
    "[gd_scene format=3]\n[node name=1]\n",
    "[gd_scene format=3]\n[node name=\"a\" groups=[1]]\n",
    "[gd_scene format=3]\n[node name=\"a\" instance=1]\n",
    "[gd_scene format=3]\n[connection signal=\"s\"]\n",
    '[gd_scene format=3]\n[connection signal="s" from="a" to="b" method="m" flags="x"]\n',
    '[gd_scene format=3]\n[connection signal="s" from="a" to="b" method="m" binds=1]\n',
    "[gd_scene format=3]\n[gd_scene format=3]\n",
    "[gd_scene format=3]\na = 1\n",
    "[gd_scene format=3]\n[editable path=\"x\"]\na = 1\n",
    "[gd_scene format=3]\n[ext_resource type=\"S\" id=\"1\"]\n",
    "",
])
def test_hostile_structure(source: str) -> None:
    with pytest.raises(DecodeError):
        text.read(source)


def test_large_flat_input_is_linear() -> None:
    body = ", ".join(["1"] * 200_000)
    source = f'[gd_resource type="R" format=3]\n\n[resource]\na = [{body}]\n'
    file = text.read(source)
    assert len(file.main.properties["a"]) == 200_000
    assert text.write(file) == source


@given(st.sampled_from([SCENE4.encode(), RESOURCE3.encode()]),
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 3),
                          st.sampled_from(list(b'[]{}(),:="\\;#&^@-.09eE \nax_\xff'))),
                max_size=4))
def test_mutated_files_read_back_exactly_or_fail_cleanly(
        seed: bytes, edits: list[tuple[int, int, int]]) -> None:
    """Whatever text reads at all is written back byte for byte; the rest is a
    DecodeError."""
    data = bytearray(seed)
    for at, kind, byte in edits:
        at %= len(data) + 1
        if kind == 0:
            data[at:at] = bytes([byte])
        elif kind == 1:
            del data[at:at + 3]
        elif kind == 2 and at < len(data):
            data[at] = byte
        else:
            del data[at:]
    try:
        file = text.read(bytes(data))
    except DecodeError:
        return
    assert text.write(file).encode("utf-8") == bytes(data)


@pytest.mark.parametrize(("body", "style"), [
    ("a = Vector3(0.965926, 0.258819, 0.707107)\n", "g6"),  # Godot 4.0 to 4.2
    ("a = Vector3(0.9659258, 0.258819, 0.707107)\n", "shortest"),
    ("a = Vector2(0.5, 1)\n", "shortest"),
])
def test_float_style_of_a_godot4_file(body: str, style: str) -> None:
    file = text.read(f'[gd_resource type="R" format=3]\n\n[resource]\n{body}')
    assert file.kept["text_float_style"] == style
    file.main.properties["b"] = 1 / 3
    expected = "0.333333" if style == "g6" else "0.3333333333333333"
    assert text.write(file).endswith(f"\nb = {expected}\n")
