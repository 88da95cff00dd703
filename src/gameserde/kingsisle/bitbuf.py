"""The bit buffer of ObjectProperty streams (spec kiobj.md §3).

Bits are packed LSB-first: the first bit of a byte is its lowest, and an n-bit value is
assembled little-endian (its first bit is bit 0). ``align`` moves to the next byte boundary.
The padding bits it skips mean nothing to a reader, but real data has non-zero ones: the
reader notes those in ``pads`` and the writer writes them back from its ``pads`` (else
zeros), both keyed by ``aligns``, the ordinal of the alignment that skipped bits (see
:class:`~gameserde.kingsisle.objects.KiObject`'s ``padding``). Whole-byte values at a byte
boundary, the common case, are read and written as bytes.
"""

from __future__ import annotations

from typing import Any

from gameserde.errors import DecodeError, EncodeError

__all__ = ["BitReader", "BitWriter"]


class BitWriter:
    """Appends bit fields; ``getvalue`` gives the bytes (the last byte zero-padded).

    ``aligns`` counts the alignments that wrote padding bits; ``pads`` (None: none) gives
    the padding bits of some of them by that count, written where they fit (an int ``p``
    with ``0 <= p < 2**width``), else zeros."""

    __slots__ = ("_acc", "_bits", "aligns", "buf", "pads")

    def __init__(self) -> None:
        self.buf = bytearray()
        self._acc = 0  # pending bits of the unfinished last byte
        self._bits = 0  # how many (0..7)
        self.aligns = 0
        self.pads: dict[int, Any] | None = None

    @property
    def bit_position(self) -> int:
        """Bits written so far."""
        return 8 * len(self.buf) + self._bits

    def write_bits(self, value: int, n: int) -> None:
        """The low ``n`` bits of ``value`` (``0 <= value < 2**n``), unaligned."""
        if n < 0 or value < 0 or value >> n:
            raise EncodeError(f"{value} does not fit {n} bits", format="kingsisle")
        if self._bits == 0 and n & 7 == 0:
            self.buf += value.to_bytes(n >> 3, "little")
            return
        acc = self._acc | value << self._bits
        total = self._bits + n
        whole = total >> 3
        if whole:
            self.buf += (acc & ((1 << (8 * whole)) - 1)).to_bytes(whole, "little")
            acc >>= 8 * whole
        self._acc, self._bits = acc, total & 7

    def write_bool(self, value: bool) -> None:
        self.write_bits(1 if value else 0, 1)

    def align(self) -> None:
        """Pad to the next byte boundary: with the bits ``pads`` gives for this alignment
        where they fit, else zeros."""
        if self._bits:
            self.aligns += 1
            acc = self._acc
            if self.pads is not None:
                pad = self.pads.get(self.aligns)
                if isinstance(pad, int) and 0 <= pad < 1 << (8 - self._bits):
                    acc |= pad << self._bits
            self.buf.append(acc)
            self._acc = self._bits = 0

    def write_bytes(self, data: bytes | bytearray | memoryview) -> None:
        """Align, then the bytes."""
        self.align()
        self.buf += data

    def getvalue(self) -> bytes:
        if self._bits:
            return bytes(self.buf) + bytes([self._acc])
        return bytes(self.buf)


class BitReader:
    """Reads bit fields from ``data``; ``bit_position`` is public. Reading past the end raises
    :class:`~gameserde.errors.DecodeError` at the byte where the value started.

    ``aligns`` counts the alignments that skipped bits; ``pads`` (None until one is) holds
    the skipped bits that are not all zero, by that count."""

    __slots__ = ("aligns", "bit_position", "data", "end_bits", "pads")

    def __init__(self, data: bytes | bytearray | memoryview, bit_position: int = 0) -> None:
        self.data = data if isinstance(data, bytes) else bytes(data)
        self.bit_position = bit_position
        self.end_bits = 8 * len(self.data)
        self.aligns = 0
        self.pads: dict[int, int] | None = None

    @property
    def remaining_bits(self) -> int:
        return self.end_bits - self.bit_position

    def _need(self, n: int, what: str) -> int:
        pos = self.bit_position
        if n > self.end_bits - pos:
            left = max(self.end_bits - pos, 0)
            raise DecodeError(f"{what} needs {n} bits but only {left} remain",
                              offset=pos >> 3, format="kingsisle")
        return pos

    def read_bits(self, n: int, what: str = "a value") -> int:
        """An unaligned ``n``-bit unsigned value."""
        pos = self._need(n, what)
        self.bit_position = pos + n
        start, shift = pos >> 3, pos & 7
        if shift == 0 and n & 7 == 0:
            return int.from_bytes(self.data[start:start + (n >> 3)], "little")
        stop = (pos + n + 7) >> 3
        return (int.from_bytes(self.data[start:stop], "little") >> shift) & ((1 << n) - 1)

    def read_bool(self) -> bool:
        return self.read_bits(1, "a bool") == 1

    def align(self) -> None:
        """Skip to the next byte boundary, noting skipped bits that are not all zero."""
        pos = self.bit_position
        if pos & 7:
            self.bit_position = (pos | 7) + 1
            self.aligns += 1
            if pos < self.end_bits and self.data[pos >> 3] >> (pos & 7):
                if self.pads is None:
                    self.pads = {}
                self.pads[self.aligns] = self.data[pos >> 3] >> (pos & 7)

    def read_bytes(self, n: int, what: str = "bytes") -> bytes:
        """Align, then ``n`` bytes."""
        self.align()
        pos = self._need(8 * n, what)
        self.bit_position = pos + 8 * n
        return self.data[pos >> 3:(pos >> 3) + n]
