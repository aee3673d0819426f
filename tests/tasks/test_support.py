"""The `support` family: instances, environment, tools, designs, grader and its SimModel policy."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import PATTERNS, Instance, task_label
from benchmarks.tasks.registry import load_task
from benchmarks.tasks.support import Support
from benchmarks.tasks.variants import design_for
from patterns.result import Result, Terminal
from patterns.sim import SimModel
from patterns.sync import run_sync
from patterns.workflows import Route, run_workflow

from .forcing import ForcedPolicy, within

WORK = Path(".")


def run(family: Support, pattern: str, instance: Instance, model: Any) -> tuple[Result, float]:
    env = family.environment(instance, WORK)
    result = run_workflow(design_for(family, pattern, env), model, instance.prompt)
    return result, family.grade(instance, env, result.output)


def call(env: Any, name: str, **args: Any) -> Any:
    return run_sync(env.tools.execute(name, args))


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_answers_one_question_tickets_without_errors(pattern: str) -> None:
    family = Support(distractors=2)
    policy = ForcedPolicy(family.policy(), set())
    for instance in family.instances(8, seed=1):
        result, score = run(family, pattern, instance, SimModel(policy=policy))
        assert result.terminal is Terminal.COMPLETED and score == 1.0, (pattern, instance.prompt, result.output)
    assert policy.seen and all(policy.inner.accepts(r) for r in policy.seen)  # every prompt carries the marker


@pytest.mark.parametrize("plain", [False, True])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_two_question_tickets_defeat_only_the_designs_with_one_label_per_ticket(pattern: str, plain: bool) -> None:
    """The plain route, and evaluate_optimize (routed on the ticket so that its loop offers one lookup, not
    four: patterns.workflows.choices), answer one question of two."""
    family = Support(issues="2", distractors=1, plain=plain)
    one_label = (pattern, plain) == ("route", True) or pattern == "evaluate_optimize"
    for instance in family.instances(6, seed=2):
        result, score = run(family, pattern, instance, SimModel(policy=family.policy()))
        assert score == (0.5 if one_label else 1.0), (pattern, result.output)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_fails_when_every_decision_is_wrong(pattern: str) -> None:
    family = Support()
    for i, instance in enumerate(family.instances(5, seed=3)):
        assert run(family, pattern, instance, SimModel(policy=family.policy(), error_rate=1.0, seed=i))[1] == 0.0


def test_the_plain_route_succeeds_at_one_minus_e_cubed() -> None:
    family, e, n = Support(plain=True), 0.1, 300
    spec = family.design("route", family.environment(family.instances(1, 0)[0], WORK))
    assert isinstance(spec, Route) and all(len(h.tools) == 1 for h in spec.routes.values())
    wins = sum(run(family, "route", inst, SimModel(policy=family.policy(), error_rate=e, seed=i))[1] == 1.0
               for i, inst in enumerate(family.instances(n, seed=4)))
    assert within(wins, n, (1 - e) ** 3), wins  # label, argument, answer


def test_crowding_makes_the_single_call_err_more() -> None:
    family, e, c, n = Support(crowding=1.0), 0.1, 1.0, 400
    wins = sum(run(family, "single", inst, SimModel(policy=family.policy(), error_rate=e, seed=i))[1] == 1.0
               for i, inst in enumerate(family.instances(n, seed=5)))
    assert within(wins, n, (1 - e * (1 + c)) ** 2 * (1 - e)), wins  # category+argument in one call, then the answer


def test_error_rate_lowers_success_for_every_pattern() -> None:
    family = Support()
    instances = family.instances(40, seed=6)
    for pattern in PATTERNS:
        wins = sum(run(family, pattern, inst, SimModel(policy=family.policy(), error_rate=0.3, seed=i))[1]
                   for i, inst in enumerate(instances))
        assert wins < len(instances), pattern


@pytest.mark.parametrize(("pattern", "params", "wrong", "score"), [
    ("agent", {"distractors": 0}, {1}, 1.0),  # a mistyped id: the tool says so and the agent tries again
    ("agent", {"distractors": 0}, {0}, 1.0),  # the wrong tool: the tool says the id is of another kind
    ("agent", {"distractors": 1}, {1}, 1.0),  # another id from the ticket: a plausible wrong answer its check flags
    ("agent", {"distractors": 1}, {1, 3}, 0.0),  # ... unless that judgement is wrong, as an evaluator's can be
    ("agent", {"distractors": 0}, {1, 3, 5}, 0.0),  # a typo, and both retries wrong: the bound is reached
    ("single", {"distractors": 0}, {1}, 0.0),  # one round: the error is all it has
    # the per-question route retries the failed lookup, as the agent does
    ("route:each", {"distractors": 0}, {1}, 1.0),
    ("route:each", {"distractors": 0}, {0}, 1.0),  # ... and the wrong category's lookup
    # its check flags the wrong id's answer; the next attempt fixes it
    ("route:each", {"distractors": 1}, {1}, 1.0),
    ("route:each", {"distractors": 1}, {1, 3}, 0.0),  # ... unless that judgement is wrong
    ("route:each", {"distractors": 0}, {1, 3, 5}, 0.0),  # the same bound as the agent's
    ("route", {"distractors": 0, "plain": True}, {1}, 0.0),  # the plain handler's one round, likewise
    ("route", {"distractors": 0, "plain": True}, {0}, 0.0),  # the wrong handler has no id of its kind to look up
    ("evaluate_optimize", {"distractors": 1}, {1}, 1.0),  # the evaluator sees the answer is about another id
])
def test_what_a_design_can_and_cannot_recover_from(pattern: str, params: dict[str, Any], wrong: set[int],
                                                   score: float) -> None:
    family = Support(**params)
    instance = next(i for i in family.instances(20, seed=7) if i.data["issues"][0]["category"] == "billing")
    assert run(family, pattern, instance, SimModel(policy=ForcedPolicy(family.policy(), wrong)))[1] == score


def test_the_policy_follows_the_tools_not_the_ground_truth() -> None:
    family = Support()
    instance = next(i for i in family.instances(20, seed=8) if i.data["issues"][0]["category"] == "billing")
    env = family.environment(instance, WORK)
    customer = instance.data["issues"][0]["args"]["customer_id"]
    env.state["invoices"][customer]["amount"] = "$1.23"  # behind the policy's back
    result = run_workflow(family.design("route", env), SimModel(policy=family.policy()), instance.prompt)
    assert "$1.23" in result.output and family.grade(instance, env, result.output) == 0.0


def test_the_policy_follows_the_prompt_not_the_ground_truth() -> None:
    family = Support()
    a, b = family.instances(2, seed=9)
    result, score = run(family, "agent", replace(b, prompt=a.prompt), SimModel(policy=family.policy()))
    assert score == 0.0 and all(arg in result.output for arg in a.data["issues"][0]["args"].values())


def test_tools_explain_their_errors() -> None:
    family = Support()
    instance = family.instances(1, seed=10)[0]
    env = family.environment(instance, WORK)
    wrong_kind = call(env, "get_invoice", customer_id="ORD-12345")
    assert wrong_kind.is_error and "customer id" in wrong_kind.content and "track_order" in wrong_kind.content
    assert call(env, "track_order", order_id="ORD-00000").is_error
    assert "unknown product" in call(env, "search_kb", product="Toaster Z1", error_code="E-1").content
    issue = instance.data["issues"][0]
    found = call(env, issue["tool"], **issue["args"])
    assert not found.is_error and issue["fact"] in json.loads(found.content).values()
    assert len(env.state["calls"]) == 4


def test_grade_counts_the_facts_found() -> None:
    family = Support(issues="2")
    instance = family.instances(1, seed=11)[0]
    env = family.environment(instance, WORK)
    first, second = instance.data["facts"]
    assert family.grade(instance, env, f"{first.upper()} and  {second}") == 1.0
    assert family.grade(instance, env, f"only {first}") == 0.5
    assert family.grade(instance, env, "") == 0.0


def test_instances_are_deterministic_per_seed_and_independent_of_n() -> None:
    family = Support(issues="1-3", distractors=2)
    assert family.instances(6, seed=3) == family.instances(6, seed=3)
    assert family.instances(3, seed=3) == family.instances(9, seed=3)[:3]
    assert family.instances(3, seed=3) != family.instances(3, seed=4)
    assert [i.id for i in family.instances(2, seed=0)] == ["support-0000", "support-0001"]
    many = family.instances(80, seed=0)
    assert {len(i.data["issues"]) for i in many} == {1, 2, 3}
    assert {i.data["issues"][0]["category"] for i in many} == {"billing", "shipping", "account", "technical"}


def test_the_same_seed_gives_the_same_run() -> None:
    family = Support(issues="2")
    instance = family.instances(1, seed=12)[0]
    runs = [run(family, "agent", instance, SimModel(policy=family.policy(), error_rate=0.5, seed=5))[0]
            for _ in range(2)]
    assert runs[0].output == runs[1].output and runs[0].usage == runs[1].usage and runs[0].steps == runs[1].steps


def test_every_trial_gets_a_fresh_environment() -> None:
    family = Support()
    instance = family.instances(1, seed=13)[0]
    first, second = family.environment(instance, WORK), family.environment(instance, WORK)
    issue = instance.data["issues"][0]
    call(first, issue["tool"], **issue["args"])
    first.state["invoices"].clear()
    assert len(first.state["calls"]) == 1 and second.state["calls"] == []
    assert second.state["invoices"] and instance.data["db"]["invoices"]


@pytest.mark.parametrize("params", [{"nope": "1"}, {"issues": "5"}, {"issues": "0"}, {"distractors": "-1"},
                                    {"distractors": "x"}, {"crowding": "-0.5"}, {"plain": "maybe"}])
def test_bad_parameters_are_one_line_value_errors(params: dict[str, str]) -> None:
    with pytest.raises(ValueError) as error:
        Support(**params)
    assert "\n" not in str(error.value)


def test_parameters_from_the_command_line_and_unknown_patterns() -> None:
    family = load_task("support:issues=1-2,distractors=0,crowding=0.5")
    assert str(family.issues) == "1-2" and family.distractors == 0 and family.crowding == 0.5
    assert task_label(family) == "support:issues=1-2,distractors=0,crowding=0.5" and task_label(Support()) == "support"
    env = family.environment(family.instances(1, 0)[0], WORK)
    with pytest.raises(ValueError, match="unknown pattern 'nope'"):
        family.design("nope", env)
