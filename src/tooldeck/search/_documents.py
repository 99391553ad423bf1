"""A tool as a search document: its terms in each field of `FIELDS` (its name, its
description, its parameters), counted once when the tool is indexed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._tokens import counted, name_counted

if TYPE_CHECKING:
    from tooldeck._tool import Tool

__all__ = ["Doc", "fields_of"]

_ENUM_VALUES = 50  # a country list is words enough; 10,000 codes are noise


class Doc:
    """One indexed tool: the tool, its term counts per field, and its field lengths."""

    __slots__ = ("counts", "lengths", "tool")

    def __init__(self, tool: Tool[..., Any]) -> None:
        self.tool = tool
        (c0, l0), (c1, l1), (c2, l2) = fields_of(tool)
        self.lengths = (l0, l1, l2)
        self.counts = (c0, c1, c2)  # per field: term → count

    def terms(self) -> set[str]:
        return set().union(*self.counts)


def fields_of(tool: Tool[..., Any]) -> tuple[tuple[dict[str, int], int], ...]:
    """A tool's terms per field of `FIELDS`, each field's counts and number of terms:
    its name's, its description's, and its parameters' (their names, descriptions and
    allowed values, ``enum``, at most `_ENUM_VALUES` of each, from the top level of its
    JSON Schema)."""
    texts: list[str] = []
    properties = tool.spec.parameters.get("properties")
    if isinstance(properties, dict):
        for key, schema in properties.items():
            texts.append(str(key))
            if isinstance(schema, dict):
                if isinstance(schema.get("description"), str):
                    texts.append(schema["description"])
                if isinstance(schema.get("enum"), list):  # "Wars", "celsius": what users say
                    texts.extend(str(value) for value in schema["enum"][:_ENUM_VALUES])
    return (
        name_counted(tool.name),
        counted(tool.spec.description or ""),
        counted(" ".join(texts)),
    )
