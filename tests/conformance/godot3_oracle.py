"""Godot 3.2.3 (Debian's ``godot3-server``) as a differential oracle for ``gameserde.godot``.

One GDScript is generated for a whole batch of cases and the engine runs once
(``godot3-server --no-window -s script.gd`` from a scratch directory; spec godot.md §12).
The script prints one line per result, ``@@ <TAG> <id> <fields...>``, with bytes as base64.
A failing ``bytes2var`` aborts only the GDScript function that called it, so every decode runs
in its own helper; a missing result line means the engine refused the input. stdout and
stderr are read merged, so the ``ERROR:`` lines that follow a ``@@ BEGIN <id>`` line are kept
with that case for failure messages.

Besides running the engine, this module has the pieces the tests share:

* :func:`gd_expr` turns a Python value (gameserde's value classes) into a GDScript expression
  that builds the same value at run time (floats from their exact bits, strings from UTF-8
  bytes, so that GDScript's literal quirks cannot interfere);
* :class:`LiveObject` / :class:`Freed` stand for engine objects that only exist at run time;
  :func:`resolve` replaces them once the engine has printed the instance ids;
* :func:`mask_node_path_pads` zeroes NodePath pad bytes (the engine writes garbage there)
  by walking the Godot 3 wire format independently of the library;
* :func:`first_difference` compares decoded values strictly (types, float bits, order).
"""

from __future__ import annotations

import base64
import math
import os
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameserde.godot import types as gt

GODOT3_EXE = "godot3-server"


def find_godot3() -> str | None:
    """Path of the ``godot3-server`` binary, or ``None``."""
    return shutil.which(GODOT3_EXE)


@contextmanager
def deep_recursion(limit: int = 20000) -> Iterator[None]:
    """Room for the recursive helpers here on values thousands of levels deep."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


# ---------------------------------------------------------------------------------------------
# Values that only exist inside the engine


@dataclass(frozen=True)
class LiveObject:
    """The ``index``-th object the script creates before any case runs (``_objs[index]``).

    With ``full_objects=False`` it is written as its instance id, which the engine prints
    (``@@ OBJ <index> <id>``); :func:`resolve` turns it into an ``EncodedObjectAsID``.
    """

    index: int


LIVE_OBJECT_CLASSES = ("Reference", "Resource", "Node", "Reference")
"""Classes of the objects in ``_objs``, in order."""


@dataclass(frozen=True)
class Freed:
    """An Object that has been freed: the engine writes it as NIL."""


def resolve(value: Any, ids: dict[int, int]) -> Any:
    """``value`` with every :class:`LiveObject` replaced by its ``EncodedObjectAsID`` and
    every :class:`Freed` by ``None``."""
    if isinstance(value, LiveObject):
        return gt.EncodedObjectAsID(ids[value.index])
    if isinstance(value, Freed):
        return None
    return _map_children(value, lambda v: resolve(v, ids))


def to_full(value: Any) -> Any:
    """What ``var2bytes(bytes2var(x), true)`` makes of ``EncodedObjectAsID`` values.

    The engine decodes an object id into an ``EncodedObjectAsID`` instance; written back
    with ``full_objects=true`` that is an Object with the properties ``object_id`` and
    ``script``. An id of 0 decodes to null.
    """
    if isinstance(value, gt.EncodedObjectAsID):
        if value.object_id == 0:
            return None
        return gt.Object("EncodedObjectAsID", {"object_id": value.object_id, "script": None})
    return _map_children(value, to_full)


def f32(x: float) -> float:
    """``x`` stored in a C ``float`` (overflow gives a signed infinity, as in C)."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


_REAL_MATH = (gt.Vector2, gt.Rect2, gt.Vector3, gt.Transform2D, gt.Plane, gt.Quaternion,
              gt.AABB, gt.Basis, gt.Transform3D, gt.Color)


def round_f32(value: Any) -> Any:
    """``value`` with every math-type component rounded to float32 (``real_t`` in 3.x)."""
    if isinstance(value, _REAL_MATH):
        return type(value)._make(
            round_f32(c) if isinstance(c, tuple) else f32(c) for c in value)
    return _map_children(value, round_f32)


