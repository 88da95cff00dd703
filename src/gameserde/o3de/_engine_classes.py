"""Shared helpers of the engine registry's modules: registering an engine class (its
generated dataclass shared by every engine registry), float32 defaults, and the component
adapter pattern of O3DE (``EditorComponentAdapter`` and ``EditorRenderComponentAdapter``
over a controller holding a configuration)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from gameserde.o3de.registry import Registry

__all__ = ["COMPONENT", "COMPONENT_CONFIG", "EDITOR_BASE", "FieldSpec", "add_adapter",
           "add_class", "f32"]

COMPONENT = "AZ::Component"
EDITOR_BASE = "AzToolsFramework::Components::EditorComponentBase"
COMPONENT_CONFIG = "AZ::ComponentConfig"

FieldSpec = tuple[str, str] | tuple[str, str, object]

_PYTHON_TYPES: dict[str, type] = {}
"""The dataclass of each engine class, made by the first registry and shared by the later
ones, so values loaded with one engine registry store with another."""


def add_class(reg: Registry, name: str, uuid: str | None, fields: Sequence[FieldSpec] = (),
              **options: Any) -> None:
    """``reg.add_class`` with the dataclass of an earlier engine registry, if any."""
    info = reg.add_class(name, uuid, fields, python_type=_PYTHON_TYPES.get(name), **options)
    if info.python_type is not None:
        _PYTHON_TYPES.setdefault(name, info.python_type)


def f32(value: float) -> float:
    """A C++ ``float`` default (``0.0015f``) as the double it widens to."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def add_adapter(reg: Registry, editor: str, uuid: str, controller: str, controller_uuid: str,
                config: str, *, runtime: str, render: bool = True,
                fields: Sequence[FieldSpec] = (), registered_name: str | None = None,
                controller_name: str | None = None) -> None:
    """An editor component made with ``EditorComponentAdapter<TController, TRuntime,
    TConfig>`` (``Controller``: the controller, whose only reflected member is
    ``Configuration``), through ``EditorRenderComponentAdapter`` (no members of its own) when
    ``render``; ``fields`` are the editor class's own; ``registered_name`` and
    ``controller_name`` are the names of the ``AZ_RTTI`` macros when they are not the full
    C++ names. The configuration class must be
    registered first. The two template bases never appear in ``$type``; their ids here are
    gameserde-made (the engine combines the template's id with its arguments')."""
    add_class(reg, controller, controller_uuid, [("Configuration", config)],
              registered_name=controller_name or controller)
    arguments = f"{controller}, {runtime}, {config}"
    base = f"AzToolsFramework::Components::EditorComponentAdapter<{arguments}>"
    add_class(reg, base, None, [("Controller", controller)], bases=[EDITOR_BASE],
              registered_name="EditorComponentAdapter")
    if render:
        adapter = f"AZ::Render::EditorRenderComponentAdapter<{arguments}>"
        add_class(reg, adapter, None, bases=[base], registered_name="EditorRenderComponentAdapter")
        base = adapter
    add_class(reg, editor, uuid, fields, bases=[base],
              registered_name=registered_name or editor)
