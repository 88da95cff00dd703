"""FlexBuffers (schema-less binary values) as flatc 25.12.19 writes, checks and prints them.

FlexBuffers sit inside FlatBuffers as ``[ubyte]`` fields with the ``flexbuffer`` attribute.
This module is what :mod:`~gameserde.flatbuffers.encoder`, :mod:`~gameserde.flatbuffers.decoder`,
:mod:`~gameserde.flatbuffers.json_output` and :mod:`~gameserde.flatbuffers.verifier` use for
such fields; it also works on its own:

* :func:`dumps` writes a value with the rules of the C++ ``flexbuffers::Builder`` that flatc
  uses for JSON (``BUILDER_FLAG_SHARE_ALL``), so a JSON value gives the bytes ``flatc -b``
  embeds: dicts are maps (keys sorted by ``strcmp``, every key written once per buffer), lists
  and tuples untyped vectors, ``str`` shared strings, ``int`` the smallest signed width
  (``UINT`` for 2^63..2^64-1, which JSON cannot give), ``float`` 32-bit when exact else
  64-bit, ``bool``, ``None``; ``bytes`` are blobs (never produced from JSON). Each value
  takes the narrowest width that holds it and its offsets, as the C++ builder decides it
  (including its habit of sizing a map's offsets as if keys and values were interleaved).
  :func:`dumps_json_value` does the same for values from flatc's JSON parser
  (:mod:`~gameserde.flatbuffers._json_parse`), with flatc's token rules: ``0x10`` and integers
  outside int64 become 0, ``nan``/``inf``/``infinity`` (and ``-nan``, ``+Infinity`` ...) are
  doubles (NaN always positive), integer tokens are ``Int`` and others ``Double``.
* :func:`loads` reads any FlexBuffer into Python values: maps to dicts (``str`` keys), vectors
  of every kind to lists, strings to ``str`` (invalid UTF-8 kept as U+DC80..U+DCFF,
  ``surrogateescape``), blobs to ``bytes``, indirect scalars to their values. It reads what the
  C++ accessors read (a float stored in 1 or 2 bytes is that integer, a map whose key vector is
  shorter than its values shows the first keys, a longer one maps the extra keys to None).
* :func:`verify` is ``flexbuffers::VerifyBuffer`` without reuse tracker (what the generated
  FlatBuffers verifier runs on ``flexbuffer`` fields): bounds, 1/2/4/8 widths, known types,
  offsets pointing backwards, alignment of everything an offset points to, a depth of 64
  nested vectors (strings and blobs count), at most ``len(buf)`` vectors visited. It inherits
  flatc 25.12.19's ``VerifyKey``, which accepts a key unless only zero bytes follow it (never,
  since the last byte is a width): keys are not checked for their NUL.
* :func:`to_json` is ``flexbuffers::Reference::ToString(true, strict, ...)``, the text flatc
  prints for a ``flexbuffer`` field: one line, ``{ k: v, ... }`` and ``[ a, b ]`` (``{  }`` and
  ``[  ]`` when empty), keys quoted with ``strict`` or when they are not identifiers, floats
  with 12 decimals as flatc prints doubles, strings and blobs escaped with ``\\uXXXX`` and
  ``\\xNN`` for bytes that are not UTF-8, keys inside typed key vectors (and key values)
  quoted only with ``strict``, ``(?)`` for unknown types.

Hostile input: every read is bounds-checked, lengths are checked against the bytes left
before anything is allocated, nesting is limited to 64 vectors/maps, and shared data cannot
blow up the work: strings, keys and blobs are decoded once per position, and a buffer whose
vectors expand to more than ``2 * len(buf) + 1024`` elements and string bytes (only possible
when vectors are shared, which no builder does by itself) is refused, as is output text beyond
``64 * len(buf) + 2**26`` characters. :func:`verify` memoises vectors it has verified (keeping
C++'s counts) and gives up on buffers needing more than ``16 * len(buf) + 2**16`` element
checks (again only reachable with overlapping vectors). Failures raise
:class:`~gameserde.errors.DecodeError` with the offset (from the start of the FlexBuffer) and
the path (``$["key"][3]``), never another exception; :func:`dumps` raises
:class:`~gameserde.errors.EncodeError`.
"""

from __future__ import annotations

import itertools
import math
import re
import struct
from collections.abc import Mapping
from typing import Any, Final

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers._encode_scalars import _int_text, short
from gameserde.flatbuffers._json_parse import Bare, Irregular
from gameserde.flatbuffers._json_text import format_float, quote_string

__all__ = ["dumps", "dumps_json_value", "loads", "to_json", "verify"]

