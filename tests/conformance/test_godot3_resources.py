"""Resource and scene files against Godot 3.2.3 (``godot3-server``), the engine that wrote them.

One session fixture runs the engine twice (about half a second in all): the build run
(:data:`tests.conformance.godot3_resources.BUILD_SCRIPT`) saves resources and scenes of every
property type as ``.tres``/``.res``/compressed ``.res`` and ``.tscn``/``.scn``/compressed
``.scn`` and converts binary <-> text itself; between the runs gameserde reads each file,
writes it back (with its kept data, and from the model alone), writes an edited copy, and
converts it to the other form; the report run then loads the engine's files and ours and
prints what it sees. The tests compare:

* our model of each engine file to what the engine loaded from it (every property value,
  every sub-resource, references, scenes' nodes and connections);
* each file written back to the engine's bytes (RSCC: the uncompressed stream); a text file
  written from the model alone too (a binary one differs: 3.2.3's saver puts in the string
  table the names of properties it then leaves out as defaults, which the model lacks);
* what the engine loads from our files (written back, from the model alone, edited,
  converted) to what it loads from its own;
* our conversion binary <-> text to the engine's own conversion, byte for byte.

Generated files live in pytest's temporary directory only.
"""

from __future__ import annotations

import copy
import re
import runpy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gameserde.godot import resource
from gameserde.godot.resource import binary, text
from gameserde.godot.resource.model import (
    ExtRef,
    ExtResource,
    Resource,
    ResourceFile,
    Scene,
    SubRef,
)
from gameserde.godot.resource.scene import read_bundled, write_bundled
from gameserde.godot.types import RID, Object, Vector2
from tests.conformance import godot3_resources as g3
from tests.conformance.godot3_oracle import first_difference

ROOT = Path(__file__).resolve().parents[2]

ALL_FILES = g3.ENGINE_FILES + list(g3.CONVERSIONS)
SCENES = [n for n in ALL_FILES if n.endswith(("scn", "tscn"))]
EDITS: dict[str, dict[str, Any]] = {
    # file: property of the main resource -> new value
    "values.tres": {"i_small": 43, "s_text": "changed: ünï \"q\"", "f_half": 0.25},
    "values.res": {"i_small": 43, "s_text": "changed: ünï \"q\"", "f_half": 0.1},
    "values_z.res": {"i_neg": -(2**40)},
}
SCENE_EDIT = ("A", "position", Vector2(11.0, -21.5))
"""A scene edit: the node ``A`` moves (in the text scenes and the binary ones)."""
SCENE_EDITS = ["main.tscn", "main.scn", "main_z.scn"]
SCRATCH = ["scratch.tres", "scratch.res"]


def is_text(name: str) -> bool:
    return name.endswith(("tres", "tscn"))


def read_file(name: str, data: bytes) -> ResourceFile:
    return text.read(data) if is_text(name) else binary.read(data)


def write_file(name: str, file: ResourceFile) -> bytes:
    return text.write(file).encode("utf-8") if is_text(name) else binary.write(file)


@dataclass
class Oracle:
    """Everything one session made: the engine's files, ours, and the reports."""

    work: Path
    ours: dict[str, ResourceFile] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    reports: dict[str, g3.FileReport] = field(default_factory=dict)
    build_log: str = ""

    def engine_bytes(self, name: str) -> bytes:
        return (self.work / "engine" / name).read_bytes()


