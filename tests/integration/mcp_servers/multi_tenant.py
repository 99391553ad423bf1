"""A multi-tenant MCP server: who calls is known by its bearer token (or a header).

Usage: ``python multi_tenant.py PORT token|header``. ``my_orders`` answers the orders of
the user the call acts for; the user comes from the request, never from the model.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

from fastmcp.server.dependencies import get_http_headers

from tooldeck import Injected, ToolRegistry
from tooldeck.mcp import client_id

ORDERS = {"alice": ["book", "pen"], "bob": ["lamp"]}
shop = ToolRegistry()


@shop.tool
def my_orders(user: Annotated[str, Injected], status: str = "open") -> list[str]:
    """The caller's orders."""
    return [f"{status}:{item}" for item in ORDERS.get(user, [])]


@shop.tool
async def whoami(user: Annotated[str, Injected("user")]) -> str:
    """The user this call acts for."""
    return user


def by_token(request: Any) -> dict[str, Any]:
    return {"user": client_id(request)}


def by_header(request: Any) -> dict[str, Any]:
    # A gateway in front may name the user in a header it sets itself.
    user = get_http_headers(include_all=True).get("x-user")
    return {"user": user} if user else {}


if __name__ == "__main__":
    port, how = int(sys.argv[1]), sys.argv[2]
    if how == "token":
        shop.serve("http", port=port, token={"t-alice": "alice", "t-bob": "bob"}, context=by_token)
    else:
        shop.serve("http", port=port, context=by_header)
