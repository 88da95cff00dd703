"""The Variant text syntax of Godot's text resources (``variant_parser.cpp``), parsed and
printed as each engine version does.

Values are those of :mod:`gameserde.godot.types`, plus the references of
:mod:`gameserde.godot.resource.model` (``ExtResource("id")`` is an :class:`ExtRef`,
``SubResource("id")`` a :class:`SubRef`) and :class:`ResourcePath` for an external resource
named by its path inline (``Resource("res://...")``). An inline ``Object(Type, ...)`` is a
:class:`gameserde.godot.types.Object` (data: nothing is instantiated).

Versions are the engine's major version (``2``, ``3``, ``4``) and differ in spelling:
Godot 3 writes ``Vector2( 1, 2 )`` with inner spaces, ``PoolIntArray``, ``Transform``,
``Quat`` and integer ids (``ExtResource( 1 )``); Godot 4 writes ``Vector2(1, 2)``,
``PackedInt32Array``, ``Transform3D``, ``Quaternion``, string ids, typed containers,
``&"StringName"``. The parser accepts every spelling of every version (as the engine's own
parser does); the printer writes the spelling of the version asked for.

Floats: Godot 3 and Godot 4.0 to 4.2 print ``%g`` (six significant digits) of the value;
later Godot 4 prints the shortest text that reads back to the same float32 when the value
is one (else the same double), laid out like ``%g`` (``1e-05``, ``1e+20``). ``real_t``
components (vectors, matrices, colors, packed float32 arrays) are rounded to float32 when
parsed, as the engine stores them; a plain float property stays a double.

Hostile text: nesting deeper than :data:`MAX_DEPTH` and every malformed construct raise
:class:`~gameserde.errors.DecodeError` with the byte offset; the cost is linear in the text.
"""

from __future__ import annotations

import array as _array
import base64
import binascii
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, path_key
from gameserde.godot import types as gt
from gameserde.godot.decoder import build_dictionary
from gameserde.godot.resource.model import ExtRef, SubRef
from gameserde.godot.types import ResourcePath

__all__ = ["MAX_DEPTH", "FloatStyle", "Reader", "ResourcePath", "c_escape", "format_float",
           "format_value", "parse_value"]

MAX_DEPTH = 256
"""Deepest nesting of arrays, dictionaries and objects the parser accepts."""

