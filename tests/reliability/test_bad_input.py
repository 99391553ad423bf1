"""Bad input from a model: each case has one exact outcome, on every call face.

Each test states the failure text a model reads (``"Error: <text>"`` from the Agently
faces, ``ToolResult.fail(<text>)`` from the seed-000 faces — :func:`error_of` checks
all eight faces agree) and that the registry is intact afterwards.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic import v1 as pydantic_v1

from tooldeck import Tool, ToolRegistry, ToolResult

from .conftest import assert_intact, error_of, every_answer

NOT_AN_OBJECT = "arguments: expected a JSON object, got "
EMPTY_KEY = '""'  # how an empty argument name is shown


# -- arguments that are not an object -----------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ([1, 2], "[1, 2]"),
        (5, "5"),
        (2.5, "2.5"),
        (True, "true"),
        ((1, 2), "[1, 2]"),
        ("[1, 2]", "[1, 2]"),
        ("5", "5"),
        ("null", "null"),
        ('"a"', "'a'"),
        ("true", "true"),
        (b"[1]", "[1]"),
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", ["add", "jadd"])
def test_arguments_that_are_not_an_object(
    tools: ToolRegistry, name: str, arguments: Any, shown: str
) -> None:
    assert error_of(tools, name, arguments) == (
        f"Invalid arguments for tool '{name}':\n{NOT_AN_OBJECT}{shown}"
    )


def test_none_means_no_arguments(tools: ToolRegistry) -> None:
    """Python ``None`` (unlike the JSON text ``null``) is "no arguments"."""
    assert error_of(tools, "add", None) == (
        "Invalid arguments for tool 'add':\na: missing required argument"
    )
    assert every_answer(tools, "anything", None)[0] == "NoneType"


# -- JSON that does not parse -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{bad", "key must be a string at line 1 column 2"),
        ('{"a": 1', "EOF while parsing an object at line 1 column 7"),
        ("{'a': 1}", "key must be a string at line 1 column 2"),
        ('{"a": 1} x', "trailing characters at line 1 column 10"),
        ('{"a": 01}', "invalid number at line 1 column 8"),
    ],
)
def test_json_that_does_not_parse(tools: ToolRegistry, text: str, problem: str) -> None:
    assert error_of(tools, "add", text) == (
        f"Invalid arguments for tool 'add':\narguments: Invalid JSON: {problem} (got {text!r})"
    )
    assert error_of(tools, "jadd", text) == (
        f"Invalid arguments for tool 'jadd': not valid JSON ({problem})"
    )


@pytest.mark.parametrize("text", ["", "  ", "\n"])
def test_blank_json_text_is_no_arguments(tools: ToolRegistry, text: str) -> None:
    """As the OpenAI Agents SDK, Pydantic AI and LangChain read it (issue 11, item 12)."""
    missing = "Invalid arguments for tool 'add':\na: missing required argument"
    assert error_of(tools, "add", text) == missing
    assert error_of(tools, "jadd", text) == error_of(tools, "jadd", {})


# -- size: rejected before parsing ----------------------------------------------------------


def oversized(size: int) -> str:
    """Invalid JSON of ``size`` bytes: a parser would complain about the JSON, not the size."""
    return "{" + "x" * (size - 1)


def size_error(name: str, size: int, limit: int = 1 << 20) -> str:
    return (
        f"Invalid arguments for tool '{name}': the JSON text is {size:,} bytes, "
        f"over the limit of {limit:,} bytes"
    )


def test_default_limit_is_one_mebibyte() -> None:
    assert Tool.max_argument_bytes == 1 << 20


@pytest.mark.parametrize("name", ["add", "jadd"])
def test_json_over_the_limit_is_rejected_before_parsing(tools: ToolRegistry, name: str) -> None:
    limit = 1 << 20
    assert error_of(tools, name, oversized(limit + 1)) == size_error(name, limit + 1)
    assert error_of(tools, name, oversized(limit + 1).encode()) == size_error(name, limit + 1)
    # At the limit, the text is parsed (and this one is not JSON).
    assert "JSON" in error_of(tools, name, oversized(limit))


def test_the_limit_counts_utf8_bytes_not_characters(tools: ToolRegistry) -> None:
    text = '{"text": "' + "€" * 400_000 + '"}'  # 400,012 characters, 1,200,012 bytes
    assert error_of(tools, "echo", text) == size_error("echo", 1_200_012)


def test_keyword_arguments_do_not_bypass_the_limit(tools: ToolRegistry) -> None:
    add = tools.get("add")
    assert add is not None
    text = '{"a": 1, "pad": "' + "x" * (1 << 20) + '"}'
    assert add.call(text, b=2) == "Error: " + size_error("add", len(text))
    assert add.run_sync(text, b=2) == ToolResult.fail(size_error("add", len(text)))


def test_the_limit_is_set_per_instance_or_subclass() -> None:
    registry = ToolRegistry()
    small = registry.register(lambda a=0: a, name="small")
    small.max_argument_bytes = 10
    assert registry.call_tool("small", '{"a": 1234}') == "Error: " + size_error("small", 11, 10)
    assert registry.call_tool("small", '{"a": 123}') == 123

    class Unlimited(Tool[Any, Any]):
        max_argument_bytes = None

    big = registry.register(Unlimited(lambda text="": len(text), name="big"))
    assert registry.call_tool("big", json.dumps({"text": "y" * (1 << 21)})) == 1 << 21
    assert Tool.max_argument_bytes == 1 << 20  # the class default is untouched
    assert big.max_argument_bytes is None


# -- nesting --------------------------------------------------------------------------------


def nested_json(depth: int) -> str:
    return '{"x": ' + "[" * depth + "]" * depth + "}"


def nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def nested_node(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["child"] = node = {}
    return root


def test_json_nested_deeper_than_the_parser_allows(tools: ToolRegistry) -> None:
    """jiter (pydantic-core's parser) stops at 200 levels: no stack is at risk."""
    for depth in (300, 100_000):
        assert error_of(tools, "anything", nested_json(depth)) == (
            "Invalid arguments for tool 'anything':\narguments: Invalid JSON: recursion limit "
            'exceeded at line 1 column 207 (got \'{"x": ' + "[" * 56 + "…)"
        )
        assert error_of(tools, "jadd", nested_json(depth)) == (
            "Invalid arguments for tool 'jadd': not valid JSON "
            "(recursion limit exceeded at line 1 column 207)"
        )
    assert every_answer(tools, "anything", nested_json(150))[0] == "list"


def test_python_values_nested_deeper_than_the_stack(tools: ToolRegistry) -> None:
    deep = nested_list(100_000)
    # ``Any`` takes the value as it is (nothing walks it) ...
    assert every_answer(tools, "anything", {"x": deep})[0] == "list"
    # ... a recursive model walks it, and stops before the stack does ...
    assert error_of(tools, "tree", {"n": nested_node(100_000)}) == (
        "Invalid arguments for tool 'tree':\narguments: nested too deeply"
    )
    assert every_answer(tools, "tree", {"n": nested_node(50)})[0] == 51
    # ... the error text for the wrong type does not try to print it ...
    assert error_of(tools, "add", {"a": deep}) == (
        "Invalid arguments for tool 'add':\na: Input should be a valid integer (got <list object>)"
    )
    # ... and nor does jsonschema.
    assert error_of(tools, "jadd", {"a": deep}) == (
        "Invalid arguments for tool 'jadd':\narguments: nested too deeply"
    )


# -- huge integers ----------------------------------------------------------------------------


def test_huge_integers_as_json_digits(tools: ToolRegistry) -> None:
    """Past 4,300 digits (Python's int-from-text limit) JSON numbers are refused."""
    text = '{"a": ' + "9" * 5000 + "}"
    message = "arguments: Invalid JSON: number out of range at line 1 column 4308"
    assert error_of(tools, "add", text) == (
        f"Invalid arguments for tool 'add':\n{message} (got '{{\"a\": {'9' * 56}…)"
    )
    assert error_of(tools, "jadd", text) == (
        "Invalid arguments for tool 'jadd': not valid JSON "
        "(number out of range at line 1 column 4308)"
    )
    big = int("9" * 4000)
    assert every_answer(tools, "add", '{"a": ' + "9" * 4000 + "}")[0] == big


def test_huge_integers_as_python_values(tools: ToolRegistry) -> None:
    """A Python int is exact at any size; where it cannot be a float, that is the error."""
    huge = 10**5000
    answer, result = every_answer(tools, "add", {"a": huge, "b": 1})
    assert answer == huge + 1
    assert str(result) == f"<int of {(huge + 1).bit_length()} bits>"  # too long to print
    assert error_of(tools, "scale", {"x": huge}) == (
        "Invalid arguments for tool 'scale':\nx: Input should be a valid number "
        f"(got <int of {huge.bit_length()} bits>)"
    )
    assert error_of(tools, "jadd", {"a": 1, "s": huge}) == (
        "Invalid arguments for tool 'jadd':\n"
        "arguments: cannot be checked against the schema (ValueError)"
    )
    assert every_answer(tools, "jadd", {"a": huge})[0] == huge


# -- NaN and Infinity: not JSON, refused ------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ('{"x": NaN}', "NaN"),
        ('{"x": Infinity}', "Infinity"),
        ('{"x": -Infinity}', "-Infinity"),
        ('{"x": 1e400}', "Infinity"),  # overflows to infinity
        ({"x": float("nan")}, "NaN"),
        ({"x": float("inf")}, "Infinity"),
        ({"x": float("-inf")}, "-Infinity"),
    ],
    ids=repr,
)
def test_nan_and_infinity_are_refused(tools: ToolRegistry, arguments: Any, shown: str) -> None:
    assert error_of(tools, "scale", arguments) == (
        f"Invalid arguments for tool 'scale':\nx: Input should be a finite number (got {shown})"
    )


