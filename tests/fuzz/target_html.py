"""The ``html`` fuzz target: ``ByteMap.html_pages`` of the map ``inspect`` makes of an
input, for each of the HTML tests' example codecs (byte 0 picks one: the five formats, Godot
with and without ``store_var`` framing, KingsIsle with flags 6, O3DE read as a prefab).

A page must be made for every map, its markup must be the same for every input (only the
base64 payload differs: nothing from the data is markup), its payload must hold every row of
the map in order, and the pages together stay within a bound of the input's size."""

from __future__ import annotations

import functools
import re

import gameserde
from gameserde._html.payload import PAGE_BYTES
from gameserde.codecs import ByteMap, Codec
from tests.fuzz.harness import Finding, check_weight, outcome
from tests.htmlmap.inputs import MapInput, examples
from tests.htmlmap.pagedata import payload

_PAYLOAD = re.compile(r'(id="gs-payload">)([A-Za-z0-9+/=]*)')


@functools.cache
def html_inputs() -> tuple[MapInput, ...]:
    """The codecs byte 0 picks from, with the example each was made for."""
    return tuple(examples())


@functools.cache
def _codec(index: int) -> Codec:
    item = html_inputs()[index]
    return gameserde.codec(item.format, **item.options)


@functools.cache
def _markup(fmt: str) -> str:
    """A page's markup without its payload (the same for every map)."""
    (_, html), = ByteMap(fmt, b"").html_pages("map.html", title="fuzz")
    return _PAYLOAD.sub(r"\1", html)


def html_page(data: bytes) -> None:
    """See the module's documentation."""
    if not data:
        return
    index = data[0] % len(html_inputs())
    body = data[1:]
    codec = _codec(index)
    kind, byte_map = outcome("html inspect", lambda: codec.inspect(body))
    if kind != "ok":
        return
    kind, pages = outcome("html.page", lambda: byte_map.html_pages("map.html", title="fuzz"))
    if kind != "ok":
        raise Finding("invariant", f"html_pages raised {pages}", "html_pages raises")
    rows = sum(len(part[2]) for part in byte_map.parts())
    seen = 0
    for _, html in pages:
        if _PAYLOAD.sub(r"\1", html) != _markup(byte_map.format):
            raise Finding("invariant", "a page's markup depends on the data",
                          "html markup varies")
        found = _PAYLOAD.search(html)
        assert found is not None
        doc = payload(html)
        count = len(doc["rows"]["off"])
        if doc["rows"]["first"] != seen or (count > 1 and len(found[2]) * 3 // 4 > PAGE_BYTES):
            raise Finding("invariant", f"page of rows {seen}+{count} is out of order or too big",
                          "html pages")
        seen += count
    if seen != rows:
        raise Finding("invariant", f"the pages hold {seen} of {rows} rows", "html rows lost")
    payloads = sum(len(html) for _, html in pages) - len(pages) * len(_markup(byte_map.format))
    check_weight("html.page", payloads, len(body) + rows, factor=512)
