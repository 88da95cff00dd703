"""Editor and runtime components of other gems that real prefabs hold (o3de/o3de at commit
354a2acc): camera, comment, view bookmarks, multiplayer network binding and transform, the fly
camera input, debug-draw text, the sphere shape and the EMotionFX actor. Each registration
names the file of its ``Reflect()``. Enums that are not reflected to the SerializeContext are
written as their underlying integers, as the engine writes them."""

from __future__ import annotations

from gameserde.o3de._engine_assets import AssetReference
from gameserde.o3de._engine_classes import (
    COMPONENT,
    COMPONENT_CONFIG,
    EDITOR_BASE,
    add_adapter,
    add_class,
    f32,
)
from gameserde.o3de.registry import Registry
from gameserde.o3de.values import Color
from gameserde.o3de.values import Vector3 as V3

__all__ = ["MODE_DELEGATE", "add_gem_components"]

ASSET = "AZ::Data::Asset"
MODE_DELEGATE = "AzToolsFramework::ComponentModeFramework::ComponentModeDelegate"
_DESELECTED = Color(1.0, 1.0, f32(0.78), f32(0.4))
"""AzFramework::ViewportColors::DeselectedColor (AzFramework/Viewport/ViewportColors.cpp)."""
_HOVER = Color(1.0, 1.0, 0.0, f32(0.9))
"""AzFramework::ViewportColors::HoverColor."""


def add_gem_components(reg: Registry) -> None:
    """Register the components of this module (needs the asset types, ``AZ::EntityId``,
    ``AZ::ComponentConfig`` and the Atom ``LightingChannelConfiguration``)."""
    _camera(reg)
    _tools(reg)
    _multiplayer(reg)
    _shapes(reg)
    _actor(reg)


def _camera(reg: Registry) -> None:
    # Gems/Camera/Code/Source/CameraComponentController.cpp (CameraComponentConfig version 6,
    # CameraComponentController version 1); defaults in CameraComponentController.h.
    add_class(reg, "Camera::CameraComponentConfig", "{064A5D64-8688-4188-B3DE-C80CE4BB7558}",
              [("Orthographic", "bool", False), ("Orthographic Half Width", "float", 5.0),
               ("Field of View", "float", 75.0),
               ("Near Clip Plane Distance", "float", f32(0.2)),
               ("Far Clip Plane Distance", "float", 1024.0),
               ("SpecifyDimensions", "bool", False), ("FrustumWidth", "float", 256.0),
               ("FrustumHeight", "float", 256.0),
               ("MakeActiveViewOnActivation", "bool", True), ("RenderToTexture", ASSET),
               ("PipelineTemplate", "AZStd::string", "CameraPipeline"),
               ("AllowPipelineChange", "bool", False)],
              bases=[COMPONENT_CONFIG], registered_name="CameraComponentConfig")
    # Gems/Camera/Code/Source/EditorCameraComponent.cpp (version 0). It also deprecates the
    # older class of the same name, so the engine writes this one's $type with its uuid.
    add_adapter(reg, "Camera::EditorCameraComponent", "{CA11DA46-29FF-4083-B5F6-E02C3A8C3A3D}",
                "Camera::CameraComponentController", "{A27A0725-8C07-4BF2-BF95-B6CB0CBD01B8}",
                "Camera::CameraComponentConfig", runtime="Camera::CameraComponent",
                render=False,
                fields=[("FrustumLengthPercent", "float", 1.0),
                        ("FrustumDrawColor", "Color", _HOVER)],
                registered_name="EditorCameraComponent",
                controller_name="CameraComponentController")
    add_class(reg, "Camera::EditorCameraComponent (deprecated)",
              "{B99EFE3D-3F1D-4630-8A7B-31C70CC1F53C}", abstract=True,
              registered_name="EditorCameraComponent")


