"""Zeze JSON: every bean of the Java vectors survives bytes -> value -> JSON -> value -> bytes,
and JSON that does not fit the schema is refused with its path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gameserde import zeze
from gameserde.errors import EncodeError
from gameserde.zeze.jsonview import from_json, to_json

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
DATA = json.loads(VECTORS.read_text(encoding="utf-8"))
SCHEMA = zeze.load_schema(DATA["meta"]["schema_xml"])
CASES = [(c["bean"], c["hex"]) for c in DATA["beans"]] + [
    (c["bean"], c["hex"]) for c in DATA["decode"] if "reencode" in c]


@pytest.mark.parametrize(("bean", "hexdata"), CASES)
@pytest.mark.parametrize("pretty", [False, True])
def test_vectors_round_trip_through_json(bean: str, hexdata: str, pretty: bool) -> None:
    value, _ = zeze.decode_from(SCHEMA, bean, bytes.fromhex(hexdata))
    data = zeze.encode(SCHEMA, bean, value)
    text = to_json(SCHEMA, bean, value, pretty=pretty)
    assert zeze.encode(SCHEMA, bean, from_json(SCHEMA, bean, text)) == data


def test_shapes() -> None:
    value = {"listBinary": [b"\x01\xff"], "mapIntLong": {7: -1}, "f32": float("nan"),
             "mapIntV3i": {1: (1, 2, 3)}, "dyn": zeze.Dynamic("BOther", {"x": 5}),
             "setString": ["a"], "v2": (0.5, -0.0)}
    doc: dict[str, Any] = json.loads(to_json(SCHEMA, "BAll", value))
    assert doc["listBinary"] == ["Af8="]
    assert doc["mapIntLong"] == {"7": -1}
    assert doc["f32"] == "NaN"
    assert doc["mapIntV3i"] == {"1": [1, 2, 3]}
    assert doc["dyn"] == {"bean": "oracle.m.BOther", "typeId": zeze.hash64("oracle.m.BOther"),
                          "value": {"x": 5}}
    assert doc["v2"] == [0.5, -0.0]
    assert list(doc)[:3] == ["b", "i8", "i16"]


@pytest.mark.parametrize(("text", "path", "words"), [
    ('{"nope": 1}', '$.nope', "has no field 'nope'"),
    ('{"i32": "1"}', '$.i32', "is an integer"),
    ('{"bin": "%%"}', '$.bin', "base64"),
    ('{"mapIntLong": {"x": 1}}', '$.mapIntLong[<key 0>]', "integer"),
    ('{"mapIntLong": {"7": "x"}}', '$.mapIntLong[7]', "is an integer"),
    ('{"mapStrBean": {"a b": {"a": "x"}}}', '$.mapStrBean["a b"].a', "is an integer"),
    ('{"mapLongStr": {"-3": 4}}', '$.mapLongStr[-3]', "a string is a JSON string"),
    ('{"mapBoolDouble": {"true": []}}', '$.mapBoolDouble[true]', "a float is a number"),
    ('{"listInt": [1, true]}', '$.listInt[1]', "integer"),
    ('{"dyn": {"bean": "BAll"}}', '$.dyn', "not one of the beans"),
    ('{"inner": {"a": 1.5}}', '$.inner.a', "is an integer"),
    ('{"v3": [1, 2]}', '$.v3', "array of 3"),
])
def test_bad_json_names_the_path(text: str, path: str, words: str) -> None:
    with pytest.raises(EncodeError) as info:
        from_json(SCHEMA, "BAll", text)
    assert info.value.path == path
    assert str(info.value).startswith(f"zeze encode error in {path}: ")
    assert words in str(info.value)
