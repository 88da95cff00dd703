"""``JsonSerialization::Compare``, ``ApplyPatch`` and ``CreatePatch`` as O3DE runs them on
parsed JSON values (see :mod:`gameserde.o3de.text` for the values).

- :func:`compare`: ``Less``, ``Equal`` or ``Greater``. Different JSON types order as
  rapidjson's type ids (null < false < true < object < array < string < number); numbers by
  their double value (``42`` equals ``42.0``); strings by code point (UTF-8 byte order);
  arrays by length, then element by element; objects by member count, then their members
  sorted by name (stably: the engine's sort is not stable for repeated names) and compared
  name, then value.
- :func:`apply_patch`: RFC 6902 JSON Patch (``kind="JsonPatch"``) or RFC 7386 JSON Merge
  Patch (``"JsonMergePatch"``) applied to a copy of the target, with O3DE's outcomes: the
  first failing operation halts and the document comes back as ``{}`` (the copying
  overload). O3DE's differences from the RFCs: an ``add`` to an existing member replaces the
  first member of that name in place; ``remove`` of a member keeps the others in order, but a
  merge patch's ``null`` moves the object's **last** member into the removed member's place
  (rapidjson's ``RemoveMember``); ``move`` takes the value out first and fails (halting after
  the removal) when the destination was inside it; pointers may be URI fragments (``#/a%20b``);
  repeated names in a patch entry: the first wins.
- :func:`create_patch`: ``CreatePatch``/``CreateMergePatch`` diffs. JSON Patch: members in
  the target's order (``add`` or a recursive diff), then ``remove`` for members the target
  lacks; arrays element by element, then ``add`` at the tail or ``remove`` from the end
  backwards; anything else unequal ``replace``. Merge patch: an object target gives an
  object with every changed member (an unchanged nested object is left out, an empty one
  added as ``{}`` where the source had no object) and ``null`` for removed ones; a ``null``
  in the target cannot be written (Unsupported).

Results are :class:`~gameserde.o3de.result.Result` values (task Merge or CreatePatch),
combined with the engine's rules (the larger code wins; Success with DefaultsUsed gives
PartialDefaults). Every report the engine makes (successes too) goes through the optional
``reporter``, whose code is used from there on, as ``JsonApplyPatchSettings::m_reporting``
and ``JsonCreatePatchSettings::m_reporting`` are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.o3de.result import Issue, Outcomes, Reporter, Result, ResultCode, Tasks
from gameserde.o3de.text import MAX_DEPTH, JsonObject, members

__all__ = ["PatchResult", "Reports", "apply_patch", "compare", "create_patch", "json_equal",
           "patch_in_place"]

LIMIT = 2 * MAX_DEPTH + 8
"""Values nest at most this deep here (a patch may put a document inside another)."""
COPY_ALLOWANCE = 1 << 20
"""Values ``copy`` operations may add beyond twice the size of the target and the patch
(each ``copy`` of the root doubles the document: a short patch could fill any memory)."""

_KINDS = ("JsonPatch", "JsonMergePatch")
_MISSING = object()


class PatchResult(NamedTuple):
    """A patched document or a created patch, and the :class:`Result` the engine reports
    (``value`` is ``{}`` when processing is ``Halted`` after applying, and ``None`` when
    creating wrote no patch; the issue that stopped the work names the patch entry's JSON
    Pointer)."""

    value: Any
    result: Result

def _bad(what: str) -> DecodeError:
    return DecodeError(what, format="o3de")


# ---------------------------------------------------------------------------------------------
# Types, equality, order

def _type_id(value: Any) -> int:
    """rapidjson's type id."""
    if value is None:
        return 0
    if value is False:
        return 1
    if value is True:
        return 2
    if isinstance(value, Mapping):
        return 3
    if isinstance(value, list):
        return 4
    if isinstance(value, str):
        return 5
    if isinstance(value, int | float):
        return 6
    raise _bad(f"{type(value).__name__} is not a JSON value.")


def _check_depth(depth: int) -> None:
    if depth > LIMIT:
        raise _bad(f"Arrays and objects nest deeper than {LIMIT} levels.")


