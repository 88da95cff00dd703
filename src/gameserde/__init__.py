"""gameserde: game-engine serialization formats, byte-exact with the engines."""

from gameserde.errors import DecodeError, EncodeError, GameserdeError, SchemaError

__version__ = "0.1.0"

__all__ = ["DecodeError", "EncodeError", "GameserdeError", "SchemaError", "__version__"]
