"""`RateLimit` and `Cache` with ``storage="redis://..."``, against a real Redis server.

Two registries stand for two workers behind a load balancer: each has its own
middleware objects with the same settings on the same URL, and they share one limit and
one cache. The server is a real ``redis-server`` started on a free port of 127.0.0.1 in
a temporary directory (no persistence); the tests skip, saying why, where the binary
is missing. An unreachable storage fails the limit closed and the cache open, naming
the storage, within the (shortened) socket timeout.
"""

from __future__ import annotations

import asyncio
import functools
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from listening import closed_port
from redis_process import redis_started
from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("limits", reason="the redis extra is not installed")
    with redis_started(tmp_path_factory) as url:
        yield url


@pytest.fixture
def url(redis_server: str) -> Iterator[str]:
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushdb()  # each test starts from an empty database
    yield redis_server
    client.close()


def worker(middleware: list[Any], runs: list[str]) -> ToolRegistry:
    """One worker's registry: the same tools, its own middleware objects."""
    registry = ToolRegistry(middleware=middleware)

    @registry.tool(annotations={"readOnlyHint": True})
    def lookup(key: str) -> dict[str, Any]:
        runs.append(key)
        return {"key": key, "value": len(runs), "tags": ["a", None, 1.5, True]}

    @registry.tool(annotations={"readOnlyHint": True})
    def pair(key: str) -> tuple[str, int]:  # a tuple reads back from JSON as a list
        runs.append(key)
        return (key, len(runs))

    @registry.tool(annotations={"readOnlyHint": True})
    def broken(key: str) -> str:
        runs.append(key)
        raise ConnectionError("upstream down")

    return registry


def test_two_workers_share_one_rate_limit(url: str) -> None:
    from tooldeck.middleware import RateLimit

    runs: list[str] = []
    a = worker([RateLimit(3, per=60, key="user", storage=url)], runs)
    b = worker([RateLimit(3, per=60, key="user", storage=url)], runs)
    ann = {"user": "ann"}
    assert a.call_tool("lookup", {"key": "1"}, context=ann)["key"] == "1"
    assert asyncio.run(b.async_call_tool("lookup", {"key": "2"}, context=ann))["key"] == "2"
    assert b.call_tool("lookup", {"key": "3"}, context=ann)["key"] == "3"
    refused = a.call_tool("lookup", {"key": "4"}, context=ann)
    prefix = "Error: Rate limit reached for tool 'lookup' (3 calls per 60 seconds): try again in"
    assert refused.startswith(prefix)
    wait = float(refused[len(prefix) :].split()[0])
    assert 0 < wait <= 60
    assert asyncio.run(b.async_call_tool("lookup", {"key": "5"}, context=ann)).startswith(prefix)
    assert b.call_tool("lookup", {"key": "6"}, context={"user": "bob"})["key"] == "6"  # own
    assert runs == ["1", "2", "3", "6"]
    # Another setting is another limit; the keys name the middleware and its settings.
    c = worker([RateLimit(5, per=60, key="user", storage=url)], runs)
    assert c.call_tool("lookup", {"key": "7"}, context=ann)["key"] == "7"
    import redis

    keys = sorted(k.decode() for k in redis.Redis.from_url(url).keys("*"))
    assert keys and all(k.startswith("tooldeck:RateLimit:") for k in keys)
    assert any(":3/60s" in k for k in keys) and any(":5/60s" in k for k in keys)


def test_limits_keyed_on_different_context_keys_do_not_share_a_window(url: str) -> None:
    """The Redis keys named the calls and the period, not ``key=``: a limit per user and
    one per tenant, alike otherwise, counted the user "acme" and the tenant "acme" as
    one caller."""
    from tooldeck.middleware import RateLimit

    runs: list[str] = []
    per_user = worker([RateLimit(1, per=60, key="user", storage=url)], runs)
    per_tenant = worker([RateLimit(1, per=60, key="tenant", storage=url)], runs)
    acme = {"user": "acme", "tenant": "acme"}
    assert per_user.call_tool("lookup", {"key": "1"}, context=acme)["key"] == "1"
    assert per_tenant.call_tool("lookup", {"key": "2"}, context=acme)["key"] == "2"
    assert per_user.call_tool("lookup", {"key": "3"}, context=acme).startswith("Error: Rate")
    assert runs == ["1", "2"]


