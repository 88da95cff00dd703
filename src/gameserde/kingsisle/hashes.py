"""The name hashes of KingsIsle's type system (spec kiobj.md §2), as katsuba computes them.

A type's hash is ``string_id`` of its name in Wizard101 and ``djb2`` of it in Pirate101; a
property's hash is the type hash of its type name plus ``djb2`` of its name, modulo 2^32.
Names are hashed byte for byte (a ``str`` as its UTF-8 bytes), every byte value included:
katsuba's arithmetic is followed, not libki's signed-``char`` C++ one, which differs for
bytes below 0x20 and from 0x80.
"""

from __future__ import annotations

__all__ = ["GAMES", "djb2", "property_hash", "string_id", "type_hash"]

GAMES = ("wizard101", "pirate101")

_M32 = 0xFFFFFFFF


def _bytes(name: str | bytes | bytearray | memoryview) -> bytes:
    return name.encode("utf-8") if isinstance(name, str) else bytes(name)


def string_id(name: str | bytes | bytearray | memoryview) -> int:
    """KingsIsle's ``StringId`` hash (Wizard101 type hashes), an unsigned 32-bit value: each
    byte minus 32, rotated left by 5 bits per position, XOR-ed together; the absolute value
    of the result as a signed 32-bit int."""
    state = 0
    for i, b in enumerate(_bytes(name)):
        v = (b - 32) & _M32
        shift = (5 * i) & 31
        state ^= ((v << shift) | (v >> (32 - shift))) & _M32 if shift else v
    signed = state - (1 << 32) if state >> 31 else state
    return abs(signed) & _M32 if signed != -(1 << 31) else 0x80000000


def djb2(name: str | bytes | bytearray | memoryview) -> int:
    """The djb2 hash as KingsIsle uses it: ``h = h * 33 + byte`` from 5381, modulo 2^32, with
    the top bit cleared (property name hashes; Pirate101 type hashes)."""
    h = 5381
    for b in _bytes(name):
        h = (h * 33 + b) & _M32
    return h & 0x7FFFFFFF


def type_hash(name: str | bytes, *, game: str = "wizard101") -> int:
    """The hash of a type name: ``string_id`` in Wizard101, ``djb2`` in Pirate101."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    return string_id(name) if game == "wizard101" else djb2(name)


def property_hash(type_name: str | bytes, name: str | bytes, *, game: str = "wizard101") -> int:
    """The hash of a property: its type's hash plus ``djb2`` of its name, modulo 2^32."""
    return (type_hash(type_name, game=game) + djb2(name)) & _M32
