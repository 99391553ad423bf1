"""A batch runs once, even as text loaded twice: `UsedBatches`, the record of batches run.

A signed batch's text carries its approvals, so the same text loaded again (a form
posted twice, a queue message delivered twice) would run its approved calls again.
Each batch has an id of its own, signed into its text; ``load_tool_calls(text,
once=store)`` makes its run claim that id in ``store`` first, atomically: the first run
runs, any other is answered, call by call, that its batch has run already.

`UsedBatches()` keeps the ids in this process; ``UsedBatches(storage="redis://...")``
in Redis (``SET NX``, the batch's expiry plus `SKEW` as the key's lifetime), shared by
every process that names the same server. Any object with an atomic
``claim(id, expires) -> bool`` serves too (a database's unique key...).

A storage that does not answer fails the calls (closed): a call that might have run
already never runs on a doubt.
"""

from __future__ import annotations

import logging
import math
import threading
from typing import Any, Protocol, final

from tooldeck._result import clip
from tooldeck._threads import to_thread
from tooldeck.middleware._redis import PREFIX, _check_url, _options, shown_url

from . import _text

__all__ = ["SKEW", "Claims", "UsedBatches", "aclaim", "check_once", "claim", "replayed"]

logger = logging.getLogger("tooldeck")

# Seconds: how far the clocks of the processes sharing a store may disagree. An id is
# kept this long past its batch's expiry, so a loader whose clock is behind (and so
# still takes the text) finds it.
SKEW = 300.0


class Claims(Protocol):
    """A store of batches run, as ``load_tool_calls(once=)`` takes it."""

    def claim(self, id: str, expires: float | None, /) -> bool:
        """Atomically: ``True`` the first time ``id`` is claimed, ``False`` after."""
        ...


@final
class UsedBatches:
    """The ids of the batches that have run: ``load_tool_calls(text, once=...)``.

    ``UsedBatches()`` holds them in this process (every registry given this object
    shares it); ``UsedBatches(storage="redis://host:port/db")`` in Redis, shared by every
    process using that server (extra ``redis``). An id is kept until its batch's expiry
    (``to_json(expires_in=...)``) plus five minutes for clock skew, or for good when the
    batch has no expiry.
    """

    __slots__ = ("_client", "_lock", "_name", "_prune_at", "_until", "shown")

    def __init__(self, *, storage: str | None = None) -> None:
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()
        self._prune_at = 1024
        self._client: Any = None
        self.shown = "memory"
        if storage is not None:
            _check_url(storage, "UsedBatches")
            try:
                import redis
            except ImportError as exc:
                raise ImportError(
                    "UsedBatches(storage=...) needs Redis support: pip install 'tooldeck[redis]'"
                ) from exc
            self.shown = shown_url(storage)
            self._client = redis.Redis.from_url(storage, **_options())
        self._name = f"{PREFIX}:batch-run:"

    def __repr__(self) -> str:
        return f"UsedBatches(storage={self.shown!r})"

    def claim(self, id: str, expires: float | None) -> bool:
        """Record that batch ``id`` runs: ``True`` the first time, ``False`` after.

        ``expires``: the batch's expiry (seconds since the epoch), or ``None``.

        Raises:
            Exception: the storage did not answer.
        """
        keep = math.inf if expires is None else expires + SKEW
        if self._client is not None:
            ms = None if keep == math.inf else max(1, math.ceil((keep - _text._clock()) * 1000))
            return bool(self._client.set(self._name + id, b"1", nx=True, px=ms))
        with self._lock:
            if id in self._until:
                return False
            self._until[id] = keep
            if len(self._until) >= self._prune_at:
                self._prune()
            return True

    async def aclaim(self, id: str, expires: float | None) -> bool:
        """`claim` from async code (Redis asked from a worker thread)."""
        if self._client is None:
            return self.claim(id, expires)
        return await to_thread(self.claim, id, expires)

    def _prune(self) -> None:
        """Forget the ids past their keeping (their text no longer loads anyway)."""
        now = _text._clock()
        self._until = {id: keep for id, keep in self._until.items() if keep > now}
        self._prune_at = max(1024, 2 * len(self._until))


def check_once(once: Any) -> Any:
    """``once`` as ``load_tool_calls`` takes it: ``None`` or a store with ``claim``."""
    if once is not None and not callable(getattr(once, "claim", None)):
        raise TypeError(
            f"once must be a store of batches run (UsedBatches(), or any object with "
            f"claim(id, expires) -> bool), not {clip(once)}"
        )
    return once


def claim(once: Any, id: str, expires: float | None) -> str | None:
    """Claim batch ``id`` in ``once``: ``None`` (the first run), or why its calls do not
    run (after "Tool '<name>' was not run: ")."""
    try:
        first = once.claim(id, expires)
    except Exception as exc:
        return _unanswered(once, exc)
    return None if first is True else replayed()


async def aclaim(once: Any, id: str, expires: float | None) -> str | None:
    """Async twin of `claim` (a store without ``aclaim`` asked from a worker thread)."""
    try:
        asynchronous = getattr(once, "aclaim", None)
        if callable(asynchronous):
            first = await asynchronous(id, expires)
        else:
            first = await to_thread(once.claim, id, expires)
    except Exception as exc:
        return _unanswered(once, exc)
    return None if first is True else replayed()


def replayed() -> str:
    """Why a call of a batch that ran already does not run."""
    return "its batch of calls has run already (a batch runs once)"


def _unanswered(once: Any, exc: BaseException) -> str:
    shown = getattr(once, "shown", None) or type(once).__name__
    logger.warning("once: the storage %s did not answer (%s): nothing runs", shown, exc)
    return (
        "whether its batch of calls has run already cannot be "
        f"checked (its storage {clip(shown)} did not answer)"
    )
