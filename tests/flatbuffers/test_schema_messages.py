"""Which warnings and errors a schema with includes reports, and how files are named, as flatc.

flatc 25.12.19 keeps one message list and clears it whenever it starts parsing a file; after
parsing a new include it starts the including file over. So the warnings it prints for a
schema are those of the root file alone (Arrow's Message.fbs: 3, not the 28 of everything it
includes), while ``--warnings-as-errors`` still fails on an included file's warning, at the
end of that file. An error is printed after the messages of the file it is in. Files are
named by their real path (``realpath``), whatever path they were given by. Each layout below
is run through ``flatc -b`` at test time and through ``load_schema``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gameserde.flatbuffers import FbsSchemaError, load_schema

WARN = "table {name} {{ {field}:int; }}\n"

LAYOUTS: dict[str, dict[str, str]] = {
    "root-and-include-warn": {
        "t.fbs": 'include "a.fbs";\n' + WARN.format(name="T", field="Root1"),
        "a.fbs": WARN.format(name="A", field="Inc1") + WARN.format(name="A2", field="Inc2"),
    },
    "only-the-include-warns": {
        "t.fbs": 'include "a.fbs";\ntable T { ok:int; }\n',
        "a.fbs": WARN.format(name="A", field="Inc1"),
    },
    "chain-of-includes": {
        "t.fbs": 'include "a.fbs";\ninclude "b.fbs";\n' + WARN.format(name="T", field="Rt"),
        "a.fbs": 'include "sub/c.fbs";\n' + WARN.format(name="A", field="Aa"),
        "b.fbs": WARN.format(name="B", field="Bb"),
        "sub/c.fbs": WARN.format(name="C", field="Cc"),
    },
    "error-in-second-include": {
        "t.fbs": 'include "a.fbs";\ninclude "b.fbs";\n' + WARN.format(name="T", field="Rt"),
        "a.fbs": WARN.format(name="A", field="Aa"),
        "b.fbs": WARN.format(name="B", field="Bb") + "table Bad { x:int;; }\n",
    },
    "error-in-root-after-warnings": {
        "t.fbs": 'include "a.fbs";\n' + WARN.format(name="T", field="Rt") + "table X { y:Nope; }\n",
        "a.fbs": WARN.format(name="A", field="Aa"),
    },
    "error-in-nested-include": {
        "t.fbs": 'include "a.fbs";\n',
        "a.fbs": 'include "sub/c.fbs";\n' + WARN.format(name="A", field="Aa") + "table A2 { ",
        "sub/c.fbs": WARN.format(name="C", field="Cc"),
    },
    "include-by-include-path": {
        "t.fbs": 'include "c.fbs";\n' + WARN.format(name="T", field="Rt"),
        "sub/c.fbs": WARN.format(name="C", field="Cc") + "table C2 { z:int; } garbage\n",
    },
}


def flatc_messages(flatc: str, work: Path, main: str, options: tuple[str, ...]
                   ) -> tuple[bool, list[str]]:
    """Whether ``flatc -b`` accepts ``main`` (run in ``work``) and the lines it prints."""
    proc = subprocess.run([flatc, "-b", *options, "-o", "_out", main], cwd=work,
                          capture_output=True, check=False)
    err = proc.stderr.decode("utf-8", "surrogateescape")
    if not err:
        return proc.returncode == 0, []
    kind = "warning" if proc.returncode == 0 else "error"
    head = f"\n{kind}:\n  "
    assert err.startswith(head) and err.endswith("\n\n"), err
    return proc.returncode == 0, err[len(head):-2].split("\n")


def ours(work: Path, main: str, include_paths: list[str], warnings_as_errors: bool
         ) -> tuple[bool, list[str]]:
    cwd = os.getcwd()
    os.chdir(work)
    try:
        schema = load_schema(main, include_paths, warnings_as_errors=warnings_as_errors)
    except FbsSchemaError as exc:
        return False, [*exc.messages, str(exc)]
    finally:
        os.chdir(cwd)
    return True, list(schema.warnings)


@pytest.mark.parametrize("werror", [False, True], ids=["warnings", "warnings-as-errors"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_messages_as_flatc(flatc: str, tmp_path: Path, layout: str, werror: bool) -> None:
    for name, text in LAYOUTS[layout].items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    include = ["-I", "sub"] if layout == "include-by-include-path" else []
    options = (*include, *(("--warnings-as-errors",) if werror else ()))
    expected = flatc_messages(flatc, tmp_path, "t.fbs", options)
    assert expected[1] or (layout == "only-the-include-warns" and not werror)
    assert ours(tmp_path, "t.fbs", include[1:], werror) == expected


def test_file_names_are_real_paths(flatc: str, tmp_path: Path) -> None:
    # a relative path, a path through "..", and a symbolic link: flatc prints the real path
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "t.fbs").write_text(WARN.format(name="T", field="Rt"), encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "d")
    for main in ("d/t.fbs", "d/../d/t.fbs", "link/t.fbs", str(tmp_path / "d" / "t.fbs")):
        expected = flatc_messages(flatc, tmp_path, main, ())
        assert expected[1][0].startswith(os.path.realpath(tmp_path / "d" / "t.fbs") + ":")
        assert ours(tmp_path, main, [], False) == expected


def test_in_memory_schema_names_the_file_as_given(tmp_path: Path) -> None:
    # no such file: the name is kept as it is (flatc's realpath fails and it keeps the name)
    schema = load_schema(WARN.format(name="T", field="Rt"), filename="nowhere/t.fbs")
    assert schema.warnings == ("nowhere/t.fbs:1: 12: warning: field names should be "
                               "lowercase snake_case, got: Rt",)
