"""``godot.verify`` in every framing, the hints of a ``store_var`` length that does not fit, and
``guess_framing``: the reading under which undecodable data decodes whole."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError
from gameserde.godot import (
    FRAMINGS,
    Object,
    Vector3,
    encode,
    get_var,
    iter_packets,
    iter_vars,
    put_packet,
    store_var,
    variant_to_base64,
    verify,
)
from gameserde.godot.framing import Guess, guess_framing, records

from .strategies import variants

VALUES: list[Any] = [{"hp": 87.5, "pos": Vector3(1, 2, 3)}, [1, "two"], "three"]


def framed(framing: str, big_endian: bool = False, profile: str = "godot4") -> bytes:
    if framing == "raw":
        return encode(VALUES, profile=profile)
    if framing == "store_var":
        return b"".join(store_var(v, big_endian=big_endian, profile=profile) for v in VALUES)
    if framing == "packet_stream":
        return b"".join(put_packet(v, profile=profile) for v in VALUES)
    return variant_to_base64(VALUES, profile=profile).encode() + b"\n"


# ---------------------------------------------------------------------------------------------
# verify


@pytest.mark.parametrize("framing", FRAMINGS)
def test_verify_accepts_what_the_engine_reads(framing: str) -> None:
    verify(framed(framing), framing=framing)
    found = list(records(framed(framing), framing=framing))
    expected = 1 if framing in ("raw", "base64") else len(VALUES)
    assert len(found) == expected
    if expected > 1:
        assert [r.value for r in found] == [*iter_vars(framed(framing))]
        assert [r.offset for r in found] == [0, found[0].size, found[0].size + found[1].size]
    verify(framed("store_var", True), framing="store_var", big_endian=True)


@pytest.mark.parametrize("framing", ["raw", "base64"])
def test_verify_refuses_trailing_bytes_unless_allowed(framing: str) -> None:
    data = encode(1) + b"junk"
    if framing == "base64":
        data = base64.b64encode(data)
    with pytest.raises(DecodeError) as e:
        verify(data, framing=framing)
    assert e.value.offset == 8
    assert str(e.value).startswith("godot decode error at byte 8 (0x8): 4 bytes after the value")
    verify(data, framing=framing, allow_trailing=True)  # the engine ignores them


@pytest.mark.parametrize("framing", FRAMINGS)
def test_verify_refuses_cut_data(framing: str) -> None:
    data = framed(framing)
    cut = data[:-6] if framing != "base64" else data[:-8] + b"\n"
    with pytest.raises(DecodeError):
        verify(cut, framing=framing)


def test_verify_objects_only_when_allowed() -> None:
    data = encode(Object("Node", {}), full_objects=True)
    with pytest.raises(DecodeError, match="allow_objects"):
        verify(data)
    verify(data, allow_objects=True)


def test_verify_arguments() -> None:
    with pytest.raises(ValueError, match="unknown framing 'zip'"):
        verify(b"", framing="zip")
    with pytest.raises(ValueError, match="store_var framing only"):
        verify(encode(1), big_endian=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(v=variants("godot4"), framing=st.sampled_from(FRAMINGS), cut=st.integers(1, 64))
def test_verify_agrees_with_the_readers(v: Any, framing: str, cut: int) -> None:
    """verify passes exactly when the framing's own reader reads the data to its end."""
    whole = {"raw": encode(v), "store_var": store_var(v) * 2, "packet_stream": put_packet(v),
             "base64": variant_to_base64(v).encode()}[framing]
    for data in (whole, whole[:max(len(whole) - cut, 0)]):
        try:
            if framing == "store_var":
                list(iter_vars(data))
            elif framing == "packet_stream":
                list(iter_packets(data))
            else:
                list(records(data, framing=framing))
            ok = True
        except DecodeError:
            ok = False
        try:
            verify(data, framing=framing)
            assert ok
        except DecodeError:
            assert not ok


# ---------------------------------------------------------------------------------------------
# A length prefix that does not fit


def test_cut_store_var_file_says_so() -> None:
    data = framed("store_var")
    last = len(data) - len(store_var(VALUES[-1]))
    with pytest.raises(DecodeError) as e:
        list(iter_vars(data[:-4]))
    assert e.value.offset == last
    assert "exceeds the 12 bytes left: the data ends 4 bytes before the record does, as in a " \
        "file that was cut short" in str(e.value)
    assert "big-endian" not in str(e.value)


def test_wrong_byte_order_says_which_fits() -> None:
    with pytest.raises(DecodeError, match=r"read as a big-endian number the length prefix is "
                                          r"\d+, which fits"):
        list(iter_vars(framed("store_var", big_endian=True)))
    with pytest.raises(DecodeError, match="little-endian number"):
        get_var(framed("store_var"), big_endian=True)
    with pytest.raises(DecodeError) as e:  # packets are always little-endian: no such hint
        list(iter_packets(framed("store_var", True)))
    assert "endian" not in str(e.value)


# ---------------------------------------------------------------------------------------------
# guess_framing


@pytest.mark.parametrize(("data", "tried", "expected"), [
    (framed("store_var"), Guess("raw", False, "godot4"), Guess("store_var", False, "godot4")),
    (framed("packet_stream"), Guess("raw", False, "godot4"),
     Guess("store_var", False, "godot4")),
    (framed("store_var", True), Guess("store_var", False, "godot4"),
     Guess("store_var", True, "godot4")),
    (framed("raw"), Guess("store_var", False, "godot4"), Guess("raw", False, "godot4")),
    (framed("base64"), Guess("raw", False, "godot4"), Guess("base64", False, "godot4")),
    (encode({"a": 1}, profile="godot3"), Guess("raw", False, "godot4"),
     Guess("raw", False, "godot3")),
    (framed("store_var", profile="godot3"), Guess("raw", False, "godot4"),
     Guess("store_var", False, "godot3")),
])
def test_guess_framing(data: bytes, tried: Guess, expected: Guess) -> None:
    with pytest.raises(DecodeError):
        list(records(data, framing=tried.framing, big_endian=tried.big_endian,
                     profile=tried.profile))
    assert guess_framing(data, profile=tried.profile, exclude=tried) == expected


@pytest.mark.parametrize("data", [b"", b"\xff" * 40, framed("store_var")[:-3]])
def test_guess_framing_finds_nothing_in_garbage(data: bytes) -> None:
    assert guess_framing(data, exclude=Guess("raw", False, "godot4")) is None
