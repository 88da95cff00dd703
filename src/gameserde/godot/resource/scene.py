"""A ``PackedScene``'s ``_bundled`` dictionary read into a :class:`~.model.Scene`, and a
``Scene`` packed back into a ``_bundled`` dictionary (``SceneState::set_bundled_scene`` and
``get_bundled_scene`` in the engine's ``scene/resources/packed_scene.cpp``).

``_bundled`` holds tables and integers that index them: ``names`` (node names, types,
property names, groups, signals and methods), ``variants`` (property values, instanced
scenes, connection binds), ``node_paths`` (paths to nodes the scene does not hold itself:
the parents of nodes inside an instanced scene, connection ends), and ``nodes`` and
``conns``, flat runs of integers. Each node is ``parent, owner, type, name | (index + 1) <<
18, instance, property count, (name, value) pairs, group count, groups``; each connection
``from, to, signal, method, flags, bind count, binds`` and, from version 3 (Godot 4),
``unbinds``. Bit 30 marks a parent, owner or connection end as an index into
``node_paths``, an instance as a placeholder's path, and (Godot 4) a property as a node
reference saved as a path. Godot 4.6+ adds ``node_ids`` (each node's unique id) and
``id_paths`` (a path of unique ids beside each node path).

:func:`read_bundled` gives the scene as a text scene writes it (``[node]`` headers' names
and values: ``parent`` as ``None``, ``"."`` or ``"A/B"``, ``owner``, ``index``,
``instance_placeholder``, ``node_paths``, ``unique_id``, ``parent_id_path`` and
``owner_uid_path`` in :attr:`SceneNode.extra <.model.SceneNode.extra>`; an inherited
scene's base scene as the root's ``instance``), plus what a byte-exact rewrite needs: the
dictionary it came from, under the key ``"bundled"``. :func:`write_bundled` gives that
dictionary back when the scene still reads the same from it. Otherwise it builds the tables
afresh, in one of the two orders the engine builds them:

* ``"text"``, as the text loader fills a ``SceneState`` (``ResourceLoaderText::
  _parse_node_tag``), which is what the engine writes when it converts a text scene to
  binary: every name, value and node path appended where the text names it, duplicates and
  all, parents as paths (``./A`` before Godot 4.6's unique ids, ``A`` with them), and a
  connection's arguments in the order the official builds (GCC) evaluate them: binds,
  method, signal, target, source. godot3-server 3.2.3 gives these tables for 44 of the
  corpus's 46 Godot 3 text scenes (one does not load; one sets a property twice, which a
  :class:`~.model.SceneNode` cannot hold).
* ``"pack"``, as the editor packs the scene it saves (``SceneState::pack``): names, values
  and node paths once each at their first use (a node's name, instance, properties, groups,
  type, then its parent), parents and connection ends as node indices where the scene holds
  the node. It gives the ``_bundled`` of every binary scene of the corpus (Godot 2.0 to
  4.7) back from its :class:`~.model.Scene` alone.
"""

from __future__ import annotations

from typing import Any

from gameserde.errors import DecodeError, EncodeError
from gameserde.godot.resource.model import Connection, Scene, SceneNode
from gameserde.godot.types import (
    Dictionary,
    NodePath,
    PackedArray,
    PackedInt32Array,
    PackedStringArray,
    StringName,
    godot_key,
)

__all__ = ["read_bundled", "write_bundled"]

NO_PARENT_SAVED = 0x7FFFFFFF
"""A parent or owner the engine did not save (read as no parent)."""
TYPE_INSTANTIATED = 0x7FFFFFFF
"""The type of a node that an instanced or inherited scene creates."""
NAME_INDEX_BITS = 18
NAME_MASK = (1 << NAME_INDEX_BITS) - 1
INDEX_LIMIT = (1 << (32 - NAME_INDEX_BITS)) - 1
"""The saver stores a node's index only below this (16383)."""
FLAG_ID_IS_PATH = 1 << 30
FLAG_INSTANCE_IS_PLACEHOLDER = 1 << 30
FLAG_PATH_PROPERTY_IS_NODE = 1 << 30
FLAG_MASK = (1 << 24) - 1
CONNECT_PERSIST = 2
UNIQUE_ID_UNASSIGNED = 0
LATEST_VERSION = 3

