"""The core of a registry: registering, looking up, calling by name, exporting.

`BaseRegistry` is everything a `tooldeck.ToolRegistry` does except reach the MCP
edge, which sits above it (`tooldeck._registry` adds those methods). Its storage and
tag index are a `tooldeck._catalog.Catalog`; the tools themselves do the calling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from typing_extensions import ParamSpec

from ._agently import agently_info
from ._catalog import Catalog, Match, Tags
from ._registry_exports import EXPORT_FORMATS, Exports
from ._schema import build_spec
from ._schema_tools import foreign_tool, from_base_tool
from ._shifting import asyncify, syncify
from ._spec import EMPTY
from ._tool import Approval, BaseTool, Tool, normalise_tags
from .errors import ToolDefinitionError
from .frameworks import RegistryBridges, foreign
from .middleware._chain import Chain, Middleware

if TYPE_CHECKING:
    pass

__all__ = ["EXPORT_FORMATS", "BaseRegistry", "Match", "Tags"]

P = ParamSpec("P")
R = TypeVar("R")
MW = TypeVar("MW", bound=Callable[..., Any])


class BaseRegistry(RegistryBridges, Exports):
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
            ours = described is not None  # (a framework's tool: these options are ours)
            _refuse_options(
                obj,
                name=None if ours else name,
                description=None if ours else description,
                kwargs=kwargs,
                returns=returns,
                args_schema=args_schema,
                timeout=None if ours else timeout,
                enabled=ours or enabled,
                annotations=annotations,
                requires_approval=None if ours else requires_approval,
            )
        if described is not None:  # a LangChain, OpenAI Agents or Pydantic AI tool
            new = foreign_tool(
                described,
                name=name,
                description=description,
                timeout=timeout,
                requires_approval=requires_approval,
                enabled=enabled,
            )
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


def _refuse_options(obj: Any, **options: Any) -> None:
    """A ready tool cannot take building options: refuse them rather than ignore them."""
    given = [k for k, v in options.items() if v is not None and not (k == "enabled" and v)]
    if given:
        raise ToolDefinitionError(
            f"{', '.join(given)} cannot be applied to an already built tool {obj.name!r}; "
            "pass them when building it (tags and replace are accepted here)",
            tool=obj.name,
        )
