"""Zeze solution XML → ZezeSchema: the vectors' schema, lowering, names, imports, errors."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import SchemaError
from gameserde.schema.model import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    STRING,
    List,
    Map,
    Record,
    Ref,
    Set,
)
from gameserde.zeze import ZezeSchema, hash32, hash64, load_schema, protocol_type_id

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def oracle(vectors: dict[str, Any]) -> ZezeSchema:
    return load_schema(vectors["meta"]["schema_xml"], filename="oracle.xml")


def solution(body: str, name: str = "app", module: str = "m", module_id: int = 7) -> str:
    return (f'<solution name="{name}">\n<module name="{module}" id="{module_id}">\n'
            f"{body}\n</module>\n</solution>\n")


# -- the vectors' schema ----------------------------------------------------------------------


def test_every_bean_of_the_vectors_resolves(vectors: dict[str, Any], oracle: ZezeSchema) -> None:
    names = {c["bean"] for cat in ("beans", "decode", "protocol") for c in vectors[cat]
             if c.get("bean")}
    assert len(names) >= 10
    for name in names:
        rec = oracle.bean(name)
        assert rec.name == name and rec.kind == "bean"
        assert oracle.bean(name.rsplit(".", 1)[1]) is rec
        assert oracle.bean("m." + name.rsplit(".", 1)[1]) is rec


def test_protocol_type_ids_of_the_vectors(vectors: dict[str, Any], oracle: ZezeSchema) -> None:
    matched = 0
    for case in vectors["protocol"]:
        assert protocol_type_id(case["moduleId"], case["protocolId"]) == case["typeId"]
        proto = oracle.protocol_by_type_id(case["typeId"])
        if case["moduleId"] != 7:  # the high-bit module id is not in the schema
            assert proto is None
            continue
        assert proto is not None
        matched += 1
        assert (proto.module_id, proto.id, proto.type_id) == (
            case["moduleId"], case["protocolId"], case["typeId"])
        bean = proto.result if case["family"] == "response" else proto.argument
        assert bean == case["bean"]
        assert proto.kind == ("protocol" if case["family"] == "protocol" else "rpc")
    assert matched == 5
    assert oracle.protocol("PRole").id == hash32("oracle.m.PRole")
    assert oracle.modules == {"oracle.m": 7}


def test_lowering_of_every_type(oracle: ZezeSchema) -> None:
    rec = oracle.bean("BAll")
    types = {f.name: f.type for f in rec.fields}
    assert [types[n] for n in ("b", "i8", "i16", "i32", "i64", "f32", "f64", "bin", "str")] == [
        BOOL, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BYTES, STRING]
    assert types["inner"] == Ref("oracle.m.BInner")
    for name, builtin in (("v2", "vector2"), ("v2i", "vector2int"), ("v3", "vector3"),
                          ("v3i", "vector3int"), ("v4", "vector4"), ("quat", "quaternion")):
        assert types[name] == Ref(f"zeze.{builtin}")
        assert oracle.model[f"zeze.{builtin}"].kind == "vector"  # type: ignore[union-attr]
    assert types["listBean"] == List(Ref("oracle.m.BInner"))
    assert types["setString"] == Set(STRING)
    assert types["mapIntV3i"] == Map(INT32, Ref("zeze.vector3int"))
    assert types["listDyn"] == List(Ref("oracle.m.BAll.listDyn"))
    assert types["mapStrDyn"] == Map(STRING, Ref("oracle.m.BAll.mapStrDyn"))
    assert [f.id for f in rec.fields][-2:] == [100, 300]
    assert rec.attributes["type_id"] == hash64("oracle.m.BAll")
    assert rec.attributes["module"] == "oracle.m"
    assert rec.attributes["file"] == "oracle.xml"
    assert rec.attributes["line"] == 19
    assert rec.field("b").attributes["line"] == 20


def test_dynamic_unions(oracle: ZezeSchema) -> None:
    hashed = oracle.union("oracle.m.BAll.dyn")
    assert hashed.kind == "dynamic" and hashed.discriminator == INT64
    assert dict(hashed.members) == {
        "oracle.m.BInner": (hash64("oracle.m.BInner"), Ref("oracle.m.BInner")),
        "oracle.m.BOther": (hash64("oracle.m.BOther"), Ref("oracle.m.BOther"))}
    assert hashed.attributes["special"] is False
    special = oracle.union("oracle.m.BAll.dynSpecial")
    assert [v for v, _ in special.members.values()] == [1, 2]
    assert special.attributes["special"] is True
    holder = oracle.union("oracle.m.BHolder.dyn")
    assert list(holder.members) == ["oracle.m.BBase", "oracle.m.BDerive", "oracle.m.BFinal"]


def test_layers_and_defaults(oracle: ZezeSchema) -> None:
    final = oracle.bean("BFinal")
    assert final.base == "oracle.m.BDerive"
    assert oracle.bean("BDerive").base == "oracle.m.BBase"
    assert oracle.bean("BBase").attributes["extendable"] is True
    assert "extendable" not in final.attributes
    assert [f.name for f in oracle.model.fields_of(final)] == [
        "baseInt", "baseStr", "deriveInt", "finalInt", "finalList"]
    d = oracle.bean("BV1").field("d")
    assert d.default == 5 and d.attributes["default_text"] == "5"
    assert oracle.bean("BV1").field("a").default is None


def test_builtin_records_are_always_there(oracle: ZezeSchema) -> None:
    dec = oracle.model["zeze.decimal"]
    assert isinstance(dec, Record) and dec.kind == "decimal" and dec.fields == ()
    v3i = oracle.model["zeze.vector3int"]
    assert isinstance(v3i, Record) and [f.type for f in v3i.fields] == [INT32] * 3
    assert set(oracle.beans) == {n for n in oracle.model.types if n.startswith("oracle.m.B")
                                 and isinstance(oracle.model[n], Record)}


# -- the schema language ----------------------------------------------------------------------


def test_type_syntax_variants() -> None:
    s = load_schema(solution("""
