"""The engine's fixed-width helpers (``core/io/marshalls.h``), as ``PackedByteArray.encode_*``
exposes them to scripts: little-endian integers, half/float/double and C strings."""

from __future__ import annotations

import struct

_U16, _U32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")
_HALF, _FLOAT, _DOUBLE = struct.Struct("<e"), struct.Struct("<f"), struct.Struct("<d")


def encode_uint16(value: int) -> bytes:
    return _U16.pack(value & 0xFFFF)


def encode_uint32(value: int) -> bytes:
    return _U32.pack(value & 0xFFFFFFFF)


def encode_uint64(value: int) -> bytes:
    return _U64.pack(value & 0xFFFFFFFFFFFFFFFF)


def decode_uint16(data: bytes) -> int:
    return int(_U16.unpack_from(data)[0])


def decode_uint32(data: bytes) -> int:
    return int(_U32.unpack_from(data)[0])


def decode_uint64(data: bytes) -> int:
    return int(_U64.unpack_from(data)[0])


def encode_half(value: float) -> bytes:
    return _HALF.pack(value)


def encode_float(value: float) -> bytes:
    return _FLOAT.pack(value)


def encode_double(value: float) -> bytes:
    return _DOUBLE.pack(value)


def decode_half(data: bytes) -> float:
    return float(_HALF.unpack_from(data)[0])


def decode_float(data: bytes) -> float:
    return float(_FLOAT.unpack_from(data)[0])


def decode_double(data: bytes) -> float:
    return float(_DOUBLE.unpack_from(data)[0])


def encode_cstring(text: str) -> bytes:
    """UTF-8 bytes and a NUL terminator."""
    return text.encode("utf-8") + b"\0"
