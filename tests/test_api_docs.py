"""The API reference (``docs/api``) builds from the docstrings with Sphinx, warnings as errors,
and documents every public name of the codec interface and of the five formats."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from sphinx.pycode import ModuleAnalyzer

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_MODULES = ("gameserde", "gameserde.codecs", "gameserde.formats", "gameserde.errors",
                  "gameserde.batch", "gameserde.batch.parquet", "gameserde.dask",
                  "gameserde.godot", "gameserde.godot.resource", "gameserde.flatbuffers",
                  "gameserde.zeze",
                  "gameserde.kingsisle", "gameserde.o3de")


def inventory(path: Path) -> set[str]:
    """The object names of a Sphinx ``objects.inv``."""
    raw = path.read_bytes()
    body = raw.split(b"\n", 4)[4]
    names = set()
    for line in zlib.decompress(body).decode().splitlines():
        names.add(line.split(" ", 1)[0])
    return names


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    out = tmp_path_factory.mktemp("api")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b",
                           "html", str(ROOT / "docs" / "api"), str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return inventory(out / "objects.inv")


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_is_documented(built: set[str], module_name: str) -> None:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    assert names, f"{module_name} declares its public names in __all__"
    missing, undocumented = [], []
    for name in names:
        if name == "__version__":
            continue
        obj = getattr(module, name)
        places = {f"{module_name}.{name}"}
        if inspect.isclass(obj) or inspect.isfunction(obj):
            places.add(f"{obj.__module__}.{obj.__qualname__}")
            if not inspect.getdoc(obj):
                undocumented.append(name)
        if places & built:
            continue
        defined = [entry for entry in built  # constants: documented where they are defined
                   if entry.startswith(module_name + ".") and entry.endswith("." + name)]
        if not defined:
            missing.append(name)
        elif ("", name) not in ModuleAnalyzer.for_module(
                defined[0].rsplit(".", 1)[0]).find_attr_docs():
            undocumented.append(name)
    assert not missing, f"{module_name}: not in the API reference: {missing}"
    assert not undocumented, f"{module_name}: no docstring: {undocumented}"
