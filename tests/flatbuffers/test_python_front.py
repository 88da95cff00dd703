"""FlatBuffers from schemas declared in Python (``schema_of``), against ``flatc`` 25.12.19.

The seed Monster and a richer schema (unions of tables, structs and strings, vectors of
unions, bit flags, optional scalars, arrays, 64-bit integers, byte strings) are declared as
dataclasses; the ``.fbs`` :func:`to_fbs` renders must be accepted by flatc, and dataclass
instances must encode to the bytes ``flatc -b`` writes for the equivalent JSON and decode back
to equal instances, with the C accelerators and without them.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import flatbuffers as fb
from gameserde.errors import EncodeError, SchemaError
from gameserde.flatbuffers import _accel
from gameserde.flatbuffers.render import from_model, to_fbs
from gameserde.schema import Int, List, Optional, Record, Ref, String, Union, schema_of
from gameserde.schema.python import (
    fixed,
    float32,
    int8,
    int16,
    int32,
    uint8,
    uint16,
    uint64,
    union,
)

NS = {"namespace": "MyGame.Sample"}


class Color(enum.IntEnum):
    __gameserde__ = {**NS, "underlying": int8}
    Red = 0
    Green = 1
    Blue = 2


@dataclass
class Vec3:
    __gameserde__ = {**NS, "kind": "struct"}
    x: float32 = 0.0
    y: float32 = 0.0
    z: float32 = 0.0


@dataclass
class Weapon:
    __gameserde__ = NS
    name: str | None = None
    damage: int16 = 0


@dataclass
class Monster:
    __gameserde__ = NS
    pos: Vec3 | None = None
    mana: int16 = 150
    hp: int16 = 100
    name: str | None = None
    friendly: bool = field(default=False, metadata={"deprecated": True})
    inventory: list[uint8] | None = None
    color: Color = Color.Blue
    weapons: list[Weapon] | None = None
    equipped: Annotated[Weapon | None, union("Equipment")] = field(
        default=None, metadata={"required": True})
    path: list[Vec3] | None = None


SEED_FBS = """namespace MyGame.Sample;

enum Color : byte { Red = 0, Green = 1, Blue = 2 }

union Equipment { Weapon }

struct Vec3 {
  x: float;
  y: float;
  z: float;
}

table Weapon {
  name: string;
  damage: short;
}

table Monster {
  pos: Vec3;
  mana: short = 150;
  hp: short = 100;
  name: string;
  friendly: bool (deprecated);
  inventory: [ubyte];
  color: Color = Blue;
  weapons: [Weapon];
  equipped: Equipment (required);
  path: [Vec3];
}

namespace ;
root_type MyGame.Sample.Monster;
"""

SEED_JSON = """{ pos: {x: 1, y: 2, z: 3}, hp: 300, name: "Orc",
  inventory: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], color: Red,
  weapons: [{name: "Sword", damage: 3}, {name: "Axe", damage: 5}],
  equipped_type: Weapon, equipped: {name: "Axe", damage: 5},
  path: [{x: 4, y: 5, z: 6}, {x: 1, y: 2, z: 3}] }"""

SEED = Monster(pos=Vec3(1, 2, 3), hp=300, name="Orc", inventory=list(range(10)),
               color=Color.Red, weapons=[Weapon("Sword", 3), Weapon("Axe", 5)],
               equipped=Weapon("Axe", 5), path=[Vec3(4, 5, 6), Vec3(1, 2, 3)])


# -- a richer schema ----------------------------------------------------------------------


class Perk(enum.IntFlag):
    __gameserde__ = {"underlying": uint16}
    NONE = 0
    FAST = 1
    STRONG = 2
    SMART = 32


@dataclass
class Armor:
    defense: int16 = 0
    tint: Color = Color.Green


@dataclass
class Grid:
    __gameserde__ = {"kind": "struct"}
    cells: Annotated[list[uint8], fixed(3)] = field(default_factory=lambda: [0, 0, 0])
    origin: Vec3 = field(default_factory=Vec3)


@dataclass
class Hero:
    name: str = ""
    level: uint8 | None = None
    perks: Perk = Perk.FAST
    main: Weapon | Armor | None = None
    loot: list[Weapon | Vec3 | str] = field(default_factory=list)
    grid: Grid | None = None
    blob: bytes = b""
    ratio: float32 = 0.5
    big: uint64 = 0
    allies: list[Armor] = field(default_factory=list)
    spare: Armor | Weapon | None = None  # the union of `main`, reused


@pytest.fixture(params=["accelerated", "pure"])
def accel(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run with the C accelerators (when built) and with the pure-Python reference."""
    saved = _accel.ENABLED
    _accel.ENABLED = request.param == "accelerated"
    try:
        yield
    finally:
        _accel.ENABLED = saved


