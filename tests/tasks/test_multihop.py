"""The `multihop` family: instances, tools, designs, grader and its SimModel policy."""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import PATTERNS, Environment, Family, Instance
from benchmarks.tasks.multihop import Multihop
from benchmarks.tasks.multihop.policy import MultihopPolicy
from benchmarks.tasks.multihop.skills import misread
from benchmarks.tasks.registry import load_task
from patterns.result import Result
from patterns.run import Run
from patterns.sim import Decider, Request, SimModel
from patterns.sim.policy import crowded
from patterns.workflows import run_workflow

FIXED = ("chain", "route", "orchestrate", "parallel", "evaluate_optimize")  # the designs with a depth


def trial(family: Multihop, pattern: str, instance: Instance, error_rate: float = 0.0, seed: int = 0,
          env: Environment | None = None) -> tuple[float, Result, Environment]:
    env = env or family.environment(instance, Path("."))
    model = SimModel(policy=family.policy(), error_rate=error_rate, seed=seed)
    result = run_workflow(family.design(pattern, env), model, instance.prompt)
    return family.grade(instance, env, result.output), result, env


def success(family: Multihop, pattern: str, n: int, error_rate: float, seed: int = 0) -> float:
    return sum(trial(family, pattern, x, error_rate, seed=i)[0] for i, x in enumerate(family.instances(n, seed)))


def test_satisfies_the_family_protocol_and_the_registry() -> None:
    family = load_task("multihop:hops=3,depth=6")
    assert isinstance(family, Family) and isinstance(family, Multihop)
    assert (family.hops.low, family.hops.high, family.depth) == (3, 3, 6)
    assert set(family.PARAMS) >= {"hops", "depth", "distractors", "votes", "crowding"}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_design_succeeds_at_error_0_where_the_walk_fits(pattern: str) -> None:
    family = Multihop(hops="1-3", depth=3)
    for x in family.instances(6, seed=1):
        score, result, _ = trial(family, pattern, x)
        expected = 0.0 if pattern == "single" else 1.0  # one round of reads cannot get past the start
        assert score == expected, (pattern, x.data["hops"], result.output, result.detail)


@pytest.mark.parametrize("pattern", FIXED)
def test_a_fixed_depth_design_fails_when_the_walk_is_longer_than_its_depth(pattern: str) -> None:
    for depth, hops, expected in ((3, 3, 1.0), (3, 4, 0.0), (2, 6, 0.0), (6, 6, 1.0), (1, 1, 1.0), (1, 2, 0.0)):
        family = Multihop(hops=str(hops), depth=depth)
        scores = [trial(family, pattern, x)[0] for x in family.instances(3, seed=2)]
        assert scores == [expected] * 3, (pattern, depth, hops)


@pytest.mark.parametrize("spec", ["multihop:hops=3", "multihop:hops=2-4", "multihop", "multihop:hops=1-10"])
def test_the_agent_walks_any_length_and_every_sweep_setting_runs(spec: str) -> None:
    family = load_task(spec)
    for x in family.instances(4, seed=3):
        score, result, env = trial(family, "agent", x)
        assert score == 1.0 and result.ok
        assert result.steps == x.data["hops"] + 2  # read the start, each hop, then answer
        assert env.state["reads"] == [x.data["start"], *x.data["path"]]
        for pattern in ("chain", "orchestrate"):
            assert trial(family, pattern, x)[0] == (1.0 if x.data["hops"] <= family.depth else 0.0)


def test_the_plain_chain_succeeds_exactly_when_every_hop_decision_is_right() -> None:
    family, e, n = Multihop(hops="2", depth=3, plain="true"), 0.1, 320
    p = (1 - e) ** 3  # two references to follow, then the answer: three decisions
    rate = success(family, "chain", n, e) / n
    assert abs(rate - p) <= 4 * math.sqrt(p * (1 - p) / n), rate


def test_the_declared_chain_recovers_what_the_plain_one_loses() -> None:
    e, n = 0.1, 200
    declared = success(Multihop(hops="2", depth=3), "chain", n, e)
    plain = success(Multihop(hops="2", depth=3, plain="true"), "chain", n, e)
    assert declared - plain >= 0.05 * n, (declared, plain)  # misreads and noticed dead ends are retried


@pytest.mark.parametrize("pattern", [p for p in PATTERNS if p != "single"])
def test_mistakes_lower_success(pattern: str) -> None:
    family = Multihop(hops="2")
    assert success(family, pattern, 30, 0.3) < 30


