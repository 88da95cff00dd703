"""Values (dicts, lists, dataclasses) and flatc's JSON dialect -> FlatBuffers, like ``flatc -b``.

:func:`encode` replays the call order of ``flatc -b`` (spec flatbuffers.md §2.10) on our
:class:`~gameserde.flatbuffers.builder.Builder` in ``flatc_compatible`` mode, so the bytes are
identical to what flatc writes for the same JSON:

* children (strings, vectors, sub-tables, union values) are serialized depth-first in the
  value's order (dict insertion order, dataclass field order);
* a table's fields are then added by size class 8/4/2/1 and descending id (one pass in
  descending id with ``original_order``); scalars equal to their default are omitted unless
  ``force_defaults``; ``None`` omits a field (an optional scalar is then absent);
* structs are written inline; struct union members standalone; ``(shared)`` strings are
  deduplicated; vectors of tables/structs with a ``key`` field are ordered by flatc's
  (unstable) ``SimpleQsort``, replayed exactly; ``force_align`` on vectors; nested
  flatbuffers given as objects are built in a separate builder (no file identifier).

:func:`from_json` parses flatc's JSON dialect (see :mod:`gameserde.flatbuffers._json_parse`)
and encodes the document in document order.

Speed: per table a plan is compiled once per schema object (cached) and turned into
specialised Python source (``exec``): the value's keys dispatch to unrolled conversions, then
the slot calls follow in flatc's order with constants inlined. Structs of plain scalars pack
with one precompiled ``struct.Struct``; scalar vectors with one ``struct.pack``; vectors of
tables/strings compute all their uoffsets at once (``create_vector_bytes``). Only the public
:class:`Builder` API is used.

flatc quirks replayed (found with the differential tests; the union tag rules and the
bare-identifier rules only by :func:`from_json` — :func:`encode` takes a union's type from
its own ``_type`` key wherever it is):

* a union value takes its type from the ``_type`` field *of the same union type* with the
  highest id among the fields already parsed in the table (not necessarily its own), else
  from its own ``_type`` only if that is the very next key; skipping the value to look
  ahead fails on bare identifiers other than ``true``/``false``/``inf``;
* parsing a struct value leaves ``Align(struct minalign)`` padding in the buffer (flatc
  builds the struct in place and pops it), so a struct value pads the buffer when it is read;
* enum names on plain integer fields must be qualified, so quoted (``"Color.Red"``: bare,
  that is three tokens); on enum fields they must not be; ``true``/``false`` only for bools;
  hex numbers for floats need a ``p`` exponent; a string for a scalar must be plain ASCII (no
  escape); ``"null"`` is null for a scalar of a table, and a ``hash`` field hashes a bare
  ``null`` as the word; conversion functions (``rad(180)``) only for floats, computed in
  double precision and read back from their 12-decimal text; a table (like a struct) may be
  an array of its fields' values in order, where a null for a field that is no scalar is
  skipped; a ``"$schema"`` key takes a string and is ignored; a field that is no scalar may
  be given twice if once as null (which is ignored); nested flatbuffers given as byte arrays
  need ``--json-nested-bytes`` (rejected);
* a vector of unions ``uv`` takes its tags from the type vector *of the same union* with the
  highest id among the fields already parsed (usually ``uv_type``), with no look-ahead: a
  non-empty ``uv`` before any such type vector is ``missing type field``; a type vector
  shorter than ``uv`` is an error, a longer one is fine; ``NONE`` elements are illegal.
  :func:`encode` uses the value's own ``uv_type`` (a list of names/ints, or bytes);
* ``hash`` fields (``fnv1_32``/``fnv1a_32`` on 32-bit, ``fnv1_64``/``fnv1a_64`` on 64-bit
  integer fields of tables and structs, and vectors of them) store a string, or a bare
  identifier such as ``true``, as its FNV hash (flatbuffers' ``hash.h``: the 64-bit offset
  basis is ``0xcbf29ce484222645``, not FNV's), cut at the first NUL and wrapped to signed
  types; numbers are stored as they are; 16-bit fields are not hashed;
* 64-bit offsets: flatc -b uses its 32-bit builder, so ``offset64``/``vector64`` data is
  written in document order like everything else (not gathered at the end of the buffer);
  the table slot is an 8-byte offset written after ``Align(8)`` (size class 4 for
  ``offset64``, 8 for ``vector64``); an ``offset64`` string/vector has its usual 32-bit
  length; a ``vector64`` vector is started as a 32-bit one (4-byte aligned) and ends with
  ``Align(8)`` and an 8-byte length, so when its data does not end 8-aligned flatc puts 4
  padding bytes between length and data (readers then see the elements shifted by one):
  replayed as is, and so is flatc's sort of a keyed ``vector64`` of structs, which runs
  over the bytes 4 after the length field (as if the vector were 32-bit).

``flexbuffer`` fields take any JSON-like value (dict, list, str, int, float, bool, None;
``bytes`` nested in it are blobs), written by :mod:`~gameserde.flatbuffers.flexbuffers` as
flatc's FlexBuffers builder writes it (:func:`from_json` with flatc's token rules) in an
8-aligned ubyte vector; ``bytes`` as the field's value are taken as a ready FlexBuffer.

Vectors of scalars and structs also take numpy arrays: one laid out as the elements are (the
element's little-endian dtype, the struct's structured dtype as ``VectorView.numpy()`` gives
it, or an ``(n, fields)`` array for a struct of one scalar type without padding) is copied as
it is, giving the bytes of the list of its values (NaN payloads kept bit for bit); any other
array is converted element by element like a list.

Not supported (raise :class:`EncodeError`): ``key`` fields of struct type in tables. A
``key`` that is a fixed array in a struct sorts by its first element only.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import re
import struct
import sys
from collections.abc import Callable, Mapping
from typing import Any

from gameserde.errors import EncodeError
from gameserde.flatbuffers import _accel, _encoder_program, flexbuffers
from gameserde.flatbuffers._json_parse import Bare, Call, Escaped, Irregular, parse_json
from gameserde.flatbuffers._json_text import format_float
from gameserde.flatbuffers.builder import Builder, BuilderError
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.flatbuffers.views import struct_dtype
from gameserde.schema.model import (
    Bool,
    Enum,
    Float,
    Int,
    List,
    Optional,
    Record,
    Ref,
    String,
    Union,
)
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Type as ModelType

__all__ = ["encode", "from_json"]

_FMT_INT = {(8, True): "b", (8, False): "B", (16, True): "h", (16, False): "H",
            (32, True): "i", (32, False): "I", (64, True): "q", (64, False): "Q"}
_SLOT_METHOD = {"b": Builder.prepend_int8_slot, "B": Builder.prepend_uint8_slot,
                "h": Builder.prepend_int16_slot, "H": Builder.prepend_uint16_slot,
                "i": Builder.prepend_int32_slot, "I": Builder.prepend_uint32_slot,
                "q": Builder.prepend_int64_slot, "Q": Builder.prepend_uint64_slot,
                "f": Builder.prepend_float32_slot, "d": Builder.prepend_float64_slot}
_LIMITS = {"b": (-128, 127), "B": (0, 255), "h": (-32768, 32767), "H": (0, 65535),
           "i": (-2**31, 2**31 - 1), "I": (0, 2**32 - 1), "q": (-2**63, 2**63 - 1),
           "Q": (0, 2**64 - 1), "?": (0, 255)}
_F32 = struct.Struct("<f")

# field kinds
_K_INT, _K_FLOAT, _K_STRUCT, _K_STRING, _K_VECTOR, _K_TABLE, _K_UNION, _K_UVEC = range(8)

_HEX_INT = re.compile(r"[+-]?0[xX][0-9a-fA-F]+\Z")
_DEC_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX_FLOAT = re.compile(r"[+-]?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?[0-9]+)?\Z")
_SPECIAL = {"nan": math.nan, "+nan": math.nan, "-nan": math.nan, "inf": math.inf,
            "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf}


def f32(x: float) -> float:
    """``x`` rounded to a float32 (overflow gives an infinity, as a C cast does)."""
    try:
        r: float = _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    return r


def _err(message: str, step: str = "") -> EncodeError:
    return EncodeError(message, path="$" + step)


def _add(exc: EncodeError, step: str) -> EncodeError:
    exc.add_parent(step)
    return exc


# ---------------------------------------------------------------------------------------------
# Scalar conversion


def _parse_int_text(s: str, enum: Enum | None,
                    lookup: Callable[[str], Enum | None] | None, is_bool: bool) -> int:
    t = s.strip()
    if is_bool and t in ("true", "false"):
        return 1 if t == "true" else 0
    if _DEC_INT.match(t):
        return int(t, 10)
    if _HEX_INT.match(t):
        return int(t, 16)
    if _FLOAT.match(t) or t.lower() in _SPECIAL:
        raise _err(f"invalid number: \"{s}\"")
    total = 0
    for w in s.split(" "):
        if enum is not None:
            if w not in enum.values:
                raise _err(f"unknown enum value: {w}")
            total |= enum.values[w]
            continue
        prefix, dot, name = w.rpartition(".")
        if not dot:
            raise _err("enum values need to be qualified by an enum type")
        found = lookup(prefix) if lookup is not None else None
        if found is None:
            raise _err(f"unknown enum: {prefix}")
        if name not in found.values:
            raise _err(f"unknown enum value: {name}")
        total |= found.values[name]
    return total


def _parse_float_text(s: str) -> float:
    t = s.strip()
    low = t.lower()
    if low in _SPECIAL:
        return _SPECIAL[low]
    if _FLOAT.match(t):
        return float(t)
    if _HEX_FLOAT.match(t) and "p" in low:
        try:
            return float.fromhex(t)
        except ValueError:
            pass
    raise _err(f"invalid number: \"{s}\"")


_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "deg": lambda x: x / math.pi * 180, "rad": lambda x: x * math.pi / 180, "sin": math.sin,
    "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan}


def _not_a_number(v: str) -> EncodeError:
    if type(v) is Call:
        return _err(f"{v.name}: type of argument mismatch, expecting: double")
    return _err("type mismatch or invalid value, an initializer of non-string field must be "
                f"trivial ASCII string: {v}")


def _call_value(v: Call) -> float:
    """flatc's conversion function ``v`` (``rad(180)``) of a float field: computed in double
    precision and printed with 12 decimals, which the field then reads."""
    arg = v.arg
    if type(arg) is Call:
        x = _call_value(arg)
    elif isinstance(arg, str) and type(arg) is not Escaped:
        x = _parse_float_text(arg)
    else:
        raise _err(f"cannot parse {v} (the argument is not a number)")
    function = _FUNCTIONS.get(v.name)
    if function is None:
        raise _err(f"Unknown conversion function: {v.name}")
    try:
        y = function(x)
    except ValueError:  # C gives a NaN (outside the domain, or infinite)
        y = math.nan
    return _parse_float_text(format_float(y, 64))


def _int_converter(fmt: str, enum: Enum | None,
                   lookup: Callable[[str], Enum | None] | None = None
                   ) -> Callable[[Any], int]:
    lo, hi = _LIMITS[fmt]
    is_bool = fmt == "?"
    if is_bool:
        fmt = "B"

    names = dict(enum.values) if enum is not None else {}

    def conv(v: Any) -> int:
        if type(v) is int:
            x = v
        elif isinstance(v, int):  # bool, IntEnum ...
            x = int(v)
        elif isinstance(v, str):
            if type(v) is Escaped or type(v) is Call:
                raise _not_a_number(v)
            found = names.get(v)
            x = found if found is not None else _parse_int_text(v, enum, lookup, is_bool)
        else:
            raise _err(f"expected an integer, got {type(v).__name__}")
        if not lo <= x <= hi:
            raise _err(f"invalid number: \"{x}\", constant does not fit [{lo}; {hi}]")
        return x
    return conv


def _fnv(data: bytes, bits: int, alternate: bool) -> int:
    """FNV-1 (``alternate``: FNV-1a) of ``data``, as flatbuffers' ``hash.h``."""
    if bits == 32:
        h, prime, mask = 2166136261, 16777619, 0xFFFFFFFF
    else:
        # flatbuffers' hash.h has this offset basis (FNV's own is ...2325)
        h, prime, mask = 0xCBF29CE484222645, 1099511628211, 0xFFFFFFFFFFFFFFFF
    if alternate:
        for c in data:
            h = ((h ^ c) * prime) & mask
    else:
        for c in data:
            h = ((h * prime) & mask) ^ c
    return h