def test_nan_is_refused_inside_containers_and_by_json_schema_tools() -> None:
    registry = ToolRegistry()
    registry.register(lambda xs: sum(xs), name="total", kwargs={"xs": (list[float], "numbers")})
    assert registry.call_tool("total", {"xs": [1.0, float("nan")]}) == (
        "Error: Invalid arguments for tool 'total':\n"
        "xs.1: Input should be a finite number (got NaN)"
    )
    from .conftest import build_registry

    tools = build_registry()
    assert error_of(tools, "jadd", {"a": 1, "x": float("nan")}) == (
        "Invalid arguments for tool 'jadd':\nx: nan is not of type 'number'"
    )
    assert error_of(tools, "jadd", '{"a": 1, "x": NaN}') == (
        "Invalid arguments for tool 'jadd': not valid JSON (expected value at line 1 column 15)"
    )
    assert error_of(tools, "jadd", '{"a": 1, "x": 1e400}') == (
        "Invalid arguments for tool 'jadd':\nx: inf is not of type 'number'"
    )


def test_nan_passes_where_no_number_is_expected(tools: ToolRegistry) -> None:
    """``Any`` says nothing about numbers: the value is passed on as it is."""
    assert every_answer(tools, "anything", {"x": float("nan")})[0] == "float"


