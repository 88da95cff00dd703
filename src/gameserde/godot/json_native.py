"""The native JSON view: Godot 4.4's ``JSON.from_native`` / ``JSON.to_native`` convention.

Numbers and strings become prefixed strings (``"i:1"``, ``"f:1.0"``, ``"s:abc"``, ``"sn:abc"``,
``"np:/root/a"``), Nil and bool stay JSON literals, untyped Arrays stay JSON arrays, and every
other type becomes ``{"type": <Godot type name>, "args": [...]}``. Dictionaries list keys and
values alternately in ``args`` (so any key type and the insertion order survive); typed
containers add ``elem_type`` / ``key_type`` / ``value_type``; full Objects are
``{"type": <class>, "props": [name, value, ...]}``.

Where the engine's convention loses data, this view extends it so that decode → JSON → encode
gives back the same bytes, in forms the engine's ``to_native`` still reads:

* RID and Signal keep their ids: ``{"type": "RID", "args": [id]}``,
  ``{"type": "Signal", "args": [name, object_id]}`` (the engine writes no ``args``).
* Objects written as ids: ``{"type": "EncodedObjectAsID", "props": ["object_id", "i:<id>"]}``
  (the engine writes ``null`` without ``full_objects``).
* A resource file's references: ``{"type": "ExtResource", "args": ["1"]}``,
  ``{"type": "SubResource", "args": ["id"]}`` (the ids of the file's text form) and
  ``{"type": "ResourcePath", "args": ["res://a.tres"]}`` (with the uid second when there
  is one).
* Float components that are not finite are written ``"inf"``, ``"-inf"``, ``"nan"`` (the engine
  would write bare ``inf``, which is not JSON).
* ``f:`` strings carry the shortest text that reads back to the same double; a NaN other than
  the default quiet NaN keeps its sign (``"-nan"``) and payload (``"nan:0x7ff8000000000001"``,
  the bits of the double).

Nesting is bounded by ``max_depth`` both ways; :mod:`gameserde.godot.jsonview` is the API.
This module also holds the rules the plain view shares (numbers, math components, names).
"""

from __future__ import annotations

import difflib
import math
import struct
from collections.abc import Callable as _Fn
from collections.abc import Iterable
from typing import Any

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot import types as gt

FORMAT = "godot"
_BITS = struct.Struct("<Q")
_DOUBLE = struct.Struct("<d")
_QUIET_NAN, _NEGATIVE_NAN = 0x7FF8000000000000, 0xFFF8000000000000


def float_text(x: float) -> str:
    """Text for a double that reads back to the same bits (NaN sign and payload included)."""
    if x == x:
        return repr(float(x))
    bits = _BITS.unpack(_DOUBLE.pack(x))[0]
    if bits == _QUIET_NAN:
        return "nan"
    if bits == _NEGATIVE_NAN:
        return "-nan"
    return f"nan:0x{bits:016x}"


def parse_float_text(text: str) -> float:
    """Inverse of :func:`float_text`; raises ValueError for anything else."""
    if text == "-nan":
        return float(_DOUBLE.unpack(_BITS.pack(_NEGATIVE_NAN))[0])
    if text.startswith("nan:0x"):
        bits = int(text[6:], 16)
        if bits >> 64 or (bits >> 52) & 0x7FF != 0x7FF or not bits & ((1 << 52) - 1):
            raise ValueError(f"{text!r} is not the bits of a NaN")
        return float(_DOUBLE.unpack(_BITS.pack(bits))[0])
    return float(text)


def number(x: float) -> float | str:
    return float(x) if math.isfinite(x) else float_text(x)


def math_components(value: Any) -> list[Any]:
    t = type(value)
    if t is gt.Plane:
        comps: list[Any] = [*value.normal, value.d]
    elif t is gt.Transform3D:
        comps = [c for col in value.basis for c in col] + list(value.origin)
    elif t in (gt.Rect2, gt.Rect2i, gt.Transform2D, gt.AABB, gt.Basis, gt.Projection):
        comps = [c for part in value for c in part]
    else:
        comps = list(value)
    if t in (gt.Vector2i, gt.Vector3i, gt.Vector4i, gt.Rect2i):
        return comps
    return [number(c) for c in comps]


