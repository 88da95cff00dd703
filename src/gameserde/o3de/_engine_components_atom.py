"""Atom's editor components (gem AtomLyIntegration/CommonFeatures, o3de/o3de at commit
354a2acc): mesh, material, directional and area lights, image-based light, HDRi skybox and
grid, with their controllers, configurations and the types these hold. Each registration
names the file of its ``Reflect()`` (``Source/...`` is below
``Gems/AtomLyIntegration/CommonFeatures/Code/``). Enums that are not reflected to the
SerializeContext are written as their underlying integers, as the engine writes them."""

from __future__ import annotations

from typing import Any

from gameserde.o3de._engine_classes import COMPONENT_CONFIG, add_adapter, add_class, f32
from gameserde.o3de.registry import Registry, Serializer
from gameserde.o3de.result import ResultCode, Tasks
from gameserde.o3de.values import Color, Vector4

__all__ = ["EditorMeshStatsSerializer", "add_atom_components"]

ASSET = "AZ::Data::Asset"
LIGHTING = "AZ::Render::LightingChannelConfiguration"


class EditorMeshStatsSerializer(Serializer):
    """``JsonEditorMeshStatsSerializer`` (Mesh/EditorMeshStatsSerializer.cpp): reads nothing
    and writes nothing; its result has no outcome, which the engine counts as DefaultsUsed,
    so ``meshStats`` is never written."""

    def create(self) -> Any:
        return None

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        return current, ctx.report_code(ResultCode.task_only(Tasks.ReadField),
                                        "Successfully loaded EditorMeshStats information.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        return {}, ctx.report_code(ResultCode.task_only(Tasks.WriteValue),
                                   "Successfully stored EditorMeshStats information.")


def add_atom_components(reg: Registry) -> None:
    """Register the Atom components (needs the asset types and ``AZ::ComponentConfig``)."""
    # Gems/Atom/Feature/Common/Code/Source/LightingChannel/LightingChannelConfiguration.cpp
    add_class(reg, LIGHTING, "{7FFD6D01-BABE-FE35-612F-63A30925E5F7}",
              [("lightingChannelFlags", "array<bool,5>", [True] * 5)],
              registered_name="LightingChannelConfiguration")
    _mesh(reg)
    _material(reg)
    _lights(reg)
    _environment(reg)


def _mesh(reg: Registry) -> None:
    # Source/Mesh/MeshComponentController.cpp (MeshComponentConfig::Reflect, version 4); LodType and
    # LodOverride are uint8_t, RHI::DrawItemSortKey is AZ::s64.
    add_class(reg, "AZ::Render::MeshComponentConfig", "{63737345-51B1-472B-9355-98F99993909B}",
              [("ModelAsset", ASSET), ("SortKey", "AZ::s64", 0),
               ("ExcludeFromReflectionCubeMaps", "bool", False),
               ("UseForwardPassIBLSpecular", "bool", False),
               ("IsRayTracingEnabled", "bool", True), ("IsAlwaysDynamic", "bool", False),
               ("SupportRayIntersection", "bool", False), ("LodType", "unsigned char", 0),
               ("LodOverride", "unsigned char", 0),
               ("MinimumScreenCoverage", "float", f32(1.0 / 1080.0)),
               ("QualityDecayRate", "float", 0.5), ("LightingChannelConfig", LIGHTING)],
              bases=[COMPONENT_CONFIG])
    # Source/Mesh/EditorMeshStats.cpp: its JSON serializer reads and writes nothing, so the stats
    # classes it holds are never reached.
    reg.add_serializer("AZ::Render::EditorMeshStats", EditorMeshStatsSerializer(),
                       uuid="{68D0D3EF-17BB-46EA-B98F-51355402CCD6}")
    # Source/Mesh/EditorMeshComponent.cpp (version 2), MeshComponentController.cpp (version 1)
    add_adapter(reg, "AZ::Render::EditorMeshComponent", "{DCE68F6E-2E16-4CB4-A834-B6C2F900A7E9}",
                "AZ::Render::MeshComponentController", "{D0F35FAC-4194-4C89-9487-D000DDB8B272}",
                "AZ::Render::MeshComponentConfig", runtime="AZ::Render::MeshComponent",
                fields=[("meshStats", "AZ::Render::EditorMeshStats")])