def compare(a: Any, b: Any) -> str:
    """``JsonSerialization::Compare(a, b)``: ``"Less"``, ``"Equal"`` or ``"Greater"``."""
    with recursion_room(2 * LIMIT + 32):
        order = _compare(a, b, 0)
    return ("Less", "Equal", "Greater")[order + 1]


def _compare(a: Any, b: Any, depth: int) -> int:
    ta, tb = _type_id(a), _type_id(b)
    if ta != tb:
        return -1 if ta < tb else 1
    if ta == 6:
        x, y = float(a), float(b)
        return -1 if x < y else 0 if x == y else 1
    if ta == 5:
        return -1 if a < b else 0 if a == b else 1
    if ta == 4:
        if len(a) != len(b):
            return -1 if len(a) < len(b) else 1
        _check_depth(depth + 1)
        for x, y in zip(a, b, strict=True):
            order = _compare(x, y, depth + 1)
            if order:
                return order
        return 0
    if ta == 3:
        left = sorted(members(a), key=_name)
        right = sorted(members(b), key=_name)
        if len(left) != len(right):
            return -1 if len(left) < len(right) else 1
        _check_depth(depth + 1)
        for (na, va), (nb, vb) in zip(left, right, strict=True):
            if na != nb:
                return -1 if na < nb else 1
            order = _compare(va, vb, depth + 1)
            if order:
                return order
        return 0
    return 0


def _name(member: tuple[str, Any]) -> str:
    return member[0]


def json_equal(a: Any, b: Any) -> bool:
    """rapidjson's ``operator==`` on two values: types must match (``true`` is not ``1``);
    numbers equal as doubles when either is a double, else by their 64-bit pattern (so
    ``-1`` equals ``18446744073709551615``); objects of equal size whose every member (of
    ``a``) finds an equal first member of that name in ``b``, in any order."""
    with recursion_room(2 * LIMIT + 32):
        return _equal(a, b, 0)


def _equal(a: Any, b: Any, depth: int) -> bool:
    ta = _type_id(a)
    if ta != _type_id(b):
        return False
    if ta == 6:
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b)
        return bool((a - b) % (1 << 64) == 0)
    if ta == 5:
        return bool(a == b)
    if ta == 4:
        _check_depth(depth + 1)
        return len(a) == len(b) and all(_equal(x, y, depth + 1)
                                        for x, y in zip(a, b, strict=True))
    if ta == 3:
        _check_depth(depth + 1)
        pairs_a = list(members(a))
        if len(pairs_a) != len(list(members(b))):
            return False
        for name, value in pairs_a:
            other = b.get(name, _MISSING)
            if other is _MISSING or not _equal(value, other, depth + 1):
                return False
        return True
    return True


def _copy(value: Any, depth: int) -> Any:
    """A deep copy (``CopyFrom``), checking types and depth."""
    if isinstance(value, list):
        _check_depth(depth + 1)
        return [_copy(item, depth + 1) for item in value]
    if isinstance(value, dict) and not isinstance(value, JsonObject):
        _check_depth(depth + 1)
        return {_key(name): _copy(item, depth + 1) for name, item in value.items()}
    if isinstance(value, Mapping):
        _check_depth(depth + 1)
        pairs = [(_key(name), _copy(item, depth + 1)) for name, item in members(value)]
        return JsonObject(pairs) if len({name for name, _ in pairs}) != len(pairs) \
            else dict(pairs)
    _type_id(value)
    return value


