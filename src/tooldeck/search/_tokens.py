"""Text into search terms: words in any script, names split, a light English stemmer.

One function turns every text (a tool's name, its description, a query) into terms, so
a query and a catalog always meet on the same ground:

- words are runs of letters and digits in any script (``regex``'s ``\\p{L}``/``\\p{N}``),
  case-folded;
- identifiers are also split into their words (``get_weather``, ``getWeather``,
  ``get-weather``, ``math.hypot``), and a name keeps its whole form as one more term;
- scripts written without spaces (Chinese, Japanese, Thai, ...) give overlapping
  character pairs (``天気予報`` → ``天気`` ``気予`` ``予報``), and each single
  character as well, so a one-character query still meets them;
- ASCII words are stemmed (Porter2: ``forecasts`` and ``forecasting`` → ``forecast``,
  ``calculation`` and ``calculator`` → ``calcul``).
"""

from __future__ import annotations

import collections
from itertools import chain

import regex

from ._stem import porter2

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "STOP_WORDS",
    "counted",
    "forget",
    "name_counted",
    "names_in",
    "query_terms",
    "same_name",
    "terms",
]

# A query is read up to this many characters and this many distinct terms: a 10 MB
# query costs what a long paragraph costs.
MAX_QUERY_CHARS = 4096
MAX_QUERY_TERMS = 64

# Runs of one kind: unspaced scripts (paired up), else letters/digits (words).
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}ー"
_RUNS = regex.compile(rf"[{_UNSPACED}]+|[\p{{L}}\p{{M}}\p{{N}}]+", regex.V1)
# The same runs in ASCII text, 4x faster: every byte but a letter or digit made a space,
# then split (in C; a third faster than a regex's findall over a build's 2-3 MB).
_ASCII_SPACES = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


def _runs(text: str) -> list[str]:
    """``text``'s runs: of letters and digits, or of an unspaced script."""
    if text.isascii():
        return text.encode().translate(_ASCII_SPACES).decode().split()
    return _RUNS.findall(text)


_IS_UNSPACED = regex.compile(rf"[{_UNSPACED}]")
# Word boundaries inside an identifier: HTTPServer → HTTP Server, getX2 → get X2.
_CAMEL = regex.compile(r"\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|\p{L}+")

