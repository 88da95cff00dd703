"""The Python values of Zeze data that have no natural Python type.

A bean decodes to a ``dict`` of every field (zero values included; a layered bean's fields of
all layers in one dict), or to the bean's dataclass for schemas made from dataclasses. The
rest: bool, int, float, ``bytes`` (binary), ``str`` (string), ``decimal.Decimal``
(decimal), ``list`` (list and set: a set is a list of distinct elements in wire order, so
that re-encoding keeps the bytes), ``dict`` (map), tuples (vector types), and the types here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

__all__ = ["UNKNOWN_KEY", "Dynamic", "FrozenBean", "UnknownField"]

UNKNOWN_KEY = "$unknown"
"""The key of a bean dict holding its kept unknown fields (a list of :class:`UnknownField`),
present only when there are some. Encoding writes them back in id order, as Java does."""


class Dynamic(NamedTuple):
    """A ``dynamic`` value: the bean (full name) and its value, with the TypeId written before
    it. ``Dynamic(None, {})`` (TypeId 0) is Zeze's ``EmptyBean``. When encoding, ``type_id``
    may be left None: the dynamic's declaration gives it."""

    bean: str | None
    value: Any
    type_id: int | None = None


class UnknownField(NamedTuple):
    """A field a decoder did not know, kept to be written back: its id, wire type and the
    bytes of its value (Java keeps exactly these)."""

    id: int
    wire_type: int
    data: bytes


def _frozen(key: str, value: Any) -> Any:
    if isinstance(value, Mapping) and not isinstance(value, FrozenBean):
        return FrozenBean(value)
    if key == UNKNOWN_KEY and isinstance(value, list):
        return tuple(value)
    return value


class FrozenBean(Mapping[str, Any]):
    """A beankey used as a map key or set element: an immutable, hashable mapping of its
    fields (a ``dict`` cannot be a key); a beankey field's mapping becomes a FrozenBean too,
    and kept unknown fields (an external beankey's) a tuple."""

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Mapping[str, Any]) -> None:
        self._items = {k: _frozen(k, v) for k, v in items.items()}
        self._hash = hash(frozenset(self._items.items()))  # equal whatever the key order

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._items == {k: tuple(v) if k == UNKNOWN_KEY and isinstance(v, list)
                                   else v for k, v in other.items()}
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenBean({self._items!r})"
