"""Schema evolution and the conversions between declared types (spec §3.1, §3.3).

Evolution: bytes written with a newer schema, read with an older one (which keeps the fields
it does not know) and written again, are the newer bytes; bytes of the older schema read and
written again with the newer one are unchanged too.

Conversions: a field written as one type and read as another gives what Java's readers
give, computed here from the rules (Java's casts, with numpy's IEEE conversions for float32
rounding), not with gameserde's ``_convert``.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import zeze
from gameserde.errors import DecodeError
from gameserde.zeze import UNKNOWN_KEY, Dynamic

from .strategies import (
    CODECS,
    INT_BITS,
    INT_VECTORS,
    VECTORS,
    Solution,
    Type,
    agree,
    bean_values,
    constructed,
    doubles,
    float32s,
    older_versions,
    omitted,
    rewritten_the_same,
    same,
    solutions,
)

PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def ok(result: tuple[str, Any]) -> Any:
    assert result[0] == "ok", result[1]
    return result[1]


def without_unknown(value: Any) -> Any:
    """``value`` without kept unknown fields, at every level."""
    if isinstance(value, dict):
        return {k: without_unknown(v) for k, v in value.items() if k != UNKNOWN_KEY}
    if isinstance(value, list):
        return [without_unknown(v) for v in value]
    if isinstance(value, Dynamic):
        return value._replace(value=without_unknown(value.value))
    return value


@st.composite
def generations(draw: st.DrawFn) -> tuple[Solution, Solution, str, Any]:
    """A solution, an older version of it, one of its beans and a value of the newer bean."""
    newer = draw(solutions())
    older = draw(older_versions(newer))
    bean = draw(st.sampled_from(list(newer.beans)))
    return newer, older, bean, draw(bean_values(newer, bean))


def stable(case: tuple[Solution, Solution, str, Any]) -> bool:
    """Whether the newer value's bytes are written back unchanged by its own schema (not when
    a bean field of zeros reads back as a ``new Bean()`` with ``default=`` values)."""
    newer, _, bean, value = case
    return rewritten_the_same(newer, bean, value)


def adds_a_written_zero(newer: Solution, older: Solution) -> bool:
    """Whether the newer version writes back, where older bytes have nothing, a value the
    older leaves out: a variable the older lacks that is written at its constructor value
    (a decimal, a layered bean, a bean with ``default=`` values), or a bean whose constructor
    value the newer writes and the older leaves out (it gained such a variable)."""
    added = any(not omitted(newer, v.type, constructed(newer, v.type))
                and v not in older.beans[full].vars
                for full, bean in newer.beans.items() for v in bean.vars if not v.transient)
    return added or any(
        omitted(newer, t, constructed(newer, t)) != omitted(older, t, constructed(older, t))
        for t in (Type("bean", bean=full) for full in newer.beans))


@PROPERTY
@given(generations().filter(stable))
def test_an_older_schema_writes_back_the_newer_bytes(case: Any) -> None:
    newer, older, bean, value = case
    new_schema, old_schema = zeze.load_schema(newer.xml), zeze.load_schema(older.xml)
    data = ok(agree(lambda c: c.encode(new_schema, bean, value)))
    old_value = ok(agree(lambda c: c.decode(old_schema, bean, data)))
    assert ok(agree(lambda c: c.encode(old_schema, bean, old_value))) == data


@PROPERTY
@given(generations().filter(lambda case: stable(case)
                             and not adds_a_written_zero(case[0], case[1])))
def test_a_newer_schema_writes_back_the_older_bytes(case: Any) -> None:
    newer, older, bean, value = case
    new_schema, old_schema = zeze.load_schema(newer.xml), zeze.load_schema(older.xml)
    old_value = ok(agree(lambda c: c.decode(
        old_schema, bean, c.encode(new_schema, bean, without_unknown(value)))))
    data = ok(agree(lambda c: c.encode(old_schema, bean, without_unknown(old_value))))
    new_value = ok(agree(lambda c: c.decode(new_schema, bean, data)))
    assert ok(agree(lambda c: c.encode(new_schema, bean, new_value))) == data
    dropped = {v.name for layer in newer.layers(bean) for v in layer} - {
        v.name for layer in older.layers(bean) for v in layer}
    zero = ok(agree(lambda c: c.decode(new_schema, bean, b"\x00")))
    assert all(same(new_value[name], zero[name]) for name in dropped)


def test_the_vectors_evolution_beans() -> None:
    """BV2 (newer) bytes through BV1 (older) and back, with every BV2 field set."""
    schema = zeze.load_schema(VECTOR_SCHEMA)
    value = {"a": 1, "b": [1, 2], "c": "x", "d": 0, "e": {"a": 3, "s": "in"}, "f": 2.5}
    for codec in CODECS:
        data = codec.encode(schema, "BV2", value)
        old = codec.decode(schema, "BV1", data)
        assert [f.id for f in old[UNKNOWN_KEY]] == [2, 5, 20]
        assert codec.encode(schema, "BV1", old) == data


VECTOR_SCHEMA = """<solution name="oracle"><module name="m" id="7">
  <bean name="BInner"><variable id="1" name="a" type="int"/>
    <variable id="2" name="s" type="string"/></bean>
  <bean name="BV1"><variable id="1" name="a" type="int"/><variable id="3" name="c" type="string"/>
    <variable id="4" name="d" type="int" default="5"/></bean>
  <bean name="BV2"><variable id="1" name="a" type="int"/>
    <variable id="2" name="b" type="list[int]"/><variable id="3" name="c" type="string"/>
    <variable id="4" name="d" type="int" default="5"/>
    <variable id="5" name="e" type="BInner"/><variable id="20" name="f" type="double"/></bean>
