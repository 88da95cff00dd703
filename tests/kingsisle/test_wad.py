"""KIWAD archives (``gameserde.kingsisle.wad``): reading, writing, hostile archives and safe
extraction. katsuba's reading of what we write is in
``tests/conformance/test_kingsisle_wad.py``."""

from __future__ import annotations

import functools
import os
import struct
import warnings
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError, GameserdeWarning, UsageError
from gameserde.kingsisle import open_wad, write_wad
from gameserde.kingsisle.wad import WAD_MAGIC, WAD_MAX_EXPANSION, crc, safe_member_path

ENTRY = struct.Struct("<IIIBII")


def entry(name: bytes, offset: int, size: int, csize: int, compressed: bool,
          checksum: int) -> bytes:
    """One file table entry (``name`` without its NUL)."""
    return ENTRY.pack(offset, size, csize, compressed, checksum, len(name) + 1) + name + b"\0"


def archive(rows: list[tuple[bytes, bytes, bool]], *, version: int = 2,
            count: int | None = None) -> bytes:
    """A hand-made archive of ``(name, stored bytes, compressed)`` rows, data in row order
    (each compressed row's size is what its zlib data inflates to)."""
    header = WAD_MAGIC + struct.pack("<II", version, len(rows) if count is None else count)
    if version >= 2:
        header += b"\0"
    table_size = sum(ENTRY.size + len(n) + 1 for n, _, _ in rows)
    offset = len(header) + table_size
    table = b""
    for name, stored, compressed in rows:
        size = len(zlib.decompress(stored)) if compressed else len(stored)
        table += entry(name, offset, size, len(stored) if compressed else 0xFFFFFFFF,
                       compressed, crc(stored))
        offset += len(stored)
    return header + table + b"".join(s for _, s, _ in rows)


def test_crc_is_kingsisles() -> None:
    assert crc(b"") == 0
    assert crc(b"uncompressed data\n") == 0x65A073D0  # Test.wad's stored member


def test_round_trip_bytes_and_file(tmp_path: Path) -> None:
    members = {"a/b/x.txt": b"does this work?", "test.ogg": b"it does!", "empty": b""}
    data = write_wad(None, members)
    assert isinstance(data, bytes)
    target = tmp_path / "out.wad"
    assert write_wad(target, members) is None
    assert target.read_bytes() == data
    with open_wad(target) as wad:
        assert wad.names() == ["a/b/x.txt", "empty", "test.ogg"]
        assert dict(wad.items()) == members
        assert wad.version == 2 and wad.flags == 0
        assert wad.info("a/b/x.txt").compressed and not wad.info("test.ogg").compressed
        assert wad.info("test.ogg").compressed_size == 0xFFFFFFFF
        assert "empty" in wad and "nope" not in wad and len(wad) == 3
        assert list(wad) == wad.names()
        assert wad.glob("*.txt") == ["a/b/x.txt"] and wad.glob("a/*") == ["a/b/x.txt"]
        assert wad.raw("test.ogg") == b"it does!"
        assert [e.name for e in wad.entries()] == wad.names()
    with pytest.raises(UsageError, match="closed"):
        wad["empty"]
    with open_wad(data) as again:
        assert dict(again.items()) == members


def test_layout_is_the_games() -> None:
    data = write_wad(None, [("b", b"2" * 100), ("a", b"1" * 100)], version=1, flags=None)
    assert data is not None
    assert data[:13] == WAD_MAGIC + struct.pack("<II", 1, 2)
    with open_wad(data) as wad:
        a, b = wad.info("a"), wad.info("b")
        table_end = 13 + 2 * (ENTRY.size + 2)
        assert a.offset == table_end and b.offset == a.offset + a.compressed_size
        assert wad.raw("a") == zlib.compress(b"1" * 100, 9)
        assert b.offset + b.compressed_size == len(data)


def test_compress_rules() -> None:
    members = [("x.mp3", b"m" * 50), ("y.txt", b"t" * 50), ("z.OGG", b"o" * 50)]
    for rule, want in [(None, {"y.txt"}), (True, {"x.mp3", "y.txt", "z.OGG"}), (False, set()),
                       (lambda name, data: name.startswith("x"), {"x.mp3"})]:
        with open_wad(write_wad(None, members, compress=rule) or b"") as wad:
            assert {e.name for e in wad.entries() if e.compressed} == want
            assert dict(wad.items()) == dict(members)


