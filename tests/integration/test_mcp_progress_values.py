"""Progress values a tool should not have sent, served (found in review): the MCP spec
wants each notification's progress to increase, and JSON has no NaN or infinity (sent,
they went out as ``null``, which clients refuse as an invalid notification). What a
client receives is always a valid, increasing sequence, and messages are bounded;
directly, over HTTP, and through a gateway whose remote sends such values."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import pytest
from test_mcp_progress import Seen, http_client

from tooldeck import Progress, ToolRegistry

pytest.importorskip("fastmcp")

NAN, INF = math.nan, math.inf
SENT: list[tuple[Any, Any, Any]] = [
    (1, 5, "m"),
    (NAN, 5, "m"),
    (2, 5, "m"),
    (INF, 5, "m"),
    (-5, 5, "m"),
    (3, 5, "m"),
    (3, 5, "again"),
    (2.5, 5, "m"),
    (4, INF, "m"),
    (5, 5, "x" * 50_000),
]
RECEIVED = [
    (1.0, 5.0, "m"),
    (2.0, 5.0, "m"),
    (3.0, 5.0, "m"),
    (4.0, None, "m"),
    (5.0, 5.0, "x" * 999 + "…"),
]


def source() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    async def odd(progress: Progress) -> str:
        """Reports what a careless tool might (fewer than the backlog: none coalesced)."""
        for report in SENT:
            progress(*report)
        return "done"

    return registry


async def received(client: Any) -> list[tuple[Any, Any, Any]]:
    seen = Seen()
    result = await client.call_tool("odd", {}, progress_handler=seen)
    assert result.data == "done"
    return seen.reports


@pytest.mark.timeout(30)
async def test_in_memory_only_finite_increasing_reports_are_sent() -> None:
    from fastmcp import Client

    async with Client(source().as_mcp_server()) as client:
        assert await received(client) == RECEIVED


@pytest.mark.timeout(30)
async def test_over_http_no_invalid_notification_goes_out() -> None:
    async with http_client(source().http_app()) as client:
        assert await received(client) == RECEIVED


@pytest.mark.timeout(30)
async def test_a_gateway_passes_on_only_what_a_client_may_receive() -> None:
    from fastmcp import Client

    gateway = ToolRegistry()
    await gateway.async_use_mcp(source().as_mcp_server())
    try:
        async with Client(gateway.as_mcp_server()) as client:
            assert await received(client) == RECEIVED
    finally:
        await gateway.aclose()


@pytest.mark.timeout(30)
async def test_a_cancelled_calls_abandoned_thread_sends_its_client_nothing_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found in review: the cancelled call's flush was itself cancelled (the request's
    scope cancels every await in it), so its outbox never ended, and the sync tool's
    abandoned thread went on sending notifications, unspaced, for a request that was
    over (the client drops them: the server's loop spent itself on them). Counted where
    the server sends them (fastmcp's ``Context.report_progress``), by reports, not time."""
    import asyncio
    import threading
    import time

    from fastmcp import Client
    from fastmcp.server.context import Context

    sent: list[float] = []
    report_progress = Context.report_progress

    async def counted(self: Any, progress: float, *args: Any, **kwargs: Any) -> None:
        sent.append(progress)
        await report_progress(self, progress, *args, **kwargs)

    monkeypatch.setattr(Context, "report_progress", counted)
    started, release = threading.Event(), threading.Event()
    made = [0]
    registry = ToolRegistry()

    @registry.tool
    def busy(progress: Progress) -> str:
        """Report until released (bounded: 20 s)."""
        started.set()
        deadline = time.monotonic() + 20
        while not release.is_set() and time.monotonic() < deadline:
            made[0] += 1
            progress(made[0])
            time.sleep(0.0005)
        return "released"

    async def reports_made_reach(count: int) -> None:
        while made[0] < count:
            await asyncio.sleep(0.005)

    try:
        async with Client(registry.as_mcp_server()) as client:
            call = asyncio.ensure_future(client.call_tool("busy", {}, progress_handler=Seen()))
            assert await asyncio.to_thread(started.wait, 10)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            await client.list_tools()  # the cancellation was read before this answer
            await reports_made_reach(made[0] + 20)  # the call's flush has ended by now
            before = len(sent)
            await reports_made_reach(made[0] + 500)  # the abandoned thread reports on
            await client.list_tools()
            assert len(sent) - before <= 1, f"{len(sent) - before} sent after the cancel"
    finally:
        release.set()


class Recorded:
    """Where a served call's reports go (fastmcp's ``Context``, at the wire's edge)."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, Any, Any]] = []

    async def report_progress(self, done: float, total: Any, message: Any) -> None:
        self.sent.append((done, total, message))


def _increasing(reports: list[tuple[Any, Any, Any]]) -> list[float]:
    kept, last = [], -math.inf
    for done, _, _ in reports:
        if math.isfinite(done) and done > last:
            kept.append(float(done))
            last = done
    return kept


def _reports() -> Any:
    from hypothesis import strategies as st

    number = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 50))
    report = st.tuples(number, st.one_of(st.none(), number), st.none())
    return st.lists(report, max_size=16)  # within the backlog: nothing coalesced


def test_whatever_a_tool_reports_what_is_sent_is_finite_and_increasing() -> None:
    import asyncio

    from hypothesis import given, settings

    from tooldeck.mcp._progress import ServedProgress

    @settings(max_examples=60, deadline=None)
    @given(reports=_reports())
    def check(reports: list[tuple[Any, Any, Any]]) -> None:
        async def serve() -> list[tuple[float, Any, Any]]:
            context = Recorded()
            outbox = ServedProgress(context)
            for report in reports:
                outbox.reporter(*report)
            await outbox.flush()
            return context.sent

        sent = asyncio.run(serve())
        assert [done for done, _, _ in sent] == _increasing(reports)
        assert all(total is None or math.isfinite(total) for _, total, _ in sent)

    check()
