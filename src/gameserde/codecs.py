"""One codec interface for every format.

A :class:`Codec` turns one format's binary data into values and back, with the options it was
built with (a schema and a root type, a profile, flags, limits). Every format implements the
same methods with the same meaning:

===============================  ===========================================================
``decode(data) -> value``        binary data to the format's Python value
``encode(value) -> bytes``       the value back to the bytes the engine writes
``to_jsonable(value)``           the value as JSON values (dicts, lists, str, numbers, ...)
``from_jsonable(obj)``           JSON values back to the format's value
``to_json(data, pretty=False)``  binary data to JSON text in one step, as ``gameserde decode``
``from_json(text) -> bytes``     JSON text to binary data in one step, as ``gameserde encode``
``verify(data) -> str``          a one-line report when the data is sound, else a
                                 :class:`~gameserde.errors.DecodeError`
``inspect(data) -> ByteMap``     which bytes hold which value (never raises for bad data:
                                 :attr:`ByteMap.error` says where it stops)
``convert(data, to) -> bytes``   data read with this codec written with another codec of the
                                 same format (another profile, flags, framing ...)
``to_row(value) -> Row | None``  the value as a row of the shared type model, for tables
                                 (Parquet); None where the format has no schema for it
===============================  ===========================================================

:func:`codec` builds one from a format's name and keyword options, the same options as the
command line's (``--max-depth`` is ``max_depth=``); ``gameserde.formats.FORMATS`` names the
formats. A codec built this way is described by :attr:`Codec.spec`, plain data that pickles,
so a worker process can build its own (compiled schemas and plans do not pickle).

What a codec cannot represent, or keeps only as the input has it, is reported as a
:class:`~gameserde.errors.GameserdeWarning` (``warnings.warn``): the command line prints each
on standard error, and ``--strict`` makes them errors.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gameserde._bytemap import Region, render
from gameserde.errors import GameserdeError, UsageError
from gameserde.schema.model import Schema, Type

__all__ = ["Buffer", "ByteMap", "Codec", "Row", "codec"]

Buffer = bytes | bytearray | memoryview
"""The binary data codecs read."""


class Codec(abc.ABC):
    """The interface every format's codec implements; see the module's documentation.

    Subclasses set :attr:`format` and build themselves from keyword options; :attr:`options`
    keeps the options as given (plain data, no compiled schema), so that
    ``gameserde.codec(c.format, **c.options)`` makes the same codec again.
    """

    format: ClassVar[str]
    """The format's name, as the command line spells it (``"godot"``)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options: dict[str, Any] = dict(options)

    json_output: bool = True
    """Whether :meth:`to_json` writes JSON (a codec set to write another text form, such as
    KingsIsle's XML, sets it false: ``--pretty``/``--compact`` are then refused)."""

    @property
    def spec(self) -> tuple[str, dict[str, Any]]:
        """``(format, options)``: what :func:`codec` needs to build this codec again."""
        return self.format, dict(self.options)

    @abc.abstractmethod
    def decode(self, data: Buffer) -> Any:
        """The value ``data`` holds."""

    @abc.abstractmethod
    def encode(self, value: Any) -> bytes:
        """The bytes the engine writes for ``value``."""

    @abc.abstractmethod
    def to_jsonable(self, value: Any) -> Any:
        """``value`` as JSON values: what :meth:`to_json` writes."""

    @abc.abstractmethod
    def from_jsonable(self, obj: Any) -> Any:
        """The value JSON values stand for: the inverse of :meth:`to_jsonable`."""

    def to_json(self, data: Buffer, *, pretty: bool = False) -> str:
        """``data`` as JSON text (indented when ``pretty``), ending with a newline."""
        from gameserde._jsonio import dumps

        return dumps(self.to_jsonable(self.decode(data)), pretty=pretty).decode("utf-8")

    def from_json(self, text: str | Buffer) -> bytes:
        """The bytes of the value JSON ``text`` stands for."""
        from gameserde._jsonio import loads

        raw = text if isinstance(text, str) else bytes(text)
        return self.encode(self.from_jsonable(loads(raw, format=self.format)))

    @abc.abstractmethod
    def verify(self, data: Buffer) -> str:
        """A one-line report (``"ok: ..."``) when ``data`` is sound; otherwise raise the
        :class:`~gameserde.errors.DecodeError` saying why."""

    @abc.abstractmethod
    def inspect(self, data: Buffer) -> ByteMap:
        """Which bytes of ``data`` hold which value, up to the first error."""

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data``, read with this codec, written with ``to`` (a codec of the same format
        with other options)."""
        if to.format != self.format:
            raise UsageError(f"convert writes the same format: a {self.format} codec cannot "
                             f"write {to.format}; decode to JSON and encode that instead")
        return to.encode(self.decode(data))

    def to_row(self, value: Any) -> Row | None:
        """``value`` (what :meth:`decode` returns) as a :class:`Row` of the shared type
        model, which a table (a Parquet dataset) stores in typed columns; None when the
        codec cannot tell (the table then keeps :meth:`to_json`'s text)."""
        return None


@dataclass(frozen=True)
class Row:
    """A decoded value as a row of the shared type model (:mod:`gameserde.schema.model`).

    ``name`` names the table the row goes to (the root type's name: rows of one name have
    one column layout); ``type`` is the row's type in ``schema`` (a :class:`Ref` to a
    record, usually), and ``value`` the value in row form, plain Python that follows the
    type:

    ======================  ===================================================================
    type                    row form
    ======================  ===================================================================
    ``Int``                 ``int`` (all 64 bits of a ``uint64`` kept)
    ``Float``               ``float`` (a ``Float(32)`` holds a value a float32 can)
    ``Bool``                ``bool``
    ``String``              ``str``
    ``Bytes``               ``bytes``
    ``List``, ``Set``       ``list``
    ``Map``                 ``list`` of ``(key, value)`` pairs
    ``Optional``            the inner type's form, or ``None``
    ``Enum``                ``int``: the value on the wire
    ``Record``              ``dict`` of field name to value, inherited fields too; an absent
                            field is missing or ``None``
    ``Union``               ``(member name, value)``, or ``None`` for none
    ======================  ===================================================================

    A value without a schema (a Godot Variant) has ``schema`` and ``type`` None and JSON
    values as ``value``: the table keeps its JSON text.
    """

    name: str
    schema: Schema | None
    type: Type | None
    value: Any


@dataclass
class ByteMap:
    """What :meth:`Codec.inspect` finds: one row per region of the input.

    Each row (a :class:`~gameserde._bytemap.Region`) has an ``offset``, a ``size`` in bytes,
    a ``path`` (as in error messages), a ``type`` and a ``note`` (the value, shown short);
    formats that pack values into bits give a bit position and a size in bits. ``error`` is
    the reason the data is not sound (``None`` when it is): the rows stop where it was found.
    ``text`` is true when the input is text (O3DE's JSON), whose rows count bytes of the text.
    """

    format: str
    data: bytes
    rows: list[Region] = field(default_factory=list)
    error: GameserdeError | None = None
    text: bool = False
    notes: list[str] = field(default_factory=list)
    """Lines printed before the table (a framing's record headers, for example)."""
    native: str | None = None
    """The format's own tool's rendering, when the codec was asked for it (flatc's
    ``--annotate`` text): :meth:`render` returns it instead of the table."""

    def render(self, *, width: int = 16) -> str:
        """The text table ``gameserde inspect`` prints: offset, bytes, path, type, value."""
        if self.native is not None:
            return self.native
        table = render(self.data, self.rows, width=width)
        return "\n".join([*self.notes, table])

    def parts(self) -> list[tuple[str, bytes, list[Region]]]:
        """The byte strings the rows count in, each with its title and rows: the input alone,
        or for a map with sections (KingsIsle) the input and what each zlib part inflates
        to."""
        return [("input", self.data, self.rows)]

    def html_pages(self, name: str = "map.html",
                   title: str | None = None) -> list[tuple[str, str]]:
        """The map as self-contained HTML pages, ``(file name, text)``: a hex pane coloured
        by region (the text, for a text format) beside the tree of paths, linked both ways,
        with a search by path or offset and the error marked; a map of more than about
        330 KB of page is cut into pages ``name``, ``NAME.2.html``, ... that link to each
        other. ``title`` names the input on the page."""
        from gameserde._html import html_pages

        return html_pages(self, name, title)

    def write_html(self, path: str | os.PathLike[str], title: str | None = None) -> list[str]:
        """Write :meth:`html_pages` to ``path`` (the first page; any others beside it) and
        return the paths written."""
        from gameserde._html import write_html

        return write_html(self, path, title)

    def to_jsonable(self) -> dict[str, Any]:
        """The map as JSON values: ``{"format", "size", "rows": [{"offset", "length",
        "bytes" (hex), "path", "type", "value"}, ...], "error"}``; bit fields add ``"bit"``
        and ``"bits"``; rows of a part after the first (what KingsIsle's zlib data inflates
        to) add ``"section"``, its title, and count offsets and bytes in it; ``"error"`` is
        ``null`` or ``{"offset", "path", "message"}``."""
        rows = []
        for n, (title, data, regions) in enumerate(self.parts()):
            view = memoryview(data).cast("B")
            for r in regions:
                row: dict[str, Any] = {"offset": r.offset, "length": r.size,
                                       "bytes": bytes(view[r.offset:r.offset + r.size]).hex(),
                                       "path": r.path, "type": r.type, "value": r.note}
                if r.bits is not None:
                    row["bit"], row["bits"] = r.bit, r.bits
                if n:
                    row["section"] = title
                rows.append(row)
        error = None
        if self.error is not None:
            error = {"offset": getattr(self.error, "offset", None),
                     "path": getattr(self.error, "path", "$"), "message": str(self.error)}
        return {"format": self.format, "size": len(self.data), "rows": rows, "error": error}


def codec(format: str, /, **options: Any) -> Codec:
    """The codec of ``format`` (a name in ``gameserde.formats.FORMATS``) with ``options``,
    the keyword forms of the command line's options (``schema=``, ``type=``,
    ``max_depth=``, ...). An unknown format or option, or options that cannot go together,
    raise :class:`~gameserde.errors.UsageError`."""
    from gameserde.formats import format_info

    return format_info(format).make(**options)
