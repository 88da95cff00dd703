"""Non-zero padding (spec kiobj.md §3, §9): real data and katsuba's own fixtures have padding
bits that are not zero. A decode keeps them (each object's ``padding``) and an encode writes
them back, so an unchanged object re-encodes to the bytes it was read from; an object made
anew, from JSON or XML, has zero padding. Every padding bit of our encodings of generated
objects is set (the bits an ``align`` skips, and the tail of the last byte), under every flag
combination, shallow and deep: the stream decodes to the same object, encodes back to the
same bytes (the C twin and the pure-Python path alike), its JSON copy encodes to the
canonical (zero-padded) bytes, and katsuba reads the same object.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gameserde.errors import EncodeError
from gameserde.kingsisle import _accel, from_json, from_xml, to_json, to_xml
from gameserde.kingsisle import serializer as ki_serializer
from gameserde.kingsisle.bitbuf import BitReader
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import (
    ALL_FLAGS,
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    Serializer,
)
from gameserde.kingsisle.typelist import KiSchema, load_schema
from tests.fuzz.harness import accelerated, agreeing
from tests.kingsisle.katsuba_oracle import run
from tests.kingsisle.strategies import MASKS, body, cases, from_katsuba
from tests.kingsisle.test_generated import collect, prepared

FRAMING = STATEFUL_FLAGS | WITH_COMPRESSION


class PaddingReader(BitReader):
    """A BitReader that notes the bit ranges its ``align`` skips."""

    __slots__ = ("padding",)

    def __init__(self, data: bytes | bytearray | memoryview, bit_position: int = 0) -> None:
        super().__init__(data, bit_position)
        self.padding: list[tuple[int, int]] = []

    def align(self) -> None:
        start = self.bit_position
        super().align()
        if self.bit_position > start:
            self.padding.append((start, self.bit_position))


@contextmanager
def recording(readers: list[PaddingReader]) -> Iterator[None]:
    """The pure-Python serializer reads through PaddingReaders, kept in ``readers``."""
    def make(data: bytes, bit_position: int = 0) -> PaddingReader:
        reader = PaddingReader(data, bit_position)
        readers.append(reader)
        return reader

    saved = ki_serializer.BitReader
    ki_serializer.BitReader = make  # type: ignore[assignment,misc]
    try:
        with accelerated(False):
            yield
    finally:
        ki_serializer.BitReader = saved  # type: ignore[misc]


def padded(schema: KiSchema, data: bytes, flags: int, **options: Any) -> tuple[bytes, int]:
    """The object bytes of ``data`` with every padding bit set, and how many there are."""
    readers: list[PaddingReader] = []
    with recording(readers):
        Serializer(schema, flags=flags & ~FRAMING, **options).decode(data)
    [reader] = readers
    out = bytearray(data)
    ranges = [*reader.padding, (reader.bit_position, 8 * len(data))]
    for start, stop in ranges:
        for bit in range(start, stop):
            out[bit >> 3] |= 1 << (bit & 7)
    return bytes(out), sum(stop - start for start, stop in ranges)


def framed(data: bytes, flags: int) -> bytes:
    """The stream of object bytes ``data`` under ``flags`` (compressed when asked)."""
    out = flags.to_bytes(4, "little") if flags & STATEFUL_FLAGS else b""
    if flags & WITH_COMPRESSION:
        out += b"\x01" + len(data).to_bytes(4, "little") + zlib.compress(data, 9)
    return out + data if not flags & WITH_COMPRESSION else out


def test_the_recorder_sees_the_padding_of_a_known_stream() -> None:
    """katsuba's fixture shape ``{unsigned int; bool; std::string}`` shallow: 7 bits after the
    bool, none elsewhere (the string is aligned already after them), none at the end."""
    schema = load_schema('{"class T": {"hash": 1, "properties": {'
                         '"a": {"type": "unsigned int", "id": 0, "flags": 7, "hash": 2,'
                         ' "dynamic": false},'
                         '"b": {"type": "bool", "id": 1, "flags": 7, "hash": 3,'
                         ' "dynamic": false},'
                         '"c": {"type": "std::string", "id": 2, "flags": 7, "hash": 4,'
                         ' "dynamic": false}}}}')
    data = Serializer(schema).encode(KiObject("class T", 1, {"a": 5, "b": False, "c": b"x"}))
    assert data.hex() == "01000000" "05000000" "00" "0100" "78"
    assert padded(schema, data, 0) == (bytes.fromhex("01000000" "05000000" "fe" "0100" "78"),
                                       7)


def test_set_padding_bits_are_kept_by_us_and_ignored_by_katsuba() -> None:
    requests: list[dict[str, Any]] = []
    checks = []
    total = 0
    for n, (types, value) in enumerate(collect(cases(), 6)):
        text = types.text()
        schema = load_schema(text)
        for flags in range(32):
            for shallow in (True, False):
                mask = MASKS[(n + flags) % 2]
                expected = prepared(types, value, flags, shallow, mask)
                ser = Serializer(schema, flags=flags, shallow=shallow, property_mask=mask)
                data = ser.encode(expected)
                ones, bits = padded(schema, body(data, flags), flags, shallow=shallow,
                                    property_mask=mask)
                total += bits
                stream = framed(ones, flags)
                back = ser.decode(stream)
                assert back == expected, (n, flags, shallow)
                assert ser.encode(back) == stream, (n, flags, shallow)  # zlib data as read too
                if flags in (0, ALL_FLAGS):  # a JSON copy is a new object: zero padding
                    copy = from_json(to_json(back, schema=schema), schema)
                    assert copy == back and ser.encode(copy) == data, (n, flags, shallow)
                requests.append({"kind": "deserialize", "types": text, "blobs": [stream.hex()],
                                 "options": {"flags": flags, "shallow": shallow,
                                             "property_mask": mask}})
                checks.append((schema, expected))
    assert total > 1000
    for (schema, expected), [theirs] in zip(checks, run(requests), strict=True):
        assert from_katsuba(schema, theirs) == expected



NESTED = load_schema('{"class P": {"hash": 1, "properties": {'
                     '"m_b": {"type": "bool", "id": 0, "flags": 7, "hash": 11, "dynamic": false},'
                     '"m_c": {"type": "class C*", "id": 1, "flags": 7, "hash": 12,'
                     ' "dynamic": false, "pointer": true},'
                     '"m_n": {"type": "unsigned int", "id": 2, "flags": 7, "hash": 13,'
                     ' "dynamic": false},'
                     '"m_t": {"type": "bool", "id": 3, "flags": 7, "hash": 14, "dynamic": false}'
                     '}}, "class C": {"hash": 2, "properties": {'
                     '"m_x": {"type": "bool", "id": 0, "flags": 7, "hash": 21, "dynamic": false},'
                     '"m_y": {"type": "int", "id": 1, "flags": 7, "hash": 22, "dynamic": false}'
                     '}}}')


def nested_value() -> KiObject:
    return KiObject("class P", 1, {"m_b": True, "m_c": KiObject("class C", 2, {"m_x": False,
                                                                               "m_y": -2}),
                                   "m_n": 7, "m_t": True})


def with_bits(data: bytes, bits: dict[int, int]) -> bytes:
    """``data`` with ``bits`` (byte index: mask) set."""
    out = bytearray(data)
    for index, mask in bits.items():
        out[index] |= mask
    return bytes(out)


# the shallow stream of nested_value(): P's hash, m_b, 7 bits of P's padding before C's hash,
# C's m_x, 7 bits of C's padding before m_y, P's m_n, m_t and 7 bits ending P (the root)
CANONICAL = bytes.fromhex("01000000" "01" "02000000" "00" "feffffff" "07000000" "01")
PADDED = with_bits(CANONICAL, {4: 0xA4, 9: 0x0E, 18: 0xF0})


def both_paths(fn: Any) -> Any:
    """``fn()`` with the C twin and without: the same result (padding included)."""
    def shape(v: Any) -> Any:
        if isinstance(v, KiObject):
            return (v.type_name, v.padding, [(k, shape(x)) for k, x in v.items()])
        return v

    def outcome(run: Any) -> Any:
        try:
            return ("ok", shape(run()))
        except EncodeError as e:
            return ("EncodeError", str(e))

    return agreeing(fn, outcome)


def test_each_object_keeps_its_own_padding() -> None:
    ser = Serializer(NESTED)
    assert ser.encode(nested_value()) == CANONICAL
    assert both_paths(lambda: ser.decode(PADDED)) == (
        "ok", ("class P", {1: 0x52, 2: 0x78}, [("m_b", True),
                                               ("m_c", ("class C", {1: 0x07},
                                                        [("m_x", False), ("m_y", -2)])),
                                               ("m_n", 7), ("m_t", True)]))
    assert ser.decode(PADDED) == ser.decode(CANONICAL) == nested_value()
    assert both_paths(lambda: ser.encode(ser.decode(PADDED))) == ("ok", PADDED)
    assert ser.decode(CANONICAL).padding is None


def test_the_c_twin_itself_reads_and_writes_padding() -> None:
    """Not a fallback to the reference: the C twin's own decode and encode keep the bits."""
    ser = Serializer(NESTED)
    with accelerated(True):
        read = _accel.decode(ser, PADDED, 0)
        assert read is not None and read[1] == len(PADDED)
        obj = read[0]
        assert (obj.padding, obj["m_c"].padding) == ({1: 0x52, 2: 0x78}, {1: 0x07})
        assert _accel.encode(ser, obj) == PADDED