_REQUIRED = ("names", "variants", "node_count", "nodes", "conn_count", "conns")
_PATH_BUDGET_BASE = 1 << 20
"""Characters of node paths a scene may spell out beyond 64 per integer of its input: a
chain of nested nodes would otherwise spell paths quadratic in its length."""


def _fail(message: str, path: str) -> DecodeError:
    return DecodeError(message, path="$._bundled" + path, format="godot")


# ---------------------------------------------------------------------------------------------
# Node paths


def _simplified(names: tuple[str, ...] | list[str]) -> list[str]:
    """``NodePath::simplify``'s names: ``.`` dropped, ``name/..`` cancelled, ``.`` if empty."""
    out: list[str] = []
    for name in names:
        if name == ".":
            continue
        if name == ".." and out and out[-1] != "..":
            out.pop()
        else:
            out.append(name)
    return out or ["."]


def _path_text(path: NodePath) -> str:
    """A node path as the text format writes it (``String(path.simplified())``)."""
    text = ("/" if path.absolute else "") + "/".join(_simplified(path.names))
    return text + "".join(":" + s for s in path.subnames)


def _prepend_period(path: NodePath) -> NodePath:
    """``NodePath::prepend_period``: a relative path not starting at ``.``/``..`` gets ``.``."""
    if path.names and not path.absolute and path.names[0] not in (".", ".."):
        return NodePath((".", *path.names), path.subnames, path.absolute)
    return path


def _simplify_path(path: NodePath) -> NodePath:
    return NodePath(tuple(_simplified(path.names)), path.subnames, path.absolute)


# ---------------------------------------------------------------------------------------------
# Reading


def _int(value: Any, path: str, what: str) -> int:
    if type(value) is not int:
        raise _fail(f"{what} is a {type(value).__name__}, not an integer", path)
    return value


def _int_list(value: Any, path: str, what: str) -> list[int]:
    if isinstance(value, PackedArray) and value.kind == "i" and value.width == 1:
        return [int(v) for v in value.tolist()]
    if isinstance(value, list) and all(type(v) is int for v in value):
        return list(value)
    raise _fail(f"{what} is not an array of integers", path)


def _node_path_list(value: Any, path: str, what: str) -> list[NodePath]:
    if not isinstance(value, list):
        raise _fail(f"{what} is a {type(value).__name__}, not an Array", path)
    for i, item in enumerate(value):
        if not isinstance(item, NodePath):
            raise _fail(f"{what} holds a {type(item).__name__}, not a NodePath",
                        f"{path}[{i}]")
    return value


def _get(bundled: Any, key: str) -> tuple[bool, Any]:
    if key not in bundled:
        return (False, None)
    return (True, bundled[key])


class _Ints:
    """A cursor over one of ``_bundled``'s integer runs that refuses to read past its end."""

    def __init__(self, ints: list[int], key: str) -> None:
        self.ints = ints
        self.key = key
        self.pos = 0

    def take(self, what: str) -> int:
        if self.pos >= len(self.ints):
            raise _fail(f"{what} lies past the end of the {len(self.ints)} integers",
                        self.where())
        value = self.ints[self.pos]
        self.pos += 1
        return value

    def count(self, what: str, per_item: int) -> int:
        n = self.take(what)
        left = len(self.ints) - self.pos
        if n < 0 or n * per_item > left:
            raise _fail(f"{what} {n} does not fit in the {left} integers left",
                        self.where(-1))
        return n

    def where(self, back: int = 0) -> str:
        return f".{self.key}[{self.pos + back}]"


