"""`Retry`: calls again when the tool raised one of the given exceptions.

Only a failure whose exception the tool itself raised is retried: a refusal before the
tool ran never is — invalid arguments (a pydantic ``ValidationError``, or tooldeck's own
words for a schema tool), a missing context value, a disabled tool —, nor a failure
with no exception (a middleware's refusal, a ``ToolResult.fail`` the tool returned).
Waiting between attempts sleeps the caller's thread on a sync face, and awaits on an
async face (the event loop keeps running). A sync face called where an event loop runs
(from a coroutine, or an async tool calling ``call_tool`` on tooldeck's loop) never
sleeps: that would freeze the loop's other tasks. There a retry that has to wait is not
made; the last attempt's failure is the answer, and a warning says to use an async face.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable, Iterable

from pydantic_core import ValidationError

from tooldeck._result import CallFailure, ToolResult, clip, type_name

from ._call import Call
from ._select import Builtin, check_number, in_a_loop

__all__ = ["Retry"]

Backoff = float | Callable[[int], float]

# Failures decided before (or around) the tool's own code: the same call fails the same.
_NEVER = (ValidationError, CallFailure)

# The longest wait: what a thread can sleep (a longer one raises OverflowError), some
# 292 years, as good as forever (a backoff doubled past it, or a callable's).
MAX_WAIT = threading.TIMEOUT_MAX

logger = logging.getLogger("tooldeck")

# Looked up at each wait, so tests can replace them.
_sleep = time.sleep
_asleep = asyncio.sleep


class Retry(Builtin):
    """Calls the tool again when it raised one of ``retry_on``, up to ``attempts`` calls.

    A validation failure is never retried, nor any failure decided before the tool ran.

    Args:
        attempts: Calls in all, the first included (``1``: no retry).
        backoff: Seconds to wait after the first failed attempt, doubled after each
            one; or a callable of the attempt number (1, 2...) that failed, returning
            the seconds to wait.
        retry_on: The exception types (raised by the tool) worth another attempt: by
            default ``ConnectionError`` and ``TimeoutError`` (a tool's timeout included).
        tools: The names of the tools it applies to.
        tags: It applies to the tools with any of these tags (with ``tools``: either).

    Raises:
        TypeError, ValueError: an argument out of range or of the wrong type.
    """

    __slots__ = ("attempts", "backoff", "retry_on")

    def __init__(
        self,
        attempts: int = 3,
        *,
        backoff: Backoff = 0.1,
        retry_on: type[BaseException] | Iterable[type[BaseException]] = (
            ConnectionError,
            TimeoutError,
        ),
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> None:
        if isinstance(attempts, bool) or not isinstance(attempts, int):
            raise TypeError(f"Retry(attempts): attempts must be an int, not {type_name(attempts)}")
        if attempts < 1:
            raise ValueError(f"Retry(attempts): attempts must be at least 1, not {attempts}")
        if not callable(backoff):
            check_number(backoff, "Retry(backoff)", positive=False)
        super().__init__(tools, tags)
        self.attempts = attempts
        self.backoff = backoff
        self.retry_on = _exception_types(retry_on)

    def _settings(self) -> list[str]:
        kinds = ", ".join(kind.__name__ for kind in self.retry_on)
        return [f"attempts={self.attempts}", f"backoff={self.backoff!r}", f"retry_on=({kinds})"]

    def _again(self, result: ToolResult, attempt: int) -> float | None:
        """Seconds to wait before another attempt, or None: this result is the answer."""
        if result.success or attempt >= self.attempts:
            return None
        exc = result.exception
        if exc is None or isinstance(exc, _NEVER) or not isinstance(exc, self.retry_on):
            return None
        backoff = self.backoff
        if callable(backoff):
            wait = backoff(attempt)
            check_number(wait, "Retry(backoff) returned a wait that", positive=False)
            return float(min(wait, MAX_WAIT))
        try:  # (0.0 * 2 ** 1024 would raise OverflowError: the int is no float)
            return min(math.ldexp(backoff, attempt - 1), MAX_WAIT)
        except OverflowError:  # doubled past what a float holds
            return MAX_WAIT

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        if not self._selection.chooses(call):
            return call_next(call)
        attempt = 1
        while True:
            result = call_next(call)
            wait = self._again(result, attempt)
            if wait is None:
                return result
            if wait > 0:
                if in_a_loop():  # a sync call from a coroutine: sleeping would block its loop
                    self._no_wait_here(call)
                    return result
                _sleep(wait)
            attempt += 1

    def _no_wait_here(self, call: Call) -> None:
        logger.warning(
            "Retry did not call tool '%s' again: it was called through a sync face inside "
            "a running event loop, which waiting between attempts would block; call it "
            "through an async face (await async_call_tool or execute) to have it retried",
            clip(call.name),
        )

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self._selection.chooses(call):
            return await call_next(call)
        attempt = 1
        while True:
            result = await call_next(call)
            wait = self._again(result, attempt)
            if wait is None:
                return result
            if wait > 0:
                await _asleep(wait)
            attempt += 1


def _exception_types(
    retry_on: type[BaseException] | Iterable[type[BaseException]],
) -> tuple[type[BaseException], ...]:
    kinds = (retry_on,) if isinstance(retry_on, type) else retry_on
    try:
        found = tuple(kinds)
    except TypeError:
        raise TypeError(
            f"Retry(retry_on=) takes exception types, not {type_name(retry_on)}"
        ) from None
    for kind in found:
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise TypeError(f"Retry(retry_on=) takes exception types, not {kind!r}")
    return found