def test_the_agent_recovers_from_wrong_references_and_beats_a_short_chain() -> None:
    family, n = Multihop(hops="4-6", depth=3), 60
    agent, chain = success(family, "agent", n, 0.1), success(family, "chain", n, 0.1)
    assert chain == 0 and agent >= 0.6 * n
    texts = []
    for i, x in enumerate(family.instances(20, seed=0)):
        score, result, _ = trial(family, "agent", x, 0.3, seed=i)
        texts += [b["text"] for m in result.messages if m["role"] == "assistant" for b in m["content"]
                  if b["type"] == "text" and score == 1.0]
    assert any(t.startswith("That did not fit; back to") for t in texts)  # a backtrack that still succeeded


def test_crowding_raises_the_error_rate_of_each_decision_in_a_call() -> None:
    for crowding, k, e in ((0.0, 3, 0.1), (1.0, 3, 0.1), (2.0, 4, 0.05), (10.0, 5, 0.5)):
        rate = min(1.0, e * (1 + crowding * (k - 1)))
        decide = Decider(random.Random(7), e)
        draws = [ok for _ in range(2000) for ok in crowded(decide, k, crowding)]
        wrong = draws.count(False) / len(draws)
        assert abs(wrong - rate) <= 4 * math.sqrt(max(rate * (1 - rate), 1e-9) / len(draws)) + 1e-9
        assert decide.decisions == len(draws) and decide.mistakes == draws.count(False)


