"""The O3DE codec: ``gameserde.codec("o3de", ...)`` and :func:`gameserde.o3de.codec`.

O3DE's files are JSON text, so its "binary data" is that text: :meth:`O3deCodec.decode` reads
a document as the engine's reader of the file's kind reads it, and with a registry loads it
as its type (the typed value); :meth:`O3deCodec.encode` stores a value again and writes it as
the engine's rapidjson ``PrettyWriter`` does. :meth:`O3deCodec.to_json` is both in one step
and keeps what the load could not take as the file has it (what ``gameserde decode o3de``
writes); :meth:`O3deCodec.from_json` is the same (``gameserde encode o3de``).

The options are the command line's: ``schema`` (``--schema``/``--registry``: ``"engine"``,
``"none"``, ``"MODULE:NAME"`` or a :class:`~gameserde.o3de.Registry`), ``type``
(``--type``), ``trailing_commas``, ``keep_defaults`` (the written side), ``max_depth``,
``max_expansion``; and ``source``, the file's name, which picks the engine registry for
``.prefab`` and ``.material`` files and the settings registry's reader for ``.setreg`` and
``.setregpatch`` files.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import warnings
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, NamedTuple

from gameserde._bytemap import Path, Region
from gameserde._expansion import check_factor
from gameserde._jsonio import compact_text
from gameserde.codecs import Buffer, ByteMap, Codec, Row
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeWarning,
    SchemaError,
    UnknownNameError,
    UsageError,
)
from gameserde.formats import (
    FORMATS,
    FormatInfo,
    Option,
    check_max_depth,
    check_options,
    max_depth_option,
    max_expansion_option,
    schema_option,
    type_option,
)
from gameserde.o3de import _scan
from gameserde.o3de._budget import DEFAULT_MAX_EXPANSION
from gameserde.o3de._untyped import innermost, keep_untyped, repeated_names
from gameserde.o3de.load import load
from gameserde.o3de.registry import Registry
from gameserde.o3de.result import Issue, Result
from gameserde.o3de.store import store
from gameserde.o3de.text import MAX_DEPTH, parse_root, write

__all__ = ["FORMAT", "SETTINGS_SUFFIXES", "O3deCodec", "codec"]

SETTINGS_SUFFIXES = (".setreg", ".setregpatch")
"""Files the settings registry reads; the others are read as ``JsonSerializationUtils`` reads
JSON documents (prefabs, materials, passes, assets ...)."""

_BOM = b"\xef\xbb\xbf"
_TYPES_LISTED = 12
"""The most type names a message lists."""


class _Typed(NamedTuple):
    """A document loaded as its type and stored again: the stored JSON with what the load
    could not take kept as the file has it (``document``), the load's ``result``, and one
    line per issue: ``kept``, each innermost place the load reported (the engine also
    reports on every enclosing value, which says nothing more) and each member name an
    object repeats (read into one value); ``stored``, each issue of the store."""

    document: Any
    result: Result
    kept: tuple[str, ...]
    stored: tuple[str, ...]
    store_issues: tuple[Issue, ...]
    repeats: tuple[tuple[str, str], ...]

    @property
    def lines(self) -> tuple[str, ...]:
        return self.kept + self.stored


def _warn(message: str) -> None:
    warnings.warn(message, GameserdeWarning, stacklevel=3)


def _described(issue: Issue) -> str:
    """The issue's message on one line (some of the engine's span two), and its outcome."""
    return f"{' '.join(issue.message.split())} [{issue.code.outcome.name}]"


def _issue_error(result: Result, fallback: str) -> DecodeError:
    if not result.issues:
        return DecodeError(fallback, format="o3de")
    issue = result.issues[0]
    more = f" (and {len(result.issues) - 1} more issues)" if len(result.issues) > 1 else ""
    return DecodeError(f"{_described(issue)}{more}", path="$" + issue.path, format="o3de")


def _bom_size(data: str | bytes) -> int:
    """The length of the byte-order mark ``data`` starts with, in its units (0: none)."""
    if isinstance(data, str):
        return 1 if data.startswith("\ufeff") else 0
    return len(_BOM) if data.startswith(_BOM) else 0


class O3deCodec(Codec):
    """O3DE JSON documents read as the engine reads them, typed with a registry when one is
    given, and written as the engine writes them; build one with :func:`codec` or
    ``gameserde.codec("o3de", ...)``."""

    format = "o3de"

    def __init__(self, options: Mapping[str, Any], *, registry: Registry | None,
                 type_name: str | None, schema: object, settings: bool, trailing_commas: bool,
                 keep_defaults: bool, max_depth: int, max_expansion: float | None) -> None:
        super().__init__(options)
        self.registry = registry
        """The registry documents are typed with (None: the text rules only)."""
        self.type_name = type_name
        """The documents' type in :attr:`registry`."""
        self._schema = schema
        self.settings = settings
        """Whether documents are read as the settings registry reads them."""
        self.trailing_commas = trailing_commas or settings
        self.keep_defaults = keep_defaults
        self.max_depth = max_depth
        self.max_expansion = max_expansion

    # -- reading ------------------------------------------------------------------------------

    def _parse(self, data: str | Buffer) -> tuple[Any, int | None]:
        """The document as the engine's reader of the file's kind reads it, and the offset of
        the first text that reader ignores (None when there is none)."""
        if isinstance(data, bytearray | memoryview):
            data = bytes(data)
        elif not isinstance(data, str | bytes):
            raise UsageError(f"o3de codecs read bytes or str, not {type(data).__name__}")
        try:
            doc, ignored = parse_root(data, trailing_commas=self.trailing_commas,
                                      stop_when_done=self.settings, skip_bom=not self.settings)
        except DecodeError as e:
            raise self._hinted(e, data) from None
        if self.max_depth < MAX_DEPTH and _scan.deeper_than(doc, self.max_depth):
            start = 0 if self.settings else _bom_size(data)
            at = _scan.too_deep_at(data, start, self.max_depth)
            before = data[start:at] if isinstance(data, str) else \
                data[start:at].decode("utf-8", "surrogateescape")
            line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
            raise DecodeError(f"Arrays and objects nest deeper than {self.max_depth} levels "
                              f"(--max-depth {self.max_depth}) at line {line}, column "
                              f"{column}.", offset=at, format="o3de")
        return doc, ignored

    def _hinted(self, error: DecodeError, data: str | bytes) -> DecodeError:
        """``error``, with a hint when it is a trailing comma that --trailing-commas takes."""
        at = error.offset
        if self.trailing_commas or at is None or at >= len(data):
            return error
        text = data[:at + 1] if isinstance(data, str) else \
            data[:at + 1].decode("utf-8", "surrogateescape")
        if text[-1] not in "]}" or not text[:-1].rstrip().endswith(","):
            return error
        return DecodeError(f"{error.message} A trailing comma: only the settings registry's "
                           "reader (.setreg and .setregpatch files) takes them; "
                           "--trailing-commas accepts them in this file too.", offset=at,
                           format="o3de")

    @staticmethod
    def _ignored(data: str | Buffer, ignored: int) -> DecodeError:
        return DecodeError(f"the engine's reader ignores the {len(data) - ignored} bytes from "
                           f"byte offset {ignored} on (after the root value or a NUL); they "
                           "are left out", offset=ignored, format="o3de")

    def _document(self, data: str | Buffer) -> Any:
        """The document; text the reader ignores is reported (a warning) and left out."""
        doc, ignored = self._parse(data)
        if ignored is not None:
            _warn(self._ignored(data, ignored).message)
        return doc

    def _load(self, doc: Any) -> tuple[Any, Result]:
        assert self.registry is not None and self.type_name is not None
        value, result = load(self.type_name, doc, registry=self.registry,
                             max_expansion=self.max_expansion)
        if result.code.halted:
            raise _issue_error(result, f"the document does not load as {self.type_name}")
        return value, result

    def _typed(self, doc: Any, keep_defaults: bool) -> _Typed:
        """``doc`` loaded as the type and stored again, what the load could not take kept as
        ``doc`` has it (a halted load is an error)."""
        assert self.registry is not None
        value, result = self._load(doc)
        stored, stored_result = store(value, self.type_name, registry=self.registry,
                                      keep_defaults=keep_defaults)
        repeats = repeated_names(doc)
        kept = [f"at {issue.path or 'the root'}: {_described(issue)}"
                for issue in innermost(result.issues)]
        kept += [f"at {pointer or 'the root'}: the member name {json.dumps(member)} is "
                 "repeated; the load reads each in turn into one value, which the store "
                 "writes once" for pointer, member in repeats]
        pointers = [issue.path for issue in result.issues] + [pointer for pointer, _ in repeats]
        return _Typed(keep_untyped(stored, doc, pointers), result, tuple(kept),
                      tuple(f"storing {issue.path}: {_described(issue)}"
                            for issue in stored_result.issues),
                      tuple(stored_result.issues), tuple(repeats))

    def _unclean(self, typed: _Typed) -> DecodeError:
        """The error of a document whose typed load or store reported issues."""
        lines = typed.lines
        return DecodeError(f"the document does not load cleanly as {self.type_name}: "
                           f"{len(lines)} issue(s), the first {lines[0]}", format="o3de")

    # -- the codec interface ------------------------------------------------------------------

    def decode(self, data: str | Buffer) -> Any:
        """The document ``data`` holds: with a registry the value of the type the load
        makes (what it cannot take is reported and left out of the value), else the parsed
        JSON (see :mod:`gameserde.o3de.text`)."""
        doc = self._document(data)
        if self.registry is None:
            return doc
        value, result = self._load(doc)
        for issue in innermost(result.issues):
            _warn(f"at {issue.path or 'the root'}: {_described(issue)}; left out of the "
                  "decoded value")
        for pointer, member in repeated_names(doc):
            _warn(f"at {pointer or 'the root'}: the member name {json.dumps(member)} is "
                  "repeated; the decoded value holds what the load read from the last")
        return value

    def encode(self, value: Any) -> bytes:
        """The engine's text of ``value`` (a value of the type with a registry, stored with
        or without its defaults; else JSON values), as UTF-8 bytes."""
        return write(self.to_jsonable(value)).encode("utf-8", "surrogateescape")

    def to_jsonable(self, value: Any) -> Any:
        """``value`` as the JSON values the engine writes: with a registry the store's
        output (what it leaves out is reported), else ``value`` itself."""
        if self.registry is None:
            return value
        stored, result = store(value, self.type_name, registry=self.registry,
                               keep_defaults=self.keep_defaults)
        for issue in result.issues:
            _warn(f"storing {issue.path}: {_described(issue)}")
        return stored

    def to_row(self, value: Any) -> Row:
        """``value`` as a row (see :mod:`gameserde.o3de.rows`): with a registry a row of the
        type, typed by a model of the registry's classes; else the document's JSON values
        (a JSON column), as for settings registry files."""
        from gameserde.o3de.rows import json_row, row_of

        if self.registry is None:
            return json_row(value)
        assert self.type_name is not None
        return row_of(self.registry, self.type_name, value)

    def from_jsonable(self, obj: Any) -> Any:
        """The value JSON values ``obj`` stand for: with a registry ``obj`` loaded as the
        type (what the load cannot take is reported and left out; a load that halts is an
        :class:`~gameserde.errors.EncodeError`), else ``obj`` itself."""
        if self.registry is None:
            return obj
        try:
            value, result = self._load(obj)
        except DecodeError as e:
            raise EncodeError(e.message, path=e.path, format="o3de") from None
        for issue in innermost(result.issues):
            _warn(f"at {issue.path or 'the root'}: {_described(issue)}; left out of the value")
        return value

    def to_json(self, data: str | Buffer, *, pretty: bool = False) -> str:
        """``data`` as the engine writes it (``gameserde decode o3de``): with a registry
        loaded and stored again (defaults left out unless ``keep_defaults``), what the load
        could not take kept as the file has it and reported. ``pretty``: the engine's layout
        (rapidjson's ``PrettyWriter``, as O3DE saves files), else the same on one line (its
        ``Writer``); no final newline either way. Code points U+DC80..U+DCFF stand for bytes
        that are not UTF-8 (encode it with ``"surrogateescape"``)."""
        text = self._written(self._document(data), self.keep_defaults)
        return text if pretty else compact_text(text)

    def _written(self, doc: Any, keep_defaults: bool) -> str:
        if self.registry is None:
            return write(doc)
        typed = self._typed(doc, keep_defaults)
        for line in typed.kept:
            _warn(f"{line}; kept as the file has it")
        for line in typed.stored:
            _warn(line)
        return write(typed.document)

    def from_json(self, text: str | Buffer) -> bytes:
        """``text`` written as the engine writes it (``gameserde encode o3de``): the bytes of
        :meth:`to_json`; its errors read ``o3de encode error ...``."""
        try:
            return self.to_json(text, pretty=True).encode("utf-8", "surrogateescape")
        except DecodeError as e:
            e.verb = "encode"
            raise

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data`` written with ``to``'s options: with the same registry and type, the
        document loaded and stored with ``to``'s ``keep_defaults``, what the load could not
        take kept as the file has it; otherwise ``to.encode(self.decode(data))``."""
        if isinstance(to, O3deCodec) and (to._schema, to.type_name) == (self._schema,
                                                                       self.type_name):
            doc = self._document(data)
            return to._written(doc, to.keep_defaults).encode("utf-8", "surrogateescape")
        return super().convert(data, to)

    def verify(self, data: str | Buffer) -> str:
        """``"ok: ..."`` when ``data`` reads (and with a registry loads and stores) without
        an issue, as O3DE's ``LoadObjectFromFile`` requires; otherwise each issue is
        reported (a warning) and a :class:`~gameserde.errors.DecodeError` names their
        number and the first. Text the reader ignores is an error too."""
        doc, ignored = self._parse(data)
        if ignored is not None:
            raise self._ignored(data, ignored)
        if self.registry is None:
            return f"ok: sound O3DE JSON of {len(data)} bytes"
        typed = self._typed(doc, False)
        for line in typed.lines:
            _warn(line)
        if typed.lines:
            raise self._unclean(typed)
        return f"ok: loads as {self.type_name} ({typed.result.outcome.name})"

    def inspect(self, data: str | Buffer) -> ByteMap:
        """One row per value: its byte range in the text, JSON Pointer (the root is ``/``),
        kind (object, array, string, integer, double, bool, null) and value; with a registry
        also one row per issue of the load (at the value it concerns) and of the store; and
        the error :meth:`verify` raises, if any."""
        if isinstance(data, str):
            try:  # a str that parses holds no surrogate: it is UTF-8 text
                self._parse(data)
            except DecodeError as e:
                return ByteMap("o3de", data.encode("utf-8", "surrogatepass"), error=e,
                               text=True)
            raw = data.encode("utf-8")
        elif isinstance(data, bytes | bytearray | memoryview):
            raw = bytes(data)
        else:
            raise UsageError(f"o3de codecs read bytes or str, not {type(data).__name__}")
        byte_map = ByteMap("o3de", raw, text=True)
        try:
            doc, ignored = self._parse(raw)
        except DecodeError as e:
            byte_map.error = e
            return byte_map
        byte_map.rows = _scan.regions(raw, 0 if self.settings else _bom_size(raw), doc)
        if ignored is not None:
            byte_map.rows.append(Region(ignored, len(raw) - ignored, Path(None, ""), "ignored",
                                        f"{len(raw) - ignored} bytes the reader ignores"))
            byte_map.error = self._ignored(raw, ignored)
            return byte_map
        if self.registry is None:
            return byte_map
        try:
            typed = self._typed(doc, False)
        except DecodeError as e:
            byte_map.error = e
            return byte_map
        byte_map.rows = _with_issues(byte_map.rows, typed)
        if typed.lines:
            byte_map.error = self._unclean(typed)
        return byte_map


def _with_issues(rows: list[Region], typed: _Typed) -> list[Region]:
    """``rows`` with a row after the value each issue concerns (its nearest enclosing value
    the text has): every report of the load, each repeated member name, and the store's
    reports (at the root: they name places of the stored value)."""
    after: dict[int, list[tuple[str, str]]] = {}
    where = {str(row.where): n for n, row in enumerate(rows)}

    def place(pointer: str) -> int:
        while pointer and pointer not in where:
            pointer = pointer.rsplit("/", 1)[0]
        return where.get(pointer or _scan.ROOT, 0)

    for issue in typed.result.issues:
        after.setdefault(place(_scan.shown(issue.path)), []).append(
            (f"issue {issue.code.outcome.name}", _scan.shown(issue.message)))
    for pointer, member in typed.repeats:
        after.setdefault(place(_scan.shown(pointer)), []).append(
            ("issue repeated name", _scan.shown(f"{json.dumps(member)} is repeated")))
    for issue in typed.store_issues:
        after.setdefault(0, []).append(
            (f"issue storing {issue.code.outcome.name}",
             _scan.shown(f"{issue.path}: {issue.message}")))
    out: list[Region] = []
    for n, row in enumerate(rows):
        out.append(row)
        out += [Region(row.offset, row.size, row.where, kind, note)
                for kind, note in after.get(n, ())]
    return out


# -- building a codec -------------------------------------------------------------------------


@functools.cache
def _engine() -> Registry:
    """The engine registry, built once per process (codecs do not change it)."""
    from gameserde.o3de.engine import engine_registry

    return engine_registry()


def _user_registry(spec: str) -> Registry:
    """The registry MODULE:NAME names (a Registry, or a function returning one)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"--schema {spec}: give MODULE:NAME, engine or none")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as e:
        raise UsageError(f"--schema {spec}: {e}") from None
    registry = found
    if callable(found) and not isinstance(found, Registry):
        try:
            registry = found()
        except Exception as e:  # the user's code, whatever it raises
            raise UsageError(f"--schema {spec}: calling it failed: "
                             f"{type(e).__name__}: {e}") from None
    if not isinstance(registry, Registry):
        raise UsageError(f"--schema {spec}: not a gameserde.o3de.Registry")
    return registry


