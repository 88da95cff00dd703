"""A small, safe XML reader for solution files: elements with attributes and line numbers.

Built on :mod:`xml.parsers.expat` (ElementTree keeps no line numbers). Documents from
untrusted sources are safe to read: a document type declaration (``<!DOCTYPE``), and with it
every entity definition, is refused before expat acts on it, so no entity is ever expanded and
nothing outside the text is fetched; the five predefined entities and character references
still work. Text and comments are ignored. The work is linear in the size of the text and
elements may nest at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from gameserde.errors import SchemaError

MAX_DEPTH = 64
"""The deepest element nesting accepted (solution files need about five levels per module)."""


@dataclass
class Node:
    """An element: its tag, attributes (in document order), child elements and line."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)


class _Refused(Exception):
    """Raised inside an expat handler to stop the parse."""


def parse(data: str | bytes, filename: str) -> Node:
    """The root element of ``data``; :class:`SchemaError` naming ``filename:line`` when it is
    not well-formed XML, declares a document type or nests too deep."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Node] = []
    roots: list[Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = Node(tag, attrs, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
        else:
            roots.append(node)
        if len(stack) >= MAX_DEPTH:
            raise _Refused(f"elements nest deeper than {MAX_DEPTH} levels")
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    def doctype(*args: object) -> None:
        raise _Refused("a document type declaration (<!DOCTYPE ...>) is not allowed "
                       "in a solution file")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    try:
        parser.Parse(data, True)
    except _Refused as e:
        raise SchemaError(f"{filename}:{parser.CurrentLineNumber}: {e}") from None
    except expat.ExpatError as e:
        reason = expat.ErrorString(e.code) if e.code is not None else str(e)
        raise SchemaError(f"{filename}:{e.lineno}: the file is not well-formed XML "
                          f"({reason}, column {e.offset + 1})") from None
    except (ValueError, LookupError) as e:  # lone surrogates, an encoding Python lacks ...
        raise SchemaError(f"{filename}:1: the file cannot be read as XML ({e})") from None
    return roots[0]
