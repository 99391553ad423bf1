"""The built-in middleware (tooldeck.middleware): what each is when made, and what it
does on a sync face and on an async face (each runs inline there, in its own form).

`ConcurrencyLimit` under load: tests/integration/test_middleware_concurrency.py;
`Cache`: tests/unit/test_middleware_cache.py; Redis: tests/integration/test_middleware_redis.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import ValidationError

from tooldeck import Call, Image, Injected, ToolRegistry, ToolResult
from tooldeck.middleware import Cache, ConcurrencyLimit, LimitOutput, RateLimit, Retry, _retry

pytestmark = pytest.mark.timeout(30)

# A real 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e3a7b8f90000000049454e44ae426082"
)


def sync_face(registry: ToolRegistry, name: str, args: dict[str, Any], **kw: Any) -> Any:
    return registry.call_tool(name, args, **kw)


def async_face(registry: ToolRegistry, name: str, args: dict[str, Any], **kw: Any) -> Any:
    return asyncio.run(registry.async_call_tool(name, args, **kw))


Face = Callable[..., Any]
FACES = [pytest.param(sync_face, id="sync"), pytest.param(async_face, id="async")]


# -- made: arguments checked, a useful repr ------------------------------------------------


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: ConcurrencyLimit(0), ValueError),
        (lambda: ConcurrencyLimit(1.5), TypeError),
        (lambda: ConcurrencyLimit(True), TypeError),
        (lambda: ConcurrencyLimit(2, key=3), TypeError),
        (lambda: ConcurrencyLimit(2, key=""), TypeError),
        (lambda: RateLimit(0, 1), ValueError),
        (lambda: RateLimit(5, 0), ValueError),
        (lambda: RateLimit(5, -1), ValueError),
        (lambda: RateLimit(5, float("inf")), ValueError),
        (lambda: RateLimit(5, "1"), TypeError),
        (lambda: RateLimit(5, 1, clock=3), TypeError),
        (lambda: RateLimit(5, 1, storage="http://x"), ValueError),
        (lambda: RateLimit(5, 1.5, storage="redis://127.0.0.1:1/0"), ValueError),
        (lambda: Cache(0), ValueError),
        (lambda: Cache(10, 0), ValueError),
        (lambda: Cache(10, vary=[1]), TypeError),
        (lambda: Cache(10, storage="memcached://x"), ValueError),
        (lambda: Retry(0), ValueError),
        (lambda: Retry(2, backoff=-1), ValueError),
        (lambda: Retry(2, retry_on=[ValueError, "x"]), TypeError),
        (lambda: Retry(2, retry_on=3), TypeError),
        (lambda: LimitOutput(10), ValueError),
        (lambda: LimitOutput(100.0), TypeError),
        (lambda: ConcurrencyLimit(1, tools=[""]), TypeError),
        (lambda: ConcurrencyLimit(1, tags=5), TypeError),
    ],
)
def test_bad_settings_are_refused_when_made(make: Callable[[], Any], error: type) -> None:
    with pytest.raises(error):
        make()


def test_each_shows_its_settings() -> None:
    assert repr(ConcurrencyLimit(4, key="user", tags="db")) == (
        "ConcurrencyLimit(4, key='user', tags=['db'])"
    )
    assert repr(RateLimit(10, per=60)) == "RateLimit(10, per=60)"
    assert repr(Cache(30, 100, vary=["user"], tools=["a", "b"])) == (
        "Cache(ttl=30, maxsize=100, vary=['user'], tools=['a', 'b'])"
    )
    assert repr(Retry()) == (
        "Retry(attempts=3, backoff=0.1, retry_on=(ConnectionError, TimeoutError))"
    )
    assert repr(LimitOutput(1000)) == "LimitOutput(1000)"
    url = "redis://:s3cret@127.0.0.1:1/2?socket_keepalive=true"
    assert "s3cret" not in repr(RateLimit(1, 1, storage=url))
    assert repr(RateLimit(1, 1, storage=url)).endswith("storage='redis://127.0.0.1:1/2')")


# -- RateLimit: a token bucket, on a clock the test moves ------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def rate_registry(limit: RateLimit) -> ToolRegistry:
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    def ping(n: int = 0) -> int:
        return n

    @registry.tool
    def other(n: int = 0) -> int:
        return n

    return registry


@pytest.mark.parametrize("face", FACES)
def test_rate_limit_allows_a_burst_then_says_when_to_try_again(face: Face) -> None:
    clock = Clock()
    registry = rate_registry(RateLimit(2, per=10, clock=clock, tools="ping"))
    assert [face(registry, "ping", {"n": i}) for i in (1, 2)] == [1, 2]
    refused = "Error: Rate limit reached for tool 'ping' (2 calls per 10 seconds): try again in"
    assert face(registry, "ping", {}) == f"{refused} 5.0 seconds"
    assert face(registry, "other", {"n": 7}) == 7  # not chosen: never limited
    clock.now += 4.9
    assert face(registry, "ping", {}) == f"{refused} 0.1 seconds"
    clock.now += 0.1
    assert face(registry, "ping", {"n": 3}) == 3
    assert face(registry, "ping", {}).startswith(refused)


def test_rate_limit_is_one_bucket_for_both_faces_and_one_per_key_value() -> None:
    clock = Clock()
    registry = rate_registry(RateLimit(1, per=60, key="user", clock=clock))
    assert registry.call_tool("ping", {"n": 1}, context={"user": "ann"}) == 1
    assert asyncio.run(registry.async_call_tool("ping", {}, context={"user": "ann"})).startswith(
        "Error: Rate limit reached"
    )
    assert registry.call_tool("other", {"n": 2}, context={"user": "bob"}) == 2
    assert registry.execute_sync("ping", {}, context={"user": "bob"}).success is False
    assert registry.call_tool("ping", {"n": 3}) == 3  # no user: a bucket of its own


@pytest.mark.parametrize("face", FACES)
def test_a_key_that_cannot_be_read_fails_the_call_naming_the_middleware(face: Face) -> None:
    def broken(call: Call) -> Any:
        raise LookupError("no tenant")

    for limit in (RateLimit(5, 1, key=broken), ConcurrencyLimit(2, key=broken)):
        registry = rate_registry(limit)  # type: ignore[arg-type]
        name = type(limit).__name__
        assert face(registry, "ping", {}) == (
            f"Error: {name} could not read the key of tool 'ping': no tenant"
        )
    unhashable = RateLimit(5, 1, key=lambda call: [1])
    assert face(rate_registry(unhashable), "ping", {}).startswith(
        "Error: RateLimit could not read the key of tool 'ping': unhashable type"
    )


@settings(max_examples=60, deadline=None)
@given(
    calls=st.integers(1, 5),
    per=st.sampled_from([0.5, 1, 3, 60]),
    steps=st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=40),
)
def test_rate_limit_never_allows_more_than_the_bucket_and_its_wait_is_exact(
    calls: int, per: float, steps: list[float]
) -> None:
    clock = Clock()
    start = clock.now
    registry = rate_registry(RateLimit(calls, per, clock=clock))
    allowed = 0
    for step in steps:
        clock.now += step
        result = registry.execute_sync("ping", {})
        if result.success:
            allowed += 1
        else:
            assert result.error is not None
            wait = float(result.error.split("try again in ")[1].split()[0])
            assert wait > 0
        # a bucket of `calls`, refilled at calls/per a second
        assert allowed <= calls + (clock.now - start) * calls / per + 1e-9
    # Waiting as long as a refusal says is enough (its figure rounds up to the next
    # tenth, or thousandth, of a second).
    result = registry.execute_sync("ping", {})
    if not result.success:
        assert result.error is not None
        clock.now += float(result.error.split("try again in ")[1].split()[0]) + 1e-9
        assert registry.execute_sync("ping", {}).success


# -- Retry -------------------------------------------------------------------------------


class Flaky:
    """Raises the given exceptions in turn, then answers."""

    def __init__(self, *raises: BaseException) -> None:
        self.raises = list(raises)
        self.runs = 0

    def __call__(self, n: int) -> int:
        self.runs += 1
        if self.raises:
            raise self.raises.pop(0)
        return n


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoffs Retry waited, on either face; nothing really sleeps."""
    waited: list[float] = []

    async def asleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(_retry, "_sleep", waited.append)
    monkeypatch.setattr(_retry, "_asleep", asleep)
    return waited