# value types (upper 6 bits of a packed type)
NULL, INT, UINT, FLOAT, KEY, STRING = 0, 1, 2, 3, 4, 5
INDIRECT_INT, INDIRECT_UINT, INDIRECT_FLOAT, MAP, VECTOR = 6, 7, 8, 9, 10
VECTOR_INT, VECTOR_UINT, VECTOR_FLOAT, VECTOR_KEY, VECTOR_STRING_DEPRECATED = 11, 12, 13, 14, 15
VECTOR_INT2, VECTOR_FLOAT4 = 16, 24
BLOB, BOOL, VECTOR_BOOL = 25, 26, 36
MAX_TYPE: Final = 37

MAX_DEPTH: Final = 64
"""Nested vectors/maps :func:`loads` and :func:`to_json` follow (the verifier's limit)."""
MAX_JSON_DEPTH: Final = 63
"""Value levels :func:`dumps` accepts: flatc's JSON parser allows 63 for a field of the root
table (its limit of 64 counts the table)."""

_FORMAT = "flexbuffers"
_U = {1: struct.Struct("<B"), 2: struct.Struct("<H"), 4: struct.Struct("<I"),
      8: struct.Struct("<Q")}
_I = {1: struct.Struct("<b"), 2: struct.Struct("<h"), 4: struct.Struct("<i"),
      8: struct.Struct("<q")}
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")
_MASK64 = (1 << 64) - 1
_INLINE = frozenset((NULL, INT, UINT, FLOAT, BOOL))
# packed type bytes of inline values (any width): what a vector's type bytes hold mostly
_INLINE_PACKED = bytes(sorted((t << 2) | w for t in _INLINE for w in range(4)))
_VECTOR_ELEMENT = {VECTOR_INT: INT, VECTOR_UINT: UINT, VECTOR_FLOAT: FLOAT, VECTOR_KEY: KEY,
                   VECTOR_STRING_DEPRECATED: KEY, VECTOR_BOOL: BOOL}


def _is_inline(t: int) -> bool:
    return t <= FLOAT or t == BOOL


# ---------------------------------------------------------------------------------------------
# Widths


def _width_u(u: int) -> int:
    """Bit width code (0: 8, 1: 16, 2: 32, 3: 64) of an unsigned value."""
    if u < 0x100:
        return 0
    if u < 0x10000:
        return 1
    if u < 0x100000000:
        return 2
    return 3


def _width_i(i: int) -> int:
    return _width_u(i << 1 if i >= 0 else ~(i << 1) & _MASK64)


def _width_f(f: float) -> int:
    try:
        exact = _F32.unpack(_F32.pack(f))[0] == f
    except OverflowError:  # beyond float: C++'s cast gives inf, unequal
        exact = False
    return 2 if exact else 3


def _padding(size: int, byte_width: int) -> int:
    return -size & (byte_width - 1)


# ---------------------------------------------------------------------------------------------
# The builder (C++ flexbuffers::Builder with BUILDER_FLAG_SHARE_ALL)

# a stack entry: (type, min bit width code, payload) where the payload is the value of an
# inline scalar or the position of what an offset points to


