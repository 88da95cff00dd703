"""The annotated byte maps ``inspect`` prints, shared by every format: a row per region of
the input with its offset, size, path, type and value, and the text table of such rows.

Formats that pack values into bits (KingsIsle ObjectProperty) give their rows a bit
position and a size in bits; the table then shows a ``bit`` column (``.3`` is the fourth bit
of the byte) and a ``bits`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PATH_WIDTH", "TYPE_WIDTH", "Path", "Region", "render"]

PATH_WIDTH, TYPE_WIDTH = 40, 28
"""Widest path and type columns :func:`render` prints: longer ones are shortened to fit."""


class Path:
    """A value's path as a chain of steps: every path shares its parent's steps."""

    __slots__ = ("length", "parent", "step")

    def __init__(self, parent: Path | None, step: str) -> None:
        self.parent = parent
        self.step = step
        self.length: int = len(step) + (parent.length if parent is not None else 0)

    def tail(self, limit: int) -> str:
        """The last ``limit`` characters (all when the path is that short)."""
        steps: list[str] = []
        size = 0
        node: Path | None = self
        while node is not None and size < limit:
            steps.append(node.step)
            size += len(node.step)
            node = node.parent
        text = "".join(reversed(steps))
        return text[-limit:] if limit else ""

    def __str__(self) -> str:
        return self.tail(self.length)

    def __repr__(self) -> str:
        return f"Path({str(self)!r})"


@dataclass(frozen=True)
class Region:
    """``size`` bytes from ``offset``; for a bit field also its first ``bit`` (0-7) in the
    byte at ``offset`` and its length in ``bits`` (the bytes are those it touches)."""

    offset: int
    size: int
    where: Path
    type: str
    note: str
    bit: int = 0
    bits: int | None = None

    @property
    def path(self) -> str:
        """The value's path, as in error messages: ``$[1]["pos"]``."""
        return str(self.where)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def render(data: Any, rows: list[Region], *, width: int = 16) -> str:
    """Text table: offset (and bit position and size for bit fields), up to ``width`` bytes
    in hex, path, type and value.

    The columns stay aligned: the path and type columns are as wide as their longest entry,
    up to ``PATH_WIDTH`` and ``TYPE_WIDTH``; a longer path shows its end after ``...``, a
    longer type its start.
    """
    buf = memoryview(data).cast("B")
    path_width = min(max([4, *(r.where.length for r in rows)]), PATH_WIDTH)
    type_width = min(max([4, *(len(r.type) for r in rows)]), TYPE_WIDTH)
    with_bits = any(r.bits is not None for r in rows)
    bit_head = f"{'bit':<3} {'bits':>5} " if with_bits else ""
    lines = [f"{'offset':<10} {bit_head}{'bytes':<{width * 3}} {'path':<{path_width}} "
             f"{'type':<{type_width}} value"]
    for r in rows:
        chunk = bytes(buf[r.offset:r.offset + min(r.size, width + 1)])
        hexes = " ".join(f"{b:02x}" for b in chunk[:width])
        if len(chunk) > width:
            hexes = hexes[:width * 3 - 4] + " ..."
        path = r.where
        shown = (str(path) if path.length <= path_width
                 else "..." + path.tail(path_width - 3))
        bit_cells = ""
        if with_bits:
            bit_cells = f".{r.bit:<2} {r.bits if r.bits is not None else 8 * r.size:>5} "
        lines.append(f"0x{r.offset:08x} {bit_cells}{hexes:<{width * 3}} "
                     f"{shown:<{path_width}} {_fit(r.type, type_width):<{type_width}} "
                     f"{r.note}".rstrip())
    return "\n".join(lines)
