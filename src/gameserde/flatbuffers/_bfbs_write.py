"""Writing a schema as a ``.bfbs`` (``reflection.fbs``) buffer, byte-identical to ``flatc -b
--schema``.

flatc's ``Parser::Serialize`` builds the buffer with its C++ builder in one fixed order, which
this module follows object by object with :class:`Builder` in its ``flatc_compatible`` mode:

* the objects (tables and structs) in declaration order: for each, its fields in ``id`` order
  (each field: name, type, attributes, documentation, then the ``Field`` table), then the
  object's name, its fields sorted by name, attributes, documentation, declaration file (a
  shared string) and the ``Object`` table;
* the enums and unions in declaration order (each value: name, type, attributes,
  documentation, ``EnumVal``; then name, values, underlying type, attributes, documentation,
  declaration file, ``Enum``);
* the services (calls, name, calls vector, attributes, documentation, file, ``Service``);
* with ``filenames``: the schema files and what each includes;
* the objects, enums and services sorted by name, the file identifier and extension (empty
  strings when absent), and the ``Schema`` table, finished with the identifier ``BFBS``.

Each table's fields are added in the order of the C++ ``Create<Table>`` helpers generated from
``reflection.fbs`` (largest first, last declared first); attributes are a vector of
``KeyValue`` sorted by key, their values the text flatc keeps (``"0"`` for an attribute
written without a value). An index (``Type.index``) is the position of the object or enum
among all of them sorted by fully qualified name.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from gameserde.flatbuffers._fbs_defs import BUILTIN_ATTRIBUTES
from gameserde.flatbuffers._reflection_types import (
    ADVANCED_ARRAYS,
    ADVANCED_UNIONS,
    DEFAULT_VECTORS_AND_STRINGS,
    NONE,
    OBJ,
    OPTIONAL_SCALARS,
    SIZE_OF,
    STRING,
    UTYPE,
    VECTOR,
    ReflectionTypes,
    field_defaults,
    int_base,
)
from gameserde.flatbuffers.builder import Builder
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import Enum, List, Optional, Record, Ref, String, Union
from gameserde.schema.model import Field as ModelField


def attribute_text(value: Any) -> str:
    """The text flatc keeps for an attribute's value (the model keeps True for none)."""
    if value is True:
        return "0"
    if isinstance(value, float):
        return repr(value) if not math.isnan(value) else "nan"
    return str(value)


def advanced_features(schema: FbsSchema) -> int:
    """``Schema.advanced_features``: the features flatc noticed while parsing."""
    features = 0
    for t in schema.types.values():
        if not isinstance(t, Record):
            continue
        for f in t.fields:
            ft = f.type
            if isinstance(ft, List) and ft.length is not None:
                features |= ADVANCED_ARRAYS
            elif (isinstance(ft, List) and isinstance(ft.element, Ref)
                  and isinstance(schema.types.get(ft.element.name), Union)):
                features |= ADVANCED_UNIONS
            if isinstance(ft, Optional):
                features |= OPTIONAL_SCALARS
            if isinstance(ft, String | List) and f.default is not None:
                features |= DEFAULT_VECTORS_AND_STRINGS
    return features