class _Builder:
    __slots__ = ("buf", "keys", "stack", "strings")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.stack: list[tuple[int, int, Any]] = []
        self.keys: dict[bytes, int] = {}  # key bytes up to the first NUL (strcmp) -> position
        self.strings: dict[bytes, int] = {}

    # -- writing -----------------------------------------------------------------------------

    def align(self, width: int) -> int:
        byte_width = 1 << width
        self.buf += bytes(_padding(len(self.buf), byte_width))
        return byte_width

    def write_uint(self, value: int, byte_width: int) -> None:
        self.buf += (value & ((1 << (8 * byte_width)) - 1)).to_bytes(byte_width, "little")

    def write_any(self, entry: tuple[int, int, Any], byte_width: int) -> None:
        t, _, payload = entry
        if t == FLOAT:
            self.buf += (_F64 if byte_width == 8 else _F32).pack(payload)
        elif _is_inline(t):
            self.write_uint(payload, byte_width)
        else:
            self.write_uint(len(self.buf) - payload, byte_width)

    @staticmethod
    def stored_packed(entry: tuple[int, int, Any], parent_width: int) -> int:
        t, width, _ = entry
        if _is_inline(t):
            width = max(width, parent_width)
        return (t << 2) | width

    def elem_width(self, entry: tuple[int, int, Any], elem_index: int) -> int:
        """The width ``entry`` needs as element ``elem_index`` of what is written next."""
        t, width, payload = entry
        if _is_inline(t):
            return width
        size = len(self.buf)
        for code in range(4):
            byte_width = 1 << code
            loc = size + _padding(size, byte_width) + elem_index * byte_width
            if _width_u(loc - payload) == code:
                return code
        return 3

    # -- values ------------------------------------------------------------------------------

    def scalar(self, t: int, width: int, value: Any) -> None:
        self.stack.append((t, width, value))

    def key(self, data: bytes) -> None:
        loc = len(self.buf)
        self.buf += data + b"\0"
        name = data.split(b"\0", 1)[0]
        old = self.keys.get(name)
        if old is not None:
            del self.buf[loc:]
            loc = old
        else:
            self.keys[name] = loc
        self.stack.append((KEY, 0, loc))

    def blob(self, data: bytes, trailing: int, t: int) -> None:
        width = _width_u(len(data))
        byte_width = self.align(width)
        self.write_uint(len(data), byte_width)
        loc = len(self.buf)
        self.buf += data
        if trailing:
            self.buf += b"\0"
        self.stack.append((t, width, loc))

    def string(self, data: bytes) -> None:
        reset_to = len(self.buf)
        self.blob(data, 1, STRING)
        old = self.strings.get(data)
        if old is not None:
            del self.buf[reset_to:]
            self.stack[-1] = (STRING, self.stack[-1][1], old)
        else:
            self.strings[data] = self.stack[-1][2]

    def create_vector(self, start: int, count: int, step: int, typed: bool,
                      keys: tuple[int, int, Any] | None = None) -> tuple[int, int, Any]:
        stack = self.stack
        width = _width_u(count)
        prefix = 1
        if keys is not None:
            width = max(width, self.elem_width(keys, 0))
            prefix += 2
        vector_type = KEY
        # C++ passes the distance on the stack (not the element index) as the position
        for i in range(start, len(stack), step):
            width = max(width, self.elem_width(stack[i], i - start + prefix))
            if typed and i == start:
                vector_type = stack[i][0]
        byte_width = self.align(width)
        if keys is not None:
            self.write_uint(len(self.buf) - keys[2], byte_width)
            self.write_uint(1 << keys[1], byte_width)
        self.write_uint(count, byte_width)
        loc = len(self.buf)
        for i in range(start, len(stack), step):
            self.write_any(stack[i], byte_width)
        if not typed:
            self.buf += bytes(self.stored_packed(stack[i], width)
                              for i in range(start, len(stack), step))
        if keys is not None:
            return (MAP, width, loc)
        if typed:
            return (vector_type - INT + VECTOR_INT, width, loc)
        return (VECTOR, width, loc)

    def end_vector(self, start: int) -> None:
        vec = self.create_vector(start, len(self.stack) - start, 1, False)
        del self.stack[start:]
        self.stack.append(vec)

    def end_map(self, start: int) -> None:
        stack = self.stack
        buf = self.buf

        def name(entry: tuple[int, int, Any]) -> bytes:
            loc: int = entry[2]
            return bytes(buf[loc:buf.index(0, loc)])

        pairs = sorted(((name(stack[i]), stack[i], stack[i + 1])
                        for i in range(start, len(stack), 2)), key=lambda p: p[0])
        for a, b in itertools.pairwise(pairs):
            if a[0] == b[0]:
                raise EncodeError("FlexBuffers map has duplicate keys", format=_FORMAT)
        del stack[start:]
        for _, k, v in pairs:
            stack += (k, v)
        keys = self.create_vector(start, len(pairs), 2, True)
        vec = self.create_vector(start + 1, len(pairs), 2, False, keys)
        del stack[start:]
        stack.append(vec)

    def finish(self) -> bytes:
        assert len(self.stack) == 1
        root = self.stack[0]
        byte_width = self.align(self.elem_width(root, 0))
        self.write_any(root, byte_width)
        self.buf.append(self.stored_packed(root, 0))
        self.buf.append(byte_width)
        return bytes(self.buf)


# ---------------------------------------------------------------------------------------------
# Values -> builder calls

_DEC_INT = re.compile(r"[+-]?[0-9]+\Z")
_HEX_INT = re.compile(r"[+-]?0[xX][0-9a-fA-F]+\Z")
_DEC_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX_FLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                        r"[pP][+-]?[0-9]+\Z")
_SPECIAL = {"nan": math.nan, "inf": math.inf, "infinity": math.inf}
_INT64 = range(-(1 << 63), 1 << 63)


def _token(tok: str) -> tuple[int, int, Any]:
    """A bare JSON token as flatc's ``ParseFlexBufferValue`` reads it."""
    if tok in ("true", "false"):
        return (BOOL, 0, int(tok == "true"))
    if tok in _SPECIAL:  # case-sensitive identifiers
        return (FLOAT, _width_f(_SPECIAL[tok]), _SPECIAL[tok])
    if tok[:1] in ("+", "-") and tok[1:2].isalpha():
        # sign + identifier: strtod, which ignores case; a NaN is made positive
        special = _SPECIAL.get(tok[1:].lower())
        if special is None:
            raise EncodeError(f"unexpected floating-point constant: {short(tok)}",
                              format=_FORMAT)
        value = -special if tok[0] == "-" and special == math.inf else special
        return (FLOAT, _width_f(value), value)
    if _DEC_INT.match(tok):
        i = int(tok)  # strtoll: out of range is an error, which flatc turns into 0
        i = i if i in _INT64 else 0
        return (INT, _width_i(i), i)
    if _HEX_INT.match(tok):
        return (INT, 0, 0)  # parsed in base 10: stops at the "x", so 0
    if _DEC_FLOAT.match(tok):
        f = float(tok)
    elif _HEX_FLOAT.match(tok):
        try:
            f = float.fromhex(tok)
        except OverflowError:
            f = -math.inf if tok.startswith("-") else math.inf
    else:
        raise EncodeError(f"cannot parse value starting with: {short(tok)}", format=_FORMAT)
    return (FLOAT, _width_f(f), f)


