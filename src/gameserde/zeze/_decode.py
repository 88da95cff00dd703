"""Bean decoding as Zeze's generated Java ``decode`` does it (spec §3), the reference path.

Fields are matched by id in one pass, as Gen's code does: unknown ids before a known field
are kept (in the root layer of a bean, as Java keeps them) or skipped, a field is read with
Java's conversions from whatever wire type its tag carries (:mod:`._convert`), absent fields
get their zero value, and an incompatible wire type raises :class:`DecodeError` where Java
throws. ``01`` continues with the base's layer, or, in a bean without ``base=``, skips the
rest of the bean. Nesting deeper than ``max_depth`` raises :class:`DecodeError` (Java has no
limit and overflows its stack), and so do absent fields whose default values (counted by
:attr:`FieldPlan.cost`) would take the decode past its ``max_expansion`` budget.
"""

from __future__ import annotations

import dataclasses
import decimal
import re
import warnings
from typing import Any

from gameserde._expansion import exceeded
from gameserde.errors import DecodeError, GameserdeWarning
from gameserde.zeze import bytebuffer as bb
from gameserde.zeze._convert import float_to_int, int_to_float32, to_float32, wrap
from gameserde.zeze._plan import BeanPlan, FieldPlan, Plans, TypePlan
from gameserde.zeze._show import map_key_step, map_value_step
from gameserde.zeze.bytebuffer import Reader
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic, FrozenBean, UnknownField

_JAVA_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class Budget:
    """How many default values a decode may still build: ``limit`` (from ``max_expansion``
    for a ``size``-byte input) less what it built."""

    def __init__(self, limit: int, size: int, factor: float | None) -> None:
        self.limit = limit
        self.left = limit
        self.size = size
        self.factor = factor

    def spend(self, absent: list[FieldPlan], plan: BeanPlan, r: Reader, start: int) -> None:
        """Charge the defaults of the ``absent`` fields of the ``plan`` bean at ``start``."""
        self.left -= sum(f.cost for f in absent)
        if self.left < 0:
            what = (f"the fields this {plan.name} bean leaves out would take the default "
                    "values the decode builds past its limit")
            raise r.fail(exceeded(what, self.limit, self.size, self.factor), start)


