"""Round trips of generated beans (``strategies.py``): every generated solution loads, encode
then decode then encode gives the same bytes, and the decoded value is what the model says
decoding gives (fields left out at zero, -0.0 read back as 0.0, unknown fields kept in id
order). Every path of ``CODECS`` gives the pure path's bytes, values and errors.
"""

from __future__ import annotations

import decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import zeze
from gameserde.zeze import UNKNOWN_KEY, FrozenBean, ZezeSchema

from .strategies import (
    CODECS,
    KEY_FLOAT32S,
    PURE,
    Solution,
    agree,
    bean_values,
    cases,
    decimals,
    decoded,
    rewritten_the_same,
    same,
    solutions,
    unknown_fields,
)

PROPERTY = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(PROPERTY, max_examples=60)


def load(sol: Solution) -> ZezeSchema:
    """The schema of a generated solution (the loader checks Gen's rules)."""
    return zeze.load_schema(sol.xml, filename="generated.xml")


def ok(result: tuple[str, Any]) -> Any:
    assert result[0] == "ok", result[1]
    return result[1]


@PROPERTY
@given(cases())
def test_encode_decode_encode_gives_the_same_bytes(case: tuple[Solution, str, Any]) -> None:
    """The same bytes unless a bean field of zeros, left out, reads back as a ``new Bean()``
    whose ``default=`` values are written (as in Java); from then on, the same bytes."""
    sol, bean, value = case
    schema = load(sol)
    data = ok(agree(lambda c: c.encode(schema, bean, value)))
    back = ok(agree(lambda c: c.decode(schema, bean, data)))
    assert same(back, decoded(sol, bean, value)), (back, decoded(sol, bean, value))
    again = ok(agree(lambda c: c.encode(schema, bean, back)))
    assert (again == data) == rewritten_the_same(sol, bean, value)
    assert same(ok(agree(lambda c: c.decode(schema, bean, again))), back)


@FEW
@given(cases(), st.binary(max_size=4), st.binary(min_size=1, max_size=4))
def test_decode_consumes_exactly_the_encoding(case: tuple[Solution, str, Any], before: bytes,
                                              after: bytes) -> None:
    sol, bean, value = case
    schema = load(sol)
    data = PURE.encode(schema, bean, value)
    back, end = ok(agree(lambda c: c.decode_from(schema, bean, before + data + after,
                                                 len(before))))
    assert end == len(before) + len(data)
    assert same(back, decoded(sol, bean, value))
    kind, message = agree(lambda c: c.decode(schema, bean, data + after))
    assert kind == "error" and f"{len(after)} bytes follow the bean" in message


@st.composite
def with_unknown_fields(draw: st.DrawFn) -> tuple[Solution, str, Any]:
    """A bean (not a beankey) whose value carries unknown fields at the top."""
    sol = draw(solutions().filter(lambda s: any(b.kind == "bean" for b in s.beans.values())))
    bean = draw(st.sampled_from([b for b, spec in sol.beans.items() if spec.kind == "bean"]))
    value = draw(bean_values(sol, bean))
    known = {v.id for v in sol.layers(bean)[-1]}
    value[UNKNOWN_KEY] = draw(unknown_fields(known).filter(bool))
    return sol, bean, value


@FEW
@given(with_unknown_fields())
def test_unknown_fields_are_kept_and_written_back(case: tuple[Solution, str, Any]) -> None:
    sol, bean, value = case
    schema = load(sol)
    data = ok(agree(lambda c: c.encode(schema, bean, value)))
    back = ok(agree(lambda c: c.decode(schema, bean, data)))
    assert back[UNKNOWN_KEY] == sorted(value[UNKNOWN_KEY], key=lambda f: f.id)
    if rewritten_the_same(sol, bean, value):
        assert ok(agree(lambda c: c.encode(schema, bean, back))) == data
    for field in value[UNKNOWN_KEY]:
        assert field.data in data


# -- beankeys as map keys and set elements, nested ---------------------------------------------

KEYS_SCHEMA = zeze.load_schema("""<solution name="s"><module name="m" id="1">
  <beankey name="K1"><variable id="1" name="a" type="int"/><variable id="2" name="s" type="string"/>
    <variable id="3" name="b" type="binary"/><variable id="20" name="d" type="decimal"/></beankey>
  <beankey name="K2"><variable id="1" name="k" type="K1"/><variable id="2" name="v" type="vector2"/>
    <variable id="3" name="vi" type="vector3int"/><variable id="4" name="on" type="bool"/></beankey>
  <bean name="B"><variable id="1" name="m" type="map[K2,K1]"/>
    <variable id="2" name="s" type="set[K2]"/><variable id="3" name="s1" type="set[K1]"/>
    <variable id="4" name="l" type="list[K2]"/></bean>
</module></solution>""")

