"""Seed inputs of every fuzz target, made from the tests' fixtures and the examples (each in
the target's input format: option byte(s), then the payload). Nothing is stored: the offline
driver writes them to its work folder, the CI driver mutates them in memory.
"""

from __future__ import annotations

import base64
import functools
import json
import random
import zlib
from collections.abc import Callable
from pathlib import Path

from gameserde import godot, zeze
from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import flexbuffers
from tests.fuzz import hostile, targets

ROOT = Path(__file__).resolve().parents[2]
SHARED_SCHEMAS = ROOT.parent / "shared" / "corpus" / "flatbuffers-real"
ZEZE_VECTORS = targets.ZEZE_VECTORS


def _godot_values() -> list[tuple[int, list[object]]]:
    """(profile index, rich values) of the hostile-input tests."""
    from tests.godot.test_hostile import rich_docs, rich_godot3, rich_godot4

    return [(0, rich_godot4()), (1, rich_godot3()), (2, rich_docs())]


def _godot_buffers() -> list[tuple[int, bytes]]:
    out = []
    for index, values in _godot_values():
        profile = targets.GODOT_PROFILES[index]
        out.append((index, godot.encode(values, profile=profile, full_objects=True)))
        for v in values:
            out.append((index, godot.encode(v, profile=profile, full_objects=True)))
    deep: object = 1
    for i in range(40):
        deep = [deep] if i % 2 else {"k": deep}
    out.append((0, godot.encode(deep)))
    return out


def godot_decode() -> list[bytes]:
    return [bytes([index | 4]) + buf for index, buf in _godot_buffers()]


def godot_inspect() -> list[bytes]:
    return [bytes([index]) + buf for index, buf in _godot_buffers() if len(buf) < 2048]


def godot_framings() -> list[bytes]:
    out = [bytes([0 | 16]) + (ROOT / "examples" / "godot" / "savegame.sav").read_bytes()]
    for index, values in _godot_values():
        opts = {"profile": targets.GODOT_PROFILES[index], "full_objects": True}
        sample = values[:8]
        out.append(bytes([index << 2 | 16]) + b"".join(godot.store_var(v, **opts)
                                                       for v in sample))
        out.append(bytes([1 | index << 2 | 16]) + b"".join(
            godot.store_var(v, big_endian=True, **opts) for v in sample))
        out.append(bytes([2 | index << 2 | 16]) + b"".join(godot.put_packet(v, **opts)
                                                           for v in sample))
        out.append(bytes([3 | index << 2 | 16])
                   + godot.variant_to_base64(values, **opts).encode())
    return out


def godot_from_json() -> list[bytes]:
    out = []
    for _, values in _godot_values()[:1]:
        for v in [values, *values]:
            out.append(targets.godot_json_text(v).encode())
    return out


@functools.cache
def fb_buffers() -> list[tuple[int, bytes]]:
    """(schema index, valid buffer) for the schemas of :func:`targets.fb_schema_texts`."""
    from tests.flatbuffers import fbs_gen
    from tests.flatbuffers.mutation import UNION_VECTOR_DOC
    from tests.flatbuffers.test_reader import ALL_DOCS, SEED_BASE64

    schemas = targets.fb_schemas()
    out = [(0, schemas[0].from_json(doc)) for doc in ALL_DOCS]
    out.append((1, base64.b64decode(SEED_BASE64)))
    out.append((2, schemas[2].from_json(UNION_VECTOR_DOC)))
    out.append((3, schemas[3].from_json('{n: 7, s: "hello", bv: [1, 2, 3], name: "nm", '
                                        'sv: [{a: 1, b: 2}], leaf: {x: 1, s: "in"}}')))
    out.append((4, schemas[4].from_json("{lv: [1, -2], vv: [{a: 1, b: 2.5}], n: 3}")))
    out += [(5, hostile.fb_dag(3)), (5, hostile.fb_shared_string(3, 5)), (5, hostile.fb_wide(4)),
            (5, hostile.fb_deep(4)), (5, hostile.fb_bytes(256))]
    for index in range(6, len(schemas)):
        rnd = random.Random(index)
        schema = schemas[index]
        for _ in range(3):
            try:
                value = fbs_gen.random_value(rnd, schema, schema.root or "")
                out.append((index, schema.encode(value)))
            except EncodeError:
                continue
    return out


def _fb(flags: int) -> list[bytes]:
    return [bytes([index | flags]) + buf for index, buf in fb_buffers()]


