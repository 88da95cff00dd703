"""KIWAD archives: the ``.wad`` files Wizard101 and Pirate101 ship their game data in.

Layout, little-endian: ``"KIWAD"``, u32 version, u32 member count, one flags byte when the
version is 2 or more, then the file table, one entry per member: u32 offset of its data in
the archive, u32 size (inflated), u32 compressed size (``0xFFFFFFFF`` for a stored member),
u8 compressed flag, u32 CRC, u32 length of the name counting its NUL, the name in UTF-8 and a
NUL. The members' data follows. The CRC is KingsIsle's CRC-32 of the bytes as stored (the
zlib data of a compressed member): :func:`crc` is ``zlib.crc32(data, 0xFFFFFFFF) ^
0xFFFFFFFF``. The game's archives (and katsuba's) list members by name, sorted, with their
data in the same order and no padding; compressed members are zlib at level 9.

:func:`open_wad` maps the archive into memory (:mod:`mmap`) and reads the header and the
table only; a member is read, inflated and checked when it is asked for. Hostile archives
raise :class:`~gameserde.errors.DecodeError` (``offset``: where in the archive; ``path``:
``$["member name"]``): a table that does not fit, members outside the file or overlapping
(katsuba's checks when it opens one), names that are not UTF-8 or lack their NUL, zlib data
that does not inflate to exactly its declared size, a declared size above ``max_expansion``
(:data:`WAD_MAX_EXPANSION`) times the member's compressed size plus 4,096 bytes, and a CRC
that does not match (or, with ``check_crc=False``, a
:class:`~gameserde.errors.GameserdeWarning`). :meth:`WadArchive.extract` refuses names that
would leave the output folder.
"""

from __future__ import annotations

import importlib
import itertools
import mmap
import os
import re
import stat
import struct
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from gameserde._expansion import check_factor, exceeded, expansion_limit
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeWarning,
    UnknownNameError,
    UsageError,
)
from gameserde.kingsisle.serializer import INFLATE_SLACK

__all__ = ["STORED_EXTENSIONS", "WAD_MAGIC", "WAD_MAX_EXPANSION", "WadArchive", "WadEntry",
           "crc", "glob_regex", "is_wad", "open_wad", "safe_member_path", "stores",
           "write_wad"]

WAD_MAGIC = b"KIWAD"
"""The first five bytes of every KIWAD archive."""

STORED_EXTENSIONS = frozenset({"mp3", "ogg"})
"""The file extensions :func:`write_wad` stores rather than compresses by default (sound
that zlib cannot shrink; katsuba's builder and the game's archives do the same)."""

WAD_MAX_EXPANSION = 1032.0
"""The default ``max_expansion`` of archives: deflate's utmost ratio (a 258-byte match in
two bits), so a member is refused only when its zlib data could not inflate to the size it
declares, before anything is inflated. A member is a file handed back whole, as a Godot
``RSCC`` file is (``max_ratio`` 1024), not a stream decoded into values, which is why this is
not the 32 of :data:`gameserde.kingsisle.MAX_EXPANSION`; pass 32 to bound what untrusted
archives may make you hold."""

STORED = 0xFFFFFFFF
"""The compressed size a stored member's entry carries."""

libdeflate: Any
"""The ``deflate`` package (libdeflate, the ``fast`` extra) when installed, else None: it
inflates a member whose size the table gives in one call, about three times as fast as
:mod:`zlib`. On any failure the member is inflated again with :mod:`zlib`, which says what is
wrong with it, so results and errors are the same either way (tests run both)."""
try:
    libdeflate = importlib.import_module("deflate")
except ImportError:
    libdeflate = None

_ENTRY = struct.Struct("<IIIBII")
_U32 = struct.Struct("<I")
_DRIVE = re.compile(r"[A-Za-z]:")


def crc(data: bytes | bytearray | memoryview) -> int:
    """KingsIsle's CRC-32 of ``data``, as a KIWAD table holds it: zlib's CRC-32 started
    from ``0xFFFFFFFF`` (so that its register starts at 0) and not inverted at the end."""
    return zlib.crc32(data, 0xFFFFFFFF) ^ 0xFFFFFFFF


