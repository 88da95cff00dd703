"""Hypothesis strategies for generated KingsIsle type lists and objects of them (spec kiobj.md
§12): several classes whose inherited properties are flattened into their own lists (wiztype's
form), every leaf type and leaf struct each followed by a bool or bit-integer (alignment), the
three enum spellings (ENUM flag, BITS flag with an option at bit 31, ``enum …`` without a flag;
``__DEFAULT`` entries), dynamic lists of every element kind, pointers, SharedPointers and
embedded objects (polymorphic, null, recursive), and deprecated, delta, save-only and
transmit-only properties; plus the helpers the tests compare values with.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from typing import Any

from hypothesis import strategies as st

from gameserde.kingsisle import KiSchema, djb2, property_hash, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.schema.model import Enum, List, Ref

SCALARS: dict[str, tuple[int, bool]] = {  # integer leaf type -> (bits, signed)
    "char": (8, True), "unsigned char": (8, False), "short": (16, True),
    "unsigned short": (16, False), "wchar_t": (16, False), "int": (32, True),
    "long": (32, True), "unsigned int": (32, False), "unsigned long": (32, False),
    "unsigned __int64": (64, False), "gid": (64, False), "union gid": (64, False),
    "s24": (24, True), "u24": (24, False),
    **{f"bi{n}": (n, True) for n in range(2, 8)}, **{f"bui{n}": (n, False) for n in range(2, 8)},
}
BIT_TYPES = ["bool", "s24", "u24", *(f"bi{n}" for n in range(2, 8)),
             *(f"bui{n}" for n in range(2, 8))]
"""The unaligned leaf types: one follows every generated leaf to leave the next misaligned."""
STRUCTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "class Color": ("unsigned char", ("b", "g", "r", "a")),
    "class Vector3D": ("float", ("x", "y", "z")),
    "class Quaternion": ("float", ("w", "x", "y", "z")),
    "class Euler": ("float", ("pitch", "yaw", "roll")),
    "class Matrix3x3": ("float", ("i", "j", "k")),
    "class Size<int>": ("int", ("width", "height")),
    "class Point<int>": ("int", ("x", "y")),
    "class Point<unsigned int>": ("unsigned int", ("x", "y")),
    "class Point<unsigned char>": ("unsigned char", ("x", "y")),
    "class Point<float>": ("float", ("x", "y")),
    "class Rect<int>": ("int", ("left", "top", "right", "bottom")),
    "class Rect<float>": ("float", ("left", "top", "right", "bottom")),
}
LEAVES = ["bool", *SCALARS, "float", "double", "std::string", "std::wstring", *STRUCTS]

SAVE, TRANSMIT = 7, 0x18
DEPRECATED, DELTA, BITS, ENUM = 1 << 6, 1 << 8, 1 << 20, 1 << 21
HARMLESS = [1 << 5, 1 << 7, 1 << 9, 1 << 16, 1 << 17, 1 << 22, 1 << 27, 1 << 30]
"""Flags that change nothing in the binary form (PERSIST, NOSCRIPT, BLOB, ...)."""
MASKS = (SAVE, TRANSMIT)

PLAIN_ENUM, BITS_ENUM, NAMED_ENUM = "Scope::Kind", "enum Flags", "enum Plain"
"""The three enum spellings: the ENUM flag on a name without ``enum``, the BITS flag, and
``enum …`` with neither flag."""


@dataclasses.dataclass(frozen=True)
class Prop:
    name: str
    type: str
    flags: int
    dynamic: bool = False
    pointer: bool = False


@dataclasses.dataclass(frozen=True)
class Cls:
    name: str
    bases: tuple[str, ...]
    props: tuple[Prop, ...]
    """All properties, the inherited ones first, in id order."""

    @property
    def hash(self) -> int:
        return string_id(self.name)


@dataclasses.dataclass(frozen=True)
class TypeList:
    classes: tuple[Cls, ...]
    enums: dict[str, dict[str, int]]
    order: tuple[tuple[int, ...], ...]
    """Per class, the order its properties are listed in the JSON (ids say the real one)."""

    def by_name(self, name: str) -> Cls:
        return next(c for c in self.classes if c.name == name)

    def derived(self, name: str) -> list[Cls]:
        """``name`` and the classes that inherit from it."""
        return [c for c in self.classes if c.name == name or name in c.bases]

    def text(self, without: frozenset[str] = frozenset()) -> str:
        """The v2 type list, leaving out the classes named in ``without``."""
        classes = {}
        for cls, order in zip(self.classes, self.order, strict=True):
            if cls.name in without:
                continue
            props = {}
            for i in order:
                p = cls.props[i]
                enum = self.enums.get(p.type)
                options: dict[str, Any] = {}
                if enum is not None:
                    options = {**enum, "__DEFAULT": next(iter(enum))}
                props[p.name] = {
                    "type": p.type, "id": i, "offset": 8 * i, "flags": p.flags,
                    "container": "Vector" if p.dynamic else "Static", "dynamic": p.dynamic,
                    "pointer": p.pointer, "hash": property_hash(p.type, p.name),
                    "enum_options": options}
            classes[str(cls.hash)] = {"name": cls.name,
                                      "bases": [*cls.bases, "class PropertyClass"],
                                      "hash": cls.hash, "singleton": False,
                                      "properties": props}
        return json.dumps({"version": 2, "classes": classes})


def _flags(kind: str) -> st.SearchStrategy[int]:
    base = st.sampled_from([SAVE | TRANSMIT, SAVE | TRANSMIT, SAVE, TRANSMIT,
                            SAVE | TRANSMIT | DEPRECATED, SAVE | DEPRECATED,
                            SAVE | TRANSMIT | DELTA, SAVE | DELTA, TRANSMIT | DELTA,
                            SAVE | TRANSMIT | DELTA | DEPRECATED])
    extra = st.lists(st.sampled_from(HARMLESS), max_size=2, unique=True).map(sum)
    tag = {PLAIN_ENUM: ENUM, BITS_ENUM: BITS}.get(kind, 0)
    return st.builds(lambda b, e: b | e | tag, base, extra)


@st.composite
def _enums(draw: st.DrawFn) -> dict[str, dict[str, int]]:
    plain_values = draw(st.lists(st.integers(0, 0xFFFFFFFF), min_size=1, max_size=5,
                                 unique=True))
    named_values = draw(st.lists(st.integers(0, 0xFFFFFFFF), min_size=1, max_size=3,
                                 unique=True))
    bits = draw(st.lists(st.integers(0, 30), max_size=5, unique=True))
    flags = {"F_NONE": 0, **{f"F_{b}": 1 << b for b in bits}, "F_HIGH": 1 << 31}
    long = "L" * draw(st.sampled_from([0, 130]))  # a name of the long compact form
    return {PLAIN_ENUM: {f"K_{i}{long if i == 0 else ''}": v
                         for i, v in enumerate(plain_values)},
            BITS_ENUM: flags,
            NAMED_ENUM: {f"P_{i}": v for i, v in enumerate(named_values)}}


def _name(props: list[Prop], t: str) -> str:
    """A name for the next property of type ``t`` whose hash no property in ``props`` has
    (deep records are found by hash: ``m_87`` of u24 and ``m_89`` of s24 share one), nor
    the djb2 of its name (katsuba's writer finds a value's property by it: ``m_7x`` and
    ``m_96`` share one)."""
    hashes = {property_hash(p.type, p.name) for p in props}
    names = {djb2(p.name) for p in props}
    name = f"m_{len(props)}"
    while property_hash(t, name) in hashes or djb2(name) in names:
        name += "x"
    return name


@st.composite
def type_lists(draw: st.DrawFn, max_classes: int = 4) -> TypeList:
    """A type list of 2 to ``max_classes`` classes: ``class G0`` has every leaf type and the
    three enums (shuffled, each followed by an unaligned type); each later class may derive
    from an earlier one, and adds a pointer, a SharedPointer, an embedded object and a list
    (each of any class) and properties of any kind."""
    n = draw(st.integers(2, max_classes))
    names = [f"class G{i}" for i in range(n)]
    kinds = [*LEAVES, PLAIN_ENUM, BITS_ENUM, NAMED_ENUM]
    first: list[Prop] = []
    for t in draw(st.permutations(kinds)):
        first.append(Prop(_name(first, t), t, draw(_flags(t))))
        bit = draw(st.sampled_from(BIT_TYPES))
        first.append(Prop(_name(first, bit), bit, draw(_flags(bit))))
    classes = [Cls(names[0], (), tuple(first))]
    for i in range(1, n):
        parent = draw(st.sampled_from([None, *classes]))
        props = list(parent.props) if parent else []
        shapes = ["pointer", "shared", "embedded", "list"]
        shapes += draw(st.lists(st.sampled_from(["leaf", *shapes]), max_size=4))
        for shape in shapes:
            dynamic = shape == "list" or (shape != "leaf" and draw(st.booleans()))
            if shape in ("leaf", "list"):
                t = draw(st.sampled_from([*kinds, "class G0*"]))
            else:
                target = draw(st.sampled_from(names))
                t = {"pointer": f"{target}*", "shared": f"class SharedPointer<{target}>",
                     "embedded": target}[shape]
            pointer = t.endswith(("*", ">"))
            props.append(Prop(_name(props, t), t, draw(_flags(t)), dynamic, pointer))
        bases = (parent.name, *parent.bases) if parent else ()
        classes.append(Cls(names[i], bases, tuple(props)))
    order = tuple(tuple(draw(st.permutations(range(len(c.props))))) for c in classes)
    return TypeList(tuple(classes), draw(_enums()), order)


def _ints(bits: int, signed: bool) -> st.SearchStrategy[int]:
    if signed:
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return st.integers(0, (1 << bits) - 1)


def leaf_values(t: str) -> st.SearchStrategy[Any]:
    """Values of the leaf type or leaf struct ``t``."""
    if t == "bool":
        return st.booleans()
    if t in SCALARS:
        return _ints(*SCALARS[t])
    if t == "float":
        return st.floats(width=32, allow_nan=False)
    if t == "double":
        return st.floats(allow_nan=False)
    if t == "std::string":
        return st.one_of(st.binary(max_size=12), st.binary(min_size=128, max_size=140))
    if t == "std::wstring":
        return st.one_of(st.text(max_size=8), st.text(min_size=128, max_size=130))
    kind, keys = STRUCTS[t]
    part = leaf_values(kind)
    if t == "class Matrix3x3":
        return st.fixed_dictionaries({k: st.lists(part, min_size=3, max_size=3) for k in keys})
    return st.fixed_dictionaries({k: part for k in keys})


def enum_values(options: dict[str, int], bits: bool) -> st.SearchStrategy[int]:
    """Values every writer can name: an option's, or for bit flags an OR of options."""
    if bits:
        return st.lists(st.sampled_from(list(options.values()))).map(
            lambda vs: sum(set(vs)))
    return st.sampled_from(list(options.values()))