def test_edits_keep_the_padding_of_what_they_leave_alone() -> None:
    ser = Serializer(NESTED)
    obj = ser.decode(PADDED)
    obj["m_n"] = 8  # a value edited in place: every padding bit stays
    assert both_paths(lambda: ser.encode(obj)) == ("ok", PADDED[:14] + b"\x08" + PADDED[15:])
    obj["m_c"] = KiObject("class C", 2, {"m_x": False, "m_y": -2})  # a new child: zeros
    edited = with_bits(CANONICAL, {4: 0xA4, 18: 0xF0})
    assert both_paths(lambda: ser.encode(obj)) == ("ok", edited[:14] + b"\x08" + edited[15:])
    obj.padding = None  # the root's own padding dropped: canonical bytes
    assert both_paths(lambda: ser.encode(obj)) == ("ok", CANONICAL[:14] + b"\x08"
                                                    + CANONICAL[15:])


def test_padding_is_no_part_of_the_value() -> None:
    ser = Serializer(NESTED)
    padded, canonical = ser.decode(PADDED), ser.decode(CANONICAL)
    assert padded == canonical and repr(padded) == repr(canonical)
    assert to_json(padded, schema=NESTED) == to_json(canonical, schema=NESTED)
    assert to_xml(padded, NESTED) == to_xml(canonical, NESTED)
    assert ser.encode(from_json(to_json(padded, schema=NESTED), NESTED)) == CANONICAL
    assert ser.encode(from_xml(to_xml(padded, NESTED), NESTED)) == CANONICAL
    assert ser.encode(copy.deepcopy(padded)) == PADDED


def test_padding_that_does_not_fit_is_left_out() -> None:
    """Bits that do not fit the alignment (too many, negative, no int) are zeros; padding
    that is no dict is an error."""
    ser = Serializer(NESTED)
    obj = nested_value()
    obj.padding = {1: 0x80, 2: -1, 3: 1}
    obj["m_c"].padding = {1: "x", 0: 1}
    assert both_paths(lambda: ser.encode(obj)) == ("ok", CANONICAL)
    obj.padding = {1: 0x7F, 2: True}
    assert both_paths(lambda: ser.encode(obj)) == ("ok", with_bits(CANONICAL,
                                                                    {4: 0xFE, 18: 0x02}))
    obj.padding = [1]  # type: ignore[assignment]
    assert both_paths(lambda: ser.encode(obj)) == (
        "EncodeError", "kingsisle encode error: the padding of a class P must be None or a "
                       "dict, not [1]")
