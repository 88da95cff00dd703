"""Python value classes for Godot's Variant types, named as Godot names them.

Python natives stand for the JSON-like types: ``None`` (Nil), ``bool``, ``int``, ``float``,
``str`` (String), ``list`` (Array), ``dict`` (Dictionary) and ``bytes`` (PackedByteArray).
Everything else has a class here. Math types are immutable tuples with named fields, but two
values are equal only when their classes match too (``Vector2(1, 2) != Vector2i(1, 2)``),
as in the engine. Packed numeric arrays hold a numpy array when numpy is installed and a
stdlib :class:`array.array` otherwise.
"""

from __future__ import annotations

import array as _array
import enum
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

numpy: Any
try:  # numpy is optional: packed arrays become numpy views when it is there
    import numpy
except ImportError:  # pragma: no cover - exercised by the no-numpy test run
    numpy = None
"""The numpy module packed arrays use, or ``None``. Tests switch it off to cover both paths."""

_LITTLE = sys.byteorder == "little"


class VariantType(enum.IntEnum):
    """Godot 4's ``Variant::Type`` numbering (4.3+), the model every profile maps onto."""

    NIL = 0
    BOOL = 1
    INT = 2
    FLOAT = 3
    STRING = 4
    VECTOR2 = 5
    VECTOR2I = 6
    RECT2 = 7
    RECT2I = 8
    VECTOR3 = 9
    VECTOR3I = 10
    TRANSFORM2D = 11
    VECTOR4 = 12
    VECTOR4I = 13
    PLANE = 14
    QUATERNION = 15
    AABB = 16
    BASIS = 17
    TRANSFORM3D = 18
    PROJECTION = 19
    COLOR = 20
    STRING_NAME = 21
    NODE_PATH = 22
    RID = 23
    OBJECT = 24
    CALLABLE = 25
    SIGNAL = 26
    DICTIONARY = 27
    ARRAY = 28
    PACKED_BYTE_ARRAY = 29
    PACKED_INT32_ARRAY = 30
    PACKED_INT64_ARRAY = 31
    PACKED_FLOAT32_ARRAY = 32
    PACKED_FLOAT64_ARRAY = 33
    PACKED_STRING_ARRAY = 34
    PACKED_VECTOR2_ARRAY = 35
    PACKED_VECTOR3_ARRAY = 36
    PACKED_COLOR_ARRAY = 37
    PACKED_VECTOR4_ARRAY = 38

    @property
    def type_name(self) -> str:
        """The name ``Variant::get_type_name`` gives (``"int"``, ``"Vector2"``, ...)."""
        return TYPE_NAMES[self]


TYPE_NAMES: dict[VariantType, str] = {
    VariantType.NIL: "Nil", VariantType.BOOL: "bool", VariantType.INT: "int",
    VariantType.FLOAT: "float", VariantType.STRING: "String", VariantType.VECTOR2: "Vector2",
    VariantType.VECTOR2I: "Vector2i", VariantType.RECT2: "Rect2", VariantType.RECT2I: "Rect2i",
    VariantType.VECTOR3: "Vector3", VariantType.VECTOR3I: "Vector3i",
    VariantType.TRANSFORM2D: "Transform2D", VariantType.VECTOR4: "Vector4",
    VariantType.VECTOR4I: "Vector4i", VariantType.PLANE: "Plane",
    VariantType.QUATERNION: "Quaternion", VariantType.AABB: "AABB", VariantType.BASIS: "Basis",
    VariantType.TRANSFORM3D: "Transform3D", VariantType.PROJECTION: "Projection",
    VariantType.COLOR: "Color", VariantType.STRING_NAME: "StringName",
    VariantType.NODE_PATH: "NodePath", VariantType.RID: "RID", VariantType.OBJECT: "Object",
    VariantType.CALLABLE: "Callable", VariantType.SIGNAL: "Signal",
    VariantType.DICTIONARY: "Dictionary", VariantType.ARRAY: "Array",
    VariantType.PACKED_BYTE_ARRAY: "PackedByteArray",
    VariantType.PACKED_INT32_ARRAY: "PackedInt32Array",
    VariantType.PACKED_INT64_ARRAY: "PackedInt64Array",
    VariantType.PACKED_FLOAT32_ARRAY: "PackedFloat32Array",
    VariantType.PACKED_FLOAT64_ARRAY: "PackedFloat64Array",
    VariantType.PACKED_STRING_ARRAY: "PackedStringArray",
    VariantType.PACKED_VECTOR2_ARRAY: "PackedVector2Array",
    VariantType.PACKED_VECTOR3_ARRAY: "PackedVector3Array",
    VariantType.PACKED_COLOR_ARRAY: "PackedColorArray",
    VariantType.PACKED_VECTOR4_ARRAY: "PackedVector4Array",
}
TYPES_BY_NAME: dict[str, VariantType] = {name: t for t, name in TYPE_NAMES.items()}


