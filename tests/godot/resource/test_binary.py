"""Binary resources (``gameserde.godot.resource.binary``, ``binary_variant``, ``compressed``):
the layout byte by byte, every value type both ways, the saver's choices, what ``kept`` keeps,
``RSCC`` containers, and hostile input (truncations, huge counts, bad indices, offsets past
the end, bombs) refused with a DecodeError carrying the offset, never another exception.
"""

from __future__ import annotations

import contextlib
import math
import struct
import time
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import types as gt
from gameserde.godot.resource import binary, binary_variant, compressed
from gameserde.godot.resource.model import ExtRef, ExtResource, Resource, ResourceFile, SubRef


def u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def ustr(text: str) -> bytes:
    raw = text.encode() + b"\0"
    return u32(len(raw)) + raw


def make(props: dict[str, Any], *, engine: tuple[int, int] = (4, 3), fmt: int = 6,
         subs: list[Resource] | None = None, external: list[ExtResource] | None = None,
         kept: dict[str, Any] | None = None, **extra: Any) -> ResourceFile:
    main_id = "res://main.tres"
    resources = [*(subs or []), Resource("Resource", main_id, props)]
    return ResourceFile(form="binary", type="Resource", engine=engine, format=fmt,
                        external=external or [], resources=resources, kept=kept or {},
                        **extra)


def roundtrip(file: ResourceFile) -> tuple[bytes, ResourceFile]:
    data = binary.write(file)
    back = binary.read(data)
    assert binary.write(back) == data
    return data, back


GODOT4_VALUES: dict[str, Any] = {
    "nil": None, "yes": True, "no": False, "i": -7, "big": 1 << 40, "f": 0.5,
    "d": 0.1, "s": "héllo", "empty": "", "sn": gt.StringName("name"),
    "v2": gt.Vector2(1.5, -2.0), "v2i": gt.Vector2i(3, -4),
    "r2": gt.Rect2(gt.Vector2(1, 2), gt.Vector2(3, 4)),
    "r2i": gt.Rect2i(gt.Vector2i(1, 2), gt.Vector2i(3, 4)),
    "v3": gt.Vector3(1, 2, 3), "v3i": gt.Vector3i(1, 2, 3),
    "t2": gt.Transform2D(gt.Vector2(1, 2), gt.Vector2(3, 4), gt.Vector2(5, 6)),
    "v4": gt.Vector4(1, 2, 3, 4), "v4i": gt.Vector4i(1, 2, 3, 4),
    "plane": gt.Plane(gt.Vector3(0, 1, 0), 2.5), "q": gt.Quaternion(0, 0, 0.5, 0.5),
    "aabb": gt.AABB(gt.Vector3(1, 2, 3), gt.Vector3(4, 5, 6)),
    "basis": gt.Basis(gt.Vector3(1, 2, 3), gt.Vector3(4, 5, 6), gt.Vector3(7, 8, 9)),
    "t3": gt.Transform3D(gt.Basis(), gt.Vector3(1, 2, 3)),
    "proj": gt.Projection(), "color": gt.Color(0.25, 0.5, 0.75, 1.0),
    "np": gt.NodePath(("a", "b"), ("c",), True), "np_empty": gt.NodePath(),
    "rid": gt.RID(5), "callable": gt.Callable(), "signal": gt.Signal(),
    "arr": [1, "two", [3.0, None]], "dict": {"k": 1, "n": {"x": [True]}},
    "odd_keys": gt.Dictionary([(1, "int"), (1.0, "float"), (True, "bool")]),
    "bytes": b"\x01\x02\x03\x04\x05", "ints": gt.PackedInt32Array([1, -2, 3]),
    "longs": gt.PackedInt64Array([1 << 40, -1]), "floats": gt.PackedFloat32Array([0.5, 1.5]),
    "doubles": gt.PackedFloat64Array([0.1, 0.2]), "strs": gt.PackedStringArray(["a", "ü"]),
    "v2s": gt.PackedVector2Array([(1, 2), (3, 4)]), "v3s": gt.PackedVector3Array([(1, 2, 3)]),
    "colors": gt.PackedColorArray([(1, 0, 0, 1)]), "v4s": gt.PackedVector4Array([(1, 2, 3, 4)]),
    "ext": ExtRef("1"), "sub": SubRef("Sub_1"),
}


