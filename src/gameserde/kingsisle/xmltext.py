"""The XML debug form of ObjectProperty objects, as libki's ``XmlSerializer`` writes and reads
it (Joshsora/libki, branch ``feature/object-property``), typed by a type list.

::

    <?xml version="1.0" encoding="UTF-8"?>
    <Objects>
    \t<Class Name="class Item">
    \t\t<m_id>7</m_id>
    \t\t<m_pos>24 61 3.61999989</m_pos>
    \t\t<m_tags key="0">a</m_tags>
    \t\t<m_tags key="1">b</m_tags>
    \t\t<m_child>0</m_child>
    \t</Class>
    </Objects>

* ``<Objects>`` holds one ``<Class Name="...">``, the root object (libki writes one and reads
  the first; :func:`from_xml` refuses a second);
* each property present in the object is an element named after it, in the type list's
  order; a nested object is a ``<Class>`` inside that element, a null object the text ``0``;
* a list property repeats its element with ``key="0"``, ``key="1"`` ...; an empty list is one
  empty element without ``key``;
* values: integers in decimal, bools ``1``/``0`` (``true``/``false`` read too), floats with
  ``max_digits10`` significant digits (9 for float, 17 for double: exact), ``inf``, ``-inf``,
  ``nan``, ``-nan`` and ``nan(0x7fa00001)`` for any other NaN (its raw bits), enums as option
  names (``A|B`` for bit flags; the decimal number where no names give the value back; both
  read), leaf structs as their components in wire order separated by spaces (Color is
  ``b g r a``; commas read too), strings as text;
* a std::string that is not UTF-8, or a string holding a character XML cannot carry (control
  characters, lone surrogates), is written ``encoding="hex"``: the bytes of a std::string, the
  UTF-16 code units of a std::wstring (four digits each), in hexadecimal.

Reading is safe for untrusted text: a document type declaration (and with it every entity
definition) is refused before expat acts on it, so nothing is expanded or fetched; elements
are checked as they open, so nesting is bounded by ``max_depth``; the work is linear in
the text. Every problem is a :class:`DecodeError` with the line, the byte offset and the path
of the value (``$.m_items[3].m_name``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from xml.parsers import expat

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle._limits import MAX_DEPTH, depth_limit
from gameserde.kingsisle._xmlvalues import (
    NOT_XML,
    WHITESPACE,
    TextError,
    attribute,
    enum_text,
    leaf_text,
    parse_enum,
    parse_leaf,
    parse_struct,
    struct_text,
)
from gameserde.kingsisle.objects import KiObject, property_step
from gameserde.kingsisle.serializer import _class_of
from gameserde.kingsisle.typelist import KiSchema
from gameserde.schema.model import Enum, Field, List, Record, Ref

__all__ = ["from_xml", "to_xml"]

_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_FRAMES_PER_LEVEL = 4

_NAME_START = ("A-Z_a-z:\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
               "\u200c\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
               "\U00010000-\U000effff")
_XML_NAME = re.compile(f"[{_NAME_START}][{_NAME_START}\\-.0-9\u00b7\u0300-\u036f"
                       f"\u203f\u2040]*\\Z")


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one property reads and writes: its name, whether it is a list, its kind
    (``object``, ``enum``, ``struct`` or ``leaf``), the enum or the type name, and whether
    the name can be an element's."""

    name: str
    dynamic: bool
    kind: str
    detail: Any
    xml_name: bool


def _plans(schema: KiSchema, cls: Record, cache: dict[str, dict[str, _Plan]]
           ) -> dict[str, _Plan]:
    plans = cache.get(cls.name)
    if plans is None:
        plans = cache[cls.name] = {f.name: _plan(schema, f) for f in cls.fields}
    return plans


