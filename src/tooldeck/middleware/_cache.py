"""`Cache`: a call answered from an earlier success of the same tool with the same
validated arguments (and the same values of the context keys it varies on).

The key is the tool and a text of its validated arguments (validated by the tool's own
validator, as its pipeline will, so ``{"n": "5"}`` and ``{"n": 5}`` for an ``int`` are
one call) and of the values of the ``vary`` context keys: one text for values the tool
cannot tell apart, never one for two that it can (`tooldeck.middleware._keys`). A
failure is never stored. A tool whose injected parameters read context keys not in
``vary`` is never cached (its answer may differ per user): its calls pass through, and
a warning says so once per tool. In the process the store is a ``cachetools.TTLCache``
under a lock; with ``storage="redis://..."``, Redis (`tooldeck.middleware._redis`).
"""

from __future__ import annotations

import copy
import logging
import pickle
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tooldeck._result import ToolResult, ok, type_name
from tooldeck._tool import Tool

from ._call import Call
from ._keys import call_text
from ._select import Builtin, check_number, names

__all__ = ["Cache"]

logger = logging.getLogger("tooldeck")

_HINTS = ("readOnlyHint", "idempotentHint")


class Cache(Builtin):
    """Answers a call from an earlier success of the same tool with the same arguments.

    When neither ``tools`` nor ``tags`` is given, only tools annotated ``readOnlyHint``
    or ``idempotentHint`` are cached. The values of the context keys in ``vary`` are
    part of the key; a tool with injected parameters is cached only when ``vary`` names
    every context key they read (else its calls pass through uncached, with a warning
    once): one user's answer never reaches another. Failures are never cached. Each
    call answered from the cache gets a copy of its own (a value that cannot change,
    a str or a number, as it is): a caller changing its answer changes no other's.

    Args:
        ttl: Seconds an answer is kept.
        maxsize: Answers kept in the process (the least recently used go first); Redis
            keeps what its own memory policy keeps.
        vary: Context keys whose values are part of the key.
        clock: Seconds, monotonic, for the process's store (a clock of your own in tests).
        storage: ``"redis://host:port/db"``: keep the answers in Redis, shared by every
            process using it (needs ``tooldeck[redis]``); only answers that are plain
            JSON data are stored there. ``None``: in this process.
        tools: The names of the tools it applies to.
        tags: It applies to the tools with any of these tags (with ``tools``: either).

    Raises:
        TypeError, ValueError: an argument out of range or of the wrong type.
    """

    __slots__ = ("_lock", "_store", "_warned", "maxsize", "ttl", "vary")

    def __init__(
        self,
        ttl: float,
        maxsize: int = 1024,
        *,
        vary: str | Iterable[str] = (),
        clock: Callable[[], float] = time.monotonic,
        storage: str | None = None,
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
    ) -> None:
        check_number(ttl, "Cache(ttl)")
        if isinstance(maxsize, bool) or not isinstance(maxsize, int):
            raise TypeError(f"Cache(maxsize): maxsize must be an int, not {type_name(maxsize)}")
        if maxsize < 1:
            raise ValueError(f"Cache(maxsize): maxsize must be at least 1, not {maxsize}")
        if not callable(clock):
            raise TypeError(f"Cache(clock=) must be callable, not {type_name(clock)}")
        super().__init__(tools, tags)
        self.ttl = ttl
        self.maxsize = maxsize
        self.vary: tuple[str, ...] = tuple(sorted(names(vary, "vary") or ()))
        self._lock = threading.Lock()
        self._warned: set[str] = set()  # the tools a warning named
        self._store: Any
        if storage is None:
            from cachetools import TTLCache  # (pure Python, imported when a Cache is made)

            self._store = _Local(TTLCache(maxsize, ttl, timer=clock), self._lock)
        else:
            from ._redis import RedisAnswers

            self._store = RedisAnswers(storage, ttl, self._state_name())

    def _state_name(self) -> str:
        chosen = self._selection.settings()
        vary = ",".join(self.vary)
        return f"Cache:ttl={self.ttl:g}:vary={vary}" + (f":{chosen}" if chosen else "")

    def _settings(self) -> list[str]:
        shown = [f"ttl={self.ttl!r}", f"maxsize={self.maxsize}"]
        if self.vary:
            shown.append(f"vary={list(self.vary)!r}")
        if not isinstance(self._store, _Local):
            shown.append(f"storage={self._store.shown!r}")
        return shown

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        key = self._key(call)
        if key is None:
            return call_next(call)
        store = self._store
        found = store.get(key)
        if found.__class__ is ToolResult:
            return found
        result = call_next(call)
        if result.success and found:  # (False: the storage did not answer)
            store.put(key, result)
        return result

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        key = self._key(call)
        if key is None:
            return await call_next(call)
        store = self._store
        found = await store.aget(key)
        if found.__class__ is ToolResult:
            return found
        result = await call_next(call)
        if result.success and found:
            await store.aput(key, result)
        return result

    # -- the key ---------------------------------------------------------------------

    def _key(self, call: Call) -> tuple[Tool[..., Any], str] | None:
        """The call's key, or None when it is not to be cached."""
        tool = call._tool
        if not self._caches(call, tool):
            return None
        arguments: Any = call._arguments
        sent = call._extra[0] if call._extra is not None else None
        if sent is not None and sent[1] is arguments:  # JSON text: validated as the tool will
            arguments = sent[0]
        try:
            validated = tool._validate(arguments)
        except Exception:  # invalid: not cached, and the tool's pipeline says why
            return None
        context = call._context or {}
        vary = {key: context[key] for key in self.vary if key in context}
        try:
            return tool, call_text(validated, vary)
        except Exception:  # a value it cannot tell apart from others: not cached
            return None

    def _caches(self, call: Call, tool: Tool[..., Any]) -> bool:
        """Whether ``tool``'s calls are cached at all."""
        if self._selection.given:
            chosen = self._selection.chooses(call)
        else:
            hints = tool._annotations or {}
            chosen = any(hints.get(hint) is True for hint in _HINTS)
        if not chosen:
            return False
        if not tool._injected:
            return True
        unvaried = sorted({i.key for i in tool._injected if not i.whole} - set(self.vary))
        if any(i.whole for i in tool._injected):  # a framework's tool: any key at all
            unvaried.append("* (all of them)")
        if unvaried:
            with self._lock:
                first = tool.name not in self._warned
                self._warned.add(tool.name)
            if first:
                logger.warning(
                    "Cache: tool %r is not cached: its injected parameters read the context "
                    "keys %s, which vary= does not name (one user's answer must never reach "
                    "another)",
                    tool.name,
                    ", ".join(unvaried),
                )
            return False
        return True


