"""A registry of proxies for `tooldeck --tools remote_tools:registry`: an in-process
MCP server whose tool names, tags, descriptions, results and errors carry terminal
escapes, a carriage return and a bell (what a hostile or careless server may send).
"""

from __future__ import annotations

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

from tooldeck import ToolRegistry

HOSTILE = "\x1b[2J\x1b]0;pwned\x07owned\rover\u2028written\x9b31m"

server = FastMCP("hostile")


@server.tool(description=f"Fail{HOSTILE}", tags={f"t{HOSTILE}"})
def fail() -> str:
    raise ToolError(f"remote failure {HOSTILE}")


@server.tool(description=f"Answer{HOSTILE}\nsecond line")
def answer() -> str:
    return f"remote answer {HOSTILE}"


@server.tool(description="Answer a structure")
def structure() -> dict[str, str]:
    return {f"key{HOSTILE}": f"value{HOSTILE}"}


registry = ToolRegistry()
registry.use_mcp(server)