def fb_from_json() -> list[bytes]:
    schemas = targets.fb_schemas()
    out = []
    for index, buf in fb_buffers():
        out.append(bytes([index]) + schemas[index].to_json(buf, strict=False).encode())
        out.append(bytes([index | 32]) + schemas[index].to_json(buf).encode())
    return out


def fb_encode() -> list[bytes]:
    schemas = targets.fb_schemas()
    out = []
    for index, buf in fb_buffers():
        try:
            text = json.dumps(schemas[index].decode(buf))
        except (TypeError, ValueError):
            continue  # bytes (flexbuffer blobs) have no JSON form
        out.append(bytes([index]) + text.encode())
    out.append(bytes([1]) + b'{"name": "x", "inventory": ["~np", 1, 2, 3], "hp": 1}')
    return out


def fb_flexbuffers() -> list[bytes]:
    values: list[object] = [
        None, True, -1, 2**40, 1.5, "text", b"blob", [1, 2, 3], [1.5, "a", None],
        {"a": 1, "b": [True, {"c": "d"}], "e": b"\x00\xff"}, [[[]]], {"": {}},
        [2**63 - 1, -(2**63), 0.1, float("inf")],
    ]
    return [flexbuffers.dumps(v) for v in values]


def fb_load_schema() -> list[bytes]:
    texts = [t.encode() for t in targets.fb_schema_texts()]
    out = list(texts)
    out.append(targets.INCLUDING_SCHEMA.replace("s1.fbs", "inc.fbs").encode()
               + targets.INCLUDE_MARK + texts[1])
    out.append(b'include "inc.fbs";\ntable R { t:T.W; }\nroot_type R;\n'
               + targets.INCLUDE_MARK + texts[0])
    out.append(b"struct C { z:[long:4]; } struct B { y:[C:3]; } table T { b:B; } root_type T;")
    if SHARED_SCHEMAS.is_dir():  # real schemas, when the shared corpus is beside the project
        for path in sorted(SHARED_SCHEMAS.glob("*/schema/*.fbs")):
            text = path.read_bytes()
            if len(text) < 8192 and text not in out:
                out.append(text)
    return out


def fb_bfbs() -> list[bytes]:
    """``.bfbs`` of the buffer targets' schemas with each option, and the corpus's."""
    out = []
    for n, schema in enumerate(targets.fb_schemas()):
        out.append(schema.to_bfbs(comments=n % 2 == 0, builtins=n % 3 != 2))
    if SHARED_SCHEMAS.is_dir():
        for path in sorted(SHARED_SCHEMAS.glob("*bfbs_*/buf.bin")):
            if "_trunc_" not in str(path):
                out.append(path.read_bytes())
    return out


ZEZE_IMPORTED = b"""<solution name="lib"><module name="items" id="1">
<bean name="BItem"><variable id="1" name="id" type="int" default="0x10"/>
<variable id="2" name="k" type="set[vector3int]"/></bean>
<enum name="MAX" value="3"/><table name="t" key="long" value="BItem"/>
</module></solution>"""

ZEZE_ROOT = b"""<?xml version="1.0" encoding="utf-8"?>
<solution name="game" ModuleIdAllowRanges="1-100">
  <import file="imp.xml"/>
  <module name="role" id="2">
    <bean name="Base" extendable="true"><variable id="1" name="hp" type="int"/></bean>
    <bean name="Hero" base="Base"><var id="1" name="mp" type="float" default="1.5f"/></bean>
    <bean name="BRole">
      <variable id="1" name="items" type="list[lib.items.BItem]"/>
      <variable id="2" name="attrs" type="map" key="int" value="long"/>
      <variable id="3" name="pet" type="dynamic"><value bean="Hero:1"/></variable>
      <variable id="4" name="any" type="dynamic:Base"/>
      <variable id="5" name="pos" type="vector3" default="1,2,3"/>
    </bean>
    <protocol name="SEnter" argument="BRole"/>
    <rpc name="RGet" id="2" argument="Hero" result="BRole"/>
  </module>
</solution>"""


