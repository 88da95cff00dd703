"""Zeze's ``ByteBuffer``: the primitives every Zeze encoding is built from (spec §2, §3.3).

:class:`Writer` writes exactly what Java's ``ByteBuffer`` writes; :class:`Reader` reads
exactly what Java's reads accept (non-canonical long forms, ``ReadUInt`` taking the 64-bit
forms, the skip functions' own rules) and raises :class:`~gameserde.errors.DecodeError` where
Java throws, at the offset of the read that failed.

* signed integers (``write_long``/``read_long``): a sign-prefixed big-endian varint of 1 to 9
  bytes; byte, short and int are written as longs and read back truncated (``read_int``);
* unsigned (``write_uint``, 32-bit; ``write_ulong``, 64-bit): lengths, counts, tag and list
  count extensions; ``read_uint`` is ``read_ulong`` truncated to a signed 32-bit int;
* float and double: little-endian raw bits (``*_bits`` keep NaN payloads exactly; the float
  forms do too, for NaNs read by this module);
* bytes and strings: ``UInt`` length then the bytes; strings per :mod:`._javastr`;
* field tags (``id - last`` delta and a wire type), list and map headers, the vector types.
"""

from __future__ import annotations

import math
import struct
from typing import Final

from gameserde._float32 import float32_from_bits, float32_to_bits
from gameserde.errors import DecodeError, EncodeError
from gameserde.zeze._javastr import decode_java, encode_java
from gameserde.zeze._show import shown

__all__ = [
    "BEAN", "BYTES", "DOUBLE", "DYNAMIC", "FLOAT", "INTEGER", "LIST", "MAP", "VECTOR2",
    "VECTOR2INT", "VECTOR3", "VECTOR3INT", "VECTOR4", "WIRE_TYPE_NAMES", "Reader", "Writer",
    "float32_from_bits", "float32_to_bits", "long_bytes", "uint_bytes", "ulong_bytes",
]

# Wire types: the low four bits of a tag, list header or map header nibble.
INTEGER: Final = 0
FLOAT: Final = 1
DOUBLE: Final = 2
BYTES: Final = 3
LIST: Final = 4
MAP: Final = 5
BEAN: Final = 6
DYNAMIC: Final = 7
VECTOR2: Final = 8
VECTOR2INT: Final = 9
VECTOR3: Final = 10
VECTOR3INT: Final = 11
VECTOR4: Final = 12
WIRE_TYPE_NAMES: Final = (
    "INTEGER", "FLOAT", "DOUBLE", "BYTES", "LIST", "MAP", "BEAN", "DYNAMIC", "VECTOR2",
    "VECTOR2INT", "VECTOR3", "VECTOR3INT", "VECTOR4", "type 13", "type 14", "type 15")

MAX_DEPTH: Final = 1000
"""How deep :meth:`Reader.skip_field` follows nested beans and containers (Java has no limit
and overflows its stack)."""

_M64 = (1 << 64) - 1
_F = struct.Struct("<f")
_D = struct.Struct("<d")
_I = struct.Struct("<I")
_Q = struct.Struct("<Q")


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


# ---------------------------------------------------------------------------------------------
# Integers as bytes


def _long_table() -> tuple[tuple[int, int], ...]:
    """For each first byte of a ``WriteLong`` of at most 8 bytes: (length, what to subtract
    from the big-endian value of all its bytes). 0x7F and 0x80 (8 or 9 bytes) are (0, 0)."""
    table = []
    for h in range(256):
        negative = h >= 0x80
        bits = h ^ 0xFF if negative else h
        n = 1
        while n < 8 and bits & (0x40 >> (n - 1)):
            n += 1
        mark = ((1 << (n - 1)) - 1) << (7 * n)
        if h in (0x7F, 0x80):
            table.append((0, 0))
        else:
            table.append((n, (1 << (8 * n)) - mark if negative else mark))
    return tuple(table)


