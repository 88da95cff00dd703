"""Zeze on the codec interface (:mod:`gameserde.codecs`): :class:`ZezeCodec` and the option
declarations of ``gameserde VERB zeze`` (:data:`FORMAT`).

A codec reads one bean of a solution (``type``), or with ``frame=True`` a stream of the
solution's protocol and rpc frames; without a solution it can only ``inspect``, showing
field ids and wire types. ``convert`` writes what Zeze's Java runtime writes after a load
with the written side's bean (``--to-schema``, ``--to-type``): schema evolution, byte for
byte; what that load converts or drops is reported as a
:class:`~gameserde.errors.GameserdeWarning`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gameserde._bytemap import Path as MapPath
from gameserde._bytemap import Region
from gameserde._expansion import check_factor
from gameserde.codecs import Buffer, ByteMap, Codec, Row
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeWarning,
    UnknownNameError,
    UsageError,
)
from gameserde.formats import (
    FormatInfo,
    Option,
    check_max_depth,
    check_options,
    max_depth_option,
    max_expansion_option,
    schema_option,
    type_option,
)
from gameserde.zeze import bytebuffer, codec, jsonview
from gameserde.zeze._plan import BeanPlan, TypePlan, plans_of
from gameserde.zeze._show import map_value_step, shown
from gameserde.zeze.bytebuffer import Reader
from gameserde.zeze.frames import (
    HEADER_SIZE,
    Frame,
    decode_body,
    encode_frame,
    frame_header,
    protocol_of,
    warn_ignored,
)
from gameserde.zeze.names import protocol_type_id
from gameserde.zeze.schema import Protocol, ZezeSchema, load_schema
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic

__all__ = ["FORMAT", "ZezeCodec", "make"]

DEPTH_LIMIT = 100_000
"""The largest ``max_depth`` accepted."""

CHANGES_SHOWN = 20
"""How many changed values ``convert`` names, one warning each, before counting the rest."""

_FAMILY_NAMES = {0: "rpc response", 1: "rpc request", 2: "protocol"}
_FRAME_KEYS = frozenset(("protocol", "moduleId", "protocolId", "family", "resultCode",
                         "sessionId", "value"))


class ZezeCodec(Codec):
    """The codec of one bean of a solution, or of a stream of its frames; build one with
    :meth:`ZezeSchema.codec` or ``gameserde.codec("zeze", schema=..., type=...)``.

    Values are what :func:`gameserde.zeze.decode` gives (a ``dict``, or the bean's dataclass
    for schemas made from dataclasses); with ``frame=True``, a list of
    :class:`~gameserde.zeze.frames.Frame`. JSON is :mod:`gameserde.zeze.jsonview`'s; a frame
    is ``{"protocol", "moduleId", "protocolId", "family", "resultCode", "sessionId" (rpcs),
    "value"}``, and :meth:`from_json` takes an array of them (or one object).
    """

    format = "zeze"

    def __init__(self, options: Mapping[str, Any], schema: ZezeSchema | None,
                 bean: str | None, *, frame: bool, max_depth: int,
                 max_expansion: float | None) -> None:
        super().__init__(options)
        self.schema = schema
        """The solution (None: only :meth:`inspect` works)."""
        self.bean = bean
        """The bean's full name (None with ``frame``)."""
        self.frame = frame
        self.max_depth = max_depth
        self.max_expansion = max_expansion

    # -- the codec interface -----------------------------------------------------------

    def decode(self, data: Buffer) -> Any:
        """The bean ``data`` holds (exactly), or with ``frame`` its list of frames."""
        return self._read(data, classes=True)

    def encode(self, value: Any) -> bytes:
        """The bytes Java writes for the bean ``value``, or with ``frame`` for the list of
        frames ``value``."""
        schema = self._need("encode")
        if not self.frame:
            return codec.bean_codec(schema, self.bean, max_depth=self.max_depth).encode(value)
        if not isinstance(value, list | tuple):
            raise EncodeError(f"frames are a list of gameserde.zeze.frames.Frame values, not "
                              f"{type(value).__name__}", format="zeze")
        return b"".join(self._encode_frame(schema, i, f) for i, f in enumerate(value))

    def to_jsonable(self, value: Any) -> Any:
        schema = self._need("decode")
        if not self.frame:
            assert self.bean is not None
            return jsonview.to_jsonable(schema, self.bean, value, max_depth=self.max_depth)
        out = []
        for i, f in enumerate(value):
            try:
                out.append(self._frame_json(schema, f))
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise
        return out

    def from_jsonable(self, obj: Any) -> Any:
        schema = self._need("encode")
        if not self.frame:
            assert self.bean is not None
            return jsonview.from_jsonable(schema, self.bean, obj, max_depth=self.max_depth)
        items = obj if isinstance(obj, list) else [obj]
        frames = []
        for i, doc in enumerate(items):
            try:
                frames.append(self._frame_in(schema, doc))
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise
        return frames

    def to_row(self, value: Any) -> Row:
        """The bean ``value`` as a row of the bean's record, or with ``frame`` the list of
        frames as a ``zeze.frames`` record (see :mod:`gameserde.zeze.rows`)."""
        from gameserde.zeze.rows import rows_of

        rows = rows_of(self._need("decode"))
        if self.frame:
            return rows.frames(value)
        assert self.bean is not None
        return rows.bean(self.bean, value)

    def to_json(self, data: Buffer, *, pretty: bool = False) -> str:
        from gameserde._jsonio import dumps

        return dumps(self.to_jsonable(self._read(data)), pretty=pretty).decode("utf-8")

    def from_json(self, text: str | Buffer) -> bytes:
        if not isinstance(text, str | bytes | bytearray | memoryview):
            raise UsageError(f"zeze from_json reads JSON text (str or bytes), not "
                             f"{type(text).__name__}")
        return super().from_json(text)

    def verify(self, data: Buffer) -> str:
        schema = self._need("verify")
        if not self.frame:
            return codec.verify(schema, self.bean, _buffer(data, "verify"),
                                max_depth=self.max_depth,
                                max_expansion=self.max_expansion)
        count = len(self._read(data))
        return f"ok: {count} sound frame{'s' * (count != 1)} of {len(data)} bytes"

    def inspect(self, data: Buffer) -> ByteMap:
        """The byte map: with a solution, fields by name (``$.items[0].count``); without,
        by id and wire type (``$.#3[0].#2``). Its error is the one :meth:`decode` raises
        (without a solution, Java's ``GenericBean``'s)."""
        raw = _bytes(data, "inspect")
        if self.frame:
            return self._inspect_frames(raw)
        from gameserde.zeze.generic import decode_generic_bean
        from gameserde.zeze.inspect import regions

        rows = regions(raw, schema=self.schema, bean=self.bean)
        error = None
        try:
            if self.schema is None:
                decode_generic_bean(raw)
            else:
                self._read(raw)
        except DecodeError as e:
            error = e
        return ByteMap(self.format, raw, rows, error)

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data``, read with this codec's solution and bean, written as Zeze's Java runtime
        writes it after a load with ``to``'s (its solution and bean: schema evolution).

        The load is ``to``'s decode of ``data`` (Java's conversions between the wire and
        the declared types; unknown fields kept where Java keeps them); each value that
        the written data holds otherwise than the input (both read with this codec's
        solution) is named in a :class:`~gameserde.errors.GameserdeWarning`. Frames stay
        frames and a bean a bean."""
        if not isinstance(to, ZezeCodec):
            return super().convert(data, to)
        if to.frame != self.frame:
            raise UsageError("convert writes the form it reads: --frame applies to both sides "
                             "(a stream of frames is written as frames, a bean as a bean)")
        source = self._need("convert")
        to._need("convert")
        with warnings.catch_warnings():  # the written side's load reports what it skips
            warnings.simplefilter("ignore", GameserdeWarning)
            before = self._read(data)
        out = to.encode(to._read(data))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GameserdeWarning)
                after = self._read(out)
        except DecodeError as e:
            warnings.warn(f"the written data does not read back with the input's solution "
                          f"({e}), so what the conversion changes is not checked",
                          GameserdeWarning, stacklevel=2)
            return out
        changes = self._changes(source, before, after)
        for path, old, new in _first(changes, CHANGES_SHOWN):
            warnings.warn(f"{path}: {shown(old)} is written as {shown(new)}: the written "
                          "bean converts or drops it, as Java's decode does", GameserdeWarning,
                          stacklevel=2)
        rest = sum(1 for _ in changes)
        if rest:
            warnings.warn(f"{rest} more value{'s' * (rest != 1)} of the input "
                          f"{'are' if rest != 1 else 'is'} written otherwise",
                          GameserdeWarning, stacklevel=2)
        return out

    # -- reading ------------------------------------------------------------------------

    def _need(self, verb: str) -> ZezeSchema:
        if self.schema is None:
            raise UsageError(f"zeze {verb} needs the solution: give --schema (only inspect "
                             "reads without one, showing field ids and wire types)")
        return self.schema

    def _read(self, data: Buffer, *, classes: bool = False) -> Any:
        """The bean (dicts unless ``classes``) or the frames of ``data``."""
        schema = self._need("decode")
        if not self.frame:
            return codec.bean_codec(schema, self.bean, max_depth=self.max_depth,
                                    classes=classes,
                                    max_expansion=self.max_expansion).decode(
                                        _buffer(data, "decode"))
        raw = _bytes(data, "decode")
        return [self._read_frame(schema, raw, *span, classes=classes) for span in _spans(raw)]

    def _read_frame(self, schema: ZezeSchema, data: bytes, index: int, pos: int, end: int, *,
                    classes: bool = False) -> Frame:
        """Frame ``index``, from ``pos`` to ``end`` of ``data`` (offsets and paths in the
        whole stream)."""
        module_id, protocol_id, _ = frame_header(data, pos)
        r = Reader(data, pos + HEADER_SIZE, end)
        try:
            proto = protocol_of(schema, module_id, protocol_id, pos)
            frame = decode_body(schema, proto, r, max_expansion=self.max_expansion,
                                max_depth=self.max_depth, classes=classes)
        except DecodeError as e:
            e.add_parent(f"[{index}]")
            raise
        if r.pos < end:
            warn_ignored(end - r.pos, r.pos)
        return frame

    # -- frames as JSON -----------------------------------------------------------------

    def _frame_json(self, schema: ZezeSchema, frame: Frame) -> dict[str, Any]:
        proto = schema.protocol(frame.name)
        bean = proto.result if frame.family == "response" else proto.argument
        out: dict[str, Any] = {"protocol": frame.name, "moduleId": frame.module_id,
                               "protocolId": frame.protocol_id, "family": frame.family,
                               "resultCode": frame.result_code}
        if frame.session_id is not None:
            out["sessionId"] = frame.session_id
        try:
            out["value"] = {} if bean is None else jsonview.to_jsonable(
                schema, bean, frame.value, max_depth=self.max_depth)
        except EncodeError as e:
            e.add_parent(".value")
            raise
        return out

    def _frame_in(self, schema: ZezeSchema, doc: Any) -> Frame:
        if not isinstance(doc, dict) or not isinstance(doc.get("protocol"), str):
            raise EncodeError('a frame is an object with "protocol" (its name), "family", '
                              '"resultCode", "sessionId" (rpcs) and "value", not '
                              f"{shown(doc)}", format="zeze")
        extra = sorted(set(doc) - _FRAME_KEYS)
        if extra:
            raise EncodeError(f"a frame has no key {shown(extra[0])}; its keys are "
                              f"{', '.join(sorted(_FRAME_KEYS))}", format="zeze")
        proto = _protocol(schema, doc["protocol"])
        for key, ours in (("moduleId", proto.module_id), ("protocolId", proto.id)):
            if key in doc and doc[key] != ours:
                raise EncodeError(f"{proto.name} has the {key} {ours}, not "
                                  f"{shown(doc[key])}", path=f"$.{key}", format="zeze")
        family = doc.get("family", "request" if proto.kind == "rpc" else "protocol")
        if family not in ("protocol", "request", "response"):
            raise EncodeError(f'a family is "protocol", "request" or "response", not '
                              f"{shown(family)}", path="$.family", format="zeze")
        bean = proto.result if family == "response" else proto.argument
        given = doc.get("value", {})
        try:
            if bean is None:
                if given != {}:
                    raise EncodeError(f"the {family} of {proto.name} is the EmptyBean, which "
                                      f"holds nothing, not {shown(given)}", format="zeze")
                value: Any = {}
            else:
                value = jsonview.from_jsonable(schema, bean, given, max_depth=self.max_depth)
        except EncodeError as e:
            e.add_parent(".value")
            raise
        return Frame(proto.name, proto.module_id, proto.id, family, value,
                     doc.get("resultCode", 0), doc.get("sessionId"))

    def _encode_frame(self, schema: ZezeSchema, index: int, frame: Any) -> bytes:
        try:
            if not isinstance(frame, Frame):
                raise EncodeError(f"a frame is a gameserde.zeze.frames.Frame, not "
                                  f"{type(frame).__name__}", format="zeze")
            proto = _protocol(schema, frame.name)
            return encode_frame(schema, proto.name, frame.value, family=frame.family,
                                result_code=frame.result_code, session_id=frame.session_id,
                                max_depth=self.max_depth)
        except EncodeError as e:
            e.add_parent(f"[{index}]")
            raise

    # -- inspect ------------------------------------------------------------------------

    def _inspect_frames(self, data: bytes) -> ByteMap:
        from gameserde.zeze.inspect import bean_map

        rows: list[Region] = []
        spans = _spans(data)
        try:
            for index, pos, end in spans:
                here = MapPath(MapPath(None, "$"), f"[{index}]")
                error, bean, start = self._frame_header_rows(data, pos, end, here, rows)
                if error is None:
                    body, error = bean_map(data[:end], schema=self.schema if bean else None,
                                           bean=bean, offset=start,
                                           root=MapPath(here, ".value"))
                    rows += body
                if self.schema is not None:
                    self._read_frame(self.schema, data, index, pos, end)
                elif error is not None:
                    raise error
        except DecodeError as e:
            if e.offset is not None and not any(r.offset + r.size > e.offset for r in rows):
                rows.append(Region(e.offset, len(data) - e.offset, MapPath(None, e.path),
                                   "ERROR", e.message))
            return ByteMap(self.format, data, rows, e)
        return ByteMap(self.format, data, rows)

    def _frame_header_rows(self, data: bytes, pos: int, end: int, here: MapPath,
                           rows: list[Region]) -> tuple[DecodeError | None, str | None, int]:
        """Append the rows of a frame's header, family, result code and session id; return
        the error reading them, the bean of the body and where the bean starts."""
        module_id, protocol_id, size = frame_header(data, pos)
        proto = None
        if self.schema is not None:
            proto = self.schema.protocol_by_type_id(protocol_type_id(module_id, protocol_id))
        name = proto.name if proto is not None else (
            "a protocol the schema lacks" if self.schema is not None else "no schema")
        rows.append(Region(pos, HEADER_SIZE, here, "frame header",
                           f"module {module_id}, protocol {protocol_id} ({name}), body of "
                           f"{size} bytes"))
        r = Reader(data, pos + HEADER_SIZE, end)
        where = MapPath(here, ".family")
        try:
            family = r.read_uint()
            rows.append(Region(pos + HEADER_SIZE, r.pos - pos - HEADER_SIZE, where, "family",
                               _FAMILY_NAMES.get(family & 0x1F, f"family class {family & 0x1F}")
                               + (", a result code follows" if family & 0x20 else "")))
            for key, present in (("resultCode", family & 0x20),
                                 ("sessionId", family & 0x1F != 2)):
                if present:
                    at, where = r.pos, MapPath(here, f".{key}")
                    number = r.read_long()
                    rows.append(Region(at, r.pos - at, where, "long", str(number)))
        except DecodeError as e:
            e.path = str(where)
            rows.append(Region(r.pos, end - r.pos, where, "ERROR", e.message))
            return e, None, r.pos
        bean = None
        if proto is not None:
            bean = proto.result if family & 0x1F == 0 else proto.argument
        return None, bean, r.pos

    # -- convert ------------------------------------------------------------------------

    def _changes(self, schema: ZezeSchema, before: Any,
                 after: Any) -> Iterator[tuple[str, Any, Any]]:
        """The values ``after`` holds otherwise than ``before`` (both read with this codec):
        ``(path, value before, value after)``."""
        plans = plans_of(schema)
        if not self.frame:
            assert self.bean is not None
            yield from _bean_changes(plans, plans.bean(self.bean), before, after, "$")
            return
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            proto = schema.protocol(old.name)
            bean = proto.result if old.family == "response" else proto.argument
            if bean is not None:
                yield from _bean_changes(plans, plans.bean(bean), old.value, new.value,
                                         f"$[{i}].value")


def _first(items: Iterator[Any], count: int) -> Iterator[Any]:
    for _, item in zip(range(count), items, strict=False):
        yield item


def _bean_changes(plans: Any, plan: BeanPlan, a: Any, b: Any,
                  path: str) -> Iterator[tuple[str, Any, Any]]:
    for layer in plan.layers:
        for f in layer:
            yield from _value_changes(plans, f.type, a[f.name], b[f.name], f"{path}.{f.name}")
    old = {u.id: u for u in a.get(UNKNOWN_KEY, ())}
    new = {u.id: u for u in b.get(UNKNOWN_KEY, ())}
    for field_id in sorted(old.keys() | new.keys()):
        x, y = old.get(field_id), new.get(field_id)
        if x != y:
            yield (f"{path}.#{field_id}", "absent" if x is None else bytes(x.data).hex(),
                   "absent" if y is None else bytes(y.data).hex())


def _value_changes(plans: Any, t: TypePlan, a: Any, b: Any,
                   path: str) -> Iterator[tuple[str, Any, Any]]:
    if a == b:
        return
    kind = t.kind
    if kind == "bean":
        assert t.bean is not None
        yield from _bean_changes(plans, plans.bean(t.bean), a, b, path)
    elif kind == "dynamic" and isinstance(a, Dynamic) and isinstance(b, Dynamic) and (
            a.bean == b.bean and a.bean is not None):
        yield from _bean_changes(plans, plans.bean(a.bean), a.value, b.value, path)
    elif kind in ("list", "set") and len(a) == len(b):
        assert t.element is not None
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _value_changes(plans, t.element, x, y, f"{path}[{i}]")
    elif kind == "map" and list(a) == list(b):
        assert t.value is not None
        for i, key in enumerate(a):
            yield from _value_changes(plans, t.value, a[key], b[key],
                                      f"{path}{map_value_step(key, i)}")
    elif not _same_numbers(a, b):
        yield path, a, b


def _same_numbers(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are equal but for NaN (equal to itself here)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(_same_numbers(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _buffer(data: object, verb: str) -> Buffer:
    """``data``, when it is bytes-like; else a :class:`UsageError`."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise UsageError(f"zeze {verb} reads bytes (or a bytearray or memoryview), not "
                         f"{type(data).__name__}")
    return data


