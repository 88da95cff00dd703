"""UUIDs and type ids as O3DE writes and reads them.

O3DE prints a ``Uuid`` as ``{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`` in upper case. Reading,
the Uuid serializer *searches* the text for the first braced uuid (each dash optional), then
hands it to ``Uuid::CreateString``, which wants the dashes all present or all absent. Names are
looked up by the CRC32 of their ASCII-lower-cased text, so type and field names match
case-insensitively.

Template instances have ids the engine computes (``AzCore/RTTI/TemplateInfo.h``,
``TypeInfo.h``): ``Uuid a + Uuid b`` is ``Uuid::CreateData`` of their 32 bytes (SHA-1, the
first 16 bytes, RFC 4122 variant and version 5 bits, no namespace); the ids of the template
arguments, defaults included (``vector<T, allocator>``), are combined left to right, then the
template's own id is put behind them (most AZStd templates) or in front (``tuple``, whose
arguments are combined right to left skipping null ids, and ``Asset``). A number argument
counts as ``CreateName`` of its decimal text; a pointer argument ``T*`` as ``T + PointerId``.
"""

from __future__ import annotations

import hashlib
import re
import uuid
import zlib
from collections.abc import Sequence
from uuid import UUID

__all__ = ["DEFAULT_ARGUMENTS", "NULL_UUID", "POINTER_ID", "TEMPLATES", "UUID", "aggregate_ids",
           "combine_ids", "name_crc", "name_id", "parse_uuid", "search_uuid", "template_type",
           "uuid_text"]

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
    """gameserde's own stable id (a UUIDv5 of the name) for a type the engine gives none:
    a class registered without a uuid, ``multimap``/``multiset``, rejected templates."""
    return uuid.uuid5(_DERIVED, canonical_name)


def name_id(data: str | bytes) -> UUID:
    """``Uuid::CreateData`` / ``CreateName``: SHA-1 of the bytes, its first 16 bytes with the
    RFC 4122 variant and version 5 bits set; the null uuid for no bytes."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not raw:
        return NULL_UUID
    digest = bytearray(hashlib.sha1(raw).digest()[:16])
    digest[8] = (digest[8] & 0xBF) | 0x80
    digest[6] = (digest[6] & 0x5F) | 0x50
    return UUID(bytes=bytes(digest))


def combine_ids(first: UUID, second: UUID) -> UUID:
    """``Uuid operator+``: :func:`name_id` of the 16 bytes of ``first`` then ``second``."""
    return name_id(first.bytes + second.bytes)


def aggregate_ids(ids: Sequence[UUID]) -> UUID:
    """``AggregateTypes<...>::GetCanonicalTypeId``: a right fold ``previous + aggregate``
    that takes the previous id alone while the aggregate is still null."""
    if not ids:
        return NULL_UUID
    result = ids[-1]
    for previous in reversed(ids[:-1]):
        result = combine_ids(previous, result) if result != NULL_UUID else previous
    return result


POINTER_ID = UUID("35C8A027-FE00-4769-AE36-6997CFFAF8AE")
"""``AZ::Internal::PointerId_v``, combined behind the pointee's id for ``T*`` arguments."""
_ALLOCATOR = (UUID("E9F5A3BE-2B3D-4C62-9E6B-4E00A13AB452"), "allocator")
TEMPLATES: dict[str, tuple[str, UUID, bool]] = {
    name: (display, UUID(text), prefix) for name, display, text, prefix in [
        ("vector", "AZStd::vector", "A60E3E61-1FF6-4982-B6B8-9E4350C4C679", False),
        ("list", "AZStd::list", "E1E05843-BB02-4F43-B7DC-3ADB28DF42AC", False),
        ("forward_list", "AZStd::forward_list", "D7E91EA3-326F-4019-87F0-6F45924B909A", False),
        ("set", "AZStd::set", "6C51837F-B0C9-40A3-8D52-2143341EDB07", False),
        ("unordered_set", "AZStd::unordered_set", "8D60408E-DA65-4670-99A2-8ABB574625AE", False),
        ("unordered_multiset", "AZStd::unordered_multiset",
         "B5950921-7F70-4806-9C13-8C7DF841BB90", False),
        ("map", "AZStd::map", "F8ECF58D-D33E-49DC-BF34-8FA499AC3AE1", False),
        ("unordered_map", "AZStd::unordered_map", "41171F6F-9E5E-4227-8420-289F1DD5D005", False),
        ("unordered_multimap", "AZStd::unordered_multimap",
         "9ED846FA-31C1-4133-B4F4-91DF9750BA96", False),
        ("pair", "AZStd::pair", "919645C1-E464-482B-A69B-04AA688B6847", False),
        ("tuple", "AZStd::tuple", "F99F9308-DC3E-4384-9341-89CBF1ABD51E", True),
        ("array", "AZStd::array", "911B2EA8-CCB1-4F0C-A535-540AD00173AE", False),
        ("fixed_vector", "AZStd::fixed_vector", "74044B6F-E922-4FD7-915D-EFC5D1DC59AE", False),
        ("shared_ptr", "AZStd::shared_ptr", "FE61C84E-149D-43FD-88BA-1C3DB7E548B4", False),
        ("unique_ptr", "AZStd::unique_ptr", "B55F90DA-C21E-4EB4-9857-87BE6529BA6D", False),
        ("intrusive_ptr", "AZStd::intrusive_ptr", "530F8502-309E-4EE1-9AEF-5C0456B1F502", False),
        ("less", "AZStd::less", "41B40AFC-68FD-4ED9-9EC7-BA9992802E1B", False),
        ("hash", "AZStd::hash", "EFA74E54-BDFA-47BE-91A7-5A05DA0306D7", False),
        ("equal_to", "AZStd::equal_to", "4377BCED-F78C-4016-80BB-6AFACE6E5137", False),
        ("char_traits", "AZStd::char_traits", "9B018C0C-022E-4BA4-AE91-2C1E8592DBB2", False),
        ("basic_string", "AZStd::basic_string", "C26397ED-8F60-4DF6-8320-0D0C592DA3CD", False),
        ("Asset", "Asset", "C891BF19-B60C-45E2-BFD0-027D15DDC939", True),
    ]}
