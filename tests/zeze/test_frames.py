"""Zeze frames: the protocol vectors, family/result code/session id forms, Java's decoding
rules, the stream decoder's splitting and size limit, and hostile frames."""

from __future__ import annotations

import json
import random
from contextlib import suppress
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError, GameserdeWarning
from gameserde.schema.model import Map
from gameserde.zeze import Protocol, ZezeSchema, load_schema, protocol_type_id
from gameserde.zeze.bytebuffer import long_bytes, uint_bytes
from gameserde.zeze.frames import (
    MAX_FRAME_SIZE,
    Frame,
    FrameDecoder,
    RawFrame,
    decode_frame,
    encode_frame,
    encode_raw_frame,
    frame_header,
)

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
DATA: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DATA["protocol"]
ORACLE = load_schema(DATA["meta"]["schema_xml"], filename="oracle.xml")
INT64 = st.integers(-(1 << 63), (1 << 63) - 1)


def with_protocols(schema: ZezeSchema, *extra: Protocol) -> ZezeSchema:
    """``schema`` with more protocols (ids a solution file could not declare)."""
    protocols = {**schema.protocols, **{p.name: p for p in extra}}
    return ZezeSchema(schema.model, protocols=protocols, modules=schema.modules)


def vector_schema() -> ZezeSchema:
    """The vectors' schema plus a protocol for each case whose ids it lacks (the high-bit
    module id), taking the case's bean as its argument."""
    extra = [Protocol(f"oracle.x.P{i}", c["moduleId"], c["protocolId"], c["typeId"],
                      "protocol", c["bean"])
             for i, c in enumerate(CASES) if ORACLE.protocol_by_type_id(c["typeId"]) is None]
    assert extra, "the vectors have a protocol outside the schema"
    return with_protocols(ORACLE, *extra)


SCHEMA = vector_schema()
EMPTY = load_schema("""<solution name="app"><module name="m" id="3">
  <bean name="B"><variable id="1" name="n" type="long"/></bean>
  <protocol name="PEmpty" id="1"/>
  <protocol name="PB" id="2" argument="B"/>
  <rpc name="REmpty" id="3"/>
  <rpc name="RB" id="4" argument="B" result="B"/>
</module></solution>""")


def ours(bean: str, value: dict[str, Any]) -> dict[str, Any]:
    """A vector's bean value as the codec takes it: maps (JSON ``[key, value]`` pairs) as
    dicts (the protocol vectors' beans nest no maps deeper)."""
    out = dict(value)
    for field in ORACLE.bean(bean).fields:
        if isinstance(field.type, Map):
            out[field.name] = dict(map(tuple, value[field.name]))
    return out


