"""The schema-less reader: the vectors, Java's GenericBean rules, hostile input and cost."""

from __future__ import annotations

import contextlib
import json
import math
import struct
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError
from gameserde.zeze import hash64
from gameserde.zeze.bytebuffer import (
    BEAN,
    BYTES,
    DYNAMIC,
    INTEGER,
    LIST,
    MAP,
    MAX_DEPTH,
    VECTOR3INT,
    float32_to_bits,
    long_bytes,
)
from gameserde.zeze.generic import (
    GenericBean,
    GenericDynamic,
    GenericField,
    GenericList,
    GenericMap,
    decode_generic,
    decode_generic_bean,
    java_text,
    likes_text,
    to_plain,
)
from tests.zeze.generic_cases import (
    BEAN_CASES,
    FAMILIES,
    RESERVED_TAG_HEX,
    UNREADABLE,
    calls,
    case_id,
    java_reads,
    nested,
    peak_memory,
)


def bean(*layers: tuple[GenericField, ...]) -> GenericBean:
    return GenericBean(layers)


def decode_hex(text: str) -> GenericBean:
    return decode_generic_bean(bytes.fromhex(text))


# -- the vectors ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", BEAN_CASES, ids=case_id)
def test_every_vector_java_reads_decodes(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["hex"])
    if not java_reads(case):
        with pytest.raises(DecodeError, match=UNREADABLE[case["hex"]]):
            decode_generic_bean(data)
        return
    value, end = decode_generic(data)
    assert end == case.get("consumed", len(data)) == len(data)
    json.dumps(to_plain(value), allow_nan=False)


def test_vectors_by_hand() -> None:
    # BFinal{finalInt=3, finalList=[p,q]} : BDerive{deriveInt=2} : BBase{baseInt=1, baseStr=b}
    assert decode_hex("100314230170017101100201100113016200") == bean(
        (GenericField(1, INTEGER, 3, 0),
         GenericField(2, LIST, GenericList(BYTES, (b"p", b"q")), 2)),
        (GenericField(1, INTEGER, 2, 9),),
        (GenericField(1, INTEGER, 1, 12), GenericField(2, BYTES, b"b", 14)))
    # dynamic with BOther's hashed typeId, id 17 (extended delta)
    dyn = decode_hex("f702800c25d50b2dde9f9a10010000").layers[0][0]
    assert (dyn.id, dyn.wire_type, dyn.offset) == (17, DYNAMIC, 0)
    assert dyn.value == GenericDynamic(hash64("oracle.m.BOther"),
                                       bean((GenericField(1, INTEGER, 1, 11),)))
    assert decode_hex("f0550100") == bean((GenericField(100, INTEGER, 1, 0),))
    inner = bean((GenericField(1, INTEGER, 1, 6), GenericField(2, BYTES, b"one", 8)))
    assert decode_hex("f51a36020161100113036f6e650001620000").layers[0][0] == GenericField(
        41, MAP, GenericMap(BYTES, BEAN, ((b"a", inner), (b"b", bean(())))), 0)
    assert decode_hex("f40620ff7fc00000000000000000").layers[0][0].value == GenericList(
        INTEGER, (-1, 1 << 62))
    assert decode_hex("f51e0b010100000000").layers[0][0].value == GenericMap(
        INTEGER, VECTOR3INT, ((1, (0, 0, 0)),))
    # ReadUInt reads the 6-byte form of an extended delta (SkipUInt would not)
    assert decode_hex("36f0f80000000001050000") == bean(
        (GenericField(3, BEAN, bean((GenericField(16, INTEGER, 5, 1),)), 0),))


def test_reserved_tags_and_wire_types_are_refused_as_java_does() -> None:
    with pytest.raises(DecodeError, match="tag 0x02 is reserved") as info:
        decode_hex(RESERVED_TAG_HEX)
    assert info.value.offset == 2
    for tag in range(2, 16):
        with pytest.raises(DecodeError, match="reserved"):
            decode_generic_bean(bytes([tag, 0]))
    for wire_type in (13, 14, 15):
        with pytest.raises(DecodeError, match=f"wire type {wire_type} ") as info:
            decode_generic_bean(bytes([0x30 | wire_type, 0, 0, 0, 0, 0]))
        assert (info.value.offset, info.value.path) == (0, "$.#3")
        # an empty list or map of them is read; an element is not
        assert decode_generic_bean(bytes([0x14, wire_type, 0])).layers[0][0].value == (
            GenericList(wire_type, ()))
        assert decode_generic_bean(bytes([0x15, wire_type << 4, 0, 0])).layers[0][0].value == (
            GenericMap(wire_type, 0, ()))
        with pytest.raises(DecodeError, match=f"wire type {wire_type} "):
            decode_generic_bean(bytes([0x14, 0x10 | wire_type, 0, 0, 0, 0, 0]))
        with pytest.raises(DecodeError, match=f"wire type {wire_type} "):
            decode_generic_bean(bytes([0x15, wire_type, 1, 0, 0, 0, 0, 0]))


