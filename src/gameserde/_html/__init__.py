"""HTML byte maps: ``gameserde inspect FORMAT FILE --html OUT.html`` and
:meth:`gameserde.codecs.ByteMap.write_html`.

A page shows a hex pane (offset, hex, ASCII; for a text format the text itself) coloured by
region, beside a collapsible tree of the regions' paths with their types and values; hovering
or clicking either side shows the other, a search box takes a path or an offset, and an error
is marked at its byte with its message. Bit fields (KingsIsle) show their bits inside their
bytes. The page is one self-contained file (no network, no other file); a map too big for one
page of about 330 KB is cut into pages ``OUT.html``, ``OUT.2.html``, ... that link to each
other. See :mod:`gameserde._html.payload` for what a page holds and
:mod:`gameserde._html.page` for how the data is kept from being markup.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gameserde._html.page import render
from gameserde._html.payload import Part, pages

if TYPE_CHECKING:
    from gameserde.codecs import ByteMap

__all__ = ["html_pages", "page_names", "write_html"]


def page_names(name: str, count: int) -> list[str]:
    """The file names of ``count`` pages whose first is ``name``: ``map.html``,
    ``map.2.html``, ..."""
    stem, ext = os.path.splitext(name)
    return [name] + [f"{stem}.{n}{ext or '.html'}" for n in range(2, count + 1)]


def html_pages(byte_map: ByteMap, name: str = "map.html",
               title: str | None = None) -> list[tuple[str, str]]:
    """The pages of ``byte_map`` as ``(file name, HTML text)``; the first is ``name`` (a
    file name, no folder: the pages link to each other by it). ``title`` names the input
    (default: the format's name)."""
    if os.path.basename(name) != name or not name:
        raise ValueError(f"a page's name is a file name without a folder, not {name!r}")
    shown = title if title is not None else f"{byte_map.format} data"
    parts = [Part(t, d, r, byte_map.text) for t, d, r in byte_map.parts()]
    payloads = pages(parts, format=byte_map.format, title=shown, name=name,
                     notes=list(byte_map.notes), error=byte_map.error)
    names = page_names(name, len(payloads))
    return [(n, render(p, title=f"{shown} \u2014 gameserde inspect"))
            for n, p in zip(names, payloads, strict=True)]


def write_html(byte_map: ByteMap, path: str | os.PathLike[str],
               title: str | None = None) -> list[str]:
    """Write the pages of ``byte_map``: the first to ``path``, any others beside it; return
    the paths written."""
    folder, name = os.path.split(os.fspath(path))
    written = []
    for page_name, text in html_pages(byte_map, name, title):
        target = os.path.join(folder, page_name)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(target)
    return written
