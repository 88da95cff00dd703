"""KingsIsle objects as Parquet rows (``KiCodec.to_row``, ``gameserde.kingsisle.rows``): a
batch's dataset read back with pyarrow and DuckDB gives the decoded values with exact types
(odd-width integers, uint64 above 2**63, float32, enums as names or integers, leaf structs,
Matrix3x3's fixed rows, lists, polymorphic objects as tagged structs bounded by the declared
class, recursion and wide unions as JSON), the same rows from shallow and deep streams,
BINd files and the XML form, failures without rows, and every loss reported."""

from __future__ import annotations

import json
import math
import struct
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import batch
from gameserde.batch.parquet import table_name
from gameserde.errors import GameserdeWarning, UsageError
from gameserde.kingsisle import (
    STATEFUL_FLAGS,
    KiObject,
    Serializer,
    load_schema,
    property_hash,
    string_id,
    to_xml,
    write_bind,
)
from gameserde.kingsisle.rows import rows_of
from gameserde.kingsisle.typelist import OBJECT
from gameserde.schema.arrow import plan
from gameserde.schema.model import Enum, List, Record, Ref, String, Union
from tests.kingsisle import strategies, valuegen
from tests.kingsisle.typelists import type_list

SCHEMA = load_schema(type_list())
F32 = struct.unpack("<f", struct.pack("<f", 0.1))[0]


def item(n: int, name: bytes = b"x", on: bool = True) -> KiObject:
    return KiObject("class Item", string_id("class Item"),
                    {"m_id": n, "m_name": name, "m_on": on})


def root(**changes: Any) -> KiObject:
    """A Root with every kind of value (``m_gone``, delta-encoded, absent)."""
    props: dict[str, Any] = {
        "m_bool": True, "m_char": -128, "m_bool2": False, "m_uchar": 255, "m_short": -32768,
        "m_ushort": 65535, "m_wchar": 0x263A, "m_int": -(2**31), "m_uint": 2**32 - 1,
        "m_long": -7, "m_ulong": 7, "m_float": F32, "m_double": 0.1, "m_u64": 2**64 - 1,
        "m_gid": 2**63 + 5, "m_bi3": -4, "m_bui5": 31, "m_s24": -(2**23), "m_u24": 2**24 - 1,
        "m_str": b"caf\xc3\xa9 \xff\x00", "m_wstr": "héllo ✓ 𝄞", "m_empty": b"",
        "m_kind": 7, "m_ints": [0, 2**32 - 1], "m_items": [item(1, b"a"), None, item(2)],
        "m_child": item(3, b"\xe2\x9c\x93", False), "m_none": None, "m_old": -1,
        "m_delta": 12,
        "m_color": {"b": 1, "g": 2, "r": 3, "a": 255},
        "m_pos": {"x": F32, "y": -0.0, "z": math.inf},
        "m_rot": {"w": 1.0, "x": 0.0, "y": 0.5, "z": -2.0}, "m_flag3": True,
        "m_euler": {"pitch": 0.25, "yaw": 0.5, "roll": 1.5},
        "m_matrix": {"i": [1.0, 0.0, 0.0], "j": [0.0, F32, 0.0], "k": [0.0, 0.0, -1.0]},
        "m_size": {"width": 640, "height": -480}, "m_point": {"x": -1, "y": 2},
        "m_upoint": {"x": 2**32 - 1, "y": 0}, "m_bpoint": {"x": 255, "y": 1},
        "m_fpoint": {"x": 0.5, "y": F32},
        "m_rect": {"left": -1, "top": -2, "right": 3, "bottom": 4},
        "m_frect": {"left": 0.5, "top": 1.5, "right": 2.5, "bottom": F32},
        "m_path": [{"x": 1.0, "y": 2.0, "z": 3.0}], "m_bits": 1 | 2**31, "m_kinds": [0, 2**30, 5],
    }
    props.update(changes)
    return KiObject("class Root", string_id("class Root"),
                    {f.name: props[f.name] for f in SCHEMA.classes["class Root"].fields
                     if f.name in props})


