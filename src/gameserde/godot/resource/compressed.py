"""``RSCC`` files: a binary resource stream compressed block by block, as the engine's
``FileAccessCompressed`` writes it (``ResourceSaver`` with ``FLAG_COMPRESS``).

Layout, little-endian: ``"RSCC"``, u32 compression mode, u32 block size, u32 size of the
whole uncompressed stream, then one u32 compressed size per block (``size // block_size + 1``
blocks: every block holds ``block_size`` bytes of the stream except the last, which holds the
rest and is empty when the size is a multiple of the block size), the blocks one after the
other, and ``"RSCC"`` again. The stream inside is a binary resource without its leading
``"RSRC"`` magic: it starts at the big-endian flag.

Modes are the engine's ``Compression::Mode``: FastLZ (0, Godot 2's default), deflate (1, zlib
framing), zstd (2, Godot 3 and 4), gzip (3) and brotli (4, read-only in the engine). zstd
comes from :mod:`compression.zstd` (Python 3.14+) or the ``backports.zstd`` package (extra
``zstd``); deflate and gzip from :mod:`zlib`; FastLZ level 1 (every Godot 2 block of the
default size) is inflated here, and written as literal runs only (valid FastLZ, larger than
the engine's). Brotli, and FastLZ level 2 blocks, are refused with a
:class:`~gameserde.errors.DecodeError` naming them.

Decompression bombs: the declared uncompressed size may be at most ``max_ratio`` times the
size of the input (default :data:`DEFAULT_MAX_RATIO`; zstd rarely does better than a few
hundred to one on resource data), checked before anything is inflated, and every block must
inflate to exactly its share of the declared size, never more.
"""

from __future__ import annotations

import struct
import sys
import zlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gameserde import _extras
from gameserde.errors import DecodeError, EncodeError

__all__ = ["DEFAULT_MAX_RATIO", "MAGIC", "MODE_NAMES", "Container", "compress", "decompress",
           "is_compressed"]

MAGIC = b"RSCC"
MODE_FASTLZ, MODE_DEFLATE, MODE_ZSTD, MODE_GZIP, MODE_BROTLI = 0, 1, 2, 3, 4
MODE_NAMES = {MODE_FASTLZ: "FastLZ", MODE_DEFLATE: "deflate", MODE_ZSTD: "zstd",
              MODE_GZIP: "gzip", MODE_BROTLI: "brotli"}
DEFAULT_MAX_RATIO = 1024
"""The largest uncompressed size accepted, as a multiple of the compressed file's size."""
DEFAULT_BLOCK_SIZE = 4096
"""The engine's block size (``FileAccessCompressed::configure``'s default)."""
ZSTD_LEVEL = 3
"""The engine's default zstd level (``compression/formats/zstd/compression_level``)."""

_HEADER = struct.Struct("<4sIII")
_FASTLZ_MIN = 16
_FASTLZ_RUN = 32
_ZLIB_WBITS = {MODE_DEFLATE: 15, MODE_GZIP: 31}


@dataclass(frozen=True)
class Container:
    """What an ``RSCC`` file says of itself: its compression ``mode``, ``block_size``, the
    uncompressed ``size`` and each block's compressed size (``block_sizes``)."""

    mode: int
    block_size: int
    size: int
    block_sizes: tuple[int, ...]