def _plan(schema: KiSchema, f: Field) -> _Plan:
    t = f.type.element if isinstance(f.type, List) else f.type
    detail: Any = str(f.attributes["type_name"])
    kind = "leaf"
    if isinstance(t, Ref):
        target = schema.model.types[t.name]
        if isinstance(target, Enum):
            kind, detail = "enum", target
        elif isinstance(target, Record) and target.kind == "leaf":
            kind = "struct"
        else:
            kind, detail = "object", None
    return _Plan(f.name, isinstance(f.type, List), kind, detail,
                 _XML_NAME.match(f.name) is not None)


# -- writing -------------------------------------------------------------------------------


def to_xml(obj: KiObject, schema: KiSchema, *, max_depth: int = MAX_DEPTH,
           recursion_limit: int | None = None) -> str:
    """The XML file libki's ``FileSerializer::save_xml`` writes for the root object ``obj``
    (the declaration line, then ``<Objects>``; tabs and line ends as rapidxml prints them).

    Properties the object does not hold are left out. Raises :class:`EncodeError` (with the
    path of the value) for a null root, an object whose class or property the type list does
    not have, a value its type cannot hold, and objects or lists nested deeper than
    ``max_depth`` (counted as the serializer counts them; ``recursion_limit`` is its former
    name)."""
    limit = depth_limit(max_depth, recursion_limit)
    if obj is None:
        raise EncodeError("the root object must not be null", format="kingsisle")
    writer = _Writer(schema, limit)
    with recursion_room(_FRAMES_PER_LEVEL * limit + 100):
        writer.object(obj, 1, 0)
    return f"{_DECLARATION}<Objects>\n{''.join(writer.out)}</Objects>\n\n"


class _Writer:
    def __init__(self, schema: KiSchema, limit: int) -> None:
        self.schema = schema
        self.limit = limit
        self.out: list[str] = []
        self.cache: dict[str, dict[str, _Plan]] = {}

    def object(self, obj: Any, indent: int, depth: int) -> None:
        if depth >= self.limit:
            raise EncodeError(f"objects nest deeper than max_depth {self.limit}",
                              format="kingsisle")
        cls = _class_of(self.schema, obj)
        if NOT_XML.search(cls.name):
            raise EncodeError(f"the class name {cls.name!r} holds a character XML cannot "
                              "carry", format="kingsisle")
        plans = _plans(self.schema, cls, self.cache)
        for key in obj:
            if key not in plans:
                raise EncodeError(f"{cls.name} has no property {key!r}", format="kingsisle")
        tabs = "\t" * indent
        self.out.append(f'{tabs}<Class Name="{attribute(cls.name)}">\n')
        for name, plan in plans.items():
            if name not in obj:
                continue
            try:
                if not plan.xml_name:
                    raise EncodeError(f"the property name {name!r} is not an XML name",
                                      format="kingsisle")
                self.property(plan, obj[name], indent + 1, depth)
            except EncodeError as e:
                e.add_parent(property_step(name))
                raise
        self.out.append(f"{tabs}</Class>\n")

    def property(self, plan: _Plan, value: Any, indent: int, depth: int) -> None:
        tabs = "\t" * indent
        if not plan.dynamic:
            self.element(plan, "", value, tabs, indent, depth)
            return
        if not isinstance(value, list | tuple):
            raise EncodeError(f"{plan.name} is a list, not {type(value).__name__}",
                              format="kingsisle")
        if depth + 1 >= self.limit:
            raise EncodeError(f"lists nest deeper than max_depth {self.limit}",
                              format="kingsisle")
        if not value:
            self.out.append(f"{tabs}<{plan.name}/>\n")
            return
        for i, item in enumerate(value):
            try:
                self.element(plan, f' key="{i}"', item, tabs, indent, depth + 1)
            except EncodeError as e:
                e.add_parent(f"[{i}]")
                raise

    def element(self, plan: _Plan, key: str, value: Any, tabs: str, indent: int,
                depth: int) -> None:
        name = plan.name
        if plan.kind == "object":
            if depth + 1 >= self.limit:  # a null object counts, as in the serializer
                raise EncodeError(f"objects nest deeper than max_depth {self.limit}",
                                  format="kingsisle")
            if value is None:
                self.out.append(f"{tabs}<{name}{key}>0</{name}>\n")
                return
            self.out.append(f"{tabs}<{name}{key}>\n")
            self.object(value, indent + 1, depth + 1)
            self.out.append(f"{tabs}</{name}>\n")
            return
        hexed = False
        if plan.kind == "enum":
            text = enum_text(plan.detail, value)
        elif plan.kind == "struct":
            text = struct_text(plan.detail, value)
        else:
            text, hexed = leaf_text(plan.detail, value)
        attrs = f'{key} encoding="hex"' if hexed else key
        if text:
            self.out.append(f"{tabs}<{name}{attrs}>{text}</{name}>\n")
        else:
            self.out.append(f"{tabs}<{name}{attrs}/>\n")


