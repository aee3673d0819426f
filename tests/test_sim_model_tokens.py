"""SimModel's token estimate, its modelled latency on both clocks, and its knobs."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from anthropic.types import Message

from patterns.clock import REAL_CLOCK, VirtualClock
from patterns.sim import GenericPolicy, Request, SimModel
from patterns.sim.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, TOOL_OVERHEAD, TokenCounter, canonical_json

from .fake_loop import fake_seconds
from .sim_fixtures import ADD, run, tool_round


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

    (reply, now), waited = fake_seconds(main())
    assert waited == 0.0  # no real waiting: the loop never slept (a fake clock, not a wall-time race)
    assert now == pytest.approx(1000.0 + reply.usage.input_tokens / 100.0 + reply.usage.output_tokens / 10.0)


def test_realtime_mode_really_sleeps() -> None:
    model = SimModel(realtime=True, ttft_s=0.15, prefill_tps=1e9, decode_tps=1e9)
    assert model.clock is REAL_CLOCK
    _, waited = fake_seconds(model.create(messages=[{"role": "user", "content": "hi"}], max_tokens=50))
    assert waited == pytest.approx(0.15, abs=1e-6)  # it slept on the event loop for the modelled latency


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
