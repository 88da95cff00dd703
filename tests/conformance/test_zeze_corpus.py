"""The real-world Zeze corpus (``../shared/corpus/zeze-real``): the solution files of the Zeze
repository, and the byte vectors of Zeze's own Java ``TestByteBuffer``.

The corpus README describes every case and these checks (its ``tools/run_zeze.py`` runs the
same ones and prints the counts):

* load: every solution loads with ``load_schema``, except the four that cannot (an import
  outside the repository or absent at that commit, and a file that is not a solution), which
  are refused with a ``SchemaError`` naming the file and the line, exactly;
* round trips: for every bean and beankey of every loaded solution, its default value (``{}``)
  and :data:`RANDOM_PER_BEAN` seeded random values made from the schema (every field: ints
  over their full width, float32-exact floats, non-ASCII strings, bytes, decimals, vectors,
  0-3 list, set and map elements, beankeys as map keys, dynamics over their beans and the
  EmptyBean, gtables, kept unknown fields in external beans, transient fields given and
  ignored) encode, decode to the value, encode again to the same bytes, and
  ``to_json``/``from_json`` gives the same bytes again;
* vectors: ``Writer.write_*`` writes each vector's hex and ``Reader.read_*`` reads its value
  back, consuming every byte; ``WriteInt4``/``WriteLong8`` (fixed-width Java writers, not part
  of the bean format) have no gameserde counterpart: exactly those four are not applicable.

The corpus lives beside the project (``../shared``); without it these tests are skipped, or
fail when ``CI=true``.
"""

from __future__ import annotations

import decimal
import functools
import json
import random
import struct
from typing import Any

import pytest

from gameserde import zeze
from gameserde.errors import SchemaError
from gameserde.schema.model import (
    Bool,
    Bytes,
    Float,
    Int,
    List,
    Map,
    Record,
    Ref,
    Set,
    String,
    Type,
    Union,
)
from gameserde.zeze import Dynamic, FrozenBean, UnknownField, ZezeSchema
from gameserde.zeze import bytebuffer as bb
from gameserde.zeze.bytebuffer import Reader, Writer
from tests.conformance.corpus import case_names, corpus_dir, require

CORPUS = corpus_dir("zeze-real")

RANDOM_PER_BEAN = 2
"""Random values per bean and beankey, besides its default value."""

REFUSED = {
    "metagame_worlddemo": "schema/projects/MetaGame/WorldDemo/world.xml:6: the imported file "
    "../.solution.server.xml (schema/projects/MetaGame/.solution.server.xml) cannot be read: "
    "No such file or directory",
    "proto2xml_test1": "schema/tools/proto2xml_test1.xml:6: the root element is <module>, "
    "not <solution>, so this is not a solution file",
    "zege_linkd": "schema/projects/zege/Server/solution.xml:5: the imported file "
    "../../zeze/ZezeJava/ZezeJava/solution.zeze.xml "
    "(schema/projects/zeze/ZezeJava/ZezeJava/solution.zeze.xml) cannot be read: "
    "No such file or directory",
}
REFUSED["zege_server"] = REFUSED["zege_linkd"]
"""The cases that cannot load, and the exact message (the case's folder left out)."""

BEANS = {
    "component_confcs_client": (228, 19), "confcs": (10, 2), "metagame": (21, 1),
    "metagame_linkd": (1, 0), "metagame_server": (28, 2), "old_game": (31, 1),
    "old_game2": (60, 2), "old_sample": (110, 10), "old_unittest": (8, 2),
    "old_worlddemo": (239, 21), "old_zege": (81, 8), "old_zege_java": (223, 21),
    "old_zezejavatest": (6, 2), "old_zezex": (38, 2), "old_zezexjava": (70, 4),
    "python_solution": (10, 3), "test_luaclient": (6, 2), "zeze_builtin_solution": (228, 19),
    "zezeboot_client": (233, 19), "zezeboot_link": (1, 0), "zezeboot_server": (5, 0),
    "zezeboot_server_login": (5, 0), "zezeboot_solution_zeze": (227, 19),
    "zezejavatest_demo2": (2, 0), "zezejavatest_solution": (24, 3),
    "zezejavatest_taskext": (3, 0), "zezex_client": (271, 23), "zezex_hot": (266, 22),
    "zezex_linkd": (1, 0), "zezex_server": (266, 22),
}
"""(beans, beankeys) of every case that loads, external ones and gtable rows included."""

NOT_APPLICABLE = {("WriteInt4", 158), ("WriteLong8", 171), ("WriteLong8", 184),
                  ("WriteLong8", 197)}
"""The Java test's fixed-width writers (op, line in TestByteBuffer.java)."""


CASES = case_names(CORPUS)


@pytest.fixture(autouse=True)
def _corpus_present() -> None:
    require(CORPUS, "Zeze")


