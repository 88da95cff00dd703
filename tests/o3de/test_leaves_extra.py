"""AZ::IO::Path / FixedMaxPath, JsonByteStream and PointerObject: the leaf serializers every
registry has, and the built-in type ids."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde import o3de
from gameserde.errors import EncodeError, SchemaError
from gameserde.o3de import Outcomes, ResultCode
from gameserde.o3de._primitives import base64_decode, lexically_normal
from tests.fuzz.test_growth import assert_linear

REG = o3de.Registry()
FACADE = UUID("{5A40E851-A748-40F3-97BA-5BB3A98CDD61}")
BRACED = "{5A40E851-A748-40F3-97BA-5BB3A98CDD61}"


def load(t: str, value: Any, target: Any = None) -> tuple[Any, o3de.Result]:
    return o3de.load(t, value, registry=REG, target=target)


# ---------------------------------------------------------------------------------------------
# Paths

@pytest.mark.parametrize(("path", "normal"), [
    # PathTests.cpp PathLexicallyNormal with '/' as the preferred separator
    ("foo/./bar/..", "foo"), ("foo/.///bar/../", "foo"), ("/foo\\./bar\\..\\", "/foo"),
    ("/..", "/"),
    # the same rules (AppendNormalPathParts) on more shapes
    ("..", ".."), ("foo/../../bar", "../bar"), (".", ""), ("a/..", ""), ("", ""),
    ("\\\\server\\share\\..", "/server"), ("C:\\a\\..\\b", "C:/b"), ("a\\b//c/", "a/b/c"),
    ("../../a/./b/../..", "../.."), ("///", "/"),
])
def test_lexically_normal(path: str, normal: str) -> None:
    assert lexically_normal(path) == normal
    value, result = load("AZ::IO::Path", path)
    assert (value, result.outcome) == (normal, Outcomes.Success)


@given(st.text(alphabet="ab./\\", max_size=30))
def test_lexically_normal_is_idempotent(path: str) -> None:
    once = lexically_normal(path)
    assert lexically_normal(once) == once and "\\" not in once


def test_paths_load_and_store() -> None:
    # PathSerializer.cpp: AsPosix on store; strings only; the default compares as paths
    # (root, then the parts without ".")
    stored, result = o3de.store("O3DE\\Relative/Path", "AZ::IO::Path", registry=REG)
    assert (stored, result.outcome) == ("O3DE/Relative/Path", Outcomes.Success)
    stored, result = o3de.store("a//./b", "AZ::IO::FixedMaxPath", registry=REG, default="a/b")
    assert (stored, result.outcome) == ({}, Outcomes.DefaultsUsed)
    stored, _ = o3de.store("/a/b", "AZ::IO::Path", registry=REG, default="a/b")
    assert stored == "/a/b"
    for wrong in (5, None, ["a"], {"a": 1}, True):
        value, result = load("AZ::IO::Path", wrong, target="keep")
        assert (value, result.outcome) == ("keep", Outcomes.Unsupported)
    value, result = load("AZ::IO::Path", {}, target="keep")
    assert (value, result.outcome) == ("keep", Outcomes.DefaultsUsed)
    with pytest.raises(EncodeError):
        o3de.store(5, "AZ::IO::Path", registry=REG)


def test_fixed_max_paths_hold_1024_bytes() -> None:
    # PathSerializerTests.cpp::LoadingIntoFixedMaxPath_GreaterThanMaxPathLength_Fails
    fits, result = load("AZ::IO::FixedMaxPath", "a" * 1024)
    assert fits == "a" * 1024 and result.ok
    value, result = load("AZ::IO::FixedMaxPath", "a" * 1025, target="keep")
    assert (value, result.outcome, result.processing.name) == ("keep", Outcomes.Invalid,
                                                               "Halted")
    value, result = load("AZ::IO::FixedMaxPath", "é" * 513, target="keep")  # 1026 bytes
    assert result.outcome == Outcomes.Invalid
    long, result = load("AZ::IO::Path", "a/" * 100_000)
    assert long == "a/" * 99_999 + "a" and result.ok
    with pytest.raises(EncodeError):
        o3de.store("a" * 1025, "AZ::IO::FixedMaxPath", registry=REG)


# ---------------------------------------------------------------------------------------------
# JsonByteStream

def test_byte_streams_are_base64() -> None:
    # ByteStreamSerializerTests.cpp: ten 'a' bytes are "YWFhYWFhYWFhYQ=="
    stored, result = o3de.store(b"a" * 10, "JsonByteStream", registry=REG)
    assert (stored, result.outcome) == ("YWFhYWFhYWFhYQ==", Outcomes.Success)
    assert load("vector<unsigned char>", "YWFhYWFhYWFhYQ==")[0] == b"a" * 10
    assert o3de.store(b"", "vector<uint8>", registry=REG, default=b"")[0] == {}
    assert o3de.store(b"\x00\xff", registry=REG)[0] == "AP8="  # bytes are a JsonByteStream


@pytest.mark.parametrize(("text", "decoded"), [
    # StringFunc.cpp Base64::Decode: length a multiple of 4, '=' in the 3rd or 4th place
    # ends the decoding, the unused bits are not checked
    ("", b""), ("QUFB", b"AAA"), ("QUE=", b"AA"), ("QQ==", b"A"), ("QR==", b"A"),
    ("QQ==QUFB", b"A"), ("QQ=x", b"A"), ("QUFBQQ=!", b"AAAA"),
    ("QUF", None), ("Q===", None), ("=QUF", None), ("QU!B", None), ("QUFB\n", None),
    ("QUé=", None), ("-_-_", None),
])
def test_base64_decoder(text: str, decoded: bytes | None) -> None:
    assert base64_decode(text) == decoded
    value, result = load("JsonByteStream", text, target=b"keep")
    if decoded is None:
        assert (value, result.outcome) == (b"keep", Outcomes.Invalid)
    else:
        assert (value, result.outcome) == (decoded, Outcomes.Success)


@given(st.binary(max_size=64))
def test_base64_round_trip(data: bytes) -> None:
    text = o3de.store(data, "JsonByteStream", registry=REG, keep_defaults=True)[0]
    assert text == base64.b64encode(data).decode()
    assert load("JsonByteStream", text)[0] == data


def test_byte_streams_refuse_other_json() -> None:
    for wrong in (5, None, [1, 2], True):
        value, result = load("JsonByteStream", wrong, target=b"x")
        assert (value, result.outcome) == (b"x", Outcomes.Unsupported)
    with pytest.raises(EncodeError):
        o3de.store([1, 2], "JsonByteStream", registry=REG)


# ---------------------------------------------------------------------------------------------
# PointerObject

def test_pointer_objects() -> None:
    # PointerSerializerTests.cpp: {"$address": 0x00facade, "$type": <uuid>}
    value = o3de.PointerObject(0x00FACADE, FACADE)
    stored, result = o3de.store(value, registry=REG)
    assert stored == {"$address": 16435934, "$type": "{5A40E851-A748-40F3-97BA-5BB3A98CDD61}"}
    assert result.outcome == Outcomes.Success
    assert load("PointerObject", stored) == (value, load("PointerObject", stored)[1])
    hexa, result = load("AZ::PointerObject", {"$address": "0XfAcAdE", "$type": BRACED})
    assert hexa == value and result.ok
    texts = {"$address": "18446744073709551616", "$type": BRACED}
    kept, result = load("PointerObject", texts, target=o3de.PointerObject())
    assert kept == o3de.PointerObject() and result.outcome == Outcomes.Invalid


@pytest.mark.parametrize("given_json", [{"$type": BRACED}, {"$address": 5}])
def test_pointer_objects_need_both_fields(given_json: dict[str, Any]) -> None:
    # JsonSerializerConformityTests.h Load_DeserializeWithMissingMandatoryField_...: Missing
    value, result = load("PointerObject", given_json, target=o3de.PointerObject(1, FACADE))
    assert value == o3de.PointerObject(1, FACADE)
    assert result.outcome == Outcomes.Missing and result.processing.name == "Halted"
    direct, result = o3de.load_direct("PointerObject", {}, registry=REG)
    assert direct == o3de.PointerObject() and result.outcome == Outcomes.Missing
    value, result = load("PointerObject", [1], target=o3de.PointerObject(1, FACADE))
    assert result.outcome == Outcomes.Unsupported


def test_a_reporter_sees_the_pointer_reports() -> None:
    seen: list[str] = []

    def note(message: str, code: ResultCode, path: str) -> ResultCode:
        seen.append(message)
        return code

    o3de.load("PointerObject", {"$address": "zz", "$type": BRACED}, registry=REG,
              reporter=note)
    assert "Cannot convert string zz to a memory address" in seen
    assert seen[-1] == "Failed to load data into PointerObject."


# ---------------------------------------------------------------------------------------------
# Registry

@pytest.mark.parametrize(("name", "uuid"), [
    # AzCore/RTTI/TypeInfo.cpp, IO/Path/Path.h, Serialization/PointerObject.cpp, Name/Name.h
    ("signed char", "{58422C0E-1E47-4854-98E6-34098F6FE12D}"),
    ("char", "{3AB0037F-AF8D-48CE-BCA0-A170D18B2C03}"),
    ("AZ::u64", "{D6597933-47CD-4FC8-B911-63F3E2B0993A}"),
    ("AZStd::string", "{03AAAB3F-5C47-5A66-9EBC-D5FA4DB353C9}"),
    ("AZ::Name", "{3D2B920C-9EFD-40D5-AAE0-DF131C3D4931}"),
    ("AZ::IO::Path", "{88E0A40F-3085-4CAB-8B11-EF5A2659C71A}"),
    ("AZ::IO::FixedMaxPath", "{FA6CA49F-376A-417C-9767-DD50744DF203}"),
    ("PointerObject", "{256581B7-8512-41FD-9A2C-6AF76B3E7BD6}"),
    # Tests/Patching.cpp: a "ByteStream" (AZStd::vector<AZ::u8>) element of that type
    ("vector<uint8>", "{ADFD596B-7177-5519-9752-BC418FE42963}"),
])
def test_type_ids(name: str, uuid: str) -> None:
    assert REG.type_id(REG.resolve(name)) == o3de.parse_uuid(uuid)


def test_leaves_in_classes_and_dataclasses() -> None:
    reg = o3de.Registry()
    reg.add_class("Asset", None, [("path", "AZ::IO::Path", "default/path"),
                                  ("blob", "vector<AZ::u8>", b"")])
    asset = reg.create(reg.resolve("Asset"))
    asset.path, asset.blob = "x\\y", b"hi"
    stored, _ = o3de.store(asset, registry=reg)
    assert stored == {"path": "x/y", "blob": "aGk="}
    back, result = o3de.load("Asset", {"path": "x/./y/", "blob": "aGk="}, registry=reg)
    assert (back.path, back.blob) == ("x/y", b"hi") and result.ok
    with pytest.raises(SchemaError):
        reg.add_serializer("AZ::IO::Path", o3de.Serializer())


def long_path(n: int) -> bytes:
    return b'"' + b"a/./../b\\\\" * n + b'"'


def long_base64(n: int) -> bytes:
    return b'"' + b"QUFB" * n + b'QQ=x"'


@pytest.mark.parametrize(("make", "type_name"), [
    (long_path, "AZ::IO::Path"), (long_base64, "JsonByteStream"),
    (lambda n: b'"' + b"QQ==" * n + b'"', "JsonByteStream")])
def test_loads_grow_linearly(make: Any, type_name: str) -> None:
    assert_linear(make, lambda text: o3de.load(type_name, o3de.parse(text), registry=REG),
                  (2000, 4000, 8000))