def test_two_workers_share_one_cache(url: str) -> None:
    from tooldeck.middleware import Cache

    runs: list[str] = []
    a = worker([Cache(60, vary="tenant", storage=url)], runs)
    b = worker([Cache(60, vary="tenant", storage=url)], runs)
    t1, t2 = {"tenant": "t1"}, {"tenant": "t2"}
    first = a.call_tool("lookup", {"key": "k"}, context=t1)
    assert first == {"key": "k", "value": 1, "tags": ["a", None, 1.5, True]}
    assert b.call_tool("lookup", {"key": "k"}, context=t1) == first  # from a's answer
    assert asyncio.run(b.async_call_tool("lookup", {"key": "k"}, context=t1)) == first
    assert b.call_tool("lookup", {"key": "k"}, context=t2)["value"] == 2  # never across vary
    assert runs == ["k", "k"]
    # What would not read back as it was (a tuple) is not stored; nor is a failure.
    assert a.call_tool("pair", {"key": "p"}) == ("p", 3)
    assert b.call_tool("pair", {"key": "p"}) == ("p", 4)
    assert a.call_tool("broken", {"key": "x"}) == "Error: upstream down"
    assert asyncio.run(b.async_call_tool("broken", {"key": "x"})) == "Error: upstream down"
    assert runs == ["k", "k", "p", "p", "x", "x"]
    import redis

    keys = [k.decode() for k in redis.Redis.from_url(url).keys("*")]
    assert len(keys) == 2 and all(k.startswith("tooldeck:Cache:ttl=60:vary=tenant:") for k in keys)
    assert all(":lookup:" in k for k in keys)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers: only a timeout ends a wait."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