k1s = st.fixed_dictionaries({"a": st.integers(-(2**31), 2**31 - 1), "s": st.text(max_size=3),
                             "b": st.binary(max_size=3), "d": decimals})
k2s = st.fixed_dictionaries({
    "k": k1s.map(FrozenBean), "v": st.tuples(KEY_FLOAT32S, KEY_FLOAT32S),
    "vi": st.tuples(*[st.integers(-(2**31), 2**31 - 1)] * 3), "on": st.booleans()})


def _zeroed_vector(v: dict[str, Any]) -> dict[str, Any]:
    """A vector2 field of zeros (-0.0 included) is left out, and read back as +0.0."""
    return {**v, "v": (0.0, 0.0)} if v["v"] == (0.0, 0.0) else v


@FEW
@given(st.dictionaries(k2s.map(FrozenBean), k1s, max_size=4),
       st.lists(k2s.map(FrozenBean), unique=True, max_size=4),
       st.lists(k1s.map(FrozenBean), unique=True, max_size=4), st.lists(k2s, max_size=3))
def test_nested_beankeys_as_keys_round_trip(m: dict[Any, Any], s: list[Any], s1: list[Any],
                                            keys: list[Any]) -> None:
    value = {"m": m, "s": s, "s1": s1, "l": keys}
    data = ok(agree(lambda c: c.encode(KEYS_SCHEMA, "B", value)))
    back = ok(agree(lambda c: c.decode(KEYS_SCHEMA, "B", data)))
    assert ok(agree(lambda c: c.encode(KEYS_SCHEMA, "B", back))) == data
    assert [dict(k) for k in back["m"]] == [_zeroed_vector(dict(k)) for k in m]
    assert all(isinstance(k, FrozenBean) and isinstance(k["k"], FrozenBean) for k in back["m"])
    assert list(back["m"].values()) == list(m.values())
    assert back["s"] == [_zeroed_vector(dict(k)) for k in s] and back["s1"] == s1
    assert back["l"] == [_zeroed_vector(k) for k in keys]


def test_a_beankey_inside_a_beankey_key_decodes() -> None:
    """Regression: the inner beankey of a map key or set element was a dict, and hashing the
    outer FrozenBean raised TypeError."""
    key = FrozenBean({"k": FrozenBean({"a": 3, "s": "", "b": b"", "d": decimal.Decimal(1)}),
                      "v": (1.0, 2.0), "vi": (0, 0, 0), "on": True})
    data = zeze.encode(KEYS_SCHEMA, "B", {"m": {key: {}}, "s": [key]})
    back = zeze.decode(KEYS_SCHEMA, "B", data)
    assert list(back["m"]) == [key] and back["s"] == [key]
    assert {key: 1}[back["s"][0]] == 1


DEFAULTS_SCHEMA = zeze.load_schema("""<solution name="s"><module name="m" id="1">
  <bean name="B0"><variable id="1" name="on" type="bool" default="true"/>
    <variable id="2" name="n" type="int"/></bean>
  <bean name="B1"><variable id="1" name="inner" type="B0"/></bean>
  <bean name="B2"><variable id="1" name="mid" type="B1"/></bean>
</module></solution>""")


def test_a_left_out_bean_field_is_written_as_gens_new_bean() -> None:
    """Regression: a bean field a dict leaves out is Gen's ``new B0()``, whose own fields
    take their ``default=`` (here ``on = true``): Java writes it. It was written as the zero
    bean, that is left out."""
    for codec in CODECS:
        assert codec.encode(DEFAULTS_SCHEMA, "B1", {}).hex() == "1610010000"
        assert codec.encode(DEFAULTS_SCHEMA, "B2", {}).hex() == "161610010000" + "00"
        assert codec.encode(DEFAULTS_SCHEMA, "B1", {"inner": {"on": False}}).hex() == "00"


def test_a_bean_field_of_zeros_reads_back_as_gens_new_bean() -> None:
    """Java leaves a bean field of zeros out, and its decoder leaves an absent bean field as
    the constructor made it, with its ``default=``: the bytes change once, then stay."""
    for codec in CODECS:
        data = codec.encode(DEFAULTS_SCHEMA, "B1", {"inner": {"on": False, "n": 0}})
        assert data == b"\x00"
        back = codec.decode(DEFAULTS_SCHEMA, "B1", data)
        assert back == {"inner": {"on": True, "n": 0}}
        again = codec.encode(DEFAULTS_SCHEMA, "B1", back)
        assert again.hex() == "1610010000"
        assert codec.encode(DEFAULTS_SCHEMA, "B1", codec.decode(DEFAULTS_SCHEMA, "B1", again)) \
            == again
