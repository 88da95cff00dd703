"""Binary schemas (``.bfbs``): ``to_bfbs`` against ``flatc -b --schema`` 25.12.19, and
``load_schema`` of flatc's ``.bfbs`` against the ``.fbs`` it came from.

Every combination of ``--bfbs-comments``, ``--bfbs-builtins`` and ``--bfbs-filenames`` on a
schema using every feature a ``.bfbs`` records (and an include), on schemas declared as Python
dataclasses, and on random schemas (:mod:`tests.flatbuffers.fbs_gen`), several per flatc run;
then broken ``.bfbs`` input: only :class:`BfbsError`, with an offset.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameserde.cli import main
from gameserde.errors import DecodeError, SchemaError
from gameserde.flatbuffers import FbsSchema, load_schema
from gameserde.flatbuffers._bfbs_write import BfbsWriter
from gameserde.flatbuffers.bfbs import BfbsError, is_bfbs, load_bfbs, to_bfbs
from gameserde.flatbuffers.render import to_fbs
from gameserde.schema import schema_of
from gameserde.schema.model import Field as ModelField
from gameserde.schema.model import Record
from tests.flatbuffers import fbs_gen
from tests.flatbuffers.bfbs_tool import FLAGS, assert_same_model, flatc_bfbs
from tests.flatbuffers.test_python_front import Hero, Monster

INC_FBS = """namespace Lib;

/// A point.
/// Two floats.
struct Point { x: float; y: float; }

enum Kind : ushort { Z, A, B, C = 10 }
"""

MAIN_FBS = """include "inc.fbs";

namespace Game.Core;

attribute "priority";
attribute tag;

/// Permissions.
enum Perm : ubyte (bit_flags, tag: "p") {
  Read,
  Write (tag: "w"),
  /// Execute.
  Exec = 7
}

union Payload : int { Hero, Lib.Point, Text: string }

union Plain { Hero }

struct Cell (force_align: 8) {
  p: Lib.Point;
  k: Lib.Kind;
  grid: [short:3];
}

/// A hero.
table Hero (priority: 3) {
  /// The hero's name.
  name: string (key);
  hp: short = 100;
}

table Sorted (original_order) { b: byte; l: long; s: string; }

table WithIds { a: int (id: 1); b: string (id: 0); }

table Root {
  heroes: [Hero];
  payload: Payload;
  payloads: [Payload];
  plain: Plain (deprecated);
  cells: [Cell];
  cell: Cell;
  maybe: int = null;
  ratio: double = nan;
  neg: float = -inf;
  perm: Perm = "Read Write";
  motto: string = "hi";
  nums: [int] = [];
  blob: [ubyte] (nested_flatbuffer: "Hero");
  flex: [ubyte] (flexbuffer);
  old: int (deprecated);
  must: string (required);
  far: [int] (vector64);
  farstr: string (offset64);
  kind: Lib.Kind = B;
  sorted: Sorted;
  ids: WithIds;
  tagged: uint (tag, priority: 2);
}

/// The store.
rpc_service Store (priority: 1) {
  /// Get one.
  Get(Hero):Root (streaming: "server");
  Put(Root):Hero;
}

