"""inspect's HTML pages in a real browser (headless Chromium): each format's example, hostile
and damaged inputs load without an error and without a request; a click on a tree row
highlights exactly that row's bytes (or bits, or text) and a click on a byte selects the row
that holds it; the search finds paths and offsets, across pages too; the error is marked at
its byte; nothing from the data runs. A screenshot of each format's example is kept (in
``GAMESERDE_ARTIFACTS``, default ``.artifacts/htmlmap``) and checked not to be blank; with
``GAMESERDE_UPDATE_DOCS=1`` it also replaces the one in ``docs/images``, which the format's
page shows."""

from __future__ import annotations

import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import gameserde
from tests.htmlmap.conftest import PageLog
from tests.htmlmap.inputs import (
    HOSTILE_STRINGS,
    MapInput,
    damaged,
    examples,
    hostile,
    megabyte,
    shown_in,
)
from tests.htmlmap.pagedata import error_place

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("GAMESERDE_ARTIFACTS", ROOT / ".artifacts")) / "htmlmap"
DOCS_IMAGES = ROOT / "docs" / "images"
DOC_SHOTS = {"godot-example": "godot", "flatbuffers-example": "flatbuffers",
             "zeze-example": "zeze", "kingsisle-bits": "kingsisle", "o3de-example": "o3de"}
"""The example each format's docs page shows (KingsIsle's with a field that is not byte
aligned, for its bits)."""
SCREENSHOT_BYTES = 30_000
"""A screenshot of a page with its hex pane and tree is larger than this; a blank or
near-blank page's is a few kilobytes."""


@dataclass
class Row:
    index: int
    sec: int
    off: int
    len: int
    bit: int
    bits: int | None
    path: str
    value: str

    @property
    def is_bits(self) -> bool:
        return self.bits is not None and not (self.bit == 0 and self.bits == 8 * self.len)


def _rows(item: MapInput) -> tuple[gameserde.ByteMap, list[Row]]:
    byte_map = gameserde.codec(item.format, **item.options).inspect(item.data)
    titles = [t for t, _, _ in byte_map.parts()]
    rows = [Row(n, titles.index(r.get("section", titles[0])), r["offset"], r["length"],
                r.get("bit", 0), r.get("bits"), r["path"], r["value"])
            for n, r in enumerate(byte_map.to_jsonable()["rows"])]
    return byte_map, rows


def _owner(rows: list[Row], sec: int, offset: int, bit: int | None = None) -> int:
    """The row a click on a byte (or one of its bits) selects: the bit's row; for a byte
    with bit fields, its first bit's; else the innermost region holding the byte (the later
    one of two alike)."""
    bit_owners: list[int | None] = [None] * 8
    for r in rows:
        if r.sec == sec and r.is_bits:
            assert r.bits is not None
            for k in range(r.bits):
                g = r.off * 8 + r.bit + k
                if g >> 3 == offset:
                    bit_owners[g & 7] = r.index
    if bit is not None and bit_owners[bit] is not None:
        return bit_owners[bit]  # type: ignore[return-value]
    found = [b for b in bit_owners if b is not None]
    if found:
        return found[0]
    holding = [r for r in rows if r.sec == sec and not r.is_bits and r.len > 0
               and r.off <= offset < r.off + r.len]
    return min(holding, key=lambda r: (r.len, -r.index)).index


def _open(page: Page, url: str) -> float:
    start = time.monotonic()
    page.goto(url)
    page.wait_for_selector("html[data-ready]", state="attached", timeout=30_000)
    assert page.get_attribute("html", "data-ready") == "1"
    return time.monotonic() - start


def _load(page: Page, item: MapInput, folder: Path) -> tuple[gameserde.ByteMap, list[Row], str]:
    byte_map, rows = _rows(item)
    written = byte_map.write_html(folder / f"{item.name}.html", title=item.name)
    url = Path(written[0]).as_uri()
    _open(page, url)
    return byte_map, rows, url


