"""The format's verbs as functions: ``decode``, ``encode`` and ``verify`` with a type list
and the :class:`~gameserde.kingsisle.serializer.Serializer` options, for one-off calls
(a :class:`Serializer` kept around serves many)."""

from __future__ import annotations

from typing import Any

from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer
from gameserde.kingsisle.typelist import KiSchema

__all__ = ["decode", "encode", "verify"]


def decode(data: bytes | bytearray | memoryview, schema: KiSchema, **options: Any) -> KiObject:
    """The root object of the stream ``data``; ``options`` are :class:`Serializer`'s."""
    return Serializer(schema, **options).decode(data)


def encode(obj: KiObject, schema: KiSchema, **options: Any) -> bytes:
    """The stream of the root object ``obj``; ``options`` are :class:`Serializer`'s."""
    return Serializer(schema, **options).encode(obj)


def verify(data: bytes | bytearray | memoryview, schema: KiSchema, **options: Any) -> None:
    """Raise :class:`~gameserde.errors.DecodeError` unless ``data`` decodes with these
    options."""
    Serializer(schema, **options).decode(data)
