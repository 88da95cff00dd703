"""The FlatBuffers codec: :class:`FlatBuffersCodec`, gameserde's codec interface
(:class:`gameserde.codecs.Codec`) over a ``.fbs`` schema read at run time and one root table;
:func:`codec` builds one (as ``gameserde.codec("flatbuffers", ...)`` and
:meth:`FbsSchema.codec <gameserde.flatbuffers.schema.FbsSchema.codec>` do), and
:data:`FORMAT` declares its options for the command line.

The JSON is flatc's: :meth:`~FlatBuffersCodec.to_json` is the text ``flatc --json
--strict-json`` prints (``--defaults-json`` with ``defaults_json``), in flatc's layout, with
``nan`` and ``inf`` bare as flatc prints them, so the command line's ``--pretty`` and
``--compact`` do not apply; :meth:`~FlatBuffersCodec.from_json` reads what ``flatc -b`` reads
and writes its bytes. :meth:`~FlatBuffersCodec.decode` gives what
:func:`gameserde.flatbuffers.decode` gives (dicts and lists; enums and union types as numbers).
:meth:`~FlatBuffersCodec.convert` writes the bytes ``flatc -b`` writes for the JSON ``flatc
--json`` prints of the input, except that values are kept exactly (flatc's JSON rounds floats).

Options (keywords of :func:`codec`, flags of ``gameserde VERB flatbuffers``):

- ``schema`` (``--schema/-s``): the ``.fbs`` file (its includes are read too), schema text,
  or a loaded :class:`FbsSchema`;
- ``include`` (``-I/--include``): directories searched for included schemas (flatc ``-I``);
- ``type`` (``--type``, alias ``--root-type``): the root table (default: the schema's
  ``root_type``);
- ``size_prefixed`` (``--size-prefixed``): the buffer starts with a size prefix (an output
  option of ``convert``: ``--to-size-prefixed``);
- ``defaults_json`` (``--defaults-json``, decode): absent scalars with their defaults;
- ``strict_json`` (``--strict-json``, encode): quoted keys, no trailing commas;
- ``force_defaults`` (``--force-defaults``, encode): scalars written even when they equal
  their default (``convert``: ``--to-force-defaults``);
- ``max_depth`` (``--max-depth``, verify and inspect): the verifier's table depth (64);
- ``max_expansion`` (``--max-expansion``, decode): see
  :mod:`gameserde.flatbuffers._budget`;
- ``annotate`` (``--annotate``, inspect): flatc's ``--annotate`` text instead of the table;
- ``annotate_sparse_vectors`` (``--annotate-sparse-vectors``, inspect with ``--annotate``):
  only the first and last elements of long vectors, as flatc's option of that name.

A size-prefixed buffer longer than its prefix says is read up to the prefix's end: the bytes
after it are reported as a :class:`~gameserde.errors.GameserdeWarning` (decode, verify,
convert).
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from gameserde._expansion import check_factor
from gameserde._jsonio import compact_text
from gameserde.codecs import Buffer, ByteMap, Codec, Row
from gameserde.errors import DecodeError, EncodeError, GameserdeWarning, UsageError
from gameserde.flatbuffers._budget import DEFAULT_JSON_EXPANSION, DEFAULT_MAX_EXPANSION
from gameserde.flatbuffers._encode_scalars import short
from gameserde.flatbuffers.schema import (
    FbsSchema,
    SchemaFileError,
    UnknownTypeError,
    _is_text,
    load_schema,
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

if TYPE_CHECKING:
    from gameserde.flatbuffers.rows import Rows

__all__ = ["FORMAT", "FlatBuffersCodec", "codec"]

MAX_DEPTH = 64
"""The verifier's default depth limit, flatc's (``Verifier::Options::max_depth``)."""

MAX_DEPTH_LIMIT = 1_000_000
"""The largest ``max_depth`` taken (the verifier's ``max_tables`` default)."""

_FLAGS = ("size_prefixed", "defaults_json", "strict_json", "force_defaults", "annotate",
          "annotate_sparse_vectors")


class FlatBuffersCodec(Codec):
    """FlatBuffers of one root table of a ``.fbs`` schema; build it with :func:`codec` (or
    ``gameserde.codec("flatbuffers", ...)``, or ``schema.codec(...)``), whose keywords are the
    command line's options. ``schema`` is the loaded :class:`FbsSchema` and ``root`` the
    root table's qualified name. ``options`` holds the options as given (the schema too, so
    :attr:`spec` is plain data when the schema was given as a file or text)."""

    format = "flatbuffers"
    def __init__(self, options: Mapping[str, Any], schema: FbsSchema, root: str,
                 schema_name: str = "") -> None:
        super().__init__(options)
        self.schema = schema
        self.root = root
        self.schema_name = schema_name
        """The schema's file as messages name it (as given, or the file it was read from;
        empty for text)."""
        given = self.options
        flags = {name: given.get(name, False) for name in _FLAGS}
        for name, value in flags.items():
            if not isinstance(value, bool):
                raise UsageError(f"{name} is true or false (--{name.replace('_', '-')} or "
                                 f"not), not {short(repr(value))}")
        self.size_prefixed: bool = flags["size_prefixed"]
        self.defaults_json: bool = flags["defaults_json"]
        self.strict_json: bool = flags["strict_json"]
        self.force_defaults: bool = flags["force_defaults"]
        self.annotate: bool = flags["annotate"]
        self.sparse_vectors: bool = flags["annotate_sparse_vectors"]
        if self.sparse_vectors and not self.annotate:
            raise UsageError("--annotate-sparse-vectors shortens flatc's --annotate text; it "
                             "applies with --annotate only")
        self.max_depth: int = check_max_depth(given.get("max_depth", MAX_DEPTH),
                                              MAX_DEPTH_LIMIT)
        self.max_expansion: float | None = DEFAULT_JSON_EXPANSION
        self.decode_expansion: float | None = DEFAULT_MAX_EXPANSION
        if "max_expansion" in given:
            try:
                self.max_expansion = check_factor(given["max_expansion"])
            except ValueError:
                shown = short(repr(given["max_expansion"]))
                raise UsageError(f"max_expansion (--max-expansion) is a number >= 0, or None "
                                 f"or inf for no limit, not {shown}") from None
            self.decode_expansion = self.max_expansion
        source = given.get("source")
        if source is not None and not isinstance(source, str | os.PathLike):
            raise UsageError(f"source is the input's file name or None, not {short(repr(source))}")
        self.source = None if source is None else os.fspath(source)
        self._rows: Rows | None = None

    # -----------------------------------------------------------------------------------------
    # Values

    def decode(self, data: Buffer) -> Any:
        """What :func:`gameserde.flatbuffers.decode` gives: dicts and lists (``defaults_json``:
        absent scalars with their defaults), within ``max_expansion`` (default 16: bytes of
        the buffer reproduced)."""
        self._note_trailing(_buffer(data))
        return self.schema.decode(data, self.root, size_prefixed=self.size_prefixed,
                                  defaults=self.defaults_json,
                                  max_expansion=self.decode_expansion)

    def encode(self, value: Any) -> bytes:
        """The bytes ``flatc -b`` writes for ``value`` (a dict, or a dataclass), as
        :func:`gameserde.flatbuffers.encode` writes them."""
        return self.schema.encode(value, self.root, size_prefixed=self.size_prefixed,
                                  force_defaults=self.force_defaults)

    def to_jsonable(self, value: Any) -> Any:
        """``value`` (as :meth:`decode` gives it) as JSON values: the FlexBuffer blobs it may
        hold (``bytes``) become lists of numbers; everything else already is one."""
        return _jsonable(value)

    def from_jsonable(self, obj: Any) -> Any:
        """``obj``, the root table as JSON values (enums and union types by name or
        number), as :meth:`encode` takes it."""
        if not isinstance(obj, dict):
            raise EncodeError(f"the root table is a JSON object, not {_kind(obj)}",
                              format="flatbuffers")
        return obj

    def to_json(self, data: Buffer, *, pretty: bool = False) -> str:
        """The text ``flatc --json --strict-json`` prints for ``data`` (``--defaults-json``
        with ``defaults_json``), within ``max_expansion`` (default 64: characters per byte
        of the buffer, plus 4096): ``pretty``, flatc's layout byte for byte; else the same
        text on one line (flatc's number forms and order kept), ending with a newline."""
        self._note_trailing(_buffer(data))
        text = self.schema.to_json(data, self.root, size_prefixed=self.size_prefixed,
                                   defaults=self.defaults_json,
                                   max_expansion=self.max_expansion)
        return text if pretty else compact_text(text) + "\n"

    def from_json(self, text: str | Buffer) -> bytes:
        """The bytes ``flatc -b`` writes for the JSON ``text`` (flatc's dialect: unquoted
        keys, comments, trailing commas, unless ``strict_json``)."""
        raw = text if isinstance(text, str) else bytes(_buffer(text))
        return self.schema.from_json(raw, self.root, strict=self.strict_json,
                                     size_prefixed=self.size_prefixed,
                                     force_defaults=self.force_defaults)

    def to_row(self, value: Any) -> Row:
        """``value`` (as :meth:`decode` gives it) as a row of the root table: the schema's
        model with each union one tagged field, absent scalars with their defaults and
        deprecated fields left out (see :mod:`gameserde.flatbuffers.rows`)."""
        from gameserde.flatbuffers.rows import Rows

        if self._rows is None:
            self._rows = Rows(self.schema)
        return self._rows.row(self.root, value)

    # -----------------------------------------------------------------------------------------
    # Checking and mapping

    def verify(self, data: Buffer) -> str:
        """``"ok: ..."`` when the C++ verifier flatc generates accepts ``data`` (its
        ``max_depth`` this codec's), else the :class:`~gameserde.errors.DecodeError` it
        fails with."""
        self._note_trailing(_buffer(data))
        self.schema.verify(data, self.root, size_prefixed=self.size_prefixed,
                           max_depth=self.max_depth)
        return f"ok: a sound {self.root} buffer of {memoryview(data).nbytes} bytes"

    def inspect(self, data: Buffer) -> ByteMap:
        """The regions flatc's annotator finds, one row each (offset, size, the value's path,
        flatc's type, the value and flatc's comment); ``error`` is the verifier's reason
        when the buffer is not sound. With ``annotate``, :attr:`ByteMap.native` is flatc's
        ``--annotate`` text (``ByteMap.render()`` returns it)."""
        from gameserde.flatbuffers.inspect import MIN_BUFFER_SIZE, annotate, header, regions

        raw = bytes(_buffer(data))
        error: DecodeError | None = None
        try:
            self.schema.verify(raw, self.root, size_prefixed=self.size_prefixed,
                               max_depth=self.max_depth)
        except DecodeError as e:
            error = e
        byte_map = ByteMap(self.format, raw, error=error)
        binary_file = self.source or "<stdin>"
        if len(raw) < MIN_BUFFER_SIZE:  # nothing to map: the verifier said why
            if self.annotate:  # flatc writes the comment lines alone
                lines = header(self.schema, self.schema_name, binary_file)
                byte_map.native = lines.removesuffix("\n").encode(
                    "latin-1", "surrogateescape").decode("utf-8", "replace")
            return byte_map
        try:
            if self.annotate:
                text = annotate(self.schema, raw, self.root, size_prefixed=self.size_prefixed,
                                schema_file=self.schema_name, binary_file=binary_file,
                                include_vector_contents=not self.sparse_vectors,
                                max_depth=self.max_depth)
                # Bytes of string literals that are not UTF-8, kept as surrogates, are shown
                # as U+FFFD.
                byte_map.native = text.removesuffix("\n").encode(
                    "utf-8", "surrogateescape").decode("utf-8", "replace")
            else:
                byte_map.rows = regions(self.schema, raw, self.root,
                                        size_prefixed=self.size_prefixed)
        except DecodeError as e:  # tables nested too deeply to map: no rows, and why
            byte_map.error = error or e
        return byte_map

    def convert(self, data: Buffer, to: Codec) -> bytes:
        """``data`` written with ``to``'s options (size prefix, forced defaults): the bytes
        ``flatc -b`` writes for the JSON ``flatc --json`` prints of ``data``, but with every
        value as the buffer holds it (flatc's JSON prints floats with 6 or 12 decimals, so
        its round trip changes them; this one does not)."""
        if not isinstance(to, FlatBuffersCodec):
            return super().convert(data, to)
        if self.defaults_json and not to.force_defaults:
            raise UsageError("--defaults-json changes nothing in convert without "
                             "--to-force-defaults (scalars equal to their default are not "
                             "written)")
        return to.encode(self.decode(data))

    # -----------------------------------------------------------------------------------------

    def _note_trailing(self, data: Buffer) -> None:
        """Warn about the bytes after a size-prefixed flatbuffer (read up to its prefix's
        end, which the C++ verifier accepts)."""
        if not self.size_prefixed:
            return
        view = memoryview(data).cast("B")
        if len(view) < 4:
            return
        prefix = int.from_bytes(view[:4], "little")
        extra = len(view) - 4 - prefix
        if extra > 0:
            warnings.warn(f"the size prefix gives {prefix} bytes; the {extra} bytes after "
                          f"them (from byte {4 + prefix}) are not part of the flatbuffer and "
                          "are left out", GameserdeWarning, stacklevel=3)


def _buffer(data: object) -> Buffer:
    """``data``, checked to be binary data (a :class:`~gameserde.errors.UsageError` if not)."""
    if isinstance(data, bytes | bytearray | memoryview):
        return data
    raise UsageError(f"flatbuffers data is bytes, bytearray or memoryview, not "
                     f"{type(data).__name__}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return list(value)
    return value


def _kind(obj: Any) -> str:
    if isinstance(obj, list):
        return "an array"
    if isinstance(obj, str):
        return "a string"
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "a boolean"
    return "a number" if isinstance(obj, int | float) else type(obj).__name__


def _include_dirs(include: object) -> list[str]:
    if isinstance(include, str | os.PathLike):
        return [os.fspath(include)]
    if isinstance(include, Iterable) and not isinstance(include, bytes):
        dirs = list(include)
        if all(isinstance(d, str | os.PathLike) for d in dirs):
            return [os.fspath(d) for d in dirs]
    raise UsageError(f"include (-I) is a directory or a list of directories, not "
                     f"{short(repr(include))}")


def _load(schema: object, include: list[str]) -> tuple[FbsSchema, str]:
    """The schema ``schema`` names and the name messages give it (the path as given, or the
    file it was read from; empty for text)."""
    if schema is None:
        raise UsageError("flatbuffers needs a schema: --schema S.fbs (schema= in Python)")
    if isinstance(schema, FbsSchema):
        if include:
            raise UsageError("include (-I) is where included schemas are searched for; it does "
                             "not apply to a schema already loaded")
        return schema, schema.source_file
    if not isinstance(schema, str | bytes | os.PathLike):
        raise UsageError(f"schema is a .fbs file, schema text or an FbsSchema, not "
                         f"{type(schema).__name__}")
    try:
        loaded = load_schema(cast("str | bytes | os.PathLike[str]", schema), include)
    except SchemaFileError as e:
        raise UsageError(f"{e.filename}: {e.reason}") from None
    for line in loaded.warnings:  # flatc prints them, and fails on them with -Werror
        warnings.warn(line, GameserdeWarning, stacklevel=3)
    if isinstance(schema, os.PathLike) or (isinstance(schema, str) and not _is_text(schema)):
        return loaded, os.fspath(schema)
    return loaded, loaded.source_file


def codec(schema: str | bytes | os.PathLike[str] | FbsSchema | None = None,
          **options: Any) -> FlatBuffersCodec:
    """The FlatBuffers codec of ``schema`` with ``options`` (see the module's documentation;
    the keywords of ``gameserde.codec("flatbuffers", ...)``).

    An option given as None is not given (``max_expansion=None``: no limit). Raises
    :class:`~gameserde.errors.UsageError` for options out of range or that cannot go together,
    a missing schema or a schema file that cannot be read (its message starts with the file's
    name); :class:`~gameserde.flatbuffers.schema.FbsSchemaError` (flatc's ``FILE:LINE: COL:
    error: ...``) for a schema flatc would reject, and the warnings flatc prints for a schema
    it reads (``field names should be lowercase snake_case`` ...) as
    :class:`~gameserde.errors.GameserdeWarning`;
    :class:`~gameserde.errors.UnknownNameError` for a root type the schema lacks, and a
    :class:`~gameserde.errors.UsageError` when none is given and the schema declares none
    (both messages start with the schema's file name).
    """
    given = {k: v for k, v in {"schema": schema, **options}.items()
             if v is not None or k == "max_expansion"}  # None: not given, or no limit
    check_options(FORMAT, {k: v for k, v in given.items() if k != "source"})
    include = _include_dirs(given.get("include", []))
    loaded, named = _load(schema, include)
    where = f"{named}: " if named else ""
    name = given.get("type")
    if name is not None and not isinstance(name, str):
        raise UsageError(f"type (--type) is the name of the root table, not {short(repr(name))}")
    if name is None and loaded.root is None:
        raise UsageError(f"{where}the schema declares no root_type; name the root table with "
                         "--type")
    try:
        root = loaded.root_table(name).name
    except UnknownTypeError as e:
        raise UnknownTypeError(named, f"--type {name}: {e.reason}") from None
    return FlatBuffersCodec(given, loaded, root, named)


FORMAT = FormatInfo(
    name="flatbuffers",
    description="FlatBuffers with a .fbs schema read at run time",
    make=codec,
    options=(
        # a path, whatever characters it holds (in Python a str may be schema text)
        dataclasses.replace(schema_option("the .fbs schema (the files it includes are read "
                                          "too), or a binary schema (.bfbs) flatc wrote",
                                          metavar="S.fbs"), parse=pathlib.Path),
        Option("include", ("-I", "--include"),
               "a directory to search for included schemas, as flatc -I (repeatable)",
               parse=str, metavar="DIR", repeat=True),
        type_option("the root table (default: the schema's root_type)",
                    aliases=("--root-type",)),
        Option("size_prefixed", ("--size-prefixed",),
               "the buffer starts with a 32-bit size prefix", output=True),
        Option("defaults_json", ("--defaults-json",),
               "also print absent scalars with their defaults (flatc --defaults-json)",
               verbs=("decode",)),
        Option("strict_json", ("--strict-json",),
               "require quoted keys and no trailing commas (flatc --strict-json)",
               verbs=("encode",)),
        Option("force_defaults", ("--force-defaults",),
               "write scalars even when they equal their default (flatc --force-defaults)",
               verbs=("encode",), output=True),
        dataclasses.replace(max_depth_option(MAX_DEPTH, MAX_DEPTH_LIMIT,
                                             ": tables, the verifier's limit, as flatc's"),
                            verbs=("verify", "inspect")),
        max_expansion_option(DEFAULT_JSON_EXPANSION,
                             "the characters of the JSON (plus 4096), or for convert the bytes "
                             "copied (default 16 there), as offsets may be shared and a small "
                             "buffer stand for a huge tree,",
                             verbs=("decode", "convert")),
        Option("annotate", ("--annotate",),
               "print flatc's --annotate text (the .afb file) instead of the table",
               verbs=("inspect",)),
        Option("annotate_sparse_vectors", ("--annotate-sparse-vectors",),
               "with --annotate: only the first and last elements of long vectors (flatc "
               "--annotate-sparse-vectors)", verbs=("inspect",)),
    ),
    epilog="""The JSON is flatc's: decode prints what `flatc --json --strict-json` prints (add
--defaults-json for absent scalars), in flatc's layout (--pretty and --compact do not
apply), and encode accepts what `flatc -b` accepts and writes the same bytes. Verify applies
the rules of the C++ verifier flatc generates; inspect maps every byte (--annotate: flatc's
own .afb text). convert writes what flatc -b writes for that JSON (floats kept exactly, where
flatc's JSON rounds them): --to-size-prefixed, --to-force-defaults.

examples:
  gameserde decode flatbuffers --schema monster.fbs monster.bin
  gameserde encode flatbuffers --schema monster.fbs monster.json -o monster.bin
  gameserde verify flatbuffers --schema monster.fbs --type Weapon weapon.bin
  gameserde convert flatbuffers -s monster.fbs --to-size-prefixed monster.bin -o sp.bin""",
    takes_source=True,  # the input's name, for the "// Binary file:" line of --annotate
)
"""The FlatBuffers options, for the command line and ``gameserde.codec("flatbuffers", ...)``."""
