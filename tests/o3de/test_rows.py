"""O3DE documents in Parquet datasets (``O3deCodec.to_row``, :mod:`gameserde.o3de.rows`):
batches over documents of a registry with every kind of O3DE type and over real prefabs,
materials and settings files, read back with pyarrow and DuckDB and compared with the decoded
values, exact types included; enums as names and as integers; unions as tagged structs and,
past 64 members or inside themselves, as JSON; documents without a type as a JSON column;
what the model cannot type kept as JSON text, and what a row cannot hold reported."""

from __future__ import annotations

import base64
import json
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gameserde
from gameserde import batch, o3de
from gameserde.batch.parquet import table_of
from gameserde.codecs import Row
from gameserde.errors import GameserdeWarning
from gameserde.o3de import AnyValue, JsonPairs, Registry
from gameserde.o3de.rows import PRESENT, UNCHECKED, row_model
from gameserde.o3de.values import Color, Matrix3x4, Quaternion, Transform, Vector2, Vector3
from gameserde.schema import model as m
from gameserde.schema.arrow import MAX_UNION
from tests.conformance.corpus import corpus_dir, require

DATA = Path(__file__).parent / "data"
CORPUS = corpus_dir("o3de-real")
SCHEMA = "tests.o3de.test_rows:registry"


def registry() -> Registry:
    """Every kind of type a registry has: numbers of each width, strings, uuids, enums, math
    types, classes with single and multiple inheritance (a field name repeated), a class
    without fields, pointers (plain, polymorphic, shared), containers, pairs and tuples, maps
    with text, number, enum and structured keys, any, byte streams and paths."""
    reg = Registry()
    reg.add_enum("Kind", [("Stone", 0), ("Wood", 1), ("Glass", 200)], underlying="uint8")
    reg.add_enum("Layer", [("Below", -5), ("Ground", 0), ("Above", 7)], underlying="int16")
    reg.add_class("Base", None, [("base_var", "float", -42.0)])
    reg.add_class("Base2", None, [("base2_var", "double", 1.5)])
    reg.add_class("Derived", None, [("derived_var", "int32", 3)], bases=["Base"])
    reg.add_class("Multi", None, [("base_var", "uint8", 1), ("multi_var", "string", "")],
                  bases=["Base", "Base2"])
    reg.add_class("Empty", None, [])
    reg.add_class("Doc", None, [
        ("flag", "bool"), ("i8", "int8"), ("u8", "uint8"), ("i16", "int16"), ("u16", "uint16"),
        ("i32", "int32"), ("u32", "uint32"), ("i64", "int64"), ("u64", "uint64"),
        ("f32", "float"), ("f64", "double"), ("text", "string"), ("name", "AZ::Name"),
        ("id", "AZ::Uuid"), ("kind", "Kind"), ("layer", "Layer"),
        ("v2", "Vector2"), ("v3", "Vector3"), ("rot", "Quaternion"), ("color", "Color"),
        ("m34", "Matrix3x4"), ("xform", "Transform"), ("nested", "Base"), ("empty", "Empty"),
        ("int_ptr", "int32*"), ("base_ptr", "Base*"), ("derived_ptr", "shared_ptr<Derived>"),
        ("numbers", "vector<int32>"), ("tags", "set<int32>"), ("small", "fixed_vector<float,4>"),
        ("triple", "array<int32,3>"), ("pair", "pair<int32,string>"),
        ("tuple", "tuple<bool,double,Vector3>"), ("scores", "map<string,double>"),
        ("by_id", "unordered_map<int32,Base>"), ("multi", "multimap<string,int32>"),
        ("by_kind", "map<Kind,string>"), ("by_pair", "map<pair<int32,int32>,string>"),
        ("held", "any"), ("blob", "vector<unsigned char>"), ("path", "AZ::IO::Path"),
        ("grid", "vector<vector<Base*>>"),
    ])
    return reg


REG = registry()


