"""The O3DE conformance file's test types and value encoding, turned into a registry and values.

Most types come straight from the file's ``types`` key. Written by hand here (the file only
describes them in words):

* defaults given as descriptions: ``"default"`` (a class field's default instance),
  ``"new SimpleClass()"``, ``"new BaseClass()"``, ``"new SimpleInheritence() with var1 = 142"``,
  ``"make_shared<A::Inherited>()"``, ``"new EmptyClass()"``;
* field types with a remark in parentheses (``int32 (enum not reflected)`` is an ``int32``;
  ``EmptyClass* (EmptyClass not registered)`` points to a class left out of that case's
  registry);
* ``TestString``: a custom serializer (default ``"Hello"``, no operation flags);
* ``Transform`` is gameserde's built-in math type; enum underlying types such as
  ``uint32 (unscoped, no fixed type)`` use their first word.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct
from typing import Any

from gameserde.o3de import AnyValue, JsonPairs, Registry, Serializer, TypeExpr
from gameserde.o3de._primitives import as_float32
from gameserde.o3de.registry import MATH
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.typeid import parse_uuid


class TestString(Serializer):
    """The tests' string wrapper: reads a JSON string, writes it unless it is the default."""

    def create(self) -> Any:
        return "Hello"

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, ResultCode]:
        if isinstance(value, str):
            return value, ctx.report(Tasks.ReadField, Outcomes.Success, "Read TestString.")
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "TestString reads strings only.")

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, ResultCode]:
        if not ctx.keep_defaults and default is not ctx.NO_DEFAULT and value == default:
            return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed, "Default TestString.")
        return value, ctx.report(Tasks.WriteValue, Outcomes.Success, "Stored TestString.")


_REMARK = re.compile(r"\s*\(.*\)$")


def _field_type(text: str) -> str:
    return _REMARK.sub("", text)


def _default(reg: Registry, ftype: str, default: Any) -> Any:
    if isinstance(default, str) and ftype not in ("string", "AZStd::string"):
        if default == "default":
            return dataclasses.MISSING
        match = re.fullmatch(r"(?:new |make_shared<)([\w:]+)(?:\(\)|>\(\))(?: with (\w+) = (\d+))?",
                             default)
        if match is None:
            raise AssertionError(f"unknown default description {default!r}")
        name, attr, number = match.groups()

        def factory() -> Any:
            if name not in reg.classes:
                return None
            instance = reg.create(reg.resolve(name))
            if attr:
                setattr(instance, attr, int(number))
            return instance
        return factory
    return default


def build_registry(types: dict[str, Any], *, without: set[str] = frozenset(),  # type: ignore[assignment]
                   only: list[str] | None = None) -> Registry:
    """A registry of the file's types, leaving out ``without`` (and the classes marked
    ``registered: false``); with ``only``, just those classes (``"A::Inherited : BaseClass"``)
    and their bases."""
    reg = Registry()
    if "TestString" in types and "TestString" not in without:
        reg.add_serializer("TestString", TestString(), uuid=types["TestString"]["id"])
    for name, info in types.get("enums", {}).items():
        if name in without:
            continue
        reg.add_enum(name, [tuple(v) for v in info["values"]],
                     underlying=info["underlying"].split()[0])
    classes = {k: v for k, v in types.items() if k not in ("enums", "TestString", "Transform")}
    wanted: set[str] | None = None
    if only is not None:
        wanted = set()
        for entry in only:
            cls = re.split(r"\s+[:(]", entry)[0].strip()
            wanted.add(cls)
            wanted.update(classes[cls].get("bases", []))
    done: set[str] = set()

    def add(name: str) -> None:
        if name in done:
            return
        done.add(name)
        info = classes[name]
        for base in info.get("bases", []):
            add(base)
        if (info.get("registered") is False or name in without
                or (wanted is not None and name not in wanted)):
            return
        fields = [(f[0], _field_type(f[1]), _default(reg, _field_type(f[1]), f[2]))
                  for f in info["fields"]]
        reg.add_class(name, info["id"], fields, bases=info.get("bases", []),
                      abstract=bool(info.get("abstract")), registered_name=info.get("name"))

    for name in classes:
        add(name)
    return reg


