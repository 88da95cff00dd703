"""The C encoder (``_encoder_speedups``) against the pure-Python reference encoder.

For every value the public :func:`encode` must give the same bytes, or raise the same error,
with the extension enabled and disabled; where the C entry accepts a value its bytes must be
the reference's. Random schemas and values (:mod:`tests.flatbuffers.fbs_gen`, plus mutations
that produce odd or invalid values), hypothesis over a fixed schema with every kind the C
encoder handles, and targeted checks that it handles the benchmark's values and gives up on
everything outside its subset. CI (``CI=true``) builds the extension, so there it must be
loaded; elsewhere the module is skipped when no compiler built it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.flatbuffers import _accel, _encoder_program, load_schema
from gameserde.flatbuffers._encode_plans import _MISSING, _plans
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.json_input import from_json
from gameserde.flatbuffers.schema import FbsSchema
from tests.flatbuffers import fbs_gen
from tests.flatbuffers.test_reader import SEED_SCHEMA

pytestmark = pytest.mark.skipif(_accel.encoder is None and os.environ.get("CI") != "true",
                                reason="the C encoder is not built (no compiler?)")

@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def c_encode(schema: FbsSchema, value: Any, root_type: str | None = None,
             file_identifier: Any = _MISSING, size_prefixed: bool = False) -> bytes | None:
    """The C entry alone (as ``encode`` calls it): bytes, or None when it gives up."""
    assert _accel.encoder is not None
    plans = _plans(schema)
    name = root_type if root_type is not None else schema.root
    assert name is not None
    plan = plans.table(schema.table(name).name)
    ident = schema.file_identifier if file_identifier is _MISSING else file_identifier
    return _encoder_program.encode(plans, plan, value, ident, size_prefixed)


def outcome(enabled: bool, schema: FbsSchema, value: Any, **options: Any) -> Any:
    """The public result with the extension switched on or off: bytes, or the error."""
    _accel.ENABLED = enabled
    try:
        return encode(schema, value, **options)
    except Exception as exc:  # any error must be the same either way
        return ("raised", type(exc).__name__, str(exc))
    finally:
        _accel.ENABLED = True


def check(schema: FbsSchema, value: Any, **options: Any) -> bytes | None:
    """Assert the C path and the reference agree; return the C entry's bytes (or None)."""
    want = outcome(False, schema, value, **options)
    got = outcome(True, schema, value, **options)
    assert got == want, f"value: {value!r}"
    if type(value) is dict and not options.get("force_defaults"):
        direct = c_encode(schema, value, options.get("root_type"),
                          options.get("file_identifier", _MISSING),
                          options.get("size_prefixed", False))
        if direct is not None:
            assert direct == want, f"value: {value!r}"
        return direct
    return None


def test_extension_is_loaded() -> None:
    # CI builds it (and so does `pip install -e .` with a compiler): it must not go missing
    assert _accel.encoder is not None
    assert _accel.encoder.API_VERSION == _accel.API_VERSION == 1


# ---------------------------------------------------------------------------------------------
# (1) random schemas and values

_ODD = [None, 1.5, -0.0, float("nan"), "x", "5", "0x10", 2**70, -(2**70), -1, 0, True, False,
        (), [], {}, "\ud800", b"ab", bytearray(b"a"), 10**400, 255, 65536, "V0", "F0_1",
        [1, 2], (1, 2), ["a"], [{"f0": 1}], [None], {"x": 1}]


def _mutate(rnd: random.Random, value: Any) -> Any:
    """``value`` with a few odd changes: odd field values, unknown keys, lists as tuples."""
    if isinstance(value, dict):
        out = {k: _mutate(rnd, v) for k, v in value.items()}
        r = rnd.random()
        if r < 0.08 and out:
            out[rnd.choice(list(out))] = rnd.choice(_ODD)
        elif r < 0.1:
            out["unknown"] = 1
        elif r < 0.12 and out:
            del out[rnd.choice(list(out))]
        return out
    if isinstance(value, list):
        items = [_mutate(rnd, v) for v in value]
        r = rnd.random()
        if r < 0.1:
            return tuple(items)
        if r < 0.13 and items:
            items[rnd.randrange(len(items))] = rnd.choice(_ODD)
        return items
    return value


