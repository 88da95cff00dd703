"""The ``gameserde`` command: the same verbs and options for every format.

    gameserde decode FORMAT FILE|-        to JSON (pretty on a terminal, compact when piped)
    gameserde encode FORMAT FILE|- -o OUT     JSON to the format
    gameserde verify FORMAT FILE|-        check that the data is sound (exit 1 if not)
    gameserde inspect FORMAT FILE|-       annotated byte map (exit 1 if the data is not sound;
                                          --html OUT.html: as a page to explore in a browser)
    gameserde convert FORMAT FILE|- -o OUT    the same data written with other options
    gameserde wad list|extract|pack ...   KingsIsle archives (:mod:`gameserde._wadcli`)

The command is written once, against the codec interface (:mod:`gameserde.codecs`): each
format declares its options (:mod:`gameserde.formats`) and the parser is built from them;
``gameserde VERB FORMAT --help`` lists them. Only the format a command names is imported.

No path prints a traceback: every failure is one line on standard error, ``gameserde: FILE:
MESSAGE``, and one of the exit statuses in :data:`EXIT_STATUS`. A failure that concerns
another file than the input (a schema that does not load: a
:class:`~gameserde.errors.SchemaError`, whose message starts with the schema's file name) is
printed without the input's name.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO

from gameserde import __version__, _wadcli
from gameserde._jsonio import dumps
from gameserde.errors import GameserdeError, GameserdeWarning, SchemaError, UsageError
from gameserde.formats import FORMATS, Option, format_info

if TYPE_CHECKING:
    from gameserde.codecs import Codec

VERBS = {
    "decode": "read data in the format and write it as JSON",
    "encode": "read JSON and write it in the format",
    "verify": "check that data is sound; exit status 1 and the reason if it is not",
    "inspect": "print which bytes hold which value (offset, bytes, path, type, value), or "
               "write it as a page to explore in a browser (--html); exit status 1 and the "
               "reason if the data is not sound",
    "convert": "read data with one set of options and write it with another (the --to- "
               "options), in one step",
}


EXIT_STATUS = """exit status:
  0    success (verify and inspect: the data is sound)
  1    the input, or a schema it needs, is invalid (the reason is printed)
  2    usage error, or a file that cannot be read or written
  3    internal error: a bug in gameserde (please report the message)
  130  interrupted (Ctrl-C)
  141  the program reading the output closed the pipe early (nothing is printed)"""

ACCELERATORS = ("godot", "flatbuffers-encoder", "flatbuffers-reader", "flatbuffers-json",
                "flatbuffers-schema", "zeze", "kingsisle", "o3de")


def accelerator_states() -> dict[str, str]:
    """Each C accelerator's state in this process: ``"active"``, ``"disabled"`` (built, but
    switched off by ``GAMESERDE_PURE``) or ``"not built"`` (no compiler at install time)."""
    from gameserde.flatbuffers import _accel as fb_accel
    from gameserde.godot import _accel as godot_accel
    from gameserde.kingsisle import _accel as ki_accel
    from gameserde.o3de import _accel as o3de_accel
    from gameserde.zeze import _accel as zeze_accel

    built = (godot_accel.AVAILABLE, fb_accel.encoder is not None, fb_accel.reader is not None,
             fb_accel.json is not None, fb_accel.lexer is not None,
             zeze_accel.speedups is not None, ki_accel.speedups is not None,
             o3de_accel.speedups is not None)
    enabled = (godot_accel.ENABLED, *[fb_accel.ENABLED] * 4, zeze_accel.ENABLED,
               ki_accel.ENABLED, o3de_accel.ENABLED)
    return {name: "not built" if not b else "active" if e else "disabled"
            for name, b, e in zip(ACCELERATORS, built, enabled, strict=True)}


def version_text() -> str:
    """What ``gameserde --version`` prints: the version and the C accelerators in use."""
    states = accelerator_states()
    active, disabled, missing = ([name for name, s in states.items() if s == state]
                                 for state in ("active", "disabled", "not built"))
    if active:
        notes = [f"C accelerators: {', '.join(active)}"]
        if disabled:
            notes.append(f"disabled by GAMESERDE_PURE: {', '.join(disabled)}")
        if missing:
            notes.append(f"not built: {', '.join(missing)}")
        detail = "; ".join(notes)
    elif disabled:
        detail = "pure Python: C accelerators disabled by GAMESERDE_PURE"
    else:
        detail = "pure Python: no C accelerators built"
    return f"gameserde {__version__} ({detail})"


class _Version(argparse.Action):
    """``--version``: the accelerators are looked up (every format imported) only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def build_parser(only: tuple[str, str] | None = None) -> argparse.ArgumentParser:
    """The parser of every verb and format; with ``only`` (verb, format), the options of that
    one format are the only ones loaded (so a command imports one format; ``main`` passes
    ``("", "")`` when the command names no format, so ``--help`` imports none)."""
    parser = argparse.ArgumentParser(
        prog="gameserde",
        description="Read, write, convert and inspect game-engine serialization formats, "
                    "byte-exact with the engines.",
        epilog="examples:\n"
               "  gameserde decode godot save.bin\n"
               "  gameserde decode godot --framing store_var savegame.sav -o save.json\n"
               "  gameserde encode godot save.json -o save.bin\n"
               "  gameserde convert godot --profile godot3 --to-profile godot4 old.bin "
               "-o new.bin\n"
               "  gameserde inspect godot --profile godot3 packet.bin\n"
               "  gameserde decode kingsisle --schema types.json --deep Template.bin\n"
               "  gameserde wad extract Root.wad -o Root '*.xml'\n\n"
               "Run 'gameserde VERB FORMAT --help' for the options of one format.\n\n"
               + EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, default=argparse.SUPPRESS,
                        help="show the version and the C accelerators in use, and exit")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, help_text in VERBS.items():
        help_text = f"{help_text} (formats: {', '.join(FORMATS)})"
        vp = verbs.add_parser(verb, help=help_text, description=help_text)
        formats = vp.add_subparsers(dest="format", metavar="FORMAT", required=True)
        for fmt, entry in FORMATS.items():
            fp = formats.add_parser(fmt, help=entry.description,
                                    description=f"{VERBS[verb]}: {entry.description}",
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
            if only is None or only == (verb, fmt):
                _add_arguments(fp, verb, fmt)
    _wadcli.add_parser(verbs)
    return parser


def _add_arguments(fp: argparse.ArgumentParser, verb: str, fmt: str) -> None:
    """The options of ``gameserde VERB FMT``: the shared ones, then the format's."""
    info = format_info(fmt)
    if verb == "encode":
        fp.add_argument("inputs", nargs=1, metavar="FILE",
                        help="the JSON file, or - for standard input")
    else:
        fp.add_argument("inputs", nargs="+", metavar="FILE",
                        help="input files, directories (their files; -r: below them too) or "
                             "globs (quoted: 'saves/**/*.sav'); - for standard input. More "
                             "than one, a directory or a glob make a batch: see below")
    fp.add_argument("-o", "--output", metavar="OUT", default=None,
                    help=OUTPUT_HELP[verb])
    if verb != "encode":
        _add_batch_arguments(fp, verb)
    if verb == "decode":
        style = fp.add_mutually_exclusive_group()
        style.add_argument("--pretty", dest="pretty", action="store_true", default=None,
                           help="indent the JSON (default on a terminal)")
        style.add_argument("--compact", dest="pretty", action="store_false",
                           help="one-line JSON (default when piped or written to a file)")
    fp.epilog = info.epilog
    fp.argument_default = argparse.SUPPRESS  # the codec applies its defaults
    if verb == "inspect":
        fp.add_argument("--as", dest="map_as", choices=["table", "json"], default="table",
                        help="the map as a text table (default) or as JSON: {\"rows\": "
                             "[{\"offset\", \"length\", \"bytes\", \"path\", \"type\", "
                             "\"value\"}, ...], \"error\"}")
        fp.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the map as a self-contained HTML page instead: a hex "
                             "pane (the text, for o3de) coloured by region beside the tree "
                             "of paths, linked both ways, with a search by path or offset "
                             "and the error marked at its byte; a map too big for one page "
                             "of about 330 KB goes on several (OUT.2.html, ...), linked")
    fp.add_argument("--strict", action="store_true", default=False,
                    help="fail (exit status 1) on anything the command would otherwise only "
                         "report on standard error (input kept only as it is, or left out)")
    for option in info.options_for(verb):
        _add_option(fp, option, option.flags, option.name)
    if verb == "convert":
        for option in info.options:
            if option.output and "encode" in option.verbs:
                flags = tuple(f"--to-{f[2:]}" for f in option.flags if f.startswith("--"))
                _add_option(fp, replace(option, help=option.to_help or
                                        f"the written side: {option.help}"),
                            flags, "to_" + option.name, negate=True)


