"""Conversion between the binary and text forms as the engine's savers convert (the order
they write resources in, the ids they give, the null properties the text saver leaves out
and the names the binary saver lists): gameserde.godot.resource.{convert, saver_order,
classes}. tests/conformance/test_godot3_resources.py compares whole conversions with the
engine's."""

from __future__ import annotations

from gameserde.godot.resource import binary, files, text
from gameserde.godot.resource.classes import saver_names
from gameserde.godot.resource.convert import convert
from gameserde.godot.resource.model import ExtRef, ExtResource, Resource, ResourceFile, SubRef
from gameserde.godot.resource.saver_order import save_order
from gameserde.godot.types import Dictionary


def res(rid: str, **props: object) -> Resource:
    return Resource("Resource", rid, dict(props))


def test_text_saver_walks_properties_by_name() -> None:
    resources = [res("1"), res("2"), res("3", b=SubRef("1"), a=SubRef("2")), res("9",
                 z=SubRef("3"), child=ExtRef("2"), arr=[ExtRef("1")])]
    assert save_order(resources, ["1", "2"], "text", godot4=False) == (
        ["2", "1", "3", "9"], ["1", "2"])
    assert save_order(resources, ["1", "2"], "binary", godot4=False) == (
        ["1", "2", "3", "9"], ["2", "1"])


def test_dictionary_keys_are_walked_by_the_binary_saver_and_godot4() -> None:
    resources = [res("1"), res("2"), res("9", d=Dictionary([(SubRef("1"), SubRef("2"))]))]
    text3, _ = save_order(resources, [], "text", godot4=False)
    assert text3 == ["2", "1", "9"]  # the key is not walked: it keeps its place after
    assert save_order(resources, [], "text", godot4=True)[0] == ["1", "2", "9"]
    assert save_order(resources, [], "binary", godot4=False)[0] == ["1", "2", "9"]


def test_unreached_resources_keep_their_place_and_chains_need_no_recursion() -> None:
    n = 20_000
    chain = [res(str(i), next=SubRef(str(i - 1))) if i else res("0") for i in range(n)]
    resources = [res("orphan"), *chain, res("main", head=SubRef(str(n - 1)))]
    order, external = save_order(resources, ["7"], "binary", godot4=False)
    assert order == [*map(str, range(n)), "orphan", "main"]
    assert external == ["7"]


def test_saver_names_follow_the_class_then_what_the_class_list_lacks() -> None:
    assert saver_names("Curve", {"min_value": -1.0, "_data": []}, (3, 2)) == [
        "resource_local_to_scene", "resource_name", "min_value", "max_value",
        "bake_resolution", "_data", "script"]
    scripted = {"script": ExtRef("1"), "label": "x", "n": 1, "__meta__": {}}
    assert saver_names("Resource", scripted, (3, 5)) == [
        "resource_local_to_scene", "resource_name", "script", "label", "n", "__meta__"]
    assert saver_names("Resource", {"__meta__": {}}, (3, 2)) == [
        "resource_local_to_scene", "resource_name", "script", "__meta__"]
    assert saver_names("Animation", {"length": 2.0, "tracks/0/type": "value"}, (3, 2)) == [
        "resource_local_to_scene", "resource_name", "length", "tracks/0/type", "loop", "step",
        "script"]
    # Godot 4, and classes the table does not have: only what the resource holds
    assert saver_names("Curve", {"_data": []}, (4, 2)) == ["_data"]
    assert saver_names("MyThing", {"b": 1, "a": 2}, (3, 2)) == ["b", "a"]
    assert saver_names("Curve", {"x": 1}, (3, 2))[-3:] == ["_data", "x", "script"]


def binary_file() -> ResourceFile:
    return ResourceFile(
        form="binary", type="Resource", engine=(3, 2), format=3,
        external=[ExtResource("Script", "res://item.gd", "1"),
                  ExtResource("Resource", "res://ext.tres", "2")],
        resources=[Resource("Resource", "3", {"script": ExtRef("1"), "child": None}),
                   Resource("Resource", "1", {"script": ExtRef("1"), "child": SubRef("3")}),
                   Resource("Resource", "res://main.res",
                            {"z_item": SubRef("1"), "a_ext": ExtRef("2"), "nothing": None})])


def test_binary_to_text_like_the_engine_and_back() -> None:
    data = binary.write(binary_file())
    converted = convert(files.read(data), "text")
    assert [e.path for e in converted.external] == ["res://ext.tres", "res://item.gd"]
    assert [r.id for r in converted.resources[:-1]] == ["3", "1"]
    # the text saver leaves out null (Object) properties
    assert converted.resources[0].properties == {"script": ExtRef("2")}
    assert converted.main.properties == {"z_item": SubRef("1"), "a_ext": ExtRef("1")}
    assert files.write(converted, "binary") == data


def test_text_to_binary_renumbers_godot3_resources_in_save_order_and_back() -> None:
    source = (b'[gd_resource type="Resource" load_steps=4 format=2]\n\n'
              b'[ext_resource path="res://a.gd" type="Script" id=1]\n\n'
              b'[sub_resource type="Resource" id=7]\nn = 1\n\n'
              b'[sub_resource type="Resource" id=3]\nchild = SubRef( 7 )\n\n'
              b'[resource]\nscript = ExtResource( 1 )\nlate = SubResource( 7 )\n'
              b'first = SubResource( 3 )\n').replace(b"SubRef", b"SubResource")
    file = text.read(source)
    converted = convert(file, "binary", engine=(3, 2), path="res://x.tres")
    assert [(r.id, dict(r.properties)) for r in converted.resources[:-1]] == [
        ("1", {"n": 1}), ("2", {"child": SubRef("1")})]
    assert converted.main.properties["first"] == SubRef("2")
    strings = files.read(files.write(converted)).kept["strings"]
    assert strings[:4] == ["resource_local_to_scene", "resource_name", "n", "script"]
    assert files.write(converted, "text") == source
