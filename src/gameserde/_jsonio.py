"""JSON text in and out for the CLI: orjson when installed (the ``fast`` extra), else stdlib.

Documents may nest up to :data:`JSON_DEPTH_LIMIT` levels; deeper ones raise a gameserde error
(the stdlib's C parser and writer recurse on the C stack, which is not much deeper than that).
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError

orjson: Any
try:
    orjson = importlib.import_module("orjson")
except ImportError:  # pragma: no cover - depends on the extra being installed
    orjson = None

JSON_DEPTH_LIMIT = 20_000


def dumps(value: Any, *, pretty: bool) -> bytes:
    """UTF-8 JSON with a trailing newline; indented by 2 when ``pretty`` (up to 32 levels),
    with every array or object whose one-line form fits in the line kept on one line
    (``[1.0, 2.0, 3.0]``).

    Strings holding lone surrogates (Godot 3 allows them) are written as ``\\udXXX`` escapes.
    """
    if orjson is not None and not pretty:
        try:
            text: bytes = orjson.dumps(value)
            return text + b"\n"
        except TypeError:  # too deep, too wide an int, or a lone surrogate: use the stdlib
            pass
    try:
        with recursion_room(JSON_DEPTH_LIMIT + 64):
            try:
                return (_text(value, pretty, False) + "\n").encode("utf-8")
            except UnicodeEncodeError:
                return (_text(value, pretty, True) + "\n").encode("ascii")
    except RecursionError:
        raise EncodeError(f"JSON output would nest deeper than {JSON_DEPTH_LIMIT} levels",
                          format="json") from None


_WIDTH = 88
"""Pretty output keeps a container on one line when it fits in this many columns."""
_MAX_INDENT = 32
"""Levels deeper than this are indented as this one, so output stays linear in the input."""


def _text(value: Any, pretty: bool, ascii_only: bool) -> str:
    if not pretty:
        return json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    out: list[str] = []
    _pretty(value, 0, _WIDTH, out, ascii_only)
    return "".join(out)


def _pretty(value: Any, level: int, room: int, out: list[str], ascii_only: bool) -> None:
    """Append ``value`` at indentation ``level``; ``room`` is what is left of the line."""
    if not isinstance(value, list | dict) or not value or _inline_size(value, room) <= room:
        out.append(json.dumps(value, ensure_ascii=ascii_only, separators=(", ", ": ")))
        return
    pad = "\n" + "  " * min(level + 1, _MAX_INDENT)
    width = max(_WIDTH - 2 * (level + 1), 40)
    close = "]" if isinstance(value, list) else "}"
    out.append("[" if isinstance(value, list) else "{")
    if isinstance(value, list) and not any(isinstance(v, list | dict) for v in value):
        _fill(value, pad, width, out, ascii_only)  # scalars: as many to a line as fit
        out.append("\n" + "  " * min(level, _MAX_INDENT) + close)
        return
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    for i, (key, item) in enumerate(items):
        out.append(pad if i == 0 else "," + pad)
        left = width
        if key is not None:
            name = json.dumps(key, ensure_ascii=ascii_only) + ": "
            out.append(name)
            left -= len(name)
        _pretty(item, level + 1, left - 1, out, ascii_only)
    out.append("\n" + "  " * min(level, _MAX_INDENT) + close)


def _fill(items: list[Any], pad: str, width: int, out: list[str], ascii_only: bool) -> None:
    used = width
    for i, item in enumerate(items):
        text = json.dumps(item, ensure_ascii=ascii_only) + ("," if i + 1 < len(items) else "")
        if used + 1 + len(text) > width and used:
            out.append(pad)
            used = 0
        elif i:
            out.append(" ")
            used += 1
        out.append(text)
        used += len(text)


def _inline_size(value: Any, budget: int) -> int:
    """The length of ``value`` on one line, or more than ``budget`` (computed only that far)."""
    if isinstance(value, str):
        return len(value) + 2 if len(value) + 2 > budget else len(json.dumps(value))
    if isinstance(value, list | dict):
        size = 2
        pairs = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        for key, item in pairs:
            if key is not None:
                size += _inline_size(key, budget - size) + 2
            if size > budget:
                return size
            size += _inline_size(item, budget - size) + 2
            if size > budget:
                return size
        return size - 2 if value else size
    return len(json.dumps(value))


_TOKEN_OR_SPACE = re.compile(r'("(?:[^"\\]|\\.)*")|[ \t\n\r]+')


def compact_text(text: str) -> str:
    """JSON text (a format's own writer's) on one line: the whitespace between tokens removed,
    strings untouched; the rest (number forms, member order, repeated names) as written."""
    return _TOKEN_OR_SPACE.sub(lambda m: m.group(1) or "", text)


def loads(data: str | bytes, *, source: str = "", format: str = "json") -> Any:
    """Parse JSON text; errors become a DecodeError with line and column. ``format`` names
    the format whose JSON it is: its errors then read ``FORMAT encode error at byte N: ...``
    (the JSON is read to be encoded)."""
    verb = "decode" if format == "json" else "encode"
    try:
        with recursion_room(JSON_DEPTH_LIMIT):
            return json.loads(data)
    except json.JSONDecodeError as e:
        raise DecodeError(f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                          offset=e.pos, format=format, verb=verb) from None
    except UnicodeDecodeError as e:
        raise DecodeError(f"JSON text is not UTF-8 ({e.reason})", offset=e.start,
                          format=format, verb=verb) from None
    except ValueError:  # an integer of more digits than int() converts
        found = _LONG_INTEGER.search(data if isinstance(data, bytes) else data.encode())
        offset, digits = (found.start(), len(found[1])) if found else (None, 0)
        raise DecodeError(f"an integer of {digits or 'over 4300'} digits, longer than any "
                          "format here holds (at most 4300 digits are read)", offset=offset,
                          format=format, verb=verb) from None
    except RecursionError:
        raise DecodeError(f"JSON nests deeper than {JSON_DEPTH_LIMIT} levels",
                          format=format, verb=verb) from None


_LONG_INTEGER = re.compile(rb"-?(\d{4301,})")
