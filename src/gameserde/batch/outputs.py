"""Where a batch writes: JSON Lines (one line per input, with its key) and a mirror tree (the
same relative paths under an output folder). Each is written whole or not at all: JSON Lines
go to a temporary file renamed at the end, each mirrored file to a temporary file renamed
when complete."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import TextIO

from gameserde.batch.work import Outcome
from gameserde.errors import UsageError

__all__ = ["JsonLines", "Mirror"]


class JsonLines:
    """``{"key": KEY, "value": ...}`` per decoded input (``"report"`` for verify, ``"map"``
    for inspect; failures as ``{"key", "error", "offset", "path"}``), one per line, in input
    order; notes add ``"notes"``. Written to a file (``path``) or to standard output
    (``None``)."""

    FIELD = {"decode": "value", "inspect": "map"}

    def __init__(self, path: str | os.PathLike[str] | None, action: str) -> None:
        if action == "convert":
            raise UsageError("convert writes files (-o DIR), not JSON Lines")
        self.action = action
        self.path = None if path is None else Path(path)
        self.partial: str | None = None
        if self.path is None:  # standard output, line by line
            self.out: TextIO = sys.stdout
            return
        fd, self.partial = tempfile.mkstemp(prefix=f".{self.path.name}.",
                                            dir=self.path.parent or ".")
        self.out = os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape")

    def write(self, outcome: Outcome) -> None:
        head = '{"key":' + json.dumps(outcome.key)
        if outcome.error is not None:
            line = head + "," + json.dumps({"error": outcome.error, "offset": outcome.offset,
                                             "path": outcome.path}, separators=(",", ":"))[1:-1]
        elif self.action in self.FIELD:
            assert isinstance(outcome.output, str)
            line = f'{head},"{self.FIELD[self.action]}":{outcome.output}'
        else:
            line = f'{head},"report":{json.dumps(outcome.output)}'
        if outcome.notes:
            line += ',"notes":' + json.dumps(outcome.notes, separators=(",", ":"))
        self.out.write(line + "}\n")

    def close(self, keep: bool) -> None:
        """Finish: the file appears whole (``keep``), or the partial one is removed."""
        if self.path is None or self.partial is None:
            self.out.flush()
            return
        self.out.close()
        if keep:
            os.replace(self.partial, self.path)
        else:
            os.unlink(self.partial)


class Mirror:
    """One output file per input under ``root``, at the input's relative path: decode and
    inspect add ``.json`` and ``.map.json``; convert keeps the name."""

    SUFFIX = {"decode": ".json", "inspect": ".map.json", "convert": ""}

    def __init__(self, root: str | os.PathLike[str], action: str) -> None:
        if action not in self.SUFFIX:
            raise UsageError(f"{action} writes no files (use JSON Lines for its reports)")
        self.root = Path(root)
        self.suffix = self.SUFFIX[action]

    def write(self, outcome: Outcome) -> None:
        if outcome.output is None:
            return
        relative = PurePosixPath(outcome.key.replace("\\", "/"))
        if relative.is_absolute() or ".." in relative.parts:  # never outside the folder
            relative = PurePosixPath(*[p for p in relative.parts if p not in ("/", "..")])
        target = self.root / (str(relative) + self.suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (outcome.output.encode("utf-8", "surrogateescape")
                if isinstance(outcome.output, str) else outcome.output)
        fd, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(partial, target)
