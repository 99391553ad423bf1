"""A catalog's search index: built on the first search, then kept current cheaply.

The catalog tells the index which names changed (`SearchIndex.touched`, a set insert
under the catalog's lock, on every registration, replacement and removal); the next
search re-reads just those names before ranking. Enabled flags and tags are read at
query time, so `disable`, `enable` and `tag` cost the index nothing.

Each tool's per-term weights are computed against the fields' average lengths; when
the averages drift by more than a fifth from those used (the catalog grew or changed
a lot), every weight is recomputed once, from the term counts kept per tool.
"""

from __future__ import annotations

import heapq
from collections import Counter
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ._rank import FIELDS, K1, averages, idf, norms
from ._tokens import MAX_QUERY_CHARS, name_terms, query_terms, terms
from ._vectors import Embed, Vectors, fuse

if TYPE_CHECKING:
    from tooldeck._catalog import Catalog, Match, Tags
    from tooldeck._tool import Tool

__all__ = ["SearchIndex"]

_DRIFT = 0.2
# A query of at least this many distinct terms asks for several things (BFCL's
# multi-tool requests): its top k is re-ranked to cover them (`SearchIndex._covering`),
# from its best `_POOL`. Measured on BFCL's tuned questions, both halves alike; 25 and 40
# give the same figures, and the held-out live_* questions are unchanged.
_INTENTS = 30
_POOL = 30
_OVERLAP = 0.6
_ENUM_VALUES = 50  # a country list is words enough; 10,000 codes are noise


class _Doc:
    """One indexed tool: the tool, its term counts per field, and its field lengths."""

    __slots__ = ("counts", "lengths", "tool")

    def __init__(self, tool: Tool[..., Any]) -> None:
        self.tool = tool
        fields = fields_of(tool)
        self.lengths = tuple(len(found) for found in fields)
        self.counts = tuple(Counter(found) for found in fields)  # per field: term → count

    def terms(self) -> set[str]:
        return set().union(*self.counts)


def fields_of(tool: Tool[..., Any]) -> tuple[list[str], ...]:
    """A tool's terms per field of `FIELDS`: its name, its description, and its
    parameters' names, descriptions and allowed values (``enum``, at most `_ENUM_VALUES`
    of each), from the top level of its JSON Schema."""
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
    return name_terms(tool.name), terms(tool.spec.description or ""), terms(" ".join(texts))


