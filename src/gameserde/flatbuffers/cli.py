"""CLI glue for ``gameserde VERB flatbuffers``: flatc's JSON in and out, with a run-time schema."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from gameserde._expansion import cli_factor
from gameserde.cli import CommandError
from gameserde.errors import DecodeError
from gameserde.flatbuffers._budget import DEFAULT_JSON_EXPANSION
from gameserde.flatbuffers.schema import FbsSchema, FbsSchemaError, SchemaFileError, load_schema
from gameserde.schema.model import Record

VERBS = ("decode", "encode", "verify", "inspect")
JSON_VALUES = False
"""decode writes flatc's JSON text itself; encode reads flatc's JSON dialect itself."""

EPILOG = """The JSON is flatc's: decode prints what `flatc --json --strict-json` prints (add
--defaults-json for absent scalars), and encode accepts what `flatc -b` accepts and writes
the same bytes. Verify applies the rules of the C++ verifier flatc generates.

examples:
  gameserde decode flatbuffers --schema monster.fbs monster.bin
  gameserde encode flatbuffers --schema monster.fbs monster.json -o monster.bin
  gameserde verify flatbuffers --schema monster.fbs --root-type Weapon weapon.bin"""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--schema", "-s", required=True, metavar="S.fbs",
                        help="the .fbs schema (its includes are read too)")
    parser.add_argument("-I", "--include", action="append", default=[], metavar="DIR",
                        help="a directory to search for included schemas (repeatable)")
    parser.add_argument("--root-type", metavar="T",
                        help="the table at the root (default: the schema's root_type)")
    parser.add_argument("--size-prefixed", action="store_true",
                        help="the buffer starts with a 32-bit size prefix")
    if verb == "decode":
        parser.add_argument("--defaults-json", action="store_true",
                            help="also print absent scalars with their defaults")
        parser.add_argument("--max-expansion", type=cli_factor, default=DEFAULT_JSON_EXPANSION,
                            metavar="FACTOR",
                            help="refuse to print more than FACTOR times the binary's size "
                                 "plus 4096 characters (offsets may be shared: a small "
                                 f"buffer can stand for a huge tree; default "
                                 f"{DEFAULT_JSON_EXPANSION}, inf: no limit)")
    if verb == "encode":
        parser.add_argument("--strict-json", action="store_true",
                            help="require quoted keys and no trailing commas")
        parser.add_argument("--force-defaults", action="store_true",
                            help="write scalars even when they equal their default")
    if verb == "inspect":
        parser.add_argument("--annotate-sparse-vectors", action="store_true",
                            help="show only the first and last element of long vectors "
                                 "(as flatc --annotate-sparse-vectors)")


def _schema(args: argparse.Namespace) -> tuple[FbsSchema, str]:
    """The schema ``--schema`` names and the qualified name of the root table to use. A schema
    that does not load gives flatc's message (``FILE:LINE: COL: error: ...``); a missing or
    unknown root type a sentence naming the schema file (exit status 2)."""
    try:
        schema = load_schema(Path(args.schema), include_paths=args.include)
    except FbsSchemaError as e:
        raise CommandError(str(e), 1) from None
    except SchemaFileError as e:
        raise CommandError(f"{args.schema}: {e.reason}", 2) from None
    if args.root_type is None:
        if schema.root is None:
            raise CommandError(f"{args.schema}: the schema declares no root_type; name the "
                               "root table with --root-type", 2)
        return schema, schema.root
    try:
        return schema, schema.table(args.root_type).name
    except KeyError as e:
        tables = [t.name.rsplit(".", 1)[-1] for t in schema
                  if isinstance(t, Record) and t.kind == "table"]
        close = difflib.get_close_matches(args.root_type.rsplit(".", 1)[-1], tables, n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise CommandError(f"{args.schema}: --root-type {args.root_type}: {e.args[0]}{hint}",
                           2) from None


def decode(args: argparse.Namespace, data: bytes) -> bytes:
    schema, root = _schema(args)
    text = schema.to_json(data, root, size_prefixed=args.size_prefixed,
                          defaults=args.defaults_json, max_expansion=args.max_expansion)
    return text.encode("utf-8")


def encode(args: argparse.Namespace, data: bytes) -> bytes:
    schema, root = _schema(args)
    return schema.from_json(data, root, strict=args.strict_json,
                            size_prefixed=args.size_prefixed, force_defaults=args.force_defaults)


def verify(args: argparse.Namespace, data: bytes) -> str:
    schema, root = _schema(args)
    schema.verify(data, root, size_prefixed=args.size_prefixed)
    return f"ok: a sound {root} buffer of {len(data)} bytes"


def inspect(args: argparse.Namespace, data: bytes) -> tuple[str, str | None]:
    """What ``flatc --annotate SCHEMA -- FILE`` writes to ``FILE.afb`` (without its last
    newline, which the CLI adds), plus ``// verifier:`` lines for an unsound buffer; and the
    verifier's reason when the buffer is unsound (None when it is sound)."""
    from gameserde.flatbuffers.inspect import annotate

    schema, root = _schema(args)
    text = annotate(schema, data, root, size_prefixed=args.size_prefixed,
                    schema_file=args.schema,
                    binary_file="<stdin>" if args.input == "-" else args.input,
                    include_vector_contents=not args.annotate_sparse_vectors)
    if text.endswith("\n"):
        text = text[:-1]
    error = None
    try:
        schema.verify(data, root, size_prefixed=args.size_prefixed)
    except DecodeError as e:
        error = str(e)
    # Undecodable bytes of string literals, kept as surrogates, become U+FFFD on output.
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), error