FloatStyle = str
"""``"shortest"`` (Godot 4.3 and later) or ``"g6"`` (Godot 3, Godot 4.0 to 4.2)."""


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32, as a C cast does (too large: infinity)."""
    return float(_array.array("f", (x,))[0])


def f32s(values: list[int | float]) -> list[float]:
    """Each of ``values`` rounded to float32 (see :func:`f32`), in one pass."""
    return _array.array("f", values).tolist()


# ---------------------------------------------------------------------------------------------
# Parsing

_WS = re.compile(r"(?:[\x00-\x20]+|;[^\n]*)*")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]*)?")
_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z_0-9]*")
_QUOTE_OR_BACKSLASH = re.compile(r'["\\]')
_HEX = re.compile(r"[0-9A-Fa-f]*")
_INT64 = 1 << 63
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}
_SPECIAL_FLOATS = {"inf": math.inf, "-inf": -math.inf, "inf_neg": -math.inf, "nan": math.nan}

_V2, _V3, _V4 = gt.Vector2, gt.Vector3, gt.Vector4


def _basis(t: list[float]) -> gt.Basis:
    """A Basis from its nine components in text order (row by row)."""
    return gt.Basis(_V3(t[0], t[3], t[6]), _V3(t[1], t[4], t[7]), _V3(t[2], t[5], t[8]))


_REAL_MATH: dict[str, tuple[int, Callable[[list[float]], Any]]] = {
    "Vector2": (2, _V2._make),
    "Rect2": (4, lambda t: gt.Rect2(_V2(t[0], t[1]), _V2(t[2], t[3]))),
    "Vector3": (3, _V3._make),
    "Vector4": (4, _V4._make),
    "Transform2D": (6, lambda t: gt.Transform2D(_V2(t[0], t[1]), _V2(t[2], t[3]),
                                                _V2(t[4], t[5]))),
    "Plane": (4, lambda t: gt.Plane(_V3(t[0], t[1], t[2]), t[3])),
    "Quaternion": (4, gt.Quaternion._make),
    "AABB": (6, lambda t: gt.AABB(_V3(t[0], t[1], t[2]), _V3(t[3], t[4], t[5]))),
    "Basis": (9, _basis),
    "Transform3D": (12, lambda t: gt.Transform3D(_basis(t), _V3(t[9], t[10], t[11]))),
    "Projection": (16, lambda t: gt.Projection(_V4(*t[0:4]), _V4(*t[4:8]), _V4(*t[8:12]),
                                               _V4(*t[12:16]))),
    "Color": (4, gt.Color._make),
}
_INT_MATH: dict[str, tuple[int, Callable[[list[int]], Any]]] = {
    "Vector2i": (2, gt.Vector2i._make),
    "Rect2i": (4, lambda t: gt.Rect2i(gt.Vector2i(t[0], t[1]), gt.Vector2i(t[2], t[3]))),
    "Vector3i": (3, gt.Vector3i._make),
    "Vector4i": (4, gt.Vector4i._make),
}
_ALIASES = {
    "Matrix32": "Transform2D", "Quat": "Quaternion", "Rect3": "AABB", "Matrix3": "Basis",
    "Transform": "Transform3D",
    "PoolByteArray": "PackedByteArray", "ByteArray": "PackedByteArray",
    "PackedIntArray": "PackedInt32Array", "PoolIntArray": "PackedInt32Array",
    "IntArray": "PackedInt32Array",
    "PackedRealArray": "PackedFloat32Array", "PoolRealArray": "PackedFloat32Array",
    "FloatArray": "PackedFloat32Array", "RealArray": "PackedFloat32Array",
    "PoolStringArray": "PackedStringArray", "StringArray": "PackedStringArray",
    "PoolVector2Array": "PackedVector2Array", "Vector2Array": "PackedVector2Array",
    "PoolVector3Array": "PackedVector3Array", "Vector3Array": "PackedVector3Array",
    "PoolVector4Array": "PackedVector4Array", "Vector4Array": "PackedVector4Array",
    "PoolColorArray": "PackedColorArray", "ColorArray": "PackedColorArray",
}
_PACKED_NUMERIC: dict[str, type[gt.PackedArray]] = {
    cls.__name__: cls for cls in gt.PACKED_CLASSES.values()}
_INT_RANGES = {gt.PackedInt32Array: 1 << 31, gt.PackedInt64Array: _INT64}


class Reader:
    """A cursor over one text (a whole resource file, or one value): reads values and the
    tokens the section syntax needs, raising :class:`DecodeError` with byte offsets.

    ``ext_paths`` maps external-resource ids to paths, so that a typed container whose
    element type is a script (``Array[ExtResource("1_x")]``) names the script by path."""

    def __init__(self, text: str, ext_paths: Mapping[str, str] | None = None) -> None:
        self.text = text
        self.pos = 0
        self.ext_paths: Mapping[str, str] = ext_paths if ext_paths is not None else {}

    # -- errors and small tokens --------------------------------------------------------------

    def error(self, message: str, pos: int | None = None) -> DecodeError:
        """A :class:`DecodeError` at character ``pos`` (default: the cursor), as bytes."""
        at = self.pos if pos is None else pos
        offset = len(self.text[:at].encode("utf-8", "surrogatepass"))
        return DecodeError(message, offset=offset, format="godot")

    def skip(self) -> None:
        """Move past whitespace and ``;`` comments."""
        m = _WS.match(self.text, self.pos)
        if m is not None:
            self.pos = m.end()

    def peek(self) -> str:
        """The next character after whitespace, or ``""`` at the end."""
        c = self.text[self.pos:self.pos + 1]
        if c > " " and c != ";":
            return c
        self.skip()
        return self.text[self.pos:self.pos + 1]

    def expect(self, char: str, what: str) -> None:
        """Consume ``char`` (after whitespace), else fail naming ``what`` was expected."""
        if self.peek() != char:
            found = self.text[self.pos:self.pos + 1]
            raise self.error(f"expected {what}, found {_describe(found)}")
        self.pos += 1

    def identifier(self) -> str:
        """An identifier (``[A-Za-z_][A-Za-z_0-9]*``, or ``-inf``)."""
        self.skip()
        m = _IDENT.match(self.text, self.pos)
        if m is None:
            found = _describe(self.text[self.pos:self.pos + 1])
            raise self.error(f"expected a name, found {found}")
        self.pos = m.end()
        return m.group()

    def string(self) -> str:
        """A double-quoted string with the engine's escapes (the cursor on the quote)."""
        text = self.text
        start = self.pos + 1
        i = start
        has_escape = False
        while True:
            m = _QUOTE_OR_BACKSLASH.search(text, i)
            if m is None:
                raise self.error("the string is not terminated", self.pos)
            j = m.start()
            if text[j] == '"':
                break
            has_escape = True
            i = j + 2
        if i > len(text):
            raise self.error("the string is not terminated", self.pos)
        raw = text[start:j]
        value = self._unescape(raw, start) if has_escape else raw
        self.pos = j + 1
        return value

    def _unescape(self, raw: str, base: int) -> str:
        out: list[str] = []
        i = 0
        n = len(raw)
        lead = 0  # a pending UTF-16 lead surrogate from \u
        while i < n:
            j = raw.find("\\", i)
            if j < 0:
                j = n
            if j > i:
                if lead:
                    raise self.error("an unpaired UTF-16 lead surrogate in a string", base + i)
                out.append(raw[i:j])
            if j >= n:
                break
            c = raw[j + 1]
            i = j + 2
            if c in "uU":
                width = 4 if c == "u" else 6
                digits = _HEX.match(raw, i, min(n, i + width))
                if digits is None or digits.end() - i != width:
                    raise self.error("a malformed \\u escape in a string", base + j)
                code = int(raw[i:i + width], 16)
                i += width
            else:
                code = ord(_SIMPLE_ESCAPES.get(c, c))
            if 0xD800 <= code < 0xDC00:
                if lead:
                    raise self.error("an unpaired UTF-16 lead surrogate in a string", base + j)
                lead = code
                continue
            if 0xDC00 <= code < 0xE000:
                if not lead:
                    raise self.error("an unpaired UTF-16 trail surrogate in a string", base + j)
                code = 0x10000 + ((lead - 0xD800) << 10) + (code - 0xDC00)
                lead = 0
            elif lead:
                raise self.error("an unpaired UTF-16 lead surrogate in a string", base + j)
            if code > 0x10FFFF:
                raise self.error("a \\U escape past U+10FFFF in a string", base + j)
            out.append(chr(code))
        if lead:
            raise self.error("an unpaired UTF-16 lead surrogate in a string", base + n)
        return "".join(out)

    def number(self) -> int | float:
        """An integer (64-bit) or float literal."""
        m = _NUMBER.match(self.text, self.pos)
        if m is None:
            raise self.error("expected a number")
        self.pos = m.end()
        token = m.group()
        if m.group(1) is None and m.group(2) is None:
            if len(token) > 21:
                raise self.error("the integer does not fit in 64 bits", m.start())
            value = int(token)
            if not -_INT64 <= value < _INT64:
                raise self.error("the integer does not fit in 64 bits", m.start())
            return value
        mantissa, _, exponent = token.replace("E", "e").partition("e")
        exponent = exponent if exponent not in ("", "-", "+") else "0"
        return float(f"{mantissa}e{exponent}")

    # -- values -------------------------------------------------------------------------------

    def value(self, depth: int = 0) -> Any:
        """Parse the value at the cursor."""
        if depth > MAX_DEPTH:
            raise self.error(f"values are nested deeper than {MAX_DEPTH} levels")
        c = self.peek()
        if c == "":
            raise self.error("expected a value, found the end of the text")
        if c == "{":
            self.pos += 1
            return build_dictionary(self._pairs(depth + 1))
        if c == "[":
            self.pos += 1
            return self._items(depth + 1)
        if c == '"':
            return self.string()
        if c in "&@^" and self.text[self.pos + 1:self.pos + 2] == '"':
            self.pos += 1
            s = self.string()
            return gt.NodePath.parse(s) if c == "^" else gt.StringName(s)
        if c == "#":
            return self._html_color()
        if c.isdigit() or (c == "-" and self.text[self.pos + 1:self.pos + 2].isdigit()):
            return self.number()
        start = self.pos
        name = self.identifier()
        try:
            return self._named(name, depth)
        except DecodeError as e:
            if e.offset is None:
                raise self.error(e.message, start) from None
            raise

    def _items(self, depth: int) -> list[Any]:
        """Array elements up to ``]`` (the cursor after ``[``)."""
        items: list[Any] = []
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            try:
                items.append(self.value(depth))
            except DecodeError as e:
                e.add_parent(f"[{len(items)}]")
                raise
            if self._closed("]", "an array"):
                return items

    def _closed(self, close: str, what: str, trailing: bool = True) -> bool:
        """After an item: True past the closing ``close``, False past a comma (the engine
        allows a comma before the closing bracket of arrays, dictionaries, objects)."""
        c = self.peek()
        self.pos += 1
        if c == "," and trailing and self.peek() == close:
            c = close
            self.pos += 1
        if c == close:
            return True
        if c != ",":
            self.pos -= 1
            raise self.error(f"expected ',' or '{close}' in {what}, found {_describe(c)}")
        return False

    def _pairs(self, depth: int) -> list[tuple[Any, Any]]:
        """Dictionary entries up to ``}`` (the cursor after ``{``)."""
        pairs: list[tuple[Any, Any]] = []
        if self.peek() == "}":
            self.pos += 1
            return pairs
        while True:
            try:
                key = self.value(depth)
            except DecodeError as e:
                e.add_parent(f"[<key {len(pairs)}>]")
                raise
            self.expect(":", "':' after a dictionary key")
            try:
                pairs.append((key, self.value(depth)))
            except DecodeError as e:
                e.add_parent(path_key(key))
                raise
            if self._closed("}", "a dictionary"):
                return pairs

    def _numbers(self, opened: bool = False) -> list[int | float]:
        """``( n, n, ... )``: the numeric arguments of a constructor (``opened``: the
        cursor is already past the ``(``)."""
        if not opened:
            self.expect("(", "'(' after a constructor name")
        fast = _plain_numbers(self.text, self.pos)
        if fast is not None:
            self.pos, values = fast
            return values
        args: list[int | float] = []
        if self.peek() == ")":
            self.pos += 1
            return args
        while True:
            c = self.peek()
            if c.isdigit() or (c == "-" and self.text[self.pos + 1:self.pos + 2].isdigit()):
                args.append(self.number())
            else:
                start = self.pos
                word = self.identifier() if c.isalpha() or c in "-_" else ""
                if word not in _SPECIAL_FLOATS:
                    raise self.error("expected a number in a constructor", start)
                args.append(_SPECIAL_FLOATS[word])
            if self._closed(")", "a constructor", trailing=False):
                return args

    def _string_args(self) -> list[str]:
        """``("a", "b", ...)``: string arguments."""
        self.expect("(", "'('")
        args: list[str] = []
        if self.peek() == ")":
            self.pos += 1
            return args
        while True:
            if self.peek() != '"':
                raise self.error("expected a string")
            args.append(self.string())
            if self._closed(")", "a constructor", trailing=False):
                return args

    def _ref_id(self) -> str:
        """The id of ``ExtResource(...)``/``SubResource(...)``: a string or an integer."""
        self.expect("(", "'('")
        c = self.peek()
        if c == '"':
            ref = self.string()
        elif c.isdigit() or c == "-":
            ref = str(self.number())
        else:
            raise self.error("expected a resource id (a string or an integer)")
        self.expect(")", "')' after a resource id")
        return ref

    def _named(self, name: str, depth: int) -> Any:
        """A value that starts with an identifier."""
        if name in ("true", "false"):
            return name == "true"
        if name in ("null", "nil"):
            return None
        if name in _SPECIAL_FLOATS:
            if self.text.startswith(".0", self.pos):
                self.pos += 2  # Godot 3.0 to 3.2 wrote a float property of -inf as -inf.0
            return _SPECIAL_FLOATS[name]
        name = _ALIASES.get(name, name)
        if name in _REAL_MATH:
            count, make = _REAL_MATH[name]
            args = self._numbers()
            if len(args) != count:
                raise self.error(f"{name} takes {count} numbers, not {len(args)}")
            return make(f32s(args))
        if name in _INT_MATH:
            icount, imake = _INT_MATH[name]
            args = self._numbers()
            if len(args) != icount:
                raise self.error(f"{name} takes {icount} numbers, not {len(args)}")
            return imake([_int32(a) for a in args])
        if name in _PACKED_NUMERIC:
            return self._packed(name)
        if name == "PackedByteArray":
            return self._bytes()
        if name == "PackedStringArray":
            return gt.PackedStringArray(self._string_args())
        if name in ("ExtResource", "SubResource"):
            ref = self._ref_id()
            return ExtRef(ref) if name == "ExtResource" else SubRef(ref)
        if name == "Resource":
            paths = self._string_args()
            if not 1 <= len(paths) <= 2:
                raise self.error("Resource() takes a path, or a uid and a path")
            uid = next((p for p in paths if p.startswith("uid://")), None)
            path = next((p for p in paths if not p.startswith("uid://")), "")
            return ResourcePath(path, uid)
        if name == "NodePath":
            texts = self._string_args()
            if len(texts) != 1:
                raise self.error("NodePath() takes one string")
            return gt.NodePath.parse(texts[0])
        if name == "RID":
            rid = self._numbers()
            if len(rid) > 1 or (rid and not isinstance(rid[0], int)):
                raise self.error("RID() takes nothing or one integer")
            return gt.RID(int(rid[0]) if rid else 0)
        if name in ("Callable", "Signal"):
            self.expect("(", "'('")
            self.expect(")", "')'")
            return gt.Callable() if name == "Callable" else gt.Signal()
        if name == "Object":
            return self._object(depth)
        if name == "Array" and self.peek() == "[":
            return self._typed_array(depth)
        if name == "Dictionary" and self.peek() == "[":
            return self._typed_dictionary(depth)
        raise self.error(f"unknown value type {name!r}")

    def _packed(self, name: str) -> gt.PackedArray:
        cls = _PACKED_NUMERIC[name]
        real = cls.kind == "f" and cls.itemsize == 4
        args = self._numbers()
        if cls.width > 1:
            del args[len(args) - len(args) % cls.width:]  # the engine drops a partial element
        if real:
            return cls(f32s(args))
        limit = _INT_RANGES.get(cls)
        if limit is not None:
            if any(isinstance(a, float) and not math.isfinite(a) for a in args):
                raise self.error(f"a {name} element is not a finite number")
            ints = [int(a) for a in args]
            if any(not -limit <= a < limit for a in ints):
                raise self.error(f"a {name} element is out of range")
            return cls(ints)
        return cls([float(a) for a in args])

    def _bytes(self) -> bytes:
        self.expect("(", "'(' after PackedByteArray")
        if self.peek() == '"':
            encoded = self.string()
            self.expect(")", "')' after base64 bytes")
            try:
                return base64.b64decode(encoded.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError, ValueError):
                raise self.error("PackedByteArray holds invalid base64") from None
        args = self._numbers(opened=True)
        if any(not isinstance(a, int) or not 0 <= a <= 255 for a in args):
            raise self.error("a PackedByteArray element is not a byte (0 to 255)")
        return bytes(args)  # type: ignore[arg-type]

    def _html_color(self) -> gt.Color:
        start = self.pos
        m = _HEX.match(self.text, self.pos + 1)
        assert m is not None
        self.pos = m.end()
        digits = m.group()
        if len(digits) in (3, 4):
            parts = [int(ch, 16) / 15 for ch in digits]
        elif len(digits) in (6, 8):
            parts = [int(digits[i:i + 2], 16) / 255 for i in range(0, len(digits), 2)]
        else:
            raise self.error("a #color needs 3, 4, 6 or 8 hex digits", start)
        if len(parts) == 3:
            parts.append(1.0)
        return gt.Color(*(f32(p) for p in parts))

    def _object(self, depth: int) -> gt.Object:
        self.expect("(", "'(' after Object")
        cls = self.identifier()
        self.expect(",", "',' after the object's type")
        obj = gt.Object(cls)
        if self.peek() == ")":
            self.pos += 1
            return obj
        while True:
            if self.peek() != '"':
                raise self.error("expected a property name (a string) in Object()")
            key = self.string()
            self.expect(":", "':' after an Object property name")
            try:
                obj.properties[key] = self.value(depth + 1)
            except DecodeError as e:
                e.add_parent(path_key(key))
                raise
            if self._closed(")", "Object()"):
                return obj

    def _container_type(self) -> gt.ContainerType:
        """The element (key, value) type of a typed container: a type or class name, or a
        script as ``ExtResource``/``Resource``."""
        start = self.pos
        name = self.identifier()
        if name == "Variant":
            return gt.UNTYPED
        if name in ("ExtResource", "SubResource", "Resource"):
            ref = self._named(name, 0)
            if isinstance(ref, ExtRef):
                return gt.ContainerType(gt.VariantType.OBJECT,
                                        script=self.ext_paths.get(ref.id, _ref_text(ref)))
            if isinstance(ref, ResourcePath):
                return gt.ContainerType(gt.VariantType.OBJECT, script=ref.path)
            raise self.error("a container cannot be typed by a SubResource", start)
        return gt.ContainerType.of(name)

    def _typed_array(self, depth: int) -> gt.TypedArray:
        self.expect("[", "'['")
        etype = self._container_type()
        self.expect("]", "']' after the array's element type")
        self.expect("(", "'(' after Array[...]")
        self.expect("[", "'[' in Array[...](")
        items = self._items(depth + 1)
        self.expect(")", "')' after a typed array")
        return gt.TypedArray(etype, items)

    def _typed_dictionary(self, depth: int) -> gt.TypedDictionary:
        self.expect("[", "'['")
        ktype = self._container_type()
        self.expect(",", "',' between the dictionary's key and value types")
        vtype = self._container_type()
        self.expect("]", "']' after the dictionary's types")
        self.expect("(", "'(' after Dictionary[...]")
        self.expect("{", "'{' in Dictionary[...](")
        pairs = self._pairs(depth + 1)
        self.expect(")", "')' after a typed dictionary")
        return gt.TypedDictionary(ktype, vtype, pairs)


