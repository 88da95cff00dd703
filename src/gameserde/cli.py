"""The ``gameserde`` command: the same verbs for every format.

    gameserde decode FORMAT FILE|-      binary to JSON (pretty on a terminal, compact when piped)
    gameserde encode FORMAT FILE|- -o OUT   JSON to binary
    gameserde verify FORMAT FILE|-      check that binary data is sound (exit 1 if not)
    gameserde inspect FORMAT FILE|-     annotated byte map (exit 1 if the data is not sound)

Each format adds its own options; ``gameserde VERB FORMAT --help`` lists them.

No path prints a traceback: every failure is one line on standard error, ``gameserde: FILE:
MESSAGE``, and one of the exit statuses in :data:`EXIT_STATUS`. A format's glue raises
:class:`CommandError` for a failure that concerns another file than the input (a schema that
does not load, a root type the schema lacks): its message starts with that file's name.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO

from gameserde import __version__
from gameserde._jsonio import dumps, loads
from gameserde.errors import GameserdeError

FORMATS = {
    "godot": ("gameserde.godot.cli", "Godot Variant binary (var_to_bytes, store_var, packets)"),
    "flatbuffers": ("gameserde.flatbuffers.cli", "FlatBuffers with a .fbs schema read at run "
                    "time"),
    "zeze": ("gameserde.zeze.cli", "Zeze beans with a solution XML schema (Java runtime's "
             "ByteBuffer)"),
    "kingsisle": ("gameserde.kingsisle.cli", "KingsIsle ObjectProperty (Wizard101, Pirate101) "
                  "with a type list: streams and BINd files"),
    "o3de": ("gameserde.o3de.cli", "O3DE JSON (prefabs, settings registry, materials) "
             "checked, typed with a registry and written as the engine writes it"),
}

VERBS = {
    "decode": "decode binary data to JSON",
    "encode": "encode JSON to binary data",
    "verify": "check that binary data is sound; exit status 1 and the reason if it is not",
    "inspect": "print an annotated byte map (offset, bytes, path, type, value); exit status 1 "
               "and the reason if the data is not sound",
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


class CommandError(Exception):
    """A failure a format's glue reports about another file than the input (its schema, for
    example): ``gameserde: MESSAGE`` is printed as it is, so the message starts with that
    file's name, and the command exits with ``status``."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


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


def _format_module(name: str) -> Any:
    return importlib.import_module(FORMATS[name][0])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gameserde",
        description="Read, write, convert and inspect game-engine serialization formats, "
                    "byte-exact with the engines.",
        epilog="examples:\n"
               "  gameserde decode godot save.bin\n"
               "  gameserde decode godot --framing store_var savegame.sav -o save.json\n"
               "  gameserde encode godot save.json -o save.bin\n"
               "  gameserde inspect godot --profile godot3 packet.bin\n"
               "  gameserde decode kingsisle --types types.json --deep Template.bin\n\n"
               "Run 'gameserde VERB FORMAT --help' for the options of one format.\n\n"
               + EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=version_text())
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    modules = {fmt: _format_module(fmt) for fmt in FORMATS}
    for verb, help_text in VERBS.items():
        formats_with_verb = ", ".join(f for f, m in modules.items() if verb in m.VERBS)
        help_text = f"{help_text} (formats: {formats_with_verb})"
        vp = verbs.add_parser(verb, help=help_text, description=help_text)
        formats = vp.add_subparsers(dest="format", metavar="FORMAT", required=True)
        for fmt, (_, fmt_help) in FORMATS.items():
            module = modules[fmt]
            if verb not in module.VERBS:
                continue
            fp = formats.add_parser(fmt, help=fmt_help,
                                    description=f"{VERBS[verb]}: {fmt_help}",
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
            fp.add_argument("input", metavar="FILE",
                            help="input file, or - for standard input")
            fp.add_argument("-o", "--output", metavar="OUT",
                            help="output file (default: standard output)")
            if verb == "decode" and module.JSON_VALUES:
                style = fp.add_mutually_exclusive_group()
                style.add_argument("--pretty", dest="pretty", action="store_true",
                                   default=None, help="indent the JSON (default on a terminal)")
                style.add_argument("--compact", dest="pretty", action="store_false",
                                   help="one-line JSON (default when piped or written to a file)")
            module.add_arguments(verb, fp)
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    name = ""
    try:
        args = build_parser().parse_args(argv)
        name = "<stdin>" if args.input == "-" else args.input
        return _run(args, name)
    except CommandError as e:
        print(f"gameserde: {e}", file=sys.stderr)
        return e.status
    except GameserdeError as e:
        print(f"gameserde: {name}: {e}", file=sys.stderr)
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


def _run(args: argparse.Namespace, name: str) -> int:
    module = _format_module(args.format)
    stdout = sys.stdout.buffer
    data = _read_input(args.input)
    if args.verb == "decode":
        value = module.decode(args, data)
        if isinstance(value, bytes):  # the format's own JSON text (flatc's, for example)
            _write_output(args.output, value, stdout)
        else:
            pretty = args.pretty
            if pretty is None:
                pretty = args.output in (None, "-") and sys.stdout.isatty()
            _write_output(args.output, dumps(value, pretty=pretty), stdout)
    elif args.verb == "encode":
        if args.output in (None, "-") and sys.stdout.isatty():
            print(f"gameserde: {name}: refusing to write binary data to a terminal; "
                  "use -o FILE or a pipe", file=sys.stderr)
            return 2
        doc = loads(data, source=name) if module.JSON_VALUES else data
        _write_output(args.output, module.encode(args, doc), stdout)
    elif args.verb == "verify":
        print(f"{name}: {module.verify(args, data)}", flush=True)
    else:
        text, error = module.inspect(args, data)
        _write_output(args.output, (text + "\n").encode(), stdout)
        if error is not None:
            print(f"gameserde: {name}: {error}", file=sys.stderr)
            return 1
    return 0


def _silence_stdout() -> None:
    """After a broken pipe: send what is still buffered for standard output nowhere, so the
    interpreter's final flush does not report the broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (output captured in process)
        pass
