"""``gameserde wad list|extract|pack``: KingsIsle KIWAD archives on the command line.

    gameserde wad list ARCHIVE [GLOB...] [-l]         member names (-l: sizes, zlib, CRC)
    gameserde wad extract ARCHIVE -o DIR [GLOB...]    members written under DIR
    gameserde wad pack DIR -o ARCHIVE                 an archive of DIR's files

Defined apart from :mod:`gameserde.cli` so that building the parser imports no format:
:mod:`gameserde.kingsisle` is imported when a ``wad`` command runs. Errors are raised as
gameserde errors (or :class:`OSError`) for :func:`gameserde.cli.main` to print and map to
its exit statuses. To decode the members of an archive, give the archive to ``gameserde
decode kingsisle`` (a batch of its members: ``docs/batch.md``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

__all__ = ["add_parser", "run"]

HELP = "list, extract or pack KingsIsle KIWAD archives (.wad)"


def add_parser(verbs: Any) -> None:
    """The ``wad`` verb and its three commands, under ``verbs`` (the main parser's
    subparsers)."""
    wad = verbs.add_parser("wad", help=HELP, description=HELP)
    commands = wad.add_subparsers(dest="wad_command", metavar="COMMAND", required=True)
    listing = commands.add_parser(
        "list", help="print the names of the members (those matching a GLOB)",
        description="print the names of the archive's members, sorted, one per line")
    _archive_and_globs(listing)
    listing.add_argument("-l", "--long", action="store_true", default=False,
                         help="print each member's size, stored size, 'zlib' or 'stored', "
                              "CRC and name")
    extract = commands.add_parser(
        "extract", help="write the members (those matching a GLOB) under a folder",
        description="write the archive's members (those matching a GLOB) under -o DIR at "
                    "their paths; a name that would leave the folder (.., an absolute path, "
                    "a drive letter, a backslash, NUL) stops the command before anything "
                    "is written")
    _archive_and_globs(extract)
    extract.add_argument("-o", "--output", metavar="DIR", required=True,
                         help="the folder to write into (made when missing)")
    extract.add_argument("--no-check-crc", dest="check_crc", action="store_false",
                         default=True,
                         help="write members whose CRC does not match (each is named on "
                              "standard error) instead of failing")
    extract.add_argument("--max-expansion", metavar="FACTOR", type=_factor, default=1032.0,
                         help="a compressed member may inflate to at most FACTOR times its "
                              "size plus 4096 bytes (default 1032, zlib's utmost; 32 bounds "
                              "what an untrusted archive makes you write; inf: no limit)")
    pack = commands.add_parser(
        "pack", help="write an archive of a folder's files",
        description="write an archive of the files below DIR, named by their paths below "
                    "it, laid out as the game's archives are (sorted, zlib level 9; .mp3 "
                    "and .ogg stored)")
    pack.add_argument("source", metavar="DIR", help="the folder whose files to pack")
    pack.add_argument("-o", "--output", metavar="ARCHIVE", required=True,
                      help="the archive to write")
    how = pack.add_mutually_exclusive_group()
    how.add_argument("--store", metavar="EXT", action="append", default=None,
                     help="store files with this extension rather than compress them (may "
                          "be repeated; replaces the default mp3 and ogg)")
    how.add_argument("--store-all", action="store_true", default=False,
                     help="compress nothing")
    how.add_argument("--compress-all", action="store_true", default=False,
                     help="compress every file, sound too")
    pack.add_argument("--wad-version", metavar="N", type=int, choices=(1, 2), default=2,
                      help="the archive's format version: 2 (default, with a flags byte) or "
                           "1")
    pack.add_argument("--flags", metavar="BYTE", type=_byte, default=0,
                      help="the flags byte of a version 2 archive (default 0)")


def _archive_and_globs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="ARCHIVE", help="the .wad file")
    parser.add_argument("globs", metavar="GLOB", nargs="*",
                        help="only the members matching one of these (quoted: '*.xml'; * "
                             "crosses folders, **/ any number of them, as in katsuba)")


def _factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"a number >= 0 (or inf) is needed, not {text!r}")
    return value


def _byte(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value <= 255:
        raise argparse.ArgumentTypeError(f"a byte (0 to 255, or 0x00 to 0xff) is needed, "
                                         f"not {text!r}")
    return value


def run(args: argparse.Namespace, extra: list[str], parser: argparse.ArgumentParser) -> int:
    """Run ``gameserde wad COMMAND``; the exit status (errors are raised). ``extra``: the
    arguments the parser left, globs given after an option (``extract A -o DIR '*.xml'``);
    ``parser`` (the command's) says what else it left is not known."""
    unknown = [a for a in extra if a.startswith("-") or args.wad_command == "pack"]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.wad_command != "pack":
        args.globs = [*args.globs, *extra]
    from gameserde.errors import GameserdeWarning, UsageError
    from gameserde.kingsisle.wad import open_wad, write_wad

    if args.wad_command == "pack":
        if args.store_all or args.compress_all:
            rule: Any = args.compress_all
        elif args.store is not None:
            stored = {ext.lower().lstrip(".") for ext in args.store}
            rule = lambda name, data: name.rpartition(".")[2].lower() not in stored  # noqa: E731
        else:
            rule = None
        write_wad(args.output, args.source, compress=rule, version=args.wad_version,
                  flags=args.flags if args.wad_version >= 2 else None)
        return 0
    options = ({"check_crc": args.check_crc, "max_expansion": args.max_expansion}
               if args.wad_command == "extract" else {})
    with open_wad(args.source, **options) as wad:
        names = wad.names()
        if args.globs:
            chosen = {name for pattern in args.globs for name in wad.glob(pattern)}
            names = [name for name in names if name in chosen]
            if not names:
                raise UsageError(f"no member matches {' '.join(args.globs)}")
        if args.wad_command == "list":
            out = sys.stdout
            for name in names:
                if args.long:
                    e = wad.info(name)
                    kind = "zlib" if e.compressed else "stored"
                    out.write(f"{e.size:>10} {e.stored_size:>10} {kind:<6} {e.crc:08x} "
                              f"{name}\n")
                else:
                    out.write(name + "\n")
            return 0
        with warnings.catch_warnings(record=True) as noted:
            warnings.simplefilter("always", GameserdeWarning)
            wad.extract(args.output, names)
        for w in noted:
            print(f"gameserde: {args.source}: {w.message}", file=sys.stderr)
    return 0
