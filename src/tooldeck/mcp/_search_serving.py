"""Serving with ``defer=``: deferred tools left out of ``tools/list``, found by search.

The server lists the tools not deferred and a ``search_tools(query)`` tool; its answer
names the deferred tools that best match the query (names and descriptions), and a
client calls a found tool by its name, as any other (fastmcp looks a called tool up
by name, listed or not). What is deferred is read at each listing, so tools
registered, tagged or removed later are deferred by the same rule.

This module imports fastmcp at the top: `tooldeck.mcp._serving` imports it lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastmcp import FastMCP

from tooldeck._tool import Tool
from tooldeck.search._defer import SEARCH_DESCRIPTION, SEARCH_TOOLS, defer_key, deferred_names

from ._extra import logger
from ._provider import RegistryProvider, served_tool, server_version

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tooldeck._base_registry import BaseRegistry as ToolRegistry

__all__ = ["new_deferring_server"]

K = 5  # tools named per search


def new_deferring_server(
    registry: ToolRegistry,
    name: str,
    tags: str | Iterable[str] | None,
    match: Any,
    context: Any,
    defer: Any,
) -> FastMCP[Any]:
    """A ``FastMCP`` server over the registry, ``defer`` deferred behind ``search_tools``."""
    key = defer_key(defer)
    if key is None:
        raise ValueError("defer= needs tools to defer: True, a tag or names")
    with registry._catalog.lock:
        deferred_names(registry._catalog, key)  # an unknown name is refused now
    if SEARCH_TOOLS in registry.list_tools(tags=tags, match=match):
        raise ValueError(
            f"a tool is named {SEARCH_TOOLS!r}: served with defer=, the server lists a tool "
            "of that name, which would hide yours; rename yours"
        )
    provider = DeferringProvider(registry, tags, match, context, key)
    return FastMCP(name, version=server_version(), providers=[provider], dereference_schemas=False)


class DeferringProvider(RegistryProvider):
    """`RegistryProvider` listing only the tools not deferred, plus ``search_tools``."""

    def __init__(
        self,
        registry: ToolRegistry,
        tags: str | Iterable[str] | None,
        match: Any,
        context: Any,
        key: tuple[Any, ...],
    ) -> None:
        super().__init__(registry, tags, match, context)
        self._key = key
        # Served as any registry tool is: a call goes through the registry's middleware.
        self._search_tool = _search_tool(self._find, context, registry)

    def _deferred(self) -> set[str]:
        catalog = self._registry._catalog
        with catalog.lock:
            # Names checked when the server was made: one unregistered since is skipped,
            # not a failure of every listing and search.
            return deferred_names(catalog, self._key, known=False)

    def _find(self, query: str) -> str:
        deferred = self._deferred()
        extra = max(len(self._registry) - len(deferred), 0)
        found = self._registry.search(query, k=K + extra, tags=self._tags, match=self._match)
        shown = [t for t in found if t.name in deferred and t.name != SEARCH_TOOLS][:K]
        if not shown:
            return f"No tool matches {query[:200]!r}; try other words."
        lines = [
            f"- {t.name}: {(t.spec.description or '').strip().splitlines()[0][:300]}"
            if t.spec.description and t.spec.description.strip()
            else f"- {t.name}"
            for t in shown
        ]
        return "Tools found (call them by name):\n" + "\n".join(lines)

    async def _list_tools(self) -> list[Any]:
        deferred = self._deferred()
        served = await super()._list_tools()
        if not any(tool.name in deferred for tool in served):
            return served  # nothing deferred (yet): the plain listing, as the export is
        listed = []
        for tool in served:
            if tool.name == SEARCH_TOOLS:  # registered after the server was made
                logger.warning(
                    "a tool named %r is hidden by the served tool search (defer=): rename it",
                    SEARCH_TOOLS,
                )
            elif tool.name not in deferred:
                listed.append(tool)
        return [*listed, self._search_tool]

    async def _get_tool(self, name: str, version: Any = None) -> Any:
        if name == SEARCH_TOOLS and self._searching():
            return self._search_tool
        return await super()._get_tool(name, version)

    def _searching(self) -> bool:
        """Whether ``search_tools`` is served: some tool served is deferred."""
        served = self._registry.list_tools(tags=self._tags, match=self._match)
        deferred = self._deferred()
        return any(name in deferred for name in served)


def _search_tool(find: Any, context: Any, registry: ToolRegistry) -> Any:
    """The served ``search_tools``: a tool of its own, answering with ``find(query)``,
    called through ``registry``'s middleware (it sees ``call.name == "search_tools"``,
    a tool without tags) with the request's ``context``."""

    def search_tools(query: str) -> str:
        """Find tools (the served declaration's function).

        Args:
            query: What the tool should do, in a few words (for example "convert currency").
        """
        return str(find(query))

    tool = Tool(search_tools, name=SEARCH_TOOLS, description=SEARCH_DESCRIPTION)
    return served_tool(tool, tool.export("mcp"), context, registry)
