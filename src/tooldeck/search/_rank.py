"""BM25F: the ranking formula, apart from the index that feeds it.

A tool is a document of three fields: its name (its words, and the whole name), its
description, and its parameters (names and descriptions). A term's frequency in each
field is normalised by the field's length against the catalog's average, weighted
(a word of the name counts more than a word of a parameter's description), summed, and
saturated once (BM25F, Robertson & Zaragoza 2009); a query's score for a tool is the
sum over its terms of that saturated frequency times the term's rarity (IDF).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["FIELDS", "K1", "averages", "idf", "norms"]

# (field, weight, length normalisation b). Tuned on BFCL's four non-live categories.
FIELDS: tuple[tuple[str, float, float], ...] = (
    ("name", 3.0, 0.3),
    ("description", 1.0, 0.75),
    ("params", 0.5, 0.75),
)
K1 = 1.2


def norms(lengths: Sequence[int], averages: Sequence[float]) -> tuple[float, ...]:
    """Each field's factor for one tool: its weight over its length normalisation.

    A term's BM25F weight in the tool is then ``t / (K1 + t)`` with ``t`` the sum of
    its count in each field times that field's factor.
    """
    return tuple(
        weight / (1.0 - b + b * length / (average or 1.0))
        for (_, weight, b), length, average in zip(FIELDS, lengths, averages, strict=True)
    )


def idf(documents: int, containing: int) -> float:
    """A term's rarity over the catalog (BM25's, never negative)."""
    return math.log(1.0 + (documents - containing + 0.5) / (containing + 0.5))


def averages(sums: Sequence[int], documents: int) -> tuple[float, ...]:
    """The average length of each field over ``documents`` tools."""
    return tuple(total / documents if documents else 1.0 for total in sums)