_HASHES = {"fnv1_32": (32, False), "fnv1a_32": (32, True),
           "fnv1_64": (64, False), "fnv1a_64": (64, True)}


def _hash_converter(sc: _Scalar, function: str) -> _Scalar:
    """``sc`` for a field with ``(hash: function)``: a string (or a bare identifier in
    flatc's JSON) is stored as its hash, cut at the first NUL as flatc's C string is and
    wrapped to the field's type; numbers convert as usual. flatc only hashes 32- and 64-bit
    fields with a function of their width (others parse as plain integers)."""
    spec = _HASHES.get(function)
    if spec is None or spec[0] != sc.size * 8 or sc.fmt not in "iIqQ":
        return sc
    bits, alternate = spec
    signed = sc.fmt in "iq"
    base = sc.conv

    def conv(v: Any) -> Any:
        if isinstance(v, str) and type(v) is not Call and (
                not isinstance(v, Bare) or v[:1].isalpha() or v[:1] == "_"):
            data = v.encode("utf-8", "surrogatepass").split(b"\0", 1)[0]
            h = _fnv(data, bits, alternate)
            if signed and h >= 1 << (bits - 1):
                h -= 1 << bits
            return h
        return base(v)
    return _Scalar(conv, sc.fmt, sc.size, hashed=True)


def _float_converter(bits: int) -> Callable[[Any], float]:
    def conv(v: Any) -> float:
        if isinstance(v, (int, float)):
            x = float(v)
        elif isinstance(v, str):
            if type(v) is Call:
                x = _call_value(v)
            elif type(v) is Escaped:
                raise _not_a_number(v)
            else:
                x = _parse_float_text(v)
        else:
            raise _err(f"expected a number, got {type(v).__name__}")
        return f32(x) if bits == 32 else x
    return conv


# ---------------------------------------------------------------------------------------------
# Plans


class _Scalar:
    """How one scalar type is converted and packed."""

    __slots__ = ("conv", "fmt", "hashed", "size")

    def __init__(self, conv: Callable[[Any], Any], fmt: str, size: int,
                 hashed: bool = False) -> None:
        self.conv = conv
        self.fmt = fmt
        self.size = size
        self.hashed = hashed  # a hash field taking strings (flatc hashes JSON's null too)


class _StructPlan:
    __slots__ = ("align", "fields", "getter", "key_index", "key_scalar", "name", "packer",
                 "short", "size", "slots")

    def __init__(self) -> None:
        self.name = ""
        self.short = ""
        self.size = 0
        self.align = 1
        self.packer: struct.Struct | None = None
        # (name, flatten function) per field
        self.fields: list[tuple[str, Callable[[Any, list[Any]], None]]] = []
        self.slots = 0
        self.key_index = -1  # index into the flat value list of the key scalar
        self.key_scalar = False
        # fast path for structs of plain scalars: the field values of a dict, in order
        self.getter: Callable[[Any], tuple[Any, ...]] | None = None

    def flatten(self, value: Any) -> list[Any]:
        out: list[Any] = []
        if isinstance(value, Mapping):
            if isinstance(value, Irregular):
                value = _resolve_irregular(value, None)
            if len(value) != len(self.fields):
                for k in value:
                    if not any(k == n for n, _ in self.fields):
                        raise _err(f"unknown field: {k}", f".{k}")
                raise _err(f"struct: wrong number of initializers: {self.short}")
            for name, flat in self.fields:
                try:
                    v = value[name]
                except KeyError:
                    raise _err(f"struct: wrong number of initializers: {self.short}") from None
                try:
                    flat(v, out)
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for name, flat in self.fields:
                try:
                    flat(getattr(value, name), out)
                except AttributeError:
                    raise _err(f"struct: wrong number of initializers: {self.short}") from None
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        elif isinstance(value, (list, tuple)):
            if len(value) != len(self.fields):
                raise _err(f"struct: wrong number of initializers: {self.short}")
            for (name, flat), v in zip(self.fields, value, strict=True):
                try:
                    flat(v, out)
                except EncodeError as exc:
                    raise _add(exc, f".{name}") from None
        else:
            raise _err(f"expected an object for struct {self.short}, got "
                       f"{type(value).__name__}")
        return out

    def pack(self, value: Any) -> bytes:
        getter = self.getter
        if getter is not None and type(value) is dict and len(value) == len(self.fields):
            assert self.packer is not None
            try:
                return self.packer.pack(*getter(value))
            except (KeyError, struct.error, OverflowError, TypeError):
                pass  # the slow path converts (enum names, strings) or reports the error
        flat = self.flatten(value)
        assert self.packer is not None
        try:
            return self.packer.pack(*flat)
        except (struct.error, OverflowError) as exc:
            raise _err(f"cannot pack struct {self.short}: {exc}") from None


