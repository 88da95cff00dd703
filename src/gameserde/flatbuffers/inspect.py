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
* a buffer shorter than 12 bytes raises :class:`~gameserde.errors.DecodeError` (flatc writes
  only the comment lines);
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
"""

from __future__ import annotations

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.flatbuffers._annotate_binary import _Annotator
from gameserde.flatbuffers._annotate_reflection import _Reflection
from gameserde.flatbuffers._annotate_text import _latin1, _Text, _where
from gameserde.flatbuffers.schema import FbsSchema

__all__ = ["annotate"]

MIN_BUFFER_SIZE = 12


def annotate(schema: FbsSchema, buf: bytes | bytearray | memoryview,
             root_type: str | None = None, *, size_prefixed: bool = False,
             schema_file: str | None = None, binary_file: str = "<buffer>",
             include_vector_contents: bool = True, verify: bool = True) -> str:
    """The annotated byte map of ``buf`` (a ``root_type`` flatbuffer, default the schema's
    ``root_type``), as ``flatc --annotate SCHEMA -- BINARY`` writes it to ``BINARY.afb``.

    ``schema_file`` and ``binary_file`` are the names shown in the ``// Schema file:`` and
    ``// Binary file:`` comment lines (``schema_file`` defaults to the file the schema was read
    from; an empty string leaves the line out). ``include_vector_contents=False`` is flatc's
    ``--annotate-sparse-vectors``. With ``verify`` a failing
    :func:`~gameserde.flatbuffers.verifier.verify` adds ``// verifier: ...`` lines at the end.

    The result is text; bytes of the buffer that are not UTF-8 (inside string literals) are
    kept as surrogate escapes: ``.encode("utf-8", "surrogateescape")`` gives flatc's bytes.
    Raises :class:`~gameserde.errors.DecodeError` for a buffer shorter than 12 bytes,
    ``KeyError`` for an unknown ``root_type`` and ``ValueError`` when the schema has no
    ``root_type`` and none is given.
    """
    data = bytes(buf)
    if root_type is None:
        root_type = schema.root
        if root_type is None:
            raise ValueError("the schema has no root_type: pass root_type")
    root = schema.table(root_type).name
    if len(data) < MIN_BUFFER_SIZE:
        raise DecodeError(f"a flatbuffer has at least {MIN_BUFFER_SIZE} bytes, this one "
                          f"{len(data)}", offset=len(data), format="flatbuffers")
    annotator = _Annotator(_Reflection(schema), root, data, size_prefixed)
    try:
        with recursion_room(min(4 * len(data), 10**6) + 200):
            sections = annotator.annotate()
    except RecursionError:
        raise DecodeError("the buffer nests tables too deeply to annotate", offset=0,
                          format="flatbuffers") from None
    text = _Text(data, include_vector_contents)
    text.measure(sections)
    out = ["// Annotated Flatbuffer Binary\n//\n"]
    if schema_file is None:
        schema_file = schema.source_file
    if schema_file:
        out.append(f"// Schema file: {_latin1(schema_file)}\n")
    out.append(f"// Binary file: {_latin1(binary_file)}\n")
    for key in sorted(sections):
        text.section(out, sections[key])
    if verify:
        from gameserde.flatbuffers.verifier import verify as run_verifier

        try:
            run_verifier(schema, data, root, size_prefixed=size_prefixed)
        except DecodeError as e:
            out.append(f"\n// verifier: {_latin1(str(e))}\n")
            if e.offset is not None:
                out.append(f"// {_where(sections, e.offset, len(data), text)}\n")
    raw = "".join(out).encode("latin-1", "surrogateescape")
    return raw.decode("utf-8", "surrogateescape")
