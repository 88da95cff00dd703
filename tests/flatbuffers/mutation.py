"""Mutated buffers for the differential tests of the C reader and views against the reference:
byte mutations and truncations of valid buffers of the reader tests' schemas."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Iterator

from gameserde.errors import EncodeError
from gameserde.flatbuffers import FbsSchema
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.json_input import from_json
from tests.flatbuffers import fbs_gen
from tests.flatbuffers.test_reader import (
    ALL_DOCS,
    ALL_SCHEMA,
    SEED_BASE64,
    SEED_SCHEMA,
    UNION_VECTOR_SCHEMA,
)

UNION_VECTOR_DOC = ('{a_type: [X, Y, P, Str], a: [{v: 1, s: "x"}, {w: 2}, {a: 3, b: 4.5}, '
                    '"str"], c_type: X, c: {v: 1}}')


def mutants(rng: random.Random, data: bytes, count: int) -> Iterator[bytes]:
    """``count`` copies of ``data`` with 1-6 bytes changed (to edge values or random), 15% of
    them also truncated."""
    for _ in range(count):
        buf = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(buf))
            buf[i] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        if rng.random() < 0.15:
            buf = buf[:rng.randrange(len(buf) + 1)]
        yield bytes(buf)


def valid_buffers(load: Callable[..., FbsSchema]) -> list[tuple[FbsSchema, bytes]]:
    """Valid buffers to mutate: every type, the seed's blob, vectors of unions; ``load`` is
    the caller's ``load_schema``."""
    all_schema = load(ALL_SCHEMA, filename="all.fbs")
    seed_schema = load(SEED_SCHEMA, filename="seed.fbs")
    union_schema = load(UNION_VECTOR_SCHEMA, filename="u.fbs")
    cases = [(all_schema, from_json(all_schema, doc)) for doc in ALL_DOCS[1:]]
    cases.append((seed_schema, base64.b64decode(SEED_BASE64)))
    cases.append((union_schema, from_json(union_schema, UNION_VECTOR_DOC)))
    return cases


def random_schema_buffers(load: Callable[[str], FbsSchema], seeds: range = range(40)
                          ) -> Iterator[tuple[str, FbsSchema, bytes]]:
    """A random schema (``fbs_gen``) and one encoded random value per seed, as
    ``(fbs text, schema, buffer)``; seeds whose value does not encode are skipped."""
    for seed in seeds:
        rnd = random.Random(seed)
        fbs, root = fbs_gen.random_schema(rnd)
        schema = load(fbs)
        try:
            data = encode(schema, fbs_gen.random_value(rnd, schema, root), root)
        except EncodeError:
            continue
        yield fbs, schema, data
