"""Framings around a Variant: ``store_var`` files, StreamPeer, PacketPeerStream, base64.

* ``FileAccess.store_var`` and ``StreamPeer.put_var`` write a 32-bit length, then the Variant.
  The length follows the file's or peer's endianness (``big_endian`` / Godot 3 ``endian_swap``);
  the Variant itself is always little-endian.
* ``PacketPeerStream`` writes a little-endian 32-bit length, always, then the packet; a packet
  must fit its ring buffer (2^16 bytes by default, so at most 65532 bytes of Variant).
* ``Marshalls.variant_to_base64`` is base64 of the raw Variant.

:func:`verify` checks data in any of these framings (``FRAMINGS``) and :func:`guess_framing`
finds the framing and profile under which undecodable data reads whole.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterator
from typing import Any, NamedTuple

from gameserde.errors import DecodeError, EncodeError, UsageError
from gameserde.godot.decoder import decode, decode_prefix
from gameserde.godot.encoder import encode
from gameserde.godot.profiles import MAX_DEPTH, PROFILES, Profile, get_profile

PACKET_PEER_STREAM_MAX = (1 << 16) - 4
"""Largest packet a default PacketPeerStream accepts (``max_buffer_po2`` = 16, minus 4)."""

_LEN = {False: struct.Struct("<I"), True: struct.Struct(">I")}

FRAMINGS = ("raw", "store_var", "packet_stream", "base64")
"""One Variant; ``store_var`` records; ``PacketPeerStream`` packets; base64 text."""


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
    return _record(memoryview(data).cast("B"), offset, big_endian, True, profile, allow_objects,
                   max_depth)


def _record(mv: memoryview, offset: int, big_endian: bool, swappable: bool,
            profile: str | Profile, allow_objects: bool, max_depth: int) -> tuple[Any, int]:
    left = len(mv) - offset
    if left < 4:
        raise DecodeError(f"a length prefix needs 4 bytes but only {max(left, 0)} are left",
                          offset=offset, format="godot")
    size = _LEN[big_endian].unpack_from(mv, offset)[0]
    if size > left - 4:
        other = _LEN[not big_endian].unpack_from(mv, offset)[0]
        if swappable and other <= left - 4:
            order = "little" if big_endian else "big"
            hint = f"; read as a {order}-endian number the length prefix is {other}, which fits"
        else:
            hint = (f": the data ends {size - (left - 4)} bytes before the record does, as in a "
                    "file that was cut short")
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
    for record in _framed(data, big_endian, None, profile, allow_objects, max_depth):
        yield record.value


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
    for record in _framed(data, False, max_size, profile, allow_objects, max_depth):
        yield record.value


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
    return decode_prefix(base64_bytes(text), profile=profile, allow_objects=allow_objects,
                         max_depth=max_depth)[0]


# ---------------------------------------------------------------------------------------------
# Any framing


class Record(NamedTuple):
    value: Any
    offset: int
    """Where the record starts (its length prefix, if any); 0 for raw and base64."""
    size: int
    """The record's bytes, length prefix included (raw: the Variant's; base64: the bytes the
    text stands for)."""


def records(data: Any, *, framing: str = "raw", big_endian: bool = False,
            profile: str | Profile = "godot4", allow_objects: bool = False,
            max_depth: int = MAX_DEPTH) -> Iterator[Record]:
    """Each Variant of ``data`` in ``framing`` (one of :data:`FRAMINGS`), in order."""
    if framing not in FRAMINGS:
        raise UsageError(f"unknown framing {framing!r}; choose one of {', '.join(FRAMINGS)}")
    if big_endian and framing != "store_var":
        raise UsageError("big_endian applies to the store_var framing only")
    opts: dict[str, Any] = {"profile": profile, "allow_objects": allow_objects,
                            "max_depth": max_depth}
    if framing in ("raw", "base64"):
        raw = data if framing == "raw" else base64_bytes(data)
        value, size = decode_prefix(raw, **opts)
        yield Record(value, 0, size)
        return
    packet_max = PACKET_PEER_STREAM_MAX if framing == "packet_stream" else None
    yield from _framed(data, big_endian, packet_max, profile, allow_objects, max_depth)


def _framed(data: Any, big_endian: bool, packet_max: int | None, profile: str | Profile,
            allow_objects: bool, max_depth: int) -> Iterator[Record]:
    """Length-prefixed records up to the end of ``data``: ``store_var`` ones, or packets of
    at most ``packet_max`` bytes."""
    mv = memoryview(data).cast("B")
    pos = 0
    while pos < len(mv):
        if packet_max is not None and len(mv) - pos >= 4:
            size = _LEN[False].unpack_from(mv, pos)[0]
            if size > packet_max:
                raise DecodeError(f"packet length {size} exceeds the PacketPeerStream limit "
                                  f"of {packet_max}", offset=pos, format="godot")
        value, used = _record(mv, pos, big_endian, packet_max is None, profile, allow_objects,
                              max_depth)
        yield Record(value, pos, used)
        pos += used


def verify(data: Any, *, framing: str = "raw", big_endian: bool = False,
           profile: str | Profile = "godot4", allow_objects: bool = False,
           max_depth: int = MAX_DEPTH, allow_trailing: bool = False) -> None:
    """Raise :class:`DecodeError` unless the engine would read all of ``data`` back in
    ``framing``.

    ``raw``: ``bytes_to_var`` (``bytes_to_var_with_objects`` when ``allow_objects``) accepts it,
    and no bytes follow the Variant (the engine ignores such bytes: ``allow_trailing`` accepts
    them). ``store_var``: every record, up to the last byte, is one ``get_var`` reads.
    ``packet_stream``: every packet ``PacketPeerStream`` accepts. ``base64``:
    ``Marshalls.base64_to_variant`` accepts the text, and no bytes follow the Variant in the
    bytes it stands for (unless ``allow_trailing``).
    """
    for record in records(data, framing=framing, big_endian=big_endian, profile=profile,
                          allow_objects=allow_objects, max_depth=max_depth):
        if framing in ("raw", "base64") and not allow_trailing:
            raw = data if framing == "raw" else base64_bytes(data)
            total = len(memoryview(raw).cast("B"))
            if record.size < total:
                raise trailing_bytes(record.size, total, framing)


def trailing_bytes(end: int, total: int, framing: str, advice: str = "") -> DecodeError:
    """The error for the ``total - end`` bytes after a raw or base64 Variant ending at
    ``end``; ``advice`` ends the parenthesis saying the engine ignores them."""
    where = " (in the bytes the base64 text stands for)" if framing == "base64" else ""
    return DecodeError(f"{total - end} bytes after the value{where} are not part of it (the "
                       f"engine ignores them{advice})", offset=end, format="godot")


class Guess(NamedTuple):
    framing: str
    big_endian: bool
    profile: str


_GUESSES = (("raw", False), ("store_var", False), ("store_var", True), ("base64", False))


def guess_framing(data: Any, *, profile: str | Profile = "godot4", exclude: Guess | None = None,
                  max_depth: int = MAX_DEPTH) -> Guess | None:
    """The first framing and profile under which all of ``data`` decodes, or None.

    ``profile`` is tried first, then the others; for each, one raw Variant that fills the data,
    ``store_var`` records with little- then big-endian lengths, each filled by its Variant
    (``packet_stream`` data reads as those too), then base64 text. ``exclude`` is the reading
    already tried. Each try costs at most one decode of the data.
    """
    if not len(memoryview(data).cast("B")):
        return None
    first = get_profile(profile).name
    for prof in (first, *(p for p in PROFILES if p != first)):
        for framing, big_endian in _GUESSES:
            guess = Guess(framing, big_endian, prof)
            if guess != exclude and _reads_whole(data, guess, max_depth):
                return guess
    return None


def _reads_whole(data: Any, guess: Guess, max_depth: int) -> bool:
    """Whether ``data`` reads as ``guess`` with every Variant filling its record (or, raw
    and base64, the data): a reading that leaves bytes unread inside a record reads garbage."""
    try:
        raw = base64_bytes(data) if guess.framing == "base64" else data
        mv = memoryview(raw).cast("B")
        opts: dict[str, Any] = {"profile": guess.profile, "allow_objects": True,
                                "max_depth": max_depth}
        if guess.framing != "store_var":
            return decode_prefix(mv, **opts)[1] >= len(mv)
        pos = 0
        while pos < len(mv):
            if len(mv) - pos < 4:
                return False
            size = _LEN[guess.big_endian].unpack_from(mv, pos)[0]
            if size > len(mv) - pos - 4 or decode_prefix(mv[pos + 4:pos + 4 + size],
                                                          **opts)[1] < size:
                return False
            pos += 4 + size
    except DecodeError:
        return False
    return True


def base64_bytes(text: Any) -> bytes:
    try:
        return base64.b64decode((text if isinstance(text, str) else bytes(text)).strip(),
                                validate=True)
    except (binascii.Error, ValueError) as e:
        raise DecodeError(f"not valid base64 ({e})", format="godot") from None
