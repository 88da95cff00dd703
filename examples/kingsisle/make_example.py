"""Writes types.json, a small Wizard101-style type list (wiztype's v2 form, hashes computed as
the game computes them), and item.bin, an item template in it as a game client's shallow
stream with flags 0. Run from anywhere: ``python3 examples/kingsisle/make_example.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from gameserde.kingsisle import KiObject, Serializer, load_schema, property_hash, string_id

HERE = Path(__file__).resolve().parent
PUBLIC = 31  # SAVE | COPY | PUBLIC | TRANSMIT | PRIVILEGED_TRANSMIT
ENUM, BITS = 1 << 21, 1 << 20
OPTIONS = {
    "enum School": {"Fire": 0, "Ice": 1, "Storm": 2, "Myth": 3, "Life": 4, "Death": 5,
                    "Balance": 6, "__DEFAULT": "Fire"},
    "enum ItemFlags": {"FLAG_NoAuction": 1, "FLAG_NoTrade": 2, "FLAG_CrownsOnly": 4},
}
EFFECT = [("m_stat", "std::string", PUBLIC, False), ("m_amount", "int", PUBLIC, False),
          ("m_percent", "bool", PUBLIC, False)]
CLASSES: dict[str, tuple[list[str], list[tuple[str, str, int, bool]]]] = {
    "class StatEffect": ([], EFFECT),
    "class DamageEffect": (["class StatEffect"],
                           [*EFFECT, ("m_school", "enum School", PUBLIC | ENUM, False)]),
    "class ItemTemplate": ([], [
        ("m_templateID", "unsigned int", PUBLIC, False),
        ("m_objectName", "std::string", PUBLIC, False),
        ("m_displayName", "std::wstring", PUBLIC, False),
        ("m_school", "enum School", PUBLIC | ENUM, False),
        ("m_flags", "enum ItemFlags", PUBLIC | BITS, False),
        ("m_position", "class Vector3D", PUBLIC, False),
        ("m_tint", "class Color", PUBLIC, False),
        ("m_tags", "std::string", PUBLIC, True),
        ("m_effects", "class SharedPointer<class StatEffect>", PUBLIC, True),
    ]),
}


def type_list() -> dict[str, object]:
    """The v2 type list: classes keyed by their hash, properties carrying their own."""
    classes = {}
    for name, (bases, props) in CLASSES.items():
        classes[str(string_id(name))] = {
            "name": name, "bases": bases, "hash": string_id(name), "singleton": False,
            "properties": {
                prop: {"type": t, "id": i, "offset": 8 * i, "flags": flags,
                       "container": "List" if dynamic else "Static", "dynamic": dynamic,
                       "singleton": False, "pointer": t.startswith("class SharedPointer"),
                       "hash": property_hash(t, prop),
                       **({"enum_options": OPTIONS[t]} if t in OPTIONS else {})}
                for i, (prop, t, flags, dynamic) in enumerate(props)}}
    return {"version": 2, "classes": classes}


def item() -> KiObject:
    """A staff of the Storm school with two effects, one of a subclass."""
    def obj(name: str, **props: object) -> KiObject:
        return KiObject(name, string_id(name), props)

    return obj("class ItemTemplate", m_templateID=1205, m_objectName=b"Staff_Storm_T3",
               m_displayName="Stormcaller's Staff", m_school=2, m_flags=1 | 4,
               m_position={"x": 12.5, "y": -3.0, "z": 0.25},
               m_tint={"r": 90, "g": 60, "b": 200, "a": 255},
               m_tags=[b"weapon", b"staff"],
               m_effects=[obj("class StatEffect", m_stat=b"MaxHealth", m_amount=120,
                              m_percent=False),
                          obj("class DamageEffect", m_stat=b"Damage", m_amount=12,
                              m_percent=True, m_school=2)])


def main() -> None:
    text = json.dumps(type_list(), indent=1) + "\n"
    (HERE / "types.json").write_text(text, encoding="utf-8")
    (HERE / "item.bin").write_bytes(Serializer(load_schema(text)).encode(item()))


if __name__ == "__main__":
    main()
