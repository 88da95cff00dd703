"""``flexbuffer`` fields and :mod:`gameserde.flatbuffers.flexbuffers` against flatc 25.12.19.

* ``flatc -b`` bytes == :func:`from_json` bytes, and ``flatc --json [--strict-json]`` text ==
  :func:`to_json`, for hand-written documents (tokens, widths, sharing, escapes, nesting) and
  for hypothesis-generated JSON values, many documents per flatc run;
* flatc reads back what :func:`encode` writes from Python values;
* the generated C++ verifier (``flexbuffers::VerifyNestedFlexBuffer``) and :func:`verify` agree
  on mutated buffers;
* the official Python runtime (``flatbuffers.flexbuffers``) reads :func:`dumps` output, and
  :func:`loads` reads the official builder's;
* hostile input: :func:`loads`, :func:`to_json` and :func:`verify` raise only ``DecodeError``.
"""

from __future__ import annotations

import json
import math
import random
import struct
import subprocess
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import flexbuffers as fx
from gameserde.flatbuffers import load_schema
from gameserde.flatbuffers._json_parse import parse_json
from tests.flatbuffers import cpp_oracle

SCHEMA = """table Inner { name:string; data:[ubyte] (flexbuffer); n:short; }
table T { a:int; f:[ubyte] (flexbuffer); inner:Inner; list:[Inner]; g:[ubyte] (flexbuffer);
  z:double; }
root_type T;
"""

# flexbuffer values as JSON text, each put into {f: ...}
VALUES = [
    '{ b: [1, 2.5, "x", true, null, -inf, nan, 0x10, 99999999999999999999, -nan, +infinity, '
    '1e400, {}, []], a: "x", "c d": {z: "x"}, "": 1 }',
    "5", "-5", "+7", "0", "-0", "-0.0", "1.", ".5", "0x1p3", "-0x1.8p1", "0X10", "-0x10",
    "1e-400", "1e+5", "007", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "18446744073709551615", "3.4028234663852886e38", "0.1", "1e300",
    "-Infinity", "-NaN", "+nan", "infinity", "inf", "nan", "true", "false",
    '"h\\u00e9\\u0001\\x7f\\t\\"\\\\/"', '"\\ud83d\\ude00 \u00e9\u20ac"', '""', '"a\\u0000b"',
    "[1,2,]", "[]", "{}", "[[[]]]", "[null, false]", "[{}, [], \"\", 0]",
    '{a: {b: {c: [1, [2, [3, "deep"]]]}}}',
    "[300, 70000, 5000000000, -129, 128, -32769, 255, 256, 65535, 65536, -128]",
    "[0.5, 0.1, 1e300, 3.4028234663852886e38, -0.0, 1e-45, 16777217]",
    '["a", "a", "b", "a", {x: "a"}, {x: "b"}, {y: "a", x: "b"}]',
    '{x: 1, y: 2, a: {y: 3, x: 4, "x y": 5}}',
    '{"\\u00e9": 1, "a\\u0000b": "c\\u0000d", "_": 2, A1: 3, "1a": 4, "a-b": 5, "": 6}',
    '"' + "a very long string " * 20 + '"',
    "[" + ", ".join(str(i * 37) for i in range(300)) + "]",
    "{" + ", ".join(f"k{i}: {i}" for i in range(300)) + "}",
    '["' + "y" * 255 + '", "' + "z" * 256 + '"]',
    '["' + "w" * 65536 + '", 1, {q: "' + "w" * 65536 + '"}]',
    "[" + ", ".join(f'{{name: "n{i % 7}", v: [{i}, "s{i % 3}"]}}' for i in range(200)) + "]",
    "[" * 63 + "]" * 63,
    "[" * 62 + '"s"' + "]" * 62,
]

# documents flatc rejects (the flexbuffer part is at fault)
BAD_VALUES = ["-foo", "Red", "NaN", "True", "{a: 1, a: 2}", '{"a\\u0000b": 1, "a": 2}',
              "[" * 64 + "]" * 64, "[" * 63 + "1" + "]" * 63, "1.2.3", "0x1.8", "1e", "-_x",
              "-inf5"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, capture_output=True, check=False)