def test_from_a_folder(tmp_path: Path) -> None:
    (tmp_path / "src" / "d" / "e").mkdir(parents=True)
    (tmp_path / "src" / "top.txt").write_bytes(b"top")
    (tmp_path / "src" / "d" / "e" / "deep.bin").write_bytes(b"\0" * 10)
    with open_wad(write_wad(None, tmp_path / "src") or b"") as wad:
        assert dict(wad.items()) == {"d/e/deep.bin": b"\0" * 10, "top.txt": b"top"}
    with pytest.raises(UsageError, match="not a folder"):
        write_wad(None, tmp_path / "missing")


@pytest.mark.parametrize("name", ["", "../x", "/abs", "a\\b", "C:x", "a/./b", "a//b", "a\0b",
                                  "a/.."])
def test_write_refuses_unsafe_names(name: str) -> None:
    with pytest.raises(EncodeError, match="not a member name"):
        write_wad(None, [(name, b"x")])


def test_write_refuses_bad_input() -> None:
    with pytest.raises(EncodeError, match="given twice"):
        write_wad(None, [("a", b"1"), ("a", b"2")])
    with pytest.raises(EncodeError, match="must be bytes"):
        write_wad(None, [("a", "text")])  # type: ignore[list-item]
    with pytest.raises(EncodeError, match="UTF-8"):
        write_wad(None, [("\ud800", b"")])
    with pytest.raises(UsageError, match="no flags byte"):
        write_wad(None, [], version=1, flags=3)
    with pytest.raises(UsageError, match="flags must be a byte"):
        write_wad(None, [], flags=256)


def test_crc_mismatch_refused_or_warned() -> None:
    data = bytearray(archive([(b"a.txt", b"hello", False), (b"z", b"\0\0\0", False)]))
    data[-4] ^= 1  # a.txt's last byte
    with open_wad(bytes(data)) as wad:
        with pytest.raises(DecodeError, match="CRC") as e:
            wad["a.txt"]
        assert e.value.path == '$["a.txt"]' and e.value.offset == wad.info("a.txt").offset
        assert wad["z"] == b"\0\0\0"
    zeroed = bytearray(data)
    zeroed[-3:] = b"\0\0\0"
    struct.pack_into("<I", zeroed, 14 + ENTRY.size + 6 + 13, 12345)  # z's CRC
    with open_wad(bytes(zeroed)) as wad, pytest.raises(DecodeError, match="placeholder"):
        wad["z"]
    with open_wad(bytes(data), check_crc=False) as wad:
        with warnings.catch_warnings(record=True) as noted:
            warnings.simplefilter("always")
            assert wad["a.txt"] == b"helln"
        assert [w.category for w in noted] == [GameserdeWarning]


@functools.cache
def hostile() -> dict[str, tuple[bytes, str]]:
    """Archives that must be refused, when opened or when their member is read: each with a
    piece of the error's message."""
    good = zlib.compress(b"x" * 1000, 9)
    one = archive([(b"m", good, True)])
    cases: dict[str, tuple[bytes, str]] = {
        "empty file": (b"", "header needs 13 bytes"),
        "not a wad": (b"PK\3\4" + b"\0" * 20, "not a KIWAD"),
        "short header": (WAD_MAGIC + b"\2\0", "header needs 13 bytes"),
        "no flags byte": (WAD_MAGIC + struct.pack("<II", 2, 0), "flags byte"),
        "count too large": (archive([], count=0xFFFFFFFF), "hold at most 0 entries"),
        "count past table": (archive([(b"a", b"1", False)], count=2), "hold at most 1 entr"),
        "entry cut short": (archive([(b"a" * 30, b"1" * 5, False)], count=2),
                            "entry needs 21 bytes"),
        "name too long": (one[:14] + ENTRY.pack(0, 0, 0, 0, 0, 1 << 30) + b"m\0",
                          "runs past the end"),
        "name without NUL": (one[:14] + ENTRY.pack(0, 0, 0, 0, 0, 1) + b"m", "NUL"),
        "name not utf-8": (archive([(b"\xff", b"1", False)]), "not UTF-8"),
        "outside the file": (archive([(b"a", b"1", False)])[:-1], "run past the end"),
    }
    overlap = bytearray(archive([(b"a", b"1234", False), (b"b", b"5678", False)]))
    struct.pack_into("<I", overlap, 14 + ENTRY.size + 2, len(overlap) - 6)  # b starts in a
    cases["overlapping"] = (bytes(overlap), "overlaps")
    lying = bytearray(one)
    struct.pack_into("<I", lying, 18, 999)  # says 999, inflates to 1000
    cases["size too small"] = (bytes(lying), "more than the 999 bytes")
    struct.pack_into("<I", lying, 18, 1001)
    cases["size too large"] = (bytes(lying), "inflates to 1000 bytes, not the 1001")
    struct.pack_into("<I", lying, 18, 0xFFFFFFFF)
    cases["bomb by size"] = (bytes(lying), "max_expansion")
    struct.pack_into("<I", lying, 18, 1033 * len(good) + 4096)  # more than zlib can make
    cases["bomb by ratio"] = (bytes(lying), "max_expansion")
    cases["damaged zlib"] = (compressed(b"\1" * 10, 5), "damaged")
    cases["truncated zlib"] = (compressed(good[:-5], 1000), "ends early")
    return cases


