"""Every example in README.md and docs/*.md runs as written.

Fenced code blocks are run in document order, per file, in a fresh folder holding a copy of
``examples/`` (so ``examples/godot/savegame.sav`` is found as it is from the project root, and
files the examples write stay there). Every file an example writes must be under ``out/``,
which git ignores, so that following the docs in a checkout leaves nothing untracked:

- ```` ```python ```` blocks are executed, all blocks of a file in one namespace, so a snippet
  may use what an earlier one defined;
- ```` ```sh ```` blocks are run line by line with bash (a line ending in ``\\`` continues on
  the next); each command must exit with status 0. ``gameserde`` and ``python3`` are the ones
  of the interpreter running the tests (its ``bin`` folder comes first on ``PATH``);
- blocks without a language, or marked ```` ```text ````, are illustrative (program output,
  usage synopses, error messages) and are not run. Keep them rare: an example a reader could
  type belongs in a ``python`` or ``sh`` block. Other shell or Python spellings (``bash``,
  ``console``, ``py`` ...) are refused, so that no example is left out unnoticed.

The only commands not run are the README's set-up commands in :data:`SETUP_COMMANDS`: the
tests run inside the environment they make. A line ``SETUP && REST`` runs ``REST``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

RUN = ("python", "sh")
NOT_RUN_SPELLINGS = ("bash", "shell", "console", "shell-session", "zsh", "py", "python3",
                     "pycon", "ipython")

SETUP_COMMANDS = {
    "python3 -m pip install .": "the tests run with gameserde installed",
    "bash scripts/test.sh": "the command that runs these tests",
}

FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    language: str
    line: int  # line number of the first line of the block's content (1-based)
    lines: list[str]


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order."""
    found: list[Block] = []
    current: Block | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if current is None:
            m = FENCE.match(line)
            if m:
                current = Block(m.group(1).lower(), number + 1, [])
        elif line.startswith("```"):
            found.append(current)
            current = None
        else:
            current.lines.append(line)
    assert current is None, f"a code block opened at line {current.line - 1} is not closed"
    return found


def commands(block: Block) -> list[tuple[int, str]]:
    """The commands of an ``sh`` block with their line numbers, continuation lines joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for offset, line in enumerate(block.lines):
        if pending is not None:
            start, text = pending
            line = text + line
        else:
            start = block.line + offset
        if line.endswith("\\"):
            pending = (start, line[:-1])
            continue
        pending = None
        if line.strip() and not line.lstrip().startswith("#"):
            out.append((start, line))
    assert pending is None, f"line {pending[0]}: the command continues past the block's end"
    return out


def without_setup(command: str) -> str:
    """``command`` without a leading set-up command (:data:`SETUP_COMMANDS`)."""
    parts = command.split(" && ")
    while parts and parts[0].strip() in SETUP_COMMANDS:
        parts.pop(0)
    return " && ".join(parts)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_document(path: Path, workdir: Path) -> None:
    name = path.relative_to(ROOT).as_posix()
    module = types.ModuleType(f"docs_{path.stem.lower()}")
    module.__file__ = str(workdir / f"{path.name}.py")
    sys.modules[module.__name__] = module
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}
    try:
        for block in blocks(path.read_text(encoding="utf-8")):
            if block.language == "python":
                # Blank lines in front keep the Markdown file's line numbers in tracebacks.
                source = "\n" * (block.line - 1) + "\n".join(block.lines) + "\n"
                exec(compile(source, name, "exec"), module.__dict__)
            elif block.language == "sh":
                for number, command in commands(block):
                    command = without_setup(command)
                    if not command:
                        continue
                    proc = subprocess.run(["bash", "-c", command], cwd=workdir, env=env,
                                          capture_output=True, text=True, timeout=120)
                    assert proc.returncode == 0, (
                        f"{name}:{number}: `{command}` exited with status {proc.returncode}\n"
                        f"{proc.stderr[-2000:]}")
    finally:
        del sys.modules[module.__name__]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_examples_run_as_written(path: Path, workdir: Path) -> None:
    before = {p for p in workdir.rglob("*") if p.is_file()}
    run_document(path, workdir)
    written = {p.relative_to(workdir).as_posix() for p in workdir.rglob("*")
               if p.is_file() and p not in before and "__pycache__" not in p.parts}
    # Run in a checkout, the examples must leave nothing git would show: only out/ (ignored).
    assert not {w for w in written if not w.startswith("out/")}, sorted(written)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_example_block_is_run_or_marked_illustrative(path: Path) -> None:
    for block in blocks(path.read_text(encoding="utf-8")):
        assert block.language not in NOT_RUN_SPELLINGS, (
            f"{path.name}:{block.line - 1}: write ```python or ```sh (run by this test) or "
            f"```text (illustrative), not ```{block.language}")


def test_setup_commands_are_the_readme_s_first_block() -> None:
    first = blocks((ROOT / "README.md").read_text(encoding="utf-8"))[0]
    assert first.language == "sh"
    used = {part.strip() for _, command in commands(first) for part in command.split(" && ")}
    assert set(SETUP_COMMANDS) <= used
    assert [without_setup(c) for _, c in commands(first)] == [
        "python3 -m gameserde decode godot --framing store_var examples/godot/savegame.sav", ""]


def test_harness_reads_blocks_and_commands() -> None:
    text = "x\n```sh\na \\\n  b\n# note\n\nc && d\n```\n```text\nout\n```\n```\nsyn\n```\n"
    found = blocks(text)
    assert [(b.language, b.line, b.lines) for b in found] == [
        ("sh", 3, ["a \\", "  b", "# note", "", "c && d"]), ("text", 10, ["out"]),
        ("", 13, ["syn"])]
    assert commands(found[0]) == [(3, "a   b"), (7, "c && d")]
    assert without_setup("python3 -m pip install . && gameserde --help") == "gameserde --help"
    assert without_setup("bash scripts/test.sh") == ""
