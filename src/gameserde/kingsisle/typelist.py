"""KingsIsle type lists (wiztype's JSON, v1 and v2; spec kiobj.md §10) lowered into the shared
model.

* a class → :class:`Record` named by the class name (``class ExampleItem``), ``kind="class"``,
  fields in ``id`` order, attributes ``hash``, ``bases`` (nearest first) and ``singleton``;
* a property → :class:`Field` with ``id`` and attributes ``hash``, ``flags``, ``type_name``
  (the type list's spelling), ``container``, ``dynamic`` and ``pointer``; a ``dynamic``
  property is a :class:`List` of its type;
* leaf types (§7) → integers, floats, bool, ``std::string`` → bytes, ``std::wstring`` → text
  (UTF-16), and the leaf structs (Color, Vector3D, ...) → references to the builtin records of
  :data:`LEAF_STRUCTS`;
* enums (a property with the BITS or ENUM flag, or whose type starts with ``enum``) →
  :class:`Enum` named by the type name (by ``Class.property`` when two properties give the
  same enum different options), unsigned 32-bit, ``bit_flags`` for BITS; option entries that
  are not integers (``__DEFAULT``, ``__BASECLASS``) go to the enum's attributes;
* every other type is an object → a reference to the :class:`Union` ``kingsisle.object``
  (``kind="pointer"``, discriminator the u32 type hash) of every class: the stream's type hash,
  not the declared type, says which class an object is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gameserde.errors import SchemaError
from gameserde.schema.model import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    Enum,
    Field,
    Int,
    List,
    Named,
    Record,
    Ref,
    Schema,
    String,
    Type,
    Union,
)

if TYPE_CHECKING:
    from types import EllipsisType

    from gameserde.kingsisle.interface import KiCodec as KingsIsleCodec

__all__ = ["FLAGS", "KNOWN_FLAG_BITS", "LEAF_STRUCTS", "LEAF_TYPES", "OBJECT", "KiSchema",
           "load_schema"]

FLAGS = {
    "SAVE": 1 << 0, "COPY": 1 << 1, "PUBLIC": 1 << 2, "TRANSMIT": 1 << 3,
    "PRIVILEGED_TRANSMIT": 1 << 4, "PERSIST": 1 << 5, "DEPRECATED": 1 << 6,
    "NOSCRIPT": 1 << 7, "DELTA_ENCODE": 1 << 8, "BLOB": 1 << 9, "NOEDIT": 1 << 16,
    "FILENAME": 1 << 17, "COLOR": 1 << 18, "CONSTRAINED_VALUE": 1 << 19, "BITS": 1 << 20,
    "ENUM": 1 << 21, "LOCALIZED": 1 << 22, "STRING_KEY": 1 << 23, "OBJECT_ID": 1 << 24,
    "REFERENCE_ID": 1 << 25, "RADIANS": 1 << 26, "OBJECT_NAME": 1 << 27,
    "HAS_BASECLASS": 1 << 28, "IS_BEHAVIOR": 1 << 29, "ASSET": 1 << 30,
}
"""The property flags (katsuba-types)."""

KNOWN_FLAG_BITS = sum(FLAGS.values())
"""Flags outside these bits (10-15, 31) make katsuba refuse a type list; so does this."""

WSTRING = String("utf-16-le")

LEAF_TYPES: Mapping[str, Type] = {
    "bool": BOOL, "char": INT8, "unsigned char": UINT8, "short": INT16,
    "unsigned short": UINT16, "wchar_t": UINT16, "int": INT32, "long": INT32,
    "unsigned int": UINT32, "unsigned long": UINT32, "float": FLOAT32, "double": FLOAT64,
    "unsigned __int64": UINT64, "gid": UINT64, "union gid": UINT64,
    "s24": Int(24), "u24": Int(24, False), "std::string": BYTES, "std::wstring": WSTRING,
    **{f"bi{n}": Int(n) for n in range(2, 8)},
    **{f"bui{n}": Int(n, False) for n in range(2, 8)},
}
"""The leaf type names katsuba 0.6.0 knows (§7), but the structs, as model types."""


def _struct(name: str, kind: Type, fields: str) -> Record:
    return Record(f"kingsisle.{name}", tuple(Field(f, kind, id=i)
                                            for i, f in enumerate(fields.split())),
                  kind="leaf")


LEAF_STRUCTS: Mapping[str, Record] = {
    "class Color": _struct("Color", UINT8, "b g r a"),
    "class Vector3D": _struct("Vector3D", FLOAT32, "x y z"),
    "class Quaternion": _struct("Quaternion", FLOAT32, "w x y z"),
    "class Euler": _struct("Euler", FLOAT32, "pitch yaw roll"),
    "class Matrix3x3": _struct("Matrix3x3", List(FLOAT32, 3), "i j k"),
    "class Size<int>": _struct("Size<int>", INT32, "width height"),
    "class Point<int>": _struct("Point<int>", INT32, "x y"),
    "class Point<unsigned int>": _struct("Point<unsigned int>", UINT32, "x y"),
    "class Point<unsigned char>": _struct("Point<unsigned char>", UINT8, "x y"),
    "class Point<float>": _struct("Point<float>", FLOAT32, "x y"),
    "class Rect<int>": _struct("Rect<int>", INT32, "left top right bottom"),
    "class Rect<float>": _struct("Rect<float>", FLOAT32, "left top right bottom"),
}
"""The leaf structs, their fields in wire order (Color is b, g, r, a; Quaternion w, x, y, z;
Matrix3x3 three rows ``i``, ``j``, ``k`` of three floats), as decoded values have them."""

OBJECT = "kingsisle.object"
"""The union every object-typed property refers to."""


class KiSchema:
    """A type list: the shared model (``model``) and lookups by class name and hash."""

    def __init__(self, model: Schema) -> None:
        self.model = model
        self.classes: Mapping[str, Record] = {
            name: t for name, t in model.types.items()
            if isinstance(t, Record) and t.kind == "class"}
        """Classes by name, in the type list's order."""
        self._by_hash = {int(r.attributes["hash"]): r for r in self.classes.values()}

    def __repr__(self) -> str:
        return f"KiSchema(classes={len(self.classes)})"

    def class_by_hash(self, type_hash: int) -> Record | None:
        """The class whose type hash is ``type_hash``, or None."""
        return self._by_hash.get(type_hash)

    def codec(self, *, flags: int | None = None, mask: int = 7, deep: bool = False,
              manual_compression: bool = False, bind: bool = False, xml: bool = False,
              enum_names: bool = False, skip_unknown_types: bool = False,
              max_depth: int = 127, max_expansion: float | EllipsisType | None = ...
              ) -> KingsIsleCodec:
        """The codec (:mod:`gameserde.codecs`) of this type list with a serializer's options,
        the keyword forms of ``gameserde VERB kingsisle``'s:

        ``flags`` the serializer flags (default 0; a ``BINd`` file's 0x0B with ``bind``),
        ``mask`` the property mask, ``deep`` deep mode (default shallow),
        ``manual_compression``, ``bind`` (encode writes a ``BINd`` file), ``xml`` (encode
        writes the XML form and ``to_json`` gives it), ``enum_names`` (JSON names enum
        options), ``skip_unknown_types`` (deep: objects of unknown classes read as null,
        unknown properties skipped, each reported as a
        :class:`~gameserde.errors.GameserdeWarning`), ``max_depth`` (objects and lists nest at
        most this deep) and ``max_expansion`` (zlib data inflates to at most this factor of
        the input's size: 32 by default, and 16 rows per byte for ``inspect``; None: no
        limit).
        Decoding takes a stream, a ``BINd`` file or the XML form, whichever the data is.
        Options that cannot go together raise :class:`~gameserde.errors.UsageError`."""
        from gameserde.kingsisle.interface import build

        given: dict[str, Any] = {
            "flags": flags, "mask": mask, "deep": deep, "manual_compression": manual_compression,
            "bind": bind, "xml": xml, "enum_names": enum_names,
            "skip_unknown_types": skip_unknown_types, "max_depth": max_depth}
        if max_expansion is not ...:
            given["max_expansion"] = max_expansion
        return build(self, {"schema": self, **given}, **given)


