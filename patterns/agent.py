"""The dynamic agent loop: one turn, repeated, over one growing `messages` list."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anthropic

from .blocks import sendable
from .compaction import Pressure, compact, is_prompt_too_long, pressure_of, size
from .compaction_summary import replacement, summary_request, truncated_middle
from .events import Kind
from .hooks import Hooks
from .limits import Abort, Limits
from .model import Model
from .options import RequestOptions
from .result import Result, Terminal
from .retry import RetryPolicy
from .run import Failure, Run, StopRun
from .sync import run_sync
from .tools import ToolSet
from .usage import Usage

CONTINUE_NUDGE = "Continue exactly where you stopped. Do not apologise and do not repeat anything."
MAX_TOKENS_CAP = 32_000  # escalation doubles max_tokens up to this
MAX_CONTINUATIONS = 8  # text continuations after max_tokens, before the run gives up
STAGE2_SHARE = 0.5  # after a summarising compaction the conversation aims at half the room, so the run can go on


async def arun_agent(
    model: Model, prompt: str | list[dict[str, Any]], *, system: str | None = None, tools: ToolSet | None = None,
    limits: Limits | None = None, options: RequestOptions | None = None, abort: Abort | None = None,
    hooks: Hooks | None = None, retry: RetryPolicy | None = None, seed: int = 0, run: Run | None = None,
    tracer: Any = None,
) -> Result:
    """Run the model in a loop until it ends its turn, a limit is hit, or it fails for good.

    Each turn: check the limits and the abort flag, then *sample* (send system, tools, max_tokens
    and the messages); *switch on stop_reason*: `end_turn`/`stop_sequence` complete the run;
    `tool_use` *executes* every tool_use block (concurrently), then *appends* the assistant message
    whole and one user message with a tool_result per tool_use, in order; *next* turn.
    Recovery turns are just more turns: `max_tokens` keeps the partial text, doubles max_tokens
    and asks the model to continue (or, inside an unfinished tool_use, retries the same request
    with more room); `pause_turn` sends the reply back as it is; "prompt is too long" (or
    `model_context_window_exceeded`, or a prompt over `Limits.compact_at_tokens`) compacts the
    context in two stages (`_compacted`: clear old tool results; if that is not enough, one model
    call summarises the conversation, `_summarised`) and tries again; `refusal` ends it.
    API errors are retried by the retry policy inside `run.sample`. Whatever happens, the
    Result carries the conversation, usage and events recorded up to the end.
    `tracer` (an OpenTelemetry tracer, or `patterns.otel.Tracing(tracer, content=True)`) exports the
    run's spans when it ends (`patterns/otel.py`); it is used when the Run is created here.
    """
    traced = None
    if tracer is not None and run is None:
        from .otel import traced_model

        model = traced = traced_model(model, tracer)
    run = run or Run(model, pattern="agent", limits=limits, options=options, abort=abort, hooks=hooks, retry=retry,
                     seed=seed)
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    parts: list[str] = []  # text kept across max_tokens continuations
    result = await run.execute(lambda: agent_loop(run, messages, parts, system=system, tools=tools), lambda: messages)
    if result.terminal is not Terminal.COMPLETED and not result.output:
        result = _with_output(result, "".join(parts) + _last_text(messages))
    if traced is not None:
        traced.export(result)
    return result


async def agent_loop(run: Run, messages: list[dict[str, Any]], parts: list[str], *, system: str | None = None,
                     tools: ToolSet | None = None) -> str:
    """The loop itself, on an existing run: returns the output or raises (StopRun, Failure, APIError).

    `messages` is updated in place (the caller keeps the conversation however the loop ends);
    the message dicts in it are never mutated.
    """
    tools = tools or ToolSet()
    max_tokens = run.options.max_tokens
    request: dict[str, Any] = {"system": system} if system else {}
    if tools.params:
        request["tools"] = tools.params
    squeezed = False  # stage 2 ran and no reply came since: one more overflow ends the run (never loops)
    due: Pressure | None = None  # the last reply's prompt passed Limits.compact_at_tokens
    while True:  # bounded: each turn is a model call (max_steps), or a compaction that ends the run when repeated
        if due is not None:
            messages[:], squeezed = await _compacted(run, messages, due, squeezed, request, max_tokens)
            due = None
        try:
            reply = await run.sample(messages=messages, max_tokens=max_tokens, **request)
        except anthropic.BadRequestError as exc:
            if not is_prompt_too_long(exc):
                raise
            pressure = pressure_of(exc, messages)
            messages[:], squeezed = await _compacted(run, messages, pressure, squeezed, request, max_tokens)
            continue
        squeezed, due = False, _due(run, reply, messages)
        content, uses = sendable(reply.content)
        match reply.stop_reason:
            case "max_tokens" if uses:
                max_tokens = _escalated(run, max_tokens, required=True)  # never run a cut tool_use
            case "max_tokens":
                messages[:] = _continued(run, messages, content, parts)
                max_tokens = _escalated(run, max_tokens, required=False)
            case "model_context_window_exceeded":
                messages[:] = _continued(run, messages, _without_tool_use(content), parts)
                pressure, due = _filled(reply, messages), None
                messages[:], squeezed = await _compacted(run, messages, pressure, squeezed, request, max_tokens)
            case "refusal":
                _append_assistant(messages, _without_tool_use(content))
                raise StopRun(Terminal.REFUSAL, "the model refused (stop_reason refusal)")
            case _ if uses:  # tool_use; also a tool_use block under another stop_reason: it still needs a result
                parts.clear()  # text cut before a tool round was commentary on the way, not the answer
                results = await run.call_tools(tools, uses)
                _append_assistant(messages, content)
                messages.append({"role": "user", "content": results})
            case "end_turn" | "stop_sequence" | "tool_use" | None:  # tool_use without a block: nothing to run
                _append_assistant(messages, content)
                return "".join(parts) + _text(content)
            case "pause_turn":
                parts.append(_text(content))  # the paused text is part of the answer, as after max_tokens
                _append_assistant(messages, content)
                run.record(Kind.RECOVERY, run.elapsed(), detail="pause_turn: reply sent back as it is")
            case other:
                raise Failure("UnknownStopReason", f"unexpected stop_reason {other!r}")


def run_agent(model: Model, prompt: str | list[dict[str, Any]], **kwargs: Any) -> Result:
    """Synchronous `arun_agent` (same arguments); also works inside Jupyter."""
    return run_sync(arun_agent(model, prompt, **kwargs), closing=model)


def _text(content: list[dict[str, Any]]) -> str:
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def _last_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message["role"] == "assistant" and isinstance(message["content"], list):
            return _text(message["content"])
    return ""


def _with_output(result: Result, output: str) -> Result:
    return replace(result, output=output)


def _without_tool_use(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [block for block in content if block.get("type") != "tool_use"]


def _append_assistant(messages: list[dict[str, Any]], content: list[dict[str, Any]]) -> None:
    """Append a reply; after a pause_turn it continues the same assistant turn, so roles still alternate.

    An empty reply adds nothing: an empty message would make the conversation invalid to send."""
    if not content:
        return
    if messages[-1]["role"] == "assistant":
        messages[-1] = {"role": "assistant", "content": [*messages[-1]["content"], *content]}
    else:
        messages.append({"role": "assistant", "content": content})


def _continued(run: Run, messages: list[dict[str, Any]], content: list[dict[str, Any]],
               parts: list[str]) -> list[dict[str, Any]]:
    """Keep a cut reply's text and ask for the rest (a recovery turn)."""
    if len(parts) >= MAX_CONTINUATIONS:
        raise Failure("MaxTokens", f"output still cut after {MAX_CONTINUATIONS} continuations")
    parts.append(_text(content))
    run.record(Kind.RECOVERY, run.elapsed(), detail="max_tokens: partial text kept, asked to continue")
    if not content:
        return messages
    continued = list(messages)
    _append_assistant(continued, content)
    continued.append({"role": "user", "content": CONTINUE_NUDGE})
    return continued


