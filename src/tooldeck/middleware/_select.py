"""What the built-in middleware share: which tools each applies to, and a call's key.

* `Selection`: ``tools=`` / ``tags=``, the tools a built-in applies to. A call of a tool
  not chosen goes straight to ``call_next``: one set lookup, one disjointness test.
* `KeyReader`: ``key=`` of `RateLimit` and `ConcurrencyLimit`, a context key or a
  callable of the `Call`, read into the text that names a bucket or a pool
  (`tooldeck.middleware._keys.key_text`: the same in the process and in Redis).
* `Builtin`: their base, a `DualMiddleware` (a sync form and an async form, each run
  inline by its kind of face) with a ``repr`` of its settings.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from tooldeck._result import ToolResult, clip, failure_text, outside_text, type_name

from ._call import Call
from ._dual import DualMiddleware
from ._keys import callable_text, key_text

__all__ = [
    "Builtin",
    "Key",
    "KeyReader",
    "Selection",
    "check_number",
    "in_a_loop",
    "key_failure",
    "names",
]

Key = Callable[[Call], Any]


def names(value: str | Iterable[str] | None, what: str) -> frozenset[str] | None:
    """``tools=`` or ``tags=``: one name or several (``None``: not given).

    Raises:
        TypeError: not a str, an iterable of them, or None; or an empty name.
    """
    if value is None:
        return None
    items = (value,) if isinstance(value, str) else value
    try:
        found = frozenset(items)
    except TypeError:
        raise TypeError(
            f"{what}= takes a name or a list of names, not {type_name(value)}"
        ) from None
    for item in found:
        if not isinstance(item, str) or not item:
            raise TypeError(f"{what}= takes non-empty strings, got {item!r}")
    return found


class Selection:
    """The tools a built-in applies to: named in ``tools``, or tagged with one of ``tags``.

    Neither given: every tool (or, for `Cache`, the tools its own rule admits). An
    empty list chooses no tool.
    """

    __slots__ = ("tags", "tools")

    def __init__(self, tools: str | Iterable[str] | None, tags: str | Iterable[str] | None):
        self.tools = names(tools, "tools")
        self.tags = names(tags, "tags")

    @property
    def given(self) -> bool:
        return self.tools is not None or self.tags is not None

    def chooses(self, call: Call) -> bool:
        tools, tags = self.tools, self.tags
        if tools is None and tags is None:
            return True
        tool = call._tool
        if tools is not None and tool.name in tools:
            return True
        return tags is not None and not tags.isdisjoint(tool._tags)

    def settings(self) -> str:
        """The selection as a ``repr`` shows it (empty when nothing was given)."""
        shown = []
        if self.tools is not None:
            shown.append(f"tools={sorted(self.tools)!r}")
        if self.tags is not None:
            shown.append(f"tags={sorted(self.tags)!r}")
        return ", ".join(shown)


class KeyReader:
    """``key=``: ``None`` (one for all calls), a context key, or a callable of the call."""

    __slots__ = ("key", "read")

    def __init__(self, key: str | Key | None) -> None:
        if key is not None and not isinstance(key, str) and not callable(key):
            raise TypeError(
                f"key= takes a context key (a str) or a callable of the Call, not {type_name(key)}"
            )
        if isinstance(key, str) and not key:
            raise TypeError("key= must not be an empty string")
        self.key = key
        self.read: Key | None = _context_key(key) if isinstance(key, str) else key

    def __call__(self, call: Call) -> str | None:
        """The text of the call's key value (`key_text`), what names its bucket or pool
        in the process and in a shared storage alike; ``None`` when there is no value
        (no ``key=``, the context lacks the key, or the callable returned ``None``).

        Raises:
            Exception: what the callable raised; or TypeError for an unhashable value.
        """
        read = self.read
        if read is None:
            return None
        value = read(call)
        if value is None:
            return None
        hash(value)  # refused, as a dict key would be, with a clear message
        return key_text(value)

    def settings(self) -> str:
        key = self.key
        if key is None:
            return ""
        return f"key={key!r}" if isinstance(key, str) else f"key={_callable_name(key)}"

    def stored_name(self) -> str:
        """``key=`` as it names a state in a shared storage: a callable by its name and a
        digest of what it is (`callable_text`), the same in every process.

        Raises:
            TypeError: a callable holding what has no text the same in every process.
        """
        key = self.key
        if key is None or isinstance(key, str):
            return self.settings()
        text = callable_text(key).encode("utf-8", "surrogatepass")
        return f"key={_callable_name(key)}#{hashlib.sha256(text).hexdigest()[:16]}"


def _context_key(name: str) -> Key:
    def read(call: Call) -> Any:
        context = call._context
        return None if context is None else context.get(name)

    return read


def _callable_name(func: Any) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    return name if isinstance(name, str) else type_name(func)


def check_number(value: Any, what: str, *, positive: bool = True, whole: bool = False) -> None:
    """Refuse anything but a finite real number (> 0, or >= 0 unless ``positive``).

    Raises:
        TypeError: not a number (a bool is none).
        ValueError: out of range, or not whole when ``whole``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, not {type_name(value)}")
    try:
        float(value)  # an int too large for a float (10 ** 400) would overflow later
    except OverflowError:
        raise ValueError(f"{what} must be finite, not an int of {len(str(value))} digits") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{what} must be finite, not {value!r}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{what} must be {'above' if positive else 'at least'} 0, not {value!r}")
    if whole and value != int(value):
        raise ValueError(f"{what} must be a whole number, not {value!r}")


class Builtin(DualMiddleware):
    """A built-in middleware: its tool selection, a ``repr`` of its settings."""

    __slots__ = ("_selection",)

    def __init__(self, tools: str | Iterable[str] | None, tags: str | Iterable[str] | None):
        self._selection = Selection(tools, tags)

    def _settings(self) -> list[str]:
        """The settings a ``repr`` shows, the selection excluded."""
        return []

    def __repr__(self) -> str:
        shown = [s for s in (*self._settings(), self._selection.settings()) if s]
        return f"{type(self).__name__}({', '.join(shown)})"


def in_a_loop() -> bool:
    """Whether this thread runs an event loop (a sync call made from a coroutine): a sync
    middleware that waits here would block every other task of that loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def key_failure(middleware: str, call: Call, exc: BaseException) -> ToolResult:
    """The call's failure when its key cannot be read."""
    text = outside_text(failure_text(exc))
    return ToolResult.fail(
        f"{middleware} could not read the key of tool '{clip(call.name)}': {text}", exception=exc
    )
