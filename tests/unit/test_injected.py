"""Context the model never sees: ``Annotated[T, Injected]`` (issue 15)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from tooldeck import Injected, Tool, ToolDefinitionError, ToolRegistry, ToolResult
from tooldeck.exporters import FORMATS


class Session:
    """An arbitrary class: no schema can be built for it, and none is needed."""

    def __init__(self, user: str) -> None:
        self.user = user


def orders_registry() -> tuple[ToolRegistry, list[Any]]:
    registry = ToolRegistry()
    seen: list[Any] = []

    @registry.tool
    def my_orders(status: str, user_id: Annotated[str, Injected]) -> list[str]:
        """The orders of the user the call acts for.

        Args:
            status: Which orders.
            user_id: Whose (from the context, never from the model).
        """
        seen.append(user_id)
        return [f"{user_id}:{status}"]

    @registry.tool
    async def profile(db: Annotated[Session, Injected("session")], field: str = "name") -> str:
        """Read the user's profile."""
        seen.append(db)
        return f"{db.user}.{field}"

    return registry, seen


CONTEXT = {"user_id": "u-42", "session": Session("ann"), "tenant": "ignored"}


def test_injected_parameters_are_in_no_schema_and_no_export() -> None:
    registry, _ = orders_registry()
    for name in ("my_orders", "profile"):
        tool = registry.get(name)
        assert set(tool.parameters["properties"]) == (
            {"status"} if name == "my_orders" else {"field"}
        )
        for fmt in FORMATS:
            for strict in (False, True):
                text = json.dumps(tool.export(fmt, strict=strict))
                assert "user_id" not in text and "session" not in text and '"db"' not in text
        info = registry.get_tool_info()[name]
        assert "user_id" not in info["kwargs"] and "db" not in info["kwargs"]
    assert json.dumps(registry.export("agently")).count("user_id") == 0


def test_every_face_takes_context() -> None:
    registry, seen = orders_registry()
    tool = registry.get("my_orders")
    expected = ["u-42:open"]
    assert registry.call_tool("my_orders", {"status": "open"}, context=CONTEXT) == expected
    assert (
        asyncio.run(registry.async_call_tool("my_orders", {"status": "open"}, context=CONTEXT))
        == expected
    )
    assert registry.execute_sync("my_orders", {"status": "open"}, context=CONTEXT).data == expected
    assert (
        asyncio.run(registry.execute("my_orders", '{"status": "open"}', context=CONTEXT)).data
        == expected
    )
    assert registry.call("my_orders", status="open", context=CONTEXT) == json.dumps(expected)
    assert tool.call({"status": "open"}, context=CONTEXT) == expected
    assert tool.call(status="open", context=CONTEXT) == expected
    assert asyncio.run(tool.acall({"status": "open"}, context=CONTEXT)) == expected
    assert tool.run_sync({"status": "open"}, context=CONTEXT).data == expected
    assert asyncio.run(tool.run({"status": "open"}, context=CONTEXT)).data == expected
    assert seen == ["u-42"] * 10


def test_run_tool_calls_takes_context() -> None:
    registry, _ = orders_registry()
    reply = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "my_orders", "arguments": '{"status": "x"}'},
            },
            {"id": "b", "type": "function", "function": {"name": "profile", "arguments": ""}},
        ],
    }
    sync = registry.run_tool_calls(reply, context=CONTEXT)
    asynchronous = asyncio.run(registry.async_run_tool_calls(reply, context=CONTEXT))
    for answer in (sync, asynchronous):
        assert [m["content"] for m in answer] == ['["u-42:x"]', "ann.name"]


def test_values_are_passed_as_they_are() -> None:
    registry, seen = orders_registry()
    session = CONTEXT["session"]
    assert registry.call_tool("profile", {"field": "email"}, context=CONTEXT) == "ann.email"
    assert seen[-1] is session  # the very object: not validated, not copied


def test_a_model_sent_injected_argument_is_refused_and_the_tool_not_run() -> None:
    registry, seen = orders_registry()
    answer = registry.call_tool("my_orders", {"status": "open", "user_id": "u-1"}, context=CONTEXT)
    assert answer == "Error: Invalid arguments for tool 'my_orders':\nuser_id: unexpected argument"
    answer = registry.call_tool("profile", '{"session": "forged", "db": 1}', context=CONTEXT)
    assert "session: unexpected argument" in answer and "db: unexpected argument" in answer
    assert seen == []


def test_a_missing_key_is_the_default_or_a_failed_call() -> None:
    registry = ToolRegistry()
    ran: list[Any] = []

    @registry.tool
    def greet(name: str, greeting: Annotated[str, Injected] = "hello") -> str:
        return f"{greeting} {name}"

    @registry.tool
    def needs(user_id: Annotated[int, Injected("uid")]) -> int:
        ran.append(user_id)
        return user_id

    assert registry.call_tool("greet", {"name": "Bo"}) == "hello Bo"
    assert registry.call_tool("greet", {"name": "Bo"}, context={"greeting": "hi"}) == "hi Bo"
    message = "Tool 'needs' needs context value 'uid'"
    assert registry.call_tool("needs", {}) == f"Error: {message}"
    assert registry.call_tool("needs", {}, context={"user_id": 1}) == f"Error: {message}"
    assert registry.execute_sync("needs", {}) == ToolResult.fail(message)
    assert asyncio.run(registry.execute("needs", {})) == ToolResult.fail(message)
    assert registry.call_tool("needs", {}, context={"uid": "not even an int"}) == "not even an int"
    assert ran == ["not even an int"]


