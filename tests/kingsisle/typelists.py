"""A synthetic type list over every scalar leaf type, strings, an enum, lists and objects
(the spec's advice for testing against katsuba), shared by the tests and the fuzz targets."""

from __future__ import annotations

import json

from gameserde.kingsisle import property_hash, string_id

ENUM, DEPRECATED, DELTA = 1 << 21, 1 << 6, 1 << 8
ENUM_OPTIONS = {
    "enum Kind": {"K_A": 0, "K_B": 7, "K_C": 1 << 30, "__DEFAULT": "K_A"},
    "enum Bits": {"B_ONE": 1, "B_TWO": 2, "B_HIGH": 1 << 31},
}
PROPERTIES = {  # class -> [(name, type, flags, dynamic, pointer)]
    "class Item": [("m_id", "unsigned int", 31, False, False),
                   ("m_name", "std::string", 31, False, False),
                   ("m_on", "bool", 31, False, False)],
    "class Root": [
        ("m_bool", "bool", 31, False, False), ("m_char", "char", 31, False, False),
        ("m_bool2", "bool", 31, False, False), ("m_uchar", "unsigned char", 31, False, False),
        ("m_short", "short", 31, False, False), ("m_ushort", "unsigned short", 31, False, False),
        ("m_wchar", "wchar_t", 31, False, False), ("m_int", "int", 31, False, False),
        ("m_uint", "unsigned int", 31, False, False), ("m_long", "long", 31, False, False),
        ("m_ulong", "unsigned long", 31, False, False), ("m_float", "float", 31, False, False),
        ("m_double", "double", 31, False, False),
        ("m_u64", "unsigned __int64", 31, False, False), ("m_gid", "gid", 31, False, False),
        ("m_bi3", "bi3", 31, False, False), ("m_bui5", "bui5", 31, False, False),
        ("m_s24", "s24", 31, False, False), ("m_u24", "u24", 31, False, False),
        ("m_str", "std::string", 31, False, False),
        ("m_wstr", "std::wstring", 31, False, False),
        ("m_empty", "std::string", 31, False, False),
        ("m_kind", "enum Kind", 31 | ENUM, False, False),
        ("m_ints", "unsigned int", 31, True, False),
        ("m_items", "class Item*", 31, True, True),
        ("m_child", "class Item*", 31, False, True),
        ("m_none", "class Item*", 31, False, True),
        ("m_old", "int", 31 | DEPRECATED, False, False),
        ("m_delta", "int", 31 | DELTA, False, False),
        ("m_gone", "int", 31 | DELTA, False, False),
        ("m_net", "int", 0x18, False, False),
        ("m_color", "class Color", 31, False, False),
        ("m_pos", "class Vector3D", 31, False, False),
        ("m_rot", "class Quaternion", 31, False, False),
        ("m_flag3", "bool", 31, False, False),
        ("m_euler", "class Euler", 31, False, False),
        ("m_matrix", "class Matrix3x3", 31, False, False),
        ("m_size", "class Size<int>", 31, False, False),
        ("m_point", "class Point<int>", 31, False, False),
        ("m_upoint", "class Point<unsigned int>", 31, False, False),
        ("m_bpoint", "class Point<unsigned char>", 31, False, False),
        ("m_fpoint", "class Point<float>", 31, False, False),
        ("m_rect", "class Rect<int>", 31, False, False),
        ("m_frect", "class Rect<float>", 31, False, False),
        ("m_path", "class Vector3D", 31, True, False),
        ("m_bits", "enum Bits", 31 | (1 << 20), False, False),
        ("m_kinds", "enum Kind", 31 | ENUM, True, False),
    ],
}


def type_list() -> str:
    classes = {}
    for cls, props in PROPERTIES.items():
        h = string_id(cls)
        classes[str(h)] = {"name": cls, "bases": [], "hash": h, "singleton": False,
                           "properties": {
            name: {"type": t, "id": i, "offset": 0, "flags": flags,
                   "container": "List" if dyn else "Static", "dynamic": dyn, "pointer": ptr,
                   "hash": property_hash(t, name),
                   **({"enum_options": ENUM_OPTIONS[t]} if t in ENUM_OPTIONS else {})}
            for i, (name, t, flags, dyn, ptr) in enumerate(props)}}
    return json.dumps({"version": 2, "classes": classes})
