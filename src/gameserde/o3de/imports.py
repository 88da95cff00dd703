"""``$import`` directives resolved as O3DE's ``JsonImportResolver::ResolveImports`` resolves
them (material and material-type files).

A member whose name is ``"$import"`` (or, as the engine compares with ``strncmp`` over the
member name's length, any prefix of it, the empty name included) names a file: a string, or
an object ``{"filename": ..., "patch": merge patch}``. The imported document **replaces the
whole object that holds the directive**; its own imports are resolved (relative to the
imported file), then the patch is applied as a JSON Merge Patch when it is a non-empty
object or array. The engine keeps walking the members the object had before it was replaced
(imports found there are still read, and their errors still count, but what they produce is
dropped), so a later directive in the same object replaces it again. Arrays and objects are
walked in document order.

File names are joined to the directory of the importing file (``@alias@`` names are passed
on as they are, for the loader to resolve). ``loader(path)`` returns the file's text
(``str`` or UTF-8 ``bytes``, read with :func:`gameserde.o3de.text.parse`) or ``None`` when
there is no such file.

:func:`resolve_imports` can record the file's own directives (:class:`ImportDirective`, as
the engine's importer does) and :func:`restore_imports` puts them back with the merge patch
from each imported document (``RestoreImports``). The settings registry's in-order variant
is :mod:`gameserde.o3de.settings`.

Where the engine reports Catastrophic (a file it cannot read or parse, an import already in
the chain) this raises :class:`~gameserde.errors.DecodeError`; so it does for what the
engine lacks or its paths cannot hold: ``max_depth`` imports nested in one chain; a budget of
``max_expansion`` times the input's size (:class:`ImportBudget`: each import counts its
file's whole text again, so files that import each other twice cannot grow the document
exponentially); and a file name that is no path (:func:`import_path`), refused before the
loader sees it.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from typing import Any, NamedTuple

from gameserde._expansion import check_factor, exceeded, expansion_limit
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.o3de.patch import (
    _MISSING,
    LIMIT,
    _copy,
    _count,
    _get,
    _pointer,
    apply_patch,
    create_patch,
)
from gameserde.o3de.text import JsonObject, members, parse

__all__ = ["DEFAULT_MAX_DEPTH", "DEFAULT_MAX_EXPANSION", "EXPANSION_SLACK", "MAX_PATH_LENGTH",
           "ImportDirective", "Loader", "resolve_imports", "restore_imports"]

Loader = Callable[[str], "str | bytes | None"]
DEFAULT_MAX_DEPTH = 32
"""Imports nested in one chain (the file that imports counts as level 0)."""
DEFAULT_MAX_EXPANSION = 16.0
"""``max_expansion``: the text and work imports bring in, as a factor of the input's size."""
EXPANSION_SLACK = 4096
"""What ``max_expansion`` allows beyond the factor (room for a small file's imports)."""
MAX_PATH_LENGTH = 1024
"""``AZ::IO::MaxPathLength``: the bytes of UTF-8 the engine's path type holds."""
WALK_COST = 8
"""What visiting one value again (walking or diffing it) costs against the budget, where a
character of imported text costs 1."""

_DIRECTIVE = "$import"


