"""The ObjectProperty binary serializer (spec kiobj.md §4-§7), pure-Python reference.

It covers the stream framing and the body: objects in shallow and deep mode, the property
mask, deprecated and delta-encoded properties, compact length prefixes, integer enums, every
leaf type and leaf struct (as dicts with katsuba's keys), strings, wide strings, nested and
null objects and lists, human-readable enums, stateful flags, zlib compression (what it
inflates to is at most ``max_expansion`` times the input's size) and manual compression.
"""

from __future__ import annotations

import copy
import struct
import warnings
import zlib
from typing import Any

from gameserde._expansion import check_factor, exceeded, expansion_limit
from gameserde._float32 import float32_from_bits, float32_to_bits
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, GameserdeWarning, UsageError
from gameserde.kingsisle import _accel
from gameserde.kingsisle._limits import MAX_DEPTH, data_bytes, depth_limit
from gameserde.kingsisle.bitbuf import BitReader, BitWriter
from gameserde.kingsisle.objects import KiObject, property_step
from gameserde.kingsisle.typelist import FLAGS, KiSchema
from gameserde.schema.model import Enum, Field, List, Record, Ref

__all__ = ["ALL_FLAGS", "COMPACT_LENGTH_PREFIXES", "FORBID_DELTA_ENCODE", "HUMAN_READABLE_ENUMS",
           "INFLATED_NOTE", "INFLATE_SLACK", "MAX_EXPANSION", "STATEFUL_FLAGS", "WITH_COMPRESSION",
           "Inflating", "Serializer", "option_value", "trailing_inflated", "warn_skipped"]

STATEFUL_FLAGS = 1 << 0
"""Serializer flag 0x01: the flags are written at the start of the stream (and read from it)."""
COMPACT_LENGTH_PREFIXES = 1 << 1
"""Serializer flag 0x02: lengths of strings and lists are written in compact forms."""
HUMAN_READABLE_ENUMS = 1 << 2
"""Serializer flag 0x04: enums are written as their option names, not their values."""
WITH_COMPRESSION = 1 << 3
"""Serializer flag 0x08: the stream may be zlib-compressed (a marker and sizes first)."""
FORBID_DELTA_ENCODE = 1 << 4
"""Serializer flag 0x10: properties marked for delta encoding are written all the same."""
ALL_FLAGS = 0x1F
"""Every serializer flag gameserde knows: the others are refused."""

INFLATED_NOTE = " (the offset is in the inflated data)"
"""Ends the message of an error inside compressed data, whose offset is in the inflated
bytes (``gameserde inspect`` shows them)."""

MAX_EXPANSION = 32.0
"""The default ``max_expansion``: the zlib data of a stream inflates to at most 32 times the
input's size (plus :data:`INFLATE_SLACK`). Game-like data deflates 3 to 8 times; zlib's
utmost is about 1030."""

SKIPS_REPORTED = 10
"""The objects and properties ``skip_unknown_types`` skips that are reported one by one; one
more warning counts the rest."""

INFLATE_SLACK = 4096
"""Bytes any input may inflate to beyond ``max_expansion`` times its size."""

_FRAMES_PER_LEVEL = 4
"""Python frames one level of objects and lists takes (room is made for max_depth)."""

_DEPRECATED = FLAGS["DEPRECATED"]
_DELTA = FLAGS["DELTA_ENCODE"]

# leaf type name -> (bits, signed, aligned) for integers; floats by struct format
_INTS: dict[str, tuple[int, bool, bool]] = {
    "char": (8, True, True), "unsigned char": (8, False, True), "short": (16, True, True),
    "unsigned short": (16, False, True), "wchar_t": (16, False, True),
    "int": (32, True, True), "long": (32, True, True), "unsigned int": (32, False, True),
    "unsigned long": (32, False, True), "unsigned __int64": (64, False, True),
    "gid": (64, False, True), "union gid": (64, False, True),
    "s24": (24, True, False), "u24": (24, False, False),
    **{f"bi{n}": (n, True, False) for n in range(2, 8)},
    **{f"bui{n}": (n, False, False) for n in range(2, 8)},
}
_FLOATS = {"float": (32, struct.Struct("<f"), struct.Struct("<I")),
           "double": (64, struct.Struct("<d"), struct.Struct("<Q"))}

# leaf struct -> (component type, keys in wire order): katsuba's dict keys
_STRUCTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "class Color": ("unsigned char", ("b", "g", "r", "a")),
    "class Vector3D": ("float", ("x", "y", "z")),
    "class Quaternion": ("float", ("w", "x", "y", "z")),
    "class Euler": ("float", ("pitch", "yaw", "roll")),
    "class Matrix3x3": ("float", ("i", "j", "k")),  # three rows of three
    "class Size<int>": ("int", ("width", "height")),
    "class Point<int>": ("int", ("x", "y")),
    "class Point<unsigned int>": ("unsigned int", ("x", "y")),
    "class Point<unsigned char>": ("unsigned char", ("x", "y")),
    "class Point<float>": ("float", ("x", "y")),
    "class Rect<int>": ("int", ("left", "top", "right", "bottom")),
    "class Rect<float>": ("float", ("left", "top", "right", "bottom")),
}