def _material(reg: Registry) -> None:
    # Gems/Atom/RHI/Code/Source/RHI.Reflect/ShaderSemantic.cpp
    add_class(reg, "AZ::RHI::ShaderSemantic", "{C6FFF25F-FE52-4D08-8D96-D04C14048816}",
              [("m_name", "AZ::Name"), ("m_index", "unsigned int", 0)],
              registered_name="ShaderSemantic")
    # Source/Material/MaterialAssignmentId.cpp (version 2): NonLodIndex and InvalidStableId are the
    # largest u64 and u32.
    add_class(reg, "AZ::Render::MaterialAssignmentId", "{EB603581-4654-4C17-B6DE-AE61E79EDA97}",
              [("lodIndex", "AZ::u64", 2**64 - 1),
               ("materialSlotStableId", "unsigned int", 2**32 - 1)])
    # Source/Material/MaterialAssignment.cpp (version 2)
    add_class(reg, "AZ::Render::MaterialAssignment", "{C66E5214-A24B-4722-B7F0-5991E6F8F163}",
              [("MaterialAsset", ASSET),
               ("PropertyOverrides", "unordered_map<AZ::Name, AZStd::any>", {}),
               ("ModelUvOverrides", "unordered_map<AZ::RHI::ShaderSemantic, AZ::Name>", {})])
    # Source/Material/MaterialComponentConfig.cpp (version 3)
    add_class(reg, "AZ::Render::MaterialComponentConfig",
              "{3366C279-32AE-48F6-839B-7700AE117A54}",
              [("materials", "unordered_map<AZ::Render::MaterialAssignmentId, "
                "AZ::Render::MaterialAssignment>", {})],
              bases=[COMPONENT_CONFIG], registered_name="MaterialComponentConfig")
    # Source/Material/EditorMaterialComponent.cpp (version 5) reflects defaultMaterialSlot,
    # materialSlots, materialSlotsByLodEnabled and materialSlotsByLod, but its JSON serializer
    # (EditorMaterialComponentSerializer.cpp) reads and writes only Id, Controller and
    # materialSlotsByLodEnabled: the others are not in JSON documents (older files' copies are
    # reported Skipped and not written back, as the engine drops them).
    add_adapter(reg, "AZ::Render::EditorMaterialComponent",
                "{02B60E9D-470B-447D-A6EE-7D635B154183}",
                "AZ::Render::MaterialComponentController",
                "{34AD7ED0-9866-44CD-93B6-E86840214B91}", "AZ::Render::MaterialComponentConfig",
                runtime="AZ::Render::MaterialComponent",
                fields=[("materialSlotsByLodEnabled", "bool", False)],
                registered_name="EditorMaterialComponent",
                controller_name="MaterialComponentController")


