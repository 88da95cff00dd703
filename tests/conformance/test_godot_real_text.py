"""The real Godot text resources and scenes of ``../shared/corpus/godot-real`` (184 ``.tscn``
and ``.tres`` files written by Godot 2.1 to 4.7 editors and by games' ``ResourceSaver``; its
README and manifest describe each): every one read, written back byte for byte, printed
value by value as the engine prints it, and written with one property changed.

The corpus lives beside the project; without it these tests are skipped, or fail when
``CI=true``.
"""

from __future__ import annotations

import json
import math
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gameserde.godot import types as gt
from gameserde.godot.resource import text
from gameserde.godot.resource.model import ExtRef, ResourceFile
from gameserde.godot.resource.text_variant import format_value
from tests.conformance.corpus import corpus_dir, require

CORPUS = corpus_dir("godot-real")
TEXT_KINDS = ("tscn", "tres")


@cache
def _cases() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    cases = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if c["kind"] in TEXT_KINDS]


def _data(case: dict[str, Any]) -> bytes:
    return (CORPUS / case["case"] / case["file"]).read_bytes()


CASES = [c["case"] for c in _cases()]
BY_NAME = {c["case"]: c for c in _cases()}


def test_corpus_is_there() -> None:
    require(CORPUS, "godot-real")
    counts: dict[int, int] = {}
    for case in _cases():
        counts[case["engine_major"]] = counts.get(case["engine_major"], 0) + 1
    assert counts == {2: 4, 3: 63, 4: 117}


@pytest.mark.parametrize("name", CASES)
def test_read_and_write_back_identical(name: str) -> None:
    case = BY_NAME[name]
    data = _data(case)
    file = text.read(data)
    assert file.form == "text"
    assert file.format == case["text"]["format"]
    assert file.type == case["type"]
    counts = case["text"]["counts"]
    assert len(file.external) == counts.get("ext_resource", 0)
    held = counts.get("sub_resource", 0) + 1
    assert len(file.resources) == held
    if file.scene is not None:
        assert len(file.scene.nodes) == counts.get("node", 0)
        assert len(file.scene.connections) == counts.get("connection", 0)
        assert len(file.scene.editable) == counts.get("editable", 0)
    assert text.write(file).encode("utf-8") == data


def _holders(file: ResourceFile) -> list[tuple[str, dict[str, Any]]]:
    """Every property dictionary of the file with its section's key in ``kept``."""
    out = [(json.dumps(["sub", r.id]), r.properties) for r in file.resources[:-1]]
    if file.scene is None:
        out.append((json.dumps(["resource"]), file.main.properties))
    else:
        out += [(json.dumps(["node", n.parent, n.name]), n.properties) for n in file.scene.nodes]
    return out


def _spelled_by_the_converter(raw: str) -> bool:
    """Godot 4.0's converter of Godot 3 projects wrote references as ``ExtResource( "3" )``;
    the editor writes ``ExtResource("3")`` when it saves the value again."""
    return "Resource( " in raw


@pytest.mark.parametrize("name", [n for n in CASES if BY_NAME[n]["engine_major"] >= 3])
def test_every_value_prints_as_the_engine_wrote_it(name: str) -> None:
    file = text.read(_data(BY_NAME[name]))
    sections = file.kept["text_sections"]
    for section in sections.values():
        if not _spelled_by_the_converter(section["raw"]):
            assert section["canon"] == section["raw"]
    printer = text._printer(file)
    for key, props in _holders(file):
        for prop, value in props.items():
            _lead, raw, start = sections[key]["props"][prop]
            if not _spelled_by_the_converter(raw[start:]):
                assert printer.format(value) == raw[start:], prop