def _text(value: str | bytes) -> bytes:
    if isinstance(value, str):
        try:
            return value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise EncodeError("string is not valid UTF-8", format=_FORMAT) from None
    return bytes(value)


class _Writer:
    """Feeds a value to the builder depth-first, in the order flatc's parser does."""

    def __init__(self, json_tokens: bool) -> None:
        self.b = _Builder()
        self.json_tokens = json_tokens

    def value(self, v: Any, depth: int) -> None:
        if depth > MAX_JSON_DEPTH:
            raise EncodeError(f"maximum parsing depth {MAX_JSON_DEPTH + 2} reached",
                              format=_FORMAT)
        b = self.b
        if v is None:
            b.scalar(NULL, 0, 0)
        elif isinstance(v, Bare) and self.json_tokens:
            b.scalar(*_token(v))
        elif v is True or v is False:
            b.scalar(BOOL, 0, int(v))
        elif isinstance(v, int):
            i = int(v)
            if i in _INT64:
                b.scalar(INT, _width_i(i), i)
            elif 0 <= i <= _MASK64:
                b.scalar(UINT, _width_u(i), i)
            else:
                raise EncodeError(f"integer {_int_text(i)} does not fit in 64 bits",
                                  format=_FORMAT)
        elif isinstance(v, float):
            f = float(v)
            b.scalar(FLOAT, _width_f(f), f)
        elif isinstance(v, str):
            b.string(_text(v))
        elif isinstance(v, (bytes, bytearray, memoryview)):
            if self.json_tokens:  # a JSON string that is not UTF-8 (--allow-non-utf8)
                b.string(bytes(v))
            else:
                b.blob(bytes(v), 0, BLOB)
        elif isinstance(v, Mapping):
            start = len(b.stack)
            for k, x in (v.pairs if isinstance(v, Irregular) else v.items()):
                if not isinstance(k, (str, bytes)):
                    raise EncodeError(f"map keys must be strings, not {type(k).__name__}",
                                      format=_FORMAT)
                b.key(_text(k))
                try:
                    self.value(x, depth + 1)
                except EncodeError as exc:
                    exc.add_parent(_quoted(k if isinstance(k, str) else
                                           k.decode("utf-8", "surrogateescape")))
                    raise
            b.end_map(start)
        elif isinstance(v, (list, tuple)):
            start = len(b.stack)
            for i, x in enumerate(v):
                try:
                    self.value(x, depth + 1)
                except EncodeError as exc:
                    exc.add_parent(f"[{i}]")
                    raise
            b.end_vector(start)
        else:
            raise EncodeError(f"cannot store a {type(v).__name__} in a FlexBuffer",
                              format=_FORMAT)


def dumps(value: Any) -> bytes:
    """``value`` as a FlexBuffer, byte for byte what flatc's builder writes for it."""
    w = _Writer(False)
    w.value(value, 1)
    return w.b.finish()


def dumps_json_value(value: Any) -> bytes:
    """A value from :func:`~gameserde.flatbuffers._json_parse.parse_json` (bare tokens as
    :class:`~gameserde.flatbuffers._json_parse.Bare`) as the FlexBuffer ``flatc -b`` writes."""
    w = _Writer(True)
    w.value(value, 1)
    return w.b.finish()


# ---------------------------------------------------------------------------------------------
# Reading

# a reference: (position, parent width, byte width, type)
_Ref = tuple[int, int, int, int]


def _quoted(key: str) -> str:
    """The path step of a map entry: ``["key"]``."""
    return '["' + key.replace("\\", "\\\\").replace('"', '\\"') + '"]'


