"""The one type model every schema-driven format lowers into.

FlatBuffers ``.fbs`` files, Zeze solution XML, KingsIsle type lists, O3DE class registries and
Python dataclasses are *loaders* into this model; encoders, decoders, JSON views, verifiers and
inspectors are *consumers* of it and never look at a source syntax.

Types are immutable values. Named types (enums, records, unions) live in a :class:`Schema` and
are referred to by :class:`Ref`, so recursive and mutually recursive types need no cycles of
Python objects; :meth:`Schema.resolve` follows a reference.

=====================  =========================================================================
model                  stands for
=====================  =========================================================================
``Int(bits, signed)``  integers of any width, odd ones too (KingsIsle ``bui7``)
``Float(bits)``        IEEE floats: 16, 32 or 64 bits
``Bool``               booleans
``String(encoding)``   text: ``utf-8``, ``utf-16`` (wide strings) ...
``Bytes``              opaque byte strings (Zeze ``binary``)
``List(elem, length)`` sequences; ``length`` makes a fixed-size array (FlatBuffers ``[T:N]``)
``Set(elem)``          sets (Zeze ``set``)
``Map(key, value)``    maps (Zeze ``map``, O3DE maps)
``Optional(inner)``    a value that may be absent (FlatBuffers ``= null`` scalars)
``Ref(name)``          a named type of the schema
``Enum``               named integer values, plain or bit flags, with an underlying ``Int``
``Record``             fields with ids, defaults and flags; ``kind`` says what the format calls
                       it (``table``, ``struct``, ``bean``, ``class``); single inheritance
                       through ``base``
``Union``              polymorphism: a closed set of alternatives chosen by a discriminator
                       (FlatBuffers unions, Zeze dynamic beans, KingsIsle typed pointers)
=====================  =========================================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from gameserde.errors import SchemaError

# ---------------------------------------------------------------------------------------------
# Unnamed types


@dataclass(frozen=True, slots=True)
class Int:
    bits: int
    signed: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.bits <= 64:
            raise SchemaError(f"an integer has 1 to 64 bits, not {self.bits}")

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.min <= value <= self.max


@dataclass(frozen=True, slots=True)
class Float:
    bits: int = 64

    def __post_init__(self) -> None:
        if self.bits not in (16, 32, 64):
            raise SchemaError(f"a float has 16, 32 or 64 bits, not {self.bits}")


@dataclass(frozen=True, slots=True)
class Bool:
    pass


@dataclass(frozen=True, slots=True)
class String:
    encoding: str = "utf-8"


@dataclass(frozen=True, slots=True)
class Bytes:
    pass


@dataclass(frozen=True, slots=True)
class List:
    element: Type
    length: int | None = None
    """A fixed length (an array); None for a variable-length sequence."""


@dataclass(frozen=True, slots=True)
class Set:
    element: Type


@dataclass(frozen=True, slots=True)
class Map:
    key: Type
    value: Type


@dataclass(frozen=True, slots=True)
class Optional:
    inner: Type


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference to the named type ``name`` (fully qualified) of the enclosing schema."""

    name: str


Type = Int | Float | Bool | String | Bytes | List | Set | Map | Optional | Ref
SCALARS = (Int, Float, Bool)

# Common widths, named as most formats name them.
INT8, INT16, INT32, INT64 = Int(8), Int(16), Int(32), Int(64)
UINT8, UINT16, UINT32, UINT64 = Int(8, False), Int(16, False), Int(32, False), Int(64, False)
FLOAT32, FLOAT64 = Float(32), Float(64)
BOOL, STRING, BYTES = Bool(), String(), Bytes()


def _frozen(attrs: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(attrs or {}))


# ---------------------------------------------------------------------------------------------
# Named types


@dataclass(frozen=True)
class Enum:
    """Named values of an integer type. With ``bit_flags`` a value is a combination of flags.

    ``values`` maps names to the integers stored on the wire (for bit flags: the masks,
    ``1 << n``), in declaration order.
    """

    name: str
    underlying: Int
    values: Mapping[str, int]
    bit_flags: bool = False
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _frozen(self.values))
        object.__setattr__(self, "attributes", _frozen(self.attributes))
        for name, value in self.values.items():
            if value not in self.underlying:
                raise SchemaError(f"enum {self.name}: {name} = {value} does not fit "
                                  f"[{self.underlying.min}; {self.underlying.max}]")

    def name_of(self, value: int) -> str | None:
        """The name whose value is ``value`` (the first one when several share it)."""
        for name, v in self.values.items():
            if v == value:
                return name
        return None

    def flag_names(self, value: int) -> list[str] | None:
        """The flags that make up ``value`` exactly, or None when named flags cannot."""
        names, rest = [], value
        for name, mask in self.values.items():
            if mask and value & mask == mask:
                names.append(name)
                rest &= ~mask
        return names if rest == 0 else None


