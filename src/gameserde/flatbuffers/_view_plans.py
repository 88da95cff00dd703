"""Compiling a schema into the view classes of :mod:`~gameserde.flatbuffers.views`.

Accessor plans (vtable slot, ``struct.Struct``, kind) are compiled once per (schema, table)
into a generated view class and cached on the schema object. With the C reader (``_accel``),
classes built while ``_accel.ENABLED`` is true get C descriptors for most fields (see
:func:`_view_accel`); they fall back to the ``property`` getters here, the reference, per
access. The plans also drive :mod:`~gameserde.flatbuffers.decoder`,
:mod:`~gameserde.flatbuffers.json_output` and the C decoder's program
(:mod:`~gameserde.flatbuffers._reader_program`).
"""

from __future__ import annotations

import collections
import contextlib
import operator
import struct
from collections.abc import Callable
from typing import Any

from gameserde.flatbuffers import _accel
from gameserde.flatbuffers._view_classes import (
    _FFMT,
    _FMT,
    _U16,
    _U32,
    ARRAY,
    NESTED,
    SCALAR,
    STRING,
    STRUCT,
    TABLE,
    UNION,
    VECTOR,
    FlatStructView,
    LazyStructView,
    StructView,
    TableView,
    VectorView,
    _deref,
    _error,
    _field_past_end,
    _mk_struct,
    _mk_table,
    _mk_vec,
    _new,
    _np,
    _past_end,
    _read_str,
    _root_offset,
    _vec_header,
)
from gameserde.flatbuffers.schema import FbsSchema
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
from gameserde.schema.model import Type as ModelType

# the C descriptor namedtuple fields use: much faster than property(itemgetter)
_tuplegetter: Any = getattr(collections, "_tuplegetter", None)


def _field_getter(index: int, doc: str) -> Any:
    if _tuplegetter is not None:
        return _tuplegetter(index, doc)
    return property(operator.itemgetter(index), doc=doc)  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Plans


class _Elem:
    """How to read one vector element (or array element)."""

    __slots__ = ("dtype", "fast", "fmt", "get", "kind", "plan", "size", "type", "unpack")

    def __init__(self, kind: int, size: int, get: Callable[[VectorView, int], Any],
                 type: ModelType, unpack: struct.Struct | None = None, plan: Any = None,
                 dtype: Any = None) -> None:
        self.kind = kind
        self.size = size
        self.get = get
        self.type = type
        self.unpack = unpack
        self.plan = plan
        self.dtype = dtype
        self.fmt = unpack.format[1:] if unpack is not None else ""
        self.fast: Any = None  # the C vector methods' ElemInfo (see _view_accel)


class _FieldPlan:
    __slots__ = ("always", "bits", "default", "deprecated", "elem", "enum", "flex", "get", "kind",
                 "name", "plan", "scalar", "slot", "type", "union", "union_type_of", "wire")

    def __init__(self, name: str, slot: int, kind: int, type: ModelType) -> None:
        self.name = name
        self.slot = slot
        self.kind = kind
        self.type = type
        self.default: Any = None
        self.deprecated = False
        self.scalar = False
        self.always = False  # printed even when absent (a scalar key, as flatc does)
        self.get: Callable[[Any], Any] = _none
        self.elem: _Elem | None = None
        self.plan: Any = None
        self.enum: Enum | None = None
        self.union: Union | None = None
        self.union_type_of: str | None = None
        self.bits = 0
        self.flex = False  # a flexbuffer field (kind VECTOR): decoded/printed as a FlexBuffer
        self.wire = 0  # a table field's inline bytes (for the expansion budget, see _budget)


def _none(_: Any) -> None:
    return None


def _none2(_: Any, __: Any) -> None:
    return None


class _TablePlan:
    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: list[_FieldPlan] = []
        self.cls: type[TableView] = TableView


