"""The Godot codec: :class:`GodotCodec`, gameserde's codec interface
(:class:`gameserde.codecs.Codec`) over the Variant reader and writer, the engine's framings and
the two JSON views; :func:`codec` builds one, and :data:`FORMAT` declares its options for the
command line and ``gameserde.codec("godot", ...)``.

A codec reads and writes one framing in one profile: ``raw`` (one Variant, as
``var_to_bytes``), ``store_var`` (``FileAccess.store_var`` records), ``packet_stream``
(``PacketPeerStream`` packets) or ``base64`` (``Marshalls.variant_to_base64`` text).
:meth:`GodotCodec.decode` gives the Variant (``raw``, ``base64``) or the list of records
(``store_var``, ``packet_stream``), and paths in messages and byte maps start with the
record's index for the framed ones (``$[1]["player"]``).

The JSON (:meth:`~GodotCodec.to_json`, :meth:`~GodotCodec.from_json`, as ``gameserde
decode``/``encode``) is the view of the value, bare when encoding it with the default options
gives back the same bytes (one raw Godot 4 Variant in the native view), else under a header
that records how it was made::

    {"$godot": {"profile": "godot4", "framing": "store_var", "json": "plain",
                "big_endian": false},
     "$records": [...]}

(``"$value"`` instead of ``"$records"`` for one Variant). :meth:`~GodotCodec.from_json`
follows the header where the codec was not given the option, and refuses an option that
contradicts it.
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from gameserde._bytemap import Path, Region
from gameserde.codecs import Buffer, ByteMap, Codec, Row
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeError,
    GameserdeWarning,
    UsageError,
)
from gameserde.formats import FormatInfo, Option, check_max_depth, check_options, max_depth_option
from gameserde.godot import framing as fr
from gameserde.godot.decoder import NestingError
from gameserde.godot.encoder import encode as encode_value
from gameserde.godot.inspect import regions
from gameserde.godot.jsonview import from_jsonable, needs_full_objects, to_jsonable
from gameserde.godot.profiles import MAX_DEPTH, MAX_DEPTH_LIMIT, PROFILES
from gameserde.godot.resource.interface import ResourceSide, is_resource_data
from gameserde.godot.resource.jsonview import is_resource_document
from gameserde.godot.resource.model import ResourceFile

__all__ = ["FORMAT", "HEADER", "GodotCodec", "codec"]

HEADER = "$godot"
"""The key of the header a JSON document starts with when its options are not the defaults."""

_FRAMED = ("store_var", "packet_stream")
_JSON_MODES = ("native", "plain")
_FULL_OBJECTS = ("auto", "yes", "no")


class Settings(NamedTuple):
    """What the JSON header records: how the bytes are laid out and viewed."""

    profile: str
    framing: str
    big_endian: bool
    json: str


_DEFAULTS = Settings("godot4", "raw", False, "native")


class _Scan(NamedTuple):
    """What reading the data found: the bytes the Variants are read from (base64: the bytes
    the text stands for), the records read, and the reason the rest could not be (the bare
    message, without advice)."""

    raw: memoryview
    found: list[fr.Record]
    error: DecodeError | None


class GodotCodec(Codec):
    """Godot Variant binary in one framing and profile; build it with :func:`codec` (or
    ``gameserde.codec("godot", ...)``), whose keywords are the command line's options.

    ``options`` holds only the options given (``None`` stands for one not given): the JSON's
    ``"$godot"`` header decides the others when :meth:`from_json` reads a document.
    """

    format = "godot"

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__({k: v for k, v in options.items() if v is not None})
        given = {k: v for k, v in self.options.items() if k != "target"}
        check_options(FORMAT, given)
        for key, choices in (("profile", tuple(PROFILES)), ("framing", fr.FRAMINGS),
                             ("json", _JSON_MODES)):
            if key in given and given[key] not in choices:
                raise UsageError(f"--{key} takes {_one_of(choices)}, not "
                                 f"{_short(given[key])}")
        for key in ("big_endian", "double_precision", "allow_trailing"):
            if key in given and not isinstance(given[key], bool):
                raise UsageError(f"{key} is true or false (--{key.replace('_', '-')} or "
                                 f"not), not {_short(given[key])}")
        full = given.get("full_objects", "auto")
        if isinstance(full, bool):
            full = "yes" if full else "no"
        if full not in _FULL_OBJECTS:
            raise UsageError(f"--full-objects takes {_one_of(_FULL_OBJECTS)}, not "
                             f"{_short(full)}")
        self.full_objects: str = full
        self.max_depth: int = check_max_depth(given.get("max_depth", MAX_DEPTH),
                                              MAX_DEPTH_LIMIT)
        self.double_precision: bool = given.get("double_precision", False)
        self.allow_trailing: bool = given.get("allow_trailing", False)
        self.settings = Settings(given.get("profile", _DEFAULTS.profile),
                                 given.get("framing", _DEFAULTS.framing),
                                 given.get("big_endian", _DEFAULTS.big_endian),
                                 given.get("json", _DEFAULTS.json))
        self.resources = ResourceSide(self.settings.json, self.options.get("target"))
        """Resource and scene files (``.res``, ``.tres``, ...), which this codec hands on."""
        if self.settings.big_endian and self.settings.framing != "store_var":
            if "framing" not in given:
                raise UsageError("--big-endian applies to --framing store_var only; add "
                                 "--framing store_var")
            raise UsageError(f"--big-endian applies to --framing store_var only, not --framing "
                             f"{self.settings.framing} (convert: the written side keeps "
                             "--big-endian unless given --to-no-big-endian)")
        if self.double_precision and self.settings.profile != "godot4":
            raise UsageError(f"--double-precision is a Godot 4 setting; --profile "
                             f"{self.settings.profile} has no 64-bit math types")

    # -----------------------------------------------------------------------------------------
    # Values

    def decode(self, data: Buffer) -> Any:
        """The Variant (``raw``, ``base64``) or the list of records (``store_var``,
        ``packet_stream``); bytes after a raw or base64 Variant are reported as a
        :class:`~gameserde.errors.GameserdeWarning` unless ``allow_trailing``. A resource
        or scene file gives its :class:`~gameserde.godot.resource.ResourceFile`."""
        if is_resource_data(data):
            return self.resources.decode(data)
        scan = self._read(data)
        note = self._trailing_note(scan)
        if note:
            warnings.warn(f"{note} and so does the decoded value", GameserdeWarning,
                          stacklevel=2)
        return self._value_of(scan)

    def encode(self, value: Any) -> bytes:
        """The bytes of ``value`` in the codec's framing (``store_var``, ``packet_stream``:
        ``value`` is the list of records); a :class:`~gameserde.godot.resource.ResourceFile`
        in the form ``target`` names, else in its own."""
        if isinstance(value, ResourceFile):
            return self.resources.encode(value)
        return self._write(_records_of(value, self.settings.framing), self.settings)

    def to_jsonable(self, value: Any) -> Any:
        """The JSON values :meth:`to_json` writes for ``value`` (with the ``"$godot"`` header
        unless the options are the defaults)."""
        if isinstance(value, ResourceFile):
            return self.resources.to_jsonable(value)
        s = self.settings
        body = self._body(value)
        if _header(s) == _header(_DEFAULTS):
            return body
        return {HEADER: _header(s), _body_key(s.framing): body}

    def to_row(self, value: Any) -> Row:
        """Variants have no schema: the row is the value's JSON values in the codec's JSON
        form (``json="plain"`` gives plain objects a query reads by key), without the
        ``"$godot"`` header (a Parquet part keeps the codec's options in its metadata)."""
        if isinstance(value, ResourceFile):  # its JSON document
            return Row("value", None, None, self.resources.to_jsonable(value))
        return Row("value", None, None, self._body(value))

    def _body(self, value: Any) -> Any:
        s = self.settings
        if s.framing in _FRAMED:
            return [to_jsonable(v, mode=s.json, max_depth=self.max_depth)  # type: ignore[arg-type]
                    for v in _records_of(value, s.framing)]
        return to_jsonable(value, mode=s.json, max_depth=self.max_depth)  # type: ignore[arg-type]

    def from_jsonable(self, obj: Any) -> Any:
        """The value JSON values stand for, read as their ``"$godot"`` header says; a header
        whose profile, framing or byte order is not the codec's is refused (the bytes would
        not be those the JSON was made from): :meth:`from_json` follows the header."""
        if is_resource_document(obj):
            return self.resources.from_jsonable(obj)
        head = _read_header(obj)
        settings = self._following(head)
        for key in ("profile", "framing", "big_endian"):
            if getattr(settings, key) != getattr(self.settings, key):
                raise UsageError(
                    f"the JSON was decoded with {_option(key, getattr(settings, key))} (its "
                    f'"{HEADER}" header says so) and this codec writes '
                    f"{_option(key, getattr(self.settings, key))}; make the codec with "
                    f"{key}={getattr(settings, key)!r}, or use from_json, which follows the "
                    "header")
        values = self._values(obj, head, settings)
        return values if settings.framing in _FRAMED else values[0]

    # -----------------------------------------------------------------------------------------
    # Text

    def to_json(self, data: Buffer, *, pretty: bool = False) -> str:
        """``data`` as JSON text, exactly what ``gameserde decode godot`` writes."""
        from gameserde._jsonio import dumps

        if is_resource_data(data):
            return self.resources.to_json(data, pretty=pretty)
        scan = self._read(data)
        note = self._trailing_note(scan)
        if note:
            warnings.warn(f"{note} and so does this JSON", GameserdeWarning, stacklevel=2)
        try:
            return dumps(self.to_jsonable(self._value_of(scan)), pretty=pretty).decode("utf-8")
        except EncodeError as e:
            e.format = self.format
            raise

    def from_json(self, text: str | Buffer) -> bytes:
        """The bytes of JSON ``text``, exactly what ``gameserde encode godot`` writes: the
        options its ``"$godot"`` header records apply where the codec was not given them."""
        from gameserde._jsonio import loads

        doc = loads(text if isinstance(text, str) else bytes(text), format=self.format)
        if is_resource_document(doc):
            return self.resources.encode(self.resources.from_jsonable(doc))
        head = _read_header(doc)
        settings = self._following(head)
        return self._write(self._values(doc, head, settings), settings)

    # -----------------------------------------------------------------------------------------
    # Checks

    def verify(self, data: Buffer) -> str:
        """``ok: ...`` when the engine reads all of ``data`` back in the codec's framing;
        bytes after a raw or base64 Variant fail unless ``allow_trailing``. A resource or
        scene file is ok when it reads and writes back to its own bytes."""
        if is_resource_data(data):
            return self.resources.verify(data)
        scan = self._read(data)
        s = self.settings
        error = self._trailing_error(scan)
        if error is not None:
            raise self._explain(error, _view(data, s))
        where = f"profile {s.profile}"
        if s.framing in _FRAMED:
            noun = "store_var record" if s.framing == "store_var" else "packet"
            plural = "" if len(scan.found) == 1 else "s"
            return f"ok: {len(scan.found)} {noun}{plural} in {len(_view(data, s))} bytes ({where})"
        record = scan.found[0]
        text = f"ok: one {_type_name(record.value)} of {record.size} bytes ({where})"
        if record.size < len(scan.raw):
            text += (f"; the {len(scan.raw) - record.size} bytes after it are ignored, as the "
                     "engine ignores them")
        return text

    def inspect(self, data: Buffer) -> ByteMap:
        """One row per region: a container's header and size, every other value's header
        and payload, each record's length prefix (type ``length prefix``), the bytes after a
        raw Variant (``trailing bytes``); up to the first error, marked ``ERROR``. Offsets
        count bytes of the file (base64: of the bytes the text stands for, as a note says)."""
        if is_resource_data(data):
            return self.resources.inspect(data)
        s = self.settings
        view = _view(data, s)
        try:
            scan = self._scan(view)
        except DecodeError as e:  # base64 text that is not base64
            return ByteMap(self.format, bytes(view), error=self._explain(e, view))
        error = scan.error if scan.error is not None else self._trailing_error(scan)
        rows = self._rows(scan)
        notes = []
        if s.framing == "base64":
            notes.append(f"base64 text of {len(view)} bytes; offsets count the {len(scan.raw)} "
                         "bytes it stands for")
        return ByteMap(self.format, bytes(scan.raw), rows,
                       error=None if error is None else self._explain(error, view),
                       notes=notes)

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data`` written with ``to``'s profile, framing and byte order: records stay
        records; one Variant becomes one record, and a single record one Variant. A resource
        or scene file is written in the form ``to``'s ``target`` names (as the engine
        converts it), else in its own."""
        if not isinstance(to, GodotCodec) or is_resource_data(data):
            return super().convert(data, to)
        if "json" in self.options:
            raise UsageError("--json applies to decode and encode; convert writes no JSON")
        scan = self._read(data)
        note = self._trailing_note(scan)
        if note:
            warnings.warn(f"{note} and so does the converted data", GameserdeWarning,
                          stacklevel=2)
        values = [r.value for r in scan.found]
        target = to.settings.framing
        if target not in _FRAMED and len(values) != 1:
            noun = "store_var records" if self.settings.framing == "store_var" else "packets"
            raise EncodeError(f"the data holds {len(values)} {noun} and --to-framing {target} "
                              "writes one Variant; write them with --to-framing store_var or "
                              "packet_stream", format=self.format)
        return to._write(values, to.settings)

    # -----------------------------------------------------------------------------------------
    # Reading

    def _scan(self, view: memoryview) -> _Scan:
        """Every record of ``view`` up to the first error (raised only for base64 text that
        is not base64)."""
        s = self.settings
        if self.allow_trailing and s.framing in _FRAMED:
            raise UsageError(f"--allow-trailing applies to --framing raw and base64: {s.framing} "
                             "records run to the end of the data")
        raw = memoryview(fr.base64_bytes(view)) if s.framing == "base64" else view
        found: list[fr.Record] = []
        try:
            for record in fr.records(raw, framing="raw" if s.framing == "base64" else s.framing,
                                     big_endian=s.big_endian, profile=s.profile,
                                     allow_objects=True, max_depth=self.max_depth):
                found.append(record)
        except DecodeError as e:
            if s.framing in _FRAMED:
                e.add_parent(f"[{len(found)}]")
            return _Scan(raw, found, e)
        return _Scan(raw, found, None)

    def _read(self, data: Buffer) -> _Scan:
        """The records of ``data``; a failure says which options would read it, if any."""
        view = _view(data, self.settings)
        try:
            scan = self._scan(view)
        except DecodeError as e:
            raise self._explain(e, view) from None
        if scan.error is not None:
            raise self._explain(scan.error, view) from None
        return scan

    def _explain(self, error: DecodeError, data: Any) -> DecodeError:
        """``error`` with the options that would read ``data``: a larger ``--max-depth``
        when it nests too deeply, else the framing and profile under which all of it
        decodes, if there is one."""
        if isinstance(error, NestingError):
            if self.max_depth == MAX_DEPTH:
                error.message += (f". Godot 4 and 3.5 refuse it too (Godot 3.2.3 has no limit): "
                                  f"use --max-depth N, up to {MAX_DEPTH_LIMIT}, to read deeper "
                                  "values")
            else:
                error.message += (f". Use a --max-depth above {self.max_depth} (at most "
                                  f"{MAX_DEPTH_LIMIT}) to read it")
            return error
        s = self.settings
        tried = fr.Guess(s.framing, s.big_endian, s.profile)
        guess = fr.guess_framing(data, profile=s.profile, exclude=tried,
                                 max_depth=self.max_depth)
        if guess is not None:
            error.message += ". " + _advice(guess, tried)
        return error

    def _trailing_note(self, scan: _Scan) -> str:
        """For a warning: the bytes after a raw or base64 Variant, unless allowed."""
        end = scan.found[0].size if scan.found else 0
        if self.allow_trailing or self.settings.framing in _FRAMED or end >= len(scan.raw):
            return ""
        where = " (in the bytes the base64 text stands for)" \
            if self.settings.framing == "base64" else ""
        return (f"{len(scan.raw) - end} bytes after the value at byte {end}{where} are not "
                "part of it; the engine ignores them")

    def _trailing_error(self, scan: _Scan) -> DecodeError | None:
        """For verify and inspect: the bytes after a raw or base64 Variant, unless allowed."""
        end = scan.found[0].size if scan.found else 0
        if self.allow_trailing or self.settings.framing in _FRAMED or end >= len(scan.raw):
            return None
        return fr.trailing_bytes(end, len(scan.raw), self.settings.framing,
                                 "; --allow-trailing accepts them")

    def _value_of(self, scan: _Scan) -> Any:
        values = [r.value for r in scan.found]
        return values if self.settings.framing in _FRAMED else values[0]

    def _rows(self, scan: _Scan) -> list[Region]:
        """The byte map's rows for what ``scan`` read, and the failing region."""
        s = self.settings
        opts: dict[str, Any] = {"profile": s.profile, "max_depth": self.max_depth}
        raw = scan.raw
        if s.framing not in _FRAMED:
            rows = regions(raw, **opts)
            end = scan.found[0].size if scan.found else len(raw)
            if end < len(raw):
                rows.append(Region(end, len(raw) - end, Path(None, "$"), "trailing bytes",
                                   f"{len(raw) - end} bytes the engine ignores"))
            return rows
        rows = []
        order: Literal["big", "little"] = "big" if s.big_endian else "little"
        pos = 0
        for index in range(len(scan.found) + (scan.error is not None)):
            where = Path(None, f"$[{index}]")
            left = len(raw) - pos
            size = int.from_bytes(raw[pos:pos + 4], order) if left >= 4 else 0
            if left >= 4:
                over = "" if size <= left - 4 else f", more than the {left - 4} bytes left"
                rows.append(Region(pos, 4, where, "length prefix", f"{size} bytes{over}"))
            error = scan.error
            if index == len(scan.found) and error is not None and (
                    error.offset is None or error.offset < pos + 4):  # the framing failed
                rows.append(Region(pos, left, where, "ERROR", error.message))
                break
            rows.extend(regions(raw[pos + 4:pos + 4 + size], root=str(where), base=pos + 4,
                                **opts))
            pos += 4 + size
        return rows

    # -----------------------------------------------------------------------------------------
    # Writing

    def _following(self, head: dict[str, Any] | None) -> Settings:
        """The settings a JSON document is read and written with: an option given, else the
        header's, else the default; an option that contradicts the header is refused."""
        out = {}
        for key, default in _DEFAULTS._asdict().items():
            given = self.options.get(key)
            recorded = None if head is None else head.get(key)
            if given is not None and recorded is not None and given != recorded:
                raise UsageError(
                    f"the JSON was decoded with {_option(key, recorded)} (its \"{HEADER}\" "
                    f"header says so) but {_option(key, given)} was given; drop the option, or "
                    "change the header to encode the data another way")
            out[key] = given if given is not None else recorded if recorded is not None \
                else default
        settings = Settings(**out)
        if settings.big_endian and settings.framing != "store_var":
            raise _doc_error(f"big_endian applies to the store_var framing only, and the "
                             f"header's framing is {settings.framing}", f'$["{HEADER}"]')
        return settings

    def _values(self, doc: Any, head: dict[str, Any] | None, settings: Settings) -> list[Any]:
        """The values of a JSON document: one per record, or the one Variant."""
        body, path = _body(doc, head, settings)
        kind = settings.framing
        if kind in _FRAMED:
            if not isinstance(body, list):
                raise _doc_error(f"with --framing {kind} the JSON is an array of records", path)
            return [self._value(v, f"{path}[{i}]", settings, head) for i, v in enumerate(body)]
        return [self._value(body, path, settings, head)]

    def _value(self, obj: Any, path: str, settings: Settings,
               head: dict[str, Any] | None) -> Any:
        depth = self.max_depth
        try:
            return from_jsonable(obj, mode=settings.json, path=path,  # type: ignore[arg-type]
                                 max_depth=depth)
        except DecodeError as e:
            if head is None and settings.json == "native" and not _looks_native(obj):
                try:
                    from_jsonable(obj, mode="plain", path=path, max_depth=depth)
                except GameserdeError:
                    raise e from None
                e.message += ". The document reads as plain JSON: add --json plain."
            raise

    def _write(self, values: list[Any], settings: Settings) -> bytes:
        """The bytes of ``values`` (one per record, or the one Variant) in ``settings``."""
        if self.double_precision and settings.profile != "godot4":
            raise UsageError(f"--double-precision is a Godot 4 setting, and the JSON's "
                             f"\"{HEADER}\" header says --profile {settings.profile}")
        full = self.full_objects == "yes" or (
            self.full_objects == "auto" and any(needs_full_objects(v) for v in values))
        opts: dict[str, Any] = {"profile": settings.profile, "full_objects": full,
                                "double_precision": self.double_precision,
                                "max_depth": self.max_depth}
        kind = settings.framing
        if kind not in _FRAMED:
            if kind == "base64":
                return (fr.variant_to_base64(values[0], **opts) + "\n").encode("ascii")
            return encode_value(values[0], **opts)
        out = []
        for index, value in enumerate(values):
            try:
                if kind == "store_var":
                    out.append(fr.store_var(value, big_endian=settings.big_endian, **opts))
                else:
                    out.append(fr.put_packet(value, **opts))
            except EncodeError as e:
                e.add_parent(f"[{index}]")
                raise
        return b"".join(out)


