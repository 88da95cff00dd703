"""Deterministic inputs of every format for the HTML byte map pages of ``gameserde inspect``:
the examples, hostile strings, damaged data and a megabyte of realistic data.

Each :class:`MapInput` is read by ``gameserde.codec(input.format, **input.options)``, or on
the command line by ``gameserde inspect FORMAT *input.cli FILE``. Write the data to a file
named ``*.bin``: O3DE picks its reader by the file's suffix (``.setreg`` reads trailing
commas), and a ``.bin`` file is read as the options say. Schemas are absolute paths into
``examples/``.

Which hostile strings a format cannot carry: :data:`CANNOT_CARRY`. How a string shows in a
row's note (Python's or JSON's escapes, FlatBuffers' shortened literals): :func:`shown_in`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gameserde
from gameserde.kingsisle import COMPACT_LENGTH_PREFIXES, HUMAN_READABLE_ENUMS, KiObject, string_id

__all__ = ["CANNOT_CARRY", "FORMATS", "HOSTILE_STRINGS", "MEGABYTE", "MapInput", "damaged",
           "examples", "hostile", "megabyte", "shown_in"]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FORMATS = ("godot", "flatbuffers", "zeze", "kingsisle", "o3de")

HOSTILE_STRINGS: tuple[str, ...] = (
    "<script>window.__gameserde_pwned=1</script>",
    '"><img src=x onerror="window.__gameserde_pwned=2">',
    "'single' & \"double\" quotes",
    "NUL\x00inside",
    "</script><script>window.__gameserde_pwned=3</script>",
    "line\u2028sep",
    "<!--",
    "]]>",
)
"""Strings that break a page that does not escape what it shows: markup, a script end tag,
quotes of both kinds, a NUL, a JavaScript line separator, comment and CDATA ends."""

CANNOT_CARRY: dict[str, frozenset[str]] = {
    "godot": frozenset({"NUL\x00inside"}),
}
"""The hostile strings a format's data cannot hold. Godot's String ends at a NUL (the
engine's own reading): the input has "NUL\\x00inside", its map shows "NUL"."""

MEGABYTE = (1_000_000, 1_100_000)
"""The size range of :func:`megabyte`'s data in bytes (first inclusive, last exclusive)."""

_FBS = str(EXAMPLES / "flatbuffers" / "monster.fbs")
_ZEZE = str(EXAMPLES / "zeze" / "game.xml")
_KI = str(EXAMPLES / "kingsisle" / "types.json")
_PREFAB = "AzToolsFramework::Prefab::Instance"


@dataclass(frozen=True)
class MapInput:
    """An input of ``inspect``: its ``name`` ("godot-example", "kingsisle-hostile"), its
    ``format``, the codec's ``options`` (``gameserde.codec(format, **options)``), the same
    options as command-line arguments (between FORMAT and FILE) and the ``data``."""

    name: str
    format: str
    options: dict[str, Any]
    cli: tuple[str, ...]
    data: bytes

    def codec(self) -> gameserde.Codec:
        """The codec that reads :attr:`data`."""
        return gameserde.codec(self.format, **self.options)


_READ: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "godot": ({"framing": "store_var"}, ("--framing", "store_var")),
    "flatbuffers": ({"schema": _FBS}, ("--schema", _FBS)),
    "zeze": ({"schema": _ZEZE, "type": "BRole"}, ("--schema", _ZEZE, "--type", "BRole")),
    "kingsisle": ({"schema": [_KI]}, ("--schema", _KI)),
    "o3de": ({"schema": "none"}, ("--schema", "none")),
}
"""How each format's inputs are read (the O3DE example, a prefab, is typed instead)."""


def _input(name: str, fmt: str, data: bytes) -> MapInput:
    options, cli = _READ[fmt]
    return MapInput(name, fmt, dict(options), cli, data)


def _codec(fmt: str) -> gameserde.Codec:
    return gameserde.codec(fmt, **_READ[fmt][0])


