"""Binary resource files (``.res``, ``.scn`` and the importer's ``.mesh``/``.anim``/
``.material``), read into :class:`~gameserde.godot.resource.model.ResourceFile` and written
back byte for byte as ``ResourceFormatSaverBinary`` writes them (Godot 3 and 4; Godot 2's
format 1 on a best-effort basis).

The layout (``resource_format_binary.cpp``): ``"RSRC"`` (absent inside an ``RSCC`` file, see
:mod:`~gameserde.godot.resource.compressed`), u32 big-endian flag and u32 ``use_real64``
(both read little-endian), then in the file's byte order u32 ``ver_major``, ``ver_minor``,
``ver_format``, the main resource's type, u64 offset of Godot 2's import metadata, and
fourteen u32 words: reserved up to format 3; from format 4 (Godot 4) u32 flags
(``NAMED_SCENE_IDS`` 1, ``UIDS`` 2, ``REAL_T_IS_DOUBLE`` 4, ``HAS_SCRIPT_CLASS`` 8), u64 UID,
the script class string when flagged, and eleven reserved words. Then the string table
(u32 count, strings), the external resources (type, path, and from Godot 4 with ``UIDS`` a u64
UID each), the internal resources (path - ``local://ID`` for a resource the file holds - and
u64 offset each; the main one last) and each internal resource at its offset: type, u32
property count, and per property a string-table index and a Variant
(:mod:`~gameserde.godot.resource.binary_variant`). ``"RSRC"`` closes the stream.

Ids in the model: an external resource's id is its position counted from 1 (``ExtRef("1")``
is the first); an internal resource's id is its path without ``local://`` (Godot 3: the
number ``N``; Godot 4: the scene-unique id such as ``"Image_x3k1f"``), or its whole path when
that is not a ``local://`` one (the main resource, saved under its own ``res://`` path).
A PackedScene's ``_bundled`` stays a plain Dictionary property here.

``ResourceFile.kept`` keys (all optional on write; the default is what the engine writes):

* ``"big_endian"``, ``"use_real64"``: the first two header words (default 0).
* ``"flags"``: Godot 4's header flags (default ``NAMED_SCENE_IDS | UIDS``, plus
  ``HAS_SCRIPT_CLASS`` when there is a script class; nothing before format 4).
* ``"uid_field"``: the header's raw u64 UID when ``ResourceFile.uid`` does not give it (no
  ``UIDS`` flag, or no valid UID); default all ones (no UID) with ``UIDS``, else 0.
* ``"reserved"``: the reserved words (14 before format 4, else 11), when not all zero.
* ``"import_metadata"``: Godot 2's import metadata (the editor's import settings, source
  files and their MD5s, a thumbnail), the bytes between the last resource and the closing
  ``"RSRC"`` that the header's offset points to; :func:`write` puts them back there and
  sets the offset.
* ``"importmd_ofs"``: the import-metadata offset when it is neither 0 nor that place.
* ``"strings"``: the string table in file order (default: built in the saver's order, NodePath
  parts found walking the resources from the main one, then property names).
* ``"overrides"``: ``{choice number: tag}`` for values stored otherwise than the saver would
  choose (see :mod:`~gameserde.godot.resource.binary_variant`); numbers given as text (as
  JSON has them) are accepted.
* ``"gaps"``: ``{internal resource index (str): bytes}`` found between the end of one
  resource and the offset of the next (none in files the engine writes).
* ``"tail"``: what follows the last resource (and the import metadata) when it is not just
  ``"RSRC"``.
* ``"rscc"``: ``{"mode": int, "block_size": int}`` for a file read from an ``RSCC`` container;
  :func:`write` then compresses the stream again with that mode and block size.
"""

from __future__ import annotations

import struct
from typing import Any, Protocol

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import types as gt
from gameserde.godot.resource import compressed
from gameserde.godot.resource.binary_variant import (
    MAX_DEPTH,
    Context,
    VariantReader,
    VariantWriter,
)
from gameserde.godot.resource.classes import saver_names
from gameserde.godot.resource.model import ExtResource, Resource, ResourceFile, SubRef

