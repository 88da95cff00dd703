"""``load``: JSON values into typed Python values, by O3DE's ``JsonDeserializer`` rules.

JSON values are Python objects: ``None``, ``bool``, ``int`` (a JSON integer), ``float`` (a
JSON double; the difference matters to colours, enums and bools), ``str``, ``list`` and any
mapping for objects (:class:`~gameserde.o3de.values.JsonPairs` keeps repeated member names).
"""

from __future__ import annotations

from functools import partial
from typing import Any
from uuid import UUID

from gameserde._gc import collector_paused
from gameserde._recursion import recursion_room
from gameserde.errors import SchemaError
from gameserde.o3de import _classes, _containers, _enums, _math, _plans, _pointers, _primitives
from gameserde.o3de._budget import DEFAULT_MAX_EXPANSION, BudgetExceeded, loading
from gameserde.o3de._context import MAX_DEPTH, LoadContext, is_object, members
from gameserde.o3de._loadplan import plan_for
from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.result import Outcomes, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.typeid import NULL_UUID

__all__ = ["load", "load_direct", "load_type_id"]

_LEAVES = {"bool", "int", "float", "string", "uuid"}
_SERIALIZED = _LEAVES | {"math", "any", "seq", "array", "tuple", "map", "pointer", "rejected",
                         "custom"}
_NEW_INSTANCE_RESET = {"bool", "int", "float", "uuid", "math", "array", "tuple"}


