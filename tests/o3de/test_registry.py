"""The registry: type text, explicit and dataclass registration, lowering into the model."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated
from uuid import UUID

import pytest

from gameserde.errors import SchemaError
from gameserde.o3de import AnyValue, Registry, Vector3, load, store
from gameserde.schema import model as m
from gameserde.schema.python import float32, uint8


def test_type_text_resolves_templates_pointers_and_aliases() -> None:
    reg = Registry()
    reg.add_class("Base", None, [("x", "int32")])
    t = reg.resolve("map<string, vector<Base*>>")
    assert (t.kind, t.flavor) == ("map", "map")
    assert t.args[1].args[0].kind == "pointer" and t.args[1].args[0].args[0].name == "Base"
    assert reg.resolve("int8").name == "char" and reg.resolve("int8_t").kind == "opaque"
    assert reg.resolve("unsigned   long long").name == "AZ::u64"
    assert reg.resolve("fixed_vector<int32,4>").size == 4
    assert reg.resolve("AZStd::array<float,3>").size == 3
    for bad in ("vector<int32", "map<int32>", "fixed_vector<int32>", "Nope", "vector<>", ""):
        with pytest.raises(SchemaError):
            reg.resolve(bad)


def test_explicit_classes_get_dataclasses_with_defaults_and_bases() -> None:
    reg = Registry()
    reg.add_class("Base", "{E0A66EB6-1AC5-4C73-B1A7-6367A47EC026}", [("base var", "float", -1.5)])
    info = reg.add_class("Derived", None, [("items", "vector<int32>", [1]), ("v", "Vector3")],
                         bases=["Base"])
    first, second = reg.create(reg.resolve("Derived")), reg.create(reg.resolve("Derived"))
    first.items.append(2)
    assert second.items == [1] and second.v == Vector3() and second.base_var == -1.5
    assert [f.name for f in info.all_fields] == ["base var", "items", "v"]
    assert reg.type_id(reg.resolve("Base")) == UUID("E0A66EB6-1AC5-4C73-B1A7-6367A47EC026")
    with pytest.raises(SchemaError):
        reg.add_class("Base")
    with pytest.raises(SchemaError):
        reg.add_class("Other", None, bases=["Missing"])
    with pytest.raises(SchemaError):
        reg.add_class("Bad", "{not-a-uuid}")


class Mode(enum.IntFlag):
    A = 1
    B = 2


@dataclass
class Item:
    name: str = ""
    weight: float32 = 0.0


@dataclass
class Bag:
    items: list[Item] = field(default_factory=list)
    counts: dict[str, uint8] = field(default_factory=dict)
    mode: Mode = Mode.A
    owner: Item | None = None
    where: Vector3 = field(default_factory=Vector3)
    note: Annotated[str, "OSString"] = field(default="", metadata={"o3de": "Note Text"})
    extra: AnyValue = field(default_factory=AnyValue)


def test_dataclasses_register_and_round_trip() -> None:
    reg = Registry()
    reg.add_enum("Mode", Mode, underlying="uint8")
    reg.add_dataclass(Item)
    reg.add_dataclass(Bag, uuid="{11111111-2222-3333-4444-555555555555}")
    bag = Bag([Item("a", 0.5)], {"x": 3}, Mode.A | Mode.B, Item("o", 1.0), Vector3(1, 2, 3),
              "hi", AnyValue("Item", Item("z", 0.0)))
    out, result = store(bag, registry=reg)
    assert result.outcome.name == "PartialDefaults"
    assert out == {"items": [{"name": "a", "weight": 0.5}], "counts": {"x": 3},
                   "mode": ["B", "A"], "owner": {"name": "o", "weight": 1.0},
                   "where": [1.0, 2.0, 3.0], "Note Text": "hi",
                   "extra": {"$type": "Item", "Value": {"name": "z"}}}
    back, result = load("Bag", out, registry=reg)
    assert result.outcome.name == "PartialDefaults" and result.ok
    assert back == bag and isinstance(back.mode, Mode)
    assert reg.resolve("Bag").kind == "class"


def test_annotations_that_do_not_map_are_refused() -> None:
    @dataclass
    class Odd:
        x: complex = 0j

    with pytest.raises(SchemaError):
        Registry().add_dataclass(Odd)
    with pytest.raises(SchemaError):
        Registry().add_dataclass(int)


def test_to_schema_lowers_what_fits() -> None:
    reg = Registry()
    reg.add_enum("E", [("A", 1)], underlying="int16")
    reg.add_class("B1", None, [("a", "uint8")])
    reg.add_class("B2", None, [("b", "double")])
    reg.add_class("C", None, [("e", "E"), ("p", "B1*"), ("s", "set<int32>"),
                              ("arr", "array<float,3>"), ("t", "pair<int32,bool>")],
                  bases=["B1", "B2"])
    schema = reg.to_schema()
    c = schema["C"]
    assert isinstance(c, m.Record) and c.base == "B1"
    assert [f.name for f in c.fields] == ["b", "e", "p", "s", "arr", "t"]
    types = {f.name: f.type for f in c.fields}
    assert types["e"] == m.Ref("E") and types["p"] == m.Optional(m.Ref("B1"))
    assert types["s"] == m.Set(m.INT32) and types["arr"] == m.List(m.FLOAT32, 3)
    assert types["t"] == m.STRING and c.fields[-1].attributes["o3de_type"] == "pair<int,bool>"
    assert schema["E"] == m.Enum("E", m.INT16, {"A": 1}, attributes=schema["E"].attributes)


def test_resolve_remembers_a_bounded_number_of_type_texts() -> None:
    """Documents may name any number of template types in ``$type``; the registry does not
    keep them all."""
    reg = Registry()
    for n in range(5000):
        assert reg.resolve(f"array<int,{n + 1}>").size == n + 1
    assert len(reg._cache) <= 4096
