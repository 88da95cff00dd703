"""O3DE values as rows of the shared type model, for tables (Parquet datasets).

:func:`row_of` turns what :meth:`O3deCodec.decode <gameserde.o3de.interface.O3deCodec.decode>`
returns into a :class:`~gameserde.codecs.Row`. A typed document is a row of its type, typed by
a model built from the registry (:class:`RowModel`, made once per registry and type):

=======================================  ==========================================================
O3DE                                     model (row form)
=======================================  ==========================================================
``bool``, integers, ``float``/``double`` ``Bool``, ``Int(bits, signed)``, ``Float(32/64)``
``AZStd::string``, ``AZ::Name``, paths   ``String``
``AZ::Uuid``, ``AZ::EntityId``           ``String`` (``{0A1B...}`` as the engine writes it;
                                         an entity id as its alias)
``vector<unsigned char>``                ``Bytes``
enums                                    ``Enum`` (its values, the underlying integer)
classes                                  ``Record`` of every field, inherited ones first, each
                                         named as in the JSON (a name a base class already uses
                                         gets the field's Python name)
math types                               records of float32: ``AZ::Vector3`` (``x y z``),
                                         ``AZ::Quaternion`` (``x y z w``), ``AZ::Color``
                                         (``r g b a``), ``AZ::Matrix3x3`` (``elements``,
                                         row-major), ``AZ::Transform`` (``translation``,
                                         ``rotation``, ``scale``)
``vector``, ``list``, ``set`` ...        ``List``, ``Set``; ``array<T,N>`` a fixed length
``map``, ``unordered_map`` ...           ``Map``
``pair``, ``tuple``                      a ``Record`` with fields ``0``, ``1`` ...
``T*``, ``shared_ptr<T>`` ...            ``Optional(T)``; for a class with derived classes a
                                         ``Union`` of every class that can be made (``T*``)
``AZStd::any``                           a ``Union`` of every type the registry can make
``Asset<T>``                             ``Record`` ``assetId``, ``loadBehavior``, ``assetHint``
prefab, entity, nested instance          ``Record`` of their members; components a ``Union``
                                         (``ComponentPointer``) of every component class and
                                         ``UncheckedComponent``
material property values                 a ``Union`` of ``bool int float Vector2 Vector3
                                         Vector4 Color string``
=======================================  ==========================================================

A union of more than 64 members (``AZStd::any`` with the engine registry, not its 49
components) is a JSON column in Arrow (:mod:`gameserde.schema.arrow`), as is a class inside
itself; a class without fields has one field, ``present`` (Parquet writes no empty struct).
What the model cannot type is kept as JSON text in a ``String``: a component whose type the
registry does not know (the member ``UncheckedComponent``), the patches of a nested
instance, and the values of custom serializers this module does not know (what their
serializer writes). What a row cannot hold is reported with a
:class:`~gameserde.errors.GameserdeWarning`: a string holding bytes that are not UTF-8 gets
U+FFFD in their place, and a value its union does not list (an ``AZStd::any`` holding a type
the registry lacks, a pointer to an instance of an unregistered class) is left out (None).

A document without a registry (settings registry files, untyped JSON) has no single type: its
row (:func:`json_row`) has ``schema`` and ``type`` None and the document's JSON values; a
member name an object repeats is kept once (the last), reported.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from gameserde._jsonio import compact_text
from gameserde.codecs import Row
from gameserde.errors import GameserdeWarning, SchemaError
from gameserde.o3de import _engine_assets as assets
from gameserde.o3de import _engine_prefab as prefab
from gameserde.o3de import _primitives as primitives
from gameserde.o3de.registry import Registry, TypeExpr
from gameserde.o3de.text import members, write
from gameserde.o3de.typeid import uuid_text
from gameserde.o3de.values import AnyValue, Color, Vector2, Vector3, Vector4
from gameserde.schema import model as m

__all__ = ["RowModel", "json_row", "row_model", "row_of"]

Convert = Callable[[Any], Any]

_MATH_FIELDS: dict[str, tuple[str, ...]] = {
    "Vector2": ("x", "y"), "Vector3": ("x", "y", "z"), "Vector4": ("x", "y", "z", "w"),
    "Quaternion": ("x", "y", "z", "w"), "Color": ("r", "g", "b", "a"),
}
_MATRIX_SIZES = {"Matrix3x3": 9, "Matrix3x4": 12, "Matrix4x4": 16}
_TEMPLATE_KINDS = ("seq", "array", "tuple", "map", "pointer")
_PROPERTY_MEMBERS: tuple[tuple[str, type, m.Type], ...] = (
    ("bool", bool, m.BOOL), ("int", int, m.INT32), ("float", float, m.FLOAT32),
    ("Vector2", Vector2, m.STRING), ("Vector3", Vector3, m.STRING),
    ("Vector4", Vector4, m.STRING), ("Color", Color, m.STRING), ("string", str, m.STRING))
"""The members of a material property value: name, Python type, model type (math types are
lowered as the math records)."""
_SURROGATES = re.compile("[\ud800-\udfff]")
PRESENT = "present"
"""The one field of a class without fields (true): Parquet has no struct without one."""
UNCHECKED = "UncheckedComponent"
"""The member of the component union holding a component the registry does not know (its
JSON text)."""


def _warn(message: str) -> None:
    warnings.warn(message, GameserdeWarning, stacklevel=4)


def _compact(value: Any) -> str:
    """JSON values as one line of JSON text (member names that repeat kept)."""
    return compact_text(write(value))


def _text(value: Any) -> Any:
    """A string as Parquet can hold it: lone surrogates (the bytes of a document that are not
    UTF-8 read as U+DC80..U+DCFF, or escaped ones) become U+FFFD, reported."""
    if value is None or value.isascii():
        return value
    fixed, count = _SURROGATES.subn("\ufffd", value)
    if count:
        _warn(f"the string {fixed[:40]!r} held {count} code point(s) that are not text (bytes "
              "that are not UTF-8, or lone surrogates); the row has U+FFFD in their place")
    return fixed


def _optional(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda value: None if value is None else convert(value)


class RowModel:
    """The row model of one type of a registry: :attr:`schema` (every named type the type
    reaches), :attr:`type` (the root's model type) and :meth:`row` (a value to its row).
    Converters are compiled once per O3DE type."""

    def __init__(self, registry: Registry, type_name: str) -> None:
        self.registry = registry
        self.named: dict[str, m.Named] = {}
        self._converts: dict[TypeExpr, Convert | None] = {}
        self._lowered: dict[TypeExpr, m.Type] = {}
        self._pending: list[Callable[[], object]] = []
        self._building: set[str] = set()
        self.root = registry.resolve(type_name)
        self.type = self._lower(self.root)
        while self._pending:
            self._pending.pop()()
        self.schema = m.Schema(self.named)
        self.name = self.type.name if isinstance(self.type, m.Ref) else self.root.name
        self._root_convert = self.convert(self.root)

    def row(self, value: Any) -> Row:
        """``value`` (a value of the root type) as a row."""
        convert = self._root_convert
        return Row(self.name, self.schema, self.type,
                   value if convert is None else convert(value))

    # -- the model ----------------------------------------------------------------------------

    def _add(self, named: m.Named) -> m.Ref:
        if named.name in self.named:
            raise SchemaError(f"two types of the row model are named {named.name}")
        self.named[named.name] = named
        return m.Ref(named.name)

    def _lower(self, t: TypeExpr) -> m.Type:
        found = self._lowered.get(t)
        if found is None:
            found = self._lowered[t] = self._lower_new(t)
        return found

    def _lower_new(self, t: TypeExpr) -> m.Type:
        kind = t.kind
        if kind == "bool":
            return m.BOOL
        if kind in ("int", "opaque"):
            return m.Int(t.size, t.signed)
        if kind == "float":
            return m.Float(t.size)
        if kind in ("string", "uuid"):
            return m.STRING
        if kind == "enum":
            return self._enum(t.name)
        if kind == "class":
            if t.name not in self.registry.classes:
                return m.STRING
            return self._record(t.name)
        if kind == "math":
            return self._math(t.name)
        if kind == "seq":
            element = self._lower(t.args[0])
            return m.Set(element) if "set" in t.flavor and "multi" not in t.flavor \
                else m.List(element)
        if kind == "array":
            return m.List(self._lower(t.args[0]), t.size)
        if kind == "map":
            return m.Map(self._lower(t.args[0]), self._lower(t.args[1]))
        if kind == "tuple":
            return self._named(t.name, lambda: m.Record(
                t.name, tuple(m.Field(str(n), self._lower(a)) for n, a in enumerate(t.args)),
                kind="tuple"))
        if kind == "pointer":
            return self._pointer(t)
        if kind == "any":
            return self._any()
        if kind == "custom":
            return self._custom(t)
        return m.STRING  # rejected templates hold nothing

    def _named(self, name: str, build: Callable[[], m.Named]) -> m.Ref:
        """The reference to ``name``, built (after the type being built) the first time."""
        if name not in self.named and name not in self._building:
            self._building.add(name)
            self._pending.append(lambda: self._add(build()))
        return m.Ref(name)

    def _enum(self, name: str) -> m.Type:
        info = self.registry.enums[name]
        underlying = m.Int(info.underlying.size, info.underlying.signed)
        values: dict[str, int] = {}
        for value_name, value in info.values:
            values.setdefault(value_name, value)
        try:
            enum = m.Enum(name, underlying, values, attributes={"uuid": str(info.uuid)})
        except SchemaError:
            return underlying  # a value out of the underlying type's range: its integers
        if name not in self.named:
            self._add(enum)
        return m.Ref(name)

    def columns(self, name: str) -> list[tuple[str, str, TypeExpr]]:
        """The fields of the class ``name`` as ``(column name, Python attribute, type)``."""
        taken: set[str] = set()
        out = []
        for f in self.registry.classes[name].all_fields:
            column = f.name if f.name not in taken else f.attr
            while column in taken:
                column += "_"
            taken.add(column)
            out.append((column, f.attr, f.type))
        return out

    def _record(self, name: str) -> m.Ref:
        info = self.registry.classes[name]

        def build() -> m.Named:
            fields = tuple(m.Field(column, self._lower(t), attributes={"o3de_type": t.name})
                           for column, _, t in self.columns(name))
            return m.Record(name, fields or (m.Field(PRESENT, m.BOOL),), kind="class",
                            attributes={"uuid": str(info.uuid), "bases": info.bases})
        return self._named(name, build)

    def _math(self, name: str) -> m.Ref:
        full = f"AZ::{name}"
        if name in _MATH_FIELDS:
            return self._named(full, lambda: m.Record(
                full, tuple(m.Field(f, m.FLOAT32) for f in _MATH_FIELDS[name]), kind="math"))
        if name in _MATRIX_SIZES:
            return self._named(full, lambda: m.Record(
                full, (m.Field("elements", m.List(m.FLOAT32, _MATRIX_SIZES[name])),),
                kind="math"))
        vector, quaternion = self._math("Vector3"), self._math("Quaternion")
        return self._named(full, lambda: m.Record(
            full, (m.Field("translation", vector), m.Field("rotation", quaternion),
                   m.Field("scale", m.FLOAT32)), kind="math"))

    def concrete(self, base: str) -> list[str]:
        """The classes a pointer to ``base`` may point to: ``base`` and every class derived
        from it that can be made, in registration order."""
        registry = self.registry
        declared = TypeExpr("class", base)
        return [name for name, info in registry.classes.items()
                if not info.abstract and registry.is_derived(TypeExpr("class", name), declared)]

    def _pointer(self, t: TypeExpr) -> m.Type:
        target = t.args[0]
        if target.kind != "class" or target.name not in self.registry.classes:
            return m.Optional(self._lower(target))
        members = self.concrete(target.name)
        if members == [target.name]:
            return m.Optional(self._lower(target))
        return self._union(f"{target.name}*", [(n, TypeExpr("class", n)) for n in members],
                           kind="pointer")

    def _union(self, name: str, members: list[tuple[str, TypeExpr | m.Type]], *,
               kind: str) -> m.Ref:
        def build() -> m.Named:
            lowered = {member: (n, t if not isinstance(t, TypeExpr) else self._lower(t))
                       for n, (member, t) in enumerate(members)}
            return m.Union(name, lowered, discriminator=m.UINT32, kind=kind)
        return self._named(name, build)

    def any_members(self) -> list[tuple[str, TypeExpr]]:
        """What an ``AZStd::any`` may hold: every type the registry can make, by its name
        (templates that registered classes use too, which a ``$type`` may name by id)."""
        registry = self.registry
        found: dict[str, TypeExpr] = {}
        for t in registry.named_types():
            if registry.can_create(t):
                found.setdefault(t.name, t)
        pending = [f.type for info in registry.classes.values() for f in info.fields]
        while pending:
            t = pending.pop()
            pending.extend(t.args)
            if t.kind in _TEMPLATE_KINDS and t.flavor != "raw":
                found.setdefault(t.name, t)
        return list(found.items())

    def _any(self) -> m.Ref:
        return self._union("AZStd::any", list(self.any_members()), kind="any")

    def _custom(self, t: TypeExpr) -> m.Type:
        serializer = self.registry.serializers[t.name][0]
        if isinstance(serializer, prefab.EntityIdSerializer | primitives.PathSerializer):
            return m.STRING
        if isinstance(serializer, primitives.ByteStreamSerializer):
            return m.BYTES
        if isinstance(serializer, primitives.PointerObjectSerializer):
            return self._named(t.name, lambda: m.Record(
                t.name, (m.Field("address", m.UINT64), m.Field("type_id", m.STRING))))
        if isinstance(serializer, assets.AssetSerializer):
            asset_id = self._lower(assets.AssetSerializer.ASSET_ID)
            behavior = self._lower(assets.AssetSerializer.BEHAVIOR) \
                if assets.AssetSerializer.BEHAVIOR.name in self.registry.enums else m.UINT8
            return self._named(t.name, lambda: m.Record(
                t.name, (m.Field("assetId", m.Optional(asset_id)),
                         m.Field("loadBehavior", behavior), m.Field("assetHint", m.STRING))))
        if isinstance(serializer, prefab.ComponentPointerSerializer):
            members: list[tuple[str, TypeExpr | m.Type]] = [
                (n, TypeExpr("class", n)) for n in self.concrete(prefab.COMPONENT.name)]
            return self._union(t.name, [*members, (UNCHECKED, m.STRING)], kind="pointer")
        if isinstance(serializer, prefab.ComponentMapSerializer):
            return self._lower(self.registry.resolve(prefab.COMPONENT_MAP))
        if isinstance(serializer, prefab.EntitySerializer):
            components = self._lower(self.registry.resolve(prefab.COMPONENT_MAP))
            return self._named(t.name, lambda: m.Record(
                t.name, (m.Field("Id", m.STRING), m.Field("Name", m.STRING),
                         m.Field("Components", components),
                         m.Field("IsRuntimeActive", m.BOOL))))
        if isinstance(serializer, prefab.PrefabLinkSerializer):
            return self._named(t.name, lambda: m.Record(
                t.name, (m.Field("Source", m.STRING), m.Field("Patches", m.List(m.STRING)))))
        if isinstance(serializer, prefab.PrefabSerializer):
            entity = self._lower(prefab.ENTITY)
            entities = self._lower(self.registry.resolve(prefab.PrefabSerializer.ENTITIES))
            instances = self._lower(self.registry.resolve(prefab.PrefabSerializer.INSTANCES))
            return self._named(t.name, lambda: m.Record(
                t.name, (m.Field("Source", m.STRING),
                         m.Field("ContainerEntity", m.Optional(entity)),
                         m.Field("Entities", entities), m.Field("Instances", instances))))
        if isinstance(serializer, assets.MaterialPropertyValueSerializer):
            return self._union(t.name, [(n, self._math(n) if n in _MATH_FIELDS else mt)
                                        for n, _, mt in _PROPERTY_MEMBERS], kind="union")
        return m.STRING  # another serializer's value: the JSON text it writes

    # -- the converters -----------------------------------------------------------------------

    def convert(self, t: TypeExpr) -> Convert | None:
        """The converter of ``t``'s values to their row form (None: the value is it)."""
        if t in self._converts:
            return self._converts[t]
        cell: list[Convert | None] = []
        self._converts[t] = lambda value: cell[0](value) if cell[0] is not None else value
        made = self._convert_new(t)
        cell.append(made)
        self._converts[t] = made
        return made

    def _convert_new(self, t: TypeExpr) -> Convert | None:
        kind = t.kind
        if kind in ("bool", "int", "float", "opaque"):
            return None
        if kind == "string":
            return _text
        if kind == "uuid":
            return _optional(uuid_text)
        if kind == "enum":
            return _optional(int)
        if kind == "class":
            if t.name not in self.registry.classes:
                return self._kept(t)
            return self._class(t.name)
        if kind == "math":
            return self._math_convert(t.name)
        if kind in ("seq", "array"):
            element = self.convert(t.args[0])
            is_set = "set" in t.flavor and "multi" not in t.flavor
            if is_set:
                return lambda value: None if value is None else [
                    x if element is None else element(x) for x in _ordered(value)]
            if element is None:
                return _optional(list)
            return lambda value: None if value is None else [element(x) for x in value]
        if kind == "map":
            key, item = self.convert(t.args[0]), self.convert(t.args[1])

            def pairs(value: Any) -> Any:
                if value is None:
                    return None
                found = value.items() if isinstance(value, Mapping) else value
                return [(k if key is None else key(k), w if item is None or w is None
                         else item(w)) for k, w in found]
            return pairs
        if kind == "tuple":
            parts = [(str(n), self.convert(a)) for n, a in enumerate(t.args)]
            return lambda value: None if value is None else {
                name: x if conv is None else conv(x)
                for (name, conv), x in zip(parts, value, strict=True)}
        if kind == "pointer":
            lowered = self._lower(t)
            if isinstance(lowered, m.Optional):
                return _optional(self.convert(t.args[0]))
            return self._class_union(t.args[0].name)
        if kind == "any":
            return self._any_convert()
        if kind == "custom":
            return self._custom_convert(t)
        return self._kept(t)

    def _class(self, name: str) -> Convert:
        columns = [(column, attr, self.convert(t)) for column, attr, t in self.columns(name)]
        if not columns:
            return lambda value: None if value is None else {PRESENT: True}

        def record(value: Any) -> Any:
            if value is None:
                return None
            return {column: getattr(value, attr) if conv is None else conv(getattr(value, attr))
                    for column, attr, conv in columns}
        return record

    def _math_convert(self, name: str) -> Convert:
        if name in _MATH_FIELDS:
            names = _MATH_FIELDS[name]
            return lambda value: None if value is None else dict(zip(names, value, strict=True))
        if name in _MATRIX_SIZES:
            return lambda value: None if value is None else {"elements": list(value.elements)}
        vector, quaternion = self._math_convert("Vector3"), self._math_convert("Quaternion")
        return lambda value: None if value is None else {
            "translation": vector(value.translation), "rotation": quaternion(value.rotation),
            "scale": value.scale}

    def _class_union(self, base: str) -> Convert:
        members = set(self.concrete(base))
        return self._instance_union(members, f"a pointer to {base}", None)

    def _instance_union(self, members: set[str], where: str,
                        unchecked: Convert | None) -> Convert:
        registry = self.registry
        classes: dict[type, tuple[str, Convert]] = {}

        def convert(value: Any) -> Any:
            if value is None:
                return None
            if unchecked is not None and isinstance(value, prefab.UncheckedComponent):
                return UNCHECKED, unchecked(value)
            found = classes.get(type(value))
            if found is None:
                t = registry.type_of_value(value)
                if t is None or t.kind != "class" or t.name not in members:
                    _warn(f"{where} holds {type(value).__name__}, which the row's union does "
                          "not list; left out of the row")
                    return None
                found = classes[type(value)] = (t.name, self._class(t.name))
            return found[0], found[1](value)
        return convert

    def _any_convert(self) -> Convert:
        members = dict(self.any_members())
        converts: dict[str, Convert | None] = {}

        def convert(value: Any) -> Any:
            if not isinstance(value, AnyValue) or value.type is None:
                if value is not None and not isinstance(value, AnyValue):
                    _warn(f"an AZStd::any holds {type(value).__name__}, not an AnyValue; left "
                          "out of the row")
                return None
            name = value.type
            if name not in converts:
                t = members.get(name)
                if t is None:
                    _warn(f"an AZStd::any holds a {name}, which the row's union does not "
                          "list; left out of the row")
                    return None
                converts[name] = self.convert(t)
            conv = converts[name]
            inner = value.value
            return name, inner if conv is None or inner is None else conv(inner)
        return convert

    def _custom_convert(self, t: TypeExpr) -> Convert | None:
        serializer = self.registry.serializers[t.name][0]
        if isinstance(serializer, prefab.EntityIdSerializer | primitives.PathSerializer):
            return _text
        if isinstance(serializer, primitives.ByteStreamSerializer):
            return _optional(bytes)
        if isinstance(serializer, primitives.PointerObjectSerializer):
            return lambda value: None if value is None else {
                "address": value.address, "type_id": uuid_text(value.type_id)}
        if isinstance(serializer, assets.AssetSerializer):
            asset_id = self.convert(assets.AssetSerializer.ASSET_ID)
            return lambda value: None if value is None else {
                "assetId": value.asset_id if asset_id is None or value.asset_id is None
                else asset_id(value.asset_id),
                "loadBehavior": int(value.load_behavior), "assetHint": value.hint}
        if isinstance(serializer, prefab.ComponentPointerSerializer):
            return self._instance_union(set(self.concrete(prefab.COMPONENT.name)),
                                        "a component", lambda c: _compact(c.json))
        if isinstance(serializer, prefab.ComponentMapSerializer):
            return self.convert(self.registry.resolve(prefab.COMPONENT_MAP))
        if isinstance(serializer, prefab.EntitySerializer):
            components = self.convert(self.registry.resolve(prefab.COMPONENT_MAP))
            assert components is not None
            return lambda value: None if value is None else {
                "Id": value.id, "Name": value.name, "Components": components(value.components),
                "IsRuntimeActive": value.runtime_active}
        if isinstance(serializer, prefab.PrefabLinkSerializer):
            return lambda value: None if value is None else {
                "Source": value.source, "Patches": [_compact(p) for p in value.patches]}
        if isinstance(serializer, prefab.PrefabSerializer):
            entity = self.convert(prefab.ENTITY)
            entities = self.convert(self.registry.resolve(prefab.PrefabSerializer.ENTITIES))
            instances = self.convert(self.registry.resolve(prefab.PrefabSerializer.INSTANCES))
            assert entity is not None and entities is not None and instances is not None
            return lambda value: None if value is None else {
                "Source": value.source, "ContainerEntity": entity(value.container_entity),
                "Entities": entities(value.entities), "Instances": instances(value.instances)}
        if isinstance(serializer, assets.MaterialPropertyValueSerializer):
            return self._property_convert()
        return self._kept(t)

    def _property_convert(self) -> Convert:
        vectors = {cls: self._math_convert(name) for name, cls, _ in _PROPERTY_MEMBERS
                   if name in _MATH_FIELDS}
        names = {cls: name for name, cls, _ in _PROPERTY_MEMBERS}

        def convert(value: Any) -> Any:
            if value is None:
                return None
            name = names.get(type(value))
            if name is None:
                _warn(f"a material property value is a {type(value).__name__}, which the "
                      "row's union does not list; left out of the row")
                return None
            vector = vectors.get(type(value))
            return name, value if vector is None else vector(value)
        return convert

    def _kept(self, t: TypeExpr) -> Convert:
        """A value the model has no type for, as the JSON text the registry stores it as."""
        registry = self.registry

        def convert(value: Any) -> Any:
            if value is None:
                return None
            from gameserde.o3de.store import store

            try:
                stored, _ = store(value, t, registry=registry, keep_defaults=True)
            except Exception as e:  # a serializer of the user's, whatever it raises
                _warn(f"a {t.name} value could not be written as JSON ({e}); left out of the "
                      "row")
                return None
            return _compact(stored)
        return convert


def _ordered(values: Any) -> list[Any]:
    """A set's elements in a stable order (sorted when they compare)."""
    try:
        return sorted(values)
    except TypeError:
        return list(values)


_MODELS = "_gameserde_row_models"
"""The attribute of a registry holding its row models (they go when the registry goes)."""


def row_model(registry: Registry, type_name: str) -> RowModel:
    """The row model of ``type_name`` in ``registry``, made once (again when types were
    registered since)."""
    signature = (len(registry.classes), len(registry.enums), len(registry.serializers))
    models: dict[str, tuple[tuple[int, int, int], RowModel]] | None = getattr(
        registry, _MODELS, None)
    if models is None:
        models = {}
        setattr(registry, _MODELS, models)
    found = models.get(type_name)
    if found is None or found[0] != signature:
        found = models[type_name] = (signature, RowModel(registry, type_name))
    return found[1]


def row_of(registry: Registry, type_name: str, value: Any) -> Row:
    """``value``, a value of ``type_name`` in ``registry``, as a row of its type."""
    return row_model(registry, type_name).row(value)


def json_row(document: Any) -> Row:
    """A document without a type: a row of its JSON values (a JSON column). An object whose
    member names repeat keeps the last of each (what the engine's load and the settings
    registry end with), and the others are reported."""
    return Row("value", None, None, _plain(document, ""))


def _plain(value: Any, pointer: str) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in members(value):
            name = _text(key)
            if name in out:
                _warn(f"at {pointer or 'the root'}: the member name {key!r} is repeated; the "
                      "row keeps the last")
            out[name] = _plain(item, f"{pointer}/{key}")
        return out
    if isinstance(value, list):
        return [_plain(item, f"{pointer}/{n}") for n, item in enumerate(value)]
    return value
