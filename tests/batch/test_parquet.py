"""Parquet datasets: the shared model as Arrow types (every kind of type, read back with pyarrow
and DuckDB, exact), the dataset's layout and lifecycle, and the command line's --parquet."""

from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gameserde
from gameserde import batch
from gameserde.batch.inputs import Item, chunks
from gameserde.batch.parquet import json_table, json_text, table_of
from gameserde.codecs import Row
from gameserde.errors import GameserdeWarning, UsageError
from gameserde.schema import arrow
from gameserde.schema.model import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT16,
    STRING,
    UINT64,
    Enum,
    Field,
    Float,
    Int,
    List,
    Map,
    Optional,
    Record,
    Ref,
    Schema,
    Set,
    Union,
)

COLOR = Enum("Color", Int(8, False), {"Red": 1, "Green": 2, "Blue": 8})
FLAGS = Enum("Flags", Int(8, False), {"A": 1, "B": 2, "C": 4}, bit_flags=True)
VEC = Record("Vec", (Field("x", FLOAT32), Field("y", FLOAT32)), kind="struct")
BASE = Record("Base", (Field("id", UINT64),))
ITEM = Record("Item", (Field("name", STRING), Field("count", INT16)), base="Base")
NODE = Record("Node", (Field("label", STRING), Field("children", List(Ref("Node")))))
PICK = Union("Pick", {"Vec": (1, Ref("Vec")), "Item": (2, Ref("Item"))})
WIDE = Union("Wide", {f"M{i}": (i, Ref("Vec")) for i in range(1, arrow.MAX_UNION + 2)})
ALL = Record("All", (
    Field("u7", Int(7, False)), Field("i64", Int(64)), Field("u64", UINT64),
    Field("f32", FLOAT32), Field("f64", FLOAT64), Field("f16", Float(16)), Field("b", BOOL),
    Field("s", STRING), Field("raw", BYTES), Field("ints", List(INT16)),
    Field("trio", List(FLOAT32, 3)), Field("tags", Set(STRING)),
    Field("scores", Map(STRING, UINT64)), Field("by_color", Map(Ref("Color"), STRING)),
    Field("by_vec", Map(Ref("Vec"), BOOL)), Field("maybe", Optional(Int(32))),
    Field("color", Ref("Color")), Field("flags", Ref("Flags")), Field("pos", Ref("Vec")),
    Field("item", Ref("Item")), Field("pick", Ref("Pick")), Field("picks", List(Ref("Pick"))),
    Field("tree", Ref("Node")), Field("wide", Ref("Wide")),
))
SCHEMA = Schema({t.name: t for t in (COLOR, FLAGS, VEC, BASE, ITEM, NODE, PICK, WIDE, ALL)})
F32 = struct.unpack("<f", struct.pack("<f", 0.1))[0]  # 0.1 as a float32 holds it

FULL: dict[str, Any] = {
    "u7": 127, "i64": -(2**63), "u64": 2**64 - 1, "f32": F32, "f64": 0.1, "f16": 0.5,
    "b": True, "s": "héllo ✓", "raw": b"\x00\xff", "ints": [1, -2], "trio": [1.0, 2.0, F32],
    "tags": ["a"], "scores": [("x", 2**63)], "by_color": [(2, "g"), (99, "?")],
    "by_vec": [({"x": 1.0, "y": 2.0}, True)], "maybe": 5, "color": 8, "flags": 5,
    "pos": {"x": F32, "y": -0.0}, "item": {"id": 2**63 + 1, "name": "sword", "count": -3},
    "pick": ("Item", {"id": 1, "name": "a", "count": 2}),
    "picks": [("Vec", {"x": 1.0, "y": 2.0}), None],
    "tree": {"label": "root", "children": [{"label": "leaf", "children": []}]},
    "wide": ("M3", {"x": float("nan"), "y": float("inf")}),
}
SPARSE: dict[str, Any] = {"u64": 0, "color": 3, "flags": 64}


def rows(*values: dict[str, Any]) -> list[Row]:
    return [Row("All", SCHEMA, Ref("All"), v) for v in values]


