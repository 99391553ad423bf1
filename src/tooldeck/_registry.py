"""``ToolRegistry``: storage, the tag index, calls by name, exports, the default registry.

Reads on the call path (``call_tool``, ``get``) take no lock: a ``dict`` lookup is
atomic. Everything that changes the registry, and every query that walks it, holds
one re-entrant lock, so registration is atomic (seed 003: a tool is never stored
without its schema, nor half-registered) and threads registering while others call
lose nothing.
"""

from __future__ import annotations

import inspect
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from typing_extensions import ParamSpec, Self

from ._interop import agently_info, from_base_tool
from ._result import ToolResult, clip
from ._schema import EMPTY, build_spec
from ._shifting import asyncify, syncify
from ._tool import Arguments, BaseTool, Tool, normalise_tags
from .errors import DuplicateToolError, ToolDefinitionError, ToolNotFoundError

if TYPE_CHECKING:
    import fastmcp  # noqa: TID251 - a type only; tooldeck.mcp does the importing
    from starlette.applications import Starlette

__all__ = ["ToolRegistry", "tool", "tool_func"]

P = ParamSpec("P")
R = TypeVar("R")

Tags = str | Iterable[str] | None
Match = Literal["any", "all"]
EXPORT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "agently")


_default_registry: list[ToolRegistry | None] = [None]
_default_lock = threading.Lock()


class _DefaultRegistryMeta(type):
    """Methods looked up on the class itself act on ``ToolRegistry.default()``.

    ``ToolRegistry.call_tool("add", {...})`` then works like seed 004's class-level
    registry, while ``ToolRegistry()`` instances stay isolated. Only class-level
    lookups pass through here; instance calls cost nothing extra.
    """

    def __getattribute__(cls, name: str) -> Any:
        attr = super().__getattribute__(name)
        if name[0] != "_" and name != "default" and isinstance(attr, types.FunctionType):
            return types.MethodType(attr, cls.default())
        return attr

    # ``"add" in ToolRegistry``, ``len(ToolRegistry)``, ``for t in ToolRegistry``: the
    # class is usable as the default registry for the container protocol too.
    def __contains__(cls, name: object) -> bool:
        return name in ToolRegistry.default()

    def __len__(cls) -> int:
        return len(ToolRegistry.default())

    def __iter__(cls) -> Iterator[Tool[..., Any]]:
        return iter(ToolRegistry.default())

    def __bool__(cls) -> bool:  # a class stays truthy, even over an empty registry
        return True


