"""Serializer limits that katsuba's defaults do not reach: nesting up to a large
recursion_limit works (no RecursionError), and past it is a DecodeError/EncodeError."""

from __future__ import annotations

import json
import zlib

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import load_schema, property_hash, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer

NODE = string_id("class N")
SCHEMA = load_schema(json.dumps({"version": 2, "classes": {str(NODE): {
    "name": "class N", "hash": NODE, "properties": {"m_n": {
        "type": "class N*", "id": 0, "flags": 31, "pointer": True, "dynamic": False,
        "hash": property_hash("class N*", "m_n")}}}}}))


def chain(n: int) -> KiObject:
    obj = None
    for _ in range(n):
        obj = KiObject("class N", NODE, {"m_n": obj})
    assert obj is not None
    return obj


def test_deep_nesting_within_a_large_limit() -> None:
    ser = Serializer(SCHEMA, recursion_limit=5000)
    data = ser.encode(chain(3000))
    assert data == NODE.to_bytes(4, "little") * 3000 + bytes(4)
    assert ser.encode(ser.decode(data)) == data  # (== on 3000-deep values would recurse)


def test_nesting_past_the_limit_is_refused() -> None:
    data = NODE.to_bytes(4, "little") * 200 + bytes(4)
    with pytest.raises(DecodeError, match="max_depth 127"):
        Serializer(SCHEMA).decode(data)
    with pytest.raises(EncodeError, match="max_depth"):
        Serializer(SCHEMA).encode(chain(200))


ITEM = string_id("class Item")
LIST_SCHEMA = load_schema(json.dumps({"version": 2, "classes": {
    str(NODE): {"name": "class N", "hash": NODE, "properties": {"m_items": {
        "type": "class Item*", "id": 0, "flags": 31, "pointer": True, "dynamic": True,
        "hash": property_hash("class Item*", "m_items")}}},
    str(ITEM): {"name": "class Item", "hash": ITEM, "properties": {"m_name": {
        "type": "std::string", "id": 0, "flags": 31, "dynamic": False,
        "hash": property_hash("std::string", "m_name")}}}}}))


@pytest.mark.parametrize("shallow", [True, False])
def test_errors_name_the_path_of_the_bad_value(shallow: bool) -> None:
    items = [KiObject("class Item", ITEM, {"m_name": b"ok"}) for _ in range(3)]
    items[2]["m_name"] = 5
    ser = Serializer(LIST_SCHEMA, shallow=shallow)
    with pytest.raises(EncodeError) as encode_error:
        ser.encode(KiObject("class N", NODE, {"m_items": items}))
    assert encode_error.value.path == "$.m_items[2].m_name"
    items[2]["m_name"] = b"fine"
    data = ser.encode(KiObject("class N", NODE, {"m_items": items}))
    with pytest.raises(DecodeError) as decode_error:
        ser.decode(data[:-3])
    assert decode_error.value.path == "$.m_items[2].m_name"
    assert "in $.m_items[2].m_name" in str(decode_error.value)


def test_the_verbs_are_the_serializer_with_options() -> None:
    from gameserde import kingsisle

    value = KiObject("class N", NODE, {"m_items": [
        KiObject("class Item", ITEM, {"m_name": b"x"})]})
    data = kingsisle.encode(value, LIST_SCHEMA, shallow=False, flags=kingsisle.STATEFUL_FLAGS)
    assert data == Serializer(LIST_SCHEMA, shallow=False, flags=1).encode(value)
    assert kingsisle.decode(data, LIST_SCHEMA, shallow=False, flags=1) == value
    kingsisle.verify(data, LIST_SCHEMA, shallow=False, flags=1)
    with pytest.raises(DecodeError):
        kingsisle.verify(data[:-1], LIST_SCHEMA, shallow=False, flags=1)


