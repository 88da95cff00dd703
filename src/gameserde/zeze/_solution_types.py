"""Pass two of solution reading: resolve names and types, lower into the shared model.

Type syntax (Gen's ``Variable.ParseType``): ``T``, ``list[T]``, ``array[T]``, ``set[T]``,
``map[K,V]``, ``sortedmap[K,V]``, or the template name with ``key=``/``value=`` attributes;
``dynamic`` and ``dynamic:Base`` wherever a bean may stand (field, list element, map value).
Two uses of ``value=`` outside collections: ``type="dynamic" value="A,B:N"`` lists beans of
the dynamic besides its ``<value bean=.../>`` children (Gen before the ``<value>`` children
were the only form, ``Zeze/Gen/Types/TypeDynamic.cs``; Gen today ignores the attribute), and
``type="string" value="JSON_OBJECT"`` or ``"JSON_ARRAY"`` (``Gen/Gen/Types/TypeString.cs``:
a string holding JSON text; the wire and the Python value stay a string, the field's
attribute ``json`` records which). An external bean or beankey (``<external>``) has no
fields in the solution: it lowers to a record without fields (attribute ``external``),
whose fields all decode as kept unknown fields; it cannot be a ``base=``, nor a dynamic's
bean unless the dynamic gives its TypeId (``<value bean="X:N"/>``).
Names: a built-in type name first, then a full (dotted) bean name as written, then an
undotted name inside the declaring module. Collections do not nest; set elements and map
keys must be keyable (bool, integers, string, binary, decimal, vectors, beankeys); a beankey's
variables must all be keyable; dynamic holds beans only (not beankeys); a bean may not contain
itself through bean fields (Gen's ``DetectCircle``).

``gtable[R,C,V]`` (or ``type="gtable" key="R,C" value="V"``) is Java's ``GTable1``/``GTable2``:
on the wire a map from R to a bean (``Zeze.Transaction.GTable.BeanMap1``, or ``BeanMap2``
when V is a bean) whose only field, id 1 (``Map1``/``Map2``), maps C to V. It lowers to
``Map(R, Ref(<bean>.<variable>))`` and a record of that name with that one field (attribute
``gtable``), so its value is ``{r: {"Map1": {c: v}}}``; such a record keeps unknown fields as
``BeanMap1``/``BeanMap2`` do.
"""

from __future__ import annotations

from collections.abc import Callable

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
    Field,
    List,
    Map,
    Named,
    Record,
    Ref,
    Schema,
    Set,
    Type,
    Union,
)
from gameserde.zeze._defaults import read_default
from gameserde.zeze.names import protocol_type_id
from gameserde.zeze.schema import BUILTIN_RECORDS, Protocol, ZezeSchema, bean_cycle
from gameserde.zeze.solution import Bean, Decls, Var, fail

MAX_BASE_DEPTH = 100
"""The longest ``base=`` chain accepted (Gen has no limit; decoders recurse per layer)."""

SCALARS: dict[str, Type] = {
    "bool": BOOL, "byte": INT8, "short": INT16, "int": INT32, "long": INT64,
    "float": FLOAT32, "double": FLOAT64, "binary": BYTES, "string": STRING,
}
BUILTIN_REFS = ("vector2", "vector3", "vector4", "quaternion", "vector2int", "vector3int",
                "decimal")
_KEYABLE_SCALARS = (BOOL, INT8, INT16, INT32, INT64, BYTES, STRING)
_COLLECTIONS = frozenset({"list", "array", "set", "map", "sortedmap", "gtable"})
JSON_KINDS = ("JSON_OBJECT", "JSON_ARRAY")
"""The ``value=`` a ``string`` variable may have (Gen's ``JsonType``)."""

Bad = Callable[[str], Exception]


def _reporter(bean: Bean, var: Var) -> Bad:
    """Makes the errors about variable ``var`` of ``bean``."""
    def bad(message: str) -> Exception:
        return fail(bean.file, var.line, f"{bean.name}.{var.name}: {message}")
    return bad


