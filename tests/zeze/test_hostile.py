"""Hostile input to the bean decoder: DecodeError and nothing else, on both paths (the same
error), fast and in memory bounded by the input, not by what it claims.

Truncations at every offset and random mutations of generated encodings; counts and lengths
of 2^31-1 and more with a few bytes behind them; beans, dynamics, maps and skipped unknown
fields nested 10^5 deep (Java has no limit and overflows its stack; ours is ``max_depth``
for decoded values and ``bytebuffer.MAX_DEPTH`` for skipped ones).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde import zeze
from gameserde.zeze import bytebuffer
from tests.fuzz import hostile
from tests.fuzz.mutate import KINDS, apply
from tests.fuzz.test_growth import calls, peak

from . import wire
from .strategies import PURE, Solution, agree, cases

PROPERTY = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
_DATA = json.loads(VECTORS.read_text(encoding="utf-8"))
ORACLE = zeze.load_schema(_DATA["meta"]["schema_xml"])
ORACLE_CASES = [(c["bean"], bytes.fromhex(c["hex"])) for c in _DATA["beans"] + _DATA["decode"]]

HOSTILE = zeze.load_schema(hostile.ZEZE_SCHEMA)


def decode_error(fn: Callable[[Any], Any]) -> str:
    """The DecodeError message both paths give for ``fn(codec)`` (a value fails the test)."""
    kind, message = agree(fn)
    assert kind == "error" and message.startswith("DecodeError: "), (kind, message)
    return str(message)


# -- truncations and mutations of generated encodings -------------------------------------------


@PROPERTY
@given(cases())
def test_every_truncation_raises_decode_error(case: tuple[Solution, str, Any]) -> None:
    sol, bean, value = case
    schema = zeze.load_schema(sol.xml)
    data = PURE.encode(schema, bean, value)
    for n in range(len(data)):
        decode_error(lambda c, n=n: c.decode(schema, bean, data[:n]))
        decode_error(lambda c, n=n: c.decode_from(schema, bean, data[:n]))


def has_unknown(value: Any) -> bool:
    """Whether ``value`` keeps unknown fields at some level."""
    if isinstance(value, dict):
        return zeze.UNKNOWN_KEY in value or any(has_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(has_unknown(v) for v in value)
    return False


def decodes_or_raises(schema: zeze.ZezeSchema, bean: str, data: bytes) -> None:
    """Both paths give the same value or DecodeError; a value encodes on both paths, and the
    encoding decodes to a value that encodes to the same bytes, unless it keeps unknown
    fields. (Those are written back as Java writes them, from the running id: one kept from
    a tag whose id delta is 0 may come back as a known field, or, written after a known field
    with a larger id, get a tag Java cannot read back.)"""
    kind, value = agree(lambda c: c.decode(schema, bean, data))
    if kind == "error":
        assert value.startswith("DecodeError: "), value
        return
    again = ok(agree(lambda c: c.encode(schema, bean, value)))
    back = agree(lambda c: c.decode(schema, bean, again))
    if has_unknown(value):
        assert back[0] == "ok" or back[1].startswith("DecodeError: "), back
        return
    assert ok(agree(lambda c: c.encode(schema, bean, ok(back)))) == again


def ok(result: tuple[str, Any]) -> Any:
    assert result[0] == "ok", result[1]
    return result[1]


mutations = st.lists(st.tuples(st.integers(0, KINDS - 1), st.integers(0, 0xFFFF),
                               st.integers(0, 0xFFFF)), min_size=1, max_size=6)


@PROPERTY
@given(cases(), mutations)
def test_mutated_encodings_decode_or_raise_decode_error(case: tuple[Solution, str, Any],
                                                        ops: list[Any]) -> None:
    sol, bean, value = case
    schema = zeze.load_schema(sol.xml)
    data = PURE.encode(schema, bean, value)
    decodes_or_raises(schema, bean, apply(data, ops, data))


@settings(PROPERTY, max_examples=300)
@given(st.sampled_from(ORACLE_CASES), st.sampled_from(ORACLE_CASES), mutations,
       st.sampled_from(sorted({b for b, _ in ORACLE_CASES})))
def test_mutated_vectors_decode_or_raise_decode_error(case: tuple[str, bytes],
                                                      donor: tuple[str, bytes], ops: list[Any],
                                                      other: str) -> None:
    """The Java vectors mutated, read as their own bean and as another one."""
    bean, data = case
    mutated = apply(data, ops, donor[1])
    decodes_or_raises(ORACLE, bean, mutated)
    decodes_or_raises(ORACLE, other, mutated)


# -- huge counts and lengths ---------------------------------------------------------------------

CLAIMS = [2**31 - 1, 2**31, 2**32 - 1]


def claims(count: int) -> dict[str, bytes]:
    """Bean H's fields (and unknown field 9) claiming ``count`` elements or bytes."""
    return {
        "list": b"\x14" + wire.list_header(count, wire.INTEGER),
        "map": b"\x25" + wire.map_header(count, wire.INTEGER, wire.BYTES),
        "string": b"\x33" + wire.wuint(count),
        "binary": b"\x43" + wire.wuint(count),
        "decimal": b"\x63" + wire.wuint(count),
        "bean list": b"\x54" + wire.list_header(count, wire.BEAN),
        "unknown list": b"\x94" + wire.list_header(count, wire.VECTOR3),
        "unknown map": b"\x95" + wire.map_header(count, wire.BYTES, wire.BEAN),
        "unknown bytes": b"\x93" + wire.wuint(count),
    }