def test_the_planner_makes_crowded_decisions() -> None:
    family = Multihop(hops="2", distractors=2, crowding=1.0)
    x = family.instances(1, seed=0)[0]
    start = x.data["documents"][x.data["start"]]
    refs = [r for r in x.data["documents"] if r in start and r != x.data["start"]]
    prompt = family.design("orchestrate", family.environment(x, Path("."))).planner.prompt.replace("{task}", x.prompt)
    messages = [{"role": "user", "content": prompt},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_document",
                                                   "input": {"doc_id": x.data["start"]}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": start}]}]
    request = Request(system="", messages=messages, tools=[], max_tokens=1024)
    e, k, n = 0.05, len(refs) + 1, 1500
    rate = e * (1 + 1.0 * (k - 1))
    copied = wrong = 0
    for i in range(n):
        plan = family.policy().respond(request, Decider(random.Random(i), e)).content[0]["text"]
        ids = [r for r in plan.split('"') if r.startswith("Follow ")]
        copied += len(ids)
        wrong += sum(1 for r in ids if r.split()[1] not in refs)
    assert copied == n * len(refs)
    assert abs(wrong / copied - rate) <= 4 * math.sqrt(rate * (1 - rate) / copied)


def _rewrite(env: Environment, doc_id: str, old: str, new: str) -> None:
    assert old in env.state["documents"][doc_id]
    env.state["documents"][doc_id] = env.state["documents"][doc_id].replace(old, new)


@pytest.mark.parametrize("pattern", ["agent", "chain", "evaluate_optimize", "orchestrate", "parallel", "route"])
def test_the_policy_follows_what_the_tools_show_not_the_ground_truth(pattern: str) -> None:
    family = Multihop(hops="2", depth=4)
    x = family.instances(1, seed=5)[0]
    last, truth, project = x.data["path"][-1], x.data["answer"], x.data["project"]
    office = x.data["attribute"] == "office"
    env = family.environment(x, Path("."))
    edited = "Z-999" if office else "555-9999"
    _rewrite(env, last, f"is {truth}", f"is {edited}")
    score, result, _ = trial(family, pattern, x, env=env)
    assert score == 0.0 and edited in result.output and truth not in result.output
    # one more hand-over, added behind the environment's back: the walk goes one document further
    env = family.environment(x, Path("."))
    name = env.state["documents"][last].splitlines()[0].split(": ", 1)[1]
    env.state["documents"]["doc-0001"] = (f"doc-0001: Zed Null\nZed Null is the current owner of the {project} "
                                          "project. Zed Null's office is Z-111 and desk phone is 555-0001.")
    _rewrite(env, last, f"{name} is the current owner of the {project} project.",
             f"{name} owned the {project} project until 2030, when ownership passed to Zed Null (see doc-0001).")
    score, result, _ = trial(family, pattern, x, env=env)
    assert score == 0.0 and ("Z-111" if office else "555-0001") in result.output
    assert "doc-0001" in env.state["reads"]


def test_a_changed_answer_in_the_instance_does_not_reach_the_policy() -> None:
    family = Multihop(hops="3")
    x = family.instances(1, seed=6)[0]
    fake = dataclasses.replace(x, data={**x.data, "answer": "Q-000"})
    score, result, _ = trial(family, "agent", fake)
    assert score == 0.0 and result.output == x.data["answer"]


def test_instances_are_deterministic_per_seed_and_independent_of_n() -> None:
    family = Multihop()
    assert family.instances(5, seed=1) == family.instances(5, seed=1)
    assert family.instances(3, seed=1) == family.instances(8, seed=1)[:3]
    assert family.instances(3, seed=1) != family.instances(3, seed=2)
    ids = [x.id for x in family.instances(12, seed=0)]
    assert ids[7] == "multihop-0007" and len(set(ids)) == 12
    hops = {x.data["hops"] for x in family.instances(60, seed=0)}
    assert hops == set(range(1, 7))


def test_ids_are_never_a_misreading_of_each_other() -> None:
    family, rng = Multihop(hops="10", distractors=5), random.Random(0)
    for x in family.instances(3, seed=0):
        docs = x.data["documents"]
        assert len(docs) == 1 + 10 + 11 * 5
        assert all(misread(d, rng) not in docs for d in docs for _ in range(20))


def test_same_seed_same_run_and_a_fresh_environment_per_trial() -> None:
    family = Multihop()
    x = family.instances(1, seed=0)[0]
    first, second = (trial(family, "agent", x, 0.2, seed=3)[1] for _ in range(2))
    assert (first.output, first.usage, first.steps) == (second.output, second.usage, second.steps)
    a, b = family.environment(x, Path(".")), family.environment(x, Path("."))
    assert a.state is not b.state and a.tools is not b.tools
    trial(family, "agent", x, env=a)
    a.state["documents"].clear()
    assert a.state["reads"] and not b.state["reads"] and b.state["documents"] == x.data["documents"]


def test_the_tool_accepts_bare_numbers_and_explains_a_bad_id() -> None:
    family = Multihop()
    x = family.instances(1, seed=0)[0]
    env = family.environment(x, Path("."))
    run = Run(SimModel())
    good = run_sync_tool(run, env, x.data["start"].removeprefix("doc-"))
    assert not good.get("is_error") and good["content"].startswith(x.data["start"])
    bad = run_sync_tool(run, env, "doc-0000")
    assert bad["is_error"] and "no document 'doc-0000'" in bad["content"] and "doc-4821" in bad["content"]


def run_sync_tool(run: Run, env: Environment, doc_id: str) -> dict[str, Any]:
    from patterns.sync import run_sync

    block = {"name": "read_document", "id": "t", "input": {"doc_id": doc_id}}
    return run_sync(run.call_tool(env.tools, block))


def test_grading_normalises_the_answer() -> None:
    family = Multihop()
    x = family.instances(1, seed=0)[0]
    env, answer = family.environment(x, Path(".")), x.data["answer"]
    quoted = f'ANSWER: `{answer}` (from doc-1234: "...")'
    for output in (answer, f" ANSWER: {answer.lower()}.", quoted, f"**{answer}**"):
        assert family.grade(x, env, output) == 1.0, output
    for output in ("", "UNKNOWN", f"NEXT: doc-1234 ({answer})", answer + "0"):
        assert family.grade(x, env, output) == 0.0, output


@pytest.mark.parametrize("params", [{"hops": "0"}, {"hops": "4-2"}, {"hops": "1-30"}, {"depth": "x"},
                                    {"depth": "0"}, {"distractors": "9"}, {"crowding": "-1"}, {"votes": "0"},
                                    {"nope": "1"}])
def test_bad_parameters_are_one_line_value_errors(params: dict[str, str]) -> None:
    with pytest.raises(ValueError) as info:
        Multihop(**params)
    assert "\n" not in str(info.value) and str(info.value)


def test_the_policy_accepts_only_its_own_prompts() -> None:
    policy = MultihopPolicy()
    mine = Request(system="", messages=[{"role": "user", "content": Multihop().instances(1, 0)[0].prompt}],
                   tools=[], max_tokens=10)
    other = Request(system="You are helpful.", messages=[{"role": "user", "content": "Fix the bug."}], tools=[],
                    max_tokens=10)
    assert policy.accepts(mine) and not policy.accepts(other)


def test_an_off_topic_document_is_noticed_by_a_judgement_for_every_pattern() -> None:
    from benchmarks.tasks.multihop.policy import choose, parse_doc, parse_question

    family = Multihop(hops="2", distractors=1)
    instance = family.instances(1, seed=0)[0]
    q = parse_question(instance.prompt)
    assert q is not None
    docs = [parse_doc(text, q) for text in instance.data["documents"].values()]
    other = next(d for d in docs if d is not None and d.kind == "other")
    noticed = choose(other, q, Decider(random.Random(0), 0.0, checker_error_rate=0.0))
    missed = choose(other, q, Decider(random.Random(0), 0.0, checker_error_rate=1.0))
    assert noticed[0] == "dead_end" and missed == ("answer", other.values[q.attribute])
