"""Godot 3.2.3 (``godot3-server``) as the oracle for resource and scene files.

Two engine runs, both from a scratch directory that is ``res://`` (spec godot.md §12; the
running is :func:`tests.conformance.godot3_oracle.run_godot3`):

* **build** (:data:`BUILD_SCRIPT`): builds resources and scenes at run time and saves each with
  ``ResourceSaver`` as ``.tres``, ``.res`` and compressed ``.res`` (``FLAG_COMPRESS``: RSCC),
  scenes as ``.tscn``, ``.scn`` and compressed ``.scn``; then does the engine's own conversions
  (loads a binary file and saves it as text, and the other way). The resources use two
  GDScripts of ours (:data:`DATA_SCRIPT`, :data:`ITEM_SCRIPT`, external resources of every
  file, as in a game's save) that export a property of every type a Godot 3 resource
  holds; sub-resources nested and shared, an external ``.tres``, and built-in classes
  (``Gradient``, ``Curve``, ``GradientTexture``, materials), metadata, an Object that is
  not a resource (text ``Object(Reference,...)``; the binary saver writes null), an RID (binary
  only: 3.2.3's text saver writes an RID as nothing, which its loader refuses) and a
  compressed file of several blocks. The scenes have a node tree of several levels, an
  instanced sub-scene made editable with an overridden child, persistent groups, an
  instance placeholder, and signal connections with binds and flags. 3.2.3 does not bind
  ``Node.set_editable_instance``, so the scene is packed once, its ``_bundled`` given the
  editable path, saved, instanced again with ``GEN_EDIT_STATE_MAIN`` (which restores the
  editable flag), changed and packed again. Everything lands in ``engine/``.
* **report** (:data:`REPORT_SCRIPT`): loads every file of a list file (``files.txt``, one
  ``<id> <res:// path>`` a line) without the cache and prints what the engine sees: each
  resource it reaches (the main one and every sub-resource of the file: class and path),
  each stored property's value as ``var2bytes`` (objects as their instance ids, resolved
  through ``@@ REF`` lines), and for a scene its ``SceneState`` (nodes, connections) plus
  the editable instances of ``_bundled``.

:func:`read_reports` turns the report into :class:`FileReport` objects; :func:`engine_view`,
:func:`engine_scene` and :func:`ours_normal` put the engine's values and our model's in one
form, references as :class:`Ref` (comparable across files), which is what the tests compare.
GDScript errors abort only the function they happen in, so each step is a function of its
own and ``_init`` always reaches ``quit()``.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameserde.godot import decode
from gameserde.godot import types as gt
from tests.conformance.godot3_oracle import EngineRun, round_f32, run_godot3

DATA_SCRIPT = '''extends Resource
export var b_true = false
export var b_false = true
export var i_small = 0
export var i_neg = 0
export var i_big = 0
export var i_min = 0
export var f_half = 0.0
export var f_tenth = 0.0
export var f_third = 0.0
export var f_big = 0.0
export var f_tiny = 0.0
export var f_neg_zero = 1.0
export var s_empty = "x"
export var s_text = ""
export var s_escapes = ""
export var v2 = Vector2()
export var v3 = Vector3()
export var rect = Rect2()
export var xform2d = Transform2D()
export var plane = Plane()
export var quat = Quat()
export var aabb = AABB()
export var basis = Basis()
export var xform = Transform()
export var color = Color()
export var np_rel = NodePath()
export var np_abs = NodePath()
export var np_empty = NodePath("x")
export var dict = {}
export var dict_empty = {"x": 1}
export var arr = []
export var arr_empty = [1]
export var bytes = PoolByteArray()
export var ints = PoolIntArray()
export var reals = PoolRealArray()
export var strings = PoolStringArray()
export var vec2s = PoolVector2Array()
export var vec3s = PoolVector3Array()
export var colors = PoolColorArray()
export var bytes_empty = PoolByteArray([1])
export var ints_empty = PoolIntArray([1])
export var reals_empty = PoolRealArray([1])
export var strings_empty = PoolStringArray(["x"])
export var vec2s_empty = PoolVector2Array([Vector2()])
export var vec3s_empty = PoolVector3Array([Vector3()])
export var colors_empty = PoolColorArray([Color()])
export(Resource) var r_item
export(Resource) var r_shared_a
export(Resource) var r_shared_b
export(Resource) var r_ext
export(Resource) var r_null
export(Resource) var r_gradient
'''

ITEM_SCRIPT = '''extends Resource
export var label = ""
export var n = 0
export(Resource) var child
'''

DATA_PROPERTIES = [line.split()[2] for line in DATA_SCRIPT.splitlines()
                   if line.startswith("export")]
"""The properties of :data:`DATA_SCRIPT`: every one of them is set to a value that is not
its default, so a file must store them all."""

_BUILD_FUNCS = '''extends SceneTree


func _s(b):
\treturn Marshalls.base64_to_raw(b).get_string_from_utf8()


func _d(b):
\tvar p = StreamPeerBuffer.new()
\tp.data_array = Marshalls.base64_to_raw(b)
\treturn p.get_double()


func _neg_zero():
\tvar z = 0.0
\treturn -z


func _item(label, n, child):
\tvar it = load("res://gen/item.gd").new()
\tit.label = label
\tit.n = n
\tit.child = child
\treturn it


func _gradient():
\tvar g = Gradient.new()
\tg.offsets = PoolRealArray([0.0, 0.25, 1.0])
\tg.colors = PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0, 0, 1)])
\treturn g


func _save(res, name, exts):
\tfor ext in exts:
\t\tvar flags = 0
\t\tvar file = name + "." + ext
\t\tif ext.begins_with("z"):
\t\t\tflags = ResourceSaver.FLAG_COMPRESS
\t\t\tfile = name + "_z." + ext.substr(1, 3)
\t\tprint("@@ SAVED ", file, " ", ResourceSaver.save("res://engine/" + file, res, flags))


func _convert(name, src, dst):
\tvar res = ResourceLoader.load("res://engine/" + name + "." + src, "", true)
\tvar file = name + "." + src + "2" + dst + "." + dst
\tprint("@@ SAVED ", file, " ", ResourceSaver.save("res://engine/" + file, res))


func _values():
\tvar ext = _item("external", 7, null)
\tResourceSaver.save("res://engine/ext.tres", ext)
\text = load("res://engine/ext.tres")
\tvar v = load("res://gen/data.gd").new()
\tv.b_true = true
\tv.b_false = false
\tv.i_small = 42
\tv.i_neg = -7
\tv.i_big = 1099511627776
\tv.i_min = -9223372036854775807 - 1
\tv.f_half = 0.5
\tv.f_tenth = 0.1
\tv.f_third = 1.0 / 3.0
\tv.f_big = 1e300
\tv.f_tiny = _d("%s")
\tv.f_neg_zero = _neg_zero()
\tv.s_empty = ""
\tv.s_text = _s("%s")
\tv.s_escapes = _s("%s")
\tv.v2 = Vector2(1.5, -0.1)
\tv.v3 = Vector3(1, -2.25, 1e20)
\tv.rect = Rect2(1, 2, 3.5, 4)
\tv.xform2d = Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6.5))
\tv.plane = Plane(0, 1, 0, -3.5)
\tv.quat = Quat(0.1, 0.2, 0.3, 0.9)
\tv.aabb = AABB(Vector3(-1, -2, -3), Vector3(2, 4, 6))
\tv.basis = Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9.5))
\tv.xform = Transform(Basis(Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1)),
\t\tVector3(10, 20, 30))
\tv.color = Color(0.1, 0.2, 0.3, 0.4)
\tv.np_rel = NodePath("A/B:position:x")
\tv.np_abs = NodePath("/root/Main")
\tv.np_empty = NodePath("")
\tvar sub_b = _item("b", 2, null)
\tvar sub_a = _item("a", 1, sub_b)
\tvar shared = _item("shared", 3, null)
\tv.dict = {1: "one", "two": 2.5, "nested": {"k": [1, 2, {"deep": true}]},
\t\tVector2(1, 2): null, "res": shared}
\tv.dict_empty = {}
\tv.arr = [1, "two", [3, [4, [5]]], null, false, 1 << 40, 0.1, Vector3(1, 2, 3), shared, ext]
\tv.arr_empty = []
\tv.bytes = PoolByteArray([0, 1, 127, 128, 255])
\tv.ints = PoolIntArray([0, -1, 2147483647, -2147483648])
\tv.reals = PoolRealArray([0.5, -0.1, 1e30])
\tv.strings = PoolStringArray(["", "a", _s("%s"), "with \\"quote\\""])
\tv.vec2s = PoolVector2Array([Vector2(1, 2), Vector2(-0.5, 0.25)])
\tv.vec3s = PoolVector3Array([Vector3(1, 2, 3)])
\tv.colors = PoolColorArray([Color(1, 0, 0), Color(0.2, 0.4, 0.6, 0.8)])
\tv.bytes_empty = PoolByteArray()
\tv.ints_empty = PoolIntArray()
\tv.reals_empty = PoolRealArray()
\tv.strings_empty = PoolStringArray()
\tv.vec2s_empty = PoolVector2Array()
\tv.vec3s_empty = PoolVector3Array()
\tv.colors_empty = PoolColorArray()
\tv.r_item = sub_a
\tv.r_shared_a = shared
\tv.r_shared_b = shared
\tv.r_ext = ext
\tv.r_null = null
\tv.r_gradient = _gradient()
\t_save(v, "values", ["tres", "res", "zres"])


func _builtin():
\tvar c = Curve.new()
\tc.min_value = -2.0
\tc.add_point(Vector2(0, -1), 0.5, -0.5, Curve.TANGENT_LINEAR, Curve.TANGENT_FREE)
\tc.add_point(Vector2(0.5, 1.5))
\tc.add_point(Vector2(1, 0.25))
\t_save(c, "curve", ["tres", "res"])
\tvar t = GradientTexture.new()
\tt.width = 64
\tt.gradient = _gradient()
\tResourceSaver.save("res://engine/tex.tres", t)
\tvar m = Resource.new()
\tm.resource_name = "with meta"
\tm.set_meta("note", _s("%s"))
\tm.set_meta("nums", PoolIntArray([1, -2, 3]))
\tm.set_meta("nested", {"a": [Vector2(1, 2), {}], "b": NodePath("..")})
\t_save(m, "meta", ["tres", "res"])
\tvar o = Resource.new()
\to.set_meta("objects", [Reference.new(), 1])
\t_save(o, "inline", ["tres", "res"])
\tvar r = Resource.new()
\tr.set_meta("rids", [RID(), 5])
\t_save(r, "rid", ["res"])
\tvar blob = PoolByteArray()
\tfor i in range(20000):
\t\tblob.append((i * i + i / 7) %% 256)
\tvar big = Resource.new()
\tbig.set_meta("blob", blob)
\tbig.set_meta("reals", PoolRealArray(range(1000)))
\t_save(big, "big", ["zres"])


func _own(node, owner):
\tnode.owner = owner
\tfor child in node.get_children():
\t\t_own(child, owner)


func _sub_scene():
\tvar root = Node2D.new()
\troot.name = "Sub"
\tvar inner = Sprite.new()
\tinner.name = "Inner"
\tinner.position = Vector2(4, 5)
\tvar tex = GradientTexture.new()
\ttex.gradient = _gradient()
\tinner.texture = tex
\troot.add_child(inner)
\tvar deeper = Node.new()
\tdeeper.name = "Deeper"
\tinner.add_child(deeper)
\t_own(inner, root)
\tvar ps = PackedScene.new()
\tprint("@@ PACK sub ", ps.pack(root))
\t_save(ps, "sub", ["tscn", "scn"])
\troot.free()


func _main_scene():
\tvar root = Node2D.new()
\troot.name = "Main"
\troot.add_to_group("root_group", true)
\tvar a = Node2D.new()
\ta.name = "A"
\ta.position = Vector2(10, -20)
\ta.rotation = 0.5
\ta.add_to_group("g1", true)
\ta.add_to_group("g2", true)
\ta.add_to_group("not_saved", false)
\troot.add_child(a)
\tvar mat = CanvasItemMaterial.new()
\tmat.blend_mode = CanvasItemMaterial.BLEND_MODE_ADD
\tvar b = Sprite.new()
\tb.name = "B"
\tb.material = mat
\tb.modulate = Color(1, 0.5, 0.25)
\ta.add_child(b)
\tvar c = Node2D.new()
\tc.name = "C"
\tc.material = mat
\tc.z_index = 3
\tb.add_child(c)
\tvar d = Sprite.new()
\td.name = "D"
\td.texture = load("res://engine/tex.tres")
\td.centered = false
\tc.add_child(d)
\tvar t = Label.new()
\tt.name = "Label"
\tt.text = _s("%s")
\troot.add_child(t)
\tvar inst = load("res://engine/sub.tscn").instance()
\tinst.name = "Inst"
\tinst.position = Vector2(7, 8)
\ta.add_child(inst)
\tfor n in [a, b, c, d, t, inst]:
\t\tn.owner = root
\tvar ps = PackedScene.new()
\tprint("@@ PACK stage ", ps.pack(root))
\tvar bundled = ps._bundled
\tbundled["editable_instances"] = [NodePath("A/Inst")]
\tps._bundled = bundled
\tResourceSaver.save("res://gen/stage.tscn", ps)
\troot.free()
\t_edit_instance()


func _edit_instance():
\tvar root = load("res://gen/stage.tscn").instance(PackedScene.GEN_EDIT_STATE_MAIN)
\tvar inner = root.get_node("A/Inst/Inner")
\tinner.position = Vector2(-1, -2)
\tinner.add_to_group("in_instance", true)
\tvar lazy = load("res://engine/sub.tscn").instance()
\tlazy.name = "Lazy"
\tlazy.set_scene_instance_load_placeholder(true)
\troot.add_child(lazy)
\tlazy.owner = root
\tvar a = root.get_node("A")
\tvar b = root.get_node("A/B")
\tvar c = root.get_node("A/B/C")
\ta.connect("visibility_changed", b, "hide", [1, "two", Vector2(3, 4)],
\t\tCONNECT_PERSIST | CONNECT_DEFERRED)
\tc.connect("tree_exited", root, "queue_free", [], CONNECT_PERSIST | CONNECT_ONESHOT)
\troot.get_node("Label").connect("resized", root.get_node("A/Inst"), "show", [], CONNECT_PERSIST)
\tinner.connect("draw", c, "update", [load("res://engine/tex.tres"), NodePath("../x")],
\t\tCONNECT_PERSIST)
\tb.connect("ready", c, "show")
\tvar ps = PackedScene.new()
\tprint("@@ PACK main ", ps.pack(root))
\t_save(ps, "main", ["tscn", "scn", "zscn"])
\troot.free()


func _conversions():
\tfor name in ["values", "curve", "meta"]:
\t\t_convert(name, "res", "tres")
\t\t_convert(name, "tres", "res")
\tfor name in ["sub", "main"]:
\t\t_convert(name, "scn", "tscn")
\t\t_convert(name, "tscn", "scn")


func _init():
\t_values()
\t_builtin()
\t_sub_scene()
\t_main_scene()
\t_conversions()
\tprint("@@ DONE")
\tquit()
'''


def _b64_utf8(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


S_TEXT = "héllo wörld ✓ 日本語 😀"
S_ESCAPES = 'quote " backslash \\ newline \n tab \t cr \r bell \x07 nul-free end'
STRING_ITEM = "ünï\ncode"
LABEL_TEXT = 'Label "quoted"\nsecond line'

F_TINY = 1.5e-310
"""A subnormal double (GDScript 3.2's literal parser flushes it to 0, so it is built from
its bytes)."""

BUILD_SCRIPT = _BUILD_FUNCS % (base64.b64encode(struct.pack("<d", F_TINY)).decode("ascii"),
                               _b64_utf8(S_TEXT), _b64_utf8(S_ESCAPES), _b64_utf8(STRING_ITEM),
                               _b64_utf8(S_TEXT), _b64_utf8(LABEL_TEXT))
"""The build run's GDScript."""