def codec(*, profile: str | None = None, framing: str | None = None,
          big_endian: bool | None = None, json: str | None = None, max_depth: int = MAX_DEPTH,
          full_objects: str | bool = "auto", double_precision: bool = False,
          allow_trailing: bool = False) -> GodotCodec:
    """A Godot codec; the keywords are the command line's options (``--max-depth`` is
    ``max_depth=``).

    ``profile`` (``"godot4"``, ``"godot3"``, ``"docs"``), ``framing`` (``"raw"``,
    ``"store_var"``, ``"packet_stream"``, ``"base64"``), ``big_endian`` (store_var length
    prefixes; only with ``framing="store_var"``) and ``json`` (``"native"``, ``"plain"``)
    default to ``godot4``, ``raw``, little-endian and ``native``, except that
    :meth:`~GodotCodec.from_json` follows a document's ``"$godot"`` header where they are not
    given. ``max_depth``: the deepest nesting read or written (the engine's 1024; at most
    100000). ``full_objects`` (``"auto"``: when the value holds any; ``"yes"``/``True``,
    ``"no"``/``False``) writes Objects in full; ``double_precision`` writes math types as a
    ``real_t=double`` Godot 4 build does; ``allow_trailing`` accepts bytes after a raw or
    base64 Variant (the engine ignores them). Options that cannot go together raise
    :class:`~gameserde.errors.UsageError`.
    """
    return GodotCodec({"profile": profile, "framing": framing, "big_endian": big_endian,
                       "json": json, "max_depth": max_depth, "full_objects": full_objects,
                       "double_precision": double_precision, "allow_trailing": allow_trailing})


