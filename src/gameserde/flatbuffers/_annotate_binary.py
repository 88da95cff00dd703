"""flatc's ``BinaryAnnotator`` (``src/binary_annotator.cpp``): walks a buffer from its header
through tables, vtables, structs, strings, vectors and unions into sections of regions, marks
what is broken, and fills the gaps with padding and unknown sections."""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass

from gameserde._bytemap import Path
from gameserde.flatbuffers._annotate_reflection import (
    _REGION_TYPES,
    _SIZES,
    _is_scalar,
    _Reflection,
    _RField,
    _RObject,
)
from gameserde.flatbuffers._annotate_regions import (
    _U64,
    CHAR,
    ERROR,
    ERROR_CYCLE_DETECTED,
    ERROR_INCOMPLETE_BINARY,
    ERROR_INVALID_UNION_TYPE,
    ERROR_LENGTH_TOO_LONG,
    ERROR_LENGTH_TOO_SHORT,
    ERROR_OFFSET_OUT_OF_BINARY,
    ERROR_REQUIRED_FIELD_NOT_PRESENT,
    OK,
    SOFFSET,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    UNKNOWN,
    UOFFSET,
    UOFFSET64,
    VOFFSET,
    WARN_CORRUPTED_PADDING,
    WARN_NO_REFERENCES,
    WARN_PADDING_LENGTH,
    _Comment,
    _Region,
    _Section,
)
from gameserde.flatbuffers._annotate_text import _cpp_to_string_double, _hex
from gameserde.schema.model import Record


class _SortedInts:
    """Sorted distinct ints in blocks: insertion in O(sqrt n), predecessor in O(log n)."""

    _BLOCK = 512

    def __init__(self) -> None:
        self.blocks: list[list[int]] = []
        self.firsts: list[int] = []

    def add(self, value: int) -> None:
        if not self.blocks:
            self.blocks.append([value])
            self.firsts.append(value)
            return
        i = max(0, bisect.bisect_right(self.firsts, value) - 1)
        block = self.blocks[i]
        bisect.insort(block, value)
        self.firsts[i] = block[0]
        if len(block) > 2 * self._BLOCK:
            half = block[self._BLOCK:]
            del block[self._BLOCK:]
            self.blocks.insert(i + 1, half)
            self.firsts.insert(i + 1, half[0])

    def predecessor(self, value: int) -> int | None:
        """The largest value ``< value``, or None."""
        i = bisect.bisect_left(self.firsts, value) - 1
        if i < 0:
            return None
        block = self.blocks[i]
        return block[bisect.bisect_left(block, value) - 1]


@dataclass
class _VTable:
    referring_table: str
    fields: dict[int, tuple[_RField | None, int]]  # id -> (field, offset from table)
    vtable_size: int
    table_size: int


ROOT = Path(None, "$")