class ToolRegistry(metaclass=_DefaultRegistryMeta):
    """A set of tools: register, query by tag, call by name, export, serve.

    ``ToolRegistry()`` is isolated. Methods called on the class itself act on the
    process-wide default registry (`default`), where the module-level
    `tooldeck.tool` registers.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool[..., Any]] = {}
        self._order: dict[str, int] = {}
        self._by_tag: dict[str, set[str]] = {}
        self._exports: dict[tuple[Any, ...], tuple[dict[str, Any], ...]] = {}
        self._lock = threading.RLock()
        self._counter = 0
        self._mcp_state: Any = None  # owned by tooldeck.mcp

    @classmethod
    def default(cls) -> ToolRegistry:
        """The process-wide default registry."""
        registry = _default_registry[0]
        if registry is None:
            with _default_lock:
                registry = _default_registry[0]
                if registry is None:
                    registry = _default_registry[0] = ToolRegistry()
        return registry

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
    ) -> Callable[[Callable[P, R]], Tool[P, R]]: ...

    def tool(self, func: Any = None, /, **options: Any) -> Any:
        """Decorator: turn a function into a `Tool` and register it here.

        Works bare (``@registry.tool``) and with options (``@registry.tool(tags=[...])``).
        Options: ``name``, ``description``, ``tags``, ``args_schema``, ``timeout``,
        ``enabled``, ``replace``, ``annotations`` (MCP tool annotations).
        """
        if isinstance(func, str):  # @registry.tool("name"), as LangChain allows
            options["name"], func = func, None
        if func is None:
            return lambda f: self.register(f, **options)
        return self.register(func, **options)

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
        if isinstance(obj, (Tool, BaseTool)):
            _refuse_options(
                obj,
                name=name,
                description=description,
                kwargs=kwargs,
                returns=returns,
                args_schema=args_schema,
                timeout=timeout,
                enabled=enabled,
                annotations=annotations,
            )
        if isinstance(obj, Tool):
            new = obj
        elif isinstance(obj, BaseTool):
            new = self._existing_source(obj) or from_base_tool(obj)
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
                obj, tags=tags, timeout=timeout, enabled=enabled, annotations=annotations, spec=spec
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
        tools = list(tools)
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise DuplicateToolError(next(n for n in names if names.count(n) > 1))
        with self._lock:
            for new in tools:
                old = self._tools.get(new.name)
                if (
                    old is not None
                    and old is not new
                    and not replace
                    and not _redefinition(old, new)
                ):
                    raise DuplicateToolError(new.name)
            for new in tools:
                self._store(new)
            self._changed()

    def _store(self, new: Tool[..., Any]) -> None:
        old = self._tools.get(new.name)
        if old is new:
            return
        if old is not None:
            self._unindex(old)
        else:
            self._counter += 1
            self._order[new.name] = self._counter
        self._tools[new.name] = new
        for tag in new.tags:
            self._by_tag.setdefault(tag, set()).add(new.name)
        new._add_owner(self)

    def _unindex(self, old: Tool[..., Any]) -> None:
        for tag in old.tags:
            names = self._by_tag.get(tag)
            if names is not None:
                names.discard(old.name)
                if not names:
                    del self._by_tag[tag]
        old._drop_owner(self)

    def _existing_source(self, obj: BaseTool) -> Tool[..., Any] | None:
        with self._lock:
            for existing in self._tools.values():
                if getattr(existing, "_source", None) is obj:
                    return existing
        return None

    def _changed(self) -> None:
        self._exports.clear()

    def unregister(self, name: str) -> Tool[..., Any]:
        """Remove a tool and return it.

        Raises:
            ToolNotFoundError: no tool has that name.
        """
        with self._lock:
            old = self._require(name)
            self._unindex(old)
            del self._tools[name]
            del self._order[name]
            self._changed()
            return old

    def tag(self, tool_names: str | Iterable[str], tags: str | Iterable[str]) -> None:
        """Add tags to tools, atomically: one unknown name raises before anything changes.

        Raises:
            ToolNotFoundError: a name is not registered.
        """
        names = [tool_names] if isinstance(tool_names, str) else list(tool_names)
        extra = normalise_tags(tags)
        with self._lock:
            targets = [self._require(name) for name in names]
            for target in targets:
                for owner in target._owner_registries():
                    owner._retag(target, normalise_tags((*target.tags, *extra)))

    def _retag(self, target: Tool[..., Any], tags: tuple[str, ...]) -> None:
        with self._lock:
            self._unindex(target)
            target._set_tags(tags)
            self._store_index(target)
            self._changed()

    def _store_index(self, target: Tool[..., Any]) -> None:
        for tag in target.tags:
            self._by_tag.setdefault(tag, set()).add(target.name)
        target._add_owner(self)

    def enable(self, name: str) -> None:
        """Enable a tool. Raises ``ToolNotFoundError`` for an unknown name."""
        self._set_enabled(name, True)

    def disable(self, name: str) -> None:
        """Disable a tool: still registered, but unlisted, unexported and uncallable."""
        self._set_enabled(name, False)

    def _set_enabled(self, name: str, enabled: bool) -> None:
        with self._lock:
            target = self._require(name)
            target._set_enabled(enabled)
            for owner in target._owner_registries():
                owner._changed()

    def _require(self, name: str) -> Tool[..., Any]:
        found = self._tools.get(name) if isinstance(name, str) else None
        if found is None:
            raise ToolNotFoundError(name)
        return found

    # -- looking up ---------------------------------------------------------------------

    def get(self, name: str) -> Tool[..., Any] | None:
        """The tool registered under ``name`` (enabled or not), or ``None``."""
        try:
            return self._tools.get(name)
        except TypeError:  # an unhashable "name"
            return None

    def __contains__(self, name: object) -> bool:
        try:
            return name in self._tools
        except TypeError:
            return False

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool[..., Any]]:
        with self._lock:
            return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        return f"<ToolRegistry {len(self._tools)} tools>"

    def _select(self, tags: Tags, match: Match) -> list[Tool[..., Any]]:
        """Enabled tools carrying any (or all) of ``tags``, in registration order."""
        if match not in ("any", "all"):
            raise ValueError(f"match must be 'any' or 'all', not {match!r}")
        with self._lock:
            if tags is None:
                return [t for t in self._tools.values() if t.enabled]
            wanted = normalise_tags(tags)
            if not wanted:
                return []
            sets = [self._by_tag.get(tag, set()) for tag in wanted]
            names = set.intersection(*sets) if match == "all" else set().union(*sets)
            tools = (self._tools[name] for name in sorted(names, key=self._order.__getitem__))
            return [t for t in tools if t.enabled]

    def list_tools(self, tags: Tags = None, *, match: Match = "any") -> list[str]:
        """Names of the enabled tools carrying any of ``tags`` (``None``: all)."""
        return [t.name for t in self._select(tags, match)]

    def get_tool_info(
        self, tags: Tags = None, *, match: Match = "any"
    ) -> dict[str, dict[str, Any]]:
        """Agently's ``{name: {"name", "desc", "kwargs", "returns"?, "parameters"}}``."""
        return {t.name: agently_info(t) for t in self._select(tags, match)}

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

    # -- calling ------------------------------------------------------------------------

    def call_tool(self, name: str, kwargs: Arguments = None) -> Any:
        """Agently's face: the value, ``"Can not find tool named '<name>'"`` or ``"Error: ..."``.

        Never raises (but for ``KeyboardInterrupt``, ``SystemExit`` and cancellation).
        """
        try:
            found = self._tools.get(name)
        except TypeError:  # an unhashable "name"
            found = None
        if found is None:
            return f"Can not find tool named '{clip(name)}'"
        return found.call(kwargs)

    async def async_call_tool(self, name: str, kwargs: Arguments = None) -> Any:
        """Async twin of `call_tool`; sync tools run in a worker thread."""
        try:
            found = self._tools.get(name)
        except TypeError:  # an unhashable "name"
            found = None
        if found is None:
            return f"Can not find tool named '{clip(name)}'"
        return await found.acall(kwargs)

    async def execute(self, name: str, arguments: Arguments = None) -> ToolResult:
        """Seed 000's face: always a `ToolResult`; ``fail("Tool '<name>' not found")``."""
        found = self.get(name)
        if found is None:
            return ToolResult.fail(f"Tool '{clip(name)}' not found")
        return await found.run(arguments)

    def execute_sync(self, name: str, arguments: Arguments = None) -> ToolResult:
        """Sync twin of `execute`."""
        found = self.get(name)
        if found is None:
            return ToolResult.fail(f"Tool '{clip(name)}' not found")
        return found.run_sync(arguments)

    def call(self, name: str, arguments: Arguments = None, /, **kwargs: Any) -> str:
        """RunGPT's face: keyword arguments in, the result's text out.

        ``registry.call("search", query="x")`` → ``str(ToolResult)``: the data (JSON
        unless it is a ``str``) or ``"Error: <message>"``.
        """
        found = self.get(name)
        if found is None:
            return f"Error: Tool '{clip(name)}' not found"
        return str(found.run_sync(arguments, **kwargs))

    # -- exporting ----------------------------------------------------------------------

    def export(
        self,
        format: str = "openai",
        *,
        tags: Tags = None,
        strict: bool = False,
        match: Match = "any",
    ) -> list[dict[str, Any]]:
        """The enabled tools in a provider's format, computed once and cached.

        Formats: ``openai`` (Chat Completions), ``openai-responses``, ``anthropic``,
        ``gemini``, ``mcp``, ``agently``. Each call returns a new list of shared,
        read-only definitions (mutating one raises ``TypeError``; ``copy.deepcopy``
        gives a plain copy), so the cache cannot be corrupted and a second export
        costs next to nothing.

        Raises:
            ValueError: an unknown format.
            ToolDefinitionError: ``strict=True`` and a tool cannot be made strict.
        """
        if format not in EXPORT_FORMATS:
            raise ValueError(
                f"unknown export format {format!r}; one of {', '.join(EXPORT_FORMATS)}"
            )
        key = (format, strict, None if tags is None else normalise_tags(tags), match)
        with self._lock:
            exported = self._exports.get(key)
            if exported is None:
                tools = self._select(tags, match)
                exported = tuple(t.export(format, strict=strict) for t in tools)
                self._exports[key] = exported
        return list(exported)

    def get_openai_tools(self, tags: Tags = None, *, strict: bool = False) -> list[dict[str, Any]]:
        """Seed 000's name: `export` in the ``openai`` (Chat Completions) format."""
        return self.export("openai", tags=tags, strict=strict)

    def get_declarations(self, tags: Tags = None, *, strict: bool = False) -> list[dict[str, Any]]:
        """Seed 003's name: ``{"name", "description", "input_schema"}`` per tool."""
        return self.export("anthropic", tags=tags, strict=strict)

    # -- MCP (extra "mcp") ----------------------------------------------------------------

    def use_mcp(
        self,
        transport: Any,
        *,
        tags: Tags = None,
        replace: bool = False,
        timeout: float | None = 60.0,
        prefix: str = "",
    ) -> list[Tool[..., Any]]:
        """Import an MCP server's tools as proxies (see `tooldeck.mcp.use_mcp`).

        ``timeout`` bounds the import and every proxied call (``None``: no bound);
        ``prefix`` is put before every remote name (``"git_"`` → ``git_status``).
        """
        from . import mcp

        return mcp.use_mcp(
            self, transport, tags=tags, replace=replace, timeout=timeout, prefix=prefix
        )

    async def async_use_mcp(
        self,
        transport: Any,
        *,
        tags: Tags = None,
        replace: bool = False,
        timeout: float | None = 60.0,
        prefix: str = "",
    ) -> list[Tool[..., Any]]:
        """Async twin of `use_mcp`."""
        from . import mcp

        return await mcp.async_use_mcp(
            self, transport, tags=tags, replace=replace, timeout=timeout, prefix=prefix
        )

    def as_mcp_server(self, name: str = "tooldeck", *, tags: Tags = None) -> fastmcp.FastMCP:
        """A ``fastmcp.FastMCP`` server serving this registry's enabled tools."""
        from . import mcp

        return mcp.as_mcp_server(self, name=name, tags=tags)

    def serve(
        self,
        transport: Literal["stdio", "http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        token: str | Mapping[str, str] | None = None,
        name: str = "tooldeck",
        tags: Tags = None,
        stateless: bool = False,
        allowed_hosts: Iterable[str] | None = None,
    ) -> None:
        """Serve the registry over MCP (stdio, or streamable HTTP at ``/mcp``)."""
        from . import mcp

        mcp.serve(
            self,
            transport=transport,
            host=host,
            port=port,
            token=token,
            name=name,
            tags=tags,
            stateless=stateless,
            allowed_hosts=allowed_hosts,
        )

    def http_app(
        self,
        path: str = "/mcp",
        *,
        token: str | Mapping[str, str] | None = None,
        stateless: bool = False,
        allowed_hosts: Iterable[str] | None = None,
        name: str = "tooldeck",
        tags: Tags = None,
    ) -> Starlette:
        """The registry's MCP server as an ASGI app (see `tooldeck.mcp.http_app`)."""
        from . import mcp

        return mcp.http_app(
            self,
            path=path,
            token=token,
            stateless=stateless,
            allowed_hosts=allowed_hosts,
            name=name,
            tags=tags,
        )

    def close(self) -> None:
        """Close the MCP sessions this registry's proxies opened."""
        if self._mcp_state is not None:
            from . import mcp

            mcp.close(self)

    async def aclose(self) -> None:
        """Async twin of `close`."""
        if self._mcp_state is not None:
            from . import mcp

            await mcp.aclose(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _refuse_options(obj: Any, **options: Any) -> None:
    """A ready tool cannot take building options: refuse them rather than ignore them."""
    given = [k for k, v in options.items() if v is not None and not (k == "enabled" and v)]
    if given:
        raise ToolDefinitionError(
            f"{', '.join(given)} cannot be applied to an already built tool {obj.name!r}; "
            "pass them when building it (tags and replace are accepted here)",
            tool=obj.name,
        )


def _redefinition(old: Tool[..., Any], new: Tool[..., Any]) -> bool:
    """The same function decorated again (e.g. on reload): it replaces the old tool."""
    a, b = old.func, new.func
    if not (inspect.isfunction(a) and inspect.isfunction(b)):
        return False  # BaseTool instances (bound methods) of one class still collide (B-001)
    qualname = b.__qualname__
    return (
        isinstance(qualname, str)
        and "<lambda>" not in qualname
        and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == qualname
    )


# -- the module-level decorator -------------------------------------------------------------


@overload
def tool(func: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
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
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(func: Any = None, /, **options: Any) -> Any:
    """Turn a function into a `Tool`, registered in the default registry.

    ``@tool``, ``@tool(...)`` and ``@tool("name")`` all work. Options: ``name``,
    ``description``, ``tags``, ``args_schema``, ``timeout``, ``enabled``, ``replace``,
    ``annotations`` (MCP tool annotations).
    """
    return ToolRegistry.default().tool(func, **options)


tool_func = tool
"""Agently's name for `tool`."""