def godot4_file(**kw: Any) -> ResourceFile:
    return make(dict(GODOT4_VALUES), subs=[Resource("Gradient", "Sub_1", {"n": 1})],
                external=[ExtResource("Texture2D", "res://icon.png", "1", "uid://c2k")],
                uid="uid://b2x", **kw)


# --------------------------------------------------------------------------------------------
# Layout and values


def test_godot4_header_layout() -> None:
    data = binary.write(godot4_file(script_class="Save"))
    assert data[:4] == b"RSRC"
    assert struct.unpack_from("<5I", data, 4) == (0, 0, 4, 3, 6)
    pos = 24
    assert data[pos:pos + 4 + 9] == ustr("Resource")
    pos += 13
    importmd, flags, uid = struct.unpack_from("<QIQ", data, pos)
    assert (importmd, flags, uid) == (0, 1 | 2 | 8, binary.text_to_id("uid://b2x"))
    pos += 20
    assert data[pos:pos + 9] == ustr("Save")
    assert data[pos + 9:pos + 9 + 44] == bytes(44)  # eleven reserved words
    assert data.endswith(b"RSRC")


def test_godot4_every_value_round_trips() -> None:
    f = godot4_file()
    _, back = roundtrip(f)
    assert back.resources == f.resources
    assert back.external == f.external
    assert back.uid == "uid://b2x"
    assert [r.id for r in back.resources] == ["Sub_1", "res://main.tres"]


def test_godot3_values_round_trip_and_refs_use_local_numbers() -> None:
    props = {k: v for k, v in GODOT4_VALUES.items() if k in {
        "nil", "yes", "i", "big", "f", "d", "s", "v2", "r2", "v3", "t2", "plane", "q", "aabb",
        "basis", "t3", "color", "np", "arr", "dict", "bytes", "ints", "floats", "strs", "v2s",
        "v3s", "colors", "ext"}}
    props["sub"] = SubRef("2")
    f = make(props, engine=(3, 5), fmt=3, subs=[Resource("Gradient", "2", {"n": 1})],
             external=[ExtResource("Texture", "res://icon.png", "1")])
    data, back = roundtrip(f)
    assert back.resources == f.resources
    assert b"local://2" in data
    # OBJECT (24), OBJECT_INTERNAL_RESOURCE (2), local number 2
    assert u32(24, 2, 2) in data
    # Godot 3 has no flags: fourteen reserved words after the import-metadata offset
    assert data[24 + 13 + 8:24 + 13 + 8 + 56] == bytes(56)


def test_value_encodings_are_the_savers() -> None:
    cases = [
        (None, u32(1)), (True, u32(2, 1)), (5, u32(3, 5)), (-1 << 40, u32(40) + struct.pack(
            "<q", -1 << 40)), (0.5, u32(4) + struct.pack("<f", 0.5)),
        (0.1, u32(41) + struct.pack("<d", 0.1)), (math.inf, u32(4) + struct.pack("<f", math.inf)),
        ("ab", u32(5, 3) + b"ab\0"), (gt.StringName("x"), u32(44, 2) + b"x\0"),
        (gt.Color(1, 0, 0, 1), u32(20) + struct.pack("<4f", 1, 0, 0, 1)),
        (gt.Basis(gt.Vector3(1, 2, 3), gt.Vector3(4, 5, 6), gt.Vector3(7, 8, 9)),
         u32(16) + struct.pack("<9f", 1, 4, 7, 2, 5, 8, 3, 6, 9)),
        (b"\x07", u32(31, 1) + b"\x07\0\0\0"),
        (gt.PackedStringArray(["a"]), u32(34, 1, 2) + b"a\0"),
        (ExtRef("1"), u32(24, 3, 0)), (SubRef("Sub_1"), u32(24, 2, 0)),
        ([], u32(30, 0)), ({}, u32(26, 0)),
    ]
    for value, expected in cases:
        data = binary.write(make({"p": value}, subs=[Resource("Sub", "Sub_1")],
                                 external=[ExtResource("T", "res://t", "1")]))
        assert expected in data, value
    nan = binary.write(make({"p": math.nan}))
    assert u32(41) + struct.pack("<d", math.nan) in nan


