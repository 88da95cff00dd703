"""The compiled plans (``_loadplan``, ``_storeplan``) against the reference, both ways.

Every comparison runs the public ``load``/``store`` twice, plans off (the reference alone) and
on, and wants the same value, the same code and the same issues, or the same exception: over
every load and store case of the conformance file, generated registries and values, and
stored documents mutated at random. A few tests make sure the plans really run (and do not
hand everything to the reference).
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de import (
    Color,
    Quaternion,
    Registry,
    Transform,
    Vector3,
    _plans,
    load,
    store,
)
from gameserde.o3de.values import JsonPairs
from tests.conformance.test_o3de_core_cases import SELECTED, _registry_for, registry
from tests.o3de.cases import decode, json_input, normal
from tests.o3de.strategies import documents
from tests.o3de.test_roundtrip import cases

PROPERTY = settings(max_examples=120, deadline=None)
load_module = importlib.import_module("gameserde.o3de.load")
store_module = importlib.import_module("gameserde.o3de.store")


@contextmanager
def plans(enabled: bool) -> Iterator[None]:
    saved = _plans.ENABLED
    _plans.ENABLED = enabled
    try:
        yield
    finally:
        _plans.ENABLED = saved


def _plain(value: Any) -> Any:
    """JSON values with pairs kept and floats by their bits (``-0.0`` and NaN included)."""
    if isinstance(value, JsonPairs):
        return ["pairs", [[k, _plain(v)] for k, v in value.pairs]]
    if isinstance(value, dict):
        return ["object", [[k, _plain(v)] for k, v in value.items()]]
    if isinstance(value, list | tuple):
        return ["array", [_plain(v) for v in value]]
    if isinstance(value, float):
        return ["double", value.hex() if not math.isnan(value) else "nan"]
    return value


def _outcome(run: Callable[[], tuple[Any, Any]]) -> tuple[str, Any, Any]:
    try:
        value, result = run()
    except (DecodeError, EncodeError) as e:
        return "error", type(e).__name__, str(e)
    return "ok", value, result


def same_both_ways(run: Callable[[], tuple[Any, Any]],
                   compare: Callable[[Any], Any]) -> tuple[str, Any, Any]:
    """Run with plans off, then on; the outcomes must be equal. Returns the plans' one."""
    with plans(False):
        reference = _outcome(run)
    with plans(True):
        planned = _outcome(run)
    assert planned[0] == reference[0], (reference, planned)
    if planned[0] == "error":
        assert planned == reference
    else:
        assert compare(planned[1]) == compare(reference[1]), (reference[1], planned[1])
        assert planned[2] == reference[2], (reference[2], planned[2])
    return planned


# -- the conformance file's cases ------------------------------------------------------------

CASES = [c for c in SELECTED if c.get("direction") in ("load", "store")]


@pytest.mark.parametrize("case", CASES, ids=[str(c.get("id")) for c in CASES])
def test_conformance_cases_both_ways(case: dict[str, Any]) -> None:
    reg, full = _registry_for(case), registry()
    t = full.resolve(case["type"])
    if case["direction"] == "load":
        def run() -> tuple[Any, Any]:
            target = decode(full, t, case["initial"]) if "initial" in case else None
            return load(case["type"], json_input(case["input"]), registry=reg, target=target,
                        clear_containers=bool(case.get("clear_containers")))
        same_both_ways(run, lambda v: normal(full, t, v))
    else:
        kwargs: dict[str, Any] = {"keep_defaults": bool(case.get("keep_defaults"))}
        if "default" in case:
            kwargs["default"] = decode(full, t, case["default"])

        def run() -> tuple[Any, Any]:
            return store(decode(full, t, case["input"]), case["type"], registry=reg, **kwargs)
        same_both_ways(run, _plain)


# -- generated registries, values and mutated documents -----------------------------------------


