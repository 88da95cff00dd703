"""The ``.fbs`` parser's declarations: tables and structs with their fields, enums, unions,
services and namespaces (flatc's ``ParseDecl``, ``ParseField``, ``ParseEnum``,
``ParseService``, ``ParseNamespace``), with the checks flatc makes on each as it goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gameserde.flatbuffers import _fbs_numbers as num
from gameserde.flatbuffers._fbs_defs import (
    _HASHES,
    MAX_ALIGNMENT,
    PRESENCE_DEFAULT,
    PRESENCE_OPTIONAL,
    PRESENCE_REQUIRED,
    EnumDef,
    EnumVal,
    FieldDef,
    Namespace,
    RPCCall,
    ServiceDef,
    StructDef,
    Type,
    Value,
    inline_alignment,
    inline_size,
    is_enum,
    is_incomplete_struct,
    is_integer,
    is_scalar,
    is_struct,
    is_table,
    is_unsigned,
    is_vector,
    size_of,
)
from gameserde.flatbuffers._fbs_lexer import TOKEN_IDENT, TOKEN_INTEGER
from gameserde.flatbuffers._fbs_numbers import (
    ARRAY,
    BOOL,
    INT,
    LONG,
    SHORT,
    STRING,
    STRUCT,
    UCHAR,
    UINT,
    ULONG,
    UNION,
    USHORT,
    UTYPE,
    VECTOR,
    VECTOR64,
)
from gameserde.flatbuffers._fbs_values import COLON, COMMA, EQUALS, LPAREN, RBRACE, ValueParser

__all__ = ["DeclarationParser"]

_SNAKE_CASE = re.compile(r"[a-z0-9_]*\Z")
# field name endings of generated functions (see check_clash)
_CLASH_SUFFIXES = ("_type", "Type", "_length", "Length", "_byte_vector", "ByteVector")


class DeclarationParser(ValueParser):
    """Parses the declarations of a schema file (on :class:`ValueParser`'s types and
    values)."""

    # -- fields ------------------------------------------------------------------------------

    def add_field(self, sd: StructDef, name: str, t: Type) -> FieldDef:
        fd = FieldDef(name, Value(t.copy(), "0", 4 + 2 * len(sd.fields.vec)), file=sd.file)
        if sd.fixed:
            size = inline_size(t)
            alignment = inline_alignment(t)
            sd.minalign = max(sd.minalign, alignment)
            sd.pad_last_field(alignment)
            fd.value.offset = sd.bytesize
            sd.bytesize += size
        if sd.fields.add(name, fd):
            raise self.error("field already exists: " + name)
        return fd

    def parse_field(self, sd: StructDef, index: int) -> None:
        lx = self.lx
        name = lx.attribute
        if self.lookup_create_struct(name, False, False) is not None:
            raise self.error("field name can not be the same as table/struct name")
        if not _SNAKE_CASE.match(name):
            self.warning("field names should be lowercase snake_case, got: " + name)
        dc = list(lx.doc_comment)
        self.expect(TOKEN_IDENT)
        self.expect(":")
        t = self.parse_type()

        if sd.fixed:
            if is_incomplete_struct(t) or (t.base_type == ARRAY
                                           and is_incomplete_struct(t.vector_type())):
                assert t.struct_def is not None
                raise self.error("Incomplete type in struct is not allowed, type name: "
                                 + t.struct_def.name)
            valid = is_scalar(t.base_type) or is_struct(t)
            if not valid and t.base_type == ARRAY:
                et = t.vector_type()
                valid = is_scalar(et.base_type) or is_struct(et)
            if not valid:
                raise self.error("structs may contain only scalar or struct fields")
        if not sd.fixed and t.base_type == ARRAY:
            raise self.error("fixed-length array in table must be wrapped in struct")

        typefield: FieldDef | None = None
        if t.base_type == UNION:
            assert t.enum_def is not None
            ut = t.enum_def.underlying_type.copy()
            ut.base_type = UTYPE
            typefield = self.add_field(sd, name + "_type", ut)
        elif is_vector(t.base_type) and t.element == UNION:
            uv = Type(VECTOR, None, t.enum_def)
            uv.element = UTYPE
            typefield = self.add_field(sd, name + "_type", uv)

        fd = self.add_field(sd, name, t)
        fd.declaration_index = index
        if typefield is not None:
            typefield.sibling_union_field = fd
            typefield.is_union_type_field = True
            typefield.declaration_index = index
            fd.sibling_union_field = typefield

        if lx.token == EQUALS:
            self.next()
            self.parse_single_value(fd.name, fd.value, True)
            if is_struct(t) or (sd.fixed and fd.value.constant != "0"):
                raise self.error("default values are not supported for struct fields, table "
                                 "fields, or in structs.")
            if is_vector(t.base_type) and fd.value.constant not in ("0", "[]"):
                raise self.error("The only supported default for vectors is `[]`.")

        fd.doc = dc
        if lx.token == LPAREN:
            self.parse_meta_data(fd.attributes)
        attrs = fd.attributes.dict
        fd.deprecated = attrs.get("deprecated") is not None
        hash_name = attrs.get("hash")
        if hash_name is not None:
            bt = t.element if is_vector(t.base_type) else t.base_type
            width = {SHORT: 16, USHORT: 16, INT: 32, UINT: 32, LONG: 64, ULONG: 64}.get(bt)
            if width is None:
                raise self.error("only short, ushort, int, uint, long and ulong data types "
                                 "support hashing.")
            if hash_name.constant not in _HASHES[width]:
                raise self.error(f"Unknown hashing algorithm for {width} bit types: "
                                 + hash_name.constant)

        if attrs.get("vector64") is not None:
            if not is_vector(t.base_type):
                raise self.error("`vector64` attribute can only be applied on vectors.")
            element = t.element
            t = Type(VECTOR64, t.struct_def, t.enum_def)
            t.element = element
            fd.value.type = t.copy()
            fd.offset64 = True
        if attrs.get("offset64") is not None:
            if t.base_type == VECTOR64:
                self.warning("attribute `vector64` implies `offset64` and isn't required.")
            fd.offset64 = True
        if fd.offset64:
            if t.base_type != STRING and not is_vector(t.base_type):
                raise self.error("only string and vectors can have `offset64` attribute "
                                 "applied")
            vt = t.vector_type()
            if is_vector(t.base_type) and not (
                    (is_scalar(t.element) and not is_enum(vt)) or is_struct(vt)):
                raise self.error("only vectors of scalars are allowed to be 64-bit.")

        fd.key = attrs.get("key") is not None
        if not sd.fixed:
            required = attrs.get("required") is not None or (t.base_type == STRING
                                                                and fd.key)
            default_str_or_vec = ((t.base_type == STRING or is_vector(t.base_type))
                                  and fd.value.constant != "0")
            if is_scalar(t.base_type):
                optional = fd.value.constant == "null"
            else:
                optional = not (required or default_str_or_vec)
            if required and optional:
                raise self.error("Fields cannot be both optional and required.")
            fd.presence = (PRESENCE_OPTIONAL if optional else
                           PRESENCE_REQUIRED if required else PRESENCE_DEFAULT)
            if required and is_scalar(t.base_type):
                raise self.error("only non-scalar fields in tables may be 'required'")
        else:
            fd.presence = PRESENCE_DEFAULT
            if attrs.get("required") is not None or attrs.get("optional") is not None:
                raise self.error("struct fields are always required")

        if fd.key:
            if sd.has_key:
                raise self.error("only one field may be set as 'key'")
            sd.has_key = True
            valid = is_scalar(t.base_type) or t.base_type == STRING or is_struct(t)
            if t.base_type == ARRAY:
                vt = t.vector_type()
                valid = valid or is_scalar(vt.base_type) or is_struct(vt)
            if not valid:
                raise self.error("'key' field must be string, scalar type or fixed size array "
                                 "of scalars")

        if is_scalar(t.base_type) and fd.presence == PRESENCE_OPTIONAL:
            if t.enum_def is not None and t.enum_def.lookup("null") is not None:
                raise self.error("the default 'null' is reserved for declaring optional scalar "
                                 "fields, it conflicts with declaration of enum '"
                                 + t.enum_def.name + "'.")
            if attrs.get("key") is not None:
                raise self.error("only a non-optional scalar field can be used as a 'key' "
                                 "field")

        if t.enum_def is not None:
            constant = fd.value.constant
            if t.base_type == UNION:
                if constant != "0":
                    raise self.error("Union defaults must be NONE")
            elif is_vector(t.base_type):
                if constant not in ("0", "[]"):
                    raise self.error("Vector defaults may only be `[]`.")
            elif t.base_type == ARRAY:
                if constant != "0":
                    raise self.error("Array defaults are not supported yet.")
                self._check_enum(fd, t.vector_type(), name, constant)
            else:
                if not is_integer(t.base_type):
                    raise self.error("Enums must have integer base types")
                self._check_enum(fd, t, name, constant)

        if fd.deprecated and sd.fixed:
            raise self.error("can't deprecate fields in a struct")

        cpp_type = attrs.get("cpp_type")
        if cpp_type is not None:
            if hash_name is None:
                raise self.error("cpp_type can only be used with a hashed field")
            if attrs.get("cpp_ptr_type") is None:
                fd.attributes.add("cpp_ptr_type", Value(Type(cpp_type.type.base_type), "naked"))

        fd.shared = attrs.get("shared") is not None
        if fd.shared and fd.value.type.base_type != STRING:
            raise self.error("shared can only be defined on strings")

        if attrs.get("native_custom_alloc") is not None:
            raise self.error("native_custom_alloc can only be used with a table or struct "
                             "definition")

        fd.native_inline = attrs.get("native_inline") is not None
        ft = fd.value.type
        if fd.native_inline and not (
                is_struct(ft) or (is_vector(ft.base_type)
                                  and (is_struct(ft.vector_type())
                                       or is_table(ft.vector_type())))):
            raise self.error("'native_inline' can only be defined on structs, vector of "
                             "structs or vector of tables")

        nested = attrs.get("nested_flatbuffer")
        if nested is not None:
            if nested.type.base_type != STRING:
                raise self.error("nested_flatbuffer attribute must be a string (the root type)")
            if not is_vector(t.base_type) or t.element != UCHAR:
                raise self.error("nested_flatbuffer attribute may only apply to a vector of "
                                 "ubyte")
            fd.nested_flatbuffer = self.lookup_create_struct(nested.constant)

        if attrs.get("flexbuffer") is not None:
            fd.flexbuffer = True
            if t.base_type != VECTOR or t.element != UCHAR:
                raise self.error("flexbuffer attribute may only apply to a vector of ubyte")

        if typefield is not None:
            if not is_scalar(typefield.value.type.base_type):
                typefield.presence = fd.presence
            id_attr = attrs.get("id")
            if id_attr is not None:
                id_val = self.atot(id_attr.constant, USHORT, record_only=True)
                if id_val is not None and int(id_val) > 0:
                    typefield.attributes.add(
                        "id", Value(Type(id_attr.type.base_type), str(int(id_val) - 1)))
                else:
                    raise self.error(
                        "a union type effectively adds two fields with non-negative ids, its id "
                        "must be that of the second field (the first field is the type field "
                        "and not explicitly declared in the schema);\nfield: "
                        f"{fd.name}, id: {id_attr.constant}")
            if fd.deprecated:
                typefield.deprecated = True

        self.expect(";")

    def _check_enum(self, fd: FieldDef, t: Type, name: str, constant: str) -> None:
        enum_def = t.enum_def
        assert enum_def is not None
        if (fd.presence != PRESENCE_OPTIONAL and enum_def.attributes.lookup("bit_flags") is None
                and enum_def.find_by_value(constant) is None):
            raise self.error(f"default value of `{constant}` for field `{name}` is not part of "
                             f"enum `{enum_def.name}`.")

    # -- declarations ------------------------------------------------------------------------

    def start_struct(self, name: str) -> StructDef:
        sd = self.lookup_create_struct(name, True, True)
        assert sd is not None
        if not sd.predecl:
            raise self.error("datatype already exists: " + self.current_namespace.qualified(name))
        sd.predecl = False
        sd.name = name
        sd.file = self.file_being_parsed
        vec = self.structs.vec
        if vec[-1] is not sd:  # a type referred to before: now where it is defined
            vec.remove(sd)
            vec.append(sd)
        sd.order = self.order
        self.order += 1
        return sd

    def check_clash(self, sd: StructDef, suffix: str, base_type: int) -> None:
        n = len(suffix)
        for fd in sd.fields.vec:
            fname = fd.name
            if (len(fname) > n and fname.endswith(suffix)
                    and fd.value.type.base_type != UTYPE):
                other = sd.fields.lookup(fname[:-n])
                if other is not None and other.value.type.base_type == base_type:
                    raise self.error(f"Field {fname} would clash with generated functions for "
                                     f"field {other.name}")

    def parse_decl(self) -> None:
        dc = list(self.lx.doc_comment)
        fixed = self.is_ident("struct")
        if not fixed and not self.is_ident("table"):
            raise self.error("declaration expected")
        self.next()
        name = self.lx.attribute
        self.expect(TOKEN_IDENT)
        sd = self.start_struct(name)
        sd.doc = dc
        sd.fixed = fixed
        self.parse_meta_data(sd.attributes)
        sd.sortbysize = sd.attributes.lookup("original_order") is None and not fixed
        self.expect("{")
        index = 0
        lx = self.lx
        while lx.token != RBRACE:
            self.parse_field(sd, index)
            index += 1
        if fixed:
            force_align = sd.attributes.lookup("force_align")
            if force_align is not None:
                sd.minalign = self.parse_align_attribute(force_align.constant, sd.minalign)
            if not sd.bytesize:
                raise self.error("size 0 structs not allowed")
        sd.pad_last_field(sd.minalign)
        fields = sd.fields.vec
        if not fixed and fields:
            num_ids = sum(1 for f in fields if f.attributes.lookup("id") is not None)
            if num_ids or self.require_explicit_ids:
                if num_ids != len(fields):
                    if self.require_explicit_ids:
                        raise self.error("all fields must have an 'id' attribute when "
                                         "--require-explicit-ids is used")
                    raise self.error("either all fields or no fields must have an 'id' "
                                     "attribute")

                def id_of(f: FieldDef) -> int:
                    attr = f.attributes.lookup("id")
                    assert attr is not None
                    return num.atoi(attr.constant)

                fields.sort(key=id_of)
                for i, f in enumerate(fields):
                    attr = f.attributes.lookup("id")
                    assert attr is not None
                    id_str = attr.constant
                    id_val = self.atot(id_str, USHORT, record_only=True)
                    if id_val is None:
                        raise self.error("field id's must be non-negative number, field: "
                                         f"{f.name}, id: {id_str}")
                    if i != id_val:
                        raise self.error(f"field id's must be consecutive from 0, id {i} "
                                         f"missing or set twice, field: {f.name}, id: {id_str}")
                    f.value.offset = 4 + 2 * i
        if any(f.name.endswith(_CLASH_SUFFIXES) and f.value.type.base_type != UTYPE
               for f in fields):
            self.check_clash(sd, "_type", UNION)
            self.check_clash(sd, "Type", UNION)
            self.check_clash(sd, "_length", VECTOR)
            self.check_clash(sd, "Length", VECTOR)
            self.check_clash(sd, "_byte_vector", STRING)
            self.check_clash(sd, "ByteVector", STRING)
        self.expect("}")
        qualified = self.current_namespace.qualified(sd.name)
        if qualified in self.types:
            raise self.error("datatype already exists: " + qualified)
        self.types.add(qualified)

    def parse_align_attribute(self, constant: str, min_align: int) -> int:
        ok, align = num.string_to_number(constant, UCHAR)
        a = int(align)
        if ok and min_align <= a <= MAX_ALIGNMENT and a & (a - 1) == 0:
            return a
        raise self.error(f"unexpected force_align value '{constant}', alignment must be a power "
                         "of two integer ranging from the type's natural alignment "
                         f"{min_align} to {MAX_ALIGNMENT}")

    def start_enum(self, name: str, is_union: bool) -> EnumDef:
        ed = EnumDef(name=name, namespace=self.current_namespace, is_union=is_union,
                     file=self.file_being_parsed, doc=list(self.lx.doc_comment))
        qualified = self.current_namespace.qualified(name)
        if self.enums.add(qualified, ed):
            raise self.error("enum already exists: " + qualified)
        ed.underlying_type = Type(UTYPE if is_union else INT, None, ed)
        ed.order = self.order
        self.order += 1
        return ed

    def _enum_value_check(self, ed: EnumDef) -> Callable[[int, int], int]:
        """The check of an enum's values: ``check(value, step)`` gives ``value + step`` or
        raises when it does not fit the underlying type."""
        base = ed.underlying_type.base_type
        if not is_integer(base):
            def invalid(value: int, step: int) -> int:
                raise self.error("fatal: invalid enum underlying type")
            return invalid
        bits, signed = num.INT_RANGES[base]
        lo = -(1 << (bits - 1)) if signed else 0
        hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        normal = num.to_uint64 if ed.is_uint64() else num.to_int64

        def check(value: int, step: int) -> int:
            v = normal(value)
            if v < lo or v > hi - step:
                plus = ' + 1"' if step else '"'
                raise self.error(f'enum value does not fit, "{v}{plus} out of '
                                 f"{num.interval_string(base)}")
            return v + step
        return check

    def parse_enum(self, is_union: bool) -> None:
        lx = self.lx
        enum_comment = list(lx.doc_comment)
        self.next()
        enum_name = lx.attribute
        self.expect(TOKEN_IDENT)
        ed = self.start_enum(enum_name, is_union)
        ed.doc = enum_comment
        if not self.is_(":"):
            if not is_union:
                raise self.error("must specify the underlying integer type for this enum "
                                 "(e.g. ': short', which was the default).")
        else:
            self.next()
            ut = self.parse_type()
            if not is_integer(ut.base_type) or ut.base_type == BOOL:
                kind = "union" if is_union else "enum"
                raise self.error(f"underlying {kind}type must be integral")
            ut.enum_def = ed
            ed.underlying_type = ut
        self.parse_meta_data(ed.attributes)
        underlying = ed.underlying_type.base_type
        if ed.attributes.lookup("bit_flags") is not None and not is_unsigned(underlying):
            self.warning("underlying type of bit_flags enum must be unsigned")
        if ed.attributes.lookup("force_align") is not None:
            raise self.error("`force_align` is not a valid attribute for Enums. ")

        pending: EnumVal | None = None
        user_value = False
        vals = ed.vals
        check = self._enum_value_check(ed)
        value_type = ULONG if ed.is_uint64() else LONG

        def create(name: str) -> EnumVal:
            nonlocal user_value
            first = not vals.vec
            user_value = first
            return EnumVal(name, 0 if first else vals.vec[-1].value)

        def accept(ev: EnumVal) -> None:
            ev.value = check(ev.value, 0 if user_value else 1)
            if vals.add(ev.name, ev):
                raise self.error("enum value already exists: " + ev.name)

        self.expect("{")
        if is_union or lx.token == RBRACE:
            accept(create("NONE"))
        while lx.token != RBRACE:
            pending = create(lx.attribute)
            pending.doc = list(lx.doc_comment)
            full_name = pending.name
            self.expect(TOKEN_IDENT)
            if is_union:
                full_name, _ = self.parse_namespacing(full_name)
                # flatc's default --union-value-namespacing: A.B.T names the member A_B_T
                pending.name = full_name.replace(".", "_")
                if lx.token == COLON:
                    self.next()
                    pending.union_type = self.parse_type()
                    if pending.union_type.base_type not in (STRUCT, STRING):
                        raise self.error("union value type may only be table/struct/string")
                else:
                    pending.union_type = Type(STRUCT, self.lookup_create_struct(full_name))
            if lx.token == EQUALS:
                self.next()
                user_value = True
                value_text = lx.attribute
                ok, v = num.string_to_number(value_text, value_type)
                pending.value = int(v)
                if not ok:
                    raise self.error(f'enum value does not fit, "{value_text}"')
                self.expect(TOKEN_INTEGER)
            if lx.token == LPAREN:
                self.parse_meta_data(pending.attributes)
            accept(pending)
            if lx.token != COMMA:
                break
            self.next()
        self.expect("}")

        if ed.attributes.lookup("bit_flags") is not None:
            width = 8 * size_of(underlying)
            for ev in ed.vals.vec:
                u = num.to_uint64(ev.value)
                if not is_unsigned(underlying) and u == width - 1:
                    raise self.error("underlying type of bit_flags enum must be unsigned")
                if u >= width:
                    raise self.error("bit flag out of range of underlying integral type")
                ev.bit_index = u
                ev.value = 1 << u

        if ed.is_uint64():
            ordered = sorted(ed.vals.vec, key=lambda v: (num.to_uint64(v.value), v.name))
        else:
            ordered = sorted(ed.vals.vec, key=lambda v: (num.to_int64(v.value), v.name))
        # flatc compares every value with the smallest one only (its loop never advances
        # the "previous" iterator), so only duplicates of the minimum are reported.
        for ev in ordered[1:]:
            prev = ordered[0]
            if num.to_uint64(prev.value) == num.to_uint64(ev.value):
                raise self.error(f"all enum values must be unique: {prev.name} and {ev.name} "
                                 f"are both {num.to_int64(ev.value)}")
        # flatc keeps them in this order (SortByValue): its JSON lists bit flags by value and
        # names a value shared by several with the first of them
        ed.vals.vec[:] = ordered

        qualified = self.current_namespace.qualified(ed.name)
        if qualified in self.types:
            raise self.error("datatype already exists: " + qualified)
        self.types.add(qualified)

    def parse_service(self) -> None:
        lx = self.lx
        comment = list(lx.doc_comment)
        self.next()
        service_name = lx.attribute
        self.expect(TOKEN_IDENT)
        svc = ServiceDef(name=service_name, namespace=self.current_namespace,
                         file=self.file_being_parsed, doc=comment)
        if self.services.add(self.current_namespace.qualified(service_name), svc):
            raise self.error("service already exists: " + service_name)
        self.parse_meta_data(svc.attributes)
        self.expect("{")
        while True:
            doc = list(lx.doc_comment)
            rpc_name = lx.attribute
            self.expect(TOKEN_IDENT)
            self.expect("(")
            req = self.parse_type_ident()
            self.expect(")")
            self.expect(":")
            resp = self.parse_type_ident()
            if (req.base_type != STRUCT or req.struct_def is None or req.struct_def.fixed
                    or resp.base_type != STRUCT or resp.struct_def is None
                    or resp.struct_def.fixed):
                raise self.error("rpc request and response types must be tables")
            call = RPCCall(name=rpc_name, request=req.struct_def, response=resp.struct_def,
                           doc=doc)
            if svc.calls.add(rpc_name, call):
                raise self.error("rpc already exists: " + rpc_name)
            self.parse_meta_data(call.attributes)
            self.expect(";")
            if self.is_("}"):
                break
        self.next()

    def set_root_type(self, name: str) -> bool:
        sd = self.structs.lookup(name)
        if sd is None:
            sd = self.structs.lookup(self.current_namespace.qualified(name))
        self.root_struct_def = sd
        return sd is not None

    def unique_namespace(self, ns: Namespace) -> Namespace:
        for existing in self.namespaces:
            if existing.components == ns.components:
                return existing
        self.namespaces.append(ns)
        return ns

    def parse_namespace(self) -> None:
        self.next()
        comps: list[str] = []
        if not self.is_(";"):
            while True:
                comps.append(self.lx.attribute)
                self.expect(TOKEN_IDENT)
                if self.is_("."):
                    self.next()
                else:
                    break
        self.current_namespace = self.unique_namespace(Namespace(tuple(comps)))
        dotted = ".".join(comps)
        if dotted not in self.declared_namespaces:
            self.declared_namespaces.append(dotted)
        self.expect(";")