# ---------------------------------------------------------------------------------------------
# Helpers


def _view(data: Any, settings: Settings) -> memoryview:
    """``data`` as bytes; base64 text may also be a ``str``."""
    if isinstance(data, str) and settings.framing == "base64":
        data = data.encode("utf-8", "surrogateescape")
    try:
        if isinstance(data, str):
            raise TypeError
        return memoryview(data).cast("B")
    except TypeError:
        raise UsageError(f"godot codecs read bytes (bytes, bytearray or memoryview), not "
                         f"{type(data).__name__}") from None


def _records_of(value: Any, framing: str) -> list[Any]:
    """``value`` as the list of values to write: the records, or the one Variant."""
    if framing not in _FRAMED:
        return [value]
    if not isinstance(value, list):
        raise EncodeError(f"with framing {framing} the value is the list of records, not "
                          f"{_type_name(value)}", format="godot")
    return value


def _header(settings: Settings) -> dict[str, Any]:
    head: dict[str, Any] = {"profile": settings.profile, "framing": settings.framing,
                            "json": settings.json}
    if settings.framing == "store_var":
        head["big_endian"] = settings.big_endian
    return head


def _body_key(framing: str) -> str:
    return "$records" if framing in _FRAMED else "$value"


def _read_header(doc: Any) -> dict[str, Any] | None:
    """The document's header, checked, or None when it has none."""
    if not (isinstance(doc, dict) and HEADER in doc):
        return None
    head = doc[HEADER]
    if not isinstance(head, dict):
        raise _doc_error(f'the "{HEADER}" header must be an object, not {head!r:.40}', "$")
    choices: dict[str, list[Any]] = {
        "profile": list(PROFILES), "framing": list(fr.FRAMINGS), "json": list(_JSON_MODES),
        "big_endian": [True, False]}
    for key, value in head.items():
        if key not in choices:
            raise _doc_error(f'the "{HEADER}" header has no key {key!r} (it knows '
                             f"{', '.join(choices)})", f'$["{HEADER}"]')
        if value not in choices[key] or type(value) is not type(choices[key][0]):
            raise _doc_error(f"{key} must be one of {', '.join(map(str, choices[key]))}, not "
                             f"{value!r:.40}", f'$["{HEADER}"]["{key}"]')
    return head


