"""A fresh Python process per run, without paying Python's start-up each time.

Tests that need a process of their own (a CLI command and its exit status, an MCP
scenario that may hang, a program that exits with work in flight) used to start
``python`` for each case, and each start imported pydantic, tooldeck and often fastmcp
again: seconds of CPU per case, most of the suite's. A `ForkServer` is one Python
process that imports those once (its ``preload``) and then forks a child per run.

A child is a process of its own in everything these tests look at: its own pid,
stdin (``/dev/null``), stdout and stderr (files read back once it exits), environment,
threads, exit status and exit handlers. It is run like ``python -c CODE`` or
``python -m MODULE ARGS``, its arguments and environment decoded from bytes the way a
new interpreter decodes them (so a non-ASCII argument under the C locale arrives as it
would). What a child cannot differ in is what the server fixed at its own start: the
interpreter's options, the locale and encodings it derived from the environment, and
``PYTHONPATH``; a test that varies those starts a real process.

Each run has a hard timeout: a child still running then is killed, and the run raises
`subprocess.TimeoutExpired`, as `subprocess.run` would.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

# The server: runs its preload (in its own globals: a child's ``-c`` code sees the
# names it defines), then forks a child per request line and answers two lines, the
# child's pid and, once it exits, its status. The child leaves the loop and runs its
# code as the program's own, so it ends as any program does (atexit, thread joins).
_SERVER = r"""
import json as _json, os as _os, sys as _sys, threading as _threading
_request_fd, _reply_fd = _os.dup(0), _os.dup(1)
_os.dup2(2, 1)  # what the preload prints goes to the server's log, not into its answers
exec(compile(_sys.argv[1], "<preload>", "exec"))
# What the preload made is never collected: a child's garbage collections skip it, and
# so do not touch (and copy) every page the server holds.
import gc as _gc

_gc.freeze()


def _requests():
    buffer = b""
    while True:
        while b"\n" not in buffer:
            chunk = _os.read(_request_fd, 1 << 16)
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        yield _json.loads(line)


def _status(pid, options):
    done, status = _os.waitpid(pid, options)
    return b"running" if done == 0 else b"%d" % _os.waitstatus_to_exitcode(status)


_run = None
for _request in _requests():
    if "poll" in _request:  # a child started in the background: exited yet?
        _os.write(_reply_fd, _status(_request["poll"], _os.WNOHANG) + b"\n")
        continue
    if _threading.active_count() != 1:  # a fork copies only the thread calling it
        _os.write(_reply_fd, b"error: the preload started a thread\n")
        break
    _sys.stdout.flush()
    _sys.stderr.flush()
    _pid = _os.fork()
    if _pid == 0:
        _run = _request
        break
    _os.write(_reply_fd, b"%d\n" % _pid)
    if not _request["background"]:
        _os.write(_reply_fd, _status(_pid, 0) + b"\n")
if _run is None:
    raise SystemExit(0)

_os.close(_request_fd)
_os.close(_reply_fd)
for _fd, _path in ((0, _os.devnull), (1, _run["stdout"]), (2, _run["stderr"])):
    _path = _path or _os.devnull
    _file = _os.open(_path, _os.O_RDONLY if _fd == 0 else _os.O_WRONLY | _os.O_TRUNC)
    _os.dup2(_file, _fd)
    _os.close(_file)
for _key in _run["unset"]:
    _os.environ.pop(_key, None)
for _key, _value in _run["env"].items():
    _os.environ[_key] = _os.fsdecode(bytes.fromhex(_value))
_argv = [_os.fsdecode(bytes.fromhex(_arg)) for _arg in _run["argv"]]
if _run["module"] is not None:
    import runpy as _runpy

    _sys.argv = ["-m", *_argv]
    _sys.path[0] = _os.getcwd()  # as `python -m` puts it
    _runpy.run_module(_run["module"], run_name="__main__", alter_sys=True)
elif _run["script"] is not None:
    import runpy as _runpy

    _sys.argv = [_run["script"], *_argv]
    _sys.path[0] = _os.path.dirname(_run["script"])  # as `python SCRIPT` puts it
    _runpy.run_path(_run["script"], run_name="__main__")
else:
    _sys.argv = ["-c", *_argv]
    _code = _run["code"]
    for _name in "_request _requests _status _run _pid _fd _path _file _key".split():
        globals().pop(_name, None)
    exec(compile(_code, "<string>", "exec"))
