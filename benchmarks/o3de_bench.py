"""O3DE typed JSON (gameserde.o3de) vs the plain JSON round trip of the same text, same run.

Workload (issue 10): a prefab-like document of ``--entities`` entities (default 10,000), each
with a transform, three components of different classes behind ``shared_ptr<Component>``
(``$type`` written), a list of tags and a map of properties. Typed: ``o3de.store`` of the
dataclass tree, then ``o3de.write`` (rapidjson's pretty text); ``o3de.parse`` of that text,
then ``o3de.load``. Plain: ``json.dumps(indent=4)`` of the stored JSON value and
``json.loads`` of the text. Sides take turns for ``--rounds`` rounds; the medians are printed
with the ratios typed time / plain time (the issue's goal: at most 2.0).

    python benchmarks/o3de_bench.py [--entities N] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from gameserde import o3de


@dataclass
class Component:
    Id: Annotated[int, "AZ::u64"] = 0


@dataclass
class MeshComponent(Component):
    Model: str = ""
    Visible: bool = True


@dataclass
class LightComponent(Component):
    Color: o3de.Color = field(default_factory=lambda: o3de.Color(1.0, 1.0, 1.0, 1.0))
    Intensity: Annotated[float, "float"] = 1.0


@dataclass
class ScriptComponent(Component):
    Script: str = ""
    Parameters: dict[str, int] = field(default_factory=dict)


@dataclass
class Entity:
    Id: Annotated[int, "AZ::u64"] = 0
    Name: str = ""
    Transform: o3de.Transform = field(default_factory=lambda: o3de.Transform())
    Components: list[Component | None] = field(default_factory=list)
    Tags: list[str] = field(default_factory=list)
    Properties: dict[str, float] = field(default_factory=dict)


@dataclass
class Prefab:
    Name: str = ""
    Entities: list[Entity] = field(default_factory=list)


def registry() -> o3de.Registry:
    reg = o3de.Registry()
    reg.add_dataclass(Component, uuid="{0E3D7B5C-1E0B-4F0C-9B0A-2B5B4F1C0001}")
    for cls, n in ((MeshComponent, 2), (LightComponent, 3), (ScriptComponent, 4)):
        reg.add_dataclass(cls, uuid=f"{{0E3D7B5C-1E0B-4F0C-9B0A-2B5B4F1C000{n}}}")
    reg.add_dataclass(Entity, uuid="{0E3D7B5C-1E0B-4F0C-9B0A-2B5B4F1C0005}")
    reg.add_dataclass(Prefab, uuid="{0E3D7B5C-1E0B-4F0C-9B0A-2B5B4F1C0006}")
    return reg


def prefab(entities: int) -> Prefab:
    out = Prefab(Name="Level")
    for i in range(entities):
        transform = o3de.Transform(o3de.Vector3(i * 0.5, 2.0, -i * 0.25),
                                   o3de.Quaternion(0.0, 0.0, 0.375, 0.875), 1.5)
        out.Entities.append(Entity(
            Id=1000 + i, Name=f"Entity_{i}", Transform=transform,
            Components=[MeshComponent(Id=3 * i, Model=f"models/rock_{i % 7}.azmodel"),
                        LightComponent(Id=3 * i + 1,
                                       Color=o3de.Color(1.0, 0.5, 0.25, 1.0),
                                       Intensity=2.5 + i % 3),
                        ScriptComponent(Id=3 * i + 2, Script="scripts/spin.lua",
                                        Parameters={"speed": i % 10, "axis": 2})],
            Tags=["static", f"group_{i % 4}"],
            Properties={"mass": 10.0 + i % 5, "friction": 0.5}))
    return out


def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reg = registry()
    value = prefab(args.entities)
    doc, result = o3de.store(value, registry=reg)
    assert result.ok, result
    text = o3de.write(doc)
    back, result = o3de.load("Prefab", o3de.parse(text), registry=reg)
    assert result.ok and back == value, result
    plain_text = json.dumps(doc, indent=4)
    assert json.loads(plain_text) == doc
    print(f"{args.entities:,} entities: {len(text):,} characters of JSON")

    def typed_store() -> None:
        o3de.write(o3de.store(value, registry=reg)[0])

    def typed_load() -> None:
        o3de.load("Prefab", o3de.parse(text), registry=reg)

    def plain_store() -> None:
        json.dumps(doc, indent=4)

    def plain_load() -> None:
        json.loads(plain_text)

    ways = {"typed store + write": typed_store, "plain dumps": plain_store,
            "typed parse + load": typed_load, "plain loads": plain_load}
    times: dict[str, list[float]] = {name: [] for name in ways}
    for n in range(args.rounds):
        for name, fn in ways.items():
            times[name].append(timed(fn))
        print(f"round {n + 1}: " + ", ".join(f"{name} {t[-1]:.3f} s"
                                             for name, t in times.items()))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"\nmedians over {args.rounds} rounds, seconds; ratio = typed / plain (goal <= 2.0):")
    for typed, plain in (("typed store + write", "plain dumps"),
                         ("typed parse + load", "plain loads")):
        print(f"  {typed:<22} {med[typed]:8.3f}   {plain:<12} {med[plain]:8.3f}   "
              f"ratio {med[typed] / med[plain]:6.2f}")
    both = med["typed store + write"] + med["typed parse + load"]
    plain_both = med["plain dumps"] + med["plain loads"]
    print(f"  round trip             {both:8.3f}   plain        {plain_both:8.3f}   "
          f"ratio {both / plain_both:6.2f}")


if __name__ == "__main__":
    main()