def _show(value: Any) -> str:
    """``value`` for a message: its repr, cut at 60 characters (an int too long to print,
    by its size)."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits, or a value holding one
        if isinstance(value, int):
            return f"an integer of {value.bit_length()} bits"
        return f"a {type(value).__name__} holding an integer too long to print"
    return text if len(text) <= 60 else text[:57] + "..."


def _u32(n: int, what: str) -> bytes:
    """``n`` as a u32 size field, or EncodeError when the stream's u32 cannot hold it."""
    if n >> 32:
        raise EncodeError(f"{what} of {n} is more than a u32 size field holds",
                          format="kingsisle")
    return n.to_bytes(4, "little")


def _utf8(text: str, what: str) -> bytes:
    """``text`` in UTF-8, or EncodeError for text that has none (a lone surrogate)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise EncodeError(f"{what} text holds {text[e.start:e.end]!r}, which UTF-8 cannot "
                          "encode (give bytes instead)", format="kingsisle") from None


def _note_inflated(e: DecodeError) -> None:
    """Say in ``e``'s message that its offset is in inflated data."""
    if not e.message.endswith(INFLATED_NOTE):
        e.message += INFLATED_NOTE


def _fail(message: str, r: BitReader) -> DecodeError:
    return DecodeError(message, offset=r.bit_position >> 3, format="kingsisle")


class Inflating:
    """The bytes the zlib data of one input may still inflate to: ``max_expansion`` times
    the input's ``size`` plus :data:`INFLATE_SLACK`, for all its zlib parts together."""

    __slots__ = ("factor", "left", "limit", "size")

    def __init__(self, size: int, factor: float | None) -> None:
        self.size = size
        self.factor = factor
        self.limit = self.left = expansion_limit(size, factor, INFLATE_SLACK)

    def take(self, n: int, offset: int) -> None:
        """Count ``n`` more inflated bytes, or raise the DecodeError naming max_expansion."""
        if n > self.left:
            total = self.limit - self.left + n
            raise DecodeError(exceeded(f"the zlib data would inflate to {total} bytes",
                                       self.limit, self.size, self.factor),
                              offset=offset, format="kingsisle")
        self.left -= n


