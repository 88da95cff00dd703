"""The JSON text layer: rapidjson's reader (kParseCommentsFlag) and PrettyWriter."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde import o3de
from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de._numbers import _grisu2, _prettify, double_text
from gameserde.o3de.text import MAX_DEPTH, JsonObject, parse, write
from tests.o3de.strategies import ANY_DOUBLE, EXACT, FLOAT32, bits, documents


def typed(value: Any) -> Any:
    """A value with its JSON kinds spelled out (``1`` and ``1.0`` differ, pairs kept)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return (type(value).__name__, bits(value) if isinstance(value, float) else value)
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, dict):
        return ("object", [(k, typed(v)) for k, v in o3de.members(value)])
    return value


@given(documents())
def test_write_then_parse_is_unchanged(document: Any) -> None:
    assert typed(parse(write(document))) == typed(document)


@given(documents())
def test_parse_then_write_gives_the_same_text(document: Any) -> None:
    text = write(document)
    assert write(parse(text)) == text
    assert write(parse(text.encode("utf-8"))) == text


@given(ANY_DOUBLE | FLOAT32)
def test_written_doubles_round_trip_when_correctly_rounded(x: float) -> None:
    """Grisu2's digits always name the double; rapidjson's own reader (not correctly
    rounded) comes back within two units in the last place."""
    text = double_text(x)
    assert float(text) == x
    again = parse(text)
    assert isinstance(again, float)
    assert abs(bits(abs(again)) - bits(abs(x))) <= 2 and math.copysign(1, again) == \
        math.copysign(1, x)


@given(EXACT)
def test_short_doubles_read_back_exactly(x: float) -> None:
    """Grisu2's digits name the double under correct rounding; rapidjson's own reading is
    sure to get it back when they are at most 15 (Grisu2 may print 17 for a short value)."""
    text = double_text(x)
    assert float(text) == x
    if len(text.lstrip("-").split("e")[0].replace(".", "").strip("0")) <= 15:
        assert bits(parse(text)) == bits(x)


def test_seventeen_digits_of_a_short_double() -> None:
    assert double_text(1.563e-08) == "1.5630000000000002e-8"  # not the shortest digits
    assert parse("1.5630000000000002e-8") == 1.563e-08


@given(st.integers(-(1 << 53) + 1, (1 << 53) - 1).filter(bool))
def test_integral_doubles_take_grisu_digits(n: int) -> None:
    digits, k = _grisu2(float(abs(n)))
    assert double_text(float(n)) == ("-" if n < 0 else "") + _prettify(digits, k)


@pytest.mark.parametrize(("text", "expected"), [
    ("1", 1), ("-0", 0), ("1.0", 1.0), ("1e2", 100.0), ("1E2", 100.0), ("-0.0", -0.0),
    ("18446744073709551615", (1 << 64) - 1), ("-9223372036854775808", -(1 << 63)),
    ("18446744073709551616", 1.8446744073709552e19),
    ("-9223372036854775809", -9.223372036854776e18), ("1" + "0" * 300, 1.0000000000000002e300),
    ("0." + "0" * 100_000 + "1", 0.0), ("1e-400", 0.0),
    ("0.1", 0.1), ("2.5e-3", 0.0025),
])
def test_numbers(text: str, expected: Any) -> None:
    got = parse(text)
    assert type(got) is type(expected) and (got == expected or bits(got) == bits(expected))


def test_rapidjson_normal_precision_is_not_correctly_rounded() -> None:
    """Past 2^53 the 17th digit goes through double arithmetic, as in rapidjson 1.1 (checked
    against Debian's rapidjson-dev): the float32 value 92.28478240966797 reads back as the
    next double down."""
    assert parse("92.28478240966797") == 92.28478240966795 != 92.28478240966797
    assert write(parse("92.28478240966797")) == "92.28478240966795"


