"""flatc's JSON dialect -> FlatBuffers, like ``flatc -b schema.fbs data.json``.

:func:`from_json` parses the document (see :mod:`~gameserde.flatbuffers._json_parse`) and
encodes it in document order with the rules of :mod:`~gameserde.flatbuffers.encoder`, whose
module docstring lists the flatc quirks replayed (the union tag and bare-identifier rules
only apply here). This module also holds the shapes a table value may take only in flatc's
JSON (an array of its fields' values, an :class:`~gameserde.flatbuffers._json_parse.Irregular`
object) and the look-ahead rule for bare identifiers.
"""

from __future__ import annotations

from typing import Any

from gameserde.errors import EncodeError
from gameserde.flatbuffers import _accel, _encoder_program
from gameserde.flatbuffers._encode_plans import (
    _K_FLOAT,
    _MISSING,
    _resolve_irregular,
    _TablePlan,
)
from gameserde.flatbuffers._encode_scalars import _err
from gameserde.flatbuffers._json_parse import Bare, Escaped, Irregular, parse_json
from gameserde.flatbuffers.schema import FbsSchema

__all__ = ["from_json"]

_SKIPPABLE = frozenset({"true", "false", "inf", "-inf", "+inf"})


def _bare_identifier(v: Any) -> str | None:
    """The first bare identifier token (other than true/false) inside a parsed JSON value."""
    if isinstance(v, Bare):
        if v in _SKIPPABLE or v[:1].isdigit() or v[:1] == ".":
            return None
        if v[:1] in "+-":
            return None if v[1:2].isdigit() or v[1:2] == "." else v[:1]
        return str(v)
    if isinstance(v, dict):
        for x in v.values():
            found = _bare_identifier(x)
            if found is not None:
                return found
    elif isinstance(v, list):
        for x in v:
            found = _bare_identifier(x)
            if found is not None:
                return found
    return None



def _json_table_value(plan: _TablePlan, value: Any) -> Any:
    """A table in flatc's JSON as a dict: flatc also takes an array of the fields' values in
    order (a null for a field that is no scalar is ignored there too), and an
    :class:`Irregular` object (:func:`_resolve_irregular`)."""
    if isinstance(value, list):
        out: dict[str, Any] = {}
        fields = plan.fields
        n = 0
        for v in value:
            if n == len(fields):
                raise _err("too many unnamed fields in nested array")
            f = fields[n]
            if v is None and f.kind > _K_FLOAT:
                continue  # ignored: the next value is for the same field
            out[f.name] = v
            n += 1
        if n != len(fields):
            raise _err("wrong number of unnamed fields in table vector")
        return out
    if isinstance(value, Irregular):
        return _resolve_irregular(value, plan.by_name)
    return value


def from_json(schema: FbsSchema, text: str | bytes, root_type: str | None = None, *,
              strict: bool = False, file_identifier: str | Any | None = _MISSING,
              size_prefixed: bool = False, force_defaults: bool = False,
              allow_non_utf8: bool = False) -> bytes:
    """Parse flatc's JSON dialect and encode it exactly as ``flatc -b schema.fbs data.json``.

    ``strict`` is ``--strict-json`` (quoted keys, no trailing commas). Parse errors raise
    :class:`~gameserde.errors.DecodeError` with line and column."""
    if (not force_defaults and _accel.ENABLED and _accel.json is not None
            and _accel.encoder is not None):
        data = _from_json_accelerated(schema, text, root_type, strict, file_identifier,
                                      size_prefixed)
        if data is not None:
            return data
    value = parse_json(text, strict=strict, allow_non_utf8=allow_non_utf8)
    if not isinstance(value, dict):
        raise EncodeError("the JSON document must be an object", format="flatbuffers")
    from gameserde.flatbuffers.encoder import _encode

    return _encode(schema, value, root_type, "flatc", file_identifier, size_prefixed,
                   force_defaults, True)


def _from_json_accelerated(schema: FbsSchema, text: str | bytes, root_type: str | None,
                           strict: bool, file_identifier: Any,
                           size_prefixed: bool) -> bytes | None:
    """:func:`from_json` by the C parser and the C encoder (with the JSON rules): the same
    bytes, or None when either gives up (the caller then runs the reference, which gives
    the bytes or the exact error)."""
    from gameserde.flatbuffers.encoder import _root

    value = _accel.json.parse(text, strict, Bare, Escaped)
    if value is None:
        return None
    try:
        plans, plan = _root(schema, root_type)
    except EncodeError:
        return None
    ident = schema.file_identifier if file_identifier is _MISSING else file_identifier
    return _encoder_program.encode(plans, plan, value, ident, size_prefixed, json=True)