# ---------------------------------------------------------------------------------------------
# Math types


class Vector2(NamedTuple):
    x: float = 0.0
    y: float = 0.0


class Vector2i(NamedTuple):
    x: int = 0
    y: int = 0


class Vector3(NamedTuple):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


class Vector3i(NamedTuple):
    x: int = 0
    y: int = 0
    z: int = 0


class Vector4(NamedTuple):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 0.0


class Vector4i(NamedTuple):
    x: int = 0
    y: int = 0
    z: int = 0
    w: int = 0


class Rect2(NamedTuple):
    position: Vector2 = Vector2()
    size: Vector2 = Vector2()


class Rect2i(NamedTuple):
    position: Vector2i = Vector2i()
    size: Vector2i = Vector2i()


class Transform2D(NamedTuple):
    """Columns ``x``, ``y`` and ``origin``."""

    x: Vector2 = Vector2(1.0, 0.0)
    y: Vector2 = Vector2(0.0, 1.0)
    origin: Vector2 = Vector2()


class Plane(NamedTuple):
    normal: Vector3 = Vector3()
    d: float = 0.0


class Quaternion(NamedTuple):
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 1.0


class AABB(NamedTuple):
    position: Vector3 = Vector3()
    size: Vector3 = Vector3()


class Basis(NamedTuple):
    """Columns ``x``, ``y``, ``z`` (as ``Basis(x_axis, y_axis, z_axis)`` in Godot)."""

    x: Vector3 = Vector3(1.0, 0.0, 0.0)
    y: Vector3 = Vector3(0.0, 1.0, 0.0)
    z: Vector3 = Vector3(0.0, 0.0, 1.0)


class Transform3D(NamedTuple):
    basis: Basis = Basis()
    origin: Vector3 = Vector3()


class Projection(NamedTuple):
    """Columns ``x``, ``y``, ``z``, ``w`` (each a :class:`Vector4`)."""

    x: Vector4 = Vector4(1.0, 0.0, 0.0, 0.0)
    y: Vector4 = Vector4(0.0, 1.0, 0.0, 0.0)
    z: Vector4 = Vector4(0.0, 0.0, 1.0, 0.0)
    w: Vector4 = Vector4(0.0, 0.0, 0.0, 1.0)


class Color(NamedTuple):
    r: float = 0.0
    g: float = 0.0
    b: float = 0.0
    a: float = 1.0


MATH_TYPES: tuple[type[tuple[Any, ...]], ...] = (
    Vector2, Vector2i, Rect2, Rect2i, Vector3, Vector3i, Transform2D, Vector4, Vector4i, Plane,
    Quaternion, AABB, Basis, Transform3D, Projection, Color,
)


def _strict_eq(self: Any, other: Any) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _strict_ne(self: Any, other: Any) -> bool:
    return not _strict_eq(self, other)


def _strict_hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, *self))


_MATH_SET = frozenset(MATH_TYPES)

for _cls in MATH_TYPES:
    _cls.__eq__ = _strict_eq  # type: ignore[method-assign]
    _cls.__ne__ = _strict_ne  # type: ignore[method-assign]
    _cls.__hash__ = _strict_hash  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------------
# Strings, paths, handles