def plain(value: Any) -> Any:
    """A decoded value in the vectors' JSON shapes: tuples as lists, maps as pairs."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def frame_of(case: dict[str, Any]) -> Frame:
    return decode_frame(SCHEMA, bytes.fromhex(case["hex"]))


def case_id(case: dict[str, Any]) -> str:
    return str(case["case"])


# -- the vectors --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vector_decodes(case: dict[str, Any]) -> None:
    frame = frame_of(case)
    assert (frame.module_id, frame.protocol_id, frame.type_id) == (
        case["moduleId"], case["protocolId"], case["typeId"])
    assert (frame.family, frame.result_code, frame.session_id) == (
        case["family"], case["resultCode"], case.get("sessionId"))
    value = plain(frame.value)
    for field in ORACLE.bean(case["bean"]).fields:
        if isinstance(field.type, Map):
            value[field.name] = [list(kv) for kv in value[field.name].items()]
    assert value == case["value"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vector_encodes(case: dict[str, Any]) -> None:
    name = SCHEMA.protocol_by_type_id(case["typeId"]).name  # type: ignore[union-attr]
    data = encode_frame(SCHEMA, name, ours(case["bean"], case["value"]), family=case["family"],
                        result_code=case["resultCode"], session_id=case.get("sessionId"))
    assert data.hex() == case["hex"]
    assert frame_header(data) == (case["moduleId"], case["protocolId"], len(data) - 12)


def test_short_names_and_default_families() -> None:
    value = {"a": 5, "s": "hi"}
    by_case = {c["case"]: c["hex"] for c in CASES}
    assert encode_frame(ORACLE, "PInner", value).hex() == by_case["protocol, explicit id"]
    assert encode_frame(ORACLE, "m.RInner", value, session_id=1).hex() == by_case["rpc request"]
    assert encode_frame(ORACLE, "RInner", {"x": 77}, family="response",
                        session_id=1).hex() == by_case["rpc response"]


# -- families, result codes, session ids --------------------------------------------------------


def body(data: bytes) -> bytes:
    assert frame_header(data)[2] == len(data) - 12
    return data[12:]


def test_empty_bean_bodies() -> None:
    assert encode_frame(EMPTY, "PEmpty", {}) == bytes.fromhex("03000000 01000000 02000000 0200")
    assert body(encode_frame(EMPTY, "PEmpty", {}, result_code=-1)) == bytes.fromhex("22ff00")
    assert body(encode_frame(EMPTY, "REmpty", {}, session_id=5)) == bytes.fromhex("010500")
    assert body(encode_frame(EMPTY, "REmpty", {}, family="response", session_id=5,
                             result_code=3)) == bytes.fromhex("20030500")
    frame = decode_frame(EMPTY, encode_frame(EMPTY, "REmpty", {}, family="response",
                                             session_id=5, result_code=3))
    assert frame == Frame("app.m.REmpty", 3, 3, "response", {}, 3, 5)
    assert decode_frame(EMPTY, encode_frame(EMPTY, "PEmpty", {})).value == {}


@settings(max_examples=100, deadline=None)
@given(family=st.sampled_from(["protocol", "request", "response"]), result_code=INT64,
       session_id=INT64, n=INT64)
def test_family_forms_round_trip(family: str, result_code: int, session_id: int,
                                 n: int) -> None:
    is_rpc = family != "protocol"
    sid = session_id if is_rpc else None
    data = encode_frame(EMPTY, "RB" if is_rpc else "PB", {"n": n}, family=family,
                        result_code=result_code, session_id=sid)
    fc = (2 if family == "protocol" else family == "request") | (0x20 if result_code else 0)
    expected = (uint_bytes(fc) + (long_bytes(result_code) if result_code else b"")
                + (long_bytes(session_id) if is_rpc else b""))
    assert body(data).startswith(expected)
    frame = decode_frame(EMPTY, data)
    assert (frame.family, frame.result_code, frame.session_id, frame.value) == (
        family, result_code, sid, {"n": n})


def test_result_code_bit_without_a_code_reads_zero_and_high_bits_are_ignored() -> None:
    # 0x22 with a code of 0 (Java never writes it, but reads it); 0x42: bits above 0x20 masked
    for head in ("2200", "42", "8082", "f000000002"):
        data = encode_raw_frame(3, 2, bytes.fromhex(head + "100900"))
        assert decode_frame(EMPTY, data) == Frame("app.m.PB", 3, 2, "protocol", {"n": 9})


def test_unconsumed_body_bytes_are_ignored_and_reported() -> None:
    data = encode_frame(ORACLE, "PInner", {"a": 5, "s": "hi"})
    longer = encode_raw_frame(7, 9, body(data) + b"\xff\x01junk")
    with pytest.warns(GameserdeWarning, match=rf"6 bytes at byte {len(data)} \(0x{len(data):x}\) "
                      "follow the frame's bean: ignored"):
        assert decode_frame(ORACLE, longer) == decode_frame(ORACLE, data)


# -- errors -------------------------------------------------------------------------------------


def decode_error(schema: ZezeSchema, data: bytes) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode_frame(schema, data)
    return info.value


def test_unknown_type_id_names_it() -> None:
    err = decode_error(ORACLE, encode_raw_frame(7, 12345, b"\x02\x00"))
    assert str(protocol_type_id(7, 12345)) in str(err) and "12345" in str(err)


@pytest.mark.parametrize(("name", "family"), [
    ("PB", 0), ("PB", 1), ("PB", 5), ("PB", 31), ("RB", 2), ("RB", 7), ("RB", 0x1F | 0x20)])
def test_wrong_family(name: str, family: int) -> None:
    p = EMPTY.protocol(name)
    err = decode_error(EMPTY, encode_raw_frame(p.module_id, p.id, uint_bytes(family) + b"\x00"))
    assert "invalid header" in err.message and err.offset == 12


@pytest.mark.parametrize("name", ["PB", "RB"])
@pytest.mark.parametrize("family", [3, 4, 3 | 0x20])
def test_raft_families_are_refused(name: str, family: int) -> None:
    p = EMPTY.protocol(name)
    err = decode_error(EMPTY, encode_raw_frame(p.module_id, p.id, bytes([family, 1, 0])))
    assert "Raft" in err.message


def test_truncated_bodies() -> None:
    data = encode_frame(EMPTY, "RB", {"n": 1 << 40}, result_code=-5, session_id=1 << 50)
    for cut in range(len(body(data))):
        err = decode_error(EMPTY, encode_raw_frame(3, 4, body(data)[:cut]))
        assert err.offset is not None and 12 <= err.offset <= 12 + cut


def test_frame_length_mismatch() -> None:
    data = encode_frame(EMPTY, "PB", {"n": 1})
    assert "header" in decode_error(EMPTY, data[:11]).message
    assert "announces" in decode_error(EMPTY, data[:-1]).message
    assert "FrameDecoder" in decode_error(EMPTY, data + data).message


def test_encode_misuse() -> None:
    with pytest.raises(KeyError):
        encode_frame(EMPTY, "PNone", {})
    for name, kwargs in [("PB", {"family": "request"}), ("PB", {"session_id": 1}),
                         ("RB", {}), ("RB", {"family": "protocol", "session_id": 1}),
                         ("RB", {"family": "reply", "session_id": 1}),
                         ("RB", {"session_id": 1 << 63}), ("PB", {"result_code": -(1 << 64)})]:
        with pytest.raises(EncodeError):
            encode_frame(EMPTY, name, {}, **kwargs)


def test_raw_frames() -> None:
    data = encode_raw_frame(-2147483647, -2, b"\x02\x00")
    assert data.hex() == "01000080feffffff020000000200"
    assert frame_header(data) == (-2147483647, -2, 2)
    assert frame_header(b"\x00" * 3 + data, 3) == (-2147483647, -2, 2)
    assert frame_header(b"\x00" * 8 + b"\xff" * 4) == (0, 0, 0xFFFFFFFF)
    with pytest.raises(DecodeError, match="needs 12 bytes but only 11"):
        frame_header(data, 3)
    for ids in [(1 << 31, 0), (0, -(1 << 31) - 1)]:
        with pytest.raises(EncodeError):
            encode_raw_frame(*ids, b"")


# -- the stream decoder -------------------------------------------------------------------------

STREAM = b"".join(bytes.fromhex(c["hex"]) for c in CASES)
RAW = [RawFrame(*frame_header(bytes.fromhex(c["hex"])[:12])[:2], bytes.fromhex(c["hex"])[12:])
       for c in CASES]


RAW_FIRST = bytes.fromhex(CASES[0]["hex"])


def feed_all(decoder: FrameDecoder, chunks: list[bytes]) -> list[RawFrame]:
    return [raw for chunk in chunks for raw in decoder.feed(chunk)]


def test_stream_byte_by_byte() -> None:
    decoder = FrameDecoder()
    frames = feed_all(decoder, [STREAM[i:i + 1] for i in range(len(STREAM))])
    assert frames == RAW and decoder.pending == 0
    assert [raw.decode(SCHEMA) for raw in frames] == [frame_of(c) for c in CASES]
    assert [raw.type_id for raw in frames] == [c["typeId"] for c in CASES]


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.integers(0, len(STREAM)), max_size=30))
def test_stream_in_random_chunks(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    decoder = FrameDecoder(max_frame_size=200)
    chunks = [STREAM[a:b] for a, b in pairwise(points)]
    assert feed_all(decoder, chunks) == RAW and decoder.pending == 0


def test_truncation_at_every_offset_waits_for_more() -> None:
    data = bytes.fromhex(CASES[1]["hex"])
    for cut in range(len(data)):
        decoder = FrameDecoder()
        assert decoder.feed(data[:cut]) == [] and decoder.pending == cut
        assert decoder.feed(data[cut:]) == [RAW[1]] and decoder.pending == 0


def test_oversize_header_is_refused_before_the_body() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_raw_frame(7, 9, b"\x02\x00"))
    header = encode_raw_frame(7, 9, b"")[:8] + (MAX_FRAME_SIZE + 1).to_bytes(4, "little")
    decoder.feed(header[:11])
    with pytest.raises(DecodeError, match="2097153 body bytes, more than the limit of 2097152"
                       ) as info:
        decoder.feed(header[11:])
    assert info.value.offset == 14 + 8
    with pytest.raises(DecodeError, match="4294967295 body bytes"):
        FrameDecoder().feed(b"\x07\x00\x00\x00\x09\x00\x00\x00\xff\xff\xff\xff")


def test_the_limit_is_configurable_and_inclusive() -> None:
    decoder = FrameDecoder(max_frame_size=10)
    frame = encode_raw_frame(1, 2, bytes(10))
    assert decoder.feed(frame[:12]) == []
    assert decoder.feed(frame[12:]) == [RawFrame(1, 2, bytes(10))]
    with pytest.raises(DecodeError):
        FrameDecoder(max_frame_size=9).feed(frame[:-1])
    # Java checks the size only while waiting for the rest: a whole frame is taken
    assert FrameDecoder(max_frame_size=9).feed(frame) == [RawFrame(1, 2, bytes(10))]
    with pytest.raises(ValueError):
        FrameDecoder(max_frame_size=-1)


def test_buffered_bytes_stay_bounded() -> None:
    limit, chunk = 1000, 64
    rng = random.Random(8)
    decoder = FrameDecoder(max_frame_size=limit)
    stream = b"".join(encode_raw_frame(1, 1, rng.randbytes(rng.randint(0, limit)))
                      for _ in range(50))
    count = 0
    for i in range(0, len(stream), chunk):
        count += len(decoder.feed(stream[i:i + chunk]))
        assert decoder.pending < limit + 12
    assert count == 50 and decoder.pending == 0


def test_many_frames_in_one_chunk() -> None:
    frame = encode_raw_frame(3, 1, b"\x02\x00")
    frames = FrameDecoder().feed(frame * 50_000 + frame[:5])
    assert len(frames) == 50_000 and frames[-1] == RawFrame(3, 1, b"\x02\x00")


# -- hostile frames -----------------------------------------------------------------------------

TYPE_IDS = [(p.module_id, p.id) for s in (SCHEMA, EMPTY) for p in s.protocols.values()]


@settings(max_examples=400, deadline=None)
@given(ids=st.one_of(st.sampled_from(TYPE_IDS),
                     st.tuples(st.integers(-(1 << 31), (1 << 31) - 1),
                               st.integers(-(1 << 31), (1 << 31) - 1))),
       family=st.integers(0, 0xFF), rest=st.binary(max_size=40),
       schema=st.sampled_from([SCHEMA, EMPTY]))
def test_fuzzed_frames_decode_or_raise_decode_error(ids: tuple[int, int], family: int,
                                                    rest: bytes, schema: ZezeSchema) -> None:
    data = encode_raw_frame(*ids, uint_bytes(family) + rest)
    try:
        frame = decode_frame(schema, data)
    except DecodeError:
        return
    assert (frame.module_id, frame.protocol_id) == ids
    assert frame.family == ("response", "request", "protocol")[family & 0x1F]


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=200), size=st.integers(0, 0xFFFFFFFF),
       chunk=st.integers(1, 64))
def test_fuzzed_streams_give_frames_or_decode_error(data: bytes, size: int, chunk: int) -> None:
    stream = RAW_FIRST + b"\x07\x00\x00\x00\x09\x00\x00\x00" + size.to_bytes(4, "little") + data
    decoder = FrameDecoder(max_frame_size=100)
    try:
        for i in range(0, len(stream), chunk):
            for raw in decoder.feed(stream[i:i + chunk]):
                with suppress(DecodeError):
                    raw.decode(SCHEMA)
            assert decoder.pending < 100 + 12
    except DecodeError as e:
        assert "limit" in e.message
