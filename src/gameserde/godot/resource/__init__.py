"""Godot resource and scene files: binary ``.res``/``.scn`` (``RSRC``, and ``RSCC`` when
compressed) and text ``.tres``/``.tscn``, read into one model
(:mod:`gameserde.godot.resource.model`) and written back as the engine writes them.

    from gameserde.godot import resource
    save = resource.read(open("savegame.tres", "rb").read())
    save.main.properties["gold"] = 1200
    open("savegame.tres", "wb").write(resource.write(save))

:func:`read` tells the forms apart by their first bytes; :func:`write` writes a file in its
own form or the other (``form=``), :func:`convert` converts between them as the engine
does. The parts: :mod:`.binary` (``resource_format_binary.cpp``) with its Variant encoding
(:mod:`.binary_variant`) and compressed container (:mod:`.compressed`), :mod:`.text`
(``resource_format_text.cpp``) with its Variant syntax (:mod:`.text_variant`), and
:mod:`.scene` (a ``PackedScene``'s ``_bundled`` dictionary as a scene tree).
"""

from gameserde.godot.resource.convert import FORMS, convert
from gameserde.godot.resource.files import is_binary, read, write
from gameserde.godot.resource.model import (
    Connection,
    ExtRef,
    ExtResource,
    Resource,
    ResourceFile,
    Scene,
    SceneNode,
    SubRef,
)

__all__ = ["FORMS", "Connection", "ExtRef", "ExtResource", "Resource", "ResourceFile", "Scene",
           "SceneNode", "SubRef", "convert", "is_binary", "read", "write"]
