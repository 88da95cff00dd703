"""Typed decode keeps what the load could not take: ``gameserde decode o3de`` writes every
value the load reported (Skipped, Unsupported, Unknown ...) back as the file has it, at its
place, and says so on standard error; ``--strict`` and ``verify`` fail on it. And storing a
pointer to, or asking the type id of, a class that is not registered gives the engine's
Unknown result, not an exception."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gameserde import o3de
from gameserde.cli import main
from gameserde.o3de import _plans
from gameserde.o3de._untyped import innermost, keep_untyped, pointer_steps, repeated_names
from gameserde.o3de.engine import MATERIAL, PREFAB, engine_registry
from gameserde.o3de.result import Issue, Outcomes, Processing, ResultCode, Tasks

DATA = Path(__file__).parent / "data"
TRANSLATE = ("/Entities/Entity_[4201773540617]/Components/Component_[5171032467735286723]"
             "/Transform Data/Translate")
KINGSISLE = '{\n "version": 2,\n "classes": {"1": {"name": "class A", "bases": []}}\n}\n'


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _wrong_translate() -> str:
    doc = o3de.parse((DATA / "courtyard.prefab").read_text())
    transform = doc["Entities"]["Entity_[4201773540617]"]["Components"][
        "Component_[5171032467735286723]"]["Transform Data"]
    assert transform["Translate"] == [-4.0, 0.5, 0.0]
    transform["Translate"] = "nowhere"
    return o3de.write(doc)


def _repeated_translate() -> str:
    doc = o3de.parse((DATA / "courtyard.prefab").read_text())
    component = doc["Entities"]["Entity_[4201773540617]"]["Components"][
        "Component_[5171032467735286723]"]
    data = component["Transform Data"]
    component["Transform Data"] = o3de.JsonObject([("Translate", [1.0, 2.0, 3.0]),
                                                   *data.items()])
    return o3de.write(doc)


def _renamed_property_values() -> str:
    text = (DATA / "stone.material").read_text()
    return text.replace('"propertyValues"', '"propertyValuez"')


@pytest.mark.parametrize(("name", "text", "pointers"), [
    ("wrong.prefab", _wrong_translate(), [TRANSLATE]),
    ("renamed.material", _renamed_property_values(), ["/propertyValuez"]),
    ("repeated.prefab", _repeated_translate(), [TRANSLATE.rsplit("/", 1)[0]]),
    ("kingsisle.prefab", KINGSISLE, ["/version", "/classes"]),
])
def test_decode_keeps_and_reports_what_the_load_rejects(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
        pointers: list[str]) -> None:
    path = tmp_path / name
    path.write_text(text)
    for verb in (["decode", "--pretty"], ["encode"]):
        code, out, err = run(capsys, verb[0], "o3de", *verb[1:], str(path))
        assert code == 0
        if name == "kingsisle.prefab":  # not the engine's layout: the same JSON
            assert o3de.parse(out) == o3de.parse(text) and out == o3de.write(o3de.parse(text))
        else:
            assert out == text
        lines = err.splitlines()
        assert [line.split(": ")[2] for line in lines] == [f"at {p}" for p in pointers]
        assert all(line.startswith(f"gameserde: {path}: ") for line in lines)
        assert all(line.endswith("; kept as the file has it") for line in lines)
        code, out, err = run(capsys, verb[0], "o3de", "--strict", str(path))
        assert (code, out) == (1, "")
        assert err == f"{lines[0]} (--strict)\n"  # the first issue is the error
    code, out, err = run(capsys, "verify", "o3de", str(path))
    assert (code, out) == (1, "")
    last = err.splitlines()[-1]
    assert f"{len(pointers)} issue(s), the first at {pointers[0]}: " in last
    assert last.startswith(f"gameserde: {path}: o3de decode error: the document does not load "
                           "cleanly as ")


@pytest.mark.parametrize(("name", "text", "pointers"), [
    ("wrong.prefab", _wrong_translate(), [TRANSLATE]),
    ("kingsisle.prefab", KINGSISLE, ["/version", "/classes"]),
])
def test_verify_lists_every_issue_before_its_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
        pointers: list[str]) -> None:
    """The issues are warnings, printed before the error that counts them."""
    path = tmp_path / name
    path.write_text(text)
    _, _, err = run(capsys, "verify", "o3de", str(path))
    assert [line.split(": ")[2] for line in err.splitlines()[:-1]] == [f"at {p}" for p in pointers]


def test_decode_messages_are_the_engine_s(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wrong.prefab"
    path.write_text(_wrong_translate())
    _, _, err = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert err == (f"gameserde: {path}: at {TRANSLATE}: Unsupported type. Vector3 can only be "
                   "read from arrays or objects. [Unsupported]; kept as the file has it\n")
    assert run(capsys, "decode", "o3de", "--pretty", "--registry", "none", "--strict",
               str(path))[0] == 0


def test_decode_reports_what_the_store_leaves_out(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lossless_grid_types.py").write_text(
        "from gameserde import o3de\n"
        "registry = o3de.Registry()\n"
        "registry.add_class('Grid', None, [('Cells', 'vector<vector<int32>>', [])])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "grid.json"
    path.write_text('{"Cells": [[]]}')
    typed = ("--registry", "lossless_grid_types:registry", "--type", "Grid")
    code, out, err = run(capsys, "decode", "o3de", "--pretty", *typed, str(path))
    assert (code, out) == (0, "{}")  # what the engine writes: [[]] loads back as []
    assert err.startswith(f"gameserde: {path}: storing Cells: 1 element(s) not written")
    assert err.endswith("[Skipped]\n") and err.count("\n") == 1
    assert run(capsys, "decode", "o3de", "--pretty", "--strict", *typed, str(path))[0] == 1
    assert run(capsys, "verify", "o3de", *typed, str(path))[0] == 1


def test_repeated_names_are_reported(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "repeated.prefab"
    path.write_text(_repeated_translate())
    _, _, err = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert err == (f"gameserde: {path}: at {TRANSLATE.rsplit('/', 1)[0]}: the member name "
                   '"Translate" is repeated; the load reads each in turn into one value, which '
                   "the store writes once; kept as the file has it\n")
    assert repeated_names(o3de.parse('[{"a": {"b~/": [1, {"x": 1, "x": 2, "x": 3}]}, '
                                     '"a": 1, "c": 2, "a": 3}]')) == [
        ("/0", "a"), ("/0/a/b~0~1/1", "x")]


def test_a_clean_file_reports_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("courtyard.prefab", "stone.material"):
        code, out, err = run(capsys, "decode", "o3de", "--pretty", "--strict", str(DATA / name))
        assert (code, out, err) == (0, (DATA / name).read_text(), "")


def _typed(type_: str, doc: Any, registry: o3de.Registry) -> tuple[Any, o3de.Result]:
    """What the command line does: load, store, keep what the load did not take (a halted
    load is an error there: the document comes back as ``None``)."""
    value, result = o3de.load(type_, doc, registry=registry)
    if result.code.halted:
        return None, result
    stored, _ = o3de.store(value, type_, registry=registry)
    pointers = [i.path for i in result.issues] + [p for p, _ in repeated_names(doc)]
    return keep_untyped(stored, doc, pointers), result


def _leaves(value: Any, pointer: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        out = [(pointer, value)]
        for key, item in value.items():
            out += _leaves(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
        return out
    if isinstance(value, list):
        out = [(pointer, value)]
        for index, item in enumerate(value):
            out += _leaves(item, f"{pointer}/{index}")
        return out
    return [(pointer, value)]


def _replaced(doc: Any, pointer: str, make: Any) -> Any:
    """A copy of ``doc`` with ``make(old_value)`` at ``pointer`` (a key replacement when
    ``make`` returns a ``str`` key via the ``rename`` marker)."""
    doc = o3de.parse(o3de.write(doc))
    steps = pointer_steps(pointer)
    parent = doc
    for step in steps[:-1]:
        parent = parent[int(step)] if isinstance(parent, list) else parent[step]
    last = steps[-1]
    if isinstance(parent, list):
        parent[int(last)] = make(parent[int(last)])
    elif make is _rename:
        items = [(k + "z" if k == last else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
    else:
        parent[last] = make(parent[last])
    return doc


def _rename(value: Any) -> Any:
    return value


def _wrong(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | dict):
        return "nowhere"
    return {"nowhere": value}


def _only_given(value: Any, given: Any) -> Any:
    """``value`` without the object members ``given`` lacks (at the same places)."""
    if isinstance(value, dict) and isinstance(given, dict):
        return {k: _only_given(v, given[k]) for k, v in value.items() if k in given}
    if isinstance(value, list) and isinstance(given, list) and len(value) == len(given):
        return [_only_given(v, g) for v, g in zip(value, given, strict=True)]
    return value


@pytest.mark.parametrize(("name", "type_", "least"), [("courtyard.prefab", PREFAB, 70),
                                                      ("stone.material", MATERIAL, 10)])
def test_every_rejected_value_of_a_saved_file_comes_back_as_it_was(name: str, type_: str,
                                                                    least: int) -> None:
    """Each value of an engine-saved file given a wrong JSON kind, or its member renamed
    (every other value): when the load reports it and goes on, decode gives the mutated file
    back byte for byte (a renamed member whose field the engine always writes also brings
    that field, at its default: ``"Parent Entity": ""``)."""
    registry = engine_registry()
    saved = o3de.parse((DATA / name).read_text())
    checked = 0
    for index, (pointer, _) in enumerate(_leaves(saved)[1:]):
        rename = index % 2 == 1 and not pointer.rsplit("/", 1)[-1].isdigit()
        doc = _replaced(saved, pointer, _rename if rename else _wrong)
        kept, result = _typed(type_, doc, registry)
        if result.code.halted or not result.issues:
            continue  # refused as a whole, or taken (coerced) by the engine's rules
        if rename:
            kept = _only_given(kept, doc)
        assert o3de.write(kept) == o3de.write(doc), (pointer, rename)
        checked += 1
    assert checked >= least, checked


REGISTRY = o3de.Registry()
REGISTRY.add_class("Light", "{5B4C1F0E-0000-4000-8000-00000000A001}",
                   [("Intensity", "float", 1.0), ("Tags", "vector<int32>", []),
                    ("Slots", "array<int32,2>"), ("ByName", "map<string,Light>", {}),
                    ("Children", "vector<shared_ptr<Light>>", [])])


@pytest.mark.parametrize(("doc", "kept"), [
    # dropped vector elements come back at their index, taken ones as stored
    ({"Tags": [1, "x", 3, [4], 5]}, None),
    # AZStd::array keeps its slots: the rejected one is put back in place
    ({"Slots": [1, "x"]}, None),
    # a map entry whose value failed is left out by the load: kept whole
    ({"ByName": {"a": {"Intensity": 2.0}, "b": {"Intensity": "high", "Tags": "t"}}}, None),
    # a pointer with an unknown $type, and one whose members are wrong
    ({"Children": [{"$type": "Nope", "Intensity": 3.0}, {"Intensity": 4.0}]}, None),
    # a member the class lacks, before and after members the store writes
    ({"Colour": 1, "Intensity": 2.0, "Shade": [1]}, None),
    # a name repeated: a pointer cannot tell which member it means, the object is kept
    (o3de.JsonObject([("Intensity", 2.0), ("Intensity", "x")]), None),
    # an older layout the load converts (an array of Key/Value pairs) with a bad entry
    ({"ByName": [{"Key": "a", "Value": {}}, {"Key": "b", "Value": {"Tags": "t"}}]}, None),
    # normalised where nothing is reported: the store's forms
    ({"intensity": "2.5", "Tags": [1, {}]}, {"Intensity": 2.5, "Tags": [1, {}]}),
])
def test_keep_untyped_restores_each_reported_place(doc: Any, kept: Any) -> None:
    doc = o3de.parse(o3de.write(doc))
    out, result = _typed("Light", doc, REGISTRY)
    assert o3de.write(out) == o3de.write(doc if kept is None else kept)
    assert bool(result.issues) == (kept is None)


def test_keep_untyped_at_the_root_and_without_issues() -> None:
    out, result = _typed("Light", [1, 2], REGISTRY)
    assert out == [1, 2] and [i.path for i in innermost(result.issues)] == [""]
    stored = {"Intensity": 2.0}
    assert keep_untyped(stored, {"Intensity": "2"}, []) is stored


def test_innermost_leaves_out_enclosing_reports() -> None:
    code = ResultCode.of(Tasks.ReadField, Outcomes.Unsupported)
    issues = [Issue(p, code, "m") for p in ("/a/b", "/a", "", "/a/b", "/c", "/a~1b")]
    assert [i.path for i in innermost(issues)] == ["/a/b", "/a/b", "/c", "/a~1b"]
    assert pointer_steps("/a~1b/~0c/") == ("a/b", "~c", "")


# -- unregistered classes: the engine's Unknown, not SchemaError -------------------------------

UNKNOWN = (Tasks.RetrieveInfo, Processing.Halted, Outcomes.Unknown)


def _holder() -> tuple[o3de.Registry, Any]:
    """``ClassWithPointerToUnregisteredClass`` of the engine's tests: ``EmptyClass* m_ptr``,
    with ``EmptyClass`` ({9E69A37B-...}) not registered."""
    reg = o3de.Registry()
    reg.add_class("ClassWithPointerToUnregisteredClass", "{7CBA9A8F-8576-456E-B4C0-DE5797D54694}",
                  [("ptr", "EmptyClass*"), ("count", "int32", 0)])
    return reg, reg.create(reg.resolve("ClassWithPointerToUnregisteredClass"))


@dataclass
class EmptyClass:
    """Stands for the engine test's instance (``m_ptr(new EmptyClass())``)."""