def json_input(value: Any) -> Any:
    """A case's JSON: ``{"__json_object_pairs__": ...}`` becomes :class:`JsonPairs`."""
    if isinstance(value, dict):
        if set(value) == {"__json_object_pairs__"}:
            return JsonPairs((k, json_input(v)) for k, v in value["__json_object_pairs__"])
        return {k: json_input(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_input(v) for v in value]
    return value


def _float(value: Any) -> float:
    if isinstance(value, dict) and value.get("__float__") == "nan":
        return math.nan
    return float(value)


def decode(reg: Registry, t: TypeExpr, enc: Any) -> Any:
    """The in-memory value a case encodes, as gameserde holds it."""
    kind = t.kind
    if kind == "pointer":
        return None if enc is None else decode(reg, t.args[0], enc)
    if kind == "class":
        name = enc["__class__"]
        instance = reg.create(reg.resolve(name))
        if enc.get("__default__"):
            return instance
        info = reg.classes[name]
        for f in info.all_fields:
            if f.name in enc:
                setattr(instance, f.attr, decode(reg, f.type, enc[f.name]))
        return instance
    if kind in ("bool", "int", "string", "enum", "custom", "rejected"):
        return enc
    if kind == "float":
        number = _float(enc)
        return as_float32(number) if t.size == 32 else number
    if kind == "uuid":
        return parse_uuid(enc)
    if kind == "seq":
        items = [decode(reg, t.args[0], e) for e in enc]
        return set(items) if "set" in t.flavor and "multi" not in t.flavor else items
    if kind == "array":
        return [decode(reg, t.args[0], e) for e in enc]
    if kind == "tuple":
        return tuple(decode(reg, a, e) for a, e in zip(t.args, enc, strict=True))
    if kind == "map":
        pairs = [(decode(reg, t.args[0], k), decode(reg, t.args[1], v)) for k, v in enc["__map__"]]
        return pairs if "multi" in t.flavor else dict(pairs)
    if kind == "any":
        if enc.get("__any__") is None:
            return AnyValue()
        held = reg.resolve(enc["__any__"])
        return AnyValue(enc["__any__"], decode(reg, held, enc["value"]))
    if kind == "math":
        if t.name == "Transform":
            return MATH["Transform"](decode(reg, reg.resolve("Vector3"), enc["translation"]),
                                     decode(reg, reg.resolve("Quaternion"), enc["rotation"]),
                                     as_float32(enc["scale"]))
        return MATH[t.name](*(as_float32(_float(x)) for x in enc))
    raise AssertionError(f"no value encoding for {t}")


class Near:
    """A float that equals another within 4 ULP (of float32 or of double), as gtest's
    ``EXPECT_FLOAT_EQ``/``EXPECT_DOUBLE_EQ`` compare; NaN equals NaN."""

    def __init__(self, value: float, single: bool) -> None:
        self.value, self.single = float(value), single

    def _ordinal(self) -> int:
        if self.single:
            bits = struct.unpack("<i", struct.pack("<f", as_float32(self.value)))[0]
        else:
            bits = struct.unpack("<q", struct.pack("<d", self.value))[0]
        top = 1 << (31 if self.single else 63)
        return bits if bits >= 0 else -(bits + top)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Near):
            return NotImplemented
        if math.isnan(self.value) or math.isnan(other.value):
            return math.isnan(self.value) and math.isnan(other.value)
        return abs(self._ordinal() - other._ordinal()) <= 4

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.value)


def normal(reg: Registry, t: TypeExpr, value: Any) -> Any:
    """A comparable form of a value: float32 values rounded, NaN as a marker, sets and
    multimaps order-free, classes as their class name and fields."""
    kind = t.kind
    if kind == "pointer":
        return None if value is None else normal(reg, t.args[0], value)
    if kind == "class":
        found = reg.type_of_value(value)
        assert found is not None, f"{value!r} is not an instance of a registered class"
        info = reg.classes[found.name]
        return (found.name, tuple(normal(reg, f.type, getattr(value, f.attr))
                                  for f in info.all_fields))
    if kind == "float":
        return Near(value, t.size == 32)
    if kind == "math":
        if t.name == "Transform":
            return tuple(normal(reg, reg.resolve(n), v) for n, v in
                         zip(("Vector3", "Quaternion", "float"), value, strict=True))
        parts = value.elements if t.name.startswith("Matrix") else value
        return tuple(Near(x, True) for x in parts)
    if kind in ("seq", "array"):
        items = [normal(reg, t.args[0], v) for v in value]
        return sorted(items, key=repr) if "set" in t.flavor else items
    if kind == "tuple":
        return tuple(normal(reg, a, v) for a, v in zip(t.args, value, strict=True))
    if kind == "map":
        pairs = value.items() if isinstance(value, dict) else value
        return sorted(((normal(reg, t.args[0], k), normal(reg, t.args[1], v)) for k, v in pairs),
                      key=repr)
    if kind == "any":
        if value.type is None:
            return None
        return (value.type, normal(reg, reg.resolve(value.type), value.value))
    if kind == "enum":
        return int(value)
    return value
