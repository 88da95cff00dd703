"""``inspect``'s HTML pages of real files: the real-world corpora (``../shared/corpus``).

* Without a browser, for each of the five corpora, a fixed sample of its real inputs (every
  k-th case sorted by name, about seven, and the largest one; see :func:`_sample`) is mapped
  with the options the corpus's own tests use, and its pages hold every row of the map in
  order with its path, type, value and bytes, and the map's error (if any) on the last page,
  at its place. Godot: the binary resources and scenes (``.res``/``.scn``). O3DE: every JSON
  document (prefabs, ``.setreg``, materials, ...; those no engine reader takes are maps
  with an error), each read as its file name says. FlatBuffers: the buffers with their
  schemas and root types, of at most :data:`FB_LARGEST` bytes (a TensorFlow Lite model of
  megabytes maps to millions of rows: the megabyte tests of ``tests/htmlmap`` cover pages
  of that size). KingsIsle: katsuba's fixtures with their type list and each one's flags,
  mask, depth and compression. Besides, a file each of O3DE and KingsIsle that their
  engines refuse (:data:`REFUSED`), for the error on the last page. Zeze: the corpus holds
  solutions and no bean data, so each sampled bean of a real solution is given the seeded
  random value of ``test_zeze_corpus``'s round trips.
* In a headless Chromium, one real file per corpus (with a few hundred rows; KingsIsle's
  fixtures have 45 at most: its largest, every row a bit field): clicks on tree rows
  highlight their bytes, clicks on bytes select their rows, and the page loads without an
  error and without a request.

Without a corpus its tests are skipped, or fail when ``CI=true``; without the browser, the
browser tests are skipped (failed on CI) as in ``tests/htmlmap``.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gameserde import zeze
from gameserde.zeze import ZezeSchema
from tests.conformance.corpus import case_names, corpus_dir, require
from tests.conformance.test_zeze_corpus import Values
from tests.conformance.test_zeze_corpus import load as load_solution
from tests.htmlmap.conftest import PageLog, browser, page, page_log
from tests.htmlmap.inputs import MapInput
from tests.htmlmap.pagedata import check_error, check_rows
from tests.htmlmap.test_pages import _check_byte_click, _check_clean, _check_tree_click, _load

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["browser", "page", "page_log"]  # the browser fixtures of tests/htmlmap, used here

SAMPLE = 7
"""Cases taken at even steps through each corpus's sorted list, besides its largest."""
FB_LARGEST = 128 << 10
"""The largest FlatBuffers buffer sampled, in bytes."""


def _sample(names: list[str], size: Callable[[str], int]) -> list[str]:
    """Every k-th of ``names`` (sorted) for :data:`SAMPLE` of them, and the largest by
    ``size``, in name order."""
    ordered = sorted(names)
    if not ordered:
        return []
    step = math.ceil(len(ordered) / SAMPLE)
    return sorted({*ordered[::step], max(ordered, key=lambda n: (size(n), n))})


# -- the corpora's inputs as MapInputs ------------------------------------------------------

GODOT = corpus_dir("godot-real")
O3DE = corpus_dir("o3de-real")
FLATBUFFERS = corpus_dir("flatbuffers-real")
KINGSISLE = corpus_dir("kingsisle-real")
ZEZE = corpus_dir("zeze-real")
KI_TYPES = KINGSISLE / "types" / "fixtures_types.json"


