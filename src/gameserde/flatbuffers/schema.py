"""FlatBuffers ``.fbs`` schemas: flatc 25.12.19's grammar and errors, lowered into the shared model.

:func:`load_schema` reads a schema (and everything it includes) with the rules of
``flatc -b``: every schema flatc accepts is accepted, and every schema it rejects raises
:class:`FbsSchemaError` (a :class:`~gameserde.errors.SchemaError`) whose text is flatc's own
line, ``FILE:LINE: COL: error: MESSAGE``. ``COL`` is what flatc prints: the byte offset, in
its line, of flatc's cursor when it gives up, i.e. just past the token it was looking at (often
the token after the offending one). ``FILE`` is resolved to an absolute path when the file
exists, as flatc does. The warnings flatc prints (``field names should be lowercase
snake_case``, signed ``bit_flags`` ...) are in :attr:`FbsSchema.warnings`: those of the root
file only, as flatc clears its messages whenever it starts a file (``warnings_as_errors``
still fails on an included file's warning, at the end of that file).

The result, :class:`FbsSchema`, holds a :class:`gameserde.schema.model.Schema`:

* type names are fully qualified (``MyGame.Sample.Monster``); ``root`` is ``root_type``;
* ``table``/``struct`` become :class:`Record` with ``kind="table"``/``"struct"``; fields are in
  flatc's order (declaration order, or id order when ``id`` attributes are used — the order
  ``flatc --json`` prints them in); ``Field.id`` is the vtable index (slot ``4 + 2*id``);
* a union field ``u:U`` becomes two fields, as in flatc's reflection: ``u_type`` (id k-1, an
  unsigned byte, attribute ``flatbuffers.union_type_of = "u"``) and ``u`` (id k, ``Ref(U)``);
  a vector of unions gives ``List(UINT8)`` and ``List(Ref(U))``;
* enums are :class:`Enum` with their underlying :class:`Int`, values in declaration order
  (``bit_flags`` values are the masks ``1 << N``; the bit numbers are kept in the attribute
  ``flatbuffers.bit_index``); enum-typed fields are ``Ref(enum)`` with the integer default;
* unions are :class:`Union`; the implicit ``NONE = 0`` is **not** a member (its name is in the
  attribute ``flatbuffers.none``); members are ``Ref(table)``, ``Ref(struct)`` or ``STRING``;
  ``Union.discriminator`` is the declared underlying type (``UINT8`` unless ``union U : T``;
  ``flatc -b`` still stores the ``_type`` field in one byte, which is what its type says);
* scalars map to ``Int``/``Float``/``Bool``; ``string`` to ``STRING``; ``[T]`` to ``List(T)``
  (``[ubyte]`` stays ``List(UINT8)``); ``[T:N]`` to ``List(T, N)``; ``= null`` scalars to
  ``Optional(T)`` with default None;
* defaults are typed: int, float (``nan``/``inf`` included; the double the schema writes, as
  in flatc's reflection and the generated Python code), bool, the enum's integer (several
  ``bit_flags`` names OR-ed); a string default is a ``str``, a ``= []`` vector default is
  ``()``; other non-scalars, and struct fields, default to None;
* union members named with a namespace (``union U { A.B.T }``) are called ``A_B_T``, as flatc
  names them by default;
* every attribute written in the schema is kept verbatim in ``attributes`` (no value: True;
  integers: int; strings: str), next to facts under ``flatbuffers.*`` keys:

  - records: ``flatbuffers.namespace``, ``flatbuffers.file``; structs ``flatbuffers.size``
    and ``flatbuffers.align``; tables ``flatbuffers.sortbysize`` (False with
    ``original_order``);
  - struct fields: ``flatbuffers.offset``, ``flatbuffers.padding`` (bytes after the field),
    ``flatbuffers.size``, ``flatbuffers.align``;
  - table fields: ``flatbuffers.voffset`` (``4 + 2*id``), ``flatbuffers.size`` and
    ``flatbuffers.align`` (the inline slot: 4 for offsets, 8 with ``offset64``/``vector64``),
    ``flatbuffers.size_class`` (the size flatc orders fields by when it builds a table),
    ``flatbuffers.union_type_of``/``flatbuffers.union`` (a ``_type`` field),
    ``flatbuffers.union_type_field`` (a union value field), ``flatbuffers.nested_root`` (the
    resolved ``nested_flatbuffer`` root), ``flatbuffers.offset64``;
  - enums: ``flatbuffers.bit_index``, ``flatbuffers.value_attributes``,
    ``flatbuffers.value_docs``; unions ``flatbuffers.none``, and
    ``flatbuffers.declared_underlying`` (True) for ``union U : T``;
* schema attributes: ``file_identifier``, ``file_extension`` (None when absent),
  ``namespaces``, ``services`` (:class:`FbsService`), ``declared_attributes``, ``includes``
  (the files included, in the order flatc parsed them), ``file_includes`` (each file parsed,
  sorted, with the files its ``include`` statements found, sorted: what ``.bfbs`` files
  record), ``native_includes``, ``inline_json``.

Not supported: ``--proto`` input, and the JSON object flatc allows at the end of a schema is
kept as text (``inline_json``), not parsed. One deliberate difference from flatc 25.12.19: a
struct that contains itself is rejected (``schema has circular struct dependencies``, as later
flatc versions say) instead of being given a meaningless layout.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gameserde.errors import SchemaError, UnknownNameError, UsageError
from gameserde.flatbuffers import _fbs_numbers as num
from gameserde.flatbuffers._fbs_defs import (
    PRESENCE_OPTIONAL,
    PRESENCE_REQUIRED,
    EnumDef,
    FbsSchemaError,
    FieldDef,
    StructDef,
    SymbolTable,
    Type,
    Value,
    attribute_value,
    inline_alignment,
    inline_size,
    is_float,
    is_integer,
    is_scalar,
    is_struct,
    is_vector,
    size_of,
    text,
)
from gameserde.flatbuffers._fbs_parser import ParsedSchema, Parser
from gameserde.schema.model import (
    BOOL,
    FLOAT32,
    FLOAT64,
    STRING,
    UINT8,
    Enum,
    Int,
    List,
    Named,
    Optional,
    Record,
    Ref,
    Schema,
    Union,
)
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Type as ModelType

if TYPE_CHECKING:
    from gameserde.flatbuffers.interface import FlatBuffersCodec

__all__ = [
    "FbsRpcCall",
    "FbsSchema",
    "FbsSchemaError",
    "FbsService",
    "SchemaFileError",
    "StructFieldLayout",
    "StructLayout",
    "UnknownTypeError",
    "load_schema",
]


# ---------------------------------------------------------------------------------------------
# Public result types


@dataclass(frozen=True)
class FbsRpcCall:
    """One ``rpc_service`` method: ``name(request):response (attributes);``."""

    name: str
    request: str
    response: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""


@dataclass(frozen=True)
class FbsService:
    """An ``rpc_service`` (fully qualified ``name``) and its methods in declaration order."""

    name: str
    calls: tuple[FbsRpcCall, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""
    file: str = ""
    """The file it is declared in (as a record's ``flatbuffers.file``)."""


@dataclass(frozen=True)
class StructFieldLayout:
    """Where one field of a struct lives: ``offset`` from the struct's start, its ``size`` and
    ``align``, and the ``padding`` bytes that follow it."""

    name: str
    offset: int
    size: int
    align: int
    padding: int
    type: ModelType


@dataclass(frozen=True)
class StructLayout:
    """A struct's fixed layout: ``size`` (padded to ``align``), ``align`` (its minalign: the
    largest field alignment, or ``force_align``) and its fields in declaration order."""

    name: str
    size: int
    align: int
    fields: tuple[StructFieldLayout, ...]

    def field(self, name: str) -> StructFieldLayout:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"struct {self.name} has no field {name!r}")


