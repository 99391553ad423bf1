"""A real ``redis-server`` for the tests of Redis storage: started on a free port of
127.0.0.1 in a temporary directory (no persistence), stopped after. Where the binary or
the ``redis`` package is missing, the tests skip, saying why."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from listening import started

__all__ = ["redis_started"]


@contextlib.contextmanager
def redis_started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server's URL (``redis://127.0.0.1:<port>/0``) while it runs."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server on PATH: the Redis storage tests need a real server")
    pytest.importorskip("redis", reason="the redis extra is not installed")
    server, port = _start(binary, tmp_path_factory.mktemp("redis"))
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)


def _start(binary: str, folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    import redis

    def start(port: int) -> subprocess.Popen[bytes]:
        options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        return subprocess.Popen(
            [binary, "--port", str(port), *options, "--dir", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    # Listening on its own port: another suite's redis-server is never this test's.
    server, port = started(start, 10)
    client = redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1)
    deadline = time.monotonic() + 10
    while server.poll() is None and time.monotonic() < deadline:
        try:
            if client.ping():
                client.close()
                return server, port
        except redis.RedisError:
            time.sleep(0.02)
    server.kill()
    server.wait()
    pytest.fail("redis-server did not answer")
