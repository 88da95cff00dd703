"""An annotated byte map of a FlatBuffers binary: the text of ``flatc --annotate`` (``.afb``).

:func:`annotate` is a port of flatc 25.12.19's ``BinaryAnnotator`` (``src/binary_annotator.cpp``)
and ``AnnotatedBinaryTextGenerator`` (``src/annotated_binary_text_gen.cpp``) onto the shared
model: the same sections (``header``, ``vtable (T)``, ``root_table (T)``, ``table (T)``,
``string (T.field)``, ``vector (T.field)``, ``union (S.field)``, ``padding``, ``unknown (no
known references)``) in offset order, one row per region::

    +0x0C | 08 00         | VOffset16  | 0x0008 (8)       | offset to field `pos` (id: 0)

with the same column widths, value formatting (C++ ``%g``-like floats, ``std::to_string``
defaults), the same quirks (``int`` fields shown as ``uint32_t``, a union ``_type`` vector
read through a 16-bit offset, ...), and the same ``ERROR:``/``WARN:`` marks on broken input
(offsets outside the binary, incomplete reads, lengths too long, missing required fields,
invalid union types, unreferenced bytes). ``nested_flatbuffer`` fields are shown as flatc
shows them: a plain ``[ubyte]`` vector. Union members that are strings are not followed
(flatc leaves them as unreferenced bytes too).

``annotate(...).encode("utf-8", "surrogateescape")`` is byte-for-byte what flatc writes to
``file.afb`` when ``schema_file``/``binary_file`` are the names given to flatc. Deliberate
differences from flatc 25.12.19:

* ``size_prefixed=True`` annotates the buffer as later flatc does (flatc 25.12.19's
  ``--size-prefixed --annotate`` writes only the header comment lines: it verifies the
  *schema* as size-prefixed and gives up; fixed upstream in #8976);
* where flatc would recurse forever or crash on a cyclic buffer (a table field or union
  pointing back to a table being annotated), the offset is marked ``Invalid offset, cycle
  detected`` and not followed;
* a buffer shorter than 12 bytes raises :class:`~gameserde.errors.DecodeError` with the
  verifier's message (flatc writes only the comment lines);
* with ``verify=True`` (the default) the buffer is also checked by
  :func:`gameserde.flatbuffers.verifier.verify`; when it fails, two last lines
  ``// verifier: <the DecodeError>`` (the failing offset and path) and ``// +0xOFF is in
  SECTION, region +0xSTART (ITS COMMENT)`` (or ``is past the end of the N-byte buffer``) mark
  the failing region (flatc has no such lines; its own ``ERROR:`` marks are kept as they are).

Nothing but :class:`~gameserde.errors.DecodeError` is raised for any bytes; the work is bounded
by the buffer's size (lengths are checked against it before anything is read or allocated).

The work is split as flatc splits it: ``_annotate_regions`` (the region model),
``_annotate_reflection`` (the schema as flatc's reflection data), ``_annotate_binary`` (the
``BinaryAnnotator`` walk) and ``_annotate_text`` (the ``.afb`` text); this module runs them.
:func:`regions` gives the same regions as the rows of gameserde's shared byte map (what
``gameserde inspect flatbuffers`` prints without ``--annotate``): offset, size, the path of
the value (``$.weapons[1].name``, as in error messages), flatc's type and the value with
flatc's comment.
"""

from __future__ import annotations

import struct

from gameserde._bytemap import Path, Region
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.flatbuffers._annotate_binary import _Annotator
from gameserde.flatbuffers._annotate_reflection import _Reflection
from gameserde.flatbuffers._annotate_regions import (
    _FORMATS,
    _OFFSETS,
    CHAR,
    DOUBLE,
    FLOAT,
    _Region,
    _Section,
)
from gameserde.flatbuffers._annotate_text import _comment_text, _latin1, _Text, _where
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.flatbuffers.verifier import MIN_BUFFER_SIZE

__all__ = ["MIN_BUFFER_SIZE", "annotate", "header", "regions"]

_NOWHERE = Path(None, "")
"""The path of bytes nothing refers to."""

SHOWN = 40
"""The longest string literal a row shows whole."""


