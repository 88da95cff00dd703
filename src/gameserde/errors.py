"""The exceptions every gameserde codec raises.

Decoders raise :class:`DecodeError` (and nothing else) on bad input; encoders raise
:class:`EncodeError` for values the format cannot hold; schema loaders raise
:class:`SchemaError`; options that cannot go together, or a name the schema lacks, raise
:class:`UsageError`. All derive from :class:`GameserdeError`.

What a codec keeps only as the input has it, or cannot represent, is reported as a
:class:`GameserdeWarning` (``warnings.warn``), never dropped quietly; turn warnings into
errors (``warnings.simplefilter("error", GameserdeWarning)``, or the command line's
``--strict``) to refuse such input.
"""

from __future__ import annotations

__all__ = ["DecodeError", "EncodeError", "GameserdeError", "GameserdeWarning", "SchemaError",
           "UnknownNameError", "UsageError", "path_key", "short_path"]


class GameserdeError(Exception):
    """Base class of every error gameserde raises on purpose."""


class _PathMixin:
    """A value path built while an error unwinds: each level adds a step in O(1)."""

    _tail: str
    _steps: list[str]

    def _init_path(self, path: str) -> None:
        self._tail = path[1:] if path.startswith("$") else path
        self._steps = []

    def add_parent(self, step: str) -> None:
        """Record that the failing value sits at ``step`` inside its parent."""
        self._steps.append(step)

    @property
    def path(self) -> str:
        return "$" + "".join(reversed(self._steps)) + self._tail

    @path.setter
    def path(self, value: str) -> None:
        self._init_path(value)


class DecodeError(_PathMixin, GameserdeError, ValueError):
    """Input bytes (or text) could not be decoded.

    ``offset`` is the byte offset where the problem was found, ``path`` the location of the
    value being decoded (``$`` is the root, ``$.items[3]`` the fourth element of the field
    ``items``, ``$["pos"]`` the key ``"pos"`` of a map), ``format`` the codec's name, ``verb``
    what was being done (``"encode"`` for the JSON text an encode reads).
    """

    def __init__(self, message: str, *, offset: int | None = None, path: str = "$",
                 format: str = "", verb: str = "decode") -> None:
        self.message = message
        self.offset = offset
        self._init_path(path)
        self.format = format
        self.verb = verb
        super().__init__(message)

    def __str__(self) -> str:
        where = []
        if self.offset is not None:
            where.append(f"at byte {self.offset} (0x{self.offset:x})")
        if self.path != "$":
            where.append(f"in {short_path(self.path)}")
        prefix = f"{self.format} " if self.format else ""
        if where:
            return f"{prefix}{self.verb} error {' '.join(where)}: {self.message}"
        return f"{prefix}{self.verb} error: {self.message}"


class EncodeError(_PathMixin, GameserdeError, ValueError):
    """A value could not be encoded; ``path`` says where in the value it sits."""

    def __init__(self, message: str, *, path: str = "$", format: str = "") -> None:
        self.message = message
        self._init_path(path)
        self.format = format
        super().__init__(message)

    def __str__(self) -> str:
        prefix = f"{self.format} " if self.format else ""
        if self.path != "$":
            return f"{prefix}encode error in {short_path(self.path)}: {self.message}"
        return f"{prefix}encode error: {self.message}"


class SchemaError(GameserdeError, ValueError):
    """A schema (file or declaration) is invalid."""


class UsageError(GameserdeError, ValueError):
    """Options that are unknown, out of range or cannot go together, or a name (root type,
    bean, class) the schema does not have; the command line exits with status 2."""


class UnknownNameError(UsageError, KeyError):
    """A name the schema does not have (a root type, a bean); also a :class:`KeyError`, as
    looking a name up in a mapping is."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class GameserdeWarning(UserWarning):
    """Part of the input is kept only as the input has it, or cannot be represented: the
    message says which part (with its byte offset or path) and what was done with it."""


def short_path(path: str, limit: int = 160) -> str:
    """``path`` shortened in the middle when it is longer than ``limit`` characters."""
    if len(path) <= limit:
        return path
    keep = limit // 2
    return f"{path[:keep]}...{path[-keep:]}"


def path_key(key: object) -> str:
    """Render one path step for a mapping key or a sequence index."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    if isinstance(key, str):
        escaped = key.replace("\\", "\\\\").replace('"', '\\"')
        return f'["{escaped}"]'
    return f"[{key!r}]"