def load_schema(*sources: str | bytes | os.PathLike[str] | Mapping[str, Any]) -> KiSchema:
    """A :class:`KiSchema` from one or more type lists, merged in order (a class listed again
    replaces the earlier one). Each source is JSON text (``bytes``, or a ``str`` starting with
    ``{`` after blanks), a path (any other ``str``, an ``os.PathLike``) or a parsed document.

    Raises :class:`SchemaError`, naming the class, the property and the hash, for what
    katsuba's ``TypeList`` refuses -- JSON that is not a v1 or v2 type list, a v2 class under
    a key that is no number, a class without an integer ``hash`` or ``properties``, a
    property without ``type``, ``id``, ``flags``, ``dynamic`` (a bool) or ``hash``, property
    flags with bits katsuba does not define -- and for what would make reading ambiguous,
    which katsuba takes silently, keeping one of the rivals: two classes of one type hash
    (also across merged lists), the type hash 0 (a null object's), a v2 class under a key
    that is not its hash (katsuba finds it by the key), two properties of a class sharing a
    hash (deep records are found by it) or an ``id`` (the order of a shallow stream); and for
    base classes that lead back to the class, enum options that do not fit 32 bits, and names
    that are not text.
    """
    if not sources:
        raise SchemaError("load_schema needs at least one type list")
    classes: dict[str, tuple[Mapping[str, Any], str]] = {}
    for source in sources:
        doc, where = _document(source)
        for name, definition in _class_definitions(doc, where):
            classes[name] = (definition, where)
    model = _lower(classes)
    _check_bases(model)
    return KiSchema(model)


