"""A trace says which calls' usage was guessed (a reply that reported none: patterns/usage.py)."""

from __future__ import annotations

import pytest

from patterns import ToolSet, run_agent

from .test_openai_quirks import Quirky, completion, get_weather, model


def test_a_trace_says_which_calls_had_their_usage_estimated() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from patterns.otel import Tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = Quirky(completion(calls=[("get_weather", '{"city": "Oslo"}')], usage=None),
                    completion(text="Rain in Oslo."))
    try:
        run_agent(model(server), "Weather in Oslo?", tools=ToolSet([get_weather]),
                  tracer=Tracing(provider.get_tracer("t")))
    finally:
        server.close()
    spans = exporter.get_finished_spans()
    [root] = [s for s in spans if s.parent is None]
    chats = sorted((s for s in spans if s.name.startswith("chat")), key=lambda s: s.start_time)
    assert root.attributes["wva.usage_estimated_calls"] == 1
    assert [s.attributes.get("wva.usage_estimated") for s in chats] == [True, None]
