"""Values the engine stores as nothing: its "no work done" rule and gameserde's report of it.

An empty container (or an empty ``AZStd::any``) gives a result code with no outcome, which
reads as DefaultsUsed; a container, pair or object of nothing but such values has no outcome
either, so the engine writes it as if it were empty and a member of it is left out
(``JsonBasicContainerSerializer::Store``, ``JsonSerializer::StoreWithClassElement``). The
output and code stay the engine's; the loss is reported as a Skipped issue.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gameserde.o3de import AnyValue, Registry, ResultCode, _plans, load, store
from gameserde.o3de.result import Outcomes, Processing, Tasks


@pytest.fixture(params=[True, False], ids=["plans", "reference"])
def plans(request: pytest.FixtureRequest) -> Iterator[None]:
    saved = _plans.ENABLED
    _plans.ENABLED = request.param
    try:
        yield
    finally:
        _plans.ENABLED = saved


def _hypothesis_case() -> tuple[Registry, Any]:
    """The registry and value Hypothesis found (test_round_trip_leaving_defaults_out)."""
    reg = Registry()
    reg.add_class("C0", None, [("f0_0", "vector<unordered_set<int>>")])
    reg.add_class("C1", None, [("f1_0", "char")])
    reg.add_class("C2", None, [*((f"f2_{i}", "char") for i in range(4)),
                               ("f2_4", "array<vector<C0>,2>")])
    c0 = reg.create(reg.resolve("C0"))
    c0.f0_0 = []
    c2 = reg.create(reg.resolve("C2"))
    c2.f2_4 = [[], [c0]]
    return reg, c2


@pytest.mark.usefixtures("plans")
def test_container_of_empty_objects_is_left_out_as_the_engine_does_and_reported() -> None:
    reg, value = _hypothesis_case()
    out, result = store(value, "C2", registry=reg, keep_defaults=False)
    assert out == {}
    # The chars and the AZStd::array report DefaultsUsed: the code is the engine's.
    assert result.code == ResultCode.of(Tasks.WriteValue, Outcomes.DefaultsUsed)
    assert [(i.path, i.code) for i in result.issues] == [
        ("f2_4.1", ResultCode.of(Tasks.WriteValue, Outcomes.Skipped))]
    assert "not written" in result.issues[0].message
    back, loaded = load("C2", out, registry=reg)
    assert loaded.ok
    assert back.f2_4 == [[], []]  # the C0 element is lost, as in the engine


@pytest.mark.usefixtures("plans")
def test_keeping_defaults_writes_the_container_of_empty_objects() -> None:
    reg, value = _hypothesis_case()
    out, result = store(value, "C2", registry=reg, keep_defaults=True)
    assert out["f2_4"] == [[], [{"f0_0": []}]]
    assert result.issues == []
    back, loaded = load("C2", out, registry=reg)
    assert loaded.ok and back == value


@pytest.mark.usefixtures("plans")
def test_only_the_innermost_losing_container_is_reported() -> None:
    reg = Registry()
    out, result = store([[[]], [[]]], "vector<vector<vector<int>>>", registry=reg)
    assert out == {}
    assert [i.path for i in result.issues] == ["0", "1"]
    out, result = store([[]], "vector<vector<int>>", registry=reg)
    assert out == {} and [i.path for i in result.issues] == ["<root>"]


@pytest.mark.usefixtures("plans")
def test_empty_containers_and_elements_with_work_are_not_reported() -> None:
    reg = Registry()
    assert store([], "vector<int>", registry=reg) == ({}, store([], "vector<int>",
                                                              registry=reg)[1])
    assert store([], "vector<int>", registry=reg)[1].issues == []
    out, result = store([[], [0]], "vector<vector<int>>", registry=reg)
    assert out == [{}, [{}]] and result.outcome is Outcomes.PartialDefaults
    assert result.issues == []


def test_a_reporter_sees_the_loss_and_may_halt() -> None:
    reg, value = _hypothesis_case()
    seen: list[tuple[str, ResultCode]] = []

    def halting(message: str, code: ResultCode, path: str) -> ResultCode:
        seen.append((path, code))
        if code.outcome is Outcomes.Skipped:
            return ResultCode.of(code.task, Outcomes.Catastrophic)
        return code

    _, result = store(value, "C2", registry=reg, reporter=halting)
    assert ("f2_4.1", ResultCode.of(Tasks.WriteValue, Outcomes.Skipped)) in seen
    assert result.processing is Processing.Halted


@pytest.mark.usefixtures("plans")
def test_array_of_nothing_reports_defaults_used_itself() -> None:
    """``JsonArraySerializer::Store`` reports DefaultsUsed (not "no work") when its slots
    did nothing, so an enclosing container has done work and writes ``{}`` for it."""
    reg = Registry()
    out, result = store([[[], []]], "vector<array<vector<int>,2>>", registry=reg)
    assert out == [{}]
    assert result.outcome is Outcomes.PartialDefaults and result.issues == []
    back, _ = load("vector<array<vector<int>,2>>", out, registry=reg)
    assert back == [[[], []]]


@pytest.mark.usefixtures("plans")
def test_array_writes_nothing_when_slots_read_defaults_used_even_keeping_defaults() -> None:
    reg = Registry()
    out, result = store([AnyValue(), AnyValue()], "array<AZStd::any,2>", registry=reg,
                        keep_defaults=True)
    assert out == {} and result.code == ResultCode.of(Tasks.WriteValue, Outcomes.DefaultsUsed)


@pytest.mark.usefixtures("plans")
def test_empty_any_does_no_work() -> None:
    reg = Registry()
    for keep in (False, True):
        out, result = store(AnyValue(), "AZStd::any", registry=reg, keep_defaults=keep)
        assert out == {} and not result.code.has_done_work
    out, result = store([AnyValue()], "vector<AZStd::any>", registry=reg)
    assert out == {} and [i.path for i in result.issues] == ["<root>"]
    out, result = store([AnyValue()], "vector<AZStd::any>", registry=reg, keep_defaults=True)
    assert out == [{}] and result.code == ResultCode.of(Tasks.WriteValue, Outcomes.Success)


@pytest.mark.usefixtures("plans")
def test_any_value_without_a_default_of_its_type_is_written() -> None:
    """``ContinueStoringToJsonObjectField`` without ``ReplaceDefault``: a leaf held by an any
    gets no default to compare with, so a zero is written."""
    reg = Registry()
    out, result = store(AnyValue("int", 0), "AZStd::any", registry=reg)
    assert out == {"$type": "int", "Value": 0}
    assert result.code == ResultCode.of(Tasks.WriteValue, Outcomes.Success)


@pytest.mark.usefixtures("plans")
def test_field_of_nothing_with_a_different_default_is_reported() -> None:
    reg = Registry()
    reg.add_class("Holder", None, [("items", "vector<int>", [1, 2]), ("n", "int", 0)])
    holder = reg.create(reg.resolve("Holder"))
    holder.items = []
    out, result = store(holder, "Holder", registry=reg)
    assert out == {}  # the engine leaves the empty container out...
    assert [(i.path, i.code.outcome) for i in result.issues] == [("items", Outcomes.Skipped)]
    back, _ = load("Holder", out, registry=reg)
    assert back.items == [1, 2]  # ...so it loads back as the default
    holder.items = [1, 2]
    assert store(holder, "Holder", registry=reg)[1].issues == []
