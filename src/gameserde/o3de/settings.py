"""The settings registry's way with ``$import`` and settings files (O3DE's
``JsonImportResolver::ResolveImportsInOrder`` and ``SettingsRegistryImpl::MergeSettings``).

:func:`resolve_imports_in_order` rebuilds every object and array member by member, in
order; an object member named exactly ``$import`` (a file name, or ``{"filename": ...,
"patch": merge patch}``) reads the file, applies the directive's patch to it, and merges it
into what was built so far: members **before** the directive are overridden by the file,
members **after** it override the file. A file ending ``.jsonpatch`` or ``.setregpatch``
is applied as a JSON Patch, any other as a JSON Merge Patch; then the merged object is
walked again (relative to the imported file) for the directives the file brought. A member
after the directive replaces the member of that name the file brought (objects are not
merged), and the engine's quirks are kept: an array member whose name already exists
leaves a second, empty array member behind; ``null`` members are copied, not removed.

:func:`merge_settings` merges a list of settings files into one document, in order, as
``MergeSettingsFile`` does at the registry's root: imports resolved in order first, then
``.setregpatch`` files applied as JSON Patch and others as JSON Merge Patch. Files are read
with the settings registry's parser (comments, trailing commas, text after the root value
ignored, no byte-order mark skipped).

Limits the engine lacks (a :class:`~gameserde.errors.DecodeError`): ``max_depth`` nested
imports; a file name that is no path (:func:`~gameserde.o3de.imports.import_path`), refused
before the loader sees it; and the budget of ``max_expansion`` times the input's size
(:class:`~gameserde.o3de.imports.ImportBudget`: the input is the document, or the settings
files, and each distinct file the loader gives; each import spends its text, and each walk
of a merged object :data:`~gameserde.o3de.imports.WALK_COST` for every value it visits
again: the engine walks the merged object again after every import).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.o3de.imports import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_EXPANSION,
    WALK_COST,
    ImportBudget,
    Loader,
    import_path,
)
from gameserde.o3de.patch import LIMIT, Reports, _copy, _count, patch_in_place
from gameserde.o3de.result import Outcomes, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.text import JsonObject, members, parse

__all__ = ["merge_settings", "resolve_imports_in_order"]

_DIRECTIVE = "$import"
_PATCH_EXTENSIONS = (".jsonpatch", ".setregpatch")
_KEEP = object()
_SUCCESS = ResultCode.of(Tasks.Import, Outcomes.Success)


def resolve_imports_in_order(document: Any, path: str, loader: Loader, *,
                             reporter: Reporter | None = None,
                             max_depth: int = DEFAULT_MAX_DEPTH,
                             max_expansion: float | None = DEFAULT_MAX_EXPANSION
                             ) -> tuple[Any, Result]:
    """``ResolveImportsInOrder`` on a document read from ``path``: ``(resolved document,
    Result)``. Where the engine fails (a file the loader lacks or cannot parse, an import
    already in the chain: Catastrophic, task Import) the document is ``None``, as the
    engine leaves its target unwritten. ``reporter(message, code, path) -> code`` sees every
    report, the merges' too. Raises :class:`~gameserde.errors.DecodeError` past
    ``max_depth`` or the ``max_expansion`` budget (``None``: no limit), for a file name that
    is no path, and for values that are not JSON or nest too deeply."""
    reports = Reports(reporter)
    with recursion_room(6 * LIMIT + 4 * max_depth + 64):
        copied = _copy(document, 0)
        walker = _InOrder(loader, reports, max_depth, ImportBudget(copied, max_expansion))
        value, code = walker.walk(copied, [path], 0)
    return (None if value is _KEEP else value), reports.result(code)


def merge_settings(files: Iterable[str | tuple[str, str | bytes]],
                   loader: Loader | None = None, *, document: Any = None,
                   reporter: Reporter | None = None, max_depth: int = DEFAULT_MAX_DEPTH,
                   max_expansion: float | None = DEFAULT_MAX_EXPANSION) -> tuple[Any, Result]:
    """Merge settings files in order, as the settings registry's ``MergeSettingsFile`` does
    at its root: ``(settings, Result)``. ``files`` are paths (read with ``loader``) or
    ``(path, text)`` pairs; ``$import`` names are read with ``loader`` (relative to the
    importing file). The settings start as a copy of ``document`` (default ``{}``). A file
    that cannot be read or parsed, or a merge-patch file whose root is not an object, is
    left out and reported (Catastrophic, or Unsupported for the root); a JSON Patch that
    fails halfway keeps what it did before failing, and a file whose imports fail merges
    ``null`` (the settings become ``null``), both as the engine does. Raises
    :class:`~gameserde.errors.DecodeError` as :func:`resolve_imports_in_order` does (the
    input is ``document``, the names of ``files`` and every distinct text read; each file
    spends its text, and its merge the members of the settings it merges into)."""
    reports = Reports(reporter)
    settings: Any = {} if document is None else _copy(document, 0)
    code = ResultCode.task_only(Tasks.Merge)
    items = list(files)
    names = [item[0] if isinstance(item, tuple) else item for item in items]
    with recursion_room(6 * LIMIT + 4 * max_depth + 64):
        walker = _InOrder(loader or _no_file, reports, max_depth,
                          ImportBudget([settings, names], max_expansion))
        for name, item in zip(names, items, strict=True):
            text = item[1] if isinstance(item, tuple) else _read(loader, name)
            if text is not None:
                text = walker.budget.read(text)
                walker.spend(len(text) + 1)
            settings, merged = _merge_file(settings, name, text, walker)
            code = code.combine(merged)
    return settings, reports.result(code)


def _read(loader: Loader | None, path: str) -> str | bytes | None:
    if loader is None:
        raise DecodeError(f"{path!r} is a path, and merge_settings was given no loader.",
                          format="o3de")
    return loader(path)


def _merge_file(settings: Any, name: str, text: str | bytes | None, walker: _InOrder
                ) -> tuple[Any, ResultCode]:
    """``MergeSettingsFileInternal``: the settings and this file's code."""
    reports = walker.reports
    if text is None or not text:
        why = "there is no such file" if text is None else "it is empty"
        return settings, reports(f'Unable to merge registry file "{name[:256]}": {why}.',
                                 Tasks.Merge, Outcomes.Catastrophic, "")
    try:
        patch = read_settings_text(text)
    except DecodeError as e:
        return settings, reports(f'Unable to parse registry file "{name[:256]}": {e.message}',
                                 Tasks.Merge, Outcomes.Catastrophic, "")
    kind = "JsonPatch" if name.endswith(".setregpatch") else "JsonMergePatch"
    if kind == "JsonMergePatch" and not isinstance(patch, Mapping):
        return settings, reports(
            f'Cannot merge registry file "{name[:256]}": its root is not a JSON object, and '
            "a JSON Merge Patch of it would overwrite every setting.", Tasks.Merge,
            Outcomes.Unsupported, "")
    resolved, imported = walker.walk(patch, [name], 0)
    code = ResultCode.task_only(Tasks.Merge)
    if not imported.completed:
        code = imported
    walker.spend(WALK_COST * _merge_cost(settings, resolved, kind))
    settings, merged = patch_in_place(settings, None if resolved is _KEEP else resolved, kind,
                                      reports)
    return settings, code.combine(merged)


