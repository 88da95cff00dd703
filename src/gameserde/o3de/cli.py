"""CLI glue for ``gameserde VERB o3de``: O3DE JSON documents checked, typed and written as
the engine writes them."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, NamedTuple

from gameserde import _expansion
from gameserde.cli import CommandError
from gameserde.errors import DecodeError, GameserdeError
from gameserde.o3de._budget import DEFAULT_MAX_EXPANSION
from gameserde.o3de._untyped import innermost, keep_untyped, repeated_names
from gameserde.o3de.engine import DOCUMENT_TYPES, engine_registry
from gameserde.o3de.load import load
from gameserde.o3de.registry import Registry
from gameserde.o3de.result import Issue, Result
from gameserde.o3de.store import store
from gameserde.o3de.text import members, parse_root, write

VERBS = ("decode", "encode", "verify", "inspect")
JSON_VALUES = False
"""Every verb reads O3DE JSON text itself; decode and encode write it as the engine does."""

EPILOG = """O3DE's files are JSON, so decode and encode both read a document and write it as
the engine's rapidjson PrettyWriter does (4-space indentation, its number forms, repeated
member names kept, no final newline): integers stay integers and doubles doubles. With
--registry the document is also loaded as --type with the engine's rules and stored again
(defaults left out unless --keep-defaults), which normalises it as a save from the editor
would. What the load cannot take (unknown members, values of the wrong type, components of
unknown types) is written back as the file has it, at its place, and each such issue is
printed on standard error with its JSON Pointer; --strict makes them an error (exit status
1). verify fails on every such issue, as O3DE's LoadObjectFromFile does.

.prefab and .material files are typed with the engine registry by default (the engine's
entity, component, transform, asset and material types; components it does not know are
kept unchanged and reported); --registry none turns that off. --registry engine uses it for
other files (with --type). --registry MODULE:NAME names Python code of yours: a
gameserde.o3de.Registry or a function returning one (the module is imported; run it only on
code you trust).

examples:
  gameserde decode o3de level.prefab
  gameserde verify o3de --registry none level.prefab
  gameserde decode o3de settings.setreg
  gameserde verify o3de --trailing-commas settings.json
  gameserde decode o3de --registry mygame.types:registry --type MyComponent saved.json
  gameserde inspect o3de level.prefab"""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("--registry", metavar="MODULE:NAME",
                        help="type the document with this registry: engine (the default for "
                             ".prefab and .material files), none (text rules only), or Python "
                             "code of yours (a Registry, or a function returning one)")
    parser.add_argument("--type", metavar="NAME",
                        help="the document's type in the registry (default: the prefab or "
                             "material type for those files)")
    parser.add_argument("--trailing-commas", action="store_true",
                        help="accept trailing commas, as the settings registry's reader does "
                             "(always on for .setreg and .setregpatch files)")
    _expansion.add_option(parser, DEFAULT_MAX_EXPANSION,
                          "with --registry: the default values loading the document builds")
    if verb in ("decode", "encode"):
        parser.add_argument("--keep-defaults", action="store_true",
                            help="with --registry: write values equal to their defaults too")
        parser.add_argument("--strict", action="store_true",
                            help="with --registry: fail (exit status 1) when the load reports "
                                 "an issue, instead of keeping what it could not take as the "
                                 "file has it")


def _registry(args: argparse.Namespace) -> tuple[Registry, str] | None:
    """The registry and type the options name: by default the engine registry for the file
    kinds it knows (``.prefab``, ``.material``); None for ``--registry none`` or a file of
    another kind without --registry."""
    spec = args.registry
    suffix = PurePath(args.input).suffix.lower() if args.input != "-" else ""
    if spec is None:
        spec = "engine" if suffix in DOCUMENT_TYPES else None
    if spec is None or spec == "none":
        if args.type is not None:
            raise CommandError("--type needs --registry (the registry that defines it)", 2)
        return None
    name = args.type or DOCUMENT_TYPES.get(suffix)
    if name is None:
        raise CommandError("--registry needs --type (the document's type)", 2)
    registry = engine_registry() if spec == "engine" else _user_registry(spec)
    try:
        registry.resolve(name)
    except GameserdeError as e:
        raise CommandError(f"--registry {spec}: --type {name}: {e}", 2) from None
    args.type = name
    return registry, name


def _user_registry(spec: str) -> Registry:
    """The registry MODULE:NAME names (a Registry, or a function returning one)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise CommandError(f"--registry {spec}: give MODULE:NAME, engine or none", 2)
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as e:
        raise CommandError(f"--registry {spec}: {e}", 2) from None
    registry = found
    if callable(found) and not isinstance(found, Registry):
        try:
            registry = found()
        except Exception as e:  # the user's code, whatever it raises
            raise CommandError(f"--registry {spec}: calling it failed: "
                               f"{type(e).__name__}: {e}", 2) from None
    if not isinstance(registry, Registry):
        raise CommandError(f"--registry {spec}: not a gameserde.o3de.Registry", 2)
    return registry


