"""A stdio MCP server, written by hand, that stops answering in the way it is told to.

Usage: ``python stubborn_mcp.py MODE PIDFILE``. It writes its process id to PIDFILE
first, so a test can check the process is gone afterwards. MODE:

* ``freeze``: stops itself (SIGSTOP) before reading anything: ``initialize`` never
  gets an answer;
* ``freeze-first``: stops itself on the first request it reads (``initialize``);
* ``freeze-list``: answers ``initialize``, then stops itself on ``tools/list``;
* ``mute-list``: answers ``initialize`` and pings, never ``tools/list`` (alive, reading);
* ``die-list``: exits on ``tools/list``;
* ``drip-list``: answers ``tools/list`` one byte every 0.2 s, forever;
* ``deep-list``: lists, beside its tools, one whose ``inputSchema`` nests 130 levels;
* ``serve``: lists its tools; calling ``freeze`` stops the process, ``mute`` is never
  answered, ``good`` answers its process id.

A server that sees its stdin close (the graceful stop) writes ``PIDFILE.eof`` and exits.

No imports beyond the standard library: it starts in milliseconds.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ("good", "freeze", "mute")
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def freeze() -> None:
    os.kill(os.getpid(), signal.SIGSTOP)


def answer(mode: str, request_id: Any, method: str | None, params: dict[str, Any]) -> None:
    if mode == "freeze-first":
        freeze()
    if method == "initialize":
        version = params.get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stubborn", "version": "0"},
        }
        send({"jsonrpc": "2.0", "id": request_id, "result": result})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": request_id, "result": {}})
    elif method == "tools/list":
        list_tools(mode, request_id)
    elif method == "tools/call":
        call(params.get("name"), request_id)
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        send({"jsonrpc": "2.0", "id": request_id, "error": error})


def list_tools(mode: str, request_id: Any) -> None:
    if mode == "freeze-list":
        freeze()
    elif mode == "die-list":
        os._exit(5)
    elif mode == "drip-list":
        text = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        while True:
            for char in text:
                sys.stdout.write(char)
                sys.stdout.flush()
                time.sleep(0.2)
    elif mode == "serve":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
    elif mode == "deep-list":
        schema: dict[str, Any] = {"type": "string"}
        for _ in range(130):
            schema = {"type": "array", "items": schema}
        deep = {"name": "deep", "inputSchema": {"type": "object", "properties": {"a": schema}}}
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [*TOOLS, deep]}})
    # mute-list: no answer


def call(name: str | None, request_id: Any) -> None:
    if name == "freeze":
        freeze()
    elif name == "good":
        content = [{"type": "text", "text": str(os.getpid())}]
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": content}})
    # mute: no answer


def main(mode: str, pidfile: str) -> None:
    Path(pidfile).write_text(str(os.getpid()))
    if mode == "freeze":
        freeze()
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            answer(mode, message["id"], message.get("method"), message.get("params") or {})
    Path(pidfile + ".eof").write_text("stdin closed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
