"""Random ``.fbs`` schemas and random values for them (shared by differential tests).

* ``random_schema(rnd) -> (fbs_text, root_name)``: a schema flatc 25.12.19 accepts (for
  ``-b``): enums (plain and ``bit_flags``), structs (nested, fixed arrays, ``force_align``,
  ``key``), tables with scalars of every type and defaults, optional scalars, strings
  (``shared``), structs, sub-tables, vectors of everything, unions of tables/structs/strings
  (single and vectors of unions), 64-bit offsets (``offset64`` strings and vectors,
  ``vector64``),
  ``deprecated``, ``id``, ``key``, ``required``, ``original_order``, ``force_align`` vectors.
* ``random_value(rnd, schema, root)``: a dict for table ``root`` of the loaded
  :class:`~gameserde.flatbuffers.FbsSchema` (keys in random order; enums as names or ints).
* ``to_json(rnd, value)``: flatc-dialect JSON text for such a value (unquoted/quoted keys,
  bare ``nan``/``inf``, hex integers, trailing commas).
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

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

INT_TYPES = {"byte": (8, True), "ubyte": (8, False), "short": (16, True),
             "ushort": (16, False), "int": (32, True), "uint": (32, False),
             "long": (64, True), "ulong": (64, False)}
SCALAR_TYPES = ["bool", *INT_TYPES, "float", "double"]
_SIZES = {"bool": 1, "byte": 1, "ubyte": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
          "long": 8, "ulong": 8, "float": 4, "double": 8}
_CHARS = "abcXYZ 019_-\"\\/\n\t\u00e9\u4e2d\U0001f600\x01"


def _int_range(t: str) -> tuple[int, int]:
    bits, signed = INT_TYPES[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _rand_int(rnd: random.Random, lo: int, hi: int) -> int:
    r = rnd.random()
    if r < 0.2:
        return rnd.choice([lo, hi, 0 if lo <= 0 <= hi else lo])
    if r < 0.6:
        return rnd.randint(max(lo, -3), min(hi, 3))
    return rnd.randint(lo, hi)


def _rand_float(rnd: random.Random, bits: int, finite: bool = False) -> float:
    r = rnd.random()
    if r < 0.1 and not finite:
        return rnd.choice([math.nan, math.inf, -math.inf])
    if r < 0.4:
        return float(rnd.randint(-5, 5))
    if r < 0.6:
        return rnd.choice([0.5, -0.25, 0.1, 3.14159, -0.0])
    return rnd.uniform(-1e6, 1e6) if bits == 32 else rnd.uniform(-1e300, 1e300)


def _float_text(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


class _Gen:
    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.out: list[str] = []
        self.enums: list[tuple[str, str, list[str], bool]] = []  # name, type, names, flags
        self.structs: list[str] = []
        self.struct_keys: set[str] = set()
        self.struct_has_key: dict[str, bool] = {}
        self.tables: list[str] = []
        self.unions: list[str] = []
        self.n = 0

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def enum(self) -> None:
        rnd = self.rnd
        flags = rnd.random() < 0.35
        name = self.name("E")
        if flags:
            t = rnd.choice(["ubyte", "ushort", "uint", "ulong"])
            bits = INT_TYPES[t][0]
            idx = rnd.sample(range(bits), rnd.randint(1, min(5, bits)))
            vals = [f"F{i}_{b} = {b}" for i, b in enumerate(idx)]
            names = [f"F{i}_{b}" for i, b in enumerate(idx)]
            self.out.append(f"enum {name} : {t} (bit_flags) {{ {', '.join(vals)} }}")
        else:
            t = rnd.choice(list(INT_TYPES))
            lo, hi = _int_range(t)
            k = rnd.randint(1, 5)
            start = rnd.randint(max(lo, -3), 0)
            values = sorted({0, *(start + i * rnd.randint(1, 2) for i in range(k))})
            values = [v for v in values if lo <= v <= hi]
            names = [f"V{i}" for i in range(len(values))]
            body = ", ".join(f"{n} = {v}" for n, v in zip(names, values, strict=True))
            self.out.append(f"enum {name} : {t} {{ {body} }}")
        self.enums.append((name, t, names, flags))

    def struct(self) -> None:
        rnd = self.rnd
        name = self.name("S")
        lines = []
        has_key = False
        for i in range(rnd.randint(1, 4)):
            r = rnd.random()
            fname = f"f{i}"
            attrs = ""
            if r < 0.15 and self.structs:
                t = rnd.choice(self.structs)
            elif r < 0.3:
                elem = rnd.choice(SCALAR_TYPES[1:] + (self.structs[:1] if self.structs else []))
                t = f"[{elem}:{rnd.randint(1, 3)}]"
            elif r < 0.4 and self.enums:
                t = rnd.choice(self.enums)[0]
            else:
                t = rnd.choice(SCALAR_TYPES)
                if not has_key and t not in ("bool",) and rnd.random() < 0.3:
                    attrs = " (key)"
                    has_key = True
            lines.append(f"{fname}:{t}{attrs};")
        fa = ""
        if rnd.random() < 0.15:
            nested = any(t in line for line in lines for t in self.structs)
            # force_align may not be below a nested struct's (possibly forced) alignment
            fa = f" (force_align: {32 if nested else rnd.choice([16, 32])})"
        self.out.append(f"struct {name}{fa} {{ {' '.join(lines)} }}")
        self.structs.append(name)
        self.struct_has_key[name] = has_key

    def union(self, tables: list[str]) -> None:
        rnd = self.rnd
        name = self.name("U")
        members = rnd.sample(tables, rnd.randint(1, min(3, len(tables))))
        parts = list(members)
        if self.structs and rnd.random() < 0.5:
            parts.append(f"St: {rnd.choice(self.structs)}")
        if rnd.random() < 0.4:
            parts.append("Str: string")
        self.out.append(f"union {name} {{ {', '.join(parts)} }}")
        self.unions.append(name)

    def field_type(self, tables: list[str]) -> tuple[str, str, bool]:
        """(type text, default/attrs text, is_union)"""
        rnd = self.rnd
        r = rnd.random()
        if r < 0.35:
            t = rnd.choice(SCALAR_TYPES)
            q = rnd.random()
            if q < 0.2:
                return t, " = null", False
            if q < 0.6:
                if t == "bool":
                    return t, f" = {rnd.choice(['true', 'false'])}", False
                if t in ("float", "double"):
                    d = _rand_float(rnd, 32 if t == "float" else 64)
                    return t, f" = {_float_text(d)}", False
                lo, hi = _int_range(t)
                return t, f" = {_rand_int(rnd, lo, hi)}", False
            return t, "", False
        if r < 0.45 and self.enums:
            name, _, names, flags = rnd.choice(self.enums)
            if flags:
                return name, rnd.choice(["", f" = {names[0]}"]), False
            return name, f" = {rnd.choice(names)}", False
        if r < 0.55:
            return "string", rnd.choice(["", " (shared)", " (required)", " (offset64)"]), False
        if r < 0.63 and self.structs:
            return rnd.choice(self.structs), "", False
        if r < 0.7:
            return rnd.choice(tables), "", False
        if r < 0.8 and self.unions:
            return rnd.choice(self.unions), "", True
        elem_r = rnd.random()
        if elem_r < 0.4:
            elem = rnd.choice(SCALAR_TYPES)
            attrs = rnd.choice(["", "", f" (force_align: {rnd.choice([8, 16])})",
                                " (offset64)", " (vector64)"])
        elif elem_r < 0.5 and self.enums:
            elem, attrs = rnd.choice(self.enums)[0], ""
        elif elem_r < 0.65:
            elem, attrs = "string", ""
        elif elem_r < 0.8 and self.structs:
            elem, attrs = rnd.choice(self.structs), rnd.choice(["", "", " (vector64)"])
        elif elem_r < 0.88 and self.unions:
            return f"[{rnd.choice(self.unions)}]", "", True  # a vector of unions
        else:
            elem, attrs = rnd.choice(tables), ""
        return f"[{elem}]", attrs, False

    def table(self, name: str, tables: list[str]) -> None:
        rnd = self.rnd
        fields: list[tuple[str, str, str, bool]] = []
        has_key = False
        for i in range(rnd.randint(0, 7)):
            t, extra, is_union = self.field_type(tables)
            if (not has_key and not is_union and rnd.random() < 0.25 and extra in ("", " (shared)")
                    and (t == "string" or t in SCALAR_TYPES[1:])):
                extra += " (key)" if not extra else ""
                has_key = True
            if extra == "" and rnd.random() < 0.1 and not is_union:
                extra = " (deprecated)"
            fields.append((f"f_{i}", t, extra, is_union))
        use_ids = fields and rnd.random() < 0.3
        ids: dict[str, int] = {}
        if use_ids:
            order = list(range(len(fields)))
            rnd.shuffle(order)
            nxt = 0
            for k in order:
                fname, _, _, is_union = fields[k]
                ids[fname] = nxt + (1 if is_union else 0)
                nxt += 2 if is_union else 1
        body = []
        for fname, t, extra, _ in fields:
            attrs = extra
            if use_ids:
                if attrs.endswith(")"):
                    attrs = attrs[:-1] + f", id: {ids[fname]})"
                else:
                    attrs = attrs + f" (id: {ids[fname]})"
            body.append(f"{fname}:{t}{attrs};")
        oo = " (original_order)" if rnd.random() < 0.2 else ""
        self.out.append(f"table {name}{oo} {{ {' '.join(body)} }}")


def random_schema(rnd: random.Random) -> tuple[str, str]:
    """A random valid schema (text) and its root table's name."""
    g = _Gen(rnd)
    for _ in range(rnd.randint(0, 3)):
        g.enum()
    for _ in range(rnd.randint(0, 3)):
        g.struct()
    tables = [f"T{i}" for i in range(rnd.randint(1, 4))]
    for _ in range(rnd.randint(0, 2)):
        g.union(tables)
    for t in tables:
        g.table(t, tables)
    root = tables[0]
    g.out.append(f"root_type {root};")
    if rnd.random() < 0.3:
        g.out.append('file_identifier "ABCD";')
    return "\n".join(g.out) + "\n", root