ITEM_COLUMN = {"type": "class Item", "class Item": None}


def item_row(n: int, name: bytes = b"x", on: bool = True) -> dict[str, Any]:
    return {**ITEM_COLUMN, "class Item": {"m_id": n, "m_name": name, "m_on": on}}


def expected_root(enums: str = "name") -> dict[str, Any]:
    """``root()`` as pyarrow's ``to_pylist`` gives it back (a shallow stream, mask 7)."""
    value = dict(root())
    value.update(m_items=[item_row(1, b"a"), None, item_row(2)],
                 m_child=item_row(3, b"\xe2\x9c\x93", False), m_gone=None, m_net=None)
    if enums == "name":
        value.update(m_kind="K_B", m_bits="B_ONE|B_HIGH", m_kinds=["K_A", "K_C", "5"])
    return value


def same(a: Any, b: Any) -> bool:
    """Equal values of equal Python types (NaN equals NaN, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                      math.copysign(1, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.fixture(scope="module")
def types(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("kingsisle-rows") / "types.json"
    path.write_text(type_list())
    return str(path)


def table(out: Path, name: str = "class_Root") -> pa.Table:
    return pq.read_table(out / name)


# -- every kind of value ----------------------------------------------------------------------


def test_the_dataset_holds_the_decoded_values_with_exact_types(types: str,
                                                               tmp_path: Path) -> None:
    data = Serializer(SCHEMA).encode(root())
    summary = batch.run("decode", [("a", data), ("bad", data[:20]), ("b", data)], "kingsisle",
                        parquet=tmp_path, schema=types)
    assert (summary.ok, summary.failed) == (2, 1)
    assert summary.failures[0].key == "bad"
    assert [p.name for p in tmp_path.iterdir()] == ["class_Root"]
    t = table(tmp_path)
    arrow = {f.name: f.type for f in t.schema}
    assert arrow["key"] == pa.string()
    assert (arrow["m_char"], arrow["m_uchar"], arrow["m_wchar"]) == (
        pa.int8(), pa.uint8(), pa.uint16())
    assert (arrow["m_u64"], arrow["m_gid"], arrow["m_int"], arrow["m_ulong"]) == (
        pa.uint64(), pa.uint64(), pa.int32(), pa.uint32())
    assert (arrow["m_bi3"], arrow["m_bui5"], arrow["m_s24"], arrow["m_u24"]) == (
        pa.int8(), pa.uint8(), pa.int32(), pa.uint32())
    assert (arrow["m_float"], arrow["m_double"]) == (pa.float32(), pa.float64())
    assert (arrow["m_str"], arrow["m_wstr"]) == (pa.binary(), pa.string())
    assert arrow["m_kind"] == pa.dictionary(pa.int32(), pa.string())
    assert arrow["m_kinds"] == pa.list_(pa.dictionary(pa.int32(), pa.string()))
    assert arrow["m_color"] == pa.struct([(k, pa.uint8()) for k in "bgra"])
    assert arrow["m_matrix"] == pa.struct([(k, pa.list_(pa.float32())) for k in "ijk"])
    assert arrow["m_path"] == pa.list_(pa.struct([(k, pa.float32()) for k in "xyz"]))
    item_struct = pa.struct([("m_id", pa.uint32()), ("m_name", pa.binary()),
                             ("m_on", pa.bool_())])
    union = pa.struct([("type", pa.dictionary(pa.int32(), pa.string())),
                       ("class Item", item_struct)])
    assert (arrow["m_child"], arrow["m_items"]) == (union, pa.list_(union))
    rows = t.to_pylist()
    assert [r.pop("key") for r in rows] == ["a", "b"]
    assert all(same(r, expected_root()) for r in rows)
    assert rows[0]["m_float"] == F32 and rows[0]["m_u64"] == 2**64 - 1

    con = duckdb.connect()
    where = f"'{tmp_path}/class_Root/*.parquet'"
    kinds = dict(con.sql(f"select column_name, column_type from (describe select * from "
                         f"{where})").fetchall())
    assert (kinds["m_u64"], kinds["m_float"], kinds["m_bi3"], kinds["m_u24"]) == (
        "UBIGINT", "FLOAT", "TINYINT", "UINTEGER")
    got = con.sql(f"select key, m_u64, m_gid, m_float, m_wstr, m_str, m_kind, m_bits, m_gone, "
                  f"m_child.type, m_child.\"class Item\".m_id, m_items[3].\"class Item\".m_id, "
                  f"m_matrix.j[2], m_net from {where} order by key").fetchall()
    assert got[0] == ("a", 2**64 - 1, 2**63 + 5, F32, "héllo ✓ 𝄞", b"caf\xc3\xa9 \xff\x00",
                      "K_B", "B_ONE|B_HIGH", None, "class Item", 3, 2, F32, None)
    assert got[1][0] == "b"


def test_enums_as_integers(types: str, tmp_path: Path) -> None:
    data = Serializer(SCHEMA).encode(root())
    batch.run("decode", [("a", data)], "kingsisle", parquet=tmp_path, parquet_enums="int",
              schema=types)
    t = table(tmp_path)
    assert t.schema.field("m_kind").type == pa.uint32()
    assert t.schema.field("m_kinds").type == pa.list_(pa.uint32())
    row = t.to_pylist()[0]
    row.pop("key")
    assert same(row, expected_root("int"))


def test_shallow_deep_bind_and_xml_give_the_same_rows(types: str, tmp_path: Path) -> None:
    """The row is the object's, whatever form the bytes take; ``xml`` (the text form decode
    prints) and the serializer's options change nothing in it. Deep mode leaves deprecated
    properties out (null)."""
    value = root()
    deep = Serializer(SCHEMA, shallow=False, flags=STATEFUL_FLAGS | 8).encode(value)
    inputs = [("deep", deep), ("bind", write_bind(value, SCHEMA)),
              ("xml", to_xml(value, SCHEMA).encode("utf-8"))]
    batch.run("decode", inputs, "kingsisle", parquet=tmp_path / "deep", schema=types,
              deep=True, flags=STATEFUL_FLAGS)
    batch.run("decode", inputs[1:], "kingsisle", parquet=tmp_path / "xml", schema=types,
              xml=True, enum_names=False)
    shallow = expected_root()
    for out, keys in ((tmp_path / "deep", ["deep", "bind", "xml"]),
                      (tmp_path / "xml", ["bind", "xml"])):
        rows = table(out).to_pylist()
        assert sorted(r.pop("key") for r in rows) == sorted(keys)
        for r in rows:
            assert r["m_old"] is None or r["m_old"] == -1  # deep streams leave it out
            assert same({**r, "m_old": -1}, shallow)


# -- objects: unions bounded by the declared class, recursion, wide unions ------------------


def _types(wide: int = 0) -> dict[str, Any]:
    """A type list: Base, Derived (from Base), Other, Holder (a SharedPointer to Base, a list
    of Base*, an unbounded pointer, a pointer to itself, an embedded Other) and ``wide``
    classes derived from Other."""
    def prop(i: int, name: str, t: str, dynamic: bool = False) -> dict[str, Any]:
        return {"type": t, "id": i, "flags": 7, "dynamic": dynamic,
                "pointer": t.endswith(("*", ">")), "hash": property_hash(t, name),
                "container": "List" if dynamic else "Static"}

    def cls(name: str, bases: list[str], props: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return {"name": name, "hash": string_id(name), "bases": bases, "properties": props}

    n = {"m_n": prop(0, "m_n", "int")}
    classes = [
        cls("class Base", [], n),
        cls("class Derived", ["class Base"], {**n, "m_w": prop(1, "m_w", "std::wstring")}),
        cls("class Other", [], {"m_s": prop(0, "m_s", "std::string"),
                                "m_t": prop(1, "m_t", "bool")}),
        cls("class Holder", [], {
            "m_base": prop(0, "m_base", "class SharedPointer<class Base>"),
            "m_bases": prop(1, "m_bases", "class Base*", True),
            "m_any": prop(2, "m_any", "class Nowhere*"),
            "m_self": prop(3, "m_self", "class Holder*"),
            "m_other": prop(4, "m_other", "class Other"),
            "m_wstrs": prop(5, "m_wstrs", "std::wstring", True)}),
        *(cls(f"class W{i}", ["class Other"], {}) for i in range(wide)),
    ]
    return {"version": 2, "classes": {str(c["hash"]): c for c in classes}}


def obj(name: str, **props: Any) -> KiObject:
    return KiObject(name, string_id(name), props)


HOLDER = obj("class Holder",
             m_base=obj("class Derived", m_n=1, m_w="wé"),
             m_bases=[obj("class Base", m_n=2), None, obj("class Derived", m_n=3, m_w="")],
             m_any=obj("class Other", m_s=b"\x00", m_t=True),
             m_self=obj("class Holder", m_base=None, m_bases=[], m_any=None, m_self=None,
                        m_other=obj("class Other", m_s=b"in", m_t=False), m_wstrs=[]),
             m_other=obj("class Other", m_s=b"out", m_t=True), m_wstrs=["a", "ü"])


def test_a_pointer_is_a_union_of_the_declared_class_and_its_derived_ones(
        tmp_path: Path) -> None:
    schema = load_schema(_types())
    model = rows_of(schema).model
    base = model.types["kingsisle.object<class Base>"]
    assert isinstance(base, Union) and list(base.members) == ["class Base", "class Derived"]
    holder = model.types["class Holder"]
    assert isinstance(holder, Record)
    assert holder.field("m_bases").type == List(Ref("kingsisle.object<class Base>"))
    assert holder.field("m_any").type == Ref("kingsisle.object")  # unbounded: every class
    row = schema.codec().to_row(HOLDER)
    assert (row.name, row.type, row.schema) == ("class Holder", Ref("class Holder"), model)
    assert row.value["m_base"] == ("class Derived", {"m_n": 1, "m_w": "wé"})
    assert row.value["m_bases"][1] is None

    path = tmp_path / "types.json"
    path.write_text(json.dumps(_types()))
    data = schema.codec().encode(HOLDER)
    batch.run("decode", [("h", data)], "kingsisle", parquet=tmp_path / "out",
              schema=str(path), executor=ThreadPoolExecutor(1))
    t = table(tmp_path / "out", "class_Holder")
    arrow = {f.name: f.type for f in t.schema}
    assert [f.name for f in arrow["m_base"]] == ["type", "class Base", "class Derived"]
    assert [f.name for f in arrow["m_any"]] == ["type", "class Base", "class Derived",
                                                "class Other", "class Holder"]
    assert arrow["m_any"].field("class Holder").type == pa.json_(pa.string())  # recursion
    assert arrow["m_self"].field("class Holder").type == pa.json_(pa.string())
    r = t.to_pylist()[0]
    assert r["m_base"] == {"type": "class Derived", "class Base": None,
                           "class Derived": {"m_n": 1, "m_w": "wé"}}
    assert [b and b["type"] for b in r["m_bases"]] == ["class Base", None, "class Derived"]
    assert r["m_any"]["class Other"] == {"m_s": b"\x00", "m_t": True}
    assert json.loads(r["m_self"]["class Holder"])["m_other"] == {
        "type": "class Other", "value": {"m_s": "aW4=", "m_t": False}}  # bytes in base64
    assert r["m_other"] == {"type": "class Other", "class Other": {"m_s": b"out", "m_t": True}}
    got = duckdb.sql(f"select m_base.\"class Derived\".m_w, m_self.\"class Holder\"->>'$.m_other"
                     f".type' from '{tmp_path}/out/class_Holder/*.parquet'").fetchall()
    assert got == [("wé", "class Other")]


def test_unions_of_more_than_64_classes_are_json(tmp_path: Path) -> None:
    path = tmp_path / "types.json"
    path.write_text(json.dumps(_types(wide=64)))
    schema = load_schema(str(path))
    value = obj("class Holder", **{**HOLDER, "m_other": obj("class W63")})
    batch.run("decode", [("h", schema.codec().encode(value))], "kingsisle",
              parquet=tmp_path / "out", schema=str(path), executor=ThreadPoolExecutor(1))
    t = table(tmp_path / "out", "class_Holder")
    assert t.schema.field("m_other").type == pa.json_(pa.string())  # Other and 64 derived
    assert t.schema.field("m_any").type == pa.json_(pa.string())    # every class
    assert [f.name for f in t.schema.field("m_base").type] == ["type", "class Base",
                                                                 "class Derived"]
    r = t.to_pylist()[0]
    assert json.loads(r["m_other"]) == {"type": "class W63", "value": {}}
    assert json.loads(r["m_any"]) == {"type": "class Other",
                                      "value": {"m_s": "AA==", "m_t": True}}


# -- nothing lost silently ------------------------------------------------------------------


def test_what_a_row_cannot_hold_is_a_warning() -> None:
    codec = load_schema(_types()).codec()
    odd = obj("class Holder", **{**HOLDER, "m_base": obj("class Other", m_s=b"", m_t=True),
                                 "m_bases": [{"m_n": 1}], "m_wstrs": ["a\udc00b"]})
    odd["m_extra"] = 5
    with pytest.warns(GameserdeWarning) as noted:
        row = codec.to_row(odd)
    messages = sorted(str(w.message) for w in noted)
    assert messages == [
        "a dict where the type list has an object; it is null in the row",
        "a wide string holds lone surrogates, which UTF-8 text cannot; they are U+FFFD in "
        "the row",
        "an object of class Other where the type list has an object of class Base or a "
        "class derived from it; it is null in the row",
        "class Holder has no property 'm_extra' in the type list; it is left out of the row"]
    assert row.value["m_base"] is None and row.value["m_bases"] == [None]
    assert row.value["m_wstrs"] == ["a\ufffdb"] and "m_extra" not in row.value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert codec.to_row(HOLDER).value["m_wstrs"] == ["a", "ü"]
    for bad in (obj("class Nowhere"), {"m_n": 1}, None):
        with pytest.raises(UsageError, match="a row is made of an object of a class of the "
                                             "type list"):
            codec.to_row(bad)


def test_skipped_classes_and_properties_are_notes_and_nulls(tmp_path: Path) -> None:
    """Deep streams read with a type list that lacks a class or a property
    (``skip_unknown_types``): the row has nulls, the batch's notes say what was skipped."""
    full = load_schema(_types())
    data = full.codec(deep=True).encode(HOLDER)
    lacking = _types()
    del lacking["classes"][str(string_id("class Derived"))]
    del lacking["classes"][str(string_id("class Other"))]["properties"]["m_s"]
    path = tmp_path / "types.json"
    path.write_text(json.dumps(lacking))
    summary = batch.run("decode", [("h", data)], "kingsisle", parquet=tmp_path / "out",
                        schema=str(path), deep=True, skip_unknown_types=True,
                        executor=ThreadPoolExecutor(1))
    assert summary.ok == 1 and summary.notes and all(k == "h" for k, _ in summary.notes)
    r = table(tmp_path / "out", "class_Holder").to_pylist()[0]
    assert r["m_base"] is None
    assert [b and b["type"] for b in r["m_bases"]] == ["class Base", None, None]
    assert r["m_other"] == {"type": "class Other", "class Other": {"m_t": True}}
    strict = batch.run("decode", [("h", data)], "kingsisle", parquet=tmp_path / "strict",
                       schema=str(path), deep=True, skip_unknown_types=True, strict=True,
                       executor=ThreadPoolExecutor(1))
    assert strict.failed == 1 and not (tmp_path / "strict" / "class_Holder").exists()


