"""Compressed streams re-encode to the bytes they were read from: a decoded root keeps the zlib
data it was read from (``zlib_data``) and the encoder writes it again where it inflates to
exactly what is to be written, whatever deflater made it (zlib at another level, katsuba
0.6.0's libdeflate); anything else gets zlib's own data at level 9."""

from __future__ import annotations

import copy
import random
import zlib

from gameserde.kingsisle import Serializer, from_json, read_bind, to_json, write_bind
from gameserde.kingsisle.serializer import STATEFUL_FLAGS, WITH_COMPRESSION
from tests.fuzz.harness import accelerated
from tests.kingsisle.katsuba_oracle import run, tagged
from tests.kingsisle.test_katsuba_serializer import SCHEMA, TYPES, root
from tests.kingsisle.test_padding import NESTED, PADDED, nested_value

LEVEL_1 = [(STATEFUL_FLAGS | WITH_COMPRESSION, False), (0, True), (WITH_COMPRESSION, True)]


def frame(body: bytes, flags: int, manual: bool, level: int) -> bytes:
    """A stream of ``body`` compressed by zlib at ``level`` as ``flags`` and ``manual`` ask."""
    out = flags.to_bytes(4, "little") if flags & STATEFUL_FLAGS else b""
    if flags & WITH_COMPRESSION:
        out += b"\x01" + len(body).to_bytes(4, "little") + zlib.compress(body, level)
    else:
        out += body
    if manual:
        return len(out).to_bytes(4, "little") + zlib.compress(out, level)
    return out


def big_body() -> bytes:
    """The body of a root whose zlib data at level 1 differs from level 9's."""
    obj = root(random.Random(7), True)
    body = Serializer(SCHEMA).encode(obj)
    assert zlib.compress(body, 1) != zlib.compress(body, 9)
    return body


def test_zlib_data_of_another_level_is_written_again() -> None:
    body = big_body()
    for flags, manual in LEVEL_1:
        ser = Serializer(SCHEMA, flags=flags, manual_compression=manual)
        data = frame(body, flags, manual, 1)
        for enabled in (True, False):
            with accelerated(enabled):
                obj = ser.decode(data)
                assert ser.encode(obj) == data, (flags, manual, enabled)
                assert ser.encode(copy.deepcopy(obj)) == data
        canonical = ser.encode(from_json(to_json(obj, schema=SCHEMA), SCHEMA))
        assert canonical != data and ser.decode(canonical) == obj
        assert canonical == frame(body, flags, manual, 9)
        obj["m_uint"] ^= 1  # an edit: zlib's own data at level 9 for what changed
        edited = ser.encode(obj)
        assert ser.decode(edited) == obj and edited == ser.encode(
            from_json(to_json(obj, schema=SCHEMA), SCHEMA))


def test_what_the_zlib_data_held_is_kept() -> None:
    """The zlib data as read, without what follows it (kept apart, in ``trailing``); the
    padding inside it kept."""
    ser = Serializer(NESTED, flags=WITH_COMPRESSION, manual_compression=True)
    inner = zlib.compress(PADDED, 1)
    stream = b"\x01" + len(PADDED).to_bytes(4, "little") + inner + b"trailing"
    outer = zlib.compress(stream, 1)
    data = len(stream).to_bytes(4, "little") + outer + b"after"
    obj = ser.decode(data)
    assert obj.zlib_data == (outer, inner)
    assert obj.trailing == ((4 + len(outer), b"after"), (5 + len(inner), b"trailing"), None)
    assert obj == nested_value() and obj.padding == {1: 0x52, 2: 0x78}
    assert ser.encode(obj) == data
    obj.trailing = None  # the zlib data as read, without what followed it
    again = ser.encode(obj)
    assert zlib.decompress(again[4:]) == stream[:-8]
    assert ser.decode(again).zlib_data == (again[4:], inner)


def test_zlib_data_is_kept_even_where_compressing_saves_too_little() -> None:
    """katsuba compresses only when that saves more than 5 bytes; data read compressed is
    written compressed again."""
    ser = Serializer(NESTED, flags=WITH_COMPRESSION)
    data = b"\x01" + len(PADDED).to_bytes(4, "little") + zlib.compress(PADDED, 9)
    obj = ser.decode(data)
    assert ser.encode(obj) == data
    assert ser.encode(nested_value()) == b"\x00" + Serializer(NESTED).encode(nested_value())


def test_only_decoded_compressed_roots_keep_zlib_data() -> None:
    ser = Serializer(NESTED, flags=WITH_COMPRESSION)
    for enabled in (True, False):
        with accelerated(enabled):
            assert Serializer(NESTED).decode(PADDED).zlib_data is None
            assert ser.decode(b"\x00" + PADDED).zlib_data is None
    obj = ser.decode(b"\x01" + len(PADDED).to_bytes(4, "little") + zlib.compress(PADDED, 1))
    assert obj.zlib_data is not None and obj["m_c"].zlib_data is None
    assert obj == nested_value() and nested_value().zlib_data is None


def test_zlib_data_that_does_not_fit_is_left_out() -> None:
    ser = Serializer(NESTED, flags=WITH_COMPRESSION, manual_compression=True)
    canonical = ser.encode(nested_value())
    other = zlib.compress(b"something else", 1)
    for kept in [(other, other), (None, zlib.compress(b"\x00" * 3, 1)), ("text", 5), [b""],
                 b"bytes", (zlib.compress(PADDED, 1)[:-1], None)]:
        obj = nested_value()
        obj.zlib_data = kept  # type: ignore[assignment]
        assert ser.encode(obj) == canonical, kept


def test_katsubas_libdeflate_data_is_written_again() -> None:
    obj = root(random.Random(3), True)
    options = [(STATEFUL_FLAGS | WITH_COMPRESSION, False), (WITH_COMPRESSION, True), (0, True)]
    requests = [{"kind": "serialize", "types": TYPES, "values": [tagged(obj)],
                 "options": {"flags": flags, "manual_compression": manual}}
                for flags, manual in options]
    for (flags, manual), [theirs] in zip(options, run(requests), strict=True):
        data = bytes.fromhex(theirs)
        ser = Serializer(SCHEMA, flags=flags, manual_compression=manual)
        assert ser.encode(obj) != data  # zlib's bytes are not libdeflate's
        assert ser.encode(ser.decode(data)) == data, (flags, manual)


def test_bind_files_re_save_unchanged() -> None:
    written = write_bind(root(random.Random(7), True), SCHEMA)
    assert written[8] == 1  # magic, flags, marker: compressed
    foreign = written[:13] + zlib.compress(zlib.decompress(written[13:]), 1)
    assert foreign != written
    assert write_bind(read_bind(foreign, SCHEMA), SCHEMA) == foreign