def test_every_kind_of_type_has_its_arrow_type() -> None:
    t = table_of(["k1", "k2"], rows(FULL, SPARSE))
    types = {f.name: f.type for f in t.schema}
    assert types["key"] == pa.string()
    assert types["u7"] == pa.uint8()
    assert types["i64"] == pa.int64()
    assert types["u64"] == pa.uint64()
    assert types["f32"] == pa.float32() and types["f16"] == pa.float32()
    assert types["f64"] == pa.float64()
    assert types["raw"] == pa.binary()
    assert types["trio"] == pa.list_(pa.float32())  # Parquet has no fixed-size lists
    assert types["tags"] == pa.list_(pa.string())
    assert types["scores"] == pa.map_(pa.string(), pa.uint64())
    assert types["by_color"] == pa.map_(pa.string(), pa.string())
    assert types["by_vec"] == pa.list_(pa.struct([("key", pa.struct(
        [("x", pa.float32()), ("y", pa.float32())])), ("value", pa.bool_())]))
    assert types["maybe"] == pa.int32()
    assert types["color"] == pa.dictionary(pa.int32(), pa.string())
    assert [f.name for f in types["item"]] == ["id", "name", "count"]  # inherited first
    assert [f.name for f in types["pick"]] == ["type", "Vec", "Item"]
    assert pa.types.is_struct(types["tree"])
    assert types["tree"].field("children").type.value_type == pa.json_(pa.string())
    assert types["wide"] == pa.json_(pa.string())  # more members than MAX_UNION


def test_values_read_back_exactly_with_pyarrow_and_duckdb(tmp_path: Path) -> None:
    pq.write_table(table_of(["k1", "k2"], rows(FULL, SPARSE)), tmp_path / "t.parquet")
    back = pq.read_table(tmp_path / "t.parquet").to_pylist()
    first, second = back
    assert first["key"] == "k1" and second["key"] == "k2"
    for name in ("u7", "i64", "u64", "f32", "f64", "f16", "b", "s", "raw", "ints", "trio",
                 "tags", "scores", "maybe", "pos"):
        assert first[name] == FULL[name], name
    assert first["by_color"] == [("Green", "g"), ("99", "?")]
    assert first["by_vec"] == [{"key": {"x": 1.0, "y": 2.0}, "value": True}]
    assert first["color"] == "Blue" and first["flags"] == "A|C"
    assert first["item"] == FULL["item"]
    assert first["pick"] == {"type": "Item", "Vec": None, "Item": FULL["pick"][1]}
    assert first["picks"][0]["type"] == "Vec" and first["picks"][1] is None
    assert first["tree"]["children"] == ['{"label":"leaf","children":[]}']
    assert json.loads(first["wide"]) == {"type": "M3", "value": {"x": "nan", "y": "inf"}}
    assert second["color"] == "3" and second["flags"] == "64"  # no name: the number
    assert second["s"] is None and second["item"] is None and second["pick"] is None

    con = duckdb.connect()
    got = con.sql(f"select u64, f32, typeof(f32), color, pick.type, item.id, "
                  f"wide->>'$.value.y' from '{tmp_path}/t.parquet' order by key").fetchall()
    assert got[0] == (2**64 - 1, F32, "FLOAT", "Blue", "Item", 2**63 + 1, "inf")
    assert got[1][0] == 0


def test_enums_as_integers() -> None:
    t = table_of(["k"], rows(FULL), enums="int")
    assert t.schema.field("color").type == pa.uint8()
    assert t.column("color").to_pylist() == [8]
    assert t.column("by_color").to_pylist() == [[(2, "g"), (99, "?")]]
    with pytest.raises(UsageError, match="name or int"):
        arrow.plan(SCHEMA, Ref("All"), enums="names")


def test_a_wide_schema_stops_at_the_field_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arrow, "MAX_FIELDS", 12)
    planned = arrow.plan(SCHEMA, Ref("All"))
    json_fields = [f.name for f in planned.arrow if f.type == pa.json_(pa.string())]
    assert json_fields and json_fields[-1] == "wide"