@functools.cache
def load(case: str) -> ZezeSchema | SchemaError:
    folder = CORPUS / case
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    try:
        return zeze.load_schema(str(folder / meta["root"]))
    except SchemaError as e:
        return SchemaError(str(e).replace(f"{folder}/", ""))


def test_the_corpus_is_complete() -> None:
    assert set(CASES) == set(REFUSED) | set(BEANS)


@pytest.mark.parametrize("case", CASES)
def test_load(case: str) -> None:
    loaded = load(case)
    if case in REFUSED:
        assert isinstance(loaded, SchemaError) and str(loaded) == REFUSED[case]
        return
    assert isinstance(loaded, ZezeSchema), str(loaded)
    kinds = [rec.kind for rec in loaded.beans.values()]
    assert (kinds.count("bean"), kinds.count("beankey")) == BEANS[case]


# -- values made from the schema -------------------------------------------------------------

_TEXT = "aZ09 _汉字éß\U0001f600"
_DECIMALS = ["0", "1.5", "-12345678901234567890.000001", "1E+3", "-7"]


class Values:
    """Seeded random values of one schema's types (every field given)."""

    def __init__(self, schema: ZezeSchema, rng: random.Random) -> None:
        self.schema = schema
        self.rng = rng

    def value(self, t: Type, depth: int, key: bool = False) -> Any:
        r = self.rng
        if isinstance(t, Bool):
            return r.random() < 0.5
        if isinstance(t, Int):
            low, high = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
            return r.choice([0, 1, -1, low, high, r.randint(low, high),
                             max(low, min(high, r.randint(-300, 300)))])
        if isinstance(t, Float):
            x = r.choice([0.0, 1.5, -2.25, r.uniform(-1e6, 1e6), r.uniform(-1e-3, 1e-3)])
            return struct.unpack("<f", struct.pack("<f", x))[0] if t.bits == 32 else x
        if isinstance(t, String):
            return "".join(r.choice(_TEXT) for _ in range(r.randint(0, 6)))
        if isinstance(t, Bytes):
            return r.randbytes(r.randint(0, 5))
        if isinstance(t, List | Set | Map):
            return self.container(t, depth)
        assert isinstance(t, Ref), t
        target = self.schema.model.types[t.name]
        if isinstance(target, Union):
            members = list(target.members)
            if depth > 3 or not members or r.random() < 0.2:
                return Dynamic(None, {}, 0)
            bean = r.choice(members)
            return Dynamic(bean, self.bean(bean, depth + 1))
        assert isinstance(target, Record), target
        if target.kind == "vector":
            return tuple(self.value(f.type, depth) for f in target.fields)
        if target.kind == "decimal":
            return decimal.Decimal(r.choice(_DECIMALS))
        value = self.bean(target.name, depth + 1)
        return FrozenBean(value) if key else value

    def container(self, t: List | Set | Map, depth: int) -> Any:
        n = 0 if depth > 3 else self.rng.randint(0, 3)
        if isinstance(t, Map):
            out: dict[Any, Any] = {}
            for _ in range(3 * n):
                if len(out) < n:
                    out[self.value(t.key, depth + 1, key=True)] = self.value(t.value, depth + 1)
            return out
        items: list[Any] = []
        for _ in range(3 * n):
            x = self.value(t.element, depth + 1, key=isinstance(t, Set))
            if len(items) < n and not (isinstance(t, Set) and x in items):
                items.append(x)
        return items

    def bean(self, name: str, depth: int) -> dict[str, Any]:
        """Every field of every layer; an external bean's fields as unknown fields."""
        rec = self.schema.bean(name)
        if rec.attributes.get("external"):
            return self.unknown_fields()
        out = {}
        while True:
            for f in rec.fields:
                if not f.attributes.get("transient"):
                    out[f.name] = self.field(rec.name, f.name, f.type, depth)
            if rec.base is None:
                return out
            rec = self.schema.bean(rec.base)

    def field(self, bean: str, name: str, t: Type, depth: int) -> Any:
        """A bean field whose body is empty is left out, and reads back as Java's ``new
        Bean()``: give that value instead."""
        value = self.value(t, depth)
        if isinstance(t, Ref) and isinstance(value, dict) and zeze.encode(
                self.schema, t.name, value) == b"\x00":
            return constructed(self.schema, bean, name)
        return value

    def unknown_fields(self) -> dict[str, Any]:
        fields = []
        for field_id in sorted(self.rng.sample(range(1, 6), self.rng.randint(0, 2))):
            w = Writer()
            w.write_long(self.rng.randint(1, 1 << 40))
            fields.append(UnknownField(field_id, bb.INTEGER, w.getvalue()))
        return {zeze.UNKNOWN_KEY: fields} if fields else {}

    def transient(self, name: str) -> dict[str, Any]:
        """Values of the bean's transient fields (of every layer)."""
        out = {}
        rec: Record | None = self.schema.bean(name)
        while rec is not None:
            for f in rec.fields:
                if f.attributes.get("transient"):
                    out[f.name] = self.value(f.type, 5)
            rec = self.schema.bean(rec.base) if rec.base else None
        return out


