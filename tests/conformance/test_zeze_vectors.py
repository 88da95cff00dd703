"""Zeze's real Java ``ByteBuffer`` vectors (``shared/vectors/zeze/train.json``, spec §6).

``GAMESERDE_ZEZE_VECTORS`` names another file of the same format. One test per case: each
category has a checker that writes and reads the case both ways; a case (or a category) it
cannot understand fails, it is never skipped.
"""

from __future__ import annotations

import decimal
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from gameserde import zeze
from gameserde.errors import DecodeError
from gameserde.zeze import Dynamic, FrozenBean, ZezeSchema, hash32, hash64
from gameserde.zeze._plan import TypePlan, plans_of
from gameserde.zeze.bytebuffer import (
    VECTOR2,
    VECTOR2INT,
    VECTOR3,
    VECTOR3INT,
    VECTOR4,
    Reader,
    Writer,
    float32_to_bits,
)
from gameserde.zeze.codec import write_bean
from gameserde.zeze.frames import FrameDecoder, decode_frame, encode_frame, encode_raw_frame

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
VECTORS = Path(os.environ.get("GAMESERDE_ZEZE_VECTORS", DEFAULT))


def _load() -> dict[str, Any]:
    if not VECTORS.is_file():
        return {"<missing file>": [str(VECTORS)]}
    data = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{VECTORS}: the top level is not an object"
    return data


DATA = _load()


def need(case: Any, *fields: str) -> None:
    assert isinstance(case, dict) and set(fields) <= set(case), (
        f"the case needs {', '.join(fields)}: {case!r}")


def hexbytes(text: Any) -> bytes:
    assert isinstance(text, str), f"not hex: {text!r}"
    return bytes.fromhex(text)


def number(value: Any) -> float:
    """A float or double of the vectors: a JSON number or one of the four strings."""
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0.0": -0.0}
    if isinstance(value, str):
        assert value in special, f"not a float value: {value!r}"
        return special[value]
    assert isinstance(value, int | float) and not isinstance(value, bool), value
    return float(value)


def same_float32(got: float, want: Any) -> bool:
    w = number(want)
    if math.isnan(w):
        return math.isnan(got)
    return float32_to_bits(got) == float32_to_bits(w)


def written(fill: Any) -> bytes:
    w = Writer()
    fill(w)
    return w.getvalue()


def read_all(data: bytes, read: Any) -> Any:
    r = Reader(data)
    value = read(r)
    assert r.pos == len(data), f"read {r.pos} of {len(data)} bytes"
    return value


# -- primitives --------------------------------------------------------------------------------