def flatc_batch(exe: str, work: Path, docs: list[str]) -> list[bytes | None]:
    """``flatc -b`` of many documents (None for the ones flatc rejects)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "s.fbs").write_text(SCHEMA)
    names = []
    for i, doc in enumerate(docs):
        (work / f"d{i}.json").write_text(doc, encoding="utf-8")
        names.append(f"d{i}.json")
    if _run([exe, "-b", "-o", "out", "s.fbs", *names], work).returncode == 0:
        return [(work / "out" / f"d{i}.bin").read_bytes() for i in range(len(docs))]
    if len(docs) == 1:
        return [None]
    return [flatc_batch(exe, work / f"one{i}", [d])[0] for i, d in enumerate(docs)]


def flatc_texts(exe: str, work: Path, bins: list[bytes], strict: bool) -> list[str]:
    """``flatc --json [--strict-json] --raw-binary`` of many buffers."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "s.fbs").write_text(SCHEMA)
    names = []
    for i, b in enumerate(bins):
        (work / f"b{i}.bin").write_bytes(b)
        names.append(f"b{i}.bin")
    opts = ["--strict-json"] if strict else []
    proc = _run([exe, "--json", "--raw-binary", *opts, "-o", "txt", "s.fbs", "--", *names],
                work)
    assert proc.returncode == 0, proc.stderr
    return [(work / "txt" / f"b{i}.json").read_text(encoding="utf-8")
            for i in range(len(bins))]


@pytest.fixture(scope="module")
def schema() -> Any:
    return load_schema(SCHEMA, filename="s.fbs")


def _check_docs(flatc: str, work: Path, schema: Any, docs: list[str]) -> int:
    """Bytes and text against flatc; returns how many documents flatc accepted."""
    wants = flatc_batch(flatc, work / "bin", docs)
    good = [(d, w) for d, w in zip(docs, wants, strict=True) if w is not None]
    for doc, want in zip(docs, wants, strict=True):
        if want is None:
            with pytest.raises((EncodeError, DecodeError)):
                schema.from_json(doc)
        else:
            assert schema.from_json(doc) == want, doc[:200]
    for strict in (False, True):
        texts = flatc_texts(flatc, work / f"txt{int(strict)}", [w for _, w in good], strict)
        for (doc, want), text in zip(good, texts, strict=True):
            assert schema.to_json(want, strict=strict) == text, doc[:200]
    for _, want in good:
        schema.verify(want)
    return len(good)


def test_values_match_flatc(flatc: str, tmp_path: Path, schema: Any) -> None:
    docs = ["{f: " + v + "}" for v in VALUES]
    assert _check_docs(flatc, tmp_path, schema, docs) == len(docs)


def test_fields_in_tables_match_flatc(flatc: str, tmp_path: Path, schema: Any) -> None:
    docs = [
        '{ a: 7, f: {x: [1, 2, {y: "s"}], w: 1.5}, inner: {name: "in", data: [true, null, '
        '"s"], n: 3}, list: [{data: 5}, {data: "x", name: "q"}, {}], g: "only", z: 2.5 }',
        '{ g: [1, "a"], f: {a: "a"}, list: [{data: {a: "a", b: [1.5]}}, {data: []}] }',
        "{ f: null, g: 1 }", "{ z: 1.0, f: {}, a: 1 }",
        '{ inner: {data: "\\u00e9"}, f: "x", a: 1, g: "x" }',
    ]
    assert _check_docs(flatc, tmp_path, schema, docs) == len(docs)


def test_bad_values_rejected_like_flatc(flatc: str, tmp_path: Path, schema: Any) -> None:
    docs = ["{f: " + v + "}" for v in BAD_VALUES]
    assert flatc_batch(flatc, tmp_path, docs) == [None] * len(docs)
    for doc in docs:
        with pytest.raises((EncodeError, DecodeError)):
            schema.from_json(doc)


# -- hypothesis: random JSON values ---------------------------------------------------------

_keys = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
                max_size=6)
_scalars = (st.none() | st.booleans()
            | st.integers(min_value=-(2**64), max_value=2**64)
            | st.sampled_from([0, 127, 128, 255, 256, 32767, 65535, 65536, 2**31, 2**32,
                               2**63 - 1, -(2**63)])
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=12) | st.sampled_from(["a", "b", "shared", ""]))
json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_keys, inner, max_size=6),
    max_leaves=40)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(json_values, min_size=1, max_size=25))
