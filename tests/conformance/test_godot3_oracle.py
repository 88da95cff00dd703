"""Differential tests against the real Godot 3 engine (Debian ``godot3-server`` 3.2.3).

Every case is checked in both directions with ``profile="godot3"``:

1. the engine encodes the value (``var2bytes``) -> we decode its bytes to the expected value,
   and we encode the same value -> byte-identical to the engine (NodePath pads masked);
2. we encode -> the engine decodes (``bytes2var``) and re-encodes (``full_objects=true``) ->
   the bytes we expect for the decoded value, and ``typeof`` agrees.

On top: a deterministic random generator (``random.Random(1234)``) that emits a Python value
and its GDScript constructor expression, the framing APIs (``File.store_var`` with and without
``endian_swap``, ``StreamPeerBuffer.put_var`` in both endiannesses, ``PacketPeerStream.put_var``,
``Marshalls.variant_to_base64`` and their readers), and decoder error agreement on malformed
input. The engine runs once per test session for all of it.
"""

from __future__ import annotations

import base64
import math
import random
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError
from gameserde.godot import (
    AABB,
    RID,
    Basis,
    Color,
    Dictionary,
    NodePath,
    PackedColorArray,
    PackedFloat32Array,
    PackedInt32Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    Plane,
    Quaternion,
    Rect2,
    Transform2D,
    Transform3D,
    Vector2,
    Vector3,
    base64_to_variant,
    decode,
    decode_prefix,
    encode,
    get_var,
    iter_packets,
    iter_vars,
    put_packet,
    store_var,
    variant_to_base64,
)
from gameserde.godot.types import godot_key
from tests.conformance.godot3_oracle import (
    LIVE_OBJECT_CLASSES,
    EngineRun,
    Freed,
    LiveObject,
    ScriptBuilder,
    deep_recursion,
    f32,
    first_difference,
    gd_expr,
    mask_frames,
    mask_node_path_pads,
    reference_object,
    resolve,
    resource_object,
    round_f32,
    run_godot3,
    scripted_resource,
    to_full,
)

pytestmark = pytest.mark.oracle

P = "godot3"
INF, NAN = math.inf, math.nan
FLT_MAX = float(struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0])  # 3.4028234663852886e38
FLT_MIN = 2.0**-126
FLT_TRUE_MIN = 2.0**-149
FAKE_IDS = {i: 0x0123456789AB0000 + 17 * i + 1 for i in range(len(LIVE_OBJECT_CLASSES))}
"""Instance ids written into our bytes for the engine to decode (any non-zero id will do)."""


def bits(hex64: str) -> float:
    """The double with these (big-endian hex) bits."""
    return float(struct.unpack(">d", bytes.fromhex(hex64))[0])


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    id: str
    value: Any
    """What we encode (and what the engine builds from ``gd_expr(value)``)."""
    full_objects: bool = False
    expected: Any = None
    """What decoding must give; default: ``value`` with math components rounded to f32."""
    gd: str = ""

    def __post_init__(self) -> None:
        if self.expected is None:
            self.expected = round_f32(self.value)
        if not self.gd:
            self.gd = gd_expr(self.value)


