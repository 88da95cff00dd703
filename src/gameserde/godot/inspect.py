"""An annotated byte map of a Variant: one row per region, with offset, bytes, path and value.

Containers get a row for their header and one for their size; every other value gets one row
covering its header and payload. Undecodable input is mapped up to the failure, and the failing
region is marked with the error instead of aborting.

The map costs time and memory linear in the input: each byte is read once (a container's
rows come from its header, only the values inside it are decoded, each once), rows share
their paths' common parts, and a path step names a long or composite key briefly.
"""

from __future__ import annotations

import struct
from typing import Any

from gameserde._bytemap import PATH_WIDTH, TYPE_WIDTH, Path, Region, render
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, path_key
from gameserde.godot import types as gt
from gameserde.godot.decoder import make_reader
from gameserde.godot.profiles import MAX_DEPTH, Profile, check_max_depth, get_profile
from gameserde.godot.types import VariantType as T

__all__ = ["COMPOSITE", "KEY_STEP_LIMIT", "PATH_WIDTH", "TYPE_WIDTH", "Path", "Region",
           "key_step", "regions", "render", "short", "type_name"]

_u32 = struct.Struct("<I").unpack_from

KEY_STEP_LIMIT = 40
"""Longest path step a key gets; a longer key is cut, and an Array or Dictionary key is named
by its entry's index (``[<value 3>]``): its own rows sit under ``[<key 3>]``."""

COMPOSITE: Any = object()  # what walk() gives for an Array or Dictionary instead of a value


def regions(data: Any, *, profile: str | Profile = "godot4", offset: int = 0,
            allow_objects: bool = True, max_depth: int = MAX_DEPTH, root: str = "$",
            base: int = 0) -> list[Region]:
    """The regions of the Variant at ``offset``, in byte order; paths start with ``root``
    and offsets count from ``base`` bytes before ``data`` (where ``data`` sits in a file)."""
    prof = get_profile(profile)
    check_max_depth(max_depth)
    buf = memoryview(data).cast("B")
    read = make_reader(buf, prof, allow_objects, max_depth)
    out: list[Region] = []

    def leaf(pos: int, where: Path, depth: int) -> tuple[int, Any]:
        try:
            value, end = read(pos, depth)
        except DecodeError as e:
            e.path = str(where) + e.path[1:]
            raise
        out.append(Region(base + pos, min(end - pos, len(buf) - pos), where,
                          type_name(value), short(value)))
        return end, value

    def count_row(pos: int, where: Path, what: str) -> tuple[int, int]:
        if len(buf) - pos < 4:
            raise DecodeError(f"{what} needs 4 bytes", offset=pos, path=str(where),
                              format="godot")
        raw = _u32(buf, pos)[0]
        return raw, pos + 4

    def walk(pos: int, where: Path, depth: int) -> tuple[int, Any]:
        """Map the value at ``pos``; return where it ends and the value (a composite one
        is not built: ``COMPOSITE``)."""
        if len(buf) - pos < 4:
            return leaf(pos, where, depth)
        header = _u32(buf, pos)[0]
        tid = header & prof.type_mask
        vtype = prof.by_id[tid] if tid < len(prof.by_id) else None
        if vtype not in (T.ARRAY, T.DICTIONARY) or depth >= max_depth:
            return leaf(pos, where, depth)
        start = pos
        pos += 4
        kinds = []
        if prof.typed_containers:
            kinds = [(header >> 16) & 3] if vtype == T.ARRAY else [
                (header >> 16) & 3, (header >> 18) & 3]
        types = []
        for kind in kinds:
            if kind == 1:
                bt, pos = count_row(pos, where, "a container element type")
                types.append(gt.TYPE_NAMES.get(gt.VariantType(bt), str(bt))
                             if bt < len(gt.VariantType) else str(bt))
            elif kind in (2, 3):
                size = 4 + ((_u32(buf, pos)[0] + 3) & ~3) if len(buf) - pos >= 4 else 4
                types.append(bytes(buf[pos + 4:pos + size]).rstrip(b"\0").decode(
                    "utf-8", "replace"))
                pos += size
            else:
                types.append("Variant")
        name = gt.TYPE_NAMES[vtype]
        if any(t != "Variant" for t in types):
            name += "[" + ", ".join(types) + "]"
        out.append(Region(base + start, pos - start, where, name, "header"))
        raw, after = count_row(pos, where, f"{name} size")
        count = raw & 0x7FFFFFFF
        nouns = ("element", "elements") if vtype == T.ARRAY else ("entry", "entries")
        out.append(Region(base + pos, 4, where, name, f"{count} {nouns[count != 1]}"))
        pos = after
        for i in range(count):
            if vtype == T.ARRAY:
                pos, _ = walk(pos, Path(where, f"[{i}]"), depth + 1)
            else:
                pos, key = walk(pos, Path(where, f"[<key {i}>]"), depth + 1)
                pos, _ = walk(pos, Path(where, key_step(key, i)), depth + 1)
        return pos, COMPOSITE

    top = Path(None, root)
    try:
        with recursion_room(2 * max_depth + 64):
            walk(offset, top, 0)
    except DecodeError as e:
        at = e.offset if e.offset is not None else offset
        out.append(Region(base + at, max(len(buf) - at, 0), Path(None, e.path), "ERROR",
                          e.message))
    except RecursionError:
        out.append(Region(base + offset, max(len(buf) - offset, 0), top, "ERROR",
                          "values are nested too deeply for this Python stack"))
    return out


def key_step(key: Any, index: int) -> str:
    """The path step of the value under ``key``, at most about ``KEY_STEP_LIMIT`` long."""
    if key is COMPOSITE:
        return f"[<value {index}>]"
    if isinstance(key, str) and len(key) > KEY_STEP_LIMIT:
        return path_key(key[:KEY_STEP_LIMIT])[:-1] + "...]"
    step = path_key(key)
    return step if len(step) <= KEY_STEP_LIMIT else step[:KEY_STEP_LIMIT - 4] + "...]"


def type_name(value: Any) -> str:
    """The Godot type name of a decoded ``value``, as the map's type column shows it."""
    if value is None:
        return "Nil"
    t = type(value)
    names = {bool: "bool", int: "int", float: "float", str: "String", list: "Array",
             dict: "Dictionary", bytes: "PackedByteArray"}
    if t in names:
        return names[t]
    if t is gt.Object:
        return f"Object({value.class_name})"
    return t.__name__


def short(value: Any, limit: int = 60) -> str:
    """``value`` as the map's value column shows it: its repr, cut to ``limit``."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