_LONG = _long_table()


def long_bytes(value: int) -> bytes:
    """Java ``WriteLong(value)`` (``value`` a signed 64-bit integer)."""
    if -0x40 <= value < 0x40:
        return (value & 0xFF).to_bytes(1, "big")
    for n in range(2, 9):
        limit = 1 << (7 * n - 1)
        if -limit <= value < limit:
            mark = ((1 << (n - 1)) - 1) << (7 * n)
            return ((value + mark if value >= 0 else value - mark)
                    & ((1 << (8 * n)) - 1)).to_bytes(n, "big")
    if not -(1 << 63) <= value < 1 << 63:
        raise EncodeError(f"{shown(value)} does not fit a signed 64-bit long", format="zeze")
    return (b"\x7f" if value >= 0 else b"\x80") + ((value & _M64) ^ (1 << 63)).to_bytes(8, "big")


def ulong_bytes(value: int) -> bytes:
    """Java ``WriteULong(value)`` (``value`` unsigned 64-bit; a negative long is taken as
    its unsigned 64-bit value, as Java does)."""
    if not -(1 << 63) <= value < 1 << 64:
        raise EncodeError(f"{shown(value)} does not fit 64 bits", format="zeze")
    v = value & _M64
    if v < 0x80:
        return v.to_bytes(1, "big")
    for n, lead in ((2, 0x80), (3, 0xC0), (4, 0xE0), (5, 0xF0), (6, 0xF8), (7, 0xFC),
                    (8, 0xFE)):
        if v < 1 << (7 * n):
            return (v + (lead << (8 * (n - 1)))).to_bytes(n, "big")
    return b"\xff" + v.to_bytes(8, "big")


def uint_bytes(value: int) -> bytes:
    """Java ``WriteUInt(value)``: ``value`` as an unsigned 32-bit integer (a negative int is
    taken as its unsigned value, as Java does), canonical form of 1 to 5 bytes."""
    if not -(1 << 31) <= value < 1 << 32:
        raise EncodeError(f"{shown(value)} does not fit 32 bits", format="zeze")
    v = value & 0xFFFFFFFF
    if v < 0x80:
        return v.to_bytes(1, "big")
    if v < 0x4000:
        return (v + 0x8000).to_bytes(2, "big")
    if v < 0x200000:
        return (v + 0xC00000).to_bytes(3, "big")
    if v < 0x10000000:
        return (v + 0xE0000000).to_bytes(4, "big")
    return b"\xf0" + v.to_bytes(4, "big")


# ---------------------------------------------------------------------------------------------
# Writing


