"""Python's cycle collector paused while a decoder builds a large tree of containers.

Containers made one after another trigger collections that walk every object made so far
again and again; a decoder that makes many containers and no reference cycles (parsed JSON,
loaded values) spends more time there than in its own work. The collector is switched off for
the duration and back on afterwards if it was on (a nested or concurrent pause leaves it to
the outermost one).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the duration (as it was afterwards)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
