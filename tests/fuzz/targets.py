"""The fuzz targets: every decoder, schema loader and the CLI, each a function of one byte
string that raises :class:`~tests.fuzz.harness.Finding` on a defect (see ``harness``).

Targets with options take them from the first byte(s) of the input (profile, framing, schema,
flags), so one byte string names one call and a reproducer is a plain file. The FlatBuffers
targets read the buffer against a fixed list of schemas (:func:`fb_schema_texts`: the reader
tests' schemas and random ones of ``fbs_gen``).
"""

from __future__ import annotations

import atexit
import functools
import io
import json
import math
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

from gameserde import godot, zeze
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.flatbuffers import FbsSchema, flexbuffers, load_bfbs, load_schema
from gameserde.flatbuffers.inspect import annotate
from gameserde.flatbuffers.verifier import _prefix_width
from gameserde.flatbuffers.views import FlatStructView, LazyStructView, TableView, VectorView
from gameserde.godot.inspect import regions, render
from gameserde.godot.profiles import MAX_DEPTH
from gameserde.schema.model import Record
from gameserde.zeze import ZezeSchema
from gameserde.zeze.codec import MAX_DEPTH as ZEZE_MAX_DEPTH
from gameserde.zeze.codec import MAX_EXPANSION as ZEZE_MAX_EXPANSION
from gameserde.zeze.frames import HEADER_SIZE, MAX_FRAME_SIZE, FrameDecoder
from gameserde.zeze.generic import GenericBean, decode_generic, decode_generic_bean, to_plain
from gameserde.zeze.inspect import regions as zeze_regions
from tests.fuzz.harness import (
    Finding,
    both_paths,
    bounded_repr,
    check_weight,
    foreign,
    outcome,
)
from tests.fuzz.hostile import NODE_SCHEMA, ZEZE_SCHEMA
from tests.fuzz.target_html import html_page

GODOT_PROFILES = ("godot4", "godot3", "docs")


def _repr(value: Any, size: int, what: str, factor: int = 64) -> str:
    with recursion_room(8192):  # values may nest up to the decoders' depth limit
        return bounded_repr(value, size, what, factor)


# ---------------------------------------------------------------------------------------------
# Godot


GODOT_JSON_MODES = ("native", "plain")


def godot_json_text(value: Any, max_depth: int = MAX_DEPTH, mode: str = "native") -> str:
    """``godot.to_json`` (the stack room lets the JSON writer nest as deep as the value)."""
    with recursion_room(2 * max_depth + 1000):
        return godot.to_json(value, mode=mode, max_depth=max_depth)  # type: ignore[arg-type]


def godot_from_json_text(text: str | bytes, max_depth: int = MAX_DEPTH,
                         mode: str = "native") -> Any:
    """``godot.from_json`` (with the same stack room)."""
    with recursion_room(2 * max_depth + 1000):
        return godot.from_json(text, mode=mode, max_depth=max_depth)  # type: ignore[arg-type]


def godot_decode(data: bytes) -> None:
    """``decode_prefix`` (byte 0: profile, bit 2 allow_objects), then ``to_json`` and
    ``encode`` of the value."""
    if not data:
        return
    profile, allow = GODOT_PROFILES[data[0] % 3], bool(data[0] & 4)
    body = data[1:]
    kind, result = both_paths(
        "godot.decode",
        lambda: godot.decode_prefix(body, profile=profile, allow_objects=allow),
        lambda r: (_repr(r[0], len(body), "godot.decode"), r[1]))
    if kind != "ok":
        return
    value = result[0]
    for mode in GODOT_JSON_MODES:
        kind, text = outcome(f"godot.to_json {mode}",
                             lambda mode=mode: godot_json_text(value, mode=mode))
        if kind == "ok":
            check_weight(f"godot.to_json {mode}", len(text), len(body))
    both_paths("godot.encode of a decoded value",
               lambda: godot.encode(value, profile=profile, full_objects=True))


def godot_resource(data: bytes) -> None:
    """A resource or scene file (binary or text) mapped (binary), read, written back, through
    its JSON document and back, and converted to the other form: nothing but gameserde
    errors, and the JSON within a size linear in the input (for a compressed file, in the
    stream it inflates to, which ``max_ratio`` bounds)."""
    from gameserde.godot import resource
    from gameserde.godot.resource import compressed, inspect, jsonview

    if resource.is_binary(data):
        outcome("godot.resource inspect", lambda: inspect.regions(data))
    kind, file = outcome("godot.resource read", lambda: resource.read(data))
    if kind != "ok":
        return
    size = len(data) * (compressed.DEFAULT_MAX_RATIO if compressed.is_compressed(data) else 1)
    outcome("godot.resource write", lambda: resource.write(file))
    for mode in GODOT_JSON_MODES:
        kind, text = outcome(f"godot.resource JSON {mode}", lambda mode=mode: json.dumps(
            jsonview.to_jsonable(file, mode=mode), ensure_ascii=False))
        if kind == "ok":
            check_weight(f"godot.resource JSON {mode}", len(text), size)
            outcome(f"godot.resource from JSON {mode}",
                    lambda text=text: resource.write(jsonview.from_jsonable(json.loads(text))))
    other = "text" if file.form == "binary" else "binary"
    outcome("godot.resource convert", lambda: resource.write(file, other))


FRAMINGS = ("store_var", "store_var big-endian", "packet_stream", "base64")


def godot_framings(data: bytes) -> None:
    """``iter_vars`` (little/big-endian), ``iter_packets``, ``base64_to_variant`` (byte 0: bits
    0-1 framing, 2-3 profile, 4 allow_objects)."""
    if not data:
        return
    framing = FRAMINGS[data[0] & 3]
    opts: dict[str, Any] = {"profile": GODOT_PROFILES[(data[0] >> 2 & 3) % 3],
                            "allow_objects": bool(data[0] & 16)}
    body = data[1:]
    what = f"godot.{framing}"

    def run() -> Any:
        if framing == "base64":
            return godot.base64_to_variant(body, **opts)
        if framing == "packet_stream":
            return list(godot.iter_packets(body, **opts))
        return list(godot.iter_vars(body, big_endian=framing != "store_var", **opts))

    both_paths(what, run, lambda v: _repr(v, len(body), what))


def godot_inspect(data: bytes) -> None:
    """``inspect.regions`` and ``render`` (byte 0: profile)."""
    if not data:
        return
    profile = GODOT_PROFILES[data[0] % 3]
    body = data[1:]

    def run() -> str:
        return render(body, regions(body, profile=profile))

    # every row shows its path, so the text may grow with depth times rows (depth is capped)
    kind, text = both_paths("godot.inspect", run)
    if kind == "ok":
        check_weight("godot.inspect", len(text), len(body), factor=4096)


def godot_from_json(data: bytes) -> None:
    """``from_json`` of a text in each JSON mode, then ``encode`` of the value."""
    for mode in GODOT_JSON_MODES:
        kind, value = outcome(f"godot.from_json {mode}",
                              lambda mode=mode: godot_from_json_text(data, mode=mode))
        if kind != "ok":
            continue
        _repr(value, len(data), f"godot.from_json {mode}")
        both_paths("godot.encode of a from_json value",
                   lambda value=value: godot.encode(value, full_objects=True))


# ---------------------------------------------------------------------------------------------
# FlatBuffers


@functools.cache
def fb_schema_texts() -> tuple[str, ...]:
    """The schemas the buffer targets read against (index: byte 0 of an input, low 4 bits)."""
    from tests.flatbuffers import fbs_gen
    from tests.flatbuffers.test_reader import (
        ALL_SCHEMA,
        OFFSET64_SCHEMA,
        SEED_SCHEMA,
        UNION_VECTOR_SCHEMA,
        VECTOR64_SCHEMA,
    )

    texts = [ALL_SCHEMA, SEED_SCHEMA, UNION_VECTOR_SCHEMA, OFFSET64_SCHEMA, VECTOR64_SCHEMA,
             NODE_SCHEMA]
    for seed in range(10):
        text, root = fbs_gen.random_schema(random.Random(seed))
        texts.append(f"{text}\nroot_type {root};\n" if "root_type" not in text else text)
    return tuple(texts)


@functools.cache
def fb_schemas() -> tuple[FbsSchema, ...]:
    return tuple(load_schema(t, filename=f"s{i}.fbs") for i, t in enumerate(fb_schema_texts()))


@functools.cache
def fb_max_fields(index: int) -> int:
    schema = fb_schemas()[index]
    return max([len(t.fields) for t in schema.types.values() if isinstance(t, Record)] + [1])


def _fb_input(data: bytes) -> tuple[int, FbsSchema, bytes]:
    index = data[0] % 16 % len(fb_schemas())
    return index, fb_schemas()[index], data[1:]


def fb_verify(data: bytes) -> None:
    """``verify`` (byte 0: schema, bit 4 size_prefixed)."""
    if not data:
        return
    _, schema, body = _fb_input(data)
    both_paths("fb.verify", lambda: schema.verify(body, size_prefixed=bool(data[0] & 16)))


def fb_decode(data: bytes) -> None:
    """``decode`` (byte 0: schema, bit 4 size_prefixed, bit 5 defaults)."""
    if not data:
        return
    index, schema, body = _fb_input(data)
    defaults = bool(data[0] & 32)
    factor = 64 * (fb_max_fields(index) if defaults else 1)
    both_paths("fb.decode",
               lambda: schema.decode(body, size_prefixed=bool(data[0] & 16), defaults=defaults),
               lambda v: _repr(v, len(body), "fb.decode", factor))


