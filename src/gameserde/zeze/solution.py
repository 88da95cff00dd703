"""Solution XML → :class:`~gameserde.zeze.schema.ZezeSchema` (spec §4), as Zeze's Gen reads it.

Reading happens in two passes, like Gen's: every file (the root and its ``<import>``\\ s) is
read into declarations first (:class:`Decls`), then types are resolved and lowered into the
shared model (:mod:`gameserde.zeze._solution_types`). Every error is a :class:`SchemaError`
whose message starts ``FILE:LINE:``.

Rules kept from Gen: ``<import file=...>`` is relative to the importing file and each file is
read once (import cycles are harmless); module ids are positive, unique within their solution
and inside ``ModuleIdAllowRanges`` when the solution gives it; bean, protocol and table names
are unique ignoring case (as Gen's named objects are); bean TypeIds are unique and never 0
(EmptyBean's); variable ids are 1..4095 and unique per bean, variable names unique per bean;
protocol ids are signed 32-bit, never 0, unique per module, ``hash32(full name)`` when not
given. ``<external bean="Full.Name"/>`` and ``<externalkey beankey="Full.Name"/>`` (in a
solution or a module) declare a bean or beankey by its full name as written, whose class is
written by hand (Gen's ``Types.External``: a bean without variables, for which it generates
nothing): it is a type of the schema whose fields the solution does not give. Gen's
code-generation attributes (``handle``, ``UseData``, ``comment`` ...) are ignored, as are
``<project>``, ``<component>``, ``<servlet>`` and ``<protocolref>``.

Choices where Gen is silent or lax: an ``<import>`` that cannot be read, or whose root element
is not ``<solution>``, is an error at its line; ``ModuleIdAllowRanges`` is only checked when
present; inheritance chains are at most
:data:`~gameserde.zeze._solution_types.MAX_BASE_DEPTH` deep.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from gameserde.errors import SchemaError
from gameserde.zeze import _xml
from gameserde.zeze._xml import Node
from gameserde.zeze.names import hash32, hash64
from gameserde.zeze.schema import ZezeSchema

MAX_NAME = 1024
"""The longest full name accepted (Gen has no limit, but every name becomes a path of the
generated sources); it bounds the model's size by a multiple of the text's."""

MAX_VARIABLE_ID = 4095
"""Gen's ``ConfBean.MaxVariableId``."""

_IGNORED_IN_SOLUTION = frozenset({"project", "component"})
_IGNORED_IN_MODULE = frozenset({"protocolref", "servlet", "servletstream"})
_EXTERNALS = {"external": ("bean", "bean"), "externalkey": ("beankey", "beankey")}
"""The external declarations: tag -> (the kind declared, the attribute naming it)."""


@dataclass
class Var:
    """A ``<variable>`` as written."""

    id: int
    name: str
    type: str
    key: str
    value: str
    default: str | None
    transient: bool
    beans: list[tuple[str, int]]  # the <value bean="..."/> children and their lines
    line: int


@dataclass
class Bean:
    """A ``<bean>`` or ``<beankey>`` as written (``base`` already made a full name)."""

    name: str
    kind: str
    space: str
    base: str | None
    type_id: int
    extendable: bool
    file: str
    line: int
    vars: list[Var] = field(default_factory=list)
    external: bool = False
    """Declared by ``<external>``/``<externalkey>``: its fields are not in the solution."""


@dataclass
class Proto:
    """A ``<protocol>`` or ``<rpc>`` as written."""

    name: str
    kind: str
    space: str
    module_id: int
    id: int
    argument: str
    result: str
    file: str
    line: int


@dataclass
class Decls:
    """Everything the files declare, in declaration order."""

    beans: dict[str, Bean] = field(default_factory=dict)
    protocols: dict[str, Proto] = field(default_factory=dict)
    modules: dict[str, int] = field(default_factory=dict)
    enums: dict[str, int | str] = field(default_factory=dict)
    tables: dict[str, dict[str, str]] = field(default_factory=dict)
    solutions: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def fail(file: str, line: int, message: str) -> SchemaError:
    return SchemaError(f"{file}:{line}: {message}")


def _int32(text: str, file: str, line: int, what: str, bits: int = 32) -> int:
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise fail(file, line, f"{what} must be an integer, not {text!r}") from None
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise fail(file, line, f"{what} {value} does not fit in a signed {bits}-bit integer")
    return value