def _merge_cost(target: Any, patch: Any, kind: str) -> int:
    """The members a merge of ``patch`` into ``target`` goes through (a JSON Merge Patch
    rebuilds every object it merges into) or, for a JSON Patch, its operations."""
    if kind == "JsonPatch":
        return len(patch) if isinstance(patch, list) else 1
    total = 1
    pairs = [(target, patch)]
    while pairs:
        into, change = pairs.pop()
        if not isinstance(change, Mapping):
            continue
        given = list(members(change))
        total += len(given)
        if isinstance(into, Mapping):
            total += len(into.pairs) if isinstance(into, JsonObject) else len(into)
            pairs.extend((into.get(name), value) for name, value in given)
    return total


def _no_file(path: str) -> None:
    return None


def read_settings_text(text: str | bytes) -> Any:
    """A settings file's text as the settings registry parses it (``kParseCommentsFlag |
    kParseTrailingCommasFlag | kParseStopWhenDoneFlag``, in place: anything after the root
    value is ignored, a byte-order mark is not skipped)."""
    return parse(text, trailing_commas=True, stop_when_done=True, skip_bom=False)


class _Object:
    """An object being built: members in order, each name's first member found in O(1)
    (rapidjson's ``AddMember`` appends even when the name exists, ``FindMember`` finds the
    first)."""

    __slots__ = ("first", "pairs")

    def __init__(self, pairs: Iterable[tuple[str, Any]] = ()) -> None:
        self.pairs: list[list[Any]] = []
        self.first: dict[str, int] = {}
        for name, value in pairs:
            self.add(name, value)

    def add(self, name: str, value: Any) -> int:
        self.first.setdefault(name, len(self.pairs))
        self.pairs.append([name, value])
        return self.first[name]

    def value(self) -> dict[str, Any]:
        pairs = [(name, value) for name, value in self.pairs]
        return JsonObject(pairs) if len(self.first) != len(pairs) else dict(pairs)


