"""The core of a registry: registering, looking up, calling by name, exporting.

`BaseRegistry` is everything a `tooldeck.ToolRegistry` does except reach the MCP
edge, which sits above it (`tooldeck._registry` adds those methods). Its storage and
tag index are a `tooldeck._catalog.Catalog`; the tools themselves do the calling.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from typing_extensions import ParamSpec

from ._agently import agently_info
from ._catalog import Catalog, Match, Tags
from ._schema import build_spec
from ._schema_tools import foreign_tool, from_base_tool
from ._shifting import asyncify, syncify
from ._spec import EMPTY
from ._tool import Approval, BaseTool, Strict, Tool, check_strict, normalise_tags
from ._turns import Turns
from .errors import ToolDefinitionError
from .frameworks import RegistryBridges, foreign
from .middleware._chain import Chain, Middleware

if TYPE_CHECKING:
    from .search._tool_search import ToolSearch

__all__ = ["EXPORT_FORMATS", "BaseRegistry", "Match", "Tags"]

P = ParamSpec("P")
R = TypeVar("R")
MW = TypeVar("MW", bound=Callable[..., Any])

EXPORT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "agently")


class BaseRegistry(RegistryBridges, Turns):
    """A set of tools: register, query by tag, call by name, export."""

    def __init__(
        self,
        *,
        middleware: Iterable[Middleware] | None = None,
        embed: Callable[[list[str]], Any] | None = None,
    ) -> None:
        if embed is not None and not callable(embed):
            raise TypeError("embed= takes a function: fn(list[str]) -> list[list[float]]")
        self._embed = embed
        self._catalog = Catalog()
        self._tools = self._catalog.tools  # the call path's lookup, one attribute away
        self._gated = self._catalog.gated  # the names of tools that need approval
        self._lock = self._catalog.lock
        self._mcp_state: Any = None  # a slot the MCP edge (tooldeck.mcp) owns
        if isinstance(middleware, (str, bytes)) or callable(middleware):
            raise TypeError("middleware= takes a list of middleware: middleware=[mw]")
        chain = Chain(middleware or ())
        self._chain = chain if chain.middleware else None

    # -- middleware ---------------------------------------------------------------------

    def add_middleware(self, middleware: Middleware, /) -> None:
        """Add a middleware, innermost of those added so far (it runs after them).

        Raises:
            TypeError: not a callable taking ``(call, call_next)``.
        """
        with self._lock:
            current = () if self._chain is None else self._chain.middleware
            self._chain = Chain((*current, middleware))

    def middleware(self, middleware: MW, /) -> MW:
        """Decorator: `add_middleware`, returning the function unchanged."""
        self.add_middleware(middleware)
        return middleware

    # -- registering --------------------------------------------------------------------

    @overload
    def tool(self, func: Callable[P, R], /) -> Tool[P, R]: ...

    @overload
    def tool(
        self,
        func: str | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        tags: Tags = None,
        args_schema: type[Any] | None = None,
        timeout: float | None = None,
        enabled: bool = True,
        replace: bool = False,
        annotations: Mapping[str, Any] | None = None,
        requires_approval: Approval = False,
    ) -> Callable[[Callable[P, R]], Tool[P, R]]: ...

    def tool(self, func: Any = None, /, **options: Any) -> Any:
        """Decorator: turn a function into a `Tool` and register it here.

        Works bare (``@registry.tool``) and with options (``@registry.tool(tags=[...])``).
        Options: ``name``, ``description``, ``tags``, ``args_schema``, ``timeout``,
        ``enabled``, ``replace``, ``annotations`` (MCP tool annotations),
        ``requires_approval`` (docs/approval.md).
        """
        if isinstance(func, str):  # @registry.tool("name"), as LangChain allows
            options["name"], func = func, None
        if func is None:
            return lambda f: self.register(f, **options)
        return self.register(func, **options)

    tool_func = tool  # Agently's name: `@manager.tool_func`

    def register(
        self,
        obj: Any = None,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        desc: str | None = None,
        description: str | None = None,
        kwargs: Mapping[str, Any] | None = None,
        func: Callable[..., Any] | None = None,
        returns: Any = None,
        tags: Tags = None,
        args_schema: type[Any] | None = None,
        timeout: float | None = None,
        enabled: bool = True,
        replace: bool = False,
        annotations: Mapping[str, Any] | None = None,
        requires_approval: Approval | None = None,
    ) -> Tool[..., Any]:
        """Register a function, a `Tool` or a `BaseTool`; return the Tool.

        Also takes Agently's manual form, ``register(name=..., desc=..., kwargs=...,
        func=...)`` with ``kwargs`` as ``{param: (type, "description")}``, and
        RunGPT's ``register("name", func, description=...)``.

        Raises:
            DuplicateToolError: the name is taken by another tool (and not ``replace``).
            ToolDefinitionError: the function cannot be a tool as written.
        """
        if isinstance(obj, str):  # register("name", func, ...)
            obj, name = fn, obj
        elif obj is None:
            obj = func
        if obj is None:
            raise ToolDefinitionError("register() needs a function, a Tool or a BaseTool")
        description = desc if description is None else description
        extra_tags = None if tags is None else normalise_tags(tags)  # fail before storing
        described = None if isinstance(obj, (Tool, BaseTool)) else foreign(obj)
        if described is not None or isinstance(obj, (Tool, BaseTool)):
            _refuse_options(  # (a framework's tool takes a name and description of ours)
                obj,
                name=None if described is not None else name,
                description=None if described is not None else description,
                kwargs=kwargs,
                returns=returns,
                args_schema=args_schema,
                timeout=timeout,
                enabled=enabled,
                annotations=annotations,
                requires_approval=requires_approval,
            )
        if described is not None:  # a LangChain, OpenAI Agents or Pydantic AI tool
            new = foreign_tool(described, name=name, description=description)
        elif isinstance(obj, Tool):
            new = obj
        elif isinstance(obj, BaseTool):
            new = self._catalog.source_of(obj) or from_base_tool(obj)
        elif callable(obj):
            spec = build_spec(
                obj,
                name=name,
                description=description,
                args_schema=args_schema,
                manual_params=kwargs,
                returns=EMPTY if returns is None else returns,
            )
            new = Tool(
                obj,
                tags=tags,
                timeout=timeout,
                enabled=enabled,
                annotations=annotations,
                spec=spec,
                requires_approval=False if requires_approval is None else requires_approval,
            )
            extra_tags = None
        else:
            raise ToolDefinitionError(f"cannot register {obj!r}: not callable")
        self.register_many([new], replace=replace)
        if extra_tags:
            self.tag([new.name], extra_tags)
        return new

    def register_tool(
        self, tool: Tool[..., Any] | BaseTool, *, replace: bool = False
    ) -> Tool[..., Any]:
        """Register a ready `Tool` (seed 004's name)."""
        return self.register(tool, replace=replace)

    def register_many(self, tools: Iterable[Tool[..., Any]], *, replace: bool = False) -> None:
        """Register several tools atomically: all of them, or (on a clash) none."""
        self._catalog.add(list(tools), replace=replace)

    def unregister(self, name: str) -> Tool[..., Any]:
        """Remove a tool and return it.

        Raises:
            ToolNotFoundError: no tool has that name.
        """
        return self._catalog.remove(name)

    def tag(self, tool_names: str | Iterable[str], tags: str | Iterable[str]) -> None:
        """Add tags to tools, atomically: one unknown name raises before anything changes.

        Raises:
            ToolNotFoundError: a name is not registered.
        """
        names = [tool_names] if isinstance(tool_names, str) else list(tool_names)
        self._catalog.tag(names, normalise_tags(tags))

    def enable(self, name: str) -> None:
        """Enable a tool. Raises ``ToolNotFoundError`` for an unknown name."""
        self._catalog.set_enabled(name, True)

    def disable(self, name: str) -> None:
        """Disable a tool: still registered, but unlisted, unexported and uncallable."""
        self._catalog.set_enabled(name, False)

    def _selected(self, tags: Tags, match: Match) -> list[Tool[..., Any]]:
        return self._catalog.select(tags, match)

    # -- looking up ---------------------------------------------------------------------

    def get(self, name: str) -> Tool[..., Any] | None:
        """The tool registered under ``name`` (enabled or not), or ``None``."""
        return self._catalog.get(name)

    def __contains__(self, name: object) -> bool:
        return self._catalog.get(name) is not None

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool[..., Any]]:
        return iter(self._catalog.snapshot())

    def __repr__(self) -> str:
        return f"<ToolRegistry {len(self._tools)} tools>"

    def list_tools(self, tags: Tags = None, *, match: Match = "any") -> list[str]:
        """Names of the enabled tools carrying any of ``tags`` (``None``: all)."""
        return [t.name for t in self._catalog.select(tags, match)]

    def get_tool_info(
        self, tags: Tags = None, *, match: Match = "any"
    ) -> dict[str, dict[str, Any]]:
        """Agently's ``{name: {"name", "desc", "kwargs", "returns"?, "parameters"}}``."""
        return {t.name: agently_info(t.spec) for t in self._catalog.select(tags, match)}

    def get_tool_list(self, tags: Tags = None, *, match: Match = "any") -> list[dict[str, Any]]:
        """The values of `get_tool_info`, as a list."""
        return list(self.get_tool_info(tags, match=match).values())

    def get_tool_func(
        self, name: str, *, shift: Literal["sync", "async"] | None = None
    ) -> Callable[..., Any] | None:
        """The registered function as is, as a sync callable or as an async one."""
        found = self.get(name)
        if found is None:
            return None
        if shift is None:
            return found.func
        if shift == "sync":
            return syncify(found.func)
        if shift == "async":
            return asyncify(found.func)
        raise ValueError(f"shift must be None, 'sync' or 'async', not {shift!r}")

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
        self, format: str = "openai", /, *, defer: bool | str | Iterable[str] = True, k: int = 5
    ) -> ToolSearch:
        """A per-conversation tool search, for the formats without native search.

        ``.tools`` is the export to send now (the tools not deferred, ``search_tools``,
        and every tool found so far); ``.run_tool_calls(reply)`` (``await
        .async_run_tool_calls(reply)``) answers ``search_tools`` calls with the ``k``
        deferred tools found (names and descriptions) and every other call as
        `run_tool_calls` does; ``.loaded`` lists what has been found.

        Raises:
            ValueError: an unknown format, ``k`` below 1, nothing to defer, or an enabled
                tool named ``search_tools`` (it would clash with the helper's).
            TypeError: ``defer`` is none of its forms.
            ToolNotFoundError: ``defer`` names a tool that is not registered.
        """
        from .search._tool_search import ToolSearch

        return ToolSearch(self, self._catalog, self._find_tools, format, defer, k)

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


def _refuse_options(obj: Any, **options: Any) -> None:
    """A ready tool cannot take building options: refuse them rather than ignore them."""
    given = [k for k, v in options.items() if v is not None and not (k == "enabled" and v)]
    if given:
        raise ToolDefinitionError(
            f"{', '.join(given)} cannot be applied to an already built tool {obj.name!r}; "
            "pass them when building it (tags and replace are accepted here)",
            tool=obj.name,
        )