def _count(value: Any, limit: int) -> int:
    """The number of values in ``value`` (containers and leaves), or ``limit + 1`` when it
    is larger than ``limit``."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        total += 1
        if total > limit:
            return total
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(v for _, v in members(item))
    return total


def _key(name: Any) -> str:
    if not isinstance(name, str):
        raise _bad(f"the member name {name!r} is not a string.")
    return name


# ---------------------------------------------------------------------------------------------
# JSON pointers

_INVALID_INDEX = -1


class _Pointer(NamedTuple):
    """A parsed pointer: token names and their array index (or ``_INVALID_INDEX``)."""

    names: tuple[str, ...]
    indexes: tuple[int, ...]


def _pointer(text: str) -> _Pointer | None:
    """rapidjson's ``Pointer`` parse: ``None`` when the text is not a valid pointer."""
    fragment = text.startswith("#")
    body = text[1:] if fragment else text
    if not body:
        return _Pointer((), ())
    if body[0] != "/":
        return None
    names: list[str] = []
    indexes: list[int] = []
    for raw in body[1:].split("/"):
        token = _token(raw, fragment)
        if token is None:
            return None
        names.append(token)
        digits = token.isascii() and token.isdigit()
        if digits and (len(token) == 1 or token[0] != "0") and len(token) <= 10 \
                and int(token) < 0xFFFFFFFF:
            indexes.append(int(token))
        elif digits and len(token) > 10:
            indexes.append(0xFFFFFFFF)  # past any array
        else:
            indexes.append(_INVALID_INDEX)
    return _Pointer(tuple(names), tuple(indexes))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _token(raw: str, fragment: bool) -> str | None:
    if fragment:
        data = bytearray()
        i = 0
        while i < len(raw):
            c = raw[i]
            if c == "%":
                hexa = raw[i + 1:i + 3]
                if len(hexa) != 2 or not all(h in "0123456789abcdefABCDEF" for h in hexa):
                    return None
                data.append(int(hexa, 16))
                i += 3
                continue
            if c not in _UNRESERVED:
                return None
            data.append(ord(c))
            i += 1
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if "~" not in raw:
        return raw
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "~":
            nxt = raw[i + 1:i + 2]
            if nxt not in ("0", "1"):
                return None
            out.append("~" if nxt == "0" else "/")
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _get(root: Any, pointer: _Pointer, count: int) -> Any:
    """The value the first ``count`` tokens point at, or ``_MISSING``."""
    value = root
    for name, index in zip(pointer.names[:count], pointer.indexes[:count], strict=True):
        if isinstance(value, dict):
            value = value.get(name, _MISSING)
            if value is _MISSING:
                return _MISSING
        elif isinstance(value, list):
            if index == _INVALID_INDEX or index >= len(value):
                return _MISSING
            value = value[index]
        else:
            return _MISSING
    return value


# ---------------------------------------------------------------------------------------------
# Objects as rapidjson changes them

def _set_first(obj: dict[str, Any], name: str, value: Any) -> None:
    """Replace the first member called ``name`` or, without one, append it (``AddMember``)."""
    if isinstance(obj, JsonObject):
        for n, (member, _) in enumerate(obj.pairs):
            if member == name:
                obj.pairs[n] = (name, value)
                break
        else:
            obj.pairs.append((name, value))
        dict.__setitem__(obj, name, value)
        return
    obj[name] = value


def _erase_first(obj: dict[str, Any], name: str) -> bool:
    """``EraseMember(name)``: remove the first member called ``name``, keeping the order."""
    if name not in obj:
        return False
    if isinstance(obj, JsonObject):
        at = next(n for n, (member, _) in enumerate(obj.pairs) if member == name)
        del obj.pairs[at]
        rest = [v for m, v in obj.pairs if m == name]
        if rest:
            dict.__setitem__(obj, name, rest[0])
        else:
            dict.__delitem__(obj, name)
        return True
    del obj[name]
    return True


# ---------------------------------------------------------------------------------------------
# Reports

class Reports:
    """Where a patch operation reports: the user's reporter (which may change each code) and
    the issues kept (every report whose outcome is not Success, DefaultsUsed or
    PartialDefaults, as :class:`~gameserde.o3de.result.Result` keeps them)."""

    __slots__ = ("issues", "reporter")

    def __init__(self, reporter: Reporter | None) -> None:
        self.reporter = reporter
        self.issues: list[Issue] = []

    def __call__(self, message: str, task: Tasks, outcome: Outcomes, path: str) -> ResultCode:
        """``settings.m_reporting(message, ResultCode(task, outcome), path)``."""
        return self.code(message, ResultCode.of(task, outcome), path)

    def code(self, message: str, code: ResultCode, path: str) -> ResultCode:
        """Report a given code; the code the reporter returns."""
        if self.reporter is not None:
            code = self.reporter(message, code, path)
            if not isinstance(code, ResultCode):
                raise TypeError("a reporter must return a ResultCode")
        if code.packed >> 16 not in _FINE:
            self.issues.append(Issue(path, code, message))
        return code

    def result(self, code: ResultCode) -> Result:
        """The :class:`Result` of the whole operation."""
        return Result(code, self.issues)