def _lights(reg: Registry) -> None:
    # Gems/Atom/Feature/Common/Code/Source/CoreLights/CoreLightsSystemComponent.cpp reflects
    # ShadowmapSize (ShadowConstants.h) as an enum; PhotometricUnit (AZ::u8), ShadowFilterMethod
    # (uint32_t) and the area light's enums (uint8_t) are not reflected.
    reg.add_enum("AZ::Render::ShadowmapSize",
                 [("None", 1), ("Size256", 256), ("Size512", 512), ("Size1024", 1024),
                  ("Size2048", 2048)],
                 underlying="unsigned int", uuid="{3EC1CE83-483D-41FD-9909-D22B03E56F4E}")
    # Source/CoreLights/DirectionalLightComponentConfig.cpp (version 10); the cascade far depths
    # default to quarters of the 100 m shadow far clip distance.
    add_class(reg, "AZ::Render::DirectionalLightComponentConfig",
              "{EB01B835-F9FE-4FF0-BDC4-455462BFE769}",
              [("Color", "Color", Color(1.0, 1.0, 1.0, 1.0)),
               ("IntensityMode", "unsigned char", 5), ("Intensity", "float", 4.0),
               ("AngularDiameter", "float", 0.5), ("CameraEntityId", "AZ::EntityId"),
               ("Shadow Enabled", "bool", True), ("ShadowFarClipDistance", "float", 100.0),
               ("ShadowmapSize", "AZ::Render::ShadowmapSize", 1024),
               ("CascadeCount", "unsigned int", 4), ("SplitAutomatic", "bool", True),
               ("SplitRatio", "float", f32(0.9)),
               ("CascadeFarDepths", "Vector4", Vector4(25.0, 50.0, 75.0, 100.0)),
               ("GroundHeight", "float", 0.0), ("IsCascadeCorrectionEnabled", "bool", False),
               ("IsDebugColoringEnabled", "bool", False),
               ("ShadowFilterMethod", "unsigned int", 0),
               ("PcfFilteringSampleCount", "unsigned short", 32),
               ("ShadowReceiverPlaneBiasEnabled", "bool", True),
               ("Shadow Bias", "float", f32(0.0015)), ("Normal Shadow Bias", "float", 2.5),
               ("CascadeBlendingEnabled", "bool", False),
               ("FullscreenBlurEnabled", "bool", True),
               ("FullscreenBlurConstFalloff", "float", f32(2.0 / 3.0)),
               ("FullscreenBlurDepthFalloffStrength", "float", 50.0),
               ("Affects GI", "bool", True), ("Affects GI Factor", "float", 1.0),
               ("LightingChannelConfig", LIGHTING)],
              bases=[COMPONENT_CONFIG], registered_name="DirectionalLightComponentConfig")
    # Source/CoreLights/EditorDirectionalLightComponent.cpp (version 3),
    # DirectionalLightComponentController.cpp (version 1)
    add_adapter(reg, "AZ::Render::EditorDirectionalLightComponent",
                "{45B97527-6E72-411B-BC23-00068CF01580}",
                "AZ::Render::DirectionalLightComponentController",
                "{60A9DFF4-6A05-4D83-81BD-13ADEB95B29C}",
                "AZ::Render::DirectionalLightComponentConfig",
                runtime="AZ::Render::DirectionalLightComponent")
    # Source/CoreLights/AreaLightComponentConfig.cpp (version 10); "Shadow Caching Enabled" is
    # reflected too (an edit-context proxy, but serialized like the others).
    add_class(reg, "AZ::Render::AreaLightComponentConfig",
              "{11C08FED-7F94-4926-8517-46D08E4DD837}",
              [("LightType", "unsigned char", 0), ("Color", "Color", Color(1.0, 1.0, 1.0, 1.0)),
               ("IntensityMode", "unsigned char", 0), ("Intensity", "float", 100.0),
               ("AttenuationRadiusMode", "unsigned char", 1),
               ("AttenuationRadius", "float", 0.0),
               ("LightEmitsBothDirections", "bool", False),
               ("UseFastApproximation", "bool", False), ("GoboAsset", ASSET),
               ("EnableShutters", "bool", False),
               ("InnerShutterAngleDegrees", "float", 35.0),
               ("OuterShutterAngleDegrees", "float", 45.0), ("Enable Shadow", "bool", False),
               ("Shadow Bias", "float", f32(0.1)), ("Normal Shadow Bias", "float", 0.0),
               ("Shadowmap Max Size", "AZ::Render::ShadowmapSize", 256),
               ("Shadow Filter Method", "unsigned int", 0),
               ("Filtering Sample Count", "unsigned short", 12),
               ("Esm Exponent", "float", 87.0), ("Shadow Caching Mode", "unsigned char", 0),
               ("Shadow Caching Enabled", "bool", False), ("Affects GI", "bool", True),
               ("Affects GI Factor", "float", 1.0), ("LightingChannelConfig", LIGHTING)],
              bases=[COMPONENT_CONFIG])
    # Source/CoreLights/EditorAreaLightComponent.cpp (version 1), AreaLightComponentController.cpp
    # (version 1)
    add_adapter(reg, "AZ::Render::EditorAreaLightComponent",
                "{8B605C0C-9027-4E0B-BA8C-19E396F8F262}",
                "AZ::Render::AreaLightComponentController",
                "{C185C0F7-0923-4EF7-94F7-B41D60FE535B}", "AZ::Render::AreaLightComponentConfig",
                runtime="AZ::Render::AreaLightComponent")