def _new(class_name: str, /, **fields: Any) -> Any:
    value = REG.create(REG.resolve(class_name))
    for key, item in fields.items():
        setattr(value, key, item)
    return value


def documents() -> list[tuple[str, bytes]]:
    """Three documents of ``Doc`` (written by the codec) and one that is not JSON."""
    codec = gameserde.codec("o3de", schema=REG, type="Doc")
    full = _new(
        "Doc", flag=True, i8=-128, u8=255, i16=-32768, u16=65535, i32=-2**31, u32=2**32 - 1,
        i64=-2**63, u64=2**64 - 1, f32=0.1, f64=0.1, text="héllo ✓ 世界 🎲", name="Näme",
        id=UUID("0a1b2c3d-0000-4000-8000-00000000abcd"), kind=200, layer=-5,
        v2=Vector2(1.5, 2.5), v3=Vector3(1, 2, 3), rot=Quaternion(0, 0, 0.7071068, 0.7071068),
        color=Color(1, 0.5, 0.25, 1), m34=Matrix3x4(tuple(float(i) for i in range(12))),
        xform=Transform(Vector3(1, 2, 3), Quaternion(), 2.0), nested=_new("Base", base_var=7.0),
        int_ptr=5, base_ptr=_new("Multi", multi_var="m", base_var=9),
        derived_ptr=_new("Derived", derived_var=11), numbers=[1, 2, 3], tags={3, 1, 2},
        small=[1.0, 2.0], triple=[7, 8, 9], pair=(1, "one"), tuple=(True, 2.5, Vector3(0, 1, 0)),
        scores={"a": 1.0, "b": -2.0}, by_id={4: _new("Base", base_var=4.0)},
        multi=[("k", 1), ("k", 2)], by_kind={1: "wood", 200: "glass"}, by_pair={(1, 2): "x"},
        held=AnyValue("Vector3", Vector3(1, 2, 3)), blob=b"\x00\xffbytes", path="a/b/c.txt",
        grid=[[None, _new("Derived", derived_var=5)], []])
    plain = _new("Doc", held=AnyValue("AZ::u64", 2**64 - 2), base_ptr=_new("Derived"),
                 text="", kind=7)
    nested = _new("Doc", held=AnyValue("Doc", _new("Doc", text="inner")), u64=2**63)
    return [("full.json", codec.encode(full)), ("plain.json", codec.encode(plain)),
            ("nested.json", codec.encode(nested)), ("bad.json", b"{not json")]


# ---------------------------------------------------------------------------------------------
# What pyarrow reads back for a row value: the rules of gameserde.schema.arrow, written again


def _jsonable(schema: m.Schema, t: Any, v: Any, enums: str) -> Any:
    if v is None:
        return None
    if isinstance(t, m.Optional):
        return _jsonable(schema, t.inner, v, enums)
    if isinstance(t, m.List | m.Set):
        return [_jsonable(schema, t.element, x, enums) for x in v]
    if isinstance(t, m.Map):
        return [[_jsonable(schema, t.key, a, enums), _jsonable(schema, t.value, b, enums)]
                for a, b in v]
    if isinstance(t, m.Bytes):
        return base64.b64encode(v).decode("ascii")
    if not isinstance(t, m.Ref):
        return v
    named = schema.types[t.name]
    if isinstance(named, m.Enum):
        return v if enums == "int" else named.name_of(v) or str(v)
    if isinstance(named, m.Record):
        return {f.name: _jsonable(schema, f.type, v.get(f.name), enums)
                for f in schema.fields_of(named) if f.name in v}
    assert isinstance(named, m.Union)
    name, inner = v
    return {"type": name, "value": _jsonable(schema, named.members[name][1], inner, enums)}