def _selected(page: Page) -> list[int]:
    return [int(r) for r in page.eval_on_selector_all(".row.sel", "e => e.map(x => x.dataset.r)")]


def _cells(page: Page, selector: str) -> list[tuple[int, int, bool]]:
    """The rendered cells (section, offset, selected) that ``selector`` finds."""
    got = page.eval_on_selector_all(
        selector, "e => e.map(x => [x.dataset.s, x.dataset.o, x.classList.contains('sel')])")
    return [(int(s), int(o), bool(sel)) for s, o, sel in got]


def _check_hover(page: Page, rows: list[Row], text: bool) -> None:
    """Hovering a tree row outlines its bytes (those drawn), and hovering a byte outlines its
    row in the tree."""
    selector = "#hex span.t" if text else "#hex span.b[data-o]"
    drawn = {(s, o) for s, o, _ in _cells(page, selector)}
    shown = [int(r) for r in page.eval_on_selector_all(".row", "e => e.map(x => x.dataset.r)")]
    r = next(rows[i] for i in shown if rows[i].len > 0 and not rows[i].is_bits
             and (rows[i].sec, rows[i].off) in drawn)
    page.hover(f'.row[data-r="{r.index}"] .ty')
    lit = [(s, o) for s, o, _ in _cells(page, selector + ".hov")]
    assert lit and all(s == r.sec and r.off <= o < r.off + r.len for s, o in lit), lit
    sec, offset = sorted(drawn)[len(drawn) // 2]
    cell = f'{selector}[data-s="{sec}"][data-o="{offset}"]'
    page.hover(cell + (" .hx" if not text and page.locator(cell + " .hx").count() else ""))
    owner = _owner(rows, sec, offset)
    hovered = page.eval_on_selector_all(".row.hov", "e => e.map(x => x.dataset.r)")
    assert [int(h) for h in hovered] in ([owner], []), (owner, hovered)
    if hovered == []:  # the owner's row is in a folded node: none is drawn to outline
        assert page.locator(f'.row[data-r="{owner}"]').count() == 0


def _check_tree_click(page: Page, rows: list[Row], text: bool) -> int:
    """Click tree rows (up to 4 of those shown) and check the bytes highlighted; return how
    many were checked."""
    shown = [int(r) for r in page.eval_on_selector_all(".row", "e => e.map(x => x.dataset.r)")]
    picked = [i for i in shown if rows[i].len > 0][:4]
    for i in picked:
        page.click(f'.row[data-r="{i}"] .ty')
        assert _selected(page) == [i]
        r = rows[i]
        if r.is_bits:
            bits = page.eval_on_selector_all(
                "#hex i.bit.sel", "e => e.map(x => [x.parentElement.parentElement.dataset.o,"
                                  " x.dataset.k])")
            got = sorted(int(o) * 8 + int(k) for o, k in bits)
            start = r.off * 8 + r.bit
            assert got == list(range(start, start + len(got))) and got, (i, got)
            assert got[0] == start
            continue
        if text:
            spans = _cells(page, "#hex span.t")
            inside = [(o, sel) for s, o, sel in spans if s == r.sec and r.off <= o < r.off + r.len]
            outside = [o for s, o, sel in spans if sel and not (s == r.sec
                                                                 and r.off <= o < r.off + r.len)]
            assert inside and all(sel for _, sel in inside), (i, inside)
            assert not outside, (i, outside)
            continue
        cells = _cells(page, "#hex span.b[data-o]")
        lit = sorted(o for s, o, sel in cells if sel and s == r.sec)
        rendered = sorted(o for s, o, _ in cells if s == r.sec and r.off <= o < r.off + r.len)
        assert lit == rendered and lit, (i, lit[:8], rendered[:8])
        assert all(s == r.sec for s, _, sel in cells if sel)
    return len(picked)


def _check_byte_click(page: Page, rows: list[Row], text: bool) -> int:
    """Click rendered bytes (every 11th, up to 4) and check the tree row selected."""
    selector = "#hex span.t" if text else "#hex span.b[data-o]"
    cells = _cells(page, selector)[::11][:4]
    for sec, offset, _ in cells:
        cell = f'{selector}[data-s="{sec}"][data-o="{offset}"]'
        if not text and page.locator(cell + " .hx").count():
            cell += " .hx"
        page.click(cell)
        expected = _owner(rows, sec, offset)
        assert _selected(page) == [expected], (sec, offset)
        assert page.locator(f'.row[data-r="{expected}"]').is_visible()
    return len(cells)


def _check_search(page: Page, rows: list[Row]) -> None:
    """The search box finds an offset (decimal and hex) and a path, then the next match."""
    target = rows[len(rows) // 2]
    while target.len == 0 or target.sec:
        target = rows[target.index - 1]
    offset = target.off + target.len // 2
    for query in (str(offset), hex(offset)):
        page.fill("#search", query)
        page.press("#search", "Enter")
        assert _selected(page) == [_owner(rows, 0, offset)]
    step = target.path[-min(len(target.path), 12):]
    page.fill("#search", step)
    page.press("#search", "Enter")
    first = _selected(page)
    assert len(first) == 1 and step in rows[first[0]].path
    matches = [r.index for r in rows if step in r.path]
    assert first[0] == matches[0]
    if len(matches) > 1:
        page.press("#search", "Enter")
        assert _selected(page) == [matches[1]]
    page.fill("#search", "no such path \u2603")
    page.press("#search", "Enter")
    assert "no path" in page.inner_text("#status")


def _check_clean(page: Page, log: PageLog, url: str) -> None:
    assert log.problems() == []
    assert {u.split("#")[0] for u in log.requests} == {url.split("#")[0]}
    assert page.evaluate("() => window.__gameserde_pwned === undefined")
    assert page.evaluate("() => document.scripts.length") == 2
    assert page.locator("img, iframe, object, embed").count() == 0


def _screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(shot))
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1280, 800)
    assert len(png) > SCREENSHOT_BYTES, f"{shot} is {len(png)} bytes: a blank page?"
    return shot