class Decoder:
    """Reads beans of one schema's plans; ``classes`` makes dataclass instances where the
    schema has them."""

    def __init__(self, plans: Plans, max_depth: int, classes: bool, budget: Budget) -> None:
        self.plans = plans
        self.max_depth = max_depth
        self.classes = classes
        self.budget = budget

    def bean(self, plan: BeanPlan, r: Reader, depth: int) -> Any:
        if depth > self.max_depth:
            raise r.fail(f"beans are nested more than {self.max_depth} deep")
        start = r.pos
        out: dict[str, Any] = {}
        kept: list[UnknownField] = []
        last_layer = len(plan.layers) - 1
        for index, layer in enumerate(plan.layers):
            keep = kept if index == last_layer and plan.keeps_unknown else None
            t = r.read_byte()
            i = r.read_tag_size(t)
            for f in layer:
                while t > 1 and i < f.id:
                    self._unknown(i, t, r, keep, plan, depth)
                    t = r.read_byte()
                    i = wrap(i + r.read_tag_size(t), 32)
                if i == f.id:
                    try:
                        out[f.name] = self.value(f.type, t, r, depth)
                    except DecodeError as e:
                        e.add_parent(f".{f.name}")
                        raise
                    t = r.read_byte()
                    i = wrap(i + r.read_tag_size(t), 32)
            while t > 1:
                self._unknown(i, t, r, keep, plan, depth)
                t = r.read_byte()
                i = wrap(i + r.read_tag_size(t), 32)
            if t == 0:
                break
            if index == last_layer:
                end_tag = r.pos - 1
                r.skip_bean(depth)
                if r.pos - end_tag > 2:
                    _skipped(f"what follows a layer end (01) in {plan.name}, which has no "
                             "further layer", end_tag + 1, r.pos - 1)
                break
        absent = [f for layer in plan.layers for f in layer if f.name not in out]
        if absent:
            self.budget.spend(absent, plan, r, start)
        result = {f.name: out[f.name] if f.name in out else self._absent(f.type)
                  for layer in reversed(plan.layers) for f in layer}
        if self.classes and plan.cls is not None:
            if kept:
                warnings.warn(f"{len(kept)} unknown field{'s' * (len(kept) != 1)} of the "
                              f"{plan.name} bean at byte {start} (0x{start:x}) dropped: a "
                              "dataclass has nowhere to keep them (decode with classes=False "
                              "to keep them)", GameserdeWarning, stacklevel=2)
            for layer in plan.layers:
                for f in layer:
                    if f.type.kind == "set":
                        result[f.name] = set(result[f.name])
            return plan.cls(**result)
        if kept:
            result[UNKNOWN_KEY] = kept
        return result

    def _absent(self, t: TypePlan) -> Any:
        """An absent field's value: as Java's constructor makes it (a bean of a dataclass
        schema as an instance)."""
        value = self.plans.constructed(t)
        return self._instances(t, value) if self.classes and t.kind == "bean" else value

    def _instances(self, t: TypePlan, value: Any) -> Any:
        if t.kind != "bean":
            return set(value) if t.kind == "set" else value
        assert t.bean is not None
        plan = self.plans.bean(t.bean)
        if plan.cls is None:
            return value
        return plan.cls(**{f.name: self._instances(f.type, value[f.name])
                           for layer in plan.layers for f in layer})

    def _unknown(self, i: int, t: int, r: Reader, keep: list[UnknownField] | None,
                 plan: BeanPlan, depth: int) -> None:
        start = r.pos
        r.skip_field(t, depth)
        if keep is not None:
            keep.append(UnknownField(i, t & 0xF, r.data[start:r.pos]))
        else:
            _skipped(f"field {i} ({bb.WIRE_TYPE_NAMES[t & 0xF]}), which {plan.name} does not "
                     "declare in that layer and does not keep", start, r.pos)

    # -- values, converted from the wire type as Java converts ------------------------------

    def value(self, t: TypePlan, tag: int, r: Reader, depth: int) -> Any:
        wire = tag & 0xF
        kind = t.kind
        if kind == "int":
            if wire == bb.INTEGER:
                v = r.read_long()
                return v if t.bits == 64 else wrap(v, t.bits)
            if wire == bb.FLOAT:
                return float_to_int(r.read_float(), t.bits)
            if wire == bb.DOUBLE:
                return float_to_int(r.read_double(), t.bits)
        elif kind == "bool":
            if wire == bb.INTEGER:
                return r.read_long() != 0
            if wire == bb.FLOAT:
                return r.read_float() != 0
            if wire == bb.DOUBLE:
                return r.read_double() != 0
        elif kind == "float":
            if wire == bb.FLOAT:
                return r.read_float()
            if wire == bb.DOUBLE:
                return to_float32(r.read_double())
            if wire == bb.INTEGER:
                return int_to_float32(r.read_long())
        elif kind == "double":
            if wire == bb.DOUBLE:
                return r.read_double()
            if wire == bb.FLOAT:
                return r.read_float()
            if wire == bb.INTEGER:
                return float(r.read_long())
        elif wire == bb.BYTES and kind in ("string", "binary", "decimal"):
            if kind == "binary":
                return r.read_bytes()
            start = r.pos
            text = r.read_string()
            return text if kind == "string" else _decimal(text, r, start)
        elif kind in ("list", "set") and wire == bb.LIST:
            return self._list(t, r, depth)
        elif kind == "map" and wire == bb.MAP:
            return self._map(t, r, depth)
        elif kind == "bean" and wire in (bb.BEAN, bb.DYNAMIC):
            if wire == bb.DYNAMIC:
                start = r.pos
                r.skip_long()
                _skipped(f"the TypeId of a dynamic bean read as the bean {t.bean}", start,
                         r.pos)
            assert t.bean is not None
            return self.bean(self.plans.bean(t.bean), r, depth + 1)
        elif kind == "dynamic" and wire in (bb.BEAN, bb.DYNAMIC):
            return self._dynamic(t, wire, r, depth)
        elif kind == "vector":
            comps = self._vector_floats(wire, r)
            if comps is not None:
                return (comps + (0.0,) * t.bits)[:t.bits]
        elif kind == "vectorint":
            ints = self._vector_ints(wire, r)
            if ints is not None:
                return (ints + (0,) * t.bits)[:t.bits]
        raise r.fail(f"{t.name} cannot be read from wire type {bb.WIRE_TYPE_NAMES[wire]}")

    def _list(self, t: TypePlan, r: Reader, depth: int) -> Any:
        if depth >= self.max_depth:
            raise r.fail(f"values are nested more than {self.max_depth} deep")
        assert t.element is not None
        header = r.read_byte()
        items = []
        for index in range(r.read_list_count(header)):
            try:
                items.append(self.value(t.element, header, r, depth + 1))
            except DecodeError as e:
                e.add_parent(f"[{index}]")
                raise
        if t.kind == "set":
            return list(dict.fromkeys(_key(v) for v in items))
        return items

    def _map(self, t: TypePlan, r: Reader, depth: int) -> dict[Any, Any]:
        if depth >= self.max_depth:
            raise r.fail(f"values are nested more than {self.max_depth} deep")
        assert t.key is not None and t.value is not None
        types = r.read_byte()
        out: dict[Any, Any] = {}
        for index in range(max(r.read_uint(), 0)):
            try:
                key = _key(self.value(t.key, types >> 4, r, depth + 1))
            except DecodeError as e:
                e.add_parent(map_key_step(index))
                raise
            try:
                out[key] = self.value(t.value, types, r, depth + 1)
            except DecodeError as e:
                e.add_parent(map_value_step(key, index))
                raise
        return out

    def _dynamic(self, t: TypePlan, wire: int, r: Reader, depth: int) -> Dynamic:
        dyn = t.dynamic
        assert dyn is not None
        start = r.pos
        type_id = r.read_long() if wire == bb.DYNAMIC else 0
        if type_id == 0:
            body = r.pos
            r.skip_bean(depth + 1)
            if r.pos - body > 1:
                what = "TypeId 0 (the EmptyBean)" if wire == bb.DYNAMIC else "a bean"
                _skipped(f"the body of {what} read as the dynamic {dyn.name}", body, r.pos)
            return Dynamic(None, {}, 0)
        bean = dyn.by_type_id.get(type_id)
        if bean is None:
            raise r.fail(f"the dynamic {dyn.name} has no bean with TypeId {type_id}", start)
        return Dynamic(bean, self.bean(self.plans.bean(bean), r, depth + 1), type_id)

    @staticmethod
    def _vector_floats(wire: int, r: Reader) -> tuple[float, ...] | None:
        if wire in (bb.VECTOR2, bb.VECTOR3, bb.VECTOR4):
            return r.read_floats({bb.VECTOR2: 2, bb.VECTOR3: 3, bb.VECTOR4: 4}[wire])
        if wire in (bb.VECTOR2INT, bb.VECTOR3INT):
            return tuple(int_to_float32(c) for c in r.read_ints(2 if wire == bb.VECTOR2INT
                                                                else 3))
        if wire == bb.FLOAT:
            return (r.read_float(),)
        if wire == bb.DOUBLE:
            return (to_float32(r.read_double()),)
        if wire == bb.INTEGER:
            return (int_to_float32(r.read_long()),)
        return None

    @staticmethod
    def _vector_ints(wire: int, r: Reader) -> tuple[int, ...] | None:
        if wire in (bb.VECTOR2INT, bb.VECTOR3INT):
            return r.read_ints(2 if wire == bb.VECTOR2INT else 3)
        if wire in (bb.VECTOR2, bb.VECTOR3, bb.VECTOR4):
            n = {bb.VECTOR2: 2, bb.VECTOR3: 3, bb.VECTOR4: 4}[wire]
            return tuple(float_to_int(c, 32) for c in r.read_floats(n))
        if wire == bb.INTEGER:
            return (r.read_int(),)
        if wire == bb.FLOAT:
            return (float_to_int(r.read_float(), 32),)
        if wire == bb.DOUBLE:
            return (float_to_int(r.read_double(), 32),)
        return None


def _skipped(what: str, start: int, end: int) -> None:
    """Warn that the bytes from ``start`` to ``end`` (``what``) are read past, not kept."""
    size = end - start
    warnings.warn(f"{what}: {size} byte{'s' * (size != 1)} at byte {start} (0x{start:x}) "
                  "skipped, as Java's decode skips them (not written back)",
                  GameserdeWarning, stacklevel=2)


def _key(value: Any) -> Any:
    """A decoded value as a dict key or set element: a beankey dict, or an instance of an
    unhashable dataclass (one not ``frozen``), becomes a :class:`FrozenBean`."""
    if isinstance(value, dict):
        return FrozenBean(value)
    if type(value).__hash__ is None and dataclasses.is_dataclass(value):
        return FrozenBean({f.name: _key(getattr(value, f.name))
                           for f in dataclasses.fields(value)})
    return value


def _decimal(text: str, r: Reader, start: int) -> decimal.Decimal:
    if not _JAVA_DECIMAL.fullmatch(text):
        raise r.fail(f"{text[:40]!r} is not a decimal number (Java's BigDecimal rejects it)",
                     start)
    return decimal.Decimal(text)
