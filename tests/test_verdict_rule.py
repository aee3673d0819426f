"""Every branch of the verdict rule, its monotonicity, the cost margin, the three comparator modes, and the
one-line errors for bad verdict options."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion import rule
from benchmarks.criterion.bounds import Bounds
from benchmarks.criterion.comparison import Pair
from benchmarks.criterion.table import criterion_table
from benchmarks.criterion.verdict import check_cost_margin, check_margin, check_value, decide_declared, decide_selected
from tests.test_criterion import trials, write_folder

NAN2 = (math.nan, math.nan)


def pair(name: str, ci: tuple[float, float], cost: tuple[float, float] = (0.5, 2.0), ci90: tuple[float, float] | None
         = None, sim: tuple[float, float] | None = None, diff: float | None = None) -> Pair:
    """A comparison with chosen intervals (the 90% and simultaneous ones default to the success leg's)."""
    mid = (ci[0] + ci[1]) / 2 if diff is None else diff
    return Pair(name, 30, mid, 0.05, ci, ci90 or ci, sim or ci, sim or ci90 or ci, 1.0, cost, cost)


@pytest.mark.parametrize(("ci", "cost", "ci90", "verdict", "says"), [
    ((-0.4, -0.1), (1.5, 3.0), None, "workflow", "significantly more successful"),  # even though dearer
    ((0.1, 0.4), (0.1, 0.2), None, "agent", "significantly more successful"),  # even though dearer
    ((-0.1, 0.04), (0.2, 0.5), None, "workflow", "no worse than 0.05 and at least 10% cheaper"),
    ((-0.04, 0.1), (1.5, 2.5), None, "agent", "no worse than 0.05 and at least 10% cheaper"),
    ((-0.1, 0.2), (0.2, 0.5), None, "inconclusive", "the workflow is at least 10% cheaper, but not shown"),
    ((-0.06, 0.06), (0.8, 1.2), (-0.04, 0.04), "either", "equivalent within ±0.05"),
    # equivalent and cheaper: the cheaper side (the old rule said inconclusive: not monotone)
    ((-0.06, 0.06), (0.5, 0.85), (-0.04, 0.04), "workflow", "no worse than 0.05 and at least 10% cheaper"),
    ((-0.06, 0.06), (0.92, 0.97), (-0.04, 0.04), "either", "neither is shown at least 10% cheaper"),
    ((-0.3, 0.3), (0.8, 1.2), None, "inconclusive", "not shown equivalent"),
    ((-0.1, 0.04), NAN2, None, "inconclusive", "not shown equivalent"),  # unknown cost is never "cheaper"
    (NAN2, (0.5, 0.9), None, "inconclusive", "too few instances"),
])
def test_the_declared_rule(ci: tuple[float, float], cost: tuple[float, float], ci90: tuple[float, float] | None,
                           verdict: str, says: str) -> None:
    v = decide_declared(pair("chain", ci, cost, ci90), margin=0.05)
    assert (v.verdict, v.comparator) == (verdict, "chain") and says in v.reason, v.reason


def test_the_margins_move_the_verdict() -> None:
    p = pair("chain", (-0.1, 0.08), (0.2, 0.5))
    assert decide_declared(p, 0.05).verdict == "inconclusive" and decide_declared(p, 0.10).verdict == "workflow"
    # a significant 3% saving: not cheaper at the default 10% cost margin, cheaper with no margin
    small = pair("chain", (-0.06, 0.06), (0.95, 0.99), (-0.04, 0.04))
    assert decide_declared(small).verdict == "either" and decide_declared(small, cost_margin=0.0).verdict == "workflow"


def test_selected_the_agent_must_beat_every_workflow() -> None:
    good = [pair("chain", (0.1, 0.3)), pair("route", (0.05, 0.3))]
    v = decide_selected(good, good[1])
    assert v.verdict == "agent" and v.diff_ci[0] == 0.05
    mixed = [pair("chain", (0.1, 0.3)), pair("route", (-0.01, 0.3))]  # not beaten: route
    assert decide_selected(mixed, mixed[1]).verdict != "agent"


def test_selected_a_workflow_wins_only_on_its_simultaneous_interval() -> None:
    flows = [pair("chain", (-0.2, 0.2)), pair("route", (-0.3, -0.01), sim=(-0.35, 0.04))]
    assert decide_selected(flows, flows[1]).verdict == "inconclusive"
    flows = [pair("chain", (-0.2, 0.2)), pair("route", (-0.3, -0.05), sim=(-0.35, -0.01))]
    v = decide_selected(flows, flows[1])
    assert v.verdict == "workflow" and v.comparator == "route" and v.diff_ci == (-0.35, -0.01)


def test_selected_non_inferiority_cost_and_equivalence() -> None:
    flows = [pair("chain", (-0.2, 0.2), (1.2, 2.0)), pair("single", (-0.08, 0.03), (0.1, 0.3))]
    assert decide_selected(flows, flows[0]).verdict == "workflow"
    flows = [pair("chain", (-0.03, 0.1), (1.5, 2.0)), pair("single", (0.2, 0.4), (0.1, 0.3))]
    v = decide_selected(flows, flows[0])
    assert v.verdict == "agent" and "every workflow" in v.reason
    flows = [pair("chain", (-0.03, 0.1), (1.5, 2.0)), pair("single", (-0.02, 0.4), (0.1, 0.3))]
    assert decide_selected(flows, flows[0]).verdict == "inconclusive"  # single is cheaper and not beaten
    flows = [pair("chain", (-0.04, 0.04), (0.8, 1.2)), pair("single", (0.01, 0.2), (0.8, 1.2))]
    assert decide_selected(flows, flows[0]).verdict == "either"


def _random_bounds(rng: np.random.Generator, size: int, m: int) -> Bounds:
    diff, se = rng.uniform(-0.15, 0.15, (size, m)), rng.uniform(0.005, 0.05, (size, m))
    wide, theta, cse = rng.uniform(1, 1.3, (size, 1)), rng.uniform(-0.4, 0.4, (size, m)), rng.uniform(0.01, 0.1,
                                                                                                      (size, m))
    fields = {"diff": diff, "se": se, "n": np.full((size, m), 30.0), "ratio": np.exp(theta)}
    for name, z in (("win", 2.3), ("eq", 1.7)):
        fields |= {f"{name}_lo": diff - z * se, f"{name}_hi": diff + z * se,
                   f"{name}_sim_lo": diff - z * wide * se, f"{name}_sim_hi": diff + z * wide * se}
    fields |= {"cost_lo": np.exp(theta - 2 * cse), "cost_hi": np.exp(theta + 2 * cse),
               "cost_sim_lo": np.exp(theta - 2 * wide * cse), "cost_sim_hi": np.exp(theta + 2 * wide * cse)}
    if m == 1:
        fields |= {k: fields[k.replace("_sim", "")] for k in fields if "_sim_" in k}
    return Bounds(**fields)


@pytest.mark.parametrize("m", [1, 3])
def test_being_cheaper_never_makes_a_verdict_weaker(m: int) -> None:
    """Shrinking every workflow's cost (or the agent's) moves the verdict only towards the cheaper side."""
    towards_flow = {"agent": 0, "inconclusive": 1, "either": 2, "workflow": 3}
    b = _random_bounds(np.random.default_rng(m), 20000, m)
    before = rule.verdicts(rule.decide(b, 0.05, 0.10)[0])
    for factor, order in ((0.8, towards_flow), (1.25, {k: -v for k, v in towards_flow.items()})):
        cheaper = Bounds(**(b.__dict__ | {k: getattr(b, k) * factor for k in b.__dict__ if k.startswith("cost_")}))
        after = rule.verdicts(rule.decide(cheaper, 0.05, 0.10)[0])
        rank = np.vectorize(order.get)
        assert (rank(after) >= rank(before)).all()
        assert (after != before).sum() > 100  # the shift does move verdicts: the check is not empty


def test_the_options_are_checked() -> None:
    assert check_margin(0.1) == 0.1 and check_cost_margin(0) == 0.0 and check_value(None) is None
    for bad in (0, 0.5, -0.1, 2, math.nan):
        with pytest.raises(ValueError, match=r"between 0 and 0\.5"):
            check_margin(bad)
    for bad in (-0.1, 1, math.nan):
        with pytest.raises(ValueError, match="--cost-margin"):
            check_cost_margin(bad)
    for bad in (0, -1, math.inf, math.nan):
        with pytest.raises(ValueError, match="--value-per-success"):
            check_value(bad)


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
    named = criterion_table(out, comparator="route").iloc[0]
    assert (named.comparator, named.comparator_mode) == ("route", "named with --comparator")
    selected = criterion_table(out, comparator="selected").iloc[0]
    assert selected.comparator == "route" and selected.comparator_mode.startswith("selected")
    missing = criterion_table(out, comparator="parallel").iloc[0]
    assert missing.verdict == "inconclusive" and "no runs of the comparator parallel" in missing.note


@pytest.mark.parametrize(("flags", "says"), [
    (["--margin", "0.7"], "between 0 and 0.5"),
    (["--margin", "zero"], "between 0 and 0.5"),
    (["--comparator", "agent"], "must be declared, selected or a workflow"),
    (["--cost-margin", "1.5"], "from 0 to below 1"),
    (["--cost-margin", "-0.1"], "from 0 to below 1"),
    (["--value-per-success", "-3"], "a positive number of USD"),
    (["--value-per-success", "lots"], "a positive number of USD"),
])
@pytest.mark.parametrize("command", ["criterion", "report"])
def test_bad_verdict_options_are_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       command: str, flags: list[str], says: str) -> None:
    out = _pipeline_folder(tmp_path)
    assert main([command, str(out), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and says in err, err
    assert not (out / "criterion.csv").exists()


def test_the_cli_takes_every_verdict_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _pipeline_folder(tmp_path)
    argv = ["criterion", str(out), "--margin", "0.1", "--comparator", "route", "--cost-margin", "0.2",
            "--value-per-success", "$0.05"]
    assert main(argv) == 0
    back = pd.read_csv(out / "criterion_route.csv").iloc[0]  # a named comparator's own file: criterion.csv untouched
    assert (back.comparator, back.margin, back.cost_margin, back.value_per_success) == ("route", 0.1, 0.2, 0.05)
    assert "net value" in back.reason and "criterion_route.csv" in capsys.readouterr().out


def test_a_declared_comparator_is_judged_on_its_one_at_a_time_intervals() -> None:
    """Named before the data, the one comparison needs no simultaneous interval: a workflow's claim that its
    plain 90% interval supports is not withheld because the six-way interval is wider."""
    from benchmarks.criterion.comparison import Pair
    from benchmarks.criterion.verdict import decide_declared

    plain = Pair("chain", 60, 0.0, 0.02, (-0.045, 0.045), (-0.035, 0.037), (-0.07, 0.07), (-0.054, 0.054),
                 0.6, (0.55, 0.66), (0.5, 0.93))
    assert decide_declared(plain).verdict == "workflow"