class _Typed(NamedTuple):
    """A document as the command writes it, and with --registry the Result of loading it as
    --type and one line per issue: ``kept``, each innermost place the load reported (the
    engine also reports on every enclosing value, which says nothing more) and each member
    name an object repeats (read into one value), kept as the file has them; ``stored``,
    each issue of the store."""

    document: Any
    result: Result | None = None
    kept: tuple[str, ...] = ()
    stored: tuple[str, ...] = ()

    @property
    def lines(self) -> tuple[str, ...]:
        return self.kept + self.stored


def _loaded(args: argparse.Namespace, data: bytes) -> _Typed:
    """The document read and typed (a halted load is an error)."""
    return _typed(args, _read(args, data))


SETTINGS_SUFFIXES = (".setreg", ".setregpatch")
"""Files the settings registry reads; the others are read as ``JsonSerializationUtils`` reads
JSON documents (prefabs, materials, passes, assets ...)."""


def _read(args: argparse.Namespace, data: bytes) -> Any:
    """The document as the engine's reader of the file's kind reads it. The settings registry
    (``SETTINGS_SUFFIXES``) takes trailing commas, ignores the text after the root value and
    skips no byte-order mark; ``JsonSerializationUtils`` takes none of that (--trailing-commas
    adds trailing commas). Text the reader ignores (after the root value, or after a NUL) is
    not written back: it is reported on standard error, and is an error for verify and with
    --strict."""
    suffix = PurePath(args.input).suffix.lower() if args.input != "-" else ""
    settings = suffix in SETTINGS_SUFFIXES
    doc, ignored = parse_root(data, trailing_commas=settings or bool(args.trailing_commas),
                              stop_when_done=settings, skip_bom=not settings)
    if ignored is not None:
        message = (f"the engine's reader ignores the {len(data) - ignored} bytes from byte "
                   f"offset {ignored} on (after the root value or a NUL); they are left out")
        if getattr(args, "verb", "") == "verify" or getattr(args, "strict", False):
            raise DecodeError(message, offset=ignored, format="o3de")
        name = "<stdin>" if args.input == "-" else args.input
        print(f"gameserde: {name}: {message}", file=sys.stderr)
    return doc


def _typed(args: argparse.Namespace, doc: Any) -> _Typed:
    """The parsed ``doc``, typed with --registry when given: loaded as --type and stored
    again, with what the load could not take kept as ``doc`` has it."""
    typed = _registry(args)
    if typed is None:
        return _Typed(doc)
    registry, name = typed
    value, result = load(name, doc, registry=registry, max_expansion=args.max_expansion)
    if result.code.halted:
        raise _issue_error(result, f"the document does not load as {name}")
    keep = getattr(args, "keep_defaults", False)
    stored, stored_result = store(value, name, registry=registry, keep_defaults=keep)
    repeats = repeated_names(doc)
    kept = [f"at {issue.path or 'the root'}: {_described(issue)}"
            for issue in innermost(result.issues)]
    kept += [f"at {pointer or 'the root'}: the member name {json.dumps(member)} is repeated; "
             "the load reads each in turn into one value, which the store writes once"
             for pointer, member in repeats]
    pointers = [issue.path for issue in result.issues] + [pointer for pointer, _ in repeats]
    return _Typed(keep_untyped(stored, doc, pointers), result, tuple(kept),
                  tuple(f"storing {issue.path}: {_described(issue)}"
                        for issue in stored_result.issues))