ZEZE_REAL_SYNTAX = b"""<solution name="real">
  <external bean="Zeze.Arch.Beans.BSend"/><externalkey beankey="Zeze.Util.Id128"/>
  <module name="m" id="3">
    <bean name="BOld"><variable id="1" name="extra" type="dynamic" value="BOld,BNew"/></bean>
    <bean name="BNew">
      <variable id="1" name="doc" type="string" value="JSON_OBJECT"/>
      <variable id="2" name="rows" type="gtable[int,long,string]"/>
      <variable id="3" name="ids" type="map" key="Zeze.Util.Id128" value="Zeze.Arch.Beans.BSend"/>
      <variable id="4" name="cache" type="int" transient="true"/>
    </bean>
    <rpc name="Send" id="4" argument="Zeze.Arch.Beans.BSend"/>
  </module>
</solution>"""
"""What real solution files use: external beans, old dynamics, JSON strings, gtable,
transient fields."""


def zeze_load_schema() -> list[bytes]:
    out = [ZEZE_ROOT + targets.IMPORT_MARK + ZEZE_IMPORTED, ZEZE_IMPORTED, ZEZE_REAL_SYNTAX]
    if ZEZE_VECTORS.is_file():
        out.append(json.loads(ZEZE_VECTORS.read_text())["meta"]["schema_xml"].encode())
    return out


def zeze_decode() -> list[bytes]:
    """The Java vectors' bean encodings, each with its bean's selector byte (and some with
    decode_from or a small max_depth), and the hostile families at small sizes."""
    index = {(id(schema), bean): i for i, (schema, bean) in enumerate(targets.zeze_beans())}
    oracle, nested = targets.zeze_beans()[0][0], targets.zeze_beans()[-1][0]
    vectors = json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))
    out = []
    for n, case in enumerate(vectors["beans"] + vectors["decode"]):
        selector = index[id(oracle), oracle.bean(case["bean"]).name] | (n % 3) << 5
        out.append(bytes([selector]) + bytes.fromhex(case["hex"]))
    for make, bean in ((hostile.zeze_long_string, "H"), (hostile.zeze_wide_list, "H"),
                       (hostile.zeze_wide_map, "H"), (hostile.zeze_bean_list, "H"),
                       (hostile.zeze_dynamic_list, "H"), (hostile.zeze_beankey_map, "H"),
                       (hostile.zeze_unknown_fields, "H"), (hostile.zeze_skipped_list, "E"),
                       (hostile.zeze_layer_tags, "E"), (hostile.zeze_deep_lists, "N")):
        out.append(bytes([index[id(nested), nested.bean(bean).name]]) + make(5))
    budget = zeze.codec.EXPANSION_SLACK - 1  # max_expansion=0 (bit 7), G's absent list: 1
    for make, cost in ((hostile.zeze_empty_trees, 4), (hostile.zeze_empty_vectors, 1)):
        for n in (5, budget // cost, budget // cost + 1):  # within the budget, and past it
            out.append(bytes([index[id(nested), nested.bean("G").name] | 128]) + make(n))
    return out


def cli() -> list[bytes]:
    out = []
    for index, buf in _godot_buffers()[:12]:
        for verb in (0, 3):
            out.append(bytes([verb, index << 2]) + buf)
    sav = (ROOT / "examples" / "godot" / "savegame.sav").read_bytes()
    out += [bytes([0, 1]) + sav, bytes([3, 1]) + sav]
    for doc in godot_from_json()[:6]:
        out.append(bytes([1, 0]) + doc)
    for index, buf in fb_buffers()[::3]:
        for verb in (0, 2, 3):
            out.append(bytes([verb | 4, index]) + buf)
    for seed in fb_from_json()[::6]:
        out.append(bytes([1 | 4, seed[0] & 15]) + seed[1:])
    nroot = len(targets.fb_schema_texts())
    out.append(bytes([0 | 4, nroot]) + fb_buffers()[0][1])  # the schema without root_type
    out.append(bytes([0 | 4 | 24, 1]) + fb_buffers()[0][1])  # an unknown --root-type
    from gameserde.godot import resource
    from gameserde.godot.resource import jsonview

    for res in godot_resource()[:6]:  # resource files: decode, inspect, verify, encode
        out += [bytes([verb, 0]) + res for verb in (0, 2, 3)]
        doc = jsonview.to_jsonable(resource.read(res))
        out.append(bytes([1, 0]) + json.dumps(doc).encode())
    return out


def zeze_frames() -> list[bytes]:
    """The Java vectors' protocol frames, alone and run together, in a few chunk sizes."""
    vectors = json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))
    frames = [bytes.fromhex(case["hex"]) for case in vectors["protocol"]]
    stream = b"".join(frames)
    return [bytes([n]) + frame for n, frame in enumerate(frames)] + [
        bytes([0]) + stream, bytes([7]) + stream, bytes([31 | 32]) + stream]