def _json(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# The examples


@functools.cache
def _examples() -> tuple[MapInput, ...]:
    fb = _codec("flatbuffers").from_json((EXAMPLES / "flatbuffers" / "monster.json").read_bytes())
    zeze = _codec("zeze").from_json((EXAMPLES / "zeze" / "role.json").read_bytes())
    item = (EXAMPLES / "kingsisle" / "item.bin").read_bytes()
    bits = COMPACT_LENGTH_PREFIXES | HUMAN_READABLE_ENUMS
    prefab_options = {"schema": "engine", "type": _PREFAB}
    return (
        _input("godot-example", "godot", (EXAMPLES / "godot" / "savegame.sav").read_bytes()),
        _input("flatbuffers-example", "flatbuffers", fb),
        _input("zeze-example", "zeze", zeze),
        _input("kingsisle-example", "kingsisle", item),
        MapInput("kingsisle-bits", "kingsisle", {"schema": [_KI], "flags": bits},
                 ("--schema", _KI, "--flags", str(bits)),
                 gameserde.codec("kingsisle", schema=[_KI], flags=bits).encode(
                     _codec("kingsisle").decode(item))),
        MapInput("o3de-example", "o3de", prefab_options,
                 ("--schema", "engine", "--type", _PREFAB),
                 (EXAMPLES / "o3de" / "courtyard.prefab").read_bytes()),
    )


def examples() -> list[MapInput]:
    """The files of ``examples/``, one per format, and ``kingsisle-bits``: the KingsIsle item
    with compact length prefixes and enums as strings, where the enum after a bool starts at
    bit 1 of its byte (every KingsIsle row is a bit field, with ``bits``; in the example
    all start at bit 0)."""
    return list(_examples())


# ---------------------------------------------------------------------------------------------
# Hostile strings


def _ki(name: str, **props: Any) -> KiObject:
    return KiObject(name, string_id(name), props)


@functools.cache
def _hostile() -> tuple[MapInput, ...]:
    h = HOSTILE_STRINGS
    godot = _codec("godot").encode([{s: s for s in h}, list(h)])
    fb = _codec("flatbuffers").encode({
        "name": h[0], "weapons": [{"name": s, "damage": i} for i, s in enumerate(h)],
        "equipped_type": "Weapon", "equipped": {"name": h[1], "damage": 1}})
    role = _json("zeze/role.json")
    role |= {"name": h[0], "attrs": {s: i for i, s in enumerate(h)},
             "pet": {"bean": "BDog", "value": {"tricks": list(h)}}}
    zeze = _codec("zeze").from_json(json.dumps(role))
    item = _codec("kingsisle").decode((EXAMPLES / "kingsisle" / "item.bin").read_bytes())
    item |= {
        "m_objectName": h[0].encode(), "m_displayName": h[1],
        "m_tags": [s.encode() for s in h],
        "m_effects": [_ki("class StatEffect", m_stat=s.encode(), m_amount=i, m_percent=False)
                      for i, s in enumerate(h)]}
    ki = _codec("kingsisle").encode(item)
    doc = {s: {"value": s, s: [s, {s: s}]} for s in h}
    o3de = json.dumps(doc, ensure_ascii=False, indent=4).encode()
    return (_input("godot-hostile", "godot", godot),
            _input("flatbuffers-hostile", "flatbuffers", fb),
            _input("zeze-hostile", "zeze", zeze),
            _input("kingsisle-hostile", "kingsisle", ki),
            _input("o3de-hostile", "o3de", o3de))


def hostile() -> list[MapInput]:
    """Per format, data whose strings hold every one of :data:`HOSTILE_STRINGS`, and whose
    keys too where the data has keys: Godot Dictionary keys, Zeze map keys, O3DE object keys.
    FlatBuffers' keys are the schema's field names: the strings are the monster's name and
    its weapons' names. KingsIsle's are the type list's: the strings are the item's
    ``std::string`` lists and its one ``std::wstring``."""
    return list(_hostile())


def shown_in(text: str, string: str) -> bool:
    """Whether ``text`` (a row's path or note) shows ``string``: as it is, with Python's or
    JSON's escapes, as UTF-8 bytes with Python's escapes, or (a FlatBuffers note of a
    longer literal) as its first and last 20 characters around "..."."""
    def forms(s: str) -> list[str]:
        return [s, repr(s)[1:-1], repr(s.encode())[2:-1], json.dumps(s)[1:-1],
                json.dumps(s, ensure_ascii=False)[1:-1]]

    if any(form in text for form in forms(string)):
        return True
    return len(string) > 40 and any(
        f"{head}...{tail}" in text for head, tail in zip(forms(string[:20]),
                                                         forms(string[-20:]), strict=True))


# ---------------------------------------------------------------------------------------------
# Damaged data


def _damage(example: MapInput, data: bytes) -> MapInput:
    return dataclasses.replace(example, name=example.name.replace("-example", "-damaged"),
                               options=dict(example.options), data=data)


@functools.cache
def _damaged() -> tuple[MapInput, ...]:
    by_format = {i.format: i for i in _examples() if i.name.endswith("-example")}
    godot = by_format["godot"].data[:len(by_format["godot"].data) * 2 // 3]
    godot = (len(godot) - 4).to_bytes(4, "little") + godot[4:]  # the record's length, cut
    fb = bytearray(by_format["flatbuffers"].data)
    fb[-8:] = b"\xff" * 8  # the last string's length (and text): it runs past the end
    zeze, ki = by_format["zeze"].data, by_format["kingsisle"].data
    o3de = by_format["o3de"].data.replace(b'"Id": 9352913463211542519', b'"Id": "nine"')
    return (_damage(by_format["godot"], godot),
            _damage(by_format["flatbuffers"], bytes(fb)),
            _damage(by_format["zeze"], zeze[:len(zeze) * 2 // 3]),
            _damage(by_format["kingsisle"], ki[:len(ki) * 2 // 3]),
            _damage(by_format["o3de"], o3de))


def damaged() -> list[MapInput]:
    """Per format, an example cut after two thirds of its bytes (Godot: its store_var record
    and the record's length prefix; FlatBuffers: its last 8 bytes overwritten with 0xff, a
    string running past the end; O3DE: the prefab with a component id that is a string): the
    map has rows up to the error (O3DE: every value's row, and a row per issue of the
    load)."""
    return list(_damaged())


# ---------------------------------------------------------------------------------------------
# A megabyte


_WORDS = ("fire", "ice", "storm", "myth", "life", "death", "balance", "staff", "wand", "amulet",
          "ring", "deck", "hat", "robe", "boots", "mount", "pet", "house", "garden", "quest",
          "Ravenwood", "Krokotopia", "Marleybone", "Mooshu", "Dragonspyre", "Celestia",
          "Zafaria", "Avalon", "Azteca", "Khrysalis", "Polaris", "Mirage", "Empyrea",
          "épée", "Straße", "ドラゴン", "龍の杖", "Ωmega", "naïve café")


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, words)))


def _godot_record(rng: random.Random, i: int) -> Any:
    return {"id": i, "name": _text(rng, 4), "biography": _text(rng, 150),
            "level": rng.randint(1, 150),
            "hp": round(rng.uniform(0, 5000), 2), "alive": rng.random() < 0.9,
            "tags": [_text(rng, 2) for _ in range(rng.randint(0, 4))],
            "stats": {_text(rng, 1): rng.randint(-100, 100) for _ in range(rng.randint(0, 3))}}


def _godot_data(rng: random.Random, n: int) -> bytes:
    return _codec("godot").encode([_godot_record(rng, i) for i in range(n)])


def _flatbuffers_data(rng: random.Random, n: int) -> bytes:
    weapons = [{"name": _text(rng, 80), "damage": rng.randint(-32768, 32767)} for _ in range(n)]
    return _codec("flatbuffers").encode({
        "pos": {"x": 1.5, "y": -2.0, "z": 3.25}, "hp": 300, "name": _text(rng, 8),
        "inventory": [rng.randrange(256) for _ in range(n)], "color": "Green",
        "weapons": weapons, "equipped_type": "Weapon", "equipped": weapons[0],
        "path": [{"x": rng.uniform(-1e3, 1e3), "y": rng.uniform(-1e3, 1e3),
                  "z": rng.uniform(-1e3, 1e3)} for _ in range(n // 4)]})


def _zeze_data(rng: random.Random, n: int) -> bytes:
    role = _json("zeze/role.json")
    role |= {"name": _text(rng, 6),
             "items": [{"id": rng.randint(1, 1 << 30), "count": rng.randint(1, 99),
                        "expire": rng.choice([0, rng.randint(1, 1 << 42)])}
                       for _ in range(n // 4)],
             "attrs": {f"{_text(rng, 3)} #{i}": rng.randint(-(1 << 40), 1 << 40)
                       for i in range(n // 2)},
             "pet": {"bean": "BDog", "value": {"tricks": [_text(rng, 60) for _ in range(n)]}}}
    return _codec("zeze").from_json(json.dumps(role))


def _kingsisle_data(rng: random.Random, n: int) -> bytes:
    item = _codec("kingsisle").decode((EXAMPLES / "kingsisle" / "item.bin").read_bytes())
    effects = []
    for i in range(n // 4):
        stat = {"m_stat": _text(rng, 40).encode(), "m_amount": rng.randint(-1000, 1000),
                "m_percent": rng.random() < 0.5}
        if i % 3:
            effects.append(_ki("class StatEffect", **stat))
        else:
            effects.append(_ki("class DamageEffect", **stat, m_school=rng.randrange(7)))
    item |= {"m_displayName": _text(rng, 6),
             "m_tags": [_text(rng, 60).encode() for _ in range(n)],
             "m_effects": effects}
    return _codec("kingsisle").encode(item)


def _o3de_data(rng: random.Random, n: int) -> bytes:
    entities = {
        f"Entity_[{i}]": {
            "Id": f"Entity_[{i}]", "Name": _text(rng, 3),
            "Components": {
                "Transform": {"Translate": [rng.uniform(-1e3, 1e3) for _ in range(3)],
                              "Scale": round(rng.uniform(0.1, 4), 3)},
                "Tags": [_text(rng, 1) for _ in range(rng.randint(0, 3))],
                "Visible": rng.random() < 0.8, "Parent": None}}
        for i in range(n)}
    return json.dumps({"Entities": entities}, ensure_ascii=False, indent=4).encode()


_MAKERS: dict[str, Callable[[random.Random, int], bytes]] = {
    "godot": _godot_data, "flatbuffers": _flatbuffers_data, "zeze": _zeze_data,
    "kingsisle": _kingsisle_data, "o3de": _o3de_data}


@functools.cache
def megabyte(format: str) -> MapInput:
    """About a megabyte (:data:`MEGABYTE`) of ``format``'s data: thousands of records,
    elements and strings of varied content (seeded, the same on every run)."""
    make = _MAKERS[format]
    low, high = MEGABYTE
    n = 1000
    for _ in range(8):
        data = make(random.Random(f"{format} {n}"), n)
        if low <= len(data) < high:
            return _input(f"{format}-megabyte", format, data)
        n = max(1, n * (low + high) // 2 // len(data))
    raise AssertionError(f"no megabyte of {format} data: {n} records make {len(data)} bytes")
