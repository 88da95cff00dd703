"""FlatBuffers from a shared-model schema: a schema declared in Python, or by any other front.

:func:`to_fbs` renders a :class:`gameserde.schema.model.Schema` (e.g. ``schema_of(Monster)``)
as ``.fbs`` text; :func:`from_model` (also reached by ``load_schema(model_schema)``) parses
that text with :func:`~gameserde.flatbuffers.schema.load_schema`, so every rule of flatc
applies and the result is the :class:`FbsSchema` flatc would build from the same file.

=====================================  ===================================================
model                                  ``.fbs``
=====================================  ===================================================
``Record`` (``kind="struct"``)         ``struct`` (any other kind: ``table``); inherited
                                       fields (``base``) come first
``Enum``                               ``enum E : <underlying>``; ``bit_flags``: a
                                       ``(bit_flags)`` enum of the single-bit masks (a zero
                                       value is left out, a several-bit one is an error);
                                       a value that repeats another (a Python alias) is
                                       left out
``Union``                              ``union U { Member: Type = value, ... }`` (tables,
                                       structs and strings)
``Int`` 8/16/32/64, ``Float`` 32/64    ``byte`` ... ``ulong``, ``float``, ``double``
``Bool``, ``String`` (UTF-8)           ``bool``, ``string``
``Bytes``                              ``[ubyte]``
``List(T)``, ``List(T, n)``            ``[T]`` (tables); ``[T:n]`` (structs only)
``Optional(scalar or enum)``           ``= null`` (its default must be None)
``Optional(T)`` of anything else       ``T`` (absent is the only "null" FlatBuffers has)
``Field.id``/``deprecated``/           ``(id: n)``, ``(deprecated)``, ``(required)``,
``required``/``key``                   ``(key)``
``Field.default`` of a scalar/enum     ``= value`` (an enum's by name); other defaults are
                                       not written (FlatBuffers writes them as absent)
other attributes                       written when the value is True, an int or a str
                                       (others, and keys with a dot, are left out); those
                                       flatc does not know are declared (``attribute``)
dotted names (``A.B.T``)               ``namespace A.B;`` then ``T``
``Schema.root``                        ``root_type``; ``file_identifier`` and
                                       ``file_extension`` from the schema's attributes or
                                       the arguments
=====================================  ===================================================

``Set``, ``Map``, integers of other widths, 16-bit floats, strings in other encodings,
vectors of vectors or of optionals, unions or tables in structs and arrays in tables have no
FlatBuffers counterpart: :class:`SchemaError` naming the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from gameserde.errors import SchemaError
from gameserde.flatbuffers._fbs_defs import FbsSchemaError
from gameserde.flatbuffers.schema import FbsSchema, load_schema
from gameserde.schema import model as m

__all__ = ["from_model", "to_fbs"]

_INT_NAMES = {(8, True): "byte", (8, False): "ubyte", (16, True): "short",
              (16, False): "ushort", (32, True): "int", (32, False): "uint",
              (64, True): "long", (64, False): "ulong"}
_FLOAT_NAMES = {32: "float", 64: "double"}
_RESERVED = frozenset({
    *_INT_NAMES.values(), *_FLOAT_NAMES.values(), "bool", "string", "int8", "uint8", "int16",
    "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"})
# the attributes flatc knows without an ``attribute`` declaration
_FLATC_ATTRIBUTES = frozenset({
    "bit_flags", "cpp_ptr_type", "cpp_ptr_type_get", "cpp_str_type", "cpp_str_flex_ctor",
    "cpp_type", "csharp_partial", "deprecated", "flexbuffer", "force_align", "hash", "id",
    "key", "native_custom_alloc", "native_default", "native_inline", "native_type",
    "native_type_pack_name", "nested_flatbuffer", "offset64", "original_order", "private",
    "required", "shared", "streaming", "idempotent", "vector64"})
# attributes rendered from the model's own fields (never copied from ``attributes``)
_STRUCTURED = frozenset({"id", "deprecated", "required", "key", "bit_flags"})


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _namespace(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _doc(doc: str, indent: str) -> list[str]:
    return [f"{indent}///{' ' + line.strip() if line.strip() else ''}"
            for line in doc.strip().splitlines()] if doc.strip() else []


class _Renderer:
    def __init__(self, schema: m.Schema) -> None:
        self.schema = schema
        self.out: list[str] = []
        self.namespace = ""
        self.declare: list[str] = []
        shorts: dict[str, int] = {}
        for name in schema.types:
            shorts[_short(name)] = shorts.get(_short(name), 0) + 1
        self.unique_short = {s for s, n in shorts.items() if n == 1 and s not in _RESERVED}

    # -- names -------------------------------------------------------------------------------

    def ref(self, name: str) -> str:
        """How to write the type ``name`` here: its short name when it is in the current
        namespace and no other type has that short name (flatc's lookups, and the forward
        references it resolves at the first definition of that short name, then find it),
        else its fully qualified name."""
        short = _short(name)
        if _namespace(name) == self.namespace and short in self.unique_short:
            return short
        return name

    def enter(self, name: str) -> None:
        ns = _namespace(name)
        if ns != self.namespace or not self.out:
            if ns or self.out:
                self.out.append(f"namespace {ns};" if ns else "namespace ;")
                self.out.append("")
            self.namespace = ns

    # -- attributes --------------------------------------------------------------------------

    def attributes(self, given: list[str], attrs: Any) -> str:
        parts = list(given)
        for key, value in attrs.items():
            if key in _STRUCTURED or not isinstance(key, str) or not key.isidentifier():
                continue
            if value is True:
                parts.append(key)
            elif isinstance(value, int) and not isinstance(value, bool):
                parts.append(f"{key}: {value}")
            elif isinstance(value, str):
                parts.append(f"{key}: {_string(value)}")
            else:
                continue
            if key not in _FLATC_ATTRIBUTES and key not in self.declare:
                self.declare.append(key)
        return f" ({', '.join(parts)})" if parts else ""

    # -- types -------------------------------------------------------------------------------

    def scalar(self, t: m.Type, where: str) -> str | None:
        """The name of a scalar type, None for a non-scalar one."""
        if isinstance(t, m.Int):
            name = _INT_NAMES.get((t.bits, t.signed))
            if name is None:
                raise SchemaError(f"{where}: FlatBuffers has no {t.bits}-bit integer")
            return name
        if isinstance(t, m.Float):
            if t.bits not in _FLOAT_NAMES:
                raise SchemaError(f"{where}: FlatBuffers has no {t.bits}-bit float")
            return _FLOAT_NAMES[t.bits]
        if isinstance(t, m.Bool):
            return "bool"
        return None

    def type_text(self, t: m.Type, where: str, in_struct: bool) -> str:
        scalar = self.scalar(t, where)
        if scalar is not None:
            return scalar
        if isinstance(t, m.Ref):
            named = self.schema.types[t.name]
            if in_struct and isinstance(named, m.Union):
                raise SchemaError(f"{where}: a struct cannot hold a union ({t.name})")
            if in_struct and isinstance(named, m.Record) and named.kind != "struct":
                raise SchemaError(f"{where}: a struct cannot hold a table ({t.name})")
            return self.ref(t.name)
        if isinstance(t, m.List):
            e = t.element
            if t.length is not None:
                if not in_struct:
                    raise SchemaError(f"{where}: FlatBuffers has fixed-length arrays in "
                                      "structs only")
                target = self.schema.types[e.name] if isinstance(e, m.Ref) else None
                if not isinstance(e, m.Int | m.Float | m.Bool | m.Ref) or \
                        isinstance(target, m.Union):
                    raise SchemaError(f"{where}: an array holds scalars, enums or structs")
                return f"[{self.type_text(e, where, True)}:{t.length}]"
            if in_struct:
                raise SchemaError(f"{where}: a struct cannot hold a vector")
            if isinstance(e, m.List | m.Bytes | m.Optional | m.Set | m.Map):
                what = {m.List: "vectors", m.Bytes: "byte strings", m.Optional: "optionals",
                        m.Set: "sets", m.Map: "maps"}[type(e)]
                raise SchemaError(f"{where}: FlatBuffers has no vectors of {what}")
            return f"[{self.type_text(e, where, False)}]"
        if in_struct:
            raise SchemaError(f"{where}: a struct holds scalars, enums, structs and arrays "
                              f"only, not {type(t).__name__}")
        if isinstance(t, m.String):
            if t.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
                raise SchemaError(f"{where}: FlatBuffers strings are UTF-8, not {t.encoding}")
            return "string"
        if isinstance(t, m.Bytes):
            return "[ubyte]"
        if isinstance(t, m.Set | m.Map):
            raise SchemaError(f"{where}: FlatBuffers has no {type(t).__name__.lower()}s")
        raise SchemaError(f"{where}: {t!r} has no FlatBuffers counterpart")

    def default(self, t: m.Type, value: Any, where: str) -> str | None:
        """The ``= value`` text of a scalar or enum default (None: leave it out)."""
        if value is None:
            return None
        if isinstance(t, m.Ref):
            named = self.schema.types[t.name]
            if not isinstance(named, m.Enum):
                return None
            if isinstance(value, bool) or not isinstance(value, int):
                raise SchemaError(f"{where}: the default of an enum field is an int")
            name = None if named.bit_flags else named.name_of(value)
            return name if name is not None else (str(value) if value else None)
        if isinstance(t, m.Bool):
            if not isinstance(value, bool | int):
                raise SchemaError(f"{where}: the default of a bool field is a bool")
            return "true" if value else None
        if isinstance(t, m.Int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise SchemaError(f"{where}: the default of an integer field is an int")
            return str(value) if value else None
        if isinstance(t, m.Float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SchemaError(f"{where}: the default of a float field is a number")
            x = float(value)
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
            return repr(x) if x else None
        return None

    # -- declarations ------------------------------------------------------------------------

    def enum(self, e: m.Enum) -> None:
        self.enter(e.name)
        underlying = self.scalar(e.underlying, f"enum {e.name}")
        values: list[tuple[str, int]] = []
        seen: set[int] = set()
        for name, value in e.values.items():
            if value in seen:  # an alias (several names of one value)
                continue
            if e.bit_flags:
                if value == 0:
                    continue
                if value < 0 or value & (value - 1):
                    raise SchemaError(f"enum {e.name}: {name} = {value} is not a single bit; "
                                      "a (bit_flags) enum names single bits")
                values.append((name, value.bit_length() - 1))
            else:
                values.append((name, value))
            seen.add(value)
        values.sort(key=lambda item: item[1])
        attrs = self.attributes(["bit_flags"] if e.bit_flags else [], e.attributes)
        self.out += _doc(e.doc, "")
        body = ", ".join(f"{name} = {value}" for name, value in values)
        self.out += [f"enum {_short(e.name)} : {underlying}{attrs} {{ {body} }}", ""]

    def union(self, u: m.Union) -> None:
        self.enter(u.name)
        members: list[str] = []
        previous = 0
        for label, (value, t) in u.members.items():
            where = f"union {u.name}: {label}"
            if isinstance(t, m.String):
                self.type_text(t, where, False)
                text = f"{label}: string"
            elif isinstance(t, m.Ref) and isinstance(self.schema.types[t.name], m.Record):
                ref = self.ref(t.name)
                text = ref if ref.replace(".", "_") == label else f"{label}: {ref}"
            else:
                raise SchemaError(f"{where}: a union member is a table, a struct or a string")
            if value != previous + 1:
                text += f" = {value}"
            previous = value
            members.append(text)
        disc = "" if u.discriminator == m.UINT8 else \
            f" : {self.scalar(u.discriminator, f'union {u.name}')}"
        attrs = self.attributes([], u.attributes)
        self.out += _doc(u.doc, "")
        self.out += [f"union {_short(u.name)}{disc}{attrs} {{ {', '.join(members)} }}", ""]

    def record(self, rec: m.Record) -> None:
        self.enter(rec.name)
        struct = rec.kind == "struct"
        self.out += _doc(rec.doc, "")
        attrs = self.attributes([], rec.attributes)
        self.out.append(f"{'struct' if struct else 'table'} {_short(rec.name)}{attrs} {{")
        for f in self.schema.fields_of(rec):
            if "flatbuffers.union_type_of" in f.attributes:
                continue  # a union's _type field (a model loaded from .fbs): implied
            self.out += _doc(f.doc, "  ")
            self.out.append(f"  {self.field(rec, f, struct)};")
        self.out += ["}", ""]

    def field(self, rec: m.Record, f: m.Field, struct: bool) -> str:
        where = f"{_short(rec.name)}.{f.name}"
        t = f.type
        optional = isinstance(t, m.Optional)
        if isinstance(t, m.Optional):
            t = t.inner
            if isinstance(t, m.Optional):
                raise SchemaError(f"{where}: an optional of an optional")
            if struct:
                raise SchemaError(f"{where}: a struct field cannot be optional")
        text = f"{f.name}: {self.type_text(t, where, struct)}"
        scalar = self.scalar(t, where) is not None or (
            isinstance(t, m.Ref) and isinstance(self.schema.types[t.name], m.Enum))
        if struct:
            return text + self.attributes(["key"] if f.key else [], f.attributes)
        if optional and scalar:
            if f.default is not None:
                raise SchemaError(f"{where}: an optional scalar defaults to null, not "
                                  f"{f.default!r}")
            text += " = null"
        elif scalar:
            default = self.default(t, f.default, where)
            if default is not None:
                text += f" = {default}"
        given = [f"id: {f.id}"] if f.id is not None else []
        given += [flag for flag in ("deprecated", "required", "key") if getattr(f, flag)]
        return text + self.attributes(given, f.attributes)

    # -- the whole schema --------------------------------------------------------------------

    def records_in_order(self) -> Iterator[m.Record]:
        """Records with the records they use first (as far as cycles allow)."""
        done: set[str] = set()
        types = self.schema.types

        def visit(name: str) -> Iterator[m.Record]:
            if name in done:
                return
            done.add(name)
            rec = types[name]
            assert isinstance(rec, m.Record)
            for f in self.schema.fields_of(rec):
                for ref in _refs(f.type):
                    if isinstance(types[ref], m.Record):
                        yield from visit(ref)
            yield rec

        records = [name for name, t in types.items() if isinstance(t, m.Record)]
        for name in sorted(records, key=_namespace):
            yield from visit(name)

    def run(self, file_identifier: str | None, file_extension: str | None) -> str:
        types = sorted(self.schema.types.values(), key=lambda t: _namespace(t.name))
        for t in types:
            if isinstance(t, m.Enum):
                self.enum(t)
        for t in types:
            if isinstance(t, m.Union):
                self.union(t)
        for rec in self.records_in_order():
            self.record(rec)
        tail: list[str] = []
        if self.schema.root is not None:
            tail.append(f"root_type {self.schema.root};")
        if file_identifier is not None:
            tail.append(f"file_identifier {_string(file_identifier)};")
        if file_extension is not None:
            tail.append(f"file_extension {_string(file_extension)};")
        head = [f"attribute {_string(a)};" for a in self.declare]
        if self.namespace and tail:
            tail.insert(0, "namespace ;")  # root_type takes the fully qualified name
        lines = ([*head, ""] if head else []) + self.out + tail
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines) + "\n"


def _refs(t: m.Type) -> Iterator[str]:
    if isinstance(t, m.Ref):
        yield t.name
    elif isinstance(t, m.List | m.Set):
        yield from _refs(t.element)
    elif isinstance(t, m.Optional):
        yield from _refs(t.inner)
    elif isinstance(t, m.Map):
        yield from _refs(t.key)
        yield from _refs(t.value)


def to_fbs(schema: m.Schema, *, file_identifier: str | None = None,
           file_extension: str | None = None) -> str:
    """``schema`` as ``.fbs`` text (see the module docstring for the mapping).

    ``file_identifier``/``file_extension`` default to the schema attributes of those names.
    Raises :class:`SchemaError` naming the field for a type FlatBuffers cannot express.
    """
    attrs = schema.attributes
    if file_identifier is None and isinstance(attrs.get("file_identifier"), str):
        file_identifier = attrs["file_identifier"]
    if file_extension is None and isinstance(attrs.get("file_extension"), str):
        file_extension = attrs["file_extension"]
    return _Renderer(schema).run(file_identifier, file_extension)


def from_model(schema: m.Schema, *, file_identifier: str | None = None,
               file_extension: str | None = None, warnings_as_errors: bool = False,
               require_explicit_ids: bool = False) -> FbsSchema:
    """The :class:`FbsSchema` of a shared-model schema (``schema_of(Monster)``...): the text
    :func:`to_fbs` renders, parsed by :func:`load_schema` with every flatc rule.

    flatc's rejections are :class:`FbsSchemaError` naming ``<root>.fbs`` (the rendered text,
    whose offending line is attached as a note); a type FlatBuffers cannot express is a
    :class:`SchemaError` naming the field.
    """
    text = to_fbs(schema, file_identifier=file_identifier, file_extension=file_extension)
    filename = f"{_short(schema.root) if schema.root else 'schema'}.fbs"
    try:
        fbs = load_schema(text, filename=filename, warnings_as_errors=warnings_as_errors,
                          require_explicit_ids=require_explicit_ids)
    except FbsSchemaError as exc:
        lines = text.splitlines()
        if 1 <= exc.line <= len(lines):
            exc.add_note(f"rendered from the model, line {exc.line}: {lines[exc.line - 1]}")
        raise
    _check(schema, fbs)
    return fbs


def _check(schema: m.Schema, fbs: FbsSchema) -> None:
    """flatc resolved every name to the type the model means (names repeated across
    namespaces could in principle fool its lookup)."""
    for name, t in schema.types.items():
        got = fbs.types.get(name)
        if got is None or type(got) is not type(t):
            raise SchemaError(f"{name}: the rendered .fbs does not declare it as expected")
        if isinstance(t, m.Union):
            assert isinstance(got, m.Union)
            want_members = [sorted(_refs(mt)) for _, mt in t.members.values()]
            got_members = [sorted(_refs(mt)) for _, mt in got.members.values()]
            if want_members != got_members:
                raise SchemaError(f"{name}: flatc resolved its members to other types")
        if isinstance(t, m.Record):
            assert isinstance(got, m.Record)
            for f in schema.fields_of(t):
                if "flatbuffers.union_type_of" in f.attributes:
                    continue
                if sorted(_refs(f.type)) != sorted(_refs(got.field(f.name).type)):
                    raise SchemaError(f"{name}.{f.name}: flatc resolved its type to another "
                                      "type (names repeated across namespaces)")
