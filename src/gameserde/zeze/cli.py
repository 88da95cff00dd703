"""CLI glue for ``gameserde VERB zeze``: beans of a solution XML schema as JSON."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path
from typing import Any

from gameserde import _expansion
from gameserde.cli import CommandError
from gameserde.errors import DecodeError, SchemaError, path_key
from gameserde.zeze import codec
from gameserde.zeze.bytebuffer import Reader
from gameserde.zeze.frames import (
    HEADER_SIZE,
    Frame,
    FrameDecoder,
    RawFrame,
    encode_frame,
    frame_header,
)
from gameserde.zeze.jsonview import from_jsonable, to_jsonable
from gameserde.zeze.names import protocol_type_id
from gameserde.zeze.schema import ZezeSchema, load_schema

VERBS = ("decode", "encode", "verify", "inspect")
JSON_VALUES = True
"""decode returns JSON values; encode receives the parsed JSON document."""

EPILOG = """The JSON is gameserde's Zeze form (docs/zeze.md): a bean is an object of its
fields, binary is base64, maps with text-like keys are objects, dynamic beans are
{"bean": NAME, "typeId": N, "value": {...}}. Encoding writes the bytes Zeze's Java runtime
writes; decoding reads what it reads, with its conversions and its errors.

With --frame the input is a stream of protocol and rpc frames (module id, protocol id, size,
body); each decodes by its type id to {"protocol", "family", "resultCode", "sessionId",
"value"} (a JSON array of them), and encode takes such an array (or one object).

