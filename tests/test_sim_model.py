"""SimModel: seeded, Messages-API-shaped, with decisions, tokens, limits and latency as documented."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from typing import Any

import anthropic
import pytest
from anthropic.types import Message

from patterns.clock import REAL_CLOCK, VirtualClock
from patterns.sim import Decider, GenericPolicy, Reply, Request, SimModel
from patterns.sim.generic import synthesise_arguments
from patterns.sim.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, TOOL_OVERHEAD, TokenCounter, canonical_json

ADD = {
    "name": "add", "description": "Add two numbers.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                     "required": ["a", "b"]},
}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class Fixed:
    """A policy returning one fixed reply: for the shaping tests."""

    def __init__(self, content: list[dict[str, Any]], stop_reason: str | None = None) -> None:
        self.reply = Reply(content, stop_reason)
        self.requests: list[Request] = []

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        self.requests.append(request)
        return self.reply


async def tool_round(model: SimModel, prompt: str, *, retry_faults: bool = False) -> list[Any]:
    """A tiny agent loop (tool call, result, answer); returns every reply or error as JSON-able data."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    trace: list[Any] = []
    for _ in range(4):
        try:
            reply = await model.create(messages=messages, tools=[ADD], max_tokens=200)
        except anthropic.APIError as exc:
            trace.append(("error", type(exc).__name__, str(exc)))
            if retry_faults:
                continue
            return trace
        trace.append(reply.model_dump(mode="json"))
        if reply.stop_reason != "tool_use":
            return trace
        content = [b.to_dict() for b in reply.content]
        results = [{"type": "tool_result", "tool_use_id": b["id"],
                    "content": str(b["input"].get("a", 0) + b["input"].get("b", 0))}
                   for b in content if b["type"] == "tool_use"]
        messages += [{"role": "assistant", "content": content}, {"role": "user", "content": results}]
    return trace


def test_create_returns_a_real_message_with_usage_and_ids() -> None:
    model = SimModel()
    reply = run(model.create(messages=[{"role": "user", "content": "add 2 and 3"}], tools=[ADD], max_tokens=100))
    assert isinstance(reply, Message)
    assert reply.id.startswith("msg_sim_") and reply.role == "assistant" and reply.model == "sim"
    assert reply.stop_reason == "tool_use"
    use = reply.content[-1]
    assert use.type == "tool_use" and use.id.startswith("toolu_sim_") and use.input == {"a": 2, "b": 3}
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
    assert reply.usage.cache_creation_input_tokens == 0 and reply.usage.cache_read_input_tokens == 0
    assert model.calls == 1 and model.replies == 1 and model.price_id == "claude-sonnet-4-5"


def test_same_seed_same_run_bit_for_bit() -> None:
    def once(seed: int) -> list[Any]:
        model = SimModel(seed=seed, error_rate=0.3, fault_rate=0.3)

        async def main() -> list[Any]:
            out = [await tool_round(model, f"add {i} and {i * 7}", retry_faults=True) for i in range(12)]
            return [*out, model.clock.now(), dict(model.faults_injected), model.mistakes]

        return run(main())

    first = once(3)
    assert first == once(3)
    assert first != once(4)


def test_concurrent_trials_do_not_depend_on_interleaving() -> None:
    prompts = [f"add {i} and {i + 1}" for i in range(8)]

    async def together(order: list[str]) -> dict[str, list[Any]]:
        model = SimModel(seed=1, error_rate=0.4, fault_rate=0.2)
        traces = await asyncio.gather(*(tool_round(model, p, retry_faults=True) for p in order))
        return dict(zip(order, traces, strict=True))

    forward = run(together(prompts))
    backward = run(together(prompts[::-1]))
    assert forward == backward


def test_identical_trials_differ_and_fork_gives_each_its_own_stream() -> None:
    model = SimModel(seed=2, error_rate=0.5)
    params = {"messages": [{"role": "user", "content": "add 1 and 2"}], "tools": [ADD], "max_tokens": 100}
    ids = {run(model.create(**params)).id for _ in range(5)}
    assert len(ids) == 5  # trial 2 is not a copy of trial 1
    a1, a2 = model.fork("trial-1"), model.fork("trial-2")
    assert run(a1.create(**params)).id != run(a2.create(**params)).id
    assert run(SimModel(seed=2, error_rate=0.5).fork("trial-1").create(**params)).id == \
        run(SimModel(seed=2, error_rate=0.5).fork("trial-1").create(**params)).id


