"""CLI glue for ``gameserde VERB kingsisle``: ObjectProperty streams and BINd files with a
type list, as JSON (or XML) text."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gameserde._bytemap import Path as MapPath
from gameserde._bytemap import Region
from gameserde._expansion import add_option
from gameserde.cli import CommandError
from gameserde.errors import DecodeError, SchemaError
from gameserde.kingsisle.files import BIND_FLAGS, BIND_MAGIC, read_bind, write_bind
from gameserde.kingsisle.inspect import MAP_EXPANSION, StreamMap
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import (
    ALL_FLAGS,
    INFLATED_NOTE,
    MAX_EXPANSION,
    STATEFUL_FLAGS,
    Serializer,
    trailing_inflated,
)
from gameserde.kingsisle.typelist import KiSchema, load_schema

VERBS = ("decode", "encode", "verify", "inspect")
JSON_VALUES = False
"""decode writes the format's JSON (or XML) text itself; encode reads either itself."""

EPILOG = f"""The input of decode, verify and inspect is a stream as a Serializer with these
options reads it (katsuba's defaults: shallow, flags 0, mask 7), or a BINd file (it starts
with "BINd"; deep mode and the file's own flags, whatever the options say). The JSON is
gameserde's KingsIsle form (docs/kingsisle.md): objects start with "$__type" (the class
name), std::string is text (or {{"$bytes": hex}} when it is not UTF-8), enums are integers
(option names with --enum-names), leaf structs are objects with katsuba's keys. encode reads
that JSON or the XML form (<Objects><Class Name=...>), whichever the file holds, and writes
the bytes katsuba writes (BINd files with --bind: deep, flags {BIND_FLAGS} unless --flags).
Bytes after the root object or after zlib data, which readers ignore, are not in the JSON:
decode and verify say so on standard error (one line each, with its byte offset), and fail
with --strict.

serializer flags (--flags, bits that add up):
  1   STATEFUL_FLAGS           a u32 flags word leads the stream; reading, it wins
  2   COMPACT_LENGTH_PREFIXES  7- or 31-bit lengths
  4   HUMAN_READABLE_ENUMS     enums as option names
  8   WITH_COMPRESSION         a marker byte, then zlib when it saves bytes
  16  FORBID_DELTA_ENCODE      every delta-encoded (optional) property must be present

examples:
  gameserde decode kingsisle --types types.json item.bin
  gameserde decode kingsisle --types types.json --deep --flags 9 --enum-names blob.bin
  gameserde decode kingsisle --types types.json --xml Template.xml.bin -o Template.xml
  gameserde encode kingsisle --types types.json item.json -o item.bin
  gameserde encode kingsisle --types types.json --bind Template.xml -o Template.bin
  gameserde inspect kingsisle --types types.json --deep blob.bin"""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--types", "-t", required=True, action="append", metavar="TYPES.json",
                        help="a wiztype type list (v1 or v2 JSON); repeat to merge several")
    parser.add_argument("--flags", type=_flags, default=None, metavar="N",
                        help="the serializer flags (decimal or 0x..; see below; default 0, "
                             f"{BIND_FLAGS} for --bind)")
    parser.add_argument("--mask", type=_number, default=7, metavar="N",
                        help="the property mask: a property is in the stream when its flags "
                             "have all these bits (default 7, katsuba 0.6.0's; older tools "
                             "use 0x18)")
    parser.add_argument("--deep", action="store_true",
                        help="deep mode: objects and properties carry sizes and hashes "
                             "(default: shallow)")
    parser.add_argument("--manual-compression", action="store_true",
                        help="the whole stream is a u32 size and zlib data")
    parser.add_argument("--recursion-limit", type=_number, default=127, metavar="N",
                        help="refuse objects and lists nested deeper than N (default 127, "
                             "katsuba's)")
    if verb != "encode":
        parser.add_argument("--skip-unknown-types", action="store_true",
                            help="deep mode: read objects of classes the type list lacks as "
                                 "null and skip unknown properties, instead of failing")
    if verb == "inspect":
        add_option(parser, MAP_EXPANSION, "the rows of the map or the bytes its zlib data "
                                          "inflates to")
    elif verb != "encode":
        add_option(parser, MAX_EXPANSION, "the bytes its zlib data inflates to")
    if verb in ("decode", "verify"):
        parser.add_argument("--strict", action="store_true",
                            help="fail (exit status 1) when bytes follow the root object or "
                                 "the zlib data, instead of noting them")
    if verb == "decode":
        parser.add_argument("--enum-names", action="store_true",
                            help="write enums as their option names (A|B for bit flags)")
        parser.add_argument("--xml", action="store_true",
                            help="write the XML form (<Objects><Class Name=...>) instead of "
                                 "JSON")
        parser.add_argument("--compact", action="store_true",
                            help="one-line JSON (default: indented)")
    if verb == "encode":
        parser.add_argument("--bind", action="store_true",
                            help='write a BINd file: "BINd" and a deep stream')


