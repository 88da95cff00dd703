"""string_id and djb2 agree with katsuba's on printable names, type-name spellings and random
byte strings (every byte value: katsuba's arithmetic, not libki's signed chars)."""

from __future__ import annotations

import random

from gameserde.kingsisle import djb2, string_id
from tests.kingsisle.katsuba_oracle import run


def test_hashes_agree_with_katsuba() -> None:
    rng = random.Random(9)
    names = [b"", b"std::string", b"class SharedPointer<class EquipmentSet>", b"enum Kind",
             b"unsigned __int64", "wide \u00e9\u6f22".encode()]
    names += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 48)))
              for _ in range(3000)]
    names += [bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(1, 80)))
              for _ in range(1000)]
    [answer] = run([{"kind": "hashes", "names": [n.hex() for n in names]}])
    assert [string_id(n) for n in names] == answer["string_id"]
    assert [djb2(n) for n in names] == answer["djb2"]
