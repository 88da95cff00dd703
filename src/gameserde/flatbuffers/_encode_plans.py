"""Encode plans: how each table, struct and field of a schema is converted and written.

:func:`_plans` compiles them once per schema object (cached); :func:`_compile_table` turns a
table's plan into specialised Python source (``exec``): the value's keys dispatch to unrolled
conversions, then the slot calls follow in flatc's order with constants inlined. The encoder
(:mod:`~gameserde.flatbuffers.encoder`) runs them, and the C encoder's program
(:mod:`~gameserde.flatbuffers._encoder_program`) is lowered from the same plans.
"""

from __future__ import annotations

import dataclasses
import operator
import struct
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from gameserde.errors import EncodeError
from gameserde.flatbuffers._encode_scalars import (
    _FMT_INT,
    _LIMITS,
    _SLOT_METHOD,
    _add,
    _err,
    _float_converter,
    _hash_converter,
    _int_converter,
    _Scalar,
    f32,
    short,
)
from gameserde.flatbuffers._json_parse import Bare, Irregular
from gameserde.flatbuffers.builder import Builder
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.flatbuffers.views import struct_dtype
from gameserde.schema.model import (
    Bool,
    Enum,
    Float,
    Int,
    List,
    Optional,
    Record,
    Ref,
    String,
    Union,
)
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Type as ModelType

if TYPE_CHECKING:
    from gameserde.flatbuffers.encoder import _Encoder

# field kinds
_K_INT, _K_FLOAT, _K_STRUCT, _K_STRING, _K_VECTOR, _K_TABLE, _K_UNION, _K_UVEC = range(8)


_MISSING: Any = object()
_Packer = struct.Struct  # (the name ``struct`` is a method of _Plans)


class _StructPlan:
    """How a struct is packed: ``packer`` has one code per field (a scalar, ``{n}{code}`` for
    an array of scalars, ``{size}s`` for a struct or an array of structs, packed by their own
    plans) and the padding, so a plan does not grow with array lengths or struct sizes."""

    __slots__ = ("align", "fields", "getter", "key", "key_offset", "name", "packer", "short",
                 "size")

    def __init__(self) -> None:
        self.name = ""
        self.short = ""
        self.size = 0
        self.align = 1
        self.packer: struct.Struct | None = None
        # (name, flatten function) per field: appends the field's values for packer
        self.fields: list[tuple[str, Callable[[Any, list[Any]], None]]] = []
        # the first scalar of the key field, which flatc sorts vectors of the struct by
        self.key: struct.Struct | None = None
        self.key_offset = 0
        # fast path for structs of plain scalars: the field values of a dict, in order
        self.getter: Callable[[Any], tuple[Any, ...]] | None = None

    def flatten(self, value: Any) -> list[Any]:
        out: list[Any] = []
        if isinstance(value, Mapping):
            if isinstance(value, Irregular):
                value = _resolve_irregular(value, None)
            if len(value) != len(self.fields):
                for k in value:
                    if not any(k == n for n, _ in self.fields):
                        raise _err(f"unknown field: {k}", f".{k}")
                raise _err(f"struct: wrong number of initializers: {self.short}")
            for name, flat in self.fields:
                try:
                    v = value[name]
                except KeyError:
                    raise _err(f"struct: wrong number of initializers: {self.short}") from None
                try:
                    flat(v, out)
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for name, flat in self.fields:
                try:
                    flat(getattr(value, name), out)
                except AttributeError:
                    raise _err(f"struct: wrong number of initializers: {self.short}") from None
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        elif isinstance(value, (list, tuple)):
            if len(value) != len(self.fields):
                raise _err(f"struct: wrong number of initializers: {self.short}")
            for (name, flat), v in zip(self.fields, value, strict=True):
                try:
                    flat(v, out)
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        else:
            raise _err(f"expected an object for struct {self.short}, got "
                       f"{type(value).__name__}")
        return out

    def nested(self, v: Any) -> bytes:
        """The struct's bytes as the value of a field (or array element) of another struct,
        checked as flatc checks a nested struct; ``struct.error`` is the caller's."""
        out: list[Any] = []
        fields = self.fields
        if isinstance(v, Mapping):
            if isinstance(v, Irregular):
                v = _resolve_irregular(v, None)
            if len(v) != len(fields):
                raise _err(f"struct: wrong number of initializers: {self.short}")
            for n, flat in fields:
                if n not in v:
                    raise _err(f"struct: wrong number of initializers: {self.short}")
                try:
                    flat(v[n], out)
                except EncodeError as exc:
                    raise _add(exc, f".{n}") from None
        elif isinstance(v, (list, tuple)) and len(v) == len(fields):
            for (_, flat), x in zip(fields, v, strict=True):
                flat(x, out)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for n, flat in fields:
                try:
                    x = getattr(v, n)
                except AttributeError:
                    raise _err(f"struct: wrong number of initializers: {self.short}") from None
                flat(x, out)
        else:
            raise _err(f"expected an object for struct {self.short}")
        assert self.packer is not None
        return self.packer.pack(*out)

    def pack(self, value: Any) -> bytes:
        getter = self.getter
        if getter is not None and type(value) is dict and len(value) == len(self.fields):
            assert self.packer is not None
            try:
                return self.packer.pack(*getter(value))
            except (KeyError, struct.error, OverflowError, TypeError):
                pass  # the slow path converts (enum names, strings) or reports the error
        flat = self.flatten(value)
        assert self.packer is not None
        try:
            return self.packer.pack(*flat)
        except (struct.error, OverflowError) as exc:
            raise _err(f"cannot pack struct {self.short}: {exc}") from None


