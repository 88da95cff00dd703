"""PhysX editor components that real prefabs hold (o3de/o3de at commit 354a2acc): static and
dynamic rigid bodies, the primitive collider and the mesh collider, with the AzFramework
physics configurations they hold. Each registration names the file of its ``Reflect()``.
Enums that are not reflected to the SerializeContext (``Physics::ShapeType``,
``CookedMeshShapeConfiguration::MeshType``, both ``AZ::u8``) are written as integers, as the
engine writes them."""

from __future__ import annotations

from typing import Any

from gameserde.o3de._engine_assets import AssetReference
from gameserde.o3de._engine_classes import EDITOR_BASE, add_class, f32
from gameserde.o3de._engine_components_gems import MODE_DELEGATE
from gameserde.o3de.registry import Registry, Serializer, TypeExpr
from gameserde.o3de.values import Matrix3x3, Quaternion, Vector3

__all__ = ["ClearedVectorSerializer", "add_physx_components"]

ASSET = "AZ::Data::Asset"
_ONE = Vector3(1.0, 1.0, 1.0)
_SLOT = "Physics::MaterialSlots::MaterialSlot"
_SLOTS = "Physics::JsonMaterialSlotContainer"
"""gameserde's name for ``AZStd::vector<MaterialSlot>`` with its own serializer."""


class ClearedVectorSerializer(Serializer):
    """A vector whose serializer clears it before loading (``ShouldClearContainer``): a new
    one holds the slot "Entire object" (MaterialSlots' constructor), a loaded one only the
    slots of the document."""

    def __init__(self, vector: TypeExpr, slot: type) -> None:
        self.vector = vector
        self.slot = slot

    def create(self) -> Any:
        return [self.slot(Name="Entire object")]

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        return ctx.load(self.vector, [], value, False)  # type: ignore[no-any-return]

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        return ctx.store(self.vector, value, default)  # type: ignore[no-any-return]


def add_physx_components(reg: Registry) -> None:
    """Register the PhysX components (needs the asset types, ``AZ::EntityId`` and the
    ``ComponentModeDelegate``)."""
    _collider_configuration(reg)
    _shapes(reg)
    _colliders(reg)
    _rigid_bodies(reg)


def _collider_configuration(reg: Registry) -> None:
    # Code/Framework/AzFramework/AzFramework/Physics/Collision/CollisionLayers.cpp
    # (CollisionLayer::Default is index 0)
    add_class(reg, "AzPhysics::CollisionLayer", "{5AA459C8-2D92-46D2-9154-ED49EE4FE70E}",
              [("Index", "unsigned char", 0)], registered_name="CollisionLayer")
    # Code/Framework/AzFramework/AzFramework/Physics/Collision/CollisionGroups.cpp
    add_class(reg, "AzPhysics::CollisionGroups::Id", "{DFED4FE5-2292-4F07-A318-41C68DAEFE9C}",
              [("GroupId", "AZ::Uuid")], registered_name="Id")
    # Code/Framework/AzFramework/AzFramework/Physics/Material/PhysicsMaterialSlots.cpp: a new
    # MaterialSlots holds one slot named "Entire object" (MaterialSlots::MaterialSlots,
    # SetSlots), and the vector of slots has a serializer that clears it before loading
    # (JsonMaterialSlotContainerSerializer), so a loaded list replaces that slot.
    add_class(reg, _SLOT, "{B5AA3CC9-637F-44FB-A4AE-4621D37884BA}",
              [("Name", "AZStd::string"), ("MaterialAsset", ASSET)])
    slots = reg.resolve(f"vector<{_SLOT}>")
    reg.add_serializer(_SLOTS, ClearedVectorSerializer(slots, reg.python_type(_SLOT)),
                       uuid=reg.type_id(slots))
    add_class(reg, "Physics::MaterialSlots", "{8A0D64CB-C98E-42E3-96A9-B81D7118CA6F}",
              [("Slots", _SLOTS, reg.serializers[_SLOTS][0].create)])
    # Code/Framework/AzFramework/AzFramework/Physics/Shape.cpp (ColliderConfiguration version 7;
    # propertyVisibilityFlags defaults to the largest u8)
    add_class(reg, "Physics::ColliderConfiguration", "{16206828-F867-4DA9-9E4E-549B7B2C6174}",
              [("CollisionLayer", "AzPhysics::CollisionLayer"),
               ("CollisionGroupId", "AzPhysics::CollisionGroups::Id"),
               ("Visible", "bool", False), ("Trigger", "bool", False),
               ("Simulated", "bool", True), ("DummySimulated", "bool", False),
               ("InSceneQueries", "bool", True), ("Exclusive", "bool", True),
               ("Position", "Vector3", Vector3()), ("Rotation", "Quaternion", Quaternion()),
               ("MaterialSlots", "Physics::MaterialSlots"),
               ("propertyVisibilityFlags", "unsigned char", 255),
               ("ColliderTag", "AZStd::string"), ("RestOffset", "float", 0.0),
               ("ContactOffset", "float", f32(0.02))],
              registered_name="ColliderConfiguration")


