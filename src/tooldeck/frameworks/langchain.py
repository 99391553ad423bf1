"""LangChain: tooldeck's tools as LangChain tools, and LangChain tools in a registry.

Extra ``langchain`` (``langchain-core``; LangGraph's ``ToolNode`` / ``create_agent``
run the tools). Imported only when a bridge is used.
"""

from __future__ import annotations

import base64
import importlib
import typing
from collections.abc import Mapping
from typing import Any

from tooldeck._media import Media, is_media
from tooldeck._result import ToolResult, clip, failure_text
from tooldeck.errors import ToolDefinitionError

from ._shared import (
    Bridge,
    Foreign,
    NoContext,
    context_for,
    declined,
    from_parts,
    media_or,
    no_context,
    parts_of,
    require,
    unapproved,
)

__all__ = ["describe", "to_tool"]

EXTRA = "langchain"
# The parameters our function takes beside the model's arguments: LangChain hands the
# RunnableConfig to a parameter annotated with it, LangGraph's ToolNode a ToolRuntime to
# one annotated with that. A tool taking an argument of either name is refused (`to_tool`).
_CONFIG = "tooldeck_config__"
_RUNTIME = "tooldeck_runtime__"


def to_tool(bridge: Bridge) -> Any:
    """A LangChain ``StructuredTool`` running ``bridge`` (tooldeck's schema as its own;
    a failure is a ``ToolMessage`` with ``status="error"`` and tooldeck's text)."""
    taken = sorted({_CONFIG, _RUNTIME} & set(bridge.parameters.get("properties", ())))
    if taken:
        raise ToolDefinitionError(
            "the LangChain bridge passes LangChain's own values under this name; rename it",
            tool=bridge.name,
            param=taken[0],
        )
    tools = require("langchain_core.tools", EXTRA)
    config_type = require("langchain_core.runnables", EXTRA).RunnableConfig
    runtime_type = _tool_runtime()
    needs = bridge.needs_approval

    context = _context_reader(bridge, runtime_type, tools.ToolException)

    def func(**kwargs: Any) -> Any:
        ctx = context(kwargs)
        if needs is not None and needs(kwargs, ctx):
            decided = _approve(bridge.name, kwargs, tools.ToolException)
            if isinstance(decided, _Responded):
                return str(decided)
            kwargs = decided
        return _answer(bridge.run(kwargs, context=ctx), tools.ToolException)

    async def coroutine(**kwargs: Any) -> Any:
        ctx = context(kwargs)
        if needs is not None and needs(kwargs, ctx):
            decided = _approve(bridge.name, kwargs, tools.ToolException)
            if isinstance(decided, _Responded):
                return str(decided)
            kwargs = decided
        return _answer(await bridge.arun(kwargs, context=ctx), tools.ToolException)

    annotations = {_CONFIG: config_type, "return": Any}
    if runtime_type is not None:
        annotations[_RUNTIME] = runtime_type
    for function in (func, coroutine):
        function.__annotations__ = annotations
        function.__signature__ = _signature(annotations)  # type: ignore[union-attr]
    return _tool_class(tools.StructuredTool, config_type)(
        name=bridge.name,
        description=bridge.description,
        args_schema=bridge.parameters,
        func=func,
        coroutine=coroutine,
        handle_tool_error=True,  # our ToolException: the model reads tooldeck's text
    )


def _context_reader(bridge: Bridge, runtime_type: Any, refuse: type[Exception]) -> Any:
    """Reads one call's context from the keyword arguments LangChain hands our function
    (taking out the config and runtime it adds); a ``context=`` callable's failure is
    the call's (``refuse``: LangChain's ``ToolException``, whose text the model reads)."""

    def context(kwargs: dict[str, Any]) -> Any:
        config = kwargs.pop(_CONFIG, None)
        runtime = kwargs.pop(_RUNTIME, None)
        if runtime is not None and (runtime_type is None or not isinstance(runtime, runtime_type)):
            kwargs[_RUNTIME] = runtime  # a model's argument, not LangGraph's: refused as such
            runtime = None
        given = runtime if runtime is not None else config
        configurable = config.get("configurable") if isinstance(config, Mapping) else None
        fallback = getattr(runtime, "context", None)
        try:
            return context_for(bridge.context, given, fallback, configurable)
        except NoContext as exc:
            raise refuse(no_context(bridge.name, exc)) from None

    return context


_TOOL_CLASS: list[Any] = []


def _tool_class(structured_tool: Any, config_type: Any) -> Any:
    """A ``StructuredTool`` that hands the ``RunnableConfig`` to our parameter, not one
    named ``config``, and takes no ``run_manager``: LangChain fills its ``_run``'s own
    parameters of those names over the model's arguments, so a tool's ``config`` or
    ``run_manager`` argument would be lost."""
    if _TOOL_CLASS:
        return _TOOL_CLASS[0]

    class TooldeckTool(structured_tool):  # type: ignore[misc]
        def _run(self, *args: Any, **kwargs: Any) -> Any:
            return self.func(*args, **kwargs)

        async def _arun(self, *args: Any, **kwargs: Any) -> Any:
            return await self.coroutine(*args, **kwargs)

    for method in (TooldeckTool._run, TooldeckTool._arun):
        method.__annotations__ = {_CONFIG: config_type, "return": Any}
        method.__signature__ = _signature(method.__annotations__, "self")  # type: ignore[union-attr]
    _TOOL_CLASS.append(TooldeckTool)
    return TooldeckTool


