"""``from_json`` through the C JSON parser (``_json_speedups``) and the C encoder's JSON rules.

The pure-Python parser and encoder are the reference: for every document the public
:func:`from_json` must give the same bytes, or raise the same error, with the extensions
enabled and disabled. The C parser alone must read a document as the reference does (its
bare tokens typed: decimal integers as ``int``, decimal floats as ``float``, the others as
``Bare``) or give up, and must give up on everything the reference rejects or reads into
anything but dicts, lists, strings and tokens (nulls, ``"$schema"`` keys, conversion
functions). Documents:
random schemas and values in every spelling the generator knows, byte-level and token-level
mutations of them and of flatc's own JSON, and targeted cases for the JSON rules. CI
(``CI=true``) builds the extensions; elsewhere the module is skipped without them.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError
from gameserde.flatbuffers import _accel, _encoder_program, load_schema
from gameserde.flatbuffers._encode_plans import _MISSING
from gameserde.flatbuffers._json_parse import Bare, Escaped, parse_json
from gameserde.flatbuffers.encoder import _root
from gameserde.flatbuffers.json_input import _from_json_accelerated, from_json
from gameserde.flatbuffers.schema import FbsSchema
from tests.flatbuffers import fbs_gen
from tests.flatbuffers.test_reader import SEED_SCHEMA

pytestmark = pytest.mark.skipif(
    (_accel.json is None or _accel.encoder is None) and os.environ.get("CI") != "true",
    reason="the C extensions are not built (no compiler?)")

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "flatbuffers-real"


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def test_extension_is_loaded() -> None:
    assert _accel.json is not None and _accel.encoder is not None
    assert _accel.json.API_VERSION == _accel.API_VERSION


# ---------------------------------------------------------------------------------------------
# The parser alone

_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def typed(value: Any) -> Any:
    """The reference parser's value with bare tokens typed as the C parser types them."""
    if isinstance(value, Bare):
        if _INT.match(value):
            digits = value.lstrip("+-")
            negative_zero = value[0] == "-" and not digits.strip("0")
            return float(value) if negative_zero or len(digits) > 40 else int(value)
        return float(value) if _FLOAT.match(value) else value
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return value


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types everywhere, dict order, float signs and NaNs."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return (a == b or (a != a and b != b)) and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


def check_parse(text: str | bytes, strict: bool = False) -> bool:
    """Assert the C parser agrees with the reference; True when it read the document."""
    try:
        want = typed(parse_json(text, strict=strict))
    except DecodeError:
        want = None
    got = _accel.json.parse(text, strict, Bare, Escaped)
    if got is None:
        return False
    assert want is not None, f"C accepted what the reference rejects: {text!r}"
    assert same(got, want), f"C read differently: {text!r}"
    return True


def test_parser_reads_typical_documents() -> None:
    text = ('\ufeff{ // comment\n a: 1, "b": -2.5e3, c: [true, false, Red, 0x1F, -0, '
            '1., .5, +7, nan, -inf, 1e5, 2E-3], /* block\n */ d: {"e\\u00e9\\ud83d\\ude00\\n'
            '\\x41": "\\"q\\"\\/", \'s\': \'it\\\'s "x"\', t: "\u00e9", u: "a\x7f"}, f: [], g: {},'
            ' h: 123456789012345678901234567890,\n/// doc\n i: "plain",}')
    assert check_parse(text)
    assert check_parse(text.encode())
    got = _accel.json.parse(text, False, Bare, Escaped)
    assert type(got["c"][2]) is Bare and got["c"][2] == "Red"
    assert got["c"][4] == 0.0 and math.copysign(1, got["c"][4]) < 0  # -0 is a float
    assert type(got["i"]) is str and type(got["d"]["t"]) is Escaped
    assert type(got["d"]["u"]) is Escaped and type(got["d"]["s"]) is Escaped
    assert check_parse('{"a": [1, 2], "b": {"c": "d"}}', strict=True)


_GIVE_UPS = [
    "", "[]", "{", "{a: 1,,}", "{a: 1, a: 2}", "{a: null}", "{a: [null]}", "{a: \"null\"}",
    '{"$schema": "x", a: 1}', "{a: rad(1)}", "{a: 0x1p3}", "{a: 0x.8p1}", "{a: 0x}",
    "{a: 1,\f}", "{a: 1 /// doc\n}", '{a: "\x01"}', "{a: 1}\0", "{a:" * 70 + "1" + "}" * 70]