class Writer:
    """An append-only buffer with Java ``ByteBuffer``'s write methods."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def getvalue(self) -> bytes:
        return bytes(self.buf)

    def __len__(self) -> int:
        return len(self.buf)

    def write_byte(self, value: int) -> None:
        self.buf.append(value & 0xFF)

    def write_raw(self, data: bytes | bytearray | memoryview) -> None:
        self.buf += data

    def write_bool(self, value: bool) -> None:
        self.buf.append(1 if value else 0)

    def write_long(self, value: int) -> None:
        if 0 <= value < 0x40:
            self.buf.append(value)
        else:
            self.buf += long_bytes(value)

    def write_int(self, value: int) -> None:
        """Java ``WriteInt``: ``value`` (a signed 32-bit int) as a long."""
        if not -(1 << 31) <= value < 1 << 31:
            raise EncodeError(f"{shown(value)} does not fit a signed 32-bit int", format="zeze")
        self.write_long(value)

    def write_uint(self, value: int) -> None:
        if 0 <= value < 0x80:
            self.buf.append(value)
        else:
            self.buf += uint_bytes(value)

    def write_ulong(self, value: int) -> None:
        self.buf += ulong_bytes(value)

    def write_float(self, value: float) -> None:
        self.buf += _I.pack(float32_to_bits(value))

    def write_float_bits(self, bits: int) -> None:
        self.buf += _I.pack(bits & 0xFFFFFFFF)

    def write_double(self, value: float) -> None:
        self.buf += _D.pack(value)

    def write_double_bits(self, bits: int) -> None:
        self.buf += _Q.pack(bits & _M64)

    def write_bytes(self, data: bytes | bytearray | memoryview) -> None:
        self.write_uint(len(data))
        self.buf += data

    def write_string(self, text: str) -> None:
        self.write_bytes(encode_java(text))

    def write_tag(self, last_id: int, field_id: int, wire_type: int) -> int:
        """Java ``WriteTag``: the tag of field ``field_id`` after ``last_id``; returns
        ``field_id`` (the next call's ``last_id``)."""
        delta = field_id - last_id
        if delta <= 0:
            raise EncodeError(f"field id {field_id} does not follow {last_id}", format="zeze")
        if delta < 15:
            self.buf.append(delta << 4 | wire_type)
        else:
            self.buf.append(0xF0 | wire_type)
            self.write_uint(delta - 15)
        return field_id

    def write_list_header(self, count: int, element_type: int) -> None:
        if count < 15:
            self.buf.append(count << 4 | element_type)
        else:
            self.buf.append(0xF0 | element_type)
            self.write_uint(count - 15)

    def write_map_header(self, count: int, key_type: int, value_type: int) -> None:
        self.buf.append(key_type << 4 | value_type)
        self.write_uint(count)

    def write_floats(self, values: tuple[float, ...] | list[float]) -> None:
        """A vector2/3/4 or quaternion: each component a float32, little-endian."""
        for v in values:
            self.buf += _I.pack(float32_to_bits(v))

    def write_ints(self, values: tuple[int, ...] | list[int]) -> None:
        """A vector2int/3int: each component ``WriteInt``."""
        for v in values:
            self.write_int(v)


# ---------------------------------------------------------------------------------------------
# Reading


class Reader:
    """Reads ``data[pos:end]`` as Java's ``ByteBuffer`` does; ``pos`` is public."""

    __slots__ = ("data", "end", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0,
                 end: int | None = None) -> None:
        self.data = data if isinstance(data, bytes) else bytes(data)
        self.pos = pos
        self.end = len(self.data) if end is None else end

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def fail(self, message: str, offset: int | None = None) -> DecodeError:
        """A :class:`DecodeError` at ``offset`` (default: the current position)."""
        return DecodeError(message, offset=self.pos if offset is None else offset,
                           format="zeze")

    def need(self, n: int, what: str = "value") -> int:
        """Java ``ensureRead(n)``: the current position, when ``n`` bytes are left."""
        pos = self.pos
        if n > self.end - pos:
            left = self.end - pos
            raise self.fail(f"{what} needs {n} byte{'s' * (n != 1)} but "
                            f"{'only ' * (left > 0)}{left} remain{'s' * (left == 1)}")
        return pos

    def read_byte(self) -> int:
        pos = self.need(1, "a byte")
        self.pos = pos + 1
        return self.data[pos]

    def read_raw(self, n: int, what: str = "value") -> bytes:
        pos = self.need(n, what)
        self.pos = pos + n
        return self.data[pos:pos + n]

    def read_long(self) -> int:
        """Java ``ReadLong``: any of the 1- to 9-byte forms, canonical or not."""
        pos = self.need(1, "a long")
        data = self.data
        h = data[pos]
        n, sub = _LONG[h]
        if n == 1:
            self.pos = pos + 1
            return h - sub
        if n:
            self.need(n, "a long")
            self.pos = pos + n
            return int.from_bytes(data[pos:pos + n], "big") - sub
        self.pos = pos + 1
        self.need(7, "a long")
        r = int.from_bytes(data[pos + 1:pos + 8], "big")
        self.pos = pos + 8
        if h == 0x7F:
            if r < 1 << 55:
                return r
            return ((r - (1 << 55)) << 8) + self.read_byte()
        if r >= 1 << 55:
            return r - (1 << 56)
        return _signed(((r + (1 << 55)) << 8) + self.read_byte(), 64)

    def read_int(self) -> int:
        """Java ``ReadInt``: ``(int) ReadLong()``."""
        return _signed(self.read_long(), 32)

    def read_ulong(self) -> int:
        """Java ``ReadULong`` as an unsigned 64-bit value (Java's long holds it signed)."""
        pos = self.need(1, "an unsigned int")
        h = self.data[pos]
        if h < 0x80:
            self.pos = pos + 1
            return h
        if h < 0xF0:
            n = 2 if h < 0xC0 else 3 if h < 0xE0 else 4
            mask = 0x3F if h < 0xC0 else 0x1F if h < 0xE0 else 0x0F
        else:
            n = 5 if h < 0xF8 else 6 if h < 0xFC else 7 if h < 0xFE else 8 if h == 0xFE else 9
            mask = (0x07, 0x03, 0x01, 0x00, 0x00)[n - 5]
        self.need(n, "an unsigned int")
        self.pos = pos + n
        rest = int.from_bytes(self.data[pos + 1:pos + n], "big")
        return (h & mask) << (8 * (n - 1)) | rest

    def read_uint(self) -> int:
        """Java ``ReadUInt``: ``(int) ReadULong()``, a signed 32-bit int (``f0ffffffff``
        is -1; the 64-bit forms ``f1..ff`` are accepted and truncated)."""
        return _signed(self.read_ulong(), 32)

    def read_bool(self) -> bool:
        """Java ``ReadBool``: ``00``/``01``, else ``ReadLong() != 0``."""
        pos = self.need(1, "a bool")
        h = self.data[pos]
        if h <= 1:
            self.pos = pos + 1
            return h == 1
        return self.read_long() != 0

    def read_float_bits(self) -> int:
        pos = self.need(4, "a float")
        self.pos = pos + 4
        return int(_I.unpack_from(self.data, pos)[0])

    def read_float(self) -> float:
        pos = self.need(4, "a float")
        self.pos = pos + 4
        value: float = _F.unpack_from(self.data, pos)[0]
        if value != value:
            return float32_from_bits(_I.unpack_from(self.data, pos)[0])
        return value

    def read_double_bits(self) -> int:
        pos = self.need(8, "a double")
        self.pos = pos + 8
        return int(_Q.unpack_from(self.data, pos)[0])

    def read_double(self) -> float:
        pos = self.need(8, "a double")
        self.pos = pos + 8
        value: float = _D.unpack_from(self.data, pos)[0]
        return value

    def _length(self, what: str) -> int:
        start = self.pos
        n = self.read_uint()
        if n < 0:
            raise self.fail(f"invalid length for {what}: {n} (a length of 2^31 or more)",
                            start)
        return n

    def read_bytes(self) -> bytes:
        n = self._length("bytes")
        return self.read_raw(n, "the binary") if n else b""

    def read_string(self) -> str:
        n = self._length("a string")
        return decode_java(self.read_raw(n, "the string")) if n else ""

    def read_tag_size(self, tag: int) -> int:
        """Java ``ReadTagSize``: the field-id delta of tag byte ``tag`` (``15 + ReadUInt``
        when its high nibble is 15; the sum wraps as Java's int does)."""
        delta = tag >> 4 & 0xF
        return delta if delta < 15 else _signed(15 + self.read_uint(), 32)

    def read_list_count(self, header: int) -> int:
        """The element count of a list header byte (``15 + ReadUInt`` when its high nibble
        is 15); a count of 2^31 or more reads as 0, as in Java."""
        n = header >> 4
        return n if n < 15 else max(_signed(15 + self.read_uint(), 32), 0)

    def read_floats(self, n: int) -> tuple[float, ...]:
        """``n`` float32 components (a vector2/3/4 or quaternion)."""
        pos = self.need(4 * n, "a vector")
        self.pos = pos + 4 * n
        values = struct.unpack_from(f"<{n}f", self.data, pos)
        if any(math.isnan(v) for v in values):
            bits = struct.unpack_from(f"<{n}I", self.data, pos)
            return tuple(float32_from_bits(b) for b in bits)
        return tuple(values)

    def read_ints(self, n: int) -> tuple[int, ...]:
        """``n`` ``ReadInt`` components (a vector2int/3int)."""
        return tuple(self.read_int() for _ in range(n))

    # -- skipping, as Java's SkipUnknownField does ------------------------------------------

    def skip(self, n: int, what: str = "value") -> None:
        self.pos = self.need(n, what) + n

    def skip_uint(self) -> None:
        """Java ``SkipUInt``: every ``f0..ff`` form counts as 5 bytes (unlike ReadUInt)."""
        h = self.data[self.need(1, "an unsigned int")]
        self.skip(1 if h < 0x80 else 2 if h < 0xC0 else 3 if h < 0xE0 else 4 if h < 0xF0 else 5,
                  "an unsigned int")

    def skip_ulong(self) -> None:
        """Java ``SkipULong``: the length ``read_ulong`` reads."""
        self.read_ulong()

    def skip_long(self) -> None:
        """Java ``SkipLong``: the length ``read_long`` reads."""
        self.read_long()

    def skip_bytes(self) -> None:
        n = self._length("bytes")
        self.skip(n, "the binary")

    def skip_field(self, tag: int, depth: int = 0) -> None:
        """Java ``SkipUnknownField(tag)``: skip one value of the wire type in ``tag``'s low
        four bits (list elements pass the list header, map keys and values their nibble with
        bit 4 set, as Java does). A bare ``01`` (the end-of-layer tag) skips nothing; nesting
        deeper than
        :data:`MAX_DEPTH` raises :class:`DecodeError`."""
        t = tag & 0xF
        if t == INTEGER:
            self.skip_long()
        elif t == FLOAT:
            if tag != 1:
                self.skip(4, "a float")
        elif t in (DOUBLE, VECTOR2):
            self.skip(8, "a value")
        elif t == VECTOR3:
            self.skip(12, "a vector3")
        elif t == VECTOR4:
            self.skip(16, "a vector4")
        elif t == VECTOR2INT:
            self.skip_long()
            self.skip_long()
        elif t == VECTOR3INT:
            self.skip_long()
            self.skip_long()
            self.skip_long()
        elif t == BYTES:
            self.skip_bytes()
        elif t == LIST:
            self._deeper(depth)
            header = self.read_byte()
            for _ in range(self.read_list_count(header)):
                self.skip_field(header, depth + 1)
        elif t == MAP:
            self._deeper(depth)
            types = self.read_byte()
            for _ in range(max(self.read_uint(), 0)):
                self.skip_field(types >> 4 | 0x10, depth + 1)
                self.skip_field(types | 0x10, depth + 1)
        elif t == BEAN:
            self.skip_bean(depth + 1)
        elif t == DYNAMIC:
            self.skip_long()
            self.skip_bean(depth + 1)
        else:
            raise self.fail(f"cannot skip a field of unknown wire type {t}", self.pos - 1)

    def skip_bean(self, depth: int = 0) -> None:
        """Java ``SkipBean``: tags and values up to the ``00`` end tag (``01`` layer tags
        pass; extended id deltas skipped with :meth:`skip_uint`)."""
        self._deeper(depth)
        while True:
            tag = self.read_byte()
            if tag == 0:
                return
            if tag >> 4 == 15:
                self.skip_uint()
            self.skip_field(tag, depth)

    def _deeper(self, depth: int) -> None:
        if depth >= MAX_DEPTH:
            raise self.fail(f"values are nested more than {MAX_DEPTH} deep")