def test_random_schemas_and_values() -> None:
    rnd = random.Random(20240611)
    accepted = total = 0
    for _ in range(300):
        fbs, root = fbs_gen.random_schema(rnd)
        schema = load_schema(fbs)
        for _ in range(4):
            value = fbs_gen.random_value(rnd, schema, root)
            for v in (value, _mutate(rnd, value)):
                options: dict[str, Any] = {}
                if rnd.random() < 0.2:
                    options["size_prefixed"] = True
                if rnd.random() < 0.1:
                    options["file_identifier"] = rnd.choice([None, "WXYZ", b"QRST", "AB"])
                total += 1
                if check(schema, v, **options) is not None:
                    accepted += 1
    # the generator uses every feature, most of them outside the C subset somewhere in a
    # value; still, a good part of the values must go through C
    assert accepted > total // 3, (accepted, total)


# ---------------------------------------------------------------------------------------------
# (2) hypothesis over a fixed schema with every kind the C encoder handles

ALL_FBS = """
namespace T;
enum Color : byte { Red = 0, Green = 1, Blue = 2 }
enum Big : ulong { Zero = 0, Huge = 18446744073709551615 }
enum Flags : ubyte (bit_flags) { A, B, C }
struct Inner { a:byte; b:double; }
struct Outer { i:Inner; c:Color; arr:[short:3]; ins:[Inner:2]; f:float; }
struct Small { x:ushort; }
table Leaf { s:string; n:int = 7; }
union Any { Leaf, Small, Str: string }
table Root {
  b:bool = true; i8:byte = -3; u8:ubyte; i16:short = 300; u16:ushort; i32:int;
  u32:uint = 4000000000; i64:long = -5; u64:ulong = 18446744073709551615;
  f32:float = 1.5; f64:double = nan; opt:int = null; optf:float = null;
  color:Color = Blue; big:Big; flags:Flags;
  name:string; data:[ubyte]; shorts:[short]; longs:[ulong]; floats:[float];
  doubles:[double]; bools:[bool]; colors:[Color]; strings:[string];
  outer:Outer; small:Small; outers:[Outer]; leaf:Leaf; leaves:[Leaf];
  any:Any; old:int (deprecated); req:string (required);
  sh:string (shared); sh2:string (shared); fas:[Inner] (force_align: 16);
  fab:[ubyte] (force_align: 8); fal:[Leaf] (force_align: 32); fas2:[short] (force_align: 4);
}
root_type Root;
file_identifier "ROOT";
"""

ALL = load_schema(ALL_FBS)

_INT_RANGES = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767), "u16": (0, 65535),
               "i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1), "i64": (-2**63, 2**63 - 1),
               "u64": (0, 2**64 - 1)}


def _int(lo: int, hi: int) -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0]), st.booleans(),
                     st.integers(lo - 3, lo - 1) | st.integers(hi + 1, hi + 3))


_FLOAT = st.one_of(st.floats(), st.floats(width=32), st.integers(-2**70, 2**70),
                   st.sampled_from([3.5e38, 3.4028235e38, 3.4028236e38, 1e-46, -0.0, 1.5]))
_STRING = st.one_of(st.text(max_size=12), st.binary(max_size=6))
_INNER = st.fixed_dictionaries({"a": _int(-128, 127), "b": _FLOAT})
_OUTER = st.fixed_dictionaries({
    "i": _INNER, "c": st.sampled_from(["Red", "Green", "Blue", 0, 2, "Purple"]),
    "arr": st.lists(_int(-32768, 32767), min_size=3, max_size=3),
    "ins": st.tuples(_INNER, _INNER), "f": _FLOAT})
_SMALL = st.fixed_dictionaries({"x": _int(0, 65535)})
_LEAF = st.fixed_dictionaries({}, optional={"s": _STRING, "n": _int(-2**31, 2**31 - 1)})


@st.composite
def _any(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["Leaf", "Small", "Str", 1, 2, 3, "NONE", 0, 9]))
    value: Any
    if kind in ("Leaf", 1):
        value = draw(_LEAF)
    elif kind in ("Small", 2):
        value = draw(_SMALL)
    else:
        value = draw(_STRING)
    return {"any_type": kind, "any": value}