def retry_registry(retry: Retry, flaky: Flaky, inner: list[Call] | None = None) -> ToolRegistry:
    def count(call: Call, call_next: Any) -> ToolResult:
        if inner is not None:
            inner.append(call)
        result: ToolResult = call_next(call)
        return result

    registry = ToolRegistry(middleware=[retry, count])
    registry.tool(flaky, name="flaky")

    @registry.tool
    def needs_user(user: Annotated[str, Injected]) -> str:
        raise ConnectionError("never reached")

    return registry


@pytest.mark.parametrize("face", FACES)
def test_retry_calls_again_after_the_given_exceptions_with_doubling_backoff(
    face: Face, waits: list[float]
) -> None:
    flaky = Flaky(ConnectionError("reset"), TimeoutError("slow"))
    registry = retry_registry(Retry(3, backoff=0.5), flaky)
    assert face(registry, "flaky", {"n": 4}) == 4
    assert flaky.runs == 3
    assert waits == [0.5, 1.0]


@pytest.mark.parametrize("face", FACES)
def test_retry_stops_after_attempts_and_answers_the_last_failure(
    face: Face, waits: list[float]
) -> None:
    flaky = Flaky(ConnectionError("one"), ConnectionError("two"), ConnectionError("three"))
    seen: list[int] = []
    registry = retry_registry(Retry(2, backoff=lambda attempt: seen.append(attempt) or 0), flaky)
    assert face(registry, "flaky", {"n": 1}) == "Error: two"
    assert (flaky.runs, seen, waits) == (2, [1], [])  # a wait of 0 sleeps not at all