def _attempt(oracle: Oracle, key: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, or None with the exception kept under ``key`` for the test that needs
    the result to report."""
    try:
        return fn(*args)
    except Exception as e:
        oracle.errors[key] = f"{type(e).__name__}: {e}"
        return None


def _convert(source: str, file: ResourceFile, form: str) -> bytes:
    """Our conversion of ``file`` (the engine's ``source``) to ``form``, written with
    ``files.write`` (which packs a scene into ``_bundled`` for the binary form). To binary,
    it says what the engine's conversion knew: the engine is 3.2 (a text file does not
    say) and the main resource was loaded from ``res://engine/<source>``."""
    if form == "binary":
        converted = resource.convert(file, form, engine=(3, 2), path=f"res://engine/{source}")
    else:
        converted = resource.convert(file, form)
    return resource.write(converted)


def _edited(name: str, data: bytes) -> bytes:
    """The engine's file ``name`` read, changed as :data:`EDITS` / :data:`SCENE_EDIT` say,
    and written."""
    file = read_file(name, data)
    file.main.properties.update(EDITS.get(name, {}))
    if name in SCENE_EDITS:
        node_name, prop, value = SCENE_EDIT
        if file.scene is not None:
            scene = file.scene
        else:
            scene, kept = read_bundled(file.main.properties["_bundled"])
        next(n for n in scene.nodes if n.name == node_name).properties[prop] = value
        if file.scene is None:
            file.main.properties["_bundled"] = write_bundled(scene, kept)
    return write_file(name, file)


SCRATCH_PROPS = {"label": "made by gameserde: ünï \"q\"\n", "n": -(2**40) - 3}
SCRATCH_CHILD = {"label": "child", "n": 5}


def scratch_file(form: str) -> ResourceFile:
    """A file made in Python alone: an ``item.gd`` resource whose ``child`` is another one
    the file holds (ids as each form numbers them)."""
    script = ExtResource("Script", "res://gen/item.gd", "1")
    main_id = "" if form == "text" else "local://2"
    child = Resource("Resource", "1", {"script": ExtRef("1"), **SCRATCH_CHILD})
    main = Resource("Resource", main_id,
                    {"script": ExtRef("1"), **SCRATCH_PROPS, "child": SubRef("1")})
    return ResourceFile(form=form, type="Resource", engine=(3, 2),
                        format=2 if form == "text" else 3, external=[script],
                        resources=[child, main])


def _fresh(name: str, file: ResourceFile) -> bytes:
    """``file`` written from the model alone: without what its form kept."""
    fresh = copy.deepcopy(file)
    fresh.kept = {}
    return write_file(name, fresh)


def _save(o: Oracle, key: str, folder: str, name: str, data: bytes | None,
          files: dict[str, str]) -> None:
    if data is not None:
        (o.work / folder / name).write_bytes(data)
        files[f"{key}/{name}"] = f"res://{folder}/{name}"


@pytest.fixture(scope="session")
def oracle(godot3_exe: str, tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    work = tmp_path_factory.mktemp("godot3res")
    assert all(ch.isalnum() or ch in "/_-." for ch in str(work)), work
    o = Oracle(work)
    o.build_log = g3.build(godot3_exe, work).output
    for folder in ("ours", "fresh", "edited", "converted", "scratch"):
        (work / folder).mkdir()
    files = {f"e/{n}": f"res://engine/{n}" for n in ALL_FILES}
    for name in ALL_FILES:
        if not (work / "engine" / name).exists():
            continue
        data = o.engine_bytes(name)
        file = _attempt(o, f"read/{name}", read_file, name, data)
        if file is None:
            continue
        o.ours[name] = file
        _save(o, "o", "ours", name, _attempt(o, f"write/{name}", write_file, name, file), files)
        _save(o, "f", "fresh", name, _attempt(o, f"fresh/{name}", _fresh, name, file), files)
        if name in EDITS or name in SCENE_EDITS:
            _save(o, "x", "edited", name, _attempt(o, f"edit/{name}", _edited, name, data),
                  files)
    for name, (source, form) in g3.CONVERSIONS.items():
        if source in o.ours:
            out = _attempt(o, f"convert/{name}", _convert, source, o.ours[source], form)
            _save(o, "c", "converted", name, out, files)
    for name in SCRATCH:
        out = _attempt(o, f"scratch/{name}", write_file, name,
                       scratch_file("text" if is_text(name) else "binary"))
        _save(o, "s", "scratch", name, out, files)
    o.reports = g3.read_reports(g3.report(godot3_exe, work, files), files)
    return o


# ---------------------------------------------------------------------------------------------
# Helpers


def _report(o: Oracle, fid: str) -> g3.FileReport:
    rep = o.reports.get(fid)
    assert rep is not None, f"{fid} was not written: {o.errors}"
    assert rep.loaded, f"the engine did not load {rep.path}:\n{rep.log}"
    return rep


def _ours(o: Oracle, name: str) -> ResourceFile:
    error = o.errors.get(f"read/{name}")
    assert error is None, f"we could not read the engine's {name}: {error}"
    return o.ours[name]


def _our_scene(file: ResourceFile) -> Scene:
    if file.scene is not None:
        return file.scene
    return read_bundled(file.main.properties["_bundled"])[0]


def _hexdiff(actual: bytes, expected: bytes) -> str:
    i = next((i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e),
             min(len(actual), len(expected)))
    return (f"first difference at byte {i} (lengths {len(actual)} / {len(expected)}): "
            f"ours {actual[max(0, i - 16):i + 32]!r}, engine's {expected[max(0, i - 16):i + 32]!r}")


# ---------------------------------------------------------------------------------------------
# The engine itself


def test_engine_built_and_loads_every_file(oracle: Oracle) -> None:
    saved = [line.split() for line in oracle.build_log.splitlines()
             if line.startswith("@@ SAVED ")]
    assert [(n, int(err)) for _, _, n, err in saved if int(err)] == [], oracle.build_log
    for name in ALL_FILES:
        assert (oracle.work / "engine" / name).exists(), name
        _report(oracle, f"e/{name}")
    assert oracle.engine_bytes("values_z.res")[:4] == b"RSCC"
    assert oracle.engine_bytes("main_z.scn")[:4] == b"RSCC"
    assert len(g3.rscc_stream(oracle.engine_bytes("big_z.res"))) > 2 * 4096  # 3+ blocks


def test_engine_text_loses_what_binary_keeps(oracle: Oracle) -> None:
    """3.2.3 prints floats with six significant digits in text files: 1/3, 1e300 and a
    subnormal do not survive a .tres (documented engine behaviour the readers must follow),
    while the .res keeps them."""
    res = _report(oracle, "e/values.res").by_ref()[g3.Ref("main", "")].properties
    tres = _report(oracle, "e/values.tres").by_ref()[g3.Ref("main", "")].properties
    assert res["f_third"] == 1.0 / 3.0 and res["f_big"] == 1e300 and res["f_tiny"] == g3.F_TINY
    assert tres["f_third"] == 0.333333 and tres["f_big"] == float("inf")
    assert tres["f_tiny"] == 0.0


def test_engine_loads_a_stored_rid_as_an_int(oracle: Oracle) -> None:
    """3.2.3's binary saver stores an RID (with a warning) and its loader reads it back as
    an int; the file holds an RID, and so does our model (so it is written back as one)."""
    engine = _report(oracle, "e/rid.res").by_ref()[g3.Ref("main", "")].properties
    assert engine["__meta__"] == {"rids": [0, 5]}
    assert _ours(oracle, "rid.res").main.properties["__meta__"] == {"rids": [RID(), 5]}


def test_an_object_that_is_not_a_resource_is_text_only(oracle: Oracle) -> None:
    """The text saver writes a Reference inline (``Object(Reference,"script":null)``, loaded
    as a new Reference), the binary saver as null."""
    engine = _report(oracle, "e/inline.tres")
    meta = engine.by_ref()[g3.Ref("main", "")].properties["__meta__"]
    assert engine.normal(meta) == {"objects": [g3.Ref("anon", "Reference"), 1]}
    text_meta = _ours(oracle, "inline.tres").main.properties["__meta__"]
    assert text_meta == {"objects": [Object("Reference", {"script": None}), 1]}
    assert _ours(oracle, "inline.res").main.properties["__meta__"] == {"objects": [None, 1]}


# ---------------------------------------------------------------------------------------------
# 1. We read what the engine wrote


@pytest.mark.parametrize("name", ALL_FILES)
def test_we_read_what_the_engine_loads(name: str, oracle: Oracle) -> None:
    rep = _report(oracle, f"e/{name}")
    file = _ours(oracle, name)
    external = {e.id: e.path for e in file.external}
    ours = {r.id: r for r in file.resources}
    engine = rep.by_ref()
    assert len(file.resources) == len(engine), (
        f"we hold {[r.id for r in file.resources]}, the engine {sorted(engine, key=str)}")
    for ref, eres in engine.items():
        res = file.main if ref.kind == "main" else ours.get(ref.key)
        assert res is not None, f"no resource {ref} in our model"
        assert res.type == eres.cls, (ref, res.type, eres.cls)
        names = [k for k in eres.properties if k in res.properties]
        assert names == list(res.properties), (
            f"{ref}: our properties {list(res.properties)} are not stored ones in the "
            f"engine's order {list(eres.properties)}")
        for key, value in res.properties.items():
            diff = first_difference(g3.ours_normal(value, external),
                                    rep.normal(eres.properties[key]), f"{ref.key}.{key}")
            assert diff is None, diff


def test_every_property_type_is_stored(oracle: Oracle) -> None:
    for name in ("values.tres", "values.res", "values_z.res"):
        props = _ours(oracle, name).main.properties
        missing = ["r_null"] if is_text(name) else []  # the text saver leaves out null
        assert [p for p in g3.DATA_PROPERTIES if p not in props] == missing, name


@pytest.mark.parametrize("name", SCENES)
def test_we_read_the_scene_the_engine_loads(name: str, oracle: Oracle) -> None:
    rep = _report(oracle, f"e/{name}")
    file = _ours(oracle, name)
    external = {e.id: e.path for e in file.external}
    scene = _our_scene(file)
    nodes, conns, editable = g3.engine_scene(rep)
    ours_nodes = [(n.name, n.type, n.parent, n.extra.get("index", -1),
                   g3.ours_normal(n.instance, external), n.extra.get("instance_placeholder"),
                   list(n.groups), g3.ours_normal(n.properties, external))
                  for n in scene.nodes]
    assert first_difference(ours_nodes, nodes) is None, (
        f"{first_difference(ours_nodes, nodes)}\n ours {ours_nodes}\n engine {nodes}")
    ours_conns = [(c.source, c.signal, c.target, c.method, c.flags,
                   g3.ours_normal(c.binds, external)) for c in scene.connections]
    assert first_difference(ours_conns, conns) is None, (ours_conns, conns)
    assert scene.editable == editable


# ---------------------------------------------------------------------------------------------
# 2. We write it back as the engine wrote it


@pytest.mark.parametrize("name", ALL_FILES)
def test_written_back_identical(name: str, oracle: Oracle) -> None:
    _ours(oracle, name)
    assert oracle.errors.get(f"write/{name}") is None, oracle.errors[f"write/{name}"]
    ours = (oracle.work / "ours" / name).read_bytes()
    engine = oracle.engine_bytes(name)
    if engine[:4] == b"RSCC":
        assert ours[:4] == b"RSCC"
        ours, engine = g3.rscc_stream(ours), g3.rscc_stream(engine)
    assert ours == engine, _hexdiff(ours, engine)


# ---------------------------------------------------------------------------------------------
# 3. The engine loads what we wrote


def _same_load(o: Oracle, ours_fid: str, engine_name: str,
               edits: dict[str, Any] | None = None) -> None:
    """The engine loads the file ``ours_fid`` as it loads its own ``engine_name`` (with the
    main resource's properties changed by ``edits``)."""
    engine_rep = _report(o, f"e/{engine_name}")
    expected = g3.engine_view(engine_rep)
    if edits:
        cls, props = expected[g3.Ref("main", "")]
        expected[g3.Ref("main", "")] = (cls, {**props, **edits})
    actual = g3.engine_view(_report(o, ours_fid))
    diff = first_difference(actual, expected)
    assert diff is None, diff
    if engine_rep.nodes:
        diff = first_difference(list(g3.engine_scene(_report(o, ours_fid))),
                                list(g3.engine_scene(engine_rep)))
        assert diff is None, diff


@pytest.mark.parametrize("name", ALL_FILES)
def test_engine_loads_our_file(name: str, oracle: Oracle) -> None:
    _ours(oracle, name)
    _same_load(oracle, f"o/{name}", name)


@pytest.mark.parametrize("name", ALL_FILES)
def test_engine_loads_our_file_written_from_the_model_alone(name: str, oracle: Oracle) -> None:
    """Without the form's kept data the writers use the engine's defaults: the engine loads
    the result as its own file (a binary file's string table may differ: see below)."""
    _ours(oracle, name)
    assert oracle.errors.get(f"fresh/{name}") is None, oracle.errors[f"fresh/{name}"]
    _same_load(oracle, f"f/{name}", name)


@pytest.mark.parametrize("name", [n for n in ALL_FILES if is_text(n)])
def test_text_written_from_the_model_alone_identical(name: str, oracle: Oracle) -> None:
    _ours(oracle, name)
    assert oracle.errors.get(f"fresh/{name}") is None, oracle.errors[f"fresh/{name}"]
    ours = (oracle.work / "fresh" / name).read_bytes()
    assert ours == oracle.engine_bytes(name), _hexdiff(ours, oracle.engine_bytes(name))


@pytest.mark.parametrize("name", SCRATCH)
def test_engine_loads_a_file_made_from_scratch(name: str, oracle: Oracle) -> None:
    assert oracle.errors.get(f"scratch/{name}") is None, oracle.errors[f"scratch/{name}"]
    view = g3.engine_view(_report(oracle, f"s/{name}"))
    script = g3.Ref("ext", "res://gen/item.gd")
    assert set(view) == {g3.Ref("main", ""), g3.Ref("sub", "1")}
    for ref, props in ((g3.Ref("main", ""), {**SCRATCH_PROPS, "child": g3.Ref("sub", "1")}),
                       (g3.Ref("sub", "1"), {**SCRATCH_CHILD, "child": None})):
        cls, loaded = view[ref]
        assert cls == "Resource"
        expected = {"script": script, **props}
        diff = first_difference({k: loaded[k] for k in expected}, expected, str(ref))
        assert diff is None, diff


@pytest.mark.parametrize("name", list(EDITS))
def test_engine_loads_our_edited_file(name: str, oracle: Oracle) -> None:
    assert oracle.errors.get(f"edit/{name}") is None, oracle.errors.get(f"edit/{name}")
    _same_load(oracle, f"x/{name}", name, EDITS[name])


@pytest.mark.parametrize("name", SCENE_EDITS)
def test_engine_loads_our_edited_scene(name: str, oracle: Oracle) -> None:
    assert oracle.errors.get(f"edit/{name}") is None, oracle.errors.get(f"edit/{name}")
    engine = _report(oracle, f"e/{name}")
    edited = _report(oracle, f"x/{name}")
    node_name, prop, value = SCENE_EDIT
    expected = g3.engine_scene(engine)
    nodes = [(*n[:7], {**n[7], prop: value}) if n[0] == node_name else n for n in expected[0]]
    diff = first_difference(list(g3.engine_scene(edited)), [nodes, *expected[1:]])
    assert diff is None, diff
    view = g3.engine_view(edited)
    expected_view = g3.engine_view(engine)
    main = g3.Ref("main", "")
    view[main][1].pop("_bundled")
    expected_view[main][1].pop("_bundled")
    assert first_difference(view, expected_view) is None


# ---------------------------------------------------------------------------------------------
# 4. Conversion binary <-> text as the engine converts


NOT_YET = {"values.tres2res.res": (
    "the engine's binary saver writes every variable of a resource's script, those the text "
    "file leaves out because they hold null too (the text saver leaves out null Object "
    "properties), and lists their names in its string table: only the script's source says "
    "which variables it has (the engine loads ours the same: the next test)")}
"""Conversions whose bytes differ from the engine's, and why (each must still fail)."""


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[name]))
    if name in NOT_YET else name for name in g3.CONVERSIONS])
