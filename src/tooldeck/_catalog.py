"""A registry's storage: tools by name, in registration order, with a tag index.

Reads on the call path (`Catalog.get`) take no lock: a ``dict`` lookup is atomic.
Everything that changes the catalog, and every query that walks it, holds one
re-entrant lock, so registration is atomic (seed 003: a tool is never stored without
its schema, nor half-registered) and threads registering while others call lose
nothing.

A `Tool` may sit in several catalogs (registries) at once; this module knows which
(weakly), so that a change of its tags reaches every index. Locks are never nested
across catalogs: a tool's tags change under one process-wide lock, which is released
before each catalog re-indexes it under its own lock, so two threads tagging a shared
tool from two registries cannot deadlock.
"""

from __future__ import annotations

import inspect
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, Literal

from ._tool import Tool, normalise_tags
from .errors import DuplicateToolError, ToolNotFoundError

__all__ = ["Catalog", "Match", "Tags"]

Tags = str | Iterable[str] | None
Match = Literal["any", "all"]

# Every catalog, so that a forked child can replace locks another thread held.
_catalogs: weakref.WeakSet[Catalog] = weakref.WeakSet()

# Which catalogs hold each tool, weakly both ways. A tool's tags, its enabled flag and
# its holders change under this one lock, for every tool; it is never held while a
# catalog re-indexes (each takes its own lock), so no two locks ever nest that way.
_holders: weakref.WeakKeyDictionary[Tool[..., Any], tuple[weakref.ref[Catalog], ...]] = (
    weakref.WeakKeyDictionary()
)
_shared_lock = threading.Lock()


