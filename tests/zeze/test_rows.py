"""Zeze beans and frames in Parquet datasets (``ZezeCodec.to_row``, :mod:`gameserde.zeze.rows`):
batches over a solution with every kind of Zeze type, read back with pyarrow and DuckDB and
compared with the decoded values, exact types included; frames with their family as an enum;
kept unknown fields; dataclass schemas; random solutions always give a table Parquet keeps."""

from __future__ import annotations

import decimal
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import batch, zeze
from gameserde.batch.parquet import table_of
from gameserde.zeze import Dynamic, FrozenBean, UnknownField
from gameserde.zeze.frames import encode_frame
from gameserde.zeze.python import int32, vector2

from . import strategies

SOLUTION = """<solution name="t">
  <external bean="Ext.BBlob"/>
  <module name="m" id="3">
    <beankey name="BKey">
      <variable id="1" name="a" type="int"/>
      <variable id="2" name="b" type="string"/>
    </beankey>
    <bean name="BItem">
      <variable id="1" name="id" type="int"/>
      <variable id="2" name="note" type="string"/>
    </bean>
    <bean name="BBase"><variable id="1" name="baseId" type="long"/></bean>
    <bean name="BChild" base="BBase"><variable id="1" name="extra" type="short"/></bean>
    <bean name="BCat"><variable id="1" name="lives" type="byte"/></bean>
    <bean name="BEmpty"/>
    <bean name="BNode">
      <variable id="1" name="label" type="string"/>
      <variable id="2" name="children" type="list[BNode]"/>
    </bean>
    <bean name="BAll">
      <variable id="1" name="flag" type="bool"/>
      <variable id="2" name="i8" type="byte"/>
      <variable id="3" name="i16" type="short"/>
      <variable id="4" name="i32" type="int"/>
      <variable id="5" name="i64" type="long"/>
      <variable id="6" name="f32" type="float"/>
      <variable id="7" name="f64" type="double"/>
      <variable id="8" name="raw" type="binary"/>
      <variable id="9" name="text" type="string"/>
      <variable id="10" name="money" type="decimal"/>
      <variable id="11" name="v2" type="vector2"/>
      <variable id="12" name="v3" type="vector3"/>
      <variable id="13" name="v4" type="vector4"/>
      <variable id="14" name="rot" type="quaternion"/>
      <variable id="15" name="v2i" type="vector2int"/>
      <variable id="16" name="v3i" type="vector3int"/>
      <variable id="17" name="ints" type="list[int]"/>
      <variable id="18" name="names" type="array[string]"/>
      <variable id="19" name="ids" type="set[long]"/>
      <variable id="20" name="scores" type="map[string,long]"/>
      <variable id="21" name="byKey" type="map[BKey,BItem]"/>
      <variable id="22" name="keys" type="set[BKey]"/>
      <variable id="23" name="items" type="list[BItem]"/>
      <variable id="24" name="pet" type="dynamic">
        <value bean="BCat:1"/>
        <value bean="BChild:7"/>
      </variable>
      <variable id="25" name="child" type="BChild"/>
      <variable id="26" name="empty" type="BEmpty"/>
      <variable id="27" name="blob" type="Ext.BBlob"/>
      <variable id="28" name="tree" type="BNode"/>
      <variable id="29" name="grid" type="gtable[int,string,long]"/>
      <variable id="30" name="cache" type="int" transient="true"/>
    </bean>
    <protocol name="PHello" id="1" argument="BItem"/>
    <protocol name="PPing" id="2"/>
    <rpc name="RGet" id="3" argument="BKey" result="BAll"/>
  </module>
</solution>
"""

TABLE = "t.m.BAll"
NONE = None  # a bean's $unknown column when it keeps no unknown field


def f32(x: float) -> float:
    """``x`` rounded to float32, as a float field holds it."""
    value: float = struct.unpack("<f", struct.pack("<f", x))[0]
    return value


