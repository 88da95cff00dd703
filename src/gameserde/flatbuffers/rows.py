"""FlatBuffers values as rows of the shared type model, for tables (Parquet datasets).

:class:`Rows` turns what :meth:`FlatBuffersCodec.decode
<gameserde.flatbuffers.interface.FlatBuffersCodec.decode>` gives into a
:class:`~gameserde.codecs.Row` of a model derived once from the schema's (so that
:mod:`gameserde.schema.arrow` types every column):

- a table or struct is a record (a struct column; the root table's fields are the columns);
- an absent scalar holds its default, the value a FlatBuffers reader (and ``decode`` with
  ``defaults_json``) gives; a float32 default is rounded to float32; an optional scalar
  (``= null``) that is absent is null, and so is an absent string, vector, struct or table;
- a union's ``x_type`` and ``x`` are one field ``x`` (``(member name, value)``: a tagged
  struct column), a vector of unions a list of them; ``NONE`` is null, and a tag the schema
  does not name keeps its number as the member's name (its value, which nothing can read, is
  null);
- enums are their integers on the wire (the table stores names or integers);
- deprecated fields are left out, as ``decode`` leaves them out;
- a ``nested_flatbuffer`` field is the nested root table, as ``decode`` gives it (not its
  bytes); a ``flexbuffer`` field is a string: the FlexBuffer's value as JSON text (blobs as
  lists of numbers, a float that is not finite as ``"nan"``, ``"inf"`` or ``"-inf"``);
- a string that is not valid UTF-8 (``decode`` keeps its bad bytes as U+DC80..U+DCFF) is
  stored with U+FFFD in their place, with a :class:`~gameserde.errors.GameserdeWarning`.

The conversion is compiled per table once, on first use.
"""

from __future__ import annotations

import dataclasses
import json
import math
import struct
import warnings
from collections.abc import Callable
from typing import Any

from gameserde.codecs import Row
from gameserde.errors import DecodeError, GameserdeWarning
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import (
    STRING,
    Bool,
    Enum,
    Field,
    Float,
    Int,
    List,
    Named,
    Optional,
    Record,
    Ref,
    Schema,
    String,
    Type,
    Union,
)

__all__ = ["Rows"]

Convert = Callable[[Any], Any]
Pick = Callable[[Any, Any], Any]
"""A union's converter: from its ``_type`` value and its value."""

_FLOAT32 = struct.Struct("<f")