class _FieldPlan:
    __slots__ = (
        "add",
        "default",
        "deprecated",
        "elem",
        "elem_plan",
        "flexbuffer",
        "force_align",
        "index",
        "kind",
        "name",
        "nested",
        "np_format",
        "offset64",
        "optional",
        "required",
        "scalar",
        "shared",
        "size_class",
        "slot",
        "struct",
        "table",
        "union",
        "union_field",
        "vec_kind",
        "vec_scalar",
        "vector64",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.index = 0
        self.slot = 0
        self.kind = _K_INT
        self.default: Any = None
        self.optional = False
        self.required = False
        self.deprecated = False
        self.size_class = 4
        self.scalar: _Scalar | None = None
        self.add: Any = None
        self.struct: _StructPlan | None = None
        self.table: str | None = None
        self.union: Union | None = None
        self.union_field = ""  # for a union value: the name of its _type field
        self.shared = False
        self.nested: str | None = None
        self.force_align = 0
        self.vec_kind = _K_INT
        self.vec_scalar: _Scalar | None = None
        self.elem: Any = None  # struct plan / table name for vectors
        self.elem_plan: _TablePlan | None = None  # the table plan of a vector of tables
        self.offset64 = False  # referenced by a 64-bit offset (offset64/vector64)
        self.vector64 = False  # a vector with a 64-bit length (vector64)
        self.np_format = ""  # the struct format of a scalar vector's numpy dtype
        self.flexbuffer = False  # a [ubyte] (flexbuffer) field: the value is a FlexBuffer's


class _TablePlan:
    __slots__ = ("by_name", "fast", "fields", "has_union", "key", "name", "nfields", "order",
                 "required", "short")

    def __init__(self) -> None:
        self.name = ""
        self.short = ""
        self.by_name: dict[str, _FieldPlan] = {}
        self.fields: list[_FieldPlan] = []
        self.order: tuple[_FieldPlan, ...] = ()
        self.nfields = 0
        self.required: tuple[str, ...] = ()
        self.key: _FieldPlan | None = None
        self.has_union = False
        # the compiled encoder of a dict value (see _compile_table), made on first use
        self.fast: Callable[[_Encoder, dict[str, Any]], int] | None = None


class _Plans:
    """All compiled plans of one schema."""

    def __init__(self, schema: FbsSchema) -> None:
        self.schema = schema
        self.tables: dict[str, _TablePlan] = {}
        self.structs: dict[str, _StructPlan] = {}
        self.roots: dict[str, _TablePlan] = {}  # by the name given to encode()

    def numpy_layout(self, f: _FieldPlan) -> tuple[Any, tuple[Any, int] | None]:
        """For a vector of scalars or structs: the numpy dtype of one element, and for a
        struct whose fields are all one scalar type with no padding, that dtype and the field
        count (None otherwise). Needs numpy (only called with a numpy array)."""
        np = sys.modules["numpy"]
        if f.vec_kind == _K_INT:
            return np.dtype("<" + f.np_format), None
        sp: _StructPlan = f.elem
        want = struct_dtype(self.schema, sp.name)
        fields = [want.fields[name][0] for name in want.names]
        first = fields[0]
        if (first.names is None and first.shape == () and all(x == first for x in fields)
                and first.itemsize * len(fields) == want.itemsize):
            return want, (first, len(fields))
        return want, None

    def enum_lookup(self, name: str) -> Enum | None:
        try:
            e = self.schema[name]
        except KeyError:
            return None
        return e if isinstance(e, Enum) else None

    # -- scalars ---------------------------------------------------------------------------

    def scalar(self, t: ModelType) -> _Scalar | None:
        enum: Enum | None = None
        if isinstance(t, Optional):
            t = t.inner
        if isinstance(t, Ref):
            named = self.schema.types[t.name]
            if not isinstance(named, Enum):
                return None
            enum = named
            t = named.underlying
        if isinstance(t, Bool):
            return _Scalar(_int_converter("?", None, self.enum_lookup), "B", 1)
        if isinstance(t, Int):
            fmt = _FMT_INT[(t.bits, t.signed)]
            return _Scalar(_int_converter(fmt, enum, self.enum_lookup), fmt, t.bits // 8)
        if isinstance(t, Float):
            return _Scalar(_float_converter(t.bits), "f" if t.bits == 32 else "d",
                           t.bits // 8)
        return None

    # -- structs ---------------------------------------------------------------------------

    def struct(self, name: str) -> _StructPlan:
        plan = self.structs.get(name)
        if plan is not None:
            return plan
        plan = _StructPlan()
        self.structs[name] = plan
        layout = self.schema.struct_layout(name)
        rec = self.schema.struct(name)
        plan.name = name
        plan.short = name.rsplit(".", 1)[-1]
        plan.size = layout.size
        plan.align = layout.align
        fmt: list[str] = ["<"]
        pos = 0
        count = 0

        def emit(t: ModelType, offset: int,
                 hash_fn: Any = None) -> Callable[[Any, list[Any]], None]:
            nonlocal pos, count
            sc = self.scalar(t)
            if sc is not None and isinstance(hash_fn, str):
                sc = _hash_converter(sc, hash_fn)
            if sc is not None:
                if offset > pos:
                    fmt.append(f"{offset - pos}x")
                fmt.append(sc.fmt)
                pos = offset + sc.size
                count += 1
                conv = sc.conv

                def flat_scalar(v: Any, out: list[Any]) -> None:
                    out.append(conv(v))
                return flat_scalar
            if isinstance(t, Ref):
                sub = self.struct(t.name)
                sub_layout = self.schema.struct_layout(t.name)
                parts = [(f.name, emit(f.type, offset + f.offset)) for f in sub_layout.fields]
                if offset + sub.size > pos:
                    fmt.append(f"{offset + sub.size - pos}x")
                    pos = offset + sub.size
                short = sub.short

                def flat_struct(v: Any, out: list[Any]) -> None:
                    if isinstance(v, Mapping):
                        if isinstance(v, Irregular):
                            v = _resolve_irregular(v, None)
                        if len(v) != len(parts):
                            raise _err(f"struct: wrong number of initializers: {short}")
                        for n, fl in parts:
                            if n not in v:
                                raise _err(f"struct: wrong number of initializers: {short}")
                            try:
                                fl(v[n], out)
                            except EncodeError as exc:
                                raise _add(exc, f".{n}") from None
                    elif isinstance(v, (list, tuple)) and len(v) == len(parts):
                        for (_, fl), x in zip(parts, v, strict=True):
                            fl(x, out)
                    elif dataclasses.is_dataclass(v):
                        for n, fl in parts:
                            fl(getattr(v, n), out)
                    else:
                        raise _err(f"expected an object for struct {short}")
                return flat_struct
            if isinstance(t, List) and t.length is not None:
                esize = self._inline_size(t.element)
                elems = [emit(t.element, offset + i * esize) for i in range(t.length)]
                n = t.length

                def flat_array(v: Any, out: list[Any]) -> None:
                    if not isinstance(v, (list, tuple)) or len(v) != n:
                        raise _err(f"fixed-length array size is incorrect, expected {n}")
                    for i, (fl, x) in enumerate(zip(elems, v, strict=True)):
                        try:
                            fl(x, out)
                        except EncodeError as exc:
                            raise _add(exc, f"[{i}]") from None
                return flat_array
            raise _err(f"unsupported struct field type {t}")

        for f, fl in zip(rec.fields, layout.fields, strict=True):
            if f.key:
                sc = self.scalar(f.type)
                plan.key_index = count
                plan.key_scalar = sc is not None
            plan.fields.append((f.name, emit(f.type, fl.offset, f.attributes.get("hash"))))
        if layout.size > pos:
            fmt.append(f"{layout.size - pos}x")
        plan.packer = struct.Struct("".join(fmt))
        plan.slots = count
        if count == len(rec.fields) and count >= 2:
            plan.getter = operator.itemgetter(*(f.name for f in rec.fields))
        return plan

    def _inline_size(self, t: ModelType) -> int:
        sc = self.scalar(t)
        if sc is not None:
            return sc.size
        if isinstance(t, Ref):
            return self.struct(t.name).size
        if isinstance(t, List) and t.length is not None:
            return self._inline_size(t.element) * t.length
        raise _err(f"unsupported struct field type {t}")

    # -- tables ----------------------------------------------------------------------------

    def table(self, name: str) -> _TablePlan:
        plan = self.tables.get(name)
        if plan is not None:
            return plan
        plan = _TablePlan()
        self.tables[name] = plan
        rec = self.schema.table(name)
        plan.name = rec.name
        plan.short = rec.name.rsplit(".", 1)[-1]
        for i, f in enumerate(rec.fields):
            fp = self._field(rec, f)
            fp.index = i
            plan.fields.append(fp)
            plan.by_name[f.name] = fp
            if f.key:
                plan.key = fp
        plan.nfields = max((f.id or 0) for f in rec.fields) + 1 if rec.fields else 0
        plan.order = tuple(plan.by_name[n] for n in self.schema.binary_field_order(rec.name))
        plan.required = tuple(f.name for f in rec.fields if f.required)
        plan.has_union = any(f.kind in (_K_UNION, _K_UVEC) for f in plan.fields)
        return plan

    def _field(self, rec: Record, f: ModelField) -> _FieldPlan:
        fp = _FieldPlan(f.name)
        a = f.attributes
        fp.slot = f.id or 0
        fp.required = f.required
        fp.deprecated = f.deprecated
        fp.size_class = a.get("flatbuffers.size_class", 4)
        fp.shared = bool(a.get("shared", False))
        fp.nested = a.get("flatbuffers.nested_root")
        fa = a.get("force_align")
        fp.force_align = int(fa) if isinstance(fa, int) else 0
        t = f.type
        fp.optional = isinstance(t, Optional)
        fp.offset64 = bool(a.get("flatbuffers.offset64"))
        fp.vector64 = bool(a.get("vector64"))
        fp.flexbuffer = bool(a.get("flexbuffer"))
        if "flatbuffers.union_type_of" in a:
            u = self.schema.types[a["flatbuffers.union"]]
            assert isinstance(u, Union)
            fp.union = u
            names = {n: v for n, (v, _) in u.members.items()}
            names[u.attributes.get("flatbuffers.none", "NONE")] = 0
            enum = Enum(u.name, Int(8, False), names)
            fp.scalar = _Scalar(_int_converter("B", enum), "B", 1)
            if isinstance(t, List):  # the type vector of a vector of unions
                fp.kind = _K_VECTOR
                fp.vec_kind = _K_INT
                fp.vec_scalar = fp.scalar
                return fp
            fp.kind = _K_INT
            fp.default = 0
            fp.add = Builder.prepend_uint8_slot
            return fp
        if "flatbuffers.union_type_field" in a:
            is_vector = isinstance(t, List)
            ref = t.element if isinstance(t, List) else t
            assert isinstance(ref, Ref)
            u = self.schema.types[ref.name]
            assert isinstance(u, Union)
            fp.kind = _K_UVEC if is_vector else _K_UNION
            fp.union = u
            fp.union_field = a["flatbuffers.union_type_field"]
            names = {n: v for n, (v, _) in u.members.items()}
            names["NONE"] = 0
            fp.scalar = _Scalar(_int_converter("B", Enum(u.name, Int(8, False), names)), "B", 1)
            return fp
        sc = self.scalar(t)
        hash_fn = a.get("hash")
        if sc is not None and isinstance(hash_fn, str):
            sc = _hash_converter(sc, hash_fn)
        if sc is not None:
            fp.scalar = sc
            fp.kind = _K_FLOAT if sc.fmt in "fd" else _K_INT
            d = f.default
            if d is None:
                fp.default = None
            elif fp.kind == _K_FLOAT:
                fp.default = f32(float(d)) if sc.fmt == "f" else float(d)
            else:
                fp.default = int(d)
            fp.add = _SLOT_METHOD[sc.fmt]
            return fp
        if isinstance(t, String):
            fp.kind = _K_STRING
            return fp
        if isinstance(t, Ref):
            named = self.schema.types[t.name]
            if isinstance(named, Record) and named.kind == "struct":
                fp.kind = _K_STRUCT
                fp.struct = self.struct(named.name)
            else:
                fp.kind = _K_TABLE
                fp.table = named.name
            return fp
        if isinstance(t, List):
            fp.kind = _K_VECTOR
            el = t.element
            sc = self.scalar(el)
            if sc is not None and isinstance(hash_fn, str):
                sc = _hash_converter(sc, hash_fn)
            if sc is not None:
                fp.vec_kind = _K_INT
                fp.vec_scalar = sc
                fp.np_format = "?" if isinstance(el, Bool) else sc.fmt
            elif isinstance(el, String):
                fp.vec_kind = _K_STRING
            elif isinstance(el, Ref):
                named = self.schema.types[el.name]
                if isinstance(named, Record) and named.kind == "struct":
                    fp.vec_kind = _K_STRUCT
                    fp.elem = self.struct(named.name)
                elif isinstance(named, Record):
                    fp.vec_kind = _K_TABLE
                    fp.elem = named.name
                else:
                    fp.vec_kind = _K_UNION
            return fp
        raise _err(f"unsupported field type {t} for {rec.name}.{f.name}")


_PLANS: dict[int, tuple[FbsSchema, _Plans]] = {}


def _is_ndarray(v: Any) -> bool:
    np = sys.modules.get("numpy")  # never imported here: an array means numpy is loaded
    return np is not None and isinstance(v, np.ndarray)


def _plans(schema: FbsSchema) -> _Plans:
    entry = _PLANS.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    plans = _Plans(schema)
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(schema)] = (schema, plans)
    return plans


# ---------------------------------------------------------------------------------------------
# flatc's SimpleQsort (unstable), replayed on a Python list


def _simple_qsort(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    def sort(begin: int, end: int) -> None:
        while end - begin > 1:
            left = begin + 1
            right = end
            while left < right:
                if less(items[begin], items[left]):
                    right -= 1
                    items[left], items[right] = items[right], items[left]
                else:
                    left += 1
            left -= 1
            items[begin], items[left] = items[left], items[begin]
            sort(begin, left)
            begin = right
    sort(0, len(items))


def _key_less(a: Any, b: Any) -> bool:
    return bool(a[0] < b[0])


# ---------------------------------------------------------------------------------------------
# The encoder


_SKIPPABLE = frozenset({"true", "false", "inf", "-inf", "+inf"})


def _bare_identifier(v: Any) -> str | None:
    """The first bare identifier token (other than true/false) inside a parsed JSON value."""
    if isinstance(v, Bare):
        if v in _SKIPPABLE or v[:1].isdigit() or v[:1] == ".":
            return None
        if v[:1] in "+-":
            return None if v[1:2].isdigit() or v[1:2] == "." else v[:1]
        return str(v)
    if isinstance(v, dict):
        for x in v.values():
            found = _bare_identifier(x)
            if found is not None:
                return found
    elif isinstance(v, list):
        for x in v:
            found = _bare_identifier(x)
            if found is not None:
                return found
    return None


_MISSING: Any = object()


def _resolve_irregular(value: Irregular, fields: Mapping[str, _FieldPlan] | None
                       ) -> dict[str, Any]:
    """The object flatc sees in an :class:`Irregular`, for a table with ``fields`` (None for a
    struct, whose fields all count as scalars here): a ``"$schema"`` key takes a string and is
    skipped (kept once in a table's dict, for the union type look-ahead; the encoder skips
    it); a table's scalar reads ``"null"`` as null, and a null for a field that is no scalar
    is ignored, so only such a field may be given twice; a ``hash`` field, and any field of a
    struct, reads ``null`` as the word (which only a hash field takes: it hashes it)."""
    out: dict[str, Any] = {}
    for name, v in value.pairs:
        if name == "$schema":
            if not isinstance(v, str | bytes) or isinstance(v, Bare):
                raise _err("expecting: string constant instead got: "
                           + ("null" if v is None else str(v)), ".$schema")
            if fields is not None:
                out.setdefault(name, v)
            continue
        f = fields.get(name) if fields is not None else None
        if f is None or (f.scalar is not None and f.scalar.hashed):
            scalar = True  # a struct's field (or an unknown one), a hash field: flatc reads
            if v is None:  # null as the word, which only a hash field takes
                v = Bare("null")
        else:
            scalar = f.kind <= _K_FLOAT
            if scalar and type(v) is str and v == "null":
                v = None
        if name in out:
            if scalar:
                raise _err(f"field set more than once: {name}", f".{name}")
            if v is None:
                continue
            del out[name]  # the null before was ignored: the field is where its value is
        out[name] = v
    return out


def _json_table_value(plan: _TablePlan, value: Any) -> Any:
    """A table in flatc's JSON as a dict: flatc also takes an array of the fields' values in
    order (a null for a field that is no scalar is ignored there too), and an
    :class:`Irregular` object (:func:`_resolve_irregular`)."""
    if isinstance(value, list):
        out: dict[str, Any] = {}
        fields = plan.fields
        n = 0
        for v in value:
            if n == len(fields):
                raise _err("too many unnamed fields in nested array")
            f = fields[n]
            if v is None and f.kind > _K_FLOAT:
                continue  # ignored: the next value is for the same field
            out[f.name] = v
            n += 1
        if n != len(fields):
            raise _err("wrong number of unnamed fields in table vector")
        return out
    if isinstance(value, Irregular):
        return _resolve_irregular(value, plan.by_name)
    return value


def _union_tag(u: Union, x: Any, field: str) -> int:
    """The tag of union member value ``x``: a dataclass instance chooses the member named
    like its class (or, failing that, the one member whose type has its class's name), a
    str the first string member."""
    if isinstance(x, str | bytes):
        for tag, t in u.members.values():
            if isinstance(t, String):
                return tag
    elif dataclasses.is_dataclass(x):
        name = type(x).__name__
        if name in u.members:
            return u.members[name][0]
        hits = [tag for tag, t in u.members.values()
                if isinstance(t, Ref) and t.name.rsplit(".", 1)[-1] == name]
        if len(hits) == 1:
            return hits[0]
    raise _err(f"cannot tell which member of union {u.name} a {type(x).__name__} is; "
               f"give {field}")


def _infer_union_tags(plan: _TablePlan, lookup: dict[str, Any]) -> dict[str, Any]:
    """``lookup`` with the ``_type`` fields a dataclass value leaves out, inferred from the
    union values' classes (see :func:`_union_tag`) and placed just before their values, as
    flatc's JSON has them (a type vector is written before its union vector)."""
    out: dict[str, Any] = {}
    for name, v in lookup.items():
        f = plan.by_name.get(name)
        if f is not None and f.kind in (_K_UNION, _K_UVEC) and f.union_field not in lookup:
            assert f.union is not None
            try:
                if f.kind == _K_UNION:
                    out[f.union_field] = _union_tag(f.union, v, f.union_field)
                elif isinstance(v, list | tuple):
                    tags = []
                    for i, x in enumerate(v):
                        try:
                            tags.append(_union_tag(f.union, x, f.union_field))
                        except EncodeError as exc:
                            raise _add(exc, f"[{i}]") from None
                    out[f.union_field] = tags
            except EncodeError as exc:
                raise _add(exc, f".{name}") from None
        out[name] = v
    return out


class _Encoder:
    __slots__ = ("b", "force_defaults", "json_rules", "plans")

    def __init__(self, plans: _Plans, builder: Builder, force_defaults: bool,
                 json_rules: bool = False) -> None:
        self.plans = plans
        self.b = builder
        self.force_defaults = force_defaults
        self.json_rules = json_rules

    def table(self, plan: _TablePlan, value: Any) -> int:
        if self.json_rules and type(value) is not dict:
            value = _json_table_value(plan, value)
        if type(value) is dict and not (self.json_rules and plan.has_union):
            fast = plan.fast
            if fast is None:
                fast = plan.fast = _compile_table(plan)
            return fast(self, value)
        return self.table_generic(plan, value)

    def table_generic(self, plan: _TablePlan, value: Any) -> int:
        if isinstance(value, Mapping):
            items: Any = value.items()
            lookup: Any = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            lookup = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            lookup = {k: v for k, v in lookup.items() if v is not None}
            if plan.has_union:
                lookup = _infer_union_tags(plan, lookup)
            items = lookup.items()
        else:
            raise _err(f"expected an object for table {plan.short}, got "
                       f"{type(value).__name__}")
        vals = [_MISSING] * len(plan.fields)
        seen: list[tuple[str, int, Any]] = []  # union _type fields parsed so far
        seen_vec: list[tuple[str, int, Any]] = []  # union _type vectors parsed so far
        by_name = plan.by_name
        b = self.b
        for name, v in items:
            f = by_name.get(name)
            if f is None:
                if name == "$schema":
                    continue
                raise _err(f"unknown field: {name}", f".{name}")
            if v is None:
                if f.kind <= _K_FLOAT and not f.optional and f.union is None:
                    raise _err('invalid number: "null"', f".{name}")
                continue
            kind = f.kind
            try:
                if kind == _K_INT:
                    if type(v) is not int:
                        assert f.scalar is not None
                        v = f.scalar.conv(v)
                    vals[f.index] = v
                    if f.union is not None:
                        seen.append((f.union.name, f.slot, v))
                elif kind == _K_FLOAT:
                    assert f.scalar is not None
                    vals[f.index] = f.scalar.conv(v)
                elif kind == _K_STRING:
                    vals[f.index] = self.string(v, f.shared)
                elif kind == _K_STRUCT:
                    sp = f.struct
                    assert sp is not None
                    # flatc builds a parsed struct in place and pops it, leaving the
                    # alignment padding (and minalign) behind
                    b.prep(sp.align, 0)
                    vals[f.index] = sp.pack(v)
                elif kind == _K_TABLE:
                    assert f.table is not None
                    vals[f.index] = self.table(self.plans.table(f.table), v)
                elif kind == _K_VECTOR:
                    if f.union is not None and self.json_rules:
                        seen_vec.append((f.union.name, f.slot, self._union_tags(f, v)))
                    vals[f.index] = self.vector(f, v)
                elif kind == _K_UVEC:
                    if self.json_rules:
                        tags = self._json_union_vector_tags(f, seen_vec)
                    else:
                        tags = lookup.get(f.union_field)
                    vals[f.index] = self.union_vector(f, tags, v)
                else:
                    tag = (self._json_union_tag(plan, f, seen, lookup, name, v)
                           if self.json_rules else lookup.get(f.union_field))
                    vals[f.index] = self.union_value(f, tag, v)
            except EncodeError as exc:
                raise _add(exc, f".{name}") from None
        for name in plan.required:
            if vals[by_name[name].index] is _MISSING:
                raise _err(f"required field is missing: {name} in {plan.short}")
        b.start_object(plan.nfields)
        for f in plan.order:
            x = vals[f.index]
            if x is _MISSING:
                continue
            kind = f.kind
            if kind == _K_INT:
                if f.add is Builder.prepend_uint8_slot and f.union is not None:
                    b.prepend_uint8_slot(f.slot, x, 0)
                else:
                    try:
                        f.add(b, f.slot, x, f.default)
                    except BuilderError:
                        raise _err(f"value {x!r} does not fit", f".{f.name}") from None
            elif kind == _K_FLOAT:
                f.add(b, f.slot, x, f.default)
            elif kind == _K_STRUCT:
                assert f.struct is not None
                h = b.prepend_raw(x, f.struct.align)
                b.prepend_struct_slot(f.slot, h, 0)
            elif f.offset64:
                b.prep(8, 0)  # flatc's ReferTo(uoffset64_t): Align(8), then the offset
                b.prepend_uint64_slot(f.slot, b.offset() - x + 8, 0)
            else:
                b.prepend_uoffset_relative_slot(f.slot, x, 0)
        return b.end_object()

    @staticmethod
    def _json_union_tag(plan: _TablePlan, f: _FieldPlan, seen: list[tuple[str, int, Any]],
                        lookup: Any, name: str, v: Any) -> Any:
        """The tag flatc uses for union value ``name``: among the ``_type`` fields *of the
        same union* parsed before it in this table, the one with the highest id (flatc
        keeps parsed fields sorted by id and matches by union type, not by name), else
        the very next key if it is the field's own ``_type`` (found by skipping the value,
        which fails on bare identifiers other than true/false/inf)."""
        assert f.union is not None
        best: tuple[int, Any] | None = None
        for union_name, slot, tag in seen:
            if union_name == f.union.name and (best is None or slot > best[0]):
                best = (slot, tag)
        if best is not None:
            return best[1]
        keys = list(lookup)
        i = keys.index(name)
        if i + 1 < len(keys) and keys[i + 1] == f.union_field:
            bad = _bare_identifier(v)
            if bad is not None:
                raise _err(f"cannot parse value starting with: {bad}")
            return lookup[f.union_field]
        raise _err(f"missing type field for this union value: {name}")

    @staticmethod
    def _union_tags(f: _FieldPlan, v: Any) -> list[int]:
        """The tags of a union type vector value (empty if it is not a list: the vector
        encoder reports that)."""
        if not isinstance(v, (list, tuple)):
            return []
        assert f.scalar is not None
        conv = f.scalar.conv
        try:
            return [x if type(x) is int else conv(x) for x in v]
        except EncodeError:
            return []

    @staticmethod
    def _json_union_vector_tags(f: _FieldPlan, seen_vec: list[tuple[str, int, Any]]) -> Any:
        """The type vector flatc uses for the union vector ``f``: among the type vectors *of
        the same union* parsed before it in this table, the one with the highest id; there is
        no look-ahead (flatc fails on the first element when none was parsed)."""
        assert f.union is not None
        best: tuple[int, Any] | None = None
        for union_name, slot, tags in seen_vec:
            if union_name == f.union.name and (best is None or slot > best[0]):
                best = (slot, tags)
        return None if best is None else best[1]

    def union_vector(self, f: _FieldPlan, tags: Any, v: Any) -> int:
        """A vector of unions ``v`` whose tags are ``tags`` (the ``_type`` vector)."""
        if not isinstance(v, (list, tuple)):
            raise _err(f"expected a list, got {type(v).__name__}")
        if not v:
            return self._offset_vector([], f.force_align)
        if tags is None:
            raise _err(f"missing type field for this union value: {f.name}")
        if not isinstance(tags, (list, tuple, bytes, bytearray)):
            raise _err(f"expected a list of union types, got {type(tags).__name__}")
        handles: list[int] = []
        for i, x in enumerate(v):
            if i >= len(tags):
                raise _err("union types vector smaller than union values vector for: "
                           f"{f.name}")
            if x is None and self.json_rules:
                raise _err("expecting: { instead got: null", f"[{i}]")
            try:
                handles.append(self.union_value(f, tags[i], x))
            except EncodeError as exc:
                raise _add(exc, f"[{i}]") from None
        return self._offset_vector(handles, f.force_align)

    def string(self, v: Any, shared: bool) -> int:
        if isinstance(v, Bare):
            raise _err(f"expecting: string constant instead got: {v}")
        if isinstance(v, str):
            if shared:
                try:
                    return self.b.create_shared_string(v.encode())
                except UnicodeEncodeError:
                    raise _err("string is not valid UTF-8") from None
            return self.b.create_string(v)
        if isinstance(v, (bytes, bytearray)):
            return (self.b.create_shared_string(bytes(v)) if shared
                    else self.b.create_string(v))
        raise _err(f"expected a string, got {type(v).__name__}")

    def union_value(self, f: _FieldPlan, tag_value: Any, v: Any) -> int:
        u = f.union
        assert u is not None
        if tag_value is None:
            raise _err(f"missing type field for this union value: {f.name}")
        assert f.scalar is not None
        tag = tag_value if type(tag_value) is int else f.scalar.conv(tag_value)
        member = u.member_of(tag)
        if member is None:
            raise _err(f"illegal type id for: {f.name}")
        mt = member[1]
        if isinstance(mt, String):
            return self.string(v, False)
        assert isinstance(mt, Ref)
        named = self.plans.schema.types[mt.name]
        if isinstance(named, Record) and named.kind == "struct":
            sp = self.plans.struct(named.name)
            self.b.prep(sp.align, 0)
            return self.b.prepend_raw(sp.pack(v), sp.align)
        return self.table(self.plans.table(mt.name), v)

    def vector(self, f: _FieldPlan, v: Any) -> int:
        if f.flexbuffer:
            return self.flexbuffer(v)
        vk = f.vec_kind
        if f.vector64:
            if f.nested is not None and isinstance(v, Mapping):
                # flatc builds it as for a 32-bit field: a 4-byte length behind the 64-bit
                # offset, which no reader or verifier accepts; the same bytes here
                return self.nested_flatbuffer(f, v)
            return self.vector64(f, v)
        if (type(v) is not list and vk in (_K_INT, _K_STRUCT) and _is_ndarray(v)
                and not f.force_align and not f.nested):
            handle = self.numpy_vector(f, v)
            if handle is not None:
                return handle
            v = v.tolist()  # another layout: converted and checked element by element
        if type(v) is list and not f.force_align and f.nested is None:
            b = self.b
            if vk == _K_INT:
                sc = f.vec_scalar
                assert sc is not None
                try:
                    raw = struct.pack(f"<{len(v)}{sc.fmt}", *v)
                except (struct.error, OverflowError, TypeError):
                    pass  # the general path converts names/strings or reports the error
                else:
                    return b.create_vector_bytes(raw, sc.size, len(v), sc.size)
            elif vk == _K_STRUCT:
                sp: _StructPlan = f.elem
                if sp.key_index < 0:
                    if v:
                        b.prep(sp.align, 0)  # see table(): flatc's parse leaves this padding
                    pack = sp.pack
                    try:
                        raw = b"".join([pack(x) for x in v])
                    except EncodeError:
                        pass  # the general path reports the error with its index
                    else:
                        return b.create_vector_bytes(raw, sp.size, len(v), sp.align)
            elif vk == _K_TABLE:
                tp = f.elem_plan
                if tp is None:
                    tp = f.elem_plan = self.plans.table(f.elem)
                if tp.key is None and not (self.json_rules and tp.has_union):
                    return self._table_vector(tp, v)
        return self.vector_generic(f, v)

    def numpy_vector(self, f: _FieldPlan, arr: Any) -> int | None:
        """A numpy array laid out as the vector's elements (the element's dtype, the struct's
        structured dtype as ``VectorView.numpy()`` gives it, or for a struct of one scalar type
        an ``(n, fields)`` array of that type): its bytes copied as they are, so the same bytes
        as the list of its values (NaN payloads aside: the array's bits are kept). None for
        any other array, or a vector flatc sorts."""
        want, rows = self.plans.numpy_layout(f)
        same = arr.ndim == 1 and arr.dtype == want
        if not same and (rows is None or arr.ndim != 2 or arr.shape[1] != rows[1]
                         or arr.dtype != rows[0]):
            return None
        n = len(arr)
        np = sys.modules["numpy"]
        raw = memoryview(np.ascontiguousarray(arr).reshape(-1).view(np.uint8))
        b = self.b
        if f.vec_kind == _K_STRUCT:
            sp: _StructPlan = f.elem
            if sp.key_index >= 0:
                return None
            if n:
                b.prep(sp.align, 0)  # as for a list: flatc's parse leaves this padding
            return b.create_vector_bytes(raw, sp.size, n, sp.align)
        sc = f.vec_scalar
        assert sc is not None
        return b.create_vector_bytes(raw, sc.size, n, sc.size)

    def flexbuffer(self, v: Any) -> int:
        """A ``flexbuffer`` field as flatc writes it: the value (JSON-like; ``bytes`` are taken
        as a ready FlexBuffer) built by :mod:`~gameserde.flatbuffers.flexbuffers`, then the
        ubyte vector with ``ForceVectorAlignment(size, 1, 8)``."""
        if isinstance(v, (bytes, bytearray, memoryview)):
            data = bytes(v)
        elif self.json_rules:
            data = flexbuffers.dumps_json_value(v)
        else:
            data = flexbuffers.dumps(v)
        self.b.force_vector_alignment(len(data), 1, 8)
        return self.b.create_vector_bytes(data, 1, len(data), 1)

    def vector64(self, f: _FieldPlan, v: Any) -> int:
        """A ``vector64`` vector (scalars or structs only) as flatc's 32-bit builder writes
        it: ``StartVector`` (4-byte length alignment), the elements, then ``Align(8)`` and an
        8-byte length (the padding, if any, lands between the length and the elements)."""
        b = self.b
        if isinstance(v, (bytes, bytearray, memoryview)):
            v = list(bytes(v))
        if not isinstance(v, (list, tuple)):
            raise _err(f"expected a list, got {type(v).__name__}")
        n = len(v)
        keyed_structs = False
        if f.vec_kind == _K_INT:
            sc = f.vec_scalar
            assert sc is not None
            items = []
            for i, x in enumerate(v):
                try:
                    items.append(sc.conv(x))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
            try:
                raw = struct.pack(f"<{n}{sc.fmt}", *items)
            except (struct.error, OverflowError) as exc:
                raise _err(str(exc)) from None
            size = align = sc.size
        elif f.vec_kind == _K_STRUCT:
            sp: _StructPlan = f.elem
            if n:
                b.prep(sp.align, 0)  # see table(): flatc's parse leaves this padding
            packed = []
            for i, x in enumerate(v):
                try:
                    packed.append(sp.pack(x))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
            raw = b"".join(packed)
            size, align = sp.size, sp.align
            keyed_structs = sp.key_index >= 0 and n > 1
        else:
            raise _err("only vectors of scalars and structs can be 64-bit")
        if f.force_align:
            b.force_vector_alignment(n, size, f.force_align)
        length = len(raw)
        if n:
            b.prep(4, length)
            b.prep(align, length)
        # [8-byte length][Align(8) padding][data], written in one go
        pad = (-(b.offset() + length)) & 7
        block = bytearray(struct.pack("<Q", n) + bytes(pad) + raw)
        if f.vec_kind == _K_STRUCT and keyed_structs:
            # flatc sorts the vector it just ended as a 32-bit one: its "data" starts 4 bytes
            # after the length field (the length's high half, the padding, then the data)
            window = bytes(block[4:4 + length])
            chunks = [window[i * size:(i + 1) * size] for i in range(n)]
            keyed = [(self._struct_key(sp, c), c) for c in chunks]
            _simple_qsort(keyed, _key_less)
            block[4:4 + length] = b"".join([c for _, c in keyed])
        b.prep(8, len(block))
        b.prepend_raw(bytes(block), 1)
        return b.offset()

    def _table_vector(self, tp: _TablePlan, v: list[Any]) -> int:
        fast = tp.fast
        if fast is None:
            fast = tp.fast = _compile_table(tp)
        table = self.table
        handles: list[int] = []
        append = handles.append
        try:
            for x in v:
                append(fast(self, x) if type(x) is dict else table(tp, x))
        except EncodeError as exc:
            raise _add(exc, f"[{len(handles)}]") from None
        return self._offset_vector(handles, 0)

    def _offset_vector(self, handles: list[int], force_align: int) -> int:
        b = self.b
        n = len(handles)
        if force_align:
            b.force_vector_alignment(n, 4, force_align)
        # the uoffsets, computed in one go: start_vector(4, n, 4) pads to 4, then element j
        # is written when the offset reaches base + 4 * (n - j)
        off0 = b.offset()
        top = off0 + ((-off0) & 3) + 4 * n
        try:
            raw = struct.pack(f"<{n}I", *[top - 4 * j - h for j, h in enumerate(handles)])
        except struct.error as exc:
            raise _err(f"invalid offset in vector: {exc}") from None
        return b.create_vector_bytes(raw, 4, n, 4)

    def nested_flatbuffer(self, f: _FieldPlan, v: Mapping[str, Any]) -> int:
        """A ``nested_flatbuffer`` given as an object: built in a builder of its own (no file
        identifier), then stored as a ubyte vector aligned to the nested buffer's minalign."""
        assert f.nested is not None
        nb = Builder(flatc_compatible=True)
        sub = _Encoder(self.plans, nb, self.force_defaults, self.json_rules)
        if self.force_defaults:
            nb.force_defaults(True)
        root = sub.table(self.plans.table(f.nested), v)
        nb.finish(root)
        data = nb.output()
        self.b.force_vector_alignment(len(data), 1, nb.minalign)
        return self.b.create_vector_bytes(data, 1, len(data), 1)

    def vector_generic(self, f: _FieldPlan, v: Any) -> int:
        b = self.b
        vk = f.vec_kind
        if f.nested is not None and self.json_rules and not isinstance(v, Mapping):
            raise _err("cannot parse nested_flatbuffer as bytes unless --json-nested-bytes "
                       "is set")
        if f.nested is not None and isinstance(v, Mapping):
            return self.nested_flatbuffer(f, v)
        if isinstance(v, (bytes, bytearray, memoryview)) and vk == _K_INT:
            sc = f.vec_scalar
            assert sc is not None
            if sc.size == 1:
                data = bytes(v)
                if f.force_align:
                    b.force_vector_alignment(len(data), 1, f.force_align)
                return b.create_vector_bytes(data, 1, len(data), 1)
        if not isinstance(v, (list, tuple)):
            raise _err(f"expected a list, got {type(v).__name__}")
        n = len(v)
        if vk == _K_INT:
            sc = f.vec_scalar
            assert sc is not None
            conv = sc.conv
            try:
                raw = struct.pack(f"<{n}{sc.fmt}", *v)
            except (struct.error, OverflowError, TypeError):
                items = []
                for i, x in enumerate(v):
                    try:
                        items.append(conv(x))
                    except EncodeError as exc:
                        raise _add(exc, f"[{i}]") from None
                try:
                    raw = struct.pack(f"<{n}{sc.fmt}", *items)
                except (struct.error, OverflowError) as exc:
                    raise _err(str(exc)) from None
            if f.force_align:
                b.force_vector_alignment(n, sc.size, f.force_align)
            return b.create_vector_bytes(raw, sc.size, n, sc.size)
        if vk == _K_STRUCT:
            sp: _StructPlan = f.elem
            packed = []
            if n:
                b.prep(sp.align, 0)  # see table(): flatc's parse leaves this padding
            for i, x in enumerate(v):
                try:
                    packed.append(sp.pack(x))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
            if sp.key_index >= 0 and n > 1:
                assert sp.packer is not None
                keyed = [(self._struct_key(sp, p), p) for p in packed]
                _simple_qsort(keyed, _key_less)
                packed = [p for _, p in keyed]
            if f.force_align:
                b.force_vector_alignment(n, sp.size, f.force_align)
            return b.create_vector_bytes(b"".join(packed), sp.size, n, sp.align)
        handles: list[int] = []
        if vk == _K_STRING:
            for i, x in enumerate(v):
                try:
                    handles.append(self.string(x, f.shared))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
        elif vk == _K_TABLE:
            tp = self.plans.table(f.elem)
            keys: list[Any] = []
            for i, x in enumerate(v):
                try:
                    handles.append(self.table(tp, x))
                except EncodeError as exc:
                    raise _add(exc, f"[{i}]") from None
                if tp.key is not None:
                    keys.append(self._table_key(tp.key, x))
            if tp.key is not None and n > 1:
                keyed_h = list(zip(keys, handles, strict=True))
                _simple_qsort(keyed_h, _key_less)
                handles = [h for _, h in keyed_h]
        else:
            raise _err("vectors of unions are not supported")
        return self._offset_vector(handles, f.force_align)

    @staticmethod
    def _struct_key(sp: _StructPlan, packed: bytes) -> Any:
        assert sp.packer is not None
        return sp.packer.unpack(packed)[sp.key_index]

    def _table_key(self, key: _FieldPlan, value: Any) -> Any:
        x = (value.get(key.name) if isinstance(value, Mapping)
             else getattr(value, key.name, None))
        if key.kind == _K_STRING:
            if x is None:
                return b""
            return x.encode() if isinstance(x, str) else bytes(x)
        if key.kind == _K_STRUCT:
            raise _err("struct keys are not supported")
        if x is None:
            return key.default if key.default is not None else 0
        assert key.scalar is not None
        return key.scalar.conv(x)


def _compile_table(plan: _TablePlan) -> Callable[[_Encoder, dict[str, Any]], int]:
    """Python source specialised for one table: the field dispatch of the value's keys, the
    conversions, the required check and the unrolled flatc-ordered slot calls. Semantics are
    those of :meth:`_Encoder.table_generic` (union values take their own ``_type`` field)."""
    env: dict[str, Any] = {"MISSING": _MISSING, "EncodeError": EncodeError, "_err": _err,
                           "_add": _add, "PLAN": plan}
    fields = plan.fields
    lines = ["def enc(self, value):", "    b = self.b"]
    names = [f"v{i}" for i in range(len(fields))]
    if names:
        lines.append("    " + " = ".join(names) + " = MISSING")
    env["INDEX"] = {f.name: i for i, f in enumerate(fields)}
    lines += ["    name = ''", "    try:", "        for name, v in value.items():",
              "            i = INDEX.get(name)",
              "            if i is None:",
              "                if name == '$schema':",
              "                    continue",
              "                raise _err(f'unknown field: {name}')"]
    for i, f in enumerate(fields):
        kw = "if" if i == 0 else "elif"
        lines.append(f"            {kw} i == {i}:")
        body: list[str] = []
        env[f"F{i}"] = f
        if f.kind <= _K_FLOAT and f.union is None:
            if f.optional:
                body += ["if v is None:", "    continue"]
            else:
                body += ["if v is None:", "    raise _err('invalid number: \"null\"')"]
        else:
            body += ["if v is None:", "    continue"]
        if f.kind == _K_INT:
            assert f.scalar is not None
            env[f"C{i}"] = f.scalar.conv
            lo, hi = _LIMITS[f.scalar.fmt]
            body += [f"if type(v) is not int or not {lo} <= v <= {hi}:", f"    v = C{i}(v)"]
        elif f.kind == _K_FLOAT:
            assert f.scalar is not None
            env[f"C{i}"] = f.scalar.conv
            if f.scalar.fmt == "d":
                body += ["if type(v) is not float:", f"    v = C{i}(v)"]
            else:
                body += [f"v = C{i}(v)"]
        elif f.kind == _K_STRING:
            if f.shared:
                body += ["v = self.string(v, True)"]
            else:
                body += ["v = b.create_string(v) if type(v) is str else self.string(v, False)"]
        elif f.kind == _K_STRUCT:
            assert f.struct is not None
            env[f"S{i}"] = f.struct
            body += [f"b.prep({f.struct.align}, 0)", f"v = S{i}.pack(v)"]
        elif f.kind == _K_TABLE:
            assert f.table is not None
            body += [f"tp = self.plans.tables.get({f.table!r}) or self.plans.table({f.table!r})",
                     "fn = tp.fast",
                     "if fn is not None and type(v) is dict and not (self.json_rules and "
                     "tp.has_union):",
                     "    v = fn(self, v)",
                     "else:",
                     "    v = self.table(tp, v)"]
        elif f.kind == _K_VECTOR:
            body += [f"v = self.vector(F{i}, v)"]
        elif f.kind == _K_UVEC:
            body += [f"v = self.union_vector(F{i}, value.get({f.union_field!r}), v)"]
        else:
            body += [f"v = self.union_value(F{i}, value.get({f.union_field!r}), v)"]
        body.append(f"{names[i]} = v")
        lines += ["                " + line for line in body]
    if fields:
        lines += ["            else:", "                raise AssertionError(i)"]
    lines += ["    except EncodeError as exc:", "        raise _add(exc, '.' + name) from None"]
    for rname in plan.required:
        i = next(k for k, f in enumerate(fields) if f.name == rname)
        lines += [f"    if {names[i]} is MISSING:",
                  f"        raise _err({f'required field is missing: {rname} in {plan.short}'!r})"]
    lines.append(f"    b.start_object({plan.nfields})")
    for f in plan.order:
        i = fields.index(f)
        v = names[i]
        lines.append(f"    if {v} is not MISSING:")
        if f.kind in (_K_INT, _K_FLOAT):
            assert f.scalar is not None
            method = f.add.__name__
            lines.append(f"        b.{method}({f.slot}, {v}, D{i})")
            env[f"D{i}"] = f.default
        elif f.kind == _K_STRUCT:
            assert f.struct is not None
            lines.append(f"        b.prepend_struct_slot({f.slot}, "
                         f"b.prepend_raw({v}, {f.struct.align}), 0)")
        elif f.offset64:
            lines.append("        b.prep(8, 0)")
            lines.append(f"        b.prepend_uint64_slot({f.slot}, b.offset() - {v} + 8, 0)")
        else:
            lines.append(f"        b.prepend_uoffset_relative_slot({f.slot}, {v}, 0)")
    lines.append("    return b.end_object()")
    exec("\n".join(lines), env)  # our own generated source
    fn: Callable[[_Encoder, dict[str, Any]], int] = env["enc"]
    return fn


def encode(schema: FbsSchema, value: Any, root_type: str | None = None, *,
           order: str = "flatc", file_identifier: str | Any | None = _MISSING,
           size_prefixed: bool = False, force_defaults: bool = False) -> bytes:
    """Encode ``value`` (a dict or dataclass for the root table) as a FlatBuffer, with the
    call order of ``flatc -b`` (identical bytes for the same JSON document).

    ``root_type`` defaults to the schema's ``root_type``; ``file_identifier`` to the
    schema's (pass None to omit it). Raises :class:`EncodeError` with the value path.
    """
    return _encode(schema, value, root_type, order, file_identifier, size_prefixed,
                   force_defaults, False)


def _encode(schema: FbsSchema, value: Any, root_type: str | None, order: str,
            file_identifier: Any, size_prefixed: bool, force_defaults: bool,
            json_rules: bool) -> bytes:
    if order != "flatc":
        raise ValueError(f"unknown order {order!r} (only 'flatc' is supported)")
    name = root_type if root_type is not None else schema.root
    if name is None:
        raise EncodeError("no root type: pass root_type or declare root_type in the schema")
    plans = _plans(schema)
    plan = plans.roots.get(name)
    if plan is None:
        try:
            qual = schema.table(name).name
        except KeyError as exc:
            raise EncodeError(f"unknown root type: {name} ({exc})") from None
        plan = plans.roots[name] = plans.table(qual)
    ident = schema.file_identifier if file_identifier is _MISSING else file_identifier
    if (type(value) is dict and not json_rules and not force_defaults and _accel.ENABLED
            and _accel.encoder is not None):
        # the C encoder (see _encoder_program): the same bytes, or None when it gives up
        data = _encoder_program.encode(plans, plan, value, ident, size_prefixed)
        if data is not None:
            return data
    b = Builder(flatc_compatible=True)
    if force_defaults:
        b.force_defaults(True)
    root = _Encoder(plans, b, force_defaults, json_rules).table(plan, value)
    if size_prefixed:
        b.finish_size_prefixed(root, ident)
    else:
        b.finish(root, ident)
    return b.output()


def from_json(schema: FbsSchema, text: str | bytes, root_type: str | None = None, *,
              strict: bool = False, file_identifier: str | Any | None = _MISSING,
              size_prefixed: bool = False, force_defaults: bool = False,
              allow_non_utf8: bool = False) -> bytes:
    """Parse flatc's JSON dialect and encode it exactly as ``flatc -b schema.fbs data.json``.

    ``strict`` is ``--strict-json`` (quoted keys, no trailing commas). Parse errors raise
    :class:`~gameserde.errors.DecodeError` with line and column."""
    value = parse_json(text, strict=strict, allow_non_utf8=allow_non_utf8)
    if not isinstance(value, dict):
        raise EncodeError("the JSON document must be an object")
    return _encode(schema, value, root_type, "flatc", file_identifier, size_prefixed,
                   force_defaults, True)