def test_bytes_after_the_root_are_a_note(types: str, tmp_path: Path) -> None:
    data = Serializer(SCHEMA).encode(root()) + b"xyz"
    summary = batch.run("decode", [("a", data)], "kingsisle", parquet=tmp_path, schema=types,
                        executor=ThreadPoolExecutor(1))
    assert summary.ok == 1
    assert any("not in the row" in note for _, note in summary.notes)


# -- generated objects ----------------------------------------------------------------------


def expected(model: Any, t: Any, value: Any) -> Any:
    """A decoded value as pyarrow's ``to_pylist`` gives it back (enums as names)."""
    if value is None:
        return None
    if isinstance(t, List):
        return [expected(model, t.element, v) for v in value]
    if isinstance(t, String):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if not isinstance(t, Ref):
        return value
    named = model.types[t.name]
    if isinstance(named, Enum):
        name = named.name_of(value)
        flags = named.flag_names(value) if named.bit_flags and name is None else None
        return name if name is not None else "|".join(flags) if flags else str(value)
    if isinstance(named, Union):
        out = {"type": value.type_name, **{m: None for m in named.members}}
        out[value.type_name] = expected(model, Ref(value.type_name), value)
        return out
    return {f.name: expected(model, f.type, value.get(f.name)) for f in named.fields}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(valuegen.objects(), min_size=1, max_size=4))