<bean name="BItem"><variable id="1" name="k" type="long"/></bean>
<beankey name="BKey"><variable id="1" name="k" type="long"/></beankey>
<bean name="B">
  <variable id="1" name="a" type="list" value="BItem"/>
  <variable id="2" name="b" type="map" key="int" value="long"/>
  <variable id="3" name="c" type="array[int]"/>
  <var id="4" name="d" type="sortedmap[ BKey , BItem ]"/>
  <variable id="5" name="e" type="set[decimal]"/>
  <variable id="6" name="f" type="decimal"/>
  <variable id="7" name="g" type="app.m.BItem" transient="true"/>
  <variable id="8" name="h" type="set[vector3]"/>
</bean>"""))
    types = {f.name: f.type for f in s.bean("B").fields}
    assert types == {
        "a": List(Ref("app.m.BItem")), "b": Map(INT32, INT64), "c": List(INT32),
        "d": Map(Ref("app.m.BKey"), Ref("app.m.BItem")), "e": Set(Ref("zeze.decimal")),
        "f": Ref("zeze.decimal"), "g": Ref("app.m.BItem"), "h": Set(Ref("zeze.vector3"))}
    assert s.bean("B").field("g").attributes["transient"] is True
    assert "transient" not in s.bean("B").field("f").attributes
    assert s.bean("BKey").kind == "beankey"


def test_builtin_names_come_first_and_names_resolve_by_module() -> None:
    s = load_schema("""<solution name="app">
<module name="a" id="1">
  <bean name="int"><variable id="1" name="x" type="long"/></bean>
  <bean name="B"><variable id="1" name="x" type="int"/></bean>
  <module name="sub" id="3">
    <bean name="B"><variable id="1" name="y" type="list[B]"/>
      <variable id="2" name="z" type="app.a.B"/></bean>
  </module>
</module>
<module name="b" id="2">
  <bean name="C"><variable id="1" name="b" type="app.a.sub.B"/></bean>