class _Reader:
    """Bounds-checked access to one FlexBuffer (C++ ``flexbuffers::Reference`` semantics)."""

    def __init__(self, buf: bytes, base: int, path: str, fmt: str, budget: int) -> None:
        self.buf = buf
        self.n = len(buf)
        self.base = base
        self.path = path
        self.fmt = fmt
        self.budget = budget
        self.memo: dict[tuple[int, int], Any] = {}

    def fail(self, message: str, pos: int, steps: list[str] | None = None) -> DecodeError:
        path = self.path + "".join(steps or ())
        return DecodeError(message, offset=self.base + max(pos, 0), path=path, format=self.fmt)

    def charge(self, units: int, pos: int) -> None:
        self.budget -= units
        if self.budget < 0:
            raise self.fail("the FlexBuffer expands to far more data than it holds (shared "
                            "vectors)", pos)

    def uint(self, pos: int, width: int) -> int:
        if pos < 0 or pos + width > self.n:
            raise self.fail(f"{width}-byte value at {pos} lies outside the "
                            f"{self.n}-byte FlexBuffer", pos)
        value: int = _U[width].unpack_from(self.buf, pos)[0]
        return value

    def sint(self, pos: int, width: int) -> int:
        self.uint(pos, width)
        value: int = _I[width].unpack_from(self.buf, pos)[0]
        return value

    def double(self, pos: int, width: int) -> float:
        if width >= 4:
            self.uint(pos, width)
            value: float = (_F64 if width == 8 else _F32).unpack_from(self.buf, pos)[0]
            return value
        return float(self.sint(pos, width))  # C++ reads 1/2-byte "floats" as integers

    def indirect(self, pos: int, width: int) -> int:
        target = pos - self.uint(pos, width)
        if target < 0:
            raise self.fail(f"offset at {pos} points before the start of the FlexBuffer", pos)
        return target

    def root(self) -> _Ref:
        n = self.n
        if n < 3:
            raise self.fail(f"a FlexBuffer has at least 3 bytes, not {n}", 0)
        width = self.buf[n - 1]
        if width not in _U:
            raise self.fail(f"root width {width} is not 1, 2, 4 or 8", n - 1)
        if n - 2 < width:
            raise self.fail("the root value lies outside the FlexBuffer", n - 1)
        packed = self.buf[n - 2]
        return (n - 2 - width, width, 1 << (packed & 3), packed >> 2)

    def sized(self, ref: _Ref, elem_width: int, extra: int) -> tuple[int, int]:
        """(data position, length) of the string/blob/vector ``ref`` points to, checked to fit
        with ``elem_width`` bytes per element plus ``extra`` bytes per element after them."""
        pos, parent, width, _ = ref
        p = self.indirect(pos, parent)
        count = self.uint(p - width, width)
        if count * (elem_width + extra) > self.n - p:
            raise self.fail(f"{count} elements at {p} run past the end of the "
                            f"{self.n}-byte FlexBuffer", p)
        return p, count

    def key_bytes(self, ref: _Ref) -> bytes:
        pos, parent = ref[0], ref[1]
        p = self.indirect(pos, parent)
        cached = self.memo.get((p, -1))
        if cached is not None:
            out: bytes = cached
            return out
        end = self.buf.find(b"\0", p)
        if end < 0:
            raise self.fail(f"key at {p} has no NUL terminator", p)
        self.charge(end - p, p)
        out = self.memo[(p, -1)] = self.buf[p:end]
        return out

    def blob_bytes(self, ref: _Ref) -> tuple[int, bytes]:
        p, count = self.sized(ref, 1, 0)
        key = (p, ref[2])
        cached = self.memo.get(key)
        if cached is None:
            self.charge(count, p)
            cached = self.memo[key] = self.buf[p:p + count]
        return p, cached

    def vector_items(self, ref: _Ref) -> list[_Ref]:
        """The elements of a vector of any kind (untyped, typed, fixed)."""
        t = ref[3]
        width = ref[2]
        if t in (VECTOR, MAP):
            p, count = self.sized(ref, width, 1)
            self.charge(count, p)
            types = self.buf[p + count * width:p + count * width + count]
            return [(p + i * width, width, 1 << (packed & 3), packed >> 2)
                    for i, packed in enumerate(types)]
        if t in _VECTOR_ELEMENT:
            p, count = self.sized(ref, width, 0)
            et = _VECTOR_ELEMENT[t]
        else:
            assert VECTOR_INT2 <= t <= VECTOR_FLOAT4
            p = self.indirect(ref[0], ref[1])
            count = (t - VECTOR_INT2) // 3 + 2
            et = (t - VECTOR_INT2) % 3 + INT
            if p + count * width > self.n:
                raise self.fail(f"fixed vector at {p} runs past the end of the FlexBuffer", p)
        self.charge(count, p)
        return [(p + i * width, width, 1, et) for i in range(count)]

    def map_items(self, ref: _Ref) -> tuple[list[_Ref], list[_Ref | None]]:
        """(keys, values) of a map: as many entries as keys, None for missing values."""
        values = self.vector_items(ref)
        p = self.indirect(ref[0], ref[1])
        width = ref[2]
        prefix = p - 3 * width
        keys_at = self.indirect(prefix, width)
        key_width = self.uint(prefix + width, width) & 0xFF
        if key_width not in _U:
            raise self.fail(f"key width {key_width} is not 1, 2, 4 or 8", prefix + width)
        count = self.uint(keys_at - key_width, key_width)
        if count * key_width > self.n - keys_at:
            raise self.fail(f"{count} keys at {keys_at} run past the end of the FlexBuffer",
                            keys_at)
        self.charge(count, keys_at)
        keys = [(keys_at + i * key_width, key_width, 1, KEY) for i in range(count)]
        padded: list[_Ref | None] = list(values[:count])
        padded += [None] * (count - len(padded))
        return keys, padded

    # -- to Python ---------------------------------------------------------------------------

    def value(self, ref: _Ref | None, depth: int, steps: list[str]) -> Any:
        if ref is None:
            return None
        pos, parent, width, t = ref
        try:
            if t == INT:
                return self.sint(pos, parent)
            if t == UINT:
                return self.uint(pos, parent)
            if t == FLOAT:
                return self.double(pos, parent)
            if t == BOOL:
                return self.uint(pos, parent) != 0
            if t == NULL:
                return None
            if t == STRING:
                return self.string(ref)
            if t == KEY:
                return self.key_bytes(ref).decode("utf-8", "surrogateescape")
            if t == BLOB:
                return self.blob_bytes(ref)[1]
            if t == INDIRECT_INT:
                return self.sint(self.indirect(pos, parent), width)
            if t == INDIRECT_UINT:
                return self.uint(self.indirect(pos, parent), width)
            if t == INDIRECT_FLOAT:
                return self.double(self.indirect(pos, parent), width)
            if t == MAP:
                self.deeper(depth, pos, steps)
                keys, values = self.map_items(ref)
                out: dict[str, Any] = {}
                for k, v in zip(keys, values, strict=True):
                    name = self.key_bytes(k).decode("utf-8", "surrogateescape")
                    steps.append(_quoted(name))
                    out[name] = self.value(v, depth + 1, steps)
                    steps.pop()
                return out
            if t == VECTOR or t in _VECTOR_ELEMENT or VECTOR_INT2 <= t <= VECTOR_FLOAT4:
                self.deeper(depth, pos, steps)
                items = []
                for i, r in enumerate(self.vector_items(ref)):
                    steps.append(f"[{i}]")
                    items.append(self.value(r, depth + 1, steps))
                    steps.pop()
                return items
        except DecodeError as exc:
            if exc.path == self.path:  # raised here, without the steps
                exc.path = self.path + "".join(steps)
            raise
        raise self.fail(f"unknown FlexBuffer type {t}", pos, steps)

    def deeper(self, depth: int, pos: int, steps: list[str]) -> None:
        if depth >= MAX_DEPTH:
            raise self.fail(f"vectors and maps nested more than {MAX_DEPTH} deep", pos, steps)

    def string(self, ref: _Ref) -> str:
        p, count = self.sized(ref, 1, 0)
        key = (p, -2 - ref[2])
        cached = self.memo.get(key)
        if cached is None:
            self.charge(count, p)
            cached = self.memo[key] = self.buf[p:p + count].decode("utf-8", "surrogateescape")
        out: str = cached
        return out


