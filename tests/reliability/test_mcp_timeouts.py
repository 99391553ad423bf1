"""``use_mcp(timeout=t)`` bounds the import and every call at t + 1 s, whatever the server does.

The servers stop answering on purpose: ``servers/stubborn_mcp.py`` over stdio (frozen
with SIGSTOP before or after ``initialize``, never answering ``tools/list``, dying,
dripping one byte at a time, freezing mid-call) and a tooldeck server over HTTP frozen
with SIGSTOP. Each scenario runs in a subprocess under a hard timeout, waits for the
operation under a hard bound of its own (t + 1 s, plus slack for a busy machine; a
bound that fires is a hang, reported as such), and then checks that no server process
it started survives. fastmcp is imported before the clock starts: a cold import is
the process's cost, not the server's doing. The subprocesses are forked from the test
worker's session fork server, which imported it once (``server_forks``,
tests/conftest.py): each scenario still has a process, and an exit, of its own.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from forkserver import ForkServer
from listening import started

pytest.importorskip("fastmcp")

HERE = Path(__file__).parent
STUBBORN = HERE / "servers" / "stubborn_mcp.py"
REGISTRY = HERE.parent / "integration" / "mcp_servers" / "serve_registry.py"
TIMEOUT = 1.0  # the t given to use_mcp
BOUND = TIMEOUT + 1 + 1.5  # t + 1 s, and slack for a loaded machine

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc"),
]

PRELUDE = f"""
import asyncio, concurrent.futures, json, sys, time
from pathlib import Path
from fastmcp.client.transports import StdioTransport
from tooldeck import ToolRegistry
import tooldeck.mcp._transports  # imported first: a cold import is not the server's doing

STUBBORN, TIMEOUT, BOUND = {str(STUBBORN)!r}, {TIMEOUT!r}, {BOUND!r}

def gone(pid):
    try:
        stat = Path(f"/proc/{{pid}}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone, or going
        return True
    return stat.rsplit(")", 1)[1].split()[0] in {{"Z", "X"}}

def wait_gone(pid, seconds=20.0):
    deadline = time.monotonic() + seconds
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return gone(pid)

def stubborn(mode, pidfile):
    return StdioTransport(sys.executable, [STUBBORN, mode, pidfile])

def bounded(call):
    \"\"\"call() in a worker thread, waited for BOUND seconds: (outcome, hung).\"\"\"
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(call)
    pool.shutdown(wait=False)
    if not concurrent.futures.wait([future], BOUND).done:
        return None, True
    # (not future.result(BOUND): MCPTimeoutError is a TimeoutError too)
    return future.exception() or future.result(), False

def kind(outcome):
    return type(outcome).__name__

def report(**values):
    print(json.dumps(values))
"""


@pytest.fixture(autouse=True)
def reap_stubborn_servers(tmp_path: Path) -> Iterator[None]:
    """Whatever a test asserts, a stubborn server it started (frozen perhaps) is killed
    after it: its pid is in ``tmp_path/pid``, and checked to still be that server."""
    yield
    pidfile = tmp_path / "pid"
    if not pidfile.exists():
        return
    pid = int(pidfile.read_text())
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):  # gone, or going
        return
    if STUBBORN.name.encode() in cmdline:  # not a stranger who got the pid since
        os.kill(pid, signal.SIGKILL)  # SIGKILL acts on a stopped process too


Scenario = Callable[[str], dict[str, Any]]


@pytest.fixture
def scenario(server_forks: ForkServer) -> Scenario:
    """Runs PRELUDE then its ``code`` in a process of its own, and answers what that last
    reported. Forked from the session's server (tests/conftest.py), whose preload holds
    PRELUDE's imports."""
    return functools.partial(_scenario, server_forks)


def _scenario(forks: ForkServer, code: str) -> dict[str, Any]:
    done = forks.run(code=PRELUDE + textwrap.dedent(code), timeout=90)
    stdout, stderr = done.stdout.decode(), done.stderr.decode(errors="replace")
    assert done.returncode == 0, stderr[-3000:]
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return result


# -- the import --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "error", "face"),
    [
        ("freeze", "MCPTimeoutError", "sync"),  # frozen before it answers `initialize`
        ("freeze", "MCPTimeoutError", "async"),
        ("freeze-first", "MCPTimeoutError", "sync"),  # frozen on reading `initialize`
        ("freeze-first", "MCPTimeoutError", "async"),
        ("freeze-first", "MCPTimeoutError", "config"),  # started from an MCP config dict
        ("freeze-list", "MCPTimeoutError", "sync"),  # frozen on `tools/list`
        ("mute-list", "MCPTimeoutError", "sync"),  # alive, never answers `tools/list`
        ("mute-list", "MCPTimeoutError", "async"),
        ("drip-list", "MCPTimeoutError", "async"),  # one byte at a time, forever
        ("die-list", "MCPConnectionError", "sync"),  # exits on `tools/list`
    ],
)
def test_an_import_is_bounded_and_leaves_no_process(
    tmp_path: Path, mode: str, error: str, face: str, scenario: Scenario
) -> None:
    pidfile = tmp_path / "pid"
    server = {"command": sys.executable, "args": [str(STUBBORN), mode, str(pidfile)]}
    config = {"mcpServers": {"s": server}}
    call = {
        "sync": f"lambda: registry.use_mcp(stubborn({mode!r}, {str(pidfile)!r}), timeout=TIMEOUT)",
        "async": f"lambda: asyncio.run(registry.async_use_mcp("
        f"stubborn({mode!r}, {str(pidfile)!r}), timeout=TIMEOUT))",
        "config": f"lambda: registry.use_mcp({config!r}, timeout=TIMEOUT)",
    }[face]
    result = scenario(
        f"""
        registry = ToolRegistry()
        outcome, hung = bounded({call})
        pid = int(Path({str(pidfile)!r}).read_text())
        at_once = gone(pid)  # checked the moment use_mcp gave up: no waiting
        report(hung=hung, error=kind(outcome), message=str(outcome), gone=at_once,
               gone_later=wait_gone(pid), registered=len(registry))
        """
    )
    assert not result["hung"]
    assert result["error"] == error
    assert "cannot import the tools of MCP server" in result["message"]
    if error == "MCPTimeoutError":
        assert f"within {TIMEOUT:g} seconds" in result["message"]
    assert result["registered"] == 0
    assert result["gone_later"], "the server process survived the failed import"
    # A frozen (SIGSTOPped) server ignores its stdin closing and SIGTERM: it is gone
    # when use_mcp raises all the same, not seconds later.
    assert result["gone"], "the server process was still running when use_mcp gave up"