def _tools(reg: Registry) -> None:
    # Gems/LmbrCentral/Code/Source/Editor/EditorCommentComponent.cpp (version 1)
    add_class(reg, "LmbrCentral::EditorCommentComponent",
              "{5181117D-CD69-4C05-8804-C1FBE5F0C00F}",
              [("Configuration", "AZStd::string")], bases=[EDITOR_BASE],
              registered_name="EditorCommentComponent")
    # Code/Framework/AzToolsFramework/AzToolsFramework/Viewport/LocalViewBookmarkComponent.cpp
    add_class(reg, "AzToolsFramework::LocalViewBookmarkComponent",
              "{28E5C3B7-3732-4EFB-985E-3F578A83A357}",
              [("LocalBookmarkFileName", "AZStd::string")], bases=[EDITOR_BASE],
              registered_name="LocalViewBookmarkComponent")
    # Gems/AtomLyIntegration/AtomBridge/Code/Source/FlyCameraInputComponent.cpp (version 1)
    add_class(reg, "AZ::AtomBridge::FlyCameraInputComponent",
              "{7AE0D6AD-691C-41B6-9DD5-F23F78B1A02E}",
              [("Move Speed", "float", 20.0), ("Rotation Speed", "float", 5.0),
               ("Mouse Sensitivity", "float", f32(0.025)),
               ("Invert Rotation Input X", "bool", False),
               ("Invert Rotation Input Y", "bool", False), ("Is enabled", "bool", True)],
              bases=[COMPONENT], registered_name="FlyCameraInputComponent")
    # Gems/DebugDraw/Code/Source/DebugDrawTextComponent.cpp (DebugDrawTextElement version 1;
    # DrawMode is an int enum), EditorDebugDrawComponentCommon.cpp (settings version 0),
    # EditorDebugDrawTextComponent.cpp (version 0)
    add_class(reg, "DebugDraw::DebugDrawTextElement", "{A49413DB-0AFC-4D38-BD4B-EDC8FA83B640}",
              [("Text", "AZStd::string"), ("Color", "Color", Color(1.0, 1.0, 1.0, 1.0)),
               ("DrawMode", "int", 0), ("WorldLocation", "Vector3"),
               ("TargetEntity", "AZ::EntityId"), ("Centered", "bool", False),
               ("Size", "float", f32(1.4))],
              registered_name="DebugDrawTextElement")
    add_class(reg, "DebugDraw::EditorDebugDrawComponentSettings",
              "{39FF3385-9AD8-4C3F-AAFF-3CBE1D76B767}",
              [("VisibleInGame", "bool", True), ("VisibleInEditor", "bool", True)],
              registered_name="EditorDebugDrawComponentSettings")
    add_class(reg, "DebugDraw::EditorDebugDrawTextComponent",
              "{1B61B17F-AEE3-4AEB-A4E4-2BB053FB45D9}",
              [("Element", "DebugDraw::DebugDrawTextElement"),
               ("Settings", "DebugDraw::EditorDebugDrawComponentSettings")],
              bases=[EDITOR_BASE], registered_name="EditorDebugDrawTextComponent")


def _multiplayer(reg: Registry) -> None:
    # Gems/Multiplayer/Code/Include/Multiplayer/MultiplayerTypes.h (PrefabEntityId version 1;
    # AllIndices is the largest u32)
    add_class(reg, "Multiplayer::PrefabEntityId", "{EFD37465-CCAC-4E87-A825-41B4010A2C75}",
              [("Prefab Name", "AZ::Name"), ("Entity Offset", "unsigned int", 2**32 - 1)],
              registered_name="PrefabEntityId")
    # Gems/Multiplayer/Code/Source/Components/NetBindComponent.cpp (version 2)
    add_class(reg, "Multiplayer::NetBindComponent", "{DAA076B3-1A1C-4FEF-8583-1DF696971604}",
              [("Prefab EntityId", "Multiplayer::PrefabEntityId"),
               ("Prefab AssetId", "AZ::Data::AssetId")],
              bases=[COMPONENT], registered_name="NetBindComponent")
    # Gems/Multiplayer/Code/Source/Components/MultiplayerComponent.cpp (version 1)
    add_class(reg, "Multiplayer::MultiplayerComponent", "{B7F5B743-CCD3-4981-8F1A-FC2B95CE22D7}",
              bases=[COMPONENT], abstract=True, registered_name="MultiplayerComponent")
    # Gems/Multiplayer/Code/Source/Components/NetworkTransformComponent.cpp (version 1) over
    # the base generated from Source/AutoGen/NetworkTransformComponent.AutoComponent.xml by
    # Include/Multiplayer/AutoGen/AutoComponent_Source.jinja: none of its network properties
    # is ExposeToEditor, so neither class has a member. Their ids are AzAutoGen.py's
    # CreateHashGuid (the MD5 of the class name).
    add_class(reg, "Multiplayer::NetworkTransformComponentBase",
              "{E3CF6CC1-D065-C4E6-E4F6-806006EC0B67}", bases=["Multiplayer::MultiplayerComponent"],
              abstract=True, registered_name="NetworkTransformComponentBase")
    add_class(reg, "Multiplayer::NetworkTransformComponent",
              "{800746BE-F605-C993-A23C-A23FE1FD7244}",
              bases=["Multiplayer::NetworkTransformComponentBase"])


