"""Converting a resource file between its binary and text forms, as the engine converts
one when it loads it and saves it in the other form (``ResourceLoader.load`` then
``ResourceSaver.save``): the same resources, properties and scene, with the ids, version
numbers and header the other form's saver writes.

Both ways, the resources come in the order the new form's saver finds them and the
external resources are numbered ``"1"`` to ``"N"`` as it finds them
(:mod:`.saver_order`; Godot 4's text saver adds a random suffix to those ids, ``"1_k3x2p"``,
which cannot be reproduced).

* **Binary to text.** Resources keep their ids (Godot 3's ``local://N`` numbers, Godot 4's
  scene-unique ids) and the main resource becomes the ``[resource]`` section (a scene's
  nodes; each node's groups sorted, as the text saver sorts them). Properties holding null
  are left out, as the text saver leaves out null Object properties (a binary file does not
  say a property's type; Object properties are the ones that hold null). The text format is
  the engine's (``format=2`` for Godot 3, ``3`` or ``4`` for Godot 4), and values are
  printed as that engine prints them (Godot 3.3 and later write empty dictionaries and
  infinities differently from 3.0 to 3.2; Godot 4.0 to 4.2 print floats with ``%g``, later
  versions the shortest text).
* **Text to binary.** Godot 3's resources are numbered anew in save order (its text loader
  does not give them their ids), Godot 4's keep theirs, and the main resource takes
  ``path`` (the ``res://`` path it was loaded from: the engine writes it when it saves a
  loaded resource elsewhere) or else the next ``local://`` number (a scene-unique id,
  ``"main"``, in Godot 4). A text file does not say which minor version wrote it:
  ``engine`` chooses (default: the newest of its major version gameserde knows,
  :data:`NEWEST`), and the binary format number follows from it (Godot 3.0 wrote format 2
  and every int as 64 bits). The string table lists each class's stored properties as the
  binary saver does (:mod:`.classes`).

What each form keeps for its own byte-exact rewrite (``ResourceFile.kept``) travels along,
unused, with what each form had that the conversion changed (``kept["ids"]``: per form,
the ids of the external resources and resources, their order and the null properties left
out): a file converted to the other form and back is the file it was (text to binary to
text gives the same text, binary to text to binary the same bytes), while a file converted
once is written as the engine writes a fresh one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, UsageError
from gameserde.godot import types as gt
from gameserde.godot.resource import scene as scenes
from gameserde.godot.resource import text
from gameserde.godot.resource.model import ExtResource, Resource, ResourceFile, Scene
from gameserde.godot.resource.saver_order import save_order

__all__ = ["BUNDLED", "FORMS", "NEWEST", "binary_format", "convert", "lift"]

BUNDLED = "_bundled"
"""The ``PackedScene`` property that holds a scene in the binary form."""

FORMS = ("binary", "text")
"""The two forms of a resource file."""

NEWEST = {2: (2, 1), 3: (3, 6), 4: (4, 6)}
"""The engine a text file is taken to come from when converted to binary, by major
version: the newest release of each that gameserde has files of."""

MAX_DEPTH = 1024
"""How deeply values may nest (the engine's limit)."""


def binary_format(engine: tuple[int, int]) -> int:
    """The binary format number the saver of ``engine`` writes: 1 for Godot 2, 2 for Godot
    3.0, 3 for Godot 3.1 and later, 5 for Godot 4.0 to 4.2, 6 from Godot 4.3."""
    major, minor = engine
    if major <= 2:
        return 1
    if major == 3:
        return 2 if minor == 0 else 3
    return 5 if minor < 3 else 6


def convert(file: ResourceFile, form: str, *, engine: tuple[int, int] | None = None,
            path: str | None = None) -> ResourceFile:
    """``file`` in ``form`` (``"binary"`` or ``"text"``), as the engine converts it (see the
    module's documentation); the same file when it is in that form already. To binary:
    ``engine`` is the ``(major, minor)`` version to write as (default: the file's own when
    it was binary, else the newest of its major version) and ``path`` the main resource's
    ``res://`` path."""
    if form not in FORMS:
        raise UsageError(f"a resource file is binary or text, not {form!r}")
    if form == file.form:
        return file
    file = lift(file)
    if form == "text":
        return _to_text(file)
    return _to_binary(file, engine or (NEWEST.get(file.engine[0], file.engine)
                                       if file.form == "text" else file.engine), path)


def lift(file: ResourceFile) -> ResourceFile:
    """``file`` with a binary scene's ``_bundled`` dictionary read into its :class:`Scene`
    and taken out of the ``PackedScene``'s properties; ``kept`` then has ``"bundled"`` (the
    dictionary as read, so that an unchanged scene is written back as it was) and
    ``"bundled_at"`` (its place among the properties)."""
    main = file.main if file.resources else None
    if (file.scene is not None or main is None or file.type != "PackedScene"
            or BUNDLED not in main.properties):
        return file
    try:
        scene, kept = scenes.read_bundled(main.properties[BUNDLED])
    except DecodeError as e:
        e.add_parent(f"[{len(file.resources) - 1}]")
        raise
    props = {k: v for k, v in main.properties.items() if k != BUNDLED}
    return replace(file, scene=scene,
                   resources=[*file.resources[:-1], Resource(main.type, main.id, props)],
                   kept={**file.kept, "bundled": kept["bundled"],
                         "bundled_at": list(main.properties).index(BUNDLED)})


def _to_text(file: ResourceFile) -> ResourceFile:
    major, minor = file.engine
    before = file.kept.get("ids", {}).get("text", {})
    bundled = file.kept.get("bundled")
    variants = None
    if isinstance(bundled, dict | gt.Dictionary) and "variants" in bundled:
        variants = bundled["variants"]
    if before:
        ext = {e.id: before.get("external", {}).get(e.id, e.id) for e in file.external}
        subs = {old: before.get("resources", {}).get(old, old) for old in _sub_ids(file)}
        order, nulls = _restored(file, before), {}
    else:
        order, found = save_order(file.resources, [e.id for e in file.external], "text",
                                  godot4=major >= 4, variants=variants)
        ext = {old: str(i) for i, old in enumerate(found, 1)}
        subs = {old: old for old in _sub_ids(file)}
        nulls = _nulls(file)
    subs[file.main.id] = before.get("main", "")
    kept = {"text_godot3_dialect": "3.5" if (major, minor) >= (3, 3) else "3.2",
            "text_float_style": "shortest" if (major, minor) >= (4, 3) else "g6",
            **file.kept, "ids": _ids(file, "binary", ext, subs, nulls)}
    fresh = replace(file, kept={}, external=list(file.external))
    fmt = before.get("format") or text.text_format(fresh)
    return replace(file, form="text", format=fmt, kept=kept,
                   external=_external(file, ext), resources=_resources(file, ext, subs, order,
                                                                       nulls),
                   scene=_scene(file.scene, ext, subs, sort_groups=True))


def _to_binary(file: ResourceFile, engine: tuple[int, int], path: str | None) -> ResourceFile:
    before = file.kept.get("ids", {}).get("binary", {})
    if not path and before and "engine" in before:
        engine = (int(before["engine"][0]), int(before["engine"][1]))
    named = binary_format(engine) >= 4
    if before:
        ext = {e.id: before.get("external", {}).get(e.id, e.id) for e in file.external}
        subs = {old: before.get("resources", {}).get(old, old) for old in _sub_ids(file)}
        order = _restored(file, before)
        main_id = path or before.get("main") or _next_id(list(subs.values()), named)
    else:
        variants = None
        if file.scene is not None:
            variants = scenes.write_bundled(file.scene, order="text")["variants"]
        order, found = save_order(file.resources, [e.id for e in file.external], "binary",
                                  godot4=engine[0] >= 4, variants=variants)
        ext = {old: str(i) for i, old in enumerate(found, 1)}
        # Godot 3's text loader does not give the resources it loads their ids: its binary
        # saver numbers them anew, in the order it writes them
        subs = {old: old if named else str(i) for i, old in enumerate(order[:-1], 1)}
        main_id = path or _next_id(list(subs.values()), named)
    subs[file.main.id] = main_id
    kept = {**file.kept, "ids": _ids(file, "text", ext, subs, {})}
    fmt = int(before.get("format", binary_format(engine)))
    return replace(file, form="binary", engine=engine, format=fmt, kept=kept,
                   external=_external(file, ext),
                   resources=_resources(file, ext, subs, order, {}, before.get("nulls", {})),
                   scene=_scene(file.scene, ext, subs))


def _sub_ids(file: ResourceFile) -> list[str]:
    return [r.id for r in file.resources[:-1]]


def _restored(file: ResourceFile, before: dict[str, Any]) -> list[str]:
    """The ids of ``file``'s resources in the order the form it came from had them (by
    their ids in that form, ``before["resources"]`` maps this form's ids to those), the main
    one last; resources that form did not have keep their order after those it had."""
    back = before.get("resources", {})
    rank = {rid: i for i, rid in enumerate(before.get("order", []))}
    subs = _sub_ids(file)
    known = sorted((r for r in subs if back.get(r, r) in rank), key=lambda r: rank[back.get(r, r)])
    return [*known, *(r for r in subs if back.get(r, r) not in rank), file.main.id]


def _nulls(file: ResourceFile) -> dict[str, list[list[Any]]]:
    """Where each resource of ``file`` has a property whose value is null, by resource id:
    ``[index, name]`` pairs. The text saver leaves out an Object property that is null,
    which is the only kind of property that holds null in a file (a binary file does not
    say a property's type)."""
    out: dict[str, list[list[Any]]] = {}
    for r in file.resources:
        found = [[i, name] for i, (name, v) in enumerate(r.properties.items()) if v is None]
        if found:
            out[r.id] = found
    return out


def _external(file: ResourceFile, ext: dict[str, str]) -> list[ExtResource]:
    """``file``'s external resources with their new ids, in the order of those ids."""
    renamed = [ExtResource(e.type, e.path, ext[e.id], e.uid) for e in file.external]
    return sorted(renamed, key=lambda e: _id_rank(e.id))


def _id_rank(rid: str) -> tuple[int, int, str]:
    """An external resource id's place: ``"2"`` and ``"2_k3x2p"`` by their number, others
    after them by text."""
    head = rid.split("_", 1)[0]
    return (0, int(head), rid) if head.isdigit() else (1, 0, rid)


def _ids(file: ResourceFile, form: str, ext: dict[str, str], subs: dict[str, str],
         nulls: dict[str, list[list[Any]]]) -> dict[str, Any]:
    """``kept["ids"]`` after converting ``file`` out of ``form``: what ``form`` called its
    external resources and its resources (by their ids in the new form), their order, the
    null properties the conversion left out (by ``form``'s resource ids), its format number
    and engine, for a conversion back."""
    ids = dict(file.kept.get("ids", {}))
    ids[form] = {"external": {new: old for old, new in ext.items()},
                 "resources": {new: old for old, new in subs.items() if old != file.main.id},
                 "order": _sub_ids(file), "nulls": nulls,
                 "main": file.main.id, "format": file.format, "engine": list(file.engine)}
    return ids


def _next_id(ids: list[str], named: bool) -> str:
    """The main resource's id without a path: the next ``local://`` number, or in Godot 4
    (named scene ids) ``"main"`` (made unique)."""
    if not named:
        return str(max((int(i) for i in ids if i.isdigit()), default=0) + 1)
    taken = set(ids)
    name, n = "main", 1
    while name in taken:
        n += 1
        name = f"main_{n}"
    return name


def _resources(file: ResourceFile, ext: dict[str, str], subs: dict[str, str],
               order: list[str], drop: dict[str, list[list[Any]]],
               restore: dict[str, list[list[Any]]] | None = None) -> list[Resource]:
    """``file``'s resources in ``order`` (by their ids) with their new ids and references,
    less the properties ``drop`` names and with the null ones ``restore`` names (by the new
    ids) put back in their places."""
    by_id = {r.id: (i, r) for i, r in enumerate(file.resources)}
    out = []
    with recursion_room(2 * MAX_DEPTH + 64):
        for rid in order:
            i, r = by_id[rid]
            props = _props(r.properties, ext, subs, f"[{i}]")
            for _, name in drop.get(rid, ()):
                props.pop(name, None)
            new_id = subs.get(rid, rid)
            if restore and new_id in restore:
                props = _with_nulls(props, restore[new_id])
            out.append(Resource(r.type, new_id, props))
    return out


def _with_nulls(props: dict[str, Any], nulls: list[list[Any]]) -> dict[str, Any]:
    """``props`` with the null properties a conversion left out back in their places."""
    items = list(props.items())
    for index, name in nulls:
        if name not in props:
            items.insert(min(int(index), len(items)), (str(name), None))
    return dict(items)


def _scene(scene: Scene | None, ext: dict[str, str], subs: dict[str, str],
           sort_groups: bool = False) -> Scene | None:
    """``scene`` with its references mapped; ``sort_groups``: each node's groups in
    alphabetical order, as the text saver writes them (a packed scene holds them in the
    order the node returned them)."""
    if scene is None:
        return None
    with recursion_room(2 * MAX_DEPTH + 64):
        nodes = [replace(n, instance=_value(n.instance, ext, subs, 0, f"$.nodes[{i}]"),
                         properties=_props(n.properties, ext, subs, f"$.nodes[{i}]"),
                         groups=sorted(n.groups) if sort_groups else list(n.groups),
                         extra=dict(n.extra))
                 for i, n in enumerate(scene.nodes)]
        conns = [replace(c, binds=[_value(b, ext, subs, 0, f"$.connections[{i}]")
                                   for b in c.binds])
                 for i, c in enumerate(scene.connections)]
    return Scene(nodes, conns, list(scene.editable), scene.version)


def _props(props: dict[str, Any], ext: dict[str, str], subs: dict[str, str],
           where: str) -> dict[str, Any]:
    return {name: _value(v, ext, subs, 0, f"{where}.{name}") for name, v in props.items()}


def _value(v: Any, ext: dict[str, str], subs: dict[str, str], depth: int, where: str) -> Any:
    """``v`` with its references' ids mapped (``ext`` for external ones, ``subs`` for the
    file's own; an id not mapped stays)."""
    if depth > MAX_DEPTH:
        raise EncodeError(f"values are nested deeper than {MAX_DEPTH} levels", path=where,
                          format="godot")
    t = type(v)
    if t is gt.ExtRef:
        return gt.ExtRef(ext.get(v.id, v.id)) if ext else v
    if t is gt.SubRef:
        return gt.SubRef(subs.get(v.id, v.id))
    if t is list:
        return [_value(x, ext, subs, depth + 1, where) for x in v]
    if t is gt.TypedArray:
        return gt.TypedArray(v.element_type, [_value(x, ext, subs, depth + 1, where)
                                              for x in v])
    if t is dict:
        return {_value(k, ext, subs, depth + 1, where): _value(x, ext, subs, depth + 1, where)
                for k, x in v.items()}
    if isinstance(v, gt.Dictionary):
        pairs = [(_value(k, ext, subs, depth + 1, where), _value(x, ext, subs, depth + 1, where))
                 for k, x in v.items()]
        if isinstance(v, gt.TypedDictionary):
            return gt.TypedDictionary(v.key_type, v.value_type, pairs)
        return gt.Dictionary(pairs)
    if t is gt.Object:
        return gt.Object(v.class_name, {k: _value(x, ext, subs, depth + 1, where)
                                        for k, x in v.properties.items()})
    return v
