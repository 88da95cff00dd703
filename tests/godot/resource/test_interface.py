"""Resource files through the Godot codec and the command line: found by their first bytes
or their names, written in the form the output's name says, converted as the engine
converts them."""

from __future__ import annotations

from pathlib import Path

import pytest

import gameserde
from gameserde.cli import main
from gameserde.errors import GameserdeWarning, UsageError
from gameserde.godot.resource import ResourceFile, convert, read, write
from gameserde.godot.resource.interface import form_of_name, is_resource_data

TRES = b"""[gd_resource type="Resource" load_steps=2 format=2]

[sub_resource type="Resource" id=1]
name = "sword"

[resource]
gold = 1200
items = [ SubResource( 1 ) ]
pos = Vector2( 1.5, -2 )
"""


def test_the_codec_tells_resource_files_by_their_bytes_and_names() -> None:
    binary = write(read(TRES), "binary")
    assert is_resource_data(TRES) and is_resource_data(binary)
    assert is_resource_data(b"\xef\xbb\xbf\n" + TRES) and not is_resource_data("[gd_scene")
    assert not is_resource_data(gameserde.codec("godot").encode({"a": 1}))
    assert (form_of_name("a/b.SCN"), form_of_name("x.tres"), form_of_name("x.bin")) == (
        "binary", "text", None)
    codec = gameserde.codec("godot")
    for data in (TRES, binary):
        file = codec.decode(data)
        assert isinstance(file, ResourceFile) and file.main.properties["gold"] == 1200
        assert codec.encode(file) == data
        assert codec.from_json(codec.to_json(data)) == data
    assert codec.verify(TRES) == ("ok: a text resource of type Resource, Godot 3 (format 2): "
                                  "2 resources, 0 external")
    assert not codec.inspect(binary).error
    with pytest.raises(UsageError, match="inspect maps binary ones"):
        codec.inspect(TRES)


def test_the_target_names_the_form_written() -> None:
    reader = gameserde.codec("godot")
    assert gameserde.codec("godot", target="save.res").encode(reader.decode(TRES)) == write(
        convert(read(TRES), "binary"))
    to_text = gameserde.codec("godot", target="out.tres")
    assert reader.convert(write(read(TRES), "binary"), to_text) == TRES


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "save.tres").write_bytes(TRES)

    def run(*argv: str) -> int:
        return main([*argv])

    assert run("decode", "godot", str(tmp_path / "save.tres"), "-o",
               str(tmp_path / "save.json")) == 0
    assert run("encode", "godot", str(tmp_path / "save.json"), "-o",
               str(tmp_path / "save.res")) == 0
    assert (tmp_path / "save.res").read_bytes().startswith(b"RSRC")
    assert run("convert", "godot", str(tmp_path / "save.res"), "-o",
               str(tmp_path / "back.tres")) == 0
    assert (tmp_path / "back.tres").read_bytes() == TRES
    assert run("verify", "godot", str(tmp_path / "save.res")) == 0
    out = capsys.readouterr().out
    assert "ok: a binary resource of type Resource, Godot 3 (format 3)" in out
    (tmp_path / "bad.tres").write_bytes(TRES.replace(b"format=2", b"format=9"))
    assert run("decode", "godot", str(tmp_path / "bad.tres")) == 1
    err = capsys.readouterr().err
    assert "unknown text resource format=9" in err and "Traceback" not in err


def test_typed_containers_lose_their_types_in_the_binary_form_with_a_note() -> None:
    typed = TRES.replace(b"format=2", b"format=3").replace(b"items = [ SubResource( 1 ) ]",
                                                            b'items = Array[int]([1, 2])')
    with pytest.warns(GameserdeWarning, match=r"Array\[int\] is written as an untyped Array"):
        binary = write(read(typed), "binary")
    assert read(binary).main.properties["items"] == [1, 2]
