"""FlatBuffers binary schemas (``.bfbs``): what ``flatc -b --schema`` writes.

A ``.bfbs`` is a FlatBuffer of flatc's ``reflection.fbs`` schema (file identifier ``BFBS``):
the tables, structs, enums, unions, services, field ids, offsets, defaults and (with
``--bfbs-builtins``) the attributes of a schema, which applications ship for run-time
reflection. gameserde reads and writes them with the same model as ``.fbs`` text:

* :func:`~gameserde.flatbuffers.load_schema` recognises a ``.bfbs`` (bytes, or a path) by its
  content, verifies it against ``reflection.fbs`` (bundled as ``reflection.fbs`` next to this
  module), checks what the verifier cannot (type indices in range, field ids 0..n-1, union
  members, no struct inside itself) and loads it; every codec then works on it as on the
  ``.fbs``. A broken ``.bfbs`` raises :class:`BfbsError` (a
  :class:`~gameserde.errors.DecodeError` with the offset at fault, and a
  :class:`~gameserde.errors.SchemaError`), never anything else.
* :func:`to_bfbs` (``FbsSchema.to_bfbs``) writes the bytes flatc writes, byte for byte:
  ``comments`` is ``--bfbs-comments``, ``builtins`` ``--bfbs-builtins``, ``filenames=DIR``
  ``--bfbs-filenames DIR`` (declaration files and the include graph, relative to ``DIR`` as
  ``//PATH``). flatc also does the latter when it is given the schema with a directory part
  (``flatc -b --schema dir/x.fbs`` names files relative to ``dir``), and not for a bare
  ``x.fbs``: ``filenames=None`` is flatc run in the schema's directory.

What a ``.bfbs`` does not hold, and so a schema loaded from one lacks (compared with the
``.fbs`` it was made from):

* without ``--bfbs-comments``: documentation; without ``--bfbs-builtins``: the builtin
  attributes (``id``, ``bit_flags``, ``original_order``, ``nested_flatbuffer``,
  ``force_align``, ``flexbuffer``, ``hash``, ``cpp_*`` ...). What they decided is kept where
  flatc stores it (ids, struct layout); ``deprecated``, ``required``, ``key``, ``offset64``
  and ``vector64`` are restored from the fields' flags. But a ``bit_flags`` enum, an
  ``original_order`` table, a ``nested_flatbuffer`` or ``flexbuffer`` field are then plain,
  which changes how JSON prints them and in which order ``encode`` lays fields out: write
  ``.bfbs`` files with ``--bfbs-builtins`` to read them back with every codec unchanged;
* the text of a string default (flatc keeps only that there is one: it loads as ``""``), an
  integer default beyond the int64 range (stored as 0), the sign of a NaN default;
* documentation that is a single empty ``///`` line (the model's documentation is text, so
  that one is empty: ``to_bfbs(comments=True)`` leaves it out, where flatc writes ``[""]``);
* an attribute's value type: flatc keeps text, so ``"0"`` loads as True (an attribute given
  without a value; ``id`` and ``force_align`` stay numbers), digits as an int, anything else
  as a str;
* which namespaces and attributes were declared but never used, the include statements'
  order (``includes``), ``native_include``, the JSON a schema may end with, and where each
  type is declared except as the ``//PATH`` of ``--bfbs-filenames`` (``flatbuffers.file``);
* the interleaving of tables and enums: the model lists the objects, then the enums, each
  in declaration order (recovered from where flatc placed them), so the loaded schema writes
  back the same ``.bfbs``.
"""

from __future__ import annotations

import os

from gameserde.flatbuffers._bfbs_read import BfbsError, looks_like_bfbs, read_bfbs
from gameserde.flatbuffers._bfbs_write import write_bfbs
from gameserde.flatbuffers.schema import FbsSchema

__all__ = ["BfbsError", "is_bfbs", "load_bfbs", "to_bfbs"]


def is_bfbs(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` looks like a ``.bfbs`` (root offset, then the identifier ``BFBS``,
    plain or size-prefixed); :func:`load_bfbs` still verifies it."""
    return looks_like_bfbs(data)


def load_bfbs(data: bytes | bytearray | memoryview, source_file: str = "") -> FbsSchema:
    """A ``.bfbs`` buffer as a schema (``load_schema`` does this for bytes that
    :func:`is_bfbs`); ``source_file`` names it in messages."""
    return read_bfbs(data, source_file)


def to_bfbs(schema: FbsSchema, *, comments: bool = False, builtins: bool = False,
            filenames: str | os.PathLike[str] | None = None) -> bytes:
    """The ``.bfbs`` of ``schema``, byte-identical to ``flatc -b --schema`` with
    ``--bfbs-comments`` (``comments``), ``--bfbs-builtins`` (``builtins``) and
    ``--bfbs-filenames DIR`` (``filenames=DIR``)."""
    return write_bfbs(schema, comments=comments, builtins=builtins, filenames=filenames)