@pytest.mark.parametrize("face", FACES)
def test_retry_never_after_a_validation_failure_nor_what_it_was_not_told(
    face: Face, waits: list[float]
) -> None:
    inner: list[Call] = []
    flaky = Flaky(KeyError("bug"))
    registry = retry_registry(Retry(5, retry_on=Exception), flaky, inner)
    text = face(registry, "flaky", {"n": "four"})  # ValidationError is a ValueError...
    assert text.startswith("Error: Invalid arguments for tool 'flaky'")
    assert len(inner) == 1  # ... and never retried
    text = face(registry, "needs_user", {})  # a context value missing: same every time
    assert text == "Error: Tool 'needs_user' needs context value 'user'"
    assert len(inner) == 2
    registry = retry_registry(Retry(5, retry_on=ConnectionError), flaky)
    assert face(registry, "flaky", {"n": 1}) == "Error: 'bug'"  # not a ConnectionError
    assert flaky.runs == 1 and waits == []


@pytest.mark.parametrize("face", FACES)
def test_retry_never_retries_a_failure_without_an_exception(face: Face, waits: list[float]) -> None:
    runs: list[int] = []
    registry = ToolRegistry(middleware=[Retry(3, retry_on=Exception)])

    @registry.tool
    def refuses() -> ToolResult:
        runs.append(1)
        return ToolResult.fail("no such row")

    assert face(registry, "refuses", {}) == "Error: no such row"
    assert runs == [1]


def test_a_validation_failure_carries_a_validation_error() -> None:
    # What Retry reads: the failure of invalid arguments keeps pydantic's error.
    registry = ToolRegistry()
    registry.tool(Flaky(), name="flaky")
    result = registry.execute_sync("flaky", {"n": "x"})
    assert isinstance(result.exception, ValidationError)


# -- LimitOutput ---------------------------------------------------------------------------


