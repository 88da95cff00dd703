"""Reading and writing resource files of either form: :func:`read` tells a binary file
(``RSRC``, ``RSCC``) from a text one by its first bytes, and gives a scene's
:class:`~gameserde.godot.resource.model.Scene` whatever the form (a binary scene's
``_bundled`` dictionary read by :mod:`.scene`); :func:`write` writes a file in its form or
in the other one (through :func:`.convert.convert`).

For a binary scene, ``kept`` has ``"bundled"`` and ``"bundled_at"``
(:func:`.convert.lift`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gameserde.godot.resource import binary, compressed, scene, text
from gameserde.godot.resource.convert import BUNDLED, convert, lift
from gameserde.godot.resource.model import Resource, ResourceFile

__all__ = ["is_binary", "read", "write"]


def is_binary(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` starts as a binary resource (``RSRC``) or a compressed one
    (``RSCC``)."""
    return bytes(data[:4]) == binary.MAGIC or compressed.is_compressed(data)


def read(data: bytes | bytearray | memoryview | str, *,
         max_ratio: int = compressed.DEFAULT_MAX_RATIO) -> ResourceFile:
    """The resource or scene file ``data`` (bytes as stored; text may be given as ``str``).
    ``max_ratio``: how many times its own size a compressed file may inflate to."""
    if isinstance(data, str):
        return text.read(data)
    if not is_binary(data):
        return text.read(bytes(data))
    return lift(binary.read(data, max_ratio=max_ratio))


def write(file: ResourceFile, form: str | None = None) -> bytes:
    """The bytes of ``file`` in ``form`` (``"binary"`` or ``"text"``; default: its own).
    A file that was read and not changed is written back byte for byte in its own form."""
    form = form or file.form
    if form != file.form:
        file = convert(file, form)
    if form == "text":
        return text.write(file).encode("utf-8")
    if file.scene is not None:
        file = _with_bundled(file)
    return binary.write(file)


def _with_bundled(file: ResourceFile) -> ResourceFile:
    """``file`` with its scene packed into the main resource's ``_bundled`` (where the file
    read had it), the file read's own dictionary when the scene is unchanged."""
    assert file.scene is not None
    kept = {"bundled": file.kept["bundled"]} if "bundled" in file.kept else None
    bundled = scene.write_bundled(file.scene, kept, order="pack" if kept else "text")
    items: list[tuple[str, Any]] = list(file.main.properties.items())
    at = int(file.kept.get("bundled_at", len(items)))
    items.insert(min(max(at, 0), len(items)), (BUNDLED, bundled))
    main = Resource(file.main.type, file.main.id, dict(items))
    return replace(file, resources=[*file.resources[:-1], main])
