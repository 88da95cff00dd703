"""The five formats, and the options their codecs take, declared once for the library, the
command line and the documentation's option table.

:data:`FORMATS` names every format without importing it; :func:`format_info` imports a
format's ``interface`` module and returns its :class:`FormatInfo`: its codec factory and its
:class:`Option` list. The command line builds its parser from these declarations, and
``gameserde.codec(format, **options)`` takes the same options by their keyword names.

Options that mean the same thing have the same name in every format: the common ones are
made by the functions of this module (:func:`schema_option`, :func:`type_option`,
:func:`max_depth_option`, :func:`max_expansion_option`).
"""

from __future__ import annotations

import argparse
import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from gameserde.errors import UsageError

if TYPE_CHECKING:
    from gameserde.codecs import Codec

__all__ = ["FORMATS", "VERBS", "FormatEntry", "FormatInfo", "Option", "format_info"]

VERBS = ("decode", "encode", "verify", "inspect", "convert")
"""Every format has every verb."""


class FormatEntry(NamedTuple):
    module: str
    description: str


FORMATS: dict[str, FormatEntry] = {
    "godot": FormatEntry("gameserde.godot.interface",
                         "Godot Variant binary (var_to_bytes, store_var, packets)"),
    "flatbuffers": FormatEntry("gameserde.flatbuffers.interface",
                               "FlatBuffers with a .fbs schema read at run time"),
    "zeze": FormatEntry("gameserde.zeze.interface",
                        "Zeze beans with a solution XML schema (Java runtime's ByteBuffer)"),
    "kingsisle": FormatEntry("gameserde.kingsisle.interface",
                             "KingsIsle ObjectProperty (Wizard101, Pirate101) with a type "
                             "list: streams and BINd files"),
    "o3de": FormatEntry("gameserde.o3de.interface",
                        "O3DE JSON (prefabs, settings registry, materials) checked, typed "
                        "with a registry and written as the engine writes it"),
}
"""Format name: the module holding its :class:`FormatInfo` (as ``FORMAT``), and a line saying
what it is."""


@dataclass(frozen=True)
class Option:
    """One codec option: its keyword ``name`` in :func:`gameserde.codec`, its command-line
    ``flags`` (the first is the main one, the others aliases), and how the command line reads
    it.

    ``parse`` turns the command line's text into the value (raising
    :class:`argparse.ArgumentTypeError` with a sentence, a usage error); ``None`` makes a flag
    (``True`` when given). ``repeat``: the option may be given several times, and its value is
    the list of them. ``verbs`` are the verbs it applies to. ``output`` marks options
    that describe the written side, which ``convert`` also takes as ``--to-NAME`` (``--to-NAME``
    and ``--to-no-NAME`` for flags). ``default`` is only shown: the codec applies it.
    """

    name: str
    flags: tuple[str, ...]
    help: str
    parse: Callable[[str], Any] | None = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    verbs: tuple[str, ...] = VERBS
    output: bool = False
    default: Any = None
    repeat: bool = False
    to_help: str = ""
    """The help of ``--to-NAME`` (default: "the written side: " and :attr:`help`)."""

    @property
    def flag(self) -> str:
        """The main command-line flag (``--max-depth``)."""
        return self.flags[0]


@dataclass(frozen=True)
class FormatInfo:
    """A format's declarations: its name, a line saying what it is, its codec factory (which
    takes the options as keywords and applies their defaults), its options, and the text the
    command line's help ends with (examples, the format's own terms).

    ``takes_source``: the codec reads the input's file name from its ``source`` option (O3DE
    picks its reader and registry by extension); the command line passes the input's path
    (``None`` for standard input). ``takes_target``: the codec that writes reads the
    output's file name from its ``target`` option (Godot writes a resource file in the form
    its extension names); the command line passes ``-o``'s path.
    """

    name: str
    description: str
    make: Callable[..., Codec]
    options: tuple[Option, ...]
    epilog: str = ""
    takes_source: bool = False
    takes_target: bool = False

    def options_for(self, verb: str) -> list[Option]:
        """The options ``verb`` takes (for ``convert``: those of the read side; the written
        side's are the ``output`` options that ``encode`` takes)."""
        return [o for o in self.options if verb in o.verbs]


def format_info(name: str) -> FormatInfo:
    """The declarations of format ``name``, importing it."""
    entry = FORMATS.get(name)
    if entry is None:
        raise UsageError(f"no format {name!r}; the formats are {', '.join(FORMATS)}")
    info: FormatInfo = importlib.import_module(entry.module).FORMAT
    return info


def check_options(info: FormatInfo, given: dict[str, Any]) -> None:
    """Refuse option names ``info`` does not declare (a :class:`UsageError` naming them)."""
    known = {o.name for o in info.options}
    unknown = sorted(set(given) - known)
    if unknown:
        raise UsageError(f"{info.name} codecs take no option {', '.join(unknown)}; they take "
                         f"{', '.join(sorted(known))}")


# ---------------------------------------------------------------------------------------------
# The common options: the same flag, keyword and reading in every format


def schema_option(help: str, *, metavar: str, aliases: Sequence[str] = (),
                  verbs: tuple[str, ...] = VERBS) -> Option:
    """``--schema/-s``: the schema source (a file, or a name the format knows)."""
    return Option("schema", ("--schema", "-s", *aliases), help, parse=str, metavar=metavar,
                  verbs=verbs)


def type_option(help: str, *, aliases: Sequence[str] = (),
                verbs: tuple[str, ...] = VERBS) -> Option:
    """``--type``: the root table, bean or type the data holds."""
    return Option("type", ("--type", *aliases), help, parse=str, metavar="NAME", verbs=verbs)


def max_depth_option(default: int, limit: int, note: str = "") -> Option:
    """``--max-depth N``: the deepest nesting accepted, from 0 to ``limit``."""
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = -1
        if not 0 <= value <= limit:
            raise argparse.ArgumentTypeError(f"--max-depth takes a whole number from 0 to "
                                             f"{limit}, not {text!r}")
        return value

    return Option("max_depth", ("--max-depth",),
                  f"refuse values nested deeper than N (default {default}{note}; at most "
                  f"{limit})", parse=parse, metavar="N", default=default)


def check_max_depth(value: object, limit: int) -> int:
    """``value`` as a ``max_depth``: a whole number from 0 to ``limit``, else a
    :class:`UsageError`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise UsageError(f"max_depth must be a whole number from 0 to {limit}, not {value!r}")
    return value


def parse_factor(text: str) -> float | None:
    """A ``--max-expansion`` value: a number >= 0, ``inf`` for no limit."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"--max-expansion takes a number >= 0 (inf: no "
                                         f"limit), not {text!r}")
    return None if math.isinf(value) else value


def max_expansion_option(default: float | None, counts: str,
                         verbs: tuple[str, ...] = VERBS) -> Option:
    """``--max-expansion FACTOR``; ``counts`` says what it bounds, as a phrase ("the default
    values a decode builds")."""
    shown = "inf" if default is None else f"{default:g}"
    return Option("max_expansion", ("--max-expansion",),
                  f"refuse input for which {counts} would exceed FACTOR times the input's size "
                  f"(hostile input; default {shown}, inf: no limit)", parse=parse_factor,
                  metavar="FACTOR", verbs=verbs, default=default)