_FINE = frozenset((0, int(Outcomes.Success), int(Outcomes.DefaultsUsed),
                   int(Outcomes.PartialDefaults)))


def _check_kind(kind: str) -> None:
    if kind not in _KINDS:
        raise _bad(f"the patch kind {kind!r} is neither 'JsonPatch' nor 'JsonMergePatch'.")


# ---------------------------------------------------------------------------------------------
# Applying

def apply_patch(target: Any, patch: Any, kind: str = "JsonPatch", *,
                reporter: Reporter | None = None) -> PatchResult:
    """``JsonSerialization::ApplyPatch(output, source, patch, approach)``: the patched copy
    of ``target`` with the engine's result. ``reporter(message, code, path) -> code`` sees
    every report (successes too) and may return another code, which is used from there on
    (a halting code stops a JSON Patch; the engine's tests turn Halted into PartialSkip to
    go on past a failing operation). Raises :class:`~gameserde.errors.DecodeError` only for
    values that are not JSON, nest past :data:`LIMIT`, or ``copy`` operations that would
    add more than :data:`COPY_ALLOWANCE` values beyond twice the size of the inputs."""
    _check_kind(kind)
    reports = Reports(reporter)
    with recursion_room(3 * LIMIT + 32):
        document, code = patch_in_place(_copy(target, 0), patch, kind, reports)
    return PatchResult({} if code.halted else document, reports.result(code))


def patch_in_place(document: Any, patch: Any, kind: str, reports: Reports
                   ) -> tuple[Any, ResultCode]:
    """``JsonSerialization::ApplyPatch(target, patch, approach)`` on ``document`` itself:
    (the document, changed in place where it could be, and the code). A JSON Patch that
    stops halfway leaves what the operations before the failing one did."""
    if kind == "JsonMergePatch":
        return _merge(document, patch, "", 0, reports)
    box = [document]
    code = _json_patch(box, patch, reports)
    return box[0], code


def _json_patch(box: list[Any], patch: Any, reports: Reports) -> ResultCode:
    """``JsonMerger::ApplyPatch``: ``box[0]`` is the document."""
    if not isinstance(patch, list):
        return reports("JSON Patch only supports arrays at the root.", Tasks.Merge,
                       Outcomes.TypeMismatch, "")
    unbounded = 1 << 62
    allowance = [2 * (_count(box[0], unbounded) + _count(patch, unbounded)) + COPY_ALLOWANCE]
    result = ResultCode.task_only(Tasks.Merge)
    for n, entry in enumerate(patch):
        element = f"/{n}"
        if not isinstance(entry, Mapping):
            return reports("Entry in JSON Patch is not an object.", Tasks.Merge,
                           Outcomes.TypeMismatch, element)
        op = entry.get("op", _MISSING)
        if op is _MISSING:
            return reports('The required field "op" is missing in entry of JSON Patch.',
                           Tasks.Merge, Outcomes.Missing, element + "/op")
        if not isinstance(op, str):
            return reports('The value for "op" is not a string.', Tasks.Merge,
                           Outcomes.TypeMismatch, element + "/op")
        path = _pointer_field(entry, "path", element, reports)
        if isinstance(path, ResultCode):
            return path
        operation = _OPERATIONS.get(op)
        if operation is None:
            return reports(f'Unknown operation "{op[:64]}".', Tasks.Merge, Outcomes.Unknown,
                           element)
        result = result.combine(operation(box, entry, path, element, reports, allowance))
        if result.halted:
            return result
    return result.combine(ResultCode.of(Tasks.Merge, Outcomes.Success))


