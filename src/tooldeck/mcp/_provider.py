"""The registry as fastmcp sees it: a ``Provider`` whose tools are a live view of it.

Each listing reads the registry afresh (its enabled tools, those with the served tags),
and each tool is listed exactly as ``export("mcp")`` describes it: schemas, description,
annotations, tags under ``_meta``, and no display title it does not have (fastmcp would
make one up from the name). A call runs through tooldeck's pipeline:

* a failure of any kind becomes an ``isError`` result carrying its message;
* a value that does not match the declared output schema becomes an ``isError``
  result naming the mismatch, never invalid ``structuredContent`` (MCP clients check
  it, and the TypeScript and Python SDKs throw on it);
* a proxy (`ProxyTool`) hands on its server's result as it came: ``isError``, every
  content item, ``structuredContent``, ``_meta``. It is listed with its server's
  output schema, annotations, title and icons.

This module imports fastmcp at the top: `tooldeck.mcp._serving` imports it lazily.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import json
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from fastmcp import FastMCP
from fastmcp.server.dependencies import fastmcp_request_ctx
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult as FastMCPResult
from mcp_types import Icon, TextContent, ToolAnnotations, ToolExecution
from pydantic import PrivateAttr

from tooldeck._media import mcp_form, media_parts
from tooldeck._progress import PROGRESS_KEY
from tooldeck._result import ToolResult, clip, failure_text, outside_text, problem_lines, to_text
from tooldeck._schema_check import schema_validator
from tooldeck._tool import Tool
from tooldeck.middleware._call import REQUEST_META

from ._approval import refusal
from ._cancel import until_disconnected
from ._media_content import media_result, structured_form
from ._progress import ServedProgress, notes_to_client
from ._proxy import ProxyTool
from ._results import output_problems
from ._session import RemoteFailure

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tooldeck._base_registry import BaseRegistry as ToolRegistry

__all__ = ["RegistryProvider", "ServedTool", "new_server", "server_version"]

Problems = Callable[[Any], list[str]]
_SERVED = (None, None, "mcp")  # a served call's origin, as middleware sees it
_UNREAD: Any = object()  # a request's context, not read yet

# One compiled output-schema check per tool (and per export of it).
_CHECKS: weakref.WeakKeyDictionary[Tool[..., Any], tuple[Any, Problems]] = (
    weakref.WeakKeyDictionary()
)


def new_server(
    registry: ToolRegistry,
    name: str,
    tags: str | Iterable[str] | None,
    match: Any = "any",
    context: Any = None,
) -> FastMCP[Any]:
    """A ``FastMCP`` server over the registry (`tooldeck.mcp.as_mcp_server`)."""
    # dereference_schemas=False: serve the schemas as exported, `$defs` and all.
    provider = RegistryProvider(registry, tags, match, context)
    # serverInfo names the registry and tooldeck's version (not fastmcp's, its default).
    return FastMCP(name, version=server_version(), providers=[provider], dereference_schemas=False)


@functools.cache
def server_version() -> str:
    try:
        return importlib.metadata.version("tooldeck")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, uninstalled
        return "0+unknown"


class RegistryProvider(Provider):
    """The registry's enabled tools (those with ``tags``), read afresh each time."""

    def __init__(
        self,
        registry: ToolRegistry,
        tags: str | Iterable[str] | None,
        match: Any = "any",
        context: Any = None,
    ) -> None:
        super().__init__()
        self._registry = registry
        self._tags = tags
        self._match = match
        self._context = context

    async def _list_tools(self) -> list[Any]:
        registry, served = self._registry, []
        for exported in registry.export("mcp", tags=self._tags, match=self._match):
            tool = registry.get(exported["name"])
            if tool is not None:
                served.append(served_tool(tool, exported, self._context, registry))
        return served

    async def _get_tool(self, name: str, version: Any = None) -> Any:
        tool = self._registry.get(name)
        selected = self._registry.list_tools(tags=self._tags, match=self._match)
        if tool is None or name not in selected:
            return None
        return served_tool(tool, tool.export("mcp"), self._context, self._registry)


