"""What a batch reads: inputs named by paths, globs and directories (walked recursively), or
given as ``(key, bytes)`` records (rows of a table, members of an archive), in a stable order
and lazily, in chunks of a bounded size so that small files do not drown in scheduling."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Item", "chunks", "items"]

GLOB_CHARACTERS = frozenset("*?[")


@dataclass(frozen=True)
class Item:
    """One input: its ``key`` (the path as named, or below the directory named; a record's
    own key), and its ``path`` to read in the worker, or its ``data`` when given."""

    key: str
    path: str | None = None
    data: bytes | None = None

    @property
    def size(self) -> int:
        """Its size in bytes (a file's, as the file system says; 0 when it cannot be read,
        which the worker then reports)."""
        if self.data is not None:
            return len(self.data)
        try:
            return os.stat(self.path or "").st_size
        except OSError:
            return 0

    def read(self) -> bytes:
        """Its bytes: the data given, or the file's (an :class:`OSError` when it cannot be
        read)."""
        if self.data is not None:
            return self.data
        with open(self.path or "", "rb") as f:
            return f.read()


Source = str | os.PathLike[str] | tuple[str, bytes]


def items(inputs: Iterable[Source], *, recursive: bool = True) -> Iterator[Item]:
    """The inputs one by one, lazily: a ``(key, bytes)`` record as it is; a directory's files
    in sorted order (its subdirectories too when ``recursive``), keyed by their path below it;
    a glob's matches in sorted order (``**`` spans directories); any other path as a file."""
    for source in inputs:
        if isinstance(source, tuple):
            key, data = source
            yield Item(str(key), data=bytes(data))
            continue
        name = os.fspath(source)
        if os.path.isdir(name):
            yield from _directory(name, recursive)
        elif GLOB_CHARACTERS & set(name):
            for match in sorted(glob.iglob(name, recursive=True)):
                if os.path.isfile(match):
                    yield Item(match, path=match)
        else:
            yield Item(name, path=name)


def _directory(root: str, recursive: bool) -> Iterator[Item]:
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        if not recursive:
            subfolders.clear()
        below = Path(os.path.relpath(folder, root)).as_posix()  # once per folder, not file
        prefix = "" if below == "." else below + "/"
        here = os.path.join(folder, "")  # the folder with its separator, joined once
        for name in sorted(files):
            yield Item(prefix + name, path=here + name)


def chunks(found: Iterable[Item], *, max_bytes: int = 1 << 22,
           max_items: int = 512) -> Iterator[list[Item]]:
    """``found`` in consecutive chunks of at most ``max_items`` inputs and, unless one input
    is larger alone, ``max_bytes`` bytes: the unit of work a worker gets."""
    chunk: list[Item] = []
    size = 0
    for item in found:
        item_size = item.size
        if chunk and (len(chunk) >= max_items or size + item_size > max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(item)
        size += item_size
    if chunk:
        yield chunk
