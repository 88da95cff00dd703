"""Decompression bombs and the maps of them, with the default ``max_expansion``: at n, 4n and
16n bytes of input the calls and peak memory grow at most linearly (``tests/fuzz/
test_growth.py``'s helpers), and at every size the peak traced memory (C twin and pure path)
stays within the documented constants of ``docs/kingsisle.md``: :data:`K_DECODE` bytes per
input byte plus :data:`SLACK_DECODE` for ``decode`` and ``read_bind``, :data:`K_MAP` and
:data:`SLACK_MAP` for ``stream_map``; the CLI's ``inspect`` prints at most
:data:`LINE` characters per row of the map. Each bomb inflates to exactly what the budget
allows (the input padded after its zlib data), the worst an attacker can send: lists of bools
(8 values per inflated byte, the densest) and lists of empty objects; bombs that say they
inflate to more are refused before inflating, at a cost that does not follow the claim.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gameserde._expansion import expansion_limit
from gameserde.cli import main
from gameserde.errors import DecodeError
from gameserde.kingsisle import Serializer, load_schema, property_hash, read_bind, string_id
from gameserde.kingsisle.inspect import MAP_EXPANSION, ROW_SLACK, stream_map
from gameserde.kingsisle.serializer import INFLATE_SLACK, MAX_EXPANSION
from tests.fuzz.test_growth import SLACK, assert_flat, calls, peak

K_DECODE, SLACK_DECODE = 2600, 512 << 10
"""Peak bytes per input byte, and a constant, of a decode with the default max_expansion."""
K_MAP, SLACK_MAP = 6000, 2 << 20
"""The same for ``stream_map`` with the defaults (rows are heavier than values)."""
LINE = 200
"""Characters of ``inspect`` text per row of the map, at most (the type list's names here
are short)."""

SIZES = (72, 288, 1152)
"""n, 4n and 16n bytes of input."""

PROPS = {"class Bools": [("m_bools", "bool", True)],
         "class Empty": [],
         "class Objs": [("m_objs", "class Empty*", True)]}
TYPES = json.dumps({"version": 2, "classes": {
    str(string_id(cls)): {"name": cls, "hash": string_id(cls), "properties": {
        name: {"type": t, "id": i, "flags": 31, "dynamic": dynamic,
               "hash": property_hash(t, name)}
        for i, (name, t, dynamic) in enumerate(props)}}
    for cls, props in PROPS.items()}})
SCHEMA = load_schema(TYPES)


def u32(n: int) -> bytes:
    return n.to_bytes(4, "little")


def bools(size: int, deep: bool = False) -> bytes:
    """A root holding a list of bools of ``size`` bytes (compact lengths when ``deep``)."""
    count = 8 * (size - 20)
    if not deep:
        return u32(string_id("class Bools")) + u32(count) + bytes(size - 8)
    record = 96 + count
    return (u32(string_id("class Bools")) + u32(32 + record) + u32(record)
            + u32(property_hash("bool", "m_bools")) + u32(count << 1 | 1) + bytes(size - 20))


def empties(size: int, deep: bool = False) -> bytes:
    """A root holding a list of empty objects, about ``size`` bytes (deep: compact lengths)."""
    if not deep:
        count = (size - 8) // 4
        return u32(string_id("class Objs")) + u32(count) + u32(string_id("class Empty")) * count
    count = (size - 20) // 8
    record = 96 + 64 * count
    return (u32(string_id("class Objs")) + u32(32 + record) + u32(record)
            + u32(property_hash("class Empty*", "m_objs")) + u32(count << 1 | 1)
            + (u32(string_id("class Empty")) + u32(32)) * count)


def packed(body: bytes) -> bytes:
    return u32(len(body)) + zlib.compress(body, 9)


def at_limit(n: int, lead: bytes, body: Callable[[int], bytes],
             factor: float = MAX_EXPANSION) -> bytes:
    """``n`` bytes: ``lead``, then zlib data inflating to all the budget allows, zeros after
    it."""
    data = lead + packed(body(expansion_limit(n, factor, INFLATE_SLACK)))
    assert len(data) <= n
    return data + bytes(n - len(data))


def bind(n: int, factor: float = MAX_EXPANSION, body: Callable[..., bytes] = bools) -> bytes:
    return at_limit(n, b"BINd" + u32(0x0B) + b"\x01", lambda size: body(size, deep=True),
                    factor)


def zeros(inflated: int) -> bytes:
    """zlib data of ``inflated`` zero bytes (a multiple of 1 MiB), made in little time:
    after a full flush each MiB deflates to the same bytes."""
    chunk = bytes(1 << 20)
    packer = zlib.compressobj(9)
    first = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.flush()[:-4]  # the Adler-32 of zeros: a is 1, b is the count
    return (first + again * ((inflated >> 20) - 1) + end
            + ((inflated % 65521) << 16 | 1).to_bytes(4, "big"))


def ends_within(run: Callable[[], Any]) -> Any:
    """``run()``, which must succeed or raise the DecodeError naming max_expansion."""
    try:
        return run()
    except DecodeError as e:
        assert "max_expansion" in str(e)
        return e


def within(make: Callable[[int], bytes], run: Callable[[bytes], Any], k: int,
           slack: int, sizes: tuple[int, ...] = SIZES) -> None:
    """At n, 4n and 16n: calls grow at most 4 times (times ``SLACK``) a step, and the peak
    memory stays within ``k`` bytes per input byte plus ``slack`` (so grows linearly too)."""
    inputs = [make(n) for n in sizes]
    counts = [calls(lambda d=d: ends_within(lambda: run(d))) for d in inputs]
    for n, before, after in zip(sizes[1:], counts, counts[1:], strict=False):
        assert after <= SLACK * 4 * before + 2000, (n, counts)
    for n, data in zip(sizes, inputs, strict=True):
        used = peak(lambda d=data: ends_within(lambda: run(d)))
        assert used <= k * n + slack, (n, used, k * n + slack)


DECODES = {
    "WITH_COMPRESSION, bools": (lambda n: at_limit(n, b"\x01", bools),
                                Serializer(SCHEMA, flags=8).decode),
    "WITH_COMPRESSION, empty objects": (lambda n: at_limit(n, b"\x01", empties),
                                        Serializer(SCHEMA, flags=8).decode),
    "manual compression, empty objects": (lambda n: at_limit(n, b"", empties),
                                          Serializer(SCHEMA, manual_compression=True).decode),
    "both, bools": (  # the two inflations share the budget: the outer takes it all
        lambda n: at_limit(n, b"", lambda size: b"\x01" + packed(bools(size - 5))),
        Serializer(SCHEMA, flags=8, manual_compression=True).decode),
    "read_bind, empty objects": (lambda n: bind(n, body=empties),
                                 lambda d: read_bind(d, SCHEMA)),
}


@pytest.mark.parametrize("family", DECODES)
def test_decoding_bombs_stays_within_k_per_input_byte(family: str) -> None:
    make, run = DECODES[family]
    within(make, run, K_DECODE, SLACK_DECODE, (96, 384, 1536) if "read_bind" in family else SIZES)


@pytest.mark.parametrize("family", ["bools", "empty objects", "BINd"])
def test_maps_of_bombs_stay_within_k_per_input_byte(family: str) -> None:
    if family == "BINd":
        ser = Serializer(SCHEMA, flags=1, shallow=False)
        within(bind, lambda d: stream_map(d, ser, offset=4), K_MAP, SLACK_MAP)
        return
    body = bools if family == "bools" else empties
    ser = Serializer(SCHEMA, flags=8)
    within(lambda n: at_limit(n, b"\x01", body), lambda d: stream_map(d, ser), K_MAP,
           SLACK_MAP)


def test_a_map_past_its_rows_ends_in_an_error_naming_the_option() -> None:
    data = at_limit(512, b"\x01", bools)
    ser = Serializer(SCHEMA, flags=8)
    assert ser.decode(data)["m_bools"].count(False) > 100_000
    m = stream_map(data, ser)
    limit = expansion_limit(512, MAP_EXPANSION, ROW_SLACK)
    assert len(m.rows) <= limit + 8
    assert m.rows[-1].type == "ERROR" and m.rows[-1].note.startswith(
        f"the map would have more than {limit} rows for the 512-byte input "
        "(max_expansion=16, limit")
    assert stream_map(data, ser, max_expansion=None).rows[-1].type != "ERROR"


def test_cli_inspect_prints_in_proportion(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    types = tmp_path / "types.json"
    types.write_text(TYPES)
    sizes = []
    for n in (288, 1152, 4608):  # inflating to all inspect's budget allows
        path = tmp_path / f"bomb{n}.bind"
        path.write_bytes(bind(n, MAP_EXPANSION))
        code = main(["inspect", "kingsisle", "-t", str(types), str(path)])
        out, err = capsys.readouterr()
        assert code == 1 and "max_expansion=16" in err
        rows = expansion_limit(n, MAP_EXPANSION, ROW_SLACK) + 8
        assert len(out) <= LINE * rows
        sizes.append(len(out))
    assert sizes[2] <= 1.2 * 16 * sizes[0]


@pytest.mark.parametrize("size", [7_900, 95_000, 388_000])
def test_the_bombs_of_the_issue_are_refused_before_inflating(size: int) -> None:
    """Zeros inflating about 1030 times: a u32 list as the issue's, said to be their size."""
    inflated = (size * 1030) >> 20 << 20
    data = b"\x01" + u32(inflated) + zeros(inflated)
    ser = Serializer(SCHEMA, flags=8)
    message = (f"the zlib data would inflate to {inflated} bytes for the {len(data)}-byte "
               f"input (max_expansion=32, limit {32 * len(data) + 4096})")
    with pytest.raises(DecodeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ser.decode(data)
    assert peak(lambda: ends_within(lambda: ser.decode(data))) <= 4 * len(data) + (64 << 10)
    bomb = b"BINd" + u32(0x0B) + data
    with pytest.raises(DecodeError, match="max_expansion=32") as e:
        read_bind(bomb, SCHEMA)
    assert e.value.offset == 9


def test_zlib_data_inflating_past_its_word_stops_there() -> None:
    """A small declared size, zlib data of 16 MiB: inflating stops after the declared size."""
    lie = zeros(16 << 20)
    ser = Serializer(SCHEMA, flags=8)
    for declared in (100, 30_000):
        data = b"\x01" + u32(declared) + lie
        with pytest.raises(DecodeError, match=f"not the {declared} the stream says"):
            ser.decode(data)
        assert peak(lambda d=data: ser.decode(d)) <= 2 * declared + 4 * len(data) + (64 << 10)
    assert_flat(lambda n: b"\x01" + u32(n) + lie, ser.decode, (1 << 20, 1 << 24, 1 << 30))
