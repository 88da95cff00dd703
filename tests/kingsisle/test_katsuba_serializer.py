"""The serializer against katsuba 0.6.0, both ways: katsuba's bytes decode to the same
values, and our bytes are katsuba's bytes (compressed: the same inflated bytes), in shallow and
deep mode, with every combination of the five serializer flags, property masks 7, 0x18 and 0,
over every leaf type and leaf struct, strings, integer and named enums, lists, nested and null
objects, deprecated, delta and masked-out properties."""

from __future__ import annotations

import itertools
import json
import math
import random
import struct
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import load_schema, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import Serializer
from tests.kingsisle.katsuba_oracle import run, tagged
from tests.kingsisle.strategies import body
from tests.kingsisle.typelists import type_list

TYPES = type_list()
SCHEMA = load_schema(TYPES)


def item(n: int) -> KiObject:
    return KiObject("class Item", string_id("class Item"),
                    {"m_id": n, "m_name": b"item %d" % n, "m_on": n % 2 == 0})


def root(rng: random.Random, big: bool) -> KiObject:
    values: dict[str, Any] = {
        "m_bool": True, "m_char": -128, "m_bool2": False, "m_uchar": 255, "m_short": -32768,
        "m_ushort": 65535, "m_wchar": 0x6f22, "m_int": -(1 << 31), "m_uint": (1 << 32) - 1,
        "m_long": 123456, "m_ulong": 7, "m_float": 1.5, "m_double": -2.0 ** -1074,
        "m_u64": (1 << 64) - 1, "m_gid": rng.getrandbits(64), "m_bi3": -4, "m_bui5": 31,
        "m_s24": -(1 << 23), "m_u24": (1 << 24) - 1,
        "m_str": bytes(rng.randrange(256) for _ in range(200 if big else 5)),
        "m_wstr": "wide \u00e9\u6f22" * (30 if big else 1), "m_empty": b"",
        "m_kind": rng.choice([0, 7, 1 << 30]),
        "m_ints": [rng.getrandbits(32) for _ in range(130 if big else 3)],
        "m_items": [item(n) for n in range(3)], "m_child": item(9), "m_none": None,
        "m_old": -5, "m_delta": 77, "m_net": 3,
        "m_color": {"r": 1, "g": 2, "b": 3, "a": 255},
        "m_pos": {"x": 1.5, "y": -2.25, "z": 0.125},
        "m_rot": {"w": 1.0, "x": 0.0, "y": -0.5, "z": 0.25},
        "m_flag3": True,
        "m_euler": {"pitch": 0.5, "yaw": 1.5, "roll": -3.0},
        "m_matrix": {"i": [1.0, 0.0, 0.0], "j": [0.0, 1.0, 0.0], "k": [0.0, 0.0, -1.0]},
        "m_size": {"width": 640, "height": -480},
        "m_point": {"x": -(1 << 31), "y": (1 << 31) - 1},
        "m_upoint": {"x": 0, "y": (1 << 32) - 1},
        "m_bpoint": {"x": 0, "y": 255},
        "m_fpoint": {"x": 2.5, "y": -0.0},
        "m_rect": {"left": -1, "top": 2, "right": 3, "bottom": -4},
        "m_frect": {"left": 0.5, "top": 0.25, "right": 8.0, "bottom": 16.0},
        "m_path": [{"x": float(n), "y": 0.5, "z": -float(n)} for n in range(3)],
        "m_bits": rng.choice([0, 1, 2, 1 << 31]),  # one flag: katsuba's name order is random
        "m_kinds": [0, 7, 1 << 30],
    }
    return KiObject("class Root", string_id("class Root"), values)


def without(obj: KiObject, *names: str) -> KiObject:
    return KiObject(obj.type_name, obj.type_hash, {k: v for k, v in obj.items()
                                                   if k not in names})


OPTIONS = [(flags, shallow, 7) for flags, shallow in itertools.product(range(32), [True, False])]
OPTIONS += [(flags, shallow, mask) for mask in (0x18, 0) for shallow in (True, False)
            for flags in (0, 2, 7, 31)]


def unsigned(v: Any) -> Any:
    """katsuba gives integer-mode enums sign-extended (spec §11.3): compare them unsigned."""
    if isinstance(v, dict):
        return {k: (x & 0xFFFFFFFF if k in ("m_kind", "m_bits") else
                    [e & 0xFFFFFFFF for e in x] if k == "m_kinds" else unsigned(x))
                for k, x in v.items()}
    if isinstance(v, list):
        return [unsigned(x) for x in v]
    return v


@pytest.mark.parametrize(("flags", "shallow", "mask"), OPTIONS)
def test_same_bytes_and_values_as_katsuba(flags: int, shallow: bool, mask: int) -> None:
    rng = random.Random(flags * 2 + shallow)
    values = []
    for big in (False, True, False):
        value = root(rng, big)
        if mask == 7:  # m_net has only the transmit flags: masked out, not written
            value = without(value, "m_net")
        if flags & 16:  # FORBID_DELTA_ENCODE: every delta property needs a value
            value["m_gone"] = 1
        if not shallow:  # deprecated properties are left out in deep mode
            value = without(value, "m_old")
        values.append(value)
    options = {"flags": flags, "shallow": shallow, "property_mask": mask}
    [theirs] = run([{"kind": "serialize", "types": TYPES, "options": options,
                     "values": [tagged(v) for v in values]}])
    ours = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
    assert all(isinstance(t, str) for t in theirs), theirs
    mine = [ours.encode(value) for value in values]
    [back] = run([{"kind": "deserialize", "types": TYPES, "options": options,
                   "blobs": [m.hex() for m in mine]}])
    for value, their_hex, my_bytes, their_view in zip(values, theirs, mine, back, strict=True):
        their_bytes = bytes.fromhex(their_hex)
        assert body(my_bytes, flags) == body(their_bytes, flags)
        if not flags & 8:
            assert my_bytes == their_bytes
        assert tagged(ours.decode(their_bytes)) == tagged(value)
        assert unsigned(their_view) == tagged(value)


