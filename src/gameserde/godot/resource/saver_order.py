"""The order in which the engine's savers write a file's resources, and number its external
ones, when they save resources loaded from the other form.

Both savers find the resources to write by walking the main resource's stored properties
(``_find_resources``): a value that is a resource of the file is walked in turn (once), and
is listed after everything its own properties lead to, the main resource last; an external
resource is numbered when first met. Where they differ:

* the **binary** saver walks each resource's properties in their order (the class's
  property list, which is the order a file lists them in) and a Dictionary's keys and
  values;
* the **text** saver walks the properties sorted by name, and of a Dictionary only the
  values in Godot 3 (keys and values in Godot 4).

A scene's ``PackedScene`` holds its values in ``_bundled``'s ``variants``, which the savers
walk in their order. Resources no walk reaches (a file the engine did not write may have
some) keep their place after the ones reached, before the main resource; external resources
no walk reaches come after the ones reached.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from gameserde.godot import types as gt
from gameserde.godot.resource.model import Resource

__all__ = ["save_order"]

MAX_DEPTH = 1024
"""How deeply values may nest (the engine's limit; deeper values are not walked)."""


def save_order(resources: list[Resource], external: Iterable[str], form: str, godot4: bool,
               variants: list[Any] | None = None) -> tuple[list[str], list[str]]:
    """The ids of ``resources`` (the main one last) in the order the ``form`` saver writes
    them, and the ids of the ``external`` resources in the order it numbers them.
    ``variants``: a scene's ``_bundled`` values, walked in place of the main resource's
    ``_bundled`` property."""
    by_id = {r.id: r for r in resources[:-1]}
    main = resources[-1]
    sort, keys = form == "text", form == "binary" or godot4
    seen: set[str] = set()
    saved: list[str] = []
    found: dict[str, None] = {}
    # a stack of the resources being walked (an explicit one: chains of sub-resources may be
    # longer than Python's recursion limit), each with what is left of its references
    stack = [(main.id, _refs(main, sort, keys, variants))]
    while stack:
        rid, refs = stack[-1]
        ref = next(refs, None)
        if ref is None:
            stack.pop()
            if stack:
                saved.append(rid)
        elif type(ref) is gt.ExtRef:
            found.setdefault(ref.id)
        elif ref.id in by_id and ref.id not in seen:
            seen.add(ref.id)
            stack.append((ref.id, _refs(by_id[ref.id], sort, keys, None)))
    order = [*saved, *(r.id for r in resources[:-1] if r.id not in seen)]
    return [*order, main.id], [*found, *(e for e in external if e not in found)]


def _refs(r: Resource, sort: bool, keys: bool,
          variants: list[Any] | None) -> Iterator[gt.ExtRef | gt.SubRef]:
    """The references in ``r``'s properties, in the order a saver meets them (values nested
    deeper than :data:`MAX_DEPTH` are not walked)."""
    names: Iterable[str] = sorted(r.properties) if sort else r.properties
    for name in names:
        value = r.properties[name]
        if name == "_bundled" and variants is not None:
            value = variants
        todo: list[tuple[Any, int]] = [(value, 0)]
        while todo:
            v, depth = todo.pop()
            t = type(v)
            if t is gt.ExtRef or t is gt.SubRef:
                yield v
            elif depth > MAX_DEPTH:
                continue
            elif isinstance(v, list) and not isinstance(v, gt.PackedStringArray):
                todo += [(item, depth + 1) for item in reversed(v)]
            elif isinstance(v, dict | gt.Dictionary):
                for key, item in reversed(list(v.items())):
                    todo.append((item, depth + 1))
                    if keys:
                        todo.append((key, depth + 1))