class StringName(str):
    """A Godot ``StringName``: a string that encodes with its own type id."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"StringName({str.__repr__(self)})"


@dataclass(frozen=True, slots=True)
class NodePath:
    """A Godot ``NodePath``: node ``names``, property ``subnames``, and whether it is absolute."""

    names: tuple[str, ...] = ()
    subnames: tuple[str, ...] = ()
    absolute: bool = False

    @classmethod
    def parse(cls, text: str) -> NodePath:
        """Parse Godot's text form: ``/root/Node:property:sub``. Empty subnames are kept
        (``"a:"`` has one), so that the text of any NodePath reads back as it (a binary
        resource can hold empty ones)."""
        absolute = text.startswith("/")
        head, sep, tail = text.partition(":")
        subnames = tuple(tail.split(":")) if sep else ()
        names = tuple(n for n in head.split("/") if n)
        return cls(names, subnames, absolute)

    def __str__(self) -> str:
        text = ("/" if self.absolute else "") + "/".join(self.names)
        return text + "".join(":" + s for s in self.subnames)


@dataclass(frozen=True, slots=True)
class RID:
    """A resource id. Godot 4 stores the 64-bit id; Godot 3 stores nothing (id 0)."""

    id: int = 0


@dataclass(frozen=True, slots=True)
class Callable:
    """A Callable. The engine serialises none of it, so it always decodes empty."""


@dataclass(frozen=True, slots=True)
class Signal:
    """A Signal: its name and the instance id of the object that owns it."""

    name: str = ""
    object_id: int = 0


@dataclass(frozen=True, slots=True)
class EncodedObjectAsID:
    """An Object written as its instance id (``full_objects=False``, the engine's default)."""

    object_id: int = 0


@dataclass(frozen=True, slots=True)
class ExtRef:
    """In a resource file, a reference to an external resource by its ``id`` in the file
    (text ``ExtResource("id")``; a binary file's index into its external resources, as
    text). See :mod:`gameserde.godot.resource`."""

    id: str


@dataclass(frozen=True, slots=True)
class SubRef:
    """In a resource file, a reference to a resource the same file holds, by its ``id``
    (text ``SubResource("id")``; a binary file's ``local://N`` number or Godot 4's
    scene-unique id). See :mod:`gameserde.godot.resource`."""

    id: str


@dataclass(frozen=True, slots=True)
class ResourcePath:
    """In a text resource file, an external resource named inline by its ``path``
    (``Resource("res://...")``, Godot 3's and older files' way) and, in Godot 4, its
    ``uid``. See :mod:`gameserde.godot.resource`."""

    path: str
    uid: str | None = None


@dataclass(slots=True)
class Object:
    """An Object written in full: its class name and stored properties, in order.

    gameserde never instantiates anything from it; it is plain data.
    """

    class_name: str
    properties: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Containers


@dataclass(frozen=True, slots=True)
class ContainerType:
    """The element (or key, or value) type of a typed Array or Dictionary.

    ``builtin`` is the Variant type (``NIL`` for untyped). Object types carry a ``class_name``
    (``"Node"``) or a ``script`` path (``"res://enemy.gd"``).
    """

    builtin: VariantType = VariantType.NIL
    class_name: str = ""
    script: str = ""

    @property
    def is_typed(self) -> bool:
        return self.builtin != VariantType.NIL

    @classmethod
    def of(cls, spec: ContainerType | VariantType | str) -> ContainerType:
        """Build from a Variant type, a type name (``"int"``), a class name or a script path."""
        if isinstance(spec, ContainerType):
            return spec
        if isinstance(spec, VariantType):
            return cls(spec)
        if spec in TYPES_BY_NAME and spec != "Object":
            return cls(TYPES_BY_NAME[spec])
        if spec.startswith("res://"):
            return cls(VariantType.OBJECT, script=spec)
        return cls(VariantType.OBJECT, class_name=spec)

    @property
    def name(self) -> str:
        """The type as Godot's JSON writes it: a type name, class name or script path."""
        if self.script:
            return self.script
        if self.class_name:
            return self.class_name
        return TYPE_NAMES[self.builtin]


UNTYPED = ContainerType()


class TypedArray(list[Any]):
    """An ``Array[T]``: a list that also carries its element type."""

    __slots__ = ("element_type",)

    def __init__(self, element_type: ContainerType | VariantType | str,
                 items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self.element_type = ContainerType.of(element_type)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TypedArray) and self.element_type == other.element_type
                and list.__eq__(self, other))

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"TypedArray({self.element_type.name!r}, {list.__repr__(self)})"