def _bytes(data: object, verb: str) -> bytes:
    """``data`` as ``bytes`` (a :class:`UsageError` when it is not bytes-like)."""
    return bytes(memoryview(_buffer(data, verb)).cast("B"))


def _protocol(schema: ZezeSchema, name: str) -> Protocol:
    """The protocol a frame names; a name the schema lacks is bad input, not usage."""
    try:
        return schema.protocol(name)
    except UnknownNameError as e:
        raise EncodeError(str(e), path="$.protocol", format="zeze") from None


def _spans(data: bytes) -> Iterator[tuple[int, int, int]]:
    """``(index, start, end)`` of each frame of the stream ``data``; a
    :class:`DecodeError` for a last frame cut short."""
    pos = index = 0
    while pos < len(data):
        left = len(data) - pos
        if left < HEADER_SIZE or HEADER_SIZE + frame_header(data, pos)[2] > left:
            raise DecodeError(f"the last frame is cut short: {left} byte{'s' * (left != 1)} "
                              "of it remain", offset=pos, path=f"$[{index}]", format="zeze")
        end = pos + HEADER_SIZE + frame_header(data, pos)[2]
        yield index, pos, end
        pos, index = end, index + 1


# ---------------------------------------------------------------------------------------------
# Options


def _load(source: object) -> tuple[ZezeSchema, str]:
    """The solution ``source`` names (a path or a loaded schema) and its name in messages."""
    if isinstance(source, ZezeSchema):
        return source, ""
    if not isinstance(source, str | os.PathLike):
        raise UsageError(f"schema is the path of a solution XML file or a ZezeSchema, not "
                         f"{type(source).__name__}")
    path = Path(source)
    with path.open("rb"):  # a file that cannot be read is an OSError naming it
        pass
    return load_schema(path), str(source)


