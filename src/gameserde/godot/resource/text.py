"""Text resources and scenes (``.tres``/``.tscn``, ``resource_format_text.cpp``), read into
the shared model and written back as the engine writes them.

``read(data)`` takes the file's bytes (or its text) and returns a
:class:`~gameserde.godot.resource.model.ResourceFile` of form ``"text"``: ``[ext_resource]``
sections become :class:`ExtResource` (ids as written, Godot 3's integers as text),
``[sub_resource]`` and ``[resource]`` sections :class:`Resource` (the ``[resource]`` one
last, with id ``""``). A scene (``[gd_scene]``) gets its :class:`Scene` from the ``[node]``,
``[connection]`` and ``[editable]`` sections, and a ``PackedScene`` with id ``""`` and no
properties as its main resource (the ``_bundled`` dictionary is the binary form's business).
A node's ``name``, ``type``, ``parent``, ``instance`` and ``groups`` have fields of their own;
its other attributes are in ``SceneNode.extra`` by name (``index`` as an int, ``owner``,
``owner_uid_path``, ``unique_id``, ``parent_id_path``, ``node_paths``,
``instance_placeholder``, ...). A
connection without ``flags=`` has the engine's default flags, ``CONNECT_PERSIST`` (2).

``write(file)`` returns the text (a ``str``; encode it as UTF-8: files use LF line ends).
A file that was read is written back byte for byte; a changed value is printed as the
engine prints it, and everything unchanged keeps its original text, so comments, blank
lines and spacing a user added stay where they were.

``ResourceFile.kept`` holds, for this form (all JSON-friendly):

* ``"text_bom"``: whether the file started with a UTF-8 byte-order mark.
* ``"text_float_style"``: ``"shortest"`` or ``"g6"``, how fresh floats are printed
  (found from the file's own float literals; see :mod:`.text_variant`).
* ``"text_godot3_dialect"``: ``"3.2"`` (Godot 3.0 to 3.2) or ``"3.5"`` (Godot 3.3 and
  later, found from an empty dictionary or ``inf_neg`` in the file): how Godot 3 files
  print empty dictionaries and infinities.
* ``"text_load_steps"``: ``[load_steps as written or None, the resource count then]``, so
  that ``load_steps`` follows additions and removals the way the engine counts them, and
  is left out when the file had none (Godot 4.6 and later).
* ``"text_order"``: the sections' keys in file order (a key is a JSON list such as
  ``["sub", "id"]`` or ``["node", parent, name]``); when the file's sections are the same
  set, they are written in this order.
* ``"text_sections"``: per section key, ``lead`` (the text before it: blank lines,
  comments), ``raw`` (the header as written), ``canon`` (the header as it would be printed
  when read) and ``props``: per property name ``[lead, raw "name = value" text, where
  the value's text starts in it]``. A header whose fresh text equals its ``canon`` is
  written as ``raw``; so is a property whose fresh text equals the text of its value as
  written, or as that text reads and prints again (the value is unchanged). A
  connection's section also has ``fields``: the attributes the model's
  :class:`Connection` has no place for (Godot 4.6's ``from_uid_path``, ``to_uid_path``), as
  text, written back after ``flags``.
* ``"text_tail"``: the text after the last value (normally one ``"\\n"``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError, EncodeError, path_key
from gameserde.godot import types as gt
from gameserde.godot.resource import text_variant as tv
from gameserde.godot.resource.model import (
    Connection,
    ExtRef,
    ExtResource,
    Resource,
    ResourceFile,
    Scene,
    SceneNode,
    SubRef,
)

__all__ = ["read", "text_format", "write"]

CONNECT_PERSIST = 2
"""The flags a ``[connection]`` without ``flags=`` has."""

_TAGS = frozenset({"gd_scene", "gd_resource", "ext_resource", "sub_resource", "resource",
                   "node", "connection", "editable"})
_NAME = re.compile(r'[^\x00-\x20=\[";]+')
_NUMBER_LITERAL = re.compile(r"(?<![\w.\"])-?(\d+)\.(\d+)(?:e[-+]?\d+)?")
_NODE_ORDER = ("parent_id_path", "owner", "owner_uid_path", "index", "unique_id", "node_paths")
_CONNECTION_FIELDS = frozenset({"signal", "from", "to", "method", "flags", "unbinds", "binds"})
_NODE_LAST = ("instance_placeholder",)


@dataclass
class _Prop:
    lead: str
    name: str
    raw: str
    value: Any
    value_at: int
    """Where the value's text starts in ``raw``."""


