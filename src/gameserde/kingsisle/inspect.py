"""An annotated bit map of an ObjectProperty stream: where every field sits, to the bit.

:func:`stream_map` walks a stream as a :class:`~gameserde.kingsisle.serializer.Serializer`
with the same options reads it and gives one row per field: the framing (flags word,
compression marker, inflated size, zlib data), then each object's type hash, object and
record sizes, property hashes and delta presence bits, list lengths, and every value (a
string, a leaf struct or an enum is one row), each with its byte offset, first bit, size in
bits, path (``$.m_items[3].m_name``), type and value. Padding bits between fields have no
row. Compressed data makes a section of its own: the rows of the inflated bytes refer to
offsets in them. Bad input is mapped up to the failure, whose row (type ``ERROR``) reaches
to the end of its section and carries the message. The walk is the serializer's own
reference decoder, so the map and :meth:`Serializer.decode` agree on every bit; its cost is
linear in the input: zlib data inflates within the serializer's ``max_expansion``, and the
rows are at most :func:`stream_map`'s ``max_expansion`` times the input's size (plus
:data:`ROW_SLACK`), a map that would have more ending in an ERROR row naming the option.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gameserde._bytemap import Path, Region, render
from gameserde._expansion import check_factor, exceeded, expansion_limit
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle.bitbuf import BitReader
from gameserde.kingsisle.objects import KiObject, property_step
from gameserde.kingsisle.serializer import (
    ALL_FLAGS,
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    Inflating,
    Serializer,
    _enum_text,
)
from gameserde.kingsisle.typelist import FLAGS
from gameserde.schema.model import Enum, Field, List, Ref

_DELTA = FLAGS["DELTA_ENCODE"]

__all__ = ["MAP_EXPANSION", "NOTE_LIMIT", "ROW_SLACK", "Section", "StreamMap", "stream_map"]

NOTE_LIMIT = 60
"""Longest value a row shows; longer ones are cut and end with ``...``."""

MAP_EXPANSION = 16.0
"""The default ``max_expansion`` of :func:`stream_map`: at most 16 rows per input byte (plus
:data:`ROW_SLACK`); a stream without zlib data has at most 8 (a row per bit)."""

ROW_SLACK = 4096
"""Rows any map may have beyond ``max_expansion`` times the input's size."""

_FLAG_NAMES = ("STATEFUL_FLAGS", "COMPACT_LENGTH_PREFIXES", "HUMAN_READABLE_ENUMS",
               "WITH_COMPRESSION", "FORBID_DELTA_ENCODE")
_FRAMES_PER_LEVEL = 10


@dataclass
class Section:
    """Rows over one byte string: the input, or what a zlib part of it inflates to."""

    title: str
    data: bytes
    rows: list[Region] = field(default_factory=list)


@dataclass
class StreamMap:
    """The sections of a stream's map, outermost first."""

    sections: list[Section]

    @property
    def rows(self) -> list[Region]:
        """Every row, section after section."""
        return [row for s in self.sections for row in s.rows]

    def render(self, *, width: int = 16) -> str:
        """The map as text: a table per section, each after a title line."""
        return "\n\n".join(f"{s.title} ({len(s.data)} bytes)\n{render(s.data, s.rows, width=width)}"
                           for s in self.sections)


def stream_map(data: bytes | bytearray | memoryview, serializer: Serializer, *,
               offset: int = 0, max_expansion: float | None = MAP_EXPANSION) -> StreamMap:
    """The map of the stream at ``offset`` in ``data`` as ``serializer`` (its flags, mode,
    mask, ``max_expansion`` for inflating...) reads it; rows give offsets in ``data``. The
    map has at most ``max_expansion`` times the size of ``data`` rows plus :data:`ROW_SLACK`
    (None or ``inf``: no limit): past that it ends in an ERROR row naming the option. (Both
    budgets count all of ``data``, as :func:`~gameserde.kingsisle.files.read_bind` counts a
    BINd file's magic.)"""
    raw = bytes(data)
    if not 0 <= offset <= len(raw):
        raise ValueError(f"offset {offset} is outside the {len(raw)} bytes of input")
    factor = check_factor(max_expansion)
    size = len(raw)
    sections = [Section("stream", raw)]
    root = Path(None, "$")
    try:
        flags, body, start = _framing(raw, offset, serializer, sections,
                                      Inflating(size, serializer.max_expansion))
        mapper = _Mapper(serializer, flags, root, _Rows(size, factor))
        reader = _Recorder(body, 8 * start, mapper.raw_row)
        mapper.section = sections[-1]
        with recursion_room(_FRAMES_PER_LEVEL * serializer.max_depth + 100):
            obj = mapper._object(reader, 0)
        end = (reader.bit_position + 7) >> 3
        if obj is None:  # the row after the null type hash says so
            _error(sections[-1], end, root, "the root object is null")
        elif end < len(body):
            sections[-1].rows.append(Region(end, len(body) - end, root, "trailing",
                                            f"{len(body) - end} bytes after the root object"))
    except DecodeError as e:
        at = e.offset if e.offset is not None else offset
        _error(sections[-1], at, Path(None, e.path), e.message)
    except RecursionError:
        _error(sections[-1], 0, root, "objects nest too deeply for this Python stack")
    return StreamMap(sections)


