"""``max_expansion``: the default values a decode builds for absent fields (each value one,
a bean one plus its fields') are bounded by the input's size; immutable defaults are shared,
mutable ones new; ``load_schema`` warns about (or refuses) a bean whose default is enormous.
C and pure give the same values and errors, at the edge of the budget too."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gameserde import zeze
from gameserde._expansion import expansion_limit
from gameserde.cli import main
from gameserde.errors import DecodeError, SchemaError
from gameserde.zeze import _accel
from gameserde.zeze._plan import plans_of
from gameserde.zeze.bytebuffer import Reader
from gameserde.zeze.codec import EXPANSION_SLACK, MAX_EXPANSION, read_bean
from gameserde.zeze.frames import decode_frame, encode_raw_frame
from gameserde.zeze.schema import LargeDefaultWarning
from tests.fuzz.harness import agreeing

from . import wire
from .strategies import c_twin

C_BUILT = _accel.speedups is not None


def tree_beans(levels: int) -> str:
    """B0 (an int) and B1 ... B<levels>, each holding two beans of the level below."""
    return '<bean name="B0"><variable id="1" name="x" type="int"/></bean>' + "".join(
        f'<bean name="B{i}"><variable id="1" name="a" type="B{i - 1}"/>'
        f'<variable id="2" name="b" type="B{i - 1}"/></bean>' for i in range(1, levels + 1))


def solution(beans: str) -> str:
    return f'<solution name="t"><module name="m" id="1">{beans}</module></solution>'


WIDE = "".join(f'<variable id="{i}" name="f{i}" type="int"/>' for i in range(1, 17))
VECTORS = "".join(f'<variable id="{i}" name="v{i}" type="vector4"/>' for i in range(1, 201))
SCHEMA_XML = solution(
    tree_beans(10)
    + '<bean name="L"><variable id="1" name="items" type="list[B10]"/></bean>'
    + f'<bean name="W">{WIDE}</bean>'
    + '<bean name="LW"><variable id="1" name="items" type="list[W]"/></bean>'
    + '<bean name="S"><variable id="1" name="v" type="vector4"/>'
      '<variable id="2" name="d" type="decimal"/><variable id="3" name="s" type="string"/>'
      '<variable id="4" name="l" type="list[int]"/><variable id="5" name="m" type="map[int,int]"/>'
      '<variable id="6" name="b" type="B1"/><variable id="7" name="dyn" type="dynamic">'
      '<value bean="B0"/></variable></bean>'
    + '<bean name="LS"><variable id="1" name="items" type="list[S]"/></bean>'
    + f'<bean name="V">{VECTORS}</bean>'
    + '<bean name="LV"><variable id="1" name="items" type="list[V]"/></bean>')
SCHEMA = zeze.load_schema(SCHEMA_XML)
TREE_COST = 2 * SCHEMA.default_size("t.m.B9")
"""What an empty B10 (``00``) charges: its two absent B9 fields."""


def empty_beans(n: int, tag: int = 0x14) -> bytes:
    """A bean whose list field (``tag``) holds ``n`` empty beans."""
    return bytes([tag]) + wire.list_header(n, wire.BEAN) + b"\x00" * n + b"\x00"


def outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except DecodeError as e:
        return "error", (str(e), e.offset, e.path)


def both(fn: Any) -> tuple[str, Any]:
    """``fn``'s outcome with the C twin on and off, which must agree."""
    result: tuple[str, Any] = agreeing(fn, outcome)
    return result


def test_default_sizes_are_counted_once_per_bean() -> None:
    assert [SCHEMA.default_size(f"t.m.B{i}") for i in range(4)] == [2, 5, 11, 23]
    assert SCHEMA.default_size("t.m.B10") == 3 * 2**10 - 1
    assert SCHEMA.default_size("t.m.W") == 17
    plan = plans_of(SCHEMA).bean("t.m.S")
    assert [f.cost for layer in plan.layers for f in layer] == [1, 1, 1, 1, 1, 5, 1]


def test_the_budget_error_names_max_expansion_with_offset_and_path() -> None:
    data = empty_beans(1000)
    kind, (message, offset, path) = both(lambda: zeze.decode(SCHEMA, "L", data))
    limit = expansion_limit(len(data), MAX_EXPANSION, EXPANSION_SLACK)
    first = limit // TREE_COST  # the empty bean whose defaults no longer fit
    start = len(data) - 1000 - 1  # of the list's first bean
    assert kind == "error" and (offset, path) == (start + first, f'$.items[{first}]')
    assert "max_expansion=64" in message and f"limit {limit}" in message
    assert "t.m.B10 bean leaves out" in message and f"{len(data)}-byte input" in message


