"""``verify`` and ``inspect`` of buffers whose offsets share data (DAGs, the families of
:mod:`hostile_buffers`): the C++ verifier's verdicts (``max_tables`` counts every visit of a
table, as in C++; the same first failure), in time linear in the buffer, not in its expansion.
"""

from __future__ import annotations

import pytest

from gameserde.errors import DecodeError
from gameserde.flatbuffers import FbsSchema, load_schema
from gameserde.flatbuffers.inspect import annotate
from tests.flatbuffers import hostile_buffers as hb
from tests.flatbuffers.growth import assert_linear, attempt, calls

NODE = load_schema(hb.NODE_SCHEMA)
FAMILIES = hb.FAMILIES


@pytest.mark.parametrize("family", list(FAMILIES))
def test_verify_and_inspect_grow_linearly(family: str) -> None:
    bufs = [FAMILIES[family](n) for n in (64, 256)]
    assert_linear([(len(b), calls(lambda b=b: NODE.verify(b))) for b in bufs],
                  f"{family} verify calls", base=2000)
    assert_linear([(len(b), calls(lambda b=b: annotate(NODE, b))) for b in bufs],
                  f"{family} annotate calls", base=20000)


def visits(schema: FbsSchema, buf: bytes) -> list[str]:
    """The paths of the tables the C++ verifier visits, in its order (the ``kids`` DAG)."""
    out: list[str] = []

    def walk(path: str, levels: int) -> None:
        out.append(path)
        if levels:
            walk(f"{path}.kids[0]", levels - 1)
            walk(f"{path}.kids[1]", levels - 1)

    levels, v = 0, schema.view(buf)
    while v.kids is not None:
        levels, v = levels + 1, v.kids[0]
    walk("$", levels)
    return out


def test_dag_table_count_as_in_cpp() -> None:
    """C++ counts every visit of a table against ``max_tables``: a DAG of 18 levels (2**19 - 1
    visits) passes, one of 19 levels (2**20 - 1 visits) fails, at the visit after the limit."""
    NODE.verify(hb.dag(18))
    buf = hb.dag(19)
    with pytest.raises(DecodeError, match="table number 1000001, more than max_tables"):
        NODE.verify(buf)
    small = hb.dag(6)
    order = visits(NODE, small)
    for limit in (1, 2, 7, 50, len(order) - 1):
        with pytest.raises(DecodeError) as info:
            NODE.verify(small, max_tables=limit)
        assert info.value.path == order[limit], limit
        assert f"table number {limit + 1}, more than max_tables={limit}" in info.value.message
    NODE.verify(small, max_tables=len(order))


def test_dag_depth_as_in_cpp() -> None:
    buf = hb.dag(64)  # 65 tables deep
    with pytest.raises(DecodeError, match="nested 65 tables deep") as info:
        NODE.verify(buf, max_tables=2**40)
    assert info.value.path == "$" + ".kids[0]" * 64
    NODE.verify(hb.dag(63), max_depth=64, max_tables=2**64)


@pytest.mark.oracle
def test_dag_verdicts_match_the_cpp_verifier() -> None:
    from tests.flatbuffers.cpp_oracle import oracle

    cases = [(hb.dag(18), {}), (hb.dag(19), {}), (hb.dag(6), {"max_tables": 126}),
             (hb.dag(6), {"max_tables": 127}), (hb.dag(64), {"max_tables": 2**31}),
             (hb.dag(63), {}), (hb.union_dag(19), {}),
             (hb.union_dag(5), {"max_tables": 363}), (hb.union_dag(5), {"max_tables": 364}),
             (hb.shared_vector(50, 50), {}), (hb.shared_nested(30, 100), {"max_tables": 31}),
             (hb.shared_nested(30, 100), {"max_tables": 30})]
    cpp = oracle(hb.NODE_SCHEMA, "Node")
    for buf, options in cases:
        ours = not isinstance(attempt(lambda b=buf, o=options: NODE.verify(b, **o)),
                              DecodeError)
        assert cpp.run([buf], **options)[0][0] == ours, (len(buf), options)