TO_JSON_MODES = ({"strict": True}, {"strict": False}, {"strict": True, "defaults": True},
                 {"strict": False, "defaults": True})


def fb_to_json(data: bytes) -> None:
    """``to_json`` (byte 0: schema, bit 4 size_prefixed, bits 5-6 mode: strict, not strict,
    defaults)."""
    if not data:
        return
    index, schema, body = _fb_input(data)
    mode = TO_JSON_MODES[data[0] >> 5 & 3]
    factor = 64 * (fb_max_fields(index) if mode.get("defaults") else 1)
    kind, text = both_paths("fb.to_json", lambda: schema.to_json(
        body, size_prefixed=bool(data[0] & 16), **mode))
    if kind == "ok":
        check_weight("fb.to_json", len(text), len(body), factor)


def walk(x: Any, budget: list[int]) -> Iterator[Any]:
    """Everything reachable from a view, as comparable data (errors as their text); stops
    quietly when ``budget[0]`` steps are spent (a lazy view of a DAG is as large as the
    caller's walk)."""
    budget[0] -= 1
    if budget[0] < 0:
        yield "budget"
        return
    if isinstance(x, TableView):
        yield ("table", type(x).__name__, x._t)
        for fp in x._plan.fields:
            yield from _attempt(lambda fp=fp: getattr(x, fp.name), budget)
    elif isinstance(x, FlatStructView):
        yield ("flat", repr(x))
    elif isinstance(x, LazyStructView):
        yield ("lazy", x._p)
        for fp in x._plan.fields:
            yield from _attempt(lambda fp=fp: getattr(x, fp.name), budget)
    elif isinstance(x, VectorView):
        n = len(x)
        yield ("vector", x._d, n)
        try:
            for v in x:
                yield from walk(v, budget)
                if budget[0] < 0:
                    return
        except Exception as e:
            yield _failure(e)
        for i in (0, n - 1, -1, n, -n - 1):
            yield from _attempt(lambda i=i: x[i], budget)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v, budget)
    else:
        yield repr(x)


def _failure(e: Exception) -> str:
    if isinstance(e, IndexError) and str(e) == "vector index out of range":
        return "IndexError"  # the Sequence protocol's own error
    from gameserde.errors import GameserdeError

    if not isinstance(e, GameserdeError):
        raise foreign(e, "fb.view") from e
    return f"{type(e).__name__}: {e}"


def _attempt(fn: Callable[[], Any], budget: list[int]) -> Iterator[Any]:
    try:
        value = fn()
    except Exception as e:
        yield _failure(e)
        return
    yield from walk(value, budget)


def fb_view(data: bytes) -> None:
    """``view`` and a walk over every field, element and index (byte 0: schema, bit 4
    size_prefixed)."""
    if not data:
        return
    _, schema, body = _fb_input(data)

    def run() -> list[Any]:
        root = schema.view(body, size_prefixed=bool(data[0] & 16))
        with recursion_room(4096):
            return list(walk(root, [4096 + 16 * len(body)]))

    both_paths("fb.view", run)


def fb_inspect(data: bytes) -> None:
    """``annotate`` (flatc --annotate) (byte 0: schema, bit 4 size_prefixed, bit 5 sparse
    vectors)."""
    if not data:
        return
    _, schema, body = _fb_input(data)
    kind, text = both_paths("fb.inspect", lambda: annotate(
        schema, body, size_prefixed=bool(data[0] & 16),
        include_vector_contents=not data[0] & 32))
    if kind == "ok":  # a line of about a hundred characters per byte region
        check_weight("fb.inspect", len(text), len(body), factor=512)


def fb_from_json(data: bytes) -> None:
    """``from_json`` (byte 0: schema, bit 4 size_prefixed, bit 5 strict); what it writes must
    pass ``verify``."""
    if not data:
        return
    _, schema, body = _fb_input(data)
    prefixed = bool(data[0] & 16)
    kind, out = both_paths("fb.from_json", lambda: schema.from_json(
        body, size_prefixed=prefixed, strict=bool(data[0] & 32)))
    if kind != "ok" or (prefixed and _prefix_width(schema) == 8):
        return  # flatc's generated verifier reads a 64-bit size prefix that flatc -b does not write
    _check_verifies("fb.from_json", schema, out, prefixed)


FLATC_UNVERIFIABLE = re.compile(r"has types but no values|has values but no types|"
                                r"has \d+ values but its type vector at \w+ has \d+")
"""What flatc -b writes, byte for byte, and its generated verifier rejects: a union vector's
``_type`` vector without the values (``{u_type: []}``) or longer than them, or the values
without types (``{u: []}``). ``from_json`` writes them too; ``encode`` does not."""


def _check_verifies(what: str, schema: FbsSchema, out: bytes, prefixed: bool) -> None:
    kind, err = outcome(f"{what}: verify of the output",
                        lambda: schema.verify(out, size_prefixed=prefixed))
    if kind != "ok" and (what != "fb.from_json" or not FLATC_UNVERIFIABLE.search(err)):
        raise Finding("invariant", f"{what} wrote a buffer verify rejects: {err}",
                      f"{what} output fails verify")


def pythonize(x: Any) -> Any:
    """A JSON value made into what Python callers may pass: an object key ``"~none"`` becomes
    None, ``"~b:..."`` bytes and ``"~i:N"`` an int; a list starting with ``"~np"`` a numpy
    array of the rest (when numpy is installed)."""
    if isinstance(x, dict):
        return {_key(k): pythonize(v) for k, v in x.items()}
    if isinstance(x, list):
        if x and x[0] == "~np":
            try:
                import numpy as np

                return np.array([pythonize(v) for v in x[1:]])
            except ImportError:
                return [pythonize(v) for v in x[1:]]
            except (ValueError, TypeError, OverflowError):
                return None  # not an array numpy can make
        return [pythonize(v) for v in x]
    return x


def _key(k: str) -> Any:
    if k == "~none":
        return None
    if k.startswith("~b:"):
        return k[3:].encode()
    if k.startswith("~i:") and k[3:].lstrip("-").isdigit():
        return int(k[3:])
    return k


def fb_encode(data: bytes) -> None:
    """``encode`` of a Python value (byte 0: schema, bit 4 size_prefixed; then JSON, see
    :func:`pythonize`); what it writes must pass ``verify``."""
    if not data:
        return
    _, schema, body = _fb_input(data)
    try:
        with recursion_room(4096):
            value = pythonize(json.loads(body))
    except (ValueError, RecursionError):
        return
    prefixed = bool(data[0] & 16)
    kind, out = both_paths("fb.encode", lambda: schema.encode(value, size_prefixed=prefixed))
    if kind != "ok" or (prefixed and _prefix_width(schema) == 8):
        return
    _check_verifies("fb.encode", schema, out, prefixed)


def fb_flexbuffers(data: bytes) -> None:
    """FlexBuffers ``verify``, ``loads`` and ``to_json`` (strict and not)."""
    n = len(data)
    outcome("flexbuffers.verify", lambda: flexbuffers.verify(data))
    kind, value = outcome("flexbuffers.loads", lambda: flexbuffers.loads(data))
    if kind == "ok":
        _repr(value, n, "flexbuffers.loads")
    for strict in (True, False):
        kind, text = outcome("flexbuffers.to_json",
                             lambda strict=strict: flexbuffers.to_json(data, strict=strict))
        if kind == "ok":
            check_weight("flexbuffers.to_json", len(text), n)


@functools.cache
def workdir() -> Path:
    """A private temporary folder (removed at exit) for schema and input files."""
    path = Path(tempfile.mkdtemp(prefix="gameserde-fuzz-"))
    atexit.register(shutil.rmtree, path, True)
    return path


INCLUDE_MARK = b"\n//--inc.fbs--\n"
"""Separates, in an ``fb.load_schema`` input, the root schema from ``inc.fbs``, a file in the
same folder that the root schema may include."""


def fb_load_schema(data: bytes) -> None:
    """``load_schema`` of ``.fbs`` text with an include file, then ``encode({})`` of its root
    table; the cost must stay linear in the text and the bytes written."""
    root, _, inc = data.partition(INCLUDE_MARK)
    folder = workdir() / "schema"
    folder.mkdir(exist_ok=True)
    (folder / "inc.fbs").write_bytes(inc)
    kind, schema = outcome("fb.load_schema", lambda: load_schema(
        root, include_paths=[folder], filename=str(folder / "root.fbs")))
    if kind != "ok" or schema.root is None:
        return
    kind, out = both_paths("fb.encode({}) of a fuzzed schema", lambda: schema.encode({}))
    if kind == "ok":
        both_paths("fb.decode of encode({})", lambda: schema.decode(out),
                   lambda v: _repr(v, len(out) + len(data), "fb.decode of encode({})"))


def fb_bfbs(data: bytes) -> None:
    """``load_bfbs`` of a binary schema (verified first); a schema it loads writes a ``.bfbs``
    that loads back and writes the same bytes again, and encodes ``{}`` of its root."""
    kind, schema = outcome("fb.bfbs", lambda: load_bfbs(data))
    if kind != "ok":
        return
    check_weight("fb.bfbs", len(repr(schema.schema)), len(data))
    kind, written = outcome("fb.to_bfbs of a loaded .bfbs",
                            lambda: schema.to_bfbs(comments=True, builtins=True))
    if kind != "ok":
        raise Finding("invariant", f"a loaded .bfbs does not write: {written}",
                      "fb.to_bfbs of a loaded .bfbs fails")
    kind, again = outcome("fb.bfbs of to_bfbs", lambda: load_bfbs(written))
    if kind != "ok" or again.to_bfbs(comments=True, builtins=True) != written:
        raise Finding("invariant", "a .bfbs written from a loaded one does not load back to "
                      "the same bytes", "fb.bfbs write/load differ")
    if schema.root is None:
        return
    kind, out = both_paths("fb.encode({}) of a fuzzed .bfbs", lambda: schema.encode({}))
    if kind == "ok":
        both_paths("fb.decode of encode({}) of a .bfbs", lambda: schema.decode(out),
                   lambda v: _repr(v, len(out) + len(data), "fb.decode of a .bfbs"))


