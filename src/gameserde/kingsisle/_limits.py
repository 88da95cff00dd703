"""The arguments every KingsIsle function checks the same way: ``max_depth`` (and its
former name ``recursion_limit``) and the data a decoder reads."""

from __future__ import annotations

from gameserde.errors import UsageError

__all__ = ["MAX_DEPTH", "data_bytes", "depth_limit"]

MAX_DEPTH = 127
"""The default ``max_depth``: objects and lists nest at most this deep (katsuba's limit)."""


def depth_limit(max_depth: int, recursion_limit: int | None) -> int:
    """The nesting limit a function was given: ``max_depth``, or ``recursion_limit`` (its
    former name, still taken) when that was given instead; a :class:`UsageError` for both
    or for a value that is not a whole number >= 0."""
    if recursion_limit is not None:
        if max_depth != MAX_DEPTH:
            raise UsageError("give max_depth or recursion_limit (its former name), not both")
        max_depth = recursion_limit
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0:
        raise UsageError(f"max_depth must be a whole number >= 0, not {max_depth!r}")
    return max_depth


def data_bytes(data: object) -> bytes:
    """``data`` (bytes, a bytearray or a memoryview) as bytes; a :class:`UsageError` for
    anything else, a path in particular."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, bytearray | memoryview):
        return bytes(data)
    if isinstance(data, str):
        raise UsageError("data must be bytes, not str (a path was given? read the file first: "
                         "open(path, 'rb').read())")
    raise UsageError(f"data must be bytes, not {type(data).__name__}")