class _StructPlan:
    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.fields: list[_FieldPlan] = []  # slot = offset in the struct
        self.cls: type[StructView] = StructView
        self.whole = struct.Struct("<")
        self.dtype: Any = None
        self.flat = False
        self.names: tuple[str, ...] = ()
        self.make: Callable[[memoryview, int], Any] = _none2


class _Compiled:
    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self.tables: dict[str, _TablePlan] = {}
        self.structs: dict[str, _StructPlan] = {}
        self.roots: dict[str | None, type[TableView]] = {}
        # the C decoder's programs by root type (False: none), see _reader_program
        self.accel: dict[str | None, Any] = {}


_CACHE_ATTR = "_gameserde_reader_plans"


def _compiled(schema: FbsSchema) -> _Compiled:
    """The plans compiled for ``schema``, kept on the schema object itself (so they live and
    die with it)."""
    c: _Compiled | None = schema.__dict__.get(_CACHE_ATTR)
    if c is None:
        c = _Compiled(schema)
        setattr(schema, _CACHE_ATTR, c)
    return c


def _scalar_parts(schema: FbsSchema, t: ModelType) -> tuple[str, Enum | None, int]:
    """(struct format char, enum or None, float bits or 0) of a scalar type."""
    if isinstance(t, Optional):
        t = t.inner
    if isinstance(t, Ref):
        e = schema.types[t.name]
        assert isinstance(e, Enum)
        return _FMT[e.underlying.bits, e.underlying.signed], e, 0
    if isinstance(t, Bool):
        return "?", None, 0
    if isinstance(t, Float):
        return _FFMT[t.bits], None, t.bits
    assert isinstance(t, Int)
    return _FMT[t.bits, t.signed], None, 0


def _is_scalar(schema: FbsSchema, t: ModelType) -> bool:
    if isinstance(t, Optional | Int | Float | Bool):
        return True
    return isinstance(t, Ref) and isinstance(schema.types[t.name], Enum)


def _struct_plan(c: _Compiled, name: str) -> _StructPlan:
    plan = c.structs.get(name)
    if plan is not None:
        return plan
    schema = c.schema
    layout = schema.struct_layout(name)
    plan = c.structs[name] = _StructPlan(name, layout.size)
    ns: dict[str, Any] = {"__slots__": (), "_plan": plan}
    whole = ["<"]
    np_names: list[str] = []
    np_formats: list[Any] = []
    np_offsets: list[int] = []
    for fl in layout.fields:
        t = fl.type
        off = fl.offset
        fp = _FieldPlan(fl.name, off, SCALAR, t)
        if isinstance(t, List):
            fp.kind = ARRAY
            assert t.length is not None
            fp.elem = _array_elem(c, t.element)
            fp.get = _make_array_getter(off, t.length, fp.elem, fl.name)
            np_formats.append(None if fp.elem.dtype is None else (fp.elem.dtype, (t.length,)))
        elif _is_scalar(schema, t):
            fmt, fp.enum, fp.bits = _scalar_parts(schema, t)
            fp.scalar = True
            fp.get = _make_struct_scalar(off, struct.Struct("<" + fmt))
            whole.append(fmt)
            if fl.padding:
                whole.append(f"{fl.padding}x")
            np_formats.append(None if _np is None else _np.dtype("<" + fmt))
        else:
            assert isinstance(t, Ref)
            fp.kind = STRUCT
            sub = fp.plan = _struct_plan(c, t.name)
            fp.get = _make_struct_struct(off, sub.make)
            np_formats.append(sub.dtype)
        np_names.append(fl.name)
        np_offsets.append(off)
        plan.fields.append(fp)
        ns[fl.name] = property(fp.get)
    if _np is not None and all(f is not None for f in np_formats):
        with contextlib.suppress(ValueError):  # over numpy's limit (2 GB): no dtype
            plan.dtype = _np.dtype({"names": np_names, "formats": np_formats,
                                    "offsets": np_offsets, "itemsize": layout.size})
    short = name.rsplit(".", 1)[-1]
    # structs of scalars are read whole; no plan holds a format longer than its fields
    if all(fp.kind == SCALAR for fp in plan.fields) and plan.fields:
        plan.whole = struct.Struct("".join(whole))
    if plan.whole.size == layout.size and plan.fields:
        plan.flat = True
        plan.names = tuple(fp.name for fp in plan.fields)
        for i, fp in enumerate(plan.fields):
            fp.get = operator.itemgetter(i)
            ns[fp.name] = _field_getter(i, fp.name)
        flat_cls = plan.cls = type(short + "View", (FlatStructView,), ns)
        unpack = plan.whole.unpack_from
        new = tuple.__new__

        def make_flat(b: memoryview, p: int) -> Any:
            return new(flat_cls, unpack(b, p))
        plan.make = make_flat
    else:
        lazy_cls = plan.cls = type(short + "View", (LazyStructView,), ns)

        def make_lazy(b: memoryview, p: int) -> Any:
            return _mk_struct(lazy_cls, b, p)
        plan.make = make_lazy
    return plan