IMPORT_MARK = b"\n<!--imp.xml-->\n"
"""Separates, in a ``zeze.load_schema`` input, the root solution from ``imp.xml``, a file in
the same folder that the root may import."""


def zeze_load_schema(data: bytes) -> None:
    """``gameserde.zeze.load_schema`` of solution XML with an import file; the schema's size
    (its repr) must stay linear in the text."""
    from gameserde.zeze import load_schema as zeze_load

    root, _, imported = data.partition(IMPORT_MARK)
    folder = workdir() / "zeze"
    folder.mkdir(exist_ok=True)
    (folder / "imp.xml").write_bytes(imported)
    kind, schema = outcome("zeze.load_schema", lambda: zeze_load(
        root, filename=str(folder / "root.xml")))
    if kind == "ok":
        weight = len(repr(schema.model.types)) + len(repr(schema.protocols))
        check_weight("zeze.load_schema", weight, len(data), factor=4096)


ZEZE_VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "zeze" / "train.json"
"""The Java vectors, whose ``meta.schema_xml`` is the schema ``zeze.decode`` reads with."""
O3DE_VECTORS = Path(__file__).resolve().parents[3] / "shared" / "vectors" / "o3de" / "train.json"
"""O3DE's test types and cases (``o3de.load`` builds its registry from the ``types``)."""


@functools.cache
def zeze_beans() -> tuple[tuple[ZezeSchema, str], ...]:
    """The beans ``zeze.decode`` reads (index: byte 0 of an input, low 5 bits): every bean of
    the Java vectors' schema (``meta.schema_xml``), then those of ``hostile.ZEZE_SCHEMA``."""
    meta = json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))["meta"]
    oracle = zeze.load_schema(meta["schema_xml"], filename="meta.schema_xml")
    nested = zeze.load_schema(ZEZE_SCHEMA, filename="hostile.xml")
    return tuple((schema, bean) for schema in (oracle, nested) for bean in schema.beans)


ZEZE_SMALL_DEPTH = 6
"""The ``max_depth`` an input with bit 6 of byte 0 set is read with (depth errors on both
paths)."""


def zeze_decode(data: bytes) -> None:
    """``zeze.decode`` (byte 0: bits 0-4 the bean, bit 5 ``decode_from`` instead, bit 6 a
    small ``max_depth``, bit 7 ``max_expansion=0``: only the constant slack of default
    values), then ``encode`` and ``to_json`` of the value: a decoded value must encode."""
    if not data:
        return
    beans = zeze_beans()
    schema, bean = beans[(data[0] & 31) % len(beans)]
    body = data[1:]
    depth = ZEZE_SMALL_DEPTH if data[0] & 64 else ZEZE_MAX_DEPTH
    expansion = 0.0 if data[0] & 128 else ZEZE_MAX_EXPANSION

    def run() -> Any:
        if data[0] & 32:
            return zeze.decode_from(schema, bean, body, max_depth=depth,
                                    max_expansion=expansion)[0]
        return zeze.decode(schema, bean, body, max_depth=depth, max_expansion=expansion)

    kind, value = both_paths("zeze.decode", run, lambda v: _repr(v, len(body), "zeze.decode"))
    if kind != "ok":
        return
    kind, out = both_paths("zeze.encode of a decoded value",
                           lambda: zeze.encode(schema, bean, value, max_depth=depth))
    if kind != "ok":
        raise Finding("invariant", f"zeze.encode of a decoded value failed: {out}",
                      "zeze.encode of a decoded value fails")
    check_weight("zeze.encode of a decoded value", len(out), len(body))
    kind, text = outcome("zeze.to_json", lambda: zeze.to_json(schema, bean, value,
                                                              max_depth=depth))
    if kind == "ok":
        check_weight("zeze.to_json", len(text), len(body))


def zeze_generic(data: bytes) -> None:
    """The schema-less reader: ``decode_generic_bean`` (byte 0, bit 0: ``decode_generic`` of
    a prefix instead), then ``to_plain`` of the tree, which must not fail; both stay linear
    in the input; equal trees (the input read twice, NaN aside) hash alike."""
    if not data:
        return
    body = data[1:]

    def run() -> GenericBean:
        return decode_generic(body)[0] if data[0] & 1 else decode_generic_bean(body)

    kind, tree = outcome("zeze.decode_generic", run)
    if kind != "ok":
        return
    _repr(tree, len(body), "zeze.decode_generic")
    again = run()
    if tree == again and hash(tree) != hash(again):
        raise Finding("invariant", "zeze.decode_generic: equal trees hash differently",
                      "zeze.decode_generic hashes")
    kind, plain = outcome("zeze.to_plain", lambda: to_plain(tree))
    if kind != "ok":
        raise Finding("invariant", f"zeze.to_plain of a decoded tree failed: {plain}",
                      "zeze.to_plain fails")
    _repr(plain, len(body), "zeze.to_plain")


def zeze_protocol_schema() -> ZezeSchema:
    """The vectors' schema (protocols PRole, PInner, RInner), for the frame targets."""
    return zeze_beans()[0][0]


def zeze_frames(data: bytes) -> None:
    """``FrameDecoder`` fed the input in chunks (byte 0: chunk size 1 + bits 0-4; bit 5 a
    frame limit of 64 bytes instead of the default), each frame decoded with the vectors'
    schema: DecodeError only, at most the limit plus a header plus a chunk buffered."""
    if not data:
        return
    schema = zeze_protocol_schema()
    body, step = data[1:], 1 + (data[0] & 31)
    limit = 64 if data[0] & 32 else MAX_FRAME_SIZE

    def run() -> tuple[list[Any], int]:
        stream = FrameDecoder(limit)
        frames, most = [], 0
        for start in range(0, len(body), step):
            frames += stream.feed(body[start:start + step])
            most = max(most, stream.pending)
        values = []
        for raw in frames:
            try:
                values.append(raw.decode(schema))
            except DecodeError as e:
                values.append(str(e))
        return values, most

    kind, result = both_paths("zeze.frames", run,
                              lambda v: _repr(v, len(body), "zeze.frames"))
    if kind == "ok" and result[1] > limit + HEADER_SIZE + step:
        raise Finding("expansion", f"zeze.frames held {result[1]} bytes with a limit of "
                      f"{limit}", "zeze.frames buffer")


def zeze_inspect(data: bytes) -> None:
    """``zeze.inspect.regions`` of an input (byte 0: the bean as in ``zeze.decode``; bit 7
    without a schema): the rows tile the input, in order, and stay linear in it."""
    if not data:
        return
    beans = zeze_beans()
    schema, bean = beans[(data[0] & 31) % len(beans)]
    body = data[1:]
    with_schema = not data[0] & 128
    kind, rows = outcome("zeze.inspect", lambda: zeze_regions(
        body, schema=schema if with_schema else None, bean=bean if with_schema else None))
    if kind != "ok":
        raise Finding("invariant", f"zeze.inspect raised {rows}", "zeze.inspect raises")
    end = 0
    for row in rows:
        if row.offset < end or row.size < 0:
            raise Finding("invariant", f"zeze.inspect row at {row.offset} overlaps",
                          "zeze.inspect rows overlap")
        end = row.offset + row.size
    _repr([(r.offset, r.size, r.path, r.type, r.note) for r in rows], len(body),
          "zeze.inspect", factor=4096)


def zeze_from_json(data: bytes) -> None:
    """``zeze.from_json`` of text (byte 0: the bean as in ``zeze.decode``), then ``encode``
    of the value on both paths: bad JSON is a DecodeError, a value it gives must encode or
    raise EncodeError."""
    if not data:
        return
    beans = zeze_beans()
    schema, bean = beans[(data[0] & 31) % len(beans)]
    text = data[1:]
    kind, value = outcome("zeze.from_json", lambda: zeze.from_json(schema, bean, text))
    if kind != "ok":
        return
    kind, out = both_paths("zeze.encode of JSON", lambda: zeze.encode(schema, bean, value))
    if kind == "ok":
        check_weight("zeze.encode of JSON", len(out), len(text))


def kingsisle_load_schema(data: bytes) -> None:
    """``gameserde.kingsisle.load_schema`` of type-list JSON: SchemaError only, and a model
    whose size is linear in the text."""
    from gameserde.kingsisle import load_schema as ki_load

    kind, schema = outcome("kingsisle.load_schema", lambda: ki_load(data))
    if kind == "ok":
        weight = sum(len(getattr(t, "fields", ())) + 1 for t in schema.model.types.values())
        check_weight("kingsisle.load_schema", weight, len(data), factor=64)


