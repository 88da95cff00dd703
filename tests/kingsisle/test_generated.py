"""Generated type lists and objects (``strategies.py``) through the serializer and through
katsuba 0.6.0 (spec kiobj.md §12).

- Round trips: every object decodes to what was written (less the properties the options
  leave out) and encodes to the same bytes again, under every flag combination, shallow and
  deep, property masks 7 and 0x18.
- katsuba both ways: a fixed set of generated cases, each under every flag combination and
  mode with one of the masks (plus manual compression, and masks 0 and 1 as in katsuba's
  fixture ``property-mask``), goes to katsuba in one batch: it
  decodes our bytes to our values, we decode its bytes to its values, and the bytes are the
  same (compressed streams after inflating; bit-flag names in katsuba's random order compare
  by length).
- Deep data with classes the reader's type list lacks still gives the known parts, as
  katsuba does.
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from gameserde.errors import DecodeError, EncodeError
from gameserde.kingsisle import load_schema
from gameserde.kingsisle.objects import KiObject
from gameserde.kingsisle.serializer import FORBID_DELTA_ENCODE, HUMAN_READABLE_ENUMS, Serializer
from tests.kingsisle.katsuba_oracle import run, tagged
from tests.kingsisle.strategies import (
    MASKS,
    TypeList,
    body,
    cases,
    filled,
    from_katsuba,
    named_bits,
    written,
)

PROPERTY = settings(max_examples=10, deadline=None,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Not shrunk: an example is large, and shrinking it takes minutes; the failure messages
say where values differ."""

COMBOS = [(flags, shallow, mask) for flags in range(32) for shallow in (True, False)
          for mask in MASKS]


def prepared(types: TypeList, value: KiObject, flags: int, shallow: bool,
             mask: int) -> KiObject:
    """What a serializer of these options writes of ``value`` (absent delta properties
    filled in under FORBID_DELTA_ENCODE)."""
    schema = load_schema(types.text())
    if flags & FORBID_DELTA_ENCODE:
        value = filled(types, value)
    result: KiObject = written(schema, value, shallow=shallow, mask=mask)
    return result


