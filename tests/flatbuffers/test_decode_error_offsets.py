"""Where a reader error points: at a byte of the buffer (where the bad offset or length was
read), with the offset's target in the message, never at the target itself (which can be
billions of bytes past the end)."""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError
from gameserde.flatbuffers import FbsSchema, _accel, load_schema
from tests.flatbuffers.mutation import mutants, valid_buffers

SCHEMAS = valid_buffers(load_schema)


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def walk(value: object) -> None:
    """Read every field of a view, recursively (vectors element by element)."""
    plan = getattr(value, "_plan", None)
    if plan is not None:
        for fp in plan.fields:
            walk(getattr(value, fp.name))
    elif hasattr(value, "__len__") and not isinstance(value, str | bytes | tuple):
        for x in value:  # type: ignore[attr-defined]
            walk(x)


def errors(schema: FbsSchema, buf: bytes) -> Iterator[DecodeError]:
    for accelerated in (True, False):
        _accel.ENABLED = accelerated
        for fn in (lambda: schema.decode(buf), lambda: schema.to_json(buf),
                   lambda: walk(schema.view(buf))):
            try:
                fn()
            except DecodeError as e:
                yield e


def check(schema: FbsSchema, buf: bytes) -> None:
    for e in errors(schema, buf):
        if "max_expansion" in e.message:
            continue
        assert e.offset is not None and 0 <= e.offset <= max(len(buf) - 1, 0), (
            f"{e} ({len(buf)} bytes)")


def test_root_offset_past_the_end() -> None:
    schema = SCHEMAS[0][0]
    buf = struct.pack("<I", 2844268027) + bytes(12)
    with pytest.raises(DecodeError) as info:
        schema.decode(buf)
    assert info.value.offset == 0
    assert info.value.message == ("the offset at 0 points to a table at 2844268027, past the "
                                  "end of the 16-byte buffer")


def test_mutants() -> None:
    rng = random.Random(7)
    for schema, buf in SCHEMAS:
        for m in mutants(rng, buf, 150):
            check(schema, m)


@given(st.binary(max_size=64), st.integers(0, len(SCHEMAS) - 1))
@settings(max_examples=300, deadline=None)
def test_random_bytes(buf: bytes, which: int) -> None:
    check(SCHEMAS[which][0], buf)