def _budget(n: int) -> int:
    return 2 * n + 1024


def loads(buf: bytes | bytearray | memoryview) -> Any:
    """The value a FlexBuffer holds (see the module doc); :class:`DecodeError` if unreadable."""
    return _loads(bytes(buf), 0, "$", _FORMAT)


def _loads(buf: bytes, base: int, path: str, fmt: str) -> Any:
    r = _Reader(buf, base, path, fmt, _budget(len(buf)))
    return r.value(r.root(), 0, [])


# ---------------------------------------------------------------------------------------------
# flatc's text (Reference::ToString)

_SIMPLE_ESCAPES = {0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f",
                   0x22: '\\"', 0x5C: "\\\\"}
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\Z")


def _utf8_length(lead: int) -> int:
    if 0xC0 <= lead < 0xE0:
        return 2
    if 0xE0 <= lead < 0xF0:
        return 3
    if 0xF0 <= lead < 0xF8:
        return 4
    return 0


def _escape(buf: bytes, start: int, length: int) -> str:
    """C++ ``EscapeString(s, length, allow_non_utf8=true, natural_utf8=false)``, which may read
    the continuation bytes of a last character past ``length`` (up to the end of ``buf``)."""
    data = buf[start:start + length]
    try:
        return quote_string(data.decode("utf-8"))
    except (UnicodeDecodeError, DecodeError):
        pass
    out = ['"']
    i = start
    end = start + length
    while i < end:
        c = buf[i]
        if 0x20 <= c <= 0x7E and c not in _SIMPLE_ESCAPES:
            out.append(chr(c))
        elif c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
        elif c < 0x80:
            out.append(f"\\u{c:04X}")
        else:
            n = _utf8_length(c)
            try:
                ch = buf[i:i + n].decode("utf-8") if n and i + n <= len(buf) else ""
            except UnicodeDecodeError:
                ch = ""
            if not ch:
                out.append(f"\\x{c:02X}")
            else:
                code = ord(ch)
                if code <= 0xFFFF:
                    out.append(f"\\u{code:04X}")
                else:
                    code -= 0x10000
                    out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
                i += n
                continue
        i += 1
    out.append('"')
    return "".join(out)