@pytest.mark.parametrize("text", [
    *_GIVE_UPS, "{a: 1", "{a 1}", "{a: }", "{1: 2}", "{a: 1} x", "{a: \"x}", '{a: "\\q"}',
    '{a: "\\x4"}', '{a: "\\u12"}', '{a: "\\ud800"}', '{a: "\\udc00"}', "{a: 1 /* open",
    "{a:\u00a01}", "{a:\x1c1}", "{a: [1,]}", '{"a": 1,}', "{a: 1}", b'{a: "\xff"}',
    '{a: "\\xff"}', "{a: \"\udcff\"}", "{a: @}", "{ /* x */ /x: 1}", "{a: 1.2.3}",
    "{a: 12abc}", "{a: Color.Red}", "{a: 1e}", "{a: -}", "{a: .}", "\ufeff/// doc\n{}",
    "/// doc\n{a: 1}",
])
def test_parser_gives_up_where_it_must(text: str | bytes) -> None:
    strict = text in ("{a: [1,]}", '{"a": 1,}', "{a: 1}")
    check_parse(text, strict=strict)
    if strict or text in _GIVE_UPS:
        assert _accel.json.parse(text, strict, Bare, Escaped) is None


def _documents(count: int, seed: int) -> Iterator[tuple[FbsSchema, str]]:
    rnd = random.Random(seed)
    while count > 0:
        fbs, root = fbs_gen.random_schema(rnd)
        schema = load_schema(fbs)
        for _ in range(4):
            count -= 1
            yield schema, fbs_gen.to_json(rnd, fbs_gen.random_value(rnd, schema, root))


_PIECES = ["{", "}", "[", "]", ",", ":", '"', "\\", "\\u", "\\x", "//", "/*", "*/", "\n", " ",
           "\t", "\x0b", "\x1c", "\u00a0", "\ufeff", "null", "true", "-0", "0x1", "1e5", ".5",
           "1.", "-", "+1", "'", "a", "_", "\0", "\\ud800", "\\udc00", "\\ud83d\\ude00",
           "123456789012345678901234567890", "1e400", "-0.0", "nan", '\\"', "\\/", "\udcff"]


def _mutant(rnd: random.Random, text: str) -> str:
    for _ in range(rnd.randrange(1, 4)):
        i = rnd.randrange(len(text) + 1)
        r = rnd.random()
        if r < 0.45:
            text = text[:i] + rnd.choice(_PIECES) + text[i:]
        elif r < 0.75:
            text = text[:i] + text[i + rnd.randrange(1, 5):]
        else:
            text = text[:i] + chr(rnd.randrange(128)) + text[i + 1:]
    return text


def test_parser_on_generated_and_mutated_documents() -> None:
    rnd = random.Random(7)
    read = total = 0
    for _, text in _documents(400, 11):
        strict = rnd.random() < 0.2
        for doc in (text, _mutant(rnd, text)):
            data: str | bytes = doc
            if rnd.random() < 0.5:
                data = doc.encode("utf-8", "surrogateescape")
            total += 1
            read += check_parse(data, strict)
    assert read > total // 3, (read, total)


# ---------------------------------------------------------------------------------------------
# from_json: C against the reference


def outcome(enabled: bool, schema: FbsSchema, text: str | bytes, **options: Any) -> Any:
    _accel.ENABLED = enabled
    try:
        return from_json(schema, text, **options)
    except Exception as exc:  # any error must be the same either way
        return ("raised", type(exc).__name__, str(exc))
    finally:
        _accel.ENABLED = True


def check(schema: FbsSchema, text: str | bytes, **options: Any) -> bytes | None:
    """Assert both paths agree; return the C path's bytes (None when it gave up)."""
    want = outcome(False, schema, text, **options)
    assert outcome(True, schema, text, **options) == want, f"document: {text!r}"
    direct = _from_json_accelerated(schema, text, options.get("root_type"),
                                    options.get("strict", False),
                                    options.get("file_identifier", _MISSING),
                                    options.get("size_prefixed", False))
    if direct is not None:
        assert direct == want, f"document: {text!r}"
    return direct


_TOKENS = ["true", "false", "null", "nan", "-nan", "inf", "-Infinity", "0x10", "-0x7f", '"5"',
           '"0x10"', '" 5"', '"1.5"', '"nan"', "1.5", "-0", "1e3", "300", "-1", "65536", "2e9",
           '"V0"', "V1", '"V0 V1"', "E1.V0", '""', '"x"', "{}", "[]", "[1]", "[\"a\"]", "T0",
           "F0_1", '"F0_1 F1_2"', "99999999999999999999"]