@pytest.mark.parametrize("keep_defaults", [False, True])
@pytest.mark.parametrize("plans", [True, False])
@pytest.mark.parametrize("pointee", [EmptyClass(), None])
def test_storing_a_pointer_to_an_unregistered_class_is_unknown(
        monkeypatch: pytest.MonkeyPatch, keep_defaults: bool, plans: bool, pointee: Any) -> None:
    monkeypatch.setattr(_plans, "ENABLED", plans)
    reg, value = _holder()
    value.ptr = pointee
    out, result = o3de.store(value, registry=reg, keep_defaults=keep_defaults)
    assert (result.task, result.processing, result.outcome) == UNKNOWN
    assert out == ({"count": 0} if keep_defaults else {})  # the field is not written
    assert [(i.path, i.message) for i in result.issues] == [
        ("ptr", "Failed to retrieve serialization information for EmptyClass.")]


def test_smart_pointers_and_containers_of_unregistered_classes_are_unknown() -> None:
    reg = o3de.Registry()
    reg.add_class("Holder", None, [("shared", "shared_ptr<Other>"), ("many", "vector<Other*>")])
    value = reg.create(reg.resolve("Holder"))
    _, result = o3de.store(value, registry=reg)
    assert (result.task, result.processing, result.outcome) == UNKNOWN
    assert [i.path for i in result.issues] == ["shared"]
    value.many = [None]
    _, result = o3de.store(value, "Holder", registry=reg, reporter=lambda m, c, p: c)
    assert result.outcome == Outcomes.Unknown and "many.0" in [i.path for i in result.issues]


