"""Solution syntax that real solution files use and Zeze's Gen reads (issue 18): external
beans and beankeys, the old ``type="dynamic" value="A,B"``, ``type="string"
value="JSON_OBJECT"``, ``gtable``, transient fields in the values given to the encoder, and
the errors of imports that cannot be read or are not solutions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gameserde import zeze
from gameserde.errors import EncodeError, SchemaError
from gameserde.zeze import _accel
from gameserde.zeze import bytebuffer as bb
from gameserde.zeze._plan import plans_of
from gameserde.zeze.bytebuffer import Reader

from .test_accel import outcome, pure


def solution(body: str) -> str:
    return f'<solution name="app">\n<module name="m" id="1">\n{body}\n</module>\n</solution>'


# -- <external> and <externalkey> ------------------------------------------------------------

EXTERNALS = zeze.load_schema("""<solution name="app">
  <externalkey beankey="Zeze.Util.Id128"/>
  <module name="m" id="1">
    <external bean="Zeze.Arch.Beans.BSend"/>
    <bean name="B">
      <variable id="1" name="id" type="Zeze.Util.Id128"/>
      <variable id="2" name="ids" type="map[Zeze.Util.Id128,int]"/>
      <variable id="3" name="sends" type="list[Zeze.Arch.Beans.BSend]"/>
    </bean>
    <rpc name="Send" argument="Zeze.Arch.Beans.BSend" result="B"/>
  </module>
</solution>""")

TAG_SHIFT = 4  # Java's ByteBuffer.TAG_SHIFT: a tag byte is (id delta << 4) + wire type

# Java's Id128(high=1, low=2).encode: field 1, a LIST of 2 INTEGERs, then the end of the bean
ID128 = bytes([(1 << TAG_SHIFT) + bb.LIST, (2 << TAG_SHIFT) + bb.INTEGER, 1, 2, 0])
ID128_FIELDS = [zeze.UnknownField(1, bb.LIST, ID128[1:-1])]


def test_externals_are_types_without_fields() -> None:
    key, send = EXTERNALS.bean("Zeze.Util.Id128"), EXTERNALS.bean("BSend")
    assert (key.kind, key.fields, key.attributes["external"]) == ("beankey", (), True)
    assert (send.kind, send.name, send.attributes["module"]) == ("bean", "Zeze.Arch.Beans.BSend",
                                                                 "app.m")
    assert "type_id" not in send.attributes  # its hand-written class gives it
    assert EXTERNALS.protocol("Send").argument == "Zeze.Arch.Beans.BSend"


def test_external_beans_keep_every_field_their_class_writes() -> None:
    data = (bytes([(1 << TAG_SHIFT) + bb.BEAN]) + ID128
            + bytes([(1 << TAG_SHIFT) + bb.MAP, (bb.BEAN << TAG_SHIFT) + bb.INTEGER, 1])
            + ID128 + bytes([7])
            + bytes([(1 << TAG_SHIFT) + bb.LIST, (1 << TAG_SHIFT) + bb.BEAN]) + ID128
            + b"\x00")
    for agreeing in (outcome, pure):
        status, value = agreeing(zeze.decode, EXTERNALS, "B", data)
        assert status == "ok"
        assert value["id"] == {zeze.UNKNOWN_KEY: ID128_FIELDS}
        assert value["ids"] == {zeze.FrozenBean({zeze.UNKNOWN_KEY: ID128_FIELDS}): 7}
        assert value["sends"] == [{zeze.UNKNOWN_KEY: ID128_FIELDS}]
        assert agreeing(zeze.encode, EXTERNALS, "B", value) == ("ok", data)
    text = zeze.to_json(EXTERNALS, "B", value)
    assert '"id":{"$unknown":[[1,4,"200102"]]}' in text
    assert zeze.encode(EXTERNALS, "B", zeze.from_json(EXTERNALS, "B", text)) == data
    assert zeze.encode(EXTERNALS, "Zeze.Util.Id128", {}) == b"\x00"
    assert zeze.decode(EXTERNALS, "BSend", ID128) == {zeze.UNKNOWN_KEY: ID128_FIELDS}


def test_an_external_bean_in_a_dynamic_with_its_type_id() -> None:
    s = zeze.load_schema(solution('<external bean="a.X"/><bean name="B">'
                                  '<variable id="1" name="d" type="dynamic">'
                                  '<value bean="a.X:7"/></variable></bean>'))
    value = {"d": zeze.Dynamic("a.X", {zeze.UNKNOWN_KEY: ID128_FIELDS})}
    data = zeze.encode(s, "B", value)
    assert data == bytes([(1 << TAG_SHIFT) + bb.DYNAMIC, 7]) + ID128 + b"\x00"
    assert zeze.decode(s, "B", data)["d"] == zeze.Dynamic("a.X", value["d"].value, 7)


def test_a_frozen_external_key_equals_its_dict() -> None:
    key = zeze.FrozenBean({zeze.UNKNOWN_KEY: ID128_FIELDS})
    assert key == {zeze.UNKNOWN_KEY: ID128_FIELDS} and hash(key) == hash(zeze.FrozenBean(key))
    assert key != {zeze.UNKNOWN_KEY: []}


def test_an_external_bean_with_a_named_field_is_refused() -> None:
    with pytest.raises(EncodeError, match=r"Zeze\.Arch\.Beans\.BSend has no field 'x'"):
        zeze.encode(EXTERNALS, "B", {"sends": [{"x": 1}]})
    with pytest.raises(EncodeError, match="has no field 'x'"):
        zeze.from_json(EXTERNALS, "B", '{"sends": [{"x": 1}]}')


@pytest.mark.parametrize(("body", "message"), [
    ('<external bean="X"/><bean name="B"><variable id="1" name="d" type="dynamic">'
     '<value bean="X"/></variable></bean>',
     r"^<string>:3: app\.m\.B\.d: X is an external bean, whose TypeId its hand-written class "
     r"gives, not the solution; give it here \(bean=\"X:TYPEID\"\)$"),
    ('<external bean="a.X"/><bean name="B" base="a.X"/>',
     r"^<string>:3: bean app\.m\.B: its base a\.X is an external bean, whose fields the solution "
     r"does not give$"),
    ('<external bean="a..B"/>', r"^<string>:3: <external> has the name 'a\.\.B'; its bean= "
     r"attribute is the full name of a hand-written class"),
    ('<externalkey/>', r"^<string>:3: <externalkey> has no name"),
    ('<external bean="app.m.B"/><bean name="B"/>', r"^<string>:3: bean app\.m\.B clashes with "
     r"external bean app\.m\.B"),
    ('<external bean="X"><variable id="1" name="v" type="int"/></external>',
     r"^<string>:3: <variable> is not allowed in an <external>$"),
])
def test_bad_externals(body: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        zeze.load_schema(solution(body))


# -- the old dynamic syntax: type="dynamic" value="A,B" ------------------------------------

def test_old_dynamic_syntax_lists_beans_in_value() -> None:
    s = zeze.load_schema(solution("""<bean name="A"/><bean name="B"/><bean name="C"/>
