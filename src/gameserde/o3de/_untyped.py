"""What a typed load could not take, put back into the stored document as the file has it.

A typed load reports every value it skips or leaves untouched (a member no field matches, a
value of the wrong JSON type, a ``$type`` it does not know) at the value's JSON Pointer, and
the store that follows writes only what was loaded: those values would be lost. The engine
also reports on every enclosing value ("Read associative container.", with the combined
code); a pointer below which nothing else is reported is an *innermost* one, the place the
value was not taken. :func:`keep_untyped` walks the document and the stored document together
along the reported pointers and puts the document's value back, verbatim:

* at an innermost pointer, the document's value replaces what the store wrote (or is
  inserted when the store wrote nothing there: an object member after the nearest member
  before it in the document that the stored object also has; an array element at its index);
* an enclosing place the store left out (a container entry dropped because its value
  failed, an object written as nothing but defaults) is kept whole;
* where the two do not correspond step by step -- a value of another JSON kind (a layout the
  load converted, such as an older array read into a map), an object that repeats a member
  name (a pointer cannot tell which member it means), an array whose length does not follow
  from the reported elements, a step the document lacks -- the document's whole value at
  that place is kept.

So every value under a reported pointer comes out as the file has it and nothing reported is
lost; what was loaded without a report comes out as the store writes it.

A member name an object repeats is read by the load member after member into the same
value (for a class member the last one wins), so the store writes it once, without a
report: :func:`repeated_names` finds them, and the objects that hold them are kept whole the
same way.
"""

from __future__ import annotations

from typing import Any

from gameserde.o3de._context import is_object, members
from gameserde.o3de.result import Issue
from gameserde.o3de.text import JsonObject

__all__ = ["innermost", "keep_untyped", "pointer_steps", "repeated_names"]


def pointer_steps(pointer: str) -> tuple[str, ...]:
    """The steps of a JSON Pointer (RFC 6901; ``""`` is the root)."""
    if not pointer:
        return ()
    return tuple(s.replace("~1", "/").replace("~0", "~") for s in pointer[1:].split("/"))


class _Node:
    """The reported pointers as a tree: ``reported`` when an issue names this place."""

    __slots__ = ("children", "reported")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.reported = False


def _tree(pointers: list[str]) -> _Node:
    root = _Node()
    for pointer in pointers:
        node = root
        for step in pointer_steps(pointer):
            node = node.children.setdefault(step, _Node())
        node.reported = True
    return root


def innermost(issues: list[Issue]) -> list[Issue]:
    """The issues below whose pointer no other issue is reported (in report order)."""
    root = _tree([issue.path for issue in issues])
    out = []
    for issue in issues:
        node = root
        for step in pointer_steps(issue.path):
            node = node.children[step]
        if not node.children:
            out.append(issue)
    return out


def repeated_names(document: Any) -> list[tuple[str, str]]:
    """``(pointer, name)`` for each member name an object of ``document`` repeats (once per
    object and name), in document order."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, pointer = stack.pop()
        if is_object(value):
            pairs = members(value)
            seen: set[str] = set()
            repeated: set[str] = set()
            for name, _ in pairs:
                if name in seen and name not in repeated:
                    repeated.add(name)
                    found.append((pointer, name))
                seen.add(name)
            stack.extend((v, f"{pointer}/{_escape(k)}") for k, v in reversed(pairs))
        elif isinstance(value, list):
            stack.extend((v, f"{pointer}/{i}") for i, v in reversed(list(enumerate(value))))
    return found


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def keep_untyped(stored: Any, document: Any, pointers: list[str]) -> Any:
    """``stored`` (what the store wrote after loading ``document``) with every value under
    ``pointers`` (the load's reported places, and the objects that repeat a name) as
    ``document`` has it. Neither argument is changed."""
    if not pointers:
        return stored
    return _merge(document, stored, _tree(pointers))


def _merge(given: Any, stored: Any, node: _Node) -> Any:
    if not node.children:
        return given
    if is_object(given) and is_object(stored):
        return _merge_object(given, stored, node)
    if isinstance(given, list) and isinstance(stored, list):
        return _merge_array(given, stored, node)
    return given


def _merge_object(given: Any, stored: Any, node: _Node) -> Any:
    given_members = members(given)
    given_names = [name for name, _ in given_members]
    if len(set(given_names)) < len(given_names):
        return given
    out = list(members(stored))
    out_names = [name for name, _ in out]
    for step in node.children:
        if step not in given_names or out_names.count(step) > 1:
            return given
    for step, child in node.children.items():
        value = given_members[given_names.index(step)][1]
        if step in out_names:
            at = out_names.index(step)
            out[at] = (step, _merge(value, out[at][1], child))
            continue
        at = 0
        for before in reversed(given_names[:given_names.index(step)]):
            if before in out_names:
                at = out_names.index(before) + 1
                break
        out.insert(at, (step, value))
        out_names.insert(at, step)
    return JsonObject(out) if len(set(out_names)) < len(out_names) else dict(out)


def _merge_array(given: list[Any], stored: list[Any], node: _Node) -> Any:
    indices: dict[int, _Node] = {}
    for step, child in node.children.items():
        if not step.isdigit() or (step != "0" and step.startswith("0")) or int(step) >= len(given):
            return given
        indices[int(step)] = child
    dropped: set[int] = set()
    if len(stored) != len(given):
        dropped = {i for i, node_at in indices.items() if node_at.reported}
        if len(stored) != len(given) - len(dropped):
            return given
    out: list[Any] = []
    taken = 0
    for index, value in enumerate(given):
        if index in dropped:
            out.append(value)
            continue
        reported = indices.get(index)
        out.append(stored[taken] if reported is None else _merge(value, stored[taken], reported))
        taken += 1
    return out
