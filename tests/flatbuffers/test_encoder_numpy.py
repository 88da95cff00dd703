"""numpy arrays as vector values in ``encode``: an array laid out as the elements are is copied
as it is, and must give exactly the bytes of the list of its values; any other array is
converted element by element, with the list's checks and errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gameserde.errors import EncodeError
from gameserde.flatbuffers import load_schema

np = pytest.importorskip("numpy")

SCHEMA = load_schema("""
struct Vec3 { x:float; y:float; z:float; }
struct Mixed { a:byte; b:double; }
struct Keyed { id:int (key); w:float; }
table T { path:[Vec3]; mixed:[Mixed]; keyed:[Keyed]; inv:[ubyte]; flags:[bool]; d:[double];
          s:[short]; u:[ulong]; f:[float]; }
root_type T;
""")


def as_lists(value: dict[str, Any]) -> dict[str, Any]:
    """The same value with every array as the list of its values."""
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k == "path" and v.ndim == 2:
            out[k] = [dict(zip("xyz", row, strict=True)) for row in v.tolist()]
        elif v.dtype.names:
            out[k] = [dict(zip(v.dtype.names, row, strict=True)) for row in v.tolist()]
        else:
            out[k] = v.tolist()
    return out


def test_every_kind_copies_the_same_bytes() -> None:
    base = SCHEMA.view(SCHEMA.encode({
        "path": [{"x": 1.5, "y": 2, "z": -3}], "mixed": [{"a": -1, "b": 1e300}, {"a": 7, "b": 0}],
        "keyed": [{"id": 3, "w": 1}, {"id": 1, "w": 2}]}))
    value = {
        "path": np.arange(30, dtype=np.float32).reshape(10, 3),
        "mixed": base.mixed.numpy(),
        "inv": np.arange(10, dtype=np.uint8),
        "flags": np.array([True, False, True]),
        "d": np.array([1.5, -2.5, np.inf]),
        "s": np.array([-1, 300], dtype=np.int16),
        "u": np.array([2**64 - 1], dtype=np.uint64),
        "f": np.array([0.1, 3.4e38], dtype=np.float32),
    }
    assert SCHEMA.encode(value) == SCHEMA.encode(as_lists(value))
    # the reader's own numpy views go back in unchanged
    assert SCHEMA.encode({"path": base.path.numpy()}) == SCHEMA.encode(
        {"path": [{"x": 1.5, "y": 2.0, "z": -3.0}]})


def test_other_layouts_convert_element_by_element() -> None:
    wide = {"inv": np.arange(5), "s": np.array([1, 2]), "f": np.array([0.5, 1e-3]),
            "path": np.ones((2, 3))}  # int64, int64, float64, float64 rows
    assert SCHEMA.encode(wide) == SCHEMA.encode(as_lists(wide))
    big_endian = {"s": np.array([1, -2], dtype=">i2")}
    assert SCHEMA.encode(big_endian) == SCHEMA.encode({"s": [1, -2]})
    strided = np.arange(60, dtype=np.float32).reshape(20, 3)[::3]
    assert SCHEMA.encode({"path": strided}) == SCHEMA.encode(as_lists({"path": strided}))
    with pytest.raises(EncodeError, match=r"\$\.inv\[1\].*does not fit"):
        SCHEMA.encode({"inv": np.array([1, 256])})
    with pytest.raises(EncodeError):
        SCHEMA.encode({"path": np.ones((2, 4), dtype=np.float32)})


def test_keyed_struct_vectors_are_sorted_as_lists_are() -> None:
    keyed = SCHEMA.view(SCHEMA.encode({"keyed": [{"id": 1, "w": 0}]})).keyed.numpy()
    arr = np.array([(5, 1.0), (2, 2.0), (9, 3.0)], dtype=keyed.dtype)
    got = SCHEMA.encode({"keyed": arr})
    assert got == SCHEMA.encode({"keyed": [{"id": 5, "w": 1}, {"id": 2, "w": 2},
                                           {"id": 9, "w": 3}]})
    assert [k.id for k in SCHEMA.view(got).keyed] == [2, 5, 9]


def test_empty_arrays() -> None:
    empty = {"path": np.zeros((0, 3), np.float32), "inv": np.zeros(0, np.uint8)}
    assert SCHEMA.encode(empty) == SCHEMA.encode({"path": [], "inv": []})


@settings(max_examples=100, deadline=None, derandomize=True)
@given(path=hnp.arrays(np.float32, st.tuples(st.integers(0, 20), st.just(3))),
       s=hnp.arrays(np.int16, st.integers(0, 20)),
       d=hnp.arrays(np.float64, st.integers(0, 20)))
def test_arrays_match_lists(path: Any, s: Any, d: Any) -> None:
    value = {"path": path, "s": s, "d": d}
    assert SCHEMA.encode(value) == SCHEMA.encode(as_lists(value))
