"""The ``.fbs`` parser: flatc 25.12.19's ``Parser`` (``src/idl_parser.cpp``) rebuilt in Python.

It keeps flatc's own intermediate structures (``StructDef``, ``FieldDef``, ``EnumDef`` ...)
and its order of operations, because *where* flatc stops and *what* it says depend on them:
every error is raised at the token flatc is looking at when it gives up, with its message.
:mod:`gameserde.flatbuffers.schema` lowers the result into the shared schema model.

The parser is built in layers, one module each: flatc's definitions
(:mod:`~gameserde.flatbuffers._fbs_defs`), types, attributes and constant values
(:class:`~gameserde.flatbuffers._fbs_values.ValueParser`), declarations
(:class:`~gameserde.flatbuffers._fbs_declarations.DeclarationParser`), and here the files:
includes, the top-level statements and the checks on the whole schema (:class:`Parser`).

Only the ``.fbs`` grammar is implemented (no ``--proto`` input, no JSON parsing); the
language-support switches are those of ``flatc -b`` (binary), which accepts every feature.
"""


from __future__ import annotations

import os
from dataclasses import dataclass

from gameserde.flatbuffers._fbs_declarations import DeclarationParser
from gameserde.flatbuffers._fbs_defs import (
    FILE_IDENTIFIER_LENGTH,
    EnumDef,
    ServiceDef,
    StructDef,
    _c_string,
    _concat_path,
    _load,
    _Stop,
    _strip_file_name,
    _strip_path,
    absolute_path,
    raw,
    text,
)
from gameserde.flatbuffers._fbs_lexer import (
    TOKEN_EOF,
    TOKEN_IDENT,
    TOKEN_STRING,
    LexError,
    new_lexer,
)
from gameserde.flatbuffers._fbs_numbers import ARRAY, STRUCT

__all__ = ["ParsedSchema", "Parser"]


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
    file_includes: dict[str, set[str]]
    native_includes: list[str]
    warnings: list[str]
    inline_json: str | None
    source_file: str


class Parser(DeclarationParser):
    """One ``flatc`` parse: the root file and everything it includes."""

    # -- files -------------------------------------------------------------------------------

    def start_parse_file(self, source: str, filename: str | None) -> None:
        """flatc ``StartParseFile``, which also clears the messages printed so far: a file is
        started over after each new include it parses, so only the root file's own warnings
        are left at the end (an error keeps those of the file it is in)."""
        self.messages.clear()
        self.warnings.clear()
        self.file_being_parsed = filename or ""
        self.lx = new_lexer(source)
        self.next = self.lx.next
        self.lx.skip_bom()
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
            self.file_includes[filename] = set()
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
                # flatc opens the name up to a NUL (a C string)
                name = _c_string(lx.attribute.replace("\\", "/"))
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
                if filename is not None:
                    self.file_includes[filename].add(filepath)
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
        try:
            self.do_parse(source, filename, None)
        except LexError as exc:  # located where the lexer stopped, as flatc reports it
            raise self.error(exc.message) from None
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
            file_includes=self.file_includes,
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