def _name(node: Node, file: str, what: str) -> str:
    name = node.attrs.get("name", "").strip()
    if not name.isidentifier():
        shown = f"the name {name!r}" if name else "an empty name"
        raise fail(file, node.line, f"{what} has {shown}; names are identifiers "
                   "(letters, digits and '_', no '.')")
    return name


def _full(parent: str, node: Node, file: str, what: str) -> str:
    """``parent.name`` of ``node``, at most :data:`MAX_NAME` characters long."""
    full = f"{parent}.{_name(node, file, what)}"
    if len(full) > MAX_NAME:
        raise fail(file, node.line, f"{what} has a full name longer than {MAX_NAME} "
                   f"characters ({full[:40]}...)")
    return full


def _ranges(text: str, file: str, line: int) -> list[tuple[int, int]]:
    """``ModuleIdAllowRanges="1-100,200"`` as inclusive (first, last) pairs."""
    ranges = []
    for part in text.split(","):
        if not part.strip():
            continue
        bounds = part.split("-")
        if len(bounds) > 2:
            raise fail(file, line, f"ModuleIdAllowRanges has a bad range {part!r}")
        first = _int32(bounds[0], file, line, "a ModuleIdAllowRanges bound")
        last = _int32(bounds[-1], file, line, "a ModuleIdAllowRanges bound")
        if first < 0 or last < first:
            raise fail(file, line, f"ModuleIdAllowRanges has an empty range {part!r}")
        ranges.append((first, last))
    return ranges