def test_generated_objects_read_back_as_decoded(values: list[KiObject]) -> None:
    ser = Serializer(SCHEMA)
    data = [ser.encode(v) for v in values]
    model = rows_of(SCHEMA).model
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "types.json"
        path.write_text(type_list())
        batch.run("decode", [(str(i), d) for i, d in enumerate(data)], "kingsisle",
                  parquet=Path(folder) / "out", schema=str(path),
                  executor=ThreadPoolExecutor(1))
        rows = table(Path(folder) / "out").to_pylist()
    assert [r.pop("key") for r in rows] == [str(i) for i in range(len(values))]
    for r, d in zip(rows, data, strict=True):
        assert same(r, expected(model, Ref("class Root"), ser.decode(d)))


def row_form(model: Any, t: Any, value: Any) -> Any:
    """A decoded value in the row form, found from the model (objects ``(class, dict)``)."""
    if value is None:
        return None
    if isinstance(t, List):
        return [row_form(model, t.element, v) for v in value]
    if isinstance(t, String):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    named = model.types[t.name] if isinstance(t, Ref) else None
    if isinstance(named, Union):
        assert value.type_name in named.members
        return (value.type_name, row_form(model, Ref(value.type_name), value))
    if isinstance(named, Record) and named.kind == "class":
        return {f.name: row_form(model, f.type, value[f.name]) for f in named.fields
                if f.name in value}
    return value