def annotate(schema: FbsSchema, buf: bytes | bytearray | memoryview,
             root_type: str | None = None, *, size_prefixed: bool = False,
             schema_file: str | None = None, binary_file: str = "<buffer>",
             include_vector_contents: bool = True, verify: bool = True,
             max_depth: int = 64) -> str:
    """The annotated byte map of ``buf`` (a ``root_type`` flatbuffer, default the schema's
    ``root_type``), as ``flatc --annotate SCHEMA -- BINARY`` writes it to ``BINARY.afb``.

    ``schema_file`` and ``binary_file`` are the names shown in the ``// Schema file:`` and
    ``// Binary file:`` comment lines (``schema_file`` defaults to the file the schema was read
    from; an empty string leaves the line out). ``include_vector_contents=False`` is flatc's
    ``--annotate-sparse-vectors``. With ``verify`` a failing
    :func:`~gameserde.flatbuffers.verifier.verify` (with ``max_depth``) adds ``// verifier:
    ...`` lines at the end.

    The result is text; bytes of the buffer that are not UTF-8 (inside string literals) are
    kept as surrogate escapes: ``.encode("utf-8", "surrogateescape")`` gives flatc's bytes.
    Raises :class:`~gameserde.errors.DecodeError` for a buffer shorter than 12 bytes,
    :class:`~gameserde.errors.UnknownNameError` (a ``KeyError``) for an unknown ``root_type``
    and :class:`~gameserde.errors.UsageError` (a ``ValueError``) when the schema has no
    ``root_type`` and none is given.
    """
    data = bytes(buf)
    root = schema.root_table(root_type).name
    sections = _sections(schema, data, root, size_prefixed)
    text = _Text(data, include_vector_contents)
    text.measure(sections)
    out = [header(schema, schema_file, binary_file)]
    for key in sorted(sections):
        text.section(out, sections[key])
    if verify:
        from gameserde.flatbuffers.verifier import verify as run_verifier

        try:
            run_verifier(schema, data, root, size_prefixed=size_prefixed, max_depth=max_depth)
        except DecodeError as e:
            out.append(f"\n// verifier: {_latin1(str(e))}\n")
            if e.offset is not None:
                out.append(f"// {_where(sections, e.offset, len(data), text)}\n")
    raw = "".join(out).encode("latin-1", "surrogateescape")
    return raw.decode("utf-8", "surrogateescape")


def header(schema: FbsSchema, schema_file: str | None, binary_file: str) -> str:
    """The comment lines an ``.afb`` file starts with (all flatc writes for a buffer too short
    to annotate), one character per UTF-8 byte as :func:`annotate` builds its text."""
    if schema_file is None:
        schema_file = schema.source_file
    lines = "// Annotated Flatbuffer Binary\n//\n"
    if schema_file:
        lines += f"// Schema file: {_latin1(schema_file)}\n"
    return lines + f"// Binary file: {_latin1(binary_file)}\n"


def _sections(schema: FbsSchema, data: bytes, root: str,
              size_prefixed: bool) -> dict[int, _Section]:
    """flatc's annotated sections of ``data``, by offset."""
    if len(data) < MIN_BUFFER_SIZE:
        raise DecodeError(f"the {len(data)}-byte buffer is shorter than the {MIN_BUFFER_SIZE} "
                          "bytes of the smallest flatbuffer", offset=0, format="flatbuffers")
    annotator = _Annotator(_Reflection(schema), root, data, size_prefixed)
    try:
        with recursion_room(min(4 * len(data), 10**6) + 200):
            return annotator.annotate()
    except RecursionError:
        raise DecodeError("the buffer nests tables too deeply to annotate", offset=0,
                          format="flatbuffers") from None


def regions(schema: FbsSchema, buf: bytes | bytearray | memoryview,
            root_type: str | None = None, *, size_prefixed: bool = False) -> list[Region]:
    """The regions :func:`annotate` finds in ``buf``, as rows of the shared byte map: each
    has its offset, size, the path of the value it holds (``$.weapons[1].name``;
    ``$.equipped<Weapon>`` for a union's member; a vtable's entries the path of the field they
    locate; empty for bytes nothing refers to), flatc's type (``int16_t``, ``UOffset32``,
    ``char[3]``) and its value followed by flatc's comment (``300 (table field `hp`
    (Short))``, with flatc's ``ERROR:`` marks). Raises as :func:`annotate` does."""
    data = bytes(buf)
    sections = _sections(schema, data, schema.root_table(root_type).name, size_prefixed)
    text = _Text(data, True)
    rows = []
    for key in sorted(sections):
        for r in sections[key].regions:
            value = _value(r, data)
            comment = _comment_text(r.comment)
            rows.append(Region(r.offset, r.length, r.where or _NOWHERE, text.type_string(r),
                               f"{value} ({comment})" if value else comment))
    return rows


def _value(r: _Region, data: bytes) -> str:
    """The value a region holds, short: a number, where an offset leads, a string literal."""
    if r.array_length:
        if r.type != CHAR:
            return ""
        literal = data[r.offset:r.offset + r.length].decode("utf-8", "replace")
        if len(literal) > SHOWN:
            literal = f"{literal[:SHOWN // 2]}...{literal[-SHOWN // 2:]}"
        return repr(literal)
    fmt = _FORMATS.get(r.type)
    if fmt is None or r.offset + struct.calcsize(fmt) > len(data):
        return ""
    value = struct.unpack_from(fmt, data, r.offset)[0]
    if r.type in _OFFSETS:
        return f"to 0x{r.points_to:x}"
    if r.type == FLOAT:
        return f"{value:.9g}"
    if r.type == DOUBLE:
        return repr(value)
    return str(value)