examples:
  gameserde decode zeze --schema solution.xml --bean BRole role.bin
  gameserde encode zeze --schema solution.xml --bean BRole role.json -o role.bin
  gameserde verify zeze --schema solution.xml --bean game.role.BRole role.bin
  gameserde decode zeze --schema solution.xml --frame capture.bin
  gameserde inspect zeze role.bin                       # no schema: field ids and wire types
  gameserde inspect zeze --schema solution.xml --bean BRole role.bin"""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    optional = verb == "inspect"
    parser.add_argument("--schema", "-s", required=not optional, metavar="SOLUTION.xml",
                        help="the solution XML (its <import>s are read too)"
                             + ("; without it the map shows field ids and wire types"
                                if optional else ""))
    parser.add_argument("--bean", "-b", metavar="NAME",
                        help="the bean: its full name (solution.module.Bean) or any dotted "
                             "tail naming one bean (Bean, module.Bean); needed with --schema "
                             "unless --frame is given")
    parser.add_argument("--frame", action="store_true",
                        help="the input is a stream of whole protocol and rpc frames; each "
                             "body is decoded as the schema's protocol with the frame's type "
                             "id")
    parser.add_argument("--max-depth", type=_depth, default=codec.MAX_DEPTH, metavar="N",
                        help="refuse beans and containers nested deeper than N "
                             f"(default {codec.MAX_DEPTH}; Java has no limit)")
    if verb != "encode":
        _expansion.add_option(parser, codec.MAX_EXPANSION,
                              "the default values of absent fields that decoding builds")


def _depth(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = -1
    if not 0 <= value <= 100_000:
        raise argparse.ArgumentTypeError(f"not a depth from 0 to 100000: {text}")
    return value


def _schema(args: argparse.Namespace) -> ZezeSchema:
    """The schema ``--schema`` names."""
    path = Path(args.schema)
    try:
        with path.open("rb"):
            pass
    except OSError as e:
        raise CommandError(f"{args.schema}: {e.strerror or e}", 2) from None
    try:
        return load_schema(path)
    except SchemaError as e:
        raise CommandError(str(e), 1) from None


def _bean(args: argparse.Namespace, schema: ZezeSchema) -> str:
    """The full name of ``--bean``."""
    if args.bean is None:
        raise CommandError(f"{args.schema}: name the bean with --bean (or give --frame)", 2)
    try:
        return schema.bean(args.bean).name
    except KeyError as e:
        tails = [name.rsplit(".", 1)[-1] for name in schema.beans]
        close = difflib.get_close_matches(args.bean.rsplit(".", 1)[-1], tails, n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise CommandError(f"{args.schema}: --bean {args.bean}: {e.args[0]}{hint}",
                           2) from None


def _frames(data: bytes) -> list[RawFrame]:
    decoder = FrameDecoder(max_frame_size=len(data))
    frames = decoder.feed(data)
    if decoder.pending:
        raise DecodeError(f"the last frame is cut short: {decoder.pending} bytes of it remain",
                          offset=len(data) - decoder.pending, format="zeze")
    return frames


def _frame_json(schema: ZezeSchema, frame: Frame, depth: int) -> dict[str, Any]:
    proto = schema.protocol(frame.name)
    bean = proto.result if frame.family == "response" else proto.argument
    out: dict[str, Any] = {"protocol": frame.name, "moduleId": frame.module_id,
                           "protocolId": frame.protocol_id, "family": frame.family,
                           "resultCode": frame.result_code}
    if frame.session_id is not None:
        out["sessionId"] = frame.session_id
    out["value"] = {} if bean is None else to_jsonable(schema, bean, frame.value,
                                                       max_depth=depth)
    return out


def decode(args: argparse.Namespace, data: bytes) -> Any:
    schema = _schema(args)
    if args.frame:
        return [_frame_json(schema, raw.decode(schema, max_expansion=args.max_expansion),
                            args.max_depth)
                for raw in _frames(data)]
    bean = _bean(args, schema)
    value = codec.decode(schema, bean, data, max_depth=args.max_depth, classes=False,
                         max_expansion=args.max_expansion)
    return to_jsonable(schema, bean, value, max_depth=args.max_depth)


def encode(args: argparse.Namespace, doc: Any) -> bytes:
    schema = _schema(args)
    if args.frame:
        items = doc if isinstance(doc, list) else [doc]
        return b"".join(_encode_frame(schema, item, args.max_depth, i if items is doc else None)
                        for i, item in enumerate(items))
    bean = _bean(args, schema)
    value = from_jsonable(schema, bean, doc, max_depth=args.max_depth)
    return codec.encode(schema, bean, value, max_depth=args.max_depth)


def _encode_frame(schema: ZezeSchema, doc: Any, depth: int, index: int | None) -> bytes:
    try:
        if not isinstance(doc, dict) or not isinstance(doc.get("protocol"), str):
            raise DecodeError('a frame is an object with "protocol" (its name), "family", '
                              '"resultCode", "sessionId" (rpcs) and "value"', format="json")
        try:
            proto = schema.protocol(doc["protocol"])
        except KeyError as e:
            raise DecodeError(str(e.args[0]), format="json") from None
        family = doc.get("family")
        bean = proto.result if family == "response" else proto.argument
        try:
            value = {} if bean is None else from_jsonable(schema, bean, doc.get("value", {}),
                                                          max_depth=depth)
        except DecodeError as e:
            e.add_parent(path_key("value"))
            raise
        return encode_frame(schema, proto.name, value, family=family,
                            result_code=doc.get("resultCode", 0),
                            session_id=doc.get("sessionId"))
    except DecodeError as e:
        if index is not None:
            e.add_parent(path_key(index))
        raise


def verify(args: argparse.Namespace, data: bytes) -> str:
    schema = _schema(args)
    if args.frame:
        frames = _frames(data)
        for raw in frames:
            raw.decode(schema, max_expansion=args.max_expansion)
        return f"ok: {len(frames)} sound frame{'s' * (len(frames) != 1)} of {len(data)} bytes"
    bean = _bean(args, schema)
    codec.decode(schema, bean, data, max_depth=args.max_depth, classes=False,
                 max_expansion=args.max_expansion)
    return f"ok: a sound {bean} bean of {len(data)} bytes"


def inspect(args: argparse.Namespace, data: bytes) -> tuple[str, str | None]:
    """The byte map (with field names when ``--schema`` is given), and the reason the data
    does not decode (None when it does)."""
    from gameserde.zeze.generic import decode_generic_bean
    from gameserde.zeze.inspect import regions, render

    schema = _schema(args) if args.schema is not None else None
    if args.frame:
        return _inspect_frames(schema, data, args.max_expansion)
    bean = _bean(args, schema) if schema is not None else None
    error = None
    try:
        if schema is None:
            decode_generic_bean(data)
        else:
            codec.decode(schema, bean, data, max_depth=args.max_depth, classes=False,
                         max_expansion=args.max_expansion)
    except DecodeError as e:
        error = str(e)
    return render(data, regions(data, schema=schema, bean=bean)), error


_FAMILY_NAMES = {0: "rpc response", 1: "rpc request", 2: "protocol"}


def _inspect_frames(schema: ZezeSchema | None, data: bytes,
                    max_expansion: float | None) -> tuple[str, str | None]:
    """One block per frame: its header, its family, result code and session id, and the
    byte map of its bean (offsets in the whole input)."""
    from gameserde.zeze.inspect import regions, render

    blocks: list[str] = []
    error: str | None = None
    pos = 0
    while pos < len(data):
        try:
            module_id, protocol_id, size = frame_header(data, pos)
        except DecodeError as e:
            blocks.append(f"0x{pos:08x}: {len(data) - pos} trailing bytes: no frame header")
            error = error or str(e)
            break
        proto = (schema.protocol_by_type_id(protocol_type_id(module_id, protocol_id))
                 if schema is not None else None)
        name = proto.name if proto is not None else (
            "a protocol the schema lacks" if schema is not None else "no schema")
        start, end = pos + HEADER_SIZE, min(pos + HEADER_SIZE + size, len(data))
        blocks.append(f"frame at 0x{pos:08x}: module {module_id}, protocol {protocol_id} "
                      f"({name}), body of {size} bytes")
        r = Reader(data, start, end)
        family = -1
        try:
            family = r.read_uint()
            parts = [_FAMILY_NAMES.get(family & 0x1F, f"family class {family & 0x1F}")]
            if family & 0x20:
                parts.append(f"result code {r.read_long()}")
            if family & 0x1F != 2:
                parts.append(f"session id {r.read_long()}")
            blocks.append("  " + ", ".join(parts))
        except DecodeError as e:
            error = error or str(e)
        bean = None
        if proto is not None:
            bean = proto.result if family & 0x1F == 0 else proto.argument
        body = data[:end]
        blocks.append(render(body, regions(body, schema=schema if bean else None, bean=bean,
                                           offset=r.pos)))
        if error is None and schema is not None:
            try:
                RawFrame(module_id, protocol_id, data[start:end]).decode(
                    schema, max_expansion=max_expansion)
            except DecodeError as e:
                e.offset = None if e.offset is None else e.offset + pos
                error = str(e)
        if end - start < size:
            error = error or (f"zeze decode error at byte {pos + 8}: the frame announces "
                              f"{size} body bytes but only {end - start} follow")
        pos = end
    return "\n".join(blocks), error
