"""The C twin of the ObjectProperty serializer gives exactly what the pure-Python reference
gives: the same bytes, the same values (types and float bits included), the same errors (it
gives up and lets the reference decide whenever it meets anything but the common case), on
the differential tests' objects under every flag combination, mode and mask, on generated
values (valid and not), and on every truncation and many mutations of their encodings."""

from __future__ import annotations

import itertools
import json
import random
import struct
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import _accel, load_schema, property_hash, string_id
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import _FLOATS, _INTS, _STRUCTS, Serializer
from tests.fuzz.harness import agreeing
from tests.kingsisle.test_katsuba_serializer import OPTIONS, SCHEMA, TYPES, root, without
from tests.kingsisle.typelists import DELTA, DEPRECATED, PROPERTIES

ITEM = string_id("class Item")
ROOT = string_id("class Root")


def test_built() -> None:
    """The extension is built and on wherever the suite runs (the test command installs
    with a compiler), so the comparisons below compare two paths."""
    assert _accel.speedups is not None and _accel.ENABLED


@contextmanager
def c_twin(enabled: bool) -> Iterator[None]:
    saved = _accel.ENABLED
    _accel.ENABLED = enabled
    try:
        yield
    finally:
        _accel.ENABLED = saved


def shape(v: Any) -> Any:
    """``v`` with every type made explicit (float bits exact, NaN payloads included, the
    padding bits and trailing bytes an object kept)."""
    if isinstance(v, dict):
        return (type(v).__name__, getattr(v, "type_name", None), getattr(v, "type_hash", None),
                getattr(v, "padding", None), getattr(v, "trailing", None),
                [(k, shape(x)) for k, x in v.items()])
    if isinstance(v, list | tuple):
        return (type(v).__name__, [shape(x) for x in v])
    if isinstance(v, float):
        return ("float", struct.pack("<d", v))
    return (type(v).__name__, v)


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", shape(fn()))
    except (DecodeError, EncodeError) as e:
        return (type(e).__name__, str(e), getattr(e, "offset", None), e.path)
    except Exception as e:  # what the reference raises for odd values, C must too
        return (type(e).__name__, str(e))


def both(fn: Callable[[], Any]) -> Any:
    """The outcome of ``fn`` with the C twin, which must be the reference's."""
    with recursion_room(10_000):  # values may nest beyond Python's default limit
        return agreeing(fn, outcome)


def case_value(flags: int, shallow: bool, mask: int, big: bool, seed: int) -> KiObject:
    """A root object of the differential tests, as they write it in this mode."""
    value = root(random.Random(seed), big)
    if mask == 7:
        value = without(value, "m_net")
    if flags & 16:
        value["m_gone"] = 1
    if not shallow:
        value = without(value, "m_old")
    return value


def test_c_serves_the_common_case() -> None:
    """The C twin reads and writes the differential data itself (it does not give up) in
    every mode."""
    for flags, shallow, mask in OPTIONS:
        ser = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
        value = case_value(flags, shallow, mask, True, flags)
        body = _accel.encode(ser, value)
        assert body is not None
        read = _accel.decode(ser, body, flags)
        assert read is not None and read[1] == len(body)
        decoded = read[0]
        assert type(decoded) is KiObject
        assert shape(decoded) == shape(ser.decode(ser.encode(value)))
        assert decoded.m_items[0].type_name == "class Item" and decoded.m_int == value["m_int"]


def test_the_differential_data_in_every_mode() -> None:
    for (flags, shallow, mask), big in itertools.product(OPTIONS, (False, True)):
        ser = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
        value = case_value(flags, shallow, mask, big, flags * 2 + big)
        assert both(partial(ser.encode, value))[0] == "ok"
        assert both(partial(ser.decode, ser.encode(value)))[0] == "ok"
        absent = without(value, "m_delta")  # an absent delta property
        both(partial(ser.encode, absent))
        lenient = Serializer(SCHEMA, flags=flags & ~16, shallow=shallow, property_mask=mask)
        both(partial(ser.decode, lenient.encode(absent)))


MUTATED = [(0, True, 7), (0, False, 7), (1, True, 0x18), (2, True, 7), (16, True, 7),
           (18, False, 0x18), (4, True, 7), (6, False, 7)]