def zeze_from_json() -> list[bytes]:
    """The JSON of the Java vectors' bean values, with their beans' selector bytes."""
    index = {bean: i for i, (_, bean) in enumerate(targets.zeze_beans())}
    oracle = targets.zeze_beans()[0][0]
    vectors = json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))
    out = []
    for case in vectors["beans"][::2]:
        full = oracle.bean(case["bean"]).name
        value = zeze.decode(oracle, full, bytes.fromhex(case["hex"]))
        out.append(bytes([index[full]]) + zeze.to_json(oracle, full, value).encode())
    return out


def cli_zeze() -> list[bytes]:
    """The beans and frames of the vectors under every verb, with and without a schema."""
    vectors = json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))
    beans = {name.rsplit(".", 1)[-1]: i for i, name in enumerate(targets.ZEZE_CLI_BEANS)}
    out = []
    for n, case in enumerate(vectors["beans"][::4]):
        bean = beans.get(case["bean"].rsplit(".", 1)[-1], 3)
        for verb in (0, 2, 3):
            out.append(bytes([verb | bean << 4 | (8 if n % 3 == 0 else 0), 0])
                       + bytes.fromhex(case["hex"]))
    for seed in zeze_from_json()[:4]:
        out.append(bytes([1 | 1 << 4, 0]) + seed[1:])
    stream = b"".join(bytes.fromhex(case["hex"]) for case in vectors["protocol"])
    out += [bytes([verb | 4, 0]) + stream for verb in (0, 2, 3)]
    return out


def kingsisle_load_schema() -> list[bytes]:
    """Small v2 and v1 type lists: leaf types, an enum, a list of objects."""
    v2 = {"version": 2, "classes": {"840848220": {
        "name": "class ExampleItem", "bases": ["PropertyClass"], "hash": 840848220,
        "properties": {
            "m_id": {"type": "unsigned int", "id": 0, "flags": 31, "hash": 2301988666,
                     "dynamic": False},
            "m_kind": {"type": "enum ExampleKind", "id": 1, "flags": 2097183, "dynamic": False,
                       "hash": 863322476, "enum_options": {"A": 0, "__DEFAULT": "A"}},
            "m_children": {"type": "class SharedPointer<class ExampleItem>", "id": 2,
                           "flags": 31, "dynamic": True, "pointer": True,
                           "hash": 2368506428}}}}}
    v1 = {"class Other": {"bases": [], "hash": "12", "properties": {
        "m_pos": {"type": "class Vector3D", "id": "0", "flags": "7", "hash": 5,
                  "dynamic": False}}}}
    shared = {f"class C{i}": {"hash": 7, "properties": {}} for i in range(3)}
    loop = {"class A": {"hash": 1, "bases": ["class B"], "properties": {}},
            "class B": {"hash": 2, "bases": ["class A"], "properties": {}}}
    return [json.dumps(doc).encode() for doc in (v2, v1, shared, loop)]


def kingsisle_decode() -> list[bytes]:
    """A synthetic object encoded by each serializer of the target, with its selector."""
    from gameserde.kingsisle.hashes import string_id
    from gameserde.kingsisle.objects import KiObject

    item = KiObject("class Item", string_id("class Item"),
                    {"m_id": 7, "m_name": b"seven", "m_on": True})
    out = []
    for n, ser in enumerate(targets.kingsisle_serializers()):
        try:
            out.append(bytes([n]) + ser.encode(item))
        except EncodeError:
            continue
    zeros = zlib.compress(bytes(1 << 16), 9)  # a bomb, said true and said small
    for n in (5, len(targets.kingsisle_serializers()) - 1):  # compressed; max_expansion=1
        out += [bytes([n]) + b"\x01" + size.to_bytes(4, "little") + zeros
                for size in (1 << 16, 100)]
    return out


def kingsisle_from_xml() -> list[bytes]:
    """The XML of the synthetic objects of ``kingsisle.decode``'s seeds, and small documents in
    the other forms the reader takes."""
    from gameserde.kingsisle import to_xml

    ser = targets.kingsisle_serializers()[0]
    out = [to_xml(ser.decode(seed[1:]), ser.schema).encode()
           for seed in kingsisle_decode() if seed[0] == 0]
    root = '<Objects><Class Name="class Root">{}</Class></Objects>'
    out += [root.format(body).encode() for body in (
        '<m_bool>true</m_bool><m_float>nan(0x7fa00001)</m_float><m_bits>B_ONE|B_TWO</m_bits>',
        '<m_str encoding="hex">ff00</m_str><m_wstr encoding="hex">d800</m_wstr><m_ints/>',
        '<m_pos>1,2,3</m_pos><m_kind>K_B</m_kind><m_kinds key="0">7</m_kinds>',
        '<m_items key="0">0</m_items><m_items key="1"><Class Name="class Item"><m_id>1</m_id>'
        "</Class></m_items><m_child><Class Name='class Item'/></m_child>")]
    return out