def _hand_cases() -> list[Case]:
    c: list[Case] = []

    def add(cid: str, value: Any, **kw: Any) -> None:
        c.append(Case(cid, value, **kw))

    add("nil", None)
    add("bool-true", True)
    add("bool-false", False)
    ints = {"0": 0, "1": 1, "m1": -1, "i32max": 2**31 - 1, "i32min": -(2**31),
            "i32max+1": 2**31, "i32min-1": -(2**31) - 1, "2e32": 2**32, "2e53+1": 2**53 + 1,
            "i64min": -(2**63), "i64max": 2**63 - 1, "big": 123456789012345}
    for name, i in ints.items():
        add(f"int-{name}", i)
    floats = {
        "0": 0.0, "m0": -0.0, "0.1": 0.1, "1.5": 1.5, "m2.25": -2.25, "third": 1 / 3,
        "1e39": 1e39, "m1e39": -1e39, "5e-324": 5e-324, "flt-max": FLT_MAX,
        "m-flt-max": -FLT_MAX, "flt-min": FLT_MIN, "2e-149": FLT_TRUE_MIN, "2e-150": 2.0**-150,
        "inf": INF, "minf": -INF, "nan": NAN, "mnan": bits("fff8000000000000"),
        "nan-payload": bits("7ff8000000000123"), "snan": bits("7ff0000000000001"),
        "2e24": 16777216.0, "2e24+1": 16777217.0, "1e300": 1e300,
        "gdscript-flt-max-literal": bits("47efffffe0000001"),
    }
    for name, x in floats.items():
        add(f"float-{name}", x)
    strings = {"empty": "", "len1": "a", "len2": "ab", "len3": "abc", "len4": "abcd",
               "len5": "abcde", "latin1": "é", "cjk": "日本語", "emoji": "😀", "mixed": "a😀bé",
               "ctrl": "line\nbreak\ttab", "quotes": 'q"b\\s', "2byte-pad": "ñ",
               "3byte-pad": "€", "long": "x" * 301}
    for name, s in strings.items():
        add(f"str-{name}", s)
    add("str-bom", "\ufeffbom", expected="bom")  # written as EF BB BF, stripped on decode
    add("str-bom-only", "\ufeff", expected="")
    # 3.2.3 strings may hold lone surrogates (written as 3-byte CESU sequences), in a String
    # and in a PoolStringArray alike
    add("str-lone-surrogate", "a\ud800", gd='"a" + char(55296)')
    add("strings-lone-surrogate", PackedStringArray(["\udfff"]),
        gd="PoolStringArray([char(57343)])")

    add("vec2-zero", Vector2())
    add("vec2", Vector2(1.5, -2.25))
    add("vec2-rounded", Vector2(0.1, 1 / 3))
    add("vec2-special", Vector2(INF, -INF))
    add("vec2-nan-m0", Vector2(NAN, -0.0))
    add("vec2-tiny", Vector2(FLT_TRUE_MIN, 1e-50))
    add("vec2-flt-max", Vector2(FLT_MAX, -FLT_MAX))
    add("rect2", Rect2(Vector2(1, 2), Vector2(3, 4.5)))
    add("rect2-neg", Rect2(Vector2(-1e6, 0.1), Vector2(-0.0, 7)))
    add("vec3", Vector3(1, -2, 3.75))
    add("vec3-rounded", Vector3(0.2, 0.3, 1e-3))
    add("t2d-identity", Transform2D())
    add("t2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)))
    add("plane", Plane(Vector3(0, 1, 0), -4.5))
    add("plane-unnormalised", Plane(Vector3(1, 2, 3), 0.1))
    add("quat-identity", Quaternion())
    add("quat", Quaternion(0.5, -0.5, 0.25, 0.75))
    add("aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)))
    add("basis-identity", Basis())
    # Basis(x=(1,2,3), y=(4,5,6), z=(7,8,9)) is written row-major: 1,4,7,2,5,8,3,6,9
    add("basis-rowmajor", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)))
    add("basis-rounded", Basis(Vector3(0.1, 0.2, 0.3), Vector3(-0.0, 1e-3, 7),
                               Vector3(INF, NAN, -1)))
    add("transform", Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
                                 Vector3(10, 11, 12)))
    add("transform-identity", Transform3D())
    add("color", Color(0.25, 0.5, 0.75, 1.0))
    add("color-rounded", Color(0.1, 0.2, 0.3, 0.4))
    add("color-hdr", Color(2.5, -1, 0, 0))

    paths = {
        "empty": NodePath(),
        "rel1": NodePath(("a",)),
        "rel-pads": NodePath(("a", "bb", "ccc", "dddd", "eeeee")),
        "abs": NodePath(("root", "Main"), (), True),
        "abs-sub": NodePath(("root", "Player"), ("position", "x"), True),
        "sub-only": NodePath((), ("modulate",)),
        "abs-sub-only": NodePath((), ("a",), True),
        "dots": NodePath(("..", "x", ".")),
        "unicode": NodePath(("nodé", "日本"), ("prop",)),
    }
    for name, np in paths.items():
        add(f"nodepath-{name}", np)
    # NodePath("/") is written absolute with no names (flags 1), but the engine decodes it to
    # the empty path: NodePath(names, subnames, absolute) returns early when both are empty.
    add("nodepath-root-only", NodePath((), (), True), expected=NodePath())
    add("rid", RID())

    for i, cls in enumerate(LIVE_OBJECT_CLASSES):
        add(f"object-id-{cls.lower()}{i}", LiveObject(i))
    add("object-freed", Freed())
    add("object-freed-full", Freed(), full_objects=True)
    add("object-reference-full", reference_object(), full_objects=True)
    add("object-resource-full", resource_object(), full_objects=True)
    add("object-resource-named", resource_object("héllo", True), full_objects=True)
    add("object-scripted-int", scripted_resource(7), full_objects=True)
    add("object-scripted-nested", scripted_resource([1, "two", Vector2(3, 4), None]),
        full_objects=True)
    add("object-scripted-resource", scripted_resource(resource_object("inner")),
        full_objects=True)
    add("objects-in-array", [LiveObject(0), Freed(), LiveObject(2), None, LiveObject(0)])
    add("objects-in-dict", {"a": LiveObject(1), "b": [LiveObject(3)]})
    add("objects-full-in-array", [reference_object(), resource_object("r"), Freed(), 5],
        full_objects=True)
    add("objects-full-in-dict", {"res": resource_object("x", True), "n": None},
        full_objects=True)

    add("dict-empty", {})
    add("dict-str", {"a": 1, "b": "two", "c": 3.5})
    add("dict-order", {"z": 1, "a": 2, "m": 3})
    add("dict-int-float-bool-keys", Dictionary([(1, "int"), (1.0, "float"), (True, "bool")]))
    add("dict-mixed-keys", Dictionary([
        (None, "nil"), (-7, "neg"), (2.5, "real"), (Vector2(1, 2), "v2"),
        (NodePath(("a",)), "path"), ("a", "str"), (False, "false"), ([1, 2], "array"),
        (Dictionary([("k", 1)]), "dict"), (Color(1, 0, 0, 1), "color"),
    ]))
    add("dict-nested", {"a": {"b": {"c": {"d": [1, {"e": None}]}}}})
    add("array-empty", [])
    add("array-nil", [None])
    add("array-nested-empty", [[[[]]]])
    add("array-mixed", [1, 2.5, "s", None, True, Vector3(1, 2, 3), [], {}, b"\x01"])
    deep: Any = "leaf"
    for i in range(12):
        deep = [deep, {"level": i}] if i % 2 else {"d": deep, "i": i}
    add("deep-12", deep)

    for n in range(6):
        add(f"bytes-len{n}", bytes(range(250, 250 + n)) if n else b"")
    add("bytes-all", bytes(range(256)))
    add("int32s-empty", PackedInt32Array([]))
    add("int32s", PackedInt32Array([0, 1, -1, 2**31 - 1, -(2**31), 65536]))
    add("reals-empty", PackedFloat32Array([]))
    add("reals", PackedFloat32Array([0.0, -0.0, 0.1, 1.5, INF, -INF, NAN, FLT_MAX, FLT_TRUE_MIN]))
    add("strings-empty", PackedStringArray())
    add("strings-one-empty", PackedStringArray([""]))
    add("strings", PackedStringArray(["", "a", "ab", "abc", "abcd", "é", "日本語", "😀"]))
    add("vec2s-empty", PackedVector2Array([]))
    add("vec2s", PackedVector2Array([Vector2(1, 2), Vector2(-0.0, 0.1), Vector2(INF, NAN)]))
    add("vec3s-empty", PackedVector3Array([]))
    add("vec3s", PackedVector3Array([Vector3(1, 2, 3), Vector3(0.1, 0.2, 0.3)]))
    add("colors-empty", PackedColorArray([]))
    add("colors", PackedColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.4)]))
    add("pools-in-dict", {"b": b"ab", "i": PackedInt32Array([5]),
                          "s": PackedStringArray(["x"]), "c": PackedColorArray([Color()])})
    # Values a C float cannot hold: the engine stores infinity (gameserde raises EncodeError)
    add("vec2-overflow", Vector2(1e39, -1e39))
    return c