@dataclass
class _Section:
    lead: str
    tag: str
    raw: str
    fields: dict[str, Any]
    offset: int
    props: list[_Prop] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Reading


def _decode(data: bytes | str) -> tuple[str, bool]:
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(f"the text is not valid UTF-8 ({e.reason})", offset=e.start,
                              format="godot") from None
    bom = text.startswith("\ufeff")
    return (text[1:] if bom else text), bom


def _scan(text: str) -> tuple[list[_Section], str]:
    """The file's sections with their properties, and the text after the last one."""
    r = tv.Reader(text)
    sections: list[_Section] = []
    lead_start = 0
    ext_paths: dict[str, str] = {}
    r.ext_paths = ext_paths
    while True:
        r.skip()
        start = r.pos
        if start >= len(text):
            return sections, text[lead_start:]
        if text[start] == "[":
            r.pos += 1
            tag = r.identifier()
            if tag not in _TAGS:
                raise r.error(f"unknown section [{tag}]", start)
            fields = _tag_fields(r, tag)
            section = _Section(text[lead_start:start], tag, text[start:r.pos], fields, start)
            if not sections and tag not in ("gd_scene", "gd_resource"):
                raise r.error("the file does not start with [gd_scene] or [gd_resource]", start)
            if tag == "ext_resource":
                ext_paths[_id_text(fields.get("id"))] = str(fields.get("path", ""))
            sections.append(section)
        else:
            if not sections:
                raise r.error("a property comes before any section", start)
            name = _property_name(r)
            r.skip()
            value_at = r.pos - start
            try:
                value = r.value()
            except DecodeError as e:
                e.add_parent(path_key(name))
                e.add_parent(f".{_where(sections[-1])}")
                raise
            sections[-1].props.append(_Prop(text[lead_start:start], name, text[start:r.pos],
                                            value, value_at))
        lead_start = r.pos


