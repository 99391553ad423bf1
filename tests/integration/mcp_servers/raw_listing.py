"""A stdio MCP server, written by hand, that lists exactly the tools it is given.

Usage: ``python raw_listing.py LISTING.json``: the file holds the ``tools`` array of
the ``tools/list`` result, sent as it is — what a server of another framework (say,
fastmcp 2.x) or a buggy one sends, with nothing an SDK would add or check. A call
answers the tool's name and its arguments as JSON text; before answering, a tool whose
name starts with ``chatty`` sends a log notification at each MCP level and a progress
notification.

No imports beyond the standard library: it starts in milliseconds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def call(request_id: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    if str(name).startswith("chatty"):
        for level in LEVELS:
            log = {"level": level, "logger": "chatter", "data": f"{level} from {name}"}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
        token = (params.get("_meta") or {}).get("progressToken")
        if token is not None:
            progress = {"progressToken": token, "progress": 1, "total": 2, "message": "half"}
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
    text = json.dumps({"name": name, "arguments": params.get("arguments")}, sort_keys=True)
    result = {"content": [{"type": "text", "text": text}]}
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main(listing: str) -> None:
    tools = json.loads(Path(listing).read_text())
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        request_id, method = message["id"], message["method"]
        params = message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",  # a handshake-era server
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "raw", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            call(request_id, params)
            continue
        elif method in ("ping", "logging/setLevel"):
            result = {}
        else:
            error = {"code": -32601, "message": f"no method {method}"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main(sys.argv[1])