@functools.cache
def kingsisle_serializers() -> tuple[Any, ...]:
    """Serializers of the synthetic type list of ``tests/kingsisle/typelists.py``: shallow
    and deep, each with eight flag sets (stateful, compact, human-readable enums, compressed,
    forbidden deltas), and deep ones skipping unknown types; the default max_expansion, and
    one compressed serializer with max_expansion=1."""
    from gameserde.kingsisle import load_schema as ki_load
    from gameserde.kingsisle.serializer import Serializer
    from tests.kingsisle.typelists import type_list

    schema = ki_load(type_list())
    return (*(Serializer(schema, flags=flags, shallow=shallow, recursion_limit=16)
              for shallow in (True, False) for flags in (0, 2, 16, 18, 5, 8, 15, 31)),
            *(Serializer(schema, flags=flags, shallow=False, skip_unknown_types=True,
                         recursion_limit=16)
              for flags in (0, 2)),
            Serializer(schema, flags=9, recursion_limit=16, max_expansion=1))


def _kingsisle_read(ser: Any, size: int) -> int:
    """The bytes ``ser`` reads of a ``size``-byte input: the input and what its zlib data may
    inflate to (decoded values are linear in those)."""
    from gameserde.kingsisle.serializer import Inflating

    return size + int(Inflating(size, ser.max_expansion).limit)


def kingsisle_decode(data: bytes) -> None:
    """``Serializer.decode`` (byte 0 picks the serializer), then ``encode`` of the
    object, each with the C twin and without (they must agree): DecodeError and EncodeError
    only (deep records may leave properties out, which encoding refuses, as katsuba's writer
    does); output linear in the input."""
    if not data:
        return
    serializers = kingsisle_serializers()
    ser = serializers[data[0] % len(serializers)]
    body = data[1:]
    kind, value = both_paths("kingsisle.decode", lambda: ser.decode(body),
                             lambda v: _repr(v, _kingsisle_read(ser, len(body)),
                                             "kingsisle.decode"))
    if kind != "ok":
        return
    kind, out = both_paths("kingsisle.encode of a decoded object", lambda: ser.encode(value))
    if kind == "ok":
        check_weight("kingsisle.encode of a decoded object", len(out), len(body))


def kingsisle_inspect(data: bytes) -> None:
    """``kingsisle.stream_map`` (byte 0 picks the serializer as in ``kingsisle.decode``):
    never raises, its rows follow each other in every section, it ends in an ERROR row
    exactly when ``decode`` fails (or when the map runs out of rows: ``max_expansion``, byte 0
    bit 7 set: 1, else the default), and its text stays linear in its rows."""
    from gameserde._expansion import expansion_limit
    from gameserde.kingsisle.inspect import MAP_EXPANSION, ROW_SLACK, stream_map

    if not data:
        return
    serializers = kingsisle_serializers()
    ser = serializers[data[0] % len(serializers)]
    body = data[1:]
    factor = 1 if data[0] & 0x80 else MAP_EXPANSION
    kind, m = outcome("kingsisle.inspect", lambda: stream_map(body, ser, max_expansion=factor))
    if kind != "ok":
        raise Finding("invariant", f"kingsisle.inspect raised {m}", "kingsisle.inspect raises")
    for section in m.sections:
        end = 0
        for row in section.rows:
            start = 8 * row.offset + row.bit
            if start < end:
                raise Finding("invariant", f"kingsisle.inspect row at {row.offset} overlaps",
                              "kingsisle.inspect rows overlap")
            end = start + (row.bits if row.bits is not None else 8 * row.size)
    failed = outcome("kingsisle.decode", lambda: ser.decode(body))[0] != "ok"
    last = m.rows[-1] if m.rows else None
    cut = last is not None and last.type == "ERROR" and "max_expansion" in last.note
    if failed != (last is not None and last.type == "ERROR") and not cut:
        raise Finding("invariant", f"kingsisle.inspect and decode disagree (decode failed: "
                      f"{failed})", "kingsisle.inspect disagrees with decode")
    rows = expansion_limit(len(body), factor, ROW_SLACK) + 8  # framing, trailing, ERROR
    if len(m.rows) > rows:
        raise Finding("expansion", f"kingsisle.inspect made {len(m.rows)} rows of "
                      f"{len(body)} bytes (bound {rows})", "kingsisle.inspect rows")
    check_weight("kingsisle.inspect", len(m.render()), len(m.rows), factor=512)


def kingsisle_from_xml(data: bytes) -> None:
    """``gameserde.kingsisle.from_xml`` over the synthetic type list (recursion limit 16):
    DecodeError only; an object read is written back by ``to_xml`` (never refused), in a size
    linear in the input, to text that reads and writes as the same text again."""
    from gameserde.kingsisle import from_xml, to_xml

    schema = kingsisle_serializers()[0].schema
    kind, obj = outcome("kingsisle.from_xml",
                        lambda: from_xml(data, schema, recursion_limit=16))
    if kind != "ok":
        return
    _repr(obj, len(data), "kingsisle.from_xml")
    kind, text = outcome("kingsisle.to_xml of a read object",
                         lambda: to_xml(obj, schema, recursion_limit=16))
    if kind != "ok":
        raise Finding("invariant", f"kingsisle.to_xml of a read object failed: {text}",
                      "kingsisle.to_xml refuses a read object")
    check_weight("kingsisle.to_xml of a read object", len(text), len(data))
    kind, again = outcome("kingsisle.from_xml of to_xml", lambda: to_xml(
        from_xml(text, schema, recursion_limit=16), schema, recursion_limit=16))
    if again != text:
        raise Finding("invariant", f"kingsisle XML does not read back as itself: {again!r:.200}",
                      "kingsisle.from_xml(to_xml(x)) differs")


def kingsisle_from_json(data: bytes) -> None:
    """``kingsisle.from_json`` of text (byte 0 bit 0: recursion limit 16, else 127), typed by
    the synthetic type list: DecodeError only; an object it gives writes back to JSON that
    reads back to the same JSON (names or numbers for enums) and encodes or raises
    EncodeError (a property may be missing)."""
    from gameserde.kingsisle import from_json, to_json

    if not data:
        return
    ser = kingsisle_serializers()[0]
    limit = 16 if data[0] & 1 else 127
    text = data[1:]
    kind, value = outcome("kingsisle.from_json",
                          lambda: from_json(text, ser.schema, recursion_limit=limit))
    if kind != "ok":
        return
    for names in (False, True):
        kind, again = outcome("kingsisle.to_json of from_json", lambda names=names: to_json(
            value, schema=ser.schema, enum_names=names, recursion_limit=limit))
        if kind != "ok":
            raise Finding("invariant", f"kingsisle.to_json of a from_json object failed: "
                          f"{again}", "kingsisle.to_json of from_json fails")
        check_weight("kingsisle.to_json of from_json", len(again), len(text))
        kind, third = outcome("kingsisle.from_json of to_json",
                              lambda again=again, names=names: to_json(
            from_json(again, ser.schema, recursion_limit=limit), schema=ser.schema,
            enum_names=names, recursion_limit=limit))
        if third != again:
            raise Finding("invariant", f"kingsisle JSON does not read back: {again[:200]!r} "
                          f"gives {str(third)[:200]!r}", "kingsisle.from_json of to_json")
    kind, out = both_paths("kingsisle.encode of from_json", lambda: ser.encode(value))
    if kind == "ok":
        check_weight("kingsisle.encode of from_json", len(out), len(text))


def kingsisle_bind(data: bytes) -> None:
    """``kingsisle.read_bind`` (byte 0: bit 0 property mask 0x18, bit 1 skip unknown types,
    bit 2 max_expansion 1), then ``write_bind`` of the object with the file's flags, which
    must read back to the same JSON; C and Python paths agree on both."""
    from gameserde.kingsisle import read_bind, to_json, write_bind
    from gameserde.kingsisle.serializer import MAX_EXPANSION, Inflating

    if not data:
        return
    schema = kingsisle_serializers()[0].schema
    mask = 0x18 if data[0] & 1 else 7
    options = {"property_mask": mask, "recursion_limit": 16}
    factor = 1 if data[0] & 4 else MAX_EXPANSION
    body = data[1:]
    kind, value = both_paths("kingsisle.read_bind", lambda: read_bind(
        body, schema, skip_unknown_types=bool(data[0] & 2), max_expansion=factor, **options),
        lambda v: _repr(v, len(body) + Inflating(len(body), factor).limit,
                        "kingsisle.read_bind"))
    if kind != "ok":
        return
    flags = int.from_bytes(body[4:8], "little") & 0x1F
    kind, out = both_paths("kingsisle.write_bind of a read object", lambda: write_bind(
        value, schema, flags=flags, property_mask=mask, recursion_limit=16))
    if kind != "ok":
        return
    check_weight("kingsisle.write_bind of a read object", len(out), len(body))
    kind, back = outcome("kingsisle.read_bind of write_bind",
                         lambda: read_bind(out, schema, max_expansion=None, **options))
    if kind != "ok" or to_json(back, schema=schema) != to_json(value, schema=schema):
        raise Finding("invariant", f"kingsisle.write_bind wrote a file that reads back "
                      f"differently: {str(back)[:200]}", "kingsisle.bind round trip")


# ---------------------------------------------------------------------------------------------
# The CLI

CLI_STATUSES = {0: "success", 1: "the input or schema is invalid", 2: "usage or file error"}
"""The exit statuses a correct run ends with; any other one (3: internal error) is a finding."""

NO_ROOT_SCHEMA = "table T { a:int; s:string; }\n"
INCLUDING_SCHEMA = 'include "s1.fbs";\ntable Wrap { m:MyGame.Sample.Monster; }\nroot_type Wrap;\n'


