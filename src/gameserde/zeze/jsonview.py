"""Zeze beans as JSON, directed by the schema, losing nothing that the wire holds.

=====================  ===================================================================
Zeze type              JSON
=====================  ===================================================================
bean, beankey          an object of every field, in declaration order (base fields first);
                       kept unknown fields under ``"$unknown"``: ``[[id, wire type, hex]]``
bool, integers         true/false, numbers
float, double          numbers; ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` as strings
string, decimal        strings (a decimal in Java's ``BigDecimal`` text)
binary                 a base64 string
vector types           arrays of 2, 3 or 4 numbers
list, set              arrays
map                    an object when keys are strings, integers, bools, binary or decimal
                       (keys as their JSON text: ``"7"``, ``"true"``, base64); an array of
                       ``[key, value]`` pairs when keys are vectors or beankeys
dynamic                ``{"bean": full name or null, "typeId": n, "value": {...}}``
                       (``typeId`` may be left out in input: the schema gives it)
=====================  ===================================================================

``from_json(to_json(x))`` gives back an equal value, which encodes to the same bytes.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import math
from collections.abc import Mapping
from typing import Any

from gameserde import _jsonio
from gameserde._recursion import recursion_room
from gameserde.errors import EncodeError, path_key
from gameserde.zeze._encode import java_decimal_text
from gameserde.zeze._plan import BeanPlan, Plans, TypePlan, plans_of
from gameserde.zeze._show import map_key_step, map_value_step, shown, with_article
from gameserde.zeze.codec import MAX_DEPTH
from gameserde.zeze.schema import ZezeSchema
from gameserde.zeze.values import UNKNOWN_KEY, Dynamic, FrozenBean, UnknownField

__all__ = ["from_json", "from_jsonable", "to_json", "to_jsonable"]

_OBJECT_KEYS = ("string", "int", "bool", "binary", "decimal")
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _bean_plan(schema: ZezeSchema, bean: str) -> BeanPlan:
    return plans_of(schema).bean(schema.bean(bean).name)


def to_jsonable(schema: ZezeSchema, bean: str, value: Any, *,
                max_depth: int = MAX_DEPTH) -> Any:
    """``value`` (a bean ``bean`` as :func:`~gameserde.zeze.decode` gives it) as JSON
    values."""
    with recursion_room(4 * max_depth + 100):
        return _Out(plans_of(schema), max_depth).bean(_bean_plan(schema, bean), value, 0)


def to_json(schema: ZezeSchema, bean: str, value: Any, *, pretty: bool = False,
            max_depth: int = MAX_DEPTH) -> str:
    """``value`` as JSON text: compact, or indented by 2 when ``pretty``."""
    doc = to_jsonable(schema, bean, value, max_depth=max_depth)
    return _jsonio.dumps(doc, pretty=pretty).decode("utf-8").rstrip("\n")


def from_jsonable(schema: ZezeSchema, bean: str, doc: Any, *,
                  max_depth: int = MAX_DEPTH) -> Any:
    """The bean value JSON values ``doc`` stand for; raises :class:`EncodeError` (``zeze
    encode error in PATH: ...``) with the path of what does not fit the schema."""
    with recursion_room(4 * max_depth + 100):
        return _In(plans_of(schema), max_depth).bean(_bean_plan(schema, bean), doc, 0)


def from_json(schema: ZezeSchema, bean: str, text: str | bytes, *,
              max_depth: int = MAX_DEPTH) -> Any:
    """The bean value of JSON text (see the module's table)."""
    return from_jsonable(schema, bean, _jsonio.loads(text), max_depth=max_depth)


class _Out:
    def __init__(self, plans: Plans, max_depth: int) -> None:
        self.plans = plans
        self.max_depth = max_depth

    def bean(self, plan: BeanPlan, value: Any, depth: int) -> dict[str, Any]:
        if depth > self.max_depth:
            raise EncodeError(f"beans are nested more than {self.max_depth} deep",
                              format="zeze")
        def get(name: str, default: Any) -> Any:
            if isinstance(value, Mapping):
                return value.get(name, default)
            return getattr(value, name, default)

        out: dict[str, Any] = {}
        for layer in reversed(plan.layers):
            for f in layer:
                try:
                    out[f.name] = self.value(f.type, get(f.name, f.default), depth)
                except EncodeError as e:
                    e.add_parent(f".{f.name}")
                    raise
        unknown = get(UNKNOWN_KEY, None)
        if unknown:
            out[UNKNOWN_KEY] = [[u[0], u[1], bytes(u[2]).hex()] for u in unknown]
        return out

    def value(self, t: TypePlan, v: Any, depth: int) -> Any:
        kind = t.kind
        if kind in ("float", "double"):
            return _number_out(v)
        if kind == "vector":
            return [_number_out(c) for c in v]
        if kind == "vectorint":
            return list(v)
        if kind == "binary":
            return base64.b64encode(bytes(v)).decode("ascii")
        if kind == "decimal":
            return java_decimal_text(v)
        if kind in ("list", "set"):
            assert t.element is not None
            return [self.value(t.element, e, depth + 1) for e in v]
        if kind == "map":
            assert t.key is not None and t.value is not None
            if t.key.kind in _OBJECT_KEYS:
                return {_key_text(t.key, k, self): self.value(t.value, x, depth + 1)
                        for k, x in v.items()}
            return [[self.value(t.key, k, depth + 1), self.value(t.value, x, depth + 1)]
                    for k, x in v.items()]
        if kind == "bean":
            assert t.bean is not None
            return self.bean(self.plans.bean(t.bean), v, depth + 1)
        if kind == "dynamic":
            return self.dynamic(t, v, depth)
        return v

    def dynamic(self, t: TypePlan, v: Any, depth: int) -> dict[str, Any]:
        assert t.dynamic is not None
        if v is None or (isinstance(v, Dynamic) and v.bean is None):
            return {"bean": None, "typeId": 0, "value": {}}
        if not isinstance(v, Dynamic):
            names = [n for n, cls in self.plans.schema.classes.items() if type(v) is cls]
            v = Dynamic(names[0] if names else type(v).__name__, v)
        assert v.bean is not None
        hits = [b for b in t.dynamic.by_bean if b == v.bean or b.endswith("." + v.bean)]
        if len(hits) != 1:
            raise EncodeError(f"{v.bean!r} is not one of the beans of {t.dynamic.name}",
                              format="zeze")
        bean = hits[0]
        type_id = t.dynamic.by_bean[bean]
        return {"bean": bean, "typeId": type_id,
                "value": self.bean(self.plans.bean(bean), v.value, depth + 1)}


def _key_text(t: TypePlan, key: Any, out: _Out) -> str:
    if t.kind == "string":
        return str(key)
    if t.kind == "bool":
        return "true" if key else "false"
    value = out.value(t, key, 0)
    return value if isinstance(value, str) else str(value)


def _number_out(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


class _In:
    def __init__(self, plans: Plans, max_depth: int) -> None:
        self.plans = plans
        self.max_depth = max_depth

    def bean(self, plan: BeanPlan, doc: Any, depth: int) -> dict[str, Any]:
        if depth > self.max_depth:
            raise _fail(f"beans are nested more than {self.max_depth} deep")
        if not isinstance(doc, dict):
            raise _bad(f"a {plan.name} bean is a JSON object", doc)
        out: dict[str, Any] = {}
        for name, item in doc.items():
            try:
                if name == UNKNOWN_KEY and plan.keeps_unknown:
                    out[name] = _unknown_in(item)
                    continue
                if name in plan.transient:
                    continue
                f = plan.fields.get(name)
                if f is None:
                    raise _fail(f"{plan.name} has no field {shown(name)}")
                out[name] = self.value(f.type, item, depth)
            except EncodeError as e:
                e.add_parent(f".{name}" if name.isidentifier() else path_key(name))
                raise
        return out

    def value(self, t: TypePlan, doc: Any, depth: int) -> Any:
        kind = t.kind
        if kind == "bool":
            if not isinstance(doc, bool):
                raise _bad("a bool is true or false", doc)
            return doc
        if kind == "int":
            if not isinstance(doc, int) or isinstance(doc, bool):
                raise _bad(f"{t.name} is an integer", doc)
            return doc
        if kind in ("float", "double"):
            return _number_in(doc)
        if kind == "string":
            if not isinstance(doc, str):
                raise _bad("a string is a JSON string", doc)
            return doc
        if kind == "binary":
            return _base64_in(doc)
        if kind == "decimal":
            if not isinstance(doc, str | int) or isinstance(doc, bool):
                raise _bad("a decimal is a string (or an integer)", doc)
            try:
                return decimal.Decimal(doc)
            except decimal.InvalidOperation:
                raise _bad("not a decimal number", doc) from None
        if kind in ("vector", "vectorint"):
            if not isinstance(doc, list) or len(doc) != t.bits:
                raise _bad(f"{t.name} is an array of {t.bits} numbers", doc)
            convert = _number_in if kind == "vector" else (
                lambda c: self.value(TypePlan("int", 0, "int", bits=32), c, depth))
            return tuple(convert(c) for c in doc)
        if kind in ("list", "set"):
            assert t.element is not None
            if not isinstance(doc, list):
                raise _bad(f"a {kind} is a JSON array", doc)
            return [self._step(t.element, item, depth, f"[{i}]", kind == "set")
                    for i, item in enumerate(doc)]
        if kind == "map":
            return self._map(t, doc, depth)
        if kind == "bean":
            assert t.bean is not None
            return self.bean(self.plans.bean(t.bean), doc, depth + 1)
        assert kind == "dynamic"
        return self._dynamic(t, doc, depth)

    def _step(self, t: TypePlan, doc: Any, depth: int, step: str, key: bool = False) -> Any:
        """An element, value or (``key``) map key or set element, whose errors name the path
        ``step``; a beankey as a key is a :class:`FrozenBean`."""
        try:
            value = self.value(t, doc, depth + 1)
        except EncodeError as e:
            e.add_parent(step)
            raise
        return FrozenBean(value) if key and isinstance(value, dict) else value

    def _map(self, t: TypePlan, doc: Any, depth: int) -> dict[Any, Any]:
        assert t.key is not None and t.value is not None
        out: dict[Any, Any] = {}
        if t.key.kind in _OBJECT_KEYS:
            if not isinstance(doc, dict):
                raise _bad(f"a map with {t.key.name} keys is a JSON object", doc)
            for index, (text, item) in enumerate(doc.items()):
                try:
                    key = self._key_in(t.key, text)
                except EncodeError as e:
                    e.add_parent(map_key_step(index))
                    raise
                out[key] = self._step(t.value, item, depth, map_value_step(key, index))
            return out
        if not isinstance(doc, list):
            raise _bad(f"a map with {t.key.name} keys is an array of [key, value] pairs", doc)
        for i, pair in enumerate(doc):
            if not isinstance(pair, list) or len(pair) != 2:
                error = _bad("a map entry is a [key, value] pair", pair)
                error.add_parent(f"[<entry {i}>]")
                raise error
            key = self._step(t.key, pair[0], depth, map_key_step(i), True)
            out[key] = self._step(t.value, pair[1], depth, map_value_step(key, i))
        return out

    def _key_in(self, t: TypePlan, text: str) -> Any:
        if t.kind == "string":
            return text
        if t.kind == "bool":
            if text not in ("true", "false"):
                raise _bad("a bool key is \"true\" or \"false\"", text)
            return text == "true"
        if t.kind == "int":
            try:
                return int(text, 10)
            except ValueError:
                digits = text.lstrip("+-")
                if digits.isascii() and digits.isdigit():  # longer than int() reads
                    raise _fail(f"an integer of {len(digits)} digits does not fit "
                                f"{with_article(t.name)} key") from None
                raise _bad(f"{t.name} key is an integer", text) from None
        return self.value(t, text, 0)

    def _dynamic(self, t: TypePlan, doc: Any, depth: int) -> Dynamic:
        assert t.dynamic is not None
        if not isinstance(doc, dict) or not set(doc) <= {"bean", "typeId", "value"}:
            raise _bad('a dynamic is {"bean": name, "value": {...}}', doc)
        bean, type_id = doc.get("bean"), doc.get("typeId")
        if type_id is not None and (not isinstance(type_id, int) or isinstance(type_id, bool)):
            raise _bad("a typeId is an integer", type_id)
        if bean is None:
            return Dynamic(None, {}, 0)
        if not isinstance(bean, str):
            raise _bad("a dynamic's bean is a bean name", bean)
        hits = [b for b in t.dynamic.by_bean if b == bean or b.endswith("." + bean)]
        if len(hits) != 1:
            raise _bad(f"not one of the beans of {t.dynamic.name}", bean)
        value = self.bean(self.plans.bean(hits[0]), doc.get("value", {}), depth + 1)
        return Dynamic(hits[0], value, type_id)


def _fail(message: str) -> EncodeError:
    return EncodeError(message, format="zeze")


def _bad(message: str, doc: Any) -> EncodeError:
    return _fail(f"{message}, not {shown(doc)}")


def _number_in(doc: Any) -> float:
    if isinstance(doc, str) and doc in _SPECIAL:
        return _SPECIAL[doc]
    if isinstance(doc, float):
        return doc
    if isinstance(doc, int) and not isinstance(doc, bool):
        try:
            return float(doc)
        except OverflowError:
            raise _bad("the number is too large for a float", doc) from None
    raise _bad('a float is a number or "NaN", "Infinity", "-Infinity"', doc)


def _base64_in(doc: Any) -> bytes:
    if not isinstance(doc, str):
        raise _bad("a binary is a base64 string", doc)
    try:
        return base64.b64decode(doc, validate=True)
    except (binascii.Error, ValueError):
        raise _bad("not valid base64", doc) from None


def _unknown_in(doc: Any) -> list[UnknownField]:
    if not isinstance(doc, list):
        raise _bad(f"{UNKNOWN_KEY} is an array of [id, wire type, hex]", doc)
    out = []
    for item in doc:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], int)
                and isinstance(item[1], int) and 0 <= item[1] <= 15
                and isinstance(item[2], str)):
            raise _bad("an unknown field is [id, wire type, hex]", item)
        try:
            data = bytes.fromhex(item[2])
        except ValueError:
            raise _bad("not hex", item[2]) from None
        out.append(UnknownField(item[0], item[1], data))
    return out