def make(**options: Any) -> ZezeCodec:
    """The codec ``options`` describe (the keyword forms of the command line's options:
    ``schema``, ``type``, ``frame``, ``max_depth``, ``max_expansion``); raises
    :class:`~gameserde.errors.UsageError` for values out of range and options that cannot
    go together or would do nothing, :class:`~gameserde.errors.UnknownNameError` for a bean
    the solution lacks, :class:`~gameserde.errors.SchemaError` for a solution that does not
    load and ``OSError`` for one that cannot be read."""
    check_options(FORMAT, options)
    source, bean = options.get("schema"), options.get("type")
    frame = options.get("frame", False)
    if not isinstance(frame, bool):
        raise UsageError(f"frame must be True or False, not {shown(frame)}")
    if bean is not None and not isinstance(bean, str):
        raise UsageError(f"type is a bean's name, not {type(bean).__name__}")
    max_depth = check_max_depth(options.get("max_depth", codec.MAX_DEPTH), DEPTH_LIMIT)
    try:
        max_expansion = check_factor(options.get("max_expansion", codec.MAX_EXPANSION))
    except ValueError as e:
        raise UsageError(str(e)) from None
    if bean is not None and frame:
        raise UsageError("--type names the bean of bare data, and with --frame each frame "
                         "names its protocol: give one of them")
    if source is None:
        if bean is not None:
            raise UsageError("--type names a bean of a solution: give --schema too (inspect "
                             "without --schema shows field ids and wire types)")
        for name, flag in (("max_depth", "--max-depth"), ("max_expansion", "--max-expansion")):
            if name in options:
                raise UsageError(f"{flag} limits decoding with a solution, and without "
                                 f"--schema inspect reads as Java's GenericBean (at most "
                                 f"{bytebuffer.MAX_DEPTH} levels, no defaults built): give "
                                 f"--schema or leave {flag} out")
        return ZezeCodec(options, None, None, frame=frame, max_depth=max_depth,
                         max_expansion=max_expansion)
    schema, name = _load(source)
    where = f"{name}: " if name else ""
    full = None
    if bean is not None:
        try:
            full = schema.bean(bean).name
        except UnknownNameError as e:
            raise UnknownNameError(f"{where}--type {bean}: {e}" if name else str(e)) from None
    elif not frame:
        raise UsageError(f"{where}name the bean with --type (or give --frame for a stream of "
                         "protocol and rpc frames)")
    return ZezeCodec(options, schema, full, frame=frame, max_depth=max_depth,
                     max_expansion=max_expansion)


