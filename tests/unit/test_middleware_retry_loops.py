"""`Retry` never sleeps on a thread that runs an event loop: a sync face called from a
coroutine, or the chain's sync path run on tooldeck's background loop (an async tool
calling ``call_tool``). There the wait would freeze every other task of the loop, so
the last attempt's failure is the answer, as it came, and a warning says why.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck.middleware import Retry, _retry

pytestmark = pytest.mark.timeout(30)


def running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each sync backoff sleep Retry made: whether an event loop ran in its thread."""
    made: list[bool] = []
    monkeypatch.setattr(_retry, "_sleep", lambda seconds: made.append(running_loop()))
    return made


def flaky_registry(failures: int) -> tuple[ToolRegistry, list[int]]:
    attempts: list[int] = []
    registry = ToolRegistry(middleware=[Retry(3, backoff=0.5)])

    @registry.tool
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) <= failures:
            raise ConnectionError(f"reset #{len(attempts)}")
        return "ok"

    return registry, attempts


def test_outside_a_loop_the_sync_face_still_waits_and_retries(sleeps: list[bool]) -> None:
    registry, attempts = flaky_registry(2)
    assert registry.call_tool("flaky") == "ok"
    assert sleeps == [False, False] and len(attempts) == 3


def test_a_sync_face_called_from_a_coroutine_never_sleeps_on_its_loop(
    sleeps: list[bool], caplog: pytest.LogCaptureFixture
) -> None:
    registry, attempts = flaky_registry(2)

    async def main() -> Any:
        return registry.execute_sync("flaky")

    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        result = asyncio.run(main())
    assert sleeps == []  # no sleep blocked the loop
    assert not result.success and str(result) == "Error: reset #1"  # the failure as it came
    assert len(attempts) == 1
    assert any("async face" in record.getMessage() for record in caplog.records)


def test_a_zero_backoff_still_retries_inside_a_loop(sleeps: list[bool]) -> None:
    attempts: list[int] = []
    registry = ToolRegistry(middleware=[Retry(3, backoff=0)])

    @registry.tool
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("reset")
        return "ok"

    async def main() -> Any:
        return registry.call_tool("flaky")

    assert asyncio.run(main()) == "ok" and len(attempts) == 3 and sleeps == []


def test_the_chains_sync_path_on_tooldecks_loop_never_sleeps_there(sleeps: list[bool]) -> None:
    registry, attempts = flaky_registry(2)

    @registry.tool
    async def outer() -> str:  # runs on tooldeck's background loop (a sync face below)
        return str(registry.call_tool("flaky"))

    answer = registry.call_tool("outer")
    assert sleeps == []
    assert answer == "Error: reset #1" and len(attempts) == 1


async def test_the_async_face_still_waits_and_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    waited: list[float] = []

    async def asleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(_retry, "_asleep", asleep)
    registry, attempts = flaky_registry(2)
    assert await registry.async_call_tool("flaky") == "ok"
    assert waited == [0.5, 1.0] and len(attempts) == 3
