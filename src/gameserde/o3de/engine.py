"""A registry of the engine's own types that prefab and ``.material`` files use, with O3DE's
type names and UUIDs (o3de/o3de at commit 354a2acc): entities and entity ids, the component
base classes, the editor components every prefab entity carries, the editor transform, asset
ids and ``Asset<T>`` references, nested prefab instances with their patches, the RPI
``MaterialSourceData`` with its property values, and the components of the engine's gems
that real prefabs hold (Atom, camera, PhysX, multiplayer, shapes ...: the
``_engine_components_*`` modules, each registration naming the source of its ``Reflect()``).

``engine_registry()`` returns a fresh :class:`~gameserde.o3de.Registry`; add your own
components to it (``bases=["AzToolsFramework::Components::EditorComponentBase"]`` or
``["AZ::Component"]``). Document types: :data:`PREFAB` and :data:`MATERIAL`::

    reg = engine_registry()
    prefab, result = load(PREFAB, parse(text), registry=reg)

Components whose ``$type`` the registry does not know are reported (RetrieveInfo, Unknown,
at the component's JSON Pointer) and kept as :class:`UncheckedComponent`, so they are
written back unchanged.
"""

from __future__ import annotations

from gameserde.o3de._engine_assets import (
    AssetReference,
    AssetSerializer,
    MaterialPropertyValueSerializer,
)
from gameserde.o3de._engine_classes import COMPONENT_CONFIG, EDITOR_BASE, FieldSpec
from gameserde.o3de._engine_classes import add_class as _add_class
from gameserde.o3de._engine_components_atom import add_atom_components
from gameserde.o3de._engine_components_gems import add_gem_components
from gameserde.o3de._engine_components_physx import add_physx_components
from gameserde.o3de._engine_prefab import (
    ComponentMapSerializer,
    ComponentPointerSerializer,
    Entity,
    EntityIdSerializer,
    EntitySerializer,
    Prefab,
    PrefabLink,
    PrefabLinkSerializer,
    PrefabSerializer,
    UncheckedComponent,
)
from gameserde.o3de.registry import Registry
from gameserde.o3de.values import Transform, Vector3

__all__ = ["DOCUMENT_TYPES", "MATERIAL", "PREFAB", "AssetReference", "Entity", "Prefab",
           "PrefabLink", "UncheckedComponent", "add_engine_types", "engine_registry"]

PREFAB = "AzToolsFramework::Prefab::Instance"
"""The type of a ``.prefab`` file."""
MATERIAL = "AZ::RPI::MaterialSourceData"
"""The type of a ``.material`` file."""
DOCUMENT_TYPES = {".prefab": PREFAB, ".material": MATERIAL}
"""The document type of each file kind the engine registry types (by file suffix)."""

