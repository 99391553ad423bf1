"""`benchmarks.search_misses` sorts a search's misses into the kinds docs/search.md
counts: each kind pinned on a catalog of a few words (no BFCL data, no registry)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def misses() -> ModuleType:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import search_misses
    finally:
        sys.path.remove(str(ROOT))
    return search_misses


TOOLS = {
    "currency_convert": ("Convert an amount from one currency to another.", {}),
    "money_convert": ("Convert an amount of money from one currency to another.", {}),
    "unit_convert": ("Convert a value from one unit to another.", {}),
    "coin_toss_odds": ("Probability of heads in coin tosses.", {}),
    "binomial": ("Binomial probability of k successes in n trials.", {}),
    "stock_price": ("A stock's latest price.", {}),
}


def kinds(misses: ModuleType, text: str, names: set[str], found: list[str]) -> list[object]:
    words = {n: misses.tool_words(n, d, p) for n, (d, p) in TOOLS.items()}
    about = {n: misses.described(n, d) for n, (d, _) in TOOLS.items()}
    asked = "What are the odds of 3 heads in 5 coin tosses?"
    answers = {"coin_toss_odds": [(asked, misses.plain_terms(asked))]}
    return list(misses.missing_kinds(text, names, found, words, about, answers))


def test_each_kind_of_miss(misses: ModuleType) -> None:
    # no word of "dollars to yen" is in the converter's text: it needs knowledge
    assert kinds(misses, "100 dollars in yen", {"currency_convert"}, ["stock_price"]) == [
        ("no shared word", False)
    ]
    # the same words, another name: a near-duplicate took its place
    found = ["money_convert", "unit_convert", "stock_price", "coin_toss_odds", "binomial"]
    assert kinds(misses, "convert currency", {"currency_convert"}, found) == [
        ("near-duplicate", True)
    ]
    # BFCL's own answer to another question with these words sits above it
    found = ["coin_toss_odds", "stock_price", "unit_convert", "money_convert", "currency_convert"]
    assert kinds(misses, "probability of 7 heads in 10 coin tosses", {"binomial"}, found) == [
        ("answered elsewhere", True)
    ]
    # ranked 6-10, its one shared word ("probability") in a tool above it
    found = ["coin_toss_odds", "stock_price", "unit_convert", "money_convert", "currency_convert"]
    assert kinds(misses, "probability of rain", {"binomial"}, [*found, "binomial"]) == [
        ("6-10", True)
    ]
    assert kinds(misses, "binomial probability", {"binomial"}, found) == [("beyond 10", False)]


def test_a_question_is_its_worst_miss(misses: ModuleType) -> None:
    assert misses.question_kind([("near-duplicate", True), ("6-10", True)]) == ("6-10", True)
    # dominated only when every miss of its worst kind is
    assert misses.question_kind([("beyond 10", True), ("beyond 10", False)]) == (
        "beyond 10",
        False,
    )
    assert misses.question_kind([("near-duplicate", False), ("answered elsewhere", False)]) == (
        "answered elsewhere",
        False,
    )
