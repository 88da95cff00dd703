"""Fixtures shared by the FlatBuffers tests."""

from __future__ import annotations

import pytest

from tests.flatbuffers import flatc_tool


@pytest.fixture(scope="session")
def flatc() -> str:
    """The flatc 25.12.19 executable (see :mod:`tests.flatbuffers.flatc_tool`)."""
    return flatc_tool.flatc()
