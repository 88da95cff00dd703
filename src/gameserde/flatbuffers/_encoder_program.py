"""The program the C encoder (``_encoder_speedups``) runs, compiled from the encoder's plans.

:func:`encode` is the hook :func:`gameserde.flatbuffers.encoder.encode` calls for dict values:
it compiles, once per root table plan, a description of every table, struct and union
reachable from the root (plain tuples, see below and the C source's header comment), hands it
to the extension's ``compile`` (which keeps a C copy in a capsule) and then runs the
extension's ``encode``. That returns the bytes, or None when the value needs anything the C
code does not handle; the caller then runs the pure-Python reference over the whole value.

Everything else the reference treats specially is compiled to "give up when present":
``nested_flatbuffer``, ``flexbuffer``, 64-bit offsets, vectors of unions, and any field kind
or attribute added later that this module does not know.

Spec formats (all indices are positions in the program's lists)::

    program = (tables, structs, unions, root_table_index)
    table   = (index {name: field index}, nslots, fields, order, required, has_union)
    field   = (kind, slot, scalar, optional, default, names, ref, vkind, keyed, union_field,
               shared, force_align, type_fields, text)
    struct  = (size, align, sfields, index {name: sfield index})
    sfield  = (offset, scalar or -1, struct ref or -1, array length or 0, element size, names,
               text)
    union   = (names {name: tag}, ((tag, kind, ref), ...))

Names are interned: the keys of values written as literals are too (and so are the keys the
C JSON parser reads), and a dict lookup of the very same object is much faster. ``text`` says
how the reference converts a string given for an integer: ``TEXT_INT`` a number (decimal or
hexadecimal), ``TEXT_ENUM`` also a name or bit flags (``names``), ``TEXT_BOOL`` also ``true``
or ``false``, ``TEXT_HASH`` (a ``hash`` field) only a JSON bare token that does not start with
a letter or ``_`` (anything else is hashed). ``type_fields`` (union values; empty for other
fields): the indices of the table's ``_type`` fields of the same union, by descending id:
``from_json``'s rules (``json=True``) take the tag from the first one parsed before the value.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from gameserde.flatbuffers import _accel
from gameserde.schema.model import Bool, Enum, List, Optional, Record, Ref, String
from gameserde.schema.model import Type as ModelType

if TYPE_CHECKING:
    from gameserde.flatbuffers._encode_plans import _FieldPlan, _Plans, _StructPlan, _TablePlan

# field / vector element kinds (the C enum)
GIVEUP, INT, FLOAT, STRING, STRUCT, TABLE, VECTOR, UNION = range(8)
# scalar codes (the C enum), by struct format
SCALARS = {"b": 0, "B": 1, "h": 2, "H": 3, "i": 4, "I": 5, "q": 6, "Q": 7, "f": 8, "d": 9}
# how a string converts to an integer (the C enum)
TEXT_INT, TEXT_ENUM, TEXT_BOOL, TEXT_HASH = range(4)
_RANGES = {"b": (-128, 127), "B": (0, 255), "h": (-32768, 32767), "H": (0, 65535),
           "i": (-2**31, 2**31 - 1), "I": (0, 2**32 - 1), "q": (-2**63, 2**63 - 1),
           "Q": (0, 2**64 - 1)}
# field attributes whose presence means: give up when the field is present in a value
GIVEUP_ATTRIBUTES = frozenset({
    "nested_flatbuffer", "flatbuffers.nested_root", "flexbuffer", "offset64", "vector64",
    "flatbuffers.offset64",
})

_PROGRAMS: dict[int, tuple[Any, Any]] = {}  # id(root table plan) -> (plan, program or None)


def encode(plans: _Plans, plan: _TablePlan, value: dict[str, Any], file_identifier: Any,
           size_prefixed: bool, json: bool = False) -> bytes | None:
    """The C encoder's bytes for ``value`` (root table ``plan``), or None (gave up). ``json``:
    ``value`` is a document read by the C JSON parser, encoded with ``from_json``'s rules."""
    entry = _PROGRAMS.get(id(plan))
    if entry is None or entry[0] is not plan:
        try:
            program = _accel.encoder.compile(compile_spec(plans, plan))
        except Exception:  # a schema the compiler does not cover: no C path
            program = None
        if len(_PROGRAMS) > 256:
            _PROGRAMS.clear()
        entry = _PROGRAMS[id(plan)] = (plan, program)
    program = entry[1]
    if program is None:
        return None
    if json:
        from gameserde.flatbuffers._json_parse import Bare, Escaped

        out: bytes | None = _accel.encoder.encode(program, value, file_identifier,
                                                  size_prefixed, (Bare, Escaped))
    else:
        out = _accel.encoder.encode(program, value, file_identifier, size_prefixed)
    return out