def _type_names(registry: Registry, engine: bool) -> str:
    """The type names a message suggests for ``--type``."""
    if engine:
        from gameserde.o3de.engine import MATERIAL, PREFAB

        others = sorted(n for n, c in registry.classes.items() if not c.abstract)
        return (f"{PREFAB} (what a .prefab file holds), {MATERIAL} (a .material file), or "
                f"another of its {len(others)} classes, such as AZ::Entity")
    names = sorted(n for n, c in registry.classes.items() if not c.abstract)
    names += sorted(registry.enums)
    if not names:
        return "it has none"
    listed = ", ".join(names[:_TYPES_LISTED])
    more = f" and {len(names) - _TYPES_LISTED} more" if len(names) > _TYPES_LISTED else ""
    return f"one of {listed}{more}"


def _flag(value: object, option: str) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{option} must be True or False, not {value!r}")
    return value


def make(**options: Any) -> O3deCodec:
    """The O3DE codec of ``options`` (see the module's documentation), checked: a
    :class:`~gameserde.errors.UsageError` names the command-line flags of options that are
    out of range, cannot go together or would do nothing; a type the registry lacks is an
    :class:`~gameserde.errors.UnknownNameError`."""
    check_options(FORMAT, {k: v for k, v in options.items()
                           if k != "source" and (v is not None or k == "max_expansion")})
    schema = options.get("schema")
    type_name = options.get("type")
    trailing_commas = _flag(options.get("trailing_commas", False), "trailing_commas")
    keep_defaults = _flag(options.get("keep_defaults", False), "keep_defaults")
    max_depth = check_max_depth(options.get("max_depth", MAX_DEPTH), MAX_DEPTH)
    try:
        max_expansion = check_factor(options.get("max_expansion", DEFAULT_MAX_EXPANSION))
    except ValueError as e:
        raise UsageError(str(e)) from None
    source = options.get("source")
    if source is not None and not isinstance(source, str | os.PathLike):
        raise UsageError(f"source must be a file name or None, not {source!r}")
    if type_name is not None and not isinstance(type_name, str):
        raise UsageError(f"type must be a type's name, not {type_name!r}")
    suffix = PurePath(source).suffix.lower() if source is not None else ""
    settings = suffix in SETTINGS_SUFFIXES
    if trailing_commas and settings:
        raise UsageError(f"--trailing-commas does nothing for a {suffix} file: the settings "
                         "registry's reader, which reads it, always takes trailing commas")
    document_types: dict[str, str] = {}
    if suffix or schema == "engine":
        from gameserde.o3de.engine import DOCUMENT_TYPES

        document_types = DOCUMENT_TYPES
    untyped = "--schema none types nothing" if schema == "none" else (
        "nothing types this document (no --schema, and not a .prefab or .material file)")
    if schema is None:
        schema = "engine" if suffix in document_types else "none"
    registry: Registry | None
    if isinstance(schema, Registry):
        registry, shown = schema, "(a Registry)"
    elif schema == "none":
        registry, shown = None, "none"
    elif schema == "engine":
        registry, shown = _engine(), "engine"
    elif isinstance(schema, str):
        registry, shown = _user_registry(schema), schema
    else:
        raise UsageError(f"schema must be engine, none, MODULE:NAME or a "
                         f"gameserde.o3de.Registry, not {schema!r}")
    if registry is None:
        refused = [(type_name is not None, f"--type {type_name} names a type of a registry"),
                   (keep_defaults, "--keep-defaults writes the defaults a typed store leaves "
                                   "out"),
                   (max_expansion != DEFAULT_MAX_EXPANSION,
                    "--max-expansion bounds the default values a typed load builds")]
        for given, what in refused:
            if given:
                raise UsageError(f"{what}, but {untyped}: drop it, or give --schema engine "
                                 "or MODULE:NAME")
    else:
        type_name = type_name or document_types.get(suffix)
        if type_name is None:
            why = " for a file not named .prefab or .material" if schema == "engine" else ""
            raise UsageError(f"--schema {shown} needs --type{why}, the document's type: "
                             f"{_type_names(registry, schema == 'engine')}")
        try:
            registry.resolve(type_name)
        except SchemaError as e:
            raise UnknownNameError(f"--type {type_name}: {e} in the registry of --schema "
                                   f"{shown}; its types: "
                                   f"{_type_names(registry, schema == 'engine')}") from None
    return O3deCodec(options, registry=registry, type_name=type_name, schema=schema,
                     settings=settings, trailing_commas=trailing_commas,
                     keep_defaults=keep_defaults, max_depth=max_depth,
                     max_expansion=max_expansion)


