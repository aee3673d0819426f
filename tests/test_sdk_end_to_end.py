"""The agent loop and every workflow through the REAL `anthropic` SDK, against the sim server on 127.0.0.1.

`AnthropicModel` talks HTTP to a `SimServer`; nothing in the SDK is patched and nothing leaves
the machine. Replies come from `Script`, a policy that returns a fixed list of replies in order
(it never reads the prompt), so each test knows exactly what the model "decides". `Tapped`
counts the POSTs the server received and keeps the JSON bodies it sent, so every test can
check the run's steps, retries and usage against the server's own account.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest

from patterns import Kind, Limits, Result, RetryPolicy, Terminal, ToolSet, Usage, arun_agent, tool
from patterns.compaction import CLEARED
from patterns.model import AnthropicModel
from patterns.replay import RecordingModel
from patterns.sim import Decider, Reply, Request
from patterns.simserver import SimServer
from patterns.workflows import (
    LLM,
    Agent,
    Chain,
    EvaluateOptimize,
    Orchestrate,
    Parallel,
    Route,
    Single,
    execute,
)

CANARY = "sk-ant-canary-e2e-0123456789"
MODEL_ID = "claude-sonnet-4-5"
FAST = RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.001, max_retry_after_s=0.0)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key or base URL from the developer's shell can reach the SDK."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


# --- the scripted model and the tapped server -------------------------------------------------------


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def use(name: str, tool_input: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": tool_input}
    if id is not None:
        block["id"] = id
    return block


class Script:
    """A policy whose replies come from a fixed list, in order; it keeps each request it answered."""

    def __init__(self, *replies: Reply | str) -> None:
        self.replies = [Reply([say(r)]) if isinstance(r, str) else r for r in replies]
        self.requests: list[Request] = []
        self._lock = threading.Lock()  # the server answers on several threads at once

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        with self._lock:
            if len(self.requests) >= len(self.replies):
                raise AssertionError(f"Script: no reply scripted for request {len(self.requests) + 1}")
            self.requests.append(request)
            return self.replies[len(self.requests) - 1]

    @property
    def done(self) -> bool:
        return len(self.requests) == len(self.replies)


class Tapped(SimServer):
    """A SimServer that counts the POSTs to /v1/messages and keeps every (status, body) it answered."""

    def __init__(self, *replies: Reply | str, **options: Any) -> None:
        self.script = Script(*replies)
        super().__init__(policies=[self.script], **options)
        self.posts = 0
        self.bodies: list[tuple[int, dict[str, Any]]] = []
        self._tap = threading.Lock()

    def authorised(self, headers: Any) -> bool:  # the first thing every POST /v1/messages meets
        with self._tap:
            self.posts += 1
        return super().authorised(headers)

    def answer(self, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        status, body, headers = super().answer(params)
        with self._tap:
            self.bodies.append((status, body))
        return status, body, headers

    @property
    def replies(self) -> list[dict[str, Any]]:
        return [body for status, body in self.bodies if status == 200]

    @property
    def usage(self) -> Usage:
        """The usage the server reported, summed over the messages it sent."""
        total = Usage()
        for body in self.replies:
            total = total + Usage.from_api(anthropic.types.Usage.model_validate(body["usage"]))
        return total


def sdk(server: SimServer, body: Callable[[Any], Awaitable[Result]], *, key: str = CANARY,
        cassette: Path | None = None) -> Result:
    """Run `body(model)` with an AnthropicModel on `server`, opened and closed in one event loop."""

    async def main() -> Result:
        client = AnthropicModel(MODEL_ID, base_url=server.url, api_key=key)
        model = RecordingModel(client, cassette) if cassette is not None else client
        try:
            return await body(model)
        finally:
            await client.aclose()

    return asyncio.run(main())


def agent(prompt: str = "go", **kwargs: Any) -> Callable[[Any], Awaitable[Result]]:
    return lambda model: arun_agent(model, prompt, **kwargs)


def workflow(spec: Any, task: str = "the task", **kwargs: Any) -> Callable[[Any], Awaitable[Result]]:
    return lambda model: execute(spec, model, task, **kwargs)


def kinds(result: Result, kind: Kind) -> list[Any]:
    return [e for e in result.events if e.kind is kind]


def assert_accounted(result: Result, server: Tapped) -> None:
    """The run's steps, usage and retries are exactly what the server saw and reported."""
    assert result.steps == len(server.replies) == len(kinds(result, Kind.MODEL_CALL))
    assert result.usage == server.usage and result.usage.input_tokens > 0
    assert server.posts == result.steps + result.retries + len(kinds(result, Kind.ERROR))
    assert [e.usage.input_tokens for e in kinds(result, Kind.MODEL_CALL)] == \
        [b["usage"]["input_tokens"] for b in server.replies]
    assert result.cost_usd is not None and result.cost_usd > 0  # claude-sonnet-4-5 is priced
    assert CANARY not in json.dumps(result.to_dict(), default=str)


# --- tools -------------------------------------------------------------------------------------------

finished: list[str] = []  # the order the `echo` calls finished in (reset by the test using it)


@tool(timeout_s=None)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@tool(timeout_s=5)
async def echo(text: str, delay_ms: int) -> str:
    """Return the text after a delay.

    Args:
        text: what to return
        delay_ms: how long to wait first
    """
    await asyncio.sleep(delay_ms / 1000)
    finished.append(text)
    return text.upper()


