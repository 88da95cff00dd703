"""``load(store(x)) == x`` over generated registries and values.

With ``keep_defaults`` every kind of type takes part. Without it pointers are left out: a
pointer to an all-default object whose default is a null pointer is omitted, as the engine
omits it, and so reads back as null.

Without ``keep_defaults`` the engine also loses data: a value of nothing but empty containers
(an empty container or ``any``, a container, pair or object of only such values) is stored
as no work at all, so a non-empty container of such values is written as if it were empty
(``[[], [C0(f0_0=[])]]`` in an ``array<vector<C0>,2>`` field is left out and reads back as
``[[], []]``). :func:`engine_view` models what reads back, and the store must report every
such loss as an issue (and only then).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.o3de import (
    AnyValue,
    Color,
    Quaternion,
    Registry,
    TypeExpr,
    Vector3,
    load,
    store,
)
from gameserde.o3de._primitives import as_float32
from tests.o3de.cases import normal

PROPERTY = settings(max_examples=150, deadline=None)
INTS = ["char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "AZ::s64",
        "AZ::u64"]
LEAVES = [*INTS, "bool", "float", "double", "AZStd::string", "AZ::Uuid", "Vector3", "Color",
                 "Quaternion"]


def _type_texts(depth: int, simple: list[str], pointees: list[str]
                ) -> st.SearchStrategy[str]:
    base = st.sampled_from(simple)
    if depth == 0:
        return base
    inner = _type_texts(depth - 1, simple, pointees)
    options = [base, inner.map(lambda x: f"vector<{x}>"),
               inner.map(lambda x: f"map<AZStd::string,{x}>"),
               inner.map(lambda x: f"unordered_map<int,{x}>"),
               inner.map(lambda x: f"array<{x},2>"),
               st.tuples(inner, inner).map(lambda p: f"pair<{p[0]},{p[1]}>"),
               st.just("unordered_set<int>"), st.just("AZStd::any")]
    if pointees:
        options.append(st.sampled_from(pointees).map(lambda c: f"shared_ptr<{c}>"))
        options.append(st.sampled_from(pointees).map(lambda c: f"{c}*"))
    return st.one_of(options)


@st.composite
def registries(draw: st.DrawFn, pointers: bool) -> tuple[Registry, str]:
    reg = Registry()
    enum_names: list[str] = []
    for index in range(draw(st.integers(0, 2))):
        underlying = draw(st.sampled_from(["unsigned char", "short", "int", "AZ::u64", "AZ::s64"]))
        base_type = reg.resolve(underlying)
        bits = base_type.size
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if base_type.signed else (
            0, (1 << bits) - 1)
        names = draw(st.lists(st.from_regex(r"[A-Z][a-z0-9]{0,5}", fullmatch=True), max_size=5,
                              unique_by=str.lower))
        values = [(n, draw(st.integers(low, high))) for n in names]
        reg.add_enum(f"E{index}", values, underlying=underlying)
        enum_names.append(f"E{index}")
    classes: list[str] = []
    for index in range(draw(st.integers(1, 3))):
        known = [*LEAVES, *enum_names, *classes]
        field_types = draw(st.lists(_type_texts(2, known, list(classes) if pointers else []),
                                    min_size=1, max_size=5))
        bases = [draw(st.sampled_from(classes))] if classes and draw(st.booleans()) else []
        reg.add_class(f"C{index}", None, [(f"f{index}_{i}", t) for i, t in enumerate(field_types)],
                      bases=bases)
        classes.append(f"C{index}")
    return reg, classes[-1]


def _float(single: bool) -> st.SearchStrategy[float]:
    raw = st.floats(width=32 if single else 64, allow_nan=False, allow_infinity=False)
    tiny = 1e-6 if single else 1e-15
    return raw.filter(lambda x: x == 0 or abs(x) > tiny).map(
        lambda x: as_float32(x) if single else x)


def values(reg: Registry, t: TypeExpr, in_sequence: bool = False,
           polymorphic: bool = False) -> st.SearchStrategy[Any]:
    """Values of ``t``. Containers inside sequences are empty only now and then (a sequence of
    nothing but empty containers is stored as nothing at all, as the engine does)."""
    kind = t.kind
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        low, high = (-(1 << (t.size - 1)), (1 << (t.size - 1)) - 1) if t.signed else (
            0, (1 << t.size) - 1)
        return st.integers(low, high)
    if kind == "float":
        return _float(t.size == 32)
    if kind == "string":
        return st.text(max_size=8)
    if kind == "uuid":
        return st.uuids()
    if kind == "enum":
        u = reg.enums[t.name].underlying
        return values(reg, u)
    if kind == "math":
        f = _float(True)
        if t.name == "Vector3":
            return st.builds(Vector3, f, f, f)
        if t.name == "Color":
            return st.builds(Color, f, f, f, f)
        return st.builds(Quaternion, f, f, f, f)
    if in_sequence and kind in ("seq", "map"):
        return st.one_of(values(reg, t), values(reg, t).filter(bool))
    if kind == "seq":
        return st.lists(values(reg, t.args[0], True), max_size=3).map(
            lambda xs: set(xs) if "set" in t.flavor else xs)
    if kind == "map":
        keys = values(reg, t.args[0]).filter(lambda k: k != "{}")
        return st.dictionaries(keys, values(reg, t.args[1]), max_size=3)
    if kind == "array":
        return st.lists(values(reg, t.args[0]), min_size=t.size, max_size=t.size)
    if kind == "tuple":
        return st.tuples(*(values(reg, a) for a in t.args))
    if kind == "any":
        return st.one_of(st.just(AnyValue()),
                         st.integers(-5, 5).map(lambda x: AnyValue("int", x)))
    if kind == "pointer":
        return st.none() | values(reg, t.args[0], polymorphic=True)
    if kind == "custom" and t.name == "JsonByteStream":  # vector<uint8>
        return st.binary(max_size=8)
    assert kind == "class", t
    info = reg.classes[t.name]
    derived = [n for n in reg.classes if n != t.name and reg.is_derived(reg.resolve(n), t)]
    choices = [t.name] + (derived if polymorphic else [])

    @st.composite
    def instance(draw: st.DrawFn) -> Any:
        name = draw(st.sampled_from(choices))
        chosen = reg.classes[name] if name != t.name else info
        obj = reg.create(reg.resolve(name))
        for f in chosen.all_fields:
            setattr(obj, f.attr, draw(values(reg, f.type)))
        return obj
    return instance()


@st.composite
def cases(draw: st.DrawFn, pointers: bool) -> tuple[Registry, str, Any]:
    reg, name = draw(registries(pointers))
    return reg, name, draw(values(reg, reg.resolve(name)))


def stores_nothing(reg: Registry, t: TypeExpr, value: Any) -> bool:
    """Whether the engine's store of ``value`` (defaults left out) does no work at all: its
    result code gets no outcome, which reads as DefaultsUsed. True of an empty basic container
    or map, an empty ``any``, and a container, map, pair or object whose every element, entry,
    slot or field is such a value. ``AZStd::array`` reports DefaultsUsed itself, and leaves,
    enums, math types and byte streams always report an outcome."""
    kind = t.kind
    if kind == "seq":
        return all(stores_nothing(reg, t.args[0], v) for v in value)
    if kind == "map":
        return all(stores_nothing(reg, t.args[0], k) and stores_nothing(reg, t.args[1], v)
                   for k, v in value.items())
    if kind == "tuple":
        return all(stores_nothing(reg, a, v) for a, v in zip(t.args, value, strict=True))
    if kind == "any":
        return bool(value.type is None)
    if kind == "class":
        fields = reg.classes[t.name].all_fields
        return bool(fields) and all(stores_nothing(reg, f.type, getattr(value, f.attr))
                                    for f in fields)
    return False


def kept_nothing(reg: Registry, t: TypeExpr, value: Any) -> bool:
    """Whether a store keeping defaults still does no work for ``value``: an empty ``any``,
    or an object (held in place or by a pointer) whose every field is such a value."""
    if t.kind == "any":
        return bool(value.type is None)
    if t.kind == "pointer" and value is not None:
        return kept_nothing(reg, reg.resolve(type(value).__name__), value)
    if t.kind == "class":
        fields = reg.classes[t.name].all_fields
        return bool(fields) and all(kept_nothing(reg, f.type, getattr(value, f.attr))
                                    for f in fields)
    return False


def engine_view(reg: Registry, t: TypeExpr, value: Any, keep: bool) -> Any:
    """What reads back after a store. Without defaults (``keep`` false), a value that stores
    nothing is left out (a field) or written ``{}`` (an element or slot) and so reads back
    as a fresh default. Keeping them, only an ``AZStd::array`` whose every slot does no
    work is written as nothing (and reads back as a new array). The rest keeps its
    structure."""
    kind = t.kind
    if (stores_nothing(reg, t, value) if not keep else
            kind == "array" and all(kept_nothing(reg, t.args[0], v) for v in value)):
        return reg.create(t)
    if kind == "seq":
        items = [engine_view(reg, t.args[0], v, keep) for v in value]
        return set(items) if isinstance(value, set) else items
    if kind == "array":
        return [engine_view(reg, t.args[0], v, keep) for v in value]
    if kind == "map":
        return {k: engine_view(reg, t.args[1], v, keep) for k, v in value.items()}
    if kind == "tuple":
        return tuple(engine_view(reg, a, v, keep) for a, v in zip(t.args, value, strict=True))
    if kind == "class":
        copy = reg.create(t)
        for f in reg.classes[t.name].all_fields:
            setattr(copy, f.attr, engine_view(reg, f.type, getattr(value, f.attr), keep))
        return copy
    return value


def _round_trip(reg: Registry, name: str, value: Any, keep: bool) -> None:
    out, result = store(value, name, registry=reg, keep_defaults=keep)
    assert result.processing.name == "Completed", result.issues
    back, loaded = load(name, out, registry=reg)
    assert loaded.ok, loaded.issues
    t = reg.resolve(name)
    expected = engine_view(reg, t, value, keep)
    assert normal(reg, t, back) == normal(reg, t, expected), out
    lossy = normal(reg, t, expected) != normal(reg, t, value)
    assert lossy == bool(result.issues), (out, result.issues)
    assert all(i.code.outcome.name == "Skipped" for i in result.issues), result.issues


@PROPERTY
@given(cases(pointers=True))
def test_round_trip_keeping_defaults(case: tuple[Registry, str, Any]) -> None:
    _round_trip(*case, keep=True)


@PROPERTY
@given(cases(pointers=False))
def test_round_trip_leaving_defaults_out(case: tuple[Registry, str, Any]) -> None:
    _round_trip(*case, keep=False)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(1 << 63), (1 << 63) - 1),
       st.lists(st.tuples(st.from_regex(r"[A-Z][a-z]{0,4}", fullmatch=True),
                          st.integers(-(1 << 63), (1 << 63) - 1)), max_size=6,
                unique_by=lambda p: p[0].lower()))
def test_enum_flags_round_trip(value: int, pairs: list[tuple[str, int]]) -> None:
    reg = Registry()
    reg.add_enum("E", pairs, underlying="AZ::s64")
    out, _ = store(value, "E", registry=reg, keep_defaults=True)
    back, result = load("E", out, registry=reg)
    assert back == value and result.ok
