"""Equal bounds, checked: `wva audit` fails a declared comparator that ends at its own bound more often than the
agent ends at its limit (by more than 2 points), and the trail families' walks may spend what the agent may."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.studies.bounds import BoundRow, check_bounds, verdict
from benchmarks.tasks.registry import load_task
from patterns.limits import Limits
from patterns.result import Terminal
from patterns.sim import SimModel
from patterns.workflows import run_workflow


def test_the_rule_on_hand_computed_shares() -> None:
    agent = BoundRow("agent", 50, 1, (("the step limit", 1),))  # 2%
    over = BoundRow("chain", 50, 3, (("walk (≤9 rounds)", 3),))  # 6%: 4 points over the agent's 2%
    level = BoundRow("route", 50, 2, (("walk (≤8 rounds)", 2),))  # 4%: exactly 2 points, not more
    check = verdict("t", agent, [over, level], checked={"chain", "route"})
    assert len(check.failed) == 1 and check.failed[0].startswith("t chain: ends at its own bound, walk (≤9 rounds)")
    assert "6.0%" in check.failed[0] and "2.0%" in check.failed[0]
    unchecked = verdict("t", agent, [over], checked=set())
    assert unchecked.failed == () and len(unchecked.short) == 1


def test_an_injected_low_bound_fails_and_the_default_bound_passes_on_the_same_instances() -> None:
    knobs = {"error_rate": 0.1}
    low = check_bounds(load_task("explore:depth=4"), ["agent", "chain"], knobs, instances=20)
    assert low.failed and "explore:depth=4 chain" in low.failed[0] and "walk (≤4 rounds)" in low.failed[0]
    equal = check_bounds(load_task("explore"), ["agent", "chain"], knobs, instances=20)
    assert equal.failed == () and equal.designs[0].at_bound == 0


def test_a_bound_the_agent_shares_counts_the_agent_at_it() -> None:
    """`pipeline`'s model checks at most 4 times and its chain loops at most 4 rounds: both at that bound alike."""
    check = check_bounds(load_task("pipeline"), ["agent", "chain"], {"error_rate": 0.1}, instances=60)
    assert check.agent.at_bound > 0 and "check_format" in check.agent.bounds[0][0]
    assert check.failed == ()


def test_wva_audit_exits_1_naming_the_design_and_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "explore:depth=3", "--instances", "1", "--samples", "1", "--bounds-instances", "12"]) == 1
    out = capsys.readouterr().out
    assert "SHORT BOUND: explore:depth=3 chain" in out and "walk (≤3 rounds)" in out
    assert out.rstrip().splitlines()[-1].startswith("short bounds: explore:depth=3 chain")


def test_the_trail_walks_are_bounded_at_the_agents_budget() -> None:
    family = load_task("explore")
    env = family.environment(family.instances(1, 0)[0], Path("."))
    budget = Limits().max_steps or 50
    assert family.depth == budget - 1  # each round one read; the answer is the last call
    labels = {str(label) for _, label in family.design("chain", env).graph.nodes(data="label")}
    assert f"done? (≤{budget - 1} rounds)" in labels


def test_each_voted_walk_has_its_own_step_budget(tmp_path: Path) -> None:
    """Three walks of about 9 calls each under a 12-call limit: each gets the 12, none a share of them."""
    family = load_task("explore:hops=8")
    instance = family.instances(1, 0)[0]
    env = family.environment(instance, tmp_path)
    result = run_workflow(family.design("parallel", env), SimModel(policy=family.policy()), instance.prompt,
                          limits=Limits(max_steps=12))
    assert result.terminal is Terminal.COMPLETED and 12 < result.steps <= 36
    assert family.grade(instance, env, result.output) == 1.0