@functools.cache
def _empty_decoded(schema: ZezeSchema, bean: str) -> dict[str, Any]:
    value: dict[str, Any] = zeze.decode(schema, bean, b"\x00")
    return value


def constructed(schema: ZezeSchema, bean: str, name: str) -> Any:
    """Field ``name`` of ``bean`` as decoding gives it when absent (Java's constructor)."""
    return _empty_decoded(schema, bean)[name]


def same(want: Any, got: Any) -> bool:
    """``got`` (decoded) is ``want`` (given): dynamics get their full bean names and TypeIds
    completed, an external beankey's unknown fields are a tuple."""
    if isinstance(want, Dynamic):
        return (isinstance(got, Dynamic) and want.bean == got.bean
                and (want.type_id is None or want.type_id == got.type_id)
                and same(want.value, got.value))
    if isinstance(want, FrozenBean):
        return isinstance(got, FrozenBean) and want == got
    if isinstance(want, dict):
        return (isinstance(got, dict) and len(want) == len(got)
                and all(k in got and same(v, got[k]) for k, v in want.items()))
    if isinstance(want, list | tuple):
        return (type(want) is type(got) and len(want) == len(got)
                and all(same(a, b) for a, b in zip(want, got, strict=True)))
    if isinstance(want, float):
        return isinstance(got, float) and want == got  # no NaN is made
    return type(want) is type(got) and bool(want == got)


@functools.cache
def round_trips(case: str) -> tuple[int, int]:
    """(beans and beankeys, values) of the case, every value checked."""
    schema = load(case)
    assert isinstance(schema, ZezeSchema)
    values = 0
    for name in schema.beans:
        make = Values(schema, random.Random(f"{case}/{name}"))
        given: list[tuple[dict[str, Any], dict[str, Any]]] = [({}, {})]
        for _ in range(RANDOM_PER_BEAN):
            value = make.bean(name, 0)
            given.append(({**value, **make.transient(name)}, value))
        for value, want in given:
            where = f"{case}: {name} {value!r:.300}"
            data = zeze.encode(schema, name, value)
            back = zeze.decode(schema, name, data)
            assert not want or same(want, back), where
            assert zeze.encode(schema, name, back) == data, where
            text = zeze.to_json(schema, name, back)
            assert zeze.encode(schema, name, zeze.from_json(schema, name, text)) == data, where
            values += 1
    return len(schema.beans), values


@pytest.mark.parametrize("case", sorted(BEANS))
def test_round_trips(case: str) -> None:
    beans, values = round_trips(case)
    assert beans == sum(BEANS[case]) and values == beans * (1 + RANDOM_PER_BEAN)


def test_round_trip_totals() -> None:
    counts = [round_trips(case) for case in sorted(BEANS)]
    assert len(counts) == 30
    assert sum(beans for beans, _ in counts) == 2931
    assert sum(values for _, values in counts) == 2931 * (1 + RANDOM_PER_BEAN)


# -- Java's TestByteBuffer -------------------------------------------------------------------

def _vectors() -> list[dict[str, Any]]:
    path = CORPUS / "vectors" / "java_TestByteBuffer.json"
    if not path.is_file():
        return []
    vectors: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return vectors


VECTORS = _vectors()

_CODECS: dict[str, tuple[Any, Any]] = {
    "WriteBytes": (lambda w, v: w.write_bytes(bytes.fromhex(v)),
                   lambda r: r.read_bytes().hex()),
    "WriteString": (Writer.write_string, Reader.read_string),
    "WriteBool": (Writer.write_bool, Reader.read_bool),
    "WriteByte": (Writer.write_byte, Reader.read_byte),
    "WriteDouble": (Writer.write_double, Reader.read_double),
    "WriteFloat": (Writer.write_float, Reader.read_float),
    "WriteUInt": (Writer.write_uint, Reader.read_uint),
    "WriteLong": (Writer.write_long, Reader.read_long),
}


def _value(vector: dict[str, Any]) -> Any:
    if vector["op"] == "WriteFloat":  # "1.1f": Java's float literal
        float32: float = struct.unpack("<f", struct.pack("<f", float(vector["value"][:-1])))[0]
        return float32
    return vector["value"]


def test_the_vectors_that_apply() -> None:
    assert len(VECTORS) == 29
    assert {(v["op"], v["line"]) for v in VECTORS if v["op"] not in _CODECS} == NOT_APPLICABLE


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["op"] in _CODECS],
                         ids=lambda v: f"{v['op']}-{v['line']}")
def test_vector(vector: dict[str, Any]) -> None:
    write, read = _CODECS[vector["op"]]
    value = _value(vector)
    w = Writer()
    write(w, value)
    assert w.getvalue().hex() == vector["hex"]
    r = Reader(bytes.fromhex(vector["hex"]))
    assert read(r) == value and r.pos == len(vector["hex"]) // 2