ENGINE_FILES = [
    "ext.tres", "tex.tres",
    "values.tres", "values.res", "values_z.res", "curve.tres", "curve.res",
    "meta.tres", "meta.res", "inline.tres", "inline.res", "rid.res", "big_z.res",
    "sub.tscn", "sub.scn", "main.tscn", "main.scn", "main_z.scn",
]
"""What the build run saves into ``engine/``, besides the conversions."""

CONVERSIONS = {
    # engine conversion file: (its source file, the target form)
    "values.res2tres.tres": ("values.res", "text"),
    "values.tres2res.res": ("values.tres", "binary"),
    "curve.res2tres.tres": ("curve.res", "text"),
    "curve.tres2res.res": ("curve.tres", "binary"),
    "meta.res2tres.tres": ("meta.res", "text"),
    "meta.tres2res.res": ("meta.tres", "binary"),
    "sub.scn2tscn.tscn": ("sub.scn", "text"),
    "sub.tscn2scn.scn": ("sub.tscn", "binary"),
    "main.scn2tscn.tscn": ("main.scn", "text"),
    "main.tscn2scn.scn": ("main.tscn", "binary"),
}

REPORT_SCRIPT = '''extends SceneTree


func _b64(v):
\treturn Marshalls.raw_to_base64(var2bytes(v, false))


func _objects(fid, v, found):
\tif typeof(v) == TYPE_OBJECT and v != null:
\t\tvar key = v.get_instance_id()
\t\tif not found.has(key):
\t\t\tfound[key] = v
\t\t\tvar path = v.resource_path if v is Resource else ""
\t\t\tprint("@@ REF ", fid, "|", key, " ", v.get_class(), " ", path)
\telif typeof(v) == TYPE_ARRAY:
\t\tfor x in v:
\t\t\t_objects(fid, x, found)
\telif typeof(v) == TYPE_DICTIONARY:
\t\tfor k in v:
\t\t\t_objects(fid, k, found)
\t\t\t_objects(fid, v[k], found)


func _scene(fid, st, found):
\tfor i in range(st.get_node_count()):
\t\tvar key = fid + "|" + str(i)
\t\tvar inst = st.get_node_instance(i)
\t\t_objects(fid, inst, found)
\t\tvar iid = inst.get_instance_id() if inst != null else 0
\t\tprint("@@ NODE ", key, " ", _b64([st.get_node_name(i), st.get_node_type(i),
\t\t\tst.get_node_path(i, true), st.get_node_owner_path(i), st.get_node_index(i), iid,
\t\t\tst.get_node_groups(i), st.get_node_instance_placeholder(i)]))
\t\tfor j in range(st.get_node_property_count(i)):
\t\t\tvar v = st.get_node_property_value(i, j)
\t\t\t_objects(fid, v, found)
\t\t\tprint("@@ NPROP ", key, "|", j, " ", st.get_node_property_name(i, j), " ", _b64(v))
\tfor i in range(st.get_connection_count()):
\t\tvar binds = st.get_connection_binds(i)
\t\t_objects(fid, binds, found)
\t\tprint("@@ CONN ", fid, "|", i, " ", _b64([st.get_connection_source(i),
\t\t\tst.get_connection_signal(i), st.get_connection_target(i), st.get_connection_method(i),
\t\t\tst.get_connection_flags(i), binds]))


func _report(fid, path):
\tprint("@@ BEGIN ", fid)
\tvar main = ResourceLoader.load(path, "", true)
\tif main == null:
\t\treturn
\tvar found = {}
\tvar queue = [main]
\tvar seen = {}
\twhile queue.size() > 0:
\t\tvar res = queue.pop_front()
\t\tvar rid = res.get_instance_id()
\t\tif seen.has(rid):
\t\t\tcontinue
\t\tseen[rid] = true
\t\tprint("@@ RES ", fid, "|", rid, " ", res.get_class(), " ", res.resource_path)
\t\tfor p in res.get_property_list():
\t\t\tif p.usage & PROPERTY_USAGE_STORAGE:
\t\t\t\tvar v = res.get(p.name)
\t\t\t\t_objects(fid, v, found)
\t\t\t\tprint("@@ PROP ", fid, "|", rid, "|", p.name, " ", _b64(v))
\t\tfor key in found:
\t\t\tvar o = found[key]
\t\t\tif o is Resource and not seen.has(key):
\t\t\t\tif o.resource_path == "" or o.resource_path.begins_with(path + "::"):
\t\t\t\t\tqueue.append(o)
\tif main is PackedScene:
\t\t_scene(fid, main.get_state(), found)
\t\tvar editable = main._bundled.get("editable_instances", [])
\t\tprint("@@ EDITABLE ", fid, " ", _b64(editable))
\tprint("@@ LOADED ", fid, " ", main.get_class(), " ", main.get_instance_id())


func _init():
\tvar f = File.new()
\tf.open("res://files.txt", File.READ)
\twhile not f.eof_reached():
\t\tvar line = f.get_line()
\t\tif line != "":
\t\t\tvar parts = line.split(" ")
\t\t\t_report(parts[0], parts[1])
\tf.close()
\tprint("@@ DONE")
\tquit()
'''
"""The report run's GDScript: it reads ``res://files.txt``."""


