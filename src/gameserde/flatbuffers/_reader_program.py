"""The program the C decoder (``_reader_speedups``) runs, lowered from the reader's plans.

:func:`program` compiles, once per (schema, root type), the plans of
:mod:`gameserde.flatbuffers._view_plans` reachable from the root into the tuples described at the
top of ``_reader_speedups.c`` and caches the compiled program on the plans' ``_Compiled``
object (``False`` when there is none: the reference runs). The op numbers below must match
the C enums.
"""

from __future__ import annotations

from typing import Any

from gameserde.flatbuffers import _accel
from gameserde.flatbuffers._view_classes import (
    ARRAY,
    NESTED,
    SCALAR,
    STRING,
    STRUCT,
    TABLE,
    UNION,
    VECTOR,
)
from gameserde.flatbuffers._view_plans import (
    _Compiled,
    _compiled,
    _FieldPlan,
    _scalar_parts,
    _StructPlan,
    _table_plan,
)
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import List

# scalar codes (SC_ in C), by struct format character
_CODES = {c: i for i, c in enumerate("?bBhHiIqQefd")}

(OP_SCALAR, OP_STRING, OP_STRUCT, OP_TABLE, OP_NESTED, OP_UNION, OP_VEC_SCALAR, OP_VEC_STRING,
 OP_VEC_STRUCT, OP_VEC_TABLE, OP_VEC_UNION, OP_GIVEUP) = range(12)
SOP_SCALAR, SOP_STRUCT, SOP_ARRAY_SCALAR, SOP_ARRAY_STRUCT = range(4)
U_TABLE, U_STRUCT, U_STRING = 1, 2, 3


class _Lowering:
    def __init__(self, c: _Compiled) -> None:
        self.c = c
        self.table_index: dict[str, int] = {}
        self.tables: list[tuple[Any, ...]] = []
        self.struct_index: dict[str, int] = {}
        self.structs: list[tuple[Any, ...]] = []
        self.unions: list[tuple[Any, ...]] = []

    def table(self, name: str) -> int:
        index = self.table_index.get(name)
        if index is not None:
            return index
        index = self.table_index[name] = len(self.tables)
        self.tables.append(())
        plan = _table_plan(self.c, name)
        rec = self.c.schema.table(name)
        slots = {fp.name: fp.slot for fp in plan.fields}
        fields = []
        for fp in plan.fields:
            if fp.deprecated:  # the reference leaves them out
                continue
            attrs = rec.field(fp.name).attributes
            if attrs.get("flatbuffers.offset64") or attrs.get("flexbuffer"):
                op, a, b = OP_GIVEUP, 0, 0
            else:
                op, a, b = self.table_field(fp)
                if op in (OP_UNION, OP_VEC_UNION):
                    b = slots[attrs["flatbuffers.union_type_field"]]
            has_default = 2 if fp.always else int(fp.scalar)
            fields.append((fp.name, fp.slot, op, a, b, has_default, fp.default))
        self.tables[index] = tuple(fields)
        return index

    def table_field(self, fp: _FieldPlan) -> tuple[int, int, int]:
        kind = fp.kind
        if kind == SCALAR:
            return OP_SCALAR, _CODES[_scalar_parts(self.c.schema, fp.type)[0]], 0
        if kind == STRING:
            return OP_STRING, 0, 0
        if kind == STRUCT:
            return OP_STRUCT, self.struct(fp.plan), 0
        if kind == TABLE:
            return OP_TABLE, self.table(fp.plan), 0
        if kind == NESTED:
            return OP_NESTED, self.table(fp.plan), 0
        if kind == UNION:
            return OP_UNION, self.union(fp.plan), 0
        if kind == VECTOR and fp.elem is not None:
            el = fp.elem
            if el.kind == SCALAR:
                return OP_VEC_SCALAR, _CODES[el.fmt], 0
            if el.kind == STRING:
                return OP_VEC_STRING, 0, 0
            if el.kind == STRUCT:
                return OP_VEC_STRUCT, self.struct(el.plan), 0
            if el.kind == TABLE:
                return OP_VEC_TABLE, self.table(el.plan.name), 0
            if el.kind == UNION:
                return OP_VEC_UNION, self.union(el.plan), 0
        return OP_GIVEUP, 0, 0

    def struct(self, plan: _StructPlan) -> int:
        index = self.struct_index.get(plan.name)
        if index is not None:
            return index
        index = self.struct_index[plan.name] = len(self.structs)
        self.structs.append(())
        fields: list[tuple[Any, ...]] = []
        for fp in plan.fields:
            if fp.kind == SCALAR:
                code = _CODES[_scalar_parts(self.c.schema, fp.type)[0]]
                fields.append((fp.name, fp.slot, SOP_SCALAR, code, 0))
            elif fp.kind == STRUCT:
                fields.append((fp.name, fp.slot, SOP_STRUCT, self.struct(fp.plan), 0))
            else:
                t = fp.type
                assert fp.kind == ARRAY and fp.elem is not None and isinstance(t, List)
                length = t.length
                if fp.elem.kind == SCALAR:
                    fields.append((fp.name, fp.slot, SOP_ARRAY_SCALAR, _CODES[fp.elem.fmt],
                                   length))
                else:
                    fields.append((fp.name, fp.slot, SOP_ARRAY_STRUCT,
                                   self.struct(fp.elem.plan), length))
        self.structs[index] = (plan.size, tuple(fields))
        return index

    def union(self, members: dict[int, tuple[int, Any]]) -> int:
        out = []
        for tag, (kind, plan) in members.items():
            if kind == STRING:
                out.append((tag, U_STRING, 0))
            elif kind == STRUCT:
                out.append((tag, U_STRUCT, self.struct(plan)))
            else:
                out.append((tag, U_TABLE, self.table(plan.name)))
        self.unions.append(tuple(out))
        return len(self.unions) - 1


def describe(schema: FbsSchema, root_type: str | None) -> tuple[Any, ...]:
    """The program (plain tuples) decoding root table ``root_type`` (None: the schema's)."""
    name = root_type if root_type is not None else schema.root
    if name is None:
        raise ValueError("the schema has no root_type")
    low = _Lowering(_compiled(schema))
    root = low.table(schema.qualify(name))
    return root, tuple(low.tables), tuple(low.structs), tuple(low.unions)


def program(schema: FbsSchema, root_type: str | None) -> Any:
    """The compiled program for ``root_type`` of ``schema`` (cached), or False: none (the
    reference decides, e.g. it raises for an unknown root type)."""
    c = _compiled(schema)
    prog = c.accel.get(root_type)
    if prog is None:
        try:
            prog = _accel.reader.compile(describe(schema, root_type))
        except Exception:  # anything at all: the reference decides
            prog = False
        c.accel[root_type] = prog
    return prog
