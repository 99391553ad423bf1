"""The call pipeline behind both faces: validate → run → shape."""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
import json
from typing import Annotated, Any, Optional

import pytest
from pydantic import BaseModel

from tooldeck import Tool, ToolDefinitionError, ToolResult


def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


async def aadd(a: int, b: int = 0) -> int:
    """Add, asynchronously."""
    await asyncio.sleep(0)
    return a + b


def boom(message: str) -> None:
    raise ValueError(message)


# -- the function face ------------------------------------------------------------------


def test_tool_is_still_the_function() -> None:
    t = Tool(add)
    assert t(2, 3) == 5
    assert t.__name__ == "add"
    assert t.__doc__ == "Add two integers."
    assert t.__wrapped__ is add
    assert inspect.signature(t) == inspect.signature(add)
    with pytest.raises(ValueError, match="direct"):
        Tool(boom)("direct")  # calling the tool directly raises like the function


def test_tool_copies_what_update_wrapper_copies() -> None:
    def logged(func: Any) -> Any:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)

        return inner

    @logged
    def probe(x: int) -> int:
        """Probe a value."""
        return x

    probe.custom = "kept"  # type: ignore[attr-defined]
    probe.name = "not the tool's name"  # type: ignore[attr-defined]  # Tool.name is read-only
    t = Tool(probe)
    reference = functools.update_wrapper(lambda: None, probe)
    for attr in (*functools.WRAPPER_ASSIGNMENTS, "custom", "__wrapped__"):
        assert getattr(t, attr) == getattr(reference, attr), attr
    assert t.__wrapped__ is probe  # not the function `logged` wrapped
    assert t.name == "probe" and t(4) == 4
    assert copy.deepcopy(t).custom == "kept"  # type: ignore[attr-defined]


async def test_async_tool_is_still_a_coroutine_function() -> None:
    t = Tool(aadd)
    assert asyncio.iscoroutinefunction(t)
    assert await t(2, 3) == 5
    assert t.is_async


# -- the two faces ----------------------------------------------------------------------


@pytest.mark.parametrize("func", [add, aadd])
async def test_both_faces_agree(func: Any) -> None:
    t = Tool(func)
    assert t.call({"a": 1, "b": 2}) == 3
    assert await t.acall({"a": 1, "b": 2}) == 3
    assert await t.run({"a": 1, "b": 2}) == ToolResult.ok(3)
    assert t.run_sync({"a": 1, "b": 2}) == ToolResult.ok(3)
    assert await t.execute(a=1, b=2) == ToolResult.ok(3)


async def test_exception_becomes_error_string_or_failed_result() -> None:
    t = Tool(boom)
    assert t.call({"message": "invalid input"}) == "Error: invalid input"
    assert await t.acall({"message": "invalid input"}) == "Error: invalid input"
    result = await t.run({"message": "invalid input"})
    assert result == ToolResult.fail("invalid input")
    assert isinstance(result.exception, ValueError)  # kept for logging
    assert "exception" not in result.to_dict()


def test_exception_without_message_names_its_class() -> None:
    def f() -> None:
        raise KeyError

    assert Tool(f).call() == "Error: KeyError"


def test_returned_tool_result_is_unwrapped_or_passed_on() -> None:
    def ok() -> ToolResult:
        return ToolResult.ok({"x": 1})

    def bad() -> ToolResult:
        return ToolResult.fail("nope")

    assert Tool(ok).call() == {"x": 1}
    assert Tool(bad).call() == "Error: nope"
    assert Tool(ok).run_sync() == ToolResult.ok({"x": 1})
    assert Tool(bad).run_sync() == ToolResult.fail("nope")


def test_annotated_tool_result_must_be_returned() -> None:
    def lies() -> ToolResult:
        return "plain"  # type: ignore[return-value]

    text = Tool(lies).call()
    assert text.startswith("Error: ") and "ToolResult" in text and "str" in text
    assert not Tool(lies).run_sync().success


# -- arguments --------------------------------------------------------------------------


def test_json_string_arguments_and_keyword_merge() -> None:
    t = Tool(add)
    assert t.call('{"a": 2, "b": 3}') == 5
    assert t.call(b'{"a": 2}') == 2
    assert t.call({"a": 1, "b": 1}, b=5) == 6  # keywords win
    assert t.call('{"a": 1, "b": 1}', b=7) == 8
    assert t.call(a=4) == 4


def test_coercion_and_unknown_arguments() -> None:
    t = Tool(add)
    assert t.call({"a": "123"}) == 123
    text = t.call({"a": "x", "c": 1})
    assert text == (
        "Error: Invalid arguments for tool 'add':\n"
        "a: Input should be a valid integer, unable to parse string as an integer (got 'x')\n"
        "c: unexpected argument"
    )
    assert t.call({}) == "Error: Invalid arguments for tool 'add':\na: missing required argument"


