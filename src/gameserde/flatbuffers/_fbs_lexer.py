"""Tokenizer for FlatBuffers ``.fbs`` schemas, with flatc 25.12.19's token rules and positions.

The lexer works on the schema's *bytes* (decoded as latin-1, so one character is one byte):
flatc reports columns as byte offsets from the start of the line, and string constants are
byte strings that are only checked for UTF-8 when they contain escapes or non-ASCII bytes.

Positions follow flatc's ``Parser::Next``: after a token is read, ``cursor`` points just past
it and an error reported at that moment is located at ``line``/``cursor - line_start``.
"""

from __future__ import annotations

import re

from gameserde.flatbuffers import _accel

__all__ = [
    "TOKEN_EOF",
    "TOKEN_FLOAT",
    "TOKEN_IDENT",
    "TOKEN_INTEGER",
    "TOKEN_STRING",
    "LexError",
    "Lexer",
    "new_lexer",
    "token_to_string",
]

TOKEN_EOF = 256
TOKEN_STRING = 257
TOKEN_INTEGER = 258
TOKEN_FLOAT = 259
TOKEN_IDENT = 260

_TOKEN_NAMES = {
    TOKEN_EOF: "end of file",
    TOKEN_STRING: "string constant",
    TOKEN_INTEGER: "integer constant",
    TOKEN_FLOAT: "float constant",
    TOKEN_IDENT: "identifier",
}

_SINGLE = frozenset("{}()[]<>,:;=")
_DIGITS = frozenset("0123456789")
_XDIGITS = frozenset("0123456789abcdefABCDEF")
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_REST = _IDENT_START | _DIGITS
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'",
                   "\\": "\\", "/": "/"}
_BLANKS = re.compile(r"[ \t\r\n]*")
_IDENT_REST_RE = re.compile(r"[A-Za-z0-9_]*")
_LINE_REST = re.compile(r"[^\0\n\r]*")  # a // comment runs to the end of the line
# Sentinels: flatc reads a NUL-terminated buffer and looks up to 4 bytes ahead.
_PAD = "\0\0\0\0\0"


def token_to_string(token: int) -> str:
    """flatc's ``TokenToString``: a single character, or the name of a token class."""
    if token < 256:
        return chr(token)
    return _TOKEN_NAMES[token]


def _end(pattern: re.Pattern[str], src: str, pos: int) -> int:
    """Where ``pattern`` (which matches the empty string) stops matching from ``pos``."""
    m = pattern.match(src, pos)
    assert m is not None
    return m.end()


