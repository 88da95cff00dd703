"""The C decoder (``_reader_speedups``) against the pure-Python ``decode`` (the reference).

1. Random schemas and values (``fbs_gen``), encoded by ``encode``: ``decode`` with the
   accelerator on and off gives the same values, types, float bits and dict key order, with
   ``defaults`` True and False; plus hand-written schemas covering every type, union vectors,
   nested flatbuffers, 64-bit offsets, size prefixes and deep nesting.
2. Hostile input: mutated and truncated buffers and random bytes give the same value or the
   same DecodeError either way; huge claimed lengths allocate nothing.
3. The C path is really taken (the benchmark's Monster and Weapons buffers), and the extension
   is built (enforced with ``CI=true``; elsewhere the module is skipped without a compiler).
"""

from __future__ import annotations

import base64
import importlib.util
import os
import random
import struct
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import Builder, FbsSchema, _accel, load_schema
from gameserde.flatbuffers._budget import DEFAULT_MAX_EXPANSION, Budget
from gameserde.flatbuffers._reader_program import OP_GIVEUP, describe, program
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.json_input import from_json
from gameserde.flatbuffers.views import view
from tests.flatbuffers import fbs_gen
from tests.flatbuffers.mutation import mutants, random_schema_buffers, valid_buffers
from tests.flatbuffers.test_reader import (
    ALL_DOCS,
    ALL_SCHEMA,
    OFFSET64_SCHEMA,
    SEED_BASE64,
    SEED_SCHEMA,
    UNION_VECTOR_SCHEMA,
    VECTOR64_SCHEMA,
    Monster,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


pytestmark = pytest.mark.skipif(_accel.reader is None and os.environ.get("CI") != "true",
                                reason="the C reader is not built (no compiler?)")


def same(a: Any, b: Any, path: str = "$") -> None:
    """Equal values of the same types, dict keys in the same order, floats bit for bit."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), f"{path}: {a!r} vs {b!r}"
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def outcome(schema: FbsSchema, buf: Any, enabled: bool, **kw: Any) -> tuple[Any, ...]:
    _accel.ENABLED = enabled
    try:
        return ("ok", decode(schema, buf, **kw))
    except DecodeError as e:
        return ("error", str(e), e.offset, e.path)


def check_same(schema: FbsSchema, buf: Any, **kw: Any) -> tuple[Any, ...]:
    """decode with and without the accelerator agree (value or DecodeError); the outcome."""
    fast = outcome(schema, buf, True, **kw)
    ref = outcome(schema, buf, False, **kw)
    assert fast[0] == ref[0], (fast, ref)
    if fast[0] == "ok":
        same(fast[1], ref[1])
    else:
        assert fast == ref
    return ref


def c_decode(schema: FbsSchema, buf: Any, root_type: str | None = None, *,
             size_prefixed: bool = False, defaults: bool = False) -> Any:
    """The C entry itself (None: it gave up), with the default expansion budget."""
    prog = program(schema, root_type)
    assert prog is not False
    limit = Budget(memoryview(buf).nbytes, DEFAULT_MAX_EXPANSION).limit
    return _accel.reader.decode(prog, buf, size_prefixed, defaults, limit)


# ------------------------------------------------------------------------------------------
# 3. The extension is there and used


def test_extension_is_built() -> None:
    assert _accel.reader is not None
    assert _accel.reader.API_VERSION == _accel.API_VERSION == 1


def bench_module() -> Any:
    """benchmarks/flatbuffers_read_bench.py, imported (its schema and buffers)."""
    path = ROOT / "benchmarks" / "flatbuffers_read_bench.py"
    spec = importlib.util.spec_from_file_location("flatbuffers_read_bench", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_benchmark_buffers_take_the_c_path() -> None:
    bench = bench_module()
    schema = load_schema(bench.SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(bench.SEED_BASE64)
    armory = bench.armory(500, 20)
    for defaults in (False, True):
        got = c_decode(schema, seed, defaults=defaults)
        assert got is not None
        _accel.ENABLED = False
        same(got, decode(schema, seed, defaults=defaults))
        got = c_decode(schema, armory, "Armory", defaults=defaults)
        assert got is not None
        same(got, decode(schema, armory, "Armory", defaults=defaults))
    assert got["weapons"][499] == {"name": "w99", "damage": 499}


def test_seed_monster_and_dataclasses() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(SEED_BASE64)
    assert c_decode(schema, seed) == {
        "pos": {"x": 1.0, "y": 2.0, "z": 3.0}, "hp": 300, "name": "Orc",
        "inventory": list(range(10)), "color": 0,
        "weapons": [{"name": "Sword", "damage": 3}, {"name": "Axe", "damage": 5}],
        "equipped_type": 1, "equipped": {"name": "Axe", "damage": 5},
        "path": [{"x": 4.0, "y": 5.0, "z": 6.0}, {"x": 1.0, "y": 2.0, "z": 3.0}]}
    for buf in (seed, bytearray(seed), memoryview(seed), memoryview(bytearray(seed))):
        check_same(schema, buf)
        check_same(schema, buf, defaults=True)
    _accel.ENABLED = True
    fast = decode(schema, seed, cls=Monster, defaults=True)
    _accel.ENABLED = False
    assert fast == decode(schema, seed, cls=Monster, defaults=True)
    assert isinstance(fast, Monster) and fast.weapons[1].name == "Axe"


# ------------------------------------------------------------------------------------------
# 1. Differential: random schemas and values


@pytest.mark.parametrize("chunk", range(8))
def test_random_schemas(chunk: int) -> None:
    taken = total = 0
    for k in range(25):
        seed = chunk * 1000 + k
        rnd = random.Random(seed)
        fbs, root = fbs_gen.random_schema(rnd)
        schema = load_schema(fbs)
        # the program compiles for every schema (a malformed one would hide behind False)
        _accel.reader.compile(describe(schema, None))
        for _ in range(4):
            value = fbs_gen.random_value(rnd, schema, root)
            try:
                buf = encode(schema, value, root)
            except EncodeError:
                continue
            for defaults in (False, True):
                total += 1
                try:
                    check_same(schema, buf, defaults=defaults)
                except AssertionError as e:
                    raise AssertionError(f"seed {seed}:\n{fbs}") from e
                if c_decode(schema, buf, defaults=defaults) is not None:
                    taken += 1
    assert total > 0 and taken >= total // 2, (taken, total)


@pytest.mark.parametrize("index", range(len(ALL_DOCS)))
def test_every_type(index: int) -> None:
    schema = load_schema(ALL_SCHEMA, filename="all.fbs")
    buf = from_json(schema, ALL_DOCS[index])
    for defaults in (False, True):
        assert c_decode(schema, buf, defaults=defaults) is not None
        check_same(schema, buf, defaults=defaults)
    prefixed = encode(schema, decode(schema, buf), size_prefixed=True)
    assert c_decode(schema, prefixed, size_prefixed=True) is not None
    check_same(schema, prefixed, size_prefixed=True)
    check_same(schema, buf, root_type="T.M")


def test_nested_flatbuffer_and_float_bits() -> None:
    schema = load_schema(ALL_SCHEMA, filename="all.fbs")
    buf = from_json(schema, ALL_DOCS[1])
    got = c_decode(schema, buf)
    assert got["nf"] == {"name": "nested", "d": 1}
    assert got["vf"][3] == struct.unpack("<f", struct.pack("<f", 1e-45))[0]
    assert got["dn"] != got["dn"] and got["vb"] == [True, False, True]


@pytest.mark.parametrize("doc", [
    '{a_type: [X, Y, P, Str, 1], a: [{v: 1, s: "x"}, {w: 2}, {a: 3, b: 4.5}, "str", {}], '
    'b_type: [Str, Str], b: ["p", "q"], n: 7}',
    "{a_type: [], a: [], b_type: [Y], b: [{}], c_type: P, c: {a: 1, b: 2}}",
    "{a_type: [Y, X, X], a: [{w: 5}]}",
    '{c_type: Str, c: "s"}',
])
def test_union_vectors(doc: str) -> None:
    schema = load_schema(UNION_VECTOR_SCHEMA, filename="u.fbs")
    buf = from_json(schema, doc)
    assert c_decode(schema, buf) is not None
    check_same(schema, buf)
    check_same(schema, buf, defaults=True)


def test_union_tags_the_schema_does_not_know() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    data = bytearray(base64.b64decode(SEED_BASE64))
    m = view(schema, bytes(data))
    slot = schema.table("MyGame.Sample.Monster").field("equipped_type").attributes[
        "flatbuffers.voffset"]
    at = m._t + int.from_bytes(data[m._vt + slot:m._vt + slot + 2], "little")
    for tag in (0, 2, 99, 255):
        data[at] = tag
        got = c_decode(schema, bytes(data))
        assert got is not None and got["equipped"] is None and got["equipped_type"] == tag
        check_same(schema, bytes(data))


def test_64_bit_offsets_and_flexbuffers_give_up() -> None:
    schema = load_schema(OFFSET64_SCHEMA, filename="o.fbs")
    buf = from_json(schema, '{n: 7, s: "hello", name: "nm", leaf: {x: 1}}')
    assert c_decode(schema, buf) is None
    check_same(schema, buf)
    buf = from_json(schema, '{n: 7, name: "nm", leaf: {x: 1}, ls: [{x: 2}]}')
    assert c_decode(schema, buf) is not None  # absent 64-bit fields are fine
    check_same(schema, buf, defaults=True)
    schema = load_schema(VECTOR64_SCHEMA, filename="v.fbs")
    buf = from_json(schema, "{lv: [1, -2], n: 3}")
    assert c_decode(schema, buf) is None
    check_same(schema, buf)
    schema = load_schema("table T { f:[ubyte] (flexbuffer); n:int; } root_type T;",
                         filename="f.fbs")
    tables = describe(schema, None)[1]
    assert [(f[0], f[2]) for f in tables[0] if f[2] == OP_GIVEUP] == [("f", OP_GIVEUP)]


def test_invalid_utf8_is_kept_as_the_reference_keeps_it() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    data = bytearray(base64.b64decode(SEED_BASE64))
    at = bytes(data).index(b"Orc")
    for bad in (b"\xff", b"\xc3", b"\xed"):
        data[at + 1:at + 2] = bad
        got = c_decode(schema, bytes(data))
        assert got is not None and got["name"] == "O" + chr(0xDC00 + bad[0]) + "c"
        check_same(schema, bytes(data))


def _chain(depth: int) -> bytes:
    b = Builder()
    child = 0
    for _ in range(depth):
        b.start_object(1)
        if child:
            b.prepend_uoffset_relative_slot(0, child, 0)
        child = b.end_object()
    b.finish(child)
    return bytes(b.output())


def test_deep_nesting() -> None:
    schema = load_schema("table N { n:N; x:int = 3; } root_type N;", filename="n.fbs")
    assert c_decode(schema, _chain(60)) is not None
    assert c_decode(schema, _chain(100)) is None  # past MAX_DEPTH: the reference decides
    for depth in (60, 100):
        check_same(schema, _chain(depth), defaults=True)
    ref = check_same(schema, _chain(3000))
    assert ref[0] == "error" and "nested too deeply" in ref[1]


# ------------------------------------------------------------------------------------------
# 2. Hostile input


def test_mutated_buffers() -> None:
    rng = random.Random(11)
    cases = valid_buffers(load_schema)
    errors = oks = 0
    for schema, data in cases:
        for buf in mutants(rng, data, 500):
            for defaults in (False, True):
                ref = check_same(schema, buf, defaults=defaults)
                if ref[0] == "ok":
                    oks += 1
                else:
                    errors += 1
    assert errors > 100 and oks > 100


def test_mutated_random_schema_buffers() -> None:
    rng = random.Random(5)
    for _, schema, data in random_schema_buffers(load_schema):
        for buf in mutants(rng, data, 60):
            check_same(schema, buf)


def test_random_bytes() -> None:
    rng = random.Random(3)
    schema = load_schema(ALL_SCHEMA, filename="all.fbs")
    for _ in range(1500):
        n = rng.randrange(0, 80)
        buf = bytes(rng.randrange(256) for _ in range(n))
        check_same(schema, buf)
        check_same(schema, buf, size_prefixed=True)
    for buf in (b"", b"\x01", b"\x00\x00\x00", b"\xff\xff\xff\xff", b"\x04\x00\x00\x00"):
        assert c_decode(schema, buf) is None
        check_same(schema, buf)


def test_huge_claimed_lengths_allocate_nothing() -> None:
    schema = load_schema(SEED_SCHEMA, filename="seed.fbs")
    data = base64.b64decode(SEED_BASE64)
    m = view(schema, data)
    # the length words of inventory (ubyte), weapons (tables), path (structs), name (string)
    starts = [m.inventory._d - 4, m.weapons._d - 4, m.path._d - 4]
    name_slot = m._t + int.from_bytes(data[m._vt + 10:m._vt + 12], "little")
    starts.append(name_slot + int.from_bytes(data[name_slot:name_slot + 4], "little"))
    for at in starts:
        for n in (0xFFFFFFFF, 0x7FFFFFFF, 0x40000000, len(data)):
            bad = bytearray(data)
            bad[at:at + 4] = n.to_bytes(4, "little")
            tracemalloc.start()
            try:
                assert c_decode(schema, bytes(bad)) is None
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 64 * 1024
            check_same(schema, bytes(bad))


def test_refcounts_do_not_leak() -> None:
    schema = load_schema(ALL_SCHEMA, filename="all.fbs")
    buf = from_json(schema, ALL_DOCS[1])
    bad = buf[:len(buf) // 2]
    c_decode(schema, buf, defaults=True)
    before = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(0)
    for _ in range(200):
        c_decode(schema, buf, defaults=True)
        c_decode(schema, bad)
    assert (sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(0)) == before