def _make_struct_scalar(off: int, st: struct.Struct) -> Callable[[LazyStructView], Any]:
    unpack = st.unpack_from

    def get(self: LazyStructView) -> Any:
        return unpack(self._b, self._p + off)[0]
    return get


def _make_struct_struct(off: int, make: Callable[[memoryview, int], Any]
                        ) -> Callable[[Any], Any]:
    def get(self: Any) -> Any:
        return make(self._b, self._p + off)
    return get


def _make_array_getter(off: int, length: int, el: _Elem,
                       name: str) -> Callable[[LazyStructView], Any]:
    if el.kind == SCALAR:
        st = struct.Struct(f"<{length}{el.unpack.format[1:]}")  # type: ignore[union-attr]
        unpack = st.unpack_from

        def get_scalars(self: LazyStructView) -> Any:
            return list(unpack(self._b, self._p + off))
        return get_scalars

    def get(self: LazyStructView) -> Any:
        vec = VectorView(self._b, self._p + off, length, el, None, name)
        return [el.get(vec, i) for i in range(length)]
    return get


def _array_elem(c: _Compiled, t: ModelType) -> _Elem:
    """Element of a fixed array inside a struct (scalars, enums or structs)."""
    return _vector_elem(c, t)


def _vector_elem(c: _Compiled, t: ModelType) -> _Elem:
    el = _vector_elem_plan(c, t)
    fast = _view_accel()
    if fast is not None and el.kind != UNION:
        code = _C_CODES.index(el.fmt) if el.kind == SCALAR else 0
        extra: Any = None
        if el.kind == STRUCT:
            extra = _c_shape(c, el.plan)
        elif el.kind == TABLE:
            extra = _class_of(el.plan)
        with contextlib.suppress(ValueError):  # malformed: the reference reads it
            el.fast = fast.elem(el.kind, el.size, code, extra)
    return el


