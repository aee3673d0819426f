"""The agent loop's contract: every terminal, every recovery, the conversation it builds."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from patterns import (
    Abort,
    Hooks,
    Kind,
    Limits,
    ScriptedModel,
    Terminal,
    ToolSet,
    Usage,
    message,
    run_agent,
    tool,
    tool_use_block,
)
from patterns.options import RequestOptions

from .agent_fixtures import TOOLS
from .helpers import VirtualScripted


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
    res = run_agent(model, "What is 2+3?", system="Be terse.", tools=TOOLS, options=RequestOptions(prompt_cache=False))
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