<bean name="H"><variable id="1" name="d" type="dynamic" value="A, app.m.B,A">
  <value bean="C"/></variable></bean>"""))
    assert set(s.union("app.m.H.d").members) == {"app.m.A", "app.m.B", "app.m.C"}
    data = zeze.encode(s, "H", {"d": zeze.Dynamic("B", {})})
    assert zeze.decode(s, "H", data)["d"] == zeze.Dynamic("app.m.B", {}, zeze.hash64("app.m.B"))


def test_old_dynamic_syntax_with_special_type_ids() -> None:
    s = zeze.load_schema(solution("""<bean name="A"/><bean name="B"/>
<bean name="H"><variable id="1" name="d" type="dynamic" value="A:1"><value bean="B:2"/>
</variable></bean>"""))
    members = s.union("app.m.H.d").members
    assert {name: type_id for name, (type_id, _) in members.items()} == {"app.m.A": 1,
                                                                          "app.m.B": 2}
    with pytest.raises(SchemaError, match="to every bean of the dynamic or to none"):
        zeze.load_schema(solution("""<bean name="A"/><bean name="B"/>
<bean name="H"><variable id="1" name="d" type="dynamic" value="A:1,B"/></bean>"""))


@pytest.mark.parametrize("attrs", ['type="dynamic:A" value="A"', 'type="dynamic" key="A"',
                                   'type="dynamic" key="A" value="A"'])
def test_dynamic_with_other_attributes_is_refused(attrs: str) -> None:
    with pytest.raises(SchemaError, match="dynamic takes no key= or value= attribute"):
        zeze.load_schema(solution(f'<bean name="A"/><bean name="H"><variable id="1" name="d" '
                                  f'{attrs}/></bean>'))


# -- type="string" value="JSON_OBJECT" / "JSON_ARRAY" -------------------------------------

JSON_SCHEMA = zeze.load_schema(solution("""<bean name="J">
  <variable id="1" name="o" type="string" value="JSON_OBJECT"/>
  <variable id="2" name="a" type="string" value="JSON_ARRAY"/>
