"""KingsIsle ObjectProperty (Wizard101, Pirate101): type lists, the name hashes, the bit
buffer, the binary serializer in every mode and flag, and a bit map of streams, exact with
katsuba; the XML debug form as libki writes it; the format's codec
(:meth:`KiSchema.codec`, ``gameserde.codec("kingsisle", schema=...)``); and the KIWAD
archives the game data ships in (:func:`open_wad`, :func:`write_wad`)."""

from gameserde.kingsisle.bitbuf import BitReader, BitWriter
from gameserde.kingsisle.codec import decode, encode, verify
from gameserde.kingsisle.files import BIND_FLAGS, BIND_MAGIC, read_bind, write_bind
from gameserde.kingsisle.hashes import djb2, property_hash, string_id, type_hash
from gameserde.kingsisle.inspect import StreamMap, stream_map
from gameserde.kingsisle.interface import KiByteMap, KiCodec
from gameserde.kingsisle.jsontext import from_json, from_jsonable, to_json, to_jsonable
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import (
    ALL_FLAGS,
    COMPACT_LENGTH_PREFIXES,
    FORBID_DELTA_ENCODE,
    HUMAN_READABLE_ENUMS,
    MAX_EXPANSION,
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    Serializer,
)
from gameserde.kingsisle.typelist import KiSchema, load_schema
from gameserde.kingsisle.wad import (
    WAD_MAGIC,
    WAD_MAX_EXPANSION,
    WadArchive,
    WadEntry,
    open_wad,
    write_wad,
)
from gameserde.kingsisle.xmltext import from_xml, to_xml

__all__ = [
    "ALL_FLAGS",
    "BIND_FLAGS",
    "BIND_MAGIC",
    "COMPACT_LENGTH_PREFIXES",
    "FORBID_DELTA_ENCODE",
    "HUMAN_READABLE_ENUMS",
    "MAX_EXPANSION",
    "STATEFUL_FLAGS",
    "WAD_MAGIC",
    "WAD_MAX_EXPANSION",
    "WITH_COMPRESSION",
    "BitReader",
    "BitWriter",
    "KiByteMap",
    "KiCodec",
    "KiObject",
    "KiSchema",
    "Serializer",
    "StreamMap",
    "WadArchive",
    "WadEntry",
    "decode",
    "djb2",
    "encode",
    "from_json",
    "from_jsonable",
    "from_xml",
    "load_schema",
    "open_wad",
    "property_hash",
    "read_bind",
    "stream_map",
    "string_id",
    "to_json",
    "to_jsonable",
    "to_xml",
    "type_hash",
    "verify",
    "write_bind",
    "write_wad",
]