def compressed(stored: bytes, size: int) -> bytes:
    """An archive of one member marked compressed, ``stored`` as its zlib data (right CRC),
    said to inflate to ``size`` bytes."""
    data = bytearray(archive([(b"d", stored, False)]))
    data[26] = 1  # the compressed flag
    struct.pack_into("<II", data, 18, size, len(stored))
    return bytes(data)


@pytest.mark.parametrize("case", sorted(hostile()))
def test_hostile_archives(case: str) -> None:
    data, message = hostile()[case]
    with pytest.raises(DecodeError, match=message) as raised, open_wad(data) as wad:
        for name in wad:
            wad[name]
    assert raised.value.offset is not None


def test_bomb_refused_by_a_lower_max_expansion() -> None:
    bomb = zlib.compress(b"\0" * 400_000, 9)  # 400 times: genuine zlib data, read by default
    data = archive([(b"b", bomb, True)])
    for factor in (WAD_MAX_EXPANSION, None):
        with open_wad(data, max_expansion=factor) as wad:
            assert wad["b"] == b"\0" * 400_000
    with open_wad(data, max_expansion=32) as wad, pytest.raises(DecodeError) as e:
        wad["b"]
    assert str(e.value).endswith("the member says it inflates to 400000 bytes for the "
                                 f"{len(bomb)}-byte input (max_expansion=32, limit "
                                 f"{32 * len(bomb) + 4096}); a larger max_expansion allows "
                                 "more (None or inf: no limit)")
    with pytest.raises(UsageError, match="max_expansion"):
        open_wad(data, max_expansion=-1)


def test_duplicate_names_last_wins() -> None:
    data = archive([(b"a", b"first", False), (b"a", b"second", False)])
    with open_wad(data) as wad:
        assert wad.names() == ["a"] and wad["a"] == b"second"


def test_open_refuses_what_is_not_an_archive(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        open_wad(12)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        open_wad(tmp_path / "missing.wad")
    (tmp_path / "empty.wad").write_bytes(b"")
    with pytest.raises(DecodeError, match="13 bytes"):
        open_wad(tmp_path / "empty.wad")
    with pytest.raises(KeyError), open_wad(write_wad(None, []) or b"") as wad:
        wad["nope"]


UNSAFE = ["../escape.txt", "/etc/passwd-x", "a\\..\\..\\b", "C:/x", "d/../../x", "", "n\0ul",
          "a//b", "./a", "d/" + "é" * 128]


@pytest.mark.parametrize("name", UNSAFE)
def test_extraction_never_escapes(tmp_path: Path, name: str) -> None:
    data = archive([(b"ok.txt", b"fine", False), (name.encode(), b"evil", False)])
    out = tmp_path / "deep" / "out"
    with open_wad(data) as wad, pytest.raises(DecodeError, match="refusing") as e:
        wad.extract(out)
    assert safe_member_path(name) is not None
    assert e.value.path.startswith("$[")
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == []  # names are checked before anything is written


def test_extraction_refuses_file_and_folder(tmp_path: Path) -> None:
    data = archive([(b"a", b"1", False), (b"a/b", b"2", False)])
    with open_wad(data) as wad, pytest.raises(DecodeError, match="cannot also be a folder"):
        wad.extract(tmp_path)


def test_extraction_through_a_symlink_refused(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    os.symlink(elsewhere, out / "link")
    data = archive([(b"link/x.txt", b"1", False)])
    with open_wad(data) as wad, pytest.raises(DecodeError, match="is a symbolic link"):
        wad.extract(out)
    assert list(elsewhere.iterdir()) == []


def test_extract_some_and_all(tmp_path: Path) -> None:
    members = {"a/b/c.txt": b"c", "a/d.txt": b"d", "e.mp3": b"e"}
    with open_wad(write_wad(None, members) or b"") as wad:
        assert wad.extract(tmp_path / "some", wad.glob("a/*")) == ["a/b/c.txt", "a/d.txt"]
        assert sorted(p.name for p in (tmp_path / "some").rglob("*.txt")) == ["c.txt", "d.txt"]
        wad.extract(tmp_path / "all")
        for name, data in members.items():
            assert (tmp_path / "all" / name).read_bytes() == data


names = st.lists(st.text(st.characters(blacklist_categories=("Cs",),
                                       blacklist_characters="/\\\0:."), min_size=1,
                         max_size=8), min_size=1, max_size=3).map("/".join)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, st.binary(max_size=300), max_size=8), st.booleans(),
       st.sampled_from([1, 2]))
