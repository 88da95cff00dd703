"""What a batch reads: inputs named by paths, globs and directories (walked recursively), or
given as ``(key, bytes)`` records (rows of a table, members of an archive), in a stable order
and lazily, in chunks of a bounded size so that small files do not drown in scheduling.

A KingsIsle archive (a file named ``*.wad`` that starts with ``KIWAD``) is a source of
records: each member is an input keyed ``ARCHIVE/member/path``, read (memory-mapped,
inflated, CRC-checked) in the worker that takes it."""

from __future__ import annotations

import glob
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gameserde.kingsisle.wad import WadArchive

__all__ = ["MAX_BYTES", "MAX_ITEMS", "Item", "chunks", "items"]

GLOB_CHARACTERS = frozenset("*?[")

MAX_BYTES = 1 << 22
MAX_ITEMS = 512
"""A chunk's most bytes and inputs: enough that a worker spends far longer on a chunk than
on receiving it, few enough that memory stays small and the work spreads."""


@dataclass(frozen=True)
class Item:
    """One input: its ``key`` (the path as named, or below the directory named; a record's
    own key), and its ``path`` to read in the worker, or its ``data`` when given; for a
    member of the KingsIsle archive at ``path``, its name (``member``) and inflated size;
    ``error``: why the input fails before it is read (an archive whose file table cannot be
    read, a member name that cannot be a path)."""

    key: str
    path: str | None = None
    data: bytes | None = None
    member: str | None = None
    member_size: int = 0
    error: str | None = None

    @property
    def size(self) -> int:
        """Its size in bytes (a file's, as the file system says; 0 when it cannot be read,
        which the worker then reports)."""
        if self.data is not None:
            return len(self.data)
        if self.member is not None:
            return self.member_size
        try:
            return os.stat(self.path or "").st_size
        except OSError:
            return 0

    def read(self) -> bytes:
        """Its bytes: the data given, or the file's (an :class:`OSError` when it cannot be
        read)."""
        if self.data is not None:
            return self.data
        if self.member is not None:
            return _archive(self.path or "")[self.member]
        with open(self.path or "", "rb") as f:
            return f.read()


_ARCHIVES: dict[tuple[str, int, int], WadArchive] = {}
"""The archives this process has open (at most :data:`_KEEP_OPEN`), by path, size and
modification time: a worker opens an archive once for all the members it reads."""
_KEEP_OPEN = 4


def _archive(path: str) -> WadArchive:
    from gameserde.kingsisle.wad import open_wad

    status = os.stat(path)
    key = (path, status.st_size, status.st_mtime_ns)
    found = _ARCHIVES.get(key)
    if found is None:
        while len(_ARCHIVES) >= _KEEP_OPEN:
            _ARCHIVES.pop(next(iter(_ARCHIVES))).close()
        found = _ARCHIVES[key] = open_wad(path)
    return found


def _is_archive(name: str) -> bool:
    """Whether the file ``name`` is a KingsIsle archive: named ``*.wad``, starting with
    ``KIWAD`` (Doom's WADs, and files that cannot be read, stay plain inputs)."""
    if not name.lower().endswith(".wad"):
        return False
    try:
        with open(name, "rb") as f:
            return f.read(5) == b"KIWAD"
    except OSError:
        return False


def _members(key: str, path: str) -> Iterator[Item]:
    """The members of the archive at ``path`` as inputs keyed ``KEY/name``, in name order;
    an archive whose table cannot be read is one failing input."""
    from gameserde.errors import GameserdeError
    from gameserde.kingsisle.wad import open_wad, safe_member_path

    try:
        with open_wad(path) as wad:
            entries = wad.entries()
    except (GameserdeError, OSError) as e:
        yield Item(key, path=path, error=str(e))
        return
    for entry in entries:
        reason = safe_member_path(entry.name)
        yield Item(f"{key}/{entry.name}", path=path, member=entry.name,
                   member_size=entry.size,
                   error=None if reason is None else f"not read: {reason}")


Source = str | os.PathLike[str] | tuple[str, bytes]


def items(inputs: Iterable[Source], *, recursive: bool = True) -> Iterator[Item]:
    """The inputs one by one, lazily: a ``(key, bytes)`` record as it is; a directory's files
    in sorted order (its subdirectories too when ``recursive``), keyed by their path below it;
    a glob's matches in sorted order (``**`` spans directories); any other path as a file;
    and in each case, a KingsIsle archive as its members (keyed ``ARCHIVE/member``)."""
    for source in inputs:
        if isinstance(source, tuple):
            key, data = source
            yield Item(str(key), data=bytes(data))
            continue
        name = os.fspath(source)
        if os.path.isdir(name):
            found: Iterable[Item] = _directory(name, recursive)
        elif GLOB_CHARACTERS & set(name):
            found = (Item(match, path=match)
                     for match in sorted(glob.iglob(name, recursive=True))
                     if os.path.isfile(match))
        else:
            found = (Item(name, path=name),)
        for item in found:
            if item.path is not None and _is_archive(item.path):
                yield from _members(item.key, item.path)
            else:
                yield item


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


def chunks(found: Iterable[Item], *, max_bytes: int = MAX_BYTES, max_items: int = MAX_ITEMS,
           workers: int | None = None, least: int = 32) -> Iterator[list[Item]]:
    """``found`` in consecutive chunks of at most ``max_items`` inputs and, unless one input
    is larger alone, ``max_bytes`` bytes: the unit of work a worker gets.

    For a batch that hands chunks to ``workers`` as they come, chunks start small, so that
    every worker starts at once, and double (from ``least`` inputs, once per round of the
    workers) up to the full size; and the last ones shrink, so that the workers finish
    together rather than one working through a full chunk while the others wait. To see the
    end coming, the inputs are looked ahead of by ``workers`` chunks of the current size (their
    names and sizes; the data of ``(key, bytes)`` records, up to ``workers + 1`` times
    ``max_bytes``)."""
    source = iter(found)
    if workers is None:
        yield from _fixed(source, max_bytes, max_items)
        return
    ahead: deque[tuple[Item, int]] = deque()
    ahead_bytes = 0
    ended = False
    index = 0
    while True:
        cap = min(max_items, least << min(index // workers, 16))
        while not ended and (len(ahead) < (workers + 1) * cap
                             and ahead_bytes < (workers + 1) * max_bytes):
            item = next(source, None)
            if item is None:
                ended = True
                break
            item_size = item.size
            ahead.append((item, item_size))
            ahead_bytes += item_size
        if not ahead:
            return
        if ended:  # the rest in shrinking shares: each worker about two more chunks
            cap = min(cap, max(least, -(-len(ahead) // (2 * workers))))
        chunk: list[Item] = []
        size = 0
        while ahead and len(chunk) < cap and (not chunk or size + ahead[0][1] <= max_bytes):
            item, item_size = ahead.popleft()
            chunk.append(item)
            size += item_size
            ahead_bytes -= item_size
        index += 1
        yield chunk


def _fixed(found: Iterator[Item], max_bytes: int, max_items: int) -> Iterator[list[Item]]:
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
