"""Families of growing hostile JSON text read by ``o3de.load`` (and the value stored again):
as the input doubles, the calls the load and store run and their peak memory at most double
(``tests/fuzz/test_growth.py``'s :func:`assert_linear`); nesting past the depth cap fails
early, at a cost that does not follow the input. The registry is the fuzz targets' (the
conformance file's test types and ``FuzzNode``, which holds itself through a pointer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest

from gameserde import o3de
from gameserde.errors import DecodeError
from gameserde.o3de._context import MAX_DEPTH
from tests.fuzz.targets import o3de_registry
from tests.fuzz.test_growth import SLACK, assert_flat, assert_linear, calls, peak


def load_and_store(type_name: str) -> Callable[[bytes], Any]:
    """Parse the text, load it as ``type_name`` and store the value with its defaults."""
    reg = o3de_registry()

    def run(text: bytes) -> Any:
        value, _ = o3de.load(type_name, o3de.parse(text), registry=reg)
        return o3de.store(value, type_name, registry=reg, keep_defaults=True)

    return run


def nested_vectors(depth: int) -> bytes:
    return b"[" * depth + b"1" + b"]" * depth


def vector_type(depth: int) -> str:
    return "vector<" * depth + "int32" + ">" * depth


def node_chain(depth: int) -> bytes:
    return b'{"next": ' * depth + b'{"flags": "BitFlag1"}' + b"}" * depth


FAMILIES: dict[str, tuple[str, Callable[[int], bytes], tuple[int, ...]]] = {
    "long array into vector<int32>": (
        "vector<int32>", lambda n: b"[" + b",".join(b"%d" % (i * 7919) for i in range(n)) + b"]",
        (2000, 4000, 8000)),
    "long array of wrong values into vector<int32>": (
        "vector<int32>", lambda n: b"[" + b",".join([b'"x"', b"{}", b"[1]", b"1.5"] * n) + b"]",
        (500, 1000, 2000)),
    "long array into set<int32>, half repeated": (
        "set<int32>", lambda n: b"[" + b",".join(b"%d" % (i % (n // 2)) for i in range(n)) + b"]",
        (2000, 4000, 8000)),
    "long array of pointers into vector<shared_ptr<BaseClass>>": (
        "vector<shared_ptr<BaseClass>>",
        lambda n: b"[" + b",".join([b'{"$type": "SimpleInheritence", "var1": 3}', b"null"] * n)
        + b"]", (200, 400, 800)),
    "long string into string": (
        "string", lambda n: b'"' + b"ab\\u00e9\\n" * n + b'"', (2000, 4000, 8000)),
    "long string into Uuid": ("Uuid", lambda n: b'"' + b"{0123-" * n + b'"', (2000, 4000, 8000)),
    "long flags string into a bit-flag enum": (
        "ScopedEnumBitFlagsU64", lambda n: b'"' + b"|".join([b"BitFlag1", b"4", b"BitFlag3"] * n)
        + b'"', (500, 1000, 2000)),
    "big object into map<string,int32>": (
        "map<string,int32>", lambda n: b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(n))
        + b"}", (1000, 2000, 4000)),
    "big key/value array into map<string,int32>": (
        "map<string,int32>",
        lambda n: b"[" + b",".join(b'{"Key": "k%d", "Value": %d}' % (i, i) for i in range(n))
        + b"]", (500, 1000, 2000)),
    "object with repeated and unknown members into SimpleClass": (
        "SimpleClass", lambda n: b"{" + b",".join([b'"var1": 1', b'"other%d": [1]' % n] * n)
        + b"}", (500, 1000, 2000)),
    "long vector<any> of typed values": (
        "vector<any>",
        lambda n: b"[" + b",".join([b'{"$type": "int", "value": 4}', b'{"$type": "Vector3", '
                                   b'"value": [1, 2, 3]}'] * n) + b"]", (200, 400, 800)),
    "vectors nested to the cap": (
        "", nested_vectors, (8, 16, 32)),
    "FuzzNode pointers nested to the cap": ("FuzzNode", node_chain, (16, 32, 64)),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_load_grows_linearly(family: str) -> None:
    type_name, make, sizes = FAMILIES[family]
    if type_name:
        run = load_and_store(type_name)
    else:  # the type nests as deeply as the value
        def run(text: bytes) -> Any:
            return load_and_store(vector_type(text.count(b"[")))(text)
    assert_linear(make, run, sizes)


def test_the_families_load() -> None:
    """Each family's largest input loads with no error (the tests above measure real work)."""
    for type_name, make, sizes in FAMILIES.values():
        text = make(sizes[-1])
        name = type_name or vector_type(text.count(b"["))
        value, result = o3de.load(name, o3de.parse(text), registry=o3de_registry())
        assert not result.code.halted, (name, result)
        assert value is not None


def any_chain(depth: int) -> bytes:
    return b'{"extra": {"$type": "FuzzNode", "value": ' * depth + b"{}" + b"}}" * depth


