"""OpenTelemetry spans for a run, following the GenAI semantic conventions.

Design: the spans are built from the run's recorded events once the run has ended, not opened
and closed by the loop as it goes. The events already hold what a span needs (start and end on
the run's clock, usage, stop reason, tool name and id, retries, compactions, escalations), so the
loop and the workflows stay as they are, a run without a tracer pays nothing, and a simulated
run in virtual time gets spans in its modelled time, anchored at the wall time the run began.
`Traced` wraps the model for the run and keeps what the events do not: each call's requested
`max_tokens` and reply id (and, with `content=True`, the request and the reply). Its i-th record
is the run's i-th `model_call` event: `Run.sample` appends the event with no await between the
model's reply and the append.

The tree, per run: `invoke_agent {pattern}` or `invoke_workflow {pattern}` (attributes `wva.pattern`,
and the caller's: `wva.task`, `wva.instance`, `wva.trial`, ...), with children, siblings in time
order (a parallel workflow's branches are siblings): `chat {model}` per model call
(`gen_ai.usage.*`, `gen_ai.response.finish_reasons`, `gen_ai.request.max_tokens`; a call that
failed for good is a `chat` span with `error.type`) and `execute_tool {name}` per tool call.
Retries are span events on the call they repeated; compactions, escalations, recoveries,
limits and workflow decisions are span events on the run's span. `gen_ai.usage.input_tokens` is
the whole prompt (cache reads and writes included, as the conventions define it), unlike the
Messages API's `input_tokens`. No prompt or completion text is exported unless `content=True`
(`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, tool arguments and
results, decisions' details, as JSON in the Messages API's shape). No header, client or key is
ever read, so no API key can be exported.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .events import Event, Kind
from .result import Result, Terminal

_PROVIDERS = {"AnthropicModel": "anthropic", "OpenAIModel": "openai", "SimModel": "wva.sim",
              "ReplayModel": "wva.replay"}
_ON_ROOT = {Kind.COMPACTION: "compaction", Kind.ESCALATION: "escalation", Kind.RECOVERY: "recovery",
            Kind.LIMIT: "limit", Kind.DECISION: "decision"}


class _Call(NamedTuple):
    max_tokens: int | None
    response_id: str
    request: dict[str, Any] | None  # with content only
    reply: list[dict[str, Any]] | None


@dataclass(frozen=True)
class Tracing:
    """How to trace: the tracer, whether to export prompt and completion text, attributes for the run's span."""

    tracer: Any
    content: bool = False
    attributes: Mapping[str, Any] = field(default_factory=dict)


def traced_model(model: Any, tracer: Any) -> Traced:
    """`model` wrapped for one run; `tracer` is an OpenTelemetry tracer or a `Tracing`."""
    tracing = tracer if isinstance(tracer, Tracing) else Tracing(tracer)
    return Traced(model, tracing.tracer, content=tracing.content, attributes=tracing.attributes)


class Traced:
    """A model that keeps what each successful call asked and got, then exports the run's spans."""

    def __init__(self, model: Any, tracer: Any, *, content: bool = False,
                 attributes: Mapping[str, Any] | None = None) -> None:
        self.inner, self.tracer, self.content = model, tracer, content
        self.attributes = dict(attributes or {})
        self.calls: list[_Call] = []
        self.start_ns = time.time_ns()

    def __getattr__(self, name: str) -> Any:  # clock, price_id, model_id and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        reply = await self.inner.create(**params)
        request = reply_blocks = None
        if self.content:
            request = {k: params[k] for k in ("system", "messages") if k in params}
            reply_blocks = [b.to_dict() for b in reply.content]
        self.calls.append(_Call(params.get("max_tokens"), str(getattr(reply, "id", "")), request, reply_blocks))
        return reply

    def export(self, result: Result, attributes: dict[str, Any] | None = None) -> None:
        """The run's spans (see the module docstring), ended and handed to the tracer's processors."""
        export_run(self.tracer, result, self.calls, start_ns=self.start_ns, model=self.inner,
                   attributes={**self.attributes, **(attributes or {})}, content=self.content)


def provider_of(model: Any) -> str:
    while hasattr(model, "inner") and type(model).__name__ not in _PROVIDERS:
        model = model.inner  # BoundedModel, Traced, RecordingModel wrap the real one
    return _PROVIDERS.get(type(model).__name__, type(model).__name__)