"""Templates with engine type info: gameserde's name -> (the engine's display name, the
template id, whether it goes in front of the arguments' ids)."""
DEFAULT_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "vector": ("allocator",), "list": ("allocator",), "forward_list": ("allocator",),
    "set": ("less", "allocator"), "map": ("less", "allocator"),
    "unordered_set": ("hash", "equal_to", "allocator"),
    "unordered_multiset": ("hash", "equal_to", "allocator"),
    "unordered_map": ("hash", "equal_to", "allocator"),
    "unordered_multimap": ("hash", "equal_to", "allocator"),
}
"""The default template arguments the engine's ids and names include; ``less``, ``hash`` and
``equal_to`` take the key type."""


def template_type(template: str, args: Sequence[tuple[UUID, str]]) -> tuple[UUID, str] | None:
    """The engine's id and name of ``template`` instantiated with ``args`` (each the id and
    name of a type or number argument; default arguments are added here), as
    ``GetO3deTypeId``/``GetO3deTypeName`` compute them; None for templates without engine
    type info (``multimap``, ``multiset``)."""
    entry = TEMPLATES.get(template)
    if entry is None:
        return None
    display, own, prefix = entry
    full = list(args)
    for default in DEFAULT_ARGUMENTS.get(template, ()):
        if default == "allocator":
            full.append(_ALLOCATOR)
        else:
            key_id, key_name = args[0]
            helper, helper_id, _ = TEMPLATES[default]
            full.append((combine_ids(key_id, helper_id), f"{helper}<{key_name}>"))
    name = f"{display}<{', '.join(n for _, n in full)}>"
    ids = [i for i, _ in full]
    if template == "tuple":
        combined = aggregate_ids(ids)
    else:
        combined = ids[0] if ids else NULL_UUID
        for other in ids[1:]:
            combined = combine_ids(combined, other)
    return (combine_ids(own, combined) if prefix else combine_ids(combined, own)), name