class BfbsWriter:
    """One ``Parser::Serialize``: :meth:`run` gives the buffer."""

    def __init__(self, schema: FbsSchema, *, comments: bool, builtins: bool,
                 files: Mapping[str, str] | None,
                 includes: Sequence[tuple[str, Sequence[str]]] | None) -> None:
        self.schema = schema
        self.comments = comments
        self.builtins = builtins
        self.files = files
        self.includes = includes
        self.b = Builder(1024, flatc_compatible=True)
        self.types = ReflectionTypes(schema)
        declared = set(schema.attributes.get("declared_attributes", ()))
        self.builtin_names = {n for n in BUILTIN_ATTRIBUTES if n not in declared}
        self.locations: dict[str, int] = {}

    # -- building blocks ---------------------------------------------------------------------

    def string(self, s: str) -> int:
        return self.b.create_string(s.encode("utf-8", "surrogateescape"))

    def vector(self, offsets: Sequence[int]) -> int:
        b = self.b
        b.start_vector(4, len(offsets), 4)
        for off in reversed(offsets):
            b.prepend_uoffset_relative(off)
        return b.end_vector()

    def sorted_vector(self, tables: Sequence[tuple[bytes, int]]) -> int:
        """``CreateVectorOfSortedTables``: by key (the name's bytes), stable."""
        return self.vector([off for _, off in sorted(tables, key=lambda kv: kv[0])])

    def attributes(self, attrs: Mapping[str, Any]) -> int:
        b = self.b
        pairs = []
        for key in sorted(k for k in attrs if not k.startswith("flatbuffers.")):
            if key in self.builtin_names and not self.builtins:
                continue
            k = self.string(key)
            v = self.string(attribute_text(attrs[key]))
            b.start_object(2)
            b.prepend_uoffset_relative_slot(1, v, 0)
            b.prepend_uoffset_relative_slot(0, k, 0)
            pairs.append((key.encode("utf-8", "surrogateescape"), b.end_object()))
        return self.sorted_vector(pairs) if pairs else 0

    def docs(self, doc: str) -> int:
        if not self.comments or not doc:
            return 0
        return self.vector([self.string(line) for line in doc.split("\n")])

    def declaration_file(self, attrs: Mapping[str, Any]) -> int:
        name = ""
        if self.files is not None:
            name = self.files.get(str(attrs.get("flatbuffers.file", "")), "")
        return self.b.create_shared_string(name.encode("utf-8", "surrogateescape"))

    def type_table(self, base: int, element: int, index: int, fixed_length: int) -> int:
        element_size = SIZE_OF[element]
        if base == VECTOR and element == OBJ:
            element_size = self.types.struct_size(index) or element_size
        b = self.b
        b.start_object(6)
        b.prepend_uint32_slot(5, element_size, 0)
        b.prepend_uint32_slot(4, SIZE_OF[base], 4)
        b.prepend_int32_slot(2, index, -1)
        b.prepend_uint16_slot(3, fixed_length, 0)
        b.prepend_uint8_slot(1, element, 0)
        b.prepend_uint8_slot(0, base, 0)
        return b.end_object()

    # -- definitions -------------------------------------------------------------------------

    def field(self, f: ModelField, record: Record) -> int:
        b = self.b
        name = self.string(f.name)
        base, element, index, fixed_length = self.types.of_field(f)
        type_ = self.type_table(base, element, index, fixed_length)
        attrs = self.attributes(f.attributes)
        docs = self.docs(f.doc)
        default_integer, default_real = field_defaults(f, base)
        fixed = record.kind == "struct"
        offset = f.attributes["flatbuffers.offset" if fixed else "flatbuffers.voffset"]
        b.start_object(14)
        b.prepend_float64_slot(5, default_real, 0.0)
        b.prepend_int64_slot(4, default_integer, 0)
        b.prepend_uoffset_relative_slot(10, docs, 0)
        b.prepend_uoffset_relative_slot(9, attrs, 0)
        b.prepend_uoffset_relative_slot(1, type_, 0)
        b.prepend_uoffset_relative_slot(0, name, 0)
        b.prepend_uint16_slot(12, int(f.attributes.get("flatbuffers.padding", 0)) if fixed
                              else 0, 0)
        b.prepend_uint16_slot(3, offset, 0)
        b.prepend_uint16_slot(2, f.id or 0, 0)
        b.prepend_bool_slot(13, bool(f.attributes.get("flatbuffers.offset64")), False)
        b.prepend_bool_slot(11, not fixed and self.optional(f), False)
        b.prepend_bool_slot(8, f.key, False)
        b.prepend_bool_slot(7, f.required, False)
        b.prepend_bool_slot(6, f.deprecated, False)
        return b.end_object()

    def optional(self, f: ModelField) -> bool:
        """flatc's ``IsOptional``: a scalar declared ``= null``, a union vector's type
        field as its union vector, any other non-scalar unless required or given a default."""
        t = f.type
        if isinstance(t, Optional):
            return True
        if isinstance(t, List):
            return not (f.required or (t.length is None and f.default is not None))
        if isinstance(t, String):
            return not (f.required or f.default is not None)
        if isinstance(t, Ref):
            return not (f.required or isinstance(self.schema.types[t.name], Enum))
        return False

    def record(self, rec: Record) -> int:
        b = self.b
        fields = [(f.name.encode("utf-8", "surrogateescape"), self.field(f, rec))
                  for f in sorted(rec.fields, key=lambda f: f.id or 0)]
        name = self.string(rec.name)
        fields_vec = self.sorted_vector(fields)
        attrs = self.attributes(rec.attributes)
        docs = self.docs(rec.doc)
        file = self.declaration_file(rec.attributes)
        fixed = rec.kind == "struct"
        b.start_object(8)
        b.prepend_uoffset_relative_slot(7, file, 0)
        b.prepend_uoffset_relative_slot(6, docs, 0)
        b.prepend_uoffset_relative_slot(5, attrs, 0)
        b.prepend_int32_slot(4, int(rec.attributes["flatbuffers.size"]) if fixed else 0, 0)
        b.prepend_int32_slot(3, int(rec.attributes["flatbuffers.align"]) if fixed else 1, 0)
        b.prepend_uoffset_relative_slot(1, fields_vec, 0)
        b.prepend_uoffset_relative_slot(0, name, 0)
        b.prepend_bool_slot(2, fixed, False)
        return b.end_object()

    def enum_value(self, name: str, value: int, type_: tuple[int, int], attrs: Mapping[str, Any],
                   doc: str) -> int:
        b = self.b
        name_off = self.string(name)
        type_off = self.type_table(type_[0], NONE, type_[1], 0)
        attrs_off = self.attributes(attrs)
        docs = self.docs(doc)
        b.start_object(6)
        b.prepend_int64_slot(1, (value + (1 << 63)) % (1 << 64) - (1 << 63), 0)  # ulong wraps
        b.prepend_uoffset_relative_slot(5, attrs_off, 0)
        b.prepend_uoffset_relative_slot(4, docs, 0)
        b.prepend_uoffset_relative_slot(3, type_off, 0)
        b.prepend_uoffset_relative_slot(0, name_off, 0)
        return b.end_object()

    def enum(self, e: Enum | Union) -> int:
        b = self.b
        value_attrs = e.attributes.get("flatbuffers.value_attributes", {})
        value_docs = e.attributes.get("flatbuffers.value_docs", {})
        values = []
        if isinstance(e, Union):
            values.append(self.enum_value(str(e.attributes.get("flatbuffers.none", "NONE")), 0,
                                          (NONE, -1), {}, ""))
            for member, (value, t) in e.members.items():
                mtype = (STRING, -1) if isinstance(t, String) else self.types.element(t, None)
                values.append(self.enum_value(member, value, mtype,
                                              value_attrs.get(member, {}),
                                              value_docs.get(member, "")))
            underlying = self.underlying_base(e)
        else:
            for member, value in e.values.items():
                values.append(self.enum_value(member, value, (NONE, -1),
                                              value_attrs.get(member, {}),
                                              value_docs.get(member, "")))
            underlying = int_base(e.underlying)
        name = self.string(e.name)
        values_vec = self.vector(values)
        type_ = self.type_table(underlying, NONE, self.types.index[e.name], 0)
        attrs = self.attributes(e.attributes)
        docs = self.docs(e.doc)
        file = self.declaration_file(e.attributes)
        b.start_object(7)
        b.prepend_uoffset_relative_slot(6, file, 0)
        b.prepend_uoffset_relative_slot(5, docs, 0)
        b.prepend_uoffset_relative_slot(4, attrs, 0)
        b.prepend_uoffset_relative_slot(3, type_, 0)
        b.prepend_uoffset_relative_slot(1, values_vec, 0)
        b.prepend_uoffset_relative_slot(0, name, 0)
        b.prepend_bool_slot(2, isinstance(e, Union), False)
        return b.end_object()

    @staticmethod
    def underlying_base(u: Union) -> int:
        """A union's underlying type: ``UType``, or the type ``union U : T`` declares."""
        declared = u.attributes.get("flatbuffers.declared_underlying")
        return int_base(u.discriminator) if declared else UTYPE

    def service(self, svc: Any) -> int:
        b = self.b
        calls = []
        for call in svc.calls:
            name = self.string(call.name)
            attrs = self.attributes(call.attributes)
            docs = self.docs(call.doc)
            b.start_object(5)
            b.prepend_uoffset_relative_slot(4, docs, 0)
            b.prepend_uoffset_relative_slot(3, attrs, 0)
            b.prepend_uoffset_relative_slot(2, self.locations[call.response], 0)
            b.prepend_uoffset_relative_slot(1, self.locations[call.request], 0)
            b.prepend_uoffset_relative_slot(0, name, 0)
            calls.append(b.end_object())
        name = self.string(svc.name)
        calls_vec = self.vector(calls)
        attrs = self.attributes(svc.attributes)
        docs = self.docs(svc.doc)
        file = self.declaration_file({"flatbuffers.file": svc.file})
        b.start_object(5)
        b.prepend_uoffset_relative_slot(4, file, 0)
        b.prepend_uoffset_relative_slot(3, docs, 0)
        b.prepend_uoffset_relative_slot(2, attrs, 0)
        b.prepend_uoffset_relative_slot(1, calls_vec, 0)
        b.prepend_uoffset_relative_slot(0, name, 0)
        return b.end_object()

    def schema_files(self) -> int:
        b = self.b
        assert self.includes is not None
        tables = []
        for filename, included in self.includes:
            name = b.create_shared_string(filename.encode("utf-8", "surrogateescape"))
            inc = [b.create_shared_string(i.encode("utf-8", "surrogateescape"))
                   for i in included]
            inc_vec = self.vector(inc)
            b.start_object(2)
            b.prepend_uoffset_relative_slot(1, inc_vec, 0)
            b.prepend_uoffset_relative_slot(0, name, 0)
            tables.append((filename.encode("utf-8", "surrogateescape"), b.end_object()))
        return self.sorted_vector(tables)

    def run(self) -> bytes:
        s = self.schema
        b = self.b
        objects, enums, services = [], [], []
        for t in s.types.values():
            if isinstance(t, Record):
                off = self.record(t)
                self.locations[t.name] = off
                objects.append((t.name.encode("utf-8", "surrogateescape"), off))
        for t in s.types.values():
            if isinstance(t, Enum | Union):
                enums.append((t.name.encode("utf-8", "surrogateescape"), self.enum(t)))
        for svc in s.attributes.get("services", ()):
            services.append((svc.name.encode("utf-8", "surrogateescape"), self.service(svc)))
        files = self.schema_files() if self.includes is not None else 0
        objects_vec = self.sorted_vector(objects)
        enums_vec = self.sorted_vector(enums)
        ident = self.string(s.file_identifier or "")
        ext = self.string(s.file_extension or "")
        services_vec = self.sorted_vector(services)
        root = self.locations[s.root] if s.root is not None else 0
        b.start_object(8)
        b.prepend_uint64_slot(6, advanced_features(s), 0)
        b.prepend_uoffset_relative_slot(7, files, 0)
        b.prepend_uoffset_relative_slot(5, services_vec, 0)
        b.prepend_uoffset_relative_slot(4, root, 0)
        b.prepend_uoffset_relative_slot(3, ext, 0)
        b.prepend_uoffset_relative_slot(2, ident, 0)
        b.prepend_uoffset_relative_slot(1, enums_vec, 0)
        b.prepend_uoffset_relative_slot(0, objects_vec, 0)
        b.finish(b.end_object(), b"BFBS")
        return b.output()