</module>
</solution>""")
    assert s.bean("app.a.B").field("x").type == INT32
    inner = s.bean("app.a.sub.B")
    assert inner.field("y").type == List(Ref("app.a.sub.B"))
    assert inner.field("z").type == Ref("app.a.B")
    assert inner.attributes["module"] == "app.a.sub"
    assert s.modules == {"app.a": 1, "app.a.sub": 3, "app.b": 2}
    assert s.bean("app.b.C").field("b").type == Ref("app.a.sub.B")
    with pytest.raises(KeyError, match="ambiguous"):
        s.bean("B")


def test_self_reference_in_nested_module_is_a_cycle() -> None:
    with pytest.raises(SchemaError, match=r"<string>:3: bean app.m.B contains itself"):
        load_schema(solution('<bean name="B"><variable id="1" name="y" type="B"/></bean>'))


def test_dynamic_base_means_every_known_subclass() -> None:
    s = load_schema(solution("""
<bean name="Base" extendable="true"><variable id="1" name="hp" type="int"/></bean>
<bean name="Zed" base="Base" extendable="true"><variable id="1" name="z" type="int"/></bean>
<bean name="Hero" base="app.m.Base"><variable id="1" name="mp" type="int"/></bean>
<bean name="Sub" base="Zed"><variable id="1" name="s" type="int"/></bean>
<bean name="Holder">
  <variable id="1" name="d" type="dynamic:Base"/>
  <variable id="2" name="l" type="list[dynamic:Zed]"/>
  <variable id="3" name="e" type="dynamic"/>
</bean>"""))
    d = s.union("app.m.Holder.d")
    assert list(d.members) == ["app.m.Base", "app.m.Hero", "app.m.Sub", "app.m.Zed"]
    assert all(v == hash64(k) for k, (v, _) in d.members.items())
    assert list(s.union("app.m.Holder.l").members) == ["app.m.Zed", "app.m.Sub"]
    assert dict(s.union("app.m.Holder.e").members) == {}


def test_protocols_enums_tables() -> None:
    s = load_schema(solution("""
<bean name="BArg"><variable id="1" name="x" type="int"/>
  <enum name="MAX" value="10"/></bean>
<enum name="ErrFull" value="3"/>
<enum name="Label" value="hello"/>
<protocol name="SEnter" argument="BArg" handle="client"/>
<protocol name="SPing" id="-5"/>
<rpc name="RGet" id="2" argument="BArg" result="app.m.BArg" handle="server">
  <enum name="Code" value="0x10"/></rpc>
<table name="trole" key="long" value="BArg" memory="true"/>
""", module_id=300))
    enter = s.protocol("SEnter")
    assert enter.id == hash32("app.m.SEnter") and enter.kind == "protocol"
    assert enter.type_id == protocol_type_id(300, enter.id)
    assert enter.argument == "app.m.BArg" and enter.result is None and enter.line == 8
    ping = s.protocol("app.m.SPing")
    assert ping.argument is None and ping.type_id == (300 << 32) | 0xFFFFFFFB
    get = s.protocol("RGet")
    assert (get.kind, get.argument, get.result) == ("rpc", "app.m.BArg", "app.m.BArg")
    assert s.protocol_by_type_id(get.type_id) is get
    assert s.protocol_by_type_id(12345) is None
    assert s.enums == {"app.m.BArg.MAX": 10, "app.m.ErrFull": 3, "app.m.Label": "hello",
                       "app.m.RGet.Code": 16}
    assert s.tables == {"app.m.trole": {"name": "trole", "key": "long", "value": "BArg",
                                        "memory": "true"}}
    assert s.bean_by_type_id(hash64("app.m.BArg")) is s.bean("BArg")


def test_type_id_attribute_and_solution_level_beans() -> None:
    s = load_schema("""<solution name="app">
<bean name="Top" TypeId="77"><variable id="1" name="x" type="int"/></bean>
<module name="m" id="1"><bean name="B">
  <variable id="1" name="d" type="dynamic"><value bean="app.Top"/></variable></bean></module>