root_type Game.Core.Root;
file_identifier "GAME";
file_extension "gam";
"""


@pytest.fixture(scope="module")
def features(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("features")
    (directory / "inc.fbs").write_text(INC_FBS)
    (directory / "main.fbs").write_text(MAIN_FBS)
    return directory


def test_features_match_flatc_with_every_option(flatc: str, features: Path) -> None:
    schema = load_schema(features / "main.fbs")
    for (comments, builtins), options in FLAGS.items():
        want = flatc_bfbs(flatc, features, ["main.fbs"], options)["main.fbs"]
        assert schema.to_bfbs(comments=comments, builtins=builtins) == want, options
        loaded = load_schema(want)
        assert_same_model(schema, loaded, comments=comments, builtins=builtins)
        assert loaded.to_bfbs(comments=comments, builtins=builtins) == want


@pytest.mark.parametrize("root", [".", ".."])
def test_features_match_flatc_with_filenames(flatc: str, features: Path, root: str) -> None:
    project = (features / root).resolve()
    schema = load_schema(features / "main.fbs")
    for (comments, builtins), options in FLAGS.items():
        want = flatc_bfbs(flatc, features, ["main.fbs"],
                          (*options, "--bfbs-filenames", str(project)))["main.fbs"]
        got = schema.to_bfbs(comments=comments, builtins=builtins, filenames=project)
        assert got == want, options
        loaded = load_schema(want)
        assert loaded.to_bfbs(comments=comments, builtins=builtins, filenames=project) == want
        name = f"//{features.name}/" if root == ".." else "//"
        assert loaded.types["Game.Core.Root"].attributes["flatbuffers.file"] == name + "main.fbs"
        assert loaded.attributes["file_includes"] == (
            (name + "inc.fbs", ()), (name + "main.fbs", (name + "inc.fbs",)))
        assert loaded.services[0].file == name + "main.fbs"


def test_flatc_given_a_directory_names_files_as_filenames_does(flatc: str,
                                                              features: Path) -> None:
    # flatc takes the schema's directory as the project root when given one
    want = flatc_bfbs(flatc, features.parent, [f"{features.name}/main.fbs"])
    schema = load_schema(features / "main.fbs")
    assert schema.to_bfbs(filenames=features) == want[f"{features.name}/main.fbs"]


def test_what_a_bfbs_holds(flatc: str, features: Path) -> None:
    want = flatc_bfbs(flatc, features, ["main.fbs"], FLAGS[True, True])["main.fbs"]
    s = load_schema(want)
    root = s.table("Root")
    assert s.root == "Game.Core.Root" and s.file_identifier == "GAME"
    assert s.file_extension == "gam"
    assert [f.name for f in root.fields][:4] == ["heroes", "payload_type", "payload",
                                                 "payloads_type"]
    perm = s.enum("Perm")
    assert perm.bit_flags and dict(perm.values) == {"Read": 1, "Write": 2, "Exec": 128}
    assert perm.attributes["flatbuffers.value_attributes"] == {"Write": {"tag": "w"}}
    assert perm.attributes["flatbuffers.value_docs"] == {"Exec": " Execute."}
    payload = s.union("Payload")
    assert payload.attributes["flatbuffers.declared_underlying"] is True
    fields = {f.name: f for f in root.fields}
    assert fields["blob"].attributes["flatbuffers.nested_root"] == "Game.Core.Hero"
    assert fields["far"].attributes["vector64"] is True
    assert fields["must"].required and fields["old"].deprecated
    assert fields["motto"].default == ""  # flatc keeps only that there is a default
    assert s.struct_layout("Cell").align == 8
    assert s.table("Hero").doc == " A hero."
    (store,) = s.services
    assert [(c.name, c.request, c.response) for c in store.calls] == [
        ("Get", "Game.Core.Hero", "Game.Core.Root"), ("Put", "Game.Core.Root",
                                                      "Game.Core.Hero")]
    assert store.calls[0].attributes == {"streaming": "server"}


def test_codecs_work_the_same_on_a_loaded_bfbs(flatc: str, features: Path) -> None:
    fbs = load_schema(features / "main.fbs")
    bfbs = load_schema(flatc_bfbs(flatc, features, ["main.fbs"], FLAGS[False, True])["main.fbs"])
    value: dict[str, Any] = {
        "heroes": [{"name": "b", "hp": 3}, {"name": "a"}], "payload_type": "Text",
        "payload": "hi", "cells": [{"p": {"x": 1, "y": 2}, "k": "C", "grid": [1, 2, 3]}],
        "maybe": 5, "perm": "Read Exec", "must": "yes", "far": [1, 2], "farstr": "far",
        "kind": "A", "sorted": {"b": 1, "l": 2, "s": "s"}, "ids": {"a": 1, "b": "b"}}
    buf = fbs.encode(value)
    assert bfbs.encode(value) == buf
    assert bfbs.to_json(buf) == fbs.to_json(buf)
    assert bfbs.to_json(buf, defaults=True) == fbs.to_json(buf, defaults=True)
    assert bfbs.to_json(buf, strict=False) == fbs.to_json(buf, strict=False)
    assert repr(bfbs.decode(buf)) == repr(fbs.decode(buf))
    assert bfbs.from_json(fbs.to_json(buf)) == fbs.from_json(fbs.to_json(buf))
    bfbs.verify(buf)


def test_a_path_bytes_and_a_size_prefix(flatc: str, features: Path) -> None:
    sized = flatc_bfbs(flatc, features, ["main.fbs"], ("--size-prefixed",))["main.fbs"]
    plain = flatc_bfbs(flatc, features, ["main.fbs"])["main.fbs"]
    assert int.from_bytes(sized[:4], "little") == len(sized) - 4
    path = features / "main.bfbs"
    path.write_bytes(plain)
    for source in (path, str(path), plain, sized):
        assert is_bfbs(plain) and is_bfbs(sized)
        s = load_schema(source)
        assert s.to_bfbs() == plain
    assert load_schema(path).source_file == str(path)
    assert load_bfbs(plain, "x.bfbs").source_file == "x.bfbs"
    assert not is_bfbs(MAIN_FBS.encode()) and not is_bfbs(b"// BFBS BFBS\n")


@pytest.mark.parametrize("cls", [Monster, Hero])
def test_python_declared_schemas_match_flatc(flatc: str, tmp_path: Path, cls: type) -> None:
    model = schema_of(cls)
    (tmp_path / "py.fbs").write_text(to_fbs(model))
    schema = load_schema(model)
    for (comments, builtins), options in FLAGS.items():
        want = flatc_bfbs(flatc, tmp_path, ["py.fbs"], options)["py.fbs"]
        assert schema.to_bfbs(comments=comments, builtins=builtins) == want
        assert to_bfbs(schema, comments=comments, builtins=builtins) == want
        assert load_schema(want).to_bfbs(comments=comments, builtins=builtins) == want


def test_attribute_values_are_text_in_a_bfbs() -> None:
    s = load_schema(b'attribute "a"; attribute "b"; attribute "c";\n'
                    b'table T (a: 0, b: "07", c) { x: int (id: 0); }\nroot_type T;')
    loaded = load_schema(s.to_bfbs(builtins=True))
    assert dict(loaded.table("T").attributes) == {
        "a": True, "b": "07", "c": True, "flatbuffers.namespace": "", "flatbuffers.file": "",
        "flatbuffers.sortbysize": True}
    assert loaded.table("T").fields[0].attributes["id"] == 0


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_schemas_match_flatc(flatc: str, tmp_path_factory: pytest.TempPathFactory,
                                    seed: int) -> None:
    rnd = random.Random(seed)
    directory = tmp_path_factory.mktemp("rand")
    names = []
    for i in range(4):
        (directory / f"s{i}.fbs").write_text(fbs_gen.random_schema(rnd)[0])
        names.append(f"s{i}.fbs")
    schemas = {n: load_schema(directory / n) for n in names}
    for (comments, builtins), options in FLAGS.items():
        for name, want in flatc_bfbs(flatc, directory, names, options).items():
            fbs = schemas[name]
            assert fbs.to_bfbs(comments=comments, builtins=builtins) == want, name
            loaded = load_schema(want)
            assert_same_model(fbs, loaded, comments=comments, builtins=builtins)
            assert loaded.to_bfbs(comments=comments, builtins=builtins) == want


# ---------------------------------------------------------------------------------------------
# Broken .bfbs


@pytest.fixture(scope="module")
def valid(features: Path) -> bytes:
    return load_schema(features / "main.fbs").to_bfbs(comments=True, builtins=True)


def _load_or_bfbs_error(data: bytes) -> FbsSchema | None:
    try:
        return load_bfbs(data)
    except BfbsError as exc:
        assert isinstance(exc, DecodeError) and isinstance(exc, SchemaError)
        assert exc.offset is not None and exc.offset >= 0  # may point past a short buffer
        return None


def test_truncated(valid: bytes) -> None:
    for cut in range(0, len(valid), 7):
        with pytest.raises(BfbsError):
            load_bfbs(valid[:cut])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_mutated(valid: bytes, data: st.DataObject) -> None:
    buf = bytearray(valid)
    for _ in range(data.draw(st.integers(1, 8))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    loaded = _load_or_bfbs_error(bytes(buf))
    if loaded is not None:
        loaded.to_bfbs()


class _Lying(BfbsWriter):
    """A writer told to write one wrong thing."""

    lie: dict[str, Any] = {}

    def type_table(self, base: int, element: int, index: int, fixed_length: int) -> int:
        if index >= 0 and "index" in self.lie:
            index = self.lie["index"](index)
        return super().type_table(base, element, index, fixed_length)


def _lying_bfbs(fbs: bytes, **lie: Any) -> bytes:
    writer = _Lying(load_schema(fbs), comments=False, builtins=False, files=None,
                    includes=None)
    writer.lie = lie
    return writer.run()


@pytest.mark.parametrize(("fbs", "lie", "message"), [
    (b"table T { t: T; }", {"index": lambda i: 99}, "index 99 out of range"),
    (b"struct S { a: int; } struct U { s: S; } table T { u: U; }",
     {"index": lambda i: 1}, "contains itself"),
    (b"enum E : byte { A } table T { e: E; }", {"index": lambda i: 1},
     "index 1 out of range"),
    (b"union U { T } table T { u: U; }", {"index": lambda i: -1 if i == 0 else i},
     "index -1 out of range"),
])
def test_lying_types(fbs: bytes, lie: dict[str, Any], message: str) -> None:
    with pytest.raises(BfbsError, match=message) as info:
        load_bfbs(_lying_bfbs(fbs, **lie))
    assert info.value.offset is not None


class _LyingField(BfbsWriter):
    """A writer that changes the field ``name`` as ``change`` says."""

    name = ""
    change: dict[str, Any] = {}

    def field(self, f: ModelField, record: Record) -> int:
        if f.name == self.name:
            attrs = {**f.attributes, **self.change.get("attributes", {})}
            f = dataclasses.replace(f, id=self.change.get("id", f.id), attributes=attrs)
        return super().field(f, record)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("y", {"id": 0}, "field ids of T are not 0 to 1"),
    ("y", {"attributes": {"flatbuffers.voffset": 4}}, "not in the slot of its id"),
    ("b", {"attributes": {"flatbuffers.offset": 2}}, "not where flatc places it"),
    ("b", {"attributes": {"flatbuffers.padding": 0}}, "do not fill its 8 bytes"),
])
def test_lying_fields(name: str, change: dict[str, Any], message: str) -> None:
    writer = _LyingField(load_schema(b"struct S { a: int; b: short; } table T { x: int; y: S; }"),
                         comments=False, builtins=False, files=None, includes=None)
    writer.name, writer.change = name, change
    with pytest.raises(BfbsError, match=message) as info:
        load_bfbs(writer.run())
    assert info.value.offset is not None


def test_huge_counts() -> None:
    good = load_schema(b"table T { x: int; }").to_bfbs()
    root = int.from_bytes(good[:4], "little")
    vtable = root - int.from_bytes(good[root:root + 4], "little", signed=True)
    objects = root + int.from_bytes(good[vtable + 4:vtable + 6], "little")
    count = objects + int.from_bytes(good[objects:objects + 4], "little")
    assert int.from_bytes(good[count:count + 4], "little") == 1
    for n in (0x7FFFFFFF, 0xFFFFFFFF, 1 << 20):
        huge = good[:count] + n.to_bytes(4, "little") + good[count + 4:]
        with pytest.raises(BfbsError, match="not a valid binary schema"):
            load_bfbs(huge)


# ---------------------------------------------------------------------------------------------
# The command line: --schema takes a .bfbs


def test_cli_takes_a_bfbs_schema(features: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    bfbs = tmp_path / "main.bfbs"
    bfbs.write_bytes(load_schema(features / "main.fbs").to_bfbs(builtins=True))
    value = tmp_path / "v.json"
    value.write_text('{must: "yes", heroes: [{name: "a"}], perm: "Read Exec"}')
    with_fbs, with_bfbs = tmp_path / "a.bin", tmp_path / "b.bin"
    assert main(["encode", "flatbuffers", "-s", str(features / "main.fbs"), str(value),
                 "-o", str(with_fbs)]) == 0
    assert main(["encode", "flatbuffers", "-s", str(bfbs), str(value),
                 "-o", str(with_bfbs)]) == 0
    assert with_bfbs.read_bytes() == with_fbs.read_bytes()
    assert main(["verify", "flatbuffers", "-s", str(bfbs), str(with_bfbs)]) == 0
    capsys.readouterr()
    for schema in (features / "main.fbs", bfbs):
        assert main(["decode", "flatbuffers", "-s", str(schema), str(with_bfbs)]) == 0
    first, second = capsys.readouterr().out.split("\n", 1)
    assert second.strip() == first.strip() and '"perm":"Read Exec"' in first


def test_cli_reports_a_broken_bfbs(features: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    bfbs = tmp_path / "broken.bfbs"
    bfbs.write_bytes(load_schema(features / "main.fbs").to_bfbs()[:200])
    (tmp_path / "x.bin").write_bytes(b"\0" * 16)
    capsys.readouterr()
    assert main(["decode", "flatbuffers", "-s", str(bfbs), str(tmp_path / "x.bin")]) == 1
    assert capsys.readouterr().err.startswith(f"gameserde: {bfbs}: flatbuffers .bfbs load error")

