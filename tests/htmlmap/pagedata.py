"""Read an HTML byte map's pages back in Python: the payload each page carries, as the page's
script reads it (for tests that check what a page holds without a browser)."""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import TYPE_CHECKING, Any

from gameserde._html.payload import MAX_TEXT, SHOWN_HEAD, SHOWN_TAIL

if TYPE_CHECKING:
    from gameserde.codecs import ByteMap

_PAYLOAD = re.compile(r'<script type="application/json" id="gs-payload">([A-Za-z0-9+/=]*)'
                      r"</script>")


def payload(html: str) -> dict[str, Any]:
    """The page's data: its JSON with ``blob`` (the bytes it shows) and ``rows`` made
    absolute (offsets and node numbers), and ``paths`` (each row's path, its steps joined)."""
    found = _PAYLOAD.findall(html)
    assert len(found) == 1, "a page holds one payload"
    raw = zlib.decompress(base64.b64decode(found[0], validate=True))
    size = int.from_bytes(raw[:4], "little")
    doc: dict[str, Any] = json.loads(raw[4:4 + size])
    blob = raw[4 + size:]
    rows = doc["rows"]
    end = node = 0
    for i in range(len(rows["off"])):
        rows["off"][i] += end
        end = rows["off"][i] + rows["len"][i]
        node = rows["node"][i] = rows["node"][i] + node
    parent, step = doc["nodes"]["parent"], doc["nodes"]["step"]

    def path(n: int) -> str:
        steps = []
        while n >= 0:
            steps.append(step[n])
            n = parent[n]
        return "".join(reversed(steps))

    doc["paths"] = [path(n) for n in rows["node"]]
    taken = 0
    for section in doc["sections"]:
        shown = {}
        for start, length in section["chunks"]:
            shown[start] = blob[taken:taken + length]
            taken += length
        section["shown"] = shown
    assert taken == len(blob)
    return doc


def shown_byte(doc: dict[str, Any], section: int, offset: int) -> int | None:
    """The byte a page shows at ``offset`` of a section, or None when it does not show it."""
    for start, data in doc["sections"][section]["shown"].items():
        if start <= offset < start + len(data):
            return int(data[offset - start])
    return None


def error_place(byte_map: ByteMap) -> tuple[int, int | None, int | None]:
    """Where a page marks the map's error: the section, offset and index of the map's last
    row when it is an ``ERROR`` row, else the error's offset in the input."""
    parts = byte_map.parts()
    flat = [(n, r) for n, (_, _, rows) in enumerate(parts) for r in rows]
    if flat and flat[-1][1].type == "ERROR":
        return flat[-1][0], flat[-1][1].offset, len(flat) - 1
    return 0, getattr(byte_map.error, "offset", None), None


def short(text: str) -> str:
    """``text`` as a page keeps it: at most ``MAX_TEXT`` characters, the last an ellipsis."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "\u2026"


def check_rows(byte_map: ByteMap, pages: list[tuple[str, str]]) -> None:
    """The pages together hold the map's rows in order, each with its section, offset,
    length, bits, path, type and value, and the bytes it starts and ends with (a region
    longer than ``SHOWN_HEAD + SHOWN_TAIL``: the last of its first ``SHOWN_HEAD`` bytes and
    the first of its last ``SHOWN_TAIL`` too)."""
    expected = byte_map.to_jsonable()["rows"]
    titles = [t for t, _, _ in byte_map.parts()]
    datas = [d for _, d, _ in byte_map.parts()]
    seen = 0
    for number, (_, html) in enumerate(pages):
        doc = payload(html)
        rows = doc["rows"]
        assert (rows["first"], doc.get("page")) == (seen, number if len(pages) > 1 else None)
        assert len(doc.get("pages", pages)) == len(pages)
        for i in range(len(rows["off"])):
            want = expected[seen + i]
            sec = titles.index(want.get("section", titles[0]))
            start, size = want["offset"], want["length"]
            assert (rows["sec"][i], rows["off"][i], rows["len"][i]) == (sec, start, size)
            assert doc["types"][rows["type"][i]] == short(want["type"])
            assert rows["note"][i] == short(want["value"])
            if len(want["path"]) < MAX_TEXT:
                assert doc["paths"][i] == want["path"]
            if "bits" in want:
                assert (rows["bit"][i], rows["bits"][i]) == (want["bit"], want["bits"])
            ends = {start, start + size - 1}
            if size > SHOWN_HEAD + SHOWN_TAIL:
                ends |= {start + SHOWN_HEAD - 1, start + size - SHOWN_TAIL}
            for at in ends:
                if 0 <= at < len(datas[sec]):
                    assert shown_byte(doc, sec, at) == datas[sec][at], (seen + i, at)
        seen += len(rows["off"])
    assert seen == len(expected)


def check_error(byte_map: ByteMap, pages: list[tuple[str, str]]) -> None:
    """Only the last page has the map's error: its message, and the section, offset and row
    it marks (:func:`error_place`), whose byte the page shows."""
    for _, html in pages[:-1]:
        assert payload(html)["error"] is None
    doc = payload(pages[-1][1])
    if byte_map.error is None:
        assert doc["error"] is None
        return
    assert doc["error"]["message"] == short(str(byte_map.error))
    sec, offset, row = error_place(byte_map)
    assert (doc["error"]["section"], doc["error"]["offset"], doc["error"]["row"]) == (
        sec, offset, row)
    data = byte_map.parts()[sec][1]
    if offset is not None and offset < len(data):
        assert shown_byte(doc, sec, offset) == data[offset]

