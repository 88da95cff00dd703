"""Bean encoding as Zeze's generated Java ``encode`` does it (spec §2.6), the reference path.

A field is written when it is not its zero value (the XML ``default=`` plays no part): bool
when true, numbers when ``!= 0`` (so -0.0 is left out and NaN written), text and bytes when
not empty, containers when not empty, a nested bean unless its body is the single byte
``00``, a dynamic unless it is the EmptyBean, a vector when a component is ``!= 0``. Inside
containers every element is written in full. A derived bean writes its own fields, ``01``,
then its base's body; the root layer ends with its kept unknown fields (merged by id as Java
merges them) and ``00``.
"""

from __future__ import annotations

import dataclasses
import decimal
from collections.abc import Mapping
from typing import Any

from gameserde.errors import EncodeError
from gameserde.zeze._plan import BeanPlan, FieldPlan, Plans, TypePlan
from gameserde.zeze._show import map_key_step, map_value_step, shown, with_article
from gameserde.zeze.bytebuffer import Writer, uint_bytes
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic, UnknownField

_INT_RANGES = {8: (-(1 << 7), 1 << 7), 16: (-(1 << 15), 1 << 15),
               32: (-(1 << 31), 1 << 31), 64: (-(1 << 63), 1 << 63)}


def fail(message: str) -> EncodeError:
    return EncodeError(message, format="zeze")


def java_decimal_text(value: Any) -> str:
    """``BigDecimal.toString()`` of ``value`` (Python's ``str(Decimal)`` follows the same
    scientific-notation rule)."""
    if isinstance(value, int | str) and not isinstance(value, bool):
        value = decimal.Decimal(value)
    if not isinstance(value, decimal.Decimal) or not value.is_finite():
        raise fail(f"a decimal must be a finite decimal.Decimal, not {shown(value)}")
    return str(value)