def test_round_trip_property(members: dict[str, bytes], compress: bool, version: int) -> None:
    data = write_wad(None, members, compress=compress, version=version,
                     flags=0 if version >= 2 else None)
    assert data is not None
    with open_wad(data) as wad:
        assert wad.names() == sorted(members)
        assert dict(wad.items()) == members
        assert write_wad(None, wad.items(), compress=compress, version=version,
                         flags=wad.flags) == data


@pytest.mark.parametrize(("pattern", "matched"), [
    ("*", ["a/b/c.bin", "a/c.txt", "c.bin", "x"]),
    ("**/*.bin", ["a/b/c.bin", "c.bin"]),
    ("*.bin", ["a/b/c.bin", "c.bin"]),  # * crosses folders, as in katsuba
    ("a/**", ["a/b/c.bin", "a/c.txt"]),
    ("a/**/c.*", ["a/b/c.bin", "a/c.txt"]),
    ("?", ["x"]),
    ("{x,c.*}", ["c.bin", "x"]),
    ("[!a]*", ["c.bin", "x"]),
    ("[a-b]/c.txt", ["a/c.txt"]),
])
def test_glob_as_katsuba(pattern: str, matched: list[str]) -> None:
    members = dict.fromkeys(["a/b/c.bin", "a/c.txt", "c.bin", "x"], b"")
    with open_wad(write_wad(None, members) or b"") as wad:
        assert wad.glob(pattern) == matched


@pytest.mark.parametrize("pattern", ["[ab", "{a,b"])
def test_glob_refuses_unclosed(pattern: str) -> None:
    with open_wad(write_wad(None, []) or b"") as wad, pytest.raises(UsageError, match="glob"):
        wad.glob(pattern)


def test_extraction_replaces_a_link_where_a_member_goes(tmp_path: Path) -> None:
    out, secret = tmp_path / "out", tmp_path / "secret.txt"
    out.mkdir()
    secret.write_bytes(b"keep")
    os.symlink(secret, out / "x.txt")
    with open_wad(archive([(b"x.txt", b"new", False)])) as wad:
        wad.extract(out)
    assert secret.read_bytes() == b"keep" and (out / "x.txt").read_bytes() == b"new"
    assert not (out / "x.txt").is_symlink()


def test_extraction_stops_at_a_bad_member(tmp_path: Path) -> None:
    rows = [(b"m%03d" % i, b"x" * i, False) for i in range(100)]
    data = bytearray(archive(rows))
    data[-10] ^= 1  # m099's data
    with open_wad(bytes(data)) as wad:
        with pytest.raises(DecodeError, match="CRC") as e:
            wad.extract(tmp_path / "a")
        assert e.value.path == '$["m099"]'
        assert wad.extract(tmp_path / "b", wad.names()[:99]) == wad.names()[:99]
    assert (tmp_path / "b" / "m098").read_bytes() == b"x" * 98
    assert (tmp_path / "a" / "m098").read_bytes() == b"x" * 98  # those before it, written


def _outcomes(data: bytes) -> list[object]:
    """Each member's bytes, or the message of the error reading it (or opening the archive)."""
    try:
        with open_wad(data, check_crc=False) as archive_:
            found: list[object] = []
            for name in archive_:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", GameserdeWarning)
                        found.append(archive_[name])
                except DecodeError as e:
                    found.append(e.message)
            return found
    except DecodeError as e:
        return [e.message]


def test_libdeflate_and_zlib_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``fast`` extra's libdeflate (installed with the tests) inflates members as zlib
    does: the same bytes, and on damaged, cut or lying members the same errors."""
    from gameserde.kingsisle import wad

    assert wad.libdeflate is not None, "the test environment installs deflate (the fast extra)"
    good = write_wad(None, [(f"m{i}.bin", bytes(range(i % 7, 200)) * (i + 1))
                            for i in range(12)], compress=True)
    cases = [data for data, _ in hostile().values()] + [good]
    for i in range(0, len(good), 11):
        flipped = bytearray(good)
        flipped[i] ^= 0x5A
        cases += [bytes(flipped), good[:i]]
    fast = [_outcomes(data) for data in cases]
    monkeypatch.setattr(wad, "libdeflate", None)
    assert [_outcomes(data) for data in cases] == fast