@pytest.mark.parametrize("item", examples(), ids=lambda i: i.name)
def test_an_example_s_page_links_tree_and_bytes_both_ways(item: MapInput, page: Page,
                                                          page_log: PageLog,
                                                          tmp_path: Path) -> None:
    byte_map, rows, url = _load(page, item, tmp_path)
    text = byte_map.text
    assert page.locator("#hex").is_visible() and page.locator("#tree").is_visible()
    _check_hover(page, rows, text)
    assert _check_tree_click(page, rows, text) >= 2
    assert _check_byte_click(page, rows, text) >= 2
    _check_search(page, rows)
    if any(r.is_bits for r in rows):
        bit_row = next(r for r in rows if r.is_bits)
        page.fill("#search", str(bit_row.off))
        page.press("#search", "Enter")
        box = (f'#hex span.b[data-s="{bit_row.sec}"][data-o="{bit_row.off}"] '
               f'i.bit[data-k="{bit_row.bit}"]')
        page.click(box)
        assert _selected(page) == [_owner(rows, bit_row.sec, bit_row.off, bit_row.bit)]
    _check_clean(page, page_log, url)
    shown = next((r for r in rows if r.is_bits), rows[min(3, len(rows) - 1)])
    page.goto(f"{url}#row={shown.index}")
    page.fill("#search", "")
    page.mouse.move(1, 1)
    shot = _screenshot(page, item.name)
    if os.environ.get("GAMESERDE_UPDATE_DOCS") == "1" and item.name in DOC_SHOTS:
        DOCS_IMAGES.mkdir(exist_ok=True)
        (DOCS_IMAGES / f"inspect-{DOC_SHOTS[item.name]}.png").write_bytes(shot.read_bytes())


