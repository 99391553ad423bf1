"""The OpenTelemetry middleware, against the real SDK and its in-memory exporter.

One span per call on every entry point, named and attributed as the GenAI semantic
conventions' execute_tool span says (checked at each requirement level: required,
conditionally required, recommended, opt-in); the span current while the tool runs,
whichever face and thread; a served call's parent taken from its request's
``_meta.traceparent``; tracing that never fails a call; no SDK, then one set late.
(One trace across a gateway: test_middleware_otel_mcp.py.)

The SDK is imported inside the fixtures (every xdist worker collects this module), and
the global tracer provider is never set here (it can be set once per process): each
test hands its own provider to the middleware.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from otel_spans import Spans

from tooldeck import Call, ToolRegistry, ToolResult
from tooldeck.middleware import OpenTelemetry

pytestmark = pytest.mark.timeout(60)

# The attribute names, as the semantic conventions package spells them (a check of ours
# against theirs, not a copy): read in the fixture.
OPERATION = "gen_ai.operation.name"
TOOL_NAME = "gen_ai.tool.name"
CALL_ID = "gen_ai.tool.call.id"
DESCRIPTION = "gen_ai.tool.description"
TOOL_TYPE = "gen_ai.tool.type"
ARGUMENTS = "gen_ai.tool.call.arguments"
RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"


@pytest.fixture
def spans() -> Spans:
    return Spans()


def test_attribute_names_are_the_semantic_conventions() -> None:
    from opentelemetry.semconv._incubating.attributes import error_attributes as errors
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

    assert gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value == "execute_tool"
    assert (OPERATION, TOOL_NAME, CALL_ID, DESCRIPTION, TOOL_TYPE, ARGUMENTS, RESULT) == (
        gen_ai.GEN_AI_OPERATION_NAME,
        gen_ai.GEN_AI_TOOL_NAME,
        gen_ai.GEN_AI_TOOL_CALL_ID,
        gen_ai.GEN_AI_TOOL_DESCRIPTION,
        gen_ai.GEN_AI_TOOL_TYPE,
        gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS,
        gen_ai.GEN_AI_TOOL_CALL_RESULT,
    )
    assert errors.ERROR_TYPE == ERROR_TYPE


def registry_with(mw: Any, **tool_options: Any) -> ToolRegistry:
    registry = ToolRegistry(middleware=[mw])

    @registry.tool(**tool_options)
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        return a + b

    return registry


# -- every entry point: (name, call of add(a=1, b=2) -> the text, the call id it has) ------


def _reply() -> list[dict[str, Any]]:
    function = {"name": "add", "arguments": json.dumps({"a": 1, "b": 2})}
    return [{"id": "call_7", "type": "function", "function": function}]


async def _served(registry: ToolRegistry) -> str:
    async with Client(registry.as_mcp_server()) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
    return result.content[0].text  # type: ignore[no-any-return,union-attr]


ENTRIES: list[tuple[str, Callable[[ToolRegistry], Any], str | None]] = [
    ("call_tool", lambda r: r.call_tool("add", {"a": 1, "b": 2}), None),
    ("async_call_tool", lambda r: asyncio.run(r.async_call_tool("add", {"a": 1, "b": 2})), None),
    ("execute", lambda r: asyncio.run(r.execute("add", {"a": 1, "b": 2})).data, None),
    ("execute_sync", lambda r: r.execute_sync("add", '{"a": 1, "b": 2}').data, None),
    ("call", lambda r: int(r.call("add", a=1, b=2)), None),
    ("run_tool_calls", lambda r: int(r.run_tool_calls(_reply())[0]["content"]), "call_7"),
    (
        "async_run_tool_calls",
        lambda r: int(asyncio.run(r.async_run_tool_calls(_reply()))[0]["content"]),
        "call_7",
    ),
    ("mcp", lambda r: int(asyncio.run(_served(r))), None),
]


@pytest.mark.parametrize(
    ("face", "call_id"), [(e[1], e[2]) for e in ENTRIES], ids=[e[0] for e in ENTRIES]
)
def test_one_span_per_call_as_the_conventions_say(
    spans: Spans, face: Callable[[ToolRegistry], Any], call_id: str | None
) -> None:
    from opentelemetry.trace import SpanKind, StatusCode

    assert face(registry_with(spans.middleware())) == 3
    span = spans.one()
    assert span.kind is SpanKind.INTERNAL
    assert span.status.status_code is StatusCode.UNSET
    expected = {
        OPERATION: "execute_tool",  # required
        TOOL_NAME: "add",  # recommended
        DESCRIPTION: "Add two integers.",  # recommended if available
        TOOL_TYPE: "function",  # recommended if available
    }
    if call_id is not None:
        expected[CALL_ID] = call_id  # recommended if available: only when there is one
    assert dict(span.attributes) == expected  # no error.type, no content (opt-in)


def _raises() -> Any:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        raise ValueError("no adding today")

    return registry


def _refuses() -> Any:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int = 0) -> ToolResult:
        """Add two integers."""
        return ToolResult.fail("refused")

    return registry


def _inner_raises(call: Call, call_next: Any) -> ToolResult:
    raise ConnectionError("the policy service is down")


FAILURES = [
    # (what fails, registry maker, arguments, error.type, words of the description)
    ("invalid arguments", None, {"a": "x"}, "ValidationError", "Invalid arguments"),
    ("the tool raising", _raises, {"a": 1}, "ValueError", "no adding today"),
    ("ToolResult.fail", _refuses, {"a": 1}, "tool_error", "refused"),
    ("an inner middleware raising", "inner", {"a": 1}, "ConnectionError", "policy service"),
]


@pytest.mark.parametrize(
    ("make", "arguments", "error_type", "words"),
    [f[1:] for f in FAILURES],
    ids=[f[0] for f in FAILURES],
)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_failure_sets_error_type_and_an_error_status(
    spans: Spans, make: Any, arguments: dict[str, Any], error_type: str, words: str, is_async: bool
) -> None:
    from opentelemetry.trace import StatusCode

    if make is None or make == "inner":
        registry = registry_with(spans.middleware())
        if make == "inner":
            registry.add_middleware(_inner_raises)
    else:
        registry = make()
        registry.add_middleware(spans.middleware())
    if is_async:
        result = asyncio.run(registry.execute("add", arguments))
    else:
        result = registry.execute_sync("add", arguments)
    assert not result.success
    span = spans.one()
    assert span.attributes[ERROR_TYPE] == error_type  # conditionally required: on error
    assert span.status.status_code is StatusCode.ERROR
    assert words in span.status.description
    assert RESULT not in span.attributes and ARGUMENTS not in span.attributes


def test_a_timeout_is_a_failure_of_its_own_type(spans: Spans) -> None:
    registry = ToolRegistry(middleware=[spans.middleware()])

    @registry.tool(timeout=0.05)
    async def add(a: int, b: int = 0) -> int:
        """Add two integers, slowly."""
        await asyncio.sleep(30)
        return a + b

    assert "timed out" in registry.call_tool("add", {"a": 1})
    span = spans.one()
    assert span.attributes[ERROR_TYPE] == "CallTimeout"
    assert "timed out after 0.05 seconds" in span.status.description


def test_content_is_recorded_only_when_asked(spans: Spans) -> None:
    quiet = registry_with(spans.middleware())
    loud = registry_with(spans.middleware(record_content=True))
    assert quiet.call_tool("add", {"a": 1, "b": "2"}) == 3
    assert loud.call_tool("add", {"a": 1, "b": "2"}) == 3
    first, second = spans.finished("execute_tool add")
    assert ARGUMENTS not in first.attributes and RESULT not in first.attributes
    # What was sent (not yet validated: "2" stays a string), and the result, as JSON.
    assert json.loads(second.attributes[ARGUMENTS]) == {"a": 1, "b": "2"}
    assert json.loads(second.attributes[RESULT]) == 3


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=JSON_VALUES)
def test_recorded_content_is_the_json_of_what_was_sent_and_answered(
    spans: Spans, value: Any
) -> None:
    spans.exporter.clear()
    registry = ToolRegistry(middleware=[spans.middleware(record_content=True)])

    @registry.tool
    def echo(value: Any) -> Any:
        return value

    result = asyncio.run(registry.execute("echo", {"value": value}))
    assert result.success
    span = spans.one("execute_tool echo")
    assert json.loads(span.attributes[ARGUMENTS]) == {"value": value}
    assert json.loads(span.attributes[RESULT]) == value


def test_only_the_chosen_tools_get_spans(spans: Spans) -> None:
    registry = ToolRegistry(middleware=[spans.middleware(tools="add", tags=["db"])])

    @registry.tool
    def add(a: int) -> int:
        return a

    @registry.tool(tags=["db"])
    def lookup(key: str) -> str:
        return key

    @registry.tool
    def other() -> str:
        return "x"

    registry.call_tool("add", {"a": 1})
    registry.call_tool("lookup", {"key": "k"})
    assert registry.call_tool("other") == "x"
    assert sorted(span.name for span in spans.finished()) == [
        "execute_tool add",
        "execute_tool lookup",
    ]


def test_a_missing_api_is_an_import_error_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooldeck.middleware import _otel

    monkeypatch.setattr(_otel, "_api", None)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(ImportError, match=r"tooldeck\[otel\]"):
        OpenTelemetry()


# -- the span is current while the tool runs, on every face and in every thread -----------


def _nesting_registry(spans: Spans, timeout: float | None) -> ToolRegistry:
    registry = ToolRegistry(middleware=[spans.middleware()])

    @registry.tool(timeout=timeout)
    def sync_tool() -> str:
        with spans.tracer.start_as_current_span("inside"):
            return "ok"

    @registry.tool(timeout=timeout)
    async def async_tool() -> str:
        await asyncio.sleep(0)
        with spans.tracer.start_as_current_span("inside"):
            return "ok"

    return registry


def _turn(name: str) -> list[dict[str, Any]]:
    return [{"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}]


NESTING_FACES: list[tuple[str, Callable[[ToolRegistry, str], Any]]] = [
    ("call_tool", lambda r, n: r.call_tool(n)),
    ("async_call_tool", lambda r, n: asyncio.run(r.async_call_tool(n))),
    ("run_tool_calls", lambda r, n: r.run_tool_calls(_turn(n))[0]["content"]),
    (
        "async_run_tool_calls",
        lambda r, n: asyncio.run(r.async_run_tool_calls(_turn(n)))[0]["content"],
    ),
]


@pytest.mark.parametrize("face", [f[1] for f in NESTING_FACES], ids=[f[0] for f in NESTING_FACES])
@pytest.mark.parametrize("name", ["sync_tool", "async_tool"])
@pytest.mark.parametrize("timeout", [None, 10.0], ids=["no-timeout", "timeout"])
def test_a_span_the_tool_makes_is_a_child_of_the_calls(
    spans: Spans, face: Any, name: str, timeout: float | None
) -> None:
    # Sync tools on async faces and timed tools run in worker threads, async tools on
    # sync faces on tooldeck's background loop: the span reaches each.
    assert face(_nesting_registry(spans, timeout), name) == "ok"
    outer = spans.one(f"execute_tool {name}")
    inner = spans.one("inside")
    assert inner.parent is not None and inner.parent.span_id == outer.context.span_id
    assert inner.context.trace_id == outer.context.trace_id


def test_the_call_span_is_a_child_of_the_callers_and_a_sibling_of_the_next(spans: Spans) -> None:
    registry = registry_with(spans.middleware())
    with spans.tracer.start_as_current_span("agent turn") as turn:
        registry.run_tool_calls([*_reply(), {**_reply()[0], "id": "call_8"}])
    calls = spans.finished("execute_tool add")
    assert sorted(span.attributes[CALL_ID] for span in calls) == ["call_7", "call_8"]
    for span in calls:
        assert span.parent.span_id == turn.get_span_context().span_id


def test_an_interrupt_ends_the_span_and_propagates(spans: Spans) -> None:
    registry = ToolRegistry(middleware=[spans.middleware()])

    @registry.tool
    def stop() -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry.call_tool("stop")
    span = spans.one("execute_tool stop")  # finished: ended, exported
    assert span.attributes[ERROR_TYPE] == "KeyboardInterrupt"


def test_a_cancelled_call_ends_its_span(spans: Spans) -> None:
    registry = ToolRegistry(middleware=[spans.middleware()])
    started = asyncio.Event()

    @registry.tool
    async def wait() -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    async def main() -> None:
        task = asyncio.ensure_future(registry.async_call_tool("wait"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert spans.one("execute_tool wait").attributes[ERROR_TYPE] == "CancelledError"


# -- a served call's parent: its request's traceparent ----------------------------------------


def _served_call(registry: ToolRegistry, meta: dict[str, Any], source: str = "mcp") -> Any:
    """Run a middleware-free call of ``add`` through the OpenTelemetry middleware as the
    serving code does: the request's ``_meta`` in `REQUEST_META`."""
    from tooldeck.middleware._call import REQUEST_META

    tool = registry.get("add")
    assert tool is not None
    mw = registry._chain.middleware[0]  # type: ignore[union-attr]
    token = REQUEST_META.set(meta)
    try:
        return mw(Call(tool, {"a": 1}, None, (None, None, source)), lambda call: ToolResult.ok(1))
    finally:
        REQUEST_META.reset(token)