def test_a_record_without_fields_is_a_present_flag(tmp_path: Path) -> None:
    empty = Record("Empty", ())
    holder = Record("Holder", (Field("e", Ref("Empty")), Field("n", INT16)))
    schema = Schema({"Empty": empty, "Holder": holder})
    t = table_of(["a", "b"], [Row("Holder", schema, Ref("Holder"), {"e": {}, "n": 1}),
                              Row("Holder", schema, Ref("Holder"), {"n": 2})])
    pq.write_table(t, tmp_path / "e.parquet")
    assert pq.read_table(tmp_path / "e.parquet").column("e").to_pylist() == [
        {"present": True}, None]


def test_a_row_too_deep_for_its_columns_fails_its_input_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = Record("Link", (Field("n", INT16), Field("next", Optional(Ref("Link")))))
    schema = Schema({"Link": link})
    chain: dict[str, Any] = {"n": 0}
    # deeper than any recursion limit a codec raises for a while (in another thread, too:
    # the limit is the process's)
    for n in range(1, 50_000):
        chain = {"n": n % 30_000, "next": chain}
    values = {b"deep": chain, b"flat": {"n": 1, "next": {"n": 2}}}

    def to_row(self: Any, value: Any) -> Row:
        return Row("Link", schema, Ref("Link"), values[value])

    monkeypatch.setattr(type(gameserde.codec("godot")), "decode", lambda self, data: data)
    monkeypatch.setattr(type(gameserde.codec("godot")), "to_row", to_row)
    with ThreadPoolExecutor(1) as pool:  # the patched codec is this process's
        summary = batch.run("decode", [("a", b"deep"), ("b", b"flat")], "godot",
                            executor=pool, parquet=tmp_path)
    assert [f.key for f in summary.failures] == ["a"]
    assert "nests too deep" in summary.failures[0].message
    assert pq.read_table(tmp_path / "Link").to_pylist() == [
        {"key": "b", "n": 1, "next": '{"n":2}'}]


def test_json_columns_hold_valid_utf8(tmp_path: Path) -> None:
    with pytest.warns(GameserdeWarning, match="surrogates that are not pairs"):
        text = json_text({"name": "lone \udc80", "pair": "\ud83d\ude00"})
    assert json.loads(text) == {"name": "lone \ufffd", "pair": "\U0001f600"}
    assert json_text({"s": "\\ud800"}) == '{"s":"\\\\ud800"}'  # text, not a surrogate
    pq.write_table(json_table(["k"], [text]), tmp_path / "j.parquet")
    assert duckdb.sql(f"select value->>'$.pair' from '{tmp_path}/j.parquet'").fetchall() == [
        ("\U0001f600",)]


def test_a_field_named_key_moves_the_key_column() -> None:
    keyed = Record("Keyed", (Field("key", STRING),))
    schema = Schema({"Keyed": keyed})
    t = table_of(["file"], [Row("Keyed", schema, Ref("Keyed"), {"key": "own"})])
    assert t.column_names == ["key_", "key"]


# ---------------------------------------------------------------------------------------------
# Datasets, through batches of Godot Variants (a JSON column)

def godot_inputs(tmp_path: Path, count: int = 6) -> Path:
    codec = gameserde.codec("godot", json="plain")
    folder = tmp_path / "saves"
    folder.mkdir()
    for i in range(count):
        doc = {"gold": i - 2, "name": f"p{i}"}
        (folder / f"s{i}.bin").write_bytes(codec.from_json(json.dumps(doc)))
    (folder / "zz-bad.bin").write_bytes(b"\x01\x02")
    return folder


