"""Zeze network frames (spec §2.8): protocols and rpc requests and responses.

A frame is ``int32LE moduleId | int32LE protocolId | int32LE size | body[size]``; the body is
``UInt familyClass`` (Protocol 2, rpc Request 1, rpc Response 0; bit ``0x20`` means a
``WriteLong`` result code follows), then for rpcs a ``WriteLong`` session id, then the bean:
the protocol's or rpc's argument, or for a response the rpc's result (None in the schema is
Zeze's ``EmptyBean``, body ``00``).

:func:`encode_frame` and :func:`decode_frame` handle one whole frame with a schema;
:func:`frame_header` and :func:`encode_raw_frame` need none. :class:`FrameDecoder` splits a
byte stream fed in arbitrary chunks into :class:`RawFrame` values, refusing a frame larger
than its limit as soon as the header announces it (Java's ``InputBufferMaxProtocolSize``),
and :meth:`RawFrame.decode` turns one into a :class:`Frame`.
"""

from __future__ import annotations

import struct
import warnings
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from gameserde.errors import DecodeError, EncodeError, GameserdeWarning
from gameserde.zeze._show import shown
from gameserde.zeze.bytebuffer import Reader, Writer
from gameserde.zeze.codec import MAX_DEPTH, MAX_EXPANSION, read_bean, write_bean
from gameserde.zeze.names import protocol_type_id
from gameserde.zeze.schema import Protocol, ZezeSchema

__all__ = [
    "HEADER_SIZE", "MAX_FRAME_SIZE", "Frame", "FrameDecoder", "RawFrame", "decode_frame",
    "encode_frame", "encode_raw_frame", "frame_header",
]

HEADER_SIZE: Final = 12
"""moduleId, protocolId and size: three 4-byte little-endian ints."""

MAX_FRAME_SIZE: Final = 2 * 1024 * 1024
"""Java's default ``SocketOptions.InputBufferMaxProtocolSize``: the largest body size a
receiver waits for."""

# FamilyClass.java
_RESPONSE, _REQUEST, _PROTOCOL = 0, 1, 2
_FAMILY_MASK = 0x1F
_BIT_RESULT_CODE = 0x20
_FAMILIES: Final = {"response": _RESPONSE, "request": _REQUEST, "protocol": _PROTOCOL}
_FAMILY_NAMES: Final = {v: k for k, v in _FAMILIES.items()}
_RAFT: Final = {3: "RaftResponse", 4: "RaftRequest"}

_HEADER = struct.Struct("<iiI")
_INT32 = range(-(1 << 31), 1 << 31)


@dataclass(frozen=True)
class Frame:
    """One decoded frame: the protocol or rpc ``name`` (full name), its ids, the ``family``
    (``"protocol"``, ``"request"`` or ``"response"``), the bean ``value``, the result code
    and, for rpcs, the session id (None for protocols)."""

    name: str
    module_id: int
    protocol_id: int
    family: str
    value: Any
    result_code: int = 0
    session_id: int | None = None

    @property
    def type_id(self) -> int:
        """``moduleId << 32 | protocolId`` (unsigned) as a signed 64-bit value."""
        return protocol_type_id(self.module_id, self.protocol_id)


class RawFrame(NamedTuple):
    """One frame as it came off the wire: its header ids and its body bytes."""

    module_id: int
    protocol_id: int
    body: bytes

    @property
    def type_id(self) -> int:
        """``moduleId << 32 | protocolId`` (unsigned) as a signed 64-bit value."""
        return protocol_type_id(self.module_id, self.protocol_id)

    def decode(self, schema: ZezeSchema, *, max_expansion: float | None = MAX_EXPANSION,
               max_depth: int = MAX_DEPTH) -> Frame:
        """Decode the body as the schema's protocol or rpc with this type id, as Java's
        ``Protocol.decode`` and ``Rpc.decode`` do: bytes after the bean are ignored (with a
        :class:`~gameserde.errors.GameserdeWarning`). ``max_expansion`` bounds the default
        values the bean builds, as a factor of the body's size, and ``max_depth`` its nesting
        (see :func:`gameserde.zeze.decode`).

        Raises :class:`DecodeError` (offsets count from the start of the frame; the bean's
        paths start ``$.value``) for a type id the schema lacks, a family that does not fit
        the protocol, and a bad bean.
        """
        proto = protocol_of(schema, self.module_id, self.protocol_id, 0)
        r = Reader(self.body)
        try:
            frame = decode_body(schema, proto, r, max_expansion=max_expansion,
                                max_depth=max_depth)
        except DecodeError as e:
            if e.offset is not None:
                e.offset += HEADER_SIZE
            raise
        if r.pos < r.end:
            warn_ignored(r.end - r.pos, HEADER_SIZE + r.pos)
        return frame


