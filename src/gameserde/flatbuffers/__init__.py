"""FlatBuffers from ``.fbs`` schemas parsed at run time (no code generation).

``load_schema`` parses exactly as ``flatc`` 25 does (and takes a schema declared in Python,
``load_schema(schema_of(Monster))``, rendered by ``to_fbs``); ``encode``/``from_json`` write
the bytes ``flatc -b`` writes; ``view`` reads lazily without copying, ``decode`` materialises,
``to_json`` prints what ``flatc --json`` prints; ``verify`` checks a buffer as the official
generated C++ verifier does; ``load_schema`` also reads binary schemas (``.bfbs``) and
``to_bfbs`` writes them as ``flatc -b --schema`` does; ``Builder`` is byte-identical to the
official runtimes. Each codec is also a method of the schema (``schema.encode(value)``,
``schema.view(buf)`` ...).

``schema.codec("Monster", ...)`` (or ``codec(schema, type=..., ...)``, or
``gameserde.codec("flatbuffers", schema="monster.fbs", ...)``) gives a
:class:`FlatBuffersCodec`, gameserde's codec interface (decode, encode, to_json, from_json,
verify, inspect, convert) for one root table, with the command line's options as keywords.
"""

from gameserde.flatbuffers.bfbs import BfbsError, load_bfbs, to_bfbs
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
from gameserde.flatbuffers.decoder import decode
from gameserde.flatbuffers.encoder import encode
from gameserde.flatbuffers.interface import FlatBuffersCodec, codec
from gameserde.flatbuffers.json_input import from_json
from gameserde.flatbuffers.json_output import to_json
from gameserde.flatbuffers.render import from_model, to_fbs
from gameserde.flatbuffers.schema import (
    FbsSchema,
    FbsSchemaError,
    SchemaFileError,
    StructLayout,
    UnknownTypeError,
    load_schema,
)
from gameserde.flatbuffers.verifier import verify
from gameserde.flatbuffers.views import view

__all__ = [
    "BfbsError",
    "Builder",
    "BuilderError",
    "BuilderNotFinishedError",
    "BuilderSizeError",
    "FbsSchema",
    "FbsSchemaError",
    "FlatBuffersCodec",
    "IsNestedError",
    "IsNotNestedError",
    "NumpyRequiredError",
    "OffsetArithmeticError",
    "SchemaFileError",
    "StructIsNotInlineError",
    "StructLayout",
    "UnknownTypeError",
    "codec",
    "decode",
    "encode",
    "from_json",
    "from_model",
    "load_bfbs",
    "load_schema",
    "to_bfbs",
    "to_fbs",
    "to_json",
    "verify",
    "view",
]
