"""FlatBuffers: ``.fbs`` schemas parsed at run time, exactly as ``flatc`` parses them, and a
builder byte-identical to the official runtimes (and, in ``flatc_compatible`` mode, to flatc).
"""

from gameserde.flatbuffers.builder import (
    Builder,
    BuilderError,
    BuilderNotFinishedError,
    BuilderSizeError,
    IsNestedError,
    IsNotNestedError,
    NumpyRequiredError,
    OffsetArithmeticError,
    StructIsNotInlineError,
)
from gameserde.flatbuffers.schema import FbsSchema, FbsSchemaError, StructLayout, load_schema

__all__ = [
    "Builder",
    "BuilderError",
    "BuilderNotFinishedError",
    "BuilderSizeError",
    "FbsSchema",
    "FbsSchemaError",
    "IsNestedError",
    "IsNotNestedError",
    "NumpyRequiredError",
    "OffsetArithmeticError",
    "StructIsNotInlineError",
    "StructLayout",
    "load_schema",
]
