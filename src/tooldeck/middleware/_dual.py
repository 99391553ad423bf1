"""A middleware with a form for each kind of face: the built-ins' base.

A plain middleware is sync or async, and the chain runs it on the other kind of face
by moving it: an async one onto tooldeck's background loop from a sync face, a sync
one into a worker thread from an async face. A middleware that waits (for a slot, a
rate, a backoff) or wraps the call in a context (a span) must do neither: it should
block only a sync caller's thread, and await on the caller's own loop. A
`DualMiddleware` gives the chain both forms: ``__call__`` for the sync faces,
``acall`` for the async faces; each runs inline, where the call is.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from typing import Any, TypeGuard

from tooldeck._result import ToolResult

from ._call import Call

__all__ = ["DualMiddleware"]


class DualMiddleware(abc.ABC):
    """A middleware with a sync form (``__call__``) and an async form (``acall``).

    The chain calls ``__call__(call, call_next)`` from the sync faces (``call_next``
    returns the `ToolResult`) and awaits ``acall(call, call_next)`` from the async
    faces (``call_next`` returns an awaitable of it). Both must do the same thing.
    """

    __slots__ = ()

    @abc.abstractmethod
    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        """The sync form."""

    @abc.abstractmethod
    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        """The async form."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def is_dual(mw: Any) -> TypeGuard[DualMiddleware]:
    """Whether the chain should run ``mw`` in its two forms."""
    return isinstance(mw, DualMiddleware)