def test_error_offsets_are_in_the_input_or_said_to_be_inflated() -> None:
    from gameserde.kingsisle import read_bind, write_bind
    from gameserde.kingsisle.serializer import INFLATED_NOTE

    value = KiObject("class N", NODE, {"m_items": [
        KiObject("class Item", ITEM, {"m_name": b"x" * 40}) for _ in range(20)]})
    plain = Serializer(LIST_SCHEMA, flags=1 | 8)  # stateful; compressed when it pays
    short = KiObject("class N", NODE, {"m_items": []})
    data = plain.encode(short)
    assert data[4] == 0  # too small to compress: marker 0, body raw from byte 5
    with pytest.raises(DecodeError) as raw_error:
        plain.decode(data[:-1])
    assert raw_error.value.offset == 9 and not raw_error.value.message.endswith(INFLATED_NOTE)
    data = plain.encode(value)
    assert data[4] == 1
    body = zlib.decompress(data[9:])
    damaged = data[:5] + len(body[:-2]).to_bytes(4, "little") + zlib.compress(body[:-2])
    with pytest.raises(DecodeError) as inflated_error:
        plain.decode(damaged)
    assert inflated_error.value.message.endswith(INFLATED_NOTE)
    assert inflated_error.value.offset is not None and inflated_error.value.offset < len(body)
    with pytest.raises(DecodeError) as manual_error:
        Serializer(LIST_SCHEMA, manual_compression=True).decode(
            b"\x04\x00\x00\x00" + zlib.compress(NODE.to_bytes(4, "little")))
    assert manual_error.value.message.endswith(INFLATED_NOTE)
    bind = write_bind(short, LIST_SCHEMA, flags=1)
    with pytest.raises(DecodeError) as bind_error:
        read_bind(bind[:-1], LIST_SCHEMA)
    assert bind_error.value.offset == len(bind) - 4


@pytest.mark.parametrize("value", [10 ** 5000, -(10 ** 5000), [10 ** 5000]],
                         ids=["huge", "huge negative", "list of huge"])
def test_huge_values_are_encode_errors(value: object) -> None:
    import random

    from gameserde.kingsisle import to_xml
    from tests.kingsisle.test_katsuba_serializer import SCHEMA, root

    full = root(random.Random(0), big=False)
    for name in ("m_int", "m_float", "m_bool", "m_str", "m_pos"):
        obj = KiObject(full.type_name, full.type_hash, {**full, name: value})
        with pytest.raises(EncodeError, match=r"an integer of 16610 bits|too long to print"):
            Serializer(SCHEMA).encode(obj)
        with pytest.raises(EncodeError, match=r"an integer of 16610 bits|too long to print"):
            to_xml(obj, SCHEMA)


def test_text_utf8_cannot_encode_and_oversized_sizes_are_encode_errors() -> None:
    from gameserde.kingsisle import to_xml
    from gameserde.kingsisle.serializer import _u32

    bad = KiObject("class N", NODE, {"m_items": [KiObject("class Item", ITEM,
                                                          {"m_name": "half \ud800"})]})
    for shallow in (True, False):
        with pytest.raises(EncodeError, match="UTF-8 cannot encode") as e:
            Serializer(LIST_SCHEMA, shallow=shallow).encode(bad)
        assert e.value.path == "$.m_items[0].m_name"
    with pytest.raises(EncodeError, match="UTF-8 cannot encode"):
        to_xml(bad, LIST_SCHEMA)
    enum_schema = load_schema(json.dumps({"version": 2, "classes": {str(ITEM): {
        "name": "class Item", "hash": ITEM, "properties": {"m_e": {
            "type": "enum E", "id": 0, "flags": 31 | (1 << 21), "dynamic": False,
            "hash": property_hash("enum E", "m_e"), "enum_options": {"\ud800": 1}}}}}}))
    with pytest.raises(EncodeError, match="UTF-8 cannot encode"):
        Serializer(enum_schema, flags=4).encode(KiObject("class Item", ITEM, {"m_e": 1}))
    assert _u32((1 << 32) - 1, "a record size") == b"\xff" * 4
    with pytest.raises(EncodeError, match="a record size of 4294967296 is more than"):
        _u32(1 << 32, "a record size")