def read_back(a: Any, b: Any) -> bool:
    """``same``, where a key missing from the written ``b`` reads back as null."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(read_back(a[k], b.get(k)) for k in a) and b.keys() <= a.keys()
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(read_back(x, y) for x, y in zip(a, b, strict=True))
    return same(a, b)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.cases())
def test_generated_type_lists_give_their_rows_and_tables(
        case: tuple[strategies.TypeList, KiObject]) -> None:
    """Generated type lists (inheritance, pointers, SharedPointers, embedded and recursive
    objects, every leaf and enum kind): the row is the decoded object in the row form, and
    the table read back is what the Arrow plan of the row holds."""
    types, value = case
    text = types.text()
    schema = load_schema(text)
    ser = Serializer(schema)
    data = ser.encode(strategies.written(schema, value, shallow=True, mask=7))
    decoded = ser.decode(data)
    model = rows_of(schema).model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GameserdeWarning)  # lone surrogates
        row = schema.codec().to_row(decoded)
    assert row.value == row_form(model, Ref(decoded.type_name), decoded)
    for name, cls in model.types.items():
        if isinstance(cls, Union) and name != OBJECT:
            declared = cls.attributes["declared"]
            assert list(cls.members) == [c.name for c in types.derived(declared)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "types.json"
        path.write_text(text)
        summary = batch.run("decode", [("k", data)], "kingsisle", parquet=Path(folder) / "out",
                            schema=str(path), executor=ThreadPoolExecutor(1))
        assert summary.ok == 1
        rows = table(Path(folder) / "out", table_name(decoded.type_name)).to_pylist()
    planned = plan(model, Ref(decoded.type_name))
    assert planned.convert is not None
    assert rows[0].pop("key") == "k"
    assert read_back(rows[0], planned.convert(row.value))