class _Local:
    """The process's store: a ``TTLCache`` of answers, under a lock.

    Each caller gets an answer of its own: a caller changing its list or model must
    not change the next caller's answer. So a value that could be changed is stored as
    a copy (pickled: some twenty times faster than ``copy.deepcopy``; a deep copy for
    what pickle cannot write, a class defined in a function) and each answer from the
    cache is a new copy of it. (Not ``marshal``, faster still: it writes a bytearray,
    or anything with the buffer protocol, as bytes.) Values that cannot change (a str,
    a number, None, a tuple of them) are handed out as they are. What can be copied
    neither way (a lock) is not stored.
    """

    __slots__ = ("cache", "lock")

    def __init__(self, cache: Any, lock: threading.Lock) -> None:
        self.cache = cache
        self.lock = lock

    def get(self, key: Any) -> ToolResult | bool:
        """The answer stored (the caller's own), or True (none: store one)."""
        with self.lock:
            try:
                found = self.cache[key]  # (one timed lookup)
            except KeyError:
                return True
        if found.__class__ is ToolResult:
            return found  # (its value cannot change)
        return found.answer()  # type: ignore[no-any-return]

    def put(self, key: Any, result: ToolResult) -> None:
        kept = _kept(result)
        if kept is not None:
            with self.lock:
                self.cache[key] = kept

    async def aget(self, key: Any) -> ToolResult | bool:
        return self.get(key)

    async def aput(self, key: Any, result: ToolResult) -> None:
        self.put(key, result)


_UNCHANGING = frozenset({str, int, float, bool, type(None), bytes, complex})


def _kept(result: ToolResult) -> ToolResult | _Copy | None:
    """What the store keeps of ``result``: itself when its value cannot change, else a
    copy to copy again for each answer; None when it cannot be copied."""
    data = result.data
    kind = data.__class__
    if kind in _UNCHANGING or (
        kind is tuple and all(item.__class__ in _UNCHANGING for item in data)
    ):
        return result
    try:
        return _Copy(pickle.dumps(data, pickle.HIGHEST_PROTOCOL), pickle.loads)
    except Exception:  # (a class defined in a function, a lambda...)
        pass
    try:
        return _Copy(copy.deepcopy(data), copy.deepcopy)
    except Exception:  # a lock, a generator: not one value for two callers
        return None


class _Copy:
    """A value kept apart from every caller's, and how to make each answer's copy."""

    __slots__ = ("copy", "kept")

    def __init__(self, kept: Any, copy: Callable[[Any], Any]) -> None:
        self.kept = kept
        self.copy = copy

    def answer(self) -> ToolResult:
        return ok(self.copy(self.kept))
