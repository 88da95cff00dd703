"""UUIDs and type ids as O3DE writes and reads them.

O3DE prints a ``Uuid`` as ``{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`` in upper case. Reading,
the Uuid serializer *searches* the text for the first braced uuid (each dash optional), then
hands it to ``Uuid::CreateString``, which wants the dashes all present or all absent. Names are
looked up by the CRC32 of their ASCII-lower-cased text, so type and field names match
case-insensitively.
"""

from __future__ import annotations

import re
import uuid
import zlib
from uuid import UUID

__all__ = ["NULL_UUID", "UUID", "name_crc", "parse_uuid", "search_uuid", "uuid_text"]

NULL_UUID = UUID(int=0)
_SEARCH = re.compile(
    r"\{[a-f0-9]{8}-?[a-f0-9]{4}-?[a-f0-9]{4}-?[a-f0-9]{4}-?[a-f0-9]{12}\}", re.IGNORECASE)
_DASHED = re.compile(
    r"\{?[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\}?", re.IGNORECASE)
_PLAIN = re.compile(r"\{?[a-f0-9]{32}\}?", re.IGNORECASE)
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DERIVED = UUID("6f3de000-0000-4000-8000-67616d657365")


def uuid_text(value: UUID) -> str:
    """``Uuid::ToString``: braces, dashes, upper case."""
    return "{" + str(value).upper() + "}"


def parse_uuid(text: str) -> UUID | None:
    """``Uuid::CreateString``: a uuid with or without braces, its dashes all there or all
    absent; None (O3DE's null uuid) for anything else."""
    if (text.startswith("{") != text.endswith("}")) or not (
            _DASHED.fullmatch(text) or _PLAIN.fullmatch(text)):
        return None
    return UUID(text.strip("{}").replace("-", ""))


def search_uuid(text: str) -> UUID | None:
    """The Uuid serializer's reading of a string: the first braced uuid anywhere in ``text``,
    parsed by :func:`parse_uuid`; None when there is none or it is malformed."""
    match = _SEARCH.search(text)
    return parse_uuid(match.group()) if match else None


def name_crc(name: str) -> int:
    """``Crc32(name)``: CRC32 of the ASCII-lower-cased UTF-8 bytes of ``name``."""
    return zlib.crc32(name.translate(_LOWER).encode("utf-8", "surrogatepass"))


def derived_uuid(canonical_name: str) -> UUID:
    """A stable id for a type the engine names by template arguments (``vector<int>``):
    gameserde's own (a UUIDv5 of the canonical name), not the engine's combined id."""
    return uuid.uuid5(_DERIVED, canonical_name)