def test_truncations_and_mutations() -> None:
    rng = random.Random(11)
    for flags, shallow, mask in MUTATED:
        ser = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
        data = ser.encode(case_value(flags, shallow, mask, False, flags))
        inputs = [data[:n] for n in range(len(data))]
        for i in range(len(data)):
            for flip in (0x01, 0xFF):
                inputs.append(data[:i] + bytes([data[i] ^ flip]) + data[i + 1:])
        for _ in range(200):
            mutated = bytearray(data)
            for _ in range(rng.randrange(1, 6)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            inputs.append(bytes(mutated))
        for _ in range(40):
            at = rng.randrange(len(data))
            inputs.append(data[:at] + data[at + rng.randrange(1, 9):])  # bytes left out
            inputs.append(data[:at] + bytes(rng.randrange(256) for _ in range(4)) + data[at:])
        for blob in inputs:
            both(partial(ser.decode, blob))


def partial_schema() -> Any:
    """The type list without class Item and without Root's m_str."""
    doc = json.loads(TYPES)
    del doc["classes"][str(ITEM)]
    del doc["classes"][str(ROOT)]["properties"]["m_str"]
    return load_schema(json.dumps(doc))


def decoded_and_skipped(ser: Serializer, data: bytes) -> tuple[KiObject, list[Any]]:
    return ser.decode(data), list(ser.skipped)


def test_unknown_types_and_properties_skipped_as_the_reference_does() -> None:
    schema = partial_schema()
    rng = random.Random(12)
    for flags in (0, 1, 2, 16, 18):
        full = Serializer(SCHEMA, flags=flags, shallow=False)
        data = full.encode(case_value(flags, False, 7, True, flags))
        ser = Serializer(schema, flags=flags, shallow=False, skip_unknown_types=True)
        if not flags & 1:
            assert _accel.decode(ser, data, flags) is not None
            assert sorted(kind for _, kind, _ in ser.skipped) == ["property"] + ["type"] * 4
        inputs = [data] + [data[:n] for n in range(0, len(data), 3)]
        for _ in range(300):
            at = rng.randrange(len(data))
            inputs.append(data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:])
        for blob in inputs:
            both(partial(decoded_and_skipped, ser, blob))


# -- generated values ----------------------------------------------------------------------

class Int(int):
    pass


class Bytes(bytes):
    pass


class Dict(dict[str, Any]):
    pass


def leaf(type_name: str) -> st.SearchStrategy[Any]:
    if type_name == "bool":
        return st.booleans()
    if type_name in _INTS:
        bits, signed, _ = _INTS[type_name]
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return st.integers(low, high) | st.sampled_from([low, high])
    if type_name in _FLOATS:
        return st.floats(width=32) | st.floats() if _FLOATS[type_name][0] == 32 else st.floats()
    if type_name == "std::string":
        return st.binary(max_size=140) | st.text(max_size=10)
    if type_name == "std::wstring":
        return st.text(st.characters() | st.sampled_from(["\ud800", "\udfff"]), max_size=140)
    raise AssertionError(type_name)


def items() -> st.SearchStrategy[Any]:
    return st.none() | st.builds(
        lambda i, name, on: KiObject("class Item", ITEM, {"m_id": i, "m_name": name,
                                                           "m_on": on}),
        leaf("unsigned int"), leaf("std::string"), st.booleans())


def struct_value(type_name: str) -> st.SearchStrategy[Any]:
    kind, keys = _STRUCTS[type_name]
    if type_name == "class Matrix3x3":
        return st.fixed_dictionaries({k: st.lists(leaf(kind), min_size=3, max_size=3)
                                      for k in keys})
    return st.fixed_dictionaries({k: leaf(kind) for k in keys})


def prop_value(type_name: str) -> st.SearchStrategy[Any]:
    if type_name.startswith("enum"):
        return st.integers(0, (1 << 32) - 1) | st.sampled_from([0, 1, 7, 1 << 30, 1 << 31])
    if type_name == "class Item*":
        return items()
    if type_name in _STRUCTS:
        return struct_value(type_name)
    return leaf(type_name)


def roots() -> st.SearchStrategy[KiObject]:
    required, optional = {}, {}
    for name, type_name, flags, dynamic, _ in PROPERTIES["class Root"]:
        strategy = prop_value(type_name)
        if dynamic:
            strategy = st.lists(strategy, max_size=130 if type_name == "unsigned int" else 6)
        if flags & (DELTA | DEPRECATED) or flags == 0x18:
            optional[name] = strategy
        else:
            required[name] = strategy
    return st.builds(lambda d: KiObject("class Root", ROOT, d),
                     st.fixed_dictionaries(required, optional=optional))


modes = st.tuples(st.integers(0, 31), st.booleans(), st.sampled_from([7, 0x18, 0]))


