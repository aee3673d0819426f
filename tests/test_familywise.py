"""The familywise reading: Holm's adjusted p-values by hand, a claim's p-value against the t test it
reduces to, the familywise error on simulated tables whose every task is truly equal, and the column
through `wva criterion` and a sweep's map."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from benchmarks.criterion.bounds import FIXED, bounds
from benchmarks.criterion.deciding import decide_task
from benchmarks.criterion.familywise import TOLERANCE, claim_p, familywise_columns, holm, scaled
from benchmarks.criterion.rule import decide, verdicts
from tests.synthetic_results import Scenario, draw_arrays
from tests.test_verdict_stability import runs


def test_holm_by_hand() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → running max 0.02, 0.03, 0.06, 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    got = holm([0.2, float("nan"), 0.01])  # no comparison: out of K (K = 2), kept NaN
    assert got[0] == pytest.approx(0.2) and np.isnan(got[1]) and got[2] == pytest.approx(0.02)
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0]) and holm([]).size == 0


def test_the_familywise_verdict_drops_only_winners_holm_does_not_confirm() -> None:
    df = pd.DataFrame({"task": list("abcd"), "verdict": ["workflow", "agent", "either", "workflow"],
                       "claim_p": [0.004, 0.03, 1.0, 0.02]})
    out = familywise_columns(df)  # adjusted: 0.016, 0.06, 1, 0.06
    assert list(out["verdict_familywise"]) == ["workflow", "inconclusive", "either", "inconclusive"]
    assert scaled(FIXED, 0.05) == FIXED and scaled(FIXED, 0.01).win == pytest.approx(0.995)


def test_a_claims_p_value_is_the_t_tests_when_the_success_leg_decides() -> None:
    """Agent right on all 30 instances, the workflow wrong on 5, equal cost: `agent` by the success leg
    alone, whose 97.5% interval is a one-sided test at 1.25% of the 5% budget, so the claim's p is
    4 × the one-sided t p-value (to within the bisection's factor, rounded up)."""
    g = runs([1] * 30, [0] * 5 + [1] * 25)
    assert decide_task(g, ["chain"], "chain").verdict.verdict == "agent"
    d = np.array([1.0] * 5 + [0.0] * 25)
    expected = 4 * st.t.sf(d.mean() / (d.std(ddof=1) / np.sqrt(30)), 29)

    def holds(levels: object) -> bool:
        return decide_task(g, ["chain"], "chain", levels=levels).verdict.verdict == "agent"  # type: ignore[arg-type]

    assert expected <= claim_p(holds, FIXED) <= expected * TOLERANCE


def test_holm_keeps_any_false_winner_in_a_table_of_five_equal_tasks_under_5_percent() -> None:
    """Five tasks, agent and workflow truly equal in success, the workflow cheaper by exactly the cost margin
    (the rule's least favourable truth), 60 instances. Under this complete null Holm names a winner only if
    some task's claim holds at 5% / 5 (its first step; a claim p rounded up can only hold less), so the
    familywise error is the chance that any task's verdict holds at levels scaled to 1%. Over 600 tables:
    at most 6% (measured 2.7%), against 15.3% for the tasks' own verdicts."""
    s = Scenario(1, 60, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.009})
    success, cost = draw_arrays(s, 3000, np.random.default_rng(8))
    own = verdicts(decide(bounds(success, cost, FIXED, method="delta", draws=2000), 0.05, 0.10)[0])
    fw = verdicts(decide(bounds(success, cost, scaled(FIXED, 0.01), method="delta", draws=2000), 0.05, 0.10)[0])
    any_own = np.isin(own, ("agent", "workflow")).reshape(600, 5).any(axis=1).mean()
    any_fw = np.isin(fw, ("agent", "workflow")).reshape(600, 5).any(axis=1).mean()
    assert any_fw <= 0.06 < any_own


def test_a_sweep_map_is_one_family_and_marks_the_winners_that_stand(tmp_path: Path) -> None:
    from benchmarks.criterion.render_readings import familywise_sweep
    from benchmarks.report.charts.verdict_map import familywise_cells, verdict_map

    sweep = familywise_columns(pd.DataFrame({
        "param": "hops", "value": ["1", "2", "1", "2"], "by": "depth", "by_value": ["3", "3", "6", "6"],
        "task": "multihop", "verdict": ["workflow", "agent", "agent", "either"], "success_diff": 0.1,
        "claim_p": [0.001, 0.02, 0.3, 1.0]}))  # Holm over 4 cells: 0.004, 0.06, 0.6, 1
    assert familywise_cells(sweep) == {("1", "3")}
    assert familywise_sweep(sweep).startswith("Familywise (Holm over the 4 settings, 5% in all): 1 of 3 winners")
    assert verdict_map(sweep, tmp_path).exists()