def _walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):  # the dict's own members (a JsonObject's items() are its pairs)
        for name, member in dict.items(value):
            yield from _walk(member, (*path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = dict(value) if isinstance(value, dict) else list(value)  # plain: no stale pairs
    out[path[0]] = _replace(value[path[0]], path[1:], new)
    return out


MUTATIONS = st.one_of(
    documents(), st.just({}), st.just([]), st.just(None), st.just("{}"), st.just(1.5),
    st.just(-1), st.just(1 << 64), st.just("0x10"), st.just([1.0, 2.0]),
    st.just({"$type": "C0"}), st.just({"$type": "nope"}), st.just({"unknown": 1}))


@st.composite
def mutated(draw: st.DrawFn, stored: Any) -> Any:
    doc = stored
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_walk(doc))
        path = draw(st.sampled_from(paths))
        doc = _replace(doc, path, draw(MUTATIONS))
    return doc


def _stored(reg: Registry, name: str, value: Any, keep: bool) -> Any:
    out = same_both_ways(lambda: store(value, name, registry=reg, keep_defaults=keep), _plain)
    return out[1]


@PROPERTY
@given(cases(pointers=True), st.booleans(), st.data())
def test_generated_values_both_ways(case: tuple[Registry, str, Any], keep: bool,
                                    data: st.DataObject) -> None:
    reg, name, value = case
    t = reg.resolve(name)
    doc = _stored(reg, name, value, keep)
    if doc is None:
        return
    same_both_ways(lambda: load(name, doc, registry=reg), lambda v: normal(reg, t, v))
    bad = data.draw(mutated(doc))
    same_both_ways(lambda: load(name, bad, registry=reg), lambda v: normal(reg, t, v))


@PROPERTY
@given(cases(pointers=False), st.data())
def test_mutated_python_values_both_ways(case: tuple[Registry, str, Any],
                                         data: st.DataObject) -> None:
    """Python values of the wrong kinds in fields: the same error or the same JSON."""
    reg, name, value = case
    info = reg.classes[name]
    f = data.draw(st.sampled_from(info.all_fields))
    setattr(value, f.attr, data.draw(st.sampled_from(
        [None, "text", 1, -1, 2.5, True, [1], {"a": 1}, (1, 2), Vector3(), 1 << 70])))
    same_both_ways(lambda: store(value, name, registry=reg), _plain)


# -- a prefab-like document, as the benchmark has ------------------------------------------------


@dataclass
class Component:
    Id: Annotated[int, "AZ::u64"] = 0


@dataclass
class Mesh(Component):
    Model: str = ""
    Visible: bool = True


@dataclass
class Light(Component):
    Color: Color = field(default_factory=lambda: Color(1.0, 1.0, 1.0, 1.0))
    Intensity: Annotated[float, "float"] = 1.0


@dataclass
class Script(Component):
    Parameters: dict[str, int] = field(default_factory=dict)


@dataclass
class Entity:
    Id: Annotated[int, "AZ::u64"] = 0
    Name: str = ""
    Transform: Transform = field(default_factory=Transform)
    Components: list[Component | None] = field(default_factory=list)
    Tags: list[str] = field(default_factory=list)
    Properties: dict[str, float] = field(default_factory=dict)


@dataclass
class Level:
    Entities: list[Entity] = field(default_factory=list)


def _level_registry() -> Registry:
    reg = Registry()
    for cls in (Component, Mesh, Light, Script, Entity, Level):
        reg.add_dataclass(cls)
    return reg


def _level(count: int) -> Level:
    return Level([Entity(Id=i, Name=f"e{i}" if i % 3 else "",
                         Transform=Transform(Vector3(i * 0.5, 0.0, 1.0),
                                             Quaternion(0.0, 0.0, 0.0, 1.0), 1.0 + i % 2),
                         Components=[Mesh(Id=i, Model="m"), Light(Id=i, Intensity=2.0),
                                     Script(Id=i, Parameters={"a": i % 2, "": 3}), None],
                         Tags=["x", ""], Properties={"mass": float(i), "z": 0.0})
                  for i in range(count)])


@pytest.mark.parametrize("keep", [False, True])
def test_prefab_like_document_both_ways(keep: bool) -> None:
    reg, value = _level_registry(), _level(6)
    doc = _stored(reg, "Level", value, keep)
    back = same_both_ways(lambda: load("Level", doc, registry=reg), lambda v: v)
    assert back[1] == value
    text = json.dumps(doc)
    assert '"$type": "Mesh"' in text and '"": {}' not in text


@contextmanager
def _reference_refused() -> Iterator[None]:
    """The reference's entry points raise: whatever reaches them fails the test."""
    saved = (load_module._Loader.load, store_module._Storer.store,
             store_module._Storer.store_with_class_data)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the reference ran")

    load_module._Loader.load = refuse  # type: ignore[method-assign]
    store_module._Storer.store = refuse  # type: ignore[method-assign]
    store_module._Storer.store_with_class_data = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        (load_module._Loader.load, store_module._Storer.store,
         store_module._Storer.store_with_class_data) = saved


def test_plans_cover_the_prefab_like_document() -> None:
    reg, value = _level_registry(), _level(4)
    with plans(False):
        doc, stored = store(value, registry=reg)
        back, loaded = load("Level", doc, registry=reg)
    with plans(True), _reference_refused():
        assert store(value, registry=reg) == (doc, stored)
        assert load("Level", doc, registry=reg) == (back, loaded)


def test_plans_hand_over_what_they_do_not_cover() -> None:
    reg = _level_registry()
    doc, _ = store(_level(2), registry=reg)
    doc["Entities"][1]["Unknown"] = 1
    with plans(True), _reference_refused(), pytest.raises(AssertionError, match="reference"):
        load("Level", doc, registry=reg)
    value, result = load("Level", doc, registry=reg)
    assert [i.path for i in result.issues] == ["/Entities/1/Unknown"]
    assert value == _level(2)


def test_plans_follow_registry_changes() -> None:
    reg = Registry()
    reg.add_class("A", None, [("x", "int")])
    assert load("A", {"x": 1, "y": 2}, registry=reg)[1].issues
    reg.add_class("B", None, [("y", "int")])
    value, result = load("vector<B>", [{"y": 2}], registry=reg)
    assert result.ok and value[0].y == 2


def test_deep_documents_give_the_reference_error() -> None:
    reg = Registry()
    reg.add_class("Node", None, [("next", "Node*")])
    doc: Any = {}
    for _ in range(150):
        doc = {"next": doc}
    same_both_ways(lambda: load("Node", doc, registry=reg), lambda v: repr(v)[:50])
    with pytest.raises(DecodeError, match="nest more than"):
        load("Node", doc, registry=reg)


def _tree_registry() -> Registry:
    reg = Registry()
    reg.add_class("Tree", None, [("name", "AZStd::string"), ("next", "shared_ptr<Tree>"),
                                 ("children", "vector<Tree*>"), ("weights", "map<string,Tree*>")])
    reg.add_class("Leaf", None, [("colour", "Color")], bases=["Tree"])
    return reg


@PROPERTY
@given(st.recursive(st.just(None), lambda inner: st.tuples(
    st.sampled_from(["Tree", "Leaf"]), st.text(max_size=2), inner,
    st.lists(inner, max_size=2)), max_leaves=8), st.booleans(), st.data())
def test_recursive_types_both_ways(shape: Any, keep: bool, data: st.DataObject) -> None:
    reg = _tree_registry()

    def build(node: Any) -> Any:
        if node is None:
            return None
        kind, name, following, children = node
        made = reg.create(reg.resolve(kind))
        made.name, made.next = name, build(following)
        made.children = [build(c) for c in children]
        made.weights = {str(i): build(c) for i, c in enumerate(children)}
        return made

    value = build(shape) or reg.create(reg.resolve("Tree"))
    doc = _stored(reg, "Tree", value, keep)
    back = same_both_ways(lambda: load("Tree", doc, registry=reg), repr)
    assert back[2].ok
    bad = data.draw(mutated(doc))
    same_both_ways(lambda: load("Tree", bad, registry=reg), repr)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_is_left_as_it_was(enabled: bool) -> None:
    import gc

    from gameserde.o3de import parse

    reg = _level_registry()
    saved = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        doc, _ = store(_level(2), registry=reg)
        load("Level", doc, registry=reg)
        parse('{"a": [1, 2.5]}')
        with pytest.raises(DecodeError):
            parse('{"a": ')
        with pytest.raises(EncodeError):
            store(Level([Entity(Id=-1)]), registry=reg)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if saved else gc.disable)()
