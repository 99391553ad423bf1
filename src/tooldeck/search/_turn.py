"""A conversation's turn: the registry's, with the conversation's own ``search_tools``.

`ToolSearch` answers ``search_tools`` itself, yet that call must stand where every other
call stands: in the registry's middleware (a span, a rate-limit charge, an output
limit), beside the reply's other calls (concurrently, in its order), in an approval
batch. `ConversationTurn` is the registry's turn (`tooldeck.approval.Turn`: the lookup
and the two runners) with one name more: ``search_tools`` is the conversation's
`answering_tool`, a `Tool` like any other, run through the registry's chain; every other
name is the registry's, run as ``registry.run_tool_calls`` runs it.

The tool is the conversation's own (one per helper): middleware sees it as
``call.tool``, named ``search_tools``, without tags, so a middleware choosing tools by
name sees it by that name and one choosing by tags never does; `tooldeck.middleware.Cache`
keys on the tool, so an answer cached for one conversation never stands in for another's
search (whose tools would not be loaded).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._result import ToolResult
from tooldeck._tool import Tool
from tooldeck._tool_calls_run import run_calls, run_calls_sync

from ._defer import SEARCH_DESCRIPTION, SEARCH_TOOLS

if TYPE_CHECKING:
    from tooldeck._calling import Context
    from tooldeck._reply_fields import ToolCall
    from tooldeck._turns import Turns

__all__ = ["ConversationTurn", "answering_tool"]


def answering_tool(answer: Callable[[str], ToolResult]) -> Tool[..., ToolResult]:
    """A ``search_tools`` tool answering with ``answer(query)`` (its declaration is
    `tooldeck.search._defer.search_tool`'s: the same name, description and parameter)."""

    def search_tools(query: str) -> ToolResult:
        """Find tools by what you need them for.

        Args:
            query: What the tool should do, in a few words (for example "convert currency").
        """
        return answer(query)

    return Tool(search_tools, name=SEARCH_TOOLS, description=SEARCH_DESCRIPTION)


class ConversationTurn:
    """The registry's turn, ``search_tools`` answered by ``tool`` (a `tooldeck.approval.Turn`)."""

    __slots__ = ("_registry", "_tool")

    def __init__(self, registry: Turns, tool: Callable[[], Tool[..., Any]]) -> None:
        self._registry = registry
        self._tool = tool  # made on the first search

    def _find(self, name: str) -> Tool[..., Any] | None:
        if name == SEARCH_TOOLS:
            return self._tool()
        return self._registry._find(name)

    def _turn_results_sync(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]:
        """`Turns._turn_results_sync`, ``search_tools`` among the calls."""
        registry = self._registry
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return registry._turn_results_sync(format, calls, context, max_concurrency)
        if len(calls) == 1:  # a search alone: here, through the chain's sync entry
            call_id, _, arguments = calls[0]
            tool, chain = self._tool(), registry._chain
            if chain is None:
                return [tool.run_sync(arguments, context=context)]
            return [chain.result(tool, arguments, context, (call_id, format, "tool_calls"))]
        execute = functools.partial(self._execute_for_sync, context=context, format=format)
        timeouts = [getattr(self._find(name), "_timeout", None) for _, name, _ in calls]
        return run_calls_sync(calls, execute, max_concurrency, timeouts, registry._unanswered)

    async def _turn_results(
        self,
        format: str,
        calls: Sequence[ToolCall],
        context: Context,
        max_concurrency: int | None,
    ) -> list[ToolResult]:
        """Async twin of `_turn_results_sync`."""
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return await self._registry._turn_results(format, calls, context, max_concurrency)
        execute = functools.partial(self._execute, context=context, format=format)
        return await run_calls(calls, execute, max_concurrency)

    async def _execute(
        self, name: str, arguments: Any, call_id: Any, *, context: Context, format: str
    ) -> ToolResult:
        """One call of the turn (an async caller's)."""
        registry = self._registry
        if name != SEARCH_TOOLS:
            return await registry._execute_turn(
                name, arguments, call_id, context=context, format=format
            )
        tool, chain = self._tool(), registry._chain
        if chain is None:
            return await tool.run(arguments, context=context)
        return await chain.aresult(tool, arguments, context, (call_id, format, "tool_calls"))

    async def _execute_for_sync(
        self, name: str, arguments: Any, call_id: Any, *, context: Context, format: str
    ) -> ToolResult:
        """One call of the turn (a sync caller's, on tooldeck's loop)."""
        if name != SEARCH_TOOLS:
            return await self._registry._execute_for_sync(
                name, arguments, call_id, context=context, format=format
            )
        return await self._execute(name, arguments, call_id, context=context, format=format)
