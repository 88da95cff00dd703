"""CLI glue for ``gameserde VERB godot``.

``decode`` writes the JSON view of each Variant. When encoding the bare view with the default
options would not give back the same bytes (a framed file, the plain mode, another profile),
the document starts with a header that records how it was made::

    {"$godot": {"profile": "godot4", "framing": "store_var", "json": "plain"},
     "$records": [...]}

(``"$value"`` instead of ``"$records"`` for one Variant). ``encode`` follows the header;
an option that contradicts it is refused.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any, Literal

from gameserde.errors import DecodeError, GameserdeError
from gameserde.godot import framing
from gameserde.godot.encoder import encode as encode_value
from gameserde.godot.framing import FRAMINGS, Guess, guess_framing, records
from gameserde.godot.inspect import regions, render
from gameserde.godot.jsonview import from_jsonable, needs_full_objects, to_jsonable
from gameserde.godot.profiles import MAX_DEPTH, MAX_DEPTH_LIMIT, PROFILES, check_max_depth

VERBS = ("decode", "encode", "verify", "inspect")
JSON_VALUES = True
"""decode returns JSON values for the CLI to write; encode receives parsed JSON."""

HEADER = "$godot"
_DEFAULTS = {"profile": "godot4", "framing": "raw", "big_endian": False, "json": "native"}

FRAMING_HELP = {
    "raw": "one Variant, as var_to_bytes makes it (trailing bytes ignored)",
    "store_var": "FileAccess.store_var / StreamPeer.put_var records: 4-byte length + Variant, "
                 "any number of them (JSON: one element of \"$records\" per record)",
    "packet_stream": "PacketPeerStream packets: little-endian 4-byte length + Variant, at most "
                     "65532 bytes each (JSON: one element of \"$records\" per packet)",
    "base64": "Marshalls.variant_to_base64 text",
}
JSON_HELP = {
    "native": 'Godot 4.4\'s JSON.from_native convention: "i:1", "f:1.5", "s:text", '
              '{"type": "Vector3", "args": [...]}, extended to lose nothing',
    "plain": 'JSON\'s own values as themselves ({"hp": 87.5, "name": "Aria"}), other types '
             'tagged ({"$Vector3": [1.0, 2.0, 3.0]}, {"$StringName": "idle"}); for editing',
}


def _table(rows: dict[str, str]) -> str:
    return "\n".join(textwrap.fill(v, 88, initial_indent=f"  {k:<14} ",
                                   subsequent_indent=" " * 17) for k, v in rows.items())


_FRAMINGS_AND_PROFILES = f"""framings:
{_table(FRAMING_HELP)}

profiles:
  godot4         Godot 4.4+ (default): typed containers, StringName, PackedVector4Array, ...
  godot3         Godot 3.1+: 3.x type ids and pool arrays
  docs           the type table of the published docs page, which matches neither engine"""

_JSON_EPILOG = f"""JSON modes (--json):
{_table(JSON_HELP)}