class _FieldPlan:
    __slots__ = (
        "add",
        "default",
        "deprecated",
        "elem",
        "elem_plan",
        "flexbuffer",
        "force_align",
        "index",
        "kind",
        "name",
        "nested",
        "np_format",
        "offset64",
        "optional",
        "required",
        "scalar",
        "shared",
        "size_class",
        "slot",
        "struct",
        "table",
        "union",
        "union_field",
        "vec_kind",
        "vec_scalar",
        "vector64",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.index = 0
        self.slot = 0
        self.kind = _K_INT
        self.default: Any = None
        self.optional = False
        self.required = False
        self.deprecated = False
        self.size_class = 4
        self.scalar: _Scalar | None = None
        self.add: Any = None
        self.struct: _StructPlan | None = None
        self.table: str | None = None
        self.union: Union | None = None
        self.union_field = ""  # for a union value: the name of its _type field
        self.shared = False
        self.nested: str | None = None
        self.force_align = 0
        self.vec_kind = _K_INT
        self.vec_scalar: _Scalar | None = None
        self.elem: Any = None  # struct plan / table name for vectors
        self.elem_plan: _TablePlan | None = None  # the table plan of a vector of tables
        self.offset64 = False  # referenced by a 64-bit offset (offset64/vector64)
        self.vector64 = False  # a vector with a 64-bit length (vector64)
        self.np_format = ""  # the struct format of a scalar vector's numpy dtype
        self.flexbuffer = False  # a [ubyte] (flexbuffer) field: the value is a FlexBuffer's


class _TablePlan:
    __slots__ = ("by_name", "fast", "fields", "has_union", "key", "name", "nfields", "order",
                 "required", "short", "union_vectors")

    def __init__(self) -> None:
        self.name = ""
        self.short = ""
        self.by_name: dict[str, _FieldPlan] = {}
        self.fields: list[_FieldPlan] = []
        self.order: tuple[_FieldPlan, ...] = ()
        self.nfields = 0
        self.required: tuple[str, ...] = ()
        self.key: _FieldPlan | None = None
        self.has_union = False
        self.union_vectors: tuple[_FieldPlan, ...] = ()
        # the compiled encoder of a dict value (see _compile_table), made on first use
        self.fast: Callable[[_Encoder, dict[str, Any]], int] | None = None


class _Plans:
    """All compiled plans of one schema."""

    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self.tables: dict[str, _TablePlan] = {}
        self.structs: dict[str, _StructPlan] = {}
        self.roots: dict[str | None, _TablePlan] = {}  # by the name given to encode()

    def numpy_layout(self, f: _FieldPlan) -> tuple[Any, tuple[Any, int] | None]:
        """For a vector of scalars or structs: the numpy dtype of one element, and for a
        struct whose fields are all one scalar type with no padding, that dtype and the field
        count (None otherwise). Needs numpy (only called with a numpy array)."""
        np = sys.modules["numpy"]
        if f.vec_kind == _K_INT:
            return np.dtype("<" + f.np_format), None
        sp: _StructPlan = f.elem
        want = struct_dtype(self.schema, sp.name)
        if want is None:  # too large for numpy
            return None, None
        fields = [want.fields[name][0] for name in want.names]
        first = fields[0]
        if (first.names is None and first.shape == () and all(x == first for x in fields)
                and first.itemsize * len(fields) == want.itemsize):
            return want, (first, len(fields))
        return want, None

    def enum_lookup(self, name: str) -> Enum | None:
        try:
            e = self.schema[name]
        except KeyError:
            return None
        return e if isinstance(e, Enum) else None

    # -- scalars ---------------------------------------------------------------------------

    def scalar(self, t: ModelType) -> _Scalar | None:
        enum: Enum | None = None
        if isinstance(t, Optional):
            t = t.inner
        if isinstance(t, Ref):
            named = self.schema.types[t.name]
            if not isinstance(named, Enum):
                return None
            enum = named
            t = named.underlying
        if isinstance(t, Bool):
            return _Scalar(_int_converter("?", None, self.enum_lookup), "B", 1)
        if isinstance(t, Int):
            fmt = _FMT_INT[(t.bits, t.signed)]
            return _Scalar(_int_converter(fmt, enum, self.enum_lookup), fmt, t.bits // 8)
        if isinstance(t, Float):
            return _Scalar(_float_converter(t.bits), "f" if t.bits == 32 else "d",
                           t.bits // 8)
        return None

    # -- structs ---------------------------------------------------------------------------

    def struct(self, name: str) -> _StructPlan:
        plan = self.structs.get(name)
        if plan is not None:
            return plan
        plan = _StructPlan()
        self.structs[name] = plan
        layout = self.schema.struct_layout(name)
        rec = self.schema.struct(name)
        plan.name = name
        plan.short = name.rsplit(".", 1)[-1]
        plan.size = layout.size
        plan.align = layout.align
        fmt: list[str] = ["<"]
        pos = 0
        for f, fl in zip(rec.fields, layout.fields, strict=True):
            if fl.offset > pos:
                fmt.append(f"{fl.offset - pos}x")
            code, flat = self._struct_field(f.type, f.attributes.get("hash"))
            fmt.append(code)
            pos = fl.offset + self._inline_size(f.type)
            plan.fields.append((f.name, flat))
            if f.key:
                plan.key, plan.key_offset = self._first_scalar(f.type, fl.offset)
        if layout.size > pos:
            fmt.append(f"{layout.size - pos}x")
        plan.packer = struct.Struct("".join(fmt))
        if (len(rec.fields) >= 2
                and all(self.scalar(f.type) is not None for f in rec.fields)):
            plan.getter = operator.itemgetter(*(f.name for f in rec.fields))
        return plan

    def _struct_field(self, t: ModelType, hash_fn: Any
                      ) -> tuple[str, Callable[[Any, list[Any]], None]]:
        """The packer code of a struct field of type ``t`` and the function that appends its
        values."""
        sc = self.scalar(t)
        if sc is not None and isinstance(hash_fn, str):
            sc = _hash_converter(sc, hash_fn)
        if sc is not None:
            conv = sc.conv

            def flat_scalar(v: Any, out: list[Any]) -> None:
                out.append(conv(v))
            return sc.fmt, flat_scalar
        if isinstance(t, Ref):
            nested = self.struct(t.name).nested

            def flat_struct(v: Any, out: list[Any]) -> None:
                out.append(nested(v))
            return f"{self.struct(t.name).size}s", flat_struct
        if not (isinstance(t, List) and t.length is not None):
            raise _err(f"unsupported struct field type {t}")
        n = t.length
        sc = self.scalar(t.element)
        if sc is not None:
            conv = sc.conv

            def flat_scalars(v: Any, out: list[Any]) -> None:
                if not isinstance(v, (list, tuple)) or len(v) != n:
                    raise _err(f"fixed-length array size is incorrect, expected {n}")
                for i, x in enumerate(v):
                    try:
                        out.append(conv(x))
                    except EncodeError as exc:
                        raise _add(exc, f"[{i}]") from None
            return f"{n}{sc.fmt}", flat_scalars
        if not isinstance(t.element, Ref):
            raise _err(f"unsupported struct field type {t}")
        sub = self.struct(t.element.name)
        nested_element = sub.nested

        def flat_structs(v: Any, out: list[Any]) -> None:
            if not isinstance(v, (list, tuple)) or len(v) != n:
                raise _err(f"fixed-length array size is incorrect, expected {n}")
            parts = []
            for i, x in enumerate(v):
                try:
                    parts.append(nested_element(x))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
            out.append(b"".join(parts))
        return f"{n * sub.size}s", flat_structs

    def _first_scalar(self, t: ModelType, offset: int) -> tuple[_Packer, int]:
        """The first scalar of a struct field of type ``t`` at ``offset``, and its offset
        (what flatc compares when it sorts by the field)."""
        sc = self.scalar(t)
        if sc is not None:
            return struct.Struct("<" + sc.fmt), offset
        if isinstance(t, List):
            return self._first_scalar(t.element, offset)
        assert isinstance(t, Ref)
        first = self.schema.struct_layout(t.name).fields[0]
        return self._first_scalar(first.type, offset + first.offset)

    def _inline_size(self, t: ModelType) -> int:
        sc = self.scalar(t)
        if sc is not None:
            return sc.size
        if isinstance(t, Ref):
            return self.struct(t.name).size
        if isinstance(t, List) and t.length is not None:
            return self._inline_size(t.element) * t.length
        raise _err(f"unsupported struct field type {t}")

    # -- tables ----------------------------------------------------------------------------

    def table(self, name: str) -> _TablePlan:
        plan = self.tables.get(name)
        if plan is not None:
            return plan
        plan = _TablePlan()
        self.tables[name] = plan
        rec = self.schema.table(name)
        plan.name = rec.name
        plan.short = rec.name.rsplit(".", 1)[-1]
        for i, f in enumerate(rec.fields):
            fp = self._field(rec, f)
            fp.index = i
            plan.fields.append(fp)
            plan.by_name[f.name] = fp
            if f.key:
                plan.key = fp
        plan.nfields = max((f.id or 0) for f in rec.fields) + 1 if rec.fields else 0
        plan.order = tuple(plan.by_name[n] for n in self.schema.binary_field_order(rec.name))
        plan.required = tuple(f.name for f in rec.fields if f.required)
        plan.has_union = any(f.kind in (_K_UNION, _K_UVEC) for f in plan.fields)
        plan.union_vectors = tuple(f for f in plan.fields if f.kind == _K_UVEC)
        return plan

    def _field(self, rec: Record, f: ModelField) -> _FieldPlan:
        fp = _FieldPlan(f.name)
        a = f.attributes
        fp.slot = f.id or 0
        fp.required = f.required
        fp.deprecated = f.deprecated
        fp.size_class = a.get("flatbuffers.size_class", 4)
        fp.shared = bool(a.get("shared", False))
        fp.nested = a.get("flatbuffers.nested_root")
        fa = a.get("force_align")
        fp.force_align = int(fa) if isinstance(fa, int) else 0
        t = f.type
        fp.optional = isinstance(t, Optional)
        fp.offset64 = bool(a.get("flatbuffers.offset64"))
        fp.vector64 = bool(a.get("vector64"))
        fp.flexbuffer = bool(a.get("flexbuffer"))
        if "flatbuffers.union_type_of" in a:
            u = self.schema.types[a["flatbuffers.union"]]
            assert isinstance(u, Union)
            fp.union = u
            names = {n: v for n, (v, _) in u.members.items()}
            names[u.attributes.get("flatbuffers.none", "NONE")] = 0
            enum = Enum(u.name, Int(8, False), names)
            fp.scalar = _Scalar(_int_converter("B", enum), "B", 1)
            if isinstance(t, List):  # the type vector of a vector of unions
                fp.kind = _K_VECTOR
                fp.vec_kind = _K_INT
                fp.vec_scalar = fp.scalar
                fp.np_format = "B"
                return fp
            fp.kind = _K_INT
            fp.default = 0
            fp.add = Builder.prepend_uint8_slot
            return fp
        if "flatbuffers.union_type_field" in a:
            is_vector = isinstance(t, List)
            ref = t.element if isinstance(t, List) else t
            assert isinstance(ref, Ref)
            u = self.schema.types[ref.name]
            assert isinstance(u, Union)
            fp.kind = _K_UVEC if is_vector else _K_UNION
            fp.union = u
            fp.union_field = a["flatbuffers.union_type_field"]
            names = {n: v for n, (v, _) in u.members.items()}
            names["NONE"] = 0
            fp.scalar = _Scalar(_int_converter("B", Enum(u.name, Int(8, False), names)), "B", 1)
            return fp
        sc = self.scalar(t)
        hash_fn = a.get("hash")
        if sc is not None and isinstance(hash_fn, str):
            sc = _hash_converter(sc, hash_fn)
        if sc is not None:
            fp.scalar = sc
            fp.kind = _K_FLOAT if sc.fmt in "fd" else _K_INT
            d = f.default
            if d is None:
                fp.default = None
            elif fp.kind == _K_FLOAT:
                fp.default = f32(float(d)) if sc.fmt == "f" else float(d)
            else:
                fp.default = int(d)
            fp.add = _SLOT_METHOD[sc.fmt]
            return fp
        if isinstance(t, String):
            fp.kind = _K_STRING
            return fp
        if isinstance(t, Ref):
            named = self.schema.types[t.name]
            if isinstance(named, Record) and named.kind == "struct":
                fp.kind = _K_STRUCT
                fp.struct = self.struct(named.name)
            else:
                fp.kind = _K_TABLE
                fp.table = named.name
            return fp
        if isinstance(t, List):
            fp.kind = _K_VECTOR
            el = t.element
            sc = self.scalar(el)
            if sc is not None and isinstance(hash_fn, str):
                sc = _hash_converter(sc, hash_fn)
            if sc is not None:
                fp.vec_kind = _K_INT
                fp.vec_scalar = sc
                fp.np_format = "?" if isinstance(el, Bool) else sc.fmt
            elif isinstance(el, String):
                fp.vec_kind = _K_STRING
            elif isinstance(el, Ref):
                named = self.schema.types[el.name]
                if isinstance(named, Record) and named.kind == "struct":
                    fp.vec_kind = _K_STRUCT
                    fp.elem = self.struct(named.name)
                elif isinstance(named, Record):
                    fp.vec_kind = _K_TABLE
                    fp.elem = named.name
                else:
                    fp.vec_kind = _K_UNION
            return fp
        raise _err(f"unsupported field type {t} for {rec.name}.{f.name}")


_PLANS: dict[int, tuple[FbsSchema, _Plans]] = {}


def _is_ndarray(v: Any) -> bool:
    np = sys.modules.get("numpy")  # never imported here: an array means numpy is loaded
    return np is not None and isinstance(v, np.ndarray)


def _plans(schema: FbsSchema) -> _Plans:
    entry = _PLANS.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    plans = _Plans(schema)
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(schema)] = (schema, plans)
    return plans


def _resolve_irregular(value: Irregular, fields: Mapping[str, _FieldPlan] | None
                       ) -> dict[str, Any]:
    """The object flatc sees in an :class:`Irregular`, for a table with ``fields`` (None for a
    struct, whose fields all count as scalars here): a ``"$schema"`` key takes a string and is
    skipped (kept once in a table's dict, for the union type look-ahead; the encoder skips
    it); a table's scalar reads ``"null"`` as null, and a null for a field that is no scalar
    is ignored, so only such a field may be given twice; a ``hash`` field, and any field of a
    struct, reads ``null`` as the word (which only a hash field takes: it hashes it)."""
    out: dict[str, Any] = {}
    for name, v in value.pairs:
        if name == "$schema":
            if not isinstance(v, str | bytes) or isinstance(v, Bare):
                raise _err("expecting: string constant instead got: "
                           + ("null" if v is None else short(str(v))), ".$schema")
            if fields is not None:
                out.setdefault(name, v)
            continue
        f = fields.get(name) if fields is not None else None
        if f is None or (f.scalar is not None and f.scalar.hashed):
            scalar = True  # a struct's field (or an unknown one), a hash field: flatc reads
            if v is None:  # null as the word, which only a hash field takes
                v = Bare("null")
        else:
            scalar = f.kind <= _K_FLOAT
            if scalar and type(v) is str and v == "null":
                v = None
        if name in out:
            if scalar:
                raise _err(f"field set more than once: {name}", f".{name}")
            if v is None:
                continue
            del out[name]  # the null before was ignored: the field is where its value is
        out[name] = v
    return out


def _check_types_have_values(f: _FieldPlan, value: Mapping[str, Any]) -> None:
    """``encode`` refuses a union vector's ``_type`` vector without its values: flatc's JSON
    parser writes one (``{u_type: []}``, so ``from_json`` does too), but its verifier rejects
    it."""
    if value.get(f.union_field) is not None:
        raise _err(f"{f.union_field} is given without {f.name}; a union vector needs its "
                   "values beside its types", f".{f.union_field}")


def _compile_table(plan: _TablePlan) -> Callable[[_Encoder, dict[str, Any]], int]:
    """Python source specialised for one table: the field dispatch of the value's keys, the
    conversions, the required check and the unrolled flatc-ordered slot calls. Semantics are
    those of :meth:`_Encoder.table_generic` (union values take their own ``_type`` field)."""
    env: dict[str, Any] = {"MISSING": _MISSING, "EncodeError": EncodeError, "_err": _err,
                           "_add": _add, "PLAN": plan,
                           "_check_types_have_values": _check_types_have_values}
    fields = plan.fields
    lines = ["def enc(self, value):", "    b = self.b"]
    names = [f"v{i}" for i in range(len(fields))]
    if names:
        lines.append("    " + " = ".join(names) + " = MISSING")
    env["INDEX"] = {f.name: i for i, f in enumerate(fields)}
    lines += ["    name = ''", "    try:", "        for name, v in value.items():",
              "            i = INDEX.get(name)",
              "            if i is None:",
              "                if name == '$schema':",
              "                    continue",
              "                raise _err(f'unknown field: {name}')"]
    for i, f in enumerate(fields):
        kw = "if" if i == 0 else "elif"
        lines.append(f"            {kw} i == {i}:")
        body: list[str] = []
        env[f"F{i}"] = f
        if f.kind <= _K_FLOAT and f.union is None:
            if f.optional:
                body += ["if v is None:", "    continue"]
            else:
                body += ["if v is None:", "    raise _err('invalid number: \"null\"')"]
        else:
            body += ["if v is None:", "    continue"]
        if f.kind == _K_INT:
            assert f.scalar is not None
            env[f"C{i}"] = f.scalar.conv
            lo, hi = _LIMITS[f.scalar.fmt]
            body += [f"if type(v) is not int or not {lo} <= v <= {hi}:", f"    v = C{i}(v)"]
        elif f.kind == _K_FLOAT:
            assert f.scalar is not None
            env[f"C{i}"] = f.scalar.conv
            if f.scalar.fmt == "d":
                body += ["if type(v) is not float:", f"    v = C{i}(v)"]
            else:
                body += [f"v = C{i}(v)"]
        elif f.kind == _K_STRING:
            if f.shared:
                body += ["v = self.string(v, True)"]
            else:
                body += ["v = b.create_string(v) if type(v) is str else self.string(v, False)"]
        elif f.kind == _K_STRUCT:
            assert f.struct is not None
            env[f"S{i}"] = f.struct
            body += [f"b.prep({f.struct.align}, 0)", f"v = S{i}.pack(v)"]
        elif f.kind == _K_TABLE:
            assert f.table is not None
            body += [f"tp = self.plans.tables.get({f.table!r}) or self.plans.table({f.table!r})",
                     "fn = tp.fast",
                     "if fn is not None and type(v) is dict and not (self.json_rules and "
                     "tp.has_union):",
                     "    v = fn(self, v)",
                     "else:",
                     "    v = self.table(tp, v)"]
        elif f.kind == _K_VECTOR:
            body += [f"v = self.vector(F{i}, v)"]
        elif f.kind == _K_UVEC:
            body += [f"v = self.union_vector(F{i}, value.get({f.union_field!r}), v)"]
        else:
            body += [f"v = self.union_value(F{i}, value.get({f.union_field!r}), v)"]
        body.append(f"{names[i]} = v")
        lines += ["                " + line for line in body]
    if fields:
        lines += ["            else:", "                raise AssertionError(i)"]
    lines += ["    except EncodeError as exc:", "        raise _add(exc, f'.{name}') from None"]
    for f in plan.union_vectors:
        i, j = fields.index(f), fields.index(plan.by_name[f.union_field])
        lines += ["    if not self.json_rules:",
                  f"        if {names[i]} is MISSING:",
                  f"            _check_types_have_values(F{i}, value)",
                  f"        elif {names[j]} is MISSING:",
                  f"            {names[j]} = self.vector(F{j}, [])"]
    for rname in plan.required:
        i = next(k for k, f in enumerate(fields) if f.name == rname)
        lines += [f"    if {names[i]} is MISSING:",
                  f"        raise _err({f'required field is missing: {rname} in {plan.short}'!r})"]
    lines.append(f"    b.start_object({plan.nfields})")
    for f in plan.order:
        i = fields.index(f)
        v = names[i]
        lines.append(f"    if {v} is not MISSING:")
        if f.kind in (_K_INT, _K_FLOAT):
            assert f.scalar is not None
            method = f.add.__name__
            lines.append(f"        b.{method}({f.slot}, {v}, D{i})")
            env[f"D{i}"] = f.default
        elif f.kind == _K_STRUCT:
            assert f.struct is not None
            lines.append(f"        b.prepend_struct_slot({f.slot}, "
                         f"b.prepend_raw({v}, {f.struct.align}), 0)")
        elif f.offset64:
            lines.append("        b.prep(8, 0)")
            lines.append(f"        b.prepend_uint64_slot({f.slot}, b.offset() - {v} + 8, 0)")
        else:
            lines.append(f"        b.prepend_uoffset_relative_slot({f.slot}, {v}, 0)")
    lines.append("    return b.end_object()")
    exec("\n".join(lines), env)  # our own generated source
    fn: Callable[[_Encoder, dict[str, Any]], int] = env["enc"]
    return fn


