"""Corpora as Dask collections (the ``dask`` extra): a :class:`dask.bag.Bag` of decoded
records, and a dask DataFrame for formats whose values have a schema.

    import gameserde.dask
    saves = gameserde.dask.read("saves/**/*.sav", "godot", framing="store_var")
    rich = saves.filter(lambda r: "value" in r and r["value"][0]["gold"] > 1000).count()

The inputs are named as a batch names them (paths, globs, directories, ``(key, bytes)``
records; see :mod:`gameserde.batch`), and a partition is one of a batch's chunks (up to 4 MiB
or 512 inputs). Workers read the files by path, from storage they share with the process that
names them, and each builds its codec once. Nothing is read before the collection is
computed, apart from the names of the files (and, for a DataFrame, the first input, whose
row gives the columns).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from typing import Any

from gameserde._extras import require
from gameserde.batch.inputs import Item, Source, chunks, items
from gameserde.batch.work import Spec, _codec
from gameserde.errors import GameserdeError, GameserdeWarning
from gameserde.formats import format_info

__all__ = ["read"]

Sources = Source | Iterable[Source]
"""One path, glob or directory, or several of them (or ``(key, bytes)`` records)."""


def read(inputs: Sources, format: str, *, recursive: bool = True, **options: Any) -> Any:
    """A :class:`dask.bag.Bag` of the records of ``inputs`` decoded with the codec
    ``gameserde.codec(format, **options)``, one per input, in input order, as a batch
    decode's JSON Lines hold them: ``{"key": KEY, "value": VALUE}`` where ``VALUE`` is the
    codec's JSON values (``codec.to_jsonable(codec.decode(data))``: what the library gives,
    which for FlatBuffers keeps enums as numbers and float32 values exact). An input that
    fails does not stop the bag: its record is ``{"key", "error", "offset", "path"}`` (the
    message, and the byte offset and value path where it failed); an input that gives
    notes has ``"notes"`` too. ``recursive``: directories' subdirectories too."""
    bag = require("dask.bag", "gameserde.dask.read")
    spec = _spec(format, options)
    parts = list(chunks(items(_sources(inputs), recursive=recursive)))
    if not parts:
        return bag.from_sequence([], npartitions=1)
    return bag.from_sequence(parts, partition_size=1).map_partitions(_records, spec)


def _spec(format: str, options: dict[str, Any]) -> Spec:
    """The codec's spec, its options checked here once (a format that reads by file kind
    is checked per input, in the workers)."""
    info = format_info(format)
    if not info.takes_source:
        info.make(**options)
    return format, dict(options)


def _sources(inputs: Sources) -> Iterable[Source]:
    if isinstance(inputs, str | os.PathLike | tuple):
        return [inputs]
    return inputs


def _records(part: list[list[Item]], spec: Spec) -> list[dict[str, Any]]:
    """The records of a partition (one chunk), in a worker."""
    return [_record(spec, item) for chunk in part for item in chunk]


def _record(spec: Spec, item: Item) -> dict[str, Any]:
    record: dict[str, Any] = {"key": item.key}
    with warnings.catch_warnings(record=True) as noted:
        warnings.simplefilter("always", GameserdeWarning)
        try:
            codec = _codec(spec, item)
            record["value"] = codec.to_jsonable(codec.decode(_data(item)))
        except GameserdeError as e:
            record.update(error=str(e), offset=getattr(e, "offset", None),
                          path=getattr(e, "path", None))
        except OSError as e:
            record.update(error=e.strerror or str(e), offset=None, path=None)
    notes = [str(w.message) for w in noted if issubclass(w.category, GameserdeWarning)]
    if notes:
        record["notes"] = notes
    return record


def _data(item: Item) -> bytes:
    if item.data is not None:
        return item.data
    with open(item.path or "", "rb") as f:
        return f.read()
