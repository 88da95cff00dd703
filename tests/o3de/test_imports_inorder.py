"""The settings registry's ``$import`` (``JsonImportResolver::ResolveImportsInOrder``),
``merge_settings`` (``SettingsRegistryImpl::MergeSettingsFile``), ``RestoreImports`` and the
patch reporters."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameserde import o3de
from gameserde.errors import DecodeError
from gameserde.o3de import Outcomes, ResultCode, Tasks
from tests.fuzz.test_growth import assert_linear
from tests.o3de.strategies import NAMES, TEXT

Files = Callable[[str], "str | None"]


def files(tree: dict[str, Any]) -> Files:
    texts = {name: v if isinstance(v, str) else json.dumps(v) for name, v in tree.items()}
    return texts.get


# ---------------------------------------------------------------------------------------------
# merge_settings, with the engine's own tests

def test_imports_merge_in_field_order() -> None:
    # SettingsRegistryTests.cpp::MergeSettingsFile_JsonWithImport_MergesImportedFiles_InOrder
    tree = files({
        "r/Memory.phone.setreg": '{ "pre_field": {"first": 7 }, "$import": "Memory.os.setreg",'
                                 ' "non_override": 7, "post_field": {"2nd": "twenty-one"} }',
        "r/Memory.os.setreg": '{ "$import": { "filename": "Memory.mobile.setreg" },'
                              ' "non_override2": "Hello World",'
                              ' "override_imported_settings": "override" }',
        "r/Memory.mobile.setreg": '{ "Memory": 1, "override_imported_settings": "initial",'
                                  ' "pre_field": {"first": 14, "second": "fourteen"},'
                                  ' "post_field": [2] }'})
    settings, result = o3de.merge_settings(["r/Memory.phone.setreg"], tree)
    assert result.ok and result.outcome == Outcomes.Success
    assert settings == {"pre_field": {"first": 14, "second": "fourteen"}, "Memory": 1,
                        "override_imported_settings": "override",
                        "post_field": {"2nd": "twenty-one"}, "non_override2": "Hello World",
                        "non_override": 7}


@pytest.mark.parametrize(("order", "first"), [(("number", "string"), "Hello"),
                                              (("string", "number"), 23)])
def test_repeated_imports_merge_in_order(order: tuple[str, str], first: object) -> None:
    # SettingsRegistryTests.cpp::MergeSettingsFile_JsonWithImport_MultipleImports_...
    tree = files({"number.setreg": {"object_field": {"1": 23, "2": 34}},
                  "string.setreg": {"object_field": {"1": "Hello", "3": "World"}},
                  "aggregate.setreg": f'{{"$import": "{order[0]}.setreg", '
                                      f'"$import": "{order[1]}.setreg"}}'})
    settings, result = o3de.merge_settings(["aggregate.setreg"], tree)
    assert settings["object_field"] == {"1": first, "2": 34, "3": "World"} and result.ok


def test_settings_files_in_order_with_the_registrys_parser() -> None:
    tree = files({"a.setreg": '{"a": {"x": 1, "y": 2}, "keep": true,} // trailing comma',
                  "b.setregpatch": '[{"op": "remove", "path": "/a/x"}, /* c */'
                                   ' {"op": "add", "path": "/b", "value": [1]}]',
                  "c.setreg": '{"keep": null, "a": {"z": 3}} text after the root is ignored'})
    settings, result = o3de.merge_settings(["a.setreg", "b.setregpatch", "c.setreg"], tree,
                                           document={"old": 0})
    assert settings == {"old": 0, "a": {"y": 2, "z": 3}, "b": [1]} and result.ok


def test_files_merge_settings_refuses() -> None:
    # SettingsRegistryTests.cpp::MergeSettingsFile_NonObjectRoot_EmptyAnchorKey_JsonMergePatch
    # (kParseStopWhenDoneFlag reads the string and stops), _ParseError, _InvalidPath
    pairs: list[str | tuple[str, str | bytes]] = [
        ("x.setreg", '"BooleanValue": false'), ("y.setreg", "{ Test: 1 }"), "missing.setreg",
        ("empty.setreg", b""), ("ok.setreg", '{"a": 1}')]
    settings, result = o3de.merge_settings(pairs, files({}))
    assert settings == {"a": 1}
    assert [i.code.outcome for i in result.issues] == [
        Outcomes.Unsupported, Outcomes.Catastrophic, Outcomes.Catastrophic,
        Outcomes.Catastrophic]
    with pytest.raises(DecodeError, match="no loader"):
        o3de.merge_settings(["a.setreg"])


def test_a_failing_json_patch_keeps_what_it_did() -> None:
    # MergeSettingsJsonDocument applies the patch in place: the operations before the
    # failing one stay, and the merge reports the failure
    tree = files({"p.setregpatch": [{"op": "add", "path": "/x", "value": 1},
                                    {"op": "remove", "path": "/nope"},
                                    {"op": "add", "path": "/y", "value": 2}]})
    settings, result = o3de.merge_settings(["p.setregpatch"], tree, document={"a": 0})
    assert settings == {"a": 0, "x": 1}
    assert result.processing.name == "Halted" and result.issues[0].path == "/1"


def test_a_failing_import_merges_null() -> None:
    # MergeSettingsJsonDocument goes on to merge the unwritten (null) document after
    # ResolveImportsInOrder fails: the settings become null
    tree = files({"a.setreg": {"a": 1}, "cycle.setreg": {"b": 2, "$import": "cycle.setreg"}})
    settings, result = o3de.merge_settings(["a.setreg", "cycle.setreg"], tree)
    assert settings is None and result.outcome == Outcomes.Catastrophic
    assert "cyclic dependency" in result.issues[0].message
    settings, _ = o3de.merge_settings(["cycle.setreg", "a.setreg"], tree)
    assert settings == {"a": 1}


# ---------------------------------------------------------------------------------------------
# resolve_imports_in_order

def test_members_after_the_directive_replace_what_it_brought() -> None:
    # JsonImporter.cpp PatchField: an object member after the import is resolved into the
    # member of that name (replacing it, not merging); an array member is added again with
    # AddMember and then resolved into the *first* member of the name, leaving an empty one
    tree = files({"base.json": {"o": {"x": 1, "y": 2}, "arr": [1], "n": 5, "keep": 1}})
    doc = o3de.parse('{"n": 0, "$import": "base.json", "o": {"x": 9}, "arr": [2], '
                     '"n": null}')
    resolved, result = o3de.resolve_imports_in_order(doc, "t.json", tree)
    assert result.ok and result.code == ResultCode.of(Tasks.Import, Outcomes.Success)
    assert isinstance(resolved, o3de.JsonObject)
    assert resolved.pairs == [("n", None), ("o", {"x": 9}), ("arr", [2]), ("keep", 1),
                              ("arr", [])]


def test_imports_relative_to_the_importing_file_and_patch_files() -> None:
    tree = files({"d/base.json": {"list": [1], "$import": "sub/more.jsonpatch"},
                  "d/sub/more.jsonpatch": [{"op": "add", "path": "/list/-", "value": 2}],
                  "d/x.json": {"v": 1}})
    doc = {"items": [{"$import": {"filename": "base.json", "patch": {"extra": True}}},
                     {"$import": "@alias@/x.json"}]}
    resolved, result = o3de.resolve_imports_in_order(
        doc, "d/top.json", lambda p: tree(p.replace("@alias@", "d")))
    assert resolved == {"items": [{"list": [1, 2], "extra": True}, {"v": 1}]} and result.ok


def test_failures_are_catastrophic_results() -> None:
    reports: list[tuple[str, ResultCode]] = []

    def reporter(message: str, code: ResultCode, path: str) -> ResultCode:
        reports.append((message, code))
        return code

    tree = files({"a.json": {"$import": "b.json"}, "b.json": {"x": {"$import": "a.json"}},
                  "bad.json": "{oops"})
    for target, words in [("a.json", "cyclic dependency"), ("bad.json", "Failed to import"),
                          ("gone.json", "no such file")]:
        resolved, result = o3de.resolve_imports_in_order({"$import": target}, "a.json", tree,
                                                         reporter=reporter)
        assert resolved is None and result.outcome == Outcomes.Catastrophic
        assert result.code.task == Tasks.Import and words in result.issues[-1].message
    assert any("Successfully merged" in message for message, _ in reports)


def test_a_reporter_may_let_a_cycle_pass() -> None:
    # ResolveNestedImportsInOrder returns Success when the reporter turns the cycle's
    # Catastrophic into something else: the file is merged once, not walked again
    def forgive(message: str, code: ResultCode, path: str) -> ResultCode:
        return ResultCode.of(code.task, Outcomes.Skipped) if "cyclic" in message else code

    tree = files({"self.json": {"a": 1, "$import": "self.json"}})
    resolved, result = o3de.resolve_imports_in_order({"$import": "self.json"}, "self.json",
                                                     tree, reporter=forgive)
    assert resolved == {"a": 1, "$import": "self.json"}
    assert result.outcome == Outcomes.Success
    assert [i.code.outcome for i in result.issues] == [Outcomes.Skipped]


def bomb(levels: int) -> Files:
    tree = {f"b{i}.json": {"l": {"$import": f"b{i + 1}.json"},
                           "r": {"$import": f"b{i + 1}.json"}} for i in range(levels)}
    tree[f"b{levels}.json"] = {"leaf": "x" * 100}
    return files(tree)


def test_limits() -> None:
    small, _ = o3de.resolve_imports_in_order({"$import": "b0.json"}, "t.json", bomb(3))
    assert small["l"]["r"]["l"] == {"leaf": "x" * 100}
    with pytest.raises(DecodeError, match="max_expansion=16,"):
        o3de.resolve_imports_in_order({"$import": "b0.json"}, "t.json", bomb(30))
    chain = files({f"f{i}.json": {"$import": f"f{i + 1}.json"} for i in range(40)})
    with pytest.raises(DecodeError, match="deeper than 32"):
        o3de.resolve_imports_in_order({"$import": "f0.json"}, "t.json", chain)
    # the engine walks the merged object again after every import: many directives in an
    # object holding many members cost the members once per directive, charged to the budget
    members = ",".join(f'"m{i}": {i}' for i in range(1000))
    wide = "{" + members + "," + ",".join(['"$import": "x.json"'] * 1000) + "}"
    with pytest.raises(DecodeError, match="max_expansion=16,"):
        o3de.resolve_imports_in_order(o3de.parse(wide), "t.json", files({"x.json": {}}))


def many_imports(n: int) -> bytes:
    body = ",".join(f'"k{i}": {{"$import": "leaf.setreg", "own": {i}}}' for i in range(n))
    return ("{" + body + "}").encode()


def test_many_small_imports_cost_linear_time() -> None:
    tree = files({"leaf.setreg": {"a": [1, 2], "b": {"c": "d"}}})
    assert_linear(many_imports,
                  lambda text: o3de.merge_settings([("top.setreg", text)], tree),
                  (200, 400, 800))


# ---------------------------------------------------------------------------------------------
# RestoreImports

PLAIN = NAMES.filter(lambda name: not "$import".startswith(name))
"""Names that are no ``$import`` directive (``ResolveImports`` takes any prefix of it)."""
OBJECTS = st.dictionaries(PLAIN, st.recursive(
    st.booleans() | st.integers(-5, 5) | TEXT,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(PLAIN, c, max_size=3),
    max_leaves=8), max_size=4)


@given(OBJECTS, OBJECTS, st.booleans())
def test_restore_undoes_resolve(base: dict[str, Any], wanted: dict[str, Any],
                                in_array: bool) -> None:
    patch = o3de.create_patch(base, wanted, "JsonMergePatch").value
    directive: Any = "base.json"
    if patch:
        directive = {"filename": "base.json", "patch": patch}
    held = {"$import": directive}
    doc = {"list": [1, held]} if in_array else {"a": {"b": held}, "c": 1}
    tree = files({"m/base.json": base})
    directives: list[o3de.ImportDirective] = []
    resolved = o3de.resolve_imports(doc, "m/top.json", tree, directives=directives)
    assert directives == [("/list/1" if in_array else "/a/b", "base.json")]
    assert o3de.restore_imports(resolved, directives, "m/top.json", tree) == doc


def test_restore_puts_back_the_patch_it_computes() -> None:
    # JsonImporter.cpp RestoreImports: CreatePatch(JsonMergePatch) from the imported document
    # (its own imports resolved) to the object, then RestoreImport
    tree = files({"base.json": {"a": 1, "inner": {"$import": "leaf.json"}},
                  "leaf.json": {"x": [1]}})
    doc = {"root": {"$import": "base.json"}, "other": [{"$import": "leaf.json"}]}
    directives: list[o3de.ImportDirective] = []
    resolved = o3de.resolve_imports(doc, "top.json", tree, directives=directives)
    resolved["root"]["inner"]["x"].append(2)
    resolved["root"]["b"] = True
    restored = o3de.restore_imports(resolved, directives, "top.json", tree)
    assert restored == {"root": {"$import": {"filename": "base.json", "patch": {
        "inner": {"x": [1, 2]}, "b": True}}}, "other": [{"$import": "leaf.json"}]}
    assert o3de.restore_imports({}, directives, "top.json", tree) == {}


# ---------------------------------------------------------------------------------------------
# Reporters of the patches

def test_a_reporter_can_let_a_json_patch_go_on() -> None:
    # TestCases_Patching.cpp::ApplyPatch_UseJsonPatchWithCustomReportingCallback_ReportPartialSkip
    def go_on(message: str, code: ResultCode, path: str) -> ResultCode:
        return ResultCode.of(code.task, Outcomes.PartialSkip) if code.halted else code

    result = o3de.apply_patch({}, [
        {"op": "add", "path": "/nonexistent_key/new_member", "value": "someValue"},
        {"op": "add", "path": "/test", "value": "someValue"}], reporter=go_on)
    assert result.value == {"test": "someValue"}
    assert (result.result.outcome, result.result.processing.name) == (Outcomes.PartialSkip,
                                                                     "Completed")


def test_reporters_see_every_report() -> None:
    seen: list[tuple[str, str]] = []

    def note(message: str, code: ResultCode, path: str) -> ResultCode:
        seen.append((path, code.outcome.name))
        return code

    o3de.apply_patch({"a": 1}, [{"op": "replace", "path": "/a", "value": 2},
                                {"op": "test", "path": "/a", "value": 2}], reporter=note)
    assert seen == [("/a", "Success"), ("/1", "Success")]
    seen.clear()
    o3de.apply_patch({"a": 1, "b": 2}, {"a": None, "c": {"d": 1}}, "JsonMergePatch",
                     reporter=note)
    assert seen == [("/a", "Success"), ("/c/d", "Success"), ("/c", "Success"),
                    ("", "Success")]
    seen.clear()
    o3de.create_patch({"a": 1, "b": 2}, {"a": 1, "c": 3}, "JsonPatch", reporter=note)
    assert seen == [("/a", "DefaultsUsed"), ("/c", "Success"), ("/b", "Success")]


def test_a_halting_reporter_stops_and_empties_the_copy() -> None:
    def stop(message: str, code: ResultCode, path: str) -> ResultCode:
        return ResultCode.of(code.task, Outcomes.Catastrophic)

    merged = o3de.apply_patch({"a": 1}, {"b": 2}, "JsonMergePatch", reporter=stop)
    assert merged.value == {} and merged.result.outcome == Outcomes.Catastrophic
    patched = o3de.apply_patch({}, [{"op": "add", "path": "/a", "value": 1},
                                    {"op": "add", "path": "/b", "value": 1}], reporter=stop)
    assert patched.value == {} and len(patched.result.issues) == 1
    created = o3de.create_patch({"a": [1]}, {"a": [2, 3]}, reporter=stop)
    assert created.value == [{"op": "replace", "path": "/a/0", "value": 2}]
    with pytest.raises(TypeError):
        o3de.apply_patch({}, {"a": 1}, "JsonMergePatch", reporter=lambda m, c, p: None)  # type: ignore[arg-type,return-value]
