"""The real-world KingsIsle corpus (``../shared/corpus/kingsisle-real``): katsuba's own test data.

The corpus (its README describes it) holds the 30 fixture streams of katsuba's test suite
(vbe0201/katsuba at 36e296f), written by katsuba's authors with a synthetic type list, and
katsuba-types' two type-list samples. Every case is checked in every run, as the corpus's
``tools/run_kingsisle.py`` does:

* type lists: the three JSON lists load, with their classes;
* decode: the 28 good fixtures decode, to the values katsuba 0.6.0 reads from them (the
  oracle ``tests/kingsisle/katsuba_oracle.py``), with the C twin and without; the 2
  ``should-fail`` ones raise ``DecodeError`` with their offset and message (katsuba refuses
  them too);
* re-encode: each decoded fixture encodes back to its own bytes, all 28 (6 of them have
  non-zero padding bits, which the decoded objects keep; one is zlib data, kept as well); a
  new object of the same values (the JSON copy) encodes to the canonical bytes, which differ
  from those 6 exactly in the bytes that hold their padding (for the zlib data, in what it
  inflates to);
* JSON and XML: ``to_json``/``from_json`` and ``to_xml``/``from_xml`` give the value back;
* CLI: ``gameserde decode kingsisle`` with each fixture's options exits 0 and prints the
  value's JSON, or (the 2 should-fail ones) exits 1 with a one-line message naming the file.

The KIWAD archives of ``wad/`` are not checked here. The corpus lives beside the project
(``../shared``); without it these tests are skipped, or fail when ``CI=true``.
"""

from __future__ import annotations

import functools
import json
import zlib
from dataclasses import dataclass
from typing import Any

import pytest

from gameserde.cli import main
from gameserde.errors import DecodeError
from gameserde.kingsisle import (
    KiObject,
    KiSchema,
    Serializer,
    from_json,
    from_xml,
    load_schema,
    to_json,
    to_xml,
)
from tests.conformance.corpus import case_names, corpus_dir, require
from tests.fuzz.harness import accelerated
from tests.kingsisle.katsuba_oracle import run
from tests.kingsisle.strategies import from_katsuba

CORPUS = corpus_dir("kingsisle-real")
TYPES = CORPUS / "types" / "fixtures_types.json"

TYPE_LISTS = {"fixtures_types.json": 18, "types_v1.json": 3, "types_v2.json": 3}

REFUSED = {
    "katsuba_fail_delta_encode_forbid_absent":
        (12, "kingsisle decode error at byte 12 (0xc): class DeltaEncode.m_delta: missing "
             "delta value"),
    "katsuba_fail_null_root":
        (4, "kingsisle decode error at byte 4 (0x4): the root object is null"),
}

PADDED = {  # the bytes holding non-zero padding bits (with-compression: in the inflated data)
    "katsuba_all_scalars_deep": [20],
    "katsuba_bit_integers_deep": [20, 29, 47, 56, 65, 83, 119],
    "katsuba_delta_encode_absent": [12],
    "katsuba_delta_encode_present": [12],
    "katsuba_empty_string_no_realign": [10],
    "katsuba_with_compression": [9],
}


def names() -> list[str]:
    return case_names(CORPUS)


@pytest.fixture(scope="module", autouse=True)
def corpus() -> None:
    require(CORPUS, "KingsIsle")


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    config: dict[str, Any]
    ok: bool

    @classmethod
    def load(cls, name: str) -> Case:
        meta = json.loads((CORPUS / name / "meta.json").read_text())
        return cls(name, (CORPUS / name / "data.bin").read_bytes(), meta["config"],
                   meta["expect"] == "ok")

    def serializer(self) -> Serializer:
        c = self.config
        return Serializer(types(), shallow=c["shallow"], flags=c["flags"],
                          property_mask=c["property_mask"], manual_compression=c["compress"])

    def cli_args(self) -> list[str]:
        c = self.config
        return ["decode", "kingsisle", "--types", str(TYPES), "--flags", str(c["flags"]),
                "--mask", str(c["property_mask"]), *([] if c["shallow"] else ["--deep"]),
                *(["--manual-compression"] if c["compress"] else []),
                str(CORPUS / self.name / "data.bin")]

    def inflated(self, data: bytes) -> bytes:
        """``data`` with its manual compression undone."""
        return zlib.decompress(data[4:]) if self.config["compress"] else data


@functools.cache
def types() -> KiSchema:
    return load_schema(str(TYPES))


def test_the_corpus_is_complete() -> None:
    cases = [Case.load(n) for n in names()]
    assert len(cases) == 30
    assert sorted(c.name for c in cases if not c.ok) == sorted(REFUSED)


def test_type_lists_load() -> None:
    for name, classes in TYPE_LISTS.items():
        assert len(load_schema(str(CORPUS / "types" / name)).classes) == classes, name
    assert sorted(load_schema(str(CORPUS / "types" / "types_v1.json")).classes) == sorted(
        load_schema(str(CORPUS / "types" / "types_v2.json")).classes)


@pytest.mark.parametrize("name", names())
def test_fixture(name: str) -> None:
    case = Case.load(name)
    ser = case.serializer()
    if not case.ok:
        offset, message = REFUSED[name]
        for enabled in (True, False):
            with accelerated(enabled), pytest.raises(DecodeError) as e:
                ser.decode(case.data)
            assert (e.value.offset, str(e.value)) == (offset, message)
        return
    with accelerated(False):
        pure = ser.decode(case.data)
        assert ser.encode(pure) == case.data  # padding and zlib bytes as read
    with accelerated(True):
        obj = ser.decode(case.data)
        assert ser.encode(obj) == case.data
    assert obj == pure and obj.padding == pure.padding
    assert from_json(to_json(obj, schema=types()), types()) == obj
    assert from_xml(to_xml(obj, types()), types()) == obj
    canonical = ser.encode(from_json(to_json(obj, schema=types()), types()))
    old, new = case.inflated(case.data), case.inflated(canonical)
    assert len(old) == len(new)
    assert [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == PADDED.get(
        name, [])


def test_values_are_katsubas() -> None:
    """katsuba 0.6.0 reads every good fixture to our values and refuses the other two."""
    cases = [Case.load(n) for n in names()]
    requests = [{"kind": "deserialize", "types": TYPES.read_text(), "blobs": [c.data.hex()],
                 "options": {"flags": c.config["flags"], "shallow": c.config["shallow"],
                             "property_mask": c.config["property_mask"],
                             "manual_compression": c.config["compress"]}} for c in cases]
    for case, [theirs] in zip(cases, run(requests), strict=True):
        if case.ok:
            assert from_katsuba(types(), theirs) == case.serializer().decode(case.data), case.name
        else:
            assert "error" in theirs, case.name


def test_cli_decode(capsys: pytest.CaptureFixture[str]) -> None:
    for name in names():
        case = Case.load(name)
        code = main(case.cli_args())
        out, err = capsys.readouterr()
        if case.ok:
            assert (code, err) == (0, ""), name
            obj = case.serializer().decode(case.data)
            assert isinstance(obj, KiObject)
            assert json.loads(out) == json.loads(to_json(obj, schema=types())), name
        else:
            assert (code, out) == (1, ""), name
            assert err.count("\n") == 1 and "Traceback" not in err, name
            assert str(CORPUS / name / "data.bin") in err and REFUSED[name][1] in err, name
