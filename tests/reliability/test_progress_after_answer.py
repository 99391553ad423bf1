"""Once a call has answered, its progress callback is never called again.

A sync tool abandoned after its timeout (or its caller's cancellation) runs on in its
thread; a tool may hand its reporter to a thread of its own. Whatever they report after
the call answered is dropped: the caller's callback belongs to a call that is over
(a progress bar already closed, a request already answered). What was reported before
the answer arrives before it, an async callback's reports included. Every face: `call`,
`acall`, `run`, `run_sync`, the registry's `call_tool`, `async_call_tool`, `execute`,
`run_tool_calls`, through middleware, an MCP proxy, and a served tool.

Each tool blocks on an `Event` the test releases after the answer, then reports and
says so; nothing is timed but the tool's own timeout.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Progress, ToolRegistry

pytestmark = pytest.mark.timeout(30)

LIMIT = 0.2  # the tool's timeout, seconds


class Late:
    """A sync tool that reports, blocks past its timeout until released, then reports
    again (after its call has answered), and says when it has."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.done = threading.Event()
        self.seen: list[float] = []

    def registry(self, timeout: float | None = LIMIT, **options: Any) -> ToolRegistry:
        registry = ToolRegistry(**options)

        @registry.tool(timeout=timeout)
        def slow(progress: Progress) -> str:
            """Reports once, waits, reports again."""
            progress(1, 2)
            self.release.wait(20)
            progress(2, 2, "after the answer")
            self.done.set()
            return "late"

        return registry

    def callback(self, done: float, total: Any = None, message: Any = None) -> None:
        self.seen.append(done)

    def finish(self) -> None:
        """Let the abandoned thread report, and wait until it has."""
        self.release.set()
        assert self.done.wait(20), "the tool's thread never reported"


def reply_calling(name: str) -> dict[str, Any]:
    return {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": name, "arguments": "{}"},
                        }
                    ],
                }
            }
        ]
    }


def _sync_faces() -> dict[str, Callable[[ToolRegistry, dict[str, Any]], Any]]:
    return {
        "call": lambda r, c: r.get("slow").call({}, context=c),
        "run_sync": lambda r, c: r.get("slow").run_sync({}, context=c),
        "call_tool": lambda r, c: r.call_tool("slow", {}, context=c),
        "execute_sync": lambda r, c: r.execute_sync("slow", {}, context=c),
        "run_tool_calls": lambda r, c: r.run_tool_calls(reply_calling("slow"), context=c),
    }


def _async_faces() -> dict[str, Callable[[ToolRegistry, dict[str, Any]], Any]]:
    return {
        "acall": lambda r, c: r.get("slow").acall({}, context=c),
        "run": lambda r, c: r.get("slow").run({}, context=c),
        "async_call_tool": lambda r, c: r.async_call_tool("slow", {}, context=c),
        "execute": lambda r, c: r.execute("slow", {}, context=c),
    }


def _middleware(on: bool) -> dict[str, Any]:
    if not on:
        return {}

    def passing(call: Any, next_: Any) -> Any:
        return next_(call)

    return {"middleware": [passing]}


@pytest.mark.parametrize("middleware", [False, True])
@pytest.mark.parametrize("face", sorted(_sync_faces()))
def test_a_sync_face_never_reports_after_a_timeout(face: str, middleware: bool) -> None:
    late = Late()
    registry = late.registry(**_middleware(middleware))
    answer = _sync_faces()[face](registry, {"progress": late.callback})
    assert "timed out after 0.2 seconds" in str(answer)
    assert late.seen == [1]  # reported before the answer: delivered
    late.finish()
    assert late.seen == [1]  # reported after it: dropped


@pytest.mark.parametrize("middleware", [False, True])
@pytest.mark.parametrize("face", sorted(_async_faces()))
async def test_an_async_face_never_reports_after_a_timeout(face: str, middleware: bool) -> None:
    late = Late()
    registry = late.registry(**_middleware(middleware))
    answer = await _async_faces()[face](registry, {"progress": late.callback})
    assert "timed out after 0.2 seconds" in str(answer)
    assert late.seen == [1]
    await asyncio.to_thread(late.finish)
    assert late.seen == [1]


async def test_an_async_callback_gets_nothing_after_a_timeout() -> None:
    late = Late()
    registry = late.registry()
    loop_seen: list[float] = []

    async def record(done: float, total: Any, message: Any) -> None:
        loop_seen.append(done)

    answer = await registry.async_call_tool("slow", {}, context={"progress": record})
    assert "timed out" in answer
    await asyncio.to_thread(late.finish)
    await asyncio.sleep(0)
    assert loop_seen == []  # a sync tool's thread has no loop: never delivered, never late


async def test_a_cancelled_call_never_reports_afterwards() -> None:
    late = Late()
    registry = late.registry(timeout=None)  # abandoned by cancellation, not a timeout
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    def callback(done: float, total: Any = None, message: Any = None) -> None:
        late.seen.append(done)
        loop.call_soon_threadsafe(started.set)

    task = asyncio.ensure_future(
        registry.async_call_tool("slow", {}, context={"progress": callback})
    )
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(late.finish)
    assert late.seen == [1]


def test_a_thread_the_tool_started_reports_nothing_after_the_answer() -> None:
    registry = ToolRegistry()
    release, done = threading.Event(), threading.Event()
    seen: list[float] = []

    @registry.tool
    def hands_off(progress: Progress) -> str:
        """Leaves a thread reporting on."""

        def later() -> None:
            release.wait(20)
            progress(2)
            done.set()

        progress(1)
        threading.Thread(target=later, daemon=True).start()
        return "answered"

    context = {"progress": lambda d, t, m: seen.append(d)}
    assert registry.call_tool("hands_off", {}, context=context) == "answered"
    release.set()
    assert done.wait(20)
    assert seen == [1]