_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    **{k: _int(*r) for k, r in _INT_RANGES.items()},
    "b": st.booleans() | st.integers(0, 2), "f32": _FLOAT, "f64": _FLOAT,
    "opt": st.none() | st.integers(-5, 5), "optf": st.none() | _FLOAT,
    "color": st.sampled_from(["Red", "Green", "Blue", 0, 1, 2, 5, "Blue Red"]),
    "big": st.sampled_from(["Zero", "Huge", 0, 2**64 - 1]),
    "flags": st.sampled_from(["A", "B", "C", "A C", 0, 7, 3]),
    "name": _STRING,
    "data": st.binary(max_size=5) | st.lists(st.integers(0, 255), max_size=5),
    "shorts": st.lists(_int(-32768, 32767), max_size=4),
    "longs": st.lists(_int(0, 2**64 - 1), max_size=3).map(tuple),
    "floats": st.lists(_FLOAT, max_size=4), "doubles": st.lists(_FLOAT, max_size=3),
    "bools": st.lists(st.booleans(), max_size=4),
    "colors": st.lists(st.sampled_from(["Red", "Blue", 1]), max_size=4),
    "strings": st.lists(_STRING, max_size=4),
    "outer": _OUTER, "small": _SMALL, "outers": st.lists(_OUTER, max_size=3),
    "leaf": _LEAF, "leaves": st.lists(_LEAF, max_size=4), "old": st.integers(0, 3),
    "req": _STRING,
    "sh": st.sampled_from(["a", "b", b"a", "\u00e9", "\u00e9".encode()]),
    "sh2": st.sampled_from(["a", "b", b"b", bytearray(b"a"), "", "ab"]),
    "fas": st.lists(_INNER, max_size=3), "fab": st.binary(max_size=5),
    "fal": st.lists(_LEAF, max_size=2), "fas2": st.lists(_int(-32768, 32767), max_size=3),
}


@st.composite
def root_values(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(sorted(_FIELDS)), unique=True, max_size=12))
    if draw(st.integers(0, 9)):
        names.append("req")
    value = {name: draw(_FIELDS[name]) for name in dict.fromkeys(names)}
    if draw(st.booleans()):
        value.update(draw(_any()))
    items = list(value.items())
    order = draw(st.permutations(range(len(items))))
    return dict(items[i] for i in order)


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(value=root_values(), size_prefixed=st.booleans())
def test_fixed_schema_values(value: dict[str, Any], size_prefixed: bool) -> None:
    check(ALL, value, size_prefixed=size_prefixed)


def test_fixed_schema_typical_value_goes_through_c() -> None:
    value = {
        "req": "r", "b": False, "i8": -128, "u8": 255, "i16": 1, "u16": 65535, "i32": -1,
        "u32": 1, "i64": 2**63 - 1, "u64": 0, "f32": 0.1, "f64": 2.5, "opt": 0, "optf": 0.0,
        "color": "Red", "big": "Huge", "flags": "B", "name": "héllo \U0001f600",
        "data": b"\x00\x01", "shorts": [1, -2, 3], "longs": (5, 2**64 - 1), "floats": [1e40],
        "doubles": [math.inf], "bools": [True, False], "colors": ["Green", 2],
        "strings": ["a", b"b", bytearray(b"c")],
        "outer": {"i": {"a": 1, "b": 2.0}, "c": "Green", "arr": [1, 2, 3],
                  "ins": ({"a": 1, "b": 2}, {"b": 3.0, "a": -1}), "f": 1},
        "small": {"x": 9}, "outers": [], "leaf": {"s": "x"}, "leaves": [{}, {"n": 7}],
        "any_type": "Small", "any": {"x": 1}, "old": 3,
    }
    assert check(ALL, value) is not None
    for tag, member in (("Leaf", {"s": "l"}), (3, "str"), ("Str", b"raw"), (2, {"x": 0})):
        assert check(ALL, {"req": "", "any": member, "any_type": tag}) is not None
    assert check(ALL, {"req": "x"}, size_prefixed=True, file_identifier=b"WXYZ") is not None
    assert check(ALL, {"req": "x"}, file_identifier=None) is not None
    assert check(ALL, {"req": "x", "name": None, "opt": None, "any": None}) is not None


