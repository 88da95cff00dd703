"""Where each value of an O3DE JSON text lies: the byte ranges ``inspect`` shows, and the place
where nesting first passes a limit.

The parser (:func:`~gameserde.o3de.text.parse_root`) gives values, not offsets, so the text is
scanned again once it has parsed: a scanner of tokens (strings, numbers and literals,
brackets, separators, whitespace and comments) that agrees with the parser on valid text,
in one pass over the text. The parsed value is walked alongside, so types (an integer or a
double) and values are the parser's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from gameserde._bytemap import Path, Region
from gameserde.o3de.text import members, write

__all__ = ["ROOT", "deeper_than", "pointer_step", "regions", "shown", "too_deep_at"]

_TOKEN = (r'[ \t\n\r]+|//[^\n]*|/\*.*?\*/|"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]'
          r'|[^ \t\n\r\[\]{},:"/]+')
_BYTES_TOKEN = re.compile(_TOKEN.encode(), re.S)
_TEXT_TOKEN = re.compile(_TOKEN, re.S)

ROOT = "/"
"""The root value's path in the rows (its JSON Pointer is empty)."""

_SHOWN_VALUE = 60
"""The longest value a row shows; longer ones end with ``...``."""


def shown(text: str) -> str:
    """``text`` with the bytes that are not UTF-8 it holds (U+DC80..U+DCFF, as the parser
    reads them) shown as ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def pointer_step(name: str) -> str:
    """A member name as a JSON Pointer step (RFC 6901), bytes that are not UTF-8 as
    ``\\xNN``."""
    return "/" + shown(name).replace("~", "~0").replace("/", "~1")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "integer"
    return "double" if isinstance(value, float) else "string"


def _note(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"{len(list(members(value)))} members"
    if isinstance(value, list):
        return f"{len(value)} elements"
    text = shown(write(value))
    return text if len(text) <= _SHOWN_VALUE else text[:_SHOWN_VALUE - 3] + "..."


class _Open:
    """A container being scanned: its row, its parsed children, and (objects) whether a
    member name comes next."""

    __slots__ = ("children", "expect_name", "is_object", "path", "row")

    def __init__(self, row: int, value: Any, path: Path | None) -> None:
        self.row = row
        self.path = path
        self.is_object = isinstance(value, Mapping)
        self.expect_name = self.is_object
        self.children: Iterator[tuple[Any, Any]] = (
            iter(members(value)) if self.is_object else enumerate(value))


def regions(raw: bytes, start: int, document: Any) -> list[Region]:
    """One region per value of ``document``, the parsed text ``raw`` whose root value starts
    at or after byte ``start``, in document order: its byte range, JSON Pointer (the root's
    is :data:`ROOT`), kind and value (a container: how many members or elements)."""
    rows: list[list[Any]] = []
    stack: list[_Open] = []
    for match in _BYTES_TOKEN.finditer(raw, start):
        first = raw[match.start()]
        if first in b" \t\n\r/:":
            continue
        top = stack[-1] if stack else None
        if first == ord(","):
            if top is not None:
                top.expect_name = top.is_object
            continue
        if first in b"]}":
            assert top is not None
            opened = stack.pop()
            rows[opened.row][1] = match.end() - rows[opened.row][0]
            if not stack:
                break
            continue
        if top is not None and top.expect_name:
            top.expect_name = False
            continue
        if top is None:
            value, path = document, Path(None, ROOT)
        else:
            key, value = next(top.children)
            step = pointer_step(key) if top.is_object else f"/{key}"
            path = Path(top.path, step) if top.path is not None else Path(None, step)
        rows.append([match.start(), match.end() - match.start(), path,
                     "object" if isinstance(value, Mapping) else
                     "array" if isinstance(value, list) else _kind(value), _note(value)])
        if first in b"[{":
            stack.append(_Open(len(rows) - 1, value, None if top is None else path))
        elif top is None:
            break
    return [Region(offset, size, path, kind, note) for offset, size, path, kind, note in rows]


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in a parsed value (one level at
    a time, stopping past ``limit``)."""
    depth = 0
    level = [value] if isinstance(value, list | Mapping) else []
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            values = item if isinstance(item, list) else [v for _, v in members(item)]
            below += [v for v in values if isinstance(v, list | Mapping)]
        level = below
    return False


def too_deep_at(text: str | bytes, start: int, limit: int) -> int:
    """The offset (in ``text``'s units) of the bracket where nesting first passes ``limit``
    in a text known to nest deeper."""
    depth = 0
    tokens = (_BYTES_TOKEN.finditer(text, start) if isinstance(text, bytes)
              else _TEXT_TOKEN.finditer(text, start))
    for match in tokens:
        token = match.group()
        if token in ("[", "{", b"[", b"{"):
            depth += 1
            if depth > limit:
                return match.start()
        elif token in ("]", "}", b"]", b"}"):
            depth -= 1
    return start