def _body(doc: Any, head: dict[str, Any] | None, settings: Settings) -> tuple[Any, str]:
    """The values of a document and their path: all of it, or what follows its header."""
    if head is None:
        return doc, "$"
    key = _body_key(settings.framing)
    others = [k for k in doc if k not in (HEADER, key)]
    if key not in doc or others:
        found = ", ".join(repr(k) for k in others) or "nothing"
        raise _doc_error(f'after its "{HEADER}" header the document must hold "{key}" only '
                         f"(found {found})", "$")
    return doc[key], f'$["{key}"]'


def _doc_error(message: str, path: str) -> DecodeError:
    return DecodeError(message, path=path, format="godot", verb="encode")


_NATIVE_PREFIXES = ("s:", "i:", "f:", "sn:", "np:")


def _looks_native(doc: Any) -> bool:
    """Whether ``doc`` holds a string or object in the native view's forms."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item.startswith(_NATIVE_PREFIXES):
            return True
        if isinstance(item, dict):
            if "type" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _option(key: str, value: Any) -> str:
    if key == "big_endian":
        return "--big-endian" if value else "little-endian lengths"
    return f"--{key} {value}"


_READINGS = {
    ("raw", False): "as one Variant",
    ("store_var", False): "as store_var records (a 4-byte length before each Variant)",
    ("store_var", True): "as store_var records with big-endian lengths",
    ("base64", False): "as the base64 text of a Variant",
}


def _advice(guess: fr.Guess, tried: fr.Guess) -> str:
    reading = _READINGS[guess.framing, guess.big_endian]
    options = [f"--framing {guess.framing}"]
    if guess.big_endian:
        options.append("--big-endian")
    if guess.profile != tried.profile:
        reading += f" of profile {guess.profile}"
        options.append(f"--profile {guess.profile}")
    without = " without --big-endian" if tried.big_endian and not guess.big_endian else ""
    return f"The whole file decodes {reading}: use {' '.join(options)}{without}."


def _type_name(value: Any) -> str:
    names = {type(None): "Nil", bool: "bool", int: "int", float: "float", str: "String",
             list: "Array", dict: "Dictionary", bytes: "PackedByteArray"}
    return names.get(type(value), type(value).__name__)


def _one_of(choices: tuple[str, ...]) -> str:
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------------------------------
# Declarations


def _table(rows: dict[str, str]) -> str:
    return "\n".join(textwrap.fill(v, 88, initial_indent=f"  {k:<14} ",
                                   subsequent_indent=" " * 17) for k, v in rows.items())


_FRAMING_HELP = {
    "raw": "one Variant, as var_to_bytes makes it (bytes after it: a warning, and verify "
           "fails, unless --allow-trailing)",
    "store_var": "FileAccess.store_var / StreamPeer.put_var records: 4-byte length + Variant, "
                 "any number of them (JSON: one element of \"$records\" per record)",
    "packet_stream": "PacketPeerStream packets: little-endian 4-byte length + Variant, at most "
                     "65532 bytes each (JSON: one element of \"$records\" per packet)",
    "base64": "Marshalls.variant_to_base64 text",
}
_JSON_HELP = {
    "native": 'Godot 4.4\'s JSON.from_native convention: "i:1", "f:1.5", "s:text", '
              '{"type": "Vector3", "args": [...]}, extended to lose nothing',
    "plain": 'JSON\'s own values as themselves ({"hp": 87.5, "name": "Aria"}), other types '
             'tagged ({"$Vector3": [1.0, 2.0, 3.0]}, {"$StringName": "idle"}); for editing',
}

_EPILOG = f"""framings:
{_table(_FRAMING_HELP)}