def _shapes(reg: Registry) -> None:
    # Code/Framework/AzFramework/AzFramework/Physics/ShapeConfiguration.cpp, defaults in
    # ShapeConfiguration.h (ShapeConstants)
    add_class(reg, "Physics::ShapeConfiguration", "{1FD56C72-6055-4B35-9253-07D432B94E91}",
              [("Scale", "Vector3", _ONE)], registered_name="ShapeConfiguration")
    base = ["Physics::ShapeConfiguration"]
    add_class(reg, "Physics::SphereShapeConfiguration", "{0B9F3D2E-0780-4B0B-BFEE-B41C5FDE774A}",
              [("Radius", "float", 0.5)], bases=base, registered_name="SphereShapeConfiguration")
    add_class(reg, "Physics::BoxShapeConfiguration", "{E58040ED-3E50-4882-B0E9-525E7A548F8D}",
              [("Configuration", "Vector3", _ONE)], bases=base,
              registered_name="BoxShapeConfiguration")
    add_class(reg, "Physics::CapsuleShapeConfiguration", "{19C6A07E-5644-46B7-A49E-48703B56ED32}",
              [("Height", "float", 1.0), ("Radius", "float", 0.25)], bases=base,
              registered_name="CapsuleShapeConfiguration")
    add_class(reg, "Physics::PhysicsAssetShapeConfiguration",
              "{1C0046D9-BC9E-4F93-9F0E-D62654FB18EA}",
              [("PhysicsAsset", ASSET, AssetReference(load_behavior=0)),
               ("AssetScale", "Vector3", _ONE), ("UseMaterialsFromAsset", "bool", True),
               ("SubdivisionLevel", "unsigned char", 4)],
              bases=base, registered_name="PhysicsAssetShapeConfiguration")
    add_class(reg, "Physics::CookedMeshShapeConfiguration",
              "{D9E58241-36BB-4A4F-B50C-1736EB7E841F}",
              [("CookedData", "vector<unsigned char>", b""), ("Type", "unsigned char", 0)],
              bases=base, registered_name="CookedMeshShapeConfiguration")
    # Gems/PhysX/Core/Code/Source/EditorColliderComponent.cpp (the three proxy configurations,
    # version 1; cylinder defaults from ShapeConstants: 16 subdivisions, height and radius 1)
    add_class(reg, "PhysX::EditorProxyCylinderShapeConfig",
              "{2394B3D0-E7A1-4B66-8C42-0FFDC1FCAA26}",
              [("Configuration", "Physics::CookedMeshShapeConfiguration"),
               ("Subdivision", "unsigned char", 16), ("Height", "float", 1.0),
               ("Radius", "float", 1.0)],
              registered_name="EditorProxyCylinderShapeConfig")
    add_class(reg, "PhysX::LegacyEditorProxyAssetShapeConfig",
              "{C1B46450-C2A3-4115-A2FB-E5FF3BAAAD15}",
              [("Asset", ASSET), ("Configuration", "Physics::PhysicsAssetShapeConfiguration")],
              registered_name="LegacyEditorProxyAssetShapeConfig")
    add_class(reg, "PhysX::EditorProxyShapeConfig", "{531FB42A-42A9-4234-89BA-FD349EF83D0C}",
              [("ShapeType", "unsigned char", 7),
               ("Sphere", "Physics::SphereShapeConfiguration"),
               ("Box", "Physics::BoxShapeConfiguration"),
               ("Capsule", "Physics::CapsuleShapeConfiguration"),
               ("Cylinder", "PhysX::EditorProxyCylinderShapeConfig"),
               ("PhysicsAsset", "PhysX::LegacyEditorProxyAssetShapeConfig"),
               ("HasNonUniformScale", "bool", False), ("SubdivisionLevel", "unsigned char", 4)],
              registered_name="EditorProxyShapeConfig")
    # Gems/PhysX/Core/Code/Source/EditorMeshColliderComponent.cpp (version 1 each)
    add_class(reg, "PhysX::EditorProxyPhysicsAsset", "{1F69C480-CC88-4C2D-B126-B13694E6192B}",
              [("Asset", ASSET), ("Configuration", "Physics::PhysicsAssetShapeConfiguration")],
              registered_name="EditorProxyPhysicsAsset")
    add_class(reg, "PhysX::EditorProxyAssetShapeConfig", "{6427B76E-22F0-4DED-BB1B-AC1D4CBD45FB}",
              [("PhysicsAsset", "PhysX::EditorProxyPhysicsAsset"),
               ("HasNonUniformScale", "bool", False), ("SubdivisionLevel", "unsigned char", 4)],
              registered_name="EditorProxyAssetShapeConfig")