def _container_types(value: Any, keys: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for key, attr in zip(keys, ("key_type", "value_type"), strict=False):
        ct = getattr(value, attr if key != "elem_type" else "element_type", gt.UNTYPED)
        if ct.is_typed:
            out[key] = ct.name
    return out


def to_jsonable(value: Any, max_depth: int) -> Any:
    """``JSON.from_native(value, full_objects=true)``, extended to lose nothing."""
    return _to_json(value, 0, max_depth)


def _to_json(value: Any, depth: int, max_depth: int) -> Any:
    if depth > max_depth:
        raise EncodeError(f"values are nested deeper than {max_depth} levels", format=FORMAT)
    t = type(value)
    if value is None or t is bool:
        return value
    if t is int:
        return f"i:{value}"
    if t is float:
        return "f:" + float_text(value)
    if t is str:
        return "s:" + value
    if t is list:
        return [_to_json(v, depth + 1, max_depth) for v in value]
    if t is dict or isinstance(value, gt.Dictionary):
        args: list[Any] = []
        for k, v in value.items():
            args.append(_to_json(k, depth + 1, max_depth))
            args.append(_to_json(v, depth + 1, max_depth))
        head = {"type": "Dictionary", **_container_types(value, ("key_type", "value_type"))}
        return {**head, "args": args}
    if t is gt.TypedArray:
        return {"type": "Array", **_container_types(value, ("elem_type",)),
                "args": [_to_json(v, depth + 1, max_depth) for v in value]}
    if t is gt.StringName:
        return "sn:" + value
    if t is gt.NodePath:
        return "np:" + str(value)
    if t in MATH_NAMES:
        return {"type": MATH_NAMES[t], "args": math_components(value)}
    if t is bytes:
        return {"type": "PackedByteArray", "args": list(value)}
    if t is gt.PackedStringArray:
        return {"type": "PackedStringArray", "args": list(value)}
    if isinstance(value, gt.PackedArray):
        flat = value.array.reshape(-1).tolist() if hasattr(value.array, "reshape") \
            else value.array.tolist()
        if value.kind == "f":
            flat = [number(x) for x in flat]
        return {"type": t.__name__, "args": flat}
    if t is gt.Object:
        props: list[Any] = []
        for name, v in value.properties.items():
            props.append(name)
            props.append(_to_json(v, depth + 1, max_depth))
        return {"type": value.class_name, "props": props}
    if t is gt.EncodedObjectAsID:
        return {"type": "EncodedObjectAsID", "props": ["object_id", f"i:{value.object_id}"]}
    if t is gt.RID:
        return {"type": "RID", "args": [value.id]} if value.id else {"type": "RID"}
    if t is gt.ExtRef or t is gt.SubRef:
        return {"type": REFERENCES[t], "args": [value.id]}
    if t is gt.ResourcePath:
        return {"type": "ResourcePath",
                "args": [value.path] if value.uid is None else [value.path, value.uid]}
    if t is gt.Callable:
        return {"type": "Callable"}
    if t is gt.Signal:
        if not value.name and not value.object_id:
            return {"type": "Signal"}
        return {"type": "Signal", "args": [value.name, value.object_id]}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return f"i:{int(value)}"
    if isinstance(value, float):
        return "f:" + float_text(float(value))
    if isinstance(value, str):
        return "s:" + str(value)
    if isinstance(value, list | tuple):
        return [_to_json(v, depth + 1, max_depth) for v in value]
    if isinstance(value, bytearray | memoryview):
        return _to_json(bytes(value), depth, max_depth)
    raise EncodeError(f"{t.__name__} values have no Godot Variant type", format=FORMAT)


MATH_NAMES: dict[type, str] = {cls: cls.__name__ for cls in gt.MATH_TYPES}


class At:
    """Where a JSON value sits: its parent's place and one step below it (an index, or text
    such as ``.args[2]``). Descending costs O(1) a level; the path text is only built when an
    error names it, so deep documents cost linear time and memory."""

    __slots__ = ("parent", "step")

    def __init__(self, parent: Where, step: int | str) -> None:
        self.parent = parent
        self.step = step

    def __str__(self) -> str:
        steps: list[str] = []
        node: Where = self
        while isinstance(node, At):
            steps.append(f"[{node.step}]" if isinstance(node.step, int) else node.step)
            node = node.parent
        return node + "".join(reversed(steps))


Where = str | At
"""A JSON path as text (``$`` for a whole document) or as a chain of :class:`At` steps."""


def fail(message: str, path: Where) -> DecodeError:
    return DecodeError(message, path=str(path), format=FORMAT, verb="encode")


def closest(name: str, names: Iterable[str]) -> str:
    """`` Did you mean A or B?`` for the names most like ``name`` (none: empty)."""
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.6)
    if not close:
        return ""
    listed = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
    return f" Did you mean {listed}?"


