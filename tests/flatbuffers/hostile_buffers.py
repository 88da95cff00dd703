"""FlatBuffers whose offsets share data (DAGs), built with the public :class:`Builder`, for the
expansion-budget and growth tests: each is small and valid (the C++ verifier accepts it, within
its limits), and expands enormously when its shared parts are copied at every reference."""

from __future__ import annotations

from collections.abc import Callable

from gameserde.flatbuffers import Builder

NODE_SCHEMA = """
struct Pair { a:long; b:long; }
table Leaf { x:int; }
union Any { Node, Leaf, Pair, Text:string }
table Node {
  kids:[Node]; names:[string]; name:string; data:[ubyte]; n:int;
  pairs:[Pair]; one:Any; many:[Any]; inner:[ubyte] (nested_flatbuffer: "Node");
}
root_type Node;
"""
"""A recursive table with every kind of reference: tables, strings, scalar and struct vectors,
unions (single and vectors) and nested flatbuffers."""

SLOTS = {"kids": 0, "names": 1, "name": 2, "data": 3, "n": 4, "pairs": 5, "one_type": 6,
         "one": 7, "many_type": 8, "many": 9, "inner": 10}
NODE_TAG, LEAF_TAG, PAIR_TAG, TEXT_TAG = 1, 2, 3, 4


def node(b: Builder, **offsets: int) -> int:
    """A Node whose offset fields are ``offsets`` (name -> offset)."""
    b.start_object(len(SLOTS))
    for name, off in offsets.items():
        b.prepend_uoffset_relative_slot(SLOTS[name], off, 0)
    return b.end_object()


def offsets(b: Builder, targets: list[int]) -> int:
    b.start_vector(4, len(targets), 4)
    for off in reversed(targets):
        b.prepend_uoffset_relative(off)
    return b.end_vector()


def dag(levels: int) -> bytes:
    """``levels`` Nodes, each with a vector of two offsets to the one below: about 40 bytes a
    level, a tree of ``2**(levels + 1) - 1`` Nodes when expanded."""
    b = Builder()
    n = node(b)
    for _ in range(levels):
        n = node(b, kids=offsets(b, [n, n]))
    b.finish(n)
    return b.output()


def shared_string(refs: int, length: int) -> bytes:
    """A root Node whose ``kids`` are ``refs`` distinct Nodes whose ``name`` is one string of
    ``length`` bytes."""
    b = Builder()
    s = b.create_string("x" * length)
    kids = [node(b, name=s) for _ in range(refs)]
    b.finish(node(b, kids=offsets(b, kids)))
    return b.output()


def shared_names(refs: int, length: int) -> bytes:
    """A root Node whose ``names`` vector holds ``refs`` offsets to one string."""
    b = Builder()
    s = b.create_string("y" * length)
    b.finish(node(b, names=offsets(b, [s] * refs)))
    return b.output()


def shared_vector(refs: int, length: int) -> bytes:
    """``refs`` distinct Nodes sharing one vector of ``length`` offsets to one string (work
    per Node proportional to ``length``, for the verifier's sake too)."""
    b = Builder()
    s = b.create_string("z")
    names = offsets(b, [s] * length)
    kids = [node(b, names=names) for _ in range(refs)]
    b.finish(node(b, kids=offsets(b, kids)))
    return b.output()


def union_dag(levels: int) -> bytes:
    """Like :func:`dag` through a vector of unions (``many``) whose two members are the same
    Node, and a single union (``one``) holding it too."""
    b = Builder()
    n = node(b)
    for _ in range(levels):
        b.start_vector(1, 2, 1)
        b.prepend_uint8(NODE_TAG)
        b.prepend_uint8(NODE_TAG)
        types = b.end_vector()
        values = offsets(b, [n, n])
        b.start_object(len(SLOTS))
        b.prepend_uoffset_relative_slot(SLOTS["many"], values, 0)
        b.prepend_uoffset_relative_slot(SLOTS["many_type"], types, 0)
        b.prepend_uoffset_relative_slot(SLOTS["one"], n, 0)
        b.prepend_uint8_slot(SLOTS["one_type"], NODE_TAG, 0)
        n = b.end_object()
    b.finish(n)
    return b.output()


def shared_pairs(refs: int, length: int) -> bytes:
    """``refs`` Nodes sharing one vector of ``length`` structs."""
    b = Builder()
    b.start_vector(16, length, 8)
    for i in range(length):
        b.prep(8, 16)
        b.prepend_int64(i)
        b.prepend_int64(-i)
    pairs = b.end_vector()
    kids = [node(b, pairs=pairs) for _ in range(refs)]
    b.finish(node(b, kids=offsets(b, kids)))
    return b.output()


def shared_nested(refs: int, length: int) -> bytes:
    """``refs`` Nodes sharing one ``nested_flatbuffer`` vector: a Node with a ``data`` vector
    of ``length`` bytes."""
    inner = Builder()
    data = inner.create_byte_vector(bytes(length))
    inner.finish(node(inner, data=data))
    b = Builder()
    blob = b.create_byte_vector(inner.output())
    kids = [node(b, inner=blob) for _ in range(refs)]
    b.finish(node(b, kids=offsets(b, kids)))
    return b.output()


FAMILIES: dict[str, Callable[[int], bytes]] = {
    # each about linear in n: for the growth tests
    "dag": lambda n: dag(n // 8),
    "union dag": lambda n: union_dag(n // 8),
    "shared string": lambda n: shared_string(n, 4096),
    "shared names": lambda n: shared_names(n, 4096),
    "shared vector": lambda n: shared_vector(n, n),
    "shared structs": lambda n: shared_pairs(n, n),
    "shared nested flatbuffer": lambda n: shared_nested(n, 4 * n),
}