class _Tables:
    """``_bundled``'s tables, each checked for its type."""

    def __init__(self, bundled: Any) -> None:
        if not isinstance(bundled, dict | Dictionary):
            raise _fail(f"_bundled is a {type(bundled).__name__}, not a Dictionary", "")
        for key in _REQUIRED:
            if not _get(bundled, key)[0]:
                raise _fail(f"_bundled has no {key!r}", "")
        has_version, version = _get(bundled, "version")
        self.version = _int(version, ".version", "the version") if has_version else 1
        if not 1 <= self.version <= LATEST_VERSION:
            raise _fail(f"scene format version {self.version} is not one of 1 to "
                        f"{LATEST_VERSION}", ".version")
        names = _get(bundled, "names")[1]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise _fail("names is not an array of strings", ".names")
        self.names: list[str] = names
        variants = _get(bundled, "variants")[1]
        if not isinstance(variants, list):
            raise _fail(f"variants is a {type(variants).__name__}, not an Array", ".variants")
        self.variants: list[Any] = variants
        self.node_count = _int(_get(bundled, "node_count")[1], ".node_count", "node_count")
        self.nodes = _int_list(_get(bundled, "nodes")[1], ".nodes", "nodes")
        if not 0 <= self.node_count <= len(self.nodes):
            raise _fail(f"node_count {self.node_count} does not fit in the "
                        f"{len(self.nodes)} integers of nodes", ".node_count")
        self.conn_count = _int(_get(bundled, "conn_count")[1], ".conn_count", "conn_count")
        self.conns = _int_list(_get(bundled, "conns")[1], ".conns", "conns")
        if not 0 <= self.conn_count <= len(self.conns):
            raise _fail(f"conn_count {self.conn_count} does not fit in the "
                        f"{len(self.conns)} integers of conns", ".conn_count")
        has, value = _get(bundled, "node_paths")
        self.node_paths = _node_path_list(value, ".node_paths", "node_paths") if has else []
        has, value = _get(bundled, "editable_instances")
        self.editable = (_node_path_list(value, ".editable_instances", "editable_instances")
                         if has else [])
        has, value = _get(bundled, "base_scene")
        self.base_scene: int | None = None
        if has:
            self.base_scene = _int(value, ".base_scene", "base_scene")
            if not 0 <= self.base_scene < len(self.variants):
                raise _fail(f"base_scene {self.base_scene} is not an index of the "
                            f"{len(self.variants)} variants", ".base_scene")
        has, value = _get(bundled, "node_ids")
        self.node_ids = _int_list(value, ".node_ids", "node_ids") if has else None
        has, value = _get(bundled, "id_paths")
        self.id_paths: list[list[int]] | None = None
        if has:
            if not isinstance(value, list):
                raise _fail("id_paths is not an Array", ".id_paths")
            self.id_paths = [_int_list(p, f".id_paths[{i}]", "an id path")
                             for i, p in enumerate(value)]
        self.budget = _PATH_BUDGET_BASE + 64 * (len(self.nodes) + len(self.conns))
        self.path_texts: dict[int, str] = {}

    def name(self, index: int, where: str, what: str) -> str:
        if not 0 <= index < len(self.names):
            raise _fail(f"{what} {index} is not an index of the {len(self.names)} names",
                        where)
        return self.names[index]

    def variant(self, index: int, where: str, what: str) -> Any:
        if not 0 <= index < len(self.variants):
            raise _fail(f"{what} {index} is not an index of the {len(self.variants)} "
                        "variants", where)
        return self.variants[index]

    def node_path(self, ref: int, where: str, what: str) -> NodePath:
        index = ref & ~FLAG_ID_IS_PATH
        if not 0 <= index < len(self.node_paths):
            raise _fail(f"{what} names node path {index}, but there are "
                        f"{len(self.node_paths)}", where)
        return self.node_paths[index]

    def node_path_text(self, ref: int, where: str, what: str) -> str:
        """The text of a ``node_paths`` entry, made once: many references to one long path
        then share one string."""
        index = ref & ~FLAG_ID_IS_PATH
        text = self.path_texts.get(index)
        if text is None:
            text = self.path_texts[index] = _path_text(self.node_path(ref, where, what))
        return text

    def id_path(self, ref: int) -> list[int]:
        index = ref & ~FLAG_ID_IS_PATH
        if self.id_paths is None or index >= len(self.id_paths):
            return []
        return self.id_paths[index]


class _Paths:
    """Each node's path from the scene's root as the text format spells it, with a cap on
    the characters spelled so that a deep chain of nodes cannot make them quadratic."""

    def __init__(self, tables: _Tables) -> None:
        self.tables = tables
        self.own: list[str] = []
        self.spent = 0

    def add(self, parent_text: str | None, name: str, where: str) -> None:
        if parent_text is None:
            text = "."
        elif parent_text == ".":
            text = name
        else:
            text = f"{parent_text}/{name}"
        self.spent += len(text)
        if self.spent > self.tables.budget:
            raise _fail("the scene's node paths spell more characters than its size "
                        "allows (nodes nested too deeply)", where)
        self.own.append(text)

    def ref_text(self, ref: int, upto: int, where: str, what: str) -> str:
        """The path of a node reference: a node before ``upto`` or a ``node_paths`` entry."""
        if ref >= 0 and ref & FLAG_ID_IS_PATH and ref & ~(FLAG_ID_IS_PATH | FLAG_MASK) == 0:
            return self.tables.node_path_text(ref, where, what)
        if not 0 <= ref < upto:
            raise _fail(f"{what} {ref} is neither an earlier node nor a node path", where)
        return self.own[ref]