def expected(schema: m.Schema, t: Any, v: Any, enums: str = "name",
             expanding: tuple[str, ...] = ()) -> Any:
    """The Python value pyarrow reads back for the row form ``v`` of ``t``."""
    if v is None:
        return None
    if isinstance(t, m.Optional):
        return expected(schema, t.inner, v, enums, expanding)
    if isinstance(t, m.List | m.Set):
        return [expected(schema, t.element, x, enums, expanding) for x in v]
    if isinstance(t, m.Map):
        key = schema.resolve(t.key)
        pairs = [(expected(schema, t.key, a, enums, expanding),
                  expected(schema, t.value, b, enums, expanding)) for a, b in v]
        if isinstance(key, m.Int | m.Float | m.Bool | m.String | m.Bytes | m.Enum):
            return pairs
        return [{"key": a, "value": b} for a, b in pairs]
    if not isinstance(t, m.Ref):
        return v
    named = schema.types[t.name]
    if isinstance(named, m.Enum):
        return v if enums == "int" else named.name_of(v) or str(v)
    if named.name in expanding or (isinstance(named, m.Union)
                                   and len(named.members) > MAX_UNION):
        return ("json", _jsonable(schema, t, v, enums))
    inner = (*expanding, named.name)
    if isinstance(named, m.Record):
        return {f.name: expected(schema, f.type, v.get(f.name), enums, inner)
                for f in schema.fields_of(named)}
    assert isinstance(named, m.Union)
    name, value = v
    out: dict[str, Any] = {"type": name}
    out.update((member, None) for member in named.members)
    out[name] = expected(schema, named.members[name][1], value, enums, inner)
    return out


