"""docs/cli.md's option tables are the command line's own: regenerated from the parser, they
must be what the page holds (``python scripts/option_table.py --write`` updates the page)."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_option_tables_are_the_parser_s() -> None:
    script = runpy.run_path(str(ROOT / "scripts" / "option_table.py"))
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert script["replaced"](page) == page, "run: python scripts/option_table.py --write"
    for fmt in ("godot", "flatbuffers", "zeze", "kingsisle", "o3de"):
        assert f"### {fmt}\n" in page
    assert "| `--schema`, `-s`, `--types`, `-t` |" in page
    assert "| `--max-depth` | yes | yes | yes | yes | yes |" in page
