"""flatc's JSON dialect -> Python values (dicts in document order, lists, str, None).

flatc reads JSON with the tokenizer of its schema parser (``idl_parser.cpp``: ``Next``,
``ParseTableDelimiters``, ``ParseSingleValue``), and so does this module:

* white space is space, tab, CR and LF; comments are ``// ...``, ``/* ... */`` and ``///``
  doc comments, which must start a line (a LF before them since the previous token);
* strings are in double or single quotes, with JSON's escapes plus ``\\'`` and ``\\xNN``;
  ``\\u`` surrogates only in pairs; no raw control characters; UTF-8 is checked (bytes are
  returned for a string that is not UTF-8 when ``allow_non_utf8``). A string with an escape
  or a character outside printable ASCII is an :class:`Escaped` (flatc takes only plain
  ASCII strings for scalars);
* keys are strings or identifiers (strings only when ``strict``);
* bare tokens — identifiers (``true``, ``nan``, ``Red``), signed identifiers (``-inf``,
  ``+nan``) and numbers (decimal, hexadecimal, hexadecimal floats with a ``p`` exponent, a
  leading ``+`` or ``-``) — are returned as :class:`Bare`: the encoder converts them
  according to the field's type, as flatc does; an identifier directly followed by ``(`` is
  one of flatc's conversion functions (``rad(180)``), a :class:`Call`; ``null`` is None;
* trailing commas are accepted unless ``strict``; a key given twice is an error unless one of
  the values is null or the key is ``"$schema"``. An object with a repeated key, a
  ``"$schema"`` key, or a null or ``"null"`` value is an :class:`Irregular`: flatc's rules
  for it depend on the fields it is for, so the encoder applies them (a table ignores
  ``"$schema"`` and nulls for fields that are not scalars, reads ``"null"`` as null for a
  scalar and hashes ``null`` for a ``hash`` field).

Errors raise :class:`~gameserde.errors.DecodeError` with ``line:column`` in the message.
"""

from __future__ import annotations

import re
from typing import Any

from gameserde.errors import DecodeError

__all__ = ["Bare", "Call", "Escaped", "Irregular", "parse_json"]


class Bare(str):
    """An unquoted token (number, ``true``, ``nan``, enum name): not a string constant."""

    __slots__ = ()


class Call(Bare):
    """A conversion function applied to a scalar, ``rad(180)``: its text, ``name`` (with the
    sign, if any: flatc then knows no such function) and ``arg`` (a parsed value)."""

    name: str
    arg: Any


class Escaped(str):
    """A string constant with an escape or a character outside printable ASCII."""

    __slots__ = ()


class Irregular(dict[str, Any]):
    """An object with a key given more than once (one of the times as ``null``, or
    ``"$schema"``), a ``"$schema"`` key, or a ``null`` or ``"null"`` value: the dict holds
    each key's first value, ``pairs`` every key and value in document order."""

    pairs: list[tuple[str, Any]]


