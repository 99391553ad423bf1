"""Approval at the MCP edge: a served tool that needs it asks the client by elicitation.

A client calling a tool whose ``requires_approval`` says the call needs a person's yes
is asked, by an MCP elicitation (a yes / no form), before the tool runs: it runs when
the person accepts with yes, and the call answers the decline otherwise. On
handshake-era connections the server asks during the call (``ctx.elicit``); on
2026-07-28 ones the call answers with the question and the client calls again with the
answer (SEP-2322's multi-round trip, which fastmcp's client drives). A client that cannot be
asked (it did not declare elicitation, or the protocol version has no way back to it)
gets ``"Tool '<name>' needs approval"``, as ``run_tool_calls`` without ``approve`` does.
The call is read as a batch reads it (`tooldeck.approval`): invalid arguments, or a
policy that fails, answer as they would there.

This module imports fastmcp at the top: `tooldeck.mcp._provider` imports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from fastmcp.server.dependencies import get_context
from fastmcp.server.elicitation import handle_elicit_accept, parse_elicit_response_type
from fastmcp.tools.base import InputRequiredToolResult
from mcp_types import (
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tooldeck._result import clip, failure_text, outside_text
from tooldeck._tool import Tool
from tooldeck.approval._policy import read_call
from tooldeck.approval._record import declined, needs_approval

__all__ = ["refusal"]

logger = logging.getLogger("tooldeck.mcp")

_ELICITING = ClientCapabilities(elicitation=ElicitationCapability())
_CONFIG = parse_elicit_response_type(bool, response_title="Approve")  # a yes / no form
_KEY = "tooldeck_approval"  # the question's key among a call's input requests
# How long a person may take to answer, asked during the call (handshake-era
# connections): a client that says it can be asked and never answers must not hold the
# call forever. The tool's own timeout does not count this wait.
ASK_TIMEOUT = 600.0


async def refusal(
    tool: Tool[..., Any], arguments: Mapping[str, Any], context: Mapping[str, Any] | None
) -> str | InputRequiredToolResult | None:
    """Why the call may not run (the text the client reads), the question to ask the
    client first (2026-07-28 connections), or ``None``: it may run."""
    call = read_call((None, tool.name, arguments), "mcp", tool, context)
    if call.status == "ready":
        return None
    if call.status != "pending":  # failed: invalid arguments, a policy that failed
        return call.message
    ctx = get_context()
    try:
        can_ask = ctx.session.check_client_capability(_ELICITING)
    except Exception:  # no session to ask through
        can_ask = False
    if not can_ask:
        return needs_approval(tool.name)
    question = _question(tool.name, call.arguments)
    try:
        if getattr(ctx.request_context, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return _asked_again(ctx, tool.name, question, arguments)
        answer = await asyncio.wait_for(
            ctx.elicit(question, bool, response_title="Approve"), ASK_TIMEOUT
        )
        accepted = answer.action == "accept" and getattr(answer, "data", None) is True
    except asyncio.TimeoutError:  # (3.10: not yet the builtin TimeoutError)
        return f"{needs_approval(tool.name)}: no answer within {ASK_TIMEOUT:g} s"
    except Exception as exc:  # the client failed to answer, or cannot be asked here
        logger.debug("asking for approval of %r failed", tool.name, exc_info=exc)
        why = outside_text(failure_text(exc))
        return f"{needs_approval(tool.name)}: asking the client for it failed: {why}"
    return None if accepted else declined(tool.name)


def _asked_again(
    ctx: Any, name: str, question: str, arguments: Mapping[str, Any]
) -> str | InputRequiredToolResult | None:
    """2026-07-28 connections have no way back to the client during a call (SEP-2322):
    the call answers with the question, and the client calls again with its answer.

    The answer counts only for the very call asked about: the request state (sealed by
    fastmcp) names the tool and a digest of its arguments, so a retry with other
    arguments, or an answer sent unasked, is asked again.
    """
    state = _state(name, arguments)
    responses = ctx.input_responses
    answer = responses.get(_KEY) if responses is not None else None
    if answer is None or ctx.request_state != state:
        request = ElicitRequest(
            params=ElicitRequestFormParams(message=question, requested_schema=_CONFIG.schema)
        )
        asked = InputRequiredResult(input_requests={_KEY: request}, request_state=state)
        return InputRequiredToolResult(asked)
    if getattr(answer, "action", None) != "accept":
        return declined(name)
    try:
        accepted = handle_elicit_accept(_CONFIG, answer.content).data is True
    except Exception:  # content that is not the form's
        accepted = False
    return None if accepted else declined(name)


def _state(name: str, arguments: Mapping[str, Any]) -> str:
    try:
        text = json.dumps(arguments, sort_keys=True, ensure_ascii=True, default=repr)
    except (TypeError, ValueError):
        text = repr(arguments)
    digest = hashlib.sha256(f"{name}\x00{text}".encode()).hexdigest()
    return f"tooldeck-approval:{digest}"


def _question(name: str, arguments: Any) -> str:
    try:
        shown = json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = clip(arguments)
    return f"Allow tool '{clip(name)}' to run with these arguments? {clip(shown, 2000)}"