def real(x: Any, path: Where) -> float:
    try:
        if isinstance(x, int | float) and not isinstance(x, bool):
            return float(x)
        if isinstance(x, str) and (x in ("inf", "-inf") or x.lstrip("-").startswith("nan")):
            return parse_float_text(x)
    except (OverflowError, ValueError):
        pass
    raise fail(f"a number is expected here, not {short(x)}", path)


def integer(x: Any, path: Where) -> int:
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if isinstance(x, float) and math.isfinite(x) and x == int(x):
        return int(x)
    raise fail(f"an integer is expected here, not {short(x)}", path)


def id64(x: Any, path: Where) -> int:
    value = integer(x, path)
    if not 0 <= value < 1 << 64:
        raise fail(f"an id must be 0 to 2**64-1, not {value}", path)
    return value


def short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _args(obj: dict[str, Any], path: Where, *, size: int | None = None,
          factor: int = 1) -> list[Any]:
    args = obj.get("args")
    if not isinstance(args, list):
        raise fail(f'{obj.get("type")} needs an "args" array', path)
    if size is not None and len(args) != size:
        raise fail(f'{obj["type"]} needs {size} args but has {len(args)}', path)
    if len(args) % factor:
        raise fail(f'{obj["type"]} needs a multiple of {factor} args but has {len(args)}',
                   path)
    return args


def _v2(a: list[Any], i: int) -> gt.Vector2:
    return gt.Vector2(a[i], a[i + 1])


def _v3(a: list[Any], i: int) -> gt.Vector3:
    return gt.Vector3(a[i], a[i + 1], a[i + 2])


def _v4(a: list[Any], i: int) -> gt.Vector4:
    return gt.Vector4(a[i], a[i + 1], a[i + 2], a[i + 3])


MATH_FROM_COMPONENTS: dict[str, tuple[int, bool, _Fn[[list[Any]], Any]]] = {
    "Vector2": (2, False, lambda a: _v2(a, 0)),
    "Vector2i": (2, True, lambda a: gt.Vector2i(*a)),
    "Rect2": (4, False, lambda a: gt.Rect2(_v2(a, 0), _v2(a, 2))),
    "Rect2i": (4, True, lambda a: gt.Rect2i(gt.Vector2i(a[0], a[1]), gt.Vector2i(a[2], a[3]))),
    "Vector3": (3, False, lambda a: _v3(a, 0)),
    "Vector3i": (3, True, lambda a: gt.Vector3i(*a)),
    "Transform2D": (6, False, lambda a: gt.Transform2D(_v2(a, 0), _v2(a, 2), _v2(a, 4))),
    "Vector4": (4, False, lambda a: _v4(a, 0)),
    "Vector4i": (4, True, lambda a: gt.Vector4i(*a)),
    "Plane": (4, False, lambda a: gt.Plane(_v3(a, 0), a[3])),
    "Quaternion": (4, False, lambda a: gt.Quaternion(*a)),
    "AABB": (6, False, lambda a: gt.AABB(_v3(a, 0), _v3(a, 3))),
    "Basis": (9, False, lambda a: gt.Basis(_v3(a, 0), _v3(a, 3), _v3(a, 6))),
    "Transform3D": (12, False, lambda a: gt.Transform3D(
        gt.Basis(_v3(a, 0), _v3(a, 3), _v3(a, 6)), _v3(a, 9))),
    "Projection": (16, False, lambda a: gt.Projection(_v4(a, 0), _v4(a, 4), _v4(a, 8),
                                                      _v4(a, 12))),
    "Color": (4, False, lambda a: gt.Color(*a)),
}

