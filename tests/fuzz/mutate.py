"""Byte-string mutations shared by the CI driver (hypothesis draws the operations, so it can
shrink them) and the offline driver's fallback engine (a seeded random generator draws them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

INTERESTING = (0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
               0x80000000, 0xFFFFFFFF, 0xFFFFFFFC, 0x10000)
"""Values written as 1, 2 or 4 bytes: edges of the widths lengths and offsets are read in."""

Op = tuple[int, int, int]
"""(kind, position, value): position and value are reduced modulo what fits."""

KINDS = 7


def apply(data: bytes, ops: Sequence[Op], donor: bytes = b"") -> bytes:
    """``data`` changed by ``ops``: 0 set a byte, 1 write an interesting value (little-endian,
    1/2/4 bytes), 2 delete a run, 3 insert a run of one byte, 4 duplicate a run, 5 truncate,
    6 splice in a slice of ``donor``."""
    buf = bytearray(data)
    for kind, pos, value in ops:
        n = len(buf)
        at = pos % (n + 1)
        if kind == 0 and n:
            buf[at % n] = value & 0xFF
        elif kind == 1:
            width = (1, 2, 4)[value % 3]
            word = INTERESTING[value // 3 % len(INTERESTING)] & ((1 << 8 * width) - 1)
            buf[at:at + width] = word.to_bytes(width, "little")
        elif kind == 2:
            del buf[at:at + 1 + value % 16]
        elif kind == 3:
            buf[at:at] = bytes([value & 0xFF]) * (1 + (value >> 8) % 64)
        elif kind == 4 and n:
            run = buf[at:at + 1 + value % 64]
            buf[at:at] = run
        elif kind == 5:
            del buf[at:]
        elif kind == 6 and donor:
            start = value % len(donor)
            buf[at:at] = donor[start:start + 1 + (value >> 8) % 64]
    return bytes(buf)


def random_ops(rng: random.Random) -> list[Op]:
    return [(rng.randrange(KINDS), rng.randrange(1 << 16), rng.randrange(1 << 16))
            for _ in range(rng.choice((1, 1, 2, 3, 5, 8)))]