def _meta(folder: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    return meta


@functools.cache
def _godot_cases() -> dict[str, dict[str, Any]]:
    manifest = GODOT / "manifest.json"
    if not manifest.is_file():
        return {}
    cases = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return {c["case"]: c for c in cases if c["kind"] in ("res", "scn")}


def _godot(name: str) -> MapInput:
    case = _godot_cases()[name]
    return MapInput(name, "godot", {}, (), (GODOT / name / case["file"]).read_bytes())


def _o3de(name: str) -> MapInput:
    file = _meta(O3DE / name)["file"]
    return MapInput(name, "o3de", {"schema": "none", "source": file}, (),
                    (O3DE / name / file).read_bytes())


def _fb_buffer(name: str) -> bytes | None:
    stored = _meta(FLATBUFFERS / name).get("buf")
    if not stored:
        return None
    data = (FLATBUFFERS / name / stored).read_bytes()
    return gzip.decompress(data) if stored.endswith(".gz") else data


@functools.cache
def _fb_sizes() -> dict[str, int]:
    sizes = {}
    for name in case_names(FLATBUFFERS):
        data = _fb_buffer(name)
        if data is not None and len(data) <= FB_LARGEST:
            sizes[name] = len(data)
    return sizes


def _flatbuffers(name: str) -> MapInput:
    folder, meta = FLATBUFFERS / name, _meta(FLATBUFFERS / name)
    options = {"schema": str(folder / meta["schema"]),
               "include": [str(folder / p) for p in meta["include_paths"]],
               "type": meta["root_type"], "size_prefixed": meta["size_prefixed"]}
    data = _fb_buffer(name)
    assert data is not None
    return MapInput(name, "flatbuffers", options, (), data)


def _kingsisle(name: str) -> MapInput:
    config = _meta(KINGSISLE / name)["config"]
    options = {"schema": [str(KI_TYPES)], "flags": config["flags"],
               "mask": config["property_mask"], "deep": not config["shallow"],
               "manual_compression": config["compress"]}
    return MapInput(name, "kingsisle", options, (), (KINGSISLE / name / "data.bin").read_bytes())


def _fields(schema: ZezeSchema, bean: str) -> int:
    """The fields of ``bean``, its base beans' included."""
    count, rec = 0, schema.bean(bean)
    while True:
        count += len(rec.fields)
        if rec.base is None:
            return count
        rec = schema.bean(rec.base)


@functools.cache
def _zeze_beans() -> dict[str, int]:
    """``case/bean`` of every bean (not beankey) of every solution that loads, with its
    number of fields."""
    beans = {}
    for case in case_names(ZEZE):
        schema = load_solution(case)
        if isinstance(schema, ZezeSchema):
            for name, rec in schema.beans.items():
                if rec.kind == "bean" and not rec.attributes.get("external"):
                    beans[f"{case}/{name}"] = _fields(schema, name)
    return beans


def _zeze(name: str) -> MapInput:
    case, bean = name.split("/", 1)
    schema = load_solution(case)
    assert isinstance(schema, ZezeSchema)
    value = Values(schema, random.Random(f"{case}/{bean}")).bean(bean, 0)
    root = ZEZE / case / _meta(ZEZE / case)["root"]
    return MapInput(name.replace("/", "_"), "zeze", {"schema": str(root), "type": bean}, (),
                    zeze.encode(schema, bean, value))


def _o3de_size(name: str) -> int:
    return (O3DE / name / _meta(O3DE / name)["file"]).stat().st_size


def _godot_size(name: str) -> int:
    return int(_godot_cases()[name]["size"])


def _ki_size(name: str) -> int:
    return (KINGSISLE / name / "data.bin").stat().st_size


CORPORA: dict[str, tuple[Path, Callable[[], list[str]], Callable[[str], int],
                         Callable[[str], MapInput]]] = {
    "godot": (GODOT, lambda: list(_godot_cases()), _godot_size, _godot),
    "o3de": (O3DE, lambda: case_names(O3DE), _o3de_size, _o3de),
    "flatbuffers": (FLATBUFFERS, lambda: list(_fb_sizes()), lambda n: _fb_sizes()[n],
                    _flatbuffers),
    "kingsisle": (KINGSISLE, lambda: case_names(KINGSISLE), _ki_size, _kingsisle),
    "zeze": (ZEZE, lambda: list(_zeze_beans()), lambda n: _zeze_beans()[n], _zeze),
}
"""Per corpus: its folder, its mappable cases, a case's size (for the largest) and the case
as an input of ``inspect``."""

REFUSED = {"o3de": "extras_setreg_quality", "kingsisle": "katsuba_fail_delta_encode_forbid_absent"}
"""A file no engine reader takes (an invalid JSON escape at byte 1775; a delta value
missing at byte 12), sampled besides."""

SAMPLES = [(corpus, name) for corpus, (_, names, size, _) in CORPORA.items()
           for name in sorted({*_sample(names(), size), *([REFUSED[corpus]] if corpus in REFUSED
                                                         and names() else [])})]

BROWSED = {
    "godot": "demos-4.3__3d_truck_town_vehicles_meshes_minivan_res",
    "o3de": "o3de_prefab_DefaultLevel",
    "flatbuffers": "arrow_nested_schema1",
    "kingsisle": "katsuba_bit_integers_deep",
    "zeze": "zezejavatest_solution/demo.Module1.BValue",
}
"""The file of each corpus opened in the browser, and the fewest rows its map has."""
BROWSED_ROWS = {"godot": 300, "o3de": 300, "flatbuffers": 300, "kingsisle": 40, "zeze": 300}


def _input(corpus: str, name: str) -> MapInput:
    folder, _, _, make = CORPORA[corpus]
    require(folder, corpus)
    return make(name)


# -- the tests ------------------------------------------------------------------------------

def test_every_corpus_is_sampled() -> None:
    for corpus, (folder, names, _, _) in CORPORA.items():
        require(folder, corpus)
        sampled = [n for c, n in SAMPLES if c == corpus]
        assert SAMPLE <= len(sampled) <= SAMPLE + 2, corpus
        assert BROWSED[corpus] in names(), corpus


@pytest.mark.parametrize(("corpus", "name"), SAMPLES or [("godot", "(no corpus)")],
                         ids=[f"{c}/{n}" for c, n in SAMPLES] or ["no-corpus"])
def test_a_real_file_s_pages_hold_every_row_with_its_bytes(corpus: str, name: str) -> None:
    item = _input(corpus, name)
    byte_map = item.codec().inspect(item.data)
    assert byte_map.rows or byte_map.error is not None, name
    pages = byte_map.html_pages("map.html", title=f"{corpus}/{name}")
    assert [n for n, _ in pages] == ["map.html"] + [f"map.{k}.html"
                                                    for k in range(2, len(pages) + 1)]
    check_rows(byte_map, pages)
    check_error(byte_map, pages)


@pytest.mark.parametrize("corpus", sorted(BROWSED))
def test_a_real_file_s_page_links_tree_and_bytes_in_the_browser(corpus: str, page: Page,
                                                               page_log: PageLog,
                                                               tmp_path: Path) -> None:
    item = _input(corpus, BROWSED[corpus])
    byte_map, rows, url = _load(page, item, tmp_path)
    assert byte_map.error is None
    assert len(rows) >= BROWSED_ROWS[corpus], len(rows)
    assert page.locator("#hex").is_visible() and page.locator("#tree").is_visible()
    assert _check_tree_click(page, rows, byte_map.text) >= 2
    assert _check_byte_click(page, rows, byte_map.text) >= 2
    _check_clean(page, page_log, url)