def protocol_of(schema: ZezeSchema, module_id: int, protocol_id: int, offset: int) -> Protocol:
    """The protocol of a frame with these header ids, which starts at ``offset``; a
    :class:`DecodeError` when the schema has none."""
    proto = schema.protocol_by_type_id(protocol_type_id(module_id, protocol_id))
    if proto is None:
        raise DecodeError(
            f"no protocol of the schema has the type id "
            f"{protocol_type_id(module_id, protocol_id)} (module {module_id}, protocol "
            f"{protocol_id})", offset=offset, format="zeze")
    return proto


def warn_ignored(count: int, offset: int) -> None:
    """Warn that the ``count`` bytes at ``offset``, after a frame's bean, are ignored."""
    warnings.warn(f"{count} byte{'s' * (count != 1)} at byte {offset} (0x{offset:x}) follow "
                  "the frame's bean: ignored, as Java's Protocol.decode ignores them (not "
                  "written back)", GameserdeWarning, stacklevel=3)


def decode_body(schema: ZezeSchema, proto: Protocol, r: Reader, *,
                max_expansion: float | None = MAX_EXPANSION, max_depth: int = MAX_DEPTH,
                classes: bool = True) -> Frame:
    """The frame of ``proto`` whose body ``r`` reads (from ``r.pos`` to ``r.end``), leaving
    ``r.pos`` after the bean (a dict, or its dataclass when ``classes``). Errors have the
    offsets of ``r``; the bean's paths start ``$.value``."""
    header = r.read_uint()
    family = header & _FAMILY_MASK
    if family in _RAFT:
        raise r.fail(f"the family class {family} ({_RAFT[family]}) is a Raft rpc's, which "
                     f"{proto.name} is not and this codec does not read", 0)
    if family not in _FAMILY_NAMES or (family == _PROTOCOL) != (proto.kind == "protocol"):
        expected = "2 (Protocol)" if proto.kind == "protocol" else "0 or 1 (Response, Request)"
        raise r.fail(f"invalid header {header} for {proto.kind} {proto.name}: its family class "
                     f"{family} is not {expected}", 0)
    result_code = r.read_long() if header & _BIT_RESULT_CODE else 0
    session_id = None if family == _PROTOCOL else r.read_long()
    bean = proto.result if family == _RESPONSE else proto.argument
    try:
        value = read_bean(schema, bean, r, max_expansion=max_expansion, max_depth=max_depth,
                          classes=classes)
    except DecodeError as e:
        e.add_parent(".value")
        raise
    return Frame(proto.name, proto.module_id, proto.id, _FAMILY_NAMES[family], value,
                 result_code, session_id)


def frame_header(data: bytes | bytearray | memoryview, offset: int = 0) -> tuple[int, int, int]:
    """The ``(module_id, protocol_id, size)`` of the frame header at ``offset``: ids signed,
    the body size unsigned, as Java reads them."""
    if len(data) - offset < HEADER_SIZE:
        raise DecodeError(f"a frame header needs {HEADER_SIZE} bytes but only "
                          f"{max(len(data) - offset, 0)} remain", offset=offset, format="zeze")
    module_id, protocol_id, size = _HEADER.unpack_from(data, offset)
    return module_id, protocol_id, size


def encode_raw_frame(module_id: int, protocol_id: int,
                     body: bytes | bytearray | memoryview) -> bytes:
    """A frame of ``body`` under the given ids (signed 32-bit ints)."""
    for what, v in (("module id", module_id), ("protocol id", protocol_id)):
        if v not in _INT32:
            raise EncodeError(f"the {what} {v} does not fit a signed 32-bit int", format="zeze")
    if len(body) > 0xFFFFFFFF:
        raise EncodeError(f"a frame body of {len(body)} bytes does not fit the 32-bit size",
                          format="zeze")
    return _HEADER.pack(module_id, protocol_id, len(body)) + body


