"""JSON text in and out for the CLI: orjson when installed (the ``fast`` extra), else stdlib."""

from __future__ import annotations

import json
from typing import Any

from gameserde.errors import DecodeError

orjson: Any
try:
    import orjson
except ImportError:  # pragma: no cover - depends on the extra being installed
    orjson = None


def dumps(value: Any, *, pretty: bool) -> bytes:
    """UTF-8 JSON with a trailing newline; indented by 2 when ``pretty``."""
    if orjson is not None:
        try:
            text: bytes = orjson.dumps(value, option=orjson.OPT_INDENT_2 if pretty else 0)
            return text + b"\n"
        except TypeError:  # integers wider than 64 bits: let the stdlib write them
            pass
    if pretty:
        return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def loads(data: bytes, *, source: str = "") -> Any:
    """Parse JSON text; errors become a DecodeError with line and column."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as e:
        raise DecodeError(f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                          offset=e.pos, format="json") from None
    except UnicodeDecodeError as e:
        raise DecodeError(f"JSON text is not UTF-8 ({e.reason})", offset=e.start,
                          format="json") from None
