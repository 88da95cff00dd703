"""Compiled store plans: ``store`` specialised once per registry, type and ``keep_defaults``
(see ``_plans``).

A plan is ``plan(value, default, depth) -> (JSON value, packed code)``. Three entry points
mirror the reference's: :meth:`_Compiler.class_data` (``store_with_class_data`` without
``$type``), :meth:`_Compiler.call` (``StoreContext.store``: a default instance when none is
given) and :meth:`_Compiler.pointer` (``store_pointer``). Plans of their own exist for bool,
the integers, float/double, strings, classes (``$type`` first when a pointer needs it), smart
and raw pointers, vector/list/fixed_vector, map/unordered_map with string keys, Vector2/3/4,
Quaternion, Color and Transform; every other type, and every Python value of an unexpected
kind, goes to the reference for that value.

The reference compares each value with a default instance made for the purpose; plans make
one per type when they are built and compare with it every time (only a class whose
constructor gives different values on each call -- a counter, say -- can tell the two apart).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._classes import differs, type_name
from gameserde.o3de._containers import by_compare
from gameserde.o3de._context import MAX_DEPTH, NO_DEFAULT
from gameserde.o3de._plans import Slow, accepted, cached, combine, packed
from gameserde.o3de._pointers import dynamic_type
from gameserde.o3de._primitives import as_float32
from gameserde.o3de.registry import LEAVES, MATH, ClassInfo, Registry, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.values import JsonPairs, Transform

__all__ = ["Plan", "Reference", "plan_for"]

Plan = Callable[[Any, Any, int], tuple[Any, int]]
Reference = Callable[[str, TypeExpr, Any, Any, int], tuple[Any, ResultCode, bool]]
"""``reference(way, t, value, default, depth)``: the reference's ``store`` (``way`` "call"),
``store_with_class_data`` ("class_data") or ``store_pointer`` of the pointee ``t``
("pointer") at ``depth``; returns the JSON value, the code and whether an issue was
reported."""

_WRITE = int(Tasks.WriteValue)
_WRITE_OK = packed(Tasks.WriteValue, Outcomes.Success)
_WRITE_DEFAULTS = packed(Tasks.WriteValue, Outcomes.DefaultsUsed)
_WRITE_PARTIAL = packed(Tasks.WriteValue, Outcomes.PartialDefaults)
_INFO_OK = packed(Tasks.RetrieveInfo, Outcomes.Success)
_INFO_DEFAULTS = packed(Tasks.RetrieveInfo, Outcomes.DefaultsUsed)
_LIMIT = MAX_DEPTH - 1
_EXACT = {"bool", "int", "float", "string", "uuid", "math", "any", "custom"}
_DYNAMIC_CACHE = 256
_VECTORS = {"Vector2": 2, "Vector3": 3, "Vector4": 4, "Quaternion": 4, "Color": 4}
_SEQUENCES = ("vector", "list", "forward_list", "fixed_vector")
_OMITTED = frozenset((0, 4))
"""Raw outcomes that read as DefaultsUsed: a member with such a code is left out."""


class _Target:
    """What a pointer plan needs about one dynamic type."""

    __slots__ = ("creatable", "default", "known", "plain", "type", "typed")

    def __init__(self, t: TypeExpr, plain: Plan, typed: Plan, known: bool, creatable: bool,
                 default: Callable[[], Any]) -> None:
        self.type, self.plain, self.typed = t, plain, typed
        self.known, self.creatable, self.default = known, creatable, default


class _Compiler:
    def __init__(self, registry: Registry, reference: Reference, keep: bool) -> None:
        self.registry, self.reference, self.keep = registry, reference, keep
        self.plans: dict[tuple[str, TypeExpr], Plan] = {}
        self.targets: dict[TypeExpr, _Target] = {}
        self.defaults: dict[TypeExpr, Callable[[], Any]] = {}

    def delegate(self, way: str, t: TypeExpr) -> Plan:
        reference = self.reference

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            try:
                out, code, reported = reference(way, t, value, default, depth)
            except EncodeError:
                raise Slow from None
            return out, accepted(code, reported)

        return plan

    def _memo(self, way: str, t: TypeExpr, build: Callable[[], Plan]) -> Plan:
        found = self.plans.get((way, t))
        if found is not None:
            return found
        holder: list[Plan] = []
        self.plans[(way, t)] = lambda v, d, n: holder[0](v, d, n)
        built = build()
        holder.append(built)
        self.plans[(way, t)] = built
        return built

    def default_of(self, t: TypeExpr) -> Callable[[], Any]:
        """A function giving one default instance of ``t``, made on first use (``Slow`` where
        the reference reports that none can be made)."""
        found = self.defaults.get(t)
        if found is not None:
            return found
        registry = self.registry
        made: list[Any] = []
        creatable = self.known(t) and registry.can_create(t)

        def default() -> Any:
            if not made:
                if not creatable:
                    raise Slow
                made.append(registry.create(t))
            return made[0]

        self.defaults[t] = default
        return default

    def known(self, t: TypeExpr) -> bool:
        registry = self.registry
        return not ((t.kind == "class" and t.name not in registry.classes)
                    or (t.kind == "enum" and t.name not in registry.enums))

    # -- entry points -----------------------------------------------------------------------

    def call(self, t: TypeExpr) -> Plan:
        """``StoreContext.store``."""
        return self._memo("call", t, lambda: self._call(t))

    def _call(self, t: TypeExpr) -> Plan:
        if t.kind in _EXACT:
            inner = self.class_data(t)

            def exact(value: Any, default: Any, depth: int) -> tuple[Any, int]:
                if depth >= _LIMIT:
                    raise Slow
                return inner(value, default, depth + 1)

            return exact
        if not self.known(t):
            return self.delegate("call", t)
        inner, keep, default_of = self.class_data(t), self.keep, self.default_of(t)

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if depth >= _LIMIT:
                raise Slow
            if default is NO_DEFAULT and not keep:
                default = default_of()
            out, code = inner(value, default, depth + 1)
            return out, combine(_WRITE, code)

        return plan

    def class_data(self, t: TypeExpr) -> Plan:
        """``store_with_class_data`` without ``$type``."""
        return self._memo("data", t, lambda: self._class_data(t))

    def _class_data(self, t: TypeExpr) -> Plan:
        kind, registry = t.kind, self.registry
        if kind == "bool":
            return self.leaf(t, lambda v: type(v) is bool, lambda v: v)
        if kind == "int":
            low, high = ((-(1 << (t.size - 1)), (1 << (t.size - 1)) - 1) if t.signed
                         else (0, (1 << t.size) - 1))
            return self.leaf(t, lambda v: type(v) is int and low <= v <= high, lambda v: v)
        if kind == "float":
            return self.float_leaf(t)
        if kind == "string":
            return self.leaf(t, lambda v: type(v) is str, lambda v: v)
        if kind == "class" and t.name in registry.classes:
            return self.class_plan(t, registry.classes[t.name], False)
        if kind == "pointer" and t.flavor != "raw":
            pointer = self.pointer(t.args[0])
            return lambda value, default, depth: pointer(
                value, None if default is NO_DEFAULT else default, depth)
        if kind == "seq" and t.flavor in _SEQUENCES:
            return self.seq_plan(t)
        if kind == "map" and t.flavor in ("map", "unordered_map") \
                and t.args[0].kind == "string":
            return self.map_plan(t)
        if kind == "math" and t.name in _VECTORS:
            return self.vector_plan(t)
        if kind == "math" and t.name == "Transform":
            return self.transform_plan(t)
        return self.delegate("class_data", t)

    # -- leaves -----------------------------------------------------------------------------

    def leaf(self, t: TypeExpr, fits: Callable[[Any], bool], _: Callable[[Any], Any]) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if fits(value):
                if keep or default is NO_DEFAULT:
                    return value, _WRITE_OK
                if fits(default):
                    return ({}, _WRITE_DEFAULTS) if value == default else (value, _WRITE_OK)
            return slow(value, default, depth)

        return plan

    def float_leaf(self, t: TypeExpr) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        single = t.size == 32
        epsilon = 1.1920928955078125e-07 if single else 2.220446049250313e-16

        def number(value: Any) -> Any:
            kind = type(value)
            if kind is float or kind is int:
                return as_float32(float(value)) if single else float(value)
            return None

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            current = number(value)
            if current is None:
                return slow(value, default, depth)
            if keep or default is NO_DEFAULT:
                return current, _WRITE_OK
            base = number(default)
            if base is None:
                return slow(value, default, depth)
            if abs(current - base) <= epsilon:
                return {}, _WRITE_DEFAULTS
            return current, _WRITE_OK

        return plan

    # -- classes and pointers ---------------------------------------------------------------

    def class_plan(self, t: TypeExpr, info: ClassInfo, typed: bool) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        fields = [(f.name, f.attr, self.pointer(f.type.args[0])
                   if f.type.kind == "pointer" and f.type.flavor == "raw"
                   else self.class_data(f.type)) for f in info.all_fields]
        name = type_name(self.registry, t) if typed else ""
        start = _WRITE_OK if typed else _WRITE
        empty = _WRITE_OK if keep else _WRITE_DEFAULTS

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if value is None or depth >= _LIMIT:
                return slow(value, default, depth) if not typed else _raise()
            out: dict[str, Any] = {"$type": name} if typed else {}
            if not fields:
                return out, combine(start, empty)
            has_default = default is not NO_DEFAULT and default is not None
            result, deeper = _WRITE, depth + 1
            try:
                for member, attr, store in fields:
                    element = getattr(value, attr)
                    element_default = getattr(default, attr) if has_default else NO_DEFAULT
                    stored, code = store(element, element_default, deeper)
                    if keep or code >> 16 not in _OMITTED:
                        out[member] = stored
                    elif not code >> 16 and has_default and differs(element, element_default):
                        raise Slow  # left out, loads back as the default: the reference says so
                    if code != result:
                        result = combine(result, code)
            except AttributeError:
                raise Slow from None
            return out, combine(start, result)

        return plan

    def pointer(self, declared: TypeExpr) -> Plan:
        """``store_pointer`` of a pointee type."""
        return self._memo("pointer", declared, lambda: self._pointer(declared))

    def target(self, t: TypeExpr) -> _Target:
        """The one :class:`_Target` of a type (pointer plans compare them by identity)."""
        found = self.targets.get(t)
        if found is None:
            registry = self.registry
            info = registry.classes.get(t.name) if t.kind == "class" else None
            known = self.known(t)
            typed = self.class_plan(t, info, True) if info is not None else _slow_plan
            found = self.targets.setdefault(t, _Target(
                t, self.class_data(t), typed, known, known and registry.can_create(t),
                self.default_of(t)))
        return found

    def _pointer(self, declared: TypeExpr) -> Plan:
        registry, keep = self.registry, self.keep
        by_python: dict[type, _Target] = {}
        slow = self.delegate("pointer", declared)
        if not self.known(declared):
            return slow
        plain = self.target(declared)

        def dynamic(value: Any) -> _Target:
            found = by_python.get(type(value))
            if found is None:
                found = self.target(dynamic_type(registry, declared, value))
                if len(by_python) < _DYNAMIC_CACHE:
                    by_python[type(value)] = found
            return found

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if depth >= _LIMIT:
                return slow(value, default, depth)
            default_object = None if default is NO_DEFAULT else default
            if value is None:
                return None, (_INFO_OK if keep or default_object is not None
                              else _INFO_DEFAULTS)
            actual = dynamic(value)
            actual_default = plain if default_object is None else dynamic(default_object)
            store_type = False
            if actual is not plain:
                if not actual.known:
                    raise Slow
                store_type = actual is not actual_default or keep
            if actual_default is not actual:
                default_object = None
            if default_object is not None:
                element_default = default_object
            elif keep:
                element_default = NO_DEFAULT
            elif actual.creatable:
                element_default = actual.default()
            else:
                raise Slow
            return (actual.typed if store_type else actual.plain)(value, element_default,
                                                                  depth + 1)

        return plan

    # -- containers -------------------------------------------------------------------------

    def element(self, t: TypeExpr) -> tuple[Plan, Callable[[], Any]]:
        """``store_new_default``: the plan and the default of each element."""
        if t.kind == "pointer" and t.flavor == "raw":
            return self.pointer(t.args[0]), _no_default
        if self.keep:
            return self.call(t), _no_default
        return self.call(t), self.default_of(t)

    def seq_plan(self, t: TypeExpr) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        store, default_of = self.element(t.args[0])

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if type(value) is not list:
                return slow(value, default, depth)
            if depth >= _LIMIT:
                raise Slow
            out: list[Any] = []
            result, deeper, element_default = _WRITE, depth + 1, default_of()
            for item in value:
                stored, code = store(item, element_default, deeper)
                out.append(stored)
                if code != result:
                    result = combine(result, code)
            if result >> 16:
                return out, (result if keep else combine(result, _WRITE_OK))
            if keep:
                return out, _WRITE_OK
            if out:
                raise Slow  # elements written as nothing: the reference reports the loss
            return {}, result

        return plan

    def map_plan(self, t: TypeExpr) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        key_type, value_type = t.args
        store_key = self.call(key_type)
        raw = value_type.kind == "pointer" and value_type.flavor == "raw"
        store_value = self.pointer(value_type.args[0]) if raw else self.call(value_type)
        ordered = not t.flavor.startswith("unordered")
        key_default_of = self.default_of(key_type)
        value_default_of = _no_default if raw else self.default_of(value_type)

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            if type(value) is not dict:
                return slow(value, default, depth)
            if depth >= _LIMIT:
                raise Slow
            pairs = list(value.items())
            if ordered:
                try:
                    pairs.sort(key=_first)
                except TypeError:
                    return slow(value, default, depth)
            key_default = NO_DEFAULT if keep else key_default_of()
            value_default = NO_DEFAULT if keep else value_default_of()
            items: list[tuple[str, Any]] = []
            result, deeper, unnamed = _WRITE, depth + 2, 0
            for key, item in pairs:
                stored_key, key_code = store_key(key, key_default, deeper)
                stored, value_code = store_value(item, value_default, deeper)
                code = combine(combine(_WRITE, key_code), value_code)
                if not keep and code >> 16 in _OMITTED:
                    stored_key, stored = {}, {}
                if type(stored_key) is not str:
                    stored_key, unnamed = "{}", unnamed + 1
                items.append((stored_key, stored))
                result = combine(result, code)
            if not result >> 16:
                if keep:
                    return [], _WRITE_OK
                if items:
                    raise Slow  # entries written as nothing: the reference reports the loss
                return {}, result
            if not keep:
                result = combine(result, _WRITE_OK)
            if not ordered:
                items.sort(key=functools.cmp_to_key(by_compare))
            if unnamed and (unnamed > 1 or "{}" in value):
                return JsonPairs(items), result
            return dict(items), result

        return plan

    # -- math -------------------------------------------------------------------------------

    def vector_plan(self, t: TypeExpr) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        kind, layout = MATH[t.name], struct.Struct(f"<{_VECTORS[t.name]}f")
        color = t.name == "Color"

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            has_default = default is not NO_DEFAULT and default is not None
            if type(value) is not kind or (has_default and type(default) is not kind):
                return slow(value, default, depth)
            try:
                parts = list(layout.unpack(layout.pack(*value)))
                base = list(layout.unpack(layout.pack(*default))) if has_default else None
            except (OverflowError, struct.error):
                return slow(value, default, depth)
            if not keep and base is not None:
                if parts == base:
                    return {}, _WRITE_DEFAULTS
                if color and parts[3] == base[3]:
                    return parts[:3], _WRITE_PARTIAL
            return parts, _WRITE_OK

        return plan

    def transform_plan(self, t: TypeExpr) -> Plan:
        slow, keep = self.delegate("class_data", t), self.keep
        parts = (("Translation", self.call(LEAVES["Vector3"])),
                 ("Rotation", self.call(LEAVES["Quaternion"])),
                 ("Scale", self.call(LEAVES["float"])))

        def plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
            has_default = default is not NO_DEFAULT and default is not None
            if type(value) is not Transform or (has_default and type(default) is not Transform):
                return slow(value, default, depth)
            if depth >= _LIMIT:
                raise Slow
            out: dict[str, Any] = {}
            result = _WRITE
            for index, (name, store) in enumerate(parts):
                stored, code = store(value[index], default[index] if has_default else NO_DEFAULT,
                                     depth + 1)
                if keep or code >> 16 not in _OMITTED:
                    out[name] = stored
                result = combine(result, code)
            return out, result

        return plan


def _first(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def _no_default() -> Any:
    return NO_DEFAULT


def _raise() -> tuple[Any, int]:
    raise Slow


def _slow_plan(value: Any, default: Any, depth: int) -> tuple[Any, int]:
    raise Slow


def plan_for(registry: Registry, t: TypeExpr, keep: bool, reference: Reference) -> Plan:
    """The store plan (``StoreContext.store``) of ``t`` for ``registry`` and
    ``keep_defaults`` (built once, then cached with the registry)."""
    return cached(registry, ("store", t, keep),
                  lambda: _Compiler(registry, reference, keep).call(t))
