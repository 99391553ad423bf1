"""Tools that misbehave: raise anything, return anything, never return, block.

Whatever the tool does, the call returns (the exception's message, the value, or the
timeout's message) and the registry keeps working — except ``KeyboardInterrupt`` and
``SystemExit``, which reach the caller, and cancellation, which cancels.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel, field_validator

from tooldeck import ToolRegistry, ToolResult, _shifting, abandoned_threads

from .conftest import assert_intact, build_registry, every_answer

# -- exceptions ---------------------------------------------------------------------------------


class HostileStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class NonStrStr(Exception):
    def __str__(self) -> Any:
        return 42


class Quiet(Exception):
    pass


def pydantic_error() -> Exception:
    class Inner(BaseModel):
        n: int

    try:
        Inner(n="x")  # type: ignore[arg-type]
    except Exception as exc:
        return exc
    raise AssertionError


EXCEPTIONS: list[tuple[Callable[[], BaseException], str]] = [
    (lambda: ValueError("bad value"), "bad value"),
    (lambda: TypeError("bad type"), "bad type"),
    (lambda: KeyError("k"), "'k'"),
    (lambda: RuntimeError(), "RuntimeError"),
    (lambda: Quiet(), "Quiet"),
    (lambda: OSError(2, "No such file or directory"), "[Errno 2] No such file or directory"),
    (lambda: HostileStr("x"), "HostileStr"),
    (lambda: NonStrStr("x"), "NonStrStr"),
    (lambda: ZeroDivisionError("division by zero"), "division by zero"),
    (lambda: TimeoutError("the tool's own timeout"), "the tool's own timeout"),
    (lambda: asyncio.TimeoutError(), "TimeoutError"),
    (lambda: StopIteration("exhausted"), "exhausted"),
    (lambda: MemoryError("out of memory"), "out of memory"),
    (lambda: UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad byte"), ""),
]
_GROUP = getattr(builtins, "ExceptionGroup", None)  # Python 3.11+
if _GROUP is not None:
    EXCEPTIONS.append((lambda: _GROUP("several", [ValueError("a")]), "several (1 sub-exception)"))


def raising(make: Callable[[], BaseException]) -> dict[str, Callable[..., Any]]:
    """The same failure from a sync tool, an async tool and a sync tool with a timeout."""

    def sync_tool() -> None:
        raise make()

    async def async_tool() -> None:
        raise make()

    return {"sync": sync_tool, "async": async_tool, "timed": sync_tool}


@pytest.mark.parametrize(("make", "message"), EXCEPTIONS, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("kind", ["sync", "async", "timed"])
def test_any_exception_becomes_its_message(
    make: Callable[[], BaseException], message: str, kind: str
) -> None:
    registry = build_registry()
    func = raising(make)[kind]
    registry.register(func, name="bad", timeout=5 if kind == "timed" else None)
    if isinstance(make(), StopIteration) and kind == "async":
        message = "coroutine raised StopIteration"  # PEP 479, in the tool itself
    if not message:
        message = str(make())
    assert registry.call_tool("bad") == f"Error: {message}"
    assert asyncio.run(registry.async_call_tool("bad")) == f"Error: {message}"
    result = registry.execute_sync("bad")
    assert result == ToolResult.fail(message)
    assert isinstance(result.exception, Exception)  # kept for the developer's logs
    assert asyncio.run(registry.execute("bad")) == ToolResult.fail(message)
    assert registry.call("bad") == f"Error: {message}"
    assert_intact(registry)


def test_infinite_recursion_in_a_tool() -> None:
    registry = build_registry()

    @registry.tool
    def down(n: int = 0) -> int:
        return down.func(n + 1)  # type: ignore[no-any-return]

    assert registry.call_tool("down") == "Error: maximum recursion depth exceeded"
    assert asyncio.run(registry.async_call_tool("down")) == (
        "Error: maximum recursion depth exceeded"
    )
    assert_intact(registry)


def test_a_sync_tool_raising_stop_iteration_does_not_hang_the_async_face() -> None:
    """asyncio cannot set StopIteration on a future: awaiting one would hang forever."""
    registry = build_registry()
    registry.register(lambda: next(iter(())), name="empty")

    async def call() -> Any:
        return await asyncio.wait_for(registry.async_call_tool("empty"), 10)

    assert asyncio.run(call()) == "Error: StopIteration"
    assert registry.call_tool("empty") == "Error: StopIteration"


# -- BaseExceptions -----------------------------------------------------------------------------


@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("kind", ["sync", "async", "timed"])
def test_keyboard_interrupt_and_system_exit_propagate(
    exc_type: type[BaseException], kind: str
) -> None:
    registry = build_registry()
    func = raising(exc_type)[kind]
    tool = registry.register(func, name="bad", timeout=5 if kind == "timed" else None)
    faces: list[Callable[[], Any]] = [
        lambda: registry.call_tool("bad"),
        lambda: registry.execute_sync("bad"),
        lambda: registry.call("bad"),
        lambda: tool.call(),
        lambda: tool.run_sync(),
        lambda: asyncio.run(registry.async_call_tool("bad")),
        lambda: asyncio.run(registry.execute("bad")),
    ]
    for face in faces:
        with pytest.raises(exc_type):
            face()
    assert_intact(registry)  # the background loop survived


async def test_cancelling_the_caller_cancels_the_tool() -> None:
    registry = build_registry()
    started, cleaned_up = asyncio.Event(), asyncio.Event()

    @registry.tool
    async def slow() -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned_up.set()
        return "never"

    task = asyncio.create_task(registry.async_call_tool("slow"))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned_up.is_set()
    assert await registry.async_call_tool("add", {"a": 1}) == 1


@pytest.mark.parametrize("timeout", [None, 30])
async def test_cancelling_the_caller_of_a_timed_async_tool(timeout: float | None) -> None:
    registry = build_registry()
    started, cleaned_up = asyncio.Event(), asyncio.Event()

    @registry.tool(timeout=timeout)
    async def slow() -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned_up.set()
        return "never"

    task = asyncio.create_task(registry.execute("slow"))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(cleaned_up.wait(), 10)
    assert (await registry.execute("add", {"a": 2})).data == 2


async def test_cancelling_the_caller_of_a_blocking_sync_tool() -> None:
    """The caller is freed at once; the thread finishes on its own."""
    registry = build_registry()
    release, finished = threading.Event(), threading.Event()

    @registry.tool(timeout=30)
    def blocking() -> str:
        release.wait(30)
        finished.set()
        return "done"

    task = asyncio.create_task(registry.async_call_tool("blocking"))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    assert await asyncio.to_thread(finished.wait, 10)


def test_a_tool_raising_cancelled_error_itself() -> None:
    """Not the caller's cancellation: the async face propagates it (nothing but Exception
    is caught); a sync call has no task to cancel, and reports it."""
    registry = build_registry()

    @registry.tool
    async def gives_up() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(registry.async_call_tool("gives_up"))
    assert registry.call_tool("gives_up") == "Error: CancelledError"
    assert_intact(registry)


# -- return values the string face cannot serialise ------------------------------------------


class Opaque:
    def __str__(self) -> str:
        return "an opaque thing"


class HostileValue:
    def __str__(self) -> str:
        raise RuntimeError("no")

    def __repr__(self) -> str:
        raise RuntimeError("no")


def circular() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


def deep(depth: int = 100_000) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("make", "text"),
    [
        (lambda: {1, 2}, "[1, 2]"),
        (lambda: Opaque(), "an opaque thing"),
        (lambda: HostileValue(), "<HostileValue object>"),
        (lambda: b"\x00\xff", "b'\\x00\\xff'"),
        (lambda: circular(), "[[...]]"),
        (lambda: deep(), "<list object>"),
        (lambda: 10**5000, f"<int of {(10**5000).bit_length()} bits>"),
        (lambda: float("nan"), "NaN"),
        (lambda: {(1, 2): "tuple key"}, '{"1,2": "tuple key"}'),
        (lambda: {"ok": {1, 2}}, '{"ok": [1, 2]}'),
        (lambda: {"ok": HostileValue()}, "<dict object>"),
    ],
    ids=[
        "set",
        "object",
        "hostile",
        "bytes",
        "circular",
        "deep",
        "huge-int",
        "nan",
        "tuple-keys",
        "nested-set",
        "nested-hostile",
    ],
)
def test_unserialisable_values_still_read_as_text(make: Callable[[], Any], text: str) -> None:
    registry = ToolRegistry()
    value = make()
    registry.register(lambda: value, name="odd")
    assert registry.call_tool("odd") is value  # the Agently face returns the value itself
    result = registry.execute_sync("odd")
    assert result.data is value
    assert str(result) == text  # the string face: readable text, always
    assert registry.call("odd") == text


def test_a_tool_annotated_tool_result_that_returns_something_else() -> None:
    registry = ToolRegistry()

    @registry.tool
    def liar() -> ToolResult:
        return "not a result"  # type: ignore[return-value]

    message = "tool must return a ToolResult (it is annotated -> ToolResult), got str"
    assert registry.call_tool("liar") == f"Error: {message}"
    assert registry.execute_sync("liar") == ToolResult.fail(message)


# -- never returning ---------------------------------------------------------------------------


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown, so abandoned worker threads finish instead of lingering."""
    event = threading.Event()
    yield event
    event.set()


