"""The C twin equals the reference on kigen's generated type lists and objects
(``strategies.cases``: every leaf type, enum spelling, container and object kind) under
generated options, and on mutations of their encodings: truncations, byte flips, and
inserted and deleted bytes. ``test_accel`` does the same on the fixed synthetic type list."""

from __future__ import annotations

from functools import partial

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gameserde.kingsisle import KiObject, Serializer, load_schema
from tests.kingsisle.strategies import MASKS, TypeList, cases
from tests.kingsisle.test_accel import both

SETTINGS = settings(max_examples=25, deadline=None,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(case=cases(), flags=st.integers(0, 31), shallow=st.booleans(),
       mask=st.sampled_from(MASKS), data=st.data())
def test_c_equals_the_reference_on_generated_cases(case: tuple[TypeList, KiObject], flags: int,
                                                   shallow: bool, mask: int,
                                                   data: st.DataObject) -> None:
    types, value = case
    schema = load_schema(types.text())
    ser = Serializer(schema, flags=flags, shallow=shallow, property_mask=mask)
    encoded = both(partial(ser.encode, value))
    if encoded[0] != "ok":
        return
    blob = ser.encode(value)
    both(partial(ser.decode, blob))
    for _ in range(8):
        at = data.draw(st.integers(0, len(blob)))
        mutated = data.draw(st.sampled_from([
            blob[:at],
            blob[:at] + bytes([data.draw(st.integers(0, 255))]) + blob[at + 1:],
            blob[:at] + bytes([data.draw(st.integers(0, 255))]) + blob[at:],
            blob[:at] + blob[at + 1:],
        ]))
        both(partial(ser.decode, mutated))