def _token_mutant(rnd: random.Random, text: str) -> str:
    """``text`` with a few values replaced by odd tokens (flatc-dialect spellings)."""
    spans = [m.span() for m in re.finditer(r'(?<=: )("(?:[^"\\]|\\.)*"|[^,\]\}\s]+)', text)]
    for _ in range(rnd.randrange(1, 3)):
        if not spans:
            break
        a, b = rnd.choice(spans)
        text = text[:a] + rnd.choice(_TOKENS) + text[b:]
        spans = [m.span() for m in re.finditer(r'(?<=: )("(?:[^"\\]|\\.)*"|[^,\]\}\s]+)', text)]
    return text


def test_random_schemas_and_documents() -> None:
    rnd = random.Random(20250611)
    accepted = total = 0
    for schema, text in _documents(600, 5):
        options: dict[str, Any] = {}
        if rnd.random() < 0.2:
            options["size_prefixed"] = True
        if rnd.random() < 0.1:
            options["file_identifier"] = rnd.choice([None, "WXYZ"])
        for doc in (text, _token_mutant(rnd, text), _mutant(rnd, text)):
            total += 1
            accepted += check(schema, doc, **options) is not None
    # many generated features (64-bit offsets, vectors of unions, keys...) need the
    # reference; still, a good part of the documents must go through C
    assert accepted > total // 4, (accepted, total)


JSON_RULES_FBS = """
enum F : ubyte (bit_flags) { A, B, C }
enum E : short { X = -1, Y, Z }
table T { v:int; }
table W { w:int; }
union U { T, W, S: string }
table R {
  a:U; b:U; c:U; i:int; f:float; d:double = 2.5; e:E; fl:F; t:bool; h:uint (hash: "fnv1a_32");
  s:string; l:[long]; es:[E];
}
root_type R;
"""


@pytest.mark.parametrize("text", [
    # a union's tag: the same-union _type field with the highest id parsed before it
    "{a_type: T, a: {v: 1}, b_type: W, b: {w: 2}, c_type: S, c: \"x\"}",
    "{b_type: W, a_type: T, a: {w: 1}}",
    "{c_type: T, a_type: W, a: {v: 1}, c: {v: 2}}",
    "{a: {v: 1}, a_type: T}",
    "{a: {v: 1}, a_type: T, b_type: W, b: {w: 3}}",
    "{a: {v: Y}, a_type: T}",
    "{a: {v: true}, a_type: T}",
    "{a: {v: -inf}, a_type: T}",
    "{a: {v: 0x10}, a_type: T}",
    "{a: \"x\", i: 1, a_type: S}",
    "{a: {v: 1}}",
    "{a_type: NONE, a: {v: 1}}",
    "{a_type: 9, a: {v: 1}}",
    "{a_type: 0, a: null}",
    # text for scalars
    "{i: \"5\", f: \"1.5\", d: \"-Infinity\", e: \"Z\", fl: \"A C\", t: \"true\"}",
    "{i: 0x7fffffff, f: NaN, d: -nan, e: -1, fl: 7, t: 1}",
    "{i: \"0x80000000\"}", "{i: \" 5\"}", "{i: true}", "{i: E.Y}", "{i: 1.0}", "{f: 0x10}",
    "{f: \"0x1p3\"}", "{fl: \"A  B\"}", "{fl: \"A D\"}", "{fl: A}", "{e: \"X Y\"}",
    "{h: \"hello\"}", "{h: hello}", "{h: 5}", "{h: 0x10}", "{h: \"5\"}", "{t: 2}", "{t: yes}",
    "{s: x}", "{s: 5}", "{s: \"x\", $schema: 1}", "{l: [1, \"2\", 0x3, -0x4]}",
    "{es: [X, \"Y\", 1, \"X Z\"]}", "{d: 2.5}", "{d: 1e400}", "{d: -0}", "{f: 3.5e38}",
])
def test_json_rules(text: str) -> None:
    check(load_schema(JSON_RULES_FBS), text)


def test_typical_documents_go_through_c() -> None:
    schema = load_schema(JSON_RULES_FBS)
    for text in ("{a_type: T, a: {v: 1}, b_type: W, b: {w: 2}, c_type: S, c: \"x\"}",
                 "{b_type: W, a_type: T, a: {w: 1}}", "{a: {v: 1}, a_type: T}",
                 "{i: \"5\", f: \"1.5\", d: \"-Infinity\", e: \"Z\", fl: \"A C\", t: true}",
                 "{l: [1, \"2\", 0x3, -0x4], es: [X, \"Y\", 1, \"X Z\"], h: 0x10}"):
        assert check(schema, text) is not None, text
    monster = load_schema(SEED_SCHEMA)
    text = json.dumps({"pos": {"x": 1.0, "y": 2.0, "z": 3.0}, "hp": 300, "name": "Orc",
                       "inventory": list(range(10)), "color": "Red",
                       "weapons": [{"name": "Sword", "damage": 3}],
                       "equipped_type": "Weapon", "equipped": {"name": "Axe", "damage": 5}})
    assert check(monster, text) is not None
    assert check(monster, text, strict=True) is not None