PACKED_BY_NAME: dict[str, type[gt.PackedArray]] = {
    cls.__name__: cls for cls in gt.PACKED_CLASSES.values()}


def _container_type(obj: dict[str, Any], key: str, path: Where) -> gt.ContainerType:
    name = obj.get(key)
    if name is None:
        return gt.UNTYPED
    if not isinstance(name, str) or not name:
        raise fail(f"{key} must be a type name, class name or res:// path", path)
    return gt.ContainerType.of(name)


def from_jsonable(obj: Any, path: Where, max_depth: int) -> Any:
    """``JSON.to_native(obj, allow_objects=true)``; objects stay data (:class:`Object`).

    ``path`` names ``obj`` in error messages (``$`` for a whole document).
    """
    return _from_json(obj, path, 0, max_depth)


def _from_json(obj: Any, path: Where, depth: int, max_depth: int) -> Any:
    if depth > max_depth:
        raise fail(f"values are nested deeper than {max_depth} levels", path)
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, str):
        return _from_string(obj, path)
    if isinstance(obj, int | float):
        return obj
    if isinstance(obj, list):
        return [_from_json(v, At(path, i), depth + 1, max_depth) for i, v in enumerate(obj)]
    if not isinstance(obj, dict):
        raise fail(f"{type(obj).__name__} is not JSON", path)
    name = obj.get("type")
    if not isinstance(name, str):
        raise fail('a JSON object needs a "type" naming a Godot type or class', path)
    if name in MATH_FROM_COMPONENTS:
        size, ints, make = MATH_FROM_COMPONENTS[name]
        args = _args(obj, path, size=size)
        conv = integer if ints else real
        return make([conv(a, At(path, f".args[{i}]")) for i, a in enumerate(args)])
    if name == "Array":
        etype = _container_type(obj, "elem_type", path)
        items = [_from_json(v, At(path, i), depth + 1, max_depth)
                 for i, v in enumerate(_args(obj, path))]
        return gt.TypedArray(etype, items) if etype.is_typed else items
    if name == "Dictionary":
        return _dictionary(obj, path, depth, max_depth)
    if name == "PackedByteArray":
        args = _args(obj, path)
        try:
            return bytes(integer(a, At(path, f".args[{i}]")) for i, a in enumerate(args))
        except ValueError:
            raise fail("PackedByteArray values must be 0 to 255", path) from None
    if name == "PackedStringArray":
        args = _args(obj, path)
        if not all(isinstance(a, str) for a in args):
            raise fail("PackedStringArray args must be strings", path)
        return gt.PackedStringArray(args)
    if name in PACKED_BY_NAME:
        cls = PACKED_BY_NAME[name]
        args = _args(obj, path, factor=cls.width)
        conv = integer if cls.kind == "i" else real
        values = [conv(a, At(path, f".args[{i}]")) for i, a in enumerate(args)]
        # vector arrays keep double precision: the encoder narrows them unless the target
        # is a real_t=double build
        wide = cls.width > 1 and cls is not gt.PackedColorArray
        try:
            return cls(values, itemsize=8 if wide else None)
        except (OverflowError, ValueError) as e:
            raise fail(f"{name} value out of range ({e})", path) from None
    if name == "RID":
        args = obj.get("args", [0])
        if not isinstance(args, list) or len(args) > 1:
            raise fail("RID args are [id] or absent", path)
        return gt.RID(id64(args[0], At(path, ".args[0]")) if args else 0)
    if name == "Callable":
        return gt.Callable()
    if name == "ResourcePath":
        parts = obj.get("args")
        if not (isinstance(parts, list) and len(parts) in (1, 2)
                and all(isinstance(p, str) for p in parts)):
            raise fail("ResourcePath args are [path] or [path, uid], strings", path)
        return gt.ResourcePath(*parts)
    if name in REFERENCE_NAMES:
        ident = obj.get("args")
        if not (isinstance(ident, list) and len(ident) == 1 and isinstance(ident[0], str)):
            raise fail(f"{name} args are [id], the id a string", path)
        return REFERENCE_NAMES[name](ident[0])
    if name == "Signal":
        args = obj.get("args", ["", 0])
        if not isinstance(args, list) or len(args) != 2 or not isinstance(args[0], str):
            raise fail("Signal args are [name, object_id]", path)
        return gt.Signal(args[0], id64(args[1], At(path, ".args[1]")))
    if name in ("Nil", "bool", "int", "float", "String", "StringName", "NodePath"):
        raise fail(f'"{name}" is written as a JSON literal or a prefixed string, not an '
                    "object", path)
    if "props" not in obj:
        raise fail(f"unknown type {name!r}.{closest(name, TYPE_NAMES)} (An object of a class "
                   'is written with "props".)', path)
    return _object(obj, name, path, depth, max_depth)


