"""Non-zero padding (spec kiobj.md §3, §9): real data and katsuba's own fixtures have padding
bits that are not zero. Every padding bit of our encodings of generated objects is set (the
bits an ``align`` skips, and the tail of the last byte), under every flag combination, shallow
and deep: the stream decodes to the same object, encodes back to the canonical (zero-padded)
bytes, and katsuba reads the same object.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gameserde.kingsisle import serializer as ki_serializer
from gameserde.kingsisle.bitbuf import BitReader
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import STATEFUL_FLAGS, WITH_COMPRESSION, Serializer
from gameserde.kingsisle.typelist import KiSchema, load_schema
from tests.fuzz.harness import accelerated
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


def test_set_padding_bits_are_ignored_by_us_and_katsuba() -> None:
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
                assert ser.encode(back) == data, (n, flags, shallow)
                requests.append({"kind": "deserialize", "types": text, "blobs": [stream.hex()],
                                 "options": {"flags": flags, "shallow": shallow,
                                             "property_mask": mask}})
                checks.append((schema, expected))
    assert total > 1000
    for (schema, expected), [theirs] in zip(checks, run(requests), strict=True):
        assert from_katsuba(schema, theirs) == expected

