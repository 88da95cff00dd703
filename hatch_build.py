"""Hatchling build hook: compile the optional C accelerator ``gameserde.godot._speedups``.

The package is pure Python; the extension only makes the Godot codec faster (see
``src/gameserde/godot/_accel.py``). It is compiled with setuptools' ``build_ext`` and the
compiler Python was built with:

* wheels (``pip install .``, ``python -m build``) get the module force-included and a
  platform tag;
* editable installs (``pip install -e .``) get it next to its source, in
  ``src/gameserde/godot/``, where the editable path finds it (``*.so``/``*.pyd`` are
  git-ignored, so they never reach a wheel or sdist by accident).

When compilation fails (no compiler, no Python headers) the hook prints a warning and the
build goes on without the module: gameserde then runs its pure-Python codec. Set
``GAMESERDE_NO_EXTENSIONS=1`` to skip the compilation on purpose.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODULE = "gameserde.godot._speedups"
SOURCE = "src/gameserde/godot/_speedups.c"
PACKAGE_DIR = "src/gameserde/godot"


def compile_extension(root: Path, workdir: Path) -> Path:
    """Compile the extension under ``workdir``; return the path of the built module."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    ext = Extension(MODULE, sources=[SOURCE])
    dist = Distribution({"name": "gameserde-speedups", "ext_modules": [ext]})
    cmd = build_ext(dist)
    cmd.build_lib = str(workdir / "lib")
    cmd.build_temp = str(workdir / "temp")
    cmd.ensure_finalized()
    cwd = os.getcwd()
    os.chdir(root)  # setuptools wants source paths relative to the project
    try:
        cmd.run()
    finally:
        os.chdir(cwd)
    built = Path(cmd.get_ext_fullpath(MODULE))
    if not built.is_file():
        raise RuntimeError(f"the compiler reported success but {built} is missing")
    return built


class SpeedupsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        package_dir = root / PACKAGE_DIR
        if version == "editable":
            # A module left by an earlier build could be stale; rebuild it or go without.
            for old in package_dir.glob("_speedups.*"):
                if old.suffix in (".so", ".pyd"):
                    old.unlink()
        if os.environ.get("GAMESERDE_NO_EXTENSIONS", "") not in ("", "0"):
            self._warn("GAMESERDE_NO_EXTENSIONS is set: building without the C accelerator")
            return
        self._workdir = Path(tempfile.mkdtemp(prefix="gameserde-build-"))
        try:
            built = compile_extension(root, self._workdir)
        except BaseException as e:  # distutils raises SystemExit for some failures
            if isinstance(e, KeyboardInterrupt):
                raise
            self._warn(f"could not compile the C accelerator ({type(e).__name__}: {e}); "
                       "gameserde will use its pure-Python codec")
            return
        if version == "editable":
            shutil.copy2(built, package_dir / built.name)
        else:
            build_data["force_include"][str(built)] = f"gameserde/godot/{built.name}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        workdir = getattr(self, "_workdir", None)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)

    def _warn(self, message: str) -> None:
        self.app.display_warning(f"gameserde: {message}")
