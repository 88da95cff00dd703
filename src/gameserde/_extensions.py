"""Loading the optional C accelerators (built at install), for every codec's ``_accel`` glue."""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["load_extension", "pure_requested"]


def load_extension(name: str, api_version: int) -> Any:
    """The extension module ``name``, or None when it was not built (no compiler at install
    time) or is a stale build whose ``API_VERSION`` is not ``api_version``."""
    try:
        module = importlib.import_module(name)
    except ImportError:  # no compiler at install time: pure Python
        return None
    if getattr(module, "API_VERSION", None) != api_version:  # pragma: no cover - stale build
        return None
    return module


def pure_requested() -> bool:
    """Whether ``GAMESERDE_PURE`` asks for the pure-Python code (set, and not ``0``)."""
    return os.environ.get("GAMESERDE_PURE", "") not in ("", "0")
