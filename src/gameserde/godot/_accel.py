"""Glue to the optional C accelerator of the Godot codec (``_speedups``, built at install).

The pure-Python reader and writer (:func:`~gameserde.godot.decoder.make_reader`,
:func:`~gameserde.godot.encoder.make_writer`) are the reference. The extension decodes and
encodes the common types itself and hands every other value to the reference, one value at
a time. Whenever it meets a problem it gives up, :func:`decode_prefix` and :func:`encode`
here return ``None``, and the caller runs the reference over the whole input, which
produces the result or raises the exact error. So the public API gives the same values,
bytes and errors with or without the extension.

While it decodes, the extension pauses the cyclic garbage collector (restoring its state
after): everything it builds is new and acyclic, so a collection in the middle could free
none of it and would only traverse it, and all else alive, again and again.

``ENABLED`` is true when the extension is importable and ``GAMESERDE_PURE`` is not set to a
non-empty value other than ``0``; tests switch it off to force the reference.
"""

from __future__ import annotations

from typing import Any

from gameserde._extensions import load_extension, pure_requested
from gameserde._recursion import recursion_room
from gameserde.godot import types as gt
from gameserde.godot.profiles import Profile
from gameserde.godot.types import VariantType as T

API_VERSION = 1
"""The ``_speedups.API_VERSION`` this glue speaks; a stale build is ignored."""

speedups: Any = load_extension("gameserde.godot._speedups", API_VERSION)

AVAILABLE = speedups is not None
"""Whether the extension was built and loaded."""

ENABLED = AVAILABLE and not pure_requested()
"""Whether ``decode``/``encode`` use the extension (set it to ``False`` to force the reference)."""

_DF_TYPED, _DF_MATH64, _DF_SURROGATES = 1, 2, 4
_EF_DOUBLE, _EF_SURROGATES, _EF_PSA_NUL = 1, 2, 4

_configured = False
_decode_info: dict[int, tuple[Profile, bytes, int]] = {}
_encode_info: dict[int, tuple[Profile, tuple[int, ...], int]] = {}
_MAX_PROFILES = 32  # the tables per profile are cached; custom profiles must not pile up


def _configure() -> None:
    """Hand the extension its value classes (on first use: the codec modules import us)."""
    global _configured
    from gameserde.godot.decoder import build_dictionary

    speedups.configure(gt.Vector2, gt.Vector2i, gt.Vector3, gt.Vector3i, gt.Vector4,
                       gt.Vector4i, gt.Quaternion, gt.Color, gt.PackedStringArray,
                       build_dictionary)
    _configured = True


def _decoder_tables(prof: Profile) -> tuple[bytes, int]:
    info = _decode_info.get(id(prof))
    if info is None or info[0] is not prof:
        flags = ((_DF_TYPED if prof.typed_containers else 0)
                 | (_DF_MATH64 if prof.math_flag64 else 0)
                 | (_DF_SURROGATES if prof.allow_surrogates else 0))
        info = (prof, bytes(int(t) for t in prof.by_id), flags)
        if len(_decode_info) >= _MAX_PROFILES:
            _decode_info.clear()
        _decode_info[id(prof)] = info
    return info[1], info[2]


def _encoder_tables(prof: Profile, double_precision: bool) -> tuple[tuple[int, ...], int]:
    info = _encode_info.get(id(prof))
    if info is None or info[0] is not prof:
        flags = ((_EF_SURROGATES if prof.allow_surrogates else 0)
                 | (_EF_PSA_NUL if prof.string_array_nul else 0))
        info = (prof, tuple(prof.wire_id.get(t, -1) for t in T), flags)
        if len(_encode_info) >= _MAX_PROFILES:
            _encode_info.clear()
        _encode_info[id(prof)] = info
    return info[1], info[2] | (_EF_DOUBLE if double_precision else 0)


def decode_prefix(buf: memoryview, prof: Profile, allow_objects: bool, max_depth: int,
                  offset: int) -> tuple[Any, int] | None:
    """``decoder.decode_prefix`` through the extension, or ``None``: run the reference."""
    from gameserde.godot.decoder import make_reader

    if not _configured:
        _configure()
    types, flags = _decoder_tables(prof)

    def get_reader() -> Any:
        return make_reader(buf, prof, allow_objects, max_depth)

    try:
        with recursion_room(2 * max_depth + 64):
            value, end = speedups.decode(buf, offset, types, prof.type_mask, flags, max_depth,
                                         get_reader)
    except Exception:  # anything at all: the reference decides (and raises the right error)
        return None
    return value, end - offset


def encode(value: Any, prof: Profile, full_objects: bool, double_precision: bool,
           max_depth: int) -> bytes | None:
    """``encoder.encode`` through the extension, or ``None``: run the reference."""
    from gameserde.godot.encoder import make_writer

    if not _configured:
        _configure()
    wire_ids, flags = _encoder_tables(prof, double_precision)

    def get_writer() -> Any:
        out = bytearray()
        write = make_writer(out, prof, full_objects, double_precision, max_depth)

        def write_one(v: Any, depth: int) -> bytearray:
            out.clear()
            write(v, depth)
            return out

        return write_one

    try:
        with recursion_room(2 * max_depth + 64):
            data: bytes = speedups.encode(value, wire_ids, flags, max_depth, get_writer)
    except Exception:  # anything at all: the reference decides (and raises the right error)
        return None
    return data
