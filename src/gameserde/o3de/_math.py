"""O3DE's math serializers: Vector2/3/4, Quaternion, Color, Matrix3x3/3x4/4x4, Transform.

Components are float32; every component is read with the float rules (``"1.5"`` and ``true``
are numbers too). Arrays shorter than the type leave the value untouched (Unsupported);
vector objects take ``X``/``x`` ... members and keep the current component where one is
missing. Colors read double arrays (``RGB``/``RGBA``), byte arrays (``RGB8``/``RGBA8``) and
hex strings (``HEX``/``HEXA``), the last recognised member of an object deciding.
"""

from __future__ import annotations

import math
from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._context import (
    NO_DEFAULT,
    LoadContext,
    StoreContext,
    describe,
    is_object,
    members,
)
from gameserde.o3de._primitives import as_float32, load_leaf, number_kind
from gameserde.o3de.registry import LEAVES, MATH, TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.values import Color, Quaternion, Transform

__all__ = ["load_math", "store_math"]

_FLOAT = LEAVES["float"]
_SIZES = {"Vector2": 2, "Vector3": 3, "Vector4": 4, "Quaternion": 4, "Matrix3x3": 9,
          "Matrix3x4": 12, "Matrix4x4": 16}
_NAMES = ("X", "x", "Y", "y", "Z", "z", "W", "w")


def _components(t: TypeExpr, value: Any) -> list[float]:
    if t.name.startswith("Matrix"):
        return list(value.elements)
    return list(value)


def _build(t: TypeExpr, parts: list[float]) -> Any:
    if t.name.startswith("Matrix"):
        return MATH[t.name](tuple(parts))
    return MATH[t.name](*parts)


def _load_array(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    count = _SIZES[t.name]
    if len(value) < count:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   f"Not enough numbers in array to load {t.name} from.")
    parts = _components(t, current)
    for index in range(count):
        ctx.push(index)
        try:
            parts[index], code = load_leaf(ctx, _FLOAT, parts[index], value[index])
        finally:
            ctx.pop()
        if not code.completed:
            return current, code
    return _build(t, parts), ctx.report(Tasks.ReadField, Outcomes.Success,
                                        f"Successfully read {t.name}.")


def _load_vector_object(ctx: LoadContext, t: TypeExpr, current: Any, value: Any
                        ) -> tuple[Any, ResultCode]:
    parts = list(current)
    result = ResultCode.task_only(Tasks.ReadField)
    fields = members(value)
    for index in range(len(parts)):
        upper, lower = _NAMES[2 * index], _NAMES[2 * index + 1]
        name = upper if any(k == upper for k, _ in fields) else lower
        found = [v for k, v in fields if k == name]
        if not found:
            result = result.combine(ResultCode.of(Tasks.ReadField, Outcomes.DefaultsUsed))
            continue
        ctx.push(name)
        try:
            parts[index], code = load_leaf(ctx, _FLOAT, parts[index], found[0])
        finally:
            ctx.pop()
        if not code.completed:
            return current, code
        result = result.combine(ResultCode.of(Tasks.ReadField, Outcomes.Success))
    return _build(t, parts), ctx.report_code(result, f"Successfully read {t.name}.")


def _euler_degrees(yaw: float, pitch: float, roll: float) -> Quaternion:
    """``Quaternion::SetFromEulerDegrees(Vector3(yaw, pitch, roll))`` (rot x * rot y * rot z)."""
    hx, hy, hz = (math.radians(as_float32(a)) * 0.5 for a in (yaw, pitch, roll))
    sx, sy, sz = math.sin(hx), math.sin(hy), math.sin(hz)
    cx, cy, cz = math.cos(hx), math.cos(hy), math.cos(hz)
    return Quaternion(as_float32(cx * sy * sz + sx * cy * cz),
                      as_float32(cx * sy * cz - sx * cy * sz),
                      as_float32(cx * cy * sz + sx * sy * cz),
                      as_float32(cx * cy * cz - sx * sy * sz))


