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
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import (
    Bool,
    Enum,
    Float,
    Int,
    List,
    Optional,
    Record,
    Ref,
    String,
    Union,
)
from gameserde.schema.model import Field as ModelField
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

    def resolve(self, t: ModelType) -> Any:
        return self.schema.resolve(t)

    def scalar_base(self, t: ModelType) -> str:
        if isinstance(t, Optional):
            t = t.inner
        r = self.resolve(t)
        if isinstance(r, Enum):
            r = r.underlying
        if isinstance(r, Bool):
            return "Bool"
        if isinstance(r, Float):
            return "Double" if r.bits == 64 else "Float"
        if isinstance(r, Int):
            names = {8: "Byte", 16: "Short", 32: "Int", 64: "Long"}
            name = names.get(r.bits, "Long")
            return name if r.signed else ("U" + name if name != "Byte" else "UByte")
        return "None"

    def element_type(self, t: ModelType, union_of: str | None) -> tuple[str, str | None]:
        """The base type and index of a non-series type."""
        if union_of is not None:
            return "UType", union_of
        r = self.resolve(t)
        if isinstance(r, Record):
            return "Obj", r.name
        if isinstance(r, Union):
            return "Union", r.name
        if isinstance(r, String):
            return "String", None
        if isinstance(r, Enum):
            return self.scalar_base(r.underlying), r.name
        return self.scalar_base(t), None

    def rtype(self, f: ModelField) -> _RType:
        union_of = f.attributes.get("flatbuffers.union")
        union_of = union_of if isinstance(union_of, str) and union_of else None
        t = f.type
        if isinstance(t, List):
            element, index = self.element_type(t.element, union_of)
            if t.length is not None:
                return _RType("Array", element, index, t.length)
            base = "Vector64" if f.attributes.get("vector64") else "Vector"
            return _RType(base, element, index)
        base, index = self.element_type(t, union_of)
        return _RType(base, "None", index)

    def object(self, name: str) -> _RObject:
        obj = self._objects.get(name)
        if obj is None:
            rec = self.schema.record(name)
            fields = []
            for f in sorted(rec.fields, key=lambda f: f.id or 0):
                default_integer, default_real = 0, 0.0
                d = f.default
                if isinstance(d, bool):
                    default_integer = int(d)
                elif isinstance(d, int):
                    # reflection's default_integer is an int64: flatc stores 0 for the
                    # ulong defaults it cannot parse as one.
                    default_integer = d if -(1 << 63) <= d < (1 << 63) else 0
                elif isinstance(d, float):
                    # -0.0 equals reflection's default 0.0, so the builder leaves it out.
                    default_real = d if d != 0.0 else 0.0
                fields.append(_RField(
                    f.name, f.id or 0, self.rtype(f), f.required,
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
