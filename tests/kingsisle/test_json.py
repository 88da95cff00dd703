"""The JSON text form: binary -> to_json -> from_json gives identical bytes for every leaf
type (non-UTF-8 std::strings, lone surrogates, NaN payloads, enums as numbers and names),
errors name the JSON path, and hostile JSON (deep, huge numbers, wrong types anywhere) gives
DecodeError only, in time and memory linear in the text."""

from __future__ import annotations

import contextlib
import json
import math
import random
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde._float32 import float32_from_bits, float32_to_bits
from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import from_json, from_jsonable, string_id, to_json, to_jsonable
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer
from tests.fuzz.test_growth import assert_linear
from tests.kingsisle.test_katsuba_serializer import root, without
from tests.kingsisle.test_serializer import NODE, chain
from tests.kingsisle.test_serializer import SCHEMA as NODE_SCHEMA
from tests.kingsisle.valuegen import SCHEMA, objects

ITEM = string_id("class Item")
MODES = [(0, True), (2, True), (0, False), (2, False), (18, True)]


def item(n: int, name: bytes = b"x") -> KiObject:
    return KiObject("class Item", ITEM, {"m_id": n, "m_name": name, "m_on": True})


def sample() -> KiObject:
    return without(root(random.Random(2), False), "m_net")


def doc_of(obj: KiObject, **options: Any) -> Any:
    doc: Any = json.loads(to_json(obj, schema=SCHEMA, **options))
    return doc


def error_of(doc: Any) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        from_jsonable(doc, SCHEMA)
    return info.value


# ---------------------------------------------------------------------------------------------
# Round trips


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(MODES), st.booleans())
def test_binary_json_binary_gives_the_same_bytes(data: st.DataObject, mode: tuple[int, bool],
                                                 names: bool) -> None:
    flags, shallow = mode
    value = data.draw(objects(shallow=shallow))
    if flags & 16:
        value.setdefault("m_delta", 1)
        value.setdefault("m_gone", 2)
    ser = Serializer(SCHEMA, flags=flags, shallow=shallow)
    stream = ser.encode(value)
    decoded = ser.decode(stream)
    text = to_json(decoded, schema=SCHEMA, enum_names=names)
    back = from_json(text, SCHEMA)
    assert ser.encode(back) == stream
    assert to_json(back, schema=SCHEMA, enum_names=names) == text
    assert list(back) == list(decoded)  # the class's order
    if "NaN" not in text:  # NaN != NaN, so equality says nothing there
        assert back == decoded
    untyped = to_json(decoded)  # without the schema: doubles, numbers for enums
    assert ser.encode(from_json(untyped, SCHEMA)) == stream
    assert ser.encode(from_json(to_json(decoded, schema=SCHEMA, pretty=True), SCHEMA)) == stream


def test_the_class_name_comes_first_then_the_class_order() -> None:
    obj = sample()
    shuffled = KiObject(obj.type_name, obj.type_hash, reversed(list(obj.items())))
    text = to_json(shuffled, schema=SCHEMA)
    assert text.startswith('{"$__type":"class Root","m_bool":true,"m_char":-128,')
    doc = json.loads(text)
    back = from_jsonable(dict(reversed(list(doc.items()))), SCHEMA)
    assert list(back) == list(obj) and back == obj


def test_leaf_structs_use_katsubas_keys() -> None:
    doc = doc_of(sample())
    assert list(doc["m_color"]) == ["r", "g", "b", "a"]
    assert list(doc["m_rot"]) == ["x", "y", "z", "w"]
    assert doc["m_matrix"] == {"i": [1.0, 0.0, 0.0], "j": [0.0, 1.0, 0.0],
                               "k": [0.0, 0.0, -1.0]}
    back = from_jsonable(doc, SCHEMA)
    assert list(back["m_color"]) == ["b", "g", "r", "a"]  # the decoder's (wire) order


def test_a_class_may_be_named_by_its_hash() -> None:
    doc = doc_of(sample())
    doc["$__type"] = string_id("class Root")
    doc["m_child"]["$__type"] = ITEM
    assert from_jsonable(doc, SCHEMA) == sample()


# ---------------------------------------------------------------------------------------------
# Floats


