"""flatc's ``AnnotatedBinaryTextGenerator`` (``src/annotated_binary_text_gen.cpp``): the
annotated sections as ``.afb`` text, with C++'s number formatting, and the line that places a
verifier error in that map."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from gameserde.flatbuffers._annotate_regions import (
    _FORMATS,
    _OFFSETS,
    _U64,
    CHAR,
    DOUBLE,
    ERROR,
    ERROR_CYCLE_DETECTED,
    ERROR_INCOMPLETE_BINARY,
    ERROR_INVALID_UNION_TYPE,
    ERROR_LENGTH_TOO_LONG,
    ERROR_LENGTH_TOO_SHORT,
    ERROR_OFFSET_OUT_OF_BINARY,
    ERROR_REQUIRED_FIELD_NOT_PRESENT,
    FLOAT,
    UINT8,
    UNKNOWN,
    WARN_CORRUPTED_PADDING,
    WARN_NO_REFERENCES,
    WARN_PADDING_LENGTH,
    _Comment,
    _Region,
    _Section,
)


def _latin1(text: str) -> str:
    """``text`` as one character per UTF-8 byte (the output is built that way)."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def _hex(value: int, width: int) -> str:
    return f"{value & _U64:0{width}X}"


def _cpp_to_string_double(value: float) -> str:
    """``std::to_string(double)``: ``%f``."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:f}"


def _cpp_stream_float(value: float) -> str:
    """``std::stringstream << value``: ``%g`` with 6 digits."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


_ASCII = bytes(b if 0x20 <= b < 0x7F else 0x2E for b in range(256))
"""isprint in the C locale; '.' for the others."""


class _Text:
    def __init__(self, buf: bytes, include_vector_contents: bool) -> None:
        self.buf = buf
        n = len(buf)
        self.offset_chars = 8 if n > 0xFFFFFF else 6 if n > 0xFFFF else 4 if n > 0xFF else 2
        self.type_width = 0
        self.value_width = 20
        self.per_line = 8
        self.include_vector_contents = include_vector_contents

    def byte(self, i: int) -> int:
        return self.buf[i] if 0 <= i < len(self.buf) else 0

    def bytes_at(self, start: int, length: int) -> bytes:
        """``length`` bytes from ``start``, zeros where that is outside the buffer."""
        if start >= 0 and start + length <= len(self.buf):
            return self.buf[start:start + length]
        return bytes(self.byte(start + i) for i in range(max(0, length)))

    def type_string(self, r: _Region) -> str:
        return r.type + (f"[{r.array_length}]" if r.array_length else "")

    def value_string(self, r: _Region) -> str:
        if r.array_length:
            if r.type in (UINT8, UNKNOWN):
                return self.bytes_at(r.offset, r.array_length).translate(
                    _ASCII).decode("latin-1")
            if r.type == CHAR:
                return self.bytes_at(r.offset, r.array_length).decode("latin-1")
        fmt = _FORMATS.get(r.type)
        if fmt is None:
            return ""
        value = struct.unpack(fmt, self.bytes_at(r.offset, struct.calcsize(fmt)))[0]
        digits = self.bytes_at(r.offset, r.length)[::-1].hex().upper()
        shown = _cpp_stream_float(value) if r.type in (FLOAT, DOUBLE) else str(value)
        s = f"0x{digits} ({shown})"
        if r.type in _OFFSETS:
            s += f" Loc: 0x{_hex(r.points_to, self.offset_chars)}"
        return s

    def measure(self, sections: dict[int, _Section]) -> None:
        for section in sections.values():
            for r in section.regions:
                self.type_width = max(self.type_width, len(self.type_string(r)))
                if not r.array_length:
                    self.value_width = max(self.value_width, len(self.value_string(r)))

    def region(self, out: list[str], r: _Region) -> None:
        doc_done = False
        cont_col = 0
        cont = ""
        per = self.per_line
        for start in range(0, r.length, per):
            chunk = self.bytes_at(r.offset + start, min(per, r.length - start))
            out.append(f"\n  +0x{_hex(r.offset + start, self.offset_chars)} | "
                       + chunk.hex(" ").upper() + "   " * (per - len(chunk)) + " |")
            if doc_done:
                continue
            out.append(" ")
            if cont_col:
                out.append(" " * (cont_col - 2) + "| " + cont[:per])
                cont = cont[per:]
            else:
                type_str = self.type_string(r).ljust(self.type_width)
                out.append(type_str + " | ")
                value = self.value_string(r)
                if r.array_length:
                    cont_col = 3 + len(type_str)
                    out.append(value[:per].ljust(self.value_width))
                    cont = value[per:]
                else:
                    out.append(value.ljust(self.value_width))
                out.append(" | " + _comment_text(r.comment))
            doc_done = not cont

    def section(self, out: list[str], s: _Section) -> None:
        out.append("\n" + s.type + (f" ({s.name})" if s.name else "") + ":")
        regions = s.regions
        if (s.type in ("vector", "vector64") and not self.include_vector_contents
                and len(regions) > 4):
            self.region(out, regions[0])
            self.region(out, regions[1])
            out.append(f"\n  <{len(regions) - 3} regions omitted>")
            self.region(out, regions[-1])
            out.append("\n")
            return
        for r in regions:
            self.region(out, r)
        out.append("\n")


