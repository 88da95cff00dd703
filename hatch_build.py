"""Hatchling build hook: compile the optional C accelerators listed in ``EXTENSIONS``.

The package is pure Python; each extension only makes one codec faster (the Godot codec,
see ``src/gameserde/godot/_accel.py``; the Variants of Godot's binary resource files, see
``src/gameserde/godot/resource/_accel.py``; the FlatBuffers encoder and reader, see
``src/gameserde/flatbuffers/_accel.py``; the Zeze bean codec, see
``src/gameserde/zeze/_accel.py``; the KingsIsle serializer, see
``src/gameserde/kingsisle/_accel.py``). They are compiled with setuptools' ``build_ext``
and the compiler Python was built with:

* wheels (``pip install .``, ``python -m build``) get the modules force-included and a
  platform tag;
* editable installs (``pip install -e .``) get them next to their sources, where the
  editable path finds them (``*.so``/``*.pyd`` are git-ignored, so they never reach a wheel
  or sdist by accident).

When a compilation fails (no compiler, no Python headers) the hook prints a warning and the
build goes on without that module: gameserde then runs its pure-Python code for it. Set
``GAMESERDE_NO_EXTENSIONS=1`` to skip the compilation on purpose.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSIONS = (
    "gameserde.godot._speedups",
    "gameserde.godot.resource._speedups",
    "gameserde.flatbuffers._encoder_speedups",
    "gameserde.flatbuffers._reader_speedups",
    "gameserde.flatbuffers._json_speedups",
    "gameserde.flatbuffers._fbs_lexer_speedups",
    "gameserde.zeze._speedups",
    "gameserde.kingsisle._speedups",
    "gameserde.o3de._speedups",
)
"""Each module's C source is its dotted path under ``src/`` with ``.c``."""


def source_of(module: str) -> str:
    return "src/" + module.replace(".", "/") + ".c"


def compile_extension(root: Path, workdir: Path, module: str) -> Path:
    """Compile ``module`` under ``workdir``; return the path of the built module."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    ext = Extension(module, sources=[source_of(module)])
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
    built = Path(cmd.get_ext_fullpath(module))
    if not built.is_file():
        raise RuntimeError(f"the compiler reported success but {built} is missing")
    return built


class SpeedupsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if version == "editable":
            # A module left by an earlier build could be stale; rebuild it or go without.
            for module in EXTENSIONS:
                package_dir, name = self._place(root, module)
                for old in package_dir.glob(name + ".*"):
                    if old.suffix in (".so", ".pyd"):
                        old.unlink()
        if os.environ.get("GAMESERDE_NO_EXTENSIONS", "") not in ("", "0"):
            self._warn("GAMESERDE_NO_EXTENSIONS is set: building without the C accelerators")
            return
        self._workdir = Path(tempfile.mkdtemp(prefix="gameserde-build-"))
        for module in EXTENSIONS:
            if not (root / source_of(module)).is_file():
                continue
            try:
                built = compile_extension(root, self._workdir / module, module)
            except BaseException as e:  # distutils raises SystemExit for some failures
                if isinstance(e, KeyboardInterrupt):
                    raise
                self._warn(f"could not compile the C accelerator {module} "
                           f"({type(e).__name__}: {e}); gameserde will use pure Python there")
                continue
            package_dir, _ = self._place(root, module)
            if version == "editable":
                shutil.copy2(built, package_dir / built.name)
            else:
                target = package_dir.relative_to(root / "src") / built.name
                build_data["force_include"][str(built)] = target.as_posix()
                build_data["pure_python"] = False
                build_data["infer_tag"] = True

    @staticmethod
    def _place(root: Path, module: str) -> tuple[Path, str]:
        """The package folder of ``module`` and its bare name."""
        package, _, name = module.rpartition(".")
        return root / "src" / package.replace(".", "/"), name

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        workdir = getattr(self, "_workdir", None)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)

    def _warn(self, message: str) -> None:
        self.app.display_warning(f"gameserde: {message}")
