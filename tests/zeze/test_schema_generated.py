"""Generated solutions: the XML written for a random schema loads back as that schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde.schema.model import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    STRING,
    List,
    Map,
    Ref,
    Set,
    Type,
)
from gameserde.zeze import hash32, hash64, load_schema, protocol_type_id

SCALARS: dict[str, Type] = {
    "bool": BOOL, "byte": INT8, "short": INT16, "int": INT32, "long": INT64,
    "float": FLOAT32, "double": FLOAT64, "binary": BYTES, "string": STRING,
    "vector2": Ref("zeze.vector2"), "vector3int": Ref("zeze.vector3int"),
    "quaternion": Ref("zeze.quaternion"), "decimal": Ref("zeze.decimal"),
}
KEYS = ("bool", "int", "long", "string", "binary", "vector2", "decimal")


@dataclass
class Spec:
    """A generated solution: its XML and what loading it must give."""

    xml: str
    types: dict[str, dict[str, tuple[int, Type]]] = field(default_factory=dict)
    unions: dict[str, dict[str, int]] = field(default_factory=dict)
    protocols: dict[str, tuple[int, str | None]] = field(default_factory=dict)


@st.composite
def solutions(draw: st.DrawFn) -> Spec:
    module = draw(st.sampled_from(["m", "role", "a_b"]))
    module_id = draw(st.integers(1, 2**31 - 1))
    space = f"sol.{module}"
    count = draw(st.integers(1, 6))
    beans = [f"B{i}" for i in range(count)]
    spec = Spec("")
    lines = [f'<solution name="sol">\n<module name="{module}" id="{module_id}">']
    for index, bean in enumerate(beans):
        full = f"{space}.{bean}"
        ids = draw(st.lists(st.integers(1, 4095), unique=True, max_size=6))
        lines.append(f'<bean name="{bean}">')
        fields: dict[str, tuple[int, Type]] = {}
        for n, var_id in enumerate(ids):
            kind = draw(st.integers(0, 6))
            extra = ""
            written_name = draw(st.sampled_from([beans[0], f"{space}.{beans[0]}"]))
            if kind == 0:
                text = draw(st.sampled_from(sorted(SCALARS)))
                expected: Type = SCALARS[text]
            elif kind == 1 and index > 0:  # a bean declared before: no cycles
                target = draw(st.sampled_from(beans[:index]))
                text, expected = target, Ref(f"{space}.{target}")
            elif kind == 2:
                elem = draw(st.sampled_from([*sorted(SCALARS), written_name]))
                expected_elem = SCALARS.get(elem, Ref(f"{space}.{beans[0]}"))
                text, expected = f"list[{elem}]", List(expected_elem)
            elif kind == 3:
                elem = draw(st.sampled_from(KEYS))
                text, expected = f"set[{elem}]", Set(SCALARS[elem])
            elif kind == 4:
                key, value = draw(st.sampled_from(KEYS)), draw(st.sampled_from(sorted(SCALARS)))
                if draw(st.booleans()):
                    text, extra = "map", f' key="{key}" value="{value}"'
                else:
                    text = f"map[{key},{value}]"
                expected = Map(SCALARS[key], SCALARS[value])
            else:
                members = draw(st.lists(st.sampled_from(beans), unique=True, max_size=3))
                special = draw(st.booleans())
                union = f"{full}.v{n}"
                spec.unions[union] = {
                    f"{space}.{b}": (i + 1 if special else hash64(f"{space}.{b}"))
                    for i, b in enumerate(members)}
                values = "".join(f'<value bean="{b}{f":{i + 1}" if special else ""}"/>'
                                 for i, b in enumerate(members))
                in_list = draw(st.booleans())
                text = "list[dynamic]" if in_list else "dynamic"
                expected = List(Ref(union)) if in_list else Ref(union)
                lines.append(f'<variable id="{var_id}" name="v{n}" type="{text}">{values}'
                             "</variable>")
                fields[f"v{n}"] = (var_id, expected)
                continue
            lines.append(f'<variable id="{var_id}" name="v{n}" type="{text}"{extra}/>')
            fields[f"v{n}"] = (var_id, expected)
        lines.append("</bean>")
        spec.types[full] = fields
        if draw(st.booleans()):
            pid = draw(st.sampled_from([None, index + 1, -index - 1]))
            attr = "" if pid is None else f' id="{pid}"'
            lines.append(f'<protocol name="P{index}"{attr} argument="{bean}"/>')
            name = f"{space}.P{index}"
            spec.protocols[name] = (protocol_type_id(module_id, pid or hash32(name)), full)
    lines.append("</module>\n</solution>")
    spec.xml = "\n".join(lines)
    return spec


@settings(max_examples=150, deadline=None)
@given(solutions())
def test_generated_solutions_load_as_written(spec: Spec) -> None:
    schema = load_schema(spec.xml)
    assert set(schema.beans) == set(spec.types)
    for name, fields in spec.types.items():
        rec = schema.bean(name)
        assert {f.name: (f.id, f.type) for f in rec.fields} == fields
        assert rec.attributes["type_id"] == hash64(name)
    for name, members in spec.unions.items():
        union = schema.union(name)
        assert {k: v for k, (v, _) in union.members.items()} == members
    got: dict[str, Any] = {name: (p.type_id, p.argument) for name, p in schema.protocols.items()}
    assert got == spec.protocols
