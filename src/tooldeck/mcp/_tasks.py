"""A remote tool that runs only as an MCP task (``execution.taskSupport: "required"``).

Such a tool refuses a plain ``tools/call``: the call must ask for a task, then poll it
(MCP 2025-11-25's tasks, SEP-1686): ``tools/call`` with ``task: {ttl}`` answers a
``CreateTaskResult``; ``tasks/get`` tells the task's status until it is ``completed``,
``failed`` or ``cancelled`` (or ``input_required``, which ``tasks/result`` resolves);
``tasks/result`` gives the tool's ``CallToolResult``. A proxy of such a tool does all
of it within its own bound (the import's ``timeout``, `tooldeck.mcp._session`); a call
that is cancelled or runs out of time cancels the task (``tasks/cancel``) on its way
out.

Why by hand: fastmcp 4's client drives tasks only through its SEP-2663 extension (the
``fastmcp-tasks`` package, a server-side Docket store with it), not the 2025-11-25
methods that servers such as the reference ``server-everything`` speak, and the MCP
SDK's ``send_request`` refuses a ``CreateTaskResult`` as an invalid ``tools/call``
result. The requests go through `GatewaySession.raw_request` (the SDK's own sending,
without that check).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

from . import _loop
from ._extra import logger

if TYPE_CHECKING:
    from ._transports import GatewaySession

__all__ = ["call_as_task"]

_DONE = frozenset({"completed", "failed", "cancelled", "input_required"})
_TTL_MS = 3_600_000  # how long the server keeps a task's result, at most (no timeout)
_POLL = (0.05, 1.0)  # seconds between polls: the server's pollInterval, within these


async def call_as_task(
    session: GatewaySession, name: str, arguments: dict[str, Any], timeout: float | None
) -> types.CallToolResult:
    """Run tool ``name`` as a task and return its result (see the module docstring).

    Raises:
        MCPError: The server refused a request (the tool failed as a task, an unknown
            task...).
        pydantic.ValidationError: It answered something that is no task or result.
    """
    ttl = _TTL_MS if timeout is None else int(timeout * 1000) + 1000
    params = types.CallToolRequestParams(
        name=name, arguments=arguments, task=types.TaskMetadata(ttl=ttl)
    )
    # Shielded: a call cancelled (or out of time) while the server creates the task would
    # drop the answer carrying its id, and the task would run on with nobody to stop it
    # (a tools/call's cancellation does not reach a task the server made of it).
    creating = asyncio.ensure_future(session.raw_request(types.CallToolRequest(params=params)))
    try:
        created = await asyncio.shield(creating)
    except BaseException:
        creating.add_done_callback(lambda done: _cancel_created(session, done))
        raise
    task = created.get("task")
    if not isinstance(task, Mapping) or not isinstance(task.get("taskId"), str):
        return _result(created)  # the server ran it at once after all
    task_id: str = task["taskId"]
    try:
        while task.get("status") not in _DONE:
            await asyncio.sleep(_interval(task.get("pollInterval")))
            task = await session.raw_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
            )
        payload = await session.raw_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
        )
    except BaseException:  # cancelled, out of time, or a failed request: stop the task
        _loop.spawn(_cancel(session, task_id))
        raise
    return _result(payload)


def _result(raw: Mapping[str, Any]) -> types.CallToolResult:
    return types.CallToolResult.model_validate(dict(raw), by_name=False)


def _interval(poll_ms: Any) -> float:
    low, high = _POLL
    if isinstance(poll_ms, bool) or not isinstance(poll_ms, (int, float)):
        return high
    return min(max(poll_ms / 1000, low), high)


def _cancel_created(session: GatewaySession, creating: asyncio.Future[dict[str, Any]]) -> None:
    """Once the answer of a ``tools/call`` whose caller has gone comes: cancel its task."""
    if creating.cancelled() or creating.exception() is not None:
        return
    task = creating.result().get("task")
    if isinstance(task, Mapping) and isinstance(task.get("taskId"), str):
        _loop.spawn(_cancel(session, task["taskId"]))


async def _cancel(session: GatewaySession, task_id: str) -> None:
    with contextlib.suppress(Exception):  # already done, or the session is gone
        await asyncio.wait_for(
            session.raw_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
            ),
            5,
        )
        logger.debug("cancelled MCP task %s", task_id)