def check_long(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_long(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_long) == case["v"]


def check_int(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_int(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_int) == case["v"]


def check_uint(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_uint(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_uint) & 0xFFFFFFFF == case["v"]


def check_ulong(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_ulong(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_ulong) == case["v"]


LENIENT = {
    "ReadLong": Reader.read_long, "ReadUInt": Reader.read_uint,
    "ReadULong": lambda r: (v := r.read_ulong()) - (1 << 64) * (v >> 63),
    "ReadBool": Reader.read_bool, "SkipUInt": Reader.skip_uint, "SkipULong": Reader.skip_ulong,
    "ReadTagSize": lambda r: r.read_tag_size(r.read_byte()),
}


def check_lenient_read(case: Any) -> None:
    need(case, "fn", "hex")
    assert case["fn"] in LENIENT, f"unknown reader function {case['fn']!r}"
    r = Reader(hexbytes(case["hex"]))
    if "error" in case:
        with pytest.raises(DecodeError):
            LENIENT[case["fn"]](r)
        return
    need(case, "consumed")
    result = LENIENT[case["fn"]](r)
    assert r.pos == case["consumed"]
    if "result" in case:
        assert result == case["result"]
    else:
        assert case["fn"].startswith("Skip"), f"a read case without a result: {case!r}"


def check_float(case: Any) -> None:
    need(case, "bits", "v", "hex", "written_bits")
    bits = int(case["bits"], 16)
    assert written(lambda w: w.write_float_bits(bits)).hex() == case["hex"]
    assert int(case["written_bits"], 16) == bits
    data = hexbytes(case["hex"])
    assert read_all(data, Reader.read_float_bits) == bits
    value = read_all(data, Reader.read_float)
    assert same_float32(value, case["v"])
    assert written(lambda w: w.write_float(value)).hex() == case["hex"]  # NaN payloads kept


def check_double(case: Any) -> None:
    need(case, "bits", "v", "hex")
    bits = int(case["bits"], 16)
    assert written(lambda w: w.write_double_bits(bits)).hex() == case["hex"]
    data = hexbytes(case["hex"])
    assert read_all(data, Reader.read_double_bits) == bits
    value = read_all(data, Reader.read_double)
    want = number(case["v"])
    assert math.isnan(value) if math.isnan(want) else value == want
    assert written(lambda w: w.write_double(value)).hex() == case["hex"]


def check_bool(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_bool(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_bool) is case["v"]


def check_string(case: Any) -> None:
    need(case, "v", "hex", "read_back")
    assert written(lambda w: w.write_string(case["v"])).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_string) == case["read_back"]


def check_string_decode(case: Any) -> None:
    need(case, "hex", "result")
    assert read_all(hexbytes(case["hex"]), Reader.read_string) == case["result"]


def check_bytes(case: Any) -> None:
    need(case, "v", "hex")
    assert written(lambda w: w.write_bytes(hexbytes(case["v"]))).hex() == case["hex"]
    assert read_all(hexbytes(case["hex"]), Reader.read_bytes) == hexbytes(case["v"])


def check_tag(case: Any) -> None:
    need(case, "last", "id", "type", "hex")
    assert written(lambda w: w.write_tag(case["last"], case["id"], case["type"])).hex() == (
        case["hex"])
    r = Reader(hexbytes(case["hex"]))
    tag = r.read_byte()
    assert tag & 0xF == case["type"]
    assert case["last"] + r.read_tag_size(tag) == case["id"]
    assert r.remaining == 0


def check_list_header(case: Any) -> None:
    need(case, "count", "type", "hex")
    assert written(lambda w: w.write_list_header(case["count"], case["type"])).hex() == (
        case["hex"])
    r = Reader(hexbytes(case["hex"]))
    header = r.read_byte()
    assert (header & 0xF, r.read_list_count(header)) == (case["type"], case["count"])
    assert r.remaining == 0


def check_map_header(case: Any) -> None:
    need(case, "count", "key_type", "value_type", "hex")
    assert written(lambda w: w.write_map_header(
        case["count"], case["key_type"], case["value_type"])).hex() == case["hex"]
    r = Reader(hexbytes(case["hex"]))
    types = r.read_byte()
    assert (types >> 4, types & 0xF, r.read_uint()) == (
        case["key_type"], case["value_type"], case["count"])
    assert r.remaining == 0


VECTOR_TYPES = {"vector2": (VECTOR2, 2), "vector3": (VECTOR3, 3), "vector4": (VECTOR4, 4),
                "quaternion": (VECTOR4, 4), "vector2int": (VECTOR2INT, 2),
                "vector3int": (VECTOR3INT, 3)}


def check_vector(case: Any) -> None:
    need(case, "type", "v", "hex")
    assert case["type"] in VECTOR_TYPES, f"unknown vector type {case['type']!r}"
    wire, n = VECTOR_TYPES[case["type"]]
    assert isinstance(case["v"], list) and len(case["v"]) == n, case
    data = hexbytes(case["hex"])
    if wire in (VECTOR2INT, VECTOR3INT):
        assert written(lambda w: w.write_ints(case["v"])).hex() == case["hex"]
        assert list(read_all(data, lambda r: r.read_ints(n))) == case["v"]
        return
    assert written(lambda w: w.write_floats([number(c) for c in case["v"]])).hex() == (
        case["hex"])
    got = read_all(data, lambda r: r.read_floats(n))
    assert all(same_float32(g, c) for g, c in zip(got, case["v"], strict=True))


def check_hash(case: Any) -> None:
    need(case, "name", "hash64", "hash32")
    assert isinstance(case["name"], str), f"not a name: {case['name']!r}"
    assert hash64(case["name"]) == case["hash64"]
    assert hash32(case["name"]) == case["hash32"]


# -- beans ---------------------------------------------------------------------------------------

def _schema() -> ZezeSchema:
    meta = DATA.get("meta")
    assert isinstance(meta, dict) and isinstance(meta.get("schema_xml"), str), (
        "the vectors' meta.schema_xml is missing")
    return zeze.load_schema(meta["schema_xml"], filename="meta.schema_xml")


SCHEMA = _schema() if "meta" in DATA else None


def ours(t: TypePlan, v: Any) -> Any:
    """A value written in the vectors' conventions as the Python value gameserde uses."""
    kind = t.kind
    if kind in ("float", "double"):
        return number(v)
    if kind == "binary":
        return hexbytes(v)
    if kind == "decimal":
        return decimal.Decimal(v)
    if kind == "vector":
        return tuple(number(c) for c in v)
    if kind == "vectorint":
        return tuple(v)
    if kind in ("list", "set"):
        assert t.element is not None and isinstance(v, list), v
        return [ours(t.element, e) for e in v]
    if kind == "map":
        assert t.key is not None and t.value is not None and isinstance(v, list), v
        return {_hashable(ours(t.key, k)): ours(t.value, x) for k, x in v}
    if kind == "dynamic":
        assert isinstance(v, dict) and set(v) == {"typeId", "bean", "value"}, v
        if v["bean"] is None:
            return Dynamic(None, {}, v["typeId"])
        return Dynamic(v["bean"], ours_bean(v["bean"], v["value"]), v["typeId"])
    if kind == "bean":
        assert t.bean is not None
        return ours_bean(t.bean, v)
    return v


def _hashable(v: Any) -> Any:
    return FrozenBean(v) if isinstance(v, dict) else v


def ours_bean(bean: str, value: Any) -> dict[str, Any]:
    assert SCHEMA is not None
    plan = plans_of(SCHEMA).bean(SCHEMA.bean(bean).name)
    assert isinstance(value, dict) and set(value) == set(plan.fields), (
        f"the value of {bean} does not name its fields: {sorted(value)}")
    return {name: ours(plan.fields[name].type, v) for name, v in value.items()}


def same(a: Any, b: Any) -> bool:
    """Equal as Java compares the values: floats with ``==`` (so -0.0 equals 0.0, which is
    how a vector of -0.0 components, left out when written, reads back), NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def check_beans(case: Any) -> None:
    need(case, "bean", "value", "hex")
    assert SCHEMA is not None
    value = ours_bean(case["bean"], case["value"])
    assert zeze.encode(SCHEMA, case["bean"], value).hex() == case["hex"]
    decoded = zeze.decode(SCHEMA, case["bean"], hexbytes(case["hex"]))
    decoded.pop(zeze.UNKNOWN_KEY, None)
    assert same(decoded, value), decoded


def check_decode(case: Any) -> None:
    need(case, "bean", "hex")
    assert SCHEMA is not None
    data = hexbytes(case["hex"])
    if "error" in case:
        with pytest.raises(DecodeError):
            zeze.decode_from(SCHEMA, case["bean"], data)
        return
    need(case, "value", "consumed", "reencode")
    decoded, end = zeze.decode_from(SCHEMA, case["bean"], data)
    assert end == case["consumed"]
    assert zeze.encode(SCHEMA, case["bean"], decoded).hex() == case["reencode"]
    decoded.pop(zeze.UNKNOWN_KEY, None)
    assert same(decoded, ours_bean(case["bean"], case["value"])), decoded


FAMILIES = {"response": 0, "request": 1, "protocol": 2}


def check_protocol(case: Any) -> None:
    need(case, "moduleId", "protocolId", "typeId", "family", "resultCode", "bean", "value",
         "hex")
    assert SCHEMA is not None and case["family"] in FAMILIES, case
    assert zeze.protocol_type_id(case["moduleId"], case["protocolId"]) == case["typeId"]
    value = ours_bean(case["bean"], case["value"]) if case["bean"] is not None else {}
    session = case.get("sessionId") if case["family"] != "protocol" else None
    # the frame from its parts, whether or not the schema declares the protocol
    body = Writer()
    body.write_uint(FAMILIES[case["family"]] | (0x20 if case["resultCode"] else 0))
    if case["resultCode"]:
        body.write_long(case["resultCode"])
    if session is not None:
        body.write_long(session)
    write_bean(SCHEMA, case["bean"], value, body)
    data = encode_raw_frame(case["moduleId"], case["protocolId"], body.getvalue())
    assert data.hex() == case["hex"]
    [raw] = FrameDecoder().feed(data)
    assert (raw.module_id, raw.protocol_id, raw.type_id) == (
        case["moduleId"], case["protocolId"], case["typeId"])
    proto = SCHEMA.protocol_by_type_id(case["typeId"])
    if proto is None:  # a frame of a protocol the schema does not declare
        return
    assert encode_frame(SCHEMA, proto.name, value, family=case["family"],
                        result_code=case["resultCode"], session_id=session) == data
    frame = decode_frame(SCHEMA, data)
    assert (frame.family, frame.result_code, frame.session_id, frame.type_id) == (
        case["family"], case["resultCode"], session, case["typeId"])
    assert same(frame.value, value)
    assert raw.decode(SCHEMA) == frame


CHECKERS = {
    "long": check_long, "int": check_int, "uint": check_uint, "ulong": check_ulong,
    "lenient_read": check_lenient_read, "float": check_float, "double": check_double,
    "bool": check_bool, "string": check_string, "string_decode": check_string_decode,
    "string_decode_fuzz": check_string_decode, "bytes": check_bytes, "tag": check_tag,
    "list_header": check_list_header, "map_header": check_map_header, "vector": check_vector,
    "hash": check_hash, "beans": check_beans, "decode": check_decode,
    "protocol": check_protocol,
}


def _params() -> list[Any]:
    params = []
    for category, cases in DATA.items():
        if category == "meta":
            continue
        if not isinstance(cases, list):
            cases = [{"not a list of cases": cases}]
        params += [pytest.param(category, case, id=f"{category}-{i}")
                   for i, case in enumerate(cases)]
    return params


@pytest.mark.parametrize(("category", "case"), _params())
def test_vector(category: str, case: Any) -> None:
    assert category in CHECKERS, f"no checker for the category {category!r}"
    CHECKERS[category](case)
