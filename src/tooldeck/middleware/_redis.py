"""Redis as the shared state of `RateLimit` and `Cache` (extra ``redis``).

Every worker behind a load balancer that has the same middleware (the same settings)
on the same storage URL shares one state: its keys are under ``tooldeck:``, named by
the middleware and its settings.

* Rate limits go through the ``limits`` library: its Redis storage and its moving
  window (at most ``calls`` in any ``per`` seconds: the same bursts and the same
  sustained rate as the process's token bucket; the window frees a call ``per``
  seconds after it was made, where the bucket frees one every ``per / calls``).
* Answers go through the ``redis`` client: JSON under a key with the ``ttl`` as its
  expiry.

Redis is asked with short socket timeouts and no retries, so an unreachable server
costs a call a few seconds at most: then `RateLimit` fails the call (closed), naming the
storage, and `Cache` runs the tool (open). The async faces ask from a worker thread,
never blocking their event loop. The URL is shown without its password.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
import weakref
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tooldeck._result import ToolResult, clip, type_name
from tooldeck._threads import to_thread

__all__ = ["TIMEOUT", "RedisAnswers", "RedisRates", "shown_url"]

logger = logging.getLogger("tooldeck")

TIMEOUT = 2.0  # seconds for connecting and for each reply
MAX_TTL = 1e15  # seconds: a longer ttl is kept this long
PREFIX = "tooldeck"


def shown_url(url: str) -> str:
    """The storage URL as messages show it: without user or password, nor query."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return clip(url.split("@")[-1])


def _options() -> dict[str, Any]:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # No retry: redis-py's default retries three times, each up to the timeout.
    return {
        "socket_timeout": TIMEOUT,
        "socket_connect_timeout": TIMEOUT,
        "retry": Retry(NoBackoff(), 0),
    }


def _check_url(url: Any, middleware: str) -> str:
    if not isinstance(url, str) or not url.startswith(("redis://", "rediss://", "unix://")):
        what = repr(shown_url(url)) if isinstance(url, str) else type_name(url)
        raise ValueError(
            f"{middleware}(storage=) takes a Redis URL (redis://host:port/db), not {what}"
        )
    return url


def _import(middleware: str) -> None:
    try:
        import limits  # noqa: F401
        import redis  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"{middleware}(storage=...) needs Redis support: pip install 'tooldeck[redis]'"
        ) from exc


class RedisRates:
    """`RateLimit`'s state in Redis: a ``limits`` moving window per key value."""

    __slots__ = ("calls", "item", "limiter", "per", "shown")

    def __init__(self, url: str, calls: int, per: float, name: str) -> None:
        _check_url(url, "RateLimit")
        if per != int(per):
            raise ValueError(
                f"RateLimit(per=) must be a whole number of seconds with storage=, not {per!r}"
            )
        _import("RateLimit")
        from limits import RateLimitItemPerSecond
        from limits.storage import RedisStorage
        from limits.strategies import MovingWindowRateLimiter

        self.calls, self.per = calls, per
        self.shown = shown_url(url)
        storage = RedisStorage(url, key_prefix=PREFIX, wrap_exceptions=True, **_options())
        self.limiter = MovingWindowRateLimiter(storage)
        self.item = RateLimitItemPerSecond(calls, int(per), namespace=name)

    def take(self, key: str | None) -> float:
        """Take a call from the window of ``key`` (a key value's `key_text`, or None):
        0.0, or the seconds until one is free.

        Raises:
            Exception: Redis did not answer (within `TIMEOUT`).
        """
        ident = "-" if key is None else key
        if self.limiter.hit(self.item, ident):
            return 0.0
        reset = self.limiter.get_window_stats(self.item, ident).reset_time
        return max(reset - time.time(), 0.001)

    async def atake(self, key: str | None) -> float:
        return await to_thread(self.take, key)


