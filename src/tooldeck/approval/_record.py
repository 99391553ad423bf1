"""One call of a model's reply in a batch: what it asks for, and where it stands.

A `BatchCall` is what a person (or `run_tool_calls`' ``approve``) sees of a call, and
what the batch keeps of it: the provider's call as read (its answer carries that id),
the arguments that will run (the model's, or a person's edits), and its status. Its
fields are read-only outside the batch: a decision goes through `ToolCallBatch`, never
through the record.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal, final

from tooldeck._reply_fields import ToolCall
from tooldeck._result import ToolResult, clip
from tooldeck._tool import Tool

__all__ = ["STATUSES", "BatchCall", "Status", "declined", "needs_approval"]

Status = Literal["ready", "pending", "approved", "rejected", "answered", "failed"]
STATUSES: tuple[str, ...] = ("ready", "pending", "approved", "rejected", "answered", "failed")


def declined(name: str) -> str:
    """What the model reads for a call a person declined (or never decided)."""
    return f"The user declined to run tool '{clip(name)}'"


def needs_approval(name: str) -> str:
    """What the model reads for a call that needs approval when nobody can give it."""
    return f"Tool '{clip(name)}' needs approval"


@final
class BatchCall:
    """One tool call of a model's reply, in a `tooldeck.ToolCallBatch`.

    Attributes:
        id: The provider's call id; for a call without one (Gemini may send such), an
            id of the batch's own, which its answer does not carry.
        name: The tool the model asked for.
        arguments: The arguments as the model sent them, parsed from JSON (the edited
            ones once approved with others); a fresh copy on each read.
        status: ``"ready"`` (runs), ``"pending"`` (waits for a decision),
            ``"approved"``, ``"rejected"``, ``"answered"``, or ``"failed"`` (cannot run:
            an unknown tool, invalid arguments, a policy that failed).
        message: What the model reads instead of a result: the failure, the decline or
            the answer given; ``None`` for a call that runs or waits.
        tool: The registry's `Tool` for ``name``, or ``None``.
    """

    __slots__ = ("_arguments", "_call", "_gated", "_id", "_message", "_status", "_tool")

    def __init__(
        self,
        call: ToolCall,
        id: str,
        tool: Tool[..., Any] | None,
        status: Status,
        message: str | None = None,
        *,
        gated: bool = False,
    ) -> None:
        self._call = call  # (provider id, name, arguments as sent): what the answer carries
        self._id = id
        self._tool = tool
        self._status: Status = status
        self._message = message
        self._arguments: Any = call[2]  # what runs: the model's, or a person's edits
        self._gated = gated  # the tool needs approval (or its policy could not tell)

    @property
    def id(self) -> str:
        return self._id

    @property
    def name(self) -> str:
        return self._call[1]

    @property
    def arguments(self) -> Any:
        return _shown(self._arguments)

    @property
    def status(self) -> Status:
        return self._status

    @property
    def message(self) -> str | None:
        return self._message

    @property
    def tool(self) -> Tool[..., Any] | None:
        return self._tool

    def __repr__(self) -> str:
        return f"<BatchCall {self._id!r} {self.name!r} {self._status}>"

    # -- the batch's side ---------------------------------------------------------------

    def _runs(self) -> bool:
        """Whether the registry runs this call (a failure of a tool that needs no
        approval runs too: it fails there again, as in any turn, middleware seeing it)."""
        status = self._status
        return status in ("ready", "approved") or (status == "failed" and not self._gated)

    def _settle(self, status: Status, message: str | None = None) -> None:
        self._status = status
        self._message = message

    def _outcome(self, nobody_asked: bool) -> ToolResult:
        """The result of a call that does not run. A call still pending was declined,
        or — ``nobody_asked``: nobody could decide — it needs approval."""
        status, message = self._status, self._message
        if status == "answered":
            return ToolResult.ok(message)
        if status == "pending":
            return ToolResult.fail((needs_approval if nobody_asked else declined)(self.name))
        return ToolResult.fail(message or declined(self.name))


def _shown(arguments: Any) -> Any:
    """Arguments for a person's eyes: JSON text parsed (as is when it is no JSON)."""
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments if isinstance(arguments, str) else bytes(arguments)
    return copy.deepcopy(arguments)
