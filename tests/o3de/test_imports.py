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


def test_bombs_stop_at_the_size_limit() -> None:
    small = o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(4)))
    assert small["l"]["r"]["l"]["r"] == "x" * 100
    with pytest.raises(DecodeError, match="size limit"):
        o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(30)))
    with pytest.raises(DecodeError, match="size limit"):
        o3de.resolve_imports({"$import": "b0.json"}, "t.json", files(bomb(8)), max_size=5000)
