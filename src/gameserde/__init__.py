"""gameserde: game-engine serialization formats, byte-exact with the engines.

``gameserde.codec(format, **options)`` builds the codec of one of the formats that
``gameserde.formats.FORMATS`` names; every codec has the interface of
:class:`gameserde.codecs.Codec`. The formats' own modules (``gameserde.godot``, ...) are
imported only when used.
"""

from gameserde.codecs import ByteMap, Codec, codec
from gameserde.errors import (
    DecodeError,
    EncodeError,
    GameserdeError,
    GameserdeWarning,
    SchemaError,
    UsageError,
)

__version__ = "0.1.0"

__all__ = ["ByteMap", "Codec", "DecodeError", "EncodeError", "GameserdeError",
           "GameserdeWarning", "SchemaError", "UsageError", "__version__", "codec"]
