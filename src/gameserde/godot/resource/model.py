"""The model of a Godot resource file, shared by its binary (``.res``/``.scn``) and text
(``.tres``/``.tscn``) forms: the external resources it names, the resources it holds (the
main one last) and their properties, plus what each form keeps of its own so that writing a
file that was read gives its bytes back.

Property values are the Variant values of :mod:`gameserde.godot.types`, and two reference
values that exist in resource files only (defined with the others, named here too):
:class:`ExtRef` (an external resource, by its id in the file) and :class:`SubRef` (a
resource the file holds, by its id), and in text files :class:`ResourcePath` (an external
resource named inline by its path, ``Resource("res://...")``). An inline
``Object(Type, ...)`` of a text file is a :class:`gameserde.godot.types.Object`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gameserde.godot.types import ExtRef, ResourcePath, SubRef

__all__ = ["Connection", "ExtRef", "ExtResource", "Resource", "ResourceFile", "ResourcePath",
           "Scene", "SceneNode", "SubRef"]


@dataclass
class ExtResource:
    """An external resource: its ``type``, ``path`` (``res://...``), ``id`` in the file and,
    in Godot 4, its ``uid`` (``uid://...``) when it has one."""

    type: str
    path: str
    id: str
    uid: str | None = None


@dataclass
class Resource:
    """A resource the file holds: its ``type`` (class name), ``id`` in the file and its
    ``properties`` in the order the file gives them (the engine's property order)."""

    type: str
    id: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class SceneNode:
    """A node of a scene: its ``name``, ``type`` (None for a node an instanced or inherited
    scene already has), ``parent`` path (None for the root, ``"."`` under the root), the
    scene it ``instance``s (a reference), its ``groups`` and ``properties``, and the other
    attributes a node section can carry (``index``, ``owner``, ``instance_placeholder``,
    Godot 4.6's ``unique_id``, ...) in ``extra``, by their text names."""

    name: str
    type: str | None = None
    parent: str | None = None
    instance: ExtRef | SubRef | None = None
    groups: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Connection:
    """A signal connection of a scene: ``signal`` of the node at ``source`` to ``method`` of
    the node at ``target``, with its ``flags`` (by default ``CONNECT_PERSIST``, 2, what a
    text scene's connection without ``flags=`` has), ``binds``, (Godot 4) ``unbinds``, and
    the other attributes a connection can carry (Godot 4.6's ``from_uid_path``,
    ``to_uid_path``) in ``extra``, by their text names."""

    source: str
    signal: str
    target: str
    method: str
    flags: int = 2
    binds: list[Any] = field(default_factory=list)
    unbinds: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scene:
    """What a ``PackedScene`` holds (its ``_bundled`` dictionary, or a text scene's
    ``[node]``, ``[connection]`` and ``[editable]`` sections): the ``nodes`` (parents before
    children, in the file's order), ``connections``, the paths of instanced nodes marked
    ``editable``, and the scene's format ``version`` (``_bundled``'s ``version``)."""

    nodes: list[SceneNode] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    editable: list[str] = field(default_factory=list)
    version: int = 2


@dataclass
class ResourceFile:
    """A resource or scene file: the main resource's ``type``, the ``external`` resources it
    names, the ``resources`` it holds (the main one last: for a scene, a ``PackedScene``
    whose ``_bundled`` property is the scene), and the file's ``uid`` and
    ``script_class`` (Godot 4) when it has them.

    ``engine`` is ``(major, minor)`` of the engine that wrote the file and ``format`` the
    version of its form (binary: the header's format number; text: ``format=``). ``kept``
    holds what only one form has and a byte-exact rewrite needs (binary: byte order, real_t
    size, reserved fields, the string table's order, ...; text: ``load_steps``, comments and
    spacing, each value's text as written, ...); it is the form's own business."""

    form: str
    """``"binary"`` or ``"text"``."""
    type: str
    engine: tuple[int, int]
    format: int
    external: list[ExtResource] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)
    uid: str | None = None
    script_class: str | None = None
    scene: Scene | None = None
    """A scene file's scene (the main ``PackedScene``'s ``_bundled``, read)."""
    kept: dict[str, Any] = field(default_factory=dict)

    @property
    def main(self) -> Resource:
        """The main resource (the last one)."""
        return self.resources[-1]
