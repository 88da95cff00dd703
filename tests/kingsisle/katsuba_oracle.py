"""katsuba 0.6.0 (vbe0201/katsuba's Python wheel) as a differential oracle for
``gameserde.kingsisle``.

katsuba needs Python >= 3.12, so it runs in an environment of its own (``scripts/test.sh``
makes ``.venv-katsuba/`` and exports ``GAMESERDE_KATSUBA_PYTHON``). :func:`run` sends one
batch of requests to a script run by that interpreter, as JSON on standard input, and returns
its JSON answers: one process per batch, so a test pays the start-up once.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gameserde.kingsisle.objects import KiObject

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys
from katsuba.op import Object, Serializer, SerializerOptions, TypeList
from katsuba.utils import djb2, string_id

def to_katsuba(v):
    if isinstance(v, dict) and "$object" in v:
        return Object(v["$object"], {k: to_katsuba(x) for k, x in v["props"].items()})
    if isinstance(v, dict) and "$bytes" in v:
        return bytes.fromhex(v["$bytes"])
    if isinstance(v, list):
        return [to_katsuba(x) for x in v]
    return v

def from_katsuba(v):
    if isinstance(v, Object):
        return {"$object": v.type_hash, "props": {k: from_katsuba(x) for k, x in v.items()}}
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, list):
        return [from_katsuba(x) for x in v]
    if isinstance(v, dict):
        return {k: from_katsuba(x) for k, x in v.items()}
    return v

def serializer(request):
    opts = SerializerOptions(**request["options"])
    return Serializer(opts, TypeList(request["types"]))

def answer(request):
    kind = request["kind"]
    if kind == "hashes":
        names = [bytes.fromhex(h) for h in request["names"]]
        return {"string_id": [string_id(n) for n in names], "djb2": [djb2(n) for n in names]}
    if kind == "serialize":
        ser = serializer(request)
        out = []
        for v in request["values"]:
            try:
                out.append(bytes(ser.serialize(to_katsuba(v))).hex())
            except Exception as e:
                out.append({"error": f"{type(e).__name__}: {e}"})
        return out
    if kind == "deserialize":
        ser = serializer(request)
        out = []
        for h in request["blobs"]:
            try:
                out.append(from_katsuba(ser.deserialize(bytes.fromhex(h))))
            except Exception as e:
                out.append({"error": f"{type(e).__name__}: {e}"})
        return out
    if kind == "typelists":
        out = []
        for text in request["texts"]:
            try:
                TypeList(text)
                out.append("ok")
            except Exception as e:
                out.append(f"error: {type(e).__name__}: {e}")
        return out
    raise ValueError(f"unknown request {kind!r}")

json.dump([answer(r) for r in json.load(sys.stdin)], sys.stdout)
"""


def tagged(v: Any) -> Any:
    """A value in the oracle's JSON form (objects and bytes tagged)."""
    if isinstance(v, KiObject):
        return {"$object": v.type_hash, "props": {k: tagged(x) for k, x in v.items()}}
    if isinstance(v, bytes):
        return {"$bytes": v.hex()}
    if isinstance(v, list):
        return [tagged(x) for x in v]
    return v


def find_katsuba() -> str | None:
    """The interpreter that has katsuba, or None."""
    candidates = [os.environ.get("GAMESERDE_KATSUBA_PYTHON", ""),
                  str(ROOT / ".venv-katsuba" / "bin" / "python")]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def katsuba_python() -> str:
    """The katsuba interpreter; missing: the test fails on CI (``CI=true``), else skips."""
    found = find_katsuba()
    if found is None:
        message = ("katsuba 0.6.0 is not installed (scripts/test.sh makes .venv-katsuba with "
                   "Python 3.12); the KingsIsle differential tests need it")
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: failing instead of skipping)", pytrace=False)
        pytest.skip(message)
    return found


def run(requests: list[dict[str, Any]]) -> list[Any]:
    """katsuba's answers to ``requests`` (see ``SCRIPT``)."""
    done = subprocess.run([katsuba_python(), "-c", SCRIPT], input=json.dumps(requests),
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise AssertionError(f"the katsuba oracle failed: {done.stderr.strip()[-2000:]}")
    answers: list[Any] = json.loads(done.stdout)
    return answers