REFERENCES: dict[type, str] = {gt.ExtRef: "ExtResource", gt.SubRef: "SubResource"}
"""A resource file's references, by the names its text form gives them."""
REFERENCE_NAMES: dict[str, Any] = {name: cls for cls, name in REFERENCES.items()}

TYPE_NAMES = (*MATH_FROM_COMPONENTS, *PACKED_BY_NAME, "Array", "Dictionary", "PackedByteArray",
              "PackedStringArray", "RID", "Callable", "Signal", "EncodedObjectAsID",
              *REFERENCE_NAMES, "ResourcePath")
"""The names a native JSON object's "type" may take besides class names."""


def _from_string(s: str, path: Where) -> Any:
    prefix, sep, rest = s.partition(":")
    if sep:
        if prefix == "s":
            return rest
        if prefix == "i":
            try:
                return int(rest)
            except ValueError:
                raise fail(f"{s!r} is not an integer", path) from None
        if prefix == "f":
            try:
                return parse_float_text(rest)
            except ValueError:
                raise fail(f"{s!r} is not a number", path) from None
        if prefix == "sn":
            return gt.StringName(rest)
        if prefix == "np":
            return gt.NodePath.parse(rest)
    raise fail(f"string {s!r} has no type prefix (i:, f:, s:, sn: or np:)", path)


def _dictionary(obj: dict[str, Any], path: Where, depth: int, max_depth: int) -> Any:
    from gameserde.godot.decoder import build_dictionary

    ktype = _container_type(obj, "key_type", path)
    vtype = _container_type(obj, "value_type", path)
    args = _args(obj, path, factor=2)
    pairs = []
    for i in range(0, len(args), 2):
        key = _from_json(args[i], At(path, f"[<key {i // 2}>]"), depth + 1, max_depth)
        pairs.append((key, _from_json(args[i + 1], At(path, f".args[{i + 1}]"), depth + 1,
                                      max_depth)))
    return build_dictionary(pairs, ktype, vtype)


def _object(obj: dict[str, Any], class_name: str, path: Where, depth: int, max_depth: int) -> Any:
    props = obj.get("props")
    if not isinstance(props, list) or len(props) % 2:
        raise fail(f'object of class {class_name} needs a "props" array of name/value pairs',
                    path)
    values: dict[str, Any] = {}
    for i in range(0, len(props), 2):
        name = props[i]
        if not isinstance(name, str):
            raise fail(f"property name {name!r} is not a string", At(path, f".props[{i}]"))
        values[name] = _from_json(props[i + 1], At(path, f".{name}"), depth + 1, max_depth)
    if class_name == "EncodedObjectAsID" and list(values) == ["object_id"]:
        return gt.EncodedObjectAsID(id64(values["object_id"], At(path, ".object_id")))
    return gt.Object(class_name, values)
