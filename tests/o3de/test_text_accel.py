"""The C twin of the JSON text layer gives exactly what the pure-Python reference gives: the
same values (int or double, float bits, JsonObject pairs), the same text, the same errors
(message and offset; it gives up and lets the reference decide whenever it meets anything
but the common case), on generated documents, texts and number tokens, on every truncation
and many mutations of sample texts, and on values the writer refuses."""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de import _accel
from gameserde.o3de.text import MAX_DEPTH, JsonObject, parse, parse_root, write
from gameserde.o3de.values import JsonPairs
from tests.fuzz.harness import agreeing
from tests.o3de.strategies import ANY_DOUBLE, bits, documents


def test_built() -> None:
    """The extension is built and on wherever the suite runs (the test command installs
    with a compiler), so the comparisons below compare two paths."""
    assert _accel.speedups is not None and _accel.ENABLED
    assert _accel.speedups.MAX_DEPTH == MAX_DEPTH


@contextmanager
def c_twin(enabled: bool) -> Iterator[None]:
    saved = _accel.ENABLED
    _accel.ENABLED = enabled
    try:
        yield
    finally:
        _accel.ENABLED = saved


def shape(v: Any) -> Any:
    """``v`` with every kind explicit: int or float (bits), dict or JsonObject (pairs)."""
    if isinstance(v, JsonObject):
        return ("JsonObject", [(k, shape(x)) for k, x in v.pairs])
    if isinstance(v, dict):
        return ("dict", [(k, shape(x)) for k, x in v.items()])
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, float):
        return ("float", bits(v))
    return (type(v).__name__, v)


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        result = fn()
    except (DecodeError, EncodeError) as e:
        return ("error", type(e).__name__, str(e), getattr(e, "offset", None))
    return ("ok", result if isinstance(result, str) else shape(result))


def same(fn: Callable[[], Any]) -> Any:
    """``fn``'s outcome, which must be the same with the C twin and without."""
    return agreeing(fn, outcome)


def same_parse(text: str | bytes, trailing_commas: bool = False, serves: bool = False,
               settings: bool = False) -> Any:
    """``parse``'s outcome with the twin and without (``settings``: with the settings
    registry's options, and the offset of the ignored text too); with ``serves``, a text the
    reference reads must be one the twin reads too."""
    options = {"trailing_commas": trailing_commas}
    if settings:
        options.update(stop_when_done=True, skip_bom=False)
        result = same(lambda: parse_root(text, **options))
    else:
        result = same(lambda: parse(text, **options))
    if serves and result[0] == "ok":
        assert twin_parse(text, trailing_commas, settings) is not _accel.UNSERVED
    return result


def twin_parse(text: str | bytes, trailing_commas: bool = False, settings: bool = False) -> Any:
    """The twin's ``(value, ignored)``, or UNSERVED."""
    return _accel.parse(text, trailing_commas, settings, not settings, JsonObject)


def served(text: str | bytes, trailing_commas: bool = False) -> Any:
    """The twin's own value for a text it must read (and the reference's value)."""
    served = twin_parse(text, trailing_commas)
    assert served is not _accel.UNSERVED
    with c_twin(False):
        assert shape(served[0]) == shape(parse(text, trailing_commas=trailing_commas))
    return served[0]


@given(documents(ANY_DOUBLE))
def test_documents(document: Any) -> None:
    text = _accel.write(document, JsonObject)
    assert text is not None
    with c_twin(False):
        assert write(document) == text
    served(text)
    served(text.encode())
    commented = text.replace("\n]", ",\n]").replace("\n}", ",\n}").replace("\n", "\n// c\n")
    served(commented, trailing_commas=True)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text()
                    | st.binary(max_size=2),
                    lambda c: st.lists(c, max_size=3) | st.tuples(c)
                    | st.dictionaries(st.text(max_size=2) | st.integers(0, 2), c, max_size=3),
                    max_leaves=12))
def test_any_value_writes_the_same(value: Any) -> None:
    same(lambda: write(value))