def _escalated(run: Run, max_tokens: int, *, required: bool) -> int:
    """Double max_tokens up to the cap; when a cut tool_use needs more and none is left, give up."""
    raised = min(max_tokens * 2, max(MAX_TOKENS_CAP, run.options.max_tokens))
    if raised == max_tokens:
        if required:
            raise Failure("MaxTokens", f"a tool_use block did not fit in max_tokens={max_tokens}")
        return max_tokens
    run.record(Kind.ESCALATION, run.elapsed(), detail=f"max_tokens {max_tokens} -> {raised}")
    return raised


async def _compacted(run: Run, messages: list[dict[str, Any]], pressure: Pressure, squeezed: bool,
                     request: dict[str, Any], max_tokens: int) -> tuple[list[dict[str, Any]], bool]:
    """Stage 1 (clear old tool results), then stage 2 (summarise) if stage 1 cleared nothing or is
    estimated not to be enough. Returns the new conversation and whether stage 2 ran."""
    if squeezed:
        raise Failure("ContextOverflow", "the context is still too long after a summarising compaction")
    start, before = run.elapsed(), size(messages)
    smaller, cleared = compact(messages)
    if cleared:
        run.record(Kind.COMPACTION, start, name="collapse", detail=(
            f"stage 1 ({pressure.cause}): cleared {cleared} tool results: {before} -> {size(smaller)} chars, "
            f"~{pressure.estimate(messages)} -> ~{pressure.estimate(smaller)} tokens (limit {pressure.limit})"))
        if pressure.estimate(smaller) <= pressure.limit:
            return smaller, False
    return await _summarised(run, smaller, pressure, request, max_tokens), True


