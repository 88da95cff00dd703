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
from collections.abc import Iterator
from typing import Any

from gameserde._bytemap import Path, Region
from gameserde.o3de.text import JsonObject, members, write

__all__ = ["ROOT", "deeper_than", "pointer_step", "regions", "shown", "too_deep_at"]

_TOKEN = (r'[ \t\n\r]*(?:(//[^\n]*|/\*.*?\*/)|("[^"\\]*(?:\\.[^"\\]*)*")|([\[{])|([\]}])'
          r'|(,)|(:)|([^ \t\n\r\[\]{},:"/]+))')
"""A token after any whitespace; its group says which: 1 a comment, 2 a string, 3 an opening
bracket, 4 a closing one, 5 a comma, 6 a colon, 7 a number or a literal."""
_BYTES_TOKEN = re.compile(_TOKEN.encode(), re.S)
_TEXT_TOKEN = re.compile(_TOKEN, re.S)
_COMMENT, _OPEN, _CLOSE, _COMMA, _COLON = 1, 3, 4, 5, 6

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


def _row(value: Any) -> tuple[str, str]:
    """A value's kind and how its row shows it (a container: how many members or
    elements)."""
    kind = type(value)
    if kind is dict:
        return "object", f"{len(value)} members"
    if kind is JsonObject:
        return "object", f"{len(value.pairs)} members"
    if kind is list:
        return "array", f"{len(value)} elements"
    if value is None:
        return "null", "null"
    if kind is bool:
        return "bool", "true" if value else "false"
    if kind is int:
        return "integer", str(value)
    text = shown(write(value))
    if len(text) > _SHOWN_VALUE:
        text = text[:_SHOWN_VALUE - 3] + "..."
    return ("double" if kind is float else "string"), text


class _Open:
    """A container being scanned: its row, its parsed children, its path (None for the root,
    whose children's paths start afresh) and (objects) whether a member name comes next."""

    __slots__ = ("children", "expect_name", "is_object", "path", "row")

    def __init__(self, row: int, value: Any, path: Path | None) -> None:
        self.row = row
        self.path = path
        self.is_object = type(value) is not list
        self.expect_name = self.is_object
        self.children: Iterator[tuple[Any, Any]] = (
            iter(members(value)) if self.is_object else enumerate(value))


def regions(raw: bytes, start: int, document: Any) -> list[Region]:
    """One region per value of ``document``, the parsed text ``raw`` whose root value starts
    at or after byte ``start``, in document order: its byte range, JSON Pointer (the root's
    is :data:`ROOT`), kind and value (a container: how many members or elements)."""
    rows: list[list[Any]] = []
    stack: list[_Open] = []
    top: _Open | None = None
    for match in _BYTES_TOKEN.finditer(raw, start):
        group = match.lastindex
        assert group is not None  # every token is one of the groups
        if group in (_COMMENT, _COLON):
            continue
        if group == _COMMA:
            assert top is not None
            top.expect_name = top.is_object
            continue
        if group == _CLOSE:
            assert top is not None
            row = rows[top.row]
            row[1] = match.end() - row[0]
            stack.pop()
            if not stack:
                break
            top = stack[-1]
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
        offset = match.start(group)
        kind, note = _row(value)
        rows.append([offset, match.end() - offset, path, kind, note])
        if group == _OPEN:
            top = _Open(len(rows) - 1, value, None if top is None else path)
            stack.append(top)
        elif top is None:
            break
    return [Region(offset, size, path, kind, note) for offset, size, path, kind, note in rows]


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in a parsed value (lists and
    dicts, as the parser makes them; one level at a time, stopping past ``limit``)."""
    depth = 0
    level = [value] if isinstance(value, list | dict) else []
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            values = item if isinstance(item, list) else [v for _, v in members(item)]
            below += [v for v in values if isinstance(v, list | dict)]
        level = below
    return False


def too_deep_at(text: str | bytes, start: int, limit: int) -> int:
    """The offset (in ``text``'s units) of the bracket where nesting first passes ``limit``
    in a text known to nest deeper."""
    depth = 0
    tokens = (_BYTES_TOKEN.finditer(text, start) if isinstance(text, bytes)
              else _TEXT_TOKEN.finditer(text, start))
    for match in tokens:
        if match.lastindex == _OPEN:
            depth += 1
            if depth > limit:
                return match.start(_OPEN)
        elif match.lastindex == _CLOSE:
            depth -= 1
    return start
