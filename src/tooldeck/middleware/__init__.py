"""Middleware: code that stands around every call a registry makes.

A middleware is a callable ``(call, call_next) -> ToolResult``, sync or async; `Call`
is what it sees of the call. Add it with ``ToolRegistry(middleware=[...])``,
``registry.add_middleware(mw)`` or ``@registry.middleware`` (docs/middleware.md).
The built-ins (`ConcurrencyLimit`) choose their tools with ``tools=`` / ``tags=``.
"""

from __future__ import annotations

from ._call import Call
from ._concurrency import ConcurrencyLimit

__all__ = ["Call", "ConcurrencyLimit"]
