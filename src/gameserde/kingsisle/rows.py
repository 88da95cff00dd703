"""KingsIsle objects as rows of the shared type model (:class:`gameserde.codecs.Row`), for
tables such as a batch's Parquet dataset.

A root object is a row of the table named by its class (``class ItemTemplate``), typed by a
model derived from the type list's (:attr:`KiRows.model`), which differs from it in one
point: an object-typed property refers to a union of the classes that may appear there, not
to the union of every class of the list. The classes that may appear are the declared class
(``class X``, ``class X*``, ``class SharedPointer<class X>``, ``class WeakPointer<class X>``)
and every class of the list that has it among its bases; a declared class the list does not
hold bounds nothing, and the property refers to the union of every class
(:data:`~gameserde.kingsisle.typelist.OBJECT`). An object is ``(class name, row)`` and a
null object ``None``; an object's row is a ``dict`` of the properties it holds (a property
the stream left out, by the mask, as deprecated in deep mode or delta-encoded and absent, is
missing: a null column). Leaf values are as decoded: ``bytes`` for ``std::string``,
``str`` for ``std::wstring``, ``int`` for integers, gids and enums, ``float``, ``bool``, and
leaf structs as the ``dict`` s the serializer gives (Matrix3x3's rows are three lists of
three floats).

What a row cannot hold is reported as a :class:`~gameserde.errors.GameserdeWarning` (one
per kind of loss and row) and left out: a property the object's class does not list, an
object of a class that cannot appear where it is (a class outside the property's union, or
a value that is no object of the list: ``None`` in the row), and lone surrogates of a wide
string (replaced by U+FFFD: Arrow's text is UTF-8).
"""

from __future__ import annotations

import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.codecs import Row
from gameserde.errors import GameserdeWarning, UsageError
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.typelist import OBJECT, KiSchema
from gameserde.schema.model import (
    UINT32,
    Field,
    List,
    Named,
    Record,
    Ref,
    Schema,
    String,
    Type,
    Union,
)

__all__ = ["KiRows", "declared_class", "rows_of", "union_name"]

_POINTERS = ("class SharedPointer<", "class WeakPointer<")
"""Templates whose argument is the class a property points to."""

_FRAMES_PER_LEVEL = 3
"""Python frames one level of nested objects takes while converting."""

Notes = dict[str, None]
"""The losses found while converting one row, each said once (in order)."""
Convert = Callable[[Any, Notes], Any]

_ROWS: weakref.WeakKeyDictionary[KiSchema, KiRows] = weakref.WeakKeyDictionary()


def rows_of(schema: KiSchema) -> KiRows:
    """The row maker of ``schema``, made once per type list (its model and converters are
    shared by every codec of it)."""
    rows = _ROWS.get(schema)
    if rows is None:
        rows = _ROWS[schema] = KiRows(schema)
    return rows


def union_name(declared: str) -> str:
    """The name of the union of the classes a property declared as class ``declared`` may
    hold: ``kingsisle.object<class X>``."""
    return f"{OBJECT}<{declared}>"


def declared_class(type_name: str) -> str:
    """The class a property's type names: ``class X`` of ``class X*``,
    ``class SharedPointer<class X>`` and ``class X``."""
    name = type_name.strip()
    for template in _POINTERS:
        if name.startswith(template) and name.endswith(">"):
            name = name[len(template):-1].strip()
            break
    return name.removesuffix("*").rstrip()


