"""Zeze (e2wugui/zeze): solution XML schemas, the ByteBuffer wire format and beans, byte-exact
with Zeze's Java runtime."""

from gameserde.zeze.codec import BeanCodec, decode, decode_from, encode, verify
from gameserde.zeze.generic import (
    GenericBean,
    GenericDynamic,
    GenericField,
    GenericList,
    GenericMap,
    decode_generic,
    decode_generic_bean,
    to_plain,
)
from gameserde.zeze.interface import ZezeCodec
from gameserde.zeze.jsonview import from_json, from_jsonable, to_json, to_jsonable
from gameserde.zeze.names import hash32, hash64, protocol_type_id
from gameserde.zeze.schema import Protocol, ZezeSchema, load_schema
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic, FrozenBean, UnknownField

__all__ = [
    "UNKNOWN_KEY", "BeanCodec", "Dynamic", "FrozenBean", "GenericBean", "GenericDynamic",
    "GenericField", "GenericList", "GenericMap", "Protocol", "UnknownField", "ZezeCodec",
    "ZezeSchema",
    "decode", "decode_from", "decode_generic", "decode_generic_bean", "encode", "from_json",
    "from_jsonable", "hash32", "hash64", "load_schema", "protocol_type_id", "to_json",
    "to_jsonable", "to_plain", "verify",
]
