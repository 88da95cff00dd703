"""Bytes after the root object, or after zlib data, which readers ignore (katsuba too), are
not lost: a decoded root keeps them in ``trailing`` (with the offset each run was read at)
and the encoder writes them back after the same parts, so decode→encode gives the input's
bytes, compressed or not, BINd files too, with the C twin and without. The CLI says so on
standard error, since its JSON cannot hold them (GameserdeWarnings), and fails on them with
--strict; convert writes them again."""

from __future__ import annotations

import copy
import json
import pickle
import zlib
from pathlib import Path

import pytest

from gameserde.errors import EncodeError
from gameserde.kingsisle import (
    STATEFUL_FLAGS,
    WITH_COMPRESSION,
    Serializer,
    _accel,
    from_json,
    from_xml,
    load_schema,
    read_bind,
    stream_map,
    to_json,
    to_xml,
    write_bind,
)
from gameserde.kingsisle.objects import KiObject
from tests.fuzz.harness import accelerated
from tests.kingsisle.test_cli import ITEM as ITEM_PATH
from tests.kingsisle.test_cli import TYPES, run
from tests.kingsisle.test_padding import CANONICAL, NESTED, PADDED, nested_value

ITEM = ITEM_PATH.read_bytes()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "little")


def decoded(ser: Serializer, data: bytes) -> KiObject:
    """``ser.decode(data)`` with the C twin and without: the same object, padding and kept
    bytes."""
    with accelerated(True):
        fast = ser.decode(data)
    with accelerated(False):
        pure = ser.decode(data)
    assert fast == pure and (fast.padding, fast.trailing, fast.zlib_data) == (
        pure.padding, pure.trailing, pure.zlib_data)
    return fast


def encoded(ser: Serializer, obj: KiObject) -> bytes:
    """``ser.encode(obj)`` with the C twin and without: the same bytes."""
    with accelerated(True):
        fast = ser.encode(obj)
    with accelerated(False):
        assert ser.encode(obj) == fast
    return fast


