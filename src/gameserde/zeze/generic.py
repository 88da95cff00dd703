"""Schema-less decoding of a Zeze bean into a tree of (field id, wire type, value).

The rules are those of Zeze's own schema-less reader, Java's ``Zeze.Serialize.GenericBean``:

* a bean is tags and values up to the ``00`` end tag; a ``01`` tag ends a layer, the base
  layer follows and its field ids restart at 0 (Java nests it as field 0 of the bean);
* the reserved tags ``02`` to ``0f`` (field id delta 0) raise :class:`DecodeError`, as Java's
  ``invalid tag`` (generated decoders would keep such a field under the previous id), and so
  does a value of wire type 13, 14 or 15 (Java's ``invalid type``);
* field ids add up as Java's ``int`` does, wrapping at 2^31;
* a list or map count of 2^31 or more reads as empty, as in Zeze's generated decoders and
  ``SkipUnknownField`` (``GenericBean`` itself fails there, pre-sizing a collection with the
  negative count);
* beans, lists and maps nested more than :data:`~gameserde.zeze.bytebuffer.MAX_DEPTH` deep
  raise :class:`DecodeError` (Java has no limit and overflows its stack).

Values by wire type: INTEGER ``int`` (the full long), FLOAT and DOUBLE ``float`` (NaN
payloads kept), BYTES ``bytes`` (:func:`java_text` reads them as Java does a string), LIST
:class:`GenericList`, MAP :class:`GenericMap`, BEAN :class:`GenericBean`, DYNAMIC
:class:`GenericDynamic`, the vector types tuples of floats or ints.

Trees nest as deep as the reader allows (1,000 levels), and every operation on them works at
that depth whatever the recursion limit: ``==``, ``hash()`` and ``repr()`` of the tree classes
walk the tree with a loop (they give what the dataclasses' own methods would), and
:func:`to_plain` makes room on the stack as the reader does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any, ClassVar, NamedTuple

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.zeze._javastr import decode_java
from gameserde.zeze._show import map_key_step, map_value_step
from gameserde.zeze.bytebuffer import (
    BEAN,
    BYTES,
    DOUBLE,
    DYNAMIC,
    FLOAT,
    INTEGER,
    LIST,
    MAP,
    MAX_DEPTH,
    VECTOR2,
    VECTOR2INT,
    VECTOR3,
    VECTOR3INT,
    VECTOR4,
    WIRE_TYPE_NAMES,
    Reader,
)

__all__ = [
    "GenericBean", "GenericDynamic", "GenericField", "GenericList", "GenericMap",
    "GenericValue", "decode_generic", "decode_generic_bean", "java_text", "likes_text",
    "to_plain",
]

FLOAT_COUNTS = {VECTOR2: 2, VECTOR3: 3, VECTOR4: 4}
INT_COUNTS = {VECTOR2INT: 2, VECTOR3INT: 3}


class GenericDynamic(NamedTuple):
    """A DYNAMIC value: the typeId and the bean after it."""

    type_id: int
    bean: GenericBean


class _Node:
    """``==``, ``hash()`` and ``repr()`` of the tree classes, without recursion (a tree may
    be deeper than Python's recursion limit allows the dataclasses' own methods to go)."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(a is b or a == b
                   for a, b in zip_longest(_tokens(self), _tokens(other), fillvalue=_END))

    def __hash__(self) -> int:
        return hash(tuple(_tokens(self)))

    def __repr__(self) -> str:
        return _tree_repr(self)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class GenericList(_Node):
    """A LIST value: the elements' wire type and the elements."""

    element_type: int
    items: tuple[GenericValue, ...]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class GenericMap(_Node):
    """A MAP value: the keys' and values' wire types and the pairs in wire order."""

    key_type: int
    value_type: int
    pairs: tuple[tuple[GenericValue, GenericValue], ...]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class GenericField(_Node):
    """One field of a bean layer: its id, wire type, value and the offset of its tag."""

    id: int
    wire_type: int
    value: GenericValue
    offset: int


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class GenericBean(_Node):
    """A bean's layers in wire order (the bean's own first, then each base), each a tuple of
    its fields in wire order."""

    layers: tuple[tuple[GenericField, ...], ...]


GenericValue = (int | float | bytes | tuple[float, ...] | tuple[int, ...] | GenericList
                | GenericMap | GenericBean | GenericDynamic)

_TUPLE = object()
_END = object()


class _Text(str):
    """Text :func:`_tree_repr` writes as it is (a leaf of the tree is written as its repr)."""

    __slots__ = ()


