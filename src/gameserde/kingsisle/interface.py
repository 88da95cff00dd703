"""KingsIsle ObjectProperty on the codec interface (:mod:`gameserde.codecs`): the codec a type
list makes (:meth:`KiSchema.codec <gameserde.kingsisle.typelist.KiSchema.codec>`,
``gameserde.codec("kingsisle", schema=...)``) and the options ``gameserde VERB kingsisle``
takes (:data:`FORMAT`).

A codec reads what katsuba reads: a stream as a serializer with its options reads it, or a
``BINd`` file (it starts with ``BINd``: deep mode and the file's own flags, whatever the
options say), or the XML form libki writes (it starts with ``<?xml`` or ``<Objects``). It
writes a stream, a ``BINd`` file (``bind``) or the XML form (``xml``).
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import EllipsisType
from typing import Any

from gameserde._bytemap import Path as MapPath
from gameserde._bytemap import Region
from gameserde.codecs import Buffer, ByteMap, Codec, Row
from gameserde.errors import DecodeError, GameserdeWarning, UsageError
from gameserde.formats import (
    FormatInfo,
    Option,
    check_max_depth,
    check_options,
    max_depth_option,
    max_expansion_option,
    schema_option,
)
from gameserde.kingsisle._limits import MAX_DEPTH, data_bytes
from gameserde.kingsisle.files import BIND_FLAGS, BIND_MAGIC, read_bind, write_bind
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import (
    ALL_FLAGS,
    MAX_EXPANSION,
    STATEFUL_FLAGS,
    Serializer,
    trailing_inflated,
)
from gameserde.kingsisle.typelist import KiSchema, load_schema

__all__ = ["FORMAT", "MAX_DEPTH_LIMIT", "KiByteMap", "KiCodec", "make"]

MAX_DEPTH_LIMIT = 100_000
"""The largest ``max_depth`` a codec takes."""

_FOLLOWED = ("the zlib data", "the zlib data", "the root object")
"""What the bytes each part of ``KiObject.trailing`` keeps follow."""


def _is_xml(data: bytes) -> bool:
    """Whether ``data`` is the XML form: it starts (after a byte-order mark and blanks) with
    ``<?xml`` or ``<Objects``, which no stream of a type list's class does in practice."""
    head = data[:64].removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return head.startswith((b"<?xml", b"<Objects"))


