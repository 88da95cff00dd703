"""FlatBuffers rows in Parquet datasets (``gameserde.flatbuffers.rows``): batches decode buffers
of a schema with every kind of FlatBuffers type into a dataset, read back with pyarrow and
DuckDB: exact integer widths and uint64, float32, enums as names or integers, unions as tagged
structs, fixed arrays, defaults, optional scalars, nested flatbuffers, flexbuffers; a bad
input has no row; the shared corpus's buffers (when ../shared is there) become rows too."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gameserde
from gameserde import batch
from gameserde.batch.parquet import table_of
from gameserde.errors import GameserdeWarning
from gameserde.flatbuffers import interface
from gameserde.schema.model import FLOAT32, List, Record, Ref, Schema, Type, Union

SCHEMA = """
namespace Game;

enum Color : ubyte { Red, Green, Blue = 8 }
enum Flags : uint (bit_flags) { Fire, Ice, Poison }

struct Vec2 { x: float; y: float; }
struct Path { points: [short:3]; colors: [Color:2]; ends: [Vec2:2]; }

table Weapon { name: string (key); damage: short = 10; }
table Nothing {}
table Node { label: string; next: Node; }
union Item { Weapon, Pos: Vec2, Note: string }

table Save {
  id: ulong (key);
  tiny: byte;
  small: ushort;
  mid: int;
  ratio: float;
  exact: double;
  alive: bool;
  hp: short = 100;
  speed: float = 3.14159;
  level: int = null;
  old: int (deprecated);
  color: Color = Green;
  flags: Flags = Ice;
  pos: Vec2;
  path: Path;
  name: string;
  tags: [string];
  inventory: [ubyte];
  weapons: [Weapon];
  steps: [Vec2];
  colors: [Color];
  held: Item;
  bag: [Item];
  empty: Nothing;
  chain: Node;
  inner: [ubyte] (nested_flatbuffer: "Weapon");
  extra: [ubyte] (flexbuffer);
}
root_type Save;
"""

# The same schema with a union member more: its buffers hold a member SCHEMA cannot name.
EVOLVED = SCHEMA.replace("Note: string }", "Note: string, Shield }").replace(
    "table Nothing {}", "table Nothing {}\ntable Shield { armor: int; }")

CODEC = interface.codec(SCHEMA)
DEFAULTS = interface.codec(SCHEMA, defaults_json=True)  # absent scalars with their defaults


def f32(value: float) -> float:
    """``value`` as a float32 holds it."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


FULL = {
    "id": 2**64 - 1, "tiny": -128, "small": 65535, "mid": -(2**31), "ratio": 0.1,
    "exact": 0.1, "alive": True, "hp": 7, "speed": 1.5, "level": 0, "color": "Blue",
    "flags": "Fire Poison", "pos": {"x": 1.5, "y": -2.25},
    "path": {"points": [1, -2, 3], "colors": ["Red", "Blue"],
             "ends": [{"x": 0.5, "y": 1}, {"x": 2, "y": 3}]},
    "name": "Zoë ✓ 𝄞", "tags": ["a", "é", ""], "inventory": [0, 255, 7],
    "weapons": [{"name": "axe", "damage": 5}, {"name": "bow"}], "steps": [{"x": 1, "y": 2}],
    "colors": ["Green", "Red"], "held_type": "Weapon", "held": {"name": "sword", "damage": 12},
    "bag_type": ["Pos", "Note", "Weapon"], "bag": [{"x": 1, "y": 2}, "hi ünï", {"name": "club"}],
    "empty": {}, "chain": {"label": "a", "next": {"label": "b"}},
    "inner": {"name": "dagger", "damage": 3}, "extra": {"a": [1, 2.5, "x", None, True]},
}

NO_MEMBER = {"Weapon": None, "Pos": None, "Note": None}