def test_random_values_match_flatc(flatc: str, tmp_path_factory: pytest.TempPathFactory,
                                   values: list[Any]) -> None:
    schema = load_schema(SCHEMA, filename="s.fbs")
    work = tmp_path_factory.mktemp("hyp")
    docs = []
    for i, v in enumerate(values):
        other = json.dumps(values[-1 - i], ensure_ascii=i % 2 == 0)
        docs.append(f'{{"f": {json.dumps(v, ensure_ascii=i % 2 == 1)}, "g": {other}}}')
    assert _check_docs(flatc, work, schema, docs) == len(docs)
    for v in values:  # the same values from Python give the same FlexBuffer
        if not _has_big_int(v):
            assert fx.dumps(v) == fx.dumps_json_value(parse_json(
                '{"f": ' + json.dumps(v) + "}")["f"])


def _has_big_int(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return not -(2**63) <= v < 2**63
    if isinstance(v, list):
        return any(_has_big_int(x) for x in v)
    if isinstance(v, dict):
        return any(_has_big_int(x) for x in v.values())
    return False


# -- encode()/decode() with Python values -----------------------------------------------------

PY_VALUES: list[Any] = [
    {"a": [1, 2.5, "x", True, None, {"z": -5}], "b": "é", "": 2**40},
    [b"blob", b"", {"k": b"\x00\xff"}], (1, 2, 3), 2**63, 2**64 - 1, -(2**63),
    "str", 1.5, None, [[], {}], {"x": "\udcff"},
]


def test_encode_python_values_read_by_flatc(flatc: str, tmp_path: Path, schema: Any) -> None:
    bins = [schema.encode({"a": 1, "f": v}) for v in PY_VALUES if v is not None]
    texts = flatc_texts(flatc, tmp_path, bins, True)
    for b, text in zip(bins, texts, strict=True):
        assert schema.to_json(b) == text
        schema.verify(b)
    decoded = [schema.decode(b)["f"] for b in bins]
    expect = [v for v in PY_VALUES if v is not None]
    assert decoded[0] == expect[0]
    assert decoded[2] == [1, 2, 3]
    assert decoded[-1] == {"x": "\udcff"}
    assert schema.encode({"f": None}) == schema.encode({})


def test_decode_view_and_raw_bytes(schema: Any) -> None:
    value = {"k": [1, "two", 3.5, None, True]}
    buf = schema.from_json('{f: {k: [1, "two", 3.5, null, true]}, inner: {data: "s"}}')
    assert schema.decode(buf) == {"f": value, "inner": {"data": "s"}}
    raw = bytes(schema.view(buf).f)
    assert raw == fx.dumps(value) and fx.loads(raw) == value
    # bytes given for the field are the FlexBuffer itself, aligned as flatc aligns it
    assert schema.encode({"f": raw, "inner": {"data": "s"}}) == buf
    assert schema.encode({"f": value, "inner": {"data": "s"}}) == buf


def test_encode_errors(schema: Any) -> None:
    for bad in ({"f": {"a": 1j}}, {"f": [object()]}, {"f": 2**64}, {"f": {1: 2}},
                {"f": {"a\x00b": 1, "a": 2}}, {"f": "\ud800"}):
        with pytest.raises(EncodeError):
            schema.encode(bad)
    deep: Any = []
    for _ in range(70):
        deep = [deep]
    with pytest.raises(EncodeError):
        schema.encode({"f": deep})
    with pytest.raises(EncodeError) as info:
        schema.encode({"inner": {"data": {"x": [1, {"y": 1j}]}}})
    assert info.value.path == '$.inner.data["x"][1]["y"]'


# -- the C++ verifier ---------------------------------------------------------------------------


def _mutants(bufs: list[bytes], count: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(count):
        b = bytearray(bufs[i % len(bufs)])
        for _ in range(rng.choice([1, 1, 2, 3])):
            j = rng.randrange(len(b))
            b[j] = rng.choice([0, 1, 2, 3, 4, 8, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        out.append(bytes(b))
    return out


def test_verifier_matches_cpp(schema: Any) -> None:
    oracle = cpp_oracle.oracle(SCHEMA, "T")
    docs = ["{f: " + v + "}" for v in VALUES[:45]] + [
        '{f: {a: [1, {b: "x"}], c: 0.1}, g: ["x", "y", "x"], inner: {data: {q: [1, 2]}}}']
    bufs = [schema.from_json(d) for d in docs]
    # hand-made buffers: typed and fixed vectors, blobs, indirect scalars (official builder)
    from flatbuffers import flexbuffers as official

    b = official.Builder()
    with b.Map():
        b.Key("t")
        b.TypedVectorFromElements([1, 2, 3])
        b.Key("f")
        b.FixedTypedVectorFromElements([1.5, 2.5, 3.5])
        b.Key("b")
        b.Blob(b"\x01\x02\xff")
        b.Key("i")
        b.IndirectFloat(2.5)
        b.Key("k")
        b.TypedVectorFromElements(["a", "b"], element_type=official.Type.STRING)
    made = bytes(b.Finish())
    bufs.append(schema.encode({"f": made}))
    rng = random.Random(1234)
    cases = bufs + _mutants(bufs, 4000, rng)
    verdicts = oracle.run(cases)
    mismatches = []
    for case, (cpp_ok, _) in zip(cases, verdicts, strict=True):
        try:
            schema.verify(case)
            ours = True
        except DecodeError:
            ours = False
        if ours != cpp_ok:
            mismatches.append(case)
    assert not mismatches, mismatches[0].hex()
    assert sum(ok for ok, _ in verdicts) > len(bufs)


def test_verifier_flexbuffer_errors(schema: Any) -> None:
    buf = bytearray(schema.from_json('{a: 1, f: {x: [1, "s"]}}'))
    raw = bytes(schema.view(bytes(buf)).f)
    start = bytes(buf).index(raw)
    buf[start + len(raw) - 1] = 3  # root width 3
    with pytest.raises(DecodeError) as info:
        schema.verify(bytes(buf))
    assert info.value.path == "$.f" and info.value.offset == start + len(raw) - 1


# -- the official Python runtime ------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_official_runtime_reads_dumps(value: Any) -> None:
    from flatbuffers import flexbuffers as official

    if _has_big_int(value) and not (isinstance(value, int) and 0 <= value < 2**64):
        return
    data = fx.dumps(value)
    fx.verify(data)
    assert _same(fx.loads(data), value)
    if not _non_ascii_key(value):  # the official reader decodes keys as ASCII
        assert _same(official.Loads(data), value)


def _non_ascii_key(v: Any) -> bool:
    if isinstance(v, list):
        return any(_non_ascii_key(x) for x in v)
    if isinstance(v, dict):
        return any(not k.isascii() or _non_ascii_key(x) for k, x in v.items())
    return False


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_loads_reads_official_builder(value: Any) -> None:
    from flatbuffers import flexbuffers as official

    if _has_big_int(value):
        return
    try:
        data = bytes(official.Dumps(value))
    except (ValueError, RuntimeError, TypeError, OverflowError):  # its own limits and bugs
        return
    fx.verify(data)
    assert _same(fx.loads(data), official.Loads(data))


def test_loads_typed_fixed_indirect(flatc: str, tmp_path: Path, schema: Any) -> None:
    from flatbuffers import flexbuffers as official

    b = official.Builder()
    with b.Vector():
        b.TypedVectorFromElements([1, -2, 3])
        b.TypedVectorFromElements([1.5, 2.5], element_type=official.Type.FLOAT)
        b.FixedTypedVectorFromElements([1, 2, 3], element_type=official.Type.UINT)
        b.IndirectInt(-300)
        b.IndirectUInt(70000)
        b.IndirectFloat(0.25)
        b.Blob(b"\x00\xe9")
        b.TypedVectorFromElements([True, False])
    data = bytes(b.Finish())
    fx.verify(data)
    assert fx.loads(data) == [[1, -2, 3], [1.5, 2.5], [1, 2, 3], -300, 70000, 0.25, b"\x00\xe9",
                              [True, False]]
    assert fx.to_json(data) == ('[ [ 1, -2, 3 ], [ 1.5, 2.5 ], [ 1, 2, 3 ], -300, 70000, '
                                '0.25, "\\u0000\\xE9", [ true, false ] ]')
    # flatc prints such buffers (which its JSON parser never writes) the same way
    m = official.Builder()
    with m.Map():
        m.Key("keys")
        m.TypedVectorFromElements(["a", "b-c"], element_type=official.Type.KEY)
        m.Key("key")
        m.Key("k v")
        m.Key("fixed")
        m.FixedTypedVectorFromElements([1.5, -2.0, 0.1], element_type=official.Type.FLOAT)
        m.Key("blob")
        m.Blob(b"\x7f\xc3\xa9\xff\"")
    extra = bytes(m.Finish())
    bins = [schema.encode({"f": data, "g": extra}), schema.encode({"f": extra})]
    for strict in (False, True):
        texts = flatc_texts(flatc, tmp_path / str(strict), bins, strict)
        assert [schema.to_json(b, strict=strict) for b in bins] == texts


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# -- hostile input ----------------------------------------------------------------------------


def _only_decode_errors(data: bytes) -> None:
    for fn in (fx.loads, fx.to_json, fx.verify):
        try:
            fn(data)
        except DecodeError as exc:
            assert exc.offset is not None and exc.path.startswith("$")


def _samples() -> list[bytes]:
    values: list[Any] = [
        {"a": [1, 2.5, "x", True, None, {"z": -5}], "b": "é" * 20, "": 2**40},
        [list(range(300)), {f"k{i}": i for i in range(40)}, b"blob" * 70],
        "s" * 300, [[[["deep"]]]], {"x": {"y": {"z": [1.5, 0.1]}}},
    ]
    return [fx.dumps(v) for v in values]


def test_hostile_truncations_and_mutations() -> None:
    rng = random.Random(99)
    for data in _samples():
        for n in range(len(data)):
            _only_decode_errors(data[:n])
            _only_decode_errors(data[n:])
        for _ in range(600):
            b = bytearray(data)
            for _ in range(rng.choice([1, 2, 4])):
                b[rng.randrange(len(b))] = rng.randrange(256)
            _only_decode_errors(bytes(b))


def test_hostile_random_bytes() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.choice([3, 4, 5, 8, 16, 40, 200])
        _only_decode_errors(bytes(rng.randrange(256) for _ in range(n)))


def test_hostile_huge_lengths_do_not_allocate() -> None:
    # a string, a vector and a map whose size fields claim 2^64 - 1 / 2^32 elements
    cases = [
        b"\xff" * 8 + b"abc\x00" + struct.pack("<Q", 12) + bytes([(5 << 2) | 3, 8]),
        struct.pack("<Q", 2**32) + struct.pack("<Q", 8) + bytes([(10 << 2) | 3, 8]),
        struct.pack("<I", 2**31) + struct.pack("<I", 4) + bytes([(11 << 2) | 2, 4]),
        struct.pack("<Q", 2**62) + struct.pack("<Q", 8) + bytes([(25 << 2) | 3, 8]),
    ]
    tracemalloc.start()
    try:
        for data in cases:
            for fn in (fx.loads, fx.to_json, fx.verify):
                with pytest.raises(DecodeError):
                    fn(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_hostile_shared_vectors_bounded() -> None:
    # a vector of 2 references to the same vector, 60 levels deep: 2^60 elements if expanded
    buf = bytearray([1, 0, 4])  # [0]: size 1, element 0 (int), type INT w8
    inner = 1  # position of the innermost vector's data
    for _ in range(60):
        # align nothing (width 1): size, two offsets back to `inner`, two type bytes
        buf.append(2)
        here = len(buf)
        buf += bytes([here - inner, here + 1 - inner, (10 << 2), (10 << 2)])
        inner = here
    root = len(buf)
    buf += bytes([root - inner, (10 << 2), 1])
    data = bytes(buf)
    with pytest.raises(DecodeError):
        fx.loads(data)
    with pytest.raises(DecodeError):
        fx.to_json(data)
    with pytest.raises(DecodeError):  # C++: more vectors visited than bytes in the buffer
        fx.verify(data)


def test_loads_depth_limit() -> None:
    value: Any = 1
    for _ in range(fx.MAX_JSON_DEPTH - 1):
        value = [value]
    assert fx.loads(fx.dumps(value)) == value
    fx.verify(fx.dumps(value))
    with pytest.raises(EncodeError):
        fx.dumps([value])