def relative_to_root(root: str, path: str) -> str:
    """flatc's ``RelativeToRootPath``: ``path`` from the project root, as ``//REL`` (both
    made absolute, symbolic links resolved)."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return "//" + rel.replace(os.sep, "/")


def write_bfbs(schema: FbsSchema, *, comments: bool = False, builtins: bool = False,
               filenames: str | os.PathLike[str] | None = None) -> bytes:
    """The ``.bfbs`` flatc writes for ``schema`` (``flatc -b --schema``; ``--bfbs-comments``,
    ``--bfbs-builtins`` and ``--bfbs-filenames DIR``)."""
    files: dict[str, str] | None = None
    includes: list[tuple[str, list[str]]] | None = None
    if filenames is not None:
        root = os.fspath(filenames)
        per_file = schema.attributes.get("file_includes", ())
        names = {path for path, _ in per_file} | {i for _, inc in per_file for i in inc}
        names |= {str(t.attributes.get("flatbuffers.file", "")) for t in schema.types.values()}
        names |= {svc.file for svc in schema.attributes.get("services", ())}
        names.discard("")
        files = {n: n if n.startswith("//") else relative_to_root(root, n) for n in names}
        includes = [(files[path], [files[i] for i in inc]) for path, inc in per_file]
    return BfbsWriter(schema, comments=comments, builtins=builtins, files=files,
                      includes=includes).run()
