"""Hostile O3DE JSON: huge numbers, deep nesting, repeated names, wide patches, ``$import``
chains and bombs. A DecodeError or the right value, never another exception, and the work
(calls, peak memory) grows at most linearly with the input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gameserde import o3de
from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de.text import MAX_DEPTH
from tests.fuzz.harness import accelerated
from tests.fuzz.test_growth import assert_linear


def parse_write(data: bytes) -> Any:
    value = o3de.parse(data)
    try:
        return o3de.write(value)
    except EncodeError:
        return None


FAMILIES = {
    "integer digits": (lambda n: b"1" * n, (25_000, 50_000, 100_000)),
    "fraction digits": (lambda n: b"0." + b"0" * n + b"17", (25_000, 50_000, 100_000)),
    "exponent digits": (lambda n: b"1e-" + b"9" * n, (25_000, 50_000, 100_000)),
    "17-digit doubles": (lambda n: b"[" + b",".join([b"0.10000000149011612"] * n) + b"]",
                         (500, 1000, 2000)),
    "repeated names": (lambda n: b"{" + b",".join([b'"a": [1.5, "x"]'] * n) + b"}",
                       (500, 1000, 2000)),
    "escaped strings": (lambda n: b'["' + b"\\u00e9\\ud83d\\ude00\\n" * n + b'"]',
                        (2000, 4000, 8000)),
    "comments": (lambda n: b"[" + b"/* c */ 1, // x\n" * n + b"2]", (500, 1000, 2000)),
    "nesting to the cap": (lambda n: b"[" * n + b"]" * n, (64, 128, 256)),
    "nesting past the cap": (lambda n: b"[" * n + b"]" * n, (5000, 10000, 20000)),
    "nested objects": (lambda n: b'{"a":' * n + b"1" + b"}" * n, (64, 128, 256)),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_parse_and_write_grow_linearly(family: str) -> None:
    """(Pretty text of nested values has indentation that grows with the depth, so the
    nesting families are only read.)"""
    make, sizes = FAMILIES[family]
    run = o3de.parse if "nest" in family else parse_write
    assert_linear(make, run, sizes, memory=family != "nesting past the cap")


@pytest.mark.parametrize(("text", "words"), [
    ("1" * 100_000, "too big"),
    ("1e" + "9" * 100_000, "exponent"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nest deeper"),
    ("[" * 100_000, "nest deeper"),
    ("{\"a\":" * 100_000, "nest deeper"),
    ("{" * 100_000, "property name"),
])
def test_refused_with_a_decode_error(text: str, words: str) -> None:
    with pytest.raises(DecodeError, match=words):
        o3de.parse(text)


def test_tiny_numbers_underflow_to_zero() -> None:
    assert o3de.parse("0." + "0" * 100_000 + "1") == 0.0
    assert o3de.parse("1e-" + "9" * 100_000) == 0.0
    assert o3de.parse("-" + "1" * 300 + "e-300") < 0


def wide(n: int) -> dict[str, Any]:
    return {f"k{i}": [i, float(i), {"v": str(i)}] for i in range(n)}


def as_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


def patch_all(data: bytes) -> Any:
    target, patch = json.loads(data)
    return (o3de.apply_patch(target, patch), o3de.apply_patch(target, patch, "JsonMergePatch"),
            o3de.create_patch(target, patch), o3de.create_patch(patch, target),
            o3de.create_patch(target, patch, "JsonMergePatch"), o3de.compare(target, patch))


PATCH_FAMILIES = {
    "wide target": (lambda n: as_bytes([wide(n), [{"op": "test", "path": "/k1/2/v",
                                                   "value": "1"}]]), (200, 400, 800)),
    "many operations": (lambda n: as_bytes([wide(4), [
        {"op": "copy", "from": "/k1", "path": f"/n{i}"} for i in range(n)]]),
        (200, 400, 800)),
    "merge nulls": (lambda n: as_bytes([wide(n), {f"k{i}": None for i in range(0, n, 2)}]),
                    (200, 400, 800)),
    "long arrays": (lambda n: as_bytes([list(range(n)), list(range(0, 2 * n, 2))]),
                    (500, 1000, 2000)),
}


@pytest.mark.parametrize("family", list(PATCH_FAMILIES))
def test_patches_grow_linearly(family: str) -> None:
    make, sizes = PATCH_FAMILIES[family]
    assert_linear(make, patch_all, sizes)


def test_merge_nulls_over_repeated_names_grow_linearly() -> None:
    def make(n: int) -> bytes:
        return ("[{" + ",".join(['"a": 1', '"b": 2'] * n) + "}, {"
                + ",".join(['"a": null'] * n) + "}]").encode()

    def run(data: bytes) -> Any:
        target, patch = o3de.parse(data)
        return o3de.apply_patch(target, patch, "JsonMergePatch")
    assert_linear(make, run, (200, 400, 800))
    target, patch = o3de.parse(make(3))
    merged = o3de.apply_patch(target, patch, "JsonMergePatch").value
    assert merged == o3de.JsonObject([("b", 2)] * 3)  # each removal moves the last member


def test_imports_grow_linearly() -> None:
    def make(n: int) -> bytes:
        return str(n).encode()

    def run(data: bytes) -> Any:
        n = int(data)
        tree = {f"f{i}.json": json.dumps({"v": [i] * 50, "next": {"$import": f"f{i + 1}.json"}})
                for i in range(n)} | {f"f{n}.json": "{}"}
        return o3de.resolve_imports({"$import": "f0.json"}, "t.json", tree.get,
                                    max_depth=n + 1)
    assert_linear(lambda n: make(n).rjust(n, b"0"), run, (10, 20, 40), memory=False)


def test_bombs_cost_what_the_expansion_budget_allows() -> None:
    """The files grow with the levels, and so does the budget: linearly, not 2^levels."""
    def run(data: bytes) -> Any:
        levels = len(data)
        tree = {f"b{i}.json": json.dumps({"l": {"$import": f"b{i + 1}.json"},
                                          "r": {"$import": f"b{i + 1}.json"}})
                for i in range(levels)} | {f"b{levels}.json": "1"}
        return o3de.resolve_imports({"$import": "b0.json"}, "t.json", tree.get,
                                    max_depth=levels + 1)
    assert_linear(lambda n: b"x" * n, run, (16, 32, 64))


@pytest.mark.parametrize(("raw", "escaped", "at"), [
    ('["\ud800"]', '["\\ud800"]', 1),
    ('{"k": "ab\udfff"}', '{"k": "ab\\udfff"}', 6),
    ('[1, // c\n "x\udc00y"]', '[1, // c\n "x\\udc00y"]', 10),
    ('\ufeff["\ud83d"]', '\ufeff["\\ud83d"]', 2),
])
def test_lone_surrogates_raw_or_escaped_are_refused_alike(raw: str, escaped: str, at: int
                                                          ) -> None:
    """A ``str`` holding a lone surrogate (UTF-8 cannot hold it) is refused as its ``\\u``
    escape is (rapidjson refuses it): the same sentence at the same offset, C and pure."""
    errors = []
    for text in (raw, escaped):
        for enabled in (True, False):
            with accelerated(enabled), pytest.raises(DecodeError) as info:
                o3de.parse(text)
            errors.append((str(info.value), info.value.offset))
    assert errors == [errors[0]] * 4
    assert "A string holds half a surrogate pair" in errors[0][0] and errors[0][1] == at


@pytest.mark.parametrize(("text", "at"), [('[1] // \udc80', 7), ('[1]\x00 \ud800', 5),
                                          ('["\ud83d\ude00"]', 1)])
def test_raw_surrogates_anywhere_in_a_str_are_refused(text: str, at: int) -> None:
    """Outside strings too (a comment, after a NUL), as invalid UTF-8 is in ``bytes``; a
    pair of raw surrogates is two lone ones (a ``str`` holds U+1F600 as one code point)."""
    for enabled in (True, False):
        with accelerated(enabled), pytest.raises(DecodeError, match="surrogate pair") as info:
            o3de.parse(text)
        assert info.value.offset == at