class ImportBudget:
    """What resolving imports may bring in: at most ``max_expansion`` times the input's size
    plus :data:`EXPANSION_SLACK`. The input is the root document (the length of its compact
    JSON text) and every distinct file text the loader gives (once, however many paths name
    it); what is spent is each import's whole text again (plus 1) and the values visited
    again (:data:`WALK_COST` each)."""

    def __init__(self, document: Any, max_expansion: float | None) -> None:
        check_factor(max_expansion)
        self.factor = max_expansion
        self.size = len(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
        self.spent = 0
        self.texts: dict[str | bytes, str | bytes] = {}

    def read(self, text: str | bytes) -> str | bytes:
        """The text a loader gave, counted in the input's size the first time it is seen
        (the same content under another path is the one kept)."""
        known = self.texts.get(text)
        if known is not None:
            return known
        self.texts[text] = text
        self.size += len(text)
        return text

    def left(self) -> int:
        """The units still allowed."""
        return max(expansion_limit(self.size, self.factor, EXPANSION_SLACK) - self.spent, 0)

    def spend(self, amount: int) -> str | None:
        """Count ``amount`` units; past the budget, the sentence of the error."""
        self.spent += amount
        limit = expansion_limit(self.size, self.factor, EXPANSION_SLACK)
        if self.spent <= limit:
            return None
        return exceeded("The imports would bring in more text and work than the budget allows",
                        limit, self.size, self.factor)


def import_path(name: str, importing: str) -> str:
    """The path a directive's non-empty file ``name`` stands for: joined to the directory of
    the ``importing`` file (``@alias@`` names as they are). Raises :class:`ValueError` with
    the sentence of the refusal for a path the engine's ``AZ::IO::FixedMaxPath`` cannot hold
    and a loader cannot open: one holding a NUL (which ends the engine's C string early), a
    lone surrogate (no UTF-8), or more than :data:`MAX_PATH_LENGTH` bytes."""
    target = name if name.startswith("@") else posixpath.join(posixpath.dirname(importing),
                                                              name)
    shown = target if len(target) <= 80 else target[:80] + "..."
    if "\x00" in target:
        raise ValueError(f"The import path {shown!r} holds a NUL character, which no path "
                         "holds.")
    try:
        length = len(target.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError(f"The import path {shown!r} holds a lone surrogate, which no UTF-8 "
                         "path holds.") from None
    if length > MAX_PATH_LENGTH:
        raise ValueError(f"The import path {shown!r} is {length} bytes long, longer than the "
                         f"engine's paths ({MAX_PATH_LENGTH} bytes).")
    return target


class ImportDirective(NamedTuple):
    """A directive of the resolved file itself (not of the files it imports), as the
    engine's importer records it for ``RestoreImports``: the JSON Pointer of the object that
    held it and the file name as written."""

    pointer: str
    filename: str


def resolve_imports(document: Any, path: str, loader: Loader, *,
                    max_depth: int = DEFAULT_MAX_DEPTH,
                    max_expansion: float | None = DEFAULT_MAX_EXPANSION,
                    directives: list[ImportDirective] | None = None) -> Any:
    """The document (read from ``path``) with its ``$import`` directives resolved, as a new
    value (the input is not changed). ``directives``, when given, receives the file's own
    directives (for :func:`restore_imports`). Raises :class:`~gameserde.errors.DecodeError`
    for a file the loader lacks or that is not valid JSON, an import cycle, a directive that
    names no file or a path the engine cannot hold, more than ``max_depth`` nested imports,
    or imports bringing in more than ``max_expansion`` times the input's size
    (:class:`ImportBudget`; ``None``: no limit)."""
    with recursion_room(4 * LIMIT + 64):
        copied = _copy(document, 0)
        resolver = _Resolver(loader, max_depth, ImportBudget(copied, max_expansion),
                             directives)
        return resolver.walk(copied, [path], "", 0)


def restore_imports(document: Any, directives: list[ImportDirective], path: str,
                    loader: Loader, *, max_depth: int = DEFAULT_MAX_DEPTH,
                    max_expansion: float | None = DEFAULT_MAX_EXPANSION) -> Any:
    """``JsonImportResolver::RestoreImports``: a copy of the resolved ``document`` with each
    directive put back where :func:`resolve_imports` found it, in the order found. The
    object there becomes ``{"$import": filename}``, or ``{"$import": {"filename": ...,
    "patch": ...}}`` with the JSON Merge Patch from the imported document (its own imports
    resolved) to the object when the patch is a non-empty object or array. A directive whose
    place no longer exists is left out (the engine would read through a null pointer).
    Raises :class:`~gameserde.errors.DecodeError` as :func:`resolve_imports` does; the
    budget is one for all the directives (the input is the document and the directives), and
    each diff spends the values it compares."""
    with recursion_room(4 * LIMIT + 64):
        box = [_copy(document, 0)]
        budget = ImportBudget([box[0], directives], max_expansion)
        resolver = _Resolver(loader, max_depth, budget, None)
        for pointer_text, filename in directives:
            pointer = _pointer(pointer_text)
            if pointer is None or _get(box[0], pointer, len(pointer.names)) is _MISSING:
                continue
            current = _get(box[0], pointer, len(pointer.names))
            imported = resolver.walk({_DIRECTIVE: filename}, [path], pointer_text, 0)
            room = budget.left() // WALK_COST
            resolver.spend(WALK_COST * (_count(imported, room) + _count(current, room)),
                           pointer_text, [path])
            patch = create_patch(imported, current, "JsonMergePatch").value
            restored: dict[str, Any] = {_DIRECTIVE: filename}
            if isinstance(patch, dict | list) and patch:
                restored = {_DIRECTIVE: {"filename": filename, "patch": patch}}
            if not pointer.names:
                box[0] = restored
                continue
            parent = _get(box[0], pointer, len(pointer.names) - 1)
            if isinstance(parent, list):
                parent[pointer.indexes[-1]] = restored
            else:
                _put(parent, _first_index(parent, pointer.names[-1]), pointer.names[-1],
                     restored)
        return box[0]


def _first_index(obj: dict[str, Any], name: str) -> int:
    if isinstance(obj, JsonObject):
        return next(n for n, (member, _) in enumerate(obj.pairs) if member == name)
    return 0


class _Resolver:
    def __init__(self, loader: Loader, max_depth: int, budget: ImportBudget,
                 directives: list[ImportDirective] | None) -> None:
        self.loader = loader
        self.max_depth = max_depth
        self.budget = budget
        self.texts: dict[str, str | bytes] = {}
        self.directives = directives
        self.seen: set[ImportDirective] = set()

    def fail(self, message: str, pointer: str, chain: list[str]) -> DecodeError:
        where = f" (in {chain[-1]!r} at {pointer or '/'})"
        return DecodeError(message + where, path=pointer or "$", format="o3de")

    def spend(self, amount: int, pointer: str, chain: list[str]) -> None:
        refused = self.budget.spend(amount)
        if refused is not None:
            raise self.fail(refused, pointer, chain)

    def walk(self, value: Any, chain: list[str], pointer: str, depth: int) -> Any:
        """``ResolveImports`` on one value: its replacement (or itself, changed in place)."""
        if depth > LIMIT:
            raise self.fail(f"Arrays and objects nest deeper than {LIMIT} levels.", pointer,
                            chain)
        if isinstance(value, list):
            for n, item in enumerate(value):
                if isinstance(item, dict | list):
                    value[n] = self.walk(item, chain, f"{pointer}/{n}", depth + 1)
            return value
        if not isinstance(value, dict):
            return value
        current = value
        for n, (name, member) in enumerate(list(members(value))):
            child = f"{pointer}/{name.replace('~', '~0').replace('/', '~1')}"
            if _DIRECTIVE.startswith(name):
                current = self.load(member, chain, child, depth)
                self.record(pointer, member, chain)
            elif isinstance(member, dict | list):
                resolved = self.walk(member, chain, child, depth + 1)
                if current is value:
                    _put(value, n, name, resolved)
        return current

    def record(self, pointer: str, directive: Any, chain: list[str]) -> None:
        """``AddImportDirective`` for the directives of the top file."""
        if self.directives is None or len(chain) != 1:
            return
        name = directive.get("filename") if isinstance(directive, dict) else directive
        found = ImportDirective(pointer, str(name))
        if found not in self.seen:
            self.seen.add(found)
            self.directives.append(found)

    def load(self, directive: Any, chain: list[str], pointer: str, depth: int) -> Any:
        """One directive: the imported document with its own imports and the patch."""
        name: Any = directive
        patch: Any = None
        if isinstance(directive, dict):
            name = directive.get("filename")
            patch = directive.get("patch")
        if not isinstance(name, str) or not name:
            raise self.fail("The $import directive names no file.", pointer, chain)
        try:
            target = import_path(name, chain[-1])
        except ValueError as e:
            raise self.fail(str(e), pointer, chain) from None
        if target in chain:
            raise self.fail(f"{target!r} was already imported in this chain, a cyclic "
                            f"dependency.", pointer, chain)
        if len(chain) > self.max_depth:
            raise self.fail(f"Imports nest deeper than {self.max_depth} files.", pointer,
                            chain)
        text = self.texts.get(target)
        if text is None:
            text = self.loader(target)
            if text is None:
                raise self.fail(f"Failed to import file {target!r}: there is no such file.",
                                pointer, chain)
            text = self.texts[target] = self.budget.read(text)
        self.spend(len(text) + 1, pointer, chain)
        try:
            imported = parse(text)
        except DecodeError as e:
            raise self.fail(f"Failed to import file {target!r}: {e.message}", pointer,
                            chain) from None
        imported = self.walk(imported, [*chain, target], "", depth)
        if (isinstance(patch, dict) and patch) or (isinstance(patch, list) and patch):
            imported = apply_patch(imported, patch, "JsonMergePatch").value
        return imported


def _put(obj: dict[str, Any], index: int, name: str, value: Any) -> None:
    """Set the ``index``-th member (called ``name``) of an object."""
    if isinstance(obj, JsonObject):
        obj.pairs[index] = (name, value)
        if next(n for n, (member, _) in enumerate(obj.pairs) if member == name) == index:
            dict.__setitem__(obj, name, value)
        return
    obj[name] = value