def _error(section: Section, offset: int, where: Path, message: str) -> None:
    """The ERROR row: from ``offset``, or the first whole byte after the last row."""
    last = section.rows[-1] if section.rows else None
    after = 0 if last is None else (
        8 * last.offset + last.bit + (last.bits if last.bits is not None else 8 * last.size)
        + 7) >> 3
    at = min(max(offset, after), len(section.data))
    section.rows.append(Region(at, len(section.data) - at, where, "ERROR", message))


def _framing(data: bytes, pos: int, ser: Serializer, sections: list[Section],
             budget: Inflating) -> tuple[int, bytes, int]:
    """Rows for the layers around the body of the stream at ``pos``: the flags in force, the
    bytes holding the body and where in them it starts."""
    root = Path(None, "$")
    if ser.manual_compression:
        data, pos = _zlib_rows(data[pos:], pos, sections, "manually compressed stream",
                               budget), 0
    rows = sections[-1].rows
    flags = ser.flags
    if flags & STATEFUL_FLAGS:
        if len(data) - pos < 4:
            raise DecodeError("the stream's flags word needs 4 bytes", offset=pos,
                              format="kingsisle")
        flags = int.from_bytes(data[pos:pos + 4], "little") & ALL_FLAGS
        names = "|".join(n for i, n in enumerate(_FLAG_NAMES) if flags >> i & 1) or "none"
        rows.append(Region(pos, 4, root, "flags", f"0x{flags:x} ({names})"))
        pos += 4
    if not flags & WITH_COMPRESSION:
        return flags, data, pos
    if len(data) <= pos:
        raise DecodeError("the compression marker is missing", offset=pos, format="kingsisle")
    marker = data[pos]
    rows.append(Region(pos, 1, root, "compression marker",
                       "compressed" if marker else "not compressed"))
    if not marker:
        return flags, data, pos + 1
    return flags, _zlib_rows(data[pos + 1:], pos + 1, sections, "inflated body", budget), 0


def _zlib_rows(data: bytes, offset: int, sections: list[Section], title: str,
               budget: Inflating) -> bytes:
    """Rows for ``u32 size | zlib data`` at ``offset``; a new section for what it inflates
    to, which is returned."""
    root = Path(None, "$")
    rows = sections[-1].rows
    inflated, packed, after = Serializer._inflate(data, offset, budget)
    rows.append(Region(offset, 4, root, "inflated size", f"{len(inflated)} bytes"))
    rows.append(Region(offset + 4, len(packed), root, "zlib data",
                       f"{len(packed)} bytes inflating to {len(inflated)}"))
    if after:
        rows.append(Region(offset + 4 + len(packed), len(after), root, "trailing",
                           f"{len(after)} bytes after the zlib data"))
    sections.append(Section(title, inflated))
    return inflated


class _Rows:
    """The rows a map may still get: ``factor`` times the stream's ``size`` plus
    :data:`ROW_SLACK`."""

    __slots__ = ("factor", "left", "limit", "size")

    def __init__(self, size: int, factor: float | None) -> None:
        self.size = size
        self.factor = factor
        self.limit = self.left = expansion_limit(size, factor, ROW_SLACK)

    def take(self, offset: int) -> None:
        """Count a row, or raise the DecodeError naming max_expansion."""
        if not self.left:
            raise DecodeError(exceeded(f"the map would have more than {self.limit} rows",
                                       self.limit, self.size, self.factor),
                              offset=offset, format="kingsisle")
        self.left -= 1


class _Recorder(BitReader):
    """A bit reader that tells ``sink`` of each read made outside a value being mapped as a
    whole, and remembers where the first read of such a value started."""

    __slots__ = ("first", "quiet", "sink")

    def __init__(self, data: bytes, bit_position: int,
                 sink: Callable[[int, int, str, int], None]) -> None:
        super().__init__(data, bit_position)
        self.sink = sink
        self.quiet = 0
        self.first: int | None = None

    def read_bits(self, n: int, what: str = "a value") -> int:
        start = self.bit_position
        value = super().read_bits(n, what)
        if self.quiet:
            if self.first is None:
                self.first = start
        else:
            self.sink(start, n, what, value)
        return value

    def read_bytes(self, n: int, what: str = "bytes") -> bytes:
        self.align()
        if self.first is None:
            self.first = self.bit_position
        return super().read_bytes(n, what)