def test_every_entry_point_takes_max_expansion() -> None:
    data = empty_beans(3)  # 3 empty B10 beans: more than the slack alone allows
    with pytest.raises(DecodeError, match="max_expansion=0"):
        zeze.decode(SCHEMA, "L", data, max_expansion=0)
    for factor in (None, float("inf"), 10_000):
        assert len(zeze.decode(SCHEMA, "L", data, max_expansion=factor)["items"]) == 3
        assert zeze.decode_from(SCHEMA, "L", b"xx" + data, 2, max_expansion=factor)[1] == (
            len(data) + 2)
        assert SCHEMA.decode("L", data, max_expansion=factor)["items"][2]["a"]["a"]["a"]
        assert zeze.BeanCodec(SCHEMA, "L", max_expansion=factor).decode(data)["items"]
        assert read_bean(SCHEMA, "L", Reader(data), max_expansion=factor)["items"]
    with pytest.raises(DecodeError, match="max_expansion=0"):
        zeze.decode_from(SCHEMA, "L", data, max_expansion=0)
    with pytest.raises(DecodeError, match="max_expansion=0"):
        read_bean(SCHEMA, "L", Reader(data), max_expansion=0)
    for bad in (-1, "64", True, float("nan")):
        with pytest.raises(ValueError, match="max_expansion"):
            zeze.decode(SCHEMA, "L", data, max_expansion=bad)  # type: ignore[arg-type]


def test_decode_from_counts_the_bytes_from_its_offset() -> None:
    data = empty_beans(1)  # one empty B10 (3070 values): fits in the slack, not 3071 - 4096
    assert zeze.decode_from(SCHEMA, "L", data, max_expansion=0)[1] == len(data)
    padded = b"\x00" * 100 + data
    assert both(lambda: zeze.decode_from(SCHEMA, "L", padded, 100, max_expansion=0))[0] == "ok"


@pytest.mark.parametrize("call", ["decode", "decode_from"])
def test_c_and_pure_agree_exactly_at_the_budget_and_one_past(call: str) -> None:
    def run(n: int, factor: float) -> tuple[str, Any]:
        data = empty_beans(n)
        if call == "decode":
            return both(lambda: zeze.decode(SCHEMA, "LW", data, max_expansion=factor))
        return both(lambda: zeze.decode_from(SCHEMA, "LW", data, max_expansion=factor))

    per_bean = SCHEMA.default_size("t.m.W") - 1  # an empty W: 16 absent ints
    n = EXPANSION_SLACK // per_bean  # 256 empty beans: exactly the slack
    assert run(n, 0)[0] == "ok" and run(n + 1, 0)[0] == "error"
    # a fractional factor: the C twin's arithmetic is expansion_limit's
    last = max(n for n in range(1000)
               if per_bean * n <= expansion_limit(len(empty_beans(n)), 7.3, EXPANSION_SLACK))
    assert [run(n, 7.3)[0] for n in range(last - 2, last + 3)] == ["ok"] * 3 + ["error"] * 2


@pytest.mark.skipif(not C_BUILT, reason="the C twin is not built")
def test_the_c_twin_decodes_up_to_the_budget_itself() -> None:
    plans = plans_of(SCHEMA)
    plan = plans.bean("t.m.LW")
    data = empty_beans(256)
    with c_twin(True):
        assert _accel.decode(plans, plan, data, 0, 500, 4096) is not None
        assert _accel.decode(plans, plan, data, 0, 500, 4095) is None  # the reference raises


@pytest.mark.parametrize("enabled", [True, False], ids=["c", "pure"])
def test_immutable_defaults_are_shared_and_mutable_ones_new(enabled: bool) -> None:
    with c_twin(enabled):
        one, two = zeze.decode(SCHEMA, "LS", empty_beans(2))["items"]
        again = zeze.decode(SCHEMA, "LS", empty_beans(1))["items"][0]
    encoded = zeze.encode(SCHEMA, "S", {})
    for key in ("v", "d", "s"):
        assert one[key] is two[key] is again[key]
    assert one["v"] == (0.0, 0.0, 0.0, 0.0) and str(one["d"]) == "0"
    for key in ("l", "m", "b", "dyn"):
        assert one[key] == two[key] and one[key] is not two[key]
    assert one["b"]["a"] is not two["b"]["a"] and one["dyn"].value is not two["dyn"].value
    one["l"].append(1)
    one["m"][1] = 2
    one["b"]["a"]["x"] = 7
    one["dyn"].value["x"] = 1
    assert two == again == zeze.decode(SCHEMA, "S", b"\x00")
    assert two["l"] == [] and two["m"] == {} and two["b"]["a"] == {"x": 0}
    assert zeze.encode(SCHEMA, "S", {}) == encoded  # the encoder's defaults are untouched


@dataclass
class Leaf:
    x: int = field(default=0, metadata={"id": 1})


