"""`registry.search`: what it returns, in which order, on any query, and an index that
keeps up with every change to the catalog (threads included)."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry
from tooldeck.search import _index, _tokens


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(tags=["weather"])
    def get_weather(city: str) -> str:
        """Current weather conditions for a city.

        Args:
            city: The city, e.g. Taipei.
        """
        return city

    @registry.tool(tags=["math"])
    def calculate_hypotenuse(a: float, b: float) -> float:
        """Length of a right triangle's longest side."""
        return (a * a + b * b) ** 0.5

    @registry.tool
    def sendEmail(recipient: str, subject: str) -> str:
        """Send a message.

        Args:
            recipient: The address to write to.
            subject: The subject line.
        """
        return recipient

    return registry


def _names(tools: list[Any]) -> list[str]:
    return [t.name for t in tools]


# -- what is found ---------------------------------------------------------------------------


def test_finds_by_description_name_words_and_parameters() -> None:
    registry = _registry()
    assert _names(registry.search("what's the weather like in Paris?"))[0] == "get_weather"
    assert _names(registry.search("triangle side lengths"))[0] == "calculate_hypotenuse"
    assert _names(registry.search("email someone"))[0] == "sendEmail"  # camelCase split
    assert _names(registry.search("which address and subject line"))[0] == "sendEmail"
    assert _names(registry.search("calculate-hypotenuse"))[0] == "calculate_hypotenuse"
    assert _names(registry.search("get_weather"))[0] == "get_weather"


def test_a_parameters_allowed_values_are_searched() -> None:
    registry = _registry()

    @registry.tool
    def convert_temperature(unit: Literal["Celsius", "Fahrenheit", 451]) -> str:
        """Convert a reading."""
        return str(unit)

    assert _names(registry.search("in fahrenheit please")) == ["convert_temperature"]
    assert _names(registry.search("451")) == ["convert_temperature"]


def test_a_request_for_several_things_gets_each_not_near_duplicates_of_one() -> None:
    registry = ToolRegistry()
    for name in ("circle_area", "circle_calculate_area", "area_of_circle"):
        registry.register(
            lambda radius: radius, name=name, description="Area of a circle from its radius."
        )
    registry.register(lambda symbol: symbol, name="stock_quote", description="A stock's price.")
    for i in range(10):  # "price" and "today" common, the circle's words rarer
        registry.register(lambda x: x, name=f"filler_{i}", description="Price of a share today.")
    request = (
        "Could you help with my homework and my savings? First compute the circle area for "
        "a circle with radius four centimetres, then the circle area again for radius nine "
        "metres, rounding each area to two decimals. Finally tell me Apple's stock price "
        "today, because tomorrow I buy shares, sell bonds, rebalance pensions, review "
        "dividends, budgets, mortgages, insurance and taxes."
    )
    assert len(_tokens.query_terms(request)) >= 30  # read as a request for several things
    assert _names(registry.search(request, k=2)) == ["circle_area", "stock_quote"]
    # a short request keeps the plain ranking: near-duplicates side by side
    assert _names(registry.search("the circle area from a radius", k=2)) == [
        "circle_area",
        "circle_calculate_area",
    ]


def test_a_tool_named_in_the_request_comes_first() -> None:
    registry = ToolRegistry()
    described = {
        "lawsuit_details_find": "Find the details of lawsuits involving an entity in a county.",
        "lawsuit_fetch_details": "Fetch lawsuits involving an entity, with their details.",
        "lawsuit_search": "Search for cases.",
        "search_google": "Search Google for pages.",
        "math_hypot": "Euclidean norm.",
        "geometry_distance": "Distance between two points, the hypotenuse of their offsets.",
        "getWeather": "Conditions.",
        "weather_report": "The weather for a city, today.",
    }
    for name, description in described.items():
        registry.register(lambda x: x, name=name, description=description)
    request = "Use the {} function to {}"
    asks = {
        "lawsuit_search": "find all lawsuits involving Google in the county of Santa Clara",
        "math.hypot": "get the distance between two points, the hypotenuse",
        "getWeather": "tell me the weather in Paris today",
    }
    for named, ask in asks.items():
        # the words alone favour another tool; the name decides
        assert _names(registry.search(ask))[0] != named.replace(".", "_")
        assert _names(registry.search(request.format(named, ask)))[0] == named.replace(".", "_")
    assert _names(registry.search("call lawsuit-search"))[0] == "lawsuit_search"
    # a date or a version is not a name
    assert "2024-05-01" not in _tokens.query_terms("on 2024-05-01 with v1.2")
    assert "v1.2" in _tokens.query_terms("on 2024-05-01 with v1.2")