class RedisAnswers:
    """`Cache`'s answers in Redis: plain JSON data under a key that expires.

    A key shows the cache's settings and the tool's name, then a digest of those, of
    what the tool is and of the call's key text: two services sharing one Redis, each
    with a tool of one name that is another tool, never read each other's answers.
    """

    __slots__ = ("client", "name", "shown", "tools", "ttl_ms")

    def __init__(self, url: str, ttl: float, name: str) -> None:
        _check_url(url, "Cache")
        _import("Cache")
        import redis

        self.shown = shown_url(url)
        self.client = redis.Redis.from_url(url, **_options())
        # At most what Redis takes as an expiry (a signed 64-bit count of ms from now):
        # 10 ** 15 seconds, some 31 million years, as good as forever.
        self.ttl_ms = max(1, round(min(ttl, MAX_TTL) * 1000))
        self.name = f"{PREFIX}:{name}"
        self.tools: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def _redis_key(self, key: tuple[Any, str]) -> str:
        tool, text = key
        made = self.tools.get(tool)
        if made is None:
            made = self.tools[tool] = _tool_text(tool, self.name)
        digest = hashlib.sha256((made + text).encode("utf-8", "surrogatepass")).hexdigest()
        return f"{self.name}:{tool.name}:{digest}"

    def get(self, key: tuple[Any, str]) -> ToolResult | bool:
        """The answer stored, or whether Redis answered (False: do not store either)."""
        try:
            found = self.client.get(self._redis_key(key))
        except Exception as exc:  # open: the tool runs
            self._unreachable(exc)
            return False
        if found is None:
            return True
        try:
            return ToolResult.ok(json.loads(found))
        except ValueError:  # not an answer of ours: the tool runs
            return True

    def put(self, key: tuple[Any, str], result: ToolResult) -> None:
        text = _plain_json(result.data)
        if text is None:
            return
        try:
            self.client.set(self._redis_key(key), text, px=self.ttl_ms)
        except Exception as exc:
            self._unreachable(exc)

    async def aget(self, key: tuple[Any, str]) -> ToolResult | bool:
        return await to_thread(self.get, key)

    async def aput(self, key: tuple[Any, str], result: ToolResult) -> None:
        await to_thread(self.put, key, result)

    def _unreachable(self, exc: BaseException) -> None:
        logger.warning("Cache: its storage %s did not answer (%s): the tool runs", self.shown, exc)


def _tool_text(tool: Any, name: str) -> str:
    """The cache's name and what the tool is, the same in every process running its
    code: its name, its function's module and qualified name, its description and
    schemas (each length-prefixed: no two differ only in where one ends)."""
    func = getattr(tool, "func", None)
    while isinstance(func, functools.partial):
        func = func.func
    func = getattr(func, "__func__", func)  # (a bound method: its function)
    where = f"{getattr(func, '__module__', None)}.{getattr(func, '__qualname__', None)}"
    if where == "None.None":
        where = f"{type(func).__module__}.{type(func).__qualname__}"
    spec = tool._spec
    parts = [
        name,
        tool.name,
        f"{type(tool).__module__}.{type(tool).__qualname__}",
        where,
        spec.description,
        json.dumps([spec.parameters, spec.returns], sort_keys=True, default=repr),
    ]
    return "".join(f"{len(part)}:{part}" for part in parts)


def _plain_json(data: Any) -> str | None:
    """``data`` as JSON when it reads back as the very same value, else None (a model,
    a tuple, media: what a cached answer could not give back as it was)."""
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        same = json.loads(text) == data and _same_types(json.loads(text), data)
    except Exception:
        return None
    return text if same else None


def _same_types(read: Any, data: Any) -> bool:
    if type(read) is not type(data):
        return False
    if type(data) is dict:
        return all(_same_types(read[k], v) for k, v in data.items())
    if type(data) is list:
        return all(_same_types(r, d) for r, d in zip(read, data, strict=True))
    return True