def test_shared_strings_and_force_align() -> None:
    value = {"req": "a", "sh": b"b", "name": "b", "sh2": "b", "strings": ["a"], "fab": b"xyz",
             "fas": [{"a": 1, "b": 2.0}], "fal": [{"s": "a"}, {}], "fas2": [1]}
    got = check(ALL, value)
    assert got is not None
    assert got.count(b"\x01\x00\x00\x00b\x00") == 2  # "b" shared once, plus "name"


# ---------------------------------------------------------------------------------------------
# (3) the benchmark's values go through C; everything outside the subset gives up

MONSTER: dict[str, Any] = {
    "pos": {"x": 1.0, "y": 2.0, "z": 3.0}, "hp": 300, "name": "Orc",
    "inventory": list(range(10)), "color": "Red",
    "weapons": [{"name": "Sword", "damage": 3}, {"name": "Axe", "damage": 5}],
    "equipped_type": "Weapon", "equipped": {"name": "Axe", "damage": 5},
    "path": [{"x": 4.0, "y": 5.0, "z": 6.0}, {"x": 1.0, "y": 2.0, "z": 3.0}],
}
WEAPONS_FBS = """namespace Bench;
table Weapon { name:string; damage:short; }
table Weapons { items:[Weapon]; }
root_type Weapons;
"""


def test_benchmark_values_go_through_c() -> None:
    monster = load_schema(SEED_SCHEMA)
    got = check(monster, MONSTER)
    assert got is not None and len(got) == 208
    weapons = load_schema(WEAPONS_FBS)
    value = {"items": [{"name": f"w{i % 1000}", "damage": i % 30000} for i in range(5000)]}
    assert check(weapons, value) is not None
    assert check(weapons, {"items": []}) is not None


GIVE_UP_FBS = """
enum F : ubyte (bit_flags) { A, B }
enum E : byte { W, X, Y }
table Item { id:int (key); v:int; }
table Named { name:string (key); }
struct KeyS { k:int (key); }
table Node { next:Node; v:int; }
table Nest { x:int; }
union U { Item, Nest }
table R {
  i:int; f:float; b:ubyte; s:string; sh:string (shared); flags:F; e:E;
  items:[Item]; names:[Named]; keys:[KeyS]; node:Node; nested:[ubyte] (nested_flatbuffer: "Nest");
  flex:[ubyte] (flexbuffer); o64:string (offset64); v64:[int] (vector64);
  fa:[int] (force_align: 16); ints:[int]; u:U; uv:[U]; req:string (required); nest:Nest;
  t:bool; h:uint (hash: "fnv1a_32");
}
root_type R;
"""


class _Sub(dict):  # type: ignore[type-arg]
    pass


@dataclasses.dataclass
class _NestDC:
    x: int


def _chain(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"v": 0}
    for i in range(depth):
        value = {"next": value, "v": i}
    return value


