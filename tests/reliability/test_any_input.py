"""Whatever a model sends, every call face returns — within its bound — and never raises.

Hypothesis generates the input the other tests do not list: any JSON value (NaN, huge
integers, lone surrogates included), any string, any bytes, any name. Each of the
eight faces runs with a bound (the async ones under ``asyncio.wait_for``, the sync
ones in a thread that is joined with a timeout), and the faces agree.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry, ToolResult

from .conftest import build_registry

BOUND = 20.0  # seconds any face may take here (the slowest tool times out after 0.5)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def any_registry() -> ToolRegistry:
    registry = build_registry()

    @registry.tool(timeout=0.5)
    def timed(x: Any = None) -> str:
        """A sync tool run in a worker thread."""
        return repr(x)[:20]

    @registry.tool(timeout=0.5)
    async def atimed(x: Any = None, n: int = 0) -> int:
        """An async tool with a timeout."""
        await asyncio.sleep(0)
        return n

    @registry.tool
    async def echo_async(items: list[str] | None = None) -> list[str]:
        """An async tool without a timeout."""
        return items or []

    return registry


REGISTRY = any_registry()
NAMES = REGISTRY.list_tools()

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**5000), max_value=10**5000),
    st.floats(),  # NaN and infinities included
    st.text(),  # lone surrogates included
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=10), children, max_size=4),
    ),
    max_leaves=15,
)
known_keys = st.sampled_from(["a", "b", "x", "n", "s", "text", "items", "d", "factor", "kind"])
argument_dicts = st.dictionaries(known_keys | st.text(max_size=10), json_values, max_size=5)


def to_json(value: Any) -> str:
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):  # an int too long to write
        return "{}"


arguments = st.one_of(
    argument_dicts,
    json_values,
    argument_dicts.map(to_json),
    json_values.map(to_json),
    st.text(),
    st.binary(),
    st.text().map(lambda s: s.encode("utf-8", "surrogatepass")),
)
names = st.sampled_from(NAMES) | st.text(max_size=70)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def bounded(call: Callable[[], Any]) -> Any:
    """Run a sync face in a thread; fail (instead of hanging) if it outlives :data:`BOUND`."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(("value", call()))
        except BaseException as exc:
            outcome.append(("raised", exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BOUND)
    assert not worker.is_alive(), "a sync face did not return"
    kind, value = outcome[0]
    assert kind == "value", value
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b) or repr(a) == repr(b)


def check_agently(answer: Any, name: Any) -> None:
    if isinstance(answer, str) and answer.startswith(("Error: ", "Can not find tool named '")):
        answer.encode("utf-8")  # safe to send on


def run_all(loop: asyncio.AbstractEventLoop, name: Any, args: Any) -> None:
    def wait(coro: Any) -> Any:
        return loop.run_until_complete(asyncio.wait_for(coro, BOUND))

    answer = bounded(lambda: REGISTRY.call_tool(name, args))
    check_agently(answer, name)
    assert same(wait(REGISTRY.async_call_tool(name, args)), answer)
    result = bounded(lambda: REGISTRY.execute_sync(name, args))
    assert isinstance(result, ToolResult)
    assert same(wait(REGISTRY.execute(name, args)), result)
    assert isinstance(bounded(lambda: REGISTRY.call(name, args)), str)
    if isinstance(answer, str) and answer.startswith("Error: "):
        assert result.error == answer.removeprefix("Error: ")
    tool = REGISTRY.get(name) if isinstance(name, str) else None
    if tool is None:
        assert result.success is False
        return
    assert same(bounded(lambda: tool.call(args)), answer)
    assert same(wait(tool.acall(args)), answer)
    assert same(bounded(lambda: tool.run_sync(args)), result)
    assert same(wait(tool.run(args)), result)


@SETTINGS
@given(name=names, args=arguments)
def test_every_face_returns_and_never_raises(
    loop: asyncio.AbstractEventLoop, name: str, args: Any
) -> None:
    run_all(loop, name, args)


@SETTINGS
@given(name=st.sampled_from(NAMES), args=argument_dicts)
def test_every_face_returns_for_any_argument_dict(
    loop: asyncio.AbstractEventLoop, name: str, args: dict[str, Any]
) -> None:
    run_all(loop, name, args)


@SETTINGS
@given(name=st.sampled_from(NAMES), args=argument_dicts, extra=argument_dicts)
def test_keyword_arguments_merged_into_any_input(
    name: str, args: Any, extra: dict[str, Any]
) -> None:
    tool = REGISTRY.get(name)
    assert tool is not None
    kwargs = {k: v for k, v in extra.items() if k.isidentifier()}
    for given_args in (args, to_json(args)):
        answer = bounded(lambda: tool.call(given_args, **kwargs))  # noqa: B023
        check_agently(answer, name)
        assert isinstance(bounded(lambda: tool.run_sync(given_args, **kwargs)), ToolResult)  # noqa: B023


def test_the_registry_is_unchanged() -> None:
    assert REGISTRY.list_tools() == NAMES
    assert REGISTRY.call_tool("add", {"a": 1, "b": 2}) == 3