TOKEN_PARTS = st.tuples(
    st.sampled_from(["", "-"]),
    st.one_of(st.sampled_from(["0", "9007199254740991", "9007199254740992", "9007199254740993",
                               "9223372036854775807", "9223372036854775808",
                               "9223372036854775809", "18446744073709551615",
                               "18446744073709551616", "99999999999999999999",
                               "179769313486231570" + "0" * 290]),
              st.from_regex(r"[1-9][0-9]{0,24}", fullmatch=True)),
    st.one_of(st.none(), st.from_regex(r"[0-9]{1,30}", fullmatch=True),
              st.from_regex(r"0{1,330}[1-9][0-9]{0,20}", fullmatch=True)),
    st.one_of(st.none(), st.tuples(st.sampled_from(["e", "E"]), st.sampled_from(["", "+", "-"]),
                                   st.from_regex(r"0{0,3}[0-9]{1,3}", fullmatch=True)),
              st.sampled_from([("e", "-", "2147483648"), ("e", "", "00000000309"),
                               ("e", "-", "330"), ("E", "+", "308"), ("e", "", "99999999999")])))


@settings(max_examples=1000)
@given(TOKEN_PARTS)
def test_number_tokens(parts: Any) -> None:
    sign, whole, frac, exp = parts
    token = sign + whole + ("." + frac if frac is not None else "") + ("".join(exp) if exp else "")
    same_parse(token, serves=True)
    same_parse(f'[{token}, "x"]'.encode(), serves=True)


@pytest.mark.parametrize("token", [
    "0.1", "-0.0", "-0", "0.30000000000000004", "1.7976931348623157e308", "1.8e308",
    "2.2250738585072014e-308", "2.225073858507201e-308", "4.9406564584124654e-324",
    "5e-324", "1e-400", "123456789012345678901234567890", "1e21", "1.5e-7", "0.000001",
    "1.00000000000000011102230246251565404236316680908203125", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "0." + "0" * 400 + "1", "1" * 400, "1" * 400 + ".5", "1e" + "0" * 100 + "5",
    "123.456e-" + "9" * 50, "0e99999999999", "1E+308", "1e309", "100e306",
])
def test_number_edges(token: str) -> None:
    same_parse(token, serves=True)


@settings(max_examples=300)
@given(ANY_DOUBLE)
def test_doubles_write_the_same(x: float) -> None:
    text = _accel.write(x, JsonObject)
    assert text is not None
    with c_twin(False):
        assert write(x) == text
    same_parse(text)


@pytest.mark.parametrize("x", [
    5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
    2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, 2.0 ** 64, 1e21, 1e22, 1e-7, 1e-6, 0.1, -0.0, 0.0,
    123456789012.5, 1 / 3, -2.5e-300, 9007199254740991.0, 4503599627370496.5])
def test_double_edges(x: float) -> None:
    assert same(lambda: write(x))[0] == "ok"


STRING_PARTS = st.lists(st.sampled_from([
    "a", "é", "\U0001f600", " ", "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\u0041", "\\u00e9",
    "\\u001f", "\\ud83d", "\\ude00", "\\uD83D\\uDE00", "\\uDBFF", "\\uzzzz", "\\x", "\\",
    "\t", "\x01", "\x7f", "//", "/*", "\\u0000"]), max_size=6).map("".join)


@settings(max_examples=500)
@given(STRING_PARTS, st.booleans())
def test_string_tokens(body: str, as_bytes: bool) -> None:
    text = f'{{"{body}": ["{body}"]}}'
    same_parse(text.encode("utf-8", "surrogatepass") if as_bytes else text, serves=True)


@given(st.text(max_size=8))
def test_strings_write_the_same(s: str) -> None:
    same(lambda: write({s: [s]}))