def test_a_shared_progress_instance_keeps_reporting_for_other_calls() -> None:
    """Ending one call's reports ends that call's only: a `Progress` a program passes to
    many calls still takes the next call's reports."""
    seen: list[float] = []
    shared = Progress(lambda d, t, m: seen.append(d))
    registry = ToolRegistry()

    @registry.tool
    def quick(progress: Progress) -> int:
        progress(7)
        return 7

    assert registry.call_tool("quick", {}, context={"progress": shared}) == 7
    assert registry.call_tool("quick", {}, context={"progress": shared}) == 7
    assert seen == [7, 7]


async def test_an_async_callback_has_every_report_before_the_answer() -> None:
    """Reports an async callback is still working through when the tool returns are
    delivered before the call answers, never after (and the last always)."""
    registry = ToolRegistry()
    seen: list[float] = []

    @registry.tool
    async def burst(progress: Progress) -> int:
        for i in range(1, 201):
            progress(i, 200)
        return 200

    async def slow(done: float, total: Any, message: Any) -> None:
        await asyncio.sleep(0)
        seen.append(done)

    assert await registry.async_call_tool("burst", {}, context={"progress": slow}) == 200
    assert seen and seen[-1] == 200 and seen == sorted(seen)
    count = len(seen)
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(seen) == count  # nothing more ran after the answer


def test_a_sync_call_of_an_async_tool_delivers_an_async_callbacks_reports_first() -> None:
    registry = ToolRegistry()
    seen: list[float] = []

    @registry.tool
    async def burst(progress: Progress) -> int:
        for i in range(1, 51):
            progress(i, 50)
        return 50

    async def slow(done: float, total: Any, message: Any) -> None:
        await asyncio.sleep(0)
        seen.append(done)

    assert registry.call_tool("burst", {}, context={"progress": slow}) == 50
    assert seen and seen[-1] == 50
    count = len(seen)
    assert registry.call_tool("burst", {}, context={"progress": slow}) == 50
    assert len(seen) > count and seen[-1] == 50


# -- over MCP ---------------------------------------------------------------------------------


async def test_a_proxy_call_reports_nothing_after_its_answer() -> None:
    """Through an imported server: the remote tool reports after the proxy's caller has
    had its answer (the proxy timed out); the caller's callback gets none of it."""
    late = Late()
    remote = late.registry(timeout=20)  # the remote tool itself runs on
    gateway = ToolRegistry()
    await gateway.async_use_mcp(remote.as_mcp_server(), timeout=LIMIT)
    try:
        seen: list[float] = []
        answer = await gateway.async_call_tool(
            "slow", {}, context={"progress": lambda d, t, m: seen.append(d)}
        )
        assert answer is None or "time" in str(answer)
        before = list(seen)
        await asyncio.to_thread(late.finish)
        # the remote server's next answer comes after anything it sent before
        assert await gateway.async_call_tool("slow", {}) == "late"
        assert seen == before
    finally:
        await gateway.aclose()


async def test_a_served_call_sends_no_progress_after_its_response() -> None:
    from fastmcp import Client

    late = Late()
    registry = late.registry()
    registry.register(lambda: "pong", name="ping")  # (no annotation: no structured data)
    got: list[tuple[float, str | None]] = []
    notified: list[Any] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        got.append((done, message))

    async def on_message(message: Any) -> None:
        notified.append(message)

    async with Client(
        registry.as_mcp_server(), progress_handler=on_progress, message_handler=on_message
    ) as client:
        result = await client.call_tool("slow", {}, raise_on_error=False)
        assert result.is_error and "timed out" in str(result.content[0])
        assert got == [(1.0, None)]
        await asyncio.to_thread(late.finish)
        # one more exchange: a notification sent before its answer arrives before it
        assert (await client.call_tool("ping", {})).content[0].text == "pong"  # type: ignore[union-attr]
    assert got == [(1.0, None)]
    assert not any("after the answer" in repr(item) for item in notified)


# -- the reporter itself ----------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    before=st.lists(st.floats(allow_nan=False), max_size=6),
    after=st.lists(st.floats(allow_nan=False), max_size=6),
    finish=st.booleans(),
)
def test_a_call_s_reporter_delivers_what_came_before_its_end_and_nothing_after(
    before: list[float], after: list[float], finish: bool
) -> None:
    from tooldeck._progress import reporter_of

    seen: list[float] = []
    reporter = reporter_of(lambda d, t, m: seen.append(d))
    for done in before:
        reporter(done)
    reporter.finish() if finish else reporter.end()  # type: ignore[attr-defined]
    for done in after:
        reporter(done)
    assert seen == before


def test_no_report_starts_once_end_has_returned_while_a_thread_reports_on() -> None:
    """A thread reporting as fast as it can while the call ends: after `end` returns,
    the callback is never called again (a report under way is waited for)."""
    from tooldeck._progress import reporter_of

    for _ in range(20):
        seen: list[int] = []
        flowing, stop = threading.Event(), threading.Event()

        def callback(done: float, total: Any, message: Any) -> None:
            seen.append(1)  # noqa: B023 - this round's
            if len(seen) == 50:  # noqa: B023
                flowing.set()  # noqa: B023

        reporter = reporter_of(callback)

        def flood() -> None:
            i = 0
            while not stop.is_set():  # noqa: B023
                i += 1
                reporter(i)  # noqa: B023

        thread = threading.Thread(target=flood, daemon=True)
        thread.start()
        assert flowing.wait(10)
        reporter.end()  # type: ignore[attr-defined]
        count = len(seen)
        stop.set()
        thread.join(10)
        assert len(seen) == count
