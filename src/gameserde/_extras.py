"""Optional dependencies: each is imported where it is needed, never by the core, and a
missing one is a one-line :class:`~gameserde.errors.UsageError` naming the extra that adds it
(``pip install 'gameserde[parquet]'``)."""

from __future__ import annotations

import importlib
from types import ModuleType

from gameserde.errors import UsageError

__all__ = ["require"]

EXTRAS = {
    "pyarrow": "parquet",
    "pyarrow.parquet": "parquet",
    "dask": "dask",
    "dask.bag": "dask",
    "dask.dataframe": "dask",
    "distributed": "dask",
    "pandas": "dask",
    "backports.zstd": "zstd",
}
"""Each optional module, and the extra of ``pyproject.toml`` that installs it."""


def require(module: str, purpose: str) -> ModuleType:
    """``module`` imported, or a :class:`UsageError` saying that ``purpose`` needs the
    extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRAS[module]
        raise UsageError(f"{purpose} needs {module.split('.')[0]}: "
                         f"pip install 'gameserde[{extra}]'") from None