@functools.cache
def o3de_parse(data: bytes) -> None:
    """``o3de.parse`` (byte 0 bit 0: trailing commas allowed; bit 1: the text as ``str``,
    invalid UTF-8 replaced; bit 2: the settings registry's reader, ``parse_root`` with
    ``stop_when_done`` and no byte-order mark skipped), with the C twin and without (they must
    agree): DecodeError only; a value it gives writes, the same with the twin and without (the
    pretty text grows with the depth, at most ``4 * MAX_DEPTH`` times the input), and that
    text (bytes that are not UTF-8 written back as they were) reads back to the same value
    (the same repr: kinds and pairs), apart from doubles rapidjson's reader does not
    round-trip."""
    from gameserde import o3de
    from gameserde.o3de.text import MAX_DEPTH

    if not data:
        return
    text: str | bytes = data[1:]
    if data[0] & 2:
        text = data[1:].decode("utf-8", "replace")
    settings = bool(data[0] & 4)
    kind, root = both_paths("o3de.parse", lambda: o3de.parse_root(
        text, trailing_commas=bool(data[0] & 1), stop_when_done=settings, skip_bom=not settings))
    if kind != "ok":
        return
    value, ignored = root
    if ignored is not None and not 0 < ignored <= len(data) - 1:
        raise Finding("invariant", f"o3de.parse_root: ignored text at {ignored} is outside "
                      "the input", "o3de.parse_root ignored offset outside the input")
    kind, written = both_paths("o3de.write of parse", lambda: o3de.write(value))
    if kind != "ok":
        raise Finding("invariant", f"o3de.write of a parsed value failed: {written}",
                      "o3de.write of parse fails")
    check_weight("o3de.write of parse", len(written), len(text), 4 * MAX_DEPTH + 16)
    kind, again = outcome("o3de.parse of write", lambda: o3de.parse(
        written.encode("utf-8", "surrogateescape")))
    doubles = any(isinstance(v, float) for v in _o3de_values(value))
    if kind != "ok" or (not doubles and repr(again) != repr(value)):
        raise Finding("invariant", f"o3de text does not read back: {written[:200]!r}",
                      "o3de.parse of write differs")


def o3de_patch(data: bytes) -> None:
    """``[target, patch]`` JSON text (byte 0: bit 0 the kind, JSON Patch or merge patch):
    apply, create and compare give values or DecodeError only; without repeated names (and,
    for merge patches, nulls) a created patch turns its source into its target."""
    from gameserde import o3de

    if not data:
        return
    kind_name = ("JsonPatch", "JsonMergePatch")[data[0] & 1]
    kind, pair = outcome("o3de.parse", lambda: o3de.parse(data[1:]))
    if kind != "ok" or not isinstance(pair, list) or len(pair) != 2:
        return
    target, patch = pair
    outcome("o3de.apply_patch", lambda: o3de.apply_patch(target, patch, kind_name))
    outcome("o3de.compare", lambda: o3de.compare(target, patch))
    kind, created = outcome("o3de.create_patch",
                            lambda: o3de.create_patch(target, patch, kind_name))
    if kind != "ok" or created.value is None:
        return
    merge = kind_name == "JsonMergePatch"
    if any(isinstance(v, o3de.JsonObject) or (merge and v is None) for v in _o3de_values(pair)):
        return
    kind, applied = outcome("o3de.apply_patch of create_patch",
                            lambda: o3de.apply_patch(target, created.value, kind_name))
    if kind != "ok" or not o3de.json_equal(applied.value, patch):
        raise Finding("invariant", f"a created {kind_name} does not rebuild the target: "
                      f"{str(created.value)[:200]}", f"o3de {kind_name} create/apply differ")


O3DE_IMPORT_FILES = ("top.setreg", "a.setreg", "b.setregpatch", "sub/c.json", "d.jsonpatch",
                     "sub/e.setreg")
"""The files of an :func:`o3de_imports` input, in order (directives name them)."""


def o3de_imports(data: bytes) -> None:
    """File texts separated by NUL bytes, named :data:`O3DE_IMPORT_FILES` in order (byte 0:
    bit 0 the material way, ``resolve_imports`` and ``restore_imports`` of the first file,
    else the settings way, ``merge_settings`` of the ``.setreg``/``.setregpatch`` files and
    ``resolve_imports_in_order`` of the first; bit 1 hostile names: ``@`` in the texts is the
    escape of a NUL, and the loader refuses what ``open()`` refuses, so a name the resolvers
    pass on unchecked is a finding): values or DecodeError only; a small ``max_depth``, and
    ``max_expansion=4``, so import bombs stop early."""
    from gameserde import o3de

    if not data:
        return
    body = data[1:].replace(b"@", b"\\u0000") if data[0] & 2 else data[1:]
    texts = dict(zip(O3DE_IMPORT_FILES, body.split(b"\x00"), strict=False))

    def loader(name: str) -> bytes | None:
        if data[0] & 2 and ("\x00" in name or len(name.encode("utf-8")) > 1024):
            raise ValueError(f"open() refuses {name[:64]!r}")
        return texts.get(name)

    limits: dict[str, Any] = {"max_depth": 8, "max_expansion": 4}
    if not data[0] & 1:
        names = [n for n in texts if n.endswith((".setreg", ".setregpatch"))]
        outcome("o3de.merge_settings", lambda: o3de.merge_settings(names, loader, **limits))
    kind, top = outcome("o3de.parse", lambda: o3de.parse(texts["top.setreg"]))
    if kind != "ok":
        return
    if not data[0] & 1:
        outcome("o3de.resolve_imports_in_order", lambda: o3de.resolve_imports_in_order(
            top, "top.setreg", loader, **limits))
        return
    directives: list[Any] = []
    kind, resolved = outcome("o3de.resolve_imports", lambda: o3de.resolve_imports(
        top, "top.setreg", loader, directives=directives, **limits))
    if kind == "ok":
        outcome("o3de.restore_imports", lambda: o3de.restore_imports(
            resolved, directives, "top.setreg", loader, **limits))


def _o3de_values(value: Any) -> Iterator[Any]:
    """Every value inside a JSON value."""
    from gameserde import o3de

    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(v for _, v in o3de.members(item))


O3DE_TYPES = (
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float", "double", "string", "Uuid", "any", "TestString",
    "SimpleEnumClass", "SimpleRawEnum", "ScopedEnumFlagsU16", "ScopedEnumBitFlagsS64",
    "ScopedEnumBitFlagsU64", "ScopedEnumBitFlagsNoZero", "ExampleEnum",
    "SimpleClass", "SimpleInheritence", "MultipleInheritence", "SimpleNested",
    "SimpleEnumWrapper", "SimpleAssignedPointer", "ComplexAssignedSameInheritedPointer",
    "InheritedPointerInContainer", "PrimitivePointerInContainer", "AbstractClass",
    "ConflictingNameTestClass", "FuzzNode", "BaseClass*", "shared_ptr<BaseClass>",
    "unique_ptr<FuzzNode>", "int32*", "vector<int32>", "list<string>", "set<int32>",
    "unordered_set<uint64>", "multiset<double>", "map<string,int32>",
    "unordered_map<int32,double>", "multimap<string,SimpleClass>",
    "map<SimpleEnumClass,Vector3>", "pair<int32,string>", "tuple<int32,float,string>",
    "array<float,4>", "fixed_vector<int32,8>", "vector<vector<int32>>",
    "vector<shared_ptr<BaseClass>>", "vector<any>", "optional<int32>", "Vector2", "Vector3",
    "Vector4", "Quaternion", "Color", "Matrix3x3", "Matrix3x4", "Matrix4x4", "Transform",
)
"""The types ``o3de.load`` and ``o3de.store`` read into: every kind the loader has, 64 of them
(picked by six bits; ``long``, ``unsigned long`` and ``char`` behave as ``int64``, ``uint64``
and ``int8``, which are here)."""


@functools.cache
def o3de_registry() -> Any:
    """The conformance file's test types (``tests/o3de/cases.py``) and ``FuzzNode``, a class
    that holds itself through a pointer, a shared pointer in a vector and an ``any``."""
    from tests.o3de.cases import build_registry

    vectors = json.loads(O3DE_VECTORS.read_text(encoding="utf-8")) if O3DE_VECTORS.is_file() \
        else {"types": {}}
    reg = build_registry(vectors["types"])
    reg.add_class("FuzzNode", "{0C5F1E2A-9D4B-4E8F-A1B2-C3D4E5F60718}",
                  [("next", "FuzzNode*", None), ("children", "vector<shared_ptr<FuzzNode>>", []),
                   ("extra", "any", None), ("flags", "ScopedEnumBitFlagsU64", 0)])
    return reg


O3DE_NAMES = (
    "$type", "var1", "var2", "base_var", "base2_var1", "nested", "var_additional", "enumClass",
    "rawEnum", "pointer", "pointer1", "pointer2", "array", "next", "children", "extra", "flags",
    "value", "Key", "Value", "Translation", "Rotation", "Scale", "x", "0", "1", "", "$import",
    "r", "g", "b", "a",
)
O3DE_LEAVES = (
    "0", "1", "-1", "42", "255", "256", "-129", "65536", "2147483648", "9223372036854775807",
    "18446744073709551615", "-9223372036854775809", "0.5", "-0.0", "3.5e39", "1e-50", "true",
    "false", "null", '""', '"Option1"', '"BitFlag1|BitFlag2"', '"BitFlag1|8|Flags3"',
    '"SimpleInheritence"', '"BaseClass"', '"{5A40E851-A748-40F3-97BA-5BB3A98CDD61}"',
    '"AZStd::vector<int, allocator>"', '"nan"', '"-inf"', '"0x1F"', '"1e3"', '"#FF00FF"',
)


