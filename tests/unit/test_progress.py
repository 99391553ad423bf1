"""`tooldeck.Progress`: a reporter parameter the model never sees, reporting to
``context["progress"]`` on the Python faces."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Progress, ToolRegistry, ToolResult

Reports = list[tuple[float, Any, Any]]


def steps_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def steps(n: int, progress: Progress) -> int:
        """Count to n, step by step."""
        for i in range(1, n + 1):
            progress(i, n, f"step {i}")
        return n

    @registry.tool
    async def asteps(n: int, progress: Progress | None = None) -> int:
        """Async twin."""
        assert progress is not None
        for i in range(1, n + 1):
            progress(i, n, f"step {i}")
            await asyncio.sleep(0)
        return n

    @registry.tool(timeout=5)
    def timed(n: int, report: Annotated[Progress, "how far"]) -> int:
        """With a timeout: run in a worker thread."""
        for i in range(1, n + 1):
            report(i)
        return n

    return registry


def collector(seen: Reports) -> Any:
    return lambda *report: seen.append(report)


def expected(n: int, *, messages: bool = True) -> Reports:
    return [(i, n, f"step {i}") if messages else (i, None, None) for i in range(1, n + 1)]


@pytest.mark.parametrize("name", ["steps", "asteps", "timed"])
def test_progress_is_in_no_schema_nor_export(name: str) -> None:
    registry = steps_registry()
    tool = registry.get(name)
    assert tool is not None
    assert list(tool.parameters["properties"]) == ["n"]
    for fmt in ("openai", "anthropic", "gemini", "mcp", "openai-responses"):
        text = str(registry.export(fmt))
        assert "progress" not in text and "report" not in text, fmt
    info = registry.get_tool_info()[name]
    assert list(info["kwargs"]) == ["n"]


def test_a_model_sending_progress_is_refused() -> None:
    registry = steps_registry()
    answer = registry.call_tool("steps", {"n": 1, "progress": 3})
    assert isinstance(answer, str) and answer.startswith("Error: ")
    assert "progress" in answer


@pytest.mark.parametrize("name", ["steps", "asteps", "timed"])
async def test_every_face_reports_to_the_context_callback(name: str) -> None:
    registry = steps_registry()
    tool = registry.get(name)
    assert tool is not None
    messages = name != "timed"
    faces: dict[str, Any] = {
        "call_tool": lambda ctx: registry.call_tool(name, {"n": 3}, context=ctx),
        "execute_sync": lambda ctx: registry.execute_sync(name, {"n": 3}, context=ctx),
        "call": lambda ctx: tool.call({"n": 3}, context=ctx),
        "run_sync": lambda ctx: tool.run_sync({"n": 3}, context=ctx),
    }
    for face, call in faces.items():
        seen: Reports = []
        answer = await asyncio.to_thread(call, {"progress": collector(seen)})
        assert answer in (3, ToolResult.ok(3)), face
        assert seen == expected(3, messages=messages), face
    afaces: dict[str, Any] = {
        "async_call_tool": lambda ctx: registry.async_call_tool(name, {"n": 4}, context=ctx),
        "execute": lambda ctx: registry.execute(name, {"n": 4}, context=ctx),
        "acall": lambda ctx: tool.acall({"n": 4}, context=ctx),
        "run": lambda ctx: tool.run({"n": 4}, context=ctx),
    }
    for face, acall in afaces.items():
        seen = []
        answer = await acall({"progress": collector(seen), "other": 1})
        assert answer in (4, ToolResult.ok(4)), face
        assert seen == expected(4, messages=messages), face


@pytest.mark.parametrize("name", ["steps", "asteps", "timed"])
def test_without_a_callback_a_report_does_nothing(name: str) -> None:
    registry = steps_registry()
    assert registry.call_tool(name, {"n": 2}) == 2
    assert registry.call_tool(name, {"n": 2}, context={}) == 2
    assert registry.call_tool(name, {"n": 2}, context={"progress": "not callable"}) == 2
    assert registry.call_tool(name, {"n": 2}, context={"progress": None}) == 2


@pytest.mark.parametrize("name", ["steps", "asteps", "timed"])
def test_a_failing_callback_never_fails_the_call(name: str) -> None:
    registry = steps_registry()
    calls: list[float] = []

    def broken(done: float, total: Any, message: Any) -> None:
        calls.append(done)
        raise RuntimeError("the progress bar is gone")

    assert registry.call_tool(name, {"n": 3}, context={"progress": broken}) == 3
    assert calls == [1, 2, 3]


def test_a_progress_instance_in_the_context_is_used_as_is() -> None:
    registry = steps_registry()
    seen: Reports = []
    reporter = Progress(lambda *r: seen.append(r))
    assert registry.call_tool("steps", {"n": 2}, context={"progress": reporter}) == 2
    assert seen == expected(2)


def test_progress_alongside_injected_values() -> None:
    from tooldeck import Injected

    registry = ToolRegistry()

    @registry.tool
    def mine(user: Annotated[str, Injected], progress: Progress) -> str:
        progress(1, 1)
        return user

    seen: Reports = []
    context = {"user": "u-1", "progress": lambda *r: seen.append(r)}
    assert registry.call_tool("mine", {}, context=context) == "u-1"
    assert seen == [(1, 1, None)]
    assert registry.call_tool("mine", {}).startswith("Error: Tool 'mine' needs context value")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=False),
            st.none() | st.floats(allow_nan=False),
            st.none() | st.text(max_size=5),
        ),
        max_size=8,
    )
)
def test_every_report_reaches_the_callback_in_order(reports: Reports) -> None:
    registry = ToolRegistry()

    @registry.tool
    def replay(progress: Progress) -> int:
        for done, total, message in reports:
            progress(done, total, message)
        return len(reports)

    seen: Reports = []
    assert registry.call_tool("replay", {}, context={"progress": lambda *r: seen.append(r)}) == len(
        reports
    )
    assert seen == reports


async def test_an_async_callback_runs_on_the_loop_of_an_async_tool() -> None:
    registry = steps_registry()
    seen: Reports = []

    async def record(done: float, total: Any, message: Any) -> None:
        seen.append((done, total, message))

    assert await registry.async_call_tool("asteps", {"n": 3}, context={"progress": record}) == 3
    await asyncio.sleep(0)  # the last report's task runs
    assert seen == expected(3)
    # A sync tool's thread has no loop: its reports are dropped, never left unawaited.
    assert (
        await asyncio.to_thread(registry.call_tool, "steps", {"n": 2}, context={"progress": record})
        == 2
    )


@pytest.mark.timeout(30)
async def test_a_flood_to_an_async_callback_is_awaited_one_at_a_time_in_order() -> None:
    """Found in review: each report to an async callback was a task of its own (100,000
    tasks alive at once, the callback running concurrently with itself). Now one sender
    awaits it report by report, the newest kept when they come faster, the last always."""
    from tooldeck._progress import _PENDING

    registry = ToolRegistry()
    flood = 100_000

    @registry.tool
    async def burst(progress: Progress) -> int:
        """Report far faster than the callback takes reports."""
        for i in range(1, flood + 1):
            progress(i, flood)
        return flood

    seen: list[float] = []
    running = [0, 0]  # now, most at once
    last = asyncio.Event()

    class Slow:  # an object with an async __call__ counts as an async callback too
        async def __call__(self, done: float, total: Any, message: Any) -> None:
            running[0] += 1
            running[1] = max(running)
            await asyncio.sleep(0)
            running[0] -= 1
            seen.append(done)
            if done == flood:
                last.set()

    assert await registry.async_call_tool("burst", {}, context={"progress": Slow()}) == flood
    assert len(_PENDING) <= 1  # one sender, not a task per report
    await asyncio.wait_for(last.wait(), 10)
    assert running[1] == 1
    assert seen == sorted(seen) and seen[-1] == flood
    assert len(seen) <= 17  # the backlog, and the one being awaited
