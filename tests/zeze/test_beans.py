"""Bean rules the Java vectors do not show alone: defaults, absent fields, strict values."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from gameserde import zeze
from gameserde.errors import EncodeError
from gameserde.zeze.python import int32

SCHEMA = zeze.load_schema(b"""<solution name="s"><module name="m" id="1">
  <bean name="BItem">
    <variable id="1" name="id" type="int"/>
    <variable id="2" name="count" type="int" default="1"/>
  </bean>
  <bean name="BBag">
    <variable id="1" name="item" type="BItem"/>
    <variable id="2" name="size" type="short"/>
  </bean>
</module></solution>""")


def test_a_present_bean_reads_an_absent_default_field_as_zero() -> None:
    assert zeze.decode(SCHEMA, "BItem", b"\x10\x05\x00") == {"id": 5, "count": 0}


def test_a_dict_leaving_a_field_out_means_its_default() -> None:
    assert zeze.encode(SCHEMA, "BItem", {"id": 5}) == b"\x10\x05\x10\x01\x00"
    assert zeze.encode(SCHEMA, "BItem", {"id": 5, "count": 0}) == b"\x10\x05\x00"


def test_an_absent_bean_field_is_as_java_constructs_it() -> None:
    # Java's decoder leaves the field as `new BItem()` made it: count = 1
    bag = zeze.decode(SCHEMA, "BBag", b"\x20\x03\x00")
    assert bag == {"item": {"id": 0, "count": 1}, "size": 3}
    assert zeze.encode(SCHEMA, "BBag", bag) == b"\x16\x20\x01\x00\x10\x03\x00"
    assert zeze.encode(SCHEMA, "BBag", {"size": 3}) == b"\x16\x20\x01\x00\x10\x03\x00"


@pytest.mark.parametrize(("value", "path", "words"), [
    ({"size": 1 << 15}, '$.size', "does not fit a short"),
    ({"size": True}, '$.size', "must be an int"),
    ({"item": {"id": "1"}}, '$.item.id', "must be an int"),
    ({"item": []}, '$.item', "must be a dict or a dataclass"),
    ({"weight": 1}, "$", "has no field 'weight'"),
])
def test_bad_values_name_their_path(value: dict[str, object], path: str, words: str) -> None:
    with pytest.raises(EncodeError) as e:
        zeze.encode(SCHEMA, "BBag", value)
    assert e.value.path == path and words in str(e.value)


@dataclass
class BKey:
    __gameserde__ = {"kind": "beankey"}
    k: int32 = 0


@dataclass
class BKeyed:
    m: dict[BKey, int32] = field(default_factory=dict)
    s: set[BKey] = field(default_factory=set)


def test_unhashable_beankey_instances_become_frozen_beans() -> None:
    schema = zeze.load_schema(BKeyed, BKey, module="m", solution="s")
    value = {"m": {zeze.FrozenBean({"k": 1}): 2}, "s": [zeze.FrozenBean({"k": 3})]}
    data = zeze.encode(schema, "BKeyed", value)
    decoded = zeze.decode(schema, "BKeyed", data)
    assert decoded == BKeyed({zeze.FrozenBean({"k": 1}): 2}, {zeze.FrozenBean({"k": 3})})
    assert zeze.encode(schema, "BKeyed", decoded) == data