def godot_key(value: Any) -> Any:
    """A hashable stand-in for ``value`` that is equal exactly when Godot's keys are equal.

    Godot tells ``1``, ``1.0`` and ``true`` apart, compares String and StringName by text,
    and compares Arrays and Dictionaries by content. The stand-in of an Array or Dictionary
    is built without recursion, and a :class:`Dictionary` inside it contributes the
    stand-ins its index already holds for its keys, so a key nested in a key in a key ... is
    not walked again at every level: the cost is linear in the value's size.
    """
    key = _leaf_key(value)
    return _container_key(value) if key is _CONTAINER else key


_CONTAINER: Any = object()  # _leaf_key's answer for an Array or Dictionary


def _leaf_key(value: Any) -> Any:
    """:func:`godot_key` of anything but an Array or Dictionary, else ``_CONTAINER``."""
    t = type(value)
    if t is str:
        return ("str", value)
    if t is list or t is dict or t is Dictionary:
        return _CONTAINER
    if t is float and value != value:
        return ("float", "nan")  # the engine's hash_compare treats every NaN as equal
    if t is bool or t is int or t is float:
        return (t.__name__, value)
    if t in _MATH_SET:
        return (t.__name__, tuple(_leaf_key(c) if isinstance(c, float | tuple) else c
                                  for c in value))
    if isinstance(value, str):
        return ("str", str(value))
    if isinstance(value, PackedArray):
        return (t.__name__, value.tobytes())
    if isinstance(value, bytes):
        return (t.__name__, value)
    if isinstance(value, PackedStringArray):
        return ("PackedStringArray", tuple(str(s) for s in value))
    if isinstance(value, list | dict | Dictionary):
        return _CONTAINER
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (t.__name__, value)


def _open(value: Any) -> list[Any]:
    """A work frame of :func:`_container_key`: kind, children, their keys' stand-ins (for a
    :class:`Dictionary`, whose keys are not walked), the stand-ins so far, the next child's
    index, and the container."""
    if isinstance(value, Dictionary):
        items = value._items
        return ["dict", [item[1] for item in items], [item[2] for item in items], [], 0, value]
    if isinstance(value, dict):
        return ["dict", [x for pair in value.items() for x in pair], None, [], 0, value]
    return ["list", value, None, [], 0, value]


def _container_key(root: Any) -> _Key:
    """:func:`godot_key` of an Array or Dictionary, depth first with a stack of its own."""
    stack = [_open(root)]
    open_ids = {id(root)}
    while True:
        frame = stack[-1]
        seq, pre, parts, i = frame[1], frame[2], frame[3], frame[4]
        n = len(seq)
        while i < n:
            key = _leaf_key(seq[i])
            if key is _CONTAINER:
                break
            if pre is not None:
                parts.append(pre[i])
            parts.append(key)
            i += 1
        if i < n:
            child = seq[i]
            if id(child) in open_ids:
                raise ValueError("an Array or Dictionary that contains itself cannot be a key")
            frame[4] = i
            stack.append(_open(child))
            open_ids.add(id(child))
            continue
        done = _Key(frame[0], tuple(parts))
        stack.pop()
        if not stack:
            return done
        open_ids.discard(id(frame[5]))
        parent = stack[-1]
        j = parent[4]
        if parent[2] is not None:
            parent[3].append(parent[2][j])
        parent[3].append(done)
        parent[4] = j + 1


class _Key:
    """The stand-in :func:`godot_key` gives an Array or Dictionary: its kind and its parts'
    stand-ins, with the hash computed once (from the parts' own, so never by a deep walk)."""

    __slots__ = ("_hash", "kind", "parts")

    def __init__(self, kind: str, parts: tuple[Any, ...]) -> None:
        self.kind = kind
        self.parts = parts
        self._hash = hash((kind, parts))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not _Key:
            return False
        todo = [(self, other)]  # with a stack of its own: keys may be nested deeply
        while todo:
            a, b = todo.pop()
            if a._hash != b._hash or a.kind != b.kind or len(a.parts) != len(b.parts):
                return False
            for x, y in zip(a.parts, b.parts, strict=True):
                if x is y:
                    continue
                if type(x) is _Key:
                    if type(y) is not _Key:
                        return False
                    todo.append((x, y))
                elif x != y:
                    return False
        return True