def limited_registry(limit: LimitOutput) -> ToolRegistry:
    registry = ToolRegistry(middleware=[limit])

    @registry.tool
    def text(n: int) -> str:
        return "x" * n

    @registry.tool
    def rows(n: int) -> list[dict[str, int]]:
        return [{"row": i} for i in range(n)]

    @registry.tool
    def fails(n: int) -> str:
        raise RuntimeError("e" * n)

    @registry.tool
    def picture(n: int) -> list[Any]:
        return ["y" * n, Image(PNG), "z" * n]

    return registry


def test_limit_output_cuts_what_every_face_reads_to_max_chars() -> None:
    registry = limited_registry(LimitOutput(100))
    assert registry.call_tool("text", {"n": 100}) == "x" * 100  # fits: as it was
    cut = registry.call_tool("text", {"n": 5000})
    assert cut == "x" * 67 + "\n[… cut: 5,000 characters in all]"
    assert len(cut) == 100
    assert asyncio.run(registry.async_call_tool("text", {"n": 5000})) == cut
    assert str(registry.execute_sync("text", {"n": 5000})) == cut
    assert registry.call("text", n=5000) == cut
    reply = [
        {"id": "1", "type": "function", "function": {"name": "text", "arguments": '{"n":5000}'}}
    ]
    assert registry.run_tool_calls(reply)[0]["content"] == cut
    whole = json.dumps([{"row": i} for i in range(50)], ensure_ascii=False)
    rows = registry.call_tool("rows", {"n": 50})  # JSON: its text is what is cut
    notice = f"\n[… cut: {len(whole):,} characters in all]"
    assert rows == whole[: 100 - len(notice)] + notice
    failed = registry.call_tool("fails", {"n": 500})
    assert failed.startswith("Error: eee") and failed.endswith("characters in all]")
    assert len(failed) == 100


def test_limit_output_keeps_media_parts_that_fit_in_order() -> None:
    registry = limited_registry(LimitOutput(100))
    placeholder = Image(PNG).placeholder
    small = registry.execute_sync("picture", {"n": 3})
    assert small.data[1] == Image(PNG)  # fits: unchanged
    result = registry.execute_sync("picture", {"n": 38})  # 106 characters: the 2nd text cut
    assert [type(part) for part in result.data] == [str, Image, str, str]
    assert result.data[:3] == ["y" * 38, Image(PNG), "z"]
    assert str(result) == "y" * 38 + "\n" + placeholder + "\nz\n[… cut: 106 characters in all]"
    assert len(str(result)) == 100
    # no room for the image: text only
    result = registry.execute_sync("picture", {"n": 90})
    assert type(result.data) is str and len(result.data) <= 100


part = st.one_of(
    st.text(max_size=150), st.just(Image(PNG)), st.dictionaries(st.text(max_size=5), st.integers())
)


@settings(max_examples=80, deadline=None)
@given(
    data=st.one_of(part, st.lists(part, max_size=6)),
    max_chars=st.integers(64, 300),
    success=st.booleans(),
)
def test_the_text_a_model_reads_is_never_over_max_chars(
    data: Any, max_chars: int, success: bool
) -> None:
    limit = LimitOutput(max_chars)
    result = ToolResult.ok(data) if success else ToolResult.fail(str(data))
    limited = limit.limit(result)
    assert len(str(limited)) <= max_chars
    assert limited.success is result.success
    if len(str(result)) <= max_chars:
        assert limited is result  # what fits is handed on as it was
    else:
        assert str(limited).endswith(f"[… cut: {len(str(result)):,} characters in all]")


@pytest.mark.parametrize(
    "make", [lambda url: RateLimit(1, 1, storage=url), lambda url: Cache(60, storage=url)]
)
def test_storage_without_the_redis_extra_says_how_to_install_it(
    make: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "redis", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'tooldeck\[redis\]'"):
        make("redis://127.0.0.1:1/0")


def test_rate_limit_from_many_threads_allows_exactly_the_burst() -> None:
    import threading

    registry = rate_registry(RateLimit(100, per=3600))
    allowed: list[bool] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        barrier.wait()
        for _ in range(50):
            allowed.append(registry.execute_sync("ping", {}).success)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 400 and allowed.count(True) == 100
