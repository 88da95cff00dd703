"""``store``: typed Python values into JSON values, by O3DE's ``JsonSerializer`` rules.

Without ``keep_defaults`` every value equal to its default is left out: class fields equal to
the class's constructor values, container elements equal to a fresh default instance (written
as ``{}``), and so on; the result says whether anything was written (Success), a mix
(PartialDefaults) or nothing (DefaultsUsed, and the output is ``{}``).
"""

from __future__ import annotations

from functools import partial
from typing import Any
from uuid import UUID

from gameserde._gc import collector_paused
from gameserde._recursion import recursion_room
from gameserde.errors import EncodeError
from gameserde.o3de import _classes, _containers, _enums, _math, _plans, _pointers, _primitives
from gameserde.o3de._context import MAX_DEPTH, NO_DEFAULT, StoreContext, describe
from gameserde.o3de._storeplan import plan_for
from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.result import Outcomes, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.typeid import uuid_text

__all__ = ["store", "store_type_id"]

_EXACT = {"bool", "int", "float", "string", "uuid", "math", "any", "custom"}
_GENERIC = {"seq", "array", "tuple", "map", "pointer", "rejected"}


class _Storer(StoreContext):
    def store(self, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
        """``JsonSerializer::Store``: a default instance is made when none is given (and
        defaults are not kept) for types without a serializer of their own."""
        self.enter()
        try:
            if t.kind in _EXACT:
                return self.serializer_store(t, value, default)
            if not self._known(t):
                return {}, self.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                       f"Failed to retrieve serialization information for {t}.")
            result = ResultCode.task_only(Tasks.WriteValue)
            if default is NO_DEFAULT and not self.keep_defaults:
                if self.registry.can_create(t):
                    default = self.registry.create(t)
                else:
                    result = self.report(Tasks.CreateDefault, Outcomes.Unsupported,
                                         "No factory available to create a default object for "
                                         "comparison.")
            out, code = self.store_with_class_data(t, value, default, False)
            return out, result.combine(code)
        finally:
            self.leave()

    def _known(self, t: TypeExpr) -> bool:
        return not ((t.kind == "class" and t.name not in self.registry.classes)
                    or (t.kind == "enum" and t.name not in self.registry.enums))

    def store_with_class_data(self, t: TypeExpr, value: Any, default: Any, store_type_id: bool
                              ) -> tuple[Any, ResultCode]:
        """``StoreWithClassData``: ``store_type_id`` puts ``$type`` in front."""
        if not self._known(t):
            return {}, self.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                   f"Failed to retrieve serialization information for {t}.")
        if t.kind in _EXACT or t.kind in _GENERIC:
            out, code = self.serializer_store(t, value, default)
            if store_type_id and not code.halted:
                if not isinstance(out, dict):
                    return out, code.combine(self.report(
                        Tasks.WriteValue, Outcomes.Catastrophic,
                        "Only able to store type information in a JSON Object."))
                out = {_classes.TYPE_FIELD: _classes.type_name(self.registry, t), **out}
                code = code.combine(ResultCode.of(Tasks.WriteValue, Outcomes.Success))
            return out, code
        if t.kind == "enum":
            if store_type_id:
                return {}, self.report(Tasks.WriteValue, Outcomes.Catastrophic,
                                       "Unable to store type information in a JSON Serializer "
                                       "enum.")
            return _enums.store_enum(self, self.registry.enums[t.name], value, default)
        out_object: dict[str, Any] = {}
        result = ResultCode.task_only(Tasks.WriteValue)
        if store_type_id:
            out_object[_classes.TYPE_FIELD] = _classes.type_name(self.registry, t)
            result = ResultCode.of(Tasks.WriteValue, Outcomes.Success)
        if t.kind == "class":
            info = self.registry.classes[t.name]
            if value is None:
                return {}, self.report(Tasks.ReadField, Outcomes.Catastrophic,
                                       "Target object for Json Serialization is pointing to "
                                       "nothing during storing.")
            code = _classes.store_class(self, info, value, default, out_object)
        else:
            code = self.report(Tasks.WriteValue,
                               Outcomes.Success if self.keep_defaults else Outcomes.DefaultsUsed,
                               "Class didn't contain any elements to store.")
        return out_object, result.combine(code)

    def serializer_store(self, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
        """The type's own serializer."""
        kind = t.kind
        if kind in ("bool", "int", "float", "string", "uuid"):
            return _primitives.store_leaf(self, t, value, default)
        if kind == "math":
            return _math.store_math(self, t, value, default)
        if kind == "seq":
            return _containers.store_seq(self, t, value)
        if kind == "array":
            return _containers.store_array(self, t, value, default)
        if kind == "tuple":
            return _containers.store_tuple(self, t, value, default)
        if kind == "map":
            return _containers.store_map(self, t, value)
        if kind == "pointer":
            return self.store_pointer(t.args[0], value, None if default is NO_DEFAULT
                                      else default)
        if kind == "any":
            return _pointers.store_any(self, value, default)
        if kind == "custom":
            out, code = self.registry.serializers[t.name][0].store(self, value, default)
            return out, code
        return {}, self.report(Tasks.WriteValue, Outcomes.Invalid,
                               f"{t.flavor} is not supported by the JSON serializer by design.")

    def store_pointer(self, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
        self.enter()
        try:
            return _pointers.store_pointer(self, t, value, default)
        finally:
            self.leave()

    def store_new_default(self, t: TypeExpr, value: Any, pointer: bool) -> tuple[Any, ResultCode]:
        if pointer:
            return self.store_pointer(t, value, NO_DEFAULT)
        if self.keep_defaults:
            return self.store(t, value, NO_DEFAULT)
        if self.registry.can_create(t) and self._known(t):
            return self.store(t, value, self.registry.create(t))
        code = self.report(Tasks.CreateDefault, Outcomes.Unsupported,
                           "No factory available to create a default object for comparison.")
        if code.halted:
            return {}, code
        out, stored = self.store(t, value, NO_DEFAULT)
        return out, code.combine(stored)


def store(value: Any, type: str | TypeExpr | None = None, *, registry: Registry,
          keep_defaults: bool = False, default: Any = NO_DEFAULT,
          reporter: Reporter | None = None) -> tuple[Any, Result]:
    """Store ``value`` as ``type`` (``JsonSerialization::Store``; the type may be left out for
    instances of registered classes, enums and custom types and for math values). ``default``
    is the object to compare with (absent: a default instance of the type); with
    ``keep_defaults`` nothing is left out. Returns the JSON value (``{}`` when only defaults
    were found) and the :class:`Result`. Raises :class:`~gameserde.errors.EncodeError` for a
    Python value that is not of the type."""
    if type is None:
        found = registry.type_of_value(value)
        if found is None:
            raise EncodeError(f"the type of {describe(value)} is not registered; pass it as type=",
                              format="o3de")
        t = found
    else:
        t = registry.resolve(type, lazy=True)
    if _plans.ENABLED and reporter is None and (value is not None or t.kind == "pointer"):
        plan = plan_for(registry, t, keep_defaults, partial(_reference, registry, keep_defaults))
        try:
            with recursion_room(MAX_DEPTH * 8), collector_paused():
                out, packed = plan(value, default, 0)
        except _plans.Slow:
            pass
        else:
            return out, Result(ResultCode(packed), [])
    ctx = _Storer(registry, reporter, keep_defaults)
    if value is None and t.kind not in ("pointer", "rejected"):
        code = ctx.report(Tasks.ReadField, Outcomes.Catastrophic,
                          "Target object for Json Serialization is pointing to nothing during "
                          "storing.")
        return {}, Result(code, ctx.issues)
    with recursion_room(MAX_DEPTH * 8):
        out, code = ctx.store(t, value, default)
    return out, Result(code, ctx.issues)


def _reference(registry: Registry, keep_defaults: bool, way: str, t: TypeExpr, value: Any,
               default: Any, depth: int) -> tuple[Any, ResultCode, bool]:
    """The reference for one value, for the plans (``_storeplan.Reference``)."""
    ctx = _Storer(registry, None, keep_defaults)
    ctx.depth = depth
    if way == "call":
        out, code = ctx.store(t, value, default)
    elif way == "pointer":
        out, code = ctx.store_pointer(t, value, default)
    else:
        out, code = ctx.store_with_class_data(t, value, default, False)
    return out, code, bool(ctx.issues)


def store_type_id(type: str | TypeExpr | UUID, *, registry: Registry,
                  reporter: Reporter | None = None) -> tuple[Any, Result]:
    """``JsonSerialization::StoreTypeId``: the registered name, ``{UUID} Name`` when several
    registered types share the name; ``{}`` and Unknown (RetrieveInfo, Halted) for a type the
    registry does not hold: a uuid it does not know, a class or enum that is not registered,
    or a template of one (the engine finds no class data for its id)."""
    ctx = _Storer(registry, reporter, False)
    t = registry.by_uuid(type) if isinstance(type, UUID) else registry.resolve(type, lazy=True)
    if t is None or not _registered(registry, t):
        named = uuid_text(type) if isinstance(type, UUID) else type
        return {}, Result(ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                     f"Unable to retrieve description for type {named}."),
                          ctx.issues)
    return _classes.type_name(registry, t), Result(ctx.report(
        Tasks.WriteValue, Outcomes.Success, "Type id successfully stored to json value."),
        ctx.issues)


def _registered(registry: Registry, t: TypeExpr) -> bool:
    """Whether every class and enum ``t`` names (itself or as a template argument) is
    registered."""
    pending = [t]
    while pending:
        item = pending.pop()
        if (item.kind == "class" and item.name not in registry.classes) or (
                item.kind == "enum" and item.name not in registry.enums):
            return False
        pending.extend(item.args)
    return True