@tool(timeout_s=None)
def page(n: int) -> str:
    """Return page n of a long document.

    Args:
        n: the page number
    """
    return f"page {n}: " + "lorem ipsum " * 100


TOOLS = ToolSet([add, echo, page])


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
    assert res.terminal is Terminal.ERROR and res.steps == 0 and server.posts == 1
    assert [e.kind for e in res.errors] == ["ContextOverflow"]
    assert [e.error_type for e in kinds(res, Kind.ERROR)] == ["BadRequestError"]
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


# --- one end-to-end run per workflow pattern --------------------------------------------------------


def test_single_with_one_tool_round() -> None:
    with Tapped(Reply([use("add", {"a": 20, "b": 22})]), "42") as server:
        res = sdk(server, workflow(Single("Compute: {task}", tools=TOOLS), "20+22", retry=FAST))
    assert (res.terminal, res.output, res.steps, res.tool_calls) == (Terminal.COMPLETED, "42", 2, 1)
    assert server.script.requests[0].first_user_text() == "Compute: 20+22"
    assert server.script.requests[1].last_tool_results()[0]["content"] == "42"
    assert_accounted(res, server)


def test_chain_feeds_each_output_to_the_next_step() -> None:
    chain = Chain([LLM("outline", "Outline: {input}"), LLM("draft", "Draft from {input} for {task}"),
                   LLM("polish", "Polish: {input}")])
    with Tapped("an outline", "a draft", "the essay") as server:
        res = sdk(server, workflow(chain, "an essay", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "the essay"
    assert [r.last_user_text() for r in server.script.requests] == [
        "Outline: an essay", "Draft from an outline for an essay", "Polish: a draft"]
    assert [e.name for e in kinds(res, Kind.MODEL_CALL)] == ["outline", "draft", "polish"]
    assert_accounted(res, server)


def test_route_hands_the_input_to_the_labelled_handler() -> None:
    route = Route(LLM("classify", "Label (billing or tech): {input}"),
                  {"billing": LLM("billing", "Billing desk: {input}"), "tech": LLM("tech", "Tech desk: {input}")})
    with Tapped("Billing.", "Refund issued.") as server:
        res = sdk(server, workflow(route, "I was charged twice", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "Refund issued."
    assert res.extra["route"] == "billing"
    assert server.script.requests[1].last_user_text() == "Billing desk: I was charged twice"
    assert_accounted(res, server)


def test_orchestrate_plans_runs_workers_concurrently_and_synthesises() -> None:
    spec = Orchestrate(LLM("plan", "Plan: {input}"), LLM("work", "Do: {input}"),
                       LLM("synth", "Combine: {input}"))
    # the two workers' requests arrive in either order: they get the same reply
    with Tapped('["count the apples", "count the pears"]', "3", "3", "6 fruit in all") as server:
        res = sdk(server, workflow(spec, "count the fruit", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "6 fruit in all"
    assert res.extra["plan"] == ["count the apples", "count the pears"]
    workers = sorted(r.last_user_text() for r in server.script.requests[1:3])
    assert workers == ["Do: count the apples", "Do: count the pears"]
    synthesis = server.script.requests[3].last_user_text()
    assert "count the apples\n   -> 3" in synthesis and "count the pears\n   -> 3" in synthesis
    assert_accounted(res, server)


def test_parallel_voting_takes_the_majority() -> None:
    spec = Parallel(vote=LLM("vote", "Capital of France? {input}"), n=3)
    with Tapped("Paris", "Lyon", "Paris") as server:  # whatever order the votes arrive in, Paris has two
        res = sdk(server, workflow(spec, "one word", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "Paris"
    assert sorted(res.extra["votes"]) == ["Lyon", "Paris", "Paris"]
    assert_accounted(res, server)


def test_evaluate_optimize_loops_until_the_evaluator_accepts() -> None:
    spec = EvaluateOptimize(LLM("write", "Write {input}. {feedback}"), LLM("judge", "Judge: {input}"), max_rounds=3)
    with Tapped("draft one", "Too long.", "draft two", "PASS") as server:
        res = sdk(server, workflow(spec, "a haiku", retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "draft two"
    assert res.extra == {"rounds": 2, "accepted": True}
    assert [r.last_user_text() for r in server.script.requests] == [
        "Write a haiku. ", "Judge: draft one", "Write draft one. Too long.", "Judge: draft two"]
    assert_accounted(res, server)


def test_agent_spec_runs_the_loop_through_execute() -> None:
    spec = Agent("Task: {task}", system="Use the tools.", tools=TOOLS)
    with Tapped(Reply([use("add", {"a": 4, "b": 5})]), Reply([use("add", {"a": 9, "b": 1})]), "10") as server:
        res = sdk(server, workflow(spec, "4+5+1", retry=FAST))
    assert (res.terminal, res.output, res.steps, res.tool_calls) == (Terminal.COMPLETED, "10", 3, 2)
    assert res.pattern == "agent" and [m["role"] for m in res.messages] == ["user", "assistant", "user",
                                                                            "assistant", "user", "assistant"]
    assert server.script.requests[2].last_tool_results()[0]["content"] == "10"
    assert_accounted(res, server)


def test_a_refusal_inside_a_chain_stops_it() -> None:
    chain = Chain([LLM("a"), LLM("b")])
    with Tapped(Reply([say("No.")], stop_reason="refusal"), "never") as server:
        res = sdk(server, workflow(chain, retry=FAST))
    assert res.terminal is Terminal.REFUSAL and res.steps == 1 and server.posts == 1
    assert_accounted(res, server)
