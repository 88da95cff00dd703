"""Decoded ObjectProperty objects: a class name, its type hash and ordered properties."""

from __future__ import annotations

from typing import Any

from gameserde.errors import path_key

__all__ = ["KiObject", "Trailing", "property_step"]

Trailing = tuple[tuple[int, bytes] | None, tuple[int, bytes] | None, tuple[int, bytes] | None]
"""A root's ``trailing``: what followed manual compression's zlib data, WITH_COMPRESSION's
zlib data and the root object, each None or ``(byte offset, bytes)``."""


def property_step(name: str) -> str:
    """The path step of property ``name`` in error messages and maps: ``.m_name`` (a name
    that is not an identifier is quoted: ``["odd name"]``)."""
    return "." + name if name.isidentifier() else path_key(name)


class KiObject(dict[str, Any]):
    """An object of a type list class: a ``dict`` of its properties in id order (the ones the
    stream held), with ``type_name`` and ``type_hash``, and attribute access to properties
    (``obj.m_id`` is ``obj["m_id"]``).

    ``padding`` is None, or the padding bits a decoder read in this object that were not
    zero: ``{n: bits}`` for the n-th alignment within the object that skipped bits (the
    alignment before a nested object's type hash is its parent's; the root's last byte ends
    with one), ``bits`` shifted down to bit 0. The encoder writes them back where the same
    alignment skips bits they fit in, so an unchanged object re-encodes to the bytes it was
    read from.

    ``zlib_data`` is None, or for a root decoded from compressed data the zlib data it was
    read from: ``(manual compression's, WITH_COMPRESSION's)``, each bytes or None. The
    encoder writes it again where it inflates to exactly what is to be written, so zlib data
    of any deflater re-encodes unchanged.

    ``trailing`` is None, or for a root decoded from a stream with bytes after its parts the
    bytes that readers ignore there: ``(after manual compression's zlib data, after
    WITH_COMPRESSION's zlib data, after the root object)``, each None or ``(offset, bytes)``
    with the offset they were read at (in the input, or in the inflated data where they were
    compressed). The encoder writes them back at the end of the same parts (of the enclosing
    one where the stream it writes lacks that part), so they are never lost.

    None of these is a property: equality, JSON and XML leave them out."""

    __slots__ = ("padding", "trailing", "type_hash", "type_name", "zlib_data")

    def __init__(self, type_name: str, type_hash: int, properties: Any = ()) -> None:
        super().__init__(properties)
        self.type_name = type_name
        self.type_hash = type_hash
        self.padding: dict[int, int] | None = None
        self.zlib_data: tuple[bytes | None, bytes | None] | None = None
        self.trailing: Trailing | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _SLOTS:  # a slot not set yet (copy and pickle make objects so): no property
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{self.type_name} object has no property {name!r}") from None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KiObject):
            return self.type_hash == other.type_hash and dict.__eq__(self, other)
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return f"KiObject({self.type_name!r}, {dict(self)!r})"


_SLOTS = frozenset(KiObject.__slots__)
