"""The C view getters (``_reader_speedups``) against the pure-Python ``view`` (the reference).

1. Random schemas and values (``fbs_gen``) and hand-written schemas covering every type: every
   field of every table, struct and vector reached through the view (iteration and indexing,
   paths, slots) gives equal values of the same types (floats bit for bit, NaN-safe) with the
   accelerator on, off (same classes: the C getters run the reference ones) and in view
   classes built without it (plain ``property`` getters).
2. Hostile input: mutated and truncated buffers, released and tampered views: the same value
   or the same error either way.
3. The C getters are really in use (the benchmark's Monster: class attributes, no Python
   reader code run per field), the existing reader suites pass with ``GAMESERDE_PURE=1`` and
   without, and nothing leaks (refcounts, RSS over 200k accesses). The module is skipped
   without the extension, except with ``CI=true``.
"""

from __future__ import annotations

import base64
import contextlib
import os
import random
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import (
    FbsSchema,
    _accel,
    _view_classes,
    _view_plans,
    load_schema,
    views,
)
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.json_input import from_json
from gameserde.flatbuffers.views import (
    FlatStructView,
    LazyStructView,
    TableView,
    VectorView,
    view,
)
from gameserde.schema.model import Record
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
)
from tests.flatbuffers.test_reader_accel import bench_module

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(_accel.reader is None and os.environ.get("CI") != "true",
                                reason="the C reader is not built (no compiler?)")


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def load(text: str, *, fast: bool = True, **kw: Any) -> FbsSchema:
    """A schema whose view classes (all built now) have the C getters (``fast``) or not."""
    saved = _accel.ENABLED
    _accel.ENABLED = fast
    try:
        schema = load_schema(text, **kw)
        c = _view_plans._compiled(schema)
        for name, t in schema.types.items():
            if isinstance(t, Record) and t.kind == "table":
                _view_plans._table_plan(c, name)
        assert fast or c_getters(schema)[0] == 0
        return schema
    finally:
        _accel.ENABLED = saved


# ------------------------------------------------------------------------------------------
# Walking a view: everything reachable, as plain comparable data


def _err(e: BaseException) -> tuple[Any, ...]:
    return ("error", type(e).__name__, str(e), getattr(e, "offset", None),
            getattr(e, "path", None))


def _leaf(x: Any) -> Any:
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))
    return (type(x).__name__, x)


def _attempt(fn: Callable[[], Any], depth: int) -> Any:
    try:
        value = fn()
    except Exception as e:
        return _err(e)
    return walk(value, depth + 1)


def walk(x: Any, depth: int = 0) -> Any:
    """Every field of every table, struct and vector reachable from ``x`` (class names,
    paths and slots included; errors as tuples)."""
    if depth > 40:
        return ("deep",)
    if isinstance(x, TableView):
        fields = tuple((fp.name, _attempt(lambda fp=fp: getattr(x, fp.name), depth))
                       for fp in x._plan.fields)
        return ("table", type(x).__name__, _view_classes._path_of(x), x._t, x._vt, x._vs, fields)
    if isinstance(x, FlatStructView):
        return ("flat", type(x).__name__, tuple(_leaf(v) for v in x),
                tuple(_leaf(getattr(x, fp.name)) for fp in x._plan.fields))
    if isinstance(x, LazyStructView):
        fields = tuple((fp.name, _attempt(lambda fp=fp: getattr(x, fp.name), depth))
                       for fp in x._plan.fields)
        return ("lazy", type(x).__name__, x._p, fields)
    if isinstance(x, VectorView):
        items: list[Any] = []
        try:
            for v in x:
                items.append(walk(v, depth + 1))
        except Exception as e:
            items.append(_err(e))
        n = len(x)
        indexed = [_attempt(lambda i=i: x[i], depth) for i in (*range(n), -1, n, -n - 1)]
        return ("vector", _view_classes._path_of(x), x._d, n, tuple(items), tuple(indexed),
                _attempt(lambda: list(x), depth) if n < 50 else None)
    if isinstance(x, list):
        return ("list", tuple(walk(v, depth + 1) for v in x))
    return _leaf(x)


def outcome(schema: FbsSchema, buf: Any, enabled: bool, **kw: Any) -> Any:
    _accel.ENABLED = enabled
    try:
        root = view(schema, buf, **kw)
    except Exception as e:
        return _err(e)
    return walk(root)