# -- text encodings ---------------------------------------------------------------------------


def test_lone_surrogate_escapes_in_json_text_are_refused(tools: ToolRegistry) -> None:
    assert error_of(tools, "echo", '{"text": "\\ud800"}') == (
        "Invalid arguments for tool 'echo':\narguments: Invalid JSON: unexpected end of hex "
        'escape at line 1 column 17 (got \'{"text": "\\\\ud800"}\')'
    )


def test_lone_surrogates_in_python_strings_reach_the_tool(tools: ToolRegistry) -> None:
    """A Python ``str`` may hold one; it is passed on, and error text stays UTF-8-safe."""
    answer, _ = every_answer(tools, "echo", {"text": "\ud800"})
    assert answer == "\ud800"
    message = error_of(tools, "add", {"a": "\ud800x"})  # where pydantic must decode it
    assert message == (
        "Invalid arguments for tool 'add':\na: Input should be a valid string, unable to parse "
        "raw data as a unicode string (got '\\ud800x')"
    )
    message.encode("utf-8")  # printable and encodable: safe to send to a model


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"text": "\xff"}', "invalid unicode code point at line 1 column 11"),
        (b"\xff\xfe{}", "expected value at line 1 column 1"),
        (b'{"text": "\xc3"}', "invalid unicode code point at line 1 column 11"),
    ],
    ids=repr,
)
def test_invalid_utf8_bytes_are_refused(tools: ToolRegistry, data: bytes, problem: str) -> None:
    message = error_of(tools, "echo", data)
    assert message.startswith(
        f"Invalid arguments for tool 'echo':\narguments: Invalid JSON: {problem}"
    )
    message.encode("utf-8")


def test_utf8_bytes_are_accepted(tools: ToolRegistry) -> None:
    assert every_answer(tools, "echo", '{"text": "臺北"}'.encode())[0] == "臺北"


# -- unknown argument names -------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    ["__class__", "self", "kwargs", "args", "__init__", "__dict__", "model_config", "", "a.b"],
)
def test_unknown_argument_names_are_rejected(tools: ToolRegistry, key: str) -> None:
    assert error_of(tools, "add", {"a": 1, key: 1}) == (
        f"Invalid arguments for tool 'add':\n{key or EMPTY_KEY}: unexpected argument"
    )
    assert error_of(tools, "jadd", {"a": 1, key: 1}) == (
        f"Invalid arguments for tool 'jadd':\n{key or EMPTY_KEY}: unexpected argument"
    )