__all__ = ["FLAG_HAS_SCRIPT_CLASS", "FLAG_NAMED_SCENE_IDS", "FLAG_REAL_T_IS_DOUBLE",
           "FLAG_UIDS", "MAGIC", "id_to_text", "read", "text_to_id", "write"]

MAGIC = b"RSRC"
FLAG_NAMED_SCENE_IDS, FLAG_UIDS, FLAG_REAL_T_IS_DOUBLE, FLAG_HAS_SCRIPT_CLASS = 1, 2, 4, 8
MAX_FORMAT = 6
"""The newest ``ver_format`` known (Godot 4.3+)."""
NO_UID = (1 << 64) - 1
"""``ResourceUID::INVALID_ID`` (-1) as the u64 the file holds."""
_UID_DIGITS = "abcdefghijklmnopqrstuvwxy012345678"
"""The digits of a UID's text, base 34 (``z`` and ``9`` are not digits: the engine's base
is ``('z' - 'a') + ('9' - '0')``)."""
_UID_VALUES = {**{chr(97 + i): i for i in range(26)}, **{chr(48 + i): 25 + i for i in range(10)}}
"""What ``ResourceUID::text_to_id`` reads each character as (``z`` and ``9`` included)."""
_LE = struct.Struct("<II")
_LEAVES = frozenset({bool, int, float, str, type(None), bytes, *gt.MATH_TYPES})
"""Values holding neither references nor NodePaths, skipped fast by the string-table walk."""


def id_to_text(uid: int) -> str:
    """A UID as ``uid://...`` text (base 34: ``a``-``y`` then ``0``-``8``), as
    ``ResourceUID::id_to_text`` writes it."""
    digits = []
    while True:
        uid, c = divmod(uid, 34)
        digits.append(_UID_DIGITS[c])
        if not uid:
            break
    return "uid://" + "".join(reversed(digits))


def text_to_id(text: str) -> int:
    """The u64 a file holds for ``uid://...`` text; raises ValueError for other text."""
    body = text.removeprefix("uid://")
    if body == text or not body or any(c not in _UID_VALUES for c in body):
        raise ValueError(f"{text!r} is not a uid://... text")
    uid = 0
    for c in body:
        uid = uid * 34 + _UID_VALUES[c]
    if uid >= 1 << 63:
        raise ValueError(f"{text!r} is larger than a UID can be")
    return uid


def _fail(message: str, offset: int) -> DecodeError:
    return DecodeError(message, offset=offset, format="godot")


class Marks(Protocol):
    """Where :func:`read` reports the bytes it reads (:mod:`.inspect`): ``mark`` a field
    from ``start`` to ``end`` at ``path``, ``value`` the Variant at ``pos``."""

    def mark(self, start: int, end: int, path: str, type: str, note: str) -> None: ...

    def value(self, rd: VariantReader, pos: int, path: str) -> None: ...


class _NoMarks:
    def mark(self, start: int, end: int, path: str, type: str, note: str) -> None:
        pass

    def value(self, rd: VariantReader, pos: int, path: str) -> None:
        pass


