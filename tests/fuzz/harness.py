"""The checks every fuzz target makes on every input, shared by the CI driver
(``test_fuzz_targets.py``, hypothesis) and the offline driver (``scripts/fuzz.py``, atheris).

A target runs one public entry point on the input, with the C accelerators on and then off
(:func:`both_paths`), and raises :class:`Finding` when:

- anything but a :class:`gameserde.errors.GameserdeError` escapes (``foreign``);
- the C and pure-Python paths give different values or errors (``accel-mismatch``);
- the output is larger than a bound linear in the input (``expansion``: :func:`check_weight`);
- with :data:`LIMITS` switched on by the offline driver, the input costs more CPU time or
  traced memory than a bound linear in its size (``slow``, ``memory``).

Time is never measured in CI (``LIMITS.time`` is off there); the CI checks are deterministic.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
import traceback
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

from gameserde.errors import GameserdeError
from gameserde.flatbuffers import _accel as fb_accel
from gameserde.godot import _accel as godot_accel
from gameserde.kingsisle import _accel as ki_accel
from gameserde.o3de import _accel as o3de_accel
from gameserde.zeze import _accel as zeze_accel

SRC = os.sep + "gameserde" + os.sep


class Finding(Exception):
    """One defect: ``kind`` (``foreign``, ``accel-mismatch``, ``expansion``, ``slow``,
    ``memory``, ``cli``), a one-line ``detail`` and a ``signature`` that identifies the same
    defect across inputs (used to deduplicate and to match the known-issue list)."""

    def __init__(self, kind: str, detail: str, signature: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.signature = f"{kind}: {signature}"


@dataclasses.dataclass
class Limits:
    """Per-input cost limits, on only in the offline driver: ``time`` is a CPU-time bound of
    ``base_seconds + seconds_per_byte * len(input)``, ``memory`` a tracemalloc peak bound of
    ``base_bytes + bytes_per_byte * len(input)``."""

    time: bool = False
    memory: bool = False
    base_seconds: float = 0.25
    seconds_per_byte: float = 50e-6
    base_bytes: int = 4 << 20
    bytes_per_byte: int = 2048


LIMITS = Limits()


def where(exc: BaseException) -> str:
    """The innermost gameserde frame of ``exc``'s traceback, as ``module.py:function``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if SRC in f.filename]
    if not frames:
        return "?"
    f = frames[-1]
    return f"{os.path.basename(f.filename)}:{f.name}"


def foreign(exc: BaseException, what: str) -> Finding:
    first = str(exc).split("\n", 1)[0][:200]
    return Finding("foreign", f"{what} raised {type(exc).__name__}: {first} ({where(exc)})",
                   f"{what} {type(exc).__name__} at {where(exc)}")


def outcome(what: str, fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", result)`` or ``("error", "Type: message")`` for a gameserde error; anything
    else raises :class:`Finding`."""
    try:
        return "ok", fn()
    except GameserdeError as e:
        return "error", f"{type(e).__name__}: {e}"
    except Finding:
        raise
    except (Exception, RecursionError, MemoryError) as e:
        raise foreign(e, what) from e


@contextlib.contextmanager
def accelerated(enabled: bool) -> Iterator[None]:
    """Switch every C accelerator on (when built) or off for the duration."""
    saved = godot_accel.ENABLED, fb_accel.ENABLED, zeze_accel.ENABLED, ki_accel.ENABLED
    godot_accel.ENABLED = enabled and godot_accel.AVAILABLE
    fb_accel.ENABLED = enabled
    zeze_accel.ENABLED = enabled and zeze_accel.speedups is not None
    ki_accel.ENABLED = enabled and ki_accel.speedups is not None
    saved_o3de = o3de_accel.ENABLED
    o3de_accel.ENABLED = enabled and o3de_accel.speedups is not None
    try:
        yield
    finally:
        godot_accel.ENABLED, fb_accel.ENABLED, zeze_accel.ENABLED, ki_accel.ENABLED = saved
        o3de_accel.ENABLED = saved_o3de


def agreeing(fn: Callable[[], Any], outcome: Callable[[Callable[[], Any]], Any]) -> Any:
    """``outcome(fn)`` with the accelerators on and off, which must be equal; returns the
    accelerated one (the codecs' own twin tests say what an outcome holds)."""
    with accelerated(True):
        fast = outcome(fn)
    with accelerated(False):
        pure = outcome(fn)
    assert fast == pure
    return fast


def both_paths(what: str, fn: Callable[[], Any],
               compare: Callable[[Any], Any] = repr) -> tuple[str, Any]:
    """``outcome`` with the accelerators on and off; they must agree (values through
    ``compare``, errors by type and message). Returns the accelerated outcome."""
    with accelerated(True):
        fast = outcome(what, fn)
    with accelerated(False):
        pure = outcome(what, fn)
    a = fast if fast[0] == "error" else ("ok", compare(fast[1]))
    b = pure if pure[0] == "error" else ("ok", compare(pure[1]))
    if a != b:
        raise Finding("accel-mismatch", f"{what}: C gives {_short(a)}, Python {_short(b)}",
                      f"{what} {a[0]}/{b[0]}")
    return fast


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 160 else text[:157] + "..."


def check_weight(what: str, weight: int, size: int, factor: int = 64) -> None:
    """The output (its ``weight``, e.g. the length of its repr or text) must stay within
    ``4096 + factor * size`` for an input of ``size`` bytes."""
    bound = 4096 + factor * size
    if weight > bound:
        raise Finding("expansion", f"{what}: output weight {weight} for {size} input bytes "
                      f"(bound {bound})", what)


def bounded_repr(value: Any, size: int, what: str, factor: int = 64) -> str:
    """``repr(value)``, raising the ``expansion`` finding when it is longer than the bound
    (the repr is linear in the value's size, so this bounds what the decoder built)."""
    text = repr(value)
    check_weight(what, len(text), size, factor)
    return text


def run_limited(name: str, fn: Callable[[bytes], None], data: bytes) -> None:
    """Run target ``name`` on ``data`` under :data:`LIMITS`."""
    if LIMITS.memory:
        tracemalloc.start()
    start = time.process_time()
    try:
        fn(data)
    finally:
        elapsed = time.process_time() - start
        peak = 0
        if LIMITS.memory:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    if LIMITS.time:
        bound = LIMITS.base_seconds + LIMITS.seconds_per_byte * len(data)
        if elapsed > bound:
            raise Finding("slow", f"{name}: {elapsed:.2f} s of CPU for {len(data)} bytes "
                          f"(bound {bound:.2f} s)", name)
    if LIMITS.memory:
        bound_b = LIMITS.base_bytes + LIMITS.bytes_per_byte * len(data)
        if peak > bound_b:
            raise Finding("memory", f"{name}: peak {peak >> 10} KiB for {len(data)} bytes "
                          f"(bound {bound_b >> 10} KiB)", name)
