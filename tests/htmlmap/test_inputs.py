"""The inputs of the HTML byte map tests are what they claim: the examples and the megabytes
are sound, the damaged ones are not (with rows before the error), the hostile ones show every
hostile string in their rows, and the command line's options read each the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gameserde.cli import main
from tests.htmlmap.inputs import (
    CANNOT_CARRY,
    FORMATS,
    HOSTILE_STRINGS,
    MEGABYTE,
    MapInput,
    damaged,
    examples,
    hostile,
    megabyte,
    shown_in,
)

SOUND = [*examples(), *hostile()]


def check_cli(item: MapInput, expected: dict[str, object], tmp_path: Path) -> None:
    """``gameserde inspect`` with ``item.cli`` writes the map the codec makes."""
    source, out = tmp_path / f"{item.name}.bin", tmp_path / "map.json"
    source.write_bytes(item.data)
    status = main(["inspect", item.format, *item.cli, str(source), "--as", "json",
                   "-o", str(out)])
    assert status == (0 if expected["error"] is None else 1)
    assert json.loads(out.read_text(encoding="utf-8")) == expected


def test_every_format_has_each_kind() -> None:
    for inputs in (examples(), hostile(), damaged()):
        assert sorted({i.format for i in inputs}) == sorted(FORMATS)
    names = [i.name for i in (*examples(), *hostile(), *damaged())]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("item", SOUND, ids=lambda i: i.name)
def test_sound(item: MapInput, tmp_path: Path) -> None:
    byte_map = item.codec().inspect(item.data)
    assert byte_map.error is None
    assert byte_map.rows
    check_cli(item, byte_map.to_jsonable(), tmp_path)


@pytest.mark.parametrize("item", damaged(), ids=lambda i: i.name)
def test_damaged(item: MapInput, tmp_path: Path) -> None:
    byte_map = item.codec().inspect(item.data)
    assert byte_map.error is not None
    assert byte_map.rows
    check_cli(item, byte_map.to_jsonable(), tmp_path)


@pytest.mark.parametrize("item", hostile(), ids=lambda i: i.name)
def test_hostile_strings_are_shown(item: MapInput) -> None:
    rows = item.codec().inspect(item.data).rows
    carried = [s for s in HOSTILE_STRINGS if s not in CANNOT_CARRY.get(item.format, ())]
    missing = [s for s in carried if not any(shown_in(r.path, s) or shown_in(r.note, s)
                                             for r in rows)]
    assert missing == []


@pytest.mark.parametrize("fmt", ["godot", "zeze", "o3de"])
def test_hostile_keys_are_in_paths(fmt: str) -> None:
    """Formats whose data has keys hold the hostile strings there too: the shorter ones
    (paths shorten long keys) are in the rows' paths."""
    item = next(i for i in hostile() if i.format == fmt)
    paths = [r.path for r in item.codec().inspect(item.data).rows]
    for s in ("<!--", "]]>", "line\u2028sep"):
        assert any(s in p for p in paths), s


def test_kingsisle_bit_fields() -> None:
    rows = {i.name: i.codec().inspect(i.data).rows for i in examples()
            if i.format == "kingsisle"}
    assert all(r.bits is not None for r in rows["kingsisle-example"])
    assert any(r.bits == 1 for r in rows["kingsisle-example"])
    assert any(r.bit != 0 for r in rows["kingsisle-bits"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_megabyte(fmt: str) -> None:
    item = megabyte(fmt)
    assert item.format == fmt
    assert MEGABYTE[0] <= len(item.data) < MEGABYTE[1]
    assert item.codec().verify(item.data).startswith("ok")
