"""Pydantic AI: tooldeck's tools as ``pydantic_ai.Tool``s (a registry's as a
``FunctionToolset``), and Pydantic AI tools in a registry.

Extra ``pydantic-ai`` (``pydantic-ai-slim``). Imported only when a bridge is used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from pydantic_core import to_json

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
    unapproved_reason,
)

__all__ = ["describe", "to_tool", "to_toolset"]

EXTRA = "pydantic-ai"
# Values Pydantic AI serialises for its model as they are (no media, nothing it cannot
# serialise): handed on without a check.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def to_tool(bridge: Bridge) -> Any:
    """A ``pydantic_ai.Tool`` running ``bridge`` with tooldeck's schema (Pydantic AI
    validates nothing more: ``Tool.from_schema``). A failure is returned as the
    ``Error: ...`` text the model reads, not a ``ModelRetry``, whose retry budget would
    end the run."""
    pydantic_ai = require("pydantic_ai", EXTRA)

    acall, given, needs, name = bridge.acall, bridge.context, bridge.needs_approval, bridge.name
    approval_required = require("pydantic_ai.exceptions", EXTRA).ApprovalRequired

    async def run(arguments: Any, ctx: Any) -> Any:
        deps = ctx.deps  # (the usual case, a dict of deps, without a call)
        if given is None and type(deps) is dict:
            context = deps
        else:
            try:
                context = context_for(given, ctx, deps)
            except NoContext as exc:
                return no_context(name, exc)
        if needs is not None and not ctx.tool_call_approved and needs(arguments, context):
            raise approval_required()  # Pydantic AI's own: the run defers the call
        # Agently's face: the value or the "Error: ..." text, which is what the model
        # reads either way; no ToolResult is made for a plain value.
        value = await acall(arguments, context=context)
        if type(value) in _PLAIN:
            return value
        if type(value) is ToolResult:  # an MCP proxy's whole result (see `Bridge.acall`)
            return _answer(value, pydantic_ai)
        return _answer(ToolResult.ok(value), pydantic_ai)

    async def call(ctx: Any, /, **arguments: Any) -> Any:  # (an argument may be named ctx)
        return await run(arguments, ctx)

    tool = pydantic_ai.Tool.from_schema(
        call,
        name=bridge.name,
        description=bridge.description,
        json_schema=bridge.parameters,
        takes_ctx=True,
    )
    faster = _schema_class(type(tool.function_schema))
    if faster is not None:
        schema = tool.function_schema
        fields = {f.name: getattr(schema, f.name) for f in dataclasses.fields(schema)}
        tool.function_schema = faster(**fields, run=run)
    return tool


_SCHEMA_CLASSES: dict[type, Any] = {}


def _schema_class(base: type) -> Any:
    """``base`` (Pydantic AI's ``FunctionSchema``, the type of ``Tool.function_schema``)
    with a ``call`` that hands the arguments straight to our runner; ``None`` when it is
    not the dataclass with ``call(args, ctx)`` this expects (the tool then calls through
    ``Tool.from_schema``'s function, as before).

    Why: Pydantic AI's own ``call`` spends most of a call's time outside the tool (it
    builds ``typing.cast``'s ``Callable[...]`` alias on every call, ~1 µs, twice what
    validating two ints takes), then spreads the arguments into our function, which
    gathers them again; and arguments that are no object (``[1, 2]``) make that spread
    raise into the run. ``tests/integration/test_framework_pydantic_ai.py`` fails loudly
    when this path is no longer taken.
    """
    if base in _SCHEMA_CLASSES:
        return _SCHEMA_CLASSES[base]
    made: Any = None
    if dataclasses.is_dataclass(base) and callable(getattr(base, "call", None)):

        @dataclasses.dataclass(kw_only=True)
        class TooldeckFunctionSchema(base):  # type: ignore[misc]
            run: Callable[[Any, Any], Awaitable[Any]]

            def call(self, args_dict: Any, ctx: Any) -> Awaitable[Any]:
                return self.run(args_dict, ctx)

        made = TooldeckFunctionSchema
    _SCHEMA_CLASSES[base] = made
    return made


def to_toolset(bridges: list[Bridge]) -> Any:
    """A ``FunctionToolset`` of the bridges' tools."""
    toolsets = require("pydantic_ai.toolsets", EXTRA)
    return toolsets.FunctionToolset([to_tool(b) for b in bridges])


def _answer(result: ToolResult, pydantic_ai: Any) -> Any:
    """The value itself (Pydantic AI serialises a tool's return value for its model, as
    for its own tools), media as its content, a failure as the ``Error: ...`` text.

    A value Pydantic AI cannot serialise (an object of no known type, at any depth) would
    raise out of its run, and an iterator would sit unread in its message history: those
    are tooldeck's text, as the other bridges answer."""
    if not result.success:
        return str(result)
    parts = parts_of(result)
    if parts is not None:
        return [_content(part, pydantic_ai) for part in parts]
    data = result.data
    if isinstance(data, Iterator):
        return str(result)
    try:  # (as Pydantic AI serialises a tool's return: bytes as base64)
        to_json(data, bytes_mode="base64")
    except Exception:
        return str(result)
    return data


def _content(part: Any, pydantic_ai: Any) -> Any:
    """A part as Pydantic AI's user content: text, ``BinaryContent``, or the URL kinds."""
    if not is_media(part):
        return part
    media: Media = part
    if media.data is not None:
        return pydantic_ai.BinaryContent(data=media.data, media_type=media.mime_type)
    url_kind = {"image": "ImageUrl", "audio": "AudioUrl"}.get(media.kind, "DocumentUrl")
    return getattr(pydantic_ai, url_kind)(url=media.url)


# -- the other way: a Pydantic AI tool in a registry ------------------------------------------


def describe(obj: Any) -> Foreign:
    """A ``pydantic_ai.Tool`` as a registry takes it: its name, description and JSON
    schema; its arguments validated by its own validator, then its function called.

    A tool that takes a ``RunContext`` gets one whose ``deps`` is the call's context
    (``None`` without one) and, outside an agent run, whose ``model`` is ``None``."""
    pydantic_ai = require("pydantic_ai", EXTRA)
    usage = require("pydantic_ai.usage", EXTRA).RunUsage
    asks = require("pydantic_ai.exceptions", EXTRA).ApprovalRequired
    schema = obj.function_schema
    # A tool made with requires_approval=True needs tooldeck's approval (`Foreign`): a
    # model's call of it runs only once approved, so it runs as approved (`approved()`,
    # whatever approval it was registered with).
    approval = getattr(obj, "requires_approval", False) is True

    async def arun(arguments: dict[str, Any], context: Any, approved: Any) -> ToolResult:
        try:
            validated = schema.validator.validate_python(arguments)
            ctx = pydantic_ai.RunContext(
                deps=context,
                model=None,
                usage=usage(),
                tool_name=obj.name,
                tool_call_id="tooldeck",
                tool_call_approved=reads and approved(),
            )
            if prepared and await obj.prepare_tool_def(ctx) is None:
                return hidden(obj.name)  # its prepare hides it from this run
            value = await schema.call(validated, ctx)
        except asks as exc:  # the tool asking for approval itself: nobody here can give it
            return ToolResult.fail(unapproved_reason(obj.name), exception=exc)
        except Exception as exc:  # its validator's refusal, ModelRetry, the tool's own
            return ToolResult.fail(failure_text(exc), exception=exc)
        return ToolResult.ok(from_parts(value, media))

    def media(value: Any) -> Any:  # BinaryContent and the URL kinds: tooldeck's media
        if isinstance(value, binary):
            return media_or(value, None, data=value.data, mime=value.media_type)
        if isinstance(value, urls):
            try:
                mime = value.media_type  # (read from the URL's suffix: it may raise)
            except Exception:
                return value
            return media_or(value, None, url=value.url, mime=mime)
        return value

    binary = pydantic_ai.BinaryContent
    urls = (pydantic_ai.ImageUrl, pydantic_ai.AudioUrl, pydantic_ai.DocumentUrl)
    description = obj.description or obj.name
    takes = bool(obj.takes_ctx)
    prepared = obj.prepare is not None
    # (its prepare reads the run's deps too: the call's context)
    reads = takes or prepared
    return Foreign(obj.name, description, dict(schema.json_schema), arun, reads, approval)