decode then encode gives back identical bytes. When the bare JSON would not (another framing,
profile or JSON mode), decode writes a "$godot" header recording them, and encode follows it.
Full Objects are shown as data and never instantiated."""

_CHECK_EPILOG = """When the data does not decode, the error (exit status 1) names the framing or
profile under which the whole file would decode, if there is one; inspect prints its map up
to the failing region first."""


def add_arguments(verb: str, parser: argparse.ArgumentParser) -> None:
    parser.epilog = "\n\n".join(
        [_FRAMINGS_AND_PROFILES, _JSON_EPILOG if verb in ("decode", "encode") else "",
         _CHECK_EPILOG if verb != "encode" else ""]).strip()
    from_header = " (default: the JSON's \"$godot\" header, else {})" if verb == "encode" \
        else " (default: {})"
    parser.add_argument("--profile", choices=list(PROFILES), default=None,
                        help="type numbering and engine generation"
                             + from_header.format("godot4"))
    parser.add_argument("--framing", choices=list(FRAMINGS), default=None,
                        help="how the Variants are framed" + from_header.format("raw"))
    parser.add_argument("--big-endian", action="store_true", default=None,
                        help="store_var length prefixes are big-endian (FileAccess.big_endian, "
                             "Godot 3 endian_swap); only with --framing store_var")
    parser.add_argument("--max-depth", type=int, default=MAX_DEPTH, metavar="N",
                        help=f"deepest nesting accepted (default: {MAX_DEPTH}, as the engine; "
                             f"at most {MAX_DEPTH_LIMIT})")
    if verb in ("decode", "encode"):
        parser.add_argument("--json", choices=list(JSON_HELP), default=None,
                            help="the JSON view, native or plain, described below"
                                 + from_header.format("native"))
    if verb == "encode":
        parser.add_argument("--full-objects", choices=["auto", "yes", "no"], default="auto",
                            help="write Objects in full and keep class names of typed "
                                 "containers (default auto: when the JSON holds any)")
        parser.add_argument("--double-precision", action="store_true",
                            help="write math types as a real_t=double Godot 4 build does")


# ---------------------------------------------------------------------------------------------
# Settings: options, a document's header, the defaults


def _depth(args: argparse.Namespace) -> int:
    try:
        check_max_depth(args.max_depth)
    except ValueError as e:
        raise GameserdeError(f"--max-depth: {e}") from None
    return int(args.max_depth)


def _settings(args: argparse.Namespace, header: dict[str, Any] | None = None) -> dict[str, Any]:
    """The profile, framing, big_endian and json mode: an option, else the header's, else the
    default. An option that contradicts the header is refused."""
    out = {}
    for key, default in _DEFAULTS.items():
        given = getattr(args, key, None)
        recorded = None if header is None else header.get(key)
        if given is not None and recorded is not None and given != recorded:
            raise GameserdeError(
                f"the JSON was decoded with {_option(key, recorded)} (its \"$godot\" header "
                f"says so) but {_option(key, given)} was given; drop the option, or change the "
                "header to encode the data another way")
        out[key] = given if given is not None else recorded if recorded is not None else default
    if out["big_endian"] and out["framing"] != "store_var":
        raise GameserdeError("--big-endian applies to --framing store_var only")
    return out


def _option(key: str, value: Any) -> str:
    if key == "big_endian":
        return "--big-endian" if value else "little-endian lengths"
    return f"--{key} {value}"


def _header(settings: dict[str, Any]) -> dict[str, Any]:
    head = {k: settings[k] for k in ("profile", "framing", "json")}
    if settings["framing"] == "store_var":
        head["big_endian"] = settings["big_endian"]
    return head


def _read_header(doc: Any) -> dict[str, Any] | None:
    """The document's header, checked, or None when it has none."""
    if not (isinstance(doc, dict) and HEADER in doc):
        return None
    head = doc[HEADER]
    if not isinstance(head, dict):
        raise _doc_error(f'the "{HEADER}" header must be an object, not {head!r:.40}', "$")
    choices: dict[str, list[Any]] = {
        "profile": list(PROFILES), "framing": list(FRAMINGS), "json": list(JSON_HELP),
        "big_endian": [True, False]}
    for key, value in head.items():
        if key not in choices:
            raise _doc_error(f'the "{HEADER}" header has no key {key!r} (it knows '
                             f"{', '.join(choices)})", f'$["{HEADER}"]')
        if value not in choices[key] or type(value) is not type(choices[key][0]):
            raise _doc_error(f"{key} must be one of {', '.join(map(str, choices[key]))}, not "
                             f"{value!r:.40}", f'$["{HEADER}"]["{key}"]')
    return head


def _body(doc: Any, head: dict[str, Any] | None, settings: dict[str, Any]) -> tuple[Any, str]:
    """The values of a document and their path: all of it, or what follows its header."""
    if head is None:
        return doc, "$"
    key = "$records" if settings["framing"] in ("store_var", "packet_stream") else "$value"
    others = [k for k in doc if k not in (HEADER, key)]
    if key not in doc or others:
        found = ", ".join(repr(k) for k in others) or "nothing"
        raise _doc_error(f'after its "{HEADER}" header the document must hold "{key}" only '
                         f"(found {found})", "$")
    return doc[key], f'$["{key}"]'


def _doc_error(message: str, path: str) -> DecodeError:
    return DecodeError(message, path=path, format="godot-json")


# ---------------------------------------------------------------------------------------------
# Verbs


def decode(args: argparse.Namespace, data: bytes) -> Any:
    settings = _settings(args)
    depth = _depth(args)
    found = _records(data, settings, depth)
    values = [to_jsonable(r.value, mode=settings["json"], max_depth=depth) for r in found]
    body = values if settings["framing"] in ("store_var", "packet_stream") else values[0]
    if _header(settings) == _header(_DEFAULTS):
        return body
    key = "$records" if settings["framing"] in ("store_var", "packet_stream") else "$value"
    return {HEADER: _header(settings), key: body}


def encode(args: argparse.Namespace, doc: Any) -> bytes:
    head = _read_header(doc)
    settings = _settings(args, head)
    body, path = _body(doc, head, settings)
    depth = _depth(args)
    kind = settings["framing"]
    if kind in ("store_var", "packet_stream"):
        if not isinstance(body, list):
            raise _doc_error(f"with --framing {kind} the JSON is an array of records", path)
        values = [_value(v, f"{path}[{i}]", settings, head, depth) for i, v in enumerate(body)]
    else:
        values = [_value(body, path, settings, head, depth)]
    full = args.full_objects == "yes" or (
        args.full_objects == "auto" and any(needs_full_objects(v) for v in values))
    opts = {"profile": settings["profile"], "full_objects": full,
            "double_precision": args.double_precision, "max_depth": depth}
    if kind == "store_var":
        return b"".join(framing.store_var(v, big_endian=settings["big_endian"], **opts)
                        for v in values)
    if kind == "packet_stream":
        return b"".join(framing.put_packet(v, **opts) for v in values)
    if kind == "base64":
        return (framing.variant_to_base64(values[0], **opts) + "\n").encode("ascii")
    return encode_value(values[0], **opts)