def test_tools_of_every_kind_take_injected_parameters() -> None:
    registry = ToolRegistry()

    @registry.tool(timeout=5)
    def timed(x: int, who: Annotated[str, Injected]) -> str:
        return f"{who}{x}"

    @registry.tool(timeout=5)
    async def atimed(x: int, who: Annotated[str, Injected]) -> str:
        return f"{who}{x}"

    @registry.tool
    def checked(who: Annotated[str, Injected]) -> ToolResult:
        return ToolResult.ok(who)

    @registry.tool
    def positional(who: Annotated[str, Injected], /, x: int) -> str:
        return f"{who}{x}"

    class Args(BaseModel):
        x: int

    @registry.tool(args_schema=Args)
    def modelled(who: Annotated[str, Injected], **kwargs: Any) -> str:
        return f"{who}{kwargs['x']}"

    for name in ("timed", "atimed", "positional", "modelled"):
        assert registry.call_tool(name, {"x": 1}, context={"who": "w"}) == "w1", name
        assert asyncio.run(registry.async_call_tool(name, {"x": 2}, context={"who": "w"})) == "w2"
    assert registry.call_tool("checked", {}, context={"who": "w"}) == "w"
    assert "who" not in registry.get("modelled").parameters["properties"]


def test_injected_where_it_cannot_be_is_a_definition_error() -> None:
    def on_kwargs(**rest: Annotated[Any, Injected]) -> None: ...

    def on_args(*rest: Annotated[Any, Injected]) -> None: ...

    def with_field(user: Annotated[str, Injected, Field(min_length=1)]) -> None: ...

    def with_field_default(user: Annotated[str, Injected] = Field("x")) -> None: ...

    for func, fragment in (
        (on_kwargs, "**rest"),
        (on_args, "*rest"),
        (with_field, "drop the Field"),
        (with_field_default, "drop the Field"),
    ):
        with pytest.raises(ToolDefinitionError) as caught:
            Tool(func)
        assert fragment in str(caught.value)
    with pytest.raises(TypeError, match="non-empty str"):
        Injected("")


def test_a_marker_inside_a_union_or_a_container_is_a_definition_error() -> None:
    # `Annotated[str, Injected] | None` marks one member of a union, not the parameter:
    # it used to be exported and the model's value passed on. Written outermost it works.
    def in_union(status: str, user_id: Annotated[str, Injected] | None = None) -> str:
        return f"{status} for {user_id}"

    def in_optional(status: str, user_id: Optional[Annotated[str, Injected]] = None) -> str:
        return f"{status} for {user_id}"

    def in_list(ids: list[Annotated[str, Injected]]) -> str:
        return ",".join(ids)

    for func in (in_union, in_optional, in_list):
        with pytest.raises(ToolDefinitionError, match="outermost") as caught:
            Tool(func)
        assert caught.value.param in {"user_id", "ids"}

    def outermost(status: str, user_id: Annotated[str | None, Injected] = None) -> str:
        return f"{status} for {user_id}"

    t = Tool(outermost)
    assert list(t.parameters["properties"]) == ["status"]
    assert t.call({"status": "open", "user_id": "victim"}, context={"user_id": "u"}).startswith(
        "Error: Invalid arguments"
    )
    assert t.call({"status": "open"}, context={"user_id": "u"}) == "open for u"
    assert t.call({"status": "open"}) == "open for None"


def test_args_schema_fields_are_never_injected() -> None:
    class Marked(BaseModel):
        q: str
        user_id: Annotated[str, Injected]

    class Shared(BaseModel):
        q: str
        user_id: str

    def takes_rest(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    def takes_user(user_id: Annotated[str, Injected], **kwargs: Any) -> dict[str, Any]:
        return {**kwargs, "user_id": user_id}

    with pytest.raises(ToolDefinitionError, match="cannot be Injected"):
        Tool(takes_rest, args_schema=Marked)
    with pytest.raises(ToolDefinitionError, match="field for an injected parameter"):
        Tool(takes_user, args_schema=Shared)

    class Query(BaseModel):
        q: str

    t = Tool(takes_user, args_schema=Query)
    assert list(t.parameters["properties"]) == ["q"]
    assert t.call({"q": "a"}, context={"user_id": "u"}) == {"q": "a", "user_id": "u"}
    assert t.call({"q": "a", "user_id": "evil"}, context={"user_id": "u"}).startswith("Error")


def test_agently_kwargs_cannot_describe_an_injected_parameter() -> None:
    def f(a: int, user: Annotated[str, Injected]) -> str:
        return f"{user}{a}"

    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError) as caught:
        registry.register(name="f", desc="d", kwargs={"a": (int, ""), "user": (str, "")}, func=f)
    assert caught.value.param == "user"
    with pytest.raises(ToolDefinitionError, match="no place there") as caught:
        registry.register(
            name="f", desc="d", kwargs={"a": (int, ""), "u": (Annotated[str, Injected], "")}, func=f
        )
    assert caught.value.param == "u"
    registry.register(name="f", desc="d", kwargs={"a": (int, "")}, func=f)
    assert registry.call_tool("f", {"a": 1}, context={"user": "u"}) == "u1"


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.dictionaries(
        st.sampled_from(["status", "user_id", "user", "session", "db", "x"]),
        st.one_of(st.none(), st.text(max_size=5), st.integers(), st.booleans()),
    ),
    text=st.booleans(),
)
def test_no_arguments_a_model_sends_reach_an_injected_parameter(
    arguments: dict[str, Any], text: bool
) -> None:
    registry, seen = orders_registry()
    sent: Any = json.dumps(arguments) if text else arguments
    for answer in (
        registry.call_tool("my_orders", sent, context=CONTEXT),
        registry.execute_sync("profile", sent, context=CONTEXT),
        registry.call_tool("my_orders", sent),  # no context: never a model value instead
    ):
        assert answer is not None
    assert all(value is CONTEXT["session"] or value == "u-42" for value in seen)