def _kingsisle_objects() -> list[object]:
    """The differential tests' roots of the synthetic type list, small and big."""
    from tests.kingsisle.test_katsuba_serializer import root, without

    rng = random.Random(9)
    return [without(root(rng, big), "m_net", "m_old") for big in (False, True)]


def kingsisle_from_json() -> list[bytes]:
    """The JSON of the roots, with enums as numbers and as names, both recursion limits."""
    from gameserde.kingsisle import to_json

    schema = targets.kingsisle_serializers()[0].schema
    return [bytes([limit]) + to_json(obj, schema=schema, enum_names=names).encode()
            for obj in _kingsisle_objects() for names in (False, True) for limit in (0, 1)]


def kingsisle_bind() -> list[bytes]:
    """BINd files of the roots with the game's flags and with a few others."""
    from gameserde.kingsisle import BIND_FLAGS, write_bind
    from gameserde.kingsisle.objects import KiObject

    schema = targets.kingsisle_serializers()[0].schema
    out = []
    for obj in _kingsisle_objects():
        for flags in (BIND_FLAGS, 1, 5, 31):
            if flags & 16:  # FORBID_DELTA_ENCODE: every delta property has a value
                obj = KiObject(obj.type_name, obj.type_hash, {**obj, "m_gone": 1})
            out.append(bytes([2 if flags == 1 else 0]) + write_bind(obj, schema, flags=flags))
    bomb = b"BINd\x0b\x00\x00\x00\x01" + (1 << 16).to_bytes(4, "little") + zlib.compress(
        bytes(1 << 16), 9)
    return [*out, b"\x00" + bomb, b"\x04" + bomb]  # default max_expansion, and 1


def kingsisle_wad() -> list[bytes]:
    """Archives of a few shapes with each option, and the hostile archives of
    ``tests/kingsisle/test_wad.py``."""
    from gameserde.kingsisle import write_wad
    from tests.kingsisle.test_wad import hostile

    item = (ROOT / "examples" / "kingsisle" / "item.bin").read_bytes()
    archives = [write_wad(None, {}) or b"",
                write_wad(None, {"a/b.xml": b"<x/>" * 20, "s.mp3": bytes(40), "c": item}) or b"",
                write_wad(None, {f"d{i}/f{i}": bytes([i]) * i for i in range(12)},
                          version=1, flags=None) or b""]
    out = [bytes([options]) + wad for wad in archives for options in (0, 1, 2, 4)]
    return out + [b"\x04" + data for _, (data, _) in sorted(hostile().items())]


def cli_kingsisle() -> list[bytes]:
    """The decode seeds under decode, verify and inspect with their flags; their JSON and
    XML under encode (plain and BINd)."""
    from gameserde.kingsisle import to_json, to_xml

    out = []
    for seed in kingsisle_decode():
        ser = targets.kingsisle_serializers()[seed[0]]
        if ser.skip_unknown_types:
            continue
        deep = 0 if ser.shallow else 4
        out += [bytes([verb | deep, ser.flags]) + seed[1:] for verb in (0, 2, 3)]
        try:
            item = ser.decode(seed[1:])
        except DecodeError:  # a bomb: decode, verify and inspect only
            continue
        out.append(bytes([1 | deep, ser.flags]) + to_json(item).encode())
        out.append(bytes([1 | 64, ser.flags]) + to_xml(item, ser.schema).encode())
    return out


