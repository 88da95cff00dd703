"""An annotated byte map of a binary resource file (``gameserde inspect godot save.res``):
one row per field of the header, the string table, the external and internal resource
tables, each resource's type and property count, each property's name and every value in
it (an Array's or Dictionary's header and count, then its items, as the Variant map of
:mod:`gameserde.godot.inspect` shows them).

An ``RSCC`` file is mapped in its uncompressed stream (a note says so): its blocks hold
nothing a row could name. A text resource is refused: its text names every value already.
Undecodable input is mapped up to the failure, which the map's error gives. Cost: the file
is read once, and each value inside a property once more for its rows.
"""

from __future__ import annotations

from typing import Any

from gameserde._bytemap import Path, Region
from gameserde.errors import DecodeError
from gameserde.godot.inspect import COMPOSITE, key_step, short, type_name
from gameserde.godot.resource import binary, compressed
from gameserde.godot.resource.binary_variant import (
    ARRAY,
    DICTIONARY,
    MAX_DEPTH,
    TYPE_NAMES,
    VariantReader,
)

__all__ = ["ResourceMap", "regions"]

_COUNT_MASK = 0x7FFFFFFF


class ResourceMap:
    """What :func:`regions` finds: the bytes the rows count in (``data``: the file's, or an
    ``RSCC`` file's uncompressed stream), the ``rows``, the ``error`` that stopped the map
    (None when the file is sound) and ``notes`` (lines to print before the rows)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.rows: list[Region] = []
        self.error: DecodeError | None = None
        self.notes: list[str] = []

    def failed(self, error: DecodeError) -> None:
        """Stop the map at ``error``: a row marks its bytes (from its offset to the end)."""
        self.error = error
        at = min(error.offset or 0, len(self.data))
        self.rows.append(Region(at, len(self.data) - at, Path(None, error.path), "ERROR",
                                error.message))

    def mark(self, start: int, end: int, path: str, type: str, note: str) -> None:
        self.rows.append(Region(start, end - start, Path(None, path), type, note))

    def value(self, rd: VariantReader, pos: int, path: str) -> None:
        self._walk(rd, pos, Path(None, path), 0)

    def _walk(self, rd: VariantReader, pos: int, where: Path, depth: int) -> tuple[int, Any]:
        """Map the value at ``pos``; return where it ends and the value (a container is not
        built: :data:`~gameserde.godot.inspect.COMPOSITE`)."""
        # too short for a type: the reader fails, with its own message
        tid = rd.u32(pos, "a Variant type") if rd.end - pos >= 4 else 0
        if tid not in (ARRAY, DICTIONARY) or depth >= MAX_DEPTH:
            value, end = rd.reference_value(pos, depth)
            self.rows.append(Region(pos, end - pos, where, type_name(value), short(value)))
            return end, value
        name = TYPE_NAMES[tid]
        is_array = tid == ARRAY
        what = "elements of an Array" if is_array else "entries of a Dictionary"
        count = rd.count(pos + 4, what, 4 if is_array else 8, _COUNT_MASK)
        self.rows.append(Region(pos, 4, where, name, "header"))
        nouns = ("element", "elements") if is_array else ("entry", "entries")
        self.rows.append(Region(pos + 4, 4, where, name, f"{count} {nouns[count != 1]}"))
        pos += 8
        for i in range(count):
            if is_array:
                pos, _ = self._walk(rd, pos, Path(where, f"[{i}]"), depth + 1)
            else:
                pos, key = self._walk(rd, pos, Path(where, f"[<key {i}>]"), depth + 1)
                pos, _ = self._walk(rd, pos, Path(where, key_step(key, i)), depth + 1)
        return pos, COMPOSITE


def regions(data: bytes | bytearray | memoryview, *,
            max_ratio: int = compressed.DEFAULT_MAX_RATIO) -> ResourceMap:
    """The byte map of the binary resource file ``data``."""
    raw = bytes(data)
    if compressed.is_compressed(raw):
        try:
            stream, container = compressed.decompress(raw, max_ratio=max_ratio)
        except DecodeError as e:
            found = ResourceMap(raw)
            found.failed(e)
            return found
        found = ResourceMap(stream)
        blocks = len(container.block_sizes)
        found.notes.append(
            f"RSCC file of {len(raw)} bytes (compression mode {container.mode}, {blocks} "
            f"block{'s' if blocks != 1 else ''}): offsets count the {len(stream)} bytes of its "
            "uncompressed stream")
    else:
        found = ResourceMap(raw)
    try:
        binary.read(raw, max_ratio=max_ratio, marks=found)
    except DecodeError as e:
        found.failed(e)
    except RecursionError:
        found.failed(DecodeError("values are nested too deeply for this Python stack",
                                 offset=found.rows[-1].offset if found.rows else 0,
                                 format="godot"))
    return found