def build(exe: str, work: Path) -> EngineRun:
    """Run the build script in ``work`` (``res://``): the files land in ``work/engine``."""
    (work / "gen").mkdir(parents=True, exist_ok=True)
    (work / "engine").mkdir(exist_ok=True)
    (work / "gen" / "data.gd").write_text(DATA_SCRIPT, encoding="utf-8")
    (work / "gen" / "item.gd").write_text(ITEM_SCRIPT, encoding="utf-8")
    return run_godot3(exe, BUILD_SCRIPT, work, timeout=60.0)


def report(exe: str, work: Path, files: dict[str, str]) -> EngineRun:
    """Run the report script on ``files`` (id -> ``res://`` path), from ``work``."""
    for fid, path in files.items():
        assert " " not in fid + path and "|" not in fid, (fid, path)
    (work / "files.txt").write_text("".join(f"{k} {v}\n" for k, v in files.items()),
                                    encoding="utf-8")
    return run_godot3(exe, REPORT_SCRIPT, work, timeout=60.0)


# ---------------------------------------------------------------------------------------------
# The report, parsed


@dataclass(frozen=True)
class Ref:
    """A resource reference as the tests compare it: ``kind`` ``"main"`` (the file's main
    resource), ``"sub"`` (a resource the file holds; ``key`` its id), ``"ext"`` (another
    file; ``key`` its ``res://`` path) or ``"anon"`` (a resource with no path; ``key`` its
    class)."""

    kind: str
    key: str