</bean>"""))


def test_json_strings_are_strings_on_the_wire() -> None:
    bean = JSON_SCHEMA.bean("J")
    assert [f.attributes.get("json") for f in bean.fields] == ["JSON_OBJECT", "JSON_ARRAY"]
    value = {"o": '{"a":1}', "a": "not JSON at all"}  # Java's setter takes any string
    data = zeze.encode(JSON_SCHEMA, "J", value)
    w = bb.Writer()
    w.write_tag(0, 1, bb.BYTES)
    w.write_string('{"a":1}')
    w.write_tag(1, 2, bb.BYTES)
    w.write_string("not JSON at all")
    assert data == w.getvalue() + b"\x00"
    assert zeze.decode(JSON_SCHEMA, "J", data) == value
    assert zeze.from_json(JSON_SCHEMA, "J", zeze.to_json(JSON_SCHEMA, "J", value)) == value
    assert zeze.decode(JSON_SCHEMA, "J", b"\x00") == {"o": "", "a": ""}


@pytest.mark.parametrize("value", [{"a": 1}, [1, 2]])
def test_a_parsed_json_value_is_refused(value: Any) -> None:
    for agreeing in (outcome, pure):
        status, message, path = agreeing(zeze.encode, JSON_SCHEMA, "J", {"o": value})
        assert status == "EncodeError" and "a string must be a str" in message
        assert path == '$.o'


def test_other_string_values_are_refused() -> None:
    with pytest.raises(SchemaError, match=r"^<string>:4: app\.m\.J\.o: a string's value= is "
                       r"JSON_OBJECT or JSON_ARRAY, not 'JSON'$"):
        zeze.load_schema(solution('<bean name="J">\n<variable id="1" name="o" type="string" '
                                  'value="JSON"/></bean>'))
    with pytest.raises(SchemaError, match="string takes no key= or value= attribute"):
        zeze.load_schema(solution('<bean name="J"><variable id="1" name="o" type="string" '
                                  'key="JSON_OBJECT"/></bean>'))


# -- gtable ------------------------------------------------------------------------------------

def test_gtable_is_a_map_of_beanmaps() -> None:
    s = zeze.load_schema(solution("""<bean name="V"><variable id="1" name="x" type="int"/></bean>
<bean name="G"><variable id="1" name="p" type="gtable[int, long, int]"/>
  <variable id="2" name="b" type="gtable" key="string,int" value="V"/></bean>"""))
    assert s.bean("app.m.G.p").fields[0].name == "Map1"
    assert s.bean("app.m.G.b").fields[0].name == "Map2"
    assert s.bean("app.m.G.b").attributes["gtable"] is True
    value = {"p": {5: {"Map1": {7: 9}}}, "b": {"r": {"Map2": {1: {"x": 3}}}}}
    data = zeze.encode(s, "G", value)
    w = bb.Writer()  # what GTable1/GTable2 and BeanMap1/BeanMap2 write
    w.write_tag(0, 1, bb.MAP)
    w.write_map_header(1, bb.INTEGER, bb.BEAN)
    w.write_long(5)
    w.write_tag(0, 1, bb.MAP)
    w.write_map_header(1, bb.INTEGER, bb.INTEGER)
    w.write_long(7)
    w.write_long(9)
    w.write_byte(0)
    w.write_tag(1, 2, bb.MAP)
    w.write_map_header(1, bb.BYTES, bb.BEAN)
    w.write_string("r")
    w.write_tag(0, 1, bb.MAP)
    w.write_map_header(1, bb.INTEGER, bb.BEAN)
    w.write_long(1)
    w.write_tag(0, 1, bb.INTEGER)
    w.write_long(3)
    w.write_byte(0)
    w.write_byte(0)
    w.write_byte(0)
    assert data == w.getvalue()
    assert zeze.decode(s, "G", data) == value


# -- transient fields in the values given to the encoder ------------------------------------

TRANSIENT = zeze.load_schema(solution("""<bean name="Base">
  <variable id="1" name="b" type="int"/><variable id="2" name="bt" type="int" transient="true"/>
