"""The index build's shortcuts give exactly what the plain formulas give: a text's term
counts (`counted`) are `terms`' counts, and each posting's weight is BM25F's from
`norms`, summed in field order."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import BaseTool, ToolRegistry, ToolResult
from tooldeck.search import _documents, _rank, _tokens

_PIECES = ["get", "Weather", "HTTPServer", "mp3", "2x2", "the", "城市天气", "café", "-", "_", " "]
_TEXT = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=12).map("".join)


@settings(max_examples=60, deadline=None)
@given(text=_TEXT, stop=st.booleans(), cold=st.booleans())
def test_counted_is_the_count_of_terms(text: str, stop: bool, cold: bool) -> None:
    if cold:  # unknown runs: learned on the way
        _tokens.forget()
    counts, length = _tokens.counted(text, stop=stop)
    found = _tokens.terms(text, stop=stop)
    assert counts == Counter(found)
    assert list(counts) == list(dict.fromkeys(found))  # in order of first use
    assert length == len(found)


class _Listed(BaseTool):
    def __init__(self, name: str, description: str, parameters: dict[str, Any]) -> None:
        self._name, self._description, self._parameters = name, description, parameters

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok("")


@settings(max_examples=25, deadline=None)
@given(
    tools=st.lists(
        st.tuples(_TEXT, _TEXT, st.lists(st.sampled_from(_PIECES), max_size=4)),
        min_size=1,
        max_size=6,
    )
)
def test_posted_weights_are_bm25f_in_field_order(
    tools: list[tuple[str, str, list[str]]],
) -> None:
    registry = ToolRegistry()
    for i, (name, description, params) in enumerate(tools):
        properties = {f"p{j}": {"type": "string", "description": p} for j, p in enumerate(params)}
        tool_name = f"t{i}_{''.join(c for c in name if c.isascii() and c.isalnum())[:20]}"
        schema = {"type": "object", "properties": properties}
        registry.register(_Listed(tool_name, description, schema))
        if i == len(tools) // 2:  # the rest posted one by one (`_add`) unless averages drift
            registry.search("anything")
    registry.search("anything")
    index = registry._catalog.search_index
    assert index is not None
    for name, doc in index._docs.items():
        factors = _rank.norms(doc.lengths, index._weighted_at)
        spread: dict[str, float] = {}
        for counts, factor in zip(doc.counts, factors, strict=True):
            for term, count in counts.items():
                spread[term] = spread.get(term, 0.0) + count * factor
        for term, total in spread.items():
            assert index._postings[term][name] == total / (_rank.K1 + total)
        words = _tokens.terms(name, stop=False)  # the name's words, and the whole name
        named = words if name.casefold() in words else [*words, name.casefold()]
        assert (doc.counts[0], doc.lengths[0]) == (Counter(named), len(named))
        assert list(doc.counts[0]) == list(dict.fromkeys(named))
        assert (doc.counts[1], doc.lengths[1]) == _tokens.counted(doc.tool.description)
        assert (doc.counts[2], doc.lengths[2]) == _documents.fields_of(doc.tool)[2]
    # and nothing else: each term's postings are exactly the tools having it
    having: dict[str, set[str]] = {}
    for name, doc in index._docs.items():
        for term in doc.terms():
            having.setdefault(term, set()).add(name)
    assert {term: set(postings) for term, postings in index._postings.items()} == having


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_runs_are_the_letters_and_digits(text: str) -> None:
    assert _tokens._runs(text) == re.findall(r"[A-Za-z0-9]+", text)
    # the same runs as the any-script pattern gives for ASCII text
    assert _tokens._runs(text) == _tokens._RUNS.findall(text)


def test_the_build_reads_the_tools_in_registration_order() -> None:
    # Not in the stale set's (hash) order: read one after another, the tools lie where
    # they were made in memory (a fifth off the build at 10,000 tools).
    names = [f"tool_{i}" for i in range(60)]
    registry = ToolRegistry()
    for name in names[:45]:
        registry.register(_Listed(name, "Look up the weather", {"type": "object"}))
    registry.search("weather")
    for name in names[45:]:  # and the tools registered once the index exists
        registry.register(_Listed(name, "Look up the weather", {"type": "object"}))
    registry.unregister("tool_3")
    registry.search("weather")
    index = registry._catalog.search_index
    assert index is not None
    kept = [name for name in names if name != "tool_3"]
    assert list(index._docs) == kept
    assert list(index._postings["weather"]) == kept


def test_caches_cleared_while_a_text_is_learned_lose_none_of_its_terms(monkeypatch: Any) -> None:
    # The run caches are shared by every catalog and cleared when full: a search in
    # another thread may clear them between learning a text's new runs and reading them
    # back. Cleared after every run learned here (the worst such timing), a text still
    # reads as it does with nothing cleared.
    text = "Weather forecasts for Taipei's districts, getWeather and the 天氣 預報"
    _tokens.forget()
    expected = (_tokens.terms(text), _tokens.counted(text), _tokens.name_counted("getWeather"))
    learn = _tokens._run_terms

    def learn_then_clear(run: str, stop: bool) -> tuple[str, ...]:
        found = learn(run, stop)
        _tokens.forget()
        return found

    monkeypatch.setattr(_tokens, "_run_terms", learn_then_clear)
    for read in range(2):  # each time, every run is new again
        _tokens.forget()
        got = (_tokens.terms(text), _tokens.counted(text), _tokens.name_counted("getWeather"))
        assert got == expected, read
    registry = ToolRegistry()
    registry.register(lambda city: city, name="get_weather", description=text)
    assert [t.name for t in registry.search("weather in Taipei")] == ["get_weather"]
