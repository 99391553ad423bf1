"""Error text is for the model, and safe to show it.

The exception's message — never a traceback or a file path; argument values echoed
as a short prefix only (:data:`SHOWN` characters), at most :data:`PROBLEMS` problems
listed, every line printable.
"""

from __future__ import annotations

import asyncio
import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from tooldeck import BaseTool, ToolRegistry, ToolResult

from .conftest import build_registry, error_of

SHOWN = 64  # characters of a value an error message may echo
PROBLEMS = 20  # problems listed per call
HERE = str(Path(__file__).resolve().parent)


def helper_that_fails(value: str) -> int:
    return int(value)  # raises ValueError from deep inside


def test_the_message_is_the_exceptions_not_its_traceback() -> None:
    registry = ToolRegistry()

    @registry.tool
    def parse(value: str) -> int:
        try:
            return helper_that_fails(value)
        except ValueError as exc:
            raise LookupError("no such record") from exc

    answer = registry.call_tool("parse", {"value": "x"})
    assert answer == "Error: no such record"
    result = registry.execute_sync("parse", {"value": "x"})
    assert result == ToolResult.fail("no such record")
    # The developer keeps the whole story; the model never sees it.
    assert isinstance(result.exception, LookupError)
    assert result.exception.__traceback__ is not None
    assert isinstance(result.exception.__cause__, ValueError)
    assert "exception" not in result.to_dict()


def test_no_traceback_or_path_on_any_failure() -> None:
    registry = build_registry()

    @registry.tool(timeout=0.1)
    async def slow() -> None:
        await asyncio.sleep(10)

    @registry.tool
    def broken(value: str = "x") -> int:
        return helper_that_fails(value)

    cases = [
        ("broken", {}),
        ("broken", {"value": 1, "extra": 2}),
        ("slow", {}),
        ("add", "{bad json"),
        ("add", {"a": [1] * 100}),
        ("jadd", {"a": "x", "b": [1]}),
        ("missing", {}),
    ]
    for name, arguments in cases:
        for answer in (
            registry.call_tool(name, arguments),
            asyncio.run(registry.async_call_tool(name, arguments)),
            str(registry.execute_sync(name, arguments)),
            registry.call(name, arguments),
        ):
            assert isinstance(answer, str)
            for leak in ("Traceback", 'File "', HERE, ".py", "errors.pydantic.dev", "[type="):
                assert leak not in answer, (name, answer)


# -- echoed values are short prefixes -------------------------------------------------------


class Kind(Enum):
    a = "a"


class Cat(BaseModel):
    kind: Literal["cat"]


class Dog(BaseModel):
    kind: Literal["dog"]


def typed_registry() -> ToolRegistry:
    """One tool per kind of check that may quote what it was given."""
    registry = build_registry()
    annotations: dict[str, Any] = {
        "number": int,
        "short": Annotated[str, Field(max_length=5)],
        "pattern": Annotated[str, Field(pattern=r"^[a-z]{1,3}$")],
        "literal": Literal["a", "b"],
        "enum": Kind,
        "pet": Annotated[Union[Cat, Dog], Field(discriminator="kind")],
        "numbers": Annotated[list[int], Field(max_length=2)],
        "mapping": dict[int, int],
    }
    for name, annotation in annotations.items():

        def func(x: Any) -> Any:
            return x

        func.__annotations__ = {"x": annotation}
        registry.register(func, name=f"t_{name}")
    registry.register(SchemaChecks())
    return registry


class SchemaChecks(BaseTool):
    """A JSON-Schema tool using the keywords whose messages quote the instance."""

    name = "schema_checks"
    description = "Checks."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "s": {"type": "string", "maxLength": 3, "pattern": "^[a-z]*$"},
            "e": {"enum": ["a", "b"]},
            "c": {"const": "a"},
            "n": {"type": "integer", "minimum": 0},
            "l": {"type": "array", "maxItems": 1, "uniqueItems": True},
            "o": {"type": "object", "maxProperties": 0, "propertyNames": {"maxLength": 2}},
            "u": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
            "x": {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 0}]},
            "t": {"not": {"type": "string"}},
        },
        "additionalProperties": False,
    }

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs)


TYPED = typed_registry()
payloads = st.text(min_size=SHOWN * 3, max_size=SHOWN * 6).map(lambda s: "PAYLOAD" + s)


def shapes(payload: str) -> list[Any]:
    return [payload, [payload, payload], {"kind": payload}, {payload: payload}, {"k": [payload]}]