def test_conversion_like_the_engine(name: str, oracle: Oracle) -> None:
    source, _ = g3.CONVERSIONS[name]
    _ours(oracle, source)
    error = oracle.errors.get(f"convert/{name}")
    assert error is None, error
    ours = (oracle.work / "converted" / name).read_bytes()
    engine = oracle.engine_bytes(name)
    if name.endswith((".tres", ".tscn")):  # the engine's external order varies run to run
        ours, engine = _external_by_path(ours), _external_by_path(engine)
    assert ours == engine, _hexdiff(ours, engine)


_EXT_LINE = re.compile(rb'^\[ext_resource path="([^"]*)".* id=(\d+)\]$', re.M)
_EXT_REF = re.compile(rb"ExtResource\( (\d+) \)")


def _external_by_path(text: bytes) -> bytes:
    """A Godot 3 text file with its external resources in path order, numbered from 1 (the
    engine's text saver orders them differently from one run to the next when it converts
    a binary file: apparently by address). The sections are on consecutive lines."""
    found = list(_EXT_LINE.finditer(text))
    if not found:
        return text
    paths = {m.group(2): m.group(1) for m in found}
    lines = {m.group(2): m.group(0) for m in found}
    order = sorted(paths, key=paths.__getitem__)
    number = {old: b"%d" % n for n, old in enumerate(order, 1)}
    block = b"\n".join(lines[i][:lines[i].rindex(b"id=")] + b"id=" + number[i] + b"]"
                       for i in order)
    rest = _EXT_REF.sub(lambda m: b"ExtResource( " + number[m.group(1)] + b" )",
                        text[found[-1].end():])
    return text[:found[0].start()] + block + rest


@pytest.mark.parametrize("name", list(g3.CONVERSIONS))
def test_engine_loads_our_conversion(name: str, oracle: Oracle) -> None:
    source, _ = g3.CONVERSIONS[name]
    _ours(oracle, source)
    error = oracle.errors.get(f"convert/{name}")
    assert error is None, error
    engine, ours = _report(oracle, f"e/{name}"), _report(oracle, f"c/{name}")
    assert len(ours.resources) == len(engine.resources)
    diff = first_difference(g3.engine_tree(ours), g3.engine_tree(engine))
    assert diff is None, diff
    diff = first_difference(list(g3.engine_scene(ours)), list(g3.engine_scene(engine)))
    assert diff is None, diff


def test_class_property_table_is_the_engines(godot3_exe: str) -> None:
    """The stored properties of Godot 3's resource classes that gameserde ships (the binary
    saver's string table lists them) are what the engine lists."""
    script = runpy.run_path(str(ROOT / "scripts" / "make_godot3_properties.py"))
    table = script["engine_properties"](godot3_exe)
    assert len(table) > 200
    assert script["text"](table) == script["TABLE"].read_text(encoding="utf-8"), (
        "run: python scripts/make_godot3_properties.py --write")
