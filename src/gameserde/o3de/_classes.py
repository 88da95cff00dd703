"""Reflected classes (``LoadClass``/``StoreClass``) and type names (``$type``)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from gameserde.errors import EncodeError, SchemaError
from gameserde.o3de._context import NO_DEFAULT, LoadContext, StoreContext, describe, members
from gameserde.o3de.registry import ClassInfo, FieldInfo, Registry, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.typeid import name_crc, search_uuid, uuid_text

__all__ = ["TYPE_FIELD", "load_class", "resolve_type_text", "store_class", "type_name"]

TYPE_FIELD = "$type"
_SPACE = " \t\n\v\f\r"
_GENERIC = ("seq", "array", "tuple", "map", "pointer")


def _find_field(info: ClassInfo, name: str) -> FieldInfo | None:
    if info.by_crc is None:
        info.by_crc = {name_crc(f.name): f for f in info.all_fields}
    return info.by_crc.get(name_crc(name))


def load_class(ctx: LoadContext, info: ClassInfo, current: Any, value: Any
               ) -> tuple[Any, ResultCode]:
    """``LoadClass``: members in document order onto ``current``; unknown names Skipped."""
    loads = 0
    result = ResultCode.task_only(Tasks.ReadField)
    for name, member in members(value):
        if name == TYPE_FIELD:
            continue
        f = _find_field(info, name)
        ctx.push(name)
        try:
            if f is None:
                result = result.combine(ctx.report(
                    Tasks.ReadField, Outcomes.Skipped,
                    "Skipping field as there's no matching variable in the target."))
                continue
            old = getattr(current, f.attr)
            if f.type.kind == "pointer" and f.type.flavor == "raw":
                new, code = ctx.load_pointer(f.type.args[0], old, member)
            else:
                new, code = ctx.load(f.type, old, member, False)
            setattr(current, f.attr, new)
            result = result.combine(code)
            if code.halted:
                return current, ctx.report_code(code, "Loading of element has failed.")
            if not code.altered:
                loads += 1
        finally:
            ctx.pop()
    if len(info.all_fields) > loads:
        result = result.combine(ResultCode.of(
            Tasks.ReadField, Outcomes.DefaultsUsed if loads == 0 else Outcomes.PartialDefaults))
    return current, result


def store_class(ctx: StoreContext, info: ClassInfo, value: Any, default: Any,
                out: dict[str, Any]) -> ResultCode:
    """``StoreClass``: every field, base classes' first, into ``out``; a field equal to its
    default is left out unless defaults are kept."""
    if not info.all_fields:
        return ctx.report(Tasks.WriteValue,
                          Outcomes.Success if ctx.keep_defaults else Outcomes.DefaultsUsed,
                          "Class didn't contain any elements to store.")
    result = ResultCode.task_only(Tasks.WriteValue)
    for f in info.all_fields:
        ctx.push(f.name)
        try:
            try:
                element = getattr(value, f.attr)
            except AttributeError:
                raise EncodeError(f"{describe(value)} has no attribute {f.attr} for the field "
                                  f"{f.name}",
                                  path="$." + ctx.path_text(), format="o3de") from None
            element_default = NO_DEFAULT
            if default is not NO_DEFAULT and default is not None:
                element_default = getattr(default, f.attr)
            unwritten = ctx.unwritten
            if f.type.kind == "pointer" and f.type.flavor == "raw":
                out_value, code = ctx.store_pointer(f.type.args[0], element, element_default)
            else:
                out_value, code = ctx.store_with_class_data(f.type, element, element_default, False)
            if not code.halted and (ctx.keep_defaults or code.outcome is not Outcomes.DefaultsUsed):
                out[f.name] = out_value
            elif (not code.has_done_work and ctx.unwritten == unwritten
                  and element_default is not NO_DEFAULT and differs(element, element_default)):
                lost = report_unwritten_field(ctx)
                if lost.halted:
                    return lost
            result = result.combine(code)
        finally:
            ctx.pop()
    return result


def differs(value: Any, default: Any) -> bool:
    """Whether a value left out (as the engine leaves out a value of nothing but empty
    containers) differs from the default it then loads back as."""
    try:
        return bool(value != default)
    except Exception:  # a value without a usable equality: assume it differs
        return True


def report_unwritten_field(ctx: StoreContext) -> ResultCode:
    """A field left out because it holds nothing but empty containers (the engine's "no work
    done" rule) although its default does not: reported Skipped, as it loads back as the
    default. The code is not combined into the class's (the output and code stay the
    engine's); a reporter that returns a Halted code halts the store."""
    ctx.unwritten += 1
    return ctx.report(Tasks.WriteValue, Outcomes.Skipped,
                      "Field not written: it holds nothing but empty containers (or empty "
                      "AZStd::any values), which the engine leaves out although the default "
                      "differs, so it loads back as the default.")


def type_name(registry: Registry, t: TypeExpr) -> str:
    """``StoreTypeName``: the registered name, or ``{UUID} Name`` when other registered types
    share that name. Templates (``JsonByteStream`` is ``AZStd::vector<AZ::u8>``) and
    ``AZStd::string`` always get the uuid: the engine reflects
    them through a ``GenericClassInfo`` that each module of an application registers again,
    so their names always find several entries there (and a name alone would not load)."""
    name = registry.registered_name(t)
    generic = (t.kind in _GENERIC and t.flavor != "raw") or t.name in ("AZStd::string",
                                                                       "JsonByteStream")
    if not generic and len(registry.by_name(name)) <= 1:
        return name
    return f"{uuid_text(registry.type_id(t))} {name}"


def resolve_type_text(registry: Registry, text: str, base: TypeExpr | None
                      ) -> tuple[str, TypeExpr | None, UUID | None]:
    """``LoadTypeIdFromJsonString``: ``("explicit", type, uuid)`` for a uuid anywhere in the
    text or a name matching one registered type (or one derived from ``base`` among several);
    ``("multiple", None, None)`` or ``("failed", None, None)`` otherwise. A uuid that is not
    registered comes back with type None."""
    found = search_uuid(text)
    if found is not None:
        known = registry.by_uuid(found)
        if known is None and "}" in text:
            known = _template(registry, text.partition("}")[2], found)
        return "explicit", known, found
    candidates = registry.by_name(text.strip(_SPACE))
    if not candidates:
        template = _template(registry, text, None)
        if template is not None:
            return "explicit", template, registry.type_id(template)
        return "failed", None, None
    if len(candidates) == 1:
        return "explicit", candidates[0], registry.type_id(candidates[0])
    if base is not None:
        fitting = [c for c in candidates if registry.is_derived(c, base)]
        if len(fitting) == 1:
            return "explicit", fitting[0], registry.type_id(fitting[0])
    return "multiple", None, None


def _template(registry: Registry, text: str, uuid: UUID | None) -> TypeExpr | None:
    """The template type ``text`` names (as the engine writes it, ``AZStd::vector<double,
    allocator>``, or as gameserde does, ``vector<double>``) when its id is ``uuid`` (if
    given); None otherwise. Templates are not registered one by one, so their names are
    read, not looked up."""
    name = text.strip(_SPACE)
    if "<" not in name:
        return None
    try:
        t = registry.resolve(name)
        if t.kind not in _GENERIC or t.flavor == "raw":
            return None
        if uuid is not None and registry.type_id(t) != uuid:
            return None
    except SchemaError:
        return None
    return t