def _pointer_field(entry: Mapping[str, Any], name: str, element: str, reports: Reports
                   ) -> _Pointer | ResultCode:
    """The entry's ``path`` or ``from`` pointer, or the code reported for it."""
    where = f"{element}/{name}"
    text = entry.get(name, _MISSING)
    if text is _MISSING:
        return reports(f'The required field "{name}" is missing in entry of JSON Patch.',
                       Tasks.Merge, Outcomes.Missing, where)
    if not isinstance(text, str):
        return reports(f'The value for "{name}" is not a string.', Tasks.Merge,
                       Outcomes.TypeMismatch, where)
    pointer = _pointer(text)
    if pointer is None:
        return reports(f'The value for "{name}" is not a valid JSON Pointer.', Tasks.Merge,
                       Outcomes.Invalid, where)
    return pointer


def _text(pointer: _Pointer) -> str:
    """``Pointer::Stringify``."""
    return "".join("/" + _escape(name) for name in pointer.names)


def _value(entry: Mapping[str, Any], op: str, element: str, reports: Reports,
           depth: int) -> Any:
    value = entry.get("value", _MISSING)
    if value is _MISSING:
        return reports(f'The required field "value" for "{op}" operation is missing.',
                       Tasks.Merge, Outcomes.Missing, element + "/value")
    return _copy(value, depth)


def _op_add(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
            reports: Reports, allowance: list[int]) -> ResultCode:
    value = _value(entry, "add", element, reports, len(path.names))
    if isinstance(value, ResultCode):
        return value
    return _add_value(box, path, value, element, reports)


def _add_value(box: list[Any], path: _Pointer, value: Any, element: str,
               reports: Reports) -> ResultCode:
    """``ApplyPatch_AddValue``."""
    if not path.names:
        box[0] = value
        return reports('Successfully applied "add" operation.', Tasks.Merge, Outcomes.Success,
                       "")
    _check_depth(len(path.names))
    parent = _get(box[0], path, len(path.names) - 1)
    if parent is _MISSING:
        return reports('The target path for "add" operation does not exist.', Tasks.Merge,
                       Outcomes.Invalid, element)
    name, index = path.names[-1], path.indexes[-1]
    if isinstance(parent, dict):
        _set_first(parent, name, value)
    elif isinstance(parent, list):
        if index == _INVALID_INDEX:
            if name != "-":
                return reports('The target path for "add" operation is not an index value.',
                               Tasks.Merge, Outcomes.Invalid, element)
            parent.append(value)
        elif index <= len(parent):
            parent.insert(index, value)
        else:
            return reports('The target path for "add" operation is not a valid index.',
                           Tasks.Merge, Outcomes.Invalid, element)
    else:
        return reports('The target for "add" operation is not an object or array.',
                       Tasks.Merge, Outcomes.TypeMismatch, element)
    return reports('Successfully applied "add" operation.', Tasks.Merge, Outcomes.Success,
                   _text(path))


def _op_remove(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
               reports: Reports, allowance: list[int]) -> ResultCode:
    if not path.names:
        return reports('The target path for "remove" operation can\'t point at the root.',
                       Tasks.Merge, Outcomes.Invalid, element)
    parent = _get(box[0], path, len(path.names) - 1)
    if parent is _MISSING:
        return reports('The target path for "remove" operation does not exist.', Tasks.Merge,
                       Outcomes.Invalid, element)
    name, index = path.names[-1], path.indexes[-1]
    if isinstance(parent, dict):
        if not _erase_first(parent, name):
            return reports(f'The "remove" operation failed to remove member \'{name[:64]}\' '
                           f"from object at path '{_text(path)[:256]}'.", Tasks.Merge,
                           Outcomes.Invalid, element)
    elif isinstance(parent, list):
        if index == _INVALID_INDEX or index >= len(parent):
            return reports('The target path for "remove" operation has an invalid index.',
                           Tasks.Merge, Outcomes.Invalid, element)
        del parent[index]
    else:
        return reports('The target for "remove" operation is not an object or array.',
                       Tasks.Merge, Outcomes.TypeMismatch, element)
    return reports('Successfully applied "remove" operation.', Tasks.Merge, Outcomes.Success,
                   _text(path))


