"""Python values for O3DE's math types and ``AZStd::any``.

Math values are immutable named tuples of float32 components (Python floats holding float32
values). Matrices keep their elements row-major, as the engine writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "AnyValue", "Color", "JsonPairs", "Matrix3x3", "Matrix3x4", "Matrix4x4", "Quaternion",
    "Transform", "Vector2", "Vector3", "Vector4",
]


class Vector2(NamedTuple):
    """``AZ::Vector2``."""

    x: float = 0.0
    y: float = 0.0


class Vector3(NamedTuple):
    """``AZ::Vector3``."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


class Vector4(NamedTuple):
    """``AZ::Vector4``."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 0.0


class Quaternion(NamedTuple):
    """``AZ::Quaternion``; the default is the identity."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 1.0


class Color(NamedTuple):
    """``AZ::Color``: float32 channels."""

    r: float = 0.0
    g: float = 0.0
    b: float = 0.0
    a: float = 0.0


class Matrix3x3(NamedTuple):
    """``AZ::Matrix3x3``: 9 elements, row-major; the default is the identity."""

    elements: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


class Matrix3x4(NamedTuple):
    """``AZ::Matrix3x4``: 12 elements, row-major (3 rows of 4); the default is the identity."""

    elements: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)


class Matrix4x4(NamedTuple):
    """``AZ::Matrix4x4``: 16 elements, row-major; the default is the identity."""

    elements: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                                   0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)


class Transform(NamedTuple):
    """``AZ::Transform``: translation, rotation and a uniform scale."""

    translation: Vector3 = Vector3()
    rotation: Quaternion = Quaternion()
    scale: float = 1.0


@dataclass(slots=True)
class AnyValue:
    """An ``AZStd::any``: ``type`` is the registered name of the held value's type (None for
    an empty any), ``value`` the value itself."""

    type: str | None = None
    value: Any = None


class JsonPairs(Mapping[str, Any]):
    """A JSON object whose member names may repeat, members in document order. ``items()``
    gives every member; looking a name up finds its first member (as rapidjson's
    ``FindMember`` does)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: Iterable[tuple[str, Any]]) -> None:
        self.pairs = list(pairs)

    def __getitem__(self, name: str) -> Any:
        for key, value in self.pairs:
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return list(self.pairs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonPairs):
            return self.pairs == other.pairs
        return isinstance(other, Mapping) and self.pairs == list(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"JsonPairs({self.pairs!r})"