@dataclass(frozen=True)
class Field:
    """One field of a :class:`Record`.

    ``id`` is the wire identity where the format has one (FlatBuffers vtable slot, Zeze
    variable id, KingsIsle hash), ``default`` the value an absent field reads as (None when
    the format has no default). ``attributes`` keeps format-specific annotations verbatim.
    """

    name: str
    type: Type
    id: int | None = None
    default: Any = None
    deprecated: bool = False
    required: bool = False
    key: bool = False
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", _frozen(self.attributes))

    @property
    def optional(self) -> bool:
        """A scalar that may be absent instead of having a default (FlatBuffers ``= null``)."""
        return isinstance(self.type, Optional)


@dataclass(frozen=True)
class Record:
    """A structured type: a table, struct, bean or class, with single inheritance."""

    name: str
    fields: tuple[Field, ...]
    kind: str = "table"
    base: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "attributes", _frozen(self.attributes))
        seen: set[str] = set()
        for f in self.fields:
            if f.name in seen:
                raise SchemaError(f"{self.kind} {self.name}: field already exists: {f.name}")
            seen.add(f.name)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name!r}")


@dataclass(frozen=True)
class Union:
    """A closed set of alternatives, chosen on the wire by a discriminator.

    ``members`` maps each alternative's name to its discriminator value and type, in
    declaration order; ``discriminator`` is the integer type that carries the choice.
    ``kind`` names the format's notion (``union``, ``dynamic``, ``pointer``).
    """

    name: str
    members: Mapping[str, tuple[int, Type]]
    discriminator: Int = UINT8
    kind: str = "union"
    attributes: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", _frozen(self.members))
        object.__setattr__(self, "attributes", _frozen(self.attributes))

    def member_of(self, tag: int) -> tuple[str, Type] | None:
        for name, (value, t) in self.members.items():
            if value == tag:
                return name, t
        return None


Named = Enum | Record | Union


@dataclass(frozen=True)
class Schema:
    """Named types by fully qualified name, plus the facts a format attaches to a file."""

    types: Mapping[str, Named]
    root: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "types", _frozen(self.types))
        object.__setattr__(self, "attributes", _frozen(self.attributes))
        for name, t in self.types.items():
            if t.name != name:
                raise SchemaError(f"type {t.name} is registered as {name}")
        if self.root is not None and self.root not in self.types:
            raise SchemaError(f"unknown root type: {self.root}")
        for t in self.types.values():
            for ref in _refs(t):
                if ref.name not in self.types:
                    raise SchemaError(f"{t.name} refers to an undefined type: {ref.name}")

    def __getitem__(self, name: str) -> Named:
        return self.types[name]

    def __iter__(self) -> Iterator[Named]:
        return iter(self.types.values())

    def resolve(self, t: Type | Named) -> Type | Named:
        """Follow a :class:`Ref` to its named type; anything else is returned as it is."""
        return self.types[t.name] if isinstance(t, Ref) else t

    def fields_of(self, record: Record | str) -> tuple[Field, ...]:
        """All fields of a record, inherited ones first."""
        rec = self.types[record] if isinstance(record, str) else record
        if not isinstance(rec, Record):
            raise SchemaError(f"{rec.name} is not a record")
        if rec.base is None:
            return rec.fields
        return self.fields_of(rec.base) + rec.fields


def _refs(t: Type | Named) -> Iterator[Ref]:
    """Every reference inside ``t``."""
    if isinstance(t, Ref):
        yield t
    elif isinstance(t, List | Set | Optional):
        yield from _refs(t.element if not isinstance(t, Optional) else t.inner)
    elif isinstance(t, Map):
        yield from _refs(t.key)
        yield from _refs(t.value)
    elif isinstance(t, Record):
        if t.base is not None:
            yield Ref(t.base)
        for f in t.fields:
            yield from _refs(f.type)
    elif isinstance(t, Union):
        for _, member in t.members.values():
            yield from _refs(member)
