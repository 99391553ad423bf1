"""`tooldeck.mcp._processes`: the server processes tooldeck started, found by their mark
and stopped, a frozen (SIGSTOPped) one included; never a process it did not start."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastmcp")

from fastmcp.client.transports import StdioTransport

from tooldeck.mcp import _processes
from tooldeck.mcp._transports import _marked, _marked_config

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads Linux's /proc"),
]

SLEEPER = "import sys, time\nfor line in sys.stdin: pass\ntime.sleep(0 if sys.argv[1:] else 60)"


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()  # SIGKILL acts on a stopped process too
        child.wait(10)


def spawn(started: list[subprocess.Popen[bytes]], mark: str | None, *args: str) -> int:
    env = dict(os.environ)
    if mark is not None:
        env[_processes.MARK] = mark
    child = subprocess.Popen(
        [sys.executable, "-c", SLEEPER, *args],
        env=env,
        stdin=subprocess.PIPE,
        start_new_session=True,  # as the MCP SDK starts a server
    )
    started.append(child)
    return child.pid


def state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # gone, or going
        return "gone"


def test_only_children_carrying_the_mark_are_found(children: list[subprocess.Popen[bytes]]) -> None:
    mark = _processes.new_mark()
    mine = spawn(children, mark)
    other = spawn(children, _processes.new_mark())
    plain = spawn(children, None)
    found = _processes.servers(mark)
    assert found == [mine]
    assert other not in found and plain not in found


def test_a_frozen_server_is_stopped_and_a_stranger_left_alone(
    children: list[subprocess.Popen[bytes]],
) -> None:
    mark = _processes.new_mark()
    mine = spawn(children, mark)
    stranger = spawn(children, None)  # a frozen process tooldeck did not start
    for pid in (mine, stranger):
        os.kill(pid, signal.SIGSTOP)

    async def main() -> None:
        closing = asyncio.get_running_loop().create_future()
        closing.set_result(None)  # the SDK's close: done, the server frozen all the same
        # A 60 s grace: only the server being stopped (not a timer) gets it signalled.
        await asyncio.wait_for(_processes.stop(mark, closing, 60.0), 30)

    asyncio.run(main())
    assert children[0].wait(10) == -signal.SIGTERM  # SIGCONT let it act on SIGTERM
    assert state(stranger) == "T"  # still there, still stopped: not ours


def test_a_server_that_exits_when_its_stdin_closes_gets_no_signal(
    children: list[subprocess.Popen[bytes]],
) -> None:
    mark = _processes.new_mark()
    spawn(children, mark, "exit-at-eof")
    child = children[0]

    async def main() -> None:
        async def close_stdin() -> None:
            assert child.stdin is not None
            child.stdin.close()

        closing = asyncio.ensure_future(close_stdin())
        await asyncio.wait_for(_processes.stop(mark, closing, 30.0), 30)

    asyncio.run(main())
    assert child.wait(10) == 0


def test_marking_copies_the_callers_transport_and_config() -> None:
    transport = StdioTransport("server", ["--flag"], env={"A": "1"})
    marked = _marked(transport, "token")
    assert isinstance(marked, StdioTransport) and marked is not transport
    assert marked.env == {"A": "1", _processes.MARK: "token"}
    assert transport.env == {"A": "1"}  # the caller's object is left as it was
    config = {"mcpServers": {"a": {"command": "a"}, "b": {"url": "http://x/mcp"}}}
    marked_config = _marked_config(config, "token")
    assert marked_config["mcpServers"]["a"]["env"] == {_processes.MARK: "token"}
    assert marked_config["mcpServers"]["b"] == {"url": "http://x/mcp"}
    assert config == {"mcpServers": {"a": {"command": "a"}, "b": {"url": "http://x/mcp"}}}
