"""``ToolRegistry(embed=fn)``: lexical and vector rankings fused, with a toy deterministic
embedding (concepts as axes; no model download)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry

# Words that mean the same thing share an axis: the "model" knows synonyms.
CONCEPTS = {
    "money": ("money", "currency", "cash", "dollars", "euros", "exchange"),
    "weather": ("weather", "rain", "forecast", "umbrella", "sunny"),
    "music": ("music", "song", "playlist", "tune"),
    "mail": ("mail", "email", "message", "inbox"),
}


class ToyEmbedding:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        with self.lock:
            self.calls.append(list(texts))
        return [self.vector(text) for text in texts]

    @staticmethod
    def vector(text: str) -> list[float]:
        words = text.lower().replace(":", " ").replace("_", " ").split()
        return [
            float(sum(word.strip(".,?") in synonyms for word in words))
            for synonyms in CONCEPTS.values()
        ]


def _registry(embed: Any) -> ToolRegistry:
    registry = ToolRegistry(embed=embed)

    @registry.tool
    def convert_currency(amount: float, target: str) -> float:
        """Convert an amount into another currency."""
        return amount

    @registry.tool
    def will_it_rain(city: str) -> bool:
        """Tell whether it will rain in a city tomorrow."""
        return True

    @registry.tool
    def play_song(title: str) -> str:
        """Play a song by its title."""
        return title

    @registry.tool
    def send_email(to: str, body: str) -> str:
        """Send an email to someone."""
        return to

    return registry


def test_a_tool_is_found_by_meaning_alone() -> None:
    plain, embedded = _registry(None), _registry(ToyEmbedding())
    query = "do I need an umbrella"  # shares no word with will_it_rain
    assert plain.search(query) == []
    assert [t.name for t in embedded.search(query, k=1)] == ["will_it_rain"]
    assert [t.name for t in embedded.search("pay in euros", k=1)] == ["convert_currency"]


def test_both_rankings_agreeing_win_and_words_still_count() -> None:
    registry = _registry(ToyEmbedding())
    assert registry.search("send email", k=1)[0].name == "send_email"
    # "title" only matches play_song's words; the embedding knows no axis for it
    assert registry.search("title", k=1)[0].name == "play_song"


def test_tools_are_embedded_once_lazily_and_as_they_are_added() -> None:
    embed = ToyEmbedding()
    registry = _registry(embed)
    assert embed.calls == []  # nothing until the first search
    registry.search("music")
    registry.search("weather")
    tool_batches = [c for c in embed.calls if len(c) > 1 or "\n" in c[0] or ":" in c[0]]
    assert len(tool_batches) == 1 and len(tool_batches[0]) == 4
    registry.register(lambda city: city, name="sunny_days", description="Days of sun.")
    found = registry.search("is it sunny")
    assert embed.calls[-2] == ["sunny days: Days of sun.\ncity"]  # only the new tool
    assert found[0].name == "sunny_days"
    registry.unregister("sunny_days")
    registry.disable("play_song")
    assert "play_song" not in [t.name for t in registry.search("music song")]
    assert "sunny_days" not in [t.name for t in registry.search("sunny")]


def test_a_bad_embedding_function_is_named_in_the_error() -> None:
    with pytest.raises(TypeError, match="embed="):
        ToolRegistry(embed="not a function")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="embed="):
        _registry(lambda texts: [[1.0]]).search("cash")  # one vector for four texts
    with pytest.raises(TypeError, match="embed="):
        _registry(lambda texts: [["x"] for _ in texts]).search("cash")
    with pytest.raises(ValueError, match="embed="):
        _registry(lambda texts: [[1.0] * (i + 1) for i, _ in enumerate(texts)]).search("x")


def test_a_failing_embedding_is_an_error_answer_for_the_model_never_an_exception() -> None:
    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("embedding service down")

    search = _registry(broken).tool_search("openai", defer=True)
    reply = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "search_tools", "arguments": '{"query": "cash"}'}}]}  # fmt: skip
    (answer,) = search.run_tool_calls(reply)
    assert answer["content"].startswith("Error: ")
    assert "embedding service down" in answer["content"]


@settings(max_examples=30, deadline=None)
@given(query=st.text(max_size=200), k=st.integers(1, 6), tags=st.sampled_from([None, "x", []]))
def test_any_query_gives_a_list_of_enabled_tools_at_most_k(query: str, k: int, tags: Any) -> None:
    registry = _registry(ToyEmbedding())
    registry.disable("send_email")
    found = registry.search(query, k=k, tags=tags)
    assert len(found) <= k
    assert len({t.name for t in found}) == len(found)
    assert all(t.enabled for t in found)
    if tags is not None:
        assert found == []