class _Reader:
    """Pass one: files → :class:`Decls`."""

    def __init__(self) -> None:
        self.decls = Decls()
        self.seen_files: set[str] = set()
        self.lower_names: dict[str, str] = {}  # case-folded full name -> what holds it
        self.type_ids: dict[int, str] = {0: "EmptyBean"}
        self.module_paths: set[str] = set()

    def claim(self, full: str, what: str, file: str, line: int) -> None:
        key = full.lower()
        if key in self.lower_names:
            raise fail(file, line, f"{what} {full} clashes with {self.lower_names[key]} "
                       "(names are compared ignoring case)")
        self.lower_names[key] = f"{what} {full}"

    def import_file(self, target: str, file: str, line: int) -> None:
        """``<import file="target"/>`` at ``file:line``."""
        path = os.path.join(os.path.dirname(file), target)
        real = os.path.realpath(path)
        if real in self.seen_files:
            return
        shown = os.path.normpath(path)
        try:
            data = read_bytes(path)
        except OSError as e:
            where = "" if shown == target else f" ({shown})"
            raise fail(file, line, f"the imported file {target}{where} cannot be read: "
                       f"{_reason(e)}") from None
        self.read_text(data, path, real, f"{file}:{line}")

    def read_text(self, data: str | bytes, file: str, real: str | None,
                  imported_at: str | None = None) -> None:
        if real is not None:
            self.seen_files.add(real)
        self.decls.files.append(file)
        root = _xml.parse(data, file)
        if root.tag != "solution":
            if imported_at is not None:
                raise SchemaError(f"{imported_at}: the imported file {os.path.normpath(file)} "
                                  f"is not a solution file: its root element (line "
                                  f"{root.line}) is <{root.tag}>, not <solution>")
            raise fail(file, root.line, f"the root element is <{root.tag}>, not <solution>, "
                       "so this is not a solution file")
        self.solution(root, file)

    def solution(self, node: Node, file: str) -> None:
        name = _name(node, file, "the solution")
        self.decls.solutions.append(name)
        ranges_text = node.attrs.get("ModuleIdAllowRanges")
        ranges = None if ranges_text is None else _ranges(ranges_text, file, node.line)
        module_ids: dict[int, str] = {}
        for child in node.children:
            if child.tag == "import":
                target = child.attrs.get("file", "").strip()
                if not target:
                    raise fail(file, child.line, "<import> needs a file= attribute")
                self.import_file(target, file, child.line)
            elif child.tag == "module":
                self.module(child, name, file, ranges, module_ids)
            elif child.tag in ("bean", "beankey"):
                self.bean(child, name, file)
            elif child.tag in _EXTERNALS:
                self.external(child, name, file)
            elif child.tag not in _IGNORED_IN_SOLUTION:
                raise fail(file, child.line, f"<{child.tag}> is not allowed in a <solution>")

    def module(self, node: Node, parent: str, file: str,
               ranges: list[tuple[int, int]] | None, module_ids: dict[int, str]) -> None:
        path = _full(parent, node, file, "a module")
        if "id" not in node.attrs:
            raise fail(file, node.line, f"module {path} needs an id= attribute")
        module_id = _int32(node.attrs["id"], file, node.line, f"module {path}: the id")
        if module_id <= 0:
            raise fail(file, node.line, f"module {path}: the id must be positive, "
                       f"not {module_id}")
        if ranges is not None and not any(a <= module_id <= b for a, b in ranges):
            raise fail(file, node.line, f"module {path}: the id {module_id} is outside the "
                       "solution's ModuleIdAllowRanges")
        if module_id in module_ids:
            raise fail(file, node.line, f"module {path}: the id {module_id} is already used "
                       f"by module {module_ids[module_id]}")
        module_ids[module_id] = path
        if path.lower() in self.module_paths:
            raise fail(file, node.line, f"module {path} is declared twice (module names are "
                       "compared ignoring case)")
        self.module_paths.add(path.lower())
        self.decls.modules[path] = module_id
        protocol_ids: dict[int, str] = {}
        for child in node.children:
            if child.tag == "module":
                self.module(child, path, file, ranges, module_ids)
            elif child.tag in ("bean", "beankey"):
                self.bean(child, path, file)
            elif child.tag in ("protocol", "rpc"):
                self.protocol(child, path, module_id, file, protocol_ids)
            elif child.tag == "enum":
                self.enum(child, path, file)
            elif child.tag == "table":
                full = _full(path, child, file, "a table")
                self.claim(full, "table", file, child.line)
                self.decls.tables[full] = dict(child.attrs)
            elif child.tag in _EXTERNALS:
                self.external(child, path, file)
            elif child.tag not in _IGNORED_IN_MODULE:
                raise fail(file, child.line, f"<{child.tag}> is not allowed in a <module>")

    def enum(self, node: Node, owner: str, file: str) -> None:
        full = _full(owner, node, file, "an enum")
        if full in self.decls.enums:
            raise fail(file, node.line, f"enum {full} is declared twice")
        text = node.attrs.get("value", "").strip()
        try:
            value: int | str = int(text, 0)
        except ValueError:
            value = text
        self.decls.enums[full] = value

    def external(self, node: Node, space: str, file: str) -> None:
        """``<external bean="Full.Name"/>`` or ``<externalkey beankey="Full.Name"/>``."""
        kind, attr = _EXTERNALS[node.tag]
        full = node.attrs.get(attr, "").strip()
        parts = full.split(".")
        if not all(part.isidentifier() for part in parts) or len(full) > MAX_NAME:
            shown = f"the name {full!r}" if full else "no name"
            raise fail(file, node.line, f"<{node.tag}> has {shown}; its {attr}= attribute "
                       "is the full name of a hand-written class (identifiers joined by '.')")
        if node.children:
            raise fail(file, node.children[0].line, f"<{node.children[0].tag}> is not "
                       f"allowed in an <{node.tag}>")
        self.claim(full, f"external {kind}", file, node.line)
        self.decls.beans[full] = Bean(full, kind, space, None, 0, False, file, node.line,
                                      external=True)

    def bean(self, node: Node, space: str, file: str) -> None:
        kind = node.tag
        full = _full(space, node, file, "a " + kind)
        self.claim(full, kind, file, node.line)
        if "TypeId" in node.attrs:
            type_id = _int32(node.attrs["TypeId"], file, node.line, f"{kind} {full}: TypeId")
        else:
            type_id = hash64(full)
        if kind == "bean":
            if type_id in self.type_ids:
                raise fail(file, node.line, f"bean {full}: its TypeId {type_id} is already "
                           f"the TypeId of {self.type_ids[type_id]}")
            self.type_ids[type_id] = full
        base = node.attrs.get("base", "").strip() if kind == "bean" else ""
        if base and "." not in base:
            base = f"{space}.{base}"
        bean = Bean(full, kind, space, base or None, type_id,
                    node.attrs.get("extendable") == "true", file, node.line)
        names: set[str] = set()
        ids: set[int] = set()
        for child in node.children:
            if child.tag in ("variable", "var"):
                var = self.variable(child, full, file)
                if var.id in ids:
                    raise fail(file, child.line, f"{kind} {full}: variable id {var.id} is "
                               "used twice")
                if var.name in names:
                    raise fail(file, child.line, f"{kind} {full}: variable name {var.name} "
                               "is used twice")
                ids.add(var.id)
                names.add(var.name)
                bean.vars.append(var)
            elif child.tag == "enum":
                self.enum(child, full, file)
            else:
                raise fail(file, child.line, f"<{child.tag}> is not allowed in a <{kind}>")
        self.decls.beans[full] = bean

    def variable(self, node: Node, bean: str, file: str) -> Var:
        name = _name(node, file, f"a variable of {bean}")
        where = f"{bean}.{name}"
        if "id" not in node.attrs:
            raise fail(file, node.line, f"variable {where} needs an id= attribute")
        var_id = _int32(node.attrs["id"], file, node.line, f"variable {where}: the id")
        if not 1 <= var_id <= MAX_VARIABLE_ID:
            raise fail(file, node.line, f"variable {where}: the id {var_id} is outside "
                       f"1..{MAX_VARIABLE_ID}")
        type_text = node.attrs.get("type", "").strip()
        if not type_text:
            raise fail(file, node.line, f"variable {where} needs a type= attribute")
        beans = []
        for child in node.children:
            if child.tag == "value":
                beans.append((child.attrs.get("bean", "").strip(), child.line))
            elif child.tag not in ("GetSpecialTypeIdFromBean", "CreateBeanFromSpecialTypeId",
                                   "CreateDataFromSpecialTypeId"):
                raise fail(file, child.line, f"<{child.tag}> is not allowed in a <variable>")
        return Var(var_id, name, type_text, node.attrs.get("key", "").strip(),
                   node.attrs.get("value", "").strip(), node.attrs.get("default"),
                   node.attrs.get("transient") == "true", beans, node.line)

    def protocol(self, node: Node, space: str, module_id: int, file: str,
                 protocol_ids: dict[int, str]) -> None:
        kind = node.tag
        full = _full(space, node, file, "a " + kind)
        self.claim(full, kind, file, node.line)
        if "id" in node.attrs:
            pid = _int32(node.attrs["id"], file, node.line, f"{kind} {full}: the id")
        else:
            pid = hash32(full)
        if pid == 0:
            raise fail(file, node.line, f"{kind} {full}: the id must not be 0")
        if pid in protocol_ids:
            raise fail(file, node.line, f"{kind} {full}: the id {pid} is already used by "
                       f"{protocol_ids[pid]}")
        protocol_ids[pid] = full
        for child in node.children:
            if child.tag == "enum":
                self.enum(child, full, file)
            else:
                raise fail(file, child.line, f"<{child.tag}> is not allowed in a <{kind}>")
        self.decls.protocols[full] = Proto(
            full, kind, space, module_id, pid, node.attrs.get("argument", "").strip(),
            node.attrs.get("result", "").strip() if kind == "rpc" else "", file, node.line)