def test_node_path_parts_use_the_string_table_or_come_in_place() -> None:
    f = make({"np": gt.NodePath(("a",), ("b",), False)}, kept={"strings": ["a", "np"]})
    data = binary.write(f)
    # name count 1, subname count 1; "a" is string 0; "b" in place with bit 31
    assert u32(22) + struct.pack("<HH", 1, 1) + u32(0, 0x80000002) + b"b\0" in data
    assert binary.read(data).main.properties["np"] == gt.NodePath(("a",), ("b",))


def test_real_t_double_files() -> None:
    f = make({"v": gt.Vector2(0.1, 0.2), "f": 0.5, "c": gt.Color(0.5, 0.5, 0.5, 1),
              "a": gt.PackedVector3Array([(0.1, 0.2, 0.3)])},
             kept={"flags": 1 | 2 | binary.FLAG_REAL_T_IS_DOUBLE})
    data, back = roundtrip(f)
    assert u32(10) + struct.pack("<2d", 0.1, 0.2) in data
    assert u32(4) + struct.pack("<d", 0.5) in data
    assert u32(20) + struct.pack("<4f", 0.5, 0.5, 0.5, 1) in data
    assert back.main.properties["v"] == gt.Vector2(0.1, 0.2)
    assert back.main.properties["a"] == gt.PackedVector3Array([(0.1, 0.2, 0.3)])


def test_big_endian_files() -> None:
    f = godot4_file(kept={"big_endian": 1})
    data, back = roundtrip(f)
    assert struct.unpack_from(">III", data, 12) == (4, 3, 6)
    assert back.resources == f.resources
    assert back.kept["big_endian"] == 1


def test_overrides_keep_what_the_saver_would_not_choose() -> None:
    data = _handmade([("a", u32(40) + struct.pack("<q", 7)),
                      ("b", u32(41) + struct.pack("<d", 0.5)),
                      ("c", u32(4) + struct.pack("<f", math.nan)),
                      ("d", u32(24, 0)), ("e", u32(1))])
    props = binary.read(data)
    assert props.kept["overrides"] == {0: "int64", 1: "double", 2: "float", 3: "object"}
    assert props.main.properties["b"] == 0.5
    assert props.main.properties["d"] is None and props.main.properties["e"] is None
    assert binary.write(props) == data
    props.kept["overrides"] = {str(k): v for k, v in props.kept["overrides"].items()}
    assert binary.write(props) == data  # as a JSON view gives the numbers back
    # an edited value never loses precision to a stale tag
    props.main.properties["a"] = 1 << 40
    props.main.properties["c"] = 0.1
    again = binary.read(binary.write(props))
    assert again.main.properties["a"] == 1 << 40 and again.main.properties["c"] == 0.1


def test_godot_3_0_and_3_1_write_every_int_as_int64() -> None:
    old = binary.write(make({"n": 3}, engine=(3, 1), fmt=3))
    assert u32(40) + struct.pack("<q", 3) in old
    assert "overrides" not in binary.read(old).kept
    new = binary.write(make({"n": 3}, engine=(3, 2), fmt=3))
    assert u32(3, 3) in new


def test_format_2_node_path_property() -> None:
    f = make({"np": gt.NodePath(("a",), ("b", "prop"))}, engine=(3, 0), fmt=2,
             kept={"overrides": {0: binary_variant.PROPERTY}, "strings": ["np"]})
    data, back = roundtrip(f)
    assert back.main.properties["np"] == gt.NodePath(("a",), ("b", "prop"))
    assert u32(0x80000005) + b"prop\0" in data  # the property field, after one subname
    plain = binary.read(binary.write(make({"np": gt.NodePath(("a",))}, engine=(3, 0), fmt=2)))
    assert plain.main.properties["np"] == gt.NodePath(("a",))


