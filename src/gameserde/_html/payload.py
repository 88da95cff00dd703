"""The data of an HTML byte map's pages: a byte map's rows cut into pages of bounded size,
each with the tree of its rows' paths and the bytes they cover.

A page is a run of consecutive rows. Its payload is the length of its JSON (4 bytes, little
endian), the JSON and the bytes it shows, deflated and then base64-encoded into the page. The
JSON holds:

- ``sections``: for each part of the map (the input, and for KingsIsle what each zlib part
  inflates to) its title, size and the bytes the page shows, as ``[start, length]`` chunks
  of whole 16-byte lines whose bytes follow the JSON; a region longer than
  :data:`SHOWN_HEAD` + :data:`SHOWN_TAIL` bytes shows its first and last bytes only (a gap
  line stands for the rest), and gaps of up to :data:`FILL` bytes between chunks are shown;
- ``nodes``: the tree of the rows' paths (``parent`` and ``step`` columns: a path is its
  steps joined), only the nodes the page's rows need;
- ``rows``: columns ``sec``, ``off`` (each the distance from the previous row's end),
  ``len``, ``node`` (each the difference from the previous row's), ``type`` (an index into
  ``types``), ``note``, for bit maps ``bit`` and ``bits``, and ``first``, the index of the
  page's first row in the whole map (as in :meth:`~gameserde.codecs.ByteMap.to_jsonable`);
- the map's ``error`` (on the last page: its message, path, and the section, offset and row
  the page marks) and ``notes``, and ``pages``: each page's first row
  and the offsets it covers in the input, for the page list and for a search by offset.

Every string from the data stays a JSON string: the page's script shows it as text, never
as markup. Steps, types and values longer than :data:`MAX_TEXT` characters are shortened
(the whole map is in ``--as json``).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from gameserde._bytemap import Path, Region

__all__ = ["FILL", "LINE", "MAX_TEXT", "PAGE_BYTES", "SHOWN_HEAD", "SHOWN_TAIL", "Part", "pages"]

LINE = 16
"""Bytes per line of the hex pane."""

SHOWN_HEAD, SHOWN_TAIL = 2048, 512
"""The bytes a long region shows at its start and at its end."""

FILL = 256
"""Bytes between shown ranges that are shown too (a text's keys and punctuation, padding)."""

MAX_TEXT = 400
"""The longest step, type or value a page keeps, in characters."""

PAGE_BYTES = 225_000
"""Most bytes of deflated payload in one page (300 KB once base64-encoded; with the page's
script and style, a page file is at most about 330 KB); a map that needs more is cut into
pages."""

_RAW_BUDGET, _RAW_LIMIT = 2_000_000, 8_000_000
"""The first page's budget of raw payload (JSON and bytes, about), and the most any page
gathers: each next page's budget is set from how well the last one deflated, and a page that
deflates past :data:`PAGE_BYTES` is made again with a smaller budget."""

_STEP = re.compile(r"""\$|\.[^.\[/]+|\[(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\]]*)\]|/[^/]*""")


@dataclass(frozen=True)
class Part:
    """One byte string a map's rows count in: ``title``, ``data``, ``rows`` and ``text``
    (the data is text, shown as such)."""

    title: str
    data: bytes
    rows: list[Region]
    text: bool = False


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "\u2026"


def split_step(step: str) -> list[str]:
    """``step`` as single steps: a step that is a whole path (``$.header.magic``) becomes
    ``["$", ".header", ".magic"]``; a step the pattern does not cover stays whole."""
    if len(step) > 1 and step[0] in "$.[/":
        parts = _STEP.findall(step)
        if len(parts) > 1 and sum(map(len, parts)) == len(step):
            return parts
    return [step]


class _Tree:
    """A page's tree of paths: nodes are made as rows need them."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.step: list[str] = []
        self._children: dict[tuple[int, str], int] = {}
        self._of_path: dict[int, int] = {}  # id() of a Path (alive in the map) to its node

    def node(self, path: Path) -> int:
        """The node of ``path``, made with any parents the tree lacks. A step of a path
        without a parent may be a whole path (``$.header.magic``): it is split."""
        known = self._of_path.get(id(path))
        if known is not None:
            return known
        pending: list[Path] = []
        node: Path | None = path
        found = -1
        while node is not None:
            known = self._of_path.get(id(node))
            if known is not None:
                found = known
                break
            pending.append(node)
            node = node.parent
        for p in reversed(pending):
            for step in (split_step(p.step) if p.parent is None else (p.step,)):
                key = (found, step)
                at = self._children.get(key)
                if at is None:
                    at = len(self.parent)
                    self._children[key] = at
                    self.parent.append(found)
                    self.step.append(_short(step))
                found = at
            self._of_path[id(p)] = found
        return found


class _Spans:
    """The byte ranges a page shows in one part: whole lines, joined as they come."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.done: list[tuple[int, int]] = []
        self.start = self.end = 0  # the open range (none while they are equal)

    def add(self, off: int, length: int) -> None:
        size = self.size
        end = min(off + (length or 1), size)
        if off >= size:
            return
        if end - off > SHOWN_HEAD + SHOWN_TAIL:
            self._add(off, off + SHOWN_HEAD)
            off = end - SHOWN_TAIL
        self._add(off, end)

    def _add(self, s: int, e: int) -> None:
        s -= s % LINE
        e = min(e + (-e) % LINE, self.size)
        if self.start < self.end and self.start <= s <= self.end + FILL:
            if e > self.end:
                self.end = e
            return
        if self.end > self.start:
            self.done.append((self.start, self.end))
        self.start, self.end = s, e

    def ranges(self) -> list[tuple[int, int]]:
        """The ranges sorted and joined (gaps of up to :data:`FILL` bytes shown too)."""
        spans = [*self.done, (self.start, self.end)] if self.end > self.start else self.done
        out: list[tuple[int, int]] = []
        for s, e in sorted(spans):
            if out and s <= out[-1][1] + FILL:
                if e > out[-1][1]:
                    out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
        return out


@dataclass
class _Page:
    first: int
    rows: list[tuple[int, Region]] = field(default_factory=list)
    doc: dict[str, Any] = field(default_factory=dict)
    blob: bytes = b""


def _error_place(flat: list[tuple[int, Region]], error: Any) -> dict[str, Any]:
    """Where the page marks the error: the map's ``ERROR`` row when it ends with one (its
    section, its offset and its index), else the error's offset in the input."""
    if flat and flat[-1][1].type == "ERROR":
        sec, row = flat[-1]
        return {"section": sec, "offset": row.offset, "row": len(flat) - 1}
    offset = getattr(error, "offset", None)
    return {"section": 0, "offset": offset if isinstance(offset, int) else None, "row": None}


def _build(parts: list[Part], page: _Page, error: dict[str, Any] | None) -> None:
    """Fill in ``page.doc`` (its sections, types, nodes, rows and error) and ``page.blob``
    (the bytes it shows)."""
    tree = _Tree()
    types: dict[str, int] = {}
    secs, offs, lens, nodes, kinds, notes = [], [], [], [], [], []
    bits_of: list[tuple[int, int | None]] = []
    spans = [_Spans(len(p.data)) for p in parts]
    end = previous = 0
    node = tree.node
    for sec, r in page.rows:
        offset, size = r.offset, r.size
        secs.append(sec)
        offs.append(offset - end)
        lens.append(size)
        end = offset + size
        at = node(r.where)
        nodes.append(at - previous)
        previous = at
        kind = r.type if len(r.type) <= MAX_TEXT else _short(r.type)
        kinds.append(types.setdefault(kind, len(types)))
        notes.append(r.note if len(r.note) <= MAX_TEXT else _short(r.note))
        bits_of.append((r.bit, r.bits))
        spans[sec].add(offset, size)
    if error is not None and error["offset"] is not None and parts:
        size = len(parts[error["section"]].data)
        spans[error["section"]].add(min(error["offset"], max(size - 1, 0)), 256)
    sections, blob = [], bytearray()
    for part, shown in zip(parts, spans, strict=True):
        chunks = []
        for s, e in shown.ranges():
            chunks.append([s, e - s])
            blob += part.data[s:e]
        sections.append({"title": part.title, "size": len(part.data), "text": part.text,
                         "chunks": chunks})
    rows: dict[str, Any] = {"first": page.first, "sec": secs, "off": offs, "len": lens,
                            "node": nodes, "type": kinds, "note": notes}
    if any(b is not None for _, b in bits_of):
        rows["bit"] = [b for b, _ in bits_of]
        rows["bits"] = [b for _, b in bits_of]
    page.doc = {"sections": sections, "types": list(types),
                "nodes": {"parent": tree.parent, "step": tree.step}, "rows": rows,
                "error": error}
    page.blob = bytes(blob)


def _weight(r: Region) -> int:
    """About how many bytes of payload a row adds to a page (its path counted whole: a
    bound, as parents are shared)."""
    return 32 + min(len(r.note), MAX_TEXT) + min(len(r.type), MAX_TEXT) + \
        min(r.where.length, 4 * MAX_TEXT) + min(r.size, SHOWN_HEAD + SHOWN_TAIL) + LINE


def _pack(head: dict[str, Any], page: _Page) -> bytes:
    text = json.dumps({**head, **page.doc}, ensure_ascii=True,
                      separators=(",", ":")).encode("ascii")
    return zlib.compress(len(text).to_bytes(4, "little") + text + page.blob, 6)


def pages(parts: list[Part], *, format: str, title: str, name: str, notes: list[str],
          error: Any) -> list[bytes]:
    """The deflated payloads of the pages that show ``parts``, each at most
    :data:`PAGE_BYTES` (a page of one row is kept whole, whatever its size)."""
    flat = [(sec, r) for sec, part in enumerate(parts) for r in part.rows]
    weights = [_weight(r) for _, r in flat]
    error_doc = None
    if error is not None:
        error_doc = {**_error_place(flat, error), "path": str(getattr(error, "path", "$")),
                     "message": _short(str(error))}
    head: dict[str, Any] = {"v": 1, "format": format, "title": title, "name": name,
                            "notes": [_short(n) for n in notes]}
    done: list[tuple[_Page, bytes]] = []
    budget, at = _RAW_BUDGET, 0
    while at < len(flat) or not done:
        page, weight = _Page(at), 0
        stop = at
        while stop < len(flat) and (stop == at or weight + weights[stop] <= budget):
            weight += weights[stop]
            stop += 1
        page.rows = flat[at:stop]
        _build(parts, page, error_doc if stop == len(flat) else None)
        packed = _pack(head, page)
        # the next budget: as much raw weight as deflates to about 90% of a page
        budget = min(int(0.9 * PAGE_BYTES * weight / max(len(packed), 1)), _RAW_LIMIT)
        if len(packed) > PAGE_BYTES and stop - at > 1:
            budget = min(budget, weight // 2)  # fewer rows each time: at worst one
            continue
        done.append((page, packed))
        at = stop
    if len(done) == 1:
        return [done[0][1]]
    index = [_summary(page) for page, _ in done]
    return [_pack({**head, "page": n, "pages": index}, page) for n, (page, _) in enumerate(done)]


def _summary(page: _Page) -> list[int]:
    """A page's entry in the page list: its first row, its row count and the first and last
    offsets of the input its rows cover (-1 when none is in the input)."""
    offsets = [r.offset for sec, r in page.rows if sec == 0]
    ends = [r.offset + r.size for sec, r in page.rows if sec == 0]
    return [page.first, len(page.rows), min(offsets, default=-1), max(ends, default=-1)]
