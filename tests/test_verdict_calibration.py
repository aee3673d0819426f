"""The verdict is right as often as it claims, at every sample size, on synthetic results whose truth is
known (tests/synthetic_results.py: seven patterns, 3 trials, instance difficulty shared across patterns).

Most checks run the criterion's own interval and rule code vectorised over many simulated tasks
(`simulated_verdicts`); the last ones run `criterion_table` on written folders end to end. Each docstring
states the Monte Carlo error of its bound.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.table import criterion_table
from tests.synthetic_results import WORKFLOWS, Scenario, simulated_verdicts, uniform, write_scenario

CHEAP = {w: 0.005 for w in WORKFLOWS} | {"agent": 0.02}


def named(verdicts: np.ndarray) -> float:
    return float(np.isin(verdicts, ("workflow", "agent")).mean())


@pytest.mark.parametrize(("instances", "reps"), [(20, 1000), (100, 1000), (400, 800), (1000, 400)])
@pytest.mark.parametrize("comparator", [None, "chain"])
def test_all_equal_rarely_names_a_winner(instances: int, reps: int, comparator: str | None) -> None:
    """Every pattern equal in success and cost: a winner for at most 5% of tasks (the design's budget; the
    rate measured is 1-3%, Monte Carlo standard error at most 0.9 points)."""
    got = simulated_verdicts(Scenario(1, instances, uniform(0.7)), reps, seed=instances, comparator=comparator)
    assert named(got) <= 0.05, (instances, comparator, named(got))


@pytest.mark.parametrize("instances", [100, 400, 1000])
def test_the_least_favourable_truth_keeps_the_combined_error(instances: int) -> None:
    """Equal success, the workflow cheaper by exactly the cost margin: both legs can err at once (1.25% +
    1.25% success, 2.5% cost); a wrong winner for at most 6% of 2,500 tasks (5% expected, standard error
    0.44 points)."""
    s = Scenario(1, instances, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.009})
    assert named(simulated_verdicts(s, 2500, seed=instances + 1)) <= 0.06


def test_a_workflow_worse_by_the_margin_is_not_called_non_inferior() -> None:
    """The agent better by exactly δ, the workflow far cheaper: `workflow` for at most 6% of 2,000 tasks
    (the non-inferiority bound's 5%, standard error 0.49 points)."""
    s = Scenario(1, 300, {"agent": 0.75, "chain": 0.70}, {"agent": 0.01, "chain": 0.005})
    assert float((simulated_verdicts(s, 2000, seed=7) == "workflow").mean()) <= 0.06


def test_a_significant_but_small_saving_does_not_decide() -> None:
    """A 3% saving at 1,000 instances, equal success: the old rule said `workflow` 97% of the time; the
    cost margin keeps it to the success leg's 1.25% (at most 4% of 400 tasks, standard error 0.6 points)."""
    s = Scenario(1, 1000, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.0097})
    assert float((simulated_verdicts(s, 400, seed=8) == "workflow").mean()) <= 0.04


def test_a_better_agent_against_cheaper_workflows_is_not_called_workflow() -> None:
    got = simulated_verdicts(Scenario(1, 20, uniform(0.6, agent=0.75), CHEAP), 1000, seed=12)
    assert float((got == "workflow").mean()) <= 0.05


def test_a_much_better_agent_on_100_instances_is_found() -> None:
    got = simulated_verdicts(Scenario(1, 100, uniform(0.6, agent=0.8)), 1000, seed=13)
    assert float((got == "agent").mean()) >= 0.80


def test_one_better_cheaper_workflow_on_100_instances_is_found() -> None:
    success = uniform(0.6) | {"chain": 0.75}
    cost = {w: 0.01 for w in WORKFLOWS} | {"chain": 0.005, "agent": 0.02}
    got = simulated_verdicts(Scenario(1, 100, success, cost), 1000, seed=14)
    assert float((got == "workflow").mean()) >= 0.80 and float((got == "agent").mean()) <= 0.05


def test_wva_criterion_on_all_equal_folders(tmp_path: Path) -> None:
    """The folder path end to end (bootstrap cost intervals, 10,000 max-T draws): 40 tasks at 100
    instances and 16 at 400, a winner for at most 6% of them. A regression check: at the rate measured
    above (about 2%), more than 6% of 56 tasks would be named with chance about 3%; the seed is fixed."""
    shares = []
    for instances, tasks in ((100, 40), (400, 16)):
        folder = write_scenario(tmp_path / str(instances), Scenario(tasks, instances, uniform(0.7)), seed=11)
        shares.append(criterion_table(folder)["verdict"].isin(["workflow", "agent"]).to_numpy())
    assert np.concatenate(shares).mean() <= 0.06


def test_a_success_column_written_as_floats_gives_the_same_verdicts(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, Scenario(8, 30, uniform(0.6, agent=0.8)), seed=21)
    before = criterion_table(folder)[["task", "verdict", "success_diff", "diff_ci_low"]]
    runs = pd.read_csv(folder / "runs.csv")
    runs["success"] = runs["success"].astype(float)  # 1.0 / 0.0: what pandas writes for a column with a gap
    runs.to_csv(folder / "runs.csv", index=False)
    assert "1.0," in (folder / "runs.csv").read_text()
    pd.testing.assert_frame_equal(criterion_table(folder)[before.columns], before)


def test_the_generator_draws_the_truth_it_is_given(tmp_path: Path) -> None:
    folder = write_scenario(tmp_path, Scenario(40, 100, uniform(0.6, agent=0.8)), seed=15)
    runs = pd.read_csv(folder / "runs.csv")
    rates = runs.groupby("pattern")["success"].mean()
    assert rates["agent"] == pytest.approx(0.8, abs=0.02) and rates["chain"] == pytest.approx(0.6, abs=0.02)
    # trials of one instance agree far more than independent draws would
    per = runs[runs["pattern"] == "chain"].groupby(["task", "instance"])["success"].mean()
    assert per.var() > 1.5 * 0.6 * 0.4 / 3


def test_wva_criterion_reads_such_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_scenario(tmp_path, Scenario(3, 20, uniform(0.7)), seed=16)
    assert main(["criterion", str(folder)]) == 0
    back = pd.read_csv(folder / "criterion.csv")
    assert list(back["task"]) == ["synth-000", "synth-001", "synth-002"] and back["drawability"].isna().all()
    assert back["comparator_mode"].str.startswith("selected").all() and "synth-002" in capsys.readouterr().out