def _value(obj: Any, path: str, settings: dict[str, Any], head: dict[str, Any] | None,
           depth: int) -> Any:
    try:
        return from_jsonable(obj, mode=settings["json"], path=path, max_depth=depth)
    except DecodeError as e:
        if head is None and settings["json"] == "native" and not _looks_native(obj):
            try:
                from_jsonable(obj, mode="plain", path=path, max_depth=depth)
            except GameserdeError:
                raise e from None
            e.message += ". The document reads as plain JSON: add --json plain."
        raise


_NATIVE_PREFIXES = ("s:", "i:", "f:", "sn:", "np:")


def _looks_native(doc: Any) -> bool:
    """Whether ``doc`` holds a string or object in the native view's forms."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item.startswith(_NATIVE_PREFIXES):
            return True
        if isinstance(item, dict):
            if "type" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def verify(args: argparse.Namespace, data: bytes) -> str:
    settings = _settings(args)
    found = _records(data, settings, _depth(args))
    kind = settings["framing"]
    where = f"profile {settings['profile']}"
    if kind in ("store_var", "packet_stream"):
        noun = "store_var record" if kind == "store_var" else "packet"
        plural = "" if len(found) == 1 else "s"
        return f"ok: {len(found)} {noun}{plural} in {len(data)} bytes ({where})"
    record = found[0]
    text = f"ok: one {_type_name(record.value)} of {record.size} bytes ({where})"
    if kind == "raw" and record.size < len(data):
        text += (f"; the {len(data) - record.size} bytes after it are ignored, as the engine "
                 "ignores them")
    return text


def inspect(args: argparse.Namespace, data: bytes) -> tuple[str, str | None]:
    """The byte map, and the reason the data does not decode (None when it does)."""
    settings = _settings(args)
    depth = _depth(args)
    error = None
    try:
        _records(data, settings, depth)
    except DecodeError as e:
        error = str(e)
    opts: dict[str, Any] = {"profile": settings["profile"], "max_depth": depth}
    kind = settings["framing"]
    if kind in ("raw", "base64"):
        if kind == "base64":
            data = framing.base64_bytes(data)
        return render(data, regions(data, **opts)), error
    blocks = []
    pos, index = 0, 0
    order: Literal["big", "little"] = "big" if settings["big_endian"] else "little"
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], order)
        left = len(data) - pos - 4
        note = "" if size <= left else f", more than the {left} bytes left"
        blocks.append(f"record {index} at 0x{pos:08x}: length prefix {size}{note}")
        body = data[pos + 4:pos + 4 + size]
        text = render(body, regions(body, **opts))
        blocks.append("\n".join(_shift(line, pos + 4) for line in text.split("\n")))
        pos += 4 + size
        index += 1
    if pos < len(data):
        blocks.append(f"0x{pos:08x}: {len(data) - pos} trailing bytes that do not form a record")
    return "\n".join(blocks), error


def _records(data: bytes, settings: dict[str, Any], depth: int) -> list[framing.Record]:
    """Every Variant of ``data``; a failure names the reading under which it would decode."""
    try:
        return list(records(data, framing=settings["framing"],
                            big_endian=settings["big_endian"], profile=settings["profile"],
                            allow_objects=True, max_depth=depth))
    except DecodeError as e:
        tried = Guess(settings["framing"], settings["big_endian"], settings["profile"])
        guess = guess_framing(data, profile=settings["profile"], exclude=tried,
                              max_depth=depth)
        if guess is not None:
            e.message += ". " + _advice(guess, tried)
        raise


_READINGS = {
    ("raw", False): "as one Variant",
    ("store_var", False): "as store_var records (a 4-byte length before each Variant)",
    ("store_var", True): "as store_var records with big-endian lengths",
    ("base64", False): "as the base64 text of a Variant",
}


def _advice(guess: Guess, tried: Guess) -> str:
    reading = _READINGS[guess.framing, guess.big_endian]
    options = [f"--framing {guess.framing}"]
    if guess.big_endian:
        options.append("--big-endian")
    if guess.profile != tried.profile:
        reading += f" of profile {guess.profile}"
        options.append(f"--profile {guess.profile}")
    without = " without --big-endian" if tried.big_endian and not guess.big_endian else ""
    return f"The whole file decodes {reading}: use {' '.join(options)}{without}."


def _type_name(value: Any) -> str:
    names = {type(None): "Nil", bool: "bool", int: "int", float: "float", str: "String",
             list: "Array", dict: "Dictionary", bytes: "PackedByteArray"}
    return names.get(type(value), type(value).__name__)


def _shift(line: str, base: int) -> str:
    if line.startswith("0x"):
        return f"0x{int(line[2:10], 16) + base:08x}" + line[10:]
    return line

