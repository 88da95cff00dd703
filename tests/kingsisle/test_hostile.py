"""Hostile input to the ObjectProperty serializer and the type-list loader: DecodeError (and
SchemaError) only, no hang, and cost bounded by the input, not by what it claims.

- truncations at every offset of generated encodings (shallow, deep, compressed, stateful);
- object and record sizes that lie, lengths of 2^32-1 and, in the compact form, 2^31-1;
- decompression bombs: declared sizes past ``max_expansion`` are refused before inflating,
  data that inflates past its declared size is stopped there (the growth of what bombs cost
  is ``test_growth.py``'s);
- nesting 10^5 deep fails at max_depth, at the cost of the first levels;
- families of growing hostile inputs (the pattern of ``tests/fuzz/test_growth.py``): as the
  input doubles, the calls and peak memory of decode (shallow, deep, compressed) and of
  ``load_schema`` at most double, and a claimed length alone costs nothing.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from gameserde._expansion import expansion_limit
from gameserde.errors import DecodeError, SchemaError
from gameserde.kingsisle import load_schema, property_hash, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import INFLATE_SLACK, Serializer
from tests.fuzz.test_growth import assert_flat, assert_linear, calls, peak
from tests.kingsisle.strategies import cases
from tests.kingsisle.test_generated import collect, prepared

H, N, U = string_id("class H"), string_id("class N"), string_id("class U")
PROPS = {"m_s": ("std::string", False), "m_w": ("std::wstring", False),
         "m_u": ("unsigned int", True), "m_b": ("bool", True), "m_o": ("class H*", True),
         "m_n": ("class N*", False)}
TYPES = json.dumps({"version": 2, "classes": {
    str(H): {"name": "class H", "hash": H, "properties": {
        name: {"type": t, "id": i, "flags": 31, "dynamic": dyn, "pointer": t.endswith("*"),
               "hash": property_hash(t, name)}
        for i, (name, (t, dyn)) in enumerate(PROPS.items())}},
    str(N): {"name": "class N", "hash": N, "properties": {
        "m_n": {"type": "class N*", "id": 0, "flags": 31, "pointer": True, "dynamic": False,
                "hash": property_hash("class N*", "m_n")}}},
    str(U): {"name": "class U", "hash": U, "properties": {
        "m_x": {"type": "unsigned int", "id": 0, "flags": 31, "dynamic": False,
                "hash": property_hash("unsigned int", "m_x")}}}}})
SCHEMA = load_schema(TYPES)
WITHOUT_U = load_schema(json.dumps({"version": 2, "classes": {
    k: v for k, v in json.loads(TYPES)["classes"].items() if k != str(U)}}))

DEEP = 100_000


def h(**values: Any) -> KiObject:
    full = {"m_s": b"", "m_w": "", "m_u": [], "m_b": [], "m_o": [], "m_n": None, **values}
    return KiObject("class H", H, full)


def decode_error(ser: Serializer, data: bytes) -> str:
    with pytest.raises(DecodeError) as info:
        ser.decode(data)
    return str(info.value)


def decodes_or_raises(ser: Serializer, data: bytes) -> KiObject | DecodeError:
    """The object, or the DecodeError (any other exception fails the test)."""
    try:
        return ser.decode(data)
    except DecodeError as e:
        return e


# -- truncations ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("flags", "shallow"), [(0, True), (0, False), (2, True), (6, False),
                                                (9, True), (31, False)])
def test_every_truncation_of_a_generated_stream_raises_decode_error(flags: int,
                                                                    shallow: bool) -> None:
    [(types, value)] = collect(cases(), 1)
    schema = load_schema(types.text())
    ser = Serializer(schema, flags=flags, shallow=shallow)
    data = ser.encode(prepared(types, value, flags, shallow, 7))
    for n in range(len(data)):
        decode_error(ser, data[:n])
    packed = Serializer(schema, flags=flags, shallow=shallow, manual_compression=True)
    wrapped = packed.encode(prepared(types, value, flags, shallow, 7))
    for n in range(len(wrapped)):
        decode_error(packed, wrapped[:n])


# -- sizes and lengths that lie --------------------------------------------------------------------

LIES = [0, 1, 31, 32, 33, 63, 64, 65, 2**31 - 1, 2**31, 2**32 - 1]


def test_object_and_record_sizes_that_lie() -> None:
    """Deep mode: object_bits may shrink the object to fewer records (then it is a smaller
    valid object) but never read past its records; a record_bits other than the bits its
    value took is an error, also when skipping an unknown property."""
    value = h(m_s=b"abc", m_u=[1, 2], m_b=[True], m_o=[h(m_s=b"x")])
    deep = Serializer(SCHEMA, shallow=False)
    data = deep.encode(value)
    assert deep.decode(data) == value
    root_size, first_record = 4, 8
    real = int.from_bytes(data[first_record:first_record + 4], "little")
    for lie in LIES:
        wrong = bytearray(data)
        wrong[root_size:root_size + 4] = lie.to_bytes(4, "little")
        decodes_or_raises(deep, bytes(wrong))
        assert calls(lambda w=bytes(wrong): deep.decode(w)) < 3 * calls(
            lambda: deep.decode(data)) + 200
        wrong = bytearray(data)
        if lie != real:
            wrong[first_record:first_record + 4] = lie.to_bytes(4, "little")
            decode_error(deep, bytes(wrong))
            decode_error(Serializer(WITHOUT_U, shallow=False, skip_unknown_types=True),
                         bytes(wrong))
    shrunk = bytearray(data)
    shrunk[root_size:root_size + 4] = (32 + real).to_bytes(4, "little")
    assert deep.decode(bytes(shrunk)) == KiObject("class H", H, {"m_s": b"abc"})


def test_an_unknown_type_whose_size_lies_is_not_skipped_past_the_end() -> None:
    unknown = KiObject("class U", U, {"m_x": 7})
    data = bytearray(Serializer(SCHEMA, shallow=False).encode(h(m_o=[unknown])))
    at = data.index(U.to_bytes(4, "little")) + 4
    for lie in (2**31 - 1, 2**32 - 1, len(data) * 8):
        data[at:at + 4] = lie.to_bytes(4, "little")
        message = decode_error(Serializer(WITHOUT_U, shallow=False, skip_unknown_types=True),
                               bytes(data))
        assert "remain" in message


FIELDS = ["m_s", "m_w", "m_u", "m_b", "m_o"]


def claimed(kind: str, count: int, compact: bool) -> bytes:
    """A shallow class H whose string, wide string or list ``kind`` claims ``count`` units
    (the fields before it empty), followed by 16 bytes (null objects for ``m_o``)."""
    empties = {"m_s": 2, "m_w": 2, "m_u": 4, "m_b": 4}
    if compact:
        lead = bytes(FIELDS.index(kind))
        prefix = (count << 1 | 1).to_bytes(4, "little") if count >= 128 else bytes([count << 1])
    else:
        lead = bytes(sum(empties[f] for f in FIELDS[:FIELDS.index(kind)]))
        prefix = count.to_bytes(empties.get(kind, 4), "little")
    return H.to_bytes(4, "little") + lead + prefix + (b"\0" if kind == "m_o" else b"\x55") * 16


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("kind", ["m_s", "m_w", "m_u", "m_b", "m_o"])
def test_huge_lengths_fail_fast_in_little_memory(kind: str, compact: bool) -> None:
    biggest = 2**31 - 1 if compact else (0xFFFF if kind in ("m_s", "m_w") else 2**32 - 1)
    ser = Serializer(SCHEMA, flags=2 if compact else 0)
    for count in (biggest, biggest // 2 + 1, min(biggest, 1 << 20)):
        data = claimed(kind, count, compact)
        message = decode_error(ser, data)
        assert "remain" in message
        assert calls(lambda d=data: ser.decode(d)) < 2000
        assert peak(lambda d=data: ser.decode(d)) < 64 << 10


# -- decompression bombs ---------------------------------------------------------------------------

def bomb(inflated: int) -> bytes:
    """zlib data inflating to ``inflated`` zero bytes."""
    packer = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    out = [packer.compress(chunk) for _ in range(inflated >> 20)]
    return b"".join(out) + packer.compress(bytes(inflated & ((1 << 20) - 1))) + packer.flush()


BOMB = bomb(32 << 20)


@pytest.mark.parametrize("manual", [False, True])
def test_decompression_bombs_are_capped_before_and_while_inflating(manual: bool) -> None:
    lead = b"" if manual else b"\x01"
    size = len(lead) + 4 + len(BOMB)
    factor = (1 << 20) / size  # about 1 MiB
    ser = Serializer(SCHEMA, flags=0 if manual else 8, manual_compression=manual,
                     max_expansion=factor)
    cap = expansion_limit(size, factor, INFLATE_SLACK)
    for declared in (2**32 - 1, 2**31, cap + 1):
        data = lead + declared.to_bytes(4, "little") + BOMB
        assert f"limit {cap}); a larger max_expansion" in decode_error(ser, data)
        assert calls(lambda d=data: ser.decode(d)) < 500
        assert peak(lambda d=data: ser.decode(d)) < 64 << 10
    for declared in (1000, cap):
        data = lead + declared.to_bytes(4, "little") + BOMB
        assert "not the" in decode_error(ser, data)
        assert peak(lambda d=data: ser.decode(d)) < 3 * declared + (256 << 10)


# -- deep nesting ----------------------------------------------------------------------------------

def chain(levels: int, shallow: bool) -> bytes:
    """``levels`` class N objects, each the ``m_n`` of the one before (deep mode: with the
    true sizes, 16 bytes a level)."""
    if shallow:
        return N.to_bytes(4, "little") * levels + bytes(4)
    record = property_hash("class N*", "m_n").to_bytes(4, "little")
    parts = []
    for below in range(levels - 1, -1, -1):
        size = 64 + 8 * (16 * below + 4)
        parts.append(N.to_bytes(4, "little") + (32 + size).to_bytes(4, "little")
                     + size.to_bytes(4, "little") + record)
    return b"".join(parts) + bytes(4)


def list_chain(levels: int) -> bytes:
    """``levels`` class H objects, each the one element of ``m_o`` of the one before."""
    head = H.to_bytes(4, "little") + bytes(12) + (1).to_bytes(4, "little")
    return head * levels + bytes(4) + bytes(4) * levels


@pytest.mark.parametrize("family", ["shallow objects", "deep objects", "lists of objects"])
def test_nesting_deeper_than_the_limit_fails_fast(family: str) -> None:
    make: Callable[[int], bytes] = {
        "shallow objects": lambda n: chain(n, True),
        "deep objects": lambda n: chain(n, False),
        "lists of objects": list_chain,
    }[family]
    ser = Serializer(SCHEMA, shallow=family != "deep objects")
    data = make(DEEP)
    assert "max_depth" in decode_error(ser, data)
    small = make(300)
    assert calls(lambda: ser.decode(data)) <= calls(lambda: ser.decode(small)) + 100
    assert peak(lambda: ser.decode(data)) <= peak(lambda: ser.decode(small)) + (64 << 10)


def test_the_deep_chain_builder_is_right() -> None:
    for shallow in (True, False):
        ser = Serializer(SCHEMA, shallow=shallow)
        assert ser.encode(ser.decode(chain(100, shallow))) == chain(100, shallow)
    ser = Serializer(SCHEMA)
    value = ser.decode(list_chain(50))
    assert value["m_o"][0]["m_o"][0].type_name == "class H"


# -- growth ----------------------------------------------------------------------------------------

LETTERS = b"abcd"


def text(n: int) -> bytes:
    """``n`` bytes of four letters, random but the same on every run: zlib packs them about
    four to one, so a compressed stream still grows with ``n``."""
    rng = random.Random(n)
    return bytes(rng.choice(LETTERS) for _ in range(n))


def encoded(value: KiObject, *, flags: int = 0, shallow: bool = True) -> bytes:
    return Serializer(SCHEMA, flags=flags, shallow=shallow).encode(value)


def repeated_records(n: int) -> bytes:
    """A deep class H whose ``m_u`` record comes ``n`` times (katsuba keeps the last)."""
    one = encoded(h(m_u=[7]), shallow=False)
    ser = Serializer(SCHEMA, shallow=False)
    start = 8
    records = []
    pos = start
    while pos < len(one):
        size = int.from_bytes(one[pos:pos + 4], "little")
        records.append(one[pos:pos + size // 8])
        pos += size // 8
    m_u = next(r for r in records if r[4:8] == property_hash(
        "unsigned int", "m_u").to_bytes(4, "little"))
    body = b"".join(records) + m_u * n
    data = one[:4] + (32 + 8 * len(body)).to_bytes(4, "little") + body
    assert ser.decode(data)["m_u"] == [7]
    return data


FAMILIES: dict[str, tuple[Callable[[int], bytes], dict[str, Any], tuple[int, ...]]] = {
    "long string": (lambda n: encoded(h(m_s=text(n))), {}, (4000, 8000, 16000)),
    "long wide string": (lambda n: encoded(h(m_w=text(n).decode())), {}, (2000, 4000, 8000)),
    "wide u32 list": (lambda n: encoded(h(m_u=list(range(n)))), {}, (1000, 2000, 4000)),
    "wide bool list": (lambda n: encoded(h(m_b=[i % 3 == 0 for i in range(n)])), {},
                       (8000, 16000, 32000)),
    "wide object list": (lambda n: encoded(h(m_o=[h(m_s=b"x")] * n)), {}, (200, 400, 800)),
    "deep object list": (lambda n: encoded(h(m_o=[h(m_s=b"x")] * n), shallow=False),
                         {"shallow": False}, (200, 400, 800)),
    "compressed string": (lambda n: encoded(h(m_s=text(n)), flags=9), {"flags": 9},
                          (8000, 16000, 32000)),
    "compressed object list": (lambda n: encoded(h(m_o=[h(m_u=[i]) for i in range(n)]),
                                                 flags=8, shallow=False),
                               {"flags": 8, "shallow": False}, (300, 600, 1200)),
    "skipped unknown objects": (
        lambda n: encoded(h(m_o=[KiObject("class U", U, {"m_x": 1})] * n), shallow=False),
        {"shallow": False, "skip_unknown_types": True, "schema": WITHOUT_U}, (300, 600, 1200)),
    "repeated deep records": (repeated_records, {"shallow": False}, (300, 600, 1200)),
    "objects nested to the limit": (lambda n: chain(n, True), {}, (30, 60, 120)),
    "deep objects nested to the limit": (lambda n: chain(n, False), {"shallow": False},
                                         (30, 60, 120)),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_decode_grows_linearly(family: str) -> None:
    make, options, sizes = FAMILIES[family]
    options = dict(options)
    schema = options.pop("schema", SCHEMA)
    ser = Serializer(schema, **options)
    assert_linear(make, ser.decode, sizes)


@pytest.mark.parametrize("shallow", [True, False])
def test_nesting_beyond_the_default_limit_grows_linearly(shallow: bool) -> None:
    ser = Serializer(SCHEMA, shallow=shallow, recursion_limit=DEEP)
    assert_linear(lambda n: chain(n, shallow), ser.decode, (2000, 4000, 8000), memory=False)


def test_claimed_lengths_cost_nothing() -> None:
    ser = Serializer(SCHEMA, flags=2)
    assert_flat(lambda n: claimed("m_u", n, True), ser.decode, (1 << 10, 1 << 20, 1 << 30))
    assert_flat(lambda n: claimed("m_o", n, False), Serializer(SCHEMA).decode,
                (1 << 10, 1 << 20, 1 << 30))
    packed = Serializer(SCHEMA, flags=8, max_expansion=None)
    assert_flat(lambda n: b"\x01" + n.to_bytes(4, "little") + zlib.compress(b"\0" * 64),
                packed.decode, (1 << 16, 1 << 20, 1 << 30))  # (zlib's first block: 32 KiB)


def type_list_of_classes(n: int) -> bytes:
    classes = {}
    for i in range(n):
        name = f"class C{i}"
        classes[str(string_id(name))] = {"name": name, "hash": string_id(name), "properties": {
            f"m_{j}": {"type": t, "id": j, "flags": 31, "hash": property_hash(t, f"m_{j}"),
                       "dynamic": j % 2 == 0}
            for j, t in enumerate(["int", "std::string", f"class C{max(i - 1, 0)}*",
                                   "class Vector3D"])}}
    return json.dumps({"version": 2, "classes": classes}).encode()


def type_list_of_properties(n: int) -> bytes:
    return json.dumps({"class W": {"hash": 1, "properties": {
        f"m_{j}": {"type": "unsigned int", "id": j, "flags": 7, "hash": j, "dynamic": False}
        for j in range(n)}}}).encode()


def type_list_of_options(n: int) -> bytes:
    return json.dumps({"class E": {"hash": 1, "properties": {
        f"m_{j}": {"type": f"enum E{j % 4}", "id": j, "flags": 7, "hash": j, "dynamic": False,
                   "enum_options": {f"O_{k}": k for k in range(n)}}
        for j in range(8)}}}).encode()


@pytest.mark.parametrize("make", [type_list_of_classes, type_list_of_properties,
                                  type_list_of_options], ids=["classes", "properties",
                                                              "enum options"])
def test_load_schema_grows_linearly(make: Callable[[int], bytes]) -> None:
    assert_linear(make, load_schema, (100, 200, 400))


def test_hostile_type_lists_raise_schema_error() -> None:
    for text in (b"[" * DEEP + b"]" * DEEP, b'{"version": 2, "classes": ' * 5000,
                 json.dumps({"class A": {"hash": 2**32}}).encode(),
                 json.dumps({"class A": {"hash": 1, "properties": {
                     "m": {"type": "int", "flags": 1 << 31, "hash": 1}}}}).encode()):
        with pytest.raises(SchemaError):
            load_schema(text)
