"""The optional C accelerators of the FlatBuffers encoder, reader, JSON reader and schema
tokenizer (built at install).

``_encoder_speedups`` encodes dict values and ``_reader_speedups`` materialises buffers
(:func:`~gameserde.flatbuffers.decoder.decode`), each driven by a compact program compiled once
per schema from the same plans the pure-Python code runs. ``_json_speedups`` reads flatc's
JSON dialect for :func:`~gameserde.flatbuffers.json_input.from_json`, whose document the encoder
extension then encodes with the JSON rules. ``_fbs_lexer_speedups`` tokenizes ``.fbs`` schemas
for :func:`~gameserde.flatbuffers.load_schema` (a lexer made while ``ENABLED`` is true runs
``next()`` in C, see :func:`~gameserde.flatbuffers._fbs_lexer.new_lexer`). The Python code is
the reference: whenever an extension meets something it does not handle, or any problem, it
gives up and the caller runs the reference over the whole input, which produces the result or
raises the exact error. So the public API gives the same values, bytes and errors with or
without them.

``_reader_speedups`` also reads the lazy :func:`~gameserde.flatbuffers.views.view`: view
classes built while ``ENABLED`` is true (when a schema's first view of a table type is made)
get C descriptors in place of the reference's ``property`` getters, and ``VectorView`` gets C
``__iter__``/``__len__``/``__getitem__`` (from the first such class on). Those read
``ENABLED`` on every access: when it is false, or on anything unusual, they call the reference
getter or method, which returns the value or raises the exact error. Classes built while it
is false are the pure-Python ones for good.

``ENABLED`` is true when ``GAMESERDE_PURE`` is not set to a non-empty value other than ``0``;
an extension is used when it is loaded (``encoder``/``reader`` not None) and ``ENABLED`` is
true. Tests switch ``ENABLED`` off to force the reference.
"""

from __future__ import annotations

from typing import Any

from gameserde._extensions import load_extension, pure_requested

API_VERSION = 1
"""The ``API_VERSION`` both extensions must declare; a stale build is ignored."""


def _load(name: str) -> Any:
    return load_extension(f"gameserde.flatbuffers.{name}", API_VERSION)


encoder: Any = _load("_encoder_speedups")
"""The encoder extension, or None."""

reader: Any = _load("_reader_speedups")
"""The reader extension, or None."""

json: Any = _load("_json_speedups")
"""The JSON parser extension (``from_json``, with the encoder extension), or None."""

lexer: Any = _load("_fbs_lexer_speedups")
"""The ``.fbs`` tokenizer extension (``load_schema``), or None."""

ENABLED = not pure_requested()
"""Whether the loaded extensions are used (set it to ``False`` to force the reference)."""
