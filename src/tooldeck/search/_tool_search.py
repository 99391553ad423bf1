"""``registry.tool_search(fmt, defer=...)``: tool search for a conversation, in any format.

For the APIs without native deferred loading (Chat Completions, Gemini), and usable with
the others too: the model first sees the tools not deferred and ``search_tools``; when it
calls ``search_tools``, the answer names the tools found (names and descriptions), and
from then on `ToolSearch.tools` holds them too, so the next request can call them.
A reply's calls run as ``registry.run_tool_calls`` runs them (concurrently, through the
middleware, ``approve=`` asked), ``search_tools`` among them (`_turn`), and the answers
are written in the reply's format.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._calling import Context
from tooldeck._reply_fields import ToolCall
from tooldeck._result import ToolResult, failure_text, outside_text
from tooldeck._tool_calls import read_tool_calls
from tooldeck._tool_calls_run import native_media
from tooldeck._turns import Approve, calls_any, check_turn
from tooldeck.approval import ToolCallBatch
from tooldeck.approval._inline import arun_approved, run_approved
from tooldeck.approval._once import Claims
from tooldeck.providers import PROVIDERS

from ._defer import SEARCH_TOOLS, Defer, defer_key, deferred_names, search_tool
from ._turn import ConversationTurn, answering_tool

if TYPE_CHECKING:
    from tooldeck._catalog import Catalog
    from tooldeck._tool import Tool
    from tooldeck._turns import Turns

__all__ = ["ToolSearch"]

Search = Callable[[str, int, "str | None"], "list[Tool[..., Any]]"]
# The tools in the helper's format, strict as asked (`export(fmt, strict=)`'s transform).
Export = Callable[[Sequence["Tool[..., Any]"]], "list[dict[str, Any]]"]


class ToolSearch:
    """One conversation's tool search, made by `tooldeck.ToolRegistry.tool_search`.

    `tools` is the export to send with each request: the tools not deferred,
    ``search_tools``, and every tool found so far. `run_tool_calls` (`async_run_tool_calls`)
    answers a reply's ``search_tools`` calls with the deferred tools found, and its other
    calls as ``registry.run_tool_calls`` does; every call, ``search_tools`` included, goes
    through the registry's middleware. `prepare_tool_calls` is
    ``registry.prepare_tool_calls`` for the conversation. `loaded` lists what has been
    found. See docs/search.md.
    """

    def __init__(
        self,
        registry: Turns,
        catalog: Catalog,
        search: Search,
        fmt: str,
        defer: Defer,
        k: int,
        export: Export | None = None,
    ) -> None:
        if fmt not in PROVIDERS:
            known = ", ".join(repr(f) for f in PROVIDERS)
            raise ValueError(f"tool_search takes one of {known}, not {fmt!r}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer of 1 or more, not {k!r}")
        key = defer_key(True if defer is None else defer)
        if key is None:
            raise ValueError("tool_search needs tools to defer: defer=True, a tag or names")
        self._registry = registry
        self._catalog = catalog
        self._search = search
        self._format = fmt
        self._defer = key
        self._k = k
        self._export = export or (lambda tools: [t.export(fmt) for t in tools])
        self._loaded: dict[str, None] = {}
        self._lock = threading.Lock()
        self._tool: Tool[..., ToolResult] | None = None
        self._turn = ConversationTurn(registry, self._answering_tool)
        with catalog.lock:
            deferred_names(catalog, key)  # an unknown name is refused now, not mid-conversation
            _refuse_own_search_tools(catalog)

    @property
    def format(self) -> str:
        """The provider format of `tools` and of the replies it reads."""
        return self._format

    @property
    def loaded(self) -> list[str]:
        """The names of the tools found so far, in the order they were first found."""
        with self._lock:
            return list(self._loaded)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The export to send now: the tools not deferred, ``search_tools``, and every
        tool found so far (still registered and enabled), in the helper's format (strict
        as asked).

        Raises:
            ToolDefinitionError: made with ``strict=True``, and one of these tools cannot
                be made strict (as ``export(fmt, strict=True)`` raises).
        """
        with self._catalog.lock:
            _refuse_own_search_tools(self._catalog)
            deferred = deferred_names(self._catalog, self._defer, known=False)
            kept = [t for t in self._catalog.select(None, "any") if t.name not in deferred]
            found = [self._catalog.get(name) for name in self.loaded]
            shown = [t for t in found if t is not None and t.enabled and t.name in deferred]
        return self._export([*kept, search_tool(), *shown])

    def find(self, query: str) -> list[Tool[..., Any]]:
        """The deferred tools best matching ``query`` (at most ``k``); they are loaded."""
        with self._catalog.lock:
            deferred = deferred_names(self._catalog, self._defer, known=False)
            deferred.discard(SEARCH_TOOLS)  # registered since (`tools` refuses it): never found
            extra = len(self._catalog.tools) - len(deferred)
        if self._defer[0] == "tag":  # the index keeps to the tag: no more than k asked
            found = self._search(query, self._k, self._defer[1])
        else:  # asked for enough to hold k deferred tools after the others are dropped
            found = self._search(query, self._k + max(extra, 0), None)
        found = [t for t in found if t.name in deferred]
        found = found[: self._k]
        with self._lock:
            for tool in found:
                self._loaded.setdefault(tool.name, None)
        return found

    def answer(self, arguments: Any) -> ToolResult:
        """A ``search_tools`` call's result (``arguments``: a mapping or JSON text), as a
        call of it in `run_tool_calls` gives it without middleware: the tools found, one
        per line."""
        return self._answering_tool().run_sync(arguments)

    def _answer(self, query: str) -> ToolResult:
        """The answer to a search for ``query`` (the conversation's ``search_tools``)."""
        try:
            found = self.find(query)
        except Exception as exc:  # the developer's embed=, say: an answer, never a raise
            why = outside_text(failure_text(exc))
            return ToolResult.fail(f"{SEARCH_TOOLS} failed: {why}", exception=exc)
        if not found:
            return ToolResult.ok(f"No tool matches {query[:200]!r}; try other words.")
        lines = [f"- {t.name}: {_first_line(t.spec.description)}" for t in found]
        return ToolResult.ok(
            "Tools found (call them by name; they are now available):\n" + "\n".join(lines)
        )

    def _answering_tool(self) -> Tool[..., ToolResult]:
        """The conversation's ``search_tools`` tool, made on the first search."""
        tool = self._tool
        if tool is None:
            with self._lock:
                tool = self._tool
                if tool is None:
                    tool = self._tool = answering_tool(self._answer)
        return tool

    # -- a model's turn ------------------------------------------------------------------

    def run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Mapping[str, Any] | None = None,
        max_concurrency: int | None = None,
        media: str = "native",
        approve: Approve | None = None,
    ) -> list[dict[str, Any]]:
        """Answer a reply's calls as ``registry.run_tool_calls`` does (concurrently,
        through the middleware, ``approve`` asked for a call that needs approval), a
        ``search_tools`` call answered here; the messages to append, in the reply's format.
        """
        registry = self._registry
        calls = self._calls(reply, max_concurrency, approve)
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return registry.run_tool_calls(
                reply, context=context, max_concurrency=max_concurrency, format=self._format,
                media=media, approve=approve,
            )  # fmt: skip
        native = native_media(media)
        if registry._gated and calls_any(calls, registry._gated):
            turn, fmt = self._turn, self._format
            return run_approved(turn, fmt, calls, context, max_concurrency, native, approve)
        results = self._turn._turn_results_sync(self._format, calls, context, max_concurrency)
        return PROVIDERS[self._format].write(calls, results, native)

    async def async_run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Mapping[str, Any] | None = None,
        max_concurrency: int | None = None,
        media: str = "native",
        approve: Approve | None = None,
    ) -> list[dict[str, Any]]:
        """Async twin of `run_tool_calls`; cancelling it cancels the calls in flight."""
        registry = self._registry
        calls = self._calls(reply, max_concurrency, approve)
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return await registry.async_run_tool_calls(
                reply, context=context, max_concurrency=max_concurrency, format=self._format,
                media=media, approve=approve,
            )  # fmt: skip
        native = native_media(media)
        if registry._gated and calls_any(calls, registry._gated):
            turn, fmt = self._turn, self._format
            return await arun_approved(turn, fmt, calls, context, max_concurrency, native, approve)
        results = await self._turn._turn_results(self._format, calls, context, max_concurrency)
        return PROVIDERS[self._format].write(calls, results, native)

    def prepare_tool_calls(
        self, reply: Any, /, *, context: Mapping[str, Any] | None = None
    ) -> ToolCallBatch:
        """``registry.prepare_tool_calls`` for this conversation: a ``search_tools`` call
        is ready, and answered here when the batch runs (docs/approval.md).

        Raises:
            TypeError: ``reply`` is no model's reply.
        """
        _, calls = read_tool_calls(reply, self._format)
        if not calls:  # a reply without calls: a batch answering []
            return ToolCallBatch._read(self._turn, None, [], context)
        return ToolCallBatch._read(self._turn, self._format, calls, context)

    def load_tool_calls(
        self,
        text: str | bytes,
        /,
        *,
        key: bytes | None = None,
        context: Context = None,
        once: Claims | None = None,
    ) -> ToolCallBatch:
        """``registry.load_tool_calls`` for this conversation (its ``search_tools``)."""
        return ToolCallBatch._load(self._turn, text, key, context, once)

    def _calls(self, reply: Any, max_concurrency: int | None, approve: Any) -> list[ToolCall]:
        check_turn(max_concurrency, approve)
        _, calls = read_tool_calls(reply, self._format)
        return calls


def _refuse_own_search_tools(catalog: Catalog) -> None:
    """A tool of the program's own named ``search_tools``, deferred or not, would sit
    beside the helper's (two tools of one name in a request) or be found by it and
    shadowed: refused, as `export(..., defer=)` refuses it."""
    tool = catalog.tools.get(SEARCH_TOOLS)
    if tool is not None and tool.enabled:
        raise ValueError(f"a tool is named {SEARCH_TOOLS!r}: rename it to use tool_search")


def _first_line(text: str | None) -> str:
    line = (text or "").strip().split("\n", 1)[0]
    return line[:300]