def o3de_json_text(body: bytes) -> bytes:
    """JSON text the bytes spell, always well formed: each byte (bits 0-2) opens an array or
    an object, closes the innermost one, or adds a leaf (bits 3-7 pick it, and in an object
    the member name, from :data:`O3DE_LEAVES` and :data:`O3DE_NAMES`: numbers at the integer
    widths' edges, enum and type names, uuids); a leaf is the whole value only when it is the
    last byte."""
    out: list[str] = []
    open_: list[str] = []
    fresh = True
    for n, b in enumerate(body):
        op, pick = b & 7, b >> 3
        if not out and op > 2 and n + 1 < len(body):
            op = pick & 1  # a leaf stands alone only as the whole input
        if op == 2:
            if open_:
                out.append(open_.pop())
                fresh = False
            continue
        if out and not open_:
            break
        if not fresh:
            out.append(",")
        if open_ and open_[-1] == "}":
            out.append(json.dumps(O3DE_NAMES[pick]) + ":")
        if op in (0, 1):
            out.append("[{"[op])
            open_.append("]}"[op])
            fresh = True
        else:
            out.append(O3DE_LEAVES[pick])
            fresh = False
    out.extend(reversed(open_))
    return "".join(out).encode()


def o3de_both_ways(what: str, run: Callable[[], Any]) -> tuple[str, Any]:
    """An ``o3de.load``/``o3de.store`` run with the compiled plans and again with the reference
    alone: the outcomes must be the same (values and results by their repr, which tells NaN
    and -0.0 apart); the plans' outcome."""
    from gameserde.o3de import _plans

    _plans.ENABLED = False
    try:
        reference = outcome(what, run)
    finally:
        _plans.ENABLED = True
    planned = outcome(what, run)
    if planned[0] != reference[0] or repr(planned[1]) != repr(reference[1]):
        raise Finding("accel-mismatch", f"{what}: the plans give {planned[1]!r:.200}, the "
                      f"reference {reference[1]!r:.200}", f"o3de plans differ {what}")
    return planned


def o3de_typed(data: bytes) -> tuple[Any, Any, int] | None:
    """The input as JSON (byte 0 bit 7: the text :func:`o3de_json_text` makes of the bytes,
    else the bytes as they are) loaded as the type byte 0's bits 0-5 pick from
    :data:`O3DE_TYPES`: ``(type, value, input size)``, or None when the text does not parse
    or loading raised DecodeError. The load gives a :class:`~gameserde.o3de.Result`."""
    from gameserde import o3de

    if not data:
        return None
    text = o3de_json_text(data[1:]) if data[0] & 128 else data[1:]
    kind, parsed = outcome("o3de.parse", lambda: o3de.parse(text))
    if kind != "ok":
        return None
    t = o3de_registry().resolve(O3DE_TYPES[(data[0] & 63) % len(O3DE_TYPES)])
    kind, loaded = o3de_both_ways(f"o3de.load {t}", lambda: o3de.load(
        t, parsed, registry=o3de_registry()))
    if kind != "ok":
        return None
    value, result = loaded
    if not isinstance(result, o3de.Result):
        raise Finding("invariant", f"o3de.load gave {result!r:.200} for a Result",
                      "o3de.load result type")
    return t, value, len(data)


def o3de_store_text(t: Any, value: Any, size: int, keep_defaults: bool) -> Any:
    """Store a loaded ``value`` (no error: it is of its type) and write the JSON (whose size
    stays linear in the input); the stored JSON value, None when it holds a NaN or infinity
    (which the writer rejects)."""
    from gameserde import o3de
    from gameserde.o3de.text import MAX_DEPTH

    what = f"o3de.store {t} keep_defaults={keep_defaults}"
    kind, stored = o3de_both_ways(what, lambda: o3de.store(value, t, registry=o3de_registry(),
                                                           keep_defaults=keep_defaults))
    if kind != "ok":
        raise Finding("invariant", f"{what} of a loaded value failed: {stored}",
                      f"o3de.store of load fails {stored.split(':')[0]}")
    out, result = stored
    if not isinstance(result, o3de.Result):
        raise Finding("invariant", f"{what} gave {result!r:.200} for a Result",
                      "o3de.store result type")
    kind, written = outcome(f"o3de.write of {what}", lambda: o3de.write(out))
    if kind != "ok" and any(isinstance(v, float) and not math.isfinite(v)
                            for v in _o3de_values(out)):
        return None  # rapidjson's writer fails on NaN and infinities, as the engine's does
    if kind != "ok":
        raise Finding("invariant", f"o3de.write of a stored value failed: {written}",
                      "o3de.write of store fails")
    check_weight(what, len(written), size, 4 * MAX_DEPTH + 16)
    return out


def o3de_load(data: bytes) -> None:
    """``o3de.load`` of JSON text (byte 0, bits 0-5: the type, from :data:`O3DE_TYPES`): a
    Result or a
    gameserde error only; the value stores and writes, linear in the input."""
    typed = o3de_typed(data)
    if typed is not None:
        o3de_store_text(*typed, keep_defaults=True)


def o3de_store(data: bytes) -> None:
    """``o3de.store`` of values loaded from the input as in :func:`o3de_load` (byte 0 bit 6:
    keep defaults): the JSON stored reads back to a value that stores as the same JSON."""
    from gameserde import o3de

    typed = o3de_typed(data)
    if typed is None:
        return
    t, value, size = typed
    keep = bool(data[0] & 64)
    out = o3de_store_text(t, value, size, keep)
    if out is None:
        return
    kind, again = outcome(f"o3de.load of store {t}",
                          lambda: o3de.load(t, out, registry=o3de_registry()))
    if kind != "ok":
        raise Finding("invariant", f"o3de.load of stored {t} failed: {again}",
                      "o3de.load of store fails")
    second = o3de_store_text(t, again[0], size, keep)
    if second is None or o3de.write(second) != o3de.write(out):
        raise Finding("invariant", f"stored {t} does not load back: {o3de.write(out)[:200]!r} "
                      f"then {o3de.write(second)[:200]!r}", f"o3de.store/load differ {t}")


O3DE_LEAF_TYPES = ("AZ::IO::Path", "AZ::IO::FixedMaxPath", "vector<uint8>", "PointerObject")


def o3de_leaves(data: bytes) -> None:
    """The leaf types with serializers of their own (byte 0 bits 0-1 pick one; bit 2: the
    rest is JSON text, else it is one string, the bytes as Latin-1): load gives a Result,
    and a loaded value stores as JSON that loads back to the same value."""
    from gameserde import o3de

    if not data:
        return
    reg = o3de_registry()
    t = O3DE_LEAF_TYPES[data[0] & 3]
    if data[0] & 4:
        kind, value = outcome("o3de.parse", lambda: o3de.parse(data[1:]))
        if kind != "ok":
            return
    else:
        value = data[1:].decode("latin-1")
    kind, loaded = outcome(f"o3de.load {t}", lambda: o3de.load(t, value, registry=reg))
    if kind != "ok":
        return
    check_weight(f"o3de.load {t}", len(repr(loaded[0])), len(data), 64)
    kind, stored = outcome(f"o3de.store {t}", lambda: o3de.store(loaded[0], t, registry=reg,
                                                                 keep_defaults=True))
    if kind != "ok":
        raise Finding("invariant", f"a loaded {t} does not store: {stored}",
                      f"o3de.store of load fails {t}")
    kind, again = outcome(f"o3de.load of store {t}", lambda: o3de.load(t, stored[0],
                                                                       registry=reg))
    if kind != "ok" or again[0] != loaded[0]:
        raise Finding("invariant", f"stored {t} does not load back: {stored[0]!r:.200}",
                      f"o3de.store/load differ {t}")


def cli_schema_files() -> tuple[str, ...]:
    folder = workdir() / "cli"
    folder.mkdir(exist_ok=True)
    texts = (*fb_schema_texts(), NO_ROOT_SCHEMA, INCLUDING_SCHEMA)
    paths = []
    for i, text in enumerate(texts):
        path = folder / f"s{i}.fbs"
        path.write_text(text)
        paths.append(str(path))
    return tuple(paths)


CLI_VERBS = ("decode", "encode", "verify", "inspect")


def cli_argv(data: bytes, input_path: str) -> list[str] | None:
    """The command line an input names (byte 0: bits 0-1 verb, bit 2 format, for FlatBuffers
    bits 3-4 the root type; byte 1: the format's options); None for an input too short."""
    if len(data) < 2:
        return None
    a, b = data[0], data[1]
    verb = CLI_VERBS[a & 3]
    if a & 4:
        files = cli_schema_files()
        schema = files[(b & 31) % len(files)]
        argv = [verb, "flatbuffers", "--schema", schema, input_path]
        root = (None, None, "MyGame.Sample.Weapon", "Nope")[a >> 3 & 3]
        if root:
            argv += ["--type", root]
        if b & 32:
            argv.append("--size-prefixed")
        if b & 64:
            argv += {"decode": ["--defaults-json"], "encode": ["--strict-json"],
                     "inspect": ["--annotate", "--annotate-sparse-vectors"],
                     "verify": ["--max-depth", str(a >> 5)]}[verb]
        if b & 128 and verb == "encode":
            argv.append("--force-defaults")
        return argv
    framing = ("raw", "store_var", "packet_stream", "base64")[b & 3]
    argv = [verb, "godot", input_path, "--profile", GODOT_PROFILES[(b >> 2 & 3) % 3],
            "--framing", framing]
    if b & 16:  # big-endian lengths with store_var; elsewhere bytes after the Variant allowed
        if framing == "store_var":
            argv.append("--big-endian")
        elif framing != "packet_stream" and verb != "encode":
            argv.append("--allow-trailing")
    if b & 32:
        argv += ["--max-depth", str(a >> 3)]
    if verb == "encode":
        argv += ["--full-objects", ("auto", "yes", "no", "auto")[b >> 6]]
    return argv


