"""Families of growing hostile inputs (``hostile.py``): as the input doubles, the operations
the pure-Python path runs (Python and builtin calls, counted with ``sys.setprofile``) and the
peak traced memory of both paths (``tracemalloc``) at most double, up to a small slack; where
only a claimed length grows, they stay flat. Deterministic: nothing is timed.

The nested-key, DAG and hostile-schema families are the codecs' own tests (issue #7); these
are the generic shapes: long strings and byte runs, wide containers, nesting to the depth
cap, and large claimed lengths.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest

import gameserde
from gameserde import godot, zeze
from gameserde.batch.parquet import json_table, json_text, table_of
from gameserde.errors import GameserdeError
from gameserde.flatbuffers import flexbuffers, load_bfbs, load_schema
from gameserde.flatbuffers.rows import Rows
from gameserde.godot.inspect import regions, render
from gameserde.zeze.rows import rows_of
from tests.fuzz import hostile
from tests.fuzz.harness import accelerated
from tests.fuzz.known_issues import KNOWN_GROWTH
from tests.fuzz.targets import godot_from_json_text, godot_json_text

SLACK = 1.3
"""How much more than proportional a doubling may cost in calls (constant parts, rounding)."""

MEMORY_SLACK = 1.6
"""How much more than proportional the peak memory may grow over a family's sizes."""