class KiCodec(Codec):
    """A KingsIsle codec: a type list and the serializer's options (see :func:`make`)."""

    format = "kingsisle"

    def __init__(self, schema: KiSchema, options: Mapping[str, Any], *, flags: int | None,
                 mask: int, deep: bool, manual_compression: bool, bind: bool, xml: bool,
                 enum_names: bool, skip_unknown_types: bool, max_depth: int,
                 max_expansion: float | None, expansion_given: bool) -> None:
        super().__init__(options)
        self.schema = schema
        self.flags = flags
        self.mask = mask
        self.deep = deep
        self.manual_compression = manual_compression
        self.bind = bind
        self.xml = xml
        self.enum_names = enum_names
        self.skip_unknown_types = skip_unknown_types
        self.max_depth = max_depth
        self.max_expansion = max_expansion
        self._expansion_given = expansion_given
        self.json_output = not xml  # the XML form has one layout: --pretty/--compact refused
        self.serializer = Serializer(schema, flags=flags or 0, shallow=not (deep or bind),
                                     property_mask=mask,
                                     manual_compression=manual_compression,
                                     skip_unknown_types=skip_unknown_types and (deep or bind),
                                     max_depth=max_depth, max_expansion=max_expansion)
        """The serializer of the streams this codec reads and writes."""

    # -- reading ---------------------------------------------------------------------------

    def decode(self, data: Buffer) -> KiObject:
        """The root object of a stream, a ``BINd`` file or the XML form (which ``data`` is
        says itself; with ``bind``, it must be a ``BINd`` file or XML)."""
        raw = data_bytes(data)
        if _is_xml(raw):
            from gameserde.kingsisle.xmltext import from_xml

            return from_xml(raw, self.schema, max_depth=self.max_depth)
        if self.bind or raw[:4] == BIND_MAGIC:
            if self.manual_compression:
                raise UsageError("--manual-compression does not apply to BINd files (which "
                                 "start with BINd)")
            return read_bind(raw, self.schema, property_mask=self.mask,
                             skip_unknown_types=self.skip_unknown_types,
                             max_depth=self.max_depth, max_expansion=self.max_expansion)
        if self.skip_unknown_types and not self.deep:
            raise UsageError("--skip-unknown-types needs --deep for a stream (shallow objects "
                             "carry no sizes to skip by)")
        return self.serializer.decode(raw)

    def verify(self, data: Buffer) -> str:
        raw = data_bytes(data)
        obj = self.decode(raw)
        kind = ("XML file" if _is_xml(raw) else
                "BINd file" if raw[:4] == BIND_MAGIC else "stream")
        _note_trailing(obj, "readers ignore them, as katsuba does")
        return f"ok: a sound {kind} of {len(raw)} bytes holding a {obj.type_name}"

    def inspect(self, data: Buffer) -> KiByteMap:
        """The bit map of a stream or a ``BINd`` file (an XML file is one row); rows of
        compressed data refer to the bytes it inflates to, a section of its own."""
        from gameserde.kingsisle.inspect import MAP_EXPANSION, Section, stream_map

        raw = data_bytes(data)
        error: DecodeError | None = None
        with warnings.catch_warnings():  # the map shows what is skipped, row by row
            warnings.simplefilter("ignore", GameserdeWarning)
            try:
                obj = self.decode(raw)
            except DecodeError as e:
                error, obj = e, None
        root = MapPath(None, "$")
        if _is_xml(raw):
            note = obj.type_name if obj is not None else "not read"
            section = Section("XML document", raw, [Region(0, len(raw), root, "XML", note)])
            return KiByteMap(self.format, raw, list(section.rows), error,
                             sections=[section])
        rows_factor = self.max_expansion if self._expansion_given else MAP_EXPANSION
        if raw[:4] == BIND_MAGIC:
            reader = Serializer(self.schema, flags=STATEFUL_FLAGS, shallow=False,
                                property_mask=self.mask,
                                skip_unknown_types=self.skip_unknown_types,
                                max_depth=self.max_depth, max_expansion=self.max_expansion)
            m = stream_map(raw, reader, offset=len(BIND_MAGIC), max_expansion=rows_factor)
            m.sections[0].rows.insert(0, Region(0, len(BIND_MAGIC), root, "magic",
                                                "BINd file"))
        elif self.bind:  # no BINd file: decode said so
            assert error is not None
            section = Section("stream", raw, [Region(0, len(raw), root, "ERROR", error.message)])
            return KiByteMap(self.format, raw, list(section.rows), error, sections=[section])
        else:
            m = stream_map(raw, self.serializer, max_expansion=rows_factor)
        last = m.sections[-1].rows[-1] if m.sections[-1].rows else None
        if error is None and last is not None and last.type == "ERROR":  # the map ran out
            error = DecodeError(last.note, offset=last.offset if len(m.sections) == 1 else None,
                                format=self.format)
        return KiByteMap(self.format, raw, m.rows, error, sections=m.sections)

    # -- writing ---------------------------------------------------------------------------

    def encode(self, value: Any) -> bytes:
        """The stream, ``BINd`` file (``bind``) or XML form (``xml``) of the root object
        ``value``."""
        if self.xml:
            from gameserde.kingsisle.xmltext import to_xml

            _note_trailing(value, "left out of the XML, which has no place for them")
            return to_xml(value, self.schema, max_depth=self.max_depth).encode("utf-8")
        if self.bind:
            return write_bind(value, self.schema,
                              flags=BIND_FLAGS if self.flags is None else self.flags,
                              property_mask=self.mask, max_depth=self.max_depth)
        return self.serializer.encode(value)

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data`` written with ``to``: the bytes ``to.encode`` writes for its root object,
        bytes kept after its parts included."""
        if self.enum_names:
            raise UsageError("--enum-names does nothing in convert: it names enum options in "
                             "JSON, and convert writes no JSON")
        return super().convert(data, to)

    # -- JSON ------------------------------------------------------------------------------

    def to_jsonable(self, value: Any) -> Any:
        """``value`` as gameserde's KingsIsle JSON (``$__type`` first; enum names with
        ``enum_names``)."""
        from gameserde.kingsisle.jsontext import to_jsonable

        _note_trailing(value, "kept in the decoded object, not in the JSON")
        return to_jsonable(value, schema=self.schema, enum_names=self.enum_names,
                           max_depth=self.max_depth)

    def from_jsonable(self, obj: Any) -> KiObject:
        from gameserde.kingsisle.jsontext import from_jsonable

        try:
            return from_jsonable(obj, self.schema, max_depth=self.max_depth)
        except DecodeError as e:
            raise _encode_error(e) from None

    def to_row(self, value: Any) -> Row:
        """The root object ``value`` as a row of the table of its class, typed by the type
        list's model with each object property a union of the classes that may appear there
        (:mod:`gameserde.kingsisle.rows`); the same whatever the mode, flags, ``xml`` or
        ``enum_names``. What the row cannot hold, and bytes after the root object, are each a
        GameserdeWarning."""
        from gameserde.kingsisle.rows import rows_of

        _note_trailing(value, "kept in the decoded object, not in the row")
        return rows_of(self.schema).row(value, max_depth=self.max_depth)

    def to_json(self, data: Buffer, *, pretty: bool = False) -> str:
        """``data`` as JSON text, or with ``xml`` as the XML form (one layout: libki's)."""
        if self.xml:
            return self.encode(self.decode(data)).decode("utf-8")
        return super().to_json(data, pretty=pretty)

    def from_json(self, text: str | Buffer) -> bytes:
        """The bytes of the object JSON text, or the XML form, stands for (whichever
        ``text`` holds)."""
        from gameserde._jsonio import loads
        from gameserde.kingsisle.jsontext import from_jsonable
        from gameserde.kingsisle.xmltext import from_xml

        raw = text if isinstance(text, str) else data_bytes(text).decode("utf-8",
                                                                          "surrogateescape")
        try:
            if raw.lstrip()[:1] == "<":
                obj = from_xml(raw, self.schema, max_depth=self.max_depth)
            else:
                obj = from_jsonable(loads(raw, format=self.format), self.schema,
                                    max_depth=self.max_depth)
        except DecodeError as e:
            raise _encode_error(e) from None
        return self.encode(obj)


def _encode_error(e: DecodeError) -> DecodeError:
    """What a reading of JSON or XML found, said as an error of encoding it."""
    e.format, e.verb = "kingsisle", "encode"
    return e


def _note_trailing(obj: Any, consequence: str) -> None:
    """Report, one warning each, the bytes after the root object or the zlib data a decoded
    ``obj`` keeps (``consequence`` ends the message)."""
    runs = getattr(obj, "trailing", None) if isinstance(obj, KiObject) else None
    for part in (2, 1, 0):  # in stream order
        run = runs[part] if runs is not None else None
        if run is None:
            continue
        offset, after = run
        where = " of the inflated data" if trailing_inflated(obj, part) else ""
        count = "1 byte" if len(after) == 1 else f"{len(after)} bytes"
        verb = "is" if len(after) == 1 else "are"
        warnings.warn(f"{count} at byte {offset} (0x{offset:x}){where}, after "
                      f"{_FOLLOWED[part]}, {verb} not part of it; {consequence}",
                      GameserdeWarning, stacklevel=3)


@dataclass
class KiByteMap(ByteMap):
    """A KingsIsle map: rows to the bit, in sections (the input, and what each zlib part
    of it inflates to, whose rows count bytes of the inflated data)."""

    sections: list[Any] = field(default_factory=list)
    """The :class:`~gameserde.kingsisle.inspect.Section` s, outermost first."""

    def render(self, *, width: int = 16) -> str:
        """The table of the input, then one per inflated section after its title line."""
        from gameserde._bytemap import render

        tables = [render(self.sections[0].data, self.sections[0].rows, width=width)]
        tables += [f"{s.title} ({len(s.data)} bytes)\n{render(s.data, s.rows, width=width)}"
                   for s in self.sections[1:]]
        return "\n\n".join(tables)

    def parts(self) -> list[tuple[str, bytes, list[Region]]]:
        """The input's section, then each inflated one, with their titles and rows."""
        return [(s.title, s.data, s.rows) for s in self.sections]


# ---------------------------------------------------------------------------------------------
# Options


def _number(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 1 << 32:
        raise argparse.ArgumentTypeError(f"--mask takes a u32 (decimal or 0x..), not {text!r}")
    return value


def _flags(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value <= ALL_FLAGS:
        raise argparse.ArgumentTypeError(f"--flags takes serializer flags, bits of "
                                         f"0x{ALL_FLAGS:x} (decimal or 0x..), not {text!r}")
    return value


def make(*, schema: str | os.PathLike[str] | KiSchema | Sequence[str | os.PathLike[str]]
         | None = None, **options: Any) -> KiCodec:
    """The codec of ``gameserde.codec("kingsisle", ...)``: ``schema`` is a type list (a path,
    several paths to merge, or a loaded :class:`KiSchema`); the other options are those of
    :meth:`KiSchema.codec`."""
    check_options(FORMAT, {**options, "schema": schema})
    if schema is None:
        raise UsageError("kingsisle codecs need a type list: schema= (--schema/-s TYPES.json)")
    if isinstance(schema, KiSchema):
        loaded = schema
    elif isinstance(schema, str | os.PathLike):
        loaded = _load(schema)
    elif isinstance(schema, Sequence) and schema and all(
            isinstance(s, str | os.PathLike) for s in schema):
        loaded = _load(*schema)
    else:
        raise UsageError(f"schema must be a type list's path, a list of paths or a KiSchema, "
                         f"not {type(schema).__name__}")
    return build(loaded, {"schema": schema, **options}, **options)


def _load(*paths: str | os.PathLike[str]) -> KiSchema:
    """The type lists at ``paths``, merged; a file that cannot be read is an OSError."""
    for path in paths:
        with open(path, "rb"):
            pass
    return load_schema(*paths)


def build(schema: KiSchema, given: Mapping[str, Any], *, flags: int | None = None,
          mask: int = 7, deep: bool = False, manual_compression: bool = False,
          bind: bool = False, xml: bool = False, enum_names: bool = False,
          skip_unknown_types: bool = False, max_depth: int = MAX_DEPTH,
          max_expansion: float | EllipsisType | None = ...) -> KiCodec:
    """The codec of ``schema`` with these options, checked (see :meth:`KiSchema.codec`);
    ``given`` is what the caller gave, kept as the codec's :attr:`~Codec.options`."""
    if flags is not None and (isinstance(flags, bool) or not isinstance(flags, int)
                              or not 0 <= flags <= ALL_FLAGS):
        raise UsageError(f"flags must be serializer flags, bits of 0x{ALL_FLAGS:x} (--flags), "
                         f"not {flags!r}")
    if isinstance(mask, bool) or not isinstance(mask, int) or not 0 <= mask < 1 << 32:
        raise UsageError(f"mask must be a u32 (--mask), not {mask!r}")
    for name, value in (("deep", deep), ("manual_compression", manual_compression),
                        ("bind", bind), ("xml", xml), ("enum_names", enum_names),
                        ("skip_unknown_types", skip_unknown_types)):
        if not isinstance(value, bool):
            raise UsageError(f"{name} must be True or False, not {value!r}")
    depth = check_max_depth(max_depth, MAX_DEPTH_LIMIT)
    factor = _factor(MAX_EXPANSION if max_expansion is ... else max_expansion)
    if bind and manual_compression:
        raise UsageError("--manual-compression does not apply to BINd files (--bind); with "
                         "convert, add --to-no-manual-compression")
    if bind and xml:
        raise UsageError("--bind writes a binary BINd file and --xml the XML form: give one "
                         "(with convert, --to-no-xml or --to-no-bind)")
    if xml and enum_names:
        raise UsageError("--enum-names does nothing with --xml: the XML form always names "
                         "enum options")
    return KiCodec(schema, given, flags=flags, mask=mask, deep=deep,
                   manual_compression=manual_compression, bind=bind, xml=xml,
                   enum_names=enum_names, skip_unknown_types=skip_unknown_types,
                   max_depth=depth, max_expansion=factor,
                   expansion_given=max_expansion is not ...)


def _factor(value: object) -> float | None:
    from gameserde._expansion import check_factor

    try:
        return check_factor(value)
    except ValueError:
        raise UsageError(f"max_expansion must be a number >= 0 or None (--max-expansion; inf: "
                         f"no limit), not {value!r}") from None


FORMAT = FormatInfo(
    name="kingsisle",
    description="KingsIsle ObjectProperty (Wizard101, Pirate101) with a type list: streams, "
                "BINd files and the XML form",
    make=make,
    options=(
        replace(schema_option("a wiztype type list (v1 or v2 JSON); repeat the option to "
                              "merge several, in order", metavar="TYPES.json",
                              aliases=("--types", "-t")), repeat=True),
        Option("flags", ("--flags",), "the serializer flags (decimal or 0x..; see below; "
               f"default 0, and {BIND_FLAGS} for a BINd file written)", parse=_flags,
               metavar="N",
               output=True, default=0),
        Option("mask", ("--mask",), "the property mask: a property is in the stream when its "
               "flags have all these bits (default 7, katsuba 0.6.0's; older tools use 0x18)",
               parse=_number, metavar="N", output=True, default=7),
        Option("deep", ("--deep",), "deep mode: objects and properties carry sizes and hashes "
               "(default: shallow)", output=True),
        Option("manual_compression", ("--manual-compression",), "the whole stream is a u32 "
               "size and zlib data", output=True),
        Option("bind", ("--bind",), 'write a BINd file: "BINd" and a deep stream (reading, '
               "a BINd file is recognised by itself)", verbs=("encode",), output=True),
        Option("xml", ("--xml",), "decode: print the XML form (<Objects><Class Name=...>) "
               "instead of JSON; encode: write it instead of a stream (reading, XML is "
               "recognised by itself)", verbs=("decode", "encode"), output=True),
        Option("enum_names", ("--enum-names",), "write enums as their option names (A|B for "
               "bit flags)", verbs=("decode",)),
        Option("skip_unknown_types", ("--skip-unknown-types",), "deep mode: read objects of "
               "classes the type list lacks as null and skip unknown properties, each "
               "reported on standard error, instead of failing",
               verbs=("decode", "verify", "inspect", "convert")),
        replace(max_depth_option(MAX_DEPTH, MAX_DEPTH_LIMIT, ", katsuba's; objects and "
                                 "lists; --recursion-limit is its former name"),
                flags=("--max-depth", "--recursion-limit")),
        max_expansion_option(MAX_EXPANSION, "the bytes its zlib data inflates to (inspect: "
                             "also the rows of the map, 16 by default there)",
                             verbs=("decode", "verify", "inspect", "convert")),
    ),
    epilog=f"""The input of decode, verify, inspect and convert is a stream as a serializer with
these options reads it (katsuba's defaults: shallow, flags 0, mask 7), a BINd file (it
starts with "BINd": deep mode and the file's own flags, whatever the options say), or the
XML form (it starts with "<?xml" or "<Objects"). The JSON is gameserde's KingsIsle form
(docs/kingsisle.md): objects start with "$__type" (the class name), std::string is text (or
{{"$bytes": hex}} when it is not UTF-8), enums are integers (option names with
--enum-names), leaf structs are objects with katsuba's keys. encode reads that JSON or the
XML form, whichever the file holds, and writes the bytes katsuba writes (--bind: a BINd
file, deep, flags {BIND_FLAGS} unless --flags; --xml: the XML form). Bytes after the root
object or after zlib data, which readers ignore, are not in the JSON: decode and verify
say so on standard error (one line each, with its byte offset), and fail with --strict.

serializer flags (--flags, bits that add up):
  1   STATEFUL_FLAGS           a u32 flags word leads the stream; reading, it wins
  2   COMPACT_LENGTH_PREFIXES  7- or 31-bit lengths
  4   HUMAN_READABLE_ENUMS     enums as option names
  8   WITH_COMPRESSION         a marker byte, then zlib when it saves bytes
  16  FORBID_DELTA_ENCODE      every delta-encoded (optional) property must be present

examples:
  gameserde decode kingsisle -s types.json item.bin
  gameserde decode kingsisle -s types.json --deep --flags 9 --enum-names blob.bin
  gameserde decode kingsisle -s types.json --xml Template.bin -o Template.xml
  gameserde encode kingsisle -s types.json item.json -o item.bin
  gameserde encode kingsisle -s types.json --bind Template.xml -o Template.bin
  gameserde convert kingsisle -s types.json --flags 7 item.bin --to-flags 0 --to-deep -o deep.bin
  gameserde inspect kingsisle -s types.json --deep blob.bin""",
)
"""The format's declarations for the command line and ``gameserde.codec``."""