def is_wad(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` starts as a KIWAD archive does."""
    return bytes(data[:5]) == WAD_MAGIC


def stores(name: str, data: bytes) -> bool:
    """The default rule of :func:`write_wad`: store a member whose extension is in
    :data:`STORED_EXTENSIONS`, compress the others."""
    return name.rpartition(".")[2].lower() in STORED_EXTENSIONS


@dataclass(frozen=True, slots=True)
class WadEntry:
    """One member's entry in the file table: the ``offset`` of its data in the archive, its
    ``size`` (inflated), ``compressed_size`` (``0xFFFFFFFF`` for a stored member), whether it
    is ``compressed``, and the ``crc`` of its bytes as stored."""

    name: str
    offset: int
    size: int
    compressed_size: int
    compressed: bool
    crc: int

    @property
    def stored_size(self) -> int:
        """The bytes the member takes in the archive."""
        return self.compressed_size if self.compressed else self.size


def _fail(message: str, offset: int | None, name: str | None = None) -> DecodeError:
    path = "$" if name is None else f"$[{_quote(name)}]"
    return DecodeError(message, offset=offset, path=path, format="kiwad")


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def safe_member_path(name: str) -> str | None:
    """Why extracting the member ``name`` could write outside the output folder (or cannot
    be written as a file at all), or None when it is a plain relative path of ``/``-separated
    parts: not empty, no NUL, no backslash, not absolute, no drive letter, no empty, ``.``
    or ``..`` part, no part longer than 255 bytes."""
    if not name:
        return "its name is empty"
    if "\0" in name:
        return "its name holds a NUL character"
    if "\\" in name:
        return "its name holds a backslash"
    if name.startswith("/"):
        return "its name is an absolute path"
    if _DRIVE.match(name):
        return "its name starts with a drive letter"
    for part in name.split("/"):
        if part in ("", ".", ".."):
            return f"its name has a part {part!r}" if part else "its name has an empty part"
        if len(part.encode("utf-8", "surrogatepass")) > 255:
            return "its name has a part longer than the 255 bytes file systems take"
    return None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """The regular expression of a glob as katsuba matches member names (the ``globset``
    crate's defaults): ``*`` any characters, ``/`` included; ``?`` any one; ``**`` as a whole
    part any number of folders (``**/x`` matches ``x`` too); ``[abc]``, ``[a-z]``, ``[!a]``
    sets; ``{a,b}`` either; ``\\`` escapes. A :class:`UsageError` for an unclosed ``[`` or
    ``{``."""
    try:
        return re.compile(_glob_part(pattern, False), re.DOTALL)
    except re.error as e:
        raise UsageError(f"not a glob: {pattern!r} ({e})") from None


def _glob_part(pattern: str, inside: bool) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if pattern.startswith("*", i) and (i == 1 or pattern[i - 2] == "/"):
                if i + 1 == n:
                    out.append(".*")
                    i += 1
                    continue
                if pattern[i + 1] == "/":
                    out.append("(?:.*/)?")
                    i += 2
                    continue
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "\\" and i < n:
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            close = pattern.find("]", i + 1 if pattern.startswith(("!", "^"), i) else i)
            if pattern.startswith("]", i) or pattern.startswith(("!]", "^]"), i):
                close = pattern.find("]", close + 1)
            if close < 0:
                raise UsageError(f"not a glob: {pattern!r} (a [ is not closed)")
            body = pattern[i:close]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\")
                       .replace("[", "\\[") + "]")
            i = close + 1
        elif c == "{" and not inside:
            close = pattern.find("}", i)
            if close < 0:
                raise UsageError(f"not a glob: {pattern!r} (a {{ is not closed)")
            choices = pattern[i:close].split(",")
            out.append("(?:" + "|".join(_glob_part(x, True) for x in choices) + ")")
            i = close + 1
        else:
            out.append(re.escape(c))
    return "".join(out)


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _write_file(path: str, data: bytes) -> None:
    """Write ``data`` to the file ``path``; a symbolic link there is replaced, not followed."""
    if not _NOFOLLOW and os.path.islink(path):
        os.unlink(path)
    try:
        fd = os.open(path, _CREATE | _NOFOLLOW, 0o666)
    except OSError:
        if not (_NOFOLLOW and os.path.islink(path)):
            raise
        os.unlink(path)
        fd = os.open(path, _CREATE | _NOFOLLOW, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


class WadArchive:
    """A KIWAD archive opened by :func:`open_wad`: a mapping of member names (sorted) to
    their bytes, inflated and checked as they are read. A context manager: ``close`` (or
    leaving the ``with`` block) unmaps the file."""

    def __init__(self, source: str | os.PathLike[str] | bytes | bytearray | memoryview, *,
                 check_crc: bool = True, max_expansion: float | None = WAD_MAX_EXPANSION) -> None:
        try:
            self.max_expansion = check_factor(max_expansion)
        except ValueError as e:
            raise UsageError(str(e)) from None
        self.check_crc = check_crc
        self._file: Any = None
        self._data: Any
        if isinstance(source, bytes | bytearray | memoryview):
            self._data = bytes(source)
            self.path: str | None = None
        elif isinstance(source, str | os.PathLike):
            self.path = os.fspath(source)
            self._file = open(self.path, "rb")  # noqa: SIM115 - kept open while mapped
            try:
                size = os.fstat(self._file.fileno()).st_size
                self._data = (mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
                              if size else b"")
            except BaseException:
                self._file.close()
                raise
        else:
            raise UsageError("open_wad takes a path or the archive's bytes, not "
                             f"{type(source).__name__}")
        self._closed = False
        self.version = 0
        """The archive's format version (1 or 2 in the game's archives)."""
        self.flags: int | None = None
        """The header's flags byte (version 2 and later), else None."""
        try:
            self._entries = self._read_table()
        except BaseException:
            self.close()
            raise

    def _read_table(self) -> dict[str, WadEntry]:
        data = self._data
        end = len(data)
        if data[:5] != WAD_MAGIC[:min(end, 5)]:
            raise _fail("not a KIWAD archive (it does not start with 'KIWAD')", 0)
        if end < 13:
            raise _fail(f"a KIWAD header needs 13 bytes but the file has {end}", end)
        self.version, count = struct.unpack_from("<II", data, 5)
        pos = 13
        if self.version >= 2:
            if end < 14:
                raise _fail(f"a version {self.version} header needs 14 bytes (the flags byte) "
                            f"but the file has {end}", end)
            self.flags = data[13]
            pos = 14
        most = (end - pos) // _ENTRY.size  # an entry with an empty name: 21 bytes
        if count > most:
            raise _fail(f"the file table says {count} members but the {end - pos} bytes after "
                        f"the header hold at most {most} entries", 9)
        entries: dict[str, WadEntry] = {}
        unpack = _ENTRY.unpack_from
        for _ in range(count):
            if end - pos < _ENTRY.size:
                raise _fail(f"a file table entry needs {_ENTRY.size} bytes but only "
                            f"{end - pos} are left", pos)
            offset, size, csize, compressed, stored_crc, length = unpack(data, pos)
            start = pos + _ENTRY.size
            if length > end - start:
                raise _fail(f"a member name of {length} bytes runs past the end of the file "
                            f"({end - start} bytes left)", start - 4)
            raw = bytes(data[start:start + length])
            if length and raw[-1] != 0:
                raise _fail("a member name does not end with its NUL", start + length - 1)
            try:
                name = raw[:-1].decode("utf-8") if length else ""
            except UnicodeDecodeError as e:
                raise _fail(f"a member name is not UTF-8 ({e.reason} at its byte {e.start})",
                            start + e.start) from None
            entry = WadEntry(name, offset, size, csize, compressed != 0, stored_crc)
            stored = entry.stored_size
            if offset + stored > end:
                raise _fail(f"its {stored} bytes at offset {offset} run past the end of the "
                            f"{end}-byte archive", pos, name)
            entries[name] = entry  # a later entry of the same name wins, as in katsuba
            pos = start + length
        ranges = sorted((e.offset, e.offset + e.stored_size, e.name)
                        for e in entries.values() if e.stored_size)
        for (_, first_end, first), (second_start, _, second) in itertools.pairwise(ranges):
            if second_start < first_end:
                raise _fail(f"its data overlaps the data of {_quote(first)} (at offset "
                            f"{second_start}, before {first_end})", second_start, second)
        return dict(sorted(entries.items()))

    # -- the mapping ---------------------------------------------------------------------

    def _live(self) -> None:
        if self._closed:
            raise UsageError("the archive is closed")

    def names(self) -> list[str]:
        """The members' names, sorted (by code point, as katsuba sorts them)."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def info(self, name: str) -> WadEntry:
        """The table entry of the member ``name``; an :class:`UnknownNameError` (a
        ``KeyError``) when the archive has none."""
        entry = self._entries.get(name)
        if entry is None:
            raise UnknownNameError(f"the archive has no member {_quote(name)}")
        return entry

    def entries(self) -> list[WadEntry]:
        """Every member's table entry, sorted by name."""
        return list(self._entries.values())

    def glob(self, pattern: str) -> list[str]:
        """The names matching the glob ``pattern`` (:func:`glob_regex`), sorted."""
        match = glob_regex(pattern).fullmatch
        return [name for name in self._entries if match(name)]

    def raw(self, name: str) -> bytes:
        """The member's bytes as stored (its zlib data when it is compressed)."""
        self._live()
        entry = self.info(name)
        return bytes(self._data[entry.offset:entry.offset + entry.stored_size])

    def __getitem__(self, name: str) -> bytes:
        """The member's bytes, inflated when compressed, after its CRC is checked."""
        entry = self.info(name)
        stored = self.raw(name)
        if crc(stored) != entry.crc:
            zeros = stored.count(0) == len(stored)
            message = (f"its CRC is 0x{crc(stored):08x}, not the 0x{entry.crc:08x} the table "
                       "says" + (" (its data is all zero bytes: a placeholder the game's "
                                 "patcher has not filled)" if zeros and stored else ""))
            if self.check_crc:
                raise _fail(message + "; check_crc=False reads it all the same",
                            entry.offset, name)
            warnings.warn(f"kiwad member {_quote(name)}: {message}", GameserdeWarning,
                          stacklevel=2)
        if not entry.compressed:
            return stored
        return self._inflate(entry, stored)

    def _inflate(self, entry: WadEntry, stored: bytes) -> bytes:
        name, size = entry.name, entry.size
        limit = expansion_limit(entry.compressed_size, self.max_expansion, INFLATE_SLACK)
        if size > limit:
            raise _fail(exceeded(f"the member says it inflates to {size} bytes", limit,
                                 entry.compressed_size, self.max_expansion),
                        entry.offset, name)
        if libdeflate is not None:
            try:
                fast: bytes = libdeflate.zlib_decompress(stored, size)
            except (libdeflate.DeflateError, ValueError, OverflowError):
                pass  # zlib below says what is wrong
            else:
                if len(fast) == size:
                    return fast
        inflater = zlib.decompressobj()
        try:
            out = inflater.decompress(stored, size + 1)
        except zlib.error as e:
            raise _fail(f"its zlib data is damaged ({e})", entry.offset, name) from None
        if len(out) > size:
            raise _fail(f"its zlib data inflates to more than the {size} bytes the table "
                        "says", entry.offset, name)
        if not inflater.eof:
            raise _fail(f"its zlib data ends early (after {len(out)} of {size} bytes)",
                        entry.offset, name)
        if len(out) != size:
            raise _fail(f"its zlib data inflates to {len(out)} bytes, not the {size} the "
                        "table says", entry.offset, name)
        return out

    def items(self) -> Iterator[tuple[str, bytes]]:
        """``(name, bytes)`` of every member, in name order, read one at a time."""
        for name in self._entries:
            yield name, self[name]

    def extract(self, directory: str | os.PathLike[str],
                names: Iterable[str] | None = None) -> list[str]:
        """Write the members ``names`` (default: all) under ``directory`` at their paths,
        folders made as needed, and return the names written. Every name is checked before
        anything is written: one that could leave the folder (:func:`safe_member_path`), or
        that is both a file and the folder of another, raises a :class:`DecodeError`
        naming it, and nothing is written; so does a folder on the way that is a symbolic
        link or a file. A member that cannot be read (its CRC, its zlib data) raises its
        :class:`DecodeError` then, the members before it (in name order) written. A symbolic
        link where a member goes is replaced, never followed."""
        self._live()
        chosen = list(self._entries) if names is None else [self.info(n).name for n in names]
        chosen_set = set(chosen)
        for name in chosen:
            reason = safe_member_path(name)
            if reason is not None:
                raise _fail(f"refusing to extract it: {reason}", self.info(name).offset, name)
        for name in chosen:
            parts = name.split("/")
            for i in range(1, len(parts)):
                folder = "/".join(parts[:i])
                if folder in chosen_set:
                    raise _fail(f"refusing to extract it: {_quote(folder)} is a member too, "
                                "so it cannot also be a folder", self.info(name).offset, name)
        root = os.fspath(directory)
        os.makedirs(root, exist_ok=True)
        made: set[str] = {""}
        targets = []
        for name in chosen:
            folder, _, _ = name.rpartition("/")
            if folder not in made:
                self._make_folders(root, folder, made, name)
            targets.append(os.path.join(root, *name.split("/")))
        for name, target in zip(chosen, targets, strict=True):
            _write_file(target, self[name])
        return chosen

    def _make_folders(self, root: str, folder: str, made: set[str], name: str) -> None:
        """Make ``folder`` (a member's, ``/``-separated) under ``root`` part by part, refusing
        a part that exists as a symbolic link or a file before going through it."""
        parts = folder.split("/")
        for i in range(1, len(parts) + 1):
            below = "/".join(parts[:i])
            if below in made:
                continue
            path = os.path.join(root, *parts[:i])
            try:
                os.mkdir(path)
            except FileExistsError:
                mode = os.lstat(path).st_mode
                if not stat.S_ISDIR(mode):
                    what = "a symbolic link" if stat.S_ISLNK(mode) else "a file"
                    raise _fail(f"refusing to extract it: {path} is {what}, not a folder",
                                self.info(name).offset, name) from None
            made.add(below)

    def close(self) -> None:
        """Unmap the archive and close its file (reading a member then raises a
        :class:`UsageError`)."""
        self._closed = True
        if isinstance(self._data, mmap.mmap):
            self._data.close()
        self._data = b""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> WadArchive:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.path if self.path is not None else "bytes"
        return f"<WadArchive {where}: {len(self._entries)} members, version {self.version}>"


def open_wad(source: str | os.PathLike[str] | bytes | bytearray | memoryview, *,
             check_crc: bool = True,
             max_expansion: float | None = WAD_MAX_EXPANSION) -> WadArchive:
    """Open the KIWAD archive at the path ``source`` (memory-mapped: only its header and file
    table are read now), or held in the bytes ``source``.

    ``check_crc``: a member whose CRC does not match raises a :class:`DecodeError` when it is
    read (default), or is read with a :class:`~gameserde.errors.GameserdeWarning`.
    ``max_expansion``: a compressed member may say it inflates to at most that many times its
    compressed size plus 4,096 bytes (default :data:`WAD_MAX_EXPANSION`, 1032: zlib's utmost,
    so only sizes zlib data cannot reach are refused; ``None`` or ``inf``: no limit).
    """
    return WadArchive(source, check_crc=check_crc, max_expansion=max_expansion)


Members = (str | os.PathLike[str] | Mapping[str, bytes] | Iterable[tuple[str, bytes]])


def _members(members: Members) -> Iterator[tuple[str, bytes]]:
    if isinstance(members, str | os.PathLike):
        root = os.fspath(members)
        if not os.path.isdir(root):
            raise UsageError(f"{root}: not a folder (write_wad takes a folder or (name, "
                             "bytes) pairs)")
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            below = Path(os.path.relpath(folder, root)).as_posix()
            prefix = "" if below == "." else below + "/"
            for name in sorted(files):
                with open(os.path.join(folder, name), "rb") as f:
                    yield prefix + name, f.read()
        return
    yield from (members.items() if isinstance(members, Mapping) else members)


def write_wad(path: str | os.PathLike[str] | None, members: Members, *,
              compress: bool | Callable[[str, bytes], bool] | None = None,
              version: int = 2, flags: int | None = 0) -> bytes | None:
    """Build a KIWAD archive of ``members``: ``(name, bytes)`` pairs, a mapping, or a folder
    (its files below it, named by their ``/``-separated relative paths). Writes it to
    ``path`` (whole or not at all: a temporary file is renamed) and returns None, or returns
    its bytes when ``path`` is None.

    Laid out as the game's archives are: entries sorted by name, data in the same order with
    no padding, zlib at level 9, CRCs of the bytes as stored. ``compress``: a predicate of
    ``(name, data)`` that says which members to compress, or True or False for all or none;
    default: all but ``.mp3`` and ``.ogg`` (:data:`STORED_EXTENSIONS`). ``version`` 2 (with
    its ``flags`` byte, katsuba's pack and the game's current archives) or 1 (no flags).
    Names must be plain relative paths (:func:`safe_member_path`), each once; an
    :class:`EncodeError` says which one is not, or which size a u32 cannot hold."""
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version < 1 << 32:
        raise UsageError(f"version must be a u32, not {version!r}")
    if version >= 2:
        if isinstance(flags, bool) or not isinstance(flags, int) or not 0 <= flags < 256:
            raise UsageError(f"flags must be a byte (0 to 255) for version {version}, not "
                             f"{flags!r}")
    elif flags not in (None, 0):
        raise UsageError(f"a version {version} archive has no flags byte (flags={flags!r})")
    rule: Callable[[str, bytes], bool]
    if compress is None:
        rule = lambda name, data: not stores(name, data)  # noqa: E731
    elif isinstance(compress, bool):
        rule = lambda name, data: compress  # noqa: E731
    else:
        rule = compress
    table: list[tuple[bytes, int, int, bool, int, bytes]] = []
    seen: set[str] = set()
    for name, data in _members(members):
        if not isinstance(name, str):
            raise EncodeError(f"a member name must be str, not {type(name).__name__}",
                              format="kiwad")
        path_key = f"$[{_quote(name)}]"
        reason = safe_member_path(name)
        if reason is not None:
            raise EncodeError(f"not a member name: {reason}", path=path_key, format="kiwad")
        if name in seen:
            raise EncodeError("the name is given twice", path=path_key, format="kiwad")
        seen.add(name)
        try:
            encoded = name.encode("utf-8")
        except UnicodeEncodeError:
            raise EncodeError("the name cannot be encoded in UTF-8", path=path_key,
                              format="kiwad") from None
        if not isinstance(data, bytes | bytearray | memoryview):
            raise EncodeError(f"a member's data must be bytes, not {type(data).__name__}",
                              path=path_key, format="kiwad")
        data = bytes(data)
        if len(data) > STORED:
            raise EncodeError(f"{len(data)} bytes are more than a u32 size holds",
                              path=path_key, format="kiwad")
        packed = rule(name, data)
        stored = zlib.compress(data, 9) if packed else data
        table.append((encoded, len(data), len(stored) if packed else STORED, packed,
                      crc(stored), stored))
    table.sort(key=lambda row: row[0])
    header = WAD_MAGIC + _U32.pack(version) + _U32.pack(len(table))
    if version >= 2:
        header += bytes([flags or 0])
    offset = len(header) + sum(_ENTRY.size + len(row[0]) + 1 for row in table)
    parts = [header]
    for encoded, size, csize, packed, checksum, stored in table:
        if offset > STORED:
            raise EncodeError("the archive would pass 4 GiB, past what a u32 offset holds",
                              format="kiwad")
        parts.append(_ENTRY.pack(offset, size, csize, packed, checksum, len(encoded) + 1))
        parts.append(encoded + b"\0")
        offset += len(stored)
    parts.extend(row[5] for row in table)
    if path is None:
        return b"".join(parts)
    target = Path(path)
    try:
        fd, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:  # named by the archive asked for, not the temporary file
        raise OSError(e.errno, e.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(parts)
        os.replace(partial, target)
    except BaseException:
        os.unlink(partial)
        raise
    return None