</solution>""")
    assert s.bean("app.Top").attributes["type_id"] == 77
    assert s.bean("app.Top").attributes["module"] == "app"
    assert dict(s.union("app.m.B.d").members) == {"app.Top": (77, Ref("app.Top"))}


@pytest.mark.parametrize(("type_", "text", "value"), [
    ("int", "-12", -12), ("int", "0x10", 16), ("int", "0xFFFFFFFF", -1), ("int", "1_000", 1000),
    ("int", "010", 8), ("long", "5L", 5), ("byte", "-128", -128), ("int", "ErrFull", 3),
    ("int", "app.m.ErrFull", 3), ("bool", "true", True), ("bool", "false", False),
    ("float", "0.1f", 0.10000000149011612), ("double", "0.1", 0.1), ("double", "1e3", 1000.0),
    ("float", "3", 3.0), ("double", "Double.POSITIVE_INFINITY", float("inf")),
    ("string", " a b ", " a b "), ("vector3", "1, 2.5, -3", (1.0, 2.5, -3.0)),
    ("vector2int", "4,5", (4, 5)), ("BOther", "1, 2", None),
])
def test_defaults(type_: str, text: str, value: object) -> None:
    s = load_schema(solution(f"""<enum name="ErrFull" value="3"/>
<bean name="BOther"><variable id="1" name="x" type="int"/></bean>
<bean name="B"><variable id="1" name="v" type="{type_}" default="{text}"/></bean>"""))
    field = s.bean("B").field("v")
    assert field.default == value and type(field.default) is type(value)
    assert field.attributes["default_text"] == text


def test_nan_default() -> None:
    s = load_schema(solution('<bean name="B"><variable id="1" name="v" type="float" '
                             'default="Float.NaN"/></bean>'))
    default = s.bean("B").field("v").default
    assert default != default


# -- text, paths and imports --------------------------------------------------------------------


def test_text_or_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = solution('<bean name="B"><variable id="1" name="v" type="int"/></bean>')
    (tmp_path / "s.xml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for source in ("s.xml", tmp_path / "s.xml", text, text.encode(), text.replace("\n", " ")):
        assert set(load_schema(source).beans) == {"app.m.B"}
    assert load_schema("s.xml").bean("B").attributes["file"] == "s.xml"
    with pytest.raises(SchemaError, match=r"^nope\.xml:0: cannot read .*a str without"):
        load_schema("nope.xml")
    with pytest.raises(SchemaError, match=r":0: cannot read the solution file .*directory"):
        load_schema(tmp_path)
    with pytest.raises(SchemaError, match=r"^<string>:1: the imported file /dev/zero cannot be "
                       r"read: not a regular file$"):
        load_schema('<solution name="a"><import file="/dev/zero"/></solution>')
    with pytest.raises(SchemaError, match=r"^x\.xml:3: .*'1B'"):
        load_schema(text.replace("B", "1B"), filename="x.xml")


def test_imports_are_relative_and_cycle_safe(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "main.xml").write_text("""<solution name="game">
  <import file="common/base.xml"/>
  <module name="role" id="2"><bean name="BRole">
    <variable id="1" name="item" type="lib.items.BItem"/></bean></module>
</solution>""", encoding="utf-8")
    (tmp_path / "common" / "base.xml").write_text("""<solution name="lib">
  <import file="../main.xml"/>
  <import file="base.xml"/>
  <module name="items" id="1"><bean name="BItem">
    <variable id="1" name="id" type="int"/></bean></module>
