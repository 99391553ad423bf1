"""The vector side of search: ``ToolRegistry(embed=fn)``, fused with the lexical ranking.

``fn(list[str]) -> list[list[float]]`` is called with each tool's text (its name's
words, description, parameters) once, lazily: on the first search, then for tools added
or replaced since, never while the catalog's lock is held (an embedding may be a
network call). Each query is embedded once per search. Similarity is the cosine (vectors
are normalised once, when stored); plain Python dot products, since numpy is not a
dependency: about 40 ms for 1,000 tools of 384 dimensions per query (see
docs/search.md).

The two rankings are fused by reciprocal rank fusion (Cormack et al. 2009): a tool's
score is the sum over the rankings it appears in of ``1 / (60 + rank)``, so a tool found
by meaning alone (no shared word) still competes, and one both rankings like wins.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Real
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck._tool import Tool

__all__ = ["RRF_K", "Embed", "Vectors", "fuse", "tool_text"]

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
RRF_K = 60


def tool_text(tool: Tool[..., Any]) -> str:
    """What is embedded of a tool: its name, description, and parameters."""
    words = tool.name.replace("_", " ").replace("-", " ").replace(".", " ")
    parts = [f"{words}: {tool.spec.description or ''}".strip()]
    properties = tool.spec.parameters.get("properties")
    if isinstance(properties, dict):
        for key, schema in properties.items():
            about = schema.get("description") if isinstance(schema, dict) else None
            parts.append(f"{key}: {about}" if isinstance(about, str) else str(key))
    return "\n".join(parts)


class Vectors:
    """Each tool's normalised vector, kept per tool object (a replaced tool is re-embedded)."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, tuple[Tool[..., Any], list[float]]] = {}
        self._lock = threading.Lock()

    def missing(self, tools: Iterable[Tool[..., Any]]) -> list[Tool[..., Any]]:
        """The tools without a vector yet (new, or replaced since embedded)."""
        with self._lock:
            vectors = self._vectors
            return [t for t in tools if (found := vectors.get(t.name)) is None or found[0] is not t]

    def add(self, tools: Sequence[Tool[..., Any]]) -> None:
        """Embed ``tools`` (one call of the function) and keep their vectors."""
        if not tools:
            return
        vectors = self.embed([tool_text(t) for t in tools])
        with self._lock:
            for tool, vector in zip(tools, vectors, strict=True):
                self._vectors[tool.name] = (tool, vector)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The function's vectors for ``texts``, checked and normalised.

        Raises:
            TypeError: the function did not return one sequence of numbers per text.
            ValueError: the vectors' lengths differ, or one is not finite.
        """
        got = _listed(self._embed(texts))
        if got is None:
            raise TypeError("embed= must return a list of vectors")
        if len(got) != len(texts):
            raise TypeError(f"embed= returned {len(got)} vectors for {len(texts)} texts")
        out = [_normalised(vector) for vector in got]
        if len({len(v) for v in out}) > 1:
            raise ValueError("embed= returned vectors of different lengths")
        return out

    def ranked(
        self, query: list[float], eligible: Callable[[str], bool], n: int
    ) -> list[tuple[str, float]]:
        """The ``n`` eligible tools most similar to ``query`` (cosine above 0), best first."""
        with self._lock:
            items = list(self._vectors.items())
        sims = []
        for name, (_, vector) in items:
            if len(vector) != len(query) or not eligible(name):
                continue
            sim = _dot(query, vector)
            if sim > 0.0:
                sims.append((name, sim))
        return heapq.nlargest(n, sims, key=itemgetter(1))

    def forget(self, names: Iterable[str]) -> None:
        with self._lock:
            for name in names:
                self._vectors.pop(name, None)


# math.sumprod (Python 3.12+) is about three times faster than the generator.
_dot: Callable[[list[float], list[float]], float] = getattr(
    math, "sumprod", lambda a, b: sum(map(float.__mul__, a, b))
)


def fuse(rankings: Sequence[Sequence[str]], order: dict[str, int], k: int) -> list[str]:
    """Reciprocal rank fusion of ranked names: the best ``k``, ties in registration order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, name in enumerate(ranking, 1):
            scores[name] = scores.get(name, 0.0) + 1.0 / (RRF_K + rank)
    best = sorted(scores.items(), key=lambda item: (-item[1], order.get(item[0], 0)))
    return [name for name, _ in best[:k]]


def _listed(value: Any) -> list[Any] | None:
    """A list of ``value``'s items: a list, a tuple, a numpy array (``tolist``)..."""
    if isinstance(value, (str, bytes, Mapping)):
        return None
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        value = tolist()
    if isinstance(value, Sequence):
        return list(value)
    return None


def _normalised(vector: Any) -> list[float]:
    listed = _listed(vector)
    if listed is None:
        raise TypeError(f"embed= must return vectors (lists of numbers), not {vector!r:.80}")
    values = []
    for x in listed:
        if not isinstance(x, Real) or isinstance(x, bool):
            raise TypeError(f"embed= vectors must hold numbers, not {x!r:.80}")
        values.append(float(x))
    norm = math.sqrt(sum(x * x for x in values))
    if not math.isfinite(norm):
        raise ValueError("embed= returned a vector that is not finite")
    return [x / norm for x in values] if norm else values
