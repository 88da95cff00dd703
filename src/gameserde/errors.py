"""The exceptions every gameserde codec raises.

Decoders raise :class:`DecodeError` (and nothing else) on bad input; encoders raise
:class:`EncodeError` for values the format cannot hold; schema loaders raise
:class:`SchemaError`. All derive from :class:`GameserdeError`.
"""

from __future__ import annotations


class GameserdeError(Exception):
    """Base class of every error gameserde raises on purpose."""


class DecodeError(GameserdeError, ValueError):
    """Input bytes (or text) could not be decoded.

    ``offset`` is the byte offset where the problem was found, ``path`` the location of the
    value being decoded (``$`` is the root, ``$[3]["pos"]`` the key ``"pos"`` of the fourth
    element), ``format`` the codec's name.
    """

    def __init__(self, message: str, *, offset: int | None = None, path: str = "$",
                 format: str = "") -> None:
        self.message = message
        self.offset = offset
        self.path = path
        self.format = format
        super().__init__(message)

    def __str__(self) -> str:
        where = []
        if self.offset is not None:
            where.append(f"at byte {self.offset} (0x{self.offset:x})")
        if self.path and self.path != "$":
            where.append(f"in {self.path}")
        prefix = f"{self.format} " if self.format else ""
        if where:
            return f"{prefix}decode error {' '.join(where)}: {self.message}"
        return f"{prefix}decode error: {self.message}"


class EncodeError(GameserdeError, ValueError):
    """A value could not be encoded; ``path`` says where in the value it sits."""

    def __init__(self, message: str, *, path: str = "$", format: str = "") -> None:
        self.message = message
        self.path = path
        self.format = format
        super().__init__(message)

    def __str__(self) -> str:
        prefix = f"{self.format} " if self.format else ""
        if self.path and self.path != "$":
            return f"{prefix}encode error in {self.path}: {self.message}"
        return f"{prefix}encode error: {self.message}"


class SchemaError(GameserdeError, ValueError):
    """A schema (file or declaration) is invalid."""


def path_key(key: object) -> str:
    """Render one path step for a mapping key or a sequence index."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    if isinstance(key, str):
        escaped = key.replace("\\", "\\\\").replace('"', '\\"')
        return f'["{escaped}"]'
    return f"[{key!r}]"
