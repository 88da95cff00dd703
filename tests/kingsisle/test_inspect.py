"""The bit map of a stream: rows in order that leave out nothing but padding, paths and
values as the decoder sees them, the spec's annotated example, framing sections, and a map up
to the failure (never an exception) for damaged input."""

from __future__ import annotations

import json
import random

import pytest

from gameserde.kingsisle import load_schema, property_hash, string_id
from gameserde.kingsisle.inspect import StreamMap, stream_map
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer
from tests.fuzz.test_growth import assert_flat, assert_linear
from tests.kingsisle.test_katsuba_serializer import SCHEMA, root
from tests.kingsisle.test_serializer import ITEM, LIST_SCHEMA, NODE

ROOT = root(random.Random(5), big=True)


def check_layout(m: StreamMap) -> None:
    """Within each section rows follow each other; a gap is padding up to a byte boundary."""
    for section in m.sections:
        end = 0
        for row in section.rows:
            start = 8 * row.offset + row.bit
            assert start >= end, row
            if start > end:
                assert start % 8 == 0 and start - end < 8, row
            end = start + (row.bits if row.bits is not None else 8 * row.size)
        assert end <= 8 * len(section.data)


@pytest.mark.parametrize("flags", range(32))
@pytest.mark.parametrize("shallow", [True, False])
def test_every_flag_combination_maps_the_whole_stream(flags: int, shallow: bool) -> None:
    ser = Serializer(SCHEMA, flags=flags, shallow=shallow)
    value = ROOT if not flags & 16 else KiObject(ROOT.type_name, ROOT.type_hash,
                                                 {**ROOT, "m_gone": 1})
    m = stream_map(ser.encode(value), ser)
    check_layout(m)
    rows = {(r.path, r.type): r.note for r in m.rows}
    assert not any(t == "ERROR" for _, t in rows)
    assert rows["$.m_items[2].m_name", "std::string"] == "b'item 2'"
    assert rows["$.m_child", "type hash"] == f"{string_id('class Item')} (class Item)"
    assert rows["$.m_none", "type hash"] == "0 (null)"
    assert rows["$.m_ints", "list length"] == "130 elements"
    assert rows["$.m_kinds[2]", "enum Kind"] == f"{1 << 30} (K_C)"
    assert rows["$.m_pos", "class Vector3D"] == "{'x': 1.5, 'y': -2.25, 'z': 0.125}"
    assert ("$.m_delta", "delta presence") in rows if shallow else (
        rows["$", "object size"].endswith("bits"))
    assert [s.title for s in m.sections] == (["stream", "inflated body"] if flags & 8
                                             else ["stream"])


def test_the_spec_annotated_deep_example() -> None:
    name = "class ExampleRecord"
    schema = load_schema(json.dumps({"version": 2, "classes": {str(string_id(name)): {
        "name": name, "hash": string_id(name), "properties": {
            "m_count": {"type": "unsigned int", "id": 0, "flags": 31, "dynamic": False,
                        "hash": property_hash("unsigned int", "m_count")},
            "m_label": {"type": "std::string", "id": 1, "flags": 31, "dynamic": False,
                        "hash": property_hash("std::string", "m_label")}}}}}))
    data = bytes.fromhex("2b675c28e0000000 60000000f6ffbe3b07000000 600000007b33058902006869")
    rows = stream_map(data, Serializer(schema, shallow=False)).rows
    assert [(r.offset, r.bit, r.bits, r.path, r.type, r.note) for r in rows] == [
        (0, 0, 32, "$", "type hash", "677144363 (class ExampleRecord)"),
        (4, 0, 32, "$", "object size", "224 bits"),
        (8, 0, 32, "$", "record size", "96 bits"),
        (12, 0, 32, "$", "property hash", "1002373110 (m_count)"),
        (16, 0, 32, "$.m_count", "unsigned int", "7"),
        (20, 0, 32, "$", "record size", "96 bits"),
        (24, 0, 32, "$", "property hash", "2298819451 (m_label)"),
        (28, 0, 32, "$.m_label", "std::string", "b'hi'"),
    ]


