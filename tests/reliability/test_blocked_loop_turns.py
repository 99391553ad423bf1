"""A turn of many calls stays bounded when an async tool blocks tooldeck's loop.

One sync call of an async tool with a timeout stops waiting shortly after the timeout
even when the tool blocks the loop (it never yields, so the loop cannot fire the
timeout). A sync ``run_tool_calls`` turn of many calls is bounded the same way: its
timed calls answer that they timed out, the calls the blocked loop never finished say
so, and the turn returns. Blocking forever runs in a subprocess: it holds that
process's loop for good.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest

from tooldeck import _shifting

from .conftest import assert_intact, build_registry


def turn(*names: str) -> dict[str, Any]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for i, name in enumerate(names)
    ]
    return {"role": "assistant", "tool_calls": calls}


@pytest.mark.timeout(60)
def test_a_turn_of_many_calls_is_bounded_when_an_async_tool_blocks_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_shifting, "LOOP_GRACE", 0.2)
    registry = build_registry()

    released = threading.Event()
    held: list[bool] = []  # per run of hog: released by the test (True), or gave up

    @registry.tool(timeout=0.3)
    async def hog() -> str:
        # Blocking code in an async tool (the mistake this guards against): it holds the
        # loop until the test lets go, which it does only once the turn has answered.
        held.append(released.wait(30))
        return "late"

    answers = registry.run_tool_calls(turn("hog", "hog"))
    released.set()  # the turn answered while the loop was still held
    assert [a["tool_call_id"] for a in answers] == ["c0", "c1"]
    assert answers[0]["content"] == "Error: Tool 'hog' timed out after 0.3 seconds"
    assert answers[1]["content"].startswith("Error: Tool 'hog' ")  # timed out, or not run
    _shifting.run_coroutine(asyncio.sleep(0))  # the loop is back once the tool returns
    assert held and all(held), held  # never the 30 s give-up: the turn did not wait
    assert_intact(registry)
    # A healthy loop: a turn of many calls answers each, well within the bound.
    good = registry.run_tool_calls(turn("add", "add"))
    assert [a["content"] for a in good] == [
        "Error: Invalid arguments for tool 'add':\na: missing required argument"
    ] * 2


BLOCKED_FOREVER = textwrap.dedent(
    """
    import json, sys, threading, time
    from tooldeck import ToolRegistry, _shifting

    _shifting.LOOP_GRACE = 0.2
    registry = ToolRegistry()

    @registry.tool(timeout=0.3)
    async def hog() -> str:
        threading.Event().wait()  # blocks tooldeck's loop for good
        return "never"

    @registry.tool
    def add(a: int, b: int) -> int:
        return a + b

    def call(i, name, arguments):
        return {"id": f"c{i}", "type": "function",
                "function": {"name": name, "arguments": arguments}}

    reply = {"role": "assistant", "tool_calls": [
        call(0, "hog", "{}"), call(1, "add", '{"a": 1, "b": 2}'), call(2, "hog", "{}"),
    ]}
    started = time.monotonic()
    answers = registry.run_tool_calls(reply)
    print(json.dumps({"elapsed": time.monotonic() - started, "answers": answers}))
    sys.stdout.flush()
    """
)


@pytest.mark.timeout(120)
def test_a_turn_whose_async_tool_blocks_the_loop_forever_still_returns() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_FOREVER],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["elapsed"] < 10, report
    contents = [a["content"] for a in report["answers"]]
    assert [a["tool_call_id"] for a in report["answers"]] == ["c0", "c1", "c2"]
    assert contents[0] == "Error: Tool 'hog' timed out after 0.3 seconds"
    assert contents[1] in (
        "3",
        "Error: Tool 'add' did not finish: tooldeck's event loop was blocked by another call",
    )
    assert contents[2].startswith("Error: Tool 'hog' ")


BLOCKED_BEFORE_THE_TURN = textwrap.dedent(
    """
    import json, sys, threading, time
    from tooldeck import ToolRegistry, _shifting

    _shifting.LOOP_GRACE = 0.2
    registry = ToolRegistry()

    @registry.tool(timeout=0.3)
    async def hog() -> str:
        threading.Event().wait()  # blocks tooldeck's loop for good
        return "never"

    @registry.tool(timeout=0.5)
    async def quick() -> str:
        return "fine"

    def turn(*names):
        return {"role": "assistant", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n in enumerate(names)
        ]}

    registry.run_tool_calls(turn("hog"))  # the loop is blocked from now on
    report = []
    for names, bound in ((["quick"], None), (["quick", "quick"], None), (["quick"] * 3, 1)):
        started = time.monotonic()
        answers = registry.run_tool_calls(turn(*names), max_concurrency=bound)
        report.append({"elapsed": time.monotonic() - started, "answers": answers})
    print(json.dumps(report))
    sys.stdout.flush()
    """
)


@pytest.mark.timeout(120)
def test_a_turn_handed_to_a_loop_blocked_before_it_is_bounded_as_one_call() -> None:
    # One timed call on a loop an earlier call blocks is bounded (timeout + grace); a
    # turn of many waited for the loop (forever here): none of its calls ever started,
    # so no call's timeout was counted.
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_BEFORE_THE_TURN],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert [len(turn["answers"]) for turn in report] == [1, 2, 3]
    for turn_report in report:
        assert turn_report["elapsed"] < 10, turn_report
        for answer in turn_report["answers"]:
            assert answer["content"].startswith("Error: Tool 'quick' "), answer
    assert report[1]["answers"][0]["content"] == (
        "Error: Tool 'quick' was not called: tooldeck's event loop was blocked by another call"
    )