def _add_option(fp: argparse.ArgumentParser, option: Option, flags: tuple[str, ...],
                dest: str, *, negate: bool = False) -> None:
    if option.parse is None:
        fp.add_argument(*flags, dest=dest, action="store_true", help=option.help)
        if negate:
            fp.add_argument(*(f"--to-no-{f[5:]}" for f in flags), dest=dest,
                            action="store_false",
                            help=f"the written side without {flags[0][5:]}")
        return
    fp.add_argument(*flags, dest=dest, type=option.parse, metavar=option.metavar,
                    choices=option.choices, help=option.help,
                    action="append" if option.repeat else "store")


def _add_batch_arguments(fp: argparse.ArgumentParser, verb: str) -> None:
    batch = fp.add_argument_group("batches", textwrap.fill(
        "With several inputs the verb runs on all of them, on every core: failures are listed "
        "on standard error with a summary, and the exit status is 1 when any input failed. "
        "Outputs: -o DIR (the same relative paths; decode adds .json, inspect .map.json), "
        "--jsonl FILE (one line per input, with its key; decode and inspect write JSON Lines "
        "on standard output when neither is given), --parquet DIR (a Parquet dataset: a "
        "folder of part files per table).", 88))
    batch.add_argument("-r", "--recursive", action="store_true", default=False,
                       help="read the files below the directories named, not only theirs")
    if verb != "convert":  # convert writes files
        batch.add_argument("--jsonl", metavar="FILE", default=None,
                           help="write one JSON line per input (its key and value, report or "
                                "error) to FILE")
        batch.add_argument("--parquet", metavar="DIR", default=None,
                           help="write a Parquet dataset to DIR: DIR/TABLE/part-N.parquet, a "
                                "key column and the values typed from the schema (decode), "
                                "the reports (verify) or the regions (inspect); needs the "
                                "parquet extra")
        batch.add_argument("--parquet-enums", choices=("name", "int"), default=None,
                           help="with --parquet: store enums by name (a dictionary column, "
                                "the default) or as their integers")
    batch.add_argument("-j", "--jobs", metavar="N", type=_jobs, default=None,
                       help="worker processes (default: one per core)")
    batch.add_argument("--dask", metavar="ADDRESS", default=None,
                       help="run on the Dask cluster whose scheduler is at ADDRESS "
                            "(tcp://host:8786; its workers read the inputs by path), or on "
                            "a local one started for the run: --dask local (-j N workers, "
                            "default one per core); needs the dask extra")
    batch.add_argument("--fail-fast", action="store_true", default=False,
                       help="stop at the first input that fails")