def test_unknown_names_reach_no_function() -> None:
    calls: list[Any] = []
    registry = ToolRegistry()

    @registry.tool
    def spy(a: int = 0) -> None:
        calls.append(a)

    for key in ("__class__", "self", "kwargs"):
        assert registry.call_tool("spy", {key: {"__init__": 1}}).startswith("Error: ")
    assert calls == []


def test_non_string_keys_are_rejected(tools: ToolRegistry) -> None:
    assert error_of(tools, "add", {1: 2, "a": 1}) == (
        "Invalid arguments for tool 'add':\n1: Keys should be strings (got 1)"
    )


def test_a_long_unknown_name_is_echoed_as_a_prefix(tools: ToolRegistry) -> None:
    key = "k" * 10_000
    assert error_of(tools, "add", {"a": 1, key: 1}) == (
        f"Invalid arguments for tool 'add':\n{'k' * 63}…: unexpected argument"
    )


# -- tool names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("", ""),
        ("x" * 10_000, "x" * 63 + "…"),
        ("\x00\x1b[31mred\x07\r\n", "\\x00\\x1b[31mred\\x07\\r\\n"),
        ("\u202eevil", "\\u202eevil"),
        ("\ud800", "\\ud800"),
        ("add ", "add "),
        ("ADD", "ADD"),
        (None, "None"),
        (5, "5"),
        (["add"], "['add']"),
    ],
    ids=lambda value: repr(value)[:20],
)
def test_bad_tool_names(tools: ToolRegistry, name: Any, shown: str) -> None:
    """Lookups answer with the name clipped to a printable prefix, on every face."""
    answer, result = every_answer(tools, name, {"a": 1})
    assert answer == f"Can not find tool named '{shown}'"
    assert result == ToolResult.fail(f"Tool '{shown}' not found")
    assert tools.call(name, {"a": 1}) == f"Error: Tool '{shown}' not found"
    assert answer.isprintable()
    answer.encode("utf-8")
    assert_intact(tools)


def test_every_valid_name_length_is_shown_whole(tools: ToolRegistry) -> None:
    name = "n" * 64
    assert tools.call_tool(name) == f"Can not find tool named '{name}'"


def test_the_process_is_intact_after_every_case(tools: ToolRegistry) -> None:
    before = tools.list_tools()
    for arguments in ([1], "{", oversized((1 << 20) + 1), {"x": float("nan")}, {"__class__": 1}):
        for name in before:
            tools.call_tool(name, arguments)
    assert_intact(tools, before)
    assert sys.getrecursionlimit() >= 1000


class HostileMapping(Mapping[str, Any]):
    """A mapping whose items cannot be read."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("no items for you")

    def __iter__(self) -> Iterator[str]:
        return iter(["a"])

    def __len__(self) -> int:
        return 1


def test_a_mapping_that_fails_when_read(tools: ToolRegistry) -> None:
    """Any ``Mapping`` is accepted as arguments; one that fails is a failed call."""
    assert error_of(tools, "add", HostileMapping()) == "no items for you"
    add = tools.get("add")
    assert add is not None
    assert add.call(HostileMapping(), b=1) == "Error: no items for you"  # merging reads it
    assert add.run_sync(HostileMapping(), b=1) == ToolResult.fail("no items for you")


# -- args_schema models -------------------------------------------------------------------------


class PointV2(BaseModel):
    x: float
    n: int = 0


class PointV1(pydantic_v1.BaseModel):
    x: float
    n: int = 0


def model_tools() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(lambda **kw: kw, name="m2", args_schema=PointV2)
    registry.register(lambda **kw: kw, name="m1", args_schema=PointV1)
    return registry


def test_args_schema_tools_refuse_what_signature_tools_refuse() -> None:
    models = model_tools()
    for name in ("m2", "m1"):
        for arguments in ([1], "null", {"x": 1, "__class__": 2}, '{"x": 1, "self": 2}'):
            answer = models.call_tool(name, arguments)
            assert answer.startswith(f"Error: Invalid arguments for tool '{name}':"), answer
        assert models.call_tool(name, {"x": 1}) == {"x": 1.0, "n": 0}


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("m2", "{bad"), ("m1", "{bad"), ("m1", {1: 2}), ("m1", {"x": 10**5000})],
    ids=["v2-bad-json", "v1-bad-json", "v1-int-key", "v1-huge-int"],
)
def test_args_schema_failures_name_the_tool(name: str, arguments: Any) -> None:
    answer = model_tools().call_tool(name, arguments)
    assert answer.startswith(f"Error: Invalid arguments for tool '{name}':"), answer


def test_v1_model_problems_are_bounded() -> None:
    answer = model_tools().call_tool("m1", {"x": 1, **{f"extra{i}": i for i in range(100)}})
    assert len(answer.splitlines()) <= 22
