"""``ToolRegistry``: the registry users hold, the process-wide default, ``@tool``.

`ToolRegistry` is `tooldeck._base_registry.BaseRegistry` plus the methods that reach
the MCP edge (``use_mcp``, ``serve``...). The edge (`tooldeck.mcp`) depends on the
core registry, never the reverse; this module, above both, imports the edge only
when one of those methods is called, so ``import tooldeck`` stays light.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from typing_extensions import ParamSpec, Self

from ._base_registry import BaseRegistry, Match, Tags
from ._tool import Approval, Tool

if TYPE_CHECKING:
    import fastmcp  # noqa: TID251 - a type only; tooldeck.mcp does the importing
    from fastmcp.server.auth import AuthProvider  # noqa: TID251 - a type only
    from starlette.applications import Starlette

__all__ = ["ToolRegistry", "tool", "tool_func"]

P = ParamSpec("P")
R = TypeVar("R")

# Values for injected parameters of served tools: a mapping, or a callable of the
# request's fastmcp.Context returning one (see tooldeck.mcp.as_mcp_server).
ServedContext = Mapping[str, Any] | Callable[[Any], Any] | None

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


class ToolRegistry(BaseRegistry, metaclass=_DefaultRegistryMeta):
    """A set of tools: register, query by tag, call by name, export, serve.

    ``ToolRegistry()`` is isolated. Methods called on the class itself act on the
    process-wide default registry (`default`), where the module-level
    `tooldeck.tool` registers.

    Args:
        middleware: Callables ``(call, call_next) -> ToolResult``, sync or async, run
            around every call the registry makes by name, the first outermost
            (docs/middleware.md); more with `add_middleware` or ``@registry.middleware``.
        embed: A function ``fn(list[str]) -> list[list[float]]`` embedding texts, for
            `search` by meaning as well as by words (docs/search.md).
    """

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

    # -- MCP (extra "mcp") ----------------------------------------------------------------

    def use_mcp(
        self,
        transport: Any,
        *,
        tags: Tags = None,
        replace: bool = False,
        timeout: float | None = 60.0,
        prefix: str = "",
        requires_approval: Approval = False,
    ) -> list[Tool[..., Any]]:
        """Import an MCP server's tools as proxies (see `tooldeck.mcp.use_mcp`).

        ``timeout`` bounds the import and every proxied call (``None``: no bound);
        ``prefix`` is put before every remote name (``"git_"`` → ``git_status``);
        ``requires_approval`` applies to every proxy (docs/approval.md).
        """
        from . import mcp

        return mcp.use_mcp(
            self,
            transport,
            tags=tags,
            replace=replace,
            timeout=timeout,
            prefix=prefix,
            requires_approval=requires_approval,
        )

    async def async_use_mcp(
        self,
        transport: Any,
        *,
        tags: Tags = None,
        replace: bool = False,
        timeout: float | None = 60.0,
        prefix: str = "",
        requires_approval: Approval = False,
    ) -> list[Tool[..., Any]]:
        """Async twin of `use_mcp`."""
        from . import mcp

        return await mcp.async_use_mcp(
            self,
            transport,
            tags=tags,
            replace=replace,
            timeout=timeout,
            prefix=prefix,
            requires_approval=requires_approval,
        )

    def as_mcp_server(
        self,
        name: str = "tooldeck",
        *,
        tags: Tags = None,
        match: Match = "any",
        context: ServedContext = None,
        defer: bool | str | Iterable[str] | None = None,
    ) -> fastmcp.FastMCP:
        """A ``fastmcp.FastMCP`` server serving this registry's enabled tools (see
        `tooldeck.mcp.as_mcp_server`)."""
        from . import mcp

        return mcp.as_mcp_server(
            self, name=name, tags=tags, match=match, context=context, defer=defer
        )

    def serve(
        self,
        transport: Literal["stdio", "http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        token: str | Mapping[str, str] | None = None,
        name: str = "tooldeck",
        tags: Tags = None,
        match: Match = "any",
        stateless: bool = False,
        allowed_hosts: Iterable[str] | None = None,
        context: ServedContext = None,
        max_sessions_per_client: int | None = None,
        session_idle_timeout: float | None = None,
        auth: AuthProvider | None = None,
        defer: bool | str | Iterable[str] | None = None,
    ) -> None:
        """Serve the registry over MCP (stdio, or streamable HTTP at ``/mcp``; see
        `tooldeck.mcp.serve`)."""
        from . import mcp

        mcp.serve(
            self,
            transport=transport,
            host=host,
            port=port,
            token=token,
            name=name,
            tags=tags,
            match=match,
            stateless=stateless,
            allowed_hosts=allowed_hosts,
            context=context,
            max_sessions_per_client=max_sessions_per_client,
            session_idle_timeout=session_idle_timeout,
            auth=auth,
            defer=defer,
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
        match: Match = "any",
        context: ServedContext = None,
        max_sessions_per_client: int | None = None,
        session_idle_timeout: float | None = None,
        auth: AuthProvider | None = None,
        defer: bool | str | Iterable[str] | None = None,
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
            match=match,
            context=context,
            max_sessions_per_client=max_sessions_per_client,
            session_idle_timeout=session_idle_timeout,
            auth=auth,
            defer=defer,
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
    requires_approval: Approval = False,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(func: Any = None, /, **options: Any) -> Any:
    """Turn a function into a `Tool`, registered in the default registry.

    ``@tool``, ``@tool(...)`` and ``@tool("name")`` all work. Options: ``name``,
    ``description``, ``tags``, ``args_schema``, ``timeout``, ``enabled``, ``replace``,
    ``annotations`` (MCP tool annotations), ``requires_approval`` (docs/approval.md).
    """
    return ToolRegistry.default().tool(func, **options)


tool_func = tool
"""Agently's name for `tool`."""