def _tag_fields(r: tv.Reader, tag: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    while True:
        c = r.peek()
        if c == "]":
            r.pos += 1
            return fields
        if c == "":
            raise r.error(f"the [{tag}] section header is not closed")
        key = r.identifier()
        r.expect("=", f"'=' after {key}")
        try:
            fields[key] = r.value()
        except DecodeError as e:
            e.add_parent(f".{tag}.{key}")
            raise


def _property_name(r: tv.Reader) -> str:
    text = r.text
    if text[r.pos] == '"':
        name = r.string()
    else:
        m = _NAME.match(text, r.pos)
        if m is None:
            raise r.error(f"expected a property name, found {text[r.pos]!r}")
        name = m.group()
        r.pos = m.end()
    r.expect("=", f"'=' after the property name {name!r}")
    return name


def _where(section: _Section) -> str:
    if "id" in section.fields:
        return f"{section.tag}[{_id_text(section.fields['id'])!r}]"
    if "name" in section.fields:
        return f"{section.tag}[{str(section.fields['name'])!r}]"
    return section.tag


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _need(section: _Section, key: str, kind: type | tuple[type, ...]) -> Any:
    value = section.fields.get(key)
    if not isinstance(value, kind):
        what = "missing" if value is None else f"not a {_kind_name(kind)}"
        raise DecodeError(f"the [{section.tag}] section's {key} is {what}",
                          offset=None, path=f"$.{section.tag}.{key}", format="godot")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _float_style(text: str, major: int) -> str:
    """``"g6"`` when the file's floats look printed by ``%g`` (Godot 3, Godot 4.0 to 4.2):
    none has more than six significant digits and at least three have six (values the
    engine computed, such as a rotation's sine, take seven to nine digits as Godot 4.3
    and later print them), unless nodes have Godot 4.6's ``unique_id``; else
    ``"shortest"``. A guess: only changed values depend on it."""
    if major < 4:
        return "g6"
    if " unique_id=" in text:  # Godot 4.6 and later
        return "shortest"
    six = 0
    for m in _NUMBER_LITERAL.finditer(text):
        digits = len((m.group(1) + m.group(2)).lstrip("0").rstrip("0"))
        if digits > 6:
            return "shortest"
        six += digits == 6
    return "g6" if six >= 3 else "shortest"


def read(data: bytes | str) -> ResourceFile:
    """Read a text resource or scene (bytes as stored, or the decoded text)."""
    text, bom = _decode(data)
    with recursion_room(tv.MAX_DEPTH * 6 + 50):
        sections, tail = _scan(text)
    if not sections:
        raise DecodeError("the text holds no [gd_scene] or [gd_resource] header", offset=0,
                          format="godot")
    for section in sections:
        if section.props and section.tag not in ("sub_resource", "resource", "node"):
            raise DecodeError(f"a property follows the [{section.tag}] section, which holds "
                              "none", offset=len(text[:section.offset].encode("utf-8")),
                              path=f"$.{section.tag}", format="godot")
        _fold_duplicates(section)
    head = sections[0]
    fmt = _need(head, "format", int)
    if fmt not in (1, 2, 3, 4):
        raise DecodeError(f"unknown text resource format={fmt}", offset=0, path="$.format",
                          format="godot")
    major = {1: 2, 2: 3}.get(fmt, 4)
    is_scene = head.tag == "gd_scene"
    file = ResourceFile(form="text", type="PackedScene" if is_scene else str(
        _need(head, "type", str)), engine=(major, 0), format=fmt)
    if "uid" in head.fields:
        file.uid = str(_need(head, "uid", str))
    if "script_class" in head.fields:
        file.script_class = str(_need(head, "script_class", str))
    scene = Scene(version=3 if major >= 4 else 2) if is_scene else None
    main: Resource | None = None
    keys: list[str] = []
    seen: dict[str, int] = {}
    for section in sections[1:]:
        key = _build(section, file, scene, is_scene)
        if section.tag == "resource":
            main = Resource(file.type, "", {p.name: p.value for p in section.props})
        keys.append(_unique(key, seen))
    if main is not None:
        file.resources.append(main)
    if scene is not None:
        file.scene = scene
        file.resources.append(Resource("PackedScene", "", {}))
    elif main is None:
        raise DecodeError("the resource file has no [resource] section", offset=len(text),
                          format="godot")
    style = _float_style(text, major)
    steps = head.fields.get("load_steps")
    file.kept.update({
        "text_bom": bom,
        "text_float_style": style,
        "text_godot3_dialect": _godot3_dialect(text),
        "text_load_steps": [steps if isinstance(steps, int) else None, _count(file)],
        "text_order": keys,
        "text_tail": tail,
    })
    fmt = text_format(file)
    printer = _printer(file, fmt)
    kept_sections: dict[str, Any] = {}
    for key, section in zip(["header", *keys], sections, strict=True):
        kept_sections[key] = {
            "lead": section.lead, "raw": section.raw, "canon": "",
            "props": {p.name: [p.lead, p.raw, p.value_at] for p in section.props},
        }
        if section.tag == "connection":
            kept_sections[key]["fields"] = {
                k: printer.format(v) for k, v in section.fields.items()
                if k not in _CONNECTION_FIELDS}
    file.kept["text_sections"] = kept_sections
    for key, _kind, header, _props in _plan(file, printer, fmt):
        if key in kept_sections:
            kept_sections[key]["canon"] = header
    return file


def _godot3_dialect(text: str) -> str:
    """``"3.5"`` when the text shows Godot 3.3 or later wrote it (an empty dictionary as
    ``{`` and ``}`` on two lines, ``inf_neg``, groups on the node's line, a blank line
    before the first connection), else ``"3.2"`` (groups one a line are Godot 3.2's)."""
    if "groups=[\n" in text:
        return "3.2"
    first = text.find("\n[connection")
    if ("{\n}" in text or "inf_neg" in text or 'groups=["' in text
            or (first > 0 and text[first - 1] == "\n")):
        return "3.5"
    return "3.2"


def _fold_duplicates(section: _Section) -> None:
    """Keep only the last of properties set twice (the engine's result), the text of the
    earlier ones joining the lead of the property after them, so that it is written back."""
    last = {p.name: i for i, p in enumerate(section.props)}
    if len(last) == len(section.props):
        return
    kept: list[_Prop] = []
    carry: list[str] = []
    for i, prop in enumerate(section.props):
        if last[prop.name] != i:
            carry += (prop.lead, prop.raw)
            continue
        prop.lead = "".join([*carry, prop.lead])
        carry = []
        kept.append(prop)
    section.props = kept


def _written_as(printer: tv.Printer, written: str, ext_paths: dict[str, str]) -> str | None:
    """How ``written`` (a value's text in the file) would be printed now, or None when it
    no longer reads or prints."""
    reader = tv.Reader(written, ext_paths)
    try:
        value = reader.value()
        return printer.format(value)
    except (DecodeError, EncodeError):
        return None


def _unique(key: str, seen: dict[str, int]) -> str:
    n = seen.get(key, 0)
    seen[key] = n + 1
    if n == 0:
        return key
    return json.dumps([*json.loads(key), n])


def _build(section: _Section, file: ResourceFile, scene: Scene | None, is_scene: bool) -> str:
    """Add what ``section`` holds to ``file``; return its key."""
    tag = section.tag
    f = section.fields
    if tag in ("gd_scene", "gd_resource"):
        raise DecodeError(f"a second [{tag}] header", offset=None, path="$", format="godot")
    if tag == "ext_resource":
        ext = ExtResource(str(_need(section, "type", str)), str(_need(section, "path", str)),
                          _id_text(_need(section, "id", (str, int))),
                          str(f["uid"]) if isinstance(f.get("uid"), str) else None)
        file.external.append(ext)
        return json.dumps(["ext", ext.id])
    if tag == "sub_resource":
        res = Resource(str(_need(section, "type", str)),
                       _id_text(_need(section, "id", (str, int))),
                       {p.name: p.value for p in section.props})
        file.resources.append(res)
        return json.dumps(["sub", res.id])
    if tag == "resource":
        if is_scene:
            raise DecodeError("a scene file has a [resource] section", offset=None,
                              path="$.resource", format="godot")
        return json.dumps(["resource"])
    if scene is None:
        raise DecodeError(f"a resource file has a [{tag}] section", offset=None,
                          path=f"$.{tag}", format="godot")
    if tag == "node":
        node = _node(section)
        scene.nodes.append(node)
        return json.dumps(["node", node.parent, node.name])
    if tag == "connection":
        binds = f.get("binds", [])
        flags = f.get("flags", CONNECT_PERSIST)
        unbinds = f.get("unbinds", 0)
        if type(flags) is not int or type(unbinds) is not int or not isinstance(binds, list):
            raise DecodeError("a [connection]'s flags and unbinds must be integers and its "
                              "binds an array", offset=None, path="$.connection",
                              format="godot")
        conn = Connection(str(_need(section, "from", str)), str(_need(section, "signal", str)),
                          str(_need(section, "to", str)), str(_need(section, "method", str)),
                          flags, list(binds), unbinds)
        scene.connections.append(conn)
        return json.dumps(["connection", conn.source, conn.signal, conn.target, conn.method])
    path = str(_need(section, "path", str))
    scene.editable.append(path)
    return json.dumps(["editable", path])


def _node(section: _Section) -> SceneNode:
    f = dict(section.fields)
    name = str(_need(section, "name", str))
    node_type = f.pop("type", None)
    parent = f.pop("parent", None)
    instance = f.pop("instance", None)
    groups = f.pop("groups", [])
    f.pop("name")
    if not isinstance(node_type, str | None) or not isinstance(parent, str | None):
        raise DecodeError("a [node]'s type and parent must be strings", offset=None,
                          path=f"$.node[{name!r}]", format="godot")
    if not isinstance(instance, ExtRef | SubRef | None):
        raise DecodeError("a [node]'s instance must be an ExtResource or SubResource",
                          offset=None, path=f"$.node[{name!r}]", format="godot")
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise DecodeError("a [node]'s groups must be a list of strings", offset=None,
                          path=f"$.node[{name!r}]", format="godot")
    index = f.get("index")
    if isinstance(index, str) and re.fullmatch(r"-?[0-9]{1,9}", index):
        f["index"] = int(index)
    return SceneNode(name, node_type, parent, instance, [str(g) for g in groups],
                     {p.name: p.value for p in section.props}, f)


def _count(file: ResourceFile) -> int:
    """The engine's ``load_steps``: resources held (the main one too) and external ones."""
    return len(file.resources) + len(file.external)


# ---------------------------------------------------------------------------------------------
# Writing


def text_format(file: ResourceFile) -> int:
    """The ``format=`` to write: a text file's own (Godot 4.0 to 4.2 wrote ``format=3``
    whatever the values); for a file read from another form, the text format of its
    engine: 1 for Godot 2, 2 for Godot 3, and for Godot 4 what Godot 4.3 and later choose,
    4 when a value needs it (a PackedByteArray over 64 bytes, stored as base64, or a
    PackedVector4Array), else 3."""
    if file.form == "text":
        return file.format
    fmt = {2: 1, 3: 2}.get(file.engine[0], 3)
    return 4 if fmt == 3 and _needs_base64(file) else fmt


def _needs_base64(file: ResourceFile) -> bool:
    """Whether a value of ``file`` makes the engine leave ``format=3`` (walked with a stack
    of its own, each container once)."""
    todo: list[Any] = [r.properties for r in file.resources]
    if file.scene is not None:
        todo += [n.properties for n in file.scene.nodes]
    seen: set[int] = set()
    while todo:
        value = todo.pop()
        if isinstance(value, bytes) and len(value) > 64:
            return True
        if isinstance(value, gt.PackedVector4Array):
            return True
        if isinstance(value, list | dict | gt.Dictionary | gt.Object) and id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, gt.Object):
                todo.extend(value.properties.values())
            elif isinstance(value, list):
                todo.extend(value)
            else:
                todo.extend(value.keys())
                todo.extend(value.values())
    return False