def _read_node(tables: _Tables, paths: _Paths, ints: _Ints, i: int) -> SceneNode:
    where = ints.where()
    parent_ref = ints.take("a node's parent")
    owner_ref = ints.take("a node's owner")
    type_ref = ints.take("a node's type")
    name_field = ints.take("a node's name") & 0xFFFFFFFF
    instance_ref = ints.take("a node's instance")
    name = tables.name(name_field & NAME_MASK, where, "the node's name")
    node = SceneNode(name=name)
    if type_ref != TYPE_INSTANTIATED:
        node.type = tables.name(type_ref, where, "the node's type")
    root_level = parent_ref in (-1, NO_PARENT_SAVED)
    parent_text: str | None = None
    if not root_level:
        if parent_ref & FLAG_ID_IS_PATH and parent_ref >= 0:
            base = tables.node_path(parent_ref, where, "the node's parent")
            parent_text = "/".join(_simplified(base.names))
        else:
            parent_text = paths.ref_text(parent_ref, i, where, "the node's parent")
        node.parent = parent_text
    index = (name_field >> NAME_INDEX_BITS) - 1
    if owner_ref not in (-1, NO_PARENT_SAVED):
        owner = paths.ref_text(owner_ref, i, where, "the node's owner")
        if owner != ".":
            node.extra["owner"] = owner
            uid_path = tables.id_path(owner_ref) if owner_ref & FLAG_ID_IS_PATH else []
            if uid_path:
                node.extra["owner_uid_path"] = PackedInt32Array(uid_path)
    if index >= 0:
        node.extra["index"] = index
    if tables.node_ids is not None and i < len(tables.node_ids) \
            and tables.node_ids[i] != UNIQUE_ID_UNASSIGNED:
        node.extra["unique_id"] = tables.node_ids[i]
    if parent_text is not None and parent_ref & FLAG_ID_IS_PATH:
        uid_path = tables.id_path(parent_ref)
        if uid_path:
            node.extra["parent_id_path"] = PackedInt32Array(uid_path)
    if instance_ref != -1:
        if instance_ref < 0 or instance_ref & ~(FLAG_INSTANCE_IS_PLACEHOLDER | FLAG_MASK):
            raise _fail(f"the node's instance {instance_ref} is not a variant index", where)
        value = tables.variant(instance_ref & FLAG_MASK, where, "the node's instance")
        if instance_ref & FLAG_INSTANCE_IS_PLACEHOLDER:
            if not isinstance(value, str):
                raise _fail("the node's placeholder path is not a String", where)
            node.extra["instance_placeholder"] = value
        else:
            node.instance = value
    elif i == 0 and tables.base_scene is not None:
        node.instance = tables.variants[tables.base_scene]
    deferred: list[str] = []
    for _ in range(ints.count("the node's property count", 2)):
        pwhere = ints.where()
        name_ref = ints.take("a property's name")
        value_ref = ints.take("a property's value")
        if name_ref >= 0 and name_ref & FLAG_PATH_PROPERTY_IS_NODE:
            prop = tables.name(name_ref & (FLAG_PATH_PROPERTY_IS_NODE - 1), pwhere,
                               "the property's name")
            deferred.append(prop)
        else:
            prop = tables.name(name_ref, pwhere, "the property's name")
        value = tables.variant(value_ref, pwhere, "the property's value")
        node.properties.pop(prop, None)  # set twice: the engine ends with the last
        node.properties[prop] = value
    if deferred:
        node.extra["node_paths"] = PackedStringArray(deferred)
    for _ in range(ints.count("the node's group count", 1)):
        gwhere = ints.where()
        node.groups.append(tables.name(ints.take("a group"), gwhere, "the group"))
    paths.add(parent_text, name, where)
    return node