@pytest.mark.parametrize(("make", "depth"), [(node_chain, MAX_DEPTH),
                                             (any_chain, MAX_DEPTH // 2 + 10)])
def test_nesting_past_the_cap_is_a_decode_error(make: Callable[[int], bytes], depth: int
                                                ) -> None:
    """Below the text layer's cap, above the loader's: the load fails, naming the cap."""
    with pytest.raises(DecodeError, match=f"nest more than {MAX_DEPTH} levels"):
        load_and_store("FuzzNode")(make(depth))


def test_nesting_past_the_cap_costs_no_more_as_it_grows() -> None:
    """Past the loader's cap (and below the text layer's), the load stops at the cap."""
    assert_flat(node_chain, lambda text: o3de.load("FuzzNode", o3de.parse(text),
                                                   registry=o3de_registry()), (210, 230, 250))


# ---------------------------------------------------------------------------------------------
# $import families: the input (the root and the files, as JSON of {path: text}) grows n, 4n,
# 16n; with the default max_expansion the resolution ends (or is refused, naming it), with
# calls growing at most as the input does and peak memory within PEAK_PER_BYTE bytes per
# input byte plus PEAK_CONSTANT.

PEAK_PER_BYTE = 32
"""Peak traced memory per byte of input an import family may use (values built within the
budget: the default factor 16 of text and walks, each character a few bytes of objects)."""
PEAK_CONSTANT = 384 << 10
"""Peak traced memory any input may use (the budget's slack of 4,096 units, tables)."""
SPELLINGS = ("$import", "$impor", "$impo", "$imp", "$im", "$i", "$", "")
"""Every name ``resolve_imports`` takes for a directive (prefixes of ``$import``)."""


def padded(files: dict[str, str], scale: int) -> dict[str, str]:
    """The files with a member of padding each, so that they are about ``scale`` times as
    large."""
    if scale == 1:
        return files
    pad = (scale - 1) * sum(map(len, files.values())) // len(files)
    return {name: text[:-1] + f', "pad": "{"x" * pad}"}}' for name, text in files.items()}


def spellings_tree(scale: int) -> bytes:
    """8 levels, each file naming the next with the 8 spellings: 8^8 imports unbounded."""
    files = {f"l{i}.json": "{" + ", ".join(f'"{s}": "l{i + 1}.json"' for s in SPELLINGS) + "}"
             for i in range(8)}
    return json.dumps({"l8.json": '{"leaf": 1}'} | padded(files, scale)).encode()


def members_tree(scale: int) -> bytes:
    """The settings way's bomb: 8 levels, 4 members each holding a directive to the next."""
    files = {f"l{i}.json": "{" + ", ".join(f'"{c}": {{"$import": "l{i + 1}.json"}}'
                                           for c in "abcd") + "}" for i in range(8)}
    return json.dumps({"l8.json": '{"leaf": 1}'} | padded(files, scale)).encode()


def wide_tree(scale: int) -> bytes:
    """One object of many members, then as many directives: the engine walks the members
    again after each (members x directives)."""
    n = 40 * scale
    top = "{" + ",".join(f'"m{i}": {i}' for i in range(n)) + ","
    return json.dumps({"": top + ",".join(['"$import": "x.json"'] * n) + "}",
                       "x.json": '{"new": 1}'}).encode()


def run_material(data: bytes) -> Any:
    files = json.loads(data)
    return o3de.resolve_imports({"$import": "l0.json"}, "t.json", files.get)


def run_in_order(data: bytes) -> Any:
    files = json.loads(data)
    return o3de.resolve_imports_in_order({"$import": "l0.json"}, "t.json", files.get)


def run_wide(data: bytes) -> Any:
    files = json.loads(data)
    return o3de.resolve_imports_in_order(o3de.parse(files[""]), "t.json", files.get)


def run_merge(data: bytes) -> Any:
    files = json.loads(data)
    return o3de.merge_settings([("top.setreg", files[""])], files.get)


IMPORT_FAMILIES: dict[str, tuple[Callable[[int], bytes], Callable[[bytes], Any]]] = {
    "resolve_imports: 8 levels x 8 spellings": (spellings_tree, run_material),
    "resolve_imports_in_order: 8 levels x 4 members": (members_tree, run_in_order),
    "resolve_imports_in_order: members x directives": (wide_tree, run_wide),
    "merge_settings: members x directives": (wide_tree, run_merge),
}


@pytest.mark.parametrize("family", list(IMPORT_FAMILIES))
def test_imports_stay_within_the_expansion_budget(family: str) -> None:
    make, run = IMPORT_FAMILIES[family]
    inputs = [make(scale) for scale in (1, 4, 16)]
    costs = [(calls(lambda d=d: run(d)), peak(lambda d=d: run(d))) for d in inputs]
    for data, (_, memory) in zip(inputs, costs, strict=True):
        try:
            run(data)
        except DecodeError as e:
            assert "max_expansion=16," in str(e)
        assert memory <= PEAK_PER_BYTE * len(data) + PEAK_CONSTANT, (len(data), memory)
    for (d1, (c1, _)), (d2, (c2, _)) in pairwise(zip(inputs, costs, strict=True)):
        grow = len(d2) / len(d1)
        assert 3 <= grow <= 5, "the family should grow the input about 4 times per step"
        assert c2 <= SLACK * grow * c1 + 2000, (len(d1), len(d2), c1, c2)


def test_the_import_families_resolve_without_a_budget() -> None:
    """Without a limit the smallest inputs resolve (the budget is what stops them), so the
    test above measures real work."""
    files = json.loads(spellings_tree(1))
    files["l3.json"] = '{"leaf": 1}'
    assert o3de.resolve_imports({"$import": "l0.json"}, "t.json", files.get,
                                max_expansion=None) == {"leaf": 1}
    files = json.loads(wide_tree(1))
    value, result = o3de.resolve_imports_in_order(o3de.parse(files[""]), "t.json", files.get,
                                                  max_expansion=None)
    assert result.ok and len(value) == 41


# -- default values: `{}` of a class whose levels each hold two instances of the level below --


def default_tree_registry() -> o3de.Registry:
    """``B0`` (an int) to ``B10`` (two ``B9``), ``W`` (200 Vector3 and 20 vectors), and
    lists of them; also the ``--registry`` of the CLI test."""
    reg = o3de.Registry()
    reg.add_class("B0", None, [("x", "int32")])
    for i in range(1, 11):
        reg.add_class(f"B{i}", None, [("a", f"B{i - 1}"), ("b", f"B{i - 1}")])
    reg.add_class("W", None, [(f"v{i}", "Vector3") for i in range(200)]
                  + [(f"l{i}", "vector<int32>") for i in range(20)])
    reg.add_class("L", None, [("items", "vector<B10>")])
    reg.add_class("LW", None, [("items", "vector<W>")])
    return reg


LOAD_BYTES_PER_INPUT_BYTE = 4 << 10
"""The peak memory of a load per character of its input under the default budget (64
default values a character, each well under 64 bytes), beyond 1 MiB."""


def empty_items(n: int) -> bytes:
    return b'{"items": [' + b",".join([b"{}"] * n) + b"]}"


@pytest.mark.parametrize("name", ["L", "LW"])
def test_default_values_stay_within_the_expansion_budget(name: str) -> None:
    reg = default_tree_registry()

    def run(text: bytes) -> Any:
        return o3de.load(name, o3de.parse(text), registry=reg)

    assert_linear(empty_items, run, (100, 200, 400))
    for n in (40, 160, 640):
        text = empty_items(n)
        cost = peak(lambda text=text: run(text))  # type: ignore[misc]
        assert cost <= LOAD_BYTES_PER_INPUT_BYTE * len(text) + (1 << 20), (n, cost)
    if name == "L":
        with pytest.raises(DecodeError, match=r"max_expansion=64.*None or inf") as info:
            run(empty_items(100))
        assert info.value.path == "$/items"
        value, result = o3de.load(name, o3de.parse(empty_items(3)), registry=reg,
                                  max_expansion=None)
        assert result.ok and len(value.items) == 3 and value.items[2].a.b.a.b.a.b.a.b.a.b.x == 0
        with pytest.raises(DecodeError, match="max_expansion=0"):
            o3de.load(name, o3de.parse(empty_items(3)), registry=reg, max_expansion=0,
                      reporter=lambda message, code, path: code)


def test_shared_and_new_defaults() -> None:
    """Immutable field defaults are one object; containers and instances are new ones."""
    reg = default_tree_registry()
    one, two = reg.create(reg.resolve("W")), reg.create(reg.resolve("W"))
    assert one.v0 is two.v0 and one.l0 is not two.l0
    one.l0.append(1)
    assert two.l0 == []


def test_cli_refuses_the_blow_up(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from gameserde.cli import main

    path = tmp_path / "doc.json"
    path.write_bytes(empty_items(2000))
    registry = ["--registry", "tests.o3de.test_growth:default_tree_registry", "--type", "L"]
    for verb in ("decode", "verify"):
        assert main([verb, "o3de", *registry, str(path)]) == 1, verb
        err = capsys.readouterr()[1]
        assert err.count("\n") == 1 and "max_expansion=64" in err, err
    path.write_bytes(empty_items(2))
    assert main(["decode", "o3de", *registry, "--max-expansion", "inf", str(path)]) == 0


ROW_FAMILIES = ["long array into vector<int32>", "long array into set<int32>, half repeated",
                "long array of pointers into vector<shared_ptr<BaseClass>>",
                "long string into string", "big object into map<string,int32>",
                "object with repeated and unknown members into SimpleClass",
                "long vector<any> of typed values"]


@pytest.mark.parametrize("family", ROW_FAMILIES)
def test_rows_grow_linearly(family: str) -> None:
    """Codec.to_row of a loaded value and the Arrow table of its Parquet part."""
    from gameserde.batch.parquet import table_of
    from gameserde.o3de.rows import row_of

    type_name, make, sizes = FAMILIES[family]
    reg = o3de_registry()

    def run(text: bytes) -> Any:
        value, _ = o3de.load(type_name, o3de.parse(text), registry=reg)
        return table_of(["k"], [row_of(reg, type_name, value)])

    assert_linear(make, run, sizes, memory=False)  # Arrow's memory is not Python's