def test_values_of_every_wire_type() -> None:
    nan = struct.pack("<I", 0x7FA00001)
    data = (b"\x11" + nan + b"\x12" + struct.pack("<d", -0.0) + b"\x13\x02\xff\xfe"
            + b"\x18" + struct.pack("<2f", 1.5, -2) + b"\x1a" + bytes(12)
            + b"\x1c" + struct.pack("<4f", 1, 2, 3, 4)
            + b"\x19" + long_bytes(2**40 + 5) + long_bytes(2**31)
            + b"\x1b\x01\x02\x03" + b"\x17\x00\x00" + b"\x16\x00" + b"\x00")
    fields = decode_generic_bean(data).layers[0]
    assert [f.id for f in fields] == list(range(1, 11))
    assert float32_to_bits(fields[0].value) == 0x7FA00001  # NaN payload kept
    assert struct.pack("<d", fields[1].value) == struct.pack("<d", -0.0)
    assert [f.value for f in fields[2:]] == [
        b"\xff\xfe", (1.5, -2.0), (0.0, 0.0, 0.0), (1.0, 2.0, 3.0, 4.0),
        (5, -(2**31)),  # longs read as Java's ReadInt: truncated to 32 bits
        (1, 2, 3), GenericDynamic(0, bean(())), bean(())]
    plain = to_plain(decode_generic_bean(data))
    assert plain["1"] == {"type": "FLOAT", "value": "NaN"}
    assert plain["3"] == {"type": "BYTES", "value": {"hex": "fffe"}}
    assert plain["9"] == {"type": "DYNAMIC", "value": {"type_id": 0, "bean": {}}}


def test_field_ids_wrap_as_java_int() -> None:
    # 15 + 0x7ffffff0 = 2^31 - 1, then 15 more wraps past 2^31
    data = b"\xf0\xf0\x7f\xff\xff\xf0\x00" + b"\xf0\x00\x00" + b"\x00"
    assert [f.id for f in decode_generic_bean(data).layers[0]] == [2**31 - 1, -(2**31) + 14]


def test_counts_of_2_31_or_more_read_as_empty() -> None:
    data = b"\x14\xf0\xf0\x7f\xff\xff\xf1" + b"\x15\x00\xf0\xff\xff\xff\xff" + b"\x00"
    assert [f.value for f in decode_generic_bean(data).layers[0]] == [
        GenericList(INTEGER, ()), GenericMap(INTEGER, INTEGER, ())]


def test_layers_and_paths_of_errors() -> None:
    assert decode_hex("010100") == bean((), (), ())
    with pytest.raises(DecodeError) as info:
        decode_hex("01100113056162")  # layer 1, field 2: a 5-byte string of 2 bytes
    assert (info.value.path, info.value.offset) == ("$[<layer 1>].#2", 5)
    with pytest.raises(DecodeError) as info:
        decode_hex("1503010503")  # map<INTEGER, BYTES> {5: truncated}
    assert info.value.path == "$.#1[5]"
    with pytest.raises(DecodeError) as info:
        decode_hex("153301016105")  # map<BYTES, BYTES> {"a": truncated}
    assert info.value.path == '$.#1["a"]'
    with pytest.raises(DecodeError) as info:
        decode_hex("1433010001")  # list<BYTES> ["", truncated...]
    assert info.value.path == "$.#1[1]"
    with pytest.raises(DecodeError) as info:
        decode_hex("1536010100")  # map<BEAN, BEAN>: the key's value is missing
    assert info.value.path == "$.#1[<value 0>]"