def _read_connection(tables: _Tables, paths: _Paths, ints: _Ints) -> Connection:
    where = ints.where()
    n = len(paths.own)
    source = paths.ref_text(ints.take("a connection's source"), n, where,
                            "the connection's source")
    target = paths.ref_text(ints.take("a connection's target"), n, where,
                            "the connection's target")
    signal = tables.name(ints.take("a connection's signal"), where, "the connection's signal")
    method = tables.name(ints.take("a connection's method"), where, "the connection's method")
    flags = ints.take("a connection's flags")
    binds = []
    for _ in range(ints.count("the connection's bind count", 1)):
        bwhere = ints.where()
        binds.append(tables.variant(ints.take("a bind"), bwhere, "the bind"))
    unbinds = ints.take("a connection's unbinds") if tables.version >= 3 else 0
    return Connection(source=source, signal=signal, target=target, method=method,
                      flags=flags, binds=binds, unbinds=unbinds)


def _scene(tables: _Tables) -> Scene:
    paths = _Paths(tables)
    ints = _Ints(tables.nodes, "nodes")
    nodes = [_read_node(tables, paths, ints, i) for i in range(tables.node_count)]
    ints = _Ints(tables.conns, "conns")
    connections = [_read_connection(tables, paths, ints) for _ in range(tables.conn_count)]
    editable = [_path_text(p) for p in tables.editable]
    return Scene(nodes=nodes, connections=connections, editable=editable,
                 version=tables.version)


def read_bundled(bundled: dict[str, Any] | Dictionary) -> tuple[Scene, dict[str, Any]]:
    """Read a ``PackedScene``'s ``_bundled`` dictionary into a :class:`Scene`.

    Returns the scene and what :func:`write_bundled` needs to give ``bundled`` back
    unchanged (``{"bundled": bundled}``). Every index is checked against its table and every
    count against the integers left; malformed input raises
    :class:`~gameserde.errors.DecodeError` with a ``$._bundled...`` path.
    """
    return _scene(_Tables(bundled)), {"bundled": bundled}


# ---------------------------------------------------------------------------------------------
# Writing


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(godot_key(a) == godot_key(b))
    except ValueError:
        return False


def _same_values(a: list[Any] | dict[str, Any], b: list[Any] | dict[str, Any]) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_value(a[k], b[k]) for k in a)
    return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=False))


def _same_scene(a: Scene, b: Scene) -> bool:
    """Whether two scenes hold the same nodes, connections and values (values compared as
    the engine compares them, so a NaN is the same NaN)."""
    if (a.version, a.editable, len(a.nodes), len(a.connections)) != (
            b.version, b.editable, len(b.nodes), len(b.connections)):
        return False
    for x, y in zip(a.nodes, b.nodes, strict=True):
        if (x.name, x.type, x.parent, x.groups) != (y.name, y.type, y.parent, y.groups):
            return False
        if not (_same_value(x.instance, y.instance) and _same_values(x.properties, y.properties)
                and _same_values(x.extra, y.extra)):
            return False
    for c, d in zip(a.connections, b.connections, strict=True):
        if (c.source, c.signal, c.target, c.method, c.flags, c.unbinds) != (
                d.source, d.signal, d.target, d.method, d.flags, d.unbinds):
            return False
        if not _same_values(c.binds, d.binds):
            return False
    return True


class _Packer:
    """A ``SceneState`` being filled. As the text loader fills it (``dedupe`` false), every
    name, value and node path is appended where it is met (``add_name``, ``add_value``,
    ``add_node_path``); as ``SceneState::pack`` fills it (``dedupe`` true), each is kept
    once, at the index of its first use (values compared as the engine's ``VariantComparator``
    compares them)."""

    def __init__(self, with_ids: bool, dedupe: bool) -> None:
        self.names: list[str] = []
        self.variants: list[Any] = []
        self.node_paths: list[NodePath] = []
        self.id_paths: list[PackedInt32Array] = []
        self.nodes: list[int] = []
        self.node_ids: list[int] = []
        self.conns: list[int] = []
        self.base_scene: int | None = None
        self.with_ids = with_ids
        self.dedupe = dedupe
        self.name_index: dict[str, int] = {}
        self.value_index: dict[Any, int] = {}
        self.path_index: dict[str, int] = {}

    def name(self, value: Any, where: str, what: str) -> int:
        if not isinstance(value, str):
            raise EncodeError(f"{what} is a {type(value).__name__}, not a string",
                              path=where, format="godot")
        if self.dedupe:
            found = self.name_index.get(str(value))
            if found is not None:
                return found
            self.name_index[str(value)] = len(self.names)
        self.names.append(value)
        return len(self.names) - 1

    def value(self, value: Any) -> int:
        if self.dedupe:
            try:
                key: Any = (type(value) is StringName, godot_key(value))
            except ValueError:  # an Array that holds itself: never equal to another value
                key = ("id", id(value))
            found = self.value_index.get(key)
            if found is not None:
                return found
            self.value_index[key] = len(self.variants)
        self.variants.append(value)
        return len(self.variants) - 1

    def path(self, path: NodePath, id_path: Any) -> int:
        if self.dedupe:
            text = str(path)
            found = self.path_index.get(text)
            if found is not None:
                return found | FLAG_ID_IS_PATH
            self.path_index[text] = len(self.node_paths)
        self.node_paths.append(path)
        self.id_paths.append(id_path if isinstance(id_path, PackedInt32Array)
                             else PackedInt32Array(id_path or ()))
        return (len(self.node_paths) - 1) | FLAG_ID_IS_PATH