def cli_convert() -> list[bytes]:
    """Each format's CLI seeds as the input of a conversion to other options (see
    :func:`targets.cli_convert` for the selector bytes)."""
    out = []
    for index, buf in _godot_buffers()[:8]:
        out.append(bytes([(index % 3) << 3, index << 2 | (index % 4) << 4]) + buf)
    sav = (ROOT / "examples" / "godot" / "savegame.sav").read_bytes()
    out += [bytes([0, 1 | 2 << 4]) + sav, bytes([1 << 3, 1 | 64]) + sav]
    for index, buf in fb_buffers()[::3]:
        out.append(bytes([1 | 16 | 32 * (index % 2), index]) + buf)
    for seed in cli_zeze():
        if seed[0] & 3 != 1:  # not encode's JSON: binary beans and frames
            bean = seed[0] >> 4 & 7
            out.append(bytes([2 | (seed[0] & 4) << 1, bean | bean << 3]) + seed[2:])
    for seed in cli_kingsisle():
        if seed[0] & 3 != 1:
            deep = 32 if seed[0] & 4 else 0
            out.append(bytes([3 | (seed[1] ^ 1) << 3 & 0xF8, seed[1] & 31 | deep | 64])
                       + seed[2:])
    for path in sorted(O3DE_DATA.glob("*.*")):
        kind = ("", ".prefab", ".material", ".setreg").index(path.suffix) \
            if path.suffix in (".prefab", ".material", ".setreg") else 0
        out.append(bytes([4, kind | 4]) + path.read_bytes())
    return out


def o3de_parse() -> list[bytes]:
    """O3DE-like documents: prefab, setreg and material shapes, comments, repeated names,
    numbers at rapidjson's edges, escapes."""
    docs = [
        '{"ContainerEntity": {"Id": "ContainerEntity", "Name": "Level", "Components": {'
        '"Component_[1]": {"$type": "EditorInfoComponent", "Id": 18446744073709551615}}},'
        ' "Entities": {}, "Instances": {"Instance_[2]": {"Source": "a/b.prefab", "Patches":'
        ' [{"op": "replace", "path": "/x", "value": 0.10000000149011612}]}}}',
        '// settings\n{"Amazon": {"Preferences": {"EnablePrefabSystem": true,}, /* c */},}',
        '{"materialType": "../Types/StandardPBR.materialtype", "materialTypeVersion": 5,'
        ' "propertyValues": {"baseColor.color": [0.2232242375612259, 1.0, 1e-7, 5e-324]}}',
        '{"a": 1, "a": 2.5, "b": [true, false, null, -0, -0.0, 1E+2, 92.28478240966797]}',
        '["\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\", 18446744073709551616, 1e308]',
    ]
    raw = [  # the settings registry's reader (flag bit 2); bytes that are not UTF-8
        b'\x05{"Layout": "\\u0000\x8d\xff\xc3(", "b": [1,],} left over \x00 x',
        b'\x04\xef\xbb\xbf{}', b'\x04[1.5.2]1.', b'\x00{"\xed\xa0\x80": "\xf4\x90\x80\x80"}',
    ]
    return [bytes([flag]) + doc.encode() for doc in docs for flag in (0, 1)] + raw


def o3de_patch() -> list[bytes]:
    """``[target, patch]`` pairs for both kinds: the vectors' patch cases and a few more."""
    vectors = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "o3de" / "train.json"
    pairs: list[tuple[int, object]] = [
        (0, [{"a": {"b": [1, 2]}}, [{"op": "move", "from": "/a/b", "path": "/c"},
                                    {"op": "copy", "from": "/c", "path": "/a/d/-"},
                                    {"op": "test", "path": "#/c/0", "value": 1.0}]]),
        (1, [{"a": {"x": 1}, "b": [1]}, {"a": {"x": None, "y": {"z": 1}}, "b": None}]),
        (0, [[1, {"a": "b"}], [1, {"a": "c"}, 3]]),
    ]
    if vectors.is_file():
        cases = json.loads(vectors.read_text(encoding="utf-8"))["cases"]
        for case in cases:
            if case.get("direction") == "apply_patch":
                given = case["input"]
                pairs.append((case["type"] == "JsonMergePatch",
                              [given["target"], given["patch"]]))
    return [bytes([flag]) + json.dumps(pair).encode() for flag, pair in pairs]


O3DE_DATA = Path(__file__).resolve().parents[1] / "o3de" / "data"
"""Prefab, material and settings files of our own making (``cli.o3de`` seeds)."""