@dataclass
class EngineResource:
    """A resource the engine loaded: its class, path and every stored property, in the
    engine's property order (values as decoded, objects still ``EncodedObjectAsID``)."""

    cls: str
    path: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class EngineNode:
    """A node of a loaded scene's ``SceneState``, with the fields the text format names:
    ``parent`` as text (None for the root), ``type`` None for an instanced node without
    a type of its own, ``index`` -1 when not set."""

    name: str
    type: str | None
    parent: str | None
    index: int
    instance: Any
    placeholder: str | None
    groups: list[str]
    properties: dict[str, Any]


@dataclass
class FileReport:
    """What the report run printed about one file. ``loaded`` False: the engine refused it
    (``log`` has its errors)."""

    path: str
    loaded: bool
    log: str
    resources: dict[int, EngineResource] = field(default_factory=dict)
    objects: dict[int, tuple[str, str]] = field(default_factory=dict)
    nodes: list[EngineNode] = field(default_factory=list)
    connections: list[tuple[str, str, str, str, int, list[Any]]] = field(default_factory=list)
    editable: list[str] = field(default_factory=list)

    def ref(self, object_id: int) -> Ref:
        """The :class:`Ref` of an object the report names by instance id."""
        cls, path = self.objects[object_id]
        if path == self.path:
            return Ref("main", "")
        if path.startswith(self.path + "::"):
            return Ref("sub", path[len(self.path) + 2:])
        if not path:
            return Ref("anon", cls)
        return Ref("ext", path)

    def by_ref(self) -> dict[Ref, EngineResource]:
        """The file's resources (main and sub) by their :class:`Ref`."""
        return {self.ref(k): r for k, r in self.resources.items()}

    def normal(self, value: Any) -> Any:
        """``value`` with every object id replaced by its :class:`Ref`."""
        def leaf(v: Any) -> Any:
            if isinstance(v, gt.EncodedObjectAsID):
                return self.ref(v.object_id) if v.object_id else None
            return v
        return map_leaves(value, leaf)


