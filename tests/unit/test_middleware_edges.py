"""The built-in middleware at the edges of their arguments: huge numbers, a clock that
goes back, many attempts. Each answer is the tool's own or a limit's own words, never an
arithmetic error of the middleware's (``OverflowError``) quoted to the model."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck.middleware import Cache, RateLimit, Retry


def _failing(registry: ToolRegistry, calls: list[int]) -> None:
    @registry.tool
    def fetch() -> str:
        """Always down."""
        calls.append(1)
        raise ConnectionError("down")


@pytest.mark.parametrize("backoff", [0.0, 1e-300])
def test_retry_many_attempts_answers_the_tools_error(
    monkeypatch: pytest.MonkeyPatch, backoff: float
) -> None:
    """Past 1,024 attempts a float backoff doubled overflowed: the model read
    "Error: int too large to convert to float" instead of the tool's error."""
    from tooldeck.middleware import _retry

    waits: list[float] = []
    monkeypatch.setattr(_retry, "_sleep", waits.append)
    calls: list[int] = []
    registry = ToolRegistry(middleware=[Retry(1100, backoff=backoff)])
    _failing(registry, calls)
    assert registry.call_tool("fetch", {}) == "Error: down"
    assert len(calls) == 1100
    # doubled after each attempt, up to what a thread can sleep
    assert all(later >= earlier for earlier, later in itertools.pairwise(waits))
    assert max(waits, default=0.0) <= _retry.MAX_WAIT


async def test_retry_callable_backoff_returning_huge_waits_at_most_max(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tooldeck.middleware import _retry

    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(_retry, "_asleep", asleep)
    calls: list[int] = []
    registry = ToolRegistry(middleware=[Retry(2, backoff=lambda attempt: 1e300)])
    _failing(registry, calls)
    assert await registry.async_call_tool("fetch", {}) == "Error: down"
    assert waits == [_retry.MAX_WAIT]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Retry(3, backoff=10**400),
        lambda: RateLimit(10**400, per=1),
        lambda: RateLimit(1, per=10**400),
        lambda: Cache(ttl=10**400),
    ],
)
def test_numbers_no_float_holds_are_refused_when_made(make: object) -> None:
    """They were taken, then every call failed with an OverflowError's words."""
    with pytest.raises(ValueError, match="must be"):
        make()  # type: ignore[operator]


def test_rate_limit_with_a_huge_period_says_when_to_try_again() -> None:
    registry = ToolRegistry(middleware=[RateLimit(1, per=1e308)])

    @registry.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert registry.call_tool("ping", {}) == "pong"
    refused = registry.call_tool("ping", {})
    assert refused.startswith("Error: Rate limit reached for tool 'ping'")
    assert refused.endswith(" seconds") and "infinity" not in refused


def test_rate_limit_clock_going_back_gives_no_free_burst() -> None:
    """A clock stepping back then forward refilled the bucket for time counted twice."""
    now = [1000.0]
    registry = ToolRegistry(middleware=[RateLimit(2, per=100, clock=lambda: now[0])])

    @registry.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert [registry.call_tool("ping", {}) for _ in range(2)] == ["pong", "pong"]
    now[0] = 0.0  # back
    assert registry.call_tool("ping", {}).startswith("Error: Rate limit reached")
    now[0] = 1000.0  # forward to where it was: no time has passed
    assert registry.call_tool("ping", {}).startswith("Error: Rate limit reached")
    now[0] = 1050.0  # half the period: one call's token
    assert registry.call_tool("ping", {}) == "pong"
    assert registry.call_tool("ping", {}).startswith("Error: Rate limit reached")


@pytest.mark.timeout(20)
async def test_concurrency_limit_holds_for_a_task_outliving_its_call() -> None:
    """A task a tool starts keeps the call's context: after the call had given its slot
    back, the task's calls ran "in that slot", beside the call now holding it (2 of 1)."""
    import asyncio

    from tooldeck.middleware import ConcurrencyLimit

    limit = ConcurrencyLimit(1)
    registry = ToolRegistry(middleware=[limit])
    running: list[str] = []
    peak = [0]
    started, hold, release = asyncio.Event(), asyncio.Event(), asyncio.Event()
    background: list[asyncio.Task[Any]] = []

    @registry.tool
    async def work(name: str) -> str:
        """Work until let go."""
        running.append(name)
        peak[0] = max(peak[0], len(running))
        if name == "long":
            started.set()
            await hold.wait()
        running.remove(name)
        return name

    @registry.tool
    async def spawner() -> str:
        """Starts work in the background and returns at once."""

        async def later() -> Any:
            await release.wait()
            return await registry.async_call_tool("work", {"name": "background"})

        background.append(asyncio.create_task(later()))
        return "spawned"

    assert await registry.async_call_tool("spawner", {}) == "spawned"
    long = asyncio.create_task(registry.async_call_tool("work", {"name": "long"}))
    await started.wait()
    release.set()
    for _ in range(200):  # until the background call runs, or waits for the slot
        if len(running) > 1 or limit._pools.waiters:
            break
        await asyncio.sleep(0)
    hold.set()
    assert await asyncio.gather(long, background[0]) == ["long", "background"]
    assert peak[0] == 1


def test_cache_in_redis_with_a_huge_ttl_is_made() -> None:
    """``ttl=1e308`` is finite, so taken; in milliseconds for Redis it overflowed, and
    making the Cache raised an OverflowError. (Nothing connects until a call.)"""
    pytest.importorskip("redis")
    cache = Cache(ttl=1e308, storage="redis://127.0.0.1:1/0")
    assert 0 < cache._store.ttl_ms < 2**63 - 1