def codec(*, type: str | None = None, registry: Registry | str | None = None,
          trailing_commas: bool = False, keep_defaults: bool = False,
          max_depth: int = MAX_DEPTH, max_expansion: float | None = DEFAULT_MAX_EXPANSION,
          source: str | os.PathLike[str] | None = None) -> O3deCodec:
    """The O3DE codec (``gameserde.codec("o3de", schema=registry, ...)``): documents typed
    as ``type`` with ``registry`` (a :class:`~gameserde.o3de.Registry`, ``"engine"``,
    ``"none"`` or ``"MODULE:NAME"``; by default the engine registry for a ``source`` named
    ``.prefab`` or ``.material``, else none), read with trailing commas when
    ``trailing_commas`` (always for ``.setreg`` and ``.setregpatch`` sources, read as the
    settings registry does), arrays and objects nested at most ``max_depth`` deep, the
    default values a load builds bounded by ``max_expansion`` times the input's size, and
    written with values equal to their defaults when ``keep_defaults``."""
    options: dict[str, Any] = {"type": type, "schema": registry,
                               "trailing_commas": trailing_commas,
                               "keep_defaults": keep_defaults, "max_depth": max_depth,
                               "max_expansion": max_expansion, "source": source}
    return make(**{k: v for k, v in options.items() if v is not None
                   or k == "max_expansion"})


