"""The C accelerator of binary resource Variants (``gameserde.godot.resource._speedups``)
against the pure-Python reference (``VariantReader``/``VariantWriter``, forced with
``_accel.ENABLED = False``).

Every test runs the same input both ways: the values must be equal and of identical types
(floats bit for bit, ``dict`` and ``Dictionary`` told apart), the bookkeeping identical
(``choice`` and ``overrides``), the bytes identical, and the errors identical (class,
message, offset, path). On well-formed input the extension must not give up, so the fast
path is what these tests exercise.
"""

from __future__ import annotations

import os
import random
import struct
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, GameserdeWarning
from gameserde.godot import types as gt
from gameserde.godot.resource import _accel, binary, binary_variant
from gameserde.godot.resource.binary_variant import Context, VariantReader, VariantWriter
from gameserde.godot.resource.model import ExtRef, ExtResource, Resource, ResourceFile, SubRef
from tests.conformance.test_godot_real_binary import CASES, _data

from ..strategies import doubles, node_paths, reals, same, texts

requires_ext = pytest.mark.skipif(not _accel.AVAILABLE,
                                  reason="the C accelerator is not built (no compiler?)")
pytestmark = requires_ext


@contextmanager
def accel(enabled: bool) -> Iterator[None]:
    saved = _accel.ENABLED
    _accel.ENABLED = enabled
    try:
        yield
    finally:
        _accel.ENABLED = saved


@contextmanager
def no_give_up() -> Iterator[list[int]]:
    """Count the top-level values the extension read or wrote; fail if it gave up on one."""
    done = [0]
    read, write = _accel.read_value, _accel.write_value

    def counted_read(rd: VariantReader, pos: int) -> tuple[Any, int] | None:
        got = read(rd, pos)
        assert got is not None, f"the extension gave up on the value at {pos}"
        done[0] += 1
        return got

    def counted_write(wr: VariantWriter, value: Any) -> bool:
        ok = write(wr, value)
        assert ok, f"the extension gave up on {value!r:.200}"
        done[0] += 1
        return ok

    _accel.read_value, _accel.write_value = counted_read, counted_write  # type: ignore[assignment]
    try:
        yield done
    finally:
        _accel.read_value, _accel.write_value = read, write  # type: ignore[assignment]


def identical(a: Any, b: Any) -> bool:
    """Equal as Godot sees it (NaN payloads and zero signs included) and of the same types."""
    return same(a, b) and repr(a) == repr(b)


def outcome(fn: Callable[[], Any]) -> tuple[Any, ...]:
    """The result of ``fn`` or a comparable description of what it raised."""
    try:
        return ("ok", fn())
    except DecodeError as e:
        return ("DecodeError", e.message, e.offset, e.path, str(e))
    except EncodeError as e:
        return ("EncodeError", e.message, e.path, str(e))
    except Exception as e:  # the reference may raise others (struct.error, OverflowError)
        return (type(e).__name__, str(e))


def both(fn: Callable[[], Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    with accel(True):
        fast = outcome(fn)
    with accel(False):
        slow = outcome(fn)
    return fast, slow


def file_parts(f: ResourceFile) -> Any:
    return ([(r.type, r.id, list(r.properties.items())) for r in f.resources], f.kept,
            f.external, f.engine, f.format, f.type)


def assert_same_read(data: bytes) -> None:
    fast, slow = both(lambda: binary.read(data))
    if fast[0] == "ok" and slow[0] == "ok":
        assert identical(file_parts(fast[1]), file_parts(slow[1]))
    else:
        assert fast == slow


def test_pure_switches_it_off() -> None:
    code = "from gameserde.godot.resource import _accel; print(_accel.AVAILABLE, _accel.ENABLED)"
    for pure, expected in (("1", "True False"), ("0", "True True")):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "GAMESERDE_PURE": pure}, check=True)
        assert run.stdout.split() == expected.split()