def _document(source: Any) -> tuple[Any, str]:
    if isinstance(source, Mapping):
        return source, "<type list>"
    if isinstance(source, bytes | bytearray) or (
            isinstance(source, str) and source.lstrip().startswith("{")):
        where = "<type list>"
        text = source
    else:
        where = os.fspath(source)
        try:
            with open(where, "rb") as f:
                text = f.read()
        except OSError as e:
            raise SchemaError(f"{where}: cannot read the type list ({e.strerror or e})") from None
    try:
        return json.loads(text), where
    except (ValueError, RecursionError) as e:
        raise SchemaError(f"{where}: not JSON: {e}") from None


def _class_definitions(doc: Any, where: str) -> Iterable[tuple[str, Mapping[str, Any]]]:
    if not isinstance(doc, dict):
        raise SchemaError(f"{where}: a type list is a JSON object")
    if "version" in doc:
        if doc["version"] != 2 or not isinstance(doc.get("classes"), dict):
            raise SchemaError(f"{where}: a versioned type list is version 2 with \"classes\"")
        for key, definition in doc["classes"].items():
            if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
                raise SchemaError(f"{where}: class {key}: a class needs a \"name\"")
            name = definition["name"]
            type_hash = _int(definition.get("hash"), f"{where}: class {name}: hash")
            if key != str(type_hash):
                raise SchemaError(f"{where}: class {name}: it is listed under the key {key!r}, "
                                  f"not under its hash {type_hash} (katsuba finds a class by "
                                  "its key)")
            yield name, definition
        return
    for name, definition in doc.items():
        if not isinstance(definition, dict):
            raise SchemaError(f"{where}: class {name}: a class is a JSON object")
        yield name, definition


def _int(value: Any, what: str, bits: int = 32) -> int:
    """An integer of the type list (v1 lists may write them as strings), unsigned ``bits``."""
    if isinstance(value, str):
        try:
            value = int(value, 10)
        except ValueError:
            raise SchemaError(f"{what} is not an integer: {value!r}") from None
    if not isinstance(value, int) or isinstance(value, bool):
        raise SchemaError(f"{what} is not an integer: {value!r}")
    if not -(1 << (bits - 1)) <= value < 1 << bits:
        raise SchemaError(f"{what} does not fit {bits} bits: {value}")
    return value & ((1 << bits) - 1)


def _lower(classes: Mapping[str, tuple[Mapping[str, Any], str]]) -> Schema:
    types: dict[str, Named] = {r.name: r for r in LEAF_STRUCTS.values()}
    enums: dict[str, Enum] = {}
    records = []
    by_hash: dict[int, str] = {}
    for name, (definition, where) in classes.items():
        here = f"{where}: class {name}"
        type_hash = _int(definition.get("hash"), f"{here}: hash")
        if type_hash == 0:
            raise SchemaError(f"{here}: its type hash is 0, which streams give a null object")
        if type_hash in by_hash:
            raise SchemaError(f"{here}: it has the type hash {type_hash} of class "
                              f"{by_hash[type_hash]} (a stream could not say which it holds)")
        by_hash[type_hash] = name
        properties = definition.get("properties")
        if not isinstance(properties, dict):
            raise SchemaError(f"{here}: \"properties\" is missing or not an object")
        fields = [_field(name, prop, p, f"{here}: property {prop}", enums)
                  for prop, p in properties.items()]
        _check_unique(fields, here)
        fields.sort(key=lambda f: f.id or 0)
        bases = definition.get("bases", [])
        if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
            raise SchemaError(f"{here}: \"bases\" is not a list of names")
        records.append(Record(name, tuple(fields), kind="class", attributes={
            "hash": type_hash, "bases": tuple(bases),
            "singleton": bool(definition.get("singleton", False))}))
    members = {r.name: (int(r.attributes["hash"]), Ref(r.name)) for r in records}
    types.update({r.name: r for r in records})
    types.update(enums)
    types[OBJECT] = Union(OBJECT, members, discriminator=UINT32, kind="pointer")
    try:
        return Schema(types)
    except SchemaError as e:
        raise SchemaError(f"type list: {e}") from None


