"""CLI glue for ``gameserde VERB godot``."""

from __future__ import annotations

import argparse
import base64
import textwrap
from typing import Any, Literal

from gameserde.errors import DecodeError
from gameserde.godot import framing
from gameserde.godot.decoder import decode_prefix
from gameserde.godot.encoder import encode as encode_value
from gameserde.godot.inspect import regions, render
from gameserde.godot.jsonview import from_json, needs_full_objects, to_json
from gameserde.godot.profiles import MAX_DEPTH, MAX_DEPTH_LIMIT, PROFILES, check_max_depth

VERBS = ("decode", "encode", "inspect")
JSON_VALUES = True
"""decode returns JSON values for the CLI to write; encode receives parsed JSON."""

FRAMINGS = {
    "raw": "one Variant, as var_to_bytes makes it (trailing bytes ignored)",
    "store_var": "FileAccess.store_var / StreamPeer.put_var records: 4-byte length + Variant, "
                 "any number of them (JSON: an array with one element per record)",
    "packet_stream": "PacketPeerStream packets: little-endian 4-byte length + Variant, at most "
                     "65532 bytes each (JSON: an array with one element per packet)",
    "base64": "Marshalls.variant_to_base64 text",
}

EPILOG = """framings:
""" + "\n".join(textwrap.fill(v, 88, initial_indent=f"  {k:<14} ", subsequent_indent=" " * 17)
               for k, v in FRAMINGS.items()) + """

profiles:
  godot4  Godot 4.4+ (default): typed containers, StringName, PackedVector4Array, ...
  godot3  Godot 3.1+: 3.x type ids and pool arrays
  docs    the type table of the published docs page, which matches neither engine

JSON follows Godot 4.4's JSON.from_native convention ("i:1", "f:1.5", "s:text",
{"type": "Vector3", "args": [...]}), extended so that decode then encode gives back
identical bytes. Full Objects are shown as {"type": class, "props": [...]} and are
never instantiated."""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--profile", choices=list(PROFILES), default="godot4",
                        help="type numbering and engine generation (default: godot4)")
    parser.add_argument("--framing", choices=list(FRAMINGS), default="raw",
                        help="how the Variants are framed (default: raw)")
    parser.add_argument("--big-endian", action="store_true",
                        help="store_var length prefixes are big-endian (FileAccess.big_endian, "
                             "Godot 3 endian_swap)")
    parser.add_argument("--max-depth", type=int, default=MAX_DEPTH, metavar="N",
                        help=f"deepest nesting accepted (default: {MAX_DEPTH}, as the engine; "
                             f"at most {MAX_DEPTH_LIMIT})")
    if verb == "encode":
        parser.add_argument("--full-objects", choices=["auto", "yes", "no"], default="auto",
                            help="write Objects in full and keep class names of typed "
                                 "containers (auto: when the JSON holds any)")
        parser.add_argument("--double-precision", action="store_true",
                            help="write math types as a real_t=double Godot 4 build does")


def _depth(args: argparse.Namespace) -> int:
    try:
        check_max_depth(args.max_depth)
    except ValueError as e:
        raise DecodeError(str(e), format="godot") from None
    return int(args.max_depth)


def decode(args: argparse.Namespace, data: bytes) -> Any:
    depth = _depth(args)
    opts: dict[str, Any] = {"profile": args.profile, "allow_objects": True, "max_depth": depth}
    if args.framing == "raw":
        return to_json(decode_prefix(data, **opts)[0], max_depth=depth)
    if args.framing == "base64":
        return to_json(framing.base64_to_variant(_text(data), **opts), max_depth=depth)
    if args.framing == "store_var":
        values = framing.iter_vars(data, big_endian=args.big_endian, **opts)
    else:
        values = framing.iter_packets(data, **opts)
    return [to_json(v, max_depth=depth) for v in values]


def encode(args: argparse.Namespace, doc: Any) -> bytes:
    depth = _depth(args)
    if args.framing in ("store_var", "packet_stream"):
        if not isinstance(doc, list):
            raise DecodeError(f"with --framing {args.framing} the JSON must be an array of "
                              "records", format="godot-json")
        values = [from_json(v, f"$[{i}]", max_depth=depth) for i, v in enumerate(doc)]
    else:
        values = [from_json(doc, max_depth=depth)]
    full = args.full_objects == "yes" or (
        args.full_objects == "auto" and any(needs_full_objects(v) for v in values))
    opts = {"profile": args.profile, "full_objects": full,
            "double_precision": args.double_precision, "max_depth": depth}
    if args.framing == "store_var":
        return b"".join(framing.store_var(v, big_endian=args.big_endian, **opts)
                        for v in values)
    if args.framing == "packet_stream":
        return b"".join(framing.put_packet(v, **opts) for v in values)
    if args.framing == "base64":
        return (framing.variant_to_base64(values[0], **opts) + "\n").encode("ascii")
    return encode_value(values[0], **opts)


def inspect(args: argparse.Namespace, data: bytes) -> str:
    opts: dict[str, Any] = {"profile": args.profile, "max_depth": _depth(args)}
    if args.framing == "base64":
        try:
            data = base64.b64decode(_text(data).strip(), validate=True)
        except ValueError as e:
            raise DecodeError(f"not valid base64 ({e})", format="godot") from None
    if args.framing in ("raw", "base64"):
        return render(data, regions(data, **opts))
    blocks = []
    pos, index = 0, 0
    order: Literal["big", "little"] = "big" if args.big_endian else "little"
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], order)
        blocks.append(f"record {index} at 0x{pos:08x}: length prefix {size}")
        body = data[pos + 4:pos + 4 + size]
        rows = regions(body, **opts)
        text = render(body, rows)
        blocks.append("\n".join(_shift(line, pos + 4) for line in text.split("\n")))
        pos += 4 + size
        index += 1
    if pos < len(data):
        blocks.append(f"0x{pos:08x}: {len(data) - pos} trailing bytes that do not form a record")
    return "\n".join(blocks)


def _shift(line: str, base: int) -> str:
    if line.startswith("0x"):
        return f"0x{int(line[2:10], 16) + base:08x}" + line[10:]
    return line


def _text(data: bytes) -> str:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as e:
        raise DecodeError("base64 text must be ASCII", offset=e.start, format="godot") from None
