"""Unions in the Python front: ``A | B`` (and ``union("Name")``) lower into ``model.Union``."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

import pytest

from gameserde.errors import SchemaError
from gameserde.schema import STRING, Enum, List, Optional, Ref, Union, schema_of
from gameserde.schema.python import float32, int16, uint8, union

NS = {"namespace": "Game"}


@dataclass
class Vec2:
    __gameserde__ = {**NS, "kind": "struct"}
    x: float32 = 0.0
    y: float32 = 0.0


@dataclass
class Weapon:
    __gameserde__ = NS
    name: str | None = None
    damage: int16 = 0


@dataclass
class Armor:
    __gameserde__ = NS
    defense: int16 = 0


class Rank(enum.IntEnum):
    __gameserde__ = {**NS, "underlying": uint8}
    LOW = 0
    HIGH = 1


@dataclass
class Hero:
    __gameserde__ = NS
    main: Weapon | Armor | None = None
    off: Armor | Weapon | None = None  # the same member set: the same union
    equipped: Annotated[Weapon | Armor | None, union("Equipment")] = None
    only: Annotated[Weapon, union("Single")] | None = None
    loot: list[Weapon | Vec2 | str] | None = None
    rank: Rank = Rank.LOW


def test_unions_lower_in_declaration_order() -> None:
    s = schema_of(Hero)
    hero = s["Game.Hero"]
    by = {f.name: f.type for f in hero.fields}  # type: ignore[union-attr]
    assert by["main"] == Optional(Ref("Game.WeaponOrArmor"))
    assert by["off"] == Optional(Ref("Game.WeaponOrArmor"))
    assert by["equipped"] == Optional(Ref("Game.Equipment"))
    assert by["only"] == Optional(Ref("Game.Single"))
    assert by["loot"] == Optional(List(Ref("Game.WeaponOrVec2OrString")))
    u = s["Game.WeaponOrArmor"]
    assert isinstance(u, Union) and u.kind == "union"
    assert dict(u.members) == {"Weapon": (1, Ref("Game.Weapon")), "Armor": (2, Ref("Game.Armor"))}
    assert dict(s["Game.Equipment"].members) == dict(u.members)  # type: ignore[union-attr]
    assert dict(s["Game.Single"].members) == {"Weapon": (1, Ref("Game.Weapon"))}  # type: ignore[union-attr]
    loot = s["Game.WeaponOrVec2OrString"]
    assert isinstance(loot, Union)
    assert dict(loot.members) == {"Weapon": (1, Ref("Game.Weapon")), "Vec2": (2, Ref("Game.Vec2")),
                                  "String": (3, STRING)}
    assert loot.member_of(2) == ("Vec2", Ref("Game.Vec2")) and loot.member_of(0) is None


def test_non_optional_union_and_explicit_namespace() -> None:
    @dataclass
    class Holder:
        a: Weapon | Armor = None  # type: ignore[assignment]
        b: Annotated[Weapon | Armor, union("Other.Kit")] = None  # type: ignore[assignment]

    s = schema_of(Holder)
    by = {f.name: f.type for f in s["Holder"].fields}  # type: ignore[union-attr]
    assert by == {"a": Ref("Game.WeaponOrArmor"), "b": Ref("Other.Kit")}


def test_enum_namespace_is_not_an_attribute() -> None:
    rank = schema_of(Hero)["Game.Rank"]
    assert isinstance(rank, Enum) and dict(rank.attributes) == {}


def test_union_errors_name_the_field() -> None:
    @dataclass
    class BadMember:
        x: Weapon | Rank | None = None

    with pytest.raises(SchemaError, match=r"BadMember\.x: the members of a union"):
        schema_of(BadMember)

    @dataclass
    class TwoNames:
        a: Annotated[Weapon | Armor, union("U")] | None = None
        b: Annotated[Weapon | Vec2, union("U")] | None = None

    with pytest.raises(SchemaError, match=r"TwoNames\.b: two different unions .* Game\.U"):
        schema_of(TwoNames)

    @dataclass
    class Clash:
        a: Annotated[Weapon | Armor, union("Weapon")] | None = None

    with pytest.raises(SchemaError, match=r"Game\.Weapon names both a class and a union"):
        schema_of(Clash)

    @dataclass
    class Clash2:
        w: Weapon | None = None
        a: Annotated[Weapon | Armor, union("Weapon")] | None = None

    with pytest.raises(SchemaError, match=r"Clash2\.a: the union Game\.Weapon would have"):
        schema_of(Clash2)