# The full record as pyarrow reads it back (enums as names).
FULL_ROW = {
    "key": "full", "id": 2**64 - 1, "tiny": -128, "small": 65535, "mid": -(2**31),
    "ratio": f32(0.1), "exact": 0.1, "alive": True, "hp": 7, "speed": 1.5, "level": 0,
    "color": "Blue", "flags": "Fire|Poison", "pos": {"x": 1.5, "y": -2.25},
    "path": {"points": [1, -2, 3], "colors": ["Red", "Blue"],
             "ends": [{"x": 0.5, "y": 1.0}, {"x": 2.0, "y": 3.0}]},
    "name": "Zoë ✓ 𝄞", "tags": ["a", "é", ""], "inventory": [0, 255, 7],
    "weapons": [{"name": "axe", "damage": 5}, {"name": "bow", "damage": 10}],
    "steps": [{"x": 1.0, "y": 2.0}], "colors": ["Green", "Red"],
    "held": {**NO_MEMBER, "type": "Weapon", "Weapon": {"name": "sword", "damage": 12}},
    "bag": [{**NO_MEMBER, "type": "Pos", "Pos": {"x": 1.0, "y": 2.0}},
            {**NO_MEMBER, "type": "Note", "Note": "hi ünï"},
            {**NO_MEMBER, "type": "Weapon", "Weapon": {"name": "club", "damage": 10}}],
    "empty": {"present": True}, "chain": {"label": "a", "next": '{"label":"b"}'},
    "inner": {"name": "dagger", "damage": 3}, "extra": '{"a":[1,2.5,"x",null,true]}',
}

# An empty table: every scalar reads as its default, the rest is null.
EMPTY_ROW = {
    **{name: None for name in FULL_ROW}, "key": "empty", "id": 0, "tiny": 0, "small": 0,
    "mid": 0, "ratio": 0.0, "exact": 0.0, "alive": False, "hp": 100, "speed": f32(3.14159),
    "color": "Green", "flags": "Ice",
}


def encode(record: dict[str, Any], schema: str = SCHEMA) -> bytes:
    return gameserde.codec("flatbuffers", schema=schema).from_json(json.dumps(record))


def not_utf8() -> bytes:
    """A buffer whose name holds a byte that is not UTF-8."""
    data = encode({"name": "BADNAME!"})
    return data.replace(b"BADNAME!", b"BAD\xffNAME")


def inputs() -> list[tuple[str, bytes]]:
    return [
        ("full", encode(FULL)),
        ("empty", encode({})),
        ("bad", b"\x08\x00\x00\x00garbage"),
        ("evolved", encode({"held_type": "Shield", "held": {"armor": 3}}, EVOLVED)),
        ("latin", not_utf8()),
    ]


def read(folder: Path) -> dict[str, dict[str, Any]]:
    table = pq.read_table(folder / "Game.Save")
    return {row["key"]: row for row in table.to_pylist()}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, batch.Summary]:
    out = tmp_path_factory.mktemp("fb")
    summary = batch.run("decode", inputs(), "flatbuffers", parquet=out, schema=SCHEMA)
    return out, summary


def test_every_record_is_a_row_with_its_decoded_values(
        dataset: tuple[Path, batch.Summary]) -> None:
    out, summary = dataset
    rows = read(out)
    assert sorted(rows) == ["empty", "evolved", "full", "latin"]  # the bad input has no row
    assert summary.failed == 1 and summary.failures[0].key == "bad"
    assert rows["full"] == FULL_ROW
    assert rows["empty"] == EMPTY_ROW


def test_columns_have_the_schemas_types(dataset: tuple[Path, batch.Summary]) -> None:
    out, _ = dataset
    types = {f.name: f.type for f in pq.read_schema(next((out / "Game.Save").glob("*.parquet")))}
    assert "old" not in types  # deprecated
    assert "held_type" not in types and "bag_type" not in types  # the unions' tags
    expected = {
        "key": pa.string(), "id": pa.uint64(), "tiny": pa.int8(), "small": pa.uint16(),
        "mid": pa.int32(), "ratio": pa.float32(), "exact": pa.float64(), "alive": pa.bool_(),
        "hp": pa.int16(), "speed": pa.float32(), "level": pa.int32(),
        "color": pa.dictionary(pa.int32(), pa.string()), "name": pa.string(),
        "tags": pa.list_(pa.string()), "inventory": pa.list_(pa.uint8()),
        "empty": pa.struct([("present", pa.bool_())]), "extra": pa.string(),
        "pos": pa.struct([("x", pa.float32()), ("y", pa.float32())]),
        "inner": pa.struct([("name", pa.string()), ("damage", pa.int16())]),
    }
    for name, t in expected.items():
        assert types[name] == t, name
    path = types["path"]
    assert [f.name for f in path] == ["points", "colors", "ends"]
    assert path.field("points").type.value_type == pa.int16()
    assert path.field("ends").type.value_type == expected["pos"]
    held = types["held"]
    assert [f.name for f in held] == ["type", "Weapon", "Pos", "Note"]
    assert held.field("type").type == pa.dictionary(pa.int32(), pa.string())
    assert types["bag"] == pa.list_(held)
    assert types["chain"].field("next").type == pa.json_(pa.string())  # Node inside Node


