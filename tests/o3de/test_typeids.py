"""Template type ids and names as the engine computes them (AzCore/RTTI/TemplateInfo.h,
TypeInfo.h, Math/Uuid.inl), checked against ids the engine wrote into files of o3de/o3de."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from gameserde.errors import SchemaError
from gameserde.o3de import AnyValue, Registry, load, load_type_id, store, store_type_id
from gameserde.o3de.typeid import (
    NULL_UUID,
    aggregate_ids,
    combine_ids,
    name_id,
    template_type,
)

# Scripting names in the .names file mapped to ours: Array = vector, Set = unordered_set,
# Map = unordered_map, Tuple = tuple, Number = double, Number:u32 = uint32, CRC = Crc32.
# Rows from Gems/ScriptCanvas/Assets/TranslationAssets/Types/OnDemandReflectedTypes.names
# (the "base" id of the entry and its "details" name).
ORACLE = [
    ("vector<AssetId>", "{877C4A33-39B5-51D7-948D-F97DB81372A1}"),
    ("unordered_map<string,any>", "{9F4210F0-9A8E-5536-A6FD-F3F55D854C0A}"),
    ("unordered_map<Uuid,unordered_map<string,any>>", "{549C99B0-35FE-515D-9066-DFA9A1131500}"),
    ("vector<bool>", "{B505B05D-57BF-5A45-9113-B3A2784E2CD7}"),
    ("vector<Vector2>", "{82AC1A71-2EA7-5FBC-9B3B-72B1CCFDD292}"),
    ("vector<double>", "{F31F64EA-E384-5536-ACD6-8F01849730FC}"),
    ("vector<string>", "{99DAD0BC-740E-5E82-826B-8FC7968CC02C}"),
    ("vector<Matrix4x4>", "{240FCAC2-0B29-5CD9-9AFE-9E7A135428BB}"),
    ("vector<Crc32>", "{287CEE87-6FF3-52FC-9D32-38255E2C7FE9}"),
    ("vector<Vector3>", "{4599647A-45DD-585B-AFC0-4BAD29EB49A7}"),
    ("vector<Transform>", "{7FF36F26-644E-5051-84BB-AE54534C84D4}"),
    ("vector<Vector4>", "{16DCF0FE-97AD-54FE-8796-74CE2156240B}"),
    ("vector<EntityId>", "{4841CFF0-7A5C-519C-BD16-D3625E99605E}"),
    ("vector<Quaternion>", "{5CBE5640-DF5C-5A49-9195-D790881A0747}"),
    ("vector<uint32>", "{3349AACD-BE04-50BC-9478-528BF2ACFD55}"),
    ("vector<Color>", "{24A1B3FF-51E3-5699-9ED7-49D835DE1DED}"),
    ("vector<Matrix3x3>", "{14E8FE40-1072-5691-9F23-E3600A9C4614}"),
    ("vector<Uuid>", "{3A9E52F9-1A46-5FC6-822A-249BBFB50C90}"),
    ("tuple<EntityId, bool>", "{BFA7A8BD-787E-56C2-96C1-115A572EB249}"),
    ("tuple<Vector3, bool>", "{33844DCE-75B0-5734-A1B7-7C44199D1D5E}"),
    ("tuple<double, double, double, double>", "{7352CD6D-91DA-536F-BFCC-BC513FB48B2D}"),
    ("tuple<Vector3, double>", "{CD6328B1-6CC4-54CE-97F4-9D91F5A242F4}"),
    ("tuple<Vector3, Vector3>", "{1F24C807-BE2F-54C7-8F2B-498727236DF5}"),
    ("tuple<Vector3, string, bool>", "{5BAFAD11-D6AF-5946-B09B-6E0B72E1209C}"),
    ("tuple<Vector4, Vector4, Vector4, Vector4>", "{3750867E-BD2D-52A2-B93B-51032E86C4D4}"),
    ("tuple<Vector3, Vector3, Vector3>", "{93942742-473F-5EE3-8420-D8F22C612221}"),
    ("unordered_set<EntityId>", "{6C8F8E52-AB4A-5C1F-8E56-9AC390290B94}"),
    ("unordered_set<double>", "{8A408689-0904-5A87-B6C4-FAB519089D8B}"),
    ("unordered_set<Crc32>", "{93BBB90E-EBB4-507D-89B6-E4921FE44AFF}"),
    ("unordered_set<string>", "{32EC831B-8AE7-5715-998B-C0C723CB61DA}"),
    ("unordered_set<bool>", "{0D5E2C44-B2DE-57D6-B4B9-3F37C5D9B245}"),
    ("unordered_set<AssetId>", "{DB1EB3E5-F953-53A7-B8F9-9121E6A77F85}"),
    ("unordered_map<AssetId, Vector4>", "{232F1AE7-4411-5D69-B59C-71D7036FC5E4}"),
    ("unordered_map<double, Transform>", "{7AB203ED-4DE1-5DB6-AE1F-23E8D6104EE5}"),
    ("unordered_map<string, Matrix4x4>", "{E3FCF041-81CA-5782-9530-CC7793B53765}"),
    ("unordered_map<AssetId, string>", "{73383C40-9632-58AB-9CFE-E90C89E1C612}"),
    ("unordered_map<EntityId, Vector3>", "{F9AFBC85-749B-5A76-8E09-6B734D234C90}"),
    ("unordered_map<EntityId, Crc32>", "{20F3C1D8-E0E1-5211-BE7E-61EF5BD7F5FB}"),
    ("unordered_map<EntityId, double>", "{70470FDA-2C2E-549A-A67A-6FA7388FB823}"),
    ("unordered_map<AssetId, Matrix3x3>", "{6018488A-73E5-5AE2-ACE7-62DAC3DBECB8}"),
    ("unordered_map<Crc32, Transform>", "{EEE66112-B216-51A2-B10A-62F805C1C6F4}"),
    ("unordered_map<Crc32, Color>", "{961EE5AE-685E-5B9E-B3AC-604C5F2F4C1A}"),
    ("unordered_map<EntityId, Vector2>", "{87073E82-1470-5DBD-92EB-ED294F351AB6}"),
    ("unordered_map<Crc32, string>", "{C8E55ED7-2D57-586D-B8A4-BC3CF9A0883C}"),
    ("array<Vector3,2>", "{E65D74A8-908B-51B4-94CC-7226AC363DD5}"),
    ("shared_ptr<PolygonPrism>", "{2E879A16-9143-5862-A5B3-EDED931C60BC}"),
]
# Ids in "$type" members of prefab files (e.g. AutomatedTesting/Levels/*/*.prefab).
SCRIPT_CANVAS_ORACLE = [
    ("unordered_map<string,double>", "{D0A15826-BEFB-5FBD-BEB4-609E7F2B67AD}"),
    ("unordered_map<string,Vector3>", "{8B173592-95EA-56B6-AE88-33A58FDAF93E}"),
    ("unordered_map<string,string>", "{F8A7460C-2CC2-5755-AFDA-49B1109A751E}"),
]
# AzCore/Component/EntityId.h, AzCore/Asset/AssetCommon.h, AzCore/Math/Crc.cpp,
# AzCore/Math/PolygonPrism.h
CLASSES = {"EntityId": "{6383F1D3-BB27-4E6B-A49A-6409B2059EAA}",
           "AssetId": "{652ED536-3402-439B-AEBE-4A5DBC554085}",
           "Crc32": "{9F4E062E-06A0-46D4-85DF-E0DA96467D3A}",
           "PolygonPrism": "{F01C8BDD-6F24-4344-8945-521A8750B30B}"}
VECTOR_DOUBLE = "{F31F64EA-E384-5536-ACD6-8F01849730FC} AZStd::vector<double, allocator>"


def registry() -> Registry:
    reg = Registry()
    for name, uuid in CLASSES.items():
        reg.add_class(name, uuid)
    return reg


@pytest.mark.parametrize(("text", "expected"), ORACLE + SCRIPT_CANVAS_ORACLE)
def test_template_ids_match_the_engine(text: str, expected: str) -> None:
    reg = registry()
    assert reg.type_id(reg.resolve(text)) == UUID(expected)


def test_string_id_is_a_computed_basic_string_id() -> None:
    char = (UUID("3AB0037F-AF8D-48CE-BCA0-A170D18B2C03"), "char")
    traits = template_type("char_traits", [char])
    assert traits is not None
    made = template_type("basic_string", [char, traits, (UUID("E9F5A3BE-2B3D-4C62-9E6B-"
                                                               "4E00A13AB452"), "allocator")])
    assert made == (UUID("03AAAB3F-5C47-5A66-9EBC-D5FA4DB353C9"),
                    "AZStd::basic_string<char, AZStd::char_traits<char>, allocator>")
    assert Registry().type_id(Registry().resolve("string")) == made[0]


def test_asset_template_goes_in_front() -> None:
    # Gems/Atom/RPI/Code/Include/Atom/RPI.Reflect/Image/StreamingImageAsset.h; the id in
    # "$type" of Gems/Atom/Tools/MaterialCanvas/Assets/MaterialCanvas/TestData/
    # test3.materialgraph: "{403A7CFE-...} Asset<StreamingImageAsset>".
    streaming = (UUID("3C96A826-9099-4308-A604-7B19ADBF8761"), "StreamingImageAsset")
    assert template_type("Asset", [streaming]) == (
        UUID("403A7CFE-B218-5D57-8540-BD58E734BCFE"), "Asset<StreamingImageAsset>")


def test_combining_ids() -> None:
    a, b, c = name_id("a"), name_id("b"), name_id("c")
    assert name_id("") == NULL_UUID
    assert name_id("a").version == 5 and name_id("a").variant == "specified in RFC 4122"
    assert combine_ids(a, b) != combine_ids(b, a)
    assert aggregate_ids([a, b, c]) == combine_ids(a, combine_ids(b, c))
    assert aggregate_ids([a, b, NULL_UUID]) == combine_ids(a, b)
    assert aggregate_ids([]) == NULL_UUID


def test_engine_names() -> None:
    reg = registry()
    assert reg.registered_name(reg.resolve("vector<Vector3>")) == (
        "AZStd::vector<Vector3, allocator>")
    assert reg.registered_name(reg.resolve("vector<EntityId>")) == (
        "AZStd::vector<EntityId, allocator>")
    text = ("AZStd::unordered_map<AZStd::basic_string<char, AZStd::char_traits<char>, "
            "allocator>, Vector3, AZStd::hash<AZStd::basic_string<char, AZStd::char_traits"
            "<char>, allocator>>, AZStd::equal_to<AZStd::basic_string<char, AZStd::char_traits"
            "<char>, allocator>>, allocator>")
    t = reg.resolve("unordered_map<string,Vector3>")
    assert reg.registered_name(t) == text
    assert reg.resolve(text) == t
    assert reg.registered_name(reg.resolve("map<int,float>")) == (
        "AZStd::map<int, float, AZStd::less<int>, allocator>")
    assert reg.registered_name(reg.resolve("fixed_vector<int,8>")) == (
        "AZStd::fixed_vector<int, 8>")
    assert reg.registered_name(reg.resolve("shared_ptr<vector<int>*>")) == (
        "AZStd::shared_ptr<AZStd::vector<int, allocator>*>")


def test_pointers() -> None:
    reg = registry()
    graph = reg.resolve("shared_ptr<PolygonPrism>")
    # A T* has the id of T (AzTypeInfo<T*>::Uuid()); as an argument it adds PointerId.
    assert reg.type_id(reg.resolve("shared_ptr<PolygonPrism>*")) == reg.type_id(graph)
    assert reg.type_id(reg.resolve("vector<PolygonPrism*>")) != reg.type_id(
        reg.resolve("vector<PolygonPrism>"))


@pytest.mark.parametrize("text", ["allocator", "allocator*", "vector<int, int>",
                                  "pair<int, allocator>", "vector<allocator>",
                                  "map<int, float, AZStd::less<float>, allocator>",
                                  "vector<int, allocator, allocator>"])
def test_misplaced_default_arguments(text: str) -> None:
    with pytest.raises(SchemaError):
        registry().resolve(text)


def test_multimap_keeps_a_gameserde_id() -> None:
    reg = registry()
    t = reg.resolve("multimap<int,int>")
    assert reg.type_id(t) != reg.type_id(reg.resolve("unordered_multimap<int,int>"))
    assert reg.registered_name(t) == "multimap<int,int>"


def test_store_and_load_type_ids_of_templates() -> None:
    reg = registry()
    text, result = store_type_id("vector<double>", registry=reg)
    assert text == VECTOR_DOUBLE and result.ok
    expected = UUID("F31F64EA-E384-5536-ACD6-8F01849730FC")
    for written in (VECTOR_DOUBLE, "AZStd::vector<double, allocator>", "vector<double>",
                    "  AZStd::vector<double>  "):
        uuid, result = load_type_id(written, registry=reg)
        assert uuid == expected and result.ok, written
    uuid, result = load_type_id("AZStd::vector<Nope, allocator>", registry=reg)
    assert uuid == NULL_UUID and not result.ok


def test_any_holding_a_vector() -> None:
    reg = registry()
    value = AnyValue("vector<double>", [1.0, 2.5])
    out, result = store(value, "any", registry=reg)
    assert out == {"$type": VECTOR_DOUBLE, "Value": [1.0, 2.5]} and result.ok
    loaded, result = load("any", out, registry=reg)
    assert loaded == value and result.ok
    engine: Any = {"$type": "{4599647A-45DD-585B-AFC0-4BAD29EB49A7} "
                           "AZStd::vector<Vector3, allocator>", "Value": [[1.0, 2.0, 3.0]]}
    loaded, result = load("any", engine, registry=reg)
    assert result.ok and loaded.type == "vector<Vector3>" and len(loaded.value) == 1
    wrong_id = {"$type": "{4599647A-45DD-585B-AFC0-4BAD29EB49A7} AZStd::vector<double, "
                         "allocator>", "Value": [1.0]}
    loaded, result = load("any", wrong_id, registry=reg)
    assert loaded == AnyValue()


def test_string_in_an_any_carries_its_uuid() -> None:
    out, _ = store(AnyValue("string", "hi"), "any", registry=Registry())
    assert out == {"$type": "{03AAAB3F-5C47-5A66-9EBC-D5FA4DB353C9} AZStd::string",
                   "Value": "hi"}


def test_templates_of_class_fields_are_known_by_id() -> None:
    reg = registry()
    reg.add_class("Path", "{0A1B2C3D-0000-4000-8000-000000000001}",
                  [("Points", "vector<Vector3>"), ("Tags", "map<string,shared_ptr<Lazy>>")])
    # The editor's older files name templates without their arguments.
    for written in ("{4599647A-45DD-585B-AFC0-4BAD29EB49A7} AZStd::vector",
                    "{4599647A-45DD-585B-AFC0-4BAD29EB49A7}"):
        loaded, result = load("any", {"$type": written, "Value": [[1.0, 2.0, 3.0]]},
                              registry=reg)
        assert result.ok and loaded.type == "vector<Vector3>", written
    text, result = store_type_id(UUID("4599647A-45DD-585B-AFC0-4BAD29EB49A7"), registry=reg)
    assert text == "{4599647A-45DD-585B-AFC0-4BAD29EB49A7} AZStd::vector<Vector3, allocator>"
    unknown = {"$type": "{F31F64EA-E384-5536-ACD6-8F01849730FC} AZStd::vector", "Value": [1.0]}
    assert load("any", unknown, registry=reg)[0] == AnyValue()


def test_bytes_in_an_any_are_named_as_the_engine_names_vector_of_u8() -> None:
    reg = Registry()
    out, result = store(AnyValue("JsonByteStream", b"ab"), "any", registry=reg)
    assert result.ok and out == {
        "$type": "{ADFD596B-7177-5519-9752-BC418FE42963} AZStd::vector<unsigned char, allocator>",
        "Value": "YWI="}
    for text in (out["$type"], "AZStd::vector<unsigned char, allocator>"):
        back, loaded = load("any", {"$type": text, "Value": "YWI="}, registry=reg)
        assert loaded.ok and back == AnyValue("JsonByteStream", b"ab")