# -- reading -------------------------------------------------------------------------------


def from_xml(text: str | bytes, schema: KiSchema, *, max_depth: int = MAX_DEPTH,
             recursion_limit: int | None = None) -> KiObject:
    """The root object of an XML document in the form :func:`to_xml` writes (``bytes`` in
    the encoding its declaration names, UTF-8 by default; a ``str`` as it is).

    Leading and trailing blanks around numbers, bools, enums and structs are ignored; string
    text is taken exactly. Properties the document leaves out are absent from the object
    (the serializer refuses the ones it needs when encoding). Raises :class:`DecodeError`,
    and nothing else, for text that is not well-formed XML, a document type declaration, a
    root other than ``<Objects>`` holding exactly one ``<Class>``, an unknown class or
    property, a property given twice, list keys out of order, unknown attributes, a value
    that does not read as its type, and objects or lists nested deeper than ``max_depth``
    (counted as the serializer counts them; ``recursion_limit`` is its former name)."""
    reader = _Reader(schema, depth_limit(max_depth, recursion_limit))
    return reader.read(text)


_OBJECTS = "Objects"
"""The frame of the ``<Objects>`` element on the reader's stack."""


class _ObjectFrame:
    __slots__ = ("cls", "depth", "empty", "plans", "values")

    def __init__(self, cls: Record, plans: dict[str, _Plan], depth: int) -> None:
        self.cls = cls
        self.plans = plans
        self.depth = depth
        self.values: dict[str, Any] = {}
        self.empty: set[str] = set()  # list properties given as one empty element


class _ValueFrame:
    __slots__ = ("child", "hexed", "index", "line", "offset", "plan", "text")

    def __init__(self, plan: _Plan, index: int, hexed: bool, line: int, offset: int) -> None:
        self.plan = plan
        self.index = index  # the list index, -1 for a single value or the empty-list element
        self.hexed = hexed
        self.line = line
        self.offset = offset
        self.text: list[str] = []
        self.child: KiObject | None = None


