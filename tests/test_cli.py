"""The ``gameserde`` command itself: ``--version`` and its accelerators, the exit statuses, and
no traceback on any path (unexpected exceptions, interruptions, a closed output pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gameserde.cli as cli
from gameserde import __version__
from gameserde.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAVEGAME = ROOT / "examples" / "godot" / "savegame.sav"
ALL_ACTIVE = ("(C accelerators: godot, flatbuffers-encoder, flatbuffers-reader, "
              "flatbuffers-json, flatbuffers-schema, zeze, kingsisle, o3de)")


def run_program(*args: str, pure: bool | None = None,
                stdout: Any = subprocess.PIPE) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.pop("GAMESERDE_PURE", None)
    if pure:
        env["GAMESERDE_PURE"] = "1"
    return subprocess.Popen([sys.executable, "-m", "gameserde", *args], env=env,
                            stdout=stdout, stderr=subprocess.PIPE)


def outcome(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, (out or b"").decode(), err.decode()


# ---------------------------------------------------------------------------------------------
# --version


def built() -> dict[str, bool]:
    """Which accelerators this install has (whatever GAMESERDE_PURE says)."""
    return {name: state != "not built" for name, state in cli.accelerator_states().items()}


def test_version_names_the_active_accelerators() -> None:
    code, out, err = outcome(run_program("--version", pure=False))
    assert code == 0 and err == ""
    if all(built().values()):
        assert out == f"gameserde {__version__} {ALL_ACTIVE}\n"
    else:  # an install without a compiler says so
        assert out.startswith(f"gameserde {__version__} (") and "not built" in out


def test_version_with_gameserde_pure() -> None:
    code, out, _ = outcome(run_program("--version", pure=True))
    assert code == 0
    if any(built().values()):
        assert out == (f"gameserde {__version__} "
                       "(pure Python: C accelerators disabled by GAMESERDE_PURE)\n")
    else:
        assert out == f"gameserde {__version__} (pure Python: no C accelerators built)\n"


@pytest.mark.parametrize(("states", "detail"), [
    (("active",) * 8, ALL_ACTIVE[1:-1]),
    (("disabled",) * 8, "pure Python: C accelerators disabled by GAMESERDE_PURE"),
    (("not built",) * 8, "pure Python: no C accelerators built"),
    (("disabled", "not built", "not built", "not built", "not built", "not built",
      "not built", "not built"), "pure Python: C accelerators disabled by GAMESERDE_PURE"),
    (("active", "not built", "not built", "not built", "not built", "not built", "not built",
      "not built"),
     "C accelerators: godot; not built: flatbuffers-encoder, flatbuffers-reader, "
     "flatbuffers-json, flatbuffers-schema, zeze, kingsisle, o3de"),
    (("active", "disabled", "not built", "active", "disabled", "active", "disabled",
      "active"),
     "C accelerators: godot, flatbuffers-json, zeze, o3de; disabled by GAMESERDE_PURE: "
     "flatbuffers-encoder, flatbuffers-schema, kingsisle; not built: flatbuffers-reader"),
])
def test_version_text(monkeypatch: pytest.MonkeyPatch, states: tuple[str, ...],
                      detail: str) -> None:
    monkeypatch.setattr(cli, "accelerator_states",
                        lambda: dict(zip(cli.ACCELERATORS, states, strict=True)))
    assert cli.version_text() == f"gameserde {__version__} ({detail})"


def test_accelerator_states_follow_the_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    from gameserde.flatbuffers import _accel as fb_accel
    from gameserde.godot import _accel as godot_accel
    from gameserde.kingsisle import _accel as ki_accel
    from gameserde.o3de import _accel as o3de_accel
    from gameserde.zeze import _accel as zeze_accel

    monkeypatch.setattr(godot_accel, "ENABLED", False)
    monkeypatch.setattr(fb_accel, "ENABLED", False)
    monkeypatch.setattr(zeze_accel, "ENABLED", False)
    monkeypatch.setattr(ki_accel, "ENABLED", False)
    monkeypatch.setattr(o3de_accel, "ENABLED", False)
    assert set(cli.accelerator_states().values()) <= {"disabled", "not built"}
    monkeypatch.setattr(godot_accel, "AVAILABLE", False)
    monkeypatch.setattr(fb_accel, "encoder", None)
    monkeypatch.setattr(fb_accel, "reader", None)
    monkeypatch.setattr(fb_accel, "json", None)
    monkeypatch.setattr(fb_accel, "lexer", None)
    monkeypatch.setattr(zeze_accel, "speedups", None)
    monkeypatch.setattr(ki_accel, "speedups", None)
    monkeypatch.setattr(o3de_accel, "speedups", None)
    assert set(cli.accelerator_states().values()) == {"not built"}


# ---------------------------------------------------------------------------------------------
# Exit statuses and no tracebacks


def test_help_documents_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "exit status:" in text
    for status in ("0", "1", "2", "3", "130", "141"):
        assert f"\n  {status} " in text, status


@pytest.mark.parametrize("verb", ["decode", "inspect"])
def test_unexpected_exception_is_one_line_and_status_3(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], verb: str) -> None:
    from gameserde.godot import GodotCodec

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("something\nnobody expected")

    monkeypatch.setattr(GodotCodec, {"decode": "to_json", "inspect": "inspect"}[verb], broken)
    assert main([verb, "godot", "--framing", "store_var", str(SAVEGAME)]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"gameserde: {SAVEGAME}: internal error: RuntimeError: something "
                            "nobody expected (please report)\n")


def test_interrupt_is_status_130(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from gameserde.godot import GodotCodec

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(GodotCodec, "to_json", interrupted)
    assert main(["decode", "godot", str(SAVEGAME)]) == 130
    assert capsys.readouterr().err == ""


def test_unreadable_output_is_status_2(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "save.json"
    assert main(["decode", "godot", "--framing", "store_var", str(SAVEGAME), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"gameserde: {out}: No such file or directory\n"


def test_closed_output_pipe_is_quiet(tmp_path: Path) -> None:
    from gameserde import godot

    big = tmp_path / "big.bin"
    big.write_bytes(godot.encode(list(range(100_000))))  # about 1 MB of JSON: more than a pipe
    proc = run_program("decode", "godot", str(big))
    assert proc.stdout is not None
    proc.stdout.close()  # the reader goes away before the output is written
    code, _, err = outcome(proc)
    assert (code, err) == (141, "")


# ---------------------------------------------------------------------------------------------
# Only the format a command names is imported


def imported_formats(*argv: str) -> set[str]:
    """The format packages ``gameserde ARGV`` imports, in a fresh interpreter."""
    code = ("import sys\nfrom gameserde.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "names = ('godot', 'flatbuffers', 'zeze', 'kingsisle', 'o3de')\n"
            "print(' '.join(n for n in names if 'gameserde.' + n in sys.modules),\n"
            "      file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=60)
    return set(proc.stderr.splitlines()[-1].split()) if proc.stderr.strip() else set()


def test_help_imports_no_format() -> None:
    assert imported_formats("--help") == set()
    assert imported_formats("decode", "--help") == set()


def test_a_command_imports_its_format_only() -> None:
    assert imported_formats("verify", "godot", "--framing", "store_var", str(SAVEGAME)) == {
        "godot"}
    assert imported_formats("decode", "o3de", "--help") == {"o3de"}
