"""Finite numbers too large for their type are refused, in JSON and XML, at every float32
leaf (``float`` and the components of every leaf struct of floats) and double leaf; the
largest finite values, the spelled infinities and NaN still read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gameserde._float32 import float32_from_bits
from gameserde.errors import DecodeError
from gameserde.kingsisle import from_json, from_jsonable, from_xml, to_json, to_xml
from tests.kingsisle.test_json import sample
from tests.kingsisle.valuegen import SCHEMA

FLT_MAX = float32_from_bits(0x7F7FFFFF)
DBL_MAX = 1.7976931348623157e308

# (JSON path, the way to the number in the JSON document; in the XML text: its element, the
# index of the number in it, the path of the element)
Leaf = tuple[str, tuple[Any, ...], str, int, str]
FLOAT32_LEAVES: list[Leaf] = [
    ("$.m_float", ("m_float",), "m_float", 0, "$.m_float"),
    ("$.m_pos.y", ("m_pos", "y"), "m_pos", 1, "$.m_pos"),
    ("$.m_rot.w", ("m_rot", "w"), "m_rot", 0, "$.m_rot"),
    ("$.m_euler.roll", ("m_euler", "roll"), "m_euler", 2, "$.m_euler"),
    ("$.m_matrix.j[1]", ("m_matrix", "j", 1), "m_matrix", 4, "$.m_matrix"),
    ("$.m_fpoint.x", ("m_fpoint", "x"), "m_fpoint", 0, "$.m_fpoint"),
    ("$.m_frect.bottom", ("m_frect", "bottom"), "m_frect", 3, "$.m_frect"),
    ("$.m_path[0].z", ("m_path", 0, "z"), "m_path", 2, "$.m_path[0]"),
]
DOUBLE_LEAF: Leaf = ("$.m_double", ("m_double",), "m_double", 0, "$.m_double")


def document() -> Any:
    obj = sample()
    obj["m_path"] = [{"x": 1.0, "y": 2.0, "z": 3.0}]
    return json.loads(to_json(obj, schema=SCHEMA))


def put(doc: Any, where: tuple[Any, ...], value: Any) -> None:
    for step in where[:-1]:
        doc = doc[step]
    doc[where[-1]] = value


def json_with(where: tuple[Any, ...], number: str) -> str:
    """The document's JSON with ``number`` as it is written at ``where``."""
    doc = document()
    put(doc, where, "@@")
    return json.dumps(doc).replace('"@@"', number)


def xml_with(element: str, index: int, number: str) -> str:
    """The document's XML with ``number`` as the ``index``-th number of ``element``."""
    text = to_xml(from_json(json.dumps(document()), SCHEMA), SCHEMA)
    start = text.index(f"<{element}")
    start = text.index(">", start) + 1
    end = text.index("<", start)
    words = text[start:end].split()
    words[index] = number
    return text[:start] + " ".join(words) + text[end:]


@pytest.mark.parametrize(("path", "where", "element", "index", "xml_path"), FLOAT32_LEAVES)
@pytest.mark.parametrize("number", ["1e39", "3.4028236e38", "-1e39", "1e400", "-1e400",
                                    "340282366920938463463374607431768211456"])
def test_a_finite_number_too_large_for_a_float32_is_refused(
        path: str, where: tuple[Any, ...], element: str, index: int, xml_path: str,
        number: str) -> None:
    with pytest.raises(DecodeError) as e:
        from_json(json_with(where, number), SCHEMA)
    assert e.value.path == path and "too large for a float" in e.value.message
    with pytest.raises(DecodeError) as e:
        from_xml(xml_with(element, index, number), SCHEMA)
    assert e.value.path == xml_path and "too large for a float" in e.value.message


@pytest.mark.parametrize(("path", "where", "element", "index", "xml_path"), FLOAT32_LEAVES)
def test_the_largest_float32_and_the_infinities_still_read(
        path: str, where: tuple[Any, ...], element: str, index: int, xml_path: str) -> None:
    for number, value in (("3.4028235e38", FLT_MAX), ("3.40282356e38", FLT_MAX),
                          ("-3.4028235e38", -FLT_MAX)):
        doc = from_json(json_with(where, number), SCHEMA)
        assert to_json(doc, schema=SCHEMA) == to_json(from_xml(
            xml_with(element, index, number), SCHEMA), schema=SCHEMA)
        got: Any = doc
        for step in where:
            got = got[step]
        assert got == value, (path, number)
    for spelled_json, spelled_xml in (('"Infinity"', "inf"), ('"-Infinity"', "-inf"),
                                      ('"NaN"', "nan")):
        from_json(json_with(where, spelled_json), SCHEMA)
        from_xml(xml_with(element, index, spelled_xml), SCHEMA)


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" + "0" * 400, "Infinity", "NaN"])
def test_a_number_too_large_for_a_double_is_refused(number: str) -> None:
    """Python's JSON reader makes 1e400 infinite, as it reads the bare Infinity and NaN that
    JSON lacks: none of them is a double; spelled ones are strings."""
    path, where, element, index, _ = DOUBLE_LEAF
    with pytest.raises(DecodeError) as e:
        from_json(json_with(where, number), SCHEMA)
    assert e.value.path == path and "too large for a double" in e.value.message
    if number[-1].isdigit():
        with pytest.raises(DecodeError) as e:
            from_xml(xml_with(element, index, number), SCHEMA)
        assert e.value.path == path and "too large for a double" in e.value.message


def test_the_largest_double_and_float32_sized_numbers_read_as_doubles() -> None:
    _, where, element, index, _ = DOUBLE_LEAF
    for number, value in (("1.7976931348623157e308", DBL_MAX), ("1e39", 1e39)):
        assert from_json(json_with(where, number), SCHEMA)["m_double"] == value
        assert from_xml(xml_with(element, index, number), SCHEMA)["m_double"] == value


def test_from_jsonable_refuses_python_infinities_as_numbers() -> None:
    doc = document()
    for value in (float("inf"), -float("inf"), float("nan")):
        doc["m_float"] = value
        with pytest.raises(DecodeError, match="too large for a float"):
            from_jsonable(doc, SCHEMA)