</module></solution>"""


# -- conversions ---------------------------------------------------------------------------------

NUMERIC = ("bool", *INT_BITS, "float", "double")
VECTOR_TYPES = (*VECTORS, *INT_VECTORS)
TYPES = (*NUMERIC, *VECTOR_TYPES)


def _schema() -> zeze.ZezeSchema:
    beans = "".join(f'<bean name="T_{t}"><variable id="1" name="v" type="{t}"/></bean>'
                    f'<bean name="L_{t}"><variable id="1" name="v" type="list[{t}]"/></bean>'
                    f'<bean name="M_{t}"><variable id="1" name="v" type="map[int,{t}]"/></bean>'
                    for t in TYPES)
    sets = "".join(f'<bean name="S_{t}"><variable id="1" name="v" type="set[{t}]"/></bean>'
                   for t in (*INT_BITS, "bool", "vector3", "vector2int"))
    return zeze.load_schema(f'<solution name="c"><module name="m" id="1">{beans}{sets}'
                            "</module></solution>")


CONV = _schema()


def wrap(n: int, bits: int) -> int:
    """Java's narrowing of an integer to ``bits`` bits."""
    half = 1 << (bits - 1)
    return (n + half) % (2 * half) - half


def java_cast(x: float, bits: int) -> int:
    """Java's ``(byte|short|int|long) x`` of a float or double: NaN is 0, the value is
    truncated toward zero and saturated to int (long for 64 bits), then narrowed."""
    if math.isnan(x):
        return 0
    wide = 64 if bits == 64 else 32
    low, high = -(1 << (wide - 1)), (1 << (wide - 1)) - 1
    n = high if x >= high else low if x <= low else math.trunc(x)
    return wrap(n, bits)


def f32(x: float | int) -> float:
    """Java's ``(float) x`` of a double or a long (one IEEE rounding, overflow to infinity)."""
    with np.errstate(over="ignore"):
        return float(np.float32(np.int64(x)) if isinstance(x, int) else np.float32(x))


def wire_of(t: str, x: Any) -> tuple[str, Any]:
    """What a ``t`` holding ``x`` puts on the wire: ("int", n), ("float", f), ("double", d),
    ("vector", floats) or ("vectorint", ints)."""
    if t == "bool":
        return "int", int(x)
    if t in INT_BITS:
        return "int", x
    if t in ("float", "double"):
        return t, x
    return ("vector" if t in VECTORS else "vectorint"), tuple(x)