def _np_text(path: gt.NodePath) -> str:
    """A connection's node path as the text format writes it. ``SceneState`` gives
    ``./A/B`` for a scene loaded from a binary file and ``A/B`` from a text one."""
    names = path.names[1:] if len(path.names) > 1 and path.names[0] == "." else path.names
    return str(gt.NodePath(names, path.subnames, path.absolute))


def _parent_text(path: gt.NodePath) -> str | None:
    """``SceneState.get_node_path(i, true)`` as the text format's ``parent=``: the root has
    none, a child of the root ``"."``, others their path without the leading ``./``."""
    names = list(path.names)
    if not names:
        return None
    if names[0] == "." and len(names) > 1:
        names = names[1:]
    return "/".join(names)


def _value(field_text: str) -> Any:
    return decode(base64.b64decode(field_text), profile="godot3")


def read_reports(run: EngineRun, files: dict[str, str]) -> dict[str, FileReport]:
    """The report run's output, per file id of ``files``."""
    reports = {fid: FileReport(path, False, run.log(fid)) for fid, path in files.items()}
    for (tag, key), rest in run.records.items():
        fid, _, sub = key.partition("|")
        rep = reports.get(fid)
        if rep is None:
            continue
        if tag in ("RES", "REF"):
            obj = int(sub)
            rep.objects[obj] = (rest[0], rest[1] if len(rest) > 1 else "")
            if tag == "RES":
                rep.resources[obj] = EngineResource(*rep.objects[obj])
        elif tag == "PROP":
            obj_text, _, name = sub.partition("|")
            rep.resources[int(obj_text)].properties[name] = _value(rest[0])
        elif tag == "NODE":
            name, type_, parent, _owner, index, inst, groups, placeholder = _value(rest[0])
            rep.nodes.append(EngineNode(name, type_ or None, _parent_text(parent), index,
                                        gt.EncodedObjectAsID(inst) if inst else None,
                                        placeholder or None, list(groups), {}))
        elif tag == "NPROP":
            rep.nodes[-1].properties[rest[0]] = _value(rest[1])
        elif tag == "CONN":
            source, signal, target, method, flags, binds = _value(rest[0])
            rep.connections.append((_np_text(source), signal, _np_text(target), method, flags,
                                    binds))
        elif tag == "EDITABLE":
            rep.editable = [str(p) for p in _value(rest[0])]
        elif tag == "LOADED":
            rep.loaded = True
    return reports


