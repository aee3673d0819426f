"""SimModel: seeded, Messages-API-shaped, with decisions, tokens, limits and latency as documented."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import anthropic
import pytest
from anthropic.types import Message

from patterns.sim import SimModel
from patterns.sim.generic import synthesise_arguments

from .sim_fixtures import ADD, Fixed, run, tool_round


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