def assert_bounded(answer: Any, payload: str) -> None:
    if not (isinstance(answer, str) and answer.startswith("Error: ")):
        return
    for form in (payload, repr(payload)[1:-1], json.dumps(payload, ensure_ascii=False)[1:-1]):
        assert form[:SHOWN] not in answer, answer
    for line in answer.splitlines():
        assert line.isprintable(), line


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=payloads)
def test_argument_values_are_echoed_as_short_prefixes(payload: str) -> None:
    for name in TYPED.list_tools():
        for shape in shapes(payload):
            for key in ("x", "s", "e", "c", "n", "l", "o", "u", "t", payload):
                assert_bounded(TYPED.call_tool(name, {key: shape}), payload)
            assert_bounded(TYPED.call_tool(name, shape), payload)
            assert_bounded(TYPED.call_tool(name, json.dumps({"x": shape})[:-1]), payload)


def test_a_discriminated_unions_tag_is_echoed_as_a_prefix() -> None:
    """Pydantic's own message quotes the tag: it is cut too."""
    answer = TYPED.call_tool("t_pet", {"x": {"kind": "k" * 1000}})
    assert answer.startswith(
        "Error: Invalid arguments for tool 't_pet':\nx: Input tag '" + "k" * 63 + "…' found"
    )
    assert "k" * SHOWN not in answer


def test_json_schema_messages_are_cut_too() -> None:
    long = "Z" * 1000
    answer = error_of(TYPED, "schema_checks", {"s": long, "e": long, "u": long, "t": long})
    assert answer == (
        "Invalid arguments for tool 'schema_checks':\n"
        f"e: '{'Z' * 62}… is not one of ['a', 'b']\n"
        f"s: '{'Z' * 62}… is too long\n"
        f"s: '{'Z' * 62}… does not match '^[a-z]*$'\n"
        f"t: '{'Z' * 62}… should not be valid under {{'type': 'string'}}\n"
        f"u: '{'Z' * 62}… is not valid under any of the given schemas"
    )


# -- bounded in count and size ------------------------------------------------------------------


def test_at_most_twenty_problems_are_listed() -> None:
    tools = build_registry()
    arguments = {f"extra{i}": i for i in range(100)}
    for name in ("add", "jadd"):
        lines = error_of(tools, name, {"a": 1, **arguments}).splitlines()
        assert lines[0] == f"Invalid arguments for tool '{name}':"
        assert lines[1:3] == ["extra0: unexpected argument", "extra1: unexpected argument"]
        assert len(lines) == 1 + PROBLEMS + 1
        assert lines[-1] == "... and 80 more problems"


@settings(max_examples=40, deadline=None)
@given(
    arguments=st.dictionaries(
        st.text(max_size=200), st.text(max_size=2000) | st.integers(), max_size=200
    )
)
def test_error_text_is_bounded_whatever_is_sent(arguments: dict[str, Any]) -> None:
    """One header, at most 20 problems, each line bounded: a few kB at most."""
    for name in ("add", "jadd", "echo"):
        answer = TYPED.call_tool(name, arguments)
        if isinstance(answer, str) and answer.startswith("Error: "):
            assert len(answer) < 400 * (PROBLEMS + 2)
            assert all(line.isprintable() for line in answer.splitlines())


def test_control_characters_in_names_and_values_are_escaped() -> None:
    tools = build_registry()
    evil = "\x1b[2J\rinjected\n\u2028line\x00"
    answer = error_of(tools, "add", {"a": evil, evil: 1})
    assert answer == (
        "Invalid arguments for tool 'add':\n"
        "a: Input should be a valid integer, unable to parse string as an integer "
        "(got '\\x1b[2J\\rinjected\\n\\u2028line\\x00')\n"
        "\\x1b[2J\\rinjected\\n\\u2028line\\x00: unexpected argument"
    )


class Numbers(BaseTool):
    """A JSON-Schema tool taking a list of integers."""

    name = "numbers"
    description = "Count integers."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "integer"}}},
    }

    async def execute(self, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(len(kwargs.get("a", [])))


def test_json_schema_tools_stop_collecting_problems_early() -> None:
    """200,000 wrong items are not 200,000 messages: jsonschema is stopped after 100."""
    registry = ToolRegistry()
    registry.register(Numbers())
    few = registry.call_tool("numbers", {"a": ["x"] * 30}).splitlines()
    assert few[-1] == "... and 10 more problems"
    many = registry.call_tool("numbers", json.dumps({"a": ["x"] * 200_000})).splitlines()
    assert many[1:3] == ["a.0: 'x' is not of type 'integer'", "a.1: 'x' is not of type 'integer'"]
    assert len(many) == 1 + PROBLEMS + 1
    assert many[-1] == "... and more problems"