profiles:
  godot4         Godot 4.4+ (default): typed containers, StringName, PackedVector4Array, ...
  godot3         Godot 3.1+: 3.x type ids and pool arrays
  docs           the type table of the published docs page, which matches neither engine

JSON views (decode and encode):
{_table(_JSON_HELP)}

decode then encode gives back identical bytes. When the bare JSON would not (another framing,
profile or JSON view), decode writes a "$godot" header recording them, and encode follows it.
Full Objects are shown as data and never instantiated. Paths: $[1]["hp"] is the key "hp" of
the second element (with store_var and packet_stream framing: of the second record).

When the data does not decode, the error (exit status 1) names the framing or profile under
which the whole file would decode, if there is one, or --max-depth when values nest too
deeply; inspect prints its map up to the failing region first.

examples:
  gameserde decode godot --framing store_var savegame.sav -o save.json
  gameserde encode godot save.json -o save.sav
  gameserde convert godot --profile godot3 --to-profile godot4 old.bin -o new.bin
  gameserde convert godot --framing store_var --to-framing raw one-record.sav -o value.bin"""


def _make(**options: Any) -> GodotCodec:
    return GodotCodec(options)


FORMAT = FormatInfo(
    name="godot",
    description="Godot Variant binary (var_to_bytes, store_var, packets)",
    make=_make,
    options=(
        Option("profile", ("--profile",),
               "type numbering and engine generation (default godot4; encode: the JSON's "
               "\"$godot\" header, else godot4)", parse=str, choices=tuple(PROFILES),
               output=True, default="godot4",
               to_help="the profile written (default: the one read)"),
        Option("framing", ("--framing",),
               "how the Variants are framed (default raw; encode: the JSON's \"$godot\" "
               "header, else raw)", parse=str, choices=fr.FRAMINGS, output=True, default="raw",
               to_help="the framing written (default: the one read)"),
        Option("big_endian", ("--big-endian",),
               "store_var length prefixes are big-endian (FileAccess.big_endian, Godot 3 "
               "endian_swap); only with --framing store_var", output=True, default=False,
               to_help="write big-endian store_var length prefixes (default: as read; only "
                       "with store_var framing written)"),
        max_depth_option(MAX_DEPTH, MAX_DEPTH_LIMIT, ", the engine's"),
        Option("json", ("--json",),
               "the JSON view, native or plain, described below (default native; encode: the "
               "JSON's \"$godot\" header, else native)", parse=str, choices=_JSON_MODES,
               verbs=("decode", "encode"), default="native"),
        Option("allow_trailing", ("--allow-trailing",),
               "accept bytes after a raw or base64 Variant, which the engine ignores: verify "
               "and inspect pass, decode and convert do not warn",
               verbs=("decode", "verify", "inspect", "convert"), default=False),
        Option("full_objects", ("--full-objects",),
               "write Objects in full and keep class names of typed containers (default auto: "
               "when the value holds any)", parse=str, choices=_FULL_OBJECTS,
               verbs=("encode",), output=True, default="auto"),
        Option("double_precision", ("--double-precision",),
               "write math types as a real_t=double Godot 4 build does", verbs=("encode",),
               output=True, default=False),
    ),
    epilog=_EPILOG,
    takes_target=True,  # a resource file is written in the form the output's name says
)
"""The Godot format's declarations: its codec factory and options."""
