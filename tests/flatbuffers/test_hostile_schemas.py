"""Schemas whose structs are huge for their text: fixed arrays of arrays
(``struct C { z:[long:N]; } struct B { y:[C:M]; }``) and structs that double at each level
(``struct S1 { a:S0; b:S0; }`` ...). Plans and layouts do not grow with array lengths or struct
sizes: a value that leaves such a struct out costs the same whatever its size, and writing or
reading one costs time and memory linear in its bytes. Counted in calls (``sys.setprofile``),
never timed.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gameserde.errors import DecodeError
from gameserde.flatbuffers import FbsSchema, _accel, load_schema
from gameserde.flatbuffers.inspect import annotate
from tests.flatbuffers.growth import assert_flat, assert_linear, attempt, calls, peak


def arrays(n: int, m: int) -> str:
    return (f"struct C {{ z:[long:{n}]; w:short; }}\nstruct B {{ y:[C:{m}]; k:byte; }}\n"
            "union U { B }\ntable T { b:B; v:[B]; u:U; }\nroot_type T;\n")


def doubling(k: int) -> str:
    """``S{k}``: 2**k longs, through ``k`` structs of two fields."""
    return ("struct S0 { a:long; }\n"
            + "".join(f"struct S{i} {{ a:S{i - 1}; b:S{i - 1}; }}\n" for i in range(1, k + 1))
            + f"table T {{ s:S{k}; v:[S{k}]; }}\nroot_type T;\n")


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def everything(schema: FbsSchema, value: dict[str, Any]) -> Any:
    """Every entry point on ``value``: encode, from_json, verify, view, decode, to_json,
    inspect."""
    buf = schema.encode(value)
    assert schema.from_json(schema.to_json(buf)) == buf
    schema.verify(buf)
    v = schema.view(buf)
    fields = [getattr(v, name) for name in ("b", "v", "u", "s") if hasattr(v, name)]
    return (fields, schema.decode(buf), schema.decode(buf, defaults=True),
            schema.to_json(buf, defaults=True), annotate(schema, buf))


def fresh(text: str, value: dict[str, Any]) -> Callable[[], Any]:
    """The whole pipeline from the schema text (plans are built per schema object)."""
    return lambda: everything(load_schema(text), value)


def test_unused_arrays_cost_nothing() -> None:
    sizes = [(1, 1), (64, 64), (65535, 65535)]
    assert_flat([calls(fresh(arrays(n, m), {})) for n, m in sizes], "calls", base=500)
    for accelerated in (True, False):
        assert_flat([peak(fresh(arrays(n, m), {}), accelerated=accelerated)
                     for n, m in sizes], "memory", base=64 << 10)


def test_unused_doubling_structs_cost_nothing() -> None:
    ks = [2, 12, 40]
    assert_flat([calls(fresh(doubling(k), {})) / k for k in ks], "calls per struct", base=50)


def array_value(n: int, m: int) -> dict[str, Any]:
    b = {"y": [{"z": list(range(i, i + n)), "w": -i} for i in range(m)], "k": 1}
    return {"b": b, "v": [b, b], "u_type": "B", "u": b}


def doubling_value(k: int) -> dict[str, Any]:
    def s(level: int) -> Any:
        return {"a": 7} if level == 0 else {"a": s(level - 1), "b": s(level - 1)}
    return {"s": s(k), "v": [s(k)] * 3}


def test_written_arrays_cost_their_bytes() -> None:
    cases = [(8, 8), (16, 16)]  # 4 times the bytes
    costs = [(n * m, calls(fresh(arrays(n, m), array_value(n, m)))) for n, m in cases]
    assert_linear(costs, "calls", base=5000)
    for accelerated in (True, False):
        assert_linear([(n * m, peak(fresh(arrays(n, m), array_value(n, m)),
                                    accelerated=accelerated)) for n, m in cases],
                      "memory", base=256 << 10)


def test_written_doubling_structs_cost_their_bytes() -> None:
    costs = [(2**k, calls(fresh(doubling(k), doubling_value(k)))) for k in (5, 7)]
    assert_linear(costs, "calls", base=5000)


def claimed(**slots: int) -> bytes:
    """A table T whose vtable gives fields ``b`` (slot 4) and ``v`` (slot 6) the offsets
    ``slots``; ``v``'s offset leads to a vector claiming one element, with nothing after."""
    vtable = struct.pack("<4H", 8, 8, slots.get("b", 0), slots.get("v", 0))
    return struct.pack("<I", 12) + vtable + struct.pack("<iII", 8, 4, 1)


def test_huge_structs_fail_fast() -> None:
    """A wrong value for a struct of 34 GB is refused at once, and a buffer claiming such
    structs is refused without reading them."""
    schema = load_schema(arrays(65535, 65535))
    for value in ({"b": {"y": [], "k": 1}}, {"v": [{"y": [{"z": [1]}], "k": 1}]},
                  {"b": {"y": 5, "k": 1}}, {"u_type": "B", "u": {"k": 1}}):
        assert type(attempt(lambda v=value: schema.encode(v))).__name__ == "EncodeError"
    for name in ("b", "v"):
        claim = claimed(**{name: 4})
        for fn in (schema.verify, schema.decode, schema.to_json,
                   lambda c, n=name: getattr(schema.view(c), n)):
            assert isinstance(attempt(lambda f=fn, c=claim: f(c)), DecodeError), (name, fn)
        assert "// verifier: " in annotate(schema, claim)
    doubled = load_schema(doubling(40))
    assert attempt(lambda: doubled.encode({"s": {"a": 1}})).message.startswith(
        "struct: wrong number of initializers")


def test_nested_struct_fields_as_flatc() -> None:
    """A struct's own plan packs it wherever it is nested: a ``hash`` field of a nested struct
    is hashed, as flatc hashes it; keyed structs sort by their key's first scalar."""
    from tests.flatbuffers.cpp_oracle import flatc_binary

    text = ("struct In { h:uint (hash: \"fnv1_32\"); w:ubyte; }\n"
            "struct Out { i:In; a:[In:2]; k:short (key); }\n"
            "table T { o:Out; v:[Out]; }\nroot_type T;\n")
    doc = ('{o: {i: {h: "abc", w: 1}, a: [{h: "x", w: 2}, {h: 5, w: 3}], k: 1}, '
           'v: [{i: {h: "a", w: 0}, a: [{h: 1, w: 0}, {h: 2, w: 0}], k: 9}, '
           '{i: {h: "b", w: 0}, a: [{h: 1, w: 0}, {h: 2, w: 0}], k: -3}]}')
    schema = load_schema(text)
    want = flatc_binary(text, doc)
    assert schema.from_json(doc) == want
    value = schema.decode(want)
    value["o"]["i"]["h"] = "abc"
    assert schema.encode(value) == want
