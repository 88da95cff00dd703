"""The ``.fbs`` parser's base: its state, messages and tokens, and the parsing of types,
attributes and constant values (flatc's ``ParseType``, ``ParseMetaData``,
``ParseSingleValue`` ...), in flatc's order of operations.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gameserde.flatbuffers import _fbs_numbers as num
from gameserde.flatbuffers._fbs_defs import (
    _IDENT_START,
    _SCALAR_NAMES,
    BUILTIN_ATTRIBUTES,
    MAX_PARSING_DEPTH,
    EnumDef,
    FbsSchemaError,
    Namespace,
    ServiceDef,
    StructDef,
    SymbolTable,
    Type,
    Value,
    _lookup_by_name,
    absolute_path,
    format_message,
    is_float,
    is_integer,
    is_scalar,
    is_series,
    is_unsigned,
    is_vector,
    raw,
    text,
)
from gameserde.flatbuffers._fbs_lexer import (
    TOKEN_EOF,
    TOKEN_FLOAT,
    TOKEN_IDENT,
    TOKEN_INTEGER,
    TOKEN_STRING,
    Lexer,
    token_to_string,
)
from gameserde.flatbuffers._fbs_numbers import (
    ARRAY,
    BOOL,
    DOUBLE,
    FLOAT,
    INT,
    NONE,
    STRING,
    STRUCT,
    UNION,
    USHORT,
    VECTOR,
)

__all__ = ["ValueParser"]

# a token as is_() and expect() take it: a one-character string, or a token class
_TOKEN_OF: dict[int | str, int] = {
    **{c: ord(c) for c in "{}()[]<>,:;=.+-"},
    **{t: t for t in (TOKEN_EOF, TOKEN_STRING, TOKEN_INTEGER, TOKEN_FLOAT, TOKEN_IDENT)}}
# tokens the parsers compare with
RBRACE, LPAREN, COLON, EQUALS, COMMA, DOT = (ord(c) for c in "}(:=,.")


class ValueParser:
    """The parser's state, messages and token helpers, and the parsing of types, attributes
    (metadata) and constant values: what :class:`DeclarationParser` builds on."""

    def __init__(self, include_paths: list[str], *, warnings_as_errors: bool = False,
                 require_explicit_ids: bool = False) -> None:
        self.include_paths = include_paths
        self.warnings_as_errors = warnings_as_errors
        self.require_explicit_ids = require_explicit_ids
        self.lx = Lexer("")
        # the current lexer's next(): its LexError becomes a located error in parse_root
        self.next: Callable[[], None] = self.lx.next
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
        # flatc's files_included_per_file_: each file parsed and the files it includes
        self.file_includes: dict[str, set[str]] = {}
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

    def is_(self, t: int | str) -> bool:
        return self.lx.token == _TOKEN_OF[t]

    def is_ident(self, name: str) -> bool:
        return self.lx.token == TOKEN_IDENT and self.lx.attribute == name

    def token_id(self, t: int) -> str:
        return self.lx.attribute if t == TOKEN_IDENT else token_to_string(t)

    def expect(self, t: int | str) -> None:
        tok = _TOKEN_OF[t]
        if self.lx.token != tok:
            raise self.error(f"expecting: {token_to_string(tok)} instead got: "
                             f"{self.token_id(self.lx.token)}")
        self.next()

    def parse_namespacing(self, ident: str) -> tuple[str, str | None]:
        last: str | None = None
        while self.lx.token == DOT:
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
        structs = self.structs.dict
        sd = structs.get(name)
        if sd is not None and sd.predecl:
            if definition:
                sd.namespace = ns
                self.structs.move(name, qualified)
            return sd
        sd = structs.get(qualified)
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
        in_type = e.type.base_type
        if check_now and lx.token == TOKEN_INTEGER and (in_type == NONE or is_integer(in_type)):
            # the common case of the general path below, in its order: a number for an
            # integer (or an attribute's value, which becomes an INT)
            if in_type == NONE:
                in_type = e.type.base_type = INT
            e.constant = lx.attribute
            self.next()
            e.constant = str(self.atot(e.constant, in_type))
            return
        if check_now and lx.token == TOKEN_FLOAT and is_float(in_type):
            e.constant = lx.attribute
            self.next()
            val = self.atot(e.constant, in_type)
            if isinstance(val, float) and math.isnan(val):
                e.constant = "nan"
            return
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

