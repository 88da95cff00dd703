"""The plain JSON view: JSON's own values stay themselves, engine types carry a one-key tag.

``{"hp": 87.5, "name": "Aria", "pos": {"$Vector3": [12.5, 0.0, -3.25]}}``: Nil, bool, int,
float, String, untyped Arrays and Dictionaries whose keys are all Strings are written as JSON
writes them; every other value is an object with a single key, ``$`` + the type, whose value
holds the data:

* ``{"$StringName": "ranger"}``, ``{"$NodePath": "/root/World:position"}``;
* math types list their components as the native view does: ``{"$Color": [1.0, 0.9, 0.8,
  1.0]}``, ``{"$Transform2D": [x.x, x.y, y.x, y.y, origin.x, origin.y]}``;
* ``{"$PackedByteArray": [0, 255]}``, ``{"$PackedStringArray": ["a"]}``,
  ``{"$PackedInt32Array": [1, 2]}``, vector and color arrays one list per element:
  ``{"$PackedVector2Array": [[0.0, 0.0], [10.5, 2.0]]}``;
* typed Arrays ``{"$Array[int]": [1, 4, 9]}`` (a type name, class name or ``res://`` path, as
  GDScript writes ``Array[int]``);
* Dictionaries with other keys ``{"$Dictionary": [[1, "one"], [2.0, "two"]]}`` (``[key, value]``
  pairs, in order), typed ones ``{"$Dictionary[String, float]": {"a": 1.5}}`` (an object when
  every key is a String, else pairs; ``Variant`` stands for an untyped side);
* full Objects ``{"$Object(Node)": {"name": "n"}}``, ``{"$EncodedObjectAsID": 12}``,
  ``{"$RID": 7}``, ``{"$Callable": null}``, ``{"$Signal": ["hit", 5]}``;
* a resource file's references ``{"$ExtResource": "1"}``, ``{"$SubResource": "id"}``,
  ``{"$ResourcePath": "res://a.tres"}`` (``[path, uid]`` with a uid);
* floats that JSON cannot write: ``{"$float": "inf"}`` (``"-inf"``, ``"nan"``, and the sign and
  payload of other NaNs as the native view writes them).

A key that starts with ``$`` in a Dictionary (or a property name in an Object) is written with
one more ``$`` (``"$$price"`` is the key ``"$price"``), so a single key starting with one ``$``
is always a tag. Numbers keep their type through their text: ``87`` is an int, ``87.0`` a float.

Every value the decoder produces round-trips to identical bytes, except typed containers whose
class name is also a built-in type name or ``Variant`` (JSON cannot tell them apart), and typed
Dictionaries whose key type name holds ``", "``: those raise :class:`EncodeError`.
"""

from __future__ import annotations

import math
from typing import Any

from gameserde.errors import EncodeError, path_key
from gameserde.godot import types as gt
from gameserde.godot.json_native import (
    FORMAT,
    MATH_FROM_COMPONENTS,
    MATH_NAMES,
    PACKED_BY_NAME,
    REFERENCE_NAMES,
    REFERENCES,
    At,
    Where,
    closest,
    fail,
    float_text,
    id64,
    integer,
    math_components,
    number,
    parse_float_text,
    real,
    short,
)

_VARIANT = "Variant"
"""How a typed container's untyped side is written, as GDScript writes it."""


# ---------------------------------------------------------------------------------------------
# Values to JSON


def to_jsonable(value: Any, max_depth: int) -> Any:
    """``value`` as plain JSON values (lists, dicts with str keys, str, int, float, ...)."""
    return _out(value, 0, max_depth)


def _key(name: str) -> str:
    return "$" + name if name.startswith("$") else name


def _type_name(ct: gt.ContainerType, path: str) -> str:
    if not ct.is_typed:
        return _VARIANT
    name = ct.name
    if name == _VARIANT or gt.ContainerType.of(name) != ct:
        raise EncodeError(f"the typed container's class {name!r} is named like a built-in "
                          "type (or Variant, the untyped side), which plain JSON cannot tell "
                          "apart; use the native JSON view", path=path, format=FORMAT)
    return name


