"""An MCP server over stdio, written by hand, that misbehaves on request.

It speaks just enough JSON-RPC for a client to connect and list its tools; each tool
then fails in its own way:

* ``good``: answers its process id (so a test can tell a restarted server);
* ``crash``: the process exits mid-call;
* ``hang``: never answers (other requests are still answered);
* ``garbage``: writes a line that is not JSON, and never answers;
* ``bad_content``: a result whose ``content`` is not a list;
* ``unknown_type``: a content item of a type MCP does not define;
* ``rpc_error``: a JSON-RPC error instead of a result;
* ``wrong_id``: answers a request id that was never sent;
* ``not_object``: structured content that is a list, not an object;
* ``error_no_text``: ``isError`` without any text;
* ``deep_text``: text of 100,000 ``[`` (JSON nested deeper than any parser's stack);
* ``deep_structured``: structured content nested 5,000 levels deep (a message the
  client cannot parse);
* ``deep_error``: ``isError`` whose text is 100,000 ``[``.

No imports beyond the standard library: it starts in milliseconds.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

NAMES = [
    "good",
    "crash",
    "hang",
    "garbage",
    "bad_content",
    "unknown_type",
    "rpc_error",
    "wrong_id",
    "not_object",
    "error_no_text",
    "deep_text",
    "deep_structured",
    "deep_error",
]
TOOLS = [{"name": n, "inputSchema": {"type": "object", "properties": {}}} for n in NAMES]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id: Any, value: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def call(request_id: Any, name: str) -> None:
    if name == "good":
        result(request_id, {"content": [{"type": "text", "text": str(os.getpid())}]})
    elif name == "crash":
        os._exit(3)
    elif name == "hang":
        return
    elif name == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
    elif name == "bad_content":
        result(request_id, {"content": "oops"})
    elif name == "unknown_type":
        result(request_id, {"content": [{"type": "hologram", "data": "?"}]})
    elif name == "rpc_error":
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": "boom"}})
    elif name == "wrong_id":
        result(987654321, {"content": [{"type": "text", "text": "stray"}]})
    elif name == "not_object":
        result(request_id, {"content": [], "structuredContent": [1, 2]})
    elif name == "error_no_text":
        result(request_id, {"content": [], "isError": True})
    elif name == "deep_text":
        result(request_id, {"content": [{"type": "text", "text": "[" * 100_000}]})
    elif name == "deep_structured":
        deep = '{"a":' * 5000 + "1" + "}" * 5000
        text = '{"content": [], "structuredContent": ' + deep + "}"
        head = f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "result": '
        sys.stdout.write(head + text + "}\n")
        sys.stdout.flush()
    elif name == "deep_error":
        text = "[" * 100_000
        result(request_id, {"content": [{"type": "text", "text": text}], "isError": True})


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        request_id, method = message["id"], message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            result(
                request_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "faulty", "version": "0"},
                },
            )
        elif method == "tools/list":
            result(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            call(request_id, params.get("name"))
        elif method == "ping":
            result(request_id, {})
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"no method {method}"},
                }
            )


if __name__ == "__main__":
    main()
