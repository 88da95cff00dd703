"""The CLI's JSON text: compact, or pretty with short containers on one line, linear in size."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gameserde._jsonio import JSON_DEPTH_LIMIT, dumps, loads
from gameserde.errors import DecodeError, EncodeError


def test_pretty_keeps_what_fits_on_one_line() -> None:
    doc = {"pos": {"$Vector3": [12.5, 0.0, -3.25]}, "tags": ["a", "b"], "empty": [], "none": {},
           "long": list(range(40)), "nested": [{"k": "v" * 90}]}
    text = dumps(doc, pretty=True).decode()
    assert text == """{
  "pos": {"$Vector3": [12.5, 0.0, -3.25]},
  "tags": ["a", "b"],
  "empty": [],
  "none": {},
  "long": [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
    23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39
  ],
  "nested": [
    {
      "k": "%s"
    }
  ]
}
""" % ("v" * 90)
    assert json.loads(text) == doc
    assert dumps(doc, pretty=False) == json.dumps(doc, separators=(",", ":")).encode() + b"\n"


@pytest.mark.parametrize("pretty", [False, True])
def test_surrogates_and_unicode(pretty: bool) -> None:
    assert dumps(["é"], pretty=pretty).decode().strip() == '["é"]'
    assert dumps(["\ud800"], pretty=pretty).decode().strip() == '["\\ud800"]'


def test_pretty_output_is_linear_in_depth() -> None:
    doc: Any = []
    for _ in range(5000):
        doc = [doc, "x"]
    text = dumps(doc, pretty=True)
    assert len(text) < 5000 * 250  # indentation stops growing past 32 levels
    assert loads(text) is not None


def test_limits() -> None:
    doc: Any = []
    for _ in range(2 * JSON_DEPTH_LIMIT):
        doc = [doc]
    for pretty in (False, True):
        with pytest.raises(EncodeError, match="deeper than"):
            dumps(doc, pretty=pretty)
    with pytest.raises(DecodeError, match="line 1, column 2"):
        loads("[")
    assert loads('{"a": 1}') == loads(b'{"a": 1}') == {"a": 1}


@pytest.mark.parametrize("text,offset", [("1" * 5000, 0), ('{"gold": -' + "7" * 4400 + "}", 9)])
def test_a_huge_integer_is_named_without_python_internals(text: str, offset: int) -> None:
    with pytest.raises(DecodeError) as e:
        loads(text, format="zeze")
    assert e.value.offset == offset
    message = str(e.value)
    assert message.startswith(f"zeze encode error at byte {offset} ")
    assert "digits, longer than any format here holds" in message
    assert "sys." not in message and "7777" not in message and "1111" not in message