def same(found: Any, want: Any) -> bool:
    """``found`` (read back) equals ``want`` (from :func:`expected`), JSON columns parsed."""
    if isinstance(want, tuple) and len(want) == 2 and want[0] == "json":
        return isinstance(found, str) and json.loads(found) == want[1]
    if isinstance(want, dict):
        return isinstance(found, dict) and found.keys() == want.keys() and all(
            same(found[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(found, list) and len(found) == len(want) and all(
            same(a, b) for a, b in zip(found, want, strict=True))
    if isinstance(want, tuple):
        return isinstance(found, tuple) and same(list(found), list(want))
    return type(found) is type(want) and found == want


def decoded_rows(inputs: list[tuple[str, bytes]], **options: Any) -> dict[str, Row]:
    """Each input's row, decoded one by one (None-free: inputs that fail are left out)."""
    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)
        for key, data in inputs:
            codec = gameserde.codec("o3de", **{"source": key, **options})
            try:
                row = codec.to_row(codec.decode(data))
            except gameserde.errors.DecodeError:
                continue
            assert row is not None
            rows[key] = row
    return rows


def check_table(folder: Path, rows: dict[str, Row], enums: str = "name") -> pa.Table:
    """The table in ``folder`` has one row per row of ``rows`` (by key), each equal to what
    its row form becomes."""
    table = pq.read_table(folder)
    found = {r["key"]: r for r in table.to_pylist()}
    assert set(found) == set(rows)
    for key, row in rows.items():
        assert row.schema is not None and row.type is not None
        want = expected(row.schema, row.type, row.value, enums)
        got = {k: v for k, v in found[key].items() if k != "key"}
        assert same(got, want), key
    return table


# ---------------------------------------------------------------------------------------------
# Every kind of type


@pytest.fixture(scope="module")
def doc_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("doc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)
        summary = batch.run("decode", documents(), "o3de", parquet=out, schema=SCHEMA,
                            type="Doc")
    assert summary.ok == 3 and [f.key for f in summary.failures] == ["bad.json"]
    return out


def test_every_type_reads_back_exactly(doc_dataset: Path) -> None:
    rows = decoded_rows(documents(), schema=REG, type="Doc")
    assert sorted(rows) == ["full.json", "nested.json", "plain.json"]
    assert [p.name for p in doc_dataset.iterdir()] == ["Doc"]
    table = check_table(doc_dataset / "Doc", rows)
    schema = table.schema
    widths = {"i8": pa.int8(), "u8": pa.uint8(), "i16": pa.int16(), "u16": pa.uint16(),
              "i32": pa.int32(), "u32": pa.uint32(), "i64": pa.int64(), "u64": pa.uint64(),
              "f32": pa.float32(), "f64": pa.float64(), "flag": pa.bool_(),
              "text": pa.string(), "id": pa.string(), "blob": pa.binary(),
              "path": pa.string(), "numbers": pa.list_(pa.int32()),
              "tags": pa.list_(pa.int32()), "small": pa.list_(pa.float32()),
              "scores": pa.map_(pa.string(), pa.float64()),
              "by_kind": pa.map_(pa.string(), pa.string()),
              "v3": pa.struct([("x", pa.float32()), ("y", pa.float32()), ("z", pa.float32())]),
              "empty": pa.struct([(PRESENT, pa.bool_())])}
    for name, arrow in widths.items():
        assert schema.field(name).type == arrow, name
    assert pa.types.is_dictionary(schema.field("kind").type)
    assert schema.field("pair").type == pa.struct([("0", pa.int32()), ("1", pa.string())])
    assert schema.field("by_pair").type.value_type.names == ["key", "value"]
    assert schema.field("base_ptr").type.names == ["type", "Base", "Derived", "Multi"]
    assert schema.field("derived_ptr").type.names == ["derived_var", "base_var"][::-1]
    assert schema.field("held").type.names[0] == "type"
    assert schema.field("m34").type.field("elements").type == pa.list_(pa.float32())
    full = {r["key"]: r for r in table.to_pylist()}["full.json"]
    assert full["u64"] == 2**64 - 1 and full["f32"] == 0.10000000149011612
    assert full["text"] == "héllo ✓ 世界 🎲" and full["id"] == (
        "{0A1B2C3D-0000-4000-8000-00000000ABCD}")
    assert full["kind"] == "Glass" and full["layer"] == "Below" and full["tags"] == [1, 2, 3]
    assert full["base_ptr"]["type"] == "Multi" and full["base_ptr"]["Multi"] == {
        "base_var": -42.0, "base2_var": 1.5, "base_var_2": 9, "multi_var": "m"}
    assert full["held"]["type"] == "Vector3" and full["by_kind"] == [("Wood", "wood"),
                                                                      ("Glass", "glass")]
    assert full["empty"] == {PRESENT: True} and full["blob"] == b"\x00\xffbytes"
    assert full["xform"] == {"translation": {"x": 1.0, "y": 2.0, "z": 3.0},
                             "rotation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}, "scale": 2.0}
    assert full["rot"]["z"] == full["rot"]["w"] == 0.7071068286895752
    assert full["pair"] == {"0": 1, "1": "one"} and full["tuple"] == {
        "0": True, "1": 2.5, "2": {"x": 0.0, "y": 1.0, "z": 0.0}}
    assert full["multi"] == [("k", 1), ("k", 2)]
    assert full["by_pair"] == [{"key": {"0": 1, "1": 2}, "value": "x"}]
    assert full["by_id"] == [(4, {"base_var": 4.0})]
    assert full["grid"] == [[None, {"type": "Derived", "Base": None, "Derived": {
        "base_var": -42.0, "derived_var": 5}, "Multi": None}], []]
    assert full["derived_ptr"] == {"base_var": -42.0, "derived_var": 11}


def test_duckdb_reads_the_same(doc_dataset: Path) -> None:
    glob = f"{doc_dataset}/Doc/*.parquet"
    found = duckdb.sql(
        f"select key, u64, typeof(u64), f32, typeof(f32), i8, typeof(i8), kind, text, "
        f"base_ptr.type, held.type, held.\"AZ::u64\", scores['b'], triple, int_ptr, m34 "
        f"from '{glob}' order by key").fetchall()
    assert [r[0] for r in found] == ["full.json", "nested.json", "plain.json"]
    full, nested, plain = found
    assert full[1:7] == (2**64 - 1, "UBIGINT", pytest.approx(0.1, rel=1e-7), "FLOAT", -128,
                         "TINYINT")
    assert full[7:10] == ("Glass", "héllo ✓ 世界 🎲", "Multi")
    assert full[10:] == ("Vector3", None, -2.0, [7, 8, 9], 5,
                         {"elements": [float(i) for i in range(12)]})
    assert nested[1] == 2**63 and nested[10] == "Doc"
    assert plain[7] == "7" and plain[9] == "Derived" and plain[10:13] == ("AZ::u64", 2**64 - 2,
                                                                         None)
    assert plain[14] is None
    inner = duckdb.sql(f"select held.\"Doc\"->>'$.text' from '{glob}' where key = "
                       "'nested.json'").fetchone()
    assert inner == ("inner",)


def test_enums_as_integers(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)
        with ThreadPoolExecutor(2) as pool:
            batch.run("decode", documents(), "o3de", parquet=tmp_path, parquet_enums="int",
                      executor=pool, schema=REG, type="Doc")
    rows = decoded_rows(documents(), schema=REG, type="Doc")
    table = check_table(tmp_path / "Doc", rows, enums="int")
    assert table.schema.field("kind").type == pa.uint8()
    assert table.schema.field("layer").type == pa.int16()
    assert table.schema.field("by_kind").type == pa.map_(pa.uint8(), pa.string())
    assert duckdb.sql(f"select kind, layer from '{tmp_path}/Doc/*.parquet' where key = "
                      "'full.json'").fetchone() == (200, -5)


def test_model_of_the_registry() -> None:
    model = row_model(REG, "Doc")
    assert model.name == "Doc" and model.type == m.Ref("Doc")
    assert row_model(REG, "Doc") is model  # made once
    doc = model.schema["Doc"]
    assert isinstance(doc, m.Record)
    types = {f.name: f.type for f in doc.fields}
    assert types["u64"] == m.UINT64 and types["f32"] == m.FLOAT32 and types["id"] == m.STRING
    assert types["triple"] == m.List(m.INT32, 3) and types["tags"] == m.Set(m.INT32)
    assert types["int_ptr"] == m.Optional(m.INT32)
    assert types["derived_ptr"] == m.Optional(m.Ref("Derived"))
    assert types["base_ptr"] == m.Ref("Base*") and types["held"] == m.Ref("AZStd::any")
    held = model.schema["AZStd::any"]
    assert isinstance(held, m.Union) and len(held.members) <= MAX_UNION
    assert {"int", "Vector3", "Doc", "vector<int>"} <= set(held.members)
    assert model.schema["AZ::Transform"] == m.Record("AZ::Transform", (
        m.Field("translation", m.Ref("AZ::Vector3")), m.Field("rotation", m.Ref("AZ::Quaternion")),
        m.Field("scale", m.FLOAT32)), kind="math")


def test_a_class_inside_itself_is_json(tmp_path: Path) -> None:
    reg = Registry()
    reg.add_class("Node", None, [("label", "string"), ("children", "vector<Node*>")])
    reg.add_class("Leaf", None, [("weight", "int32")], bases=["Node"])
    text = (b'{"label": "root", "children": [{"label": "a"}, '
            b'{"$type": "Leaf", "weight": 3, "children": [null]}]}')
    with ThreadPoolExecutor(1) as pool:
        batch.run("decode", [("tree", text)], "o3de", parquet=tmp_path, executor=pool,
                  schema=reg, type="Node")
    rows = decoded_rows([("tree", text)], schema=reg, type="Node")
    table = check_table(tmp_path / "Node", rows)
    children = table.schema.field("children").type.value_type
    assert children.names == ["type", "Node", "Leaf"]
    assert children.field("Node").type == pa.json_(pa.string())
    found = table.to_pylist()[0]["children"]
    assert json.loads(found[0]["Node"]) == {"label": "a", "children": []}
    assert found[1]["Leaf"] == {"label": "", "children": [None], "weight": 3}


_SCALARS = {"i8": st.integers(-2**7, 2**7 - 1), "u8": st.integers(0, 2**8 - 1),
            "i16": st.integers(-2**15, 2**15 - 1), "u16": st.integers(0, 2**16 - 1),
            "i32": st.integers(-2**31, 2**31 - 1), "u32": st.integers(0, 2**32 - 1),
            "i64": st.integers(-2**63, 2**63 - 1), "u64": st.integers(0, 2**64 - 1),
            "f32": st.floats(width=32, allow_nan=False).map(float),
            "f64": st.floats(allow_nan=False),
            "text": st.text(st.characters(exclude_categories=["Cs"]), max_size=8),
            "flag": st.booleans(), "kind": st.sampled_from([0, 1, 200]),
            "numbers": st.lists(st.integers(-2**31, 2**31 - 1), max_size=3),
            "scores": st.dictionaries(st.text(max_size=3), st.floats(allow_nan=False), max_size=3)}
_HELD = st.sampled_from([AnyValue(), AnyValue("int", -3),
                         AnyValue("Vector3", Vector3(1.0, 2.0, 3.0)),
                         AnyValue("AZ::u64", 2**64 - 1), AnyValue("Base", _new("Base"))])
_POINTED = st.sampled_from([None, "Base", "Derived", "Multi"]).map(
    lambda name: None if name is None else _new(name))


@settings(max_examples=25, deadline=None)
@given(st.fixed_dictionaries(_SCALARS), _HELD, _POINTED)
def test_random_values_read_back(scalars: dict[str, Any], held: AnyValue, pointed: Any) -> None:
    value = _new("Doc", held=held, base_ptr=pointed, **scalars)
    row = o3de.codec(registry=REG, type="Doc").to_row(value)
    assert row.schema is not None and row.type is not None
    for name, item in scalars.items():
        assert same(row.value[name], item if name != "scores" else list(item.items())), name
    sink = pa.BufferOutputStream()
    pq.write_table(table_of(["k"], [row]), sink)
    found = pq.read_table(pa.BufferReader(sink.getvalue())).to_pylist()[0]
    del found["key"]
    assert same(found, expected(row.schema, row.type, row.value))
    assert found["f32"] == scalars["f32"] and type(found["u64"]) is int


# ---------------------------------------------------------------------------------------------
# Real documents: prefabs and materials typed by the engine registry, settings as JSON


def _real_inputs() -> list[tuple[str, bytes]]:
    paths = sorted(DATA.glob("*.*"))
    if CORPUS.is_dir():
        for pattern, count in (("*/*.prefab", 6), ("*/*.material", 4), ("*/*.setreg", 4),
                               ("*/*.pass", 2)):
            found = sorted(CORPUS.glob(pattern))
            paths += found[::max(1, len(found) // count)][:count]
    return [(f"{p.parent.name}/{p.name}", p.read_bytes()) for p in paths]


@pytest.fixture(scope="module")
def real_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    require(CORPUS, "O3DE")
    inputs = _real_inputs()
    inputs.append(("broken/broken.prefab", b"{\"Source\": "))
    out = tmp_path_factory.mktemp("real")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)
        summary = batch.run("decode", inputs, "o3de", parquet=out)
    assert "broken/broken.prefab" in [f.key for f in summary.failures]
    return out, inputs


def test_real_documents(real_dataset: tuple[Path, list[Any]]) -> None:
    out, inputs = real_dataset
    rows = decoded_rows(inputs)
    assert "broken/broken.prefab" not in rows
    by_table: dict[str, dict[str, Row]] = {}
    for key, row in rows.items():
        by_table.setdefault(row.name, {})[key] = row
    assert {"AzToolsFramework::Prefab::Instance", "AZ::RPI::MaterialSourceData",
            "value"} <= set(by_table)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["AzToolsFramework_Prefab_Instance", "AZ_RPI_MaterialSourceData", "value"])
    prefabs = check_table(out / "AzToolsFramework_Prefab_Instance",
                          by_table["AzToolsFramework::Prefab::Instance"])
    check_table(out / "AZ_RPI_MaterialSourceData", by_table["AZ::RPI::MaterialSourceData"])
    entity = prefabs.schema.field("ContainerEntity").type
    assert entity.names == ["Id", "Name", "Components", "IsRuntimeActive"]
    component = entity.field("Components").type.item_type
    assert component.names[0] == "type" and UNCHECKED in component.names
    transform = component.field("AzToolsFramework::Components::TransformComponent").type
    assert transform.field("Id").type == pa.uint64()
    texts = pq.read_table(out / "value")
    assert texts.schema.field("value").type == pa.json_(pa.string())
    found = {r["key"]: json.loads(r["value"]) for r in texts.to_pylist()}
    assert found == {k: r.value for k, r in by_table["value"].items()}
    assert all(r.schema is None and r.type is None for r in by_table["value"].values())


def test_real_documents_in_duckdb(real_dataset: tuple[Path, list[Any]]) -> None:
    out, _ = real_dataset
    glob = f"{out}/AzToolsFramework_Prefab_Instance/*.parquet"
    ids = duckdb.sql(
        "select c.value.\"AzToolsFramework::Components::TransformComponent\".Id as id "
        f"from (select unnest(map_entries(ContainerEntity.Components)) as c from '{glob}') "
        "where c.value.type = 'AzToolsFramework::Components::TransformComponent'").fetchall()
    assert ids and all(isinstance(i, int) and i > 0 for (i,) in ids)
    assert any(i >= 2**63 for (i,) in ids)
    name = duckdb.sql(f"select ContainerEntity.Name from '{glob}' where key = "
                      "'data/courtyard.prefab'").fetchone()
    assert name is not None and name[0]
    setreg = duckdb.sql(f"select count(*) from '{out}/value/*.parquet' where "
                        "json_type(value) = 'OBJECT'").fetchone()
    assert setreg is not None and setreg[0] > 0


def test_unknown_component_kept_as_json() -> None:
    text = json.dumps({"ContainerEntity": {"Id": "ContainerEntity", "Components": {
        "Odd": {"$type": "NoSuchComponent", "Id": 5, "Level": [1, 2]}}}, "Entities": {}})
    codec = o3de.codec(source="odd.prefab")
    with pytest.warns(GameserdeWarning, match="NoSuchComponent"):
        value = codec.decode(text.encode())
    row = codec.to_row(value)
    odd = dict(row.value["ContainerEntity"]["Components"])["Odd"]
    assert odd[0] == UNCHECKED
    assert json.loads(odd[1]) == {"$type": "NoSuchComponent", "Id": 5, "Level": [1, 2]}


# ---------------------------------------------------------------------------------------------
# What a row cannot hold is reported


def test_settings_rows_report_what_they_change() -> None:
    codec = o3de.codec(source="a.setreg")
    with pytest.warns(GameserdeWarning, match="repeated"):
        row = codec.to_row(JsonPairs([("a", 1), ("b", JsonPairs([("x", "é"), ("x", 2)]))]))
    assert row == Row("value", None, None, {"a": 1, "b": {"x": 2}})
    with pytest.warns(GameserdeWarning, match="repeated"):
        row = codec.to_row(codec.decode(b'{"a": {"x": [1], "y": 0, "x": "two"}}'))
    assert row.value == {"a": {"x": "two", "y": 0}}
    with pytest.warns(GameserdeWarning, match="not UTF-8"):
        row = codec.to_row(codec.decode(b'{"k": "a\xff b"}'))
    assert row.value == {"k": "a\ufffd b"}


def test_typed_rows_report_what_they_leave_out() -> None:
    codec = o3de.codec(registry=REG, type="Doc")
    doc = _new("Doc", held=AnyValue("NotAType", 1))
    with pytest.warns(GameserdeWarning, match="NotAType"):
        row = codec.to_row(doc)
    assert row.value["held"] is None
    with pytest.warns(GameserdeWarning, match="not UTF-8"):
        row = codec.to_row(codec.decode('{"text": "a\udcff"}'.encode("utf-8", "surrogateescape")))
    assert row.value["text"] == "a\ufffd"