def _described(issue: Issue) -> str:
    return f"{issue.message} [{issue.code.outcome.name}]"


def _issue_error(result: Result, fallback: str) -> DecodeError:
    if not result.issues:
        return DecodeError(fallback, format="o3de")
    issue = result.issues[0]
    more = f" (and {len(result.issues) - 1} more issues)" if len(result.issues) > 1 else ""
    return DecodeError(f"{_described(issue)}{more}", path="$" + issue.path, format="o3de")


def _report(args: argparse.Namespace, lines: tuple[str, ...], suffix: str = "") -> None:
    """One line per issue on standard error, as the command's other messages."""
    name = "<stdin>" if args.input == "-" else args.input
    for line in lines:
        print(f"gameserde: {name}: {line}{suffix}", file=sys.stderr)


def decode(args: argparse.Namespace, data: bytes) -> bytes:
    typed = _loaded(args, data)
    if typed.lines and args.strict:
        _report(args, typed.lines)
        raise DecodeError(f"--strict: loading as {args.type} reported {len(typed.lines)} "
                          "issue(s), listed above", format="o3de")
    _report(args, typed.kept, "; kept as the file has it")
    _report(args, typed.stored)
    return write(typed.document).encode("utf-8", "surrogateescape")


def encode(args: argparse.Namespace, data: bytes) -> bytes:
    return decode(args, data)


def verify(args: argparse.Namespace, data: bytes) -> str:
    typed = _loaded(args, data)
    if typed.result is None:
        return f"ok: sound O3DE JSON of {len(data)} bytes"
    if typed.lines:
        _report(args, typed.lines)
        raise DecodeError(f"the document does not load cleanly as {args.type}: "
                          f"{len(typed.lines)} issue(s), listed above", format="o3de")
    return f"ok: loads as {args.type} ({typed.result.outcome.name})"


def inspect(args: argparse.Namespace, data: bytes) -> tuple[str, str | None]:
    """One row per value (JSON Pointer, kind, value), then the issues of a typed load; and
    the reason the document is not sound (None when it is)."""
    error = None
    try:
        doc = _read(args, data)
    except DecodeError as e:
        return f"ERROR {e}", str(e)
    rows = [("pointer", "kind", "value")]
    _rows(doc, "", rows)
    try:
        result = _typed(args, doc).result
    except DecodeError as e:
        result, error = None, str(e)
    if result is not None:
        for issue in result.issues:
            rows.append((issue.path or "/", f"issue {issue.code.outcome.name}", issue.message))
        if result.issues:
            error = str(_issue_error(result, ""))
    width = min(max(len(r[0]) for r in rows), 48)
    kind_width = max(len(r[1]) for r in rows)
    return _shown("\n".join(f"{p:<{width}} {k:<{kind_width}} {v}".rstrip()
                             for p, k, v in rows)), error


def _rows(value: Any, pointer: str, rows: list[tuple[str, str, str]]) -> None:
    """Rows for ``value`` at ``pointer`` and everything inside it, in document order
    (iterative, so depth costs no Python stack)."""
    stack: list[tuple[Any, str]] = [(value, pointer)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, Mapping):
            entries = list(members(item))
            rows.append((where or "/", "object", f"{len(entries)} members"))
            stack.extend((v, f"{where}/{_escape(k)}") for k, v in reversed(entries))
        elif isinstance(item, list):
            rows.append((where or "/", "array", f"{len(item)} elements"))
            stack.extend((v, f"{where}/{i}") for i, v in reversed(list(enumerate(item))))
        else:
            kind = ("null" if item is None else "bool" if isinstance(item, bool)
                    else "integer" if isinstance(item, int)
                    else "double" if isinstance(item, float) else "string")
            text = _shown(write(item))
            rows.append((where or "/", kind, text if len(text) <= 60 else text[:57] + "..."))


def _shown(text: str) -> str:
    """``text`` with the bytes that are not UTF-8 it holds (U+DC80..U+DCFF, see
    ``text.parse``) shown as ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _escape(key: str) -> str:
    """A member name as a JSON Pointer step (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")