</solution>""", encoding="utf-8")
    s = load_schema(tmp_path / "main.xml")
    assert set(s.beans) == {"lib.items.BItem", "game.role.BRole"}
    assert s.bean("BItem").attributes["file"].endswith("base.xml")
    assert s.model.attributes["solutions"] == ("game", "lib")


def test_import_from_text_uses_the_filename_folder(tmp_path: Path) -> None:
    (tmp_path / "lib.xml").write_text("""<solution name="lib"><module name="x" id="1">
  <bean name="BItem"><variable id="1" name="id" type="int"/></bean></module></solution>""",
                                      encoding="utf-8")
    text = '<solution name="app">\n<import file="lib.xml"/>\n</solution>'
    assert set(load_schema(text, filename=str(tmp_path / "app.xml")).beans) == {"lib.x.BItem"}
    with pytest.raises(SchemaError, match=r"^<string>:2: the imported file lib\.xml cannot be "
                       r"read: No such file"):
        load_schema(text)


# -- errors -------------------------------------------------------------------------------------

BAD = [
    ('<bean name="B"><variable id="1" name="v" type="strin"/></bean>', "is not a type"),
    ('<bean name="B"><variable id="1" name="v" type="list[Nope]"/></bean>', "not a type"),
    ('<bean name="B"><variable id="1" name="v" type="list[list[int]]"/></bean>', "cannot read"),
    ('<bean name="B"><variable id="1" name="v" type="list" value="list"/></bean>', "nest"),
    ('<bean name="B"><variable id="1" name="v" type="list"/></bean>', "element type"),
    ('<bean name="B"><variable id="1" name="v" type="map[int]"/></bean>', "key and a value"),
    ('<bean name="B"><variable id="1" name="v" type="map[float,int]"/></bean>', "keyable"),
    ('<bean name="B"><variable id="1" name="v" type="set[B]"/></bean>', "keyable"),
    ('<bean name="B"><variable id="1" name="v" type="set[dynamic]"/></bean>', "keyable"),
    ('<bean name="B"><variable id="1" name="v" type="int" key="int"/></bean>', "no key"),
    ('<bean name="B"><variable id="1" name="v" type="map[int,int]" key="int"/></bean>',
     "already names"),
    ('<bean name="B"><variable id="1" name="v" type="gtable[int,B]"/></bean>',
     "row key, a column key and a value"),
    ('<bean name="B"><variable id="1" name="v" type="gtable[float,int,int]"/></bean>',
     "row keys of a gtable must be keyable"),
    ('<bean name="B"><variable id="1" name="v" type="gtable[int,int,dynamic]"/></bean>',
     "cannot be dynamic"),
    ('<bean name="B"><variable id="1" name="v" type="list:B"/></bean>', "only dynamic"),
    ('<bean name="B"><variable id="0" name="v" type="int"/></bean>', "outside 1..4095"),
    ('<bean name="B"><variable id="4096" name="v" type="int"/></bean>', "outside 1..4095"),
    ('<bean name="B"><variable id="x" name="v" type="int"/></bean>', "must be an integer"),
    ('<bean name="B"><variable name="v" type="int"/></bean>', "needs an id"),
    ('<bean name="B"><variable id="1" name="v"/></bean>', "needs a type"),
    ('<bean name="B"><variable id="1" name="a.b" type="int"/></bean>', "identifiers"),
    ('<bean name="B"><variable id="1" name="v" type="int"/>\n'
     '<variable id="1" name="w" type="int"/></bean>', "id 1 is used twice"),
    ('<bean name="B"><variable id="1" name="v" type="int"/>\n'
     '<variable id="2" name="v" type="int"/></bean>', "name v is used twice"),
    ('<bean name="B"/>\n<bean name="b"/>', "ignoring case"),
    ('<bean name="B"><foo/></bean>', "<foo> is not allowed"),
    ('<bean name="B"><variable id="1" name="v" type="int"><x/></variable></bean>',
     "not allowed"),
    ('<bean name="B" base="Nope"/>', "not a bean"),
    ('<bean name="A" base="B"/><bean name="B" base="A"/>', "comes back"),
    ('<bean name="A"><variable id="1" name="v" type="int"/></bean>\n'
     '<bean name="B" base="A"><variable id="1" name="v" type="int"/></bean>', "also in its base"),
    ('<beankey name="K"/>\n<bean name="B" base="K"/>', "beankey"),
    ('<beankey name="K"><variable id="1" name="v" type="float"/></beankey>', "keyable"),
    ('<beankey name="K"/>\n<bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="K"/></variable></bean>', "beankey"),
    ('<bean name="A"/>\n<bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="A:1"/><value bean="B"/></variable></bean>', "to every bean"),
    ('<bean name="A"/>\n<bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="A:0"/></variable></bean>', "positive"),
    ('<bean name="A"/>\n<bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="A:x"/></variable></bean>', "must be an integer"),
    ('<bean name="A"/>\n<bean name="C"/><bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="A:1"/><value bean="C:1"/></variable></bean>', "clashes"),
    ('<bean name="B"><variable id="1" name="d" type="dynamic:Nope"/></bean>', "not a type"),
    ('<bean name="A" TypeId="5"/>\n<bean name="B" TypeId="5"/>', "already the TypeId"),
    ('<bean name="A" TypeId="0"/>', "EmptyBean"),
    ('<bean name="A"><variable id="1" name="v" type="int" default="x"/></bean>', "not an int"),
    ('<bean name="A"><variable id="1" name="v" type="byte" default="200"/></bean>', "not fit"),
    ('<bean name="A"><variable id="1" name="v" type="int" default="089"/></bean>', "not an int"),
    ('<bean name="A"><variable id="1" name="v" type="int" default="0x100000000"/></bean>',
     "not an int"),
    ('<bean name="A"><variable id="1" name="v" type="bool" default="1"/></bean>', "true or"),
    ('<bean name="A"><variable id="1" name="v" type="float" default="1e99"/></bean>',
     "float literal"),
    ('<bean name="A"><variable id="1" name="v" type="vector3" default="1,2"/></bean>',
     "3 components"),
    ('<bean name="A"><variable id="1" name="v" type="vector2" default="1,1e99"/></bean>',
     "float components"),
    ('<bean name="A"><variable id="1" name="v" type="vector2int" default="1,1.5"/></bean>',
     "int components"),
    ('<bean name="A"><variable id="1" name="v" type="list[int]" default="1"/></bean>',
     "not allowed"),
    ('<bean name="A"><variable id="1" name="v" type="decimal" default="1"/></bean>',
     "not allowed"),
    ('<protocol name="P" id="0"/>', "must not be 0"),
    ('<protocol name="P" id="1"/>\n<protocol name="Q" id="1"/>', "already used"),
    ('<protocol name="P" id="99999999999"/>', "does not fit"),
    ('<protocol name="P" argument="Nope"/>', "not a bean"),
    ('<rpc name="P" result="Nope"/>', "not a bean"),
    ('<protocol name="P"><x/></protocol>', "not allowed"),
    ('<module name="n"/>', "needs an id"),
    ('<module name="n" id="0"/>', "positive"),
    ('<module name="n" id="7"/>', "already used"),
    ('<enum name="E" value="1"/>\n<enum name="E" value="2"/>', "twice"),
    ('<table/>', "empty name"),
    (f'<bean name="{"B" * 1100}"/>', "longer than 1024"),
    ('<zzz/>', "<zzz> is not allowed in a <module>"),
]


@pytest.mark.parametrize(("body", "message"), BAD)
def test_errors_name_file_and_line(body: str, message: str) -> None:
    text = solution(body)
    line = 3 + body.count("\n")  # every case's error is on its last line
    with pytest.raises(SchemaError) as info:
        load_schema(text, filename="solution.xml")
    assert str(info.value).startswith(f"solution.xml:{line}: "), str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize(("text", "line", "message"), [
    ("<solution name='a'>\n<module name='m' id='1'>\n</solution>", 3, "not well-formed"),
    ("<solution name='a'>\n</solution>\n<x/>", 3, "junk after"),
    ("", 1, "no element found"),
    ("<solution name='a'>&nope;</solution>", 1, "undefined entity"),
    ("<module name='m' id='1'/>", 1, "not <solution>"),
    ("<solution/>", 1, "empty name"),
    ("<solution name='a'>\n<import/></solution>", 2, "needs a file"),
    ("<solution name='a'>\n<protocol name='P'/></solution>", 2, "not allowed in a <solution>"),
    ("<solution name='a' ModuleIdAllowRanges='1-5'>\n<module name='m' id='6'/></solution>", 2,
     "ModuleIdAllowRanges"),
    ("<solution name='a' ModuleIdAllowRanges='5-1'>\n</solution>", 1, "empty range"),
    ("<solution name='a' ModuleIdAllowRanges='1-2-3'>\n</solution>", 1, "bad range"),
    ("<solution name='a'>\n<module name='m' id='1'/>\n<module name='M' id='2'/></solution>", 3,
     "declared twice"),
])
def test_document_errors(text: str, line: int, message: str) -> None:
    with pytest.raises(SchemaError) as info:
        load_schema(text.encode(), filename="solution.xml")
    assert str(info.value).startswith(f"solution.xml:{line}: "), str(info.value)
    assert message in str(info.value)


def test_module_id_ranges_accept_listed_ids() -> None:
    text = ("<solution name='a' ModuleIdAllowRanges='1-5,9'>\n<module name='m' id='9'/>\n"
            "<module name='n' id='5'/></solution>")
    assert load_schema(text).modules == {"a.m": 9, "a.n": 5}


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE solution [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
    '<!DOCTYPE solution SYSTEM "http://example.invalid/evil.dtd">',
    "<!DOCTYPE solution>",
])
def test_doctype_and_entities_are_refused(doctype: str) -> None:
    text = f'<?xml version="1.0"?>\n{doctype}\n<solution name="a">&b;</solution>'
    with pytest.raises(SchemaError, match=r"^s\.xml:2: a document type declaration"):
        load_schema(text, filename="s.xml")


def test_deep_nesting_is_refused() -> None:
    depth = 5000
    text = ('<solution name="a">\n' + '<module name="m" id="1">' * depth
            + "</module>" * depth + "</solution>")
    with pytest.raises(SchemaError, match=r"nest deeper than"):
        load_schema(text)


def test_long_base_chains_are_refused() -> None:
    beans = '<bean name="B0"/>\n' + "\n".join(
        f'<bean name="B{i}" base="B{i - 1}"/>' for i in range(1, 150))
    with pytest.raises(SchemaError, match=r"longer than 100"):
        load_schema(solution(beans))


def test_not_xml_text_is_refused() -> None:
    with pytest.raises(SchemaError, match=r"^<string>:1: "):
        load_schema("<solution name='a'>\udc80</solution>")


# -- cost --------------------------------------------------------------------------------------


def _calls(fn: Any) -> int:
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _long_solution(n: int) -> str:
    beans = []
    for i in range(n):
        ref = f"B{i - 1}" if i else "int"
        beans.append(f'<bean name="B{i}"><variable id="1" name="a" type="{ref}"/>'
                     f'<variable id="2" name="l" type="list[{ref}]"/>'
                     f'<variable id="3" name="d" type="dynamic:B0"/>'
                     f'<variable id="4" name="m" type="map[string,int]" default="x"/></bean>')
        beans[-1] = beans[-1].replace(' default="x"', "")
        beans.append(f'<protocol name="P{i}" argument="B{i}"/>')
    return solution("\n".join(beans))


def test_cost_grows_linearly() -> None:
    costs = [(n, _calls(lambda n=n: load_schema(_long_solution(n)))) for n in (100, 400)]
    (n0, c0), (n1, c1) = costs
    assert c1 <= 1.3 * c0 * n1 / n0, costs


def test_hash_reference_examples() -> None:
    assert hash64("oracle.m.BInner") == 1672419721427709652
    assert hash32("oracle.m.PRole") == 1658179626
    assert protocol_type_id(-2147483647, -2) == -9223372028264841218
    assert re.fullmatch(r"-?\d+", str(hash64("")))
