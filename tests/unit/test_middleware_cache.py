"""`Cache` in the process: the key (the tool, its validated arguments, the vary values),
which tools it caches, never a failure, never one user's answer for another."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Injected, ToolRegistry, ToolResult
from tooldeck.middleware import Cache

pytestmark = pytest.mark.timeout(30)

READ_ONLY = {"readOnlyHint": True}


def sync_face(registry: ToolRegistry, name: str, args: dict[str, Any], **kw: Any) -> Any:
    return registry.call_tool(name, args, **kw)


def async_face(registry: ToolRegistry, name: str, args: dict[str, Any], **kw: Any) -> Any:
    return asyncio.run(registry.async_call_tool(name, args, **kw))


Face = Callable[..., Any]
FACES = [pytest.param(sync_face, id="sync"), pytest.param(async_face, id="async")]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def cache_registry(cache: Cache, runs: list[str]) -> ToolRegistry:
    registry = ToolRegistry(middleware=[cache])

    @registry.tool(annotations=READ_ONLY)
    def square(n: int) -> int:
        runs.append(f"square {n}")
        return n * n

    @registry.tool(annotations={"idempotentHint": True})
    async def cube(n: int) -> int:
        runs.append(f"cube {n}")
        return n**3

    @registry.tool
    def plain(n: int) -> int:  # no hint: not cached unless chosen
        runs.append(f"plain {n}")
        return n

    @registry.tool(annotations=READ_ONLY)
    def flaky(n: int) -> int:
        runs.append(f"flaky {n}")
        if len(runs) == 1:
            raise ConnectionError("down")
        return n

    @registry.tool(annotations=READ_ONLY)
    def mine(n: int, user: Annotated[str, Injected]) -> str:
        runs.append(f"mine {user}")
        return f"{user}:{n}"

    @registry.tool(annotations=READ_ONLY)
    def whoami(n: int) -> ToolResult:
        runs.append("whoami")
        return ToolResult.fail("refused") if n < 0 else ToolResult.ok(n)

    return registry


@pytest.mark.parametrize("face", FACES)
def test_the_same_validated_call_is_answered_once(face: Face) -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60), runs)
    assert face(registry, "square", {"n": 3}) == 9
    assert face(registry, "square", {"n": "3"}) == 9  # validated: the same call
    assert face(registry, "square", {"n": 4}) == 16
    assert face(registry, "cube", {"n": 2}) == 8
    assert face(registry, "cube", {"n": 2}) == 8
    assert runs == ["square 3", "square 4", "cube 2"]
    assert face(registry, "plain", {"n": 1}) == face(registry, "plain", {"n": 1}) == 1
    assert runs[-2:] == ["plain 1", "plain 1"]  # no hint: never cached


def test_both_faces_share_one_store() -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60), runs)
    assert registry.call_tool("square", {"n": 5}) == 25
    assert asyncio.run(registry.async_call_tool("square", {"n": 5})) == 25
    assert asyncio.run(registry.execute("square", '{"n": 5}')).data == 25
    reply = [
        {"id": "1", "type": "function", "function": {"name": "square", "arguments": '{"n":5}'}}
    ]
    assert registry.run_tool_calls(reply)[0]["content"] == "25"
    assert runs == ["square 5"]


@pytest.mark.parametrize("face", FACES)
def test_never_a_failure(face: Face) -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60), runs)
    assert face(registry, "flaky", {"n": 1}) == "Error: down"
    assert face(registry, "flaky", {"n": 1}) == 1
    assert face(registry, "flaky", {"n": 1}) == 1
    assert face(registry, "whoami", {"n": -1}) == "Error: refused"
    assert face(registry, "whoami", {"n": -1}) == "Error: refused"
    text = face(registry, "square", {"n": "x"})
    assert text.startswith("Error: Invalid arguments for tool 'square'")
    assert runs == ["flaky 1", "flaky 1", "whoami", "whoami"]


@pytest.mark.parametrize("face", FACES)
def test_injected_parameters_are_cached_only_when_vary_names_them(
    face: Face, caplog: pytest.LogCaptureFixture
) -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60), runs)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        assert face(registry, "mine", {"n": 1}, context={"user": "ann"}) == "ann:1"
        assert face(registry, "mine", {"n": 1}, context={"user": "bob"}) == "bob:1"
        assert face(registry, "mine", {"n": 1}, context={"user": "ann"}) == "ann:1"
    assert runs == ["mine ann", "mine bob", "mine ann"]  # passed through, uncached
    warnings = [r.getMessage() for r in caplog.records if "not cached" in r.getMessage()]
    assert len(warnings) == 1 and "'mine'" in warnings[0] and "user" in warnings[0]

    runs.clear()
    registry = cache_registry(Cache(60, vary="user"), runs)
    for user in ("ann", "bob", "ann", "bob"):
        assert face(registry, "mine", {"n": 1}, context={"user": user}) == f"{user}:1"
    assert runs == ["mine ann", "mine bob"]


@pytest.mark.parametrize("face", FACES)
def test_never_across_vary_values(face: Face) -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60, vary=["tenant"]), runs)
    for context in ({"tenant": "a"}, {"tenant": "b"}, {}, {"tenant": None}, {"tenant": "a"}):
        assert face(registry, "square", {"n": 2}, context=context) == 4
    assert runs == ["square 2"] * 4  # a, b, none, None; then a again from the cache


def test_tools_and_tags_choose_what_is_cached_whatever_the_hints() -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60, tools="plain"), runs)
    registry.call_tool("plain", {"n": 1})
    registry.call_tool("plain", {"n": 1})
    registry.call_tool("square", {"n": 1})
    registry.call_tool("square", {"n": 1})
    assert runs == ["plain 1", "square 1", "square 1"]
    runs.clear()
    registry = cache_registry(Cache(60, tags="cheap"), runs)
    registry.call_tool("plain", {"n": 1})
    registry.tag("plain", "cheap")  # tags are read at each call
    registry.call_tool("plain", {"n": 1})
    registry.call_tool("plain", {"n": 1})
    assert runs == ["plain 1", "plain 1"]


def test_answers_expire_after_ttl_and_the_oldest_go_past_maxsize() -> None:
    runs: list[str] = []
    clock = Clock()
    registry = cache_registry(Cache(10, maxsize=2, clock=clock), runs)
    registry.call_tool("square", {"n": 1})
    clock.now = 9.9
    registry.call_tool("square", {"n": 1})
    clock.now = 10.0
    registry.call_tool("square", {"n": 1})  # expired
    assert runs == ["square 1", "square 1"]
    registry.call_tool("square", {"n": 2})
    registry.call_tool("square", {"n": 3})  # the third: n=1 goes
    registry.call_tool("square", {"n": 1})
    assert runs[-3:] == ["square 2", "square 3", "square 1"]


def test_many_threads_never_get_another_calls_answer() -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60, maxsize=8), runs)
    wrong: list[tuple[int, Any]] = []
    barrier = threading.Barrier(8)

    def work(k: int) -> None:
        barrier.wait()
        for i in range(200):
            n = (i * 7 + k) % 13  # more keys than room: entries come and go
            answer = registry.call_tool("square", {"n": n})
            if answer != n * n:
                wrong.append((n, answer))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert len(runs) < 1600  # and it did answer from the cache


@settings(max_examples=25, deadline=None)
@given(
    calls=st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", None])), min_size=1, max_size=20
    )
)
def test_an_answer_from_the_cache_is_the_tools_answer(calls: list[tuple[int, Any]]) -> None:
    runs: list[str] = []
    registry = cache_registry(Cache(60, vary="user"), runs)
    for n, user in calls:
        context = {} if user is None else {"user": user}
        expected = f"{user}:{n}"
        if user is None:
            assert registry.call_tool("mine", {"n": n}, context=context).startswith("Error: ")
        else:
            assert registry.call_tool("mine", {"n": n}, context=context) == expected
    distinct = {(n, user) for n, user in calls if user is not None}
    assert len(runs) == len(distinct)  # each once; a failure (no user) never ran the tool


# -- the key: one per call the tool can tell apart ------------------------------------


def _echo_registry(runs: list[str]) -> ToolRegistry:
    from cache_keys import describe

    registry = ToolRegistry(middleware=[Cache(60)])

    @registry.tool(annotations=READ_ONLY)
    def echo(x: Any) -> str:
        runs.append("echo")
        return describe(x)

    @registry.tool(annotations=READ_ONLY)
    def text(x: str | bytes) -> str:
        runs.append("text")
        return describe(x)

    @registry.tool(annotations=READ_ONLY)
    def ratio(x: float) -> str:
        runs.append("ratio")
        return describe(x)

    return registry


class _Opaque:
    """A class the key cannot read: its calls are not cached."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"_Opaque({self.n})"