def _map_children(value: Any, fn: Any) -> Any:
    if isinstance(value, gt.PackedStringArray):
        return value
    if isinstance(value, list):
        return [fn(v) for v in value]
    if isinstance(value, gt.Dictionary):
        return gt.Dictionary((fn(k), fn(v)) for k, v in value.items())
    if isinstance(value, dict):
        return {fn(k): fn(v) for k, v in value.items()}
    if isinstance(value, gt.Object):
        return gt.Object(value.class_name, {k: fn(v) for k, v in value.properties.items()})
    if isinstance(value, _REAL_MATH):
        return type(value)._make(fn(c) for c in value)
    return value


# ---------------------------------------------------------------------------------------------
# Python value -> GDScript expression


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def gd_float(x: float) -> str:
    """A GDScript expression for the double ``x``, exact to the bit."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2**53 and math.copysign(1.0, x) > 0:
        return f"{int(x)}.0"
    return f'_d("{_b64(struct.pack("<d", x))}")'


def gd_str(s: str) -> str:
    """A GDScript expression for the String ``s`` (built from its UTF-8 bytes; a leading
    BOM, which ``get_string_from_utf8`` would drop, is added with ``char``)."""
    if s.startswith("\ufeff"):
        return f"(char(65279) + {gd_str(s[1:])})"
    if s.isascii() and all(c.isalnum() or c in " _-./" for c in s):
        return '"' + s + '"'
    return f'_s("{_b64(s.encode("utf-8", "surrogatepass"))}")'


def gd_int(i: int) -> str:
    if i == -(1 << 63):
        return "(-9223372036854775807 - 1)"
    return str(i) if i >= 0 else f"({i})"


def _vec(name: str, comps: Iterable[float]) -> str:
    return f"{name}({', '.join(gd_float(c) for c in comps)})"


def gd_expr(value: Any) -> str:
    """A GDScript 3 expression that builds ``value`` (the script helpers are in PRELUDE)."""
    t = type(value)
    if value is None:
        return "null"
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return gd_int(value)
    if t is float:
        return gd_float(value)
    if t is str:
        return gd_str(value)
    if t is gt.Vector2:
        return _vec("Vector2", value)
    if t is gt.Vector3:
        return _vec("Vector3", value)
    if t is gt.Rect2:
        return _vec("Rect2", (*value.position, *value.size))
    if t is gt.Transform2D:
        return f"Transform2D({', '.join(gd_expr(c) for c in value)})"
    if t is gt.Plane:
        return _vec("Plane", (*value.normal, value.d))
    if t is gt.Quaternion:
        return _vec("Quat", value)
    if t is gt.AABB:
        return f"AABB({gd_expr(value.position)}, {gd_expr(value.size)})"
    if t is gt.Basis:  # Basis(x_axis, y_axis, z_axis): the columns
        return f"Basis({', '.join(gd_expr(c) for c in value)})"
    if t is gt.Transform3D:
        return f"Transform({gd_expr(value.basis)}, {gd_expr(value.origin)})"
    if t is gt.Color:
        return _vec("Color", value)
    if t is gt.NodePath:
        return f"NodePath({gd_str(str(value))})"
    if t is gt.RID:
        return "RID()"
    if t is list:
        return "[" + ", ".join(gd_expr(v) for v in value) + "]"
    if t is dict or t is gt.Dictionary:
        flat = [gd_expr(x) for kv in value.items() for x in kv]
        return "_dict([" + ", ".join(flat) + "])"
    if t is bytes:
        return f"PoolByteArray({list(value)})"
    if t is gt.PackedInt32Array:
        return "PoolIntArray([" + ", ".join(gd_int(i) for i in value.tolist()) + "])"
    if t is gt.PackedFloat32Array:
        return "PoolRealArray([" + ", ".join(gd_float(x) for x in value.tolist()) + "])"
    if t is gt.PackedStringArray:
        return "PoolStringArray([" + ", ".join(gd_str(s) for s in value) + "])"
    if t is gt.PackedVector2Array:
        return "PoolVector2Array([" + ", ".join(gd_expr(v) for v in value.tolist()) + "])"
    if t is gt.PackedVector3Array:
        return "PoolVector3Array([" + ", ".join(gd_expr(v) for v in value.tolist()) + "])"
    if t is gt.PackedColorArray:
        return "PoolColorArray([" + ", ".join(gd_expr(v) for v in value.tolist()) + "])"
    if t is LiveObject:
        return f"_objs[{value.index}]"
    if t is Freed:
        return "_freed()"
    if t is gt.Object:
        return _gd_object(value)
    raise TypeError(f"no GDScript expression for {value!r}")


def reference_object() -> gt.Object:
    """``Reference.new()`` as 3.2.3 writes it in full."""
    return gt.Object("Reference", {"script": None})


def resource_object(name: str = "", local: bool = False) -> gt.Object:
    """A ``Resource`` with ``resource_name`` and ``resource_local_to_scene`` set."""
    return gt.Object("Resource", {"resource_local_to_scene": local, "resource_name": name,
                                  "script": None})


def scripted_resource(x: Any) -> gt.Object:
    """A Resource whose GDScript (created at run time) exports ``x``; 3.x writes the script
    itself as a full Object."""
    script = gt.Object("GDScript", {"resource_local_to_scene": False, "resource_name": "",
                                    "script/source": SCRIPTED_SOURCE})
    return gt.Object("Resource", {"resource_local_to_scene": False, "resource_name": "",
                                  "script": script, "x": x})


SCRIPTED_SOURCE = "extends Resource\nexport var x = 5\n"


def _gd_object(obj: gt.Object) -> str:
    if obj == reference_object():
        return "Reference.new()"
    props = obj.properties
    if (obj.class_name == "Resource" and props.get("script", 0) is None
            and list(props) == ["resource_local_to_scene", "resource_name", "script"]):
        return (f"_res({gd_str(props['resource_name'])}, "
                f"{gd_expr(props['resource_local_to_scene'])})")
    if obj.class_name == "Resource" and obj == scripted_resource(props.get("x")):
        return f"_scripted({gd_expr(props['x'])})"
    raise TypeError(f"no GDScript expression for {obj!r}")


# ---------------------------------------------------------------------------------------------
# NodePath pad masking: an independent walker over the Godot 3 wire format

_FIXED = {0: 0, 1: 4, 5: 8, 6: 16, 7: 12, 8: 24, 9: 16, 10: 16, 11: 24, 12: 36, 13: 48,
          14: 16, 16: 0}
_POOL_ELEM = {21: 4, 22: 4, 24: 8, 25: 12, 26: 16}


def _u32(data: bytes, pos: int) -> int:
    return int(struct.unpack_from("<I", data, pos)[0])


def _skip_str(data: bytes, pos: int, pads: list[range] | None = None) -> int:
    n = _u32(data, pos)
    end = pos + 4 + n
    padded = pos + 4 + ((n + 3) & ~3)
    if pads is not None:
        pads.append(range(end, padded))
    return padded


def _walk(data: bytes, pos: int, pads: list[range]) -> int:
    header = _u32(data, pos)
    tid = header & 0xFF
    pos += 4
    if tid in _FIXED:
        return pos + _FIXED[tid]
    if tid in (2, 3):
        return pos + (8 if header & (1 << 16) else 4)
    if tid == 4:
        return _skip_str(data, pos)
    if tid == 15:
        names = _u32(data, pos) & 0x7FFFFFFF
        subs = _u32(data, pos + 4)
        if _u32(data, pos + 8) & 2:
            subs += 1
        pos += 12
        for _ in range(names + subs):
            pos = _skip_str(data, pos, pads)
        return pos
    if tid == 17:
        if header & (1 << 16):
            return pos + 8
        n = _u32(data, pos)
        pos = _skip_str(data, pos)
        if n == 0:
            return pos
        count = _u32(data, pos)
        pos += 4
        for _ in range(count):
            pos = _skip_str(data, pos)
            pos = _walk(data, pos, pads)
        return pos
    if tid in (18, 19):
        count = (_u32(data, pos) & 0x7FFFFFFF) * (2 if tid == 18 else 1)
        pos += 4
        for _ in range(count):
            pos = _walk(data, pos, pads)
        return pos
    if tid == 20:
        n = _u32(data, pos)
        return pos + 4 + ((n + 3) & ~3)
    if tid in _POOL_ELEM:
        return pos + 4 + _u32(data, pos) * _POOL_ELEM[tid]
    if tid == 23:
        count = _u32(data, pos)
        pos += 4
        for _ in range(count):
            pos = _skip_str(data, pos)
        return pos
    raise ValueError(f"type id {tid} at byte {pos - 4} is not a Godot 3 type")


def node_path_pads(data: bytes, offset: int = 0) -> tuple[list[range], int]:
    """The pad byte ranges of every NodePath string in the Variant at ``offset``, and the
    offset just past the Variant."""
    pads: list[range] = []
    end = _walk(data, offset, pads)
    return pads, end


def mask_node_path_pads(data: bytes, offset: int = 0) -> bytes:
    """``data`` with the NodePath pad bytes of the Variant at ``offset`` set to zero."""
    out = bytearray(data)
    pads, _ = node_path_pads(data, offset)
    for r in pads:
        out[r.start:r.stop] = bytes(len(r))
    return bytes(out)


def mask_frames(data: bytes, big_endian: bool = False) -> bytes:
    """Like :func:`mask_node_path_pads` for a run of length-prefixed Variants."""
    out = bytearray(data)
    pos = 0
    fmt = ">I" if big_endian else "<I"
    while pos < len(data):
        size = struct.unpack_from(fmt, data, pos)[0]
        pads, _ = node_path_pads(data, pos + 4)
        for r in pads:
            out[r.start:r.stop] = bytes(len(r))
        pos += 4 + size
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# Strict comparison of decoded values


def _float_bits(x: float) -> bytes:
    return struct.pack("<d", x)


def first_difference(actual: Any, expected: Any, path: str = "$") -> str | None:
    """``None`` when ``actual`` is ``expected`` as the engine would see it, else where and how
    they differ. Types must match (a ``dict`` and a :class:`Dictionary` are both Dictionary),
    floats must match bit for bit, dictionaries and object properties in order."""
    ta, te = type(actual), type(expected)
    dict_like = (dict, gt.Dictionary)
    if ta in dict_like and te in dict_like:
        a_items, e_items = list(actual.items()), list(expected.items())
        if len(a_items) != len(e_items):
            return f"{path}: {len(a_items)} entries, expected {len(e_items)}"
        for i, ((ak, av), (ek, ev)) in enumerate(zip(a_items, e_items, strict=True)):
            diff = (first_difference(ak, ek, f"{path}<key {i}>")
                    or first_difference(av, ev, f"{path}[{ek!r}]"))
            if diff:
                return diff
        return None
    if ta is not te:
        return f"{path}: {ta.__name__} {actual!r}, expected {te.__name__} {expected!r}"
    if ta is float:
        if _float_bits(actual) != _float_bits(expected):
            return (f"{path}: {actual!r} ({_float_bits(actual).hex()}), expected {expected!r} "
                    f"({_float_bits(expected).hex()})")
        return None
    if isinstance(actual, gt.PackedArray):
        if actual.tobytes(ta.itemsize) != expected.tobytes(te.itemsize):
            return f"{path}: {actual!r}, expected {expected!r}"
        return None
    if ta is list or ta is gt.PackedStringArray or isinstance(actual, tuple):
        if len(actual) != len(expected):
            return f"{path}: length {len(actual)}, expected {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            diff = first_difference(a, e, f"{path}[{i}]")
            if diff:
                return diff
        return None
    if ta is gt.Object:
        if actual.class_name != expected.class_name:
            return f"{path}: class {actual.class_name!r}, expected {expected.class_name!r}"
        if list(actual.properties) != list(expected.properties):
            return (f"{path}: properties {list(actual.properties)}, "
                    f"expected {list(expected.properties)}")
        for name, e in expected.properties.items():
            diff = first_difference(actual.properties[name], e, f"{path}.{name}")
            if diff:
                return diff
        return None
    if actual != expected:
        return f"{path}: {actual!r}, expected {expected!r}"
    return None


# ---------------------------------------------------------------------------------------------
# Script generation and the engine run

PRELUDE = '''extends SceneTree

var _objs = []


func _d(b):
\tvar p = StreamPeerBuffer.new()
\tp.data_array = Marshalls.base64_to_raw(b)
\treturn p.get_double()


func _s(b):
\treturn Marshalls.base64_to_raw(b).get_string_from_utf8()


func _dict(kv):
\tvar d = {}
\tvar i = 0
\twhile i < kv.size():
\t\td[kv[i]] = kv[i + 1]
\t\ti += 2
\treturn d


func _res(n, local):
\tvar r = Resource.new()
\tr.resource_name = n
\tr.resource_local_to_scene = local
\treturn r


func _scripted(x):
\tvar g = GDScript.new()
\tg.source_code = "extends Resource\\nexport var x = 5\\n"
\tg.reload()
\tvar r = Resource.new()
\tr.set_script(g)
\tr.x = x
\treturn r


func _freed():
\tvar n = Node.new()
\tn.free()
\treturn n


func _b64(v, full):
\treturn Marshalls.raw_to_base64(var2bytes(v, full))


func _e1(id, v, full):
\tprint("@@ E1 ", id, " ", _b64(v, full))


func _rt(id, b64, allow):
\tprint("@@ BEGIN ", id)
\tvar v = bytes2var(Marshalls.base64_to_raw(b64), allow)
\tprint("@@ D2 ", id, " ", typeof(v), " ", _b64(v, true))


func _fr_file(id, path, vals, full, swap):
\tvar f = File.new()
\tf.open(path, File.WRITE)
\tf.endian_swap = swap
\tfor v in vals:
\t\tf.store_var(v, full)
\tf.close()
\tf.open(path, File.READ)
\tprint("@@ FR ", id, " ", Marshalls.raw_to_base64(f.get_buffer(f.get_len())))
\tf.close()


func _fr_stream(id, vals, full, be):
\tvar s = StreamPeerBuffer.new()
\ts.big_endian = be
\tfor v in vals:
\t\ts.put_var(v, full)
\tprint("@@ FR ", id, " ", Marshalls.raw_to_base64(s.data_array))


func _fr_packet(id, vals, full):
\tvar s = StreamPeerBuffer.new()
\tvar p = PacketPeerStream.new()
\tp.stream_peer = s
\tfor v in vals:
\t\tp.put_var(v, full)
\tprint("@@ FR ", id, " ", Marshalls.raw_to_base64(s.data_array))


func _fr_b64(id, vals, full):
\tvar i = 0
\tfor v in vals:
\t\tprint("@@ FR ", id, "/", i, " ", Marshalls.variant_to_base64(v, full))
\t\ti += 1


func _get_file(id, path, b64, n, swap, allow):
\tvar f = File.new()
\tf.open(path, File.WRITE)
\tf.store_buffer(Marshalls.base64_to_raw(b64))
\tf.close()
\tf.open(path, File.READ)
\tf.endian_swap = swap
\tfor i in range(n):
\t\tprint("@@ GV ", id, "/", i, " ", _b64(f.get_var(allow), true))
\tprint("@@ GV ", id, "/end ", f.get_position(), " ", f.get_len())
\tf.close()


func _get_stream(id, b64, n, be, allow):
\tvar s = StreamPeerBuffer.new()
\ts.data_array = Marshalls.base64_to_raw(b64)
\ts.big_endian = be
\tfor i in range(n):
\t\tprint("@@ GV ", id, "/", i, " ", _b64(s.get_var(allow), true))
\tprint("@@ GV ", id, "/end ", s.get_position(), " ", s.get_size())


func _get_packet(id, b64, n, allow):
\tvar s = StreamPeerBuffer.new()
\ts.data_array = Marshalls.base64_to_raw(b64)
\tvar p = PacketPeerStream.new()
\tp.stream_peer = s
\tfor i in range(n):
\t\tprint("@@ GV ", id, "/", i, " ", _b64(p.get_var(allow), true))
\tprint("@@ GV ", id, "/end ", p.get_available_packet_count())


func _get_b64(id, text, allow):
\tprint("@@ BEGIN ", id)
\tvar v = Marshalls.base64_to_variant(text, allow)
\tprint("@@ GV ", id, " ", _b64(v, true))
'''


@dataclass
class ScriptBuilder:
    """Collects the statements of one engine run; each is placed in a GDScript function of
    its own (bodies are chunked so the script stays small and errors stay local)."""

    statements: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)

    def encode(self, case_id: str, expr: str, full_objects: bool) -> None:
        """Direction engine -> bytes: ``@@ E1 <id> <base64 of var2bytes(expr, full)>``."""
        name = f"_c{len(self.functions)}"
        full = "true" if full_objects else "false"
        self.functions.append(f"func {name}():\n\t_e1({_q(case_id)}, {expr}, {full})\n")
        self.statements.append(f"{name}()")

    def roundtrip(self, case_id: str, data: bytes, allow_objects: bool) -> None:
        """Direction bytes -> engine: ``@@ D2 <id> <typeof> <base64 of var2bytes(v, true)>``
        when ``bytes2var(data, allow)`` succeeds, nothing otherwise."""
        allow = "true" if allow_objects else "false"
        self.statements.append(f'_rt({_q(case_id)}, "{_b64(data)}", {allow})')

    def raw(self, statement: str) -> None:
        """Any statement (one line) to run in order."""
        self.statements.append(statement)

    def source(self) -> str:
        parts = [PRELUDE]
        parts.extend("\n" + f for f in self.functions)
        chunks = [self.statements[i:i + 100] for i in range(0, len(self.statements), 100)]
        for n, chunk in enumerate(chunks):
            body = "".join(f"\t{s}\n" for s in chunk)
            parts.append(f"\nfunc _run{n}():\n{body}")
        init = ["\nfunc _init():\n"]
        for i, cls in enumerate(LIVE_OBJECT_CLASSES):
            init.append(f"\t_objs.append({cls}.new())\n")
            init.append(f'\tprint("@@ OBJ {i} ", _objs[{i}].get_instance_id())\n')
        init.extend(f"\t_run{n}()\n" for n in range(len(chunks)))
        init.append('\tfor o in _objs:\n\t\tif o is Node:\n\t\t\to.free()\n')
        init.append('\t_objs.clear()\n\tprint("@@ DONE")\n\tquit()\n')
        parts.append("".join(init))
        return "".join(parts)


def _q(text: str) -> str:
    assert all(c.isalnum() or c in "_-.:/+=" for c in text), text
    return '"' + text + '"'


@dataclass
class EngineRun:
    """What one engine run printed."""

    output: str
    seconds: float
    records: dict[tuple[str, str], list[str]]
    """``(tag, id)`` -> the fields after the id, for every ``@@`` line."""
    blocks: dict[str, list[str]]
    """Case id -> the output lines that followed ``@@ BEGIN <id>`` (errors included)."""
    object_ids: dict[int, int]
    """Index in ``_objs`` -> instance id."""

    def get(self, tag: str, case_id: str) -> list[str] | None:
        return self.records.get((tag, case_id))

    def data(self, tag: str, case_id: str) -> bytes | None:
        """The base64 field (the last one) of a record, decoded."""
        rec = self.records.get((tag, case_id))
        if rec is None:
            return None
        return base64.b64decode(rec[-1]) if rec else b""

    def log(self, case_id: str) -> str:
        return "\n".join(self.blocks.get(case_id, []))


def parse_output(output: str) -> tuple[dict[tuple[str, str], list[str]], dict[str, list[str]]]:
    records: dict[tuple[str, str], list[str]] = {}
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith("@@ "):
            fields = line[3:].split(" ")
            tag, case_id, rest = fields[0], fields[1] if len(fields) > 1 else "", fields[2:]
            if tag == "BEGIN":
                current = blocks.setdefault(case_id, [])
                continue
            records[(tag, case_id)] = rest
        elif current is not None:
            current.append(line)
    return records, blocks


class EngineError(RuntimeError):
    """The engine did not run the script to its end."""


def run_godot3(exe: str, source: str, workdir: Path, timeout: float = 120.0) -> EngineRun:
    """Run ``source`` once in the engine, from ``workdir`` (which is also its HOME)."""
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / "oracle.gd"
    script.write_text(source, encoding="utf-8")
    env = dict(os.environ, HOME=str(workdir), LANG="C", LC_ALL="C")
    start = time.perf_counter()
    proc = subprocess.run(
        [exe, "--no-window", "-s", str(script)], cwd=workdir, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, check=False)
    seconds = time.perf_counter() - start
    output = proc.stdout.decode("utf-8", "replace")
    records, blocks = parse_output(output)
    if ("DONE", "") not in records:
        tail = "\n".join(output.splitlines()[-40:])
        raise EngineError(f"{exe} exited with {proc.returncode} before the end of the script "
                          f"{script}; last output:\n{tail}")
    object_ids = {int(k): int(v[0]) for (tag, k), v in records.items() if tag == "OBJ"}
    return EngineRun(output, seconds, records, blocks, object_ids)