def _environment(reg: Registry) -> None:
    # Source/ImageBasedLights/ImageBasedLightComponentConfig.cpp (version 1)
    add_class(reg, "AZ::Render::ImageBasedLightComponentConfig",
              "{2BD353A5-562B-4D84-9508-B2EFAFF1415E}",
              [("diffuseImageAsset", ASSET), ("specularImageAsset", ASSET),
               ("exposure", "float", 0.0)],
              bases=[COMPONENT_CONFIG], registered_name="ImageBasedLightComponentConfig")
    # Source/ImageBasedLights/EditorImageBasedLightComponent.cpp (version 2; the editor class keeps
    # its own copies of the three members), ImageBasedLightComponentController.cpp
    add_adapter(reg, "AZ::Render::EditorImageBasedLightComponent",
                "{6202F16C-DDF9-4026-9479-F5BDC621D372}",
                "AZ::Render::ImageBasedLightComponentController",
                "{73DBD008-4E77-471C-B7DE-F2217A256FE2}",
                "AZ::Render::ImageBasedLightComponentConfig",
                runtime="AZ::Render::ImageBasedLightComponent",
                fields=[("diffuseImageAsset", ASSET), ("specularImageAsset", ASSET),
                        ("exposure", "float", 0.0)])
    # Source/SkyBox/HDRiSkyboxComponentConfig.cpp (version 8)
    add_class(reg, "AZ::Render::HDRiSkyboxComponentConfig",
              "{AEAD8F5A-8D2F-47CD-B98C-C99541F7B229}",
              [("CubemapAssetId", "AZ::Data::AssetId"), ("CubemapAsset", ASSET),
               ("Exposure", "float", 0.0)],
              bases=[COMPONENT_CONFIG])
    # Source/SkyBox/EditorHDRiSkyboxComponent.cpp (version 2), HDRiSkyboxComponentController.cpp;
    # the type id is in Gems/Atom/Feature/Common/Code/Include/Atom/Feature/SkyBox/SkyboxConstants.h
    add_adapter(reg, "AZ::Render::EditorHDRiSkyboxComponent",
                "{B736789D-0101-4D17-A932-B5224EEFA8B4}",
                "AZ::Render::HDRiSkyboxComponentController",
                "{D01C123D-4EA1-4A9B-A7D9-47EF26A55CD0}", "AZ::Render::HDRiSkyboxComponentConfig",
                runtime="AZ::Render::HDRiSkyboxComponent")
    # Source/Grid/GridComponentConfig.cpp (version 0)
    add_class(reg, "AZ::Render::GridComponentConfig", "{D1E357DF-6CCC-43C4-81F1-6B85C2E06A59}",
              [("gridSize", "float", 32.0), ("axisColor", "Color", Color(0.0, 0.0, 1.0, 1.0)),
               ("primarySpacing", "float", 1.0),
               ("primaryColor", "Color", Color(0.25, 0.25, 0.25, 1.0)),
               ("secondarySpacing", "float", 0.25),
               ("secondaryColor", "Color", Color(0.5, 0.5, 0.5, 1.0))],
              bases=[COMPONENT_CONFIG], registered_name="GridComponentConfig")
    # Source/Grid/EditorGridComponent.cpp (version 1), GridComponentController.cpp (version 0)
    add_adapter(reg, "AZ::Render::EditorGridComponent", "{DF2D071A-EC31-428A-9FD0-2B8A59945417}",
                "AZ::Render::GridComponentController", "{D2FF04F5-2F8D-44C5-99CA-A6FF800187DD}",
                "AZ::Render::GridComponentConfig", runtime="AZ::Render::GridComponent")