"""


class ForkServer:
    """One preloaded Python process that runs each request in a forked child.

    Args:
        preload: Python source run once in the server; a ``code`` run sees its names.
        env: The server's environment (and so every child's, before its own changes).
    """

    def __init__(self, preload: str = "", *, env: Mapping[str, str] | None = None) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="forkserver-"))
        self._out, self._err = self._folder / "out", self._folder / "err"
        self._out.touch()
        self._err.touch()
        self._log = open(self._folder / "server.log", "wb")  # noqa: SIM115 (closed in close())
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=None if env is None else dict(env),
        )
        self._buffer = b""

    def run(
        self,
        *,
        code: str | None = None,
        module: str | None = None,
        argv: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        unset: Sequence[str] = (),
        timeout: float,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``code`` (as ``python -c``) or ``module`` (as ``python -m``) in a child."""
        assert (code is None) != (module is None)
        self._send(code=code, module=module, argv=argv, env=env, unset=unset)
        pid = int(self._reply(timeout=60))  # a fork is quick, even on a busy machine
        try:
            status = int(self._reply(timeout=timeout))
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
            self._reply(timeout=60)  # the server reaps it
            raise subprocess.TimeoutExpired(
                ["forkserver", code or module or ""],
                timeout,
                self._out.read_bytes(),
                self._err.read_bytes(),
            ) from None
        args = ["python", "-c", code] if code is not None else ["python", "-m", str(module)]
        return subprocess.CompletedProcess(
            [*args, *argv], status, self._out.read_bytes(), self._err.read_bytes()
        )

    def start(
        self, script: str | Path, *args: str, env: Mapping[str, str] | None = None
    ) -> ForkedProcess:
        """Start ``python SCRIPT ARGS`` in a child, in the background (its output dropped);
        the child answers what a `subprocess.Popen` of it would to the tests."""
        self._send(script=str(script), argv=args, env=env, background=True)
        return ForkedProcess(self, int(self._reply(timeout=60)))

    def start_module(
        self, module: str, *args: str, env: Mapping[str, str] | None = None
    ) -> ForkedProcess:
        """Start ``python -m MODULE ARGS`` in a child, in the background, as `start` does."""
        self._send(module=module, argv=args, env=env, background=True)
        return ForkedProcess(self, int(self._reply(timeout=60)))

    def poll(self, pid: int) -> int | None:
        """The exit status of a child started in the background, or None if it runs."""
        self._write({"poll": pid})
        answer = self._reply(timeout=60)
        return None if answer == "running" else int(answer)

    def _send(
        self,
        *,
        code: str | None = None,
        module: str | None = None,
        script: str | None = None,
        argv: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        unset: Sequence[str] = (),
        background: bool = False,
    ) -> None:
        self._write(
            {
                "code": code,
                "module": module,
                "script": script,
                "argv": [os.fsencode(arg).hex() for arg in argv],
                "env": {key: os.fsencode(value).hex() for key, value in (env or {}).items()},
                "unset": list(unset),
                "stdout": None if background else str(self._out),
                "stderr": None if background else str(self._err),
                "background": background,
            }
        )

    def _write(self, request: dict[str, object]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(request).encode() + b"\n")
        self._process.stdin.flush()

    def _reply(self, *, timeout: float) -> str:
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if not selector.select(timeout):
                    raise subprocess.TimeoutExpired(["forkserver"], timeout)
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self._log.flush()
                    log = (self._folder / "server.log").read_text(errors="replace")
                    raise RuntimeError(f"the fork server exited:\n{log[-3000:]}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        if line.startswith(b"error:"):
            raise RuntimeError(f"the fork server refused: {line.decode()}")
        return line.decode()

    def close(self) -> None:
        """Stop the server (its stdin closes: it exits) and remove its files."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
        assert self._process.stdout is not None
        self._process.stdout.close()
        self._log.close()
        shutil.rmtree(self._folder, ignore_errors=True)


# A preload for servers: tooldeck's MCP side and the HTTP stack under it.
SERVING = (
    "import tooldeck.mcp, fastmcp, fastmcp.server.http, httpx, starlette.applications, "
    "uvicorn, mcp.server.streamable_http_manager"
)
# What an MCP import over stdio adds (fastmcp's client transports pull in its MCP config
# and server providers: ~0.7 s), for the tests' children that import a server's tools.
CLIENTS = "import fastmcp.client.transports, tooldeck.mcp._transports"


class LazyForkServer:
    """A `ForkServer` a test module starts on first use and closes after its last test:
    ``FORKS = LazyForkServer(PRELOAD)``, ``_close_forks = FORKS.closing()`` (a module
    fixture), then ``FORKS().run(...)``."""

    def __init__(self, preload: str = "", *, env: Mapping[str, str] | None = None) -> None:
        self._preload, self._env = preload, env
        self._server: ForkServer | None = None

    def __call__(self) -> ForkServer:
        if self._server is None:
            self._server = ForkServer(self._preload, env=self._env)
        return self._server

    def closing(self) -> Any:
        import pytest

        @pytest.fixture(scope="module", autouse=True)
        def close_forks() -> Iterator[None]:
            yield
            server, self._server = self._server, None
            if server is not None:
                server.close()

        return close_forks


class ForkedProcess:
    """A child a `ForkServer` started in the background, as much of `subprocess.Popen`
    as the tests use: ``pid``, ``returncode``, ``poll``, ``wait``, ``terminate``,
    ``kill``. Only its server reaps it (when polled), so its pid stays its own until
    then: a signal never reaches a stranger."""

    def __init__(self, server: ForkServer, pid: int) -> None:
        self._server = server
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._server.poll(self.pid)
        return self.returncode

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired([str(self.pid)], timeout)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
