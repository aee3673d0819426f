"""`wva plan`: sizes planned from a pilot give the power they promise when the rule is run at them on data
whose truth is known; a pilot too small to decide is told so, and what it can decide."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.verdict import Options
from benchmarks.studies.plan_sim import Engine, Pilot, moved
from benchmarks.studies.planning import pilot_for, plan_lines, plan_task, spread_factor
from tests.synthetic_results import Scenario, simulated_verdicts, task_runs, write_scenario

TRUTH = Scenario(1, 200, {"agent": 0.8, "chain": 0.7}, {"agent": 0.01, "chain": 0.005})
CHAIN = Options(comparator="chain")


def test_the_spread_upper_limit_by_hand() -> None:
    # sqrt(19 / chi2.ppf(0.2, 19)) with chi2.ppf(0.2, 19) = 13.716
    assert spread_factor(20) == pytest.approx((19 / 13.716) ** 0.5, abs=1e-3)
    assert spread_factor(1000) == pytest.approx(1.0, abs=0.04)


def test_running_the_rule_at_the_planned_size_gives_the_planned_power() -> None:
    """Five 200-instance pilots of a truth where the agent is 10 points better: each plans its size for
    that truth (at the spread's 80% upper limit, as `wva plan` does), and the rule run at that size on 600
    fresh tasks of the truth decides right (`agent`) 75-90% of the time on average over the pilots. One
    pilot's plan moves with its spread's noise (measured 0.81-0.91 over six pilots, mean 0.85); the mean
    over five has a standard error of about 2 points, the 600 tasks add 0.7."""
    powers = []
    for seed in range(1, 6):
        pilot = pilot_for(task_runs(TRUTH, "t", np.random.default_rng(seed)), ["chain"], None, CHAIN)
        planned = Engine(pilot, CHAIN).smallest_n(0.10, 0.8, spread_factor(pilot.instances))
        assert planned is not None and 50 < planned < 250
        got = simulated_verdicts(Scenario(1, planned, TRUTH.success, TRUTH.cost), 600, seed=seed, comparator="chain")
        powers.append(float((got == "agent").mean()))
    assert 0.75 <= np.mean(powers) <= 0.90, powers


def test_the_plan_lists_every_stated_truth() -> None:
    plan = plan_task("t", task_runs(TRUTH, "t", np.random.default_rng(1)), None, CHAIN, effect=0.10)
    assert [a.name for a in plan.alternatives] == ["no difference", "agent +0.05", "workflow +0.05", "agent +0.10",
                                                   "workflow +0.10"]
    for a in plan.alternatives:
        assert a.needed is not None and a.needed_upper is not None and a.needed <= a.needed_upper * 1.05
    assert plan.needed == max(a.needed_upper for a in plan.alternatives if a.needed_upper is not None)


def test_an_18_row_pilot_learns_it_cannot_decide_a_5_point_margin() -> None:
    pilot = task_runs(Scenario(1, 18, {"agent": 0.8, "chain": 0.75}), "t", np.random.default_rng(3))
    plan = plan_task("t", pilot, None, CHAIN, effect=0.10)
    at_margin = [a for a in plan.alternatives if a.truth in (0.0, 0.05, -0.05)]
    assert all(a.power_now < 0.8 for a in at_margin[:2])  # no difference, agent +0.05
    assert plan.needed is not None and plan.needed > 100
    assert plan.decidable_margin is not None and plan.decidable_margin > 0.1
    text = "\n".join(plan_lines(plan))
    assert "a new run of 18 instances is not sure to decide a 0.05 margin" in text
    assert "this folder is decided" not in text  # plan_task alone knows no folder verdict
    assert f"with 18 instances the rule decides a margin of {plan.decidable_margin:.2f}" in text


def test_a_large_enough_pilot_is_told_so() -> None:
    truth = Scenario(1, 400, {"agent": 0.9, "chain": 0.5}, {"agent": 0.01, "chain": 0.01})
    plan = plan_task("t", task_runs(truth, "t", np.random.default_rng(4)), None, CHAIN, effect=0.4)
    big = next(a for a in plan.alternatives if a.name == "agent +0.40")
    assert big.power_now > 0.99 and big.needed_upper is not None and big.needed_upper < 40


def test_wva_plan_prints_and_writes_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_scenario(tmp_path, Scenario(2, 30, {"agent": 0.8, "chain": 0.7, "route": 0.7}), seed=5)
    assert main(["plan", str(folder), "--effect", "0.2", "--max-instances", "3000"]) == 0
    out = capsys.readouterr().out
    assert "synth-000 (against " in out and "selected (selection-proof intervals)" in out
    assert "agent +0.20" in out and "instances decide whichever of these is true" in out
    plan = pd.read_csv(folder / "plan.csv")
    assert set(plan["task"]) == {"synth-000", "synth-001"} and len(plan) == 10
    assert (plan["instances_needed"] <= plan["instances_needed_upper"]).all()


@pytest.mark.parametrize(("flags", "says"), [
    (["--effect", "0"], "between 0 and 1"),
    (["--power", "0.3"], "from 0.5 to 0.99"),
    (["--max-instances", "0"], "an integer >= 1"),
    (["--margin", "0.9"], "between 0 and 0.5"),
])
def test_bad_plan_options_are_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    flags: list[str], says: str) -> None:
    folder = write_scenario(tmp_path, Scenario(1, 10, {"agent": 0.8, "chain": 0.7}), seed=6)
    assert main(["plan", str(folder), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and says in err, err
    assert not (folder / "plan.csv").exists()


def test_a_folder_without_a_comparison_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_scenario(tmp_path, Scenario(1, 10, {"agent": 0.8}), seed=7)
    (folder / "manifest.json").write_text(json.dumps({"seed": 0, "tasks": ["synth-000"]}))
    assert main(["plan", str(folder)]) == 2
    assert "no task with both agent and workflow runs" in capsys.readouterr().err


def _pilot(agent: list[float], flow: list[float]) -> Pilot:
    return Pilot(np.array([agent, flow], dtype=float).T, None, ["chain"])


def test_planned_differences_keep_the_stated_truth_inside_minus_one_to_one() -> None:
    # moved by +0.5 the first two would be 1.3 and 1.5: clipped, and the rest moved further so the mean is the truth
    p = _pilot([1.0, 1.0, 0.5, 0.0], [0.2, 0.0, 0.5, 1.0])  # differences 0.8, 1.0, 0.0, -1.0: mean 0.2
    d = moved(p, 0.7, 1.0)[0, :, 0]
    assert d.min() >= -1.0 and d.max() <= 1.0 and d.mean() == pytest.approx(0.7)
    assert (moved(p, -0.9, 1.5)[0, :, 0] >= -1.0).all() and moved(p, -0.9, 1.5)[0, :, 0].mean() == pytest.approx(-0.9)


def test_a_resampled_pilot_has_the_unbiased_spread() -> None:
    """A resample of n instances has the spread of divisor n; the planned differences are scaled so that
    it is the pilot's unbiased one (divisor n − 1): by hand for four instances."""
    p = _pilot([0.7, 0.4, 0.5, 0.8], [0.5, 0.5, 0.5, 0.5])  # differences 0.2, -0.1, 0.0, 0.3
    d = moved(p, 0.1, 1.0)[0, :, 0]
    assert d.mean() == pytest.approx(0.1)
    assert np.var(d) == pytest.approx(np.var([0.2, -0.1, 0.0, 0.3], ddof=1))  # 0.0333…, not 0.025


def test_plan_on_a_decided_folder_says_so_and_gives_the_power_at_the_upper_spread(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder whose verdict is already decided: the plan says so and that its power is for a new run of that
    size; each truth's power is also given at the spread's upper confidence limit (plan.csv too)."""
    folder = write_scenario(tmp_path, Scenario(1, 30, {"agent": 0.95, "chain": 0.4}), seed=6)
    assert main(["criterion", str(folder)]) == 0
    verdict = pd.read_csv(folder / "criterion.csv").iloc[0].verdict
    capsys.readouterr()
    assert main(["plan", str(folder), "--max-instances", "2000"]) == 0
    out = capsys.readouterr().out
    assert verdict == "agent"
    assert "this folder is decided: agent at n = 30; the power below is for a new run of 30 instances" in out
    assert "power at 30" in out and out.count("(upper spread)") == 1 + 1  # the power's and the size's column
    plan = pd.read_csv(folder / "plan.csv")
    assert set(plan["folder_verdict"]) == {"agent"} and set(plan["folder_verdict_instances"]) == {30}
    assert plan["power_at_pilot_upper"].between(0, 1).all()
    assert plan["power_at_pilot_upper"].mean() <= plan["power_at_pilot"].mean() + 0.02  # a wider spread: less power
