"""O3DE JSON serialization (``AZ::JsonSerialization``): a reflection registry, and store/load
with the engine's per-type rules and result codes; the JSON text layer as the engine reads
and writes it, compare, JSON Patch and JSON Merge Patch, ``$import``; and :func:`codec`, the
format's codec (``gameserde.codec("o3de", ...)``)."""

from gameserde.o3de._context import NO_DEFAULT
from gameserde.o3de._primitives import PointerObject
from gameserde.o3de.imports import ImportDirective, resolve_imports, restore_imports
from gameserde.o3de.interface import O3deCodec, codec
from gameserde.o3de.load import load, load_direct, load_type_id
from gameserde.o3de.patch import PatchResult, apply_patch, compare, create_patch, json_equal
from gameserde.o3de.registry import ClassInfo, EnumInfo, FieldInfo, Registry, Serializer, TypeExpr
from gameserde.o3de.result import Issue, Outcomes, Processing, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.settings import merge_settings, resolve_imports_in_order
from gameserde.o3de.store import store, store_type_id
from gameserde.o3de.text import JsonObject, members, parse, parse_root, write
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
    "NO_DEFAULT", "AnyValue", "ClassInfo", "Color", "EnumInfo", "FieldInfo", "ImportDirective",
    "Issue", "JsonObject", "JsonPairs", "Matrix3x3", "Matrix3x4", "Matrix4x4", "O3deCodec",
    "Outcomes", "PatchResult", "PointerObject", "Processing", "Quaternion", "Registry", "Reporter",
    "Result", "ResultCode", "Serializer", "Tasks", "Transform", "TypeExpr", "Vector2", "Vector3",
    "Vector4", "apply_patch", "codec", "compare", "create_patch", "json_equal", "load",
    "load_direct", "load_type_id", "members", "merge_settings", "parse", "parse_root", "parse_uuid",
    "resolve_imports", "resolve_imports_in_order", "restore_imports", "search_uuid", "store",
    "store_type_id", "uuid_text", "write",
]