@given(value=roots(), mode=modes)
@settings(max_examples=150, deadline=None)
def test_generated_values(value: KiObject, mode: tuple[int, bool, int]) -> None:
    flags, shallow, mask = mode
    ser = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
    if both(lambda: ser.encode(value))[0] == "ok":
        data = ser.encode(value)
        assert both(lambda: ser.decode(data))[0] == "ok"


JUNK = [None, True, 0, -1, 1 << 31, 1 << 32, 1 << 64, Int(3), 1.5, float("nan"), 1e300,
        10 ** 400, "K_B", "B_ONE|B_TWO", "x", "\ud800", b"", b"x", Bytes(b"y"),
        bytearray(b"z"), memoryview(b"m"), [], [1, 2], (1.0, 2.0), [None], [True, False],
        {}, {"x": 1.0, "y": 2.0, "z": 3.0}, Dict(x=1.0, y=2.0, z=3.0),
        {"r": 1, "g": 2, "b": 3, "a": 4}, {"i": [1.0] * 3, "j": (0.0,) * 3, "k": [1.0, 2.0]},
        KiObject("class Item", ITEM, {"m_id": 1, "m_name": b"", "m_on": True}),
        KiObject("class Item", ITEM, {"m_id": 1}),
        KiObject("class Item", ITEM, {"m_id": 1, "m_name": b"", "m_on": True, "m_x": 0}),
        KiObject("class Nope", 12345, {}), KiObject("class Item", Int(ITEM), {})]


@given(value=roots(), mode=modes, field=st.sampled_from(PROPERTIES["class Root"]),
       junk=st.sampled_from(JUNK))
@settings(max_examples=300, deadline=None)
def test_odd_values(value: KiObject, mode: tuple[int, bool, int], field: Any,
                    junk: Any) -> None:
    """A property holding a value of another type, out of range or an enum by name: the
    same bytes or the same error."""
    flags, shallow, mask = mode
    value[field[0]] = junk
    ser = Serializer(SCHEMA, flags=flags, shallow=shallow, property_mask=mask)
    both(lambda: ser.encode(value))


def test_odd_roots_and_keys() -> None:
    value = case_value(0, True, 7, False, 1)
    ser = Serializer(SCHEMA)
    for odd in (None, {}, Dict(value), KiObject("class Root", ROOT, {**value, "m_x": 1}),
                KiObject("class Root", ROOT, {k: v for k, v in value.items() if k != "m_int"})):
        both(partial(ser.encode, odd))


ENUMS = string_id("class E")
ENUM_TYPES = load_schema(json.dumps({"version": 2, "classes": {str(ENUMS): {
    "name": "class E", "hash": ENUMS, "properties": {
        "m_e": {"type": "enum Plain", "id": 0, "flags": 31, "hash": 1, "dynamic": False,
                "enum_options": {"P_A": 0, "P_B": 5, "P_B2": 5, "\u00c9T\u00c9": 6,
                                 "P_\ud800": 9, "": 12, "__DEFAULT": "P_A"}},
        "m_b": {"type": "enum Bits", "id": 1, "flags": 31 | (1 << 20), "hash": 2,
                "dynamic": False,
                "enum_options": {"F_1": 1, "F_2": 2, "F_12": 3, "F_\ud800": 64,
                                 "F_\u00e9": 128, "F_HI": 1 << 31}}}}}}))


def enum_stream(plain: bytes, bits: bytes) -> bytes:
    return (ENUMS.to_bytes(4, "little") + len(plain).to_bytes(2, "little") + plain
            + len(bits).to_bytes(2, "little") + bits)


def test_enums_by_name() -> None:
    ser = Serializer(ENUM_TYPES, flags=4)
    plain = [b"P_A", b"P_B", b"P_B2", "\u00c9T\u00c9".encode(), b"", b" P_A", b"P_C",
             b"P_\xed\xa0\x80", b"\xff", b"P_A|P_B"]
    bits = [b"", b"|", b"F_1", b"F_1|F_2", b" F_1 |\tF_2\x1c", b"F_1||F_HI|", b"F_12|F_1",
            b"F_3", b"F_1|F_\xc3\xa9", b"F_1\xc2\xa0", b"\xff", b"F_1 F_2", b" | "]
    served = 0
    for p, b in itertools.product(plain, bits):
        data = enum_stream(p, b)
        both(partial(ser.decode, data))
        served += _accel.decode(ser, data, 4) is not None
    assert served == 5 * 8  # the options, and bit flags of ASCII names (the rest: the reference)
    for e, b in itertools.product([0, 5, 6, 9, 12, 7, -1, 1 << 32, "P_B", True],
                                  [0, 1, 3, 64, 128, 1 << 31, 0xFFFFFFFF, 4, -1, "F_1"]):
        for flags in (4, 6):
            value = KiObject("class E", ENUMS, {"m_e": e, "m_b": b})
            both(partial(Serializer(ENUM_TYPES, flags=flags).encode, value))
    assert _accel.encode(ser, KiObject("class E", ENUMS, {"m_e": 5, "m_b": 3})) == enum_stream(
        b"P_B", b"F_1|F_2|F_12")