# ---------------------------------------------------------------------------------------------
# The real corpus


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_corpus_reads_and_writes_the_same(case: dict[str, Any]) -> None:
    data = _data(case)
    with accel(True), no_give_up():
        fast = binary.read(data)
        fast_bytes = binary.write(fast)
    with accel(False):
        slow = binary.read(data)
        slow_bytes = binary.write(slow)
    assert identical(file_parts(fast), file_parts(slow))
    assert fast_bytes == slow_bytes


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_corpus_mutations_fail_the_same(case: dict[str, Any]) -> None:
    data = _data(case)
    if data[:4] == b"RSCC":  # mutate the stream, not the compressed container
        with accel(False):
            f = binary.read(data)
        f.kept.pop("rscc")
        data = binary.write(f)
    rng = random.Random(case["case"])
    large = len(data) > 1 << 20  # the two files of megabytes: fewer rounds (CI's time)
    for _ in range(3 if large else 12):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        assert_same_read(bytes(bad))
    for _ in range(2 if large else 6):
        assert_same_read(data[:rng.randrange(len(data))])


# ---------------------------------------------------------------------------------------------
# Generated values, straight through VariantReader and VariantWriter

int_values = st.one_of(st.integers(-(1 << 31), (1 << 31) - 1),
                       st.integers(-(1 << 63), (1 << 63) - 1), st.integers(1 << 63, 1 << 70))
leaves = st.one_of(
    st.none(), st.booleans(), int_values, doubles(), texts(), texts().map(gt.StringName),
    st.builds(gt.Vector2, reals(), reals()), st.builds(gt.Vector3, reals(), reals(), reals()),
    st.builds(gt.Color, reals(), reals(), reals(), reals()),
    st.builds(gt.Vector2i, st.integers(-(1 << 31), (1 << 31) - 1),
              st.integers(-(1 << 31), (1 << 31) - 1)),
    st.builds(gt.Vector3i, st.integers(-5, 5), st.integers(-5, 5), st.integers(-5, 5)),
    st.builds(gt.Vector4, reals(), reals(), reals(), reals()),
    st.builds(gt.Transform2D, *[st.builds(gt.Vector2, reals(), reals())] * 3),
    st.binary(max_size=9), st.lists(texts(6), max_size=4).map(gt.PackedStringArray),
    st.lists(st.integers(-9, 9), max_size=4).map(gt.PackedInt32Array),
    node_paths, st.just(gt.Callable()), st.builds(gt.RID, st.integers(0, 99)),
    st.sampled_from([ExtRef("1"), ExtRef("2"), SubRef("a"), SubRef("nope")]),
)
keys = st.one_of(texts(), st.integers(-3, 3), st.booleans(), texts().map(gt.StringName),
                 st.floats(allow_nan=False, width=32))
values = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(texts(4), children, max_size=4),
        st.dictionaries(keys, children, max_size=4),
        st.lists(children, max_size=3).map(lambda xs: gt.TypedArray(gt.ContainerType(2), xs)),
    ),
    max_leaves=12,
)

CONTEXTS = {
    "godot4": Context(format=6, named_ids=True),
    "godot4-double": Context(format=6, named_ids=True, real_size=8),
    "godot3": Context(format=3),
    "godot3.1": Context(format=3, always_int64=True),
    "godot2": Context(format=2),
}
TAGS = st.sampled_from([binary_variant.INT64, binary_variant.INT32, binary_variant.DOUBLE,
                        binary_variant.FLOAT, binary_variant.OBJECT, binary_variant.PROPERTY])


def _context(name: str) -> Context:
    base = CONTEXTS[name]
    ctx = Context(real_size=base.real_size, format=base.format, named_ids=base.named_ids,
                  always_int64=base.always_int64, strings=["a", "b"], ext_count=1)
    ctx.set_internal_ids(["a", "b"] if ctx.named_ids else ["1", "2"])
    return ctx


def write_all(ctx: Context, items: list[Any], overrides: dict[int, str]) -> Any:
    out = bytearray()
    internal = {"a": 0, "b": 1} if ctx.named_ids else {"a": 1, "b": 2}  # as _context's ids
    wr = VariantWriter(out, ctx, {"a": 0, "b": 1}, internal, dict(overrides))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in items:
            wr.value(v)
    return bytes(out), wr.choice, [str(w.message) for w in caught]


