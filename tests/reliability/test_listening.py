"""The tests' servers count as started only when they listen on their port themselves
(tests/listening.py): a port taken by another process between choosing and binding
(CI runs three suites at once) means another port, never another process's server."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

import listening

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc"),
]

# Listens on argv[1] until killed; exits 1 (as servers do) when the port is taken.
SERVER = """
import socket, sys, time
sock = socket.socket()
try:
    sock.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
sock.listen()
time.sleep(60)
"""


def serve(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", SERVER, str(port)])


def test_a_server_whose_port_was_taken_starts_again_on_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as thief:  # another process's server, on the first port chosen
        thief.bind(("127.0.0.1", 0))
        thief.listen()
        taken = thief.getsockname()[1]
        chosen = iter([taken])
        free = listening.free_port
        monkeypatch.setattr(listening, "free_port", lambda: next(chosen, None) or free())
        tried: list[subprocess.Popen[bytes]] = []

        def start(port: int) -> subprocess.Popen[bytes]:
            tried.append(serve(port))
            return tried[-1]

        process, port = listening.started(start, 20)
        try:
            assert port != taken and len(tried) == 2
            assert tried[0].returncode == 1  # stopped, and not mistaken for the server
            assert listening._listening_sockets(port) & listening._sockets_of(process.pid)
        finally:
            process.kill()
            process.wait(10)


def test_a_server_that_exits_on_a_free_port_fails_the_test() -> None:
    def start(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])

    with pytest.raises(AssertionError, match="exited with 3"):
        listening.started(start, 20)


def test_a_closed_port_refuses_connections_and_cannot_be_taken() -> None:
    with listening.closed_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5)
        assert serve(port).wait(30) == 1  # nobody can listen there meanwhile
