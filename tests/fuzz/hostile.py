"""Families of hostile inputs that grow with a parameter, for the growth tests and the
reproducers: each function gives a valid (or validly framed) input of size about linear in
its argument.
"""

from __future__ import annotations

import struct

from gameserde import godot
from gameserde.flatbuffers import Builder
from tests.zeze import wire

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


ZEZE_SCHEMA = """<solution name="h"><module name="m" id="1">
  <bean name="E"><variable id="1" name="a" type="int"/></bean>
  <beankey name="K"><variable id="1" name="s" type="string"/>
    <variable id="2" name="v" type="vector3int"/></beankey>
  <bean name="H"><variable id="1" name="l" type="list[int]"/>
    <variable id="2" name="m" type="map[int,string]"/><variable id="3" name="s" type="string"/>
    <variable id="4" name="b" type="binary"/><variable id="5" name="lb" type="list[E]"/>
    <variable id="6" name="d" type="decimal"/>
    <variable id="7" name="ld" type="list[dynamic]"><value bean="E:1"/></variable>
    <variable id="8" name="km" type="map[K,int]"/></bean>
  <bean name="N"><variable id="1" name="kids" type="list[N]"/></bean>
  <bean name="D"><variable id="1" name="d" type="dynamic"><value bean="D:1"/></variable></bean>
  <bean name="M"><variable id="1" name="m" type="map[int,M]"/></bean>
  <bean name="T0"><variable id="1" name="x" type="int"/></bean>
  <bean name="T1"><variable id="1" name="a" type="T0"/><variable id="2" name="b" type="T0"/></bean>
  <bean name="V"><variable id="1" name="v" type="vector4"/></bean>
  <bean name="G"><variable id="1" name="t" type="list[T1]"/>
    <variable id="2" name="v" type="list[V]"/></bean>
</module></solution>"""
"""Beans for Zeze's hostile inputs: H has a field of each container and byte kind (ids 1-8;
9 and up are unknown), N, D and M nest through lists, dynamics and maps, G lists beans whose
empty body (``00``) decodes to default values: T1 (a tree of beans, 4 values) and V (a
vector4, 1 value)."""


def zeze_long_string(length: int) -> bytes:
    """H with a string of ``length`` bytes."""
    return b"\x33" + wire.blob(b"z" * length) + b"\x00"


def zeze_wide_list(n: int) -> bytes:
    """H with a list of ``n`` ints."""
    items = b"".join(wire.wlong(i * 1000) for i in range(n))
    return b"\x14" + wire.list_header(n, wire.INTEGER) + items + b"\x00"


def zeze_wide_map(n: int) -> bytes:
    """H with a map of ``n`` ints to strings."""
    pairs = b"".join(wire.wlong(i) + wire.blob(b"v%d" % i) for i in range(n))
    return b"\x25" + wire.map_header(n, wire.INTEGER, wire.BYTES) + pairs + b"\x00"


def zeze_bean_list(n: int) -> bytes:
    """H with a list of ``n`` E beans."""
    items = b"".join(b"\x10" + wire.wlong(i) + b"\x00" for i in range(n))
    return b"\x54" + wire.list_header(n, wire.BEAN) + items + b"\x00"


def zeze_dynamic_list(n: int) -> bytes:
    """H with a list of ``n`` dynamics holding E beans."""
    items = b"".join(wire.wlong(1) + b"\x10" + wire.wlong(i) + b"\x00" for i in range(n))
    return b"\x74" + wire.list_header(n, wire.DYNAMIC) + items + b"\x00"


def zeze_beankey_map(n: int) -> bytes:
    """H with a map of ``n`` distinct beankeys."""
    pairs = b"".join(b"\x13" + wire.blob(b"k%d" % i) + b"\x1b\x01\x02\x03\x00" + wire.wlong(i)
                     for i in range(n))
    return b"\x85" + wire.map_header(n, wire.BEAN, wire.INTEGER) + pairs + b"\x00"


def zeze_unknown_fields(n: int) -> bytes:
    """H with ``n`` unknown fields (ids 9 and up), kept and written back."""
    fields = b"".join(wire.tag(9 if i == 0 else 1, wire.INTEGER) + wire.wlong(i)
                      for i in range(n))
    return fields + b"\x00"


def zeze_skipped_list(n: int) -> bytes:
    """E with an unknown list of ``n`` vector3s, skipped and kept."""
    return b"\x54" + wire.list_header(n, wire.VECTOR3) + b"\x00\x00\x80\x3f" * 3 * n + b"\x00"


def zeze_layer_tags(n: int) -> bytes:
    """E followed by ``n`` end-of-layer tags, which a bean without layers skips."""
    return b"\x10\x05" + b"\x01" * n + b"\x00"


def zeze_deep_lists(levels: int) -> bytes:
    """N nested ``levels`` deep through one-bean lists: 3 bytes a level."""
    return b"\x14\x16" * levels + b"\x00" * (levels + 1)


def zeze_empty_trees(n: int) -> bytes:
    """G with a list of ``n`` empty T1 beans, each decoding to 4 default values."""
    return b"\x14" + wire.list_header(n, wire.BEAN) + b"\x00" * n + b"\x00"


def zeze_empty_vectors(n: int) -> bytes:
    """G with a list of ``n`` empty V beans, each decoding to 1 default value."""
    return b"\x24" + wire.list_header(n, wire.BEAN) + b"\x00" * n + b"\x00"


def zeze_claimed_string(claim: int) -> bytes:
    """H with a string that claims ``claim`` bytes and has eight."""
    return b"\x33" + wire.wuint(claim) + b"z" * 8


def zeze_solution(n: int) -> bytes:
    """A solution of ``n`` beans, each holding a list of the one before and a dynamic."""
    beans = "".join(
        f'<bean name="B{i}"><variable id="1" name="a" type="list[B{max(i - 1, 0)}]"/>'
        f'<variable id="2" name="d" type="dynamic"><value bean="B{max(i - 1, 0)}"/></variable>'
        f'<variable id="{4000 - i % 100}" name="m" type="map[int,B0]"/></bean>'
        for i in range(n))
    return f'<solution name="s"><module name="m" id="1">{beans}</module></solution>'.encode()


def zeze_wide_bean(n: int) -> bytes:
    """A solution of one bean with ``n`` variables."""
    variables = "".join(f'<variable id="{i + 1}" name="v{i}" type="map[long,string]"/>'
                        for i in range(n))
    return (f'<solution name="s"><module name="m" id="1"><bean name="B">{variables}</bean>'
            "</module></solution>").encode()
