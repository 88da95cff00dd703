"""Parquet datasets from batches (pyarrow, from the ``parquet`` extra).

A batch with ``parquet=DIR`` writes one Parquet file per task (a chunk of inputs), from the
worker that ran it, at ``DIR/TABLE/part-NNNNN.parquet``; ``TABLE`` is one column layout:

- decode, for a format with a schema (:meth:`gameserde.codecs.Codec.to_row`): the root type's
  name; the columns are ``key`` (the input's key) and the root record's fields, typed by
  :mod:`gameserde.schema.arrow` from the shared type model; a format without one (Godot's
  Variants) writes ``value``: ``key`` and ``value``, the record's JSON text (Arrow's ``json``
  type, which DuckDB reads as JSON: ``value->>'$.gold'``);
- verify: ``verify``, a row per input: ``key``, ``ok``, ``report``, ``error``, ``offset``,
  ``path``;
- inspect: ``inspect``, a row per region: ``key``, ``offset``, ``length``, ``path``, ``type``,
  ``value``.

Each part's metadata holds, under ``gameserde``, the codec's format and options (JSON). A
decode's failures have no row (the batch's summary lists them). Parts are written to a
hidden folder in ``DIR`` and moved in place when the batch ends, replacing the tables' earlier
parts; a batch that raises, or that ``fail_fast`` stops, leaves ``DIR`` as it was.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gameserde._extras import require
from gameserde._jsonio import dumps
from gameserde.codecs import Row
from gameserde.errors import GameserdeWarning, UsageError
from gameserde.schema.arrow import ENUM_FORMS, Plan, plan

__all__ = ["Dataset", "Target", "inspect_table", "json_table", "json_text", "table_of",
           "verify_table", "write_part"]

_PLANS: dict[tuple[int, str, Any, str], tuple[Row, Plan]] = {}


@dataclass(frozen=True)
class Target:
    """Where a worker writes its parts (the dataset's hidden staging folder) and how enums
    are stored (``"name"`` or ``"int"``): plain data that pickles."""

    staging: str
    enums: str = "name"
    spec: str = "{}"
    """The codec's spec as JSON (``{"format", "options"}``), kept in each part's metadata."""


def table_name(name: str) -> str:
    """``name`` as a folder name: letters, digits, ``_``, ``.`` and ``-``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "value"


def table_of(keys: Sequence[str], rows: Sequence[Row], *, enums: str = "name") -> Any:
    """The ``pyarrow.Table`` of ``rows`` (one table: the same name, schema and type), with
    ``keys`` as its first column: a record's fields are columns, another type is one
    ``value`` column."""
    pa = require("pyarrow", "a table (Parquet)")
    first = rows[0]
    assert first.schema is not None and first.type is not None
    cache_key = (id(first.schema), first.name, first.type, enums)
    cached = _PLANS.get(cache_key)
    if cached is None or cached[0].schema is not first.schema:
        cached = _PLANS[cache_key] = (first, plan(first.schema, first.type, enums=enums))
    compiled = cached[1]
    convert = compiled.convert
    values = [row.value for row in rows] if convert is None else [
        convert(row.value) for row in rows]
    array = pa.array(values, type=compiled.storage)
    if compiled.storage != compiled.arrow:
        array = array.cast(compiled.arrow)
    if pa.types.is_struct(compiled.arrow):
        names = [compiled.arrow.field(i).name for i in range(compiled.arrow.num_fields)]
        columns = array.flatten()
    else:
        names, columns = ["value"], [array]
    key = "key"
    while key in names:
        key += "_"
    return pa.Table.from_arrays([pa.array(keys, type=pa.string()), *columns],
                                names=[key, *names])


def json_text(value: Any) -> str:
    """JSON values as the text of a JSON column, valid UTF-8: a string's UTF-16 surrogates
    that are not a pair (Godot 3 strings may hold them) become U+FFFD, with a
    :class:`~gameserde.errors.GameserdeWarning` (DuckDB refuses a file holding one)."""
    text = dumps(value, pretty=False).decode("utf-8").rstrip("\n")
    if "\\ud" not in text.lower():
        return text
    fixed, changed = _without_surrogates(value)
    if not changed:
        return text
    warnings.warn("a string holds UTF-16 surrogates that are not pairs: the Parquet JSON "
                  "column has U+FFFD in their place", GameserdeWarning, stacklevel=2)
    return dumps(fixed, pretty=False).decode("utf-8").rstrip("\n")


def _without_surrogates(value: Any) -> tuple[Any, bool]:
    if isinstance(value, str):
        fixed = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return fixed, fixed != value
    if isinstance(value, list):
        pairs = [_without_surrogates(v) for v in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    if isinstance(value, dict):
        items = [(_without_surrogates(k), _without_surrogates(v)) for k, v in value.items()]
        return ({k: v for (k, _), (v, _) in items},
                any(ck or cv for (_, ck), (_, cv) in items))
    return value, False


def json_table(keys: Sequence[str], texts: Sequence[str]) -> Any:
    """``key`` and ``value``: each record's JSON text, as Arrow's ``json`` type."""
    pa = require("pyarrow", "a table (Parquet)")
    return pa.table({"key": pa.array(keys, type=pa.string()),
                     "value": pa.array(texts, type=pa.json_(pa.string()))})


def verify_table(outcomes: Sequence[Any]) -> Any:
    """A row per verified input (a batch's ``Outcome``): ``key``, ``ok``, ``report`` (when
    sound), ``error``, ``offset`` and ``path`` (when not)."""
    pa = require("pyarrow", "a table (Parquet)")
    return pa.table({
        "key": pa.array([o.key for o in outcomes], type=pa.string()),
        "ok": pa.array([o.error is None for o in outcomes], type=pa.bool_()),
        "report": pa.array([o.output if o.error is None else None for o in outcomes],
                           type=pa.string()),
        "error": pa.array([o.error for o in outcomes], type=pa.string()),
        "offset": pa.array([o.offset for o in outcomes], type=pa.int64()),
        "path": pa.array([o.path for o in outcomes], type=pa.string()),
    })


def inspect_table(regions: Sequence[tuple[Any, dict[str, Any]]]) -> Any:
    """A row per region of a byte map, with its input's key: ``key``, ``offset``,
    ``length``, ``path``, ``type``, ``value``, and for bits (KingsIsle) ``bit`` and
    ``bits``."""
    pa = require("pyarrow", "a table (Parquet)")
    return pa.table({
        "key": pa.array([o.key for o, _ in regions], type=pa.string()),
        "offset": pa.array([r["offset"] for _, r in regions], type=pa.int64()),
        "length": pa.array([r["length"] for _, r in regions], type=pa.int64()),
        "path": pa.array([r.get("path") for _, r in regions], type=pa.string()),
        "type": pa.array([r.get("type") for _, r in regions], type=pa.string()),
        "value": pa.array([None if r.get("value") is None else str(r["value"])
                           for _, r in regions], type=pa.string()),
        "bit": pa.array([r.get("bit") for _, r in regions], type=pa.int64()),
        "bits": pa.array([r.get("bits") for _, r in regions], type=pa.int64()),
    })


def write_part(target: Target, index: int, tables: dict[str, Any]) -> None:
    """Write each table of a task as ``STAGING/NAME/part-INDEX.parquet``, whole or not at
    all."""
    pq = require("pyarrow.parquet", "a Parquet dataset")
    for name, table in tables.items():
        folder = Path(target.staging) / table_name(name)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"part-{index:05d}.parquet"
        partial = folder / f".part-{index:05d}.parquet.partial"
        pq.write_table(table.replace_schema_metadata({"gameserde": target.spec}), partial)
        os.replace(partial, final)


class Dataset:
    """The driver's side of a Parquet dataset: the staging folder the workers write to, then
    the parts moved in place (:meth:`close`)."""

    def __init__(self, root: str | os.PathLike[str], enums: str = "name",
                 spec: tuple[str, dict[str, Any]] = ("", {})) -> None:
        require("pyarrow.parquet", "a Parquet dataset")
        if enums not in ENUM_FORMS:
            raise UsageError(f"enums are stored as {' or '.join(ENUM_FORMS)}, not {enums!r}")
        self.root = Path(root)
        staging = self.root / f".gameserde-{uuid.uuid4().hex}"  # made by the first part
        self.target = Target(str(staging), enums, json.dumps(
            {"format": spec[0], "options": spec[1]}, default=str, sort_keys=True))

    def close(self, keep: bool) -> list[str]:
        """Move the parts in place (``keep``: each table written replaces that table's
        earlier parts) or drop them; remove the staging folder. Returns the tables
        written."""
        staging = Path(self.target.staging)
        written = []
        try:
            if keep:
                self.root.mkdir(parents=True, exist_ok=True)
                found = staging.iterdir() if staging.is_dir() else iter(())
                for folder in sorted(p for p in found if p.is_dir()):
                    destination = self.root / folder.name
                    destination.mkdir(exist_ok=True)
                    for old in destination.glob("part-*.parquet"):
                        old.unlink()
                    for part in sorted(folder.glob("part-*.parquet")):
                        os.replace(part, destination / part.name)
                    written.append(folder.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return written