def map_leaves(value: Any, fn: Any) -> Any:
    """``value`` with ``fn`` applied to every value that is not an Array or Dictionary."""
    if isinstance(value, list) and not isinstance(value, gt.PackedStringArray):
        return [map_leaves(v, fn) for v in value]
    if isinstance(value, gt.Dictionary):
        return gt.Dictionary((map_leaves(k, fn), map_leaves(v, fn)) for k, v in value.items())
    if isinstance(value, dict):
        return {map_leaves(k, fn): map_leaves(v, fn) for k, v in value.items()}
    return fn(value)


def engine_view(rep: FileReport) -> dict[Ref, tuple[str, dict[str, Any]]]:
    """A file's resources as the engine loaded them, with references as :class:`Ref`: what
    two files that should load the same are compared by."""
    return {ref: (r.cls, {k: rep.normal(v) for k, v in r.properties.items()})
            for ref, r in rep.by_ref().items()}


def engine_tree(rep: FileReport, depth: int = 64) -> Any:
    """The main resource as the engine loaded it, with every reference to a resource of the
    file replaced by that resource's ``(class, properties)``, recursively: what two files
    that hold the same resources under other ids are compared by."""
    view = engine_view(rep)

    def inline(value: Any, left: int) -> Any:
        def leaf(v: Any) -> Any:
            if isinstance(v, Ref) and v.kind == "sub" and v in view:
                assert left > 0, "sub-resources nest too deeply"
                cls, props = view[v]
                return (cls, inline(props, left - 1))
            return v
        return map_leaves(value, leaf)

    cls, props = view[Ref("main", "")]
    return cls, inline(props, depth)


