"""One end-to-end run per workflow pattern through the REAL `anthropic` SDK, against the sim server."""

from __future__ import annotations

import pytest

from patterns import Kind, Terminal
from patterns.sim import Reply
from patterns.workflows import (
    LLM,
    Agent,
    Chain,
    EvaluateOptimize,
    Orchestrate,
    Parallel,
    Route,
    Single,
)

from .sdk_harness import (
    FAST,
    TOOLS,
    Tapped,
    assert_accounted,
    kinds,
    say,
    sdk,
    use,
    workflow,
)

pytestmark = pytest.mark.timeout(60)


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