def _vector_elem_plan(c: _Compiled, t: ModelType) -> _Elem:
    schema = c.schema
    if _is_scalar(schema, t):
        fmt = _scalar_parts(schema, t)[0]
        st = struct.Struct("<" + fmt)
        unpack = st.unpack_from
        size = st.size

        def get_scalar(v: VectorView, i: int) -> Any:
            return unpack(v._b, v._d + i * size)[0]
        dtype = _np.dtype("<" + fmt) if _np is not None else None
        return _Elem(SCALAR, size, get_scalar, t, st, dtype=dtype)
    if isinstance(t, String):
        def get_str(v: VectorView, i: int) -> Any:
            return _read_str(v._b, v._d + 4 * i, v, i)
        return _Elem(STRING, 4, get_str, t)
    assert isinstance(t, Ref)
    target = schema.types[t.name]
    if isinstance(target, Record) and target.kind == "struct":
        sp = _struct_plan(c, t.name)
        smake = sp.make
        ssize = sp.size

        def get_struct(v: VectorView, i: int) -> Any:
            return smake(v._b, v._d + i * ssize)
        return _Elem(STRUCT, ssize, get_struct, t, plan=sp, dtype=sp.dtype)
    if isinstance(target, Record):
        tp = _table_plan(c, t.name)

        def get_table(v: VectorView, i: int) -> Any:
            p = v._d + 4 * i
            return _mk_table(tp.cls, v._b, p + _U32(v._b, p)[0], v, i, p)
        return _Elem(TABLE, 4, get_table, t, plan=tp)
    assert isinstance(target, Union)
    members = _union_members(c, target)

    def get_union(v: VectorView, i: int) -> Any:
        types = v._aux
        if types is None or i >= len(types):
            raise _error("union vector is longer than its type vector", v._d, v, i)
        return _read_member(members, types[i], v._b, v._d + 4 * i, v, i)
    return _Elem(UNION, 4, get_union, t, plan=members)


def _union_members(c: _Compiled, u: Union) -> dict[int, tuple[int, Any]]:
    out: dict[int, tuple[int, Any]] = {}
    for _, (tag, mt) in u.members.items():
        if isinstance(mt, String):
            out[tag] = (STRING, None)
        else:
            assert isinstance(mt, Ref)
            rec = c.schema.types[mt.name]
            assert isinstance(rec, Record)
            if rec.kind == "struct":
                out[tag] = (STRUCT, _struct_plan(c, mt.name))
            else:
                out[tag] = (TABLE, None)
    # tables resolved lazily (recursive schemas)
    for _, (tag, mt) in u.members.items():
        if out[tag][0] == TABLE:
            assert isinstance(mt, Ref)
            out[tag] = (TABLE, _table_plan(c, mt.name))
    return out


def _read_member(members: dict[int, tuple[int, Any]], tag: int, b: memoryview, p: int,
                 owner: Any, step: str | int) -> Any:
    m = members.get(tag)
    if m is None:
        return None
    kind, plan = m
    if kind == STRING:
        return _read_str(b, p, owner, step)
    target = p + _U32(b, p)[0]
    if kind == TABLE:
        return _mk_table(plan.cls, b, target, owner, step, p)
    if target + plan.size > len(b):
        raise _past_end(b, p, f"a {plan.size}-byte struct", target, owner, step)
    return plan.make(b, target)


