"""The region model of :func:`gameserde.flatbuffers.inspect.annotate`: flatc's
``BinaryRegionType`` and ``BinaryRegionStatus`` values and its ``BinarySection``,
``BinaryRegion`` and ``BinaryRegionComment`` (``src/binary_annotator.h``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gameserde._bytemap import Path

_U64 = (1 << 64) - 1

# -- region types (BinaryRegionType, by their printed names) ------------------------------------

UNKNOWN = "?uint8_t"
UOFFSET = "UOffset32"
UOFFSET64 = "UOffset64"
SOFFSET = "SOffset32"
VOFFSET = "VOffset16"
CHAR = "char"
UINT8 = "uint8_t"
UINT16 = "uint16_t"
UINT32 = "uint32_t"
UINT64 = "uint64_t"
INT16 = "int16_t"
INT64 = "int64_t"
FLOAT = "float"
DOUBLE = "double"
UTYPE = "UType8"

_FORMATS: dict[str, str] = {
    UOFFSET: "<I", UOFFSET64: "<Q", SOFFSET: "<i", VOFFSET: "<H", CHAR: "<b", UINT8: "<B",
    UINT16: "<H", UINT32: "<I", UINT64: "<Q", INT16: "<h", INT64: "<q", FLOAT: "<f",
    DOUBLE: "<d", UTYPE: "<B",
}
_OFFSETS = (UOFFSET, UOFFSET64, SOFFSET)

# -- statuses (BinaryRegionStatus) ---------------------------------------------------------------

OK = 0
WARN_NO_REFERENCES = 101
WARN_CORRUPTED_PADDING = 102
WARN_PADDING_LENGTH = 103
ERROR = 200
ERROR_OFFSET_OUT_OF_BINARY = 201
ERROR_INCOMPLETE_BINARY = 202
ERROR_LENGTH_TOO_LONG = 203
ERROR_LENGTH_TOO_SHORT = 204
ERROR_REQUIRED_FIELD_NOT_PRESENT = 205
ERROR_INVALID_UNION_TYPE = 206
ERROR_CYCLE_DETECTED = 207


@dataclass
class _Comment:
    kind: str = "unknown"
    name: str = ""
    default_value: str = ""
    index: int = 0
    status: int = OK
    status_message: str = ""

    def error(self, status: int, message: str = "") -> None:
        self.status = status
        self.status_message = message


@dataclass
class _Region:
    offset: int
    length: int
    type: str
    array_length: int = 0
    points_to: int = 0
    comment: _Comment = field(default_factory=_Comment)
    where: Path | None = None
    """The value the region holds, as paths in error messages (``$.weapons[1].name``); None
    for bytes nothing refers to."""


@dataclass
class _Section:
    name: str
    type: str
    regions: list[_Region]