class Catalog:
    """Tools by name and by tag, kept consistent under one lock."""

    def __init__(self) -> None:
        self.tools: dict[str, Tool[..., Any]] = {}  # read without the lock: lookups only
        # The names of the tools that need approval (`requires_approval`): a model's turn
        # that calls none of them (or a registry without any) takes its plain path.
        self.gated: set[str] = set()
        self.lock = threading.RLock()
        self.order: dict[str, int] = {}  # name → when it was first registered
        self._counter = 0
        self._by_tag: dict[str, set[str]] = {}
        self._indexed: dict[str, tuple[str, ...]] = {}  # the tags each name is indexed under
        self._exports: dict[tuple[Any, ...], tuple[dict[str, Any], ...]] = {}
        # tooldeck.search's index, made on the first search; told of every name that
        # comes, changes or goes (it re-reads them on its next search).
        self.search_index: Any = None
        _catalogs.add(self)

    # -- changing ------------------------------------------------------------------------

    def add(self, tools: list[Tool[..., Any]], *, replace: bool) -> None:
        """Store several tools atomically: all of them, or (on a clash) none.

        Raises:
            DuplicateToolError: two of ``tools`` share a name, or a name is taken by
                another tool (and not ``replace``, nor a redefinition of the same
                function).
        """
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise DuplicateToolError(next(n for n in names if names.count(n) > 1))
        with self.lock:
            for new in tools:
                old = self.tools.get(new.name)
                if old is not None and old is not new and not replace and not _redefined(old, new):
                    raise DuplicateToolError(new.name)
            for new in tools:
                self._store(new)
            self.changed()

    def _store(self, new: Tool[..., Any]) -> None:
        old = self.tools.get(new.name)
        if old is new:
            return
        if old is not None:
            self._unindex(old.name)
            _release(old, self)
        else:
            self._counter += 1
            self.order[new.name] = self._counter
        self.tools[new.name] = new
        if new._approval is not None:
            self.gated.add(new.name)
        else:
            self.gated.discard(new.name)
        _hold(new, self)
        self._index(new)
        if self.search_index is not None:
            self.search_index.touched(new.name)

    def remove(self, name: str) -> Tool[..., Any]:
        """Remove a tool and return it. Raises `ToolNotFoundError` for an unknown name."""
        with self.lock:
            old = self.require(name)
            self._unindex(name)
            _release(old, self)
            del self.tools[name]
            del self.order[name]
            self.gated.discard(name)
            if self.search_index is not None:
                self.search_index.touched(name)
            self.changed()
            return old

    def tag(self, names: Iterable[str], tags: tuple[str, ...]) -> None:
        """Add ``tags`` to tools, atomically: one unknown name raises before any change."""
        with self.lock:
            targets = [self.require(name) for name in names]
        for target in targets:
            with _shared_lock:
                target._set_tags(normalise_tags((*target.tags, *tags)))
                holders = _holders_of(target)
            for holder in holders:  # each re-indexes under its own lock, one at a time
                holder.reindex(target)

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable a tool, in every catalog holding it (exports change)."""
        with self.lock:
            target = self.require(name)
        with _shared_lock:
            target._set_enabled(enabled)
            holders = _holders_of(target)
        for holder in holders:
            holder.changed()

    def reindex(self, tool: Tool[..., Any]) -> None:
        """``tool``'s tags changed: index it under its current ones (if still held here)."""
        with self.lock:
            if self.tools.get(tool.name) is not tool:
                return
            self._unindex(tool.name)
            self._index(tool)
            self.changed()

    def _index(self, tool: Tool[..., Any]) -> None:
        tags = tool.tags
        for tag in tags:
            self._by_tag.setdefault(tag, set()).add(tool.name)
        self._indexed[tool.name] = tags

    def _unindex(self, name: str) -> None:
        for tag in self._indexed.pop(name, ()):
            names = self._by_tag.get(tag)
            if names is not None:
                names.discard(name)
                if not names:
                    del self._by_tag[tag]

    def changed(self) -> None:
        """Forget cached exports (a tool came, went, or changed)."""
        self._exports.clear()

    # -- reading -------------------------------------------------------------------------

    def get(self, name: Any) -> Tool[..., Any] | None:
        """The tool named ``name``, or ``None`` (also for an unhashable ``name``, or one
        whose ``__hash__`` or ``__eq__`` raises)."""
        try:
            return self.tools.get(name)
        except Exception:
            return None

    def require(self, name: Any) -> Tool[..., Any]:
        """The tool named ``name``. Raises `ToolNotFoundError` when there is none."""
        found = self.get(name) if isinstance(name, str) else None
        if found is None:
            raise ToolNotFoundError(name)
        return found

    def snapshot(self) -> list[Tool[..., Any]]:
        """Every tool, enabled or not, in registration order."""
        with self.lock:
            return list(self.tools.values())

    def select(self, tags: Tags, match: Match) -> list[Tool[..., Any]]:
        """Enabled tools carrying any (or all) of ``tags``, in registration order."""
        if match not in ("any", "all"):
            raise ValueError(f"match must be 'any' or 'all', not {match!r}")
        with self.lock:
            if tags is None:
                return [t for t in self.tools.values() if t.enabled]
            wanted = normalise_tags(tags)
            if not wanted:
                return []
            sets = [self._by_tag.get(tag, set()) for tag in wanted]
            names = set.intersection(*sets) if match == "all" else set().union(*sets)
            tools = (self.tools[name] for name in sorted(names, key=self.order.__getitem__))
            return [t for t in tools if t.enabled]

    def exported(
        self, key: tuple[Any, ...], build: Callable[[], Iterable[dict[str, Any]]]
    ) -> tuple[dict[str, Any], ...]:
        """The export cached under ``key``, built (and cached) on first use."""
        with self.lock:
            found = self._exports.get(key)
            if found is None:
                found = self._exports[key] = tuple(build())
            return found

    def source_of(self, obj: object) -> Tool[..., Any] | None:
        """The tool already wrapping the `BaseTool` instance ``obj``, if any."""
        with self.lock:
            for existing in self.tools.values():
                if getattr(existing, "_source", None) is obj:
                    return existing
        return None


def _redefined(old: Tool[..., Any], new: Tool[..., Any]) -> bool:
    """The same function decorated again (e.g. on reload): it replaces the old tool."""
    a, b = old.func, new.func
    if not (inspect.isfunction(a) and inspect.isfunction(b)):
        return False  # BaseTool instances (bound methods) of one class still collide (B-001)
    qualname = b.__qualname__
    return (
        isinstance(qualname, str)
        and "<lambda>" not in qualname
        and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == qualname
    )


def _hold(tool: Tool[..., Any], catalog: Catalog) -> None:
    with _shared_lock:
        refs = tuple(ref for ref in _holders.get(tool, ()) if ref() not in (None, catalog))
        _holders[tool] = (*refs, weakref.ref(catalog))


def _release(tool: Tool[..., Any], catalog: Catalog) -> None:
    with _shared_lock:
        refs = tuple(ref for ref in _holders.get(tool, ()) if ref() not in (None, catalog))
        if refs:
            _holders[tool] = refs
        else:
            _holders.pop(tool, None)


def _holders_of(tool: Tool[..., Any]) -> list[Catalog]:
    return [c for c in (ref() for ref in _holders.get(tool, ())) if c is not None]


def _fresh_locks_after_fork() -> None:
    """A forked child inherits locks that threads it no longer has may hold: replace them."""
    global _shared_lock
    _shared_lock = threading.Lock()
    for catalog in list(_catalogs):
        catalog.lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_fresh_locks_after_fork)