def test_bits_and_rendering() -> None:
    ser = Serializer(SCHEMA, flags=2 | 4)
    m = stream_map(ser.encode(ROOT), ser)
    bit_int = next(r for r in m.rows if r.path == "$.m_bui5")
    assert (bit_int.bits, bit_int.bit, bit_int.note) == (5, 3, "31")
    text = m.render()
    assert text.startswith("stream (")
    assert "offset     bit  bits bytes" in text
    assert "$.m_bool2" in text


def test_compressed_streams_get_a_section_of_their_own() -> None:
    ser = Serializer(SCHEMA, flags=1 | 8, manual_compression=True)
    m = stream_map(ser.encode(ROOT), ser)
    assert [s.title for s in m.sections] == ["stream", "manually compressed stream",
                                             "inflated body"]
    assert [r.type for r in m.sections[0].rows] == ["inflated size", "zlib data"]
    assert [r.type for r in m.sections[1].rows] == ["flags", "compression marker",
                                                    "inflated size", "zlib data"]
    check_layout(m)


def test_trailing_bytes_and_errors_are_rows() -> None:
    ser = Serializer(SCHEMA, shallow=False)
    data = ser.encode(ROOT)
    assert stream_map(data + b"xy", ser).rows[-1].type == "trailing"
    for cut in range(0, len(data), 7):
        rows = stream_map(data[:cut], ser).rows
        assert rows[-1].type == "ERROR"
        assert rows[-1].offset + rows[-1].size == cut
    bad = stream_map(data[:300], ser).rows[-1]
    assert bad.path.startswith("$.")


def test_unknown_types_are_mapped_as_skipped() -> None:
    item = string_id("class Item")
    ser = Serializer(SCHEMA, shallow=False)
    data = ser.encode(KiObject("class Root", string_id("class Root"), dict(ROOT)))
    hidden = data.replace(item.to_bytes(4, "little"), (item ^ 1).to_bytes(4, "little"))
    rows = stream_map(hidden, Serializer(SCHEMA, shallow=False, skip_unknown_types=True)).rows
    assert [r.note for r in rows if r.type == "type hash"][1].endswith("(unknown class)")
    assert any(r.type == "skipped" for r in rows)


def test_a_stream_inside_other_bytes_is_mapped_with_their_offsets() -> None:
    ser = Serializer(SCHEMA, flags=1, shallow=False)
    data = b"BINd" + ser.encode(ROOT)
    rows = stream_map(data, ser, offset=4).rows
    assert (rows[0].offset, rows[0].type, rows[1].offset) == (4, "flags", 8)
    assert stream_map(data[:6], ser, offset=4).rows[-1].offset == 4
    with pytest.raises(ValueError, match="outside"):
        stream_map(data, ser, offset=len(data) + 1)


def test_a_null_root_is_an_error_row_after_its_type_hash() -> None:
    rows = stream_map(bytes(4), Serializer(SCHEMA)).rows
    assert [(r.offset, r.type, r.note) for r in rows] == [
        (0, "type hash", "0 (null)"), (4, "ERROR", "the root object is null")]


def items(n: int, shallow: bool) -> bytes:
    return Serializer(LIST_SCHEMA, shallow=shallow).encode(KiObject("class N", NODE, {
        "m_items": [KiObject("class Item", ITEM, {"m_name": b"x" * (i % 5)})
                    for i in range(n)]}))


@pytest.mark.parametrize("shallow", [True, False])
def test_the_map_grows_linearly(shallow: bool) -> None:
    ser = Serializer(LIST_SCHEMA, shallow=shallow)
    assert_linear(lambda n: items(n, shallow), lambda d: stream_map(d, ser).render(),
                  (200, 400, 800))


def test_claimed_lengths_cost_nothing() -> None:
    ser = Serializer(LIST_SCHEMA)
    assert_flat(lambda n: NODE.to_bytes(4, "little") + n.to_bytes(4, "little") + bytes(64),
                lambda d: stream_map(d, ser).render(), (1 << 10, 1 << 20, (1 << 32) - 1))