def read_bytes(path: str) -> bytes:
    """The regular file ``path``; :class:`OSError` for anything else (a device, FIFO or
    folder included) or a file that cannot be read."""
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise OSError("not a regular file")
            return fh.read()
    except ValueError as e:  # a NUL in the path
        raise OSError(str(e)) from None


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _is_text(source: str) -> bool:
    """A ``str`` given to :func:`load_solution` is XML text when it holds a newline or
    ``<`` (every solution does); anything else is a path."""
    return "\n" in source or "<" in source


def read_decls(source: str | bytes | os.PathLike[str], *, filename: str | None = None) -> Decls:
    """Pass one alone: the declarations of ``source`` and the files it imports."""
    reader = _Reader()
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not _is_text(source)):
        path = os.fspath(source)
        hint = ("" if isinstance(source, os.PathLike) else
                "; a str without a newline or '<' is a path: give XML text as bytes")
        try:
            data = read_bytes(path)
        except OSError as e:
            raise fail(path, 0, f"cannot read the solution file {path} ({_reason(e)})"
                       f"{hint}") from None
        reader.read_text(data, filename or path, os.path.realpath(path))
    else:
        name = filename or "<string>"
        reader.read_text(source, name, os.path.realpath(filename) if filename else None)
    return reader.decls


def load_solution(source: str | bytes | os.PathLike[str], *,
                  filename: str | None = None) -> ZezeSchema:
    """Read a solution (text or path; see :func:`gameserde.zeze.schema.load_schema`)."""
    from gameserde.zeze._solution_types import lower

    return lower(read_decls(source, filename=filename))
