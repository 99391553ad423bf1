"""Deferred loading: exports that keep some tools out of the model's context.

``export(fmt, defer=...)`` picks the deferred tools (`deferred_names`), then writes
them each provider's way (`export_deferred`):

- ``anthropic``: every tool, the deferred ones marked ``"defer_loading": true``, and
  Anthropic's BM25 tool search tool (``tool_search_tool_bm25_20251119``), which the API
  runs itself;
- ``openai-responses``: likewise, with ``{"type": "tool_search"}`` (hosted search);
- every other format (``openai``, ``gemini``, ``mcp``, ``agently``), which has no such
  thing: the deferred tools are left out and a ``search_tools(query)`` function tool is
  added, which `tooldeck.search.ToolSearch` (``registry.tool_search``) answers.

When no tool is deferred, the export is the plain one, unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._frozen import freeze
from tooldeck._tool import Tool

if TYPE_CHECKING:
    from tooldeck._catalog import Catalog

__all__ = [
    "ANTHROPIC_SEARCH",
    "NATIVE",
    "RESPONSES_SEARCH",
    "SEARCH_TOOLS",
    "Defer",
    "defer_key",
    "deferred_names",
    "export_deferred",
    "search_tool",
]

Defer = bool | str | Iterable[str] | None

SEARCH_TOOLS = "search_tools"
# Anthropic's server-side tool search (anthropic SDK: ToolSearchToolBm25_20251119Param);
# BM25 rather than the regex variant: a model asks in words, not patterns.
ANTHROPIC_SEARCH: dict[str, Any] = {
    "type": "tool_search_tool_bm25_20251119",
    "name": "tool_search_tool_bm25",
}
# OpenAI Responses' hosted tool search (openai SDK: ToolSearchToolParam).
RESPONSES_SEARCH: dict[str, Any] = {"type": "tool_search"}
NATIVE: dict[str, dict[str, Any]] = {
    "anthropic": ANTHROPIC_SEARCH,
    "openai-responses": RESPONSES_SEARCH,
}


SEARCH_DESCRIPTION = (
    "Find tools by what you need them for. Returns the names and descriptions of the "
    "best matching tools; call one of them by its name afterwards."
)


def search_tools(query: str) -> str:
    """Find tools by what you need them for (the declaration's function).

    Args:
        query: What the tool should do, in a few words (for example "convert currency").
    """
    # Never run: a declaration, for its exports. Its calls are answered by whoever offers
    # it (`search_tool`); reaching here is a program mistake, said as one.
    raise RuntimeError(
        "search_tools is answered by a conversation's tool_search helper or by a server "
        "served with defer=, not called as a function"
    )


@functools.cache
def search_tool() -> Tool[..., str]:
    """The ``search_tools`` tool's declaration (its exports; its calls are answered by
    whoever offers it: `tooldeck.search.ToolSearch`, or a server served with ``defer=``)."""
    return Tool(search_tools, name=SEARCH_TOOLS, description=SEARCH_DESCRIPTION)


def defer_key(defer: Defer) -> tuple[Any, ...] | None:
    """``defer`` as a hashable cache key, or ``None`` when nothing is deferred.

    Raises:
        TypeError: ``defer`` is not ``True``, a tag, or an iterable of names.
    """
    if defer is None or defer is False:
        return None
    if defer is True:
        return ("all",)
    if isinstance(defer, str):
        return ("tag", defer)
    if isinstance(defer, bytes) or not isinstance(defer, Iterable):
        raise TypeError(
            "defer= takes True (every tool), a tag, or a list of tool names, "
            f"not {type(defer).__name__}"
        )
    names = list(defer)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"defer= names must be strings, not {type(name).__name__}")
    return ("names", *sorted(set(names)))


def deferred_names(catalog: Catalog, key: tuple[Any, ...], *, known: bool = True) -> set[str]:
    """The names ``key`` (from `defer_key`) defers in ``catalog``.

    ``known=False``: a listed name no longer registered is skipped, not refused. A
    conversation's helper or a server checks its names once, when made; a tool
    unregistered afterwards must not take its whole listing down with it.

    Raises:
        ToolNotFoundError: a listed name is not registered (unless ``known=False``).
    """
    kind, *rest = key
    if kind == "all":
        return set(catalog.tools)
    if kind == "tag":
        return {tool.name for tool in catalog.select(rest[0], "any")}
    if not known:
        return {name for name in rest if name in catalog.tools}
    for name in rest:
        catalog.require(name)
    return set(rest)


def export_deferred(
    tools: Sequence[Tool[..., Any]],
    deferred: set[str],
    fmt: str,
    export: Callable[[Sequence[Tool[..., Any]]], list[Any]],
) -> list[Any]:
    """``tools`` in ``fmt``, those named in ``deferred`` deferred.

    ``export`` turns tools into their plain entries (strictness applied); a tool is
    deferred only if it is among ``tools`` (the selected, enabled ones).
    """
    if not any(tool.name in deferred for tool in tools):
        return export(tools)
    native = NATIVE.get(fmt)
    if native is not None:
        entries = export(tools)
        marked = [
            freeze({**entry, "defer_loading": True}) if tool.name in deferred else entry
            for tool, entry in zip(tools, entries, strict=True)
        ]
        return [*marked, freeze(native)]
    if any(tool.name == SEARCH_TOOLS for tool in tools):
        raise ValueError(
            f"a tool is named {SEARCH_TOOLS!r}: with defer=, {fmt!r} exports add a tool "
            "of that name; rename yours"
        )
    kept = [tool for tool in tools if tool.name not in deferred]
    return [*export(kept), *export([search_tool()])]