class Dictionary:
    """A Godot Dictionary whose keys a Python ``dict`` cannot hold faithfully.

    Used for keys Python cannot hash (Arrays, Dictionaries), for keys that Python considers
    equal but Godot does not (``1``, ``1.0``, ``true``), and as the base of
    :class:`TypedDictionary`. Keeps insertion order; setting an existing key keeps its
    position, as the engine does.
    """

    __slots__ = ("_index", "_items")

    def __init__(self, items: Iterable[tuple[Any, Any]] = ()) -> None:
        self._items: list[list[Any]] = []  # [key, value, godot_key(key)] in order
        self._index: dict[Any, int] = {}
        for key, value in items:
            self[key] = value

    key_type: ClassVar[ContainerType] = UNTYPED
    value_type: ClassVar[ContainerType] = UNTYPED

    def __setitem__(self, key: Any, value: Any) -> None:
        gk = godot_key(key)
        slot = self._index.get(gk)
        if slot is None:
            self._index[gk] = len(self._items)
            self._items.append([key, value, gk])
        else:
            self._items[slot][1] = value

    def __getitem__(self, key: Any) -> Any:
        return self._items[self._index[godot_key(key)]][1]

    def __contains__(self, key: object) -> bool:
        return godot_key(key) in self._index

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return (item[0] for item in self._items)

    def items(self) -> Iterator[tuple[Any, Any]]:
        return ((item[0], item[1]) for item in self._items)

    def keys(self) -> list[Any]:
        return [item[0] for item in self._items]

    def values(self) -> list[Any]:
        return [item[1] for item in self._items]

    def _types(self) -> tuple[ContainerType, ContainerType]:
        return (self.key_type, self.value_type)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dict):
            other = Dictionary(other.items())
        if not isinstance(other, Dictionary) or self._types() != other._types():
            return False
        return [(gk, v) for _, v, gk in self._items] == [(gk, v) for _, v, gk in other._items]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        pairs = ", ".join(f"{k!r}: {v!r}" for k, v in self.items())
        return f"Dictionary({{{pairs}}})"


class TypedDictionary(Dictionary):
    """A ``Dictionary[K, V]``: a :class:`Dictionary` that carries its key and value types."""

    __slots__ = ("key_type", "value_type")

    def __init__(self, key_type: ContainerType | VariantType | str,
                 value_type: ContainerType | VariantType | str,
                 items: Iterable[tuple[Any, Any]] = ()) -> None:
        self.key_type = ContainerType.of(key_type)  # type: ignore[misc]
        self.value_type = ContainerType.of(value_type)  # type: ignore[misc]
        super().__init__(items)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{k!r}: {v!r}" for k, v in self.items())
        return (f"TypedDictionary({self.key_type.name!r}, {self.value_type.name!r}, "
                f"{{{pairs}}})")