class _Printer:
    def __init__(self, reader: _Reader, strict: bool) -> None:
        self.r = reader
        self.strict = strict
        self.room = 64 * reader.n + (1 << 26)  # characters of output left
        self.out: list[str] = []

    def emit(self, text: str, pos: int) -> None:
        self.room -= len(text)
        if self.room < 0:
            raise self.r.fail("the FlexBuffer's text would be far larger than the buffer "
                              "(shared data)", pos)
        self.out.append(text)

    def key(self, ref: _Ref, quoted: bool) -> None:
        data = self.r.key_bytes(ref)
        if quoted:
            self.emit(_escape(data, 0, len(data)), ref[0])
        else:
            self.emit(data.decode("utf-8", "surrogateescape"), ref[0])

    def value(self, ref: _Ref | None, depth: int) -> None:
        r = self.r
        if ref is None:
            self.emit("null", 0)
            return
        pos, parent, width, t = ref
        if t in (STRING, BLOB):
            p, count = r.sized(ref, 1, 0)
            self.emit(_escape(r.buf, p, count), p)
        elif t == KEY:
            self.key(ref, self.strict)
        elif t in (INT, INDIRECT_INT):
            self.emit(str(r.sint(pos, parent) if t == INT
                          else r.sint(r.indirect(pos, parent), width)), pos)
        elif t in (UINT, INDIRECT_UINT):
            self.emit(str(r.uint(pos, parent) if t == UINT
                          else r.uint(r.indirect(pos, parent), width)), pos)
        elif t in (FLOAT, INDIRECT_FLOAT):
            f = (r.double(pos, parent) if t == FLOAT
                 else r.double(r.indirect(pos, parent), width))
            self.emit(format_float(f, 64), pos)
        elif t == NULL:
            self.emit("null", pos)
        elif t == BOOL:
            self.emit("true" if r.uint(pos, parent) else "false", pos)
        elif t == MAP:
            r.deeper(depth, pos, [])
            keys, values = r.map_items(ref)
            self.emit("{ ", pos)
            for i, (k, v) in enumerate(zip(keys, values, strict=True)):
                if i:
                    self.emit(", ", pos)
                quoted = self.strict or not _IDENTIFIER.match(r.key_bytes(k))
                self.key(k, quoted)
                self.emit(": ", pos)
                self.value(v, depth + 1)
            self.emit(" }", pos)
        elif t == VECTOR or t in _VECTOR_ELEMENT or VECTOR_INT2 <= t <= VECTOR_FLOAT4:
            r.deeper(depth, pos, [])
            self.emit("[ ", pos)
            for i, item in enumerate(r.vector_items(ref)):
                if i:
                    self.emit(", ", pos)
                self.value(item, depth + 1)
            self.emit(" ]", pos)
        else:
            self.emit("(?)", pos)


def to_json(buf: bytes | bytearray | memoryview, *, strict: bool = True) -> str:
    """The text flatc prints for a FlexBuffer field (``strict``: ``--strict-json``)."""
    return _to_json(bytes(buf), strict, 0, "$", _FORMAT)


def _to_json(buf: bytes, strict: bool, base: int, path: str, fmt: str) -> str:
    r = _Reader(buf, base, path, fmt, _budget(len(buf)))
    p = _Printer(r, strict)
    p.value(r.root(), 0)
    return "".join(p.out)


# ---------------------------------------------------------------------------------------------
# Verifying (flexbuffers::Verifier of flatc 25.12.19, no reuse tracker)