def engine_scene(rep: FileReport) -> tuple[list[Any], list[Any], list[str]]:
    """A loaded scene's nodes, connections and editable paths with :class:`Ref` references."""
    nodes = [(n.name, n.type, n.parent, n.index, rep.normal(n.instance), n.placeholder,
              n.groups, {k: rep.normal(v) for k, v in n.properties.items()})
             for n in rep.nodes]
    conns = [(*c[:5], rep.normal(c[5])) for c in rep.connections]
    return nodes, conns, rep.editable


def ours_normal(value: Any, external: dict[str, str]) -> Any:
    """A value of our model as the engine would see it: ``SubRef``/``ExtRef`` as
    :class:`Ref` (``external``: our file's external ids to paths), math types rounded
    to float32 (Godot 3's ``real_t``), an RID as its id (3.2.3's binary loader reads a
    stored RID as an int) and an inline Object (text ``Object(...)``) as a :class:`Ref` of
    kind ``"anon"`` with its class, as the engine's report names it."""
    def leaf(v: Any) -> Any:
        if isinstance(v, gt.Object):
            return Ref("anon", v.class_name)
        if isinstance(v, gt.RID):
            return v.id
        if isinstance(v, gt.SubRef):
            return Ref("sub", v.id)
        if isinstance(v, gt.ExtRef):
            return Ref("ext", external.get(v.id, f"<no external resource {v.id!r}>"))
        return round_f32(v)
    return map_leaves(value, leaf)


def rscc_stream(data: bytes) -> bytes:
    """The uncompressed stream of an ``RSCC`` file in zstd mode (2), the mode 3.2.3 writes,
    read here independently of the library: magic, mode, block size, total size, one u32
    compressed size per block, the blocks, and ``RSCC`` again."""
    from backports import zstd

    magic, mode, block_size, total = struct.unpack_from("<4sIII", data, 0)
    assert magic == b"RSCC" and mode == 2, (magic, mode)
    count = -(-total // block_size)
    sizes = struct.unpack_from(f"<{count}I", data, 16)
    pos = 16 + 4 * count
    out = bytearray()
    for size in sizes:
        out += zstd.decompress(data[pos:pos + size])
        pos += size
    assert data[pos:] == b"RSCC" and len(out) == total, "the file must end with RSCC"
    return bytes(out)