@pytest.mark.timeout(30)
def test_an_unreachable_storage_fails_the_limit_closed_and_the_cache_open(
    silent_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooldeck.middleware import Cache, RateLimit, _redis

    monkeypatch.setattr(_redis, "TIMEOUT", 0.2)  # the socket timeouts, shortened
    with closed_port() as refusing:
        for port in (refusing, silent_port):
            url = f"redis://user:s3cret@127.0.0.1:{port}/0"
            runs: list[str] = []
            limited = worker([RateLimit(3, per=60, storage=url)], runs)
            cached = worker([Cache(60, storage=url)], runs)
            for answer in (
                limited.call_tool("lookup", {"key": "a"}),
                asyncio.run(limited.async_call_tool("lookup", {"key": "a"})),
            ):
                assert answer.startswith(
                    "Error: Rate limit for tool 'lookup' cannot be checked: its storage "
                    f"redis://127.0.0.1:{port}/0 did not answer"
                )
                assert "s3cret" not in answer
            assert runs == []  # closed: the tool never ran
            assert cached.call_tool("lookup", {"key": "b"})["key"] == "b"  # open: it ran
            assert asyncio.run(cached.async_call_tool("lookup", {"key": "b"}))["key"] == "b"
            assert runs == ["b", "b"]


def test_cache_keys_in_redis_share_an_answer_only_for_the_same_arguments(
    redis_server: str,
) -> None:
    """The property of tests/property/test_cache_key_properties.py, against Redis: two
    calls share a stored answer exactly when the tool gets the same validated
    arguments ("a" and b"a", [1] and (1,), two models alike in JSON are distinct)."""
    import redis
    from hypothesis import HealthCheck, given, settings

    from cache_keys import call_pairs, check_pair, key_tools
    from tooldeck.middleware import Cache

    client = redis.Redis.from_url(redis_server)
    plain = key_tools(ToolRegistry())

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(pair=call_pairs())
    def check(pair: tuple[str, dict[str, Any], dict[str, Any], bool]) -> None:
        client.flushdb()
        cached = key_tools(ToolRegistry(middleware=[Cache(60, storage=redis_server)]))
        check_pair(cached, plain, pair)

    try:
        check()
    finally:
        client.close()


def _read(field: str, call: Any) -> Any:
    return call.context.get(field)


def _by(field: str) -> Any:
    return lambda call: call.context.get(field)


class _PerUser:
    @staticmethod
    def key(call: Any) -> Any:
        return call.context.get("user")


class _PerTenant:
    @staticmethod
    def key(call: Any) -> Any:
        return call.context.get("tenant")


def _twin_named(field: str) -> Any:
    """A function named as `_PerUser.key`'s is, in another module."""
    import types

    code = compile(f"def key(call):\n    return call.context.get({field!r})\n", "m.py", "exec")
    module = types.ModuleType(f"elsewhere_{field}")
    exec(code, module.__dict__)
    return module.key


@pytest.mark.parametrize(
    ("by_user", "by_tenant"),
    [
        (lambda call: call.context.get("user"), lambda call: call.context.get("tenant")),
        (_by("user"), _by("tenant")),  # two closures of one factory
        (functools.partial(_read, "user"), functools.partial(_read, "tenant")),
        (_PerUser.key, _PerTenant.key),
        (_twin_named("user"), _twin_named("tenant")),  # one name, two modules
    ],
    ids=["lambdas", "closures", "partials", "methods", "modules"],
)
def test_limits_keyed_by_two_callables_do_not_share_a_window(
    url: str, by_user: Any, by_tenant: Any
) -> None:
    """The Redis key named a key= callable by its qualified name: two lambdas (both
    ``<lambda>``), two closures of one factory, two partials shared one window, and one
    limit throttled the other's callers."""
    from tooldeck.middleware import RateLimit

    runs: list[str] = []
    per_user = worker([RateLimit(1, per=60, key=by_user, storage=url)], runs)
    per_tenant = worker([RateLimit(1, per=60, key=by_tenant, storage=url)], runs)
    acme = {"user": "acme", "tenant": "acme"}
    for registry, key in ((per_user, "1"), (per_tenant, "2")):
        answer = registry.call_tool("lookup", {"key": key}, context=acme)
        assert isinstance(answer, dict) and answer["key"] == key, answer
    # ... while the same callable in another worker meets on the same window.
    again = worker([RateLimit(1, per=60, key=by_user, storage=url)], runs)
    assert again.call_tool("lookup", {"key": "3"}, context=acme).startswith("Error: Rate")
    assert runs == ["1", "2"]


def test_two_tools_of_one_name_in_two_registries_do_not_share_answers(url: str) -> None:
    """Two services on one Redis, each with a tool named ``lookup`` that is another
    tool: the stored answers were keyed by the tool's name alone, and one service's
    callers got the other's answers."""
    from tooldeck.middleware import Cache

    runs: list[str] = []
    docs = ToolRegistry(middleware=[Cache(60, storage=url)])
    web = ToolRegistry(middleware=[Cache(60, storage=url)])

    @docs.tool(name="lookup", annotations={"readOnlyHint": True})
    def lookup_docs(key: str) -> str:
        runs.append("docs")
        return f"docs for {key}"

    @web.tool(name="lookup", annotations={"readOnlyHint": True})
    def lookup_web(key: str) -> str:
        runs.append("web")
        return f"web pages for {key}"

    assert docs.call_tool("lookup", {"key": "k"}) == "docs for k"
    assert web.call_tool("lookup", {"key": "k"}) == "web pages for k"
    # The same tool in another worker of one service still shares them.
    again = ToolRegistry(middleware=[Cache(60, storage=url)])
    again.register(docs.get("lookup"))
    assert again.call_tool("lookup", {"key": "k"}) == "docs for k"
    assert runs == ["docs", "web"]


def test_key_values_of_two_classes_of_one_name_are_two_callers(url: str) -> None:
    """A key value was written as its class's bare name and its text: ``Tier.FREE`` of
    two classes ``Tier`` (two modules) was one caller in Redis, two in the process."""
    from enum import Enum

    from tooldeck.middleware import RateLimit

    billing = Enum("Tier", ["FREE"], module="billing")  # type: ignore[misc]
    support = Enum("Tier", ["FREE"], module="support")  # type: ignore[misc]
    runs: list[str] = []
    registry = worker(
        [RateLimit(1, per=60, key=lambda call: call.context["tier"], storage=url)], runs
    )
    for tier in (billing.FREE, support.FREE):
        answer = registry.call_tool("lookup", {"key": tier.__module__}, context={"tier": tier})
        assert isinstance(answer, dict), answer
    assert registry.call_tool("lookup", {"key": "x"}, context={"tier": billing.FREE}).startswith(
        "Error: Rate limit"
    )
    assert runs == ["billing", "support"]


# Key values a dict holds as one (1 == 1.0 == True, 0.0 == -0.0) or that print alike in
# another process's order (a frozenset of str): who is throttled with whom must not
# change when a deployment moves its limit from the process to Redis.
KEY_VALUES = [1, 1.0, True, "1", 0, 0.0, -0.0, False, None, (1, "a"), frozenset({"x", "y"})]


def throttled(registry: ToolRegistry, values: list[Any]) -> list[bool]:
    """For each value in turn: whether a call keyed by it was refused."""
    refused = []
    for value in values:
        answer = registry.call_tool("lookup", {"key": "k"}, context={"user": value})
        refused.append(isinstance(answer, str) and answer.startswith("Error: Rate limit"))
    return refused


def test_in_process_and_redis_limits_throttle_the_same_callers_together(url: str) -> None:
    from tooldeck.middleware import RateLimit

    in_process = worker([RateLimit(1, per=60, key="user")], [])
    in_redis = worker([RateLimit(1, per=60, key="user", storage=url)], [])
    values = [*KEY_VALUES, *KEY_VALUES]  # each once more: now refused, in both
    assert throttled(in_process, values) == throttled(in_redis, values)
    assert throttled(worker([RateLimit(1, per=60, key="user")], []), [1, 1.0, True]) == [
        False,
        False,
        False,
    ]  # three callers, as in Redis
