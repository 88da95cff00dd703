"""flatc's JSON dialect -> Python values (dicts in document order, lists, str, None).

Keys may be unquoted identifiers; trailing commas are accepted unless ``strict``. Bare tokens
(numbers, ``true``/``false``, ``nan``/``inf``, enum names) are returned as ``str``: the encoder
converts them according to the field's type, as flatc does. Quoted strings are ``str`` too
(flatc accepts quoted numbers and enum names). String escapes: JSON's plus ``\\xNN``. Errors
raise :class:`~gameserde.errors.DecodeError` with ``line:column`` in the message.
"""

from __future__ import annotations

import re
from typing import Any

from gameserde.errors import DecodeError

__all__ = ["Bare", "parse_json"]


class Bare(str):
    """An unquoted token (number, ``true``, ``nan``, enum name): not a string constant."""

    __slots__ = ()


_WS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r"[A-Za-z0-9_.+\-]+")
_ESCAPES = {'"': b'"', "\\": b"\\", "/": b"/", "b": b"\b", "f": b"\f", "n": b"\n",
            "r": b"\r", "t": b"\t"}
_MAX_DEPTH = 64


class _Parser:
    def __init__(self, text: str, strict: bool, allow_non_utf8: bool) -> None:
        self.s = text
        self.i = 0
        self.strict = strict
        self.allow_non_utf8 = allow_non_utf8

    def error(self, message: str, at: int | None = None) -> DecodeError:
        pos = self.i if at is None else at
        line = self.s.count("\n", 0, pos) + 1
        col = pos - (self.s.rfind("\n", 0, pos) + 1) + 1
        return DecodeError(f"{line}:{col}: {message}", offset=pos, format="flatbuffers json")

    def ws(self) -> None:
        m = _WS.match(self.s, self.i)
        if m:
            self.i = m.end()

    def peek(self) -> str:
        self.ws()
        return self.s[self.i:self.i + 1]

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            got = self.s[self.i:self.i + 1] or "end of file"
            raise self.error(f"expecting: {ch} instead got: {got}")
        self.i += 1

    def value(self, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise self.error(f"maximum parsing depth {_MAX_DEPTH} reached")
        c = self.peek()
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        m = _TOKEN.match(self.s, self.i)
        if not m:
            got = c or "end of file"
            raise self.error(f"cannot parse value starting with: {got}")
        self.i = m.end()
        tok = m.group()
        if tok == "null":
            return None
        return Bare(tok)

    def obj(self, depth: int) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            c = self.peek()
            if c == "}":
                if out and self.strict:
                    raise self.error("unexpected trailing comma (strict JSON)")
                self.i += 1
                return out
            at = self.i
            if c == '"':
                key = self.string()
                if not isinstance(key, str):
                    raise self.error("invalid key", at)
            else:
                if self.strict:
                    raise self.error("expecting a quoted key (strict JSON)")
                m = _IDENT.match(self.s, self.i)
                if not m:
                    raise self.error(f"expecting: identifier instead got: {c or 'end of file'}")
                key = m.group()
                self.i = m.end()
            self.expect(":")
            val = self.value(depth)
            if key in out:
                raise self.error(f"field set more than once: {key}", at)
            out[key] = val
            c = self.peek()
            if c == ",":
                self.i += 1
                continue
            if c == "}":
                self.i += 1
                return out
            raise self.error(f"expecting: }} instead got: {c or 'end of file'}")

    def arr(self, depth: int) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            c = self.peek()
            if c == "]":
                if out and self.strict:
                    raise self.error("unexpected trailing comma (strict JSON)")
                self.i += 1
                return out
            out.append(self.value(depth))
            c = self.peek()
            if c == ",":
                self.i += 1
                continue
            if c == "]":
                self.i += 1
                return out
            raise self.error(f"expecting: ] instead got: {c or 'end of file'}")

    def string(self) -> str | bytes:
        s = self.s
        start = self.i
        i = start + 1
        buf = bytearray()
        n = len(s)
        while True:
            j = i
            while j < n and s[j] != '"' and s[j] != "\\":
                j += 1
            if j > i:
                buf += s[i:j].encode("utf-8", "surrogateescape")
            if j >= n:
                raise self.error("illegal character in string constant", start)
            if s[j] == '"':
                self.i = j + 1
                break
            esc = s[j + 1:j + 2]
            if esc in _ESCAPES:
                buf += _ESCAPES[esc]
                i = j + 2
            elif esc == "x":
                h = s[j + 2:j + 4]
                if len(h) != 2 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                    raise self.error("escape code must be followed by 2 hex digits", j)
                buf.append(int(h, 16))
                i = j + 4
            elif esc == "u":
                h = s[j + 2:j + 6]
                if len(h) != 4 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                    raise self.error("escape code must be followed by 4 hex digits", j)
                cp = int(h, 16)
                i = j + 6
                if 0xD800 <= cp < 0xDC00 and s[i:i + 2] == "\\u":
                    h2 = s[i + 2:i + 6]
                    if len(h2) == 4 and all(ch in "0123456789abcdefABCDEF" for ch in h2):
                        lo = int(h2, 16)
                        if 0xDC00 <= lo < 0xE000:
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                            i += 6
                buf += chr(cp).encode("utf-8", "surrogatepass")
            else:
                raise self.error("unknown escape code in string constant", j)
        try:
            return buf.decode("utf-8")
        except UnicodeDecodeError:
            if self.allow_non_utf8:
                return bytes(buf)
            raise self.error("illegal UTF-8 sequence", start) from None


def parse_json(text: str | bytes, *, strict: bool = False,
               allow_non_utf8: bool = False) -> Any:
    """Parse one flatc JSON document (its root value)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    p = _Parser(text, strict, allow_non_utf8)
    if p.peek() != "{":
        raise p.error("expecting: { instead got: " + (p.s[p.i:p.i + 1] or "end of file"))
    value = p.value(0)
    if p.peek():
        raise p.error("unexpected content after the root object")
    return value