def _outcome_wrong(reply: Message, a: int, b: int) -> bool:
    uses = [blk for blk in reply.content if blk.type == "tool_use"]
    return not uses or uses[0].input != {"a": a, "b": b}


@pytest.mark.parametrize("error_rate", [0.0, 0.5, 0.1])
def test_error_rate_changes_outcomes_at_the_rate_asked(error_rate: float) -> None:
    model = SimModel(seed=11, error_rate=error_rate)
    n = 400

    async def main() -> int:
        wrong = 0
        for i in range(n):
            reply = await model.create(messages=[{"role": "user", "content": f"add {i} and {2 * i + 1}"}],
                                       tools=[ADD], max_tokens=100)
            wrong += _outcome_wrong(reply, i, 2 * i + 1)
        return wrong

    wrong = run(main())
    sigma = math.sqrt(n * error_rate * (1 - error_rate))
    assert abs(wrong - n * error_rate) <= 4 * sigma
    assert model.decisions == n and model.mistakes == wrong


def test_generic_policy_answers_from_tool_results_and_retries_after_an_error() -> None:
    model = SimModel()
    trace = run(tool_round(model, "add 20 and 22"))
    assert trace[-1]["content"][0]["text"] == "Result: 42"
    first = run(model.create(messages=[{"role": "user", "content": "add 1 and 2"}], tools=[ADD], max_tokens=100))
    content = [b.to_dict() for b in first.content]
    error = [{"type": "tool_result", "tool_use_id": content[-1]["id"], "content": "boom", "is_error": True}]
    again = run(model.create(messages=[{"role": "user", "content": "add 1 and 2"},
                                       {"role": "assistant", "content": content},
                                       {"role": "user", "content": error}], tools=[ADD], max_tokens=100))
    assert again.stop_reason == "tool_use" and again.content[-1].input == {"a": 1, "b": 2}
    assert again.content[-1].id != content[-1]["id"]


def test_generic_policy_without_tools_and_with_tool_choice_none() -> None:
    model = SimModel()
    reply = run(model.create(messages=[{"role": "user", "content": "What  is\nthe capital of France?"}], max_tokens=50))
    assert reply.content[0].text == "Answer: What is the capital of France?" and reply.stop_reason == "end_turn"
    reply = run(model.create(messages=[{"role": "user", "content": "add 1 and 2"}], tools=[ADD],
                             tool_choice={"type": "none"}, max_tokens=50))
    assert reply.stop_reason == "end_turn" and all(b.type == "text" for b in reply.content)


def test_synthesised_arguments_follow_the_schema() -> None:
    schema = {"type": "object", "properties": {
        "n": {"type": "integer"}, "x": {"type": "number"}, "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "flag": {"type": "boolean"},
        "values": {"type": "array", "items": {"type": "number"}}}}
    args = synthesise_arguments(schema, "weather in Paris for 3 days at 1.5 in fahrenheit")
    assert args == {"n": 3, "x": 1.5, "city": "weather in Paris for 3 days at 1.5 in fahrenheit",
                    "unit": "fahrenheit", "flag": True, "values": [3, 1.5]}


def test_policy_sees_plain_dicts_even_when_sdk_blocks_are_sent_back() -> None:
    policy = Fixed([{"type": "text", "text": "ok"}])
    model = SimModel(policy)
    first = run(SimModel().create(messages=[{"role": "user", "content": "add 1 and 2"}], tools=[ADD], max_tokens=99))
    result = [{"type": "tool_result", "tool_use_id": first.content[-1].id, "content": [{"type": "text", "text": "3"}]}]
    run(model.create(system=[{"type": "text", "text": "be brief"}], messages=[
        {"role": "user", "content": "add 1 and 2"}, {"role": "assistant", "content": first.content},
        {"role": "user", "content": result}], tools=[ADD], max_tokens=99, stop_sequences=["END"]))
    request = policy.requests[0]
    assert request.system == "be brief" and request.stop_sequences == ("END",) and request.max_tokens == 99
    assert isinstance(request.messages[1]["content"][0], dict)
    assert request.tool_uses()[0]["name"] == "add" and request.tool_names() == ["add"]
    assert request.last_tool_results() == [{"tool_use_id": first.content[-1].id, "content": "3", "is_error": False}]
    assert request.tool_results() == request.last_tool_results()
    assert request.first_user_text() == "add 1 and 2" and request.last_user_text() == ""


