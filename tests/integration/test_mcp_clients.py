"""Other MCP clients read what tooldeck serves: a value that breaks its declared output
schema is an ``isError`` result naming the mismatch, never ``structuredContent`` that
makes the client throw.

Clients: fastmcp's (the Python SDK underneath, in process) and the MCP TypeScript SDK's
(``@modelcontextprotocol/sdk``, installed with server-everything into ``.cache/npm`` by
``.ci/run``; skipped without node or the package).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tooldeck.mcp import to_value

SERVERS = Path(__file__).parent / "mcp_servers"
ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/sdk"
LIAR = (
    "Tool 'liar' returned a value that does not match its output schema:\n"
    "result: 'x' is not of type 'integer'"
)
BENT = (
    "Tool 'bent' returned a value that does not match its output schema:\n"
    "the result: 'y' is a required property\n"
    "x: 'left' is not of type 'integer'"
)

pytestmark = pytest.mark.timeout(120)


def strict_registry() -> Any:
    sys.path.insert(0, str(SERVERS))
    try:
        import strict_outputs
    finally:
        sys.path.remove(str(SERVERS))
    return strict_outputs.registry


async def test_the_python_sdk_reads_a_mismatch_as_an_error_result() -> None:
    async with Client(strict_registry().as_mcp_server()) as client:
        liar = await client.call_tool("liar", {}, raise_on_error=False)  # does not raise
        bent = await client.call_tool_mcp("bent", {})
        kept = await client.call_tool("add", {"a": 2, "b": 3})
    assert liar.is_error
    assert [item.text for item in liar.content] == [LIAR]  # type: ignore[union-attr]
    assert liar.structured_content is None
    assert bent.is_error
    assert [item.text for item in bent.content] == [BENT]  # type: ignore[union-attr]
    assert to_value(bent) == {"error": BENT}
    assert kept.data == 5


@pytest.mark.skipif(
    shutil.which("node") is None or not SDK.exists(),
    reason="the MCP TypeScript SDK is not installed: .ci/run installs it into .cache/npm "
    "when npm exists",
)
def test_the_typescript_sdk_reads_a_mismatch_as_an_error_result() -> None:
    done = subprocess.run(
        [
            "node", str(SERVERS / "ts_client.mjs"), sys.executable,
            str(SERVERS / "strict_outputs.py"), "--", "liar={}", "bent={}", 'add={"a": 2, "b": 3}',
            "steps={}",
        ],
        env={**os.environ, "SDK": str(SDK)},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    liar, bent, add, steps = out["calls"]
    assert liar == {
        "isError": True,
        "content": [{"type": "text", "text": LIAR}],
        "structuredContent": None,
    }
    assert bent["isError"] and bent["content"][0]["text"] == BENT
    assert add["structuredContent"] == {"result": 5}
    # served over stdio, a tool's five progress reports reach the TypeScript SDK's
    # client, in order, before the result (issue 25)
    assert steps["structuredContent"] == {"result": 5}
    assert steps["progress"] == [[i, 5, f"step {i}"] for i in range(1, 6)]
    # served annotations, and the annotation's title as the tool's title (what the
    # export says: issue 25), never one made up from the name
    assert out["tools"]["liar"] == {
        "annotations": {"readOnlyHint": True, "title": "A liar"},
        "title": "A liar",
    }
