"""A model's reply with tool calls: what `run_tool_calls` costs over `execute` (issue 14).

Overhead: each reply is built with the provider SDK's own response types (the objects
a user passes), holding 1 or 10 calls of ``add(a, b)`` (a sync tool) or ``aadd`` (an
async one). Baseline: the same calls made directly with ``execute_sync`` (sync) or
``await execute`` (async), one after another, with the arguments as the provider sent
them (JSON text for OpenAI, an object otherwise). Paired rounds, CPU time (all
threads). Target: one call costs at most 3x ``execute`` on the same tool.

Concurrency: 10 calls of a tool that takes 50 ms (20 ms in quick mode), in wall time
(the calls sleep), run by ``run_tool_calls`` / ``async_run_tool_calls`` and one after
another; median of 3.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from anthropic.types import Message
from google.genai import types as genai
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from benchmarks.results import Case, Row
from benchmarks.timing import Call, Timer
from tooldeck import ToolRegistry

TARGET = 3.0  # one call: at most 3x execute
ARGS = json.dumps({"a": 1, "b": 2})
Log = Callable[[str], None]


# -- replies, as each provider's SDK returns them -----------------------------------------


def openai_reply(name: str, n: int, arguments: str | None = None) -> ChatCompletion:
    function = {"name": name, "arguments": ARGS if arguments is None else arguments}
    calls = [{"id": f"call_{i}", "type": "function", "function": function} for i in range(n)]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    return ChatCompletion.model_validate(
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
         "choices": [choice]}
    )  # fmt: skip


def responses_reply(name: str, n: int) -> Response:
    output = [
        {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
         "arguments": ARGS, "status": "completed"}
        for i in range(n)
    ]  # fmt: skip
    return Response.model_validate(
        {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4.1",
         "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    )  # fmt: skip


def anthropic_reply(name: str, n: int) -> Message:
    content = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {"a": 1, "b": 2}}
        for i in range(n)
    ]
    return Message.model_validate(
        {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
         "content": content, "stop_reason": "tool_use", "stop_sequence": None,
         "usage": {"input_tokens": 10, "output_tokens": 10}}
    )  # fmt: skip


def gemini_reply(name: str, n: int) -> genai.GenerateContentResponse:
    parts = [{"functionCall": {"name": name, "args": {"a": 1, "b": 2}}} for _ in range(n)]
    return genai.GenerateContentResponse.model_validate(
        {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    )


REPLIES: dict[str, Callable[[str, int], Any]] = {
    "openai": openai_reply,
    "openai-responses": responses_reply,
    "anthropic": anthropic_reply,
    "gemini": gemini_reply,
}
# What each provider sends as the arguments: JSON text for OpenAI, an object otherwise.
DIRECT_ARGS = {"openai": ARGS, "openai-responses": ARGS, "anthropic": {"a": 1, "b": 2}}

_DIRECT = """\
for _ in calls:
    out = {await_}{face}(name, args)"""


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    async def aadd(a: int, b: int) -> int:
        """Add two integers, asynchronously."""
        return a + b

    return registry


def _pair(
    registry: ToolRegistry, tool: str, args: Any, reply: Any, n: int, is_async: bool
) -> dict[str, Call]:
    face, runner = (
        ("execute", "async_run_tool_calls") if is_async else ("execute_sync", "run_tool_calls")
    )
    direct_env = {face: getattr(registry, face), "name": tool, "args": args, "calls": range(n)}
    code = _DIRECT.format(await_="await " if is_async else "", face=face)
    run_env = {"run": getattr(registry, runner), "reply": reply}
    return {
        "execute": Call(None, direct_env, is_async, code),
        "run_tool_calls": Call("run(reply)", run_env, is_async),
    }


def overhead_cases() -> list[tuple[str, int, str, str, str, bool]]:
    """(label, calls, tool, format, face, whether the 3x target applies)."""
    out = []
    for tool, kind in (("add", "sync tool"), ("aadd", "async tool")):
        for fmt in REPLIES:
            for face in ("sync", "async"):
                out.append((f"{face}, 1 call, {kind}, {fmt}", 1, tool, fmt, face, True))
        for face in ("sync", "async"):
            out.append((f"{face}, 10 calls, {kind}, openai", 10, tool, "openai", face, False))
    return out


def run_overhead(timer: Timer, log: Log) -> Case:
    log("case tool_calls_overhead")
    case = Case(
        "tool_calls_overhead",
        "A reply's tool calls: `run_tool_calls` against `execute` on the same tool (µs per reply)",
        baseline=None,
        group="tool_calls",
        note="baseline: the reply's calls made directly with execute_sync / await execute",
    )
    registry = _registry()
    for label, n, tool, fmt, face, targeted in overhead_cases():
        reply = REPLIES[fmt](tool, n)
        args = DIRECT_ARGS.get(fmt, {"a": 1, "b": 2})
        pair = _pair(registry, tool, args, reply, n, face == "async")
        answer = timer.once(pair["run_tool_calls"])
        measured = timer.compare(pair, rounds=max(5, timer.settings.rounds // 3), per_batch=2)
        base, subject = measured["execute"], measured["run_tool_calls"]
        extra = {
            "execute_us": base.median * 1e6,
            "ratio": subject.ratio_to(base),
            "targeted": targeted,
            "calls": n,
            "answers": len(answer),
        }
        case.rows.append(
            Row(label, "", subject.median * 1e6, "us", None, len(subject.samples), "", extra)
        )
    return case


def run_concurrency(timer: Timer, log: Log) -> Case:
    seconds = timer.settings.tool_seconds
    log(f"case tool_calls_concurrency ({seconds * 1e3:g} ms tools)")
    case = Case(
        "tool_calls_concurrency",
        f"10 calls of a {seconds * 1e3:g} ms tool: wall ms, median of 3",
        baseline=None,
        group="tool_calls",
    )
    slow = ToolRegistry()

    @slow.tool
    async def nap() -> str:
        """Sleeps without blocking the loop."""
        await asyncio.sleep(seconds)
        return "rested"

    @slow.tool
    def doze() -> str:
        """Blocks its thread."""
        time.sleep(seconds)
        return "rested"

    def one_after_another(tool: str) -> None:
        for _ in range(10):
            slow.execute_sync(tool)

    def in_a_new_loop(reply: Any) -> None:
        asyncio.run(slow.async_run_tool_calls(reply))

    for tool, kind in (("nap", "async tool"), ("doze", "sync tool")):
        ten = openai_reply(tool, 10, "{}")
        ways: dict[str, Callable[[], Any]] = {
            "10 x execute_sync, one after another": lambda t=tool: one_after_another(t),
            "run_tool_calls": lambda r=ten: slow.run_tool_calls(r),
            "async_run_tool_calls": lambda r=ten: in_a_new_loop(r),
            "run_tool_calls, max_concurrency=2": lambda r=ten: slow.run_tool_calls(
                r, max_concurrency=2
            ),
        }
        for way, run in ways.items():
            wall = _wall(run)
            case.rows.append(Row(f"{kind}: {way}", "", wall * 1e3, "ms", None, 3))
    return case


def _wall(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_tool_call_cases(timer: Timer, log: Log) -> list[Case]:
    return [run_overhead(timer, log), run_concurrency(timer, log)]
