"""Godot Variant binary serialization: ``var_to_bytes``/``bytes_to_var`` and their framings.

``encode``/``decode`` make and read exactly the bytes the engine does; ``profile`` picks the
engine generation (``"godot4"``, the default: Godot 4.4+; ``"godot3"``: Godot 3.1+) or the
published documentation's table (``"docs"``). ``to_json``/``from_json`` give the JSON text
(Godot 4.4's ``JSON.from_native`` convention, or the ``plain`` mode for editing by hand) and
``to_jsonable``/``from_jsonable`` the same as JSON values; ``store_var``/``get_var``/
``iter_vars``, ``put_packet``/``iter_packets`` and ``variant_to_base64``/``base64_to_variant``
add the engine's framings, and ``verify`` checks a file in any of them.

``codec(profile=..., framing=..., ...)`` gives a :class:`GodotCodec`, gameserde's codec
interface (decode, encode, to_json, from_json, verify, inspect, convert) for one framing and
profile, with the command line's options as keywords (``gameserde.codec("godot", ...)``
builds the same).
"""

from gameserde.godot.decoder import decode, decode_prefix
from gameserde.godot.encoder import encode
from gameserde.godot.framing import (
    FRAMINGS,
    PACKET_PEER_STREAM_MAX,
    base64_to_variant,
    get_var,
    iter_packets,
    iter_vars,
    put_packet,
    store_var,
    variant_to_base64,
    verify,
)
from gameserde.godot.interface import GodotCodec, codec
from gameserde.godot.jsonview import from_json, from_jsonable, to_json, to_jsonable
from gameserde.godot.profiles import PROFILES, Profile
from gameserde.godot.types import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerType,
    Dictionary,
    EncodedObjectAsID,
    NodePath,
    Object,
    PackedArray,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    TypedDictionary,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)

__all__ = [
    "AABB", "FRAMINGS", "PACKET_PEER_STREAM_MAX", "PROFILES", "RID", "Basis", "Callable",
    "Color", "ContainerType", "Dictionary", "EncodedObjectAsID", "GodotCodec", "NodePath",
    "Object", "PackedArray", "PackedColorArray", "PackedFloat32Array", "PackedFloat64Array",
    "PackedInt32Array", "PackedInt64Array", "PackedStringArray", "PackedVector2Array",
    "PackedVector3Array", "PackedVector4Array", "Plane", "Profile", "Projection", "Quaternion",
    "Rect2", "Rect2i", "Signal", "StringName", "Transform2D", "Transform3D", "TypedArray",
    "TypedDictionary", "VariantType", "Vector2", "Vector2i", "Vector3", "Vector3i", "Vector4",
    "Vector4i", "base64_to_variant", "codec", "decode", "decode_prefix", "encode", "from_json",
    "from_jsonable", "get_var", "iter_packets", "iter_vars", "put_packet", "store_var",
    "to_json", "to_jsonable", "variant_to_base64", "verify",
]
