"""Families of growing hostile JSON text read by ``o3de.load`` (and the value stored again):
as the input doubles, the calls the load and store run and their peak memory at most double
(``tests/fuzz/test_growth.py``'s :func:`assert_linear`); nesting past the depth cap fails
early, at a cost that does not follow the input. The registry is the fuzz targets' (the
conformance file's test types and ``FuzzNode``, which holds itself through a pointer)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gameserde import o3de
from gameserde.errors import DecodeError
from gameserde.o3de._context import MAX_DEPTH
from tests.fuzz.targets import o3de_registry
from tests.fuzz.test_growth import assert_flat, assert_linear


def load_and_store(type_name: str) -> Callable[[bytes], Any]:
    """Parse the text, load it as ``type_name`` and store the value with its defaults."""
    reg = o3de_registry()

    def run(text: bytes) -> Any:
        value, _ = o3de.load(type_name, o3de.parse(text), registry=reg)
        return o3de.store(value, type_name, registry=reg, keep_defaults=True)

    return run


def nested_vectors(depth: int) -> bytes:
    return b"[" * depth + b"1" + b"]" * depth


def vector_type(depth: int) -> str:
    return "vector<" * depth + "int32" + ">" * depth


def node_chain(depth: int) -> bytes:
    return b'{"next": ' * depth + b'{"flags": "BitFlag1"}' + b"}" * depth


FAMILIES: dict[str, tuple[str, Callable[[int], bytes], tuple[int, ...]]] = {
    "long array into vector<int32>": (
        "vector<int32>", lambda n: b"[" + b",".join(b"%d" % (i * 7919) for i in range(n)) + b"]",
        (2000, 4000, 8000)),
    "long array of wrong values into vector<int32>": (
        "vector<int32>", lambda n: b"[" + b",".join([b'"x"', b"{}", b"[1]", b"1.5"] * n) + b"]",
        (500, 1000, 2000)),
    "long array into set<int32>, half repeated": (
        "set<int32>", lambda n: b"[" + b",".join(b"%d" % (i % (n // 2)) for i in range(n)) + b"]",
        (2000, 4000, 8000)),
    "long array of pointers into vector<shared_ptr<BaseClass>>": (
        "vector<shared_ptr<BaseClass>>",
        lambda n: b"[" + b",".join([b'{"$type": "SimpleInheritence", "var1": 3}', b"null"] * n)
        + b"]", (200, 400, 800)),
    "long string into string": (
        "string", lambda n: b'"' + b"ab\\u00e9\\n" * n + b'"', (2000, 4000, 8000)),
    "long string into Uuid": ("Uuid", lambda n: b'"' + b"{0123-" * n + b'"', (2000, 4000, 8000)),
    "long flags string into a bit-flag enum": (
        "ScopedEnumBitFlagsU64", lambda n: b'"' + b"|".join([b"BitFlag1", b"4", b"BitFlag3"] * n)
        + b'"', (500, 1000, 2000)),
    "big object into map<string,int32>": (
        "map<string,int32>", lambda n: b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(n))
        + b"}", (1000, 2000, 4000)),
    "big key/value array into map<string,int32>": (
        "map<string,int32>",
        lambda n: b"[" + b",".join(b'{"Key": "k%d", "Value": %d}' % (i, i) for i in range(n))
        + b"]", (500, 1000, 2000)),
    "object with repeated and unknown members into SimpleClass": (
        "SimpleClass", lambda n: b"{" + b",".join([b'"var1": 1', b'"other%d": [1]' % n] * n)
        + b"}", (500, 1000, 2000)),
    "long vector<any> of typed values": (
        "vector<any>",
        lambda n: b"[" + b",".join([b'{"$type": "int", "value": 4}', b'{"$type": "Vector3", '
                                   b'"value": [1, 2, 3]}'] * n) + b"]", (200, 400, 800)),
    "vectors nested to the cap": (
        "", nested_vectors, (8, 16, 32)),
    "FuzzNode pointers nested to the cap": ("FuzzNode", node_chain, (16, 32, 64)),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_load_grows_linearly(family: str) -> None:
    type_name, make, sizes = FAMILIES[family]
    if type_name:
        run = load_and_store(type_name)
    else:  # the type nests as deeply as the value
        def run(text: bytes) -> Any:
            return load_and_store(vector_type(text.count(b"[")))(text)
    assert_linear(make, run, sizes)


def test_the_families_load() -> None:
    """Each family's largest input loads with no error (the tests above measure real work)."""
    for type_name, make, sizes in FAMILIES.values():
        text = make(sizes[-1])
        name = type_name or vector_type(text.count(b"["))
        value, result = o3de.load(name, o3de.parse(text), registry=o3de_registry())
        assert not result.code.halted, (name, result)
        assert value is not None


def any_chain(depth: int) -> bytes:
    return b'{"extra": {"$type": "FuzzNode", "value": ' * depth + b"{}" + b"}}" * depth


@pytest.mark.parametrize(("make", "depth"), [(node_chain, MAX_DEPTH),
                                             (any_chain, MAX_DEPTH // 2 + 10)])
def test_nesting_past_the_cap_is_a_decode_error(make: Callable[[int], bytes], depth: int
                                                ) -> None:
    """Below the text layer's cap, above the loader's: the load fails, naming the cap."""
    with pytest.raises(DecodeError, match=f"nest more than {MAX_DEPTH} levels"):
        load_and_store("FuzzNode")(make(depth))


def test_nesting_past_the_cap_costs_no_more_as_it_grows() -> None:
    """Past the loader's cap (and below the text layer's), the load stops at the cap."""
    assert_flat(node_chain, lambda text: o3de.load("FuzzNode", o3de.parse(text),
                                                   registry=o3de_registry()), (210, 230, 250))