def _table_plan(c: _Compiled, name: str) -> _TablePlan:
    plan = c.tables.get(name)
    if plan is not None:
        return plan
    schema = c.schema
    rec = schema.table(name)
    plan = c.tables[name] = _TablePlan(name)
    ns: dict[str, Any] = {"__slots__": (), "_plan": plan}
    by_name: dict[str, _FieldPlan] = {}
    wide: set[str] = set()  # 64-bit offsets: the reference getters only
    for f in rec.fields:
        fp = _FieldPlan(f.name, f.attributes["flatbuffers.voffset"], SCALAR, f.type)
        fp.wire = f.attributes["flatbuffers.size"]
        fp.deprecated = f.deprecated
        fp.default = f.default
        t = f.type
        if f.attributes.get("flatbuffers.offset64"):
            wide.add(f.name)
            # a 64-bit offset in the slot; a string or a vector of scalars/structs, whose
            # length is 32-bit (``offset64``) or 64-bit (``vector64``)
            if isinstance(t, String):
                fp.kind = STRING
                fp.get = _make_offset64(fp.slot, None, 4, f.name, f.default)
            else:
                assert isinstance(t, List)
                fp.kind = VECTOR
                fp.elem = _vector_elem(c, t.element)
                fp.get = _make_offset64(fp.slot, fp.elem, 8 if f.attributes.get("vector64")
                                        else 4, f.name, f.default)
        elif _is_scalar(schema, t):
            fmt, fp.enum, fp.bits = _scalar_parts(schema, t)
            fp.scalar = True
            fp.always = f.key
            fp.get = _make_scalar(fp.slot, struct.Struct("<" + fmt), f.default, f.name)
        elif isinstance(t, String):
            fp.kind = STRING
            fp.get = _make_string(fp.slot, f.name, f.default)
        elif isinstance(t, List):
            nested = f.attributes.get("flatbuffers.nested_root")
            if nested is not None:
                fp.kind = NESTED
                fp.plan = nested
                fp.get = _make_nested(c, fp.slot, nested, f.name)
            else:
                fp.kind = VECTOR
                fp.elem = _vector_elem(c, t.element)
                fp.get = _make_vector(fp.slot, fp.elem, f.name, f.default)
                fp.flex = bool(f.attributes.get("flexbuffer"))
        else:
            assert isinstance(t, Ref)
            target = schema.types[t.name]
            if isinstance(target, Union):
                fp.kind = UNION
                fp.union = target
                fp.plan = _union_members(c, target)
            elif target.kind == "struct":  # type: ignore[union-attr]
                fp.kind = STRUCT
                fp.plan = _struct_plan(c, t.name)
                fp.get = _make_table_struct(fp.slot, fp.plan, f.name)
            else:
                fp.kind = TABLE
                fp.plan = t.name
                fp.get = _make_table_table(c, fp.slot, t.name, f.name)
        fp.union_type_of = f.attributes.get("flatbuffers.union_type_of")
        if fp.union_type_of is not None:
            fp.union = schema.union(f.attributes["flatbuffers.union"])
        by_name[f.name] = fp
        plan.fields.append(fp)
    fast = _view_accel()
    for fp in plan.fields:
        type_slot = 0
        if fp.kind == UNION:
            tf = by_name[rec.field(fp.name).attributes["flatbuffers.union_type_field"]]
            fp.get = _make_union(fp.slot, tf.slot, tf.get, fp.plan, fp.name)
            type_slot = tf.slot
        elif fp.kind == VECTOR and fp.elem is not None and fp.elem.kind == UNION:
            tf = by_name[rec.field(fp.name).attributes["flatbuffers.union_type_field"]]
            fp.get = _make_union_vector(fp.slot, tf.get, fp.elem, fp.name)
        ns[fp.name] = prop = property(fp.get)
        if fast is not None and fp.name not in wide:
            ns[fp.name] = _c_getter(fast, c, fp, prop, type_slot)
    plan.cls = type(name.rsplit(".", 1)[-1] + "View", (TableView,), ns)
    return plan


# ---------------------------------------------------------------------------------------------
# The C view getters (``_reader_speedups``; see _view_accel)

_C_CODES = "?bBhHiIqQefd"  # the C scalar codes, by struct format character
G_SCALAR, G_STRING, G_STRUCT, G_TABLE, G_VECTOR, G_UNION = range(6)  # the C getter kinds

_view_c: Any = None  # the set-up C reader, False: its view part is unusable


def _view_accel() -> Any:
    """The C reader when the view classes and vector plans built now get its getters, or None
    (the accelerator is not built, or ``_accel.ENABLED`` is false now). The first call sets it
    up and puts its ``__iter__``/``__len__``/``__getitem__`` on :class:`VectorView`. They all
    read ``_accel.ENABLED`` again on each call and run the reference when it is false."""
    global _view_c
    r = _accel.reader
    if r is None or not _accel.ENABLED or _view_c is False:
        return None
    if _view_c is None:
        refs = (VectorView.__iter__, VectorView.__len__, VectorView.__getitem__)
        try:
            methods = r.setup_views(_accel.__dict__, TableView, LazyStructView, VectorView,
                                    _Elem, *refs)
        except Exception:  # pragma: no cover - a build that does not fit: pure Python
            _view_c = False
            return None
        for name, method in zip(("__iter__", "__len__", "__getitem__"), methods, strict=True):
            setattr(VectorView, name, method)
        _view_c = r
    return _view_c


