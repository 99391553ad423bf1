"""The whole exception hierarchy of tooldeck.

Definition mistakes (raised to the developer, at decoration, registration or export)
are kept apart from call failures, which never raise: they come back as an
``"Error: ..."`` string or a failed `ToolResult`.
Each error also subclasses the matching built-in, so ``except TypeError`` or
``except ValueError`` written against the seed systems keeps working.
"""

from __future__ import annotations

__all__ = [
    "DuplicateToolError",
    "MCPAuthError",
    "MCPConnectionError",
    "MCPTimeoutError",
    "ToolDeckError",
    "ToolDefinitionError",
    "ToolNotFoundError",
]


class ToolDeckError(Exception):
    """Root of every exception tooldeck raises."""


class ToolDefinitionError(ToolDeckError, TypeError):
    """A tool cannot be built or exported as written.

    Raised at decoration time (or at export, for a schema a provider cannot accept),
    never during a call.

    Attributes:
        tool: The tool's (or function's) name, when known.
        param: The offending parameter, when the problem is one parameter.
        reason: What is wrong and how to fix it.
    """

    def __init__(self, reason: str, *, tool: str | None = None, param: str | None = None) -> None:
        self.tool = tool
        self.param = param
        self.reason = reason
        where = ""
        if tool is not None:
            where = f"tool {tool!r}"
            if param is not None:
                where += f", parameter {param!r}"
            where += ": "
        super().__init__(where + reason)


class DuplicateToolError(ToolDeckError, ValueError):
    """A second, different tool was registered under a name already taken.

    Attributes:
        name: The contested tool name.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Tool {name!r} is already registered; pass replace=True to replace it")


class ToolNotFoundError(ToolDeckError, LookupError):
    """A developer-facing registry call named a tool that is not registered.

    Attributes:
        name: The unknown tool name.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Tool {name!r} is not registered")

    def __str__(self) -> str:  # LookupError would repr() the args otherwise
        return str(self.args[0])


class MCPConnectionError(ToolDeckError, ConnectionError):
    """An MCP server's tools could not be imported: it could not be reached or listed.

    Attributes:
        server: The server as tooldeck names it (its URL without credentials or query,
            its command's base name, its MCP name): never a secret or a local path.
        reason: What went wrong, in one line.
    """

    def __init__(self, server: str, reason: str) -> None:
        self.server = server
        self.reason = reason
        super().__init__(f"cannot import the tools of MCP server {server}: {reason}")

    def __str__(self) -> str:  # OSError would format its args otherwise
        return str(self.args[0])


class MCPAuthError(MCPConnectionError, PermissionError):
    """An MCP server refused our credentials (HTTP 401 or 403).

    Attributes:
        url: The URL that answered, without credentials or query string.
        status: The HTTP status (401: no or a wrong token; 403: not allowed).
    """

    def __init__(self, server: str, reason: str, *, url: str, status: int) -> None:
        self.url = url
        self.status = status
        super().__init__(server, reason)


class MCPTimeoutError(MCPConnectionError, TimeoutError):
    """An MCP server did not finish answering within the ``timeout`` of ``use_mcp``.

    Attributes:
        timeout: The timeout, in seconds.
    """

    def __init__(self, server: str, reason: str, *, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(server, reason)
