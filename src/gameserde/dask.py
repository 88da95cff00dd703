"""Corpora as Dask collections (the ``dask`` extra): a :class:`dask.bag.Bag` of decoded
records, and a dask DataFrame for formats whose values have a schema::

    import gameserde.dask
    saves = gameserde.dask.read("saves/**/*.sav", "godot", framing="store_var", json="plain")
    rich = saves.filter(lambda r: "value" in r and r["value"]["$records"][0]["gold"] > 1000)
    print(rich.count().compute())

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
from gameserde.batch.work import Spec, codec_for
from gameserde.codecs import Row
from gameserde.errors import DecodeError, GameserdeError, GameserdeWarning, UsageError
from gameserde.formats import format_info

__all__ = ["read", "read_frame"]

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


def read_frame(inputs: Sources, format: str, *, recursive: bool = True,
               **options: Any) -> Any:
    """A dask DataFrame of ``inputs`` decoded with the codec ``gameserde.codec(format,
    **options)``, a row per input in input order, for a format whose values have a schema
    (every format but Godot, whose Variants have none: :func:`read` takes them). The columns
    are those of a batch's Parquet dataset (:mod:`gameserde.batch.parquet`): ``key``, then
    the root record's fields, typed by the shared schema model, each a pandas
    ``ArrowDtype`` (uint64 and float32 stay exact). The first input that decodes gives the
    columns, and every row must have its layout (KingsIsle files of another class do not:
    read them with :func:`read`). An input that fails stops the computation with its
    :class:`~gameserde.errors.DecodeError`, whose message ends with the input's key (find
    such inputs first with :func:`read` or a batch verify)."""
    dataframe = require("dask.dataframe", "gameserde.dask.read_frame")
    spec = _spec(format, options)
    parts = list(chunks(items(_sources(inputs), recursive=recursive)))
    first = _first_row(spec, parts)
    meta = _frame([first[0]], [first[1]]).iloc[:0]
    return dataframe.from_map(_partition, parts, args=[spec, first[1].name], meta=meta,
                              enforce_metadata=False)


def _first_row(spec: Spec, parts: list[list[Item]]) -> tuple[str, Row]:
    """The key and row of the first input that decodes (read here, in the caller)."""
    for chunk in parts:
        for item in chunk:
            codec = codec_for(spec, item)
            try:
                row = codec.to_row(codec.decode(item.read()))
            except (GameserdeError, OSError):
                continue
            if row is None or row.type is None:
                raise UsageError(f"{spec[0]} values have no schema to make a table's columns "
                                 "of: gameserde.dask.read gives them as records")
            return item.key, row
    raise UsageError("no input decodes: a frame takes its columns from the first that does")


def _partition(chunk: list[Item], spec: Spec, name: str) -> Any:
    """The pandas DataFrame of a partition (one chunk), in a worker."""
    keys, rows = [], []
    for item in chunk:
        codec = codec_for(spec, item)
        try:
            row = codec.to_row(codec.decode(item.read()))
        except DecodeError as e:
            raise DecodeError(f"{e.message} (input {item.key})", offset=e.offset, path=e.path,
                              format=e.format, verb=e.verb) from None
        if row is None or row.name != name:
            raise UsageError(f"{item.key} decodes to a {getattr(row, 'name', 'value')} and the "
                             f"frame's rows are {name} rows: gameserde.dask.read takes both")
        keys.append(item.key)
        rows.append(row)
    return _frame(keys, rows)


def _frame(keys: list[str], rows: list[Row]) -> Any:
    """``rows`` as a pandas DataFrame of Arrow-backed columns."""
    pandas = require("pandas", "gameserde.dask.read_frame")
    from gameserde.batch.parquet import table_of

    return table_of(keys, rows).to_pandas(types_mapper=pandas.ArrowDtype)


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
            codec = codec_for(spec, item)
            record["value"] = codec.to_jsonable(codec.decode(item.read()))
        except GameserdeError as e:
            record.update(error=str(e), offset=getattr(e, "offset", None),
                          path=getattr(e, "path", None))
        except OSError as e:
            record.update(error=e.strerror or str(e), offset=None, path=None)
    notes = [str(w.message) for w in noted if issubclass(w.category, GameserdeWarning)]
    if notes:
        record["notes"] = notes
    return record
