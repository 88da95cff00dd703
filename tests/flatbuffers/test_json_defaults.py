"""``to_json(defaults=True)`` prints absent fields' defaults as ``flatc --defaults-json`` does.

flatc prints an absent ``float`` field's default through the field's type: the schema's
``98.6`` is the float32 98.59999847..., printed ``98.599998`` (doubles keep 12 decimals).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gameserde.flatbuffers import load_schema

SCHEMA = """
enum E : byte { A, B }
table T {
  f1:float = 98.6; f2:float = 0.1; f3:float = 1e-7; f4:float = 3.4e38; f5:float = 16777217;
  f6:float = -0.3; f7:float = nan; f8:float = -inf; f9:float = 123456789.123;
  f10:float = 0.000001; f11:float = 1e-45; f12:float = 1e38;
  d1:double = 98.6; d2:double = 0.1; d3:double = 1e-7; d4:double = 0.333333333333333333;
  d5:double = 1e300; d6:double = 16777217.5;
  o1:float = null; o2:double = null; i:int = 7; e:E = B; b:bool = true;
}
root_type T;
"""


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "nonstrict"])
def test_defaults_json_as_flatc(flatc: str, tmp_path: Path, strict: bool) -> None:
    (tmp_path / "s.fbs").write_text(SCHEMA, encoding="utf-8")
    (tmp_path / "d.json").write_text("{}", encoding="utf-8")
    subprocess.run([flatc, "-b", "s.fbs", "d.json"], cwd=tmp_path, check=True)
    subprocess.run([flatc, "--json", *(("--strict-json",) if strict else ()), "--defaults-json",
                    "--raw-binary", "-o", "out", "s.fbs", "--", "d.bin"], cwd=tmp_path,
                   check=True)
    expected = (tmp_path / "out" / "d.json").read_text(encoding="utf-8")
    assert "98.599998" in expected
    schema = load_schema(SCHEMA)
    buf = (tmp_path / "d.bin").read_bytes()
    assert schema.to_json(buf, defaults=True, strict=strict) == expected