def read_as(t: str, wire: str, x: Any) -> Any:
    """What Java reads as a ``t`` from a wire value (:func:`wire_of`); DecodeError when it
    cannot."""
    scalar = wire in ("int", "float", "double")
    if t == "bool" and scalar:
        return x != 0
    if t in INT_BITS and scalar:
        return wrap(x, INT_BITS[t]) if wire == "int" else java_cast(x, INT_BITS[t])
    if t == "float" and scalar:
        return x if wire == "float" else f32(x)
    if t == "double" and scalar:
        return float(x)
    if t in VECTORS:
        comps = [x] if scalar else list(x)
        floats = [c if wire in ("float", "vector") else f32(c) for c in comps]
        return tuple((floats + [0.0] * 4)[:VECTORS[t]])
    if t in INT_VECTORS:
        comps = [x] if scalar else list(x)
        ints = [wrap(c, 32) if wire in ("int", "vectorint") else java_cast(c, 32)
                for c in comps]
        return tuple((ints + [0] * 3)[:INT_VECTORS[t]])
    raise DecodeError(f"a {t} cannot be read from {wire}", format="zeze")


def written(t: str, x: Any) -> bool:
    """Whether a field ``t`` holding ``x`` is written (Java leaves zero values out)."""
    if t in VECTOR_TYPES:
        return any(c != 0 for c in x)
    return bool(x != 0)


def zero_of(t: str) -> Any:
    if t == "bool":
        return False
    if t in INT_BITS:
        return 0
    if t in ("float", "double"):
        return 0.0
    return (0.0,) * VECTORS[t] if t in VECTORS else (0,) * INT_VECTORS[t]


def values_of(t: str) -> st.SearchStrategy[Any]:
    if t == "bool":
        return st.booleans()
    if t in INT_BITS:
        bits = INT_BITS[t]
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if t == "float":
        return float32s
    if t == "double":
        return st.one_of(doubles, st.floats(-3e9, 3e9), st.integers(-(2**64), 2**64).map(float))
    if t in VECTORS:
        return st.tuples(*[float32s] * VECTORS[t])
    return st.tuples(*[st.integers(-(2**31), 2**31 - 1)] * INT_VECTORS[t])