def flatc_binaries(exe: str, directory: Path, fbs: str, docs: list[str]) -> list[bytes]:
    """``flatc -b`` on ``docs`` with schema ``fbs`` (which flatc must accept)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "s.fbs").write_text(fbs, encoding="utf-8")
    names = []
    for i, doc in enumerate(docs):
        (directory / f"d{i}.json").write_text(doc, encoding="utf-8")
        names.append(f"d{i}")
    proc = subprocess.run([exe, "-b", "-o", "out", "s.fbs", *(n + ".json" for n in names)],
                          cwd=directory, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [(directory / "out" / f"{n}.bin").read_bytes() for n in names]


def json_of(value: Any) -> Any:
    """A dataclass instance as the JSON flatc reads: union fields get their ``_type``, the
    name of the member whose type is the value's class (``String`` for a str)."""
    if isinstance(value, enum.Enum):
        return int(value.value)
    if isinstance(value, bytes):
        return list(value)
    if isinstance(value, list):
        return [json_of(x) for x in value]
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    model = schema_of(type(value))
    assert model.root is not None
    record = model[model.root]
    assert isinstance(record, Record)
    out: dict[str, Any] = {}
    for f in record.fields:
        v = getattr(value, f.name)
        if v is None:
            continue
        t = f.type.inner if isinstance(f.type, Optional) else f.type
        if isinstance(t, List) and isinstance(t.element, Ref) and "Or" in t.element.name:
            out[f.name + "_type"] = [_member(x) for x in v]
        elif isinstance(t, Ref) and ("Or" in t.name or t.name.endswith("Equipment")):
            out[f.name + "_type"] = _member(v)
        out[f.name] = json_of(v)
    return out


def _member(x: Any) -> str:
    return "String" if isinstance(x, str) else type(x).__name__


# -- the seed Monster ---------------------------------------------------------------------


def test_seed_monster_renders_as_the_seed_schema() -> None:
    assert to_fbs(schema_of(Monster)) == SEED_FBS


def test_seed_monster_matches_flatc(flatc: str, tmp_path: Path, accel: None) -> None:
    schema = fb.load_schema(schema_of(Monster))
    assert schema.root == "MyGame.Sample.Monster"
    assert isinstance(schema.union("Equipment"), Union)
    ours = schema.encode(SEED)  # no equipped_type: inferred from the Weapon instance
    assert len(ours) == 208
    assert ours == flatc_binaries(flatc, tmp_path, to_fbs(schema_of(Monster)), [SEED_JSON])[0]
    assert ours == schema.from_json(SEED_JSON)
    schema.verify(ours)
    back = schema.decode(ours, cls=Monster)
    assert back == SEED and isinstance(back.color, Color) and isinstance(back.equipped, Weapon)
    assert fb.decode(schema, ours, "Monster", cls=Monster) == SEED


def test_load_schema_and_from_model_agree() -> None:
    model = schema_of(Monster)
    a, b = fb.load_schema(model), from_model(model)
    assert a.types == b.types and a.root == b.root
    with_id = from_model(model, file_identifier="MONS")
    assert with_id.file_identifier == "MONS"
    assert with_id.encode(SEED)[4:8] == b"MONS"


def test_a_model_loaded_from_fbs_renders_back() -> None:
    original = fb.load_schema(SEED_FBS)
    again = fb.load_schema(original.schema)
    assert set(again.types) == set(original.types)
    assert again.encode(SEED) == original.encode(SEED)
    assert again.from_json(SEED_JSON) == original.from_json(SEED_JSON)


# -- the richer schema --------------------------------------------------------------------


HEROES = [
    Hero(),
    Hero(name="Zed", level=0, perks=Perk.FAST | Perk.SMART, main=Armor(7, Color.Red),
         loot=[Weapon("Bow", 2), Vec3(1.5, -2, 3), "gold", Weapon()],
         grid=Grid([1, 2, 3], Vec3(0, 0, 1)), blob=b"\x00\xff", ratio=-1.25, big=2**64 - 1,
         allies=[Armor(), Armor(3)], spare=Weapon("Dagger", -4)),
    Hero(name="é\u4e2d", perks=Perk.NONE, main=Weapon("Axe", 5), loot=["a", "b"],
         spare=Armor(defense=1)),
]


