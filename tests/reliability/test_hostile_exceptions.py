"""Tools that raise hostile exceptions: a class whose ``__name__`` raises or is no str
(a metaclass), an instance whose ``__class__`` raises, a ``__str__`` that raises or
recurses, a ``str`` subclass for a message.

Every face words the failure (``"Error: ..."`` or a failed ``ToolResult``), for sync and
async tools, timed or not, in a turn of one call or many and over MCP: nothing the
exception does escapes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from tooldeck import BaseTool, ToolRegistry, ToolResult

pytestmark = pytest.mark.timeout(120)


class _RaisingName(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]
        raise RuntimeError("no name outside its context")


class _IntName(type):
    __name__ = property(lambda cls: 42)  # type: ignore[assignment]


class NamelessError(Exception, metaclass=_RaisingName):
    def __str__(self) -> str:
        return ""  # the class name stands in for an empty message


class IntNamedError(Exception, metaclass=_IntName):
    def __str__(self) -> str:
        return ""


class ClasslessError(Exception):
    @property  # type: ignore[misc]
    def __class__(self) -> type:  # type: ignore[override]
        raise RuntimeError("outside its context")


class _HostileStr(str):
    def __len__(self) -> int:
        raise RuntimeError("len")

    def strip(self, *_: Any) -> str:  # type: ignore[override]
        raise RuntimeError("strip")


class StrSubclassError(Exception):
    def __str__(self) -> str:
        return _HostileStr("a message")


class RecursiveStrError(Exception):
    def __str__(self) -> str:
        return str(self)


# The exception, and what the model reads for it.
HOSTILE: list[tuple[Callable[[], BaseException], str]] = [
    (NamelessError, "Error: unknown"),
    (IntNamedError, "Error: unknown"),
    (lambda: ClasslessError("outside"), "Error: outside"),
    (StrSubclassError, "Error: a message"),
    (RecursiveStrError, "Error: RecursiveStrError"),
]
IDS = ["nameless", "int-named", "classless", "str-subclass", "recursive-str"]


def build(make: Callable[[], BaseException]) -> ToolRegistry:
    registry = ToolRegistry()

    def sync_() -> int:
        raise make()

    async def async_() -> int:
        await asyncio.sleep(0)
        raise make()

    registry.tool(sync_, name="sync")
    registry.tool(async_, name="async")
    registry.tool(sync_, name="sync-timeout", timeout=30)
    registry.tool(async_, name="async-timeout", timeout=30)

    class Raising(BaseTool):  # a class tool: its execute is checked to return a result
        name = "class"
        description = "Raises."
        parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

        async def execute(self, **kwargs: Any) -> ToolResult:
            raise make()

    registry.register(Raising())

    @registry.tool
    def add(a: int, b: int) -> int:
        return a + b

    return registry


KINDS = ["sync", "async", "sync-timeout", "async-timeout", "class"]


def outcome(face: Callable[[], Any]) -> Any:
    """What a face gives, or that it raised: never the hostile exception itself, which
    pytest's own report would choke on."""
    try:
        return face()
    except BaseException as exc:
        return f"raised {type(exc).__qualname__}"


async def aoutcome(face: Callable[[], Any]) -> Any:
    try:
        return await face()
    except BaseException as exc:
        return f"raised {type(exc).__qualname__}"


@pytest.mark.parametrize(("make", "expected"), HOSTILE, ids=IDS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_face_words_a_hostile_exception(
    make: Callable[[], BaseException], expected: str, kind: str
) -> None:
    registry = build(make)
    tool = registry.get(kind)
    texts = [
        outcome(lambda: registry.call_tool(kind, {})),
        outcome(lambda: tool.call({})),
        outcome(lambda: registry.call(kind)),
        str(outcome(lambda: registry.execute_sync(kind, {}))),
        str(outcome(lambda: tool.run_sync({}))),
    ]

    async def async_faces() -> list[str]:
        return [
            await aoutcome(lambda: registry.async_call_tool(kind, {})),
            await aoutcome(lambda: tool.acall({})),
            str(await aoutcome(lambda: registry.execute(kind, {}))),
            str(await aoutcome(lambda: tool.run({}))),
            str(await aoutcome(lambda: tool.execute())),
        ]

    texts += asyncio.run(async_faces())
    assert texts == [expected] * len(texts)
    assert outcome(lambda: registry.execute_sync(kind, {}).exception) is not None  # for logs


@pytest.mark.parametrize(("make", "expected"), HOSTILE, ids=IDS)
def test_a_turn_keeps_every_answer_when_a_tool_raises_a_hostile_exception(
    make: Callable[[], BaseException], expected: str
) -> None:
    registry = build(make)
    for names in (["sync"], ["class"], ["sync-timeout", "add", "async", "async-timeout", "class"]):
        turn = {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"t{i}",
                    "name": name,
                    "input": {"a": 1, "b": 2} if name == "add" else {},
                }
                for i, name in enumerate(names)
            ]
        }
        for answers in (
            outcome(lambda: registry.run_tool_calls(turn)),  # noqa: B023
            outcome(lambda: registry.run_tool_calls(turn, max_concurrency=1)),  # noqa: B023
            outcome(lambda: asyncio.run(registry.async_run_tool_calls(turn))),  # noqa: B023
        ):
            assert type(answers) is list, answers
            blocks = answers[0]["content"]
            texts = {block["tool_use_id"]: block["content"] for block in blocks}
            for i, name in enumerate(names):
                assert texts[f"t{i}"] == ("3" if name == "add" else expected), texts


@pytest.mark.timeout(60)
async def test_the_mcp_server_words_a_hostile_exception() -> None:
    fastmcp = pytest.importorskip("fastmcp")
    for make, expected in HOSTILE:
        server = build(make).as_mcp_server()
        async with fastmcp.Client(server, timeout=30) as client:
            for name in KINDS:
                result = await client.call_tool_mcp(name, {})
                assert result.is_error
                texts = [item.text for item in result.content]
                assert texts == [expected.removeprefix("Error: ")] or texts == [expected], texts


def test_a_tool_result_kept_for_logs_is_readable() -> None:
    # The kept exception is the tool's own; str(result) never asks it anything more.
    registry = build(ClasslessError)
    result = outcome(lambda: registry.execute_sync("sync", {}))
    assert type(result) is ToolResult and result.success is False
    assert type(result.exception) is ClasslessError