def _load_quaternion_object(ctx: LoadContext, current: Any, value: Any) -> tuple[Any, ResultCode]:
    fields = members(value)
    if len(fields) > 3:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "A quaternion object holds at most three angles (yaw, pitch, "
                                   "roll).")
    angles = [0.0, 0.0, 0.0]
    for index, (_, member) in enumerate(fields):
        ctx.push(("yaw", "pitch", "roll")[index])
        try:
            angles[index], code = load_leaf(ctx, _FLOAT, 0.0, member)
        finally:
            ctx.pop()
        if not code.completed:
            return current, code
    return _euler_degrees(*angles), ctx.report(Tasks.ReadField, Outcomes.Success,
                                               "Successfully read quaternion.")


def _byte(value: int) -> float:
    return as_float32(float(max(0, min(255, value))) * as_float32(1.0 / 255.0))


def _color_doubles(ctx: LoadContext, current: Color, value: Any, alpha: str
                   ) -> tuple[Any, ResultCode]:
    need = 4 if alpha == "yes" else 3
    if len(value) < need:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Not enough numbers in array to load color from.")
    channels = []
    use_alpha = alpha == "yes" or (alpha == "maybe" and len(value) >= 4)
    for index, name in enumerate(("Red", "Green", "Blue", "Alpha")[:4 if use_alpha else 3]):
        if number_kind(value[index]) != "double":
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       f"{name} channel couldn't be read because the value wasn't "
                                       "a decimal number.")
        channels.append(as_float32(float(value[index])))
    if not use_alpha:
        channels.append(current.a)
    outcome = Outcomes.PartialDefaults if alpha == "maybe" and not use_alpha else Outcomes.Success
    return Color(*channels), ctx.report(Tasks.ReadField, outcome,
                                        "Successfully loaded color from decimal array.")


def _color_bytes(ctx: LoadContext, current: Color, value: Any, alpha: bool
                 ) -> tuple[Any, ResultCode]:
    need = 4 if alpha else 3
    if len(value) < need:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Not enough numbers in array to load color from.")
    channels = []
    for index, name in enumerate(("Red", "Green", "Blue", "Alpha")[:need]):
        item = value[index]
        if number_kind(item) != "int" or not -(1 << 63) <= item < (1 << 63):
            return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                       f"{name} channel couldn't be read because the value wasn't "
                                       "a byte number.")
        channels.append(_byte(item))
    if not alpha:
        channels.append(current.a)
    return Color(*channels), ctx.report(Tasks.ReadField, Outcomes.Success,
                                        "Successfully loaded color from byte array.")


def _color_hex(ctx: LoadContext, current: Color, text: str, alpha: bool) -> tuple[Any, ResultCode]:
    need = 8 if alpha else 6
    digits = text[:need]
    if len(text) < need:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "The hex text for color is too short.")
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Failed to parse hex value. There might be an incorrect "
                                   "character in the string.")
    channels = [_byte(int(digits[i:i + 2], 16)) for i in range(0, need, 2)]
    if not alpha:
        channels.append(current.a)
    return Color(*channels), ctx.report(Tasks.ReadField, Outcomes.Success,
                                        "Successfully loaded color from hex string.")


def _object_float(ctx: LoadContext, fields: list[tuple[str, Any]], names: tuple[str, str],
                  current: float) -> tuple[float, ResultCode]:
    for name in names:
        found = [v for k, v in fields if k == name]
        if found:
            ctx.push(name)
            try:
                return load_leaf(ctx, _FLOAT, current, found[0])
            finally:
                ctx.pop()
    return current, ResultCode.of(Tasks.ReadField, Outcomes.DefaultsUsed)


