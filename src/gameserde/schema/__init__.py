"""The shared type model of the schema-driven formats, and its Python front.

See :mod:`gameserde.schema.model` for the model and :mod:`gameserde.schema.python` for
declaring schemas as dataclasses.
"""

from gameserde.schema.model import (
    BOOL,
    BYTES,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    STRING,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    Bool,
    Bytes,
    Enum,
    Field,
    Float,
    Int,
    List,
    Map,
    Named,
    Optional,
    Record,
    Ref,
    Schema,
    Set,
    String,
    Type,
    Union,
)
from gameserde.schema.python import schema_of

__all__ = [
    "BOOL", "BYTES", "FLOAT32", "FLOAT64", "INT8", "INT16", "INT32", "INT64", "STRING", "UINT8",
    "UINT16", "UINT32", "UINT64", "Bool", "Bytes", "Enum", "Field", "Float", "Int", "List",
    "Map", "Named", "Optional", "Record", "Ref", "Schema", "Set", "String", "Type", "Union",
    "schema_of",
]