def test_max_tokens_cuts_text() -> None:
    model = SimModel(Fixed([{"type": "text", "text": "x" * 400}, {"type": "text", "text": "never"}]))
    reply = run(model.create(messages=[{"role": "user", "content": "hi"}], max_tokens=10))
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 10
    assert [b.text for b in reply.content] == ["x" * 40]


def test_max_tokens_inside_a_tool_use() -> None:
    use = {"type": "tool_use", "name": "add", "input": {"a": "1" * 200, "b": 2}}
    alone = run(SimModel(Fixed([use])).create(messages=[{"role": "user", "content": "hi"}], max_tokens=10))
    assert alone.stop_reason == "max_tokens" and alone.usage.output_tokens == 10
    assert len(alone.content) == 1 and alone.content[0].type == "tool_use" and alone.content[0].input == {}
    after_text = run(SimModel(Fixed([{"type": "text", "text": "let me add"}, use])).create(
        messages=[{"role": "user", "content": "hi"}], max_tokens=10))
    assert after_text.stop_reason == "max_tokens" and [b.type for b in after_text.content] == ["text", "tool_use"]
    assert after_text.content[1].input == {}  # unfinished, as the API returns it: never to be run
    fits = run(SimModel(Fixed([use])).create(messages=[{"role": "user", "content": "hi"}], max_tokens=500))
    assert fits.stop_reason == "tool_use" and fits.content[0].input == use["input"]


def test_stop_sequences_cut_before_the_match_and_drop_later_blocks() -> None:
    policy = Fixed([{"type": "text", "text": "one two STOP three END"},
                    {"type": "tool_use", "name": "add", "input": {}}])
    reply = run(SimModel(policy).create(messages=[{"role": "user", "content": "hi"}], tools=[ADD], max_tokens=100,
                                        stop_sequences=["END", "STOP"]))
    assert reply.stop_reason == "stop_sequence" and reply.stop_sequence == "STOP"
    assert [b.text for b in reply.content] == ["one two "]
    unmatched = run(SimModel(policy).create(messages=[{"role": "user", "content": "hi"}], tools=[ADD],
                                            max_tokens=100, stop_sequences=["nowhere"]))
    assert unmatched.stop_reason == "tool_use" and unmatched.stop_sequence is None


def test_policy_may_force_a_stop_reason_and_thinking_gets_a_signature() -> None:
    policy = Fixed([{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "no"}], stop_reason="refusal")
    reply = run(SimModel(policy).create(messages=[{"role": "user", "content": "hi"}], max_tokens=100))
    assert reply.stop_reason == "refusal" and reply.content[0].signature


def test_output_reaching_the_context_window_is_a_stop_reason() -> None:
    model = SimModel(Fixed([{"type": "text", "text": "y" * 4000}]), context_window=100)
    reply = run(model.create(messages=[{"role": "user", "content": "hi"}], max_tokens=5000))
    assert reply.stop_reason == "model_context_window_exceeded"
    assert reply.usage.input_tokens + reply.usage.output_tokens == 100


def test_a_policy_returning_a_bad_block_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="invalid content block"):
        run(SimModel(Fixed([{"type": "image"}])).create(messages=[{"role": "user", "content": "hi"}], max_tokens=9))


@pytest.mark.parametrize(("params", "wording"), [
    ({"messages": [{"role": "user", "content": "hi"}]}, "max_tokens: Field required"),
    ({"messages": [], "max_tokens": 5}, "at least one message"),
    ({"messages": [{"role": "assistant", "content": "hi"}], "max_tokens": 5}, 'first message must use the "user"'),
    ({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 0}, "greater than or equal to 1"),
    ({"max_tokens": 5}, "messages: Field required"),
    ({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "temperature": 3}, "temperature"),
    ({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "tools": [ADD, ADD]}, "unique"),
    ({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "tools": [ADD],
      "tool_choice": {"type": "tool", "name": "mul"}}, "not found"),
])
def test_invalid_requests_are_bad_request_errors(params: dict[str, Any], wording: str) -> None:
    model = SimModel()
    with pytest.raises(anthropic.BadRequestError) as info:
        run(model.create(**params))
    assert info.value.status_code == 400 and info.value.type == "invalid_request_error"
    assert wording in info.value.message
    assert model.rejected["invalid_request"] == 1


