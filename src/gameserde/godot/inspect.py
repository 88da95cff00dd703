"""An annotated byte map of a Variant: one row per region, with offset, bytes, path and value.

Containers get a row for their header and one for their size; every other value gets one row
covering its header and payload. Undecodable input is mapped up to the failure, and the failing
region is marked with the error instead of aborting.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, path_key
from gameserde.godot import types as gt
from gameserde.godot.decoder import decode_prefix
from gameserde.godot.profiles import MAX_DEPTH, Profile, get_profile
from gameserde.godot.types import VariantType as T

_u32 = struct.Struct("<I").unpack_from


@dataclass(frozen=True)
class Region:
    offset: int
    size: int
    path: str
    type: str
    note: str


def regions(data: Any, *, profile: str | Profile = "godot4", offset: int = 0,
            allow_objects: bool = True, max_depth: int = MAX_DEPTH) -> list[Region]:
    """The regions of the Variant at ``offset``, in byte order."""
    prof = get_profile(profile)
    buf = memoryview(data).cast("B")
    out: list[Region] = []

    def value_at(pos: int, path: str, depth: int) -> tuple[Any, int]:
        try:
            return decode_prefix(buf, profile=prof, allow_objects=allow_objects,
                                 max_depth=max_depth - depth, offset=pos)
        except DecodeError as e:
            e.path = path + e.path[1:]
            raise

    def leaf(pos: int, path: str, depth: int) -> int:
        value, size = value_at(pos, path, depth)
        name = _type_name(value)
        out.append(Region(pos, min(size, len(buf) - pos), path, name, _short(value)))
        return pos + size

    def count_row(pos: int, path: str, what: str) -> tuple[int, int]:
        if len(buf) - pos < 4:
            raise DecodeError(f"{what} needs 4 bytes", offset=pos, path=path, format="godot")
        raw = _u32(buf, pos)[0]
        return raw, pos + 4

    def walk(pos: int, path: str, depth: int) -> int:
        if len(buf) - pos < 4:
            return leaf(pos, path, depth)
        header = _u32(buf, pos)[0]
        tid = header & prof.type_mask
        vtype = prof.by_id[tid] if tid < len(prof.by_id) else None
        if vtype not in (T.ARRAY, T.DICTIONARY) or depth >= max_depth:
            return leaf(pos, path, depth)
        start = pos
        pos += 4
        kinds = []
        if prof.typed_containers:
            kinds = [(header >> 16) & 3] if vtype == T.ARRAY else [
                (header >> 16) & 3, (header >> 18) & 3]
        types = []
        for kind in kinds:
            if kind == 1:
                bt, pos = count_row(pos, path, "a container element type")
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
        out.append(Region(start, pos - start, path, name, "header"))
        raw, after = count_row(pos, path, f"{name} size")
        count = raw & 0x7FFFFFFF
        nouns = ("element", "elements") if vtype == T.ARRAY else ("entry", "entries")
        out.append(Region(pos, 4, path, name, f"{count} {nouns[count != 1]}"))
        pos = after
        for i in range(count):
            if vtype == T.ARRAY:
                pos = walk(pos, f"{path}[{i}]", depth + 1)
            else:
                key, _ = value_at(pos, f"{path}[<key {i}>]", depth + 1)
                pos = walk(pos, f"{path}[<key {i}>]", depth + 1)
                pos = walk(pos, path + _key_step(key), depth + 1)
        return pos

    try:
        with recursion_room(2 * max_depth + 64):
            walk(offset, "$", 0)
    except DecodeError as e:
        at = e.offset if e.offset is not None else offset
        out.append(Region(at, max(len(buf) - at, 0), e.path, "ERROR", e.message))
    return out


def _key_step(key: Any) -> str:
    try:
        return path_key(key)
    except Exception:  # pragma: no cover - path_key handles every value
        return "[?]"


def _type_name(value: Any) -> str:
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


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def render(data: Any, rows: list[Region], *, width: int = 16) -> str:
    """Text table: offset, up to ``width`` bytes in hex, path, type and value."""
    buf = bytes(data)
    lines = [f"{'offset':<10} {'bytes':<{width * 3}} {'path':<20} {'type':<18} value"]
    for r in rows:
        chunk = buf[r.offset:r.offset + r.size]
        hexes = " ".join(f"{b:02x}" for b in chunk[:width])
        if len(chunk) > width:
            hexes = hexes[:width * 3 - 4] + " ..."
        lines.append(f"0x{r.offset:08x} {hexes:<{width * 3}} {r.path:<20} {r.type:<18} "
                     f"{r.note}")
    return "\n".join(lines)
