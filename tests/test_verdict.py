"""The comparison's intervals against hand-computed cases: paired differences on pairwise-complete
instances, the 1/n floor, [-1, 1] clipping, the max-T critical value, the paired cost ratio the criterion
prints, and the price of an extra success (Fieller's interval, by hand)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from benchmarks.criterion.comparison import compare
from benchmarks.criterion.intervals import max_t_quantile, t_quantile
from benchmarks.criterion.table import criterion_table
from benchmarks.criterion.tradeoff import price
from tests.test_criterion import trials, write_folder


def test_a_paired_difference_by_hand() -> None:
    # 4 instances × 2 trials. Per-instance agent - chain: 1, 0, 0, 1 -> mean 0.5, sd sqrt(1/3), se sqrt(1/3)/2
    rows = trials("agent", 4, 2, lambda i, t: True, 0.002) + trials("chain", 4, 2, lambda i, t: i in (1, 2), 0.001)
    (p,) = compare(pd.DataFrame(rows), ["chain"])
    se = math.sqrt(1 / 3) / 2
    assert p.diff == 0.5 and p.se == pytest.approx(se) and p.instances == 4
    # the success leg's 97.5% interval: t(0.9875, 3 df) = 4.176535; its upper end clipped at 1
    assert p.ci == pytest.approx((0.5 - 4.176535 * se, 1.0), abs=1e-5)
    assert p.ci90 == pytest.approx((0.5 - 2.353363 * se, 1.0), abs=1e-5)  # t(0.95, 3 df)
    # one comparison: the simultaneous interval is the plain one; costs are constant: ratio 0.5 exactly
    assert p.sim == pytest.approx(p.ci) and p.cost_ratio == pytest.approx(0.5)
    assert p.cost_ci == pytest.approx((0.5, 0.5))


def test_a_success_difference_stays_inside_minus_one_to_one() -> None:
    # the agent always succeeds, the workflow never: +1 with the floor se 1/20 gave "+1.00 [+0.88, +1.12]"
    rows = trials("agent", 20, 3, lambda i, t: True, 0.002) + trials("chain", 20, 3, lambda i, t: False, 0.001)
    (p,) = compare(pd.DataFrame(rows), ["chain"])
    assert p.diff == 1.0 and p.se == pytest.approx(1 / 20)  # no spread: one discordant instance in 20
    assert p.ci == pytest.approx((1 - 2.433440 * 0.05, 1.0), abs=1e-5)  # t(0.9875, 19 df)
    for low, high in (p.ci, p.ci90, p.sim, p.sim90):
        assert -1 <= low <= high <= 1


def test_each_comparison_uses_the_instances_it_has() -> None:
    # chain missed instances 4 and 5; single ran all six: its comparison keeps them (pairwise-complete)
    rows = (trials("agent", 6, 2, lambda i, t: True, 0.002) + trials("single", 6, 2, lambda i, t: i < 4, 0.001)
            + [r for r in trials("chain", 6, 2, lambda i, t: True, 0.001) if r["instance"] < "toy-0004"])
    chain, single = compare(pd.DataFrame(rows), ["chain", "single"])
    assert (chain.instances, single.instances) == (4, 6)
    # single: per-instance differences 0, 0, 0, 0, 1, 1 -> 1/3 (complete cases alone would give 0)
    assert single.diff == pytest.approx(1 / 3) and single.se == pytest.approx(math.sqrt(4 / 15) / math.sqrt(6))
    assert chain.diff == 0.0


def test_the_max_t_critical_value() -> None:
    df = np.array([29.0])
    one = max_t_quantile(np.eye(1)[None], df, (0.95,))
    assert one[0, 0] == pytest.approx(float(t_quantile(0.95, 29)))
    same = max_t_quantile(np.ones((1, 6, 6)), df, (0.95,))  # six identical comparisons are one comparison
    assert same[0, 0] == pytest.approx(float(t_quantile(0.95, 29)), abs=0.05)
    independent = max_t_quantile(np.eye(6)[None], np.array([1999.0]), (0.95,))  # Šidák: the 0.95^(1/6) quantile
    assert independent[0, 0] == pytest.approx(float(t_quantile(0.95 ** (1 / 6), 1999)), abs=0.05)


def test_the_printed_cost_ratio_is_the_paired_one(tmp_path: Path) -> None:
    # agent's cost grows with the instance; chain costs half the agent's on each instance it ran, but it
    # ran only the three cheapest. All rows: (0.5 × 0.002) / 0.0035 = 0.29; paired: 0.5 exactly.
    def priced(rows: list[dict[str, Any]], per: float) -> list[dict[str, Any]]:
        return [r | {"cost_usd": per * (1 + int(r["instance"][-1]))} for r in rows]

    rows = priced(trials("agent", 6, 2, lambda i, t: True, 0), 0.001)
    rows += priced(trials("chain", 3, 2, lambda i, t: True, 0), 0.0005)
    r = criterion_table(write_folder(tmp_path, rows)).iloc[0]
    assert r.cost_ratio == pytest.approx(0.5) and r.cost_ci_low <= r.cost_ratio <= r.cost_ci_high
    assert r.instances == 3 and r.success_diff == 0.0


def _priced(value: float | None = None, path: Path | None = None) -> pd.DataFrame:
    # 10 instances, 1 trial: the agent always succeeds, chain on instances 6-9; the agent costs $0.003 more
    rows = trials("agent", 10, 1, lambda i, t: True, 0.004) + trials("chain", 10, 1, lambda i, t: i >= 6, 0.001)
    return pd.DataFrame(rows) if path is None else criterion_table(write_folder(path, rows), value_per_success=value)


def test_the_price_of_the_extra_success_by_hand() -> None:
    g = _priced()
    (pair,) = compare(g, ["chain"])
    p = price(g, pair)
    assert p is not None and p.side == "agent" and p.times == pytest.approx(4.0) and p.extra == pytest.approx(0.6)
    # a constant cost difference c over success differences with mean 0.6 and se s: Fieller's interval is
    # c / (0.6 ± t s), the t interval of the mean inverted
    s, t = math.sqrt(0.6 * 0.4 * 10 / 9) / math.sqrt(10), st.t.ppf(0.975, 9)
    assert p.usd == pytest.approx(0.005)
    assert (p.low, p.high) == pytest.approx((0.003 / (0.6 + t * s), 0.003 / (0.6 - t * s)))
    assert p.text().startswith("agent: +0.60 success at 4.00× cost, $0.005 per extra success [$0.00309, $0.013]")


def test_no_price_when_the_better_side_is_not_costlier() -> None:
    g = _priced()
    g.loc[g["pattern"] == "chain", "cost_usd"] = 0.004  # the same cost: nothing to price
    (pair,) = compare(g, ["chain"])
    assert price(g, pair) is None


def test_the_criterion_prints_the_price(tmp_path: Path) -> None:
    r = _priced(path=tmp_path).iloc[0]
    assert r.verdict == "agent" and r.price_side == "agent" and r.price_per_success == pytest.approx(0.005)
    assert "$0.005 per extra success" in r.note


def test_a_value_per_success_decides_by_net_value(tmp_path: Path) -> None:
    # net value per trial, agent - chain: 0.05 × (success diff) - 0.003 has mean +0.027: the agent's extra
    # successes are worth their cost; at $0.001 a success every extra one costs more than it earns
    worth = _priced(0.05, tmp_path / "a").iloc[0]
    assert worth.verdict == "agent" and worth.value_diff == pytest.approx(0.027)
    assert worth.value_ci_low > 0 and "net value" in worth.reason and "$+0.027" in worth.note
    cheap = _priced(0.001, tmp_path / "b").iloc[0]
    assert cheap.verdict == "workflow" and cheap.value_diff == pytest.approx(0.001 * 0.6 - 0.003)
    assert cheap.value_ci_high < 0 and cheap.value_per_success == 0.001


def test_identical_net_values_over_few_instances_are_not_called_equivalent(tmp_path: Path) -> None:
    # the floor of one discordant instance in n holds on net value too: its unit, a success's value
    few = trials("agent", 20, 3, lambda i, t: True, 0.001) + trials("chain", 20, 3, lambda i, t: True, 0.001)
    assert criterion_table(write_folder(tmp_path / "few", few), value_per_success=1.0).iloc[0].verdict == "inconclusive"
    many = trials("agent", 200, 3, lambda i, t: True, 0.001) + trials("chain", 200, 3, lambda i, t: True, 0.001)
    assert criterion_table(write_folder(tmp_path / "many", many), value_per_success=1.0).iloc[0].verdict == "either"
