"""Every verb for every format, and help that says which format has which verb and what every
option does."""

from __future__ import annotations

import argparse

import pytest

from gameserde.cli import VERBS, build_parser
from gameserde.formats import FORMATS


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_format_has_every_verb() -> None:
    verbs = subparsers(build_parser())
    for verb in VERBS:
        assert set(subparsers(verbs[verb])) == set(FORMATS)


def test_top_level_help_names_the_formats_of_each_verb(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for verb in VERBS:
        assert f"{verb} " in text
    assert text.count("(formats: godot, flatbuffers, zeze, kingsisle, o3de)") == len(VERBS)


def test_every_option_has_help() -> None:
    verbs = subparsers(build_parser())
    for verb, verb_parser in verbs.items():
        for fmt, parser in subparsers(verb_parser).items():
            for action in parser._actions:
                assert action.help, (verb, fmt, action.option_strings or action.dest)