def _tokens(tree: object) -> Iterator[object]:
    """The tree in pre-order: a node's class then its fields, a tuple's marker and length
    then its items, a leaf as itself (two trees are equal when their tokens are)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _Node):
            yield type(node)
            stack += reversed([getattr(node, name) for name in node.__match_args__])
        elif isinstance(node, tuple):
            yield _TUPLE
            yield len(node)
            stack += reversed(node)
        else:
            yield node


def _tree_repr(tree: object) -> str:
    """The repr the dataclasses and named tuples would give, written with a loop."""
    out: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is _Text:
            out.append(node)
            continue
        names = (node.__match_args__ if isinstance(node, _Node)
                 else getattr(node, "_fields", None) if isinstance(node, tuple) else None)
        parts: list[object]
        if names is not None:
            parts = [_Text(f"{type(node).__name__}(")]
            for i, name in enumerate(names):
                parts += [_Text(f"{', ' * (i > 0)}{name}="), getattr(node, name)]
            parts.append(_Text(")"))
        elif isinstance(node, tuple):
            parts = [_Text("(")]
            for i, item in enumerate(node):
                parts += [_Text(", ")] * (i > 0) + [item]
            parts.append(_Text(",)" if len(node) == 1 else ")"))
        else:
            out.append(repr(node))
            continue
        stack += reversed(parts)
    return "".join(out)


def add_id(last: int, delta: int) -> int:
    """The field id ``delta`` after ``last``, wrapping at 2^31 as Java's ``int`` does."""
    value = (last + delta) & 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


def decode_generic(data: bytes | bytearray | memoryview,
                   offset: int = 0) -> tuple[GenericBean, int]:
    """The bean whose body starts at ``offset``, and the offset just past its ``00`` end tag.

    Raises :class:`DecodeError` (offset and path of the failing value) on bad input, and
    ValueError when ``offset`` is outside the input.
    """
    reader = Reader(data, offset)
    if not 0 <= offset <= reader.end:
        raise ValueError(f"offset {offset} is outside the {reader.end} bytes of input")
    with recursion_room(3 * MAX_DEPTH + 64):
        bean = _bean(reader, 0)
    return bean, reader.pos


def decode_generic_bean(data: bytes | bytearray | memoryview) -> GenericBean:
    """The bean that is the whole of ``data``; bytes after its end tag raise
    :class:`DecodeError`."""
    bean, end = decode_generic(data)
    if end != len(data):
        left = len(data) - end
        raise DecodeError(f"{left} byte{'s' * (left != 1)} follow{'s' * (left == 1)} the "
                          "bean's end tag", offset=end, format="zeze")
    return bean


def _bean(r: Reader, depth: int) -> GenericBean:
    if depth >= MAX_DEPTH:
        raise r.fail(f"values are nested more than {MAX_DEPTH} deep")
    layers: list[tuple[GenericField, ...]] = []
    fields: list[GenericField] = []
    last = 0
    while True:
        at = r.pos
        tag = r.read_byte()
        if tag < 0x10:
            if tag > 1:
                raise r.fail(f"tag 0x{tag:02x} is reserved (a field id delta of 0)", at)
            layers.append(tuple(fields))
            if tag == 0:
                return GenericBean(tuple(layers))
            fields = []
            last = 0
            continue
        last = add_id(last, r.read_tag_size(tag))
        wire_type = tag & 0xF
        try:
            if wire_type > VECTOR4:
                raise r.fail(f"wire type {wire_type} is not a Zeze wire type", at)
            value = _value(r, wire_type, depth)
        except DecodeError as e:
            e.add_parent(f".#{last}")
            if layers:
                e.add_parent(f"[<layer {len(layers)}>]")
            raise
        fields.append(GenericField(last, wire_type, value, at))


def _value(r: Reader, wire_type: int, depth: int) -> GenericValue:
    """One value of ``wire_type`` (0 to 12)."""
    if wire_type == INTEGER:
        return r.read_long()
    if wire_type == FLOAT:
        return r.read_float()
    if wire_type == DOUBLE:
        return r.read_double()
    if wire_type == BYTES:
        return r.read_bytes()
    if wire_type == BEAN:
        return _bean(r, depth + 1)
    if wire_type == DYNAMIC:
        return GenericDynamic(r.read_long(), _bean(r, depth + 1))
    if wire_type in FLOAT_COUNTS:
        return r.read_floats(FLOAT_COUNTS[wire_type])
    if wire_type in INT_COUNTS:
        return r.read_ints(INT_COUNTS[wire_type])
    if depth >= MAX_DEPTH:
        raise r.fail(f"values are nested more than {MAX_DEPTH} deep")
    at = r.pos
    header = r.read_byte()
    if wire_type == LIST:
        count = r.read_list_count(header)
        element = _element_type(r, header & 0xF, count, at)
        items = []
        for i in range(count):
            try:
                items.append(_value(r, element, depth + 1))
            except DecodeError as e:
                e.add_parent(f"[{i}]")
                raise
        return GenericList(element, tuple(items))
    count = max(r.read_uint(), 0)
    key_type = _element_type(r, header >> 4, count, at)
    value_type = _element_type(r, header & 0xF, count, at)
    pairs = []
    for i in range(count):
        try:
            key = _value(r, key_type, depth + 1)
        except DecodeError as e:
            e.add_parent(map_key_step(i))
            raise
        try:
            pairs.append((key, _value(r, value_type, depth + 1)))
        except DecodeError as e:
            e.add_parent(map_value_step(_key_text(key_type, key), i))
            raise
    return GenericMap(key_type, value_type, tuple(pairs))


