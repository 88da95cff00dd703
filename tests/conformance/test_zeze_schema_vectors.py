"""Zeze vectors of the schema side: the ``hash`` category (bean TypeIds and default protocol
ids, spec §2.7) of ``shared/vectors/zeze/train.json``.

``GAMESERDE_ZEZE_VECTORS`` names another file of the same format. One test per case; a case
that cannot be understood fails (it is never skipped).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gameserde.zeze import hash32, hash64

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
VECTORS = Path(os.environ.get("GAMESERDE_ZEZE_VECTORS", DEFAULT))


def _cases(category: str) -> list[Any]:
    if not VECTORS.is_file():  # collected as one failing case, never skipped
        return [{"missing": str(VECTORS)}]
    cases = json.loads(VECTORS.read_text(encoding="utf-8")).get(category, [])
    return list(cases) if isinstance(cases, list) else [{"not a list": cases}]


def check_hash(case: Any) -> None:
    assert isinstance(case, dict) and set(case) >= {"name", "hash64", "hash32"}, (
        f"a hash case needs name, hash64 and hash32: {case!r}")
    name = case["name"]
    assert isinstance(name, str), f"not a name: {name!r}"
    assert hash64(name) == case["hash64"]
    assert hash32(name) == case["hash32"]


CHECKERS = {"hash": check_hash}


@pytest.mark.parametrize(("category", "case"), [
    pytest.param(category, case, id=f"{category}-{i}")
    for category in CHECKERS for i, case in enumerate(_cases(category))])
def test_vector(category: str, case: Any) -> None:
    CHECKERS[category](case)
