"""O3DE's JSON text, compare and patch cases (``shared/vectors/o3de/train.json``): every case
whose direction is ``compare``, ``apply_patch``, ``create_patch``, ``write_number`` or
``write_document``, one test each.

``GAMESERDE_O3DE_CASES`` names another file of the same format. A case of these directions
that the checks cannot understand fails; it is never skipped. (The other directions are
the type-directed store/load cases, tested elsewhere.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gameserde import o3de
from gameserde.errors import EncodeError
from gameserde.o3de.text import JsonObject

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "o3de" / "train.json"
CASES_FILE = Path(os.environ.get("GAMESERDE_O3DE_CASES", DEFAULT))
DIRECTIONS = ("compare", "apply_patch", "create_patch", "write_number", "write_document")


def _load() -> list[Any]:
    if not CASES_FILE.is_file():
        return [{"id": "<missing file>", "direction": "missing", "file": str(CASES_FILE)}]
    data = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("cases"), list), (
        f"{CASES_FILE}: no list of cases")
    return [case for case in data["cases"]
            if not isinstance(case, dict) or case.get("direction") in DIRECTIONS]


CASES = _load()


def value(encoded: Any) -> Any:
    """A JSON value of the vectors: ``{"__json_object_pairs__": [...]}`` is an object with
    repeated names, ``{"__float__": "nan"}`` a NaN; the rest is itself."""
    if isinstance(encoded, list):
        return [value(item) for item in encoded]
    if isinstance(encoded, dict):
        if set(encoded) == {"__json_object_pairs__"}:
            return JsonObject([(name, value(item))
                               for name, item in encoded["__json_object_pairs__"]])
        if set(encoded) == {"__float__"}:
            assert encoded["__float__"] in ("nan", "inf", "-inf"), encoded
            return float(encoded["__float__"])
        return {name: value(item) for name, item in encoded.items()}
    return encoded


def need(case: dict[str, Any], *fields: str) -> None:
    missing = [f for f in fields if f not in case]
    assert not missing, f"the case lacks {', '.join(missing)}: {case!r:.300}"


def same(got: Any, want: Any) -> bool:
    """Equal as JSON with integers and doubles told apart (``1`` is not ``1.0``); object
    members in any order, as the engine's tests compare (``JsonSerialization::Compare``)."""
    if isinstance(want, bool) or want is None:
        return got is want
    if isinstance(want, float):
        return isinstance(got, float) and (got == want or (got != got and want != want))
    if isinstance(want, int):
        return isinstance(got, int) and not isinstance(got, bool) and got == want
    if isinstance(want, str):
        return got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return False
        mine = sorted(o3de.members(got), key=lambda m: m[0])
        theirs = sorted(o3de.members(want), key=lambda m: m[0])
        return len(mine) == len(theirs) and all(
            gn == wn and same(gv, wv) for (gn, gv), (wn, wv) in zip(mine, theirs, strict=True))
    raise AssertionError(f"not a JSON value in the case: {want!r}")


def check_compare(case: dict[str, Any]) -> None:
    need(case, "input", "expected")
    pair = value(case["input"])
    assert isinstance(pair, list) and len(pair) == 2, f"compare takes [a, b]: {pair!r}"
    assert case["expected"] in ("Less", "Equal", "Greater"), case["expected"]
    assert o3de.compare(pair[0], pair[1]) == case["expected"]


def outcomes(case: dict[str, Any]) -> list[str]:
    want = case["outcome"]
    return want if isinstance(want, list) else [want]


def check_apply_patch(case: dict[str, Any]) -> None:
    need(case, "input", "expected", "type")
    given = case["input"]
    assert isinstance(given, dict) and {"target", "patch"} <= set(given), given
    result = o3de.apply_patch(value(given["target"]), value(given["patch"]), case["type"])
    if "outcome" in case:
        assert result.result.outcome.name in outcomes(case), result
    if "processing" in case:
        assert result.result.processing.name == case["processing"], result
    if case["expected"] is not None or result.result.processing.name != "Halted":
        assert same(result.value, value(case["expected"])), result


def check_create_patch(case: dict[str, Any]) -> None:
    need(case, "input", "expected", "type")
    given = case["input"]
    assert isinstance(given, dict) and {"source", "target"} <= set(given), given
    source, target = value(given["source"]), value(given["target"])
    result = o3de.create_patch(source, target, case["type"])
    if "outcome" in case:
        assert result.result.outcome.name in outcomes(case), result
    assert same(result.value, value(case["expected"])), result
    applied = o3de.apply_patch(source, result.value, case["type"])
    assert o3de.json_equal(applied.value, target), applied


def check_write_number(case: dict[str, Any]) -> None:
    need(case, "input", "expected")
    number = value(case["input"])
    assert isinstance(number, float), f"write_number takes a double: {number!r}"
    if case["expected"] is None:
        need(case, "outcome")
        with pytest.raises(EncodeError):
            o3de.write(number)
        return
    text = o3de.write(number)
    assert text == case["expected"]
    again = o3de.parse(text)
    assert isinstance(again, float) and o3de.write(again) == text


def check_write_document(case: dict[str, Any]) -> None:
    need(case, "input", "expected")
    document = value(case["input"])
    text = o3de.write(document)
    assert text == case["expected"]
    assert o3de.write(o3de.parse(text)) == text
    assert same(o3de.parse(text), document)


CHECKS = {
    "compare": check_compare,
    "apply_patch": check_apply_patch,
    "create_patch": check_create_patch,
    "write_number": check_write_number,
    "write_document": check_write_document,
}


def case_id(case: Any) -> str:
    return str(case.get("id", "<no id>")) if isinstance(case, dict) else "<not an object>"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_case(case: Any) -> None:
    assert isinstance(case, dict), f"a case is not an object: {case!r:.200}"
    if case.get("direction") == "missing":
        pytest.fail(f"the cases file {case['file']} is missing (set GAMESERDE_O3DE_CASES)",
                    pytrace=False)
    check = CHECKS.get(case.get("direction"))  # type: ignore[arg-type]
    assert check is not None, f"no check for the direction {case.get('direction')!r}"
    check(case)


def test_every_direction_is_present() -> None:
    """The file holds cases of each direction these checks cover."""
    seen = {case.get("direction") for case in CASES if isinstance(case, dict)}
    assert set(DIRECTIONS) <= seen, sorted(set(DIRECTIONS) - seen)
