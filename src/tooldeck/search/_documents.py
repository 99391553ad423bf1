"""A tool as a search document: its terms in each field of `FIELDS` (its name, its
description, its parameters), counted once when the tool is indexed, and its BM25F
weight under each term, posted into the index (`Doc.post`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._rank import FIELDS, K1
from ._tokens import counted, name_counted

if TYPE_CHECKING:
    from collections import defaultdict

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

    def post(self, postings: defaultdict[str, dict[str, float]], at: tuple[float, ...]) -> None:
        """Post this tool's weight under each of its terms (``postings``: term → tool
        name → weight), against the fields' average lengths ``at``.

        `norms`' factors and BM25F's sum, written out for the three fields (this runs
        for every tool of a build): each field's terms found in no earlier field are
        posted as they are read, with one weight for all those counted once (most),
        and a term in several fields by its counts summed in field order, so the floats
        are those of `norms` (`tests/unit/test_search_build.py`)."""
        name = self.tool.name
        (_, w0, b0), (_, w1, b1), (_, w2, b2) = FIELDS
        a0, a1, a2 = (average or 1.0 for average in at)
        l0, l1, l2 = self.lengths
        c0, c1, c2 = self.counts
        f0 = w0 / (1.0 - b0 + b0 * l0 / a0)
        f1 = w1 / (1.0 - b1 + b1 * l1 / a1)
        f2 = w2 / (1.0 - b2 + b2 * l2 / a2)
        once = f2 / (K1 + f2)
        for term, count in c2.items():  # the parameters' terms in them alone
            if term in c1 or term in c0:
                continue
            if count == 1:
                postings[term][name] = once
            else:
                total = count * f2
                postings[term][name] = total / (K1 + total)
        once = f1 / (K1 + f1)
        in_params = c2.get
        for term, count in c1.items():  # the description's not in the name
            if term in c0:
                continue
            more = in_params(term)
            if more is None:
                if count == 1:
                    postings[term][name] = once
                    continue
                total = count * f1
            else:
                total = count * f1 + more * f2
            postings[term][name] = total / (K1 + total)
        in_description = c1.get
        for term, count in c0.items():  # the name's (a 0 adds an exact 0.0)
            total = count * f0 + in_description(term, 0) * f1 + in_params(term, 0) * f2
            postings[term][name] = total / (K1 + total)


def fields_of(tool: Tool[..., Any]) -> tuple[tuple[dict[str, int], int], ...]:
    """A tool's terms per field of `FIELDS`, each field's counts and number of terms:
    its name's, its description's, and its parameters' (their names, descriptions and
    allowed values, ``enum``, at most `_ENUM_VALUES` of each, from the top level of its
    JSON Schema)."""
    spec = tool.spec
    texts: list[str] = []
    properties = spec.parameters.get("properties")
    if isinstance(properties, dict):
        for key, schema in properties.items():
            texts.append(str(key))
            if isinstance(schema, dict):
                description, values = schema.get("description"), schema.get("enum")
                if isinstance(description, str):
                    texts.append(description)
                if isinstance(values, list):  # "Wars", "celsius": what users say
                    texts.extend(str(value) for value in values[:_ENUM_VALUES])
    return (
        name_counted(tool.name),
        counted(spec.description or ""),
        counted(" ".join(texts)),
    )