def _text_path(value: Any, where: str, what: str) -> NodePath:
    if not isinstance(value, str):
        raise EncodeError(f"{what} is a {type(value).__name__}, not a path string",
                          path=where, format="godot")
    return NodePath.parse(value)


def _extra_int(node: SceneNode, key: str, where: str) -> int | None:
    value = node.extra.get(key)
    if value is None:
        return None
    if type(value) is not int:
        raise EncodeError(f"{key} is a {type(value).__name__}, not an integer",
                          path=f"{where}.extra.{key}", format="godot")
    if not -(1 << 31) <= value < 1 << 31:
        raise EncodeError(f"{key} {value} does not fit the 32-bit integer a scene stores",
                          path=f"{where}.extra.{key}", format="godot")
    return value


def _name_field(node: SceneNode, name: int, where: str) -> int:
    """The node's name index with its ``index`` above the name bits, as a signed int32."""
    index = _extra_int(node, "index", where)
    field = name
    if index is not None and -1 <= index < INDEX_LIMIT:
        field |= (index + 1) << NAME_INDEX_BITS
    elif index is not None:
        raise EncodeError(f"index {index} is not between -1 and {INDEX_LIMIT - 1}",
                          path=f"{where}.extra.index", format="godot")
    return field - (1 << 32) if field >= 1 << 31 else field


def _placeholder(p: _Packer, node: SceneNode, i: int, where: str) -> int | None:
    placeholder = node.extra.get("instance_placeholder")
    if placeholder is None:
        return None
    if i == 0:
        raise EncodeError("the root node cannot be an instance placeholder",
                          path=f"{where}.extra.instance_placeholder", format="godot")
    return p.value(placeholder) | FLAG_INSTANCE_IS_PLACEHOLDER


def _owner(p: _Packer, node: SceneNode, parent: int, kind: int, instance: int,
           where: str) -> int:
    """An ``owner`` path, else the root (0) unless the node is the root or part of an
    instanced scene (-1), as the text loader and ``pack`` both decide."""
    owner_text = node.extra.get("owner")
    if owner_text is not None:
        return p.path(_text_path(owner_text, f"{where}.extra.owner", "owner"),
                      node.extra.get("owner_uid_path"))
    if parent != -1 and not (kind == TYPE_INSTANTIATED and instance == -1):
        return 0
    return -1


def _properties(p: _Packer, node: SceneNode, where: str) -> list[int]:
    deferred = set(node.extra.get("node_paths") or ())
    props: list[int] = []
    for prop, value in node.properties.items():
        ref = p.name(prop, f"{where}.properties", "a property name")
        if prop in deferred:
            ref |= FLAG_PATH_PROPERTY_IS_NODE
        props += (ref, p.value(value))
    return props


def _groups(p: _Packer, node: SceneNode, where: str) -> list[int]:
    return [p.name(g, f"{where}.groups[{j}]", "a group") for j, g in enumerate(node.groups)]