def test_default_string_table_follows_the_savers_order() -> None:
    sub = Resource("Sub", "S", {"path": gt.NodePath(("x",), ("y",))})
    f = make({"z": SubRef("S"), "a": gt.NodePath(("m",))}, subs=[sub])
    data = binary.write(f)
    assert binary.read(data).kept["strings"] == ["x", "y", "m", "path", "z", "a"]


def test_kept_fields_round_trip() -> None:
    kept = {"reserved": [0, 5] + [0] * 9, "importmd_ofs": 12, "uid_field": 99,
            "flags": 1, "gaps": {"1": b"\xff\xfe"}, "tail": b"extraRSRC"}
    f = make({"a": 1}, subs=[Resource("Sub", "S", {})], kept=kept)
    _, back = roundtrip(f)
    for key in ("reserved", "importmd_ofs", "uid_field", "gaps", "tail"):
        assert back.kept[key] == kept[key]
    assert back.uid is None


def test_godot2_import_metadata_sits_where_the_header_points() -> None:
    f = make({"a": 1}, engine=(2, 1), fmt=1, kept={"import_metadata": b"\x01\x02meta"})
    data, back = roundtrip(f)
    offset = struct.unpack_from("<Q", data, 24 + 13)[0]
    assert data[offset:] == b"\x01\x02metaRSRC"
    assert back.kept["import_metadata"] == b"\x01\x02meta"
    assert "importmd_ofs" not in back.kept and "tail" not in back.kept


def test_uid_text() -> None:
    assert binary.id_to_text(0) == "uid://a"
    assert binary.id_to_text(34) == "uid://ba"
    assert binary.id_to_text(33) == "uid://8"
    assert binary.id_to_text((1 << 63) - 1) == "uid://d4n4ub6itg400"  # the engine's comment
    assert binary.text_to_id(binary.id_to_text(1088630445248144043)) == 1088630445248144043
    for bad in ("uid://", "res://x", "uid://A", "uid://<invalid>"):
        with pytest.raises(ValueError):
            binary.text_to_id(bad)


# --------------------------------------------------------------------------------------------
# Writing errors


@pytest.mark.parametrize(("value", "message"), [
    (ExtRef("2"), "names no external resource"), (ExtRef("x"), "names no external"),
    (SubRef("nope"), "names no resource"), (gt.Object("Node", {}), "inline Object"),
    (1 << 70, "64 bits"), (object(), "no encoding"),
])
def test_write_errors(value: Any, message: str) -> None:
    f = make({"p": [value]}, external=[ExtResource("T", "res://t", "1")])
    with pytest.raises(EncodeError, match=message) as info:
        binary.write(f)
    assert info.value.path == "$[0].p[0]"


def test_godot4_types_refused_in_godot3() -> None:
    for value in (gt.StringName("a"), gt.Vector2i(1, 2), gt.PackedInt64Array([1])):
        with pytest.raises(EncodeError, match="Godot 2 or 3"):
            binary.write(make({"p": value}, engine=(3, 5), fmt=3))
    with pytest.raises(EncodeError, match="format 6"):
        binary.write(make({"p": gt.PackedVector4Array([])}, engine=(4, 2), fmt=5))


# --------------------------------------------------------------------------------------------
# RSCC


@pytest.mark.parametrize("mode", [compressed.MODE_ZSTD, compressed.MODE_DEFLATE,
                                  compressed.MODE_GZIP])
