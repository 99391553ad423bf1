"""The ``to_<framework>()`` methods of `Tool` and of a registry.

A `Tool` runs through its own faces (``run``, ``run_sync``); a registry through its
``execute`` faces, so its middleware runs around every call a framework makes, and
whatever tool has the name at call time is the one that runs (and is asked about
approval).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from tooldeck._result import clip

from ._shared import Bridge, GivenContext, NeedsApproval, check_context

__all__ = ["RegistryBridges", "ToolBridges", "approval_of", "current_approval"]

_NO_CONTEXT: Mapping[str, Any] = MappingProxyType({})


def approval_of(tool: Any) -> NeedsApproval | None:
    """Whether a call of ``tool`` needs approval, as its turns decide it (``None``: the
    tool never does): ``requires_approval=True`` always; a policy is asked with the
    validated arguments and the context, read-only. Invalid arguments need none (the
    call fails on them, nothing runs); a policy that raises or answers no ``bool`` needs
    approval: a call never runs on a policy's mistake."""
    policy = tool._approval
    if policy is None:
        return None
    if policy is True:
        return lambda arguments, context: True

    def needs(arguments: Any, context: Any) -> bool:
        try:
            validated = tool._validate(arguments)
        except Exception:
            return False
        if context is None:
            context = _NO_CONTEXT
        elif isinstance(context, dict):
            context = MappingProxyType(context)
        try:
            return policy(validated, context) is not False
        except Exception:
            return True

    return needs


def current_approval(registry: Any, name: str) -> NeedsApproval:
    """Whether a call of the tool registered as ``name`` needs approval, asked of the
    registry at call time: the tool there now (`approval_of`), so one replaced after
    a bridge was made is gated as itself. A tool gone or disabled needs none: the call
    is then the registry's own failure ("not found", "is disabled")."""
    tools = registry._tools
    memo: list[Any] = [(None, None)]  # (the tool last asked about, its check)

    def needs(arguments: Any, context: Any) -> bool:
        tool = tools.get(name)
        if tool is None or tool._approval is None or not tool.enabled:
            return False
        seen, check = memo[0]
        if seen is not tool:  # (one tuple, swapped whole: safe across threads)
            check = approval_of(tool)
            memo[0] = (tool, check)
        return check is not None and check(arguments, context)

    return needs


class ToolBridges:
    """`Tool`'s ``to_langchain``, ``to_openai_agents`` and ``to_pydantic_ai``."""

    __slots__ = ()

    def _bridge(self, context: GivenContext) -> Bridge:
        check_context(context)
        tool: Any = self
        return Bridge(
            tool.name,
            tool.description,
            tool.parameters,
            tool.run_sync,
            tool.run,
            tool.run if tool._raw_answers else tool.acall,  # (a proxy: see `_named_acall`)
            context,
            approval_of(tool),
        )

    def to_langchain(self, *, context: GivenContext = None) -> Any:
        """This tool as a LangChain ``StructuredTool`` (extra ``langchain``; docs/langchain.md).

        ``context`` gives injected parameters their values: a mapping, or a callable of
        the run's ``ToolRuntime`` (else its ``RunnableConfig``); by default the
        ``ToolRuntime``'s ``context``, else the config's ``configurable``.
        """
        from .langchain import to_tool

        return to_tool(self._bridge(context))

    def to_openai_agents(self, *, context: GivenContext = None) -> Any:
        """This tool as an OpenAI Agents ``FunctionTool`` (extra ``openai-agents``;
        docs/openai-agents.md). ``context``: a mapping or a callable of the
        ``ToolContext``; by default ``RunContextWrapper.context``."""
        from .openai_agents import to_tool

        return to_tool(self._bridge(context))

    def to_pydantic_ai(self, *, context: GivenContext = None) -> Any:
        """This tool as a ``pydantic_ai.Tool`` (extra ``pydantic-ai``; docs/pydantic-ai.md).
        ``context``: a mapping or a callable of the ``RunContext``; by default its
        ``deps``."""
        from .pydantic_ai import to_tool

        return to_tool(self._bridge(context))


def _named_acall(registry: Any, name: str) -> Any:
    """The registry's Agently face for one tool, ``async_call_tool``, but for a tool no
    longer registered, which it answers in its own words ("Can not find tool named"):
    the ``Error: Tool '<name>' not found`` the other bridges' ``execute`` answers; and
    for an MCP proxy, whose Agently face answers as seed 001 §7.2 says (its first item,
    a remote failure as a success holding ``{"error": ...}``), ``execute``'s whole
    `ToolResult`, as the other bridges read it."""
    call, execute, tools = registry.async_call_tool, registry.execute, registry._tools

    async def acall(arguments: Any, *, context: Any = None) -> Any:
        found = tools.get(name)
        if found is None:
            return f"Error: Tool '{clip(name)}' not found"
        if found._raw_answers:
            return await execute(name, arguments, context=context)
        return await call(name, arguments, context=context)

    return acall


class RegistryBridges:
    """A registry's ``to_langchain``, ``to_openai_agents`` and ``to_pydantic_ai``."""

    def _bridges(self, tags: Any, match: Any, context: GivenContext) -> list[Bridge]:
        check_context(context)
        registry: Any = self  # a registry: `_selected` gives its enabled tools with ``tags``
        bridges = []
        for tool in registry._selected(tags, match):
            # (partials: no Python frame of ours between a framework and the registry)
            run = functools.partial(registry.execute_sync, tool.name)
            arun = functools.partial(registry.execute, tool.name)
            acall = _named_acall(registry, tool.name)
            bridges.append(
                Bridge(
                    tool.name,
                    tool.description,
                    tool.parameters,
                    run,
                    arun,
                    acall,
                    context,
                    current_approval(registry, tool.name),
                )
            )
        return bridges

    def to_langchain(
        self, tags: Any = None, *, context: GivenContext = None, match: Any = "any"
    ) -> list[Any]:
        """The enabled tools (carrying any of ``tags``) as LangChain tools, each running
        through this registry: its validation, middleware and failure text (extra
        ``langchain``; docs/langchain.md). ``context`` as for `Tool.to_langchain`."""
        from .langchain import to_tool

        return [to_tool(b) for b in self._bridges(tags, match, context)]

    def to_openai_agents(
        self, tags: Any = None, *, context: GivenContext = None, match: Any = "any"
    ) -> list[Any]:
        """The enabled tools as OpenAI Agents ``FunctionTool``s, running through this
        registry (extra ``openai-agents``; docs/openai-agents.md)."""
        from .openai_agents import to_tool

        return [to_tool(b) for b in self._bridges(tags, match, context)]

    def to_pydantic_ai(
        self, tags: Any = None, *, context: GivenContext = None, match: Any = "any"
    ) -> Any:
        """The enabled tools as a Pydantic AI ``FunctionToolset``, running through this
        registry (extra ``pydantic-ai``; docs/pydantic-ai.md)."""
        from .pydantic_ai import to_toolset

        return to_toolset(self._bridges(tags, match, context))