def read(data: bytes | bytearray | memoryview, *,
         max_ratio: int = compressed.DEFAULT_MAX_RATIO, marks: Marks | None = None
         ) -> ResourceFile:
    """The binary resource ``data`` (``RSRC``, or ``RSCC`` whose declared size is at most
    ``max_ratio`` times ``len(data)``) as a :class:`ResourceFile` of form ``"binary"``.
    ``marks`` is told which bytes hold what, as they are read (in the uncompressed stream).

    Raises :class:`~gameserde.errors.DecodeError` with the byte offset (in the uncompressed
    stream for an ``RSCC`` file) for anything malformed.
    """
    m = marks or _NoMarks()
    kept: dict[str, Any] = {}
    raw = memoryview(data).cast("B")
    if compressed.is_compressed(raw):
        stream, container = compressed.decompress(raw, max_ratio=max_ratio)
        kept["rscc"] = {"mode": container.mode, "block_size": container.block_size}
        buf = memoryview(stream)
        pos = 0
    elif bytes(raw[:4]) == MAGIC:
        buf, pos = raw, 4
    else:
        raise _fail("not a binary Godot resource (it starts with neither 'RSRC' nor 'RSCC')",
                    0)
    if len(buf) - pos < 20:
        raise _fail(f"the header needs 20 bytes but only {max(len(buf) - pos, 0)} are left",
                    pos)
    if pos:
        m.mark(0, 4, "$.magic", "magic", "RSRC")
    big_word, real64_word = _LE.unpack_from(buf, pos)
    ctx = Context(big_endian=big_word != 0)
    rd = VariantReader(buf, ctx)
    major, minor, fmt = ctx.struct("III").unpack_from(buf, pos + 8)
    m.mark(pos, pos + 4, "$.big_endian", "u32", str(big_word))
    m.mark(pos + 4, pos + 8, "$.use_real64", "u32", str(real64_word))
    m.mark(pos + 8, pos + 16, "$.engine", "u32 major, minor", f"{major}.{minor}")
    m.mark(pos + 16, pos + 20, "$.format", "u32", str(fmt))
    if fmt > MAX_FORMAT:
        raise _fail(f"format {fmt} is newer than the formats gameserde knows (up to "
                    f"{MAX_FORMAT}, Godot 4.3+)", pos + 16)
    ctx.format = fmt
    ctx.always_int64 = _always_int64(major, minor)
    if big_word:
        kept["big_endian"] = big_word
    if real64_word:
        kept["use_real64"] = real64_word
    rtype, end = rd.string(pos + 20, "the resource type")
    m.mark(pos + 20, end, "$.type", "String", repr(rtype))
    pos = end
    importmd = rd.u64(pos, "the import-metadata offset")
    m.mark(pos, pos + 8, "$.import_metadata_offset", "u64", str(importmd))
    pos += 8
    flags, uid, script_class = 0, None, None
    if fmt >= 4:
        flags = rd.u32(pos, "the header flags")
        uid_field = rd.u64(pos + 4, "the header UID")
        m.mark(pos, pos + 4, "$.flags", "u32", hex(flags))
        m.mark(pos + 4, pos + 12, "$.uid", "u64", str(uid_field))
        pos += 12
        kept["flags"] = flags
        if flags & FLAG_UIDS and uid_field < 1 << 63:
            uid = id_to_text(uid_field)
        elif uid_field != (NO_UID if flags & FLAG_UIDS else 0):
            kept["uid_field"] = uid_field
        if flags & FLAG_HAS_SCRIPT_CLASS:
            script_class, end = rd.string(pos, "the script class")
            m.mark(pos, end, "$.script_class", "String", repr(script_class))
            pos = end
        ctx.real_size = 8 if flags & FLAG_REAL_T_IS_DOUBLE else 4
        ctx.named_ids = bool(flags & FLAG_NAMED_SCENE_IDS)
        rd.refresh()
    n_reserved = 11 if fmt >= 4 else 14
    rd.need(pos, 4 * n_reserved, "the reserved header words")
    reserved = list(ctx.struct(f"{n_reserved}I").unpack_from(buf, pos))
    m.mark(pos, pos + 4 * n_reserved, "$.reserved", f"u32 x {n_reserved}",
           "zero" if not any(reserved) else str(reserved))
    pos += 4 * n_reserved
    if any(reserved):
        kept["reserved"] = reserved

    n = rd.count(pos, "strings in the string table", 4)
    m.mark(pos, pos + 4, "$.strings", "u32 count", f"{n} strings")
    pos += 4
    strings = ctx.strings
    for i in range(n):
        s, end = rd.string(pos, "a string-table entry")
        if marks is not None:
            marks.mark(pos, end, f"$.strings[{i}]", "String", repr(s))
        pos = end
        strings.append(s)
    kept["strings"] = list(strings)

    external: list[ExtResource] = []
    ext_item = 16 if flags & FLAG_UIDS else 8
    n = rd.count(pos, "external resources", ext_item)
    m.mark(pos, pos + 4, "$.external", "u32 count", f"{n} external resources")
    pos += 4
    for i in range(n):
        etype, end = rd.string(pos, "an external resource's type")
        if marks is not None:
            marks.mark(pos, end, f"$.external[{i}].type", "String", repr(etype))
        epath, pos = rd.string(end, "an external resource's path")
        if marks is not None:
            marks.mark(end, pos, f"$.external[{i}].path", "String", repr(epath))
        euid = None
        if flags & FLAG_UIDS:
            value = rd.u64(pos, "an external resource's UID")
            if marks is not None:
                marks.mark(pos, pos + 8, f"$.external[{i}].uid", "u64", str(value))
            if value != NO_UID:
                if value >= 1 << 63:
                    raise _fail(f"external resource {i} has UID {value}, which is not a valid "
                                "UID", pos)
                euid = id_to_text(value)
            pos += 8
        external.append(ExtResource(etype, epath, str(i + 1), euid))
    ctx.ext_count = len(external)

    n = rd.count(pos, "internal resources", 12)
    m.mark(pos, pos + 4, "$.internal", "u32 count", f"{n} internal resources")
    pos += 4
    table: list[tuple[str, int, int]] = []
    for i in range(n):
        path, end = rd.string(pos, "an internal resource's path")
        if marks is not None:
            marks.mark(pos, end, f"$.internal[{i}].path", "String", repr(path))
        pos = end
        offset = rd.u64(pos, "an internal resource's offset")
        if marks is not None:
            marks.mark(pos, pos + 8, f"$.internal[{i}].offset", "u64", str(offset))
        table.append((path, offset, pos))
        pos += 8
    if not table:
        raise _fail("the file holds no resource", pos - 4)
    ids = [p.removeprefix("local://") for p, _, _ in table]
    if len(set(ids)) != len(ids):
        raise _fail("two internal resources have the same path", pos)
    ctx.set_internal_ids(ids)

    resources: list[Resource] = []
    gaps: dict[str, bytes] = {}
    with recursion_room(3 * MAX_DEPTH + 64):
        for i, (path, offset, at) in enumerate(table):
            if offset < pos or offset > len(buf):
                where = "before the end of the previous one" if offset < pos else \
                    "past the end of the file"
                raise _fail(f"internal resource {i} ({path}) starts at {offset}, {where}", at)
            if offset > pos:
                gaps[str(i)] = bytes(buf[pos:offset])
                m.mark(pos, offset, f"$[{i}]", "gap", f"{offset - pos} bytes before it")
            try:
                res, pos = _read_resource(rd, offset, ids[i], i, marks)
            except RecursionError:
                raise _fail("values are nested too deeply for this Python stack",
                            offset) from None
            resources.append(res)
    if gaps:
        kept["gaps"] = gaps
    rest = bytes(buf[pos:])
    if rest:
        m.mark(pos, len(buf), "$.tail", "end", "RSRC" if rest == MAGIC else
               f"{len(rest)} bytes (import metadata, then RSRC)" if importmd == pos else
               f"{len(rest)} bytes")
    if importmd and importmd == pos and rest.endswith(MAGIC):
        kept["import_metadata"] = rest[:-4]
        rest = MAGIC
    elif importmd:
        kept["importmd_ofs"] = importmd
    if rest != MAGIC:
        kept["tail"] = rest
    if rd.overrides:
        kept["overrides"] = rd.overrides
    return ResourceFile(form="binary", type=rtype, engine=(major, minor), format=fmt,
                        external=external, resources=resources, uid=uid,
                        script_class=script_class, kept=kept)