def decode_frame(schema: ZezeSchema, data: bytes | bytearray | memoryview, *,
                 max_expansion: float | None = MAX_EXPANSION,
                 max_depth: int = MAX_DEPTH) -> Frame:
    """Decode ``data``, which must hold exactly one frame (:class:`FrameDecoder` splits a
    stream); see :meth:`RawFrame.decode`."""
    module_id, protocol_id, size = frame_header(data)
    if len(data) - HEADER_SIZE != size:
        more = len(data) - HEADER_SIZE - size
        raise DecodeError(
            f"the frame's header announces {size} body bytes but {len(data) - HEADER_SIZE} "
            f"follow{' (use FrameDecoder for a stream)' * (more > 0)}",
            offset=8, format="zeze")
    return RawFrame(module_id, protocol_id, bytes(data[HEADER_SIZE:])).decode(
        schema, max_expansion=max_expansion, max_depth=max_depth)


def encode_frame(schema: ZezeSchema, protocol: str, value: Any, *, family: str | None = None,
                 result_code: int = 0, session_id: int | None = None,
                 max_depth: int = MAX_DEPTH) -> bytes:
    """The frame Java writes for ``value`` sent as ``protocol`` (full or short name).

    ``family`` defaults to ``"protocol"`` for a protocol and ``"request"`` for an rpc; an rpc
    frame needs a ``session_id``. ``value`` is the argument bean, or the rpc's result for a
    response. Raises :class:`~gameserde.errors.UnknownNameError` (a ``KeyError``) for a name
    the schema lacks and :class:`EncodeError` for a family or session id that does not fit
    the protocol, or a bad value (whose paths start ``$.value``).
    """
    proto = schema.protocol(protocol)
    is_rpc = proto.kind == "rpc"
    family = family or ("request" if is_rpc else "protocol")
    if not isinstance(family, str) or family not in _FAMILIES or (
            (family == "protocol") == is_rpc):
        raise EncodeError(f"{proto.kind} {proto.name} cannot be sent as a {shown(family)} "
                          "frame", format="zeze")
    if is_rpc != (session_id is not None):
        raise EncodeError(f"rpc {proto.name} needs a session id" if is_rpc else
                          f"protocol {proto.name} takes no session id", format="zeze")
    for what, v in (("result code", result_code), ("session id", session_id)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)
                              or not -(1 << 63) <= v < 1 << 63):
            raise EncodeError(f"the {what} must be a signed 64-bit integer, not {shown(v)}",
                              format="zeze")
    w = Writer()
    if result_code:
        w.write_uint(_FAMILIES[family] | _BIT_RESULT_CODE)
        w.write_long(result_code)
    else:
        w.write_uint(_FAMILIES[family])
    if session_id is not None:
        w.write_long(session_id)
    try:
        write_bean(schema, proto.result if family == "response" else proto.argument, value, w,
                   max_depth=max_depth)
    except EncodeError as e:
        e.add_parent(".value")
        raise
    return encode_raw_frame(proto.module_id, proto.id, w.buf)


class FrameDecoder:
    """Splits a byte stream into frames: :meth:`feed` it chunks of any size.

    A frame whose header announces more than ``max_frame_size`` body bytes is refused as soon
    as the header arrives, unless the whole frame came at once (as in Java, which checks only
    while waiting for the rest), so the decoder never holds more than ``max_frame_size + 12``
    bytes plus one chunk. After a :class:`DecodeError` the stream cannot be resynchronised:
    drop the decoder (frames the same chunk completed before the refused one are dropped
    with it).
    """

    def __init__(self, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        if max_frame_size < 0:
            raise ValueError(f"max_frame_size must not be negative, not {max_frame_size}")
        self.max_frame_size = max_frame_size
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0]

    @property
    def pending(self) -> int:
        """How many bytes of an incomplete frame are held, waiting for the rest."""
        return len(self._buf)

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[RawFrame]:
        """The frames that ``chunk`` completes, in stream order (perhaps none)."""
        buf = self._buf
        buf += chunk
        frames = []
        pos = 0
        while len(buf) - pos >= HEADER_SIZE:
            module_id, protocol_id, size = _HEADER.unpack_from(buf, pos)
            end = pos + HEADER_SIZE + size
            if end > len(buf):
                if size > self.max_frame_size:
                    raise DecodeError(
                        f"the frame of module {module_id}, protocol {protocol_id} announces "
                        f"{size} body bytes, more than the limit of {self.max_frame_size}",
                        offset=self._offset + pos + 8, format="zeze")
                break
            frames.append(RawFrame(module_id, protocol_id, bytes(buf[pos + HEADER_SIZE:end])))
            pos = end
        del buf[:pos]
        self._offset += pos
        return frames
