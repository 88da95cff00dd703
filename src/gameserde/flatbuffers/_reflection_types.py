"""The reflection view of the shared schema model that flatc's ``reflection.fbs`` describes:
base types and their sizes, the ``Type`` (base type, element, index, fixed length) of a field,
and the defaults reflection stores. Shared by the ``.bfbs`` writer and reader and by the
annotator (``_annotate_reflection``)."""

from __future__ import annotations

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

# reflection::BaseType values, their names and flatc's SizeOf for each.
NONE, UTYPE, BOOL, BYTE, UBYTE, SHORT, USHORT, INT, UINT, LONG, ULONG = range(11)
FLOAT, DOUBLE, STRING, VECTOR, OBJ, UNION, ARRAY, VECTOR64 = range(11, 19)
BASE_NAMES = ("None", "UType", "Bool", "Byte", "UByte", "Short", "UShort", "Int", "UInt",
              "Long", "ULong", "Float", "Double", "String", "Vector", "Obj", "Union", "Array",
              "Vector64")
SIZE_OF = (1, 1, 1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 4, 4, 4, 4, 4, 8)
_INT_BASE = {(8, True): BYTE, (8, False): UBYTE, (16, True): SHORT, (16, False): USHORT,
             (32, True): INT, (32, False): UINT, (64, True): LONG, (64, False): ULONG}
# reflection::AdvancedFeatures bits.
ADVANCED_ARRAYS, ADVANCED_UNIONS, OPTIONAL_SCALARS, DEFAULT_VECTORS_AND_STRINGS = 1, 2, 4, 8

_INT64 = range(-(1 << 63), 1 << 63)


def int_base(t: Int) -> int:
    return _INT_BASE[t.bits, t.signed]


def field_defaults(f: ModelField, base: int) -> tuple[int, float]:
    """``(default_integer, default_real)`` of a field as flatc's reflection stores them: an
    int64 (0 for a ulong beyond it, flatc's ``StringToInt``) for integer, enum and bool
    fields, a double for float fields (-0.0 is 0.0), zeros otherwise and for ``= null``."""
    d = f.default
    if d is None:
        return 0, 0.0
    if NONE < base <= ULONG:
        return (int(d) if int(d) in _INT64 else 0), 0.0
    if base in (FLOAT, DOUBLE):
        return 0, (float(d) if d != 0.0 else 0.0)
    return 0, 0.0


class ReflectionTypes:
    """The reflection ``Type`` (base type, element, index, fixed length) of model types."""

    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self.objects = sorted(n for n, t in schema.types.items() if isinstance(t, Record))
        self.enums = sorted(n for n, t in schema.types.items() if isinstance(t, Enum | Union))
        self.index = {name: i for i, name in enumerate(self.objects)}
        self.index.update((name, i) for i, name in enumerate(self.enums))

    def element(self, t: ModelType, union_type_of: str | None) -> tuple[int, int]:
        """The base type and index of a type that is not a vector or array."""
        if isinstance(t, Optional):
            t = t.inner
        if isinstance(t, Ref):
            named = self.schema.types[t.name]
            index = self.index[t.name]
            if isinstance(named, Record):
                return OBJ, index
            if isinstance(named, Union):
                return UNION, index
            assert isinstance(named, Enum)
            return int_base(named.underlying), index
        if union_type_of is not None:
            return UTYPE, self.index[union_type_of]
        if isinstance(t, Bool):
            return BOOL, -1
        if isinstance(t, Float):
            return (DOUBLE if t.bits == 64 else FLOAT), -1
        if isinstance(t, Int):
            return int_base(t), -1
        assert isinstance(t, String), t
        return STRING, -1

    def of_field(self, f: ModelField) -> tuple[int, int, int, int]:
        """``(base_type, element, index, fixed_length)`` of a field."""
        union = f.attributes.get("flatbuffers.union")
        union_type_of = union if isinstance(union, str) and union else None
        t = f.type
        if isinstance(t, List):
            element, index = self.element(t.element, union_type_of)
            if t.length is not None:
                return ARRAY, element, index, t.length
            base = VECTOR64 if f.attributes.get("vector64") else VECTOR
            return base, element, index, 0
        base, index = self.element(t, union_type_of)
        return base, NONE, index, 0

    def name(self, index: int, base: int, element: int) -> str | None:
        """The object or enum a type's ``index`` names (None for -1)."""
        if index < 0:
            return None
        return (self.objects if OBJ in (base, element) else self.enums)[index]

    def struct_size(self, index: int) -> int:
        attrs = self.schema.types[self.objects[index]].attributes
        return int(attrs.get("flatbuffers.size", 0) or 0)
