"""Spans in memory for the OpenTelemetry middleware's tests: the SDK is imported when a
`Spans` is made (every xdist worker collects the test modules; most never need it)."""

from __future__ import annotations

from typing import Any

from tooldeck.middleware import OpenTelemetry


class Spans:
    """A tracer provider of its own, its finished spans in memory."""

    def __init__(self) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("tests")

    def middleware(self, **options: Any) -> OpenTelemetry:
        return OpenTelemetry(tracer_provider=self.provider, **options)

    def finished(self, name: str | None = None) -> list[Any]:
        spans = self.exporter.get_finished_spans()
        return [span for span in spans if name is None or span.name == name]

    def one(self, name: str = "execute_tool add") -> Any:
        spans = self.finished(name)
        assert len(spans) == 1, [span.name for span in self.finished()]
        return spans[0]
