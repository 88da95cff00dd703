"""Per-type rules and result handling beyond the conformance file."""

from __future__ import annotations

import math
from typing import Any
from uuid import UUID

import pytest

from gameserde.errors import EncodeError
from gameserde.o3de import (
    AnyValue,
    Color,
    JsonPairs,
    Outcomes,
    Quaternion,
    Registry,
    ResultCode,
    Tasks,
    Transform,
    Vector3,
    load,
    load_direct,
    store,
    store_type_id,
)
from gameserde.o3de._cparse import format_f, strtod, strtoll, strtoull


@pytest.fixture
def reg() -> Registry:
    r = Registry()
    r.add_class("Base", "{E0A66EB6-1AC5-4C73-B1A7-6367A47EC026}", [("Value", "float", 1.0)])
    r.add_class("A::Thing", "{E7829F37-C577-4F2B-A85B-6F331548354C}", [("a", "int32")],
                bases=["Base"], registered_name="Thing")
    r.add_class("B::Thing", "{0DF033C4-3EEC-4F61-8B79-59FE31545029}", [("b", "int32")],
                bases=["Base"], registered_name="Thing")
    r.add_class("Holder", None, [("ptr", "shared_ptr<Base>"), ("list", "vector<int32>"),
                                 ("name", "string", "x")])
    return r


def test_c_parsing() -> None:
    assert strtoll("  -0x1fz") == (-31, 7, False)
    assert strtoll("0777") == (511, 4, False)
    assert strtoll("+") == (0, 0, False)
    assert strtoll("9" * 100000)[2] and strtoull("-1") == (2**64 - 1, 2, False)
    assert strtod("1e-320") == (1e-320, 6, True)
    assert strtod("  .5e+2xyz")[:2] == (50.0, 7)
    assert strtod("-INFINITY") == (-math.inf, 9, False)
    assert math.isnan(strtod("nan(123)")[0])
    assert strtod("1" * 100000 + ".5")[2]
    assert format_f(-0.0) == "-0.000000" and format_f(1e20) == "100000000000000000000.000000"


def test_reporter_sees_paths_and_can_change_codes(reg: Registry) -> None:
    seen: list[tuple[str, str]] = []

    def reporter(message: str, code: ResultCode, path: str) -> ResultCode:
        seen.append((path, code.outcome.name))
        if code.outcome is Outcomes.Skipped:
            return ResultCode.of(code.task, Outcomes.Catastrophic)
        return code

    value, result = load("Holder", {"list": [1, "x", 3], "Nope": 1, "name": "y"}, registry=reg,
                         reporter=reporter)
    assert ("/list/1", "Unsupported") in seen and ("/Nope", "Skipped") in seen
    assert result.outcome is Outcomes.Catastrophic and result.code.halted
    assert value.list == [1, 3] and value.name == "y"  # a skipped member never halts
    _, plain = load("Holder", {"list": [1, "x"], "Nope": 1}, registry=reg)
    assert [(i.path, i.code.outcome.name) for i in plain.issues] == [
        ("/list/1", "Unsupported"), ("/list", "Unsupported"), ("/Nope", "Skipped")]
    assert not plain.ok


def test_store_paths_are_dotted(reg: Registry) -> None:
    holder = reg.create(reg.resolve("Holder"))
    holder.list = [1, 2]
    paths: list[str] = []

    def reporter(message: str, code: ResultCode, path: str) -> ResultCode:
        paths.append(path)
        return code

    _, result = store(holder, registry=reg, reporter=reporter)
    assert set(paths) >= {"list.0", "list.1", "list", "name"} and not result.issues


def test_field_names_match_case_insensitively_and_duplicates_last_wins(reg: Registry) -> None:
    value, result = load("Holder", JsonPairs([("NAME", "a"), ("name", "b")]), registry=reg)
    assert value.name == "b" and result.outcome is Outcomes.PartialDefaults


