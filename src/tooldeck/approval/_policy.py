"""Which calls need approval: one call of a reply read against the registry.

A call is read as a turn would run it — the tool looked up, its arguments validated —
and then its tool's ``requires_approval`` says whether it waits for a person: ``True``
always, a policy ``(arguments, context) -> bool`` per call (asked with the validated
arguments and the context, read-only). A policy that raises, or answers anything but a
``bool``, fails the call (naming the policy): it never runs on a policy's mistake.

Nothing a model sends decides this: approval is the tool's setting and a person's (or
the policy's) answer, never an argument (``approved``, ``_approved``... are arguments
like any other, refused when the tool does not take them).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from tooldeck._calling import Context
from tooldeck._reply_fields import ToolCall
from tooldeck._result import clip, failure_text, outside_text
from tooldeck._tool import Tool

from ._record import BatchCall

__all__ = ["edited", "read_call"]

logger = logging.getLogger("tooldeck")

_NO_CONTEXT: Mapping[str, Any] = MappingProxyType({})


def read_call(call: ToolCall, id: str, tool: Tool[..., Any] | None, context: Context) -> BatchCall:
    """``call`` as a batch holds it: ready, pending, or failed (and why)."""
    name = call[1]
    if tool is None:
        return BatchCall(call, id, None, "failed", f"Tool '{clip(name)}' not found")
    gate = tool._approval
    try:
        arguments = tool._validate(call[2])
    except Exception as exc:  # the words a run would give (never raising)
        return BatchCall(call, id, tool, "failed", _refused(tool, exc), gated=gate is not None)
    if gate is None:
        return BatchCall(call, id, tool, "ready")
    if gate is True:
        return BatchCall(call, id, tool, "pending", gated=True)
    try:
        needed = gate(arguments, _read_only(context))
    except Exception as exc:
        logger.debug("the approval policy of %r raised", tool.name, exc_info=exc)
        why = f"raised {outside_text(failure_text(exc))}"
        return BatchCall(call, id, tool, "failed", _policy_failed(tool, gate, why), gated=True)
    if type(needed) is not bool:  # None (a policy that forgot to return) must not mean "no"
        why = f"answered {clip(needed)}, not True or False"
        return BatchCall(call, id, tool, "failed", _policy_failed(tool, gate, why), gated=True)
    return BatchCall(call, id, tool, "pending" if needed else "ready", gated=True)


def edited(tool: Tool[..., Any], arguments: Any) -> str | None:
    """Why a person's edited ``arguments`` cannot run (``None``: they are valid)."""
    try:
        tool._validate(arguments)
    except Exception as exc:
        return _refused(tool, exc)
    return None


def _refused(tool: Tool[..., Any], exc: Exception) -> str:
    error = tool._failed(exc).error
    return error if isinstance(error, str) else str(error)


def _read_only(context: Context) -> Mapping[str, Any]:
    if context is None:
        return _NO_CONTEXT
    return MappingProxyType(context) if isinstance(context, dict) else context


def _policy_failed(tool: Tool[..., Any], policy: Any, why: str) -> str:
    label = getattr(policy, "__qualname__", None) or type(policy).__qualname__
    return f"Tool '{clip(tool.name)}' was not run: its approval policy '{clip(label)}' {why}"
