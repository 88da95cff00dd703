"""One self-contained HTML page: the page's script and style, inline, and its payload.

Nothing from the data is markup: the payload is base64 text inside a
``<script type="application/json">`` element, which the page's own script decodes and shows
with text nodes only. The title (the input's name) is escaped. A Content-Security-Policy
allows only the page's own script and style (by their SHA-256), no network and no other
source, so even markup that got in could neither run nor load anything.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from html import escape
from importlib.resources import files

__all__ = ["render"]


@cache
def _asset(name: str) -> str:
    return files("gameserde._html").joinpath(name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def render(payload: bytes, *, title: str) -> str:
    """The page of one deflated payload."""
    script, style = _asset("map.js"), _asset("map.css")
    policy = (f"default-src 'none'; script-src '{_digest(script)}'; "
              f"style-src '{_digest(style)}'; img-src 'none'; base-uri 'none'; "
              "form-action 'none'")
    data = base64.b64encode(payload).decode("ascii")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{escape(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        "<noscript>This byte map needs JavaScript.</noscript>\n"
        f"<script type=\"application/json\" id=\"gs-payload\">{data}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n")
