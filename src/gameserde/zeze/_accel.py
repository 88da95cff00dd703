"""Glue to the optional C twin of the Zeze bean codec (``_speedups``, built at install).

The pure-Python encoder and decoder are the reference. The C twin handles beans that are
plain (one layer; no decimal, no beankey as a map key or set element; every nested bean and
every bean of a dynamic plain too) and values of the common Python types; whenever it meets
anything else, bad input, or absent fields whose defaults would overrun the
``max_expansion`` budget, it gives up (:func:`decode` here returns None, a ``Codec``
method calls the reference it was given), and the reference runs over the whole input, which
gives the result or raises the exact error. So the public API gives the same bytes, values
and errors with or without it.

``ENABLED`` is true when the extension is importable and ``GAMESERDE_PURE`` is not set to a
non-empty value other than ``0``; tests switch it off to force the reference.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

from gameserde._expansion import UNLIMITED
from gameserde._extensions import load_extension, pure_requested
from gameserde.zeze._javastr import decode_java
from gameserde.zeze._plan import IMMUTABLE_KINDS, BeanPlan, Plans, TypePlan
from gameserde.zeze.values import Dynamic

API_VERSION = 3

speedups: Any = load_extension("gameserde.zeze._speedups", API_VERSION)

ENABLED = speedups is not None and not pure_requested()

_KINDS = {"bool": 0, "int": 1, "float": 2, "double": 3, "string": 4, "binary": 5, "list": 6,
          "set": 7, "map": 8, "bean": 9, "vector": 10, "vectorint": 11, "dynamic": 12}


class _Compiler:
    """Numbers the plain beans and their types for ``_speedups.Program``."""

    def __init__(self, plans: Plans) -> None:
        self.plans = plans
        self.types: list[tuple[Any, ...]] = []
        self.beans: list[Any] = []
        self.index: dict[str, int | None] = {}

    def bean(self, name: str) -> int | None:
        """The bean's index in the program, or None when it is not plain."""
        if name in self.index:
            return self.index[name]
        plan = self.plans.bean(name)
        if len(plan.layers) != 1:
            self.index[name] = None
            return None
        slot = len(self.beans)
        self.index[name] = slot
        self.beans.append(([], None, None, ()))
        fields = []
        for f in plan.layers[0]:
            t = self.type(f.type)
            if t is None:
                self.index[name] = None
                return None
            fields.append((f.id, f.name, t, f.default, min(f.cost, UNLIMITED)))
        cls, descriptors = _slots(plan)
        self.beans[slot] = (fields, cls, descriptors, tuple(sorted(plan.transient)))
        return slot

    def type(self, t: TypePlan) -> int | None:
        if t.kind not in _KINDS:
            return None
        elem = key = value = bean = -1
        if t.element is not None:
            elem = self._sub(t.element, keyed=t.kind == "set")
        if t.key is not None:
            key = self._sub(t.key, keyed=True)
        if t.value is not None:
            value = self._sub(t.value, keyed=False)
        if t.bean is not None:
            found = self.bean(t.bean)
            bean = -2 if found is None else found
        members: list[tuple[int, int, str]] = []
        if t.dynamic is not None:
            for name, type_id in t.dynamic.by_bean.items():
                slot = self.bean(name)
                if slot is None:
                    return None
                members.append((type_id, slot, name))
        if -2 in (elem, key, value, bean):
            return None
        zero = self.plans.zero(t) if t.kind in IMMUTABLE_KINDS else None
        self.types.append((_KINDS[t.kind], t.wire, t.bits, elem, key, value, bean, zero,
                           tuple(members)))
        return len(self.types) - 1

    def _sub(self, t: TypePlan, keyed: bool) -> int:
        if keyed and t.kind == "bean":
            return -2
        found = self.type(t)
        return -2 if found is None else found


