"""Where a batch writes: JSON Lines (one line per input, with its key) and a mirror tree (the
same relative paths under an output folder). Each is written whole or not at all: JSON Lines
go to a temporary file renamed at the end, each mirrored file to a temporary file renamed
when complete."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import TextIO

from gameserde.batch.work import Outcome
from gameserde.errors import UsageError

__all__ = ["JsonLines", "Mirror"]


class JsonLines:
    """The JSON Lines of a batch (each chunk's, made in its worker:
    :func:`~gameserde.batch.work.json_line`), in input order, written to a file (``path``)
    or to standard output (``None``)."""

    def __init__(self, path: str | os.PathLike[str] | None, action: str) -> None:
        if action == "convert":
            raise UsageError("convert writes files (-o DIR), not JSON Lines")
        self.path = None if path is None else Path(path)
        self.partial: str | None = None
        if self.path is None:  # standard output, chunk by chunk
            self.out: TextIO = sys.stdout
            return
        fd, self.partial = tempfile.mkstemp(prefix=f".{self.path.name}.",
                                            dir=self.path.parent or ".")
        self.out = os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape")

    def write(self, lines: str) -> None:
        self.out.write(lines)

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