_GIVE_UPS: dict[str, dict[str, Any]] = {
    "unknown key": {"zzz": 1},
    "$schema key": {"$schema": "x"},
    "None for a plain scalar": {"i": None},
    "missing required field": {},
    "int out of range": {"b": 256},
    "negative for unsigned": {"b": -1},
    "huge int": {"i": 2**80},
    "float in int field": {"i": 1.0},
    "int subclass": {"i": enum.IntEnum("K", "a").a},
    "number with spaces": {"i": " 5"},
    "qualified enum name": {"i": "E.X"},
    "float text for an int": {"i": "1.5"},
    "bool word for an int": {"i": "true"},
    "unknown enum name": {"e": "Z"},
    "bit_flags with two spaces": {"flags": "A  B"},
    "unknown bit flag": {"flags": "A Z"},
    "hexadecimal float text": {"f": "0x1p3"},
    "string for a hash field": {"h": "5"},
    "huge int for a float": {"f": 10**400},
    "bool for a float": {"f": True},
    "str subclass": {"s": enum.StrEnum("S", "a").a},
    "lone surrogate": {"s": "a\ud800"},
    "keyed table vector": {"items": [{"id": 2}, {"id": 1}]},
    "keyed string vector": {"names": [{"name": "b"}, {"name": "a"}]},
    "keyed struct vector": {"keys": [{"k": 2}, {"k": 1}]},
    "nested_flatbuffer": {"nested": {"x": 1}},
    "nested_flatbuffer bytes": {"nested": b"\x00"},
    "flexbuffer": {"flex": b"\x00\x01\x01"},
    "offset64": {"o64": "x"},
    "vector64": {"v64": [1]},
    "vector of unions": {"uv_type": ["Item"], "uv": [{"id": 1}]},
    "union type vector without values": {"uv_type": [1, "Nest"]},
    "union without its type": {"u": {"id": 1}},
    "union NONE": {"u_type": "NONE", "u": {"id": 1}},
    "union bad tag": {"u_type": 7, "u": {"id": 1}},
    "union tag name unknown": {"u_type": "Zzz", "u": {"id": 1}},
    "table as a Mapping subclass": {"nest": _Sub(x=1)},
    "table as a dataclass": {"nest": _NestDC(1)},
    "table as a list": {"nest": [1]},
    "vector as a range": {"ints": range(2)},
    "vector as a set": {"ints": {1}},
    "bytes for an int vector": {"ints": b"ab"},
    "string vector item": {"names": [{"name": 5}]},
    "recursion deeper than 64": {"node": _chain(70)},
    "non-str key": {1: 2},
}


@pytest.mark.parametrize("case", sorted(_GIVE_UPS))
def test_gives_up(case: str) -> None:
    schema = load_schema(GIVE_UP_FBS)
    value = {"req": "r", **_GIVE_UPS[case]} if case != "missing required field" else {}
    assert c_encode(schema, value) is None
    check(schema, value)


def test_accepted_edge_cases() -> None:
    schema = load_schema(GIVE_UP_FBS)
    for extra in ({"items": [{"id": 2}]}, {"keys": [{"k": 2}]}, {"items": []},
                  {"node": _chain(40)}, {"flags": "B"}, {"e": "Y"}, {"i": True},
                  {"f": 1e300}, {"f": -1e-50}, {"f": 2**64}, {"u_type": 2, "u": {"x": 1}},
                  {"u": {"id": 1}, "u_type": "Item"},
                  {"s": None, "node": None, "u": None, "ints": (1, True)},
                  {"sh": "x"}, {"fa": [1, 2]}, {"fa": ()}, {"i": "5"}, {"i": "-0x10"},
                  {"flags": "A B"}, {"f": "1.5"}, {"f": "-Infinity"}, {"f": "nan"},
                  {"t": "true"}, {"t": "0x1"}, {"h": 5}, {"e": "2"}):
        assert check(schema, {"req": "r", **extra}) is not None, extra


def test_not_called_for_other_entry_points() -> None:
    schema = load_schema(GIVE_UP_FBS)
    # dict subclasses at the root, dataclasses and force_defaults take the reference
    for value, options in ((_Sub(req="r"), {}), ({"req": "r", "i": 0},
                                                 {"force_defaults": True})):
        check(schema, value, **options)
    assert from_json(schema, '{req: "r", i: 5}') == encode(schema, {"req": "r", "i": 5})
    assert c_encode(schema, {"req": "r"}, file_identifier="\u00e9\u00e9") is not None
    for ident in ("AB", b"ABCDE", 1234, bytearray(b"ABCD"), "\u00e9"):
        assert c_encode(schema, {"req": "r"}, file_identifier=ident) is None
        check(schema, {"req": "r"}, file_identifier=ident)


def test_disabled_switch_uses_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = _encoder_program.encode

    def spy(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(_encoder_program, "encode", spy)
    schema = load_schema(SEED_SCHEMA)
    _accel.ENABLED = False
    off = encode(schema, MONSTER)
    assert calls == []
    _accel.ENABLED = True
    assert encode(schema, MONSTER) == off
    assert len(calls) == 1