def parts(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_godot_rows_are_a_json_column_queried_with_duckdb(tmp_path: Path) -> None:
    folder = godot_inputs(tmp_path)
    out = tmp_path / "out"
    summary = batch.run("decode", [folder], "godot", json="plain", parquet=out)
    assert (summary.ok, summary.failed) == (6, 1)
    assert parts(out) == ["value/part-00000.parquet"]
    got = duckdb.sql(f"select key, (value->>'$.gold')::int from '{out}/value/*.parquet' "
                     f"where (value->>'$.gold')::int < 0 order by key").fetchall()
    assert got == [("s0.bin", -2), ("s1.bin", -1)]
    meta = pq.read_schema(out / "value/part-00000.parquet").metadata
    assert json.loads(meta[b"gameserde"]) == {"format": "godot", "options": {"json": "plain"}}


def test_verify_and_inspect_tables(tmp_path: Path) -> None:
    folder = godot_inputs(tmp_path, 2)
    out = tmp_path / "out"
    batch.run("verify", [folder], "godot", parquet=out)
    batch.run("inspect", [folder], "godot", parquet=out)
    verified = pq.read_table(out / "verify").to_pylist()
    assert [(r["key"], r["ok"], r["offset"]) for r in verified] == [
        ("s0.bin", True, None), ("s1.bin", True, None), ("zz-bad.bin", False, 0)]
    assert verified[0]["report"].startswith("ok: ")
    assert "needs 4 bytes" in verified[2]["error"]
    regions = pq.read_table(out / "inspect").to_pylist()
    assert {r["key"] for r in regions} == {"s0.bin", "s1.bin"}
    assert regions[0]["offset"] == 0 and regions[0]["type"] == "Dictionary"


def test_a_new_run_replaces_the_table_and_a_stopped_one_leaves_it(tmp_path: Path) -> None:
    folder = godot_inputs(tmp_path, 3)
    out = tmp_path / "out"
    records = [(f"r{i}", (folder / f"s{i % 3}.bin").read_bytes()) for i in range(1200)]
    batch.run("decode", records, "godot", parquet=out)
    assert len(parts(out)) == len(list(chunks(iter([Item("", data=b"")] * 1200),
                                              workers=os.cpu_count() or 1))) > 3
    batch.run("decode", [folder], "godot", parquet=out)
    assert parts(out) == ["value/part-00000.parquet"]
    assert pq.read_table(out / "value").num_rows == 3

    stopped = batch.run("decode", [folder / "zz-bad.bin", *records[:5]], "godot",
                        parquet=out, fail_fast=True)
    assert stopped.stopped
    assert parts(out) == ["value/part-00000.parquet"]
    assert pq.read_table(out / "value").num_rows == 3


def test_a_batch_that_raises_writes_nothing(tmp_path: Path) -> None:
    folder = godot_inputs(tmp_path, 2)
    out = tmp_path / "out"

    def interrupt(outcome: Any) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        batch.run("decode", [folder], "godot", parquet=out, progress=interrupt)
    assert not out.exists() or parts(out) == []


def test_convert_writes_no_parquet(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a Parquet dataset"):
        batch.run("convert", [], "godot", parquet=tmp_path)


def test_the_extra_is_named_when_pyarrow_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"pip install 'gameserde\[parquet\]'"):
        batch.run("decode", [], "godot", parquet=tmp_path)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gameserde", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_the_command_line_writes_a_dataset(tmp_path: Path) -> None:
    folder = godot_inputs(tmp_path, 2)
    out = tmp_path / "out"
    done = cli("decode", "godot", folder, "--json", "plain", "--parquet", out, "-j", "1")
    assert done.returncode == 1, done.stderr  # zz-bad.bin failed
    assert done.stdout == ""  # a dataset, not JSON Lines on standard output
    assert "2 ok, 1 failed" in done.stderr
    assert pq.read_table(out / "value").column("key").to_pylist() == ["s0.bin", "s1.bin"]

    enums_alone = cli("decode", "godot", folder, "--parquet-enums", "int")
    assert enums_alone.returncode == 2
    assert "add --parquet DIR" in enums_alone.stderr
    refused = cli("convert", "godot", folder, "-o", tmp_path / "c", "--parquet", out)
    assert refused.returncode == 2


def test_floats_that_are_not_finite_keep_their_kind_in_json() -> None:
    planned = arrow.plan(SCHEMA, Ref("Wide"))
    assert planned.convert is not None
    text = planned.convert(("M1", {"x": -math.inf, "y": 1.5}))
    assert json.loads(text) == {"type": "M1", "value": {"x": "-inf", "y": 1.5}}