FULL = {
    "flag": True, "i8": -128, "i16": 32767, "i32": -(2**31), "i64": -(2**63),
    "f32": f32(0.1), "f64": 0.1, "raw": b"\x00\xff\x80", "text": "Knïght 汉字 \U0001f600",
    "money": decimal.Decimal("-12345678901234567890.000001"),
    "v2": (1.5, -2.0), "v3": (f32(0.3), 0.0, 1e30), "v4": (1.0, 2.0, 3.0, 4.0),
    "rot": (0.0, 0.0, 0.0, 1.0), "v2i": (-1, 2**31 - 1), "v3i": (1, 2, 3),
    "ints": [1, -1, 2**31 - 1], "names": ["a", "é"], "ids": [2**63 - 1, 5],
    "scores": {"str": 18, "汉": -(2**63)},
    "byKey": {FrozenBean({"a": 1, "b": "x"}): {"id": 7, "note": "seven"}},
    "keys": [FrozenBean({"a": 2, "b": "y"})],
    "items": [{"id": 1, "note": "one"}, {"id": 2}],
    "pet": Dynamic("BChild", {"baseId": 9, "extra": -3}),
    "child": {"baseId": 2**40, "extra": 12},
    "blob": {"$unknown": [UnknownField(1, 4, bytes.fromhex("200102"))]},
    "tree": {"label": "root", "children": [{"label": "leaf", "children": []}]},
    "grid": {5: {"Map1": {"c": 6}}},
    "$unknown": [UnknownField(40, 3, bytes.fromhex("0161"))],
}
"""Every field given; extreme integers, non-ASCII text, kept unknown fields."""

UNKNOWN = [{"id": 40, "wire_type": 3, "data": bytes.fromhex("0161")}]

SCALAR_TYPES = {
    "key": pa.string(), "flag": pa.bool_(), "i8": pa.int8(), "i16": pa.int16(),
    "i32": pa.int32(), "i64": pa.int64(), "f32": pa.float32(), "f64": pa.float64(),
    "raw": pa.binary(), "text": pa.string(), "money": pa.string(),
    "v2": pa.struct([("x", pa.float32()), ("y", pa.float32())]),
    "v3i": pa.struct([("x", pa.int32()), ("y", pa.int32()), ("z", pa.int32())]),
    "ints": pa.list_(pa.int32()), "names": pa.list_(pa.string()), "ids": pa.list_(pa.int64()),
    "scores": pa.map_(pa.string(), pa.int64()),
}


@pytest.fixture(scope="module")
def schema_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("zeze") / "t.xml"
    path.write_text(SOLUTION, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def schema(schema_path: Path) -> zeze.ZezeSchema:
    return zeze.load_schema(schema_path)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory, schema_path: Path,
            schema: zeze.ZezeSchema) -> tuple[Path, dict[str, Any]]:
    """A batch over a full bean, an empty one (``00``: every field zero) and bad bytes."""
    out = tmp_path_factory.mktemp("parquet")
    codec = schema.codec("BAll")
    inputs = [("full", codec.encode(FULL)), ("bad", b"\x05\x01"), ("zero", b"\x00")]
    summary = batch.run("decode", inputs, "zeze", parquet=out, schema=str(schema_path),
                        type="BAll")
    assert (summary.inputs, len(summary.failures)) == (3, 1)
    assert summary.failures[0].key == "bad"
    return out, {key: codec.decode(data) for key, data in inputs if key != "bad"}


def read(out: Path, table: str = TABLE) -> dict[str, dict[str, Any]]:
    t = pq.read_table(out / table)
    return {row["key"]: row for row in t.to_pylist()}


def test_columns_have_the_zeze_types(dataset: tuple[Path, dict[str, Any]]) -> None:
    out, _ = dataset
    t = pq.read_table(out / TABLE)
    assert t.column_names[:4] == ["key", "flag", "i8", "i16"]
    assert "cache" not in t.column_names  # transient: never on the wire
    assert t.column_names[-1] == "$unknown"
    for name, want in SCALAR_TYPES.items():
        assert t.schema.field(name).type == want, name
    assert pa.types.is_dictionary(t.schema.field("pet").type.field("type").type)
    recursive = t.schema.field("tree").type.field("children").type.value_type
    assert recursive.extension_name == "arrow.json"  # BNode inside BNode


