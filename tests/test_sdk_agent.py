"""The agent loop through the REAL `anthropic` SDK, against the sim server on 127.0.0.1 (see sdk_harness)."""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import pytest

from patterns import Kind, Limits, RetryPolicy, Terminal, Usage
from patterns.compaction import CLEARED
from patterns.sim import Reply

from .sdk_harness import (
    CANARY,
    FAST,
    TOOLS,
    Tapped,
    agent,
    assert_accounted,
    finished,
    kinds,
    say,
    sdk,
    use,
)

pytestmark = pytest.mark.timeout(60)


# --- the agent loop ----------------------------------------------------------------------------------


def test_an_agent_run_with_a_tool_completes_and_its_usage_is_what_the_server_reported(tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    with Tapped(Reply([say("Adding."), use("add", {"a": 2, "b": 3})]), "It is 5.") as server:
        res = sdk(server, agent("What is 2+3?", system="Be terse.", tools=TOOLS, retry=FAST), cassette=cassette)
    assert res.terminal is Terminal.COMPLETED and res.output == "It is 5."
    assert res.steps == 2 and res.tool_calls == 1 and server.script.done
    assert_accounted(res, server)
    lines = [json.loads(line) for line in cassette.read_text().splitlines()]
    recorded = Usage()
    for line in lines:
        recorded = recorded + Usage.from_api(anthropic.types.Usage.model_validate(line["response"]["usage"]))
    assert len(lines) == 2 and recorded == res.usage  # the raw JSON replies, summed, as the SDK received them
    second = server.script.requests[1]
    assert second.system == "Be terse." and second.tool_names() == ["add", "echo", "page"]
    assert second.last_tool_results() == [{"tool_use_id": res.messages[1]["content"][1]["id"], "content": "5",
                                           "is_error": False}]


def test_parallel_tool_calls_come_back_as_one_user_message_in_order() -> None:
    finished.clear()
    blocks = [use("echo", {"text": "first", "delay_ms": 40}), use("echo", {"text": "second", "delay_ms": 20}),
              use("echo", {"text": "third", "delay_ms": 0})]
    with Tapped(Reply([say("Three at once."), *blocks]), "done") as server:
        res = sdk(server, agent(tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.tool_calls == 3
    assert finished == ["third", "second", "first"]  # they ran concurrently and finished in reverse
    ids = [b["id"] for b in res.messages[1]["content"] if b["type"] == "tool_use"]
    assert len(set(ids)) == 3
    user = res.messages[2]
    assert user["role"] == "user"
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in user["content"]] == [
        ("tool_result", ids[0], "FIRST"), ("tool_result", ids[1], "SECOND"), ("tool_result", ids[2], "THIRD")]
    seen = server.script.requests[1]  # what the server received is that same single message
    assert [m["role"] for m in seen.messages] == ["user", "assistant", "user"]
    assert [r["tool_use_id"] for r in seen.last_tool_results()] == ids
    assert sorted(e.tool_use_id for e in kinds(res, Kind.TOOL_CALL)) == sorted(ids)  # events: as they finish
    assert_accounted(res, server)


def test_a_529_is_retried_by_the_projects_policy_and_recorded_as_retries() -> None:
    with Tapped(Reply([use("add", {"a": 1, "b": 1})]), "2", overloaded_rate=0.5, retry_after_s=0,
                seed=3) as server:
        res = sdk(server, agent(tools=TOOLS, retry=RetryPolicy(max_retries=8, base_delay_s=0.001)))
    retries = kinds(res, Kind.RETRY)
    assert res.terminal is Terminal.COMPLETED and res.output == "2"
    assert len(retries) == server.model.faults_injected["OverloadedError"] >= 1
    assert {e.error_type for e in retries} == {"OverloadedError"}
    assert all("529" in (e.error or "") for e in retries)
    assert_accounted(res, server)


def test_a_529_on_every_attempt_ends_after_max_retries_plus_one_requests() -> None:
    with Tapped(overloaded_rate=1.0, retry_after_s=0) as server:
        res = sdk(server, agent(retry=RetryPolicy(max_retries=2, base_delay_s=0.001)))
    assert res.terminal is Terminal.ERROR and res.steps == 0 and res.usage == Usage()
    assert server.posts == 3  # the SDK's own retries are off: every attempt is one of ours
    assert [(e.kind, e.error_type, e.attempt) for e in res.events if e.kind in (Kind.RETRY, Kind.ERROR)] == [
        (Kind.RETRY, "OverloadedError", 1), (Kind.RETRY, "OverloadedError", 2), (Kind.ERROR, "OverloadedError", 3)]
    assert [e.kind for e in res.errors] == ["OverloadedError"]


def test_a_401_ends_the_run_at_once_without_retries() -> None:
    with Tapped("never", require_api_key="sk-ant-canary-e2e-the-right-one") as server:
        res = sdk(server, agent(tools=TOOLS))  # the default policy would retry a retryable error 4 times
    assert res.terminal is Terminal.ERROR and res.steps == 0 and res.retries == 0
    assert server.posts == 1 and server.bodies == [] and server.script.requests == []
    assert [e.kind for e in res.errors] == ["AuthenticationError"] and "401" in res.detail
    assert [(e.kind, e.error_type) for e in res.events] == [(Kind.ERROR, "AuthenticationError")]
    assert CANARY not in json.dumps(res.to_dict(), default=str)


def test_prompt_too_long_compacts_old_tool_results_and_recovers() -> None:
    rounds = [Reply([use("page", {"n": n})]) for n in (1, 2, 3)]
    with Tapped(*rounds, "summary", context_window=1100) as server:
        res = sdk(server, agent("Read three pages.", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "summary" and server.script.done
    assert [e.error_type for e in kinds(res, Kind.ERROR)] == ["BadRequestError"]
    assert "prompt is too long" in (kinds(res, Kind.ERROR)[0].error or "")
    assert len(kinds(res, Kind.COMPACTION)) == 1 and res.recoveries == 1
    last = server.script.requests[-1]  # the request that fit: old results cleared, the last round intact
    contents = [r["content"] for r in last.tool_results()]
    assert contents[:2] == [CLEARED, CLEARED] and contents[2].startswith("page 3: lorem")
    assert all(b["usage"]["input_tokens"] <= 1100 for b in server.replies)
    assert_accounted(res, server)


def test_a_prompt_that_cannot_be_compacted_ends_in_context_overflow() -> None:
    with Tapped("never", context_window=10) as server:
        res = sdk(server, agent("This first prompt alone is longer than ten tokens.", retry=FAST))
    assert res.terminal is Terminal.ERROR and res.steps == 0 and server.posts == 3  # the call, its summary, truncated
    assert [e.kind for e in res.errors] == ["ContextOverflow"]
    assert [e.error_type for e in kinds(res, Kind.ERROR)] == ["BadRequestError"] * 3
    assert kinds(res, Kind.COMPACTION) == [] and server.script.requests == []


@pytest.mark.parametrize("n", [1, 3])
def test_max_steps_means_exactly_n_requests(n: int) -> None:
    loop = [Reply([use("add", {"a": i, "b": 1})]) for i in range(6)]
    with Tapped(*loop) as server:
        res = sdk(server, agent(tools=TOOLS, limits=Limits(max_steps=n), retry=FAST))
    assert res.terminal is Terminal.MAX_STEPS and res.steps == n and res.tool_calls == n
    assert server.posts == n and len(server.script.requests) == n
    assert kinds(res, Kind.LIMIT)[0].detail == f"max_steps={n} model calls made"
    assert_accounted(res, server)


def test_pause_turn_sends_the_reply_back_and_goes_on() -> None:
    with Tapped(Reply([say("Searching the archive...")], stop_reason="pause_turn"), "Found it.") as server:
        res = sdk(server, agent("find it", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "Searching the archive...Found it." and res.steps == 2
    resent = server.script.requests[1].messages  # the paused reply went back as it was
    assert resent == [{"role": "user", "content": "find it"},
                      {"role": "assistant", "content": [say("Searching the archive...")]}]
    assert res.messages[-1] == {"role": "assistant", "content": [say("Searching the archive..."), say("Found it.")]}
    assert [e.detail for e in kinds(res, Kind.RECOVERY)] == ["pause_turn: reply sent back as it is"]
    assert [e.stop_reason for e in kinds(res, Kind.MODEL_CALL)] == ["pause_turn", "end_turn"]
    assert_accounted(res, server)


def test_a_refusal_ends_the_run() -> None:
    with Tapped(Reply([say("I can't help with that.")], stop_reason="refusal"), "never") as server:
        res = sdk(server, agent("something bad", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.REFUSAL and res.steps == 1 and server.posts == 1
    assert res.output == "I can't help with that." and res.errors == ()
    assert_accounted(res, server)
