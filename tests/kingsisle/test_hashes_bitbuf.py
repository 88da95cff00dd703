"""KingsIsle name hashes (the spec's vectors, taken from katsuba and real type dumps) and the
LSB-first bit buffer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import BitReader, BitWriter, djb2, property_hash, string_id, type_hash


@pytest.mark.parametrize(("name", "value"), [
    ("std::string", 1497788074),
    ("class FishTournamentEntry", 1725212200),
    ("class NonCombatMayCastSpellTemplate*", 920052956),
    ("class EquipmentSetList", 135649998),
    ("class ExampleRecord", 677144363),
    ("class ExampleItem", 840848220),
])
def test_string_id(name: str, value: int) -> None:
    assert string_id(name) == value == string_id(name.encode()) == type_hash(name)


def test_djb2_and_property_hashes() -> None:
    assert djb2("m_packedName") == 307420154
    assert string_id("bool") + djb2("m_bool") == 221725407
    assert property_hash("class SharedPointer<class EquipmentSet>",
                         "m_equipmentSetList") == 1788831224
    assert property_hash("unsigned int", "m_count") == 1002373110
    assert property_hash("std::string", "m_label") == 2298819451
    assert property_hash("unsigned int", "m_id") == 2301988666
    assert type_hash("class X", game="pirate101") == djb2("class X")
    with pytest.raises(ValueError):
        type_hash("class X", game="wizard102")


@given(st.binary(max_size=80))
def test_hashes_are_unsigned_32_bit(name: bytes) -> None:
    assert 0 <= string_id(name) <= 0x80000000
    assert 0 <= djb2(name) < 1 << 31


def test_string_id_takes_the_absolute_value_of_the_signed_state() -> None:
    assert string_id(b"") == 0
    assert string_id(bytes([0x21])) == 1
    assert string_id(bytes([0x1F])) == 1  # 0x1F - 32 = -1, and |-1| = 1
    assert string_id(bytes([0x00, 0xFF])) == abs((0xFFFFFFE0 ^ (0xDF << 5)) - (1 << 32))


@given(st.lists(st.integers(1, 64).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, (1 << n) - 1))), max_size=40),
    st.lists(st.booleans(), max_size=40))
def test_bits_round_trip(fields: list[tuple[int, int]], aligns: list[bool]) -> None:
    w = BitWriter()
    for (n, value), align in zip(fields, aligns + [False] * len(fields), strict=False):
        if align:
            w.align()
        w.write_bits(value, n)
    data = w.getvalue()
    assert len(data) == (w.bit_position + 7) // 8
    r = BitReader(data)
    for (n, value), align in zip(fields, aligns + [False] * len(fields), strict=False):
        if align:
            r.align()
        assert r.read_bits(n) == value


def test_lsb_first_packing_and_padding() -> None:
    # the spec's shallow example: a bool, then a compact length 0 + 7-bit 1, then aligned
    w = BitWriter()
    w.write_bool(True)
    w.write_bits(0, 1)
    w.write_bits(1, 7)
    w.write_bytes(b"Z")
    w.write_bits(0xFFFFFFFF, 32)
    assert w.getvalue().hex() == "0500" + "5a" + "ffffffff"
    r = BitReader(bytes.fromhex("be"))  # padding bits after a false bool are ignored
    assert r.read_bool() is False
    r.align()
    assert r.remaining_bits == 0


def test_errors() -> None:
    with pytest.raises(DecodeError) as e:
        BitReader(b"\x01\x02", 9).read_bits(8)
    assert e.value.offset == 1 and "needs 8 bits but only 7 remain" in str(e.value)
    with pytest.raises(DecodeError):
        BitReader(b"\x01").read_bytes(2)
    with pytest.raises(EncodeError):
        BitWriter().write_bits(4, 2)
