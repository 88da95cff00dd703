"""KingsIsle ObjectProperty (Wizard101, Pirate101): the name hashes and the bit buffer the
format is built on (the codec follows)."""

from gameserde.kingsisle.bitbuf import BitReader, BitWriter
from gameserde.kingsisle.hashes import djb2, property_hash, string_id, type_hash

__all__ = ["BitReader", "BitWriter", "djb2", "property_hash", "string_id", "type_hash"]
