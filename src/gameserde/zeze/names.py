"""Zeze's name hashes (spec §2.7): bean TypeIds, default protocol ids, protocol TypeIds.

Both hashes run over the UTF-16 code units of the name, as Zeze's ``FixedHash`` does in C#
and Java (a character outside the BMP counts as its two surrogates).
"""

from __future__ import annotations

_SEED = 3074457345618258791
_FACTOR = 3074457345618258799
_MASK64 = (1 << 64) - 1


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _hash_unsigned(name: str) -> int:
    h = _SEED
    units = name.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(units), 2):
        h = ((h + (units[i] | units[i + 1] << 8)) * _FACTOR) & _MASK64
    return h


def hash64(name: str) -> int:
    """``FixedHash.Hash64``: a bean's default TypeId (of its full name), signed 64-bit."""
    return _signed(_hash_unsigned(name), 64)


def hash32(name: str) -> int:
    """``FixedHash.Hash32``: the default protocol id (of its full name), signed 32-bit:
    the low and high halves of the 64-bit hash XOR-ed."""
    h = _hash_unsigned(name)
    return _signed((h & 0xFFFFFFFF) ^ (h >> 32), 32)


def protocol_type_id(module_id: int, protocol_id: int) -> int:
    """A protocol's TypeId: ``(long)moduleId << 32 | (protocolId & 0xffffffff)`` as a signed
    64-bit value (both ids are signed 32-bit ints)."""
    return _signed(((module_id << 32) | (protocol_id & 0xFFFFFFFF)) & _MASK64, 64)
