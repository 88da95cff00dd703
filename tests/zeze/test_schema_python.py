"""Zeze schemas from dataclasses, and the name hashes against a reference written from §2.7."""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from typing import Annotated, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    Ref,
    Set,
    Union,
)
from gameserde.schema.python import uint8
from gameserde.zeze import hash32, hash64, load_schema, protocol_type_id
from gameserde.zeze.python import (
    dynamic,
    float32,
    int8,
    int16,
    int32,
    quaternion,
    schema_from_dataclasses,
    vector2,
    vector2int,
    vector3,
    vector3int,
    vector4,
)


@dataclass
class BInner:
    a: int32 = 0
    s: str = ""


@dataclass
class BOther:
    __gameserde__: ClassVar[dict[str, object]] = {"type_id": 99}
    x: int = 0


@dataclass
class BKey:
    __gameserde__: ClassVar[dict[str, object]] = {"kind": "beankey", "namespace": "lib.keys"}
    k: int = 0


@dataclass
class BAll:
    b: bool = field(default=False, metadata={"id": 1})
    i8: int8 = field(default=0, metadata={"id": 2})
    i16: int16 = field(default=0, metadata={"id": 3})
    i32: int32 = field(default=5, metadata={"id": 4})
    i64: int = field(default=0, metadata={"id": 5})
    f32: float32 = field(default=0.0, metadata={"id": 6})
    f64: float = field(default=0.0, metadata={"id": 7})
    bin: bytes = field(default=b"", metadata={"id": 8})
    str_: str = field(default="", metadata={"id": 9})
    inner: BInner = field(default_factory=BInner, metadata={"id": 10})
    v2: vector2 = field(default=(0.0, 0.0), metadata={"id": 11})
    v2i: vector2int = field(default=(0, 0), metadata={"id": 12})
    v3: vector3 = field(default=(0.0, 0.0, 0.0), metadata={"id": 13})
    v3i: vector3int = field(default=(0, 0, 0), metadata={"id": 14})
    v4: vector4 = field(default=(0.0, 0.0, 0.0, 0.0), metadata={"id": 15})
    quat: quaternion = field(default=(0.0, 0.0, 0.0, 0.0), metadata={"id": 16})
    dyn: BInner | BOther = field(default_factory=BInner, metadata={"id": 17})
    special: Annotated[BInner | BOther, dynamic({BInner: 1, BOther: 2})] = field(
        default_factory=BInner, metadata={"id": 18})
    one: Annotated[BInner, dynamic()] = field(default_factory=BInner, metadata={"id": 19})
    dec: decimal.Decimal = field(default=decimal.Decimal(0), metadata={"id": 20})
    lst: list[BInner | BOther] = field(default_factory=list, metadata={"id": 30})
    st: set[BKey] = field(default_factory=set, metadata={"id": 31})
    mp: dict[str, BInner] = field(default_factory=dict, metadata={"id": 40})
    cache: bytes = field(default=b"", metadata={"id": 300, "transient": True})


@dataclass
class Base:
    hp: int32 = 0


@dataclass
class Hero(Base):
    mp: int32 = 0


def test_every_type_lowers() -> None:
    s = load_schema(BAll, module="m", solution="app", module_id=7)
    rec = s.bean("BAll")
    assert rec.name == "app.m.BAll" and rec.kind == "bean"
    assert rec.attributes["type_id"] == hash64("app.m.BAll")
    assert rec.attributes["module"] == "app.m"
    types = {f.name: f.type for f in rec.fields}
    assert [types[n] for n in ("b", "i8", "i16", "i32", "i64", "f32", "f64", "bin", "str_")] \
        == [BOOL, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BYTES, STRING]
    assert types["inner"] == Ref("app.m.BInner")
    for name, builtin in (("v2", "vector2"), ("v2i", "vector2int"), ("v3", "vector3"),
                          ("v3i", "vector3int"), ("v4", "vector4"), ("quat", "quaternion"),
                          ("dec", "decimal")):
        assert types[name] == Ref(f"zeze.{builtin}")
    assert types["lst"] == List(Ref("app.m.BAll.lst"))
    assert types["st"] == Set(Ref("lib.keys.BKey"))
    assert types["mp"] == Map(STRING, Ref("app.m.BInner"))
    assert rec.field("i32").default == 5
    assert rec.field("cache").attributes == {"transient": True}
    assert [f.id for f in rec.fields][-1] == 300
    assert s.modules == {"app.m": 7}
    assert s.bean("BKey").kind == "beankey"
    assert s.bean("BOther").attributes["type_id"] == 99
    assert s.classes == {"app.m.BAll": BAll, "app.m.BInner": BInner, "app.m.BOther": BOther,
                         "lib.keys.BKey": BKey}


