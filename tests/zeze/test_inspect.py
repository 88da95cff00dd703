"""The Zeze byte map: rows that tile the input, names from a schema, errors as rows, cost."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.zeze import ZezeSchema, load_schema
from gameserde.zeze.bytebuffer import MAX_DEPTH
from gameserde.zeze.inspect import NOTE_LIMIT, Region, regions, render
from tests.zeze.generic_cases import (
    BEAN_CASES,
    FAMILIES,
    SCHEMA_XML,
    calls,
    case_id,
    java_reads,
    nested,
    peak_memory,
)

ORACLE = load_schema(SCHEMA_XML, filename="oracle.xml")


def assert_tiles(rows: list[Region], size: int, start: int = 0) -> None:
    """The rows cover ``start`` to ``size`` in order, each byte once."""
    at = start
    for row in rows:
        assert row.offset == at and (row.size > 0 or row.type == "ERROR"), row
        at += row.size
    assert at == size


def table(data: bytes, **options: Any) -> list[tuple[int, str, str, str]]:
    return [(r.offset, r.path, r.type, r.note) for r in regions(data, **options)]


@pytest.mark.parametrize("case", BEAN_CASES, ids=case_id)
@pytest.mark.parametrize("schema", [None, ORACLE], ids=["schema-less", "schema"])
def test_every_vector_is_mapped(case: dict[str, Any], schema: ZezeSchema | None) -> None:
    data = bytes.fromhex(case["hex"])
    rows = regions(data, schema=schema, bean=case["bean"] if schema else None)
    assert_tiles(rows, len(data))
    errors = [r for r in rows if r.type == "ERROR"]
    if java_reads(case):
        assert not errors and rows[-1].type == "end" and rows[-1].path == "$"
    else:
        assert errors == rows[-1:]
    render(data, rows)


def test_schema_less_rows() -> None:
    assert table(bytes.fromhex("f51b0301ff036e656700")) == [  # map long string {-1: "neg"}
        (0, "$.#42", "tag", "field 42, MAP"),
        (2, "$.#42", "MAP[INTEGER, BYTES]", "1 entry"),
        (4, "$.#42[<key 0>]", "INTEGER", "-1"),
        (5, "$.#42[-1]", "BYTES", "'neg'"),
        (9, "$", "end", "end of the bean")]
    lines = render(bytes.fromhex("f51b0301ff036e656700"),
                   regions(bytes.fromhex("f51b0301ff036e656700"))).splitlines()
    assert lines[0].split() == ["offset", "bytes", "path", "type", "value"]
    assert lines[4].startswith("0x00000005 03 6e 65 67 ")
    assert lines[4].endswith(" $.#42[-1]      BYTES               'neg'")


def test_schema_names_fields_of_every_layer_and_dynamic_beans() -> None:
    data = bytes.fromhex("1610050100170310031423017001710110020110011301620000")
    rows = table(data, schema=ORACLE, bean="BHolder")
    assert [(path, kind) for _, path, kind, _ in rows if kind != "tag"] == [
        ("$.derive.deriveInt", "INTEGER"), ("$.derive", "layer end"), ("$.derive", "end"),
        ("$.dyn", "DYNAMIC"), ("$.dyn.finalInt", "INTEGER"),
        ("$.dyn.finalList", "LIST[BYTES]"), ("$.dyn.finalList[0]", "BYTES"),
        ("$.dyn.finalList[1]", "BYTES"), ("$.dyn", "layer end"),
        ("$.dyn.deriveInt", "INTEGER"), ("$.dyn", "layer end"), ("$.dyn.baseInt", "INTEGER"),
        ("$.dyn.baseStr", "BYTES"), ("$.dyn", "end"), ("$", "end")]
    assert (6, "$.dyn", "DYNAMIC", "typeId 3 (oracle.m.BFinal)") in rows
    # without a schema: ids, and a step for each further layer
    paths = [path for _, path, _, _ in table(data)]
    assert "$.#2[<layer 2>].#2" in paths and "$.#1.#1" in paths
    # a hashed typeId names its bean wherever it is
    dyn = bytes.fromhex("f702800c25d50b2dde9f9a10010000")
    assert table(dyn, schema=ORACLE, bean="BAll")[1][3] == (
        "typeId -8348032090270425190 (oracle.m.BOther)")
    assert table(dyn, schema=ORACLE, bean="BAll")[3][1] == "$.dyn.x"
    # fields the schema does not know keep their ids
    assert table(bytes.fromhex("100113016200"), schema=ORACLE, bean="BOther")[2][1] == "$.#2"


def test_schema_tells_strings_from_binary() -> None:
    def notes(data: bytes, **options: Any) -> list[tuple[str, str]]:
        return [(path, note) for _, path, kind, note in table(data, **options)
                if kind == "BYTES"]

    text, binary = b"\x83\x03abc\x13\x03abc\x00", b"\x83\x02\xff\xfe\x13\x02\xff\xfe\x00"
    assert notes(text) == [("$.#8", "'abc'"), ("$.#9", "'abc'")]
    assert notes(binary) == [("$.#8", "b'\\xff\\xfe'"), ("$.#9", "b'\\xff\\xfe'")]
    # BAll field 8 is binary, field 9 a string
    assert notes(text, schema=ORACLE, bean="BAll") == [("$.bin", "b'abc'"), ("$.str", "'abc'")]
    assert notes(binary, schema=ORACLE, bean="BAll") == [
        ("$.bin", "b'\\xff\\xfe'"), ("$.str", "'\ufffd\ufffd'")]


def test_long_values_are_cut() -> None:
    data = b"\x13\x80\xc8" + b"k" * 200 + b"\x00"
    note = regions(data)[1].note
    assert len(note) == NOTE_LIMIT and note == "'" + "k" * (NOTE_LIMIT - 4) + "..."


def test_errors_become_the_last_row() -> None:
    rows = table(bytes.fromhex("100502000000000000f03f00"))
    assert rows[-1] == (2, "$", "ERROR", "tag 0x02 is reserved (a field id delta of 0)")
    rows = table(bytes.fromhex("1433010001"))  # list<BYTES> ["", a 1-byte string cut short]
    assert rows[-1] == (4, "$.#1[1]", "ERROR", "the binary needs 1 byte but 0 remain")
    rows = table(b"\x1d\x00")
    assert rows == [(0, "$.#1", "ERROR", "wire type 13 is not a Zeze wire type")]


def test_trailing_bytes_offsets_and_bad_arguments() -> None:
    data = b"\xaa\x10\x05\x00\xcc\xdd"
    rows = regions(data, offset=1)
    assert_tiles(rows, len(data), 1)
    assert (rows[-1].offset, rows[-1].type, rows[-1].note) == (4, "trailing", "2 bytes after "
                                                                "the bean")
    assert table(bytearray(data), offset=1) == table(data, offset=1)
    with pytest.raises(ValueError, match="outside"):
        regions(data, offset=7)
    with pytest.raises(ValueError, match="needs a schema"):
        regions(data, bean="BAll")
    with pytest.raises(KeyError):
        regions(data, schema=ORACLE, bean="NoSuchBean")
    with pytest.raises(TypeError):
        regions("text")


# -- hostile input ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", BEAN_CASES, ids=case_id)
def test_truncation_at_every_offset_is_a_marked_row(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["hex"])
    for end in range(len(data)):
        rows = regions(data[:end], schema=ORACLE, bean=case["bean"])
        assert_tiles(rows, end)
        assert rows[-1].type == "ERROR" and [r.type for r in rows].count("ERROR") == 1


@pytest.mark.parametrize("opening", [b"\x16", b"\x17\x00", b"\x14\x16", b"\x15\x66\x01"],
                         ids=["bean", "dynamic", "list", "map"])
def test_deep_nesting_is_an_error_row(opening: bytes) -> None:
    data = nested(opening, 100_000)
    rows = regions(data)
    assert rows[-1].type == "ERROR" and rows[-1].note == (
        f"values are nested more than {MAX_DEPTH} deep")
    assert rows[-1].offset <= 3 * MAX_DEPTH
    assert_tiles(rows, len(data))


@pytest.mark.parametrize("data", [
    b"\x14\xf0\xf0\x7f\xff\xff\xf0\x01\x02\x03", b"\x15\x00\xf0\x7f\xff\xff\xff\x01\x02\x03",
    b"\x13\xf0\x7f\xff\xff\xffabc"], ids=["list", "map", "bytes"])
def test_huge_counts_stay_small(data: bytes) -> None:
    rows = regions(data)
    assert rows[-1].type == "ERROR" and len(rows) < 8
    assert peak_memory(lambda: render(data, regions(data))) < 64 << 10


@pytest.mark.parametrize("family", [*FAMILIES, "deep"])
def test_cost_is_linear(family: str) -> None:
    make = FAMILIES.get(family, lambda n: nested(b"\x16", 3 * n, b"\x00"))
    small, large = make(100), make(200)

    def run(data: bytes) -> None:
        render(data, regions(data))

    assert calls(lambda: run(large)) <= 2.3 * calls(lambda: run(small)) + 200
    assert peak_memory(lambda: run(large)) <= 2.6 * peak_memory(lambda: run(small)) + (16 << 10)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_are_mapped_without_exceptions(data: bytes) -> None:
    rows = regions(data, schema=ORACLE, bean="BAll")
    assert_tiles(rows, len(data))
    render(data, rows)
