"""The engine's hand-written serializers of asset references and material property values
(``AssetJsonSerializer``, ``JsonMaterialPropertyValueSerializer``), written again from what
they do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gameserde.o3de._context import NO_DEFAULT, is_object
from gameserde.o3de._engine_fields import expect, find, load_field, store_field
from gameserde.o3de.registry import LEAVES, Serializer, TypeExpr
from gameserde.o3de.result import Outcomes, Tasks
from gameserde.o3de.values import Color, Vector2, Vector3, Vector4

__all__ = ["AssetReference", "AssetSerializer", "MaterialPropertyValueSerializer"]


@dataclass
class AssetReference:
    """``AZ::Data::Asset<T>``: the asset id (an ``AZ::Data::AssetId`` instance), the load
    behaviour (``AssetLoadBehavior``: 0 PreLoad, 1 QueueLoad, 2 NoLoad) and the hint."""

    asset_id: Any = None
    load_behavior: int = 1
    hint: str = ""


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
        asset.load_behavior, result = load_field(ctx, value, "loadBehavior", self.BEHAVIOR,
                                                  asset.load_behavior)
        found, member = find(value, "assetId")
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
        found, member = find(value, "assetHint")
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
        expect(ctx, value, AssetReference)
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
        result = result.combine(store_field(ctx, out, "loadBehavior", self.BEHAVIOR,
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
