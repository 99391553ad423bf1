"""A raw MCP-over-HTTP client's first request, for tests that speak to a served
registry with plain httpx (headers, status codes, sessions) rather than a fastmcp
Client."""

from __future__ import annotations

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