# -- hostile input and limits ---------------------------------------------------------------

NODE = string_id("class N")
NODES = load_schema(json.dumps({"version": 2, "classes": {str(NODE): {
    "name": "class N", "hash": NODE, "properties": {
        "m_n": {"type": "class N*", "id": 0, "flags": 31, "pointer": True, "dynamic": False,
                "hash": property_hash("class N*", "m_n")},
        "m_v": {"type": "unsigned int", "id": 1, "flags": 31, "dynamic": True,
                "hash": property_hash("unsigned int", "m_v")},
        "m_s": {"type": "std::string", "id": 2, "flags": 31, "dynamic": False,
                "hash": property_hash("std::string", "m_s")}}}}}))


def chain(n: int) -> bytes:
    return NODE.to_bytes(4, "little") * n + bytes(4) + bytes(6) * n


def test_nesting_around_the_limits() -> None:
    for limit, depths in ((127, (126, 127, 128)), (3000, (999, 1000, 1001, 1200))):
        ser = Serializer(NODES, recursion_limit=limit)
        for depth in depths:
            kind = both(partial(ser.decode, chain(depth)))[0]
            assert kind == ("ok" if depth < limit else "DecodeError")


def test_lying_lengths_allocate_nothing() -> None:
    """A list or string length far beyond the bytes left: the C twin gives up before
    allocating (the reference reports it)."""
    head = NODE.to_bytes(4, "little") + bytes(4)
    cases = [(Serializer(NODES), head + b"\xff\xff\xff\xff" + bytes(64)),
             (Serializer(NODES, flags=2), head + b"\xff\xff\xff\xff" + bytes(64)),
             (Serializer(NODES, flags=2), head + b"\x00" + b"\xff\xff\xff\xff" + bytes(64)),
             (Serializer(NODES, shallow=False),
              head[:4] + b"\xff" * 8 + property_hash("unsigned int", "m_v").to_bytes(4, "little")
              + b"\xff\xff\xff\xff" + bytes(64))]
    for ser, data in cases:
        tracemalloc.start()
        try:
            assert both(partial(ser.decode, data))[0] == "DecodeError"
            with c_twin(True):
                tracemalloc.reset_peak()
                outcome(partial(ser.decode, data))
                assert tracemalloc.get_traced_memory()[1] < 100_000
        finally:
            tracemalloc.stop()


def test_subclasses_that_hook_the_reference_keep_it() -> None:
    calls = []

    class Spy(Serializer):
        def _object(self, r: Any, depth: int) -> Any:
            calls.append(("read", depth))
            return super()._object(r, depth)

        def _write_object(self, obj: Any, w: Any, depth: int) -> None:
            calls.append(("write", depth))
            super()._write_object(obj, w, depth)

    class Plain(Serializer):
        pass

    value = case_value(0, True, 7, False, 2)
    data = Spy(SCHEMA).encode(value)
    assert Spy(SCHEMA).decode(data) == value
    assert {kind for kind, _ in calls} == {"read", "write"}
    assert _accel.decode(Plain(SCHEMA), data, 0) == (value, len(data))
    assert _accel.encode(Plain(SCHEMA), value) == data


def test_the_program_follows_the_serializer() -> None:
    """The compiled program is cached per serializer (and shared by the serializers of a
    schema in one mode), and remade when the mode or mask changes."""
    value = case_value(0, True, 7, False, 3)
    ser = Serializer(SCHEMA)
    data = ser.encode(value)
    program = ser._program
    assert ser.encode(value) == data and ser._program is program
    other = Serializer(SCHEMA, flags=2)
    other.encode(value)
    assert other._program[1] is program[1]
    ser.shallow = False
    deep = without(value, "m_old")
    assert both(lambda: ser.encode(deep)) == both(
        lambda: Serializer(SCHEMA, shallow=False).encode(deep))
    assert ser._program is not program
