"""The JSON views of Variants, as text (``to_json``/``from_json``) or as JSON values
(``to_jsonable``/``from_jsonable``: lists, dicts, strings and numbers, for ``json.dumps`` or
further processing).

Two modes:

* ``"native"`` (the default): Godot 4.4's ``JSON.from_native(v, true)`` /
  ``JSON.to_native(j, true)`` convention, extended where it loses data
  (:mod:`gameserde.godot.json_native`). Every value is typed: ``"i:1"``, ``"f:1.5"``,
  ``"s:text"``, ``{"type": "Vector3", "args": [...]}``.
* ``"plain"``: JSON's own values stay themselves (``{"hp": 87.5}``) and only the other engine
  types carry a one-key tag (``{"$Vector3": [1.0, 2.0, 3.0]}``;
  :mod:`gameserde.godot.json_plain`), for people who edit the text.

Both give back identical bytes for every value the decoder produces, with the exceptions each
module lists. Nesting is bounded by ``max_depth`` (1024 by default, the engine's limit) both
ways.
"""

from __future__ import annotations

from typing import Any, Literal

from gameserde import _jsonio
from gameserde._recursion import recursion_room
from gameserde.errors import UsageError
from gameserde.godot import json_native, json_plain
from gameserde.godot import types as gt
from gameserde.godot.profiles import MAX_DEPTH, check_max_depth

JsonMode = Literal["native", "plain"]
MODES: dict[str, Any] = {"native": json_native, "plain": json_plain}


def _module(mode: str) -> Any:
    try:
        return MODES[mode]
    except KeyError:
        raise UsageError(f"unknown JSON mode {mode!r}; choose native or plain") from None


def to_jsonable(value: Any, *, mode: JsonMode = "native", max_depth: int = MAX_DEPTH) -> Any:
    """``value`` as JSON values (``JSON.from_native(value, true)`` in the native mode)."""
    module = _module(mode)
    check_max_depth(max_depth)
    with recursion_room(4 * max_depth + 64):
        return module.to_jsonable(value, max_depth)


def from_jsonable(obj: Any, *, mode: JsonMode = "native", path: str = "$",
                  max_depth: int = MAX_DEPTH) -> Any:
    """The value JSON values stand for (``JSON.to_native(obj, true)`` in the native mode);
    objects stay data (:class:`Object`). ``path`` names ``obj`` in error messages."""
    module = _module(mode)
    check_max_depth(max_depth)
    with recursion_room(5 * max_depth + 64):
        return module.from_jsonable(obj, path, max_depth)


def to_json(value: Any, *, mode: JsonMode = "native", pretty: bool = False,
            max_depth: int = MAX_DEPTH) -> str:
    """``value`` as JSON text (``JSON.stringify(JSON.from_native(value, true))`` in the native
    mode): compact, or indented by 2 when ``pretty``."""
    doc = to_jsonable(value, mode=mode, max_depth=max_depth)
    return _jsonio.dumps(doc, pretty=pretty).decode("utf-8").rstrip("\n")


def from_json(text: str | bytes, *, mode: JsonMode = "native", max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON text (``JSON.to_native(JSON.parse_string(text), true)`` natively)."""
    return from_jsonable(_jsonio.loads(text), mode=mode, max_depth=max_depth)


def needs_full_objects(value: Any) -> bool:
    """Whether encoding ``value`` exactly needs ``full_objects=True``.

    True when it holds a full :class:`Object`, or a typed container whose class name or
    script is something other than ``EncodedObjectAsID``.
    """
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is gt.Object:
            return True
        if t is gt.TypedArray or isinstance(v, gt.TypedDictionary):
            for ct in (getattr(v, "element_type", gt.UNTYPED), getattr(v, "key_type", gt.UNTYPED),
                       getattr(v, "value_type", gt.UNTYPED)):
                if ct.script or (ct.class_name and ct.class_name != "EncodedObjectAsID"):
                    return True
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict | gt.Dictionary):
            for k, item in v.items():
                stack.append(k)
                stack.append(item)
    return False

