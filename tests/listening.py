"""A server the tests start on a free port of 127.0.0.1, counted as started only once it
is the one listening there.

A port found free (bound to port 0, then closed) is free only for a moment: CI runs
three suites at once, and any process binding port 0 may be given it before the server
binds it. That server then fails to start, and a mere connection to the port reaches
the other process's server: a test's calls answered by another test's tools. So a
server is started (`started`) when the socket listening on its port is its own (Linux's
``/proc``); a server whose port was taken is stopped and started again on another.
Where ``/proc`` cannot be read, a connection to the port has to do.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = ["closed_port", "free_port", "served", "started", "wait_listening"]

ATTEMPTS = 5


class Process(Protocol):
    pid: int

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float) -> int: ...


P = TypeVar("P", bound=Process)


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 that refuses connections while the block runs: bound and never
    listened on, so no other process can take it meanwhile."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port: int = holder.getsockname()[1]
        yield port


@contextmanager
def served(app: Any, timeout: float = 30.0, **config: Any) -> Iterator[int]:
    """``app`` served by uvicorn (``config``: more of its settings) in a thread of this
    process, on a socket bound here, so no other process can take the port; its port."""
    import uvicorn

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port: int = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="error", **config))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
            time.sleep(0.02)
        try:
            yield port
        finally:
            server.should_exit = True
            thread.join(15)


def started(start: Callable[[int], P], timeout: float = 30.0) -> tuple[P, int]:
    """``start(port)`` on a free port, until the process it starts listens there itself;
    that process and its port. A process that exits first fails the test, unless
    another process took its port: then it is started again on another."""
    for _ in range(ATTEMPTS):
        port = free_port()
        process = start(port)
        try:
            if _listening(process, port, timeout):
                return process, port
        except BaseException:
            _stop(process)
            raise
        _stop(process)  # its port was taken: another one
    raise AssertionError(f"{ATTEMPTS} free ports in a row were taken by other processes")


def wait_listening(process: Process, port: int, timeout: float = 30.0) -> None:
    """Until ``process`` listens on ``port`` (one restarted on a port it had, say); fails
    if it exits first, naming a process that took the port."""
    if not _listening(process, port, timeout):
        raise AssertionError(f"the server exited: another process took port {port}")


def _listening(process: Process, port: int, timeout: float) -> bool:
    """True once ``process`` listens on ``port``; False if another process does and this
    one exited (it could not bind). Fails if it exits otherwise, or takes too long."""
    deadline = time.monotonic() + timeout
    while True:
        sockets = _listening_sockets(port)
        if sockets is None:  # no /proc: a connection has to do
            if _connects(port):
                return True
        elif sockets & _sockets_of(process.pid):
            return True
        if process.poll() is not None:
            if sockets:  # another process listens there: it took the port
                return False
            raise AssertionError(f"the server exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not listen on port {port} in {timeout:g} s")
        time.sleep(0.05)


def _listening_sockets(port: int) -> set[str] | None:
    """The inodes of the sockets listening on ``port`` (IPv4 and IPv6), or None where
    ``/proc/net`` cannot be read."""
    found: set[str] = set()
    read = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        read = True
        for row in rows:
            fields = row.split()
            # local address (hex ip:port), state (0A: LISTEN), inode
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                found.add(fields[9])
    return found if read else None


def _sockets_of(pid: int) -> set[str]:
    """The inodes of the sockets process ``pid`` holds open."""
    held: set[str] = set()
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # gone, or not ours to read
        return held
    for descriptor in descriptors:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{descriptor}")
        except OSError:
            continue
        if target.startswith("socket:["):
            held.add(target[len("socket:[") : -1])
    return held


def _connects(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _stop(process: Process) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(10)
