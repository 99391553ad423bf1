"""Where tooldeck meets its callers and its tools: nothing raises, leaks, piles up or hangs
(issue 12, items 6-11 and 13). What could hang runs in a subprocess with a hard timeout.
"""

from __future__ import annotations

import asyncio
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from forkserver import LazyForkServer
from tooldeck import Tool, ToolDefinitionError, ToolRegistry, ToolResult, abandoned_threads

ROOT = Path(__file__).resolve().parents[2]


# A process that imported tooldeck and its command line, forked for each child
# (tests/forkserver.py): a process of its own without Python's start-up each time.
forks = LazyForkServer("import faulthandler, tooldeck, tooldeck.cli")
_close_forks = forks.closing()


def run_child(code: str, timeout: float = 60) -> list[str]:
    prelude = "faulthandler.dump_traceback_later(40, exit=True)\n"
    done = forks().run(code=prelude + textwrap.dedent(code), timeout=timeout)
    out, err = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, out + err[-3000:]
    return out.strip().splitlines()


def all_faces(registry: ToolRegistry, name: Any, arguments: Any = None) -> list[str]:
    """What each face answers, as text: it must return, never raise."""
    tool = registry.get(name) if isinstance(name, str) else None
    answers = [
        registry.call_tool(name, arguments),
        asyncio.run(registry.async_call_tool(name, arguments)),
        str(registry.execute_sync(name, arguments)),
        str(asyncio.run(registry.execute(name, arguments))),
    ]
    if tool is not None:
        answers += [
            tool.call(arguments),
            asyncio.run(tool.acall(arguments)),
            str(tool.run_sync(arguments)),
            str(asyncio.run(tool.run(arguments))),
        ]
    return [a if isinstance(a, str) else repr(a) for a in answers]


# -- item 6: the CLI renders any value ----------------------------------------------------


CLI_TOOLS = """
from tooldeck import tool

class Hostile:
    def __str__(self):
        raise RuntimeError("no str")
    def __repr__(self):
        raise RuntimeError("no repr")

@tool
def huge() -> int:
    return 10 ** 5000

@tool
def circular() -> list:
    items = [1]
    items.append(items)
    return items

@tool
def hostile():
    return Hostile()

class HostileText(str):
    def __str__(self):
        raise RuntimeError("no str")

class NotText(str):
    def __str__(self):
        return 42

@tool
def hostile_text():
    return HostileText("its characters")

@tool
def not_text():
    return NotText("its characters")
"""


@pytest.mark.parametrize("name", ["huge", "circular", "hostile", "hostile_text", "not_text"])
def test_the_cli_prints_any_value_without_a_traceback(tmp_path: Path, name: str) -> None:
    tools = tmp_path / "edge_tools.py"
    tools.write_text(CLI_TOOLS, encoding="utf-8")
    done = forks().run(module="tooldeck", argv=["call", name, "--tools", str(tools)], timeout=60)
    out, err = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, err
    assert "Traceback" not in err
    assert out.strip()  # something readable: the same text str(ToolResult) gives
    if name in ("hostile_text", "not_text"):
        assert out.strip() == "its characters"  # a str subclass: its characters


def test_a_failed_result_whose_error_is_hostile_text_never_raises() -> None:
    """A tool may build ``ToolResult(False, None, error)`` itself, bypassing ``fail``'s
    ``str()``: an error whose ``__str__`` raises made the faces raise."""

    class HostileText(str):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError("no str")

    registry = ToolRegistry()

    @registry.tool
    def text_error() -> ToolResult:
        return ToolResult(False, None, HostileText("bad"))

    @registry.tool
    def object_error() -> ToolResult:
        return ToolResult(False, None, Hostile())  # type: ignore[arg-type]

    assert set(all_faces(registry, "text_error")) == {"Error: bad"}
    assert set(all_faces(registry, "object_error")) == {"Error: <Hostile object>"}
    calls = [{"functionCall": {"name": n, "args": {}}} for n in ("text_error", "object_error")]
    parts = registry.run_tool_calls(calls)[0]["parts"]
    assert [p["function_response"]["response"] for p in parts] == [
        {"error": "bad"},
        {"error": "<Hostile object>"},
    ]


# -- item 7: a tool shared by registries ---------------------------------------------------


def test_tagging_a_shared_tool_from_two_registries_at_once_does_not_deadlock() -> None:
    out = run_child(
        """
        import threading
        from tooldeck import Tool, ToolRegistry

        def f(x: int) -> int:
            return x

        shared = Tool(f)
        a, b = ToolRegistry(), ToolRegistry()
        a.register(shared); b.register(shared)

        def tag(registry, prefix):
            for i in range(2000):
                registry.tag("f", f"{prefix}{i % 7}")

        threads = [threading.Thread(target=tag, args=(r, p)) for r, p in ((a, "a"), (b, "b"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        print(any(t.is_alive() for t in threads))
        print(sorted(a.list_tools(["a3", "b5"], match="all")), b.list_tools("a6"))
        """
    )
    assert out == ["False", "['f'] ['f']"]