def test_light_stemming_meets_inflections() -> None:
    registry = _registry()
    assert _names(registry.search("calculating"))[0] == "calculate_hypotenuse"
    assert _names(registry.search("sending emails"))[0] == "sendEmail"


def test_a_query_sharing_no_term_finds_nothing() -> None:
    assert _registry().search("photosynthesis") == []


def test_only_enabled_tools_and_the_given_tags() -> None:
    registry = _registry()
    registry.disable("get_weather")
    assert "get_weather" not in _names(registry.search("weather city"))
    registry.enable("get_weather")
    assert _names(registry.search("weather city"))[0] == "get_weather"
    assert registry.search("weather city", tags="math") == []
    assert _names(registry.search("weather triangle", tags=["math"])) == ["calculate_hypotenuse"]
    registry.tag("sendEmail", "math")
    assert _names(registry.search("send", tags="math")) == ["sendEmail"]
    registry.tag("calculate_hypotenuse", "geometry")
    both = ["math", "geometry"]
    assert _names(registry.search("send triangle", tags=both, match="all")) == [
        "calculate_hypotenuse"
    ]
    with pytest.raises(ValueError):
        registry.search("send", tags="math", match="some")  # type: ignore[arg-type]


def test_at_most_k_best_first_ties_in_registration_order() -> None:
    registry = ToolRegistry()
    for name in ("zeta", "alpha", "mid"):
        registry.register(lambda x: x, name=f"lookup_{name}", description="Find a record.")
    registry.register(lambda x: x, name="record_lookup", description="Find a record by record id.")
    found = _names(registry.search("record lookup", k=10))
    assert found[0] == "record_lookup"
    assert found[1:] == ["lookup_zeta", "lookup_alpha", "lookup_mid"]  # tied: registered order
    assert _names(registry.search("record lookup", k=2)) == ["record_lookup", "lookup_zeta"]
    assert registry.search("record", k=0) == []


def test_arguments_are_checked() -> None:
    registry = _registry()
    with pytest.raises(ValueError):
        registry.search("weather", k=-1)
    with pytest.raises(TypeError):
        registry.search("weather", k=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        registry.search(None)  # type: ignore[arg-type]


def test_languages_and_scripts_without_spaces() -> None:
    registry = ToolRegistry()
    registry.register(lambda city: city, name="tianqi", description="查询城市的天气预报")
    registry.register(lambda city: city, name="tenki", description="都市の天気予報を調べる")
    registry.register(lambda q: q, name="wetter", description="Zeigt das Wetter für eine Straße")
    registry.register(lambda q: q, name="pogoda", description="Прогноз погоды для города")
    assert _names(registry.search("北京明天天气怎么样"))[0] == "tianqi"
    assert _names(registry.search("東京の天気予報を調べて"))[0] == "tenki"
    assert _names(registry.search("WETTER straße"))[0] == "wetter"
    assert _names(registry.search("прогноз погоды"))[0] == "pogoda"
    assert set(_names(registry.search("天", k=5))) == {"tianqi", "tenki"}


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "?!.,;:()[]{}" * 1000,
        "\x00\x01\x02\x7f\u200b\ufeff",
        "weather " * 1_400_000,  # ~10 MB
        "x" * 10_000_000,
        "ᚠᛇᚻ᛫ᛒᛦᚦ",
        "\ud800 lone surrogate",
        "🌦️🌦️🌦️",
    ],
)
def test_any_query_gives_a_list(query: str) -> None:
    found = _registry().search(query, k=3)
    assert isinstance(found, list) and len(found) <= 3


def test_query_work_is_bounded() -> None:
    many = " ".join(f"word{i}" for i in range(100_000))
    assert len(_tokens.query_terms(many)) <= _tokens.MAX_QUERY_TERMS
    names = " ".join(f"tool_{i} plain{i}" for i in range(100_000))
    found = _tokens.query_terms(names)
    assert len(found) <= _tokens.MAX_QUERY_TERMS
    assert "plain1" in found  # names leave room for the request's words


