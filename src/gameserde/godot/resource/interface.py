"""Resource files through the Godot codec (:class:`gameserde.godot.GodotCodec`): the codec
hands a resource or scene file here when it sees one by its first bytes (``RSRC``,
``RSCC``, ``[gd_resource``, ``[gd_scene``, after a byte-order mark or blank lines), and a
JSON document of one by its header; ``target`` (the output's name) chooses the form
written (``.res``/``.scn`` binary, ``.tres``/``.tscn`` text; other names: the form read).
So ``gameserde decode godot level.tscn``, ``encode godot level.json -o level.scn`` and
``convert godot save.res -o save.tres`` work with no option.
"""

from __future__ import annotations

import os
from typing import Any

from gameserde._jsonio import dumps
from gameserde.codecs import ByteMap
from gameserde.errors import DecodeError, UsageError
from gameserde.godot.resource import compressed, files, jsonview
from gameserde.godot.resource.inspect import regions
from gameserde.godot.resource.model import ResourceFile

__all__ = ["BINARY_SUFFIXES", "TEXT_SUFFIXES", "ResourceSide", "form_of_name",
           "is_resource_data"]

BINARY_SUFFIXES = (".res", ".scn")
TEXT_SUFFIXES = (".tres", ".tscn")
_TEXT_STARTS = (b"[gd_resource", b"[gd_scene")


def form_of_name(name: str | None) -> str | None:
    """The form a file name's extension names (``"binary"``, ``"text"``), or None."""
    suffix = os.path.splitext(name or "")[1].lower()
    if suffix in BINARY_SUFFIXES:
        return "binary"
    if suffix in TEXT_SUFFIXES:
        return "text"
    return None


def is_resource_data(data: Any) -> bool:
    """Whether ``data`` is a resource or scene file rather than Variants (bytes that start
    as one; Variants' base64 text may come as ``str``)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        return False
    if files.is_binary(data):
        return True
    head = bytes(data[:64]).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(_TEXT_STARTS)


class ResourceSide:
    """What the Godot codec does with resource files: ``json`` is its Variant view,
    ``target`` the name of the file it writes (None: written in the form read)."""

    def __init__(self, json: str, target: str | None) -> None:
        self.json = json
        self.target = target

    def decode(self, data: bytes | bytearray | memoryview) -> ResourceFile:
        return files.read(data)

    def encode(self, file: ResourceFile) -> bytes:
        return files.write(file, form_of_name(self.target) or file.form)

    def to_jsonable(self, file: ResourceFile) -> dict[str, Any]:
        return jsonview.to_jsonable(file, mode=self.json)

    def to_json(self, data: bytes | bytearray | memoryview, *, pretty: bool = False) -> str:
        return dumps(self.to_jsonable(self.decode(data)), pretty=pretty).decode("utf-8")

    def from_jsonable(self, doc: Any) -> ResourceFile:
        return jsonview.from_jsonable(doc)

    def verify(self, data: bytes | bytearray | memoryview) -> str:
        """``ok: ...`` when the file reads whole and writes back to the same bytes (for a
        compressed file: the same stream)."""
        file = self.decode(data)
        again = files.write(file)
        same = again == bytes(data) or (
            compressed.is_compressed(data)
            and compressed.decompress(again)[0] == compressed.decompress(data)[0])
        if not same:
            raise DecodeError("the file reads, but writing it back does not give its bytes: "
                              "please report it", format="godot", verb="verify")
        what = "scene" if file.scene is not None else f"resource of type {file.type}"
        scene = f", {len(file.scene.nodes)} nodes" if file.scene is not None else ""
        return (f"ok: a {file.form} {what}, Godot {file.engine[0]} (format {file.format}): "
                f"{len(file.resources)} resources, {len(file.external)} external{scene}")

    def inspect(self, data: bytes | bytearray | memoryview) -> ByteMap:
        """The byte map of a binary resource file (:mod:`.inspect`)."""
        if not files.is_binary(data):
            raise UsageError("a text resource file names every value in its own text: inspect "
                             "maps binary ones (.res, .scn); decode reads a text one")
        found = regions(data)
        return ByteMap("godot", found.data, found.rows, error=found.error, notes=found.notes)
