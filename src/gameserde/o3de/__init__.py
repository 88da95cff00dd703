"""O3DE JSON serialization (``AZ::JsonSerialization``): a reflection registry, and store/load
with the engine's per-type rules and result codes."""

from gameserde.o3de._context import NO_DEFAULT
from gameserde.o3de.load import load, load_direct, load_type_id
from gameserde.o3de.registry import ClassInfo, EnumInfo, FieldInfo, Registry, Serializer, TypeExpr
from gameserde.o3de.result import Issue, Outcomes, Processing, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.store import store, store_type_id
from gameserde.o3de.typeid import parse_uuid, search_uuid, uuid_text
from gameserde.o3de.values import (
    AnyValue,
    Color,
    JsonPairs,
    Matrix3x3,
    Matrix3x4,
    Matrix4x4,
    Quaternion,
    Transform,
    Vector2,
    Vector3,
    Vector4,
)

__all__ = [
    "NO_DEFAULT", "AnyValue", "ClassInfo", "Color", "EnumInfo", "FieldInfo", "Issue",
    "JsonPairs", "Matrix3x3", "Matrix3x4", "Matrix4x4", "Outcomes", "Processing", "Quaternion",
    "Registry", "Reporter", "Result", "ResultCode", "Serializer", "Tasks", "Transform",
    "TypeExpr", "Vector2", "Vector3", "Vector4", "load", "load_direct", "load_type_id",
    "parse_uuid", "search_uuid", "store", "store_type_id", "uuid_text",
]
