"""The C twin of the Zeze bean codec gives exactly what the pure-Python reference gives:
the same bytes, the same values, the same errors (it gives up and lets the reference decide
whenever it meets anything but the common case), on the Java vectors and on every
truncation and byte mutation of them."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gameserde import zeze
from gameserde._expansion import UNLIMITED
from gameserde.errors import DecodeError, EncodeError
from gameserde.zeze import _accel
from gameserde.zeze._plan import plans_of
from gameserde.zeze.python import int8, int16, int32, vector3

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
DATA = json.loads(VECTORS.read_text(encoding="utf-8"))
SCHEMA = zeze.load_schema(DATA["meta"]["schema_xml"])
CASES = [(c["bean"], bytes.fromhex(c["hex"])) for c in DATA["beans"] + DATA["decode"]]
BEAN_CASES = [(c["bean"], bytes.fromhex(c["hex"])) for c in DATA["beans"]]
PLAIN = ["oracle.m.BInner", "oracle.m.BOther", "oracle.m.BItem", "oracle.m.BRole",
         "oracle.m.BV1", "oracle.m.BV2", "oracle.m.BAll", "oracle.m.BConv"]


def test_built() -> None:
    """The extension is built and on wherever the suite runs (the test command installs
    with a compiler), so the comparisons below compare two paths."""
    assert _accel.speedups is not None and _accel.ENABLED


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except (DecodeError, EncodeError) as e:
        return (type(e).__name__, str(e), e.path)


def pure(fn: Any, *args: Any) -> Any:
    saved = _accel.ENABLED
    _accel.ENABLED = False
    try:
        return outcome(fn, *args)
    finally:
        _accel.ENABLED = saved


def fresh_schema() -> zeze.ZezeSchema:
    return zeze.load_schema(DATA["meta"]["schema_xml"])


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and str(a) == str(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(
            same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


def test_plain_beans_run_in_c() -> None:
    program = _accel.program_of(plans_of(SCHEMA))
    assert set(PLAIN) <= set(program.slots)
    assert "oracle.m.BDerive" not in program.slots  # layers: the reference's job
    assert "oracle.m.BHolder" not in program.slots  # a dynamic over layered beans


@pytest.mark.parametrize(("bean", "data"), CASES)
def test_vectors_and_their_mutations(bean: str, data: bytes) -> None:
    inputs = [data[:n] for n in range(len(data))] + [data + b"\x00"]
    for i in range(len(data)):
        for flip in (0x01, 0x10, 0x80, 0xFF):
            inputs.append(data[:i] + bytes([data[i] ^ flip]) + data[i + 1:])
    fast_schema, pure_schema = fresh_schema(), fresh_schema()
    for blob in inputs:
        fast = outcome(zeze.decode, fast_schema, bean, blob)
        slow = pure(zeze.decode, pure_schema, bean, blob)
        assert fast[0] == slow[0] and same(fast[1:], slow[1:]), blob.hex()
        if fast[0] == "ok":
            assert outcome(zeze.encode, fast_schema, bean, fast[1]) == pure(
                zeze.encode, pure_schema, bean, slow[1]), blob.hex()


@pytest.mark.parametrize("bean", PLAIN)
def test_c_decodes_the_plain_vectors_itself(bean: str) -> None:
    plans = plans_of(SCHEMA)
    plan = plans.bean(bean)
    for b, data in BEAN_CASES:
        if b == bean:
            result = _accel.decode(plans, plan, data, 0, zeze.codec.MAX_DEPTH, UNLIMITED)
            assert result is not None and result[1] == len(data)


def test_switching_the_twin_off_is_honoured() -> None:
    value = {"a": 1, "s": "x"}
    data = zeze.encode(SCHEMA, "BInner", value)
    saved = _accel.ENABLED
    _accel.ENABLED = False
    try:
        codec = zeze.codec.bean_codec(SCHEMA, "BInner")
        assert codec.encode == codec._encode  # the reference, not the C method
        assert zeze.encode(SCHEMA, "BInner", value) == data
    finally:
        _accel.ENABLED = saved
    assert zeze.codec.bean_codec(SCHEMA, "BInner").encode != zeze.codec.bean_codec(
        SCHEMA, "BInner")._encode


@pytest.mark.parametrize("value", [
    {"a": 1 << 31}, {"a": True}, {"a": 1.0}, {"s": b"x"}, {"s": "\ud800"}, {"x": 1},
    {"a": 2, zeze.UNKNOWN_KEY: [zeze.UnknownField(5, 0, b"\x01")]}, {"a": -(1 << 31)},
    {"s": "é" * 100}, {},
])
def test_encode_odd_values_like_the_reference(value: dict[str, Any]) -> None:
    fast_schema, pure_schema = fresh_schema(), fresh_schema()
    assert outcome(zeze.encode, fast_schema, "BInner", value) == pure(
        zeze.encode, pure_schema, "BInner", value)


# -- dataclasses with __slots__: the C twin makes and reads their instances itself ----------


@dataclass(slots=True, frozen=True)
class Pos:
    x: int32 = 0
    y: int32 = 0


@dataclass(slots=True)
class Hero:
    name: str = ""
    level: int16 = 0
    flags: int8 = 0
    pos: Pos = field(default_factory=Pos)
    tags: set[str] = field(default_factory=set)
    path: list[Pos] = field(default_factory=list)
    where: vector3 = (0.0, 0.0, 0.0)
    items: dict[str, int] = field(default_factory=dict)


@dataclass
class Plain:  # no __slots__: the reference makes these
    a: int32 = 0


HEROES = zeze.load_schema(Hero, Plain, module="m", solution="s")
HERO = Hero("Ann", 3, -1, Pos(1, 2), {"a", "b"}, [Pos(3, 4), Pos()], (1.0, 2.0, 3.5),
            {"gold": 5})


def test_slotted_dataclasses_run_in_c() -> None:
    program = _accel.program_of(plans_of(HEROES))
    assert {"s.m.Hero", "s.m.Pos"} <= set(program.class_slots)
    assert "s.m.Plain" in program.slots and "s.m.Plain" not in program.class_slots
    codec = zeze.codec.bean_codec(HEROES, "Hero")
    assert codec.encode != codec._encode and codec.decode != codec._decode


@pytest.mark.parametrize("value", [HERO, Hero(), Hero(pos=Pos(0, 0), items={"": 0})])
def test_slotted_dataclasses_like_the_reference(value: Hero) -> None:
    fast_schema = zeze.load_schema(Hero, Plain, module="m", solution="s")
    pure_schema = zeze.load_schema(Hero, Plain, module="m", solution="s")
    data = outcome(zeze.encode, fast_schema, "Hero", value)
    assert data == pure(zeze.encode, pure_schema, "Hero", value) and data[0] == "ok"
    blob = data[1]
    inputs = [blob[:n] for n in range(len(blob))] + [
        blob[:i] + bytes([blob[i] ^ flip]) + blob[i + 1:]
        for i in range(len(blob)) for flip in (0x01, 0x80)]
    for item in [blob, *inputs]:
        fast = outcome(zeze.decode, fast_schema, "Hero", item)
        slow = pure(zeze.decode, pure_schema, "Hero", item)
        assert fast == slow, item.hex()
    assert zeze.decode(fast_schema, "Hero", blob) == value


def test_an_absent_bean_field_of_a_dataclass_is_an_instance() -> None:
    assert zeze.decode(HEROES, "Hero", b"\x00") == Hero()
    assert pure(zeze.decode, zeze.load_schema(Hero, Plain, module="m", solution="s"), "Hero",
                b"\x00") == ("ok", Hero())