def _changed(value: Any) -> Any | None:
    """Another value of the same type, or None when there is no simple one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float) and math.isfinite(value):
        return value + 0.5
    if type(value) is str:
        return value + " (changed)"
    if isinstance(value, gt.Vector2):
        return gt.Vector2(value.x + 1.5, value.y)
    if isinstance(value, gt.Color):
        return gt.Color(0.25, value.g, value.b, value.a)
    return None


@pytest.mark.parametrize("name", CASES)
def test_one_property_changed(name: str) -> None:
    data = _data(BY_NAME[name]).decode("utf-8")
    file = text.read(data)
    sections = file.kept["text_sections"]
    found = next(((key, props, prop, new) for key, props in _holders(file)
                  for prop, value in props.items()
                  if (new := _changed(value)) is not None and key in sections), None)
    if found is None:  # nothing simple to change: add a property to the last section
        key, props = _holders(file)[-1]
        props["metadata/added"] = 1
        assert text.write(file) == data.replace(
            sections[key]["raw"] + "".join(p[0] + p[1] for p in sections[key]["props"].values()),
            sections[key]["raw"] + "".join(p[0] + p[1] for p in sections[key]["props"].values())
            + "\nmetadata/added = 1", 1)
        return
    key, props, prop, new = found
    old_raw = sections[key]["props"][prop][1]
    props[prop] = new
    out = text.write(file)
    major = 4 if file.format >= 3 else 3
    new_text = format_value(new, major, file.kept["text_float_style"])
    new_raw = f"{text._encode_name(prop)} = {new_text}"
    assert new_raw in out
    assert out.replace(new_raw, old_raw, 1) == data
    again = dict(_holders(text.read(out)))[key]
    assert format_value(again[prop], major, file.kept["text_float_style"]) == new_text


# ---------------------------------------------------------------------------------------------
# Godot 3.2.3 itself (Debian's godot3-server), where it is installed: it writes a resource and
# a scene, we read and write them; we change the resource, and the engine loads what we wrote
# and saves it again, giving our text back.

ENGINE_WRITES = """extends SceneTree
func _init():
	var r = Resource.new()
	var d = {"empty": {}, "inf": INF, "ninf": -INF, "nan": NAN, "f": 0.1, "f2": 123456789.0,
		"f3": 1e-05, "f4": 1.0 / 3.0, "big": 9007199254740993, "v2": Vector2(-INF, 0.3333333),
		"s": "a\\"b\\\\c\\nd\\te?'", "np": NodePath("a/b:c?"),
		"psa": PoolStringArray(["x\\ny", "q?"]), "arr": [1, 2.5, "x", [], {}],
		"col": Color(0.1, 0.2, 0.3, 1),
		"t": Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
			Vector3(10, 11, 12)),
		"t2": Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)),
		"q": Quat(0.1, 0.2, 0.3, 0.9), "aabb": AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)),
		"rect": Rect2(1, 2, 3, 4), "plane": Plane(1, 2, 3, 4),
		"pba": PoolByteArray([1, 2, 255]), "pia": PoolIntArray([1, -2]),
		"pra": PoolRealArray([0.1, 2]), "pv2": PoolVector2Array([Vector2(1, 2)]),
		"pv3": PoolVector3Array([Vector3(1, 2, 3)]), "pca": PoolColorArray([Color(1, 0, 0, 0.5)]),
		5: "int key", 1.5: "float key", true: "bool key"}
	r.set_meta("d", d)
	r.set_meta("z", -0.0)
	ResourceSaver.save("res://engine.tres", r)
	var root = Node2D.new()
	root.name = "Root"
	var c = Sprite.new()
	c.name = "Child"
	root.add_child(c)
	c.owner = root
	c.add_to_group("zz", true)
	c.add_to_group("aa", true)
	c.position = Vector2(1.5, 2)
	root.connect("ready", c, "hide", [1, "x"], CONNECT_DEFERRED | CONNECT_PERSIST)
	var ps = PackedScene.new()
	ps.pack(root)
	ResourceSaver.save("res://engine.tscn", ps)
	var inner = Node2D.new()
	inner.name = "Inner"
	var inner_scene = PackedScene.new()
	inner_scene.pack(inner)
	ResourceSaver.save("res://inner.tscn", inner_scene)
	root = Node2D.new()
	root.name = "Root"
	var body = StaticBody2D.new()
	body.name = "Body"
	root.add_child(body)
	body.owner = root
	var shape = CollisionShape2D.new()
	shape.name = "Shape"
	shape.shape = RectangleShape2D.new()
	shape.shape.extents = Vector2(3, 4)
	body.add_child(shape)
	shape.owner = root
	var instance = load("res://inner.tscn").instance()
	instance.name = "Instance"
	root.add_child(instance)
	instance.owner = root
	instance.position = Vector2(7, 8)
	ps = PackedScene.new()
	ps.pack(root)
	ResourceSaver.save("res://instances.tscn", ps)
	var theme = Theme.new()
	var box = StyleBoxFlat.new()
	box.bg_color = Color(1, 0, 0, 1)
	theme.set_stylebox("panel", "Panel", box)
	ResourceSaver.save("res://theme.tres", theme)
	quit()
