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
  object with every changed member (an unchanged nested object appears as ``{}``) and
  ``null`` for removed ones; a ``null`` in the target cannot be written (Unsupported).

Results are :class:`~gameserde.o3de.result.Result` values (task Merge or CreatePatch),
combined with the engine's rules (the larger code wins; Success with DefaultsUsed gives
PartialDefaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.o3de.result import Issue, Outcomes, Result, ResultCode, Tasks
from gameserde.o3de.text import MAX_DEPTH, JsonObject, members

__all__ = ["PatchResult", "apply_patch", "compare", "create_patch", "json_equal"]

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


class _Halt(Exception):
    """An operation failed: the engine reports ``outcome`` and stops."""

    def __init__(self, outcome: int, message: str, path: str = "") -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message
        self.path = path


def _combine(a: int, b: int) -> int:
    """Combine two outcomes of one task as ``ResultCode::Combine`` does (the larger wins;
    Success with DefaultsUsed gives PartialDefaults, with Skipped PartialSkip)."""
    pair = {a, b}
    if pair == {1, 4}:
        return 5
    if pair == {1, 2}:
        return 3
    return max(a, b)


def _result(value: Any, task: Tasks, outcome: int, halt: _Halt | None = None) -> PatchResult:
    code = ResultCode.of(task, Outcomes(outcome)) if outcome else ResultCode.task_only(task)
    issues = [Issue(halt.path, code, halt.message)] if halt is not None else []
    return PatchResult(value, Result(code, issues))


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
# JSON Patch

def apply_patch(target: Any, patch: Any, kind: str = "JsonPatch") -> PatchResult:
    """``JsonSerialization::ApplyPatch(output, source, patch, approach)``: the patched copy
    of ``target`` with the outcome and processing. Raises
    :class:`~gameserde.errors.DecodeError` only for values that are not JSON, nest past
    :data:`LIMIT`, or ``copy`` operations that would add more than
    :data:`COPY_ALLOWANCE` values beyond twice the size of the inputs."""
    if kind not in _KINDS:
        raise _bad(f"the patch kind {kind!r} is neither 'JsonPatch' nor 'JsonMergePatch'.")
    with recursion_room(3 * LIMIT + 32):
        document = _copy(target, 0)
        if kind == "JsonMergePatch":
            return _result(_merge(document, patch, 0), Tasks.Merge, 1)
        try:
            document = _json_patch(document, patch)
        except _Halt as halt:
            return _result({}, Tasks.Merge, halt.outcome, halt)
    return _result(document, Tasks.Merge, 1)


def _field(entry: Mapping[str, Any], name: str) -> Any:
    value = entry.get(name, _MISSING)
    if value is _MISSING:
        raise _Halt(10, f'The required field "{name}" is missing.', f"/{name}")
    return value


def _pointer_field(entry: Mapping[str, Any], name: str) -> _Pointer:
    text = _field(entry, name)
    if not isinstance(text, str):
        raise _Halt(8, f'The value for "{name}" is not a string.', f"/{name}")
    pointer = _pointer(text)
    if pointer is None:
        raise _Halt(11, f'The value for "{name}" is not a valid JSON Pointer.', f"/{name}")
    return pointer


def _json_patch(document: Any, patch: Any) -> Any:
    if not isinstance(patch, list):
        raise _Halt(8, "JSON Patch only supports arrays at the root.")
    unbounded = 1 << 62
    allowance = 2 * (_count(document, unbounded) + _count(patch, unbounded)) + COPY_ALLOWANCE
    for n, entry in enumerate(patch):
        try:
            document, allowance = _operation(document, entry, allowance)
        except _Halt as halt:
            halt.path = f"/{n}{halt.path}"
            raise
    return document


