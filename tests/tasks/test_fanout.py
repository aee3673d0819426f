"""The `fanout` family: instances, environment, designs, grader and its SimModel policy."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import PATTERNS, Instance
from benchmarks.tasks.fanout import Fanout
from benchmarks.tasks.fanout.policy import FanoutPolicy
from patterns.result import Result, Terminal
from patterns.sim import Decider, Reply, Request, SimModel
from patterns.workflows import ToolStep, graph_of, run_workflow

WORK = Path(".")
E = 0.1


def run(family: Fanout, pattern: str, instance: Instance, model: Any) -> tuple[Result, float]:
    env = family.environment(instance, WORK)
    result = run_workflow(family.design(pattern, env), model, instance.prompt)
    return result, family.grade(instance, env, result.output)


def answer(result: Result) -> str:
    return re.findall(r"ANSWER:\s*(.*)", result.output)[-1].strip()


# ---- forcing chosen decisions wrong, to test what each design can and cannot recover from


class FixedRandom(random.Random):
    """`random()` is fixed (it picks which mistake: < 0.5 skips an item, else misspells its id)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


class Scripted(Decider):
    def __init__(self, outcomes: list[bool], rng: random.Random) -> None:
        super().__init__(rng, 0.0)
        self.outcomes = outcomes

    def draw(self, rate: float, key: str | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        # every decision: plain, crowded or a judgement, keyed or not
        self.decisions += 1
        return self.outcomes.pop(0) if self.outcomes else True


class Forcing:
    """The family's policy, where the n-th call of a step makes the decisions `plan[step][n]` lists."""

    def __init__(self, plan: dict[str, list[list[bool]]], mistake: float = 0.9) -> None:
        self.inner, self.plan, self.mistake = FanoutPolicy(), plan, mistake

    def accepts(self, request: Request) -> bool:
        return self.inner.accepts(request)

    def respond(self, request: Request, decide: Decider) -> Reply:
        tag = re.search(r"\[fanout:(\w+)\]", request.first_user_text()) or re.search(r"\[fanout:(\w+)\]",
                                                                                      request.system)
        calls = self.plan.get(tag.group(1) if tag else "", [])
        outcomes = list(calls.pop(0)) if calls else []
        return self.inner.respond(request, Scripted(outcomes, FixedRandom(self.mistake)))


THREE = Fanout(items="3", questions="total")


def forced(pattern: str, plan: dict[str, list[list[bool]]], mistake: float = 0.9) -> tuple[Result, float]:
    return run(THREE, pattern, THREE.instances(1, 0)[0], SimModel(policy=Forcing(plan, mistake)))


# ---- every design works without mistakes


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_succeeds_without_mistakes(pattern: str) -> None:
    family = Fanout()
    instances = family.instances(9, 3)
    assert {i.data["kind"] for i in instances} == {"total", "max", "cheapest"}
    for k, instance in enumerate(instances):
        result, score = run(family, pattern, instance, SimModel(policy=family.policy(), seed=k))
        assert (result.terminal, score) == (Terminal.COMPLETED, 1.0), (pattern, instance.prompt, result.output)


def test_shapes_of_the_designs() -> None:
    instance = THREE.instances(1, 0)[0]
    steps = {p: run(THREE, p, instance, SimModel(policy=THREE.policy()))[0].steps for p in PATTERNS}
    assert steps == {"single": 2, "chain": 3, "route": 3, "orchestrate": 1 + 3 * 2 + 1, "parallel": 1,
                     "evaluate_optimize": 3, "agent": 2}
    env = THREE.environment(instance, WORK)
    graph = graph_of(THREE.design("parallel", env))
    assert any(d.get("dynamic") for _, d in graph.nodes(data=True))


# ---- where each design can and cannot recover


def test_a_misspelt_id_the_agent_retries_and_single_cannot() -> None:
    agent, score = forced("agent", {"agent": [[False, True, True]]})
    errors = [b for m in agent.messages if m["role"] == "user" and isinstance(m["content"], list)
              for b in m["content"] if b.get("is_error")]
    assert score == 1.0 and agent.steps == 3 and "no product has id" in errors[0]["content"]
    single, score = forced("single", {"single": [[False, True, True]]})
    assert score == 0.0 and "No record for" in single.output
    chain, score = forced("chain", {"lookup": [[False, True, True]]})
    assert chain.terminal is Terminal.ERROR and "GateFailed" in chain.detail and chain.steps == 2
    evo, score = forced("evaluate_optimize", {"generate": [[False, True, True]]})
    assert score == 1.0 and evo.extra["rounds"] == 2
    assert forced("orchestrate", {"worker": [[False]]})[1] == 0.0


def test_a_skipped_item_the_agent_notices_and_single_does_not() -> None:
    agent, score = forced("agent", {"agent": [[True, False, True]]}, mistake=0.1)
    assert score == 1.0 and agent.steps == 3 and agent.tool_calls == 3
    single, score = forced("single", {"single": [[True, False, True]]}, mistake=0.1)
    assert score == 0.0 and single.tool_calls == 2


def test_every_lookup_skipped_the_agent_stops_early() -> None:
    agent, score = forced("agent", {"agent": [[False, False, False]]}, mistake=0.1)
    assert score == 0.0 and agent.steps == 1 and agent.tool_calls == 0 and "unknown" in agent.output


def test_a_wrong_label_sends_the_question_to_the_wrong_handler() -> None:
    result, score = forced("route", {"classify": [[False]]})
    instance = THREE.instances(1, 0)[0]
    records = instance.data["catalog"].values()
    assert score == 0.0 and result.extra["route"] in ("max", "cheapest")
    wanted = (f"{max(r['price'] for r in records):.2f}" if result.extra["route"] == "max"
              else min(records, key=lambda r: r["price"])["name"])
    assert answer(result) == wanted  # it answers what its handler asks, not the question


def test_a_malformed_plan_is_repaired_once() -> None:
    result, score = forced("orchestrate", {"plan": [[False]]})
    assert score == 1.0 and result.steps == 1 + 1 + 3 * 2 + 1
    result, score = forced("orchestrate", {"plan": [[False], [False]]})
    assert result.terminal is Terminal.ERROR and "MalformedPlan" in result.detail


def test_an_item_left_out_of_the_plan_is_lost() -> None:
    result, score = forced("orchestrate", {"plan": [[True, True, False, True]]}, mistake=0.1)
    assert score == 0.0 and len(result.extra["plan"]) == 2


def test_an_arithmetic_slip() -> None:
    plain = Fanout(items="3", questions="total", plain=True)
    slipped = run(plain, "parallel", plain.instances(1, 0)[0], SimModel(policy=Forcing({"aggregate": [[False]]})))
    assert slipped[1] == 0.0  # the plain aggregator is not told to check its answer
    assert forced("parallel", {"aggregate": [[False]]})[1] == 1.0  # the declared one's check doubts it, recomputes
    assert forced("parallel", {"aggregate": [[False, False]]})[1] == 0.0  # ... unless that judgement is wrong
    assert forced("parallel", {"aggregate": [[False, True, False, True, False]]})[1] == 0.0  # 2 rechecks at most
    caught, score = forced("evaluate_optimize", {"generate": [[], [False]]})
    assert score == 1.0 and caught.extra["rounds"] == 2
    missed, score = forced("evaluate_optimize", {"generate": [[], [False]], "evaluate": [[False]]})
    assert score == 0.0 and missed.extra["rounds"] == 1


# ---- the policy reads the tools and the prompt, never the ground truth


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_policy_follows_the_tools_not_the_truth(pattern: str) -> None:
    instance = THREE.instances(1, 5)[0]
    env = THREE.environment(instance, WORK)
    first = instance.data["ids"][0]
    env.state["catalog"][first]["stock"] += 1000  # behind the environment's back
    result = run_workflow(THREE.design(pattern, env), SimModel(policy=THREE.policy()), instance.prompt)
    assert answer(result) == str(int(instance.data["answer"]) + 1000)
    assert THREE.grade(instance, env, result.output) == 0.0


def test_an_environment_built_from_other_data_is_what_the_policy_reports() -> None:
    family = Fanout(items="4", questions="cheapest")
    instance = family.instances(1, 2)[0]
    catalog = {k: {**r, "price": 500.0} for k, r in instance.data["catalog"].items()}
    last = instance.data["ids"][-1]
    catalog[last] = {**catalog[last], "price": 0.5, "name": "Bargain Bin"}
    other = replace(instance, data={**instance.data, "catalog": catalog})
    result, _ = run(family, "agent", other, SimModel(policy=family.policy()))
    assert answer(result) == "Bargain Bin"


def test_the_policy_only_accepts_its_own_prompts() -> None:
    policy = THREE.policy()
    mine = Request(system="[fanout] x", messages=[{"role": "user", "content": "hi"}], tools=[], max_tokens=10)
    other = Request(system="You are helpful.", messages=[{"role": "user", "content": "hi"}], tools=[], max_tokens=10)
    assert policy.accepts(mine) and not policy.accepts(other)


# ---- determinism, fresh environments, parameters


def test_instances_are_seeded_and_prefix_stable() -> None:
    family = Fanout()
    assert family.instances(4, 7) == family.instances(4, 7) == family.instances(9, 7)[:4]
    assert [i.prompt for i in family.instances(4, 7)] != [i.prompt for i in family.instances(4, 8)]
    first = family.instances(1, 7)[0]
    assert first.id == "fanout-0000" and 2 <= len(first.data["ids"]) <= 8
    assert all(i in first.prompt for i in first.data["ids"])


def test_a_seeded_model_gives_the_same_run() -> None:
    family = Fanout()
    instance = family.instances(1, 4)[0]
    runs = [run(family, "orchestrate", instance, SimModel(policy=family.policy(), error_rate=0.3, seed=9))[0]
            for _ in range(2)]
    assert runs[0].output == runs[1].output and runs[0].usage == runs[1].usage and runs[0].steps == runs[1].steps


def test_each_trial_gets_a_fresh_environment() -> None:
    instance = THREE.instances(1, 0)[0]
    one, two = THREE.environment(instance, WORK), THREE.environment(instance, WORK)
    item = instance.data["ids"][0]
    outcome = run_workflow(THREE.design("agent", one), SimModel(policy=THREE.policy()), instance.prompt)
    one.state["catalog"][item]["stock"] = -1
    assert outcome.tool_calls == 3 and len(one.state["lookups"]) == 3 and two.state["lookups"] == []
    assert two.state["catalog"][item]["stock"] == instance.data["catalog"][item]["stock"] > 0


def test_the_tool_normalises_ids_and_explains_unknown_ones() -> None:
    instance = THREE.instances(1, 0)[0]
    tools = THREE.environment(instance, WORK).tools
    item = instance.data["ids"][0]
    ok = run_workflow(ToolStep("get", tools, "get_item", lambda _: {"item_id": f" {item.lower()} "}), SimModel(), "")
    assert json.loads(ok.output) == instance.data["catalog"][item]
    bad = run_workflow(ToolStep("get", tools, "get_item", lambda _: {"item_id": "Z-999"}), SimModel(), "")
    assert bad.terminal is Terminal.ERROR and "no product has id 'Z-999'" in bad.detail


def test_the_agent_judges_its_own_answer_as_an_evaluator_would() -> None:
    _, score = forced("agent", {"agent": [[True, True, True], [False]]})
    assert score == 1.0  # its judgement of the slipped answer is right: it recomputes
    _, score = forced("agent", {"agent": [[True, True, True], [False, False]]})
    assert score == 0.0  # its judgement is wrong too: the slip stands, as an evaluator's wrong PASS would
