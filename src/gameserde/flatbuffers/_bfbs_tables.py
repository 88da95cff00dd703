"""The tables of a verified ``.bfbs`` buffer, read in place: what the reader builds on, and
its error (:class:`BfbsError`)."""

from __future__ import annotations

import functools
import os
import struct
from typing import Any

from gameserde.errors import DecodeError, SchemaError
from gameserde.flatbuffers._reflection_types import VECTOR64
from gameserde.flatbuffers.schema import FbsSchema

# Builtin attributes whose value is a number (the others are flags or names).
_NUMERIC_ATTRIBUTES = frozenset({"id", "force_align"})


class BfbsError(DecodeError, SchemaError):
    """A ``.bfbs`` that is not a valid binary schema: a :class:`DecodeError` (``offset`` is
    where the fault is) and a :class:`SchemaError`; ``str()`` starts with the file's name
    (``source_file``) when it has one."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message, offset=offset, format="flatbuffers .bfbs", verb="load")
        self.source_file = ""

    def __str__(self) -> str:
        text = super().__str__()
        return f"{self.source_file}: {text}" if self.source_file else text


@functools.cache
def reflection_schema() -> FbsSchema:
    """The bundled ``reflection.fbs`` (the schema of ``.bfbs`` files)."""
    from gameserde.flatbuffers.schema import load_schema

    return load_schema(os.path.join(os.path.dirname(__file__), "reflection.fbs"))


def looks_like_bfbs(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` is shaped like a ``.bfbs``: a root offset inside it followed by the
    file identifier ``BFBS`` (or the same after a 4-byte size prefix)."""
    for start in (0, 4):
        if len(data) >= start + 8 and bytes(data[start + 4:start + 8]) == b"BFBS":
            root = int.from_bytes(data[start:start + 4], "little")
            if root % 4 == 0 and start + 8 <= start + root < len(data):
                return True
    return False


class Table:
    """A table of the verified buffer: ``pos`` and its vtable."""

    __slots__ = ("buf", "pos", "vt", "vt_size")

    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf = buf
        self.pos = pos
        self.vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vt_size = struct.unpack_from("<H", buf, self.vt)[0]

    def _at(self, slot: int) -> int:
        o = 4 + 2 * slot
        if o + 2 > self.vt_size:
            return 0
        voff: int = struct.unpack_from("<H", self.buf, self.vt + o)[0]
        return self.pos + voff if voff else 0

    def scalar(self, slot: int, fmt: str, default: Any) -> Any:
        at = self._at(slot)
        return struct.unpack_from(fmt, self.buf, at)[0] if at else default

    def _target(self, slot: int) -> int:
        at = self._at(slot)
        return at + struct.unpack_from("<I", self.buf, at)[0] if at else 0

    def string(self, slot: int) -> str | None:
        at = self._target(slot)
        if not at:
            return None
        n = struct.unpack_from("<I", self.buf, at)[0]
        return self.buf[at + 4:at + 4 + n].decode("utf-8", "surrogateescape")

    def table(self, slot: int) -> Table | None:
        at = self._target(slot)
        return Table(self.buf, at) if at else None

    def vector(self, slot: int) -> list[int]:
        """The targets of a vector of offsets (empty when absent)."""
        at = self._target(slot)
        if not at:
            return []
        n = struct.unpack_from("<I", self.buf, at)[0]
        first = at + 4
        return [first + 4 * i + struct.unpack_from("<I", self.buf, first + 4 * i)[0]
                for i in range(n)]

    def tables(self, slot: int) -> list[Table]:
        return [Table(self.buf, p) for p in self.vector(slot)]

    def strings(self, slot: int) -> list[str]:
        out = []
        for p in self.vector(slot):
            n = struct.unpack_from("<I", self.buf, p)[0]
            out.append(self.buf[p + 4:p + 4 + n].decode("utf-8", "surrogateescape"))
        return out


def attribute_value(key: str, value: str) -> Any:
    """An attribute's value as the ``.fbs`` model keeps it: True for ``"0"`` (what flatc
    stores for an attribute given no value), an int for digits, else the text."""
    if value == "0" and key not in _NUMERIC_ATTRIBUTES:
        return True
    try:
        number = int(value)
    except ValueError:
        return value
    return number if str(number) == value else value


def read_attributes(t: Table, slot: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in t.tables(slot):
        key = kv.string(0) or ""
        if key.startswith("flatbuffers."):  # the model's own facts
            raise BfbsError(f"attribute {key} is reserved", kv.pos)
        out[key] = attribute_value(key, kv.string(1) or "")
    return out


def read_doc(t: Table, slot: int) -> str:
    return "\n".join(t.strings(slot))


class RType:
    __slots__ = ("base", "element", "fixed_length", "index", "pos")

    def __init__(self, t: Table | None, owner: int) -> None:
        if t is None:
            raise BfbsError("a field or enum without its type", owner)
        self.pos = t.pos
        self.base = t.scalar(0, "<b", 0)
        self.element = t.scalar(1, "<b", 0)
        self.index = t.scalar(2, "<i", -1)
        self.fixed_length = t.scalar(3, "<H", 0)
        for bt in (self.base, self.element):
            if not 0 <= bt <= VECTOR64:
                raise BfbsError(f"unknown base type {bt}", t.pos)
