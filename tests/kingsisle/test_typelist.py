"""Type lists (v1 and v2) into the shared model; the lists katsuba accepts and refuses."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gameserde.errors import SchemaError
from gameserde.kingsisle import property_hash, string_id
from gameserde.kingsisle.typelist import OBJECT, load_schema
from gameserde.schema.model import UINT32, Enum, List, Record, Ref, Union
from tests.kingsisle.katsuba_oracle import run

V2: dict[str, Any] = {"version": 2, "classes": {
    "840848220": {"name": "class ExampleItem", "bases": ["PropertyClass"], "hash": 840848220,
                  "singleton": False, "properties": {
        "m_id": {"type": "unsigned int", "id": 0, "offset": 0, "flags": 31,
                 "container": "Static", "dynamic": False, "pointer": False,
                 "hash": 2301988666},
        "m_kind": {"type": "enum ExampleKind", "id": 1, "offset": 8, "flags": 2097183,
                   "container": "Static", "dynamic": False, "pointer": False,
                   "hash": 863322476,
                   "enum_options": {"KIND_NONE": 0, "KIND_A": 1, "__DEFAULT": "KIND_NONE"}},
        "m_children": {"type": "class SharedPointer<class ExampleItem>", "id": 2,
                       "offset": 16, "flags": 31, "container": "List", "dynamic": True,
                       "pointer": True, "hash": 2368506428}}}}}


def test_the_spec_example() -> None:
    schema = load_schema(json.dumps(V2))
    item = schema.classes["class ExampleItem"]
    assert schema.class_by_hash(840848220) is item
    assert [f.name for f in item.fields] == ["m_id", "m_kind", "m_children"]
    m_id, m_kind, m_children = item.fields
    assert m_id.type == UINT32 and m_id.attributes["hash"] == property_hash(
        "unsigned int", "m_id")
    kind = schema.model.types[m_kind.type.name]  # type: ignore[union-attr]
    assert isinstance(kind, Enum) and dict(kind.values) == {"KIND_NONE": 0, "KIND_A": 1}
    assert kind.attributes["special"] == {"__DEFAULT": "KIND_NONE"}
    assert m_children.type == List(Ref(OBJECT))
    union = schema.model.types[OBJECT]
    assert isinstance(union, Union) and dict(union.members) == {
        "class ExampleItem": (840848220, Ref("class ExampleItem"))}


def test_v1_lists_and_merging() -> None:
    v1 = {"class Other": {"bases": [], "hash": str(string_id("class Other")),
                          "properties": {"m_pos": {"type": "class Vector3D", "id": "0",
                                                   "flags": "7", "hash": 5,
                                                   "dynamic": False}}}}
    schema = load_schema(json.dumps(V2).encode(), v1)
    assert set(schema.classes) == {"class ExampleItem", "class Other"}
    other = schema.classes["class Other"]
    assert isinstance(other, Record) and other.fields[0].type == Ref("kingsisle.Vector3D")


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d["classes"]["840848220"].pop("hash"), "hash is not an integer"),
    (lambda d: d["classes"]["840848220"]["properties"]["m_id"].update(flags=1 << 12),
     "bits no property flag has"),
    (lambda d: d["classes"]["840848220"]["properties"]["m_id"].update(type=7),
     "is not a type name"),
    (lambda d: d.update(version=3), "version 2"),
    (lambda d: d["classes"]["840848220"]["properties"]["m_kind"]["enum_options"].update(
        BIG=1 << 32), "does not fit 32 bits"),
])
def test_bad_lists(change: Any, words: str) -> None:
    doc = copy.deepcopy(V2)
    change(doc)
    with pytest.raises(SchemaError) as e:
        load_schema(doc)
    assert words in str(e.value)


def test_we_accept_and_refuse_the_lists_katsuba_does() -> None:
    variants: list[dict[str, Any]] = []
    for change in (lambda d: None,
                   lambda d: d["classes"]["840848220"].pop("hash"),
                   lambda d: d["classes"]["840848220"]["properties"]["m_id"].update(
                       flags=1 << 12),
                   lambda d: d["classes"]["840848220"]["properties"]["m_id"].update(
                       flags=1 << 31),
                   lambda d: d["classes"]["840848220"]["properties"]["m_id"].update(
                       flags=(1 << 30) | 31),
                   lambda d: d["classes"]["840848220"].update(bases=[])):
        doc = copy.deepcopy(V2)
        change(doc)
        variants.append(doc)
    texts = [json.dumps(v) for v in variants]
    [answers] = run([{"kind": "typelists", "texts": texts}])
    ours = []
    for text in texts:
        try:
            load_schema(text)
            ours.append(True)
        except SchemaError:
            ours.append(False)
    assert ours == [a == "ok" for a in answers], answers


def prop(t: str, i: int, h: int, **more: Any) -> dict[str, Any]:
    return {"type": t, "id": i, "flags": 31, "dynamic": False, "hash": h, **more}


def cls(name: str, h: int, props: dict[str, Any], bases: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"name": name, "bases": list(bases), "hash": h, "properties": props}


def v2(*classes: dict[str, Any], keys: tuple[str, ...] = ()) -> str:
    return json.dumps({"version": 2, "classes": {
        (keys[n] if n < len(keys) else str(c["hash"])): c for n, c in enumerate(classes)}})


# (list, words our SchemaError holds, whether katsuba 0.6.0's TypeList takes the list: it
# keeps one of two rivals where we refuse, and refuses what lacks a member as we do)
REFUSED: dict[str, tuple[str, str, bool]] = {
    "1,600 classes of one hash": (
        json.dumps({f"class C{i}": cls(f"class C{i}", 7, {}) for i in range(1600)}),
        "class C1: it has the type hash 7 of class class C0", True),
    "the type hash 0": (v2(cls("class Z", 0, {})), "class Z: its type hash is 0", True),
    "a key that is not the hash": (v2(cls("class A", 5, {}), keys=("6",)),
                                   "listed under the key '6', not under its hash 5", True),
    "a key that is no number": (v2(cls("class A", 5, {}), keys=("x",)),
                                "listed under the key 'x'", False),
    "two properties of one hash": (
        v2(cls("class A", 5, {"m_87": prop("u24", 0, 9), "m_89": prop("s24", 1, 9)})),
        "class A: properties m_87 and m_89 share the hash 9", True),
    "two properties of one id": (
        v2(cls("class A", 5, {"m_a": prop("int", 3, 9), "m_b": prop("int", 3, 10)})),
        "class A: properties m_a and m_b share the id 3", True),
    "a class its own base": (v2(cls("class A", 5, {}, ("class A",))),
                             "class class A: its bases lead back to it (class A -> class A)",
                             True),
    "bases in a loop": (
        v2(cls("class A", 5, {}, ("class B", "PropertyClass")), cls("class B", 6, {}, ("class C",)),
           cls("class C", 8, {}, ("class A",))),
        "its bases lead back to it (class A -> class B -> class C -> class A)", True),
    "no properties": (v2({"name": "class A", "hash": 5}),
                      "class A: \"properties\" is missing", False),
    "a property without dynamic": (
        v2(cls("class A", 5, {"m_a": {"type": "int", "id": 0, "flags": 31, "hash": 9}})),
        "property m_a: a property needs 'dynamic'", False),
    "a property without id and hash": (
        v2(cls("class A", 5, {"m_a": {"type": "int", "flags": 31, "dynamic": False}})),
        "property m_a: a property needs 'id', 'hash'", False),
    "dynamic not a bool": (v2(cls("class A", 5, {"m_a": prop("int", 0, 9, dynamic=1)})),
                           "property m_a: \"dynamic\" is not true or false", False),
}


@pytest.mark.parametrize("case", REFUSED)
def test_ambiguous_or_incomplete_lists_are_refused(case: str) -> None:
    text, words, _ = REFUSED[case]
    with pytest.raises(SchemaError) as e:
        load_schema(text)
    assert words in str(e.value)


def test_katsubas_verdicts_on_the_refused_lists() -> None:
    [answers] = run([{"kind": "typelists", "texts": [text for text, _, _ in REFUSED.values()]}])
    assert [a == "ok" for a in answers] == [taken for _, _, taken in REFUSED.values()], answers


def test_merged_lists_may_not_give_one_hash_two_classes() -> None:
    first = v2(cls("class A", 5, {"m_a": prop("int", 0, 9)}))
    with pytest.raises(SchemaError, match="class B: it has the type hash 5 of class class A"):
        load_schema(first, v2(cls("class B", 5, {})))
    again = load_schema(first, v2(cls("class A", 5, {"m_b": prop("int", 0, 10)})))
    assert [f.name for f in again.classes["class A"].fields] == ["m_b"]  # replaced by name


def test_bases_outside_the_list_and_deep_hierarchies_are_fine() -> None:
    names = [f"class D{i}" for i in range(2000)]  # each derives from the 3 before it
    chain = [cls(n, 100 + i, {}, (*reversed(names[:i][-3:]), "PropertyClass"))
             for i, n in enumerate(names)]
    assert len(load_schema(v2(*chain)).classes) == 2000