def test_rscc_modes_and_blocks(mode: int) -> None:
    f = godot4_file(kept={"rscc": {"mode": mode, "block_size": 64}})
    data = binary.write(f)
    assert data[:4] == b"RSCC" and data.endswith(b"RSCC")
    stream, container = compressed.decompress(data)
    assert container.mode == mode and container.block_size == 64
    assert len(container.block_sizes) == len(stream) // 64 + 1
    assert not stream.startswith(b"RSRC")
    back = binary.read(data)
    assert back.resources == f.resources
    assert back.kept["rscc"] == {"mode": mode, "block_size": 64}


def test_rscc_block_size_multiple_has_an_empty_last_block() -> None:
    data = compressed.compress(bytes(128), block_size=64)
    stream, container = compressed.decompress(data)
    assert stream == bytes(128) and len(container.block_sizes) == 3


def _rscc(mode: int, block: int, size: int, blocks: list[bytes]) -> bytes:
    return (b"RSCC" + u32(mode, block, size) + u32(*(len(b) for b in blocks))
            + b"".join(blocks) + b"RSCC")


def test_rscc_refusals() -> None:
    z = zlib.compress(b"x" * 10)
    cases = [
        (_rscc(0, 4096, 10, [b"abc"]), "FastLZ level 4", 20),
        (_rscc(4, 4096, 10, [b"abc"]), "brotli", 4),
        (_rscc(9, 4096, 10, [b"abc"]), "unknown compression mode 9", 4),
        (_rscc(1, 0, 10, [z]), "block size is 0", 8),
        (_rscc(1, 4096, 10 ** 9, [z]), "decompression bomb", 12),
        (_rscc(1, 4096, 11, [z]), "inflates to 10 bytes, not the 11", 20),
        (_rscc(1, 4096, 9, [z]), "block 0", 20),
        (_rscc(1, 4096, 10, [z])[:-4] + b"RSC", "closing 'RSCC'", 20 + len(z)),
        (_rscc(1, 4096, 10, [z]) + b"!", "closing 'RSCC'", 20 + len(z)),
        (_rscc(1, 4096, 10, [b"junk"]), "deflate", 20),
        (_rscc(2, 4096, 10, [b"junk"]), "zstd", 20),
        (b"RSCC" + u32(1, 1, 1000), "block sizes do not fit", 16),
        (_rscc(1, 4096, 10, [z])[:20], "blocks take", 20),
        (b"RSCC\0\0", "header needs 16 bytes", 0),
    ]
    for data, message, offset in cases:
        with pytest.raises(DecodeError, match=message) as info:
            binary.read(data)
        assert info.value.offset == offset, message


def test_rscc_max_ratio() -> None:
    data = compressed.compress(bytes(100_000))
    with pytest.raises(DecodeError, match="bomb"):
        compressed.decompress(data, max_ratio=10)
    assert len(compressed.decompress(data)[0]) == 100_000
    assert len(binary.read(binary.write(make({"b": bytes(100_000)}, kept={
        "rscc": {"mode": 2, "block_size": 4096}})), max_ratio=2000).main.properties["b"]) \
        == 100_000


def test_rscc_write_refuses_modes_it_cannot_make() -> None:
    with pytest.raises(EncodeError, match="brotli"):
        compressed.compress(b"", mode=compressed.MODE_BROTLI)


def _fastlz_file(block: bytes, size: int) -> bytes:
    return _rscc(compressed.MODE_FASTLZ, 4096, size, [block])


def test_fastlz_literals_and_matches() -> None:
    literal_abc = bytes((2,)) + b"abc"
    match_6 = bytes((4 << 5, 2))  # (4 - 1) + 3 = 6 bytes from distance 3
    long_run = bytes((7 << 5, 10, 0))  # 6 + 10 + 3 = 19 bytes from distance 1
    block = literal_abc + match_6 + bytes((0,)) + b"x" + long_run
    stream, _ = compressed.decompress(_fastlz_file(block, 3 + 6 + 1 + 19))
    assert stream == b"abcabcabc" + b"x" * 20


def test_fastlz_short_blocks_are_padded_to_16() -> None:
    data = compressed.compress(b"hello", mode=compressed.MODE_FASTLZ)
    stream, container = compressed.decompress(data)
    assert stream == b"hello" and container.block_sizes == (17,)
    big = bytes(range(256)) * 40
    assert compressed.decompress(compressed.compress(big, mode=0))[0] == big


