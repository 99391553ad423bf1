"""The stdio server processes tooldeck starts: found, and stopped even when frozen.

The MCP SDK stops a stdio server by closing its stdin, waiting 2 s, sending SIGTERM to
its process group, waiting 2 s more, then SIGKILL; and it keeps the process to itself.
A server stopped with SIGSTOP (or frozen in a debugger) acts on neither stdin nor
SIGTERM, so it outlived a failed ``use_mcp`` by those 4 s. Here:

* Marking: each server tooldeck starts over stdio gets ``TOOLDECK_MCP_SERVER=<a random
  token>`` in its environment (`mark_env`), one token per session.
* Finding (`servers`, Linux's ``/proc``): the direct children of this process whose
  environment holds the token. Never a process tooldeck did not start; where there
  is no ``/proc`` (or a child's environment cannot be read) nothing is found and the
  SDK's own escalation is all there is.
* Stopping (`stop`), beside the SDK's close (which closes stdin first): a server still
  running after ``grace`` seconds, or found stopped at any time (it cannot act on its
  stdin closing), gets SIGTERM and SIGCONT (so a stopped one can act on it) to its
  process group; one still there ``grace`` seconds later gets SIGKILL, which acts on a
  stopped process too. A server that exits when its stdin closes never sees a signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
from collections.abc import Mapping
from typing import Any

from ._extra import logger

__all__ = ["MARK", "mark_env", "new_mark", "servers", "stop"]

MARK = "TOOLDECK_MCP_SERVER"
_POLL = 0.02  # seconds between looks at the processes being stopped
_RESCAN = 0.1  # ... between looks for a marked process started meanwhile
_GIVE_UP = 2.0  # seconds past the SIGKILL stop waits for the processes to go


def new_mark() -> str:
    """A token no other session's server carries."""
    return secrets.token_hex(16)


def mark_env(env: Mapping[str, str] | None, mark: str) -> dict[str, str]:
    """A server's environment (``None``: fastmcp's default) with ``mark`` added."""
    return {**(env or {}), MARK: mark}


def servers(mark: str) -> list[int]:
    """The process ids of this process's children that carry ``mark``, still running."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    found = []
    for entry in entries:
        if entry.isdigit():
            pid = int(entry)
            stat = _stat(pid)
            if stat is not None and stat[1] == me and _ours(pid, mark) is not None:
                found.append(pid)
    return found


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, parent pid, process group)`` of a process, or ``None`` if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode("ascii", "replace")
        fields = text.rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]), int(fields[2])
    except (OSError, IndexError, ValueError):
        return None


def _ours(pid: int, mark: str) -> tuple[str, int] | None:
    """``(state, process group)`` of a running child of ours that carries ``mark``;
    ``None`` once it has exited (a zombie no longer runs) or if it is someone else's."""
    stat = _stat(pid)
    if stat is None or stat[1] != os.getpid() or stat[0] in ("Z", "X", "x"):
        return None
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            environ = file.read().split(b"\0")
    except OSError:
        return None
    if f"{MARK}={mark}".encode() not in environ:
        return None
    return stat[0], stat[2]


def _signal(pid: int, group: int, signum: int) -> None:
    """Signal a server's process group (the SDK makes each server a group leader)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)


async def stop(mark: str, closing: asyncio.Future[Any], grace: float) -> None:
    """Stop the servers carrying ``mark`` while ``closing`` (the SDK's close, which
    closes their stdin) runs; return once it is done and they are gone.

    Bounded: past SIGKILL it waits at most `_GIVE_UP` seconds for them to go, and
    leaves the rest to ``closing``. No ``mark`` (a client that starts no process):
    only waits for ``closing``.
    """
    if not mark:
        await asyncio.wait([closing])
        return
    loop = asyncio.get_running_loop()
    start = rescan = loop.time()
    escalation = _Escalation(grace)
    found = set(servers(mark))
    while True:
        now = loop.time()
        if now >= rescan and not closing.done():
            found.update(servers(mark))
            rescan = now + _RESCAN
        running = {pid: seen for pid in found if (seen := _ours(pid, mark)) is not None}
        found = set(running)
        if not running and (closing.done() or now - start >= 2 * grace + _GIVE_UP):
            return  # (past that, nothing of ours is left: the SDK finishes its close alone)
        for pid, (state, group) in running.items():
            if not escalation.step(pid, state, group, now - start):
                logger.warning("MCP server process %d is still there after SIGKILL", pid)
                return
        await asyncio.sleep(_POLL)


class _Escalation:
    """Which signal each server got, and when (seconds since the stop began)."""

    def __init__(self, grace: float) -> None:
        self.grace = grace
        self.termed: dict[int, float] = {}
        self.killed: dict[int, float] = {}

    def step(self, pid: int, state: str, group: int, now: float) -> bool:
        """Signal a server still running if its time has come; ``False``: give up."""
        if pid not in self.termed:
            # A stopped process cannot act on its stdin closing: no point waiting.
            if state in ("T", "t") or now >= self.grace:
                _signal(pid, group, signal.SIGTERM)
                _signal(pid, group, signal.SIGCONT)  # so that a stopped one acts on it
                self.termed[pid] = now
        elif pid not in self.killed:
            if now - self.termed[pid] >= self.grace:
                _signal(pid, group, signal.SIGKILL)
                self.killed[pid] = now
        elif now - self.killed[pid] >= _GIVE_UP:
            return False
        return True
