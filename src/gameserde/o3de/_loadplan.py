"""Compiled load plans: ``ctx.load`` specialised once per registry and type (see ``_plans``).

A plan is ``plan(current, value, depth, new) -> (value, packed code)`` and does what
``LoadContext.load(t, current, value, new)`` does when entered at nesting ``depth``. Plans of
their own exist for bool, the integers, float/double, strings, classes, smart and raw pointers,
vector/list/fixed_vector, map/unordered_map read from objects, Vector2/3/4 and Quaternion read
from arrays, Color from arrays of doubles and Transform from objects; every other type, and
every value of an unexpected JSON kind (``{}`` included), goes to the reference for that value
(``Reference``), whose code the plan then carries on with -- or gives up when it reported an
issue. Plans count nesting at least as fast as the reference and give up before its limit.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from gameserde.errors import DecodeError
from gameserde.o3de._classes import resolve_type_text
from gameserde.o3de._context import MAX_DEPTH
from gameserde.o3de._plans import Slow, accepted, cached, combine, packed
from gameserde.o3de._pointers import dynamic_type
from gameserde.o3de.registry import LEAVES, MATH, ClassInfo, Registry, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.typeid import name_crc
from gameserde.o3de.values import Color, Transform

__all__ = ["Plan", "Reference", "plan_for"]

Plan = Callable[[Any, Any, int, bool], tuple[Any, int]]
Reference = Callable[[TypeExpr, Any, Any, bool, int, bool], tuple[Any, ResultCode, bool]]
"""``reference(t, current, value, new, depth, pointer)``: the reference's ``load`` (or, with
``pointer``, ``load_pointer`` of the pointee ``t``) entered at ``depth``; returns the value,
the code and whether an issue was reported."""

_READ = int(Tasks.ReadField)
_READ_OK = packed(Tasks.ReadField, Outcomes.Success)
_READ_DEFAULTS = packed(Tasks.ReadField, Outcomes.DefaultsUsed)
_READ_PARTIAL = packed(Tasks.ReadField, Outcomes.PartialDefaults)
_CONVERT_OK = packed(Tasks.Convert, Outcomes.Success)
_LIMIT = MAX_DEPTH - 1
_FLT_MAX = 3.4028234663852886e38
_DBL_MAX = 1.7976931348623157e308
_TYPE = "$type"
_MISSING: Any = object()
_TYPE_CACHE = 256
"""``$type`` texts remembered per pointer plan (hostile input may bring any number)."""
_VECTORS = {"Vector2": 2, "Vector3": 3, "Vector4": 4, "Quaternion": 4}
_SEQUENCES = ("vector", "list", "forward_list", "fixed_vector")
_IMMUTABLE = ("bool", "int", "float", "string", "uuid", "enum", "math")
"""Kinds whose default value can be shared (``registry.create`` of them is a constant)."""


def _float32s(count: int) -> Callable[[list[float]], tuple[float, ...]]:
    layout = struct.Struct(f"<{count}f")

    def convert(values: list[float]) -> tuple[float, ...]:
        return layout.unpack(layout.pack(*values))

    return convert


_FLOAT32 = _float32s(1)


class _Compiler:
    def __init__(self, registry: Registry, reference: Reference) -> None:
        self.registry = registry
        self.reference = reference
        self.plans: dict[tuple[bool, TypeExpr], Plan] = {}

    # -- the reference for one value --------------------------------------------------------

    def delegate(self, t: TypeExpr, pointer: bool = False) -> Plan:
        """The reference's ``load`` of ``t`` (with ``pointer``, its ``load_pointer``)."""
        reference = self.reference

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            try:
                loaded, code, reported = reference(t, current, value, new, depth, pointer)
            except DecodeError:
                raise Slow from None
            return loaded, accepted(code, reported)

        return plan

    # -- dispatch ---------------------------------------------------------------------------

    def _memo(self, pointer: bool, t: TypeExpr, build: Callable[[], Plan]) -> Plan:
        """Each plan built once; a type met again while its plan is being built (a recursive
        type) gets a stand-in that calls the plan once it exists."""
        found = self.plans.get((pointer, t))
        if found is not None:
            return found
        holder: list[Plan] = []
        self.plans[(pointer, t)] = lambda c, v, d, n: holder[0](c, v, d, n)
        built = build()
        holder.append(built)
        self.plans[(pointer, t)] = built
        return built

    def plan(self, t: TypeExpr) -> Plan:
        """``load`` of ``t``."""
        return self._memo(False, t, lambda: self._build(t))

    def _build(self, t: TypeExpr) -> Plan:
        kind, registry = t.kind, self.registry
        if kind == "bool":
            return self.bool_plan(t)
        if kind == "int":
            return self.int_plan(t)
        if kind == "float":
            return self.float_plan(t)
        if kind == "string":
            return self.string_plan(t)
        if kind == "class" and t.name in registry.classes:
            return self.class_plan(t, registry.classes[t.name])
        if kind == "pointer" and t.flavor != "raw":
            return self.smart_pointer_plan(t)
        if kind == "seq" and t.flavor in _SEQUENCES:
            return self.seq_plan(t)
        if kind == "map" and t.flavor in ("map", "unordered_map"):
            return self.map_plan(t)
        if kind == "math" and t.name in _VECTORS:
            return self.vector_plan(t)
        if kind == "math" and t.name == "Color":
            return self.color_plan(t)
        if kind == "math" and t.name == "Transform":
            return self.transform_plan(t)
        return self.delegate(t)

    def element(self, t: TypeExpr) -> tuple[Plan, Callable[[], Any]]:
        """``_load_element``: the plan and the factory of new instances of ``t`` (raw
        pointers: ``load_pointer`` starting null)."""
        if t.kind == "pointer" and t.flavor == "raw":
            return self.pointer(t.args[0]), _null
        return self.plan(t), self.factory(t)

    def factory(self, t: TypeExpr) -> Callable[[], Any]:
        """``registry.create(t)``, the class itself for registered classes."""
        info = self.registry.classes.get(t.name) if t.kind == "class" else None
        if info is not None and info.python_type is not None and not info.abstract:
            return info.python_type
        if t.kind in _IMMUTABLE:
            made = self.registry.create(t)
            return lambda: made
        create = self.registry.create
        return lambda: create(t)

    # -- leaves -----------------------------------------------------------------------------

    def bool_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if value is True or value is False:
                return value, _READ_OK
            if type(value) is dict and not value:
                return (False if new else current), _READ_DEFAULTS
            return slow(current, value, depth, new)

        return plan

    def int_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)
        low, high = ((-(1 << (t.size - 1)), (1 << (t.size - 1)) - 1) if t.signed
                     else (0, (1 << t.size) - 1))

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is int and low <= value <= high:
                return value, _CONVERT_OK
            if type(value) is dict and not value:
                return (0 if new else current), _READ_DEFAULTS
            return slow(current, value, depth, new)

        return plan

    def float_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)
        single = t.size == 32
        limit = _FLT_MAX if single else _DBL_MAX
        to32 = _FLOAT32

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            kind = type(value)
            if kind is int and -(1 << 63) <= value < 1 << 64:
                value = float(value)
            elif kind is dict and not value:
                return (0.0 if new else current), _READ_DEFAULTS
            elif kind is not float:
                return slow(current, value, depth, new)
            if not -limit <= value <= limit:
                return slow(current, value, depth, new)
            return (to32([value])[0] if single else value), _CONVERT_OK

        return plan

    def string_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is str:
                return value, _READ_OK
            if type(value) is dict and not value:
                return current, _READ_DEFAULTS
            return slow(current, value, depth, new)

        return plan

    # -- classes and pointers ---------------------------------------------------------------

    def class_plan(self, t: TypeExpr, info: ClassInfo) -> Plan:
        slow = self.delegate(t)
        python_type = info.python_type
        by_crc: dict[int, tuple[str, Plan]] = {}
        fields: dict[str, tuple[str, Plan]] = {}
        count = len(info.all_fields)
        for f in reversed(info.all_fields):
            raw = f.type.kind == "pointer" and f.type.flavor == "raw"
            entry = (f.attr, self.pointer(f.type.args[0]) if raw else self.plan(f.type))
            by_crc.setdefault(name_crc(f.name), entry)
        for f in info.all_fields:
            if f.name != _TYPE:
                fields[f.name] = by_crc[name_crc(f.name)]

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not dict or not value or type(current) is not python_type:
                return slow(current, value, depth, new)
            if depth >= _LIMIT:
                raise Slow
            loads, result, deeper = 0, _READ, depth + 1
            for name, member in value.items():
                entry = fields.get(name)
                if entry is None:
                    if name == _TYPE:
                        continue
                    if type(name) is not str:
                        raise Slow
                    entry = by_crc.get(name_crc(name))
                    if entry is None:
                        raise Slow
                attr, load = entry
                loaded, code = load(getattr(current, attr), member, deeper, False)
                setattr(current, attr, loaded)
                loads += 1
                if code != result:
                    result = combine(result, code)
            if count > loads:
                result = combine(result, _READ_DEFAULTS if loads == 0 else _READ_PARTIAL)
            return current, result

        return plan

    def smart_pointer_plan(self, t: TypeExpr) -> Plan:
        slow, pointer = self.delegate(t), self.pointer(t.args[0])

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if value is not None and (type(value) is not dict or not value):
                return slow(current, value, depth, new)
            return pointer(current, value, depth + 1, True)

        return plan

    def pointer(self, declared: TypeExpr) -> Plan:
        """``load_pointer`` of a pointee type entered at ``depth`` (``new`` is not used)."""
        return self._memo(True, declared, lambda: self._pointer(declared))

    def _pointer(self, declared: TypeExpr) -> Plan:
        registry, slow = self.registry, self.delegate(declared, pointer=True)
        targets: dict[str, tuple[TypeExpr, Plan, Callable[[], Any], type | None]] = {}
        by_python: dict[type, tuple[TypeExpr, Plan, Callable[[], Any], type | None]] = {}

        def target(t: TypeExpr) -> tuple[TypeExpr, Plan, Callable[[], Any], type | None]:
            info = registry.classes.get(t.name) if t.kind == "class" else None
            if info is not None and info.abstract:
                return t, self.plan(t), _abstract, info.python_type
            return t, self.plan(t), self.factory(t), info.python_type if info else None

        plain = target(declared) if declared.kind != "class" or (
            declared.name in registry.classes) else None

        def resolve(text: Any) -> tuple[TypeExpr, Plan, Callable[[], Any], type | None]:
            entry = targets.get(text) if type(text) is str else None
            if entry is None:
                entry = _resolve(registry, declared, text, target)
                if len(targets) < _TYPE_CACHE:
                    targets[text] = entry
            return entry

        def dynamic(current: Any) -> tuple[TypeExpr, Plan, Callable[[], Any], type | None]:
            entry = by_python.get(type(current))
            if entry is None:
                entry = target(dynamic_type(registry, declared, current))
                if len(by_python) < _TYPE_CACHE:
                    by_python[type(current)] = entry
            return entry

        def load(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if plain is None or depth >= _LIMIT:
                return slow(current, value, depth, new)
            if value is None:
                return None, _READ_OK
            if type(value) is not dict:
                return slow(current, value, depth, new)
            text = value.get(_TYPE, _MISSING)
            if text is _MISSING:
                entry = plain if current is None else dynamic(current)
            else:
                entry = resolve(text)
                if current is not None and dynamic(current)[0] != entry[0]:
                    current = None
            if current is None:
                current = entry[2]()
            return entry[1](current, value, depth + 1, True)

        return load

    # -- containers -------------------------------------------------------------------------

    def seq_plan(self, t: TypeExpr) -> Plan:
        slow, (element, make) = self.delegate(t), self.element(t.args[0])
        capacity = t.size if t.flavor == "fixed_vector" else 0

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not list or type(current) is not list or (
                    capacity and len(current) + len(value) > capacity):
                return slow(current, value, depth, new)
            if not value:
                return current, _READ_OK
            if depth >= _LIMIT:
                raise Slow
            result, deeper, append = _READ, depth + 1, current.append
            for item in value:
                loaded, code = element(make(), item, deeper, True)
                append(loaded)
                if code != result:
                    result = combine(result, code)
            return current, combine(result, _READ_OK)

        return plan

    def map_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)
        key_type, value_type = t.args
        key, make_key = self.element(key_type)
        item, make = self.element(value_type)
        raw = value_type.kind == "pointer" and value_type.flavor == "raw"

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not dict or not value or type(current) is not dict:
                return slow(current, value, depth, new)
            if depth >= _LIMIT:
                raise Slow
            start, result, deeper = len(current), _READ, depth + 1
            for name, member in value.items():
                if type(name) is not str:
                    raise Slow
                loaded_key, key_code = key(make_key(), {} if name == "{}" else name, deeper,
                                           True)
                try:
                    target = current.get(loaded_key, _MISSING)
                except TypeError:
                    raise Slow from None
                if target is _MISSING or raw:
                    target = make()
                loaded, code = item(target, member, deeper, True)
                current[loaded_key] = loaded
                result = combine(result, combine(key_code, code))
            if len(current) > start:
                result = combine(result, _READ_OK)
            return current, result

        return plan

    # -- math -------------------------------------------------------------------------------

    def vector_plan(self, t: TypeExpr) -> Plan:
        slow, count, make = self.delegate(t), _VECTORS[t.name], MATH[t.name]
        convert = _float32s(count)

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not list or len(value) < count:
                return slow(current, value, depth, new)
            parts = value[:count]
            for part in parts:
                if type(part) is not float or not -_FLT_MAX <= part <= _FLT_MAX:
                    return slow(current, value, depth, new)
            return make(*convert(parts)), _READ_OK

        return plan

    def color_plan(self, t: TypeExpr) -> Plan:
        slow, three, four = self.delegate(t), _float32s(3), _float32s(4)

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not list or len(value) < 3:
                return slow(current, value, depth, new)
            parts = value[:4]
            for part in parts:
                if type(part) is not float or not -_FLT_MAX <= part <= _FLT_MAX:
                    return slow(current, value, depth, new)
            if len(parts) == 4:
                return Color(*four(parts)), _READ_OK
            alpha = current.a if isinstance(current, Color) else 0.0
            red, green, blue = three(parts)
            return Color(red, green, blue, alpha), _READ_PARTIAL

        return plan

    def transform_plan(self, t: TypeExpr) -> Plan:
        slow = self.delegate(t)
        parts = (("Translation", self.plan(LEAVES["Vector3"])),
                 ("Rotation", self.plan(LEAVES["Quaternion"])),
                 ("Scale", self.plan(LEAVES["float"])))

        def plan(current: Any, value: Any, depth: int, new: bool) -> tuple[Any, int]:
            if type(value) is not dict or not value:
                return slow(current, value, depth, new)
            if depth >= _LIMIT:
                raise Slow
            for name in value:
                if type(name) is not str:
                    raise Slow
            held: list[Any] = list(current if isinstance(current, Transform) else Transform())
            result, deeper = _READ, depth + 1
            for index, (name, load) in enumerate(parts):
                member = value.get(name, _MISSING)
                if member is _MISSING:
                    result = combine(result, _READ_DEFAULTS)
                    continue
                held[index], code = load(held[index], member, deeper, False)
                result = combine(result, code)
            return Transform(*held), result

        return plan


def _abstract() -> Any:
    raise Slow


def _null() -> None:
    return None


def _resolve(registry: Registry, declared: TypeExpr, text: Any,
             target: Callable[[TypeExpr], tuple[TypeExpr, Plan, Callable[[], Any], type | None]]
             ) -> tuple[TypeExpr, Plan, Callable[[], Any], type | None]:
    """The target of a ``$type`` the reference accepts without a report; else :class:`Slow`."""
    if type(text) is not str:
        raise Slow
    how, found, _ = resolve_type_text(registry, text, declared)
    if how != "explicit" or found is None or (
            found.kind == "class" and found.name not in registry.classes) or (
            not registry.is_derived(found, declared)):
        raise Slow
    return target(found)


def plan_for(registry: Registry, t: TypeExpr, reference: Reference) -> Plan:
    """The load plan of ``t`` for ``registry`` (built once, then cached with the registry)."""
    return cached(registry, ("load", t, False),
                  lambda: _Compiler(registry, reference).plan(t))