def attempt(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except GameserdeError as e:
        return e


def calls(fn: Callable[[], Any]) -> int:
    """Python and builtin calls ``fn`` makes with the accelerators off."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    with accelerated(False):
        attempt(fn)  # warm-up: imports and lazily built tables
        sys.setprofile(profile)
        try:
            attempt(fn)
        finally:
            sys.setprofile(None)
    return count


def peak(fn: Callable[[], Any]) -> int:
    """The larger tracemalloc peak of ``fn`` with the accelerators on and off."""
    peaks = []
    for enabled in (True, False):
        with accelerated(enabled):
            attempt(fn)
            tracemalloc.start()
            try:
                attempt(fn)
                peaks.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    return max(peaks)


def assert_linear(make: Callable[[int], bytes], run: Callable[[bytes], Any],
                  sizes: tuple[int, ...], memory: bool = True) -> None:
    """Calls at most double (times ``SLACK``) at each doubling of the input; the peak memory,
    which moves in steps (dict and list capacities are powers of two), grows at most
    ``MEMORY_SLACK`` times as much as the input from the first size to the last. (tracemalloc
    walks the whole stack at each allocation: ``memory=False`` for thousands of levels.)"""
    inputs = [make(n) for n in sizes]
    costs = [(calls(lambda d=d: run(d)), peak(lambda d=d: run(d)) if memory else 0)
             for d in inputs]
    for (d1, (c1, _)), (d2, (c2, _)) in pairwise(zip(inputs, costs, strict=True)):
        grow = len(d2) / len(d1)
        assert grow <= 2.5, "the family should about double the input per step"
        assert c2 <= SLACK * grow * c1 + 2000, (
            f"calls grew from {c1} to {c2} for {len(d1)} -> {len(d2)} bytes")
    (d1, (_, m1)), (d2, (_, m2)) = (inputs[0], costs[0]), (inputs[-1], costs[-1])
    assert m2 <= MEMORY_SLACK * len(d2) / len(d1) * m1 + (64 << 10), (
        f"peak memory grew from {m1} to {m2} for {len(d1)} -> {len(d2)} bytes")


def assert_flat(make: Callable[[int], bytes], run: Callable[[bytes], Any],
                claims: tuple[int, ...]) -> None:
    """Only a claimed length grows: the cost must not follow it."""
    costs = [(calls(lambda d=d: run(d)), peak(lambda d=d: run(d)))
             for d in (make(n) for n in claims)]
    c0, m0 = costs[0]
    for c, m in costs[1:]:
        assert c <= SLACK * c0 + 200 and m <= SLACK * m0 + (16 << 10), (costs, claims)


# ---------------------------------------------------------------------------------------------
# Godot

@pytest.fixture(autouse=True)
def _known_growth(request: pytest.FixtureRequest) -> None:
    reason = KNOWN_GROWTH.get(request.node.name)
    if reason is not None:
        request.node.add_marker(pytest.mark.xfail(reason=reason, strict=True))


GODOT_FAMILIES = {
    "long string": (hostile.godot_long_string, (4000, 8000, 16000)),
    "wide array": (hostile.godot_wide_array, (500, 1000, 2000)),
    "wide dictionary": (hostile.godot_wide_dictionary, (300, 600, 1200)),
    "packed floats": (hostile.godot_packed, (2000, 4000, 8000)),
    "arrays nested to the cap": (hostile.godot_deep_arrays, (256, 512, 1024)),
}
GODOT_BEYOND_CAP = (hostile.godot_deep_arrays, (2000, 4000, 8000))
"""Arrays nested deeper than the default cap, read with ``max_depth`` raised."""
DEEP = 100_000
"""The ``max_depth`` the families run with: the largest a caller may choose."""


def godot_decode_all(data: bytes) -> Any:
    value = godot.decode(data, allow_objects=True, max_depth=DEEP)
    return godot_json_text(value, max_depth=DEEP)


@pytest.mark.parametrize("family", [*GODOT_FAMILIES, "arrays nested beyond the cap"])
def test_godot_decode_grows_linearly(family: str) -> None:
    make, sizes = GODOT_FAMILIES.get(family, GODOT_BEYOND_CAP)
    assert_linear(make, godot_decode_all, sizes, memory=family in GODOT_FAMILIES)


@pytest.mark.parametrize("family", ["long string", "wide array", "wide dictionary",
                                    "packed floats"])
def test_godot_inspect_grows_linearly(family: str) -> None:
    make, sizes = GODOT_FAMILIES[family]
    assert_linear(make, lambda d: render(d, regions(d)), tuple(n // 4 for n in sizes))


@pytest.mark.parametrize("family", ["long string", "wide array", "wide dictionary",
                                    "packed floats"])
def test_godot_html_pages_grow_linearly(family: str) -> None:
    """``inspect --html``: the map and its pages."""
    make, sizes = GODOT_FAMILIES[family]
    codec = gameserde.codec("godot")
    assert_linear(make, lambda d: codec.inspect(d).html_pages(), tuple(n // 4 for n in sizes))


def test_o3de_html_pages_grow_linearly() -> None:
    """A text map's pages: an object of ``n`` members, each an array of two values."""
    codec = gameserde.codec("o3de")
    assert_linear(lambda n: json.dumps({f"k{i}": [i, "v"] for i in range(n)}).encode(),
                  lambda d: codec.inspect(d).html_pages(), (500, 1000, 2000))


@pytest.mark.parametrize("family", list(GODOT_FAMILIES))
def test_godot_from_json_grows_linearly(family: str) -> None:
    make, sizes = GODOT_FAMILIES[family]

    assert_linear(lambda n: godot_json_text(godot.decode(make(n))).encode(),
                  lambda t: godot.encode(godot_from_json_text(t)), sizes)


@pytest.mark.parametrize("family", ["long string", "wide array", "wide dictionary"])
def test_godot_plain_json_grows_linearly(family: str) -> None:
    make, sizes = GODOT_FAMILIES[family]
    assert_linear(lambda n: godot_json_text(godot.decode(make(n)), mode="plain").encode(),
                  lambda t: godot.encode(godot_from_json_text(t, mode="plain")), sizes)


def test_godot_store_var_records_grow_linearly() -> None:
    record = godot.store_var({"hp": 1.5, "name": "x"})
    assert_linear(lambda n: record * n, lambda d: list(godot.iter_vars(d)), (100, 200, 400))


def test_godot_claimed_lengths_cost_nothing() -> None:
    assert_flat(hostile.godot_claimed_array, godot_decode_all, (1 << 10, 1 << 20, 1 << 30))
    assert_flat(lambda n: hostile.godot_claimed_array(n)[:8] + b"\0" * 8,
                lambda d: render(d, regions(d)), (1 << 10, 1 << 20, 1 << 30))


# ---------------------------------------------------------------------------------------------
# FlatBuffers

NODE = load_schema(hostile.NODE_SCHEMA)

FB_FAMILIES = {
    "long string": (hostile.fb_long_string, (4000, 8000, 16000)),
    "byte vector": (hostile.fb_bytes, (4096, 8192, 16384)),
    "wide table vector": (hostile.fb_wide, (300, 600, 1200)),
    "tables nested deeply": (hostile.fb_deep, (50, 100, 200)),
}


def fb_read_all(data: bytes) -> Any:
    NODE.verify(data)
    return NODE.decode(data), NODE.to_json(data), NODE.to_json(data, strict=False,
                                                                defaults=True)


@pytest.mark.parametrize("family", list(FB_FAMILIES))
def test_flatbuffers_read_grows_linearly(family: str) -> None:
    make, sizes = FB_FAMILIES[family]
    assert_linear(make, fb_read_all, sizes)


@pytest.mark.parametrize("family", list(FB_FAMILIES))
def test_flatbuffers_from_json_grows_linearly(family: str) -> None:
    make, sizes = FB_FAMILIES[family]
    def text(n: int) -> bytes:  # without indentation, which grows with the depth
        json = NODE.to_json(make(n), max_expansion=None)  # deep: the indentation adds up
        return "".join(line.strip() for line in json.split("\n")).encode()

    assert_linear(text, NODE.from_json, sizes)


def test_flatbuffers_claimed_lengths_cost_nothing() -> None:
    assert_flat(hostile.fb_claimed_length, lambda d: (attempt(lambda: NODE.verify(d)),
                                                      attempt(lambda: NODE.decode(d)),
                                                      attempt(lambda: NODE.to_json(d))),
                (1 << 10, 1 << 20, 1 << 30))


def schema_with_tables(n: int) -> bytes:
    return ("".join(f"table T{i} {{ a:int; b:string; c:[T{max(i - 1, 0)}]; }}\n"
                    for i in range(n)) + f"root_type T{n - 1};\n").encode()


def schema_with_enum(n: int) -> bytes:
    values = ", ".join(f"V{i}" for i in range(n))
    return f"enum E : int {{ {values} }}\ntable T {{ e:E; }}\nroot_type T;\n".encode()


@pytest.mark.parametrize("make", [schema_with_tables, schema_with_enum],
                         ids=["tables", "enum values"])
def test_load_schema_grows_linearly(make: Callable[[int], bytes]) -> None:
    assert_linear(make, load_schema, (100, 200, 400))


@pytest.mark.parametrize("make", [schema_with_tables, schema_with_enum],
                         ids=["tables", "enum values"])
def test_bfbs_grows_linearly(make: Callable[[int], bytes]) -> None:
    """Reading a ``.bfbs`` (verify, check, lower) and writing it again."""
    assert_linear(lambda n: load_schema(make(n)).to_bfbs(comments=True, builtins=True),
                  lambda d: load_bfbs(d).to_bfbs(), (100, 200, 400))


FLEX_FAMILIES = {
    "long vector": (lambda n: flexbuffers.dumps(list(range(n))), (1000, 2000, 4000)),
    "wide map": (lambda n: flexbuffers.dumps({f"k{i}": i for i in range(n)}), (300, 600, 1200)),
    "long blob": (lambda n: flexbuffers.dumps(b"b" * n), (4000, 8000, 16000)),
}


def flex_all(data: bytes) -> Any:
    flexbuffers.verify(data)
    return flexbuffers.loads(data), flexbuffers.to_json(data)


@pytest.mark.parametrize("family", list(FLEX_FAMILIES))
def test_flexbuffers_grow_linearly(family: str) -> None:
    make, sizes = FLEX_FAMILIES[family]
    assert_linear(make, flex_all, sizes)


# ---------------------------------------------------------------------------------------------
# Zeze

ZEZE = zeze.load_schema(hostile.ZEZE_SCHEMA)

ZEZE_FAMILIES = {
    "long string": (hostile.zeze_long_string, "H", (4000, 8000, 16000)),
    "wide list": (hostile.zeze_wide_list, "H", (500, 1000, 2000)),
    "wide map": (hostile.zeze_wide_map, "H", (300, 600, 1200)),
    "list of beans": (hostile.zeze_bean_list, "H", (300, 600, 1200)),
    "list of dynamics": (hostile.zeze_dynamic_list, "H", (300, 600, 1200)),
    "map of beankeys": (hostile.zeze_beankey_map, "H", (200, 400, 800)),
    "unknown fields": (hostile.zeze_unknown_fields, "H", (300, 600, 1200)),
    "skipped list": (hostile.zeze_skipped_list, "E", (300, 600, 1200)),
    "layer tags": (hostile.zeze_layer_tags, "E", (4000, 8000, 16000)),
    "bean lists nested to the cap": (hostile.zeze_deep_lists, "N", (60, 120, 240)),
}
ZEZE_BEYOND_CAP = (hostile.zeze_deep_lists, "N", (2000, 4000, 8000))
"""Beans nested deeper than the default cap, read with ``max_depth`` raised."""


def zeze_decode_all(bean: str) -> Callable[[bytes], Any]:
    """``zeze.decode`` of the bean, then ``encode`` and ``to_json`` of the value."""
    def run(data: bytes) -> Any:
        value = zeze.decode(ZEZE, bean, data, max_depth=DEEP)
        return (zeze.encode(ZEZE, bean, value, max_depth=DEEP),
                zeze.to_json(ZEZE, bean, value, max_depth=DEEP))
    return run


@pytest.mark.parametrize("family", [*ZEZE_FAMILIES, "bean lists nested beyond the cap"])
def test_zeze_decode_grows_linearly(family: str) -> None:
    make, bean, sizes = ZEZE_FAMILIES.get(family, ZEZE_BEYOND_CAP)
    assert_linear(make, zeze_decode_all(bean), sizes, memory=family in ZEZE_FAMILIES)


def test_zeze_claimed_lengths_cost_nothing() -> None:
    assert_flat(hostile.zeze_claimed_string, zeze_decode_all("H"), (1 << 10, 1 << 20, 1 << 30))


@pytest.mark.parametrize("make", [hostile.zeze_solution, hostile.zeze_wide_bean],
                         ids=["beans", "variables"])
def test_zeze_load_schema_grows_linearly(make: Callable[[int], bytes]) -> None:
    assert_linear(make, lambda text: zeze.load_schema(text).model.types, (100, 200, 400))


# ---------------------------------------------------------------------------------------------
# Table rows (Codec.to_row and the Arrow table a Parquet part holds)

GODOT_CODEC = godot.codec()


def godot_row(data: bytes) -> Any:
    row = GODOT_CODEC.to_row(GODOT_CODEC.decode(data))
    return json_table(["k"], [json_text(row.value)])


@pytest.mark.parametrize("family", ["long string", "wide array", "wide dictionary",
                                    "packed floats"])
def test_godot_rows_grow_linearly(family: str) -> None:
    make, sizes = GODOT_FAMILIES[family]
    assert_linear(make, godot_row, sizes, memory=False)  # Arrow's memory is not Python's


def flatbuffers_row(data: bytes) -> Any:
    return table_of(["k"], [Rows(NODE).row("Node", NODE.decode(data))])


@pytest.mark.parametrize("family", ["long string", "byte vector", "wide table vector"])
def test_flatbuffers_rows_grow_linearly(family: str) -> None:
    make, sizes = FB_FAMILIES[family]
    assert_linear(make, flatbuffers_row, sizes, memory=False)


def zeze_row(bean: str) -> Callable[[bytes], Any]:
    def run(data: bytes) -> Any:
        value = zeze.decode(ZEZE, bean, data)
        return table_of(["k"], [rows_of(ZEZE).bean(f"h.m.{bean}", value)])
    return run


@pytest.mark.parametrize("family", ["long string", "wide list", "wide map", "list of beans",
                                    "list of dynamics", "unknown fields"])
def test_zeze_rows_grow_linearly(family: str) -> None:
    make, bean, sizes = ZEZE_FAMILIES[family]
    assert_linear(make, zeze_row(bean), sizes, memory=False)


# ---------------------------------------------------------------------------------------------
# Godot resource files (text and binary): read, written back, as JSON, converted

def text_properties(n: int) -> bytes:
    return (b'[gd_resource type="Resource" format=3]\n\n[resource]\n'
            + b"".join(b"p%d = Vector2(%d, 1.5)\n" % (i, i) for i in range(n)))


def text_long_array(n: int) -> bytes:
    return (b'[gd_resource type="Resource" format=3]\n\n[resource]\na = ['
            + b", ".join(b'"s%d"' % i for i in range(n)) + b"]\n")


def text_sub_resources(n: int) -> bytes:
    subs = b"".join(b'[sub_resource type="Resource" id="r%d"]\nnext = %s\n\n'
                    % (i, b'SubResource("r%d")' % (i - 1) if i else b"null")
                    for i in range(n))
    return (b'[gd_resource type="Resource" format=3]\n\n' + subs
            + b'[resource]\nfirst = SubResource("r%d")\n' % (n - 1))


def text_scene(n: int) -> bytes:
    nodes = b"".join(b'[node name="N%d" type="Node2D" parent="."]\nposition = Vector2(%d, 0)\n\n'
                     % (i, i) for i in range(n))
    return b'[gd_scene format=3]\n\n[node name="Root" type="Node2D"]\n\n' + nodes


RESOURCE_FAMILIES = {
    "properties": (text_properties, (200, 400, 800)),
    "long array": (text_long_array, (500, 1000, 2000)),
    "sub-resources": (text_sub_resources, (100, 200, 400)),
    "scene nodes": (text_scene, (100, 200, 400)),
}


def resource_all(data: bytes) -> Any:
    from gameserde.godot import resource
    from gameserde.godot.resource import inspect, jsonview

    file = resource.read(data)
    mapped = inspect.regions(data).rows if file.form == "binary" else None
    return resource.write(file), jsonview.to_jsonable(file), resource.write(
        file, "text" if file.form == "binary" else "binary"), mapped


@pytest.mark.parametrize("form", ["text", "binary"])
@pytest.mark.parametrize("family", list(RESOURCE_FAMILIES))
def test_godot_resources_grow_linearly(family: str, form: str) -> None:
    from gameserde.godot import resource

    make, sizes = RESOURCE_FAMILIES[family]
    if form == "binary":
        def binary(n: int) -> bytes:
            return resource.write(resource.read(make(n)), "binary")
        assert_linear(binary, resource_all, sizes)
    else:
        assert_linear(make, resource_all, sizes)


# ---------------------------------------------------------------------------------------------
# KingsIsle archives: opened (header and table), every member read and checked, globbed

def wad_of_members(n: int) -> bytes:
    from gameserde.kingsisle import write_wad

    return write_wad(None, {f"d{i % 7}/m{i:06}.xml": b"<x>%d</x>" % i * 8
                            for i in range(n)}) or b""


def wad_claiming(size: int) -> bytes:
    """One compressed member of 100 bytes said to inflate to ``size`` bytes."""
    import struct

    data = bytearray(wad_of_members(1))
    struct.pack_into("<I", data, 18, size)
    return bytes(data)


def wad_all(data: bytes) -> Any:
    from gameserde.kingsisle import open_wad

    with open_wad(data) as wad:
        return [attempt(lambda n=n: wad[n]) for n in wad.names()], wad.glob("**/*.xml")


def test_kingsisle_wad_grows_linearly() -> None:
    assert_linear(wad_of_members, wad_all, (200, 400, 800))


def test_kingsisle_wad_claimed_sizes_cost_nothing() -> None:
    assert_flat(wad_claiming, wad_all, (1 << 10, 1 << 20, (1 << 32) - 1))
