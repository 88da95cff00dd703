"""A resource file as JSON: what ``gameserde decode godot FILE.tres`` writes and ``encode``
reads back to the same bytes.

    {"$godot": {"resource": "text", "engine": [4, 0], "format": 3, "json": "native",
                "kept": {...}},
     "type": "Resource", "uid": "uid://...", "script_class": null,
     "external": [{"type": "Texture2D", "path": "res://icon.svg", "id": "1_abcde",
                   "uid": "uid://..."}],
     "resources": [{"type": "Resource", "id": "", "properties": {"gold": "i:1200"}}],
     "scene": null}

Property values (and a scene's node properties, instances and connection binds) are in the
Variant JSON view the codec's ``json`` option names (``native`` or ``plain``, see
:mod:`gameserde.godot.jsonview`), with ``ExtResource``/``SubResource`` references by id.
``"kept"`` is what the file's form keeps for a byte-exact rewrite (the text as written, the
binary string table, ...), always in the plain view: edit the values, leave ``"kept"`` as it
is (a value that no longer matches its kept text is written afresh, as the engine prints
it). A scene has ``"scene"``: ``{"version", "nodes": [{"name", "type", "parent",
"instance", "groups", "properties", "extra"}], "connections": [{"source", "signal",
"target", "method", "flags", "binds", "unbinds", "extra"}], "editable": [...]}``.
"""

from __future__ import annotations

from typing import Any

from gameserde.errors import DecodeError
from gameserde.godot import jsonview
from gameserde.godot.resource.model import (
    Connection,
    ExtResource,
    Resource,
    ResourceFile,
    Scene,
    SceneNode,
)

__all__ = ["HEADER", "from_jsonable", "is_resource_document", "to_jsonable"]

HEADER = "$godot"


def to_jsonable(file: ResourceFile, *, mode: str = "native") -> dict[str, Any]:
    """``file`` as JSON values, its Variant values in the ``mode`` view."""
    def value(v: Any) -> Any:
        return jsonview.to_jsonable(v, mode=mode)  # type: ignore[arg-type]

    head = {"resource": file.form, "engine": list(file.engine), "format": file.format,
            "json": mode, "kept": jsonview.to_jsonable(file.kept, mode="plain")}
    scene = None
    if file.scene is not None:
        s = file.scene
        scene = {"version": s.version,
                 "nodes": [{"name": n.name, "type": n.type, "parent": n.parent,
                            "instance": value(n.instance), "groups": list(n.groups),
                            "properties": {k: value(v) for k, v in n.properties.items()},
                            "extra": value(n.extra)} for n in s.nodes],
                 "connections": [{"source": c.source, "signal": c.signal, "target": c.target,
                                  "method": c.method, "flags": c.flags,
                                  "binds": [value(b) for b in c.binds],
                                  "unbinds": c.unbinds, "extra": value(c.extra)}
                                 for c in s.connections],
                 "editable": list(s.editable)}
    return {HEADER: head, "type": file.type, "uid": file.uid,
            "script_class": file.script_class,
            "external": [{"type": e.type, "path": e.path, "id": e.id, "uid": e.uid}
                         for e in file.external],
            "resources": [{"type": r.type, "id": r.id,
                           "properties": {k: value(v) for k, v in r.properties.items()}}
                          for r in file.resources],
            "scene": scene}


def is_resource_document(doc: Any) -> bool:
    """Whether JSON values ``doc`` are a resource file's (its header names a form)."""
    return (isinstance(doc, dict) and isinstance(doc.get(HEADER), dict)
            and "resource" in doc[HEADER])


