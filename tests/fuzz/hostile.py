"""Families of hostile inputs that grow with a parameter, for the growth tests and the
reproducers: each function gives a valid (or validly framed) input of size about linear in
its argument.
"""

from __future__ import annotations

import struct

from gameserde import godot
from gameserde.flatbuffers import Builder

NODE_SCHEMA = """
table Node { kids:[Node]; names:[string]; name:string; data:[ubyte]; n:int; }
root_type Node;
"""
"""A recursive table: lets a buffer share offsets (a DAG) and nest tables."""

SLOTS = {"kids": 0, "names": 1, "name": 2, "data": 3, "n": 4}


def _node(b: Builder, **slots: int) -> int:
    b.start_object(5)
    for name, off in slots.items():
        b.prepend_uoffset_relative_slot(SLOTS[name], off, 0)
    return b.end_object()


def _offsets(b: Builder, targets: list[int]) -> int:
    b.start_vector(4, len(targets), 4)
    for off in reversed(targets):
        b.prepend_uoffset_relative(off)
    return b.end_vector()


def fb_dag(levels: int) -> bytes:
    """``levels`` Nodes, each with a vector of two offsets to the one below: 40 bytes a level,
    a tree of 2**levels Nodes when expanded."""
    b = Builder()
    node = _node(b)
    for _ in range(levels):
        node = _node(b, kids=_offsets(b, [node, node]))
    b.finish(node)
    return b.output()


def fb_shared_string(refs: int, length: int) -> bytes:
    """A vector of ``refs`` offsets to one string of ``length`` bytes."""
    b = Builder()
    s = b.create_string("x" * length)
    b.finish(_node(b, names=_offsets(b, [s] * refs)))
    return b.output()


def fb_wide(n: int) -> bytes:
    """A vector of ``n`` distinct empty Nodes."""
    b = Builder()
    kids = [_node(b) for _ in range(n)]
    b.finish(_node(b, kids=_offsets(b, kids)))
    return b.output()


def fb_deep(levels: int) -> bytes:
    """``levels`` Nodes nested through one-element ``kids`` vectors."""
    b = Builder()
    node = _node(b)
    for _ in range(levels):
        node = _node(b, kids=_offsets(b, [node]))
    b.finish(node)
    return b.output()


def fb_long_string(length: int) -> bytes:
    b = Builder()
    b.finish(_node(b, name=b.create_string("y" * length)))
    return b.output()


def fb_bytes(length: int) -> bytes:
    b = Builder()
    b.finish(_node(b, data=b.create_byte_vector(bytes(range(256)) * (length // 256))))
    return b.output()


def fb_claimed_length(claim: int) -> bytes:
    """A Node whose ``data`` vector claims ``claim`` elements in a small buffer."""
    buf = bytearray(fb_bytes(256))
    length_at = buf.index(bytes(range(8))) - 4
    buf[length_at:length_at + 4] = struct.pack("<I", claim)
    return bytes(buf)


def godot_long_string(length: int) -> bytes:
    return godot.encode("z" * length)


def godot_wide_array(n: int) -> bytes:
    return godot.encode(list(range(n)))


def godot_wide_dictionary(n: int) -> bytes:
    return godot.encode({f"k{i}": i for i in range(n)})


def godot_deep_arrays(levels: int) -> bytes:
    """``levels`` Arrays each holding the next: 8 bytes a level."""
    return b"\x1c\x00\x00\x00\x01\x00\x00\x00" * levels + b"\x00\x00\x00\x00"


def godot_packed(n: int) -> bytes:
    return godot.encode(godot.PackedFloat64Array([0.5] * n))


def godot_claimed_array(claim: int) -> bytes:
    """An Array that claims ``claim`` elements and holds one."""
    return struct.pack("<II", 0x1C, claim) + b"\x00\x00\x00\x00"