@st.composite
def objects(draw: st.DrawFn, types: TypeList, cls: Cls, depth: int = 0) -> KiObject:
    """An object of ``cls``: every property has a value, but delta-encoded ones, which may be
    absent; the root's objects are rather there, theirs rather null, and below ``depth`` 2
    null."""
    obj = KiObject(cls.name, cls.hash)
    for p in cls.props:
        if p.flags & DELTA and draw(st.booleans()):
            continue
        if p.dynamic:
            big = p.type in SCALARS and draw(st.integers(0, 9)) == 0
            few = st.integers(1, 2) if depth == 0 and p.pointer else st.integers(0, 3)
            n = draw(st.integers(128, 131) if big else few)
            obj[p.name] = [draw(_value(types, p, depth)) for _ in range(n)]
        else:
            obj[p.name] = draw(_value(types, p, depth))
    return obj


def _value(types: TypeList, p: Prop, depth: int) -> st.SearchStrategy[Any]:
    if p.type in types.enums:
        return enum_values(types.enums[p.type], p.type == BITS_ENUM)
    if p.type in LEAVES:
        return leaf_values(p.type)
    target = p.type.removeprefix("class SharedPointer<").removesuffix(">").removesuffix("*")
    if depth >= 2:
        return st.none()
    some = st.sampled_from(types.derived(target)).flatmap(
        lambda c: objects(types, c, depth + 1))
    return st.one_of(some, st.none()) if depth == 0 else st.one_of(st.none(), some)