class LexError(Exception):
    """Raised by the lexer; the parser turns it into a located schema error."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _utf8_ok(raw: str) -> bool:
    try:
        raw.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Lexer:
    """The token stream of one source buffer (latin-1 text, one character per byte)."""

    def __init__(self, text: str, *, allow_non_utf8: bool = False) -> None:
        nul = text.find("\0")
        if nul >= 0:  # flatc parses a C string: a NUL ends the input
            text = text[:nul]
        self.src = text + _PAD
        self.end = len(text)
        self.allow_non_utf8 = allow_non_utf8
        self.cursor = 0
        self.prev_cursor = 0
        self.line = 1
        self.line_start = 0
        self.token = -1
        self.attribute = ""
        self.doc_comment: list[str] = []
        self.trivial_ascii = True

    # -- positions ---------------------------------------------------------------------------

    @property
    def column(self) -> int:
        return self.cursor - self.line_start

    def skip_bom(self) -> None:
        src = self.src
        if src[self.cursor] != "\xef":
            return
        self.cursor += 1
        if src[self.cursor] != "\xbb":
            raise LexError("invalid utf-8 byte order mark")
        self.cursor += 1
        if src[self.cursor] != "\xbf":
            raise LexError("invalid utf-8 byte order mark")
        self.cursor += 1

    # -- the tokenizer -----------------------------------------------------------------------

    def next(self) -> None:
        """Read the next token into ``token``/``attribute`` (flatc ``Parser::Next``)."""
        src = self.src
        self.doc_comment = []
        cursor = self.prev_cursor = self.cursor
        seen_newline = cursor == 0
        self.attribute = ""
        self.trivial_ascii = True
        while True:
            end = _end(_BLANKS, src, cursor)
            if end != cursor:
                newlines = src.count("\n", cursor, end)
                if newlines:
                    self.line += newlines
                    self.line_start = src.rfind("\n", cursor, end) + 1
                    seen_newline = True
                cursor = end
            c = src[cursor]
            cursor += 1
            self.token = ord(c)
            if c in _IDENT_START:
                self.cursor = _end(_IDENT_REST_RE, src, cursor)
                self.attribute = src[cursor - 1:self.cursor]
                self.token = TOKEN_IDENT
                return
            if c in _SINGLE:
                self.cursor = cursor
                return
            if c == "/":
                nxt = src[cursor]
                if nxt == "/":
                    start = cursor + 1
                    cursor = _end(_LINE_REST, src, start)
                    if src[start] == "/":  # documentation comment
                        if not seen_newline:
                            self.cursor = cursor
                            raise LexError(
                                "a documentation comment should be on a line on its own")
                        self.doc_comment.append(src[start + 1:cursor])
                    continue
                if nxt == "*":
                    end = src.find("*/", cursor + 1)
                    stop = self.end if end < 0 or end >= self.end else end
                    newlines = src.count("\n", cursor + 1, stop)
                    if newlines:
                        # flatc marks the new line before stepping over the '\n'
                        self.line += newlines
                        self.line_start = src.rfind("\n", cursor + 1, stop)
                    if stop != end:
                        self.cursor = stop
                        raise LexError("end of file in comment")
                    cursor = end + 2
                    continue
            self.cursor = cursor
            if c == "\0":
                self.cursor -= 1
                self.token = TOKEN_EOF
                return
            if c in "\"'":
                self._string(c)
                return
            self._other(c)
            return

    def _string(self, quote: str) -> None:
        src = self.src
        out: list[str] = []
        high = -1
        while src[self.cursor] != quote:
            ch = src[self.cursor]
            if ch < " ":
                raise LexError("illegal character in string constant")
            if ch == "\\":
                self.trivial_ascii = False
                self.cursor += 1
                esc = src[self.cursor]
                if high != -1 and esc != "u":
                    raise LexError("illegal Unicode sequence (unpaired high surrogate)")
                if esc in _SIMPLE_ESCAPES:
                    out.append(_SIMPLE_ESCAPES[esc])
                    self.cursor += 1
                elif esc == "x":
                    self.cursor += 1
                    out.append(chr(self._hex(2)))
                elif esc == "u":
                    self.cursor += 1
                    val = self._hex(4)
                    if 0xD800 <= val <= 0xDBFF:
                        if high != -1:
                            raise LexError("illegal Unicode sequence (multiple high surrogates)")
                        high = val
                    elif 0xDC00 <= val <= 0xDFFF:
                        if high == -1:
                            raise LexError("illegal Unicode sequence (unpaired low surrogate)")
                        cp = 0x10000 + ((high & 0x3FF) << 10) + (val & 0x3FF)
                        out.append(chr(cp).encode("utf-8").decode("latin-1"))
                        high = -1
                    else:
                        if high != -1:
                            raise LexError("illegal Unicode sequence (unpaired high surrogate)")
                        out.append(chr(val).encode("utf-8").decode("latin-1"))
                else:
                    raise LexError("unknown escape code in string constant")
            else:
                if high != -1:
                    raise LexError("illegal Unicode sequence (unpaired high surrogate)")
                if not " " <= ch <= "~":
                    self.trivial_ascii = False
                out.append(ch)
                self.cursor += 1
        if high != -1:
            raise LexError("illegal Unicode sequence (unpaired high surrogate)")
        self.cursor += 1
        self.attribute = "".join(out)
        if not self.trivial_ascii and not self.allow_non_utf8 and not _utf8_ok(self.attribute):
            raise LexError("illegal UTF-8 sequence")
        self.token = TOKEN_STRING

    def _hex(self, nibbles: int) -> int:
        src = self.src
        for i in range(nibbles):
            if src[self.cursor + i] not in _XDIGITS:
                raise LexError(f"escape code must be followed by {nibbles} hex digits")
        val = int(src[self.cursor:self.cursor + nibbles], 16)
        self.cursor += nibbles
        return val

    def _other(self, c: str) -> None:
        src = self.src
        if c in _IDENT_START:
            start = self.cursor - 1
            while src[self.cursor] in _IDENT_REST:
                self.cursor += 1
            self.attribute = src[start:self.cursor]
            self.token = TOKEN_IDENT
            return
        has_sign = c in "+-"
        if has_sign:
            if (src[self.cursor:self.cursor + 3] == "inf"
                    and src[self.cursor + 3] not in _IDENT_REST):
                self.attribute = src[self.cursor - 1:self.cursor + 3]
                self.token = TOKEN_FLOAT
                self.cursor += 3
                return
            if src[self.cursor] in _IDENT_START:
                return  # a sign before an identifier (-nan, +inf ...): the token is the sign
        dot_lvl = 0 if c == "." else 1
        if not dot_lvl and src[self.cursor] not in _DIGITS:
            return  # a lone '.', as in qualified names
        if c in _DIGITS or has_sign or not dot_lvl:
            start = self.cursor - 1
            start_digits = self.cursor if c not in _DIGITS else self.cursor - 1
            if c not in _DIGITS and src[self.cursor] in _DIGITS:
                start_digits = self.cursor
                c = src[self.cursor]
                self.cursor += 1
            use_hex = bool(dot_lvl) and c == "0" and src[self.cursor] in "xX"
            if use_hex:
                self.cursor += 1
                start_digits = self.cursor
            digits = _XDIGITS if use_hex else _DIGITS
            while True:
                while src[self.cursor] in digits:
                    self.cursor += 1
                if src[self.cursor] != ".":
                    break
                self.cursor += 1
                dot_lvl -= 1
                if dot_lvl < 0:
                    break
            if dot_lvl >= 0 and self.cursor > start_digits:
                if use_hex and not dot_lvl:
                    start_digits = self.cursor
                if (use_hex and src[self.cursor] in "pP") or src[self.cursor] in "eE":
                    dot_lvl = 0
                    self.cursor += 1
                    if src[self.cursor] in "+-":
                        self.cursor += 1
                    start_digits = self.cursor
                    while src[self.cursor] in _DIGITS:
                        self.cursor += 1
                    if src[self.cursor] == ".":
                        self.cursor += 1
                        dot_lvl = -1
            if dot_lvl >= 0 and self.cursor > start_digits:
                self.attribute = src[start:self.cursor]
                self.token = TOKEN_INTEGER if dot_lvl else TOKEN_FLOAT
                return
            raise LexError("invalid number: " + src[start:self.cursor])
        if " " <= c <= "~":
            raise LexError("illegal character: " + c)
        code = ord(c)
        raise LexError(f"illegal character: code: {code - 256 if code >= 128 else code}")


def _accelerated() -> type[Lexer] | None:
    """The reference with ``next`` in C (``_fbs_lexer_speedups``), when it is built."""
    if _accel.lexer is None:
        return None

    class AcceleratedLexer(_accel.lexer.LexerBase, Lexer):  # type: ignore[misc]
        """:class:`Lexer` whose ``next`` runs in C; strings and numbers are still read by the
        reference's ``_string`` and ``_other``, and errors are its :class:`LexError`."""

        error = LexError
        reference_next = Lexer.next

    return AcceleratedLexer


_ACCELERATED = _accelerated()


def new_lexer(text: str) -> Lexer:
    """A :class:`Lexer` of ``text``: the C one when it is built and enabled."""
    if _ACCELERATED is not None and _accel.ENABLED:
        return _ACCELERATED(text)
    return Lexer(text)