class UnknownTypeError(UnknownNameError):
    """A type name the schema does not have, or one that names another kind of type than
    asked (a struct where a table is needed): an
    :class:`~gameserde.errors.UnknownNameError`, so also a ``KeyError``. ``str()`` starts with
    the schema's file (``schema_file``, empty for a schema read from text) and ends with
    ``reason``, which suggests close names."""

    def __init__(self, schema_file: str, reason: str) -> None:
        self.schema_file = schema_file
        self.reason = reason
        super().__init__(f"{schema_file}: {reason}" if schema_file else reason)


class FbsSchema:
    """A parsed ``.fbs`` schema: the shared-model :class:`Schema` plus FlatBuffers helpers."""

    def __init__(self, schema: Schema, *, warnings: tuple[str, ...] = (),
                 source_file: str = "") -> None:
        self.schema = schema
        self.warnings = warnings
        """flatc's warning lines, ``FILE:LINE: COL: warning: MESSAGE``."""
        self.source_file = source_file

    def __repr__(self) -> str:
        return (f"FbsSchema(root={self.root!r}, types={len(self.schema.types)}, "
                f"file_identifier={self.file_identifier!r})")

    # -- the model ---------------------------------------------------------------------------

    @property
    def types(self) -> Mapping[str, Named]:
        return self.schema.types

    @property
    def root(self) -> str | None:
        return self.schema.root

    @property
    def attributes(self) -> Mapping[str, Any]:
        return self.schema.attributes

    @property
    def file_identifier(self) -> str | None:
        value: str | None = self.schema.attributes["file_identifier"]
        return value

    @property
    def file_extension(self) -> str | None:
        value: str | None = self.schema.attributes["file_extension"]
        return value

    @property
    def namespaces(self) -> tuple[str, ...]:
        value: tuple[str, ...] = self.schema.attributes["namespaces"]
        return value

    @property
    def services(self) -> tuple[FbsService, ...]:
        value: tuple[FbsService, ...] = self.schema.attributes["services"]
        return value

    @property
    def declared_attributes(self) -> tuple[str, ...]:
        value: tuple[str, ...] = self.schema.attributes["declared_attributes"]
        return value

    @property
    def includes(self) -> tuple[str, ...]:
        value: tuple[str, ...] = self.schema.attributes["includes"]
        return value

    def __getitem__(self, name: str) -> Named:
        return self.schema.types[self.qualify(name)]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self.qualify(name)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[Named]:
        return iter(self.schema.types.values())

    def qualify(self, name: str) -> str:
        """The fully qualified name of ``name``: itself, or the one type whose last
        component it is (``Monster`` for ``MyGame.Sample.Monster``). Raises
        :class:`UnknownTypeError` (a ``KeyError``) for a name the schema lacks, suggesting
        close names, or that several types end with."""
        if not isinstance(name, str):
            raise UsageError(f"a type name is a str, not {type(name).__name__}")
        if name in self.schema.types:
            return name
        hits = [q for q in self.schema.types if q.rsplit(".", 1)[-1] == name]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise self._unknown(name, f"no type named {name!r} in the schema", self.types)
        raise UnknownTypeError(self.source_file,
                               f"{name!r} is ambiguous: {', '.join(sorted(hits))}")

    def _unknown(self, name: str, reason: str, candidates: Iterable[str]) -> UnknownTypeError:
        """The error for ``name``, suggesting the closest of ``candidates`` (short names)."""
        short = sorted({c.rsplit(".", 1)[-1] for c in candidates})
        close = difflib.get_close_matches(name.rsplit(".", 1)[-1], short, n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        return UnknownTypeError(self.source_file, reason + hint)

    def _get(self, name: str, kind: type[Named], what: str) -> Any:
        t = self[name]
        if not isinstance(t, kind) or (isinstance(t, Record) and t.kind != what):
            raise UnknownTypeError(self.source_file, f"{t.name} is not a {what}")
        return t

    def table(self, name: str) -> Record:
        """The table ``name`` (fully qualified, or its unique short name)."""
        record: Record = self._get(name, Record, "table")
        return record

    def root_table(self, name: str | None = None) -> Record:
        """The table a buffer's root is: ``name``, or the schema's ``root_type`` when None.
        Raises :class:`UnknownTypeError` for a name that is not a table of the schema, and
        :class:`~gameserde.errors.UsageError` when no name is given and the schema declares
        no ``root_type``."""
        if name is None:
            name = self.root
            if name is None:
                where = f"{self.source_file}: " if self.source_file else ""
                raise UsageError(f"{where}the schema declares no root_type; name the root "
                                 "table (root_type=)")
        return self.table(name)

    def struct(self, name: str) -> Record:
        """The struct ``name``."""
        record: Record = self._get(name, Record, "struct")
        return record

    def record(self, name: str) -> Record:
        """The table or struct ``name``."""
        t = self[name]
        if not isinstance(t, Record):
            raise KeyError(f"{t.name} is not a table or struct")
        return t

    def enum(self, name: str) -> Enum:
        e: Enum = self._get(name, Enum, "enum")
        return e

    def union(self, name: str) -> Union:
        u: Union = self._get(name, Union, "union")
        return u

    def resolve(self, t: ModelType | Named) -> ModelType | Named:
        return self.schema.resolve(t)

    # -- FlatBuffers helpers -----------------------------------------------------------------

    def struct_layout(self, name: str) -> StructLayout:
        """The fixed layout of struct ``name``: size, alignment and field offsets."""
        rec = self.struct(name)
        fields = tuple(
            StructFieldLayout(f.name, f.attributes["flatbuffers.offset"],
                              f.attributes["flatbuffers.size"],
                              f.attributes["flatbuffers.align"],
                              f.attributes["flatbuffers.padding"], f.type)
            for f in rec.fields)
        return StructLayout(rec.name, rec.attributes["flatbuffers.size"],
                            rec.attributes["flatbuffers.align"], fields)

    def json_field_order(self, name: str) -> tuple[str, ...]:
        """Field names in the order ``flatc --json`` prints them (declaration order, or id
        order when the table uses ``id`` attributes); union ``_type`` fields included."""
        return tuple(f.name for f in self.record(name).fields)

    def binary_field_order(self, name: str) -> tuple[str, ...]:
        """The order in which ``flatc -b`` adds a table's fields (spec §2.10): size classes
        8, 4, 2, 1 and descending id within each (one pass in descending id for
        ``original_order`` tables). Absent fields are simply skipped by the caller."""
        rec = self.table(name)
        by_id = sorted(rec.fields, key=lambda f: f.id or 0, reverse=True)
        if not rec.attributes["flatbuffers.sortbysize"]:
            return tuple(f.name for f in by_id)
        return tuple(f.name for size in (8, 4, 2, 1) for f in by_id
                     if f.attributes["flatbuffers.size_class"] == size)

    # The codecs as methods: each calls the module function of the same name on this schema
    # (the modules import this one, hence the imports inside).

    def codec(self, type: str | None = None, **options: Any) -> FlatBuffersCodec:
        """This schema's codec (gameserde's codec interface) for the root table ``type``
        (default: the schema's ``root_type``), with the options of
        :func:`gameserde.flatbuffers.interface.codec`: ``size_prefixed``, ``defaults_json``,
        ``strict_json``, ``force_defaults``, ``max_depth``, ``max_expansion``, ``annotate``,
        ``annotate_sparse_vectors``. ``schema.codec("Monster").to_json(buf)`` is what
        ``gameserde decode flatbuffers --type Monster`` prints."""
        from gameserde.flatbuffers.interface import codec

        return codec(self, type=type, **options)

    def encode(self, value: Any, root_type: str | None = None, **options: Any) -> bytes:
        """:func:`gameserde.flatbuffers.encoder.encode`: a dict or dataclass to bytes."""
        from gameserde.flatbuffers.encoder import encode

        return encode(self, value, root_type, **options)

    def from_json(self, text: str | bytes, root_type: str | None = None,
                  **options: Any) -> bytes:
        """:func:`gameserde.flatbuffers.json_input.from_json`: flatc's JSON to bytes."""
        from gameserde.flatbuffers.json_input import from_json

        return from_json(self, text, root_type, **options)

    def view(self, buf: Any, root_type: str | None = None, **options: Any) -> Any:
        """:func:`gameserde.flatbuffers.views.view`: a lazy, zero-copy view of ``buf``."""
        from gameserde.flatbuffers.views import view

        return view(self, buf, root_type, **options)

    def decode(self, buf: Any, root_type: str | None = None, **options: Any) -> Any:
        """:func:`gameserde.flatbuffers.decoder.decode`: ``buf`` as dicts or dataclasses."""
        from gameserde.flatbuffers.decoder import decode

        return decode(self, buf, root_type, **options)

    def to_json(self, buf: Any, root_type: str | None = None, **options: Any) -> str:
        """:func:`gameserde.flatbuffers.json_output.to_json`: what ``flatc --json`` prints."""
        from gameserde.flatbuffers.json_output import to_json

        return to_json(self, buf, root_type, **options)

    def to_bfbs(self, comments: bool = False, builtins: bool = False,
                filenames: str | os.PathLike[str] | None = None) -> bytes:
        """:func:`gameserde.flatbuffers.bfbs.to_bfbs`: the schema as a ``.bfbs``, the bytes
        ``flatc -b --schema`` writes (``--bfbs-comments``, ``--bfbs-builtins``,
        ``--bfbs-filenames DIR``)."""
        from gameserde.flatbuffers.bfbs import to_bfbs

        return to_bfbs(self, comments=comments, builtins=builtins, filenames=filenames)

    def verify(self, buf: Any, root_type: str | None = None, **options: Any) -> None:
        """:func:`gameserde.flatbuffers.verifier.verify`: raise DecodeError unless valid."""
        from gameserde.flatbuffers.verifier import verify

        verify(self, buf, root_type, **options)


# ---------------------------------------------------------------------------------------------
# Entry point


class SchemaFileError(SchemaError):
    """A schema file that cannot be read: ``str()`` is flatc's ``unable to load file: PATH``
    and the reason; ``filename`` and ``reason`` (the system's message) are its parts."""

    def __init__(self, filename: str, reason: str, hint: str = "") -> None:
        self.filename = filename
        self.reason = reason
        super().__init__(f"unable to load file: {filename} ({reason}){hint}")


def _is_text(source: str) -> bool:
    """Whether a ``str`` given to :func:`load_schema` is schema text: it holds a newline,
    ``;``, ``{`` or ``}`` (every schema that declares anything has one of them); anything
    else is a path. Nothing in the file system changes the answer."""
    return any(c in source for c in "\n;{}")


def _read(path: str, hint: str) -> bytes:
    """The schema file ``path``'s bytes."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as e:
        raise SchemaFileError(path, e.strerror or str(e), hint) from None
    except ValueError:  # a NUL in the path
        raise SchemaFileError(path, "not a valid path", hint) from None


PathArg = str | os.PathLike[str]


def load_schema(source: str | bytes | os.PathLike[str] | Schema,
                 include_paths: PathArg | Iterable[PathArg] = (), *,
                 filename: str | None = None, warnings_as_errors: bool = False,
                 require_explicit_ids: bool = False) -> FbsSchema:
    """Parse a ``.fbs`` schema as ``flatc -b`` does and lower it into the shared model.

    ``source`` is the schema text (``bytes``, or a ``str`` holding a newline, ``;``, ``{`` or
    ``}``, as every schema that declares anything does), a path (``os.PathLike``, or any
    other ``str``), or a shared-model :class:`Schema` (``schema_of(Monster)``: a schema
    declared in Python), rendered as ``.fbs`` text and parsed
    (:func:`gameserde.flatbuffers.render.from_model`). The rule looks at nothing but the
    value: ``pathlib.Path("odd;name.fbs")`` is a path, ``b"table T {}"`` text.
    ``filename``
    names an in-memory schema in messages and is where its relative includes are searched
    from. Includes are searched relative to the including file, then in ``include_paths``
    (flatc ``-I``), then in the root file's directory. ``warnings_as_errors`` and
    ``require_explicit_ids`` are flatc's ``--warnings-as-errors`` and
    ``--require-explicit-ids``.

    A binary schema (``.bfbs``, what ``flatc -b --schema`` writes), given as bytes or a path,
    is recognised by its content (a FlatBuffer with the file identifier ``BFBS``), verified,
    and loaded into the same model (:mod:`gameserde.flatbuffers.bfbs`); ``include_paths`` and
    the flatc options do not apply to it.

    Raises :class:`FbsSchemaError` with flatc's message for an invalid schema (an include
    that cannot be read included), :class:`~gameserde.flatbuffers.bfbs.BfbsError` for an
    invalid ``.bfbs``, and :class:`SchemaFileError` (a
    :class:`~gameserde.errors.SchemaError`) when ``source`` is a path that cannot be read.
    """
    if isinstance(source, Schema):
        from gameserde.flatbuffers.render import from_model

        return from_model(source, warnings_as_errors=warnings_as_errors,
                          require_explicit_ids=require_explicit_ids)
    if isinstance(source, os.PathLike) or (isinstance(source, str)
                                           and not _is_text(source)):
        path = os.fspath(source)
        hint = ("" if isinstance(source, os.PathLike) else
                "; a str without a newline, ';' or braces is a path: give schema text as bytes")
        raw_data = _read(path, hint)
        name: str | None = filename if filename is not None else path
        from gameserde.flatbuffers._bfbs_read import looks_like_bfbs, read_bfbs

        if looks_like_bfbs(raw_data):
            return read_bfbs(raw_data, name or "")
        data = raw_data.decode("latin-1")
    elif isinstance(source, bytes):
        from gameserde.flatbuffers._bfbs_read import looks_like_bfbs, read_bfbs

        if looks_like_bfbs(source):
            return read_bfbs(source, filename or "")
        data, name = source.decode("latin-1"), filename
    else:
        data = source.encode("utf-8", "surrogateescape").decode("latin-1")
        name = filename
    paths: Iterable[PathArg] = (
        (include_paths,) if isinstance(include_paths, str | os.PathLike) else include_paths)
    dirs = [os.fspath(p).replace("\\", "/") for p in paths]
    local = name or ""
    i = max(local.rfind("/"), local.rfind("\\"))
    dirs.append(local[:i] if i >= 0 else "")
    parser = Parser(dirs, warnings_as_errors=warnings_as_errors,
                    require_explicit_ids=require_explicit_ids)
    parsed = parser.parse_root(data, name)
    return _Lowering(parsed).run()


# ---------------------------------------------------------------------------------------------
# Lowering


def _attrs(table: SymbolTable[Value]) -> dict[str, Any]:
    if not table.dict:
        return {}
    return {text(k): attribute_value(v) for k, v in table.dict.items()}


def _doc(lines: list[str]) -> str:
    joined = "\n".join(lines)
    return joined if joined.isascii() else "\n".join(text(line) for line in lines)


_INT_TYPES = {base_type: Int(bits, signed) for base_type, (bits, signed) in num.INT_RANGES.items()}


def _int_type(base_type: int) -> Int:
    return _INT_TYPES[base_type]


class _Lowering:
    def __init__(self, parsed: ParsedSchema) -> None:
        self.parsed = parsed

    def run(self) -> FbsSchema:
        p = self.parsed
        types: dict[str, Named] = {}
        defs: list[tuple[int, EnumDef | StructDef]] = [(e.order, e) for e in p.enums]
        defs += [(s.order, s) for s in p.structs]
        for _, d in sorted(defs, key=lambda item: item[0]):
            named = self.enum(d) if isinstance(d, EnumDef) else self.record(d)
            types[named.name] = named
        services = tuple(
            FbsService(
                name=svc.qualified_name,
                calls=tuple(FbsRpcCall(text(c.name), c.request.qualified_name,
                                       c.response.qualified_name, _attrs(c.attributes),
                                       _doc(c.doc)) for c in svc.calls.vec),
                attributes=_attrs(svc.attributes), doc=_doc(svc.doc), file=svc.file)
            for svc in p.services)
        attributes: dict[str, Any] = {
            "file_identifier": p.file_identifier,
            "file_extension": p.file_extension,
            "namespaces": tuple(p.namespaces),
            "services": services,
            "declared_attributes": tuple(p.declared_attributes),
            "includes": tuple(p.includes),
            "file_includes": tuple((f, tuple(sorted(p.file_includes[f])))
                                   for f in sorted(p.file_includes)),
            "native_includes": tuple(p.native_includes),
            "inline_json": p.inline_json,
        }
        root = p.root.qualified_name if p.root is not None else None
        schema = Schema(types, root=root, attributes=attributes)
        return FbsSchema(schema, warnings=tuple(p.warnings), source_file=p.source_file)

    # -- types -------------------------------------------------------------------------------

    def scalar(self, t: Type) -> ModelType:
        bt = t.base_type
        if t.enum_def is not None and not t.enum_def.is_union and is_integer(bt):
            return Ref(t.enum_def.qualified_name)
        if bt == num.BOOL:
            return BOOL
        if bt == num.FLOAT:
            return FLOAT32
        if bt == num.DOUBLE:
            return FLOAT64
        if bt == num.UTYPE:
            return UINT8
        return _int_type(bt)

    def element(self, t: Type) -> ModelType:
        """The model type of a non-series type (a vector's element, a field's type)."""
        bt = t.base_type
        if is_scalar(bt):
            return self.scalar(t)
        if bt == num.STRING:
            return STRING
        if bt == num.STRUCT:
            assert t.struct_def is not None
            return Ref(t.struct_def.qualified_name)
        if bt == num.UNION:
            assert t.enum_def is not None
            return Ref(t.enum_def.qualified_name)
        raise AssertionError(f"unexpected base type {bt}")  # pragma: no cover

    def type_of(self, t: Type) -> ModelType:
        if is_vector(t.base_type):
            return List(self.element(t.vector_type()))
        if t.base_type == num.ARRAY:
            return List(self.element(t.vector_type()), t.fixed_length)
        return self.element(t)

    # -- enums and unions --------------------------------------------------------------------

    def enum(self, ed: EnumDef) -> Named:
        attrs = _attrs(ed.attributes)
        attrs["flatbuffers.namespace"] = ".".join(ed.namespace.components)
        attrs["flatbuffers.file"] = ed.file
        vals = ed.vals.vec[1:] if ed.is_union else ed.vals.vec
        value_attrs = {text(v.name): _attrs(v.attributes) for v in vals if v.attributes.dict}
        value_docs = {text(v.name): _doc(v.doc) for v in vals if v.doc}
        if value_attrs:
            attrs["flatbuffers.value_attributes"] = value_attrs
        if value_docs:
            attrs["flatbuffers.value_docs"] = value_docs
        underlying = _int_type(ed.underlying_type.base_type)
        if ed.is_union:
            attrs["flatbuffers.none"] = "NONE"
            if ed.underlying_type.base_type != num.UTYPE:
                attrs["flatbuffers.declared_underlying"] = True
            members: dict[str, tuple[int, ModelType]] = {}
            for v in vals:
                ut = v.union_type
                member: ModelType = STRING if ut.base_type == num.STRING else self.element(ut)
                members[text(v.name)] = (v.value, member)
            return Union(ed.qualified_name, members, discriminator=underlying,
                         attributes=attrs, doc=_doc(ed.doc))
        bit_flags = ed.attributes.lookup("bit_flags") is not None
        if bit_flags:
            attrs["flatbuffers.bit_index"] = {text(v.name): v.bit_index for v in vals}
        return Enum(ed.qualified_name, underlying, {text(v.name): v.value for v in vals},
                    bit_flags=bit_flags, attributes=attrs, doc=_doc(ed.doc))

    # -- tables and structs ------------------------------------------------------------------

    def record(self, sd: StructDef) -> Record:
        attrs = _attrs(sd.attributes)
        attrs["flatbuffers.namespace"] = ".".join(sd.namespace.components)
        attrs["flatbuffers.file"] = sd.file
        if sd.fixed:
            attrs["flatbuffers.size"] = sd.bytesize
            attrs["flatbuffers.align"] = sd.minalign
        else:
            attrs["flatbuffers.sortbysize"] = sd.sortbysize
        fields = tuple(self.field(sd, fd, i) for i, fd in enumerate(sd.fields.vec))
        return Record(sd.qualified_name, fields, kind="struct" if sd.fixed else "table",
                      attributes=attrs, doc=_doc(sd.doc))

    def field(self, sd: StructDef, fd: FieldDef, index: int) -> ModelField:
        t = fd.value.type
        bt = t.base_type
        attrs = _attrs(fd.attributes)
        ftype = self.type_of(t)
        default: Any = None
        if sd.fixed:
            attrs["flatbuffers.offset"] = fd.value.offset
            attrs["flatbuffers.padding"] = fd.padding
            attrs["flatbuffers.size"] = inline_size(t)
            attrs["flatbuffers.align"] = inline_alignment(t)
        else:
            attrs["flatbuffers.voffset"] = fd.value.offset
            attrs["flatbuffers.size_class"] = size_of(bt)
            if is_scalar(bt) or is_struct(t):
                attrs["flatbuffers.size"] = inline_size(t)
                attrs["flatbuffers.align"] = inline_alignment(t)
            else:
                width = 8 if fd.offset64 else 4
                attrs["flatbuffers.size"] = attrs["flatbuffers.align"] = width
            if fd.offset64:
                attrs["flatbuffers.offset64"] = True
            default = self.default(fd, t)
            if is_scalar(bt) and fd.presence == PRESENCE_OPTIONAL:
                ftype = Optional(ftype)
        sibling = fd.sibling_union_field
        if sibling is not None:
            union_name = t.enum_def.qualified_name if t.enum_def is not None else ""
            if fd.is_union_type_field:
                attrs["flatbuffers.union_type_of"] = text(sibling.name)
                attrs["flatbuffers.union"] = union_name
            else:
                attrs["flatbuffers.union_type_field"] = text(sibling.name)
        if fd.nested_flatbuffer is not None:
            attrs["flatbuffers.nested_root"] = fd.nested_flatbuffer.qualified_name
        return ModelField(
            name=text(fd.name), type=ftype, id=index, default=default,
            deprecated=fd.deprecated, required=fd.presence == PRESENCE_REQUIRED,
            key=fd.key, attributes=attrs, doc=_doc(fd.doc))

    def default(self, fd: FieldDef, t: Type) -> Any:
        constant = fd.value.constant
        bt = t.base_type
        if is_scalar(bt):
            if fd.presence == PRESENCE_OPTIONAL:
                return None
            if is_float(bt):
                ok, value = num.string_to_float(constant)
                assert ok, constant
                return math.nan if math.isnan(value) else value
            if bt == num.BOOL:
                return int(constant) != 0
            return int(constant)
        if bt == num.STRING:
            return text(constant) if constant != "0" else None
        if is_vector(bt):
            return () if constant == "[]" else None
        return None