class _Lowering:
    def __init__(self, decls: Decls) -> None:
        self.decls = decls
        self.types: dict[str, Named] = dict(BUILTIN_RECORDS)
        self.children: dict[str, list[str]] = {}

    # -- beans -------------------------------------------------------------------------------

    def check_bases(self) -> None:
        beans = self.decls.beans
        for bean in beans.values():
            if bean.base is None:
                continue
            base = beans.get(bean.base)
            if base is None or base.kind != "bean" or base.external:
                what = ("not a bean of the schema" if base is None else "a beankey"
                        if base.kind != "bean" else "an external bean, whose fields the "
                        "solution does not give")
                raise fail(bean.file, bean.line, f"bean {bean.name}: its base {bean.base} "
                           f"is {what}")
            self.children.setdefault(base.name, []).append(bean.name)
            names = {v.name for v in bean.vars}
            seen, current = {bean.name}, base
            while True:
                if current.name in seen:
                    raise fail(bean.file, bean.line, f"bean {bean.name}: its base= chain "
                               "comes back to itself")
                if len(seen) > MAX_BASE_DEPTH:
                    raise fail(bean.file, bean.line, f"bean {bean.name}: its base= chain is "
                               f"longer than {MAX_BASE_DEPTH} beans")
                seen.add(current.name)
                clash = names & {v.name for v in current.vars}
                if clash:
                    raise fail(bean.file, bean.line, f"bean {bean.name}: the variable "
                               f"{min(clash)} is also in its base {current.name} (all layers' "
                               "fields share one value)")
                if current.base is None:
                    break
                nxt = beans.get(current.base)
                if nxt is None or nxt.kind != "bean":
                    break  # reported when that bean is checked
                current = nxt

    def resolve(self, name: str, space: str, bean: Bean, var: Var, what: str) -> Bean:
        found = self.decls.beans.get(name)
        if found is None and "." not in name:
            found = self.decls.beans.get(f"{space}.{name}")
        if found is None:
            raise fail(bean.file, var.line, f"{bean.name}.{var.name}: {what} {name!r} is not "
                       "a type of the schema")
        return found

    def lower_bean(self, bean: Bean) -> Record:
        if bean.external:
            return Record(bean.name, (), kind=bean.kind, attributes={
                "external": True, "module": bean.space, "file": bean.file, "line": bean.line})
        fields = []
        for var in bean.vars:
            ftype = self.variable_type(bean, var)
            if bean.kind == "beankey" and not self.keyable(ftype):
                raise fail(bean.file, var.line, f"beankey {bean.name}: the variable "
                           f"{var.name} must have a keyable type")
            attrs: dict[str, object] = {"line": var.line}
            if var.transient:
                attrs["transient"] = True
            if ftype == STRING and var.value:
                attrs["json"] = var.value
            default = None
            if var.default is not None:
                attrs["default_text"] = var.default
                default = read_default(
                    var.default, ftype, var.type,
                    is_bean=isinstance(ftype, Ref) and ftype.name in self.decls.beans,
                    enums=self.decls.enums, bean=bean.name, space=bean.space,
                    error=_reporter(bean, var))
            fields.append(Field(var.name, ftype, id=var.id, default=default, attributes=attrs))
        attrs = {"type_id": bean.type_id, "module": bean.space, "file": bean.file,
                 "line": bean.line}
        if bean.extendable:
            attrs["extendable"] = True
        return Record(bean.name, tuple(fields), kind=bean.kind, base=bean.base,
                      attributes=attrs)

    # -- types -------------------------------------------------------------------------------

    def variable_type(self, bean: Bean, var: Var) -> Type:
        bad = _reporter(bean, var)
        text, key, value = var.type, var.key, var.value
        if "[" in text:
            head, _, rest = text.partition("[")
            if not rest.endswith("]") or "[" in rest:
                raise bad(f"cannot read the type {text!r}")
            if key or value:
                raise bad(f"the type {text!r} already names its key and value; "
                          "drop key=/value=")
            parts = [p.strip() for p in rest[:-1].split(",")]
            if len(parts) > (3 if head.strip() == "gtable" else 2):
                raise bad(f"the type {text!r} has too many parameters")
            *keys, value = parts
            key = ",".join(keys)
            text = head.strip()
        name, dyn_base = self.split_dynamic(text, bad)
        if name in ("list", "array", "set"):
            if key:
                raise bad(f"{name} takes no key (key={key!r})")
            elem = self.element(bean, var, value, bad)
            if name == "set" and not self.keyable(elem):
                raise bad(f"the elements of a set must be keyable, not {value!r}")
            return Set(elem) if name == "set" else List(elem)
        if name in ("map", "sortedmap"):
            if not key or not value:
                raise bad(f"{name} needs a key and a value type")
            ktype = self.element(bean, var, key, bad)
            if not self.keyable(ktype):
                raise bad(f"the keys of a map must be keyable, not {key!r}")
            return Map(ktype, self.element(bean, var, value, bad))
        if name == "gtable":
            return self.gtable(bean, var, key, value, bad)
        if key or value:
            if not key and "[" not in var.type and name == "dynamic" and not dyn_base:
                return self.dynamic(bean, var, dyn_base, value)
            if not key and "[" not in var.type and name == "string":
                if value not in JSON_KINDS:
                    raise bad(f"a string's value= is JSON_OBJECT or JSON_ARRAY, not {value!r}")
                return STRING
            raise bad(f"{name} takes no key= or value= attribute")
        return self.single(bean, var, name, dyn_base, bad)

    def gtable(self, bean: Bean, var: Var, key: str, value: str, bad: Bad) -> Map:
        """``gtable[R,C,V]``: ``map[R, BeanMapN]`` where BeanMapN's field 1 is ``map[C,V]``."""
        keys = [k.strip() for k in key.split(",")]
        if len(keys) != 2 or not all(keys) or not value:
            raise bad("gtable needs a row key, a column key and a value type: "
                      "gtable[R,C,V]")
        row, col = (self.element(bean, var, k, bad) for k in keys)
        for what, t, text in (("row", row, keys[0]), ("column", col, keys[1])):
            if not self.keyable(t):
                raise bad(f"the {what} keys of a gtable must be keyable, not {text!r}")
        vtype = self.element(bean, var, value, bad)
        target = self.types.get(vtype.name) if isinstance(vtype, Ref) else None
        if isinstance(target, Union):
            raise bad("the values of a gtable cannot be dynamic")
        name = f"{bean.name}.{var.name}"
        if name in self.decls.beans:
            raise bad(f"the gtable's row bean {name} has the name of a bean")
        inner = "Map2" if isinstance(vtype, Ref) and vtype.name in self.decls.beans else "Map1"
        self.types[name] = Record(name, (Field(inner, Map(col, vtype), id=1),), kind="bean",
                                  attributes={"gtable": True, "module": bean.space,
                                              "file": bean.file, "line": var.line})
        return Map(row, Ref(name))

    @staticmethod
    def split_dynamic(text: str, bad: Bad) -> tuple[str, str]:
        name, colon, base = (p.strip() for p in text.partition(":"))
        if colon and (name != "dynamic" or not base or ":" in base):
            raise bad(f"cannot read the type {text!r} (only dynamic takes a :Base)")
        return name, base

    def element(self, bean: Bean, var: Var, text: str, bad: Bad) -> Type:
        name, dyn_base = self.split_dynamic(text, bad)
        if not name:
            raise bad("a collection needs an element type")
        if name in _COLLECTIONS:
            raise bad(f"collections do not nest ({var.type!r})")
        return self.single(bean, var, name, dyn_base, bad)

    def single(self, bean: Bean, var: Var, name: str, dyn_base: str, bad: Bad) -> Type:
        if name in SCALARS:
            return SCALARS[name]
        if name in BUILTIN_REFS:
            return Ref(f"zeze.{name}")
        if name == "dynamic":
            return self.dynamic(bean, var, dyn_base)
        if name in _COLLECTIONS:
            raise bad(f"{name} needs its element types: {name}[...]")
        target = self.resolve(name, bean.space, bean, var, "the type")
        return Ref(target.name)

    def keyable(self, t: Type) -> bool:
        if isinstance(t, Ref):
            target = self.decls.beans.get(t.name)
            return t.name in BUILTIN_RECORDS if target is None else target.kind == "beankey"
        return t in _KEYABLE_SCALARS

    def dynamic(self, bean: Bean, var: Var, dyn_base: str, listed: str = "") -> Ref:
        """The dynamic of ``var``: its ``<value bean=.../>`` children, the beans ``listed``
        in its ``value=`` (the old syntax; a bean named twice counts once, as in Gen's set),
        or else ``dyn_base`` and the beans derived from it."""
        union_name = f"{bean.name}.{var.name}"
        if union_name in self.decls.beans:
            raise fail(bean.file, var.line, f"the dynamic {union_name} has the name of a bean")
        if union_name in self.types:
            return Ref(union_name)
        members: dict[str, tuple[int, Type]] = {}
        entries = list(var.beans)
        written = {text for text, _ in entries}
        for text in (t.strip() for t in listed.split(",")):
            if text and text not in written:
                written.add(text)
                entries.append((text, var.line))
        if not entries and dyn_base:
            base = self.resolve(dyn_base, bean.space, bean, var, "the dynamic base")
            entries = [(name, var.line) for name in self.family(base.name)]
        specials = 0
        ids: dict[int, str] = {}
        for text, line in entries:
            if not text:
                continue
            name, colon, special = (p.strip() for p in text.partition(":"))
            target = self.resolve(name, bean.space, bean, var, "the dynamic bean")
            if target.kind != "bean":
                raise fail(bean.file, line, f"{union_name}: a dynamic holds beans, and "
                           f"{target.name} is a beankey")
            if target.external and not colon:
                raise fail(bean.file, line, f"{union_name}: {target.name} is an external "
                           "bean, whose TypeId its hand-written class gives, not the solution; "
                           f"give it here (bean=\"{name}:TYPEID\")")
            type_id = target.type_id
            if colon:
                specials += 1
                try:
                    type_id = int(special, 10)
                except ValueError:
                    raise fail(bean.file, line, f"{union_name}: the special TypeId of "
                               f"{target.name} must be an integer, not {special!r}") from None
                if not 0 < type_id < 1 << 63:
                    raise fail(bean.file, line, f"{union_name}: a special TypeId is a "
                               f"positive 64-bit integer, not {type_id}")
            if type_id in ids or target.name in members:
                raise fail(bean.file, line, f"{union_name}: {target.name} (TypeId {type_id}) "
                           f"clashes with {ids.get(type_id, target.name)}")
            ids[type_id] = target.name
            members[target.name] = (type_id, Ref(target.name))
        if specials not in (0, len(members)):
            raise fail(bean.file, var.line, f"{union_name}: give a special TypeId (bean=\"X:N\")"
                       " to every bean of the dynamic or to none")
        self.types[union_name] = Union(union_name, members, discriminator=INT64,
                                       kind="dynamic", attributes={"special": specials > 0})
        return Ref(union_name)

    def family(self, base: str) -> list[str]:
        """``base`` and every bean derived from it (Gen's ``Derives``), in name order."""
        found: list[str] = []
        todo = list(self.children.get(base, ()))
        while todo:
            name = todo.pop()
            found.append(name)
            todo.extend(self.children.get(name, ()))
        return [base, *sorted(found, key=str.lower)]

    # -- cycles and protocols ------------------------------------------------------------------

    def check_cycles(self) -> None:
        """No bean contains itself through bean (not collection, not dynamic) fields."""
        cycle = bean_cycle(self.types)
        if cycle is not None:
            bean = self.decls.beans[cycle[0]]
            raise fail(bean.file, bean.line, f"{bean.kind} {bean.name} contains itself "
                       f"through its bean fields ({' -> '.join(cycle)})")

    def protocols(self) -> dict[str, Protocol]:
        out = {}
        for p in self.decls.protocols.values():
            names: list[str | None] = []
            for what, text in (("argument", p.argument), ("result", p.result)):
                if not text:
                    names.append(None)
                    continue
                found = self.decls.beans.get(text)
                if found is None and "." not in text:
                    found = self.decls.beans.get(f"{p.space}.{text}")
                if found is None:
                    raise fail(p.file, p.line, f"{p.kind} {p.name}: the {what} {text!r} is "
                               "not a bean of the schema")
                names.append(found.name)
            out[p.name] = Protocol(p.name, p.module_id, p.id, protocol_type_id(
                p.module_id, p.id), p.kind, names[0], names[1], p.file, p.line)
        return out

    def run(self) -> ZezeSchema:
        self.check_bases()
        for bean in self.decls.beans.values():
            self.types[bean.name] = self.lower_bean(bean)
        self.check_cycles()
        protocols = self.protocols()
        model = Schema(self.types, attributes={
            "solutions": tuple(self.decls.solutions), "files": tuple(self.decls.files),
            "enums": dict(self.decls.enums), "tables": dict(self.decls.tables)})
        return ZezeSchema(model, protocols=protocols, modules=self.decls.modules)


def lower(decls: Decls) -> ZezeSchema:
    """Resolve and lower the declarations of pass one."""
    return _Lowering(decls).run()