class PackedStringArray(list[str]):
    """A ``PackedStringArray``: a list of ``str`` that encodes as the packed type."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PackedStringArray) and list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"PackedStringArray({list.__repr__(self)})"


class PackedArray:
    """Base of the packed numeric arrays: a flat run of fixed-size little-endian elements.

    ``array`` is a numpy array (shape ``(n,)`` or ``(n, width)``; a zero-copy view of the
    decoded buffer) when numpy is installed, else a flat :class:`array.array`.
    """

    __slots__ = ("array",)
    kind: ClassVar[str] = "f"      # element scalar kind: "i" signed int or "f" float
    itemsize: ClassVar[int] = 4    # bytes per scalar
    width: ClassVar[int] = 1       # scalars per element
    element: ClassVar[Any] = None  # the value class of one element, for vector arrays

    def __init__(self, values: Any = (), *, itemsize: int | None = None) -> None:
        size = itemsize or self.itemsize
        np = numpy
        if np is not None:
            arr = np.asarray(values, dtype=f"<{self.kind}{size}")
            self.array: Any = arr.reshape(-1, self.width) if self.width > 1 else arr.reshape(-1)
        else:
            flat: list[Any] = []
            for v in values:  # elements, or their components one after another
                if isinstance(v, tuple | list):
                    flat.extend(v)
                else:
                    flat.append(v)
            if len(flat) % self.width:
                raise ValueError(f"{type(self).__name__} needs a multiple of {self.width} "
                                 f"components, got {len(flat)}")
            self.array = _array.array(_ARRAY_CODES[(self.kind, size)], flat)

    @classmethod
    def from_buffer(cls, buf: Any, offset: int, count: int, itemsize: int) -> PackedArray:
        """View ``count`` elements of ``buf`` from ``offset`` (little-endian) without copying."""
        self = cls.__new__(cls)
        np = numpy
        n = count * cls.width
        if np is not None:
            arr = np.frombuffer(buf, dtype=f"<{cls.kind}{itemsize}", count=n, offset=offset)
            self.array = arr.reshape(-1, cls.width) if cls.width > 1 else arr
        else:
            arr = _array.array(_ARRAY_CODES[(cls.kind, itemsize)])
            arr.frombytes(buf[offset:offset + n * itemsize])
            if not _LITTLE:  # pragma: no cover - big-endian hosts
                arr.byteswap()
            self.array = arr
        return self

    @property
    def element_size(self) -> int:
        """Bytes per scalar of the stored data (4, or 8 for 64-bit data)."""
        return int(self.array.itemsize)

    def tobytes(self, itemsize: int | None = None) -> bytes:
        """The elements as little-endian bytes, converted to ``itemsize`` bytes per scalar."""
        size = itemsize or self.element_size
        np = numpy
        if np is not None and not isinstance(self.array, _array.array):
            with np.errstate(over="ignore"):  # past float32's range is infinity, as in C
                return bytes(np.ascontiguousarray(self.array, dtype=f"<{self.kind}{size}").data)
        arr = self.array
        if arr.itemsize != size:
            arr = _array.array(_ARRAY_CODES[(self.kind, size)], arr)
        if not _LITTLE:  # pragma: no cover - big-endian hosts
            arr = _array.array(arr.typecode, arr)
            arr.byteswap()
        return bytes(arr)

    def __len__(self) -> int:
        return len(self.array) if self.width == 1 or not isinstance(
            self.array, _array.array) else len(self.array) // self.width

    def tolist(self) -> list[Any]:
        """The elements as Python numbers (or value-class tuples for vector arrays)."""
        if isinstance(self.array, _array.array):
            flat = self.array.tolist()
        else:
            flat = self.array.reshape(-1).tolist()
        if self.width == 1:
            return flat
        w = self.width
        make = self.element._make
        return [make(flat[i:i + w]) for i in range(0, len(flat), w)]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __getitem__(self, index: int) -> Any:
        return self.tolist()[index]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        assert isinstance(other, PackedArray)
        return self.tobytes(8) == other.tobytes(8)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tolist()!r})"


_ARRAY_CODES = {("i", 4): "i", ("i", 8): "q", ("f", 4): "f", ("f", 8): "d"}


class PackedInt32Array(PackedArray):
    __slots__ = ()
    kind = "i"
    itemsize = 4


class PackedInt64Array(PackedArray):
    __slots__ = ()
    kind = "i"
    itemsize = 8


class PackedFloat32Array(PackedArray):
    __slots__ = ()
    kind = "f"
    itemsize = 4


class PackedFloat64Array(PackedArray):
    __slots__ = ()
    kind = "f"
    itemsize = 8


class PackedVector2Array(PackedArray):
    """Elements are :class:`Vector2`; 64-bit data comes from ``real_t=double`` builds."""

    __slots__ = ()
    width = 2
    element = Vector2


class PackedVector3Array(PackedArray):
    """Elements are :class:`Vector3`; 64-bit data comes from ``real_t=double`` builds."""

    __slots__ = ()
    width = 3
    element = Vector3


class PackedVector4Array(PackedArray):
    """Elements are :class:`Vector4`; 64-bit data comes from ``real_t=double`` builds."""

    __slots__ = ()
    width = 4
    element = Vector4


class PackedColorArray(PackedArray):
    """Elements are :class:`Color`, always 32-bit floats."""

    __slots__ = ()
    width = 4
    element = Color


PACKED_CLASSES: dict[VariantType, type[PackedArray]] = {
    VariantType.PACKED_INT32_ARRAY: PackedInt32Array,
    VariantType.PACKED_INT64_ARRAY: PackedInt64Array,
    VariantType.PACKED_FLOAT32_ARRAY: PackedFloat32Array,
    VariantType.PACKED_FLOAT64_ARRAY: PackedFloat64Array,
    VariantType.PACKED_VECTOR2_ARRAY: PackedVector2Array,
    VariantType.PACKED_VECTOR3_ARRAY: PackedVector3Array,
    VariantType.PACKED_COLOR_ARRAY: PackedColorArray,
    VariantType.PACKED_VECTOR4_ARRAY: PackedVector4Array,
}