def test_an_async_tool_that_never_returns_times_out() -> None:
    registry = build_registry()

    @registry.tool(timeout=0.2)
    async def forever() -> None:
        await asyncio.Event().wait()

    message = "Tool 'forever' timed out after 0.2 seconds"
    assert registry.call_tool("forever") == f"Error: {message}"
    assert asyncio.run(registry.async_call_tool("forever")) == f"Error: {message}"
    assert registry.execute_sync("forever") == ToolResult.fail(message)
    assert asyncio.run(registry.execute("forever")) == ToolResult.fail(message)
    assert_intact(registry)


def test_a_sync_tool_that_never_returns_times_out_and_its_thread_is_counted(
    release: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    """Threads cannot be killed: each timed-out one is abandoned, logged and counted."""
    registry = build_registry()

    @registry.tool(timeout=0.2)
    def stuck() -> None:
        release.wait(60)

    before = abandoned_threads()
    message = "Tool 'stuck' timed out after 0.2 seconds"
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        assert registry.call_tool("stuck") == f"Error: {message}"
        assert asyncio.run(registry.async_call_tool("stuck")) == f"Error: {message}"
        assert registry.execute_sync("stuck") == ToolResult.fail(message)
    assert abandoned_threads() == before + 3
    warnings = [r.getMessage() for r in caplog.records if "abandoned" in r.getMessage()]
    assert len(warnings) == 3
    assert "stuck" in warnings[0]
    assert "after its 0.2s timeout" in warnings[0]
    workers = [t for t in threading.enumerate() if t.name == "tooldeck-call" and t.is_alive()]
    assert len(workers) >= 3
    assert all(t.daemon for t in workers)  # they never keep the process alive
    assert_intact(registry)


def test_a_sync_call_of_an_async_tool_that_never_returns(release: threading.Event) -> None:
    """From a worker thread, as from the main one: the background loop fires the timeout."""
    registry = build_registry()

    @registry.tool(timeout=0.2)
    async def forever() -> None:
        await asyncio.Event().wait()

    answers: list[Any] = []
    worker = threading.Thread(target=lambda: answers.append(registry.call_tool("forever")))
    worker.start()
    worker.join(30)
    assert answers == ["Error: Tool 'forever' timed out after 0.2 seconds"]


def test_abandoned_threads_are_counted_exactly_when_many_time_out_at_once(
    release: threading.Event,
) -> None:
    registry = build_registry()

    @registry.tool(timeout=0.2)
    def stuck() -> None:
        release.wait(60)

    before = abandoned_threads()
    callers = [threading.Thread(target=registry.call_tool, args=("stuck",)) for _ in range(16)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(30)
    assert abandoned_threads() == before + 16


def test_an_async_tool_blocking_its_loop_still_times_out_for_a_sync_caller(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A coroutine that never yields holds tooldeck's loop, so the loop cannot fire the
    timeout; the sync caller stops waiting shortly after it anyway."""
    monkeypatch.setattr(_shifting, "LOOP_GRACE", 0.2)
    registry = build_registry()

    @registry.tool(timeout=0.1)
    async def hog() -> str:
        time.sleep(1.0)  # blocking code in an async tool: the mistake this guards against
        return "late"

    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        assert registry.call_tool("hog") == "Error: Tool 'hog' timed out after 0.1 seconds"
    assert any("did not fire a 0.1s timeout" in r.getMessage() for r in caplog.records)
    _shifting.run_coroutine(asyncio.sleep(0))  # the loop is back once the tool returns
    assert_intact(registry)


# -- blocking tools do not block the loop -------------------------------------------------------


@pytest.mark.parametrize("timeout", [None, 30])
async def test_the_loop_stays_responsive_while_sync_tools_block(timeout: float | None) -> None:
    registry = build_registry()

    @registry.tool(timeout=timeout)
    def blocking(seconds: float) -> str:
        time.sleep(seconds)
        return "slept"

    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(heartbeat())
    try:
        answers = await asyncio.gather(
            *(registry.async_call_tool("blocking", {"seconds": 0.5}) for _ in range(4))
        )
    finally:
        beat.cancel()
    assert answers == ["slept"] * 4
    assert ticks >= 10  # about 50 while the tools slept; 0 if the loop had blocked
    assert await registry.async_call_tool("add", {"a": 1}) == 1


# -- validators that raise anything --------------------------------------------------------------


def broken_validator(value: Any) -> Any:
    raise RuntimeError("validator broke")


class BrokenModel(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def check(cls, value: int) -> int:
        raise KeyError("lookup failed")


@pytest.mark.parametrize("arguments", [{"x": 1}, '{"x": 1}'], ids=["dict", "json"])
def test_a_validator_raising_anything_is_a_failed_call(arguments: Any) -> None:
    """Pydantic turns only ValueError/AssertionError into validation errors; anything
    else a validator raises comes through as it is — and is still a failed call."""
    registry = build_registry()

    @registry.tool
    def checked(x: Annotated[int, AfterValidator(broken_validator)]) -> int:
        return x

    registry.register(lambda **kw: kw, name="modelled", args_schema=BrokenModel)
    answer, result = every_answer(registry, "checked", arguments)
    assert answer == "Error: validator broke"
    assert result == ToolResult.fail("validator broke")
    answer, result = every_answer(registry, "modelled", {"n": 1})
    assert answer == "Error: 'lookup failed'"
    assert_intact(registry)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_tool_raising_cancelled_error_in_a_turn_of_one_or_many_calls(kind: str) -> None:
    """docs/calling.md: a sync call reports a tool's own CancelledError; the async faces
    propagate it. A turn answers alike with one call or many."""
    registry = build_registry()

    if kind == "sync":

        @registry.tool
        def gives_up() -> None:
            raise asyncio.CancelledError

    else:

        @registry.tool
        async def gives_up() -> None:
            raise asyncio.CancelledError

    def turn(*names: str) -> dict[str, Any]:
        calls = [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n in enumerate(names)
        ]
        return {"role": "assistant", "tool_calls": calls}

    def answers(reply: dict[str, Any]) -> list[str]:
        return [message["content"] for message in registry.run_tool_calls(reply)]

    assert answers(turn("gives_up")) == ["Error: CancelledError"]
    assert answers(turn("echo", "gives_up", "gives_up")) == [
        "Error: Invalid arguments for tool 'echo':\ntext: missing required argument",
        "Error: CancelledError",
        "Error: CancelledError",
    ]
    for reply in (turn("gives_up"), turn("echo", "gives_up")):  # the async face propagates
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(registry.async_run_tool_calls(reply))
    assert_intact(registry)
