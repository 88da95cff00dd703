"""What a worker does with a chunk of inputs: build the codec from its picklable spec (once
per process: compiled schemas and plans do not pickle), run the action on each input, and
return the chunk's :class:`Done`: one :class:`Outcome` per input, failures included (the
batch goes on after them), and the chunk's JSON Lines as one text."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Any

from gameserde.batch.inputs import Item
from gameserde.batch.parquet import (
    Target,
    inspect_table,
    json_table,
    json_text,
    table_of,
    verify_table,
    write_part,
)
from gameserde.codecs import Codec, Row, codec
from gameserde.errors import GameserdeError, GameserdeWarning
from gameserde.formats import format_info

__all__ = ["ACTIONS", "Done", "Outcome", "Spec", "Task", "codec_for", "json_line", "run_chunk"]

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
    notes: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[type[Outcome], tuple[Any, ...]]:
        """Pickled as its values, without the trailing defaults: a chunk of small inputs
        goes back to the caller ten times faster than as dataclasses (their ``__dict__``)."""
        values = (self.key, self.size, self.output, self.error, self.offset, self.path,
                  self.notes)
        end = len(values)
        while end > 2 and (values[end - 1] is None or values[end - 1] == ()):
            end -= 1
        return Outcome, values[:end]


@dataclass
class Done:
    """A chunk's results: an :class:`Outcome` per input, in order, and when the task asks
    for them the chunk's JSON Lines (``lines``, a line per outcome: :func:`json_line`),
    made in the worker so that the caller writes them as they are."""

    outcomes: list[Outcome]
    lines: str = ""

    def lines_to(self, count: int) -> str:
        """The JSON Lines of the first ``count`` outcomes."""
        end = 0
        for _ in range(count):
            end = self.lines.index("\n", end) + 1
        return self.lines[:end]


FIELD = {"decode": "value", "inspect": "map"}
"""The field of a JSON line that holds an action's output (``"report"`` for verify)."""


def json_line(outcome: Outcome, action: str) -> str:
    """The JSON line of ``outcome``: ``{"key": KEY, "value": ...}`` for decode (``"map"``
    for inspect, ``"report"`` for verify), ``{"key", "error", "offset", "path"}`` for a
    failure; with ``"notes"`` when it gave notes."""
    head = '{"key":' + json.dumps(outcome.key)
    if outcome.error is not None:
        line = head + "," + json.dumps({"error": outcome.error, "offset": outcome.offset,
                                         "path": outcome.path}, separators=(",", ":"))[1:-1]
    elif action in FIELD:
        assert isinstance(outcome.output, str)
        line = f'{head},"{FIELD[action]}":{outcome.output}'
    else:
        line = f'{head},"report":{json.dumps(outcome.output)}'
    if outcome.notes:
        line += ',"notes":' + json.dumps(outcome.notes, separators=(",", ":"))
    return line + "}\n"


_CODECS: dict[str, Codec] = {}


def codec_for(spec: Spec, item: Item) -> Codec:
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


@dataclass(frozen=True)
class Task:
    """What a batch does to each of its chunks, as plain data that pickles: the ``action``
    with the codec of ``spec`` (for convert, ``to`` writes); ``strict`` makes a note a
    failure; ``output``: outcomes carry their output (for a mirror tree or the caller);
    ``lines``: the chunk's JSON Lines are made; ``parquet``: where the chunk's Parquet part
    goes."""

    action: str
    spec: Spec
    to: Spec | None = None
    strict: bool = False
    output: bool = True
    lines: bool = False
    parquet: Target | None = None

    @property
    def text(self) -> bool:
        """Whether a decode must make its JSON text (for outcomes or JSON Lines)."""
        return self.output or self.lines


def run_chunk(task: Task, chunk: list[Item], index: int = 0) -> Done:
    """``task`` on every input of ``chunk``, the ``index``-th chunk of its batch (which
    numbers its Parquet part)."""
    out = []
    tables = _Tables(task) if task.parquet is not None else None
    for item in chunk:
        try:
            reader = codec_for(task.spec, item)
            writer = codec_for(task.to, item) if task.to is not None else None
        except GameserdeError as e:
            out.append(Outcome(item.key, item.size, error=str(e)))
            continue
        out.append(_one(task, reader, writer, item, tables))
    if tables is not None and task.parquet is not None:
        write_part(task.parquet, index, tables.build(out))
    done = Done(out)
    if task.lines:
        done.lines = "".join([json_line(outcome, task.action) for outcome in out])
    if not task.output:
        for outcome in out:
            outcome.output = None
    return done


