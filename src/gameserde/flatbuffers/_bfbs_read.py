"""Reading a ``.bfbs`` (a ``reflection.Schema`` buffer) into the shared schema model.

The buffer is first verified against the bundled ``reflection.fbs`` (so every offset, length
and string read below is known to be inside it); then the reflection data is checked for what
the verifier cannot see (type indices, field ids, union members, structs inside themselves)
and lowered into the same :class:`FbsSchema` that ``load_schema`` makes of the ``.fbs``. Every
error is a :class:`BfbsError` carrying the byte offset of the table at fault.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from typing import Any

from gameserde.errors import DecodeError
from gameserde.flatbuffers._bfbs_tables import (
    BfbsError,
    RType,
    Table,
    looks_like_bfbs,
    read_attributes,
    read_doc,
    reflection_schema,
)
from gameserde.flatbuffers._fbs_defs import _HASHES, BUILTIN_ATTRIBUTES
from gameserde.flatbuffers._reflection_types import (
    ARRAY,
    BOOL,
    BYTE,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    NONE,
    OBJ,
    SHORT,
    SIZE_OF,
    STRING,
    UBYTE,
    UINT,
    ULONG,
    UNION,
    USHORT,
    UTYPE,
    VECTOR,
    VECTOR64,
)
from gameserde.flatbuffers.schema import FbsRpcCall, FbsSchema, FbsService
from gameserde.schema.model import BOOL as MODEL_BOOL
from gameserde.schema.model import (
    FLOAT32,
    FLOAT64,
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
from gameserde.schema.model import STRING as MODEL_STRING
from gameserde.schema.model import UINT8 as MODEL_UINT8
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Type as ModelType

_INT_TYPES = {BYTE: Int(8, True), BYTE + 1: Int(8, False), BYTE + 2: Int(16, True),
              BYTE + 3: Int(16, False), BYTE + 4: Int(32, True), BYTE + 5: Int(32, False),
              BYTE + 6: Int(64, True), BYTE + 7: Int(64, False), UTYPE: Int(8, False)}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUALIFIED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class _Reader:
    def __init__(self, buf: bytes, source_file: str) -> None:
        self.buf = buf
        self.source_file = source_file
        start = 4 if buf[4:8] != b"BFBS" else 0
        root = Table(buf, start + struct.unpack_from("<I", buf, start)[0])
        self.root = root
        self.objects = root.tables(0)
        self.enums = root.tables(1)
        self.object_names = [self.name(o, True) for o in self.objects]
        self.enum_names = [self.name(e, True) for e in self.enums]
        self.is_union = [bool(e.scalar(2, "<?", False)) for e in self.enums]
        self.is_struct = [bool(o.scalar(2, "<?", False)) for o in self.objects]
        for names, what in ((self.object_names, "object"), (self.enum_names, "enum")):
            if len(set(names)) != len(names):
                raise BfbsError(f"two {what}s have the same name", root.pos)
        if set(self.object_names) & set(self.enum_names):
            raise BfbsError("an object and an enum have the same name", root.pos)
        self.object_set = set(self.object_names)
        self.field_types: dict[str, RType] = {}

    @staticmethod
    def name(t: Table, dotted: bool = False) -> str:
        """The identifier in slot 0 (a qualified name when ``dotted``), as flatc's lexer
        reads them."""
        name = t.string(0)
        if name is None or not (_QUALIFIED if dotted else _IDENTIFIER).fullmatch(name):
            raise BfbsError(f"not a valid name: {name!r:.80}", t.pos)
        return name

    # -- types -------------------------------------------------------------------------------

    def object_index(self, index: int, at: int) -> int:
        if not 0 <= index < len(self.objects):
            raise BfbsError(f"object index {index} out of range", at)
        return index

    def enum_index(self, index: int, at: int, union: bool | None = None) -> int:
        if not 0 <= index < len(self.enums):
            raise BfbsError(f"enum index {index} out of range", at)
        if union is not None and self.is_union[index] != union:
            raise BfbsError(f"enum index {index} is {'not ' if union else ''}a union", at)
        return index

    def element(self, bt: int, t: RType, struct_only: bool) -> ModelType:
        """The model type of a base type that is not a vector or array."""
        if bt == OBJ:
            i = self.object_index(t.index, t.pos)
            if struct_only and not self.is_struct[i]:
                raise BfbsError("a table inside a struct or array", t.pos)
            return Ref(self.object_names[i])
        if bt == UNION:
            return Ref(self.enum_names[self.enum_index(t.index, t.pos, True)])
        if bt == STRING:
            return MODEL_STRING
        if bt == BOOL:
            return MODEL_BOOL
        if bt == FLOAT:
            return FLOAT32
        if bt == DOUBLE:
            return FLOAT64
        if bt == UTYPE:
            self.enum_index(t.index, t.pos, True)
            return MODEL_UINT8
        if BYTE <= bt <= ULONG:
            if t.index >= 0:
                return Ref(self.enum_names[self.enum_index(t.index, t.pos, False)])
            return _INT_TYPES[bt]
        raise BfbsError(f"base type {bt} cannot be used here", t.pos)

    def model_type(self, t: RType, in_struct: bool) -> ModelType:
        if t.base == ARRAY:
            if not in_struct or t.fixed_length == 0:
                raise BfbsError("an array outside a struct, or of no length", t.pos)
            if t.element in (STRING, UNION, UTYPE):
                raise BfbsError("an array of non-scalars", t.pos)
            return List(self.element(t.element, t, True), t.fixed_length)
        if in_struct and t.base in (STRING, VECTOR, VECTOR64, UNION, UTYPE):
            raise BfbsError("a struct field that is not a scalar, struct or array", t.pos)
        if t.base in (VECTOR, VECTOR64):
            if t.element in (VECTOR, VECTOR64, ARRAY, NONE):
                raise BfbsError("a vector of vectors", t.pos)
            return List(self.element(t.element, t, False))
        if t.base == NONE:
            raise BfbsError("a field of type None", t.pos)
        return self.element(t.base, t, in_struct)

    def check_struct_cycles(self) -> None:
        state = [0] * len(self.objects)  # 0 new, 1 on the path, 2 done
        for start in range(len(self.objects)):
            if state[start] or not self.is_struct[start]:
                continue
            path = [(start, iter(self.struct_children(start)))]
            state[start] = 1
            while path:
                node, children = path[-1]
                child = next(children, None)
                if child is None:
                    state[node] = 2
                    path.pop()
                elif state[child] == 1:
                    raise BfbsError("a struct contains itself", self.objects[child].pos)
                elif state[child] == 0:
                    state[child] = 1
                    path.append((child, iter(self.struct_children(child))))

    def struct_children(self, i: int) -> Iterator[int]:
        for f in self.objects[i].tables(1):
            t = f.table(1)
            if t is None:
                continue
            base, element, index = t.scalar(0, "<b", 0), t.scalar(1, "<b", 0), t.scalar(2, "<i", -1)
            if (base == OBJ or (base == ARRAY and element == OBJ)) and 0 <= index < len(
                    self.objects):
                yield index

    # -- definitions -------------------------------------------------------------------------

    def field_type_size(self, t: RType, model: ModelType) -> tuple[int, int]:
        """``(size, align)`` of a field's inline slot."""
        bt = t.base
        if bt == OBJ:
            o = self.objects[t.index]
            return o.scalar(4, "<i", 0), o.scalar(3, "<i", 0)
        if bt == ARRAY:
            if t.element == OBJ:
                o = self.objects[t.index]
                return o.scalar(4, "<i", 0) * t.fixed_length, o.scalar(3, "<i", 0)
            return SIZE_OF[t.element] * t.fixed_length, SIZE_OF[t.element]
        return SIZE_OF[bt], SIZE_OF[bt]

    def record(self, i: int) -> Record:
        o = self.objects[i]
        name = self.object_names[i]
        fixed = self.is_struct[i]
        attrs = read_attributes(o, 5)
        namespace = name.rpartition(".")[0]
        attrs["flatbuffers.namespace"] = namespace
        attrs["flatbuffers.file"] = o.string(7) or ""
        if fixed:
            attrs["flatbuffers.size"] = o.scalar(4, "<i", 0)
            attrs["flatbuffers.align"] = o.scalar(3, "<i", 0)
        else:
            attrs["flatbuffers.sortbysize"] = "original_order" not in attrs
        tables = o.tables(1)
        by_id: list[Table | None] = [None] * len(tables)
        for f in tables:
            fid = f.scalar(2, "<H", 0)
            if fid >= len(tables) or by_id[fid] is not None:
                raise BfbsError(f"field ids of {name} are not 0 to {len(tables) - 1}", f.pos)
            by_id[fid] = f
        names = {self.name(f) for f in tables}
        self.field_types = {self.name(f): RType(f.table(1), f.pos) for f in tables}
        if len(names) != len(tables):
            raise BfbsError(f"two fields of {name} have the same name", o.pos)
        fields = []
        for fid, ft in enumerate(by_id):
            assert ft is not None
            fields.append(self.field(ft, fid, fixed, namespace, names))
        if sum(f.key for f in fields) > 1:
            raise BfbsError(f"{name} has more than one key field", o.pos)
        self.check_layout(o, name, fixed, fields)
        return Record(name, tuple(fields), kind="struct" if fixed else "table",
                      attributes=attrs, doc=read_doc(o, 6))

    def field(self, f: Table, fid: int, fixed: bool, namespace: str,
              names: set[str]) -> ModelField:
        name = self.name(f)
        t = RType(f.table(1), f.pos)
        ftype = self.model_type(t, fixed)
        attrs = read_attributes(f, 9)
        deprecated = bool(f.scalar(6, "<?", False))
        required = bool(f.scalar(7, "<?", False))
        key = bool(f.scalar(8, "<?", False))
        optional = bool(f.scalar(11, "<?", False))
        offset64 = bool(f.scalar(13, "<?", False))
        self.check_flags(f, name, t, fixed, required, key, offset64)
        # The flags that only these attributes set (a union's type field copies its union
        # field's, and vector64 implies offset64): the attributes without --bfbs-builtins.
        if not (t.base == UTYPE or (t.base == VECTOR and t.element == UTYPE)):
            for flag, on in (("deprecated", deprecated), ("key", key),
                             ("offset64", offset64 and t.base != VECTOR64),
                             ("vector64", t.base == VECTOR64),
                             ("required", required and not (key and t.base == STRING))):
                if on and flag not in attrs:
                    attrs[flag] = True
        offset = f.scalar(3, "<H", 0)
        size, align = self.field_type_size(t, ftype)
        default: Any = None
        if fixed:
            attrs["flatbuffers.offset"] = offset
            attrs["flatbuffers.padding"] = f.scalar(12, "<H", 0)
            attrs["flatbuffers.size"] = size
            attrs["flatbuffers.align"] = align
        else:
            attrs["flatbuffers.voffset"] = offset
            attrs["flatbuffers.size_class"] = SIZE_OF[t.base]
            if t.base in (STRING, VECTOR, VECTOR64, UNION) or (
                    t.base == OBJ and not self.is_struct[t.index]):
                size = align = 8 if offset64 else 4
            attrs["flatbuffers.size"] = size
            attrs["flatbuffers.align"] = align
            if offset64:
                attrs["flatbuffers.offset64"] = True
            default = self.default(f, t, optional, required)
            if optional and UTYPE <= t.base <= DOUBLE:
                ftype = Optional(ftype)
        union_field = self.union_sibling(name, t, names)
        if union_field is not None:
            attrs["flatbuffers.union_type_of"] = union_field
            attrs["flatbuffers.union"] = self.enum_names[t.index]
        elif t.base == UNION or (t.base == VECTOR and t.element == UNION):
            attrs["flatbuffers.union_type_field"] = name + "_type"
        self.check_attributes(f, name, t, attrs, optional and key)
        nested = attrs.get("nested_flatbuffer")
        if nested is not None:
            root = self.lookup_object(nested, namespace) if isinstance(nested, str) else None
            if root is None or self.is_struct[self.object_names.index(root)] or (
                    t.base not in (VECTOR, VECTOR64) or t.element != UBYTE):
                raise BfbsError(f"nested_flatbuffer {nested!r:.40} is not a table of a "
                                "[ubyte] field", f.pos)
            attrs["flatbuffers.nested_root"] = root
        return ModelField(name=name, type=ftype, id=fid, default=default,
                          deprecated=deprecated, required=required, key=key,
                          attributes=attrs, doc=read_doc(f, 10))

    @staticmethod
    def check_attributes(f: Table, name: str, t: RType, attrs: dict[str, Any],
                         optional_key: bool) -> None:
        """The builtin attributes the codecs act on, as flatc's parser allows them."""
        if bool(attrs.get("vector64")) != (t.base == VECTOR64):
            raise BfbsError(f"field {name}: vector64 does not match its type", f.pos)
        if attrs.get("flexbuffer") and (t.base, t.element) != (VECTOR, UBYTE):
            raise BfbsError(f"field {name}: flexbuffer on a field that is not [ubyte]", f.pos)
        if "hash" in attrs:
            bt = t.element if t.base in (VECTOR, VECTOR64) else t.base
            width = {SHORT: 16, USHORT: 16, INT: 32, UINT: 32, LONG: 64, ULONG: 64}.get(bt)
            if width is None or attrs["hash"] not in _HASHES[width]:
                raise BfbsError(f"field {name}: hash {attrs['hash']!r:.40} does not apply",
                                f.pos)
        if optional_key:
            raise BfbsError(f"field {name}: an optional scalar cannot be a key", f.pos)

    def check_flags(self, f: Table, name: str, t: RType, fixed: bool, required: bool,
                    key: bool, offset64: bool) -> None:
        """What flatc's parser refuses of a field's flags, and a union without its type."""
        scalar = UTYPE <= t.base <= DOUBLE
        if required and (scalar or fixed):
            raise BfbsError(f"field {name} is required but a scalar or in a struct", f.pos)
        if key and (t.base in (VECTOR, VECTOR64, UNION)
                    or (t.base == OBJ and not self.is_struct[t.index])):
            raise BfbsError(f"field {name} is a key of a type that cannot be one", f.pos)
        if offset64 and t.base not in (STRING, VECTOR, VECTOR64):
            raise BfbsError(f"field {name} is offset64 but not a string or vector", f.pos)
        if (offset64 or t.base == VECTOR64) and t.base != STRING and not (
                (BOOL <= t.element <= DOUBLE and t.index < 0)
                or (t.element == OBJ and self.is_struct[t.index])):
            raise BfbsError(f"field {name}: a 64-bit vector of what cannot be in one", f.pos)
        if t.base == UNION or (t.base == VECTOR and t.element == UNION):
            sibling = self.field_types.get(name + "_type")
            if sibling is None or sibling.index != t.index or (
                    (sibling.base, sibling.element) != (UTYPE, NONE) if t.base == UNION
                    else (sibling.base, sibling.element) != (VECTOR, UTYPE)):
                raise BfbsError(f"union field {name} without its type field {name}_type",
                                f.pos)

    @staticmethod
    def check_layout(o: Table, name: str, fixed: bool, fields: list[ModelField]) -> None:
        """Tables: each field in slot ``4 + 2 * id``. Structs: fields placed one after the
        other, each aligned, with their padding, up to the struct's size, as flatc lays
        them out (what every codec relies on)."""
        if not fixed:
            for f in fields:
                if f.attributes["flatbuffers.voffset"] != 4 + 2 * (f.id or 0):
                    raise BfbsError(f"field {name}.{f.name} is not in the slot of its id",
                                    o.pos)
            return
        align = o.scalar(3, "<i", 0)
        size = o.scalar(4, "<i", 0)
        if not 1 <= align <= 32 or align & (align - 1) or size <= 0 or size % align:
            raise BfbsError(f"struct {name} has size {size} and alignment {align}", o.pos)
        at = 0
        for f in fields:
            a = f.attributes
            if (a["flatbuffers.offset"] != at or a["flatbuffers.align"] > align
                    or at % a["flatbuffers.align"]):
                raise BfbsError(f"struct field {name}.{f.name} is not where flatc places it",
                                o.pos)
            at += a["flatbuffers.size"] + a["flatbuffers.padding"]
        if at != size or not fields:
            raise BfbsError(f"struct {name}'s fields do not fill its {size} bytes", o.pos)

    def union_sibling(self, name: str, t: RType, names: set[str]) -> str | None:
        """The union field a ``_type`` field (or vector of them) belongs to."""
        if t.base != UTYPE and not (t.base == VECTOR and t.element == UTYPE):
            return None
        sibling = self.field_types.get(name[:-5]) if name.endswith("_type") else None
        if sibling is not None and sibling.index == t.index and (
                (t.base == UTYPE and sibling.base == UNION)
                or (t.base == VECTOR and sibling.base == VECTOR and sibling.element == UNION)):
            return name[:-5]
        raise BfbsError(f"union type field {name} without its union field", t.pos)

    def lookup_object(self, name: str, namespace: str) -> str | None:
        parts = namespace.split(".") if namespace else []
        for n in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:n], name])
            if candidate in self.object_set:
                return candidate
        return None

    @staticmethod
    def default(f: Table, t: RType, optional: bool, required: bool) -> Any:
        bt = t.base
        if bt in (FLOAT, DOUBLE):
            if optional:
                return None
            real = f.scalar(5, "<d", 0.0)
            return math.nan if math.isnan(real) else real
        if BOOL <= bt <= ULONG or bt == UTYPE:
            if optional:
                return None
            value = f.scalar(4, "<q", 0)
            return value != 0 if bt == BOOL else value
        if bt == STRING:
            # flatc keeps only that a string had a default, not which one
            return None if optional or required else ""
        if bt in (VECTOR, VECTOR64):
            return None if optional or required else ()
        return None

    def enum(self, i: int) -> Named:
        e = self.enums[i]
        name = self.enum_names[i]
        t = RType(e.table(3), e.pos)
        if not (BYTE <= t.base <= ULONG or t.base == UTYPE):
            raise BfbsError(f"enum {name} is not of an integer type", t.pos)
        attrs = read_attributes(e, 4)
        attrs["flatbuffers.namespace"] = name.rpartition(".")[0]
        attrs["flatbuffers.file"] = e.string(6) or ""
        values = e.tables(1)
        if len({self.name(v) for v in values}) != len(values):
            raise BfbsError(f"two values of {name} have the same name", e.pos)
        is_union = self.is_union[i]
        start = 1 if is_union else 0
        value_attrs = {self.name(v): read_attributes(v, 5) for v in values[start:]
                       if read_attributes(v, 5)}
        value_docs = {self.name(v): read_doc(v, 4) for v in values[start:] if read_doc(v, 4)}
        if value_attrs:
            attrs["flatbuffers.value_attributes"] = value_attrs
        if value_docs:
            attrs["flatbuffers.value_docs"] = value_docs
        underlying = _INT_TYPES[t.base]
        doc = read_doc(e, 5)
        if is_union:
            if not values:
                raise BfbsError(f"union {name} has no NONE value", e.pos)
            attrs["flatbuffers.none"] = self.name(values[0])
            if t.base != UTYPE:
                attrs["flatbuffers.declared_underlying"] = True
            members: dict[str, tuple[int, ModelType]] = {}
            for v in values[1:]:
                vt = RType(v.table(3), v.pos)
                if vt.base == STRING:
                    member: ModelType = MODEL_STRING
                elif vt.base == OBJ:
                    member = Ref(self.object_names[self.object_index(vt.index, vt.pos)])
                else:
                    raise BfbsError(f"union {name} has a member that is not a table, struct "
                                    "or string", v.pos)
                members[self.name(v)] = (self.value(v, underlying), member)
            return Union(name, members, discriminator=underlying, attributes=attrs, doc=doc)
        vals = {self.name(v): self.value(v, underlying) for v in values}
        bit_flags = "bit_flags" in attrs
        if bit_flags:
            attrs["flatbuffers.bit_index"] = {
                n: (v & -v).bit_length() - 1 if v > 0 else 0 for n, v in vals.items()}
        return Enum(name, underlying, vals, bit_flags=bit_flags, attributes=attrs, doc=doc)

    @staticmethod
    def value(v: Table, underlying: Int) -> int:
        """An enum value, in the range of its type (flatc stores a ulong's as a long)."""
        value: int = v.scalar(1, "<q", 0)
        if underlying.bits == 64 and not underlying.signed:
            value %= 1 << 64
        low = -(1 << (underlying.bits - 1)) if underlying.signed else 0
        if not low <= value < low + (1 << underlying.bits):
            raise BfbsError(f"enum value {value} does not fit its type", v.pos)
        return value

    def services(self) -> tuple[FbsService, ...]:
        out = []
        positions = {o.pos: n for o, n in zip(self.objects, self.object_names, strict=True)}
        for s in self.root.tables(5):
            calls = []
            for c in s.tables(1):
                ends = []
                for slot in (1, 2):
                    t = c.table(slot)
                    if t is None or t.pos not in positions:
                        raise BfbsError("an rpc call whose request or response is not one "
                                        "of the schema's objects", c.pos)
                    ends.append(positions[t.pos])
                calls.append(FbsRpcCall(self.name(c), ends[0], ends[1], read_attributes(c, 3),
                                        read_doc(c, 4)))
            out.append(FbsService(self.name(s, True), tuple(calls), read_attributes(s, 2),
                                  read_doc(s, 3), s.string(4) or ""))
        return tuple(out)

    def run(self) -> FbsSchema:
        self.check_struct_cycles()
        types: dict[str, Named] = {}
        # Serialize() writes the objects, then the enums, in declaration order: back to
        # front, so the first declared sits last.
        for i in sorted(range(len(self.objects)), key=lambda i: -self.objects[i].pos):
            types[self.object_names[i]] = self.record(i)
        for i in sorted(range(len(self.enums)), key=lambda i: -self.enums[i].pos):
            types[self.enum_names[i]] = self.enum(i)
        root_table = self.root.table(4)
        root = None
        if root_table is not None:
            positions = {o.pos: n for o, n in zip(self.objects, self.object_names, strict=True)}
            root = positions.get(root_table.pos)
            if root is None or self.is_struct[self.object_names.index(root)]:
                raise BfbsError("the root table is not one of the schema's tables",
                                root_table.pos)
        declared: dict[str, None] = {}
        for t in types.values():
            self._collectattributes(t, declared)
        namespaces = dict.fromkeys(n.rpartition(".")[0] for n in types)
        attributes: dict[str, Any] = {
            "file_identifier": self.file_identifier(),
            "file_extension": self.root.string(3) or None,
            "namespaces": tuple(n for n in namespaces if n),
            "services": self.services(),
            "declared_attributes": tuple(sorted(declared)),
            "includes": (),
            "file_includes": self.file_includes(),
            "native_includes": (),
            "inline_json": None,
        }
        schema = Schema(types, root=root, attributes=attributes)
        return FbsSchema(schema, source_file=self.source_file)

    def file_identifier(self) -> str | None:
        ident = self.root.string(2)
        if ident and (len(ident.encode("utf-8", "surrogateescape")) != 4
                      or not ident.isprintable()):
            raise BfbsError(f"file identifier {ident!r:.40} is not 4 bytes of text",
                            self.root.pos)
        return ident or None

    def file_includes(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The schema files (``--bfbs-filenames``) in the order flatc wrote them."""
        files = sorted(self.root.tables(7), key=lambda t: -t.pos)
        return tuple((f.string(0) or "", tuple(f.strings(1))) for f in files)

    @staticmethod
    def _collectattributes(t: Named, into: dict[str, None]) -> None:
        keys = [k for k in t.attributes if not k.startswith("flatbuffers.")]
        if isinstance(t, Record):
            for f in t.fields:
                keys += [k for k in f.attributes if not k.startswith("flatbuffers.")]
        for k in keys:
            if k not in BUILTIN_ATTRIBUTES:
                into[k] = None


def read_bfbs(data: bytes | bytearray | memoryview, source_file: str = "") -> FbsSchema:
    """Load a ``.bfbs`` (verified first) into the shared schema model."""
    buf = bytes(data)
    size_prefixed = len(buf) >= 12 and buf[4:8] != b"BFBS" and buf[8:12] == b"BFBS"
    try:
        try:
            reflection_schema().verify(buf, size_prefixed=size_prefixed)
        except DecodeError as exc:
            raise BfbsError(f"not a valid binary schema: {exc.message}", exc.offset) from None
        return _Reader(buf, source_file).run()
    except BfbsError as exc:
        exc.source_file = source_file
        raise


__all__ = ["BfbsError", "looks_like_bfbs", "read_bfbs", "reflection_schema"]
