"""Godot resource and scene files: binary ``.res``/``.scn`` (``RSRC``, and ``RSCC`` when
compressed) and text ``.tres``/``.tscn``, read into one model
(:mod:`gameserde.godot.resource.model`) and written back as the engine writes them."""
