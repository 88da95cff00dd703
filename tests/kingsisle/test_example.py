"""examples/kingsisle is what its script writes, and katsuba reads the example item as we do
and writes the same bytes for it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from gameserde.kingsisle import Serializer, load_schema
from tests.kingsisle.katsuba_oracle import run, tagged

HERE = Path(__file__).resolve().parents[2] / "examples" / "kingsisle"


def test_the_example_files_are_what_the_script_writes(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("make_example", HERE / "make_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_example", module)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    for name in ("types.json", "item.bin"):
        assert (tmp_path / name).read_bytes() == (HERE / name).read_bytes(), name


def test_katsuba_agrees_on_the_example_item() -> None:
    types = (HERE / "types.json").read_text(encoding="utf-8")
    data = (HERE / "item.bin").read_bytes()
    obj = Serializer(load_schema(types)).decode(data)
    options = {"flags": 0, "shallow": True, "property_mask": 7}
    decoded, encoded = run([
        {"kind": "deserialize", "types": types, "options": options, "blobs": [data.hex()]},
        {"kind": "serialize", "types": types, "options": options, "values": [tagged(obj)]}])
    assert decoded == [tagged(obj)]
    assert encoded == [data.hex()]
