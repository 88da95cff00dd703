"""``max_expansion``: the one option, in every format, that bounds what a decoder, loader or
CLI verb may build or do for a hostile input, as a factor of the input's size.

Each format counts its own unit (bytes a FlatBuffers value reproduces, the default values a
Zeze decode builds, the bytes a KingsIsle stream inflates to, the characters an O3DE
``$import`` brings in, ...) and documents it with its default factor; what they share is the
rule: the work is at most ``max_expansion`` times the input's size plus a small constant
slack, else the format's :class:`~gameserde.errors.DecodeError`, whose message names the
option. ``None`` (or ``inf``) means no limit.
"""

from __future__ import annotations

import math

UNLIMITED = 1 << 62
"""The limit of ``max_expansion=None`` (C accelerators count in 64-bit integers)."""


def check_factor(factor: object) -> float | None:
    """``factor`` as a ``max_expansion`` value: a number >= 0 (``inf`` is no limit, as
    ``None`` is), else :class:`ValueError`."""
    if factor is None:
        return None
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not factor >= 0:
        raise ValueError(f"max_expansion must be a number >= 0 or None, not {factor!r}")
    return None if math.isinf(factor) else float(factor)


def expansion_limit(size: int, factor: object, slack: int = 0) -> int:
    """How much of a format's unit ``max_expansion=factor`` allows for a ``size``-byte
    input, ``slack`` included (:data:`UNLIMITED` for no limit)."""
    checked = check_factor(factor)
    if checked is None or checked * size + slack >= UNLIMITED:
        return UNLIMITED
    return math.floor(checked * size) + slack


def exceeded(what: str, limit: int, size: int, factor: object) -> str:
    """The sentence of an error for a budget that ran out: ``what`` says what would grow past
    ``limit`` (for example "decoding would build more than 4096 bytes of default values")."""
    shown = "inf" if factor is None else f"{float(factor):g}"  # type: ignore[arg-type]
    return (f"{what} for the {size}-byte input (max_expansion={shown}, limit {limit}); a "
            "larger max_expansion allows more (None or inf: no limit)")
