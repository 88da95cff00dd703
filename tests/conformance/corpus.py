"""Where the real-world corpora live (``../shared/corpus/<name>`` beside the project) and the
rule every corpus test follows when one is missing: skipped, or failed when ``CI=true``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def corpus_dir(name: str) -> Path:
    """The folder of the corpus ``name`` (it may not exist)."""
    return SHARED_CORPUS / name


def case_names(root: Path) -> list[str]:
    """The corpus's cases: its folders holding a ``meta.json``, sorted; none without it."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "meta.json").is_file())


def require(root: Path, what: str) -> None:
    """Skip the calling test when the corpus at ``root`` is missing, or fail it on CI."""
    if root.is_dir():
        return
    message = f"the {what} corpus is not at {root}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: failing instead of skipping)", pytrace=False)
    pytest.skip(message)