def _operation(document: Any, entry: Any, allowance: int) -> tuple[Any, int]:
    """One entry of a JSON Patch: (the document, the copy allowance left)."""
    if not isinstance(entry, Mapping):
        raise _Halt(8, "Entry in JSON Patch is not an object.")
    op = _field(entry, "op")
    if not isinstance(op, str):
        raise _Halt(8, 'The value for "op" is not a string.')
    path = _pointer_field(entry, "path")
    if op == "add":
        document = _add(document, path, _copy(_field(entry, "value"), len(path.names)))
    elif op == "remove":
        _remove(document, path)
    elif op == "replace":
        value = _field(entry, "value")
        document = _replace(document, path, _copy(value, len(path.names)))
    elif op in ("move", "copy"):
        source = _pointer_field(entry, "from")
        found = _get(document, source, len(source.names))
        if found is _MISSING:
            raise _Halt(11, 'The path specified in "from" doesn\'t exist.')
        if op == "move":
            document = _take(document, source)
            _remove(document, source)
        else:
            allowance -= _count(found, allowance)
            if allowance < 0:
                raise _bad("the patch's copy operations would build a document larger "
                           "than the copy allowance.")
            found = _copy(found, 0)
        document = _add(document, path, found)
    elif op == "test":
        value = _field(entry, "value")
        current = _get(document, path, len(path.names))
        if current is _MISSING:
            raise _Halt(11, 'The path specified in "path" for the "test" operation '
                            "doesn't exist.")
        if _compare(current, value, 0) != 0:
            raise _Halt(9, 'The values for the "test" operation are not equal.')
    else:
        raise _Halt(12, f'Unknown operation "{op[:64]}".')
    return document, allowance


def _take(document: Any, source: _Pointer) -> Any:
    """Leave ``null`` where ``source`` points (rapidjson moves the value out)."""
    if not source.names:
        return None
    return _replace(document, source, None)


def _parent(document: Any, path: _Pointer, op: str) -> Any:
    parent = _get(document, path, len(path.names) - 1)
    if parent is _MISSING:
        raise _Halt(11, f'The target path for "{op}" operation does not exist.')
    if not isinstance(parent, dict | list):
        raise _Halt(8, f'The target for "{op}" operation is not an object or array.')
    return parent


def _add(document: Any, path: _Pointer, value: Any) -> Any:
    if not path.names:
        return value
    _check_depth(len(path.names))
    parent = _parent(document, path, "add")
    name, index = path.names[-1], path.indexes[-1]
    if isinstance(parent, dict):
        _set_first(parent, name, value)
    elif index == _INVALID_INDEX:
        if name != "-":
            raise _Halt(11, 'The target path for "add" operation is not an index value.')
        parent.append(value)
    elif index <= len(parent):
        parent.insert(index, value)
    else:
        raise _Halt(11, 'The target path for "add" operation is not a valid index.')
    return document


def _remove(document: Any, path: _Pointer) -> None:
    if not path.names:
        raise _Halt(11, 'The target path for "remove" operation can\'t point at the root.')
    parent = _parent(document, path, "remove")
    name, index = path.names[-1], path.indexes[-1]
    if isinstance(parent, dict):
        if not _erase_first(parent, name):
            raise _Halt(11, 'The "remove" operation failed to remove member from object.')
    elif index != _INVALID_INDEX and index < len(parent):
        del parent[index]
    else:
        raise _Halt(11, 'The target path for "remove" operation has an invalid index.')


def _replace(document: Any, path: _Pointer, value: Any) -> Any:
    if _get(document, path, len(path.names)) is _MISSING:
        raise _Halt(11, 'The target for "replace" operation doesn\'t exist.')
    if not path.names:
        return value
    parent = _get(document, path, len(path.names) - 1)
    if isinstance(parent, dict):
        _set_first(parent, path.names[-1], value)
    else:
        parent[path.indexes[-1]] = value
    return document


# ---------------------------------------------------------------------------------------------
# JSON Merge Patch

def _merge(target: Any, patch: Any, depth: int) -> Any:
    if not isinstance(patch, Mapping):
        return _copy(patch, depth)
    _check_depth(depth + 1)
    entries: list[list[Any]] = []
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    if isinstance(target, dict):
        for name, value in members(target):
            first.setdefault(name, len(entries))
            count[name] = count.get(name, 0) + 1
            entries.append([name, value])
    for name, change in members(patch):
        _key(name)
        at = first.get(name)
        if change is None:
            if at is not None:
                _remove_swap(entries, first, count, at)
        elif at is not None:
            entries[at][1] = _merge(entries[at][1], change, depth + 1)
        else:
            first[name] = len(entries)
            count[name] = 1
            entries.append([name, _merge(None, change, depth + 1)])
    pairs = [(name, value) for name, value in entries]
    if any(n > 1 for n in count.values()):
        return JsonObject(pairs)
    return dict(pairs)


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