def _out(value: Any, depth: int, max_depth: int) -> Any:
    if depth > max_depth:
        raise EncodeError(f"values are nested deeper than {max_depth} levels", format=FORMAT)
    t = type(value)
    if value is None or t is bool or t is int or t is str:
        return value
    if t is float:
        return value if math.isfinite(value) else {"$float": float_text(value)}
    if t is list:
        return [_out(v, depth + 1, max_depth) for v in value]
    if t is dict or isinstance(value, gt.Dictionary):
        return _dictionary_out(value, depth, max_depth)
    if t is gt.TypedArray:
        items = [_out(v, depth + 1, max_depth) for v in value]
        if not value.element_type.is_typed:
            return items
        return {f"$Array[{_type_name(value.element_type, '$')}]": items}
    if t is gt.StringName:
        return {"$StringName": str(value)}
    if t is gt.NodePath:
        return {"$NodePath": str(value)}
    if t in MATH_NAMES:
        return {"$" + MATH_NAMES[t]: math_components(value)}
    if t is bytes:
        return {"$PackedByteArray": list(value)}
    if t is gt.PackedStringArray:
        return {"$PackedStringArray": [str(s) for s in value]}
    if isinstance(value, gt.PackedArray):
        return {"$" + t.__name__: _packed_out(value)}
    if t is gt.Object:
        props = {_key(name): _out(v, depth + 1, max_depth)
                 for name, v in value.properties.items()}
        return {f"$Object({value.class_name})": props}
    if t is gt.EncodedObjectAsID:
        return {"$EncodedObjectAsID": value.object_id}
    if t is gt.RID:
        return {"$RID": value.id}
    if t is gt.ExtRef or t is gt.SubRef:
        return {"$" + REFERENCES[t]: value.id}
    if t is gt.ResourcePath:
        return {"$ResourcePath": value.path if value.uid is None else [value.path, value.uid]}
    if t is gt.Callable:
        return {"$Callable": None}
    if t is gt.Signal:
        return {"$Signal": [value.name, value.object_id]}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _out(float(value), depth, max_depth)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list | tuple):
        return [_out(v, depth + 1, max_depth) for v in value]
    if isinstance(value, bytearray | memoryview):
        return _out(bytes(value), depth, max_depth)
    raise EncodeError(f"{t.__name__} values have no Godot Variant type", format=FORMAT)


def _dictionary_out(value: Any, depth: int, max_depth: int) -> Any:
    ktype = getattr(value, "key_type", gt.UNTYPED)
    vtype = getattr(value, "value_type", gt.UNTYPED)
    if all(type(k) is str for k in value):
        body: Any = {_key(k): _out(v, depth + 1, max_depth) for k, v in value.items()}
        if not (ktype.is_typed or vtype.is_typed):
            return body
    else:
        body = [[_out(k, depth + 1, max_depth), _out(v, depth + 1, max_depth)]
                for k, v in value.items()]
        if not (ktype.is_typed or vtype.is_typed):
            return {"$Dictionary": body}
    key_name = _type_name(ktype, "$")
    if ", " in key_name:
        raise EncodeError(f"the typed Dictionary's key type {key_name!r} holds ', ', which the "
                          "plain JSON tag cannot hold; use the native JSON view", format=FORMAT)
    return {f"$Dictionary[{key_name}, {_type_name(vtype, '$')}]": body}


def _packed_out(value: gt.PackedArray) -> list[Any]:
    arr = value.array
    flat = arr.reshape(-1).tolist() if hasattr(arr, "reshape") else arr.tolist()
    if value.kind == "f":
        flat = [number(x) for x in flat]
    w = value.width
    return flat if w == 1 else [flat[i:i + w] for i in range(0, len(flat), w)]


# ---------------------------------------------------------------------------------------------
# JSON to values