def test_float32_values_are_written_short_and_read_back_exactly() -> None:
    obj = sample()
    for text, value in [("0.1", 0.1), ("3.4028235e+38", 3.4028234663852886e38),
                        ("1e-45", 1.401298464324817e-45), ("-0.0", -0.0), ("16777216.0", 2**24)]:
        obj["m_float"] = float32_from_bits(float32_to_bits(value))
        written = to_json(obj, schema=SCHEMA)
        assert f'"m_float":{text},' in written
        back = from_json(written, SCHEMA)["m_float"]
        assert float32_to_bits(back) == float32_to_bits(value)
        assert math.copysign(1, back) == math.copysign(1, value)


@pytest.mark.parametrize(("bits", "text"), [
    (0x7FC00000, '"NaN"'), (0xFFC00000, '"NaN:0xffc00000"'), (0x7F800001, '"NaN:0x7f800001"'),
    (0x7F800000, '"Infinity"'), (0xFF800000, '"-Infinity"')])
def test_float32_specials_keep_their_bits(bits: int, text: str) -> None:
    obj = sample()
    obj["m_float"] = float32_from_bits(bits)
    obj["m_pos"] = {"x": float32_from_bits(bits), "y": 0.0, "z": 0.0}
    written = to_json(obj, schema=SCHEMA)
    assert f'"m_float":{text},' in written and f'"x":{text},' in written
    ser = Serializer(SCHEMA)
    assert ser.encode(from_json(written, SCHEMA)) == ser.encode(obj)


def test_double_nans_keep_their_bits_with_and_without_the_schema() -> None:
    obj = sample()
    obj["m_double"] = struct_double(0x7FF0000000000123)
    obj["m_float"] = float32_from_bits(0x7FA00001)
    ser = Serializer(SCHEMA)
    for text in (to_json(obj, schema=SCHEMA), to_json(obj)):
        assert '"NaN:0x7ff0000000000123"' in text
        assert ser.encode(from_json(text, SCHEMA)) == ser.encode(obj)
    assert '"m_float":"NaN:0x7fa00001"' in to_json(obj, schema=SCHEMA)


