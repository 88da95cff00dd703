"""The registry: O3DE's ``SerializeContext`` and ``JsonRegistrationContext`` in one object.

Types are written as O3DE's C++ names (``int``, ``unsigned char``, ``AZStd::string``) or the
short names of the conformance cases (``int32``, ``uint8``, ``string``), with templates
(``vector<int32>``, ``map<string,double>``, ``array<float,4>``, ``fixed_vector<int32,8>``,
``shared_ptr<Base>``) and raw pointers (``Base*``); the engine's template names, default
arguments included (``AZStd::vector<int, allocator>``), read the same.
:meth:`Registry.resolve` turns such text into a :class:`TypeExpr`; classes, enums and custom
serializers are registered by name::

    reg = Registry()
    reg.add_class("BaseClass", "{E0A66EB6-1AC5-4C73-B1A7-6367A47EC026}",
                  [("base_var", "float", -42.0)])
    reg.add_class("Derived", "{...}", [("items", "vector<int32>", [])], bases=["BaseClass"])
    reg.add_enum("Flags", [("A", 1), ("B", 2)], underlying="uint8")

or from dataclasses (:meth:`Registry.add_dataclass`). A class declared explicitly gets a
generated dataclass (:meth:`Registry.python_type`) whose instances are the values loaded.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import keyword
import re
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from gameserde.errors import SchemaError
from gameserde.o3de import _budget
from gameserde.o3de import values as v
from gameserde.o3de.typeid import (
    DEFAULT_ARGUMENTS,
    POINTER_ID,
    combine_ids,
    derived_uuid,
    name_crc,
    name_id,
    parse_uuid,
    template_type,
)
from gameserde.schema import model as m

__all__ = ["ClassInfo", "EnumInfo", "FieldInfo", "Registry", "Serializer", "TypeExpr"]

SEQUENCES = ("vector", "list", "forward_list", "fixed_vector", "set", "unordered_set",
             "multiset", "unordered_multiset")
MAPS = ("map", "unordered_map", "multimap", "unordered_multimap")
POINTERS = ("shared_ptr", "unique_ptr", "intrusive_ptr")
REJECTED = ("optional", "variant", "bitset")
SHARED_DEFAULTS = ("bool", "int", "float", "string", "uuid", "opaque", "enum", "math")
"""Kinds whose default value is immutable: one is made and shared by every field."""
MATH: dict[str, Any] = {
    "Vector2": v.Vector2, "Vector3": v.Vector3, "Vector4": v.Vector4, "Quaternion": v.Quaternion,
    "Color": v.Color, "Matrix3x3": v.Matrix3x3, "Matrix3x4": v.Matrix3x4,
    "Matrix4x4": v.Matrix4x4, "Transform": v.Transform,
}


@dataclass(frozen=True, slots=True)
class TypeExpr:
    """A resolved type. ``kind`` is one of ``bool int float string uuid opaque enum class seq
    array tuple map pointer any math custom rejected``; ``name`` is the canonical text (the
    registered name for named types); ``flavor`` the template (``vector``, ``unordered_map``,
    ``shared_ptr``, ``raw`` ...) or math type; ``size`` the bit width of numbers, the length of
    an ``array`` and the capacity of a ``fixed_vector``."""

    kind: str
    name: str
    args: tuple[TypeExpr, ...] = ()
    size: int = 0
    signed: bool = False
    flavor: str = ""

    def __str__(self) -> str:
        return self.name


class Serializer:
    """A custom serializer for one type (O3DE's ``BaseJsonSerializer``). Subclasses override
    :meth:`load`, :meth:`store` and :meth:`create`; ``initialize_new_instance`` and
    ``manual_default`` are O3DE's operation flags (whether ``{}`` reaches :meth:`load`)."""

    initialize_new_instance = False
    manual_default = False

    def create(self) -> Any:
        """A default instance."""
        raise NotImplementedError

    def load(self, ctx: Any, current: Any, value: Any) -> tuple[Any, Any]:
        """Read ``value`` (JSON) over ``current``: ``(new value, ResultCode)``; report issues
        with ``ctx.report(task, outcome, message)``."""
        raise NotImplementedError

    def store(self, ctx: Any, value: Any, default: Any) -> tuple[Any, Any]:
        """Write ``value``: ``(JSON, ResultCode)``; ``default`` is ``ctx.NO_DEFAULT`` when
        there is none; return ``{}`` with DefaultsUsed when the value equals it."""
        raise NotImplementedError


@dataclass(slots=True)
class FieldInfo:
    """A reflected field: its JSON name, type, Python attribute and default (a value, copied
    for each new instance, or a zero-argument factory; absent = the type's default)."""

    name: str
    type: TypeExpr
    attr: str
    default: Any = dataclasses.MISSING


@dataclass(slots=True)
class ClassInfo:
    """A reflected class: own fields in declaration order, base classes in order."""

    name: str
    uuid: UUID
    fields: list[FieldInfo]
    bases: tuple[str, ...] = ()
    abstract: bool = False
    python_type: type | None = None
    all_fields: list[FieldInfo] = field(default_factory=list)
    registered_name: str = ""
    """The name O3DE knows the class by (``$type``); several classes may share one."""
    by_crc: dict[int, FieldInfo] | None = None
    """Fields by the CRC32 of their lower-cased name, a derived field before a base field."""


@dataclass(slots=True)
class EnumInfo:
    """A reflected enum: values in registration order and the underlying integer type."""

    name: str
    uuid: UUID
    underlying: TypeExpr
    values: list[tuple[str, int]]
    python_type: type | None = None


def _leaf(kind: str, name: str, size: int = 0, signed: bool = False) -> TypeExpr:
    return TypeExpr(kind, name, size=size, signed=signed, flavor=name)


_INTS = [("char", 8, True), ("unsigned char", 8, False), ("short", 16, True),
         ("unsigned short", 16, False), ("int", 32, True), ("unsigned int", 32, False),
         ("long", 64, True), ("unsigned long", 64, False), ("AZ::s64", 64, True),
         ("AZ::u64", 64, False)]
LEAVES: dict[str, TypeExpr] = {n: _leaf("int", n, b, s) for n, b, s in _INTS}
LEAVES.update({
    "bool": _leaf("bool", "bool"), "float": _leaf("float", "float", 32),
    "double": _leaf("float", "double", 64), "AZStd::string": _leaf("string", "AZStd::string"),
    "AZ::OSString": _leaf("string", "AZ::OSString"), "AZ::Name": _leaf("string", "AZ::Name"),
    "AZ::Uuid": _leaf("uuid", "AZ::Uuid"),
    "signed char": _leaf("opaque", "signed char", 8, True),
    "AZStd::any": _leaf("any", "AZStd::any"),
})
LEAVES.update({name: _leaf("math", name) for name in MATH})
_ALIASES = {
    "int8": "char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "int32": "int", "uint32": "unsigned int", "int64": "AZ::s64", "long long": "AZ::s64",
    "uint64": "AZ::u64", "unsigned long long": "AZ::u64", "string": "AZStd::string",
    "OSString": "AZ::OSString", "Name": "AZ::Name", "Uuid": "AZ::Uuid", "any": "AZStd::any",
    "int8_t": "signed char",
    "AZ::s8": "signed char", "uint8_t": "unsigned char", "int16_t": "short",
    "uint16_t": "unsigned short", "int32_t": "int", "uint32_t": "unsigned int",
    "int64_t": "AZ::s64", "uint64_t": "AZ::u64", "AZ::u8": "unsigned char", "AZ::s16": "short",
    "AZ::u16": "unsigned short", "AZ::s32": "int", "AZ::u32": "unsigned int",
}
_ALIASES.update({f"AZ::{name}": name for name in MATH})
_ALIASES.update({"AZ::PointerObject": "PointerObject", "AZ::JsonByteStream": "JsonByteStream"})
BUILTIN_SERIALIZERS = {
    "AZ::IO::Path": "{88E0A40F-3085-4CAB-8B11-EF5A2659C71A}",
    "AZ::IO::FixedMaxPath": "{FA6CA49F-376A-417C-9767-DD50744DF203}",
    "JsonByteStream": "{ADFD596B-7177-5519-9752-BC418FE42963}",
    "PointerObject": "{256581B7-8512-41FD-9A2C-6AF76B3E7BD6}",
}
"""The leaf types whose serializers every registry has (as custom serializers), with AzCore's
type ids (``JsonByteStream`` is ``AZStd::vector<AZ::u8, AZStd::allocator>``: the engine's
template id, ``(u8 + allocator) + vector``, each ``+`` a name-based SHA-1 uuid of the two ids'
bytes; AzCore's ``Patching.cpp`` tests name it for a byte stream)."""
_ALIASES.update({f"AZStd::{name}": name for name in SEQUENCES + MAPS + POINTERS + REJECTED
                 + ("array", "pair", "tuple", "allocator", "less", "hash", "equal_to",
                    "char_traits", "basic_string")})
_TEMPLATE_KINDS = ("seq", "array", "tuple", "map", "pointer")
_ENGINE_NAMES = {"AZStd::string": "AZStd::basic_string<char, AZStd::char_traits<char>, allocator>"}
_BUILTIN_IDS = {
    "char": "{3AB0037F-AF8D-48CE-BCA0-A170D18B2C03}",
    "signed char": "{58422C0E-1E47-4854-98E6-34098F6FE12D}",
    "short": "{B8A56D56-A10D-4DCE-9F63-405EE243DD3C}",
    "int": "{72039442-EB38-4D42-A1AD-CB68F7E0EEF6}",
    "long": "{8F24B9AD-7C51-46CF-B2F8-277356957325}",
    "AZ::s64": "{70D8A282-A1EA-462D-9D04-51EDE81FAC2F}",
    "unsigned char": "{72B9409A-7D1A-4831-9CFE-FCB3FADD3426}",
    "unsigned short": "{ECA0B403-C4F8-4B86-95FC-81688D046E40}",
    "unsigned int": "{43DA906B-7DEF-4CA8-9790-854106D3F983}",
    "unsigned long": "{5EC2D6F7-6859-400F-9215-C106F5B10E53}",
    "AZ::u64": "{D6597933-47CD-4FC8-B911-63F3E2B0993A}",
    "float": "{EA2C3E90-AFBE-44D4-A90D-FAAF79BAF93D}",
    "double": "{110C4B14-11A8-4E9D-8638-5051013A56AC}",
    "bool": "{A0CA880C-AFE4-43CB-926C-59AC48496112}",
    "AZ::Uuid": "{E152C105-A133-4D03-BBF8-3D4B2FBA3E2A}",
    "AZStd::string": "{03AAAB3F-5C47-5A66-9EBC-D5FA4DB353C9}",
    "AZ::Name": "{3D2B920C-9EFD-40D5-AAE0-DF131C3D4931}",
    "AZStd::any": "{03924488-C7F4-4D6D-948B-ABC2D1AE2FD3}",
    "Vector2": "{3D80F623-C85C-4741-90D0-E4E66164E6BF}",
    "Vector3": "{8379EB7D-01FA-4538-B64B-A6543B4BE73D}",
    "Vector4": "{0CE9FA36-1E3A-4C06-9254-B7C73A732053}",
    "Quaternion": "{73103120-3DD3-4873-BAB3-9713FA2804FB}",
    "Transform": "{5D9958E9-9F1E-4985-B532-FFFDE75FEDFD}",
    "Color": "{7894072A-9050-4F0F-901B-34B1A0D29417}",
    "Matrix3x3": "{15A4332F-7C3F-4A58-AC35-50E1CE53FB9C}",
    "Matrix3x4": "{1906D8A5-7DEC-4DE3-A606-9E53BB3459E7}",
    "Matrix4x4": "{157193C7-B673-4A2B-8B43-5681DCC3DEC3}",
}
_TOKENS = re.compile(r"\s*(?:([<>,*])|([^<>,*]+))")
_MAX_TYPE_DEPTH = 64
_CACHE_SIZE = 4096
"""Type texts :meth:`Registry.resolve` remembers (documents may name any number of them)."""


def _is_default(arg: TypeExpr | int) -> bool:
    return isinstance(arg, TypeExpr) and arg.kind == "default"


def _without_defaults(name: str, args: tuple[TypeExpr | int, ...]) -> tuple[TypeExpr | int, ...]:
    """The arguments before the engine's default ones (``allocator``, ``less<K>`` ...), which
    must be exactly those the engine adds to ``name``."""
    end = len(args)
    while end and _is_default(args[end - 1]):
        end -= 1
    if end == len(args):
        return args
    key = args[0] if end else None
    wanted = [d if d == "allocator" else f"{d}<{key}>" for d in DEFAULT_ARGUMENTS.get(name, ())]
    if [str(a) for a in args[end:]] != wanted:
        raise SchemaError(f"unexpected default template arguments of {name}")
    return args[:end]


def _attr_name(name: str, taken: set[str]) -> str:
    attr = re.sub(r"\W", "_", name) or "_"
    if attr[0].isdigit() or keyword.iskeyword(attr) or attr.startswith("__"):
        attr = "f_" + attr
    base, n = attr, 2
    while attr in taken:
        attr, n = f"{base}_{n}", n + 1
    taken.add(attr)
    return attr


class Registry:
    """Classes, enums and custom serializers by name, and the built-in leaves, math types and
    templates of O3DE's JSON serialization."""

    def __init__(self) -> None:
        self.classes: dict[str, ClassInfo] = {}
        self.enums: dict[str, EnumInfo] = {}
        self.serializers: dict[str, tuple[Serializer, UUID, type | None]] = {}
        self._by_python: dict[type, str] = {}
        self._cache: dict[str, TypeExpr] = {}
        self._index: tuple[dict[int, list[TypeExpr]], dict[UUID, TypeExpr]] | None = None
        self._add_builtin_serializers()

    def _add_builtin_serializers(self) -> None:
        """``AZ::IO::Path``, ``AZ::IO::FixedMaxPath``, ``JsonByteStream`` and ``PointerObject``,
        whose serializers O3DE's JSON system component registers for every context."""
        from gameserde.o3de import _primitives as p  # it imports this module

        leaves: dict[str, tuple[Serializer, type | None]] = {
            "AZ::IO::Path": (p.PathSerializer("AZ::IO::Path", fixed=False), None),
            "AZ::IO::FixedMaxPath": (p.PathSerializer("AZ::IO::FixedMaxPath", fixed=True),
                                     None),
            "JsonByteStream": (p.ByteStreamSerializer(), bytes),
            "PointerObject": (p.PointerObjectSerializer(), p.PointerObject),
        }
        for name, (serializer, python_type) in leaves.items():
            self.add_serializer(name, serializer, uuid=BUILTIN_SERIALIZERS[name],
                                python_type=python_type)

    # -- registration -------------------------------------------------------------------------

    def _check_new(self, name: str) -> None:
        if name in self.classes or name in self.enums or name in self.serializers:
            raise SchemaError(f"the type {name} is already registered")
        self._cache.clear()
        self._index = None

    @staticmethod
    def _uuid(name: str, uuid: str | UUID | None) -> UUID:
        if uuid is None:
            return derived_uuid(name)
        if isinstance(uuid, UUID):
            return uuid
        parsed = parse_uuid(uuid)
        if parsed is None:
            raise SchemaError(f"{name}: {uuid!r} is not a uuid")
        return parsed

    def add_class(self, name: str, uuid: str | UUID | None = None,
                  fields: Iterable[tuple[str, str | TypeExpr] | tuple[str, str | TypeExpr, Any]]
                  = (), *, bases: Sequence[str] = (), abstract: bool = False,
                  python_type: type | None = None,
                  registered_name: str | None = None) -> ClassInfo:
        """Register a class: ``fields`` as ``(name, type)`` or ``(name, type, default)`` in
        declaration order (a default is a value, copied for each instance, or a factory);
        ``bases`` are registered classes whose fields come first; without ``python_type`` a
        dataclass is generated for its instances. ``name`` is the registry's key;
        ``registered_name`` (default: ``name``) is the name O3DE writes in ``$type`` and may be
        shared by several classes (``A::Inherited`` and ``B::Inherited`` both as
        ``Inherited``)."""
        self._check_new(name)
        for base in bases:
            if base not in self.classes:
                raise SchemaError(f"{name}: the base class {base} is not registered")
        taken = {f.attr for b in bases for f in self.classes[b].all_fields}
        own: list[FieldInfo] = []
        for spec in fields:
            fname, ftype = spec[0], spec[1]
            default = spec[2] if len(spec) > 2 else dataclasses.MISSING
            texpr = ftype if isinstance(ftype, TypeExpr) else self.resolve(ftype, lazy=True)
            own.append(FieldInfo(fname, texpr, _attr_name(fname, taken), default))
        info = ClassInfo(name, self._uuid(name, uuid), own, tuple(bases), abstract, python_type,
                         registered_name=registered_name or name)
        info.all_fields = [f for b in bases for f in self.classes[b].all_fields] + own
        self.classes[name] = info
        if python_type is None:
            info.python_type = self._generate(info)
        self._by_python[info.python_type] = name  # type: ignore[index]
        return info

    def _generate(self, info: ClassInfo) -> type:
        specs = [(f.attr, Any, field(default_factory=self._factory(f))) for f in info.fields]
        cls_name = re.sub(r"\W", "_", info.name)
        bases = tuple(t for b in info.bases if (t := self.classes[b].python_type) is not None)
        return dataclasses.make_dataclass(cls_name, specs, bases=bases, unsafe_hash=True)

    def _factory(self, f: FieldInfo) -> Callable[[], Any]:
        default = f.default
        if default is dataclasses.MISSING:
            return self._default_factory(f.type)
        if callable(default) and not isinstance(default, type | int | float | str):
            return default  # type: ignore[no-any-return]
        return lambda: copy.deepcopy(default)

    def _default_factory(self, t: TypeExpr) -> Callable[[], Any]:
        """What makes a field's default: immutable ones made once and shared, the others
        counted against the budget of the load under way (:mod:`._budget`): a class instance
        one plus its fields, an array its length, another container one."""
        if t.kind in SHARED_DEFAULTS:
            made = self.create(t)
            return lambda: made
        if t.kind == "class":
            def instance() -> Any:
                info = self.classes.get(t.name)
                _budget.charge(1 + (len(info.all_fields) if info is not None else 0))
                return self.create(t)
            return instance
        cost = max(t.size, 1) if t.kind == "array" else 1

        def value() -> Any:
            _budget.charge(cost)
            return self.create(t)
        return value

    def add_enum(self, name: str, values: Iterable[tuple[str, int]] | type[enum.Enum],
                 *, underlying: str = "int", uuid: str | UUID | None = None) -> EnumInfo:
        """Register an enum: ``values`` as ``(name, value)`` pairs in registration order, or an
        ``IntEnum``/``IntFlag`` class (its members in order); ``underlying`` is the integer
        type (16, 32, 64 bits signed or 8 to 64 bits unsigned are usable)."""
        self._check_new(name)
        base = self.resolve(underlying)
        if base.kind != "int":
            raise SchemaError(f"enum {name}: the underlying type {underlying} is not an integer")
        python_type = values if isinstance(values, type) else None
        pairs = ([(mem.name, int(mem.value)) for mem in values]  # type: ignore[union-attr]
                 if python_type else [(n, int(x)) for n, x in values])  # type: ignore[misc]
        info = EnumInfo(name, self._uuid(name, uuid), base, pairs, python_type)
        self.enums[name] = info
        if python_type is not None:
            self._by_python[python_type] = name
        return info

    def add_serializer(self, name: str, serializer: Serializer, *, uuid: str | UUID | None = None,
                       python_type: type | None = None) -> None:
        """Register a custom serializer for the type ``name`` (values of ``python_type``, if
        given, are recognised as that type when stored without a type)."""
        self._check_new(name)
        self.serializers[name] = (serializer, self._uuid(name, uuid), python_type)
        if python_type is not None:
            self._by_python[python_type] = name

    def add_dataclass(self, cls: type, *, name: str | None = None, uuid: str | UUID | None = None,
                      abstract: bool = False) -> ClassInfo:
        """Register a dataclass: annotations give the field types (``bool``, ``int`` = int64,
        ``float`` = double, ``str``, ``UUID``, ``list``/``set``/``dict``/``tuple``, ``T | None``
        = a pointer, math values, ``AnyValue``, registered dataclasses and enums;
        ``Annotated[T, "C++ type"]`` or the width aliases of :mod:`gameserde.schema.python`
        for others); ``field(metadata={"o3de": "JSON name"})`` renames a field. Registered
        dataclass bases become base classes."""
        if not dataclasses.is_dataclass(cls):
            raise SchemaError(f"{cls.__name__} is not a dataclass")
        hints = typing.get_type_hints(cls, include_extras=True)
        bases = [self._by_python[b] for b in cls.__bases__ if b in self._by_python]
        inherited = {f.attr for b in bases for f in self.classes[b].all_fields}
        fields = []
        for f in dataclasses.fields(cls):
            if f.name in inherited:
                continue
            texpr = self._from_annotation(hints[f.name], f"{cls.__name__}.{f.name}")
            fields.append((f.metadata.get("o3de", f.name), texpr))
        info = self.add_class(name or cls.__name__, uuid, fields, bases=bases, abstract=abstract,
                              python_type=cls)
        own = {f.name for f in dataclasses.fields(cls)} - inherited
        for finfo, attr in zip(info.fields, [f.name for f in dataclasses.fields(cls)
                                             if f.name in own], strict=True):
            finfo.attr = attr
        return info

    def _from_annotation(self, hint: Any, where: str) -> TypeExpr:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            meta = args[1]
            if isinstance(meta, str | TypeExpr):
                return meta if isinstance(meta, TypeExpr) else self.resolve(meta, lazy=True)
            if isinstance(meta, m.Int):
                return next(t for t in LEAVES.values() if t.kind == "int" and t.size == meta.bits
                            and t.signed == meta.signed and t.name not in ("long", "char",
                                                                           "unsigned long"))
            if isinstance(meta, m.Float):
                return LEAVES["float" if meta.bits == 32 else "double"]
            return self._from_annotation(args[0], where)
        if origin in (types.UnionType, typing.Union) and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1:
                inner = self._from_annotation(rest[0], where)
                return TypeExpr("pointer", inner.name + "*", (inner,), flavor="raw")
        simple = {bool: "bool", int: "AZ::s64", float: "double", str: "AZStd::string",
                  UUID: "AZ::Uuid", v.AnyValue: "AZStd::any"}
        if hint in simple:
            return LEAVES[simple[hint]]
        if hint is bytes:
            return TypeExpr("custom", "JsonByteStream")
        for name, cls in MATH.items():
            if hint is cls:
                return LEAVES[name]
        if isinstance(hint, type) and hint in self._by_python:
            return self.resolve(self._by_python[hint], lazy=True)
        templates = {list: "vector", set: "set", frozenset: "set", dict: "map", tuple: "tuple"}
        if origin in templates and args and Ellipsis not in args:
            inner_types = tuple(self._from_annotation(a, where) for a in args)
            return self._template(templates[origin], inner_types, 0)
        raise SchemaError(f"{where}: cannot map the annotation {hint!r} to an O3DE type")

    # -- lookup -------------------------------------------------------------------------------

    def resolve(self, spec: str | TypeExpr, *, lazy: bool = False) -> TypeExpr:
        """The :class:`TypeExpr` for a type's text; ``lazy`` allows names not registered yet
        (they resolve to classes when used)."""
        if isinstance(spec, TypeExpr):
            return spec
        cached = self._cache.get(spec)
        if cached is not None:
            return cached
        tokens = [(sym or word.strip()) for sym, word in _TOKENS.findall(spec)]
        if "".join(tokens).replace(" ", "") != spec.replace(" ", ""):
            raise SchemaError(f"cannot read the type {spec!r}")
        result, pos = self._parse(tokens, 0, lazy, 0)
        if result.kind == "default":
            raise SchemaError(f"{spec!r} is only a default template argument")
        if pos != len(tokens):
            raise SchemaError(f"unexpected text after the type in {spec!r}")
        if not lazy and len(self._cache) < _CACHE_SIZE:
            self._cache[spec] = result
        return result

    def _parse(self, tokens: list[str], pos: int, lazy: bool, depth: int) -> tuple[TypeExpr, int]:
        if depth > _MAX_TYPE_DEPTH or pos >= len(tokens) or tokens[pos] in "<>,*":
            raise SchemaError("a type name is missing or nested too deeply")
        word = " ".join(tokens[pos].split())
        pos += 1
        args: list[TypeExpr | int] = []
        if pos < len(tokens) and tokens[pos] == "<":
            pos += 1
            while True:
                if pos < len(tokens) and tokens[pos].isdigit():
                    args.append(int(tokens[pos]))
                    pos += 1
                else:
                    arg, pos = self._parse(tokens, pos, lazy, depth + 1)
                    args.append(arg)
                if pos < len(tokens) and tokens[pos] == ",":
                    pos += 1
                    continue
                if pos < len(tokens) and tokens[pos] == ">":
                    pos += 1
                    break
                raise SchemaError(f"unclosed template arguments of {word}")
            result = self._template(_ALIASES.get(word, word), tuple(args), depth)
        else:
            result = self._named(word, lazy)
        while pos < len(tokens) and tokens[pos] == "*" and result.kind != "default":
            result = TypeExpr("pointer", result.name + "*", (result,), flavor="raw")
            pos += 1
        return result, pos

    def _named(self, word: str, lazy: bool) -> TypeExpr:
        word = _ALIASES.get(word, word)
        if word in LEAVES:
            return LEAVES[word]
        if word in self.enums:
            return TypeExpr("enum", word)
        if word in self.serializers:
            return TypeExpr("custom", word)
        if word in self.classes:
            return TypeExpr("class", word)
        if word == "allocator":
            return TypeExpr("default", word)
        if lazy:
            return TypeExpr("class", word)
        raise SchemaError(f"unknown type: {word}")

    def _template(self, name: str, args: tuple[TypeExpr | int, ...], depth: int) -> TypeExpr:
        if name in ("less", "hash", "equal_to", "char_traits") and len(args) == 1:
            return TypeExpr("default", f"{name}<{args[0]}>", flavor=name)
        if name == "basic_string" and [str(a) for a in args] == ["char", "char_traits<char>",
                                                                 "allocator"]:
            return LEAVES["AZStd::string"]
        args = _without_defaults(name, args)
        if any(_is_default(a) for a in args):
            raise SchemaError(f"misplaced default template argument of {name}")
        types_ = tuple(a for a in args if isinstance(a, TypeExpr))
        numbers = [a for a in args if isinstance(a, int)]

        def text() -> str:
            return f"{name}<{','.join(str(a) for a in args)}>"

        if name == "vector" and not numbers and len(types_) == 1 \
                and types_[0].name == "unsigned char":
            return TypeExpr("custom", "JsonByteStream")  # its own serializer, base64
        if name in SEQUENCES and len(types_) == 1:
            if name == "fixed_vector" and len(numbers) != 1:
                raise SchemaError("fixed_vector needs a capacity: fixed_vector<T,N>")
            return TypeExpr("seq", text(), types_, numbers[0] if numbers else 0, flavor=name)
        if name == "array" and len(types_) == 1 and len(numbers) == 1:
            return TypeExpr("array", text(), types_, numbers[0], flavor=name)
        if name in ("pair", "tuple") and types_ and not numbers:
            if name == "pair" and len(types_) != 2:
                raise SchemaError("a pair has two types")
            return TypeExpr("tuple", text(), types_, flavor=name)
        if name in MAPS and len(types_) == 2:
            return TypeExpr("map", text(), types_, flavor=name)
        if name in POINTERS and len(types_) == 1:
            return TypeExpr("pointer", text(), types_, flavor=name)
        if name in REJECTED:
            return TypeExpr("rejected", text(), types_, flavor=name)
        raise SchemaError(f"unknown template or wrong arguments: {text()}")

    def class_info(self, name: str) -> ClassInfo:
        """The registered class ``name``."""
        try:
            return self.classes[name]
        except KeyError:
            raise SchemaError(f"unknown class: {name}") from None

    def type_of_value(self, value: Any) -> TypeExpr | None:
        """The registered type of a Python value's class (dataclass, enum or custom type),
        or of a math value; None when the value's class is not known."""
        name = self._by_python.get(type(value))
        if name is not None:
            return self._named(name, False)
        for mname, cls in MATH.items():
            if type(value) is cls:
                return LEAVES[mname]
        return None

    def type_id(self, t: TypeExpr) -> UUID:
        """The type's uuid: registered ones, AzCore's ids for leaves and math types, the
        engine's combined id for templates (:meth:`engine_type`), the pointee's for ``T*``
        (``AzTypeInfo<T*>::Uuid()``)."""
        if t.kind == "pointer" and t.flavor == "raw":
            return self.type_id(t.args[0])
        if t.kind in _TEMPLATE_KINDS:
            return self.engine_type(t)[0]
        if t.kind == "class":
            return self.class_info(t.name).uuid
        if t.kind == "enum":
            return self.enums[t.name].uuid
        if t.kind == "custom":
            return self.serializers[t.name][1]
        known = _BUILTIN_IDS.get(t.name)
        return parse_uuid(known) or derived_uuid(t.name) if known else derived_uuid(t.name)

    def engine_type(self, t: TypeExpr) -> tuple[UUID, str]:
        """``AzTypeInfo<T>::GetCanonicalTypeId()`` and ``Name()``: what ``t`` adds to a
        template's id and name (``T*`` adds ``PointerId`` and ``*``; ``AZStd::string`` is
        named ``AZStd::basic_string<char, AZStd::char_traits<char>, allocator>``). Templates the
        engine has no type info for (``multimap``, ``multiset``) get a gameserde-made id."""
        if t.kind == "pointer" and t.flavor == "raw":
            inner_id, inner_name = self.engine_type(t.args[0])
            return combine_ids(inner_id, POINTER_ID), inner_name + "*"
        if t.kind in _TEMPLATE_KINDS:
            args = [self.engine_type(a) for a in t.args]
            if t.kind == "array" or t.flavor == "fixed_vector":
                args.append((name_id(str(t.size)), str(t.size)))
            return template_type(t.flavor, args) or (derived_uuid(t.name), t.name)
        return self.type_id(t), _ENGINE_NAMES.get(t.name, self.registered_name(t))

    def named_types(self) -> list[TypeExpr]:
        """Every type a ``$type`` can name: leaves, math types, enums, classes, custom types."""
        out = [t for t in LEAVES.values()]
        out += [TypeExpr("enum", n) for n in self.enums]
        out += [TypeExpr("custom", n) for n in self.serializers]
        out += [TypeExpr("class", n) for n in self.classes]
        return out

    def _indexes(self) -> tuple[dict[int, list[TypeExpr]], dict[UUID, TypeExpr]]:
        if self._index is None:
            names: dict[int, list[TypeExpr]] = {}
            ids: dict[UUID, TypeExpr] = {}
            for t in self.named_types():
                names.setdefault(name_crc(self.registered_name(t)), []).append(t)
                ids.setdefault(self.type_id(t), t)
            pending = [f.type for info in self.classes.values() for f in info.fields]
            while pending:
                t = pending.pop()
                pending.extend(t.args)
                if t.kind in _TEMPLATE_KINDS and t.flavor != "raw":
                    try:
                        ids.setdefault(self.type_id(t), t)
                    except SchemaError:
                        continue
            self._index = names, ids
        return self._index

    def by_uuid(self, uuid: UUID) -> TypeExpr | None:
        """The registered type with this id; templates are known by id when a registered
        class has a field of that type (or one nesting it)."""
        return self._indexes()[1].get(uuid)

    def registered_name(self, t: TypeExpr) -> str:
        """The name O3DE knows the type by."""
        if t.kind == "class" and t.name in self.classes:
            return self.classes[t.name].registered_name
        if t.kind in _TEMPLATE_KINDS and t.flavor != "raw":
            return self.engine_type(t)[1]
        if t.kind == "custom" and t.name == "JsonByteStream":
            return "AZStd::vector<unsigned char, allocator>"  # AZStd::vector<AZ::u8>
        return t.name

    def by_name(self, name: str) -> list[TypeExpr]:
        """Every registered type whose name has the CRC32 of ``name`` (case-insensitive)."""
        return list(self._indexes()[0].get(name_crc(name), ()))

    def is_derived(self, derived: TypeExpr, base: TypeExpr) -> bool:
        """``CanDowncast``: ``derived`` is ``base`` or a class with ``base`` among its bases."""
        if derived.name == base.name and derived.kind == base.kind:
            return True
        if derived.kind != "class" or base.kind != "class" or derived.name not in self.classes:
            return False
        stack, seen = [derived.name], set()
        while stack:
            name = stack.pop()
            if name == base.name:
                return True
            if name in seen or name not in self.classes:
                continue
            seen.add(name)
            stack.extend(self.classes[name].bases)
        return False

    # -- instances ----------------------------------------------------------------------------

    def can_create(self, t: TypeExpr) -> bool:
        """Whether the type has a factory (abstract and unregistered classes do not)."""
        if t.kind == "class":
            info = self.classes.get(t.name)
            return info is not None and not info.abstract
        return t.kind != "rejected"

    def create(self, t: TypeExpr) -> Any:
        """A default-constructed value of the type (``SerializeContext::CreateAny``)."""
        kind = t.kind
        if kind == "class":
            info = self.class_info(t.name)
            if info.abstract:
                raise SchemaError(f"the class {t.name} is abstract")
            return info.python_type()  # type: ignore[misc]
        if kind in ("bool",):
            return False
        if kind in ("int", "enum", "opaque"):
            return 0
        if kind == "float":
            return 0.0
        if kind == "string":
            return ""
        if kind == "uuid":
            return UUID(int=0)
        if kind == "math":
            return MATH[t.name]()
        if kind == "any":
            return v.AnyValue()
        if kind == "seq":
            return set() if "set" in t.flavor and "multi" not in t.flavor else []
        if kind == "array":
            return [self.create(t.args[0]) for _ in range(t.size)]
        if kind == "tuple":
            return tuple(self.create(a) for a in t.args)
        if kind == "map":
            return [] if "multi" in t.flavor else {}
        if kind == "custom":
            return self.serializers[t.name][0].create()
        return None

    def python_type(self, name: str) -> type:
        """The Python class of a registered class's instances."""
        return self.class_info(name).python_type  # type: ignore[return-value]

    # -- the shared model ---------------------------------------------------------------------

    def to_schema(self) -> m.Schema:
        """The registry lowered into :mod:`gameserde.schema`: classes become ``Record`` (kind
        ``class``, the first base as ``base``, the fields of further bases copied in front),
        enums ``Enum``. Types the model lacks (tuple, any, math, Uuid, custom) lower to
        ``String`` with the O3DE type kept in the field's ``o3de_type`` attribute."""
        named: dict[str, m.Named] = {}
        for e in self.enums.values():
            named[e.name] = m.Enum(e.name, m.Int(e.underlying.size, e.underlying.signed),
                                   dict(e.values), attributes={"uuid": str(e.uuid)})
        for c in self.classes.values():
            extra = [f for b in c.bases[1:] for f in self.classes[b].all_fields]
            fields = tuple(m.Field(f.name, self._lower(f.type),
                                   attributes={"o3de_type": f.type.name})
                           for f in extra + c.fields)
            named[c.name] = m.Record(c.name, fields, kind="class",
                                     base=c.bases[0] if c.bases else None,
                                     attributes={"uuid": str(c.uuid), "abstract": c.abstract})
        return m.Schema(named)

    def _lower(self, t: TypeExpr) -> m.Type:
        if t.kind == "int":
            return m.Int(t.size, t.signed)
        if t.kind == "float":
            return m.Float(t.size)
        if t.kind == "bool":
            return m.BOOL
        if t.kind in ("class", "enum") and (t.name in self.classes or t.name in self.enums):
            return m.Ref(t.name)
        if t.kind == "seq":
            inner = self._lower(t.args[0])
            return m.Set(inner) if "set" in t.flavor else m.List(inner)
        if t.kind == "array":
            return m.List(self._lower(t.args[0]), t.size)
        if t.kind == "map":
            return m.Map(self._lower(t.args[0]), self._lower(t.args[1]))
        if t.kind == "pointer":
            return m.Optional(self._lower(t.args[0]))
        return m.STRING