class KiRows:
    """Rows of one type list: :attr:`model`, the derived schema the rows are typed by, and
    :meth:`row`, a root object as a :class:`~gameserde.codecs.Row` (converters compiled per
    class on first use)."""

    def __init__(self, schema: KiSchema) -> None:
        self.schema = schema
        self.model = _derive(schema)
        self._classes: dict[str, Convert] = {}
        self._members: dict[str, frozenset[str]] = {
            name: frozenset(t.members) for name, t in self.model.types.items()
            if isinstance(t, Union)}

    def row(self, obj: Any, *, max_depth: int = 127) -> Row:
        """The root object ``obj`` (a :class:`KiObject` of the list's classes) as a row of
        the table of its class; ``max_depth`` is how deep its objects may nest."""
        if not isinstance(obj, KiObject) or obj.type_name not in self.schema.classes:
            shown = obj.type_name if isinstance(obj, KiObject) else type(obj).__name__
            raise UsageError(f"a row is made of an object of a class of the type list (what "
                             f"decode returns), not of {shown}")
        name = obj.type_name
        notes: Notes = {}
        frames = _FRAMES_PER_LEVEL * max_depth + 100
        if frames > sys.getrecursionlimit() // 2:  # else the stack has room (and it is fast)
            with recursion_room(frames):
                value = self._class(name)(obj, notes)
        else:
            value = self._class(name)(obj, notes)
        for note in notes:
            warnings.warn(note, GameserdeWarning, stacklevel=3)
        return Row(name, self.model, Ref(name), value)

    # -- converters --------------------------------------------------------------------------

    def _class(self, name: str) -> Convert:
        convert = self._classes.get(name)
        if convert is None:
            convert = self._classes[name] = self._compile(name)
        return convert

    def _compile(self, name: str) -> Convert:
        record = self.model.types[name]
        assert isinstance(record, Record)
        known = frozenset(f.name for f in record.fields)
        converts = [(f.name, c) for f in record.fields
                    if (c := self._converter(f.type)) is not None]

        def convert(obj: KiObject, notes: Notes) -> dict[str, Any]:
            row = dict(obj)
            if not known.issuperset(row):
                for key in [k for k in row if k not in known]:
                    notes[f"{name} has no property {key!r} in the type list; it is left out "
                          "of the row"] = None
                    del row[key]
            for field, conv in converts:
                value = row.get(field)
                if value is not None:
                    row[field] = conv(value, notes)
            return row

        return convert

    def _converter(self, t: Type) -> Convert | None:
        """The converter of values of ``t`` to the row form, or None where they are it."""
        if isinstance(t, List):
            element = self._converter(t.element)
            if element is None:
                return None
            return lambda values, notes: [element(v, notes) for v in values]
        if isinstance(t, String):
            return _text
        if isinstance(t, Ref) and t.name in self._members:
            return self._object(t.name)
        return None

    def _object(self, union: str) -> Convert:
        members = self._members[union]
        classes = self._classes
        named = self.model.types[union]
        assert isinstance(named, Union)

        def convert(obj: Any, notes: Notes) -> Any:
            if obj is None:
                return None
            name = getattr(obj, "type_name", None)
            if isinstance(obj, KiObject) and name in members:
                conv = classes.get(name) or self._class(name)
                return (name, conv(obj, notes))
            if isinstance(obj, KiObject):
                notes[f"an object of {name} where the type list has {_union_text(named)}; "
                      "it is null in the row"] = None
            else:
                notes[f"a {type(obj).__name__} where the type list has an object; it is null "
                      "in the row"] = None
            return None

        return convert


def _text(value: Any, notes: Notes) -> Any:
    """A wide string as Arrow's UTF-8 text can hold it: lone surrogates replaced."""
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            notes["a wide string holds lone surrogates, which UTF-8 text cannot; they are "
                  "U+FFFD in the row"] = None
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return value


def _union_text(union: Union) -> str:
    declared = union.attributes.get("declared")
    if declared is None:
        return "an object of its classes"
    return f"an object of {declared} or a class derived from it"


def _derive(schema: KiSchema) -> Schema:
    """The type list's model with each object-typed property referring to the union of the
    classes that may appear there (see the module's documentation)."""
    model = schema.model
    classes = schema.classes
    derived = _derived_classes(schema)
    types: dict[str, Named] = dict(model.types)
    for name, record in classes.items():
        fields = []
        for f in record.fields:
            t = f.type
            element = t.element if isinstance(t, List) else t
            if element == Ref(OBJECT):
                declared = declared_class(str(f.attributes["type_name"]))
                if declared in classes:
                    union = union_name(declared)
                    if union not in types:
                        types[union] = Union(union, {
                            c: (int(classes[c].attributes["hash"]), Ref(c))
                            for c in derived[declared]}, discriminator=UINT32,
                            kind="pointer", attributes={"declared": declared})
                    element = Ref(union)
                    t = List(element) if isinstance(t, List) else element
            fields.append(f if t is f.type else Field(
                f.name, t, id=f.id, default=f.default, deprecated=f.deprecated,
                required=f.required, key=f.key, attributes=f.attributes, doc=f.doc))
        types[name] = Record(name, tuple(fields), kind=record.kind, base=record.base,
                             attributes=record.attributes, doc=record.doc)
    return Schema(types, root=model.root, attributes=model.attributes)


def _derived_classes(schema: KiSchema) -> dict[str, list[str]]:
    """Each class and the classes that have it among their bases (directly or through
    their bases' bases), in the type list's order."""
    classes = schema.classes
    derived: dict[str, list[str]] = {name: [name] for name in classes}
    for name, record in classes.items():
        seen = {name}
        todo = [b for b in record.attributes["bases"] if b in classes]
        while todo:
            base = todo.pop()
            if base not in seen:
                seen.add(base)
                derived[base].append(name)
                todo.extend(b for b in classes[base].attributes["bases"] if b in classes)
    return derived