def run_cli(argv: list[str]) -> tuple[int, bytes, str]:
    """``gameserde.cli.main(argv)`` in this process: (status, stdout bytes, stderr text)."""
    from gameserde.cli import main

    out = io.BytesIO()
    err = io.StringIO()
    saved = sys.stdout
    sys.stdout = wrapper = io.TextIOWrapper(out, encoding="utf-8")
    try:
        with redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as e:  # argparse: a verb the format does not have
                status = e.code if isinstance(e.code, int) else 2
        wrapper.flush()
    finally:
        sys.stdout = saved
        wrapper.detach()
    return status, out.getvalue(), err.getvalue()


def cli(data: bytes) -> None:
    """``gameserde.cli.main`` on every verb of Godot and FlatBuffers (see :func:`cli_argv`):
    a documented exit status, no traceback, the same result with and without the
    accelerators."""
    path = workdir() / "input"
    path.write_bytes(data[2:])
    argv = cli_argv(data, str(path))
    if argv is not None:
        check_cli(argv, data)


ZEZE_CLI_BEANS = ("BAll", "BRole", "BHolder", "BInner", "BFinal", "BConv", "m.BV2", "Nope")


@functools.cache
def zeze_cli_schema() -> str:
    """The vectors' schema as a file for ``cli.zeze``."""
    folder = workdir() / "cli"
    folder.mkdir(exist_ok=True)
    path = folder / "zeze.xml"
    path.write_text(json.loads(ZEZE_VECTORS.read_text(encoding="utf-8"))["meta"]["schema_xml"])
    return str(path)


def cli_zeze(data: bytes) -> None:
    """``gameserde VERB zeze`` (byte 0: bits 0-1 the verb, bit 2 ``--frame``, bit 3 no
    ``--schema``, bits 4-6 the bean, named by ``--type`` without ``--frame``; byte 1:
    ``--max-depth`` when not 0 and a schema is given), with the checks of :func:`cli`."""
    if len(data) < 2:
        return
    path = workdir() / "input"
    path.write_bytes(data[2:])
    a, b = data[0], data[1]
    argv = [CLI_VERBS[a & 3], "zeze", str(path)]
    if a & 4:
        argv.append("--frame")
    if not a & 8:
        argv += ["--schema", zeze_cli_schema()]
        if not a & 4:
            argv += ["--type", ZEZE_CLI_BEANS[a >> 4 & 7]]
        if b:
            argv += ["--max-depth", str(b)]
    check_cli(argv, data)


@functools.cache
def kingsisle_cli_types() -> str:
    """The synthetic type list of ``tests/kingsisle/typelists.py`` as a file for
    ``cli.kingsisle``."""
    from tests.kingsisle.typelists import type_list

    folder = workdir() / "cli"
    folder.mkdir(exist_ok=True)
    path = folder / "kingsisle.json"
    path.write_text(type_list())
    return str(path)


def cli_kingsisle(data: bytes) -> None:
    """``gameserde VERB kingsisle`` (byte 0: bits 0-1 the verb, bit 2 ``--deep``, bit 3
    ``--skip-unknown-types`` (with ``--deep``; not for encode), bit 4 ``--enum-names``
    (decode), bit 5 ``--xml`` (decode, encode; instead of ``--enum-names``), bit 6
    ``--bind`` (encode, instead of ``--xml``); byte 1: ``--flags``, its low 5 bits, with bits
    5-7 ``--mask`` 7, 0x18 or 0), with the checks of :func:`cli`."""
    if len(data) < 2:
        return
    path = workdir() / "input"
    path.write_bytes(data[2:])
    a, b = data[0], data[1]
    verb = CLI_VERBS[a & 3]
    argv = [verb, "kingsisle", str(path), "-s", kingsisle_cli_types(),
            "--flags", str(b & 31), "--mask", ("7", "0x18", "0")[(b >> 5) % 3]]
    argv += ["--deep"] if a & 4 else []
    if a & 4 and a & 8 and verb != "encode":
        argv += ["--skip-unknown-types"]
    if verb == "encode":
        argv += ["--bind"] if a & 64 else ["--xml"] if a & 32 else []
    if verb == "decode":
        argv += ["--xml"] if a & 32 else ["--enum-names"] if a & 16 else []
    check_cli(argv, data)


def cli_o3de(data: bytes) -> None:
    """``gameserde VERB o3de`` (byte 0: bits 0-1 the verb, bit 2 ``--trailing-commas`` (not
    for ``.setreg``, whose reader always takes them), bits 3-4 the file's suffix: none,
    ``.prefab`` or ``.material`` (typed with the engine registry), ``.setreg``; bit 5
    ``--keep-defaults`` for a typed decode or encode, ``--max-depth 8`` otherwise), with the
    checks of :func:`cli`."""
    if not data:
        return
    suffix = ("", ".prefab", ".material", ".setreg")[data[0] >> 3 & 3]
    path = workdir() / f"input{suffix}"
    path.write_bytes(data[1:])
    verb = CLI_VERBS[data[0] & 3]
    argv = [verb, "o3de", str(path)]
    if data[0] & 4 and suffix != ".setreg":
        argv.append("--trailing-commas")
    if data[0] & 32:
        typed = suffix in (".prefab", ".material") and verb in ("decode", "encode")
        argv += ["--keep-defaults"] if typed else ["--max-depth", "8"]
    check_cli(argv, data)


CONVERT_FORMATS = ("godot", "flatbuffers", "zeze", "kingsisle", "o3de")
GODOT_FRAMINGS = ("raw", "store_var", "packet_stream", "base64")


def cli_convert(data: bytes) -> None:
    """``gameserde convert FORMAT`` with options on both sides, with the checks of
    :func:`cli`. Byte 0: bits 0-2 the format (of :data:`CONVERT_FORMATS`), bits 3-7 the
    written side; byte 1 the read side. Godot: byte 1 bits 0-1 ``--framing``, 2-3
    ``--profile``, 4-5 ``--to-framing``, bit 6 ``--big-endian``; byte 0 bits 3-4
    ``--to-profile``. FlatBuffers: byte 1 the schema; byte 0 bit 3 ``--size-prefixed``, bit 4
    the other side's prefix, bit 5 ``--to-force-defaults``. Zeze: byte 0 bit 3 ``--frame``;
    byte 1 bits 0-2 ``--type``, 3-5 ``--to-type``. KingsIsle: byte 1 bits 0-4 ``--flags``,
    bit 5 ``--deep``, bit 6 ``--to-deep``, bit 7 ``--to-xml``; byte 0 bits 3-7 ``--to-flags``.
    O3DE: byte 1 bits 0-1 the file's suffix (none, .prefab, .material, .setreg), bit 2
    ``--to-keep-defaults`` (typed files)."""
    if len(data) < 2:
        return
    a, b = data[0], data[1]
    fmt = CONVERT_FORMATS[(a & 7) % len(CONVERT_FORMATS)]
    suffix = ("", ".prefab", ".material", ".setreg")[b & 3] if fmt == "o3de" else ""
    path = workdir() / f"convert{suffix}"
    path.write_bytes(data[2:])
    argv = ["convert", fmt, str(path)]
    if fmt == "godot":
        argv += ["--framing", GODOT_FRAMINGS[b & 3], "--profile",
                 GODOT_PROFILES[(b >> 2 & 3) % 3], "--to-framing", GODOT_FRAMINGS[b >> 4 & 3],
                 "--to-profile", GODOT_PROFILES[(a >> 3 & 3) % 3]]
        if b & 64 and b & 3 == 1:
            argv += ["--big-endian"] + ([] if b >> 4 & 3 == 1 else ["--to-no-big-endian"])
    elif fmt == "flatbuffers":
        files = cli_schema_files()
        argv += ["--schema", files[(b & 31) % len(files)]]
        if a & 8:
            argv.append("--size-prefixed")
        if a & 16:
            argv.append("--to-no-size-prefixed" if a & 8 else "--to-size-prefixed")
        if a & 32:
            argv.append("--to-force-defaults")
    elif fmt == "zeze":
        argv += ["--schema", zeze_cli_schema()]
        if a & 8:
            argv.append("--frame")
        else:
            argv += ["--type", ZEZE_CLI_BEANS[b & 7], "--to-type", ZEZE_CLI_BEANS[b >> 3 & 7]]
    elif fmt == "kingsisle":
        argv += ["-s", kingsisle_cli_types(), "--flags", str(b & 31), "--to-flags",
                 str(a >> 3 & 31)]
        argv += [flag for bit, flag in ((32, "--deep"), (64, "--to-deep"), (128, "--to-xml"))
                 if b & bit]
    elif b & 4 and suffix in (".prefab", ".material"):
        argv.append("--to-keep-defaults")
    check_cli(argv, data)


