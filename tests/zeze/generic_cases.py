"""For the schema-less reader's tests: the vectors' bean encodings, families of growing
inputs, and deterministic measures of cost (calls made, peak traced memory)."""

from __future__ import annotations

import contextlib
import json
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gameserde.errors import DecodeError

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
DATA: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
SCHEMA_XML: str = DATA["meta"]["schema_xml"]

BEAN_CASES: list[dict[str, Any]] = [
    {**case, "category": category} for category in ("beans", "decode")
    for case in DATA[category]]
"""Every ``beans`` and ``decode`` vector (``category`` says which)."""

RESERVED_TAG_HEX = "100502000000000000f03f00"
"""The vector with a reserved ``02`` tag: generated decoders keep it, ``GenericBean`` and the
schema-less reader refuse it."""

UNREADABLE = {
    RESERVED_TAG_HEX: "reserved",
    "f405f0e0ffffff0100": "needs 1 byte",  # a list count larger than the input
    "2305616263": "needs 5 bytes",  # a string length past the end
    "23f0ffffffff00": "invalid length",  # a string length of 2^32 - 1
}
"""The vectors Java's schema-less ``GenericBean`` cannot read, and what our error says. (Not
the one a generated decoder fails to skip with ``SkipUInt``: ``GenericBean`` reads tags with
``ReadUInt``.)"""


def java_reads(case: dict[str, Any]) -> bool:
    """Whether Java's schema-less ``GenericBean`` reads the case's bytes."""
    return case["hex"] not in UNREADABLE


def case_id(case: dict[str, Any]) -> str:
    return f"{case['category']}:{case['case']}"


def nested(opening: bytes, depth: int, closing: bytes = b"") -> bytes:
    """``depth`` openings, the end tag of the innermost bean, ``depth`` closings."""
    return opening * depth + b"\x00" + closing * depth


def peak_memory(fn: Callable[[], Any]) -> int:
    """The peak memory ``tracemalloc`` sees during ``fn()`` (a DecodeError is expected)."""
    tracemalloc.start()
    try:
        with contextlib.suppress(DecodeError):
            fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def calls(fn: Callable[[], Any]) -> int:
    """Python and builtin calls ``fn`` makes (deterministic: nothing is timed)."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    fn()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


FAMILIES: dict[str, Callable[[int], bytes]] = {  # beans that grow with n, for 100 <= n < 256
    "fields": lambda n: b"\x10\x05" * n + b"\x00",
    "list": lambda n: b"\x14\xf6" + bytes([0x80 | (n - 15) >> 8, (n - 15) & 0xFF])
    + b"\x10\x01\x00" * n + b"\x00",
    "text": lambda n: b"\x13\xc0" + (16 * n).to_bytes(2, "big") + b"x" * (16 * n) + b"\x00",
    "layers": lambda n: b"\x10\x01\x01" * n + b"\x00",
    "nesting": lambda n: nested(b"\x16\x10\x01\x16", n // 2, b"\x00\x00"),
    "map": lambda n: b"\x15\x33\x80" + bytes([n]) + b"".join(
        b"\x02k" + bytes([48 + i % 10]) + b"\x01v" for i in range(n)) + b"\x00",
}