def struct_double(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return value


@pytest.mark.parametrize("bad", ["nan", "NaN:0x7f800000", "NaN:0x7fc0000", "NaN:0x00000001",
                                 "NaN:0xzzzzzzzz", "Inf", 1e39, 10**400, True, None, [1.0]])
def test_bad_floats_are_refused(bad: Any) -> None:
    doc = doc_of(sample())
    doc["m_float"] = bad
    assert error_of(doc).path == "$.m_float"


def test_integers_are_taken_for_floats() -> None:
    doc = doc_of(sample())
    doc["m_float"], doc["m_double"] = 3, -(2**60)
    back = from_jsonable(doc, SCHEMA)
    assert back["m_float"] == 3.0 and back["m_double"] == float(-(2**60))


# ---------------------------------------------------------------------------------------------
# Strings


def test_std_strings_that_are_not_utf8_are_escaped() -> None:
    obj = sample()
    obj["m_str"] = b"\xff\x00ok"
    doc = doc_of(obj)
    assert doc["m_str"] == {"$bytes": "ff006f6b"}
    assert from_jsonable(doc, SCHEMA)["m_str"] == b"\xff\x00ok"


@pytest.mark.parametrize("text", ['{"$bytes": "00"}', "$bytes", "{}", "\x00", "\u00e9\U0001f600"])
def test_text_that_looks_like_an_escape_stays_text(text: str) -> None:
    obj = sample()
    obj["m_str"] = text.encode()
    doc = doc_of(obj)
    assert doc["m_str"] == text
    assert from_jsonable(doc, SCHEMA)["m_str"] == text.encode()


def test_std_string_text_must_be_utf8() -> None:
    doc = doc_of(sample())
    doc["m_str"] = "\ud800"
    assert error_of(doc).path == "$.m_str"
    for bad in ({"$bytes": "0"}, {"$bytes": "zz"}, {"$bytes": 1}, {"$bytes": "00", "x": 1}, 5):
        doc["m_str"] = bad
        assert error_of(doc).path == "$.m_str"


def test_wide_strings_keep_lone_surrogates() -> None:
    obj = sample()
    obj["m_wstr"] = "a\udc80\ud800b\U0001f600"
    text = to_json(obj, schema=SCHEMA)
    assert text.isascii() and "\\udc80\\ud800" in text
    assert from_json(text, SCHEMA)["m_wstr"] == obj["m_wstr"]


# ---------------------------------------------------------------------------------------------
# Enums


def test_enums_as_numbers_or_names() -> None:
    obj = sample()
    obj["m_kind"], obj["m_bits"], obj["m_kinds"] = 7, 3 | 1 << 31, [0, 1 << 30, 5]
    plain = doc_of(obj)
    named = doc_of(obj, enum_names=True)
    assert (plain["m_kind"], plain["m_bits"]) == (7, 3 | 1 << 31)
    assert named["m_kind"] == "K_B" and named["m_bits"] == "B_ONE|B_TWO|B_HIGH"
    assert named["m_kinds"] == ["K_A", "K_C", 5]  # 5 has no name: the number stays
    for doc in (plain, named):
        assert from_jsonable(doc, SCHEMA) == obj


@pytest.mark.parametrize(("value", "written"), [(0, ""), (2, "B_TWO"), (4, 4), (5, 5)])
def test_bit_flags_names_say_the_value_exactly(value: int, written: Any) -> None:
    obj = sample()
    obj["m_bits"] = value
    assert doc_of(obj, enum_names=True)["m_bits"] == written
    assert from_json(to_json(obj, schema=SCHEMA, enum_names=True), SCHEMA)["m_bits"] == value


def test_bit_flag_names_read_in_any_order_with_blanks() -> None:
    doc = doc_of(sample())
    doc["m_bits"] = " B_HIGH |B_ONE||"
    assert from_jsonable(doc, SCHEMA)["m_bits"] == 1 | 1 << 31


@pytest.mark.parametrize(("key", "bad"), [("m_kind", "K_Z"), ("m_kind", "K_A|K_B"),
                                          ("m_kind", -1), ("m_kind", 1 << 32), ("m_kind", 1.0),
                                          ("m_bits", "B_ONE|NOPE"), ("m_bits", None)])
def test_bad_enums_are_refused(key: str, bad: Any) -> None:
    doc = doc_of(sample())
    doc[key] = bad
    assert error_of(doc).path == f"$.{key}"


MISFITS = [({"$__type": 1}, "$"), ({"m_str": {1}}, "$.m_str"), ({"m_int": 1 << 40}, "$.m_int"),
           ({"m_child": 5}, "$.m_child"), ({"m_items": [item(1), {}]}, "$.m_items[1]"),
           ({"m_path": [{"x": 1.0}]}, "$.m_path[0]"), ({"m_bits": "B_ONE|NO"}, "$.m_bits")]


@pytest.mark.parametrize(("change", "path"), MISFITS)
def test_objects_that_do_not_fit_are_encode_errors(change: dict[str, Any], path: str) -> None:
    obj = sample()
    obj.update(change)
    with pytest.raises(EncodeError) as info:
        to_json(obj, schema=SCHEMA)
    assert info.value.path == path
    if path in ("$", "$.m_str"):  # without the schema, values are written by their type
        with pytest.raises(EncodeError):
            to_json(obj)


def test_enums_given_as_names_are_written_as_numbers() -> None:
    obj = sample()
    obj["m_kind"], obj["m_bits"] = "K_B", "B_TWO|B_ONE"
    doc = doc_of(obj)
    assert (doc["m_kind"], doc["m_bits"]) == (7, 3)
    assert Serializer(SCHEMA).encode(from_jsonable(doc, SCHEMA)) == Serializer(SCHEMA).encode(obj)


def test_enum_names_need_the_schema() -> None:
    with pytest.raises(ValueError, match="schema"):
        to_json(sample(), enum_names=True)


# ---------------------------------------------------------------------------------------------
# Errors


def test_errors_name_the_json_path() -> None:
    obj = sample()
    obj["m_items"] = [item(n) for n in range(5)]
    doc = doc_of(obj)
    doc["m_items"][3]["m_name"] = 7
    error = error_of(doc)
    assert error.path == "$.m_items[3].m_name"
    assert "$.m_items[3].m_name" in str(error) and "std::string" in str(error)


@pytest.mark.parametrize(("change", "path", "words"), [
    (lambda d: d.update({"$__type": "class Nope"}), '$["$__type"]', "no class"),
    (lambda d: d.update({"$__type": 12}), '$["$__type"]', "no class"),
    (lambda d: d.update({"$__type": None}), '$["$__type"]', "class name"),
    (lambda d: d.pop("$__type"), "$", "$__type"),
    (lambda d: d.update({"m_nope": 1}), "$.m_nope", "no property"),
    (lambda d: d.update({"bad key": 1}), '$["bad key"]', "no property"),
    (lambda d: d.update({"m_uchar": 256}), "$.m_uchar", "does not fit"),
    (lambda d: d.update({"m_bi3": -5}), "$.m_bi3", "does not fit"),
    (lambda d: d.update({"m_u64": 1 << 64}), "$.m_u64", "does not fit"),
    (lambda d: d.update({"m_int": 10**100}), "$.m_int", "integer of"),
    (lambda d: d.update({"m_int": 1.0}), "$.m_int", "integer"),
    (lambda d: d.update({"m_int": True}), "$.m_int", "integer"),
    (lambda d: d.update({"m_bool": 1}), "$.m_bool", "true or false"),
    (lambda d: d.update({"m_wstr": 1}), "$.m_wstr", "text"),
    (lambda d: d.update({"m_ints": {}}), "$.m_ints", "array"),
    (lambda d: d["m_ints"].append(-1), "$.m_ints[3]", "does not fit"),
    (lambda d: d.update({"m_child": []}), "$.m_child", "null"),
    (lambda d: d["m_child"].update({"m_id": "7"}), "$.m_child.m_id", "integer"),
    (lambda d: d["m_items"].append(3), "$.m_items[3]", "JSON object"),
    (lambda d: d["m_color"].pop("a"), "$.m_color", "r, g, b, a"),
    (lambda d: d["m_color"].update({"q": 1}), "$.m_color", "r, g, b, a"),
    (lambda d: d["m_color"].update({"a": 256}), "$.m_color.a", "does not fit"),
    (lambda d: d["m_matrix"].update({"j": [1.0, 2.0]}), "$.m_matrix.j", "three numbers"),
    (lambda d: d["m_matrix"].update({"k": [1.0, 2.0, "x"]}), "$.m_matrix.k[2]", "float"),
    (lambda d: d["m_path"][1].update({"z": None}), "$.m_path[1].z", "float"),
])
def test_what_does_not_fit_is_a_decode_error(change: Any, path: str, words: str) -> None:
    doc = doc_of(sample())
    change(doc)
    error = error_of(doc)
    assert error.path == path and words in str(error), str(error)


@pytest.mark.parametrize("text", ["null", "[]", "3", '"x"', "{}", "{", "", "\xff",
                                  '{"$__type": "class Root"', "1" * 5000, "[" * 100_000,
                                  '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_hostile_text_gives_decode_errors(text: str) -> None:
    with pytest.raises(DecodeError):
        from_json(text, SCHEMA)
    with pytest.raises(DecodeError):
        from_json(text.encode("utf-8", "surrogatepass"), SCHEMA)


def test_objects_nested_past_the_limit_are_refused() -> None:
    deep = ('{"$__type": "class N", "m_n": ' * 200) + "null" + "}" * 200
    with pytest.raises(DecodeError, match="max_depth 127"):
        from_json(deep, NODE_SCHEMA)
    ser = Serializer(NODE_SCHEMA, recursion_limit=5000)
    text = to_json(chain(3000), schema=NODE_SCHEMA, recursion_limit=5000)
    back = from_json(text, NODE_SCHEMA, recursion_limit=5000)
    assert ser.encode(back) == NODE.to_bytes(4, "little") * 3000 + bytes(4)
    with pytest.raises(EncodeError, match="max_depth"):
        to_json(chain(200), schema=NODE_SCHEMA)
    with pytest.raises(EncodeError, match="max_depth"):
        to_json(chain(200))


@pytest.mark.parametrize("limit", [1, 2, 127])
def test_the_same_limits_as_the_serializer(limit: int) -> None:
    """Nesting the serializer takes with a limit, the JSON form takes with that limit."""
    ser = Serializer(NODE_SCHEMA, recursion_limit=limit)
    for n in (limit - 1, limit):
        if not n:
            continue
        fits = n < limit
        text = ('{"$__type": "class N", "m_n": ' * n) + "null" + "}" * n
        assert works(ser.decode, NODE.to_bytes(4, "little") * n + bytes(4)) == fits
        assert works(ser.encode, chain(n)) == fits
        assert works(to_json, chain(n), recursion_limit=limit) == fits
        assert works(from_json, text, NODE_SCHEMA, recursion_limit=limit) == fits
    items = without(root(random.Random(1), False), "m_net")
    data, text = Serializer(SCHEMA).encode(items), to_json(items)
    for limit in (2, 3):  # a list of objects takes two levels below its object
        fits = works(Serializer(SCHEMA, recursion_limit=limit).decode, data)
        assert works(from_json, text, SCHEMA, recursion_limit=limit) == fits
        assert works(to_json, items, recursion_limit=limit) == fits
        assert fits == (limit == 3)


def works(fn: Any, *args: Any, **options: Any) -> bool:
    """True when ``fn`` returns, False when it raises a DecodeError or EncodeError."""
    try:
        fn(*args, **options)
    except (DecodeError, EncodeError):
        return False
    return True


JUNK: list[Any] = [None, True, 0, -1, 1 << 64, 10**300, 1.5, -0.0, "", "x", "K_B", "B_ONE|x",
                   "NaN", [], [None], [1, "x"], {}, {"$bytes": "00"}, {"$__type": "class Item"},
                   {"$__type": "class Root"}, {"x": 1.0, "y": 2.0, "z": 3.0}]


@pytest.mark.parametrize("key", [*doc_of(sample()), "m_net", "m_gone"])
def test_wrong_types_anywhere_give_decode_errors_only(key: str) -> None:
    ser = Serializer(SCHEMA)
    for junk in JUNK:
        doc = doc_of(sample())
        doc[key] = junk
        try:
            obj = from_jsonable(doc, SCHEMA)
        except DecodeError as e:
            assert e.path.startswith(f"$.{key}" if key.isidentifier() else f'$["{key}"]'), (
                junk, e)
            continue
        with contextlib.suppress(EncodeError):
            ser.encode(obj)
        assert to_jsonable(obj, schema=SCHEMA)["$__type"] == "class Root"


# ---------------------------------------------------------------------------------------------
# Growth: time and memory linear in the text


def root_text(names: bool = False, **changes: Any) -> bytes:
    obj = sample()
    obj.update(changes)
    return to_json(obj, schema=SCHEMA, enum_names=names).encode()


JSON_FAMILIES = {
    "long string": (lambda n: root_text(m_str=b"s" * n, m_wstr="w" * n), (4000, 8000, 16000)),
    "bytes escape": (lambda n: root_text(m_str=b"\xff" * n), (2000, 4000, 8000)),
    "wide int list": (lambda n: root_text(m_ints=list(range(n))), (1000, 2000, 4000)),
    "object list": (lambda n: root_text(m_items=[item(i) for i in range(n)]), (200, 400, 800)),
    "struct list": (lambda n: root_text(m_path=[{"x": 0.5, "y": 1.5, "z": i}
                                                for i in range(n)]), (200, 400, 800)),
    "enum names": (lambda n: root_text(True, m_kinds=[7] * n), (1000, 2000, 4000)),
}


@pytest.mark.parametrize("family", list(JSON_FAMILIES))
def test_from_json_grows_linearly(family: str) -> None:
    make, sizes = JSON_FAMILIES[family]
    assert_linear(make, lambda text: from_json(text, SCHEMA), sizes)


def test_nested_objects_grow_linearly() -> None:
    def make(n: int) -> bytes:
        return (('{"$__type":"class N","m_n":' * n) + "null" + "}" * n).encode()

    assert_linear(make, lambda text: from_json(text, NODE_SCHEMA, recursion_limit=5000),
                  (500, 1000, 2000), memory=False)


def test_to_json_grows_linearly() -> None:
    def make(n: int) -> bytes:
        obj = without(root(random.Random(1), False), "m_net")
        obj["m_items"] = [item(i) for i in range(n)]
        return Serializer(SCHEMA).encode(obj)

    ser = Serializer(SCHEMA)
    assert_linear(make, lambda data: to_json(ser.decode(data), schema=SCHEMA, enum_names=True),
                  (200, 400, 800))


@pytest.mark.parametrize("family", ["wide int list", "object list", "struct list",
                                    "enum names"])
def test_rows_grow_linearly(family: str) -> None:
    """Codec.to_row of a root object and the Arrow table of its Parquet part."""
    from gameserde.batch.parquet import table_of
    from gameserde.kingsisle.rows import rows_of

    make, sizes = JSON_FAMILIES[family]
    assert_linear(make, lambda text: table_of(["k"], [rows_of(SCHEMA).row(from_json(text,
                                                                                    SCHEMA))]),
                  sizes, memory=False)  # Arrow's memory is not Python's