def test_duckdb_reads_the_dataset(dataset: tuple[Path, batch.Summary]) -> None:
    out, _ = dataset
    got = duckdb.sql(
        "select key, id, ratio, typeof(ratio), flags, held.type, held.Weapon.name, "
        "bag[2].Note, path.points, level, name, chain.next->>'$.label' "
        f"from '{out}/Game.Save/*.parquet' order by key").fetchall()
    assert got[0] == ("empty", 0, f32(0.0), "FLOAT", "Ice", None, None, None, None, None,
                      None, None)
    assert got[2] == ("full", 2**64 - 1, f32(0.1), "FLOAT", "Fire|Poison", "Weapon", "sword",
                      "hi ünï", [1, -2, 3], 0, "Zoë ✓ 𝄞", "b")
    assert duckdb.sql(f"select count(*) from '{out}/Game.Save/*.parquet' "
                      "where hp = 100 and speed > 3.14").fetchone() == (3,)


def test_a_member_the_schema_lacks_keeps_its_number(
        dataset: tuple[Path, batch.Summary]) -> None:
    out, _ = dataset
    assert read(out)["evolved"]["held"] == {**NO_MEMBER, "type": "4"}


def test_text_that_is_not_utf8_is_replaced_with_a_note(
        dataset: tuple[Path, batch.Summary]) -> None:
    out, summary = dataset
    assert read(out)["latin"]["name"] == "BAD\ufffdNAME"
    assert [key for key, _ in summary.notes] == ["latin"]
    assert "Game.Save.name" in summary.notes[0][1]
    with pytest.warns(GameserdeWarning, match="not valid UTF-8"):
        CODEC.to_row(CODEC.decode(not_utf8()))


def test_enums_as_integers(tmp_path: Path) -> None:
    batch.run("decode", inputs()[:2], "flatbuffers", parquet=tmp_path, parquet_enums="int",
              schema=SCHEMA)
    table = pq.read_table(tmp_path / "Game.Save")
    types = {f.name: f.type for f in table.schema}
    assert types["color"] == pa.uint8() and types["flags"] == pa.uint32()
    assert types["colors"] == pa.list_(pa.uint8())
    assert types["path"].field("colors").type.value_type == pa.uint8()
    rows = {row["key"]: row for row in table.to_pylist()}
    full = rows["full"]
    assert (full["color"], full["flags"], full["colors"]) == (8, 5, [1, 0])
    assert full["path"]["colors"] == [0, 8]
    assert full["held"]["type"] == "Weapon"  # a union's tag is the member's name
    assert (rows["empty"]["color"], rows["empty"]["flags"]) == (1, 2)  # the defaults


def test_the_row_model_drops_tags_and_deprecated_fields() -> None:
    row = CODEC.to_row(CODEC.decode(encode(FULL)))
    assert row.schema is not None
    assert row.name == "Game.Save"
    save = row.schema.types["Game.Save"]
    assert isinstance(save, Record)
    names = [f.name for f in save.fields]
    assert "old" not in names and "held_type" not in names and "held" in names
    assert row.value["held"] == ("Weapon", {"name": "sword", "damage": 12})
    assert row.value["bag"][1] == ("Note", "hi ünï")
    assert CODEC.to_row(CODEC.decode(encode({}))).schema is row.schema  # compiled once
    for record in (FULL, {}):  # decoded with the defaults or without: the same row
        data = encode(record)
        with_defaults = DEFAULTS.to_row(DEFAULTS.decode(data)).value
        assert with_defaults["speed"] == f32(3.14159 if record == {} else 1.5)
        assert not_null(with_defaults) == not_null(CODEC.to_row(CODEC.decode(data)).value)