_COMMENTS: dict[str, Callable[[_Comment], str]] = {
    "unknown": lambda c: "unknown",
    "size prefix": lambda c: "size prefix",
    "root": lambda c: f"offset to root table `{c.name}`",
    "file identifier": lambda c: "File Identifier",
    "padding": lambda c: "padding",
    "vtable size": lambda c: "size of this vtable",
    "table size": lambda c: "size of referring table",
    "vtable field": lambda c: f"offset to field `{c.name}",
    "vtable unknown field": lambda c: f"offset to unknown field (id: {c.index})",
    "vtable offset": lambda c: "offset to vtable",
    "table field": lambda c: f"table field `{c.name}",
    "table unknown field": lambda c: "unknown field",
    "table offset field": lambda c: f"offset to field `{c.name}`",
    "struct field": lambda c: f"struct field `{c.name}`",
    "array field": lambda c: f"array field `{c.name}`[{c.index}]",
    "string length": lambda c: "length of string",
    "string value": lambda c: "string literal",
    "string terminator": lambda c: "string terminator",
    "vector length": lambda c: "length of vector (# items)",
    "vector value": lambda c: f"value[{c.index}]",
    "vector table": lambda c: f"offset to table[{c.index}]",
    "vector string": lambda c: f"offset to string[{c.index}]",
    "vector union": lambda c: f"offset to union[{c.index}]",
}


def _comment_text(c: _Comment) -> str:
    s = _COMMENTS[c.kind](c)
    if c.default_value:
        s += " " + c.default_value
    st = c.status
    if st == WARN_NO_REFERENCES:
        s = "WARN: nothing refers to this section."
    elif st == WARN_CORRUPTED_PADDING:
        s = "WARN: could be corrupted padding region."
    elif st == WARN_PADDING_LENGTH:
        s = "WARN: padding is longer than expected."
    elif st == ERROR:
        s = "ERROR: " + s
    elif st == ERROR_OFFSET_OUT_OF_BINARY:
        s = f"ERROR: {s}. Invalid offset, points outside the binary."
    elif st == ERROR_INCOMPLETE_BINARY:
        s = f"ERROR: {s}. Incomplete binary, expected to read {c.status_message} bytes."
    elif st == ERROR_LENGTH_TOO_LONG:
        s = f"ERROR: {s}. Longer than the binary."
    elif st == ERROR_LENGTH_TOO_SHORT:
        s = f"ERROR: {s}. Shorter than the minimum length: "
    elif st == ERROR_REQUIRED_FIELD_NOT_PRESENT:
        s = f"ERROR: {s}. Required field is not present."
    elif st == ERROR_INVALID_UNION_TYPE:
        s = f"ERROR: {s}. Invalid union type value."
    elif st == ERROR_CYCLE_DETECTED:
        s = f"ERROR: {s}. Invalid offset, cycle detected."
    return s


def _where(sections: dict[int, _Section], offset: int, size: int, text: _Text) -> str:
    """Which annotated region holds the byte the verifier failed at."""
    at = f"+0x{_hex(offset, text.offset_chars)}"
    if offset >= size:
        return f"{at} is past the end of the {size}-byte buffer"
    for key in sorted(sections):
        section = sections[key]
        for r in section.regions:
            if r.offset <= offset < r.offset + r.length:
                title = section.type + (f" ({section.name})" if section.name else "")
                return (f"{at} is in {title}, region +0x{_hex(r.offset, text.offset_chars)}"
                        f" ({_comment_text(r.comment)})")
    return f"{at} is in no annotated region"