"""

ENGINE_RESAVES = """extends SceneTree
func _init():
	ResourceSaver.save("res://again.tres", load("res://ours.tres"))
	quit()
"""


def _run_engine(exe: str, folder: Path, script: str) -> None:
    (folder / "project.godot").write_text("config_version=4\n", encoding="utf-8")
    (folder / "run.gd").write_text(script, encoding="utf-8")
    subprocess.run([exe, "--no-window", "-s", "run.gd"], cwd=folder, timeout=120,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def _fresh(file: ResourceFile) -> ResourceFile:
    """The same model without anything kept from the text."""
    return ResourceFile("text", file.type, file.engine, file.format, file.external,
                        file.resources, file.uid, file.script_class, file.scene)


def test_godot3_engine_text(godot3_exe: str, tmp_path: Path) -> None:
    _run_engine(godot3_exe, tmp_path, ENGINE_WRITES)
    for name in ("engine.tres", "engine.tscn", "instances.tscn", "theme.tres"):
        data = (tmp_path / name).read_bytes()
        file = text.read(data)
        assert file.kept["text_godot3_dialect"] == "3.2"
        assert text.write(file).encode() == data
        assert text.write(_fresh(file)).encode() == data
        printer = text._printer(file)
        sections = file.kept["text_sections"]
        for key, props in _holders(file):
            for prop, value in props.items():
                _lead, raw, start = sections[key]["props"][prop]
                assert printer.format(value) == raw[start:]
    scene = text.read((tmp_path / "engine.tscn").read_bytes()).scene
    assert scene is not None
    assert scene.nodes[1].groups == ["aa", "zz"]
    assert scene.connections[0].flags == 3 and scene.connections[0].binds == [1, "x"]
    file = text.read((tmp_path / "instances.tscn").read_bytes())
    assert file.external[0].path == "res://inner.tscn" and file.external[0].id == "1"
    assert file.resources[0].type == "RectangleShape2D" and file.resources[0].id == "1"
    assert file.scene is not None and file.scene.nodes[3].instance == ExtRef("1")

    file = text.read((tmp_path / "engine.tres").read_bytes())
    meta = file.main.properties["__meta__"]
    for unreadable in ("ninf", "v2"):  # -inf.0 and Vector2( -inf, ...): Godot 3.2 wrote
        del meta["d"][unreadable]  # them, but cannot read them back
    meta["d"]["f"] = 0.25
    meta["d"]["added"] = gt.Vector3(0.5, -1, 1e-05)
    meta["d"][7] = {}
    ours = text.write(file)
    (tmp_path / "ours.tres").write_text(ours, encoding="utf-8")
    _run_engine(godot3_exe, tmp_path, ENGINE_RESAVES)
    assert (tmp_path / "again.tres").read_text(encoding="utf-8") == ours