def _printer(file: ResourceFile, fmt: int | None = None) -> tv.Printer:
    fmt = file.format if fmt is None else fmt
    major = 4 if fmt >= 3 else 3
    style = str(file.kept.get("text_float_style", "shortest")) if file.form == "text" else (
        "shortest")
    scripts = {e.path: e.id for e in file.external}
    legacy = file.form != "text" or file.kept.get("text_godot3_dialect", "3.2") == "3.2"
    return tv.Printer(major, style, fmt != 4, scripts, legacy)


def _q(text: str) -> str:
    return f'"{tv.c_escape(text)}"'


def _tag(name: str, fields: list[tuple[str, str]]) -> str:
    return "[" + " ".join([name, *(f"{k}={v}" for k, v in fields)]) + "]"


def _plan(file: ResourceFile, p: tv.Printer,
          fmt: int) -> list[tuple[str, str, str, dict[str, Any]]]:
    """The sections to write in the engine's order: (key, kind, header text, properties)."""
    g4 = p.major >= 4
    out: list[tuple[str, str, str, dict[str, Any]]] = [
        ("header", "header", _header(file, p, fmt), {})]
    seen: dict[str, int] = {}

    def add(key: list[Any], kind: str, header: str, props: dict[str, Any]) -> None:
        out.append((_unique(json.dumps(key), seen), kind, header, props))

    for e in file.external:
        ident = f'"{e.id}"' if g4 or not e.id.isdigit() else e.id
        fields = [("type", f'"{e.type}"')]
        if e.uid is not None:
            fields.append(("uid", f'"{e.uid}"'))
        fields.append(("path", f'"{e.path}"'))
        if not g4:
            fields.reverse()
            fields = [f for f in fields if f[0] != "uid"]
        add(["ext", e.id], "ext", _tag("ext_resource", [*fields, ("id", ident)]), {})
    if not file.resources:
        raise EncodeError("the file holds no resource (the main one is last)", format="godot")
    for res in file.resources[:-1]:
        ident = f'"{res.id}"' if g4 or not res.id.isdigit() else res.id
        add(["sub", res.id], "sub",
            _tag("sub_resource", [("type", f'"{res.type}"'), ("id", ident)]), res.properties)
    if file.scene is None:
        add(["resource"], "resource", "[resource]", file.main.properties)
        return out
    for node in file.scene.nodes:
        add(["node", node.parent, node.name], "node", _node_header(node, p, fmt == 1 or p.legacy),
            node.properties)
    kept: dict[str, Any] = file.kept.get("text_sections", {}) if file.form == "text" else {}
    for c in file.scene.connections:
        fields = [("signal", _q(c.signal)), ("from", _q(c.source)), ("to", _q(c.target)),
                  ("method", _q(c.method))]
        if c.flags != CONNECT_PERSIST:
            fields.append(("flags", str(c.flags)))
        key = _unique(json.dumps(["connection", c.source, c.signal, c.target, c.method]), seen)
        fields.extend(kept.get(key, {}).get("fields", {}).items())  # from_uid_path, ...
        if c.unbinds > 0:
            fields.append(("unbinds", str(c.unbinds)))
        if c.binds:
            fields.append(("binds", " " + p.format(list(c.binds))))
        out.append((key, "connection", _tag("connection", fields), {}))
    for path in file.scene.editable:
        add(["editable", path], "editable", _tag("editable", [("path", _q(path))]), {})
    return out