@pytest.mark.parametrize("claim", CLAIMS)
@pytest.mark.parametrize("field", list(claims(0)))
def test_huge_counts_and_lengths_fail_fast_in_little_memory(field: str, claim: int) -> None:
    data = claims(claim)[field] + b"\x05" * 8
    decode_error(lambda c: c.decode(HOSTILE, "H", data))
    assert calls(lambda: zeze.decode(HOSTILE, "H", data)) < 2000
    assert peak(lambda: zeze.decode(HOSTILE, "H", data)) < 64 << 10


@pytest.mark.parametrize("claim", [2**31, 2**32 - 1])
def test_counts_of_2_to_the_31_or_more_read_as_empty(claim: int) -> None:
    """Java reads the count as a negative int: no element, no error (spec §1, row 13)."""
    for field, name in (("list", "l"), ("map", "m"), ("bean list", "lb"),
                        ("unknown list", None), ("unknown map", None)):
        value = agree(lambda c, field=field: c.decode(HOSTILE, "H", claims(claim)[field]
                                                      + b"\x00"))
        assert value[0] == "ok", (field, value)
        if name is not None:
            assert value[1][name] in ([], {})
        else:
            assert zeze.UNKNOWN_KEY in value[1]


@pytest.mark.parametrize("field", ["string", "binary", "decimal", "unknown bytes"])
def test_lengths_of_2_to_the_31_or_more_are_refused(field: str) -> None:
    for claim in (2**31, 2**32 - 1):
        message = decode_error(lambda c, claim=claim: c.decode(HOSTILE, "H",
                                                               claims(claim)[field] + b"\x00"))
        assert "invalid length" in message


# -- deep nesting --------------------------------------------------------------------------------

DEEP = 100_000


def deep(family: str, d: int) -> tuple[str, bytes]:
    """(bean, bytes) nesting ``d`` levels of one kind."""
    return {
        "bean lists": ("N", b"\x14\x16" * d + b"\x00" * (d + 1)),
        "dynamics": ("D", b"\x17\x01" * d + b"\x00" * (d + 1)),
        "maps of beans": ("M", b"\x15\x06\x01\x00" * d + b"\x00" * (d + 1)),
        "skipped beans": ("E", b"\x56" + b"\x16" * d + b"\x00" * (d + 2)),
        "skipped lists": ("E", b"\x54" + b"\x14" * d + b"\x00\x00"),
        "skipped maps": ("E", b"\x55" + b"\x05\x01\x00" * d + b"\x00\x00\x00"),
        "skipped dynamics": ("E", b"\x57\x00" + b"\x17\x00" * d + b"\x00" * (d + 2)),
    }[family]


FAMILIES = ["bean lists", "dynamics", "maps of beans", "skipped beans", "skipped lists",
            "skipped maps", "skipped dynamics"]


@pytest.mark.parametrize("family", FAMILIES)
def test_deep_nesting_fails_fast(family: str) -> None:
    bean, data = deep(family, DEEP)
    message = decode_error(lambda c: c.decode(HOSTILE, bean, data))
    assert "nested more than" in message
    # the cost is that of the first levels, not of the input
    small = deep(family, 2 * bytebuffer.MAX_DEPTH)[1]
    assert calls(lambda: zeze.decode(HOSTILE, bean, data)) <= calls(
        lambda: zeze.decode(HOSTILE, bean, small)) + 100


@pytest.mark.parametrize("levels", [900, 5_000])  # within the C twin's depth, and past it
@pytest.mark.parametrize("family", ["bean lists", "dynamics", "maps of beans"])
def test_a_raised_max_depth_decodes_deep_values_without_recursion_error(family: str,
                                                                        levels: int) -> None:
    """(A list or map and the bean in it are two levels of ``max_depth``.)"""
    bean, data = deep(family, levels)
    value = agree(lambda c: c.decode(HOSTILE, bean, data, max_depth=2 * levels + 1))
    assert value[0] == "ok", value
    assert agree(lambda c: c.encode(HOSTILE, bean, value[1], max_depth=2 * levels + 1)) == (
        "ok", data)
    decode_error(lambda c: c.decode(HOSTILE, bean, data, max_depth=levels // 2))


@pytest.mark.parametrize("family", ["skipped beans", "skipped lists", "skipped maps",
                                    "skipped dynamics"])
def test_skipping_stops_at_its_own_depth_limit(family: str) -> None:
    bean, data = deep(family, bytebuffer.MAX_DEPTH - 2)
    assert agree(lambda c: c.decode(HOSTILE, bean, data, max_depth=50_000))[0] == "ok"
    bean, data = deep(family, bytebuffer.MAX_DEPTH + 1)
    decode_error(lambda c: c.decode(HOSTILE, bean, data, max_depth=50_000))


def test_layer_tags_in_a_bean_without_layers_are_skipped_in_a_loop() -> None:
    """``01`` ends a layer; a bean without ``base=`` skips what follows (spec §3.4), however
    many there are, without recursion."""
    data = b"\x10\x05" + b"\x01" * DEEP + b"\x00"
    assert agree(lambda c: c.decode(HOSTILE, "E", data)) == ("ok", {"a": 5})