@pytest.mark.parametrize("item", damaged(), ids=lambda i: i.name)
def test_the_error_is_marked_at_its_byte(item: MapInput, page: Page, page_log: PageLog,
                                         tmp_path: Path) -> None:
    byte_map, _, url = _load(page, item, tmp_path)
    assert byte_map.error is not None
    assert page.inner_text("#error") == str(byte_map.error)
    sec, offset, row = error_place(byte_map)
    if offset is not None and offset < len(byte_map.parts()[sec][1]):
        page.click("#error")
        marked = _cells(page, "#hex span.t.err" if byte_map.text else "#hex span.b.err")
        if byte_map.text:
            assert len(marked) == 1 and marked[0][1] <= offset
        else:
            assert [(s, o) for s, o, _ in marked] == [(sec, offset)]
        if row is not None:
            assert _selected(page) == [row]
    _check_clean(page, page_log, url)


@pytest.mark.parametrize("item", hostile(), ids=lambda i: i.name)
def test_hostile_strings_are_shown_as_text_and_nothing_runs(item: MapInput, page: Page,
                                                            page_log: PageLog,
                                                            tmp_path: Path) -> None:
    _, rows, url = _load(page, item, tmp_path)
    _check_clean(page, page_log, url)
    shown = 0
    for string in HOSTILE_STRINGS:
        holder = next((r for r in rows if shown_in(r.value, string) or shown_in(r.path, string)),
                      None)
        if holder is None:
            continue
        expected = holder.value if shown_in(holder.value, string) else holder.path
        page.goto(f"{url}#row={holder.index}")
        line = page.locator(f'.row.sel[data-r="{holder.index}"]')
        line.wait_for(state="attached")
        got = line.evaluate("e => e.textContent + ' ' + e.title")
        assert expected[:300] in got, (string, got)
        shown += 1
        _check_clean(page, page_log, url)
    assert shown >= len(HOSTILE_STRINGS) - 2


def test_a_megabyte_map_pages_and_the_search_crosses_pages(page: Page, page_log: PageLog,
                                                           tmp_path: Path) -> None:
    item = megabyte("godot")
    byte_map, rows = _rows(item)
    written = byte_map.write_html(tmp_path / "big.html", title=item.name)
    assert len(written) > 1
    seconds = _open(page, Path(written[0]).as_uri())
    assert seconds < 10, f"the first page took {seconds:.1f} s to show"
    assert page.locator("#pages option").count() == len(written)
    last = rows[-1]
    page.fill("#search", str(last.off))
    page.press("#search", "Enter")
    page.wait_for_url(f"**/{Path(written[-1]).name}#offset={last.off}")
    page.wait_for_selector("html[data-ready]", state="attached")
    assert _selected(page) == [_owner(rows, 0, last.off)]
    # a path only the last page holds, searched from the first: the search goes from page to
    # page; a path no page holds comes back round and says so
    wanted = last.path
    page.goto(Path(written[0]).as_uri())
    page.wait_for_selector("html[data-ready]", state="attached")
    page.fill("#search", wanted)
    page.press("#search", "Enter")
    page.wait_for_url(f"**/{Path(written[-1]).name}#find=*")
    page.wait_for_selector(".row.sel", state="attached")
    assert _selected(page) == [next(r.index for r in rows if wanted in r.path)]
    page.fill("#search", "no such path \u2603")
    page.press("#search", "Enter")
    page.wait_for_url(f"**/{Path(written[-2]).name}#find=*")
    page.locator("#status").filter(has_text="on any page").wait_for()
    assert page_log.problems() == []
    assert all(u.startswith("file://") for u in page_log.requests)


def test_every_format_s_docs_page_shows_its_screenshot() -> None:
    for fmt in ("godot", "flatbuffers", "zeze", "kingsisle", "o3de"):
        image = DOCS_IMAGES / f"inspect-{fmt}.png"
        assert image.is_file() and image.stat().st_size > SCREENSHOT_BYTES, image
        assert f"](images/inspect-{fmt}.png)" in (ROOT / "docs" / f"{fmt}.md").read_text()

