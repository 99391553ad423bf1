"""`OpenTelemetry`: one span per call, as the GenAI semantic conventions describe a tool's.

Each call gets an INTERNAL span ``execute_tool {name}`` carrying ``gen_ai.operation.name``
(``"execute_tool"``), ``gen_ai.tool.name``, ``gen_ai.tool.description``,
``gen_ai.tool.type`` (``"function"``) and, when the call has one, ``gen_ai.tool.call.id``;
a failure sets ``error.type`` (the class name of the exception behind it, else
``"tool_error"``) and an error status. Arguments and result
(``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``, JSON text) are recorded
only when asked: they are what the model and the user said.

The span is current while the rest of the chain and the tool run (a span the tool
makes is its child), on the sync faces and on the async faces alike: it is a
`DualMiddleware`, so neither form moves the call to another thread or loop (and the
threads a call does use copy the caller's context).

Across MCP: a served call's span continues the trace its request's
``_meta.traceparent`` names (`REQUEST_META`); a call of an imported tool puts the
current span's ``traceparent`` in its request's ``_meta`` (`tooldeck.mcp._session`).

Only ``opentelemetry-api`` is needed (extra ``otel``), imported when the middleware is
made, never by ``import tooldeck.middleware``. With no SDK configured, the API's
tracer is a no-op and a call pays a few attribute reads for the middleware; an SDK
configured later is used from then on (the API's proxy tracer switches itself).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from tooldeck._result import ToolResult, type_name

from ._call import REQUEST_META, Call
from ._dual import DualMiddleware

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer, TracerProvider

    from tooldeck._tool import Tool

__all__ = ["OpenTelemetry"]

INSTALL_HINT = "the OpenTelemetry middleware needs opentelemetry-api: pip install 'tooldeck[otel]'"
_SCOPE = "tooldeck"
logger = logging.getLogger("tooldeck")
_MAX_DESCRIPTION = 1000  # characters of a failure's message kept as the status description


class OpenTelemetry(DualMiddleware):
    """A span per call, named ``execute_tool {name}``, per the GenAI semantic conventions.

    Args:
        record_content: Also record the arguments sent and the result
            (``gen_ai.tool.call.arguments`` / ``.result``, JSON text). Off by default:
            they may hold what users and models said.
        tools: Only these tools (a name or names); with ``tags``, tools matching either.
        tags: Only tools carrying one of these tags.
        tracer_provider: Where spans go; by default the global one
            (``opentelemetry.trace.set_tracer_provider``), also when it is set after
            this middleware is made.

    Raises:
        ImportError: ``opentelemetry-api`` is not installed (the ``otel`` extra).
    """

    __slots__ = ("_names", "_only", "_pending", "_record", "_tags", "_tracer")

    def __init__(
        self,
        record_content: bool = False,
        tools: str | Iterable[str] | None = None,
        tags: str | Iterable[str] | None = None,
        tracer_provider: TracerProvider | None = None,
    ) -> None:
        api = _load_api()
        self._record = bool(record_content)
        self._names = _names(tools, "tools")
        self._tags = _names(tags, "tags")
        self._only = self._names is not None or self._tags is not None  # (else: every tool)
        provider = api.trace.get_tracer_provider() if tracer_provider is None else tracer_provider
        tracer = provider.get_tracer(_SCOPE, _version())
        # The tracer once it is a real one, else None, and then `_pending._tracer` is what
        # to use: without a global provider yet, `tracer` is the API's proxy, a no-op
        # until one is set and that provider's tracer after (read per call, cheaply).
        self._tracer: Tracer | None = None
        proxy = type(tracer) is api.ProxyTracer and hasattr(tracer, "_tracer")
        self._pending: Any = tracer if proxy else _Fixed(tracer)

    def __repr__(self) -> str:
        return f"OpenTelemetry(record_content={self._record})"

    # -- the two forms ------------------------------------------------------------------

    def __call__(self, call: Call, call_next: Callable[[Call], ToolResult]) -> ToolResult:
        tracer = self._tracer
        if tracer is None:  # (`_live`, inline: the no-op path is every call's without an SDK)
            tracer = self._pending._tracer
            if tracer.__class__ is _NoOpTracer:
                return call_next(call)
            self._tracer = tracer
        if self._only and not self._chosen(call._tool):
            return call_next(call)
        started = self._start(tracer, call)
        if started is None:  # the tracer failed: the call goes on, untraced
            return call_next(call)
        span, token = started
        try:
            result = call_next(call)
        except BaseException as exc:  # KeyboardInterrupt, SystemExit: recorded, raised on
            self._interrupted(span, token, exc)
            raise
        self._end(span, token, result)
        return result

    async def acall(
        self, call: Call, call_next: Callable[[Call], Awaitable[ToolResult]]
    ) -> ToolResult:
        tracer = self._tracer
        if tracer is None:  # (as in `__call__`)
            tracer = self._pending._tracer
            if tracer.__class__ is _NoOpTracer:
                return await call_next(call)
            self._tracer = tracer
        if self._only and not self._chosen(call._tool):
            return await call_next(call)
        started = self._start(tracer, call)
        if started is None:
            return await call_next(call)
        span, token = started
        try:
            result = await call_next(call)
        except BaseException as exc:  # cancelled: recorded, raised on
            self._interrupted(span, token, exc)
            raise
        self._end(span, token, result)
        return result

    # -- the span -----------------------------------------------------------------------

    def _live(self) -> Tracer | None:
        """The tracer to use now, or None while tracing is a no-op (no SDK configured)."""
        if self._tracer is None:
            tracer = self._pending._tracer
            if tracer.__class__ is _NoOpTracer:
                return None
            self._tracer = tracer  # a real one for good: providers are set once
        return self._tracer

    def _chosen(self, tool: Tool[..., Any]) -> bool:
        names, tags = self._names, self._tags
        return (names is not None and tool.name in names) or (
            tags is not None and not tags.isdisjoint(tool.tags)
        )

    def _start(self, tracer: Tracer, call: Call) -> tuple[Span, object] | None:
        """The call's span, made current; None when the tracer fails (never the call)."""
        api = _api
        tool = call._tool
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool.name,
            "gen_ai.tool.type": "function",
        }
        try:
            if tool.description:
                attributes["gen_ai.tool.description"] = tool.description
            call_id = call.call_id
            if call_id is not None:
                attributes["gen_ai.tool.call.id"] = str(call_id)
            if self._record:
                attributes["gen_ai.tool.call.arguments"] = _json(call.arguments)
            parent = _parent(call)
            span = tracer.start_span(
                f"execute_tool {tool.name}",
                context=parent,
                kind=api.trace.SpanKind.INTERNAL,
                attributes=attributes,
            )
            return span, api.context.attach(api.trace.set_span_in_context(span, parent))
        except Exception:  # a span processor or sampler that raises
            _tracing_failed("start a span")
            return None

    def _end(self, span: Span, token: Any, result: ToolResult) -> None:
        _api.context.detach(token)
        try:
            if result.success:
                if self._record:
                    span.set_attribute("gen_ai.tool.call.result", _json_data(result))
            else:
                exc = result.exception
                span.set_attribute("error.type", "tool_error" if exc is None else type_name(exc))
                span.set_status(_api.trace.StatusCode.ERROR, _description(result.error))
                if exc is not None:
                    span.record_exception(exc)
            span.end()
        except Exception:
            _tracing_failed("end a span")

    @staticmethod
    def _interrupted(span: Span, token: Any, exc: BaseException) -> None:
        _api.context.detach(token)
        try:
            span.set_attribute("error.type", type_name(exc))
            span.set_status(_api.trace.StatusCode.ERROR, type_name(exc))
            span.end()
        except Exception:  # (never in place of the interruption)
            _tracing_failed("end a span")