def test_bytes_after_the_root_are_kept_and_written_back() -> None:
    ser = Serializer(NESTED)
    data = PADDED + b"\x00tail\xff"
    obj = decoded(ser, data)
    assert obj == nested_value() and obj.trailing == (None, None, (len(PADDED), b"\x00tail\xff"))
    assert obj["m_c"].trailing is None
    assert encoded(ser, obj) == data
    for again in (copy.copy(obj), copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
        assert again.trailing == obj.trailing and encoded(ser, again) == data
    obj["m_n"] = 8  # an edit: the bytes still follow the root
    assert decoded(ser, encoded(ser, obj)).trailing == obj.trailing
    assert decoded(ser, PADDED).trailing is None


def test_the_c_twin_itself_says_where_the_root_ends() -> None:
    with accelerated(True):
        read = _accel.decode(Serializer(NESTED), PADDED + b"xy", 0)
    assert read is not None and read[1] == len(PADDED)


def test_trailing_is_no_property() -> None:
    """Equality, repr, JSON and XML leave it out; a copy made from them has none."""
    schema = load_schema(Path(TYPES))
    ser = Serializer(schema)
    obj = decoded(ser, ITEM + b"xyz")
    plain = ser.decode(ITEM)
    assert obj == plain and repr(obj) == repr(plain)
    assert to_json(obj, schema=schema) == to_json(plain, schema=schema)
    assert to_xml(obj, schema) == to_xml(plain, schema)
    assert from_json(to_json(obj, schema=schema), schema).trailing is None
    assert from_xml(to_xml(obj, schema), schema).trailing is None
    assert ser.encode(from_json(to_json(obj, schema=schema), schema)) == ITEM


def test_each_part_of_a_compressed_stream_keeps_what_follows_it() -> None:
    """After the root (in what WITH_COMPRESSION's zlib data inflates to), after that zlib
    data (in what manual compression's inflates to) and after manual compression's."""
    body = PADDED + b"in"
    inner = zlib.compress(body, 1)
    stream = u32(STATEFUL_FLAGS | WITH_COMPRESSION) + b"\x01" + u32(len(body)) + inner + b"mid"
    outer = zlib.compress(stream, 1)
    data = u32(len(stream)) + outer + b"out"
    ser = Serializer(NESTED, flags=STATEFUL_FLAGS | WITH_COMPRESSION, manual_compression=True)
    obj = decoded(ser, data)
    assert obj == nested_value() and obj.zlib_data == (outer, inner)
    assert obj.trailing == ((4 + len(outer), b"out"), (9 + len(inner), b"mid"),
                            (len(PADDED), b"in"))
    assert encoded(ser, obj) == data
    assert encoded(ser, copy.deepcopy(obj)) == data
    obj["m_n"] = 9  # an edit: too small for katsuba's rule to compress, so raw
    again = decoded(ser, encoded(ser, obj))  # and what followed the zlib data follows "in"
    assert again == obj and again.trailing is not None
    assert [run[1] for run in again.trailing if run] == [b"out", b"inmid"]


def test_without_manual_compression() -> None:
    for flags in (WITH_COMPRESSION, STATEFUL_FLAGS | WITH_COMPRESSION):
        head = u32(flags) if flags & STATEFUL_FLAGS else b""
        ser = Serializer(NESTED, flags=flags)
        inner = zlib.compress(PADDED + b"in", 9)
        data = head + b"\x01" + u32(len(PADDED) + 2) + inner + b"after"
        obj = decoded(ser, data)
        assert obj.trailing == (None, (len(head) + 5 + len(inner), b"after"),
                                (len(PADDED), b"in"))
        assert encoded(ser, obj) == data
        raw = head + b"\x00" + PADDED + b"after"  # not compressed: after the root
        obj = decoded(ser, raw)
        assert obj.trailing == (None, None, (len(head) + 1 + len(PADDED), b"after"))
        assert encoded(ser, obj) == raw  # katsuba's rule on the root's bytes: still raw


def test_an_edited_compressed_root_keeps_them_in_and_after_its_new_zlib_data() -> None:
    ser = Serializer(load_schema(Path(TYPES)), flags=WITH_COMPRESSION)
    data = b"\x01" + u32(len(ITEM) + 2) + zlib.compress(ITEM + b"in", 1) + b"after"
    obj = decoded(ser, data)
    assert encoded(ser, obj) == data
    obj["m_objectName"] = b"Staff_Storm_T4"  # katsuba's rule compresses: zlib level 9
    bare = copy.copy(obj)
    bare.trailing = None
    packed = zlib.compress(Serializer(ser.schema).encode(bare) + b"in", 9)
    assert encoded(ser, obj) == b"\x01" + u32(len(ITEM) + 2) + packed + b"after"


def test_parts_the_written_stream_lacks_go_to_the_end_of_the_one_holding_them() -> None:
    compressed = Serializer(NESTED, flags=WITH_COMPRESSION, manual_compression=True)
    obj = decoded(compressed, encoded(compressed, nested_value()) + b"out")
    obj.trailing = ((0, b"out"), (0, b"mid"), (0, b"in"))
    plain = Serializer(NESTED)
    data = encoded(plain, obj)
    assert data == CANONICAL + b"inmidout"
    assert decoded(plain, data).trailing == (None, None, (len(CANONICAL), b"inmidout"))


def test_bind_files_keep_them_at_offsets_in_the_file() -> None:
    schema = load_schema(Path(TYPES))
    item = Serializer(schema).decode(ITEM)
    compressed = write_bind(item, schema)
    assert compressed[8] == 1  # magic, flags, marker: compressed
    data = compressed + b"tail"
    with accelerated(False):
        pure = read_bind(data, schema)
    with accelerated(True):
        obj = read_bind(data, schema)
    assert obj.trailing == pure.trailing == (None, (len(compressed), b"tail"), None)
    assert write_bind(obj, schema) == data
    raw = write_bind(item, schema, flags=STATEFUL_FLAGS) + b"tail"
    obj = read_bind(raw, schema)
    assert obj.trailing == (None, None, (len(raw) - 4, b"tail"))
    assert write_bind(obj, schema, flags=STATEFUL_FLAGS) == raw


def test_a_trailing_of_another_shape_is_refused() -> None:
    ser = Serializer(NESTED)
    for kept in [b"tail", (b"", b"", b""), ((0, b"x"), None), (None, None, (0, "text")),
                 (None, None, (b"x", 0))]:
        obj = nested_value()
        obj.trailing = kept  # type: ignore[assignment]
        with pytest.raises(EncodeError, match="trailing must be None or three parts"):
            ser.encode(obj)


def test_inspect_shows_the_bytes_after_zlib_data() -> None:
    ser = Serializer(NESTED, flags=WITH_COMPRESSION)
    inner = zlib.compress(PADDED, 9)
    m = stream_map(b"\x01" + u32(len(PADDED)) + inner + b"after", ser)
    rows = m.sections[0].rows
    assert (rows[-2].type, rows[-2].size) == ("zlib data", len(inner))
    assert (rows[-1].type, rows[-1].offset, rows[-1].size) == ("trailing", 5 + len(inner), 5)


def test_the_cli_notes_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "item.bin"
    path.write_bytes(ITEM + b"xyz")
    code, out, err = run(capsys, "decode", "kingsisle", "-s", TYPES, str(path))
    assert code == 0 and json.loads(out) == json.loads(
        run(capsys, "decode", "kingsisle", "-s", TYPES, str(ITEM_PATH))[1])
    note = (f"gameserde: {path}: 3 bytes at byte 152 (0x98), after the root object, are not "
            "part of it; ")
    assert err == note + "kept in the decoded object, not in the JSON\n"
    code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, "--xml", str(path))
    assert code == 0 and err == note + "left out of the XML, which has no place for them\n"
    code, out, err = run(capsys, "verify", "kingsisle", "-s", TYPES, str(path))
    assert code == 0 and out.startswith(f"{path}: ok: a sound stream of 155 bytes")
    assert err == note + "readers ignore them, as katsuba does\n"
    for verb, consequence in (("decode", "kept in the decoded object, not in the JSON"),
                              ("verify", "readers ignore them, as katsuba does")):
        code, out, err = run(capsys, verb, "kingsisle", "--strict", "-s", TYPES, str(path))
        assert (code, out) == (1, "")
        assert err == f"{note}{consequence} (--strict)\n"
    converted = tmp_path / "deep.bin"
    code, _, err = run(capsys, "convert", "kingsisle", "-s", TYPES, "--strict", str(path),
                       "--to-deep", "-o", str(converted))
    assert (code, err) == (0, "")  # written again: nothing to note
    deep = Serializer(load_schema(TYPES), shallow=False).decode(converted.read_bytes())
    assert deep.trailing == ((None, None, (len(converted.read_bytes()) - 3, b"xyz")))
    path.write_bytes(ITEM)
    assert run(capsys, "verify", "kingsisle", "--strict", "-s", TYPES, str(path))[::2] == (0, "")


def test_the_cli_names_offsets_in_inflated_data(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    body = ITEM + b"!"
    stream = u32(len(body)) + zlib.compress(body, 9) + b"??"
    path = tmp_path / "blob.bin"
    path.write_bytes(stream)
    code, _, err = run(capsys, "decode", "kingsisle", "-s", TYPES, "--manual-compression",
                       str(path))
    assert code == 0 and err.splitlines() == [
        f"gameserde: {path}: 1 byte at byte 152 (0x98) of the inflated data, after the root "
        "object, is not part of it; kept in the decoded object, not in the JSON",
        f"gameserde: {path}: 2 bytes at byte {len(stream) - 2} (0x{len(stream) - 2:x}), "
        "after the zlib data, are not part of it; kept in the decoded object, not in the JSON"]
    code, _, err = run(capsys, "verify", "kingsisle", "--strict", "-s", TYPES,
                       "--manual-compression", str(path))
    assert code == 1 and err == (f"gameserde: {path}: 1 byte at byte 152 (0x98) of the "
                                 "inflated data, after the root object, is not part of it; "
                                 "readers ignore them, as katsuba does (--strict)\n")