def _multiply(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def _load_matrix_object(ctx: LoadContext, t: TypeExpr, value: Any) -> tuple[Any, ResultCode]:
    """Degrees ``roll``/``pitch``/``yaw`` (rotations about x, y, z applied z first), a
    uniform ``scale`` and, but for 3x3, a translation ``x``/``y``/``z``; lower- or Title-case
    names. The identity reads as DefaultsUsed."""
    fields = members(value)
    result = ResultCode.task_only(Tasks.ReadField)
    numbers: dict[str, float] = {}
    names = ["scale", "roll", "pitch", "yaw"] + ([] if t.name == "Matrix3x3" else ["x", "y", "z"])
    for name in names:
        start = 1.0 if name == "scale" else 0.0
        numbers[name], code = _object_float(ctx, fields, (name, name.capitalize()), start)
        if not code.completed:
            return MATH[t.name](), code
        result = result.combine(code if name == "scale" else
                                ResultCode.of(Tasks.ReadField, Outcomes.Success))
        if name == "scale" and abs(numbers["scale"]) <= 1.1920928955078125e-07:
            return MATH[t.name](), ctx.report_code(result.combine(ResultCode.of(
                Tasks.ReadField, Outcomes.Unsupported)), "Scale can not be zero.")
    q: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0)
    for axis, name in enumerate(("roll", "pitch", "yaw")):
        half = math.radians(numbers[name]) * 0.5
        turn = [0.0, 0.0, 0.0, math.cos(half)]
        turn[axis] = math.sin(half)
        q = _multiply(q, tuple(turn))
    x, y, z, w = q
    s = numbers["scale"]
    rows = [[(1 - 2 * (y * y + z * z)) * s, 2 * (x * y - z * w) * s, 2 * (x * z + y * w) * s],
            [2 * (x * y + z * w) * s, (1 - 2 * (x * x + z * z)) * s, 2 * (y * z - x * w) * s],
            [2 * (x * z - y * w) * s, 2 * (y * z + x * w) * s, (1 - 2 * (x * x + y * y)) * s]]
    if t.name != "Matrix3x3":
        for row, name in zip(rows, ("x", "y", "z"), strict=True):
            row.append(numbers[name])
    if t.name == "Matrix4x4":
        rows.append([0.0, 0.0, 0.0, 1.0])
    matrix = MATH[t.name](tuple(as_float32(e) for row in rows for e in row))
    if matrix == MATH[t.name]():
        return matrix, ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                  "Using identity matrix for empty object.")
    return matrix, ctx.report_code(result, "Successfully read math matrix.")


_COLOR_KEYS = ("rgba8", "rgb8", "rgba", "rgb", "hexa", "hex")


def _load_color_object(ctx: LoadContext, current: Color, value: Any) -> tuple[Any, ResultCode]:
    result: tuple[Any, ResultCode] = (current, ResultCode.of(Tasks.ReadField, Outcomes.Unsupported))
    for name, member in reversed(members(value)):
        key = name.lower() if name.isascii() else ""
        if key not in _COLOR_KEYS:
            continue
        ctx.push(name.upper())
        try:
            if key.startswith("hex"):
                if isinstance(member, str):
                    result = _color_hex(ctx, current, member, key == "hexa")
            elif isinstance(member, list | tuple):
                if key.endswith("8"):
                    result = _color_bytes(ctx, current, member, key == "rgba8")
                else:
                    result = _color_doubles(ctx, current, member, "yes" if key == "rgba" else "no")
        finally:
            ctx.pop()
        break
    return result[0], ctx.report_code(result[1], "Successfully read color."
                                      if not result[1].halted else
                                      "Problem encountered while reading color.")


def _load_transform(ctx: LoadContext, current: Transform, value: Any) -> tuple[Any, ResultCode]:
    if not is_object(value):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Transforms can only be read from objects.")
    fields = members(value)
    parts: list[Any] = list(current)
    result = ResultCode.task_only(Tasks.ReadField)
    for index, (name, t) in enumerate((("Translation", LEAVES["Vector3"]),
                                       ("Rotation", LEAVES["Quaternion"]),
                                       ("Scale", _FLOAT))):
        found = [v for k, v in fields if k == name]
        if not found:
            result = result.combine(ResultCode.of(Tasks.ReadField, Outcomes.DefaultsUsed))
            continue
        ctx.push(name)
        try:
            parts[index], code = ctx.load(t, parts[index], found[0], False)
        finally:
            ctx.pop()
        result = result.combine(code)
        if code.halted:
            return current, code
    return Transform(*parts), ctx.report_code(result, "Successfully read transform.")


