"""One trace across an MCP gateway: the OpenTelemetry middleware on both sides.

A client span, then a call through a gateway registry (which imports ``add`` from an
origin registry's server and serves it again), then the origin's span and a span the
tool makes: all in the client's trace, each the child of the one before. The gateway
sends its span's ``traceparent`` in the request's ``_meta``; a served call's span takes
its parent from there. Checked with fastmcp's own telemetry on (its default) and off
(then only tooldeck carries the trace), in memory, from a sync face, and over HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastmcp import Client
from media_samples import served_over_http
from otel_spans import Spans

from tooldeck import ToolRegistry

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def spans() -> Spans:
    return Spans()


@pytest.fixture(params=["native", "off"])
def fastmcp_telemetry(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    import fastmcp

    monkeypatch.setattr(fastmcp.settings, "telemetry_mode", request.param)
    return request.param  # type: ignore[no-any-return]


def origin_registry(spans: Spans) -> ToolRegistry:
    origin = ToolRegistry(middleware=[spans.middleware()])

    @origin.tool
    def add(a: int, b: int = 0) -> int:
        """Add two integers."""
        with spans.tracer.start_as_current_span("inside"):
            return a + b

    return origin


@contextmanager
def gateway_of(spans: Spans) -> Iterator[ToolRegistry]:
    gateway = ToolRegistry(middleware=[spans.middleware()])
    gateway.use_mcp(origin_registry(spans).as_mcp_server("origin"))
    try:
        yield gateway
    finally:
        gateway.close()


def traceparent() -> dict[str, Any]:
    """What a client with tracing sends: the current span's trace context."""
    from opentelemetry import propagate

    carrier: dict[str, Any] = {}
    propagate.inject(carrier)
    return carrier


def assert_one_chain(spans: Spans, root: Any, hops: int) -> None:
    """In ``root``'s trace: ``hops`` execute_tool spans then "inside", each the child of
    the one before, the first the child of ``root``."""
    trace_id, root_id = root.get_span_context().trace_id, root.get_span_context().span_id
    mine = [
        span
        for span in spans.finished()
        if span.context.trace_id == trace_id and span.context.span_id != root_id
    ]
    by_parent = {span.parent.span_id: span for span in mine if span.parent is not None}
    assert len(by_parent) == len(mine), [span.name for span in mine]  # one child each
    names, parent = [], root_id
    while parent in by_parent:
        child = by_parent[parent]
        names.append(child.name)
        parent = child.context.span_id
    assert names == ["execute_tool add"] * hops + ["inside"]


async def test_one_trace_from_a_client_through_a_gateway_to_the_origin(
    spans: Spans, fastmcp_telemetry: str
) -> None:
    with gateway_of(spans) as gateway:
        async with Client(gateway.as_mcp_server("gateway")) as client:
            roots = []
            for i in range(2):  # the second call's parents are its own, not the first's
                with spans.tracer.start_as_current_span(f"client {i}") as root:
                    # fastmcp's client sends the traceparent itself unless its telemetry
                    # is off; a client of another kind sends it as this.
                    meta = traceparent() if fastmcp_telemetry == "off" else None
                    result = await client.call_tool("add", {"a": i, "b": 1}, meta=meta)
                    assert result.content[0].text == str(i + 1)  # type: ignore[union-attr]
                roots.append(root)
    for root in roots:
        assert_one_chain(spans, root, hops=2)


def test_a_sync_call_of_a_proxy_carries_its_span_to_the_origin(
    spans: Spans, fastmcp_telemetry: str
) -> None:
    with gateway_of(spans) as gateway:
        for i in range(2):
            with spans.tracer.start_as_current_span(f"agent {i}") as root:
                assert gateway.call_tool("add", {"a": i}) == i
            assert_one_chain(spans, root, hops=2)


def test_one_trace_over_http(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    # Over HTTP the server's context is fresh: fastmcp continues the request's trace
    # itself ("native"), or leaves it to tooldeck ("off"). One server, both settings.
    import fastmcp

    async def call(url: str) -> None:
        async with Client(url) as client:
            await client.call_tool("add", {"a": 1}, meta=traceparent())

    roots = []
    with gateway_of(spans) as gateway, served_over_http(gateway) as url:
        for mode in ("native", "off"):
            monkeypatch.setattr(fastmcp.settings, "telemetry_mode", mode)
            with spans.tracer.start_as_current_span(f"client, fastmcp {mode}") as root:
                asyncio.run(call(url))
            roots.append(root)
    for root in roots:
        assert_one_chain(spans, root, hops=2)


async def test_a_served_call_without_a_traceparent_starts_its_own_trace(spans: Spans) -> None:
    origin = origin_registry(spans)
    async with Client(origin.as_mcp_server("origin")) as client:
        await client.call_tool("add", {"a": 1}, meta={"traceparent": "not a traceparent"})
    span = spans.one()
    assert span.parent is None  # a root: nothing valid to continue


def test_a_proxy_request_carries_the_current_spans_traceparent(spans: Spans) -> None:
    from tooldeck.mcp._session import trace_meta

    assert trace_meta() is None  # no span, nothing to continue
    with spans.tracer.start_as_current_span("caller") as span:
        meta = trace_meta()
    context = span.get_span_context()
    expected = f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
    assert meta == {"traceparent": expected}


def test_a_remote_failure_is_an_error_on_both_sides(spans: Spans) -> None:
    origin = ToolRegistry(middleware=[spans.middleware()])

    @origin.tool
    def add(a: int, b: int = 0) -> int:
        raise ValueError("remote trouble")

    gateway = ToolRegistry(middleware=[spans.middleware()])
    gateway.use_mcp(origin.as_mcp_server("origin"))
    try:
        with spans.tracer.start_as_current_span("agent") as root:
            assert not gateway.execute_sync("add", {"a": 1}).success
    finally:
        gateway.close()
    served, proxied = spans.finished("execute_tool add")  # (the origin's ends first)
    assert proxied.parent.span_id == root.get_span_context().span_id
    assert served.parent.span_id == proxied.context.span_id
    # The origin knows the exception; the gateway sees the server's error result.
    assert served.attributes["error.type"] == "ValueError"
    assert proxied.attributes["error.type"] == "tool_error"
    assert "remote trouble" in proxied.status.description