@pytest.mark.parametrize(
    ("tool", "first", "second"),
    [
        ("text", "a", b"a"),  # JSON wrote both "a": b"a" got the answer for "a"
        ("echo", [1], (1,)),
        ("echo", 1, True),
        ("echo", 1, 1.0),
        ("echo", 0.0, -0.0),
        ("echo", b"a", bytearray(b"a")),
        ("echo", {"a": 1, "b": 2}, {"b": 2, "a": 1}),  # a dict's order: the tool reads it
        ("echo", 2**70, float(2**70)),
    ],
)
def test_values_json_confuses_are_distinct_calls(tool: str, first: Any, second: Any) -> None:
    from cache_keys import describe

    runs: list[str] = []
    registry = _echo_registry(runs)
    assert registry.call_tool(tool, {"x": first}) == describe(first)
    assert registry.call_tool(tool, {"x": second}) == describe(second)
    assert registry.call_tool(tool, {"x": first}) == describe(first)
    assert len(runs) == 2


def test_models_secrets_and_unknown_objects_are_never_confused() -> None:
    from pydantic import SecretStr

    from cache_keys import Circle, Square, describe

    runs: list[str] = []
    registry = _echo_registry(runs)
    for value in (Circle(size=1), Square(size=1), SecretStr("s1"), SecretStr("s2")):
        assert registry.call_tool("echo", {"x": value}) == describe(value)
    assert len(runs) == 4
    # An object it cannot read is no key: its calls run every time, never confused.
    for n in (1, 2, 1):
        assert registry.call_tool("echo", {"x": _Opaque(n)}) == describe(_Opaque(n))
    assert len(runs) == 7
    assert registry.call_tool("echo", {"x": float("nan")}) == "builtins.float(nan)"
    assert registry.call_tool("echo", {"x": float("nan")}) == "builtins.float(nan)"
    assert len(runs) == 9  # a NaN is not equal to itself: no key


