"""OpenTelemetry spans (patterns/otel.py): the tree's shape and attributes, in the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from patterns import RequestOptions, RetryPolicy, ToolSet, arun_agent
from patterns.openai_model import OpenAIModel
from patterns.otel import Tracing, tracer_from_env
from patterns.scripted import ScriptedModel, message, tool_use_block
from patterns.sim import Reply, SimModel
from patterns.sim.faults import overloaded
from patterns.sim.server import SimServer
from patterns.workflows import LLM, Parallel, arun_workflow

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from .agent_fixtures import add

FAST = RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.001, max_retry_after_s=0.0)
CANARY = "sk-otel-canary-0123456789"


@pytest.fixture
def memory() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def tree(exporter: InMemorySpanExporter) -> tuple[ReadableSpan, list[ReadableSpan]]:
    spans = exporter.get_finished_spans()
    [root] = [s for s in spans if s.parent is None]
    children = sorted((s for s in spans if s.parent is not None), key=lambda s: (s.start_time, s.name))
    assert all(s.parent.span_id == root.context.span_id for s in children)  # one level: siblings under the run
    assert all(s.context.trace_id == root.context.trace_id for s in children)
    return root, children


def everything(exporter: InMemorySpanExporter) -> str:
    return "\n".join(s.to_json() for s in exporter.get_finished_spans())


def agent_script() -> ScriptedModel:
    return ScriptedModel([overloaded(0), message("Adding.", tool_use_block("add", {"a": 2, "b": 3}, id="toolu_1"),
                                                 input_tokens=50, cache_read=20, model="claude-sonnet-4-5"),
                          message("It is 5.", input_tokens=80, output_tokens=4, model="claude-sonnet-4-5")],
                         price_id="claude-sonnet-4-5")


def test_an_agent_run_is_one_invoke_agent_span_with_chat_and_execute_tool_children(memory: Any) -> None:
    tracer, exporter = memory
    res = asyncio.run(arun_agent(agent_script(), "What is 2+3? secret-prompt", tools=ToolSet([add]), retry=FAST,
                                 tracer=tracer))
    assert res.output == "It is 5."
    root, children = tree(exporter)
    assert root.name == "invoke_agent agent" and root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.usage.output_tokens"] == res.usage.output_tokens
    assert root.attributes["gen_ai.usage.input_tokens"] == res.usage.prompt_tokens == 150  # cache reads included
    assert [s.name for s in children] == ["chat claude-sonnet-4-5", "execute_tool add", "chat claude-sonnet-4-5"]
    first, run_tool, second = children
    assert first.attributes["gen_ai.usage.input_tokens"] == 70
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 20
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert second.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert first.attributes["gen_ai.request.max_tokens"] == RequestOptions().max_tokens
    assert [(e.name, e.attributes["error.type"]) for e in first.events] == [("retry", "OverloadedError")]
    assert run_tool.attributes["gen_ai.tool.name"] == "add" and run_tool.attributes["gen_ai.tool.call.id"] == "toolu_1"
    assert first.end_time <= run_tool.start_time <= run_tool.end_time <= second.start_time <= root.end_time
    dump = everything(exporter)
    assert "secret-prompt" not in dump and "It is 5." not in dump and "gen_ai.input.messages" not in dump


def test_content_is_exported_only_when_asked(memory: Any) -> None:
    tracer, exporter = memory
    asyncio.run(arun_agent(agent_script(), "What is 2+3? secret-prompt", system="Be terse.", tools=ToolSet([add]),
                           retry=FAST, tracer=Tracing(tracer, content=True)))
    _, children = tree(exporter)
    first, run_tool, second = children
    assert "secret-prompt" in first.attributes["gen_ai.input.messages"]
    assert "Be terse." in first.attributes["gen_ai.system_instructions"]
    assert "It is 5." in second.attributes["gen_ai.output.messages"]
    assert json.loads(run_tool.attributes["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 3}
    assert run_tool.attributes["gen_ai.tool.call.result"] == "5"


def test_escalations_are_events_on_the_run_span(memory: Any) -> None:
    tracer, exporter = memory
    model = ScriptedModel([message("part one ", stop_reason="max_tokens"), message("part two")])
    res = asyncio.run(arun_agent(model, "write", options=RequestOptions(max_tokens=16), retry=FAST, tracer=tracer))
    root, children = tree(exporter)
    assert res.output == "part one part two"
    assert [e.name for e in root.events] == ["recovery", "escalation"]
    assert root.events[1].attributes["wva.detail"] == "max_tokens 16 -> 32"
    assert [c.attributes["gen_ai.request.max_tokens"] for c in children] == [16, 32]


def test_a_workflows_parallel_branches_are_sibling_spans(memory: Any) -> None:
    tracer, exporter = memory
    spec = Parallel(branches=[LLM("a", "A: {input}"), LLM("b", "B: {input}"), LLM("c", "C: {input}")],
                    aggregate=LLM("join", "Join: {input}"))
    res = asyncio.run(arun_workflow(spec, SimModel(seed=1), "the task", tracer=Tracing(tracer, attributes={
        "wva.task": "demo", "wva.instance": "i0", "wva.trial": 0})))
    root, children = tree(exporter)
    assert res.ok and root.name == "invoke_workflow parallel"
    assert {k: root.attributes[k] for k in ("wva.pattern", "wva.task", "wva.instance", "wva.trial")} == {
        "wva.pattern": "parallel", "wva.task": "demo", "wva.instance": "i0", "wva.trial": 0}
    branches = [c for c in children if c.attributes["wva.node"] in "abc"]
    join = [c for c in children if c.attributes["wva.node"] == "join"]
    assert len(branches) == 3 and len(join) == 1 and len(children) == res.steps == 4
    assert len({b.start_time for b in branches}) == 1  # concurrent: they start together (virtual clock)
    assert max(b.end_time for b in branches) <= join[0].start_time
    assert root.end_time - root.start_time == pytest.approx(res.latency_s * 1e9, abs=1e3)


def test_a_call_that_fails_for_good_is_an_error_chat_span_and_the_run_span_is_an_error(memory: Any) -> None:
    tracer, exporter = memory
    res = asyncio.run(arun_agent(ScriptedModel([overloaded(0)] * 3), "go", tracer=tracer,
                                 retry=RetryPolicy(max_retries=2, base_delay_s=0.001)))
    root, [chat] = tree(exporter)
    assert res.terminal == "error" and not root.status.is_ok and not chat.status.is_ok
    assert chat.attributes["error.type"] == "OverloadedError" and [e.name for e in chat.events] == ["retry"] * 2


def test_an_openai_run_exports_no_key(memory: Any) -> None:
    tracer, exporter = memory

    class Script:
        def accepts(self, request: Any) -> bool:
            return True

        def respond(self, request: Any, decide: Any) -> Reply:
            return Reply([{"type": "text", "text": "hello"}])

    async def main(url: str) -> Any:
        model = OpenAIModel("gpt-4.1-mini", base_url=f"{url}/v1", api_key=CANARY)
        try:
            return await arun_agent(model, "hi", retry=FAST, tracer=Tracing(tracer, content=True))
        finally:
            await model.aclose()

    with SimServer(policies=[Script()]) as server:
        res = asyncio.run(main(server.url))
    _, [chat] = tree(exporter)
    assert res.output == "hello" and chat.name == "chat gpt-4.1-mini"
    assert chat.attributes["gen_ai.provider.name"] == "openai" and chat.attributes["gen_ai.request.model"] == \
        "gpt-4.1-mini"
    assert CANARY not in everything(exporter)


def test_the_exporter_is_the_one_the_environment_selects(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    tracer, provider = tracer_from_env(out)
    tracer.start_span("console check").end()
    provider.shutdown()
    assert '"name": "console check"' in out.getvalue()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    _, provider = tracer_from_env()
    [processor] = provider._active_span_processor._span_processors
    assert type(processor.span_exporter).__name__ == "OTLPSpanExporter"
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    with pytest.raises(ValueError, match="zipkin"):
        tracer_from_env()


def test_wva_bench_otel_exports_one_span_tree_per_trial(monkeypatch: pytest.MonkeyPatch, memory: Any,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.cli.main import main

    tracer, exporter = memory
    monkeypatch.setattr("patterns.otel.tracer_from_env", lambda stream=None: (tracer, TracerProvider()))
    status = main(["bench", "--tasks", "pipeline", "--patterns", "chain,agent", "--instances", "2", "--trials", "2",
                   "--out", str(tmp_path), "--quiet", "--otel"])
    assert status == 0
    roots = [s for s in exporter.get_finished_spans() if s.parent is None]
    keys = sorted((s.attributes["wva.pattern"], s.attributes["wva.instance"], s.attributes["wva.trial"])
                  for s in roots)
    assert len(roots) == 8 and len(set(keys)) == 8 and {s.attributes["wva.task"] for s in roots} == {"pipeline"}
    assert {s.name for s in roots} == {"invoke_workflow chain", "invoke_agent agent"}
    assert all(isinstance(s.attributes["wva.success"], bool) for s in roots)
    children = [s for s in exporter.get_finished_spans() if s.parent is not None]
    assert {s.name.split(" ")[0] for s in children} >= {"chat", "execute_tool"}


def test_wva_bench_otel_with_several_workers_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    from benchmarks.cli.main import main

    assert main(["bench", "--tasks", "pipeline", "--out", str(tmp_path / "x"), "--otel", "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--otel" in err[0] and not (tmp_path / "x").exists()