def _pack_node_as_loaded(p: _Packer, node: SceneNode, i: int) -> None:
    """One ``[node]`` as ``ResourceLoaderText::_parse_node_tag`` adds it."""
    where = f"$.nodes[{i}]"
    name = p.name(node.name, f"{where}.name", "the node's name")
    parent = -1
    if node.parent is not None:
        path = _text_path(node.parent, f"{where}.parent", "parent")
        if not p.with_ids:  # the loaders before unique ids (4.6) prepended a period
            path = _prepend_period(path)
        parent = p.path(path, node.extra.get("parent_id_path"))
    kind = TYPE_INSTANTIATED
    if node.type is not None:
        kind = p.name(node.type, f"{where}.type", "the node's type")
    instance = -1
    if node.instance is not None:
        instance = p.value(node.instance)
        if i == 0 and parent == -1:
            p.base_scene = instance
            instance = -1
    placeholder = _placeholder(p, node, i, where)
    if placeholder is not None:
        instance = placeholder
    owner = _owner(p, node, parent, kind, instance, where)
    name_field = _name_field(node, name, where)
    groups = _groups(p, node, where)
    props = _properties(p, node, where)
    p.nodes += (parent, owner, kind, name_field, instance, len(props) // 2, *props,
                len(groups), *groups)
    p.node_ids.append(_extra_int(node, "unique_id", where) or UNIQUE_ID_UNASSIGNED)