class SearchIndex:
    """BM25F over one catalog's tools. Every method runs under the catalog's lock."""

    def __init__(self, catalog: Catalog, embed: Embed | None = None) -> None:
        self._catalog = catalog
        self._vectors = None if embed is None else Vectors(embed)
        self._docs: dict[str, _Doc] = {}
        self._postings: dict[str, dict[str, float]] = {}  # term → {tool name: weight}
        self._max: dict[str, float] = {}  # term → its highest weight (an upper bound)
        self._sums = [0] * len(FIELDS)
        self._weighted_at: tuple[float, ...] = ()
        self._stale: set[str] = set(catalog.tools)

    def touched(self, name: str) -> None:
        """The tool named ``name`` came, changed or went: re-read it before the next search."""
        self._stale.add(name)

    def search(self, query: str, k: int, tags: Tags, match: Match = "any") -> list[Tool[..., Any]]:
        """The enabled tools (with ``tags``) best matching ``query``, at most ``k``."""
        if self._vectors is not None:
            return self._fused(self._vectors, query, k, tags, match)
        with self._catalog.lock:
            self._refresh()
            allowed = None if tags is None else {t.name for t in self._catalog.select(tags, match)}
            wanted = self._wanted(query)
            if len(wanted) < _INTENTS:
                return self._top(self._scores(wanted, k, allowed), k, allowed)
            width = max(k, _POOL)
            ranked = self._top(self._scores(wanted, width, allowed), width, allowed)
            return self._covering(wanted, ranked, k)

    def _fused(
        self, vectors: Vectors, query: str, k: int, tags: Tags, match: Match
    ) -> list[Tool[..., Any]]:
        """Lexical and vector rankings fused (`tooldeck.search._vectors`). The embedding
        function runs outside the catalog's lock: for the tools not embedded yet, and
        for the query."""
        text = query[:MAX_QUERY_CHARS]
        if not text.strip():
            return []
        with self._catalog.lock:
            self._refresh()
            tools = [doc.tool for doc in self._docs.values()]
        vectors.add(vectors.missing(tools))
        wanted = vectors.embed([text])[0]
        with self._catalog.lock:
            self._refresh()
            allowed = None if tags is None else {t.name for t in self._catalog.select(tags, match)}
            width = max(4 * k, 50)
            lexical = self._top(self._scores(self._wanted(query), width, allowed), width, allowed)
            docs = self._docs
            similar = vectors.ranked(
                wanted, lambda name: name in docs and self._eligible(name, allowed), width
            )
            names = fuse(
                [[t.name for t in lexical], [name for name, _ in similar]], self._catalog.order, k
            )
            return [docs[name].tool for name in names]

    def _wanted(self, query: str) -> list[str]:
        """The query's terms; its numbers too when nothing else is in the catalog."""
        wanted = query_terms(query)
        if any(term in self._postings for term in wanted):
            return wanted
        return query_terms(query, numbers=True)

    def _covering(
        self, wanted: list[str], ranked: list[Tool[..., Any]], k: int
    ) -> list[Tool[..., Any]]:
        """The best ``k`` of ``ranked`` for a request asking for several things.

        Picked one at a time (as xQuAD and similar greedy re-rankers do): each pick is
        the tool scoring best on what the picks so far leave uncovered, every query
        term's part shrinking by `_OVERLAP` times its weight in each tool picked. So
        near-duplicates of one tool ("circle_area", "circle_calculate_area") no longer
        push out the tool for another part of the request ("stock price").
        """
        total = len(self._docs)
        parts = [
            (idf(total, len(postings)), postings)
            for postings in map(self._postings.get, wanted)
            if postings
        ]
        rows = [
            [
                (i, rarity, weight)
                for i, (rarity, postings) in enumerate(parts)
                if (weight := postings.get(tool.name)) is not None
            ]
            for tool in ranked
        ]
        left = [1.0] * len(parts)
        picked: list[Tool[..., Any]] = []
        while len(picked) < k and rows:
            gains = [sum(r * w * left[i] for i, r, w in row) for row in rows]
            best = gains.index(max(gains))  # ties: the higher-ranked tool
            picked.append(ranked.pop(best))
            for i, _, weight in rows.pop(best):
                left[i] *= 1.0 - _OVERLAP * weight
        return picked

    def _scores(self, wanted: list[str], k: int, allowed: set[str] | None) -> dict[str, float]:
        """Each candidate's BM25F score: exact for every tool that can reach the top ``k``.

        MaxScore (Turtle & Flood 1995): terms are taken rarest-first (highest bound
        first); once the bounds of the terms left add up to less than the k-th best
        score so far, no tool unseen yet can reach the top ``k``, so the common terms
        left only add to the tools already scored (and a tool that cannot catch up is
        dropped), instead of walking their long postings.
        """
        total = len(self._docs)
        bounded = []
        for term in wanted:
            postings = self._postings.get(term)
            if postings:
                rarity = idf(total, len(postings))
                bounded.append((rarity * self._max[term], rarity, postings))
        bounded.sort(key=_first, reverse=True)
        left = sum(bound for bound, _, _ in bounded)
        scores: dict[str, float] = {}
        position = 0
        for bound, rarity, postings in bounded:
            if (
                len(scores) >= k
                and left < max(scores.values())  # cheap: the threshold is at most this
                and left < self._threshold(scores, k, allowed)
            ):
                break
            get = scores.get
            for name, weight in postings.items():
                scores[name] = get(name, 0.0) + rarity * weight
            left -= bound
            position += 1
        if position == len(bounded):
            return scores
        return self._catch_up(scores, bounded[position:], left, k, allowed)

    def _catch_up(
        self,
        scores: dict[str, float],
        rest: list[tuple[float, float, dict[str, float]]],
        left: float,
        k: int,
        allowed: set[str] | None,
    ) -> dict[str, float]:
        """The terms left add only to the tools that can still reach the top ``k``."""
        threshold = self._threshold(scores, k, allowed)
        scores = {name: score for name, score in scores.items() if score + left >= threshold}
        for _, rarity, postings in rest:
            if len(postings) < len(scores):
                for name, weight in postings.items():
                    if name in scores:
                        scores[name] += rarity * weight
            else:
                for name in scores:
                    found = postings.get(name)
                    if found is not None:
                        scores[name] += rarity * found
        return scores

    def _threshold(self, scores: dict[str, float], k: int, allowed: set[str] | None) -> float:
        """A lower bound of the k-th best final score among the tools that may be returned."""
        for width in (k, 4 * k):
            best = heapq.nlargest(width, scores.items(), key=_second)
            eligible = [score for name, score in best if self._eligible(name, allowed)]
            if len(eligible) >= k:
                return eligible[k - 1]
        return 0.0  # too few of the best may be returned: no tool can be ruled out

    def _eligible(self, name: str, allowed: set[str] | None) -> bool:
        return (allowed is None or name in allowed) and self._docs[name].tool.enabled

    def _top(
        self, scores: dict[str, float], k: int, allowed: set[str] | None
    ) -> list[Tool[..., Any]]:
        """The best ``k`` that may be returned, best first, ties in registration order."""
        order, width = self._catalog.order, k
        while True:
            best = heapq.nlargest(width, scores.items(), key=_second)
            eligible = [(n, s) for n, s in best if self._eligible(n, allowed)]
            if len(eligible) >= k or len(best) == len(scores):
                break
            width *= 4
        if len(eligible) >= k:  # every tool tied with the k-th competes for its place
            last = eligible[k - 1][1]
            eligible = [
                (n, s) for n, s in scores.items() if s >= last and self._eligible(n, allowed)
            ]
        eligible.sort(key=lambda item: (-item[1], order[item[0]]))
        return [self._docs[name].tool for name, _ in eligible[:k]]

    def _refresh(self) -> None:
        if self._stale:
            stale, self._stale = self._stale, set()
            tools = self._catalog.tools
            added = []
            for name in stale:
                old = self._docs.get(name)
                new = tools.get(name)
                if old is not None and old.tool is new:
                    continue
                if old is not None:
                    self._drop(name, old)
                    if new is None and self._vectors is not None:
                        self._vectors.forget([name])
                if new is not None:
                    doc = self._docs[name] = _Doc(new)
                    self._sums = [a + b for a, b in zip(self._sums, doc.lengths, strict=True)]
                    added.append(doc)
            current = averages(self._sums, len(self._docs))
            if _drifted(self._weighted_at, current):
                self._reweigh(current)
            else:
                for doc in added:
                    self._weigh(doc, self._weighted_at)

    def _drop(self, name: str, doc: _Doc) -> None:
        del self._docs[name]
        self._sums = [a - b for a, b in zip(self._sums, doc.lengths, strict=True)]
        for term in doc.terms():
            postings = self._postings.get(term)
            if postings is not None:
                postings.pop(name, None)
                if not postings:
                    del self._postings[term]
                    del self._max[term]

    def _reweigh(self, current: tuple[float, ...]) -> None:
        self._postings, self._max = {}, {}
        self._weighted_at = current
        for doc in self._docs.values():
            self._weigh(doc, current)

    def _weigh(self, doc: _Doc, at: tuple[float, ...]) -> None:
        name = doc.tool.name
        postings, highest = self._postings, self._max
        factors = norms(doc.lengths, at)
        spread: dict[str, float] = {}
        for counts, factor in zip(doc.counts, factors, strict=True):
            get = spread.get
            for term, count in counts.items():
                spread[term] = get(term, 0.0) + count * factor
        for term, total in spread.items():
            weight = total / (K1 + total)
            entry = postings.get(term)
            if entry is None:
                entry = postings[term] = {}
            entry[name] = weight
            if weight > highest.get(term, 0.0):
                highest[term] = weight


_first = itemgetter(0)
_second = itemgetter(1)


def _drifted(used: tuple[float, ...], current: tuple[float, ...]) -> bool:
    if not used:
        return True
    return any(abs(c - u) > _DRIFT * max(u, 1.0) for u, c in zip(used, current, strict=True))