def test_values_are_the_decoded_ones(dataset: tuple[Path, dict[str, Any]]) -> None:
    out, decoded = dataset
    rows = read(out)
    assert sorted(rows) == ["full", "zero"]  # the bad input has no row, the others are kept
    full, want = rows["full"], decoded["full"]
    for name in ("flag", "i8", "i16", "i32", "i64", "f64", "raw", "text", "ints", "names",
                 "ids"):
        assert full[name] == want[name], name
        assert type(full[name]) is type(want[name]), name
    assert full["f32"] == want["f32"] == f32(0.1) and full["f32"] != 0.1
    assert full["money"] == "-12345678901234567890.000001"
    assert full["v2"] == {"x": 1.5, "y": -2.0}
    assert full["v3"] == {"x": f32(0.3), "y": 0.0, "z": f32(1e30)}
    assert full["rot"] == {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}
    assert full["v2i"] == {"x": -1, "y": 2**31 - 1}
    assert full["scores"] == [("str", 18), ("汉", -(2**63))]
    assert full["byKey"] == [{"key": {"a": 1, "b": "x"},
                              "value": {"id": 7, "note": "seven", "$unknown": NONE}}]
    assert full["keys"] == [{"a": 2, "b": "y"}]
    assert full["items"] == [{"id": 1, "note": "one", "$unknown": NONE},
                             {"id": 2, "note": "", "$unknown": NONE}]
    assert full["pet"] == {"type": "t.m.BChild", "t.m.BCat": None,
                           "t.m.BChild": {"baseId": 9, "$unknown": NONE, "extra": -3}}
    assert full["child"] == {"baseId": 2**40, "$unknown": NONE, "extra": 12}
    assert full["empty"] == {"$unknown": NONE}
    assert full["blob"] == {"$unknown": [{"id": 1, "wire_type": 4,
                                          "data": bytes.fromhex("200102")}]}
    assert full["tree"]["label"] == "root"
    assert full["tree"]["children"] == ['{"label":"leaf","children":[]}']
    assert full["grid"] == [(5, {"Map1": [("c", 6)], "$unknown": NONE})]
    assert full["$unknown"] == UNKNOWN


def test_zero_values_and_the_empty_bean(dataset: tuple[Path, dict[str, Any]]) -> None:
    out, decoded = dataset
    zero = read(out)["zero"]
    assert decoded["zero"]["pet"] == Dynamic(None, {}, 0)
    assert zero["pet"] is None  # the EmptyBean: no bean
    assert zero["$unknown"] is None
    assert (zero["i64"], zero["f32"], zero["money"], zero["raw"]) == (0, 0.0, "0", b"")
    assert zero["v4"] == {"x": 0.0, "y": 0.0, "z": 0.0, "w": 0.0}
    assert zero["scores"] == [] and zero["byKey"] == [] and zero["items"] == []


def test_duckdb_reads_the_same(dataset: tuple[Path, dict[str, Any]]) -> None:
    out, decoded = dataset
    files = f"'{out / TABLE}/*.parquet'"
    rel = duckdb.sql(f'select key, i8, i64, f32, money, text, raw, v3.z, pet.type, '
                     f'pet."t.m.BChild".extra, byKey[1].key.b, scores[\'汉\'], '
                     f'"$unknown"[1].data, tree.children[1]->>\'$.label\' '
                     f'from {files} order by key')
    assert [str(t) for t in rel.types] == [
        "VARCHAR", "TINYINT", "BIGINT", "FLOAT", "VARCHAR", "VARCHAR", "BLOB", "FLOAT",
        "VARCHAR", "SMALLINT", "VARCHAR", "BIGINT", "BLOB", "VARCHAR"]
    full = decoded["full"]
    assert rel.fetchall() == [
        ("full", -128, -(2**63), full["f32"], "-12345678901234567890.000001", full["text"],
         b"\x00\xff\x80", f32(1e30), "t.m.BChild", -3, "x", -(2**63), bytes.fromhex("0161"),
         "leaf"),
        ("zero", 0, 0, 0.0, "0", "", b"", 0.0, None, None, None, None, None, None)]