def _pack_node_as_packed(p: _Packer, node: SceneNode, i: int, saved: dict[str, int],
                         own: str) -> None:
    """One node as ``SceneState::_parse_node`` packs it: its name, instance, properties,
    groups and type in that order, then its parent (a saved node's index, else a path)."""
    where = f"$.nodes[{i}]"
    name = p.name(node.name, f"{where}.name", "the node's name")
    instance = -1
    placeholder = _placeholder(p, node, i, where)
    if placeholder is not None:
        instance = placeholder
    elif node.instance is not None and not (i == 0 and node.parent is None):
        instance = p.value(node.instance)
    props = _properties(p, node, where)
    groups = _groups(p, node, where)
    kind = TYPE_INSTANTIATED
    if node.type is not None:
        kind = p.name(node.type, f"{where}.type", "the node's type")
    parent = -1
    if node.parent is not None:
        text = "/".join(_simplified(_text_path(node.parent, f"{where}.parent", "parent").names))
        found = saved.get(text)
        if found is not None and found < i:
            parent = found
        else:
            parent = p.path(NodePath(tuple(text.split("/"))),
                            node.extra.get("parent_id_path"))
    owner = _owner(p, node, parent, kind, instance, where)
    p.nodes += (parent, owner, kind, _name_field(node, name, where), instance,
                len(props) // 2, *props, len(groups), *groups)
    p.node_ids.append(_extra_int(node, "unique_id", where) or UNIQUE_ID_UNASSIGNED)
    saved.setdefault(own, i)


def _unbinds(conn: Connection, where: str, version: int) -> None:
    if conn.unbinds and version < 3:
        raise EncodeError(f"scene format version {version} cannot hold unbinds",
                          path=f"{where}.unbinds", format="godot")


def _pack_connection_as_loaded(p: _Packer, conn: Connection, i: int, version: int) -> None:
    """One ``[connection]``: its binds, then the loader's ``add_connection(from, to,
    signal, method, ...)`` arguments right to left, as GCC evaluates them."""
    where = f"$.connections[{i}]"
    _unbinds(conn, where, version)
    binds = [p.value(b) for b in conn.binds]
    method = p.name(conn.method, f"{where}.method", "the method")
    signal = p.name(conn.signal, f"{where}.signal", "the signal")
    target = p.path(_simplify_path(_text_path(conn.target, f"{where}.target", "target")), None)
    source = p.path(_simplify_path(_text_path(conn.source, f"{where}.source", "source")), None)
    p.conns += (source, target, signal, method, conn.flags, len(binds), *binds)
    if version >= 3:
        p.conns.append(conn.unbinds)


def _pack_connection_as_packed(p: _Packer, conn: Connection, i: int, version: int,
                               saved: dict[str, int]) -> None:
    """One connection as ``SceneState::_parse_connections`` packs it: source, target (a
    saved node's index, else a path), method, signal, binds."""
    where = f"$.connections[{i}]"
    _unbinds(conn, where, version)
    ends = []
    for what, text in (("source", conn.source), ("target", conn.target)):
        names = _simplified(_text_path(text, f"{where}.{what}", what).names)
        found = saved.get("/".join(names))
        ends.append(found if found is not None else p.path(NodePath(tuple(names)), None))
    method = p.name(conn.method, f"{where}.method", "the method")
    signal = p.name(conn.signal, f"{where}.signal", "the signal")
    binds = [p.value(b) for b in conn.binds]
    p.conns += (*ends, signal, method, conn.flags, len(binds), *binds)
    if version >= 3:
        p.conns.append(conn.unbinds)


def _check_sizes(p: _Packer) -> None:
    if len(p.names) > NAME_MASK + 1:
        raise EncodeError(f"{len(p.names)} names are more than a scene can index "
                          f"({NAME_MASK + 1})", format="godot")
    for what, table in (("variants", p.variants), ("node paths", p.node_paths)):
        if len(table) > FLAG_MASK + 1:
            raise EncodeError(f"{len(table)} {what} are more than a scene can index "
                              f"({FLAG_MASK + 1})", format="godot")


def _own_path(node: SceneNode) -> str:
    if node.parent is None:
        return "."
    parent = "/".join(_simplified(NodePath.parse(str(node.parent)).names))
    return node.name if parent == "." else f"{parent}/{node.name}"


def _pack(scene: Scene, order: str) -> dict[str, Any]:
    version = scene.version
    if not 1 <= version <= LATEST_VERSION:
        raise EncodeError(f"scene format version {version} is not one of 1 to "
                          f"{LATEST_VERSION}", path="$.version", format="godot")
    if order not in ("text", "pack"):
        raise EncodeError(f"order {order!r} is neither 'text' nor 'pack'", format="godot")
    p = _Packer(with_ids=any("unique_id" in n.extra for n in scene.nodes),
                dedupe=order == "pack")
    if order == "text":
        for i, node in enumerate(scene.nodes):
            _pack_node_as_loaded(p, node, i)
        for i, conn in enumerate(scene.connections):
            _pack_connection_as_loaded(p, conn, i, version)
    else:
        saved: dict[str, int] = {}
        nodes = scene.nodes
        if nodes and nodes[0].instance is not None and nodes[0].parent is None:
            p.base_scene = p.value(nodes[0].instance)
        for i, node in enumerate(nodes):
            _pack_node_as_packed(p, node, i, saved, _own_path(node))
        for i, conn in enumerate(scene.connections):
            _pack_connection_as_packed(p, conn, i, version, saved)
    _check_sizes(p)
    out: dict[str, Any] = {
        "names": PackedStringArray(p.names),
        "variants": p.variants,
        "node_count": len(scene.nodes),
        "nodes": PackedInt32Array(p.nodes),
    }
    if p.with_ids:
        out["node_ids"] = PackedInt32Array(p.node_ids)
    out["conn_count"] = len(scene.connections)
    out["conns"] = PackedInt32Array(p.conns)
    out["node_paths"] = p.node_paths
    if p.with_ids:
        out["id_paths"] = p.id_paths
    out["editable_instances"] = [
        _simplify_path(_text_path(e, f"$.editable[{i}]", "an editable path"))
        for i, e in enumerate(scene.editable)]
    if p.base_scene is not None:
        out["base_scene"] = p.base_scene
    out["version"] = version
    return out


def write_bundled(scene: Scene, kept: dict[str, Any] | None = None, *, order: str = "text"
                  ) -> dict[str, Any] | Dictionary:
    """Pack ``scene`` into a ``_bundled`` dictionary.

    With ``kept`` from :func:`read_bundled`, and a scene that still reads the same from the
    dictionary kept there, that dictionary is returned as it was (its table order, node
    paths and integers are the file's own). Otherwise the tables are built afresh, with the
    keys in the order ``get_bundled_scene`` writes them, as the engine builds them:

    * ``order="text"``: as its text loader fills them (see the module's docstring), which
      is what the engine writes when it converts a text scene to binary;
    * ``order="pack"``: as the editor packs a scene it saves (``SceneState::pack``): names,
      values and paths once each, parents and connection ends as node indices where the
      node is in the scene.

    A scene rebuilt beside ``kept`` keeps the kept dictionary's key order (Godot 2's
    Dictionary kept its keys in hash order, not in the order they were set). ``node_ids``
    and ``id_paths`` are written when a node has a ``unique_id``. Values the format cannot
    hold raise :class:`~gameserde.errors.EncodeError`.
    """
    if kept is None or "bundled" not in kept:
        return _pack(scene, order)
    original = kept["bundled"]
    try:
        same = _same_scene(_scene(_Tables(original)), scene)
    except DecodeError:
        same = False
    if same:
        return original  # type: ignore[no-any-return]
    out = _pack(scene, order)
    if not isinstance(original, dict | Dictionary):
        return out
    first = [key for key in original if key in out]
    return {key: out[key] for key in [*first, *(key for key in out if key not in first)]}
