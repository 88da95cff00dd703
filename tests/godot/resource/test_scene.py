"""PackedScene ``_bundled`` <-> Scene (gameserde.godot.resource.scene)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot.resource import binary, compressed, text
from gameserde.godot.resource.model import Connection, ExtRef, Scene, SceneNode, SubRef
from gameserde.godot.resource.scene import read_bundled, write_bundled
from gameserde.godot.types import (
    Dictionary,
    NodePath,
    PackedInt32Array,
    PackedStringArray,
    Vector2,
)
from tests.conformance.corpus import corpus_dir, require

P = 1 << 30  # FLAG_ID_IS_PATH, FLAG_INSTANCE_IS_PLACEHOLDER, FLAG_PATH_PROPERTY_IS_NODE
INST = 0x7FFFFFFF  # TYPE_INSTANTIATED


def np(text: str) -> NodePath:
    return NodePath.parse(text) if text != "." else NodePath((".",))


def dotted(text: str) -> NodePath:
    return NodePath((".", *NodePath.parse(text).names))


# What godot3-server 3.2.3 (Debian's GCC build) gives as _bundled for a text scene it
# loaded: every name, value and node path appended in the loader's order, duplicates kept.
# The scene (format=2):
#   [ext_resource path="res://sub.tscn" type="PackedScene" id=1]
#   [node name="Root" type="Node2D" groups=["g1", "g2"]]  position = Vector2( 1, 2 )
#   [node name="A" type="Node" parent="."]
#   [node name="B" type="Node2D" parent="A"]  position = Vector2( 1, 2 )
#   [node name="Inst" parent="A" instance=ExtResource( 1 )]
#   [node name="In" parent="A/Inst" index="0"]  editor_description = "x"
#   [node name="P" parent="." instance_placeholder="res://sub.tscn"]
#   [connection signal="ready" from="A/B" to="." method="_on_ready" binds=[ 1, "x" ]]
#   [connection signal="tree_exited" from="." to="A" method="_foo" flags=3]
#   [editable path="A/Inst"]
def engine_godot3() -> dict[str, Any]:
    return {
        "names": PackedStringArray([
            "Root", "Node2D", "g1", "g2", "position", "A", "Node", "B", "Node2D", "position",
            "Inst", "In", "editor_description", "P", "_on_ready", "ready", "_foo",
            "tree_exited"]),
        "variants": [Vector2(1, 2), Vector2(1, 2), ExtRef("1"), "x", "res://sub.tscn", 1, "x"],
        "node_count": 6,
        "nodes": PackedInt32Array([
            -1, -1, 1, 0, -1, 1, 4, 0, 2, 2, 3,
            P | 0, 0, 6, 5, -1, 0, 0,
            P | 1, 0, 8, 7, -1, 1, 9, 1, 0,
            P | 2, 0, INST, 10, 2, 0, 0,
            P | 3, -1, INST, 262155, -1, 1, 12, 3, 0,
            P | 4, 0, INST, 13, P | 4, 0, 0]),
        "conn_count": 2,
        "conns": PackedInt32Array([P | 6, P | 5, 15, 14, 2, 2, 5, 6,
                                   P | 8, P | 7, 17, 16, 3, 0]),
        "node_paths": [np("."), dotted("A"), dotted("A"), dotted("A/Inst"), np("."), np("."),
                       np("A/B"), np("A"), np(".")],
        "editable_instances": [np("A/Inst")],
        "version": 2,
    }


def scene_godot3() -> Scene:
    return Scene(
        nodes=[
            SceneNode("Root", "Node2D", None, groups=["g1", "g2"],
                      properties={"position": Vector2(1, 2)}),
            SceneNode("A", "Node", "."),
            SceneNode("B", "Node2D", "A", properties={"position": Vector2(1, 2)}),
            SceneNode("Inst", None, "A", instance=ExtRef("1")),
            SceneNode("In", None, "A/Inst", properties={"editor_description": "x"},
                      extra={"index": 0}),
            SceneNode("P", None, ".", extra={"instance_placeholder": "res://sub.tscn"}),
        ],
        connections=[
            Connection("A/B", "ready", ".", "_on_ready", flags=2, binds=[1, "x"]),
            Connection(".", "tree_exited", "A", "_foo", flags=3),
        ],
        editable=["A/Inst"],
        version=2,
    )


# godot3-server 3.2.3 again, for an inherited scene (format=2):
#   [ext_resource path="res://sub.tscn" type="PackedScene" id=1]
#   [ext_resource path="res://a.tscn" type="PackedScene" id=2]
#   [node name="S" instance=ExtResource( 1 )]  position = Vector2( 3, 4 )
#   [node name="In" parent="." index="0" groups=["zz"]]  editor_description = "hi"
#   [node name="New" type="Sprite" parent="In"]  owner = 1
#   [node name="Nest" parent="In/New" instance=ExtResource( 2 )]
#   [node name="Own" type="Node" parent="In/New" owner=NodePath("In")]
#   [connection signal="ready" from="In" to="." method="_r"]
def engine_godot3_inherited() -> dict[str, Any]:
    return {
        "names": PackedStringArray(["S", "position", "In", "zz", "editor_description", "New",
                                    "Sprite", "owner", "Nest", "Own", "Node", "_r", "ready"]),
        "variants": [ExtRef("1"), Vector2(3, 4), "hi", 1, ExtRef("2")],
        "node_count": 5,
        "nodes": PackedInt32Array([
            -1, -1, INST, 0, -1, 1, 1, 1, 0,
            P | 0, -1, INST, 262146, -1, 1, 4, 2, 1, 3,
            P | 1, 0, 6, 5, -1, 1, 7, 3, 0,
            P | 2, 0, INST, 8, 4, 0, 0,
            P | 3, P | 4, 10, 9, -1, 0, 0]),
        "conn_count": 1,
        "conns": PackedInt32Array([P | 6, P | 5, 12, 11, 2, 0]),
        "node_paths": [np("."), dotted("In"), dotted("In/New"), dotted("In/New"), np("In"),
                       np("."), np("In")],
        "editable_instances": [],
        "base_scene": 0,
        "version": 2,
    }


def scene_godot3_inherited() -> Scene:
    return Scene(
        nodes=[
            SceneNode("S", None, None, instance=ExtRef("1"),
                      properties={"position": Vector2(3, 4)}),
            SceneNode("In", None, ".", groups=["zz"], properties={"editor_description": "hi"},
                      extra={"index": 0}),
            SceneNode("New", "Sprite", "In", properties={"owner": 1}),
            SceneNode("Nest", None, "In/New", instance=ExtRef("2")),
            SceneNode("Own", "Node", "In/New", extra={"owner": "In"}),
        ],
        connections=[Connection("In", "ready", ".", "_r", flags=2)],
        version=2,
    )


# A Godot 4 scene as the editor packs it (SceneState::pack): names and values deduplicated
# in first-use order, parents by node index, an inherited root (base_scene), a node of the
# base scene reached through a node path, a property saved as a node path, unbinds.
def engine_godot4_packed() -> dict[str, Any]:
    return {
        "names": PackedStringArray(["Main", "Child", "target", "grp", "Node3D", "Deep", "x",
                                    "Sub", "Label", "_on_pressed", "pressed"]),
        "variants": [ExtRef("1_base"), NodePath(("..",)), 3.5, "res://sub.tscn", True],
        "node_count": 4,
        "nodes": PackedInt32Array([
            -1, -1, INST, 0, -1, 0, 0,
            0, 0, 4, 1 | (2 << 18), -1, 1, 2 | P, 1, 1, 3,
            P | 0, -1, INST, 5 | (1 << 18), -1, 1, 6, 2, 0,
            1, 0, 8, 7, P | 3, 0, 0]),
        "conn_count": 1,
        "conns": PackedInt32Array([1, 2, 10, 9, 6, 1, 4, 1]),
        "node_paths": [np("Base/Inner")],
        "editable_instances": [np("Base")],
        "base_scene": 0,
        "version": 3,
    }


def scene_godot4_packed() -> Scene:
    return Scene(
        nodes=[
            SceneNode("Main", None, None, instance=ExtRef("1_base")),
            SceneNode("Child", "Node3D", ".", groups=["grp"],
                      properties={"target": NodePath(("..",))},
                      extra={"index": 1, "node_paths": PackedStringArray(["target"])}),
            SceneNode("Deep", None, "Base/Inner", properties={"x": 3.5}, extra={"index": 0}),
            SceneNode("Sub", "Label", "Child", extra={"instance_placeholder": "res://sub.tscn"}),
        ],
        connections=[Connection("Child", "pressed", "Base/Inner/Deep", "_on_pressed",
                                flags=6, binds=[True], unbinds=1)],
        editable=["Base"],
        version=3,
    )


def test_reads_godot3_text_loaded_bundle() -> None:
    scene, kept = read_bundled(engine_godot3())
    assert scene == scene_godot3()
    assert kept["bundled"] == engine_godot3()


@pytest.mark.parametrize(("engine", "scene"), [(engine_godot3, scene_godot3),
                                                (engine_godot3_inherited, scene_godot3_inherited)])
def test_packs_as_godot3_text_loader_does(engine: Any, scene: Any) -> None:
    assert read_bundled(engine())[0] == scene()
    assert write_bundled(scene()) == engine()
    assert list(write_bundled(scene())) == list(engine())


def test_kept_bundle_given_back_unchanged() -> None:
    bundled = engine_godot4_packed()
    scene, kept = read_bundled(bundled)
    assert write_bundled(scene, kept) is bundled


def test_changed_scene_is_packed_afresh() -> None:
    bundled = engine_godot3()
    scene, kept = read_bundled(bundled)
    scene.nodes[1].properties["visible"] = False
    out = write_bundled(scene, kept)
    assert out is not bundled
    again, _ = read_bundled(out)
    assert again == scene


def test_godot4_pack_order_bundle() -> None:
    scene, _ = read_bundled(engine_godot4_packed())
    assert scene == scene_godot4_packed()
    assert write_bundled(scene, order="pack") == engine_godot4_packed()
    fresh = write_bundled(scene)
    assert read_bundled(fresh)[0] == scene
    assert fresh["base_scene"] == 0 and fresh["version"] == 3


def test_placeholder_must_be_a_string() -> None:
    bundled = engine_godot4_packed()
    bundled["variants"][3] = SubRef("Sub_1")
    with pytest.raises(DecodeError, match="placeholder path"):
        read_bundled(bundled)


def test_unique_ids_and_id_paths() -> None:
    scene = Scene(nodes=[
        SceneNode("R", "Node", None, extra={"unique_id": 11}),
        SceneNode("S", None, "Inst/In", extra={
            "unique_id": 12, "index": 0, "parent_id_path": PackedInt32Array([5, 6]),
            "owner": "Inst", "owner_uid_path": PackedInt32Array([5])}),
    ], version=3)
    out = write_bundled(scene)
    assert list(out) == ["names", "variants", "node_count", "nodes", "node_ids", "conn_count",
                         "conns", "node_paths", "id_paths", "editable_instances", "version"]
    assert out["node_ids"] == PackedInt32Array([11, 12])
    assert out["id_paths"] == [PackedInt32Array([5, 6]), PackedInt32Array([5])]
    assert out["node_paths"] == [np("Inst/In"), np("Inst")]  # 4.6's loader: no "./" added
    assert read_bundled(out)[0] == scene


def test_dictionary_container_and_defaults() -> None:
    bundled = Dictionary([("names", PackedStringArray(["R", "Node"])), ("variants", []),
                          ("node_count", 1), ("nodes", [-1, -1, 1, 0, -1, 0, 0]),
                          ("conn_count", 0), ("conns", [])])
    scene, _ = read_bundled(bundled)
    assert scene == Scene(nodes=[SceneNode("R", "Node")], version=1)
    out = write_bundled(scene)
    assert out["nodes"] == PackedInt32Array([-1, -1, 1, 0, -1, 0, 0])
    assert out["version"] == 1


def test_large_index_is_kept() -> None:
    bundled = engine_godot3()
    bundled["nodes"] = PackedInt32Array([-1, -1, 1, -(1 << 18), -1, 0, 0])
    bundled["node_count"], bundled["conn_count"], bundled["conns"] = 1, 0, PackedInt32Array()
    scene, _ = read_bundled(bundled)
    assert scene.nodes[0].extra["index"] == 0x3FFE
    assert write_bundled(scene)["nodes"].tolist()[3] == -(1 << 18)


def test_owner_path_written_when_not_root() -> None:
    bundled = engine_godot3()
    nodes = bundled["nodes"].tolist()
    nodes[1] = P | 7  # the root's owner: node path "A"
    bundled["nodes"] = PackedInt32Array(nodes)
    scene, _ = read_bundled(bundled)
    assert scene.nodes[0].extra["owner"] == "A"


def test_unbinds_need_version_3() -> None:
    scene = scene_godot3()
    scene.connections[0].unbinds = 2
    with pytest.raises(EncodeError, match="unbinds"):
        write_bundled(scene)


def test_unknown_order_refused() -> None:
    with pytest.raises(EncodeError, match="order"):
        write_bundled(scene_godot3(), order="sorted")


@pytest.mark.parametrize("bad", [
    lambda s: s.nodes.__setitem__(0, SceneNode(5)),  # type: ignore[arg-type]
    lambda s: setattr(s.nodes[4], "extra", {"index": 1 << 20}),
    lambda s: setattr(s, "version", 9),
    lambda s: setattr(s.nodes[1], "parent", 3),
])
def test_encode_errors(bad: Any) -> None:
    scene = scene_godot3()
    bad(scene)
    with pytest.raises(EncodeError):
        write_bundled(scene)


# ---------------------------------------------------------------------------------------------
# Hostile input


def mutated(**changes: Any) -> dict[str, Any]:
    bundled = engine_godot3()
    bundled.update(changes)
    return bundled


def with_nodes(index: int, value: int) -> dict[str, Any]:
    nodes = engine_godot3()["nodes"].tolist()
    nodes[index] = value
    return mutated(nodes=PackedInt32Array(nodes))


def with_conns(index: int, value: int) -> dict[str, Any]:
    conns = engine_godot3()["conns"].tolist()
    conns[index] = value
    return mutated(conns=PackedInt32Array(conns))


@pytest.mark.parametrize(("bundled", "path"), [
    ([], "$._bundled"),
    ({"names": []}, "$._bundled"),
    (mutated(version=4), "$._bundled.version"),
    (mutated(version="2"), "$._bundled.version"),
    (mutated(names=[1]), "$._bundled.names"),
    (mutated(variants={}), "$._bundled.variants"),
    (mutated(nodes=[1.5]), "$._bundled.nodes"),
    (mutated(node_count=99), "$._bundled.node_count"),
    (mutated(node_count=-1), "$._bundled.node_count"),
    (mutated(conn_count=99), "$._bundled.conn_count"),
    (mutated(node_paths=["."]), "$._bundled.node_paths[0]"),
    (mutated(editable_instances=3), "$._bundled.editable_instances"),
    (mutated(base_scene=7), "$._bundled.base_scene"),
    (mutated(id_paths=[[1], "x"]), "$._bundled.id_paths[1]"),
    (with_nodes(2, 18), "$._bundled.nodes[0]"),          # type past the names
    (with_nodes(3, 0x3FFFF), "$._bundled.nodes[0]"),     # name past the names
    (with_nodes(4, 7), "$._bundled.nodes[0]"),           # instance past the variants
    (with_nodes(4, -7), "$._bundled.nodes[0]"),          # negative instance
    (with_nodes(5, 1000), "$._bundled.nodes[5]"),        # property count too large
    (with_nodes(5, -1), "$._bundled.nodes[5]"),          # negative property count
    (with_nodes(6, 99), "$._bundled.nodes[6]"),          # property name past the names
    (with_nodes(7, 99), "$._bundled.nodes[6]"),          # property value past the variants
    (with_nodes(11, P | 40), "$._bundled.nodes[11]"),    # parent past the node paths
    (with_nodes(11, 1), "$._bundled.nodes[11]"),         # parent is itself, or later
    (with_nodes(11, 5), "$._bundled.nodes[11]"),
    (with_nodes(11, -3), "$._bundled.nodes[11]"),
    (with_nodes(12, 9), "$._bundled.nodes[11]"),         # owner is a later node
    (with_conns(0, 9), "$._bundled.conns[0]"),           # source is no node
    (with_conns(2, 99), "$._bundled.conns[0]"),          # signal past the names
    (with_conns(5, 50), "$._bundled.conns[5]"),          # bind count too large
    (with_conns(6, 50), "$._bundled.conns[6]"),          # bind past the variants
])
def test_hostile_bundles(bundled: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        read_bundled(bundled)
    assert info.value.path == path
    assert info.value.format == "godot"


def test_truncated_nodes() -> None:
    bundled = mutated(nodes=PackedInt32Array(engine_godot3()["nodes"].tolist()[:38]))
    with pytest.raises(DecodeError, match="past the end"):
        read_bundled(bundled)


def test_deep_chain_is_refused_not_quadratic() -> None:
    n = 60_000
    nodes = [-1, -1, 0, 0, -1, 0, 0]
    for i in range(1, n):
        nodes += [i - 1, 0, 0, 0, -1, 0, 0]
    bundled = {"names": PackedStringArray(["n" * 40]), "variants": [], "node_count": n,
               "nodes": PackedInt32Array(nodes), "conn_count": 0, "conns": PackedInt32Array(),
               "version": 2}
    with pytest.raises(DecodeError, match="nested too deeply"):
        read_bundled(bundled)


def test_long_path_shared_by_many_connections() -> None:
    long_path = NodePath(tuple(f"n{i}" for i in range(100_000)))
    n = 20_000
    bundled = {"names": PackedStringArray(["R", "Node", "s", "m"]), "variants": [],
               "node_count": 1, "nodes": PackedInt32Array([-1, -1, 1, 0, -1, 0, 0]),
               "conn_count": n, "conns": PackedInt32Array([P, 0, 2, 3, 2, 0] * n),
               "node_paths": [long_path], "version": 2}
    scene, _ = read_bundled(bundled)
    assert len({id(c.source) for c in scene.connections}) == 1


def test_moderate_chain_reads() -> None:
    n = 200
    nodes = [-1, -1, 0, 0, -1, 0, 0]
    for i in range(1, n):
        nodes += [i - 1, 0, 0, 0, -1, 0, 0]
    bundled = {"names": PackedStringArray(["N"]), "variants": [], "node_count": n,
               "nodes": PackedInt32Array(nodes), "conn_count": 0, "conns": PackedInt32Array(),
               "version": 2}
    scene, _ = read_bundled(bundled)
    assert scene.nodes[3].parent == "N/N"


ints = st.integers(min_value=-(1 << 31), max_value=(1 << 31) - 1)
small = st.integers(min_value=-2, max_value=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(small, st.sampled_from([P, P | 1, P | 3, INST]), ints),
                max_size=60),
       st.lists(st.one_of(small, st.sampled_from([P, P | 2])), max_size=30),
       st.integers(min_value=0, max_value=8), st.integers(min_value=0, max_value=4),
       st.integers(min_value=1, max_value=3))
def test_random_integers_decode_or_refuse(nodes: list[int], conns: list[int], node_count: int,
                                          conn_count: int, version: int) -> None:
    bundled = mutated(nodes=PackedInt32Array(nodes), conns=PackedInt32Array(conns),
                      node_count=node_count, conn_count=conn_count, version=version)
    try:
        scene, kept = read_bundled(bundled)
    except DecodeError:
        return
    assert write_bundled(scene, kept) is bundled
    for order in ("text", "pack"):
        try:
            fresh = write_bundled(scene, order=order)
        except EncodeError:
            return
        again, _ = read_bundled(fresh)
        assert again.nodes == scene.nodes
        assert again.connections == scene.connections


# ---------------------------------------------------------------------------------------------
# The corpus (binary scenes), once the binary reader is in the tree

CORPUS = corpus_dir("godot-real")


def corpus_scenes() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    cases = json.loads(manifest.read_text())["cases"]
    return [c for c in cases if c["kind"] == "scn"]


@pytest.mark.parametrize("case", corpus_scenes(), ids=lambda c: c["case"])
def test_corpus_scene_round_trip(case: dict[str, Any]) -> None:
    data = (CORPUS / case["case"] / case["file"]).read_bytes()
    res = binary.read(data)
    bundled = res.main.properties["_bundled"]
    original = copy.deepcopy(bundled)
    scene, kept = read_bundled(bundled)
    assert scene.nodes, "a scene has a root"
    assert scene.nodes[0].parent is None
    assert write_bundled(scene, kept) is bundled
    assert bundled == original
    packed = write_bundled(scene, order="pack")  # the editor packed these: same tables
    assert packed == bundled
    if case["engine_major"] >= 3:  # Godot 2's Dictionary kept its keys in hash order
        assert list(packed) == list(bundled)
    scene.nodes[0].groups.append("added")
    changed = write_bundled(scene, kept, order="pack")
    assert list(changed) == list(bundled)
    assert read_bundled(changed)[0] == scene
    fresh = write_bundled(scene)
    again, _ = read_bundled(fresh)
    assert again.nodes == scene.nodes
    assert again.connections == scene.connections
    if case["engine"].startswith("Godot 4.7"):
        assert "unique_id" in scene.nodes[0].extra


@pytest.mark.parametrize("case", corpus_scenes(), ids=lambda c: c["case"])
def test_corpus_scene_rewritten_from_scene_alone(case: dict[str, Any]) -> None:
    """.scn read -> Scene -> a _bundled packed afresh -> .scn written: the same stream."""
    data = (CORPUS / case["case"] / case["file"]).read_bytes()
    res = binary.read(data)
    bundled = res.main.properties["_bundled"]
    scene, _ = read_bundled(bundled)
    fresh = write_bundled(scene, order="pack")
    assert fresh is not bundled
    res.main.properties["_bundled"] = {key: fresh[key] for key in bundled}  # Godot 2's order
    out = binary.write(res)
    if compressed.is_compressed(data):
        assert compressed.decompress(out)[0] == compressed.decompress(data)[0]
    else:
        assert out == data


# ---------------------------------------------------------------------------------------------
# The engine's own text -> binary tables: godot3-server loads the corpus's Godot 3 scenes (its
# dependencies missing, so each external resource is a null Object) and reports _bundled

DUMP_SCRIPT = """extends SceneTree
func _init():
\tResourceLoader.set_abort_on_missing_resources(false)
\tvar f = File.new()
\tf.open("res://list.txt", File.READ)
\tvar out = File.new()
\tout.open("res://engine.jsonl", File.WRITE)
\twhile not f.eof_reached():
\t\tvar case = f.get_line()
\t\tif case == "":
\t\t\tcontinue
\t\tvar ps = ResourceLoader.load("res://c/" + case + ".tscn", "", true)
\t\tif ps == null:
\t\t\tcontinue
\t\tvar b = ps.get("_bundled")
\t\tvar types = []
\t\tfor v in b["variants"]:
\t\t\ttypes.append(typeof(v))
\t\tvar paths = []
\t\tfor p in b["node_paths"]:
\t\t\tpaths.append(str(p))
\t\tvar editable = []
\t\tfor p in b["editable_instances"]:
\t\t\teditable.append(str(p))
\t\tout.store_line(to_json({"case": case, "keys": b.keys(), "names": Array(b["names"]),
\t\t\t"nodes": Array(b["nodes"]), "conns": Array(b["conns"]), "node_paths": paths,
\t\t\t"editable": editable, "base_scene": b.get("base_scene", -1), "types": types,
\t\t\t"version": b["version"]}))
\tout.close()
\tquit()
"""
# A node that sets focus_mode twice: the engine keeps both, a Scene's properties only one.
PROPERTY_SET_TWICE = {"demos-3.0__misc_regex_regex_tscn"}


def engine_bundles(godot3: str, tmp: Path,
                   cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    (tmp / "c").mkdir()
    (tmp / "project.godot").write_text("config_version=4\n")
    (tmp / "dump.gd").write_text(DUMP_SCRIPT)
    for case in cases:
        shutil.copy(CORPUS / case["case"] / case["file"], tmp / "c" / f"{case['case']}.tscn")
    (tmp / "list.txt").write_text("".join(c["case"] + "\n" for c in cases))
    subprocess.run([godot3, "--path", str(tmp), "-s", "dump.gd"], capture_output=True,
                   timeout=300, check=False)
    lines = (tmp / "engine.jsonl").read_text().splitlines()
    return {e["case"]: e for e in map(json.loads, lines)}


def test_text_order_matches_godot3_conversion(godot3_exe: str, tmp_path: Path) -> None:
    require(CORPUS, "godot-real")
    manifest = CORPUS / "manifest.json"
    cases = [c for c in json.loads(manifest.read_text())["cases"]
             if c["kind"] == "tscn" and c["engine_major"] == 3]
    engine = engine_bundles(godot3_exe, tmp_path, cases)
    assert len(engine) >= len(cases) - 2
    same = 0
    for case in cases:
        e = engine.get(case["case"])
        if e is None or case["case"] in PROPERTY_SET_TWICE:
            continue
        scene = text.read((CORPUS / case["case"] / case["file"]).read_bytes()).scene
        b = write_bundled(scene)
        assert list(b["names"]) == e["names"], case["case"]
        assert b["nodes"].tolist() == e["nodes"], case["case"]
        assert b["conns"].tolist() == e["conns"], case["case"]
        assert [str(p) for p in b["node_paths"]] == e["node_paths"], case["case"]
        assert [str(p) for p in b["editable_instances"]] == e["editable"], case["case"]
        assert b.get("base_scene", -1) == e["base_scene"]
        assert b["version"] == e["version"]
        # A missing external resource loads as a null Object (type 17 or 0).
        objects = [i for i, v in enumerate(b["variants"])
                   if v is None or isinstance(v, ExtRef | SubRef)]
        assert objects == [i for i, t in enumerate(e["types"]) if t in (0, 17)], case["case"]
        assert len(b["variants"]) == len(e["types"])
        same += 1
    assert same >= 40