class _Annotator:
    def __init__(self, refl: _Reflection, root: str, buf: bytes, size_prefixed: bool) -> None:
        self.refl = refl
        self.root = root
        self.buf = buf
        self.n = len(buf)
        self.size_prefixed = size_prefixed
        self.vtables: dict[int, list[_VTable]] = {}
        self.sections: dict[int, _Section] = {}
        self.keys = _SortedInts()
        self.active: set[int] = set()  # tables and vectors being annotated (cycle guard)

    # -- reading ----------------------------------------------------------------------------

    def valid(self, offset: int) -> bool:
        return 0 <= offset < self.n

    def valid_read(self, offset: int, length: int) -> bool:
        return length < self.n and self.valid(offset + length - 1)

    def incomplete(self, at: int, comment: _Comment, wanted: str, where: Path) -> _Region:
        """The rest of the binary from ``at`` as one unknown region whose comment says that
        ``wanted`` bytes were expected there (flatc's incomplete-binary error)."""
        remaining = self.remaining(at)
        comment.error(ERROR_INCOMPLETE_BINARY, wanted)
        return _Region(at, remaining, UNKNOWN, remaining, 0, comment, where)

    def remaining(self, offset: int) -> int:
        return self.n - offset if self.valid(offset) else 0

    def read(self, fmt: str, offset: int) -> int | None:
        size = struct.calcsize(fmt)
        if not self.valid_read(offset, size):
            return None
        value: int = struct.unpack_from(fmt, self.buf, offset)[0]
        return value

    # -- sections ---------------------------------------------------------------------------

    def add_section(self, offset: int, section: _Section) -> None:
        if offset not in self.sections:
            self.keys.add(offset)
            self.sections[offset] = section

    def set_section(self, offset: int, section: _Section) -> None:
        if offset not in self.sections:
            self.keys.add(offset)
        self.sections[offset] = section

    def contains_section(self, offset: int) -> bool:
        if offset in self.sections:
            return True
        start = self.keys.predecessor(offset)
        if start is None:
            return False
        last = self.sections[start].regions[-1]
        return start <= offset < last.offset + last.length

    # -- header -----------------------------------------------------------------------------

    def annotate(self) -> dict[int, _Section]:
        root_loc = self.build_header(0)
        if self.valid(root_loc):
            self.build_table(root_loc, "root_table", self.refl.object(self.root), ROOT)
        self.fix_missing_regions()
        self.fix_missing_sections()
        return self.sections

    def build_header(self, header_offset: int) -> int:
        offset = header_offset
        regions: list[_Region] = []
        if self.size_prefixed:
            comment = _Comment("size prefix")
            has_prefix = False
            prefix64 = self.read("<Q", offset)
            if prefix64 is not None and prefix64 <= self.n:
                regions.append(_Region(offset, 8, UINT64, comment=comment, where=ROOT))
                offset += 8
                has_prefix = True
            if not has_prefix:
                prefix32 = self.read("<I", offset)
                if prefix32 is not None and prefix32 <= self.n:
                    regions.append(_Region(offset, 4, UINT32, comment=comment, where=ROOT))
                    offset += 4
                    has_prefix = True
            if not has_prefix:
                comment.error(ERROR)
        root_offset = self.read("<I", offset)
        if root_offset is None:
            return _U64
        root_loc = offset + root_offset
        comment = _Comment("root", name=self.root)
        if not self.valid(root_loc):
            comment.error(ERROR_OFFSET_OUT_OF_BINARY)
        regions.append(_Region(offset, 4, UOFFSET, 0, root_loc, comment, ROOT))
        offset += 4
        if self.valid_read(offset, 4) and all(0x20 <= b < 0x7F
                                              for b in self.buf[offset:offset + 4]):
            regions.append(_Region(offset, 4, CHAR, 4, 0, _Comment("file identifier"), ROOT))
        self.add_section(header_offset, _Section("", "header", regions))
        return root_loc

    # -- vtables ----------------------------------------------------------------------------

    def get_or_build_vtable(self, vtable_offset: int, table: _RObject,
                            table_offset: int, where: Path) -> _VTable | None:
        vtables = self.vtables.setdefault(vtable_offset, [])
        for vt in vtables:
            if vt.referring_table == table.name:
                return vt
        if not vtables and self.contains_section(vtable_offset):
            return None
        name = table.name
        size_comment = _Comment("vtable size")
        vtable_size = self.read("<H", vtable_offset)
        if vtable_size is None:
            remaining = self.remaining(vtable_offset)
            size_comment.error(ERROR_INCOMPLETE_BINARY, "2")
            self.add_section(vtable_offset, _Section(name, "vtable", [
                _Region(vtable_offset, remaining, UNKNOWN, remaining, 0, size_comment, where)]))
            return None
        if not self.valid(vtable_offset + vtable_size - 1):
            size_comment.error(ERROR_LENGTH_TOO_LONG)
            self.add_section(vtable_offset, _Section(name, "vtable", [
                _Region(vtable_offset, 2, UINT16, 0, 0, size_comment, where)]))
            return None
        if vtable_size < 4:
            size_comment.error(ERROR_LENGTH_TOO_SHORT, "4")
            self.add_section(vtable_offset, _Section(name, "vtable", [
                _Region(vtable_offset, 2, UINT16, 0, 0, size_comment, where)]))
            return None
        regions = [_Region(vtable_offset, 2, UINT16, 0, 0, size_comment, where)]
        offset = vtable_offset + 2
        len_comment = _Comment("table size")
        table_size = self.read("<H", offset)
        if table_size is None:
            remaining = self.remaining(offset)
            len_comment.error(ERROR_INCOMPLETE_BINARY, "2")
            self.add_section(offset, _Section(name, "vtable", [
                _Region(offset, remaining, UNKNOWN, remaining, 0, len_comment, where)]))
            return None
        if not self.valid(table_offset + table_size - 1):
            len_comment.error(ERROR_LENGTH_TOO_LONG)
        elif table_size < 4:
            len_comment.error(ERROR_LENGTH_TOO_SHORT, "4")
        regions.append(_Region(offset, 2, UINT16, 0, 0, len_comment, where))
        offset += 2
        offset_start = offset
        fields: dict[int, tuple[_RField | None, int]] = {}
        processed = 0
        for f in table.fields:
            field_offset = offset_start + f.id * 2
            if field_offset >= vtable_offset + vtable_size:
                continue
            comment = _Comment("vtable field", name=f"{f.name}` (id: {f.id})")
            field_where = Path(where, f".{f.name}")
            from_table = self.read("<H", field_offset)
            if from_table is None:
                regions.append(self.incomplete(field_offset, comment, "2", field_where))
                continue
            if not self.valid(table_offset + from_table - 1):
                comment.error(ERROR_OFFSET_OUT_OF_BINARY)
                regions.append(_Region(field_offset, 2, VOFFSET, 0, 0, comment, field_where))
                continue
            fields.setdefault(f.id, (f, from_table))
            label = ""
            if from_table == 0:
                if f.required:
                    comment.error(ERROR_REQUIRED_FIELD_NOT_PRESENT)
                    regions.append(_Region(field_offset, 2, VOFFSET, 0, 0, comment, field_where))
                    continue
                if _is_scalar(f.type.base):
                    if f.type.base in ("Float", "Double"):
                        label = f"<defaults to {_cpp_to_string_double(f.default_real)}> ("
                    else:
                        label = f"<defaults to {f.default_integer}> ("
                else:
                    label = "<null> ("
                label += f.type.base + ")"
            comment.default_value = label
            regions.append(_Region(field_offset, 2, VOFFSET, 0, 0, comment, field_where))
            processed += 1
        expected = min((processed * 3) & 0xFFFF, (vtable_size - 4) // 2)
        for fid in range(processed, expected):
            field_offset = offset_start + fid * 2
            from_table = self.read("<H", field_offset)
            comment = _Comment("vtable unknown field", index=fid)
            if from_table is None:
                regions.append(self.incomplete(field_offset, comment, "2", where))
                continue
            fields.setdefault(fid, (None, from_table))
            regions.append(_Region(field_offset, 2, VOFFSET, 0, 0, comment, where))
        if not vtables:
            self.set_section(vtable_offset, _Section(name, "vtable", regions))
        else:
            self.sections[vtable_offset].name += ", " + name
        vt = _VTable(table.name, dict(sorted(fields.items())), vtable_size, table_size)
        vtables.append(vt)
        return vt

    # -- tables -----------------------------------------------------------------------------

    def build_table(self, table_offset: int, kind: str, table: _RObject, where: Path) -> None:
        if self.contains_section(table_offset) or table_offset in self.active:
            return
        self.active.add(table_offset)
        try:
            self._build_table(table_offset, kind, table, where)
        finally:
            self.active.discard(table_offset)

    def _build_table(self, table_offset: int, kind: str, table: _RObject, where: Path) -> None:
        vt_comment = _Comment("vtable offset")
        soffset = self.read("<i", table_offset)
        if soffset is None:
            remaining = self.remaining(table_offset)
            vt_comment.error(ERROR_INCOMPLETE_BINARY, "4")
            self.add_section(table_offset, _Section(table.name, kind, [
                _Region(table_offset, remaining, UNKNOWN, remaining, 0, vt_comment, where)]))
            return
        vtable_offset = table_offset - soffset
        if not self.valid(vtable_offset):
            vt_comment.error(ERROR_OFFSET_OUT_OF_BINARY)
            self.add_section(table_offset, _Section(table.name, kind, [
                _Region(table_offset, 4, SOFFSET, 0, vtable_offset & _U64, vt_comment, where)]))
            return
        regions = [_Region(table_offset, 4, SOFFSET, 0, vtable_offset, vt_comment, where)]
        vtable = self.get_or_build_vtable(vtable_offset, table, table_offset, where)
        if vtable is None:
            return
        table_end = table_offset + vtable.table_size
        if not self.valid(table_end - 1):
            table_end = self.n
        entries = sorted(vtable.fields.values(), key=lambda e: e[1])
        for i, (f, from_table) in enumerate(entries):
            if from_table == 0:
                continue
            field_offset = table_offset + from_table
            if not self.valid(field_offset):
                continue
            if f is None:
                self.unknown_table_field(regions, entries, i, table_offset, table_end, where)
                continue
            base = f.type.base
            field_where = Path(where, f".{f.name}")
            if _is_scalar(base):
                self.scalar_table_field(regions, f, field_offset, field_where)
                continue
            self.offset_table_field(regions, table, vtable, f, table_offset, field_offset,
                                    field_where)
        last = regions[-1]
        i = last.offset + last.length + 1
        if i < table_end:
            pad = table_end - i + 1
            regions.append(_Region(i - 1, pad, UINT8, pad, 0, _Comment("padding"), where))
        self.add_section(table_offset, _Section(table.name, kind, regions))

    def unknown_table_field(self, regions: list[_Region],
                            entries: list[tuple[_RField | None, int]], i: int,
                            table_offset: int, table_end: int, where: Path) -> None:
        field_offset = table_offset + entries[i][1]
        end = table_offset + entries[i + 1][1] if i + 1 < len(entries) else table_end
        length = end - field_offset
        if length == 0:
            return
        hint = ""
        if length == 4:
            rel = self.read("<I", field_offset)
            if rel is not None:
                hint = f"<possibly an offset? Check Loc: +0x{_hex(field_offset + rel, 8)}>"
        comment = _Comment("table unknown field")
        if length < 0 or not self.valid_read(field_offset, length):
            regions.append(self.incomplete(field_offset, comment, str(length & _U64), where))
            return
        comment.default_value = hint
        regions.append(_Region(field_offset, length, UNKNOWN, length, 0, comment, where))

    def scalar_table_field(self, regions: list[_Region], f: _RField, field_offset: int,
                           where: Path) -> None:
        base = f.type.base
        size = _SIZES[base]
        rtype = _REGION_TYPES[base]
        comment = _Comment("table field", name=f"{f.name}` ({base})")
        if not self.valid_read(field_offset, size):
            regions.append(self.incomplete(field_offset, comment, str(size), where))
            return
        if base == "UType" and f.type.index is not None:
            value = self.buf[field_offset]
            if not self.valid_union_value(f.type.index, value):
                comment.error(ERROR_INVALID_UNION_TYPE)
        regions.append(_Region(field_offset, size, rtype, 0, 0, comment, where))

    def offset_table_field(self, regions: list[_Region], table: _RObject, vtable: _VTable,
                           f: _RField, table_offset: int, field_offset: int,
                           where: Path) -> None:
        base = f.type.base
        if f.offset64:
            length, rtype = 8, UOFFSET64
            offset = self.read("<Q", field_offset) or 0
        else:
            length, rtype = 4, UOFFSET
            offset = self.read("<I", field_offset) or 0
        target = 0
        comment = _Comment("table offset field", name=f.name)
        inline = base == "Obj" and f.type.index is not None and self.refl.object(
            f.type.index).is_struct
        if not inline:
            if offset == 0:
                regions.append(self.incomplete(field_offset, comment, "4", where))
                return
            target = field_offset + offset
            if not self.valid(target):
                comment.error(ERROR_OFFSET_OUT_OF_BINARY)
                regions.append(_Region(field_offset, length, rtype, 0, target, comment, where))
                return
        if base == "Obj":
            assert f.type.index is not None
            obj = self.refl.object(f.type.index)
            if obj.is_struct:
                self.build_struct(field_offset, regions, f.name, obj, where)
            else:
                comment.default_value = "(table)"
                if target in self.active:
                    comment.error(ERROR_CYCLE_DETECTED)
                regions.append(_Region(field_offset, length, rtype, 0, target, comment, where))
                if target not in self.active:
                    self.build_table(target, "table", obj, where)
        elif base == "String":
            comment.default_value = "(string)"
            regions.append(_Region(field_offset, length, rtype, 0, target, comment, where))
            self.build_string(target, table, f, where)
        elif base in ("Vector", "Vector64"):
            comment.default_value = "(vector)" if base == "Vector" else "(vector64)"
            if target in self.active:
                comment.error(ERROR_CYCLE_DETECTED)
            regions.append(_Region(field_offset, length, rtype, 0, target, comment, where))
            if target not in self.active:
                self.build_vector(target, table, f, table_offset, vtable.fields, where)
        elif base == "Union":
            entry = vtable.fields.get(f.id - 1)
            if entry is None:
                return
            comment.default_value = "(union)"
            type_offset = table_offset + entry[1]
            realized = self.read("<B", type_offset)
            if realized is None:
                regions.append(self.incomplete(type_offset, comment, "1", where))
                return
            if f.type.index is None or not self.valid_union_value(f.type.index, realized):
                return
            if target in self.active:
                comment.error(ERROR_CYCLE_DETECTED)
                member = self.refl.enum_values(f.type.index)[realized][0]
            else:
                member = self.build_union(target, realized, f, where)
            comment.default_value = f"(union of type `{member}`)"
            regions.append(_Region(field_offset, length, rtype, 0, target, comment, where))

    def valid_union_value(self, enum: str, value: int) -> bool:
        return value < len(self.refl.enum_values(enum))

    # -- structs ----------------------------------------------------------------------------

    def build_struct(self, struct_offset: int, regions: list[_Region], referring: str,
                     obj: _RObject, where: Path) -> int:
        """The regions of the struct at ``struct_offset`` (whose value is at ``where``); the
        offset past it."""
        if not obj.is_struct:
            return struct_offset
        offset = struct_offset
        for f in obj.fields:
            base = f.type.base
            field_where = Path(where, f".{f.name}")
            if _is_scalar(base):
                size = _SIZES[base]
                comment = _Comment("struct field", name=f"{referring}.{f.name}",
                                   default_value=f"of '{obj.name}' ({base})")
                if not self.valid_read(offset, size):
                    regions.append(region := self.incomplete(offset, comment, str(size),
                                                             field_where))
                    offset += region.length
                    continue
                regions.append(_Region(offset, size, _REGION_TYPES[base], 0, 0, comment,
                                       field_where))
                offset += size
            elif base == "Obj" and f.type.index is not None:
                offset = self.build_struct(offset, regions, f"{referring}.{f.name}",
                                           self.refl.object(f.type.index), field_where)
            elif base == "Array":
                element = f.type.element
                for i in range(f.type.fixed_length):
                    item_where = Path(field_where, f"[{i}]")
                    if _is_scalar(element):
                        size = _SIZES[element]
                        comment = _Comment("array field", name=f"{referring}.{f.name}",
                                           index=i,
                                           default_value=f"of '{obj.name}' ({element})")
                        if not self.valid_read(offset, size):
                            regions.append(region := self.incomplete(offset, comment, str(size),
                                                                     item_where))
                            offset += region.length
                            break
                        regions.append(_Region(offset, size, _REGION_TYPES[element], 0, 0,
                                               comment, item_where))
                        offset += size
                    elif f.type.index is not None:
                        offset = self.build_struct(offset, regions, f"{referring}.{f.name}",
                                                   self.refl.object(f.type.index), item_where)
            if f.padding > 0 and self.valid(offset + f.padding):
                regions.append(_Region(offset, f.padding, UINT8, f.padding, 0,
                                       _Comment("padding"), where))
                offset += f.padding
        return offset

    # -- strings ----------------------------------------------------------------------------

    def build_string(self, string_offset: int, table: _RObject, f: _RField,
                     where: Path) -> None:
        if self.contains_section(string_offset):
            return
        regions: list[_Region] = []
        length = self.read("<I", string_offset)
        len_comment = _Comment("string length")
        if length is None:
            regions.append(self.incomplete(string_offset, len_comment, "4", where))
        else:
            end = string_offset + 4 + length + 1
            if not self.valid(end - 1):
                len_comment.error(ERROR_LENGTH_TOO_LONG)
                regions.append(_Region(string_offset, 4, UINT32, 0, 0, len_comment, where))
            else:
                regions.append(_Region(string_offset, 4, UINT32, 0, 0, len_comment, where))
                regions.append(_Region(string_offset + 4, length, CHAR, length, 0,
                                       _Comment("string value"), where))
                regions.append(_Region(string_offset + 4 + length, 1, CHAR, 0, 0,
                                       _Comment("string terminator"), where))
        self.add_section(string_offset, _Section(f"{table.name}.{f.name}", "string", regions))

    # -- vectors ----------------------------------------------------------------------------

    def element_size(self, f: _RField) -> int:
        element = f.type.element
        if _is_scalar(element):
            return _SIZES[element]
        if element == "Obj" and f.type.index is not None:
            obj = self.refl.object(f.type.index)
            return obj.bytesize if obj.is_struct else 4
        return 4

    def build_vector(self, vector_offset: int, table: _RObject, f: _RField,
                     parent_table_offset: int,
                     vtable_fields: dict[int, tuple[_RField | None, int]], where: Path) -> None:
        if self.contains_section(vector_offset) or vector_offset in self.active:
            return
        self.active.add(vector_offset)
        try:
            self._build_vector(vector_offset, table, f, parent_table_offset, vtable_fields,
                               where)
        finally:
            self.active.discard(vector_offset)

    def _build_vector(self, vector_offset: int, table: _RObject, f: _RField,
                      parent_table_offset: int,
                      vtable_fields: dict[int, tuple[_RField | None, int]], where: Path) -> None:
        name = f"{table.name}.{f.name}"
        len_comment = _Comment("vector length")
        if f.type.base == "Vector64":
            length = self.read("<Q", vector_offset)
            length_size, rtype, kind = 8, UINT64, "vector64"
        else:
            length = self.read("<I", vector_offset)
            length_size, rtype, kind = 4, UINT32, "vector"
        if length is None:
            remaining = self.remaining(vector_offset)
            len_comment.error(ERROR_INCOMPLETE_BINARY, "4")
            self.add_section(vector_offset, _Section(name, "vector", [
                _Region(vector_offset, remaining, UNKNOWN, remaining, 0, len_comment, where)]))
            return
        last = (vector_offset + length_size + length * self.element_size(f)) & _U64
        if not self.valid(last - 1):
            len_comment.error(ERROR_LENGTH_TOO_LONG)
            self.add_section(vector_offset, _Section(name, "vector", [
                _Region(vector_offset, length_size, rtype, 0, 0, len_comment, where)]))
            return
        regions = [_Region(vector_offset, length_size, rtype, 0, 0, len_comment, where)]
        offset = vector_offset + length_size
        element = f.type.element
        if element == "Obj" and f.type.index is not None:
            obj = self.refl.object(f.type.index)
            if obj.is_struct:
                for i in range(length):
                    nxt = self.build_struct(offset, regions, f"[{i}]", obj,
                                            Path(where, f"[{i}]"))
                    if nxt == offset:
                        break
                    offset = nxt
            else:
                for i in range(length):
                    comment = _Comment("vector table", index=i)
                    item = Path(where, f"[{i}]")
                    rel = self.read("<I", offset)
                    if rel is None:
                        regions.append(self.incomplete(offset, comment, "4", item))
                        break
                    target = offset + rel
                    if not self.valid(target):
                        comment.error(ERROR_OFFSET_OUT_OF_BINARY)
                    elif target == parent_table_offset or target in self.active:
                        comment.error(ERROR_CYCLE_DETECTED)
                    regions.append(_Region(offset, 4, UOFFSET, 0, target, comment, item))
                    offset += 4
                    if comment.status == OK:
                        self.build_table(target, "table", obj, item)
        elif element == "String":
            for i in range(length):
                comment = _Comment("vector string", index=i)
                item = Path(where, f"[{i}]")
                rel = self.read("<I", offset)
                if rel is None:
                    regions.append(self.incomplete(offset, comment, "4", item))
                    break
                target = offset + rel
                if not self.valid(target):
                    comment.error(ERROR_OFFSET_OUT_OF_BINARY)
                    regions.append(_Region(offset, 4, UOFFSET, 0, target, comment, item))
                    offset += 4
                    continue
                regions.append(_Region(offset, 4, UOFFSET, 0, target, comment, item))
                self.build_string(target, table, f, item)
                offset += 4
        elif element == "Union":
            self.union_vector(regions, offset, length, f, parent_table_offset, vtable_fields,
                              where)
        elif _is_scalar(element):
            size = _SIZES[element]
            rt = _REGION_TYPES[element]
            for i in range(length):
                comment = _Comment("vector value", index=i)
                item = Path(where, f"[{i}]")
                if not self.valid_read(offset, size):
                    regions.append(self.incomplete(offset, comment, str(size), item))
                    break
                if (element == "UType" and f.type.index is not None
                        and not self.valid_union_value(f.type.index, self.buf[offset])):
                    comment.error(ERROR_INVALID_UNION_TYPE)
                regions.append(_Region(offset, size, rt, 0, 0, comment, item))
                offset += size
        self.add_section(vector_offset, _Section(name, kind, regions))

    def union_vector(self, regions: list[_Region], offset: int, length: int, f: _RField,
                     parent_table_offset: int,
                     vtable_fields: dict[int, tuple[_RField | None, int]], where: Path) -> None:
        entry = vtable_fields.get(f.id - 1)
        if entry is None:
            return
        type_field, from_table = entry
        type_field_offset = parent_table_offset + from_table
        # flatc reads the uoffset of the _type vector as a uint16_t.
        rel16 = self.read("<H", type_field_offset)
        if rel16 is None:
            remaining = self.remaining(offset)
            comment = _Comment("vector union")
            comment.error(ERROR_INCOMPLETE_BINARY, "2")
            regions.append(_Region(offset, remaining, UNKNOWN, remaining, 0, comment, where))
            return
        types_at = type_field_offset + rel16 + 4
        enum = type_field.type.index if type_field is not None else None
        for i in range(length):
            comment = _Comment("vector union", index=i)
            item = Path(where, f"[{i}]")
            rel = self.read("<I", offset)
            if rel is None:
                regions.append(self.incomplete(offset, comment, "4", item))
                break
            target = offset + rel
            if not self.valid(target):
                comment.error(ERROR_OFFSET_OUT_OF_BINARY)
                # flatc does not move on here: the next element reads the same offset.
                regions.append(_Region(offset, 4, UOFFSET, 0, target, comment, item))
                continue
            realized = self.read("<B", types_at + i)
            if realized is None:
                comment.error(ERROR_INCOMPLETE_BINARY, "1")
                regions.append(_Region(offset, 0, UNKNOWN, 0, 0, comment, item))
                continue
            if enum is None or not self.valid_union_value(enum, realized):
                offset += 4
                continue
            if target in self.active:
                comment.error(ERROR_CYCLE_DETECTED)
                member = self.refl.enum_values(enum)[realized][0]
            else:
                member = self.build_union(target, realized, f, item)
            comment.default_value = f"(`{member}`)"
            regions.append(_Region(offset, 4, UOFFSET, 0, target, comment, item))
            offset += 4

    def build_union(self, union_offset: int, realized: int, f: _RField, where: Path) -> str:
        """Annotate the union value at ``union_offset`` whose type is ``realized``; the
        member's name. The member's regions are at ``where<Member>``, as the verifier's
        paths say."""
        assert f.type.index is not None
        member, mtype = self.refl.enum_values(f.type.index)[realized]
        if self.contains_section(union_offset) or mtype is None:
            return member
        r = self.refl.resolve(mtype)
        if isinstance(r, Record):
            obj = self.refl.object(r.name)
            inside = Path(where, f"<{member}>")
            if obj.is_struct:
                regions: list[_Region] = []
                self.build_struct(union_offset, regions, f.name, obj, inside)
                self.add_section(union_offset,
                                 _Section(f"{obj.name}.{f.name}", "union", regions))
            else:
                self.build_table(union_offset, "table", obj, inside)
        return member

    # -- gaps -------------------------------------------------------------------------------

    def fix_missing_regions(self) -> None:
        for key in sorted(self.sections):
            section = self.sections[key]
            if not section.regions:
                continue
            inserts: list[_Region] = []
            owner = section.regions[0].where
            offset = section.regions[0].offset + section.regions[0].length
            for region in section.regions[1:]:
                nxt = region.offset
                if not self.valid(nxt):
                    continue
                if offset < nxt:
                    pad = nxt - offset
                    comment = _Comment("padding")
                    if any(self.buf[offset:nxt]):
                        comment.error(WARN_NO_REFERENCES)
                        inserts.append(_Region(offset, pad, UNKNOWN, pad, 0, comment, owner))
                    else:
                        inserts.append(_Region(offset, pad, UINT8, pad, 0, comment, owner))
                offset = nxt + region.length
            if inserts:
                section.regions.extend(inserts)
                section.regions.sort(key=lambda r: r.offset)

    def fix_missing_sections(self) -> None:
        offset = 0
        inserts: list[_Section] = []
        for key in sorted(self.sections):
            section = self.sections[key]
            end = section.regions[-1].offset + section.regions[-1].length
            if offset < key:
                inserts.append(self.missing_section(offset - 1, key - offset + 1))
            offset = end + 1
        if offset < self.n:
            inserts.append(self.missing_section(offset - 1, self.n - offset + 1))
        for section in inserts:
            self.add_section(section.regions[0].offset, section)

    def missing_section(self, offset: int, length: int) -> _Section:
        if any(self.buf[offset:offset + length]):
            comment = _Comment("unknown")
            comment.error(WARN_NO_REFERENCES if length >= 8 else WARN_CORRUPTED_PADDING)
            return _Section("no known references", "unknown", [
                _Region(offset, length, UNKNOWN, length, 0, comment)])
        comment = _Comment("padding")
        if length >= 8:
            comment.error(WARN_PADDING_LENGTH)
        return _Section("", "padding", [_Region(offset, length, UINT8, length, 0, comment)])
