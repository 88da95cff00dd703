"""Pointers with polymorphism (``ResolvePointer`` on load and store) and ``AZStd::any``."""

from __future__ import annotations

from typing import Any

from gameserde.o3de._classes import TYPE_FIELD, resolve_type_text, type_name
from gameserde.o3de._context import NO_DEFAULT, LoadContext, StoreContext, is_object, members
from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.values import AnyValue

__all__ = ["dynamic_type", "load_any", "load_pointer", "store_any", "store_pointer"]


def _known(ctx: LoadContext | StoreContext, t: TypeExpr) -> bool:
    return t.kind != "class" or t.name in ctx.registry.classes


def dynamic_type(registry: Registry, declared: TypeExpr, value: Any) -> TypeExpr:
    """The type of the object a pointer to ``declared`` points to (its class, for classes)."""
    if declared.kind == "class":
        found = registry.type_of_value(value)
        if found is not None and found.kind == "class":
            return found
    return declared


def load_pointer(ctx: LoadContext, declared: TypeExpr, current: Any, value: Any
                 ) -> tuple[Any, ResultCode]:
    """``LoadToPointer``: ``null`` clears the pointer; an object's ``$type`` picks the class
    (which must derive from ``declared``); a new object is created when there is none or
    its type changes, and dropped again if loading into it fails."""
    if not _known(ctx, declared):
        return current, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                   f"Failed to retrieve serialization information for {declared}.")
    if value is None:
        return None, ResultCode.of(Tasks.ReadField, Outcomes.Success)
    explicit = False
    target = declared
    if is_object(value):
        type_values = [v for k, v in members(value) if k == TYPE_FIELD]
        if type_values:
            text = type_values[0]
            if not isinstance(text, str):
                return current, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                           "Unable to resolve provided type.")
            how, found, uuid = resolve_type_text(ctx.registry, text, declared)
            if how != "explicit":
                message = ("Unable to resolve provided type because the same name points to "
                           "multiple types." if how == "multiple" else
                           "Unable to resolve provided type.")
                return current, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown, message)
            if found is None or not _known(ctx, found):
                return current, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                           f"Serialization information for target type {uuid} "
                                           "not found.")
            if not ctx.registry.is_derived(found, declared):
                return current, ctx.report(Tasks.Convert, Outcomes.TypeMismatch,
                                           "Requested type can't be cast to the type of the "
                                           "target value.")
            explicit, target = True, found
    was_null, original = current is None, current
    if current is not None:
        actual = dynamic_type(ctx.registry, declared, current)
        if not explicit:
            target = actual
        elif actual != target:
            current = None
    if current is None:
        if target.kind == "class" and ctx.registry.classes[target.name].abstract:
            return original, ctx.report(
                Tasks.CreateDefault, Outcomes.Catastrophic,
                "Unable to create an instance of a base class.")
        current = ctx.registry.create(target)
    loaded, code = ctx.load(target, current, value, True)
    if was_null and (code.halted or code.altered):
        return None, code
    return loaded, code


def store_pointer(ctx: StoreContext, declared: TypeExpr, value: Any, default: Any
                  ) -> tuple[Any, ResultCode]:
    """``StoreWithClassDataFromPointer``: ``null`` for a null pointer; ``$type`` first when
    the object's class differs from ``declared`` and from the default's (or defaults are
    kept); the default object is the default pointer's when of the same class, else a new
    instance of the object's class. A pointee class that is not registered is Unknown,
    whatever the pointer holds (``StoreFromPointer`` and ``StoreWithClassElement`` look up
    the declared type's class data first)."""
    if not _known(ctx, declared):
        return {}, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                              f"Failed to retrieve serialization information for {declared}.")
    default_object = None if default is NO_DEFAULT else default
    if value is None:
        keep = ctx.keep_defaults or default_object is not None
        return None, ResultCode.of(Tasks.RetrieveInfo,
                                   Outcomes.Success if keep else Outcomes.DefaultsUsed)
    actual = dynamic_type(ctx.registry, declared, value)
    actual_default = declared if default_object is None else dynamic_type(ctx.registry, declared,
                                                                          default_object)
    store_type = False
    if actual != declared:
        if not _known(ctx, actual):
            return None, ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                                    f"Failed to retrieve serialization information because type "
                                    f"'{actual}' is unknown.")
        store_type = actual != actual_default or ctx.keep_defaults
    if actual_default != actual:
        default_object = None
    element_default: Any = NO_DEFAULT
    if default_object is not None:
        element_default = default_object
    elif not ctx.keep_defaults:
        if not ctx.registry.can_create(actual):
            return None, ctx.report(Tasks.CreateDefault, Outcomes.Unsupported,
                                    f"No factory available to create a default pointer object "
                                    f"for comparison for type {actual}.")
        element_default = ctx.registry.create(actual)
    return ctx.store_with_class_data(actual, value, element_default, store_type)


def load_any(ctx: LoadContext, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """``JsonAnySerializer::Load``: ``{"$type": name, "Value": v}``; without a resolvable
    ``$type`` the any is left as it is (DefaultsUsed)."""
    if not is_object(value):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. AZStd::any can only be read from an object.")
    fields: dict[str, Any] = {}
    for name, member in members(value):
        fields.setdefault(name, member)
    text = fields.get(TYPE_FIELD)
    found = None
    if isinstance(text, str):
        how, found, _ = resolve_type_text(ctx.registry, text, None)
        if how != "explicit" or found is None or not ctx.registry.can_create(found):
            found = None
    if found is None:
        return current, ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                   "No type information for AZStd::any, so it was left empty.")
    key = "Value" if "Value" in fields else "value"
    instance = ctx.registry.create(found)
    if key not in fields:
        return AnyValue(found.name, instance), ctx.report(
            Tasks.ReadField, Outcomes.DefaultsUsed, "AZStd::any holds a default value.")
    ctx.push(key)
    try:
        loaded, code = ctx.load(found, instance, fields[key], True)
    finally:
        ctx.pop()
    if code.halted or code.altered:
        return current, code
    return AnyValue(found.name, loaded), code


def store_any(ctx: StoreContext, value: Any, default: Any) -> tuple[Any, ResultCode]:
    """``JsonAnySerializer::Store``: ``{}`` for an empty any, with a code that has no outcome
    (it reads as DefaultsUsed, with ``keep_defaults`` too, and counts as no work done in a
    container); else ``$type`` and ``Value`` (left out when it equals the default's value of
    the same type, or a new instance)."""
    if not isinstance(value, AnyValue) or value.type is None:
        return {}, ctx.report_code(ResultCode.task_only(Tasks.WriteValue),
                                   "JsonAnySerializer::Store finished storing AZStd::any")
    held = ctx.registry.resolve(value.type, lazy=True)
    out: dict[str, Any] = {TYPE_FIELD: type_name(ctx.registry, held)}
    result = ResultCode.of(Tasks.WriteValue, Outcomes.Success)
    same = isinstance(default, AnyValue) and default.type == value.type
    ctx.push("Value")
    try:
        # ContinueStoringToJsonObjectField without ReplaceDefault: with no default value of
        # the same type, JsonSerializer::Store makes a default object for a class but a
        # leaf's own serializer gets none and writes the value.
        stored, code = ctx.store(held, value.value, default.value if same else NO_DEFAULT)
    finally:
        ctx.pop()
    if code.halted:
        return {}, code
    if ctx.keep_defaults or code.outcome is not Outcomes.DefaultsUsed:
        out["Value"] = stored
    return out, result.combine(code)