@pytest.mark.parametrize(("block", "message"), [
    (bytes((0x20,)) + b"a", "level 2"),
    (bytes((5,)) + b"ab", "literal run goes past"),
    (bytes((0,)) + b"a" + bytes((4 << 5, 9)), "reaches before"),
    (bytes((0,)) + b"a" + bytes((7 << 5,)), "cut short"),
    (bytes((0,)) + b"a" + bytes((4 << 5,)), "cut short"),
    (bytes((0,)) + b"a" + bytes((7 << 5, 255, 0)), "past its declared size"),
    (b"", "empty FastLZ block"),
])
def test_fastlz_refusals(block: bytes, message: str) -> None:
    with pytest.raises(DecodeError, match=message) as info:
        compressed.decompress(_fastlz_file(block, 20))
    assert info.value.offset == 20


# --------------------------------------------------------------------------------------------
# Hostile input


def _handmade(props: list[tuple[str, bytes]], *, strings: list[str] | None = None) -> bytes:
    """A Godot 4.3 file holding one resource whose property values are given as bytes."""
    names = strings if strings is not None else [n for n, _ in props]
    head = b"RSRC" + u32(0, 0, 4, 3, 6) + ustr("Resource") + struct.pack("<QIQ", 0, 3,
                                                                         binary.NO_UID)
    head += bytes(44) + u32(len(names)) + b"".join(ustr(s) for s in names) + u32(0) + u32(1)
    head += ustr("res://main.tres")
    offset = len(head) + 8
    body = ustr("Resource") + u32(len(props))
    body += b"".join(u32(names.index(n)) + v for n, v in props)
    return head + struct.pack("<Q", offset) + body + b"RSRC"


def test_handmade_file_reads() -> None:
    f = binary.read(_handmade([("a", u32(3, 7))]))
    assert f.main.properties == {"a": 7}
    assert f.main.id == "res://main.tres"


@pytest.mark.parametrize(("value", "message"), [
    (u32(99), "unknown Variant type 99"),
    (u32(30, 0x7FFFFFF0), "cannot fit"),
    (u32(26, 1 << 30), "cannot fit"),
    (u32(32, 1 << 30), "cannot fit"),
    (u32(34, 1 << 30), "cannot fit"),
    (u32(31, 1 << 30), "cannot fit"),
    (u32(5, 1 << 30), "exceeds"),
    (u32(5, 2) + b"\xff\0", "not valid UTF-8"),
    (u32(22) + struct.pack("<HH", 1, 0) + u32(40), "string 40"),
    (u32(22) + struct.pack("<HH", 0xFFFF, 0x7FFF), "cannot fit"),
    (u32(24, 3, 0), "external resource 0 does not exist"),
    (u32(24, 2, 5), "internal resource 5 does not exist"),
    (u32(24, 1), "OBJECT_EXTERNAL_RESOURCE"),
    (u32(24, 7), "unknown Object reference kind 7"),
    (u32(21, 0), "Image"), (u32(25), "InputEvent"),
    (u32(30, 1) * 2000 + u32(1), "nested deeper"),
])
def test_bad_values(value: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message) as info:
        binary.read(_handmade([("a", value)]))
    assert info.value.offset is not None
    assert info.value.path.startswith("$.a")


