"""The shared schema model and its Python (dataclass) front."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated

import pytest

from gameserde.errors import SchemaError
from gameserde.schema import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT16,
    INT64,
    STRING,
    UINT8,
    Enum,
    Field,
    Int,
    List,
    Map,
    Optional,
    Record,
    Ref,
    Schema,
    Set,
    schema_of,
)
from gameserde.schema.python import fixed, float32, int16, uint8


class Color(enum.IntEnum):
    __gameserde__ = {"underlying": uint8}
    RED = 0
    GREEN = 1
    BLUE = 2


class Flags(enum.IntFlag):
    __gameserde__ = {"underlying": uint8}
    A = 1
    B = 2
    C = 8


@dataclass
class Vec3:
    __gameserde__ = {"kind": "struct"}
    x: float32
    y: float32
    z: float32


@dataclass
class Weapon:
    name: str | None = None
    damage: int16 = 0


@dataclass
class Monster:
    """A monster."""

    __gameserde__ = {"namespace": "MyGame"}
    pos: Vec3 | None = None
    mana: int16 = 150
    hp: int16 = 100
    name: str | None = field(default=None, metadata={"required": True, "id": 3})
    inventory: list[uint8] | None = None
    color: Color = Color.BLUE
    weapons: list[Weapon] | None = None
    flags: Flags = Flags.A
    tags: set[str] = field(default_factory=set)
    stats: dict[str, float] = field(default_factory=dict)
    matrix: Annotated[list[float32], fixed(4)] = field(default_factory=list)
    blob: bytes = b""
    alive: bool = True
    legacy: int = field(default=0, metadata={"deprecated": True, "priority": 3})


@dataclass
class Boss(Monster):
    phase: int16 = 1


def test_dataclasses_lower_into_the_model() -> None:
    s = schema_of(Monster)
    assert s.root == "MyGame.Monster"
    mon = s["MyGame.Monster"]
    assert isinstance(mon, Record) and mon.kind == "table" and mon.doc == "A monster."
    by = {f.name: f for f in mon.fields}
    assert by["pos"].type == Optional(Ref("Vec3"))
    assert by["mana"] == Field("mana", INT16, default=150)
    assert by["name"].required and by["name"].id == 3 and by["name"].type == Optional(STRING)
    assert by["inventory"].type == Optional(List(UINT8))
    assert by["color"].type == Ref("Color") and by["color"].default == 2
    assert by["weapons"].type == Optional(List(Ref("Weapon")))
    assert by["tags"].type == Set(STRING) and by["tags"].default is None
    assert by["stats"].type == Map(STRING, FLOAT64)
    assert by["matrix"].type == List(FLOAT32, 4)
    assert by["blob"].type == BYTES and by["alive"].type == BOOL
    assert by["legacy"].deprecated and by["legacy"].type == INT64
    assert dict(by["legacy"].attributes) == {"priority": 3}
    vec = s["Vec3"]
    assert isinstance(vec, Record) and vec.kind == "struct"
    assert [f.type for f in vec.fields] == [FLOAT32] * 3
    color = s["Color"]
    assert isinstance(color, Enum) and color.underlying == UINT8 and not color.bit_flags
    assert dict(color.values) == {"RED": 0, "GREEN": 1, "BLUE": 2}
    flags = s["Flags"]
    assert isinstance(flags, Enum) and flags.bit_flags
    assert flags.flag_names(9) == ["A", "C"] and flags.flag_names(4) is None


def test_inheritance_becomes_base() -> None:
    s = schema_of(Boss)
    boss = s["Boss"]
    assert isinstance(boss, Record) and boss.base == "MyGame.Monster"
    assert [f.name for f in boss.fields] == ["phase"]
    assert [f.name for f in s.fields_of("Boss")][-2:] == ["legacy", "phase"]


def test_schema_checks_references_and_names() -> None:
    with pytest.raises(SchemaError, match="undefined type: Nope"):
        Schema({"A": Record("A", (Field("x", Ref("Nope")),))})
    with pytest.raises(SchemaError, match="field already exists: x"):
        Record("A", (Field("x", INT16), Field("x", INT16)))
    with pytest.raises(SchemaError, match="unknown root type"):
        Schema({}, root="A")
    with pytest.raises(SchemaError, match="does not fit"):
        Enum("E", UINT8, {"BIG": 300})


def test_int_ranges() -> None:
    assert Int(7, False).max == 127 and Int(7).min == -64
    assert 255 in UINT8 and 256 not in UINT8 and -1 not in UINT8
    with pytest.raises(SchemaError):
        Int(65)


def test_unsupported_python_annotations_are_reported() -> None:
    @dataclass
    class Bad:
        x: int | str = 0

    with pytest.raises(SchemaError, match=r"Bad\.x"):
        schema_of(Bad)