class Serializer:
    """Reads and writes ObjectProperty streams of one type list (``schema``).

    ``flags`` are the serializer flags: STATEFUL_FLAGS (a u32 flags word leads the stream and,
    when reading, replaces the configured flags), COMPACT_LENGTH_PREFIXES,
    HUMAN_READABLE_ENUMS (enums as their option names), WITH_COMPRESSION (a marker byte, then
    the inflated size and zlib data when compressing saves bytes) and FORBID_DELTA_ENCODE.
    ``shallow`` is the mode, ``property_mask`` the flags a property must all have to be
    written (katsuba 0.6.0's default 7; older tools use 0x18), ``manual_compression`` wraps
    the whole stream in a size and zlib, ``skip_unknown_types`` (deep mode only) reads an
    object of an unknown class as None and skips a property of an unknown hash, noting both
    in :attr:`skipped` and each in a :class:`~gameserde.errors.GameserdeWarning` (katsuba
    skips the classes and refuses the properties), ``max_depth`` bounds the nesting of
    objects and lists (katsuba's 127; ``recursion_limit`` is its former name, still taken),
    ``max_expansion`` bounds what zlib data inflates to: all the inflated bytes of a stream
    together are at most that factor times the input's size plus :data:`INFLATE_SLACK`
    (None or ``inf``: no limit), else a DecodeError naming it, raised before inflating when
    the stream's declared size is past it.
    """

    def __init__(self, schema: KiSchema, *, flags: int = 0, shallow: bool = True,
                 property_mask: int = 7, manual_compression: bool = False,
                 skip_unknown_types: bool = False, max_depth: int = MAX_DEPTH,
                 max_expansion: float | None = MAX_EXPANSION,
                 recursion_limit: int | None = None) -> None:
        if not isinstance(schema, KiSchema):
            raise UsageError(f"the schema must be a KiSchema (kingsisle.load_schema(path)), "
                             f"not {type(schema).__name__}")
        if isinstance(flags, bool) or not isinstance(flags, int) or flags & ~ALL_FLAGS:
            raise UsageError(f"serializer flags are bits of 0x{ALL_FLAGS:x}, not {flags!r}")
        if (isinstance(property_mask, bool) or not isinstance(property_mask, int)
                or not 0 <= property_mask < 1 << 32):
            raise UsageError(f"the property mask is a u32, not {property_mask!r}")
        if skip_unknown_types and shallow:
            raise UsageError("skip_unknown_types needs deep mode: shallow objects carry no "
                             "sizes to skip by")
        try:
            factor = check_factor(max_expansion)
        except ValueError as e:
            raise UsageError(str(e)) from None
        self.schema = schema
        self.flags = flags
        self.shallow = shallow
        self.property_mask = property_mask
        self.manual_compression = manual_compression
        self.max_depth = depth_limit(max_depth, recursion_limit)
        self.max_expansion = factor
        self.skip_unknown_types = skip_unknown_types
        self.skipped: list[tuple[int, str, int]] = []
        """What the last :meth:`decode` skipped with ``skip_unknown_types``: (byte offset,
        ``"type"`` or ``"property"``, its hash), in stream order; the offset is where the
        object's size or the property's value starts, in the input, or in the inflated data
        when the stream is compressed."""
        self._program: Any = None  # the C twin's compiled program (see _accel)

    # -- which properties ------------------------------------------------------------------

    def _included(self, cls: Record) -> list[Field]:
        mask = self.property_mask
        return [f for f in cls.fields
                if int(f.attributes["flags"]) & mask == mask
                and not (not self.shallow and int(f.attributes["flags"]) & _DEPRECATED)]

    # -- decoding --------------------------------------------------------------------------

    def decode(self, data: bytes | bytearray | memoryview) -> KiObject:
        """The root object of a stream; a null root is an error. Bytes after the root object
        or after zlib data, which readers ignore (katsuba too), are kept in the root's
        ``trailing``. With ``skip_unknown_types``, each object or property skipped is
        reported as a :class:`~gameserde.errors.GameserdeWarning` (and kept in
        :attr:`skipped`)."""
        data = data_bytes(data)
        root = self._decode(data, Inflating(len(data), self.max_expansion))
        warn_skipped(self.skipped, root)
        return root

    def _decode(self, data: bytes, budget: Inflating) -> KiObject:
        """:meth:`decode` of ``data``, inflating within ``budget``."""
        self.skipped = []
        if not self.manual_compression:
            return self._stream(data, budget)
        data, outer, after = self._inflate(data, 0, budget)
        try:
            root = self._stream(data, budget)
        except DecodeError as e:
            _note_inflated(e)
            raise
        root.zlib_data = (outer, root.zlib_data[1] if root.zlib_data else None)
        _keep_trailing(root, 0, 4 + len(outer), after)
        return root

    def _stream(self, data: bytes, budget: Inflating) -> KiObject:
        """The root object of a stream: its flags word, compression and body."""
        flags, pos = self.flags, 0
        if flags & STATEFUL_FLAGS:
            if len(data) < 4:
                raise DecodeError("the stream's flags word needs 4 bytes", offset=0,
                                  format="kingsisle")
            flags, pos = int.from_bytes(data[:4], "little") & ALL_FLAGS, 4
        inner = None  # the zlib data, where what follows it starts, and that
        if flags & WITH_COMPRESSION:
            if len(data) <= pos:
                raise DecodeError("the compression marker is missing", offset=pos,
                                  format="kingsisle")
            marker, pos = data[pos], pos + 1
            if marker:
                data, packed, after = self._inflate(data[pos:], pos, budget)
                inner, pos = (packed, pos + 4 + len(packed), after), 0
        try:
            root, end = self._body(data[pos:], flags)
        except DecodeError as e:  # offsets in the input, or said to be in inflated data
            if inner is not None:
                _note_inflated(e)
            elif e.offset is not None:
                e.offset += pos
            raise
        if pos:  # what was skipped, at offsets in the bytes the body is in
            self.skipped[:] = [(at + pos, kind, h) for at, kind, h in self.skipped]
        _keep_trailing(root, 2, pos + end, data[pos + end:])
        if inner is not None:
            root.zlib_data = (None, inner[0])
            _keep_trailing(root, 1, inner[1], inner[2])
        return root

    def _body(self, data: bytes, flags: int) -> tuple[KiObject, int]:
        """The root object of a stream's body, read with ``flags``, and the byte it ends
        before."""
        decoded = _accel.decode(self, data, flags)
        if decoded is not None:
            return decoded
        reader = self
        if flags != self.flags:  # the stream's own flags: read with a copy that has them
            reader = copy.copy(self)
            reader.flags = flags
            reader.skipped = self.skipped
        r = BitReader(data)
        with recursion_room(_FRAMES_PER_LEVEL * self.max_depth + 100):
            root = reader._object(r, 0)
        if root is None:
            raise DecodeError("the root object is null", offset=0, format="kingsisle")
        return root, r.bit_position >> 3

    @staticmethod
    def _inflate(data: bytes, offset: int, budget: Inflating) -> tuple[bytes, bytes, bytes]:
        """``u32 inflated size | zlib data``, inflated within ``budget`` (refused before
        inflating when the declared size is past it; zlib stops at the declared size); the
        zlib data; and the bytes after it."""
        if len(data) < 4:
            raise DecodeError("the inflated size needs 4 bytes", offset=offset,
                              format="kingsisle")
        size = int.from_bytes(data[:4], "little")
        budget.take(size, offset)
        inflater = zlib.decompressobj()
        try:
            out = inflater.decompress(data[4:], size + 1)
        except zlib.error as e:
            raise DecodeError(f"the zlib data is damaged: {e}", offset=offset + 4,
                              format="kingsisle") from None
        if len(out) != size or not inflater.eof:
            raise DecodeError(f"the zlib data inflates to {len(out)}"
                              f"{'+' if not inflater.eof and len(out) > size else ''} bytes, "
                              f"not the {size} the stream says", offset=offset,
                              format="kingsisle")
        after = inflater.unused_data
        return out, data[4:len(data) - len(after)], after

    def _object(self, r: BitReader, depth: int) -> KiObject | None:
        if depth >= self.max_depth:
            raise _fail(f"objects nest deeper than max_depth {self.max_depth}", r)
        r.align()
        type_hash = r.read_bits(32, "a type hash")
        if type_hash == 0:
            return None
        cls = self.schema.class_by_hash(type_hash)
        if cls is None:
            if not self.skip_unknown_types:
                raise _fail(f"no class of the type list has the type hash {type_hash}", r)
            self.skipped.append((r.bit_position >> 3, "type", type_hash))
            object_bits = r.read_bits(32, "an object size")
            self._skip(r, max(object_bits - 32, 0))
            return None
        obj = KiObject(cls.name, type_hash)
        outer = r.aligns, r.pads  # the object's own alignments are counted apart
        r.aligns, r.pads = 0, None
        self._properties(cls, obj, r, depth)
        if depth == 0:
            r.align()  # the root's last byte
        obj.padding = r.pads
        r.aligns, r.pads = outer
        return obj

    def _properties(self, cls: Record, obj: KiObject, r: BitReader, depth: int) -> None:
        """The properties of an object of class ``cls``, read into ``obj``."""
        if self.shallow:
            for f in self._included(cls):
                if int(f.attributes["flags"]) & _DELTA and not r.read_bool():
                    if self.flags & FORBID_DELTA_ENCODE:
                        raise _fail(f"{cls.name}.{f.name}: missing delta value", r)
                    continue
                obj[f.name] = self._property(f, r, depth)
            return
        object_bits = r.read_bits(32, "an object size")
        remaining = max(object_bits - 32, 0)
        by_hash = {int(f.attributes["hash"]): f for f in self._included(cls)}
        while remaining:
            before = r.bit_position
            r.align()
            record_bits = r.read_bits(32, "a record size")
            prop_hash = r.read_bits(32, "a property hash")
            found = by_hash.get(prop_hash)
            if found is None:
                if not self.skip_unknown_types or record_bits < r.bit_position - before:
                    raise _fail(f"{cls.name} has no property with the hash {prop_hash}", r)
                self.skipped.append((r.bit_position >> 3, "property", prop_hash))
                self._skip(r, record_bits - (r.bit_position - before))
            else:
                obj[found.name] = self._property(found, r, depth)
            if r.bit_position - before != record_bits:
                name = found.name if found is not None else f"#{prop_hash}"
                raise _fail(f"{cls.name}.{name}: the record says {record_bits} bits but its "
                            f"value took {r.bit_position - before}", r)
            if record_bits > remaining:
                raise _fail(f"{cls.name}: the records run past the object's {object_bits} "
                            "bits", r)
            remaining -= record_bits

    @staticmethod
    def _skip(r: BitReader, bits: int) -> None:
        if bits > r.remaining_bits:
            raise _fail(f"a skipped value needs {bits} bits but only {r.remaining_bits} "
                        "remain", r)
        r.bit_position += bits

    def _property(self, f: Field, r: BitReader, depth: int) -> Any:
        """The value of property ``f``; an error on the way names its path."""
        type_name = str(f.attributes["type_name"])
        try:
            if not isinstance(f.type, List):
                return self._value(f.type, type_name, r, depth)
            n = self._length(r, container=True)
            if depth + 1 >= self.max_depth:
                raise _fail(f"lists nest deeper than max_depth {self.max_depth}", r)
            items: list[Any] = []
            try:
                for _ in range(n):
                    items.append(self._value(f.type.element, type_name, r, depth + 1))
            except DecodeError as e:
                e.add_parent(f"[{len(items)}]")
                raise
            return items
        except DecodeError as e:
            e.add_parent(property_step(f.name))
            raise

    def _length(self, r: BitReader, container: bool) -> int:
        if self.flags & COMPACT_LENGTH_PREFIXES:
            return r.read_bits(31 if r.read_bool() else 7, "a length")
        r.align()
        return r.read_bits(32 if container else 16, "a length")

    def _value(self, t: Any, type_name: str, r: BitReader, depth: int) -> Any:
        if isinstance(t, Ref):
            target = self.schema.model.types[t.name]
            if isinstance(target, Enum):
                if self.flags & HUMAN_READABLE_ENUMS:
                    return self._enum_from_text(target, r)
                r.align()
                return r.read_bits(32, "an enum")
            if isinstance(target, Record) and target.kind == "leaf":
                return self._struct(type_name, r)
            return self._object(r, depth + 1)
        return self._leaf(type_name, r)

    def _leaf(self, type_name: str, r: BitReader) -> Any:
        """A value of a leaf type named ``type_name`` (not a struct)."""
        if type_name == "bool":
            return r.read_bool()
        if type_name in _INTS:
            bits, signed, aligned = _INTS[type_name]
            if aligned:
                r.align()
            v = r.read_bits(bits, type_name)
            return v - (1 << bits) if signed and v >> (bits - 1) else v
        if type_name in _FLOATS:
            bits, fmt, raw = _FLOATS[type_name]
            r.align()
            if bits == 32:
                return float32_from_bits(r.read_bits(32, type_name))
            value: float = fmt.unpack(raw.pack(r.read_bits(bits, type_name)))[0]
            return value
        if type_name in ("std::string", "std::wstring"):
            n = self._length(r, container=False)
            if n == 0:
                return b"" if type_name == "std::string" else ""
            if type_name == "std::string":
                return r.read_bytes(n, "a string")
            return r.read_bytes(2 * n, "a wide string").decode("utf-16-le", "surrogatepass")
        raise _fail(f"{type_name} is not a type the codec knows", r)

    def _enum_from_text(self, enum: Enum, r: BitReader) -> int:
        start = r.bit_position
        raw = self._leaf("std::string", r)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError(f"an {enum.name} name is not UTF-8", offset=start >> 3,
                              format="kingsisle") from None
        value, bad = option_value(enum, text)
        if bad is not None:
            raise DecodeError(f"{bad!r} is not an option of {enum.name}", offset=start >> 3,
                              format="kingsisle")
        return value

    def _struct(self, type_name: str, r: BitReader) -> dict[str, Any]:
        """A leaf struct: aligned once, its components contiguous in wire order."""
        kind, keys = _STRUCTS[type_name]
        r.align()
        if type_name == "class Matrix3x3":
            return {k: [self._leaf(kind, r) for _ in range(3)] for k in keys}
        return {k: self._leaf(kind, r) for k in keys}

    # -- encoding --------------------------------------------------------------------------

    def encode(self, obj: KiObject) -> bytes:
        """The stream of the root object ``obj`` (the padding bits its objects kept from a
        decode, else zeros; where the flags ask for compression, the zlib data ``obj`` was
        read from when it inflates to what is written, else zlib's own at level 9, which
        inflates to the same body as katsuba's; the bytes its ``trailing`` kept, after the
        parts they followed)."""
        if obj is None:
            raise EncodeError("the root object must not be null", format="kingsisle")
        body = _accel.encode(self, obj)
        if body is None:
            w = BitWriter()
            with recursion_room(_FRAMES_PER_LEVEL * self.max_depth + 100):
                self._write_object(obj, w, 0)
            body = w.getvalue()
        after_outer, after_inner, after_root = _trailing_of(obj)
        outer, inner = _zlib_data_of(obj)
        out = bytearray()
        if self.flags & STATEFUL_FLAGS:
            out += self.flags.to_bytes(4, "little")
        if self.flags & WITH_COMPRESSION:
            whole = body + after_root
            if inner is not None and _inflates_to(inner, whole):  # as read
                out += b"\x01" + _u32(len(whole), "the inflated size") + inner
            elif 5 + len(packed := zlib.compress(body, 9)) < len(body):  # katsuba's rule
                if after_root:
                    packed = zlib.compress(whole, 9)
                out += b"\x01" + _u32(len(whole), "the inflated size") + packed
            else:
                out += b"\x00" + whole
            out += after_inner
        else:
            out += body + after_root + after_inner
        if self.manual_compression:
            if outer is None or not _inflates_to(outer, out):
                outer = zlib.compress(bytes(out), 9)
            return _u32(len(out), "the inflated size") + outer + after_outer
        return bytes(out + after_outer)

    def _write_object(self, obj: Any, w: BitWriter, depth: int) -> None:
        if depth >= self.max_depth:
            raise EncodeError(f"objects nest deeper than max_depth {self.max_depth}",
                              format="kingsisle")
        w.align()
        if obj is None:
            w.write_bits(0, 32)
            return
        cls = _class_of(self.schema, obj)
        fields = self._included(cls)
        known = {f.name for f in cls.fields}
        extra = [k for k in obj if k not in known]
        if extra:
            raise EncodeError(f"{cls.name} has no property {extra[0]!r}", format="kingsisle")
        w.write_bits(obj.type_hash, 32)
        outer = w.aligns, w.pads  # the object's own alignments are counted apart
        w.aligns, w.pads = 0, _padding_of(cls, obj)
        self._write_properties(cls, fields, obj, w, depth)
        if depth == 0:
            w.align()  # the root's last byte
        w.aligns, w.pads = outer

    def _write_properties(self, cls: Record, fields: list[Field], obj: KiObject,
                          w: BitWriter, depth: int) -> None:
        """The properties ``fields`` of ``obj``, an object of class ``cls``."""
        if self.shallow:
            for f in fields:
                delta = int(f.attributes["flags"]) & _DELTA
                if f.name not in obj:
                    if not delta or self.flags & FORBID_DELTA_ENCODE:
                        raise EncodeError(f"{cls.name}.{f.name} has no value",
                                          format="kingsisle")
                    w.write_bool(False)
                    continue
                if delta:
                    w.write_bool(True)
                self._write_property(f, obj[f.name], w, depth)
            return
        size_at = len(w.buf)
        start = w.bit_position
        w.write_bits(0, 32)  # object_bits, filled in below
        for f in fields:
            if f.name not in obj:
                if not int(f.attributes["flags"]) & _DELTA or self.flags & FORBID_DELTA_ENCODE:
                    raise EncodeError(f"{cls.name}.{f.name} has no value", format="kingsisle")
                continue
            before = w.bit_position
            w.align()
            record_at = len(w.buf)
            w.write_bits(0, 32)
            w.write_bits(int(f.attributes["hash"]), 32)
            self._write_property(f, obj[f.name], w, depth)
            w.buf[record_at:record_at + 4] = _u32(w.bit_position - before, "a record size")
        w.buf[size_at:size_at + 4] = _u32(w.bit_position - start, "an object size")

    def _write_property(self, f: Field, value: Any, w: BitWriter, depth: int) -> None:
        """``value`` as property ``f``; an error on the way names its path."""
        type_name = str(f.attributes["type_name"])
        try:
            if not isinstance(f.type, List):
                self._write_value(f.type, type_name, value, w, depth)
                return
            if not isinstance(value, list | tuple):
                raise EncodeError(f"a list must be a list or tuple, not {type(value).__name__}",
                                  format="kingsisle")
            self._write_length(len(value), w, container=True)
            for index, item in enumerate(value):
                try:
                    self._write_value(f.type.element, type_name, item, w, depth + 1)
                except EncodeError as e:
                    e.add_parent(f"[{index}]")
                    raise
        except EncodeError as e:
            e.add_parent(property_step(f.name))
            raise

    def _write_struct(self, type_name: str, value: Any, w: BitWriter) -> None:
        kind, parts = _struct_parts(type_name, value)
        w.align()
        for part in parts:
            self._write_leaf(kind, part, w)

    def _write_length(self, n: int, w: BitWriter, container: bool) -> None:
        if self.flags & COMPACT_LENGTH_PREFIXES:
            if n < 128:
                w.write_bool(False)
                w.write_bits(n, 7)
            else:
                w.write_bool(True)
                w.write_bits(n, 31)
            return
        w.align()
        w.write_bits(n, 32 if container else 16)

    def _write_value(self, t: Any, type_name: str, value: Any, w: BitWriter,
                     depth: int) -> None:
        if isinstance(t, Ref):
            target = self.schema.model.types[t.name]
            if isinstance(target, Enum):
                number = _enum_value(target, value)
                if self.flags & HUMAN_READABLE_ENUMS:
                    self._write_leaf("std::string", _enum_text(target, number), w)
                    return
                w.align()
                w.write_bits(number, 32)
                return
            if isinstance(target, Record) and target.kind == "leaf":
                self._write_struct(type_name, value, w)
                return
            self._write_object(value, w, depth + 1)
            return
        self._write_leaf(type_name, value, w)

    def _write_leaf(self, type_name: str, value: Any, w: BitWriter) -> None:
        """``value`` as the leaf type named ``type_name`` (not a struct)."""
        if type_name == "bool":
            if not isinstance(value, bool):
                raise EncodeError(f"a bool must be True or False, not {_show(value)}",
                                  format="kingsisle")
            w.write_bool(value)
            return
        if type_name in _INTS:
            bits, signed, aligned = _INTS[type_name]
            if aligned:
                w.align()
            w.write_bits(_int_in(value, bits, signed, type_name) & ((1 << bits) - 1), bits)
            return
        if type_name in _FLOATS:
            bits, fmt, raw = _FLOATS[type_name]
            as_float = _float_in(value, type_name)
            w.align()
            if bits == 32:  # rounded as Rust's `as f32` (katsuba) does: overflow is infinity
                w.write_bits(float32_to_bits(as_float), 32)
            else:
                w.write_bits(raw.unpack(fmt.pack(as_float))[0], 64)
            return
        if type_name == "std::string":
            data = _utf8(value, "a std::string") if isinstance(value, str) else value
            if not isinstance(data, bytes | bytearray):
                raise EncodeError(f"a std::string must be bytes or str, not {_show(value)}",
                                  format="kingsisle")
            if not self.flags & COMPACT_LENGTH_PREFIXES and len(data) > 0xFFFF:
                raise EncodeError("a std::string longer than 65535 bytes needs compact "
                                  "length prefixes", format="kingsisle")
            self._write_length(len(data), w, container=False)
            if data:
                w.write_bytes(data)
            return
        if type_name == "std::wstring":
            if not isinstance(value, str):
                raise EncodeError(f"a std::wstring must be a str, not {_show(value)}",
                                  format="kingsisle")
            units = value.encode("utf-16-le", "surrogatepass")
            self._write_length(len(units) // 2, w, container=False)
            if units:
                w.write_bytes(units)
            return
        raise EncodeError(f"{type_name} is not a type the codec knows", format="kingsisle")


def _class_of(schema: KiSchema, obj: Any) -> Record:
    """The class of the object ``obj`` is to be written as."""
    if not isinstance(obj, KiObject):
        raise EncodeError(f"an object must be a KiObject, not {type(obj).__name__}",
                          format="kingsisle")
    cls = schema.class_by_hash(obj.type_hash)
    if cls is None:
        raise EncodeError(f"no class of the type list has the type hash {obj.type_hash}",
                          format="kingsisle")
    return cls


def _padding_of(cls: Record, obj: KiObject) -> dict[Any, Any] | None:
    """The padding bits ``obj`` keeps (its ``padding``: None or a dict)."""
    padding = getattr(obj, "padding", None)
    if padding is not None and not isinstance(padding, dict):
        raise EncodeError(f"the padding of a {cls.name} must be None or a dict, not "
                          f"{_show(padding)}", format="kingsisle")
    return padding


def warn_skipped(skipped: list[tuple[int, str, int]], root: KiObject) -> None:
    """Report each object and property ``skip_unknown_types`` skipped reading ``root`` as a
    :class:`~gameserde.errors.GameserdeWarning` naming its hash and byte offset."""
    inflated = INFLATED_NOTE if any(_zlib_data_of(root)) else ""
    for offset, kind, found in skipped[:SKIPS_REPORTED]:
        if kind == "type":  # the offset of its type hash, of its record
            at, what = offset - 4, (f"an object of a class the type list lacks (type hash "
                                    f"{found}), read as null")
        else:
            at, what = offset - 8, f"a property its class lacks (property hash {found})"
        warnings.warn(f"skipped {what} at byte {at} (0x{at:x}){inflated}", GameserdeWarning,
                      stacklevel=3)
    more = len(skipped) - SKIPS_REPORTED
    if more > 0:
        types = sum(kind == "type" for _, kind, _ in skipped[SKIPS_REPORTED:])
        warnings.warn(f"skipped {types} more objects of classes the type list lacks and "
                      f"{more - types} more properties their classes lack, after byte "
                      f"{skipped[SKIPS_REPORTED - 1][0]}{inflated}", GameserdeWarning,
                      stacklevel=3)


def _keep_trailing(root: KiObject, part: int, offset: int, after: bytes) -> None:
    """Keep ``after``, the bytes at ``offset`` after a ``part`` of the stream (0: manual
    compression's zlib data, 1: WITH_COMPRESSION's, 2: the root object), in ``root``'s
    ``trailing`` (nothing when there are none)."""
    if after:
        kept = list(root.trailing or (None, None, None))
        kept[part] = (offset, after)
        root.trailing = (kept[0], kept[1], kept[2])


def trailing_inflated(root: KiObject, part: int) -> bool:
    """Whether the bytes a decoded ``root`` keeps after ``part`` (its ``trailing[part]``)
    were in inflated data, their offset in it: after the root object of a compressed stream,
    after WITH_COMPRESSION's zlib data under manual compression."""
    outer, inner = _zlib_data_of(root)
    if part == 1:
        return outer is not None
    return part == 2 and (outer is not None or inner is not None)


def _trailing_of(obj: Any) -> tuple[bytes, bytes, bytes]:
    """The bytes the root ``obj`` keeps after manual compression's zlib data,
    WITH_COMPRESSION's and the root object (its ``trailing``), each empty when none."""
    kept = getattr(obj, "trailing", None)
    if kept is None:
        return b"", b"", b""
    if (not isinstance(kept, tuple) or len(kept) != 3
            or not all(run is None or (isinstance(run, tuple) and len(run) == 2
                                       and isinstance(run[0], int)
                                       and isinstance(run[1], bytes)) for run in kept)):
        raise EncodeError(f"the root's trailing must be None or three parts, each None or "
                          f"(offset, bytes), not {_show(kept)}", format="kingsisle")
    after_outer, after_inner, after_root = (b"" if run is None else run[1] for run in kept)
    return after_outer, after_inner, after_root


def _zlib_data_of(obj: Any) -> tuple[bytes | None, bytes | None]:
    """The zlib data ``obj`` was read from (its ``zlib_data``): manual compression's and
    WITH_COMPRESSION's, each None when there is none or it is no bytes."""
    kept = getattr(obj, "zlib_data", None)
    if not isinstance(kept, tuple) or len(kept) != 2:
        return None, None
    outer, inner = (part if isinstance(part, bytes) else None for part in kept)
    return outer, inner


def _inflates_to(packed: bytes, data: bytes | bytearray) -> bool:
    """Whether the zlib data ``packed`` inflates to exactly ``data`` (inflating no more)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(packed, len(data) + 1)
    except zlib.error:
        return False
    return out == data and inflater.eof and not inflater.unused_data


def _float_in(value: Any, type_name: str) -> float:
    """``value`` (an int or a float) as a float to write as ``type_name``."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise EncodeError(f"a {type_name} must be a number, not {_show(value)}",
                          format="kingsisle")
    try:
        return float(value)
    except OverflowError:
        raise EncodeError(f"{_show(value)} is too large for a {type_name}",
                          format="kingsisle") from None