def from_jsonable(obj: Any, path: Where, max_depth: int) -> Any:
    """The value a plain JSON document stands for; ``path`` names ``obj`` in errors."""
    return _in(obj, path, 0, max_depth)


def _in(obj: Any, path: Where, depth: int, max_depth: int) -> Any:
    if depth > max_depth:
        raise fail(f"values are nested deeper than {max_depth} levels", path)
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, list):
        return [_in(v, At(path, i), depth + 1, max_depth) for i, v in enumerate(obj)]
    if not isinstance(obj, dict):
        raise fail(f"{type(obj).__name__} is not JSON", path)
    if len(obj) == 1:
        ((key, body),) = obj.items()
        if isinstance(key, str) and key.startswith("$") and not key.startswith("$$"):
            return _tag(key[1:], body, path, depth, max_depth)
    return _names(obj, path, depth, max_depth)


def _names(obj: dict[Any, Any], path: Where, depth: int, max_depth: int) -> dict[str, Any]:
    """A JSON object of names (Dictionary keys, property names), ``$$`` read back as ``$``."""
    out = {}
    for key, value in obj.items():
        if not isinstance(key, str):
            raise fail(f"key {short(key)} is not a string", path)
        if key.startswith("$"):
            if not key.startswith("$$"):
                raise fail(f"key {key!r} starts with $, which marks a type tag when it is an "
                           f"object's only key; write a key that starts with $ as ${key}", path)
            key = key[1:]
        out[key] = _in(value, At(path, path_key(key)), depth + 1, max_depth)
    return out


_SIMPLE_TAGS = ("float", "StringName", "NodePath", *MATH_FROM_COMPONENTS, *PACKED_BY_NAME,
                "PackedByteArray", "PackedStringArray", "Array", "Dictionary", "Object",
                "EncodedObjectAsID", "RID", "Callable", "Signal", *REFERENCE_NAMES,
                "ResourcePath")


def _tag(name: str, body: Any, path: Where, depth: int, max_depth: int) -> Any:
    if name in MATH_FROM_COMPONENTS:
        size, ints, make = MATH_FROM_COMPONENTS[name]
        comps = _list(name, body, path)
        if len(comps) != size:
            raise fail(f"${name} needs {size} components but has {len(comps)}", path)
        conv = integer if ints else real
        return make([conv(c, At(path, i)) for i, c in enumerate(comps)])
    if name == "float":
        return _float(body, path)
    if name in ("StringName", "NodePath"):
        if not isinstance(body, str):
            raise fail(f"${name} holds a string, not {short(body)}", path)
        return gt.StringName(body) if name == "StringName" else gt.NodePath.parse(body)
    if name == "PackedByteArray":
        octets = [integer(v, At(path, i)) for i, v in enumerate(_list(name, body, path))]
        if not all(0 <= v <= 255 for v in octets):
            raise fail("$PackedByteArray values must be 0 to 255", path)
        return bytes(octets)
    if name == "PackedStringArray":
        strings = _list(name, body, path)
        if not all(isinstance(v, str) for v in strings):
            raise fail("$PackedStringArray holds only strings", path)
        return gt.PackedStringArray(strings)
    if name in PACKED_BY_NAME:
        return _packed(PACKED_BY_NAME[name], body, path)
    if name.startswith("Array[") and name.endswith("]"):
        etype = _container_type(name[6:-1], path)
        items = [_in(v, At(path, i), depth + 1, max_depth)
                 for i, v in enumerate(_list(name, body, path))]
        return gt.TypedArray(etype, items) if etype.is_typed else items
    if name == "Dictionary" or (name.startswith("Dictionary[") and name.endswith("]")):
        return _dictionary(name, body, path, depth, max_depth)
    if name.startswith("Object(") and name.endswith(")"):
        if not isinstance(body, dict):
            raise fail(f"${name} holds an object of property names and values", path)
        return gt.Object(name[7:-1], _names(body, path, depth, max_depth))
    if name in ("EncodedObjectAsID", "RID"):
        ident = id64(body, path)
        return gt.EncodedObjectAsID(ident) if name == "EncodedObjectAsID" else gt.RID(ident)
    if name == "ResourcePath":
        if isinstance(body, str):
            return gt.ResourcePath(body)
        if not (isinstance(body, list) and len(body) == 2
                and all(isinstance(p, str) for p in body)):
            raise fail(f"$ResourcePath holds the path, or [path, uid], not {short(body)}", path)
        return gt.ResourcePath(body[0], body[1])
    if name in REFERENCE_NAMES:
        if not isinstance(body, str):
            raise fail(f"${name} holds the id, a string, not {short(body)}", path)
        return REFERENCE_NAMES[name](body)
    if name == "Callable":
        if body is not None:
            raise fail("$Callable holds null (the engine writes no Callable data)", path)
        return gt.Callable()
    if name == "Signal":
        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[0], str)):
            raise fail("$Signal holds [name, object_id]", path)
        return gt.Signal(body[0], id64(body[1], At(path, "[1]")))
    hint = closest(name, _SIMPLE_TAGS).replace(" Did you mean ", " Did you mean $")
    hint = hint.replace(" or ", " or $").replace(", ", ", $")
    raise fail(f"unknown type tag ${name}.{hint} (A Dictionary key that starts with $ is "
               "written with one more $.)", path)