def _c_shape(c: _Compiled, plan: _StructPlan) -> tuple[Any, ...]:
    """How the C getters make a struct: (cls, size, flat, ((offset, scalar code), ...))."""
    fields = tuple((fp.slot, _C_CODES.index(_scalar_parts(c.schema, fp.type)[0]))
                   for fp in plan.fields) if plan.flat else ()
    return plan.cls, plan.size, plan.flat, fields


def _class_of(plan: _TablePlan) -> Callable[[], type[TableView]]:
    return lambda: plan.cls


def _lazy_class(c: _Compiled, name: str) -> Callable[[], type[TableView]]:
    return lambda: _table_plan(c, name).cls


def _c_getter(fast: Any, c: _Compiled, fp: _FieldPlan, prop: property, type_slot: int) -> Any:
    """The C descriptor for field ``fp`` (``prop``: the reference), or ``prop`` for kinds it
    does not read (nested flatbuffers, vectors of unions)."""
    kind = fp.kind
    a: Any = 0
    b = 0
    default = None
    if kind == SCALAR:
        g = G_SCALAR
        a = _C_CODES.index(_scalar_parts(c.schema, fp.type)[0])
        default = fp.default
    elif kind == STRING:
        g = G_STRING
        default = fp.default
    elif kind == STRUCT:
        g = G_STRUCT
        a = _c_shape(c, fp.plan)
    elif kind == TABLE:
        g = G_TABLE
        a = _lazy_class(c, fp.plan)
    elif kind == VECTOR and fp.elem is not None and fp.elem.kind != UNION:
        g = G_VECTOR
        a = fp.elem
        b = fp.elem.size
        default = fp.default
    elif kind == UNION:
        g = G_UNION
        a = {tag: plan if k == TABLE else None for tag, (k, plan) in fp.plan.items()}
        b = type_slot
    else:
        return prop
    try:
        return fast.getter(prop, g, fp.slot, fp.name, default, a, b)
    except ValueError:  # pragma: no cover - the reference reads it
        return prop


_U64 = struct.Struct("<Q").unpack_from


def _make_offset64(slot: int, el: _Elem | None, len_size: int, name: str,
                   default: Any) -> Callable[[TableView], Any]:
    """A field referenced by a 64-bit offset: a string (``el`` None) or a vector whose
    length field has ``len_size`` bytes (4 for ``offset64`` and strings, 8 for
    ``vector64``)."""
    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + 8 > len(b):
                    raise _field_past_end(self, slot, name, p, 8)
                s = p + _U64(b, p)[0]
                if s + len_size > len(b):
                    raise _error(f"the 64-bit offset at {p} points to {s}, past the end of "
                                 f"the {len(b)}-byte buffer", p, self, name)
                n = (_U64 if len_size == 8 else _U32)(b, s)[0]
                d = s + len_size
                size = 1 if el is None else el.size
                if d + n * size > len(b):
                    raise _error(f"the {'string' if el is None else 'vector'} at {s} has {n} "
                                 f"elements of {size} bytes, past the end of the {len(b)}-byte "
                                 "buffer", s, self, name)
                if el is None:
                    return b[d:d + n].tobytes().decode("utf-8", "surrogateescape")
                return _mk_vec(b, d, n, el, self, name)
        if el is None:
            return default
        return None if default is None else []
    return get


def _make_scalar(slot: int, st: struct.Struct, default: Any,
                 name: str) -> Callable[[TableView], Any]:
    unpack = st.unpack_from

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                try:
                    return unpack(self._b, self._t + o)[0]
                except struct.error:
                    raise _field_past_end(self, slot, name, self._t + o, st.size) from None
        return default
    return get


