"""``BINd`` files: the game's binary object files (spec kiobj.md §4, "File form").

A ``BINd`` file is the four bytes ``BINd`` and then an ObjectProperty stream in deep mode
with STATEFUL_FLAGS: the stream starts with its own u32 flags word, which is what a reader
goes by. Game files carry COMPACT_LENGTH_PREFIXES and WITH_COMPRESSION as well: wizwalker
reads ``TemplateManifest.xml`` by inflating from byte 13 (4 magic + 4 flags + 1 marker + 4
size) and finds its strings behind one-byte ``length << 1`` prefixes. :data:`BIND_FLAGS` is
that set, and what :func:`write_bind` writes by default.
"""

from __future__ import annotations

from gameserde.errors import DecodeError
from gameserde.kingsisle._limits import MAX_DEPTH, data_bytes
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import (
    COMPACT_LENGTH_PREFIXES,
    INFLATED_NOTE,
    MAX_EXPANSION,
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    Inflating,
    Serializer,
    trailing_inflated,
    warn_skipped,
)
from gameserde.kingsisle.typelist import KiSchema

__all__ = ["BIND_FLAGS", "BIND_MAGIC", "read_bind", "write_bind"]

BIND_MAGIC = b"BINd"
"""The four bytes a ``BINd`` file starts with."""
BIND_FLAGS = STATEFUL_FLAGS | COMPACT_LENGTH_PREFIXES | WITH_COMPRESSION
"""The serializer flags of the game's own ``BINd`` files (0x0B)."""


def read_bind(data: bytes | bytearray | memoryview, schema: KiSchema, *,
              property_mask: int = 7, skip_unknown_types: bool = False,
              max_depth: int = MAX_DEPTH, max_expansion: float | None = MAX_EXPANSION,
              recursion_limit: int | None = None) -> KiObject:
    """The root object of a ``BINd`` file. The stream's flags word says how it is written;
    the options are the :class:`Serializer`'s (katsuba's CLI reads game files with
    ``property_mask=0x18``; ``recursion_limit`` is the former name of ``max_depth``);
    ``max_expansion`` counts the file's size, magic included. Bytes after the root object or
    the zlib data are kept in the root's ``trailing`` (at offsets in the file, magic
    included, but in inflated data) and :func:`write_bind` writes them back. With
    ``skip_unknown_types``, each object or property skipped is reported as a
    :class:`~gameserde.errors.GameserdeWarning` with its hash and byte offset."""
    data = data_bytes(data)
    if data[:4] != BIND_MAGIC:
        raise DecodeError(f"not a BINd file: it starts with {data[:4]!r}, not {BIND_MAGIC!r}",
                          offset=0, format="kingsisle")
    ser = Serializer(schema, flags=STATEFUL_FLAGS, shallow=False, property_mask=property_mask,
                     skip_unknown_types=skip_unknown_types, max_depth=max_depth,
                     max_expansion=max_expansion, recursion_limit=recursion_limit)
    try:
        root = ser._decode(data[4:], Inflating(len(data), ser.max_expansion))
    except DecodeError as e:  # offsets in the file, magic included (not in inflated data)
        if e.offset is not None and not e.message.endswith(INFLATED_NOTE):
            e.offset += len(BIND_MAGIC)
        raise
    if root.trailing is not None:  # likewise
        runs = [run if run is None or trailing_inflated(root, part)
                else (run[0] + len(BIND_MAGIC), run[1]) for part, run in enumerate(root.trailing)]
        root.trailing = (runs[0], runs[1], runs[2])
    if ser.skipped and not any(root.zlib_data or ()):  # likewise
        ser.skipped[:] = [(at + len(BIND_MAGIC), kind, h) for at, kind, h in ser.skipped]
    warn_skipped(ser.skipped, root)
    return root


def write_bind(obj: KiObject, schema: KiSchema, *, flags: int = BIND_FLAGS,
               property_mask: int = 7, max_depth: int = MAX_DEPTH,
               recursion_limit: int | None = None) -> bytes:
    """``obj`` as a ``BINd`` file: the magic and the deep-mode stream, with ``flags`` and
    STATEFUL_FLAGS (added when ``flags`` lacks it, as libki's file writer does: a reader
    needs the flags word); ``recursion_limit`` is the former name of ``max_depth``."""
    ser = Serializer(schema, flags=flags | STATEFUL_FLAGS, shallow=False,
                     property_mask=property_mask, max_depth=max_depth,
                     recursion_limit=recursion_limit)
    return BIND_MAGIC + ser.encode(obj)