def test_a_tool_too_deep_to_read_is_skipped_over_stdio(tmp_path: Path, scenario: Scenario) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        import warnings
        registry = ToolRegistry()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome, hung = bounded(lambda: registry.use_mcp(
                stubborn("deep-list", {str(pidfile)!r}), timeout=TIMEOUT))
        pid = int(Path({str(pidfile)!r}).read_text())
        report(hung=hung, names=sorted(registry.list_tools()),
               warned=[str(w.message) for w in caught], good=registry.call_tool("good"),
               pid=pid)
        registry.close()
        """
    )
    assert not result["hung"]
    assert result["names"] == ["freeze", "good", "mute"]
    assert any("'deep' (its inputSchema nests deeper" in w for w in result["warned"])
    assert result["good"] == result["pid"]


@pytest.mark.parametrize("face", ["sync", "async"])
def test_any_failure_of_an_import_stops_the_server_it_started(
    tmp_path: Path, face: str, scenario: Scenario
) -> None:
    # Here the failure is the skipped tool's warning, raised where warnings are errors:
    # not the server's doing, yet the process the import started must not outlive it.
    pidfile = tmp_path / "pid"
    call = (
        f"lambda: registry.use_mcp(stubborn('deep-list', {str(pidfile)!r}), timeout=TIMEOUT)"
        if face == "sync"
        else f"lambda: asyncio.run(registry.async_use_mcp("
        f"stubborn('deep-list', {str(pidfile)!r}), timeout=TIMEOUT))"
    )
    result = scenario(
        f"""
        import warnings
        warnings.simplefilter("error")
        registry = ToolRegistry()
        outcome, hung = bounded({call})
        pid = int(Path({str(pidfile)!r}).read_text())
        report(hung=hung, error=kind(outcome), gone=gone(pid), registered=len(registry),
               graceful=Path({str(pidfile)!r} + ".eof").exists())
        """
    )
    assert not result["hung"]
    assert result["error"] == "UserWarning"
    assert result["registered"] == 0
    assert result["gone"], "the server process was still running when use_mcp gave up"
    # A server that behaves is stopped gracefully: it saw its stdin close and exited.
    assert result["graceful"], "a well-behaved server was killed instead of stopped"


@pytest.fixture
def frozen_http_server(server_forks: ForkServer) -> Iterator[str]:
    """A tooldeck server over HTTP, stopped with SIGSTOP once it listens."""
    process, port = started(lambda port: server_forks.start(REGISTRY, "http", str(port)))
    try:
        os.kill(process.pid, signal.SIGSTOP)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.kill()
        process.wait(10)


@pytest.mark.parametrize("face", ["sync", "async"])
def test_an_import_from_a_frozen_http_server_is_bounded(
    frozen_http_server: str, face: str, scenario: Scenario
) -> None:
    call = (
        f"lambda: registry.use_mcp({frozen_http_server!r}, timeout=TIMEOUT)"
        if face == "sync"
        else f"lambda: asyncio.run(registry.async_use_mcp({frozen_http_server!r}, timeout=TIMEOUT))"
    )
    result = scenario(
        f"""
        registry = ToolRegistry()
        outcome, hung = bounded({call})
        report(hung=hung, error=kind(outcome), message=str(outcome))
        """
    )
    assert not result["hung"]
    assert result["error"] == "MCPTimeoutError"
    assert frozen_http_server in result["message"]


# -- calls -------------------------------------------------------------------------------------


def test_a_call_is_bounded_and_a_frozen_server_is_replaced(
    tmp_path: Path, scenario: Scenario
) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        registry = ToolRegistry()
        registry.use_mcp(stubborn("serve", {str(pidfile)!r}), timeout=TIMEOUT)
        first = registry.call_tool("good")
        frozen, hung = bounded(lambda: registry.call_tool("freeze"))
        failed, hung_too = bounded(lambda: registry.execute_sync("freeze"))
        first_gone = gone(first)  # the moment the failed call returned: no waiting
        second = registry.call_tool("good")  # a new session: the frozen one was dropped
        report(first=first, frozen=frozen, hung=hung or hung_too, second=second,
               failed=failed.error, first_gone=first_gone)
        registry.close()
        """
    )
    assert not result["hung"]
    assert result["frozen"] is None  # seed 001 §7.2: no answer is None
    assert "did not answer a call of 'freeze' within 1 seconds" in result["failed"]
    assert result["second"] != result["first"]
    assert result["first_gone"], "the frozen server process survived its dropped session"


