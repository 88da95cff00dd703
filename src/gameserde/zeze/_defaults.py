"""``default=`` of a solution variable read as the field's Python value.

Gen pastes ``default=`` into the generated Java as it is, so it is read here as the Java
literal it becomes: integers (decimal, ``0x``, ``0b``, octal ``0...``, ``_`` separators,
``L`` suffix; hex, octal and binary literals wrap like Java's) or an ``<enum>`` constant
(``NAME``, ``Bean.NAME``, ``module.NAME`` or its full name); floats (``1.5``, ``1.5f``,
``1e3``, an integer, ``Float.NaN``, ``Double.POSITIVE_INFINITY`` ...; float fields rounded to
float32); ``true``/``false``; a string's text as written; the vector types' comma-separated
constructor arguments (``"1,2,3"``) as a tuple. A bean's or beankey's ``default=`` (Java
constructor arguments) is not interpreted: the field's default is None. Gen refuses
``default=`` on binary, decimal, collections and dynamic, and so does this reader.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Mapping
from typing import Any

from gameserde.schema.model import BOOL, FLOAT32, STRING, Float, Int, Ref, Type

_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[0-7_]+|[0-9][0-9_]*)([lL]?)")
_FLOAT = re.compile(r"[+-]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?"
                    r"[fFdD]?")
_SPECIAL_FLOATS = {"NaN": math.nan, "POSITIVE_INFINITY": math.inf,
                   "NEGATIVE_INFINITY": -math.inf}
_VECTOR_ARITY = {"zeze.vector2": 2, "zeze.vector3": 3, "zeze.vector4": 4,
                 "zeze.quaternion": 4, "zeze.vector2int": 2, "zeze.vector3int": 3}


def _java_int(text: str) -> int | None:
    m = _INT.fullmatch(text)
    if m is None or len(text) > 80:  # longer than any Java long literal
        return None
    sign, digits, suffix = m.groups()
    digits = digits.replace("_", "")
    if digits[:2] in ("0x", "0X", "0b", "0B") or (len(digits) > 1 and digits[0] == "0"):
        base = {"x": 16, "b": 2}.get(digits[1].lower(), 8)
        try:
            raw = int(digits[2:] if base != 8 else digits, base)
        except ValueError:  # 089: not octal, and Java has no such decimal
            return None
        bits = 64 if suffix else 32
        if raw >> bits:
            return None
        value = raw - (1 << bits) if raw >> (bits - 1) else raw
        return -value if sign == "-" else value
    return int(sign + digits)


def _java_float(text: str) -> float | None:
    prefix, dot, name = text.partition(".")
    if dot and prefix in ("Float", "Double") and name in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[name]
    if len(text) > 4000 or _FLOAT.fullmatch(text) is None:
        return None
    return float(text.rstrip("fFdD").replace("_", ""))


def _float(text: str, single: bool) -> float | None:
    """A float literal's value (rounded to float32 when ``single``), or None."""
    number = _java_float(text)
    if number is None or not single or not math.isfinite(number):
        return number
    if abs(number) >= 3.4028235677973366e38:  # rounds beyond the largest float32
        return None
    value: float = struct.unpack("<f", struct.pack("<f", number))[0]
    return value


def read_default(text: str, ftype: Type, type_text: str, *, is_bean: bool,
                 enums: Mapping[str, int | str], bean: str, space: str,
                 error: Callable[[str], Exception]) -> Any:
    """The Python value of ``default=text`` for a field of type ``ftype`` (a bean or
    beankey when ``is_bean``), declared in ``bean`` of module ``space``."""
    stripped = text.strip()
    if ftype == STRING:
        return text
    if ftype == BOOL:
        if stripped in ("true", "false"):
            return stripped == "true"
        raise error(f"default={text!r} is not true or false")
    if isinstance(ftype, Int):
        value = _java_int(stripped)
        if value is None:
            for name in (f"{bean}.{stripped}", f"{space}.{stripped}", stripped):
                found = enums.get(name)
                if isinstance(found, int):
                    value = found
                    break
        if value is None:
            raise error(f"default={text!r} is not an integer or an integer <enum> constant")
        if value not in ftype:
            raise error(f"default={text!r} does not fit the field's type {type_text}")
        return value
    if isinstance(ftype, Float):
        number = _float(stripped, ftype == FLOAT32)
        if number is None:
            raise error(f"default={text!r} is not a {type_text} literal")
        return number
    if isinstance(ftype, Ref) and ftype.name in _VECTOR_ARITY:
        parts = [p.strip() for p in stripped.split(",")]
        if len(parts) != _VECTOR_ARITY[ftype.name]:
            raise error(f"default={text!r} needs {_VECTOR_ARITY[ftype.name]} components")
        if ftype.name.endswith("int"):
            ints = [_java_int(p) for p in parts]
            if any(v is None or v not in Int(32) for v in ints):
                raise error(f"default={text!r} needs int components")
            return tuple(ints)
        floats = [_float(p, True) for p in parts]
        if any(v is None for v in floats):
            raise error(f"default={text!r} needs float components")
        return tuple(floats)
    if is_bean:
        return None
    raise error(f"default={text!r} is not allowed on a {type_text} (Zeze's Gen refuses it)")