@st.composite
def cases(draw: st.DrawFn) -> tuple[TypeList, KiObject]:
    """A type list and a root object (of a derived class)."""
    types = draw(type_lists())
    return types, draw(objects(types, draw(st.sampled_from(types.classes[1:]))))


# -- what a serializer writes, and katsuba's view of values -----------------------------------


def written(schema: KiSchema, value: Any, *, shallow: bool, mask: int) -> Any:
    """``value`` without what a serializer of these options leaves out: properties without
    every ``mask`` bit, and deprecated ones in deep mode."""
    if isinstance(value, KiObject):
        cls = schema.class_by_hash(value.type_hash)
        assert cls is not None
        kept = {f.name for f in cls.fields if int(f.attributes["flags"]) & mask == mask
                and (shallow or not int(f.attributes["flags"]) & DEPRECATED)}
        return KiObject(value.type_name, value.type_hash,
                        {k: written(schema, v, shallow=shallow, mask=mask)
                         for k, v in value.items() if k in kept})
    if isinstance(value, list):
        return [written(schema, v, shallow=shallow, mask=mask) for v in value]
    return value


def filled(types: TypeList, value: Any) -> Any:
    """``value`` with every absent delta-encoded property given a value (FORBID_DELTA_ENCODE
    refuses absent ones): 0, False, an empty string or list, a null object, or a struct of
    zeros."""
    if isinstance(value, KiObject):
        cls = types.by_name(value.type_name)
        out = KiObject(value.type_name, value.type_hash)
        for p in cls.props:
            out[p.name] = filled(types, value[p.name]) if p.name in value else _zero(types, p)
        return out
    if isinstance(value, list):
        return [filled(types, v) for v in value]
    return value