@pytest.mark.parametrize("bad", ["[1, 2]", "3", "null", "{", ""])
def test_json_that_is_not_an_object_is_an_error(bad: str) -> None:
    text = Tool(add).call(bad)
    assert text.startswith("Error: Invalid arguments for tool 'add':")


def test_null_for_a_defaulted_parameter_means_the_default() -> None:
    assert Tool(add).call({"a": 1, "b": None}) == 1

    def f(a: Optional[int] = 5) -> Any:
        return a

    assert Tool(f).call({"a": None}) is None  # admits None: null stays null


class Item(BaseModel):
    name: str
    qty: int = 1


def test_json_stringified_containers_are_parsed() -> None:
    def f(items: list[Item], tags: dict[str, int] | None = None) -> Any:
        return [sum(i.qty for i in items), tags]

    t = Tool(f)
    assert t.call({"items": '[{"name": "a", "qty": 2}]', "tags": '{"x": 1}'}) == [2, {"x": 1}]
    # a str parameter keeps its JSON-looking text
    assert Tool(lambda s: s, name="echo").call({"s": "[1]"}) == "[1]"

    def g(s: str) -> str:
        return s

    assert Tool(g).call({"s": '{"a": 1}'}) == '{"a": 1}'


def test_nested_nulls_for_defaulted_fields_mean_the_default() -> None:
    def f(items: list[Item]) -> list[int]:
        return [i.qty for i in items]

    assert Tool(f).call({"items": [{"name": "a", "qty": None}, {"name": "b", "qty": 3}]}) == [1, 3]


def test_disabled_tool_answers_with_an_error() -> None:
    t = Tool(add, enabled=False)
    assert t.call({"a": 1}) == "Error: Tool 'add' is disabled"
    assert t.run_sync({"a": 1}) == ToolResult.fail("Tool 'add' is disabled")


# -- timeouts ---------------------------------------------------------------------------


async def test_async_tool_timeout_both_faces() -> None:
    async def slow() -> None:
        await asyncio.sleep(5)

    t = Tool(slow, timeout=0.2)
    assert await t.acall() == "Error: Tool 'slow' timed out after 0.2 seconds"
    assert t.call() == "Error: Tool 'slow' timed out after 0.2 seconds"
    assert await t.run() == ToolResult.fail("Tool 'slow' timed out after 0.2 seconds")


def test_timeout_formats_seconds_with_g() -> None:
    async def slow() -> None:
        await asyncio.sleep(5)

    assert Tool(slow, timeout=0.05).call() == "Error: Tool 'slow' timed out after 0.05 seconds"


def test_tool_raising_timeout_error_itself_is_not_a_timeout() -> None:
    async def own() -> None:
        raise TimeoutError("upstream took too long")

    assert Tool(own, timeout=5).call() == "Error: upstream took too long"


@pytest.mark.parametrize("timeout", [0, -1, "2", True])
def test_bad_timeout_is_a_definition_error(timeout: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="timeout"):
        Tool(add, timeout=timeout)


# -- what propagates --------------------------------------------------------------------


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
async def test_base_exceptions_propagate(exc: type[BaseException]) -> None:
    def f() -> None:
        raise exc

    t = Tool(f)
    with pytest.raises(exc):
        t.call()
    with pytest.raises(exc):
        await t.acall()
    with pytest.raises(exc):
        await t.run()


async def test_cancellation_propagates() -> None:
    started = asyncio.Event()

    async def hang() -> None:
        started.set()
        await asyncio.sleep(30)

    task = asyncio.create_task(Tool(hang).acall())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# -- exports and copies -----------------------------------------------------------------


def test_parameters_are_copies() -> None:
    t = Tool(add)
    t.parameters["properties"]["a"]["type"] = "string"
    assert t.parameters["properties"]["a"]["type"] == "integer"


def test_export_per_tool_is_cached_but_fresh() -> None:
    t = Tool(add)
    first = t.export("openai")
    with pytest.raises(TypeError, match="read-only"):
        first["function"]["name"] = "corrupted"
    with pytest.raises(TypeError, match="read-only"):
        first["function"]["parameters"]["required"].append("b")
    assert t.export("openai") is first  # computed once
    assert t.export("openai")["function"]["name"] == "add"
    assert json.loads(t.export_text("anthropic"))["input_schema"] == t.parameters


def test_annotated_description_and_defaults_render_in_agently_format() -> None:
    def f(city: Annotated[str, "the city"], days: int = 3) -> None: ...

    info = Tool(f).export("agently")
    assert info["kwargs"] == {"city": ["str", "the city"], "days": ["int", "Default: 3"]}
    assert info["returns"] == "NoneType"


def test_failed_validation_keeps_the_validation_error_for_logs() -> None:
    from pydantic import ValidationError

    result = Tool(add).run_sync({"a": "x"})
    assert not result.success
    assert isinstance(result.exception, ValidationError)
    assert "Input should be a valid integer" in result.error  # type: ignore[operator]