class Encoder:
    """Writes beans of one schema's plans."""

    def __init__(self, plans: Plans, max_depth: int) -> None:
        self.plans = plans
        self.max_depth = max_depth

    # -- beans -----------------------------------------------------------------------------

    def bean(self, plan: BeanPlan, value: Any, w: Writer, depth: int) -> None:
        if depth > self.max_depth:
            raise fail(f"beans are nested more than {self.max_depth} deep")
        get, unknown = self._accessor(plan, value)
        last_layer = len(plan.layers) - 1
        for index, layer in enumerate(plan.layers):
            root = index == last_layer
            pending = unknown if root and plan.keeps_unknown else []
            last = previous = u = 0
            for f in layer:
                if pending and f.id - previous > 1:
                    while u < len(pending) and pending[u].id < f.id:
                        last = _write_unknown(w, last, pending[u])
                        u += 1
                previous = f.id
                try:
                    last = self.field(f, get(f), last, w, depth)
                except EncodeError as e:
                    e.add_parent(f".{f.name}")
                    raise
            if root:
                for field in pending[u:]:
                    last = _write_unknown(w, last, field)
                w.write_byte(0)
            else:
                w.write_byte(1)

    def _accessor(self, plan: BeanPlan, value: Any) -> tuple[Any, list[UnknownField]]:
        if isinstance(value, Mapping):
            extra = [k for k in value if k not in plan.fields and k != UNKNOWN_KEY
                     and k not in plan.transient]
            if extra:
                raise fail(f"{plan.name} has no field {shown(extra[0])}")
            unknown = _unknown_fields(value.get(UNKNOWN_KEY) or ())

            def get(f: FieldPlan) -> Any:
                return value.get(f.name, f.default)
            return get, unknown
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            def get_attribute(f: FieldPlan) -> Any:
                return getattr(value, f.name, f.default)
            return get_attribute, []
        raise fail(f"a {plan.name} bean must be a dict or a dataclass instance, not "
                   f"{type(value).__name__}")

    # -- fields: left out when zero --------------------------------------------------------

    def field(self, f: FieldPlan, v: Any, last: int, w: Writer, depth: int) -> int:
        t = f.type
        kind = t.kind
        if kind == "bean":
            mark = len(w.buf)
            w.write_tag(last, f.id, t.wire)
            body = len(w.buf)
            assert t.bean is not None
            self.bean(self.plans.bean(t.bean), v, w, depth + 1)
            if len(w.buf) - body == 1:
                del w.buf[mark:]
                return last
            return f.id
        if kind == "dynamic":
            type_id, plan, value = self._dynamic(t, v)
            if type_id == 0 and plan is None:
                return last
            last = w.write_tag(last, f.id, t.wire)
            w.write_long(type_id)
            self._dynamic_body(plan, value, w, depth)
            return last
        if kind in ("list", "set", "map"):
            items = self._items(t, v)
            if not items:
                return last
            last = w.write_tag(last, f.id, t.wire)
            self._container(t, items, w, depth)
            return last
        if kind == "decimal" or _present(t, v):
            last = w.write_tag(last, f.id, t.wire)
            self.element(t, v, w, depth)
        return last

    # -- elements: always written ----------------------------------------------------------

    def element(self, t: TypePlan, v: Any, w: Writer, depth: int) -> None:
        kind = t.kind
        if kind == "bool":
            w.write_bool(_bool(v))
        elif kind == "int":
            w.write_long(_int(v, t.bits, t.name))
        elif kind == "float":
            w.write_float(_number(v))
        elif kind == "double":
            w.write_double(_number(v))
        elif kind == "string":
            if not isinstance(v, str):
                raise fail(f"a string must be a str, not {type(v).__name__}")
            w.write_string(v)
        elif kind == "binary":
            w.write_bytes(_bytes(v))
        elif kind == "decimal":
            w.write_string(java_decimal_text(v))
        elif kind == "vector":
            w.write_floats([_number(c) for c in _components(v, t)])
        elif kind == "vectorint":
            w.write_ints([_int(c, 32, "int") for c in _components(v, t)])
        elif kind == "bean":
            assert t.bean is not None
            self.bean(self.plans.bean(t.bean), v, w, depth + 1)
        elif kind == "dynamic":
            type_id, plan, value = self._dynamic(t, v)
            w.write_long(type_id)
            self._dynamic_body(plan, value, w, depth)
        else:
            raise fail(f"{t.name} cannot be a list element, set element or map key")

    def _container(self, t: TypePlan, items: Any, w: Writer, depth: int) -> None:
        if t.kind == "map":
            assert t.key is not None and t.value is not None
            w.write_map_header(len(items), t.key.wire, t.value.wire)
            for index, (k, v) in enumerate(items):
                try:
                    self.element(t.key, k, w, depth)
                except EncodeError as e:
                    e.add_parent(map_key_step(index))
                    raise
                try:
                    self.element(t.value, v, w, depth)
                except EncodeError as e:
                    e.add_parent(map_value_step(k, index))
                    raise
            return
        assert t.element is not None
        w.write_list_header(len(items), t.element.wire)
        for i, v in enumerate(items):
            try:
                self.element(t.element, v, w, depth)
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise

    def _items(self, t: TypePlan, v: Any) -> Any:
        if t.kind == "map":
            if not isinstance(v, Mapping):
                raise fail(f"a map must be a dict, not {type(v).__name__}")
            return list(v.items())
        if isinstance(v, str | bytes | Mapping) or not hasattr(v, "__iter__"):
            raise fail(f"a {t.kind} must be a list, tuple or set, not {type(v).__name__}")
        items = list(v)
        if t.kind == "set" and len(items) > 1:
            try:
                items = list(dict.fromkeys(items))
            except TypeError as e:
                raise fail(f"a set element is not hashable: {e}") from None
        return items

    def _dynamic(self, t: TypePlan, v: Any) -> tuple[int, BeanPlan | None, Any]:
        dyn = t.dynamic
        assert dyn is not None
        if v is None:
            return 0, None, None
        if isinstance(v, Dynamic):
            bean, value, type_id = v
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            names = [n for n, cls in self.plans.schema.classes.items() if type(v) is cls]
            if not names:
                raise fail(f"{type(v).__name__} is not a bean of the schema")
            bean, value, type_id = names[0], v, None
        else:
            raise fail(f"a dynamic must be a gameserde.zeze.Dynamic, a bean dataclass "
                       f"instance or None, not {type(v).__name__}")
        if bean is None:
            if type_id not in (None, 0) or value not in (None, {}):
                raise fail("a Dynamic without a bean is the EmptyBean: TypeId 0, no value")
            return 0, None, None
        full = self._member(dyn.by_bean, bean, dyn.name)
        expected = dyn.by_bean[full]
        if type_id is not None and type_id != expected:
            raise fail(f"{full} has the TypeId {expected} in {dyn.name}, not {shown(type_id)}")
        return expected, self.plans.bean(full), value

    @staticmethod
    def _member(by_bean: Mapping[str, int], bean: str, where: str) -> str:
        if bean in by_bean:
            return bean
        hits = [b for b in by_bean if b.endswith("." + bean)]
        if len(hits) != 1:
            raise fail(f"{bean!r} is not one of the beans of {where}: "
                       f"{', '.join(by_bean) or 'none'}")
        return hits[0]

    def _dynamic_body(self, plan: BeanPlan | None, value: Any, w: Writer, depth: int) -> None:
        if plan is None:
            w.write_byte(0)
        else:
            self.bean(plan, {} if value is None else value, w, depth + 1)