def read_all(ctx: Context, data: bytes, count: int) -> Any:
    rd = VariantReader(memoryview(data), ctx)
    got = []
    pos = 0
    for _ in range(count):
        v, pos = rd.value(pos)
        got.append(v)
    return got, pos, rd.choice, rd.overrides


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CONTEXTS)), st.lists(values, min_size=1, max_size=4),
       st.dictionaries(st.integers(0, 12), TAGS, max_size=4), st.data())
def test_generated_values_both_ways(name: str, items: list[Any], overrides: dict[int, str],
                                    data: st.DataObject) -> None:
    ctx = _context(name)
    fast, slow = both(lambda: write_all(ctx, items, overrides))
    assert fast == slow
    if fast[0] != "ok":
        return
    stream = fast[1][0]
    fast, slow = both(lambda: read_all(ctx, stream, len(items)))
    assert fast[0] == slow[0] == "ok"
    assert identical(fast[1], slow[1])
    # mutated and truncated streams
    bad = bytearray(stream)
    for _ in range(data.draw(st.integers(0, 3))):
        bad[data.draw(st.integers(0, len(bad) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(bad)))
    fast, slow = both(lambda: read_all(ctx, bytes(bad[:cut]), len(items)))
    if fast[0] == slow[0] == "ok":
        assert identical(fast[1], slow[1])
    else:
        assert fast == slow


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(texts(8).filter(bool), values), min_size=1, max_size=5),
       st.sampled_from([(4, 3, 6, 0), (3, 5, 3, 0), (3, 1, 3, 0), (4, 3, 6, 1), (3, 5, 3, 1),
                        (4, 3, 6, binary.FLAG_REAL_T_IS_DOUBLE)]))