def _header(file: ResourceFile, p: tv.Printer, fmt: int) -> str:
    fields: list[tuple[str, str]] = []
    if file.scene is None:
        fields.append(("type", f'"{file.type}"'))
        if file.script_class is not None:
            fields.append(("script_class", f'"{file.script_class}"'))
    written, count_then = file.kept.get("text_load_steps", [None, 0])
    count = _count(file)
    if "text_load_steps" in file.kept:
        steps = None if written is None else written + count - count_then
    else:
        steps = count if p.major < 4 else None
    if steps is not None and steps > 1:
        fields.append(("load_steps", str(steps)))
    fields.append(("format", str(fmt)))
    if file.uid is not None:
        fields.append(("uid", f'"{file.uid}"'))
    return _tag("gd_scene" if file.scene is not None else "gd_resource", fields)


def _node_header(node: SceneNode, p: tv.Printer, multiline_groups: bool) -> str:
    """A ``[node]`` header; Godot 2 to 3.2 (``multiline_groups``) list groups one a
    line."""
    fields = [("name", _q(node.name))]
    if node.type is not None:
        fields.append(("type", f'"{node.type}"'))
    if node.parent is not None:
        fields.append(("parent", _q(node.parent)))
    extra = dict(node.extra)
    for key in _NODE_ORDER:
        if key in extra:
            fields.append((key, _node_attr(key, extra.pop(key), p)))
    last = {k: extra.pop(k) for k in _NODE_LAST if k in extra}
    fields.extend((k, _node_attr(k, v, p)) for k, v in extra.items())
    if node.groups:
        if not multiline_groups:
            fields.append(("groups", "[" + ", ".join(_q(g) for g in node.groups) + "]"))
        else:
            fields.append(("groups", "[\n" + "".join(_q(g) + ",\n" for g in node.groups) + "]"))
    fields.extend((k, _node_attr(k, v, p)) for k, v in last.items())
    if node.instance is not None:
        fields.append(("instance", p.format(node.instance)))
    return _tag("node", fields)


