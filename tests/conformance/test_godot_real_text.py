"""The real Godot text resources and scenes of ``../shared/corpus/godot-real`` (184 ``.tscn``
and ``.tres`` files written by Godot 2.1 to 4.7 editors and by games' ``ResourceSaver``; its
README and manifest describe each): every one read, written back byte for byte, printed
value by value as the engine prints it, and written with one property changed.

The corpus lives beside the project; without it these tests are skipped, or fail when
``CI=true``.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import pytest

from gameserde.godot import types as gt
from gameserde.godot.resource import text
from gameserde.godot.resource.model import ResourceFile
from gameserde.godot.resource.text_variant import format_value
from tests.conformance.corpus import corpus_dir, require

CORPUS = corpus_dir("godot-real")
TEXT_KINDS = ("tscn", "tres")


@cache
def _cases() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    cases = json.loads(manifest.read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if c["kind"] in TEXT_KINDS]


def _data(case: dict[str, Any]) -> bytes:
    return (CORPUS / case["case"] / case["file"]).read_bytes()


CASES = [c["case"] for c in _cases()]
BY_NAME = {c["case"]: c for c in _cases()}


def test_corpus_is_there() -> None:
    require(CORPUS, "godot-real")
    counts: dict[int, int] = {}
    for case in _cases():
        counts[case["engine_major"]] = counts.get(case["engine_major"], 0) + 1
    assert counts == {2: 4, 3: 63, 4: 117}


@pytest.mark.parametrize("name", CASES)
def test_read_and_write_back_identical(name: str) -> None:
    case = BY_NAME[name]
    data = _data(case)
    file = text.read(data)
    assert file.form == "text"
    assert file.format == case["text"]["format"]
    assert file.type == case["type"]
    counts = case["text"]["counts"]
    assert len(file.external) == counts.get("ext_resource", 0)
    held = counts.get("sub_resource", 0) + 1
    assert len(file.resources) == held
    if file.scene is not None:
        assert len(file.scene.nodes) == counts.get("node", 0)
        assert len(file.scene.connections) == counts.get("connection", 0)
        assert len(file.scene.editable) == counts.get("editable", 0)
    assert text.write(file).encode("utf-8") == data


def _holders(file: ResourceFile) -> list[tuple[str, dict[str, Any]]]:
    """Every property dictionary of the file with its section's key in ``kept``."""
    out = [(json.dumps(["sub", r.id]), r.properties) for r in file.resources[:-1]]
    if file.scene is None:
        out.append((json.dumps(["resource"]), file.main.properties))
    else:
        out += [(json.dumps(["node", n.parent, n.name]), n.properties) for n in file.scene.nodes]
    return out


def _spelled_by_the_converter(raw: str) -> bool:
    """Godot 4.0's converter of Godot 3 projects wrote references as ``ExtResource( "3" )``;
    the editor writes ``ExtResource("3")`` when it saves the value again."""
    return "Resource( " in raw


@pytest.mark.parametrize("name", [n for n in CASES if BY_NAME[n]["engine_major"] >= 3])
def test_every_value_prints_as_the_engine_wrote_it(name: str) -> None:
    file = text.read(_data(BY_NAME[name]))
    sections = file.kept["text_sections"]
    for section in sections.values():
        if not _spelled_by_the_converter(section["raw"]):
            assert section["canon"] == section["raw"]
    printer = text._printer(file)
    for key, props in _holders(file):
        for prop, value in props.items():
            _lead, raw, start = sections[key]["props"][prop]
            if not _spelled_by_the_converter(raw[start:]):
                assert printer.format(value) == raw[start:], prop


def _changed(value: Any) -> Any | None:
    """Another value of the same type, or None when there is no simple one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float) and math.isfinite(value):
        return value + 0.5
    if type(value) is str:
        return value + " (changed)"
    if isinstance(value, gt.Vector2):
        return gt.Vector2(value.x + 1.5, value.y)
    if isinstance(value, gt.Color):
        return gt.Color(0.25, value.g, value.b, value.a)
    return None


@pytest.mark.parametrize("name", CASES)
def test_one_property_changed(name: str) -> None:
    data = _data(BY_NAME[name]).decode("utf-8")
    file = text.read(data)
    sections = file.kept["text_sections"]
    found = next(((key, props, prop, new) for key, props in _holders(file)
                  for prop, value in props.items()
                  if (new := _changed(value)) is not None and key in sections), None)
    if found is None:
        pytest.skip("the file has no simple property to change")
    key, props, prop, new = found
    old_raw = sections[key]["props"][prop][1]
    props[prop] = new
    out = text.write(file)
    major = 4 if file.format >= 3 else 3
    new_text = format_value(new, major, file.kept["text_float_style"])
    new_raw = f"{text._encode_name(prop)} = {new_text}"
    assert new_raw in out
    assert out.replace(new_raw, old_raw, 1) == data
    again = dict(_holders(text.read(out)))[key]
    assert format_value(again[prop], major, file.kept["text_float_style"]) == new_text