class _Mapper(Serializer):
    """The reference decoder with hooks that turn what it reads into rows."""

    def __init__(self, ser: Serializer, flags: int, root: Path, rows: _Rows) -> None:
        super().__init__(ser.schema, flags=flags, shallow=ser.shallow,
                         property_mask=ser.property_mask,
                         skip_unknown_types=ser.skip_unknown_types,
                         max_depth=ser.max_depth,
                         max_expansion=ser.max_expansion)
        self.rows = rows
        self.where = root
        self.lists: list[list[Any] | None] = []  # per property: [list path, next index]
        self.deltas: list[Iterator[str] | None] = []  # per object: its delta properties
        self.section = Section("", b"")
        self.property_names = {int(f.attributes["hash"]): f.name
                               for cls in ser.schema.classes.values() for f in cls.fields}

    def row(self, start: int, bits: int, kind: str, note: str,
            where: Path | None = None) -> None:
        self.rows.take(start >> 3)
        self.section.rows.append(Region(start >> 3, ((start & 7) + bits + 7) >> 3,
                                        where or self.where, kind, note, start & 7, bits))

    def raw_row(self, start: int, bits: int, what: str, value: int) -> None:
        """A row for a structural field read outside any value."""
        if what == "a type hash":
            cls = self.schema.class_by_hash(value)
            note = "null" if value == 0 else cls.name if cls is not None else "unknown class"
            self.row(start, bits, "type hash", f"{value} ({note})")
            if cls is not None:
                self.deltas[-1] = iter([f.name for f in self._included(cls)
                                        if int(f.attributes["flags"]) & _DELTA])
        elif what == "a property hash":
            name = self.property_names.get(value, "unknown property")
            self.row(start, bits, "property hash", f"{value} ({name})")
        elif what == "a bool":  # the presence bit of the object's next delta property
            name = next(self.deltas[-1] or iter(()), "?")
            self.row(start, bits, "delta presence", "present" if value else "absent",
                     Path(self.where, property_step(name)))
        else:
            self.row(start, bits, what.removeprefix("an ").removeprefix("a "),
                     f"{value} bits" if what.endswith("size") else str(value))

    def whole(self, r: BitReader, kind: str, read: Callable[[], Any],
              show: Callable[[Any], str] | None = None) -> Any:
        """Run ``read`` as one value: a single row from its first bit to its last."""
        assert isinstance(r, _Recorder)
        outer = r.quiet == 0
        if outer:
            r.first = None
        r.quiet += 1
        try:
            value = read()
        finally:
            r.quiet -= 1
        if outer:
            start = r.first if r.first is not None else r.bit_position
            self.row(start, r.bit_position - start, kind, (show or _short)(value))
        return value

    # -- hooks on the reference decoder ----------------------------------------------------

    def _object(self, r: BitReader, depth: int) -> KiObject | None:
        self.deltas.append(None)
        try:
            return super()._object(r, depth)
        finally:
            self.deltas.pop()

    def _property(self, f: Field, r: BitReader, depth: int) -> Any:
        parent = self.where
        self.where = Path(parent, property_step(f.name))
        self.lists.append([self.where, 0] if isinstance(f.type, List) else None)
        try:
            return super()._property(f, r, depth)
        finally:
            self.lists.pop()
            self.where = parent

    def _length(self, r: BitReader, container: bool) -> int:
        if not container:
            return super()._length(r, container)
        return int(self.whole(r, "list length", lambda: Serializer._length(self, r, True),
                              lambda n: f"{n} elements"))

    def _value(self, t: Any, type_name: str, r: BitReader, depth: int) -> Any:
        entry = self.lists[-1] if self.lists else None
        saved = self.where
        if entry is not None:
            self.lists[-1] = None  # values inside this element are not elements of it
            self.where = Path(entry[0], f"[{entry[1]}]")
            entry[1] += 1
        try:
            target = self.schema.model.types[t.name] if isinstance(t, Ref) else None
            if isinstance(target, Enum):
                enum = target
                return self.whole(r, enum.name,
                                  lambda: Serializer._value(self, t, type_name, r, depth),
                                  lambda v: _enum_note(enum, v))
            return super()._value(t, type_name, r, depth)
        finally:
            self.where = saved
            if entry is not None:
                self.lists[-1] = entry

    def _leaf(self, type_name: str, r: BitReader) -> Any:
        return self.whole(r, type_name, lambda: Serializer._leaf(self, type_name, r))

    def _struct(self, type_name: str, r: BitReader) -> dict[str, Any]:
        value: dict[str, Any] = self.whole(r, type_name,
                                           lambda: Serializer._struct(self, type_name, r))
        return value

    def _skip(self, r: BitReader, bits: int) -> None:  # type: ignore[override]
        start = r.bit_position
        Serializer._skip(r, bits)
        self.row(start, bits, "skipped", f"{bits} bits of an unknown type or property")


def _enum_note(enum: Enum, number: int) -> str:
    try:
        names = _enum_text(enum, number).decode()
    except EncodeError:
        return f"{number} (no option has it)"
    return f"{number} ({names or 'no flags'})"


def _short(value: Any) -> str:
    if isinstance(value, KiObject):
        value = value.type_name
    text = repr(value)
    return text if len(text) <= NOTE_LIMIT else text[:NOTE_LIMIT - 3] + "..."
