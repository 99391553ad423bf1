"""A registry's searching and exporting: `Exports`, which `BaseRegistry` inherits.

Searching (`search`, `tool_search`) and exporting (`export` and its seed names) read
the registry's catalog and nothing else, so they live apart from registering and
calling. The search package is imported on the first search (or ``defer=``) only.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._catalog import Catalog, Match, Tags
from ._tool import Strict, Tool, check_strict, normalise_tags
from ._turns import Turns
from .errors import ToolDefinitionError

if TYPE_CHECKING:
    from .search._tool_search import ToolSearch

__all__ = ["EXPORT_FORMATS", "Exports"]

EXPORT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "agently")


class Exports(Turns):
    """Searching and exporting a registry's enabled tools (`BaseRegistry` inherits it;
    `tool_search` answers a conversation through the registry's turns)."""

    _catalog: Catalog
    _lock: Any  # the catalog's re-entrant lock
    _embed: Callable[[list[str]], Any] | None

    def search(
        self, query: str, /, *, k: int = 5, tags: Tags = None, match: Match = "any"
    ) -> list[Tool[..., Any]]:
        """The enabled tools that best match a free-text request, best first, at most ``k``.

        Ranked lexically (BM25F) over each tool's name (split at ``_``, ``-``, ``.`` and
        camelCase), description, and parameter names and descriptions; any language,
        scripts without spaces included. Ties keep registration order; a tool sharing
        no term with ``query`` is never returned. ``tags`` keeps only tools carrying any
        of them (all of them with ``match="all"``). The index is built on the first search
        and kept current after. With ``ToolRegistry(embed=fn)``, the lexical ranking is
        fused with the tools' similarity to the query by meaning (tools embedded once,
        lazily), so a tool sharing no word with the query can be found too. Any
        string is a query: an empty, huge or meaningless one gives a list (maybe empty).

        Raises:
            TypeError: ``query`` is not a string, or ``k`` not an integer.
            ValueError: ``k`` is negative, or ``match`` not ``"any"`` or ``"all"``.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a string, not {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"k must be an integer, not {type(k).__name__}")
        if k < 0:
            raise ValueError(f"k must be 0 or more, not {k}")
        if match not in ("any", "all"):
            raise ValueError(f"match must be 'any' or 'all', not {match!r}")
        if k == 0:
            return []
        from .search import search  # the index is imported on the first search only

        return search(self._catalog, query, k, tags, match, self._embed)

    def tool_search(
        self,
        format: str = "openai",
        /,
        *,
        defer: bool | str | Iterable[str] = True,
        k: int = 5,
        strict: Strict = False,
    ) -> ToolSearch:
        """A per-conversation tool search, for the formats without native search.

        ``.tools`` is the export to send now (the tools not deferred, ``search_tools``,
        and every tool found so far), strict as ``export(format, strict=strict)`` is;
        ``.run_tool_calls(reply)`` (``await .async_run_tool_calls(reply)``) answers
        ``search_tools`` calls with the ``k`` deferred tools found (names and
        descriptions) and every other call as `run_tool_calls` does, through the
        middleware, ``search_tools`` included; ``.prepare_tool_calls(reply)`` gives its
        batch; ``.loaded`` lists what has been found.

        Raises:
            ValueError: an unknown format, ``k`` below 1, nothing to defer, ``strict`` not
                a bool or ``"best-effort"``, or an enabled tool named ``search_tools`` (it
                would clash with the helper's).
            TypeError: ``defer`` is none of its forms.
            ToolNotFoundError: ``defer`` names a tool that is not registered.
        """
        from .search._tool_search import ToolSearch

        check_strict(strict)

        def export(tools: Iterable[Tool[..., Any]]) -> list[Any]:
            return _export_all(tools, format, strict)

        return ToolSearch(self, self._catalog, self._find_tools, format, defer, k, export)

    def _find_tools(self, query: str, k: int, tags: str | None) -> list[Tool[..., Any]]:
        return self.search(query, k=k, tags=tags)

    # -- exporting ----------------------------------------------------------------------

    def export(
        self,
        format: str = "openai",
        *,
        tags: Tags = None,
        strict: Strict = False,
        match: Match = "any",
        defer: bool | str | Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The enabled tools in a provider's format, computed once and cached.

        Formats: ``openai`` (Chat Completions), ``openai-responses``, ``anthropic``,
        ``gemini``, ``mcp``, ``agently``. Each call returns a new list of shared,
        read-only definitions (mutating one raises ``TypeError``; ``copy.deepcopy``
        gives a plain copy), so the cache cannot be corrupted and a second export
        costs next to nothing.

        ``strict=True`` applies OpenAI's strict mode to every tool; ``"best-effort"``
        to every tool that can take it, exporting the others without it and warning
        (once, when the export is first computed) which ones and why.

        ``defer`` (``True`` for every tool, a tag, or a list of names) keeps those tools
        out of the model's context until it searches for them: ``anthropic`` and
        ``openai-responses`` mark them ``"defer_loading": true`` and add the provider's
        own tool search tool; the other formats leave them out and add a
        ``search_tools(query)`` function tool (see `tool_search`). Nothing deferred:
        the plain export.

        Raises:
            ValueError: an unknown format, or ``strict`` not a bool or ``"best-effort"``.
            TypeError: ``defer`` is none of its forms.
            ToolNotFoundError: ``defer`` names a tool that is not registered.
            ToolDefinitionError: ``strict=True`` and a tool cannot be made strict: it
                names every such tool and why, and how to export the rest.
        """
        if format not in EXPORT_FORMATS:
            raise ValueError(
                f"unknown export format {format!r}; one of {', '.join(EXPORT_FORMATS)}"
            )
        check_strict(strict)
        key = (format, strict, None if tags is None else normalise_tags(tags), match)
        tools = self._catalog.select(tags, match)
        if defer is not None and defer is not False:
            return self._export_deferred(key, tools, defer)
        return list(self._catalog.exported(key, lambda: _export_all(tools, format, strict)))

    def _export_deferred(
        self, key: tuple[Any, ...], tools: list[Tool[..., Any]], defer: Any
    ) -> list[dict[str, Any]]:
        from .search._defer import defer_key, deferred_names, export_deferred

        deferring = defer_key(defer)
        if deferring is None:
            return list(self._catalog.exported(key, lambda: _export_all(tools, key[0], key[1])))
        with self._lock:
            deferred = deferred_names(self._catalog, deferring)

            def build() -> list[Any]:
                return export_deferred(
                    tools, deferred, key[0], lambda some: _export_all(some, key[0], key[1])
                )

            return list(self._catalog.exported((*key, deferring), build))

    def get_openai_tools(
        self, tags: Tags = None, *, strict: Strict = False, match: Match = "any"
    ) -> list[dict[str, Any]]:
        """Seed 000's name: `export` in the ``openai`` (Chat Completions) format."""
        return self.export("openai", tags=tags, strict=strict, match=match)

    def get_declarations(
        self, tags: Tags = None, *, strict: Strict = False, match: Match = "any"
    ) -> list[dict[str, Any]]:
        """Seed 003's name: ``{"name", "description", "input_schema"}`` per tool."""
        return self.export("anthropic", tags=tags, strict=strict, match=match)


_HOW_TO_PROCEED = (
    "pass strict='best-effort' to export them without strict mode (and the others "
    "strict), or leave them out with tags="
)


def _export_all(tools: Iterable[Tool[..., Any]], format: str, strict: Strict) -> list[Any]:
    """Every tool in ``format``; with strict mode, every refusal gathered first."""
    if strict is False:
        return [t.export(format) for t in tools]
    exported: list[Any] = []
    refused: list[tuple[int, Tool[..., Any], ToolDefinitionError]] = []
    for tool in tools:
        try:
            exported.append(tool.export(format, strict=True))
        except ToolDefinitionError as exc:
            refused.append((len(exported), tool, exc))
            exported.append(None)
    if not refused:
        return exported
    reasons = "; ".join(f"{tool.name!r} ({exc.args[0]})" for _, tool, exc in refused)
    if strict is True:
        if len(refused) == 1:
            first = refused[0][2]
            reason = f"{first.reason}. It cannot be made strict: {_HOW_TO_PROCEED}"
            raise ToolDefinitionError(reason, tool=first.tool, param=first.param) from first
        raise ToolDefinitionError(
            f"{len(refused)} tools cannot be made strict: {reasons}. {_HOW_TO_PROCEED}"
        ) from refused[0][2]
    for index, tool, _ in refused:
        exported[index] = tool.export(format, strict=False)
    warnings.warn(f"exported {len(refused)} tool(s) without strict mode: {reasons}", stacklevel=5)
    return exported