def _signature(annotations: dict[str, Any], *first: str) -> Any:
    import inspect

    kind = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in first]
    params += [
        inspect.Parameter(name, kind, default=None, annotation=annotation)
        for name, annotation in annotations.items()
        if name != "return"
    ]
    params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def _tool_runtime() -> Any:
    """LangGraph's ``ToolRuntime`` when LangGraph is installed (LangChain without it has
    no runtime to hand)."""
    try:
        return importlib.import_module("langgraph.prebuilt").ToolRuntime
    except (ImportError, AttributeError):
        return None


class _Responded(str):
    """A person's answer in the tool's place (LangChain's ``respond`` decision)."""


def _approve(
    name: str, arguments: dict[str, Any], refuse: type[Exception]
) -> dict[str, Any] | _Responded:
    """Ask for approval where a call needs it, through LangGraph's ``interrupt``: the
    graph pauses with ``{"tool", "arguments"}`` and resumes with the decision (see
    `_decided`): the arguments to run the call with, or a `_Responded` answer. Where
    nobody can be asked (no LangGraph, no graph run), the call does not run."""
    try:
        interrupt = importlib.import_module("langgraph.types").interrupt
        pause = importlib.import_module("langgraph.errors").GraphBubbleUp
    except ImportError:
        raise refuse(unapproved(name)) from None
    try:
        decision = interrupt({"tool": name, "arguments": dict(arguments)})
    except Exception as exc:
        if isinstance(exc, pause):  # the graph pausing: LangGraph's own, let it through
            raise
        raise refuse(unapproved(name)) from None  # outside a graph's run
    return _decided(name, arguments, decision, refuse)


def _decided(
    name: str, arguments: dict[str, Any], decision: Any, refuse: type[Exception]
) -> dict[str, Any] | _Responded:
    """A resume value read as a decision on one call: ``True`` runs it and a message
    declines it (tooldeck's own), or LangChain's ``HumanInTheLoopMiddleware`` decisions
    (``{"type": "approve" | "edit" | "reject" | "respond", ...}``, alone or as its
    ``{"decisions": [one]}``). An edit runs the call with ``edited_action["args"]``,
    which the registry validates again; it cannot name another tool. Anything else
    declines (``refuse``: the model reads the reason)."""
    if decision is True:
        return arguments
    if isinstance(decision, str):
        raise refuse(f"Error: {decision}")
    if isinstance(decision, Mapping) and "type" not in decision:
        decisions = decision.get("decisions")  # (HITLResponse: one call, one decision)
        if isinstance(decisions, list) and len(decisions) == 1:
            decision = decisions[0]
    kind = decision.get("type") if isinstance(decision, Mapping) else None
    if kind == "approve":
        return arguments
    if kind == "edit":
        return _edited(name, decision.get("edited_action"), refuse)
    message = decision.get("message") if kind in ("reject", "respond") else None
    if kind == "respond" and isinstance(message, str):
        return _Responded(message)
    if kind == "reject" and isinstance(message, str) and message:
        raise refuse(f"Error: {message}")
    raise refuse(declined(name))


def _edited(name: str, action: Any, refuse: type[Exception]) -> dict[str, Any]:
    """An ``EditDecision``'s ``edited_action`` (``{"name", "args"}``): its arguments."""
    args = action.get("args") if isinstance(action, Mapping) else None
    if not isinstance(args, Mapping):
        raise refuse(declined(name))
    other = action.get("name", name)
    if other != name:
        raise refuse(
            f"Error: An edit of a call of tool '{clip(name)}' cannot run another tool "
            f"('{clip(str(other))}')"
        )
    return dict(args)


def _answer(result: ToolResult, tool_exception: type[Exception]) -> Any:
    """What the tool returns to LangChain: the text, content blocks for media, or (a
    failure) a ``ToolException`` its ``handle_tool_error`` turns into an error message."""
    if not result.success:
        raise tool_exception(str(result))
    parts = parts_of(result)
    if parts is None:
        return str(result)
    return [_block(part) for part in parts]


def _block(part: Any) -> dict[str, Any]:
    """A part as a LangChain (v1) content block."""
    if not is_media(part):
        return {"type": "text", "text": part}
    media: Media = part
    kind = "file" if media.kind == "file" else media.kind
    if media.data is None:
        return {"type": kind, "url": media.url, "mime_type": media.mime_type}
    return {"type": kind, "base64": media.base64, "mime_type": media.mime_type}