class _Reader:
    def __init__(self, schema: KiSchema, limit: int) -> None:
        self.schema = schema
        self.limit = limit
        self.cache: dict[str, dict[str, _Plan]] = {}
        self.stack: list[Any] = []
        self.root: KiObject | None = None
        self.parser = expat.ParserCreate()

    def read(self, text: str | bytes) -> KiObject:
        parser = self.parser
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.buffer_text = True
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.characters
        parser.StartDoctypeDeclHandler = self.doctype
        parser.EntityDeclHandler = self.doctype
        try:
            parser.Parse(text, True)
        except expat.ExpatError as e:
            reason = expat.ErrorString(e.code) if e.code is not None else str(e)
            raise DecodeError(f"line {e.lineno}: the text is not well-formed XML ({reason}, "
                              f"column {e.offset + 1})", offset=max(parser.CurrentByteIndex, 0),
                              path=self.path(), format="kingsisle") from None
        except (ValueError, LookupError) as e:  # DecodeError is a ValueError: kept as it is
            if isinstance(e, DecodeError):
                raise
            raise DecodeError(f"the text cannot be read as XML ({e})", offset=0,
                              format="kingsisle") from None
        if self.root is None:
            raise DecodeError("<Objects> holds no <Class>: there is no object",
                              offset=max(parser.CurrentByteIndex, 0), format="kingsisle")
        return self.root

    # -- errors ----------------------------------------------------------------------------

    def fail(self, message: str, line: int | None = None, offset: int | None = None
             ) -> DecodeError:
        """A DecodeError at the current element (or ``line``/``offset``), with the path of
        the value the stack is in."""
        return DecodeError(f"line {line or self.parser.CurrentLineNumber}: {message}",
                           offset=self.parser.CurrentByteIndex if offset is None else offset,
                           path=self.path(), format="kingsisle")

    def path(self) -> str:
        """The path of the value the reader is in (``$.m_items[3].m_name``)."""
        steps = ["$"]
        for frame in self.stack:
            if isinstance(frame, _ValueFrame):
                steps.append(property_step(frame.plan.name))
                if frame.index >= 0:
                    steps.append(f"[{frame.index}]")
        return "".join(steps)

    def doctype(self, *args: Any) -> None:
        raise self.fail("a document type declaration (<!DOCTYPE ...>) is not allowed: "
                        "entities are never expanded")

    # -- expat's handlers ------------------------------------------------------------------

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        stack = self.stack
        if not stack:
            if tag != _OBJECTS:
                raise self.fail(f"the root element is <{_short(tag)}>, not <Objects>")
            self.no_attributes(tag, attrs)
            stack.append(_OBJECTS)
            return
        top = stack[-1]
        if top is _OBJECTS:
            if tag != "Class":
                raise self.fail(f"<Objects> holds <Class> elements, not <{_short(tag)}>")
            if self.root is not None:
                raise self.fail("<Objects> holds more than one <Class>: the form has one "
                                "root object")
            stack.append(self.object_frame(attrs, 0))
        elif isinstance(top, _ObjectFrame):
            stack.append(self.value_frame(top, tag, attrs))
        else:
            self.nested_object(top, tag, attrs)

    def no_attributes(self, tag: str, attrs: dict[str, str]) -> None:
        if attrs:
            raise self.fail(f"<{_short(tag)}> has no attributes, not "
                            f"{_short(next(iter(attrs)))!r}")

    def object_frame(self, attrs: dict[str, str], depth: int) -> _ObjectFrame:
        if depth >= self.limit:
            raise self.fail(f"objects nest deeper than max_depth {self.limit}")
        name = attrs.get("Name")
        if name is None or len(attrs) > 1:
            extra = [a for a in attrs if a != "Name"]
            raise self.fail("<Class> has one attribute, Name" + (
                f", not {_short(extra[0])!r}" if extra else ": it is missing"))
        cls = self.schema.classes.get(name)
        if cls is None:
            raise self.fail(f"the type list has no class {_short(name)!r}")
        return _ObjectFrame(cls, _plans(self.schema, cls, self.cache), depth)

    def value_frame(self, obj: _ObjectFrame, tag: str, attrs: dict[str, str]) -> _ValueFrame:
        plan = obj.plans.get(tag)
        if plan is None:
            raise self.fail(f"{obj.cls.name} has no property {_short(tag)!r}")
        key = attrs.get("key")
        encoding = attrs.get("encoding")
        for name in attrs:
            if name not in ("key", "encoding"):
                raise self.fail(f"<{tag}> takes the attributes key and encoding, not "
                                f"{_short(name)!r}")
        if encoding is not None and (encoding != "hex" or plan.kind != "leaf" or plan.detail
                                     not in ("std::string", "std::wstring")):
            raise self.fail(f"encoding={_short(encoding)!r} is not allowed on {tag}: only "
                            "strings take encoding=\"hex\"")
        line, offset = self.parser.CurrentLineNumber, self.parser.CurrentByteIndex
        if not plan.dynamic:
            if key is not None:
                raise self.fail(f"{tag} is not a list: its element takes no key")
            if tag in obj.values:
                raise self.fail(f"{tag} is given twice")
            return _ValueFrame(plan, -1, encoding is not None, line, offset)
        if obj.depth + 1 >= self.limit:
            raise self.fail(f"lists nest deeper than max_depth {self.limit}")
        items = obj.values.setdefault(tag, [])
        if tag in obj.empty:
            raise self.fail(f"{tag} already holds an empty list (an element without key)")
        if key is None:
            if items:
                raise self.fail(f"the elements of the list {tag} take a key "
                                f"(key=\"{len(items)}\")")
            obj.empty.add(tag)
            return _ValueFrame(plan, -1, encoding is not None, line, offset)
        if key != str(len(items)):
            raise self.fail(f"the next element of the list {tag} has key=\"{len(items)}\", not "
                            f"{_short(key)!r}")
        return _ValueFrame(plan, len(items), encoding is not None, line, offset)

    def nested_object(self, top: _ValueFrame, tag: str, attrs: dict[str, str]) -> None:
        plan = top.plan
        if tag != "Class" or plan.kind != "object":
            what = "an object property holds one <Class>" if plan.kind == "object" else (
                f"{plan.name} holds a value, not elements")
            raise self.fail(f"{what}: <{_short(tag)}> is not allowed here")
        if top.child is not None or (top.index < 0 and plan.dynamic):
            raise self.fail(f"{plan.name} holds one object" if top.child is not None else
                            f"the empty list element of {plan.name} holds nothing")
        parent = self.stack[-2]
        depth = parent.depth + (2 if plan.dynamic else 1)
        self.stack.append(self.object_frame(attrs, depth))

    def characters(self, data: str) -> None:
        top = self.stack[-1] if self.stack else None
        if isinstance(top, _ValueFrame):
            top.text.append(data)
        elif data.strip(WHITESPACE):
            raise self.fail(f"text {_short(data.strip(WHITESPACE))!r} stands outside a "
                            "property's element")

    def end(self, tag: str) -> None:
        top = self.stack[-1]
        if isinstance(top, _ValueFrame):
            value = self.value(top)
            self.stack.pop()
            obj: _ObjectFrame = self.stack[-1]
            if top.index >= 0:
                obj.values[top.plan.name].append(value)
            elif not top.plan.dynamic:
                obj.values[top.plan.name] = value
            return
        self.stack.pop()
        if isinstance(top, _ObjectFrame):
            cls = top.cls
            made = KiObject(cls.name, int(cls.attributes["hash"]),
                            ((f.name, top.values[f.name]) for f in cls.fields
                             if f.name in top.values))
            parent = self.stack[-1]
            if parent is _OBJECTS:
                self.root = made
            else:
                parent.child = made

    def value(self, frame: _ValueFrame) -> Any:
        """The value of a property element that just ended."""
        plan = frame.plan
        text = "".join(frame.text)
        if plan.dynamic and frame.index < 0:  # the empty list
            if text.strip(WHITESPACE):
                raise self.fail(f"the empty list element of {plan.name} holds text; list "
                                "elements take a key", frame.line, frame.offset)
            return None
        if plan.kind == "object":
            if frame.child is not None:
                if text.strip(WHITESPACE):
                    raise self.fail("an object's element holds its <Class> and no text",
                                    frame.line, frame.offset)
                return frame.child
            if text.strip(WHITESPACE) != "0":
                raise self.fail(f"an object is a <Class> element or 0 (null), not "
                                f"{_short(text)!r}", frame.line, frame.offset)
            if self.stack[-2].depth + (2 if plan.dynamic else 1) >= self.limit:
                raise self.fail(f"objects nest deeper than max_depth {self.limit}",
                                frame.line, frame.offset)
            return None
        try:
            if plan.kind == "enum":
                return parse_enum(plan.detail, text)
            if plan.kind == "struct":
                return parse_struct(plan.detail, text)
            return parse_leaf(plan.detail, text, frame.hexed)
        except TextError as e:
            raise self.fail(str(e), frame.line, frame.offset) from None


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
