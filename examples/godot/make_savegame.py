"""Writes savegame.sav: what a Godot 4 game's FileAccess.store_var calls would leave on disk.

Two records: the save dictionary, then a settings array. Run from anywhere:
``python3 examples/godot/make_savegame.py``.
"""

from __future__ import annotations

from pathlib import Path

from gameserde.godot import (
    Color,
    NodePath,
    PackedInt32Array,
    PackedStringArray,
    PackedVector2Array,
    StringName,
    TypedArray,
    Vector2i,
    Vector3,
    store_var,
)

SAVE = {
    "version": 3,
    "player": {
        "name": "Aria",
        "class": StringName("ranger"),
        "level": 12,
        "hp": 87.5,
        "position": Vector3(12.5, 0.0, -3.25),
        "inventory": ["bow", "arrows", "potion"],
        "gold": 1520,
        "skills": TypedArray("int", [1, 4, 9]),
        "spawn": NodePath.parse("/root/World/Spawn"),
    },
    "world": {
        "seed": 1234567890123,
        "time_of_day": 0.35,
        "visited": PackedStringArray(["village", "forest", "ruins"]),
        "map_cell": Vector2i(4, -2),
        "path": PackedVector2Array([(0.0, 0.0), (10.5, 2.0)]),
        "quest_flags": PackedInt32Array([1, 0, 1, 1]),
    },
}
SETTINGS = ["settings", {"volume": 0.8, "fullscreen": True, "tint": Color(1.0, 0.9, 0.8, 1.0)}]


def main() -> None:
    out = Path(__file__).with_name("savegame.sav")
    out.write_bytes(store_var(SAVE) + store_var(SETTINGS))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
