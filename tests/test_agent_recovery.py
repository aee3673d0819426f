"""The agent loop's recovery turns (pause_turn, max_tokens, compaction), retries, and its calling conventions."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from patterns import (
    NO_RETRY,
    Kind,
    RetryPolicy,
    Run,
    ScriptedModel,
    Terminal,
    ToolSet,
    arun_agent,
    message,
    run_agent,
    tool_use_block,
)
from patterns.agent import CONTINUE_NUDGE
from patterns.compaction import CLEARED
from patterns.options import RequestOptions

from .agent_fixtures import FAST, TOOLS, page
from .helpers import api_error, prompt_too_long, timeout_error


def test_pause_turn_sends_the_content_back_without_a_user_message() -> None:
    model = ScriptedModel([message("thinking...", stop_reason="pause_turn"), message(" done")])
    res = run_agent(model, "hi", options=RequestOptions(prompt_cache=False))  # the request as the loop built it
    assert res.terminal is Terminal.COMPLETED and res.steps == 2 and res.output == "thinking... done"
    sent = model.requests[1]["messages"]
    assert sent[-1] == {"role": "assistant", "content": [{"type": "text", "text": "thinking..."}]}
    # the continuation joins the same assistant turn, so roles keep alternating
    assert [m["role"] for m in res.messages] == ["user", "assistant"]
    assert any(e.kind is Kind.RECOVERY for e in res.events)


def test_max_tokens_with_text_continues_and_joins_the_parts() -> None:
    model = ScriptedModel([message("The answer", stop_reason="max_tokens"), message(" is 42.")])
    res = run_agent(model, "hi", options=RequestOptions(max_tokens=100, prompt_cache=False))  # the request as built
    assert res.terminal is Terminal.COMPLETED and res.output == "The answer is 42."
    second = model.requests[1]
    assert second["max_tokens"] == 200
    assert second["messages"][-1] == {"role": "user", "content": CONTINUE_NUDGE}
    kinds = [e.kind for e in res.events]
    assert Kind.RECOVERY in kinds and Kind.ESCALATION in kinds


def test_max_tokens_inside_tool_use_is_not_run_and_is_retried_with_more_room() -> None:
    cut = message(tool_use_block("add", {"a": 1}), stop_reason="max_tokens")
    model = ScriptedModel([cut, message(tool_use_block("add", {"a": 1, "b": 2})), message("3")])
    res = run_agent(model, "go", tools=TOOLS, options=RequestOptions(max_tokens=50))
    assert res.terminal is Terminal.COMPLETED and res.tool_calls == 1
    assert [r["max_tokens"] for r in model.requests] == [50, 100, 100]
    assert len(model.requests[1]["messages"]) == 1  # the same request, the cut reply dropped
    assert res.steps == 3  # the unusable call still counts, and so does its cost


def test_prompt_too_long_compacts_old_tool_results_and_retries() -> None:
    replies = [message(tool_use_block("page", {"n": i})) for i in range(3)]
    model = ScriptedModel([*replies, prompt_too_long(), message("done")])
    res = run_agent(model, "go", tools=ToolSet([page]))
    assert res.terminal is Terminal.COMPLETED
    before, after = model.requests[3]["messages"], model.requests[4]["messages"]
    assert len(after) == len(before)
    contents = [b["content"] for m in after if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"]]
    assert contents[:2] == [CLEARED, CLEARED] and contents[2].startswith("page 2:")  # latest round kept
    assert [e.kind for e in res.events].count(Kind.COMPACTION) == 1


def test_prompt_too_long_that_cannot_be_compacted_is_an_error() -> None:
    too_long = [prompt_too_long(), prompt_too_long(), prompt_too_long()]  # the call, its summary, truncated too
    res = run_agent(ScriptedModel(too_long), "a very long prompt")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "ContextOverflow"


def test_context_window_exceeded_stop_reason_keeps_text_and_compacts() -> None:
    replies = [message(tool_use_block("page", {"n": 1})), message(tool_use_block("page", {"n": 2})),
               message("partial", stop_reason="model_context_window_exceeded"), message(" rest")]
    res = run_agent(ScriptedModel(replies), "go", tools=ToolSet([page]))
    assert res.terminal is Terminal.COMPLETED and res.output == "partial rest"
    assert any(e.kind is Kind.COMPACTION for e in res.events)


def test_overloaded_then_success_is_retried_and_recorded() -> None:
    model = ScriptedModel([api_error(529, "Overloaded", {"retry-after": "0"}), timeout_error(), message("ok")])
    res = run_agent(model, "hi", retry=FAST)
    assert res.terminal is Terminal.COMPLETED and res.steps == 1
    retries = [e for e in res.events if e.kind is Kind.RETRY]
    assert [e.error_type for e in retries] == ["OverloadedError", "APITimeoutError"]


def test_retries_exhausted_is_an_error_with_partial_usage() -> None:
    replies = [message(tool_use_block("add", {"a": 1, "b": 1}), input_tokens=11)] + [api_error(429)] * 4
    res = run_agent(ScriptedModel(replies), "hi", tools=TOOLS, retry=FAST)
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "RateLimitError"
    assert res.usage.input_tokens == 11 and res.steps == 1
    assert [e.kind for e in res.events].count(Kind.RETRY) == 3


def test_every_attempt_is_recorded_with_its_number_and_the_last_error_is_raised_unchained() -> None:
    """Attempts 1..max_retries are retry events, the last an error event; the raised error is the last
    one, not chained to the earlier failures (each attempt failed on its own)."""
    errors = [api_error(429, "first"), api_error(529, "second"), api_error(500, "third")]
    run = Run(ScriptedModel(errors), retry=RetryPolicy(max_retries=2, base_delay_s=0.0))
    with pytest.raises(anthropic.InternalServerError) as raised:
        asyncio.run(run.sample(messages=[{"role": "user", "content": "hi"}]))
    assert raised.value is errors[2] and raised.value.__context__ is None
    assert [(e.kind, e.attempt, e.error_type) for e in run.events] == [
        (Kind.RETRY, 1, "RateLimitError"), (Kind.RETRY, 2, "OverloadedError"), (Kind.ERROR, 3, "InternalServerError")]
    assert run.steps == 0 and run.in_flight == 0


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_not_retried(status: int) -> None:
    model = ScriptedModel([api_error(status), message("never")])
    res = run_agent(model, "hi", retry=FAST)
    assert res.terminal is Terminal.ERROR and len(model.requests) == 1
    assert not any(e.kind is Kind.RETRY for e in res.events)


def test_no_retry_policy_fails_at_once() -> None:
    res = run_agent(ScriptedModel([api_error(500)]), "hi", retry=NO_RETRY)
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "InternalServerError"


def test_bad_arguments_are_programming_errors() -> None:
    with pytest.raises(TypeError):
        run_agent(object(), "hi")


def test_arun_agent_inside_a_running_loop_and_run_agent_from_one() -> None:
    async def main() -> tuple[Terminal, Terminal]:
        a = await arun_agent(ScriptedModel([message("a")]), "hi")
        b = run_agent(ScriptedModel([message("b")]), "hi")  # as in Jupyter, where a loop is running
        return a.terminal, b.terminal

    assert asyncio.run(main()) == (Terminal.COMPLETED, Terminal.COMPLETED)


def test_result_serialises_to_json() -> None:
    import json

    res = run_agent(ScriptedModel([message(tool_use_block("add", {"a": 1, "b": 1})), message("2")]),
                    "go", tools=TOOLS)
    doc = json.loads(json.dumps(res.to_dict()))
    assert doc["terminal"] == "completed" and doc["steps"] == 2
    assert doc["events"][0]["gen_ai.operation.name"] == "chat"