# -- helpers ---------------------------------------------------------------------------------


def _parent(call: Call) -> Context | None:
    """The context a served call's span continues: its request's ``_meta.traceparent``.

    None (the current context) for other calls, for a request without one, and when the
    current span is already in that trace (fastmcp's own server span, which continues
    it): the current context is kept over what ``_meta`` says only when they agree, so a
    context an in-process server inherited from elsewhere never becomes the parent.
    """
    if call.source != "mcp":
        return None
    meta = REQUEST_META.get()
    if not meta or "traceparent" not in meta:
        return None
    trace = _api.trace
    carrier = {key: str(meta[key]) for key in ("traceparent", "tracestate") if key in meta}
    extracted = _api.w3c.extract(carrier)  # (a malformed traceparent: no span in it)
    remote = trace.get_current_span(extracted).get_span_context()
    if not remote.is_valid:
        return None
    current = trace.get_current_span().get_span_context()
    if current.is_valid and current.trace_id == remote.trace_id:
        return None
    return extracted


def _names(value: str | Iterable[str] | None, what: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset([value])
    names = frozenset(value)
    if not all(isinstance(name, str) for name in names):
        raise TypeError(f"{what} must be a str or strs, not {value!r}")
    return names


def _json(value: Any) -> str:
    """JSON text of a value for an attribute (never raising: ``str`` for the rest)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except Exception:  # a circular structure, a __str__ that raises
        return f"<{type_name(value)}>"


def _json_data(result: ToolResult) -> str:
    """The result's value as JSON text (media as their MCP content)."""
    try:
        data = result.to_dict()["data"]
    except Exception:
        return f"<{type_name(result.data)}>"
    return _json(data)


def _tracing_failed(what: str) -> None:
    logger.warning("OpenTelemetry: could not %s; the call goes on", what, exc_info=True)


def _description(error: str | None) -> str:
    text = error or "tool_error"
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 1] + "…"


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tooldeck")
    except PackageNotFoundError:
        return None


class _Fixed:
    """A tracer that is what it is for good (a provider's own): as the proxy holds one."""

    __slots__ = ("_tracer",)

    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer


class _Api:
    """The parts of ``opentelemetry-api`` used per call, imported once (`_load_api`)."""

    def __init__(self) -> None:
        from opentelemetry import context, trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.context = context
        self.trace = trace
        # MCP's `_meta` carries W3C trace context (SEP-414), whatever propagators the
        # application configured for its HTTP headers.
        self.w3c = TraceContextTextMapPropagator()
        self.ProxyTracer: type = trace.ProxyTracer
        self.NoOpTracer: type = trace.NoOpTracer


_api: _Api = None  # type: ignore[assignment]  # set by the first OpenTelemetry() made
_NoOpTracer: type = type(None)  # ... to the API's NoOpTracer (read on every call)


def _load_api() -> _Api:
    global _api, _NoOpTracer
    if _api is None:
        try:
            _api = _Api()
        except ImportError as exc:
            raise ImportError(INSTALL_HINT) from exc
        _NoOpTracer = _api.NoOpTracer
    return _api