def test_registering_one_tool_into_two_registries_at_once_loses_no_owner() -> None:
    def register(registry: ToolRegistry, tool: Tool[..., Any], barrier: Any) -> None:
        barrier.wait()
        registry.register(tool)

    for _ in range(50):
        tool = Tool(lambda x: x, name="shared")
        registries = [ToolRegistry() for _ in range(8)]
        barrier = threading.Barrier(len(registries))
        threads = [threading.Thread(target=register, args=(r, tool, barrier)) for r in registries]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        registries[0].tag("shared", "seen")
        assert all(r.list_tools("seen") == ["shared"] for r in registries)


# -- item 8: error text that reaches a model is bounded and printable -------------------------


def test_a_huge_exception_message_is_clipped_and_escaped_on_every_face() -> None:
    registry = ToolRegistry()
    message = "line one\n\x1b[31mred\x07" + "x" * 10_000_000

    @registry.tool
    def loud() -> None:
        raise ValueError(message)

    answers = all_faces(registry, "loud")
    shown = message[:2000].replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    expected = f"Error: {shown}… ({len(message) - 2000:,} more characters)"
    assert answers == [expected] * 8
    assert "\n" in expected and "\x1b" not in expected
    result = registry.execute_sync("loud")
    assert str(result.exception) == message  # the developer's logs keep it whole


# -- item 9: abandoned threads are bounded per tool ----------------------------------------------


def test_abandoned_threads_are_capped_per_tool_and_the_cap_frees_up() -> None:
    registry = ToolRegistry()
    release = threading.Event()

    @registry.tool(timeout=0.05)
    def stuck() -> str:
        release.wait(30)
        return "done"

    stuck.max_abandoned_threads = 4
    before = abandoned_threads()
    answers = [registry.call_tool("stuck") for _ in range(6)]
    answers.append(asyncio.run(registry.async_call_tool("stuck")))
    timed_out = "Error: Tool 'stuck' timed out after 0.05 seconds"
    refused = (
        "Error: Tool 'stuck' is not called now: 4 of its calls still run after timing out, "
        "the most it may leave running (4); try again once they finish"
    )
    assert answers == [timed_out] * 4 + [refused] * 3
    assert abandoned_threads() == before + 4  # the refused calls started no thread
    release.set()
    for _ in range(200):  # the four threads finish and leave the lot
        if registry.call_tool("stuck") == "done":
            break
        threading.Event().wait(0.05)
    assert registry.call_tool("stuck") == "done"


def test_thousands_of_timeouts_do_not_exhaust_threads() -> None:
    out = run_child(
        """
        import threading, time
        from tooldeck import ToolRegistry
        registry = ToolRegistry()
        stop = threading.Event()

        @registry.tool(timeout=0.001)
        def stuck() -> None:
            stop.wait()

        answers = {registry.call_tool("stuck").split(":")[1] for _ in range(2000)}
        print(threading.active_count() < 100)
        print(sorted(answers))
        """,
        timeout=120,
    )
    assert out == [
        "True",
        "[\" Tool 'stuck' is not called now\", \" Tool 'stuck' timed out after 0.001 seconds\"]",
    ]


# -- item 10: faces that raised ------------------------------------------------------------------


class ClassRaises(dict):  # type: ignore[type-arg]
    @property  # type: ignore[misc]
    def __class__(self) -> Any:
        raise RuntimeError("no class")


class HashRaises:
    def __hash__(self) -> int:
        raise RuntimeError("no hash")


class EqRaises(str):
    __slots__ = ()

    def __hash__(self) -> int:
        return hash("add")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")


def test_arguments_whose_class_raises_are_a_failed_call_on_every_face() -> None:
    registry = ToolRegistry()

    @registry.tool
    async def later(x: int = 1) -> int:
        return x

    @registry.tool
    def now(x: int = 1) -> int:
        return x

    for name in ("later", "now"):
        answers = all_faces(registry, name, ClassRaises(x=2))
        assert all(a.startswith("Error:") or a == "2" for a in answers), answers


@pytest.mark.parametrize("name", [HashRaises(), EqRaises("add"), ["unhashable"]])
def test_a_name_whose_hash_or_eq_raises_is_not_found(name: Any) -> None:
    registry = ToolRegistry()
    registry.register(lambda a: a, name="add")
    answers = all_faces(registry, name, {"a": 1})
    assert all("not found" in a or a.startswith("Can not find tool named") for a in answers)
    assert name not in registry
    assert registry.get(name) is None