EPILOG = """The JSON is gameserde's Zeze form (docs/zeze.md): a bean is an object of its
fields, binary is base64, maps with text-like keys are objects, dynamic beans are
{"bean": NAME, "typeId": N, "value": {...}}. Encoding writes the bytes Zeze's Java runtime
writes; decoding reads what it reads, with its conversions and its errors.

With --frame the input is a stream of protocol and rpc frames (module id, protocol id, size,
body); each decodes by its type id to {"protocol", "moduleId", "protocolId", "family",
"resultCode", "sessionId", "value"} (a JSON array of them), and encode takes such an array.

convert writes what Java writes after loading the data with the --to-schema solution's
--to-type bean (schema evolution); each value that load converts or drops is reported.

examples:
  gameserde decode zeze --schema solution.xml --type BRole role.bin
  gameserde encode zeze --schema solution.xml --type BRole role.json -o role.bin
  gameserde verify zeze --schema solution.xml --type game.role.BRole role.bin
  gameserde convert zeze -s old.xml --type BRole --to-schema new.xml role.bin -o new.bin
  gameserde decode zeze --schema solution.xml --frame capture.bin
  gameserde inspect zeze role.bin                       # no schema: field ids and wire types
  gameserde inspect zeze --schema solution.xml --type BRole role.bin"""