def _jobs(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if not 1 <= value <= 1024:
        raise argparse.ArgumentTypeError(f"a number of processes from 1 to 1024 is needed, "
                                         f"not {text!r}")
    return value


OUTPUT_HELP = {
    "decode": "write the JSON to OUT (default: standard output); a batch: under the folder "
              "OUT",
    "encode": "write the binary data to OUT (default: standard output when it is not a "
              "terminal)",
    "verify": "write the report to OUT (default: standard output)",
    "inspect": "write the map to OUT (default: standard output); a batch: under the folder "
               "OUT",
    "convert": "write the converted data to OUT (default: standard output when it is not a "
               "terminal); a batch: under the folder OUT",
}


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def _write_output(path: str | None, data: bytes, stdout: BinaryIO) -> None:
    if path is None or path == "-":
        stdout.write(data)
        stdout.flush()
    else:
        with open(path, "wb") as f:
            f.write(data)


def _subparser(parser: argparse.ArgumentParser, *names: str) -> argparse.ArgumentParser:
    """The parser of ``gameserde VERB FORMAT`` inside ``parser``."""
    for name in names:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def _selected(argv: Sequence[str]) -> tuple[str, str] | None:
    """The verb and format ``argv`` names, when it starts with them."""
    if len(argv) >= 2 and argv[0] in VERBS and argv[1] in FORMATS:
        return argv[0], argv[1]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    name = ""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_selected(args_list) or ("", ""))
        args, extra = parser.parse_known_args(args_list)
        if args.verb == "wad":  # globs after -o DIR come back as extra arguments
            name = args.source
            return _wadcli.run(args, extra, _subparser(parser, "wad", args.wad_command))
        if extra:  # said by the format's own parser, whose usage lists what it takes
            _subparser(parser, args.verb, args.format).error(
                f"unrecognized arguments: {' '.join(extra)}")
        if getattr(args, "html", None) is not None:
            _html_alone(args)
        if args.verb != "encode" and _is_batch(args):
            from gameserde.batch.command import run_command

            read, written = codec_options(args)
            return run_command(args, read, written)
        args.input = args.inputs[0]
        name = "<stdin>" if args.input == "-" else args.input
        return _run(args, name)
    except UsageError as e:
        print(f"gameserde: {e}", file=sys.stderr)
        return 2
    except SchemaError as e:  # its message starts with the schema's file name
        print(f"gameserde: {e}", file=sys.stderr)
        return 1
    except GameserdeError as e:
        print(f"gameserde: {name}: {e}", file=sys.stderr)
        return 1
    except GameserdeWarning as e:
        print(f"gameserde: {name}: {e} (--strict)", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except OSError as e:
        print(f"gameserde: {e.filename or name}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        where = f"{name}: " if name else ""
        message = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"gameserde: {where}internal error: {message} (please report)", file=sys.stderr)
        return 3


def _html_alone(args: argparse.Namespace) -> None:
    """Refuse what ``--html`` cannot go with: another output or many inputs."""
    if args.html == "-":
        raise UsageError("--html needs a file name: a map too big for one page has others "
                         "beside it")
    if args.output is not None or args.map_as != "table":
        given = "-o" if args.output is not None else "--as"
        raise UsageError(f"--html writes the map's page itself; {given} does not go with it")
    if _is_batch(args):
        raise UsageError("--html maps one input; for many, use -o DIR, --jsonl or --parquet")


def _is_batch(args: argparse.Namespace) -> bool:
    """Whether the command names a batch: several inputs, a directory, a glob or an archive
    (``*.wad``: its members), or one of the batch options (``--jsonl``, ``--parquet``,
    ``-j``, ``--dask``, ``-r``)."""
    inputs: list[str] = args.inputs
    return (len(inputs) > 1 or getattr(args, "jsonl", None) is not None
            or getattr(args, "parquet", None) is not None
            or getattr(args, "parquet_enums", None) is not None or args.jobs is not None
            or args.dask is not None or args.recursive
            or any(os.path.isdir(i) or set("*?[") & set(i) or i.lower().endswith(".wad")
                   for i in inputs))


_CLI_KEYS = ("verb", "format", "input", "inputs", "output", "pretty", "map_as", "html",
             "strict", "recursive", "jsonl", "parquet", "parquet_enums", "jobs", "dask",
             "fail_fast")


def codec_options(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The codec options the command line gave (only those given: the codec applies its
    defaults), and for ``convert`` the written side's (the read side's, changed by the
    ``--to-`` options)."""
    given = {k: v for k, v in vars(args).items() if k not in _CLI_KEYS}
    read = {k: v for k, v in given.items() if not k.startswith("to_")}
    written = dict(read)
    written.update({k[3:]: v for k, v in given.items() if k.startswith("to_")})
    return read, written


def _run(args: argparse.Namespace, name: str) -> int:
    info = format_info(args.format)
    read, written = codec_options(args)
    if info.takes_source:
        source = None if args.input == "-" else args.input
        read["source"] = written["source"] = source
    if info.takes_target and args.output not in (None, "-"):
        (written if args.verb == "convert" else read)["target"] = args.output
    to_terminal = args.output in (None, "-") and sys.stdout.isatty()
    if args.verb in ("encode", "convert") and to_terminal:
        raise UsageError(f"{name}: refusing to write binary data to a terminal; use -o FILE or "
                         "a pipe")
    noted: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as noted:
            warnings.simplefilter("error" if args.strict else "always", GameserdeWarning)
            codec = info.make(**read)
            out_codec = info.make(**written) if args.verb == "convert" else None
            if getattr(args, "pretty", None) is not None and not codec.json_output:
                raise UsageError(f"--{'pretty' if args.pretty else 'compact'} applies to JSON "
                                 f"output, and these options make {args.format} decode write "
                                 "another form")
            data = _read_input(args.input)
            out, error = _verb(args, codec, out_codec, data, to_terminal, name)
    finally:  # what was noted before a failure is said too, before it; each thing once
        said: set[str] = set()  # (convert loads a schema twice: its notes come twice)
        for w in noted:
            if issubclass(w.category, GameserdeWarning):
                if str(w.message) not in said:
                    said.add(str(w.message))
                    print(f"gameserde: {name}: {w.message}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    _write_output(args.output, out, sys.stdout.buffer)
    if error is not None:
        print(f"gameserde: {name}: {error}", file=sys.stderr)
        return 1
    return 0


def _verb(args: argparse.Namespace, codec: Codec, out_codec: Codec | None, data: bytes,
          to_terminal: bool, name: str) -> tuple[bytes, GameserdeError | None]:
    """What the verb writes, and for ``inspect`` the reason the data is not sound."""
    verb = args.verb
    if verb == "decode":
        pretty = to_terminal if getattr(args, "pretty", None) is None else args.pretty
        text = codec.to_json(data, pretty=pretty)
        if to_terminal and not text.endswith("\n"):
            text += "\n"
        return text.encode("utf-8", "surrogateescape"), None
    if verb == "encode":
        return codec.from_json(data), None
    if verb == "convert":
        assert out_codec is not None
        return codec.convert(data, out_codec), None
    if verb == "verify":
        return f"{name}: {codec.verify(data)}\n".encode(), None
    byte_map = codec.inspect(data)
    if args.html is not None:
        written = byte_map.write_html(args.html, title=os.path.basename(name))
        if len(written) > 1:
            print(f"gameserde: {name}: the map takes {len(written)} pages, {written[0]} to "
                  f"{written[-1]}", file=sys.stderr)
        return b"", byte_map.error
    if args.map_as == "json":
        text = dumps(byte_map.to_jsonable(), pretty=to_terminal).decode("utf-8")
    else:
        text = byte_map.render() + "\n"
    return text.encode("utf-8", "backslashreplace"), byte_map.error


def _silence_stdout() -> None:
    """After a broken pipe: send what is still buffered for standard output nowhere, so the
    interpreter's final flush does not report the broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (output captured in process)
        pass
