"""Doubles as the engine's rapidjson writes them (Grisu2, then Prettify), which is not
Python's shortest ``repr``: Grisu2 looks for digits inside the value's rounding interval
narrowed by one unit of its 64-bit products on each side, so where the shortest digits lie in
that margin it prints 17 (about 0.2% of random doubles: ``7.1135782437256335e-249`` where
repr has ``7.113578243725634e-249``), and it picks the
last digit by an estimate of the distance, which is sometimes not the closest (about 0.1%:
``1039514241563211.7`` where repr has ``...211.8``).

``data/numbers/grisu2-digits.txt`` holds 623 doubles (bit pattern, then text) printed by
rapidjson's ``Writer::Double`` at the revision whose rounding the engine's files show
(Tencent/rapidjson master, a throwaway C++ program, not part of this project): float32 and
double edges (the float maximum widened, its neighbours, denormals, 2^64, 1e21 ...), 250
random doubles where Grisu2 prints more digits than repr, 250 where it prints other digits of
the same length, and 100 where they agree. The pure-Python path and the C twin must both
print every one."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from gameserde.o3de import _accel
from gameserde.o3de._numbers import double_text
from gameserde.o3de.text import JsonObject, write

DATA = Path(__file__).parent / "data" / "numbers" / "grisu2-digits.txt"


def cases() -> list[tuple[float, str]]:
    out = []
    for line in DATA.read_text().splitlines():
        pattern, text = line.split()
        out.append((struct.unpack(">d", bytes.fromhex(pattern))[0], text))
    return out


CASES = cases()


def c_text(value: float) -> str:
    text: str | None = _accel.speedups.write(value, JsonObject, dict)
    assert text is not None
    return text


def test_the_engine_s_digits() -> None:
    assert len(CASES) == 623
    wrong = [(v, t, double_text(v), c_text(v)) for v, t in CASES
             if double_text(v) != t or c_text(v) != t]
    assert wrong == []


def test_the_cases_are_the_ones_described() -> None:
    def digits(text: str) -> str:
        return text.lower().split("e")[0].lstrip("-").replace(".", "").strip("0")

    longer = sum(len(digits(t)) > len(digits(repr(v))) for v, t in CASES)
    other = sum(len(digits(t)) == len(digits(repr(v))) and digits(t) != digits(repr(v))
                for v, t in CASES)
    assert longer >= 250 and other >= 250
    assert all(float(t) == v for v, t in CASES)  # each names its double


@pytest.mark.parametrize(("value", "text"), [
    (3.4028234663852886e38, "3.4028234663852886e38"),   # FLT_MAX widened
    (3.402823466385289e38, "3.402823466385289e38"),     # the next double up
])
def test_the_float_maximum(value: float, text: str) -> None:
    """``3.402823466385289e38`` is what both rapidjson and gameserde make of the text
    ``3.4028234663852886e38`` (normal-precision reading), not a printing of FLT_MAX."""
    saved = _accel.ENABLED
    try:
        for enabled in (True, False):
            _accel.ENABLED = enabled
            assert write(value) == text
            assert write([value]) == f"[\n    {text}\n]"
    finally:
        _accel.ENABLED = saved


def test_c_and_pure_agree_on_many_doubles() -> None:
    rng = random.Random(18)
    values = []
    for _ in range(20_000):
        value = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if value == value and abs(value) != float("inf"):
            values.append(value)
        values.append(struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0])
        values.append(rng.uniform(-1e4, 1e4))
    values = [v for v in values if v == v and abs(v) != float("inf")]
    assert [v for v in values if double_text(v) != c_text(v)] == []