def is_compressed(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` starts with the ``RSCC`` magic."""
    return bytes(data[:4]) == MAGIC


def _fail(message: str, offset: int) -> DecodeError:
    return DecodeError(message, offset=offset, format="godot")


def _zstd() -> ModuleType:
    if sys.version_info >= (3, 14):
        import compression.zstd as zstd_module  # type: ignore[import-not-found,unused-ignore]
        return zstd_module
    return _extras.require("backports.zstd", "a compressed Godot resource (RSCC)")


def decompress(data: bytes | bytearray | memoryview, *,
               max_ratio: int = DEFAULT_MAX_RATIO) -> tuple[bytes, Container]:
    """The uncompressed stream of the ``RSCC`` file ``data`` and its container's layout.

    Raises :class:`~gameserde.errors.DecodeError` for a damaged container, a mode Python
    cannot inflate, a declared size above ``max_ratio`` times ``len(data)``, or a block that
    does not inflate to its declared size.
    """
    buf = memoryview(data).cast("B")
    end = len(buf)
    if end < _HEADER.size:
        raise _fail(f"an RSCC header needs {_HEADER.size} bytes but the file has {end}", 0)
    magic, mode, block_size, size = _HEADER.unpack_from(buf, 0)
    if magic != MAGIC:
        raise _fail("not an RSCC file (it does not start with 'RSCC')", 0)
    if mode not in MODE_NAMES:
        raise _fail(f"unknown compression mode {mode} (the engine knows 0 to 4)", 4)
    if mode == MODE_BROTLI:
        raise _fail(f"the file is compressed with {MODE_NAMES[mode]} (mode {mode}), which "
                    "gameserde cannot decompress (zstd, deflate, gzip and FastLZ level 1 "
                    "only)", 4)
    if block_size == 0:
        raise _fail("the block size is 0", 8)
    if size > max_ratio * end:
        raise _fail(f"the file declares {size} uncompressed bytes, more than {max_ratio} "
                    f"times its {end} bytes (a decompression bomb?); pass a larger "
                    "max_ratio to accept it", 12)
    count = size // block_size + 1
    pos = _HEADER.size
    if count > (end - pos) // 4:
        raise _fail(f"{count} block sizes do not fit in the {end - pos} bytes left", pos)
    sizes = struct.unpack_from(f"<{count}I", buf, pos)
    pos += 4 * count
    if sum(sizes) > end - pos:
        raise _fail(f"the {count} blocks take {sum(sizes)} bytes but only {end - pos} are "
                    "left", pos)
    inflate = _inflater(mode)
    parts: list[bytes] = []
    for i, csize in enumerate(sizes):
        want = block_size if i < count - 1 else size - block_size * (count - 1)
        try:
            out = inflate(buf[pos:pos + csize], want)
        except DecodeError as e:
            raise _fail(f"block {i}: {e.message}", pos) from None
        if len(out) != want:
            raise _fail(f"block {i} inflates to {len(out)} bytes, not the {want} declared",
                        pos)
        parts.append(out)
        pos += csize
    if bytes(buf[pos:]) != MAGIC:
        raise _fail("the blocks are not followed by the closing 'RSCC' and the end of the "
                    "file", pos)
    return b"".join(parts), Container(mode, block_size, size, sizes)


def _fastlz(block: memoryview, want: int) -> bytes:
    """A FastLZ level 1 block (Godot 2's blocks of 4096 bytes are all level 1): a literal run
    (control byte below 32: that many plus one bytes follow) or a match (length in the top
    three bits, plus a byte when they are all set, distance in the low five bits and the next
    byte), token by token; never more than ``want`` bytes come out. The engine compresses a
    block shorter than 16 bytes padded to 16 with zeros, and keeps the first ``want``."""
    if want < _FASTLZ_MIN:
        return _fastlz(block, _FASTLZ_MIN)[:want]
    data = bytes(block)
    end = len(data)
    if not end:
        raise _fail("an empty FastLZ block", 0)
    level = (data[0] >> 5) + 1
    if level != 1:
        raise _fail(f"FastLZ level {level} blocks are not supported (level 1 only)", 0)
    out = bytearray()
    ip = 1
    ctrl = data[0] & 31
    while True:
        if ctrl < 32:
            n = ctrl + 1
            if ip + n > end or len(out) + n > want:
                raise _fail("a FastLZ literal run goes past the block or its declared size", 0)
            out += data[ip:ip + n]
            ip += n
        else:
            n = (ctrl >> 5) - 1
            if n == 6:
                if ip >= end:
                    raise _fail("a FastLZ match is cut short", 0)
                n += data[ip]
                ip += 1
            if ip >= end:
                raise _fail("a FastLZ match is cut short", 0)
            distance = ((ctrl & 31) << 8) + data[ip] + 1
            ip += 1
            n += 3
            start = len(out) - distance
            if start < 0 or len(out) + n > want:
                raise _fail("a FastLZ match reaches before the block or past its declared "
                            "size", 0)
            if distance >= n:
                out += out[start:start + n]
            else:
                pattern = bytes(out[start:])
                out += (pattern * (n // distance + 1))[:n]
        if ip >= end:
            return bytes(out)
        ctrl = data[ip]
        ip += 1


def _fastlz_literal(chunk: bytes) -> bytes:
    """``chunk`` as a valid FastLZ level 1 block made of literal runs only (no matches: the
    engine inflates it as any other; only the size differs from its own compressor's), padded
    to 16 bytes as the engine pads short blocks."""
    chunk = chunk.ljust(_FASTLZ_MIN, b"\0")
    return b"".join(bytes((len(run) - 1,)) + run for run in
                    (chunk[i:i + _FASTLZ_RUN] for i in range(0, len(chunk), _FASTLZ_RUN)))


def _inflater(mode: int) -> Any:
    """``inflate(block, want) -> bytes`` for ``mode``: at most ``want`` bytes (one more when
    the block holds more, so that the caller sees it), or a DecodeError."""
    if mode == MODE_FASTLZ:
        return _fastlz
    if mode == MODE_ZSTD:
        zstd = _zstd()

        def inflate_zstd(block: memoryview, want: int) -> bytes:
            d = zstd.ZstdDecompressor()
            try:
                out: bytes = d.decompress(block, max_length=want + 1)
            except zstd.ZstdError as e:
                raise _fail(f"zstd: {e}", 0) from None
            if not d.eof:
                raise _fail("the zstd frame is truncated or holds more than declared", 0)
            return out

        return inflate_zstd
    wbits = _ZLIB_WBITS[mode]

    def inflate_zlib(block: memoryview, want: int) -> bytes:
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(block, want + 1)
        except zlib.error as e:
            raise _fail(f"{MODE_NAMES[mode]}: {e}", 0) from None
        if not d.eof:
            raise _fail(f"the {MODE_NAMES[mode]} stream is truncated or holds more than "
                        "declared", 0)
        return out

    return inflate_zlib


def compress(stream: bytes, *, mode: int = MODE_ZSTD,
             block_size: int = DEFAULT_BLOCK_SIZE) -> bytes:
    """``stream`` as an ``RSCC`` file in ``mode`` with the engine's block layout and default
    levels (zstd level 3, zlib's default level)."""
    if mode not in (MODE_ZSTD, MODE_DEFLATE, MODE_GZIP, MODE_FASTLZ):
        name = MODE_NAMES.get(mode, f"mode {mode}")
        raise EncodeError(f"cannot write an RSCC file compressed with {name} (zstd, deflate, "
                          "gzip and FastLZ only)", format="godot")
    if not 0 < block_size < 1 << 32:
        raise EncodeError(f"block size {block_size} is not between 1 and 2**32-1",
                          format="godot")
    if len(stream) >= 1 << 32:
        raise EncodeError("an RSCC stream holds at most 4 GiB", format="godot")
    if mode == MODE_ZSTD:
        zstd = _zstd()

        def deflate(chunk: bytes) -> bytes:
            out: bytes = zstd.compress(chunk, level=ZSTD_LEVEL)
            return out
    elif mode == MODE_FASTLZ:
        deflate = _fastlz_literal
    else:
        wbits = _ZLIB_WBITS[mode]

        def deflate(chunk: bytes) -> bytes:
            c = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, wbits)
            return c.compress(chunk) + c.flush()
    count = len(stream) // block_size + 1
    blocks = [deflate(stream[i * block_size:(i + 1) * block_size]) for i in range(count)]
    head = _HEADER.pack(MAGIC, mode, block_size, len(stream))
    sizes = struct.pack(f"<{count}I", *(len(b) for b in blocks))
    return b"".join((head, sizes, *blocks, MAGIC))