def _shapes(reg: Registry) -> None:
    # Code/Framework/AzToolsFramework/AzToolsFramework/ComponentMode/ComponentModeDelegate.cpp
    add_class(reg, MODE_DELEGATE,
              "{635B28F0-601A-43D2-A42A-02C4A88CD9C2}", registered_name="ComponentModeDelegate")
    # Gems/LmbrCentral/Code/Source/Shape/ShapeComponent.cpp (ShapeComponentConfig version 1,
    # reflected without its ComponentConfig base)
    add_class(reg, "LmbrCentral::ShapeComponentConfig", "{32683353-0EF5-4FBC-ACA7-E220C58F60F5}",
              [("DrawColor", "Color", _DESELECTED), ("IsFilled", "bool", True)],
              registered_name="ShapeComponentConfig")
    # Gems/LmbrCentral/Code/Source/Shape/SphereShapeComponent.cpp (SphereShapeConfig version 2)
    add_class(reg, "LmbrCentral::SphereShapeConfig", "{4AADFD75-48A7-4F31-8F30-FE4505F09E35}",
              [("Radius", "float", 0.5), ("TranslationOffset", "Vector3", V3())],
              bases=["LmbrCentral::ShapeComponentConfig"], registered_name="SphereShapeConfig")
    # Gems/LmbrCentral/Code/Source/Shape/SphereShape.cpp (version 1)
    add_class(reg, "LmbrCentral::SphereShape", "{FC63856F-318C-406A-AF3A-FDFF448D850A}",
              [("Configuration", "LmbrCentral::SphereShapeConfig")], registered_name="SphereShape")
    # Gems/LmbrCentral/Code/Source/Shape/EditorBaseShapeComponent.cpp (version 2)
    add_class(reg, "LmbrCentral::EditorBaseShapeComponent",
              "{32B9D7E9-6743-427B-BAFD-1C42CFBE4879}",
              [("Visible", "bool", True), ("GameView", "bool", False),
               ("DisplayFilled", "bool", True), ("ShapeColor", "Color", _DESELECTED)],
              bases=[EDITOR_BASE], abstract=True, registered_name="EditorBaseShapeComponent")
    # Gems/LmbrCentral/Code/Source/Shape/EditorSphereShapeComponent.cpp (version 3); the type
    # id is in Code/include/LmbrCentral/Shape/SphereShapeComponentBus.h
    add_class(reg, "LmbrCentral::EditorSphereShapeComponent",
              "{2EA56CBF-63C8-41D9-84D5-0EC2BECE748E}",
              [("SphereShape", "LmbrCentral::SphereShape"),
               ("ComponentMode", MODE_DELEGATE)],
              bases=["LmbrCentral::EditorBaseShapeComponent"],
              registered_name="EditorSphereShapeComponent")


def _actor(reg: Registry) -> None:
    # Gems/EMotionFX/Code/Source/Integration/Components/ActorComponent.cpp
    # (BoundingBoxConfiguration version 2; EBoundsType is an AZ::u8 enum, BOUNDS_STATIC_BASED 5)
    add_class(reg, "EMotionFX::Integration::ActorComponent::BoundingBoxConfiguration",
              "{EBCFF975-00A5-4578-85C7-59909F52067C}",
              [("m_boundsType", "unsigned char", 5), ("m_autoUpdateBounds", "bool", True),
               ("m_updateTimeFrequency", "float", 0.0),
               ("m_updateItemFrequency", "unsigned int", 1), ("expandBy", "float", 25.0)],
              registered_name="BoundingBoxConfiguration")
    # Gems/EMotionFX/Code/Source/Integration/Editor/Components/EditorActorComponent.cpp
    # (version 7; defaults from its constructor: the asset NoLoad, DualQuat skinning, no
    # attachment; AttachmentType and SkinningMethod are AZ::u32 enums, LodLevel a size_t)
    add_class(reg, "EMotionFX::Integration::EditorActorComponent",
              "{A863EE1B-8CFD-4EDD-BA0D-1CEC2879AD44}",
              [("ActorAsset", ASSET, AssetReference(load_behavior=2)),
               ("AttachmentType", "unsigned int", 0),
               ("AttachmentTarget", "AZ::EntityId"), ("RenderSkeleton", "bool", False),
               ("RenderCharacter", "bool", True), ("RenderBounds", "bool", False),
               ("SkinningMethod", "unsigned int", 0),
               ("UpdateJointTransformsWhenOutOfView", "bool", False),
               ("LodLevel", "AZ::u64", 0),
               ("BBoxConfig", "EMotionFX::Integration::ActorComponent::BoundingBoxConfiguration"),
               ("ExcludeFromReflectionCubeMaps", "bool", True),
               ("RayTracingEnabled", "bool", True),
               ("LightingChannelsConfig", "AZ::Render::LightingChannelConfiguration")],
              bases=[EDITOR_BASE], registered_name="EditorActorComponent")

