"""What inspect's HTML pages hold, read back without a browser: every row of the map with its
path, type, value and bytes, pages of bounded size that cover the map in order, nothing from
the data outside the payload, and the command line's ``--html``."""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

import gameserde
from gameserde._bytemap import Path as MapPath
from gameserde._bytemap import Region
from gameserde._html import payload as payload_module
from gameserde._html.payload import MAX_TEXT, PAGE_BYTES, SHOWN_HEAD
from gameserde.cli import main
from gameserde.codecs import ByteMap
from tests.htmlmap.inputs import HOSTILE_STRINGS, MapInput, damaged, examples, hostile, megabyte
from tests.htmlmap.pagedata import check_error, check_rows, payload, shown_byte

FORMATS = ("godot", "flatbuffers", "zeze", "kingsisle", "o3de")
PAGE_LIMIT = 340_000
"""Most bytes of one page's file: its deflated payload in base64, with the page's script and
style."""


def _map(item: MapInput) -> ByteMap:
    return gameserde.codec(item.format, **item.options).inspect(item.data)


def _all_inputs() -> list[MapInput]:
    return [*examples(), *hostile(), *damaged()]


@pytest.mark.parametrize("item", _all_inputs(), ids=lambda i: i.name)
def test_a_page_holds_every_row_with_its_path_type_value_and_bytes(item: MapInput) -> None:
    byte_map = _map(item)
    pages = byte_map.html_pages("map.html", title=item.name)
    assert [n for n, _ in pages][:1] == ["map.html"]
    check_rows(byte_map, pages)
    check_error(byte_map, pages)


@pytest.mark.parametrize("item", hostile(), ids=lambda i: i.name)
def test_nothing_from_the_data_is_outside_the_payload(item: MapInput) -> None:
    """The page's markup is the same for every input but for the payload's base64 text and
    the escaped title; its script and style are allowed by their hashes and nothing else."""
    (_, html), = _map(item).html_pages("map.html", title='"><script>alert(1)</script>')
    data = re.sub(r'(id="gs-payload">)[A-Za-z0-9+/=]*', r"\1", html)
    for string in HOSTILE_STRINGS:
        assert string not in data
    assert "<script>alert(1)" not in data
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in data
    assert data.count("<script") == 2 and data.count("</script>") == 2
    script = re.search(r"<script>(.*)</script>", data, re.S)
    style = re.search(r"<style>(.*)</style>", data, re.S)
    assert script is not None and style is not None
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', data)
    assert policy is not None
    for text in (script[1], style[1]):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy[1]
    assert policy[1].startswith("default-src 'none';")
    assert "http" not in data.replace('http-equiv', "")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_megabyte_input_makes_pages_of_a_few_hundred_kilobytes(fmt: str) -> None:
    item = megabyte(fmt)
    byte_map = _map(item)
    assert byte_map.error is None
    pages = byte_map.html_pages("big.html", title=item.name)
    sizes = [len(html.encode()) for _, html in pages]
    assert max(sizes) <= PAGE_LIMIT, sizes
    for _, html in pages:
        found = re.search(r'id="gs-payload">([A-Za-z0-9+/=]*)<', html)
        assert found is not None
        assert len(base64.b64decode(found[1])) <= PAGE_BYTES
    assert [n for n, _ in pages] == ["big.html"] + [f"big.{k}.html" for k in
                                                     range(2, len(pages) + 1)]
    check_rows(byte_map, pages)
    if len(pages) > 1:
        index = payload(pages[0][1])["pages"]
        assert [p[0] for p in index] == [payload(h)["rows"]["first"] for _, h in pages]


def test_a_long_region_shows_its_start_and_end_and_long_texts_are_shortened() -> None:
    blob = bytes(range(256)) * 64
    value = {"k" * 1000: blob, "s": "x" * 5000}
    data = gameserde.codec("godot").encode(value)
    byte_map = gameserde.codec("godot").inspect(data)
    (_, html), = byte_map.html_pages()
    doc = payload(html)
    region = next(r for r in byte_map.rows if r.size > 10_000)
    assert shown_byte(doc, 0, region.offset + 100) is not None
    assert shown_byte(doc, 0, region.offset + region.size - 1) is not None
    assert shown_byte(doc, 0, region.offset + SHOWN_HEAD + 2048) is None
    long = ByteMap("godot", b"abcd", rows=[
        Region(0, 4, MapPath(MapPath(None, "$"), '["' + "k" * 1000 + '"]'), "t" * 1000,
               "n" * 1000)])
    doc = payload(long.html_pages()[0][1])
    assert [len(s) for s in doc["nodes"]["step"]] == [1, MAX_TEXT]
    assert len(doc["types"][0]) == len(doc["rows"]["note"][0]) == MAX_TEXT
    assert doc["rows"]["note"][0].endswith("\u2026")