_SPACE = re.compile(r"(?:[ \t\r\n]+|//[^\n\r]*|/\*.*?\*/)*", re.S)
_SPACE_PIECE = re.compile(r"[ \t\r\n]+|//[^\n\r]*|/\*.*?\*/", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE = re.compile(  # an identifier takes the "(" of a function call with it
    r"[+-]?(?:[A-Za-z_][A-Za-z0-9_]*\(?"
    r"|0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]*[pP][+-]?[0-9]+|[0-9a-fA-F]+(?:[pP][+-]?[0-9]+)?)"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
# the plain part of a string: no quote of either kind, escape or control character
_PLAIN = re.compile(r"[^\"'\\\x00-\x1f]*")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {'"': b'"', "'": b"'", "\\": b"\\", "/": b"/", "b": b"\b", "f": b"\f",
            "n": b"\n", "r": b"\r", "t": b"\t"}
_UNPAIRED_HIGH = "illegal Unicode sequence (unpaired high surrogate)"
_MAX_DEPTH = 64


class _Parser:
    def __init__(self, text: str, strict: bool, allow_non_utf8: bool, bom: bool) -> None:
        self.s = text
        self.i = 0
        self.strict = strict
        self.allow_non_utf8 = allow_non_utf8
        self.bom = bom

    def error(self, message: str, at: int | None = None) -> DecodeError:
        pos = self.i if at is None else at
        if self.s.startswith("/*", pos):  # what stopped the parser is a comment without end
            message = "end of file in comment"
        line = self.s.count("\n", 0, pos) + 1
        col = pos - (self.s.rfind("\n", 0, pos) + 1) + 1
        return DecodeError(f"{line}:{col}: {message}", offset=pos, format="flatbuffers",
                           verb="encode")

    def ws(self) -> None:
        m = _SPACE.match(self.s, self.i)
        if m:
            i, j = self.i, m.end()
            if j > i + 2 and self.s.find("///", i, j) >= 0:
                self._doc_comments(i, j)
            self.i = j

    def _doc_comments(self, i: int, j: int) -> None:
        """flatc: a ``///`` comment must follow a line feed since the previous token (the
        start of the document counts as one, unless there is a byte order mark)."""
        seen_newline = i == 0 and not self.bom
        for m in _SPACE_PIECE.finditer(self.s, i, j):
            piece = m.group()
            if piece.startswith("///"):
                if not seen_newline:
                    raise self.error("a documentation comment should be on a line on its own",
                                     m.start())
            elif not piece.startswith("/") and "\n" in piece:
                seen_newline = True

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
        if c == '"' or c == "'":
            return self.string()
        m = _BARE.match(self.s, self.i)
        if not m:
            got = c or "end of file"
            raise self.error(f"cannot parse value starting with: {got}")
        self.i = m.end()
        tok = m.group()
        if tok[-1] == "(":
            return self.call(tok[:-1], m.start(), depth)
        if tok == "null":
            return None
        return Bare(tok)

    def call(self, name: str, start: int, depth: int) -> Call:
        arg = self.value(depth + 1)
        self.expect(")")
        out = Call(self.s[start:self.i])
        out.name = name
        out.arg = arg
        return out

    def key(self) -> str:
        c = self.s[self.i:self.i + 1]
        at = self.i
        if c == '"' or c == "'":
            key = self.string()
            if not isinstance(key, str):
                raise self.error("invalid key", at)
            return str(key)
        m = _IDENT.match(self.s, self.i)
        if not m:
            raise self.error(f"expecting: string constant instead got: {c or 'end of file'}"
                             if self.strict else
                             f"expecting: identifier instead got: {c or 'end of file'}")
        if self.strict:
            raise self.error("expecting: string constant instead got: identifier")
        self.i = m.end()
        return m.group()

    def obj(self, depth: int) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        pairs: list[tuple[str, Any]] | None = None
        fields = 0  # as flatc counts them for the strict trailing-comma rule
        while True:
            c = self.peek()
            if c == "}" and not (fields and self.strict):
                self.i += 1
                break
            at = self.i
            key = self.key()
            self.expect(":")
            val = self.value(depth)
            if key != "$schema":
                fields += 1
            if key in out and out[key] is not None and val is not None and key != "$schema":
                raise self.error(f"field set more than once: {key}", at)
            if pairs is None and (key in out or key == "$schema" or val is None
                                  or (type(val) is str and val == "null")):
                pairs = list(out.items())
            if pairs is not None:
                pairs.append((key, val))
            out.setdefault(key, val)
            c = self.peek()
            if c == ",":
                self.i += 1
                continue
            if c == "}":
                self.i += 1
                break
            raise self.error(f"expecting: }} instead got: {c or 'end of file'}")
        if pairs is None:
            return out
        irregular = Irregular(out)
        irregular.pairs = pairs
        return irregular

    def arr(self, depth: int) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            c = self.peek()
            if c == "]" and not (out and self.strict):
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
        quote = s[start]
        i = start + 1
        m = _PLAIN.match(s, i)
        j = m.end() if m else i
        if s[j:j + 1] == quote:  # no escape, no control character: the common case
            self.i = j + 1
            text = s[i:j]
            if text.isascii():
                return Escaped(text) if "\x7f" in text else text
            return self._utf8(_encoded(text), start)
        buf = bytearray()
        high = -1  # a pending high surrogate
        while True:
            m = _PLAIN.match(s, i)
            j = m.end() if m else i
            if j > i:
                if high >= 0:
                    raise self.error(_UNPAIRED_HIGH, i)
                buf += _encoded(s[i:j])
            c = s[j:j + 1]
            if c == quote:
                if high >= 0:
                    raise self.error(_UNPAIRED_HIGH, j)
                self.i = j + 1
                return self._utf8(bytes(buf), start)
            if c == '"' or c == "'":  # the other quote
                if high >= 0:
                    raise self.error(_UNPAIRED_HIGH, j)
                buf += c.encode()
                i = j + 1
                continue
            if c != "\\":  # a control character, or the end of the text
                raise self.error("illegal character in string constant", j)
            esc = s[j + 1:j + 2]
            if high >= 0 and esc != "u":
                raise self.error(_UNPAIRED_HIGH, j)
            simple = _ESCAPES.get(esc)
            if simple is not None:
                buf += simple
                i = j + 2
            elif esc == "x":
                buf.append(self._hex(j + 2, 2))
                i = j + 4
            elif esc == "u":
                cp = self._hex(j + 2, 4)
                i = j + 6
                if 0xD800 <= cp <= 0xDBFF:
                    if high >= 0:
                        raise self.error("illegal Unicode sequence (multiple high surrogates)",
                                         j)
                    high = cp
                elif 0xDC00 <= cp <= 0xDFFF:
                    if high < 0:
                        raise self.error("illegal Unicode sequence (unpaired low surrogate)", j)
                    buf += chr(0x10000 + ((high & 0x3FF) << 10) + (cp & 0x3FF)).encode()
                    high = -1
                else:
                    if high >= 0:
                        raise self.error(_UNPAIRED_HIGH, j)
                    buf += chr(cp).encode()
            else:
                raise self.error("unknown escape code in string constant", j)

    def _hex(self, at: int, n: int) -> int:
        digits = self.s[at:at + n]
        if len(digits) != n or not _HEX.issuperset(digits):
            raise self.error(f"escape code must be followed by {n} hex digits", at - 2)
        return int(digits, 16)

    def _utf8(self, data: bytes, start: int) -> str | bytes:
        """A string that is not plain ASCII: checked as UTF-8 (kept as bytes when it is not
        and ``allow_non_utf8``)."""
        try:
            return Escaped(data.decode("utf-8"))
        except UnicodeDecodeError:
            if self.allow_non_utf8:
                return data
            raise self.error("illegal UTF-8 sequence", start) from None


def _encoded(text: str) -> bytes:
    """Document text as the bytes flatc reads (bytes given to :func:`parse_json` come back
    as they were; a str with lone surrogates gives their invalid 3-byte forms)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def parse_json(text: str | bytes, *, strict: bool = False,
               allow_non_utf8: bool = False) -> Any:
    """Parse one flatc JSON document (its root value)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "surrogateescape")
    if "\0" in text:
        raise DecodeError("the document contains a NUL character (flatc: input file appears to "
                          "be binary)", offset=text.index("\0"), format="flatbuffers",
                          verb="encode")
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    p = _Parser(text, strict, allow_non_utf8, bom)
    if p.peek() != "{":
        raise p.error("expecting: { instead got: " + (p.s[p.i:p.i + 1] or "end of file"))
    value = p.value(0)
    if p.peek():
        raise p.error("unexpected content after the root object")
    return value