# ---------------------------------------------------------------------------------------------
# Values


def _scalar_value(rnd: random.Random, schema: FbsSchema, t: ModelType, finite: bool = False
                  ) -> Any:
    if isinstance(t, Optional):
        t = t.inner
    if isinstance(t, Ref):
        e = schema.types[t.name]
        assert isinstance(e, Enum)
        names = list(e.values)
        if e.bit_flags:
            r = rnd.random()
            if r < 0.4 and names:
                return " ".join(rnd.sample(names, rnd.randint(1, len(names))))
            if r < 0.6:
                return 0
            return sum(e.values[n] for n in names if rnd.random() < 0.5)
        if rnd.random() < 0.7:
            return rnd.choice(names)
        return rnd.choice(list(e.values.values()))
    if isinstance(t, Bool):
        return rnd.choice([True, False])
    if isinstance(t, Int):
        return _rand_int(rnd, t.min, t.max)
    if isinstance(t, Float):
        return _rand_float(rnd, t.bits, finite)
    raise AssertionError(t)


def _struct_value(rnd: random.Random, schema: FbsSchema, name: str) -> dict[str, Any]:
    rec = schema.types[name]
    assert isinstance(rec, Record)
    out: dict[str, Any] = {}
    for f in rec.fields:
        out[f.name] = _inline_value(rnd, schema, f.type, f.key)
    return out


