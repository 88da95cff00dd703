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

:func:`~gameserde.flatbuffers.json_input.from_json` parses flatc's JSON dialect (see
:mod:`gameserde.flatbuffers._json_parse`) and encodes the document in document order.

Speed: per table a plan (:mod:`~gameserde.flatbuffers._encode_plans`) is compiled once per
schema object (cached) and turned into specialised Python source (``exec``): the value's
keys dispatch to unrolled conversions, then the slot calls follow in flatc's order with
constants inlined. Structs of plain scalars pack with one precompiled ``struct.Struct``;
scalar vectors with one ``struct.pack``; vectors of tables/strings compute all their uoffsets
at once (``create_vector_bytes``). Only the public :class:`Builder` API is used.

flatc quirks replayed (found with the differential tests; the union tag rules and the
bare-identifier rules only by ``from_json`` — :func:`encode` takes a union's type from
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
flatc's FlexBuffers builder writes it (``from_json`` with flatc's token rules) in an
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
import struct
import sys
from collections.abc import Callable, Mapping
from typing import Any

from gameserde.errors import EncodeError
from gameserde.flatbuffers import _accel, _encoder_program, flexbuffers
from gameserde.flatbuffers._encode_plans import (
    _K_FLOAT,
    _K_INT,
    _K_STRING,
    _K_STRUCT,
    _K_TABLE,
    _K_UNION,
    _K_UVEC,
    _K_VECTOR,
    _MISSING,
    _check_types_have_values,
    _compile_table,
    _FieldPlan,
    _is_ndarray,
    _Plans,
    _plans,
    _StructPlan,
    _TablePlan,
)
from gameserde.flatbuffers._encode_scalars import _add, _err, short
from gameserde.flatbuffers._json_parse import Bare
from gameserde.flatbuffers.builder import Builder, BuilderError
from gameserde.flatbuffers.json_input import _bare_identifier, _json_table_value
from gameserde.flatbuffers.schema import FbsSchema
from gameserde.schema.model import Record, Ref, String, Union

__all__ = ["encode"]

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
        if not self.json_rules:
            for f in plan.union_vectors:
                tf = by_name[f.union_field]
                if vals[f.index] is _MISSING:
                    _check_types_have_values(f, lookup)
                elif vals[tf.index] is _MISSING:  # no values: the verifier wants both vectors
                    vals[tf.index] = self.vector(tf, [])
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
        if not v and (self.json_rules or not tags):
            return self._offset_vector([], f.force_align)
        if tags is None:
            raise _err(f"missing type field for this union value: {f.name}")
        if _is_ndarray(tags) and tags.ndim == 1:
            tags = tags.tolist()
        if not isinstance(tags, (list, tuple, bytes, bytearray)):
            raise _err(f"expected a list of union types, got {type(tags).__name__}")
        if not self.json_rules and len(tags) != len(v):
            raise _err(f"{f.union_field} has {len(tags)} types but {f.name} has {len(v)} "
                       "values; a union vector needs one type per value")
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
            raise _err(f"expecting: string constant instead got: {short(str(v))}")
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
                if sp.key is None:
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
        if want is None:
            return None
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
            if sp.key is not None:
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
        try:
            if isinstance(v, (bytes, bytearray, memoryview)):
                data = bytes(v)
            elif self.json_rules:
                data = flexbuffers.dumps_json_value(v)
            else:
                data = flexbuffers.dumps(v)
        except EncodeError as exc:  # a flatbuffers error, whose path ends in the field
            exc.format = "flatbuffers"
            raise
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
            keyed_structs = sp.key is not None and n > 1
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
            if sp.key is not None and n > 1:
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
        assert sp.key is not None
        return sp.key.unpack_from(packed, sp.key_offset)[0]

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


def _root(schema: FbsSchema, root_type: str | None) -> tuple[_Plans, _TablePlan]:
    """The plans of ``schema`` and the plan of the root table ``root_type`` (default: the
    schema's)."""
    plans = _plans(schema)
    plan = plans.roots.get(root_type)
    if plan is None:
        plan = plans.roots[root_type] = plans.table(schema.root_table(root_type).name)
    return plans, plan


def _encode(schema: FbsSchema, value: Any, root_type: str | None, order: str,
            file_identifier: Any, size_prefixed: bool, force_defaults: bool,
            json_rules: bool) -> bytes:
    if order != "flatc":
        raise ValueError(f"unknown order {order!r} (only 'flatc' is supported)")
    plans, plan = _root(schema, root_type)
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