def same_number(got: Any, want: Any) -> bool:
    """Equal, floats bit for bit (NaN equal to any NaN), tuples component by component."""
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(
            same_number(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, float):
        return isinstance(got, float) and (
            (math.isnan(got) and math.isnan(want))
            or struct.pack("<d", got) == struct.pack("<d", want))
    return type(got) is type(want) and got == want


def expect(reader: str, writer: str, x: Any) -> Any:
    """What a field ``reader`` reads from a field ``writer`` holding ``x`` (its zero when
    the writer left it out), or the DecodeError type."""
    if not written(writer, x):
        return zero_of(reader)
    try:
        return read_as(reader, *wire_of(writer, x))
    except DecodeError:
        return DecodeError


@st.composite
def conversions(draw: st.DrawFn) -> tuple[str, str, Any]:
    writer, reader = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
    return writer, reader, draw(values_of(writer))


def read_back(container: str, writer: str, reader: str, value: Any) -> Any:
    """Encode ``value`` as bean ``{container}_{writer}``, decode it as
    ``{container}_{reader}``: its ``v``, or DecodeError."""
    result = agree(lambda c: c.decode(CONV, f"{container}_{reader}",
                                      c.encode(CONV, f"{container}_{writer}", {"v": value})))
    if result[0] == "error":
        assert result[1].startswith("DecodeError: ")
        return DecodeError
    return result[1]["v"]


@settings(PROPERTY, max_examples=400)
@given(conversions())
def test_a_field_read_as_another_type(case: tuple[str, str, Any]) -> None:
    writer, reader, x = case
    got, want = read_back("T", writer, reader, x), expect(reader, writer, x)
    assert got is want if want is DecodeError else same_number(got, want), (got, want)


@settings(PROPERTY, max_examples=200)
@given(conversions().flatmap(lambda c: st.tuples(
    st.just(c[0]), st.just(c[1]), st.lists(values_of(c[0]), max_size=17))))
def test_list_and_map_elements_read_as_another_type(case: tuple[str, str, list[Any]]) -> None:
    writer, reader, items = case
    try:
        want: Any = [read_as(reader, *wire_of(writer, x)) for x in items]
    except DecodeError:
        want = DecodeError if items else []
    for container, value in (("L", items), ("M", dict(enumerate(items)))):
        got = read_back(container, writer, reader, value)
        if want is DecodeError:
            assert got is DecodeError
        else:
            got_items = got if container == "L" else list(got.values())
            assert list(got) == list(range(len(items))) or container == "L"
            assert same_number(tuple(got_items), tuple(want)), (got, want)


@settings(PROPERTY, max_examples=100)
@given(st.sampled_from([*INT_BITS, "bool", "float", "double", "vector2int"]).flatmap(
    lambda w: st.tuples(st.just(w), st.sampled_from([*INT_BITS, "bool", "vector3", "vector2int"]),
                        st.lists(values_of(w), max_size=6))))
def test_list_elements_read_as_a_set(case: tuple[str, str, list[Any]]) -> None:
    """Set elements are converted, then repeated ones dropped (the first kept)."""
    writer, reader, items = case
    try:
        converted = [read_as(reader, *wire_of(writer, x)) for x in items]
    except DecodeError:
        assert read_back("L", writer, reader, items) is DecodeError or not items
        return
    want = list(dict.fromkeys(converted))
    got = agree(lambda c: c.decode(CONV, f"S_{reader}", c.encode(CONV, f"L_{writer}",
                                                                 {"v": items})))
    assert same_number(tuple(ok(got)["v"]), tuple(want))


@pytest.mark.parametrize(("writer", "reader", "value", "want"), [
    ("float", "short", 70000.7, 4464),  # (short)(int)70000.7f
    ("double", "byte", -129.9, 127),  # (byte)-129
    ("double", "int", 1e300, 2**31 - 1),
    ("double", "long", -1e300, -(2**63)),
    ("double", "int", math.nan, 0),
    ("long", "float", 16777217, 16777216.0),  # half to even
    ("long", "float", 16777219, 16777220.0),
    ("int", "byte", 300, 44),
    ("double", "float", 1e39, math.inf),
    ("vector3", "vector2int", (1.9, -2.9, 5.0), (1, -2)),
    ("vector2int", "vector4", (16777217, -1), (16777216.0, -1.0, 0.0, 0.0)),
    ("int", "vector3", 7, (7.0, 0.0, 0.0)),
    ("double", "bool", math.nan, True),
])
def test_conversion_examples(writer: str, reader: str, value: Any, want: Any) -> None:
    if writer == "float":
        value = float(np.float32(value))
    assert expect(reader, writer, value) == want or same_number(expect(reader, writer, value),
                                                                want)
    assert same_number(read_back("T", writer, reader, value), want)


def test_incompatible_types_raise() -> None:
    cases = [("binary", "int", b"x"), ("int", "string", 5), ("list[int]", "map[int,int]", [1]),
             ("map[int,int]", "list[int]", {1: 2}), ("vector3", "int", (1.0, 0.0, 0.0)),
             ("string", "list[int]", "s"), ("int", "BInner", 1)]
    beans = "".join(f'<bean name="W{i}"><variable id="1" name="v" type="{w}"/></bean>'
                    f'<bean name="R{i}"><variable id="1" name="v" type="{r}"/></bean>'
                    for i, (w, r, _) in enumerate(cases))
    schema = zeze.load_schema('<solution name="x"><module name="m" id="1"><bean name="BInner">'
                              f'<variable id="1" name="a" type="int"/></bean>{beans}'
                              "</module></solution>")
    for i, (_, _, value) in enumerate(cases):
        result = agree(lambda c, i=i, value=value: c.decode(
            schema, f"R{i}", c.encode(schema, f"W{i}", {"v": value})))
        assert result[0] == "error" and result[1].startswith("DecodeError: "), result


BEAN_DYNAMIC = zeze.load_schema("""<solution name="x"><module name="m" id="1">
  <bean name="BInner"><variable id="1" name="a" type="int"/></bean>
  <bean name="WBean"><variable id="1" name="v" type="BInner"/></bean>
  <bean name="WDyn"><variable id="1" name="v" type="dynamic"><value bean="BInner:5"/></variable>
  </bean>
</module></solution>""")


def test_a_bean_read_as_a_dynamic_is_the_empty_bean() -> None:
    """TypeId 0: the body is skipped and its content lost (spec §1, row 5)."""
    for codec in CODECS:
        data = codec.encode(BEAN_DYNAMIC, "WBean", {"v": {"a": 9}})
        assert codec.decode(BEAN_DYNAMIC, "WDyn", data) == {"v": Dynamic(None, {}, 0)}


def test_a_dynamic_read_as_a_bean_skips_the_type_id() -> None:
    for codec in CODECS:
        data = codec.encode(BEAN_DYNAMIC, "WDyn", {"v": Dynamic("x.m.BInner", {"a": 9})})
        assert codec.decode(BEAN_DYNAMIC, "WBean", data) == {"v": {"a": 9}}
