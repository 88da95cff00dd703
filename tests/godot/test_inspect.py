"""The byte map of ``inspect``: rows, paths, and columns that stay aligned."""

from __future__ import annotations

from typing import Any

from gameserde.godot import Dictionary, Vector3, encode
from gameserde.godot.inspect import KEY_STEP_LIMIT, PATH_WIDTH, TYPE_WIDTH, regions, render


def deep(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


VALUE = {
    "k" * 100: deep(30, {"x": 1}),
    "short": Dictionary([([1, 2], "list key"), (Vector3(1, 2, 3), "vector key")]),
    "last": [1],
}


def test_rows_and_paths() -> None:
    rows = regions(encode(VALUE))
    paths = [r.path for r in rows]
    long_step = '["' + "k" * KEY_STEP_LIMIT + '"...]'
    assert paths[:4] == ["$", "$", "$[<key 0>]", "$" + long_step]
    assert "$" + long_step + "[0]" * 30 + '["x"]' in paths
    # an Array key is named by its entry; a short key by itself
    assert '$["short"][<key 0>][1]' in paths
    assert '$["short"][<value 0>]' in paths
    assert '$["short"][Vector3(x=1.0, y=2.0, z=3.0)]' in paths
    assert rows[-1].path == '$["last"][0]' and rows[-1].note == "1"


def test_columns_stay_aligned_with_long_paths() -> None:
    data = encode(VALUE)
    lines = render(data, regions(data)).splitlines()
    header = lines[0]
    path_at, type_at, value_at = (header.index(w) for w in ("path", "type", "value"))
    assert type_at - path_at == PATH_WIDTH + 1  # the longest path is past the limit
    for line in lines[1:]:  # every column starts where its title does
        for at in (path_at, type_at, value_at):
            assert line[at - 1] == " " and line[at] != " ", line
    long_rows = [line for line in lines if line[path_at:].startswith("...")]
    assert long_rows and all(line[path_at:type_at].rstrip().endswith(('"...]', "]"))
                             for line in long_rows)
    assert any(line[path_at:type_at].rstrip().endswith('[0][0]["x"]') for line in long_rows)


def test_columns_fit_short_maps() -> None:
    data = encode([1, "a"])
    lines = render(data, regions(data)).splitlines()
    assert lines[0].split() == ["offset", "bytes", "path", "type", "value"]
    assert lines[3].endswith(" $[0] int    1") and lines[4].endswith(" $[1] String 'a'")


def test_long_type_names_are_cut() -> None:
    data = encode([Dictionary()])
    rows = regions(data)
    long_type = "Object(" + "C" * 50 + ")"
    rows[-1] = type(rows[-1])(rows[-1].offset, rows[-1].size, rows[-1].where, long_type, "x")
    lines = render(data, rows).splitlines()
    type_at = lines[0].index("type")
    assert lines[-1][type_at:] == "Object(" + "C" * (TYPE_WIDTH - 10) + "... x"
