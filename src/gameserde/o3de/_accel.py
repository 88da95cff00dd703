"""Glue to the optional C twin of the O3DE JSON text layer (``_speedups``, built at install).

The pure-Python :func:`~gameserde.o3de.text.parse` and :func:`~gameserde.o3de.text.write`
are the reference. The C twin reads ``str`` and ``bytes`` into the same values (ints and
doubles by the same rules, a :class:`~gameserde.o3de.text.JsonObject` where a member name
repeats, bytes that are not UTF-8 as ``surrogateescape`` code points) and writes the same
text. Whenever it meets anything else -- a syntax error, a lone surrogate (in a ``str``, an
escape, or a string to write), a number rapidjson refuses, nesting past ``MAX_DEPTH``, NaN or an
integer out of range, a value of a type it does not know (subclasses of ``str``, ``int``,
``float``, ``list`` and ``tuple`` included) -- it gives up (:func:`parse` returns
:data:`UNSERVED`, :func:`write` None), and the reference runs over the whole input, which
gives the result or raises the exact error. So the public API gives the same values, text and
errors with or without it.

``ENABLED`` is true when the extension is importable and ``GAMESERDE_PURE`` is not set to a
non-empty value other than ``0``; tests switch it off to force the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameserde._extensions import load_extension, pure_requested

API_VERSION = 2

speedups: Any = load_extension("gameserde.o3de._speedups", API_VERSION)

ENABLED = speedups is not None and not pure_requested()

UNSERVED: Any = NotImplemented
"""What :func:`parse` returns when the reference must read the text."""


def parse(text: str | bytes, trailing_commas: bool, stop_when_done: bool, skip_bom: bool,
          json_object: type) -> Any:
    """``text.parse_root`` of the O3DE JSON ``text`` (objects that repeat a name as
    ``json_object``): the value and the offset of the first ignored text, or
    :data:`UNSERVED`."""
    return speedups.parse(text, trailing_commas, stop_when_done, skip_bom, json_object)


def write(value: Any, json_object: type) -> str | None:
    """The pretty text of ``value`` (``json_object`` values written from their pairs), or
    None when the reference must write it."""
    text: str | None = speedups.write(value, json_object, Mapping)
    return text