def _one(task: Task, reader: Codec, writer: Codec | None, item: Item,
         tables: _Tables | None) -> Outcome:
    if item.error is not None:
        return Outcome(item.key, item.size, error=item.error)
    try:
        data = item.read()
    except OSError as e:
        return Outcome(item.key, 0, error=e.strerror or str(e))
    except GameserdeError as e:  # a member of an archive that does not inflate or check
        return Outcome(item.key, item.size, error=str(e), offset=getattr(e, "offset", None))
    outcome = Outcome(item.key, len(data))
    with warnings.catch_warnings(record=True) as noted:
        warnings.simplefilter("error" if task.strict else "always", GameserdeWarning)
        try:
            outcome.output = _act(task.action, reader, writer, data, tables, outcome)
        except GameserdeError as e:
            outcome.error = str(e)
            outcome.offset = getattr(e, "offset", None)
            outcome.path = getattr(e, "path", None)
        except GameserdeWarning as e:
            outcome.error = f"{e} (strict)"
    outcome.notes = tuple(str(w.message) for w in noted
                          if issubclass(w.category, GameserdeWarning))
    if outcome.error is not None and tables is not None:
        tables.drop(outcome)
    return outcome


def _act(action: str, reader: Codec, writer: Codec | None, data: bytes,
         tables: _Tables | None, outcome: Outcome) -> str | bytes:
    if action == "decode":
        if tables is not None:
            return tables.decoded(reader, data, outcome)
        return reader.to_json(data).rstrip("\n")
    if action == "verify":
        return reader.verify(data)
    if action == "convert":
        assert writer is not None
        return reader.convert(data, writer)
    byte_map = reader.inspect(data)
    if byte_map.error is not None:
        raise byte_map.error
    mapped = byte_map.to_jsonable()
    if tables is not None:
        tables.regions(outcome, mapped["rows"])
    return json.dumps(mapped, separators=(",", ":"))


class _Tables:
    """The rows a chunk puts in Parquet, by table, until :meth:`build` makes its tables."""

    def __init__(self, task: Task) -> None:
        assert task.parquet is not None
        self.task = task
        self.enums = task.parquet.enums
        self.rows: dict[str, tuple[list[Outcome], list[Row]]] = {}
        self.texts: tuple[list[Outcome], list[str]] = ([], [])
        self.mapped: list[tuple[Outcome, dict[str, Any]]] = []

    def decoded(self, reader: Codec, data: bytes, outcome: Outcome) -> str:
        """Decode ``data`` into a row (or, for a format without a schema, its JSON text);
        return the JSON text when the outcome carries it."""
        row = None if type(reader).to_row is Codec.to_row else reader.to_row(
            reader.decode(data))
        if row is None or row.type is None:
            text = (reader.to_json(data).rstrip("\n") if row is None or self.task.text
                    else "")
            self.texts[0].append(outcome)
            self.texts[1].append(text if row is None else json_text(row.value))
            return text
        owners, rows = self.rows.setdefault(row.name, ([], []))
        owners.append(outcome)
        rows.append(row)
        return reader.to_json(data).rstrip("\n") if self.task.text else ""

    def regions(self, outcome: Outcome, rows: list[dict[str, Any]]) -> None:
        self.mapped.extend((outcome, row) for row in rows)

    def drop(self, outcome: Outcome) -> None:
        """Leave out the rows of an input that failed after giving them."""
        for owners, rows in self.rows.values():
            while owners and owners[-1] is outcome:
                owners.pop()
                rows.pop()
        while self.texts[0] and self.texts[0][-1] is outcome:
            self.texts[0].pop()
            self.texts[1].pop()
        while self.mapped and self.mapped[-1][0] is outcome:
            self.mapped.pop()

    def build(self, outcomes: list[Outcome]) -> dict[str, Any]:
        """The chunk's tables by name. Rows Arrow refuses (a value its column's type cannot
        hold) fail their inputs, with the reason; the others are kept."""
        action = self.task.action
        if action == "verify":
            return {"verify": verify_table(outcomes)}
        if action == "inspect":
            return {"inspect": inspect_table(self.mapped)} if self.mapped else {}
        tables: dict[str, Any] = {}
        if self.texts[0]:
            tables["value"] = json_table([o.key for o in self.texts[0]], self.texts[1])
        for name, (owners, rows) in self.rows.items():
            tables[name] = self._table(owners, rows)
        return {name: table for name, table in tables.items() if table is not None}

    def _table(self, owners: list[Outcome], rows: list[Row]) -> Any:
        try:
            return table_of([o.key for o in owners], rows, enums=self.enums)
        except (ArithmeticError, TypeError, ValueError, LookupError, RecursionError) as e:
            if len(rows) == 1:
                owners[0].error = ("the decoded value nests too deep for its Parquet columns"
                                   if isinstance(e, RecursionError) else
                                   f"the decoded value does not fit its Parquet columns: {e}")
                owners[0].output = None
                return None
        kept_owners, kept_rows = [], []
        for owner, row in zip(owners, rows, strict=True):
            if self._table([owner], [row]) is not None:
                kept_owners.append(owner)
                kept_rows.append(row)
        return table_of([o.key for o in kept_owners], kept_rows, enums=self.enums) \
            if kept_rows else None