# -- the other way: a LangChain tool in a registry ------------------------------------------


def describe(obj: Any) -> Foreign:
    """A LangChain ``BaseTool`` as a registry takes it: its name, description and the
    schema its model sees (LangChain's own conversion); run by its own ``ainvoke``,
    which validates the arguments.

    The call's context is the run's: the ``RunnableConfig``'s ``configurable`` (a tool
    taking a ``config`` reads it there), and a LangGraph ``ToolRuntime`` whose
    ``context`` it is for a tool taking one (which ``ToolNode`` would have given it)."""
    convert = require("langchain_core.utils.function_calling", EXTRA).convert_to_openai_tool
    parameters = dict(convert(obj)["function"].get("parameters") or {})
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    runtimes = _runtime_params(obj)
    runtime_type = _tool_runtime()
    takes_call_id = _takes_call_id(obj)

    async def arun(arguments: dict[str, Any], context: Any, approved: Any) -> ToolResult:
        config: dict[str, Any] = {}
        if isinstance(context, Mapping):
            config["configurable"] = dict(context)
        if runtimes:
            runtime = runtime_type(
                state={},
                context=context,
                config=config,
                stream_writer=_no_stream,
                tool_call_id=None,
                store=None,
            )
            arguments = {**arguments, **dict.fromkeys(runtimes, runtime)}
        try:  # (a tool that handles its own errors returns their text, as to its model)
            if takes_call_id:  # (LangChain refuses its plain arguments)
                call = {"type": "tool_call", "name": obj.name, "args": arguments, "id": _CALL_ID}
                value = _content_of(await obj.ainvoke(call, config=config or None))
            else:
                value = await obj.ainvoke(arguments, config=config or None)
        except Exception as exc:  # the framework's refusal, or the tool's own exception
            return ToolResult.fail(failure_text(exc), exception=exc)
        if type(value) is list and value and all(_is_block(v) for v in value):
            return ToolResult.ok(from_parts(value, _from_block))
        return ToolResult.ok(value)

    return Foreign(obj.name, obj.description or obj.name, parameters, arun)


def _runtime_params(obj: Any) -> list[str]:
    """The parameters of ``obj`` that LangGraph's ``ToolNode`` fills with a
    ``ToolRuntime``: in its input schema, not in the schema its model sees."""
    runtime_type = _tool_runtime()
    if runtime_type is None:
        return []
    try:
        fields = obj.get_input_schema().model_fields
        seen = set(obj.tool_call_schema.model_fields)
    except Exception:  # a tool whose schema is plain JSON: nothing to inject
        return []
    found = []
    for name, field in fields.items():
        kind = typing.get_origin(field.annotation) or field.annotation
        if name not in seen and isinstance(kind, type) and issubclass(kind, runtime_type):
            found.append(name)
    return found


# The call id a tool taking ``InjectedToolCallId`` gets (LangChain's ``ToolNode`` gives
# the model's; a registry's runner has none to hand on).
_CALL_ID = "tooldeck"


def _takes_call_id(obj: Any) -> bool:
    """Whether ``obj`` takes LangChain's ``InjectedToolCallId``: then LangChain runs it
    only when invoked with a whole tool call."""
    injected = require("langchain_core.tools", EXTRA).InjectedToolCallId
    try:
        fields = obj.get_input_schema().model_fields.values()
    except Exception:  # a tool whose schema is plain JSON: nothing to inject
        return False
    return any(m is injected or isinstance(m, injected) for field in fields for m in field.metadata)


class _Refused(Exception):
    """A tool's own error, handled by LangChain into an error ``ToolMessage``."""


def _content_of(message: Any) -> Any:
    """What a tool invoked with a whole tool call answered: its ``ToolMessage``'s content
    (an error one is the call's failure), or what it returned instead (a ``Command``)."""
    if getattr(message, "type", None) != "tool":
        return message
    if getattr(message, "status", None) == "error":
        raise _Refused(message.content)
    return message.content


def _no_stream(chunk: Any) -> None:
    """A ``ToolRuntime``'s stream writer outside a graph: nobody reads the stream."""


_BLOCKS = frozenset({"text", "image", "audio", "file"})


def _is_block(value: Any) -> bool:
    """Whether ``value`` is a LangChain (v1) content block: text, image, audio, file."""
    return type(value) is dict and value.get("type") in _BLOCKS


def _from_block(block: dict[str, Any]) -> Any:
    """A content block as a part: its text, or tooldeck's media (from ``base64`` or
    ``url``); a block that makes neither stays as it is."""
    kind = block["type"]
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else block
    mime, name = block.get("mime_type"), block.get("filename")
    encoded, url = block.get("base64"), block.get("url")
    if isinstance(encoded, str):
        try:
            data = base64.b64decode(encoded, validate=True)
        except ValueError:
            return block
        return media_or(block, kind, data=data, mime=mime, name=name)
    if isinstance(url, str):
        return media_or(block, kind, url=url, mime=mime, name=name)
    return block
