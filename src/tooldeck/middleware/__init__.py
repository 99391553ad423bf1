"""Middleware: code that stands around every call a registry makes.

A middleware is a callable ``(call, call_next) -> ToolResult``, sync or async; `Call`
is what it sees of the call. Add it with ``ToolRegistry(middleware=[...])``,
``registry.add_middleware(mw)`` or ``@registry.middleware`` (docs/middleware.md).
The built-ins: `Retry`, `Cache`, `RateLimit`, `ConcurrencyLimit`, `LimitOutput`,
`OpenTelemetry`, each
choosing its tools with ``tools=`` / ``tags=``.
"""

from __future__ import annotations

from ._cache import Cache
from ._call import Call
from ._concurrency import ConcurrencyLimit
from ._limit_output import LimitOutput
from ._otel import OpenTelemetry
from ._rate import RateLimit
from ._retry import Retry

__all__ = [
    "Cache",
    "Call",
    "ConcurrencyLimit",
    "LimitOutput",
    "OpenTelemetry",
    "RateLimit",
    "Retry",
]