class Rows:
    """The rows of one schema's tables: :attr:`schema` is the derived model (see the
    module's documentation), :meth:`row` makes a decoded root table a row of it."""

    def __init__(self, schema: FbsSchema) -> None:
        self.source = schema.schema
        self.schema = Schema({name: self._derive(t) for name, t in self.source.types.items()},
                             root=self.source.root, attributes=self.source.attributes)
        self._tables: dict[str, Convert] = {}

    def row(self, root: str, value: dict[str, Any]) -> Row:
        """The decoded table ``value`` of the root table ``root`` as a row."""
        try:
            converted = self._table(root)(value)
        except RecursionError:
            raise DecodeError("tables nested too deeply to make a row of",
                              format="flatbuffers") from None
        return Row(root, self.schema, Ref(root), converted)

    # -- the derived model -------------------------------------------------------------------

    def _derive(self, named: Named) -> Named:
        if isinstance(named, Record):
            fields = tuple(dataclasses.replace(f, type=self._field_type(f))
                           for f in named.fields if _is_kept(f))
            return dataclasses.replace(named, fields=fields)
        return named

    def _field_type(self, f: Field) -> Type:
        nested = f.attributes.get("flatbuffers.nested_root")
        if nested is not None:
            return Ref(nested)
        if f.attributes.get("flexbuffer"):
            return STRING
        return f.type

    # -- the converters ----------------------------------------------------------------------

    def _table(self, name: str) -> Convert:
        """The converter of table ``name``'s decoded dicts (a stand-in while it is being
        compiled, so that a table inside itself refers to it)."""
        found = self._tables.get(name)
        if found is not None:
            return found
        cell: list[Convert] = []
        self._tables[name] = lambda value: cell[0](value)
        compiled = self._compile_table(name)
        cell.append(compiled)
        self._tables[name] = compiled
        return compiled

    def _compile_table(self, name: str) -> Convert:
        record = self.source.types[name]
        assert isinstance(record, Record)
        defaults: dict[str, Any] = {}
        steps: list[tuple[str, Convert]] = []
        unions: list[tuple[str, str, Pick]] = []
        for f in record.fields:
            if not _is_kept(f):
                continue
            type_field = f.attributes.get("flatbuffers.union_type_field")
            if type_field is not None:
                unions.append((f.name, type_field, self._union_field(f)))
                continue
            default = self._default(f)
            if default is not None:
                defaults[f.name] = default
            step = self._field(name, f)
            if isinstance(default, float) and default != f.default and not math.isnan(default):
                step = _rounded(f.default, default)  # decode (defaults_json) gives the double
            if step is not None:
                steps.append((f.name, step))
        if not steps and not unions:
            return (lambda value: {**defaults, **value}) if defaults else _same

        def convert(value: dict[str, Any]) -> dict[str, Any]:
            out = {**defaults, **value}
            for field_name, each in steps:
                inner = out.get(field_name)
                if inner is not None:
                    out[field_name] = each(inner)
            for field_name, type_name, union in unions:
                out[field_name] = union(out.pop(type_name, None), out.get(field_name))
            return out

        return convert

    def _default(self, f: Field) -> Any:
        """What an absent scalar field reads as, typed as its column (None: no default)."""
        t = f.type
        if f.default is None or isinstance(t, Optional):
            return None
        if isinstance(t, Ref):
            return int(f.default) if isinstance(self.source.types[t.name], Enum) else None
        if isinstance(t, Float):
            value = float(f.default)
            return _FLOAT32.unpack(_FLOAT32.pack(value))[0] if t.bits == 32 else value
        if isinstance(t, Bool):
            return bool(f.default)
        if isinstance(t, Int):
            return int(f.default)
        return None

    def _field(self, table: str, f: Field) -> Convert | None:
        where = f"{table}.{f.name}"
        nested = f.attributes.get("flatbuffers.nested_root")
        if nested is not None:
            return self._value(Ref(nested), where)
        if f.attributes.get("flexbuffer"):
            return lambda value: _text(_flex_json(value), where)
        return self._value(f.type, where)

    def _value(self, t: Type, where: str) -> Convert | None:
        """The converter of a decoded value of type ``t`` (None: the value is its row form);
        ``where`` names the field in warnings."""
        if isinstance(t, String):
            return lambda value: _text(value, where)
        if isinstance(t, Optional):
            return self._value(t.inner, where)
        if isinstance(t, List):
            element = self._value(t.element, where)
            if element is None:
                return None
            return lambda values: [element(v) for v in values]
        if isinstance(t, Ref):
            named = self.source.types[t.name]
            if isinstance(named, Record) and named.kind == "table":
                return self._table(t.name)
        return None  # scalars, enums and structs (which hold only scalars, enums, structs)

    def _union_field(self, f: Field) -> Pick:
        """The converter of a union field (or a vector of unions) from its ``_type`` value
        and its own value to ``(member name, value)`` (or a list of them)."""
        vector = isinstance(f.type, List)
        ref = f.type.element if isinstance(f.type, List) else f.type
        assert isinstance(ref, Ref)
        union = self.source.types[ref.name]
        assert isinstance(union, Union)
        where = f"{union.name} member"
        members: dict[int, tuple[str, Convert | None]] = {
            tag: (name, self._value(t, where)) for name, (tag, t) in union.members.items()}

        def one(tag: Any, value: Any) -> Any:
            if not tag:
                return None
            found = members.get(tag)
            if found is None:  # a member a newer schema has: decode reads no value
                return str(tag), None
            name, convert = found
            return name, value if convert is None or value is None else convert(value)

        if not vector:
            return one

        def many(tags: Any, values: Any) -> Any:
            if values is None:
                return None
            tags = tags or ()
            return [one(tags[i] if i < len(tags) else None, v) for i, v in enumerate(values)]

        return many


def _is_kept(f: Field) -> bool:
    """Whether field ``f`` is a column: not deprecated, and not a union's ``_type`` (which
    becomes the union column's tag)."""
    return not f.deprecated and "flatbuffers.union_type_of" not in f.attributes


def _rounded(exact: float, rounded: float) -> Convert:
    """The converter of a float32 field that gives ``rounded`` for its default ``exact``."""
    return lambda value: rounded if value == exact else value


def _same(value: Any) -> Any:
    return value


def _text(value: str, where: str) -> str:
    """``value``, with U+FFFD for the bytes that were not UTF-8 (and a warning)."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        warnings.warn(f"{where}: a string that is not valid UTF-8 is stored with U+FFFD in "
                      "place of its bad bytes", GameserdeWarning, stacklevel=2)
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return value


def _flex_json(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, separators=(",", ":"))


def _plain(value: Any) -> Any:
    """A FlexBuffer's value as JSON values: blobs as lists of numbers, a float that is not
    finite as its name."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value