def _op_replace(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
                reports: Reports, allowance: list[int]) -> ResultCode:
    value = _value(entry, "replace", element, reports, len(path.names))
    if isinstance(value, ResultCode):
        return value
    if _get(box[0], path, len(path.names)) is _MISSING:
        return reports('The target for "replace" operation doesn\'t exist.', Tasks.Merge,
                       Outcomes.Invalid, element)
    _put(box, path, value)
    return reports('Successfully applied "replace" operation.', Tasks.Merge, Outcomes.Success,
                   _text(path))


def _put(box: list[Any], path: _Pointer, value: Any) -> None:
    """Overwrite the value ``path`` points at (it exists)."""
    if not path.names:
        box[0] = value
        return
    parent = _get(box[0], path, len(path.names) - 1)
    if isinstance(parent, dict):
        _set_first(parent, path.names[-1], value)
    else:
        parent[path.indexes[-1]] = value


def _from(box: list[Any], entry: Mapping[str, Any], element: str, reports: Reports
          ) -> tuple[_Pointer, Any] | ResultCode:
    """``ApplyPatch_GetFromValue``: the ``from`` pointer and its value, or the code."""
    source = _pointer_field(entry, "from", element, reports)
    if isinstance(source, ResultCode):
        return source
    found = _get(box[0], source, len(source.names))
    if found is _MISSING:
        return reports('The path specified in "from" doesn\'t exist.', Tasks.Merge,
                       Outcomes.Invalid, element + "/from")
    return source, found


def _op_move(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
             reports: Reports, allowance: list[int]) -> ResultCode:
    found = _from(box, entry, element, reports)
    if isinstance(found, ResultCode):
        return found
    source, moved = found
    _put(box, source, None)  # rapidjson moves the value out, leaving null
    result = ResultCode.of(Tasks.Merge, Outcomes.Success)
    result = result.combine(_op_remove(box, entry, source, element, reports, allowance))
    return result.combine(_add_value(box, path, moved, element, reports))


def _op_copy(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
             reports: Reports, allowance: list[int]) -> ResultCode:
    found = _from(box, entry, element, reports)
    if isinstance(found, ResultCode):
        return found
    allowance[0] -= _count(found[1], allowance[0])
    if allowance[0] < 0:
        raise _bad("the patch's copy operations would build a document larger than the copy "
                   "allowance.")
    result = ResultCode.of(Tasks.Merge, Outcomes.Success)
    return result.combine(_add_value(box, path, _copy(found[1], 0), element, reports))


def _op_test(box: list[Any], entry: Mapping[str, Any], path: _Pointer, element: str,
             reports: Reports, allowance: list[int]) -> ResultCode:
    value = entry.get("value", _MISSING)
    if value is _MISSING:
        return reports('The required field "value" for "test" operation is missing.',
                       Tasks.Merge, Outcomes.Missing, element + "/value")
    current = _get(box[0], path, len(path.names))
    if current is _MISSING:
        return reports('The path specified in "path" for the "test" operation doesn\'t '
                       "exist.", Tasks.Merge, Outcomes.Invalid, element + "/path")
    if _compare(current, value, 0) != 0:
        return reports('The values for the "test" operation are not equal.', Tasks.Merge,
                       Outcomes.TestFailed, element)
    return reports('Successfully applied "test" operation.', Tasks.Merge, Outcomes.Success,
                   element)


_OPERATIONS = {"add": _op_add, "remove": _op_remove, "replace": _op_replace,
               "move": _op_move, "copy": _op_copy, "test": _op_test}


# ---------------------------------------------------------------------------------------------
# JSON Merge Patch

def _merge(target: Any, patch: Any, element: str, depth: int, reports: Reports
           ) -> tuple[Any, ResultCode]:
    """``ApplyMergePatchInternal``: (the merged value, the code)."""
    if isinstance(patch, Mapping):
        target, result = _merge_object(target, patch, element, depth, reports)
    else:
        target, result = _copy(patch, depth), ResultCode.task_only(Tasks.Merge)
    return target, result.combine(reports(
        "Successfully applied patch to target using JSON Merge Patch.", Tasks.Merge,
        Outcomes.Success, element))