FORMAT = FormatInfo(
    name="zeze",
    description="Zeze beans with a solution XML schema (Java runtime's ByteBuffer)",
    make=make,
    options=(
        dataclasses.replace(schema_option(
            "the solution XML (its <import>s are read too); inspect reads without one, "
            "showing field ids and wire types", metavar="SOLUTION.xml"), output=True,
            to_help="the solution the written data follows (default: --schema's): convert "
                    "writes what Zeze's Java runtime writes after loading the data with it"),
        dataclasses.replace(type_option(
            "the bean: its full name (solution.module.Bean) or any dotted tail naming one "
            "bean (Bean, module.Bean); needed with --schema unless --frame is given",
            aliases=("--bean",)), output=True,
            to_help="the bean the written data holds (default: --type's)"),
        Option("frame", ("--frame",),
               "the data is a stream of whole protocol and rpc frames; each body is read as "
               "the schema's protocol with the frame's type id"),
        max_depth_option(codec.MAX_DEPTH, DEPTH_LIMIT, "; Java has no limit"),
        max_expansion_option(codec.MAX_EXPANSION,
                             "the default values of absent fields that decoding builds",
                             verbs=("decode", "verify", "inspect", "convert")),
    ),
    epilog=EPILOG,
)
"""The options of ``gameserde VERB zeze`` and ``gameserde.codec("zeze", ...)``."""