def test_a_served_call_continues_its_requests_trace(spans: Spans) -> None:
    from opentelemetry import propagate
    from opentelemetry.context import Context

    registry = registry_with(spans.middleware())
    with spans.tracer.start_as_current_span("remote client") as remote:
        meta: dict[str, Any] = {}
        propagate.inject(meta)
    parents = {}
    # A current span of another trace (a context the server inherited) is not the parent.
    with spans.tracer.start_as_current_span("unrelated", context=Context()) as unrelated:
        _served_call(registry, meta)
        parents["mcp, unrelated current"] = spans.finished("execute_tool add")[-1].parent
        _served_call(registry, meta, source="call")  # not a served call: meta is not read
        parents["call"] = spans.finished("execute_tool add")[-1].parent
    # A current span in the request's trace (fastmcp's server span, continuing it) is.
    with spans.tracer.start_as_current_span("server", context=propagate.extract(meta)) as server:
        _served_call(registry, meta)
        parents["mcp, server span current"] = spans.finished("execute_tool add")[-1].parent
    assert {how: parent.span_id for how, parent in parents.items()} == {
        "mcp, unrelated current": remote.get_span_context().span_id,
        "call": unrelated.get_span_context().span_id,
        "mcp, server span current": server.get_span_context().span_id,
    }


