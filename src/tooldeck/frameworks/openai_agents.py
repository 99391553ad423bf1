"""The OpenAI Agents SDK: tooldeck's tools as ``FunctionTool``s, and ``FunctionTool``s
in a registry.

Extra ``openai-agents``. Imported only when a bridge is used.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from tooldeck._media import Media, is_media
from tooldeck._result import ToolResult, failure_text

from ._shared import (
    Bridge,
    Foreign,
    NoContext,
    context_for,
    from_parts,
    hidden,
    media_or,
    no_context,
    parts_of,
    require,
)

__all__ = ["describe", "to_tool"]

EXTRA = "openai-agents"


def to_tool(bridge: Bridge) -> Any:
    """A ``FunctionTool`` running ``bridge``: tooldeck's schema as is (not in the SDK's
    strict mode, which would change what the tool takes), the JSON text the model sent
    validated by tooldeck, a failure the ``Error: ...`` text the model reads."""
    agents = require("agents", EXTRA)

    async def invoke(ctx: Any, arguments: str) -> Any:
        run_context = getattr(ctx, "context", None)
        try:
            context = context_for(bridge.context, ctx, run_context)
        except NoContext as exc:
            return no_context(bridge.name, exc)
        return _answer(await bridge.arun(arguments or "{}", context=context), agents)

    return agents.FunctionTool(
        name=bridge.name,
        description=bridge.description,
        params_json_schema=bridge.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
        needs_approval=_approval(bridge),
    )


def _approval(bridge: Bridge) -> Any:
    """The SDK's own ``needs_approval`` (the run pauses for a person) for a tool that
    needs approval: ``False`` for one that never does."""
    needs = bridge.needs_approval
    if needs is None:
        return False

    async def needs_approval(run_context: Any, arguments: Any, call_id: str) -> bool:
        fallback = getattr(run_context, "context", None)
        try:
            context = context_for(bridge.context, run_context, fallback)
        except NoContext:
            return True  # a person is asked; the call itself then fails on its context
        return needs(arguments, context)

    return needs_approval


def _answer(result: ToolResult, agents: Any) -> Any:
    parts = parts_of(result)
    if parts is None:
        return str(result)
    return [_output(part, agents) for part in parts]


def _output(part: Any, agents: Any) -> Any:
    """A part as the SDK's tool output: text, an image, a file; audio, which the SDK's
    tool outputs cannot carry, as its placeholder text."""
    if not is_media(part):
        return agents.ToolOutputText(text=part)
    media: Media = part
    if media.kind == "image":
        url = media.url if media.data is None else media.data_url()
        return agents.ToolOutputImage(image_url=url)
    if media.kind == "file":
        if media.data is None:
            return agents.ToolOutputFileContent(file_url=media.url, filename=media.name)
        return agents.ToolOutputFileContent(file_data=media.data_url(), filename=media.name)
    return agents.ToolOutputText(text=media.placeholder)


# -- the other way: a FunctionTool in a registry ----------------------------------------------


def describe(obj: Any) -> Foreign:
    """A ``FunctionTool`` as a registry takes it: its name, description and
    ``params_json_schema``; run by its own ``on_invoke_tool`` (which validates the
    arguments), with a ``ToolContext`` whose ``context`` is the call's context."""
    agents = require("agents", EXTRA)
    usage = agents.Usage
    tool_context = require("agents.tool_context", EXTRA).ToolContext
    # A @function_tool's invoker turns an exception (its SDK's refusal of the arguments,
    # or the tool's own) into a success's text for its model: its default
    # failure_error_function. Before it answers that text, it hands the exception to
    # the run's `RunConfig.tool_error_formatter` (public API), which keeps it here: the
    # call is then that exception's failure. A FunctionTool given its own failure
    # function keeps it (the SDK asks no formatter then); one given None raises.
    caught: dict[int, Exception] = {}

    def keep(args: Any) -> None:
        if args.kind == "tool_exception" and isinstance(args.error, Exception):
            caught[id(args.run_context)] = args.error
        return None  # (the SDK answers its default text, which nobody reads)

    run_config = agents.RunConfig(tool_error_formatter=keep, tracing_disabled=True)

    async def arun(arguments: dict[str, Any], context: Any, approved: Any) -> ToolResult:
        text = json.dumps(arguments, ensure_ascii=False)
        ctx = tool_context(  # (the call's context as the run's: RunContextWrapper.context)
            context=context,
            usage=usage(),
            tool_name=obj.name,
            tool_call_id="tooldeck",
            tool_arguments=text,
            run_config=run_config,
        )
        if asks_enabled and not await _enabled(is_enabled, ctx):
            return hidden(obj.name)
        try:
            value = await obj.on_invoke_tool(ctx, text)
        except Exception as exc:  # a tool given failure_error_function=None
            return ToolResult.fail(failure_text(exc), exception=exc)
        finally:
            error = caught.pop(id(ctx), None)
        if error is not None:
            return ToolResult.fail(failure_text(error), exception=error)
        return ToolResult.ok(from_parts(value, lambda part: _media(part, agents)))

    # ``needs_approval``: ``True``, or the SDK's own policy of its run context, which
    # tooldeck cannot ask outside a run: a person is asked every time (never unasked).
    approval = getattr(obj, "needs_approval", False) is not False
    # ``is_enabled``: ``False`` → registered disabled; a callable of the run (its
    # context, the agent) → asked at each call with the call's context and no agent.
    is_enabled = getattr(obj, "is_enabled", True)
    asks_enabled = callable(is_enabled)
    description = obj.description or obj.name
    parameters = dict(obj.params_json_schema)
    return Foreign(obj.name, description, parameters, arun, True, approval, is_enabled is not False)


async def _enabled(is_enabled: Any, ctx: Any) -> bool:
    """A ``FunctionTool``'s ``is_enabled`` callable's answer for one call (``agent``:
    ``None``, as tooldeck runs no agent); one that raises disables the call."""
    try:
        answer = is_enabled(ctx, None)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception:
        return False
    return bool(answer)


def _media(value: Any, agents: Any) -> Any:
    """The SDK's tool outputs as parts: text, tooldeck's media (a file id, which only
    OpenAI can read, stays as it is)."""
    if isinstance(value, agents.ToolOutputText):
        return value.text
    if isinstance(value, agents.ToolOutputImage) and value.image_url:
        return media_or(value, "image", url=value.image_url)
    if isinstance(value, agents.ToolOutputFileContent):
        url = value.file_data or value.file_url
        if url:
            return media_or(value, "file", url=url, name=value.filename)
    return value
