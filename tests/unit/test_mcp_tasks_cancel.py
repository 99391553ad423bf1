"""A task-only remote tool's call cancelled while the server is still creating its task
(found in review): the answer carrying the task's id came after the call was gone, was
dropped, and the task ran on with nobody to stop it. Now the answer is awaited aside and
the task cancelled (``tasks/cancel``). The session is faked at the wire's edge: it
records the requests sent and answers ``tools/call`` when the test says so."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("fastmcp")


class Server:
    """What a session sends, and a task server's answers (the task is created late)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.cancelled = threading.Event()
        self.answer = asyncio.Event()

    async def raw_request(self, request: Any) -> dict[str, Any]:
        method = request.method
        self.sent.append(method)
        if method == "tools/call":
            await self.answer.wait()
            return {"task": {"taskId": "t-1", "status": "working", "pollInterval": 50}}
        if method == "tasks/cancel":
            assert request.params.task_id == "t-1"
            self.cancelled.set()
            return {"taskId": "t-1", "status": "cancelled"}
        return {"taskId": "t-1", "status": "working", "pollInterval": 50}


@pytest.mark.timeout(20)
async def test_a_call_cancelled_while_its_task_is_created_cancels_the_task() -> None:
    from tooldeck.mcp._tasks import call_as_task

    server = Server()
    call = asyncio.ensure_future(call_as_task(server, "research", {}, None))  # type: ignore[arg-type]
    while "tools/call" not in server.sent:
        await asyncio.sleep(0)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    server.answer.set()  # the server answers the tools/call only now
    assert await asyncio.to_thread(server.cancelled.wait, 10), "the task was never cancelled"
    assert "tasks/get" not in server.sent


@pytest.mark.timeout(20)
async def test_a_call_cancelled_while_polling_cancels_the_task_as_before() -> None:
    from tooldeck.mcp._tasks import call_as_task

    server = Server()
    server.answer.set()
    call = asyncio.ensure_future(call_as_task(server, "research", {}, None))  # type: ignore[arg-type]
    while "tasks/get" not in server.sent:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await asyncio.to_thread(server.cancelled.wait, 10)