def test_an_async_call_that_drops_a_frozen_server_stops_it_before_returning(
    tmp_path: Path,
    scenario: Scenario,
) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        async def main():
            registry = ToolRegistry()
            await registry.async_use_mcp(stubborn("serve", {str(pidfile)!r}), timeout=TIMEOUT)
            pid = await registry.async_call_tool("good")
            frozen = await asyncio.wait_for(registry.async_call_tool("freeze"), BOUND)
            at_once = gone(pid)
            await registry.aclose()
            report(frozen=frozen, gone=at_once)
        asyncio.run(main())
        """
    )
    assert result["frozen"] is None
    assert result["gone"], "the frozen server was still running when the failed call returned"


def test_an_unanswered_call_is_bounded_and_keeps_a_live_session(
    tmp_path: Path, scenario: Scenario
) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        async def main():
            registry = ToolRegistry()
            await registry.async_use_mcp(stubborn("serve", {str(pidfile)!r}), timeout=TIMEOUT)
            first = await registry.async_call_tool("good")
            muted = await asyncio.wait_for(registry.async_call_tool("mute"), BOUND)
            second = await registry.async_call_tool("good")
            await registry.aclose()
            report(first=first, muted=muted, second=second, gone=wait_gone(first, 0.0))
        asyncio.run(main())
        """
    )
    assert result["muted"] is None
    assert result["second"] == result["first"]  # the server still answered a ping
    assert result["gone"], "close() returned before the server process stopped"