def _present(t: TypePlan, v: Any) -> bool:
    """Whether a field of ``t`` holding ``v`` is written (checking ``v``'s type)."""
    kind = t.kind
    if kind == "bool":
        return _bool(v)
    if kind == "int":
        return _int(v, t.bits, t.name) != 0
    if kind in ("float", "double"):
        return _number(v) != 0
    if kind == "string":
        if not isinstance(v, str):
            raise fail(f"a string must be a str, not {type(v).__name__}")
        return v != ""
    if kind == "binary":
        return len(_bytes(v)) != 0
    if kind == "vector":
        return any(_number(c) != 0 for c in _components(v, t))
    if kind == "vectorint":
        return any(_int(c, 32, "int") != 0 for c in _components(v, t))
    raise fail(f"cannot encode a {t.name} field")


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise fail(f"a bool must be True or False, not {shown(v)}")
    return v


def _int(v: Any, bits: int, name: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise fail(f"{name} must be an int, not {type(v).__name__}")
    low, high = _INT_RANGES[bits]
    if not low <= v < high:
        raise fail(f"{shown(v)} does not fit {with_article(name)} ({bits}-bit signed)")
    return v


def _number(v: Any) -> float:
    if isinstance(v, float):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:
            raise fail(f"{shown(v)} is too large for a float") from None
    raise fail(f"a float must be a float or an int, not {type(v).__name__}")


def _bytes(v: Any) -> bytes | bytearray | memoryview:
    if isinstance(v, bytes | bytearray | memoryview):
        return v
    raise fail(f"a binary must be bytes, not {type(v).__name__}")


def _components(v: Any, t: TypePlan) -> tuple[Any, ...]:
    if not isinstance(v, tuple | list) or len(v) != t.bits:
        raise fail(f"{t.name} must be a tuple of {t.bits} numbers, not {shown(v)}")
    return tuple(v)


def _unknown_fields(value: Any) -> list[UnknownField]:
    fields = []
    for item in value:
        if not (isinstance(item, tuple | list) and len(item) == 3
                and isinstance(item[0], int) and isinstance(item[1], int)
                and 0 <= item[1] <= 15 and isinstance(item[2], bytes | bytearray)):
            raise fail(f"{UNKNOWN_KEY} holds UnknownField(id, wire_type, data) values, "
                       f"not {shown(item)}")
        fields.append(UnknownField(_int(item[0], 32, "field id"), item[1], bytes(item[2])))
    return sorted(fields, key=lambda f: f.id)


def _write_unknown(w: Writer, last: int, field: UnknownField) -> int:
    """Java ``writeUnknownField``: the tag from the running id (a zero or negative delta
    written as Java's byte arithmetic writes it), then the kept bytes."""
    delta = (field.id - last) & 0xFFFFFFFF
    delta = delta - (1 << 32) if delta >> 31 else delta
    if delta < 15:
        w.write_byte((delta << 4) + field.wire_type)
    else:
        w.write_byte(0xF0 + field.wire_type)
        w.write_raw(uint_bytes(delta - 15))
    w.write_raw(field.data)
    return field.id