class Program:
    """The C program of one schema's plain beans (built on first use)."""

    def __init__(self, plans: Plans) -> None:
        compiler = _Compiler(plans)
        for name in plans.schema.beans:
            compiler.bean(name)
        plain = {name for name, i in compiler.index.items() if i is not None}
        with_class = {name for name in plain
                      if compiler.beans[compiler.index[name] or 0][1] is not None}
        # a bean is plain only if every bean it reaches is: drop the others' slots; it is
        # made as dataclass instances only if every bean it reaches has a slotted class
        self.slots: dict[str, int] = {}
        self.class_slots: dict[str, int] = {}
        for name in plain:
            slot = compiler.index[name]
            assert slot is not None
            reached = _reached(compiler, name)
            if reached <= plain:
                self.slots[name] = slot
                if reached <= with_class:
                    self.class_slots[name] = slot
        self.program = speedups.Program(compiler.types, compiler.beans, decode_java, Dynamic)


def _slots(plan: BeanPlan) -> tuple[type | None, tuple[Any, ...] | None]:
    """The bean's dataclass and its fields' slot descriptors, when the C twin can make and
    read its instances itself: a dataclass with ``__slots__`` whose fields are exactly the
    bean's, and no ``__post_init__`` (that the reference's ``cls(**fields)`` would run)."""
    cls = plan.cls
    if cls is None or not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return None, None
    fields = dataclasses.fields(cls)
    if (not all(f.init for f in fields)
            or {f.name for f in fields} != {f.name for f in plan.layers[0]}):
        return None, None
    descriptors = tuple(cls.__dict__.get(f.name) for f in plan.layers[0])
    if not all(isinstance(d, types.MemberDescriptorType) for d in descriptors):
        return None, None
    return cls, descriptors


def _reached(compiler: _Compiler, name: str) -> set[str]:
    """The beans ``name`` reaches through fields, elements and dynamics (itself included)."""
    seen = {name}
    stack = [name]
    while stack:
        for f in compiler.plans.bean(stack.pop()).layers[0]:
            for t in _types(f.type):
                reached = [t.bean] if t.bean is not None else []
                if t.dynamic is not None:
                    reached += t.dynamic.by_bean
                for bean in reached:
                    if bean not in seen:
                        seen.add(bean)
                        stack.append(bean)
    return seen


def _types(t: TypePlan) -> list[TypePlan]:
    out = [t]
    for sub in (t.element, t.key, t.value):
        if sub is not None:
            out += _types(sub)
    return out


def program_of(plans: Plans) -> Program:
    program: Program | None = getattr(plans, "_program", None)
    if program is None:
        program = Program(plans)
        plans._program = program  # type: ignore[attr-defined]
    return program


def _slot(plans: Plans, plan: BeanPlan, max_depth: int, classes: bool = False) -> int | None:
    """The bean's slot in the schema's C program, or None when C cannot serve it."""
    if not ENABLED or max_depth > speedups.MAX_C_DEPTH:
        return None
    program = program_of(plans)
    return (program.class_slots if classes else program.slots).get(plan.name)


def codec(plans: Plans, plan: BeanPlan, max_depth: int, encode_reference: Any,
          decode_reference: Any, classes: bool, max_expansion: float | None,
          slack: int) -> Any:
    """A ``_speedups.Codec`` for ``plan`` (its ``encode``/``decode`` methods run C and call
    the references when C gives up), or None when C cannot serve the bean (``classes``:
    decoding makes the schema's dataclass instances; a decode may build ``max_expansion``
    times the input's size plus ``slack`` default values, as the reference counts them)."""
    classes = classes and plan.cls is not None
    slot = _slot(plans, plan, max_depth, classes)
    if slot is None:
        return None
    factor = -1.0 if max_expansion is None else max_expansion
    return speedups.Codec(program_of(plans).program, slot, max_depth, encode_reference,
                          decode_reference, classes, factor, slack)


def decode(plans: Plans, plan: BeanPlan, data: Any, offset: int, max_depth: int,
           budget: int) -> tuple[Any, int] | None:
    """The C decoding of the bean at ``offset`` (building at most ``budget`` default
    values), or None when the reference must do it."""
    slot = _slot(plans, plan, max_depth)
    if slot is None:
        return None
    result: tuple[Any, int] | None = speedups.decode(program_of(plans).program, slot, data,
                                                     offset, max_depth, budget)
    return result
