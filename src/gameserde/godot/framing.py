"""Framings around a Variant: ``store_var`` files, StreamPeer, PacketPeerStream, base64.

* ``FileAccess.store_var`` and ``StreamPeer.put_var`` write a 32-bit length, then the Variant.
  The length follows the file's or peer's endianness (``big_endian`` / Godot 3 ``endian_swap``);
  the Variant itself is always little-endian.
* ``PacketPeerStream`` writes a little-endian 32-bit length, always, then the packet; a packet
  must fit its ring buffer (2^16 bytes by default, so at most 65532 bytes of Variant).
* ``Marshalls.variant_to_base64`` is base64 of the raw Variant.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterator
from typing import Any

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot.decoder import decode, decode_prefix
from gameserde.godot.encoder import encode
from gameserde.godot.profiles import MAX_DEPTH, Profile

PACKET_PEER_STREAM_MAX = (1 << 16) - 4
"""Largest packet a default PacketPeerStream accepts (``max_buffer_po2`` = 16, minus 4)."""

_LEN = {False: struct.Struct("<I"), True: struct.Struct(">I")}


def store_var(value: Any, *, big_endian: bool = False, profile: str | Profile = "godot4",
              full_objects: bool = False, double_precision: bool = False,
              max_depth: int = MAX_DEPTH) -> bytes:
    """The bytes ``store_var``/``put_var`` write: length prefix, then the Variant."""
    body = encode(value, profile=profile, full_objects=full_objects,
                  double_precision=double_precision, max_depth=max_depth)
    return _LEN[big_endian].pack(len(body)) + body


def get_var(data: Any, *, offset: int = 0, big_endian: bool = False,
            profile: str | Profile = "godot4", allow_objects: bool = False,
            max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """Read one ``store_var`` record at ``offset``; return the value and the record's size."""
    mv = memoryview(data).cast("B")
    left = len(mv) - offset
    if left < 4:
        raise DecodeError(f"a length prefix needs 4 bytes but only {max(left, 0)} are left",
                          offset=offset, format="godot")
    size = _LEN[big_endian].unpack_from(mv, offset)[0]
    if size > left - 4:
        hint = "" if big_endian else " (is the length prefix big-endian?)"
        raise DecodeError(f"record length {size} exceeds the {left - 4} bytes left{hint}",
                          offset=offset, format="godot")
    body = mv[offset + 4:offset + 4 + size]
    try:
        value = decode(body, profile=profile, allow_objects=allow_objects, max_depth=max_depth)
    except DecodeError as e:
        if e.offset is not None:
            e.offset += offset + 4
        raise
    return value, 4 + size


def iter_vars(data: Any, *, big_endian: bool = False, profile: str | Profile = "godot4",
              allow_objects: bool = False, max_depth: int = MAX_DEPTH) -> Iterator[Any]:
    """Every ``store_var`` record of a file or stream, in order, up to the end of ``data``."""
    mv = memoryview(data).cast("B")
    pos = 0
    while pos < len(mv):
        value, used = get_var(mv, offset=pos, big_endian=big_endian, profile=profile,
                              allow_objects=allow_objects, max_depth=max_depth)
        yield value
        pos += used


def put_packet(value: Any, *, max_size: int = PACKET_PEER_STREAM_MAX,
               profile: str | Profile = "godot4", full_objects: bool = False,
               double_precision: bool = False, max_depth: int = MAX_DEPTH) -> bytes:
    """The bytes ``PacketPeerStream.put_var`` sends: a little-endian length, then the Variant."""
    body = encode(value, profile=profile, full_objects=full_objects,
                  double_precision=double_precision, max_depth=max_depth)
    if len(body) > max_size:
        raise EncodeError(f"packet of {len(body)} bytes exceeds the PacketPeerStream limit of "
                          f"{max_size}", format="godot")
    return _LEN[False].pack(len(body)) + body


def iter_packets(data: Any, *, max_size: int = PACKET_PEER_STREAM_MAX,
                 profile: str | Profile = "godot4", allow_objects: bool = False,
                 max_depth: int = MAX_DEPTH) -> Iterator[Any]:
    """Every packet of a PacketPeerStream byte stream."""
    mv = memoryview(data).cast("B")
    pos = 0
    while pos < len(mv):
        if len(mv) - pos >= 4:
            size = _LEN[False].unpack_from(mv, pos)[0]
            if size > max_size:
                raise DecodeError(f"packet length {size} exceeds the PacketPeerStream limit "
                                  f"of {max_size}", offset=pos, format="godot")
        value, used = get_var(mv, offset=pos, profile=profile, allow_objects=allow_objects,
                              max_depth=max_depth)
        yield value
        pos += used


def variant_to_base64(value: Any, *, profile: str | Profile = "godot4",
                      full_objects: bool = False, double_precision: bool = False,
                      max_depth: int = MAX_DEPTH) -> str:
    """``Marshalls.variant_to_base64``."""
    return base64.b64encode(encode(value, profile=profile, full_objects=full_objects,
                                   double_precision=double_precision,
                                   max_depth=max_depth)).decode("ascii")


def base64_to_variant(text: str | bytes, *, profile: str | Profile = "godot4",
                      allow_objects: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """``Marshalls.base64_to_variant``."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as e:
        raise DecodeError(f"not valid base64 ({e})", format="godot") from None
    return decode_prefix(raw, profile=profile, allow_objects=allow_objects,
                         max_depth=max_depth)[0]