def _element_type(r: Reader, wire_type: int, count: int, at: int) -> int:
    if count and wire_type > VECTOR4:
        raise r.fail(f"wire type {wire_type} is not a Zeze wire type", at)
    return wire_type


def _key_text(wire_type: int, key: GenericValue) -> object:
    if wire_type == BYTES and isinstance(key, bytes):
        return java_text(key) if likes_text(key) else None
    return key if wire_type == INTEGER else None


# ---------------------------------------------------------------------------------------------
# Bytes as text

_CONTROL = re.compile(rb"[\x00-\x1f\x7f]")
_F4_HIGH = re.compile(rb"\xf4[\x90-\x9f]")


def likes_text(data: bytes) -> bool:
    """Java ``GenericBean.likeString``: whether BYTES look like text, that is well-formed
    UTF-8 without control characters (Java's check also lets ``f4 90`` to ``f4 9f`` through,
    code points past U+10FFFF)."""
    if _CONTROL.search(data):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            _F4_HIGH.sub(b"\xf4\x8f", data).decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


def java_text(data: bytes) -> str:
    """BYTES read as Java's ``new String(bytes, UTF_8)`` does (malformed parts become
    U+FFFD)."""
    return decode_java(data)


# ---------------------------------------------------------------------------------------------
# Plain (JSON-ready) form


def to_plain(bean: GenericBean) -> dict[str, Any]:
    """``bean`` as JSON-ready dicts and lists.

    A bean is a dict of its first layer's fields keyed by id (``"1"``, ``"2"`` ...; a
    repeated id gets ``"<id>@<tag offset>"``), with ``"base"``, the list of its further
    layers (each such a dict), when it has any. A field is ``{"type": wire type name,
    "value": plain value}``; plain values: INTEGER an int; FLOAT and DOUBLE a number, or
    ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; BYTES the text when it looks like text
    (:func:`likes_text`), else ``{"hex": "..."}``; LIST ``{"element_type": name, "items":
    [...]}``; MAP ``{"key_type": name, "value_type": name, "pairs": [[key, value], ...]}``;
    BEAN a bean dict; DYNAMIC ``{"type_id": int, "bean": bean dict}``; vectors a list of
    numbers.
    """
    with recursion_room(3 * MAX_DEPTH + 64):
        return _plain_bean(bean)


def _plain_bean(bean: GenericBean) -> dict[str, Any]:
    dicts = []
    for layer in bean.layers:
        out: dict[str, Any] = {}
        for f in layer:
            key = str(f.id)
            if key in out:
                key = f"{f.id}@{f.offset}"
            out[key] = {"type": WIRE_TYPE_NAMES[f.wire_type],
                        "value": _plain(f.wire_type, f.value)}
        dicts.append(out)
    if len(dicts) > 1:
        dicts[0]["base"] = dicts[1:]
    return dicts[0]


def _plain(wire_type: int, value: Any) -> Any:
    if wire_type == INTEGER:
        return value
    if wire_type in (FLOAT, DOUBLE):
        return _number(value)
    if wire_type == BYTES:
        return java_text(value) if likes_text(value) else {"hex": value.hex()}
    if wire_type == LIST:
        return {"element_type": WIRE_TYPE_NAMES[value.element_type],
                "items": [_plain(value.element_type, v) for v in value.items]}
    if wire_type == MAP:
        return {"key_type": WIRE_TYPE_NAMES[value.key_type],
                "value_type": WIRE_TYPE_NAMES[value.value_type],
                "pairs": [[_plain(value.key_type, k), _plain(value.value_type, v)]
                          for k, v in value.pairs]}
    if wire_type == BEAN:
        return _plain_bean(value)
    if wire_type == DYNAMIC:
        return {"type_id": value.type_id, "bean": _plain_bean(value.bean)}
    return [_number(v) for v in value]


def _number(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