def from_jsonable(doc: Any) -> ResourceFile:
    """The resource file JSON values ``doc`` stand for (as :func:`to_jsonable` writes
    them); a :class:`~gameserde.errors.DecodeError` with the JSON path of what is wrong."""
    head = _get(doc, HEADER, dict, "$")
    mode = head.get("json", "native")
    if mode not in ("native", "plain"):
        raise DecodeError(f'"json" is "native" or "plain", not {mode!r}',
                          path=f"$.{HEADER}.json", format="godot")

    def value(v: Any, path: str) -> Any:
        try:
            return jsonview.from_jsonable(v, mode=mode, path=path)
        except DecodeError as e:
            e.format = "godot"
            raise

    form = _get(head, "resource", str, f"$.{HEADER}")
    if form not in ("binary", "text"):
        raise DecodeError(f'"resource" is "binary" or "text", not {form!r}',
                          path=f"$.{HEADER}.resource", format="godot")
    engine = _get(head, "engine", list, f"$.{HEADER}")
    if len(engine) != 2 or not all(type(x) is int for x in engine):
        raise DecodeError('"engine" is [major, minor]', path=f"$.{HEADER}.engine",
                          format="godot")
    kept = jsonview.from_jsonable(head.get("kept", {}), mode="plain", path=f"$.{HEADER}.kept")
    file = ResourceFile(form=form, type=_get(doc, "type", str, "$"),
                        engine=(engine[0], engine[1]),
                        format=_get(head, "format", int, f"$.{HEADER}"),
                        uid=_opt(doc, "uid", "$"), script_class=_opt(doc, "script_class", "$"),
                        kept=kept if isinstance(kept, dict) else {})
    for i, e in enumerate(_get(doc, "external", list, "$")):
        where = f"$.external[{i}]"
        file.external.append(ExtResource(_get(e, "type", str, where), _get(e, "path", str, where),
                                         _get(e, "id", str, where), _opt(e, "uid", where)))
    for i, r in enumerate(_get(doc, "resources", list, "$")):
        where = f"$.resources[{i}]"
        props = _get(r, "properties", dict, where)
        file.resources.append(Resource(_get(r, "type", str, where), _get(r, "id", str, where),
                                       {k: value(v, f"{where}.properties.{k}")
                                        for k, v in props.items()}))
    if not file.resources:
        raise DecodeError("a resource file holds at least one resource", path="$.resources",
                          format="godot")
    scene = doc.get("scene")
    if scene is not None:
        file.scene = _scene(scene, value)
    return file


def _scene(doc: Any, value: Any) -> Scene:
    scene = Scene(version=_get(doc, "version", int, "$.scene"),
                  editable=[str(p) for p in _get(doc, "editable", list, "$.scene")])
    for i, n in enumerate(_get(doc, "nodes", list, "$.scene")):
        where = f"$.scene.nodes[{i}]"
        extra = value(n.get("extra", {}), f"{where}.extra")
        scene.nodes.append(SceneNode(
            _get(n, "name", str, where), _opt(n, "type", where), _opt(n, "parent", where),
            value(n.get("instance"), f"{where}.instance"),
            [str(g) for g in _get(n, "groups", list, where)],
            {k: value(v, f"{where}.properties.{k}")
             for k, v in _get(n, "properties", dict, where).items()},
            dict(extra) if isinstance(extra, dict) else {}))
    for i, c in enumerate(_get(doc, "connections", list, "$.scene")):
        where = f"$.scene.connections[{i}]"
        extra = value(c.get("extra", {}), f"{where}.extra")
        scene.connections.append(Connection(
            _get(c, "source", str, where), _get(c, "signal", str, where),
            _get(c, "target", str, where), _get(c, "method", str, where),
            _get(c, "flags", int, where),
            [value(b, f"{where}.binds[{j}]") for j, b in enumerate(_get(c, "binds", list,
                                                                       where))],
            _get(c, "unbinds", int, where), dict(extra) if isinstance(extra, dict) else {}))
    return scene


def _get(obj: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise DecodeError(f'"{key}" is missing', path=f"{where}.{key}", format="godot")
    got = obj[key]
    if not isinstance(got, kind) or (kind is int and isinstance(got, bool)):
        raise DecodeError(f'"{key}" is a {_kind(kind)}, not {type(got).__name__}',
                          path=f"{where}.{key}", format="godot")
    return got


def _opt(obj: Any, key: str, where: str) -> Any:
    got = obj.get(key) if isinstance(obj, dict) else None
    if got is not None and not isinstance(got, str):
        raise DecodeError(f'"{key}" is a string or null, not {type(got).__name__}',
                          path=f"{where}.{key}", format="godot")
    return got


def _kind(kind: type) -> str:
    names: dict[type, str] = {str: "string", int: "number", list: "list", dict: "object"}
    return names.get(kind, kind.__name__)
