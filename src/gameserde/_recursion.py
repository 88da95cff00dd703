"""Room on the Python stack for recursive codecs whose depth limit is larger than Python's."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


def _stack_depth() -> int:
    depth = 0
    frame = sys._getframe(1)
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    return depth


@contextmanager
def recursion_room(frames: int) -> Iterator[None]:
    """Raise the recursion limit, for the duration, so ``frames`` more frames fit."""
    saved = sys.getrecursionlimit()
    wanted = _stack_depth() + frames
    if wanted > saved:
        sys.setrecursionlimit(wanted)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)
