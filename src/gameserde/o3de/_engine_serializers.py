"""The engine's own JSON serializers that prefab and material files go through, written
again from what O3DE's serializers do (``JsonEntitySerializer``, the prefab
``InstanceEntityIdMapper``, ``JsonInstanceSerializer``, the link DOM, ``AssetJsonSerializer``,
``JsonMaterialPropertyValueSerializer``), plus the stand-in for ``AZ::Component*`` that keeps
components of types the registry does not know."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._classes import TYPE_FIELD, resolve_type_text
from gameserde.o3de._context import (
    NO_DEFAULT,
    LoadContext,
    StoreContext,
    describe,
    is_object,
    members,
)
from gameserde.o3de.registry import LEAVES, Serializer, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.values import Color, Vector2, Vector3, Vector4

__all__ = ["COMPONENT", "AssetReference", "AssetSerializer", "ComponentMapSerializer",
           "ComponentPointerSerializer",
           "Entity", "EntityIdSerializer", "EntitySerializer", "MaterialPropertyValueSerializer",
           "Prefab", "PrefabLink", "PrefabLinkSerializer", "PrefabSerializer",
           "UncheckedComponent"]

COMPONENT = TypeExpr("class", "AZ::Component")
ENTITY = TypeExpr("custom", "AZ::Entity")
ENTITY_ID = TypeExpr("custom", "AZ::EntityId")
COMPONENT_MAP = "unordered_map<AZStd::string, ComponentPointer>"
COMPONENT_POINTER = TypeExpr("custom", "ComponentPointer")
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


@dataclass
class AssetReference:
    """``AZ::Data::Asset<T>``: the asset id (an ``AZ::Data::AssetId`` instance), the load
    behaviour (``AssetLoadBehavior``: 0 PreLoad, 1 QueueLoad, 2 NoLoad) and the hint."""

    asset_id: Any = None
    load_behavior: int = 1
    hint: str = ""


def _find(value: Any, name: str) -> tuple[bool, Any]:
    """rapidjson's ``FindMember``: the first member of exactly that name."""
    for key, member in members(value):
        if key == name:
            return True, member
    return False, None


def _load_field(ctx: LoadContext, value: Any, name: str, t: TypeExpr, current: Any
                ) -> tuple[Any, ResultCode]:
    """``ContinueLoadingFromJsonObjectField``: DefaultsUsed when the member is missing."""
    found, member = _find(value, name)
    if not found:
        return current, ResultCode.of(Tasks.ReadField, Outcomes.DefaultsUsed)
    ctx.push(name)
    try:
        return ctx.load(t, current, member, False)
    finally:
        ctx.pop()


def _skip_others(ctx: LoadContext, value: Any, names: tuple[str, ...]) -> ResultCode:
    """Members the engine's serializer never looks at, reported Skipped (the engine ignores
    them silently; gameserde reports them so that nothing goes unseen)."""
    result = ResultCode.task_only(Tasks.ReadField)
    for key, _ in members(value):
        if key not in names and key != TYPE_FIELD:
            ctx.push(key)
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.Skipped,
                "Skipping field as the engine's serializer does not read it."))
            ctx.pop()
    return result


def _store_field(ctx: StoreContext, out: dict[str, Any], name: str, t: TypeExpr, value: Any,
                 default: Any) -> ResultCode:
    """``ContinueStoringToJsonObjectField``: the member is left out when it holds the
    default (unless defaults are kept) or storing it halted."""
    ctx.push(name)
    try:
        stored, code = ctx.store(t, value, default)
    finally:
        ctx.pop()
    if not code.halted and (ctx.keep_defaults or code.outcome is not Outcomes.DefaultsUsed):
        out[name] = stored
    return code


def _expect(ctx: StoreContext, value: Any, cls: type) -> None:
    """A value of another Python type cannot be stored as this type (EncodeError)."""
    if not isinstance(value, cls):
        raise EncodeError(f"{describe(value)} is not a {cls.__name__}",
                          path="$." + ctx.path_text(), format="o3de")