def _read_resource(rd: VariantReader, pos: int, rid: str, index: int,
                   marks: Marks | None) -> tuple[Resource, int]:
    """Internal resource ``index`` at ``pos``; ``marks``, when given, told of its bytes
    (only then are their paths and notes made: this is the hot path of every read)."""
    where = f"$[{index}]"
    rtype, end = rd.string(pos, "a resource's type")
    if marks is not None:
        marks.mark(pos, end, f"{where}.type", "String", repr(rtype))
    pos = end
    n = rd.count(pos, "properties", 8)
    if marks is not None:
        marks.mark(pos, pos + 4, where, "u32 count", f"{n} properties")
    pos += 4
    props: dict[str, Any] = {}
    for _ in range(n):
        start = pos
        name, pos = rd.name(pos, "a property name")
        if not name:
            raise _fail("a property has an empty name", pos - 4)
        try:
            if marks is not None:
                marks.mark(start, pos, f"{where}.{name}", "name", repr(name))
                marks.value(rd, pos, f"{where}.{name}")
            props[name], pos = rd.value(pos)
        except DecodeError as e:
            e.add_parent(f".{name}")
            raise
    return Resource(rtype, rid, props), pos


def _engine_strings(file: ResourceFile) -> list[str]:
    """The string table the saver builds: NodePath parts in the order its walk from the main
    resource finds them (sub-resources when first referenced), then the property names of
    each resource's class (:func:`.classes.saver_names`)."""
    order: dict[str, None] = {}
    by_id = {r.id: r for r in file.resources}
    if file.resources:
        main = file.resources[-1]
        seen = {main.id}
        stack: list[Any] = [iter(main.properties.values())]
        while stack:
            try:
                v = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            if type(v) in _LEAVES:
                continue
            if isinstance(v, SubRef):
                sub = by_id.get(v.id)
                if sub is not None and sub.id not in seen:
                    seen.add(sub.id)
                    stack.append(iter(sub.properties.values()))
            elif isinstance(v, gt.NodePath):
                order.update(dict.fromkeys((*v.names, *v.subnames)))
            elif isinstance(v, list):
                stack.append(iter(v))
            elif isinstance(v, dict | gt.Dictionary):
                stack.append(iter([x for pair in v.items() for x in pair]))
    for r in file.resources:
        order.update(dict.fromkeys(saver_names(r.type, r.properties, file.engine)))
    return list(order)