def export_run(tracer: Any, result: Result, calls: list[_Call], *, start_ns: int, model: Any,
               attributes: dict[str, Any], content: bool) -> None:
    from opentelemetry import trace
    from opentelemetry.trace import SpanKind, Status, StatusCode

    def at(seconds: float) -> int:
        return start_ns + int(seconds * 1e9)

    common = {"gen_ai.provider.name": provider_of(model)}
    model_id = getattr(model, "model_id", None) or getattr(model, "name", None)
    if model_id:
        common["gen_ai.request.model"] = str(model_id)
    operation = "invoke_agent" if result.pattern == "agent" else "invoke_workflow"
    root = tracer.start_span(f"{operation} {result.pattern}", kind=SpanKind.INTERNAL, start_time=start_ns,
                             attributes=_clean({**common, **_run_attributes(result, operation), **attributes}))
    if result.terminal is Terminal.ERROR:
        root.set_status(Status(StatusCode.ERROR, result.detail[:300]))
    context = trace.set_span_in_context(root)
    children = _children(result.events, calls, result, content)
    for name, kind, first, last, attrs, events, failed in children:
        span = tracer.start_span(name, context=context, kind=SpanKind.CLIENT if kind == "chat" else SpanKind.INTERNAL,
                                 start_time=at(first), attributes=_clean({**common, **attrs}) if kind == "chat"
                                 else _clean(attrs))
        for event in events:
            span.add_event(event[0], _clean(event[2]), timestamp=at(event[1]))
        if failed:
            span.set_status(Status(StatusCode.ERROR, failed))
        span.end(end_time=at(last))
    for e in result.events:
        if e.kind in _ON_ROOT:
            detail = e.detail if content or e.kind is not Kind.DECISION else ""
            root.add_event(_ON_ROOT[e.kind], _clean({"wva.name": e.name, "wva.detail": detail,
                                                     "wva.duration_s": e.duration}), timestamp=at(e.end))
    root.end(end_time=at(result.latency_s))


def _run_attributes(result: Result, operation: str) -> dict[str, Any]:
    u = result.usage
    return {"gen_ai.operation.name": operation, "gen_ai.agent.name": result.pattern, "wva.pattern": result.pattern,
            "wva.terminal": str(result.terminal), "wva.steps": result.steps, "wva.tool_calls": result.tool_calls,
            "gen_ai.usage.input_tokens": u.prompt_tokens, "gen_ai.usage.output_tokens": u.output_tokens,
            "wva.cost_usd": result.cost_usd, "wva.retries": result.retries,
            "wva.usage_estimated_calls": result.estimated_calls or None}  # calls whose usage is a guess (usage.py)


def _children(events: tuple[Event, ...], calls: list[_Call], result: Result,
              content: bool) -> list[tuple[str, str, float, float, dict[str, Any], list[Any], str]]:
    """(name, kind, start, end, attributes, span events, error) per chat and execute_tool span, in time order."""
    out = []
    pending: dict[str, list[Event]] = {}  # retries waiting for the call they repeated, by node name
    model_calls = 0
    inputs = {c: b for call in calls if call.reply for b in call.reply for c in [b.get("id")] if c}
    for e in events:
        if e.kind is Kind.RETRY:
            pending.setdefault(e.name, []).append(e)
        elif e.kind in (Kind.MODEL_CALL, Kind.ERROR):
            retries = pending.pop(e.name, [])
            call = calls[model_calls] if e.kind is Kind.MODEL_CALL and model_calls < len(calls) else None
            model_calls += e.kind is Kind.MODEL_CALL
            attrs = _chat_attributes(e, call, content)
            spans = [("retry", r.end, {"error.type": r.error_type, "wva.attempt": r.attempt, "wva.detail": r.detail,
                                       "error.message": r.error}) for r in retries]
            first = min([e.start, *(r.start for r in retries)])
            failed = f"{e.error_type}: {e.error}" if e.kind is Kind.ERROR else ""
            out.append((f"chat {e.model or attrs.get('wva.node') or 'model'}", "chat", first, e.end, attrs, spans,
                        failed))
        elif e.kind is Kind.TOOL_CALL:
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e.tool_name,
                     "gen_ai.tool.call.id": e.tool_use_id, "wva.node": e.name}
            if e.is_error:
                attrs["error.type"] = e.error_type or "ToolError"
            if content:
                attrs["gen_ai.tool.call.arguments"] = _json((inputs.get(e.tool_use_id) or {}).get("input"))
                attrs["gen_ai.tool.call.result"] = _tool_result(result.messages, e.tool_use_id) or e.error
            out.append((f"execute_tool {e.tool_name}", "tool", e.start, e.end, attrs, [],
                        (e.error_type or "ToolError") if e.is_error else ""))
    return sorted(out, key=lambda child: child[2])