def check_same(schema: FbsSchema, buf: Any, pure: FbsSchema | None = None,
               **kw: Any) -> Any:
    """The walk with the accelerator on equals the walk with it off (and the walk of
    ``pure``, the same schema with reference classes); returns it."""
    fast = outcome(schema, buf, True, **kw)
    ref = outcome(schema, buf, False, **kw)
    assert fast == ref
    if pure is not None:
        assert outcome(pure, buf, True, **kw) == ref
    return ref


def c_getters(schema: FbsSchema) -> tuple[int, int]:
    """(C getters, all field attributes) over the schema's built view classes."""
    c = _view_plans._compiled(schema)
    fast = total = 0
    for plan in c.tables.values():
        for fp in plan.fields:
            total += 1
            fast += type(plan.cls.__dict__[fp.name]).__name__ == "Getter"
    return fast, total


# ------------------------------------------------------------------------------------------
# 3. The getters are in use


def test_benchmark_monster_uses_the_c_getters() -> None:
    bench = bench_module()
    schema = load(bench.SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(bench.SEED_BASE64)
    _accel.ENABLED = True
    m = view(schema, seed)
    for cls in (type(m), type(m.weapons[0]), type(m.equipped)):
        attrs = [cls.__dict__[fp.name] for fp in cls._plan.fields]
        assert attrs and all(type(a).__name__ == "Getter" for a in attrs), cls
        assert all(isinstance(a.property, property) and a.fget is a.property.fget
                   for a in attrs)
    for name in ("__iter__", "__len__", "__getitem__"):
        assert type(VectorView.__dict__[name]).__name__ == "method_descriptor"
    for vec in (m.weapons, m.path, m.inventory):
        assert type(vec) is VectorView and type(vec._el.fast).__name__ == "ElemInfo"
    # reading every field runs no Python code of the reader but view() itself
    calls: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename in (views.__file__, _view_classes.__file__,
                                                     _view_plans.__file__):
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        got = bench.read_ours(schema, seed)
    finally:
        sys.setprofile(None)
    assert calls == ["view"]
    _accel.ENABLED = False
    sys.setprofile(profile)
    try:
        assert bench.read_ours(schema, seed) == got
    finally:
        sys.setprofile(None)
    assert len(calls) > 20  # the reference getters ran
    pure = load(bench.SEED_SCHEMA, fast=False, filename="seed.fbs")
    assert isinstance(type(view(pure, seed)).__dict__["hp"], property)
    assert bench.read_ours(pure, seed) == got
    armory = bench.armory(300, 7)
    check_same(schema, armory, pure, root_type="Armory")


def test_attribute_errors_match() -> None:
    fast = load(SEED_SCHEMA, filename="seed.fbs")
    pure = load(SEED_SCHEMA, fast=False, filename="seed.fbs")
    seed = base64.b64decode(SEED_BASE64)
    messages = []
    for schema in (fast, pure):
        m = view(schema, seed)
        for action in (lambda m=m: setattr(m, "hp", 1), lambda m=m: delattr(m, "name"),
                       lambda m=m: m.nope):
            with pytest.raises(AttributeError) as exc:
                action()
            messages.append(str(exc.value).replace(type(m).__name__, "C"))
        assert type(m).__dict__["hp"].__get__(None, type(m)) is type(m).__dict__["hp"]
    assert messages[:3] == messages[3:]


def test_existing_suites_pass_in_both_modes() -> None:
    suites = ["tests/flatbuffers/test_reader.py", "tests/flatbuffers/test_reader_accel.py"]
    probe = ("from gameserde.flatbuffers import load_schema, _view_plans, views; "
             "from tests.flatbuffers.test_reader import SEED_SCHEMA as S; "
             "s = load_schema(S); c = _view_plans._compiled(s); "
             "p = _view_plans._table_plan(c, 'MyGame.Sample.Monster'); "
             "print(type(p.cls.__dict__['hp']).__name__, "
             "type(views.VectorView.__dict__['__iter__']).__name__)")
    for pure, expect in (("1", "property function"), ("", "Getter method_descriptor")):
        env = dict(os.environ, GAMESERDE_PURE=pure)
        out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True)
        assert out.stdout.split() == expect.split()
        run = subprocess.run([sys.executable, "-m", "pytest", *suites, "-q", "-x",
                              "-p", "no:cacheprovider"], cwd=ROOT, env=env,
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


# ------------------------------------------------------------------------------------------
# 1. Differential: random schemas and values, every type


@pytest.mark.parametrize("chunk", range(6))
def test_random_schemas(chunk: int) -> None:
    fast_getters = total = 0
    for k in range(20):
        seed = chunk * 1000 + k
        rnd = random.Random(seed)
        fbs, root = fbs_gen.random_schema(rnd)
        schema = load(fbs)
        pure = load(fbs, fast=False)
        for _ in range(3):
            value = fbs_gen.random_value(rnd, schema, root)
            try:
                buf = encode(schema, value, root)
            except EncodeError:
                continue
            try:
                ref = check_same(schema, buf, pure)
            except AssertionError as e:
                raise AssertionError(f"seed {seed}:\n{fbs}") from e
            assert ref[0] == "table"
        f, t = c_getters(schema)
        fast_getters += f
        total += t
    assert total > 0 and fast_getters >= total * 3 // 4, (fast_getters, total)


@pytest.mark.parametrize("index", range(len(ALL_DOCS)))
def test_every_type(index: int) -> None:
    schema = load(ALL_SCHEMA, filename="all.fbs")
    pure = load(ALL_SCHEMA, fast=False, filename="all.fbs")
    buf = from_json(schema, ALL_DOCS[index])
    for data in (buf, bytearray(buf), memoryview(buf), memoryview(bytearray(buf))):
        check_same(schema, data, pure)
    check_same(schema, buf, pure, root_type="T.W")
    prefixed = encode(schema, decode(schema, buf), size_prefixed=True)
    check_same(schema, prefixed, pure, size_prefixed=True)
    ref = check_same(schema, memoryview(buf).cast("b"), pure)  # not of format B
    assert ref[0] == "table"


@pytest.mark.parametrize("text, doc", [
    (UNION_VECTOR_SCHEMA, '{a_type: [X, Y, P, Str, 1], a: [{v: 1, s: "x"}, {w: 2}, '
                          '{a: 3, b: 4.5}, "str", {}], b_type: [Str, Str], b: ["p", "q"], '
                          'c_type: X, c: {v: 2, s: "y"}, n: 7}'),
    (UNION_VECTOR_SCHEMA, "{a_type: [Y, X, X], a: [{w: 5}], c_type: P, c: {a: 1, b: 2}}"),
    (UNION_VECTOR_SCHEMA, '{c_type: Str, c: "s"}'),
    (OFFSET64_SCHEMA, '{n: 7, s: "hello", bv: [1, 2, 3], name: "nm", sv: [{a: 1, b: 2}], '
                      'w: [9], leaf: {x: 1, s: "in"}, fv: [1.5, -2], ls: [{s: "a"}, {x: 2}]}'),
    (VECTOR64_SCHEMA, "{lv: [1, -2, 9223372036854775807], vv: [{a: 1, b: 2.5}], dv: [], n: 3}"),
    ("table T { f:[ubyte] (flexbuffer); n:int; v:[ubyte] = []; s:string = \"dflt\"; } "
     "root_type T;", "{n: 1}"),
    ("table T { f:[ubyte] (flexbuffer); n:int; v:[ubyte] = []; s:string = \"dflt\"; } "
     "root_type T;", '{n: 1, v: [1], s: "x"}'),
])
def test_other_schemas(text: str, doc: str) -> None:
    schema = load(text, filename="x.fbs")
    pure = load(text, fast=False, filename="x.fbs")
    check_same(schema, from_json(schema, doc), pure)


def test_large_vectors_keep_the_lazy_iterator() -> None:
    text = ("struct V { x:float; y:int; } table W { n:short; } "
            "table T { b:[ubyte]; v:[V]; s:[string]; w:[W]; } root_type T;")
    schema = load(text, filename="l.fbs")
    pure = load(text, fast=False, filename="l.fbs")
    limit = _accel.reader.ITER_LIST_MAX
    for n in (limit, limit + 1):
        value = {"b": [i % 256 for i in range(n)], "v": [{"x": i, "y": -i} for i in range(n)]}
        buf = encode(schema, value)
        _accel.ENABLED = True
        t = view(schema, buf)
        lazy = n > limit
        assert (type(iter(t.b)).__name__ == "list_iterator") is not lazy
        assert (type(iter(t.v)).__name__ == "list_iterator") is not lazy
        assert list(t.b) == list(view(pure, buf).b)
        assert list(t.v) == list(view(pure, buf).v)
    value = {"s": [str(i) for i in range(3000)], "w": [{"n": i} for i in range(3000)]}
    check_same(schema, encode(schema, value), pure)


# ------------------------------------------------------------------------------------------
# 2. Hostile input


def test_mutated_buffers() -> None:
    rng = random.Random(17)
    cases = valid_buffers(load)
    errors = oks = 0
    for schema, data in cases:
        for buf in mutants(rng, data, 400):
            ref = check_same(schema, buf)
            text = repr(ref)
            if "'error'" in text:
                errors += 1
            if ref[0] == "table":
                oks += 1
    assert errors > 100 and oks > 100


def test_mutated_random_schema_buffers() -> None:
    rng = random.Random(23)
    for fbs, schema, data in random_schema_buffers(load):
        for buf in mutants(rng, data, 40):
            try:
                check_same(schema, buf)
            except AssertionError as e:
                raise AssertionError(f"{fbs}\n{buf!r}") from e


def test_random_bytes() -> None:
    rng = random.Random(3)
    schema = load(ALL_SCHEMA, filename="all.fbs")
    for _ in range(1500):
        buf = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80)))
        check_same(schema, buf)
        check_same(schema, buf, size_prefixed=True)


