"""Helpers of the ``.bfbs`` tests: flatc's binary schemas in batches, and the part of a schema
model a ``.bfbs`` holds (to compare a schema loaded from one with the ``.fbs`` it came from)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gameserde.flatbuffers import FbsSchema
from gameserde.flatbuffers._fbs_defs import BUILTIN_ATTRIBUTES
from gameserde.flatbuffers.schema import FbsService
from gameserde.schema.model import Enum, Named, Record, String, Union

# (comments, builtins) and the flatc options they stand for
FLAGS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (False, False): (),
    (True, False): ("--bfbs-comments",),
    (False, True): ("--bfbs-builtins",),
    (True, True): ("--bfbs-comments", "--bfbs-builtins"),
}


def flatc_bfbs(flatc: str, directory: Path, names: Sequence[str],
               options: Sequence[str] = (), include: Sequence[str | Path] = (),
               out: Path | None = None) -> dict[str, bytes]:
    """``flatc -b --schema OPTIONS`` of the schema files ``names`` (in ``directory``, given
    bare as flatc is run there: no declaration files unless ``--bfbs-filenames``), all in one
    run, writing into ``out`` (default: a new folder in ``directory``); the ``.bfbs`` of each
    name."""
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="bfbs", dir=directory))
    includes = [a for p in include for a in ("-I", os.fspath(p))]
    proc = subprocess.run([flatc, "-b", "--schema", *options, *includes, "-o", str(out),
                           *names], cwd=directory, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return {n: (out / (Path(n).stem + ".bfbs")).read_bytes() for n in names}


def _plain_attributes(attrs: Mapping[str, Any], builtins: bool) -> dict[str, Any]:
    return {k: v for k, v in attrs.items()
            if k != "flatbuffers.file" and (builtins or k not in BUILTIN_ATTRIBUTES)
            and (builtins or k not in ("flatbuffers.bit_index", "flatbuffers.nested_root",
                                       "flatbuffers.sortbysize"))}


def stored(t: Named, *, comments: bool, builtins: bool) -> Named:
    """``t`` as a ``.bfbs`` written with these options keeps it: no declaration file, no
    documentation without ``comments``, no builtin attribute (nor what only they decide)
    without ``builtins``, a string default only as "there is one" (``""``), an integer
    default beyond int64 as 0."""
    attrs = _plain_attributes(t.attributes, builtins)
    values = {name: _plain_attributes(a, builtins)
              for name, a in attrs.pop("flatbuffers.value_attributes", {}).items()}
    if any(values.values()):
        attrs["flatbuffers.value_attributes"] = {n: a for n, a in values.items() if a}
    doc = t.doc if comments else ""
    if not comments:
        attrs.pop("flatbuffers.value_docs", None)
    if isinstance(t, Record):
        fields = []
        for f in t.fields:
            default = f.default
            if isinstance(f.type, String) and default is not None:
                default = ""
            elif type(default) is int and not -(1 << 63) <= default < 1 << 63:
                default = 0  # flatc's StringToInt
            fields.append(dataclasses.replace(
                f, default=default, doc=f.doc if comments else "",
                attributes=_plain_attributes(f.attributes, builtins)))
        return dataclasses.replace(t, fields=tuple(fields), attributes=attrs, doc=doc)
    if isinstance(t, Enum) and not builtins:
        return dataclasses.replace(t, bit_flags=False, attributes=attrs, doc=doc)
    assert isinstance(t, Enum | Union)
    return dataclasses.replace(t, attributes=attrs, doc=doc)


def assert_same_model(fbs: FbsSchema, bfbs: FbsSchema, *, comments: bool,
                      builtins: bool) -> None:
    """The schema loaded from flatc's ``.bfbs`` is the ``.fbs``'s, for what a ``.bfbs``
    written with these options stores."""
    assert set(fbs.types) == set(bfbs.types)
    for name, t in fbs.types.items():
        want = stored(t, comments=comments, builtins=builtins)
        got = stored(bfbs.types[name], comments=comments, builtins=builtins)
        assert got == want, name
    assert (bfbs.root, bfbs.file_identifier, bfbs.file_extension) == (
        fbs.root, fbs.file_identifier, fbs.file_extension)
    def plain(s: FbsService, docs: bool) -> FbsService:
        calls = tuple(dataclasses.replace(
            c, doc=c.doc if docs else "", attributes=_plain_attributes(c.attributes, builtins))
            for c in s.calls)
        return dataclasses.replace(s, file="", doc=s.doc if docs else "", calls=calls,
                                   attributes=_plain_attributes(s.attributes, builtins))

    assert ([plain(s, True) for s in bfbs.services]
            == [plain(s, comments) for s in fbs.services])