def _not_object(ctx: LoadContext, current: Any, what: str) -> tuple[Any, ResultCode]:
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               f"{what} can only be read from a JSON object.")


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
        _expect(ctx, value, str)
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
            found, text = _find(value, TYPE_FIELD)
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
            return ctx.load(  # type: ignore[no-any-return]
                ctx.registry.resolve(COMPONENT_MAP), target, value, False)
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
            if component is not None and not code.altered:
                target.setdefault(f"Component_[{_component_id(component)}]", component)
        return target, ctx.report_code(result, "Read the components of an array.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        return ctx.store(ctx.registry.resolve(COMPONENT_MAP), value, default)  # type: ignore[no-any-return]


def _component_id(component: Any) -> Any:
    if isinstance(component, UncheckedComponent):
        found, number = _find(component.json, "Id")
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
            return _not_object(ctx, current, "AZ::Entity")
        entity = current if isinstance(current, Entity) else Entity()
        registry = ctx.registry
        entity.id, id_code = _load_field(ctx, value, "Id", ENTITY_ID, entity.id)
        if not entity.id:
            return entity, ctx.report(
                Tasks.ReadField, Outcomes.Invalid,
                "Invalid or missing entity ID - please add an 'Id' field to this entity with a "
                "globally unique id.  \nFailed to load entity information.")
        result = ResultCode.task_only(Tasks.ReadField).combine(id_code)
        entity.name, code = _load_field(ctx, value, "Name", LEAVES["AZStd::string"], entity.name)
        result = result.combine(code)
        loaded: dict[str, Any] = {}
        loaded, code = _load_field(ctx, value, "Components", registry.resolve(COMPONENT_MAP),
                                   loaded)
        entity.components.update((k, c) for k, c in loaded.items() if c is not None)
        result = result.combine(code)
        entity.runtime_active, _ = _load_field(ctx, value, "IsRuntimeActive", LEAVES["bool"],
                                               entity.runtime_active)
        result = result.combine(_skip_others(ctx, value, self._NAMES))
        message = ("Successfully loaded entity information." if result.completed else
                   "Partially loaded entity information." if not result.halted else
                   "Failed to load entity information.")
        return entity, ctx.report_code(result, message)

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        _expect(ctx, value, Entity)
        if not isinstance(default, Entity):
            default = NO_DEFAULT if ctx.keep_defaults else Entity()
        out: dict[str, Any] = {}
        registry = ctx.registry

        def part(name: str) -> Any:
            return NO_DEFAULT if default is NO_DEFAULT else getattr(default, name)

        result = _store_field(ctx, out, "Id", ENTITY_ID, value.id, part("id"))
        result = result.combine(_store_field(ctx, out, "Name", LEAVES["AZStd::string"],
                                             value.name, part("name")))
        result = result.combine(_store_field(ctx, out, "Components",
                                             registry.resolve(COMPONENT_MAP), value.components,
                                             part("components")))
        result = result.combine(_store_field(ctx, out, "IsRuntimeActive", LEAVES["bool"],
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
            return _not_object(ctx, current, "A nested prefab instance")
        link = current if isinstance(current, PrefabLink) else PrefabLink()
        link.source, result = _load_field(ctx, value, "Source", LEAVES["AZStd::string"],
                                          link.source)
        found, patches = _find(value, "Patches")
        if found:
            ctx.push("Patches")
            try:
                result = result.combine(self._patches(ctx, link, patches))
            finally:
                ctx.pop()
        result = result.combine(_skip_others(ctx, value, self._NAMES))
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
        _expect(ctx, value, PrefabLink)
        out: dict[str, Any] = {}
        result = _store_field(ctx, out, "Source", LEAVES["AZStd::string"], value.source,
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
            return _not_object(ctx, current, "A prefab")
        prefab = current if isinstance(current, Prefab) else Prefab()
        registry = ctx.registry
        prefab.source, result = _load_field(ctx, value, "Source", LEAVES["AZStd::string"],
                                            prefab.source)
        prefab.instances, code = _load_field(ctx, value, "Instances",
                                             registry.resolve(self.INSTANCES), prefab.instances)
        result = result.combine(code)
        if not code.halted:
            target = prefab.container_entity or Entity()
            target, code = _load_field(ctx, value, "ContainerEntity", ENTITY, target)
            if _find(value, "ContainerEntity")[0] and not code.halted:
                prefab.container_entity = target
            result = result.combine(code)
        if not code.halted:
            prefab.entities, code = _load_field(ctx, value, "Entities",
                                                registry.resolve(self.ENTITIES), prefab.entities)
            result = result.combine(code)
        result = result.combine(_skip_others(ctx, value, self._NAMES))
        return prefab, ctx.report_code(result, "Successfully loaded instance information for "
                                       "prefab." if result.completed else
                                       "Failed to load instance information for prefab")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        _expect(ctx, value, Prefab)
        out: dict[str, Any] = {}
        registry = ctx.registry
        result = _store_field(ctx, out, "Source", LEAVES["AZStd::string"], value.source, "")
        if value.container_entity is not None:
            result = result.combine(_store_field(ctx, out, "ContainerEntity", ENTITY,
                                                 value.container_entity, NO_DEFAULT))
        elif ctx.keep_defaults:
            out["ContainerEntity"] = None
        result = result.combine(_store_field(ctx, out, "Entities",
                                             registry.resolve(self.ENTITIES), value.entities,
                                             NO_DEFAULT))
        result = result.combine(_store_field(ctx, out, "Instances",
                                             registry.resolve(self.INSTANCES), value.instances,
                                             NO_DEFAULT))
        return out, ctx.report_code(result, "Successfully stored Instance information for "
                                    "Prefab." if result.completed else
                                    "Failed to store Instance information for Prefab.")


class AssetSerializer(Serializer):
    """``AssetJsonSerializer`` (``Asset<T>``): an object with ``assetId``, ``loadBehavior``
    and ``assetHint``; each is written only when it differs from the default. No asset
    catalog here, so a loaded id is kept as it is (the engine reports PartialDefaults when
    its catalog does not know the id; gameserde reports Success)."""

    ASSET_ID = TypeExpr("class", "AZ::Data::AssetId")
    BEHAVIOR = TypeExpr("enum", "AZ::Data::AssetLoadBehavior")

    def create(self) -> Any:
        return AssetReference()

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if not is_object(value):
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       "Unsupported type. Asset<T> can only be read from an "
                                       "object.")
        asset = current if isinstance(current, AssetReference) else AssetReference()
        registry = ctx.registry
        asset.load_behavior, result = _load_field(ctx, value, "loadBehavior", self.BEHAVIOR,
                                                  asset.load_behavior)
        found, member = _find(value, "assetId")
        if found:
            ctx.push("assetId")
            try:
                asset_id, code = ctx.load(self.ASSET_ID, registry.create(self.ASSET_ID), member,
                                          False)
            finally:
                ctx.pop()
            result = result.combine(code)
            if code.completed:
                asset.asset_id = asset_id
        else:
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.DefaultsUsed, "The asset id is missing, so there's not "
                "enough information to create an Asset<T>."))
        found, member = _find(value, "assetHint")
        if found:
            ctx.push("assetHint")
            try:
                asset.hint, code = ctx.load(LEAVES["AZStd::string"], "", member, False)
            finally:
                ctx.pop()
            result = result.combine(code)
        else:
            result = result.combine(ctx.report(
                Tasks.ReadField, Outcomes.DefaultsUsed, "The asset hint is missing for Asset<T>, "
                "so it will be left empty."))
        return asset, ctx.report_code(result, "Successfully loaded information and created "
                                      "instance of Asset<T>." if result.completed else
                                      "Not enough information was available to create an "
                                      "instance of Asset<T> or data was corrupted.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        _expect(ctx, value, AssetReference)
        registry = ctx.registry
        if not isinstance(default, AssetReference):
            default = AssetReference()
        out: dict[str, Any] = {}
        asset_id = value.asset_id if value.asset_id is not None else registry.create(
            self.ASSET_ID)
        default_id = default.asset_id if default.asset_id is not None else registry.create(
            self.ASSET_ID)
        ctx.push("assetId")
        try:
            stored, result = ctx.store(self.ASSET_ID, asset_id, default_id)
        finally:
            ctx.pop()
        if result.outcome in (Outcomes.Success, Outcomes.PartialDefaults):
            out["assetId"] = stored
        result = result.combine(_store_field(ctx, out, "loadBehavior", self.BEHAVIOR,
                                             value.load_behavior, default.load_behavior))
        ctx.push("assetHint")
        try:
            stored, code = ctx.store(LEAVES["AZStd::string"], value.hint, "")
        finally:
            ctx.pop()
        if code.outcome in (Outcomes.Success, Outcomes.PartialDefaults):
            out["assetHint"] = stored
        result = result.combine(code)
        return out, ctx.report_code(result, "Successfully stored Asset<T>." if result.completed
                                    else "Failed to store Asset<T>.")


class MaterialPropertyValueSerializer(Serializer):
    """``JsonMaterialPropertyValueSerializer``: a bool, an integer (int32), a double (float32),
    a 2-4 element array (Vector2/3/4), an object (Color, else Vector4/3/2) or a string; the
    Python value is ``bool``, ``int``, ``float``, ``Vector2/3/4``, ``Color`` or ``str``.
    Stored with no default, so always written. An object is tried as each type in turn; the
    reports of the tries that fail are not kept (the engine reports them too)."""

    _ARRAYS = {2: "Vector2", 3: "Vector3", 4: "Vector4"}

    def create(self) -> Any:
        return None

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        if isinstance(value, bool):
            names = ["bool"]
        elif isinstance(value, int):
            names = ["int"]
        elif isinstance(value, float):
            names = ["float"]
        elif isinstance(value, list) and len(value) in self._ARRAYS:
            names = [self._ARRAYS[len(value)]]
        elif is_object(value):
            names = ["Color", "Vector4", "Vector3", "Vector2"]
        elif isinstance(value, str):
            names = ["AZStd::string"]
        else:
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported, "Unknown data type")
        for index, name in enumerate(names):
            t = LEAVES[name]
            trial = index < len(names) - 1
            if trial:
                ctx.reporters.append(lambda message, code, path: code)
            try:
                loaded, code = ctx.load(t, ctx.registry.create(t), value, False)
            finally:
                if trial:
                    ctx.reporters.pop()
            if code.completed:
                break
        if len(names) > 1 and not code.completed:
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported, "Unknown data type")
        if code.halted or code.altered:
            return current, ctx.report_code(code, "Partially loaded property value.")
        return loaded, ctx.report_code(code, "Successfully loaded property value.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        kinds: list[tuple[type, str]] = [
            (bool, "bool"), (int, "int"), (float, "float"), (Vector2, "Vector2"),
            (Vector3, "Vector3"), (Vector4, "Vector4"), (Color, "Color"), (str, "AZStd::string")]
        for cls, name in kinds:
            if type(value) is cls:
                out, code = ctx.store(LEAVES[name], value, NO_DEFAULT)
                return out, ctx.report_code(code, "Successfully stored property value."
                                            if code.completed else
                                            "Partially stored property value.")
        return {}, ctx.report(Tasks.WriteValue, Outcomes.Unsupported,
                              f"MaterialPropertyValue type {type(value).__name__} is not "
                              "supported.")