def load_math(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """The math type's serializer reading ``value`` over ``current``."""
    if not isinstance(current, MATH[t.name]):
        current = MATH[t.name]()
    if is_object(value) and len(value) == 0:
        return MATH[t.name](), ctx.report(Tasks.ReadField, Outcomes.DefaultsUsed,
                                 f"{t.name} value set to its default.")
    if t.name == "Transform":
        return _load_transform(ctx, current, value)
    if t.name == "Color":
        if isinstance(value, list | tuple):
            return _color_doubles(ctx, current, value, "maybe")
        if is_object(value):
            return _load_color_object(ctx, current, value)
    elif isinstance(value, list | tuple):
        return _load_array(ctx, t, current, value)
    elif is_object(value):
        if t.name == "Quaternion":
            return _load_quaternion_object(ctx, current, value)
        if t.name.startswith("Vector"):
            return _load_vector_object(ctx, t, current, value)
        return _load_matrix_object(ctx, t, value)
    return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                               f"Unsupported type. {t.name} can only be read from arrays or "
                               "objects.")


def _as_math(ctx: StoreContext, t: TypeExpr, value: Any) -> Any:
    """The value as the math type's class, its components checked to be numbers."""
    cls = MATH[t.name]
    try:
        if not isinstance(value, cls):
            if t.name == "Transform":
                value = Transform(*value)
            elif t.name.startswith("Matrix"):
                value = cls(tuple(_number(x) for x in value))
            else:
                value = cls(*(_number(x) for x in value))
        if t.name != "Transform":
            for part in _components(t, value):
                _number(part)
    except (TypeError, ValueError):
        raise EncodeError(f"{describe(value)} is not a value of type {t.name}",
                          path="$." + ctx.path_text(), format="o3de") from None
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(value)
    return float(value)


def store_math(ctx: StoreContext, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
    """The math type's serializer writing ``value``; ``{}`` with DefaultsUsed when it equals
    the default (component by component, as float32)."""
    value = _as_math(ctx, t, value)
    has_default = default is not NO_DEFAULT and default is not None
    if t.name == "Transform":
        return _store_transform(ctx, value, _as_math(ctx, t, default) if has_default else None)
    parts = [as_float32(c) for c in _components(t, value)]
    base = ([as_float32(c) for c in _components(t, _as_math(ctx, t, default))] if has_default
            else None)
    if not ctx.keep_defaults and base is not None and parts == base:
        return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed, f"Default {t.name} used.")
    if t.name == "Color" and base is not None and not ctx.keep_defaults and parts[3] == base[3]:
        return parts[:3], ctx.report(Tasks.WriteValue, Outcomes.PartialDefaults,
                                     "Color partially stored.")
    return parts, ctx.report(Tasks.WriteValue, Outcomes.Success, f"{t.name} successfully stored.")


def _store_transform(ctx: StoreContext, value: Transform, default: Transform | None
                     ) -> tuple[Any, ResultCode]:
    out: dict[str, Any] = {}
    result = ResultCode.task_only(Tasks.WriteValue)
    for index, (name, t) in enumerate((("Translation", LEAVES["Vector3"]),
                                       ("Rotation", LEAVES["Quaternion"]),
                                       ("Scale", _FLOAT))):
        ctx.push(name)
        try:
            stored, code = ctx.store(t, value[index],
                                     NO_DEFAULT if default is None else default[index])
        finally:
            ctx.pop()
        if not code.halted and (ctx.keep_defaults or code.outcome is not Outcomes.DefaultsUsed):
            out[name] = stored
        result = result.combine(code)
    return out, ctx.report_code(result, "Transform stored.")

