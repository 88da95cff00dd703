"""Reading FlatBuffers with a run-time schema: lazy, zero-copy views.

:func:`view` gives a lazy :class:`TableView` over a ``memoryview`` of the buffer:
``monster.hp``, ``monster.name`` (a ``str``, decoded when read), ``monster.pos.x``. Absent
fields read as their schema default (None for absent non-scalars and optional scalars).
Vectors are :class:`VectorView` sequences (``len``, indexing, slicing, iteration); vectors of
scalars and structs also offer ``.numpy()``, an ``np.frombuffer`` view with the right dtype (a
structured dtype for structs, :func:`struct_dtype`), without copying. A struct of scalars only
(``Vec3``) is read whole in one ``unpack_from`` into a :class:`FlatStructView` (a tuple
subclass with named fields); other structs are lazy :class:`LazyStructView` s; both are
:class:`StructView`. Unions give the member's view (or ``str``), ``x_type`` the integer tag;
``nested_flatbuffer`` fields read as the nested root's view. Enum fields are ints;
:func:`enum_name` names them; :func:`file_identifier` reads the identifier. The classes are
defined in :mod:`~gameserde.flatbuffers._view_classes` and generated per table and struct by
:mod:`~gameserde.flatbuffers._view_plans`. :mod:`~gameserde.flatbuffers.decoder` materialises
a buffer (``decode``), :mod:`~gameserde.flatbuffers.json_output` prints it as flatc does
(``to_json``).

The reader does **not verify** the buffer: run the verifier first on untrusted input. Every
read is still bounds-checked, so a bad offset raises :class:`~gameserde.errors.DecodeError`
(naming the byte offset and the field path, e.g. ``$.weapons[1].name``), never another
exception. Union tags the schema does not know read as None (``view``/``decode``) and are an
error for ``to_json``, as for flatc. Tables nested deeper than Python's recursion limit are a
:class:`DecodeError` for ``decode``/``to_json`` (a view reads them fine). An error's offset is
a byte of the buffer: where the bad offset, vtable entry or length was read (the message says
where it leads: ``the offset at 0 points to a table at 2844268027, past the end of the
16-byte buffer``), from the start of ``buf`` (a nested flatbuffer's: from the start of the
nested buffer).

Vectors of unions read element by element with their ``_type`` vector (a value vector longer
than its type vector is a :class:`DecodeError` for the missing tags; flatc --json aborts on
such files). ``hash`` fields are plain integers. 64-bit offsets: ``offset64`` strings and
vectors are referenced by an 8-byte offset and keep their 32-bit length; ``vector64`` vectors
have an 8-byte length with the data at +8 (the format's layout; flatc -b sometimes writes 4
padding bytes there instead, see :mod:`~gameserde.flatbuffers.encoder`, and such vectors read
shifted, as in C++). ``flatc --json`` aborts on any ``vector64`` field; ``to_json`` prints it
like any other vector.
"""

from __future__ import annotations

import struct
from typing import Any

from gameserde.errors import DecodeError
from gameserde.flatbuffers import _view_plans
from gameserde.flatbuffers._json_text import enum_text
from gameserde.flatbuffers._view_classes import (
    _U32,
    FlatStructView,
    LazyStructView,
    StructView,
    TableView,
    VectorView,
    _as_view,
    _mk_table,
    _np,
    _root_offset,
)
from gameserde.flatbuffers._view_plans import (
    _CACHE_ATTR,
    _Compiled,
    _compiled,
    _struct_plan,
    _table_plan,
)
from gameserde.flatbuffers.schema import FbsSchema

__all__ = [
    "FlatStructView",
    "LazyStructView",
    "StructView",
    "TableView",
    "VectorView",
    "enum_name",
    "file_identifier",
    "struct_dtype",
    "view",
]


def view(schema: FbsSchema, buf: Any, root_type: str | None = None, *,
         size_prefixed: bool = False) -> Any:
    """A lazy :class:`TableView` of the root table of ``buf`` (bytes-like, not copied).

    ``root_type`` defaults to the schema's ``root_type``. Not verified: see the module doc.
    """
    c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
    cls = None if c is None else c.roots.get(root_type)
    if cls is None:
        c = _compiled(schema)
        cls = c.roots[root_type] = _table_plan(c, schema.root_table(root_type).name).cls
    if _view_plans._view_c:  # the C view getters are set up: None when they give up
        v = _view_plans._view_c.root(cls, buf, size_prefixed)
        if v is not None:
            return v
    b = buf if type(buf) is memoryview and buf.format == "B" else _as_view(buf)
    if not size_prefixed:
        try:
            return _mk_table(cls, b, _U32(b, 0)[0], None, None, 0)
        except struct.error:  # the verifier's words, so that decode and verify agree
            raise DecodeError(f"the {len(b)}-byte buffer is shorter than the 12 bytes of the "
                              "smallest flatbuffer", offset=0, format="flatbuffers") from None
    start = 0
    if size_prefixed:
        if len(b) < 4:
            raise DecodeError(f"size prefix at 0x0 (4 bytes) runs past the end of the "
                              f"{len(b)}-byte buffer", offset=0, format="flatbuffers")
        size = _U32(b, 0)[0]
        if size + 4 > len(b):
            raise DecodeError(f"size prefix {size} exceeds the buffer", offset=0,
                              format="flatbuffers")
        start = 4
    return _mk_table(cls, b, _root_offset(b, start, None, None), None, None, start)


def struct_dtype(schema: FbsSchema, name: str) -> Any:
    """The numpy structured dtype of struct ``name`` (as ``VectorView.numpy()`` gives a vector
    of it: field names, little-endian formats, offsets and the padded size), None for a struct
    larger than numpy's dtypes (2 GB)."""
    if _np is None:
        raise ImportError("numpy is not installed")
    return _struct_plan(_compiled(schema), schema.struct(name).name).dtype


def file_identifier(buf: Any, *, size_prefixed: bool = False) -> str | None:
    """The 4-character file identifier (bytes 4..7, or 8..11 after a size prefix), or None
    when the buffer is too short."""
    b = bytes(_as_view(buf)[8 if size_prefixed else 4:][:4])
    if len(b) < 4:
        return None
    return b.decode("latin-1")


def enum_name(obj: TableView | StructView, field: str) -> str | None:
    """The enum name of field ``field`` of a view (``"Red"``), space-joined flag names for
    ``bit_flags``, or None when the value has no name (or the field is not an enum)."""
    fp = next((f for f in obj._plan.fields if f.name == field), None)
    if fp is None:
        raise AttributeError(field)
    value = getattr(obj, field)
    if value is None:
        return None
    if fp.union_type_of is not None and fp.union is not None:
        if value == 0:
            return str(fp.union.attributes.get("flatbuffers.none", "NONE"))
        m = fp.union.member_of(value)
        return None if m is None else m[0]
    if fp.enum is None:
        return None
    text = enum_text(fp.enum, value)
    return text[1:-1] if text.startswith('"') else None
