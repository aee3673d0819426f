"""Each workflow pattern on scripted models: its path, its failures, its graph, its latency."""

from __future__ import annotations

import networkx as nx
import pytest

from patterns import (
    Abort,
    Kind,
    Limits,
    RequestOptions,
    RetryPolicy,
    ScriptedModel,
    Terminal,
    ToolSet,
    message,
    tool,
    tool_use_block,
)
from patterns.workflows import (
    LLM,
    Agent,
    Chain,
    Code,
    EvaluateOptimize,
    Gate,
    Orchestrate,
    Parallel,
    Route,
    Single,
    ToolStep,
    draw,
    majority,
    normalise_label,
    parse_plan,
    run_workflow,
)

from .helpers import VirtualScripted, api_error

BUILT = RequestOptions(prompt_cache=False)  # the requests exactly as built (breakpoints: test_caching.py)

FAST = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)


@tool(timeout_s=None)
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: what to look up
    """
    return {"a": "alpha", "b": "beta"}[key]


TOOLS = ToolSet([lookup])


def test_single_is_one_call_or_one_tool_round() -> None:
    res = run_workflow(Single(), ScriptedModel([message("hi")]), "task")
    assert (res.terminal, res.output, res.steps) == (Terminal.COMPLETED, "hi", 1)
    model = ScriptedModel([message(tool_use_block("lookup", {"key": "a"})), message("alpha it is")])
    res = run_workflow(Single(tools=TOOLS), model, "look up a")
    assert res.output == "alpha it is" and res.steps == 2 and res.tool_calls == 1
    assert model.requests[1]["messages"][2]["content"][0]["content"] == "alpha"


def test_chain_feeds_each_output_to_the_next_step() -> None:
    model = ScriptedModel([message("one"), message("two"), message("three")])
    chain = Chain([LLM("a", "A: {input}"), LLM("b", "B: {input} (task {task})"), LLM("c", "C: {input}")])
    res = run_workflow(chain, model, "go", options=BUILT)
    assert res.output == "three" and res.steps == 3
    prompts = [r["messages"][0]["content"] for r in model.requests]
    assert prompts == ["A: go", "B: one (task go)", "C: two"]
    assert [e.name for e in res.events if e.kind is Kind.MODEL_CALL] == ["a", "b", "c"]


def test_chain_with_code_and_fixed_tool_steps() -> None:
    chain = Chain([Code("key", lambda t: t.strip().lower()), ToolStep("fetch", TOOLS, "lookup", lambda t: {"key": t}),
                   LLM("say", "Say {input}")])
    model = ScriptedModel([message("ALPHA")])
    res = run_workflow(chain, model, "  A ", options=BUILT)
    assert res.output == "ALPHA" and res.tool_calls == 1 and res.steps == 1
    assert model.requests[0]["messages"][0]["content"] == "Say alpha"


def test_a_failing_gate_ends_the_run_with_a_recorded_reason() -> None:
    chain = Chain([LLM("draft"), Gate("has_digits", lambda t: any(c.isdigit() for c in t) or "no digits"),
                   LLM("polish")])
    model = ScriptedModel([message("no numbers here"), message("never")])
    res = run_workflow(chain, model, "go")
    assert res.terminal is Terminal.ERROR and res.steps == 1 and len(model.requests) == 1
    assert res.errors[0].kind == "GateFailed" and "no digits" in res.errors[0].message
    assert res.errors[0].where == "has_digits"


def test_a_failing_fixed_tool_step_is_a_tool_error() -> None:
    chain = Chain([ToolStep("fetch", TOOLS, "lookup", lambda t: {"key": "zzz"})])
    res = run_workflow(chain, ScriptedModel([]), "go")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "ToolError"


def test_route_sends_the_input_to_the_labelled_handler() -> None:
    route = Route(LLM("classify", "Classify: {input}"),
                  {"billing": LLM("billing", "Billing: {input}"), "tech": LLM("tech", "Tech: {input}")})
    model = ScriptedModel([message(" Billing. "), message("refund issued")])
    res = run_workflow(route, model, "I was charged twice", options=BUILT)
    assert res.output == "refund issued" and res.extra["route"] == "billing"
    assert model.requests[1]["messages"][0]["content"] == "Billing: I was charged twice"


def test_route_with_an_invented_label_is_a_typed_failure() -> None:
    route = Route(LLM("classify"), {"billing": LLM("b"), "tech": LLM("t")})
    res = run_workflow(route, ScriptedModel([message("gardening")]), "x")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "UnknownLabel"
    assert "billing, tech" in res.errors[0].message


def test_normalise_label() -> None:
    assert normalise_label("  Billing.\n") == "billing"
    assert normalise_label("Order Status") == "order_status"


def _orchestrator(worker: object = None) -> Orchestrate:
    return Orchestrate(LLM("plan", "Plan: {input}"), worker or LLM("work", "Do: {input}"),
                       LLM("synth", "Combine:\n{input}"), max_workers=3)


def test_orchestrate_plans_works_and_synthesises() -> None:
    model = ScriptedModel([message('Here is the plan:\n```json\n["x", "y", "z"]\n```'),
                           message("r"), message("r"), message("r"), message("all done")])
    res = run_workflow(_orchestrator(), model, "big task", options=BUILT)
    assert res.output == "all done" and res.steps == 5 and res.extra["plan"] == ["x", "y", "z"]
    worker_prompts = sorted(r["messages"][0]["content"] for r in model.requests[1:4])
    assert worker_prompts == ["Do: x", "Do: y", "Do: z"]
    assert "big task" in model.requests[4]["messages"][0]["content"]


def test_parallel_workers_cost_their_critical_path_not_their_sum() -> None:
    replies = [message('["x", "y", "z"]'), message("r"), message("r"), message("r"), message("done")]
    res = run_workflow(_orchestrator(), VirtualScripted(replies, latency_s=1.0), "task")
    assert res.latency_s == pytest.approx(3.0)  # planner 1 s + three workers side by side 1 s + synthesizer 1 s


def test_a_malformed_plan_gets_one_repair_then_fails() -> None:
    model = ScriptedModel([message("I will do it step by step"), message('{"subtasks": ["a"]}'), message("r"),
                           message("ok")])
    res = run_workflow(_orchestrator(), model, "t", options=BUILT)
    assert res.terminal is Terminal.COMPLETED and res.extra["plan"] == ["a"]
    assert "could not be used as a plan" in model.requests[1]["messages"][0]["content"]
    res = run_workflow(_orchestrator(), ScriptedModel([message("nope"), message("[1, 2]")]), "t")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "MalformedPlan"


@pytest.mark.parametrize("text, problem", [
    ("no json", "no JSON"), ("[]", "non-empty"), ('["a", ""]', "non-empty string"), ("[1", "invalid JSON"),
])
def test_parse_plan_problems(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_plan(text, 8)


def test_a_worker_api_error_is_retried_and_one_that_persists_fails_the_run() -> None:
    model = ScriptedModel([message('["x"]'), api_error(529), message("r"), message("done")])
    res = run_workflow(_orchestrator(), model, "t", retry=FAST)
    assert res.terminal is Terminal.COMPLETED and res.retries == 1
    model = ScriptedModel([message('["x"]'), api_error(529), api_error(529), api_error(529)])
    res = run_workflow(_orchestrator(), model, "t", retry=FAST)
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "OverloadedError"


def test_parallel_sectioning_and_voting() -> None:
    sections = Parallel(branches=[LLM("pros", "Pros: {input}"), LLM("cons", "Cons: {input}")],
                        aggregate=lambda outs: " / ".join(outs))
    res = run_workflow(sections, VirtualScripted([message("good"), message("bad")], latency_s=2.0), "plan")
    assert res.output == "good / bad" and res.latency_s == pytest.approx(2.0)
    vote = Parallel(vote=LLM("answer"), n=5)
    res = run_workflow(vote, ScriptedModel([message(t) for t in ["4", "5", "4", "4", "5"]]), "2+2?")
    assert res.output == "4" and res.steps == 5


def test_voting_survives_a_lost_branch_but_not_all() -> None:
    vote = Parallel(vote=LLM("answer"), n=3)
    res = run_workflow(vote, ScriptedModel([message("a"), api_error(401), message("a")]), "q", retry=FAST)
    assert res.terminal is Terminal.COMPLETED and res.output == "a" and res.extra["votes"] == ["a", "a"]
    assert [e.error_type for e in res.events if e.kind is Kind.ERROR] == ["AuthenticationError"]
    assert any(e.kind is Kind.DECISION and e.detail == "vote branch dropped" for e in res.events)
    res = run_workflow(vote, ScriptedModel([api_error(401)] * 3), "q", retry=FAST)
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "AllBranchesFailed"


def test_majority_breaks_ties_by_first_seen() -> None:
    assert majority(["b", "a", "a", "b"]) == "b"


def test_evaluate_optimize_until_accepted() -> None:
    eo = EvaluateOptimize(LLM("write", "Write {task}. Feedback: {feedback}"), LLM("judge", "Judge: {input}"),
                          max_rounds=3)
    model = ScriptedModel([message("draft 1"), message("FAIL: too short"), message("draft 2"), message("PASS")])
    res = run_workflow(eo, model, "a poem", options=BUILT)
    assert res.output == "draft 2" and res.extra == {"rounds": 2, "accepted": True}
    assert model.requests[2]["messages"][0]["content"] == "Write a poem. Feedback: FAIL: too short"


def test_evaluate_optimize_round_limit_returns_the_last_candidate_unaccepted() -> None:
    eo = EvaluateOptimize(LLM("write"), LLM("judge"), max_rounds=2)
    model = ScriptedModel([message("d1"), message("FAIL"), message("d2"), message("FAIL"), message("never")])
    res = run_workflow(eo, model, "t")
    assert res.terminal is Terminal.COMPLETED and res.output == "d2" and res.steps == 4
    assert res.extra == {"rounds": 2, "accepted": False}


def test_agent_spec_and_nesting_an_agent_as_a_route_handler() -> None:
    route = Route(LLM("classify"), {"lookup": Agent(tools=TOOLS), "chat": LLM("chat")})
    model = ScriptedModel([message("lookup"), message(tool_use_block("lookup", {"key": "b"})), message("beta")])
    res = run_workflow(route, model, "what is b")
    assert res.output == "beta" and res.steps == 3 and res.tool_calls == 1
    assert res.messages[-1]["content"][0]["text"] == "beta"


def test_workflows_respect_limits_and_abort() -> None:
    chain = Chain([LLM("a"), LLM("b"), LLM("c")])
    res = run_workflow(chain, ScriptedModel([message("1")] * 3), "t", limits=Limits(max_steps=2))
    assert res.terminal is Terminal.MAX_STEPS and res.steps == 2
    vote = Parallel(vote=LLM("v"), n=4)
    model = ScriptedModel([message("1")] * 4)
    res = run_workflow(vote, model, "t", limits=Limits(max_steps=2))
    assert len(model.requests) <= 2  # concurrent branches do not overshoot the step limit
    abort = Abort()
    abort.set()
    assert run_workflow(chain, ScriptedModel([]), "t", abort=abort).terminal is Terminal.ABORTED


def test_refusal_inside_a_workflow() -> None:
    res = run_workflow(Chain([LLM("a"), LLM("b")]), ScriptedModel([message("no", stop_reason="refusal")]), "t")
    assert res.terminal is Terminal.REFUSAL and res.steps == 1


@pytest.mark.parametrize("spec", [
    Single(tools=TOOLS), Chain([LLM("a"), Gate("g", bool), LLM("b")]), Route(LLM("c"), {"x": LLM("x"), "y": LLM("y")}),
    _orchestrator(), Parallel(vote=LLM("v"), n=3), EvaluateOptimize(LLM("g"), LLM("e")), Agent(tools=TOOLS),
])
def test_every_pattern_has_a_typed_graph_from_input_to_output(spec: object) -> None:
    graph = spec.graph  # type: ignore[attr-defined]
    assert isinstance(graph, nx.DiGraph)
    assert {graph.nodes[n]["kind"] for n in graph} <= {"llm", "tool", "code", "io"}
    assert nx.has_path(graph, "input", "output")
    assert all("label" in graph.nodes[n] for n in graph)


def test_draw_renders_every_graph(tmp_path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    draw(_orchestrator().graph, axes[0])
    draw(Agent(tools=TOOLS).graph, axes[1])
    fig.savefig(tmp_path / "g.png")
    plt.close(fig)
    assert (tmp_path / "g.png").stat().st_size > 1000