def _enum_value(enum: Enum, value: Any) -> int:
    """An enum value given as an int or as option names (``"A|B"`` for bit flags)."""
    if isinstance(value, str):
        number, bad = option_value(enum, value)
        if bad is not None:
            raise EncodeError(f"{bad!r} is not an option of {enum.name}", format="kingsisle")
        return number
    return _int_in(value, 32, False, enum.name)


def option_value(enum: Enum, text: str, blanks: str | None = None) -> tuple[int, str | None]:
    """The value option names stand for: one name, or for bit flags ``"A|B"`` (names in any
    order, ``blanks`` around them ignored, ``""`` is 0); and the first name that is no option
    (None when all are)."""
    if not enum.bit_flags:
        return (enum.values[text], None) if text in enum.values else (0, text)
    value = 0
    for name in text.split("|"):
        name = name.strip(blanks)
        if name:
            if name not in enum.values:
                return 0, name
            value |= enum.values[name]
    return value, None


def _enum_text(enum: Enum, number: int) -> bytes:
    """The option name(s) of ``number``: for bit flags every option sharing a bit with it,
    in the type list's order (bits no option has are lost, as in katsuba)."""
    if enum.bit_flags:
        return _utf8("|".join(n for n, v in enum.values.items() if v & number), enum.name)
    for name, v in enum.values.items():
        if v == number:
            return _utf8(name, enum.name)
    raise EncodeError(f"{number} is not a value of {enum.name}", format="kingsisle")


def _struct_parts(type_name: str, value: Any) -> tuple[str, list[Any]]:
    """A leaf struct's component type and its components in wire order."""
    kind, keys = _STRUCTS[type_name]
    if not isinstance(value, dict) or set(value) != set(keys):
        raise EncodeError(f"a {type_name} is a dict of {', '.join(keys)}, not {_show(value)}",
                          format="kingsisle")
    if type_name != "class Matrix3x3":
        return kind, [value[k] for k in keys]
    rows = [value[k] for k in keys]
    if not all(isinstance(row, list | tuple) and len(row) == 3 for row in rows):
        raise EncodeError(f"a {type_name}'s i, j and k are lists of three numbers",
                          format="kingsisle")
    return kind, [c for row in rows for c in row]


def _int_in(value: Any, bits: int, signed: bool, type_name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise EncodeError(f"a {type_name} must be an int, not {_show(value)}", format="kingsisle")
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if not low <= value < high:
        raise EncodeError(f"{_show(value)} does not fit a {type_name}", format="kingsisle")
    return value

