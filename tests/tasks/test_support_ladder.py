"""`support`'s triage ladder (`route:ladder`, the declared route for one-question tickets): what it recovers from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.support import Support, ladder
from benchmarks.tasks.support import prompts as st
from benchmarks.tasks.variants import design_for, variants_of
from patterns.sim import SimModel
from patterns.workflows import run_workflow
from patterns.workflows.choices import agent_like

from .forcing import ForcedPolicy

WORK = Path(".")


def _run(family: Support, name: str, instance: Any, model: Any) -> tuple[Any, float]:
    env = family.environment(instance, WORK)
    result = run_workflow(design_for(family, name, env), model, instance.prompt)
    return result, family.grade(instance, env, result.output)


def _billing(distractors: int) -> tuple[Support, Any]:
    family = Support(distractors=distractors)
    return family, next(i for i in family.instances(20, seed=7) if i.data["issues"][0]["category"] == "billing")


def test_the_declared_route_is_the_ladder_for_one_question_and_per_question_for_several() -> None:
    one, several = Support(), Support(issues="1-2")
    env = one.environment(one.instances(1, 0)[0], WORK)
    assert one.design("route", env).name == "route:ladder"
    assert several.design("route", env).name == "route"  # the per-question route (`comparator`)
    assert agent_like(several.design("route", env)) is None  # drawn: each question's category is kept in code
    assert {"route:ladder", "route:each", "route:plain"} <= set(variants_of(one))


@pytest.mark.parametrize("distractors", [0, 2])
def test_the_ladder_solves_every_instance_at_error_0(distractors: int) -> None:
    family = Support(distractors=distractors)
    for i, instance in enumerate(family.instances(12, seed=0)):
        result, score = _run(family, "route:ladder", instance, SimModel(family.policy(), error_rate=0.0, seed=i))
        assert score == 1.0, result.output


@pytest.mark.parametrize(("distractors", "wrong", "score"), [
    (0, {0}, 1.0),  # a wrong label: its handler finds nothing of its kind, the check fails it, the ladder climbs
    (1, {1}, 1.0),  # a wrong argument (the other customer's id): the check fails the answer, the handler runs again
    (1, {1, 2}, 0.0),  # ... unless the check is wrong: the wrong answer is sent
    (0, {1}, 1.0),  # a mistyped id: code writes the tool's error as an apology, the check fails it, run again
])
def test_what_the_ladder_recovers_from(distractors: int, wrong: set[int], score: float) -> None:
    family, instance = _billing(distractors)
    assert _run(family, "route:ladder", instance, SimModel(policy=ForcedPolicy(family.policy(), wrong)))[1] == score


def test_every_decision_wrong_climbs_every_rung_and_stops() -> None:
    family, instance = _billing(1)
    result, score = _run(family, "route:ladder", instance, SimModel(family.policy(), error_rate=1.0))
    assert score == 0.0 and result.tool_calls <= ladder.RUNG_LIMIT


def test_code_writes_the_reply_from_a_record_or_an_apology() -> None:
    line = ladder.quoted({"customer_id": "C-1"}, {"content": '{"customer_id": "C-1", "amount": "$9.50"}'})
    assert line == "For C-1: amount $9.50."
    assert st.SORRY in ladder.quoted({"customer_id": "C-2"}, {"content": "Error: no invoice", "is_error": True})


def test_the_climb_puts_the_label_first_and_moves_on_only_after_a_fail() -> None:
    assert ladder.rungs("shipping").split()[2:] == ["shipping"] * ladder.TRIES + ["billing", "account", "technical"]
    assert ladder.rungs("general").split()[2:] == list(st.CATEGORIES)
    state = ladder.state_of({ladder.RUNGS: "billing shipping", ladder.LAST: "x", ladder.VERDICT: "FAIL: no"})
    assert ladder.next_rung(ladder.climbed(state)) == "shipping" and not ladder.done(ladder.climbed(state))
    passed = ladder.state_of({ladder.RUNGS: "billing", ladder.FIRST: "a", ladder.LAST: "b", ladder.VERDICT: "PASS"})
    assert ladder.done(ladder.climbed(passed)) and ladder.sent(passed) == "b"
