"""The expansion budgets of :func:`~gameserde.flatbuffers.decoder.decode` (and of
``VectorView.tolist()`` and view equality) and :func:`~gameserde.flatbuffers.json_output.to_json`.

Offsets may be shared: a FlatBuffer can refer to one table, string or vector from many places,
and decoding copies it at every reference, so a 380-byte buffer can stand for a tree of 2^19
tables and 80 KB for a gigabyte of strings. The budget bounds what the output reproduces of the
buffer: each table read counts its 4-byte vtable offset and the inline bytes of its present
fields (a scalar's size, a struct's size, 4 for an offset, 8 for a 64-bit one), each string 4
bytes plus its characters, each vector 4 bytes plus its elements (``length x element size``),
each union struct member its size, each nested flatbuffer 8 bytes (its length and root offset)
and each ``flexbuffer`` field 4 bytes plus its bytes, every time they are reached. Vtables,
which every table of a kind shares, and absent fields given their defaults are not counted. A
buffer without shared offsets thus reproduces at most its own size; the output is refused
(a :class:`~gameserde.errors.DecodeError`) beyond ``max_expansion`` times the buffer's size.

The C decoder counts the same way and gives up when the budget runs out; the reference then
raises the error.

:func:`~gameserde.flatbuffers.json_output.to_json` counts the characters of its text instead: at
most ``max_expansion`` times the buffer's size plus :data:`JSON_SLACK`.
"""

from __future__ import annotations

from gameserde._expansion import expansion_limit

DEFAULT_MAX_EXPANSION = 16
"""Room for buffers that share strings or tables on purpose (flatc shares ``(shared)``
strings), a bound for those made to explode."""

DEFAULT_JSON_EXPANSION = 64
"""The default of :func:`~gameserde.flatbuffers.json_output.to_json`, which counts characters of
text: flatc's JSON is typically 5 to 25 times the binary."""

JSON_SLACK = 4096
"""Characters :func:`~gameserde.flatbuffers.json_output.to_json` may write beyond
``max_expansion`` times the buffer's size (room for the defaults of a small buffer)."""

class Budget:
    """What may still be reproduced of a ``size``-byte buffer: ``left`` bytes."""

    __slots__ = ("factor", "left", "limit", "size")

    def __init__(self, size: int, factor: float | None) -> None:
        self.limit = expansion_limit(size, factor)
        self.size = size
        self.factor = factor
        self.left = self.limit

    def message(self) -> str:
        """What the error says when the budget runs out."""
        return (f"decoding would reproduce more than {self.limit} bytes of the {self.size}-byte "
                f"buffer (max_expansion={self.factor:g}): its offsets share data, copied at "
                "every reference; a larger max_expansion allows more (None or inf: no limit)")