def _colliders(reg: Registry) -> None:
    # Gems/PhysX/Core/Code/Editor/DebugDraw.cpp (Collider version 1)
    add_class(reg, "PhysX::DebugDraw::Collider", "{7DE9CA01-DF1E-4D72-BBF4-76C9136BE6A2}",
              [("LocallyEnabled", "bool", True)], registered_name="Collider")
    # Gems/PhysX/Core/Code/Source/EditorColliderComponent.cpp and EditorMeshColliderComponent.cpp
    # (versions from the PhysX major version): the same members over different shape configurations
    for name, uuid, shape in (
            ("EditorColliderComponent", "{FD429282-A075-4966-857F-D0BBF186CFE6}",
             "PhysX::EditorProxyShapeConfig"),
            ("EditorMeshColliderComponent", "{20382794-0E74-4860-9C35-A19F22DC80D4}",
             "PhysX::EditorProxyAssetShapeConfig")):
        add_class(reg, f"PhysX::{name}", uuid,
                  [("ColliderConfiguration", "Physics::ColliderConfiguration"),
                   ("ShapeConfiguration", shape),
                   ("DebugDrawSettings", "PhysX::DebugDraw::Collider"),
                   ("ComponentMode", MODE_DELEGATE), ("HasNonUniformScale", "bool", False)],
                  bases=[EDITOR_BASE], registered_name=name)


def _rigid_bodies(reg: Registry) -> None:
    # Gems/PhysX/Core/Code/Source/EditorStaticRigidBodyComponent.cpp (version 1, no members)
    add_class(reg, "PhysX::EditorStaticRigidBodyComponent",
              "{DA884366-E00D-496B-A9C3-9CBF08B3537E}", bases=[EDITOR_BASE],
              registered_name="EditorStaticRigidBodyComponent")
    # Code/Framework/AzFramework/AzFramework/Physics/Configuration/SimulatedBodyConfiguration.cpp
    # (version 2)
    add_class(reg, "AzPhysics::SimulatedBodyConfiguration",
              "{52844E3D-79C8-4F34-AF63-5C45ADE77F85}",
              [("name", "AZStd::string"), ("position", "Vector3", Vector3()),
               ("orientation", "Quaternion", Quaternion()), ("entityId", "AZ::EntityId"),
               ("startSimulationEnabled", "bool", True)])
    # Code/Framework/AzFramework/AzFramework/Physics/Configuration/RigidBodyConfiguration.cpp
    # (version 5)
    add_class(reg, "AzPhysics::RigidBodyConfiguration", "{ACFA8900-8530-4744-AF00-AA533C868A8E}",
              [("Kinematic", "bool", False), ("Initial linear velocity", "Vector3", Vector3()),
               ("Initial angular velocity", "Vector3", Vector3()),
               ("Linear damping", "float", f32(0.05)), ("Angular damping", "float", f32(0.15)),
               ("Sleep threshold", "float", f32(0.005)), ("Start Asleep", "bool", False),
               ("Interpolate Motion", "bool", False), ("Gravity Enabled", "bool", True),
               ("CCD Enabled", "bool", False), ("Compute Mass", "bool", True),
               ("Lock Linear X", "bool", False), ("Lock Linear Y", "bool", False),
               ("Lock Linear Z", "bool", False), ("Lock Angular X", "bool", False),
               ("Lock Angular Y", "bool", False), ("Lock Angular Z", "bool", False),
               ("Mass", "float", 1.0), ("Compute COM", "bool", True),
               ("Centre of mass offset", "Vector3", Vector3()),
               ("Compute inertia", "bool", True), ("Inertia tensor", "Matrix3x3", Matrix3x3()),
               ("Maximum Angular Velocity", "float", 100.0),
               ("Include All Shapes In Mass", "bool", False),
               ("CCD Min Advance", "float", f32(0.15)), ("CCD Friction", "bool", False),
               ("Open PhysX Configuration", "bool", False)],
              bases=["AzPhysics::SimulatedBodyConfiguration"],
              registered_name="RigidBodyConfiguration")
    # Gems/PhysX/Core/Code/Source/EditorRigidBodyComponent.cpp (EditorRigidBodyConfiguration version
    # 1)
    add_class(reg, "PhysX::EditorRigidBodyConfiguration",
              "{27297024-5A99-4C58-8614-4EF18137CE69}",
              [("Debug Draw Center of Mass", "bool", False)],
              bases=["AzPhysics::RigidBodyConfiguration"])
    # Gems/PhysX/Core/Code/Source/RigidBody.cpp (PhysX::RigidBodyConfiguration version 1)
    add_class(reg, "PhysX::RigidBodyConfiguration", "{006A06B1-E2E9-47DF-A49D-C60CAB3727C4}",
              [("SolverPositionIterations", "unsigned char", 4),
               ("SolverVelocityIterations", "unsigned char", 1)])
    # Gems/PhysX/Core/Code/Source/EditorRigidBodyComponent.cpp (version 1)
    add_class(reg, "PhysX::EditorRigidBodyComponent", "{F2478E6B-001A-4006-9D7E-DCB5A6B041DD}",
              [("Configuration", "PhysX::EditorRigidBodyConfiguration"),
               ("PhysXSpecificConfiguration", "PhysX::RigidBodyConfiguration")],
              bases=[EDITOR_BASE], registered_name="EditorRigidBodyComponent")