def test_close_stops_the_server_process(tmp_path: Path, scenario: Scenario) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        registry = ToolRegistry()
        registry.use_mcp(stubborn("serve", {str(pidfile)!r}))
        pid = registry.call_tool("good")
        registry.close()
        gone_at_close = gone(pid)
        again = registry.call_tool("good")  # a proxy reopens its session on use
        registry.close()
        report(pid=pid, gone_at_close=gone_at_close, again=again, again_gone=gone(again))
        """
    )
    assert result["gone_at_close"]
    assert result["again"] != result["pid"]
    assert result["again_gone"]


@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_frozen_server_stops_on_close(tmp_path: Path, face: str, scenario: Scenario) -> None:
    pidfile = tmp_path / "pid"
    close = "registry.close()" if face == "sync" else "asyncio.run(registry.aclose())"
    result = scenario(
        f"""
        import os, signal
        registry = ToolRegistry()
        registry.use_mcp(stubborn("serve", {str(pidfile)!r}))
        pid = registry.call_tool("good")
        os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        {close}  # a stopped process ignores its stdin and SIGTERM: it is killed
        took = time.monotonic() - started
        report(gone=gone(pid), took=took)
        """
    )
    assert result["gone"], "close() returned before the frozen server stopped"
    # Not the MCP SDK's 2 s wait for an exit after stdin closes and 2 s more after
    # SIGTERM (4 s): a stopped process cannot act on either, so it is not waited for.
    assert result["took"] < 3.0, f"close() took {result['took']:.1f} s on a frozen server"


def test_close_stops_a_well_behaved_server_gracefully(tmp_path: Path, scenario: Scenario) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        registry = ToolRegistry()
        registry.use_mcp(stubborn("serve", {str(pidfile)!r}))
        pid = registry.call_tool("good")
        registry.close()
        report(gone=gone(pid), graceful=Path({str(pidfile)!r} + ".eof").exists())
        """
    )
    assert result["gone"]
    assert result["graceful"], "a well-behaved server was killed instead of stopped"


# -- nested sync calls (issue 12.1) -------------------------------------------------------------


@pytest.mark.parametrize("server", ["stdio", "in-process"])
def test_an_async_tool_calling_a_proxy_synchronously_from_sync_code(
    server: str, scenario: Scenario
) -> None:
    # The proxy's session lives on tooldeck's MCP loop, not on the background loop that
    # runs `outer` (which `outer`'s synchronous wait blocks): the call returns.
    source = (
        f"StdioTransport(sys.executable, [{str(REGISTRY)!r}, 'stdio'])"
        if server == "stdio"
        else "origin.as_mcp_server()"
    )
    result = scenario(
        f"""
        origin = ToolRegistry()

        @origin.tool
        def add(a: int, b: int = 0) -> int:
            return a + b

        registry = ToolRegistry()
        registry.use_mcp({source}, timeout=30)

        @registry.tool
        async def outer(x: int) -> int:
            return registry.call_tool("add", {{"a": x, "b": 1}})  # sync, on the proxy

        @registry.tool
        async def deeper(x: int) -> int:
            return registry.call_tool("outer", {{"x": x}}) * 10

        outcome, hung = bounded(lambda: (registry.call_tool("outer", {{"x": 41}}),
                                         registry.call_tool("deeper", {{"x": 1}}),
                                         registry.execute_sync("outer", {{"x": 1}}).data))
        registry.close()
        report(hung=hung, outcome=outcome)
        """
    )
    assert not result["hung"]
    assert result["outcome"] == [42, 20, 2]


# -- exit -------------------------------------------------------------------------------------


def gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether a process has exited (a zombie counts: it no longer runs)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):  # gone, or going
            return True
        if stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_a_program_that_exits_right_after_a_failed_import_leaves_no_process(
    tmp_path: Path,
    scenario: Scenario,
) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        registry = ToolRegistry()
        try:
            registry.use_mcp(stubborn("freeze", {str(pidfile)!r}), timeout=TIMEOUT)
        except Exception as exc:
            report(error=kind(exc), pid=int(Path({str(pidfile)!r}).read_text()))
        """  # and exits at once: the cleanup in flight is finished at exit
    )
    assert result["error"] == "MCPTimeoutError"
    assert gone(result["pid"]), "the frozen server outlived the program"


def test_a_program_that_exits_without_closing_leaves_no_frozen_process(
    tmp_path: Path, scenario: Scenario
) -> None:
    pidfile = tmp_path / "pid"
    result = scenario(
        f"""
        import os, signal
        registry = ToolRegistry()
        registry.use_mcp(stubborn("serve", {str(pidfile)!r}))
        pid = registry.call_tool("good")
        os.kill(pid, signal.SIGSTOP)
        report(pid=pid)
        """  # and exits without close(): its sessions are closed at exit
    )
    assert gone(result["pid"]), "the frozen server outlived the program"