def _inline_value(rnd: random.Random, schema: FbsSchema, t: ModelType, key: bool = False
                  ) -> Any:
    if isinstance(t, List):
        assert t.length is not None
        return [_inline_value(rnd, schema, t.element) for _ in range(t.length)]
    if isinstance(t, Ref) and isinstance(schema.types[t.name], Record):
        return _struct_value(rnd, schema, t.name)
    if key:
        # small key ranges make equal keys (flatc's unstable sort) likely
        if isinstance(t, Float):
            return float(rnd.randint(-2, 2))
        return rnd.randint(0, 3)
    return _scalar_value(rnd, schema, t)


def _string(rnd: random.Random, short: bool = False) -> str:
    if short:
        return rnd.choice(["", "a", "b", "ab", "ba", "c"])
    return "".join(rnd.choice(_CHARS) for _ in range(rnd.randint(0, 8)))


def random_value(rnd: random.Random, schema: FbsSchema, root: str, depth: int = 0
                 ) -> dict[str, Any]:
    """A random value for table ``root`` (a dict whose keys are in random order)."""
    rec = schema.table(root)
    out: dict[str, Any] = {}
    for f in rec.fields:
        a = f.attributes
        if "flatbuffers.union_type_of" in a:
            continue
        if not (f.required or rnd.random() < (0.7 if depth < 2 else 0.3)):
            continue
        t = f.type
        if "flatbuffers.union_type_field" in a and isinstance(t, List):
            pair = _union_vector_value(rnd, schema, t, depth)
            if pair is None:
                continue
            tags, vals = pair
            tf = a["flatbuffers.union_type_field"]
            if rnd.random() < 0.9:  # flatc needs the type vector first (else it fails)
                out[tf] = tags
                out[f.name] = vals
            else:
                out[f.name] = vals
                out[tf] = tags
            continue
        if "flatbuffers.union_type_field" in a:
            assert isinstance(t, Ref)
            u = schema.types[t.name]
            assert isinstance(u, Union)
            mname, (tag, mt) = rnd.choice(list(u.members.items()))
            if depth >= 3 and isinstance(mt, Ref) and schema.types[mt.name].__class__ is Record \
                    and getattr(schema.types[mt.name], "kind", "") == "table":
                continue
            tf = a["flatbuffers.union_type_field"]
            tag_v: Any = rnd.choice([mname, tag])
            if isinstance(mt, String):
                val: Any = _string(rnd)
            else:
                assert isinstance(mt, Ref)
                named = schema.types[mt.name]
                assert isinstance(named, Record)
                val = (_struct_value(rnd, schema, mt.name) if named.kind == "struct"
                       else random_value(rnd, schema, mt.name, depth + 1))
            if rnd.random() < 0.7:
                out[tf] = tag_v
                out[f.name] = val
            else:
                out[f.name] = val
                out[tf] = tag_v
            continue
        value = _field_value(rnd, schema, t, f.key, depth)
        if value is _SKIP:
            continue
        out[f.name] = value
    items = list(out.items())
    if rnd.random() < 0.5:
        # keep union pairs adjacent is not needed: flatc looks the type up either way
        # (except for vectors of unions, whose type vector must come first: mostly kept)
        rnd.shuffle(items)
    return dict(items)