# (name, uuid, own fields) of the editor components a prefab entity carries; each derives
# from EditorComponentBase and is written with "$type" first, then "Id", then its fields.
_EDITOR_COMPONENTS: list[tuple[str, str, list[tuple[str, str, object]]]] = [
    ("EditorOnlyEntityComponent", "{22A16F1D-6D49-422D-AAE9-91AE45B5D3E7}",
     [("IsEditorOnly", "bool", False)]),
    ("EditorInspectorComponent", "{47DE3DDA-50C5-4F50-B1DB-BA4AE66AB056}",
     [("ComponentOrderEntryArray",
       "vector<AzToolsFramework::Components::EditorInspectorComponent::ComponentOrderEntry>",
       [])]),
    ("EditorEntitySortComponent", "{6EA1E03D-68B2-466D-97F7-83998C8C27F0}",
     [("Child Entity Order", "vector<AZ::EntityId>", []),
      ("ChildEntityOrderEntryArray",
       "vector<AzToolsFramework::Components::EditorEntitySortComponent::EntityOrderEntry>",
       [])]),
    ("EditorVisibilityComponent", "{88E08E78-5C2F-4943-9F73-C115E6FFAB43}",
     [("VisibilityFlag", "bool", True)]),
    ("EditorLockComponent", "{C3A169C9-7EFB-4D6C-8710-3591680D0936}",
     [("Locked", "bool", False)]),
    ("EditorPendingCompositionComponent", "{D40FCB35-153D-45B3-AF6D-7BA576D8AFBB}",
     [("PendingComponents", "ComponentMap", {})]),
    ("EditorDisabledCompositionComponent", "{E77AE6AC-897D-4035-8353-637449B6DCFB}",
     [("DisabledComponents", "ComponentMap", {})]),
    ("EditorEntityIconComponent", "{E15D42C2-912D-466F-9547-E7E948CE2D7D}",
     [("EntityIconAssetId", "AZ::Data::AssetId", None)]),
    ("SelectionComponent", "{A7CBE7BC-9B4A-47DC-962F-1BFAE85DBF3A}", []),
    ("EditorPrefabComponent", "{756E5F9C-3E08-4F8D-855C-A5AEEFB6FCDD}", []),
    ("GenericComponentWrapper", "{68D358CA-89B9-4730-8BA6-E181DEA28FDE}",
     [("m_template", "ComponentPointer", None)]),
]


def _fields(spec: list[tuple[str, str, object]]) -> list[FieldSpec]:
    return [(name, type_) if default is None else (name, type_, default)
            for name, type_, default in spec]


def engine_registry() -> Registry:
    """A new registry holding the engine types of prefab and material files (see the module
    docstring); the document types are :data:`PREFAB` and :data:`MATERIAL`."""
    return add_engine_types(Registry())


def add_engine_types(reg: Registry) -> Registry:
    """Register the engine types of prefab and material files in ``reg`` (which must not
    hold types of the same names) and return it."""
    reg.add_serializer("AZ::EntityId", EntityIdSerializer(),
                       uuid="{6383F1D3-BB27-4E6B-A49A-6409B2059EAA}")
    reg.add_serializer("ComponentPointer", ComponentPointerSerializer())
    reg.add_serializer("ComponentMap", ComponentMapSerializer())
    reg.add_enum("AZ::Data::AssetLoadBehavior",
                 [("PreLoad", 0), ("QueueLoad", 1), ("NoLoad", 2), ("Count", 3), ("Default", 1)],
                 underlying="uint8", uuid="{DAF9ECED-FEF3-4D7A-A220-8CFD6A5E6DA1}")
    _add_class(reg, "AZ::Data::AssetId", "{652ED536-3402-439B-AEBE-4A5DBC554085}",
               [("guid", "AZ::Uuid"), ("subId", "unsigned int", 0)], registered_name="AssetId")
    reg.add_serializer("AZ::Data::Asset", AssetSerializer(),
                       uuid="{C891BF19-B60C-45E2-BFD0-027D15DDC939}", python_type=AssetReference)
    _components(reg)
    add_atom_components(reg)
    add_gem_components(reg)
    add_physx_components(reg)
    reg.add_serializer("AZ::Entity", EntitySerializer(),
                       uuid="{75651658-8663-478D-9090-2432DFCAFA44}", python_type=Entity)
    reg.add_serializer("AzToolsFramework::Prefab::Link", PrefabLinkSerializer(),
                       uuid="{49230756-7BAA-4456-8DFE-0E18CB887DB5}", python_type=PrefabLink)
    reg.add_serializer(PREFAB, PrefabSerializer(), uuid="{D4219332-A648-4285-9CA6-B7F095987CD3}",
                       python_type=Prefab)
    _material(reg)
    return reg