def create_patch(source: Any, target: Any, kind: str = "JsonPatch") -> PatchResult:
    """``JsonSerialization::CreatePatch(patch, source, target, approach)``: the patch that
    turns ``source`` into ``target``, with the outcome (Success; DefaultsUsed when nothing
    differs; PartialDefaults for a mix; Unsupported when a merge patch would need a
    ``null``, and then ``value`` is ``None``)."""
    if kind not in _KINDS:
        raise _bad(f"the patch kind {kind!r} is neither 'JsonPatch' nor 'JsonMergePatch'.")
    with recursion_room(3 * LIMIT + 32):
        if kind == "JsonPatch":
            ops: list[dict[str, Any]] = []
            outcome = _diff(source, target, "", ops, 0)
            return _result(ops, Tasks.CreatePatch, outcome)
        try:
            value, outcome = _merge_diff(source, target, 0)
        except _Halt as halt:
            return _result(None, Tasks.CreatePatch, halt.outcome, halt)
    return _result(value if outcome != 4 else None, Tasks.CreatePatch, outcome)


def _diff(source: Any, target: Any, path: str, ops: list[dict[str, Any]], depth: int) -> int:
    if isinstance(source, Mapping) and isinstance(target, Mapping):
        _check_depth(depth + 1)
        outcome = 0
        for name, value in members(target):
            child = f"{path}/{_escape(name)}"
            old = source.get(name, _MISSING)
            if old is _MISSING:
                ops.append({"op": "add", "path": child, "value": _copy(value, depth)})
                outcome = _combine(outcome, 1)
            else:
                outcome = _combine(outcome, _diff(old, value, child, ops, depth + 1))
        for name, _ in members(source):
            if name not in target:
                ops.append({"op": "remove", "path": f"{path}/{_escape(name)}"})
                outcome = _combine(outcome, 1)
        return outcome
    if isinstance(source, list) and isinstance(target, list):
        _check_depth(depth + 1)
        outcome = 0
        common = min(len(source), len(target))
        for n in range(common):
            outcome = _combine(outcome, _diff(source[n], target[n], f"{path}/{n}", ops,
                                              depth + 1))
        for n in range(common, len(target)):
            ops.append({"op": "add", "path": f"{path}/{n}", "value": _copy(target[n], depth)})
            outcome = _combine(outcome, 1)
        for n in range(len(source) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{n}"})
            outcome = _combine(outcome, 1)
        return outcome
    if _equal(source, target, depth):
        return 4
    ops.append({"op": "replace", "path": path, "value": _copy(target, depth)})
    return 1


def _merge_diff(source: Any, target: Any, depth: int) -> tuple[Any, int]:
    """(the merge patch, outcome); raises ``_Halt`` for a ``null`` it cannot write."""
    if isinstance(target, Mapping):
        _check_depth(depth + 1)
        pairs: list[tuple[str, Any]] = []
        base = source if isinstance(source, Mapping) else None
        for name, value in members(target):
            if base is None and value is None:
                raise _Halt(7, "JSON Merge Patch can't be used to write nulls.")
            old = base.get(name) if base is not None else None
            patch, outcome = _merge_diff(old, value, depth + 1)
            if outcome == 1:
                pairs.append((name, patch))
        if base is not None:
            for name, _ in members(base):
                if name not in target:
                    pairs.append((name, None))
        names = [name for name, _ in pairs]
        return (JsonObject(pairs) if len(set(names)) != len(names) else dict(pairs)), 1
    if _equal(source, target, depth):
        return None, 4
    if target is None:
        raise _Halt(7, "JSON Merge Patch can't be used to write nulls.")
    return _copy(target, depth), 1