# -- no SDK: a no-op, until one is configured ------------------------------------------------

LATE_PROVIDER = """
import asyncio, json
from opentelemetry import trace
from tooldeck import ToolRegistry
from tooldeck.middleware import OpenTelemetry

mw = OpenTelemetry()  # no provider configured: the API's no-op
registry = ToolRegistry(middleware=[mw])

@registry.tool
def add(a: int) -> int:
    return a

assert registry.call_tool("add", {"a": 1}) == 1
assert mw._live() is None  # nothing to do per call

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # after the middleware was made
assert registry.call_tool("add", {"a": 2}) == 2
assert asyncio.run(registry.async_call_tool("add", {"a": 3})) == 3
print(json.dumps([span.name for span in exporter.get_finished_spans()]))
"""


def test_a_provider_configured_after_the_middleware_is_used(server_forks: Any) -> None:
    # (In a process of its own: the global provider can be set once per process.)
    done = server_forks.run(code=LATE_PROVIDER, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == ["execute_tool add", "execute_tool add"]


def test_mcp_meta_is_w3c_whatever_the_applications_propagators(spans: Spans) -> None:
    # An application may propagate other headers over HTTP (B3...); MCP's `_meta`
    # carries W3C trace context, both ways.
    from opentelemetry import propagate
    from opentelemetry.propagators.composite import CompositePropagator

    from tooldeck.mcp._session import trace_meta

    saved = propagate.get_global_textmap()
    propagate.set_global_textmap(CompositePropagator([]))  # propagates nothing
    try:
        registry = registry_with(spans.middleware())
        with spans.tracer.start_as_current_span("remote client") as remote:
            meta = trace_meta()
        assert meta is not None
        _served_call(registry, meta)
    finally:
        propagate.set_global_textmap(saved)
    assert spans.one().parent.span_id == remote.get_span_context().span_id


class Raising:
    """A span processor that fails: tracing never fails a call."""

    def __init__(self, when: str) -> None:
        self.when = when

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.when == "start":
            raise RuntimeError("processor broke")

    def on_end(self, span: Any) -> None:
        if self.when == "end":
            raise RuntimeError("processor broke")

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


@pytest.mark.parametrize("when", ["start", "end"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_failing_tracer_never_fails_the_call(spans: Spans, when: str, is_async: bool) -> None:
    spans.provider.add_span_processor(Raising(when))  # type: ignore[arg-type]
    registry = registry_with(spans.middleware())
    if is_async:
        assert asyncio.run(registry.async_call_tool("add", {"a": 1, "b": 2})) == 3
    else:
        assert registry.call_tool("add", {"a": 1, "b": 2}) == 3
    assert registry.call_tool("add", {"a": "x"}).startswith("Error: Invalid arguments")