class _Loader(LoadContext):
    def load(self, t: TypeExpr, current: Any, value: Any, new_instance: bool
             ) -> tuple[Any, ResultCode]:
        """``JsonDeserializer::Load``."""
        self.enter()
        try:
            return self._load(t, current, value, new_instance)
        except BudgetExceeded as e:
            if e.path == "$":
                e.path = "$" + self.path_text()
            raise
        finally:
            self.leave()

    def _load(self, t: TypeExpr, current: Any, value: Any, new_instance: bool
              ) -> tuple[Any, ResultCode]:
        explicit_default = is_object(value) and len(value) == 0
        kind = t.kind
        if kind in _SERIALIZED:
            if explicit_default and not self._takes_default(t, new_instance):
                return current, self.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                            "Value has an explicit default.")
            return self.serializer_load(t, current, value)
        registry = self.registry
        if (kind == "class" and t.name not in registry.classes) or (
                kind == "enum" and t.name not in registry.enums):
            return current, self.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                        f"Failed to retrieve serialization information for {t}.")
        if explicit_default:
            return current, self.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                        "Value has an explicit default.")
        if kind == "enum":
            return _enums.load_enum(self, registry.enums[t.name], current, value)
        if is_object(value):
            if kind == "class":
                return _classes.load_class(self, registry.classes[t.name], current, value)
            result = ResultCode.task_only(Tasks.ReadField)
            for name, _ in members(value):
                if name != _classes.TYPE_FIELD:
                    self.push(name)
                    result = result.combine(self.report(
                        Tasks.ReadField, Outcomes.Skipped,
                        "Skipping field as there's no matching variable in the target."))
                    self.pop()
            return current, result
        return current, self.report(Tasks.ReadField, Outcomes.Unsupported,
                                    f"Reading into targets of type '{t}' is not supported.")

    def _takes_default(self, t: TypeExpr, new_instance: bool) -> bool:
        if t.kind == "pointer" or t.name.startswith("Matrix"):
            return True
        if t.kind == "custom":
            serializer = self.registry.serializers[t.name][0]
            return serializer.manual_default or (new_instance and
                                                 serializer.initialize_new_instance)
        return new_instance and t.kind in _NEW_INSTANCE_RESET

    def serializer_load(self, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
        """The type's own serializer, with no explicit-default check in front."""
        kind = t.kind
        if kind in _LEAVES:
            return _primitives.load_leaf(self, t, current, value)
        if kind == "math":
            return _math.load_math(self, t, current, value)
        if kind == "seq":
            return _containers.load_seq(self, t, current, value)
        if kind == "array":
            return _containers.load_array(self, t, current, value)
        if kind == "tuple":
            return _containers.load_tuple(self, t, current, value)
        if kind == "map":
            return _containers.load_map(self, t, current, value)
        if kind == "pointer":
            return self.load_pointer(t.args[0], current, value)
        if kind == "any":
            return _pointers.load_any(self, current, value)
        if kind == "custom":
            loaded, code = self.registry.serializers[t.name][0].load(self, current, value)
            return loaded, code
        if kind == "rejected":
            return current, self.report(Tasks.ReadField, Outcomes.Invalid,
                                        f"{t.flavor} is not supported by the JSON serializer by "
                                        "design.")
        return self.load(t, current, value, False)

    def load_pointer(self, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
        self.enter()
        try:
            return _pointers.load_pointer(self, t, current, value)
        finally:
            self.leave()


def _start(type: str | TypeExpr, registry: Registry, target: Any, clear_containers: bool,
           reporter: Reporter | None) -> tuple[_Loader, TypeExpr, Any]:
    t = registry.resolve(type, lazy=True)
    ctx = _Loader(registry, reporter, clear_containers)
    if target is None and registry.can_create(t) and (t.kind != "class" or t.name in
                                                       registry.classes):
        target = registry.create(t)
    return ctx, t, target


def load(type: str | TypeExpr, value: Any, *, registry: Registry, target: Any = None,
         clear_containers: bool = False, reporter: Reporter | None = None,
         max_expansion: float | None = DEFAULT_MAX_EXPANSION) -> tuple[Any, Result]:
    """Load the JSON ``value`` as ``type`` (``JsonSerialization::Load``): into ``target`` if
    given (containers are appended to, objects updated in place), else into a new default
    value. Returns the value and the :class:`Result`; a value that cannot be read is left as
    it was and reported. ``reporter(message, code, path)`` sees every report and may return
    another code. Raises :class:`~gameserde.errors.DecodeError` only for input nested deeper
    than 200 levels, and for input whose default values would pass ``max_expansion`` times
    its size (see :mod:`gameserde.o3de._budget`; None: no limit)."""
    if _plans.ENABLED and reporter is None and target is None and not clear_containers:
        try:
            with loading(value, max_expansion):
                fast = _planned(registry.resolve(type, lazy=True), value, registry)
        except BudgetExceeded:
            fast = None  # the reference runs again to say where
        if fast is not None:
            return fast
    with loading(value, max_expansion):
        ctx, t, target = _start(type, registry, target, clear_containers, reporter)
        if target is None and t.kind == "class" and t.name in registry.classes:
            return None, Result(_nothing(ctx), ctx.issues)
        with recursion_room(MAX_DEPTH * 8):
            loaded, code = ctx.load(t, target, value, False)
        return loaded, Result(code, ctx.issues)


def _reference(registry: Registry, t: TypeExpr, current: Any, value: Any, new: bool, depth: int,
               pointer: bool) -> tuple[Any, ResultCode, bool]:
    """The reference for one value, for the plans (``_loadplan.Reference``)."""
    ctx = _Loader(registry, None, False)
    ctx.depth = depth - 1
    if pointer:
        loaded, code = ctx.load_pointer(t, current, value)
    else:
        loaded, code = ctx.load(t, current, value, new)
    return loaded, code, bool(ctx.issues)


def _planned(t: TypeExpr, value: Any, registry: Registry) -> tuple[Any, Result] | None:
    """The load by the type's compiled plan into a new value, or None when the plan leaves
    it to the reference."""
    if not registry.can_create(t) or (t.kind == "class" and t.name not in registry.classes):
        return None
    plan = plan_for(registry, t, partial(_reference, registry))
    try:
        with recursion_room(MAX_DEPTH * 8), collector_paused():
            loaded, code = plan(registry.create(t), value, 1, False)
    except _plans.Slow:
        return None
    return loaded, Result(ResultCode(code), [])


def _nothing(ctx: _Loader) -> ResultCode:
    return ctx.report(Tasks.ReadField, Outcomes.Catastrophic,
                      "Target object for Json Serialization is pointing to nothing during loading "
                      "(the class is abstract and no target was given).")


def load_direct(type: str | TypeExpr, value: Any, *, registry: Registry, target: Any = None,
                clear_containers: bool = False, reporter: Reporter | None = None,
                max_expansion: float | None = DEFAULT_MAX_EXPANSION) -> tuple[Any, Result]:
    """Like :func:`load`, but calling the type's serializer directly, as O3DE's serializer
    tests do (``BaseJsonSerializer::Load``): ``{}`` reaches the serializer (resetting a number,
    colour or vector) instead of being taken as "keep the value"."""
    with loading(value, max_expansion):
        ctx, t, target = _start(type, registry, target, clear_containers, reporter)
        if target is None and t.kind == "class" and t.name in registry.classes:
            return None, Result(_nothing(ctx), ctx.issues)
        with recursion_room(MAX_DEPTH * 8):
            if t.kind in _SERIALIZED:
                loaded, code = ctx.serializer_load(t, target, value)
            else:
                loaded, code = ctx.load(t, target, value, False)
        return loaded, Result(code, ctx.issues)


def load_type_id(value: Any, *, registry: Registry,
                 base_type: str | TypeExpr | UUID | None = None,
                 reporter: Reporter | None = None) -> tuple[UUID, Result]:
    """``JsonSerialization::LoadTypeId``: a uuid anywhere in a string, or a registered name
    (several classes with that name: the one derived from ``base_type``); an object's
    ``$type`` when ``base_type`` is given. The null uuid and Unknown when it can't; a
    ``base_type`` the registry does not hold counts as none given (the engine finds no class
    data for it), so an object then gives Unknown too."""
    ctx = _Loader(registry, reporter, False)
    base = None
    if isinstance(base_type, UUID):
        base = registry.by_uuid(base_type)
    elif base_type is not None:
        try:
            base = registry.resolve(base_type)
        except SchemaError:
            base = None
    text: Any = None
    if is_object(value) and base is not None:
        found = [v for k, v in members(value) if k == _classes.TYPE_FIELD]
        if not found:
            return registry.type_id(base), Result(ctx.report(
                Tasks.ReadField, Outcomes.Success, "Successfully read type id from json value."),
                ctx.issues)
        text = found[0]
    elif isinstance(value, str):
        text = value
    if isinstance(text, str):
        how, _, uuid = _classes.resolve_type_text(registry, text, base)
        if how == "explicit" and uuid is not None:
            return uuid, Result(ctx.report(Tasks.ReadField, Outcomes.Success,
                                           "Successfully read type id from json value."),
                                ctx.issues)
        if how == "multiple":
            return NULL_UUID, Result(ctx.report(
                Tasks.ReadField, Outcomes.Unknown,
                "The provided string points to multiple type ids. Use the uuid of the intended "
                "class instead."), ctx.issues)
    return NULL_UUID, Result(ctx.report(Tasks.ReadField, Outcomes.Unknown,
                                        "Unable to find type id with the provided string."),
                             ctx.issues)