def o3de_imports() -> list[bytes]:
    """File trees (``top.setreg``, ``a.setreg``, ``b.setregpatch``, ``sub/c.json``,
    ``d.jsonpatch``, ``sub/e.setreg``, NUL-separated) for both ways: imports with patches,
    JSON Patch files, cycles, bombs, text the registry's parser ignores."""
    trees: list[list[object]] = [
        [{"pre": {"a": 1}, "$import": "a.setreg", "post": [1], "arr": [2]},
         {"$import": {"filename": "b.setregpatch"}, "arr": [1], "pre": {"b": 2}},
         [{"op": "add", "path": "/x", "value": {"$import": "sub/c.json"}},
          {"op": "remove", "path": "/nope"}],
         {"k": 1, "inner": {"$import": "../d.jsonpatch"}, "e": {"$import": "e.setreg"}},
         [{"op": "add", "path": "/list", "value": [1]}],
         '{"z": 1,} // trailing comma and text after the root} ]'],
        [{"props": {"$import": {"filename": "sub/c.json", "patch": {"k": None, "z": [1]}}},
          "list": [{"$import": "sub/c.json"}, {"$imp": "a.setreg"}]},
         {"x": {"$import": "top.setreg"}}, [], {"$import": "e.setreg", "k": 2}, [],
         {"$import": "../a.setreg"}],
        [{"l": {"$import": "a.setreg"}, "r": {"$import": "a.setreg"}, "$import": "a.setreg"},
         {"l": {"$import": "sub/e.setreg"}, "r": {"$import": "sub/e.setreg"}}, [], {}, [],
         {"l": {"$import": "../a.setreg"}, "$import": "../top.setreg"}],
    ]
    hostile_names: list[list[object]] = [  # byte 0 bit 1: "@" is the escape of a NUL
        [{"k": {"$import": "sub/c.json"}, "$import": "a@.setreg"}, {"x": 1}, [], {"c": 1}],
        [{"l": {"$import": {"filename": "@"}}, "$import": "a.setreg"}, {"$import": "b" * 1100},
         [], {"$import": "../" * 400 + "a.setreg"}],
    ]
    return [bytes([flag | names]) + b"\x00".join(
        (f if isinstance(f, str) else json.dumps(f)).encode() for f in tree)
        for names, group in ((0, trees), (2, hostile_names)) for tree in group
        for flag in (0, 1)]


def o3de_leaves() -> list[bytes]:
    """Paths with dots, separators and roots, base64 with and without padding, pointer
    objects with numeric, hexadecimal and bad addresses."""
    strings = [b"a/./b/../c", b"\\\\server\\share/..", b"/..", b"../../x/", b"C:\\a\\..",
               b"YWFhYWFhYWFhYQ==", b"QQ==QUFB", b"QUE=", b"QR==", b"Q===", b"", b"abc",
               b'{"$address": 16435934, "$type": "{5A40E851-A748-40F3-97BA-5BB3A98CDD61}"}',
               b'{"$address": "0xFACADE", "$type": "{5A40E851-A748-40F3-97BA-5BB3A98CDD61}"}',
               b'{"$address": "-1", "$type": "x"}', b'{"$type": 5}', b'"' + b"a/" * 600 + b'"']
    return [bytes([flag]) + text for text in strings for flag in range(8)]


def o3de_load() -> list[bytes]:
    """The vectors' load cases of the fuzz types, a few documents for every type and random
    bytes to spell JSON (byte 0 bit 7)."""
    from tests.fuzz.targets import O3DE_TYPES

    vectors = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "o3de" / "train.json"
    docs = ['{}', '[]', '0', '-1', '1.5', 'true', 'null', '"Option1|Option2"', '"1"',
            '[1, 2, 3]', '{"a": 1, "b": 2}', '[[1, 2], [3]]', '[0.5, 1.0, 2.0, 3.0]',
            '{"$type": "SimpleInheritence", "var1": 7, "base_var": 1.0}',
            '{"$type": "{5A40E851-A748-40F3-97BA-5BB3A98CDD61}", "value": {"var1": 3}}',
            '{"next": {"next": {}, "children": [{}, null]}, "extra": {"$type": "int", '
            '"value": 4}, "flags": "BitFlag1|8"}',
            '"{E152C105-A133-4D03-BBF8-3D4B2FBA3E2A}"', '[{"Key": "a", "Value": {}}]',
            '{"Translation": [1, 2, 3], "Rotation": [0, 0, 0, 1], "Scale": 2.0}']
    out = [bytes([i]) + doc.encode() for i in range(len(O3DE_TYPES)) for doc in docs]
    out += [bytes([128 | i]) + random.Random(i).randbytes(48) for i in range(len(O3DE_TYPES))]
    if vectors.is_file():
        for case in json.loads(vectors.read_text(encoding="utf-8"))["cases"]:
            if case.get("direction") == "load" and case.get("type") in O3DE_TYPES:
                out.append(bytes([O3DE_TYPES.index(case["type"])])
                           + json.dumps(case["input"]).encode())
    return out