def test_what_validation_makes_equal_is_one_call() -> None:
    runs: list[str] = []
    registry = _echo_registry(runs)
    for value in (1, 1.0, "1", "1.0"):  # a float parameter receives 1.0 each time
        assert registry.call_tool("ratio", {"x": value}) == "builtins.float(1.0)"
    assert runs == ["ratio"]


def test_arguments_sent_as_json_text_are_keyed_as_the_tool_validates_them() -> None:
    runs: list[str] = []
    registry = _echo_registry(runs)

    def reply(arguments: str) -> list[dict[str, Any]]:
        return [
            {"id": "c", "type": "function", "function": {"name": "text", "arguments": arguments}}
        ]

    first = registry.run_tool_calls(reply('{"x": "a"}'))
    assert first[0]["content"] == "builtins.str('a')"
    assert registry.run_tool_calls(reply('{ "x" : "a" }')) == first  # one call
    assert registry.call_tool("text", {"x": b"a"}) == "builtins.bytes(b'a')"
    assert runs == ["text", "text"]


# -- an answer is each caller's own ---------------------------------------------------


@pytest.mark.parametrize("face", FACES)
def test_a_caller_changing_its_answer_changes_no_other_callers(face: Face) -> None:
    """The cache handed every caller the one value it stored: a caller that appended
    to its list changed the answer of every later call, the model's included."""
    from pydantic import BaseModel

    class Row(BaseModel):
        tags: list[str]

    class Local:  # (defined here: pickle cannot write it, a deep copy can)
        def __init__(self) -> None:
            self.items = [1]

    runs: list[str] = []
    registry = ToolRegistry(middleware=[Cache(60)])

    @registry.tool(annotations=READ_ONLY)
    def rows(n: int) -> Any:
        runs.append(f"rows {n}")
        return {0: ["a"], 1: (["a"], "b"), 2: Row(tags=["a"])}.get(n, Local())

    for n in range(4):
        first = face(registry, "rows", {"n": n})
        if n == 3:
            first.items.append(2)
        elif n == 2:
            first.tags.append("mine")
        else:
            (first if n == 0 else first[0]).append("mine")
        second = face(registry, "rows", {"n": n})
        assert second is not first
        if n == 3:
            assert second.items == [1]
            second.items.append(3)
        elif n == 2:
            assert second == Row(tags=["a"])
            second.tags.append("mine")
        else:
            assert second == (["a"] if n == 0 else (["a"], "b"))
            (second if n == 0 else second[0]).append("mine")
        reply = [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "rows", "arguments": f'{{"n": {n}}}'},
            }
        ]
        assert "mine" not in registry.run_tool_calls(reply)[0]["content"]
    assert runs == ["rows 0", "rows 1", "rows 2", "rows 3"]  # each from the cache after


def test_an_answer_that_cannot_be_copied_is_not_cached() -> None:
    runs: list[str] = []
    registry = ToolRegistry(middleware=[Cache(60)])
    lock = threading.Lock()

    @registry.tool(annotations=READ_ONLY)
    def guarded(n: int) -> Any:
        runs.append("guarded")
        return [n, lock]

    assert registry.call_tool("guarded", {"n": 1}) == [1, lock]
    assert registry.call_tool("guarded", {"n": 1}) == [1, lock]
    assert runs == ["guarded", "guarded"]  # never one list for two callers


def test_vary_values_json_confuses_are_distinct_users() -> None:
    runs: list[str] = []
    registry = ToolRegistry(middleware=[Cache(60, vary="user")])

    @registry.tool(annotations=READ_ONLY)
    def mine(user: Annotated[Any, Injected]) -> str:
        runs.append("mine")
        return repr(user)

    users = ["a", b"a", 1, True, 1.0, "1", None, (1,), [1]]
    for user in users + users:
        assert registry.call_tool("mine", {}, context={"user": user}) == repr(user)
    assert len(runs) == len(users)  # each once, then from the cache