# -- every tool sharing a term can be returned; the pruning is exact -------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta"]


@settings(max_examples=60, deadline=None)
@given(
    docs=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=30
    ),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    k=st.integers(1, 8),
    disabled=st.sets(st.integers(0, 29)),
)
def test_search_equals_an_exhaustive_ranking(
    docs: list[list[str]], query: list[str], k: int, disabled: set[int]
) -> None:
    registry = ToolRegistry()
    for i, words in enumerate(docs):
        registry.register(lambda x: x, name=f"t{i}", description=" ".join(words))
    for i in disabled & set(range(len(docs))):
        registry.disable(f"t{i}")
    found = _names(registry.search(" ".join(query), k=k))
    # the exhaustive ranking, from the same weights, with no pruning
    index = registry._catalog.search_index
    scores: dict[str, float] = {}
    for term in _tokens.query_terms(" ".join(query)):
        postings = index._postings.get(term, {})
        for name, weight in postings.items():
            rarity = _index.idf(len(index._docs), len(postings))
            scores[name] = scores.get(name, 0.0) + rarity * weight
    order = registry._catalog.order
    ranked = sorted(
        (n for n in scores if registry.get(n).enabled),  # type: ignore[union-attr]
        key=lambda n: (-scores[n], order[n]),
    )
    assert found == ranked[:k]
    sharing = {f"t{i}" for i, words in enumerate(docs) if set(words) & set(query)} - {
        f"t{i}" for i in disabled
    }
    assert set(_names(registry.search(" ".join(query), k=len(docs)))) == sharing


# -- the index keeps up ---------------------------------------------------------------------------


def test_index_follows_register_replace_unregister() -> None:
    registry = _registry()
    assert registry.search("stock price") == []  # the index exists now
    registry.register(lambda s: s, name="quote", description="Latest stock price")
    assert _names(registry.search("stock price")) == ["quote"]
    registry.register(lambda s: s, name="quote", description="Exchange rates", replace=True)
    assert registry.search("stock price") == []
    assert _names(registry.search("exchange rates")) == ["quote"]
    registry.unregister("quote")
    assert registry.search("exchange rates") == []
    registry.register(lambda s: s, name="quote", description="Exchange rates")
    assert _names(registry.search("exchange rates")) == ["quote"]


def test_index_reweighs_after_the_catalog_grows_a_lot() -> None:
    registry = ToolRegistry()
    registry.register(lambda s: s, name="first", description="alpha")
    assert _names(registry.search("alpha")) == ["first"]
    for i in range(200):
        registry.register(lambda s: s, name=f"filler_{i}", description="word " * (i % 7 + 1))
    registry.register(lambda s: s, name="last", description="alpha beta")
    assert _names(registry.search("alpha", k=5)) == ["first", "last"]


@pytest.mark.timeout(60)
def test_concurrent_registration_and_search_lose_nothing() -> None:
    registry = _registry()
    registry.search("weather")
    errors: list[BaseException] = []
    start = threading.Barrier(5)

    def register(worker: int) -> None:
        try:
            start.wait()
            for i in range(60):
                registry.register(
                    lambda s: s, name=f"w{worker}_{i}", description=f"token{worker}x{i} shared"
                )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def search() -> None:
        try:
            start.wait()
            for _ in range(100):
                assert len(registry.search("shared", k=3)) <= 3
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=register, args=(w,)) for w in range(4)]
    threads.append(threading.Thread(target=search))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=50)
    assert not errors
    assert len(registry.search("shared", k=1000)) == 240
    for worker in range(4):
        for i in (0, 59):
            assert _names(registry.search(f"token{worker}x{i}"))[0] == f"w{worker}_{i}"


@pytest.mark.timeout(60)
def test_import_tooldeck_does_not_import_the_index() -> None:
    code = (
        "import sys, tooldeck\n"
        "assert 'tooldeck.search' not in sys.modules\n"
        "r = tooldeck.ToolRegistry(); r.register(lambda q: q, name='x', description='find')\n"
        "assert 'tooldeck.search' not in sys.modules\n"
        "assert [t.name for t in r.search('find')] == ['x']\n"
        "assert 'tooldeck.search' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=50)
