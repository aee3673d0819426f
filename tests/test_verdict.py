"""The comparison's intervals against hand-computed cases, every branch of the verdict rule, the three
comparator modes, and the one-line errors for a bad --margin or --comparator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli import main
from benchmarks.comparison import Pair, compare, diff_se, instances_needed, max_t_quantile, t_quantile
from benchmarks.criterion import criterion_table
from benchmarks.verdict import check_margin, decide_declared, decide_selected
from tests.test_criterion import trials, write_folder

NAN2 = (math.nan, math.nan)


def pair(name: str, ci: tuple[float, float], cost: tuple[float, float] = (0.5, 2.0), ci90: tuple[float, float] | None
         = None, sim: tuple[float, float] | None = None, diff: float | None = None) -> Pair:
    """A comparison with chosen intervals (the 90% and simultaneous ones default to the 95% one)."""
    mid = (ci[0] + ci[1]) / 2 if diff is None else diff
    return Pair(name, 30, mid, 0.05, ci, ci90 or ci, sim or ci, sim or ci, 1.0, cost, cost)


# --- the intervals, by hand -------------------------------------------------------------------------

def test_a_paired_difference_by_hand(tmp_path: Path) -> None:
    # 4 instances × 2 trials. Per-instance agent - chain: 1, 0, 0, 1 -> mean 0.5, sd sqrt(1/3), se sqrt(1/3)/2
    rows = trials("agent", 4, 2, lambda i, t: True, 0.002) + trials("chain", 4, 2, lambda i, t: i in (1, 2), 0.001)
    df = pd.DataFrame(rows)
    (p,) = compare(df, ["chain"])
    se = math.sqrt(1 / 3) / 2
    assert p.diff == 0.5 and p.se == pytest.approx(se)
    assert p.ci == pytest.approx((0.5 - 3.182446 * se, 0.5 + 3.182446 * se), abs=1e-5)  # t(0.975, 3 df)
    assert p.ci90 == pytest.approx((0.5 - 2.353363 * se, 0.5 + 2.353363 * se), abs=1e-5)
    # one comparison: the simultaneous interval is the plain one; costs are constant: ratio 0.5 exactly
    assert p.sim == pytest.approx(p.ci) and p.cost_ratio == pytest.approx(0.5)
    assert p.cost_ci == pytest.approx((0.5, 0.5))


def test_no_spread_gets_the_floor_of_one_discordant_instance() -> None:
    assert diff_se(np.zeros(20)) == pytest.approx(1 / 20)
    assert diff_se(np.array([1.0, 0.0, 0.0, 0.0])) == pytest.approx(0.25)  # sd 0.5 / 2 = 0.25 = 1/4 too
    assert math.isnan(diff_se(np.array([1.0])))


def test_the_max_t_critical_value() -> None:
    rng = np.random.default_rng(1)
    one = rng.normal(size=(30, 1))
    assert max_t_quantile(one, 0.95) == pytest.approx(t_quantile(0.95, 30))
    same = np.repeat(one, 6, axis=1)  # six identical comparisons are one comparison
    assert max_t_quantile(same, 0.95) == pytest.approx(t_quantile(0.95, 30), abs=0.05)
    independent = rng.normal(size=(2000, 6))  # six independent ones: Šidák, the 0.95^(1/6) quantile
    assert max_t_quantile(independent, 0.95) == pytest.approx(t_quantile(0.95 ** (1 / 6), 2000), abs=0.05)


def test_instances_needed_is_prospective() -> None:
    # sd 0.5 and a difference of 0.2: ((1.96 + 0.84) × 0.5 / 0.2)² = 49.05 -> 50
    assert instances_needed(0.2, 0.5, 0.05) == 50
    # a difference near 0 is settled by showing equivalence within the margin, at distance 0.05
    assert instances_needed(0.0, 0.5, 0.05) == math.ceil((2.8016 * 0.5 / 0.05) ** 2)


# --- the rule, branch by branch (declared comparator) ------------------------------------------------

@pytest.mark.parametrize(("ci", "cost", "ci90", "verdict", "says"), [
    ((-0.4, -0.1), (1.5, 3.0), None, "workflow", "significantly more successful"),  # even though dearer
    ((0.1, 0.4), (0.1, 0.2), None, "agent", "significantly more successful"),  # even though dearer
    ((-0.1, 0.04), (0.2, 0.5), None, "workflow", "no worse than 0.05 and significantly cheaper"),
    ((-0.04, 0.1), (1.5, 2.5), None, "agent", "no worse than 0.05 and significantly cheaper"),
    ((-0.1, 0.2), (0.2, 0.5), None, "inconclusive", "significantly cheaper, but not shown"),  # cheaper, may be worse
    ((-0.06, 0.06), (0.8, 1.2), (-0.04, 0.04), "either", "equivalent within ±0.05"),
    ((-0.06, 0.06), (0.5, 0.9), (-0.04, 0.04), "inconclusive", "significantly cheaper"),  # equivalent, one cheaper
    ((-0.3, 0.3), (0.8, 1.2), None, "inconclusive", "not shown equivalent"),
    ((-0.1, 0.04), NAN2, None, "inconclusive", "not shown equivalent"),  # unknown cost is never "cheaper"
    (NAN2, (0.5, 0.9), None, "inconclusive", "too few instances"),
])
def test_the_declared_rule(ci: tuple[float, float], cost: tuple[float, float], ci90: tuple[float, float] | None,
                           verdict: str, says: str) -> None:
    v = decide_declared(pair("chain", ci, cost, ci90), margin=0.05)
    assert (v.verdict, v.comparator) == (verdict, "chain") and says in v.reason, v.reason


def test_the_margin_moves_non_inferiority() -> None:
    p = pair("chain", (-0.1, 0.08), (0.2, 0.5))
    assert decide_declared(p, 0.05).verdict == "inconclusive" and decide_declared(p, 0.10).verdict == "workflow"


# --- the rule against the selected best workflow ----------------------------------------------------

def test_selected_the_agent_must_beat_every_workflow() -> None:
    good = [pair("chain", (0.1, 0.3)), pair("route", (0.05, 0.3))]
    v = decide_selected(good, good[1])
    assert v.verdict == "agent" and v.diff_ci[0] == 0.05
    mixed = [pair("chain", (0.1, 0.3)), pair("route", (-0.01, 0.3))]  # not beaten: route
    assert decide_selected(mixed, mixed[1]).verdict != "agent"


def test_selected_a_workflow_wins_only_on_its_simultaneous_interval() -> None:
    # route's plain interval is below 0, its simultaneous one is not: no claim
    flows = [pair("chain", (-0.2, 0.2)), pair("route", (-0.3, -0.01), sim=(-0.35, 0.04))]
    assert decide_selected(flows, flows[1]).verdict == "inconclusive"
    flows = [pair("chain", (-0.2, 0.2)), pair("route", (-0.3, -0.05), sim=(-0.35, -0.01))]
    v = decide_selected(flows, flows[1])
    assert v.verdict == "workflow" and v.comparator == "route" and v.diff_ci == (-0.3, -0.01)


def test_selected_non_inferiority_and_cost() -> None:
    # a workflow no worse than the margin (simultaneously) and significantly cheaper (simultaneously)
    flows = [pair("chain", (-0.2, 0.2), (1.2, 2.0)), pair("single", (-0.08, 0.03), (0.1, 0.3))]
    assert decide_selected(flows, flows[0]).verdict == "workflow"
    # the agent: no worse than every workflow, and each one it does not beat costs significantly more
    flows = [pair("chain", (-0.03, 0.1), (1.5, 2.0)), pair("single", (0.2, 0.4), (0.1, 0.3))]
    v = decide_selected(flows, flows[0])
    assert v.verdict == "agent" and "every workflow" in v.reason
    flows = [pair("chain", (-0.03, 0.1), (1.5, 2.0)), pair("single", (-0.02, 0.4), (0.1, 0.3))]
    assert decide_selected(flows, flows[0]).verdict == "inconclusive"  # single is cheaper and not beaten


def test_selected_equivalence_with_the_best() -> None:
    flows = [pair("chain", (-0.04, 0.04), (0.8, 1.2)), pair("single", (0.01, 0.2), (0.8, 1.2))]
    assert decide_selected(flows, flows[0]).verdict == "either"


def test_the_margin_must_be_a_share() -> None:
    assert check_margin(0.1) == 0.1
    for bad in (0, 0.5, -0.1, 2, math.nan):
        with pytest.raises(ValueError, match=r"between 0 and 0\.5"):
            check_margin(bad)


# --- comparator modes on a folder ----------------------------------------------------------------

def _pipeline_folder(tmp_path: Path) -> Path:
    rows = (trials("chain", 60, 3, lambda i, t: i % 5 != 0, 0.001, task="pipeline")
            + trials("route", 60, 3, lambda i, t: True, 0.002, task="pipeline")
            + trials("agent", 60, 3, lambda i, t: i % 5 != 0, 0.004, task="pipeline"))
    out = write_folder(tmp_path, rows)
    (out / "manifest.json").write_text(json.dumps({"model": "sim", "seed": 0, "tasks": ["pipeline"]}))
    return out


def test_the_three_comparator_modes(tmp_path: Path) -> None:
    out = _pipeline_folder(tmp_path)
    declared = criterion_table(out).iloc[0]  # pipeline declares chain
    assert (declared.comparator, declared.comparator_mode) == ("chain", "declared by the family")
    assert declared.verdict == "workflow"  # equally successful, a quarter of the cost
    assert declared.fit_graph == "chain"  # the fit is against the declared graph, not the winner's
    named = criterion_table(out, comparator="route").iloc[0]
    assert (named.comparator, named.comparator_mode) == ("route", "named with --comparator")
    selected = criterion_table(out, comparator="selected").iloc[0]
    assert selected.comparator == "route" and selected.comparator_mode.startswith("selected")
    missing = criterion_table(out, comparator="parallel").iloc[0]
    assert missing.verdict == "inconclusive" and "no runs of the comparator parallel" in missing.note


def test_an_unknown_task_label_has_an_unknown_fit(tmp_path: Path) -> None:
    rows = trials("chain", 10, 2, lambda i, t: True, 0.001, task="mine") + trials("agent", 10, 2, lambda i, t: True,
                                                                                   0.002, task="mine")
    r = criterion_table(write_folder(tmp_path, rows)).iloc[0]
    assert pd.isna(r.fit_share) and r.comparator_mode.startswith("selected")


@pytest.mark.parametrize(("flags", "says"), [
    (["--margin", "0.7"], "between 0 and 0.5"),
    (["--margin", "zero"], "between 0 and 0.5"),
    (["--margin", "0"], "between 0 and 0.5"),
    (["--comparator", "agent"], "expected declared, selected or a workflow"),
    (["--comparator", "best"], "expected declared, selected or a workflow"),
])
@pytest.mark.parametrize("command", ["criterion", "report"])
def test_bad_verdict_options_are_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       command: str, flags: list[str], says: str) -> None:
    out = _pipeline_folder(tmp_path)
    assert main([command, str(out), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and says in err, err
    assert not (out / "criterion.csv").exists()


def test_the_cli_takes_a_margin_and_a_comparator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _pipeline_folder(tmp_path)
    assert main(["criterion", str(out), "--margin", "0.1", "--comparator", "route"]) == 0
    back = pd.read_csv(out / "criterion.csv")
    assert back.loc[0, "comparator"] == "route" and back.loc[0, "margin"] == 0.1
    assert (out / "criterion_pairs.csv").exists() and "criterion_pairs.csv" in capsys.readouterr().out