def test_bit_flag_names_read_in_any_order() -> None:
    value = without(root(random.Random(5), False), "m_net", "m_gone")
    value["m_bits"] = 3 | (1 << 31)
    options = {"flags": 4, "shallow": True, "property_mask": 7}
    [[theirs]] = run([{"kind": "serialize", "types": TYPES, "options": options,
                       "values": [tagged(value)]}])
    ours = Serializer(SCHEMA, flags=4)
    assert ours.decode(bytes.fromhex(theirs))["m_bits"] == 3 | (1 << 31)
    assert b"B_ONE|B_TWO|B_HIGH" in ours.encode(value)  # the type list's order


def test_compressed_streams_are_capped() -> None:
    value = without(root(random.Random(6), True), "m_net", "m_gone")
    data = Serializer(SCHEMA, flags=8).encode(value)
    assert data[0] == 1  # compressed: it saves bytes
    said_large = data[:1] + (5000).to_bytes(4, "little") + data[5:]
    with pytest.raises(DecodeError, match=r"inflate to 5000 bytes .*max_expansion=0, limit 4096"):
        Serializer(SCHEMA, flags=8, max_expansion=0).decode(said_large)
    lying = data[:1] + (int.from_bytes(data[1:5], "little") + 1).to_bytes(4, "little") + data[5:]
    with pytest.raises(DecodeError, match="not the"):
        Serializer(SCHEMA, flags=8).decode(lying)
    manual = Serializer(SCHEMA, manual_compression=True)
    assert manual.decode(manual.encode(value)) == value


def test_katsuba_reads_what_we_write_in_deep_mode() -> None:
    value = without(root(random.Random(3), True), "m_net", "m_old", "m_gone")
    ours = Serializer(SCHEMA, shallow=False).encode(value)
    [[decoded]] = run([{"kind": "deserialize", "types": TYPES,
                        "options": {"flags": 0, "shallow": False, "property_mask": 7},
                        "blobs": [ours.hex()]}])
    assert decoded == tagged(value)


def test_truncation_gives_decode_errors() -> None:
    value = without(root(random.Random(4), False), "m_net", "m_gone")
    for shallow in (True, False):
        ser = Serializer(SCHEMA, shallow=shallow)
        data = ser.encode(value if shallow else without(value, "m_old"))
        for n in range(len(data)):
            with pytest.raises(DecodeError):
                ser.decode(data[:n])


def test_unknown_classes_are_skipped_like_katsuba() -> None:
    value = without(root(random.Random(7), False), "m_net", "m_old", "m_gone")
    data = Serializer(SCHEMA, shallow=False).encode(value)
    doc = json.loads(TYPES)
    item_hash = str(string_id("class Item"))
    del doc["classes"][item_hash]  # a type list that does not know class Item
    partial_text = json.dumps(doc)
    partial = Serializer(load_schema(partial_text), shallow=False, skip_unknown_types=True)
    decoded = partial.decode(data)
    assert decoded["m_child"] is None and decoded["m_items"] == [None, None, None]
    assert decoded["m_int"] == value["m_int"]
    assert [kind for _, kind, _ in partial.skipped] == ["type"] * 4
    [[theirs]] = run([{"kind": "deserialize", "types": partial_text,
                       "options": {"flags": 0, "shallow": False, "property_mask": 7,
                                   "skip_unknown_types": True},
                       "blobs": [data.hex()]}])
    assert unsigned(theirs) == tagged(decoded)
    with pytest.raises(DecodeError, match="no class"):
        Serializer(load_schema(partial_text), shallow=False).decode(data)
    with pytest.raises(ValueError, match="deep mode"):
        Serializer(SCHEMA, skip_unknown_types=True)


def test_unknown_properties_are_skipped_and_reported() -> None:
    value = without(root(random.Random(8), False), "m_net", "m_old", "m_gone")
    data = Serializer(SCHEMA, shallow=False).encode(value)
    doc = json.loads(TYPES)
    root_hash = str(string_id("class Root"))
    del doc["classes"][root_hash]["properties"]["m_str"]
    partial = Serializer(load_schema(json.dumps(doc)), shallow=False, skip_unknown_types=True)
    decoded = partial.decode(data)
    assert "m_str" not in decoded and decoded["m_wstr"] == value["m_wstr"]
    assert [kind for _, kind, _ in partial.skipped] == ["property"]


def test_float32_nan_payloads_and_overflow() -> None:
    value = without(root(random.Random(9), False), "m_net", "m_gone")
    ser = Serializer(SCHEMA)
    data = bytearray(ser.encode(value))
    at = data.index(struct.pack("<f", 1.5))  # m_float, the first float32 written
    data[at:at + 4] = struct.pack("<I", 0x7F800001)  # a signalling NaN with a payload
    decoded = ser.decode(bytes(data))
    assert decoded["m_float"] != decoded["m_float"]
    assert ser.encode(decoded) == bytes(data)
    value["m_float"] = 1e300  # rounds to infinity, as katsuba's `as f32`
    assert struct.pack("<f", math.inf) in ser.encode(value)
    value["m_float"] = 10 ** 400
    with pytest.raises(EncodeError, match="too large"):
        ser.encode(value)