def _check_unique(fields: list[Field], here: str) -> None:
    """Refuse two properties of one class sharing a hash or an id."""
    for key, what in (("hash", "hash"), ("id", "id")):
        seen: dict[int, str] = {}
        for f in fields:
            value = int(f.attributes["hash"]) if key == "hash" else f.id or 0
            if value in seen:
                raise SchemaError(f"{here}: properties {seen[value]} and {f.name} share the "
                                  f"{what} {value} (katsuba keeps one of them)")
            seen[value] = f.name


def _check_bases(model: Schema) -> None:
    """Refuse base classes that lead back to the class (bases not in the list are fine)."""
    done: set[str] = set()
    for start in model.types:
        if start in done or not _is_class(model, start):
            continue
        chain, on_chain = [start], {start}
        todo = [iter(_bases(model, start))]
        while todo:
            base = next(todo[-1], None)
            if base is None:
                todo.pop()
                on_chain.discard(chain[-1])
                done.add(chain.pop())
            elif base in on_chain:
                loop = " -> ".join([*chain[chain.index(base):], base])
                raise SchemaError(f"type list: class {base}: its bases lead back to it "
                                  f"({loop})")
            elif base not in done:
                chain.append(base)
                on_chain.add(base)
                todo.append(iter(_bases(model, base)))


def _is_class(model: Schema, name: str) -> bool:
    t = model.types.get(name)
    return isinstance(t, Record) and t.kind == "class"


def _bases(model: Schema, name: str) -> list[str]:
    """The bases of class ``name`` that are classes of the list."""
    t = model.types[name]
    assert isinstance(t, Record)
    return [b for b in t.attributes["bases"] if _is_class(model, b)]


_REQUIRED = ("type", "id", "flags", "dynamic", "hash")
"""The members of a property katsuba's ``TypeList`` requires."""


def _field(cls: str, name: str, p: Any, where: str, enums: dict[str, Enum]) -> Field:
    if not isinstance(p, dict):
        raise SchemaError(f"{where}: a property is a JSON object")
    missing = [key for key in _REQUIRED if key not in p]
    if missing:
        raise SchemaError(f"{where}: a property needs {', '.join(map(repr, missing))}")
    type_name = p.get("type")
    if not isinstance(type_name, str):
        raise SchemaError(f"{where}: \"type\" is not a type name")
    if not isinstance(p["dynamic"], bool):
        raise SchemaError(f"{where}: \"dynamic\" is not true or false")
    flags = _int(p.get("flags", 0), f"{where}: flags")
    if flags & ~KNOWN_FLAG_BITS:
        raise SchemaError(f"{where}: flags 0x{flags:x} set bits no property flag has "
                          f"(0x{flags & ~KNOWN_FLAG_BITS:x})")
    prop_id = _int(p.get("id", 0), f"{where}: id")
    prop_hash = _int(p.get("hash"), f"{where}: hash")
    dynamic = bool(p.get("dynamic", False))
    element: Type
    if flags & (FLAGS["BITS"] | FLAGS["ENUM"]) or type_name.startswith("enum"):
        element = Ref(_enum(cls, name, type_name, flags, p.get("enum_options", {}), where,
                            enums))
    elif type_name in LEAF_TYPES:
        element = LEAF_TYPES[type_name]
    elif type_name in LEAF_STRUCTS:
        element = Ref(LEAF_STRUCTS[type_name].name)
    else:
        element = Ref(OBJECT)
    return Field(name, List(element) if dynamic else element, id=prop_id, attributes={
        "hash": prop_hash, "flags": flags, "type_name": type_name,
        "container": str(p.get("container", "Static")), "dynamic": dynamic,
        "pointer": bool(p.get("pointer", False))})


def _enum(cls: str, prop: str, type_name: str, flags: int, options: Any, where: str,
          enums: dict[str, Enum]) -> str:
    if not isinstance(options, dict):
        raise SchemaError(f"{where}: \"enum_options\" is not an object")
    values: dict[str, int] = {}
    special: dict[str, str] = {}
    for option, value in options.items():
        if isinstance(value, str) and not value.lstrip("-").isdigit():
            special[option] = value
        else:
            values[option] = _int(value, f"{where}: enum option {option}")
    enum = Enum(type_name, UINT32, values, bit_flags=bool(flags & FLAGS["BITS"]),
                attributes={"special": special})
    name = type_name
    known = enums.get(name)
    if known is not None and (known.values, known.bit_flags) != (enum.values, enum.bit_flags):
        name = f"{cls}.{prop}:{type_name}"
        enum = Enum(name, UINT32, values, bit_flags=enum.bit_flags,
                    attributes={"special": special})
    enums[name] = enum
    return name