class HostileText(str):
    __slots__ = ()

    def __radd__(self, other: object) -> Any:
        return None

    def __add__(self, other: object) -> Any:
        return None

    def __len__(self) -> int:
        raise RuntimeError("no len")

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no encode")


class HostileMessage(Exception):
    def __str__(self) -> str:
        return HostileText("the message")


def test_an_exception_whose_str_is_a_hostile_str_subclass_reads_as_its_text() -> None:
    registry = ToolRegistry()

    @registry.tool
    def fails() -> None:
        raise HostileMessage

    @registry.tool
    async def afails() -> None:
        raise HostileMessage

    for name in ("fails", "afails"):
        assert all_faces(registry, name) == ["Error: the message"] * 8


def test_a_sync_tool_raising_cancelled_error_is_a_failed_sync_call() -> None:
    """Docs and code agree: no task is cancelled in a sync call; it is reported."""
    registry = ToolRegistry()

    @registry.tool
    def gives_up() -> None:
        raise asyncio.CancelledError

    @registry.tool(timeout=5)
    def gives_up_timed() -> None:
        raise asyncio.CancelledError

    for name in ("gives_up", "gives_up_timed"):
        assert registry.call_tool(name) == "Error: CancelledError"
        assert registry.execute_sync(name).error == "CancelledError"
        assert registry.call(name) == "Error: CancelledError"
        assert registry.get(name).call() == "Error: CancelledError"
        with pytest.raises(asyncio.CancelledError):  # the async faces propagate it
            asyncio.run(registry.async_call_tool(name))


# -- item 11: a sync function returning a coroutine; generators ------------------------------------


async def fetch(q: str) -> str:
    await asyncio.sleep(0)
    return f"fetched {q}"


def test_a_sync_function_returning_a_coroutine_has_it_awaited() -> None:
    registry = ToolRegistry()
    registry.register(lambda q: fetch(q), name="wrapped")  # says nothing of its return

    def annotated(q: str) -> str:  # says str, returns a coroutine: awaited all the same
        return fetch(q)  # type: ignore[return-value]

    registry.register(annotated)
    registry.register(annotated, name="timed", timeout=5, replace=True)
    for name in ("wrapped", "annotated", "timed"):
        assert set(all_faces(registry, name, {"q": "x"})) == {"fetched x"}, name


class Later:
    """An awaitable that is no coroutine."""

    def __init__(self, q: str) -> None:
        self.q = q

    def __await__(self) -> Any:
        return fetch(self.q).__await__()


def test_a_sync_function_returning_another_awaitable_has_it_awaited() -> None:
    registry = ToolRegistry()

    def later(q):  # type: ignore[no-untyped-def]
        return Later(q)

    registry.register(later)
    assert set(all_faces(registry, "later", {"q": "y"})) == {"fetched y"}


def test_generators_are_refused_at_definition() -> None:
    async def agen(q: str):  # type: ignore[no-untyped-def]
        yield q

    def gen(q: str):  # type: ignore[no-untyped-def]
        yield q

    class Streams:
        async def __call__(self, q: str):  # type: ignore[no-untyped-def]
            yield q

    for func, kind in ((agen, "an async generator"), (gen, "a generator"), (Streams(), "an async")):
        with pytest.raises(ToolDefinitionError, match=f"{kind}.* cannot be a tool"):
            Tool(func)


# -- item 13: fork while another thread holds a lock -----------------------------------------


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
@pytest.mark.parametrize("held", ["registry", "tags", "abandoned"])
def test_a_forked_child_is_not_stuck_on_a_lock_its_parent_held(held: str) -> None:
    out = run_child(
        f"""
        import os, threading, time
        from tooldeck import Tool, ToolRegistry, _catalog, _threads
        registry = ToolRegistry()
        lock = {{"registry": registry._lock, "tags": _catalog._shared_lock,
                 "abandoned": _threads._lock}}["{held}"]
        grabbed, release = threading.Event(), threading.Event()

        def hold():
            with lock:
                grabbed.set()
                release.wait()

        threading.Thread(target=hold, daemon=True).start()
        grabbed.wait()
        pid = os.fork()
        if pid == 0:
            try:
                registry.register(lambda x: x, name="child")
                registry.tag("child", "t")
                r = ToolRegistry()
                r.register(lambda: "ok", name="timed", timeout=1)
                print(registry.list_tools("t"), r.call_tool("timed"), flush=True)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        release.set()
        """
    )
    assert out == ["['child'] ok"]
