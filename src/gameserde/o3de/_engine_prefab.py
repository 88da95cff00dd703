"""The engine's hand-written serializers of prefab files, written again from what O3DE's
serializers do (``JsonEntitySerializer``, the prefab ``InstanceEntityIdMapper``,
``JsonInstanceSerializer``, the link DOM, the composition and sort components' loaders), plus
the stand-in for ``AZ::Component*`` that keeps components of types the registry does not
know."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gameserde.o3de._classes import TYPE_FIELD, resolve_type_text
from gameserde.o3de._context import NO_DEFAULT, LoadContext, is_object, members
from gameserde.o3de._engine_fields import (
    expect,
    find,
    load_field,
    not_object,
    skip_others,
    store_field,
)
from gameserde.o3de.registry import LEAVES, Serializer, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks

__all__ = ["COMPONENT", "ComponentMapSerializer", "ComponentPointerSerializer", "Entity",
           "EntityIdSerializer", "EntitySerializer", "Prefab", "PrefabLink",
           "PrefabLinkSerializer", "PrefabSerializer", "UncheckedComponent"]

COMPONENT = TypeExpr("class", "AZ::Component")
ENTITY = TypeExpr("custom", "AZ::Entity")
ENTITY_ID = TypeExpr("custom", "AZ::EntityId")
COMPONENT_MAP = "unordered_map<AZStd::string, ComponentPointer>"
COMPONENT_POINTER = TypeExpr("custom", "ComponentPointer")
WRAPPER = "AzToolsFramework::Components::GenericComponentWrapper"
SORT = "AzToolsFramework::Components::EditorEntitySortComponent"
_PATCH_OPS = ("add", "remove", "replace", "move", "copy", "test")


@dataclass(eq=True)
class UncheckedComponent:
    """A component whose ``$type`` the registry does not know: its JSON, kept as it is and
    written back unchanged."""

    json: Any


@dataclass
class Entity:
    """``AZ::Entity`` as a prefab holds it: its alias (``Entity_[...]`` or
    ``ContainerEntity``), name, components by alias, and whether it starts active."""

    id: str = ""
    name: str = ""
    components: dict[str, Any] = field(default_factory=dict)
    runtime_active: bool = True


@dataclass
class PrefabLink:
    """A nested instance in a prefab file: the prefab it instantiates and the JSON Patch
    operations applied to it."""

    source: str = ""
    patches: list[Any] = field(default_factory=list)


@dataclass
class Prefab:
    """A prefab file (the template DOM of ``AzToolsFramework::Prefab::Instance``)."""

    source: str = ""
    container_entity: Entity | None = None
    entities: dict[str, Entity] = field(default_factory=dict)
    instances: dict[str, PrefabLink] = field(default_factory=dict)


class EntityIdSerializer(Serializer):
    """``JsonEntityIdSerializer`` with the prefab ``InstanceEntityIdMapper``: an entity id is
    the entity's alias as a string (``""`` is the invalid id); anything that is not a string
    reads as the invalid id. Both directions report Success, so the id is always written."""

    def create(self) -> Any:
        return ""

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        alias = value if isinstance(value, str) else ""
        return alias, ctx.report(Tasks.ReadField, Outcomes.Success,
                                 "Successfully mapped Entity Id For Prefab Instance load")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        expect(ctx, value, str)
        return value, ctx.report(Tasks.WriteValue, Outcomes.Success,
                                 "Successfully mapped Entity Id For Prefab Instance store")


class ComponentPointerSerializer(Serializer):
    """gameserde's stand-in for an ``AZ::Component*`` (component maps, ``m_template``): a
    pointer load and store, except that an object whose ``$type`` names no registered type
    is reported as the engine reports it (RetrieveInfo, Unknown) and kept as an
    :class:`UncheckedComponent` instead of halting the load."""

    manual_default = True

    def create(self) -> Any:
        return None

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if is_object(value):
            found, text = find(value, TYPE_FIELD)
            if found and isinstance(text, str):
                how, t, _ = resolve_type_text(ctx.registry, text, COMPONENT)
                if how != "explicit" or t is None or (t.kind == "class"
                                                     and t.name not in ctx.registry.classes):
                    why = ("names several registered types; use the uuid of the intended "
                           "one" if how == "multiple" else "is not a registered type")
                    ctx.report(Tasks.RetrieveInfo, Outcomes.Unknown,
                               f"Unable to resolve provided type: {text!r:.80} {why}. The "
                               "component is kept as it is, unchecked.")
                    return UncheckedComponent(value), ResultCode.of(Tasks.ReadField,
                                                                    Outcomes.Success)
        if isinstance(current, UncheckedComponent):
            current = None
        return ctx.load_pointer(COMPONENT, current, value)  # type: ignore[no-any-return]

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        if isinstance(value, UncheckedComponent):
            return value.json, ResultCode.of(Tasks.WriteValue, Outcomes.Success)
        if default is None or isinstance(default, UncheckedComponent):
            default = NO_DEFAULT
        return ctx.store_pointer(COMPONENT, value, default)  # type: ignore[no-any-return]


class ComponentMapSerializer(Serializer):
    """The components of ``EditorPendingCompositionComponent`` and
    ``EditorDisabledCompositionComponent``: a map of alias to component, or (older files) an
    array of components, each then keyed by its serialized identifier or ``Component_[Id]``;
    written as the map."""

    def create(self) -> Any:
        return {}

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        target = current if isinstance(current, dict) else {}
        if not isinstance(value, list):
            loaded, code = ctx.load(ctx.registry.resolve(COMPONENT_MAP), target, value, False)
            return _kept(ctx, loaded), code
        result = ResultCode.task_only(Tasks.ReadField)
        for index, element in enumerate(value):
            ctx.push(index)
            try:
                component, code = ctx.load(COMPONENT_POINTER, None, element, True)
            finally:
                ctx.pop()
            result = result.combine(code)
            if code.halted:
                return target, code
            if _kept(ctx, {0: component}) and not code.altered:
                target.setdefault(f"Component_[{_component_id(component)}]", component)
        return target, ctx.report_code(result, "Read the components of an array.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        return ctx.store(ctx.registry.resolve(COMPONENT_MAP), value, default)  # type: ignore[no-any-return]


def _kept(ctx: LoadContext, components: dict[Any, Any]) -> dict[Any, Any]:
    """The components an entity keeps: not null, and not a ``GenericComponentWrapper``
    without a template (the engine drops both when it loads an entity or a composition)."""
    def wrapper(component: Any) -> bool:
        t = ctx.registry.type_of_value(component)
        return t is not None and t.name == WRAPPER
    return {k: c for k, c in components.items()
            if c is not None and not (wrapper(c) and getattr(c, "m_template", None) is None)}


def _order_children(ctx: LoadContext, components: dict[str, Any]) -> None:
    """``JsonEditorEntitySortComponentSerializer``: an ``EditorEntitySortComponent`` of an
    older file holds ``ChildEntityOrderEntryArray``; when ``Child Entity Order`` is empty it
    becomes that list, by ``SortIndex``. Only ``Child Entity Order`` is written back."""
    for component in components.values():
        t = ctx.registry.type_of_value(component)
        if t is None or t.name != SORT:
            continue
        entries = component.ChildEntityOrderEntryArray
        if not component.Child_Entity_Order and entries:
            ordered = sorted(entries, key=lambda entry: entry.SortIndex)
            component.Child_Entity_Order = [entry.EntityId for entry in ordered]
        component.ChildEntityOrderEntryArray = []


def _component_id(component: Any) -> Any:
    if isinstance(component, UncheckedComponent):
        found, number = find(component.json, "Id")
        return number if found and isinstance(number, int) else 0
    return getattr(component, "Id", 0)


class EntitySerializer(Serializer):
    """``JsonEntitySerializer``: ``Id`` (an entity without a valid one is Invalid and halts),
    ``Name``, ``Components`` and ``IsRuntimeActive``, read by exact name."""

    _NAMES = ("Id", "Name", "Components", "IsRuntimeActive")

    def create(self) -> Any:
        return Entity()

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not is_object(value):
            return not_object(ctx, current, "AZ::Entity")
        entity = current if isinstance(current, Entity) else Entity()
        registry = ctx.registry
        entity.id, id_code = load_field(ctx, value, "Id", ENTITY_ID, entity.id)
        if not entity.id:
            return entity, ctx.report(
                Tasks.ReadField, Outcomes.Invalid,
                "Invalid or missing entity ID - please add an 'Id' field to this entity with a "
                "globally unique id.  \nFailed to load entity information.")
        result = ResultCode.task_only(Tasks.ReadField).combine(id_code)
        entity.name, code = load_field(ctx, value, "Name", LEAVES["AZStd::string"], entity.name)
        result = result.combine(code)
        loaded: dict[str, Any] = {}
        loaded, code = load_field(ctx, value, "Components", registry.resolve(COMPONENT_MAP),
                                   loaded)
        entity.components.update(_kept(ctx, loaded))
        _order_children(ctx, entity.components)
        result = result.combine(code)
        entity.runtime_active, _ = load_field(ctx, value, "IsRuntimeActive", LEAVES["bool"],
                                               entity.runtime_active)
        result = result.combine(skip_others(ctx, value, self._NAMES))
        message = ("Successfully loaded entity information." if result.completed else
                   "Partially loaded entity information." if not result.halted else
                   "Failed to load entity information.")
        return entity, ctx.report_code(result, message)

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        expect(ctx, value, Entity)
        if not isinstance(default, Entity):
            default = NO_DEFAULT if ctx.keep_defaults else Entity()
        out: dict[str, Any] = {}
        registry = ctx.registry

        def part(name: str) -> Any:
            return NO_DEFAULT if default is NO_DEFAULT else getattr(default, name)

        result = store_field(ctx, out, "Id", ENTITY_ID, value.id, part("id"))
        result = result.combine(store_field(ctx, out, "Name", LEAVES["AZStd::string"],
                                             value.name, part("name")))
        result = result.combine(store_field(ctx, out, "Components",
                                             registry.resolve(COMPONENT_MAP), value.components,
                                             part("components")))
        result = result.combine(store_field(ctx, out, "IsRuntimeActive", LEAVES["bool"],
                                             value.runtime_active, part("runtime_active")))
        return out, ctx.report_code(result, "Successfully stored Entity information."
                                    if not result.halted else "Failed to store Entity information.")


class PrefabLinkSerializer(Serializer):
    """A nested instance as a prefab file holds it (``Link::ConstructLinkDomFromPatches``):
    ``Source`` always, ``Patches`` when there are any. Each patch must be a JSON Patch
    operation O3DE can apply (an object with a known ``op`` and a string ``path``); others are
    reported Invalid and kept."""

    _NAMES = ("Source", "Patches")

    def create(self) -> Any:
        return PrefabLink()

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not is_object(value):
            return not_object(ctx, current, "A nested prefab instance")
        link = current if isinstance(current, PrefabLink) else PrefabLink()
        link.source, result = load_field(ctx, value, "Source", LEAVES["AZStd::string"],
                                          link.source)
        found, patches = find(value, "Patches")
        if found:
            ctx.push("Patches")
            try:
                result = result.combine(self._patches(ctx, link, patches))
            finally:
                ctx.pop()
        result = result.combine(skip_others(ctx, value, self._NAMES))
        return link, result

    @staticmethod
    def _patches(ctx: LoadContext, link: PrefabLink, patches: Any) -> ResultCode:
        if not isinstance(patches, list):
            return ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                              "The patches of a nested instance must be a JSON Patch array.")
        result = ResultCode.of(Tasks.ReadField, Outcomes.Success)
        for index, entry in enumerate(patches):
            op = dict(members(entry)).get("op") if is_object(entry) else None
            path = dict(members(entry)).get("path") if is_object(entry) else None
            if op not in _PATCH_OPS or not isinstance(path, str):
                ctx.push(index)
                ctx.report(Tasks.ReadField, Outcomes.Invalid,
                           "Not a JSON Patch operation O3DE can apply (an object with a known "
                           "'op' and a string 'path').")
                ctx.pop()
        link.patches = list(patches)
        return result

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        expect(ctx, value, PrefabLink)
        out: dict[str, Any] = {}
        result = store_field(ctx, out, "Source", LEAVES["AZStd::string"], value.source,
                              NO_DEFAULT)
        if value.patches or ctx.keep_defaults:
            out["Patches"] = list(value.patches)
        return out, result


class PrefabSerializer(Serializer):
    """``JsonInstanceSerializer`` over a prefab file: reads ``Source``, ``Instances``,
    ``ContainerEntity`` and ``Entities`` by exact name; writes ``Source`` (unless empty),
    ``ContainerEntity`` (unless the file had none), ``Entities`` and ``Instances`` (unless
    empty), maps sorted by alias."""

    _NAMES = ("Source", "ContainerEntity", "Entities", "Instances", "LinkId")
    ENTITIES = "unordered_map<AZStd::string, AZ::Entity>"
    INSTANCES = "unordered_map<AZStd::string, AzToolsFramework::Prefab::Link>"

    def create(self) -> Any:
        return Prefab()

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not is_object(value):
            return not_object(ctx, current, "A prefab")
        prefab = current if isinstance(current, Prefab) else Prefab()
        registry = ctx.registry
        prefab.source, result = load_field(ctx, value, "Source", LEAVES["AZStd::string"],
                                            prefab.source)
        prefab.instances, code = load_field(ctx, value, "Instances",
                                             registry.resolve(self.INSTANCES), prefab.instances)
        result = result.combine(code)
        if not code.halted:
            target = prefab.container_entity or Entity()
            target, code = load_field(ctx, value, "ContainerEntity", ENTITY, target)
            if find(value, "ContainerEntity")[0] and not code.halted:
                prefab.container_entity = target
            result = result.combine(code)
        if not code.halted:
            prefab.entities, code = load_field(ctx, value, "Entities",
                                                registry.resolve(self.ENTITIES), prefab.entities)
            result = result.combine(code)
        result = result.combine(skip_others(ctx, value, self._NAMES))
        return prefab, ctx.report_code(result, "Successfully loaded instance information for "
                                       "prefab." if result.completed else
                                       "Failed to load instance information for prefab")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        expect(ctx, value, Prefab)
        out: dict[str, Any] = {}
        registry = ctx.registry
        result = store_field(ctx, out, "Source", LEAVES["AZStd::string"], value.source, "")
        if value.container_entity is not None:
            result = result.combine(store_field(ctx, out, "ContainerEntity", ENTITY,
                                                 value.container_entity, NO_DEFAULT))
        elif ctx.keep_defaults:
            out["ContainerEntity"] = None
        result = result.combine(store_field(ctx, out, "Entities",
                                             registry.resolve(self.ENTITIES), value.entities,
                                             NO_DEFAULT))
        result = result.combine(store_field(ctx, out, "Instances",
                                             registry.resolve(self.INSTANCES), value.instances,
                                             NO_DEFAULT))
        return out, ctx.report_code(result, "Successfully stored Instance information for "
                                    "Prefab." if result.completed else
                                    "Failed to store Instance information for Prefab.")