def test_generated_files_both_ways(props: list[tuple[str, Any]],
                                   form: tuple[int, int, int, int]) -> None:
    """Whole files (Godot 4, 3.5, 3.1, big-endian, real_t double) written and read back."""
    major, minor, fmt, extra = form
    kept: dict[str, Any] = {}
    if extra == 1:
        kept["big_endian"] = 1
    elif extra:
        kept["flags"] = extra
    f = ResourceFile(form="binary", type="Resource", engine=(major, minor), format=fmt,
                     external=[ExtResource("Texture2D", "res://icon.png", "1")],
                     resources=[Resource("Resource", "a", {"n": 1}),
                                Resource("Resource", "res://main.tres", dict(props))],
                     kept=kept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, slow = both(lambda: binary.write(f))
    assert fast == slow
    if fast[0] == "ok":
        assert_same_read(fast[1])
        with accel(False):
            back = binary.read(fast[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert both(lambda: binary.write(back)) == (("ok", fast[1]), ("ok", fast[1]))


# ---------------------------------------------------------------------------------------------
# Specific cases


def test_bench_like_file_runs_in_c_and_round_trips() -> None:
    units = [{"id": i, "name": f"unit_{i}", "pos": gt.Vector3(i * 0.5, -i * 0.25, 1.5),
              "tags": ["red", "fast", f"tag{i % 10}"], "speed": i * 0.125, "ratio": i / 3.0,
              "alive": i % 2 == 0, "inventory": [i % 256, 1, 2, 3, 4]} for i in range(300)]
    names = gt.PackedStringArray(f"name_{i}" for i in range(300))
    f = ResourceFile(form="binary", type="Resource", engine=(3, 2), format=3, external=[],
                     resources=[Resource("Resource", "res://save.res",
                                         {"units": units, "names": names, "none": None})])
    with accel(True), no_give_up() as done:
        data = binary.write(f)
        back = binary.read(data)
        again = binary.write(back)
    assert done[0] == 9  # three property values, written, read and written again
    with accel(False):
        assert binary.write(f) == data
        slow = binary.read(data)
    assert identical(file_parts(back), file_parts(slow))
    assert again == data
    assert back.kept.get("overrides") is None


def test_overrides_and_choice_match() -> None:
    items = [struct.pack("<Iq", 40, 7), struct.pack("<Id", 41, 0.5),
             struct.pack("<If", 4, float("nan")), struct.pack("<II", 24, 0),
             struct.pack("<I", 1), struct.pack("<Ii", 3, 5)]
    stream = struct.pack("<II", 30, len(items)) + b"".join(items)
    ctx = _context("godot3")
    fast, slow = both(lambda: read_all(ctx, stream, 1))
    assert identical(fast, slow)
    assert fast[1][2] == 6 and fast[1][3] == {0: "int64", 1: "double", 2: "float", 3: "object"}
    ctx31 = _context("godot3.1")
    fast, slow = both(lambda: read_all(ctx31, stream, 1))
    assert identical(fast, slow)
    assert fast[1][3] == {1: "double", 2: "float", 3: "object", 5: "int32"}


def test_failed_attempt_restores_the_reader() -> None:
    """A value the extension starts and the data then fails: the reference's error, and no
    note left over from the attempt."""
    stream = struct.pack("<II", 30, 2) + struct.pack("<Iq", 40, 7) + struct.pack("<I", 99)
    ctx = _context("godot3")
    fast, slow = both(lambda: read_all(ctx, stream, 1))
    assert fast == slow and fast[0] == "DecodeError"
    rd = VariantReader(memoryview(stream), ctx)
    with accel(True), pytest.raises(DecodeError):
        rd.value(0)
    assert rd.choice == 1 and rd.overrides == {0: "int64"}  # as the reference left them


def test_typed_containers_still_warn() -> None:
    typed = gt.TypedArray(gt.ContainerType(2), [1, 2])
    for enabled in (True, False):
        with accel(enabled), pytest.warns(GameserdeWarning, match="keeps no element types"):
            w = VariantWriter(bytearray(), _context("godot4"), {}, {}, {})
            w.value([typed])
        assert w.out == struct.pack("<IIII", 30, 1, 30, 2) + struct.pack("<IiIi", 3, 1, 3, 2)
    # given up after the typed Array (the int is too big): the reference warns once, as alone
    fast, slow = both(lambda: write_all(_context("godot4"), [[typed, 1 << 64]], {}))
    assert fast == slow and fast[0] == "EncodeError"
    with accel(True), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(EncodeError):
            VariantWriter(bytearray(), _context("godot4"), {}, {}, {}).value([typed, 1 << 64])
    assert len(caught) == 1


def test_dictionary_kinds_match() -> None:
    """Keys all str: a dict built in C; other keys: build_dictionary decides."""
    cases = [{"a": 1, "b": {"c": 2}}, {1: "x", "a": 2}, gt.Dictionary([(1, "i"), (1.0, "f")]),
             {"a": 1, gt.StringName("b"): 2}, {"x": 1, 2: {3: 4}}]
    for case in cases:
        ctx = _context("godot4")
        fast, slow = both(lambda c=case, x=ctx: read_all(x, write_all(x, [c], {})[0], 1))
        assert identical(fast, slow)


@pytest.mark.parametrize("depth", [1023, 1024, 1025])
def test_nesting_limit_is_the_references(depth: int) -> None:
    """MAX_DEPTH levels of Arrays and Dictionaries and no more, both ways."""
    nested: Any = 1
    for i in range(depth):
        nested = [nested] if i % 2 else {"k": nested}
    ctx = _context("godot4")
    with recursion_room(3 * binary_variant.MAX_DEPTH + 64):
        fast, slow = both(lambda: write_all(ctx, [nested], {}))
        assert fast == slow
        stream = struct.pack("<II", 30, 1) * depth + struct.pack("<Ii", 3, 1)
        fast, slow = both(lambda: read_all(ctx, stream, 1))
        assert identical(fast, slow)
    assert (fast[0] == "ok") == (depth <= binary_variant.MAX_DEPTH)