def test_bad_structure() -> None:
    good = _handmade([("a", u32(3, 7))])
    with pytest.raises(DecodeError, match="neither 'RSRC' nor 'RSCC'"):
        binary.read(b"XXXX" + good[4:])
    with pytest.raises(DecodeError, match="format 7 is newer"):
        binary.read(good[:20] + u32(7) + good[24:])
    at = good.rindex(ustr("Resource") + u32(1) + u32(0)) + 13 + 4
    with pytest.raises(DecodeError, match="string 9 but the string table has 1") as info:
        binary.read(good[:at] + u32(9) + good[at + 4:])
    assert info.value.offset == at
    # offset past the end, and before the end of the table
    at = good.index(ustr("res://main.tres")) + len(ustr("res://main.tres"))
    for offset, message in ((len(good) + 5, "past the end"), (4, "before the end")):
        bad = good[:at] + struct.pack("<Q", offset) + good[at + 8:]
        with pytest.raises(DecodeError, match=message) as info:
            binary.read(bad)
        assert info.value.offset == at
    empty_name = _handmade([("", u32(1))])
    with pytest.raises(DecodeError, match="empty name"):
        binary.read(empty_name)


def test_every_truncation_is_a_decode_error() -> None:
    data = binary.write(godot4_file())
    for n in range(len(data) - 4):
        with pytest.raises(DecodeError):
            binary.read(data[:n])


def test_huge_counts_fail_fast() -> None:
    head = _handmade([("a", u32(3, 7))])
    at = head.index(u32(1) + ustr("a"))
    bad = head[:at] + u32(0x7FFFFFFF) + head[at + 4:]
    start = time.perf_counter()
    with pytest.raises(DecodeError, match="cannot fit") as info:
        binary.read(bad)
    assert time.perf_counter() - start < 0.5
    assert info.value.offset == at


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutations_raise_only_decode_error(data: st.DataObject) -> None:
    original = bytearray(binary.write(godot4_file()))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(original) - 1))
        original[i] = data.draw(st.integers(0, 255))
    with contextlib.suppress(DecodeError):
        binary.read(bytes(original))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([compressed.MODE_ZSTD, compressed.MODE_DEFLATE,
                                   compressed.MODE_FASTLZ]))
def test_compressed_mutations_raise_only_decode_error(data: st.DataObject, mode: int) -> None:
    original = bytearray(binary.write(godot4_file(kept={"rscc": {"mode": mode,
                                                                  "block_size": 256}})))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(original) - 1))
        original[i] = data.draw(st.integers(0, 255))
    with contextlib.suppress(DecodeError):
        binary.read(bytes(original))


def test_reference_cycles_are_plain_data() -> None:
    a = Resource("Res", "A", {"next": SubRef("B"), "np": gt.NodePath(("x",))})
    b = Resource("Res", "B", {"next": SubRef("A")})
    f = make({"first": SubRef("A")}, subs=[a, b])
    _, back = roundtrip(f)
    assert back.resources == f.resources
    assert back.kept["strings"][0] == "x"


def test_godot2_images_in_place() -> None:
    raw = gt.Object("Image", {"encoding": "raw", "width": 2, "height": 1, "mipmaps": 0,
                              "format": 4, "data": b"\x01\x02\x03\x04\x05\x06"})
    png = gt.Object("Image", {"encoding": "lossless", "data": b"PNG"})
    empty = gt.Object("Image", {"encoding": "empty"})
    f = make({"a": raw, "b": png, "c": empty}, engine=(2, 1), fmt=1)
    data, back = roundtrip(f)
    assert back.main.properties == {"a": raw, "b": png, "c": empty}
    assert u32(21, 1, 2, 1, 0, 4, 6) + b"\x01\x02\x03\x04\x05\x06\0\0" in data
    assert u32(21, 2, 3) + b"PNG\0" in data
    with pytest.raises(EncodeError, match="inline Object"):
        binary.write(make({"a": raw}, engine=(3, 5), fmt=3))
    with pytest.raises(EncodeError, match="an Image needs"):
        binary.write(make({"a": gt.Object("Image", {"encoding": "raw"})}, engine=(2, 1),
                          fmt=1))
    with pytest.raises(DecodeError, match="unknown Image encoding 7"):
        binary.read(data.replace(u32(21, 1), u32(21, 7)))


def test_another_forms_kept_is_not_read() -> None:
    f = make({"a": 1}, kept={"strings": ["zzz"], "tail": b"text's own"})
    f.form = "text"
    assert binary.read(binary.write(f)).kept["strings"] == ["a"]