_STOP_TEXT = """a about above after again all also am an and any are as at be been before being
    below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself
    just me more most my no nor not now of off on once only or other our out over own
    please same she should so some such than that the their them then there these they
    this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours given using use want need like let know
    tell help etc s t d ll re ve m"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def stem(word: str) -> str:
    """``word``'s English stem (Porter2, `tooldeck.search._stem`), for ASCII words of
    letters only: ``calculate``, ``calculation`` and ``calculator`` meet at ``calcul``.
    Remembered (a word recurs in many names and runs); bounded like the run cache."""
    found = _STEMS.get(word)
    if found is None:
        if len(_STEMS) >= _CACHE_SIZE:
            _STEMS.clear()
        found = _STEMS[word] = porter2(word) if word.isalpha() else word
    return found


_STEMS: dict[str, str] = {}

# `Counter`'s own C loop (not in typeshed), in CPython since 3.2, a Python loop elsewhere
_count_elements = collections._count_elements  # type: ignore[attr-defined]

# A run of letters → its terms, remembered: a catalog's vocabulary repeats (Zipf), so
# most words are tokenised once. Bounded: cleared when full. One cache per stop flag.
_CACHES: dict[bool, dict[str, tuple[str, ...]]] = {True: {}, False: {}}
# The same runs → their one term: `_NONE` for none (a stop word), `_SEVERAL` for an
# identifier's several. Counting then maps each run to a string in C, with no tuple to
# walk per run (`chain`): a build counts 500,000 runs at 10,000 tools.
_ONE: dict[bool, dict[str, str]] = {True: {}, False: {}}
_NONE = ""
_SEVERAL = "\x00"  # never a term: terms are letters and digits
_CACHE_SIZE = 200_000


def forget() -> None:
    """Empty the remembered runs and stems (a benchmark's build then pays for every word)."""
    for caches in (_CACHES, _ONE):
        for cache in caches.values():
            cache.clear()
    _STEMS.clear()


def _run_terms(run: str, stop: bool) -> tuple[str, ...]:
    """One run's terms: an identifier's words (and itself), or an unspaced run's pairs."""
    if run.isalpha() and run.isascii() and run.islower():  # most: a word, stemmed
        return () if stop and run in STOP_WORDS else (stem(run),)
    if not run.isascii() and _IS_UNSPACED.match(run):
        return (*run, *(run[i : i + 2] for i in range(len(run) - 1)))
    if run.islower() or not any(c.isupper() for c in run):
        parts = [run] if run.isalpha() or run.isdigit() else _CAMEL.findall(run)
    else:
        parts = _CAMEL.findall(run)
    words = [part.casefold() for part in parts]
    if len(parts) > 1:
        words.append(run.casefold())
    out = []
    for word in words:
        if word.isascii():
            if stop and word in STOP_WORDS:
                continue
            word = stem(word)
        out.append(word)
    return tuple(out)


def terms(text: str, *, stop: bool = True) -> list[str]:
    """The search terms of ``text``, in order, with repeats (stop words dropped)."""
    runs = _runs(text)
    try:  # the usual case: every run is known (no list of the new ones to make first)
        return list(chain.from_iterable(map(_CACHES[stop].__getitem__, runs)))
    except KeyError:
        return list(chain.from_iterable(map(_learned(runs, stop).__getitem__, runs)))


def counted(text: str, *, stop: bool = True) -> tuple[dict[str, int], int]:
    """Each term of ``text`` with its count (in order of first use), and how many terms
    it has: `terms`' counts, without listing the terms first (a build counts every
    tool's text)."""
    runs = _runs(text)
    counts: dict[str, int] = {}
    try:  # the usual case: every run is known, of one term or none, and counted in C
        _count_elements(counts, map(_ONE[stop].__getitem__, runs))
        if _SEVERAL not in counts:
            counts.pop(_NONE, None)
            return counts, sum(counts.values())
        counts = {}  # an identifier's several terms: the runs' tuples, counted in C
        _count_elements(counts, chain.from_iterable(map(_CACHES[stop].__getitem__, runs)))
    except KeyError:  # a run not seen before
        counts = {}
        _count_elements(counts, chain.from_iterable(map(_learned(runs, stop).__getitem__, runs)))
    return counts, sum(counts.values())


def _learned(runs: list[str], stop: bool) -> dict[str, tuple[str, ...]]:
    """The terms of each of ``runs``, learned into the run caches (of ``stop``) too. A
    dict of its own, not the cache: a search of another catalog, in another thread, may
    clear the caches (full) before these runs are read back."""
    cache, one = _CACHES[stop], _ONE[stop]
    known: dict[str, tuple[str, ...]] = {}
    for run in runs:
        found = cache.get(run)
        if found is None:
            found = _run_terms(run, stop)
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
                one.clear()
            cache[run] = found
            one[run] = found[0] if len(found) == 1 else _SEVERAL if found else _NONE
        known[run] = found
    return known


# An identifier in a request ("use lawsuit_search", "call getWeather", "math.hypot"):
# words joined by ``_ . -``, or a word with a lowercase letter before an uppercase one.
_IDENTIFIER = regex.compile(
    r"\b[\p{L}\p{N}]+(?:[._\-][\p{L}\p{N}]+)+|\b[\p{L}\p{N}]*\p{Ll}\p{Lu}[\p{L}\p{N}]*"
)
_JOINERS = str.maketrans(".-", "__")
_MAX_NAMES = MAX_QUERY_TERMS // 4  # the rest for its words


def name_counted(name: str) -> tuple[dict[str, int], int]:
    """A tool name's terms, counted as `counted` does: its words (split at ``_ - .``
    and camelCase, stop words kept) and itself (also with ``.`` and ``-`` as ``_``,
    the form `names_in` reads in a request)."""
    counts, length = counted(name, stop=False)
    whole = name.casefold()
    for form in (whole, whole.translate(_JOINERS)):  # `math.hypot` is `math_hypot` too
        if form not in counts:
            counts[form] = 1
            length += 1
    return counts, length


def names_in(query: str) -> tuple[str, ...]:
    """The identifiers in ``query`` that may name a tool, case-folded, each as written
    and with ``.`` and ``-`` read as ``_``; at most `MAX_QUERY_TERMS` / 4."""
    out: dict[str, None] = {}
    for found in _IDENTIFIER.findall(query[:MAX_QUERY_CHARS]):
        if len(out) >= _MAX_NAMES:
            break
        if any(c.isalpha() for c in found):  # not a date (2024-05-01) or a version
            name = found.casefold()
            out.setdefault(name, None)
            out.setdefault(name.translate(_JOINERS), None)
    return tuple(out)


def same_name(name: str, named: str) -> bool:
    """Whether a tool's ``name`` is ``named`` (from `names_in`), ``.`` and ``-`` as ``_``."""
    return name.casefold().translate(_JOINERS) == named.translate(_JOINERS)


def query_terms(
    query: str, *, numbers: bool = False, names: tuple[str, ...] | None = None
) -> list[str]:
    """A query's distinct terms, bounded: at most `MAX_QUERY_TERMS`, from its first
    `MAX_QUERY_CHARS` characters (plus the query as one whole term, for exact names).

    A tool named in the request is a term too (`name_counted` posts a name whole):
    each identifier in it (`names_in`: ``lawsuit_search``, ``getWeather``, and
    ``math.hypot`` as ``math_hypot`` too, the name a provider allows); ``names``, when
    the caller has read them already.

    Numbers alone (``5``, ``2024``) are the values a request gives ("a radius of 5"),
    not what it asks for: they are left out unless ``numbers`` (the index asks again
    with them when nothing else is found). A tool's own numbers are always indexed,
    and a word with digits (``mp3``) is a word.
    """
    text = query[:MAX_QUERY_CHARS]
    seen: dict[str, None] = {}
    whole = text.strip().casefold()
    if whole and len(whole) <= 128:
        seen[whole] = None
    for name in names_in(text) if names is None else names:
        seen.setdefault(name, None)
    for term in terms(text):
        if not numbers and term.isdigit():
            continue
        seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)
