"""`support` is fair by construction: the policy decides from what a request says, never from which design
sent it; the declared route has the agent's retries and check; a decision made again has the same key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.studies.audit import probe, step_framed
from benchmarks.tasks.support import Support
from benchmarks.tasks.support import prompts as st
from benchmarks.tasks.variants import design_for
from patterns import Limits, RequestOptions, ScriptedModel, message
from patterns.scripted import tool_use_block
from patterns.sim import SimModel
from patterns.sync import run_sync
from patterns.workflows import run_workflow

from .decisions import KeyLog

WORK = Path(".")
BUILT = RequestOptions(prompt_cache=False)


def _send(policy: Any, params: dict[str, Any], stream: str = "t", **knobs: Any) -> tuple[Any, SimModel]:
    model = SimModel(policy, **knobs).fork(stream)
    return run_sync(model.create(**params)), model


def _billing(distractors: int = 0) -> tuple[Support, Any]:
    family = Support(distractors=distractors)
    return family, next(i for i in family.instances(20, seed=7) if i.data["issues"][0]["category"] == "billing")


def _typo(instance: Any) -> dict[str, str]:
    cid = instance.data["issues"][0]["args"]["customer_id"]
    return {"customer_id": cid[:-1] + str((int(cid[-1]) + 1) % 10)}


def _agent_requests(family: Support, instance: Any, first: dict[str, str]) -> list[dict[str, Any]]:
    """The agent's requests after a first lookup with `first`'s arguments, built by the agent loop itself."""
    script = ScriptedModel([message(tool_use_block("get_invoice", first)), message("done")])
    run_workflow(family.design("agent", family.environment(instance, WORK)), script, instance.prompt, options=BUILT)
    return script.requests


def _route_requests(family: Support, instance: Any, first: dict[str, str], then: str) -> list[dict[str, Any]]:
    """The declared route's requests after the same first lookup (its classify step's plan), built by the route."""
    plan = f'1 billing: get_invoice {{"customer_id": "{first["customer_id"]}"}}'
    script = ScriptedModel([message(plan), message(then)])
    run_workflow(design_for(family, "route:each", family.environment(instance, WORK)), script, instance.prompt,
                 limits=Limits(max_steps=2), options=RequestOptions(prompt_cache=False))
    return script.requests


def _agent_retry_request(family: Support, instance: Any) -> dict[str, Any]:
    return _agent_requests(family, instance, _typo(instance))[1]


def _route_retry_request(family: Support, instance: Any) -> dict[str, Any]:
    return _route_requests(family, instance, _typo(instance), "none")[1]


def test_the_audit_probe_finds_support_symmetric() -> None:
    for family in (Support(), Support(issues="1-4", distractors=2)):
        rows = probe(family, instances=2, samples=3)
        assert [r.symmetric for r in rows] == [True, True], rows


@pytest.mark.parametrize("which", ["agent retry", "route retry"])
@pytest.mark.parametrize("knobs", [{"error_rate": 0.0, "checker_error_rate": 1.0}, {"error_rate": 0.4}])
def test_a_retry_is_the_same_agent_framed_and_step_framed(which: str, knobs: dict[str, float]) -> None:
    family, instance = _billing()
    params = (_agent_retry_request if which == "agent retry" else _route_retry_request)(family, instance)
    a, model_a = _send(family.policy(), params, **knobs)
    s, model_s = _send(family.policy(), step_framed(params), **knobs)
    # the route's retry is told the category code kept, so it decides the argument only
    decisions = 2 if which == "agent retry" else 1
    assert (model_a.decisions, model_a.judgements) == (model_s.decisions, model_s.judgements) == (decisions, 0)
    assert [b.type for b in a.content] == [b.type for b in s.content]


def test_the_check_is_the_same_in_the_agent_turn_and_in_the_reply_step() -> None:
    """A wrong answer (another customer's invoice) judged at checker_error_rate=0: the agent looks again at
    once, the route's reply step ends with the FAIL note; one judgement each, in either framing."""
    family, instance = _billing(distractors=1)
    other = next(c for c in instance.data["db"]["invoices"] if c != instance.data["issues"][0]["args"]["customer_id"])
    turn = _agent_requests(family, instance, {"customer_id": other})[1]
    step = _route_requests(family, instance, {"customer_id": other}, "reply")[1]
    knobs = {"error_rate": 0.0, "checker_error_rate": 0.0}
    for params in (turn, step_framed(turn)):
        reply, model = _send(family.policy(), params, **knobs)
        assert (model.judgements, [b.type for b in reply.content]) == (1, ["text", "tool_use"])
    for params in (step, step_framed(step)):
        reply, model = _send(family.policy(), params, **knobs)
        assert model.judgements == 1 and reply.content[0].text.splitlines()[-1].startswith(st.FAIL)


def test_the_route_retry_decides_the_agent_retrys_argument_key_with_the_same_draws() -> None:
    family, instance = _billing()
    logs = []
    for build in (_agent_retry_request, _route_retry_request):
        policy = KeyLog(family.policy())
        _send(policy, build(family, instance))
        logs.append(policy.log)
    sentence = instance.data["issues"][0]["args"]["customer_id"]
    # the route's retry is told the category code kept: it decides the agent's argument key, not the category
    assert [kind for kind, _ in logs[0]] == ["decide", "decide"] and logs[1] == logs[0][1:]
    assert [key.split("|")[1] for _, key in logs[0]] == ["category", "argument"]
    assert all(sentence in key for _, key in logs[0])  # the question's sentence names the customer
    # in one trial: the first lookup's decisions, then the retry's, in each design's own requests
    typo = _typo(instance)
    designs = {"agent": _agent_requests(family, instance, typo), "route": _route_requests(family, instance, typo, "x")}
    mistakes: dict[str, list[int]] = {}
    for name, requests in designs.items():
        for trial in range(30):
            model = SimModel(family.policy(), error_rate=0.5, context_decay=0.0).fork(f"trial {trial}")
            counts = []
            for params in requests[:2]:
                run_sync(model.create(**params))
                counts.append(model.mistakes)
            mistakes.setdefault(name, []).append(tuple(counts))
    # the first lookup's decisions are the same draws; the route's retry decides a subset of the agent's, on the
    # same keys, so it errs only where the agent's retry errs too
    firsts = {name: [counts[0] for counts in runs] for name, runs in mistakes.items()}
    retries = {name: [b - a for a, b in runs] for name, runs in mistakes.items()}
    assert firsts["agent"] == firsts["route"] and len(set(mistakes["agent"])) > 1
    assert all(r <= a for r, a in zip(retries["route"], retries["agent"], strict=True))
    assert sum(retries["route"]) < sum(retries["agent"])


def test_the_per_question_route_draws_the_lookups_the_check_and_the_bounded_loop() -> None:
    family = Support(issues="1-4")
    graph = design_for(family, "route:each", family.environment(family.instances(1, 0)[0], WORK)).graph
    kinds = {n: graph.nodes[n]["kind"] for n in graph.nodes}
    labels = {graph.nodes[n]["label"] for n in graph.nodes}
    assert {"classify", "reply"} <= {graph.nodes[n]["label"] for n, k in kinds.items() if k == "llm"}
    tools = {graph.nodes[n]["label"].removesuffix(" ×N") for n, k in kinds.items() if k == "tool"}
    assert tools == set(st.TOOL_OF.values())
    assert any("≤9 rounds" in label for label in labels)  # 1 + 2 retries x 4 questions
    assert any(loop for _, _, loop in graph.edges(data="loop"))
    assert "a retry due?" in labels and "send" in labels


@pytest.mark.parametrize("spec", [{}, {"plain": True}, {"issues": "1-4", "distractors": 4}])
def test_the_per_question_route_solves_every_instance_at_error_0(spec: dict[str, Any]) -> None:
    family = Support(**spec)
    for i, instance in enumerate(family.instances(24, seed=0)):
        env = family.environment(instance, WORK)
        model = SimModel(policy=family.policy(), error_rate=0.0, seed=i)
        result = run_workflow(design_for(family, "route:each", env), model, instance.prompt)
        assert family.grade(instance, env, result.output) == 1.0, result.output


def test_the_per_question_route_stops_at_the_agent_bound() -> None:
    """Every lookup fails (every decision wrong): 1 + 2 attempts on a one-question ticket, then the apology."""
    family, instance = _billing()
    env = family.environment(instance, WORK)
    result = run_workflow(design_for(family, "route:each", env), SimModel(family.policy(), error_rate=1.0),
                          instance.prompt)
    assert result.tool_calls == 1 + st.MAX_RETRIES and family.grade(instance, env, result.output) == 0.0
    assert "loop_exhausted" not in result.extra and st.FAIL not in result.output
