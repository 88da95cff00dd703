"""BINd files: the magic, then a deep-mode stream that carries its own flags (0x0B, the game's,
by default), read and written, against katsuba 0.6.0 (which is given the bytes after the
magic, as its Python API wants them)."""

from __future__ import annotations

import contextlib
import random
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, GameserdeWarning
from gameserde.kingsisle import BIND_FLAGS, BIND_MAGIC, read_bind, to_json, write_bind
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer
from tests.fuzz.test_growth import assert_linear
from tests.kingsisle.katsuba_oracle import run, tagged
from tests.kingsisle.test_katsuba_serializer import TYPES, root, unsigned, without
from tests.kingsisle.valuegen import SCHEMA, objects


def sample(big: bool = False) -> KiObject:
    return without(root(random.Random(3), big), "m_net", "m_old")


def test_the_default_is_the_games_layout() -> None:
    data = write_bind(sample(big=True), SCHEMA)
    assert BIND_FLAGS == 0x0B
    assert data[:4] == b"BINd" and data[4:8] == bytes([0x0B, 0, 0, 0]) and data[8] == 1
    body = zlib.decompress(data[13:])  # where wizwalker starts inflating
    assert int.from_bytes(data[9:13], "little") == len(body)
    assert body == Serializer(SCHEMA, flags=2, shallow=False).encode(sample(big=True))
    assert read_bind(data, SCHEMA) == sample(big=True)


@pytest.mark.parametrize("flags", [BIND_FLAGS, 0, 1, 2, 4, 8, 6, 31])
def test_katsuba_reads_our_files_and_we_read_its(flags: int) -> None:
    value = sample(big=flags == BIND_FLAGS)
    if flags & 16:
        value["m_gone"] = 5
    ours = write_bind(value, SCHEMA, flags=flags)
    assert int.from_bytes(ours[4:8], "little") == flags | 1  # STATEFUL_FLAGS is always set
    options = {"flags": 1, "shallow": False, "property_mask": 7}  # what a BINd reader sets
    [[theirs_read], [theirs_written]] = run([
        {"kind": "deserialize", "types": TYPES, "options": options, "blobs": [ours[4:].hex()]},
        {"kind": "serialize", "types": TYPES, "values": [tagged(value)],
         "options": {"flags": flags | 1, "shallow": False, "property_mask": 7}}])
    assert unsigned(theirs_read) == tagged(value)
    their_file = BIND_MAGIC + bytes.fromhex(theirs_written)
    assert read_bind(their_file, SCHEMA) == value
    if not flags & 8:
        assert their_file == ours


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([BIND_FLAGS, 1, 3, 5, 9, 31]))
def test_files_round_trip(data: st.DataObject, flags: int) -> None:
    value = data.draw(objects(shallow=False, named_enums=bool(flags & 4)))
    if flags & 16:
        value.setdefault("m_delta", 1)
        value.setdefault("m_gone", 2)
    file = write_bind(value, SCHEMA, flags=flags)
    back = read_bind(file, SCHEMA)
    assert write_bind(back, SCHEMA, flags=flags) == file
    assert to_json(back, schema=SCHEMA) == to_json(value, schema=SCHEMA)


def test_the_streams_flags_win() -> None:
    value = sample()
    for flags in (1, 3, 7, 9, 11, 15):
        assert read_bind(write_bind(value, SCHEMA, flags=flags), SCHEMA) == value


@pytest.mark.parametrize("data", [b"", b"BIN", b"bind" + bytes(20), b"dNIB" + bytes(20),
                                  Serializer(SCHEMA, flags=1, shallow=False).encode(sample())])
def test_a_missing_magic_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError, match="not a BINd file") as info:
        read_bind(data, SCHEMA)
    assert info.value.offset == 0


def test_truncated_and_damaged_files_give_decode_errors() -> None:
    for flags in (1, BIND_FLAGS):
        data = write_bind(sample(big=True), SCHEMA, flags=flags)
        for n in range(len(data)):
            with pytest.raises(DecodeError):
                read_bind(data[:n], SCHEMA)
        rng = random.Random(flags)
        for _ in range(300):
            damaged = bytearray(data)
            damaged[rng.randrange(4, len(data))] ^= 1 << rng.randrange(8)
            with contextlib.suppress(DecodeError):
                read_bind(bytes(damaged), SCHEMA)


def test_compressed_files_are_capped() -> None:
    bomb = (BIND_MAGIC + BIND_FLAGS.to_bytes(4, "little") + b"\x01"
            + (1 << 20).to_bytes(4, "little") + zlib.compress(bytes(1 << 24)))
    limit = 32 * len(bomb) + 4096  # the file's size, magic included
    with pytest.raises(DecodeError, match=fr"1048576 bytes for the {len(bomb)}-byte input "
                                          fr"\(max_expansion=32, limit {limit}\)") as e:
        read_bind(bomb, SCHEMA)
    assert e.value.offset == 9  # the inflated size
    with pytest.raises(DecodeError, match="not the"):
        read_bind(bomb, SCHEMA, max_expansion=None)


def test_options_reach_the_serializer() -> None:
    value = sample()
    value["m_net"] = 3  # transmit-only: written with mask 0x18, unknown to mask 7
    data = write_bind(value, SCHEMA, property_mask=0x18)
    assert read_bind(data, SCHEMA, property_mask=0x18) == value
    with pytest.raises(DecodeError, match="no property"):
        read_bind(data, SCHEMA)
    with pytest.warns(GameserdeWarning, match="skipped a property its class lacks"):
        assert read_bind(data, SCHEMA, skip_unknown_types=True) == without(value, "m_net")
    with pytest.raises(DecodeError, match="max_depth"):
        read_bind(data, SCHEMA, recursion_limit=1)


@pytest.mark.parametrize("flags", [1, BIND_FLAGS])
def test_reading_grows_linearly(flags: int) -> None:
    def make(n: int) -> bytes:
        value = sample()
        value["m_items"] = [KiObject("class Item", value["m_child"].type_hash,
                                     {"m_id": i, "m_name": b"item %d" % i, "m_on": i % 3 == 0})
                            for i in range(n)]
        return write_bind(value, SCHEMA, flags=flags)

    assert_linear(make, lambda data: read_bind(data, SCHEMA), (200, 400, 800))