def test_token_estimate_is_the_documented_formula() -> None:
    message = {"role": "user", "content": "hello world"}
    expected = (REQUEST_OVERHEAD + math.ceil(len("sys") / 4) + TOOL_OVERHEAD + math.ceil(len(canonical_json(ADD)) / 4)
                + MESSAGE_OVERHEAD + math.ceil(len(canonical_json(message)) / 4))
    assert TokenCounter().count_request(system="sys", tools=[ADD], messages=[message]) == expected
    reply = run(SimModel().create(system="sys", messages=[message], tools=[ADD], max_tokens=100))
    assert reply.usage.input_tokens == expected


def test_token_counting_a_growing_conversation_serialises_each_message_once() -> None:
    counter = TokenCounter()
    messages: list[dict[str, Any]] = []
    totals = []
    for i in range(2000):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i}"})
        totals.append(counter.count_request(system="", tools=[], messages=messages))
    assert counter.misses == 2000
    assert totals[-1] == TokenCounter().count_request(system="", tools=[], messages=messages)
    assert all(b > a for a, b in itertools.pairwise(totals))


def test_the_token_cache_is_identity_checked_and_bounded() -> None:
    counter = TokenCounter(max_entries=3)
    keep = [{"role": "user", "content": str(i)} for i in range(10)]
    for m in keep:
        counter.message_tokens(m)
    assert len(counter._cache) == 3
    equal_but_other = {"role": "user", "content": "9"}
    counter.message_tokens(equal_but_other)
    assert counter.misses == 11


def test_sim_model_reuses_token_counts_across_turns() -> None:
    model = SimModel()
    run(tool_round(model, "add 2 and 3"))
    assert model.tokens.misses == 4  # ADD, the prompt, the assistant turn, the tool results: each once


def test_virtual_clock_accrues_modelled_latency_without_waiting() -> None:
    model = SimModel(ttft_s=1000.0, prefill_tps=100.0, decode_tps=10.0)
    assert isinstance(model.clock, VirtualClock)

    async def main() -> tuple[Message, float]:
        reply = await model.create(messages=[{"role": "user", "content": "hi"}], max_tokens=50)
        return reply, model.clock.now()

    started = time.monotonic()
    reply, now = run(main())
    assert time.monotonic() - started < 1.0
    assert now == pytest.approx(1000.0 + reply.usage.input_tokens / 100.0 + reply.usage.output_tokens / 10.0)


def test_realtime_mode_really_sleeps() -> None:
    model = SimModel(realtime=True, ttft_s=0.15, prefill_tps=1e9, decode_tps=1e9)
    assert model.clock is REAL_CLOCK
    started = time.monotonic()
    run(model.create(messages=[{"role": "user", "content": "hi"}], max_tokens=50))
    assert time.monotonic() - started >= 0.15


@pytest.mark.parametrize("knobs", [
    {"error_rate": 1.5}, {"timeout_rate": -0.1}, {"fault_rate": 0.8, "overloaded_rate": 0.5},
    {"fault_mix": "1/1"}, {"fault_mix": "0/0/0/0"}, {"context_window": 0}, {"decode_tps": 0},
    {"seed": 1.5}, {"realtime": "yes"}, {"name": ""}, {"errorrate": 0.1},
])
def test_bad_knobs_are_value_errors_naming_the_valid_knobs(knobs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="valid knobs: error_rate, seed"):
        SimModel(**knobs)


def test_knobs_table_and_text_values() -> None:
    assert set(SimModel.KNOBS) >= {"error_rate", "seed", "fault_rate", "fault_mix", "realtime", "context_window"}
    for name, (kind, default, description) in SimModel.KNOBS.items():
        assert isinstance(kind, type) and description, name
        unset = default is None and name == "checker_error_rate"  # the one optional knob: error_rate's value
        assert unset or (kind is float and isinstance(default, float | int)) or isinstance(default, kind), name
    model = SimModel.from_text({"error_rate": "0.1", "seed": "3", "realtime": "false", "fault_mix": "2/1/1/0"})
    assert model.error_rate == 0.1 and model.seed == 3 and model.knobs["fault_mix"] == (2.0, 1.0, 1.0, 0.0)
    assert "error_rate=0.1" in repr(model)
    with pytest.raises(ValueError, match="valid knobs"):
        SimModel.from_text({"seed": "x"})


def test_generic_policy_accepts_everything() -> None:
    request = Request(system="", messages=[{"role": "user", "content": "x"}], tools=[], max_tokens=5)
    assert GenericPolicy().accepts(request)
