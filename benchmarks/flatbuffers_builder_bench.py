"""gameserde's FlatBuffers Builder vs the official ``flatbuffers.Builder`` (25.12.19), same run.

Workload (spec flatbuffers.md §1, §7): the seed Monster (196 bytes) built N times, each side
issuing the same builder calls. Three scenarios, each checked to give identical bytes on both
sides before it is timed:

* ``op-by-op``: the seed's C# call order, call for call (10 ``prepend_uint8`` for the
  inventory, ``prep`` + 3 ``prepend_float32`` per Vec3), a new builder per message;
* ``op-by-op, clear()``: the same, one builder reused with ``clear()``;
* ``bulk``: each side's bulk calls for the same bytes: ours ``create_byte_vector``,
  ``prepend_raw`` and ``create_vector_bytes``; the official runtime ``CreateByteVector`` (it has
  no bulk call for structs, so Vec3s stay ``Prep`` + 3 ``PrependFloat32``).

Each figure is the best of several runs with the garbage collector off; ratio = our
messages/s / official messages/s.

    python3 benchmarks/flatbuffers_builder_bench.py [--messages N] [--runs N]
"""

from __future__ import annotations

import argparse
import gc
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import flatbuffers  # the official runtime from PyPI (ruff files it as first-party)
from gameserde.flatbuffers import Builder

# --------------------------------------------------------------------- official runtime


def official_vec3(b: Any, x: float, y: float, z: float) -> int:
    b.Prep(4, 12)
    b.PrependFloat32(z)
    b.PrependFloat32(y)
    b.PrependFloat32(x)
    return int(b.Offset())


def official_weapon(b: Any, name: int, damage: int) -> int:
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependInt16Slot(1, damage, 0)
    return int(b.EndObject())


def official_monster(b: Any, bulk: bool) -> bytes:
    name = b.CreateString("Orc")
    if bulk:
        inventory = b.CreateByteVector(INVENTORY)
    else:
        b.StartVector(1, 10, 1)
        for i in range(9, -1, -1):
            b.PrependUint8(i)
        inventory = b.EndVector()
    sword = official_weapon(b, b.CreateString("Sword"), 3)
    axe = official_weapon(b, b.CreateString("Axe"), 5)
    b.StartVector(4, 2, 4)
    b.PrependUOffsetTRelative(axe)
    b.PrependUOffsetTRelative(sword)
    weapons = b.EndVector()
    b.StartVector(12, 2, 4)
    official_vec3(b, 1, 2, 3)
    official_vec3(b, 4, 5, 6)
    path = b.EndVector()
    b.StartObject(11)
    b.PrependStructSlot(0, official_vec3(b, 1, 2, 3), 0)
    b.PrependInt16Slot(2, 300, 100)
    b.PrependUOffsetTRelativeSlot(3, name, 0)
    b.PrependUOffsetTRelativeSlot(5, inventory, 0)
    b.PrependInt8Slot(6, 0, 2)
    b.PrependUOffsetTRelativeSlot(7, weapons, 0)
    b.PrependUint8Slot(8, 1, 0)
    b.PrependUOffsetTRelativeSlot(9, axe, 0)
    b.PrependUOffsetTRelativeSlot(10, path, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


# ----------------------------------------------------------------------------- ours

INVENTORY = bytes(range(10))
_pack_vec3 = struct.Struct("<3f").pack
_pack_path = struct.Struct("<6f").pack


def our_vec3(b: Builder, x: float, y: float, z: float) -> int:
    b.prep(4, 12)
    b.prepend_float32(z)
    b.prepend_float32(y)
    b.prepend_float32(x)
    return b.offset()


def our_weapon(b: Builder, name: int, damage: int) -> int:
    b.start_object(2)
    b.prepend_uoffset_relative_slot(0, name, 0)
    b.prepend_int16_slot(1, damage, 0)
    return b.end_object()


def our_monster(b: Builder, bulk: bool) -> bytes:
    name = b.create_string("Orc")
    if bulk:
        inventory = b.create_byte_vector(INVENTORY)
    else:
        b.start_vector(1, 10, 1)
        for i in range(9, -1, -1):
            b.prepend_uint8(i)
        inventory = b.end_vector()
    sword = our_weapon(b, b.create_string("Sword"), 3)
    axe = our_weapon(b, b.create_string("Axe"), 5)
    b.start_vector(4, 2, 4)
    b.prepend_uoffset_relative(axe)
    b.prepend_uoffset_relative(sword)
    weapons = b.end_vector()
    if bulk:
        path = b.create_vector_bytes(_pack_path(4, 5, 6, 1, 2, 3), 12, 2, 4)
    else:
        b.start_vector(12, 2, 4)
        our_vec3(b, 1, 2, 3)
        our_vec3(b, 4, 5, 6)
        path = b.end_vector()
    b.start_object(11)
    if bulk:
        b.prepend_struct_slot(0, b.prepend_raw(_pack_vec3(1, 2, 3), 4), 0)
    else:
        b.prepend_struct_slot(0, our_vec3(b, 1, 2, 3), 0)
    b.prepend_int16_slot(2, 300, 100)
    b.prepend_uoffset_relative_slot(3, name, 0)
    b.prepend_uoffset_relative_slot(5, inventory, 0)
    b.prepend_int8_slot(6, 0, 2)
    b.prepend_uoffset_relative_slot(7, weapons, 0)
    b.prepend_uint8_slot(8, 1, 0)
    b.prepend_uoffset_relative_slot(9, axe, 0)
    b.prepend_uoffset_relative_slot(10, path, 0)
    b.finish(b.end_object())
    return b.output()


# ---------------------------------------------------------------------------- timing

Build = Callable[[Any, bool], bytes]


def rate(build: Build, make: Callable[[], Any], bulk: bool, reuse: bool, messages: int,
         runs: int) -> float:
    """Best messages/s over ``runs`` runs of ``messages`` messages."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(runs):
            if reuse:
                b = make()
                clear = b.clear if isinstance(b, Builder) else b.Clear
                t0 = time.perf_counter()
                for _ in range(messages):
                    clear()
                    build(b, bulk)
            else:
                t0 = time.perf_counter()
                for _ in range(messages):
                    build(make(), bulk)
            best = min(best, time.perf_counter() - t0)
    finally:
        gc.enable()
    return messages / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    def official() -> Any:
        return flatbuffers.Builder(1024)

    scenarios = [("op-by-op", False, False), ("op-by-op, clear()", False, True),
                 ("bulk", True, False)]
    print(f"workload: the seed Monster, {args.messages} messages per run, best of {args.runs}")
    print(f"{'scenario':<20}{'official msg/s':>16}{'ours msg/s':>14}{'ratio':>8}")
    for label, bulk, reuse in scenarios:
        theirs_bytes = official_monster(official(), bulk)
        ours_bytes = our_monster(Builder(), bulk)
        if ours_bytes != theirs_bytes or len(ours_bytes) != 196:
            sys.exit(f"{label}: the two builders' bytes differ")
        theirs = rate(official_monster, official, bulk, reuse, args.messages, args.runs)
        ours = rate(our_monster, Builder, bulk, reuse, args.messages, args.runs)
        print(f"{label:<20}{theirs:16,.0f}{ours:14,.0f}{ours / theirs:8.2f}")
    print("ratio = our messages/s / official messages/s (identical 196-byte output)")


if __name__ == "__main__":
    main()