def _int_text(plans: _Plans, t: ModelType, hashed: bool) -> tuple[dict[str, int] | None, int]:
    """The names an integer of type ``t`` may be given as (the converter's ``names``) and its
    text mode (see the module docstring); ``hashed``: the field has a ``hash`` attribute."""
    if isinstance(t, Optional):
        t = t.inner
    if hashed:
        return None, TEXT_HASH
    if isinstance(t, Bool):
        return None, TEXT_BOOL
    if isinstance(t, Ref):
        named = plans.schema.types[t.name]
        if isinstance(named, Enum):
            return {sys.intern(k): v for k, v in named.values.items()}, TEXT_ENUM
    return None, TEXT_INT


class _Compiler:
    def __init__(self, plans: _Plans) -> None:
        self.plans = plans
        self.tables: list[Any] = []
        self.table_index: dict[str, int] = {}
        self.structs: list[Any] = []
        self.struct_index: dict[str, int] = {}
        self.unions: list[Any] = []
        self.union_index: dict[str, int] = {}

    def table(self, tp: _TablePlan) -> int:
        found = self.table_index.get(tp.name)
        if found is not None:
            return found
        ix = self.table_index[tp.name] = len(self.tables)
        self.tables.append(None)
        rec = self.plans.schema.table(tp.name)
        model_fields = {f.name: f for f in rec.fields}
        fields = tuple(self.field(fp, model_fields[fp.name].type,
                                  model_fields[fp.name].attributes, tp) for fp in tp.fields)
        index = {sys.intern(fp.name): i for i, fp in enumerate(tp.fields)}
        order = tuple(tp.fields.index(fp) for fp in tp.order)
        required = tuple(index[name] for name in tp.required)
        self.tables[ix] = (index, tp.nfields, fields, order, required, tp.has_union)
        return ix

    def field(self, fp: _FieldPlan, t: ModelType, attributes: Any,
              tp: _TablePlan) -> tuple[Any, ...]:
        from gameserde.flatbuffers import _encode_plans as enc

        giveup = (GIVEUP, fp.slot, 0, False, None, None, -1, GIVEUP, 0, None, False, 0, (),
                  TEXT_INT)
        if (any(a in GIVEUP_ATTRIBUTES for a in attributes) or fp.nested is not None
                or fp.offset64 or fp.vector64 or getattr(fp, "flexbuffer", False)
                or (fp.kind == enc._K_VECTOR and fp.union is not None)):
            return giveup  # a union vector's _type vector: checked with its values in Python
        strings = fp.kind == enc._K_STRING or (fp.kind == enc._K_VECTOR
                                               and fp.vec_kind == enc._K_STRING)
        fa = fp.force_align
        if (fp.shared and not strings) or (fa and (fp.kind != enc._K_VECTOR
                                                   or not 1 <= fa <= 32 or fa & (fa - 1))):
            return giveup
        *spec, text = self.kind_field(fp, t, attributes)
        return (*spec, fp.shared, fa, self.type_fields(fp, tp), text)

    @staticmethod
    def type_fields(fp: _FieldPlan, tp: _TablePlan) -> tuple[int, ...]:
        """For a union value, the indices of the table's ``_type`` fields of the same union by
        descending id (flatc's JSON parser takes the tag from the one with the highest id
        parsed before the value); empty for any other field."""
        from gameserde.flatbuffers import _encode_plans as enc

        if fp.kind != enc._K_UNION or fp.union is None:
            return ()
        same = [i for i, other in enumerate(tp.fields)
                if other.kind == enc._K_INT and other.union is not None
                and other.union.name == fp.union.name]
        return tuple(sorted(same, key=lambda i: -tp.fields[i].slot))

    def kind_field(self, fp: _FieldPlan, t: ModelType, attributes: Any) -> tuple[Any, ...]:
        """The field spec up to ``union_field``, then the field's ``text``."""
        from gameserde.flatbuffers import _encode_plans as enc

        giveup = (GIVEUP, fp.slot, 0, False, None, None, -1, GIVEUP, 0, None, TEXT_INT)
        hashed = isinstance(attributes.get("hash"), str)
        kind = fp.kind
        if kind in (enc._K_INT, enc._K_FLOAT):
            sc = fp.scalar
            if sc is None or sc.fmt not in SCALARS:
                return giveup
            if fp.union is not None:
                names: dict[str, int] | None = self.union_type_names(fp, none_attribute=True)
                text = TEXT_ENUM
            else:
                names, text = _int_text(self.plans, t, hashed)
            default = fp.default
            if kind == enc._K_INT:
                lo, hi = _RANGES[sc.fmt]
                if type(default) is not int or not lo <= default <= hi:
                    default = None  # never equal to a value in range: always written
                return (INT, fp.slot, SCALARS[sc.fmt], fp.optional or fp.union is not None,
                        default, names, -1, GIVEUP, 0, None, text)
            if default is not None and type(default) is not float:
                return giveup
            return (FLOAT, fp.slot, SCALARS[sc.fmt], fp.optional, default, None, -1, GIVEUP,
                    0, None, TEXT_INT)
        if kind == enc._K_STRING:
            return (STRING, fp.slot, 0, False, None, None, -1, GIVEUP, 0, None, TEXT_INT)
        if kind == enc._K_STRUCT:
            assert fp.struct is not None
            return (STRUCT, fp.slot, 0, False, None, None, self.struct(fp.struct), GIVEUP, 0,
                    None, TEXT_INT)
        if kind == enc._K_TABLE:
            assert fp.table is not None
            ref = self.table(self.plans.table(fp.table))
            return (TABLE, fp.slot, 0, False, None, None, ref, GIVEUP, 0, None, TEXT_INT)
        if kind == enc._K_UNION:
            return (UNION, fp.slot, 0, False, None, None, self.union(fp), GIVEUP, 0,
                    sys.intern(fp.union_field), TEXT_INT)
        if kind != enc._K_VECTOR:
            return giveup
        vk = fp.vec_kind
        if vk == enc._K_INT:
            sc = fp.vec_scalar
            if sc is None or sc.fmt not in SCALARS:
                return giveup
            if fp.union is not None:
                names = self.union_type_names(fp, none_attribute=True)
                text = TEXT_ENUM
            else:
                element = t.element if isinstance(t, List) else t
                names, text = _int_text(self.plans, element, hashed)
            ekind = FLOAT if sc.fmt in "fd" else INT
            return (VECTOR, fp.slot, SCALARS[sc.fmt], False, None, names, -1, ekind, 0, None,
                    text)
        if vk == enc._K_STRING:
            return (VECTOR, fp.slot, 0, False, None, None, -1, STRING, 0, None, TEXT_INT)
        if vk == enc._K_STRUCT:
            sp: _StructPlan = fp.elem
            return (VECTOR, fp.slot, 0, False, None, None, self.struct(sp),
                    STRUCT, 1 if sp.key is not None else 0, None, TEXT_INT)
        if vk == enc._K_TABLE:
            tp = self.plans.table(fp.elem)
            keyed = 0
            if tp.key is not None:
                # a keyed vector is sorted: give up for 2+ elements; a struct key always
                # raises in the reference
                keyed = 2 if tp.key.kind == enc._K_STRUCT else 1
            return (VECTOR, fp.slot, 0, False, None, None, self.table(tp), TABLE, keyed, None,
                    TEXT_INT)
        return giveup

    def union_type_names(self, fp: _FieldPlan, none_attribute: bool) -> dict[str, int]:
        """The names of a union's ``_type`` field (or, without ``none_attribute``, of the
        union value's tag), built as :class:`~gameserde.flatbuffers._encode_plans._Plans` does."""
        u = fp.union
        assert u is not None
        names = {sys.intern(n): v for n, (v, _) in u.members.items()}
        none = u.attributes.get("flatbuffers.none", "NONE") if none_attribute else "NONE"
        names[sys.intern(none)] = 0
        return names

    def union(self, fp: _FieldPlan) -> int:
        u = fp.union
        assert u is not None
        found = self.union_index.get(u.name)
        if found is not None:
            return found
        ix = self.union_index[u.name] = len(self.unions)
        self.unions.append(None)
        members = []
        seen: set[int] = set()
        for _, (tag, mt) in u.members.items():
            if tag in seen or not 0 <= tag <= 255:
                continue  # member_of finds the first member with a tag
            seen.add(tag)
            if isinstance(mt, String):
                members.append((tag, STRING, -1))
            elif isinstance(mt, Ref):
                named = self.plans.schema.types[mt.name]
                if isinstance(named, Record) and named.kind == "struct":
                    members.append((tag, STRUCT, self.struct(self.plans.struct(named.name))))
                elif isinstance(named, Record):
                    members.append((tag, TABLE, self.table(self.plans.table(mt.name))))
        self.unions[ix] = (self.union_type_names(fp, none_attribute=False), tuple(members))
        return ix

    def struct(self, sp: _StructPlan) -> int:
        found = self.struct_index.get(sp.name)
        if found is not None:
            return found
        ix = self.struct_index[sp.name] = len(self.structs)
        self.structs.append(None)
        schema = self.plans.schema
        layout = schema.struct_layout(sp.name)
        rec = schema.struct(sp.name)
        sfields = []
        for f, fl in zip(rec.fields, layout.fields, strict=True):
            hashed = isinstance(f.attributes.get("hash"), str)
            t = f.type
            count = 0
            if isinstance(t, List):
                if t.length is None:
                    raise ValueError(f"unsupported struct field type {t}")
                count = t.length
                t = t.element
            sc = self.plans.scalar(t)
            if sc is not None:
                if sc.fmt not in SCALARS:
                    raise ValueError(f"unsupported struct field type {t}")
                names, text = _int_text(self.plans, t, hashed)
                sfields.append((fl.offset, SCALARS[sc.fmt], -1, count, sc.size, names, text))
            elif isinstance(t, Ref):
                sub = self.plans.struct(t.name)
                sfields.append((fl.offset, -1, self.struct(sub), count, sub.size, None,
                                TEXT_INT))
            else:
                raise ValueError(f"unsupported struct field type {t}")
        index = {sys.intern(f.name): i for i, f in enumerate(rec.fields)}
        self.structs[ix] = (sp.size, sp.align, tuple(sfields), index)
        return ix


def compile_spec(plans: _Plans, plan: _TablePlan) -> tuple[Any, ...]:
    """The program spec (see the module docstring) of root table ``plan``."""
    c = _Compiler(plans)
    root = c.table(plan)
    return (tuple(c.tables), tuple(c.structs), tuple(c.unions), root)