def _merge_object(target: Any, patch: Mapping[str, Any], element: str, depth: int,
                  reports: Reports) -> tuple[Any, ResultCode]:
    _check_depth(depth + 1)
    result = ResultCode.task_only(Tasks.Merge)
    entries: list[list[Any]] = []
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    if isinstance(target, dict):
        for name, value in members(target):
            first.setdefault(name, len(entries))
            count[name] = count.get(name, 0) + 1
            entries.append([name, value])
    for name, change in members(patch):
        child = f"{element}/{_escape(_key(name))}"
        at = first.get(name)
        if isinstance(change, Mapping):
            merged, code = _merge(entries[at][1] if at is not None else None, change, child,
                                  depth + 1, reports)
            result = result.combine(code)
            if at is not None:
                entries[at][1] = merged
                continue
            first[name] = len(entries)
            count[name] = 1
            entries.append([name, merged])
        elif change is None:
            if at is not None:
                _remove_swap(entries, first, count, at)
                result = result.combine(reports(
                    f'Successfully removed member from "{child[:256]}" using JSON Merge Patch',
                    Tasks.Merge, Outcomes.Success, child))
        elif at is not None:
            entries[at][1] = _copy(change, depth + 1)
            result = result.combine(reports(
                f'Successfully updated JSON field "{child[:256]}" using JSON Merge Patch',
                Tasks.Merge, Outcomes.Success, child))
        else:
            first[name] = len(entries)
            count[name] = 1
            entries.append([name, _copy(change, depth + 1)])
            result = result.combine(reports(
                f'Successfully added JSON field "{child[:256]}" using JSON Merge Patch',
                Tasks.Merge, Outcomes.Success, child))
    pairs = [(name, value) for name, value in entries]
    merged_object = JsonObject(pairs) if any(n > 1 for n in count.values()) else dict(pairs)
    return merged_object, result


def _remove_swap(entries: list[list[Any]], first: dict[str, int], count: dict[str, int],
                 at: int) -> None:
    """``RemoveMember``: the last member takes the removed member's place."""
    name = entries[at][0]
    last = len(entries) - 1
    moved = entries[last][0]
    entries[at] = entries[last]
    entries.pop()
    count[name] -= 1
    if count[name] == 0:
        del count[name]
        del first[name]
    else:
        first[name] = next(n for n in range(at, len(entries)) if entries[n][0] == name)
    if at != last and moved != name and (first[moved] == last or first[moved] > at):
        first[moved] = at


# ---------------------------------------------------------------------------------------------
# Creating patches

def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def create_patch(source: Any, target: Any, kind: str = "JsonPatch", *,
                 reporter: Reporter | None = None) -> PatchResult:
    """``JsonSerialization::CreatePatch(patch, source, target, approach)``: the patch that
    turns ``source`` into ``target``, with the engine's result (Success; DefaultsUsed when
    nothing differs; PartialDefaults for a mix; Unsupported when a merge patch would need a
    ``null``, and then ``value`` is ``None``, as it is for a merge patch between equal values
    that are not objects). ``reporter`` as for :func:`apply_patch`."""
    _check_kind(kind)
    reports = Reports(reporter)
    with recursion_room(3 * LIMIT + 32):
        if kind == "JsonPatch":
            ops: list[dict[str, Any]] = []
            code = _diff(source, target, "", ops, 0, reports)
            return PatchResult(ops, reports.result(code))
        value, code = _merge_diff(source, target, "", 0, reports)
    return PatchResult(None if value is _MISSING else value, reports.result(code))


