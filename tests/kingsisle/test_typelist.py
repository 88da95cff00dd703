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
                                                   "flags": "7", "hash": 5}}}}
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
