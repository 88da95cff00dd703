"""Glue to the optional C accelerator of binary resource Variants (``_speedups``, built at
install).

:class:`~gameserde.godot.resource.binary_variant.VariantReader` and
:class:`~gameserde.godot.resource.binary_variant.VariantWriter` are the reference. Their
``value`` hands each top-level value (a property's) to :func:`read_value` /
:func:`write_value` here first. The extension reads and writes the common types itself, and
hands every other value to the reference one value at a time (:func:`_read_one`,
:func:`_write_one`), passing the count of choices back and forth. Whenever it meets a
problem it gives up: these functions restore the reader's ``choice`` and ``overrides`` (the
writer's ``choice``; its ``out`` is only extended on success, and the warnings of values
handed to the reference are held until then) and return ``None``/``False``, and the caller
runs the reference over the whole value, which produces the result or raises the exact
error. So values, bytes, bookkeeping and errors are the same with or without the extension.
Big-endian files always take the reference.

While it reads, the extension pauses the cyclic garbage collector (everything it builds is
new and acyclic, so a collection in the middle could free none of it).

``ENABLED`` is true when the extension is importable and ``GAMESERDE_PURE`` is not set to a
non-empty value other than ``0``; tests switch it off to force the reference.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from gameserde._extensions import load_extension, pure_requested
from gameserde.godot import types as gt

if TYPE_CHECKING:
    from gameserde.godot.resource.binary_variant import VariantReader, VariantWriter

API_VERSION = 1
"""The ``_speedups.API_VERSION`` this glue speaks; a stale build is ignored."""

speedups: Any = load_extension("gameserde.godot.resource._speedups", API_VERSION)

AVAILABLE = speedups is not None
"""Whether the extension was built and loaded."""

ENABLED = AVAILABLE and not pure_requested()
"""Whether the reader and writer use the extension (set it to ``False`` to force the
reference)."""

_REAL64, _ALWAYS_INT64, _GODOT4 = 1, 2, 4

_configured = False


def _configure() -> None:
    """Hand the extension its classes, fallbacks and tags (on first use: binary_variant
    imports us)."""
    global _configured
    from gameserde.godot.decoder import build_dictionary
    from gameserde.godot.resource import binary_variant as bv

    speedups.configure(gt.Vector2, gt.Vector2i, gt.Vector3, gt.Vector3i, gt.Color,
                       gt.PackedStringArray, build_dictionary, _read_one, _write_one,
                       (bv.INT64, bv.INT32, bv.DOUBLE, bv.FLOAT, bv.OBJECT), bv.MAX_DEPTH)
    _configured = True


def _read_one(rd: VariantReader, pos: int, depth: int, choice: int) -> tuple[Any, int, int]:
    """The reference reader for one value the extension leaves to Python."""
    rd.choice = choice
    value, end = rd.reference_value(pos, depth)
    return value, end, rd.choice


def _write_one(call: tuple[VariantWriter, list[warnings.WarningMessage]], value: Any,
               depth: int, choice: int) -> tuple[bytearray, int]:
    """The reference writer for one value the extension leaves to Python: its bytes. The
    warnings of a container (typed ones warn) are held until the whole value is written, so
    that an attempt given up does not warn twice."""
    wr, held = call
    wr.choice = choice
    out, wr.out = wr.out, bytearray()
    try:
        if isinstance(value, list | gt.Dictionary):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                wr.reference_value(value, depth)
            held.extend(caught)
        else:
            wr.reference_value(value, depth)
        return wr.out, wr.choice
    finally:
        wr.out = out


def read_value(rd: VariantReader, pos: int) -> tuple[Any, int] | None:
    """``rd.value(pos)`` through the extension, or ``None`` (state restored): run the
    reference."""
    if not _configured:
        _configure()
    ctx = rd.ctx
    start = rd.choice
    flags = (_REAL64 if ctx.real_size == 8 else 0) | (_ALWAYS_INT64 if ctx.always_int64 else 0)
    try:
        value, end, rd.choice = speedups.read(rd.buf, pos, rd, start, flags, rd.overrides)
    except Exception:  # anything at all: the reference decides (and raises the right error)
        rd.choice = start
        for k in [k for k in rd.overrides if k >= start]:
            del rd.overrides[k]
        return None
    return value, end


def write_value(wr: VariantWriter, value: Any) -> bool:
    """``wr.value(value)`` through the extension; ``False`` (state restored): run the
    reference."""
    if not _configured:
        _configure()
    ctx = wr.ctx
    start = wr.choice
    flags = ((_REAL64 if ctx.real_size == 8 else 0) | (_ALWAYS_INT64 if ctx.always_int64 else 0)
             | (_GODOT4 if ctx.format >= 4 else 0))
    held: list[warnings.WarningMessage] = []
    try:
        data, wr.choice = speedups.write(value, (wr, held), start, flags, wr.overrides)
    except Exception:  # anything at all: the reference decides (and raises the right error)
        wr.choice = start
        return False
    for w in held:
        warnings.warn(w.message, w.category, stacklevel=3)
    wr.out += data
    return True
