"""Hypothesis strategies for Zeze: solution XML over every field type, and bean values for it.

:func:`solutions` draws a :class:`Solution`: the XML text of a random solution (modules with
ids, some nested, beans at solution level too; beans and beankeys with variables of every
type: the scalars, decimal and the vector types, ``list``/``array``/``set``/``map``/
``sortedmap`` of keyable and other elements, nested beans, beankeys as map keys and set
elements, ``dynamic`` with hashed or special TypeIds and ``dynamic:Base``, ``base=`` layers,
``transient``, ``default=``, id gaps wider than 15 and ids up to 4095) together with this
module's own model of it, which the value strategies and :func:`decoded` read (they never ask
gameserde's plans). Generated schemas follow Gen's rules: no bean holds itself through bean
fields (bean fields and bases name earlier beans; collections and dynamics may name any bean,
the bean itself included), collections do not nest, keys are keyable, beankeys hold keyable
variables only, variable names are unique across layers.

:func:`bean_values` draws a value of a bean (a dict that may leave fields out, may carry
``$unknown`` fields; :class:`~gameserde.zeze.values.Dynamic` for dynamics,
:class:`~gameserde.zeze.values.FrozenBean` for beankey keys, lists of distinct elements for
sets; floats with -0.0, NaN, infinities, subnormals, float32-exact for float positions).
:func:`decoded` says what decoding its encoding gives; :func:`same` compares strictly.

:data:`CODECS` names the entry points the properties call: the pure-Python reference and
the public functions (the C twin where it serves the bean).
"""

from __future__ import annotations

import contextlib
import dataclasses
import decimal
import math
import string
import struct
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from hypothesis import strategies as st

from gameserde import zeze
from gameserde.errors import GameserdeError
from gameserde.zeze import Dynamic, FrozenBean, UnknownField, ZezeSchema, _accel, hash64
from gameserde.zeze.codec import BeanCodec
from gameserde.zeze.values import UNKNOWN_KEY

from . import wire

S = st.SearchStrategy

# ---------------------------------------------------------------------------------------------
# The paths under test


class Codec(NamedTuple):
    """One path of the bean codec: ``encode(schema, bean, value)``,
    ``decode(schema, bean, data)``, ``decode_from(schema, bean, data, offset)``, each taking
    the public functions' keyword options (``max_depth``, ``classes``)."""

    name: str
    encode: Callable[..., bytes]
    decode: Callable[..., Any]
    decode_from: Callable[..., tuple[Any, int]]


@contextlib.contextmanager
def c_twin(enabled: bool) -> Iterator[None]:
    """The C twin (``gameserde.zeze._accel``) on (when built) or off for the duration."""
    saved = _accel.ENABLED
    _accel.ENABLED = enabled and _accel.speedups is not None
    try:
        yield
    finally:
        _accel.ENABLED = saved


def _reference(schema: ZezeSchema, bean: str | None, **options: Any) -> BeanCodec:
    with c_twin(False):  # a BeanCodec binds the C twin (or not) when it is made
        return BeanCodec(schema, bean, **options)


PURE = Codec(
    "pure",
    lambda schema, bean, value, **kw: _reference(schema, bean, **kw).encode(value),
    lambda schema, bean, data, **kw: _reference(schema, bean, **kw).decode(data),
    lambda schema, bean, data, offset=0, **kw: _reference(schema, bean, **kw).decode_from(
        data, offset))
"""The pure-Python reference (:mod:`gameserde.zeze._encode`, :mod:`gameserde.zeze._decode`)
through :class:`~gameserde.zeze.codec.BeanCodec` made with the C twin off."""

PUBLIC = Codec("public", zeze.encode, zeze.decode, zeze.decode_from)
"""The public functions, which run the C twin where it serves the bean (when it is built)."""

