"""A batch decided in another process: ``to_json`` here, ``load_tool_calls`` there.

The text crosses into a new process (forked from tests/forkserver.py's preloaded one),
which defines the same tools, loads the signed text, decides and runs: its answers are
the ones deciding in place gives.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from forkserver import ForkServer
from tooldeck import ToolRegistry

KEY = b"kept on the server"

TOOLS = """
from tooldeck import ToolRegistry

registry = ToolRegistry()

@registry.tool(requires_approval=True)
def delete_branch(name: str) -> str:
    return f"deleted {name}"

@registry.tool(requires_approval=lambda arguments, context: arguments["amount"] > 100)
def transfer(amount: int) -> str:
    return f"sent {amount}"

@registry.tool
def add(a: int, b: int) -> int:
    return a + b
"""

DECIDE = """
def decide(batch):
    batch.approve("c1", {"name": "feature"})
    batch.reject("c2", "over the limit")
    batch.answer("c4", "Kept it.")
"""

CHILD = (
    TOOLS
    + DECIDE
    + """
import json, os
batch = registry.load_tool_calls(os.environ["BATCH"], key=bytes.fromhex(os.environ["KEY"]))
decide(batch)
print(json.dumps(batch.run()))
"""
)

REPLY = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in [
            ("c1", "delete_branch", {"name": "main"}),
            ("c2", "transfer", {"amount": 500}),
            ("c3", "ghost", {}),
            ("c4", "delete_branch", {"name": "old"}),
            ("c5", "add", {"a": 1, "b": 2}),
        ]
    ],
}


def in_place() -> list[dict[str, Any]]:
    scope: dict[str, Any] = {}
    exec(TOOLS + DECIDE, scope)
    registry: ToolRegistry = scope["registry"]
    batch = registry.prepare_tool_calls(REPLY)
    scope["decide"](batch)
    return batch.run()


@pytest.mark.timeout(60)
def test_decided_and_run_in_a_new_process_answers_as_in_place(server_forks: ForkServer) -> None:
    scope: dict[str, Any] = {}
    exec(TOOLS, scope)
    text = scope["registry"].prepare_tool_calls(REPLY, context={"db": "conn"}).to_json(key=KEY)
    done = server_forks.run(code=CHILD, env={"BATCH": text, "KEY": KEY.hex()}, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    answers = json.loads(done.stdout)
    assert answers == in_place()
    assert [m["content"] for m in answers] == [
        "deleted feature",
        "Error: over the limit",
        "Error: Tool 'ghost' not found",
        "Kept it.",
        "3",
    ]
