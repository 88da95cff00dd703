"""Strings as Zeze's Java runtime writes and reads them (spec §2.4, §2.5).

Writing: UTF-8 of the UTF-16 string, a lone surrogate as its 3-byte form ``ED xx xx``
(Python's ``surrogatepass``). Reading: ``new String(bytes, UTF_8)``, which never fails and
equals Python's ``'replace'`` except that an encoded surrogate (``ED A0..BF``) becomes a single
U+FFFD that also swallows the continuation byte after it, if there is one.
"""

from __future__ import annotations

import codecs

__all__ = ["decode_java", "encode_java"]

_HANDLER = "gameserde-zeze-java"


def _java_replace(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    data, start = error.object, error.start
    if data[start] == 0xED and start + 1 < len(data) and 0xA0 <= data[start + 1] <= 0xBF:
        end = start + 2
        if end < len(data) and 0x80 <= data[end] <= 0xBF:
            end += 1
        return "\ufffd", end
    return "\ufffd", error.end


codecs.register_error(_HANDLER, _java_replace)


def decode_java(data: bytes | bytearray | memoryview) -> str:
    """The string Java's ``new String(data, UTF_8)`` gives (never fails)."""
    return bytes(data).decode("utf-8", _HANDLER)


def encode_java(text: str) -> bytes:
    """The bytes Zeze's Java ``WriteString`` writes for ``text`` (without the length)."""
    return text.encode("utf-8", "surrogatepass")