def test_offsets_and_trailing_bytes() -> None:
    data = b"\xaa\xbb\x10\x05\x00\xcc"
    assert decode_generic(data, 2) == (bean((GenericField(1, INTEGER, 5, 2),)), 5)
    with pytest.raises(DecodeError, match="1 byte follows the bean's end tag") as info:
        decode_generic_bean(data[2:])
    assert info.value.offset == 3
    for bad in (-1, len(data) + 1):
        with pytest.raises(ValueError, match="outside"):
            decode_generic(data, bad)
    with pytest.raises(DecodeError, match="needs 1 byte"):
        decode_generic(data, len(data))


def test_text_as_java_sees_it() -> None:
    assert likes_text(b"") and likes_text("h\u00e9 \U0001f600".encode())
    assert not likes_text(b"a\nb") and not likes_text(b"\x7f") and not likes_text(b"\xc0\x80")
    assert not likes_text(b"\xed\xa0\x80")  # an encoded surrogate
    assert likes_text(b"\xf4\x90\x80\x80")  # Java's check lets it through
    assert java_text(b"\xed\xa0\x80A") == "\ufffdA"  # one U+FFFD, as Java decodes it


def like_string(data: bytes) -> bool:
    """Java's ``likeString`` rules, byte by byte, as a reference."""
    ranges = {0xE0: (0xA0, 0xC0), 0xED: (0x80, 0xA0), 0xF0: (0x90, 0xC0), 0xF4: (0x80, 0xA0)}
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        size = 0 if 0x20 <= c < 0x7F else 1 if 0xC2 <= c < 0xE0 else 2 if 0xE0 <= c < 0xF0 \
            else 3 if 0xF0 <= c < 0xF5 else -1
        if size < 0 or i + size >= n + (size == 0):
            return False
        low, high = ranges.get(c, (0x80, 0xC0))
        if size and not low <= data[i + 1] < high:
            return False
        if any(not 0x80 <= d < 0xC0 for d in data[i + 2:i + size + 1]):
            return False
        i += size + 1
    return True


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.binary(max_size=12), st.text(max_size=6).map(
    lambda t: t.encode("utf-8", "surrogatepass")), st.lists(st.sampled_from(
        [b"a", b"\x1f", b"\x7f", b"\xc2\x80", b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xed\xa0\x80",
         b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xf4\x9f\xbf\xbf", b"\xf4\xa0\x80\x80",
         b"\xf5\x80\x80\x80", b"\x80", b"\xe1\x80"]), max_size=4).map(b"".join)))
def test_likes_text_is_java_like_string(data: bytes) -> None:
    assert likes_text(data) == like_string(data)


# -- hostile input ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", BEAN_CASES, ids=case_id)
def test_truncation_at_every_offset_raises_decode_error(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["hex"])
    for end in range(len(data)):
        with pytest.raises(DecodeError):
            decode_generic(data[:end])


NESTINGS = {
    "bean": (b"\x16", b"\x00"),  # beans in beans
    "dynamic": (b"\x17\x00", b"\x00"),  # dynamic beans
    "list": (b"\x14\x16", b"\x00"),  # a list of one bean holding a list
    "map": (b"\x15\x66\x01", b"\x00\x00"),  # a map whose bean key holds a map (value: 00)
}


@pytest.mark.parametrize(("opening", "closing"), NESTINGS.values(), ids=NESTINGS)
def test_deep_nesting_stops_at_the_depth_limit(opening: bytes, closing: bytes) -> None:
    deep = nested(opening, 100_000, closing)
    with pytest.raises(DecodeError, match=f"nested more than {MAX_DEPTH} deep") as info:
        decode_generic_bean(deep)
    assert info.value.offset is not None and info.value.offset <= 3 * MAX_DEPTH


def test_the_depth_limit_is_max_depth() -> None:
    decode_generic_bean(nested(b"\x16", MAX_DEPTH - 1, b"\x00"))
    with pytest.raises(DecodeError, match="nested"):
        decode_generic_bean(nested(b"\x16", MAX_DEPTH, b"\x00"))
    lists = b"\x14" + b"\x14" * (MAX_DEPTH - 1) + b"\x00\x00"  # the last list is empty
    assert decode_generic_bean(lists)
    with pytest.raises(DecodeError, match="nested"):
        decode_generic_bean(b"\x14" + b"\x14" * MAX_DEPTH + b"\x00\x00")


