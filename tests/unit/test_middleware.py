"""The middleware chain beyond its shared behaviour (tests/integration/test_middleware_chain.py):
adding middleware, `Call`, what never reaches the chain, sync and async on every face,
nested calls, the calls of a reply."""

from __future__ import annotations

import asyncio
import functools
import threading
import warnings
from types import MappingProxyType
from typing import Annotated, Any

import pytest

from tooldeck import Call, Injected, ToolRegistry, ToolResult
from tooldeck.middleware import _call

pytestmark = pytest.mark.timeout(30)


def passing(call: Call, call_next: Any) -> ToolResult:
    result: ToolResult = call_next(call)
    return result


async def apassing(call: Call, call_next: Any) -> ToolResult:
    result: ToolResult = await call_next(call)
    return result


def registry_with(*middleware: Any) -> ToolRegistry:
    registry = ToolRegistry(middleware=list(middleware))

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        return a + b

    @registry.tool
    async def aadd(a: int, b: int = 0) -> int:
        return a + b

    return registry


# -- adding middleware ---------------------------------------------------------------------


class Counting:
    """A middleware as a class instance (as the built-ins will be)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, call: Call, call_next: Any) -> ToolResult:
        self.calls += 1
        result: ToolResult = call_next(call)
        return result


def three(call: Call, call_next: Any, extra: Any) -> ToolResult:
    raise AssertionError("never called")


@pytest.mark.parametrize(
    "bad",
    [None, 5, "audit", lambda call: call, three, lambda: None, Counting],
    ids=["None", "int", "str", "one-arg", "three-args", "no-args", "a-class"],
)
def test_what_is_no_middleware_is_refused_when_added(bad: Any) -> None:
    with pytest.raises(TypeError, match="middleware"):
        ToolRegistry(middleware=[bad])
    registry = ToolRegistry()
    with pytest.raises(TypeError, match="middleware"):
        registry.add_middleware(bad)
    with pytest.raises(TypeError, match="middleware"):
        registry.middleware(bad)
    assert registry.call_tool("nothing") == "Can not find tool named 'nothing'"


def test_middleware_takes_a_list_not_one_callable() -> None:
    with pytest.raises(TypeError, match=r"middleware=\[mw\]"):
        ToolRegistry(middleware=passing)  # type: ignore[arg-type]


def test_callables_of_every_shape_are_accepted() -> None:
    counting = Counting()
    with_default = functools.partial(lambda call, call_next, x=1: call_next(call))

    def star(*args: Any) -> ToolResult:
        result: ToolResult = args[1](args[0])
        return result

    registry = registry_with(counting, with_default, star)

    @registry.middleware
    async def decorated(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        return result

    assert decorated.__name__ == "decorated"  # the decorator returns it unchanged
    assert registry.call_tool("add", {"a": 1, "b": 2}) == 3
    assert counting.calls == 1


def test_add_middleware_appends_innermost_and_is_thread_safe() -> None:
    order: list[int] = []
    registry = registry_with()

    def mark(i: int) -> Any:
        def mw(call: Call, call_next: Any) -> ToolResult:
            order.append(i)
            result: ToolResult = call_next(call)
            return result

        return mw

    threads = [threading.Thread(target=registry.add_middleware, args=(mark(i),)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert registry.call_tool("add", {"a": 1}) == 1
    assert sorted(order) == list(range(8))  # none lost
    registry.add_middleware(mark(99))
    order.clear()
    registry.call_tool("add", {"a": 1})
    assert order[-1] == 99


# -- what a middleware returns or raises ------------------------------------------------------


def test_not_a_tool_result_names_the_middleware_and_never_raises() -> None:
    counting_none = Counting()
    counting_none.__call__ = None  # type: ignore[method-assign]

    class Sloppy:
        def __call__(self, call: Call, call_next: Any) -> Any:
            return None

    registry = registry_with(Sloppy())
    expected = "Error: Middleware 'Sloppy' returned None, not a ToolResult"
    assert registry.call_tool("add", {"a": 1}) == expected
    assert str(registry.execute_sync("add", {"a": 1})) == expected
    assert asyncio.run(registry.async_call_tool("aadd", {"a": 1})) == expected


def test_a_sync_middleware_returning_a_coroutine_is_told_to_be_async() -> None:
    async def real(call: Call, call_next: Any) -> ToolResult:
        raise AssertionError("never awaited")

    def wrapper(call: Call, call_next: Any) -> Any:
        return real(call, call_next)

    registry = registry_with(wrapper)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine was never awaited"
        text = registry.call_tool("add", {"a": 1})
    assert text.startswith("Error: Middleware 'wrapper' returned coroutine, not a ToolResult")
    assert "async def" in text


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


@pytest.mark.parametrize("raised", [Unprintable(), ValueError("x" * 5000), StopIteration()])
def test_any_exception_from_a_middleware_is_a_failure(raised: BaseException) -> None:
    def sync_raiser(call: Call, call_next: Any) -> ToolResult:
        raise raised

    async def async_raiser(call: Call, call_next: Any) -> ToolResult:
        raise raised

    for mw in (sync_raiser, async_raiser):
        registry = registry_with(mw)
        for name in ("add", "aadd"):
            result = registry.execute_sync(name, {"a": 1})
            assert not result.success
            # (a coroutine raising StopIteration raises RuntimeError from it: PEP 479)
            assert raised in (result.exception, getattr(result.exception, "__cause__", None))
            assert 0 < len(result.error or "") < 2100
            assert asyncio.run(registry.execute(name, {"a": 1})).error == result.error
            assert registry.call_tool(name, {"a": 1}) == str(result)


def test_call_next_given_something_else_fails_the_call() -> None:
    def confused(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = call_next({"a": 1})
        return result

    result = registry_with(confused).execute_sync("add", {"a": 1})
    assert not result.success


def test_keyboard_interrupt_propagates() -> None:
    def interrupt(call: Call, call_next: Any) -> ToolResult:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry_with(interrupt).call_tool("add", {"a": 1})


async def test_cancelling_an_async_face_cancels_through_the_chain() -> None:
    started = asyncio.Event()
    registry = ToolRegistry(middleware=[apassing])

    @registry.tool
    async def forever() -> str:
        started.set()
        await asyncio.sleep(3600)
        return "never"

    task = asyncio.ensure_future(registry.execute("forever"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# -- Call ------------------------------------------------------------------------------------


def test_call_is_frozen_and_replace_makes_a_changed_copy() -> None:
    seen: list[Call] = []

    def keep(call: Call, call_next: Any) -> ToolResult:
        seen.append(call)
        result: ToolResult = call_next(call.replace(arguments={"a": 5}))
        return result

    registry = registry_with(keep)
    assert registry.call_tool("add", {"a": 1, "b": 2}, context={"user": "u1"}) == 5
    call = seen[0]
    for field in ("tool", "name", "arguments", "context", "call_id", "format", "source"):
        with pytest.raises(AttributeError, match="frozen"):
            setattr(call, field, None)
    with pytest.raises(AttributeError):
        call.other = 1  # type: ignore[attr-defined]
    assert isinstance(call.context, MappingProxyType)
    with pytest.raises(TypeError):
        call.context["user"] = "u2"  # type: ignore[index]
    assert dict(call.context) == {"user": "u1"}
    changed = call.replace(arguments={"a": 9}, context={"user": "u2"})
    assert (changed.arguments, dict(changed.context)) == ({"a": 9}, {"user": "u2"})
    assert (call.arguments, dict(call.context)) == ({"a": 1, "b": 2}, {"user": "u1"})
    assert changed.replace() == changed and changed != call
    assert "add" in repr(call) and "'call'" in repr(call)
    with pytest.raises(TypeError, match="arguments= and context="):
        call.replace(name="other")
    with pytest.raises(TypeError, match="mapping"):
        call.replace(arguments=[1])
    with pytest.raises(TypeError, match="mapping"):
        call.replace(context=5)
    assert call.replace(arguments=MappingProxyType({"a": 1})).arguments == {"a": 1}


def test_a_call_without_context_has_an_empty_read_only_one() -> None:
    registry = registry_with()
    call = Call(registry.get("add"), {"a": 1})  # type: ignore[arg-type]
    assert dict(call.context) == {} and isinstance(call.context, MappingProxyType)
    assert (call.name, call.call_id, call.format, call.source) == ("add", None, None, "call")


def test_context_replaced_by_a_middleware_reaches_injected_parameters() -> None:
    def as_admin(call: Call, call_next: Any) -> ToolResult:
        result: ToolResult = call_next(call.replace(context={**call.context, "user": "admin"}))
        return result

    registry = ToolRegistry(middleware=[as_admin])

    @registry.tool
    def whoami(user: Annotated[str, Injected]) -> str:
        return user

    assert registry.call_tool("whoami", {}, context={"user": "u1"}) == "admin"
    assert asyncio.run(registry.execute("whoami", {})).data == "admin"


# -- what the chain does not see -----------------------------------------------------------


def test_a_tool_called_directly_has_no_chain() -> None:
    counting = Counting()
    registry = registry_with(counting)
    add = registry.get("add")
    assert add is not None
    assert add.call({"a": 1}) == 1 and add.run_sync({"a": 1}).data == 1
    assert asyncio.run(add.acall({"a": 1})) == 1 and asyncio.run(add.run({"a": 1})).data == 1
    assert add(1, 2) == 3
    assert counting.calls == 0
    registry.call_tool("add", {"a": 1})
    assert counting.calls == 1


def test_a_registry_without_middleware_makes_no_call(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any) -> None:
        raise AssertionError("a Call was made")

    monkeypatch.setattr(_call.Call, "__init__", refuse)
    registry = registry_with()
    assert registry.call_tool("add", {"a": 1}) == 1
    assert registry.execute_sync("add", '{"a": 1}').data == 1
    assert asyncio.run(registry.async_call_tool("aadd", {"a": 1})) == 1
    reply = [{"id": "c", "type": "function", "function": {"name": "add", "arguments": "{}"}}]
    assert "Error" in registry.run_tool_calls(reply)[0]["content"]


@pytest.mark.parametrize("arguments", ["{not json", "[1, 2]", "5", b"\xff", [1], 5])
def test_unreadable_arguments_fail_before_the_chain_as_without_it(arguments: Any) -> None:
    counting = Counting()
    with_chain, without = registry_with(counting), registry_with()
    for name in ("add", "aadd"):
        assert with_chain.call_tool(name, arguments) == without.call_tool(name, arguments)
        assert str(with_chain.execute_sync(name, arguments)) == str(
            without.execute_sync(name, arguments)
        )
        assert str(asyncio.run(with_chain.execute(name, arguments))) == str(
            asyncio.run(without.execute(name, arguments))
        )
    assert counting.calls == 0


def test_a_disabled_tool_fails_before_the_chain() -> None:
    counting = Counting()
    registry = registry_with(counting)
    registry.disable("add")
    assert registry.call_tool("add", {"a": 1}) == "Error: Tool 'add' is disabled"
    assert registry.call("add", a=1) == "Error: Tool 'add' is disabled"
    assert counting.calls == 0


def test_json_text_passed_through_is_validated_as_sent() -> None:
    """JSON text is validated in JSON mode, as without middleware: a strict UUID field
    takes a string in JSON, not in Python."""
    from uuid import UUID

    from pydantic import Strict

    seen: list[dict[str, Any]] = []

    def reads(call: Call, call_next: Any) -> ToolResult:
        seen.append(call.arguments)
        result: ToolResult = call_next(call)
        return result

    registry = ToolRegistry(middleware=[reads])

    @registry.tool
    def show(u: Annotated[UUID, Strict()]) -> str:
        return str(u)

    text = '{"u": "12345678-1234-5678-1234-567812345678"}'
    assert registry.call_tool("show", text) == "12345678-1234-5678-1234-567812345678"
    assert seen == [{"u": "12345678-1234-5678-1234-567812345678"}]
    assert registry.call("show", text) == "12345678-1234-5678-1234-567812345678"


# -- sync and async middleware on every face -----------------------------------------------


def test_a_sync_middleware_on_an_async_face_does_not_block_the_loop() -> None:
    """It runs in a worker thread: it can wait for the loop, which keeps running."""
    ticked = threading.Event()

    def waits_for_the_loop(call: Call, call_next: Any) -> ToolResult:
        if not ticked.wait(10):
            return ToolResult.fail("the event loop was blocked")
        result: ToolResult = call_next(call)
        return result

    registry = registry_with(waits_for_the_loop)

    async def main() -> Any:
        async def tick() -> None:
            await asyncio.sleep(0)
            ticked.set()

        answer, _ = await asyncio.gather(registry.async_call_tool("aadd", {"a": 2}), tick())
        return answer

    assert asyncio.run(main()) == 2


async def test_an_async_middleware_on_a_sync_face_inside_a_running_loop() -> None:
    registry = registry_with(apassing, passing, apassing)
    assert registry.call_tool("aadd", {"a": 1, "b": 1}) == 2
    assert registry.execute_sync("add", {"a": 1, "b": 1}).data == 2


def test_nested_calls_through_the_chain_do_not_deadlock() -> None:
    registry = ToolRegistry(middleware=[apassing, passing])

    @registry.tool
    def leaf(n: int) -> int:
        return n + 1

    @registry.tool
    async def middle(n: int) -> int:
        return registry.call_tool("leaf", {"n": n}) + 1  # type: ignore[no-any-return]

    @registry.tool
    def top(n: int) -> int:
        return registry.call_tool("middle", {"n": n}) + 1  # type: ignore[no-any-return]

    assert registry.call_tool("top", {"n": 0}) == 3
    assert asyncio.run(registry.async_call_tool("top", {"n": 0})) == 3
    reply = [
        {"id": f"c{i}", "type": "function", "function": {"name": "top", "arguments": '{"n": 0}'}}
        for i in range(4)
    ]
    assert [m["content"] for m in registry.run_tool_calls(reply)] == ["3"] * 4


# -- the calls of a reply --------------------------------------------------------------------


REPLIES = {
    "openai": [
        {"id": f"c{i}", "type": "function", "function": {"name": "add", "arguments": "{}"}}
        for i in (1, 2)
    ],
    "openai-responses": [
        {"type": "function_call", "id": f"fc{i}", "call_id": f"c{i}", "name": "add",
         "arguments": "{}"}
        for i in (1, 2)
    ],
    "anthropic": [
        {"type": "tool_use", "id": f"c{i}", "name": "add", "input": {}} for i in (1, 2)
    ],
    "gemini": [{"function_call": {"name": "add", "args": {}}} for i in (1, 2)],
}  # fmt: skip


@pytest.mark.parametrize("format", list(REPLIES))
@pytest.mark.parametrize("count", [1, 2])
def test_each_call_of_a_reply_carries_its_id_and_format(format: str, count: int) -> None:
    seen: list[tuple[Any, ...]] = []

    async def keep(call: Call, call_next: Any) -> ToolResult:
        seen.append((call.call_id, call.format, call.source))
        return ToolResult.ok(f"{call.call_id}")

    registry = registry_with(keep)
    reply = REPLIES[format][:count]
    ids = [None] * count if format == "gemini" else [f"c{i}" for i in (1, 2)][:count]
    for run in (registry.run_tool_calls, lambda r: asyncio.run(registry.async_run_tool_calls(r))):
        seen.clear()
        run(reply)
        assert sorted(seen, key=str) == [(i, format, "tool_calls") for i in ids]


@pytest.mark.timeout(120)
def test_a_burst_from_threads_and_loops_through_mixed_middleware_answers_every_call() -> None:
    """8 threads (4 running event loops) send replies of 25 calls each through sync and
    async middleware: every call answered, by its own id, nothing lost or crossed."""
    seen: list[str] = []
    lock = threading.Lock()

    def count(call: Call, call_next: Any) -> ToolResult:
        with lock:
            seen.append(call.call_id or "")
        result: ToolResult = call_next(call)
        return result

    registry = registry_with(apassing, count, apassing)

    def reply(thread: int) -> list[dict[str, Any]]:
        return [
            {
                "id": f"t{thread}-{i}",
                "type": "function",
                "function": {"name": "aadd" if i % 2 else "add", "arguments": f'{{"a": {i}}}'},
            }
            for i in range(25)
        ]

    answers: dict[int, list[dict[str, Any]]] = {}

    def work(thread: int) -> None:
        if thread % 2:
            answers[thread] = asyncio.run(registry.async_run_tool_calls(reply(thread)))
        else:
            answers[thread] = registry.run_tool_calls(reply(thread), max_concurrency=5)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(100)
    assert sorted(answers) == list(range(8))
    for t, messages in answers.items():
        assert [(m["tool_call_id"], m["content"]) for m in messages] == [
            (f"t{t}-{i}", str(i)) for i in range(25)
        ]
    assert len(seen) == 200 and len(set(seen)) == 200
