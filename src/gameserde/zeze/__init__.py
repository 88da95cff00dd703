"""Zeze (e2wugui/zeze): solution XML schemas and the ByteBuffer wire format, byte-exact with
Zeze's Java runtime."""

from gameserde.zeze.names import hash32, hash64, protocol_type_id
from gameserde.zeze.schema import Protocol, ZezeSchema, load_schema

__all__ = ["Protocol", "ZezeSchema", "hash32", "hash64", "load_schema", "protocol_type_id"]