def _tampered(m: Any, name: str, value: Any) -> Any:
    setattr(m, name, value)
    return m


def test_released_and_tampered_views() -> None:
    schema = load(SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(SEED_BASE64)
    tamper: list[tuple[str, Any]] = [
        ("_t", -1), ("_t", 10**30), ("_t", 4), ("_t", True), ("_t", 1.0), ("_t", 10**6),
        ("_vt", 10**6), ("_vt", -3), ("_vs", 0), ("_vs", 10**6), ("_vs", 0x10000),
        ("_b", seed), ("_b", memoryview(seed).cast("b")), ("_b", memoryview(seed)[::2]),
        ("_b", memoryview(seed)[:40]), ("_b", None),
    ]
    for name, value in tamper:
        outs = []
        for enabled in (True, False):
            _accel.ENABLED = True
            m = _tampered(view(schema, seed), name, value)
            _accel.ENABLED = enabled
            outs.append(walk(m))
        assert outs[0] == outs[1], (name, value)
    for enabled in (True, False):
        _accel.ENABLED = enabled
        m = view(schema, bytearray(seed))
        vec = m.weapons
        m._b.release()
        for read in (lambda m=m: m.hp, lambda m=m: m.name, lambda v=vec: list(v),
                     lambda v=vec: v[0]):
            with pytest.raises(ValueError, match="released"):
                read()
        assert len(vec) == 2
    for name, value in (("_d", -1), ("_d", 10**6), ("_n", 10**9), ("_n", -1), ("_el", None),
                        ("_n", 2**70), ("_b", b"xx")):
        outs = []
        for enabled in (True, False):
            _accel.ENABLED = True
            vec = _tampered(view(schema, seed).weapons, name, value)
            _accel.ENABLED = enabled
            outs.append((_attempt(lambda vec=vec: list(vec), 0),
                         _attempt(lambda vec=vec: vec[0], 0),
                         _attempt(lambda vec=vec: len(vec), 0)))
        assert outs[0] == outs[1], (name, value)


def test_refcounts_and_memory_do_not_leak() -> None:
    bench = bench_module()
    schema = load(bench.SEED_SCHEMA, filename="seed.fbs")
    seed = base64.b64decode(bench.SEED_BASE64)
    bad = bytearray(seed)
    bad[bad.index(b"Axe") - 4] = 0xFF  # a string length past the end: give-up paths
    bad_b = bytes(bad)
    _accel.ENABLED = True

    def burst(k: int) -> None:
        for _ in range(k):
            bench.read_ours(schema, seed)
            m = view(schema, bad_b)
            for w in m.weapons:
                with contextlib.suppress(DecodeError):
                    _ = w.name
            m.weapons[1]
            m.path[-1]

    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    burst(2000)
    counted = (None, True, 0, 1, 3, seed, type(view(schema, seed)))
    before = [sys.getrefcount(x) for x in counted]
    start = rss() if os.path.exists("/proc/self/statm") else 0
    burst(10_000)  # 10k x ~20 accesses: 200k
    assert [sys.getrefcount(x) for x in counted] == before
    if start:
        assert rss() - start < 4 << 20
