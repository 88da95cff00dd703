"""An annotated byte map of a Zeze bean: one row per tag, header and value.

Each row has the offset, the bytes, a path (``$.#3[0]`` by field id; with a schema
``$.items[0].count``: the fields of every layer by their names, flat), the wire type and the
value. Decoding is schema-less (:mod:`gameserde.zeze.generic`'s rules), so the map shows what
is on the wire whatever the schema declares; a schema only names fields, picks the beans
inside nested beans, lists, maps and dynamic beans (by typeId), and tells string BYTES from
binary ones (without one, BYTES that look like text, as Java's ``GenericBean`` decides, are
shown as text). Fields a layer's bean does not declare are named by id; layers after the
first that the schema does not describe add a ``[<layer 1>]`` step.

The rows cover the bytes from ``offset`` to the end in order, without gaps: bytes after the
bean form a last ``trailing`` row; undecodable input is mapped up to the value that fails,
whose row (type ``ERROR``) reaches to the end and carries the error. The map costs time and
memory linear in the input: every byte is read once, rows share their paths' common parts
and a map value's path step is cut short.
"""

from __future__ import annotations

import math
from typing import Any

from gameserde._bytemap import Path, Region, render
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.schema.model import Bytes, Field, List, Map, Record, Ref, Set, String, Type, Union
from gameserde.zeze._show import map_key_step, map_value_step
from gameserde.zeze.bytebuffer import (
    BEAN,
    BYTES,
    DOUBLE,
    DYNAMIC,
    FLOAT,
    INTEGER,
    LIST,
    MAX_DEPTH,
    VECTOR4,
    WIRE_TYPE_NAMES,
    Reader,
)
from gameserde.zeze.generic import (
    FLOAT_COUNTS,
    INT_COUNTS,
    add_id,
    java_text,
    likes_text,
)
from gameserde.zeze.schema import ZezeSchema

__all__ = ["Path", "Region", "bean_map", "regions", "render"]

NOTE_LIMIT = 60
"""Longest value a row shows; longer ones are cut and end with ``...``."""


def regions(data: Any, *, schema: ZezeSchema | None = None, bean: str | None = None,
            offset: int = 0) -> list[Region]:
    """The rows of the bean whose body starts at ``offset``, in byte order.

    ``bean`` names the bean in ``schema`` (a full name or a tail ``schema.bean`` accepts).
    Raises only for ``data`` that is not bytes-like, an ``offset`` outside it (ValueError)
    and a bean the schema does not have (:class:`~gameserde.errors.UnknownNameError`).
    """
    return bean_map(data, schema=schema, bean=bean, offset=offset)[0]


def bean_map(data: Any, *, schema: ZezeSchema | None = None, bean: str | None = None,
             offset: int = 0, root: Path | None = None) -> tuple[list[Region], DecodeError | None]:
    """:func:`regions`, whose paths start at ``root`` (``$``), and the error that stopped the
    map (with its offset and path), or None."""
    raw = data if isinstance(data, bytes) else bytes(memoryview(data).cast("B"))
    if not 0 <= offset <= len(raw):
        raise ValueError(f"offset {offset} is outside the {len(raw)} bytes of input")
    if bean is not None and schema is None:
        raise ValueError("naming a bean needs a schema")
    record = schema.bean(bean) if schema is not None and bean is not None else None
    walk = _Walk(Reader(raw, offset), _Names(schema))
    root = root or Path(None, "$")
    error = None
    try:
        with recursion_room(3 * MAX_DEPTH + 64):
            walk.bean(root, record, 0)
    except DecodeError as e:
        walk.fail(e.message)
        error = e
    except RecursionError:
        error = walk.r.fail("values are nested too deeply for this Python stack")
        walk.fail(error.message)
    else:
        left = len(raw) - walk.r.pos
        if left:
            walk.r.pos = len(raw)
            walk.row(root, "trailing", f"{left} byte{'s' * (left != 1)} after the bean")
    if error is not None:
        error.path = str(walk.where)
    return walk.out, error


