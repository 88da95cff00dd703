"""The real-world FlatBuffers corpus (``../shared/corpus/flatbuffers-real``) against flatc.

The corpus (its README describes it) holds real schemas and buffers: FlatBuffers' own test
files written by seven language runtimes, Apache Arrow IPC messages and footers, TensorFlow
Lite models and ``.bfbs`` files, each with what flatc 25.12.19 and the C++ verifier make of
it, recorded once so that no flatc is needed here. Every case is checked in every run:

* parse: ``load_schema`` accepts the case's schema (and the 91 ``parse_only`` schemas are
  accepted or rejected with flatc's message), with the warnings flatc prints;
* verify: ``verify`` gives the verdict of the C++ verifier flatc generates;
* JSON: ``to_json`` prints flatc's ``--json --strict-json`` text, with ``--defaults-json`` and
  without ``--strict-json``; where flatc fails cleanly, ``to_json`` raises ``DecodeError``;
  where flatc aborts, our text is checked against ``flatc -b`` (the one use of flatc here);
* rebuild: ``from_json`` of flatc's JSON gives flatc's rebuilt bytes (``flatc -b``), and of a
  checked-in JSON document the bytes flatc made from it (or flatc's rejection);
* encode: ``encode`` of flatc's JSON as Python values gives the same bytes;
* decode: ``decode`` agrees with flatc's JSON value for value (enum names, union types, float
  precision), with and without defaults, and the C decoder with the pure-Python one;
* damaged: on the corpus's invalid and truncated buffers, and on every other buffer up to
  1 MiB cut short at twelve points, ``verify``, ``decode`` and ``to_json`` raise nothing but
  ``DecodeError``, and whatever verifies decodes.

Every case runs in full, the 2.4 MB face landmark model (30 MB of JSON) included: the file
costs about 25 s of CPU, 10 s of it for that model (mostly ``from_json``). The corpus lives
beside the project (``../shared``); without it these tests are skipped, or fail when
``CI=true``.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import math
import os
import pickle
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.flatbuffers import FbsSchema, FbsSchemaError, _accel, load_schema
from gameserde.schema.model import (
    Bool,
    Enum,
    Float,
    Int,
    List,
    Named,
    Optional,
    Record,
    String,
    Union,
)
from gameserde.schema.model import Type as ModelType
from tests.conformance.corpus import case_names, corpus_dir, require
from tests.flatbuffers.flatc_tool import flatc

CORPUS = corpus_dir("flatbuffers-real")
CASES = [name for name in case_names(CORPUS) if name != "parse_only"]


@pytest.fixture(autouse=True)
def _corpus_present() -> None:
    require(CORPUS, "FlatBuffers")


class Case:
    """One corpus folder: its ``meta.json`` and its files (gunzipped when stored ``.gz``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dir = CORPUS / name
        self.meta: dict[str, Any] = json.loads((self.dir / "meta.json").read_text())
        self.root_type: str = self.meta["root_type"]
        self.size_prefixed: bool = self.meta["size_prefixed"]

    def read(self, key: str) -> bytes | None:
        """The file ``meta[key]`` names, or None when the corpus has none."""
        stored = self.meta.get(key)
        if not stored:
            return None
        data = (self.dir / stored).read_bytes()
        return gzip.decompress(data) if stored.endswith(".gz") else data

    @functools.cached_property
    def schema(self) -> FbsSchema:
        return load_schema(self.dir / self.meta["schema"],
                           [self.dir / p for p in self.meta["include_paths"]])

    @functools.cached_property
    def buf(self) -> bytes | None:
        return self.read("buf")

    @property
    def opts(self) -> dict[str, Any]:
        return {"root_type": self.root_type, "size_prefixed": self.size_prefixed}


@functools.cache
def case(name: str) -> Case:
    return Case(name)


def cases(predicate: Any = None) -> list[str]:
    """The names of the cases for which ``predicate(case)`` holds."""
    return [n for n in CASES if predicate is None or predicate(case(n))] or ["(no corpus)"]


def as_flatc_prints(messages: Iterator[str] | tuple[str, ...], folder: Path) -> list[str]:
    """Messages with the case folder's absolute path taken off, as the corpus records them
    (flatc names files by their real path; the corpus keeps them relative to the case)."""
    prefix = os.path.realpath(folder) + os.sep
    return [m.replace(prefix, "") for m in messages]


# ---------------------------------------------------------------------------------------------
# parse


@pytest.mark.parametrize("name", cases())
def test_parse_and_warnings(name: str) -> None:
    c = case(name)
    assert c.meta["flatc_parse"]["rc"] == 0
    assert as_flatc_prints(c.schema.warnings, c.dir) == c.meta["flatc_warnings"]


def _parse_only() -> list[dict[str, Any]]:
    meta = CORPUS / "parse_only" / "meta.json"
    if not meta.is_file():
        return [{"file": "(no corpus)"}]
    entries: list[dict[str, Any]] = json.loads(meta.read_text())["entries"]
    return entries


@pytest.mark.parametrize("name", [e["file"] for e in _parse_only()])
def test_parse_only_schemas(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = next(e for e in _parse_only() if e["file"] == name)
    folder = CORPUS / "parse_only"
    monkeypatch.chdir(folder)  # flatc ran there, with these relative paths
    try:
        warnings = load_schema(Path(entry["file"]), entry["include_paths"]).warnings
    except FbsSchemaError as exc:
        assert entry["flatc_b_rc"] != 0, f"flatc -b accepts it: {exc}"
        assert as_flatc_prints((*exc.messages, str(exc)), folder) == entry["flatc_b_errors"]
    else:
        assert entry["flatc_b_rc"] == 0, f"flatc -b rejects it: {entry['flatc_b_errors']}"
        assert as_flatc_prints(warnings, folder) == entry["flatc_warnings"]


# ---------------------------------------------------------------------------------------------
# verify


@pytest.mark.parametrize("name", cases(lambda c: c.buf is not None))
def test_verify_as_the_cpp_verifier(name: str) -> None:
    c = case(name)
    assert c.buf is not None
    if c.meta["cpp_verifier"]["ok"]:
        c.schema.verify(c.buf, **c.opts)
    else:
        with pytest.raises(DecodeError):
            c.schema.verify(c.buf, **c.opts)


# ---------------------------------------------------------------------------------------------
# JSON out

JSON_MODES: dict[str, tuple[str, dict[str, Any]]] = {  # mode: (meta key, to_json options)
    "strict": ("flatc_json", {}),
    "defaults": ("flatc_defaults_json", {"defaults": True}),
    "nonstrict": ("flatc_nonstrict_json", {"strict": False}),
}


def _json_cases() -> list[tuple[str, str]]:
    out = []
    for mode, (key, _) in JSON_MODES.items():
        for n in cases(lambda c, key=key: c.meta.get(key) or c.meta.get(key + "_error")):
            out.append((n, mode))
    return out


def _check_where_flatc_aborts(c: Any, options: dict[str, Any]) -> None:
    """flatc aborts printing this buffer (an assertion in its JSON printer), so there is no
    text to compare with: we refuse it too, or print text that flatc reads (``flatc -b``) into
    the bytes ``from_json`` makes of it. (For vector64 fields those bytes do not read back to
    the same values: flatc's builder misplaces them, and ``from_json`` matches flatc.)"""
    try:
        text = c.schema.to_json(c.buf, **c.opts, **options)
    except DecodeError:
        return
    ours = c.schema.from_json(text, **c.opts)
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "doc.json"
        doc.write_text(text)
        schema = c.dir / c.meta["schema"]
        includes = [a for p in c.meta.get("include_paths", []) for a in ("-I", str(c.dir / p))]
        if c.meta["size_prefixed"]:
            includes.append("--size-prefixed")
        subprocess.run([flatc(), "-b", *includes, "-o", tmp, "--root-type",
                        c.meta["root_type"], str(schema), str(doc)], check=True,
                       capture_output=True)
        assert (Path(tmp) / "doc.bin").read_bytes() == ours


@pytest.mark.parametrize(("name", "mode"), _json_cases())
def test_to_json_as_flatc(name: str, mode: str) -> None:
    c = case(name)
    key, options = JSON_MODES[mode]
    assert c.buf is not None
    expected = c.read(key)
    if expected is None:
        failure = c.meta[key + "_error"]
        if failure["rc"] != 1:
            _check_where_flatc_aborts(c, options)
            return
        with pytest.raises(DecodeError):
            c.schema.to_json(c.buf, **c.opts, **options)
        return
    assert c.schema.to_json(c.buf, **c.opts, **options) == expected.decode("utf-8")


# ---------------------------------------------------------------------------------------------
# JSON in, encode


@pytest.mark.parametrize("name", cases(lambda c: c.meta.get("flatc_rebuilt")
                                        or c.meta.get("flatc_rebuilt_error")))
def test_from_json_rebuilds_as_flatc(name: str) -> None:
    c = case(name)
    text = c.read("flatc_json")
    assert text is not None
    rebuilt = c.read("flatc_rebuilt")
    if rebuilt is None:  # flatc -b rejects its own JSON (a required field is missing)
        with pytest.raises(EncodeError, match="required field is missing"):
            c.schema.from_json(text, **c.opts)
        return
    assert c.schema.from_json(text, **c.opts) == rebuilt


@pytest.mark.parametrize("name", cases(lambda c: c.meta.get("source_json")))
def test_from_json_of_checked_in_json(name: str) -> None:
    c = case(name)
    text = (c.dir / c.meta["source_json"]).read_bytes()
    if c.meta.get("source_json_flatc_error"):
        with pytest.raises(EncodeError):
            c.schema.from_json(text, **c.opts)
        return
    assert c.schema.from_json(text, **c.opts) == c.buf


_BARE_FLOAT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?)\b(nan|inf)\b')


def python_value(flatc_json: bytes) -> Any:
    """flatc's strict JSON as Python values (flatc writes ``nan``/``inf`` bare)."""
    def fix(m: re.Match[str]) -> str:
        if m.group(2) is None:
            return m.group()
        return "NaN" if m.group(2) == "nan" else m.group(1) + "Infinity"
    text = flatc_json.decode("utf-8")
    if b"nan" in flatc_json or b"inf" in flatc_json:
        text = _BARE_FLOAT.sub(fix, text)
    return json.loads(text)


@contextlib.contextmanager
def pure_python() -> Iterator[None]:
    """The pure-Python reference instead of the C accelerators (where they are built)."""
    saved = _accel.ENABLED
    _accel.ENABLED = False
    try:
        yield
    finally:
        _accel.ENABLED = saved


@pytest.mark.parametrize("name", cases(lambda c: c.meta.get("flatc_rebuilt")))
def test_encode_values_as_flatc(name: str) -> None:
    c = case(name)
    text = c.read("flatc_json")
    assert text is not None
    value = python_value(text)
    expected = c.read("flatc_rebuilt")
    assert c.schema.encode(value, **c.opts) == expected
    with pure_python():
        assert c.schema.encode(value, **c.opts) == expected


# ---------------------------------------------------------------------------------------------
# decode


def agree(schema: FbsSchema, t: ModelType | Named, ours: Any, flatc: Any, path: str,
          attrs: Any = None) -> None:
    """Assert that ``ours`` (from ``decode``) is the value flatc printed as ``flatc``."""
    attrs = attrs or {}
    if isinstance(t, Optional):
        t = t.inner
    r = schema.resolve(t)
    if flatc is None:  # an absent optional scalar, printed by --defaults-json
        assert ours is None and isinstance(t, Int | Float | Bool), path
    elif attrs.get("flatbuffers.nested_root") and isinstance(flatc, dict):
        agree(schema, schema.record(attrs["flatbuffers.nested_root"]), ours, flatc, path)
    elif attrs.get("flexbuffer"):
        assert ours == flatc, path
    elif isinstance(r, Record):
        assert isinstance(ours, dict) and isinstance(flatc, dict), path
        assert list(ours) == list(flatc), path
        for f in r.fields:
            if f.name not in flatc:
                continue
            union = f.attributes.get("flatbuffers.union")
            if union is not None:  # a _type field (or vector): names in flatc's JSON
                agree_union_tags(schema.union(union), ours[f.name], flatc[f.name],
                                 f"{path}.{f.name}")
                continue
            sibling = f.attributes.get("flatbuffers.union_type_field")
            if sibling is not None:
                member = schema.resolve(_elem(f.type))
                assert isinstance(member, Union)
                agree_union_values(schema, member, ours[sibling], ours[f.name], flatc[f.name],
                                   f"{path}.{f.name}")
                continue
            agree(schema, f.type, ours[f.name], flatc[f.name], f"{path}.{f.name}",
                  f.attributes)
    elif isinstance(r, List):
        ours_list = list(ours) if isinstance(ours, bytes | bytearray) else ours
        assert isinstance(ours_list, list) and isinstance(flatc, list), path
        assert len(ours_list) == len(flatc), path
        if ours_list == flatc and isinstance(r.element, Int | Float | String):
            return  # plain scalars, equal as they are (a fast path for large vectors)
        for i, (a, b) in enumerate(zip(ours_list, flatc, strict=True)):
            agree(schema, r.element, a, b, f"{path}[{i}]")
    elif isinstance(r, Enum):
        assert ours == enum_value(r, flatc), path
    elif isinstance(r, Float):
        assert isinstance(ours, float) and isinstance(flatc, int | float), path
        if math.isnan(ours) or math.isinf(ours):
            assert repr(ours) == repr(float(flatc)), path
        else:  # flatc prints 6 (float) or 12 (double) decimals, shortest form
            tolerance = 5e-7 if r.bits == 32 else 5e-13
            assert math.isclose(ours, flatc, rel_tol=tolerance, abs_tol=tolerance), path
    else:
        assert isinstance(r, Int | Bool | String), path
        assert ours == flatc and type(ours) is type(flatc), path


def _elem(t: ModelType) -> ModelType:
    return t.element if isinstance(t, List) else t


def enum_value(e: Enum, flatc: Any) -> int:
    """The integer flatc printed as an enum name, space-separated flag names, or a number."""
    if isinstance(flatc, int):
        return flatc
    value = 0
    for word in flatc.split(" "):
        value |= e.values[word]
    return value


def agree_union_tags(u: Union, ours: Any, flatc: Any, path: str) -> None:
    def tag(name: Any) -> int:
        if isinstance(name, int):
            return name
        return 0 if name == u.attributes.get("flatbuffers.none", "NONE") else u.members[name][0]
    if isinstance(flatc, list):
        assert list(ours) == [tag(x) for x in flatc], path
    else:
        assert ours == tag(flatc), path


def agree_union_values(schema: FbsSchema, u: Union, tags: Any, ours: Any, flatc: Any,
                       path: str) -> None:
    if isinstance(flatc, list):
        assert len(ours) == len(flatc) == len(tags), path
        for i, (tag, a, b) in enumerate(zip(tags, ours, flatc, strict=True)):
            agree_union_values(schema, u, tag, a, b, f"{path}[{i}]")
        return
    member = u.member_of(tags)
    assert member is not None, path
    agree(schema, member[1], ours, flatc, f"{path}<{member[0]}>")


@pytest.mark.parametrize("name", cases(lambda c: c.meta.get("flatc_json")))
def test_decode_agrees_with_flatc_json(name: str) -> None:
    c = case(name)
    assert c.buf is not None
    for key, defaults in (("flatc_json", False), ("flatc_defaults_json", True)):
        text = c.read(key)
        if text is None:
            continue
        ours = c.schema.decode(c.buf, **c.opts, defaults=defaults)
        with pure_python():
            reference = c.schema.decode(c.buf, **c.opts, defaults=defaults)
        assert pickle.dumps(ours) == pickle.dumps(reference)  # NaNs compare equal here
        agree(c.schema, c.schema.record(c.schema.qualify(c.root_type)), ours,
              python_value(text), "$")


# ---------------------------------------------------------------------------------------------
# damaged buffers


def _cuts(size: int) -> list[int]:
    """Where a valid buffer is cut short: the ends of its first bytes, then fractions."""
    points = {0, 1, 4, 7, 8, 12, size // 4, size // 3, size // 2, size * 3 // 4,
              size - 8, size - 1}
    return sorted(p for p in points if 0 <= p < size)


def _damaged(c: Case) -> Iterator[bytes]:
    assert c.buf is not None
    if c.meta.get("invalid"):
        yield c.buf
    else:
        for cut in _cuts(len(c.buf)):
            yield c.buf[:cut]


@pytest.mark.parametrize("name", cases(lambda c: c.buf is not None
                                        and (c.meta.get("invalid") or len(c.buf) <= 1 << 20)))
def test_damaged_buffers_raise_decode_errors_only(name: str) -> None:
    c = case(name)
    check_damaged(c)
    with pure_python():
        check_damaged(c)


def check_damaged(c: Case) -> None:
    for data in _damaged(c):
        try:
            c.schema.verify(data, **c.opts)
        except DecodeError:
            verified = False
        else:
            verified = True
        try:
            c.schema.decode(data, **c.opts)
        except DecodeError:
            assert not verified, "decode fails on a buffer that verifies"
        with contextlib.suppress(DecodeError):  # flatc cannot print every buffer that
            c.schema.to_json(data, **c.opts)      # verifies either (unknown union types)
