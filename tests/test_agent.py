"""The agent loop's contract: every terminal, every recovery, the conversation it builds."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from patterns import (
    NO_RETRY,
    Abort,
    Hooks,
    Kind,
    Limits,
    RetryPolicy,
    Run,
    ScriptedModel,
    Terminal,
    ToolSet,
    Usage,
    arun_agent,
    message,
    run_agent,
    tool,
    tool_use_block,
)
from patterns.agent import CONTINUE_NUDGE
from patterns.compaction import CLEARED

from .helpers import VirtualScripted, api_error, prompt_too_long, timeout_error

FAST = RetryPolicy(max_retries=3, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)


@tool(timeout_s=None)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@tool(timeout_s=None)
def page(n: int) -> str:
    """Return page n of a long document.

    Args:
        n: the page number
    """
    return f"page {n}: " + "lorem ipsum " * 100


TOOLS = ToolSet([add])


def test_end_turn_completes_with_text_and_one_step() -> None:
    res = run_agent(ScriptedModel([message("hello")]), "hi")
    assert res.terminal is Terminal.COMPLETED and res.output == "hello"
    assert res.steps == 1 and res.tool_calls == 0
    assert res.messages == [{"role": "user", "content": "hi"},
                            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]


def test_stop_sequence_completes() -> None:
    res = run_agent(ScriptedModel([message("abc", stop_reason="stop_sequence")]), "hi")
    assert res.terminal is Terminal.COMPLETED and res.output == "abc"


def test_tool_round_then_answer_builds_the_api_conversation() -> None:
    use = tool_use_block("add", {"a": 2, "b": 3}, id="toolu_a")
    model = ScriptedModel([message("Let me add.", use), message("5")])
    # the request exactly as the loop built it (the cache breakpoints added on top: tests/test_caching.py)
    res = run_agent(model, "What is 2+3?", system="Be terse.", tools=TOOLS, limits=Limits(prompt_cache=False))
    assert res.terminal is Terminal.COMPLETED and res.output == "5"
    assert res.steps == 2 and res.tool_calls == 1
    assistant, user = res.messages[1], res.messages[2]
    assert assistant["content"][0] == {"type": "text", "text": "Let me add."}  # appended whole
    assert user == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "5"}]}
    second = model.requests[1]
    assert second["system"] == "Be terse." and second["tools"] == TOOLS.params
    assert len(second["messages"]) == 3  # grew by two: the assistant turn and the results


def test_parallel_tool_calls_keep_ids_and_order_and_run_concurrently() -> None:
    order: list[str] = []

    @tool
    async def slow(name: str, delay: float) -> str:
        """Wait, then echo.

        Args:
            name: echoed back
            delay: seconds to wait
        """
        await asyncio.sleep(delay)
        order.append(name)
        return name

    uses = [tool_use_block("slow", {"name": n, "delay": d}, id=f"toolu_{n}") for n, d in
            (("first", 0.2), ("second", 0.0), ("third", 0.1))]
    res = run_agent(ScriptedModel([message(*uses), message("done")]), "go", tools=ToolSet([slow]))
    results = res.messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_first", "toolu_second", "toolu_third"]
    assert [r["content"] for r in results] == ["first", "second", "third"]
    assert order == ["second", "third", "first"]  # they ran concurrently
    assert res.tool_calls == 3


def test_tool_errors_are_results_the_model_sees() -> None:
    uses = [tool_use_block("nope", {}, id="t1"), tool_use_block("add", {"a": "x", "b": 1}, id="t2"),
            tool_use_block("add", {"a": 1}, id="t3")]
    res = run_agent(ScriptedModel([message(*uses), message("sorry")]), "go", tools=TOOLS)
    results = res.messages[2]["content"]
    assert all(r["is_error"] for r in results)
    assert "unknown tool 'nope'" in results[0]["content"] and "add" in results[0]["content"]
    assert "expected integer" in results[1]["content"]
    assert "missing required field 'b'" in results[2]["content"]
    assert res.terminal is Terminal.COMPLETED


def test_max_steps_means_exactly_n_model_calls() -> None:
    loop_forever = [message(tool_use_block("add", {"a": 1, "b": 1})) for _ in range(10)]
    model = ScriptedModel(loop_forever)
    res = run_agent(model, "go", tools=TOOLS, limits=Limits(max_steps=3))
    assert res.terminal is Terminal.MAX_STEPS
    assert res.steps == 3 and len(model.requests) == 3
    assert sum(1 for e in res.events if e.kind is Kind.MODEL_CALL) == 3


def test_usage_is_summed_exactly_as_reported() -> None:
    replies = [message(tool_use_block("add", {"a": 1, "b": 2}), input_tokens=100, output_tokens=20,
                       cache_write=7, cache_read=3),
               message("3", input_tokens=150, output_tokens=4, cache_read=90)]
    res = run_agent(ScriptedModel(replies, price_id="claude-sonnet-4-5"), "go", tools=TOOLS)
    assert res.usage == Usage(250, 24, 7, 93)
    per_call = [e.usage for e in res.events if e.kind is Kind.MODEL_CALL]
    assert sum(per_call, Usage()) == res.usage
    expected = (250 * 3.0 + 24 * 15.0 + 7 * 3.75 + 93 * 0.3) / 1e6
    assert res.cost_usd == pytest.approx(expected)


def test_unpriced_model_has_unknown_cost_not_zero() -> None:
    res = run_agent(ScriptedModel([message("x")]), "hi")
    assert res.cost_usd is None


def test_token_budget_ends_with_budget() -> None:
    replies = [message(tool_use_block("add", {"a": 1, "b": 1}), input_tokens=600, output_tokens=0)] * 5
    res = run_agent(ScriptedModel(replies), "go", tools=TOOLS, limits=Limits(token_budget=1000))
    assert res.terminal is Terminal.BUDGET and res.steps == 2


def test_cost_budget_ends_with_budget() -> None:
    replies = [message(tool_use_block("add", {"a": 1, "b": 1}), input_tokens=1_000_000)] * 5
    model = ScriptedModel(replies, price_id="claude-haiku-4-5")  # $1 per call
    res = run_agent(model, "go", tools=TOOLS, limits=Limits(cost_budget_usd=2.5))
    assert res.terminal is Terminal.BUDGET and res.steps == 3


def test_time_budget_on_the_virtual_clock() -> None:
    replies = [message(tool_use_block("add", {"a": 1, "b": 1}))] * 10
    res = run_agent(VirtualScripted(replies, latency_s=2.0), "go", tools=TOOLS, limits=Limits(time_budget_s=5))
    assert res.terminal is Terminal.TIMEOUT and res.steps == 3
    assert res.latency_s == pytest.approx(6.0)


def test_refusal_ends_with_refusal() -> None:
    res = run_agent(ScriptedModel([message("I can't help with that.", stop_reason="refusal")]), "hi")
    assert res.terminal is Terminal.REFUSAL and res.output == "I can't help with that."


def test_abort_before_start_and_from_a_tool() -> None:
    abort = Abort()
    abort.set("user pressed stop")
    res = run_agent(ScriptedModel([message("x")]), "hi", abort=abort)
    assert res.terminal is Terminal.ABORTED and res.steps == 0 and res.detail == "user pressed stop"

    abort2 = Abort()

    @tool(timeout_s=None)
    def stop_now() -> str:
        """Ask the run to stop."""
        abort2.set("tool asked to stop")
        return "stopping"

    model = ScriptedModel([message(tool_use_block("stop_now", {}, id="t1")), message("never")])
    res = run_agent(model, "hi", tools=ToolSet([stop_now]), abort=abort2)
    assert res.terminal is Terminal.ABORTED and res.steps == 1 and len(model.requests) == 1
    assert res.messages[-1]["content"][0]["tool_use_id"] == "t1"  # the conversation is still valid


def test_permission_hook_denies_a_tool() -> None:
    seen: list[str] = []

    def gate(name: str, tool_input: dict) -> str | None:
        seen.append(name)
        return "adding is not allowed here" if name == "add" else None

    model = ScriptedModel([message(tool_use_block("add", {"a": 1, "b": 2}, id="t1")), message("ok")])
    res = run_agent(model, "go", tools=TOOLS, hooks=Hooks(before_tool=gate))
    result = res.messages[2]["content"][0]
    assert result["is_error"] and "Permission denied: adding is not allowed here" in result["content"]
    assert seen == ["add"] and res.terminal is Terminal.COMPLETED
    assert [e.error_type for e in res.events if e.kind is Kind.TOOL_CALL] == ["PermissionDenied"]


def test_hooks_see_every_call_and_may_abort() -> None:
    abort = Abort()
    calls: list[int] = []

    async def before(params: dict) -> None:
        calls.append(len(params["messages"]))

    def after(msg: anthropic.types.Message) -> None:
        abort.set("enough")

    replies = [message(tool_use_block("add", {"a": 1, "b": 1}))] * 3
    res = run_agent(ScriptedModel(replies), "go", tools=TOOLS, abort=abort,
                    hooks=Hooks(before_model=before, after_step=after))
    assert calls == [1] and res.terminal is Terminal.ABORTED


def test_pause_turn_sends_the_content_back_without_a_user_message() -> None:
    model = ScriptedModel([message("thinking...", stop_reason="pause_turn"), message(" done")])
    res = run_agent(model, "hi", limits=Limits(prompt_cache=False))  # the request as the loop built it
    assert res.terminal is Terminal.COMPLETED and res.steps == 2 and res.output == "thinking... done"
    sent = model.requests[1]["messages"]
    assert sent[-1] == {"role": "assistant", "content": [{"type": "text", "text": "thinking..."}]}
    # the continuation joins the same assistant turn, so roles keep alternating
    assert [m["role"] for m in res.messages] == ["user", "assistant"]
    assert any(e.kind is Kind.RECOVERY for e in res.events)


def test_max_tokens_with_text_continues_and_joins_the_parts() -> None:
    model = ScriptedModel([message("The answer", stop_reason="max_tokens"), message(" is 42.")])
    res = run_agent(model, "hi", limits=Limits(max_tokens=100, prompt_cache=False))  # the request as built
    assert res.terminal is Terminal.COMPLETED and res.output == "The answer is 42."
    second = model.requests[1]
    assert second["max_tokens"] == 200
    assert second["messages"][-1] == {"role": "user", "content": CONTINUE_NUDGE}
    kinds = [e.kind for e in res.events]
    assert Kind.RECOVERY in kinds and Kind.ESCALATION in kinds


def test_max_tokens_inside_tool_use_is_not_run_and_is_retried_with_more_room() -> None:
    cut = message(tool_use_block("add", {"a": 1}), stop_reason="max_tokens")
    model = ScriptedModel([cut, message(tool_use_block("add", {"a": 1, "b": 2})), message("3")])
    res = run_agent(model, "go", tools=TOOLS, limits=Limits(max_tokens=50))
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