def _zero(types: TypeList, p: Prop) -> Any:
    if p.dynamic:
        return []
    if p.type in types.enums:
        return next(iter(types.enums[p.type].values()))
    zeros: dict[str, Any] = {"bool": False, "float": 0.0, "double": 0.0,
                             "std::string": b"", "std::wstring": ""}
    if p.type in zeros:
        return zeros[p.type]
    if p.type in SCALARS:
        return 0
    if p.type in STRUCTS:
        kind, keys = STRUCTS[p.type]
        part = 0.0 if kind == "float" else 0
        return {k: [part] * 3 if p.type == "class Matrix3x3" else part for k in keys}
    return None


def from_katsuba(schema: KiSchema, v: Any) -> Any:
    """katsuba's tagged value as ours: integer enums unsigned (katsuba sign-extends them,
    spec §11.3), objects and bytes untagged."""
    if isinstance(v, dict) and "$object" in v:
        cls = schema.class_by_hash(v["$object"])
        assert cls is not None
        fields = {f.name: f for f in cls.fields}
        out = KiObject(cls.name, v["$object"])
        for k, x in v["props"].items():
            t = fields[k].type
            element = t.element if isinstance(t, List) else t
            if isinstance(element, Ref) and isinstance(schema.model.types[element.name], Enum):
                out[k] = [e & 0xFFFFFFFF for e in x] if isinstance(t, List) else x & 0xFFFFFFFF
            else:
                out[k] = from_katsuba(schema, x)
        return out
    if isinstance(v, dict) and "$bytes" in v:
        return bytes.fromhex(v["$bytes"])
    if isinstance(v, dict):
        return {k: from_katsuba(schema, x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_katsuba(schema, x) for x in v]
    return v


def named_bits(types: TypeList, value: Any) -> bool:
    """Whether ``value`` holds a bit-flag enum of two or more names: katsuba writes those in
    a random order (spec §7), so its human-readable bytes differ from ours in that order."""
    if isinstance(value, KiObject):
        cls = types.by_name(value.type_name)
        kinds = {p.name: p.type for p in cls.props}
        return any((bin(x).count("1") > 1 if not isinstance(x, list)
                    else any(bin(e).count("1") > 1 for e in x))
                   if kinds[k] == BITS_ENUM else named_bits(types, x)
                   for k, x in value.items())
    if isinstance(value, list):
        return any(named_bits(types, v) for v in value)
    return False


def body(data: bytes, flags: int, manual: bool = False) -> bytes:
    """The object bytes of a stream: the flags word, the compression marker and zlib
    (whose bytes differ between writers) taken off."""
    if manual:
        data = zlib.decompress(data[4:])
    pos = 0
    if flags & 1:
        flags, pos = int.from_bytes(data[:4], "little"), 4
    if flags & 8:
        if data[pos]:
            return zlib.decompress(data[pos + 5:])
        pos += 1
    return data[pos:]