def _list(name: str, body: Any, path: Where) -> list[Any]:
    if not isinstance(body, list):
        raise fail(f"${name} holds an array, not {short(body)}", path)
    return body


def _float(body: Any, path: Where) -> float:
    if isinstance(body, str):
        try:
            return parse_float_text(body)
        except ValueError:
            pass
    elif isinstance(body, int | float) and not isinstance(body, bool):
        return float(body)
    raise fail(f'$float holds "inf", "-inf", "nan" or a number, not {short(body)}', path)


def _packed(cls: type[gt.PackedArray], body: Any, path: Where) -> gt.PackedArray:
    name = cls.__name__
    items = _list(name, body, path)
    conv = integer if cls.kind == "i" else real
    w = cls.width
    flat: list[Any] = []
    if w == 1:
        flat = [conv(v, At(path, i)) for i, v in enumerate(items)]
    else:
        for i, element in enumerate(items):
            if not isinstance(element, list) or len(element) != w:
                raise fail(f"each element of ${name} is a list of {w} numbers, not "
                           f"{short(element)}", At(path, i))
            flat.extend(conv(v, At(path, f"[{i}][{j}]")) for j, v in enumerate(element))
    wide = w > 1 and cls is not gt.PackedColorArray  # narrowed by the encoder, as natively
    try:
        return cls(flat, itemsize=8 if wide else None)
    except (OverflowError, ValueError) as e:
        raise fail(f"${name} value out of range ({e})", path) from None


def _container_type(name: str, path: Where) -> gt.ContainerType:
    if name == _VARIANT:
        return gt.UNTYPED
    if not name:
        raise fail("a typed container names a type name, class name or res:// path", path)
    return gt.ContainerType.of(name)


def _dictionary(name: str, body: Any, path: Where, depth: int, max_depth: int) -> Any:
    from gameserde.godot.decoder import build_dictionary

    ktype = vtype = gt.UNTYPED
    if name != "Dictionary":
        parts = name[11:-1].split(", ")
        if len(parts) != 2:
            raise fail(f"${name} names two types: $Dictionary[KeyType, ValueType]", path)
        ktype, vtype = (_container_type(p, path) for p in parts)
    if isinstance(body, dict):
        pairs = list(_names(body, path, depth, max_depth).items())
    else:
        pairs = []
        for i, pair in enumerate(_list(name, body, path)):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise fail(f"each entry of ${name} is a [key, value] pair, not {short(pair)}",
                           At(path, i))
            key = _in(pair[0], At(path, f"[<key {i}>]"), depth + 1, max_depth)
            pairs.append((key, _in(pair[1], At(path, f"[{i}][1]"), depth + 1, max_depth)))
    return build_dictionary(pairs, ktype, vtype)