# -- random generator -------------------------------------------------------------------------

EDGE_INTS = [0, 1, -1, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**32, -(2**63), 2**63 - 1,
             255, 65536, 2**53 + 1]
EDGE_FLOATS = [0.0, -0.0, 0.1, 1.5, 1e39, 5e-324, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, INF, -INF,
               NAN, 16777217.0, 1 / 3]
CHARS = [*"abcXYZ019 _-.", "é", "ß", "ñ", "日", "本", "😀", "🎮", "\n", '"', "\\", "€"]
NAME_CHARS = [*"abcdefghxyzAB019_", "é", "日"]


class Generator:
    """Deterministic random values of every Godot 3 type (and their GDScript expression,
    via :func:`gd_expr`)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def int_(self) -> int:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(EDGE_INTS)
        if r < 0.7:
            return self.rng.randint(-(2**31), 2**31 - 1)
        return self.rng.randint(-(2**63), 2**63 - 1)

    def float_(self) -> float:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(EDGE_FLOATS)
        if r < 0.55:
            return f32(self.rng.uniform(-1e4, 1e4))
        if r < 0.8:
            return self.rng.uniform(-1e6, 1e6)
        if r < 0.9:
            return float(self.rng.randint(-1000, 1000))
        return float(struct.unpack("<d", self.rng.getrandbits(64).to_bytes(8, "little"))[0])

    def comp(self) -> float:
        """A math-type component (rounded to f32 by both sides)."""
        r = self.rng.random()
        if r < 0.1:
            return self.rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, INF, -INF, NAN, 0.1, FLT_MAX,
                                    FLT_TRUE_MIN])
        if r < 0.6:
            return f32(self.rng.uniform(-100, 100))
        if r < 0.8:
            return self.rng.uniform(-1e6, 1e6)
        return float(self.rng.randint(-50, 50))

    def str_(self, max_len: int = 6) -> str:
        return "".join(self.rng.choice(CHARS) for _ in range(self.rng.randint(0, max_len)))

    def name(self) -> str:
        return "".join(self.rng.choice(NAME_CHARS) for _ in range(self.rng.randint(1, 5)))

    def v2(self) -> Vector2:
        return Vector2(self.comp(), self.comp())

    def v3(self) -> Vector3:
        return Vector3(self.comp(), self.comp(), self.comp())

    def node_path(self) -> NodePath:
        names = tuple(self.name() for _ in range(self.rng.randint(0, 3)))
        subs = tuple(self.name() for _ in range(self.rng.randint(0, 2)))
        # an absolute path needs a name (see the "nodepath-root-only" case)
        return NodePath(names, subs, bool(names) and self.rng.random() < 0.5)

    def object_(self, full: bool) -> Any:
        r = self.rng.random()
        if r < 0.1:
            return Freed()
        if not full:
            return LiveObject(self.rng.randrange(len(LIVE_OBJECT_CLASSES)))
        if r < 0.4:
            return reference_object()
        if r < 0.85:
            return resource_object(self.str_(4), self.rng.random() < 0.5)
        return scripted_resource(self.scalar(full))

    def scalar(self, full: bool) -> Any:
        rng = self.rng
        kind = rng.randrange(25)
        n = rng.randint(0, 4)
        makers: list[Any] = [
            lambda: None, lambda: rng.random() < 0.5, self.int_, self.float_, self.str_,
            self.v2, lambda: Rect2(self.v2(), self.v2()), self.v3,
            lambda: Transform2D(self.v2(), self.v2(), self.v2()),
            lambda: Plane(self.v3(), self.comp()),
            lambda: Quaternion(self.comp(), self.comp(), self.comp(), self.comp()),
            lambda: AABB(self.v3(), self.v3()),
            lambda: Basis(self.v3(), self.v3(), self.v3()),
            lambda: Transform3D(Basis(self.v3(), self.v3(), self.v3()), self.v3()),
            lambda: Color(self.comp(), self.comp(), self.comp(), self.comp()),
            self.node_path, RID, lambda: self.object_(full),
            lambda: bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 9))),
            lambda: PackedInt32Array([rng.randint(-(2**31), 2**31 - 1) for _ in range(n)]),
            lambda: PackedFloat32Array([self.comp() for _ in range(n)]),
            lambda: PackedStringArray([self.str_() for _ in range(n)]),
            lambda: PackedVector2Array([self.v2() for _ in range(n)]),
            lambda: PackedVector3Array([self.v3() for _ in range(n)]),
            lambda: PackedColorArray([Color(self.comp(), self.comp(), self.comp(), self.comp())
                                      for _ in range(n)]),
        ]
        return makers[kind]()

    def key(self) -> Any:
        r = self.rng.random()
        if r < 0.4:
            return self.str_()
        if r < 0.6:
            return self.int_()
        if r < 0.7:
            return float(self.rng.randint(1, 100)) + 0.5
        if r < 0.8:
            return self.rng.random() < 0.5
        if r < 0.9:
            return Vector2(float(self.rng.randint(-9, 9)), 0.25)
        return [self.rng.randint(0, 3), self.str_(2)]

    def value(self, depth: int, full: bool) -> Any:
        r = self.rng.random()
        if depth >= 4 or r < 0.6:
            return self.scalar(full)
        if r < 0.8:
            return [self.value(depth + 1, full) for _ in range(self.rng.randint(0, 4))]
        if r < 0.9:
            return {self.str_(): self.value(depth + 1, full)
                    for _ in range(self.rng.randint(0, 4))}
        d = Dictionary()
        seen: set[Any] = set()
        for _ in range(self.rng.randint(0, 4)):
            k = self.key()
            if godot_key(k) not in seen:
                seen.add(godot_key(k))
                d[k] = self.value(depth + 1, full)
        return d


def _random_cases(count: int = 320, seed: int = 1234) -> list[Case]:
    gen = Generator(seed)
    cases = []
    for i in range(count):
        full = i % 2 == 1
        value = gen.value(0, full)
        kind = type(value).__name__.lower()
        cases.append(Case(f"rand-{i:03d}-{kind}-{'full' if full else 'id'}", value, full))
    return cases


CASES = _hand_cases() + _random_cases()
CASE_IDS = [c.id for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS)


# -- malformed and non-canonical input --------------------------------------------------------


@dataclass
class DecodeCase:
    id: str
    hex: str
    allow_objects: bool = False
    divergent: bool = False
    """The engine fails and gameserde, by design, does not (it never instantiates)."""
    compare_value: bool = True
    """Compare the decoded values (not only success and type). Off where the engine
    instantiates a class and its re-encoding lists every stored property of the instance."""

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.hex.replace(" ", ""))


def _nested_arrays(levels: int) -> str:
    return "13000000 01000000 " * (levels - 1) + "13000000 00000000"


DECODE_CASES = [
    DecodeCase("empty", ""),
    DecodeCase("one-byte", "00"),
    DecodeCase("three-bytes", "000000"),
    DecodeCase("type-27", "1b000000"),
    DecodeCase("type-27-payload", "1b000000 00000000"),
    DecodeCase("type-255", "ff000000"),
    DecodeCase("type-26-empty", "1a000000 00000000"),
    DecodeCase("byte1-ignored-int", "02ff0000 05000000"),
    DecodeCase("byte1-ignored-string", "04ab0000 01000000 61000000"),
    DecodeCase("int-truncated", "02000000 0500"),
    DecodeCase("int64-truncated", "02000100 01000000"),
    DecodeCase("int64-small", "02000100 05000000 00000000"),
    DecodeCase("bool-2", "01000000 02000000"),
    DecodeCase("bool-truncated", "01000000 01"),
    DecodeCase("bool-flag64", "01000100 01000000"),
    DecodeCase("float-truncated", "03000000 0000"),
    DecodeCase("float64-truncated", "03000100 00000000 0000"),
    DecodeCase("float64-small", "03000100 00000000 0000f83f"),
    DecodeCase("string-no-length", "04000000"),
    DecodeCase("string-past-end", "04000000 05000000 616263"),
    DecodeCase("string-pad-missing", "04000000 05000000 6162636465"),
    DecodeCase("string-len-ffffffff", "04000000 ffffffff 61626364"),
    DecodeCase("string-len-7fffffff", "04000000 ffffff7f 61626364"),
    DecodeCase("string-len-7ffffffd", "04000000 fdffff7f 61626364"),
    DecodeCase("string-bad-utf8", "04000000 01000000 ff000000"),
    DecodeCase("string-overlong-utf8", "04000000 02000000 c0af0000"),
    DecodeCase("string-truncated-utf8", "04000000 02000000 e2820000"),
    DecodeCase("string-cesu-surrogate", "04000000 03000000 eda08000"),
    DecodeCase("string-cesu-pair", "04000000 06000000 eda0bded b8800000"),
    DecodeCase("string-overlong-3byte", "04000000 03000000 e0808000"),
    DecodeCase("string-lone-continuation", "04000000 01000000 80000000"),
    DecodeCase("string-bad-after-ascii", "04000000 03000000 610fff00"),
    DecodeCase("string-bad-after-nul", "04000000 03000000 6100ff00"),
    DecodeCase("string-u10000", "04000000 04000000 f0908080"),
    DecodeCase("string-uffff", "04000000 03000000 efbfbf00"),
    # 3.2.3's parse_utf8 decodes sequences past U+10FFFF, even 5- and 6-byte forms; a Python
    # str cannot hold such code points, so gameserde rejects them (docs/godot.md)
    DecodeCase("string-utf8-u110000", "04000000 04000000 f4908080", divergent=True),
    DecodeCase("string-utf8-5byte", "04000000 05000000 f8888080 80000000", divergent=True),
    DecodeCase("string-utf8-6byte", "04000000 06000000 fc848080 80800000", divergent=True),
    DecodeCase("strings-bad-utf8-element", "17000000 01000000 02000000 61ff0000"),
    DecodeCase("nodepath-bad-utf8", "0f000000 01000080 00000000 00000000 01000000 ff000000"),
    DecodeCase("object-class-bad-utf8", "11000000 01000000 ff000000", allow_objects=True),
    DecodeCase("string-nul-inside", "04000000 03000000 61006200"),
    DecodeCase("string-bom", "04000000 04000000 efbbbf61"),
    DecodeCase("string-nonzero-pad", "04000000 01000000 61ffffff"),
    DecodeCase("vector2-truncated", "05000000 0000803f"),
    DecodeCase("vector2-flag64", "05000100 0000803f 00000040"),
    DecodeCase("transform-truncated", "0d000000" + "0000803f" * 11),
    DecodeCase("color-truncated", "0e000000 0000803f 0000803f 0000803f"),
    DecodeCase("nodepath-old-format", "0f000000 01000000 61000000"),
    DecodeCase("nodepath-header-truncated", "0f000000 01000080 00000000"),
    DecodeCase("nodepath-name-truncated", "0f000000 01000080 00000000 00000000 05000000 6162"),
    DecodeCase("nodepath-counts-huge", "0f000000 ffffffff ffffffff 00000000"),
    DecodeCase("nodepath-property-flag", "0f000000 01000080 00000000 02000000 "
                                         "01000000 61000000 01000000 62000000"),
    DecodeCase("rid-bare", "10000000"),
    DecodeCase("object-id-truncated", "11000100 01000000"),
    DecodeCase("object-id-zero", "11000100 00000000 00000000"),
    DecodeCase("object-id", "11000100 39300000 00000000"),
    DecodeCase("object-full-not-allowed", "11000000 09000000 5265666572656e6365000000 "
                                          "01000000 06000000 73637269707400 00 00000000"),
    DecodeCase("object-full-allowed", "11000000 09000000 5265666572656e6365000000 "
                                      "01000000 06000000 73637269707400 00 00000000",
               allow_objects=True),
    DecodeCase("object-full-empty-class", "11000000 00000000", allow_objects=True),
    DecodeCase("object-full-empty-class-not-allowed", "11000000 00000000"),
    DecodeCase("object-full-truncated-property", "11000000 09000000 5265666572656e6365000000 "
                                                 "01000000 06000000 73637269707400 00",
               allow_objects=True),
    DecodeCase("object-full-negative-count", "11000000 09000000 5265666572656e6365000000 "
                                             "ffffffff", allow_objects=True, compare_value=False),
    DecodeCase("object-full-unknown-class", "11000000 03000000 466f6f00 00000000",
               allow_objects=True, divergent=True),
    DecodeCase("dict-count-past-end", "12000000 01000000"),
    DecodeCase("dict-count-ffffffff", "12000000 ffffffff 02000000 01000000"),
    DecodeCase("dict-count-bit31-only", "12000000 00000080"),
    DecodeCase("dict-missing-value", "12000000 01000000 02000000 01000000"),
    DecodeCase("dict-duplicate-keys", "12000000 02000000 04000000 01000000 61000000 "
                                      "02000000 01000000 04000000 01000000 61000000 "
                                      "02000000 02000000"),
    DecodeCase("dict-duplicate-int-float-keys", "12000000 03000000 02000000 01000000 "
                                                "04000000 01000000 61000000 "
                                                "02000000 01000000 04000000 01000000 62000000 "
                                                "03000000 0000803f 04000000 01000000 63000000"),
    DecodeCase("dict-zero-and-minus-zero-keys", "12000000 02000000 03000000 00000000 "
                                                "02000000 01000000 03000000 00000080 "
                                                "02000000 02000000"),
    # Godot compares float keys with NaN == NaN (hash_compare_scalar): the second key replaces
    # the first. Python's float NaN never equals another NaN object.
    DecodeCase("dict-nan-keys", "12000000 02000000 03000100 00000000 0000f87f "
                                "02000000 01000000 03000100 00000000 0000f87f "
                                "02000000 02000000"),
    DecodeCase("dict-nan-vector2-keys", "12000000 02000000 05000000 0000c07f 00000000 "
                                        "02000000 01000000 05000000 0000c07f 00000000 "
                                        "02000000 02000000"),
    DecodeCase("array-count-bit31", "13000000 01000080 02000000 07000000"),
    DecodeCase("array-count-ffffffff", "13000000 ffffffff 00000000"),
    DecodeCase("array-element-truncated", "13000000 02000000 02000000 07000000 0200"),
    DecodeCase("array-bad-inner-type", "13000000 01000000 1b000000"),
    DecodeCase("array-flag-bits", "13000300 01000000 02000000 07000000"),
    DecodeCase("bytes-past-end", "14000000 05000000 01020304"),
    DecodeCase("bytes-count-ffffffff", "14000000 ffffffff 01020304"),
    DecodeCase("bytes-no-pad-at-end", "14000000 01000000 41"),
    DecodeCase("int32s-past-end", "15000000 02000000 01000000"),
    DecodeCase("int32s-count-ffffffff", "15000000 ffffffff 01000000"),
    DecodeCase("int32s-count-overflow", "15000000 00000040 01000000"),
    DecodeCase("int32s-count-wraps-to-4", "15000000 01000040 aaaaaaaa"),
    DecodeCase("reals-count-wraps-to-4", "16000000 01000040 aaaaaaaa"),
    DecodeCase("reals-truncated", "16000000 01000000 0000"),
    DecodeCase("strings-count-negative", "17000000 ffffffff"),
    DecodeCase("strings-no-nul", "17000000 01000000 03000000 61626300"),
    DecodeCase("strings-past-end", "17000000 02000000 02000000 61000000"),
    DecodeCase("strings-element-past-end", "17000000 01000000 09000000 61000000"),
    DecodeCase("vec2s-count-overflow", "18000000 00000020 00000000"),
    DecodeCase("vec2s-count-wraps-to-8", "18000000 01000020 aaaaaaaa bbbbbbbb"),
    DecodeCase("vec3s-count-wraps-to-8", "19000000 56555515 aaaaaaaa bbbbbbbb"),
    DecodeCase("colors-count-wraps-to-16", "1a000000 01000010 " + "aaaaaaaa" * 4),
    DecodeCase("vec3s-truncated", "19000000 01000000 0000803f 0000803f"),
    DecodeCase("colors-truncated", "1a000000 01000000 0000803f"),
    DecodeCase("trailing-bytes", "02000000 05000000 ffffffff ff"),
    DecodeCase("deep-3000", _nested_arrays(3000)),
]


# ---------------------------------------------------------------------------------------------
# Framing

FRAME_VALUES: list[Any] = [
    "hello", 42, -(2**40), 0.1, -0.0, Vector3(1, 2, 3.5), NodePath(("root", "a"), ("b",), True),
    {"k": [1, 2.5, None]}, PackedStringArray(["", "x"]), b"\x01\x02\x03", [], None,
]
FRAME_FULL: list[Any] = [reference_object(), resource_object("r", True), [reference_object()]]
FRAME_GROUPS = {"plain": (FRAME_VALUES, False), "full": (FRAME_FULL, True)}
FRAMINGS = ["file-le", "file-be", "stream-le", "stream-be", "packet", "b64"]


def _ours_framed(framing: str, values: list[Any], full: bool) -> bytes:
    if framing.startswith(("file", "stream")):
        be = framing.endswith("-be")
        return b"".join(store_var(v, big_endian=be, profile=P, full_objects=full)
                        for v in values)
    if framing == "packet":
        return b"".join(put_packet(v, profile=P, full_objects=full) for v in values)
    raise ValueError(framing)


# ---------------------------------------------------------------------------------------------
# The engine run (one per session)


@dataclass
class Ours:
    """Our encodings, made before the engine runs (the engine decodes them)."""

    bytes_: dict[str, bytes]
    errors: dict[str, str]


def _encode_ours(case: Case) -> bytes:
    return encode(resolve(case.value, FAKE_IDS), profile=P, full_objects=case.full_objects)


@pytest.fixture(scope="session")
def godot3_run(godot3_exe: str, tmp_path_factory: pytest.TempPathFactory
               ) -> tuple[EngineRun, Ours]:
    work: Path = tmp_path_factory.mktemp("godot3")
    assert all(ch.isalnum() or ch in "/_-." for ch in str(work)), work
    sb = ScriptBuilder()
    ours = Ours({}, {})
    for case in CASES:
        sb.encode(case.id, case.gd, case.full_objects)
        try:
            ours.bytes_[case.id] = _encode_ours(case)
        except Exception as e:  # reported by the direction-2 test
            ours.errors[case.id] = f"{type(e).__name__}: {e}"
            continue
        sb.roundtrip(case.id, ours.bytes_[case.id], case.full_objects)
    for dc in DECODE_CASES:
        sb.roundtrip("bad-" + dc.id, dc.data, dc.allow_objects)

    for group, (values, full) in FRAME_GROUPS.items():
        exprs = "[" + ", ".join(gd_expr(v) for v in values) + "]"
        flag = "true" if full else "false"
        for framing in FRAMINGS:
            fid = f"{framing}-{group}"
            path = f'"{work}/{fid}.bin"'
            if framing.startswith("file"):
                swap = "true" if framing.endswith("-be") else "false"
                sb.raw(f'_fr_file("{fid}", {path}, {exprs}, {flag}, {swap})')
            elif framing.startswith("stream"):
                be = "true" if framing.endswith("-be") else "false"
                sb.raw(f'_fr_stream("{fid}", {exprs}, {flag}, {be})')
            elif framing == "packet":
                sb.raw(f'_fr_packet("{fid}", {exprs}, {flag})')
            else:
                sb.raw(f'_fr_b64("{fid}", {exprs}, {flag})')
            # the other way: the engine reads what we framed
            n = len(values)
            if framing == "b64":
                for i, v in enumerate(values):
                    text = variant_to_base64(v, profile=P, full_objects=full)
                    sb.raw(f'_get_b64("{fid}/{i}", "{text}", {flag})')
                continue
            b64 = base64.b64encode(_ours_framed(framing, values, full)).decode()
            if framing.startswith("file"):
                swap = "true" if framing.endswith("-be") else "false"
                sb.raw(f'_get_file("{fid}", {path}, "{b64}", {n}, {swap}, {flag})')
            elif framing.startswith("stream"):
                be = "true" if framing.endswith("-be") else "false"
                sb.raw(f'_get_stream("{fid}", "{b64}", {n}, {be}, {flag})')
            else:
                sb.raw(f'_get_packet("{fid}", "{b64}", {n}, {flag})')
    return run_godot3(godot3_exe, sb.source(), work), ours


# ---------------------------------------------------------------------------------------------
# Helpers


def _hexdiff(actual: bytes, expected: bytes) -> str:
    i = next((i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e),
             min(len(actual), len(expected)))
    return (f"first difference at byte {i} (lengths {len(actual)} / {len(expected)})\n"
            f"  actual:   {actual.hex(' ', 4)}\n  expected: {expected.hex(' ', 4)}")


def assert_same_bytes(actual: bytes, expected: bytes, what: str) -> None:
    assert actual == expected, f"{what}: {_hexdiff(actual, expected)}"


def _reencoded(value: Any) -> bytes:
    """What the engine prints for a decoded value: ``var2bytes(v, true)``."""
    with deep_recursion():
        return encode(to_full(value), profile=P, full_objects=True, max_depth=5000)


def assert_typeof(engine_type: int, expected: bytes) -> None:
    """``typeof`` of the engine's decoded value is the type id we expect. A null Object
    (object id 0, or a full Object with an empty class name) is ``TYPE_OBJECT`` holding null
    in the engine and ``None`` in Python; both re-encode as NIL."""
    if engine_type == 17 and expected == bytes(4):
        return
    assert engine_type == expected[0], f"typeof {engine_type}, expected {expected[0]}"


def _engine_bytes(run: EngineRun, case: Case) -> bytes:
    data = run.data("E1", case.id)
    assert data is not None, f"the engine printed no bytes for {case.id} ({case.gd})"
    return data


# ---------------------------------------------------------------------------------------------
# 1. engine encodes -> we decode, and we encode byte-identically


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_engine_bytes_decode_to_expected(case: Case, godot3_run: tuple[EngineRun, Ours]
                                         ) -> None:
    run, _ = godot3_run
    data = _engine_bytes(run, case)
    value, used = decode_prefix(data, profile=P, allow_objects=case.full_objects)
    assert used == len(data)
    expected = resolve(case.expected, run.object_ids)
    diff = first_difference(value, expected)
    assert diff is None, f"{diff}\n  engine bytes: {data.hex(' ', 4)}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_we_encode_like_the_engine(case: Case, godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    engine = _engine_bytes(run, case)
    ours = encode(resolve(case.value, run.object_ids), profile=P,
                  full_objects=case.full_objects)
    assert mask_node_path_pads(ours) == ours, "our NodePath pad bytes are not zero"
    assert_same_bytes(ours, mask_node_path_pads(engine), f"encode({case.value!r})")


# ---------------------------------------------------------------------------------------------
# 2. we encode -> engine decodes and re-encodes


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_engine_decodes_our_bytes(case: Case, godot3_run: tuple[EngineRun, Ours]) -> None:
    run, ours = godot3_run
    error = ours.errors.get(case.id)
    assert error is None, f"we could not encode {case.value!r}: {error}"
    rec = run.get("D2", case.id)
    assert rec is not None, (f"the engine refused our bytes {ours.bytes_[case.id].hex(' ', 4)}"
                             f"\n{run.log(case.id)}")
    engine = base64.b64decode(rec[1])
    expected = _reencoded(resolve(case.expected, FAKE_IDS))
    assert_typeof(int(rec[0]), expected)
    assert_same_bytes(mask_node_path_pads(engine), expected, "var2bytes(bytes2var(ours), true)")


def test_case_counts() -> None:
    """The generated set covers every Godot 3 type id, several hundred cases in all."""
    assert len(CASES) >= 400
    type_ids: set[int] = set()
    for case in CASES:
        try:
            data = encode(resolve(case.value, FAKE_IDS), profile=P,
                          full_objects=case.full_objects)
        except Exception:
            continue
        type_ids.add(data[0])
    assert type_ids >= set(range(27)), sorted(set(range(27)) - type_ids)


# ---------------------------------------------------------------------------------------------
# 5. decoder error agreement


@pytest.mark.parametrize("dc", DECODE_CASES, ids=[d.id for d in DECODE_CASES])
def test_decode_errors_agree(dc: DecodeCase, godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    rec = run.get("D2", "bad-" + dc.id)
    engine_ok = rec is not None
    try:
        value = decode(dc.data, profile=P, allow_objects=dc.allow_objects, max_depth=5000)
        error: DecodeError | None = None
    except DecodeError as e:
        value, error = None, e
    log = run.log("bad-" + dc.id)
    if dc.divergent:  # documented in docs/godot.md: the engine and gameserde disagree
        assert engine_ok == (error is not None), (
            f"engine and gameserde now agree on {dc.hex!r}: update docs/godot.md")
        return
    assert engine_ok == (error is None), (
        f"engine {'accepts' if engine_ok else 'rejects'} {dc.hex!r}, gameserde "
        f"{'raises ' + str(error) if error else 'returns ' + repr(value)}\n{log}")
    if not engine_ok:
        assert "ERROR" in log, f"no engine error message was attached:\n{log}"
    if rec is not None:
        engine = base64.b64decode(rec[1])
        expected = _reencoded(value)
        assert_typeof(int(rec[0]), expected)
        if not dc.compare_value:
            return
        with deep_recursion():
            masked = mask_node_path_pads(engine)
        assert_same_bytes(masked, expected, "engine re-encoding")


def test_byte1_of_the_header_is_ignored(godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    rec = run.get("D2", "bad-byte1-ignored-int")
    assert rec is not None and int(rec[0]) == 2  # TYPE_INT
    assert base64.b64decode(rec[1]) == bytes.fromhex("02000000 05000000")
    assert decode(bytes.fromhex("02ff0000 05000000"), profile=P) == 5


def test_no_depth_limit_in_3_2_3(godot3_run: tuple[EngineRun, Ours]) -> None:
    """3.2.3 decodes 3000 nested Arrays (the 1024 limit came later); gameserde's default
    ``max_depth=1024`` is a deliberate safety cap, lifted by passing a larger one."""
    run, _ = godot3_run
    data = bytes.fromhex(_nested_arrays(3000).replace(" ", ""))
    rec = run.get("D2", "bad-deep-3000")
    assert rec is not None and base64.b64decode(rec[1]) == data
    with pytest.raises(DecodeError):
        decode(data, profile=P)
    value = decode(data, profile=P, max_depth=5000)
    assert encode(value, profile=P, max_depth=5000) == data


# ---------------------------------------------------------------------------------------------
# 4. framing


def _expected_values(values: list[Any]) -> list[Any]:
    return [round_f32(v) for v in values]


@pytest.mark.parametrize("group", list(FRAME_GROUPS))
@pytest.mark.parametrize("framing", [f for f in FRAMINGS if f != "b64"])
def test_engine_framing_matches_ours(framing: str, group: str,
                                     godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    values, full = FRAME_GROUPS[group]
    fid = f"{framing}-{group}"
    engine = run.data("FR", fid)
    assert engine is not None, f"no output for {fid}"
    be = framing.endswith("-be")
    ours = _ours_framed(framing, values, full)
    assert_same_bytes(ours, mask_frames(engine, be), f"{fid} framing")
    if framing == "packet":
        decoded = list(iter_packets(engine, profile=P, allow_objects=full))
    else:
        decoded = list(iter_vars(engine, big_endian=be, profile=P, allow_objects=full))
    diff = first_difference(decoded, _expected_values(values))
    assert diff is None, diff
    # get_var reads one record and says how long it was
    first, used = get_var(engine, big_endian=be, profile=P, allow_objects=full)
    assert first_difference(first, _expected_values(values)[0]) is None
    assert used == 4 + len(encode(values[0], profile=P, full_objects=full))


@pytest.mark.parametrize("group", list(FRAME_GROUPS))
def test_engine_variant_to_base64_matches_ours(group: str,
                                               godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    values, full = FRAME_GROUPS[group]
    for i, v in enumerate(values):
        rec = run.get("FR", f"b64-{group}/{i}")
        assert rec is not None
        text = rec[0]
        ours = variant_to_base64(v, profile=P, full_objects=full)
        engine = base64.b64decode(text)
        assert_same_bytes(base64.b64decode(ours), mask_node_path_pads(engine),
                          f"variant_to_base64({v!r})")
        if mask_node_path_pads(engine) == engine:
            assert ours == text
        decoded = base64_to_variant(text, profile=P, allow_objects=full)
        assert first_difference(decoded, round_f32(v)) is None


@pytest.mark.parametrize("group", list(FRAME_GROUPS))
@pytest.mark.parametrize("framing", FRAMINGS)
def test_engine_reads_our_framing(framing: str, group: str,
                                  godot3_run: tuple[EngineRun, Ours]) -> None:
    run, _ = godot3_run
    values, full = FRAME_GROUPS[group]
    fid = f"{framing}-{group}"
    for i, v in enumerate(values):
        rec = run.get("GV", f"{fid}/{i}")
        assert rec is not None, f"no output for {fid}/{i}\n{run.log(f'{fid}/{i}')}"
        engine = base64.b64decode(rec[-1])
        assert_same_bytes(mask_node_path_pads(engine), _reencoded(round_f32(v)),
                          f"{fid} value {i} ({v!r}) as the engine read it")
    if framing == "b64":
        return
    end = run.get("GV", f"{fid}/end")
    assert end is not None
    total = len(_ours_framed(framing, values, full))
    if framing == "packet":
        assert end == ["0"], f"packets left unread: {end}"
    else:
        assert [int(x) for x in end] == [total, total], "the engine did not read to the end"