class _Verifier:
    def __init__(self, buf: bytes, base: int, path: str, fmt: str) -> None:
        self.buf = buf
        self.size = len(buf)
        self.base = base
        self.path = path
        self.fmt = fmt
        self.depth = 0
        self.vectors = 0
        self.work = 16 * len(buf) + (1 << 16)
        # vectors verified: (position, size width, type, element type) -> (vectors visited,
        # levels of nesting), to count another visit as C++ does without walking it again
        self.done: dict[tuple[int, int, int, int], tuple[int, int]] = {}

    def fail(self, message: str, pos: int) -> DecodeError:
        return DecodeError(message, offset=self.base + max(pos, 0), path=self.path,
                           format=self.fmt)

    def check_from(self, pos: int, length: int, what: str) -> None:
        if not (length < self.size and pos <= self.size - length):
            raise self.fail(f"{what} at {pos} ({length} bytes) runs past the end of the "
                            f"{self.size}-byte FlexBuffer", pos)

    def read(self, pos: int, width: int) -> int:
        value: int = _U[width].unpack_from(self.buf, pos)[0]
        return value

    def spend(self, units: int, pos: int) -> None:
        self.work -= units
        if self.work < 0:
            raise self.fail("the FlexBuffer takes too much work to verify (overlapping "
                            "vectors)", pos)

    def ref(self, pos: int, parent: int, width: int, t: int) -> int:
        """``VerifyRef`` (``pos`` and its ``parent`` bytes are known to lie in the buffer);
        returns how many vector levels it went down."""
        if t >= MAX_TYPE:
            raise self.fail(f"unknown FlexBuffer type {t}", pos)
        if _is_inline(t):
            return 0
        off = self.read(pos, parent)
        if off > self.size or off > pos:
            raise self.fail(f"offset {off} at {pos} points outside the FlexBuffer", pos)
        p = pos - off
        if p & (width - 1):
            raise self.fail(f"data at {p} is not {width}-byte aligned", p)
        if t in (INDIRECT_INT, INDIRECT_UINT, INDIRECT_FLOAT):
            self.check_from(p, width, "indirect scalar")
            return 0
        if t == KEY:
            # 25.12.19's VerifyKey is true at the first non-zero byte from p on, and the
            # last byte of the buffer (a width) is one: the NUL is never checked
            return 0
        if t == MAP:
            return max(self.vector(p, width, t, NULL), self.keys(p, width))
        if t == VECTOR:
            return self.vector(p, width, t, NULL)
        if t in (VECTOR_INT, VECTOR_UINT, VECTOR_FLOAT, VECTOR_BOOL, BLOB):
            return self.vector(p, width, t, INT)  # inline elements: only the range matters
        if t in (VECTOR_KEY, VECTOR_STRING_DEPRECATED):
            return self.vector(p, width, t, KEY)
        if t == STRING:
            height = self.vector(p, width, t, INT)
            self.check_from(p, self.read(p - width, width) + 1, "string with its terminator")
            return height
        if VECTOR_INT2 <= t <= VECTOR_FLOAT4:
            self.check_from(p, width * ((t - VECTOR_INT2) // 3 + 2), "fixed-size vector")
            return 0
        raise self.fail(f"FlexBuffer type {t} is not a stored type", pos)

    def keys(self, p: int, width: int) -> int:
        if 3 * width > p:
            raise self.fail(f"map at {p} has no room for its keys before it", p)
        p -= 3 * width
        off = self.read(p, width)
        if off > self.size or off > p:
            raise self.fail(f"keys offset {off} at {p} points outside the FlexBuffer", p)
        key_width = self.read(p + width, width) & 0xFF
        if key_width not in _U:
            raise self.fail(f"key width {key_width} at {p + width} is not 1, 2, 4 or 8",
                            p + width)
        return self.vector(p - off, key_width, VECTOR_KEY, KEY)

    def vector(self, p: int, width: int, t: int, elem_type: int) -> int:
        """``VerifyVector`` of the vector at ``p`` (size field before it); returns how many
        vector levels it spans (1 + its deepest element)."""
        memo_key = (p, width, t, elem_type)
        done = self.done.get(memo_key)
        if done is not None:
            count, height = done
            self.vectors += count
            if self.depth + height > MAX_DEPTH or self.vectors > self.size:
                raise self.fail("vectors nested or shared too much", p)
            return height
        self.depth += 1
        self.vectors += 1
        if self.depth > MAX_DEPTH or self.vectors > self.size:
            raise self.fail("vectors nested or shared too much", p)
        vectors0 = self.vectors
        below = 0
        if width > p:
            raise self.fail(f"size field before {p} lies outside the FlexBuffer", p)
        count = self.read(p - width, width)
        elem_width = 1 if t in (STRING, BLOB) else width
        byte_size = count * elem_width
        self.check_from(p, byte_size, "vector")
        if elem_type == NULL:
            self.check_from(p + byte_size, count, "vector types")
            types = self.buf[p + byte_size:p + byte_size + count]
            self.spend(count >> 4, p)
            for m in _NOT_INLINE.finditer(types):  # inline elements need nothing more
                i = m.start()
                packed = types[i]
                self.spend(1, p)
                below = max(below, self.ref(p + i * width, width, 1 << (packed & 3),
                                            packed >> 2))
        elif elem_type == KEY:
            self.spend(count, p)
            for i in range(count):
                self.ref(p + i * elem_width, elem_width, 1, KEY)
        self.depth -= 1
        self.done[memo_key] = (self.vectors - vectors0 + 1, below + 1)
        return below + 1

    def run(self) -> None:
        size = self.size
        if size < 3:
            raise self.fail(f"a FlexBuffer has at least 3 bytes, not {size}", 0)
        width = self.buf[-1]
        if width not in _U:
            raise self.fail(f"root width {width} is not 1, 2, 4 or 8", size - 1)
        if size - 2 < width:
            raise self.fail("the root value lies outside the FlexBuffer", size - 1)
        packed = self.buf[-2]
        self.ref(size - 2 - width, width, 1 << (packed & 3), packed >> 2)


_NOT_INLINE = re.compile(b"[^" + b"".join(re.escape(bytes([c])) for c in _INLINE_PACKED)
                         + b"]")


def verify(buf: bytes | bytearray | memoryview) -> None:
    """Raise :class:`DecodeError` unless flatc's ``flexbuffers::VerifyBuffer`` accepts ``buf``."""
    _Verifier(bytes(buf), 0, "$", _FORMAT).run()


def _verify(buf: bytes, base: int, path: str, fmt: str) -> None:
    _Verifier(buf, base, path, fmt).run()
