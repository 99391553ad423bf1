"""Approval before a call runs: a person (or a policy) decides, the conversation stays valid.

A tool defined with ``requires_approval`` (``True``, or a policy ``(arguments, context)
-> bool``) does not run when a model asks for it until someone says yes:

* ``registry.prepare_tool_calls(reply)`` → a `ToolCallBatch`: every call of the reply
  read and validated (a `BatchCall` each), nothing run; decide the pending ones
  (``approve``, ``reject``, ``answer``), then ``run()`` / ``await arun()`` answers every
  call in the provider's format. ``to_json(key=...)`` and
  ``registry.load_tool_calls(text, key=...)`` carry it across processes or requests;
  ``once=UsedBatches()`` there makes the text run once, however often it is loaded.
* ``registry.run_tool_calls(reply, approve=...)``: decisions inline.
* Served over MCP, such a tool asks the client by elicitation.

docs/approval.md tells it with examples.
"""

from __future__ import annotations

from ._batch import ToolCallBatch
from ._once import UsedBatches
from ._record import BatchCall, Status

__all__ = ["BatchCall", "Status", "ToolCallBatch", "UsedBatches"]
