"""The C tokenizer of ``.fbs`` schemas (``_fbs_lexer_speedups``) against the reference lexer.

Every token the parser can observe (class, text, positions, line, documentation comments,
``trivial_ascii``) and every error (message and position) must be the reference's, on
generated schemas, the real-world corpus's schemas when ``../shared/corpus`` is there, and
mutations of them; and ``load_schema`` must give the same schema or the same error either
way. CI (``CI=true``) builds the extension; elsewhere the module is skipped without it.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.flatbuffers import _accel, load_schema
from gameserde.flatbuffers._fbs_lexer import TOKEN_EOF, Lexer, LexError, new_lexer
from tests.flatbuffers import fbs_gen

pytestmark = pytest.mark.skipif(_accel.lexer is None and os.environ.get("CI") != "true",
                                reason="the C tokenizer is not built (no compiler?)")

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "flatbuffers-real"


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def test_extension_is_loaded() -> None:
    assert _accel.lexer is not None and _accel.lexer.API_VERSION == _accel.API_VERSION
    assert type(new_lexer("")) is not Lexer
    _accel.ENABLED = False
    assert type(new_lexer("")) is Lexer


def tokens(lexer: Lexer) -> list[Any]:
    """Everything the parser may read after each token, up to the end or the error."""
    out: list[Any] = []
    while True:
        try:
            lexer.next()
        except LexError as exc:
            out.append(("error", exc.message, lexer.cursor, lexer.line, lexer.line_start))
            return out
        out.append((lexer.token, lexer.attribute, lexer.cursor, lexer.prev_cursor, lexer.line,
                    lexer.line_start, lexer.column, tuple(lexer.doc_comment),
                    lexer.trivial_ascii))
        if lexer.token == TOKEN_EOF:
            return out


def check(text: str) -> None:
    want = tokens(Lexer(text))
    accelerated = new_lexer(text)
    assert type(accelerated) is not Lexer
    assert tokens(accelerated) == want, repr(text)


_PIECES = ["/*", "*/", "//", "///", "\n", "\r", '"', "'", "\0", "\t", "/", "*", "\u00e9",
           "\\", "/*/", "*/*", "\n/// doc\n", "0x1F", "-1.5e3", "+inf", "-nan", ".", "..",
           "\"\\u00e9\"", "'a'", "\"\\ud800\"", "\xff", "\xef\xbb\xbf", "=", "{", "}", "12",
           "1.", "0x1p3", "a.b", "_x9"]


def _mutants(rnd: random.Random, text: str, count: int) -> Iterator[str]:
    for _ in range(count):
        i = rnd.randrange(len(text) + 1)
        j = min(len(text), i + rnd.randrange(1, 40))
        r = rnd.random()
        if r < 0.3:
            yield text[:i]
        elif r < 0.6:
            yield text[:i] + text[j:]
        else:
            yield text[:i] + rnd.choice(_PIECES) + text[i:]


def _sources() -> list[str]:
    rnd = random.Random(1)
    sources = [fbs_gen.random_schema(rnd)[0] for _ in range(60)]
    if CORPUS.is_dir():
        sources += [p.read_bytes().decode("latin-1") for p in sorted(CORPUS.rglob("*.fbs"))
                    if p.stat().st_size < 20_000][:60]
    return sources


def test_same_tokens_as_the_reference() -> None:
    rnd = random.Random(2)
    for text in _sources():
        check(text)
        for mutant in _mutants(rnd, text, 12):
            check(mutant)


@pytest.mark.parametrize("text", [
    "", "\xef\xbb\xbftable", "/// doc\n///x\ntable T {}", "table /// doc", "a /* x\ny\n*/ b",
    "/* open\n\n", "/", "a\r\nb\rc", "\"str\" 'x' \"\\x41\\n\"", "1 -2 +3.5 0x10 .5 1e-3",
    "@", "\x7f", "\xe9", "a.b.c", "// end", "///", "x\0y", "- inf", "-inf", "+nan",
])
def test_edge_cases(text: str) -> None:
    check(text)


def test_non_latin1_source_uses_the_reference() -> None:
    # the parser always decodes schemas as latin-1; other text takes the reference's next()
    check("table \u4e2d { a:int; }")


def test_load_schema_both_ways() -> None:
    rnd = random.Random(3)
    for text in _sources()[:40]:
        for mutant in (text, *_mutants(rnd, text, 3)):
            outcomes = []
            for enabled in (True, False):
                _accel.ENABLED = enabled
                try:
                    outcomes.append(repr(load_schema(mutant).schema))
                except Exception as exc:  # the same error either way
                    outcomes.append(f"{type(exc).__name__}: {exc}")
            assert outcomes[0] == outcomes[1], repr(mutant)
