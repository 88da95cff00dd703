"""Godot 4's own byte-exact vectors (``tests/core/io/test_marshalls.h``; spec godot.md §11)."""

from __future__ import annotations

import pytest

from gameserde.errors import DecodeError
from gameserde.godot import TypedArray, TypedDictionary, VariantType, decode_prefix, encode
from gameserde.godot import marshalls as m

X = 0x0F123456789ABCDEF - (1 << 64)  # uint64 0xF123456789ABCDEF as the engine's int64


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_fixed_width_helpers() -> None:  # vectors 1-13
    assert m.encode_uint16(0x1234) == h("34 12")
    assert m.encode_uint32(0x12345678) == h("78 56 34 12")
    assert m.encode_uint64(0xF123456789ABCDEF) == h("ef cd ab 89 67 45 23 f1")
    assert m.decode_uint16(h("34 12")) == 0x1234
    assert m.decode_uint32(h("78 56 34 12")) == 0x12345678
    assert m.decode_uint64(h("ef cd ab 89 67 45 23 f1")) == 0xF123456789ABCDEF
    assert m.encode_half(0.33325195) == h("55 35")
    assert m.encode_float(0.15625) == h("00 00 20 3e")
    assert m.encode_double(0.33333333333333333) == h("55 55 55 55 55 55 d5 3f")
    # The engine compares with the float32 literal 0.33325195f.
    assert m.decode_half(h("55 35")) == m.decode_float(m.encode_float(0.33325195))
    assert m.decode_float(h("00 00 20 3e")) == 0.15625
    assert m.decode_double(h("55 55 55 55 55 55 d5 3f")) == 0.33333333333333333
    assert m.encode_cstring("Godot") == h("47 6f 64 6f 74 00")


SCALARS = [  # vectors 14-18 and their decodes 21-25
    (None, "00 00 00 00"),
    (0x12345678, "02 00 00 00 78 56 34 12"),
    (X, "02 00 01 00 ef cd ab 89 67 45 23 f1"),
    (0.15625, "03 00 00 00 00 00 20 3e"),
    (0.33333333333333333, "03 00 01 00 55 55 55 55 55 55 d5 3f"),
]


@pytest.mark.parametrize(("value", "wire"), SCALARS)
def test_scalar_vectors(value: object, wire: str) -> None:
    assert encode(value) == h(wire)
    decoded, used = decode_prefix(h(wire))
    assert decoded == value and type(decoded) is type(value)
    assert used == len(h(wire))


@pytest.mark.parametrize("wire", ["00", "ff 00 00 00"])  # vectors 19-20
def test_invalid_vectors(wire: str) -> None:
    with pytest.raises(DecodeError):
        decode_prefix(h(wire))


TYPED_ARRAY = "1c 00 01 00  02 00 00 00  01 00 00 00  02 00 01 00 ef cd ab 89 67 45 23 f1"
TYPED_DICT = ("1b 00 05 00  02 00 00 00  02 00 00 00  01 00 00 00  "
              "02 00 01 00 ef cd ab 89 67 45 23 f1  02 00 01 00 ef cd ab 89 67 45 23 f1")


def test_typed_array_vectors() -> None:  # vectors 26-27
    value = TypedArray(VariantType.INT, [X])
    assert encode(value) == h(TYPED_ARRAY)
    decoded, used = decode_prefix(h(TYPED_ARRAY))
    assert used == 24
    assert isinstance(decoded, TypedArray) and decoded == value
    assert decoded.element_type.builtin == VariantType.INT


def test_typed_dictionary_vectors() -> None:  # vectors 28-29
    value = TypedDictionary(VariantType.INT, VariantType.INT, [(X, X)])
    assert encode(value) == h(TYPED_DICT)
    decoded, used = decode_prefix(h(TYPED_DICT))
    assert used == 40
    assert isinstance(decoded, TypedDictionary) and decoded == value
    assert decoded.key_type.builtin == decoded.value_type.builtin == VariantType.INT
