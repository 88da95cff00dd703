"""What gameserde knows of the engine's resource classes: the names of their stored
properties, in the engine's order, which the binary saver lists in its string table.

The binary saver adds the name of every stored property of a resource to the string table
before it decides to leave the property out as a default, so a file the engine writes names
properties it does not hold (``resource_local_to_scene``, ``resource_name``, ``script`` and
the class's own). The list of each class comes from the engine: ``godot3_properties.json``
holds Godot 3.2.3's (``scripts/make_godot3_properties.py`` writes it from Debian's
``godot3-server``), used for every Godot 3 file; for other engines, and for classes the
table does not have, only the properties the resource holds are listed.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = ["saver_names"]

META = "__meta__"
"""The property of an Object's metadata, listed after ``script``."""


@cache
def _godot3() -> dict[str, tuple[str, ...]]:
    table = json.loads(files(__package__).joinpath("godot3_properties.json").read_text("utf-8"))
    return {name: tuple(names) for name, names in table.items()}


def saver_names(rtype: str, properties: dict[str, Any], engine: tuple[int, int]) -> list[str]:
    """The property names the binary saver of ``engine`` lists for a resource of class
    ``rtype`` holding ``properties``: the class's stored properties, with those the table
    does not have (a script's variables, properties a resource makes for itself, such as an
    Animation's tracks) after the listed property they follow in the resource, and
    ``__meta__`` after ``script``."""
    listed = _godot3().get(rtype) if engine[0] == 3 else None
    if listed is None:
        return list(properties)
    known = set(listed)
    after: dict[str | None, list[str]] = {}
    last: str | None = None
    for name in properties:
        if name in known:
            last = name
        else:
            after.setdefault("script" if name == META and "script" in known else last,
                             []).append(name)
    out: list[str] = []
    for name in listed:
        if name == "script":
            out += after.pop(None, ())
        out.append(name)
        out += after.get(name, ())
    return out + after.get(None, [])