def _node_attr(key: str, value: Any, p: tv.Printer) -> str:
    if key == "index" and isinstance(value, int) and not isinstance(value, bool):
        return f'"{value}"'
    if key == "owner" and isinstance(value, str):
        return _q(value)
    return p.format(value)


def _encode_name(name: str) -> str:
    """``String::property_name_encode``: quoted when it holds a character a bare name
    cannot."""
    if not isinstance(name, str):
        raise EncodeError(f"a property name must be a string, not {type(name).__name__}",
                          format="godot")
    if any(c in '=";[]' or not 33 <= ord(c) <= 126 for c in name) or not name:
        return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return name


def _engine_lead(prev: str | None, kind: str, legacy: bool) -> str:
    """The text the engine writes before a section of ``kind`` after one of ``prev``
    (Godot 3.0 to 3.2, ``legacy``, wrote the first connection right after the last node)."""
    if prev is None:
        return ""
    if prev == kind and kind in ("ext", "connection", "editable"):
        return "\n"
    if legacy and kind == "connection":
        return "\n"
    return "\n\n"


def write(file: ResourceFile) -> str:
    """The text of ``file`` (a ``str``: encode it as UTF-8)."""
    file_kept: dict[str, Any] = file.kept if file.form == "text" else {}
    fmt = text_format(file)
    printer = _printer(file, fmt)
    ext_paths = {e.id: e.path for e in file.external}
    with recursion_room(tv.MAX_DEPTH * 6 + 50):
        plan = _plan(file, printer, fmt)
        kept: dict[str, Any] = file_kept.get("text_sections", {})
        order: list[str] = file_kept.get("text_order", [])
        body = [s for s in plan if s[0] != "header"]
        if order and sorted(order) == sorted(s[0] for s in body):
            position = {k: i for i, k in enumerate(order)}
            body.sort(key=lambda s: position[s[0]])
        out: list[str] = ["\ufeff"] if file_kept.get("text_bom") else []
        prev: str | None = None
        for key, kind, header, props in [plan[0], *body]:
            ks = kept.get(key)
            out.append(ks["lead"] if ks is not None else _engine_lead(prev, kind, printer.legacy))
            out.append(ks["raw"] if ks is not None and ks["canon"] == header else header)
            kprops: dict[str, Any] = ks["props"] if ks is not None else {}
            for name, value in props.items():
                try:
                    text = printer.format(value)
                except EncodeError as e:
                    e.add_parent(path_key(name))
                    e.add_parent(key)  # the section key, a JSON list: ["sub", "id"]
                    raise
                kp = kprops.get(name)
                if kp is not None and (kp[1][kp[2]:] == text or text == _written_as(
                        printer, kp[1][kp[2]:], ext_paths)):
                    out.append(kp[0] + kp[1])
                else:
                    out.append((kp[0] if kp is not None else "\n")
                               + f"{_encode_name(name)} = {text}")
            prev = kind
        out.append(file_kept.get("text_tail", "\n"))
    return "".join(out)
