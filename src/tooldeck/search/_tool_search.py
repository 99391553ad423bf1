"""``registry.tool_search(fmt, defer=...)``: tool search for a conversation, in any format.

For the APIs without native deferred loading (Chat Completions, Gemini), and usable with
the others too: the model first sees the tools not deferred and ``search_tools``; when it
calls ``search_tools``, the answer names the tools found (names and descriptions), and
from then on `ToolSearch.tools` holds them too, so the next request can call them.
Every other call of a reply runs as ``registry.run_tool_calls`` runs it (concurrently,
through the middleware), and the answers are written in the reply's format.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._reply_fields import ToolCall
from tooldeck._result import ToolResult, failure_text, outside_text
from tooldeck._tool_calls import read_tool_calls
from tooldeck._tool_calls_run import check_max_concurrency
from tooldeck.approval._record import needs_approval
from tooldeck.providers import PROVIDERS

from ._defer import SEARCH_TOOLS, Defer, defer_key, deferred_names, search_tool

if TYPE_CHECKING:
    from tooldeck._catalog import Catalog
    from tooldeck._tool import Tool
    from tooldeck._turns import Turns

__all__ = ["ToolSearch"]

Search = Callable[[str, int, "str | None"], "list[Tool[..., Any]]"]


class ToolSearch:
    """One conversation's tool search (see `tooldeck.ToolRegistry.tool_search`)."""

    def __init__(
        self,
        registry: Turns,
        catalog: Catalog,
        search: Search,
        fmt: str,
        defer: Defer,
        k: int,
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
        self._loaded: dict[str, None] = {}
        self._lock = threading.Lock()
        with catalog.lock:
            deferred_names(catalog, key)  # an unknown name is refused now, not mid-conversation
            _refuse_own_search_tools(catalog)

    @property
    def format(self) -> str:
        return self._format

    @property
    def loaded(self) -> list[str]:
        """The names of the tools found so far, in the order they were first found."""
        with self._lock:
            return list(self._loaded)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The export to send now: the tools not deferred, ``search_tools``, and every
        tool found so far (still registered and enabled), in the helper's format."""
        fmt = self._format
        with self._catalog.lock:
            _refuse_own_search_tools(self._catalog)
            deferred = deferred_names(self._catalog, self._defer, known=False)
            kept = [t for t in self._catalog.select(None, "any") if t.name not in deferred]
            found = [self._catalog.get(name) for name in self.loaded]
            shown = [t for t in found if t is not None and t.enabled and t.name in deferred]
        return [t.export(fmt) for t in (*kept, search_tool(), *shown)]

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
        """A ``search_tools`` call's result: the tools found, one per line."""
        query = _query_of(arguments)
        if query is None:
            return ToolResult.fail(
                f"{SEARCH_TOOLS} takes one argument, 'query', a string: "
                'for example {"query": "convert currency"}'
            )
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

    # -- a model's turn ------------------------------------------------------------------

    def run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Mapping[str, Any] | None = None,
        max_concurrency: int | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Answer a reply's calls: ``search_tools`` here, the others as
        ``registry.run_tool_calls`` does; the messages to append, in the reply's format."""
        registry = self._registry
        calls = self._calls(reply, max_concurrency)
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return registry.run_tool_calls(
                reply, context=context, max_concurrency=max_concurrency, format=self._format,
                media=media,
            )  # fmt: skip
        others = self._runnable(calls)
        ran = (
            registry._turn_results_sync(self._format, others, context, max_concurrency)
            if others
            else []
        )
        return self._write(calls, ran, media)

    async def async_run_tool_calls(
        self,
        reply: Any,
        /,
        *,
        context: Mapping[str, Any] | None = None,
        max_concurrency: int | None = None,
        media: str = "native",
    ) -> list[dict[str, Any]]:
        """Async twin of `run_tool_calls`."""
        registry = self._registry
        calls = self._calls(reply, max_concurrency)
        if not any(name == SEARCH_TOOLS for _, name, _ in calls):
            return await registry.async_run_tool_calls(
                reply, context=context, max_concurrency=max_concurrency, format=self._format,
                media=media,
            )  # fmt: skip
        others = self._runnable(calls)
        ran = (
            await registry._turn_results(self._format, others, context, max_concurrency)
            if others
            else []
        )
        return self._write(calls, ran, media)

    def _calls(self, reply: Any, max_concurrency: int | None) -> list[ToolCall]:
        if max_concurrency is not None:
            check_max_concurrency(max_concurrency)
        _, calls = read_tool_calls(reply, self._format)
        return calls

    def _runnable(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The calls of a turn with ``search_tools`` that run: not the searches, and not a
        tool that needs approval (nobody can give it here; `_write` says so)."""
        gated = self._registry._gated
        return [c for c in calls if c[1] != SEARCH_TOOLS and c[1] not in gated]

    def _write(
        self, calls: Sequence[ToolCall], ran: list[ToolResult], media: str
    ) -> list[dict[str, Any]]:
        if media not in ("native", "text"):
            raise ValueError(f"media must be 'native' or 'text', not {media!r}")
        gated = self._registry._gated
        others = iter(ran)
        results = [
            self.answer(arguments)
            if name == SEARCH_TOOLS
            else ToolResult.fail(needs_approval(name))
            if name in gated
            else next(others)
            for _, name, arguments in calls
        ]
        return PROVIDERS[self._format].write(calls, results, media == "native")


def _refuse_own_search_tools(catalog: Catalog) -> None:
    """A tool of the program's own named ``search_tools``, deferred or not, would sit
    beside the helper's (two tools of one name in a request) or be found by it and
    shadowed: refused, as `export(..., defer=)` refuses it."""
    tool = catalog.tools.get(SEARCH_TOOLS)
    if tool is not None and tool.enabled:
        raise ValueError(f"a tool is named {SEARCH_TOOLS!r}: rename it to use tool_search")


def _query_of(arguments: Any) -> str | None:
    """The ``query`` of a ``search_tools`` call's arguments (a mapping or JSON text)."""
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if isinstance(arguments, Mapping):
        query = arguments.get("query")
        if isinstance(query, str):
            return query
    return None


def _first_line(text: str | None) -> str:
    line = (text or "").strip().split("\n", 1)[0]
    return line[:300]
