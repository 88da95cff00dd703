"""KingsIsle ObjectProperty (Wizard101, Pirate101): the name hashes, the bit buffer and the
type lists the format is built on (the codec follows)."""

from gameserde.kingsisle.bitbuf import BitReader, BitWriter
from gameserde.kingsisle.hashes import djb2, property_hash, string_id, type_hash
from gameserde.kingsisle.typelist import KiSchema, load_schema

__all__ = ["BitReader", "BitWriter", "KiSchema", "djb2", "load_schema", "property_hash",
           "string_id", "type_hash"]