def test_json_rules_program_spec() -> None:
    schema = load_schema(JSON_RULES_FBS)
    plans, plan = _root(schema, None)
    spec = _encoder_program.compile_spec(plans, plan)
    table = spec[0][spec[3]]
    index, fields = table[0], table[2]
    # a, b and c (union U): their tags come from a_type, b_type, c_type by descending id
    ids = [index[name] for name in ("c_type", "b_type", "a_type")]
    for name in ("a", "b", "c"):
        assert fields[index[name]][12] == tuple(ids)
    text_modes = {name: fields[index[name]][13] for name in ("i", "e", "fl", "t", "h", "es")}
    assert text_modes == {"i": _encoder_program.TEXT_INT, "e": _encoder_program.TEXT_ENUM,
                          "fl": _encoder_program.TEXT_ENUM, "t": _encoder_program.TEXT_BOOL,
                          "h": _encoder_program.TEXT_HASH, "es": _encoder_program.TEXT_ENUM}


def test_disabled_switch_and_force_defaults_use_the_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = _accel.json

    class Spy:
        API_VERSION = real.API_VERSION

        @staticmethod
        def parse(*args: Any) -> Any:
            calls.append(args)
            return real.parse(*args)

    monkeypatch.setattr(_accel, "json", Spy)
    schema = load_schema(JSON_RULES_FBS)
    _accel.ENABLED = False
    off = from_json(schema, "{i: 0}")
    assert calls == []
    assert from_json(schema, "{i: 0}", force_defaults=True) != off
    assert calls == []
    _accel.ENABLED = True
    assert from_json(schema, "{i: 0}") == off
    assert len(calls) == 1


# ---------------------------------------------------------------------------------------------
# The real-world corpus (when ../shared/corpus is there): flatc's own JSON, and mutations


def _corpus_cases(max_size: int) -> list[tuple[str, dict[str, Any]]]:
    if not CORPUS.is_dir():
        return []
    cases = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "meta.json").is_file()):
        meta = json.loads((case / "meta.json").read_text())
        if meta.get("flatc_json") and 0 < (meta.get("buf_size") or 0) <= max_size:
            cases.append((case.name, meta))
    return cases


def _read(case: str, name: str) -> bytes:
    data = (CORPUS / case / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def _schema(case: str, meta: dict[str, Any]) -> FbsSchema:
    return load_schema(CORPUS / case / meta["schema"],
                       include_paths=[CORPUS / case / p for p in meta["include_paths"]])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not there")
def test_corpus_documents_and_mutations() -> None:
    rnd = random.Random(3)
    accepted = total = 0
    for case, meta in _corpus_cases(20_000):
        schema = _schema(case, meta)
        options = {"root_type": meta["root_type"], "size_prefixed": meta["size_prefixed"]}
        for name in ("flatc_json", "flatc_nonstrict", "flatc_defaults_json"):
            if not meta.get(name):
                continue
            text = _read(case, meta[name]).decode("utf-8", "surrogateescape")
            total += 1
            accepted += check(schema, text, **options) is not None
            check(schema, _token_mutant(rnd, text), **options)
    assert accepted > total // 2, (accepted, total)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not there")
def test_large_tflite_document_gives_flatc_bytes() -> None:
    # face_landmark.tflite: 30 MB of flatc JSON; flatc -b's bytes, through C
    case = "tflite_mediapipe_face_landmark"
    meta = json.loads((CORPUS / case / "meta.json").read_text())
    schema = _schema(case, meta)
    text = _read(case, meta["flatc_json"])
    want = _read(case, meta["flatc_rebuilt"])
    assert _from_json_accelerated(schema, text, None, False, _MISSING, False) == want
    assert from_json(schema, text) == want


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not there")
def test_tflite_document_both_paths() -> None:
    case = "tflite_trained_lstm"
    meta = json.loads((CORPUS / case / "meta.json").read_text())
    schema = _schema(case, meta)
    text = _read(case, meta["flatc_json"])
    want = _read(case, meta["flatc_rebuilt"])
    assert check(schema, text) == want