def difference(a: Any, b: Any, path: str = "root") -> str | None:
    """Where ``a`` and ``b`` first differ (for failure messages)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if isinstance(a, KiObject) and isinstance(b, KiObject) and a.type_hash != b.type_hash:
            return f"{path}: {a.type_name} against {b.type_name}"
        for k in [*a, *(k for k in b if k not in a)]:
            if k not in a or k not in b:
                return f"{path}.{k}: only on the {'left' if k in a else 'right'}"
            found = difference(a[k], b[k], f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} against {len(b)} elements"
        return next((d for i, (x, y) in enumerate(zip(a, b, strict=True))
                     if (d := difference(x, y, f"{path}[{i}]"))), None)
    return None if a == b else f"{path}: {a!r} against {b!r}"


@PROPERTY
@given(cases())
def test_round_trip_under_every_option(case: tuple[TypeList, KiObject]) -> None:
    types, value = case
    schema = load_schema(types.text())
    for flags, shallow, mask in COMBOS:
        ser = Serializer(schema, flags=flags, shallow=shallow, property_mask=mask)
        expected = prepared(types, value, flags, shallow, mask)
        data = ser.encode(expected)
        back = ser.decode(data)
        assert back == expected, (flags, shallow, mask, difference(back, expected))
        assert ser.encode(back) == data, (flags, shallow, mask)
        absent = written(schema, value, shallow=shallow, mask=mask)
        if flags & FORBID_DELTA_ENCODE and absent != expected:
            with pytest.raises(EncodeError, match="has no value"):
                ser.encode(absent)


def collect(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """``n`` examples of ``strategy``, the same on every run (one batch for katsuba)."""
    found: list[Any] = []

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(example: Any) -> None:
        found.append(example)

    draw()
    return found


DIFFERENTIAL_CASES = 16


@functools.cache
def differential_cases() -> list[tuple[TypeList, KiObject]]:
    """The generated cases the katsuba tests share."""
    return collect(cases(), DIFFERENTIAL_CASES)


def test_katsuba_agrees_both_ways() -> None:
    requests: list[dict[str, Any]] = []
    checks = []
    for n, (types, value) in enumerate(differential_cases()):
        text = types.text()
        schema = load_schema(text)
        combos = [(flags, shallow, MASKS[(flags + n) % 2], False) for flags in range(32)
                  for shallow in (True, False)]
        combos += [(flags, shallow, MASKS[n % 2], True) for flags, shallow
                   in ((n % 32, True), ((7 * n + 9) % 32, False))]
        combos += [((3 * n) % 32, n % 2 == 0, mask, False) for mask in (0, 1)]
        for flags, shallow, mask, manual in combos:
            options = {"flags": flags, "shallow": shallow, "property_mask": mask,
                       "manual_compression": manual}
            expected = prepared(types, value, flags, shallow, mask)
            ours = Serializer(schema, flags=flags, shallow=shallow, property_mask=mask,
                              manual_compression=manual)
            mine = ours.encode(expected)
            requests += [{"kind": "serialize", "types": text, "options": options,
                          "values": [tagged(expected)]},
                         {"kind": "deserialize", "types": text, "options": options,
                          "blobs": [mine.hex()]}]
            ordered = not (flags & HUMAN_READABLE_ENUMS and named_bits(types, expected))
            checks.append((n, options, schema, ours, expected, mine, ordered))
    start = time.perf_counter()
    answers = run(requests)
    elapsed = time.perf_counter() - start
    assert len(checks) >= 60 * DIFFERENTIAL_CASES
    for i, (n, options, schema, ours, expected, mine, ordered) in enumerate(checks):
        [theirs], [their_view] = answers[2 * i], answers[2 * i + 1]
        where = (n, options)
        assert isinstance(theirs, str), (where, theirs)
        assert isinstance(their_view, dict) and "error" not in their_view, (where, their_view)
        view = from_katsuba(schema, their_view)
        assert view == expected, (where, difference(view, expected))
        their_bytes = bytes.fromhex(theirs)
        back = ours.decode(their_bytes)
        assert back == expected, (where, difference(back, expected))
        flags, manual = options["flags"], options["manual_compression"]
        mine_body, their_body = body(mine, flags, manual), body(their_bytes, flags, manual)
        if ordered:
            assert mine_body == their_body, where
            if not flags & 8 and not manual:
                assert mine == their_bytes, where
        else:
            assert len(mine_body) == len(their_body), where
    print(f"katsuba: {len(checks)} streams both ways in {elapsed:.1f} s")


def test_absent_delta_values_under_forbid_and_null_roots_are_refused_like_katsuba() -> None:
    """Streams written without FORBID_DELTA_ENCODE and read with it (katsuba's fixture
    ``should-fail/delta-encode-forbid-absent``), and null roots: errors in both readers,
    values in both where the stream has every delta value."""
    requests: list[dict[str, Any]] = []
    checks = []
    for types, value in differential_cases():
        text = types.text()
        schema = load_schema(text)
        for flags in (0, 2, 4, 8, 14):
            for shallow in (True, False):
                data = Serializer(schema, flags=flags, shallow=shallow).encode(
                    written(schema, value, shallow=shallow, mask=7))
                options = {"flags": flags | FORBID_DELTA_ENCODE, "shallow": shallow}
                requests.append({"kind": "deserialize", "types": text, "options": options,
                                 "blobs": [data.hex()]})
                checks.append((Serializer(schema, shallow=shallow, **{
                    "flags": options["flags"]}), data))
        for flags, shallow in ((0, True), (0, False), (1, False), (9, True)):
            null = flags.to_bytes(4, "little") if flags & 1 else b""
            null += b"\0" if flags & 8 else b""
            requests.append({"kind": "deserialize", "types": text, "blobs": [
                (null + bytes(4)).hex()], "options": {"flags": flags, "shallow": shallow}})
            checks.append((Serializer(schema, flags=flags, shallow=shallow),
                           null + bytes(4)))
    refused = 0
    for (ser, data), [theirs] in zip(checks, run(requests), strict=True):
        try:
            mine: Any = tagged(ser.decode(data))
        except DecodeError as e:
            mine = e
        if isinstance(mine, DecodeError):
            refused += 1
            assert "error" in theirs, (mine, theirs)
        else:
            assert from_katsuba(ser.schema, theirs) == ser.decode(data)
    assert refused >= 4 * DIFFERENTIAL_CASES


def nulled(value: Any, gone: set[int]) -> Any:
    """``value`` with the objects whose type hash is in ``gone`` read as null."""
    if isinstance(value, KiObject):
        if value.type_hash in gone:
            return None
        return KiObject(value.type_name, value.type_hash,
                        {k: nulled(v, gone) for k, v in value.items()})
    if isinstance(value, list):
        return [nulled(v, gone) for v in value]
    return value


def objects_in(value: Any) -> list[KiObject]:
    """Every object in ``value``, outermost first."""
    if isinstance(value, KiObject):
        return [value, *(o for v in value.values() for o in objects_in(v))]
    if isinstance(value, list):
        return [o for v in value for o in objects_in(v)]
    return []


def outermost(value: Any, name: str) -> int:
    """How many objects of class ``name`` ``value`` holds outside other ones of it."""
    if isinstance(value, KiObject):
        return 1 if value.type_name == name else sum(outermost(v, name)
                                                     for v in value.values())
    if isinstance(value, list):
        return sum(outermost(v, name) for v in value)
    return 0


def test_deep_data_with_unknown_classes_gives_the_known_parts() -> None:
    """The reader's type list lacks one class the data uses (not the root's): its objects
    read as null, everything else as written, and katsuba reads the same."""
    requests: list[dict[str, Any]] = []
    checks = []
    for n, (types, value) in enumerate(differential_cases()):
        flags, mask = (5 * n) % 32 & ~FORBID_DELTA_ENCODE, MASKS[n % 2]
        schema = load_schema(types.text())
        expected = written(schema, value, shallow=False, mask=mask)
        inner = {o.type_name for o in objects_in(expected)[1:]} - {expected.type_name}
        if not inner:
            continue
        gone = sorted(inner)[n % len(inner)]
        data = Serializer(schema, flags=flags, shallow=False, property_mask=mask).encode(
            expected)
        partial = types.text(without=frozenset({gone}))
        reader = Serializer(load_schema(partial), flags=flags, shallow=False,
                            property_mask=mask, skip_unknown_types=True)
        known = nulled(expected, {types.by_name(gone).hash})
        assert reader.decode(data) == known
        assert [kind for _, kind, _ in reader.skipped] == ["type"] * outermost(expected, gone)
        requests.append({"kind": "deserialize", "types": partial, "blobs": [data.hex()],
                         "options": {"flags": flags, "shallow": False, "property_mask": mask,
                                     "skip_unknown_types": True}})
        checks.append((load_schema(partial), known))
    assert len(checks) >= 6
    for (schema, known), [theirs] in zip(checks, run(requests), strict=True):
        assert from_katsuba(schema, theirs) == known


@PROPERTY
@given(cases(), st.data())
def test_deep_data_with_unknown_properties_gives_the_others(case: tuple[TypeList, KiObject],
                                                             data: st.DataObject) -> None:
    """A property the reader's class lacks is skipped by its record size and reported."""
    types, value = case
    schema = load_schema(types.text())
    expected = written(schema, value, shallow=False, mask=7)
    assume(expected)
    name = data.draw(st.sampled_from(sorted(expected)))
    stream = Serializer(schema, shallow=False).encode(expected)
    doc = json.loads(types.text())
    del doc["classes"][str(expected.type_hash)]["properties"][name]
    reader = Serializer(load_schema(json.dumps(doc)), shallow=False, skip_unknown_types=True)
    removed: list[str] = []
    assert reader.decode(stream) == without_property(expected, name, expected.type_hash,
                                                     removed)
    assert [kind for _, kind, _ in reader.skipped] == ["property"] * len(removed)


def without_property(value: Any, name: str, type_hash: int, removed: list[str]) -> Any:
    """``value`` without property ``name`` in the objects of class ``type_hash``, noting
    each one taken away in ``removed``."""
    if isinstance(value, KiObject):
        if value.type_hash == type_hash and name in value:
            removed.append(name)
        return KiObject(value.type_name, value.type_hash,
                        {k: without_property(v, name, type_hash, removed)
                         for k, v in value.items()
                         if k != name or value.type_hash != type_hash})
    if isinstance(value, list):
        return [without_property(v, name, type_hash, removed) for v in value]
    return value
