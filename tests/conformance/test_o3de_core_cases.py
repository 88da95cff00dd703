"""O3DE's own JSON-serialization test cases (``shared/vectors/o3de/train.json``): the load,
store, combine, load_type_id and store_type_id directions.

``GAMESERDE_O3DE_CASES`` names another file of the same format. One test per case; a case of
these directions that the test does not understand fails, it is never skipped. The registry is
built from the file's ``types`` (see ``tests/o3de/cases.py`` for what is written by hand).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gameserde.o3de import (
    Registry,
    Result,
    ResultCode,
    Tasks,
    load,
    load_direct,
    load_type_id,
    parse_uuid,
    store,
    store_type_id,
)
from gameserde.o3de.result import Outcomes
from gameserde.o3de.values import JsonPairs
from tests.o3de.cases import build_registry, decode, json_input, normal

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "o3de" / "train.json"
CASES = Path(os.environ.get("GAMESERDE_O3DE_CASES", DEFAULT))
DIRECTIONS = ("load", "store", "combine", "load_type_id", "store_type_id")


def _load_file() -> dict[str, Any]:
    if not CASES.is_file():
        return {"types": {}, "cases": [{"id": "<missing file>", "direction": "load",
                                        "missing": str(CASES)}]}
    data = json.loads(CASES.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{CASES}: the top level is not an object"
    return data


DATA = _load_file()
TYPES: dict[str, Any] = DATA.get("types", {})
SELECTED = [c for c in DATA.get("cases", []) if c.get("direction") in DIRECTIONS]
_REGISTRIES: dict[tuple[Any, ...], Registry] = {}


def registry(without: frozenset[str] = frozenset(), only: tuple[str, ...] | None = None
             ) -> Registry:
    key = (without, only)
    if key not in _REGISTRIES:
        _REGISTRIES[key] = build_registry(TYPES, without=set(without),
                                          only=list(only) if only is not None else None)
    return _REGISTRIES[key]


def _registry_for(case: dict[str, Any]) -> Registry:
    without = set()
    if case.get("registered") is False:
        without.add(case["type"])
    if case["type"] == "ClassWithPointerToUnregisteredClass":
        without.add("EmptyClass")
    return registry(frozenset(without))


def check_result(case: dict[str, Any], result: Result) -> None:
    expected = case.get("outcome")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        assert result.outcome.name in names, f"outcome {result.outcome.name}, want {names}"
    if "processing" in case:
        assert result.processing.name == case["processing"], (
            f"processing {result.processing.name}, want {case['processing']}")


def _plain(value: Any) -> Any:
    if isinstance(value, JsonPairs):
        return {"__json_object_pairs__": [[k, _plain(v)] for k, v in value.pairs]}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def run_load(case: dict[str, Any]) -> None:
    reg = _registry_for(case)
    full = registry()
    t = full.resolve(case["type"])
    target = decode(full, t, case["initial"]) if "initial" in case else None
    loader = load_direct if case.get("entry") == "serializer" else load
    value, result = loader(case["type"], json_input(case["input"]), registry=reg, target=target,
                           clear_containers=bool(case.get("clear_containers")))
    check_result(case, result)
    halted = result.code.halted
    if case["expected"] is None and halted:
        return
    want = decode(full, t, case["expected"])
    assert normal(full, t, value) == normal(full, t, want), f"loaded {value!r}, want {want!r}"


def run_store(case: dict[str, Any]) -> None:
    reg = _registry_for(case)
    full = registry()
    t = full.resolve(case["type"])
    value = decode(full, t, case["input"])
    kwargs: dict[str, Any] = {"keep_defaults": bool(case.get("keep_defaults"))}
    if "default" in case:
        kwargs["default"] = decode(full, t, case["default"])
    out, result = store(value, case["type"], registry=reg, **kwargs)
    check_result(case, result)
    if case["expected"] is None and result.code.halted:
        return
    assert json.dumps(_plain(out)) == json.dumps(case["expected"]), (
        f"stored {json.dumps(_plain(out))}")


def _code(pair: list[Any]) -> ResultCode:
    task = Tasks[pair[0]]
    return ResultCode.task_only(task) if pair[1] is None else ResultCode.of(task, Outcomes[pair[1]])


def run_combine(case: dict[str, Any]) -> None:
    first, second = (_code(p) for p in case["input"])
    combined = first.combine(second)
    expected = case["expected"]
    assert expected and set(expected) <= {"task", "processing", "outcome"}, expected
    for name, want in expected.items():
        assert getattr(combined, name).name == want, f"{name}: {combined!r}, want {want}"


def _typeid(reg: Registry, spec: Any) -> Any:
    if isinstance(spec, dict):
        return reg.type_id(reg.resolve(spec["__typeid_of__"]))
    return parse_uuid(spec)


def _type_id_registry(case: dict[str, Any]) -> Registry:
    if "registered_classes" in case:
        return registry(only=tuple(case["registered_classes"]))
    return registry()


def run_load_type_id(case: dict[str, Any]) -> None:
    reg = _type_id_registry(case)
    uuid, result = load_type_id(case["input"], registry=reg, base_type=case.get("base_type"))
    check_result(case, result)
    assert uuid == _typeid(registry(), case["expected"]), f"loaded {uuid}"


def run_store_type_id(case: dict[str, Any]) -> None:
    reg = _type_id_registry(case)
    text, result = store_type_id(_typeid(registry(), case["input"]), registry=reg)
    check_result(case, result)
    assert text == case["expected"]


RUNNERS = {"load": run_load, "store": run_store, "combine": run_combine,
           "load_type_id": run_load_type_id, "store_type_id": run_store_type_id}


@pytest.mark.parametrize("case", SELECTED, ids=[str(c.get("id")) for c in SELECTED])
def test_case(case: dict[str, Any]) -> None:
    assert "missing" not in case, f"the case file is missing: {case.get('missing')}"
    needed = {"load": ("type", "input", "expected"), "store": ("type", "input", "expected"),
              "combine": ("input", "expected"), "load_type_id": ("input", "expected"),
              "store_type_id": ("input", "expected")}[case["direction"]]
    assert all(k in case for k in needed), f"the case lacks one of {needed}"
    RUNNERS[case["direction"]](case)
