"""The search's English stemmer: Porter2 as the Snowball reference gives it, and what
it changes in what a request finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry
from tooldeck.search._stem import porter2
from tooldeck.search._tokens import stem, terms

# (word, stem) from the Snowball reference implementation (English, version 2): every
# step and its exceptions (R1 prefixes, invariant words, the double-letter rule).
REFERENCE = [
    ("consign", "consign"), ("consigned", "consign"), ("consigning", "consign"),
    ("consignment", "consign"), ("consist", "consist"), ("consisted", "consist"),
    ("consistency", "consist"), ("consistent", "consist"), ("consistently", "consist"),
    ("consisting", "consist"), ("consists", "consist"), ("generously", "generous"),
    ("generate", "generat"), ("generation", "generat"), ("communication", "communic"),
    ("arsenal", "arsenal"), ("knightly", "knight"), ("kneeling", "kneel"), ("skies", "sky"),
    ("dying", "die"), ("news", "news"), ("cities", "citi"), ("probabilities", "probabl"),
    ("probability", "probabl"), ("calculate", "calcul"), ("calculation", "calcul"),
    ("calculator", "calcul"), ("calculating", "calcul"), ("rates", "rate"),
    ("rating", "rate"), ("rated", "rate"), ("hopping", "hop"), ("hoping", "hope"),
    ("added", "add"), ("agreed", "agre"), ("feed", "feed"), ("proceed", "proceed"),
    ("inning", "inning"), ("evening", "evening"), ("sensational", "sensat"),
    ("conditional", "condit"), ("valency", "valenc"), ("hesitancy", "hesit"),
    ("digitizer", "digit"), ("conformabli", "conform"), ("radically", "radic"),
    ("differentli", "differ"), ("vileli", "vile"), ("analogousli", "analog"),
    ("vietnamization", "vietnam"), ("predication", "predic"), ("operator", "oper"),
    ("feudalism", "feudal"), ("decisiveness", "decis"), ("hopefulness", "hope"),
    ("callousness", "callous"), ("formaliti", "formal"), ("sensitiviti", "sensit"),
    ("sensibiliti", "sensibl"), ("triplicate", "triplic"), ("formative", "format"),
    ("formalize", "formal"), ("electriciti", "electr"), ("electrical", "electr"),
    ("hopeful", "hope"), ("goodness", "good"), ("revival", "reviv"),
    ("allowance", "allow"), ("inference", "infer"), ("airliner", "airlin"),
    ("gyroscopic", "gyroscop"), ("adjustable", "adjust"), ("defensible", "defens"),
    ("irritant", "irrit"), ("replacement", "replac"), ("adjustment", "adjust"),
    ("dependent", "depend"), ("adoption", "adopt"), ("homologou", "homologou"),
    ("communism", "communism"), ("activate", "activ"), ("angulariti", "angular"),
    ("homologous", "homolog"), ("effective", "effect"), ("bowdlerize", "bowdler"),
    ("biologist", "biolog"), ("international", "internat"), ("universal", "universal"),
    ("organization", "organiz"), ("emergency", "emergenc"), ("lying", "lie"),
    ("united", "unit"), ("converting", "convert"), ("conversion", "convers"),
    ("forecasts", "forecast"), ("fahrenheit", "fahrenheit"), ("celsius", "celsius"),
    ("by", "by"), ("sky", "sky"), ("yes", "yes"), ("ayes", "aye"), ("toy", "toy"),
    ("eyyy", "eyyy"), ("yysre", "yysr"), ("sayings", "say"), ("employs", "employ"),
    ("crying", "cri"), ("youth", "youth"),
]  # fmt: skip


@pytest.mark.parametrize(("word", "expected"), REFERENCE)
def test_porter2_matches_the_reference(word: str, expected: str) -> None:
    assert porter2(word) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", max_size=20))
def test_porter2_takes_any_lowercase_word(word: str) -> None:
    out = porter2(word)
    assert out.islower() or not out
    assert len(out) <= len(word) + 1  # at most an "e" added
    assert out[:1] == word[:1]


def test_only_ascii_letter_words_are_stemmed() -> None:
    assert stem("calculations") == "calcul"
    assert stem("base64") == "base64"
    assert stem("ciudades") == "ciudad"  # ASCII: English rules, as every ASCII word
    assert terms("Wetterberichte für München") == ["wetterbericht", "für", "münchen"]


def test_a_words_forms_meet_in_search() -> None:
    registry = ToolRegistry()

    @registry.tool
    def loan_calculation(amount: float) -> float:
        """Monthly payment of a loan."""
        return amount

    @registry.tool
    def exchange_rates(base: str) -> str:
        """Currency conversion rates."""
        return base

    @registry.tool
    def new_ticket(title: str) -> str:
        """Open a support ticket."""
        return title

    @registry.tool
    def headlines(topic: str) -> str:
        """Today's news on a topic."""
        return topic

    assert [t.name for t in registry.search("loan calculator", k=1)] == ["loan_calculation"]
    assert [t.name for t in registry.search("currency rating", k=1)] == ["exchange_rates"]
    # "news" is not the plural of "new"
    assert [t.name for t in registry.search("news", k=5)] == ["headlines"]


def test_numbers_in_a_request_are_values_not_what_it_asks_for() -> None:
    registry = ToolRegistry()

    @registry.tool
    def area_of_circle(radius: float) -> float:
        """Area of a circle from its radius."""
        return radius

    @registry.tool
    def top_10_songs(year: int) -> str:
        """The 10 most played songs of a year."""
        return str(year)

    @registry.tool
    def http_status_404(url: str) -> str:
        """Explain a 404 answer."""
        return url

    @registry.tool
    def parse_iso8601(text: str) -> str:
        """Read an ISO 8601 date."""
        return text

    def names(query: str) -> list[str]:
        return [t.name for t in registry.search(query, k=5)]

    assert names("area of a circle with a radius of 10") == ["area_of_circle"]
    assert names("songs of 2024") == ["top_10_songs"]
    # a query of numbers alone still searches them; a tool's own numbers are indexed
    assert names("404") == ["http_status_404"]
    assert names("10") == ["top_10_songs"]
    assert names("ISO 8601")[0] == "parse_iso8601"
    assert names("mp3 404")[0] == "http_status_404"