def _diff(source: Any, target: Any, path: str, ops: list[dict[str, Any]], depth: int,
          reports: Reports) -> ResultCode:
    """``CreatePatchInternal``."""
    if isinstance(source, Mapping) and isinstance(target, Mapping):
        _check_depth(depth + 1)
        result = ResultCode.task_only(Tasks.CreatePatch)
        for name, value in members(target):
            child = f"{path}/{_escape(name)}"
            old = source.get(name, _MISSING)
            if old is _MISSING:
                ops.append({"op": "add", "path": child, "value": _copy(value, depth)})
                result = result.combine(reports(
                    "Successfully completed add operation for new member value in JSON Patch.",
                    Tasks.CreatePatch, Outcomes.Success, child))
            else:
                result = result.combine(_diff(old, value, child, ops, depth + 1, reports))
                if result.halted:
                    return result
        for name, _ in members(source):
            if name not in target:
                child = f"{path}/{_escape(name)}"
                ops.append({"op": "remove", "path": child})
                result = result.combine(reports("Removed member from object in JSON Patch.",
                                                Tasks.CreatePatch, Outcomes.Success, child))
        return result
    if isinstance(source, list) and isinstance(target, list):
        _check_depth(depth + 1)
        result = ResultCode.task_only(Tasks.CreatePatch)
        common = min(len(source), len(target))
        for n in range(common):
            result = result.combine(_diff(source[n], target[n], f"{path}/{n}", ops, depth + 1,
                                          reports))
            if result.halted:
                return result
        for n in range(common, len(target)):
            ops.append({"op": "add", "path": f"{path}/{n}", "value": _copy(target[n], depth)})
            result = result.combine(reports("Added entry to array in JSON Patch.",
                                            Tasks.CreatePatch, Outcomes.Success,
                                            f"{path}/{n}"))
        for n in range(len(source) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{n}"})
            result = result.combine(reports("Removed member from array in JSON Patch.",
                                            Tasks.CreatePatch, Outcomes.Success,
                                            f"{path}/{n}"))
        return result
    if _equal(source, target, depth):
        return reports("Values are identical so no operation was not added to JSON Patch.",
                       Tasks.CreatePatch, Outcomes.DefaultsUsed, path)
    ops.append({"op": "replace", "path": path, "value": _copy(target, depth)})
    return reports("Successfully completed replace operation for value to JSON Patch.",
                   Tasks.CreatePatch, Outcomes.Success, path)


def _merge_diff(source: Any, target: Any, path: str, depth: int, reports: Reports
                ) -> tuple[Any, ResultCode]:
    """``CreateMergePatchInternal``: (the patch, or ``_MISSING`` where the engine leaves it
    unwritten, and the code)."""
    if not isinstance(target, Mapping):
        if _equal(source, target, depth):
            return _MISSING, reports(
                "Values are identical so value was not added to JSON Merge Patch.",
                Tasks.CreatePatch, Outcomes.DefaultsUsed, path)
        if target is None:
            return _MISSING, reports("JSON Merge Patch can't be used to write nulls.",
                                     Tasks.CreatePatch, Outcomes.Unsupported, path)
        return _copy(target, depth), reports("Value successfully added to JSON Merge Patch.",
                                             Tasks.CreatePatch, Outcomes.Success, path)
    _check_depth(depth + 1)
    result = ResultCode.task_only(Tasks.CreatePatch)
    pairs: list[tuple[str, Any]] = []
    base = source if isinstance(source, Mapping) else None
    for name, value in members(target):
        child = f"{path}/{_escape(name)}"
        if base is None and value is None:
            return _MISSING, reports("JSON Merge Patch can't be used to write nulls.",
                                     Tasks.CreatePatch, Outcomes.Unsupported, child)
        patch, code = _merge_diff(base.get(name) if base is not None else None, value, child,
                                  depth + 1, reports)
        if code.outcome in (Outcomes.Success, Outcomes.PartialDefaults) and code.has_done_work:
            pairs.append((name, patch))
            result = result.combine(reports.code(
                "Added new member to object in JSON Merge Patch.", code, child))
        elif not code.completed:
            return _MISSING, code
        else:
            result = result.combine(code)
    if base is not None:
        for name, _ in members(base):
            if name not in target:
                child = f"{path}/{_escape(name)}"
                pairs.append((name, None))
                result = result.combine(reports(
                    "Removed member from object in JSON Merge Patch.", Tasks.CreatePatch,
                    Outcomes.Success, child))
    elif next(iter(members(target)), None) is None:
        result = result.combine(reports("Added empty object to JSON Merge Patch.",
                                        Tasks.CreatePatch, Outcomes.Success, path))
    names = [name for name, _ in pairs]
    return (JsonObject(pairs) if len(set(names)) != len(names) else dict(pairs)), result
