"""Each registry's MCP sessions, one per server it imported: kept, and closed.

* Kept in ``registry._mcp_state`` (a `State`), keyed by `server_key`, so importing the
  same server again, and every proxy of it, share one session.
* Closed by `close` / `aclose` (which wait until the server processes have stopped),
  when the registry is garbage-collected, and at exit.
"""

from __future__ import annotations

import atexit
import json
import threading
import weakref
from collections.abc import Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

from tooldeck._tool import Tool

from . import _loop
from ._session import Session

if TYPE_CHECKING:
    from tooldeck._base_registry import BaseRegistry as ToolRegistry

__all__ = ["State", "aclose", "close", "server_key", "state_of"]


class State:
    """What tooldeck.mcp keeps per registry (in ``registry._mcp_state``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions: dict[Any, Session] = {}
        self.imported: dict[Any, dict[str, Tool[..., Any]]] = {}  # server key → its proxies


# Every registry's MCP state, for `_close_at_exit`.
_STATES: weakref.WeakSet[State] = weakref.WeakSet()
_EXIT_WAIT = 10.0  # seconds exit waits, at most, for server processes to stop


def _close_at_exit() -> None:
    """Close every session still open, and wait for the server processes to stop.

    The MCP loop is a daemon thread: it dies with the interpreter, and with it any
    cleanup in flight. A server that exits when its stdin closes would go anyway; a
    frozen one (or one whose failed import is still being cleaned up) would not.
    """
    if _loop.started():
        _loop.drain([_close_all(state) for state in list(_STATES) if state.sessions], _EXIT_WAIT)


atexit.register(_close_at_exit)


def state_of(registry: ToolRegistry) -> State:
    """The registry's MCP state, made on first use (thread-safe)."""
    state = registry._mcp_state
    if state is None:
        with registry._lock:
            if registry._mcp_state is None:
                registry._mcp_state = State()
                _STATES.add(registry._mcp_state)
                # A registry dropped without close() still ends its sessions (and
                # the stdio servers they started).
                weakref.finalize(registry, _close_soon, registry._mcp_state)
            state = registry._mcp_state
    return cast(State, state)


def _close_soon(state: State) -> None:
    if state.sessions and _loop.started():
        _loop.spawn(_close_all(state))


def server_key(transport: Any) -> Any:
    """What makes two ``use_mcp`` calls "the same server"."""
    if isinstance(transport, (str, PurePath)):
        return ("address", str(transport))
    if isinstance(transport, Mapping):
        return ("config", json.dumps(transport, sort_keys=True, default=str))
    return ("object", id(transport))


async def aclose(registry: ToolRegistry) -> None:
    """Close the sessions opened for this registry's proxies (they reopen on use), and
    wait until the server processes they started have stopped."""
    state = registry._mcp_state
    if isinstance(state, State):
        await _loop.call(_close_all(state), None)


def close(registry: ToolRegistry) -> None:
    """Sync twin of `aclose`."""
    state = registry._mcp_state
    if isinstance(state, State):
        _loop.call_sync(_close_all(state), None)


async def _close_all(state: State) -> None:
    with state.lock:
        sessions = list(state.sessions.values())
    for session in sessions:
        await session.aclose()
