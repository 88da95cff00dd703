"""Writes savegame.sav: what a Godot 4 game's FileAccess.store_var calls would leave on disk
(two records: the save dictionary, then a settings array), and savegame.tres: the same
player saved the way Godot's save-game guide recommends, a Resource with a script written
by ResourceSaver (Godot 4.3's text, as the engine lays it out). Run from anywhere:
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

RESOURCE = """\
[gd_resource type="Resource" script_class="SaveGame" load_steps=3 format=3 \
uid="uid://b6x5y7w8a4c0d"]

[ext_resource type="Script" uid="uid://cq7w2e3r4t5y6" path="res://save_game.gd" id="1_k8d2x"]
[ext_resource type="Texture2D" uid="uid://dx4a1b2c3d4e5" path="res://icons/ranger.png" \
id="2_m3p9q"]

[resource]
script = ExtResource("1_k8d2x")
player_name = "Aria"
class_name_ = &"ranger"
level = 12
hp = 87.5
gold = 1520
position = Vector3(12.5, 0, -3.25)
inventory = PackedStringArray("bow", "arrows", "potion")
skills = Array[int]([1, 4, 9])
portrait = ExtResource("2_m3p9q")
"""


def main() -> None:
    out = Path(__file__).with_name("savegame.sav")
    out.write_bytes(store_var(SAVE) + store_var(SETTINGS))
    print(f"wrote {out}")
    out = out.with_suffix(".tres")
    out.write_text(RESOURCE, encoding="utf-8", newline="\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