class _InOrder:
    def __init__(self, loader: Loader, reports: Reports, max_depth: int, budget: ImportBudget
                 ) -> None:
        self.loader = loader
        self.reports = reports
        self.max_depth = max_depth
        self.budget = budget
        self.texts: dict[str, str | bytes] = {}

    def walk(self, source: Any, chain: list[str], depth: int) -> tuple[Any, ResultCode]:
        """``ResolveImportsInOrder(target, source)``: (the new target, or ``_KEEP`` where the
        engine leaves the target as it was, and the code)."""
        if not isinstance(source, Mapping | list):
            return source, _SUCCESS
        if depth > LIMIT:
            raise DecodeError(f"Arrays and objects nest deeper than {LIMIT} levels.",
                              format="o3de")
        result = _SUCCESS
        if isinstance(source, list):
            items: list[Any] = []
            for value in source:
                result = result.combine(self.element(items, value, chain, depth))
            return (items, _SUCCESS) if result.completed else (_KEEP, result)
        local: Any = _Object()
        for name, value in members(source):
            if name == _DIRECTIVE:
                local, code = self.directive(local, value, chain, depth)
                if code.outcome == Outcomes.Catastrophic:
                    return _KEEP, code
                continue
            if not isinstance(local, _Object):
                local = _Object()  # the engine adds members to a non-object: undefined
            result = result.combine(self.member(local, name, value, chain, depth))
        if not result.completed:
            return _KEEP, result
        return local.value() if isinstance(local, _Object) else local, _SUCCESS

    def element(self, items: list[Any], value: Any, chain: list[str], depth: int
                ) -> ResultCode:
        """``PatchField`` into an array: a new element, walked."""
        if not isinstance(value, Mapping | list):
            items.append(value)
            return _SUCCESS
        items.append({} if isinstance(value, Mapping) else [])
        walked, code = self.walk(value, chain, depth + 1)
        if walked is not _KEEP:
            items[-1] = walked
        return _SUCCESS.combine(code)

    def member(self, local: _Object, name: str, value: Any, chain: list[str], depth: int
               ) -> ResultCode:
        """``PatchField`` into an object."""
        at = local.first.get(name)
        if isinstance(value, Mapping | list):
            if at is None or isinstance(value, list):
                at = local.add(name, {} if isinstance(value, Mapping) else [])
            walked, code = self.walk(value, chain, depth + 1)
            if walked is not _KEEP:
                local.pairs[at][1] = walked
            return _SUCCESS.combine(code)
        if at is None:
            local.add(name, value)
        else:
            local.pairs[at][1] = value
        return _SUCCESS

    def directive(self, local: Any, directive: Any, chain: list[str], depth: int
                  ) -> tuple[Any, ResultCode]:
        """One ``$import``: ``LoadAndMergeImportFile``, then the nested imports."""
        name = directive.get("filename") if isinstance(directive, Mapping) else directive
        if not isinstance(name, str) or not name:
            return local, self.reports("The $import directive names no file.", Tasks.Import,
                                       Outcomes.Catastrophic, "")
        try:
            target = import_path(name, chain[-1])
        except ValueError as e:
            raise DecodeError(f"{e} (in {chain[-1][:256]!r})", format="o3de") from None
        imported = self.read(target)
        if isinstance(imported, ResultCode):
            return local, imported
        if isinstance(directive, Mapping) and "patch" in directive:
            imported, _ = patch_in_place(imported, _copy(directive["patch"], 0),
                                         "JsonMergePatch", self.reports)
        kind = "JsonPatch" if posixpath.splitext(posixpath.basename(target))[1] \
            in _PATCH_EXTENSIONS else "JsonMergePatch"
        merged = local.value() if isinstance(local, _Object) else local
        merged, code = patch_in_place(merged, imported, kind, self.reports)
        if not code.completed:
            code = self.reports.code(f'Patching the imported JSON file "{target[:256]}" into '
                                     "the target JSON document has failed.", code, "")
        else:
            code = self.reports.code(f'Successfully merged imported JSON file '
                                     f'"{target[:256]} into the target JSON document".', code,
                                     "")
        if code.outcome == Outcomes.Catastrophic:
            return _as_local(merged), code
        return self.nested(merged, chain, target, depth)

    def read(self, target: str) -> Any:
        """The imported file's value, or the code reported for failing to read it."""
        text = self.texts.get(target)
        if text is None:
            text = self.loader(target)
            if text is None:
                return self.reports(f'Failed to import file "{target[:256]}". Reason: "there '
                                    'is no such file."', Tasks.Import, Outcomes.Catastrophic,
                                    "")
            text = self.texts[target] = self.budget.read(text)
        self.spend(len(text) + 1)
        try:
            return parse(text)
        except DecodeError as e:
            return self.reports(f'Failed to import file "{target[:256]}". Reason: '
                                f'"{e.message}"', Tasks.Import, Outcomes.Catastrophic, "")

    def nested(self, merged: Any, chain: list[str], target: str, depth: int
               ) -> tuple[Any, ResultCode]:
        """``ResolveNestedImportsInOrder``: walk the merged value again from the file."""
        if target in chain:
            code = self.reports(f'"{target[:256]}" was already imported in this chain. This '
                                "indicates a cyclic dependency.", Tasks.Import,
                                Outcomes.Catastrophic, "")
            return _as_local(merged), (code if code.outcome == Outcomes.Catastrophic
                                       else _SUCCESS)
        if len(chain) > self.max_depth:
            raise DecodeError(f"Imports nest deeper than {self.max_depth} files (in "
                              f"{chain[-1][:256]!r}).", format="o3de")
        self.spend(WALK_COST * _count(merged, self.budget.left() // WALK_COST))
        walked, code = self.walk(merged, [*chain, target], depth)
        if code.outcome == Outcomes.Catastrophic:
            return _as_local(merged), code
        return _as_local(merged if walked is _KEEP else walked), _SUCCESS

    def spend(self, amount: int) -> None:
        refused = self.budget.spend(amount)
        if refused is not None:
            raise DecodeError(refused, format="o3de")


def _as_local(value: Any) -> Any:
    """The value being built as an :class:`_Object` again when it is an object."""
    return _Object(members(value)) if isinstance(value, Mapping) else value