@pytest.mark.parametrize(("value", "text"), [
    (-10.387897491455078, "-10.387897491455078"),  # rapidjson 1.1.0: ...079
    (0.20000000298023224, "0.20000000298023224"),  # rapidjson 1.1.0: ...225
    (145.06878662109375, "145.06878662109375"),
    (3.4028234663852886e38, "3.4028234663852886e38"),  # rapidjson 1.1.0: ...887e38
])
def test_last_digit_rounded_as_the_engine_writes_it(value: float, text: str) -> None:
    """The engine's rapidjson still rounds a last digit 9 to 19 places into the fraction to
    the closer candidate (rapidjson 1.1.0 leaves it): 6,111 of the 6,158 doubles in o3de's
    own .prefab and .material files (e.g. ``-10.387897491455078`` in
    AutomatedTesting/Assets/Prefabs) are written this way, 716 of them unlike 1.1.0."""
    assert write(value) == text


@pytest.mark.parametrize("text", [
    "NaN", "-Infinity", "[Infinity]", "1e309", "1" * 400, "[1,]", "{\"a\":1,}", "01", "1.",
    "1e", "-", "[", "{\"a\" 1}", "\"\\ud800\"", "\"\\udc00x\"", "\"a\nb\"", "", "  \n",
    "[1] 2", "/* open", "/ 1", "'a'", "\"\\x\"",
])
def test_refused(text: str) -> None:
    with pytest.raises(DecodeError) as info:
        parse(text)
    assert "line" in str(info.value) and info.value.offset is not None


def test_errors_name_line_column_and_byte_offset() -> None:
    with pytest.raises(DecodeError) as info:
        parse("{\n  \"é\": [1,\n  2 x]}".encode())
    assert "line 3, column 5" in str(info.value)
    assert info.value.offset == len("{\n  \"é\": [1,\n  2 ".encode())


def test_bytes_that_are_not_utf8_are_kept() -> None:
    """rapidjson without kParseValidateEncodingFlag copies them into the string."""
    value = parse(b'["ok", "\xff"]')
    assert value == ["ok", "\udcff"]
    assert write(value).encode("utf-8", "surrogateescape") == b'[\n    "ok",\n    "\xff"\n]'


def test_comments_bom_and_nul() -> None:
    text = "\ufeff// head\n{\"a\": /* x */ \"b//c\", \"n\": [1, /**/ 2]}\x00 ignored"
    assert parse(text) == {"a": "b//c", "n": [1, 2]}
    assert parse("[1, 2,]", trailing_commas=True) == [1, 2]
    assert parse("{\"a\": [1,], /* c */ }", trailing_commas=True) == {"a": [1]}


def test_duplicate_names() -> None:
    value = parse('{"a": 1, "b": 2, "a": 3}')
    assert isinstance(value, JsonObject)
    assert value["a"] == 1 and value.pairs == [("a", 1), ("b", 2), ("a", 3)]
    assert list(o3de.members(value)) == value.pairs
    assert write(value) == '{\n    "a": 1,\n    "b": 2,\n    "a": 3\n}'
    plain = {"a": 1, "b": 2}
    assert value != plain and plain != value
    assert value == JsonObject([("a", 1), ("b", 2), ("a", 3)])
    assert JsonObject([("a", 1)]) == {"a": 1}


def test_depth_cap() -> None:
    parse("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(DecodeError) as info:
        parse("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert info.value.offset == MAX_DEPTH
    with pytest.raises(EncodeError):
        value: list[Any] = []
        for _ in range(MAX_DEPTH + 1):
            value = [value]
        write(value)


def test_writer_layout() -> None:
    assert write({"a": [], "b": {}, "c": [1, {"d": None}], "e": "\u001f\"\\/é"}) == (
        '{\n    "a": [],\n    "b": {},\n    "c": [\n        1,\n        {\n'
        '            "d": null\n        }\n    ],\n    "e": "\\u001F\\"\\\\/é"\n}')
    assert write(1e21) == "1e21" and write(123456789012.5) == "123456789012.5"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1 << 64, -(1 << 63) - 1,
                                 {1: 2}, {"a": {1, 2}}, "\ud800", b"x"])
def test_write_refuses(bad: Any) -> None:
    with pytest.raises(EncodeError):
        write(bad)


def test_bytes_like_input_and_other_types() -> None:
    text = b'{"a": [1, 2.5]}'
    assert parse(bytearray(text)) == parse(memoryview(text)) == parse(text) == {"a": [1, 2.5]}
    with pytest.raises(DecodeError):
        parse(memoryview(b'{"a": '))
    with pytest.raises(TypeError, match="str or bytes"):
        parse(12)  # type: ignore[arg-type]