@pytest.mark.parametrize("enums", ["name", "int"])
def test_frames_are_one_row_per_stream(tmp_path: Path, schema_path: Path,
                                       schema: zeze.ZezeSchema, enums: str) -> None:
    stream = (encode_frame(schema, "PHello", {"id": 3, "note": "hé"})
              + encode_frame(schema, "PPing", {})
              + encode_frame(schema, "RGet", {"a": 1, "b": "k"}, session_id=2**62)
              + encode_frame(schema, "RGet", {"i32": 5}, family="response", session_id=2**62,
                             result_code=-1))
    summary = batch.run("decode", [("s", stream), ("cut", stream[:-1])], "zeze",
                        parquet=tmp_path, parquet_enums=enums, schema=str(schema_path),
                        frame=True)
    assert [f.key for f in summary.failures] == ["cut"]
    t = pq.read_table(tmp_path / "zeze.frames")
    frame = t.schema.field("frames").type.value_type
    family = frame.field("family").type
    assert family == pa.int8() if enums == "int" else pa.types.is_dictionary(family)
    assert frame.field("sessionId").type == pa.int64()
    (row,) = t.to_pylist()
    frames = row["frames"]
    assert [f["protocol"] for f in frames] == ["t.m.PHello", "t.m.PPing", "t.m.RGet", "t.m.RGet"]
    names = ["protocol", "protocol", "request", "response"]
    assert [f["family"] for f in frames] == (names if enums == "name" else [2, 2, 1, 0])
    assert [f["sessionId"] for f in frames] == [None, None, 2**62, 2**62]
    assert [f["resultCode"] for f in frames] == [0, 0, 0, -1]
    assert [(f["moduleId"], f["protocolId"]) for f in frames] == [(3, 1), (3, 2), (3, 3),
                                                                 (3, 3)]
    assert frames[0]["value"]["t.m.BItem"] == {"id": 3, "note": "hé", "$unknown": None}
    assert frames[1]["value"] is None  # PPing carries the EmptyBean
    assert frames[2]["value"]["type"] == "t.m.BKey"
    assert frames[3]["value"]["t.m.BAll"]["i32"] == 5
    got = duckdb.sql(f"select f.protocol, f.family from (select unnest(frames) as f from "
                     f"'{tmp_path}/zeze.frames/*.parquet')").fetchall()
    assert got == list(zip([f["protocol"] for f in frames], [f["family"] for f in frames],
                           strict=True))


@dataclass
class BSpot:
    id: int32 = field(default=0, metadata={"id": 1})
    at: vector2 = field(default=(0.0, 0.0), metadata={"id": 2})


@dataclass
class BMap:
    spots: list[BSpot] = field(default_factory=list, metadata={"id": 1})
    tags: set[str] = field(default_factory=set, metadata={"id": 2})


def test_dataclass_values() -> None:
    schema = zeze.load_schema(BMap, module="geo", solution="app")
    codec = schema.codec("BMap")
    value = codec.decode(codec.encode(BMap([BSpot(1, (0.5, 2.0))], {"x"})))
    assert isinstance(value, BMap)
    (row,) = table_of(["k"], [codec.to_row(value)]).to_pylist()
    assert row == {"key": "k", "spots": [{"id": 1, "at": {"x": 0.5, "y": 2.0},
                                          "$unknown": None}],
                   "tags": ["x"], "$unknown": None}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_solutions_give_tables_parquet_keeps(data: st.DataObject) -> None:
    sol = data.draw(strategies.solutions())
    schema = zeze.load_schema(sol.xml)
    bean = data.draw(st.sampled_from(sorted(sol.beans)))
    codec = schema.codec(bean)
    values = data.draw(st.lists(strategies.bean_values(sol, bean), min_size=1, max_size=3))
    rows = [codec.to_row(codec.decode(codec.encode(v))) for v in values]
    table = table_of([str(i) for i in range(len(rows))], rows)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    back = pq.read_table(pa.BufferReader(sink.getvalue()))
    assert back.schema == table.schema
    assert strategies.same(back.to_pylist(), table.to_pylist())  # NaN equal to NaN