CODECS: tuple[Codec, ...] = (PURE, PUBLIC)
"""Every path the properties run on each generated case, each compared with :data:`PURE`
(bytes, values, errors) by :func:`agree`."""


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", result)``, or ``("error", "Type: message")`` for a gameserde error; any other
    exception propagates."""
    try:
        return "ok", fn()
    except GameserdeError as e:
        return "error", f"{type(e).__name__}: {e}"


def agree(fn: Callable[[Codec], Any]) -> tuple[str, Any]:
    """The outcome of ``fn(PURE)``, after checking that every path of :data:`CODECS` gives
    the same (values by :func:`same`, errors by type and message)."""
    want = outcome(lambda: fn(PURE))
    for codec in CODECS[1:]:
        got = outcome(lambda codec=codec: fn(codec))
        assert got[0] == want[0] and (
            same(got[1], want[1]) if got[0] == "ok" else got[1] == want[1]), (
            f"{codec.name} gives {got!r}, {PURE.name} {want!r}")
    return want

# ---------------------------------------------------------------------------------------------
# The model of a generated solution

INT_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
VECTORS = {"vector2": 2, "vector3": 3, "vector4": 4, "quaternion": 4}
INT_VECTORS = {"vector2int": 2, "vector3int": 3}
SCALARS = ("bool", "byte", "short", "int", "long", "float", "double", "binary", "string",
           "decimal", *VECTORS, *INT_VECTORS)
KEYABLE_SCALARS = tuple(s for s in SCALARS if s not in ("float", "double"))


@dataclasses.dataclass(frozen=True)
class Type:
    """A declared type: a scalar name, ``bean`` (``bean`` its full name), ``dynamic``
    (``members``: (bean full name, TypeId) pairs), ``list``/``set`` (``element``) or ``map``
    (``key``, ``element`` the value type)."""

    kind: str
    element: Type | None = None
    key: Type | None = None
    bean: str = ""
    members: tuple[tuple[str, int], ...] = ()


@dataclasses.dataclass
class Var:
    """A variable: its type, and what its XML says (``type``, ``key``, ``value``, the
    ``<value bean=...>`` children, ``default``)."""

    id: int
    name: str
    type: Type
    type_attr: str
    key_attr: str = ""
    value_attr: str = ""
    children: tuple[str, ...] = ()
    default_text: str | None = None
    default: Any = None
    transient: bool = False
    tag: str = "variable"

    def xml(self) -> str:
        attrs = f'id="{self.id}" name="{self.name}" type="{self.type_attr}"'
        if self.key_attr:
            attrs += f' key="{self.key_attr}"'
        if self.value_attr:
            attrs += f' value="{self.value_attr}"'
        if self.default_text is not None:
            attrs += f' default="{self.default_text}"'
        if self.transient:
            attrs += ' transient="true"'
        if not self.children:
            return f"<{self.tag} {attrs}/>"
        values = "".join(f'<value bean="{c}"/>' for c in self.children)
        return f"<{self.tag} {attrs}>{values}</{self.tag}>"


@dataclasses.dataclass
class Bean:
    full: str
    kind: str  # bean or beankey
    space: str  # the declaring module's full name (or the solution's)
    base: str | None
    vars: list[Var] = dataclasses.field(default_factory=list)
    base_attr: str = ""

    def xml(self) -> str:
        name = self.full.rpartition(".")[2]
        base = f' base="{self.base_attr}"' if self.base_attr else ""
        body = "".join(v.xml() for v in self.vars)
        return f'<{self.kind} name="{name}"{base}>{body}</{self.kind}>'


@dataclasses.dataclass
class Solution:
    """A generated solution: ``modules`` (full name -> id, parents before children) and
    ``beans`` (full name -> :class:`Bean`, in declaration order)."""

    name: str
    modules: dict[str, int]
    beans: dict[str, Bean]

    @property
    def xml(self) -> str:
        def module(path: str) -> str:
            inner = "".join(b.xml() for b in self.beans.values() if b.space == path)
            inner += "".join(module(m) for m in self.modules if m.rpartition(".")[0] == path)
            return f'<module name="{path.rpartition(".")[2]}" id="{self.modules[path]}">' \
                   f"{inner}</module>"

        top = "".join(b.xml() for b in self.beans.values() if b.space == self.name)
        top += "".join(module(m) for m in self.modules if m.count(".") == 1)
        return f'<?xml version="1.0"?>\n<solution name="{self.name}">{top}</solution>'

    def layers(self, full: str) -> list[list[Var]]:
        """The bean's own variables, then its base's, and so on (transient ones left out)."""
        out = []
        bean: Bean | None = self.beans[full]
        while bean is not None:
            out.append([v for v in bean.vars if not v.transient])
            bean = self.beans[bean.base] if bean.base else None
        return out

    def keeps_unknown(self, full: str) -> bool:
        """Java keeps unknown fields (in the base-most layer) of beans, not of beankeys."""
        return self.beans[full].kind == "bean"

    def family(self, base: str) -> list[str]:
        """``base`` and every bean derived from it."""
        found = [base]
        for full, bean in self.beans.items():
            if bean.base in found:
                found.append(full)
        return found


# ---------------------------------------------------------------------------------------------
# Solutions

def _ids(draw: st.DrawFn, max_size: int) -> list[int]:
    """Variable ids: mostly small and close, some past gaps wider than 15, some up to 4095;
    a few beans have none."""
    near = st.integers(1, 18)
    far = st.one_of(st.integers(17, 200), st.integers(200, 4095), st.just(4095))
    least = draw(st.sampled_from([1, 1, 1, 1, 1, 1, 1, 0]))
    return sorted(draw(st.lists(st.one_of(near, near, far), unique=True, min_size=least,
                                max_size=max_size)))


def _ref(sol: Solution, space: str, target: str, draw: st.DrawFn) -> str:
    """How a bean declared in ``space`` names ``target`` in its XML."""
    if sol.beans[target].space == space and draw(st.booleans()):
        return target.rpartition(".")[2]
    return target


def _default(draw: st.DrawFn, kind: str) -> tuple[str, Any] | None:
    """A ``default=`` text for a variable of ``kind`` and the value it gives, or None."""
    if kind == "bool":
        value = draw(st.booleans())
        return ("true" if value else "false"), value
    if kind in INT_BITS:
        bits = INT_BITS[kind]
        value = draw(st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
        if 0 <= value < 128 and draw(st.booleans()):
            return hex(value), value
        return str(value), value
    if kind == "float":
        value = draw(st.floats(width=32, allow_nan=False, allow_infinity=False))
        return repr(value) + draw(st.sampled_from(["", "f", "F"])), value
    if kind == "double":
        special = {"Double.NaN": math.nan, "Double.POSITIVE_INFINITY": math.inf,
                   "Float.NEGATIVE_INFINITY": -math.inf}
        if draw(st.integers(0, 4)) == 0:
            text = draw(st.sampled_from(sorted(special)))
            return text, special[text]
        value = draw(st.floats(allow_nan=False, allow_infinity=False))
        return repr(value), value
    if kind == "string":
        text = draw(st.text(string.ascii_letters + string.digits + " _", max_size=6))
        return text, text
    if kind in VECTORS or kind in INT_VECTORS:
        n = VECTORS.get(kind) or INT_VECTORS[kind]
        parts = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n))
        value = tuple(float(p) if kind in VECTORS else p for p in parts)
        return ",".join(map(str, parts)), value
    return None


class _Context(NamedTuple):
    sol: Solution
    index: int  # the bean being declared
    order: list[str]  # every bean's full name, in declaration order


def _dynamic(draw: st.DrawFn, c: _Context, space: str) -> tuple[Type, tuple[str, ...], str]:
    """A dynamic: its type, its ``<value>`` children and its type text (``dynamic`` or
    ``dynamic:Base``)."""
    beans = [b for b in c.order if c.sol.beans[b].kind == "bean"]
    if beans and draw(st.integers(0, 3)) == 0:
        base = draw(st.sampled_from(beans))
        members = tuple((b, hash64(b)) for b in c.sol.family(base))
        return Type("dynamic", members=members), (), f"dynamic:{_ref(c.sol, space, base, draw)}"
    chosen = draw(st.lists(st.sampled_from(beans), unique=True, max_size=3)) if beans else []
    if draw(st.booleans()):
        ids = draw(st.lists(st.one_of(st.integers(1, 200), st.integers(1, 2**63 - 1)),
                            min_size=len(chosen), max_size=len(chosen), unique=True))
        children = tuple(f"{_ref(c.sol, space, b, draw)}:{i}" for b, i in zip(chosen, ids,
                                                                               strict=True))
        members = tuple(zip(chosen, ids, strict=True))
    else:
        children = tuple(_ref(c.sol, space, b, draw) for b in chosen)
        members = tuple((b, hash64(b)) for b in chosen)
    return Type("dynamic", members=members), children, "dynamic"


def _single(draw: st.DrawFn, c: _Context, space: str, keyable: bool,
            earlier_only: bool) -> tuple[Type, str]:
    """A non-collection type (not dynamic) and its text."""
    pool = c.order[:c.index] if earlier_only else c.order
    if keyable:
        pool = [b for b in pool if c.sol.beans[b].kind == "beankey"]
    if pool and draw(st.integers(0, 3)) == 0:
        target = draw(st.sampled_from(pool))
        return Type("bean", bean=target), _ref(c.sol, space, target, draw)
    kind = draw(st.sampled_from(KEYABLE_SCALARS if keyable else SCALARS))
    return Type(kind), kind


def _var(draw: st.DrawFn, c: _Context, bean: Bean, var_id: int) -> Var:
    name = f"f{c.index}_{var_id}"
    space = bean.space
    if bean.kind == "beankey":
        t, text = _single(draw, c, space, keyable=True, earlier_only=True)
        return Var(var_id, name, t, text)
    shape = draw(st.sampled_from(["single", "single", "dynamic", "list", "set", "map"]))
    if shape == "single":
        t, text = _single(draw, c, space, keyable=False, earlier_only=True)
        var = Var(var_id, name, t, text)
        default = _default(draw, t.kind) if draw(st.integers(0, 3)) == 0 else None
        if default is not None:
            var.default_text, var.default = default
        return var
    if shape == "dynamic":
        t, children, text = _dynamic(draw, c, space)
        return Var(var_id, name, t, text, children=children)
    element: tuple[Type, str]
    children: tuple[str, ...] = ()
    if shape != "set" and draw(st.integers(0, 3)) == 0:
        dyn, children, dyn_text = _dynamic(draw, c, space)
        element = dyn, dyn_text
    else:
        element = _single(draw, c, space, keyable=shape == "set", earlier_only=False)
    if shape == "map":
        key, key_text = _single(draw, c, space, keyable=True, earlier_only=False)
        t = Type("map", element=element[0], key=key)
        template = draw(st.sampled_from(["map", "sortedmap"]))
        if draw(st.booleans()):
            return Var(var_id, name, t, template, key_text, element[1], children)
        return Var(var_id, name, t, f"{template}[{key_text},{element[1]}]", children=children)
    template = "set" if shape == "set" else draw(st.sampled_from(["list", "list", "array"]))
    t = Type("set" if shape == "set" else "list", element=element[0])
    if draw(st.booleans()):
        return Var(var_id, name, t, template, value_attr=element[1], children=children)
    return Var(var_id, name, t, f"{template}[{element[1]}]", children=children)


@st.composite
def solutions(draw: st.DrawFn, max_beans: int = 5, max_vars: int = 6) -> Solution:
    """A random solution (module docstring)."""
    name = "sol"
    modules: dict[str, int] = {}
    module_ids = draw(st.lists(st.integers(1, 2**31 - 1), min_size=3, max_size=3,
                               unique=True))
    modules[f"{name}.m0"] = module_ids[0]
    if draw(st.booleans()):
        modules[f"{name}.m0.inner"] = module_ids[1]
    if draw(st.booleans()):
        modules[f"{name}.m1"] = module_ids[2]
    spaces = [name, *modules]
    count = draw(st.integers(1, max_beans))
    sol = Solution(name, modules, {})
    order = []
    for i in range(count):
        space = draw(st.sampled_from(spaces))
        kind = "beankey" if draw(st.integers(0, 3)) == 0 else "bean"
        full = f"{space}.B{i}"
        base = None
        bases = [b for b in order if sol.beans[b].kind == "bean"]
        if kind == "bean" and bases and draw(st.integers(0, 3)) == 0:
            base = draw(st.sampled_from(bases))
        sol.beans[full] = Bean(full, kind, space, base)
        order.append(full)
    for i, full in enumerate(order):
        bean = sol.beans[full]
        if bean.base:
            bean.base_attr = _ref(sol, bean.space, bean.base, draw)
        c = _Context(sol, i, order)
        for var_id in _ids(draw, max_vars):
            var = _var(draw, c, bean, var_id)
            var.transient = draw(st.integers(0, 9)) == 0
            var.tag = draw(st.sampled_from(["variable", "variable", "var"]))
            bean.vars.append(var)
    return sol


@st.composite
def older_versions(draw: st.DrawFn, sol: Solution) -> Solution:
    """An older version of ``sol``: the same beans with some variables gone (same ids, types
    and names for the rest), from every bean whose unknown fields Java keeps, that is every
    bean without ``base=`` (its layer is the base-most, where Java keeps them). A bean
    field, a collection of beans or a dynamic that goes takes its whole nested content
    along, and nested beans lose variables of their own."""
    beans = {}
    for full, bean in sol.beans.items():
        evolves = bean.kind == "bean" and bean.base is None
        kept = [v for v in bean.vars if not evolves or draw(st.integers(0, 2)) > 0]
        beans[full] = dataclasses.replace(bean, vars=kept)
    return dataclasses.replace(sol, beans=beans)


# ---------------------------------------------------------------------------------------------
# Values

float32s = st.floats(width=32)
"""Every float32 (as a Python float): -0.0, NaNs, infinities, subnormals."""

KEY_FLOAT32S = st.floats(width=32, allow_nan=False)
"""Components of vectors used as keys (NaN is not equal to itself, so not a usable key)."""


def _bits_to_double(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return value


doubles = st.one_of(st.floats(), st.integers(0, 2**64 - 1).map(_bits_to_double))
"""Every double, NaN payloads included."""

texts = st.text(st.characters(blacklist_categories=["Cs"]), max_size=10)
"""Strings Java reads back as written (no lone surrogates)."""

decimals = st.builds(lambda n, e: decimal.Decimal(f"{n}E{e}"),
                     st.integers(-(10**30), 10**30), st.integers(-40, 40))


def _unknown_bean_body(draw: st.DrawFn, depth: int) -> bytes:
    """A bean body of made-up fields (integers, strings, nested beans) and its end tag."""
    out = b""
    last = 0
    for field_id in sorted(draw(st.lists(st.integers(1, 40), unique=True, max_size=3))):
        kind = draw(st.sampled_from([wire.INTEGER, wire.BYTES, wire.BEAN] if depth < 3
                                    else [wire.INTEGER, wire.BYTES]))
        out += wire.tag(field_id - last, kind)
        last = field_id
        if kind == wire.INTEGER:
            out += wire.wlong(draw(st.integers(-(2**63), 2**63 - 1)))
        elif kind == wire.BYTES:
            out += wire.blob(draw(st.binary(max_size=6)))
        else:
            out += _unknown_bean_body(draw, depth + 1)
    return out + b"\x00"


def _unknown_payload(draw: st.DrawFn, kind: int) -> bytes:
    """A valid value of wire type ``kind``, built from the spec."""
    longs = st.integers(-(2**63), 2**63 - 1).map(wire.wlong)
    if kind == wire.INTEGER:
        return draw(longs)
    if kind in (wire.FLOAT, wire.DOUBLE, wire.VECTOR2, wire.VECTOR3, wire.VECTOR4):
        n = {wire.FLOAT: 4, wire.DOUBLE: 8, wire.VECTOR2: 8, wire.VECTOR3: 12,
             wire.VECTOR4: 16}[kind]
        return draw(st.binary(min_size=n, max_size=n))
    if kind in (wire.VECTOR2INT, wire.VECTOR3INT):
        n = 2 if kind == wire.VECTOR2INT else 3
        return b"".join(draw(st.lists(longs, min_size=n, max_size=n)))
    if kind == wire.BYTES:
        return wire.blob(draw(st.binary(max_size=8)))
    if kind == wire.LIST:
        items = draw(st.lists(longs, max_size=17))
        return wire.list_header(len(items), wire.INTEGER) + b"".join(items)
    if kind == wire.MAP:
        pairs = draw(st.lists(st.tuples(longs, st.binary(max_size=4)), max_size=3))
        return wire.map_header(len(pairs), wire.INTEGER, wire.BYTES) + b"".join(
            k + wire.blob(v) for k, v in pairs)
    body = _unknown_bean_body(draw, 0)
    return body if kind == wire.BEAN else draw(longs) + body


def _unknown_fields(draw: st.DrawFn, known: set[int]) -> list[UnknownField]:
    ids = draw(st.lists(st.one_of(st.integers(1, 30), st.integers(1, 5000)), unique=True,
                        min_size=1, max_size=3))
    out = []
    for i in ids:
        if i in known:
            continue
        kind = draw(st.integers(0, 12))
        out.append(UnknownField(i, kind, _unknown_payload(draw, kind)))
    return out


@st.composite
def unknown_fields(draw: st.DrawFn, known: set[int]) -> list[UnknownField]:
    """Up to three unknown fields of any wire type, with ids not in ``known``."""
    return _unknown_fields(draw, known)


def _members(t: Type) -> dict[str, int]:
    return dict(t.members)


def value_of(draw: st.DrawFn, sol: Solution, t: Type, budget: int, key: bool = False) -> Any:
    """A value of type ``t``; collections and dynamics stay empty once ``budget`` is spent;
    ``key``: a map key or set element (hashable, no NaN)."""
    kind = t.kind
    if kind == "bool":
        return draw(st.booleans())
    if kind in INT_BITS:
        bits = INT_BITS[kind]
        return draw(st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
    if kind == "float":
        return draw(float32s)
    if kind == "double":
        return draw(doubles)
    if kind == "binary":
        return draw(st.binary(max_size=12))
    if kind == "string":
        return draw(texts)
    if kind == "decimal":
        return draw(decimals)
    if kind in VECTORS:
        n = VECTORS[kind]
        return tuple(draw(st.lists(KEY_FLOAT32S if key else float32s, min_size=n, max_size=n)))
    if kind in INT_VECTORS:
        n = INT_VECTORS[kind]
        return tuple(draw(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=n, max_size=n)))
    if kind == "bean":
        return bean_value(draw, sol, t.bean, budget - 1, key)
    if kind == "dynamic":
        choice = draw(st.integers(0, 5))
        if choice == 0 or budget <= 0 or not t.members:
            return draw(st.sampled_from([None, Dynamic(None, {}), Dynamic(None, {}, 0)]))
        bean, type_id = draw(st.sampled_from(t.members))
        value = bean_value(draw, sol, bean, budget - 1)
        name = bean if choice < 4 else bean.rpartition(".")[2]
        return Dynamic(name, value, type_id if choice % 2 else None)
    assert t.element is not None
    size = st.sampled_from([0, 1, 2, 3] if budget > 0 else [0])
    if budget > 0 and t.element.kind in INT_BITS and draw(st.integers(0, 4)) == 0:
        size = st.integers(14, 18)  # the list header's extended count
    if kind == "list":
        return [value_of(draw, sol, t.element, budget - 1) for _ in range(draw(size))]
    if kind == "set":
        items = [value_of(draw, sol, t.element, budget - 1, key=True) for _ in range(draw(size))]
        return list(dict.fromkeys(items))
    assert t.key is not None
    out = {}
    for _ in range(draw(size)):
        k = value_of(draw, sol, t.key, budget - 1, key=True)
        out[k] = value_of(draw, sol, t.element, budget - 1)
    return out


def zeros(sol: Solution, full: str) -> dict[str, Any]:
    """Bean ``full`` with every field at its zero value (``default=`` ignored)."""
    out = {}
    for layer in sol.layers(full):
        for v in layer:
            out[v.name] = zeros(sol, v.type.bean) if v.type.kind == "bean" else (
                constructed(sol, v.type))
    return out


def bean_value(draw: st.DrawFn, sol: Solution, full: str, budget: int,
               key: bool = False) -> Any:
    """A value of bean ``full``: a dict (a :class:`FrozenBean` when ``key``, with every
    field) that may leave fields out, may carry unknown fields, or may be all zeros."""
    if not key and draw(st.integers(0, 7)) == 0:
        return zeros(sol, full)
    out: dict[str, Any] = {}
    layers = sol.layers(full)
    for layer in reversed(layers):
        for var in layer:
            if key or draw(st.integers(0, 4)) > 0:
                out[var.name] = value_of(draw, sol, var.type, budget, key)
    if key:
        return FrozenBean(out)
    if sol.keeps_unknown(full) and draw(st.integers(0, 5)) == 0:
        unknown = _unknown_fields(draw, {v.id for v in layers[-1]})
        if unknown:
            out[UNKNOWN_KEY] = unknown
    return out


@st.composite
def bean_values(draw: st.DrawFn, sol: Solution, full: str, budget: int = 3) -> Any:
    """A value of bean ``full`` of ``sol`` (module docstring)."""
    return bean_value(draw, sol, full, budget)


@st.composite
def cases(draw: st.DrawFn, max_beans: int = 5) -> tuple[Solution, str, Any]:
    """A solution, one of its beans and a value of it."""
    sol = draw(solutions(max_beans))
    full = draw(st.sampled_from(list(sol.beans)))
    return sol, full, draw(bean_values(sol, full))


# ---------------------------------------------------------------------------------------------
# What decoding gives


def constructed(sol: Solution, t: Type) -> Any:
    """What Java's constructor gives a field of ``t`` that has no ``default=``: what encoding
    uses for a field a value leaves out, and what decoding gives a field absent from the
    wire. The zero value, except for a bean: ``new Bean()``, whose fields hold their own
    ``default=`` or constructor values."""
    kind = t.kind
    if kind == "bool":
        return False
    if kind in INT_BITS:
        return 0
    if kind in ("float", "double"):
        return 0.0
    if kind == "binary":
        return b""
    if kind == "string":
        return ""
    if kind == "decimal":
        return decimal.Decimal(0)
    if kind in VECTORS:
        return (0.0,) * VECTORS[kind]
    if kind in INT_VECTORS:
        return (0,) * INT_VECTORS[kind]
    if kind == "bean":
        return {v.name: constructed(sol, v.type) if v.default is None else v.default
                for layer in sol.layers(t.bean) for v in layer}
    if kind == "dynamic":
        return Dynamic(None, {}, 0)
    if kind == "map":
        return {}
    return []


def _field(sol: Solution, var: Var, value: Any) -> Any:
    """The value the field ``var`` of a bean value ``value`` is written with."""
    if var.name in value:
        return value[var.name]
    return constructed(sol, var.type) if var.default is None else var.default


def omitted(sol: Solution, t: Type, v: Any) -> bool:
    """Whether a field of type ``t`` holding ``v`` is left out of the encoding: its zero
    value (-0.0 included, NaN not), an empty container, the EmptyBean, a bean whose body is
    only its end tag; never a decimal."""
    kind = t.kind
    if kind in VECTORS or kind in INT_VECTORS:
        return all(c == 0 for c in v)
    if kind in ("binary", "string", "list", "set", "map"):
        return len(v) == 0
    if kind == "decimal":
        return False
    if kind == "dynamic":
        return v is None or v.bean is None
    if kind == "bean":
        layers = sol.layers(t.bean)
        return len(layers) == 1 and not (sol.keeps_unknown(t.bean) and v.get(UNKNOWN_KEY)) \
            and all(omitted(sol, f.type, _field(sol, f, v)) for f in layers[0])
    return bool(v == 0)


def _element(sol: Solution, t: Type, v: Any, changed: list[str]) -> Any:
    """What decoding a written value (a field's or an element's) gives."""
    kind = t.kind
    if kind == "bean":
        result = _bean(sol, t.bean, v, changed)
        return FrozenBean(result) if isinstance(v, FrozenBean) else result
    if kind == "dynamic":
        if v is None or v.bean is None:
            return Dynamic(None, {}, 0)
        full = next(b for b, _ in t.members if b == v.bean or b.endswith("." + v.bean))
        return Dynamic(full, _bean(sol, full, v.value, changed), _members(t)[full])
    if kind in ("list", "set"):
        assert t.element is not None
        return [_element(sol, t.element, e, changed) for e in v]
    if kind == "map":
        assert t.element is not None and t.key is not None
        return {_element(sol, t.key, k, changed): _element(sol, t.element, x, changed)
                for k, x in v.items()}
    if kind in VECTORS:
        return tuple(float(c) for c in v)
    return v


def _bean(sol: Solution, full: str, value: Any, changed: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for layer in sol.layers(full):
        for var in layer:
            v = _field(sol, var, value)
            if not omitted(sol, var.type, v):
                out[var.name] = _element(sol, var.type, v, changed)
                continue
            out[var.name] = constructed(sol, var.type)
            if not omitted(sol, var.type, out[var.name]):
                changed.append(f"{full}.{var.name}")
    unknown = value.get(UNKNOWN_KEY) if sol.keeps_unknown(full) else None
    if unknown:
        out[UNKNOWN_KEY] = sorted(unknown, key=lambda f: f.id)
    return out


def decoded(sol: Solution, full: str, value: Any) -> dict[str, Any]:
    """The value decoding ``encode(value)`` as bean ``full`` gives: every field, a field
    left out of the value taking its ``default=`` or constructor value when written, a field
    left out of the encoding reading back as its constructor value (so a float or vector
    field of zeros, -0.0 included, reads +0.0, and a bean field of zeros reads Java's
    ``new Bean()``), kept unknown fields in id order."""
    return _bean(sol, full, value, [])


def rewritten_the_same(sol: Solution, full: str, value: Any) -> bool:
    """Whether re-encoding the decoded value gives the same bytes. Not when a bean field was
    left out (all zeros) and reads back as a ``new Bean()`` whose ``default=`` values are
    written: Java does the same."""
    changed: list[str] = []
    _bean(sol, full, value, changed)
    return not changed


def same(a: Any, b: Any) -> bool:
    """Strict equality: the same types, floats bit for bit (NaN equal to any NaN), dicts with
    the same keys and the same values under them, sequences element by element. Iterative:
    values may nest as deep as the decoders allow."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y) and not (isinstance(x, dict | FrozenBean)
                                           and isinstance(y, dict | FrozenBean)):
            return False
        if isinstance(x, float):
            if math.isnan(x) or math.isnan(y):
                if not (math.isnan(x) and math.isnan(y)):
                    return False
            elif struct.pack("<d", x) != struct.pack("<d", y):
                return False
        elif isinstance(x, decimal.Decimal):
            if str(x) != str(y):
                return False
        elif isinstance(x, dict | FrozenBean):
            if set(x) != set(y):
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list | tuple):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True
