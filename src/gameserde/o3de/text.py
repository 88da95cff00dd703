"""O3DE's JSON text: read as ``JsonSerializationUtils::ReadJsonString`` reads it, written as
``WriteJsonString`` writes it (rapidjson's ``PrettyWriter``).

Values are plain Python: ``None``, ``bool``, ``int`` (JSON integers, within int64 or uint64),
``float`` (JSON numbers with a fraction or an exponent, and integers past 64 bits, made by
rapidjson's own conversion, see ``_numbers``), ``str``, ``list`` and ``dict``. An object whose
text repeats a member name is a :class:`JsonObject`: a ``dict`` of the first value of each
name (what rapidjson's ``FindMember`` finds) that also keeps every member in order in
``pairs`` (what iterating its members sees). :func:`members` gives the members of either kind.

Reading follows rapidjson without ``kParseValidateEncodingFlag``, as both of the engine's
readers call it: ``//`` and ``/* */`` comments where whitespace may stand, no
``NaN``/``Infinity``, a NUL after the document ending it, and bytes that are not UTF-8 copied
into strings as they are (here as the code points U+DC80..U+DCFF, Python's
``surrogateescape``; :func:`write` writes them back as those bytes). The options give each
reader's flags: ``JsonSerializationUtils::ReadJsonString`` (prefabs, materials, passes and
the other ``$type`` documents) is the default, ``kParseCommentsFlag`` with a leading
byte-order mark skipped; the settings registry adds ``trailing_commas``
(``kParseTrailingCommasFlag``) and ``stop_when_done`` (``kParseStopWhenDoneFlag``: anything
after the root value is ignored), and reads its text in place, which skips no byte-order
mark (``skip_bom=False``). Differences, on purpose: nesting deeper than :data:`MAX_DEPTH` is
refused (rapidjson's recursive reader has no limit but the C stack), a ``\\u`` escape of
half a surrogate pair is refused, and a number whose value overflows to infinity is refused
(rapidjson 1.1 returns an infinity that its writer then refuses).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from gameserde._gc import collector_paused
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError
from gameserde.o3de import _accel
from gameserde.o3de._numbers import NumberError, double_text, read_double, read_integer

__all__ = ["MAX_DEPTH", "JsonObject", "members", "parse", "parse_root", "write"]

MAX_DEPTH = 256
"""Arrays and objects nest at most this deep, in text read or written."""

_INT_MIN = -(1 << 63)
_UINT_MAX = (1 << 64) - 1


class JsonObject(dict[str, Any]):
    """A JSON object that repeats a member name.

    As a ``dict`` it maps each name to its **first** value (rapidjson's ``FindMember``);
    ``pairs`` holds every member in document order (rapidjson's member iteration, what
    ``JsonSerialization::Load`` walks, so there the last one wins). :func:`write` writes the
    pairs. Two ``JsonObject`` are equal when their pairs are (in order); a plain ``dict``
    equals one only if the names do not repeat and the members match."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__()
        self.pairs: list[tuple[str, Any]] = list(pairs)
        for name, value in self.pairs:
            self.setdefault(name, value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonObject):
            return self.pairs == other.pairs
        if isinstance(other, dict):
            return len(self.pairs) == len(other) and dict.__eq__(self, other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        """Every member in document order, repeated names included (as
        :class:`~gameserde.o3de.values.JsonPairs` gives them)."""
        return list(self.pairs)

    def __repr__(self) -> str:
        return f"JsonObject({self.pairs!r})"


def members(value: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    """Every member of an object in document order, repeated names included (a ``dict``, a
    :class:`JsonObject`, or another mapping whose ``items()`` gives every member, such as
    :class:`~gameserde.o3de.values.JsonPairs`)."""
    if isinstance(value, JsonObject):
        return value.pairs
    return value.items()


# ---------------------------------------------------------------------------------------------
# Reading

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.S)
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*.*?\*/", re.S)
_TRAILING = re.compile(_STRING + r"|,(?=[ \t\n\r]*[\]}])", re.S)
_TRAILING_BARE = re.compile(r",[ \t\n\r]*[\]}]")
_BRACKETS = re.compile(_STRING + r"|[\[\]{}]", re.S)
_TOKENS = re.compile(_STRING + r"|-?(?:Infinity|NaN)|-?\d[\d.eE+-]*", re.S)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(Exception):
    """A token the hooks of ``json.loads`` refuse; located afterwards."""


def _blank(match: re.Match[str]) -> str:
    text = match.group()
    if text[0] == '"':
        return text
    return re.sub(r"[^\n]", " ", text)


def _drop_comma(match: re.Match[str]) -> str:
    text = match.group()
    return text if text[0] == '"' else " "


def _constant(name: str) -> Any:
    raise _Refused(name)


def _integer(token: str) -> int | float:
    try:
        return read_integer(token)
    except NumberError as e:
        raise _Refused(str(e)) from None


def _double(token: str) -> float:
    try:
        return read_double(token)
    except NumberError as e:
        raise _Refused(str(e)) from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        return JsonObject(pairs)
    return value


def _where(text: str, offset: int, raw: bytes | None) -> tuple[str, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}", _units(text, offset, raw)


def _units(text: str, offset: int, raw: bytes | None) -> int:
    """Character ``offset`` of ``text`` in the input's units (bytes for ``bytes`` input, whose
    bytes that are not UTF-8 stand in the text as U+DC80..U+DCFF)."""
    return len(text[:offset].encode("utf-8", "surrogateescape")) if raw is not None else offset


def _fail(message: str, text: str, offset: int, raw: bytes | None,
          skipped: int) -> DecodeError:
    """A DecodeError at character ``offset`` of ``text`` (which lost ``skipped`` units of
    byte-order mark in front)."""
    where, byte = _where(text, offset, raw)
    return DecodeError(f"{message} at {where}.", offset=byte + skipped, format="o3de")


def _too_deep(text: str) -> int:
    """The offset where nesting first passes :data:`MAX_DEPTH` (the text is known to)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


def _nesting(value: Any) -> int:
    """How deep arrays and objects nest in a parsed value (one level at a time, stopping
    past :data:`MAX_DEPTH`)."""
    depth = 0
    level = [value] if isinstance(value, list | dict) else []
    while level and depth <= MAX_DEPTH:
        depth += 1
        below: list[Any] = []
        for item in level:
            if isinstance(item, JsonObject):
                below += [c for _, c in item.pairs if isinstance(c, list | dict)]
            else:
                values = item if isinstance(item, list) else item.values()
                below += [c for c in values if isinstance(c, list | dict)]
        level = below
    return depth


def _refused_at(text: str) -> tuple[str, int]:
    """The first token the number and constant rules refuse: (reason, offset)."""
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token.lstrip("-")[0] in "IN":
            return f"{token} is not allowed in JSON", match.start()
        try:
            if any(c in token for c in ".eE"):
                read_double(token)
            else:
                read_integer(token)
        except NumberError as e:
            return str(e).capitalize(), match.start()
    return "a value is not allowed", 0


def _lone_surrogate(value: Any, text: str, escaped_only: bool) -> int | None:
    """Where the first string holding half a surrogate pair without its other half starts
    (a ``\\u`` escape of one, which rapidjson refuses, or in a ``str`` the code point
    itself, which UTF-8 cannot hold), if the value holds one. ``escaped_only``: the text was
    read from bytes, where U+DC80..U+DCFF stand for bytes that are not UTF-8 (kept), so only
    escapes count."""
    if not escaped_only and not _holds_surrogate(value):
        return None
    for match in _STRINGS.finditer(text):
        token = match.group()
        if escaped_only:
            if "\\u" not in token or not _SURROGATE_ESCAPE.search(token):
                continue
            token = _SURROGATE.sub("?", token)
        elif "\\u" not in token and not _SURROGATE.search(token):
            continue
        if _SURROGATE.search(json.loads(token)):
            return match.start()
    return None if escaped_only else 0


def _holds_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            for name, member in members(item):
                stack.append(name)
                stack.append(member)
    return False


def parse(text: str | bytes | bytearray | memoryview, *, trailing_commas: bool = False,
          stop_when_done: bool = False, skip_bom: bool = True) -> Any:
    """Read O3DE JSON text (``str``, or ``bytes``) into Python values (see the module
    docstring). The default options are ``JsonSerializationUtils::ReadJsonString``'s;
    ``trailing_commas=True, stop_when_done=True, skip_bom=False`` are the settings
    registry's. Raises :class:`~gameserde.errors.DecodeError` naming the line, the column and
    the offset (bytes for ``bytes`` input, characters for ``str``); ``bytearray`` and
    ``memoryview`` are read as ``bytes``, anything else is a ``TypeError``."""
    return parse_root(text, trailing_commas=trailing_commas, stop_when_done=stop_when_done,
                      skip_bom=skip_bom)[0]


def parse_root(text: str | bytes | bytearray | memoryview, *, trailing_commas: bool = False,
               stop_when_done: bool = False, skip_bom: bool = True) -> tuple[Any, int | None]:
    """:func:`parse`'s value, and the offset (in the input's units) of the first text the
    reader ignores that is not whitespace or a comment: text after the root value with
    ``stop_when_done``, or a NUL and what follows it; None when there is none."""
    if isinstance(text, bytearray | memoryview):
        text = bytes(text)
    elif not isinstance(text, str | bytes):
        raise TypeError(f"parse reads str or bytes, not {type(text).__name__}")
    with collector_paused():
        return _parse(text, trailing_commas, stop_when_done, skip_bom)


_DECODER = json.JSONDecoder(parse_float=_double, parse_int=_integer, parse_constant=_constant,
                            object_pairs_hook=_object)
_SPACE = re.compile(r"[ \t\n\r]*")
_IGNORABLE = re.compile(r"(?:[ \t\n\r]+|//[^\n\x00]*|/\*[^\x00]*?\*/)*")
"""Whitespace and complete comments (rapidjson's comments end at a NUL, as its input does)."""


def _parse(text: str | bytes, trailing_commas: bool, stop_when_done: bool,
           skip_bom: bool) -> tuple[Any, int | None]:
    if _accel.ENABLED:
        served: tuple[Any, int | None] = _accel.parse(text, trailing_commas, stop_when_done,
                                                      skip_bom, JsonObject)
        if served is not _accel.UNSERVED:
            return served
    raw = text if isinstance(text, bytes) else None
    if raw is not None:
        text = raw.decode("utf-8", "surrogateescape")
    assert isinstance(text, str)
    skipped = 0
    if skip_bom and text.startswith("\ufeff"):
        text = text[1:]
        skipped = 3 if raw is not None else 1
    whole = text
    end = text.find("\x00")
    if end >= 0:
        text = text[:end]
    if not text.strip(" \t\n\r"):
        raise _fail("The document is empty", text, len(text), raw, skipped)
    if ("//" in text or "/*" in text) and "/" in _STRINGS.sub('""', text):
        text = _COMMENTS.sub(_blank, text)
    if trailing_commas and _TRAILING_BARE.search(text) \
            and _TRAILING_BARE.search(_STRINGS.sub('""', text)):
        text = _TRAILING.sub(_drop_comma, text)
    value, stop = _decode(text, stop_when_done, raw, skipped)
    if _nesting_checked(text, value) > MAX_DEPTH:
        raise _fail(f"Arrays and objects nest deeper than {MAX_DEPTH} levels", text,
                    _too_deep(text), raw, skipped)
    lone = _SURROGATE.search(whole) if raw is None and not whole.isascii() else None
    if lone is not None or ("\\u" in text and _SURROGATE_ESCAPE.search(text, 0, stop)):
        at = _lone_surrogate(value, text[:stop], raw is not None)
        if at is not None:
            raise _fail("A string holds half a surrogate pair", text, at, raw, skipped)
        if lone is not None:
            raise _fail("The text holds half a surrogate pair (UTF-8 cannot hold it)", whole,
                        lone.start(), raw, skipped)
    rest = _past(_IGNORABLE, whole, stop)
    return value, (_units(whole, rest, raw) + skipped if rest < len(whole) else None)


def _decode(text: str, stop_when_done: bool, raw: bytes | None, skipped: int
            ) -> tuple[Any, int]:
    """The root value of ``text`` (comments blanked) and the offset after it; the rest must be
    whitespace unless ``stop_when_done``."""
    begin = _past(_SPACE, text, 0)
    try:
        with recursion_room(MAX_DEPTH + 64):
            value, stop = _DECODER.raw_decode(text, begin)
    except RecursionError:  # json's C scanner: nesting well past MAX_DEPTH
        raise _fail(f"Arrays and objects nest deeper than {MAX_DEPTH} levels", text,
                    _too_deep(text), raw, skipped) from None
    except json.JSONDecodeError as e:
        message = e.msg[0].upper() + e.msg[1:]
        raise _fail(message, text, e.pos, raw, skipped) from None
    except _Refused:
        reason, offset = _refused_at(text)
        raise _fail(reason, text, offset, raw, skipped) from None
    if not stop_when_done:
        rest = _past(_SPACE, text, stop)
        if rest != len(text):
            raise _fail("Extra data", text, rest, raw, skipped)
    elif type(value) in (int, float):
        # json stops a number before a '.' without digits or an 'e' without an exponent,
        # where rapidjson reports the number cut short
        after, token = text[stop:stop + 1], text[begin:stop]
        if (after == "." and not any(c in token for c in ".eE")) \
                or (after in ("e", "E") and "e" not in token and "E" not in token):
            what = "fraction" if after == "." else "exponent"
            raise _fail(f"The number misses the digits of its {what}", text, stop, raw,
                        skipped)
    return value, stop


def _past(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where ``pattern`` (which matches the empty text too) ends when matched at ``at``."""
    match = pattern.match(text, at)
    assert match is not None
    return match.end()


def _nesting_checked(text: str, value: Any) -> int:
    """How deep the value nests, when the text could nest past :data:`MAX_DEPTH` (else 0)."""
    if text.count("[") + text.count("{") > MAX_DEPTH:
        return _nesting(value)
    return 0


# ---------------------------------------------------------------------------------------------
# Writing

_ESCAPE_FIX = re.compile(r"\\\\|\\u00[01][0-9a-f]")
"""json's ``\\u00xx`` escapes, after any escaped backslashes (which stay as they are)."""
_encode_string = json.encoder.encode_basestring


def _string(text: str) -> str:
    out: str = _encode_string(text)
    if "\\u00" in out:
        out = _ESCAPE_FIX.sub(lambda m: m.group()[:4] + m.group()[4:].upper(), out)
    return out


def _write(value: Any, indent: str, depth: int, out: list[str], path: str) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, int):
        if not _INT_MIN <= value <= _UINT_MAX:
            raise EncodeError(f"the integer {value} fits neither int64 nor uint64.",
                              path=path, format="o3de")
        out.append(str(int(value)))
    elif isinstance(value, float):
        try:
            out.append(double_text(value))
        except ValueError:
            raise EncodeError(f"rapidjson's writer fails on {value!r} (the engine's "
                              f"'Json Writer failed').", path=path, format="o3de") from None
    elif isinstance(value, Mapping):
        _write_object(value, indent, depth, out, path)
    elif isinstance(value, list | tuple):
        _write_array(value, indent, depth, out, path)
    else:
        raise EncodeError(f"{type(value).__name__} is not a JSON value.", path=path,
                          format="o3de")


def _write_array(value: list[Any] | tuple[Any, ...], indent: str, depth: int, out: list[str],
                 path: str) -> None:
    if not value:
        out.append("[]")
        return
    if depth >= MAX_DEPTH:
        raise EncodeError(f"arrays and objects nest deeper than {MAX_DEPTH} levels.",
                          path=path, format="o3de")
    inner = indent + "    "
    out.append("[")
    for n, item in enumerate(value):
        out.append(",\n" + inner if n else "\n" + inner)
        _write(item, inner, depth + 1, out, f"{path}[{n}]")
    out.append("\n" + indent + "]")


def _write_object(value: Mapping[str, Any], indent: str, depth: int, out: list[str],
                  path: str) -> None:
    items = list(members(value))
    if not items:
        out.append("{}")
        return
    if depth >= MAX_DEPTH:
        raise EncodeError(f"arrays and objects nest deeper than {MAX_DEPTH} levels.",
                          path=path, format="o3de")
    inner = indent + "    "
    out.append("{")
    first = True
    for name, item in items:
        if not isinstance(name, str):
            raise EncodeError(f"the member name {name!r} is not a string.", path=path,
                              format="o3de")
        out.append(("\n" if first else ",\n") + inner + _string(name) + ": ")
        first = False
        _write(item, inner, depth + 1, out, f"{path}[{name!r}]")
    out.append("\n" + indent + "}")


def write(value: Any) -> str:
    """The text rapidjson's ``PrettyWriter`` writes for a value: 4-space indentation, one
    member or element per line, ``"name": value``, empty ``{}``/``[]`` inline, doubles in
    rapidjson's Grisu2 form, no final newline. Code points U+DC80..U+DCFF stand for bytes that
    are not UTF-8 (as :func:`parse` reads them): ``write(value).encode("utf-8",
    "surrogateescape")`` gives those bytes back. Raises
    :class:`~gameserde.errors.EncodeError` for NaN, infinities, integers outside int64 and
    uint64, strings with other lone surrogates (or such bytes that would read back as UTF-8
    text), non-JSON values, or nesting past :data:`MAX_DEPTH`."""
    if _accel.ENABLED:
        fast = _accel.write(value, JsonObject)
        if fast is not None:
            return fast
    out: list[str] = []
    with recursion_room(4 * MAX_DEPTH + 64):
        _write(value, "", 0, out, "$")
    text = "".join(out)
    if _SURROGATE.search(text) is not None:
        _check_bytes(text)
    return text


def _check_bytes(text: str) -> None:
    """Surrogates in written text must all stand for bytes that are not UTF-8 (U+DC80..U+DCFF,
    as :func:`parse` reads them), and those bytes must read back as the same code points."""
    try:
        back = text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise EncodeError("a string holds a lone surrogate, which UTF-8 cannot hold.",
                          format="o3de") from None
    if back != text:
        raise EncodeError("a string holds bytes that are not UTF-8 (U+DC80..U+DCFF) but "
                          "together form UTF-8 text, which would read back as other text.",
                          format="o3de")