def test_dynamic_annotations() -> None:
    s = load_schema(BAll)
    dyn = s.model["app.m.BAll.dyn"]
    assert isinstance(dyn, Union) and dyn.kind == "dynamic" and dyn.discriminator == INT64
    assert dict(dyn.members) == {"app.m.BInner": (hash64("app.m.BInner"), Ref("app.m.BInner")),
                                 "app.m.BOther": (99, Ref("app.m.BOther"))}
    assert dyn.attributes["special"] is False
    special = s.union("app.m.BAll.special")
    assert [v for v, _ in special.members.values()] == [1, 2]
    assert special.attributes["special"] is True
    assert list(s.union("app.m.BAll.one").members) == ["app.m.BInner"]


def test_ids_in_declaration_order_and_layers() -> None:
    s = schema_from_dataclasses(Hero, solution="g", module="role")
    hero = s.bean("Hero")
    assert hero.base == "g.role.Base"
    assert [(f.name, f.id) for f in hero.fields] == [("mp", 1)]
    assert [(f.name, f.id) for f in s.bean("Base").fields] == [("hp", 1)]


@dataclass
class Mixed:
    a: int = field(default=0, metadata={"id": 2})
    b: int = 0


@dataclass
class Optional_:
    a: BInner | None = None


@dataclass
class Unsigned:
    a: uint8 = 0


@dataclass
class Nested:
    a: list[list[int]] = field(default_factory=list)


@dataclass
class FloatKey:
    a: dict[float, int] = field(default_factory=dict)


@dataclass
class Recursive:
    a: Recursive | None = None


@dataclass
class SelfHolder:
    a: SelfHolder = field(default_factory=lambda: SelfHolder())


@dataclass
class BadDynamic:
    a: BInner | str = ""


@dataclass
class PartialSpecial:
    a: Annotated[BInner | BOther, dynamic({BInner: 1})] = field(default_factory=BInner)


@dataclass
class BadId:
    a: int = field(default=0, metadata={"id": 5000})


@pytest.mark.parametrize(("cls", "message"), [
    (Mixed, "every field an id or none"), (Optional_, "no optional"), (Nested, "do not nest"),
    (FloatKey, "keyable"), (Recursive, "no optional"), (SelfHolder, "contains itself"),
    (BadDynamic, "holds beans"), (PartialSpecial, "to every bean"), (BadId, "1..4095"),
    (Unsigned, "no type for"),
])
def test_dataclass_errors(cls: type, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        load_schema(cls)


def test_no_classes() -> None:
    with pytest.raises(SchemaError):
        schema_from_dataclasses()
    with pytest.raises(SchemaError, match="only for dataclass"):
        load_schema("x.xml", BInner)


# -- hashes ---------------------------------------------------------------------------------------


def reference_hash64(name: str) -> int:
    """Spec §2.7 step by step over UTF-16 code units."""
    units = []
    for ch in name:
        cp = ord(ch)
        if cp >= 0x10000:
            cp -= 0x10000
            units += [0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)]
        else:
            units.append(cp)
    h = 3074457345618258791
    for c in units:
        h = (h + c) * 3074457345618258799 % 2**64
    return h - 2**64 if h >= 2**63 else h


@given(st.text())
def test_hashes_match_the_reference(name: str) -> None:
    h = reference_hash64(name)
    assert hash64(name) == h
    u = h % 2**64
    low32 = (u & 0xFFFFFFFF) ^ (u >> 32)
    assert hash32(name) == (low32 - 2**32 if low32 >= 2**31 else low32)


@given(st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))
def test_protocol_type_id(module_id: int, protocol_id: int) -> None:
    type_id = protocol_type_id(module_id, protocol_id)
    assert -2**63 <= type_id < 2**63
    assert type_id >> 32 == module_id
    assert type_id & 0xFFFFFFFF == protocol_id & 0xFFFFFFFF
