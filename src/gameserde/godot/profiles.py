"""Wire profiles: which type id means which Variant type, and what each engine generation does.

``godot4`` is Godot 4.4+ (typed Array and Dictionary headers, PackedVector4Array, the 64-bit
math flag of ``real_t=double`` builds). ``godot3`` is Godot 3.1+ (3.x numbering, pool arrays,
RID without payload). ``docs`` is the table of the published documentation page, which matches
neither engine past id 5; it exists to read and write data made by tools that followed the
docs, and it also follows the docs where they describe a layout differently from the engines
(column-major Basis and Transform3D, PackedStringArray strings without a NUL terminator,
a 16-bit type field).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gameserde.errors import UsageError
from gameserde.godot.types import VariantType as T

_COMMON_PREFIX = (
    T.NIL, T.BOOL, T.INT, T.FLOAT, T.STRING, T.VECTOR2, T.RECT2, T.VECTOR3, T.TRANSFORM2D,
    T.PLANE, T.QUATERNION, T.AABB, T.BASIS, T.TRANSFORM3D, T.COLOR, T.NODE_PATH, T.RID,
    T.OBJECT, T.DICTIONARY, T.ARRAY,
)


@dataclass(frozen=True)
class Profile:
    name: str
    by_id: tuple[T, ...]
    """Variant type of each wire id (the index); ids past the end are invalid."""
    type_mask: int
    """Mask that extracts the type id from the header."""
    typed_containers: bool
    """Header bits 16-19 of Array/Dictionary announce element/key/value types (4.3+/4.4+)."""
    math_flag64: bool
    """Header bit 16 on math types and vector arrays means 64-bit components (4.x)."""
    rid_payload: bool
    """RID carries a 64-bit id (4.x); otherwise it is a bare header."""
    basis_row_major: bool
    """Basis and Transform3D are written row by row (both engines); the docs say columns."""
    string_array_nul: bool
    """PackedStringArray elements carry a NUL inside their length (both engines)."""
    allow_surrogates: bool
    """Godot 3 accepts UTF-8 encoded surrogates (CESU) in strings; Godot 4 rejects them."""
    script_must_be_path: bool
    """A full Object's ``script`` property must be a String path (4.x) or is any value (3.x)."""
    wire_id: dict[T, int] = field(init=False, repr=False, compare=False)
    """The wire id of each Variant type the profile has."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "wire_id", {t: i for i, t in enumerate(self.by_id)})


GODOT4 = Profile(
    name="godot4",
    by_id=tuple(T),
    type_mask=0xFF,
    typed_containers=True,
    math_flag64=True,
    rid_payload=True,
    basis_row_major=True,
    string_array_nul=True,
    allow_surrogates=False,
    script_must_be_path=True,
)

GODOT3 = Profile(
    name="godot3",
    by_id=(
        *_COMMON_PREFIX, T.PACKED_BYTE_ARRAY, T.PACKED_INT32_ARRAY, T.PACKED_FLOAT32_ARRAY,
        T.PACKED_STRING_ARRAY, T.PACKED_VECTOR2_ARRAY, T.PACKED_VECTOR3_ARRAY,
        T.PACKED_COLOR_ARRAY,
    ),
    type_mask=0xFF,
    typed_containers=False,
    math_flag64=False,
    rid_payload=False,
    basis_row_major=True,
    string_array_nul=True,
    allow_surrogates=True,
    script_must_be_path=False,
)

DOCS = Profile(
    name="docs",
    by_id=(
        *_COMMON_PREFIX, T.PACKED_BYTE_ARRAY, T.PACKED_INT32_ARRAY, T.PACKED_INT64_ARRAY,
        T.PACKED_FLOAT32_ARRAY, T.PACKED_FLOAT64_ARRAY, T.PACKED_STRING_ARRAY,
        T.PACKED_VECTOR2_ARRAY, T.PACKED_VECTOR3_ARRAY, T.PACKED_COLOR_ARRAY,
    ),
    type_mask=0xFFFF,
    typed_containers=False,
    math_flag64=False,
    rid_payload=False,
    basis_row_major=False,
    string_array_nul=False,
    allow_surrogates=False,
    script_must_be_path=False,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (GODOT4, GODOT3, DOCS)}
"""The profiles by name: ``"godot4"`` (Godot 4.4+), ``"godot3"`` (Godot 3.1+) and ``"docs"``
(the published documentation's type table, which matches neither engine)."""


def get_profile(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        choices = ", ".join(PROFILES)
        raise UsageError(f"unknown Godot profile {name!r}; choose one of {choices}") from None


# Header flag bits.
FLAG_64 = 1 << 16
FLAG_OBJECT_AS_ID = 1 << 16
TYPED_ARRAY_SHIFT = 16
TYPED_KEY_SHIFT = 16
TYPED_VALUE_SHIFT = 18
KIND_NONE, KIND_BUILTIN, KIND_CLASS_NAME, KIND_SCRIPT = 0, 1, 2, 3
ENCODED_OBJECT_AS_ID = "EncodedObjectAsID"
MAX_DEPTH = 1024
MAX_DEPTH_LIMIT = 100_000
"""The largest ``max_depth`` accepted: deeper nesting would cost too much stack to unwind."""


def check_max_depth(max_depth: int) -> None:
    """Refuse (:class:`UsageError`) a ``max_depth`` that is not a whole number from 0 to
    :data:`MAX_DEPTH_LIMIT`."""
    from gameserde.formats import check_max_depth as check

    check(max_depth, MAX_DEPTH_LIMIT)