_PLAIN_ARGS = re.compile(r"[-+.0-9eE, \t\n]*\)")
_PLAIN_INT = re.compile(r"-?[0-9]{1,18}")


def _plain_numbers(text: str, pos: int) -> tuple[int, list[int | float]] | None:
    """The fast way through ``n, n, ... )`` when it holds only plain numbers: the position
    after the ``)`` and the numbers, or None to take the careful way."""
    m = _PLAIN_ARGS.match(text, pos)
    if m is None:
        return None
    inner = text[pos:m.end() - 1]
    if not inner.strip():
        return m.end(), []
    values: list[int | float] = []
    for token in inner.split(","):
        token = token.strip()
        if _PLAIN_INT.fullmatch(token):
            values.append(int(token))
        elif _NUMBER.fullmatch(token) and token[-1].isdigit():
            values.append(float(token))
        else:
            return None
    return m.end(), values


def _int32(a: int | float) -> int:
    """An integer constructor argument as the engine's ``int32_t`` conversion keeps it."""
    if isinstance(a, float):
        if not math.isfinite(a):
            return 0
        a = int(a)
    return (a + (1 << 31)) % (1 << 32) - (1 << 31)


def _describe(found: str) -> str:
    return "the end of the text" if found == "" else repr(found)


def parse_value(text: str) -> Any:
    """Parse one value written in the text syntax of any Godot version (the whole text must
    be that value, whitespace and ``;`` comments around it allowed)."""
    reader = Reader(text)
    with recursion_room(MAX_DEPTH * 6 + 50):
        value = reader.value()
    if reader.peek() != "":
        raise reader.error("unexpected text after the value")
    return value