def _chat_attributes(e: Event, call: _Call | None, content: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "wva.node": e.name}
    if e.kind is Kind.ERROR:
        return {**attrs, "error.type": e.error_type or "Error"}
    u = e.usage
    attrs.update({"gen_ai.response.model": e.model, "gen_ai.response.finish_reasons": [e.stop_reason or ""],
                  "wva.cost_usd": e.cost_usd})
    if u is not None:
        attrs.update({"gen_ai.usage.input_tokens": u.prompt_tokens, "gen_ai.usage.output_tokens": u.output_tokens,
                      "gen_ai.usage.cache_read.input_tokens": u.cache_read_tokens,
                      "gen_ai.usage.cache_creation.input_tokens": u.cache_write_tokens,
                      "wva.usage_estimated": e.usage_estimated or None})  # the reply reported no usage
    if call is not None:
        attrs.update({"gen_ai.request.max_tokens": call.max_tokens, "gen_ai.response.id": call.response_id})
        if content and call.request is not None:
            system = call.request.get("system")
            attrs["gen_ai.system_instructions"] = _json(system) if system else None
            attrs["gen_ai.input.messages"] = _json(call.request.get("messages"))
            attrs["gen_ai.output.messages"] = _json([{"role": "assistant", "content": call.reply}])
    return attrs


def _tool_result(messages: list[dict[str, Any]], tool_use_id: str | None) -> str | None:
    for message in messages:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(block, dict) and block.get("tool_use_id") == tool_use_id:
                body = block.get("content")
                return body if isinstance(body, str) else _json(body)
    return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _clean(attributes: dict[str, Any]) -> dict[str, Any]:
    """OpenTelemetry takes no None values: leave those attributes out."""
    return {k: v for k, v in attributes.items() if v is not None and v != ""}


def tracer_from_env(stream: Any = None) -> tuple[Any, Any]:
    """(tracer, provider) exporting where the standard variables say: `OTEL_TRACES_EXPORTER` (otlp, console,
    none; comma-separated), else OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set, else
    the console, on `stream` (default stderr, leaving stdout to the command). OTLP goes over http/protobuf, or
    gRPC when `OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL=grpc`, to the endpoint and with the headers the exporter
    reads from the environment. Call `provider.shutdown()` at the end: it flushes. A bad setting or a missing
    package is a one-line ValueError."""
    import os
    import sys

    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        raise ValueError("--otel needs the OpenTelemetry SDK: pip install 'workflow-vs-agent[otel]'") from None
    env = os.environ.get
    names = [n.strip().lower() for n in (env("OTEL_TRACES_EXPORTER") or "").split(",") if n.strip()]
    if not names:
        names = ["otlp"] if env("OTEL_EXPORTER_OTLP_ENDPOINT") or env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") \
            else ["console"]
    provider = TracerProvider(resource=Resource.create({"service.name": env("OTEL_SERVICE_NAME")
                                                        or "workflow-vs-agent"}))
    for name in names:
        if name == "console":
            provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=stream or sys.stderr)))
        elif name == "otlp":
            provider.add_span_processor(BatchSpanProcessor(_otlp_exporter(env)))
        elif name != "none":
            raise ValueError(f"OTEL_TRACES_EXPORTER={name!r} is not supported here: use otlp, console or none")
    return provider.get_tracer("workflow-vs-agent"), provider


def _otlp_exporter(env: Any) -> Any:
    protocol = (env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf")
    try:
        if protocol.strip().lower() == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # type: ignore[assignment]
    except ImportError:
        package = "opentelemetry-exporter-otlp-proto-" + ("grpc" if protocol == "grpc" else "http")
        raise ValueError(f"OTLP export over {protocol} needs {package}: pip install {package}") from None
    return OTLPSpanExporter()
