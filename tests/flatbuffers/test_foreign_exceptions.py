"""Only gameserde errors: ``encode`` of values of any type (keys that are not strings, sets,
floats for integers, huge integers, NaN, numpy arrays and scalars, wrong nesting ...) returns
bytes or raises :class:`EncodeError`, the same with the C encoder and without; ``load_schema``
raises :class:`SchemaError` for any text and any missing path, with a rule for text versus path
that nothing in the file system can change.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.errors import EncodeError, SchemaError
from gameserde.flatbuffers import FbsSchemaError, _accel, load_schema

np = pytest.importorskip("numpy")

SCHEMA = load_schema("""
table A { x:int; } table B { y:string; }
union U { A, B, S, Str:string }
struct V { a:float; b:[int:3]; c:bool; }
struct S { v:V; w:[V:2]; }
enum E : byte { R, G }
enum F : ubyte (bit_flags) { P, Q }
table T {
  i:int; u:ubyte; f:float; d:double; s:string; v:[int]; st:V; sv:[S]; un:U; uv:[U];
  e:E; fl:F; t:A; l:ulong; b:bool; vs:[string]; vt:[A]; ve:[E]; o:short = null;
  h:uint (hash: "fnv1_32"); k:[A];
  x:[ubyte] (flexbuffer); n:[ubyte] (nested_flatbuffer: "A");
}
root_type T;
""")
FIELDS = ["i", "u", "f", "d", "s", "v", "st", "sv", "un", "un_type", "uv", "uv_type", "e", "fl",
          "t", "l", "b", "vs", "vt", "ve", "o", "h", "k", "x", "n"]


@pytest.fixture(autouse=True)
def _restore_enabled() -> Iterator[None]:
    saved = _accel.ENABLED
    yield
    _accel.ENABLED = saved


def encoded(value: Any) -> Any:
    """``SCHEMA.encode(value)`` with the C encoder on and off: the same bytes, or the same
    :class:`EncodeError` (any other exception fails the test)."""
    results = []
    for enabled in (True, False):
        _accel.ENABLED = enabled
        try:
            results.append(SCHEMA.encode(value))
        except EncodeError as e:
            results.append(f"EncodeError: {e}")
    assert results[0] == results[1]
    return results[0]


# ---------------------------------------------------------------------------------------------
# encode


@pytest.mark.parametrize("key", [None, b"i", 1, 1.5, ("i",), frozenset()])
def test_keys_that_are_not_strings(key: Any) -> None:
    for value in ({key: 1}, {"t": {key: 1}}, {"vt": [{key: 1}]}, {"st": {key: 1}},
                  {"un_type": "A", "un": {key: 1}}):
        text = encoded(value)
        assert text.startswith("EncodeError") and "unknown field" in text, text


def test_numpy_union_types() -> None:
    members = [{"x": 1}, {"y": "b"}, "s"]
    want = encoded({"uv_type": [1, 2, 4], "uv": members})
    assert isinstance(want, bytes)
    for types in (np.array([1, 2, 4], dtype=np.uint8), np.array([1, 2, 4]),
                  np.array(["A", "B", "Str"])):
        assert encoded({"uv_type": types, "uv": members}) == want
    for types in (np.array([1.5, 2, 4]), np.array([[1, 2, 4]]), np.array(1),
                  np.array([1, 2])):
        assert encoded({"uv_type": types, "uv": members}).startswith("EncodeError")
    assert encoded({"un_type": np.uint8(1), "un": {"x": 1}}) == (
        "EncodeError: flatbuffers encode error in $.un_type: expected an integer, got uint8")


ODD = [
    None, True, 0, -1, 2**31, 2**63, 2**64, -(2**200), 10**400, 1.5, -0.0, math.nan, math.inf,
    "", "1", "R", "P Q", "nan", "1e400", "x" * 5000, "1" * 5000, "\ud800", b"", b"ab",
    bytearray(b"a"), memoryview(b"ab"), [], [1], [None], [[1]], [{}], {}, {"x": 1},
    {"a": 1, "b": [1, 2, 3], "c": True}, {1, 2}, frozenset(), (1, 2), range(3), complex(1, 2),
    Decimal("1.5"), Fraction(1, 3), object(), Ellipsis, np.int64(5), np.float64(1.5),
    np.bool_(True), np.str_("R"), np.array(3), np.array([1, 2]), np.array([1.5]),
    np.array([[1, 2]]), np.array(["a"]), np.array([1, 2], dtype=object),
    np.array([(1.0, [1, 2, 3], True)], dtype=[("a", "<f4"), ("b", "<i4", (3,)), ("c", "?")]),
    np.zeros(0), np.array([2**40]), np.array([np.nan]),
]


@pytest.mark.parametrize("name", FIELDS)
def test_odd_values_for_every_field(name: str) -> None:
    for v in ODD:
        encoded({name: v})
        encoded({name: [v]})
        encoded({name: {"a": v, "b": [v, v, v], "c": v}})
        encoded({"sv": [{"v": {"a": v, "b": [1, 2, 3], "c": True}, "w": [v, v]}]})
        encoded({"un_type": v, "un": {"x": 1}})
        encoded({"uv_type": [v], "uv": [{"x": v}]})


odd_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
    | st.binary(max_size=5) | st.sampled_from(ODD[:20]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(FIELDS) | st.text(max_size=3), inner, max_size=4)
    | st.frozensets(st.integers(), max_size=2) | st.tuples(inner, inner),
    max_leaves=12)


@given(st.dictionaries(st.sampled_from(FIELDS) | st.none() | st.binary(max_size=2),
                       odd_values, max_size=5))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_odd_values(value: dict[Any, Any]) -> None:
    encoded(value)


def test_union_value_types() -> None:
    for tag in (None, 0, 9, -1, 256, 1.0, "A ", "Nope", [1], b"\x01", {"A"}):
        encoded({"un_type": tag, "un": {"x": 1}})
        encoded({"uv_type": [tag], "uv": [{"x": 1}]})
        encoded({"uv_type": tag, "uv": [{"x": 1}]})


# ---------------------------------------------------------------------------------------------
# load_schema


def test_text_with_a_nul_in_an_include(tmp_path: Path) -> None:
    with pytest.raises(FbsSchemaError, match="unable to load include file: x"):
        load_schema('include "x\\u0000.fbs";\ntable T { a:int; }\n', filename=str(
            tmp_path / "s.fbs"))
    # flatc opens the name up to the NUL
    (tmp_path / "x").write_text("table X { b:int; }\n")
    schema = load_schema('include "x\\u0000.fbs";\ntable T { a:int; }\n',
                         filename=str(tmp_path / "s.fbs"))
    assert set(schema.types) == {"T", "X"}


@pytest.mark.parametrize("text", ['include "x.fbs', 'table T { a:int; }', "root_type T;",
                                  "\n", "table", "attribute a;", "}", "{"])
def test_text_is_text(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``str`` with a newline, ``;`` or a brace is schema text, whatever files exist."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / text.strip().replace("/", "_") if text.strip() else tmp_path / "x").write_text(
        "table Decoy {}")
    if any(c in text for c in "\n;{}"):
        try:
            schema = load_schema(text)
        except FbsSchemaError as e:
            assert "unable to load file" not in str(e)
        else:
            assert "Decoy" not in schema.types
    else:
        schema = load_schema(text)
        assert "Decoy" in schema.types  # a path


@pytest.mark.parametrize("source", ["missing.fbs", "missing", "dir/missing.fbs", 'include "x'])
def test_missing_paths_are_schema_errors(source: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for arg in (source, Path(source)):
        with pytest.raises(SchemaError) as info:
            load_schema(arg)
        text = str(info.value)
        assert f"unable to load file: {source}" in text and "No such file" in text, text
        assert not isinstance(info.value, OSError)


def test_unreadable_paths_are_schema_errors(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="unable to load file"):
        load_schema(tmp_path)  # a directory
    with pytest.raises(SchemaError, match="unable to load file"):
        load_schema(str(tmp_path / "a\0b.fbs"))
    if os.geteuid() != 0:
        locked = tmp_path / "locked.fbs"
        locked.write_text("table T {}")
        locked.chmod(0)
        with pytest.raises(SchemaError, match="unable to load file"):
            load_schema(locked)


def test_bytes_and_paths_are_explicit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bytes`` are always text and ``os.PathLike`` always a path."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a;b{c}.fbs").write_text("table Odd {}\n")
    assert "Odd" in load_schema(Path("a;b{c}.fbs")).types
    with pytest.raises(FbsSchemaError):
        load_schema(b"a;b{c}.fbs")
    (tmp_path / "table").write_text("table Decoy {}")
    assert "Decoy" not in load_schema(b"table T {}").types