def test_rich_schema_renders_as_expected() -> None:
    text = to_fbs(schema_of(Hero))
    assert "enum Perk : ushort (bit_flags) { FAST = 0, STRONG = 1, SMART = 5 }" in text
    assert "union WeaponOrArmor { Weapon: MyGame.Sample.Weapon, Armor }" in text
    assert "union WeaponOrVec3OrString { Weapon, Vec3, String: string }" in text
    assert "struct Grid {\n  cells: [ubyte:3];\n  origin: MyGame.Sample.Vec3;\n}" in text
    for line in ("level: ubyte = null;", "perks: Perk = 1;", "main: WeaponOrArmor;",
                 "loot: [MyGame.Sample.WeaponOrVec3OrString];", "blob: [ubyte];",
                 "ratio: float = 0.5;", "big: ulong;", "allies: [Armor];", "spare: WeaponOrArmor;",
                 "tint: MyGame.Sample.Color = Green;"):
        assert f"  {line}\n" in text, line
    assert "root_type Hero;" in text


def test_rich_schema_matches_flatc(flatc: str, tmp_path: Path, accel: None) -> None:
    model = schema_of(Hero)
    schema = fb.load_schema(model)
    docs = [json.dumps(json_of(h), ensure_ascii=False) for h in HEROES]
    expected = flatc_binaries(flatc, tmp_path, to_fbs(model), docs)
    for hero, doc, want in zip(HEROES, docs, expected, strict=True):
        ours = schema.encode(hero)
        assert ours == want, hero
        assert ours == schema.from_json(doc)
        schema.verify(ours)
        assert schema.decode(ours, cls=Hero) == hero


def test_explicit_tags_are_kept_and_unknown_members_rejected() -> None:
    schema = fb.load_schema(schema_of(Hero))
    u = schema.union("WeaponOrArmor")
    assert dict(u.members)["Armor"][0] == 2
    with pytest.raises(EncodeError, match=r"\$\.main: cannot tell which member of union "
                                          r"WeaponOrArmor a Grid is; give main_type"):
        schema.encode(Hero(main=Grid()))  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match=r"\$\.loot\[1\]: cannot tell"):
        schema.encode(Hero(loot=["x", Armor()]))  # type: ignore[list-item]

    @dataclass
    class Tagged:  # a hand-written class with its own _type field wins
        main_type: int | None = None
        main: Any = None

    ours = schema.encode(Tagged(2, {"defense": 9}), "Hero")
    assert schema.decode(ours, cls=Hero) == Hero(main=Armor(9))


def test_absent_scalars_without_a_dataclass_default_take_the_schema_default() -> None:
    @dataclass
    class Plain:
        hp: int16
        mana: int16 = 150

    schema = fb.load_schema(schema_of(Plain))
    assert "hp: short;" in to_fbs(schema_of(Plain))
    assert schema.decode(schema.encode(Plain(0)), cls=Plain) == Plain(0)


def _heroes() -> st.SearchStrategy[Hero]:
    f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
    vec = st.builds(Vec3, f32, f32, f32)
    weapon = st.builds(Weapon, st.none() | st.text(max_size=8),
                       st.integers(-(2**15), 2**15 - 1))
    armor = st.builds(Armor, st.integers(-(2**15), 2**15 - 1), st.sampled_from(Color))
    perks = st.integers(0, 7).map(
        lambda bits: Perk(sum(p.value for i, p in enumerate((Perk.FAST, Perk.STRONG,
                                                             Perk.SMART)) if bits >> i & 1)))
    grid = st.builds(Grid, st.lists(st.integers(0, 255), min_size=3, max_size=3), vec)
    return st.builds(
        Hero, name=st.text(max_size=10), level=st.none() | st.integers(0, 255), perks=perks,
        main=st.none() | weapon | armor, loot=st.lists(weapon | vec | st.text(max_size=4),
                                                       max_size=4),
        grid=st.none() | grid, blob=st.binary(max_size=6), ratio=f32,
        big=st.integers(0, 2**64 - 1), allies=st.lists(armor, max_size=3),
        spare=st.none() | weapon | armor)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hero=_heroes())
