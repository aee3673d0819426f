"""The `pipeline` family: instances, environment, designs, grader and its SimModel policy."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import PATTERNS, Instance, task_label
from benchmarks.tasks.pipeline import Pipeline
from benchmarks.tasks.pipeline.family import answer_line
from benchmarks.tasks.pipeline.policy import PipelinePolicy
from benchmarks.tasks.pipeline.tools import format_problems
from benchmarks.tasks.registry import load_task
from patterns.result import Result, Terminal
from patterns.sim import SimModel
from patterns.workflows import LLM, Chain, Gate, run_workflow

from .forcing import ForcedPolicy, within

WORK = Path(".")


def run(family: Pipeline, spec_or_pattern: Any, instance: Instance, model: Any) -> tuple[Result, float]:
    env = family.environment(instance, WORK)
    spec = family.design(spec_or_pattern, env) if isinstance(spec_or_pattern, str) else spec_or_pattern
    result = run_workflow(spec, model, instance.prompt)
    return result, family.grade(instance, env, result.output)


@pytest.fixture(scope="module")
def family() -> Pipeline:
    return Pipeline(fields="3-5")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_succeeds_without_errors(family: Pipeline, pattern: str) -> None:
    policy = ForcedPolicy(family.policy(), set())
    for instance in family.instances(8, seed=1):
        result, score = run(family, pattern, instance, SimModel(policy=policy))
        assert result.terminal is Terminal.COMPLETED and score == 1.0, (pattern, instance.prompt, result.output)
    assert policy.seen and all(policy.inner.accepts(r) for r in policy.seen)  # every prompt carries the marker


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_fails_when_every_decision_is_wrong(family: Pipeline, pattern: str) -> None:
    for i, instance in enumerate(family.instances(5, seed=2)):
        _, score = run(family, pattern, instance, SimModel(policy=family.policy(), error_rate=1.0, seed=i))
        assert score == 0.0


def test_the_plain_chain_is_three_calls_without_a_gate_and_succeeds_at_one_minus_e_cubed() -> None:
    family, e, n = Pipeline(plain="true"), 0.1, 400
    spec = family.design("chain", family.environment(family.instances(1, 0)[0], WORK))
    assert isinstance(spec, Chain) and len(spec.steps) == 3
    assert all(isinstance(s, LLM) and not isinstance(s, Gate) and s.tools is None for s in spec.steps)
    wins = 0
    for i, instance in enumerate(family.instances(n, seed=3)):
        result, score = run(family, "chain", instance, SimModel(policy=family.policy(), error_rate=e, seed=i))
        assert result.steps == 3
        wins += score == 1.0
    assert within(wins, n, (1 - e) ** 3), wins


def test_route_adds_a_fourth_decision() -> None:
    family, e, n = Pipeline(), 0.1, 400
    wins = sum(run(family, "route", inst, SimModel(policy=family.policy(), error_rate=e, seed=i))[1] == 1.0
               for i, inst in enumerate(family.instances(n, seed=4)))
    assert within(wins, n, (1 - e) ** 4), wins


@pytest.mark.parametrize(("crowding", "rate"), [(0.0, 0.1), (1.0, 0.3)])
def test_one_call_doing_the_whole_pipeline_makes_three_crowded_decisions(crowding: float, rate: float) -> None:
    family, n = Pipeline(crowding=crowding), 300
    wins = 0
    for i, instance in enumerate(family.instances(n, seed=5)):
        draft = family.design("parallel", family.environment(instance, WORK)).vote  # one call, no tools
        wins += run(family, draft, instance, SimModel(policy=family.policy(), error_rate=0.1, seed=i))[1] == 1.0
    assert within(wins, n, (1 - rate) ** 3), wins


def test_error_rate_lowers_success_for_every_pattern(family: Pipeline) -> None:
    instances = family.instances(40, seed=6)
    for pattern in PATTERNS:
        wins = sum(run(family, pattern, inst, SimModel(policy=family.policy(), error_rate=0.3, seed=i))[1]
                   for i, inst in enumerate(instances))
        assert wins < len(instances), pattern


@pytest.mark.parametrize(("spec", "pattern", "wrong", "score"), [
    ("pipeline", "agent", {2}, 1.0),  # a format slip: check_format says INVALID, the fix repairs it
    ("pipeline", "agent", {0}, 1.0),  # an extraction slip has the right layout; the agent's own judgement notices it
    ("pipeline", "agent", {0, 3}, 0.0),  # ... unless that judgement is wrong too, as an evaluator's can be
    ("pipeline", "single", {2}, 1.0),  # its one round of tools is enough for one format slip
    ("pipeline", "chain", {2}, 1.0),  # the declared chain checks the line too, and its fix step repairs it
    ("pipeline", "chain", {0}, 1.0),  # ... and its judge notices the extraction slip; the redo step corrects it
    ("pipeline", "chain", {0, 3}, 0.0),  # ... unless the judge is wrong too
    ("pipeline:plain=true", "chain", {2}, 0.0),  # no gate: the format step's slip is the output
    ("pipeline", "evaluate_optimize", {0}, 1.0),  # the evaluator compares with the record and asks for another try
])
def test_what_a_design_can_and_cannot_recover_from(spec: str, pattern: str, wrong: set[int], score: float) -> None:
    family = load_task(spec + (",fields=3-5" if ":" in spec else ":fields=3-5"))
    instance = family.instances(1, seed=8)[0]
    slipped = run(Pipeline(), "single", instance, SimModel(policy=ForcedPolicy(family.policy(), {0})))[0]
    assert answer_line(slipped.output, instance.data["fields"])  # the premise: this extraction slip keeps the layout
    assert run(family, pattern, instance, SimModel(policy=ForcedPolicy(family.policy(), wrong)))[1] == score


def test_the_policy_follows_the_prompt_not_the_ground_truth(family: Pipeline) -> None:
    a, b = family.instances(2, seed=8)
    swapped = replace(b, prompt=a.prompt)  # b's truth behind a's record
    result, score = run(family, "chain", swapped, SimModel(policy=family.policy()))
    assert result.output == a.data["expected"] and score == 0.0


def test_the_agent_follows_what_the_tool_says(family: Pipeline) -> None:
    instance = Pipeline().instances(1, seed=9)[0]
    env = family.environment(instance, WORK)
    env.state["fields"] = ["name", "dob"]  # behind the policy's back: every 3-field line is now INVALID
    policy = PipelinePolicy(max_checks=4)
    result = run_workflow(family.design("agent", env), SimModel(policy=policy), instance.prompt)
    assert result.tool_calls == 4 and len(env.state["checks"]) == 4  # it kept fixing, then gave up
    assert result.output == instance.data["expected"]


def test_check_format_checks_the_layout_only(family: Pipeline) -> None:
    fields = ["name", "dob", "city"]
    assert format_problems("Smith, John | 1985-03-07 | New York", fields) == []
    assert format_problems("Doe, Jane | 1999-12-31 | Paris", fields) == []  # wrong values, right shapes
    for bad in ("John Smith | 1985-03-07 | New York", "Smith, John; 1985-03-07; New York",
                "Smith, John | New York | 1985-03-07", "SMITH, JOHN | 1985-03-07 | New York",
                "Smith, John | 1985-02-30 | New York", "Smith, John | 1985-03-07"):
        assert format_problems(bad, fields), bad
    instance = family.instances(1, seed=10)[0]
    env = family.environment(instance, WORK)
    spec = family.design("single", env)
    assert "check_format" in spec.tools and "FORMAT only" in spec.tools.params[0]["description"]


def test_grade_is_a_normalised_exact_match(family: Pipeline) -> None:
    instance = family.instances(1, seed=11)[0]
    env, want = family.environment(instance, WORK), instance.data["expected"]
    assert family.grade(instance, env, want) == 1.0
    assert family.grade(instance, env, f"Here it is:\n`{want.replace(' | ', '|')}`  \n") == 1.0
    assert family.grade(instance, env, want.upper()) == 0.0
    assert family.grade(instance, env, "") == 0.0


def test_instances_are_deterministic_per_seed_and_independent_of_n(family: Pipeline) -> None:
    assert family.instances(6, seed=3) == family.instances(6, seed=3)
    assert family.instances(3, seed=3) == family.instances(9, seed=3)[:3]
    assert family.instances(3, seed=3) != family.instances(3, seed=4)
    assert [i.id for i in family.instances(2, seed=0)] == ["pipeline-0000", "pipeline-0001"]
    assert {len(i.data["fields"]) for i in family.instances(60, seed=0)} == {3, 4, 5}


def test_the_same_seed_gives_the_same_run(family: Pipeline) -> None:
    instance = family.instances(1, seed=12)[0]
    runs = [run(family, "agent", instance, SimModel(policy=family.policy(), error_rate=0.5, seed=5))[0]
            for _ in range(2)]
    assert runs[0].output == runs[1].output and runs[0].usage == runs[1].usage and runs[0].steps == runs[1].steps


def test_every_trial_gets_a_fresh_environment(family: Pipeline) -> None:
    instance = family.instances(1, seed=13)[0]
    first, second = family.environment(instance, WORK), family.environment(instance, WORK)
    run_workflow(family.design("agent", first), SimModel(policy=family.policy()), instance.prompt)
    assert first.state["checks"] and second.state["checks"] == []
    assert first.tools is not second.tools


@pytest.mark.parametrize("params", [{"nope": "1"}, {"fields": "6"}, {"fields": "2"}, {"fields": "x"},
                                    {"crowding": "-1"}, {"crowding": "lots"}])
def test_bad_parameters_are_one_line_value_errors(params: dict[str, str]) -> None:
    with pytest.raises(ValueError) as error:
        Pipeline(**params)
    assert "\n" not in str(error.value)


def test_parameters_from_the_command_line_and_unknown_patterns() -> None:
    family = load_task("pipeline:fields=3-5,crowding=0.5")
    assert str(family.fields) == "3-5" and family.crowding == 0.5
    assert task_label(family) == "pipeline:fields=3-5,crowding=0.5" and task_label(Pipeline()) == "pipeline"
    env = family.environment(family.instances(1, 0)[0], WORK)
    with pytest.raises(ValueError, match="unknown pattern 'nope'"):
        family.design("nope", env)