def _union_vector_value(rnd: random.Random, schema: FbsSchema, t: List, depth: int
                        ) -> tuple[list[Any], list[Any]] | None:
    """(type vector, value vector) for a vector of unions, or None to leave it out."""
    el = t.element
    assert isinstance(el, Ref)
    u = schema.types[el.name]
    assert isinstance(u, Union)
    members = list(u.members.items())
    if depth >= 3:
        members = [m for m in members if not _is_table(schema, m[1][1])]
    n = rnd.randint(0, 4 if depth < 2 else 2) if members else 0
    if depth >= 3 and n == 0 and rnd.random() < 0.5:
        return None
    tags: list[Any] = []
    vals: list[Any] = []
    for _ in range(n):
        mname, (tag, mt) = rnd.choice(members)
        tags.append(rnd.choice([mname, tag]))
        if isinstance(mt, String):
            vals.append(_string(rnd))
        else:
            assert isinstance(mt, Ref)
            named = schema.types[mt.name]
            assert isinstance(named, Record)
            vals.append(_struct_value(rnd, schema, mt.name) if named.kind == "struct"
                        else random_value(rnd, schema, mt.name, depth + 1))
    return tags, vals


def _is_table(schema: FbsSchema, t: ModelType) -> bool:
    if not isinstance(t, Ref):
        return False
    named = schema.types[t.name]
    return isinstance(named, Record) and named.kind == "table"


_SKIP: Any = object()


def _field_value(rnd: random.Random, schema: FbsSchema, t: ModelType, key: bool, depth: int
                 ) -> Any:
    if isinstance(t, String):
        return _string(rnd, short=key)
    if isinstance(t, (Optional, Int, Float, Bool)):
        if key:
            inner = t.inner if isinstance(t, Optional) else t
            return float(rnd.randint(-2, 2)) if isinstance(inner, Float) else rnd.randint(0, 3)
        return _scalar_value(rnd, schema, t)
    if isinstance(t, Ref):
        named = schema.types[t.name]
        if isinstance(named, Enum):
            return _scalar_value(rnd, schema, t)
        assert isinstance(named, Record)
        if named.kind == "struct":
            return _struct_value(rnd, schema, t.name)
        if depth >= 3:
            return _SKIP
        return random_value(rnd, schema, t.name, depth + 1)
    if isinstance(t, List):
        n = rnd.randint(0, 5 if depth < 2 else 2)
        el = t.element
        if isinstance(el, String):
            return [_string(rnd) for _ in range(n)]
        if isinstance(el, Ref):
            named = schema.types[el.name]
            if isinstance(named, Record):
                if named.kind == "struct":
                    return [_struct_value(rnd, schema, el.name) for _ in range(n)]
                if depth >= 3:
                    return _SKIP
                return [random_value(rnd, schema, el.name, depth + 1) for _ in range(n)]
        return [_scalar_value(rnd, schema, el, finite=False) for _ in range(n)]
    raise AssertionError(t)


# ---------------------------------------------------------------------------------------------
# JSON text


def to_json(rnd: random.Random, value: Any) -> str:
    """``value`` as flatc-dialect JSON text (random but equivalent spellings)."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            key = k if rnd.random() < 0.5 else json.dumps(k)
            parts.append(f"{key}: {to_json(rnd, v)}")
        trail = "," if parts and rnd.random() < 0.2 else ""
        return "{" + ", ".join(parts) + trail + "}"
    if isinstance(value, list):
        trail = "," if value and rnd.random() < 0.2 else ""
        return "[" + ", ".join(to_json(rnd, v) for v in value) + trail + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        r = rnd.random()
        if r < 0.1 and value >= 0:
            return hex(value)
        if r < 0.2:
            return json.dumps(str(value))
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return json.dumps(value)
    raise AssertionError(value)