def _number(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a whole number >= 0: {text}")
    return value


def _flags(text: str) -> int:
    value = _number(text)
    if value & ~ALL_FLAGS:
        raise argparse.ArgumentTypeError(f"serializer flags are bits of 0x{ALL_FLAGS:x}, not "
                                         f"{text}")
    return value


def _schema(args: argparse.Namespace) -> KiSchema:
    """The type lists ``--types`` names, merged."""
    for name in args.types:
        try:
            with Path(name).open("rb"):
                pass
        except OSError as e:
            raise CommandError(f"{name}: {e.strerror or e}", 2) from None
    try:
        return load_schema(*(Path(name) for name in args.types))
    except SchemaError as e:
        raise CommandError(str(e), 1) from None


def _serializer(args: argparse.Namespace, schema: KiSchema) -> Serializer:
    """The serializer the options describe."""
    skip = getattr(args, "skip_unknown_types", False)
    if skip and not args.deep:
        raise CommandError("--skip-unknown-types needs --deep (shallow objects carry no sizes "
                           "to skip by)", 2)
    return Serializer(schema, flags=args.flags or 0, shallow=not args.deep,
                      property_mask=args.mask, manual_compression=args.manual_compression,
                      skip_unknown_types=skip, recursion_limit=args.recursion_limit,
                      max_expansion=getattr(args, "max_expansion", MAX_EXPANSION))


def _bind(args: argparse.Namespace, data: bytes) -> bool:
    """Whether ``data`` is a BINd file (and the options fit one)."""
    if data[:4] != BIND_MAGIC:
        return False
    if args.manual_compression:
        raise CommandError("--manual-compression does not apply to BINd files", 2)
    return True


def _read(args: argparse.Namespace, data: bytes) -> tuple[KiSchema, KiObject]:
    """The type list and the root object of ``data``, a stream or a BINd file."""
    schema = _schema(args)
    if not _bind(args, data):
        return schema, _serializer(args, schema).decode(data)
    return schema, read_bind(data, schema, property_mask=args.mask,
                             skip_unknown_types=args.skip_unknown_types,
                             recursion_limit=args.recursion_limit,
                             max_expansion=args.max_expansion)


def decode(args: argparse.Namespace, data: bytes) -> bytes:
    from gameserde.kingsisle.jsontext import to_json
    from gameserde.kingsisle.xmltext import to_xml

    schema, obj = _read(args, data)
    _note_trailing(args, obj, f"kept in the decoded object, not in the "
                              f"{'XML' if args.xml else 'JSON'}")
    if args.xml:
        return to_xml(obj, schema).encode("utf-8")
    text = to_json(obj, schema=schema, enum_names=args.enum_names, pretty=not args.compact)
    return text.encode("utf-8") + b"\n"


def encode(args: argparse.Namespace, data: bytes) -> bytes:
    from gameserde.kingsisle.jsontext import from_json
    from gameserde.kingsisle.xmltext import from_xml

    schema = _schema(args)
    text = data.decode("utf-8", "surrogateescape")
    obj = from_xml(text, schema) if text.lstrip()[:1] == "<" else from_json(text, schema)
    if args.bind:
        _bind(args, BIND_MAGIC)
        return write_bind(obj, schema, flags=BIND_FLAGS if args.flags is None else args.flags,
                          property_mask=args.mask, recursion_limit=args.recursion_limit)
    return _serializer(args, schema).encode(obj)


def verify(args: argparse.Namespace, data: bytes) -> str:
    _, obj = _read(args, data)
    _note_trailing(args, obj, "readers ignore them, as katsuba does")
    kind = "BINd file" if data[:4] == BIND_MAGIC else "stream"
    return f"ok: a sound {kind} of {len(data)} bytes holding a {obj.type_name}"


_FOLLOWED = ("the zlib data", "the zlib data", "the root object")
"""What the bytes each part of ``KiObject.trailing`` keeps follow."""


def _note_trailing(args: argparse.Namespace, obj: KiObject, consequence: str) -> None:
    """Say on standard error, one line each, which bytes after the root object or the zlib
    data ``obj`` keeps (``consequence`` ends the line); with --strict, fail on the first."""
    runs = obj.trailing or (None, None, None)
    name = "<stdin>" if args.input == "-" else args.input
    for part in (2, 1, 0):  # in stream order
        run = runs[part]
        if run is None:
            continue
        offset, after = run
        inflated = trailing_inflated(obj, part)
        count = "1 byte" if len(after) == 1 else f"{len(after)} bytes"
        verb = "is" if len(after) == 1 else "are"
        if args.strict:
            raise DecodeError(f"{count} after {_FOLLOWED[part]} {verb} not part of it "
                              f"(--strict){INFLATED_NOTE if inflated else ''}", offset=offset,
                              format="kingsisle")
        where = " of the inflated data" if inflated else ""
        print(f"gameserde: {name}: note: {count} at byte {offset} (0x{offset:x}){where}, "
              f"after {_FOLLOWED[part]}, {verb} not part of it; {consequence}",
              file=sys.stderr)


def inspect(args: argparse.Namespace, data: bytes) -> tuple[str, str | None]:
    """The bit map, and the reason the data does not decode or the map was cut short (None
    when neither)."""
    from gameserde.kingsisle.inspect import stream_map

    error = None
    try:
        schema, _ = _read(args, data)
    except DecodeError as e:
        schema, error = _schema(args), str(e)
    if not _bind(args, data):
        m = stream_map(data, _serializer(args, schema), max_expansion=args.max_expansion)
        return m.render(), error or _cut(m)
    deep = argparse.Namespace(**{**vars(args), "deep": True, "flags": STATEFUL_FLAGS})
    m = stream_map(data, _serializer(deep, schema), offset=len(BIND_MAGIC),
                   max_expansion=args.max_expansion)
    m.sections[0].rows.insert(0, Region(0, len(BIND_MAGIC), MapPath(None, "$"), "magic",
                                        "BINd file"))
    return m.render(), error or _cut(m)


def _cut(m: StreamMap) -> str | None:
    """The message of the ERROR row a map ends in (one of a stream that decodes: the map
    ran out of rows), else None."""
    rows = m.sections[-1].rows
    return rows[-1].note if rows and rows[-1].type == "ERROR" else None