class ServedTool(FastMCPTool):
    """A registry tool as fastmcp sees it: its ``export("mcp")``, run by tooldeck."""

    _tool: Tool[..., Any] = PrivateAttr()
    _export: Mapping[str, Any] = PrivateAttr()
    _context: Any = PrivateAttr(default=None)
    _registry: Any = PrivateAttr(default=None)  # its middleware is read at each call

    def get_meta(self) -> dict[str, Any]:
        # The exported `_meta` as is (tags where both fastmcp majors look), not
        # fastmcp's own, which would drop 2.x's `_fastmcp`.
        # (A proxy's export keeps its server's `_meta` too, our tag sections winning.)
        meta: dict[str, Any] = json.loads(json.dumps(self._export["_meta"]))
        return meta

    def to_mcp_tool(self, **overrides: Any) -> Any:
        # fastmcp makes up a display title from the name ("Add" for add): a tool shows
        # only the title it has.
        overrides.setdefault("title", self.title)
        return super().to_mcp_tool(**overrides)

    async def run(self, arguments: dict[str, Any]) -> FastMCPResult:
        # While it runs, the call tells its client how far it is (and a proxy's, what its
        # server logs): `_progress`. A client whose HTTP connection drops takes the call
        # with it: `_cancel`.
        async with notes_to_client(self._tool) as progress:
            work = self._served_call(arguments, progress)
            return await until_disconnected(work, _error("the client went away"))

    async def _served_call(
        self, arguments: dict[str, Any], progress: ServedProgress | None
    ) -> FastMCPResult:
        tool = self._tool
        context: Any = _UNREAD
        if tool._approval is not None:  # asked before anything runs (mcp/_approval.py)
            context, refused = await self._approval(arguments)
            if refused is not None:
                return refused
        chain = self._registry._chain if self._registry is not None else None
        reporter = None if progress is None else progress.reporter
        if chain is None and isinstance(tool, ProxyTool):
            # exactly what the server sent
            return _handed_on(await tool.reply(arguments, progress=reporter))
        if context is _UNREAD:
            try:
                context = await self._request_context(every_tool=chain is not None)
            except Exception as exc:  # the server's own context callable failed
                return _no_context(tool, exc)
        if reporter is not None:
            context = {**(context or {}), PROGRESS_KEY: reporter}
        if chain is None:
            return self._served(await tool.run(arguments, context=context))
        # Through the registry's middleware, once (a proxy's own faces have none), the
        # request's `_meta` in reach (a traceparent). A proxy's result that comes back
        # unchanged is handed on as its server sent it.
        request = fastmcp_request_ctx.get()
        token = REQUEST_META.set(request.meta if request is not None else None)
        try:
            outcome, raw = await chain.answer(tool, arguments, context, _SERVED)
        finally:
            REQUEST_META.reset(token)
        if raw is not None:
            return _handed_on(raw)
        return self._served(outcome)

    async def _approval(self, arguments: dict[str, Any]) -> tuple[Any, FastMCPResult | None]:
        """The request's context (a policy reads it) and, unless the call may run now, its
        answer: a refusal, or the question to the client first (SEP-2322)."""
        tool = self._tool
        try:
            context = await self._request_context(every_tool=True)
        except Exception as exc:
            return _UNREAD, _no_context(tool, exc)
        refused = await refusal(tool, arguments, context)
        if isinstance(refused, str):
            return context, _error(refused)
        return context, refused

    def _served(self, outcome: ToolResult) -> FastMCPResult:
        """A tool's result as MCP content (and structured content when its schema says)."""
        tool = self._tool
        if not outcome.success:
            return _error(to_text(outcome.error or ""))  # a str, whatever the result holds
        schema = self._export.get("outputSchema")
        try:
            parts = media_parts(outcome.data)
            if parts is None:  # media deeper inside is its MCP form in the JSON
                result = self.convert_result(mcp_form(outcome.data))
                structured = result.structured_content
            else:
                structured = structured_form(outcome.data, schema)
        except Exception as exc:
            return _unsendable(tool.name, exc)
        problems = self._output_problems(structured)
        if problems:
            header = (
                f"Tool '{clip(tool.name)}' returned a value that does not match its output schema:"
            )
            return _error(problem_lines(header, problems))
        if parts is None:
            return result
        try:
            return media_result(parts, structured, schema)  # once the schema admits it
        except Exception as exc:
            return _unsendable(tool.name, exc)

    async def _request_context(self, *, every_tool: bool = False) -> Mapping[str, Any] | None:
        """The values for injected parameters, for this request (see `as_mcp_server`);
        ``every_tool``: for a tool that takes none too (middleware reads the context)."""
        context = self._context
        if context is None or isinstance(context, Mapping):
            return context
        if not (every_tool or self._tool.spec.injected):
            return None  # a tool that takes nothing from the context never calls for it
        from fastmcp.server.dependencies import get_context

        values: Any = context(get_context())
        if inspect.isawaitable(values):
            values = await values
        if values is not None and not isinstance(values, Mapping):
            raise TypeError(f"the context callable returned {type(values).__name__}, not a mapping")
        return values

    def _output_problems(self, structured: dict[str, Any] | None) -> list[str]:
        schema = self._export.get("outputSchema")
        if schema is None:
            return []
        cached = _CHECKS.get(self._tool)
        if cached is None or cached[0] is not schema:
            cached = _CHECKS[self._tool] = (schema, schema_validator(schema))
        return output_problems(cached[1], structured)


def served_tool(
    tool: Tool[..., Any],
    exported: Mapping[str, Any],
    context: Any = None,
    registry: ToolRegistry | None = None,
) -> ServedTool:
    """``tool`` as fastmcp serves it (see the module docstring)."""
    # All of it from the export (a proxy's is its server's listing): what is served is
    # what is exported.
    annotations = exported.get("annotations")
    icons = exported.get("icons")
    execution = exported.get("execution")
    served = ServedTool(
        name=exported["name"],
        title=exported.get("title"),
        description=exported.get("description"),
        parameters=exported["inputSchema"],
        output_schema=exported.get("outputSchema"),
        annotations=ToolAnnotations.model_validate(annotations) if annotations else None,
        icons=[Icon.model_validate(icon) for icon in icons] if icons else None,
        execution=ToolExecution.model_validate(execution) if execution else None,
        tags=set(tool.tags),
    )
    served._tool = tool
    served._export = exported
    served._context = context
    served._registry = registry
    return served


def _handed_on(reply: Any) -> FastMCPResult:
    """A proxy's reply served again: the server's result as it came, or why there is none."""
    if isinstance(reply, RemoteFailure):
        return _error(str(reply))
    return FastMCPResult.from_mcp_result(reply)


def _no_context(tool: Tool[..., Any], exc: Exception) -> FastMCPResult:
    """The server's own context callable failed for this request."""
    message = outside_text(failure_text(exc))
    return _error(f"Tool '{clip(tool.name)}' has no context for this request: {message}")


def _unsendable(name: str, exc: Exception) -> FastMCPResult:
    why = outside_text(failure_text(exc))  # never str(exc) bare: it may raise too
    return _error(f"Tool '{clip(name)}' returned a value that cannot be sent: {why}")


def _error(text: str) -> FastMCPResult:
    return FastMCPResult(content=[TextContent(type="text", text=text)], is_error=True)