def not_null(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` without its null fields (an absent field is missing or None)."""
    return {k: v for k, v in row.items() if v is not None}


def test_a_table_without_fields_is_present(tmp_path: Path) -> None:
    schema = "table Ping { gone: int (deprecated); } root_type Ping;"
    data = interface.codec(schema).from_json("{}")
    batch.run("decode", [("a", data)], "flatbuffers", schema=schema, parquet=tmp_path)
    assert pq.read_table(tmp_path / "Ping").to_pylist() == [{"key": "a", "present": True}]


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "id": st.integers(0, 2**64 - 1), "tiny": st.integers(-128, 127),
    "mid": st.integers(-(2**31), 2**31 - 1),
    "ratio": st.floats(width=32, allow_nan=False),
    "exact": st.floats(allow_nan=False), "level": st.integers(-(2**31), 2**31 - 1),
    "name": st.text(st.characters(exclude_categories=["Cs"])),
    "held": st.one_of(st.builds(lambda n: ("Note", n), st.text(max_size=5)),
                      st.builds(lambda n, d: ("Weapon", {"name": n, "damage": d}),
                                st.text(max_size=5), st.integers(-99, 99))),
}))
def test_random_records_read_back_as_decoded(record: dict[str, Any]) -> None:
    codec = CODEC
    given = dict(record)
    if "held" in given:
        given["held_type"], given["held"] = given["held"]
    data = codec.encode(given)
    table = table_of(["k"], [codec.to_row(codec.decode(data))])
    sink = io.BytesIO()
    pq.write_table(table, sink)
    back = pq.read_table(io.BytesIO(sink.getvalue())).to_pylist()[0]
    decoded = DEFAULTS.decode(data)
    for name in ("id", "tiny", "mid", "name", "level"):
        assert back[name] == decoded.get(name), name
    for name in ("ratio", "exact"):  # the same bits (-0.0 equals its default 0.0: absent)
        assert struct.pack("<d", back[name]) == struct.pack("<d", decoded[name]), name
    if "held" in record:
        member, value = record["held"]
        assert back["held"]["type"] == member
        assert back["held"][member] == value
    else:
        assert back["held"] is None


CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "flatbuffers-real"
CASES = ["fb_monsterdata_test", "fb_json_arrays_test", "fb_json_optional_scalars",
         "fb_json_union_vector", "fb_64bit", "fb_json_unicode_test", "arrow_nested_schema1",
         "tflite_hello_world_float"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not there")
@pytest.mark.parametrize("case", CASES)
def test_the_corpus_rows_hold_the_decoded_values(case: str, tmp_path: Path) -> None:
    """The root's scalars, strings, vectors of them and structs are the decoded ones (enums as
    integers, absent scalars with their defaults); unions have the members' names."""
    meta = json.loads((CORPUS / case / "meta.json").read_text())
    options = {"schema": str(CORPUS / case / meta["schema"]), "type": meta["root_type"],
               "include": [str(CORPUS / case / p) for p in meta["include_paths"]],
               "size_prefixed": meta["size_prefixed"]}
    data = (CORPUS / case / meta["buf"]).read_bytes()
    summary = batch.run("decode", [("a", data), ("b", data[:7])], "flatbuffers",
                        parquet=tmp_path, parquet_enums="int", **options)
    assert summary.ok == 1 and summary.failures[0].key == "b"
    codec = interface.codec(defaults_json=True, **options)
    decoded = codec.decode(data)
    (folder,) = tmp_path.iterdir()
    assert folder.name == codec.root
    (back,) = pq.read_table(folder).to_pylist()
    assert back["key"] == "a"
    model = codec.schema.schema
    root = model.types[codec.root]
    assert isinstance(root, Record)
    compared = 0
    for f in root.fields:
        value = decoded.get(f.name)
        if f.name not in back or value is None:
            continue
        tag = f.attributes.get("flatbuffers.union_type_field")
        if tag is not None:
            ref = f.type.element if isinstance(f.type, List) else f.type
            union = model.types[ref.name]  # type: ignore[union-attr]
            assert isinstance(union, Union)
            tags = decoded[tag] if isinstance(f.type, List) else [decoded[tag]]
            picked = back[f.name] if isinstance(f.type, List) else [back[f.name]]
            members = [union.member_of(t) for t in tags]
            assert [p["type"] for p in picked] == [m and m[0] for m in members]
        elif _is_struct(model, f.type) or _scalars(value):
            if f.type == FLOAT32:  # a default is the schema's double: a float32 column
                value = f32(value)  # holds it rounded
            got = back[f.name]
            assert got == value or (value != value and got != got), f.name  # nan is nan
        else:
            continue
        compared += 1
    assert compared > 0


def _scalars(value: Any) -> bool:
    """Whether ``value`` is a scalar or a string, or a list of them."""
    if isinstance(value, list):
        return all(_scalars(x) and not isinstance(x, list) for x in value)
    return isinstance(value, int | float | str)


def _is_struct(model: Schema, t: Type) -> bool:
    """Whether ``t`` is a struct or a vector of structs."""
    if isinstance(t, List):
        t = t.element
    named = model.types.get(t.name) if isinstance(t, Ref) else None
    return isinstance(named, Record) and named.kind == "struct"