def cli_batch(data: bytes) -> None:
    """``gameserde VERB godot`` as a batch over a folder of the input's pieces (byte 0: bits
    0-1 the verb of decode, verify, inspect, convert; bits 2-3 the framing; bit 4
    ``--fail-fast``, bit 5 ``--strict``, bit 6 ``--parquet`` but for convert; byte 1: where
    the rest is cut into three files),
    with the checks of :func:`cli`: one process (``-j 1``), outputs under a fresh folder."""
    if len(data) < 2:
        return
    a, b = data[0], data[1]
    folder = workdir() / "batch"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in" / "sub").mkdir(parents=True)
    body = data[2:]
    cut = b * len(body) // 255
    pieces = (body[:cut // 2], body[cut // 2:cut], body[cut:])
    for name, piece in zip(("a.bin", "sub/b.bin", "sub/c.bin"), pieces, strict=True):
        (folder / "in" / name).write_bytes(piece)
    verb = ("decode", "verify", "inspect", "convert")[a & 3]
    framing = GODOT_FRAMINGS[a >> 2 & 3]
    argv = [verb, "godot", str(folder / "in"), "-r", "-j", "1", "--framing", framing]
    argv += [flag for bit, flag in ((16, "--fail-fast"), (32, "--strict")) if a & bit]
    if verb == "convert":
        argv += ["--to-framing", GODOT_FRAMINGS[(a >> 2 & 3) ^ 1], "-o", str(folder / "out")]
    elif a & 64:
        argv += ["--parquet", str(folder / "dataset")]
    check_cli(argv, data, timeless=True)


def check_cli(argv: list[str], data: bytes, *, timeless: bool = False) -> None:
    """Run ``argv``: a documented exit status, no traceback, the same result with and
    without the accelerators (``timeless``: apart from the seconds a batch's summary gives),
    output linear in the input."""
    def once() -> tuple[int, bytes, str]:
        status, stdout, stderr = run_cli(argv)
        return status, stdout, re.sub(r" in \d+\.\d+ s:", " in - s:", stderr) if timeless \
            else stderr

    _, result = both_paths("cli " + " ".join(argv[:2]), once)
    status, stdout, stderr = result
    what = f"gameserde {' '.join(argv[:2])}"
    first = stderr.strip().split("\n")[0][:200] if stderr.strip() else ""
    if "Traceback" in stderr:
        raise Finding("cli", f"{what} printed a traceback: {stderr.strip().splitlines()[-1]}",
                      f"{what} traceback {stderr.strip().splitlines()[-1].split(':')[0]}")
    if status not in CLI_STATUSES:
        raise Finding("cli", f"{what} exited with status {status}: {first}",
                      f"{what} status {status} {first.split(':')[-1].strip()[:40]}")
    check_weight(what, len(stdout) + len(stderr), len(data), factor=4096)


def rows_codec(data: bytes) -> Any:
    """The codec a ``rows`` input names: byte 0 bits 0-2 the format (of
    :data:`CONVERT_FORMATS`), byte 1 its options as :func:`cli_convert` reads them (the read
    side); the rest is the input."""
    import gameserde

    a, b = data[0], data[1]
    fmt = CONVERT_FORMATS[(a & 7) % len(CONVERT_FORMATS)]
    if fmt == "godot":
        return gameserde.codec("godot", framing=GODOT_FRAMINGS[b & 3],
                               profile=GODOT_PROFILES[(b >> 2 & 3) % 3],
                               json=GODOT_JSON_MODES[b >> 6 & 1])
    if fmt == "flatbuffers":
        files = cli_schema_files()
        return gameserde.codec("flatbuffers", schema=files[(b & 31) % len(files)],
                               size_prefixed=bool(a & 8))
    if fmt == "zeze":
        if a & 8:
            return gameserde.codec("zeze", schema=zeze_cli_schema(), frame=True)
        return gameserde.codec("zeze", schema=zeze_cli_schema(),
                               type=ZEZE_CLI_BEANS[(b & 7) % (len(ZEZE_CLI_BEANS) - 1)])
    if fmt == "kingsisle":
        return gameserde.codec("kingsisle", schema=kingsisle_cli_types(), flags=b & 31,
                               deep=bool(b & 32))
    suffix = ("input", "input.prefab", "input.material", "input.setreg")[b & 3]
    return gameserde.codec("o3de", source=suffix)


def rows(data: bytes) -> None:
    """A decoded value as a table row (``Codec.to_row``) and a Parquet file of it, for every
    format (see :func:`rows_codec`): an input the codec decodes gives a row that Arrow takes
    whole (a value its column cannot hold is a finding), whose Parquet file reads back as one
    row, in a size linear in the input's; nothing but a gameserde error escapes."""
    if len(data) < 2:
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gameserde.batch.parquet import json_table, table_of
    from gameserde.errors import GameserdeError

    body = data[2:]
    try:
        codec = rows_codec(data)
        row = codec.to_row(codec.decode(body))
    except GameserdeError:
        return
    what = f"rows {codec.format}"
    if row is None:
        return
    if row.type is None:
        table = json_table(["input"], [json.dumps(row.value, ensure_ascii=False)])
    else:
        try:
            table = table_of(["input"], [row])
        except (ArithmeticError, TypeError, ValueError, LookupError) as e:
            raise Finding("rows", f"{what}: the row does not fit its columns: {e}",
                          f"{what} {type(e).__name__}") from e
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    written = sink.getvalue()
    if pq.read_table(pa.BufferReader(written)).num_rows != 1:
        raise Finding("rows", f"{what}: the Parquet file does not read back as one row", what)
    check_weight(what, table.nbytes, len(body), factor=4096)


def kingsisle_wad(data: bytes) -> None:
    """``kingsisle.open_wad`` of an archive (byte 0: bit 0 ``check_crc=False``, bit 1
    ``max_expansion=1``, else the default 1032; bit 2 extract into a fresh folder), then
    every member read and globs: gameserde errors only; what the members inflate to stays
    within the bound ``max_expansion`` sets; extraction writes only inside its folder; an
    archive whose members all read and whose names are all safe is written back by
    ``write_wad`` to the same members."""
    import warnings

    from gameserde.kingsisle.wad import open_wad, safe_member_path, write_wad

    if not data:
        return
    options, body = data[0], data[1:]
    factor = 1 if options & 2 else 1032
    kind, wad = outcome("kingsisle.wad", lambda: open_wad(body, check_crc=not options & 1,
                                                          max_expansion=factor))
    if kind != "ok":
        return
    with wad, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        members = {}
        for name in wad.names():
            kind, member = outcome("kingsisle.wad member", lambda name=name: wad[name])
            if kind == "ok":
                members[name] = member
        check_weight("kingsisle.wad members", sum(map(len, members.values())), len(body),
                     factor=factor + 4096 // 21 + 1)  # 4096 bytes' slack per 21-byte entry
        for pattern in ("*", "**/*.xml", "[a-m]*", "{a,b}/?"):
            kind, found = outcome("kingsisle.wad glob", lambda p=pattern: wad.glob(p))
            if kind != "ok" or not set(found) <= set(members) | set(wad.names()):
                raise Finding("invariant", f"kingsisle.wad glob {pattern!r} gave {found!r:.200}",
                              "kingsisle.wad glob")
        if options & 4:
            box = Path(tempfile.mkdtemp(dir=workdir()))
            outcome("kingsisle.wad extract", lambda: wad.extract(box / "out"))
            outside = [p for p in box.iterdir() if p.name != "out"]
            shutil.rmtree(box)
            if outside:
                raise Finding("invariant", f"kingsisle.wad extract wrote {outside}",
                              "kingsisle.wad extract escapes")
    if len(members) != len(wad) or any(safe_member_path(n) for n in members):
        return
    kind, again = outcome("kingsisle.write_wad of read members",
                          lambda: write_wad(None, members))
    if kind != "ok":
        raise Finding("invariant", f"kingsisle.write_wad refuses read members: {again}",
                      "kingsisle.write_wad refuses read members")
    with open_wad(again) as back:
        if dict(back.items()) != members:
            raise Finding("invariant", "kingsisle.write_wad does not read back",
                          "kingsisle.write_wad round trip")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "godot.decode": godot_decode,
    "godot.framings": godot_framings,
    "godot.inspect": godot_inspect,
    "godot.from_json": godot_from_json,
    "godot.resource": godot_resource,
    "fb.verify": fb_verify,
    "fb.decode": fb_decode,
    "fb.view": fb_view,
    "fb.to_json": fb_to_json,
    "fb.inspect": fb_inspect,
    "fb.from_json": fb_from_json,
    "fb.encode": fb_encode,
    "fb.flexbuffers": fb_flexbuffers,
    "fb.load_schema": fb_load_schema,
    "fb.bfbs": fb_bfbs,
    "zeze.load_schema": zeze_load_schema,
    "zeze.decode": zeze_decode,
    "zeze.generic": zeze_generic,
    "zeze.frames": zeze_frames,
    "zeze.inspect": zeze_inspect,
    "zeze.from_json": zeze_from_json,
    "kingsisle.load_schema": kingsisle_load_schema,
    "kingsisle.decode": kingsisle_decode,
    "kingsisle.inspect": kingsisle_inspect,
    "kingsisle.from_xml": kingsisle_from_xml,
    "kingsisle.from_json": kingsisle_from_json,
    "kingsisle.bind": kingsisle_bind,
    "kingsisle.wad": kingsisle_wad,
    "o3de.parse": o3de_parse,
    "o3de.patch": o3de_patch,
    "o3de.imports": o3de_imports,
    "o3de.leaves": o3de_leaves,
    "o3de.load": o3de_load,
    "o3de.store": o3de_store,
    "cli": cli,
    "cli.zeze": cli_zeze,
    "cli.kingsisle": cli_kingsisle,
    "cli.o3de": cli_o3de,
    "cli.convert": cli_convert,
    "cli.batch": cli_batch,
    "rows": rows,
    "html": html_page,
}
"""Every target by name (the name is also its folder under ``tests/fuzz/corpus``)."""