# ---------------------------------------------------------------------------------------------
# Printing


def _format_digits(digits: str, exponent: int) -> str:
    """``0.digits x 10^exponent`` laid out as the engine's float printer does: plain
    decimals for decimal exponents from -3 to 15, else ``d.ddde+XX``."""
    k = len(digits)
    n = k + exponent
    if k <= n <= 15:
        return digits + "0" * (n - k)
    if 0 < n <= 15:
        return digits[:n] + "." + digits[n:]
    if -4 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"


def _shortest(x: float, single: bool) -> str:
    """The shortest decimal text that reads back as ``x`` (as a float32 when ``single``),
    laid out by :func:`_format_digits`."""
    text = repr(x)
    if single:
        mantissa = text.partition("e")[0].replace(".", "").replace("-", "").strip("0")
        for precision in range(1, min(len(mantissa), 9) + 1):
            candidate = f"{x:.{precision - 1}e}"
            if f32(float(candidate)) == x:
                text = candidate
                break
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exp_text = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    exponent = (int(exp_text) if exp_text else 0) - len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return sign + _format_digits(stripped or "0", exponent)


def format_float(x: float, major: int = 4, style: FloatStyle = "shortest") -> str:
    """A real number as the engine's ``rtos_fix`` prints it (no ``.0`` added): ``0`` for
    zero, ``inf``, ``-inf``, ``nan`` (:class:`Printer` knows when minus infinity is
    ``inf_neg``)."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < (1e6 if major < 4 or style == "g6" else 1e15):
        return str(int(x))
    if major < 4 or style == "g6":
        return f"{x:g}"
    single = f32(x) == x
    return _shortest(x, single)


def c_escape(s: str) -> str:
    """``String::c_escape``: backslash, control characters, quotes and ``?`` escaped."""
    for a, b in (("\\", "\\\\"), ("\a", "\\a"), ("\b", "\\b"), ("\f", "\\f"), ("\n", "\\n"),
                 ("\r", "\\r"), ("\t", "\\t"), ("\v", "\\v"), ("'", "\\'"), ("?", "\\?"),
                 ('"', '\\"')):
        s = s.replace(a, b)
    return s


def _c_escape_multiline(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _ref_text(ref: ExtRef | SubRef, major: int = 4) -> str:
    kind = "ExtResource" if isinstance(ref, ExtRef) else "SubResource"
    if major < 4 and ref.id.lstrip("-").isdigit():
        return f"{kind}( {ref.id} )"
    return f'{kind}("{c_escape(ref.id)}")'


_G3_NAMES = {"Quaternion": "Quat", "Transform3D": "Transform", **{
    new: old for old, new in _ALIASES.items() if old.startswith("Pool") and "4" not in old}}


class Printer:
    """Formats values for one engine version: ``major`` (3 or 4; Godot 2 files are written
    with Godot 3's spelling), float ``style``, ``compat`` (Godot 4's ``format=3``: byte
    arrays as numbers, ``inf_neg``), ``legacy`` (Godot 3.0 to 3.2: an empty dictionary as
    ``{`` and ``}`` with a blank line between, ``-inf``, and a float property of minus
    infinity as ``-inf.0``) and ``script_ids`` (script path -> external id, for typed
    containers)."""

    def __init__(self, major: int = 4, style: FloatStyle = "shortest", compat: bool = True,
                 script_ids: Mapping[str, str] | None = None, legacy: bool = False) -> None:
        self.major = major
        self.style = style
        self.compat = compat
        self.legacy = legacy and major < 4
        self.script_ids: Mapping[str, str] = script_ids if script_ids is not None else {}
        minus_inf = (major >= 4 and not compat) or self.legacy
        self.neg_inf = "-inf" if minus_inf else "inf_neg"

    def real(self, x: float) -> str:
        """A real number as ``rtos_fix`` prints it."""
        if x == -math.inf:
            return self.neg_inf
        return format_float(x, self.major, self.style)

    def call(self, name: str, parts: list[str]) -> str:
        """``Name(a, b)`` (Godot 4) or ``Name( a, b )`` (Godot 3)."""
        if self.major < 4:
            return f"{_G3_NAMES.get(name, name)}( {', '.join(parts)} )"
        return f"{name}({', '.join(parts)})"

    def format(self, value: Any, depth: int = 0) -> str:
        """The text of ``value``."""
        if depth > MAX_DEPTH:
            raise EncodeError(f"values are nested deeper than {MAX_DEPTH} levels",
                              format="godot")
        if value is None:
            return "null"
        t = type(value)
        if t is bool:
            return "true" if value else "false"
        if t is int:
            if not -_INT64 <= value < _INT64:
                raise EncodeError("an integer does not fit in 64 bits", format="godot")
            return str(value)
        if t is float:
            s = self.real(value if self.major >= 4 else f32(value))  # Godot 3: a real_t
            special = ("inf", "nan") if self.legacy else ("inf", "nan", "-inf")
            if s not in special and not any(ch in s for ch in ".eE"):
                s += ".0"
            return s
        if t is str:
            return f'"{_c_escape_multiline(value)}"'
        if isinstance(value, gt.StringName):
            if self.major < 4:
                return f'"{_c_escape_multiline(value)}"'
            return f'&"{c_escape(value)}"'
        if isinstance(value, gt.NodePath):
            return f'NodePath("{c_escape(str(value))}")'
        if isinstance(value, ExtRef | SubRef):
            return _ref_text(value, self.major)
        if isinstance(value, ResourcePath):
            if self.major < 4:
                return f'Resource( "{value.path}")'
            if value.uid is not None:
                return f'Resource("{value.uid}", "{_c_escape_multiline(value.path)}")'
            return f'Resource("{_c_escape_multiline(value.path)}")'
        formatter = _FORMATTERS.get(t)
        if formatter is not None:
            return formatter(self, value)
        if isinstance(value, gt.TypedArray):
            return self._typed_array(value, depth)
        if isinstance(value, list):
            return self._array(value, depth)
        if isinstance(value, gt.TypedDictionary):
            return (f"Dictionary[{self._ctype(value.key_type)}, "
                    f"{self._ctype(value.value_type)}]({self._dict(value.items(), depth)})")
        if isinstance(value, dict | gt.Dictionary):
            return self._dict(value.items(), depth)
        if isinstance(value, gt.Object):
            props = ",".join(f'"{k}":{self.format(v, depth + 1)}'
                             for k, v in value.properties.items())
            return f"Object({value.class_name},{props})\n"
        raise EncodeError(f"a {t.__name__} cannot be written in a text resource",
                          format="godot")

    def _array(self, items: list[Any], depth: int) -> str:
        parts = [self.format(v, depth + 1) for v in items]
        if self.major < 4:
            return f"[ {', '.join(parts)} ]"
        return f"[{', '.join(parts)}]"

    def _ctype(self, ct: gt.ContainerType) -> str:
        if ct.script:
            ref = self.script_ids.get(ct.script)
            return _ref_text(ExtRef(ref)) if ref is not None else f'Resource("{ct.script}")'
        if not ct.is_typed:
            return "Variant"
        return ct.name

    def _typed_array(self, value: gt.TypedArray, depth: int) -> str:
        return f"Array[{self._ctype(value.element_type)}]({self._array(value, depth)})"

    def _dict(self, items: Any, depth: int) -> str:
        pairs = sorted(items, key=_key_order)
        if not pairs:
            return "{}" if self.major >= 4 else "{\n\n}" if self.legacy else "{\n}"
        body = ",\n".join(f"{self.format(k, depth + 1)}: {self.format(v, depth + 1)}"
                          for k, v in pairs)
        return "{\n" + body + "\n}"


_KEY_RANKS = {bool: gt.VariantType.BOOL, int: gt.VariantType.INT,
              float: gt.VariantType.FLOAT}


def _key_order(pair: tuple[Any, Any]) -> tuple[int, Any]:
    """The engine's order of dictionary keys on saving: by Variant type first (strings and
    StringNames together), then numbers by value and strings by text; keys of other types
    keep their order within their type."""
    key = pair[0]
    if isinstance(key, str):
        return (gt.VariantType.STRING, str(key))
    rank = _KEY_RANKS.get(type(key))
    if rank is not None and not (isinstance(key, float) and math.isnan(key)):
        return (rank, key)
    return (_type_rank(key), 0)


def _type_rank(value: Any) -> int:
    """The Variant type number of a key that is not a string or a number."""
    rank = gt.TYPES_BY_NAME.get(type(value).__name__) if value is not None else 0
    if rank is not None:
        return rank
    if isinstance(value, dict | gt.Dictionary):
        return gt.VariantType.DICTIONARY
    return gt.VariantType.ARRAY if isinstance(value, list) else gt.VariantType.OBJECT


def _reals(p: Printer, values: Any, single: bool = True) -> list[str]:
    """Components printed; ``single``: stored as float32 (``real_t``), as the engine does."""
    if single:
        return [p.real(x) for x in f32s(list(values))]
    return [p.real(float(x)) for x in values]


def _flat(value: tuple[Any, ...]) -> list[Any]:
    """The components of a math value in text order."""
    if isinstance(value, gt.Basis):
        return [value.x.x, value.y.x, value.z.x, value.x.y, value.y.y, value.z.y,
                value.x.z, value.y.z, value.z.z]
    if isinstance(value, gt.Transform3D):
        return _flat(value.basis) + list(value.origin)
    out: list[Any] = []
    for c in value:
        out.extend(_flat(c) if isinstance(c, tuple) else [c])
    return out


def _math(name: str, integer: bool) -> Callable[[Printer, Any], str]:
    def fmt(p: Printer, value: Any) -> str:
        comps = _flat(value)
        return p.call(name, [str(int(c)) for c in comps] if integer else _reals(p, comps))
    return fmt


def _packed(name: str) -> Callable[[Printer, Any], str]:
    def fmt(p: Printer, value: gt.PackedArray) -> str:
        flat: list[Any] = []
        for item in value.tolist():
            flat.extend(item if isinstance(item, tuple) else [item])
        if value.kind == "i":
            return p.call(name, [str(int(x)) for x in flat])
        return p.call(name, _reals(p, flat, value.itemsize == 4 and value.element_size == 4))
    return fmt


def _format_bytes(p: Printer, value: bytes) -> str:
    if p.major < 4 or p.compat:
        return p.call("PackedByteArray", [str(b) for b in value])
    inner = f'"{base64.b64encode(value).decode("ascii")}"' if value else ""
    return f"PackedByteArray({inner})"


def _format_strings(p: Printer, value: gt.PackedStringArray) -> str:
    return p.call("PackedStringArray", [f'"{c_escape(s)}"' for s in value])


def _format_rid(p: Printer, value: gt.RID) -> str:
    return f"RID({value.id})" if value.id else "RID()"


_FORMATTERS: dict[type, Callable[[Printer, Any], str]] = {
    **{getattr(gt, n): _math(n, False) for n in _REAL_MATH},
    **{getattr(gt, n): _math(n, True) for n in _INT_MATH},
    **{cls: _packed(n) for n, cls in _PACKED_NUMERIC.items()},
    bytes: _format_bytes,
    gt.PackedStringArray: _format_strings,
    gt.RID: _format_rid,
    gt.Callable: lambda p, v: "Callable()",
    gt.Signal: lambda p, v: "Signal()",
}


def format_value(value: Any, major: int = 4, style: FloatStyle = "shortest",
                 compat: bool = True, legacy: bool = False) -> str:
    """The text of ``value`` as the engine of ``major`` version writes it (see
    :class:`Printer` for the options)."""
    with recursion_room(MAX_DEPTH * 4 + 50):
        return Printer(major, style, compat, legacy=legacy).format(value)