def write(file: ResourceFile) -> bytes:
    """``file`` as the bytes of a binary resource (an ``RSCC`` file when ``kept`` has
    ``"rscc"``). ``kept`` is used only for a file of form ``"binary"``: another form's is its
    own business, and the defaults are what the engine writes. Raises
    :class:`~gameserde.errors.EncodeError` for what the format cannot hold."""
    kept = file.kept if file.form == "binary" else {}
    fmt = file.format
    if not 1 <= fmt <= MAX_FORMAT:
        raise EncodeError(f"binary format {fmt} is not one gameserde writes (1 to "
                          f"{MAX_FORMAT})", format="godot")
    if not file.resources:
        raise EncodeError("a resource file needs at least one resource", format="godot")
    default_flags = 0
    if fmt >= 4:
        default_flags = FLAG_NAMED_SCENE_IDS | FLAG_UIDS
        if file.script_class:
            default_flags |= FLAG_HAS_SCRIPT_CLASS
    flags = int(kept.get("flags", default_flags))
    big_word = int(kept.get("big_endian", 0))
    ctx = Context(big_endian=big_word != 0, format=fmt, ext_count=len(file.external),
                  real_size=8 if flags & FLAG_REAL_T_IS_DOUBLE else 4,
                  named_ids=bool(flags & FLAG_NAMED_SCENE_IDS),
                  always_int64=_always_int64(*file.engine))
    ids = [r.id for r in file.resources]
    if len(set(ids)) != len(ids):
        raise EncodeError("two resources have the same id", format="godot")
    internal = _internal_slots(ids, ctx.named_ids)
    strings = list(kept.get("strings") or _engine_strings(file))
    index: dict[str, int] = {}
    for i, s in enumerate(strings):
        index.setdefault(s, i)
    for r in file.resources:
        for name in r.properties:
            if name not in index:
                index[name] = len(strings)
                strings.append(name)
    rscc = kept.get("rscc")
    out = bytearray() if rscc else bytearray(MAGIC)
    overrides = {int(k): str(v) for k, v in kept.get("overrides", {}).items()}
    wr = VariantWriter(out, ctx, index, internal, overrides)
    s = ctx.struct
    u32, u64 = s("I").pack, s("Q").pack
    out += _LE.pack(big_word, int(kept.get("use_real64", 0)))
    out += s("III").pack(file.engine[0], file.engine[1], fmt)
    wr.string(file.type)
    importmd_slot = len(out)
    out += u64(int(kept.get("importmd_ofs", 0)))
    if fmt >= 4:
        out += u32(flags)
        out += u64(_header_uid(file, flags))
        if flags & FLAG_HAS_SCRIPT_CLASS:
            wr.string(file.script_class or "")
    reserved = list(kept.get("reserved", ()))
    n_reserved = 11 if fmt >= 4 else 14
    reserved = (reserved + [0] * n_reserved)[:n_reserved]
    out += s(f"{n_reserved}I").pack(*reserved)
    out += u32(len(strings))
    for text in strings:
        wr.string(text)
    out += u32(len(file.external))
    for ext in file.external:
        wr.string(ext.type)
        wr.string(ext.path)
        if flags & FLAG_UIDS:
            out += u64(_uid_value(ext.uid, f"external resource {ext.id}"))
    out += u32(len(file.resources))
    slots = []
    for rid in ids:
        wr.string(rid if "://" in rid else "local://" + rid)
        slots.append(len(out))
        out += u64(0)
    gaps = kept.get("gaps", {})
    pack_offset = s("Q").pack_into
    with recursion_room(3 * MAX_DEPTH + 64):
        for i, res in enumerate(file.resources):
            out += gaps.get(str(i), b"")
            pack_offset(out, slots[i], len(out))
            wr.string(res.type)
            out += u32(len(res.properties))
            for name, value in res.properties.items():
                out += u32(index[name])
                try:
                    wr.value(value)
                except EncodeError as e:
                    e.add_parent(f".{name}")
                    e.add_parent(f"[{i}]")
                    raise
    if "import_metadata" in kept:
        pack_offset(out, importmd_slot, len(out))
        out += kept["import_metadata"]
    out += kept.get("tail", MAGIC)
    if rscc:
        return compressed.compress(bytes(out), mode=int(rscc["mode"]),
                                   block_size=int(rscc["block_size"]))
    return bytes(out)


def _always_int64(major: int, minor: int) -> bool:
    """Whether that engine's saver wrote every int as INT64 (Godot 3.0 and 3.1 did)."""
    return major == 3 and minor < 2


def _internal_slots(ids: list[str], named: bool) -> dict[str, int]:
    """What an internal reference stores for each id: its index (named scene ids) or its
    ``local://N`` number."""
    if named:
        return {rid: i for i, rid in enumerate(ids)}
    slots = {}
    for rid in ids:
        if rid.isdigit() and int(rid) < 1 << 32:
            slots[rid] = int(rid)
    return slots


def _uid_value(uid: str | None, what: str) -> int:
    if uid is None:
        return NO_UID
    try:
        return text_to_id(uid)
    except ValueError as e:
        raise EncodeError(f"{what}: {e}", format="godot") from None


def _header_uid(file: ResourceFile, flags: int) -> int:
    if "uid_field" in file.kept:
        return int(file.kept["uid_field"])
    if file.uid is not None:
        return _uid_value(file.uid, "the file's uid")
    return NO_UID if flags & FLAG_UIDS else 0