def deepest(opening: bytes, closing: bytes) -> int:
    """The most openings the reader accepts."""
    low, high = 1, MAX_DEPTH + 1
    while high - low > 1:
        middle = (low + high) // 2
        try:
            decode_generic_bean(nested(opening, middle, closing))
            low = middle
        except DecodeError:
            high = middle
    return low


@contextlib.contextmanager
def little_stack(frames: int = 60) -> Iterator[None]:
    """A recursion limit only ``frames`` above the current depth."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


@pytest.mark.parametrize(("opening", "closing"), NESTINGS.values(), ids=NESTINGS)
def test_every_operation_works_on_the_deepest_trees(opening: bytes, closing: bytes) -> None:
    n = deepest(opening, closing)
    assert n > MAX_DEPTH // 3  # a list and its bean are two levels
    with pytest.raises(DecodeError, match="nested more than"):
        decode_generic_bean(nested(opening, n + 1, closing))
    with little_stack():
        tree = decode_generic_bean(nested(opening, n, closing))
        same = decode_generic_bean(nested(opening, n, closing))
        shallower = decode_generic_bean(nested(opening, n - 1, closing))
        assert tree == same and tree != shallower and not tree != same  # noqa: SIM202
        assert hash(tree) == hash(same) and len({tree, same, shallower}) == 2
        text = repr(tree)
        plain = to_plain(tree)
    assert text == repr(same) and text.count("GenericBean(layers=") > repr(
        shallower).count("GenericBean(layers=") >= n
    depth, stack = 0, [(plain, 1)]  # to_plain nests as the tree does
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            depth = max(depth, level)
            stack += [(x, level + 1) for x in (node.values() if isinstance(node, dict) else node)]
    assert depth > n


@pytest.mark.parametrize("case", BEAN_CASES, ids=case_id)
def test_repr_hash_and_equality_are_the_dataclasses(case: dict[str, Any]) -> None:
    if not java_reads(case):
        return
    tree = decode_generic_bean(bytes.fromhex(case["hex"]))
    names = {"GenericBean": GenericBean, "GenericField": GenericField, "nan": math.nan,
             "GenericList": GenericList, "GenericMap": GenericMap, "inf": math.inf,
             "GenericDynamic": GenericDynamic}
    again = eval(repr(tree), names)
    assert repr(again) == repr(tree) and again.layers is not tree.layers
    if "nan" not in repr(tree):
        assert again == tree and hash(again) == hash(tree)
    assert tree != tree.layers and tree != GenericBean((*tree.layers, ()))


@pytest.mark.parametrize("data", [
    b"\x14\xf0\xf0\x7f\xff\xff\xf0" + b"\x01\x02\x03",  # a list of 2^31 - 1 longs
    b"\x14\xf6\xf0\x7f\xff\xff\xf0" + b"\x00\x00",  # ... of beans
    b"\x15\x00\xf0\x7f\xff\xff\xff" + b"\x01\x02\x03",  # a map of 2^31 - 1 pairs
    b"\x13\xf0\x7f\xff\xff\xff" + b"abc",  # a string of 2^31 - 1 bytes
    b"\x14\xf4\xf0\x7f\xff\xff\xf0" + b"\x04" * 64,  # lists of lists of 2^31 - 1
], ids=["list", "list-of-beans", "map", "bytes", "lists"])
def test_huge_counts_fail_fast_without_big_allocations(data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode_generic_bean(data)
    assert peak_memory(lambda: decode_generic_bean(data)) < 64 << 10


@pytest.mark.parametrize("family", FAMILIES)
def test_cost_is_linear(family: str) -> None:
    make = FAMILIES[family]
    small, large = make(100), make(200)

    def run(data: bytes) -> None:
        json.dumps(to_plain(decode_generic_bean(data)))

    assert calls(lambda: run(large)) <= 2.3 * calls(lambda: run(small)) + 200
    assert peak_memory(lambda: run(large)) <= 2.6 * peak_memory(lambda: run(small)) + (16 << 10)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_raise_only_decode_error(data: bytes) -> None:
    with contextlib.suppress(DecodeError):
        decode_generic_bean(data)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(BEAN_CASES), st.data())
def test_mutated_vectors_raise_only_decode_error(case: dict[str, Any], data: Any) -> None:
    raw = bytearray.fromhex(case["hex"])
    for _ in range(data.draw(st.integers(1, 3))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    with contextlib.suppress(DecodeError):
        json.dumps(to_plain(decode_generic_bean(bytes(raw))), allow_nan=False)