</bean>
<bean name="T"><variable id="1" name="a" type="int"/>
  <variable id="2" name="t" type="app.m.Base" transient="true"/>
  <variable id="3" name="s" type="string"/></bean>
<bean name="D" base="Base"><variable id="1" name="d" type="int"/></bean>"""))


@pytest.mark.parametrize(("bean", "value", "without", "extra"), [
    ("T", {"a": 1, "t": {"b": 2}, "s": "x"}, {"a": 1, "s": "x"}, ',"t":{"b":5}'),
    ("T", {"t": "anything: it is never read"}, {}, ',"t":"x"'),
    ("D", {"d": 1, "b": 2, "bt": 3}, {"d": 1, "b": 2}, ',"bt":7'),
])
def test_transient_fields_are_ignored_when_encoding(bean: str, value: dict[str, Any],
                                                    without: dict[str, Any], extra: str) -> None:
    expected = zeze.encode(TRANSIENT, bean, without)
    assert outcome(zeze.encode, TRANSIENT, bean, value) == ("ok", expected)
    assert pure(zeze.encode, TRANSIENT, bean, value) == ("ok", expected)
    decoded = zeze.decode(TRANSIENT, bean, expected)
    assert "t" not in decoded and "bt" not in decoded
    text = zeze.to_json(TRANSIENT, bean, decoded)[:-1] + extra + "}"
    assert zeze.encode(TRANSIENT, bean, zeze.from_json(TRANSIENT, bean, text)) == expected


def test_the_c_twin_ignores_transient_fields_itself() -> None:
    plans = plans_of(TRANSIENT)

    def reference(value: Any) -> bytes:
        raise AssertionError("the C twin gave up")

    fast = _accel.codec(plans, plans.bean("app.m.T"), zeze.codec.MAX_DEPTH, reference,
                        reference, False, None, 0)
    assert fast is not None
    assert fast.encode({"a": 1, "t": {"b": 2}}) == zeze.encode(TRANSIENT, "T", {"a": 1})
    with pytest.raises(AssertionError, match="gave up"):  # other keys still go to the reference
        fast.encode({"a": 1, "x": 2})


def test_a_key_that_is_no_field_is_still_refused() -> None:
    for agreeing in (outcome, pure):
        assert agreeing(zeze.encode, TRANSIENT, "T", {"a": 1, "tt": 2})[:2] == (
            "EncodeError", "zeze encode error: app.m.T has no field 'tt'")


# -- imports that cannot be read, and files that are not solutions ----------------------------

def test_a_missing_import_names_the_importing_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    main = tmp_path / "sub" / "main.xml"
    main.write_text('<solution name="a">\n\n  <import file="../lib/x.xml"/>\n</solution>',
                    encoding="utf-8")
    with pytest.raises(SchemaError) as e:
        zeze.load_schema(main)
    assert str(e.value) == (f"{main}:3: the imported file ../lib/x.xml ({tmp_path}/lib/x.xml) "
                            "cannot be read: No such file or directory")


def test_an_import_that_is_not_a_solution_names_the_importing_line(tmp_path: Path) -> None:
    (tmp_path / "m.xml").write_text('<?xml version="1.0"?>\n<module name="x" id="1"/>',
                                    encoding="utf-8")
    main = tmp_path / "main.xml"
    main.write_text('<solution name="a">\n<import file="m.xml"/>\n</solution>',
                    encoding="utf-8")
    with pytest.raises(SchemaError) as e:
        zeze.load_schema(main)
    assert str(e.value) == (f"{main}:2: the imported file {tmp_path}/m.xml is not a solution "
                            "file: its root element (line 2) is <module>, not <solution>")
    with pytest.raises(SchemaError, match=r"^x\.xml:2: the root element is <module>, not "
                       r"<solution>, so this is not a solution file$"):
        zeze.load_schema((tmp_path / "m.xml").read_bytes(), filename="x.xml")


# -- ByteBuffer ------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "value"), [
    ("ff" * 9, (1 << 64) - 1), ("ff80" + "00" * 7, 1 << 63), ("fe" + "ff" * 7, (1 << 56) - 1),
])
def test_read_ulong_is_unsigned(data: str, value: int) -> None:
    r = Reader(bytes.fromhex(data))
    assert r.read_ulong() == value and r.pos == len(data) // 2
    assert Reader(bytes.fromhex("ff" * 9)).read_long() == -1  # ReadLong is the signed one