def test_write_html_writes_every_page_beside_the_first(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(payload_module, "PAGE_BYTES", 400)
    byte_map = _map(examples()[0])
    written = byte_map.write_html(tmp_path / "godot.html")
    pages = byte_map.html_pages("godot.html")
    assert len(pages) > 2
    assert [Path(p).name for p in written] == [n for n, _ in pages]
    for path, (_, html) in zip(written, pages, strict=True):
        assert Path(path).read_text(encoding="utf-8") == html
    check_rows(byte_map, pages)


def test_a_page_name_has_no_folder() -> None:
    with pytest.raises(ValueError, match="without a folder"):
        _map(examples()[0]).html_pages("out/map.html")


@pytest.mark.parametrize("item", [*examples(), *damaged()], ids=lambda i: i.name)
def test_the_command_line_writes_the_library_s_page(item: MapInput, tmp_path: Path,
                                                     capsys: Any) -> None:
    source = tmp_path / "input.bin"
    source.write_bytes(item.data)
    out = tmp_path / "map.html"
    status = main(["inspect", item.format, *item.cli, str(source), "--html", str(out)])
    captured = capsys.readouterr()
    byte_map = _map(item)
    assert status == (0 if byte_map.error is None else 1)
    assert captured.out == ""
    if byte_map.error is not None:
        assert str(byte_map.error) in captured.err
    assert out.read_text(encoding="utf-8") == byte_map.html_pages("map.html", "input.bin")[0][1]


@pytest.mark.parametrize(("extra", "message"), [
    (["-o", "x.txt"], "-o does not go with it"),
    (["--as", "json"], "--as does not go with it"),
    (["--html", "-"], "needs a file name"),
])
def test_the_command_line_refuses_what_html_cannot_go_with(extra: list[str], message: str,
                                                           tmp_path: Path,
                                                           capsys: Any) -> None:
    item = examples()[0]
    source = tmp_path / "input.bin"
    source.write_bytes(item.data)
    args = ["inspect", item.format, *item.cli, str(source), "--html", str(tmp_path / "m.html")]
    assert main([*args, *extra]) == 2
    assert message in capsys.readouterr().err


def test_the_command_line_maps_one_input_to_html(tmp_path: Path, capsys: Any) -> None:
    item = examples()[0]
    for name in ("a.bin", "b.bin"):
        (tmp_path / name).write_bytes(item.data)
    status = main(["inspect", item.format, *item.cli, str(tmp_path / "a.bin"),
                   str(tmp_path / "b.bin"), "--html", str(tmp_path / "m.html")])
    assert status == 2
    assert "--html maps one input" in capsys.readouterr().err
    assert not (tmp_path / "m.html").exists()


def test_an_error_in_inflated_data_is_marked_in_its_section() -> None:
    """A KingsIsle stream whose zlib data inflates to a cut body: the page marks the ERROR row
    in the inflated section, not at that offset of the input."""
    item = next(i for i in examples() if i.name == "kingsisle-example")
    plain = gameserde.codec("kingsisle", **item.options)
    packed = gameserde.codec("kingsisle", **{**item.options, "flags": 8})
    stream = plain.convert(item.data, packed)
    body = zlib.decompress(stream[5:])
    cut = body[:len(body) // 2]
    byte_map = packed.inspect(stream[:1] + len(cut).to_bytes(4, "little") + zlib.compress(cut))
    assert [t for t, _, _ in byte_map.parts()] == ["stream", "inflated body"]
    doc = payload(byte_map.html_pages()[0][1])
    rows = byte_map.to_jsonable()["rows"]
    assert (doc["error"]["section"], doc["error"]["row"]) == (1, len(rows) - 1)
    assert doc["error"]["offset"] == byte_map.parts()[1][2][-1].offset
    assert "(the offset is in the inflated data)" in doc["error"]["message"]


def test_the_command_line_says_how_many_pages_it_wrote(tmp_path: Path, capsys: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(payload_module, "PAGE_BYTES", 400)
    item = examples()[0]
    source = tmp_path / "input.bin"
    source.write_bytes(item.data)
    out = tmp_path / "map.html"
    assert main(["inspect", item.format, *item.cli, str(source), "--html", str(out)]) == 0
    pages = sorted(tmp_path.glob("map*.html"))
    err = capsys.readouterr().err
    assert len(pages) > 2
    assert err == (f"gameserde: {source}: the map takes {len(pages)} pages, {out} to "
                   f"{tmp_path / f'map.{len(pages)}.html'}\n")