@pytest.mark.parametrize("asked", ["EmptyClass", "vector<EmptyClass>", "EmptyClass*",
                                   uuid.UUID("9E69A37B-22BD-4E3F-9A80-63D902966591")])
def test_the_type_id_of_an_unregistered_class_is_unknown(asked: Any) -> None:
    reg, _ = _holder()
    out, result = o3de.store_type_id(asked, registry=reg)
    assert out == {}  # the engine's explicit default
    assert (result.task, result.processing, result.outcome) == UNKNOWN
    named = "{9E69A37B-22BD-4E3F-9A80-63D902966591}" if isinstance(asked, uuid.UUID) else asked
    assert [i.message for i in result.issues] == [
        f"Unable to retrieve description for type {named}."]


@pytest.mark.parametrize("base", ["EmptyClass", uuid.UUID("A2189202-D645-4D5A-822F-A77218A010CF"),
                                  "{A2189202-D645-4D5A-822F-A77218A010CF}"])
def test_loading_a_type_id_with_an_unregistered_base_is_unknown(base: Any) -> None:
    reg, _ = _holder()
    found, result = o3de.load_type_id({"$type": "ClassWithPointerToUnregisteredClass"},
                                      registry=reg, base_type=base)
    assert found == uuid.UUID(int=0)
    assert (result.task, result.processing, result.outcome) == (
        Tasks.ReadField, Processing.Halted, Outcomes.Unknown)
    assert [i.message for i in result.issues] == [
        "Unable to find type id with the provided string."]
    known = uuid.UUID("7CBA9A8F-8576-456E-B4C0-DE5797D54694")
    found, result = o3de.load_type_id({"$type": "ClassWithPointerToUnregisteredClass"},
                                      registry=reg, base_type=known)
    assert found == known and result.ok