SAMPLES = [
    '\ufeff// a prefab\n{\n    "Name": "Level \\u00e9\\uD83D\\uDE00",\n    /* block */ "N": '
    '[1, -2, 3.5, 1e3, 12345678901234567890, -0.0, null, true, false],\n    "a": {"b": {}, '
    '"c": []},\n    "a": "dup",\n    "é": "\\"\\\\\\/\\b\\f\\n\\r\\t"\n}\n',
    '[{"x": 1, "y": 2, "x": [3, {"z": 4, "z": 5}]}, 0.30000000000000004, 1.0000000149011612]',
    '{"t": [1, 2, ], "u": {"v": 1, }, } // trailing',
]


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_truncation(sample: str) -> None:
    data = sample.encode()
    for n in range(len(data) + 1):
        for trailing in (False, True):
            same_parse(data[:n], trailing)
        same_parse(data[:n], True, settings=True)
    for n in range(len(sample) + 1):
        same_parse(sample[:n])


@pytest.mark.parametrize("sample", SAMPLES)
def test_mutations(sample: str) -> None:
    rng = random.Random(sample)
    data = sample.encode()
    alphabet = b'{}[]:,"\\/*-+.0123456789eEnulltruefalse \n\x00\xff\xc3\xa9\xed\xa0\x80'
    for _ in range(1500):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(mutated) + 1)
            kind = rng.randrange(3)
            if kind == 0 and at < len(mutated):
                del mutated[at]
            elif kind == 1 and at < len(mutated):
                mutated[at] = rng.choice(alphabet)
            else:
                mutated.insert(at, rng.choice(alphabet))
        same_parse(bytes(mutated), rng.random() < 0.5, settings=rng.random() < 0.3)
        text = bytes(mutated).decode("utf-8", "replace")
        same_parse(text)


def test_duplicates_keep_pairs() -> None:
    value = served('{"a": 1, "b": 1, "a": 1, "c": {"d": null, "d": true}}')
    assert isinstance(value, JsonObject) and value.pairs[2] == ("a", 1)
    assert isinstance(value["c"], JsonObject) and value["c"]["d"] is None


def test_depth() -> None:
    served("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "{\"a\":" * 100_000, "[" * 10 ** 6):
        assert twin_parse(text) is _accel.UNSERVED
        same_parse(text)


def test_gives_up_on_the_unusual() -> None:
    """Texts the reference reads that the twin leaves to it, and bytes that are not UTF-8,
    which it reads."""
    assert twin_parse(b"[,]", True) is _accel.UNSERVED
    same_parse(b"[,]", True)
    for text in ("1\x00\xff", "// \xc3\xa9\n1", '["\xff\xc3"]', '{"\xed\xa0\x80": 1}'):
        raw = text.encode("latin-1")
        same_parse(raw, True, serves=True)
        same_parse(raw, True, serves=True, settings=True)
    assert same_parse("1\x00\xff")[0] == "ok"
    assert same_parse(bytearray(b"[1]"))[0] == "ok"


class Color(enum.IntEnum):
    RED = 1


class Half(float):
    pass


class Name(str):
    pass


class Items(list[Any]):
    pass


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value, {"k": 1}]
    return value


cyclic: list[Any] = []
cyclic.append(cyclic)


@pytest.mark.parametrize("value", [
    Color.RED, Half(0.5), Name("x"), Items([1]), (1, (2,)), JsonPairs([("a", 1), ("a", 2)]),
    JsonObject([("a", 1), ("a", [])]), JsonObject(), {"a": math.nan}, [math.inf], 1 << 64,
    (1 << 64) - 1, -(1 << 63), -(1 << 63) - 1, {1: 2}, {"a": b"x"}, "\ud800", ["\udfff"],
    {"\ud800": 1}, nested(MAX_DEPTH - 1), nested(MAX_DEPTH), cyclic, {"a": {Name("n"): 1}},
    "\\u001f\u001f\\\u001f", object(),
])
def test_write_unusual(value: Any) -> None:
    same(lambda: write(value))


def test_escapes_upper_case_only_in_escapes() -> None:
    """A literal backslash before ``u001f`` stays as it is (only json's own \\u00XX escapes
    are made upper case)."""
    for enabled in (True, False):
        with c_twin(enabled):
            assert write("\\u001f\x1f") == '"\\\\u001f\\u001F"'
            assert parse(write("\\u001f")) == "\\u001f"
