"""``gameserde VERB o3de``: documents written as the engine writes them, typed with a
registry of the user's, verified with the load's issues, and mapped value by value."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gameserde.cli import main

REGISTRY = '''
from gameserde import o3de


def registry():
    reg = o3de.Registry()
    reg.add_class("Light", "{5B4C1F0E-0000-4000-8000-00000000A001}",
                  [("Intensity", "float", 1.0), ("Tags", "vector<string>", [])])
    return reg
'''


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def registry_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "cli_test_types.py").write_text(REGISTRY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cli_test_types", raising=False)
    return "cli_test_types:registry"


def test_decode_writes_the_engine_s_text(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "a.setreg"
    doc.write_text('{"b": 1.0, "a": [1, 2e2], "a": {}, "s": "x/y"}')
    code, out, err = run(capsys, "decode", "o3de", "--pretty", str(doc))
    assert (code, err) == (0, "")
    assert out == ('{\n    "b": 1.0,\n    "a": [\n        1,\n        200.0\n    ],\n'
                   '    "a": {},\n    "s": "x/y"\n}')
    code, out, _ = run(capsys, "verify", "o3de", str(doc))
    assert code == 0 and "ok: sound O3DE JSON of" in out
    doc.write_text('{"a": 1,}')
    assert run(capsys, "verify", "o3de", str(doc))[0] == 0  # the registry's reader
    plain = tmp_path / "a.json"
    plain.write_text('{"a": 1,}')
    code, _, err = run(capsys, "verify", "o3de", str(plain))
    assert code == 1 and "line 1" in err and err.count("\n") == 1
    assert run(capsys, "verify", "o3de", "--trailing-commas", str(plain))[0] == 0


def test_a_registry_types_and_normalises(tmp_path: Path, registry_module: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "light.json"
    doc.write_text('{"intensity": "2.5", "Tags": ["a"]}')
    typed = ("--registry", registry_module, "--type", "Light")
    code, out, err = run(capsys, "decode", "o3de", "--pretty", *typed, str(doc))
    assert (code, err) == (0, "")
    assert json.loads(out) == {"Intensity": 2.5, "Tags": ["a"]}
    code, out, _ = run(capsys, "encode", "o3de", *typed, "--keep-defaults", str(doc))
    assert code == 0 and json.loads(out) == {"Intensity": 2.5, "Tags": ["a"]}
    assert run(capsys, "verify", "o3de", *typed, str(doc))[0] == 0
    doc.write_text('{"Intensity": 2.5, "Colour": 1}')
    code, _, err = run(capsys, "verify", "o3de", *typed, str(doc))
    assert code == 1 and "/Colour" in err and "Skipped" in err
    code, out, err = run(capsys, "inspect", "o3de", *typed, str(doc))
    assert code == 1 and "issue Skipped" in out and "/Intensity" in out


def test_inspect_maps_every_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "p.json"
    text = '{"E": {"a/b": [true, null, 3, 4.5, "t"]}}'
    doc.write_text(text)
    code, out, err = run(capsys, "inspect", "o3de", "--as", "json", str(doc))
    assert (code, err) == (0, "")
    rows = [(r["offset"], r["length"], r["path"], r["type"], r["value"])
            for r in json.loads(out)["rows"]]
    assert rows == [(0, len(text), "/", "object", "1 members"),
                    (6, len(text) - 7, "/E", "object", "1 members"),
                    (14, 25, "/E/a~1b", "array", "5 elements"),
                    (15, 4, "/E/a~1b/0", "bool", "true"), (21, 4, "/E/a~1b/1", "null", "null"),
                    (27, 1, "/E/a~1b/2", "integer", "3"), (30, 3, "/E/a~1b/3", "double", "4.5"),
                    (35, 3, "/E/a~1b/4", "string", '"t"')]
    code, out, err = run(capsys, "inspect", "o3de", str(doc))
    assert (code, err) == (0, "")
    assert out.split()[:5] == ["offset", "bytes", "path", "type", "value"]
    assert out.splitlines()[4].split() == ["0x0000000f", "74", "72", "75", "65", "/E/a~1b/0",
                                           "bool", "true"]
    doc.write_text("[" * 300 + "]" * 300)
    code, out, err = run(capsys, "inspect", "o3de", str(doc))
    assert code == 1 and err.count("\n") == 1 and "nest deeper than 256 levels" in err
    assert out.splitlines()[1:] == []


@pytest.mark.parametrize(("args", "words"), [
    (("--type", "Light"), "--type Light names a type of a registry, but nothing types this "
                          "document (no --schema, and not a .prefab or .material file): drop "
                          "it, or give --schema engine or MODULE:NAME"),
    (("-s", "none", "--type", "Light"), "--type Light names a type of a registry, but --schema "
                                        "none types nothing: drop it, or give --schema engine "
                                        "or MODULE:NAME"),
    (("--registry", "cli_test_types:registry"), "--schema cli_test_types:registry needs --type, "
                                                "the document's type: one of Light"),
    (("--registry", "nowhere_at_all:x", "--type", "T"), "No module named"),
    (("--registry", "cli_test_types", "--type", "T"), "give MODULE:NAME"),
    (("--registry", "cli_test_types:registry", "--type", "Nope"), "unknown type: Nope"),
    (("--registry", "json:dumps", "--type", "T"), "calling it failed: TypeError"),
    (("--registry", "json:JSONDecoder", "--type", "T"), "not a gameserde.o3de.Registry"),
])
def test_usage_errors(tmp_path: Path, registry_module: str, capsys: pytest.CaptureFixture[str],
                      args: tuple[str, ...], words: str) -> None:
    doc = tmp_path / "x.json"
    doc.write_text("{}")
    code, _, err = run(capsys, "decode", "o3de", "--pretty", *args, str(doc))
    assert code == 2 and words in err and err.count("\n") == 1, err


def test_inspect_shows_bytes_that_are_not_utf8(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "editor.setreg"
    doc.write_bytes(b'{"Enable\xc8Prefabs": "on\xff", // the editor\'s bytes\n}')
    code, out, err = run(capsys, "inspect", "o3de", str(doc))
    assert (code, err) == (0, "")
    assert "/Enable\\xc8Prefabs" in out and '"on\\xff"' in out
