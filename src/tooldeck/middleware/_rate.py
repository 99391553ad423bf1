"""`RateLimit`: a token bucket per key value; past the rate, a call fails at once.

In the process (the default), each bucket holds up to ``calls`` tokens and gains
``calls / per`` a second; a call takes one, or fails saying when one will be there.
Nothing waits, so both faces run it inline (one lock, held to count). With
``storage="redis://..."`` the limit lives in Redis (`tooldeck.middleware._redis`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tooldeck._result import ToolResult, clip, failure_text, outside_text, type_name

from ._call import Call
from ._select import Builtin, Key, KeyReader, check_number, key_failure

__all__ = ["RateLimit", "try_again"]

_SWEEP_AT = 4096  # buckets kept before the full ones (no different from none) are dropped


class _Buckets:
    """Token buckets by key value: ``[tokens, when last counted]``."""

    __slots__ = ("calls", "clock", "lock", "rate", "state")

    def __init__(self, calls: int, per: float, clock: Callable[[], float]) -> None:
        self.calls = calls
        self.rate = calls / per  # tokens a second
        self.clock = clock
        self.lock = threading.Lock()
        self.state: dict[Any, list[float]] = {}

    def take(self, key: Any) -> float:
        """Take a token: 0.0, or the seconds until one is there (none taken)."""
        now = self.clock()
        with self.lock:
            bucket = self.state.get(key)
            if bucket is None:
                if len(self.state) >= _SWEEP_AT:
                    self._sweep(now)
                self.state[key] = [self.calls - 1.0, now]
                return 0.0
            tokens = min(self.calls, bucket[0] + max(0.0, now - bucket[1]) * self.rate)
            # A clock gone back counts nothing, and the time already counted is not
            # counted again when it comes forward (else each step back refills).
            bucket[1] = max(bucket[1], now)
            if tokens >= 1.0:
                bucket[0] = tokens - 1.0
                return 0.0
            bucket[0] = tokens
            return (1.0 - tokens) / self.rate

    def _sweep(self, now: float) -> None:
        rate, calls = self.rate, self.calls
        for key, (tokens, then) in list(self.state.items()):
            if tokens + (now - then) * rate >= calls:
                del self.state[key]


def try_again(name: str, calls: int, per: float, wait: float) -> ToolResult:
    """The failure past the rate: which limit, and when to try again."""
    wait = max(wait, 0.001)
    return ToolResult.fail(
        f"Rate limit reached for tool '{clip(name)}' ({calls} calls per {per:g} seconds): "
        f"try again in {_seconds(wait)}"
    )


def _seconds(wait: float) -> str:
    """Seconds rounded up (to tenths, below 0.1 to thousandths): waiting that long is
    enough. (A millionth of a step below counts as the step: float noise.)"""
    if wait >= 1e6:  # (a huge ``per``): whole seconds, as wait / 0.1 could overflow
        return f"{math.ceil(wait)} seconds"
    step, digits = (0.1, 1) if wait >= 0.1 else (0.001, 3)
    shown = math.ceil(wait / step - 1e-6) * step
    text = f"{shown:.{digits}f}"
    return f"{text.rstrip('0') if digits == 3 else text} seconds"


class RateLimit(Builtin):
    """At most ``calls`` calls per ``per`` seconds (bursts of ``calls``), per key value.

    The chosen tools share one bucket per key value. Past the rate a call fails at
    once (nothing waits) with a message saying when to try again.

    Args:
        calls: The burst: how many calls a full bucket allows at once.
        per: Seconds in which the bucket refills from empty (``calls / per`` a second).
        key: ``None`` (one bucket), a context key (one bucket per value of
            ``call.context[key]``), or a callable of the `Call` returning a hashable
            value (a user, a tenant).
        clock: Seconds, monotonic (``time.monotonic``); a clock of your own in tests.
            (With ``storage``, the window runs on the processes' own clocks.)
        storage: ``"redis://host:port/db"``: keep the limit in Redis, shared by every
            process using it (needs ``tooldeck[redis]``; docs/middleware.md). ``None``:
            in this process.
        name: What names the limit in ``storage`` in place of its ``key=`` (every
            limit with one name and the same settings shares one window); needed for a
            ``key=`` callable holding what has no text the same in every process.
        tools: The names of the tools it applies to.
        tags: It applies to the tools with any of these tags (with ``tools``: either).

    Raises:
        TypeError, ValueError: an argument out of range or of the wrong type.
    """

    __slots__ = ("_buckets", "_key", "_name", "_store", "calls", "per")

    def __init__(
        self,
        calls: int,
        per: float,
        *,
        key: str | Key | None = None,
        clock: Callable[[], float] = time.monotonic,
        storage: str | None = None,
        name: str | None = None,
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> None:
        if isinstance(calls, bool) or not isinstance(calls, int):
            raise TypeError(f"RateLimit(calls): calls must be an int, not {type_name(calls)}")
        if calls < 1:
            raise ValueError(f"RateLimit(calls): calls must be at least 1, not {calls}")
        check_number(per, "RateLimit(per=)")
        try:
            calls / per
        except OverflowError:  # 10 ** 400 calls: a rate no float holds
            raise ValueError(
                f"RateLimit(calls): calls must be a rate a float can hold, not an int of "
                f"{len(str(calls))} digits"
            ) from None
        if not callable(clock):
            raise TypeError(f"RateLimit(clock=) must be callable, not {type_name(clock)}")
        if name is not None and (not isinstance(name, str) or not name):
            raise TypeError(f"RateLimit(name=) must be a non-empty str, not {name!r}")
        super().__init__(tools, tags)
        self.calls = calls
        self.per = per
        self._key = KeyReader(key)
        self._name = name
        self._buckets = _Buckets(calls, per, clock)
        self._store: Any = None
        if storage is not None:
            from ._redis import RedisRates

            self._store = RedisRates(storage, calls, per, self._state_name())

    def _state_name(self) -> str:
        """What names this limit's state in a shared storage: its settings.

        Raises:
            ValueError: a ``key=`` callable with no name the same in every process,
                and no ``name=``.
        """
        chosen = self._selection.settings()
        # key= too: a user "acme" and a tenant "acme" are not one caller; and a key=
        # callable by what it is, not its name alone (every lambda is "<lambda>").
        if self._name is not None:
            keyed = f"name={self._name!r}"
        else:
            try:
                keyed = self._key.stored_name()
            except (TypeError, ValueError, RecursionError) as exc:
                raise ValueError(
                    f"RateLimit(key=): the key callable cannot be named the same in every "
                    f"process ({exc}): give RateLimit(name=...) to name this limit in the "
                    "storage"
                ) from None
        name = f"RateLimit:{self.calls}/{self.per:g}s" + (f":{keyed}" if keyed else "")
        return name + (f":{chosen}" if chosen else "")

    def _settings(self) -> list[str]:
        shown = [str(self.calls), f"per={self.per!r}", self._key.settings()]
        if self._name is not None:
            shown.append(f"name={self._name!r}")
        if self._store is not None:
            shown.append(f"storage={self._store.shown!r}")
        return shown

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        if not self._selection.chooses(call):
            return call_next(call)
        refused = self._refusal(call)
        return call_next(call) if refused is None else refused

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self._selection.chooses(call):
            return await call_next(call)
        if self._store is None:
            refused = self._refusal(call)
        else:
            try:
                key = self._key(call)
            except Exception as exc:
                return key_failure("RateLimit", call, exc)
            try:
                wait = await self._store.atake(key)
            except Exception as exc:
                return self._unreachable(call, exc)
            refused = None if wait == 0.0 else try_again(call.name, self.calls, self.per, wait)
        return await call_next(call) if refused is None else refused

    def _refusal(self, call: Call) -> ToolResult | None:
        try:
            key = self._key(call)
        except Exception as exc:
            return key_failure("RateLimit", call, exc)
        if self._store is None:
            wait = self._buckets.take(key)
        else:
            try:
                wait = self._store.take(key)
            except Exception as exc:
                return self._unreachable(call, exc)
        if wait == 0.0:
            return None
        return try_again(call.name, self.calls, self.per, wait)

    def _unreachable(self, call: Call, exc: BaseException) -> ToolResult:
        """Closed: the call fails when the limit cannot be checked."""
        return ToolResult.fail(
            f"Rate limit for tool '{clip(call.name)}' cannot be checked: its storage "
            f"{self._store.shown} did not answer ({outside_text(failure_text(exc), 200)})",
            exception=exc,
        )
