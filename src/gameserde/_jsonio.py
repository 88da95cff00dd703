"""JSON text in and out for the CLI: orjson when installed (the ``fast`` extra), else stdlib.

Documents may nest up to :data:`JSON_DEPTH_LIMIT` levels; deeper ones raise a gameserde error
(the stdlib's C parser and writer recurse on the C stack, which is not much deeper than that).
"""

from __future__ import annotations

import importlib
import json
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
    """UTF-8 JSON with a trailing newline; indented by 2 when ``pretty``.

    Strings holding lone surrogates (Godot 3 allows them) are written as ``\\udXXX`` escapes.
    """
    if orjson is not None:
        try:
            text: bytes = orjson.dumps(value, option=orjson.OPT_INDENT_2 if pretty else 0)
            return text + b"\n"
        except TypeError:  # too deep, too wide an int, or a lone surrogate: use the stdlib
            pass
    options: dict[str, Any] = {"indent": 2} if pretty else {"separators": (",", ":")}
    try:
        with recursion_room(JSON_DEPTH_LIMIT):
            text_str = json.dumps(value, ensure_ascii=False, **options)
            try:
                return (text_str + "\n").encode("utf-8")
            except UnicodeEncodeError:
                return (json.dumps(value, ensure_ascii=True, **options) + "\n").encode("ascii")
    except RecursionError:
        raise EncodeError(f"JSON output would nest deeper than {JSON_DEPTH_LIMIT} levels",
                          format="json") from None


def loads(data: bytes, *, source: str = "") -> Any:
    """Parse JSON text; errors become a DecodeError with line and column."""
    try:
        with recursion_room(JSON_DEPTH_LIMIT):
            return json.loads(data)
    except json.JSONDecodeError as e:
        raise DecodeError(f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                          offset=e.pos, format="json") from None
    except UnicodeDecodeError as e:
        raise DecodeError(f"JSON text is not UTF-8 ({e.reason})", offset=e.start,
                          format="json") from None
    except RecursionError:
        raise DecodeError(f"JSON nests deeper than {JSON_DEPTH_LIMIT} levels",
                          format="json") from None