class _Names:
    """What a schema says about the values being mapped (nothing without one)."""

    def __init__(self, schema: ZezeSchema | None) -> None:
        self.types = schema.model.types if schema is not None else {}
        self.by_type_id: dict[int, Record] = {}
        if schema is not None:
            for rec in schema.beans.values():
                type_id = rec.attributes.get("type_id")
                if isinstance(type_id, int):
                    self.by_type_id.setdefault(type_id, rec)
        self._fields: dict[str, dict[int, Field]] = {}

    def fields(self, record: Record | None) -> dict[int, Field]:
        """``record``'s fields by id (none for None)."""
        if record is None:
            return {}
        found = self._fields.get(record.name)
        if found is None:
            found = self._fields[record.name] = {
                f.id: f for f in record.fields if f.id is not None}
        return found

    def base(self, record: Record | None) -> Record | None:
        """The record of ``record``'s base layer, if the schema has it."""
        if record is None or record.base is None:
            return None
        return self.bean(Ref(record.base))

    def bean(self, declared: Type | None) -> Record | None:
        """The bean a field of type ``declared`` holds, if it is one."""
        target = self.types.get(declared.name) if isinstance(declared, Ref) else None
        if isinstance(target, Record) and target.kind in ("bean", "beankey"):
            return target
        return None

    def dynamic(self, declared: Type | None, type_id: int) -> Record | None:
        """The bean of a DYNAMIC value with ``type_id`` read where ``declared`` is declared:
        the dynamic's member with that typeId, the declared bean (Java reads the body as it),
        or, where nothing is declared, the bean whose own TypeId it is."""
        target = self.types.get(declared.name) if isinstance(declared, Ref) else None
        if isinstance(target, Union):
            for member_id, member in target.members.values():
                if member_id == type_id:
                    return self.bean(member)
            return None
        if declared is None:
            return self.by_type_id.get(type_id)
        return self.bean(declared)