@dataclass
class Pair:
    a: Leaf = field(default_factory=Leaf, metadata={"id": 1})
    b: Leaf = field(default_factory=Leaf, metadata={"id": 2})


@dataclass
class Pairs:
    items: list[Pair] = field(default_factory=list, metadata={"id": 1})


def test_dataclass_defaults_are_new_instances_and_counted() -> None:
    schema = zeze.load_schema(Pairs, module="m", solution="d")
    data = empty_beans(2)
    one, two = zeze.decode(schema, "Pairs", data).items
    assert one == two == Pair() and one.a is not two.a
    assert schema.default_size("d.m.Pair") == 5
    with pytest.raises(DecodeError, match="max_expansion=0"):
        zeze.decode(schema, "Pairs", empty_beans(1025), max_expansion=0)  # 4 values each


def test_load_schema_warns_about_or_refuses_enormous_defaults() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zeze.load_schema(solution(tree_beans(10)))  # 3071 values: under the threshold
    with pytest.warns(LargeDefaultWarning, match=r"bean t\.m\.B11 holds 6143 values"):
        zeze.load_schema(solution(tree_beans(11)))
    with pytest.raises(SchemaError, match=r"^<string>:1: .*t\.m\.B6 holds 191 values "
                                          r"\(more than 100\).*max_default_size=100"):
        zeze.load_schema(solution(tree_beans(10)), max_default_size=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema = zeze.load_schema(solution(tree_beans(60)), max_default_size=2**62)
    assert schema.default_size("t.m.B60") == 3 * 2**60 - 1  # counted, never built
    with pytest.raises(SchemaError, match=r"d\.m\.Pair holds 5 values"):
        zeze.load_schema(Pairs, module="m", solution="d", max_default_size=4)


def test_a_huge_default_is_refused_without_building_it() -> None:
    schema = zeze.load_schema(solution(tree_beans(60)), max_default_size=2**62)
    data = b"\x1a\x00\x00"  # B60 with its field a: an empty B59
    for factor in (MAX_EXPANSION, 1e12):
        kind, (message, offset, path) = both(
            lambda f=factor: zeze.decode(schema, "B60", data, max_expansion=f))
        assert kind == "error" and (offset, path) == (1, '$.a') and "B59" in message


def test_cli_refuses_the_blow_up_in_one_line(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    schema_file, big, small = tmp_path / "t.xml", tmp_path / "big.bin", tmp_path / "small.bin"
    schema_file.write_text(SCHEMA_XML)
    big.write_bytes(empty_beans(3000))  # 3 KB: hundreds of millions of values without a bound
    small.write_bytes(empty_beans(2))
    for verb in ("decode", "verify", "inspect"):
        code = main([verb, "zeze", "-s", str(schema_file), "--type", "L", str(big)])
        err = capsys.readouterr()[1]
        assert code == 1 and err.count("\n") == 1 and "max_expansion=64" in err, (verb, err)
    args = ["decode", "zeze", "-s", str(schema_file), "--type", "L", str(small)]
    assert main(args) == 1 and "max_expansion=64" in capsys.readouterr()[1]
    assert main([*args, "--max-expansion", "inf"]) == 0
    assert '"items"' in capsys.readouterr()[0]
    with pytest.raises(SystemExit) as info:
        main([*args, "--max-expansion", "-1"])
    assert info.value.code == 2 and "--max-expansion takes a number >= 0" in capsys.readouterr()[1]


def test_frames_take_max_expansion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A protocol's bean counts against its frame body's size, in decode_frame, RawFrame and
    the CLI's --frame paths."""
    proto = zeze.Protocol("t.m.PL", 1, 7, zeze.protocol_type_id(1, 7), "protocol", "t.m.L")
    schema = zeze.ZezeSchema(SCHEMA.model, protocols={proto.name: proto},
                             modules=SCHEMA.modules)
    frame = encode_raw_frame(1, 7, b"\x02" + empty_beans(20))
    with pytest.raises(DecodeError, match="max_expansion=64"):
        decode_frame(schema, frame)
    value = decode_frame(schema, frame, max_expansion=None).value
    assert len(value["items"]) == 20
    schema_file, data = tmp_path / "t.xml", tmp_path / "f.bin"
    schema_file.write_text(solution(
        tree_beans(10) + '<bean name="L"><variable id="1" name="items" type="list[B10]"/>'
        '</bean><protocol name="PL" id="7" argument="L"/>'))
    data.write_bytes(frame)
    for verb in ("decode", "verify", "inspect"):
        args = [verb, "zeze", "-s", str(schema_file), "--frame", str(data)]
        assert main(args) == 1 and "max_expansion=64" in capsys.readouterr()[1], verb
        assert main([*args, "--max-expansion", "inf"]) == 0, verb
        capsys.readouterr()