def _make_string(slot: int, name: str, default: Any) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                try:
                    s = p + _U32(b, p)[0] + 4
                    e = s + _U32(b, s - 4)[0]
                    if e <= len(b):
                        return b[s:e].tobytes().decode("utf-8", "surrogateescape")
                except struct.error:
                    pass
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                return _read_str(b, p, self, name)  # raises the precise error
        return default
    return get


def _make_table_struct(slot: int, plan: _StructPlan,
                       name: str) -> Callable[[TableView], Any]:
    size = plan.size
    make = plan.make
    if plan.flat:
        new: Any = tuple.__new__
        cls = plan.cls
        unpack = plan.whole.unpack_from

        def get_flat(self: TableView) -> Any:
            if slot < self._vs:
                b = self._b
                o = _U16(b, self._vt + slot)[0]
                if o:
                    p = self._t + o
                    if p + size > len(b):
                        raise _field_past_end(self, slot, name, p, size)
                    return new(cls, unpack(b, p))
            return None
        return get_flat

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + size > len(self._b):
                    raise _field_past_end(self, slot, name, p, size)
                return make(self._b, p)
        return None
    return get


def _make_table_table(c: _Compiled, slot: int, tname: str,
                      name: str) -> Callable[[TableView], Any]:
    cell: list[type[TableView]] = []

    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                if not cell:
                    cell.append(_table_plan(c, tname).cls)
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                return _mk_table(cell[0], b, p + _U32(b, p)[0], self, name, p)
        return None
    return get


def _make_vector(slot: int, el: _Elem, name: str, default: Any) -> Callable[[TableView], Any]:
    size = el.size

    def get(self: TableView) -> Any:
        if slot < self._vs:
            b = self._b
            o = _U16(b, self._vt + slot)[0]
            if o:
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                s = _deref(b, p, "a vector", self, name)
                n = _U32(b, s)[0]
                if s + 4 + n * size > len(b):
                    raise _error(f"the vector at {s} has {n} elements of {size} bytes, past "
                                 f"the end of the {len(b)}-byte buffer", s, self, name)
                v = _new(VectorView)
                v._b = b
                v._d = s + 4
                v._n = n
                v._el = el
                v._par = self
                v._step = name
                v._aux = None
                return v
        return None if default is None else []
    return get


def _make_union(slot: int, type_slot: int, type_get: Callable[[Any], Any],
                members: dict[int, tuple[int, Any]], name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        vs = self._vs
        if slot < vs:
            b = self._b
            vt = self._vt
            o = _U16(b, vt + slot)[0]
            if o:
                to = _U16(b, vt + type_slot)[0] if type_slot < vs else 0
                try:
                    tag = b[self._t + to] if to else 0
                except IndexError:
                    tag = type_get(self)  # raises the error
                m = members.get(tag)
                if m is None:
                    return None
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                if m[0] == TABLE:
                    return _mk_table(m[1].cls, b, p + _U32(b, p)[0], self, name, p)
                return _read_member(members, type_get(self), b, p, self, name)
        return None
    return get


def _make_union_vector(slot: int, type_get: Callable[[Any], Any], el: _Elem,
                       name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                d, n = _vec_header(b, p, 4, self, name)
                types = type_get(self)
                aux = None if types is None else bytes(types._b[types._d:types._d + types._n])
                return _mk_vec(b, d, n, el, self, name, aux)
        return None
    return get


def _make_nested(c: _Compiled, slot: int, root: str, name: str) -> Callable[[TableView], Any]:
    def get(self: TableView) -> Any:
        if slot < self._vs:
            o = _U16(self._b, self._vt + slot)[0]
            if o:
                b = self._b
                p = self._t + o
                if p + 4 > len(b):
                    raise _field_past_end(self, slot, name, p, 4)
                d, n = _vec_header(b, p, 1, self, name)
                inner = b[d:d + n]
                return _mk_table(_table_plan(c, root).cls, inner,
                                 _root_offset(inner, 0, self, name), self, name, 0)
        return None
    return get