class _Walk:
    """Reads a bean and appends a row for each tag, header and value it reads."""

    def __init__(self, r: Reader, names: _Names) -> None:
        self.r = r
        self.names = names
        self.out: list[Region] = []
        self.at = r.pos
        self.where = Path(None, "$")

    def row(self, where: Path, kind: str, note: str) -> None:
        pos = self.r.pos
        self.out.append(Region(self.at, pos - self.at, where, kind, note))
        self.at = pos

    def fail(self, message: str) -> None:
        """The error row: from the start of the value that failed to the end."""
        self.out.append(Region(self.at, self.r.end - self.at, self.where, "ERROR", message))

    def bean(self, where: Path, record: Record | None, depth: int) -> None:
        r = self.r
        self.where = where
        if depth >= MAX_DEPTH:
            raise r.fail(f"values are nested more than {MAX_DEPTH} deep")
        fields = self.names.fields(record)
        layer, last, unnamed = 0, 0, where
        while True:
            self.where = where
            tag = r.read_byte()
            if tag < 0x10:
                if tag > 1:
                    raise r.fail(f"tag 0x{tag:02x} is reserved (a field id delta of 0)")
                if tag == 0:
                    self.row(where, "end", "end of the bean")
                    return
                layer, last = layer + 1, 0
                self.row(where, "layer end", f"the base layer {layer} follows")
                record = self.names.base(record)
                fields = self.names.fields(record)
                unnamed = Path(where, f"[<layer {layer}>]")
                continue
            last = add_id(last, r.read_tag_size(tag))
            wire_type = tag & 0xF
            field = fields.get(last)
            here = Path(where, f".{field.name}") if field else Path(unnamed, f".#{last}")
            self.where = here
            if wire_type > VECTOR4:
                raise r.fail(f"wire type {wire_type} is not a Zeze wire type")
            self.row(here, "tag", f"field {last}, {WIRE_TYPE_NAMES[wire_type]}")
            self.value(wire_type, here, field.type if field else None, depth)

    def value(self, wire_type: int, where: Path, declared: Type | None, depth: int) -> object:
        """Map one value; return what names a map value after it (a key's int or text)."""
        r = self.r
        self.where = where
        name = WIRE_TYPE_NAMES[wire_type]
        if wire_type == INTEGER:
            number = r.read_long()
            self.row(where, name, str(number))
            return number
        if wire_type in (FLOAT, DOUBLE):
            self.row(where, name, _number(r.read_float() if wire_type == FLOAT
                                          else r.read_double()))
        elif wire_type == BYTES:
            raw = r.read_bytes()
            text = _text(raw, declared)
            self.row(where, name, _cut(repr(text[:NOTE_LIMIT] if text is not None
                                            else raw[:NOTE_LIMIT])))
            return text
        elif wire_type == BEAN:
            self.bean(where, self.names.bean(declared), depth + 1)
        elif wire_type == DYNAMIC:
            type_id = r.read_long()
            record = self.names.dynamic(declared, type_id)
            self.row(where, name, f"typeId {type_id}" + (f" ({record.name})" if record else ""))
            self.bean(where, record, depth + 1)
        elif wire_type in FLOAT_COUNTS:
            values = r.read_floats(FLOAT_COUNTS[wire_type])
            self.row(where, name, "(" + ", ".join(_number(v) for v in values) + ")")
        elif wire_type in INT_COUNTS:
            self.row(where, name, str(r.read_ints(INT_COUNTS[wire_type])))
        else:
            self.container(wire_type, where, declared, depth)
        return None

    def container(self, wire_type: int, where: Path, declared: Type | None,
                  depth: int) -> None:
        """A LIST's header and elements, or a MAP's header and pairs."""
        r = self.r
        if depth >= MAX_DEPTH:
            raise r.fail(f"values are nested more than {MAX_DEPTH} deep")
        header = r.read_byte()
        kinds: tuple[int, ...]
        if wire_type == LIST:
            count, kinds = r.read_list_count(header), (header & 0xF,)
        else:
            count, kinds = max(r.read_uint(), 0), (header >> 4, header & 0xF)
        names = ", ".join(WIRE_TYPE_NAMES[k] for k in kinds)
        noun = ("element", "elements") if wire_type == LIST else ("entry", "entries")
        self.row(where, f"{WIRE_TYPE_NAMES[wire_type]}[{names}]",
                 f"{count} {noun[count != 1]}")
        if count and max(kinds) > VECTOR4:
            raise r.fail(f"wire type {max(kinds)} is not a Zeze wire type")
        if wire_type == LIST:
            element = declared.element if isinstance(declared, List | Set) else None
            for i in range(count):
                self.value(kinds[0], Path(where, f"[{i}]"), element, depth + 1)
            return
        key, value = ((declared.key, declared.value) if isinstance(declared, Map)
                      else (None, None))
        for i in range(count):
            shown = self.value(kinds[0], Path(where, map_key_step(i)), key, depth + 1)
            self.value(kinds[-1], Path(where, map_value_step(shown, i)), value, depth + 1)


def _text(raw: bytes, declared: Type | None) -> str | None:
    """The start of BYTES as text (enough for a note, or all of a short map key): string
    fields (and decimals) always, binary never, others when they look like text."""
    if not (isinstance(declared, String) or declared == Ref("zeze.decimal")) and (
            isinstance(declared, Bytes) or not likes_text(raw)):
        return None
    return java_text(raw[:4 * NOTE_LIMIT + 8])


def _number(value: float) -> str:
    if math.isfinite(value):
        return repr(value)
    return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"


def _cut(text: str) -> str:
    """``text`` cut to :data:`NOTE_LIMIT` characters (the repr of a value's first
    ``NOTE_LIMIT`` characters or bytes is longer when the value is)."""
    return text if len(text) <= NOTE_LIMIT else text[:NOTE_LIMIT - 3] + "..."