def test_hypothesis_round_trip(hero: Hero) -> None:
    schema = fb.load_schema(schema_of(Hero))
    buf = schema.encode(hero)
    schema.verify(buf)
    assert schema.decode(buf, cls=Hero) == hero
    saved = _accel.ENABLED
    _accel.ENABLED = False
    try:
        assert schema.encode(hero) == buf
        assert schema.decode(buf, cls=Hero) == hero
    finally:
        _accel.ENABLED = saved


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(heroes=st.lists(_heroes(), min_size=25, max_size=25))
def test_hypothesis_heroes_match_flatc(heroes: list[Hero], flatc: str,
                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    model = schema_of(Hero)
    schema = fb.load_schema(model)
    docs = [json.dumps(json_of(h), ensure_ascii=False) for h in heroes]
    expected = flatc_binaries(flatc, tmp_path_factory.mktemp("heroes"), to_fbs(model), docs)
    assert [schema.encode(h) for h in heroes] == expected


# -- attributes, namespaces and errors ----------------------------------------------------


@dataclass
class Item:
    """An item.

    Second line."""

    __gameserde__ = {"namespace": "Shop.Items"}
    name: str = field(default="", metadata={"key": True, "id": 1, "doc": "Its name."})
    price: int32 = field(default=0, metadata={"id": 0, "priority": 3, "note": "x",
                                              "skipped": 1.5, "flatbuffers.x": 1})


@dataclass
class Shop:
    __gameserde__ = {"namespace": "Shop", "original_order": True}
    items: list[Item] = field(default_factory=list)
    rating: float | None = None
    flags: Annotated[int, Int(8, False)] = 3


def test_ids_keys_attributes_and_flatc_acceptance(flatc: str, tmp_path: Path) -> None:
    text = to_fbs(schema_of(Shop))
    assert text.startswith('attribute "priority";\nattribute "note";\n')
    assert "namespace Shop;\n" in text and "namespace Shop.Items;\n" in text
    assert "table Shop (original_order) {" in text
    assert '  /// Its name.\n  name: string (id: 1, key);' in text
    assert '  price: int (id: 0, priority: 3, note: "x");' in text
    assert "/// An item.\n///\n/// Second line.\ntable Item {" in text
    assert "  rating: double = null;\n  flags: ubyte = 3;\n" in text
    schema = fb.load_schema(schema_of(Shop))
    value = Shop(items=[Item("b", 2), Item("a", 1)], rating=0.0)
    doc = json.dumps({"items": [{"name": "b", "price": 2}, {"name": "a", "price": 1}],
                      "rating": 0.0})
    ours = schema.encode(value)
    assert ours == flatc_binaries(flatc, tmp_path, text, [doc])[0]
    assert schema.decode(ours, cls=Shop) == Shop(items=[Item("a", 1), Item("b", 2)],
                                                 rating=0.0)  # flatc sorts by key


def _bad(**fields: Any) -> type:
    return dataclasses.make_dataclass("Bag", [(k, v, field(default=None))
                                              for k, v in fields.items()])


@pytest.mark.parametrize(("hint", "message"), [
    (dict[str, int], r"Bag\.x: FlatBuffers has no maps"),
    (set[str], r"Bag\.x: FlatBuffers has no sets"),
    (Annotated[int, Int(7)], r"Bag\.x: FlatBuffers has no 7-bit integer"),
    (Annotated[str, String("utf-16")], r"Bag\.x: FlatBuffers strings are UTF-8"),
    (Annotated[list[int], fixed(3)], r"Bag\.x: FlatBuffers has fixed-length arrays in structs"),
    (list[list[int]], r"Bag\.x: FlatBuffers has no vectors of vectors"),
    (list[bytes], r"Bag\.x: FlatBuffers has no vectors of byte strings"),
    (list[int | None], r"Bag\.x: FlatBuffers has no vectors of optionals"),
])
def test_types_without_a_flatbuffers_counterpart(hint: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        to_fbs(schema_of(_bad(x=hint)))


def test_struct_and_enum_errors() -> None:
    @dataclass
    class S:
        __gameserde__ = {"kind": "struct"}
        name: str = ""

    with pytest.raises(SchemaError, match=r"S\.name: a struct holds scalars"):
        to_fbs(schema_of(S))

    @dataclass
    class T:
        level: int8 | None = 3

    with pytest.raises(SchemaError, match=r"T\.level: an optional scalar defaults to null"):
        to_fbs(schema_of(T))

    with pytest.raises(SchemaError, match="AB = 3 is not a single bit"):
        to_fbs(schema_of(U))


class Mixed(enum.IntFlag):
    A = 1
    B = 2
    AB = 3


@dataclass
class U:
    m: Mixed = Mixed.A


class Odd(enum.IntEnum):
    ONE = 1


@dataclass
class V:
    odd: Odd = None  # type: ignore[assignment]


def test_flatc_rules_apply_to_the_rendered_schema() -> None:
    with pytest.raises(fb.FbsSchemaError) as info:
        fb.load_schema(schema_of(V))
    assert info.value.flatc_message == ("default value of `0` for field `odd` is not part of "
                                        "enum `Odd`.")
    assert info.value.file.endswith("V.fbs")
    assert any("odd: Odd;" in note for note in info.value.__notes__)