EPILOG = """O3DE's files are JSON text, so decode and encode both read a document and write it
as the engine's rapidjson writer does (its number forms, repeated member names kept, no final
newline): encode, and decode with --pretty (the default on a terminal), in the PrettyWriter's
layout O3DE saves files in (4-space indentation); decode --compact (the default when piped or
written to a file) on one line, as its Writer. Integers stay integers and doubles doubles.
Each file is read as the engine reads its kind: .setreg and
.setregpatch files as the settings registry does (trailing commas, text after the root value
ignored), others as JsonSerializationUtils does. With a registry (--schema) the document is
also loaded as --type with the engine's rules and stored again (defaults left out unless
--keep-defaults), which normalises it as a save from the editor would. What the load cannot
take (unknown members, values of the wrong type, components of unknown types) is written back
as the file has it, at its place, and each such issue is printed on standard error with its
JSON Pointer; --strict makes them an error (exit status 1). verify fails on every such issue,
as O3DE's LoadObjectFromFile does. inspect shows the byte range of every value (paths are
JSON Pointers, the root is /) and the issues of a typed load.

.prefab and .material files are typed with the engine registry by default (the engine's
entity, component, transform, asset and material types; components it does not know are
kept unchanged and reported); --schema none turns that off. --schema engine uses it for
other files (with --type). --schema MODULE:NAME names Python code of yours: a
gameserde.o3de.Registry or a function returning one (the module is imported; run it only on
code you trust).

examples:
  gameserde decode o3de level.prefab
  gameserde verify o3de --schema none level.prefab
  gameserde decode o3de settings.setreg
  gameserde verify o3de --trailing-commas settings.json
  gameserde decode o3de --schema mygame.types:registry --type MyComponent saved.json
  gameserde convert o3de --to-keep-defaults level.prefab -o full.prefab
  gameserde inspect o3de level.prefab"""

OPTIONS: tuple[Option, ...] = (
    schema_option("type the document with a registry: engine (the default for .prefab and "
                  ".material files), none (the text rules only), or MODULE:NAME, Python code "
                  "of yours (a gameserde.o3de.Registry, or a function returning one)",
                  metavar="engine|none|MODULE:NAME", aliases=("--registry",)),
    type_option("the document's type in the registry (default: the prefab or material type "
                "for those files)"),
    Option("trailing_commas", ("--trailing-commas",),
           "accept trailing commas, as the settings registry's reader does (always on for "
           ".setreg and .setregpatch files)"),
    Option("keep_defaults", ("--keep-defaults",),
           "with a registry: write values equal to their defaults too",
           verbs=("decode", "encode", "convert"), output=True),
    max_depth_option(MAX_DEPTH, MAX_DEPTH, ", levels of arrays and objects in the text"),
    max_expansion_option(DEFAULT_MAX_EXPANSION,
                         "the default values loading the document with a registry builds"),
)

FORMAT = FormatInfo("o3de", FORMATS["o3de"].description, make, OPTIONS, EPILOG,
                    takes_source=True)
"""The O3DE format's declarations for the command line and :func:`gameserde.codec`."""