def _components(reg: Registry) -> None:
    _add_class(reg, "AZ::Component", "{EDFCB2CF-F75D-43BE-B26B-F35821B29247}",
                  [("Id", "AZ::u64", 0)], abstract=True)
    # Code/Framework/AzCore/AzCore/Component/Entity.cpp (ComponentBus.h)
    _add_class(reg, COMPONENT_CONFIG, "{0A7929DF-2932-40EA-B2B3-79BC1C3490D0}", abstract=False,
               registered_name="ComponentConfig")
    _add_class(reg, EDITOR_BASE, "{D5346BD4-7F20-444E-B370-327ACD03D4A0}", bases=["AZ::Component"],
                  abstract=True, registered_name="EditorComponentBase")
    _add_class(reg, "AzToolsFramework::Components::EditorTransform",
                  "{B02B7063-D238-4F40-A724-405F7A6D68CB}",
                  [("Translate", "Vector3"), ("Rotate", "Vector3"),
                   ("Scale", "Vector3", Vector3(1.0, 1.0, 1.0)), ("Locked", "bool", False),
                   ("UniformScale", "float", 1.0)],
                  registered_name="EditorTransform")
    # The runtime and the editor TransformComponent share the name, so the editor one is
    # written as "{27F1E1A1-...} TransformComponent", as in every prefab.
    _add_class(reg, "AzFramework::TransformComponent", "{22B10178-39B6-4C12-BB37-77DB45FDD3B6}",
                  [("Parent", "AZ::EntityId"), ("Transform", "Transform", Transform()),
                   ("LocalTransform", "Transform", Transform()),
                   ("ParentActivationTransformMode", "unsigned int", 0),
                   ("IsStatic", "bool", False)],
                  bases=["AZ::Component"], registered_name="TransformComponent")
    # Fields in the order JsonTransformComponentSerializer writes them; the two enums are not
    # reflected to the SerializeContext, so they are written as integers.
    _add_class(reg, "AzToolsFramework::Components::TransformComponent",
                  "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}",
                  [("Parent Entity", "AZ::EntityId"),
                   ("Transform Data", "AzToolsFramework::Components::EditorTransform"),
                   ("Parent Activation Transform Mode", "unsigned int", 0),
                   ("IsStatic", "bool", False), ("Sync Enabled", "bool", False),
                   ("InterpolatePosition", "unsigned int", 0),
                   ("InterpolateRotation", "unsigned int", 0)],
                  bases=[EDITOR_BASE], registered_name="TransformComponent")
    _add_class(reg, "AzToolsFramework::Components::EditorInspectorComponent::ComponentOrderEntry",
                  "{335C5861-5197-4DD5-A766-EF2B551B0D9D}",
                  [("ComponentId", "AZ::u64", 0), ("SortIndex", "AZ::u64", 0)],
                  registered_name="ComponentOrderEntry")
    _add_class(reg, "AzToolsFramework::Components::EditorEntitySortComponent::EntityOrderEntry",
               "{08980128-8D93-48AC-BF4A-1E75F39C1A29}",
               [("EntityId", "AZ::EntityId"), ("SortIndex", "AZ::u64", 0)],
               registered_name="EntityOrderEntry")
    for name, uuid, fields in _EDITOR_COMPONENTS:
        _add_class(reg, f"AzToolsFramework::Components::{name}", uuid, _fields(fields),
                      bases=[EDITOR_BASE], registered_name=name)


def _material(reg: Registry) -> None:
    reg.add_serializer("AZ::RPI::MaterialPropertyValue", MaterialPropertyValueSerializer(),
                       uuid="{59815051-BBA2-4C6A-A414-A82834A84CB2}")
    values = "unordered_map<AZ::Name, AZ::RPI::MaterialPropertyValue>"
    _add_class(reg, MATERIAL, "{B8881D92-DF9F-4552-9F22-FF4421C45D9A}",
                  [("description", "AZStd::string"), ("materialType", "AZStd::string"),
                   ("materialTypeVersion", "unsigned int", 0xFFFFFFFF),
                   ("parentMaterial", "AZStd::string"),
                   ("properties", f"unordered_map<AZ::Name, {values}>", {}),
                   ("propertyValues", values, {})],
                  registered_name="MaterialSourceData")
