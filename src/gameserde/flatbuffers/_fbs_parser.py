"""The ``.fbs`` parser: flatc 25.12.19's ``Parser`` (``src/idl_parser.cpp``) rebuilt in Python.

It keeps flatc's own intermediate structures (``StructDef``, ``FieldDef``, ``EnumDef`` ...)
and its order of operations, because *where* flatc stops and *what* it says depend on them:
every error is raised at the token flatc is looking at when it gives up, with its message.
:mod:`gameserde.flatbuffers.schema` lowers the result into the shared schema model.

Only the ``.fbs`` grammar is implemented (no ``--proto`` input, no JSON parsing); the
language-support switches are those of ``flatc -b`` (binary), which accepts every feature.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from gameserde.errors import SchemaError
from gameserde.flatbuffers import _fbs_numbers as num
from gameserde.flatbuffers._fbs_lexer import (
    TOKEN_EOF,
    TOKEN_FLOAT,
    TOKEN_IDENT,
    TOKEN_INTEGER,
    TOKEN_STRING,
    Lexer,
    LexError,
    token_to_string,
)
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

__all__ = ["FbsSchemaError", "ParsedSchema", "Parser"]

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

    def qualified(self, name: str, max_components: int = 1000) -> str:
        if not self.components or not max_components:
            return name
        prefix = ".".join(self.components[:max_components])
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
    if not table.dict or len(comps) < skip_top:
        return None
    for i in range(len(comps) - skip_top, 0, -1):
        obj = table.lookup(".".join(comps[:i]) + "." + name)
        if obj is not None:
            return obj
    return table.lookup(name)


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


# ---------------------------------------------------------------------------------------------
# The parser


@dataclass
class ParsedSchema:
    """What the parser hands to the lowering step."""

    structs: list[StructDef]
    enums: list[EnumDef]
    services: list[ServiceDef]
    root: StructDef | None
    file_identifier: str | None
    file_extension: str | None
    namespaces: list[str]
    declared_attributes: list[str]
    includes: list[str]
    native_includes: list[str]
    warnings: list[str]
    inline_json: str | None
    source_file: str


class Parser:
    """One ``flatc`` parse: the root file and everything it includes."""

    def __init__(self, include_paths: list[str], *, warnings_as_errors: bool = False,
                 require_explicit_ids: bool = False) -> None:
        self.include_paths = include_paths
        self.warnings_as_errors = warnings_as_errors
        self.require_explicit_ids = require_explicit_ids
        self.lx = Lexer("")
        self.file_being_parsed = ""
        self.messages: list[str] = []
        self.warnings: list[str] = []
        self.has_warning = False
        self.depth = 0
        self.structs: SymbolTable[StructDef] = SymbolTable()
        self.enums: SymbolTable[EnumDef] = SymbolTable()
        self.services: SymbolTable[ServiceDef] = SymbolTable()
        self.types: set[str] = set()
        self.known_attributes: dict[str, bool] = dict.fromkeys(BUILTIN_ATTRIBUTES, True)
        self.empty_namespace = Namespace()
        self.namespaces: list[Namespace] = [self.empty_namespace]
        self.current_namespace = self.empty_namespace
        self.declared_namespaces: list[str] = []
        self.root_struct_def: StructDef | None = None
        self.file_identifier = ""
        self.file_extension = ""
        self.has_file_identifier = False
        self.has_file_extension = False
        self.included_files: dict[tuple[str, str | None], str] = {}
        self.include_order: list[str] = []
        self.native_includes: list[str] = []
        self.inline_json: str | None = None
        self.order = 0

    # -- messages ----------------------------------------------------------------------------

    def _message(self, msg: str) -> str:
        line = format_message(absolute_path(self.file_being_parsed), self.lx.line,
                              self.lx.column, text(msg))
        self.messages.append(line)
        return line

    def warning(self, msg: str) -> None:
        self.warnings.append(self._message("warning: " + msg))
        self.has_warning = True

    def note_error(self, msg: str) -> None:
        """An error flatc prints without stopping (it goes on to report another one)."""
        self._message("error: " + msg)

    def error(self, msg: str) -> FbsSchemaError:
        prior = tuple(self.messages)
        self._message("error: " + msg)
        return FbsSchemaError(text(msg), file=absolute_path(self.file_being_parsed),
                              line=self.lx.line, column=self.lx.column, messages=prior)

    # -- tokens ------------------------------------------------------------------------------

    def next(self) -> None:
        try:
            self.lx.next()
        except LexError as exc:
            raise self.error(exc.message) from None

    def is_(self, t: int | str) -> bool:
        return self.lx.token == (ord(t) if isinstance(t, str) else t)

    def is_ident(self, name: str) -> bool:
        return self.lx.token == TOKEN_IDENT and self.lx.attribute == name

    def token_id(self, t: int) -> str:
        return self.lx.attribute if t == TOKEN_IDENT else token_to_string(t)

    def expect(self, t: int | str) -> None:
        tok = ord(t) if isinstance(t, str) else t
        if self.lx.token != tok:
            raise self.error(f"expecting: {token_to_string(tok)} instead got: "
                             f"{self.token_id(self.lx.token)}")
        self.next()

    def parse_namespacing(self, ident: str) -> tuple[str, str | None]:
        last: str | None = None
        while self.is_("."):
            self.next()
            ident += "." + self.lx.attribute
            last = self.lx.attribute
            self.expect(TOKEN_IDENT)
        return ident, last

    # -- numbers -----------------------------------------------------------------------------

    def atot(self, s: str, base_type: int, *, record_only: bool = False) -> int | float | None:
        """flatc ``atot``: the value, or an ``invalid number`` error."""
        ok, val = num.string_to_number(s, base_type)
        if ok:
            if isinstance(val, float) and math.isnan(val):
                val = math.nan
            return val
        if val == 0:
            msg = f'invalid number: "{s}"'
        else:
            msg = f'invalid number: "{s}", constant does not fit {num.interval_string(base_type)}'
        if record_only:
            self.note_error(msg)
            return None
        raise self.error(msg)

    # -- lookups -----------------------------------------------------------------------------

    def lookup_enum(self, ident: str) -> EnumDef | None:
        return _lookup_by_name(self.enums, ident, self.current_namespace, 0)

    def lookup_create_struct(self, name: str, create_if_new: bool = True,
                             definition: bool = False) -> StructDef | None:
        ns = self.current_namespace
        qualified = ns.qualified(name)
        sd = self.structs.lookup(name)
        if sd is not None and sd.predecl:
            if definition:
                sd.namespace = ns
                self.structs.move(name, qualified)
            return sd
        sd = self.structs.lookup(qualified)
        if sd is not None and sd.predecl:
            if definition:
                sd.namespace = ns
            return sd
        if not definition and sd is None:
            sd = _lookup_by_name(self.structs, name, ns, 1)
        if sd is None and create_if_new:
            sd = StructDef(name=name, namespace=ns)
            if definition:
                self.structs.add(qualified, sd)
            else:
                self.structs.add(name, sd)
                sd.original_location = f"{raw(self.file_being_parsed)}:{self.lx.line}"
        return sd

    # -- types -------------------------------------------------------------------------------

    def parse_type_ident(self) -> Type:
        ident = self.lx.attribute
        self.expect(TOKEN_IDENT)
        ident, _ = self.parse_namespacing(ident)
        enum_def = self.lookup_enum(ident)
        if enum_def is not None:
            t = enum_def.underlying_type.copy()
            if enum_def.is_union:
                t.base_type = UNION
            return t
        return Type(STRUCT, self.lookup_create_struct(ident))

    def parse_type(self) -> Type:
        lx = self.lx
        if lx.token == TOKEN_IDENT:
            base = _SCALAR_NAMES.get(lx.attribute)
            if base is not None:
                self.next()
                return Type(base)
            return self.parse_type_ident()
        if not self.is_("["):
            raise self.error("illegal type syntax")
        if self.depth >= MAX_PARSING_DEPTH:
            raise self.error(f"maximum parsing depth {self.depth + 1} reached")
        self.depth += 1
        try:
            self.next()
            sub = self.parse_type()
            if is_series(sub):
                raise self.error("nested vector types not supported (wrap in table first)")
            if self.is_(":"):
                self.next()
                if lx.token != TOKEN_INTEGER:
                    raise self.error("length of fixed-length array must be an integer value")
                ok, length = num.string_to_number(lx.attribute, USHORT)
                if not ok or int(length) < 1:
                    raise self.error("length of fixed-length array must be positive and fit "
                                     "to uint16_t type")
                t = Type(ARRAY, sub.struct_def, sub.enum_def, fixed_length=int(length))
                self.next()
            else:
                t = Type(VECTOR, sub.struct_def, sub.enum_def)
            t.element = sub.base_type
            self.expect("]")
            return t
        finally:
            self.depth -= 1

    # -- values ------------------------------------------------------------------------------

    def parse_meta_data(self, attributes: SymbolTable[Value]) -> None:
        if not self.is_("("):
            return
        self.next()
        while True:
            name = self.lx.attribute
            if not (self.is_(TOKEN_IDENT) or self.is_(TOKEN_STRING)):
                raise self.error("attribute name must be either identifier or string: " + name)
            if name not in self.known_attributes:
                raise self.error("user define attributes must be declared before use: " + name)
            self.next()
            e = Value()
            if attributes.add(name, e):
                self.warning("attribute already found: " + name)
            if self.is_(":"):
                self.next()
                self.parse_single_value(name, e, True)
            if self.is_(")"):
                self.next()
                break
            self.expect(",")

    def parse_enum_from_string(self, t: Type) -> str:
        base = t.enum_def.underlying_type.base_type if t.enum_def else t.base_type
        if not is_integer(base):
            raise self.error("not a valid value for this field")
        u64 = 0
        for word in self.lx.attribute.split(" "):
            if t.enum_def is not None:
                ev = t.enum_def.lookup(word)
            else:
                dot = word.find(".")
                if dot < 0:
                    raise self.error("enum values need to be qualified by an enum type")
                enum_def = self.lookup_enum(word[:dot])
                if enum_def is None:
                    raise self.error("unknown enum: " + word[:dot])
                ev = enum_def.lookup(word[dot + 1:])
            if ev is None:
                raise self.error("unknown enum value: " + word)
            u64 |= num.to_uint64(ev.value)
        return str(u64) if is_unsigned(base) else str(num.to_int64(u64))

    def parse_function(self, name: str | None, e: Value) -> None:
        if self.depth >= MAX_PARSING_DEPTH:
            raise self.error(f"maximum parsing depth {self.depth + 1} reached")
        self.depth += 1
        try:
            fn = self.lx.attribute
            if not is_float(e.type.base_type):
                raise self.error(
                    f"{fn}: type of argument mismatch, expecting: double, found: "
                    f"{num.BASE_TYPE_NAMES[e.type.base_type]}, name: {name or ''}, "
                    f"value: {e.constant}")
            self.next()
            self.expect("(")
            self.parse_single_value(name, e, False)
            self.expect(")")
            x = self.atot(e.constant, DOUBLE)
            assert isinstance(x, float)
            funcs = {
                "deg": lambda v: v / math.pi * 180, "rad": lambda v: v * math.pi / 180,
                "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
                "acos": math.acos, "atan": math.atan,
            }
            if fn not in funcs:
                raise self.error(f"Unknown conversion function: {fn}, field name: {name or ''}"
                                 f", value: {e.constant}")
            try:
                y = funcs[fn](x)
            except ValueError:
                y = math.nan
            e.constant = num.float_to_string(y, 12)
        finally:
            self.depth -= 1

    def try_typed_value(self, name: str | None, dtoken: int, check: bool, e: Value,
                        req: int) -> None:
        e.constant = self.lx.attribute
        if not check:
            if e.type.base_type == NONE:
                e.type.base_type = req
            else:
                raise self.error(
                    f"type mismatch: expecting: {num.BASE_TYPE_NAMES[e.type.base_type]}, "
                    f"found: {num.BASE_TYPE_NAMES[req]}, name: {name or ''}, "
                    f"value: {e.constant}")
        if dtoken != TOKEN_FLOAT and is_float(e.type.base_type):
            s = e.constant
            k = next((i for i, ch in enumerate(s) if ch in "0123456789."), -1)
            if (k >= 0 and len(s) > k + 1 and s[k] == "0" and s[k + 1] in "xX"
                    and not any(ch in "pP" for ch in s[k + 2:])):
                raise self.error("invalid number, the exponent suffix of hexadecimal "
                                 f'floating-point literals is mandatory: "{s}"')
        self.next()

    def parse_single_value(self, name: str | None, e: Value, check_now: bool) -> None:
        lx = self.lx
        if self.is_("+") or self.is_("-"):
            sign = chr(lx.token)
            self.next()
            if lx.token != TOKEN_IDENT:
                raise self.error("constant name expected")
            lx.attribute = sign + lx.attribute
        in_type = e.type.base_type
        is_tok_ident = lx.token == TOKEN_IDENT
        is_tok_string = lx.token == TOKEN_STRING
        if is_tok_ident and lx.src[lx.cursor] == "(":
            self.parse_function(name, e)
            return
        match = False

        def attempt(dtoken: int, check: bool, req: int, force: bool = False) -> None:
            nonlocal match
            if not match and dtoken == lx.token and (check or force):
                match = True
                self.try_typed_value(name, dtoken, check, e, req)

        if is_tok_ident or is_tok_string:
            tok = lx.token
            attempt(TOKEN_STRING, in_type == STRING, STRING)
            if not match and is_tok_string and is_scalar(in_type) and not lx.trivial_ascii:
                raise self.error(
                    "type mismatch or invalid value, an initializer of non-string field must "
                    f"be trivial ASCII string: type: {num.BASE_TYPE_NAMES[in_type]}, name: "
                    f"{name or ''}, value: {lx.attribute}")
            if not match and in_type == BOOL:
                is_true = lx.attribute == "true"
                if is_true or lx.attribute == "false":
                    lx.attribute = "1" if is_true else "0"
                    attempt(tok, True, BOOL)
            if not match and is_scalar(in_type) and lx.attribute == "null":
                e.constant = "null"
                self.next()
                match = True
            if (not match and is_integer(in_type) and in_type != BOOL
                    and lx.attribute[:1] in _IDENT_START):
                e.constant = self.parse_enum_from_string(e.type)
                self.next()
                match = True
            if not match and is_tok_string and is_scalar(in_type):
                stripped = lx.attribute.rstrip(" ")
                if stripped:
                    lx.attribute = stripped
                if is_float(in_type) and ")" in lx.attribute:
                    raise self.error("invalid number: " + lx.attribute)
            attempt(tok, is_float(in_type), FLOAT)
            attempt(tok, is_integer(in_type), INT)
            attempt(TOKEN_STRING, in_type == STRING, STRING, force=True)
        else:
            attempt(TOKEN_FLOAT, is_float(in_type), FLOAT)
            attempt(TOKEN_INTEGER, is_scalar(in_type), INT, force=True)
        if not match and is_vector(e.type.base_type) and self.is_("["):
            self.next()
            if not self.is_("]"):
                raise self.error("Expected `]` in vector default")
            self.next()
            match = True
            e.constant = "[]"
        if not match:
            raise self.error(f"Cannot assign token starting with '{self.token_id(lx.token)}' "
                             f"to value of <{num.BASE_TYPE_NAMES[in_type]}> type.")
        match_type = e.type.base_type
        if check_now and is_scalar(match_type) and e.constant != "null":
            val = self.atot(e.constant, match_type)
            if is_integer(match_type):
                e.constant = str(val)
            elif isinstance(val, float) and math.isnan(val):
                e.constant = "nan"

    # -- fields ------------------------------------------------------------------------------

    def add_field(self, sd: StructDef, name: str, t: Type) -> FieldDef:
        fd = FieldDef(name=name, file=sd.file)
        fd.value.offset = 4 + 2 * len(sd.fields.vec)
        fd.value.type = t.copy()
        if sd.fixed:
            size = inline_size(t)
            alignment = inline_alignment(t)
            sd.minalign = max(sd.minalign, alignment)
            sd.pad_last_field(alignment)
            fd.value.offset = sd.bytesize
            sd.bytesize += size
        if sd.fields.add(name, fd):
            raise self.error("field already exists: " + name)
        return fd

    def parse_field(self, sd: StructDef, index: int) -> None:
        lx = self.lx
        name = lx.attribute
        if self.lookup_create_struct(name, False, False) is not None:
            raise self.error("field name can not be the same as table/struct name")
        if any(not ("a" <= c <= "z" or "0" <= c <= "9" or c == "_") for c in name):
            self.warning("field names should be lowercase snake_case, got: " + name)
        dc = list(lx.doc_comment)
        self.expect(TOKEN_IDENT)
        self.expect(":")
        t = self.parse_type()

        if sd.fixed:
            if is_incomplete_struct(t) or (t.base_type == ARRAY
                                           and is_incomplete_struct(t.vector_type())):
                assert t.struct_def is not None
                raise self.error("Incomplete type in struct is not allowed, type name: "
                                 + t.struct_def.name)
            valid = is_scalar(t.base_type) or is_struct(t)
            if not valid and t.base_type == ARRAY:
                et = t.vector_type()
                valid = is_scalar(et.base_type) or is_struct(et)
            if not valid:
                raise self.error("structs may contain only scalar or struct fields")
        if not sd.fixed and t.base_type == ARRAY:
            raise self.error("fixed-length array in table must be wrapped in struct")

        typefield: FieldDef | None = None
        if t.base_type == UNION:
            assert t.enum_def is not None
            ut = t.enum_def.underlying_type.copy()
            ut.base_type = UTYPE
            typefield = self.add_field(sd, name + "_type", ut)
        elif is_vector(t.base_type) and t.element == UNION:
            uv = Type(VECTOR, None, t.enum_def)
            uv.element = UTYPE
            typefield = self.add_field(sd, name + "_type", uv)

        fd = self.add_field(sd, name, t)
        fd.declaration_index = index
        if typefield is not None:
            typefield.sibling_union_field = fd
            typefield.is_union_type_field = True
            typefield.declaration_index = index
            fd.sibling_union_field = typefield

        if self.is_("="):
            self.next()
            self.parse_single_value(fd.name, fd.value, True)
            if is_struct(t) or (sd.fixed and fd.value.constant != "0"):
                raise self.error("default values are not supported for struct fields, table "
                                 "fields, or in structs.")
            if is_vector(t.base_type) and fd.value.constant not in ("0", "[]"):
                raise self.error("The only supported default for vectors is `[]`.")

        fd.doc = dc
        self.parse_meta_data(fd.attributes)
        attrs = fd.attributes
        fd.deprecated = attrs.lookup("deprecated") is not None
        hash_name = attrs.lookup("hash")
        if hash_name is not None:
            bt = t.element if is_vector(t.base_type) else t.base_type
            width = {SHORT: 16, USHORT: 16, INT: 32, UINT: 32, LONG: 64, ULONG: 64}.get(bt)
            if width is None:
                raise self.error("only short, ushort, int, uint, long and ulong data types "
                                 "support hashing.")
            if hash_name.constant not in _HASHES[width]:
                raise self.error(f"Unknown hashing algorithm for {width} bit types: "
                                 + hash_name.constant)

        if attrs.lookup("vector64") is not None:
            if not is_vector(t.base_type):
                raise self.error("`vector64` attribute can only be applied on vectors.")
            element = t.element
            t = Type(VECTOR64, t.struct_def, t.enum_def)
            t.element = element
            fd.value.type = t.copy()
            fd.offset64 = True
        if attrs.lookup("offset64") is not None:
            if t.base_type == VECTOR64:
                self.warning("attribute `vector64` implies `offset64` and isn't required.")
            fd.offset64 = True
        if fd.offset64:
            if t.base_type != STRING and not is_vector(t.base_type):
                raise self.error("only string and vectors can have `offset64` attribute "
                                 "applied")
            vt = t.vector_type()
            if is_vector(t.base_type) and not (
                    (is_scalar(t.element) and not is_enum(vt)) or is_struct(vt)):
                raise self.error("only vectors of scalars are allowed to be 64-bit.")

        fd.key = attrs.lookup("key") is not None
        if not sd.fixed:
            required = attrs.lookup("required") is not None or (t.base_type == STRING
                                                                and fd.key)
            default_str_or_vec = ((t.base_type == STRING or is_vector(t.base_type))
                                  and fd.value.constant != "0")
            if is_scalar(t.base_type):
                optional = fd.value.constant == "null"
            else:
                optional = not (required or default_str_or_vec)
            if required and optional:
                raise self.error("Fields cannot be both optional and required.")
            fd.presence = (PRESENCE_OPTIONAL if optional else
                           PRESENCE_REQUIRED if required else PRESENCE_DEFAULT)
            if required and is_scalar(t.base_type):
                raise self.error("only non-scalar fields in tables may be 'required'")
        else:
            fd.presence = PRESENCE_DEFAULT
            if attrs.lookup("required") is not None or attrs.lookup("optional") is not None:
                raise self.error("struct fields are always required")

        if fd.key:
            if sd.has_key:
                raise self.error("only one field may be set as 'key'")
            sd.has_key = True
            valid = is_scalar(t.base_type) or t.base_type == STRING or is_struct(t)
            if t.base_type == ARRAY:
                vt = t.vector_type()
                valid = valid or is_scalar(vt.base_type) or is_struct(vt)
            if not valid:
                raise self.error("'key' field must be string, scalar type or fixed size array "
                                 "of scalars")

        if is_scalar(t.base_type) and fd.presence == PRESENCE_OPTIONAL:
            if t.enum_def is not None and t.enum_def.lookup("null") is not None:
                raise self.error("the default 'null' is reserved for declaring optional scalar "
                                 "fields, it conflicts with declaration of enum '"
                                 + t.enum_def.name + "'.")
            if attrs.lookup("key") is not None:
                raise self.error("only a non-optional scalar field can be used as a 'key' "
                                 "field")

        if t.enum_def is not None:
            constant = fd.value.constant
            if t.base_type == UNION:
                if constant != "0":
                    raise self.error("Union defaults must be NONE")
            elif is_vector(t.base_type):
                if constant not in ("0", "[]"):
                    raise self.error("Vector defaults may only be `[]`.")
            elif t.base_type == ARRAY:
                if constant != "0":
                    raise self.error("Array defaults are not supported yet.")
                self._check_enum(fd, t.vector_type(), name, constant)
            else:
                if not is_integer(t.base_type):
                    raise self.error("Enums must have integer base types")
                self._check_enum(fd, t, name, constant)

        if fd.deprecated and sd.fixed:
            raise self.error("can't deprecate fields in a struct")

        cpp_type = attrs.lookup("cpp_type")
        if cpp_type is not None:
            if hash_name is None:
                raise self.error("cpp_type can only be used with a hashed field")
            if attrs.lookup("cpp_ptr_type") is None:
                attrs.add("cpp_ptr_type", Value(Type(cpp_type.type.base_type), "naked"))

        fd.shared = attrs.lookup("shared") is not None
        if fd.shared and fd.value.type.base_type != STRING:
            raise self.error("shared can only be defined on strings")

        if attrs.lookup("native_custom_alloc") is not None:
            raise self.error("native_custom_alloc can only be used with a table or struct "
                             "definition")

        fd.native_inline = attrs.lookup("native_inline") is not None
        ft = fd.value.type
        if fd.native_inline and not (
                is_struct(ft) or (is_vector(ft.base_type)
                                  and (is_struct(ft.vector_type())
                                       or is_table(ft.vector_type())))):
            raise self.error("'native_inline' can only be defined on structs, vector of "
                             "structs or vector of tables")

        nested = attrs.lookup("nested_flatbuffer")
        if nested is not None:
            if nested.type.base_type != STRING:
                raise self.error("nested_flatbuffer attribute must be a string (the root type)")
            if not is_vector(t.base_type) or t.element != UCHAR:
                raise self.error("nested_flatbuffer attribute may only apply to a vector of "
                                 "ubyte")
            fd.nested_flatbuffer = self.lookup_create_struct(nested.constant)

        if attrs.lookup("flexbuffer") is not None:
            fd.flexbuffer = True
            if t.base_type != VECTOR or t.element != UCHAR:
                raise self.error("flexbuffer attribute may only apply to a vector of ubyte")

        if typefield is not None:
            if not is_scalar(typefield.value.type.base_type):
                typefield.presence = fd.presence
            id_attr = attrs.lookup("id")
            if id_attr is not None:
                id_val = self.atot(id_attr.constant, USHORT, record_only=True)
                if id_val is not None and int(id_val) > 0:
                    typefield.attributes.add(
                        "id", Value(Type(id_attr.type.base_type), str(int(id_val) - 1)))
                else:
                    raise self.error(
                        "a union type effectively adds two fields with non-negative ids, its id "
                        "must be that of the second field (the first field is the type field "
                        "and not explicitly declared in the schema);\nfield: "
                        f"{fd.name}, id: {id_attr.constant}")
            if fd.deprecated:
                typefield.deprecated = True

        self.expect(";")

    def _check_enum(self, fd: FieldDef, t: Type, name: str, constant: str) -> None:
        enum_def = t.enum_def
        assert enum_def is not None
        if (fd.presence != PRESENCE_OPTIONAL and enum_def.attributes.lookup("bit_flags") is None
                and enum_def.find_by_value(constant) is None):
            raise self.error(f"default value of `{constant}` for field `{name}` is not part of "
                             f"enum `{enum_def.name}`.")

    # -- declarations ------------------------------------------------------------------------

    def start_struct(self, name: str) -> StructDef:
        sd = self.lookup_create_struct(name, True, True)
        assert sd is not None
        if not sd.predecl:
            raise self.error("datatype already exists: " + self.current_namespace.qualified(name))
        sd.predecl = False
        sd.name = name
        sd.file = self.file_being_parsed
        self.structs.vec.remove(sd)
        self.structs.vec.append(sd)
        sd.order = self.order
        self.order += 1
        return sd

    def check_clash(self, sd: StructDef, suffix: str, base_type: int) -> None:
        n = len(suffix)
        for fd in sd.fields.vec:
            fname = fd.name
            if (len(fname) > n and fname.endswith(suffix)
                    and fd.value.type.base_type != UTYPE):
                other = sd.fields.lookup(fname[:-n])
                if other is not None and other.value.type.base_type == base_type:
                    raise self.error(f"Field {fname} would clash with generated functions for "
                                     f"field {other.name}")

    def parse_decl(self) -> None:
        dc = list(self.lx.doc_comment)
        fixed = self.is_ident("struct")
        if not fixed and not self.is_ident("table"):
            raise self.error("declaration expected")
        self.next()
        name = self.lx.attribute
        self.expect(TOKEN_IDENT)
        sd = self.start_struct(name)
        sd.doc = dc
        sd.fixed = fixed
        self.parse_meta_data(sd.attributes)
        sd.sortbysize = sd.attributes.lookup("original_order") is None and not fixed
        self.expect("{")
        index = 0
        while not self.is_("}"):
            self.parse_field(sd, index)
            index += 1
        if fixed:
            force_align = sd.attributes.lookup("force_align")
            if force_align is not None:
                sd.minalign = self.parse_align_attribute(force_align.constant, sd.minalign)
            if not sd.bytesize:
                raise self.error("size 0 structs not allowed")
        sd.pad_last_field(sd.minalign)
        fields = sd.fields.vec
        if not fixed and fields:
            num_ids = sum(1 for f in fields if f.attributes.lookup("id") is not None)
            if num_ids or self.require_explicit_ids:
                if num_ids != len(fields):
                    if self.require_explicit_ids:
                        raise self.error("all fields must have an 'id' attribute when "
                                         "--require-explicit-ids is used")
                    raise self.error("either all fields or no fields must have an 'id' "
                                     "attribute")

                def id_of(f: FieldDef) -> int:
                    attr = f.attributes.lookup("id")
                    assert attr is not None
                    return num.atoi(attr.constant)

                fields.sort(key=id_of)
                for i, f in enumerate(fields):
                    attr = f.attributes.lookup("id")
                    assert attr is not None
                    id_str = attr.constant
                    id_val = self.atot(id_str, USHORT, record_only=True)
                    if id_val is None:
                        raise self.error("field id's must be non-negative number, field: "
                                         f"{f.name}, id: {id_str}")
                    if i != id_val:
                        raise self.error(f"field id's must be consecutive from 0, id {i} "
                                         f"missing or set twice, field: {f.name}, id: {id_str}")
                    f.value.offset = 4 + 2 * i
        self.check_clash(sd, "_type", UNION)
        self.check_clash(sd, "Type", UNION)
        self.check_clash(sd, "_length", VECTOR)
        self.check_clash(sd, "Length", VECTOR)
        self.check_clash(sd, "_byte_vector", STRING)
        self.check_clash(sd, "ByteVector", STRING)
        self.expect("}")
        qualified = self.current_namespace.qualified(sd.name)
        if qualified in self.types:
            raise self.error("datatype already exists: " + qualified)
        self.types.add(qualified)

    def parse_align_attribute(self, constant: str, min_align: int) -> int:
        ok, align = num.string_to_number(constant, UCHAR)
        a = int(align)
        if ok and min_align <= a <= MAX_ALIGNMENT and a & (a - 1) == 0:
            return a
        raise self.error(f"unexpected force_align value '{constant}', alignment must be a power "
                         "of two integer ranging from the type's natural alignment "
                         f"{min_align} to {MAX_ALIGNMENT}")

    def start_enum(self, name: str, is_union: bool) -> EnumDef:
        ed = EnumDef(name=name, namespace=self.current_namespace, is_union=is_union,
                     file=self.file_being_parsed, doc=list(self.lx.doc_comment))
        qualified = self.current_namespace.qualified(name)
        if self.enums.add(qualified, ed):
            raise self.error("enum already exists: " + qualified)
        ed.underlying_type = Type(UTYPE if is_union else INT, None, ed)
        ed.order = self.order
        self.order += 1
        return ed

    def _validate_enum_value(self, ed: EnumDef, value: int, step: int) -> int:
        base = ed.underlying_type.base_type
        if not is_integer(base):
            raise self.error("fatal: invalid enum underlying type")
        bits, signed = num.INT_RANGES[base]
        lo = -(1 << (bits - 1)) if signed else 0
        hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        v = num.to_uint64(value) if ed.is_uint64() else num.to_int64(value)
        if v < lo or v > hi - step:
            plus = ' + 1"' if step else '"'
            raise self.error(f'enum value does not fit, "{v}{plus} out of '
                             f"{num.interval_string(base)}")
        return v + step

    def parse_enum(self, is_union: bool) -> None:
        lx = self.lx
        enum_comment = list(lx.doc_comment)
        self.next()
        enum_name = lx.attribute
        self.expect(TOKEN_IDENT)
        ed = self.start_enum(enum_name, is_union)
        ed.doc = enum_comment
        if not self.is_(":"):
            if not is_union:
                raise self.error("must specify the underlying integer type for this enum "
                                 "(e.g. ': short', which was the default).")
        else:
            self.next()
            ut = self.parse_type()
            if not is_integer(ut.base_type) or ut.base_type == BOOL:
                kind = "union" if is_union else "enum"
                raise self.error(f"underlying {kind}type must be integral")
            ut.enum_def = ed
            ed.underlying_type = ut
        self.parse_meta_data(ed.attributes)
        underlying = ed.underlying_type.base_type
        if ed.attributes.lookup("bit_flags") is not None and not is_unsigned(underlying):
            self.warning("underlying type of bit_flags enum must be unsigned")
        if ed.attributes.lookup("force_align") is not None:
            raise self.error("`force_align` is not a valid attribute for Enums. ")

        pending: EnumVal | None = None
        user_value = False

        def create(name: str) -> EnumVal:
            nonlocal user_value
            first = not ed.vals.vec
            user_value = first
            return EnumVal(name=name, value=0 if first else ed.vals.vec[-1].value)

        def accept(ev: EnumVal) -> None:
            ev.value = self._validate_enum_value(ed, ev.value, 0 if user_value else 1)
            if ed.vals.add(ev.name, ev):
                raise self.error("enum value already exists: " + ev.name)

        self.expect("{")
        if is_union or self.is_("}"):
            accept(create("NONE"))
        while not self.is_("}"):
            pending = create(lx.attribute)
            pending.doc = list(lx.doc_comment)
            full_name = pending.name
            self.expect(TOKEN_IDENT)
            if is_union:
                full_name, _ = self.parse_namespacing(full_name)
                # flatc's default --union-value-namespacing: A.B.T names the member A_B_T
                pending.name = full_name.replace(".", "_")
                if self.is_(":"):
                    self.next()
                    pending.union_type = self.parse_type()
                    if pending.union_type.base_type not in (STRUCT, STRING):
                        raise self.error("union value type may only be table/struct/string")
                else:
                    pending.union_type = Type(STRUCT, self.lookup_create_struct(full_name))
            if self.is_("="):
                self.next()
                user_value = True
                value_text = lx.attribute
                ok, v = num.string_to_number(value_text, ULONG if ed.is_uint64() else LONG)
                pending.value = int(v)
                if not ok:
                    raise self.error(f'enum value does not fit, "{value_text}"')
                self.expect(TOKEN_INTEGER)
            self.parse_meta_data(pending.attributes)
            accept(pending)
            if not self.is_(","):
                break
            self.next()
        self.expect("}")

        if ed.attributes.lookup("bit_flags") is not None:
            width = 8 * size_of(underlying)
            for ev in ed.vals.vec:
                u = num.to_uint64(ev.value)
                if not is_unsigned(underlying) and u == width - 1:
                    raise self.error("underlying type of bit_flags enum must be unsigned")
                if u >= width:
                    raise self.error("bit flag out of range of underlying integral type")
                ev.bit_index = u
                ev.value = 1 << u

        if ed.is_uint64():
            ordered = sorted(ed.vals.vec, key=lambda v: (num.to_uint64(v.value), v.name))
        else:
            ordered = sorted(ed.vals.vec, key=lambda v: (num.to_int64(v.value), v.name))
        # flatc compares every value with the smallest one only (its loop never advances
        # the "previous" iterator), so only duplicates of the minimum are reported.
        for ev in ordered[1:]:
            prev = ordered[0]
            if num.to_uint64(prev.value) == num.to_uint64(ev.value):
                raise self.error(f"all enum values must be unique: {prev.name} and {ev.name} "
                                 f"are both {num.to_int64(ev.value)}")
        # flatc keeps them in this order (SortByValue): its JSON lists bit flags by value and
        # names a value shared by several with the first of them
        ed.vals.vec[:] = ordered

        qualified = self.current_namespace.qualified(ed.name)
        if qualified in self.types:
            raise self.error("datatype already exists: " + qualified)
        self.types.add(qualified)

    def parse_service(self) -> None:
        lx = self.lx
        comment = list(lx.doc_comment)
        self.next()
        service_name = lx.attribute
        self.expect(TOKEN_IDENT)
        svc = ServiceDef(name=service_name, namespace=self.current_namespace,
                         file=self.file_being_parsed, doc=comment)
        if self.services.add(self.current_namespace.qualified(service_name), svc):
            raise self.error("service already exists: " + service_name)
        self.parse_meta_data(svc.attributes)
        self.expect("{")
        while True:
            doc = list(lx.doc_comment)
            rpc_name = lx.attribute
            self.expect(TOKEN_IDENT)
            self.expect("(")
            req = self.parse_type_ident()
            self.expect(")")
            self.expect(":")
            resp = self.parse_type_ident()
            if (req.base_type != STRUCT or req.struct_def is None or req.struct_def.fixed
                    or resp.base_type != STRUCT or resp.struct_def is None
                    or resp.struct_def.fixed):
                raise self.error("rpc request and response types must be tables")
            call = RPCCall(name=rpc_name, request=req.struct_def, response=resp.struct_def,
                           doc=doc)
            if svc.calls.add(rpc_name, call):
                raise self.error("rpc already exists: " + rpc_name)
            self.parse_meta_data(call.attributes)
            self.expect(";")
            if self.is_("}"):
                break
        self.next()

    def set_root_type(self, name: str) -> bool:
        sd = self.structs.lookup(name)
        if sd is None:
            sd = self.structs.lookup(self.current_namespace.qualified(name))
        self.root_struct_def = sd
        return sd is not None

    def unique_namespace(self, ns: Namespace) -> Namespace:
        for existing in self.namespaces:
            if existing.components == ns.components:
                return existing
        self.namespaces.append(ns)
        return ns

    def parse_namespace(self) -> None:
        self.next()
        comps: list[str] = []
        if not self.is_(";"):
            while True:
                comps.append(self.lx.attribute)
                self.expect(TOKEN_IDENT)
                if self.is_("."):
                    self.next()
                else:
                    break
        self.current_namespace = self.unique_namespace(Namespace(tuple(comps)))
        dotted = ".".join(comps)
        if dotted not in self.declared_namespaces:
            self.declared_namespaces.append(dotted)
        self.expect(";")

    # -- files -------------------------------------------------------------------------------

    def start_parse_file(self, source: str, filename: str | None) -> None:
        """flatc ``StartParseFile``, which also clears the messages printed so far: a file is
        started over after each new include it parses, so only the root file's own warnings
        are left at the end (an error keeps those of the file it is in)."""
        self.messages.clear()
        self.warnings.clear()
        self.file_being_parsed = filename or ""
        self.lx = Lexer(source)
        try:
            self.lx.skip_bom()
        except LexError as exc:
            raise self.error(exc.message) from None
        self.next()
        if self.is_(TOKEN_EOF):
            raise self.error("input file is empty")

    @staticmethod
    def _hash_key(filename: str, contents: str | None) -> tuple[str, str | None]:
        return _strip_path(filename), (contents or None)

    def do_parse(self, source: str, filename: str | None, include_name: str | None) -> None:
        """flatc ``DoParse``: after parsing a new include, flatc starts the including file
        over (the include is then skipped as already parsed); a loop here, not recursion."""
        while self._parse_file(source, filename, include_name):
            pass

    def _parse_file(self, source: str, filename: str | None, include_name: str | None) -> bool:
        """One pass over a file; True when it must be started over after an include."""
        source_key: tuple[str, str | None] | None = None
        if filename is not None:
            exists = os.path.exists(filename)
            source_key = self._hash_key(filename, _c_string(source) if exists else None)
            if source_key in self.included_files:
                return False
            self.included_files[source_key] = include_name or ""
        self.current_namespace = self.empty_namespace
        self.start_parse_file(source, filename)
        lx = self.lx
        while True:
            if self.is_ident("native_include"):
                self.next()
                self.native_includes.append(text(lx.attribute))
                self.expect(TOKEN_STRING)
                self.expect(";")
            elif self.is_ident("include"):
                self.next()
                name = lx.attribute.replace("\\", "/")
                self.expect(TOKEN_STRING)
                filepath = ""
                if filename is not None:
                    filepath = _concat_path(_strip_file_name(filename), text(name))
                if not filepath or not os.path.exists(filepath):
                    for path in self.include_paths:
                        filepath = _concat_path(path, text(name))
                        if os.path.exists(filepath):
                            break
                if not filepath:
                    raise self.error("unable to locate include file: " + name)
                contents = _load(filepath)
                key = self._hash_key(filepath, _c_string(contents or ""))
                if key not in self.included_files:
                    if contents is None:
                        raise self.error("unable to load include file: " + name)
                    if filepath not in self.include_order:
                        self.include_order.append(filepath)
                    self.do_parse(contents, filepath, name)
                    self.root_struct_def = None
                    self.file_identifier = self.file_extension = ""
                    self.has_file_identifier = self.has_file_extension = False
                    if source_key is not None:
                        self.included_files.pop(source_key, None)
                    return True
                self.expect(";")
            else:
                break
        try:
            self._parse_declarations()
        except _Stop:
            return False
        self.expect(TOKEN_EOF)
        if self.warnings_as_errors and self.has_warning:
            raise self.error("treating warnings as errors, failed due to above warnings")
        return False

    def _parse_declarations(self) -> None:
        lx = self.lx
        while not self.is_(TOKEN_EOF):
            if self.is_ident("namespace"):
                self.parse_namespace()
            elif self.is_("{"):
                raise _Stop
            elif self.is_ident("enum"):
                self.parse_enum(False)
            elif self.is_ident("union"):
                self.parse_enum(True)
            elif self.is_ident("root_type"):
                self.next()
                root = lx.attribute
                self.expect(TOKEN_IDENT)
                root, _ = self.parse_namespacing(root)
                if not self.set_root_type(root):
                    raise self.error("unknown root type: " + root)
                assert self.root_struct_def is not None
                if self.root_struct_def.fixed:
                    raise self.error("root type must be a table")
                self.expect(";")
            elif self.is_ident("file_identifier"):
                self.next()
                self.file_identifier = lx.attribute
                self.has_file_identifier = True
                self.expect(TOKEN_STRING)
                if len(self.file_identifier) != FILE_IDENTIFIER_LENGTH:
                    raise self.error(f"file_identifier must be exactly {FILE_IDENTIFIER_LENGTH}"
                                     " characters")
                self.expect(";")
            elif self.is_ident("file_extension"):
                self.next()
                self.file_extension = lx.attribute
                self.has_file_extension = True
                self.expect(TOKEN_STRING)
                self.expect(";")
            elif self.is_ident("include"):
                raise self.error("includes must come before declarations")
            elif self.is_ident("attribute"):
                self.next()
                name = lx.attribute
                if self.is_(TOKEN_IDENT):
                    self.next()
                else:
                    self.expect(TOKEN_STRING)
                self.expect(";")
                self.known_attributes[name] = False
            elif self.is_ident("rpc_service"):
                self.parse_service()
            else:
                self.parse_decl()

    def parse_root(self, source: str, filename: str | None) -> ParsedSchema:
        self.do_parse(source, filename, None)
        for sd in self.structs.vec:
            if sd.predecl:
                msg = "type referenced but not defined (check namespace): " + sd.name
                if sd.original_location:
                    msg += ", originally at: " + sd.original_location
                raise self.error(msg)
        if self.is_("{"):
            if self.root_struct_def is None:
                raise self.error("no root type set to parse json with")
            self.inline_json = text(self.lx.src[self.lx.cursor - 1:self.lx.end])
        self._check_struct_cycles()
        return ParsedSchema(
            structs=sorted(self.structs.vec, key=lambda s: s.order),
            enums=sorted(self.enums.vec, key=lambda e: e.order),
            services=list(self.services.vec),
            root=self.root_struct_def,
            file_identifier=text(self.file_identifier) if self.has_file_identifier else None,
            file_extension=text(self.file_extension) if self.has_file_extension else None,
            namespaces=[text(n) for n in self.declared_namespaces],
            declared_attributes=[text(k) for k, builtin in self.known_attributes.items()
                                 if not builtin],
            includes=list(self.include_order),
            native_includes=list(dict.fromkeys(self.native_includes)),
            warnings=self.warnings,
            inline_json=self.inline_json,
            source_file=absolute_path(filename or ""),
        )

    def _check_struct_cycles(self) -> None:
        """Reject a struct that contains itself (flatc 25.12.19 misses this; later flatc
        versions report ``schema has circular struct dependencies``)."""
        state: dict[int, int] = {}

        def visit(sd: StructDef) -> bool:
            if not sd.fixed or state.get(id(sd)) == 2:
                return False
            if state.get(id(sd)) == 1:
                return True
            state[id(sd)] = 1
            for fd in sd.fields.vec:
                t = fd.value.type
                if t.base_type in (STRUCT, ARRAY) and t.struct_def is not None \
                        and visit(t.struct_def):
                    return True
            state[id(sd)] = 2
            return False

        for sd in self.structs.vec:
            if visit(sd):
                name = raw(self.file_being_parsed)
                raise self.error(f"schema has circular struct dependencies: {name}")


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
