"""flatc's definitions for the ``.fbs`` parser (``src/idl_parser.cpp``, ``idl.h``).

The intermediate structures flatc builds while parsing (:class:`Type`, :class:`FieldDef`,
:class:`StructDef`, :class:`EnumDef`, :class:`ServiceDef` ... in :class:`SymbolTable` s), the
type predicates and sizes over them, the parser's error (:class:`FbsSchemaError`), flatc's
file path helpers (``util.cpp``) and :func:`attribute_value`.
:mod:`gameserde.flatbuffers.schema` lowers them into the shared schema model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from gameserde.errors import SchemaError
from gameserde.flatbuffers import _fbs_numbers as num
from gameserde.flatbuffers._fbs_numbers import (
    ARRAY,
    BOOL,
    CHAR,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    NONE,
    SHORT,
    STRING,
    STRUCT,
    UCHAR,
    UINT,
    ULONG,
    UNION,
    USHORT,
    UTYPE,
    VECTOR,
    VECTOR64,
)

MAX_PARSING_DEPTH = 64
MAX_ALIGNMENT = 32
FILE_IDENTIFIER_LENGTH = 4

BUILTIN_ATTRIBUTES = (
    "deprecated", "required", "key", "shared", "hash", "id", "force_align", "bit_flags",
    "original_order", "nested_flatbuffer", "csharp_partial", "streaming", "idempotent",
    "cpp_type", "cpp_ptr_type", "cpp_ptr_type_get", "cpp_str_type", "cpp_str_flex_ctor",
    "native_inline", "native_custom_alloc", "native_type", "native_type_pack_name",
    "native_default", "flexbuffer", "private", "offset64", "vector64",
)

_SCALAR_NAMES = {
    "bool": BOOL, "byte": CHAR, "int8": CHAR, "ubyte": UCHAR, "uint8": UCHAR,
    "short": SHORT, "int16": SHORT, "ushort": USHORT, "uint16": USHORT, "int": INT,
    "int32": INT, "uint": UINT, "uint32": UINT, "long": LONG, "int64": LONG, "ulong": ULONG,
    "uint64": ULONG, "float": FLOAT, "float32": FLOAT, "double": DOUBLE, "float64": DOUBLE,
    "string": STRING,
}
_SIZE_OF = {NONE: 1, UTYPE: 1, BOOL: 1, CHAR: 1, UCHAR: 1, SHORT: 2, USHORT: 2, INT: 4,
            UINT: 4, LONG: 8, ULONG: 8, FLOAT: 4, DOUBLE: 8, STRING: 4, VECTOR: 4,
            VECTOR64: 8, STRUCT: 4, UNION: 4, ARRAY: 4}
_HASHES = {16: ("fnv1_16", "fnv1a_16"), 32: ("fnv1_32", "fnv1a_32"),
           64: ("fnv1_64", "fnv1a_64")}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")

PRESENCE_DEFAULT, PRESENCE_OPTIONAL, PRESENCE_REQUIRED = "default", "optional", "required"


def is_scalar(t: int) -> bool:
    return UTYPE <= t <= DOUBLE


def is_integer(t: int) -> bool:
    return UTYPE <= t <= ULONG


def is_float(t: int) -> bool:
    return t in (FLOAT, DOUBLE)


def is_unsigned(t: int) -> bool:
    return t in (UTYPE, UCHAR, USHORT, UINT, ULONG)


def is_vector(t: int) -> bool:
    return t in (VECTOR, VECTOR64)


def size_of(t: int) -> int:
    return _SIZE_OF[t]


def text(raw: str) -> str:
    """A byte string held as latin-1 text, decoded as UTF-8 (flatc strings are bytes)."""
    if raw.isascii():
        return raw
    try:
        return raw.encode("latin-1").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # already text
        return raw


def raw(s: str) -> str:
    """The inverse of :func:`text`: text as its UTF-8 bytes held in latin-1 text."""
    return s.encode("utf-8", "surrogateescape").decode("latin-1")


# ---------------------------------------------------------------------------------------------
# flatc's definitions


T = TypeVar("T")


class SymbolTable(Generic[T]):
    """flatc ``SymbolTable``: insertion-ordered values, the first one wins a name."""

    __slots__ = ("dict", "vec")

    def __init__(self) -> None:
        self.dict: dict[str, T] = {}
        self.vec: list[T] = []

    def add(self, name: str, value: T) -> bool:
        """Add ``value``; True when ``name`` was already taken (flatc's error signal)."""
        self.vec.append(value)
        if name in self.dict:
            return True
        self.dict[name] = value
        return False

    def move(self, old: str, new: str) -> None:
        obj = self.dict.pop(old)
        self.dict[new] = obj

    def lookup(self, name: str) -> T | None:
        return self.dict.get(name)


@dataclass(eq=False)
class Namespace:
    components: tuple[str, ...] = ()
    prefix: str = field(init=False, repr=False)  # the components joined by "."

    def __post_init__(self) -> None:
        self.prefix = ".".join(self.components)

    def qualified(self, name: str, max_components: int = 1000) -> str:
        if not self.components or not max_components:
            return name
        prefix = (self.prefix if max_components >= len(self.components)
                  else ".".join(self.components[:max_components]))
        return f"{prefix}.{name}" if name else prefix


@dataclass(eq=False)
class Type:
    base_type: int = NONE
    struct_def: StructDef | None = None
    enum_def: EnumDef | None = None
    element: int = NONE
    fixed_length: int = 0

    def copy(self) -> Type:
        return Type(self.base_type, self.struct_def, self.enum_def, self.element,
                    self.fixed_length)

    def vector_type(self) -> Type:
        return Type(self.element, self.struct_def, self.enum_def)


def is_struct(t: Type) -> bool:
    return t.base_type == STRUCT and t.struct_def is not None and t.struct_def.fixed


def is_table(t: Type) -> bool:
    return t.base_type == STRUCT and t.struct_def is not None and not t.struct_def.fixed


def is_incomplete_struct(t: Type) -> bool:
    return t.base_type == STRUCT and t.struct_def is not None and t.struct_def.predecl


def is_series(t: Type) -> bool:
    return is_vector(t.base_type) or t.base_type == ARRAY


def is_enum(t: Type) -> bool:
    return t.enum_def is not None and is_integer(t.base_type)


def inline_size(t: Type) -> int:
    if is_struct(t):
        assert t.struct_def is not None
        return t.struct_def.bytesize
    if t.base_type == ARRAY:
        return inline_size(t.vector_type()) * t.fixed_length
    return size_of(t.base_type)


def inline_alignment(t: Type) -> int:
    if is_struct(t):
        assert t.struct_def is not None
        return t.struct_def.minalign
    if t.base_type == ARRAY:
        if is_struct(t.vector_type()):
            assert t.struct_def is not None
            return t.struct_def.minalign
        return size_of(t.element)
    return size_of(t.base_type)


@dataclass(eq=False)
class Value:
    type: Type = field(default_factory=Type)
    constant: str = "0"
    offset: int = 0


@dataclass(eq=False)
class FieldDef:
    name: str
    value: Value = field(default_factory=Value)
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    doc: list[str] = field(default_factory=list)
    file: str = ""
    deprecated: bool = False
    key: bool = False
    shared: bool = False
    flexbuffer: bool = False
    offset64: bool = False
    native_inline: bool = False
    presence: str = PRESENCE_DEFAULT
    padding: int = 0
    nested_flatbuffer: StructDef | None = None
    sibling_union_field: FieldDef | None = None
    is_union_type_field: bool = False
    declaration_index: int = 0


@dataclass(eq=False)
class StructDef:
    name: str = ""
    namespace: Namespace = field(default_factory=Namespace)
    fixed: bool = False
    predecl: bool = True
    sortbysize: bool = True
    has_key: bool = False
    minalign: int = 1
    bytesize: int = 0
    fields: SymbolTable[FieldDef] = field(default_factory=SymbolTable)
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    doc: list[str] = field(default_factory=list)
    file: str = ""
    original_location: str | None = None
    order: int = -1

    @property
    def qualified_name(self) -> str:
        return self.namespace.qualified(self.name)

    def pad_last_field(self, min_align: int) -> None:
        padding = (-self.bytesize) & (min_align - 1)
        self.bytesize += padding
        if self.fields.vec:
            self.fields.vec[-1].padding = padding


@dataclass(eq=False)
class EnumVal:
    name: str
    value: int
    doc: list[str] = field(default_factory=list)
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    union_type: Type = field(default_factory=Type)
    bit_index: int | None = None


@dataclass(eq=False)
class EnumDef:
    name: str
    namespace: Namespace
    is_union: bool
    underlying_type: Type = field(default_factory=Type)
    vals: SymbolTable[EnumVal] = field(default_factory=SymbolTable)
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    doc: list[str] = field(default_factory=list)
    file: str = ""
    order: int = -1

    @property
    def qualified_name(self) -> str:
        return self.namespace.qualified(self.name)

    def is_uint64(self) -> bool:
        return self.underlying_type.base_type == ULONG

    def as_int64(self, v: int) -> int:
        return num.to_int64(v)

    def lookup(self, name: str) -> EnumVal | None:
        return self.vals.lookup(name)

    def find_by_value(self, constant: str) -> EnumVal | None:
        if self.is_uint64():
            ok, v = num.string_to_integer(constant, unsigned=True)
        else:
            ok, v = num.string_to_integer(constant)
        if not ok:
            return None
        want = num.to_int64(int(v))
        for ev in self.vals.vec:
            if num.to_int64(ev.value) == want:
                return ev
        return None


@dataclass(eq=False)
class RPCCall:
    name: str
    request: StructDef
    response: StructDef
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    doc: list[str] = field(default_factory=list)


@dataclass(eq=False)
class ServiceDef:
    name: str
    namespace: Namespace
    file: str
    calls: SymbolTable[RPCCall] = field(default_factory=SymbolTable)
    attributes: SymbolTable[Value] = field(default_factory=SymbolTable)
    doc: list[str] = field(default_factory=list)

    @property
    def qualified_name(self) -> str:
        return self.namespace.qualified(self.name)


def _lookup_by_name(table: SymbolTable[T], name: str, ns: Namespace, skip_top: int) -> T | None:
    """flatc ``LookupTableByName``: the current namespace, then its parents, then global."""
    comps = ns.components
    found = table.dict
    if not found or len(comps) < skip_top:
        return None
    for i in range(len(comps) - skip_top, 0, -1):
        obj = found.get(".".join(comps[:i]) + "." + name)
        if obj is not None:
            return obj
    return found.get(name)


# ---------------------------------------------------------------------------------------------
# Errors


class FbsSchemaError(SchemaError):
    """An invalid ``.fbs`` schema, reported exactly as flatc 25.12.19 reports it.

    ``str()`` is flatc's line ``FILE:LINE: COL: error: MESSAGE`` (``LINE: COL: error: ...``
    for a source without a file name); ``flatc_message`` is MESSAGE alone. ``file`` is the
    file flatc names (resolved to an absolute path when it exists, as flatc does), ``line`` is
    1-based and ``column`` is flatc's 0-based byte offset of its cursor in that line.
    ``messages`` holds everything flatc printed before giving up (warnings, and intermediate
    errors flatc reports before the final one), each in the same format.
    """

    def __init__(self, flatc_message: str, *, file: str, line: int, column: int,
                 messages: tuple[str, ...] = ()) -> None:
        self.flatc_message = flatc_message
        self.file = file
        self.line = line
        self.column = column
        self.messages = messages
        super().__init__(format_message(file, line, column, "error: " + flatc_message))


def format_message(file: str, line: int, column: int, message: str) -> str:
    """flatc ``Parser::Message``: ``FILE:LINE: COL: MESSAGE`` (gcc-style build)."""
    prefix = f"{file}:" if file else ""
    return f"{prefix}{line}: {column}: {message}"


class _Stop(Exception):
    """flatc's parse functions returning early without an error (inline JSON reached)."""


# ---------------------------------------------------------------------------------------------
# File helpers (flatc util.cpp)


def _strip_file_name(path: str) -> str:
    i = max(path.rfind("/"), path.rfind("\\"))
    return path[:i] if i >= 0 else ""


def _strip_path(path: str) -> str:
    i = max(path.rfind("/"), path.rfind("\\"))
    return path[i + 1:]


def _concat_path(path: str, filename: str) -> str:
    filepath = path
    if filepath:
        if filepath[-1] == "\\":
            filepath = filepath[:-1] + "/"
        elif filepath[-1] != "/":
            filepath += "/"
    filepath += filename
    if filepath.startswith("./"):
        filepath = filepath[2:]
    return filepath


def absolute_path(path: str) -> str:
    """flatc ``AbsolutePath``: ``realpath`` when the file exists, else the path unchanged."""
    if path and os.path.exists(path):
        return os.path.realpath(path)
    return path


def _load(path: str) -> str | None:
    """File contents as latin-1 text (one character per byte), or None."""
    if not path or os.path.isdir(path):
        return None
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("latin-1")
    except OSError:
        return None


def _c_string(source: str) -> str:
    nul = source.find("\0")
    return source if nul < 0 else source[:nul]



def attribute_value(v: Value) -> Any:
    """An attribute's value as Python: True when it has none, else its int or string."""
    bt = v.type.base_type
    if bt == NONE:
        return True
    if bt == STRING:
        return text(v.constant)
    if is_integer(bt):
        return int(v.constant)
    return float(v.constant)