class _RepeatingObject(dict[str, Any]):
    """Like the text layer's objects: a dict of the first values, every member in ``pairs``."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.pairs = pairs
        for name, value in pairs:
            self.setdefault(name, value)


def test_objects_with_a_pairs_list_are_read_member_by_member(reg: Registry) -> None:
    doc = _RepeatingObject([("name", "a"), ("list", [1]), ("name", "b"), ("list", [2])])
    value, _ = load("Holder", doc, registry=reg)
    assert value.name == "b" and value.list == [1, 2]
    held, _ = load("any", _RepeatingObject([("$type", "Base"), ("$type", "Nope"),
                                            ("Value", {"Value": 2.0})]), registry=reg)
    assert held.type == "Base" and held.value.Value == 2.0


def test_pointers_write_type_names_with_uuid_on_clashes(reg: Registry) -> None:
    holder = reg.create(reg.resolve("Holder"))
    holder.ptr = reg.create(reg.resolve("A::Thing"))
    holder.ptr.a = 5
    out, _ = store(holder, registry=reg)
    assert out == {"ptr": {"$type": "{E7829F37-C577-4F2B-A85B-6F331548354C} Thing", "a": 5}}
    back, result = load("Holder", out, registry=reg)
    assert type(back.ptr) is type(holder.ptr) and back.ptr.a == 5
    ambiguous, result = load("Holder", {"ptr": {"$type": "thing"}}, registry=reg)
    assert result.outcome is Outcomes.Unknown and ambiguous.ptr is None
    assert store_type_id(reg.resolve("Base"), registry=reg)[0] == "Base"


def test_containers_append_unless_cleared(reg: Registry) -> None:
    holder = reg.create(reg.resolve("Holder"))
    holder.list = [7]
    value, _ = load("Holder", {"list": [8]}, registry=reg, target=holder)
    assert value.list == [7, 8]
    value, result = load("vector<int32>", [9], registry=reg, target=[1, 2], clear_containers=True)
    assert value == [9] and result.outcome is Outcomes.Success


def test_unordered_outputs_are_sorted(reg: Registry) -> None:
    assert store({"b": 1, "a": 2}, "unordered_map<string,int32>", registry=reg)[0] == \
        {"a": 2, "b": 1}
    assert list(store({"b": 1, "a": 2}, "unordered_map<string,int32>", registry=reg)[0]) == \
        ["a", "b"]
    assert store({3, 1, 2}, "unordered_set<int32>", registry=reg)[0] == [1, 2, 3]
    out, _ = store([("k", "z"), ("k", "a"), ("j", "q")], "unordered_multimap<string,string>",
                   registry=reg)
    assert out == {"j": ["q"], "k": ["a", "z"]}


def test_math_forms() -> None:
    reg = Registry()
    quat, result = load_direct("Quaternion", {"yaw": 90.0}, registry=reg)
    assert result.outcome is Outcomes.Success
    assert quat == pytest.approx(Quaternion(0.70710677, 0.0, 0.0, 0.70710677))
    assert load_direct("Quaternion", {}, registry=reg)[0] == Quaternion()
    assert load_direct("Color", {"HEX": "FF0000 with text"}, registry=reg,
                       target=Color(0, 0, 0, 0.5))[0] == Color(1.0, 0.0, 0.0, 0.5)
    assert load_direct("Color", {"RGB8": [300, -5, 128]}, registry=reg)[0][:2] == (1.0, 0.0)
    _, bad = load_direct("Color", {"HEX": "12345"}, registry=reg)
    assert bad.outcome is Outcomes.Unsupported
    assert load_direct("Matrix3x3", [1, 0, 0, 0, 2, 0, 0, 0, 3], registry=reg)[0].elements[4] == 2
    turned, result = load("Matrix3x4", {"Yaw": 90.0, "scale": 2, "x": 5}, registry=reg)
    assert turned.elements == pytest.approx((0, -2, 0, 5, 2, 0, 0, 0, 0, 0, 2, 0), abs=1e-6)
    assert result.outcome is Outcomes.Success
    assert load("Matrix4x4", {"roll": 0}, registry=reg)[1].outcome is Outcomes.DefaultsUsed
    assert load("Matrix3x3", {"scale": 0}, registry=reg)[1].outcome is Outcomes.Unsupported
    transform = Transform(Vector3(1, 2, 3), Quaternion(), 2.0)
    out, _ = store(transform, registry=reg, default=Transform())
    assert out == {"Translation": [1.0, 2.0, 3.0], "Scale": 2.0}
    assert load("Transform", out, registry=reg)[0] == transform


def test_strings_numbers_and_uuids() -> None:
    reg = Registry()
    assert load("string", 1e300, registry=reg)[0].startswith("1000000000000000052504760255204")
    assert load("int16", "0x7fff", registry=reg)[0] == 32767
    assert load("uint64", 2**64, registry=reg)[1].outcome is Outcomes.Unsupported
    assert load("double", 10**400, registry=reg)[1].outcome is Outcomes.Unsupported
    uid = UUID("8651B6DA-9792-407C-A46D-A6E2E39CA900")
    assert load("Uuid", "x{8651b6da9792407ca46da6e2e39ca900}", registry=reg)[0] == uid
    assert store(uid, "Uuid", registry=reg)[0] == "{8651B6DA-9792-407C-A46D-A6E2E39CA900}"
    assert store(0.1, "float", registry=reg)[0] == 0.10000000149011612
    assert load("Name", 2.5, registry=reg)[0] == "2.500000"
    assert store("n", "AZ::Name", registry=reg, default="n")[0] == {}
    with pytest.raises(EncodeError):
        store("x", "int32", registry=reg)
    with pytest.raises(EncodeError):
        store(300, "uint8", registry=reg)


def test_any_signed_char_and_rejected_types() -> None:
    reg = Registry()
    reg.add_class("C", None, [("x", "int32")])
    value = AnyValue("C", reg.create(reg.resolve("C")))
    out, result = store(value, "any", registry=reg)
    assert out == {"$type": "C"} and result.outcome is Outcomes.PartialDefaults
    assert store(AnyValue(), "any", registry=reg)[0] == {}
    assert load("signed char", 5, registry=reg)[1].outcome is Outcomes.Unsupported
    assert store(5, "int8_t", registry=reg)[1].outcome is Outcomes.DefaultsUsed
    for name in ("optional<int32>", "variant<int32,float>", "bitset<8>"):
        _, result = load(name, 1, registry=reg)
        assert result.outcome is Outcomes.Invalid and result.code.halted


def test_enum_underlying_int8_is_unknown_and_store_needs_ints() -> None:
    reg = Registry()
    reg.add_enum("Small", [("A", 1)], underlying="int8")
    assert load("Small", 1, registry=reg)[1].outcome is Outcomes.Unknown
    reg.add_enum("E", [("A", 1)], underlying="uint16")
    with pytest.raises(EncodeError):
        store("A", "E", registry=reg)


def test_class_without_default_reports_create_default() -> None:
    reg = Registry()
    reg.add_class("Abstract", None, [("x", "int32")], abstract=True)
    reg.add_class("Real", None, [("x", "int32")], bases=["Abstract"])
    real: Any = reg.create(reg.resolve("Real"))
    out, result = store(real, "Abstract", registry=reg)
    assert result.issues[0].code == ResultCode.of(Tasks.CreateDefault, Outcomes.Unsupported)
    assert out == {"x": 0}
    _, result = load("shared_ptr<Abstract>", {"$type": "Abstract"}, registry=reg)
    assert result.outcome is Outcomes.Catastrophic
    assert load("Abstract", {"x": 1}, registry=reg)[1].outcome is Outcomes.Catastrophic
