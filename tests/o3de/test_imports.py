"""``$import`` resolution (``JsonImportResolver::ResolveImports``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gameserde import o3de
from gameserde.errors import DecodeError


def files(tree: dict[str, str]) -> Callable[[str], str | None]:
    return tree.get


def test_import_replaces_the_holding_object() -> None:
    loader = files({"m/base.json": '{"a": 1, "b": {"c": 2}}'})
    doc = {"x": {"$import": "base.json", "lost": 5}, "y": [{"$import": "base.json"}]}
    assert o3de.resolve_imports(doc, "m/top.material", loader) == {
        "x": {"a": 1, "b": {"c": 2}}, "y": [{"a": 1, "b": {"c": 2}}]}
    assert doc["x"] == {"$import": "base.json", "lost": 5}


def test_patch_nested_imports_and_relative_paths() -> None:
    loader = files({
        "m/sub/base.json": '{"inner": {"$import": "leaf.json"}, "k": 1}',
        "m/sub/leaf.json": '{"v": [1, 2]}',
    })
    doc = {"$import": {"filename": "sub/base.json", "patch": {"k": None, "z": 3}}}
    assert o3de.resolve_imports(doc, "m/top.json", loader) == {"inner": {"v": [1, 2]},
                                                                "z": 3}


def test_later_directive_wins_and_prefix_names_count() -> None:
    loader = files({"a.json": '{"a": 1}', "b.json": '{"b": 2}'})
    assert o3de.resolve_imports({"$import": "a.json", "$imp": "b.json"}, "t.json",
                                loader) == {"b": 2}
    assert o3de.resolve_imports({"": "a.json"}, "t.json", loader) == {"a": 1}
    assert o3de.resolve_imports({"$imports": "a.json"}, "t.json", loader) == {
        "$imports": "a.json"}


@pytest.mark.parametrize(("doc", "tree", "words"), [
    ({"$import": "a.json"}, {"a.json": '{"$import": "a.json"}'}, "already imported"),
    ({"$import": "a.json"}, {"a.json": '{"$import": "b.json"}',
                             "b.json": '{"x": {"$import": "a.json"}}'}, "already imported"),
    ({"$import": "t.json"}, {}, "already imported"),
    ({"$import": "gone.json"}, {}, "no such file"),
    ({"$import": "bad.json"}, {"bad.json": "{oops"}, "Failed to import"),
    ({"$import": 5}, {}, "names no file"),
    ({"$import": {"patch": {}}}, {}, "names no file"),
])
def test_refused(doc: object, tree: dict[str, str], words: str) -> None:
    with pytest.raises(DecodeError) as info:
        o3de.resolve_imports(doc, "t.json", files(tree))
    assert words in str(info.value)


def chain(n: int) -> dict[str, str]:
    return {f"f{i}.json": f'{{"next": {{"$import": "f{i + 1}.json"}}}}' for i in range(n)} | {
        f"f{n}.json": "{}"}


def test_depth_limit() -> None:
    o3de.resolve_imports({"$import": "f0.json"}, "t.json", files(chain(31)))
    with pytest.raises(DecodeError, match="deeper than 32"):
        o3de.resolve_imports({"$import": "f0.json"}, "t.json", files(chain(32)))
    o3de.resolve_imports({"$import": "f0.json"}, "t.json", files(chain(40)), max_depth=64)


def bomb(levels: int) -> dict[str, str]:
    tree = {f"b{i}.json": f'{{"l": {{"$import": "b{i + 1}.json"}}, '
                          f'"r": {{"$import": "b{i + 1}.json"}}}}' for i in range(levels)}
    tree[f"b{levels}.json"] = '"' + "x" * 100 + '"'
    return tree


def test_bombs_stop_at_the_expansion_budget() -> None:
    small = o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(4)))
    assert small["l"]["r"]["l"]["r"] == "x" * 100
    with pytest.raises(DecodeError, match="max_expansion=16,"):
        o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(30)))
    with pytest.raises(DecodeError, match="max_expansion=1,"):
        o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(8)), max_expansion=1)
    big = o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(8)),
                               max_expansion=None)
    assert big["l"]["l"]["l"]["l"]["r"]["r"]["r"]["r"] == "x" * 100


def strict(tree: dict[str, str]) -> Callable[[str], str | None]:
    """A loader that fails as one built on ``open()`` would on names no path holds."""
    def load(name: str) -> str | None:
        if "\0" in name or len(name.encode("utf-8")) > 1024:
            raise ValueError(f"open() refuses {name!r}")
        return tree.get(name)
    return load


@pytest.mark.parametrize(("name", "words"), [
    ("a\0.json", "holds a NUL character"), ("\0", "holds a NUL character"),
    ("@alias@/x\0", "holds a NUL character"), ("a\udc80.json", "holds a lone surrogate"),
    ("d/" * 511 + "abc", "1025 bytes long"), ("\u00e9" * 513, "1026 bytes long"),
])
@pytest.mark.parametrize("in_order", [False, True])
def test_names_no_path_holds_are_refused_before_the_loader(name: str, words: str,
                                                           in_order: bool) -> None:
    """NUL (the engine's C string would end there), a lone surrogate (no UTF-8), more than
    the engine's 1,024-byte paths: a DecodeError, and the loader is never asked."""
    doc = {"x": {"$import": name}} if in_order else {"x": {"$import": {"filename": name}}}
    with pytest.raises(DecodeError, match=words):
        if in_order:
            o3de.resolve_imports_in_order(doc, "t.json", strict({}))
        else:
            o3de.resolve_imports(doc, "t.json", strict({}))


def test_names_a_path_holds_reach_the_loader() -> None:
    """Control characters and 1,024 bytes are paths the engine holds."""
    tree = {"a\x01\x1f.json": '{"v": 1}', "d/" * 511 + "ab": '{"w": 2}'}
    doc = {"p": {"$import": "a\x01\x1f.json"}, "q": {"$import": "d/" * 511 + "ab"}}
    assert o3de.resolve_imports(doc, "t.json", strict(tree)) == {"p": {"v": 1}, "q": {"w": 2}}
    assert o3de.resolve_imports_in_order(doc, "t.json", strict(tree))[0] == {
        "p": {"v": 1}, "q": {"w": 2}}
