"""The schema as flatc's reflection data (``reflection::Schema``): what ``BinaryAnnotator``
asks of it, computed from the shared model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gameserde.flatbuffers._annotate_regions import (
    DOUBLE,
    FLOAT,
    INT16,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    UTYPE,
)
from gameserde.flatbuffers._reflection_types import BASE_NAMES, ReflectionTypes, field_defaults
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Ref, Union
from gameserde.schema.model import Type as ModelType

# reflection::BaseType names, their sizes (GetTypeSize) and region types (GetRegionType).
_SIZES = {"None": 0, "UType": 1, "Bool": 1, "Byte": 1, "UByte": 1, "Short": 2, "UShort": 2,
          "Int": 4, "UInt": 4, "Long": 8, "ULong": 8, "Float": 4, "Double": 8, "String": 4,
          "Vector": 4, "Obj": 4, "Union": 4, "Array": 0, "Vector64": 8}
_SCALARS = ("UType", "Bool", "Byte", "UByte", "Short", "UShort", "Int", "UInt", "Long",
            "ULong", "Float", "Double")
_REGION_TYPES = {"UType": UTYPE, "Bool": UINT8, "Byte": UINT8, "UByte": UINT8,
                 "Short": INT16, "UShort": UINT16, "Int": UINT32, "UInt": UINT32,
                 "Long": INT64, "ULong": UINT64, "Float": FLOAT, "Double": DOUBLE}


@dataclass(frozen=True)
class _RType:
    base: str                 # reflection::BaseType name
    element: str = "None"     # for vectors and arrays
    index: str | None = None  # the object (table/struct) or enum/union it refers to
    fixed_length: int = 0


@dataclass(frozen=True)
class _RField:
    name: str
    id: int
    type: _RType
    required: bool
    offset64: bool
    padding: int
    default_integer: int
    default_real: float


@dataclass(frozen=True)
class _RObject:
    name: str
    is_struct: bool
    bytesize: int
    fields: tuple[_RField, ...]  # in id order (ForAllFields)


class _Reflection:
    """What BinaryAnnotator asks of ``reflection::Schema``, computed from the model."""

    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self._objects: dict[str, _RObject] = {}
        self._types = ReflectionTypes(schema)

    def resolve(self, t: ModelType) -> Any:
        return self.schema.resolve(t)

    def rtype(self, f: ModelField) -> _RType:
        base, element, index, fixed_length = self._types.of_field(f)
        return _RType(BASE_NAMES[base], BASE_NAMES[element],
                      self._types.name(index, base, element), fixed_length)

    def object(self, name: str) -> _RObject:
        obj = self._objects.get(name)
        if obj is None:
            rec = self.schema.record(name)
            fields = []
            for f in sorted(rec.fields, key=lambda f: f.id or 0):
                rtype = self.rtype(f)
                default_integer, default_real = field_defaults(f, BASE_NAMES.index(rtype.base))
                fields.append(_RField(
                    f.name, f.id or 0, rtype, f.required,
                    bool(f.attributes.get("flatbuffers.offset64")),
                    int(f.attributes.get("flatbuffers.padding", 0) or 0),
                    default_integer, default_real))
            size = int(rec.attributes.get("flatbuffers.size", 0) or 0)
            obj = _RObject(rec.name, rec.kind == "struct", size, tuple(fields))
            self._objects[name] = obj
        return obj

    def enum_values(self, name: str) -> list[tuple[str, ModelType | None]]:
        """A union's values in reflection order: NONE first, then the members."""
        u = self.resolve(Ref(name))
        if not isinstance(u, Union):
            return []
        values: list[tuple[str, ModelType | None]] = [
            (str(u.attributes.get("flatbuffers.none", "NONE")), None)]
        values += [(member, t) for member, (_, t) in u.members.items()]
        return values


def _is_scalar(base: str) -> bool:
    return base in _SCALARS