async def _summarised(run: Run, messages: list[dict[str, Any]], pressure: Pressure, request: dict[str, Any],
                      max_tokens: int) -> list[dict[str, Any]]:
    """Stage 2: one model call (event `compaction`) summarises the conversation, which the task + summary
    (+ the latest round, when it fits) replace. A summary request too long itself is retried once with
    its middle left out; a second overflow ends the run."""
    start, before = run.elapsed(), size(messages)
    call = {**request, "max_tokens": max_tokens}
    if "tools" in request:
        call["tool_choice"] = {"type": "none"}
    asked = summary_request(messages)
    for attempt in (1, 2):
        try:
            reply = await run.sample(name="compaction", messages=asked, **call)
            break
        except anthropic.BadRequestError as exc:
            if not is_prompt_too_long(exc):
                raise
            if attempt == 2:
                raise Failure("ContextOverflow", "the summary request is too long even with its middle left out") \
                    from None
            asked = summary_request(truncated_middle(messages, pressure_of(exc, asked).chars_for(STAGE2_SHARE)))
    summary = "".join(b.text for b in reply.content if b.type == "text").strip()
    if not summary:
        raise Failure("ContextOverflow", "the summary call returned no text to continue from")
    smaller = replacement(messages, summary, pressure.chars_for(STAGE2_SHARE))
    run.record(Kind.COMPACTION, start, name="summary", detail=(
        f"stage 2 ({pressure.cause}): {len(messages)} messages summarised into {len(smaller)}: {before} -> "
        f"{size(smaller)} chars, ~{pressure.estimate(messages)} -> ~{pressure.estimate(smaller)} tokens"))
    return smaller


def _due(run: Run, reply: Any, messages: list[dict[str, Any]]) -> Pressure | None:
    """Proactive compaction: the prompt just sent was over Limits.compact_at_tokens."""
    at = run.limits.compact_at_tokens
    if at is None:
        return None
    prompt = Usage.from_api(reply.usage).prompt_tokens
    return Pressure(prompt, at, size(messages), "compact_at_tokens") if prompt > at else None


def _filled(reply: Any, messages: list[dict[str, Any]]) -> Pressure:
    """After model_context_window_exceeded the prompt and the reply filled the window: aim for 3/4 of it,
    leaving room for the next reply."""
    window = Usage.from_api(reply.usage).total_tokens
    return Pressure(window, window * 3 // 4, size(messages), "model_context_window_exceeded")
