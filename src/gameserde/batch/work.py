"""What a worker does with a chunk of inputs: build the codec from its picklable spec (once
per process: compiled schemas and plans do not pickle), run the action on each input, and
return one :class:`Outcome` per input, failures included (the batch goes on after them)."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

from gameserde.batch.inputs import Item
from gameserde.codecs import Codec, codec
from gameserde.errors import GameserdeError, GameserdeWarning
from gameserde.formats import format_info

__all__ = ["ACTIONS", "Outcome", "Spec", "run_chunk"]

ACTIONS = ("decode", "verify", "inspect", "convert")

Spec = tuple[str, dict[str, Any]]
"""``(format, options)``: what :func:`gameserde.codec` builds a codec from (``Codec.spec``)."""


@dataclass
class Outcome:
    """What the action made of one input: ``output`` (JSON text for decode and inspect, the
    report for verify, bytes for convert) or the failure's ``error`` with its ``offset`` and
    ``path``; ``notes`` are the warnings it raised (input kept as it is, or left out)."""

    key: str
    size: int
    output: str | bytes | None = None
    error: str | None = None
    offset: int | None = None
    path: str | None = None
    notes: list[str] = field(default_factory=list)


_CODECS: dict[str, Codec] = {}


def _codec(spec: Spec, item: Item) -> Codec:
    """The codec of ``spec`` for ``item``, built once per process. A format that reads by
    the file's kind (``FormatInfo.takes_source``: O3DE) gets a codec per file extension."""
    format, options = spec
    if "source" not in options and format_info(format).takes_source:
        options = {**options, "source": "input" + os.path.splitext(item.path or item.key)[1]}
    key = repr((format, options))
    made = _CODECS.get(key)
    if made is None:
        made = _CODECS[key] = codec(format, **options)
    return made


def run_chunk(action: str, spec: Spec, to: Spec | None, chunk: list[Item],
              strict: bool = False) -> list[Outcome]:
    """``action`` on every input of ``chunk``, with the codec of ``spec`` (and for convert
    the one of ``to``); ``strict``: a note fails its input."""
    out = []
    for item in chunk:
        try:
            reader = _codec(spec, item)
            writer = _codec(to, item) if to is not None else None
        except GameserdeError as e:
            out.append(Outcome(item.key, item.size, error=str(e)))
            continue
        out.append(_one(action, reader, writer, item, strict))
    return out


def _one(action: str, reader: Codec, writer: Codec | None, item: Item,
         strict: bool) -> Outcome:
    try:
        if item.data is not None:
            data = item.data
        else:
            with open(item.path or "", "rb") as f:
                data = f.read()
    except OSError as e:
        return Outcome(item.key, 0, error=e.strerror or str(e))
    outcome = Outcome(item.key, len(data))
    with warnings.catch_warnings(record=True) as noted:
        warnings.simplefilter("error" if strict else "always", GameserdeWarning)
        try:
            outcome.output = _act(action, reader, writer, data)
        except GameserdeError as e:
            outcome.error = str(e)
            outcome.offset = getattr(e, "offset", None)
            outcome.path = getattr(e, "path", None)
        except GameserdeWarning as e:
            outcome.error = f"{e} (strict)"
    outcome.notes = [str(w.message) for w in noted if issubclass(w.category, GameserdeWarning)]
    return outcome


def _act(action: str, reader: Codec, writer: Codec | None, data: bytes) -> str | bytes:
    if action == "decode":
        return reader.to_json(data).rstrip("\n")
    if action == "verify":
        return reader.verify(data)
    if action == "convert":
        assert writer is not None
        return reader.convert(data, writer)
    byte_map = reader.inspect(data)
    if byte_map.error is not None:
        raise byte_map.error
    return json.dumps(byte_map.to_jsonable(), separators=(",", ":"))