GODOT_REAL = ROOT.parent / "shared" / "corpus" / "godot-real"


def godot_resource() -> list[bytes]:
    """The example save, text and binary, and the small files of the real-world corpus
    (when it is beside the project): text and binary, plain and compressed."""
    from gameserde.godot import resource

    text = (ROOT / "examples" / "godot" / "savegame.tres").read_bytes()
    out = [text, resource.write(resource.read(text), "binary")]
    if GODOT_REAL.is_dir():
        files = sorted(p for p in GODOT_REAL.glob("*/*") if p.name != "meta.json"
                       and p.stat().st_size <= 2048)
        out += [p.read_bytes() for p in files[::4]]
    return out


def html() -> list[bytes]:
    """The HTML tests' examples and damaged inputs, each after the byte that picks its codec."""
    from tests.fuzz.target_html import html_inputs
    from tests.htmlmap.inputs import damaged

    items = html_inputs()
    broken = {item.format: item.data for item in damaged()}
    return [bytes([n]) + data for n, item in enumerate(items)
            for data in (item.data, broken[item.format])]


SEEDS: dict[str, Callable[[], list[bytes]]] = {
    "godot.decode": godot_decode,
    "godot.framings": godot_framings,
    "godot.inspect": godot_inspect,
    "godot.from_json": godot_from_json,
    "godot.resource": godot_resource,
    "fb.verify": lambda: _fb(0),
    "fb.decode": lambda: _fb(0) + _fb(32)[:8],
    "fb.view": lambda: _fb(0),
    "fb.to_json": lambda: _fb(0) + _fb(32)[::4] + _fb(64)[::4],
    "fb.inspect": lambda: [s for s in _fb(0) if len(s) < 1024],
    "fb.from_json": fb_from_json,
    "fb.encode": fb_encode,
    "fb.flexbuffers": fb_flexbuffers,
    "fb.load_schema": fb_load_schema,
    "fb.bfbs": fb_bfbs,
    "zeze.load_schema": zeze_load_schema,
    "zeze.decode": zeze_decode,
    "zeze.generic": lambda: [bytes([seed[0] >> 5 & 1]) + seed[1:] for seed in zeze_decode()]
    + [b"\x00" + b"\x16" * 999 + b"\x00" * 1000],  # beans nested to the reader's cap
    "zeze.frames": zeze_frames,
    "zeze.inspect": lambda: [bytes([seed[0] & 31 | (128 if n % 2 else 0)]) + seed[1:]
                             for n, seed in enumerate(zeze_decode())],
    "zeze.from_json": zeze_from_json,
    "kingsisle.load_schema": kingsisle_load_schema,
    "kingsisle.decode": kingsisle_decode,
    "kingsisle.inspect": kingsisle_decode,
    "kingsisle.from_xml": kingsisle_from_xml,
    "kingsisle.from_json": kingsisle_from_json,
    "kingsisle.bind": kingsisle_bind,
    "kingsisle.wad": kingsisle_wad,
    "o3de.parse": o3de_parse,
    "o3de.patch": o3de_patch,
    "o3de.imports": o3de_imports,
    "o3de.leaves": o3de_leaves,
    "o3de.load": o3de_load,
    "o3de.store": lambda: [bytes([seed[0] | 64 * (n % 2)]) + seed[1:]
                           for n, seed in enumerate(o3de_load())],
    "cli": cli,
    "cli.zeze": cli_zeze,
    "cli.kingsisle": cli_kingsisle,
    "cli.convert": cli_convert,
    "cli.batch": lambda: [bytes([verb | framing << 2, cut]) + buf
                          for verb in range(4) for framing, cut in ((0, 0), (1, 128))
                          for _, buf in _godot_buffers()[:3]]
    + [bytes([verb | 1 << 2, 200]) + (ROOT / "examples" / "godot" / "savegame.sav").read_bytes()
       for verb in range(4)],
    "rows": cli_convert,
    "html": html,
    "cli.o3de": lambda: [bytes([verb | (4 if n % 2 else 0)]) + doc
                         for n, doc in enumerate(o3de_parse()) for verb in range(4)]
    + [bytes([verb | 8 * ("", ".prefab", ".material", ".setreg").index(path.suffix)
              | 4 * (path.suffix == ".setreg")]) + path.read_bytes()
       for verb in range(4) for path in sorted(O3DE_DATA.glob("*.*"))],
}


@functools.cache
def seeds(target: str) -> tuple[bytes, ...]:
    return tuple(SEEDS[target]())
