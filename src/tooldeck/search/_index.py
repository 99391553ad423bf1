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
from collections import defaultdict
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ._documents import Doc
from ._rank import FIELDS, averages, idf
from ._tokens import MAX_QUERY_CHARS, names_in, query_terms, same_name
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


class SearchIndex:
    """BM25F over one catalog's tools. Every method runs under the catalog's lock."""

    def __init__(self, catalog: Catalog, embed: Embed | None = None) -> None:
        self._catalog = catalog
        self._vectors = None if embed is None else Vectors(embed)
        self._docs: dict[str, Doc] = {}
        # term → {tool name: weight}; a missing term reads as no postings (`.get`)
        self._postings: defaultdict[str, dict[str, float]] = defaultdict(dict)
        self._sums = [0] * len(FIELDS)
        self._weighted_at: tuple[float, ...] = ()
        self._stale: set[str] = set(catalog.tools)
        # term → (the catalog's size, its postings weighted by rarity in parts: `_parts`)
        self._split: dict[str, tuple[int, list[tuple[float, dict[str, float]]]]] = {}

    def touched(self, name: str) -> None:
        """The tool named ``name`` came, changed or went: re-read it before the next search."""
        self._stale.add(name)

    def search(self, query: str, k: int, tags: Tags, match: Match = "any") -> list[Tool[..., Any]]:
        """The enabled tools (with ``tags``) best matching ``query``, at most ``k``;
        first, those it names (`_named`)."""
        if self._vectors is not None:
            return self._fused(self._vectors, query, k, tags, match)
        with self._catalog.lock:
            self._refresh()
            allowed = None if tags is None else {t.name for t in self._catalog.select(tags, match)}
            names = names_in(query)
            wanted = self._wanted(query, names)
            if len(wanted) < _INTENTS:
                found = self._top(self._scores(wanted, k, allowed), k, allowed)
            else:
                width = max(k, _POOL)
                ranked = self._top(self._scores(wanted, width, allowed), width, allowed)
                found = self._covering(wanted, ranked, k)
            return self._named(names, found, k, allowed)

    def _named(
        self,
        names: tuple[str, ...],
        found: list[Tool[..., Any]],
        k: int,
        allowed: set[str] | None,
    ) -> list[Tool[..., Any]]:
        """``found`` with the tools the request names first ("use lawsuit_search", in the
        order named): whatever the other words favour, a user who names a tool means
        it. A name is read whole (``names``: `names_in`), so only a multi-word one
        (``get_time``, ``getTime``, ``math.hypot``) counts: a plain word is just a word."""
        named: list[str] = []
        for term in names:
            for name in self._postings.get(term, ()):
                if name not in named and same_name(name, term) and self._eligible(name, allowed):
                    named.append(name)
        if not named:
            return found
        first = [self._docs[name].tool for name in named]
        return [*first, *(tool for tool in found if tool.name not in named)][:k]

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
            names = names_in(query)
            terms = self._wanted(query, names)
            lexical = self._top(self._scores(terms, width, allowed), width, allowed)
            docs = self._docs
            similar = vectors.ranked(
                wanted, lambda name: name in docs and self._eligible(name, allowed), width
            )
            fused = fuse(
                [[t.name for t in lexical], [name for name, _ in similar]], self._catalog.order, k
            )
            return self._named(names, [docs[name].tool for name in fused], k, allowed)

    def _wanted(self, query: str, names: tuple[str, ...]) -> list[str]:
        """The query's terms (``names``: `names_in`'s); its numbers too when nothing
        else is in the catalog."""
        wanted = query_terms(query, names=names)
        if any(term in self._postings for term in wanted):
            return wanted
        return query_terms(query, numbers=True, names=names)

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
        parts: list[tuple[float, dict[str, float]]] = []
        position: dict[str, int] = {}  # a query term with postings → its place in parts
        for term in wanted:
            postings = self._postings.get(term)
            if postings:
                position[term] = len(parts)
                parts.append((idf(total, len(postings)), postings))
        docs = self._docs
        rows = []  # per candidate: (term's place, rarity x weight, weight), in query order
        for tool in ranked:  # its own query terms: a set meet, in C
            name = tool.name
            rows.append(
                [
                    (i, parts[i][0] * parts[i][1][name], parts[i][1][name])
                    for i in sorted(map(position.__getitem__, docs[name].terms() & position.keys()))
                ]
            )
        places = [{i for i, _, _ in row} for row in rows]
        left = [1.0] * len(parts)
        gains = [sum(rw * left[i] for i, rw, _ in row) for row in rows]
        picked: list[Tool[..., Any]] = []
        while len(picked) < k and rows:
            best = gains.index(max(gains))  # ties: the higher-ranked tool
            picked.append(ranked.pop(best))
            del gains[best], places[best]
            changed = set()
            for i, _, weight in rows.pop(best):
                left[i] *= 1.0 - _OVERLAP * weight
                changed.add(i)
            for j, row in enumerate(rows):  # only the gains of candidates sharing a term change
                if not changed.isdisjoint(places[j]):
                    gains[j] = sum(rw * left[i] for i, rw, _ in row)
        return picked

    def _scores(self, wanted: list[str], k: int, allowed: set[str] | None) -> dict[str, float]:
        """Each candidate's BM25F score: exact for every tool that can reach the top ``k``.

        MaxScore (Turtle & Flood 1995): terms are taken densest bound first (`_bounded`:
        a rare word's few postings, and a common word's few heavy ones, before its many
        light ones); once the bounds of the parts left add up to less than the k-th best
        score so far (kept as the terms are added: `_best`), no tool unseen yet can
        reach the top ``k``, so the parts left only add to the tools already scored (and
        a tool that cannot catch up is dropped), instead of walking their long postings.
        Each part is added with dict updates (in C), with a Python pass only over the
        tools it shares with those already scored.
        """
        bounded, left = self._bounded(wanted)
        scores: dict[str, float] = {}
        # The k best tools that may be returned, as of the last look (fewer while fewer
        # are known), and the k-th's score: a tool whose score passes it may join them.
        best: list[str] = []
        floor = -1.0
        rising: list[str] = []  # tools that passed `floor` since the last look
        last = len(bounded) - 1
        for position, (_, bound, top, part) in enumerate(bounded):
            if left + _SLACK < floor:
                return self._catch_up(scores, bounded[position:], left, best)
            scored = part.keys() & scores.keys()
            if scored:  # a Python pass over the tools already scored only
                summed = {name: scores[name] + part[name] for name in scored}
                scores.update(part)
                scores.update(summed)
                rising += [name for name, score in summed.items() if score > floor]
            else:
                scores.update(part)
            if top > floor:  # else no new tool's score passes it: no pass over the part
                rising += [n for n, score in part.items() if score > floor and n not in scored]
            left -= bound
            if rising and position < last:
                best = self._best(scores, best, rising, k, allowed)
                floor = scores[best[-1]] if best and len(best) == k else -1.0
                rising = []
        return scores

    def _bounded(
        self, wanted: list[str]
    ) -> tuple[list[tuple[float, float, float, dict[str, float]]], float]:
        """The query terms' parts (`_parts`), each as (its bound per posting, what it
        takes off the bound of what is left, its highest score, its postings), densest
        first: the walk's order, so that the bound of what is left falls fastest for the
        postings walked. And the bounds' sum: the most a tool can
        score. A term's light part counts only what its heavy part does not (a tool is in
        one of them), and always comes after it."""
        total = len(self._docs)
        bounded: list[tuple[float, float, float, dict[str, float]]] = []
        left = 0.0
        for term in wanted:
            postings = self._postings.get(term)
            if postings:
                parts = self._parts(term, postings, total)
                upper, part = parts[0]
                left += upper
                if len(parts) == 1:
                    bounded.append((upper / len(part), upper, upper, part))
                    continue
                lower, low = parts[1]
                first = (upper - lower) / len(part)
                bounded.append((first, upper - lower, upper, part))
                # after its own heavy part, whatever the densities
                bounded.append((min(first, lower / len(low)) * _BEHIND, lower, lower, low))
        bounded.sort(key=_first, reverse=True)
        return bounded, left

    def _best(
        self,
        scores: dict[str, float],
        known: list[str],
        rising: list[str],
        k: int,
        allowed: set[str] | None,
    ) -> list[str]:
        """The ``k`` best of ``names`` that may be returned, best first.

        Kept as the terms are added (`_scores`): scores only grow, so a tool that was
        not among the best, and has not passed the k-th since, still is not; these are
        the best of every tool scored so far, and the k-th's score is exactly the bar
        the terms left must clear."""
        kept = set(known)  # eligible already: checked when they joined
        names = kept.union(rising)
        top = heapq.nlargest(k, names, key=scores.__getitem__)
        if all(name in kept or self._eligible(name, allowed) for name in top):
            return top
        eligible = [name for name in names if self._eligible(name, allowed)]
        return heapq.nlargest(k, eligible, key=scores.__getitem__)

    @staticmethod
    def _catch_up(
        scores: dict[str, float],
        rest: list[tuple[float, float, float, dict[str, float]]],
        left: float,
        best: list[str],
    ) -> dict[str, float]:
        """The terms left add only to the tools that can still reach the k-th best score
        (that of the last of ``best``, the k best so far: it only grows). Before each
        term, the tools that cannot reach it with the terms left are dropped: a long
        request's common words then walk a few hundred tools, not thousands. (Not while
        the bar is under a quarter of the k-th's score: it would drop few, most scored
        tools having matched some common words, and a pass over thousands costs more
        than it saves.)"""
        for _, bound, _, part in rest:
            kth = min(map(scores.__getitem__, best))
            bar = kth - left - _SLACK
            if bar * 4 >= kth:
                scores = {name: score for name, score in scores.items() if score >= bar}
            scores.update({name: scores[name] + part[name] for name in part.keys() & scores.keys()})
            left -= bound
        return scores

    def _parts(
        self, term: str, postings: dict[str, float], total: int
    ) -> list[tuple[float, dict[str, float]]]:
        """``term``'s postings times its rarity, each part with its bound: in one part,
        or, when long, in two (the weights above half the highest, and the rest), so
        that the many light ones have a bound of their own. Made on the term's first
        search (a pass or two, in comprehensions) and kept until its postings or the
        catalog's size change."""
        kept = self._split.get(term)
        if kept is not None and kept[0] == total:
            return kept[1]
        rarity = idf(total, len(postings))
        top = max(postings.values())
        parts = None
        if len(postings) >= _SPLIT:
            cut = top * _CUT
            high = {name: rarity * weight for name, weight in postings.items() if weight > cut}
            if high and len(high) < len(postings):
                low = {n: rarity * weight for n, weight in postings.items() if weight <= cut}
                parts = [(rarity * top, high), (max(low.values()), low)]
        if parts is None:
            parts = [(rarity * top, {n: rarity * weight for n, weight in postings.items()})]
        self._split[term] = (total, parts)
        return parts

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
            tools, order = self._catalog.tools, self._catalog.order
            added = []
            # The tools in registration order, not the set's: a build then reads them
            # where they lie in memory, one after the other (at 10,000 tools, a fifth
            # faster); the tools gone, first
            kept = stale & order.keys()
            for name in [*(stale - kept), *sorted(kept, key=order.__getitem__)]:
                old = self._docs.get(name)
                new = tools.get(name)
                if old is not None and old.tool is new:
                    continue
                if old is not None:
                    self._drop(name, old)
                    if new is None and self._vectors is not None:
                        self._vectors.forget([name])
                if new is not None:
                    doc = self._docs[name] = Doc(new)
                    added.append(doc)
            if added:  # the new tools' field lengths, summed per field
                grown = zip(*(doc.lengths for doc in added), strict=True)
                self._sums = [a + sum(b) for a, b in zip(self._sums, grown, strict=True)]
            current = averages(self._sums, len(self._docs))
            if _drifted(self._weighted_at, current):
                self._reweigh(current)
            else:
                for doc in added:
                    self._add(doc)

    def _drop(self, name: str, doc: Doc) -> None:
        del self._docs[name]
        self._sums = [a - b for a, b in zip(self._sums, doc.lengths, strict=True)]
        for term in doc.terms():
            self._split.pop(term, None)
            postings = self._postings.get(term)
            if postings is not None:
                postings.pop(name, None)
                if not postings:
                    del self._postings[term]

    def _add(self, doc: Doc) -> None:
        """Post one new tool; its terms' parts are made again on their next search."""
        doc.post(self._postings, self._weighted_at)
        splits = self._split
        for term in doc.terms():
            splits.pop(term, None)

    def _reweigh(self, current: tuple[float, ...]) -> None:
        self._split = {}
        self._postings = defaultdict(dict)
        self._weighted_at = current
        for doc in self._docs.values():
            doc.post(self._postings, current)


# Bounds compared with scores leave this much room, so that rounding (``left`` is a
# running difference) never prunes a tool tied with the k-th: keeping one more is free.
_SLACK = 1e-9
_SPLIT = 64
_CUT = 0.5
_BEHIND = 1.0 - 1e-9


_first = itemgetter(0)
_second = itemgetter(1)


def _drifted(used: tuple[float, ...], current: tuple[float, ...]) -> bool:
    if not used:
        return True
    return any(abs(c - u) > _DRIFT * max(u, 1.0) for u, c in zip(used, current, strict=True))
