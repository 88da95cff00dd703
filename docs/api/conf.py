"""Sphinx configuration of gameserde's API reference (built from the docstrings by the test
command, warnings as errors: ``tests/test_api_docs.py``)."""

project = "gameserde"
extensions = ["sphinx.ext.autodoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
exclude_patterns = ["_build"]
html_theme = "basic"
suppress_warnings: list[str] = []
